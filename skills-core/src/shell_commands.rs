//! Claude Code's shell commands in a skill's body: `` !`git status` `` inline and
//! ```` ```! ```` fenced blocks, which Claude Code runs when the skill is invoked, putting each
//! command's output in its place.
//!
//! Recognized exactly as Claude Code recognizes them (its two patterns, in JavaScript's regex
//! syntax):
//!
//! - a block is ```` ```! ````, then anything up to the next ```` ``` ```` (`` /```!\s*\n?([\s\S]*?)\n?```/g ``);
//! - an inline command is `` !` `` at the start of the text or after white space, then one or
//!   more characters other than a backtick (line breaks included), then a backtick
//!   (`` /(?<=^|\s)!`([^`]+)`/gm ``), looked for after every ordinary one-line code span
//!   (`` `like this` ``, not preceded by `!` or a backtick) has been blanked out, so that a
//!   `` !` `` inside one is not a command;
//! - the command is the text inside, trimmed; an empty one is not a command.
//!
//! No dependencies: the macro records the commands at build time, and the runtime can find them
//! with the same code.

use std::ops::Range;

use crate::claude_code::is_js_space;

/// One shell command of a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellCommand {
    /// Byte range of the whole construct in the body (`` !`...` `` or the block from
    /// ```` ```! ```` to its closing ```` ``` ````): what its output replaces.
    pub range: Range<usize>,
    /// The command: the text inside, trimmed.
    pub command: String,
    /// A fenced ```` ```! ```` block (otherwise an inline `` !`...` ``).
    pub block: bool,
}

impl ShellCommand {
    /// The byte range of [`command`](Self::command) in `body`, the body it was found in: after
    /// the opening (`` !` `` or ```` ```! ````) and the white space the trim dropped.
    pub fn command_range(&self, body: &str) -> Range<usize> {
        let opening = if self.block { "```!".len() } else { "!`".len() };
        let inside = self.range.start + opening;
        let start = body
            .get(inside..self.range.end)
            .and_then(|rest| rest.find(self.command.as_str()))
            .map_or(inside, |at| inside + at);
        start..start + self.command.len()
    }
}

/// Every shell command of `body`, in the order they appear.
pub fn find(body: &str) -> Vec<ShellCommand> {
    let mut found = blocks(body);
    if body.contains("!`") {
        found.extend(inline(&blank_code_spans(body)));
    }
    found.sort_by_key(|command| command.range.start);
    found
}

/// The command text of a match: trimmed as JavaScript's `trim` does; `None` when empty.
fn command_text(inside: &str) -> Option<String> {
    let command = inside.trim_matches(is_js_space);
    (!command.is_empty()).then(|| command.to_owned())
}

/// ```` ```! ```` blocks: each from its opening to the next ```` ``` ````.
fn blocks(body: &str) -> Vec<ShellCommand> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(at) = body[search..].find("```!") {
        let start = search + at;
        let inside_start = start + "```!".len();
        let Some(close) = body[inside_start..].find("```") else {
            // No closing fence after this one, nor after any later opening.
            break;
        };
        let end = inside_start + close + "```".len();
        if let Some(command) = command_text(&body[inside_start..inside_start + close]) {
            found.push(ShellCommand {
                range: start..end,
                command,
                block: true,
            });
        }
        search = end;
    }
    found
}

/// `body` with every one-line code span not preceded by `!` or a backtick blanked out (its
/// backticks kept, what is inside turned into spaces, byte for byte), as Claude Code does before
/// it looks for inline commands.
fn blank_code_spans(body: &str) -> String {
    let bytes = body.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        // `[^`\n]+` then a backtick.
        let rest = &bytes[i + 1..];
        let close = rest.iter().position(|&b| b == b'`' || b == b'\n');
        match close {
            Some(length) if length > 0 && rest[length] == b'`' => {
                let end = i + 1 + length;
                let kept = i > 0 && matches!(bytes[i - 1], b'!' | b'`');
                if !kept {
                    out[i + 1..end].fill(b' ');
                }
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes inside spans were replaced, and every replaced byte became a space: a
    // multi-byte character is blanked whole, so the text stays UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| body.to_owned())
}

/// Inline `` !`...` `` commands in the blanked text (ranges are the same in the original).
fn inline(blanked: &str) -> Vec<ShellCommand> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(at) = blanked[search..].find("!`") {
        let start = search + at;
        let after_space = blanked[..start].chars().next_back().is_none_or(is_js_space);
        let inside_start = start + "!`".len();
        let close = blanked[inside_start..].find('`');
        match close {
            Some(length) if after_space && length > 0 => {
                let end = inside_start + length + 1;
                if let Some(command) = command_text(&blanked[inside_start..inside_start + length]) {
                    found.push(ShellCommand {
                        range: start..end,
                        command,
                        block: false,
                    });
                }
                search = end;
            }
            _ => search = start + 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(body: &str) -> Vec<(&str, String, bool)> {
        find(body)
            .into_iter()
            .map(|c| (&body[c.range.clone()], c.command, c.block))
            .collect()
    }

    #[test]
    fn inline_commands_start_a_line_or_follow_white_space() {
        let body = "Status: !`git status --short`\n!`date`\nnot this:!`ls`, nor `!`pwd``\n";
        assert_eq!(
            commands(body),
            [
                (
                    "!`git status --short`",
                    "git status --short".to_owned(),
                    false
                ),
                ("!`date`", "date".to_owned(), false),
            ]
        );
    }

    #[test]
    fn blocks_run_to_the_next_fence() {
        let body = "Before\n```!\ngit log -1\n  echo done\n```\nAfter ```! ``` and\n```bash\nnot a command\n```";
        assert_eq!(
            commands(body),
            [(
                "```!\ngit log -1\n  echo done\n```",
                "git log -1\n  echo done".to_owned(),
                true
            )]
        );
        // An unclosed block is text.
        assert_eq!(commands("```!\nnever closed"), []);
    }

    #[test]
    fn the_command_is_found_inside_its_construct() {
        let body = "a !`!x` b\n```!\n  !echo hi\n```";
        let found = find(body);
        let inside: Vec<&str> = found.iter().map(|c| &body[c.command_range(body)]).collect();
        assert_eq!(inside, ["!x", "!echo hi"]);
    }

    #[test]
    fn code_spans_hide_what_looks_like_a_command() {
        // Inside an ordinary code span `!` is text; the span before a real command is blanked
        // without moving it.
        let body = "Write `a !`b` c` then `x` !`whoami`";
        assert_eq!(commands(body), [("!`whoami`", "whoami".to_owned(), false)]);
        // An inline command may span lines; an empty one is none.
        assert_eq!(
            commands("!`echo one\necho two` and !` `"),
            [(
                "!`echo one\necho two`",
                "echo one\necho two".to_owned(),
                false
            )]
        );
        // JavaScript's white space: U+FEFF counts, U+0085 does not.
        assert_eq!(commands("\u{FEFF}!`a`").len(), 1);
        assert_eq!(commands("\u{85}!`a`").len(), 0);
        // Multi-byte text inside a blanked span keeps every range valid.
        let body = "`café 漢` !`ls`";
        assert_eq!(commands(body), [("!`ls`", "ls".to_owned(), false)]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Ranges always fall on character boundaries, hold the command, and do not overlap
        /// unless one is inside a block (as Claude Code also finds them).
        #[test]
        fn ranges_are_valid(body in "[!`a-z \\n\u{FEFF}é漢]{0,80}") {
            for command in find(&body) {
                let text = body.get(command.range.clone());
                proptest::prop_assert!(text.is_some());
                proptest::prop_assert!(text.unwrap().contains(command.command.as_str()));
                let inside = command.command_range(&body);
                proptest::prop_assert!(command.range.start < inside.start && inside.end < command.range.end);
                proptest::prop_assert_eq!(body.get(inside), Some(command.command.as_str()));
            }
        }
    }
}
