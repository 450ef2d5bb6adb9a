//! Running the example agent binary against a scripted hostile model: a mock OpenAI-compatible
//! server on 127.0.0.1 answers the first request with the attacker's tool calls and the second
//! with a final answer; the tool results the agent sent back, the example's output and what
//! happened on the host are what the tests check.
//!
//! Each attack runs as three callers: the user running the tests, `nobody` (when that user is
//! root; the example then runs under `setpriv`), and the same user in a user namespace that
//! allows no further one, where the kernel refuses the sandbox its namespaces and `bash` runs in
//! the fallback. A caller that cannot be had here, and a guarantee a run does not give (the
//! example's start-up line says which sandbox it got), are reported as skipped with the reason,
//! never passed silently.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use skills_test_support::{self as agent_support, OPENAI_KEY};

/// `PATH` for the example and its commands: the system's tools.
pub const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The uid and gid of `nobody`.
pub const NOBODY: u32 = 65534;

/// Who runs the example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The user running the tests.
    Me,
    /// `nobody`, from a root test run.
    Nobody,
    /// The user running the tests, where the kernel refuses user namespaces.
    NamespacesRefused,
}

impl Caller {
    pub const ALL: [Caller; 3] = [Caller::Me, Caller::Nobody, Caller::NamespacesRefused];

    pub fn label(self) -> &'static str {
        match self {
            Caller::Me if is_root() => "as root",
            Caller::Me => "as the test user",
            Caller::Nobody => "as nobody",
            Caller::NamespacesRefused => "where namespaces are refused",
        }
    }

    /// The uid the example's files should belong to.
    fn owner(self) -> Option<u32> {
        (self == Caller::Nobody).then_some(NOBODY)
    }
}

pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(2) == Some("0"))
    })
}

/// Says that `test` was skipped for `caller`, and why.
pub fn skip(test: &str, caller: Caller, reason: &str) {
    eprintln!("SKIPPED {test} {}: {reason}", caller.label());
}

/// The folders of one run: the working directory, a home, the example's own `TMPDIR` (where
/// the sandbox keeps its calls' folders) and a folder outside the working directory, all
/// usable by the caller.
pub struct Site {
    _root: tempfile::TempDir,
    pub work: PathBuf,
    pub home: PathBuf,
    pub host_tmp: PathBuf,
    pub outside: PathBuf,
}

impl Site {
    pub fn new(caller: Caller) -> Site {
        let root = tempfile::Builder::new()
            .prefix("skills-attack-example-")
            .tempdir()
            .unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
        let [work, home, host_tmp, outside] =
            ["work", "home", "tmp", "outside"].map(|name| base.join(name));
        for dir in [&work, &home, &host_tmp, &outside] {
            std::fs::create_dir(dir).unwrap();
            if let Some(uid) = caller.owner() {
                std::os::unix::fs::chown(dir, Some(uid), Some(uid)).unwrap();
            }
        }
        Site {
            _root: root,
            work,
            home,
            host_tmp,
            outside,
        }
    }

    /// What the example left of the sandbox's call folders once it ended: anything in its
    /// `TMPDIR` (where the fallback's go), and its folders in `/dev/shm` (where those of the
    /// namespaces go, without an `XDG_RUNTIME_DIR`).
    pub fn left_behind(&self, run: &Run) -> Vec<PathBuf> {
        let entries = |dir: &Path| -> Vec<PathBuf> {
            std::fs::read_dir(dir)
                .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
                .unwrap_or_default()
        };
        let ours = format!("skills-sandbox-{}-", run.pid);
        let mut left = entries(&self.host_tmp);
        left.extend(entries(Path::new("/dev/shm")).into_iter().filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with(&ours))
        }));
        left
    }
}

/// A tool call of the scripted turn.
pub fn tool_call(id: &str, name: &str, arguments: Value) -> Value {
    json!({
        "id": id,
        "type": "function",
        "function": {"name": name, "arguments": arguments.to_string()}
    })
}

/// A `bash` tool call.
pub fn bash(id: &str, command: &str) -> Value {
    tool_call(id, "bash", json!({ "command": command }))
}

/// A `bash` call running `python3 -c script`.
pub fn python(id: &str, script: &str) -> Value {
    bash(id, &format!("python3 -c {}", shell_quote(script)))
}

/// Python lines that import `socket`, `sys` and `os`, run `statements` (one per line), and print
/// `refused ERRNO` instead when one of them raises an `OSError`.
pub fn attempt(statements: &str) -> String {
    let body: String = statements
        .lines()
        .map(|line| format!("    {line}\n"))
        .collect();
    format!("import socket, sys, os\ntry:\n{body}except OSError as e: print('refused', e.errno)\n")
}

/// `text` in single quotes for the shell.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn turn(calls: Vec<Value>) -> ResponseTemplate {
    reply(
        json!({"role": "assistant", "content": null, "tool_calls": calls}),
        "tool_calls",
    )
}

fn answer(text: &str) -> ResponseTemplate {
    reply(json!({"role": "assistant", "content": text}), "stop")
}

fn reply(message: Value, finish: &str) -> ResponseTemplate {
    let body = agent_support::openai_completion(
        message,
        finish,
        Some(agent_support::openai_usage(100, 10)),
    );
    ResponseTemplate::new(200).set_body_json(body)
}

/// A scripted reply that also notes when its request arrived.
struct Stamped {
    reply: ResponseTemplate,
    arrivals: Arc<Mutex<Vec<Instant>>>,
}

impl Respond for Stamped {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        self.arrivals.lock().unwrap().push(Instant::now());
        self.reply.clone()
    }
}

/// One run of the example: its output, the tool results it sent back, and when the model's
/// requests arrived.
pub struct Run {
    /// The example's process id.
    pub pid: u32,
    pub stderr: String,
    /// Tool results of the second request, by tool call id.
    pub results: Vec<(String, String)>,
    /// When the first and second requests arrived.
    pub arrivals: Vec<Instant>,
}

impl Run {
    /// The result of the tool call `id`.
    pub fn result(&self, id: &str) -> &str {
        &self
            .results
            .iter()
            .find(|(call, _)| call == id)
            .unwrap_or_else(|| panic!("no result for {id}:\n{}", self.stderr))
            .1
    }

    /// Whether `bash` ran with the namespaces, as the example's start-up line says.
    pub fn namespaces(&self) -> bool {
        self.confinement_line()
            .starts_with("bash: sandboxed by user, network, PID, IPC, UTS and mount namespaces")
    }

    /// The example's line about `bash`'s sandbox.
    pub fn confinement_line(&self) -> &str {
        self.stderr
            .lines()
            .find(|line| line.starts_with("bash: ") || line.starts_with("WARNING: bash"))
            .unwrap_or_else(|| panic!("no sandbox line in:\n{}", self.stderr))
    }

    /// `Some(reason)` when this run did not get the namespaces (the fallback's reason).
    pub fn without_namespaces(&self) -> Option<String> {
        (!self.namespaces()).then(|| {
            format!(
                "needs the namespace sandbox, and this run got: {}",
                self.confinement_line()
            )
        })
    }
}

/// Runs the example as `caller` in `site` against a model that sends `calls` as one turn and
/// then a final answer; `during` runs on a thread of its own while the example runs. `None`
/// (with the skip reported) when this caller cannot be had here.
pub async fn run(
    test: &str,
    caller: Caller,
    site: &Site,
    calls: Vec<Value>,
    during: impl FnOnce() + Send + 'static,
) -> Option<Run> {
    run_launched(test, caller, site, calls, during, &[]).await
}

/// [`run`], with the example started by `launcher` (a program and its arguments, to which the
/// example's path and arguments are appended; it ends by executing them), as the caller.
pub async fn run_launched(
    test: &str,
    caller: Caller,
    site: &Site,
    calls: Vec<Value>,
    during: impl FnOnce() + Send + 'static,
    launcher: &[&str],
) -> Option<Run> {
    let program = match prepare_caller(caller) {
        Ok(program) => program,
        Err(reason) => {
            skip(test, caller, &reason);
            return None;
        }
    };
    let server = MockServer::start().await;
    let arrivals = Arc::new(Mutex::new(Vec::new()));
    for reply in [turn(calls), answer("all done")] {
        Mock::given(any())
            .respond_with(Stamped {
                reply,
                arrivals: Arc::clone(&arrivals),
            })
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    let mut command = program.command(launcher);
    command
        .args(["--provider", "openai", "--yes", "--workdir"])
        .arg(&site.work)
        .arg("do the task")
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &site.home)
        .env("TMPDIR", &site.host_tmp)
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .env("MODEL_ID", "gpt-test-model")
        .current_dir(&site.work)
        .stdin(Stdio::null());
    let beside = std::thread::spawn(during);
    let (pid, output) = tokio::task::spawn_blocking(move || {
        let child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let output = child.wait_with_output().unwrap();
        drop(program);
        (pid, output)
    })
    .await
    .unwrap();
    beside.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if caller == Caller::NamespacesRefused && stderr.contains("unshare failed") {
        skip(
            test,
            caller,
            &format!("this kernel refuses the user namespace the test needs: {stderr}"),
        );
        return None;
    }
    assert!(output.status.success(), "{}: {stderr}", caller.label());
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "all done");
    assert!(!stderr.contains(OPENAI_KEY));
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2, "{stderr}");
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    let results = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let content = m["content"].as_str().unwrap_or_default().to_owned();
            assert!(!content.contains(OPENAI_KEY), "a tool result holds the key");
            (m["tool_call_id"].as_str().unwrap().to_owned(), content)
        })
        .collect();
    let arrivals = arrivals.lock().unwrap().clone();
    Some(Run {
        pid,
        stderr,
        results,
        arrivals,
    })
}

/// How to start the example as a caller.
enum Program {
    Direct,
    /// A link to the example in a folder `nobody` can enter (the build's may not be).
    Nobody(tempfile::TempDir),
    Refused,
}

impl Program {
    /// The example as this caller, started through `launcher` (empty: directly).
    fn command(&self, launcher: &[&str]) -> Command {
        let (mut command, agent) = match self {
            Program::Direct => {
                let Some((first, rest)) = launcher.split_first() else {
                    return Command::new(crate::examples::example_binary("agent"));
                };
                let mut command = Command::new(first);
                command
                    .args(rest)
                    .arg(crate::examples::example_binary("agent"));
                return command;
            }
            Program::Nobody(folder) => {
                let mut command = Command::new("setpriv");
                command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
                (command, folder.path().join("agent"))
            }
            Program::Refused => {
                let mut command = Command::new("unshare");
                command.args([
                    "--user",
                    "--map-root-user",
                    "sh",
                    "-c",
                    "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"",
                ]);
                (command, crate::examples::example_binary("agent"))
            }
        };
        command.args(launcher).arg(agent);
        command
    }
}

fn prepare_caller(caller: Caller) -> Result<Program, String> {
    match caller {
        Caller::Me => Ok(Program::Direct),
        Caller::Nobody if !is_root() => {
            Err("running as another user needs root, and the tests do not run as root".into())
        }
        Caller::Nobody => {
            if Command::new("setpriv").arg("--version").output().is_err() {
                return Err("needs setpriv (util-linux) to run as another user".into());
            }
            let folder = tempfile::Builder::new()
                .prefix("skills-attack-example-bin-")
                .tempdir()
                .unwrap();
            std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755))
                .unwrap();
            let link = folder.path().join("agent");
            if std::fs::hard_link(crate::examples::example_binary("agent"), &link).is_err() {
                std::fs::copy(crate::examples::example_binary("agent"), &link).unwrap();
            }
            Ok(Program::Nobody(folder))
        }
        Caller::NamespacesRefused => {
            if Command::new("unshare").arg("--version").output().is_err() {
                return Err(
                    "needs unshare (util-linux) to make a namespace that refuses others".into(),
                );
            }
            Ok(Program::Refused)
        }
    }
}

/// Runs `script` with the host's `python3` as `caller` would (for what the attacker goes after:
/// a key in the caller's keyring, a shared memory segment of the caller's), and returns its
/// stdout, trimmed.
pub fn host_python(caller: Caller, script: &str) -> String {
    let mut command = if caller == Caller::Nobody {
        let mut command = Command::new("setpriv");
        command.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "python3",
        ]);
        command
    } else {
        Command::new("python3")
    };
    let out = command
        .args(["-c", script])
        .env("PATH", PATH)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "host python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Polls until `path` exists, up to `limit`.
pub fn wait_for(path: &Path, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while !path.exists() {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The live processes of the host whose command line holds the argument `marker`.
pub fn running_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                cmdline
                    .split(|&b| b == 0)
                    .any(|arg| arg == marker.as_bytes())
            }) && agent_support::process_alive(*pid)
        })
        .collect()
}

/// A `sleep` argument no other process has (about 1,000 s).
pub fn marker() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "1000.{}{:04}{nanos:09}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}
