//! Reading `evals/evals.json`: every problem at its line and column (the JSON parser is the
//! trigger cases' one, with every extension of plain JSON off), then the files the cases copy,
//! found, confined to the skill's `evals/` folder and hashed.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use jsonc_parser::ast::{Array, Object, Value};

use super::{Assertion, Check, Fixture, TASKS_FILE, TaskCase};
use crate::diagnostic::{Code, Diagnostic};
use crate::files::{ReadError, Unreachable, read_limited, real_path_within};
use crate::spanned::Spanned;
use crate::triggers::{EVALS_DIR, json_root, key, kind, range};

/// What the file looks like, for help texts.
const EXAMPLE: &str = r#"{"skill_name": "my-skill", "evals": [{"id": 1, "prompt": "...", "expected_output": "...", "files": [], "assertions": ["..."]}]}"#;

/// The keys of the file, of a case, and of each form of check.
const FILE_KEYS: &[&str] = &["skill_name", "evals"];
const CASE_KEYS: &[&str] = &[
    "id",
    "prompt",
    "expected_output",
    "files",
    "assertions",
    "expectations",
    "network",
];
const CHECK_KEYS: &[&str] = &[
    "file",
    "exists",
    "contains",
    "matches",
    "command",
    "exit",
    "answer_contains",
    "loaded",
    "not_loaded",
    "max_turns",
    "max_tokens",
];

/// The forms a check object takes, for help texts.
const CHECK_FORMS: &str = r#"{"file": "path"} (with "exists": false, "contains": "text" or "matches": "regex"), {"command": "...", "exit": 0}, {"answer_contains": "text"}, {"loaded": "skill"}, {"not_loaded": "skill"}, {"max_turns": N} or {"max_tokens": N}"#;

/// Folders below a folder of fixtures, and files in all, that one case may copy.
const MAX_DEPTH: usize = 16;
const MAX_FILES: usize = 10_000;

/// A skill's `evals/evals.json`, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskFile {
    /// Display path, relative to the manifest directory, with `/`.
    pub path: String,
    /// The file on disk (for the macro to track).
    pub file: PathBuf,
    /// SHA-256 of the file's bytes, lowercase hex (what the lock lists).
    pub sha256: String,
    /// The valid cases, in file order; their [`Fixture::file`] index [`fixtures`](Self::fixtures).
    pub cases: Vec<TaskCase>,
    /// Every file the cases copy, once each, in the order first named.
    pub fixtures: Vec<FixtureFile>,
    /// The skill names the checks name (`loaded`, `not_loaded`), with where each is written and
    /// the line it is on: the bundle checks them against its skills.
    pub skill_refs: Vec<(Spanned<String>, String)>,
}

/// One file a skill's cases copy into their working directories.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureFile {
    /// Display path, relative to the manifest directory, with `/`.
    pub path: String,
    /// The file on disk.
    pub file: PathBuf,
    /// SHA-256 of its bytes, lowercase hex (what the lock lists).
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
    /// Whether it is executable.
    pub executable: bool,
}

/// Where a skill's files are, for [`parse`] to find the fixtures.
pub(crate) struct Folder<'a> {
    /// The skill folder.
    pub(crate) dir: &'a Path,
    /// The skill folder as diagnostics show it.
    pub(crate) shown: &'a str,
    /// The skill's name, which `skill_name` must equal.
    pub(crate) name: &'a str,
    /// The largest file read.
    pub(crate) max_file_size: u64,
}

/// Reads the task file at `path` (as shown) of the skill in `folder`: the valid cases with their
/// fixtures found and hashed, and every problem.
pub(crate) fn parse(
    path: &str,
    bytes: &[u8],
    folder: &Folder<'_>,
) -> (Vec<TaskCase>, Vec<FixtureFile>, SkillRefs, Vec<Diagnostic>) {
    let text = match crate::text::utf8(path, TASKS_FILE, bytes) {
        Ok(text) => text,
        Err(diagnostic) => return (Vec::new(), Vec::new(), Vec::new(), vec![diagnostic]),
    };
    let mut reader = Reader {
        path,
        text,
        folder,
        diagnostics: Vec::new(),
        fixtures: Vec::new(),
        skill_refs: Vec::new(),
        files_seen: HashMap::new(),
    };
    let cases = reader.file();
    (
        cases,
        reader.fixtures,
        reader.skill_refs,
        reader.diagnostics,
    )
}

/// The skill names named by checks, where, and the line they are on.
pub(crate) type SkillRefs = Vec<(Spanned<String>, String)>;

struct Reader<'a> {
    path: &'a str,
    text: &'a str,
    folder: &'a Folder<'a>,
    diagnostics: Vec<Diagnostic>,
    fixtures: Vec<FixtureFile>,
    skill_refs: SkillRefs,
    /// Real path of each fixture read -> its index in `fixtures`.
    files_seen: HashMap<PathBuf, u32>,
}

impl Reader<'_> {
    fn error(&mut self, code: Code, offset: usize, message: String, help: Option<String>) {
        let diagnostic = Diagnostic::error(code, self.path, message).at_offset(self.text, offset);
        self.diagnostics.push(match help {
            Some(help) => diagnostic.with_help(help),
            None => diagnostic,
        });
    }

    fn line_of(&self, offset: usize) -> (usize, usize, String) {
        let (line, column) = crate::diagnostic::line_column(self.text, offset);
        let source = self
            .text
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or_default()
            .to_owned();
        (line, column, source)
    }

    /// Each key of `object` once, with its value; a key twice is reported (the second is
    /// skipped), and so is a key outside `known` (with the closest known one).
    fn properties<'b>(
        &mut self,
        object: &'b Object<'b>,
        what: &str,
        known: &[&str],
    ) -> (Vec<(&'b str, usize, &'b Value<'b>)>, bool) {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut found = Vec::new();
        let mut valid = true;
        for property in &object.properties {
            let (name, at) = key(&property.name);
            if let Some(line) = seen.get(name) {
                self.error(
                    Code::TaskDuplicateKey,
                    at,
                    format!("{what} has the key `{name}` twice (first on line {line})"),
                    Some("keep one of the two".to_owned()),
                );
                valid = false;
                continue;
            }
            seen.insert(name, crate::diagnostic::line_column(self.text, at).0);
            if !known.contains(&name) {
                let only = format!(
                    "the keys are {}",
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let help = match crate::render::closest_match(name, known.iter().copied()) {
                    Some(close) => format!("did you mean `{close}`? ({only})"),
                    None => only,
                };
                self.error(
                    Code::TaskUnknownKey,
                    at,
                    format!("{what} has an unknown key `{name}`"),
                    Some(help),
                );
                valid = false;
                continue;
            }
            found.push((name, at, &property.value));
        }
        (found, valid)
    }

    fn wrong_type(&mut self, value: &Value<'_>, what: String, expected: &str) {
        self.error(
            Code::TaskWrongType,
            range(value).start,
            format!("{what} must be {expected}, found {}", kind(value)),
            None,
        );
    }

    /// A non-empty string, or a reported problem.
    fn text(&mut self, value: &Value<'_>, what: String) -> Option<String> {
        match value {
            Value::StringLit(text) if text.value.trim().is_empty() => {
                self.error(
                    Code::TaskWrongType,
                    text.range.start,
                    format!("{what} is empty"),
                    None,
                );
                None
            }
            Value::StringLit(text) => Some(text.value.clone().into_owned()),
            other => {
                self.wrong_type(other, what, "a string");
                None
            }
        }
    }

    /// A whole number from 0 to `max`, or a reported problem.
    fn number(&mut self, value: &Value<'_>, what: String, max: u64) -> Option<u64> {
        if let Value::NumberLit(number) = value
            && let Ok(parsed) = number.value.parse::<u64>()
            && parsed <= max
        {
            return Some(parsed);
        }
        self.wrong_type(value, what, &format!("a whole number from 0 to {max}"));
        None
    }

    fn file(&mut self) -> Vec<TaskCase> {
        let root = match json_root(self.path, self.text, "the task", EXAMPLE, Code::TasksSyntax) {
            Ok(root) => root,
            Err(diagnostic) => {
                self.diagnostics.push(diagnostic);
                return Vec::new();
            }
        };
        let Value::Object(object) = &root else {
            let help = match &root {
                Value::Array(_) => format!(
                    "this looks like trigger cases (`evals/triggers.json`); task cases are one \
                     object: `{EXAMPLE}`"
                ),
                _ => format!("write one JSON object: `{EXAMPLE}`"),
            };
            self.error(
                Code::TasksNotObject,
                range(&root).start,
                format!(
                    "the task file must hold a JSON object with `evals`, found {}",
                    kind(&root)
                ),
                Some(help),
            );
            return Vec::new();
        };
        let (properties, _) = self.properties(object, "the task file", FILE_KEYS);
        let mut evals = None;
        for (name, _, value) in properties {
            match name {
                "skill_name" => {
                    let Some(named) = self.text(value, "`skill_name`".to_owned()) else {
                        continue;
                    };
                    if named != self.folder.name {
                        self.error(
                            Code::TaskSkillName,
                            range(value).start,
                            format!(
                                "`skill_name` is `{named}`, but the skill is `{}`",
                                self.folder.name
                            ),
                            Some(format!(
                                "write `\"skill_name\": \"{}\"`, or leave the key out",
                                self.folder.name
                            )),
                        );
                    }
                }
                _ => match value {
                    Value::Array(array) => evals = Some(array),
                    other => self.wrong_type(other, "`evals`".to_owned(), "an array of cases"),
                },
            }
        }
        let Some(evals) = evals else {
            if !object.properties.iter().any(|p| key(&p.name).0 == "evals") {
                self.error(
                    Code::TaskMissingKey,
                    object.range.start,
                    "the task file has no `evals`".to_owned(),
                    Some(format!(
                        "write the cases as `\"evals\": [...]`: `{EXAMPLE}`"
                    )),
                );
            }
            return Vec::new();
        };
        self.cases(evals)
    }

    fn cases(&mut self, evals: &Array<'_>) -> Vec<TaskCase> {
        let mut cases = Vec::new();
        // Each id -> the line it was first given on.
        let mut ids: HashMap<u64, usize> = HashMap::new();
        for (index, element) in evals.elements.iter().enumerate() {
            let number = index + 1;
            let Value::Object(object) = element else {
                self.wrong_type(element, format!("task case {number}"), "an object");
                continue;
            };
            // Ids are compared whether or not the rest of the case is valid.
            let id = object
                .properties
                .iter()
                .find(|p| key(&p.name).0 == "id")
                .and_then(|p| match &p.value {
                    Value::NumberLit(n) => n
                        .value
                        .parse::<u64>()
                        .ok()
                        .map(|id| (id, range(&p.value).start)),
                    _ => None,
                });
            let case = self.case(number, object);
            let Some((id, at)) = id else {
                continue;
            };
            if let Some(line) = ids.get(&id) {
                self.error(
                    Code::TaskDuplicateId,
                    at,
                    format!("task case {number} has the id {id} of an earlier case (line {line})"),
                    Some(
                        "each case has its own `id`: reports and baselines name cases by it"
                            .to_owned(),
                    ),
                );
                continue;
            }
            ids.insert(id, crate::diagnostic::line_column(self.text, at).0);
            cases.extend(case);
        }
        cases
    }

    /// One case, when it is valid; every problem with it is reported.
    fn case(&mut self, number: usize, object: &Object<'_>) -> Option<TaskCase> {
        let what = format!("task case {number}");
        let (properties, mut valid) = self.properties(object, &what, CASE_KEYS);
        let (mut id, mut prompt) = (None, None);
        let mut case = TaskCase {
            id: 0,
            prompt: String::new(),
            expected_output: String::new(),
            files: Vec::new(),
            network: false,
            assertions: Vec::new(),
        };
        let mut assertions_key: Option<&str> = None;
        for (name, at, value) in properties {
            let field = format!("`{name}` of {what}");
            match name {
                "id" => id = self.number(value, field, u64::MAX),
                "prompt" => prompt = self.text(value, field),
                "expected_output" => match value {
                    Value::StringLit(text) => {
                        case.expected_output = text.value.clone().into_owned();
                    }
                    other => {
                        self.wrong_type(other, field, "a string");
                        valid = false;
                    }
                },
                "network" => match value {
                    Value::BooleanLit(flag) => case.network = flag.value,
                    other => {
                        self.wrong_type(other, field, "`true` or `false`");
                        valid = false;
                    }
                },
                "files" => match value {
                    Value::Array(array) => {
                        valid &= self.fixtures(number, array, &mut case.files);
                    }
                    other => {
                        self.wrong_type(other, field, "an array of paths");
                        valid = false;
                    }
                },
                _ => {
                    if let Some(first) = assertions_key {
                        self.error(
                            Code::TaskDuplicateKey,
                            at,
                            format!("{what} has both `{first}` and `{name}`"),
                            Some("they are two spellings of one list: keep one".to_owned()),
                        );
                        valid = false;
                        continue;
                    }
                    assertions_key = Some(name);
                    match value {
                        Value::Array(array) => {
                            valid &= self.assertions(number, array, &mut case.assertions);
                        }
                        other => {
                            self.wrong_type(other, field, "an array of assertions");
                            valid = false;
                        }
                    }
                }
            }
        }
        for (name, present) in [("id", id.is_some()), ("prompt", prompt.is_some())] {
            let written = object.properties.iter().any(|p| key(&p.name).0 == name);
            if !present && !written {
                self.error(
                    Code::TaskMissingKey,
                    object.range.start,
                    format!("{what} has no `{name}`"),
                    Some(format!("each case has an `id` and a `prompt`: `{EXAMPLE}`")),
                );
            }
        }
        case.id = id?;
        case.prompt = prompt?;
        valid.then_some(case)
    }

    fn assertions(&mut self, number: usize, array: &Array<'_>, out: &mut Vec<Assertion>) -> bool {
        let mut valid = true;
        for (index, element) in array.elements.iter().enumerate() {
            let what = format!("assertion {} of task case {number}", index + 1);
            let assertion = match element {
                Value::StringLit(_) => self.text(element, what).map(Assertion::Graded),
                Value::Object(object) => self.check(&what, object).map(Assertion::Check),
                other => {
                    self.wrong_type(
                        other,
                        what,
                        "a statement for the grader (a string) or a check (an object)",
                    );
                    None
                }
            };
            match assertion {
                Some(assertion) => out.push(assertion),
                None => valid = false,
            }
        }
        valid
    }

    fn bad_check(&mut self, at: usize, what: &str, message: &str) {
        self.error(
            Code::TaskBadCheck,
            at,
            format!("{what} {message}"),
            Some(format!("a check is one of {CHECK_FORMS}")),
        );
    }

    /// One check object: the keys of exactly one form.
    fn check(&mut self, what: &str, object: &Object<'_>) -> Option<Check> {
        let (properties, valid) = self.properties(object, what, CHECK_KEYS);
        if !valid {
            return None;
        }
        let get = |name: &str| properties.iter().find(|(k, _, _)| *k == name);
        let names: Vec<&str> = properties.iter().map(|(k, _, _)| *k).collect();
        let start = object.range.start;
        let only = |allowed: &[&str]| names.iter().all(|n| allowed.contains(n));
        if let Some(&(_, _, value)) = get("file") {
            let path = self.workdir_path(value, format!("`file` of {what}"))?;
            let forms = ["exists", "contains", "matches"];
            let given: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| forms.contains(n))
                .collect();
            if !only(&["file", "exists", "contains", "matches"]) || given.len() > 1 {
                self.bad_check(
                    start,
                    what,
                    "mixes keys of several checks: a `file` check takes one of `exists`, `contains` and `matches`",
                );
                return None;
            }
            return match given.first().copied() {
                None => Some(Check::FileExists { path, exists: true }),
                Some("exists") => match get("exists").map(|p| p.2) {
                    Some(Value::BooleanLit(flag)) => Some(Check::FileExists {
                        path,
                        exists: flag.value,
                    }),
                    Some(other) => {
                        self.wrong_type(other, format!("`exists` of {what}"), "`true` or `false`");
                        None
                    }
                    None => None,
                },
                Some("contains") => {
                    let value = get("contains")?.2;
                    let text = self.text(value, format!("`contains` of {what}"))?;
                    Some(Check::FileContains { path, text })
                }
                _ => {
                    let value = get("matches")?.2;
                    let pattern = self.text(value, format!("`matches` of {what}"))?;
                    if let Err(error) = regex_syntax::Parser::new().parse(&pattern) {
                        let first = error.to_string();
                        let reason = first.lines().last().unwrap_or_default().trim().to_owned();
                        self.bad_check(
                            range(value).start,
                            what,
                            &format!("has a regular expression that does not compile: {reason}"),
                        );
                        return None;
                    }
                    Some(Check::FileMatches { path, pattern })
                }
            };
        }
        let single = |name: &str| names.len() == 1 && names[0] == name;
        if let Some(&(_, _, value)) = get("command") {
            if !only(&["command", "exit"]) {
                self.bad_check(start, what, "mixes keys of several checks");
                return None;
            }
            let command = self.text(value, format!("`command` of {what}"))?;
            let exit = match get("exit").map(|p| p.2) {
                None => 0,
                Some(Value::NumberLit(number)) => match number.value.parse::<i32>() {
                    Ok(code) => code,
                    Err(_) => {
                        self.wrong_type(
                            get("exit")?.2,
                            format!("`exit` of {what}"),
                            "an exit code (a whole number)",
                        );
                        return None;
                    }
                },
                Some(other) => {
                    self.wrong_type(
                        other,
                        format!("`exit` of {what}"),
                        "an exit code (a whole number)",
                    );
                    return None;
                }
            };
            return Some(Check::Command { command, exit });
        }
        if single("answer_contains") {
            let value = get("answer_contains")?.2;
            return self
                .text(value, format!("`answer_contains` of {what}"))
                .map(Check::AnswerContains);
        }
        if single("loaded") || single("not_loaded") {
            let (name, _, value) = *properties.first()?;
            let names = self.skill_names(value, format!("`{name}` of {what}"))?;
            return Some(if name == "loaded" {
                Check::Loaded(names)
            } else {
                Check::NotLoaded(names)
            });
        }
        if single("max_turns") || single("max_tokens") {
            let (name, _, value) = *properties.first()?;
            let limit = self.number(value, format!("`{name}` of {what}"), u64::from(u32::MAX))?;
            return Some(if name == "max_turns" {
                Check::MaxTurns(limit)
            } else {
                Check::MaxTokens(limit)
            });
        }
        let message = if names.is_empty() {
            "is an empty object".to_owned()
        } else if names
            .iter()
            .any(|n| ["exists", "contains", "matches"].contains(n))
        {
            "has no `file`".to_owned()
        } else if names == ["exit"] {
            "has no `command`".to_owned()
        } else {
            "mixes keys of several checks".to_owned()
        };
        self.bad_check(start, what, &message);
        None
    }

    /// A relative path inside the working directory, or a reported problem.
    fn workdir_path(&mut self, value: &Value<'_>, what: String) -> Option<String> {
        let path = self.text(value, what.clone())?;
        let parts: Vec<&str> = path.split('/').collect();
        let bad = path.starts_with('/')
            || path.contains('\\')
            || parts.iter().any(|p| p.is_empty() || *p == "..");
        if bad {
            self.error(
                Code::TaskBadCheck,
                range(value).start,
                format!("{what} must be a relative path inside the working directory, with `/` and no `..`: `{path}`"),
                None,
            );
            return None;
        }
        Some(
            parts
                .iter()
                .filter(|p| **p != ".")
                .copied()
                .collect::<Vec<_>>()
                .join("/"),
        )
    }

    /// A skill name or a non-empty list of them, each remembered for the check across skills.
    fn skill_names(&mut self, value: &Value<'_>, what: String) -> Option<Vec<String>> {
        let items: Vec<&Value<'_>> = match value {
            Value::StringLit(_) => vec![value],
            Value::Array(array) if !array.elements.is_empty() => array.elements.iter().collect(),
            other => {
                self.wrong_type(other, what, "a skill's name or a non-empty list of names");
                return None;
            }
        };
        let mut names = Vec::new();
        for item in items {
            let name = self.text(item, what.clone())?;
            let (line, column, source) = self.line_of(range(item).start);
            self.skill_refs.push((
                Spanned {
                    value: name.clone(),
                    line,
                    column,
                },
                source,
            ));
            names.push(name);
        }
        Some(names)
    }

    /// The `files` of case `number`: each found under `evals/`, read, hashed and given its place
    /// in the working directory.
    fn fixtures(&mut self, number: usize, array: &Array<'_>, out: &mut Vec<Fixture>) -> bool {
        let mut valid = true;
        // Where each file lands -> the entry that put it there.
        let mut landed: HashMap<String, String> = HashMap::new();
        for element in &array.elements {
            let what = format!("a file of task case {number}");
            let Some(written) = self.text(element, what) else {
                valid = false;
                continue;
            };
            let at = range(element).start;
            let Some(found) = self.fixture_entry(&written, at) else {
                valid = false;
                continue;
            };
            for (landing, real, path, executable) in found {
                if let Some(other) = landed.get(&landing) {
                    self.error(
                        Code::TaskFileOutside,
                        at,
                        format!(
                            "`{written}` would put `{landing}` where `{other}` already put it in the working directory of task case {number}"
                        ),
                        Some("a file lands at the top under its own name, a folder's contents land at the top with their paths: rename one".to_owned()),
                    );
                    valid = false;
                    continue;
                }
                landed.insert(landing.clone(), written.clone());
                let Some(file) = self.read_fixture(&real, &path, executable, at) else {
                    valid = false;
                    continue;
                };
                out.push(Fixture {
                    path: landing,
                    file,
                    executable,
                });
            }
        }
        valid
    }

    /// The files `written` names: `(where it lands, real path, path in the folder, executable)`,
    /// in path order; `None` after reporting why there are none.
    fn fixture_entry(
        &mut self,
        written: &str,
        at: usize,
    ) -> Option<Vec<(String, PathBuf, PathBuf, bool)>> {
        let evals_prefix = format!("{EVALS_DIR}/");
        let relative = written.strip_prefix(&evals_prefix).unwrap_or(written);
        let parts: Vec<&str> = relative.split('/').collect();
        let escapes = written.starts_with('/')
            || written.contains('\\')
            || parts.contains(&"..")
            || parts.iter().all(|p| p.is_empty() || *p == ".");
        let help = format!(
            "files are paths in the skill's `{EVALS_DIR}/` folder, written from the skill folder \
             (`{EVALS_DIR}/files/data.csv`, as skill-creator writes them) or from `{EVALS_DIR}/` \
             (`files/data.csv`)"
        );
        if escapes {
            self.error(
                Code::TaskFileOutside,
                at,
                format!("`{written}` is not a path inside the skill's `{EVALS_DIR}/` folder"),
                Some(help),
            );
            return None;
        }
        let evals = self.folder.dir.join(EVALS_DIR);
        let path = parts
            .iter()
            .filter(|p| !p.is_empty() && **p != ".")
            .fold(evals.clone(), |path, part| path.join(part));
        let shown = format!("{}/{EVALS_DIR}/{relative}", self.folder.shown);
        if fs::symlink_metadata(&path).is_err() {
            self.error(
                Code::TaskFileMissing,
                at,
                format!("`{written}` names no file: `{shown}` does not exist"),
                Some(help),
            );
            return None;
        }
        let real_evals = fs::canonicalize(&evals).unwrap_or(evals);
        let real = match real_path_within(&path, &real_evals) {
            Ok(real) => real,
            Err(Unreachable::Broken) => {
                self.error(
                    Code::TaskFileMissing,
                    at,
                    format!("`{shown}` is a broken symlink"),
                    None,
                );
                return None;
            }
            Err(Unreachable::Outside(_)) => {
                self.error(
                    Code::TaskFileOutside,
                    at,
                    format!("`{shown}` leads outside the skill's `{EVALS_DIR}/` folder"),
                    Some("copy the file into the folder".to_owned()),
                );
                return None;
            }
        };
        if real.is_dir() {
            let mut found = Vec::new();
            self.walk(&path, &real_evals, "", 0, &mut found, at);
            if found.is_empty() {
                self.error(
                    Code::TaskFileMissing,
                    at,
                    format!("the folder `{shown}` holds no file"),
                    None,
                );
                return None;
            }
            found.sort();
            return Some(found);
        }
        let name = parts.last().copied().unwrap_or_default().to_owned();
        let executable = is_executable(&real);
        Some(vec![(name, real, path, executable)])
    }

    /// Every file below the folder `dir` (hidden names skipped), as `(landing, real, path,
    /// executable)`.
    fn walk(
        &mut self,
        dir: &Path,
        real_evals: &Path,
        prefix: &str,
        depth: usize,
        found: &mut Vec<(String, PathBuf, PathBuf, bool)>,
        at: usize,
    ) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let landing = format!("{prefix}{name}");
            let path = entry.path();
            let Ok(real) = real_path_within(&path, real_evals) else {
                self.error(
                    Code::TaskFileOutside,
                    at,
                    format!(
                        "`{}` is a broken symlink or leads outside the skill's `{EVALS_DIR}/` folder",
                        path.display()
                    ),
                    None,
                );
                continue;
            };
            if real.is_dir() {
                if depth + 1 >= MAX_DEPTH {
                    self.error(
                        Code::TaskFileOutside,
                        at,
                        format!(
                            "the files of this entry are nested deeper than {MAX_DEPTH} folders"
                        ),
                        None,
                    );
                    continue;
                }
                self.walk(
                    &path,
                    real_evals,
                    &format!("{landing}/"),
                    depth + 1,
                    found,
                    at,
                );
            } else if found.len() < MAX_FILES {
                let executable = is_executable(&real);
                found.push((landing, real, path, executable));
            }
        }
    }

    /// The index of the fixture at `real` (read once per skill), or a reported problem.
    fn read_fixture(
        &mut self,
        real: &Path,
        path: &Path,
        executable: bool,
        at: usize,
    ) -> Option<u32> {
        if let Some(&index) = self.files_seen.get(real) {
            return Some(index);
        }
        let relative = path
            .strip_prefix(self.folder.dir)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let shown = format!("{}/{relative}", self.folder.shown);
        if !fs::metadata(real).is_ok_and(|m| m.is_file()) {
            self.error(
                Code::TaskFileMissing,
                at,
                format!("`{shown}` is not a regular file"),
                None,
            );
            return None;
        }
        let bytes = match read_limited(real, self.folder.max_file_size) {
            Ok((bytes, _)) => bytes,
            Err(ReadError::TooLarge(size)) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::FileTooLarge,
                        &shown,
                        format!(
                            "`{shown}` is {size} bytes, over the per-file limit of {} bytes",
                            self.folder.max_file_size
                        ),
                    )
                    .with_help("a smaller fixture, or raise the limit with `max_file_size = ...`"),
                );
                return None;
            }
            Err(ReadError::Io(error)) => {
                self.diagnostics.push(Diagnostic::error(
                    Code::Unreadable,
                    &shown,
                    format!("cannot read `{shown}`: {error}"),
                ));
                return None;
            }
        };
        let index = self.fixtures.len() as u32;
        self.fixtures.push(FixtureFile {
            path: shown,
            file: path.to_path_buf(),
            sha256: crate::digest::sha256_hex(&bytes),
            size: bytes.len() as u64,
            executable,
        });
        self.files_seen.insert(real.to_path_buf(), index);
        Some(index)
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests;
