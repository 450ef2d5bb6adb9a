//! The outer stage: the process the caller spawned. It creates the namespaces, starts the inner
//! stage, and ends the way the command ended (in the fallback it becomes the command itself).

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus};

use rustix::fs::{FlockOperation, flock};
use rustix::process::{
    Resource, Rlimit, Signal, getegid, geteuid, getpid, kill_process, setrlimit,
};
use rustix::thread::UnshareFlags;

use super::{Failure, StageResult, Step, fallback, read_policy};
use crate::capabilities;
use crate::confinement::Level;
use crate::identity;
use crate::names::{self, EXIT_SETUP_FAILED};
use crate::report::{Outcome, Record, Report, ReportFile, VERSION};
use crate::wire::StagePolicy;

pub(super) fn run(dir: &Path, report: &ReportFile) -> StageResult {
    // Held until this process ends: the inner stage checks it to know that it has a parent.
    flock(&report.0, FlockOperation::LockExclusive).step(|| "lock the report".to_owned())?;
    report.write(&Record::Started {
        version: VERSION.to_owned(),
    });
    let threads = crate::threads::thread_count();
    if threads > 1 {
        return Err(Failure::message(format!(
            "`skills_sandbox::enter()` ran with {threads} threads already started: call it as \
             the first line of a plain `fn main`, before any thread starts"
        )));
    }
    let policy = read_policy(dir)?;
    report.write(&Record::Level(policy.level));
    let host_root = policy.level == Level::Namespaces && identity::is_host_root();
    let inner = match policy.level {
        Level::Namespaces => {
            enter_namespaces(&policy, host_root)?;
            names::INIT
        }
        // A process group leader cannot start a session: then a stage of its own does.
        Level::Fallback => match rustix::process::setsid() {
            Ok(_) => return fallback::become_the_command(dir, &policy, report),
            Err(_) => names::FALLBACK,
        },
    };
    // The same binary again, as the inner stage: it inherits the standard streams and the
    // environment (the command's, and the call folder).
    let mut command = Command::new("/proc/self/exe");
    command
        .arg0(format!("skills-sandbox-{inner}"))
        .env(names::STAGE, inner);
    let status = if host_root {
        // The init stage builds the sandbox as root; this stage, meanwhile, becomes the
        // namespace in which the command will be nobody to the host.
        let lock = identity::NobodyLock::take(dir)?;
        command.env(names::NOBODY_OWNER, getpid().as_raw_nonzero().to_string());
        let mut child = command
            .spawn()
            .step(|| "start the sandbox's inner stage".to_owned())?;
        // A failure here leaves the command root to the host's files; the init stage says so.
        let _ = identity::become_nobody(lock);
        child.wait()
    } else {
        command.status()
    }
    .step(|| "start the sandbox's inner stage".to_owned())?;
    let told = read_back(report);
    if told.has_failure() {
        std::process::exit(EXIT_SETUP_FAILED);
    }
    if policy.probe && told.ready {
        std::process::exit(0);
    }
    let outcome = match (told.outcome, policy.level) {
        (Some(outcome), _) => outcome,
        // The fallback stage became the command: its status is the command's.
        (None, Level::Fallback) if !policy.probe => {
            let outcome = outcome_of(status);
            report.write(&match outcome {
                Outcome::Exited(code) => Record::Exited(code),
                Outcome::Signaled(signal) => Record::Signaled(signal),
            });
            outcome
        }
        _ => {
            return Err(Failure::message(format!(
                "the sandbox's inner stage ended before the command did ({status})"
            )));
        }
    };
    end_like(outcome)
}

/// New user, mount, PID, IPC, UTS and (unless the network is allowed) network namespaces, with
/// the caller's uid and gid mapped to themselves, and the capabilities the init stage needs
/// handed on to it. The host's root needs no user namespace to make the others: its command
/// gets one of its own later (see [`identity`]).
fn enter_namespaces(policy: &StagePolicy, host_root: bool) -> Result<(), Failure> {
    let uid = geteuid();
    let gid = getegid();
    let mut flags =
        UnshareFlags::NEWNS | UnshareFlags::NEWPID | UnshareFlags::NEWIPC | UnshareFlags::NEWUTS;
    if !host_root {
        flags |= UnshareFlags::NEWUSER;
    }
    if !policy.allow_network {
        flags |= UnshareFlags::NEWNET;
    }
    // rustix deprecates its safe `unshare` because `CLONE_FILES` could let threads see each
    // other's descriptors disappear; this process has one thread and never passes it.
    #[expect(deprecated, reason = "safe without CLONE_FILES, which is never passed")]
    rustix::thread::unshare(flags)
        .step(|| "create the user, mount, PID, IPC, UTS and network namespaces".to_owned())?;
    if host_root {
        return Ok(());
    }
    identity::map_own_ids(uid, gid)?;
    if !uid.is_root() {
        capabilities::hand_to_init()?;
    }
    Ok(())
}

/// What the inner stage appended to the report.
fn read_back(report: &ReportFile) -> Report {
    let mut text = String::new();
    let mut file = &report.0;
    if file.seek(SeekFrom::Start(0)).is_ok() {
        let _ = file.read_to_string(&mut text);
    }
    Report::parse(&text)
}

fn outcome_of(status: ExitStatus) -> Outcome {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Outcome::Exited(code),
        (None, Some(signal)) => Outcome::Signaled(signal),
        (None, None) => Outcome::Exited(EXIT_SETUP_FAILED),
    }
}

/// Ends this process with the command's exit code, or killed by its signal (without a core
/// dump), so that a caller reading only the exit status sees the command's.
fn end_like(outcome: Outcome) -> ! {
    match outcome {
        Outcome::Exited(code) => std::process::exit(code),
        Outcome::Signaled(signal) => {
            let _ = setrlimit(
                Resource::Core,
                Rlimit {
                    current: Some(0),
                    maximum: Some(0),
                },
            );
            if let Some(signal) = Signal::from_named_raw(signal) {
                // Twice: the standard library's stack-overflow handler takes a first SIGSEGV
                // or SIGBUS and restores the default action.
                let _ = kill_process(getpid(), signal);
                let _ = kill_process(getpid(), signal);
            }
            // A signal this process ignores (SIGPIPE): the shell's convention.
            std::process::exit(128 + signal)
        }
    }
}
