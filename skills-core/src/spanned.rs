//! [`Spanned`]: a value read from a file together with where it was written, so any later rule
//! can point at it.

use crate::yaml::Node;

/// A value together with where it was written (in `SKILL.md`, or in `evals/triggers.json` for a
/// trigger case).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
}

impl<T> Spanned<T> {
    /// `value`, at the place of the YAML node it was read from.
    pub(crate) fn new(value: T, node: &Node) -> Self {
        Spanned {
            value,
            line: node.line,
            column: node.column,
        }
    }
}
