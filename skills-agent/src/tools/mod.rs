//! The tools the model can call: `bash`, `read_file`, `write_file`, `edit_file`, `glob` (here)
//! and `load_skill` (served by the agent from its [`SkillLoader`](skills_bundle::SkillLoader)).
//!
//! Confinement is enforced when a file is opened, not checked beforehand: a [`ToolContext`] holds
//! a directory handle of the working directory, and the file tools and `glob` open every path
//! beneath it (`openat2` with `RESOLVE_BENEATH` on Linux, through `cap-std`), so neither `..`, an
//! absolute path nor a symlink, even one swapped in while the tool runs, reaches a file outside.
//! [`ToolContext::relative`] only turns the model's text into a path relative to that handle. A
//! tool never panics the loop: a failure is a [`ToolError`] with a kind, a message and a
//! suggestion, sent back to the model as an error result. [`FailureTracker`] takes a tool out of
//! service for a while after repeated failures.

mod bash;
mod fs;
mod glob;
mod launch;
mod process;
mod sandbox;

use std::collections::HashMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::BoxFuture;
use crate::permission::Permission;

pub(crate) use launch::ENTRY_FIX;

pub use bash::{Bash, BashOptions};
pub use fs::{EditFile, ReadFile, WriteFile};
pub use glob::Glob;
pub use sandbox::{Sandbox, SandboxMode};

/// Name of the skill-loading tool.
pub const LOAD_SKILL: &str = skills_bundle::LOAD_SKILL_TOOL;
/// Name of the tool that reads a file shipped with a skill (offered when a skill has some).
pub const READ_SKILL_RESOURCE: &str = skills_core::render::READ_RESOURCE_TOOL;

/// What a tool call has to work with: the working directory, as a path (for `bash`) and as an
/// open directory handle that every file tool resolves paths beneath.
#[derive(Clone, Debug)]
pub struct ToolContext {
    workdir: PathBuf,
    root: Arc<cap_std::fs::Dir>,
    allow_hard_links: bool,
    writable_vcs: bool,
}

impl ToolContext {
    /// A context confined to `workdir`, which must exist. It is canonicalized and opened here,
    /// the only use of ambient authority: afterwards files are reached through the handle.
    pub fn new(workdir: impl AsRef<Path>) -> std::io::Result<Self> {
        let workdir = std::fs::canonicalize(workdir)?;
        let root = cap_std::fs::Dir::open_ambient_dir(&workdir, cap_std::ambient_authority())?;
        Ok(ToolContext {
            workdir,
            root: Arc::new(root),
            allow_hard_links: false,
            writable_vcs: false,
        })
    }

    /// Whether `write_file` and `edit_file` may write what the sandbox keeps read-only in the
    /// working directory for `bash` (default no): version control metadata at any depth and
    /// what git's settings make it run ([`sandbox::Protected`](crate::sandbox::Protected)). The
    /// same policy decides for both, and [`Sandbox::writable_vcs`](crate::Sandbox::writable_vcs)
    /// opens both ([`AgentBuilder::bash`](crate::AgentBuilder::bash) passes it on).
    pub fn writable_vcs(mut self, writable: bool) -> Self {
        self.writable_vcs = writable;
        self
    }

    /// Whether the file tools may write version control metadata (see
    /// [`writable_vcs`](Self::writable_vcs)).
    pub fn vcs_writable(&self) -> bool {
        self.writable_vcs
    }

    /// Whether `read_file` and `edit_file` may open a file that has more than one hard link
    /// (default no). Another link to the same file may sit outside the working directory, so
    /// by default such a file is refused; allow it when the working directory is known to
    /// hold hard links on purpose. Writes are safe either way: they replace the name (temporary
    /// file and rename), so they never change the content seen through another link.
    pub fn allow_hard_links(mut self, allow: bool) -> Self {
        self.allow_hard_links = allow;
        self
    }

    /// Whether files with several hard links may be read (see
    /// [`allow_hard_links`](Self::allow_hard_links)).
    pub fn hard_links_allowed(&self) -> bool {
        self.allow_hard_links
    }

    /// The canonical working directory.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The handle of the working directory; paths are opened beneath it.
    pub fn root(&self) -> &cap_std::fs::Dir {
        &self.root
    }

    /// The model's `path` as a path relative to the working directory, before anything is
    /// opened: an absolute path must start with the working directory (which is stripped), `.`
    /// is dropped and `..` removes the component before it, on the text, so `src/../lib.rs` is
    /// `lib.rs` whatever `src` is. Climbing above the working directory, or an absolute path
    /// elsewhere, is an [`OutsideWorkdir`](ToolErrorKind::OutsideWorkdir) error. The empty
    /// result is the working directory itself. Symlinks are not looked at here: opening beneath
    /// [`root`](Self::root) refuses those leading out.
    pub fn relative(&self, path: &str) -> Result<PathBuf, ToolError> {
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
        let path_ref = Path::new(path);
        let inside = if path_ref.is_absolute() {
            path_ref
                .strip_prefix(&self.workdir)
                .map_err(|_| outside(path))?
        } else {
            path_ref
        };
        let mut relative = PathBuf::new();
        for component in inside.components() {
            match component {
                Component::Normal(name) => relative.push(name),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !relative.pop() {
                        return Err(outside(path));
                    }
                }
                Component::RootDir | Component::Prefix(_) => return Err(outside(path)),
            }
        }
        Ok(relative)
    }

    /// A path relative to the working directory (as [`relative`](Self::relative) returns), for
    /// messages: `.` for the working directory itself.
    pub fn display(&self, relative: &Path) -> String {
        if relative.as_os_str().is_empty() {
            ".".to_owned()
        } else {
            relative.display().to_string()
        }
    }
}

/// The error for `path` leaving the working directory.
pub(crate) fn outside(path: &str) -> ToolError {
    ToolError::new(
        ToolErrorKind::OutsideWorkdir,
        format!("{path} is outside the working directory"),
    )
    .suggest("use a path relative to the working directory, without `..` or links leading out")
}

/// A failed filesystem call on `path` beneath [`ToolContext::root`] as a tool error: an attempt
/// to resolve out of the working directory is [`OutsideWorkdir`](ToolErrorKind::OutsideWorkdir).
pub(crate) fn fs_error(what: &str, path: &str, error: &std::io::Error) -> ToolError {
    // cap-std reports an escape (`EXDEV` from `openat2`, or its own check when it resolves by
    // hand) as a permission error of its own making, without an OS error code; a real `EACCES`
    // carries one.
    if error.kind() == std::io::ErrorKind::PermissionDenied && error.raw_os_error().is_none() {
        return outside(path);
    }
    ToolError::io(what, path, error)
}

/// Runs blocking filesystem work of a tool off the async runtime's threads, so a slow disk or a
/// hostile file holds up one blocking-pool thread and never the loop.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        ToolError::new(
            ToolErrorKind::Io,
            format!("the filesystem task did not finish: {e}"),
        )
    })?
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
    /// The sandbox this tool runs commands in, if it runs any (`bash`): the agent checks at
    /// [`build`](crate::AgentBuilder::build) that it can start ([`Agent::check_bash`]).
    ///
    /// [`Agent::check_bash`]: crate::Agent::check_bash
    fn sandbox(&self) -> Option<&Sandbox> {
        None
    }
    /// Runs one call. The text is the result the model sees.
    fn call<'a>(
        &'a self,
        input: &'a Value,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<String, ToolError>>;
}

/// The built-in file and shell tools with default options: `bash`, `read_file`, `write_file`,
/// `edit_file`, `glob`.
pub fn builtin_tools() -> Vec<Arc<dyn Tool>> {
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
    /// The run was cancelled (its future dropped) before the call finished.
    Interrupted,
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
            ToolErrorKind::Interrupted => "interrupted",
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
