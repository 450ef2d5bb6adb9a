//! The stages: copies of the program, started by [`enter`](crate::enter)'s caller through this
//! crate, that build the sandbox and run the command in it.
//!
//! - `outer` is the process the caller spawns. It creates the namespaces (a single-threaded
//!   process can), maps the caller's ids into the user namespace, starts the inner stage, and
//!   ends the way the command ended. Killing it kills the inner stage (parent-death signal),
//!   and with it everything of the call.
//! - `init` (namespaces) is the first process of the new PID namespace: it builds the new root,
//!   mounts `/proc` (only a process inside the namespace can), applies the limits, drops every
//!   capability, restricts a thread of its own with Landlock and seccomp, has it start the
//!   command, and reaps until the command ends. When it exits, the kernel kills every process
//!   left in the namespace.
//! - Without namespaces the outer stage restricts itself the same way and becomes the command
//!   (a `fallback` stage does it when the outer stage leads a process group, which cannot start
//!   a new session).
//!
//! Every stage starts by closing every descriptor above the standard streams that it inherited
//! (the caller's leaks, its launcher's), so the command gets only its standard streams. Stages
//! write nothing to those, which belong to the command: they append records to the call's report
//! file.

// The stages.
mod fallback;
mod init;
mod outer;

// What only the stages use: each returns the stages' `Failure`.
mod capabilities;
mod identity;
mod limits;
mod loopback;
mod root;
mod seccomp;

use std::convert::Infallible;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::Path;

use crate::call_dir;
use crate::names::{self, EXIT_SETUP_FAILED};
use crate::report::ReportFile;
use crate::wire::StagePolicy;

/// Runs the stage named `stage`; never returns.
pub(crate) fn run(stage: &OsStr) -> ! {
    // First: whatever the caller, or whoever started it, left open without close-on-exec (a
    // socket, a file, a folder, a terminal) goes before anything else happens, so that nothing
    // of it reaches the command.
    let closed = crate::sys::close_inherited(3);
    let Some(dir) = std::env::var_os(names::CALL) else {
        eprintln!("skills-sandbox: started as a sandbox stage without a call folder");
        std::process::exit(EXIT_SETUP_FAILED);
    };
    let dir = Path::new(&dir);
    let report = match open_report(dir) {
        Ok(file) => ReportFile(file),
        Err(error) => {
            // Nowhere else to say it: the caller sees a call without a report.
            eprintln!(
                "skills-sandbox: cannot open the report of {}: {error}",
                dir.display()
            );
            std::process::exit(EXIT_SETUP_FAILED);
        }
    };
    if let Err(error) = closed {
        report.failed("close the descriptors the sandbox inherited", &error);
        std::process::exit(EXIT_SETUP_FAILED);
    }
    let result = match stage.to_str() {
        Some(names::OUTER) => outer::run(dir, &report),
        Some(names::FALLBACK) => fallback::run(dir, &report),
        _ => Err(Failure::message(format!(
            "unknown sandbox stage {}",
            stage.to_string_lossy()
        ))),
    };
    let Err(failure) = result;
    report.failed(&failure.step, &failure.error);
    std::process::exit(EXIT_SETUP_FAILED);
}

/// A setup step that failed, and the error of its system call.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) step: String,
    pub(crate) error: io::Error,
}

impl Failure {
    /// A failure with no system error behind it.
    pub(crate) fn message(step: String) -> Failure {
        Failure {
            error: io::Error::other(step.clone()),
            step,
        }
    }
}

/// Names the step of a fallible system call, for the report.
pub(crate) trait Step<T> {
    /// The value, or a [`Failure`] of `step`.
    fn step(self, step: impl FnOnce() -> String) -> Result<T, Failure>;
}

impl<T> Step<T> for io::Result<T> {
    fn step(self, step: impl FnOnce() -> String) -> Result<T, Failure> {
        self.map_err(|error| Failure {
            step: step(),
            error,
        })
    }
}

impl<T> Step<T> for rustix::io::Result<T> {
    fn step(self, step: impl FnOnce() -> String) -> Result<T, Failure> {
        self.map_err(io::Error::from).step(step)
    }
}

/// What a stage returns when it does not end the process itself: only failures.
pub(crate) type StageResult = Result<Infallible, Failure>;

/// The report file, for appending records (and reading them back).
fn open_report(dir: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(dir.join(call_dir::REPORT))
}

/// The call's policy.
pub(crate) fn read_policy(dir: &Path) -> Result<StagePolicy, Failure> {
    let bytes = fs::read(dir.join(call_dir::POLICY)).step(|| "read the policy file".to_owned())?;
    StagePolicy::decode(&bytes).ok_or_else(|| {
        Failure::message(format!(
            "the policy file is damaged or was written by another version than {}",
            crate::report::VERSION
        ))
    })
}

/// The environment the command gets: this stage's, without the sandbox's own variables.
pub(crate) fn command_env() -> impl Iterator<Item = (OsString, OsString)> {
    std::env::vars_os().filter(|(name, _)| {
        !name
            .as_encoded_bytes()
            .starts_with(names::ENV_PREFIX.as_bytes())
    })
}

/// Reports that the command could not be executed, and ends the stage.
pub(crate) fn not_started(report: &ReportFile, error: &io::Error) -> ! {
    report.write(&crate::report::Record::NotStarted {
        errno: error.raw_os_error().unwrap_or(0),
    });
    std::process::exit(EXIT_SETUP_FAILED);
}

/// Takes the parent-death signal, so that this stage dies with the stage that started it, and
/// checks that that stage is still there (it holds a lock on the report for as long as it
/// lives): otherwise nobody waits for this one, and it stops.
pub(crate) fn die_with_parent(report: &ReportFile) -> Result<(), Failure> {
    use rustix::fs::{FlockOperation, flock};
    use rustix::process::{Signal, set_parent_process_death_signal};
    set_parent_process_death_signal(Some(Signal::KILL))
        .step(|| "take the parent-death signal".to_owned())?;
    if flock(&report.0, FlockOperation::NonBlockingLockExclusive).is_ok() {
        std::process::exit(EXIT_SETUP_FAILED);
    }
    Ok(())
}
