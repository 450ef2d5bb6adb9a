//! One `bash` command line from start to end: prepared in the sandbox of `skills-sandbox` (or
//! unconfined when it is off), spawned with the caller's environment and output pipe, waited
//! for or killed, and its outcome read back as the command's exit status or a [`ToolError`].
//!
//! With the namespaces the command is a tokio child: killing it (a timeout, a dropped call)
//! ends the call's PID namespace and so every process the command started, and calls run in
//! parallel. In the fallback and unconfined, the `process` module sweeps what the command
//! leaves behind, one call at a time.

use std::ffi::OsString;
use std::io::PipeWriter;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

use super::process;
use super::sandbox::Sandbox;
use super::{ToolError, ToolErrorKind};
use crate::sandbox::SandboxError;

/// What a program does so that `bash` can run: the entry line, as a user of the facade writes
/// it, or the attribute that writes it.
pub(crate) const ENTRY_FIX: &str = "call `skills_runtime::agent::sandbox::enter()` as the first \
line of a plain `main`, or put `#[skills_runtime::main]` in place of `#[tokio::main]`";

/// How a command ended.
pub(crate) struct Finished {
    pub(crate) status: ExitStatus,
    /// What the sandbox could not keep read-only in the working directory for this call.
    pub(crate) unprotected: Option<String>,
}

/// A running command.
pub(crate) enum Launched {
    /// In the namespace sandbox: the kernel contains every process of the call.
    #[cfg(target_os = "linux")]
    Contained {
        child: tokio::process::Child,
        call: crate::sandbox::Call,
    },
    /// In the fallback (with its call) or unconfined (without): swept when it exits.
    Swept {
        running: process::Running,
        #[cfg(target_os = "linux")]
        call: Option<crate::sandbox::Call>,
    },
}

/// Starts `bash -c line` in `workdir` under `sandbox`, with exactly `env` as its environment,
/// no input, and stdout and stderr both written to `output`.
pub(crate) async fn launch(
    sandbox: &Sandbox,
    workdir: &Path,
    line: &str,
    env: &[(OsString, OsString)],
    output: PipeWriter,
) -> Result<Launched, ToolError> {
    let confined = sandbox.confines().map_err(sandbox_error)?;
    #[cfg(target_os = "linux")]
    if confined {
        return launch_sandboxed(sandbox, workdir, line, env, output).await;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = confined;
    tracing::warn!(
        workdir = %workdir.display(),
        "bash runs UNCONFINED (no sandbox): the command can read and write whatever the agent's \
         user can"
    );
    let mut command = Command::new("bash");
    command.arg("-c").arg(line).current_dir(workdir).env_clear();
    configure(&mut command, env, output)?;
    // Its own process group, which the sweep kills first.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let running = process::spawn(command)
        .await
        .map_err(|e| ToolError::io("start", "bash", &e))?;
    Ok(Launched::Swept {
        running,
        #[cfg(target_os = "linux")]
        call: None,
    })
}

#[cfg(target_os = "linux")]
async fn launch_sandboxed(
    policy: &crate::sandbox::Policy,
    workdir: &Path,
    line: &str,
    env: &[(OsString, OsString)],
    output: PipeWriter,
) -> Result<Launched, ToolError> {
    use crate::sandbox::{Level, Prepared};
    let Prepared { mut command, call } = policy
        .prepare(workdir, "bash", ["-c", line])
        .map_err(sandbox_error)?;
    configure(&mut command, env, output)?;
    if call.level() == Level::Namespaces {
        let mut command = tokio::process::Command::from(command);
        // A dropped (cancelled) call kills the sandbox, and with it every process of the call.
        command.kill_on_drop(true);
        let child = command
            .spawn()
            .map_err(|e| ToolError::io("start the sandbox of", "bash", &e))?;
        // `command` goes here, and with it our copies of the pipe's write end.
        return Ok(Launched::Contained { child, call });
    }
    // The fallback: the sandbox's first stage starts a session of its own and becomes the
    // command, so its process group is the command's.
    let running = process::spawn(command)
        .await
        .map_err(|e| ToolError::io("start the sandbox of", "bash", &e))?;
    Ok(Launched::Swept {
        running,
        call: Some(call),
    })
}

/// The environment, no input, and `output` as stdout and stderr (one pipe, interleaved as a
/// terminal shows them). The environment is added to the command's: a prepared sandbox starts
/// from an empty one, and holds the variables that tell its stages what they are.
fn configure(
    command: &mut Command,
    env: &[(OsString, OsString)],
    output: PipeWriter,
) -> Result<(), ToolError> {
    let output2 = output
        .try_clone()
        .map_err(|e| ToolError::io("open a pipe for", "bash", &e))?;
    command
        .envs(env.iter().map(|(name, value)| (name, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::from(output))
        .stderr(Stdio::from(output2));
    Ok(())
}

impl Launched {
    /// Waits for the command to end (with the namespaces, every process of the call; otherwise
    /// the command, then the sweep).
    pub(crate) async fn wait(&mut self) -> Result<ExitStatus, ToolError> {
        let status = match self {
            #[cfg(target_os = "linux")]
            Launched::Contained { child, .. } => child.wait().await,
            Launched::Swept { running, .. } => running.wait().await,
        };
        status.map_err(|e| ToolError::io("wait for", "bash", &e))
    }

    /// Kills the command and everything it started (the sweep catches what left its group).
    pub(crate) async fn kill(&mut self) {
        match self {
            #[cfg(target_os = "linux")]
            Launched::Contained { child, .. } => {
                let _ = child.kill().await;
            }
            Launched::Swept { running, .. } => running.kill(),
        }
    }

    /// The command's exit status, given the status [`Launched::wait`] returned, and what the
    /// sandbox could not keep read-only in the working directory this time, if anything; an
    /// error if the sandbox could not be built or could not start `bash`. Logs a warning when
    /// the call lost a guarantee (the fallback, a gap in what stays read-only), naming it.
    pub(crate) fn finish(self, status: ExitStatus) -> Result<Finished, ToolError> {
        #[cfg(target_os = "linux")]
        let call = match self {
            Launched::Contained { call, .. } => Some(call),
            Launched::Swept { call, .. } => call,
        };
        #[cfg(target_os = "linux")]
        if let Some(call) = call {
            let finished = call.finish(status).map_err(sandbox_error)?;
            let confinement = &finished.confinement;
            let lost = confinement.lost();
            if !lost.is_empty() {
                let lost: Vec<&str> = lost.iter().map(|g| g.describe()).collect();
                tracing::warn!(
                    level = ?confinement.level(),
                    lost = %lost.join("; "),
                    unprotected = confinement.unprotected().unwrap_or(""),
                    "bash ran without some of the sandbox's guarantees"
                );
            }
            return Ok(Finished {
                status: finished.status,
                unprotected: confinement.unprotected().map(str::to_owned),
            });
        }
        #[cfg(not(target_os = "linux"))]
        let _ = self;
        Ok(Finished {
            status,
            unprotected: None,
        })
    }
}

/// A sandbox failure as the model reads it; logged as an error too, since most are the
/// program's to fix (the entry line, the paths of its settings).
fn sandbox_error(error: SandboxError) -> ToolError {
    tracing::error!(%error, "the bash sandbox failed");
    match error {
        SandboxError::Unavailable { .. } => ToolError::new(
            ToolErrorKind::Denied,
            format!("bash refused to run: {error}"),
        )
        .suggest(
            "this agent requires the namespace sandbox, which this kernel refuses; tell \
                     the user, or work without bash",
        ),
        SandboxError::EntryMissing
        | SandboxError::EntryNotFirst { .. }
        | SandboxError::NotAStage { .. } => {
            ToolError::new(ToolErrorKind::Io, format!("bash cannot run: {error}")).suggest(format!(
                "the program running this agent must {ENTRY_FIX}; tell the user, bash will not \
                 work until then"
            ))
        }
        other => ToolError::new(ToolErrorKind::Io, format!("bash cannot run: {other}")),
    }
}
