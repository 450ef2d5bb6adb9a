//! The processes of a `bash` call the kernel does not contain: in the sandbox's fallback (no
//! PID namespace) and with the sandbox off. With the namespaces none of this runs: the call's
//! PID namespace ends with it, and calls run in parallel.
//!
//! Such a call runs on a dedicated thread that marks itself with `no_new_privs` (the fallback's
//! stage sets it too), spawns the command, waits for it without reaping it, and then removes
//! every process the call started before it reports the exit status:
//!
//! - The command's process group is killed while the command is still unreaped, so its group ID
//!   cannot have been reused by an unrelated process.
//! - Processes that left the group (`setsid`, `setpgid`, a double fork) are caught because the
//!   agent process is a *child subreaper* while a call runs: when their parent dies they are
//!   re-parented to the agent instead of to init. The sweep kills and reaps every child of the
//!   agent that started during the call and carries the `no_new_privs` mark (inherited by
//!   everything the call starts, impossible to clear), round after round until none is left.
//!
//! What this loses against the namespaces: these calls run one at a time per process (a global
//! lock), since processes are attributed by the time window they start in; the sweep finds one
//! level of orphans per round and stops after [`SWEEP_LIMIT`], so a deep chain of sessions (or a
//! fork bomb) can outlive the call; and a child the host program itself starts during a call
//! from a thread that also has `no_new_privs` set would be taken for the call's.

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Only one such call at a time: the sweep attributes processes by the time window they start
/// in.
static ONE_CALL_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The longest the sweep keeps killing new orphans.
pub(crate) const SWEEP_LIMIT: Duration = Duration::from_secs(5);

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

/// Spawns `command` (its standard streams, environment and working directory set, in a process
/// group or a session of its own) on a dedicated thread, and sweeps what it leaves behind once
/// it exits. Returns once the command runs.
pub(crate) async fn spawn(command: Command) -> io::Result<Running> {
    let (started_tx, started_rx) = tokio::sync::oneshot::channel::<io::Result<u32>>();
    let (exit_tx, exit_rx) = tokio::sync::oneshot::channel();
    let state = Arc::new(Mutex::new(Reaped::default()));
    let thread_state = Arc::clone(&state);
    std::thread::Builder::new()
        .name("bash-call".to_owned())
        .spawn(move || run_call(command, started_tx, exit_tx, &thread_state))?;
    let pid = started_rx
        .await
        .map_err(|_| io::Error::other("the bash thread ended before the command started"))??;
    Ok(Running {
        pid,
        state,
        exit: exit_rx,
    })
}

/// The call's thread: holds the one-call lock from spawn to the last process gone.
fn run_call(
    mut command: Command,
    started_tx: tokio::sync::oneshot::Sender<io::Result<u32>>,
    exit_tx: tokio::sync::oneshot::Sender<io::Result<ExitStatus>>,
    state: &Mutex<Reaped>,
) {
    let _one_call = lock(&ONE_CALL_AT_A_TIME);
    set_subreaper(true);
    // `no_new_privs` is irreversible, so a short-lived thread marks itself and spawns the
    // command; this thread keeps its rights.
    let spawned = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                set_no_new_privs();
                command.spawn()
            })
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the bash spawner thread panicked")))
    });
    drop(command); // closes our copies of the pipe's write end
    let child = match spawned {
        Ok(child) => child,
        Err(error) => {
            set_subreaper(false);
            let _ = started_tx.send(Err(error));
            return;
        }
    };
    let pid = child.id();
    let started = start_time(pid);
    let _ = started_tx.send(Ok(pid));
    let status = finish(child, started, state);
    set_subreaper(false);
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

/// `no_new_privs` for the calling thread: the mark of the call's processes.
#[cfg(target_os = "linux")]
fn set_no_new_privs() {
    if let Err(error) = rustix::thread::set_no_new_privs(true) {
        tracing::warn!(%error, "cannot set no_new_privs for bash");
    }
}

#[cfg(not(target_os = "linux"))]
fn set_no_new_privs() {}

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
