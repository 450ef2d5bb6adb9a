//! File names that travel: what each component of a skill's paths must be so that the same
//! files can be written on Linux, macOS and Windows, and unpacked by a host, without one
//! landing outside its folder or over another.
//!
//! The build refuses a name that breaks these rules ([`check_component`]), and so do
//! `Skill::materialize` and `skills package` when they write paths, whatever the build allowed
//! ([`check_path`]): a registry can come from elsewhere than the macro.

use std::fmt;

use crate::visible::{self, Hidden};

/// Characters Windows does not allow in a file name (`\` and `/` are separators there, `:`
/// names a drive or an alternate data stream).
const WINDOWS_FORBIDDEN: &[char] = &['\\', '/', ':', '<', '>', '"', '|', '?', '*'];

/// Names Windows gives to devices, with or without an extension (`nul.txt` is the device too):
/// a file cannot have them there.
const WINDOWS_DEVICES: &[&str] = &["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"];

/// Why a path component cannot be written the same way everywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unportable {
    /// An empty component (`a//b`, a leading or trailing `/`).
    Empty,
    /// `.` or `..`: not a name but a step, out of the folder for `..`.
    Dots,
    /// A character Windows refuses in names: `\` `/` `:` `<` `>` `"` `|` `?` `*`.
    Forbidden(char),
    /// A hidden character (see [`crate::visible`]): a control character Windows refuses, or one
    /// a person cannot see.
    Hidden(char, Hidden),
    /// A name Windows reserves for a device (`CON`, `NUL`, `COM1`, `LPT1`, ...), with or
    /// without an extension.
    Reserved(String),
    /// A name ending in `.` or a space, which Windows drops, so that it names another file.
    TrailingDotOrSpace,
}

impl fmt::Display for Unportable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unportable::Empty => f.write_str("has an empty component"),
            Unportable::Dots => f.write_str("has a `.` or `..` component"),
            Unportable::Forbidden(c) => write!(
                f,
                "holds `{c}`, which Windows does not allow in a file name"
            ),
            Unportable::Hidden(c, kind) => {
                write!(f, "holds {}, {}", kind.describe(), visible::code_point(*c))
            }
            Unportable::Reserved(device) => write!(
                f,
                "is `{device}`, a device name on Windows (with any extension)"
            ),
            Unportable::TrailingDotOrSpace => f.write_str(
                "ends in a dot or a space, which Windows drops, so it would name another file",
            ),
        }
    }
}

/// Whether `name`, one component of a path, is a plain file name on every system.
pub fn check_component(name: &str) -> Result<(), Unportable> {
    if name.is_empty() {
        return Err(Unportable::Empty);
    }
    if name == "." || name == ".." {
        return Err(Unportable::Dots);
    }
    for c in name.chars() {
        if let Some(kind) = visible::hidden(c) {
            return Err(Unportable::Hidden(c, kind));
        }
        if WINDOWS_FORBIDDEN.contains(&c) {
            return Err(Unportable::Forbidden(c));
        }
    }
    if name.ends_with(['.', ' ']) {
        return Err(Unportable::TrailingDotOrSpace);
    }
    // Windows compares the part before the first dot, trailing spaces dropped.
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    if is_device(stem) {
        return Err(Unportable::Reserved(stem.to_owned()));
    }
    Ok(())
}

/// `CON`, `NUL`, `COM0`-`COM9`, `LPT0`-`LPT9` (and the superscript digits `¹²³` Windows also
/// reserves), in any case.
fn is_device(stem: &str) -> bool {
    let upper = stem.to_ascii_uppercase();
    if WINDOWS_DEVICES.contains(&upper.as_str()) {
        return true;
    }
    let Some(number) = upper
        .strip_prefix("COM")
        .or_else(|| upper.strip_prefix("LPT"))
    else {
        return false;
    };
    let mut chars = number.chars();
    matches!(
        (chars.next(), chars.next()),
        (Some('0'..='9' | '¹' | '²' | '³'), None)
    )
}

/// Whether `path`, relative with `/` separators, is made of plain names only
/// ([`check_component`] for each): nothing absolute, no `..`, no `\` or drive letter that
/// another system reads as a separator. The error gives the offending component.
pub fn check_path(path: &str) -> Result<(), (String, Unportable)> {
    path.split('/').try_for_each(|component| {
        check_component(component).map_err(|why| (component.to_owned(), why))
    })
}

/// The key under which two paths are the same file on a file system that ignores case and
/// Unicode normalization (macOS's and Windows' by default): case folded (upper- then lowercase,
/// so `ß` and `SS`, `ς` and `σ` meet), in normalization form C.
#[cfg(feature = "validate")]
pub(crate) fn fold(path: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    if path.is_ascii() {
        return path.to_ascii_lowercase();
    }
    let folded: String = path.nfd().collect::<String>().to_uppercase().to_lowercase();
    folded.nfc().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_pass() {
        for name in [
            "forms.md",
            "fill_form.py",
            "données.csv",
            "数据.json",
            ".hidden",
            "a b.txt",
            "CONSOLE.md",
            "com10.txt",
            "lpt.md",
            "nul-not.md",
        ] {
            assert_eq!(check_component(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn unportable_names_are_refused() {
        let cases = [
            ("", Unportable::Empty),
            ("..", Unportable::Dots),
            (".", Unportable::Dots),
            ("a\\b", Unportable::Forbidden('\\')),
            ("C:x", Unportable::Forbidden(':')),
            ("what?.md", Unportable::Forbidden('?')),
            ("a*b", Unportable::Forbidden('*')),
            ("<x>", Unportable::Forbidden('<')),
            ("pipe|", Unportable::Forbidden('|')),
            ("quote\"", Unportable::Forbidden('"')),
            ("bell\x07", Unportable::Hidden('\x07', Hidden::Control)),
            (
                "gnp.\u{202e}exe",
                Unportable::Hidden('\u{202e}', Hidden::Bidi),
            ),
            (
                "zero\u{200b}width",
                Unportable::Hidden('\u{200b}', Hidden::Invisible),
            ),
            ("notes.", Unportable::TrailingDotOrSpace),
            ("notes ", Unportable::TrailingDotOrSpace),
            ("CON", Unportable::Reserved("CON".into())),
            ("con.md", Unportable::Reserved("con".into())),
            ("Nul.tar.gz", Unportable::Reserved("Nul".into())),
            ("aux .txt", Unportable::Reserved("aux".into())),
            ("COM1", Unportable::Reserved("COM1".into())),
            ("lpt9.log", Unportable::Reserved("lpt9".into())),
            ("COM¹.txt", Unportable::Reserved("COM¹".into())),
            ("conin$", Unportable::Reserved("conin$".into())),
        ];
        for (name, why) in cases {
            assert_eq!(check_component(name), Err(why), "{name:?}");
        }
    }

    #[test]
    fn paths_are_checked_component_by_component() {
        assert_eq!(check_path("references/forms.md"), Ok(()));
        assert_eq!(
            check_path("../evil"),
            Err(("..".to_owned(), Unportable::Dots))
        );
        assert_eq!(
            check_path("/etc/passwd"),
            Err((String::new(), Unportable::Empty))
        );
        assert_eq!(
            check_path("a\\..\\..\\evil.bat"),
            Err((
                "a\\..\\..\\evil.bat".to_owned(),
                Unportable::Forbidden('\\')
            ))
        );
        assert_eq!(
            check_path("C:\\x"),
            Err(("C:\\x".to_owned(), Unportable::Forbidden(':')))
        );
        assert_eq!(
            check_path("scripts/nul"),
            Err(("nul".to_owned(), Unportable::Reserved("nul".into())))
        );
    }

    #[cfg(feature = "validate")]
    #[test]
    fn folding_meets_what_case_insensitive_systems_meet() {
        assert_eq!(fold("Notes.md"), fold("notes.md"));
        assert_eq!(fold("STRASSE"), fold("straße"));
        // `é` precomposed and as `e` plus a combining accent.
        assert_eq!(fold("caf\u{e9}"), fold("cafe\u{301}"));
        assert_eq!(fold("\u{212a}elvin"), fold("kelvin"));
        assert_ne!(fold("notes.md"), fold("notes.mdx"));
    }
}
