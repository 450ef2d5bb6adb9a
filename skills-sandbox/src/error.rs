//! [`SandboxError`]: every way preparing, building or finishing a sandboxed call can fail.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;

/// Why a command could not be sandboxed, or why the sandbox failed around it. A command that
/// ran and failed is not an error: its status is in [`Finished`](crate::Finished).
#[derive(Debug)]
#[non_exhaustive]
pub enum SandboxError {
    /// [`enter`](crate::enter) did not run in this program, so re-executing it as the sandbox's
    /// entry would start a second copy of the program instead.
    EntryMissing,
    /// [`enter`](crate::enter) ran after other threads had started: the sandbox's stages, which
    /// are this program started again, would run it at the same point, too late to create a
    /// user namespace.
    EntryNotFirst {
        /// Threads of the process when `enter` ran.
        threads: usize,
    },
    /// A path of the call or the policy the sandbox cannot use.
    InvalidPath {
        /// The path.
        path: PathBuf,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Preparing the call on the caller's side failed (its private folder, the policy file).
    Prepare {
        /// What was being done.
        action: &'static str,
        /// The error.
        source: io::Error,
    },
    /// [`Mode::Required`](crate::Mode::Required), and this kernel refuses the namespaces (or
    /// [`Mode::Required`](crate::Mode::Required) or [`Mode::Fallback`](crate::Mode::Fallback)
    /// outside Linux, where there is no sandbox).
    Unavailable {
        /// What the kernel refused.
        reason: String,
    },
    /// The policy is [`Mode::Off`](crate::Mode::Off): there is no sandbox to prepare, and the
    /// caller runs the command itself.
    Off,
    /// A stage of the sandbox failed while building it: the command did not run.
    Setup {
        /// The step that failed.
        step: String,
        /// The error of the system call, or (no system error) one of kind `Other` holding the
        /// step's message.
        source: io::Error,
    },
    /// The sandbox was built, but the command could not be started in it (not found, not
    /// executable).
    CommandNotStarted {
        /// The program.
        program: OsString,
        /// The error of `execve`.
        source: io::Error,
    },
    /// The entry program ended without saying it ran as a sandbox stage: it does not call
    /// [`enter`](crate::enter) first, or it is built with another version of this crate.
    NotAStage {
        /// The entry program.
        entry: PathBuf,
        /// How it ended.
        status: ExitStatus,
    },
}

impl SandboxError {
    /// Whether the error is the kernel refusing the namespaces ([`SandboxError::Unavailable`]).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, SandboxError::Unavailable { .. })
    }

    /// Whether the error is the command's program missing or not executable.
    pub fn is_command_not_started(&self) -> bool {
        matches!(self, SandboxError::CommandNotStarted { .. })
    }
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxError::EntryMissing => f.write_str(
                "the sandbox entry did not run: call `skills_sandbox::enter()` as the first line \
                 of `main`, before any thread starts",
            ),
            SandboxError::EntryNotFirst { threads } => write!(
                f,
                "`skills_sandbox::enter()` ran with {threads} threads already started: call it \
                 as the first line of a plain `fn main`, before any runtime such as \
                 `#[tokio::main]` starts its threads"
            ),
            SandboxError::InvalidPath { path, reason } => {
                write!(f, "cannot sandbox with {}: {reason}", path.display())
            }
            SandboxError::Prepare { action, source } => {
                write!(f, "cannot prepare the sandbox: {action}: {source}")
            }
            SandboxError::Unavailable { reason } => write!(
                f,
                "the sandbox is required, but this kernel refuses its namespaces: {reason}"
            ),
            SandboxError::Off => f.write_str(
                "the sandbox is off (`Mode::Off`): run the command without preparing a sandbox",
            ),
            // A step without a system error (errno 0) is its own message.
            SandboxError::Setup { step, source } if source.raw_os_error().is_none() => {
                write!(f, "the sandbox could not be built: {step}")
            }
            SandboxError::Setup { step, source } => {
                write!(f, "the sandbox could not be built: {step}: {source}")
            }
            SandboxError::CommandNotStarted { program, source } => write!(
                f,
                "the sandboxed command {} could not be started: {source}",
                program.to_string_lossy()
            ),
            SandboxError::NotAStage { entry, status } => write!(
                f,
                "the sandbox entry program {} did not run as a sandbox stage ({status}): its \
                 `main` must call `skills_sandbox::enter()` first, with this version of \
                 skills-sandbox",
                entry.display()
            ),
        }
    }
}

impl std::error::Error for SandboxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SandboxError::Prepare { source, .. }
            | SandboxError::Setup { source, .. }
            | SandboxError::CommandNotStarted { source, .. } => Some(source),
            _ => None,
        }
    }
}
