//! One `bash` call's processes, from spawn to the last one gone.
//!
//! Each call runs on a dedicated thread that restricts itself (see the `sandbox` module), spawns
//! the command in a new process group, waits for it without reaping it, and then removes every
//! process the call started before it reports the exit status:
//!
//! - The command's process group is killed while the command is still unreaped, so its group ID
//!   cannot have been reused by an unrelated process.
//! - Processes that left the group (`setsid`, `setpgid`, a double fork) are caught because the
//!   agent process is a *child subreaper* while a call runs: when their parent dies they are
//!   re-parented to the agent instead of to init. The sweep kills and reaps every child of the
//!   agent that started during the call and carries the call's `no_new_privs` mark (set on the
//!   call's thread, inherited by everything it starts, impossible to clear), round after round
//!   until none is left.
//!
//! Calls run one at a time per process (a global lock), so processes started during the window
//! belong to the call holding it. What this cannot tell apart: a child that the host program
//! itself starts during a call from a thread that also has `no_new_privs` set; such a host
//! should not run `bash` calls concurrently with its own child processes. A process that
//! forks faster than it can be killed (a fork bomb) is killed for a bounded number of rounds.

use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::sandbox::{Confinement, Sandbox, SandboxMode};

/// Only one call at a time: the sweep attributes processes by the time window they start in.
static ONE_CALL_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The longest the sweep keeps killing new orphans.
const SWEEP_LIMIT: Duration = Duration::from_secs(5);

/// A command started by [`spawn`]: its pid, and the channel that reports its end.
pub(crate) struct Running {
    pid: u32,
    state: Arc<Mutex<Reaped>>,
    exit: tokio::sync::oneshot::Receiver<io::Result<ExitStatus>>,
}

/// Whether the command has been reaped (after which its pid may be reused and must not be
/// signalled).
#[derive(Default)]
struct Reaped(bool);

/// What the call's thread reports once the command runs (or failed to start).
type Started = io::Result<(u32, Confinement)>;

/// Spawns `command` on a dedicated thread restricted by `sandbox`, with read-write access to
/// `workdir` and to a private temporary directory (`TMPDIR`, removed when the call ends).
/// Returns once the command runs, with the confinement it got.
pub(crate) async fn spawn(
    command: Command,
    sandbox: Sandbox,
    workdir: PathBuf,
) -> io::Result<(Running, Confinement)> {
    let (started_tx, started_rx) = tokio::sync::oneshot::channel::<Started>();
    let (exit_tx, exit_rx) = tokio::sync::oneshot::channel();
    let state = Arc::new(Mutex::new(Reaped::default()));
    let thread_state = Arc::clone(&state);
    std::thread::Builder::new()
        .name("bash-call".to_owned())
        .spawn(move || {
            run_call(
                command,
                &sandbox,
                &workdir,
                started_tx,
                exit_tx,
                &thread_state,
            )
        })?;
    let (pid, confinement) = started_rx
        .await
        .map_err(|_| io::Error::other("the bash thread ended before the command started"))??;
    Ok((
        Running {
            pid,
            state,
            exit: exit_rx,
        },
        confinement,
    ))
}

/// The call's thread: holds the one-call lock from spawn to the last process gone.
fn run_call(
    mut command: Command,
    sandbox: &Sandbox,
    workdir: &Path,
    started_tx: tokio::sync::oneshot::Sender<Started>,
    exit_tx: tokio::sync::oneshot::Sender<io::Result<ExitStatus>>,
    state: &Mutex<Reaped>,
) {
    let _one_call = lock(&ONE_CALL_AT_A_TIME);
    let tmp = match PrivateTmp::create() {
        Ok(tmp) => tmp,
        Err(error) => {
            let _ = started_tx.send(Err(error));
            return;
        }
    };
    set_subreaper(true);
    // Restricting is irreversible, so a short-lived thread restricts itself and spawns
    // the command; this thread keeps its rights to watch `/proc` and clean up.
    let spawned = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let confinement = sandbox.restrict_current_thread(&[workdir, &tmp.0]);
                if sandbox.mode == SandboxMode::Required && !confinement.is_full() {
                    return Err(io::Error::new(
                        io::ErrorKind::PermissionDenied,
                        format!("the sandbox is required, but bash would run {confinement}"),
                    ));
                }
                let child = command
                    .env("TMPDIR", &tmp.0)
                    .current_dir(workdir)
                    .process_group(0)
                    .spawn()?;
                Ok((child, confinement))
            })
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the bash spawner thread panicked")))
    });
    drop(command); // closes our copies of the pipe's write end
    let (child, confinement) = match spawned {
        Ok(spawned) => spawned,
        Err(error) => {
            set_subreaper(false);
            let _ = started_tx.send(Err(error));
            return;
        }
    };
    let pid = child.id();
    let started = start_time(pid);
    let _ = started_tx.send(Ok((pid, confinement)));
    let status = finish(child, started, state);
    set_subreaper(false);
    drop(tmp);
    let _ = exit_tx.send(status);
}

impl Running {
    /// Waits for the command to end and every process it started to be gone.
    pub(crate) async fn wait(&mut self) -> io::Result<ExitStatus> {
        (&mut self.exit)
            .await
            .unwrap_or_else(|_| Err(io::Error::other("the bash thread ended unexpectedly")))
    }

    /// Kills the command's process group (the sweep after it catches the rest).
    pub(crate) fn kill(&self) {
        let reaped = lock(&self.state);
        if !reaped.0 {
            kill_group(self.pid);
        }
    }
}

impl Drop for Running {
    /// A call that is cancelled (its future dropped) kills its processes too.
    fn drop(&mut self) {
        self.kill();
    }
}

/// On the call's thread: waits for the command to exit (without reaping), removes everything it
/// started, then reaps it.
fn finish(mut child: Child, started: Option<u64>, state: &Mutex<Reaped>) -> io::Result<ExitStatus> {
    wait_unreaped(child.id());
    let mut reaped = lock(state);
    kill_group(child.id());
    sweep(child.id(), started);
    let status = child.wait();
    reaped.0 = true;
    status
}

/// A directory only this call can use, removed with everything in it when dropped.
struct PrivateTmp(PathBuf);

impl PrivateTmp {
    /// A new `0700` directory under the system's temporary directory. Creation fails rather
    /// than reuse anything already there, so a name planted by someone else is never used.
    fn create() -> io::Result<PrivateTmp> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let mut last_error = None;
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let name = format!(
                "skills-bash-{}-{}-{nanos}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            );
            let dir = base.join(name);
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(PrivateTmp(dir)),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("cannot create a temporary directory")))
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(target_os = "linux")]
fn set_subreaper(on: bool) {
    let pid = on.then(rustix::process::getpid);
    if let Err(error) = rustix::process::set_child_subreaper(pid) {
        tracing::warn!(%error, "cannot make the agent a child subreaper");
    }
}

#[cfg(not(target_os = "linux"))]
fn set_subreaper(_: bool) {}

#[cfg(unix)]
fn kill_group(pid: u32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Blocks until `pid` has exited, leaving it a zombie (so its pid and group stay reserved).
#[cfg(unix)]
fn wait_unreaped(pid: u32) {
    use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
    let Some(pid) = Pid::from_raw(pid as i32) else {
        return;
    };
    loop {
        match waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            _ => return,
        }
    }
}

/// One process as `/proc` shows it.
#[cfg(target_os = "linux")]
struct ProcEntry {
    pid: i32,
    parent: i32,
    start: u64,
}

/// The start time of `pid` in clock ticks since boot.
#[cfg(target_os = "linux")]
fn start_time(pid: u32) -> Option<u64> {
    read_stat(pid as i32).map(|entry| entry.start)
}

#[cfg(not(target_os = "linux"))]
fn start_time(_: u32) -> Option<u64> {
    None
}

/// `/proc/PID/stat`: parent (field 4) and start time (field 22). The command name (field 2)
/// may hold spaces and parentheses, so fields are counted after its last `)`.
#[cfg(target_os = "linux")]
fn read_stat(pid: i32) -> Option<ProcEntry> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // fields[0] is field 3 (state).
    Some(ProcEntry {
        pid,
        parent: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// Whether `pid` has `no_new_privs` set (the mark of a call's processes).
#[cfg(target_os = "linux")]
fn has_no_new_privs(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|status| {
        status
            .lines()
            .any(|line| line.starts_with("NoNewPrivs:") && line.ends_with('1'))
    })
}

/// The agent's children that the current call started, other than the command itself: started
/// at or after `since`, marked with `no_new_privs`.
#[cfg(target_os = "linux")]
fn orphans_of_the_call(command: i32, since: u64) -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(read_stat)
        .filter(|p| {
            p.parent == me && p.pid != command && p.start >= since && has_no_new_privs(p.pid)
        })
        .map(|p| p.pid)
        .collect()
}

/// Kills and reaps every orphan of the call, until a round finds none. The command itself is
/// left for its owner to reap.
#[cfg(target_os = "linux")]
fn sweep(command: u32, since: Option<u64>) {
    use rustix::process::{Pid, Signal, WaitOptions, kill_process, waitpid};
    let Some(since) = since else {
        tracing::warn!("cannot read the command's start time; orphans are not swept");
        return;
    };
    let deadline = Instant::now() + SWEEP_LIMIT;
    loop {
        let orphans = orphans_of_the_call(command as i32, since);
        if orphans.is_empty() {
            return;
        }
        for &pid in &orphans {
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = kill_process(pid, Signal::KILL);
            }
        }
        for &pid in &orphans {
            let Some(pid) = Pid::from_raw(pid) else {
                continue;
            };
            // SIGKILL is prompt, but a process in uninterruptible sleep can take a moment.
            while Instant::now() < deadline {
                match waitpid(Some(pid), WaitOptions::NOHANG) {
                    Ok(None) => std::thread::sleep(Duration::from_millis(1)),
                    _ => break,
                }
            }
        }
        if Instant::now() >= deadline {
            tracing::warn!(
                left = orphans.len(),
                "bash call: processes still appearing after the sweep limit"
            );
            return;
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn sweep(_: u32, _: Option<u64>) {}
