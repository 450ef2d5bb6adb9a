//! Colours on stderr, when it is a terminal and `NO_COLOR` is not set (no-color.org): a
//! palette of a few SGR codes, each piece reset after itself, so nothing the model sends is ever
//! coloured and every approval prompt still starts from a reset.

use std::io::IsTerminal;

/// Whether and how to colour what the example writes on stderr.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    color: bool,
}

impl Style {
    /// Colours when stderr is a terminal that is not `dumb` and `NO_COLOR` is unset or empty.
    pub fn detect() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|term| term == "dumb");
        Style {
            color: std::io::stderr().is_terminal() && !no_color && !dumb,
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Secondary text: footers, previews.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// A tool's name.
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// What failed.
    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// What succeeded.
    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Warnings and interruptions.
    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// The person's own turns in a recap.
    pub fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
}
