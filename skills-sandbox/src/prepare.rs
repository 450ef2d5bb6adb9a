//! The caller's side of a call: [`Policy::prepare`] gives a [`Prepared`] command to spawn, and
//! [`Call::finish`] reads what the stages reported once it has ended.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, ExitStatus};

use crate::call_dir::{self, CallDir};
use crate::confinement::{Confinement, LandlockStatus, Level};
use crate::entry;
use crate::error::SandboxError;
use crate::policy::{Entry, Mode, Policy};
use crate::probe;
use crate::report::{Report, VERSION};
use crate::wire::StagePolicy;

/// A sandboxed command ready to spawn: [`command`](Prepared::command) is a
/// [`std::process::Command`] to configure and spawn like any other (or to turn into a
/// `tokio::process::Command`), and [`call`](Prepared::call) reads the outcome once it has
/// ended.
///
/// What may be set on `command`: standard input, output and error (they reach the sandboxed
/// command unchanged), environment variables (the command gets exactly these, starting from
/// an empty environment, plus `TMPDIR`; names starting with `SKILLS_SANDBOX_` are the
/// sandbox's own and do not reach it), and the process group. Its program, arguments and
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
    /// A command that runs `program` with `args` in this sandbox, in `workdir` (read-write),
    /// to spawn and wait on as the caller likes.
    ///
    /// In [`Mode::Preferred`] and [`Mode::Required`], the first call in a process runs a probe
    /// of the kernel (a sandbox started and stopped, a few milliseconds) unless
    /// [`Policy::probe`] ran before; later calls reuse its answer.
    ///
    /// Errors: the entry line is missing or late ([`SandboxError::EntryMissing`],
    /// [`SandboxError::EntryNotFirst`]), a path is unusable ([`SandboxError::InvalidPath`]),
    /// the kernel refuses namespaces in [`Mode::Required`] ([`SandboxError::Unavailable`]), or
    /// the call's private folder cannot be made ([`SandboxError::Prepare`]).
    pub fn prepare<I, S>(
        &self,
        workdir: &Path,
        program: impl AsRef<OsStr>,
        args: I,
    ) -> Result<Prepared, SandboxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.check_entry()?;
        let workdir = checked_workdir(workdir)?;
        let (level, fallback_reason) = self.level()?;
        let stage = StagePolicy {
            level,
            probe: false,
            workdir,
            program: program.as_ref().to_owned(),
            args: args.into_iter().map(|a| a.as_ref().to_owned()).collect(),
            read_only: self.read_only.clone(),
            read_write: self.read_write.clone(),
            allow_network: self.allow_network,
            writable_vcs: self.writable_vcs,
            limits: self.limits,
        };
        self.prepare_stage(new_call_dir()?, stage, fallback_reason)
    }

    /// The level calls get: the fallback in [`Mode::Fallback`] or where the kernel refuses
    /// namespaces in [`Mode::Preferred`] (with the reason), namespaces otherwise.
    pub(crate) fn level(&self) -> Result<(Level, Option<String>), SandboxError> {
        if self.mode == Mode::Fallback {
            return Ok((Level::Fallback, None));
        }
        match probe::namespaces(&self.entry)? {
            Ok(()) => Ok((Level::Namespaces, None)),
            Err(reason) if self.mode == Mode::Required => Err(SandboxError::Unavailable { reason }),
            Err(reason) => Ok((Level::Fallback, Some(reason))),
        }
    }

    /// Refuses to re-execute the running program unless its `main` called [`enter`](crate::enter)
    /// first.
    pub(crate) fn check_entry(&self) -> Result<(), SandboxError> {
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
    /// stages.
    pub(crate) fn prepare_stage(
        &self,
        dir: CallDir,
        stage: StagePolicy,
        fallback_reason: Option<String>,
    ) -> Result<Prepared, SandboxError> {
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
            .arg0("skills-sandbox")
            .env_clear()
            .env(entry::STAGE, entry::OUTER)
            .env(entry::CALL, dir.path(""));
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
            fallback_reason: self.fallback_reason.clone(),
        }
    }
}

/// A new private folder for a call.
pub(crate) fn new_call_dir() -> Result<CallDir, SandboxError> {
    CallDir::create().map_err(|source| SandboxError::Prepare {
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

#[cfg(target_os = "linux")]
fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[cfg(not(target_os = "linux"))]
fn is_root() -> bool {
    false
}

/// The working directory as an absolute path without symbolic links; not `/`, which would
/// open the whole host.
fn checked_workdir(workdir: &Path) -> Result<PathBuf, SandboxError> {
    let real = fs::canonicalize(workdir).map_err(|_| SandboxError::InvalidPath {
        path: workdir.to_owned(),
        reason: "the working directory does not exist",
    })?;
    if !real.is_dir() {
        return Err(SandboxError::InvalidPath {
            path: workdir.to_owned(),
            reason: "the working directory is not a folder",
        });
    }
    checked_absolute(&real)?;
    Ok(real)
}

/// `path` if it is absolute, has no `..`, exists and is not `/`.
fn checked_absolute(path: &Path) -> Result<&Path, SandboxError> {
    let invalid = |reason| SandboxError::InvalidPath {
        path: path.to_owned(),
        reason,
    };
    if !path.is_absolute() {
        return Err(invalid("the path is not absolute"));
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(invalid("the path has a `..` component"));
    }
    if path.parent().is_none() {
        return Err(invalid("the path is the whole filesystem"));
    }
    if fs::symlink_metadata(path).is_err() {
        return Err(invalid("the path does not exist"));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unusable_paths_are_refused_with_the_reason() {
        for (path, reason) in [
            ("relative", "the path is not absolute"),
            ("/usr/../etc", "the path has a `..` component"),
            ("/", "the path is the whole filesystem"),
            ("/no/such/path/here", "the path does not exist"),
        ] {
            match checked_absolute(Path::new(path)) {
                Err(SandboxError::InvalidPath { reason: got, .. }) => assert_eq!(got, reason),
                other => panic!("{path}: {other:?}"),
            }
        }
        assert!(checked_absolute(Path::new("/usr")).is_ok());
        assert!(matches!(
            checked_workdir(Path::new("/")),
            Err(SandboxError::InvalidPath { .. })
        ));
    }
}
