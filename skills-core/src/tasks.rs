//! A skill's task cases: `evals/evals.json`, the tasks an agent should do better with the skill
//! than without it, in the format of Anthropic's skill-creator and agentskills.io ("evaluating
//! skills"), so the same file works there:
//!
//! ```json
//! {"skill_name": "write-tests",
//!  "evals": [{"id": 1,
//!             "prompt": "Add unit tests for parse_range in range.rs",
//!             "expected_output": "tests covering empty, reversed and overflowing ranges",
//!             "files": ["evals/files/range.rs"],
//!             "assertions": ["The tests cover an empty range",
//!                            {"command": "cargo test --offline", "exit": 0}]}]}
//! ```
//!
//! `expectations` is the other spelling of `assertions`. A string assertion is graded by a
//! model; an object is a [`Check`] that needs no model (our extension of the format). Each case
//! runs in a fresh working directory holding its `files`: a path that starts with `evals/` is
//! read from the skill folder (how skill-creator and agentskills.io write them), any other from
//! the `evals/` folder; a file lands at the top of the working directory under its own name, and
//! a folder's contents land there keeping their paths.
//!
//! This module holds the cases as plain data, what the build checks and the runtime runs, and
//! the compact form a bundle built with `embed_evals = true` carries ([`encode`], [`decode`]).
//! Reading and checking the file (with the position of every problem) is the `read` part,
//! compiled with the `validate` feature.

use std::fmt;

use crate::layout;

/// The task file, relative to the skill folder.
pub const TASKS_FILE: &str = "evals/evals.json";

/// One task case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskCase {
    /// Its `id`, unique in the file.
    pub id: u64,
    /// What the user asks.
    pub prompt: String,
    /// What success looks like, for people and the grader (empty when not given).
    pub expected_output: String,
    /// The files copied into its working directory, in file order.
    pub files: Vec<Fixture>,
    /// Whether `bash` keeps the host's network in its runs (`"network": true`; default off).
    pub network: bool,
    /// What must hold after a run, in file order.
    pub assertions: Vec<Assertion>,
}

/// One file a case copies into its working directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Where it lands, relative to the working directory, with `/`.
    pub path: String,
    /// Which of the skill's fixture files it is (an index into the list
    /// `TaskFile` or the registry keeps).
    pub file: u32,
    /// Whether it is executable.
    pub executable: bool,
}

/// What must hold after a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assertion {
    /// A statement a grader model judges, with evidence.
    Graded(String),
    /// A check that needs no model.
    Check(Check),
}

/// A check that needs no model: the extension of the format that `evals.json` objects are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// `{"file": "out.txt"}` or `{"file": "out.txt", "exists": false}`: the file is there, or not.
    FileExists {
        /// Relative to the working directory.
        path: String,
        /// Whether it must exist.
        exists: bool,
    },
    /// `{"file": "out.txt", "contains": "text"}`: the file holds the text.
    FileContains {
        /// Relative to the working directory.
        path: String,
        /// The text.
        text: String,
    },
    /// `{"file": "out.txt", "matches": "regex"}`: some part of the file matches the regular
    /// expression (the `regex` crate's syntax).
    FileMatches {
        /// Relative to the working directory.
        path: String,
        /// The expression.
        pattern: String,
    },
    /// `{"command": "cargo test", "exit": 0}`: the command, run in the case's sandbox in the
    /// working directory after the run, exits with this code (`exit` defaults to 0).
    Command {
        /// The command line.
        command: String,
        /// The exit code it must give.
        exit: i32,
    },
    /// `{"answer_contains": "text"}`: the final answer holds the text.
    AnswerContains(String),
    /// `{"loaded": "name"}` or a list: each skill was loaded at some point of the run.
    Loaded(Vec<String>),
    /// `{"not_loaded": "name"}` or a list: none of them was loaded during the run.
    NotLoaded(Vec<String>),
    /// `{"max_turns": 5}`: the run took at most this many model requests.
    MaxTurns(u64),
    /// `{"max_tokens": 20000}`: the run used at most this many tokens, input and output.
    MaxTokens(u64),
}

impl Check {
    /// Whether it is about which skills loaded (what selection accuracy counts).
    pub fn is_selection(&self) -> bool {
        matches!(self, Check::Loaded(_) | Check::NotLoaded(_))
    }
}

/// The check in words, for reports: `file out.txt contains "x"`.
impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::FileExists { path, exists: true } => write!(f, "file {path} exists"),
            Check::FileExists {
                path,
                exists: false,
            } => write!(f, "file {path} does not exist"),
            Check::FileContains { path, text } => write!(f, "file {path} contains {text:?}"),
            Check::FileMatches { path, pattern } => {
                write!(f, "file {path} matches /{pattern}/")
            }
            Check::Command { command, exit } => write!(f, "`{command}` exits with {exit}"),
            Check::AnswerContains(text) => write!(f, "the answer contains {text:?}"),
            Check::Loaded(names) => write!(f, "loaded {}", names.join(", ")),
            Check::NotLoaded(names) => write!(f, "did not load {}", names.join(", ")),
            Check::MaxTurns(n) => write!(f, "at most {n} turns"),
            Check::MaxTokens(n) => write!(f, "at most {n} tokens"),
        }
    }
}

/// The assertion in words: a graded statement as written, a check as [`Check`] shows it.
impl fmt::Display for Assertion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Assertion::Graded(text) => f.write_str(text),
            Assertion::Check(check) => check.fmt(f),
        }
    }
}

// The compact form: per skill the number of its cases, then each case; strings as their length
// and bytes, numbers as unsigned LEB128 (`layout::write`), larger ones in two halves.

fn put_str(out: &mut Vec<u8>, text: &str) {
    layout::write(out, text.len() as u32);
    out.extend_from_slice(text.as_bytes());
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    layout::write(out, value as u32);
    layout::write(out, (value >> 32) as u32);
}

fn put_list(out: &mut Vec<u8>, names: &[String]) {
    layout::write(out, names.len() as u32);
    for name in names {
        put_str(out, name);
    }
}

/// A reader of the compact form that never panics: past the end every read is empty.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn number(&mut self) -> u32 {
        layout::read(self.bytes, &mut self.at)
    }

    fn count(&mut self) -> usize {
        // Every item takes at least a byte: a damaged count cannot make a loop long.
        (self.number() as usize).min(self.bytes.len().saturating_sub(self.at))
    }

    fn u64(&mut self) -> u64 {
        u64::from(self.number()) | u64::from(self.number()) << 32
    }

    fn string(&mut self) -> String {
        let len = self.number() as usize;
        let end = self.at.saturating_add(len).min(self.bytes.len());
        let text = String::from_utf8_lossy(self.bytes.get(self.at..end).unwrap_or(&[]));
        self.at = end;
        text.into_owned()
    }

    fn list(&mut self) -> Vec<String> {
        (0..self.count()).map(|_| self.string()).collect()
    }
}

/// The cases of one skill in a bundle, as [`decode`] gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillTasks {
    /// The cases, in file order; a [`Fixture::file`] counts from [`first_file`](Self::first_file).
    pub cases: Vec<TaskCase>,
    /// Where the skill's fixture files start in the bundle's list of them (skill after skill).
    pub first_file: u32,
    /// How many fixture files the skill has.
    pub files: u32,
}

/// The compact form of every skill's cases, skill after skill, each with the number of its
/// fixture files.
pub fn encode<'a>(skills: impl IntoIterator<Item = (&'a [TaskCase], u32)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (cases, files) in skills {
        layout::write(&mut out, files);
        layout::write(&mut out, cases.len() as u32);
        for case in cases {
            put_u64(&mut out, case.id);
            put_str(&mut out, &case.prompt);
            put_str(&mut out, &case.expected_output);
            layout::write(&mut out, u32::from(case.network));
            layout::write(&mut out, case.files.len() as u32);
            for fixture in &case.files {
                put_str(&mut out, &fixture.path);
                layout::write(&mut out, fixture.file);
                layout::write(&mut out, u32::from(fixture.executable));
            }
            layout::write(&mut out, case.assertions.len() as u32);
            for assertion in &case.assertions {
                encode_assertion(&mut out, assertion);
            }
        }
    }
    out
}

fn encode_assertion(out: &mut Vec<u8>, assertion: &Assertion) {
    let check = match assertion {
        Assertion::Graded(text) => {
            layout::write(out, 0);
            put_str(out, text);
            return;
        }
        Assertion::Check(check) => check,
    };
    match check {
        Check::FileExists { path, exists } => {
            layout::write(out, 1);
            put_str(out, path);
            layout::write(out, u32::from(*exists));
        }
        Check::FileContains { path, text } => {
            layout::write(out, 2);
            put_str(out, path);
            put_str(out, text);
        }
        Check::FileMatches { path, pattern } => {
            layout::write(out, 3);
            put_str(out, path);
            put_str(out, pattern);
        }
        Check::Command { command, exit } => {
            layout::write(out, 4);
            put_str(out, command);
            layout::write(out, *exit as u32);
        }
        Check::AnswerContains(text) => {
            layout::write(out, 5);
            put_str(out, text);
        }
        Check::Loaded(names) => {
            layout::write(out, 6);
            put_list(out, names);
        }
        Check::NotLoaded(names) => {
            layout::write(out, 7);
            put_list(out, names);
        }
        Check::MaxTurns(n) => {
            layout::write(out, 8);
            put_u64(out, *n);
        }
        Check::MaxTokens(n) => {
            layout::write(out, 9);
            put_u64(out, *n);
        }
    }
}

/// The cases of `skills` skills from their compact form, skill after skill (a damaged form
/// gives fewer or emptier cases, never a panic).
pub fn decode(bytes: &[u8], skills: usize) -> Vec<SkillTasks> {
    let mut reader = Reader { bytes, at: 0 };
    let mut first_file = 0u32;
    (0..skills)
        .map(|_| {
            let files = reader.number();
            let start = first_file;
            first_file = first_file.saturating_add(files);
            let cases = (0..reader.count())
                .map(|_| {
                    let id = reader.u64();
                    let prompt = reader.string();
                    let expected_output = reader.string();
                    let network = reader.number() == 1;
                    let files = (0..reader.count())
                        .map(|_| Fixture {
                            path: reader.string(),
                            file: reader.number(),
                            executable: reader.number() == 1,
                        })
                        .collect();
                    let assertions = (0..reader.count())
                        .filter_map(|_| decode_assertion(&mut reader))
                        .collect();
                    TaskCase {
                        id,
                        prompt,
                        expected_output,
                        files,
                        network,
                        assertions,
                    }
                })
                .collect();
            SkillTasks {
                cases,
                first_file: start,
                files,
            }
        })
        .collect()
}

fn decode_assertion(reader: &mut Reader<'_>) -> Option<Assertion> {
    let check = match reader.number() {
        0 => return Some(Assertion::Graded(reader.string())),
        1 => Check::FileExists {
            path: reader.string(),
            exists: reader.number() == 1,
        },
        2 => Check::FileContains {
            path: reader.string(),
            text: reader.string(),
        },
        3 => Check::FileMatches {
            path: reader.string(),
            pattern: reader.string(),
        },
        4 => Check::Command {
            command: reader.string(),
            exit: reader.number() as i32,
        },
        5 => Check::AnswerContains(reader.string()),
        6 => Check::Loaded(reader.list()),
        7 => Check::NotLoaded(reader.list()),
        8 => Check::MaxTurns(reader.u64()),
        9 => Check::MaxTokens(reader.u64()),
        _ => return None,
    };
    Some(Assertion::Check(check))
}

#[cfg(feature = "validate")]
mod read;

#[cfg(feature = "validate")]
pub use read::{FixtureFile, TaskFile};
#[cfg(feature = "validate")]
pub(crate) use read::{Folder, parse};

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: u64) -> TaskCase {
        TaskCase {
            id,
            prompt: "do it é".into(),
            expected_output: String::new(),
            files: vec![Fixture {
                path: "src/a.rs".into(),
                file: 3,
                executable: true,
            }],
            network: id.is_multiple_of(2),
            assertions: vec![
                Assertion::Graded("it is done".into()),
                Assertion::Check(Check::FileExists {
                    path: "a".into(),
                    exists: false,
                }),
                Assertion::Check(Check::FileContains {
                    path: "a".into(),
                    text: "x".into(),
                }),
                Assertion::Check(Check::FileMatches {
                    path: "a".into(),
                    pattern: "^x+$".into(),
                }),
                Assertion::Check(Check::Command {
                    command: "false".into(),
                    exit: -1,
                }),
                Assertion::Check(Check::AnswerContains("ok".into())),
                Assertion::Check(Check::Loaded(vec!["a".into(), "b".into()])),
                Assertion::Check(Check::NotLoaded(vec!["c".into()])),
                Assertion::Check(Check::MaxTurns(7)),
                Assertion::Check(Check::MaxTokens(u64::from(u32::MAX) + 5)),
            ],
        }
    }

    #[test]
    fn the_compact_form_round_trips() {
        let skills = [vec![case(1), case(u64::MAX)], vec![], vec![case(2)]];
        let bytes = encode(skills.iter().zip([4, 0, 1]).map(|(c, n)| (c.as_slice(), n)));
        let decoded = decode(&bytes, 3);
        let cases: Vec<Vec<TaskCase>> = decoded.iter().map(|s| s.cases.clone()).collect();
        assert_eq!(cases, skills);
        let files: Vec<(u32, u32)> = decoded.iter().map(|s| (s.first_file, s.files)).collect();
        assert_eq!(files, [(0, 4), (4, 0), (4, 1)]);
    }

    #[test]
    fn a_damaged_form_never_panics() {
        let bytes = encode([(&[case(1)][..], 2)]);
        for cut in 0..bytes.len() {
            let _ = decode(&bytes[..cut], 2);
        }
        let _ = decode(&[0xff; 40], 3);
    }

    #[test]
    fn checks_read_as_words() {
        let shown: Vec<String> = case(1).assertions.iter().map(|a| a.to_string()).collect();
        assert_eq!(
            shown,
            [
                "it is done",
                "file a does not exist",
                "file a contains \"x\"",
                "file a matches /^x+$/",
                "`false` exits with -1",
                "the answer contains \"ok\"",
                "loaded a, b",
                "did not load c",
                "at most 7 turns",
                "at most 4294967300 tokens",
            ]
        );
    }
}
