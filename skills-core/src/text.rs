//! Rules T1-T5: decode a `SKILL.md`, normalize it, and split frontmatter from body.

use std::ops::Range;

use crate::diagnostic::{Code, Diagnostic};

/// A normalized `SKILL.md` split into its parts. Ranges are byte ranges into `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Document {
    /// The whole file after T2 (BOM dropped, line endings LF): what is embedded and hashed.
    pub text: String,
    /// The YAML between the two `---` lines (may be empty).
    pub frontmatter: Range<usize>,
    /// The instructions: after the closing line, leading blank lines dropped, trailing
    /// whitespace trimmed. Never empty.
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

/// T1 and T2: the file as UTF-8 text with one leading BOM dropped and CRLF / lone CR made LF.
pub(crate) fn decode(path: &str, bytes: &[u8]) -> Result<String, Diagnostic> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let good = &bytes[..error.valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            // The prefix is valid UTF-8 by construction, so counting its characters is exact.
            let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
            return Err(Diagnostic::error(
                Code::NotUtf8,
                path,
                format!(
                    "SKILL.md is not valid UTF-8 (invalid byte 0x{:02X})",
                    bytes[good.len()]
                ),
            )
            .at_position(line, column)
            .with_help("save the file as UTF-8"));
        }
    };
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    Ok(if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_owned()
    })
}

/// Whether a line is a frontmatter delimiter: exactly `---`, trailing spaces allowed.
fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches([' ', '\t']) == "---"
}

/// T3-T5: splits normalized text into frontmatter and body.
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
        return Err(Diagnostic::error(
            Code::UnclosedFrontmatter,
            path,
            "frontmatter is not closed: no `---` line after line 1",
        )
        .at(&text, 1, 1)
        .with_help("end the frontmatter with a line holding only `---`, before the instructions"));
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
    if body_start >= body_end {
        return Err(Diagnostic::error(
            Code::EmptyBody,
            path,
            "the skill has no instructions: the body after the frontmatter is empty",
        )
        .at(&text, closing_line, 1)
        .with_help("write the skill's instructions in Markdown after the closing `---`"));
    }
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
    fn unclosed_frontmatter_points_at_line_1() {
        let error = doc("---\nname: a\nbody").unwrap_err();
        assert!(error.message().contains("not closed"));
        assert_eq!((error.line(), error.column()), (Some(1), Some(1)));
    }

    #[test]
    fn empty_body_is_an_error_at_the_closing_line() {
        let error = doc("---\nname: a\n---\n \n\t\n").unwrap_err();
        assert!(error.message().contains("no instructions"));
        assert_eq!(error.line(), Some(3));
    }

    #[test]
    fn invalid_utf8_reports_line_and_column_of_first_bad_byte() {
        let error = decode("p", b"---\nname: a\ndescription: caf\xE9\n").unwrap_err();
        assert!(error.message().contains("not valid UTF-8"), "{error}");
        assert_eq!((error.line(), error.column()), (Some(3), Some(17)));
    }
}
