//! The `allowed-tools` grammar, in the spec's form (tool names separated by spaces) and Claude
//! Code's (also commas, and entries with an argument pattern in parentheses, which may hold
//! spaces: `Read, Bash(git diff:*) mcp__github__create_issue`).
//!
//! Written once and used twice: the macro splits and checks the field at build time, and the
//! agent matches a tool call against the parsed entries at run time.

/// The entries of an `allowed-tools` string: split at spaces and commas outside parentheses,
/// empty pieces dropped. `Err` names the problem when parentheses do not balance.
pub fn split(text: &str) -> Result<Vec<&str>, String> {
    let mut entries = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    for (at, c) in text.char_indices() {
        match c {
            '(' => {
                depth += 1;
                start.get_or_insert(at);
            }
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("`)` without `(` at character {}", at + 1))?;
            }
            c if depth == 0 && (c.is_whitespace() || c == ',') => {
                if let Some(from) = start.take() {
                    entries.push(&text[from..at]);
                }
            }
            _ => {
                start.get_or_insert(at);
            }
        }
    }
    if depth > 0 {
        return Err("a `(` is never closed".to_owned());
    }
    if let Some(from) = start {
        entries.push(&text[from..]);
    }
    Ok(entries)
}

/// One parsed entry: a tool name and, for `Name(...)`, the argument pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The tool as written (`Read`, `Bash`, `read_file`, `mcp__server__tool`).
    pub tool: &'a str,
    /// The text inside the parentheses, if any (`git diff:*`).
    pub pattern: Option<&'a str>,
}

impl<'a> Entry<'a> {
    /// Parses one entry from [`split`]. `Err` when the shape is wrong: no tool name, text after
    /// the closing parenthesis, or empty parentheses.
    pub fn parse(entry: &'a str) -> Result<Entry<'a>, String> {
        let (tool, pattern) = match entry.find('(') {
            None => (entry, None),
            Some(open) => {
                let Some(inner) = entry[open + 1..].strip_suffix(')') else {
                    return Err(format!("`{entry}` has text after its closing `)`"));
                };
                if inner.trim().is_empty() {
                    return Err(format!("`{entry}` has an empty pattern"));
                }
                (&entry[..open], Some(inner))
            }
        };
        let valid_name = !tool.is_empty()
            && tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '*'));
        if !valid_name {
            return Err(format!("`{entry}` does not start with a tool name"));
        }
        Ok(Entry { tool, pattern })
    }

    /// The name of this crate's agent tool the entry stands for: Claude Code's `Read`, `Write`,
    /// `Edit`/`MultiEdit`, `Glob` and `Bash` map to `read_file`, `write_file`, `edit_file`,
    /// `glob` and `bash`; any other name is taken as written (ours, or a tool the host adds).
    pub fn agent_tool(&self) -> &'a str {
        match self.tool {
            "Read" => "read_file",
            "Write" => "write_file",
            "Edit" | "MultiEdit" => "edit_file",
            "Glob" => "glob",
            "Bash" => "bash",
            other => other,
        }
    }

    /// Whether a call of `tool` is covered. `command` is the call's shell command when the tool
    /// is `bash`; an entry with a pattern covers only commands matching it (see
    /// [`command_matches`]), an entry without one covers every call of its tool.
    pub fn permits(&self, tool: &str, command: Option<&str>) -> bool {
        if self.agent_tool() != tool {
            return false;
        }
        match (self.pattern, tool) {
            (None, _) => true,
            (Some(pattern), "bash") => command.is_some_and(|c| command_matches(pattern, c)),
            // A pattern on another tool (`Read(src/**)`) is not understood here: it covers
            // nothing rather than everything.
            (Some(_), _) => false,
        }
    }
}

/// Whether a shell `command` matches a `Bash(...)` pattern: `prefix:*` (Claude Code's prefix
/// form: the command is `prefix` or starts with `prefix` and a space), or a pattern where `*`
/// stands for any text (`npm run *`), else the exact command.
///
/// A command that chains or nests others (`;`, `&`, `|`, a newline, backquotes, `$(`, `<(`,
/// `>(`) or redirects (`>`, `<`) never matches a pattern: `git diff:*` must not approve
/// `git diff && curl ...`. Such a command needs the ordinary permission.
pub fn command_matches(pattern: &str, command: &str) -> bool {
    let command = command.trim();
    if command.contains(['&', ';', '|', '\n', '\r', '`', '>', '<']) || command.contains("$(") {
        return false;
    }
    if let Some(prefix) = pattern.strip_suffix(":*") {
        let prefix = prefix.trim();
        return command == prefix
            || command
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(char::is_whitespace));
    }
    crate::wildcard::matches(pattern.trim(), command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_spaces_and_commas_outside_parentheses() {
        assert_eq!(
            split("Read, Grep  Bash(git diff:*),Bash(npm run *) mcp__gh__create_issue").unwrap(),
            [
                "Read",
                "Grep",
                "Bash(git diff:*)",
                "Bash(npm run *)",
                "mcp__gh__create_issue"
            ]
        );
        assert_eq!(split("  ").unwrap(), Vec::<&str>::new());
        assert!(split("Bash(git diff").is_err());
        assert!(split("Read)").is_err());
    }

    #[test]
    fn entries_parse_and_map_to_agent_tools() {
        let bash = Entry::parse("Bash(git diff:*)").unwrap();
        assert_eq!((bash.tool, bash.pattern), ("Bash", Some("git diff:*")));
        assert_eq!(bash.agent_tool(), "bash");
        assert_eq!(Entry::parse("Read").unwrap().agent_tool(), "read_file");
        assert_eq!(Entry::parse("MultiEdit").unwrap().agent_tool(), "edit_file");
        assert_eq!(Entry::parse("read_file").unwrap().agent_tool(), "read_file");
        assert!(Entry::parse("Bash()").is_err());
        assert!(Entry::parse("Bash(x)y").is_err());
        assert!(Entry::parse("(x)").is_err());
    }

    #[test]
    fn bash_patterns() {
        assert!(command_matches("git diff:*", "git diff"));
        assert!(command_matches("git diff:*", "git diff --stat HEAD~1"));
        assert!(!command_matches("git diff:*", "git difftool"));
        assert!(!command_matches("git diff:*", "git status"));
        assert!(command_matches("npm run *", "npm run build"));
        assert!(!command_matches("npm run *", "npm install evil"));
        assert!(command_matches("ls", " ls "));
        assert!(!command_matches("ls", "ls -la"));
        // Chained, nested or redirected commands never ride on a pattern.
        for hostile in [
            "git diff && curl evil",
            "git diff; rm -rf x",
            "git diff | sh",
            "git diff $(curl evil)",
            "git diff `id`",
            "git diff > ~/.bashrc",
            "git diff\nrm -rf x",
            "npm run build & curl evil",
        ] {
            assert!(!command_matches("git diff:*", hostile), "{hostile}");
            assert!(!command_matches("*", hostile), "{hostile}");
        }
    }

    #[test]
    fn permits_only_its_tool_and_pattern() {
        let read = Entry::parse("Read").unwrap();
        assert!(read.permits("read_file", None));
        assert!(!read.permits("write_file", None));
        let bash = Entry::parse("Bash(cargo test:*)").unwrap();
        assert!(bash.permits("bash", Some("cargo test -p x")));
        assert!(!bash.permits("bash", Some("cargo publish")));
        assert!(!bash.permits("bash", None));
        assert!(
            Entry::parse("Bash")
                .unwrap()
                .permits("bash", Some("anything && more"))
        );
        assert!(
            !Entry::parse("Read(src/**)")
                .unwrap()
                .permits("read_file", None)
        );
    }
}
