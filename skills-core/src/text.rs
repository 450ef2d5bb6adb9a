//! The text of a `SKILL.md`: decode it, normalize it, and split frontmatter from body.

use std::ops::Range;

use crate::diagnostic::{Code, Diagnostic};

/// A normalized `SKILL.md` split into its parts. Ranges are byte ranges into `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Document {
    /// The whole file normalized (BOM dropped, line endings LF): what is embedded and hashed.
    pub text: String,
    /// The YAML between the two `---` lines (may be empty).
    pub frontmatter: Range<usize>,
    /// The instructions: after the closing line, leading blank lines dropped, trailing
    /// whitespace trimmed. May be empty (then it starts right after the closing line).
    pub body: Range<usize>,
    /// 1-based line of the closing `---`.
    pub closing_line: usize,
    /// 1-based line where the body starts.
    pub body_line: usize,
}

impl Document {
    /// The frontmatter text.
    pub fn frontmatter(&self) -> &str {
        &self.text[self.frontmatter.clone()]
    }

    /// The body text.
    pub fn body(&self) -> &str {
        &self.text[self.body.clone()]
    }
}

/// The file as UTF-8 text with one leading BOM dropped and CRLF / lone CR made LF.
pub(crate) fn decode(path: &str, bytes: &[u8]) -> Result<String, Diagnostic> {
    let text = utf8(path, "SKILL.md", bytes)?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    Ok(if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_owned()
    })
}

/// `bytes` as UTF-8, or the error at the line and column of the first bad byte; `what` names the
/// file in the message (`SKILL.md`, `evals/triggers.json`).
pub(crate) fn utf8<'a>(path: &str, what: &str, bytes: &'a [u8]) -> Result<&'a str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|error| {
        let good = &bytes[..error.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // The prefix is valid UTF-8 by construction, so counting its characters is exact.
        let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
        Diagnostic::error(
            Code::NotUtf8,
            path,
            format!(
                "{what} is not valid UTF-8 (invalid byte 0x{:02X})",
                bytes[good.len()]
            ),
        )
        .at_position(line, column)
        .with_help("save the file as UTF-8")
    })
}

/// Whether a line is a frontmatter delimiter: exactly `---`, trailing spaces allowed.
fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches([' ', '\t']) == "---"
}

/// Whether a frontmatter line reads as YAML mapping content: blank, indented (a nested value
/// or a continuation), a list item, a comment, or `key:` followed by a space or the line's end.
fn reads_as_yaml(line: &str) -> bool {
    if line.trim().is_empty() || line.starts_with([' ', '\t', '#']) || line == "-" {
        return true;
    }
    if line.starts_with("- ") {
        return true;
    }
    let key_end = line
        .find(": ")
        .or_else(|| line.strip_suffix(':').map(str::len));
    key_end.is_some_and(|end| {
        let key = &line[..end];
        // A frontmatter key is one word (`allowed-tools`) or quoted; a sentence with a colon in
        // it (`Note: run the tests`) is body text.
        let quoted = key.len() >= 2
            && key.starts_with(['"', '\''])
            && key.ends_with(key.chars().next().unwrap_or(' '));
        quoted || !key.contains(char::is_whitespace)
    })
}

/// The 1-based line of `lines` where Markdown instructions seem to start, for a frontmatter whose
/// closing `---` is missing: the first line that does not read as YAML, or the Markdown heading
/// (`# Title`, a YAML comment) that opens the run of blank and comment lines just before it or
/// before the end. `None` when everything reads as YAML.
pub(crate) fn first_body_line(lines: &str) -> Option<usize> {
    let lines: Vec<&str> = lines.lines().collect();
    let stop = lines
        .iter()
        .position(|line| !reads_as_yaml(line))
        .unwrap_or(lines.len());
    // Walk back over the blank and comment lines that lead up to it.
    let mut start = stop;
    let mut heading = None;
    while start > 0 && (lines[start - 1].trim().is_empty() || lines[start - 1].starts_with('#')) {
        start -= 1;
        if lines[start].starts_with('#') {
            heading = Some(start);
        }
    }
    match heading {
        Some(index) => Some(index + 1),
        None if stop < lines.len() => Some(stop + 1),
        None => None,
    }
}

/// Splits normalized text into frontmatter and body.
pub(crate) fn split(path: &str, text: String) -> Result<Document, Diagnostic> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if !is_delimiter(first.trim_end_matches('\n')) {
        return Err(Diagnostic::error(Code::NoFrontmatter, path, "no frontmatter: line 1 of SKILL.md must be `---`")
            .at(&text, 1, 1)
            .with_help("start the file with a `---` line, then `name:` and `description:`, then another `---` line"));
    }
    let frontmatter_start = first.len();
    let mut offset = frontmatter_start;
    let mut closing = None;
    for (index, line) in lines.enumerate() {
        if is_delimiter(line.trim_end_matches('\n')) {
            closing = Some((index + 2, offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((closing_line, frontmatter_end, body_search)) = closing else {
        let error = Diagnostic::error(
            Code::UnclosedFrontmatter,
            path,
            "frontmatter is not closed: no `---` line after line 1",
        );
        // Point where the instructions seem to start: that is where the `---` is missing.
        return Err(match first_body_line(&text[frontmatter_start..]) {
            Some(line) => error.at(&text, line + 1, 1).with_help(
                "this line reads as instructions, not YAML: put a line holding only `---` before it",
            ),
            None => error.at(&text, 1, 1).with_help(
                "end the frontmatter with a line holding only `---`, before the instructions",
            ),
        });
    };

    // Drop leading blank lines, then trailing whitespace.
    let mut body_start = body_search;
    let mut body_line = closing_line + 1;
    for line in text[body_search..].split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        body_start += line.len();
        if line.ends_with('\n') {
            body_line += 1;
        }
    }
    let body_end = body_start + text[body_start..].trim_end().len();
    // An empty body is allowed: the spec's minimal example has none. It sits right after the
    // closing line, where the `empty_body` lint points.
    let (body_start, body_end, body_line) = if body_start >= body_end {
        (body_search, body_search, closing_line + 1)
    } else {
        (body_start, body_end, body_line)
    };
    Ok(Document {
        frontmatter: frontmatter_start..frontmatter_end,
        body: body_start..body_end,
        closing_line,
        body_line,
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Result<Document, Diagnostic> {
        split("s/SKILL.md", decode("s/SKILL.md", text.as_bytes())?)
    }

    #[test]
    fn splits_frontmatter_and_body() {
        let d = doc("---\nname: a\n---\n\n\n# Title\nText\n\n  \n").unwrap();
        assert_eq!(d.frontmatter(), "name: a\n");
        assert_eq!(d.body(), "# Title\nText");
        assert_eq!(d.closing_line, 3);
        assert_eq!(d.body_line, 6);
    }

    #[test]
    fn drops_one_bom_and_normalizes_line_endings() {
        let d = doc("\u{FEFF}---\r\nname: a\r\n---\r\nOne\rTwo\r\n").unwrap();
        assert_eq!(d.text, "---\nname: a\n---\nOne\nTwo\n");
        assert_eq!(d.body(), "One\nTwo");
        // A second BOM is content, not a marker: line 1 is then not `---`.
        assert!(doc("\u{FEFF}\u{FEFF}---\nname: a\n---\nx").is_err());
    }

    #[test]
    fn delimiters_allow_trailing_spaces_only() {
        assert!(doc("---  \nname: a\n---\t\nbody").is_ok());
        for bad in [
            "\n---\nname: a\n---\nbody",
            "---yaml\nname: a\n---\nbody",
            "----\nname: a\n---\nbody",
            " ---\na: b\n---\nx",
            "",
        ] {
            let error = doc(bad).unwrap_err();
            assert!(
                error.message().starts_with("no frontmatter"),
                "{bad:?}: {error}"
            );
            assert_eq!(error.line(), Some(1));
        }
    }

    #[test]
    fn indented_delimiter_in_block_scalar_does_not_close() {
        let d =
            doc("---\ndescription: |\n  text\n  ---\n  more\n---\nbody\n---\nstill body").unwrap();
        assert_eq!(d.frontmatter(), "description: |\n  text\n  ---\n  more\n");
        assert_eq!(
            d.body(),
            "body\n---\nstill body",
            "`---` rules in the body stay in the body"
        );
    }

    #[test]
    fn unclosed_frontmatter_points_where_the_instructions_start() {
        for (text, line) in [
            ("---\nname: a\nbody", 3),
            ("---\nname: a\ndescription: x\n\n# Body\n", 5),
            ("---\nname: a\ndescription: x\n\n# Title\n\nDo this.\n", 5),
            (
                "---\nname: a\ndescription: x\nDo this: then that, and more.\n",
                4,
            ),
            (
                "---\nname: a\n# a comment\ntags:\n- x\ndescription: |\n  text\n\nStep one.\n",
                9,
            ),
        ] {
            let error = doc(text).unwrap_err();
            assert!(error.message().contains("not closed"), "{text:?}: {error}");
            assert_eq!(
                (error.line(), error.column()),
                (Some(line), Some(1)),
                "{text:?}: {error}"
            );
            assert!(error.help().unwrap().contains("`---` before it"), "{error}");
        }
        // Nothing reads as instructions: the opening line is all there is to point at.
        let error = doc("---\nname: a\ndescription: x\n").unwrap_err();
        assert_eq!((error.line(), error.column()), (Some(1), Some(1)));
        assert!(error.help().unwrap().contains("before the instructions"));
    }

    #[test]
    fn empty_body_is_allowed_and_starts_after_the_closing_line() {
        for text in [
            "---\nname: a\n---\n \n\t\n",
            "---\nname: a\n---\n",
            "---\nname: a\n---",
        ] {
            let d = doc(text).unwrap();
            assert_eq!(d.body(), "", "{text:?}");
            assert_eq!(d.closing_line, 3);
            assert_eq!(d.body_line, 4);
            assert_eq!(d.text[..d.body.start].lines().count(), 3, "{text:?}");
        }
    }

    #[test]
    fn invalid_utf8_reports_line_and_column_of_first_bad_byte() {
        let error = decode("p", b"---\nname: a\ndescription: caf\xE9\n").unwrap_err();
        assert!(error.message().contains("not valid UTF-8"), "{error}");
        assert_eq!((error.line(), error.column()), (Some(3), Some(17)));
    }
}
