//! A reader of git's configuration files, enough to find what git would run or read: sections
//! (`[core]`, `[diff "tool"]`, the old `[core.sub]`), `key = value` lines and bare keys, quoted
//! values with git's escapes, `#` and `;` comments, and lines continued with a backslash. Names
//! are folded to lower case as git folds them (section and key, not subsection). Anything it
//! cannot read is skipped: the file is git's to judge, this only looks for names in it.

/// One `section.subsection.key = value` of a file, the section and key in lower case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) section: String,
    pub(crate) subsection: Option<String>,
    pub(crate) key: String,
    pub(crate) value: String,
}

/// The entries of a configuration file's text, in order.
pub(crate) fn parse(text: &str) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut section: Option<(String, Option<String>)> = None;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix('[') {
            let (header, after) = split_header(rest);
            section = header;
            // `[core] pager = less` on one line.
            match (&section, after) {
                (Some(current), Some(after)) if !after.trim().is_empty() => {
                    push_entry(&mut entries, current, after, &mut lines);
                }
                _ => {}
            }
            continue;
        }
        if let Some(current) = &section {
            push_entry(&mut entries, current, trimmed, &mut lines);
        }
    }
    entries
}

/// The section of a header's text after `[`, and what follows `]` on the line.
fn split_header(rest: &str) -> (Option<(String, Option<String>)>, Option<&str>) {
    // The subsection is quoted and may hold `]`.
    let mut in_quotes = false;
    let mut escaped = false;
    let mut end = None;
    for (i, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            ']' if !in_quotes => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    let Some(end) = end else {
        return (None, None);
    };
    let header = rest[..end].trim();
    let after = Some(&rest[end + 1..]);
    if let Some((name, quoted)) = header.split_once(char::is_whitespace) {
        let quoted = quoted.trim();
        let Some(inner) = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')) else {
            return (None, after);
        };
        let subsection = inner.replace("\\\"", "\"").replace("\\\\", "\\");
        return (Some((name.to_ascii_lowercase(), Some(subsection))), after);
    }
    // `[section.sub]`: the old form, its subsection folded to lower case.
    let header = header.to_ascii_lowercase();
    let parsed = match header.split_once('.') {
        Some((name, sub)) => (name.to_owned(), Some(sub.to_owned())),
        None => (header, None),
    };
    (Some(parsed), after)
}

/// Reads `key = value` (or a bare `key`) from `line`, taking continuation lines from `lines`.
fn push_entry<'a>(
    entries: &mut Vec<Entry>,
    (section, subsection): &(String, Option<String>),
    line: &str,
    lines: &mut impl Iterator<Item = &'a str>,
) {
    let line = line.trim_start();
    let name_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(line.len());
    if name_end == 0 {
        return;
    }
    let key = line[..name_end].to_ascii_lowercase();
    let rest = line[name_end..].trim_start();
    let value = match rest.strip_prefix('=') {
        Some(value) => read_value(value, lines),
        // A bare key is a boolean true; anything else on the line is not an entry.
        None if rest.is_empty() || rest.starts_with(['#', ';']) => "true".to_owned(),
        None => return,
    };
    entries.push(Entry {
        section: section.clone(),
        subsection: subsection.clone(),
        key,
        value,
    });
}

/// A value: quotes removed, escapes undone, comments dropped, continued lines joined, and the
/// whitespace around it trimmed (inside quotes it is kept).
fn read_value<'a>(first: &str, lines: &mut impl Iterator<Item = &'a str>) -> String {
    let mut value = String::new();
    // Where the value's kept text ends: unquoted trailing whitespace is dropped.
    let mut kept = 0;
    let mut in_quotes = false;
    let mut line = first.trim_start().to_owned();
    loop {
        let mut chars = line.chars().peekable();
        let mut continued = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    None => continued = true,
                    Some('n') => value.push('\n'),
                    Some('t') => value.push('\t'),
                    Some('b') => {
                        value.pop();
                    }
                    Some(other) => value.push(other),
                },
                '"' => in_quotes = !in_quotes,
                '#' | ';' if !in_quotes => break,
                c => value.push(c),
            }
            if in_quotes || !value.ends_with(char::is_whitespace) {
                kept = value.len();
            }
        }
        if !continued {
            break;
        }
        match lines.next() {
            Some(next) => line = next.to_owned(),
            None => break,
        }
    }
    value.truncate(kept);
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(section: &str, subsection: Option<&str>, key: &str, value: &str) -> Entry {
        Entry {
            section: section.to_owned(),
            subsection: subsection.map(str::to_owned),
            key: key.to_owned(),
            value: value.to_owned(),
        }
    }

    #[test]
    fn sections_keys_and_values_read_as_git_reads_them() {
        let text = "# a comment\n\
            [core]\n\
            \trepositoryformatversion = 0\n\
            \tFSMonitor = \"./tools/watch.sh\" --flag ; trailing comment\n\
            \tbare\n\
            [diff \"Pic\"]\n\
            \ttextconv = ./conv\\\n   --more\n\
            [Core.Sub] pager = less -R   \n\
            [include]\n\
            \tpath = \"../shared config\"\n\
            [alias]\n\
            \tst = \"!sh -c 'echo \\\"hi\\\" # not a comment'\"\n\
            [broken\n\
            \tnot = seen\n";
        assert_eq!(
            parse(text),
            vec![
                entry("core", None, "repositoryformatversion", "0"),
                entry("core", None, "fsmonitor", "./tools/watch.sh --flag"),
                entry("core", None, "bare", "true"),
                entry("diff", Some("Pic"), "textconv", "./conv   --more"),
                entry("core", Some("sub"), "pager", "less -R"),
                entry("include", None, "path", "../shared config"),
                entry("alias", None, "st", "!sh -c 'echo \"hi\" # not a comment'"),
            ]
        );
    }
}
