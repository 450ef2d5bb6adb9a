//! What the attack tests share: a working directory and a folder outside it, running a command
//! in a sandbox and collecting what it printed, the reasons to skip, and a look at which
//! processes of a PID namespace are alive.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use skills_sandbox::{Confinement, Finished, Guarantee, Level, Policy, Prepared, SandboxError};

pub use skills_test_support::sandbox::{
    Outcome, is_root, namespaces_refused_here, passed, skipped, trial,
};

/// `PATH` for the sandboxed commands: the system's tools (a user's toolchain in the home folder
/// is not in the sandbox).
pub const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// How long a test command may run before the test kills it.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// The confinement of the default policy here, probed once.
pub fn default_confinement() -> &'static Confinement {
    static CONFINEMENT: OnceLock<Confinement> = OnceLock::new();
    CONFINEMENT.get_or_init(|| {
        Policy::default()
            .probe()
            .expect("the default policy probes")
            .expect("the default policy sandboxes")
    })
}

/// The reason to skip a test of what only the namespaces give, where the kernel refuses them.
pub fn without_namespaces() -> Option<Outcome> {
    let confinement = default_confinement();
    (confinement.level() != Level::Namespaces).then(|| {
        skipped(format!(
            "needs the namespaces, which this kernel refuses: {}",
            confinement.fallback_reason().unwrap_or("unknown reason")
        ))
    })
}

/// The reason to skip a test of an attack only root can try.
pub fn without_root() -> Option<Outcome> {
    (!is_root()).then(|| skipped("the attack needs root, and the tests do not run as root"))
}

/// The reason to skip a test that needs `guarantee` to hold by default here.
pub fn without(guarantee: Guarantee) -> Option<Outcome> {
    (!default_confinement().holds(guarantee)).then(|| {
        skipped(format!(
            "this kernel does not give \"{}\": {}",
            guarantee.describe(),
            default_confinement()
        ))
    })
}

/// [`skills_test_support::sandbox::rerun_where_namespaces_are_refused`], with the sandboxed commands' `PATH`.
pub fn rerun_where_namespaces_are_refused(args: &[&str]) -> Result<String, Outcome> {
    skills_test_support::sandbox::rerun_where_namespaces_are_refused(args, &[("PATH", PATH)])
}

/// A working directory, and a folder beside it the command must never reach.
pub struct Site {
    _temp: tempfile::TempDir,
    pub work: PathBuf,
    pub outside: PathBuf,
}

/// The secret in `outside/secret`.
pub const SECRET: &str = "TOP-SECRET-CONTENT";

pub fn site() -> Site {
    let temp = tempfile::Builder::new()
        .prefix("skills-sandbox-test-")
        .tempdir()
        .expect("temporary folder");
    let base = std::fs::canonicalize(temp.path()).expect("canonical temporary folder");
    let work = base.join("work");
    let outside = base.join("outside");
    std::fs::create_dir(&work).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret"), SECRET).unwrap();
    Site {
        _temp: temp,
        work,
        outside,
    }
}

/// What a sandboxed command did.
#[derive(Debug)]
pub struct Run {
    /// The exit status of the process the test spawned.
    pub raw: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub finished: Result<Finished, SandboxError>,
}

impl Run {
    /// stdout, then stderr.
    pub fn output(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// The command's status; panics (fails the test) with the output if the sandbox failed.
    pub fn status(&self) -> ExitStatus {
        match &self.finished {
            Ok(finished) => finished.status,
            Err(error) => panic!("the sandbox failed: {error}\n{}", self.output()),
        }
    }

    /// Asserts the command exited with 0, and returns its stdout.
    pub fn ok(&self) -> &str {
        assert!(
            self.status().success(),
            "{:?}\n{}",
            self.status(),
            self.output()
        );
        &self.stdout
    }
}

/// Runs `bash -c script` in `work` under `policy`.
pub fn bash(policy: &Policy, work: &Path, script: &str) -> Run {
    run(policy, work, "bash", &["-c", script], |_| {})
}

/// Runs `python3 -c script` in `work` under `policy`.
pub fn python(policy: &Policy, work: &Path, script: &str) -> Run {
    run(policy, work, "python3", &["-c", script], |_| {})
}

/// Python lines that import `socket` and `sys`, run `statements` (one per line), and print
/// `refused ERRNO` instead when one of them raises an `OSError`.
pub fn attempt(statements: &str) -> String {
    let body: String = statements
        .lines()
        .map(|line| format!("    {line}\n"))
        .collect();
    format!("import socket, sys\ntry:\n{body}except OSError as e: print('refused', e.errno)\n")
}

/// Runs `program` with `args` in `work` under `policy`, with `PATH` set and no input; `tune`
/// may change the command (its environment, its input). Kills it after a minute.
pub fn run(
    policy: &Policy,
    work: &Path,
    program: &str,
    args: &[&str],
    tune: impl FnOnce(&mut Command),
) -> Run {
    let mut running = spawn(policy, work, program, args, tune);
    let stdout = running.child.stdout.take().map(read_all);
    let stderr = running.child.stderr.take().map(read_all);
    let raw = running.wait_or_kill(COMMAND_TIMEOUT);
    let text = |reader: Option<std::thread::JoinHandle<String>>| {
        reader
            .map(|r| r.join().unwrap_or_default())
            .unwrap_or_default()
    };
    let (stdout, stderr) = (text(stdout), text(stderr));
    Run {
        raw,
        stdout,
        stderr,
        finished: running.call.finish(raw),
    }
}

/// A sandboxed command that is running.
pub struct Running {
    pub child: Child,
    pub call: skills_sandbox::Call,
}

impl Running {
    /// Waits up to `limit`, then kills it; returns the exit status of the spawned process.
    pub fn wait_or_kill(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                return self.child.wait().expect("wait after kill");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The first line of stdout (which must be piped, as [`spawn`] does).
    pub fn first_line(&mut self) -> (String, BufReader<ChildStdout>) {
        let stdout = self.child.stdout.take().expect("stdout is piped");
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        reader.read_line(&mut line).expect("read a line");
        (line.trim().to_owned(), reader)
    }

    /// The PID namespace of the sandbox's processes (`pid:[N]`), once the first stage made it.
    pub fn pid_namespace(&self) -> Option<String> {
        sandbox_pid_namespace(self.child.id())
    }
}

/// Spawns `program` with `args` under `policy` with stdout and stderr piped.
pub fn spawn(
    policy: &Policy,
    work: &Path,
    program: &str,
    args: &[&str],
    tune: impl FnOnce(&mut Command),
) -> Running {
    let Prepared { mut command, call } = policy
        .prepare(work, program, args)
        .unwrap_or_else(|error| panic!("prepare {program}: {error}"));
    command
        .env("PATH", PATH)
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tune(&mut command);
    let child = command.spawn().expect("spawn the sandbox");
    Running { child, call }
}

fn read_all(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The PID namespace the first stage `pid` made for the sandbox (`pid:[N]`), `None` before it
/// made it.
pub fn sandbox_pid_namespace(pid: u32) -> Option<String> {
    let link = |path: String| {
        std::fs::read_link(path)
            .ok()
            .map(|l| l.to_string_lossy().into_owned())
    };
    let own = link("/proc/self/ns/pid".to_owned());
    link(format!("/proc/{pid}/ns/pid_for_children")).filter(|ns| Some(ns) != own.as_ref())
}

/// The processes alive in the PID namespace `namespace` (as `/proc/PID/ns/pid` names it).
pub fn processes_in(namespace: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/ns/pid"))
                .is_ok_and(|link| link.to_string_lossy() == namespace)
        })
        .collect()
}

/// Polls until no process is left in `namespace`, up to `limit`; returns those left.
pub fn wait_until_empty(namespace: &str, limit: Duration) -> Vec<u32> {
    let deadline = Instant::now() + limit;
    loop {
        let left = processes_in(namespace);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether process `pid` exists (a zombie counts as gone).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// A name no other test run uses.
pub fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{prefix}-{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}
