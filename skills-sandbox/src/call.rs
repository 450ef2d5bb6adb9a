//! One call's side of the sandbox in the caller: [`Policy::prepare_stage`] writes the call's
//! policy into its private folder and gives the [`Prepared`] command that starts the stages, and
//! [`Call::finish`] reads what the stages reported once it has ended. [`Policy::prepare`]
//! (commands) and [`Policy::probe`] (no command) both build on it.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};

use crate::call_dir::{self, CallDir};
use crate::confinement::{Confinement, LandlockStatus, Level};
use crate::entry;
use crate::error::SandboxError;
use crate::names;
use crate::paths::checked_absolute;
use crate::policy::{Entry, Policy};
use crate::report::{Report, VERSION};
use crate::wire::StagePolicy;

/// A sandboxed command ready to spawn: [`command`](Prepared::command) is a
/// [`std::process::Command`] to configure and spawn like any other (or to turn into a
/// `tokio::process::Command`), and [`call`](Prepared::call) reads the outcome once it has
/// ended.
///
/// What may be set on `command`: standard input (`/dev/null` unless set), output and error
/// (they reach the sandboxed command unchanged; no other descriptor does), environment variables (the command gets exactly these, starting from
/// an empty environment, plus `TMPDIR`; names starting with `SKILLS_SANDBOX_` are the
/// sandbox's own and do not reach it), and the process group. Add variables, but do not clear
/// them (`env_clear`): the sandbox's own tell the stages what they are, and without them the
/// call ends with [`SandboxError::NotAStage`] before anything runs. Its program, arguments and
/// working directory are the sandbox's: the command runs in the `workdir` given to
/// [`Policy::prepare`], whatever `current_dir` says.
#[derive(Debug)]
pub struct Prepared {
    /// The process to spawn: the sandbox's entry program, which builds the sandbox and runs the
    /// command in it. Killing it (a timeout, a cancelled call) ends the command and everything
    /// it started.
    pub command: Command,
    /// The call's state; [`Call::finish`] turns the spawned process's exit status into the
    /// command's.
    pub call: Call,
}

/// One prepared call: its private folder (removed when the call is dropped) and what
/// [`Call::finish`] needs to read its report.
#[derive(Debug)]
pub struct Call {
    dir: CallDir,
    entry: PathBuf,
    program: OsString,
    level: Level,
    network_allowed: bool,
    vcs_writable: bool,
    fallback_reason: Option<String>,
}

/// How a sandboxed command ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    /// The command's exit status: its code, or the signal that killed it (also when the caller
    /// killed the sandbox).
    pub status: ExitStatus,
    /// What the call got.
    pub confinement: Confinement,
}

impl Policy {
    /// Whether the entry can be started (see [`Policy::check_entry`]).
    pub(crate) fn entry_ready(&self) -> Result<(), SandboxError> {
        if let Entry::Program(path) = &self.entry {
            return checked_absolute(path).map(|_| ());
        }
        match entry::threads_at_entry() {
            None => Err(SandboxError::EntryMissing),
            Some(1) => Ok(()),
            Some(threads) => Err(SandboxError::EntryNotFirst { threads }),
        }
    }

    /// Writes `stage` into the call folder `dir` and builds the command that starts the
    /// stages, once the entry program is known to be one.
    pub(crate) fn prepare_stage(
        &self,
        dir: CallDir,
        stage: StagePolicy,
        fallback_reason: Option<String>,
    ) -> Result<Prepared, SandboxError> {
        self.entry_ready()?;
        for path in self.read_only.iter().chain(&self.read_write) {
            checked_absolute(path)?;
        }
        fs::write(dir.path(call_dir::POLICY), stage.encode()).map_err(|source| {
            SandboxError::Prepare {
                action: "write the policy file",
                source,
            }
        })?;
        let entry = match &self.entry {
            Entry::CurrentExe => PathBuf::from("/proc/self/exe"),
            Entry::Program(path) => path.clone(),
        };
        let mut command = Command::new(&entry);
        command
            .arg0(names::OUTER_ARG0)
            // The caller's terminal or input never reaches the command unless it says so.
            .stdin(Stdio::null())
            .env_clear()
            .env(names::STAGE, names::OUTER)
            .env(names::CALL, dir.path(""));
        Ok(Prepared {
            command,
            call: Call {
                dir,
                entry,
                program: stage.program,
                level: stage.level,
                network_allowed: stage.allow_network,
                vcs_writable: stage.writable_vcs,
                fallback_reason,
            },
        })
    }
}

impl Call {
    /// The level this call's sandbox is built at.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The command's outcome, given the exit status of the process spawned from
    /// [`Prepared::command`]. Removes the call's private folder.
    ///
    /// Errors: the sandbox could not be built ([`SandboxError::Setup`], with the step and the
    /// system error), the program could not be started in it
    /// ([`SandboxError::CommandNotStarted`]), or the entry program is not a sandbox stage
    /// ([`SandboxError::NotAStage`]).
    pub fn finish(self, status: ExitStatus) -> Result<Finished, SandboxError> {
        self.conclude(status).map(|(finished, _)| finished)
    }

    /// [`Call::finish`], with the report it read.
    pub(crate) fn conclude(self, status: ExitStatus) -> Result<(Finished, Report), SandboxError> {
        let text = fs::read_to_string(self.dir.path(call_dir::REPORT)).unwrap_or_default();
        let report = Report::parse(&text);
        match report.version.as_deref() {
            Some(VERSION) => {}
            // Killed before its first record (a timeout of a few microseconds): the caller's
            // own doing, not a wrong entry program.
            None if status.signal().is_some() => {
                let confinement = self.confinement(&report);
                return Ok((
                    Finished {
                        status,
                        confinement,
                    },
                    report,
                ));
            }
            _ => {
                return Err(SandboxError::NotAStage {
                    entry: self.entry,
                    status,
                });
            }
        }
        if let Some((errno, step)) = &report.failed {
            return Err(SandboxError::Setup {
                source: os_error(*errno, step),
                step: step.clone(),
            });
        }
        if let Some(errno) = report.not_started {
            return Err(SandboxError::CommandNotStarted {
                program: self.program,
                source: os_error(errno, "execve"),
            });
        }
        let finished = Finished {
            // The stages report the command's status; without a report (the caller killed the
            // sandbox, or the fallback ran the command in place) the process's own status is it.
            status: report
                .outcome
                .map_or(status, |outcome| outcome.exit_status()),
            confinement: self.confinement(&report),
        };
        Ok((finished, report))
    }

    /// The report's confinement; what a stage did not get to say is assumed absent.
    pub(crate) fn confinement(&self, report: &Report) -> Confinement {
        Confinement {
            level: report.level.unwrap_or(self.level),
            landlock: report.landlock.unwrap_or(LandlockStatus::None),
            pid_max: report.pid_max,
            network_allowed: self.network_allowed,
            vcs_writable: self.vcs_writable,
            caller_is_root: is_root(),
            nobody: report.nobody,
            unprotected: report.unprotected.clone(),
            fallback_reason: self.fallback_reason.clone(),
        }
    }
}

/// A new private folder for a call at `level`.
pub(crate) fn new_call_dir(level: Level) -> Result<CallDir, SandboxError> {
    CallDir::create(level).map_err(|source| SandboxError::Prepare {
        action: "create the call's private folder",
        source,
    })
}

/// The error a stage reported: the system error `errno`, or a plain message when it is 0.
fn os_error(errno: i32, message: &str) -> io::Error {
    if errno == 0 {
        io::Error::other(message.to_owned())
    } else {
        io::Error::from_raw_os_error(errno)
    }
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}
