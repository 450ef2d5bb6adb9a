//! The tools the model can call: `bash`, `read_file`, `write_file`, `edit_file`, `glob` (here)
//! and `load_skill` (served by the agent from its [`SkillLoader`](crate::SkillLoader)).
//!
//! Every path a tool touches goes through [`confine`]: it must stay inside the working directory
//! after `..` and symlinks are resolved. A tool never panics the loop: a failure is a
//! [`ToolError`] with a kind, a message and a suggestion, sent back to the model as an error
//! result. [`FailureTracker`] takes a tool out of service for a while after repeated failures.

pub mod bash;
pub mod fs;
pub mod glob;
mod process;
pub mod sandbox;

use std::collections::HashMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::permission::Permission;
use super::retry::BoxFuture;

pub use bash::{Bash, BashOptions};
pub use fs::{EditFile, ReadFile, WriteFile};
pub use glob::Glob;
pub use sandbox::{Confinement, Sandbox, SandboxMode};

/// Name of the skill-loading tool.
pub const LOAD_SKILL: &str = crate::LOAD_SKILL_TOOL;
/// Name of the tool that reads a file shipped with a skill (offered when a skill has some).
pub const READ_SKILL_RESOURCE: &str = skills_core::render::READ_RESOURCE_TOOL;

/// What a tool call has to work with.
#[derive(Clone, Debug)]
pub struct ToolContext {
    workdir: PathBuf,
}

impl ToolContext {
    /// A context confined to `workdir`, which must exist (it is canonicalized here, so later
    /// checks compare real paths).
    pub fn new(workdir: impl AsRef<Path>) -> std::io::Result<Self> {
        Ok(ToolContext {
            workdir: std::fs::canonicalize(workdir)?,
        })
    }

    /// The canonical working directory.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// `path` resolved inside the working directory (see [`confine`]).
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        confine(&self.workdir, path)
    }

    /// `path` relative to the working directory, for messages.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.workdir)
            .map(|p| {
                if p.as_os_str().is_empty() {
                    ".".to_owned()
                } else {
                    p.display().to_string()
                }
            })
            .unwrap_or_else(|_| path.display().to_string())
    }
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// JSON schema of its input object.
    fn input_schema(&self) -> Value;
    /// The permission it gets when the policy says nothing about it: [`Permission::Ask`] for
    /// tools that change things, [`Permission::Allow`] for read-only ones.
    fn default_permission(&self) -> Permission;
    /// Runs one call. The text is the result the model sees.
    fn call<'a>(
        &'a self,
        input: &'a Value,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<String, ToolError>>;
}

/// The built-in file and shell tools with default options: `bash`, `read_file`, `write_file`,
/// `edit_file`, `glob`.
pub fn builtin() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Bash::default()),
        Arc::new(ReadFile),
        Arc::new(WriteFile),
        Arc::new(EditFile),
        Arc::new(Glob),
    ]
}

/// The class of a tool failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The input does not match the schema.
    InvalidInput,
    /// The path leaves the working directory.
    OutsideWorkdir,
    /// The file or text was not found.
    NotFound,
    /// The permission policy, a hook, the user or the deny list refused the call.
    Denied,
    /// The call ran longer than its timeout.
    Timeout,
    /// An operating-system error.
    Io,
    /// The tool failed repeatedly and is resting.
    Unavailable,
    /// No tool of that name is offered.
    UnknownTool,
    /// The skill asked for does not exist.
    UnknownSkill,
}

impl ToolErrorKind {
    /// The snake_case label the model sees.
    pub fn label(self) -> &'static str {
        match self {
            ToolErrorKind::InvalidInput => "invalid_input",
            ToolErrorKind::OutsideWorkdir => "outside_workdir",
            ToolErrorKind::NotFound => "not_found",
            ToolErrorKind::Denied => "denied",
            ToolErrorKind::Timeout => "timeout",
            ToolErrorKind::Io => "io_error",
            ToolErrorKind::Unavailable => "unavailable",
            ToolErrorKind::UnknownTool => "unknown_tool",
            ToolErrorKind::UnknownSkill => "unknown_skill",
        }
    }
}

/// A failed tool call, as the model will read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    /// The class of failure.
    pub kind: ToolErrorKind,
    /// What went wrong.
    pub message: String,
    /// What to try instead, when known.
    pub suggestion: Option<String>,
}

impl ToolError {
    /// A new error without suggestion.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            suggestion: None,
        }
    }

    /// Adds a suggestion.
    pub fn suggest(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    /// The error result text: `error (kind): message`, then `suggestion: ...`.
    pub fn to_result_text(&self) -> String {
        let mut out = format!("error ({}): {}", self.kind.label(), self.message);
        if let Some(suggestion) = &self.suggestion {
            out.push_str("\nsuggestion: ");
            out.push_str(suggestion);
        }
        out
    }

    pub(crate) fn io(what: &str, path: &str, error: &std::io::Error) -> Self {
        let kind = if error.kind() == std::io::ErrorKind::NotFound {
            ToolErrorKind::NotFound
        } else {
            ToolErrorKind::Io
        };
        let error = ToolError::new(kind, format!("cannot {what} {path}: {error}"));
        if kind == ToolErrorKind::NotFound {
            error.suggest("use glob to list the files that exist")
        } else {
            error
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_result_text())
    }
}

impl std::error::Error for ToolError {}

/// Resolves `path` (relative to `workdir`, or absolute) and checks that it stays inside
/// `workdir`, which must be canonical.
///
/// The longest existing prefix is canonicalized, which resolves `..` and every symlink in it; the
/// rest (a file or folders about to be created) may not contain `..`. So `../x`, `/etc/passwd`
/// and a symlink pointing outside are all refused, while a path to a new file is fine.
pub fn confine(workdir: &Path, path: &str) -> Result<PathBuf, ToolError> {
    if path.is_empty() {
        return Err(ToolError::new(
            ToolErrorKind::InvalidInput,
            "the path is empty",
        ));
    }
    if path.contains('\0') {
        return Err(ToolError::new(
            ToolErrorKind::InvalidInput,
            "the path contains a NUL byte",
        ));
    }
    let joined = workdir.join(path);
    // Find the longest prefix that exists; canonicalize it, then re-append the rest.
    let mut existing = joined.as_path();
    let mut rest = Vec::new();
    let real = loop {
        match std::fs::canonicalize(existing) {
            Ok(real) => break real,
            // It exists but does not resolve: a dangling symlink, whose target could be
            // anywhere (writing through it would create a file outside).
            Err(_) if std::fs::symlink_metadata(existing).is_ok() => {
                return Err(outside(path));
            }
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_owned());
                    existing = parent;
                }
                // `..` at the end of a missing path, or the root: cannot resolve.
                _ => {
                    return Err(outside(path));
                }
            },
        }
    };
    // `file_name` is None for `..` and `.`, so a missing path ending in one landed above;
    // a `..` in the middle of the missing part must be refused explicitly.
    let missing = joined.strip_prefix(existing).unwrap_or(Path::new(""));
    if missing
        .components()
        .any(|c| matches!(c, Component::ParentDir))
    {
        return Err(outside(path));
    }
    let mut resolved = real;
    for name in rest.iter().rev() {
        resolved.push(name);
    }
    if resolved.starts_with(workdir) {
        Ok(resolved)
    } else {
        Err(outside(path))
    }
}

fn outside(path: &str) -> ToolError {
    ToolError::new(
        ToolErrorKind::OutsideWorkdir,
        format!("{path} is outside the working directory"),
    )
    .suggest("use a path relative to the working directory, without `..` or links leading out")
}

/// A string field of a tool input.
pub(crate) fn str_arg<'a>(input: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    if !input.is_object() {
        return Err(ToolError::new(
            ToolErrorKind::InvalidInput,
            format!(
                "the input must be a JSON object, got: {}",
                clip(&input.to_string(), 200)
            ),
        )
        .suggest(format!("pass {{\"{key}\": ...}}")));
    }
    match input.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ToolError::new(
            ToolErrorKind::InvalidInput,
            format!("`{key}` must be a string, got {other}"),
        )),
        None => Err(ToolError::new(
            ToolErrorKind::InvalidInput,
            format!("missing required field `{key}`"),
        )),
    }
}

/// An optional non-negative integer field of a tool input.
pub(crate) fn uint_arg(input: &Value, key: &str) -> Result<Option<u64>, ToolError> {
    match input.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
            .map(Some)
            .ok_or_else(|| {
                ToolError::new(
                    ToolErrorKind::InvalidInput,
                    format!("`{key}` must be a non-negative integer, got {value}"),
                )
            }),
    }
}

/// `text` cut to at most `max` characters.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Takes a tool out of service after repeated failures.
///
/// When a tool fails `threshold` times in a row (default 3) and the first of those failures is
/// at most `window` ago (default 5 minutes), it is unavailable for `cooldown` (default 2 minutes):
/// calls return an `unavailable` error without running it. A success resets the count.
#[derive(Clone, Debug)]
pub struct FailureTracker {
    threshold: u32,
    window: Duration,
    cooldown: Duration,
    state: HashMap<String, Health>,
}

#[derive(Clone, Debug, Default)]
struct Health {
    failures: Vec<Instant>,
    resting_until: Option<Instant>,
}

impl Default for FailureTracker {
    fn default() -> Self {
        FailureTracker::new(3, Duration::from_secs(300), Duration::from_secs(120))
    }
}

impl FailureTracker {
    /// A tracker with explicit limits.
    pub fn new(threshold: u32, window: Duration, cooldown: Duration) -> Self {
        FailureTracker {
            threshold: threshold.max(1),
            window,
            cooldown,
            state: HashMap::new(),
        }
    }

    /// `Err` when `tool` is resting at `now`.
    pub fn check(&mut self, tool: &str, now: Instant) -> Result<(), ToolError> {
        let Some(health) = self.state.get_mut(tool) else {
            return Ok(());
        };
        match health.resting_until {
            Some(until) if now < until => Err(ToolError::new(
                ToolErrorKind::Unavailable,
                format!(
                    "{tool} failed {} times in a row and is unavailable for another {} s",
                    self.threshold,
                    (until - now).as_secs().max(1)
                ),
            )
            .suggest("use another tool or approach, or finish with what you have")),
            Some(_) => {
                *health = Health::default();
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Records the outcome of a call of `tool` at `now`.
    pub fn record(&mut self, tool: &str, success: bool, now: Instant) {
        let health = self.state.entry(tool.to_owned()).or_default();
        if success {
            *health = Health::default();
            return;
        }
        health.failures.push(now);
        let window = self.window;
        health
            .failures
            .retain(|t| now.saturating_duration_since(*t) <= window);
        if health.failures.len() as u32 >= self.threshold {
            health.resting_until = Some(now + self.cooldown);
            health.failures.clear();
            tracing::warn!(
                tool,
                cooldown_s = self.cooldown.as_secs(),
                "tool failed repeatedly; resting"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracker_rests_after_three_failures_in_window() {
        let mut tracker = FailureTracker::default();
        let t0 = Instant::now();
        tracker.record("bash", false, t0);
        tracker.record("bash", false, t0 + Duration::from_secs(10));
        assert!(tracker.check("bash", t0 + Duration::from_secs(11)).is_ok());
        tracker.record("bash", false, t0 + Duration::from_secs(20));
        let err = tracker
            .check("bash", t0 + Duration::from_secs(21))
            .unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::Unavailable);
        // Other tools are unaffected; after the cooldown it is back.
        assert!(tracker.check("glob", t0).is_ok());
        assert!(tracker.check("bash", t0 + Duration::from_secs(200)).is_ok());
    }

    #[test]
    fn tracker_forgets_old_failures_and_successes_reset() {
        let mut tracker = FailureTracker::default();
        let t0 = Instant::now();
        tracker.record("x", false, t0);
        tracker.record("x", false, t0 + Duration::from_secs(10));
        // Third failure more than 5 minutes after the first: only two in the window.
        tracker.record("x", false, t0 + Duration::from_secs(400));
        assert!(tracker.check("x", t0 + Duration::from_secs(401)).is_ok());
        tracker.record("y", false, t0);
        tracker.record("y", false, t0);
        tracker.record("y", true, t0);
        tracker.record("y", false, t0);
        assert!(tracker.check("y", t0).is_ok());
    }
}
