//! Skills with `paths:` (Claude Code's conditional skills): out of the catalog until the session
//! touches a file their globs match, then offered to the model for the rest of the session.
//!
//! The globs are read as gitignore patterns, as Claude Code reads them: a pattern without a `/`
//! (but a trailing one) matches a file or folder name at any depth (`*.sql`, `migrations`), one
//! with a `/` is anchored at the working directory (`src/api/**/*.ts`, `/Makefile`), `*` stops
//! at `/` while `**` crosses it, a matching folder covers everything beneath it, a `!pattern`
//! excludes again, and the last pattern that matches decides. A skill whose patterns match
//! everything (`**`, `*`) is not conditional.
//!
//! A file is touched when `read_file`, `write_file` or `edit_file` works on it, or when a `bash`
//! command names it as one of its words (Claude Code looks at reads and edits only): the words of
//! the command, split at blanks and shell operators, quotes removed, with the value of an
//! `--option=value`.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;
use skills_bundle::{Registry, Skill};

use crate::conversation::ToolCall;
use crate::tools::ToolContext;

/// The conditional skills of an agent, their globs compiled once.
#[derive(Clone, Debug, Default)]
pub(crate) struct PathSkills {
    skills: Vec<PathSkill>,
}

#[derive(Clone, Debug)]
struct PathSkill {
    skill: &'static Skill,
    rules: Vec<Rule>,
}

/// One pattern: matchers for the path itself and for what lies beneath a matching folder.
#[derive(Clone, Debug)]
struct Rule {
    matchers: Vec<GlobMatcher>,
    negated: bool,
}

impl PathSkills {
    /// The skills of `registry` the model may load that list `paths` (and do not match
    /// everything).
    pub(crate) fn new(registry: &Registry) -> PathSkills {
        let skills = registry
            .iter()
            .filter(|skill| skill.model_invocable() && !skill.paths().is_empty())
            .filter_map(|skill| {
                let rules: Vec<Rule> = skill
                    .paths()
                    .iter()
                    .filter_map(|pattern| compile(skill.name(), pattern))
                    .collect();
                let everything = skill.paths().iter().any(|p| matches_everything(p));
                (!everything).then_some(PathSkill { skill, rules })
            })
            .collect();
        PathSkills { skills }
    }

    /// Whether the model sees `name` only once a file matching its `paths` was touched.
    pub(crate) fn is_conditional(&self, name: &str) -> bool {
        self.skills.iter().any(|s| s.skill.name() == name)
    }

    /// Whether there are conditional skills at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The conditional skills whose patterns match `path` (relative to the working directory,
    /// `/`-separated).
    pub(crate) fn matching<'a>(
        &'a self,
        path: &'a str,
    ) -> impl Iterator<Item = &'static Skill> + 'a {
        self.skills
            .iter()
            .filter(move |s| {
                s.rules
                    .iter()
                    .rev()
                    .find(|rule| rule.matchers.iter().any(|m| m.is_match(path)))
                    .is_some_and(|rule| !rule.negated)
            })
            .map(|s| s.skill)
    }
}

/// A pattern that matches every path: such a skill is not conditional.
fn matches_everything(pattern: &str) -> bool {
    matches!(
        pattern.trim().trim_start_matches("./"),
        "*" | "**" | "**/*" | "/**" | "/**/*" | "."
    )
}

/// `pattern` as gitignore reads it; `None` (with a warning) when it is empty or not a glob.
fn compile(skill: &str, pattern: &str) -> Option<Rule> {
    let trimmed = pattern.trim();
    let (negated, text) = match trimmed.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, trimmed),
    };
    let text = text.strip_prefix("./").unwrap_or(text);
    let text = text.strip_suffix('/').unwrap_or(text);
    if text.is_empty() {
        return None;
    }
    // A `/` before the end anchors the pattern at the working directory.
    let anchored = text.contains('/');
    let text = text.trim_start_matches('/');
    let base = if anchored {
        text.to_owned()
    } else {
        format!("**/{text}")
    };
    let mut matchers = Vec::with_capacity(2);
    for glob in [base.clone(), format!("{base}/**")] {
        match GlobBuilder::new(&glob).literal_separator(true).build() {
            Ok(glob) => matchers.push(glob.compile_matcher()),
            Err(error) => {
                tracing::warn!(
                    skill,
                    pattern,
                    %error,
                    "a `paths` pattern is not a glob; it matches nothing"
                );
                return None;
            }
        }
    }
    Some(Rule { matchers, negated })
}

/// The paths `call` works on, relative to the working directory and `/`-separated: a file
/// tool's `path`, or the words of a `bash` command that name a place in the working directory.
pub(crate) fn touched_paths(call: &ToolCall, context: &ToolContext) -> Vec<String> {
    let input = &call.input;
    let candidates: Vec<&str> = match call.name.as_str() {
        "read_file" | "write_file" | "edit_file" => input
            .get("path")
            .and_then(Value::as_str)
            .into_iter()
            .collect(),
        "bash" => input
            .get("command")
            .and_then(Value::as_str)
            .map(command_words)
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let mut paths: Vec<String> = candidates
        .into_iter()
        .filter_map(|word| context.relative(word).ok())
        .filter(|relative| !relative.as_os_str().is_empty())
        .filter_map(|relative| slash_path(&relative))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// `path` with `/` between its components, when it is UTF-8.
fn slash_path(path: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = path.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// The words of a shell command that may be paths: split at blanks and at `; & | ( ) < >`,
/// quotes removed, the value of `--option=value`; flags, variables and substitutions left out.
fn command_words(command: &str) -> Vec<&str> {
    command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>'))
        .map(|word| word.trim_matches(|c| matches!(c, '"' | '\'' | '`')))
        .map(|word| match word.split_once('=') {
            Some((name, value)) if name.starts_with('-') => value,
            _ => word,
        })
        .filter(|word| {
            !word.is_empty() && !word.starts_with('-') && !word.contains(['$', '`', '*', '?'])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(patterns: &[&str]) -> Vec<Rule> {
        patterns.iter().filter_map(|p| compile("test", p)).collect()
    }

    fn matches(patterns: &[&str], path: &str) -> bool {
        rules(patterns)
            .iter()
            .rev()
            .find(|rule| rule.matchers.iter().any(|m| m.is_match(path)))
            .is_some_and(|rule| !rule.negated)
    }

    #[test]
    fn patterns_match_as_gitignore_does() {
        // No slash: a name at any depth.
        assert!(matches(&["*.sql"], "schema.sql"));
        assert!(matches(&["*.sql"], "db/migrations/001.sql"));
        assert!(!matches(&["*.sql"], "schema.sql.bak"));
        assert!(matches(&["migrations"], "db/migrations/001.sql"));
        // A slash anchors; `*` stays within a folder, `**` crosses folders.
        assert!(matches(&["src/*.ts"], "src/a.ts"));
        assert!(!matches(&["src/*.ts"], "src/api/a.ts"));
        assert!(!matches(&["src/*.ts"], "lib/src/a.ts"));
        assert!(matches(&["src/**/*.ts"], "src/api/v1/a.ts"));
        assert!(matches(&["/Makefile"], "Makefile"));
        assert!(!matches(&["/Makefile"], "sub/Makefile"));
        // A folder covers what is beneath it; a trailing slash changes nothing for files.
        assert!(matches(&["docs/"], "docs/guide/intro.md"));
        assert!(matches(&["src/**"], "src/x/y.rs"));
        // The last matching pattern decides.
        assert!(!matches(&["*.ts", "!*.test.ts"], "src/a.test.ts"));
        assert!(matches(&["*.ts", "!*.test.ts"], "src/a.ts"));
        assert!(matches(&["!*.test.ts", "*.ts"], "src/a.test.ts"));
    }

    #[test]
    fn a_pattern_of_everything_is_not_a_condition() {
        for pattern in ["**", "*", "./**", "**/*"] {
            assert!(matches_everything(pattern), "{pattern}");
        }
        assert!(!matches_everything("src/**"));
    }

    #[test]
    fn command_words_are_the_paths_a_command_names() {
        assert_eq!(
            command_words("psql -f db/schema.sql && cat 'notes/a b.md'"),
            ["psql", "db/schema.sql", "cat", "notes/a", "b.md"]
        );
        assert_eq!(
            command_words("sqlite3 --init=setup.sql x.db <in.sql >$OUT"),
            ["sqlite3", "setup.sql", "x.db", "in.sql"]
        );
        // Globs and variables are left out: nothing says which files they stand for.
        assert_eq!(command_words("ls *.sql $(cat list)"), ["ls", "cat", "list"]);
    }
}
