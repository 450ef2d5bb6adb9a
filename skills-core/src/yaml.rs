//! Frontmatter YAML (a mapping; no duplicate keys, no tab indentation) to a small tree in
//! which every node knows its line and column in `SKILL.md`.
//!
//! This is the only module that talks to the YAML library (`saphyr-parser`, a maintained
//! YAML 1.2 parser that reports positions), so swapping it touches nothing else. We build our own
//! tree from its events because we need what generic deserializers drop: the position of every
//! value, duplicate keys reported with both lines, and the scalar style (a quoted `"1.0"` is a
//! string, a plain `1.0` is a number).

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use crate::diagnostic::{Code, Diagnostic, shorten};
use crate::visible::{self, Hidden};

/// Bounds the size of the tree, so aliases cannot blow it up ("billion laughs").
const MAX_NODES: usize = 10_000;

/// A YAML value with its position.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    /// The value.
    pub value: Value,
    /// 1-based line in `SKILL.md`.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
}

/// A YAML value, resolved with the YAML 1.2 core schema.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// `~`, `null` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A plain number, kept as written.
    Number(String),
    /// A string (quoted, block, or plain and not a number, bool or null).
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, keys in source order. Keys are scalars; duplicate keys have been reported.
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// What kind of value this is, for error messages ("a number", "a list", ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "empty (null)",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// The value as a scalar written in YAML (for keys and for "quote it" hints).
    pub fn scalar_text(&self) -> Option<String> {
        match self {
            Value::Null => Some(String::new()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Number(n) | Value::Str(n) => Some(n.clone()),
            Value::Seq(_) | Value::Map(_) => None,
        }
    }
}

/// Where the frontmatter sits in the file, to turn fragment positions into file positions.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    /// Path shown in diagnostics.
    pub path: &'a str,
    /// The whole normalized file, for quoting lines.
    pub file_text: &'a str,
    /// The frontmatter fragment.
    pub fragment: &'a str,
    /// 1-based line of the fragment's first line in the file.
    pub first_line: usize,
}

impl Source<'_> {
    fn error(
        &self,
        code: Code,
        line_in_fragment: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::error(code, self.path, message).at(
            self.file_text,
            line_in_fragment + self.first_line - 1,
            column,
        )
    }
}

/// Parses the frontmatter. Returns the root node (when the YAML could be parsed) and every
/// problem found: syntax errors, tab indentation, duplicate keys, aliases out of bounds.
pub(crate) fn parse(source: &Source<'_>) -> (Option<Node>, Vec<Diagnostic>) {
    let tab_errors = tab_indentation(source);
    if !tab_errors.is_empty() {
        // The parser would only repeat the same complaint less clearly.
        return (None, tab_errors);
    }
    let mut builder = Builder {
        source,
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        documents: 0,
        nodes: 0,
        diagnostics: Vec::new(),
    };
    for event in Parser::new_from_str(source.fragment) {
        match event {
            Ok((event, span)) => {
                if let Err(diagnostic) = builder.event(event, span) {
                    builder.diagnostics.push(diagnostic);
                    return (None, builder.diagnostics);
                }
            }
            Err(error) => {
                let mark = error.marker();
                if let Some(diagnostic) = missing_closing_line(source, mark.line()) {
                    builder.diagnostics.push(diagnostic);
                    return (None, builder.diagnostics);
                }
                let mut diagnostic = source.error(
                    Code::YamlSyntax,
                    mark.line(),
                    mark.col() + 1,
                    format!("invalid YAML in frontmatter: {}", error.info()),
                );
                if error.info().contains("mapping values are not allowed") {
                    diagnostic = diagnostic.with_help(
                        "a value that contains `: ` must be quoted, e.g. `description: \"Use when: ...\"`",
                    );
                } else if error.info().contains("tab") {
                    diagnostic = diagnostic.with_help("indent YAML with spaces, not tabs");
                }
                builder.diagnostics.push(diagnostic);
                return (None, builder.diagnostics);
            }
        }
    }
    (builder.root, builder.diagnostics)
}

/// [`parse`], then, when the frontmatter is not valid YAML, Claude Code's second reading: every
/// top-level `key: value` line whose unquoted value holds `: ` or a YAML indicator is read with
/// the value quoted, as text ([`quote_plain_values`]). When that parses, the frontmatter is
/// accepted with a warning at each line whose reading that changed; otherwise the first
/// reading's errors stand.
pub(crate) fn parse_as_claude_code(source: &Source<'_>) -> (Option<Node>, Vec<Diagnostic>) {
    let (root, diagnostics) = parse(source);
    let syntax_error = diagnostics.iter().any(|d| d.code() == Code::YamlSyntax);
    if !syntax_error {
        return (root, diagnostics);
    }
    let (quoted, lines) = quote_plain_values(source.fragment);
    if lines.is_empty() {
        return (root, diagnostics);
    }
    let second = Source {
        fragment: &quoted,
        ..*source
    };
    let (second_root, second_diagnostics) = parse(&second);
    if second_root.is_none() || second_diagnostics.iter().any(Diagnostic::is_error) {
        return (root, diagnostics);
    }
    let mut warnings = second_diagnostics;
    for line in lines.iter().filter(|line| !reads_as_written(line)) {
        let escaped = line.value.replace('\\', "\\\\").replace('"', "\\\"");
        warnings.push(
            Diagnostic::warning(
                Code::ValueReadAsText,
                source.path,
                format!(
                    "the value of `{}` is not valid YAML unquoted; it is read as Claude Code reads it, as the text `{}`",
                    line.key,
                    shorten(&line.value)
                ),
            )
            .at(source.file_text, line.index + source.first_line, line.column)
            .with_help(format!(
                "quote it: `{}: \"{}\"`; skills-ref (the spec's reference validator) and Codex refuse the file as written",
                line.key,
                shorten(&escaped)
            )),
        );
    }
    (second_root, warnings)
}

/// A frontmatter line [`quote_plain_values`] quoted.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct QuotedLine {
    /// 0-based line in the fragment.
    pub index: usize,
    /// 1-based column of the value, in characters.
    pub column: usize,
    /// The key.
    pub key: String,
    /// The value as written.
    pub value: String,
}

/// Claude Code's repair of a frontmatter its YAML parser refused: each line that is
/// `key: value` at the top level (`^([a-zA-Z_-]+):\s+(\S.*)$`) and whose value is not quoted
/// already, not a flow list that parses, and holds `: ` or one of ``{}[]*&#!|>%@` `` gets the
/// value wrapped in double quotes (`\` and `"` escaped). Columns are kept: the white space after
/// the colon becomes as many spaces. Returns the new text and the lines changed.
pub(crate) fn quote_plain_values(fragment: &str) -> (String, Vec<QuotedLine>) {
    let mut out = String::with_capacity(fragment.len() + 16);
    let mut quoted = Vec::new();
    for (index, line) in fragment.split_inclusive('\n').enumerate() {
        let (content, newline) = match line.strip_suffix('\n') {
            Some(content) => (content, "\n"),
            None => (line, ""),
        };
        match claude_code_key_value(content) {
            Some((key, gap, value)) if needs_quotes(value) => {
                let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
                out.push_str(key);
                out.push(':');
                out.push_str(&" ".repeat(gap.chars().count()));
                out.push('"');
                out.push_str(&escaped);
                out.push('"');
                out.push_str(newline);
                quoted.push(QuotedLine {
                    index,
                    column: key.chars().count() + 1 + gap.chars().count() + 1,
                    key: key.to_owned(),
                    value: value.to_owned(),
                });
            }
            _ => out.push_str(line),
        }
    }
    (out, quoted)
}

/// `(key, white space, value)` of a line `^([a-zA-Z_-]+):\s+(\S.*)$` as JavaScript matches it
/// (its `.` stops at U+2028 and U+2029, which then fail the match).
fn claude_code_key_value(line: &str) -> Option<(&str, &str, &str)> {
    let key_len = line
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '_' || c == '-'))
        .unwrap_or(line.len());
    let (key, rest) = line.split_at(key_len);
    let rest = rest.strip_prefix(':')?;
    let value_start = rest
        .find(|c: char| !crate::claude_code::is_js_space(c))
        .unwrap_or(rest.len());
    let (gap, value) = rest.split_at(value_start);
    let valid = !key.is_empty()
        && !gap.is_empty()
        && !value.is_empty()
        && !value.contains(['\u{2028}', '\u{2029}', '\r']);
    valid.then_some((key, gap, value))
}

/// Whether Claude Code quotes this value: not already quoted, not a flow list that parses,
/// and holding `: ` or an indicator character.
fn needs_quotes(value: &str) -> bool {
    let quoted = (value.starts_with('"') && value.ends_with('"'))
        || (value.starts_with('\'') && value.ends_with('\''));
    if quoted {
        return false;
    }
    if value.starts_with('[') && value.ends_with(']') && parses_as_list(value) {
        return false;
    }
    value.contains(": ")
        || value.contains([
            '{', '}', '[', ']', '*', '&', '#', '!', '|', '>', '%', '@', '`',
        ])
}

/// Whether `text` alone is a YAML document whose root is a sequence.
fn parses_as_list(text: &str) -> bool {
    let mut events = Parser::new_from_str(text);
    loop {
        match events.next() {
            Some(Ok((Event::SequenceStart(..), _))) => break,
            Some(Ok((Event::StreamStart | Event::DocumentStart(_), _))) => continue,
            _ => return false,
        }
    }
    events.all(|event| event.is_ok())
}

/// Whether YAML itself reads the line's value as the text Claude Code reads: then quoting it
/// changed nothing, and there is nothing to warn about.
fn reads_as_written(line: &QuotedLine) -> bool {
    let document = format!("{}: {}", line.key, line.value);
    let mut scalars = Vec::new();
    for event in Parser::new_from_str(&document) {
        match event {
            Ok((Event::Scalar(text, _, _, None), _)) => scalars.push(text.into_owned()),
            Ok((
                Event::StreamStart
                | Event::StreamEnd
                | Event::DocumentStart(_)
                | Event::DocumentEnd
                | Event::MappingStart(..)
                | Event::MappingEnd,
                _,
            )) => {}
            _ => return false,
        }
    }
    scalars == [line.key.clone(), line.value.clone()]
}

/// A syntax error after a line that reads as instructions, not YAML: the closing `---` is
/// missing, and a `---` rule further down the body closed the frontmatter instead. Said as
/// such, at the line where the instructions start, rather than as a parser error further on.
fn missing_closing_line(source: &Source<'_>, error_line: usize) -> Option<Diagnostic> {
    let body_line = crate::text::first_body_line(source.fragment)?;
    if body_line >= error_line {
        return None;
    }
    let closing_line = source.fragment.lines().count() + source.first_line;
    Some(
        source
            .error(
                Code::UnclosedFrontmatter,
                body_line,
                1,
                format!(
                    "frontmatter is not closed before the instructions: the `---` at line {closing_line} closes it, so the text above is read as YAML"
                ),
            )
            .with_help(
                "this line reads as instructions, not YAML: put a line holding only `---` before it (or, if it belongs to the value above, indent it)",
            ),
    )
}

/// A line indented with a tab. YAML forbids it, and parsers word it obscurely.
fn tab_indentation(source: &Source<'_>) -> Vec<Diagnostic> {
    source
        .fragment
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let indent: &str = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
            let column = indent.find('\t')? + 1;
            (!line.trim().is_empty()).then(|| {
                source
                    .error(
                        Code::TabIndentation,
                        index + 1,
                        column,
                        "tab used as indentation in frontmatter",
                    )
                    .with_help("indent YAML with spaces, not tabs")
            })
        })
        .collect()
}

/// Every hidden character written in the frontmatter ([`visible::hidden`]: control,
/// bidirectional and invisible characters), in a value, a key or a comment, each at its line and
/// column. Line breaks and tabs are YAML's white space and pass.
pub(crate) fn hidden_characters(source: &Source<'_>) -> Vec<Diagnostic> {
    // Most frontmatter is ASCII without control characters: nothing to look at closer.
    let ascii_control = |b: &u8| (*b < 0x20 && *b != b'\n' && *b != b'\t') || *b == 0x7f;
    if source.fragment.is_ascii() && !source.fragment.as_bytes().iter().any(ascii_control) {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (index, line) in source.fragment.split('\n').enumerate() {
        for (column, c) in line.chars().enumerate() {
            if let Some(kind) = visible::hidden(c).filter(|_| c != '\t') {
                found.push(hidden_character(
                    source,
                    index + 1,
                    column + 1,
                    c,
                    kind,
                    None,
                ));
            }
        }
    }
    found
}

/// The error for hidden character `c` at `line:column` of the fragment; `escaped` when it is
/// written as an escape of a double-quoted string (`"\e"`, `"\u202e"`) rather than as itself,
/// with the other hidden characters the same string holds through escapes (`more`).
fn hidden_character(
    source: &Source<'_>,
    line: usize,
    column: usize,
    c: char,
    kind: Hidden,
    escaped: Option<&[char]>,
) -> Diagnostic {
    let what = match kind {
        Hidden::Control => {
            "printed, it acts on the terminal, or breaks the line where none is seen"
        }
        Hidden::Bidi => {
            "it reorders the text after it, so a person reads another order than the model"
        }
        Hidden::Invisible => "a person cannot see it, but the model reads it",
    };
    let written = match escaped {
        None => String::new(),
        Some([]) => " (written as an escape)".to_owned(),
        Some(more) => {
            let more: Vec<String> = more.iter().map(|&c| visible::code_point(c)).collect();
            format!(
                " (written as an escape, as are {} in the same value)",
                more.join(", ")
            )
        }
    };
    source
        .error(
            Code::HiddenCharacter,
            line,
            column,
            format!(
                "hidden character in frontmatter: {}, {}{written}; {what}",
                kind.describe(),
                visible::code_point(c)
            ),
        )
        .with_help(
            "remove it: text that models and people read may not hold control, bidirectional or \
             invisible characters (an emoji's variation selector or joiner included)",
        )
}

/// The hidden characters a double-quoted scalar holds through its escapes (`"\x1b"`,
/// `"\u200b"`): not in the text as written, so [`hidden_characters`] does not see them. One
/// error for the scalar, at its start, naming each.
fn escaped_hidden_characters(source: &Source<'_>, value: &str, span: Span) -> Option<Diagnostic> {
    let is_hidden = |c: char| visible::hidden(c).is_some() && c != '\n' && c != '\t';
    if !value.chars().any(is_hidden) {
        return None;
    }
    let written: String = source
        .fragment
        .chars()
        .skip(span.start.index())
        .take(span.end.index().saturating_sub(span.start.index()))
        .collect();
    let mut found: Vec<char> = Vec::new();
    for c in value.chars() {
        if is_hidden(c) && !written.contains(c) && !found.contains(&c) {
            found.push(c);
        }
    }
    let (&first, more) = found.split_first()?;
    let kind = visible::hidden(first)?;
    let (line, column) = (span.start.line(), span.start.col() + 1);
    Some(hidden_character(
        source,
        line,
        column,
        first,
        kind,
        Some(more),
    ))
}

enum Frame {
    Seq {
        node: Node,
        anchor: usize,
        items: Vec<Node>,
    },
    Map {
        node: Node,
        anchor: usize,
        entries: Vec<(Node, Node)>,
        /// The key waiting for its value, and whether the entry is kept (not a duplicate, not an
        /// invalid key: both were reported).
        pending_key: Option<(Node, bool)>,
        seen: HashMap<String, usize>,
    },
}

struct Builder<'s, 'a> {
    source: &'s Source<'a>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    root: Option<Node>,
    documents: usize,
    nodes: usize,
    diagnostics: Vec<Diagnostic>,
}

impl Builder<'_, '_> {
    fn node(&mut self, value: Value, span: Span) -> Result<Node, Diagnostic> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.source.error(
                Code::FrontmatterTooLarge,
                span.start.line(),
                span.start.col() + 1,
                format!("frontmatter is too large (more than {MAX_NODES} values)"),
            ));
        }
        Ok(Node {
            value,
            line: span.start.line() + self.source.first_line - 1,
            column: span.start.col() + 1,
        })
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), Diagnostic> {
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(self.source.error(
                        Code::MultipleDocuments,
                        span.start.line(),
                        span.start.col() + 1,
                        "frontmatter holds more than one YAML document",
                    ));
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                if style == ScalarStyle::DoubleQuoted {
                    let found = escaped_hidden_characters(self.source, &text, span);
                    self.diagnostics.extend(found);
                }
                let forced_string = tag.as_ref().is_some_and(|tag| tag.suffix == "str");
                let value = if style == ScalarStyle::Plain && !forced_string {
                    resolve_plain(&text)
                } else {
                    Value::Str(text.into_owned())
                };
                let node = self.node(value, span)?;
                self.finish(node, anchor);
            }
            Event::Alias(id) => {
                let Some(target) = self.anchors.get(&id).cloned() else {
                    return Err(self.source.error(
                        Code::YamlSyntax,
                        span.start.line(),
                        span.start.col() + 1,
                        "unknown YAML alias",
                    ));
                };
                let size = count_nodes(&target);
                self.nodes += size;
                if self.nodes > MAX_NODES {
                    return Err(self.source.error(
                        Code::FrontmatterTooLarge,
                        span.start.line(),
                        span.start.col() + 1,
                        format!("frontmatter is too large (more than {MAX_NODES} values)"),
                    ));
                }
                let node = Node {
                    line: span.start.line() + self.source.first_line - 1,
                    column: span.start.col() + 1,
                    ..target
                };
                self.finish(node, 0);
            }
            Event::SequenceStart(anchor, _) => {
                let node = self.node(Value::Null, span)?;
                self.stack.push(Frame::Seq {
                    node,
                    anchor,
                    items: Vec::new(),
                });
            }
            Event::MappingStart(anchor, _) => {
                let node = self.node(Value::Null, span)?;
                self.stack.push(Frame::Map {
                    node,
                    anchor,
                    entries: Vec::new(),
                    pending_key: None,
                    seen: HashMap::new(),
                });
            }
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Seq {
                    mut node,
                    anchor,
                    items,
                }) => {
                    node.value = Value::Seq(items);
                    self.finish(node, anchor);
                }
                Some(Frame::Map {
                    mut node,
                    anchor,
                    entries,
                    ..
                }) => {
                    node.value = Value::Map(entries);
                    self.finish(node, anchor);
                }
                None => {}
            },
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
        Ok(())
    }

    /// Places a completed node into its parent (or makes it the root).
    fn finish(&mut self, node: Node, anchor: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries,
                pending_key,
                seen,
                ..
            }) => {
                match pending_key.take() {
                    // A key: checked now, so the value that follows knows whether to keep it.
                    None => {
                        let keep = match node
                            .value
                            .scalar_text()
                            .filter(|_| node.value != Value::Null)
                        {
                            None => {
                                let message = format!(
                                    "a frontmatter key must be a plain word, not {}",
                                    node.value.kind()
                                );
                                self.diagnostics.push(
                                    Diagnostic::error(Code::ComplexKey, self.source.path, message)
                                        .at(self.source.file_text, node.line, node.column),
                                );
                                false
                            }
                            Some(key) => match seen.get(&key) {
                                Some(first_line) => {
                                    let message = format!(
                                        "duplicate key `{key}` in frontmatter (first defined on line {first_line})"
                                    );
                                    self.diagnostics.push(
                                        Diagnostic::error(
                                            Code::DuplicateKey,
                                            self.source.path,
                                            message,
                                        )
                                        .at(self.source.file_text, node.line, node.column)
                                        .with_help("keep one of the two entries"),
                                    );
                                    false
                                }
                                None => {
                                    seen.insert(key, node.line);
                                    true
                                }
                            },
                        };
                        *pending_key = Some((node, keep));
                    }
                    Some((key, keep)) => {
                        if keep {
                            entries.push((key, node));
                        }
                    }
                }
            }
        }
    }
}

fn count_nodes(node: &Node) -> usize {
    1 + match &node.value {
        Value::Seq(items) => items.iter().map(count_nodes).sum(),
        Value::Map(entries) => entries
            .iter()
            .map(|(k, v)| count_nodes(k) + count_nodes(v))
            .sum(),
        _ => 0,
    }
}

/// Resolves a plain scalar with the YAML 1.2 core schema.
fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ if is_number(text) => Value::Number(text.to_owned()),
        _ => Value::Str(text.to_owned()),
    }
}

fn is_number(text: &str) -> bool {
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if let Some(octal) = text.strip_prefix("0o") {
        return digits(octal, 8);
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return digits(hex, 16);
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    // [0-9]+(\.[0-9]*)? or \.[0-9]+, then an optional exponent.
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        None => digits(mantissa, 10),
        Some((int, frac)) => {
            (digits(int, 10) && (frac.is_empty() || digits(frac, 10)))
                || (int.is_empty() && digits(frac, 10))
        }
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e), 10));
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_fm(fragment: &str) -> (Option<Node>, Vec<Diagnostic>) {
        let file_text = format!("---\n{fragment}---\nbody\n");
        let source = Source {
            path: "s/SKILL.md",
            file_text: &file_text,
            fragment,
            first_line: 2,
        };
        let (node, diagnostics) = parse(&source);
        (node, diagnostics)
    }

    fn entries(node: &Node) -> &[(Node, Node)] {
        match &node.value {
            Value::Map(entries) => entries,
            other => panic!("not a map: {other:?}"),
        }
    }

    #[test]
    fn values_carry_file_positions() {
        let (root, diagnostics) =
            parse_fm("name: a\ndescription: >\n  folded\n  text\ntags: [x, \"y\"]\n");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let map = entries(root.as_ref().unwrap());
        assert_eq!(
            map[0].1,
            Node {
                value: Value::Str("a".into()),
                line: 2,
                column: 7
            }
        );
        assert_eq!(map[1].1.value, Value::Str("folded text\n".into()));
        assert_eq!(map[1].0.line, 3);
        assert_eq!(map[2].1.line, 6);
    }

    #[test]
    fn core_schema_resolution() {
        for (text, expected) in [
            ("1.0", "a number"),
            ("12", "a number"),
            ("1e3", "a number"),
            (".5", "a number"),
            ("0x1F", "a number"),
            ("1.2.0", "a string"),
            ("yes", "a string"),
            ("true", "a boolean"),
            ("~", "empty (null)"),
            ("", "empty (null)"),
            ("\"1.0\"", "a string"),
        ] {
            let (root, _) = parse_fm(&format!("v: {text}\n"));
            assert_eq!(
                entries(root.as_ref().unwrap())[0].1.value.kind(),
                expected,
                "{text}"
            );
        }
    }

    #[test]
    fn unquoted_colon_reports_file_line_and_quote_help() {
        let (root, diagnostics) = parse_fm("name: a\ndescription: Use this: when testing\n");
        assert!(root.is_none());
        let d = &diagnostics[0];
        assert_eq!(d.line(), Some(3), "{d}");
        assert!(d.message().starts_with("invalid YAML"));
        assert!(d.help().unwrap().contains("quoted"));
    }

    fn parse_cc(fragment: &str) -> (Option<Node>, Vec<Diagnostic>) {
        let file_text = format!("---\n{fragment}---\nbody\n");
        let source = Source {
            path: "s/SKILL.md",
            file_text: &file_text,
            fragment,
            first_line: 2,
        };
        parse_as_claude_code(&source)
    }

    #[test]
    fn claude_code_reads_an_unquoted_colon_as_text() {
        let (root, diagnostics) = parse_cc("name: a\ndescription:   Use it: now\ntags: [x, y]\n");
        let map = entries(root.as_ref().unwrap());
        assert_eq!(map[1].1.value, Value::Str("Use it: now".into()));
        assert_eq!(
            (map[1].1.line, map[1].1.column),
            (3, 16),
            "the value's own column"
        );
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        let d = &diagnostics[0];
        assert!(!d.is_error());
        assert_eq!(d.code(), Code::ValueReadAsText);
        assert_eq!((d.line(), d.column()), (Some(3), Some(16)));
        assert_eq!(d.source_line(), Some("description:   Use it: now"));
        assert!(
            d.help().unwrap().contains("`description: \"Use it: now\"`"),
            "{d}"
        );
        assert!(d.help().unwrap().contains("skills-ref"), "{d}");
        // Strict mode stays strict.
        assert!(parse_fm("name: a\ndescription: Use it: now\n").0.is_none());
    }

    #[test]
    fn claude_codes_repair_quotes_exactly_what_it_quotes() {
        let (text, lines) = quote_plain_values(
            "description: Use \"it\": now\\\ntags: [a, b]\nmodel: x # y\nkey1: a: b\n  nested: a: b\nok: 'quoted: yes'\narg: [a: b\n",
        );
        assert_eq!(
            text,
            "description: \"Use \\\"it\\\": now\\\\\"\ntags: [a, b]\nmodel: \"x # y\"\nkey1: a: b\n  nested: a: b\nok: 'quoted: yes'\narg: \"[a: b\"\n"
        );
        let keys: Vec<&str> = lines.iter().map(|l| l.key.as_str()).collect();
        assert_eq!(keys, ["description", "model", "arg"]);
        // A line YAML reads the same way (a `#` that starts no comment) is quoted without a
        // warning; one where YAML would drop a comment is warned about.
        let (root, diagnostics) =
            parse_cc("name: a\ndescription: x: y\nlicense: C#\nmodel: m # note\n");
        let map = entries(root.as_ref().unwrap());
        assert_eq!(map[3].1.value, Value::Str("m # note".into()));
        let warned: Vec<u32> = diagnostics.iter().filter_map(Diagnostic::line).collect();
        assert_eq!(warned, [3, 5], "{diagnostics:?}");
    }

    #[test]
    fn a_frontmatter_the_repair_cannot_save_keeps_its_errors() {
        // The repair quotes one line, but the continuation below it still breaks the YAML.
        let (root, diagnostics) = parse_cc("name: a\ndescription: Use it: now\n  and more\n");
        assert!(root.is_none());
        assert!(
            diagnostics.iter().all(Diagnostic::is_error),
            "{diagnostics:?}"
        );
        assert_eq!(diagnostics[0].code(), Code::YamlSyntax);
        // Nothing to quote (an unclosed quote is no indicator): the first errors stand.
        let (root, diagnostics) = parse_cc("name: \"a\n");
        assert!(root.is_none());
        assert_eq!(diagnostics[0].code(), Code::YamlSyntax);
        // An unclosed flow list is quoted, as Claude Code quotes it.
        let (root, diagnostics) = parse_cc("name: [a\n");
        assert_eq!(
            entries(root.as_ref().unwrap())[0].1.value,
            Value::Str("[a".into())
        );
        assert_eq!(diagnostics[0].code(), Code::ValueReadAsText);
    }

    #[test]
    fn duplicate_keys_name_both_lines() {
        let (_, diagnostics) = parse_fm("name: a\ndescription: x\nname: b\n");
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].line(), Some(4));
        assert!(
            diagnostics[0]
                .message()
                .contains("duplicate key `name` in frontmatter (first defined on line 2)")
        );
    }

    #[test]
    fn non_scalar_keys_are_reported_once_and_dropped() {
        let (root, diagnostics) = parse_fm("? [a, b]\n: x\nname: a\n");
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert!(
            diagnostics[0]
                .message()
                .contains("must be a plain word, not a list")
        );
        assert_eq!(entries(root.as_ref().unwrap()).len(), 1);
    }

    #[test]
    fn tab_indentation_is_rejected() {
        let (_, diagnostics) = parse_fm("metadata:\n\tauthor: me\n");
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(
            (diagnostics[0].line(), diagnostics[0].column()),
            (Some(3), Some(1))
        );
        assert!(diagnostics[0].message().contains("tab"));
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut fragment = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..8 {
            let prev = if i == 0 {
                "a".to_string()
            } else {
                format!("b{}", i - 1)
            };
            fragment.push_str(&format!("b{i}: &b{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        }
        let (root, diagnostics) = parse_fm(&fragment);
        assert!(root.is_none());
        assert!(diagnostics[0].message().contains("too large"));
    }
}
