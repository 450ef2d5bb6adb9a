//! The checks that need no model ([`Check`]), run on what one run left: its working directory
//! (opened beneath it, as the file tools open it), its answer, what it loaded, what it cost.

use std::io::Read;

use skills_bundle::Check;

use super::report::Expectation;
use crate::tools::{Bash, ToolContext};

/// Largest file a check reads.
const MAX_READ: u64 = 8 * 1024 * 1024;

/// What a run left, as the checks see it.
pub(crate) struct RunFacts<'a> {
    pub(crate) answer: &'a str,
    pub(crate) skills_loaded: &'a [String],
    pub(crate) turns: u32,
    pub(crate) tokens: u64,
}

/// The file at `path` of the working directory, opened beneath it (a link out of it is not
/// followed), read up to [`MAX_READ`].
fn read(context: &ToolContext, path: &str) -> Result<Vec<u8>, String> {
    let file = context
        .root()
        .open(path)
        .map_err(|error| format!("cannot read {path}: {error}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_READ)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read {path}: {error}"))?;
    Ok(bytes)
}

/// `text`, cut for evidence.
fn quote(text: &str) -> String {
    crate::tools::clip(text.trim(), 300)
}

/// Runs `check`; `bash` runs `command` checks, in the sandbox of the case's runs.
pub(crate) async fn run(
    check: &Check,
    facts: &RunFacts<'_>,
    context: &ToolContext,
    bash: &Bash,
) -> Expectation {
    let (passed, evidence) = match check {
        Check::FileExists { path, exists } => {
            let found = context.root().exists(path);
            let evidence = if found {
                format!("{path} exists")
            } else {
                format!("{path} does not exist")
            };
            (found == *exists, evidence)
        }
        Check::FileContains { path, text } => match read(context, path) {
            Ok(bytes) => {
                let content = String::from_utf8_lossy(&bytes);
                match content.find(text.as_str()) {
                    Some(at) => (true, format!("found in {path} at byte {at}")),
                    None => (false, format!("{path} does not contain it")),
                }
            }
            Err(error) => (false, error),
        },
        Check::FileMatches { path, pattern } => {
            match (read(context, path), regex::Regex::new(pattern)) {
                (Ok(bytes), Ok(regex)) => {
                    let content = String::from_utf8_lossy(&bytes);
                    match regex.find(&content) {
                        Some(found) => (true, format!("{path} matches: {}", quote(found.as_str()))),
                        None => (false, format!("nothing in {path} matches")),
                    }
                }
                (Err(error), _) => (false, error),
                (_, Err(error)) => (false, format!("the expression does not compile: {error}")),
            }
        }
        Check::Command { command, exit } => match bash.execute(command, None, context).await {
            Ok(executed) => {
                let (output, code) = (executed.output, executed.code);
                let status = code.map_or_else(
                    || "was ended by a signal".to_owned(),
                    |c| format!("exited with {c}"),
                );
                (
                    code == Some(*exit),
                    format!("{status}; output: {}", quote(&output)),
                )
            }
            Err(error) => (false, format!("did not run: {}", error.to_result_text())),
        },
        Check::AnswerContains(text) => {
            let found = facts.answer.contains(text.as_str());
            let evidence = if found {
                "the final answer contains it".to_owned()
            } else {
                format!("the final answer is: {}", quote(facts.answer))
            };
            (found, evidence)
        }
        Check::Loaded(names) | Check::NotLoaded(names) => {
            let want = matches!(check, Check::Loaded(_));
            let passed = names
                .iter()
                .all(|name| facts.skills_loaded.contains(name) == want);
            let loaded = if facts.skills_loaded.is_empty() {
                "no skill".to_owned()
            } else {
                facts.skills_loaded.join(", ")
            };
            (passed, format!("the run loaded {loaded}"))
        }
        Check::MaxTurns(max) => (
            u64::from(facts.turns) <= *max,
            format!("the run took {} turns", facts.turns),
        ),
        Check::MaxTokens(max) => (
            facts.tokens <= *max,
            format!("the run used {} tokens", facts.tokens),
        ),
    };
    Expectation {
        text: check.to_string(),
        passed,
        evidence,
        graded: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::BashOptions;

    #[tokio::test]
    async fn each_check_reads_what_the_run_left() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("out.txt"), "total: 42\n").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "total: 42").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
        let context = ToolContext::new(dir.path()).unwrap();
        let bash = Bash::new(BashOptions::unconfined());
        let loaded = vec!["alpha".to_owned()];
        let facts = RunFacts {
            answer: "Done: the total is 42.",
            skills_loaded: &loaded,
            turns: 3,
            tokens: 900,
        };
        let file = |path: &str| path.to_owned();
        let cases = [
            (
                Check::FileExists {
                    path: file("out.txt"),
                    exists: true,
                },
                true,
            ),
            (
                Check::FileExists {
                    path: file("none"),
                    exists: false,
                },
                true,
            ),
            (
                Check::FileExists {
                    path: file("none"),
                    exists: true,
                },
                false,
            ),
            (
                Check::FileContains {
                    path: file("out.txt"),
                    text: "42".into(),
                },
                true,
            ),
            (
                Check::FileContains {
                    path: file("out.txt"),
                    text: "43".into(),
                },
                false,
            ),
            (
                Check::FileMatches {
                    path: file("out.txt"),
                    pattern: r"total: \d+".into(),
                },
                true,
            ),
            (
                Check::FileMatches {
                    path: file("out.txt"),
                    pattern: "^x".into(),
                },
                false,
            ),
            (Check::AnswerContains("total is 42".into()), true),
            (Check::AnswerContains("43".into()), false),
            (Check::Loaded(vec!["alpha".into()]), true),
            (Check::Loaded(vec!["alpha".into(), "beta".into()]), false),
            (Check::NotLoaded(vec!["beta".into()]), true),
            (Check::NotLoaded(vec!["alpha".into()]), false),
            (Check::MaxTurns(3), true),
            (Check::MaxTurns(2), false),
            (Check::MaxTokens(900), true),
            (Check::MaxTokens(899), false),
            (
                Check::Command {
                    command: "exit 3".into(),
                    exit: 3,
                },
                true,
            ),
            (
                Check::Command {
                    command: "grep -q 42 out.txt".into(),
                    exit: 0,
                },
                true,
            ),
            (
                Check::Command {
                    command: "true".into(),
                    exit: 1,
                },
                false,
            ),
        ];
        for (check, expected) in cases {
            let outcome = run(&check, &facts, &context, &bash).await;
            assert_eq!(outcome.passed, expected, "{check}: {}", outcome.evidence);
            assert!(!outcome.graded && !outcome.evidence.is_empty());
        }
        // A link out of the working directory is not followed.
        #[cfg(unix)]
        {
            let check = Check::FileContains {
                path: file("link"),
                text: "42".into(),
            };
            let outcome = run(&check, &facts, &context, &bash).await;
            assert!(!outcome.passed, "{}", outcome.evidence);
        }
    }
}
