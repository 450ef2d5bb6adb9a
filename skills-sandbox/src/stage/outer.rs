//! The outer stage: the process the caller spawned. It creates the namespaces, forks the init
//! stage, and ends the way the command ended (in the fallback it becomes the command itself).

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus};

use rustix::fs::{FlockOperation, flock};
use rustix::process::{
    Resource, Rlimit, Signal, WaitOptions, getegid, geteuid, getpid, kill_process, setrlimit,
    waitpid,
};
use rustix::thread::UnshareFlags;

use super::{Failure, StageResult, Step, fallback, init, read_policy};
use crate::confinement::Level;
use crate::names::{self, EXIT_SETUP_FAILED};
use crate::report::{Outcome, Record, Report, ReportFile, VERSION};
use crate::stage::identity;
use crate::sys::Forked;
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
    let status = match policy.level {
        Level::Namespaces => start_init(dir, &policy, report)?,
        // A process group leader cannot start a session: then a stage of its own does.
        Level::Fallback => match rustix::process::setsid() {
            Ok(_) => return fallback::become_the_command(dir, &policy, report),
            // The same binary again, as the fallback stage: it inherits the standard streams
            // and the environment (the command's, and the call folder).
            Err(_) => Command::new("/proc/self/exe")
                .arg0(format!("skills-sandbox-{}", names::FALLBACK))
                .env(names::STAGE, names::FALLBACK)
                .status()
                .step(|| "start the sandbox's fallback stage".to_owned())?,
        },
    };
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

/// Enters the namespaces and forks the init stage, the first process of the new PID namespace
/// (a copy of this single-threaded process, with the policy read already and the namespaces'
/// capabilities: no second start of the program), and waits for it. For the host's root, this
/// process meanwhile becomes the user namespace in which the command will be nobody.
fn start_init(
    dir: &Path,
    policy: &StagePolicy,
    report: &ReportFile,
) -> Result<ExitStatus, Failure> {
    let host_root = identity::is_host_root();
    enter_namespaces(policy, host_root)?;
    let lock = host_root
        .then(|| identity::NobodyLock::take(dir))
        .transpose()?;
    // The init stage watches this process through it: its id is not in the new PID namespace.
    let me = getpid();
    let parent = rustix::process::pidfd_open(me, rustix::process::PidfdFlags::empty())
        .step(|| "open the first stage's pidfd".to_owned())?;
    let child = match crate::sys::fork().step(|| "start the sandbox's init stage".to_owned())? {
        Forked::Child => {
            // The lock is this process's parent's to release.
            drop(lock);
            let Err(failure) = init::run(dir, policy, report, &parent, host_root.then_some(me));
            report.failed(&failure.step, &failure.error);
            std::process::exit(EXIT_SETUP_FAILED);
        }
        Forked::Parent(child) => child,
    };
    drop(parent);
    if let Some(lock) = lock {
        // A failure here leaves the command root to the host's files; the init stage says so.
        let _ = identity::become_nobody(lock);
    }
    loop {
        match waitpid(Some(child), WaitOptions::empty()) {
            Ok(Some((_, status))) => return Ok(ExitStatus::from_raw(status.as_raw())),
            Ok(None) | Err(rustix::io::Errno::INTR) => {}
            Err(error) => return Err(error).step(|| "wait for the init stage".to_owned()),
        }
    }
}

/// New user, mount, PID, IPC, UTS and (unless the network is allowed) network namespaces, with
/// the caller's uid and gid mapped to themselves. The host's root needs no user namespace to
/// make the others: its command gets one of its own later (see [`identity`]).
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
    identity::map_own_ids(uid, gid)
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
