//! `bash`: runs a command with `bash -c` in the working directory.
//!
//! - Each call runs in a sandbox of its own ([`Sandbox`], built by `skills-sandbox`): new user,
//!   network, PID, IPC, UTS and mount namespaces, a seccomp filter, resource limits and
//!   Landlock. The command sees the system folders read-only, the working directory read-write
//!   (its version control metadata and what git runs read-only, as for the file tools), a
//!   private `/tmp`, no network and nothing else of the host; it holds no capability, and is
//!   nobody to the host's files when the agent runs as root. It inherits no descriptor but its
//!   output pipe and `/dev/null` as input. A call whose working directory holds something the
//!   sandbox could not keep read-only says so at the end of its result. Where the kernel refuses unprivileged user
//!   namespaces, the fallback (Landlock, seccomp, limits) runs instead and each call logs what
//!   it loses; [`Sandbox::required`] refuses to run there.
//! - The environment is cleared to [`BashOptions::env`] (`PATH`, `HOME`, `LANG`, `TERM` by
//!   default) and `TMPDIR`: no API key or other secret of the agent's environment reaches the
//!   command.
//! - No process the call starts outlives it, on success, failure, timeout or cancellation:
//!   with the namespaces the call's PID namespace ends with it, however deep the chain of
//!   processes, and calls run in parallel. In the fallback and unconfined the processes are
//!   swept instead (see the `process` module), one call at a time.
//! - stdout and stderr share one pipe (interleaved as a terminal would show them); the result
//!   keeps the first and last parts up to [`BashOptions::max_output_chars`] in total.
//! - A deny list refuses obviously destructive commands. It is a guard rail against accidents;
//!   the sandbox and the permission policy (ask by default) are the real controls.
//! - A non-zero exit status is a normal result (the command ran; its output says why it
//!   failed), not a tool failure.

use std::ffi::OsString;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::launch::launch;
use super::sandbox::{Sandbox, SandboxMode};
use super::{Tool, ToolContext, ToolError, ToolErrorKind, str_arg, uint_arg};
use crate::BoxFuture;
use crate::permission::Permission;

/// `PATH` for the command when the agent's environment has none.
const FALLBACK_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Settings of the `bash` tool.
#[derive(Clone, Debug)]
pub struct BashOptions {
    /// Timeout when the call gives none (default 120 s).
    pub timeout: Duration,
    /// Largest timeout a call may ask for (default 600 s).
    pub max_timeout: Duration,
    /// Most characters of output returned (default 50,000).
    pub max_output_chars: usize,
    /// Refused command fragments (default [`BashOptions::DEFAULT_DENY`]).
    pub deny: Vec<String>,
    /// How long to wait for the last output once the command's processes are gone (default
    /// 1 s). It only matters in the fallback or unconfined, if a process escaped the sweep and
    /// still holds the output open.
    pub drain_grace: Duration,
    /// The sandbox (default: namespaces where the kernel allows them, the fallback where it
    /// does not; see [`Sandbox`]).
    pub sandbox: Sandbox,
    /// Names of the environment variables the command gets from the agent's environment (default
    /// [`BashOptions::DEFAULT_ENV`]); every other variable is removed. In the sandbox `TMPDIR` is
    /// set too, to the call's private temporary folder.
    pub env: Vec<String>,
}

impl Default for BashOptions {
    fn default() -> Self {
        BashOptions {
            timeout: Duration::from_secs(120),
            max_timeout: Duration::from_secs(600),
            max_output_chars: 50_000,
            deny: BashOptions::DEFAULT_DENY
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            drain_grace: Duration::from_secs(1),
            sandbox: Sandbox::default(),
            env: BashOptions::DEFAULT_ENV
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }
}

impl BashOptions {
    /// Commands refused outright (matched on whole words, after collapsing whitespace and
    /// lowercasing).
    pub const DEFAULT_DENY: &[&str] = &[
        "rm -rf /",
        "rm -fr /",
        "rm -rf /*",
        "rm -rf ~",
        "rm -rf $home",
        "sudo",
        "mkfs",
        "shutdown",
        "reboot",
        "poweroff",
        "halt",
        ":(){",
        "dd if=/dev/zero of=/dev/",
        "> /dev/sda",
        "chmod -r 777 /",
    ];
    /// The environment variables passed to the command by default (when the agent has them).
    pub const DEFAULT_ENV: &[&str] = &["PATH", "HOME", "LANG", "TERM"];

    /// The defaults with the sandbox switched off ([`Sandbox::off`]): for machines where
    /// commands need more than the working directory and the system folders, and the
    /// permission policy is the control. Each call logs a warning.
    pub fn unconfined() -> Self {
        BashOptions {
            sandbox: Sandbox::off(),
            ..BashOptions::default()
        }
    }
}

/// The `bash` tool.
#[derive(Clone, Debug)]
pub struct Bash {
    options: BashOptions,
    /// What the model is told, made once: the tool list is the same bytes every turn.
    description: String,
}

impl Default for Bash {
    fn default() -> Self {
        Bash::new(BashOptions::default())
    }
}

impl Bash {
    /// A `bash` tool with `options`.
    pub fn new(options: BashOptions) -> Self {
        let description = describe(&options.sandbox);
        Bash {
            options,
            description,
        }
    }

    /// The options.
    pub fn options(&self) -> &BashOptions {
        &self.options
    }

    /// The deny-list entry `command` hits, if any.
    pub fn denied_by(&self, command: &str) -> Option<&str> {
        let normalized = command
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        self.options
            .deny
            .iter()
            .find(|pattern| contains_word(&normalized, &pattern.to_lowercase()))
            .map(String::as_str)
    }
}

/// The tool's description for the model, which says what the sandbox allows, so that it does
/// not try what cannot work.
fn describe(sandbox: &Sandbox) -> String {
    let mut text = String::from(
        "Run a shell command with bash in the working directory and return its combined stdout \
         and stderr and exit code. Long outputs are cut. ",
    );
    if sandbox.mode == SandboxMode::Off {
        text.push_str("Processes left in the background are killed when the command returns.");
    } else {
        text.push_str("The command is sandboxed: it can write only inside the working directory");
        if !sandbox.writable_vcs {
            text.push_str(" (but not its .git, so git commands that write fail)");
        }
        text.push_str(" and $TMPDIR, read only those and the system folders");
        if !sandbox.allow_network {
            text.push_str(", and has no network");
        }
        text.push_str("; processes left in the background are killed when it returns.");
    }
    text.push_str(" Optional `timeout_ms`.");
    text
}

/// Whether `pattern` occurs in `text` not glued to a longer word or path on either side.
fn contains_word(text: &str, pattern: &str) -> bool {
    let glued = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.' | '~' | '$');
    let mut start = 0;
    while let Some(found) = text[start..].find(pattern) {
        let at = start + found;
        let end = at + pattern.len();
        let before_ok = text[..at].chars().next_back().is_none_or(|c| !glued(c));
        let after_ok = text[end..]
            .chars()
            .next()
            .is_none_or(|c| !glued(c) || c == '.');
        // `mkfs.ext4` is still mkfs; `rm -rf /tmp/x` is not `rm -rf /`.
        let after_ok = after_ok && !(pattern.ends_with('/') && text[end..].starts_with('.'));
        if before_ok && after_ok {
            return true;
        }
        start = at + pattern.chars().next().map_or(1, char::len_utf8);
    }
    false
}

impl Tool for Bash {
    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command line"},
                "timeout_ms": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds (default 120000)"}
            },
            "required": ["command"]
        })
    }

    fn default_permission(&self) -> Permission {
        Permission::Ask
    }

    fn sandbox(&self) -> Option<&Sandbox> {
        Some(&self.options.sandbox)
    }

    fn call<'a>(
        &'a self,
        input: &'a Value,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(self.run(input, context))
    }
}

/// How a command run by [`Bash::execute`] ended.
pub(crate) struct Executed {
    /// Its output, cut as the tool cuts it.
    pub(crate) output: String,
    /// Its exit code; `None` when a signal ended it.
    pub(crate) code: Option<i32>,
    /// What the sandbox could not keep read-only in the working directory for this call.
    pub(crate) unprotected: Option<String>,
}

/// Output collected from the pipe: the head, a rolling tail, and the total size.
#[derive(Default)]
struct Captured {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: usize,
}

impl Bash {
    async fn run(&self, input: &Value, context: &ToolContext) -> Result<String, ToolError> {
        let command = str_arg(input, "command")?;
        let timeout = uint_arg(input, "timeout_ms")?.map(Duration::from_millis);
        let executed = self.execute(command, timeout, context).await?;
        let output = executed.output;
        let mut result = match executed.code {
            Some(0) => output,
            Some(code) => format!("{output}\n[exit code {code}]"),
            None => format!("{output}\n[terminated by a signal]"),
        };
        // The person reviews what the model was told: what this call could have changed.
        if let Some(what) = executed.unprotected {
            result.push_str(&format!("\n[not kept read-only in this call: {what}]"));
        }
        Ok(result)
    }

    /// Runs `command` as a call of the tool does (deny list, sandbox, timeout, output cap) and
    /// returns its output, exit code and what it could not keep read-only, apart: what the task
    /// evals' `command` checks read, which the text of a result could forge.
    pub(crate) async fn execute(
        &self,
        command: &str,
        timeout: Option<Duration>,
        context: &ToolContext,
    ) -> Result<Executed, ToolError> {
        if command.trim().is_empty() {
            return Err(ToolError::new(
                ToolErrorKind::InvalidInput,
                "the command is empty",
            ));
        }
        if let Some(pattern) = self.denied_by(command) {
            return Err(ToolError::new(
                ToolErrorKind::Denied,
                format!("the command matches the deny list entry `{pattern}`"),
            )
            .suggest("do this another way, limited to the working directory, or ask the user"));
        }
        let timeout = timeout
            .unwrap_or(self.options.timeout)
            .min(self.options.max_timeout);

        let (reader, writer) =
            std::io::pipe().map_err(|e| ToolError::io("open a pipe for", "bash", &e))?;
        let mut running = launch(
            &self.options.sandbox,
            context.workdir(),
            command,
            &self.environment(),
            writer,
        )
        .await?;

        let cap_bytes = self.options.max_output_chars.saturating_mul(4);
        let captured = Arc::new(Mutex::new(Captured::default()));
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        {
            let captured = Arc::clone(&captured);
            // A plain thread: the pipe reader is blocking. It ends when the last process holding
            // the pipe is gone, which the call guarantees when it returns.
            std::thread::spawn(move || {
                let mut reader = reader;
                let mut buf = [0u8; 16 * 1024];
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let mut c = captured.lock().unwrap_or_else(|p| p.into_inner());
                            c.total = c.total.saturating_add(n);
                            let room = cap_bytes.saturating_sub(c.head.len());
                            let to_head = room.min(n);
                            c.head.extend_from_slice(&buf[..to_head]);
                            c.tail.extend_from_slice(&buf[to_head..n]);
                            if c.tail.len() > 2 * cap_bytes {
                                let excess = c.tail.len() - cap_bytes;
                                c.tail.drain(..excess);
                            }
                        }
                    }
                }
                let _ = done_tx.send(());
            });
        }

        // `wait` returns once every process of the call is gone (with the namespaces the kernel
        // sees to it; otherwise the sweep); on timeout the command is killed first.
        let status = match tokio::time::timeout(timeout, running.wait()).await {
            Ok(status) => status?,
            Err(_) => {
                running.kill().await;
                if let Ok(status) = running.wait().await {
                    // Only for its warnings and the call's cleanup: the result is the timeout.
                    let _ = running.finish(status);
                }
                let _ = tokio::time::timeout(self.options.drain_grace, done_rx).await;
                let output = self.render(&captured);
                tracing::warn!(
                    timeout_ms = timeout.as_millis() as u64,
                    "bash command timed out; its processes were killed"
                );
                return Err(ToolError::new(
                    ToolErrorKind::Timeout,
                    format!(
                        "the command did not finish within {} ms and was killed with its child \
                         processes. Output so far:\n{output}",
                        timeout.as_millis()
                    ),
                )
                .suggest("run a shorter or narrower command, or pass a larger timeout_ms"));
            }
        };
        let finished = running.finish(status)?;
        // Every writer of the pipe is gone, so the reader reaches the end promptly; the grace
        // bounds the wait should a process have escaped the sweep (fallback, unconfined).
        let _ = tokio::time::timeout(self.options.drain_grace, done_rx).await;
        let mut output = self.render(&captured);
        if output.is_empty() {
            output.push_str("(no output)");
        }
        Ok(Executed {
            output,
            code: finished.status.code(),
            unprotected: finished.unprotected,
        })
    }

    /// The command's environment: the variables of [`BashOptions::env`] the agent has, and
    /// `PATH` ([`FALLBACK_PATH`] when the agent has none or it is not passed on).
    fn environment(&self) -> Vec<(OsString, OsString)> {
        let mut env: Vec<(OsString, OsString)> = self
            .options
            .env
            .iter()
            .filter_map(|name| Some((OsString::from(name), std::env::var_os(name)?)))
            .collect();
        if !env.iter().any(|(name, _)| name == "PATH") {
            env.push(("PATH".into(), FALLBACK_PATH.into()));
        }
        env
    }

    /// The captured output as text, cut to the character cap: the first 80 % and the last 20 %.
    fn render(&self, captured: &Mutex<Captured>) -> String {
        let c = captured.lock().unwrap_or_else(|p| p.into_inner());
        let max = self.options.max_output_chars;
        let head = String::from_utf8_lossy(&c.head);
        let tail = String::from_utf8_lossy(&c.tail);
        let head_chars = head.chars().count();
        let tail_chars = tail.chars().count();
        if head_chars + tail_chars <= max && c.total == c.head.len() + c.tail.len() {
            let mut all = head.into_owned();
            all.push_str(&tail);
            return all.trim_end().to_owned();
        }
        let keep_tail = (max / 5).min(tail_chars);
        let keep_head = (max - keep_tail).min(head_chars);
        let head_part: String = head.chars().take(keep_head).collect();
        let tail_part: String = tail.chars().skip(tail_chars - keep_tail).collect();
        format!(
            "{head_part}\n[... output cut: {} bytes in total, showing the first {keep_head} and \
             the last {keep_tail} characters ...]\n{tail_part}",
            c.total
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_list_matches_words_not_prefixes() {
        let bash = Bash::default();
        assert!(bash.denied_by("rm -rf /").is_some());
        assert!(bash.denied_by("cd x &&  rm  -rf  / ").is_some());
        assert!(bash.denied_by("sudo apt install x").is_some());
        assert!(bash.denied_by("mkfs.ext4 /dev/sdb").is_some());
        assert!(bash.denied_by("rm -rf /tmp/build").is_none());
        assert!(bash.denied_by("rm -rf ./target").is_none());
        assert!(bash.denied_by("echo pseudocode").is_none());
        assert!(bash.denied_by("cargo test").is_none());
    }
}
