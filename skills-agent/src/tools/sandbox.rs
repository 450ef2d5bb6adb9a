//! The sandbox of the `bash` tool: [`Sandbox`], the agent's settings, mapped onto a
//! [`sandbox::Policy`](crate::sandbox::Policy) of the `skills-sandbox` crate (re-exported as
//! [`crate::sandbox`]), which builds it.
//!
//! Every call gets new user, network, PID, IPC, UTS and mount namespaces, a seccomp filter,
//! resource limits and Landlock inside (see the crate docs of [`crate::sandbox`]); where the
//! kernel refuses unprivileged user namespaces, the fallback (Landlock, seccomp, limits) runs
//! instead and says what it loses. The sandbox is built by the program's own binary started
//! again, so the program's `main` calls [`sandbox::enter`](crate::sandbox::enter) first.

use std::path::PathBuf;

use crate::sandbox::{Confinement, Entry, Limits, SandboxError};

/// Whether `bash` runs sandboxed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SandboxMode {
    /// The namespace sandbox where the kernel allows unprivileged user namespaces; where it
    /// refuses them, the fallback (Landlock, seccomp, limits), with a warning for each call that
    /// names the guarantees it loses. Outside Linux, commands run unconfined with a warning. The
    /// default.
    #[default]
    Preferred,
    /// The namespace sandbox, or a `denied` error instead of running the command.
    Required,
    /// No sandbox: the command can read and write whatever the agent's user can, and each call
    /// logs a warning. The environment allowlist still applies, and the processes a call starts
    /// are swept when it ends (see [`BashOptions`](crate::BashOptions)).
    Off,
}

/// The sandbox of the `bash` tool. [`Sandbox::default`] is [`SandboxMode::Preferred`], no
/// extra paths, no network, version control metadata read-only, the default [`Limits`], and
/// the running program as the [`Entry`].
///
/// The command sees the system folders ([`sandbox::SYSTEM_READ_ONLY`](crate::sandbox::SYSTEM_READ_ONLY))
/// and [`read_only`](Sandbox::read_only) read-only, the working directory and
/// [`read_write`](Sandbox::read_write) read-write, a private `/tmp` (its `TMPDIR`), a minimal
/// `/dev`, its own `/proc`, and nothing else of the host: no home folder, no `/run`, no other
/// user's files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sandbox {
    /// Whether to sandbox, and what to do where the kernel cannot build the namespaces.
    pub mode: SandboxMode,
    /// Extra absolute paths the command may read and execute from (a toolchain, say
    /// `~/.cargo`).
    pub read_only: Vec<PathBuf>,
    /// Extra absolute paths the command may also write to.
    pub read_write: Vec<PathBuf>,
    /// Keep the host's network (default: none, only a private loopback).
    pub allow_network: bool,
    /// Let the command, and the file tools, write the working directory's version control
    /// metadata at any depth and what git's settings make it run (default: read-only, so that
    /// no hook, `core.fsmonitor` or filter planted there runs outside the sandbox the next time
    /// the person uses the repository; `git commit` and other writing git commands then fail
    /// inside). See [`sandbox::Protected`](crate::sandbox::Protected).
    pub writable_vcs: bool,
    /// Resource limits per call (defaults: [`Limits::default`]: 8 GiB of address space, 4,096
    /// processes and threads, 4,096 open files, 8 GiB per file, 1,800 CPU seconds per process,
    /// 1 GiB of memory files for `/tmp` and `/dev/shm` together). Wall time is
    /// [`BashOptions::timeout`](crate::BashOptions::timeout).
    pub limits: Limits,
    /// The program that builds the sandbox (default: this program, whose `main` must call
    /// [`sandbox::enter`](crate::sandbox::enter) first).
    pub entry: Entry,
}

impl Sandbox {
    /// A sandbox that is switched off (see [`SandboxMode::Off`]).
    pub fn off() -> Self {
        Sandbox {
            mode: SandboxMode::Off,
            ..Sandbox::default()
        }
    }

    /// A sandbox that refuses to run commands without the namespaces (see
    /// [`SandboxMode::Required`]).
    pub fn required() -> Self {
        Sandbox {
            mode: SandboxMode::Required,
            ..Sandbox::default()
        }
    }

    /// What `bash` calls get on this kernel, for a start-up message: the sandbox's
    /// [`Confinement`] (its level and the guarantees it loses), or `None` when commands run
    /// unconfined ([`SandboxMode::Off`], or [`SandboxMode::Preferred`] outside Linux). It builds
    /// a sandbox once and stops it before any command (a few milliseconds, blocking).
    ///
    /// Errors: the entry line is missing ([`SandboxError::EntryMissing`]), the kernel refuses
    /// the namespaces in [`SandboxMode::Required`] ([`SandboxError::Unavailable`]), a path
    /// cannot be used, or the sandbox cannot be built with these settings.
    pub fn probe(&self) -> Result<Option<Confinement>, SandboxError> {
        let policy = self.policy()?;
        #[cfg(target_os = "linux")]
        return policy.map(|policy| policy.probe()).transpose();
        // No policy is made outside Linux.
        #[cfg(not(target_os = "linux"))]
        return Ok(policy.and(None));
    }

    /// Whether commands can be sandboxed as these settings ask, as far as it can be told
    /// without starting anything: with the sandbox on (Linux), the program's `main` ran the
    /// entry line first ([`SandboxError::EntryMissing`] or [`SandboxError::EntryNotFirst`]
    /// otherwise); [`SandboxMode::Required`] outside Linux is [`SandboxError::Unavailable`].
    /// Off, or preferred outside Linux, there is nothing to check. [`probe`](Self::probe) also
    /// asks the kernel.
    pub fn check_entry(&self) -> Result<(), SandboxError> {
        let policy = self.policy()?;
        #[cfg(target_os = "linux")]
        if let Some(policy) = policy {
            return policy.check_entry();
        }
        #[cfg(not(target_os = "linux"))]
        let _ = policy;
        Ok(())
    }

    /// The sandbox crate's policy for these settings; `None` runs the command unconfined.
    /// Outside Linux there is no sandbox: `None` where it is preferred, an error where it is
    /// required.
    pub(crate) fn policy(&self) -> Result<Option<crate::sandbox::Policy>, SandboxError> {
        use crate::sandbox::{Mode, Policy};
        let mode = match self.mode {
            SandboxMode::Off => return Ok(None),
            SandboxMode::Preferred if cfg!(target_os = "linux") => Mode::Preferred,
            SandboxMode::Required if cfg!(target_os = "linux") => Mode::Required,
            SandboxMode::Preferred => return Ok(None),
            SandboxMode::Required => {
                return Err(SandboxError::Unavailable {
                    reason: "the sandbox exists only on Linux".to_owned(),
                });
            }
        };
        Ok(Some(Policy {
            mode,
            read_only: self.read_only.clone(),
            read_write: self.read_write.clone(),
            allow_network: self.allow_network,
            writable_vcs: self.writable_vcs,
            limits: self.limits,
            entry: self.entry.clone(),
        }))
    }
}
