//! The init stage: the first process of the call's PID namespace, forked by the first stage. It
//! builds the sandbox, starts
//! the command from a thread that restricts itself first, and reaps until the command ends;
//! its own exit then makes the kernel kill whatever is left in the namespace.

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use rustix::process::{DumpableBehavior, Pid, WaitOptions, set_dumpable_behavior, setsid, wait};

use super::{Failure, StageResult, Step, command_env, not_started};
use crate::call_dir;
use crate::landlock_rules;
use crate::policy::SYSTEM_READ_ONLY;
use crate::protected::Protected;
use crate::report::{Record, ReportFile};
use crate::stage::capabilities;
use crate::stage::identity;
use crate::stage::limits;
use crate::stage::loopback;
use crate::stage::root::{Access, Bind, NewRoot};
use crate::stage::seccomp::{self, FilterFor};
use crate::wire::StagePolicy;

/// The hostname inside the sandbox.
const HOSTNAME: &[u8] = b"sandbox";

/// Runs the init stage in the process the first stage forked (in the new namespaces), with the
/// call's `policy`; `parent` is the first stage's pidfd, `nobody_owner` its id when the caller
/// is the host's root.
pub(super) fn run(
    dir: &Path,
    policy: &StagePolicy,
    report: &ReportFile,
    parent: &OwnedFd,
    nobody_owner: Option<Pid>,
) -> StageResult {
    let _ = rustix::thread::set_name(c"sandbox-init");
    die_with(parent)?;
    // Its memory and `/proc` entries stay closed to the command, which shares its uid.
    set_dumpable_behavior(DumpableBehavior::NotDumpable)
        .step(|| "make the init process non-dumpable".to_owned())?;
    let nobody = build(dir, policy, report, nobody_owner)?;
    if let Some(userns) = &nobody {
        identity::join_nobody(userns)?;
        // A change of user cleared both.
        set_dumpable_behavior(DumpableBehavior::NotDumpable)
            .step(|| "make the init process non-dumpable".to_owned())?;
        die_with(parent)?;
    }
    report.write(&Record::Nobody(nobody.is_some()));
    setsid().step(|| "start a new session without a terminal".to_owned())?;
    capabilities::drop_all()?;
    // Landlock and seccomp on a thread of their own: this process stays outside the command's
    // Landlock domain, so the command cannot signal it or read its memory.
    let spawned = std::thread::scope(|scope| {
        scope
            .spawn(|| restrict_and_spawn(policy, report))
            .join()
            .unwrap_or_else(|_| Err(Failure::message("the spawning thread panicked".to_owned())))
    })?;
    let Some(child) = spawned else {
        report.write(&Record::Ready);
        std::process::exit(0);
    };
    reap_until(child, report)
}

/// Takes the parent-death signal, so that this stage dies with the first stage (a pidfd of which
/// is `parent`), and stops if that one is gone already: nobody would wait for this one.
fn die_with(parent: &OwnedFd) -> Result<(), Failure> {
    use rustix::event::{PollFd, PollFlags, poll};
    use rustix::process::{Signal, set_parent_process_death_signal};
    set_parent_process_death_signal(Some(Signal::KILL))
        .step(|| "take the parent-death signal".to_owned())?;
    // A pidfd is readable once its process has ended.
    let mut fds = [PollFd::new(parent, PollFlags::IN)];
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    if poll(&mut fds, Some(&zero)).step(|| "look at the first stage".to_owned())? > 0 {
        std::process::exit(crate::names::EXIT_SETUP_FAILED);
    }
    Ok(())
}

/// Everything that needs the namespace's capabilities: the new root, the hostname, the
/// loopback, the limits. For a root caller (`nobody_owner`, the first stage), returns the user
/// namespace the command is to join, once the writable paths are idmapped through it.
fn build(
    dir: &Path,
    policy: &StagePolicy,
    report: &ReportFile,
    nobody_owner: Option<Pid>,
) -> Result<Option<OwnedFd>, Failure> {
    let root = NewRoot::create(&dir.join(call_dir::ROOT))?;
    let host_passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let host_group = std::fs::read_to_string("/etc/group").unwrap_or_default();
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    let (passwd, group) = identity::passwd_and_group(uid, gid, &host_passwd, &host_group);
    root.write_file("/etc/passwd", &passwd)?;
    root.write_file("/etc/group", &group)?;
    root.dev()?;
    root.memory(&dir.join(call_dir::MEMORY), policy.limits.memory_files())?;
    let proc = root.proc()?;
    let pid_max = limits::cap_pid_namespace(&proc, policy.limits.processes)?;
    report.write(&Record::PidMax(pid_max));
    root.seal_proc(&proc)?;
    let userns = match nobody_owner {
        Some(owner) => identity::nobody_namespace(dir, owner)?,
        None => None,
    };
    let idmapped = root.bind_all(binds(policy), userns.as_ref().map(AsFd::as_fd))?;
    if !policy.writable_vcs {
        let protected = Protected::scan_with(&policy.workdir, &policy.git, Protected::MAX_ENTRIES);
        root.protect(&policy.workdir, protected.paths())?;
        if let Some(what) = protected.unprotected() {
            report.write(&Record::Unprotected(what));
        }
    }
    root.seal_dev()?;
    root.enter(&policy.workdir)?;
    rustix::system::sethostname(HOSTNAME).step(|| "set the sandbox's hostname".to_owned())?;
    if !policy.allow_network {
        loopback::bring_up()?;
    }
    limits::apply(&policy.limits)?;
    Ok(userns.filter(|_| idmapped))
}

/// The host paths of the new root.
fn binds(policy: &StagePolicy) -> Vec<Bind> {
    let bind = |path: PathBuf, access, system| Bind {
        path,
        access,
        system,
    };
    let mut binds: Vec<Bind> = SYSTEM_READ_ONLY
        .iter()
        .map(|path| bind(PathBuf::from(path), Access::ReadOnly, true))
        .collect();
    binds.extend(
        policy
            .read_only
            .iter()
            .map(|p| bind(p.clone(), Access::ReadOnly, false)),
    );
    binds.extend(
        policy
            .read_write
            .iter()
            .map(|p| bind(p.clone(), Access::ReadWrite, false)),
    );
    binds.push(bind(policy.workdir.clone(), Access::ReadWrite, false));
    binds
}

/// On a thread of its own: Landlock, seccomp, then the command (none for a probe).
fn restrict_and_spawn(policy: &StagePolicy, report: &ReportFile) -> Result<Option<Child>, Failure> {
    let landlock = landlock_rules::restrict(policy, Path::new("/tmp"));
    report.write(&Record::Landlock(landlock));
    seccomp::apply(FilterFor {
        level: policy.level,
        allow_network: policy.allow_network,
    })?;
    if policy.probe {
        return Ok(None);
    }
    let spawned = Command::new(&policy.program)
        .args(&policy.args)
        .env_clear()
        .envs(command_env())
        .env("TMPDIR", "/tmp")
        .current_dir(&policy.workdir)
        .spawn();
    match spawned {
        Ok(child) => Ok(Some(child)),
        Err(error) => not_started(report, &error),
    }
}

/// Reaps every process that ends (orphans come to the namespace's first process) until the
/// command does, then reports how it ended and exits, which ends the namespace.
fn reap_until(child: Child, report: &ReportFile) -> StageResult {
    let command = Pid::from_child(&child);
    loop {
        match wait(WaitOptions::empty()) {
            Ok(Some((pid, status))) if pid == command => {
                let record = match (status.exit_status(), status.terminating_signal()) {
                    (Some(code), _) => Record::Exited(code),
                    (None, Some(signal)) => Record::Signaled(signal),
                    (None, None) => continue,
                };
                report.write(&record);
                std::process::exit(0);
            }
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(error) => return Err(error).step(|| "wait for the command".to_owned()),
        }
    }
}
