//! A skill's trigger cases: `evals/triggers.json`, the queries for which the model should, or
//! should not, load the skill. The file is a JSON array of `{"query": string, "should_trigger":
//! bool}` objects, the format Anthropic's skill-creator exports and agentskills.io documents, so
//! the same file works in those tools.
//!
//! This is the only module that talks to the JSON library (`jsonc-parser`, with every extension
//! of plain JSON turned off): we need the position of every value, which generic deserializers
//! drop, to report each problem at its line and column.

use std::collections::HashMap;
use std::path::PathBuf;

use jsonc_parser::ast::{Object, ObjectPropName, Value};
use jsonc_parser::common::Range;
use jsonc_parser::{CollectOptions, ParseOptions};

use crate::diagnostic::{Code, Diagnostic};
use crate::spanned::Spanned;

/// The folder of a skill that holds its evaluations. Nothing in it is embedded as a resource or
/// shown to the model: a model must not see its own test.
pub const EVALS_DIR: &str = "evals";

/// The trigger file, relative to the skill folder.
pub const TRIGGERS_FILE: &str = "evals/triggers.json";

/// The two keys of a case.
const QUERY: &str = "query";
/// See [`QUERY`].
const SHOULD_TRIGGER: &str = "should_trigger";

/// What a case looks like, for help texts.
const CASE_EXAMPLE: &str = r#"[{"query": "review my pull request", "should_trigger": true}, ...]"#;

/// One trigger case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriggerCase {
    /// What the user asks, as written (JSON escapes decoded), where its string starts.
    pub query: Spanned<String>,
    /// Whether the model should load the skill for it, where the value starts.
    pub should_trigger: Spanned<bool>,
}

/// A skill's `evals/triggers.json`, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriggerFile {
    /// Display path, relative to the manifest directory, with `/`.
    pub path: String,
    /// The file on disk (for the macro to track).
    pub file: PathBuf,
    /// SHA-256 of the file's bytes, lowercase hex (what the lock lists).
    pub sha256: String,
    /// The valid cases, in file order.
    pub cases: Vec<TriggerCase>,
}

impl TriggerFile {
    /// How many cases should, and should not, trigger the skill.
    pub fn counts(&self) -> (usize, usize) {
        let positive = self
            .cases
            .iter()
            .filter(|case| case.should_trigger.value)
            .count();
        (positive, self.cases.len() - positive)
    }
}

/// Plain JSON: every extension the parser knows is off.
pub(crate) const STRICT: ParseOptions = ParseOptions {
    allow_comments: false,
    allow_loose_object_property_names: false,
    allow_trailing_commas: false,
    allow_missing_commas: false,
    allow_single_quoted_strings: false,
    allow_hexadecimal_numbers: false,
    allow_unary_plus_numbers: false,
    allow_bare_decimal_point_numbers: false,
    allow_non_finite_numbers: false,
    allow_extended_string_escapes: false,
};

/// Reads the trigger file `path` (as shown in diagnostics): the valid cases, and every problem.
pub(crate) fn parse(path: &str, bytes: &[u8]) -> (Vec<TriggerCase>, Vec<Diagnostic>) {
    let text = match crate::text::utf8(path, TRIGGERS_FILE, bytes) {
        Ok(text) => text,
        Err(diagnostic) => return (Vec::new(), vec![diagnostic]),
    };
    let mut reader = Reader {
        path,
        text,
        diagnostics: Vec::new(),
    };
    let cases = reader.file();
    (cases, reader.diagnostics)
}

/// What a JSON value is, for messages.
pub(crate) fn kind(value: &Value<'_>) -> &'static str {
    match value {
        Value::StringLit(_) => "a string",
        Value::NumberLit(_) => "a number",
        Value::BooleanLit(_) => "a boolean",
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::NullKeyword(_) => "null",
    }
}

pub(crate) fn range(value: &Value<'_>) -> Range {
    match value {
        Value::StringLit(v) => v.range,
        Value::NumberLit(v) => v.range,
        Value::BooleanLit(v) => v.range,
        Value::Object(v) => v.range,
        Value::Array(v) => v.range,
        Value::NullKeyword(v) => v.range,
    }
}

/// The first control character (U+0000 to U+001F) written raw inside a string of `value`, and
/// its byte offset in `text`.
pub(crate) fn control_character(text: &str, value: &Value<'_>) -> Option<(usize, char)> {
    let in_string = |range: Range| {
        let raw = text.get(range.start..range.end)?;
        raw.char_indices()
            .find(|(_, c)| u32::from(*c) < 0x20)
            .map(|(at, c)| (range.start + at, c))
    };
    match value {
        Value::StringLit(lit) => in_string(lit.range),
        Value::Array(array) => array
            .elements
            .iter()
            .find_map(|element| control_character(text, element)),
        Value::Object(object) => object.properties.iter().find_map(|property| {
            let name = match &property.name {
                ObjectPropName::String(lit) => in_string(lit.range),
                ObjectPropName::Word(_) => None,
            };
            name.or_else(|| control_character(text, &property.value))
        }),
        Value::NumberLit(_) | Value::BooleanLit(_) | Value::NullKeyword(_) => None,
    }
}

/// The key of a property and where it starts (names are always strings in plain JSON).
pub(crate) fn key<'a>(name: &'a ObjectPropName<'a>) -> (&'a str, usize) {
    match name {
        ObjectPropName::String(lit) => (lit.value.as_ref(), lit.range.start),
        ObjectPropName::Word(lit) => (lit.value, lit.range.start),
    }
}

/// The root value of a plain JSON file (`what` is `the trigger` or `the task`, the kind of
/// file for messages; `example` shows its shape in helps), or the one problem that makes it no
/// JSON: a byte-order mark, a syntax error, a raw control character in a string (the parser
/// lets them through; JSON and Python's `json` do not), or nothing at all, reported at `path`.
pub(crate) fn json_root<'a>(
    path: &str,
    text: &'a str,
    what: &str,
    example: &str,
    code: Code,
) -> Result<Value<'a>, Diagnostic> {
    let error = |offset: usize, message: String, help: String| {
        Diagnostic::error(code, path, message)
            .at_offset(text, offset)
            .with_help(help)
    };
    if text.starts_with('\u{FEFF}') {
        return Err(error(
            0,
            format!(
                "{what} file starts with a byte-order mark, which JSON does not allow (Python's `json` refuses it)"
            ),
            "save the file as UTF-8 without a byte-order mark".to_owned(),
        ));
    }
    let root = match jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &STRICT) {
        Ok(parsed) => parsed.value,
        Err(parse_error) => {
            let kind = parse_error.kind().to_string();
            let mut chars = kind.chars();
            let kind = match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => kind,
            };
            let cases = what.trim_start_matches("the ");
            return Err(error(
                parse_error.range().start,
                format!("invalid JSON in the {cases} cases: {kind}"),
                format!("the file is {}", shape(what, example)),
            ));
        }
    };
    if let Some((offset, c)) = root.as_ref().and_then(|root| control_character(text, root)) {
        let cases = what.trim_start_matches("the ");
        return Err(error(
            offset,
            format!(
                "invalid JSON in the {cases} cases: a string holds the control character {c:?} unescaped"
            ),
            "write it escaped (`\\n` for a line break, `\\t` for a tab), or leave it out"
                .to_owned(),
        ));
    }
    root.ok_or_else(|| {
        let empty = if what == "the trigger" {
            format!("write a JSON array of cases, `[]` for none: `{example}`")
        } else {
            format!("write {}", shape(what, example))
        };
        error(0, format!("{what} file is empty"), empty)
    })
}

/// How a help describes the file's shape.
fn shape(what: &str, example: &str) -> String {
    if what == "the trigger" {
        format!("a JSON array of cases: `{example}`")
    } else {
        format!("one JSON object: `{example}`")
    }
}

struct Reader<'a> {
    path: &'a str,
    text: &'a str,
    diagnostics: Vec<Diagnostic>,
}

impl Reader<'_> {
    fn spanned<T>(&self, value: T, offset: usize) -> Spanned<T> {
        let (line, column) = crate::diagnostic::line_column(self.text, offset);
        Spanned {
            value,
            line,
            column,
        }
    }

    fn error(&mut self, code: Code, offset: usize, message: String, help: Option<String>) {
        let diagnostic = Diagnostic::error(code, self.path, message).at_offset(self.text, offset);
        self.diagnostics.push(match help {
            Some(help) => diagnostic.with_help(help),
            None => diagnostic,
        });
    }

    fn file(&mut self) -> Vec<TriggerCase> {
        let root = match json_root(
            self.path,
            self.text,
            "the trigger",
            CASE_EXAMPLE,
            Code::TriggersSyntax,
        ) {
            Ok(root) => root,
            Err(diagnostic) => {
                self.diagnostics.push(diagnostic);
                return Vec::new();
            }
        };
        let Value::Array(array) = &root else {
            let help = match &root {
                Value::Object(object) if object.get("evals").is_some() => format!(
                    "this looks like skill-creator's `evals.json` (output evaluations); trigger \
                     cases are a plain array: `{CASE_EXAMPLE}`"
                ),
                _ => format!("write the cases as one JSON array: `{CASE_EXAMPLE}`"),
            };
            self.error(
                Code::TriggersNotArray,
                range(&root).start,
                format!(
                    "the trigger file must hold a JSON array of cases, found {}",
                    kind(&root)
                ),
                Some(help),
            );
            return Vec::new();
        };
        let mut cases = Vec::new();
        // Each query as compared (case and spacing ignored) -> its case number and line.
        let mut seen: HashMap<String, (usize, usize)> = HashMap::new();
        for (index, element) in array.elements.iter().enumerate() {
            let number = index + 1;
            let Value::Object(object) = element else {
                self.error(
                    Code::TriggerNotObject,
                    range(element).start,
                    format!(
                        "trigger case {number} must be an object, found {}",
                        kind(element)
                    ),
                    Some(format!(
                        "write each case as `{{\"{QUERY}\": \"...\", \"{SHOULD_TRIGGER}\": true}}`"
                    )),
                );
                continue;
            };
            let Some(case) = self.case(number, object) else {
                continue;
            };
            let compared = crate::render::collapse_whitespace(&case.query.value).to_lowercase();
            match seen.get(&compared) {
                Some(&(first, line)) => self.error(
                    Code::TriggerDuplicateQuery,
                    object.range.start,
                    format!(
                        "trigger case {number} has the same query as case {first} (line {line})"
                    ),
                    Some(
                        "each query is asked once (case and spacing are ignored): remove one, or \
                         reword it"
                            .to_owned(),
                    ),
                ),
                None => {
                    seen.insert(compared, (number, case.query.line));
                    cases.push(case);
                }
            }
        }
        cases
    }

    /// One case, when it is valid; every problem with it is reported.
    fn case(&mut self, number: usize, object: &Object<'_>) -> Option<TriggerCase> {
        let mut query = None;
        let mut should_trigger = None;
        let mut valid = true;
        let mut first_line: HashMap<&str, usize> = HashMap::new();
        for property in &object.properties {
            let (name, at) = key(&property.name);
            if let Some(line) = first_line.get(name) {
                self.error(
                    Code::TriggerDuplicateKey,
                    at,
                    format!(
                        "trigger case {number} has the key `{name}` twice (first on line {line})"
                    ),
                    Some("keep one of the two".to_owned()),
                );
                valid = false;
                continue;
            }
            first_line.insert(name, crate::diagnostic::line_column(self.text, at).0);
            let value = &property.value;
            match name {
                QUERY => match value {
                    Value::StringLit(text) if text.value.trim().is_empty() => {
                        self.error(
                            Code::TriggerEmptyQuery,
                            text.range.start,
                            format!("trigger case {number} has an empty `{QUERY}`"),
                            Some("write what a user would ask".to_owned()),
                        );
                        valid = false;
                    }
                    Value::StringLit(text) => {
                        query =
                            Some(self.spanned(text.value.clone().into_owned(), text.range.start));
                    }
                    other => {
                        self.error(
                            Code::TriggerWrongType,
                            range(other).start,
                            format!(
                                "`{QUERY}` of trigger case {number} must be a string, found {}",
                                kind(other)
                            ),
                            None,
                        );
                        valid = false;
                    }
                },
                SHOULD_TRIGGER => match value {
                    Value::BooleanLit(flag) => {
                        should_trigger = Some(self.spanned(flag.value, flag.range.start));
                    }
                    other => {
                        let help = match other {
                            Value::StringLit(text)
                                if matches!(text.value.as_ref(), "true" | "false") =>
                            {
                                format!(
                                    "write it without quotes: `\"{SHOULD_TRIGGER}\": {}`",
                                    text.value
                                )
                            }
                            _ => format!(
                                "write `\"{SHOULD_TRIGGER}\": true` or `\"{SHOULD_TRIGGER}\": false`"
                            ),
                        };
                        self.error(
                            Code::TriggerWrongType,
                            range(other).start,
                            format!(
                                "`{SHOULD_TRIGGER}` of trigger case {number} must be `true` or `false`, found {}",
                                kind(other)
                            ),
                            Some(help),
                        );
                        valid = false;
                    }
                },
                other => {
                    let only = format!("a case holds only `{QUERY}` and `{SHOULD_TRIGGER}`");
                    let help = match crate::render::closest_match(other, [QUERY, SHOULD_TRIGGER]) {
                        Some(close) => format!("did you mean `{close}`? ({only})"),
                        None => only,
                    };
                    self.error(
                        Code::TriggerUnknownKey,
                        at,
                        format!("trigger case {number} has an unknown key `{other}`"),
                        Some(help),
                    );
                    valid = false;
                }
            }
        }
        for (name, missing) in [
            (QUERY, !first_line.contains_key(QUERY)),
            (SHOULD_TRIGGER, !first_line.contains_key(SHOULD_TRIGGER)),
        ] {
            if missing {
                self.error(
                    Code::TriggerMissingKey,
                    object.range.start,
                    format!("trigger case {number} has no `{name}`"),
                    Some(format!(
                        "each case holds both keys: `{{\"{QUERY}\": \"...\", \"{SHOULD_TRIGGER}\": true}}`"
                    )),
                );
                valid = false;
            }
        }
        match (valid, query, should_trigger) {
            (true, Some(query), Some(should_trigger)) => Some(TriggerCase {
                query,
                should_trigger,
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `line:column [code] message` of every problem.
    fn problems(text: &str) -> Vec<String> {
        parse("s/a/evals/triggers.json", text.as_bytes())
            .1
            .iter()
            .map(|d| {
                let (line, column) = (d.line().unwrap_or(0), d.column().unwrap_or(0));
                format!("{line}:{column} [{}] {}", d.code(), d.message())
            })
            .collect()
    }

    #[test]
    fn valid_cases_keep_their_positions() {
        let text = "[\n  {\"query\": \"review my \\\"PR\\\"\", \"should_trigger\": true},\n  {\"should_trigger\": false, \"query\": \"écris un poème\"}\n]\n";
        let (cases, diagnostics) = parse("p", text.as_bytes());
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].query.value, "review my \"PR\"");
        assert_eq!((cases[0].query.line, cases[0].query.column), (2, 13));
        assert!(cases[0].should_trigger.value);
        assert_eq!(
            (cases[0].should_trigger.line, cases[0].should_trigger.column),
            (2, 51)
        );
        assert_eq!(cases[1].query.value, "écris un poème");
        assert_eq!((cases[1].query.line, cases[1].query.column), (3, 38));
        assert!(!cases[1].should_trigger.value);
        assert_eq!(parse("p", b"[]").0, []);
    }

    #[test]
    fn every_problem_is_found_at_its_place() {
        let text = r#"[
  {"query": "a", "should_trigger": true},
  "just text",
  {"query": 7, "should_trigger": "yes"},
  {"query": "  ", "should_trigger": false},
  {"query": "b"},
  {"query": "c", "should_trigger": true, "shuold_trigger": false},
  {"query": "d", "query": "e", "should_trigger": true},
  {"query": "A ", "should_trigger": false}
]"#;
        assert_eq!(
            problems(text),
            [
                "3:3 [trigger-not-object] trigger case 2 must be an object, found a string",
                "4:13 [trigger-wrong-type] `query` of trigger case 3 must be a string, found a number",
                "4:34 [trigger-wrong-type] `should_trigger` of trigger case 3 must be `true` or `false`, found a string",
                "5:13 [trigger-empty-query] trigger case 4 has an empty `query`",
                "6:3 [trigger-missing-key] trigger case 5 has no `should_trigger`",
                "7:42 [trigger-unknown-key] trigger case 6 has an unknown key `shuold_trigger`",
                "8:18 [trigger-duplicate-key] trigger case 7 has the key `query` twice (first on line 8)",
                "9:3 [trigger-duplicate-query] trigger case 8 has the same query as case 1 (line 2)",
            ]
        );
        let (cases, diagnostics) = parse("p", text.as_bytes());
        assert_eq!(cases.len(), 1, "only the first case is valid");
        let unknown = diagnostics
            .iter()
            .find(|d| d.code() == Code::TriggerUnknownKey)
            .unwrap();
        assert!(
            unknown
                .help()
                .unwrap()
                .starts_with("did you mean `should_trigger`?"),
            "{unknown}"
        );
        let quoted_bool = diagnostics
            .iter()
            .find(|d| d.message().contains("`should_trigger` of trigger case 3"))
            .unwrap();
        assert!(
            quoted_bool
                .help()
                .unwrap()
                .contains("`\"should_trigger\": true`")
        );
    }

    #[test]
    fn the_file_must_be_one_json_array() {
        assert_eq!(
            problems("{\"skill_name\": \"x\", \"evals\": []}"),
            [
                "1:1 [triggers-not-array] the trigger file must hold a JSON array of cases, found an object"
            ]
        );
        let (_, diagnostics) = parse("p", b"{\"evals\": []}");
        assert!(
            diagnostics[0]
                .help()
                .unwrap()
                .contains("skill-creator's `evals.json`")
        );
        assert_eq!(
            problems("  \"query\""),
            [
                "1:3 [triggers-not-array] the trigger file must hold a JSON array of cases, found a string"
            ]
        );
        assert_eq!(
            problems(" \n "),
            ["1:1 [triggers-syntax] the trigger file is empty"]
        );
        assert_eq!(
            problems("\u{FEFF}[]")[0],
            "1:1 [triggers-syntax] the trigger file starts with a byte-order mark, which JSON does not allow (Python's `json` refuses it)"
        );
        let (_, diagnostics) = parse("p", b"[\n{\"query\": \"caf\xE9\"}]");
        assert_eq!(diagnostics[0].code(), Code::NotUtf8);
        assert_eq!(
            (diagnostics[0].line(), diagnostics[0].column()),
            (Some(2), Some(15))
        );
        assert!(
            diagnostics[0]
                .message()
                .starts_with("evals/triggers.json is not valid UTF-8")
        );
    }

    /// What Python's `json` module and skill-creator refuse is refused here too.
    #[test]
    fn only_plain_json_is_accepted() {
        for (text, at) in [
            ("[{\"query\": \"a\", \"should_trigger\": true},]", "1:40"),
            (
                "[{\"query\": \"a\", \"should_trigger\": true}] // c",
                "1:42",
            ),
            ("[{query: \"a\", \"should_trigger\": true}]", "1:3"),
            ("[{'query': \"a\", \"should_trigger\": true}]", "1:3"),
            ("[{\"query\": \"a\" \"should_trigger\": true}]", "1:15"),
            ("[{\"query\": \"a\", \"should_trigger\": true}", "1:1"),
            ("[{\"query\": \"\\x41\", \"should_trigger\": true}]", "1:13"),
            ("[01]", "1:3"),
            ("[{\"query\": \"a\nb\", \"should_trigger\": true}]", "1:14"),
            ("[{\"qu\tery\": \"a\", \"should_trigger\": true}]", "1:6"),
            ("[-]", "1:3"),
            ("[1, +2]", "1:5"),
            ("[.5]", "1:2"),
            ("[0x1F]", "1:2"),
            ("[NaN]", "1:2"),
            ("[] []", "1:4"),
        ] {
            let found = problems(text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert!(
                found[0].starts_with(&format!("{at} [triggers-syntax] invalid JSON")),
                "{text}: {found:?}"
            );
        }
        let (_, diagnostics) = parse("p", b"[1,]");
        assert!(
            diagnostics[0]
                .help()
                .unwrap()
                .contains("\"should_trigger\": true")
        );
    }

    #[test]
    fn counts_split_positive_and_negative() {
        let text = r#"[{"query": "a", "should_trigger": true}, {"query": "b", "should_trigger": false},
                       {"query": "c", "should_trigger": true}]"#;
        let file = TriggerFile {
            path: String::new(),
            file: PathBuf::new(),
            sha256: String::new(),
            cases: parse("p", text.as_bytes()).0,
        };
        assert_eq!(file.counts(), (2, 1));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Arbitrary text never panics the reader, and every problem has a position.
        #[test]
        fn arbitrary_text_is_read_without_panicking(text in "[\\[\\]{}\":, \\n\\\\a-z0-9tfé漢]{0,120}") {
            let (_, diagnostics) = parse("p", text.as_bytes());
            for diagnostic in diagnostics {
                proptest::prop_assert!(diagnostic.line().is_some(), "{}", diagnostic);
            }
        }
    }
}
