//! Text from the model or a tool on its way to a terminal: every character that would act on
//! the terminal, or could not be seen, made visible as an escape, so what a person reads is what
//! was sent ([`terminal_text`], [`TerminalEscaper`] for streamed text, [`terminal_line`]), and the
//! marker that opens every approval prompt ([`APPROVAL_MARKER`]), which escaped text cannot hold.
//! Which characters are hidden, and how an escape is written, is `skills_core::visible`'s, the
//! one escaping every tool of the project prints skill and model text with.

use skills_core::visible;

/// The line every approval prompt of [`ask_user`](crate::ask_user) starts with: the terminal's
/// attributes reset (colours, hidden or reversed text left behind by earlier output), then
/// ` ⚑ approval ` in reverse video and a reset.
///
/// Text that went through this module can never draw it: the escape character is always
/// rewritten (so no attribute, colour or reverse video reaches the terminal from the model),
/// and so is the flag `⚑` (U+2691) itself, so not even its glyph can appear in escaped text. A
/// prompt the model draws in its answer therefore lacks both the flag and the reverse video.
/// This holds only while the model's text is escaped: a program that prints it raw gives the
/// model the terminal, marker included.
pub const APPROVAL_MARKER: &str = "\x1b[0m\x1b[7m \u{2691} approval \x1b[0m\n";

/// The flag of [`APPROVAL_MARKER`], never shown raw in escaped text.
const MARKER_FLAG: char = '\u{2691}';

/// Appends `c` as a terminal may show it: escaped when it is hidden
/// ([`skills_core::visible::hidden`]: controls, the start of every escape sequence, CSI, OSC and
/// DCS among them, bidirectional overrides and isolates, zero-width and other invisible
/// formatting characters, tag characters, variation selectors) or the flag of the approval
/// marker: `\r`, `\t`, `\n`, `\x1b` below U+0080, `\u{202e}` above.
fn push_char(out: &mut String, c: char) {
    if c == MARKER_FLAG {
        visible::push_escape(out, c);
    } else {
        visible::push_visible(out, c);
    }
}

/// `text` as one line: every character [`push_char`] escapes escaped, the line break and the tab
/// too. A backslash already in the text is shown as is.
pub(crate) fn escape_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_char(&mut out, c);
    }
    out
}

/// `text` as one line that is safe to print on a terminal, cut after `max_chars` characters with
/// a `[+N more characters]` marker: escaped as [`terminal_text`] escapes, and the line break
/// and the tab too (as `\n` and `\t`), as approval prompts show text.
pub fn terminal_line(text: &str, max_chars: usize) -> String {
    let cut = text.char_indices().nth(max_chars).map(|(at, _)| at);
    let mut out = escape_line(&text[..cut.unwrap_or(text.len())]);
    if let Some(at) = cut {
        out.push_str(&format!(
            " [+{} more characters]",
            text[at..].chars().count()
        ));
    }
    out
}

/// `text` (an answer, a message) ready for a terminal: line breaks and tabs kept, a `\r\n` line
/// end printed as `\n`, and every other control character, the start of every escape sequence
/// (OSC 52 clipboard writes, window titles, cursor moves, colours), a lone `\r` (which would
/// let the next text overwrite the line), bidirectional overrides and invisible characters
/// shown escaped (`\x1b]52;c;...`, `\r`, `\u{202e}`). The same as [`TerminalEscaper`] given all
/// of `text` at once.
pub fn terminal_text(text: &str) -> String {
    let mut escaper = TerminalEscaper::new();
    let mut out = escaper.push(text);
    out.push_str(&escaper.finish());
    out
}

/// [`terminal_text`] for text that arrives in pieces (a streamed reply): the pieces escaped
/// one by one and joined are exactly [`terminal_text`] of their concatenation, wherever the
/// text was split, an escape sequence or a `\r\n` cut in two included.
///
/// ```
/// use skills_runtime::agent::{TerminalEscaper, terminal_text};
///
/// let mut escaper = TerminalEscaper::new();
/// let mut shown = escaper.push("clipboard: \x1b]52;c;ZWNobyBoaQ==");
/// shown += &escaper.push("\x07 done\r");
/// shown += &escaper.push("\n");
/// shown += &escaper.finish();
/// assert_eq!(shown, "clipboard: \\x1b]52;c;ZWNobyBoaQ==\\x07 done\n");
/// assert_eq!(shown, terminal_text("clipboard: \x1b]52;c;ZWNobyBoaQ==\x07 done\r\n"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct TerminalEscaper {
    /// The last piece ended with `\r`: shown once the next character says whether it ends a
    /// line (`\r\n`) or stands alone.
    pending_cr: bool,
}

impl TerminalEscaper {
    /// An escaper at the start of a text.
    pub fn new() -> Self {
        TerminalEscaper::default()
    }

    /// The next piece of the text, escaped; a `\r` at its end is held back until the next
    /// piece (or [`finish`](Self::finish)) shows what follows it.
    pub fn push(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if std::mem::take(&mut self.pending_cr) {
                if c == '\n' {
                    out.push('\n');
                    continue;
                }
                out.push_str("\\r");
            }
            match c {
                '\r' => self.pending_cr = true,
                '\n' | '\t' => out.push(c),
                c => push_char(&mut out, c),
            }
        }
        out
    }

    /// The end of the text: what [`push`](Self::push) held back (a last lone `\r`, escaped).
    /// The escaper is then ready for a new text.
    pub fn finish(&mut self) -> String {
        if std::mem::take(&mut self.pending_cr) {
            "\\r".to_owned()
        } else {
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_act_on_or_hide() {
        assert_eq!(
            escape_line("a\rb\x1b[2K\t\x00\x7f\u{9b}\u{202e}\u{2066}\u{200b}\u{feff}\u{e0041}é"),
            "a\\rb\\x1b[2K\\t\\x00\\x7f\\u{9b}\\u{202e}\\u{2066}\\u{200b}\\u{feff}\\u{e0041}é"
        );
        assert_eq!(terminal_line("a\nb", 10), "a\\nb");
        assert_eq!(terminal_line("héllo", 2), "hé [+3 more characters]");
        assert_eq!(
            terminal_text("a\tb\r\nc\rd\n\u{2691}\x1b]0;t\x07"),
            "a\tb\nc\\rd\n\\u{2691}\\x1b]0;t\\x07"
        );
    }
}
