//! A problem found in a skill file, with the place it was found and, when known, the fix.

use std::fmt;

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Advice; the skill still compiles.
    Warning,
    /// The skill is rejected; the build fails.
    Error,
}

/// One problem in one file.
///
/// Rendered (with [`Display`](fmt::Display)) the way rustc and askama render errors in external
/// files: the message first, then `--> path:line:col`, the offending line, and `help:` when a fix
/// is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Path of the file, relative to the consuming crate's manifest directory, with `/`.
    pub path: String,
    /// 1-based line; 0 when the problem concerns the file or directory as a whole.
    pub line: usize,
    /// 1-based column in characters; 0 when unknown.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when known.
    pub help: Option<String>,
    /// The text of the offending line, when there is one.
    pub source_line: Option<String>,
}

impl Diagnostic {
    /// An error about `path` as a whole (no line).
    pub fn error(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            line: 0,
            column: 0,
            message: message.into(),
            help: None,
            source_line: None,
        }
    }

    /// Points the diagnostic at `line:column` (1-based) and records the line's text.
    pub fn at(mut self, text: &str, line: usize, column: usize) -> Self {
        self.line = line;
        self.column = column.max(1);
        self.source_line = text.lines().nth(line.saturating_sub(1)).map(str::to_owned);
        self
    }

    /// Points the diagnostic at `line:column` without quoting the line (for text that is not UTF-8).
    pub fn at_position(mut self, line: usize, column: usize) -> Self {
        self.line = line;
        self.column = column;
        self
    }

    /// Adds a `help:` line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Whether this diagnostic fails the build.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `path:line:col`, or just `path` when there is no line.
    pub fn location(&self) -> String {
        match (self.line, self.column) {
            (0, _) => self.path.clone(),
            (line, 0) => format!("{}:{line}", self.path),
            (line, col) => format!("{}:{line}:{col}", self.path),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.message)?;
        write!(f, "  --> {}", self.location())?;
        if let Some(source) = &self.source_line {
            let source = shorten_line(source, self.column);
            let source = source.as_str();
            let number = self.line.to_string();
            let pad = " ".repeat(number.len());
            write!(f, "\n {pad} |\n {number} | {source}")?;
            if self.column > 0 {
                let caret_pad: String = source
                    .chars()
                    .take(self.column - 1)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                write!(f, "\n {pad} | {caret_pad}^")?;
            }
        }
        if let Some(help) = &self.help {
            write!(f, "\n  = help: {help}")?;
        }
        Ok(())
    }
}

/// Sorts diagnostics by file, then position, so output is deterministic.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    // Stable: problems at the same place keep the order the rules found them in.
    diagnostics.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
}

/// Longest quoted source line, in characters; longer lines are cut after the column shown.
const MAX_QUOTED_CHARS: usize = 100;

/// Cuts a very long line (a 1,000-character description) so the error stays readable.
fn shorten_line(line: &str, column: usize) -> String {
    let keep = MAX_QUOTED_CHARS.max(column + 20);
    if line.chars().count() <= keep {
        return line.to_owned();
    }
    let mut short: String = line.chars().take(keep).collect();
    short.push_str(" ...");
    short
}
