//! Text a person or a model reads: which characters cannot be seen for what they are, and the
//! one escaping that makes them visible.
//!
//! A character is *hidden* when a terminal acts on it instead of showing it (C0 and C1 controls
//! and DEL: the start of every escape sequence, OSC 52 clipboard writes and cursor moves among
//! them), when it reorders the text around it (bidirectional controls: what a reviewer reads is
//! not the order the model receives), or when it takes no visible space (zero-width and other
//! format characters, the whole Unicode category Cf, variation selectors, fillers and tag
//! characters, which can carry text nobody sees).
//!
//! The rules refuse hidden characters in every frontmatter value and file name, and every tool
//! that prints skill text (the `skills` command, the agent's terminal output, diagnostics) shows
//! the ones it meets as escapes (`\x1b`, `\u{202e}`), so what a person reads is what is there.

/// Why a character cannot be shown as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hidden {
    /// A control character (C0, C1, DEL), or a line or paragraph separator (U+2028, U+2029):
    /// a terminal acts on it, or it breaks a line where none is seen.
    Control,
    /// A bidirectional control (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C): it
    /// reorders the text that follows, so what is shown is not the order of the characters.
    Bidi,
    /// A character with no visible form: zero-width spaces and joiners (U+200B-U+200D), the word
    /// joiner (U+2060), the byte-order mark (U+FEFF), the rest of the format characters
    /// (Unicode category Cf), variation selectors, Hangul fillers and tag characters.
    Invisible,
}

impl Hidden {
    /// How messages name the class: `a control character`, `a bidirectional control`, `an
    /// invisible character`.
    pub fn describe(self) -> &'static str {
        match self {
            Hidden::Control => "a control character",
            Hidden::Bidi => "a bidirectional control",
            Hidden::Invisible => "an invisible character",
        }
    }
}

/// Whether `c` is hidden, and why (see the module docs).
pub fn hidden(c: char) -> Option<Hidden> {
    if c.is_control() {
        return Some(Hidden::Control);
    }
    match u32::from(c) {
        0x2028 | 0x2029 => Some(Hidden::Control),
        0x061C | 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069 => Some(Hidden::Bidi),
        0x00AD // soft hyphen
        | 0x034F // combining grapheme joiner
        | 0x0600..=0x0605 | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2 // prepended marks
        | 0x115F | 0x1160 | 0x3164 | 0xFFA0 // Hangul fillers
        | 0x17B4 | 0x17B5 // Khmer inherent vowels
        | 0x180B..=0x180F // Mongolian variation selectors and vowel separator
        | 0x200B..=0x200D // zero-width space, non-joiner, joiner
        | 0x2060..=0x2065 | 0x206A..=0x206F // word joiner, invisible operators, deprecated formats
        | 0xFE00..=0xFE0F // variation selectors
        | 0xFEFF // zero-width no-break space, byte-order mark
        | 0xFFF0..=0xFFFB // interlinear annotations
        | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF // tag characters, variation selectors supplement
        => Some(Hidden::Invisible),
        _ => None,
    }
}

/// The Unicode name of the hidden characters people meet most, for messages; `None` for the
/// others, which are named by code point only.
pub fn name(c: char) -> Option<&'static str> {
    Some(match c {
        '\0' => "NULL",
        '\x07' => "BELL",
        '\x08' => "BACKSPACE",
        '\x1b' => "ESCAPE",
        '\x7f' => "DELETE",
        '\u{9b}' => "CONTROL SEQUENCE INTRODUCER",
        '\u{ad}' => "SOFT HYPHEN",
        '\u{61c}' => "ARABIC LETTER MARK",
        '\u{200b}' => "ZERO WIDTH SPACE",
        '\u{200c}' => "ZERO WIDTH NON-JOINER",
        '\u{200d}' => "ZERO WIDTH JOINER",
        '\u{200e}' => "LEFT-TO-RIGHT MARK",
        '\u{200f}' => "RIGHT-TO-LEFT MARK",
        '\u{2028}' => "LINE SEPARATOR",
        '\u{2029}' => "PARAGRAPH SEPARATOR",
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => "WORD JOINER",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{fe0f}' => "VARIATION SELECTOR-16",
        '\u{feff}' => "ZERO WIDTH NO-BREAK SPACE",
        _ => return None,
    })
}

/// `U+202E (RIGHT-TO-LEFT OVERRIDE)`, or `U+E0041` for a character without a common name.
pub fn code_point(c: char) -> String {
    match name(c) {
        Some(name) => format!("U+{:04X} ({name})", u32::from(c)),
        None => format!("U+{:04X}", u32::from(c)),
    }
}

/// Appends the escape of `c`, whatever it is: `\n`, `\r`, `\t`, `\x1b` below U+0080,
/// `\u{202e}` above.
pub fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if u32::from(c) < 0x80 => out.push_str(&format!("\\x{:02x}", u32::from(c))),
        c => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
    }
}

/// Appends `c`, escaped ([`push_escape`]) when it is [`hidden`].
pub fn push_visible(out: &mut String, c: char) {
    if hidden(c).is_some() {
        push_escape(out, c);
    } else {
        out.push(c);
    }
}

/// `text` as one line: every hidden character escaped, line breaks and tabs included. A
/// backslash already in the text is shown as it is.
pub fn escape_line(text: &str) -> String {
    if !text.chars().any(|c| hidden(c).is_some()) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    out
}

/// `text` over several lines: line breaks and tabs kept (a `\r\n` line end shown as `\n`), every
/// other hidden character escaped, a lone `\r` included (it would let what follows overwrite
/// the line).
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\t' => out.push(c),
            c => push_visible(&mut out, c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        for c in ['\0', '\x07', '\x1b', '\x7f', '\u{9b}', '\n', '\u{2028}'] {
            assert_eq!(hidden(c), Some(Hidden::Control), "{c:?}");
        }
        for c in ['\u{202e}', '\u{2066}', '\u{200e}', '\u{200f}', '\u{61c}'] {
            assert_eq!(hidden(c), Some(Hidden::Bidi), "{c:?}");
        }
        for c in [
            '\u{200b}',
            '\u{200d}',
            '\u{2060}',
            '\u{feff}',
            '\u{ad}',
            '\u{e0041}',
            '\u{fe0f}',
            '\u{3164}',
        ] {
            assert_eq!(hidden(c), Some(Hidden::Invisible), "{c:?}");
        }
        for c in ['a', 'é', '漢', ' ', '\u{a0}', '🦀', '\u{2691}'] {
            assert_eq!(hidden(c), None, "{c:?}");
        }
    }

    /// Every character of Unicode's category Cf (format) is hidden (the list of Unicode 16).
    #[test]
    fn every_format_character_is_hidden() {
        let cf = [
            0xAD..=0xAD,
            0x600..=0x605,
            0x61C..=0x61C,
            0x6DD..=0x6DD,
            0x70F..=0x70F,
            0x890..=0x891,
            0x8E2..=0x8E2,
            0x180E..=0x180E,
            0x200B..=0x200F,
            0x202A..=0x202E,
            0x2060..=0x2064,
            0x2066..=0x206F,
            0xFEFF..=0xFEFF,
            0xFFF9..=0xFFFB,
            0x110BD..=0x110BD,
            0x110CD..=0x110CD,
            0x13430..=0x1343F,
            0x1BCA0..=0x1BCA3,
            0x1D173..=0x1D17A,
            0xE0001..=0xE0001,
            0xE0020..=0xE007F,
        ];
        for c in cf.into_iter().flatten().filter_map(char::from_u32) {
            assert!(hidden(c).is_some(), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn escapes() {
        assert_eq!(
            escape_line("a\rb\x1b[2K\t\x00\x7f\u{9b}\u{202e}\u{2066}\u{200b}\u{feff}\u{e0041}é"),
            "a\\rb\\x1b[2K\\t\\x00\\x7f\\u{9b}\\u{202e}\\u{2066}\\u{200b}\\u{feff}\\u{e0041}é"
        );
        assert_eq!(escape_line("plain"), "plain");
        assert_eq!(escape_line("a\nb"), "a\\nb");
        assert_eq!(
            escape_text("a\tb\r\nc\rd\n\x1b]0;t\x07"),
            "a\tb\nc\\rd\n\\x1b]0;t\\x07"
        );
        assert_eq!(code_point('\u{202e}'), "U+202E (RIGHT-TO-LEFT OVERRIDE)");
        assert_eq!(code_point('\u{e0041}'), "U+E0041");
    }
}
