//! Kernel confinement of `bash`: Landlock rules for the command and every process it starts.
//!
//! Landlock restricts the calling thread and everything it forks or execs afterwards, `setsid`
//! and double forks included, and cannot be lifted. So each `bash` call gets a dedicated thread
//! that restricts itself with `Sandbox::restrict_current_thread` and then spawns the command
//! (see the `process` module); the agent's other threads keep their rights. No `unsafe` is
//! needed.
//!
//! What the rules allow:
//! - read, write, create and delete beneath the working directory, the call's private temporary
//!   directory and [`Sandbox::read_write`];
//! - read and execute beneath [`SYSTEM_READ_ONLY`] (what a shell and the usual tools need) and
//!   [`Sandbox::read_only`];
//! - nothing else of the filesystem: not `/home`, not `/etc/passwd`, not `/proc` (so not the
//!   agent's own environment), not the parent of the working directory;
//! - no TCP connect or bind unless [`Sandbox::allow_network`] (kernels with Landlock ABI 4+);
//! - no signals to processes outside the sandbox and no abstract Unix sockets created outside it
//!   (ABI 6+), so the command cannot kill the agent or talk to other local services that way.
//!
//! Not covered by Landlock, and so not promised: UDP and other non-TCP protocols, resource use
//! (CPU, memory, process count; the call's timeout and output cap bound time and output only).

use std::fmt;
use std::path::{Path, PathBuf};

/// Read-only system paths the sandboxed shell may read and execute from: the usual program and
/// library folders and the few files of `/etc` that the dynamic linker and common tools read.
/// Paths that do not exist on a machine are skipped.
pub const SYSTEM_READ_ONLY: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
];

/// Device files every shell script expects, readable and writable.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Whether `bash` runs confined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SandboxMode {
    /// Confine every command; where the kernel cannot (no Landlock, or an older ABI that lacks
    /// some rules), run it anyway and log a warning for each call. The default.
    #[default]
    Preferred,
    /// Confine every command, or refuse to run it: a call on a kernel that cannot enforce every
    /// rule returns a `denied` error instead of running unconfined.
    Required,
    /// No Landlock rules: the command can read and write whatever the agent's user can. The
    /// environment allowlist and the process cleanup still apply.
    Off,
}

/// The Landlock policy of the `bash` tool. [`Sandbox::default`] is [`SandboxMode::Preferred`],
/// no extra paths, no network.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sandbox {
    /// Whether to confine, and what to do when the kernel cannot.
    pub mode: SandboxMode,
    /// Extra paths the command may read and execute from (a toolchain, say `~/.cargo`).
    pub read_only: Vec<PathBuf>,
    /// Extra paths the command may also write to.
    pub read_write: Vec<PathBuf>,
    /// Allow TCP connect and bind (default: denied).
    pub allow_network: bool,
}

/// How far the kernel enforced a [`Sandbox`] for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Confinement {
    /// Every rule is enforced.
    Full,
    /// Some rules are enforced; the kernel's Landlock ABI lacks others (the text says which
    /// protections may be missing).
    Partial(String),
    /// Nothing is enforced: the kernel has no Landlock, or it is disabled.
    None(String),
    /// The sandbox is [`SandboxMode::Off`].
    Off,
}

impl Confinement {
    /// Whether every rule holds.
    pub fn is_full(&self) -> bool {
        matches!(self, Confinement::Full)
    }
}

impl fmt::Display for Confinement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Confinement::Full => f.write_str("confined by Landlock (all rules enforced)"),
            Confinement::Partial(why) => write!(f, "partly confined by Landlock: {why}"),
            Confinement::None(why) => write!(f, "NOT confined: {why}"),
            Confinement::Off => f.write_str("NOT confined: the sandbox is switched off"),
        }
    }
}

impl Sandbox {
    /// A sandbox that is switched off (see [`SandboxMode::Off`]).
    pub fn off() -> Self {
        Sandbox {
            mode: SandboxMode::Off,
            ..Sandbox::default()
        }
    }

    /// A sandbox that refuses to run commands unconfined (see [`SandboxMode::Required`]).
    pub fn required() -> Self {
        Sandbox {
            mode: SandboxMode::Required,
            ..Sandbox::default()
        }
    }

    /// What this kernel would enforce for this sandbox, found by restricting a short-lived
    /// thread of its own (the caller's rights are untouched). For a start-up message.
    pub fn probe(&self, workdir: &Path) -> Confinement {
        let sandbox = self.clone();
        let workdir = workdir.to_owned();
        std::thread::spawn(move || sandbox.restrict_current_thread(&[&workdir]))
            .join()
            .unwrap_or_else(|_| Confinement::None("the probe thread failed".to_owned()))
    }

    /// Restricts the calling thread (and every process it starts from now on) to this policy,
    /// with read-write access beneath `writable`. Irreversible: call it only on a thread made
    /// for the purpose. Also sets `no_new_privs`, so set-user-ID programs gain nothing.
    pub(crate) fn restrict_current_thread(&self, writable: &[&Path]) -> Confinement {
        if self.mode == SandboxMode::Off {
            set_no_new_privs();
            return Confinement::Off;
        }
        landlock_rules::restrict(self, writable)
    }
}

/// `no_new_privs` for the calling thread (Landlock sets it itself when it restricts). It also
/// marks every process the call starts, which is how the process cleanup recognizes them.
fn set_no_new_privs() {
    #[cfg(target_os = "linux")]
    if let Err(error) = rustix::thread::set_no_new_privs(true) {
        tracing::warn!(%error, "cannot set no_new_privs for bash");
    }
}

#[cfg(target_os = "linux")]
mod landlock_rules {
    use std::path::Path;

    use landlock::{
        ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError,
        RulesetStatus, Scope, path_beneath_rules,
    };

    use super::{Confinement, DEVICES, SYSTEM_READ_ONLY, Sandbox};

    /// The newest ABI whose rights are requested (best effort: older kernels enforce what they
    /// know and the status says "partial").
    const ABI_TARGET: ABI = ABI::V6;

    pub(super) fn restrict(sandbox: &Sandbox, writable: &[&Path]) -> Confinement {
        match try_restrict(sandbox, writable) {
            Ok(RulesetStatus::FullyEnforced) => Confinement::Full,
            Ok(RulesetStatus::PartiallyEnforced) => Confinement::Partial(
                "this kernel's Landlock is older than ABI 6: network, signal or socket rules may \
                 be missing"
                    .to_owned(),
            ),
            Ok(RulesetStatus::NotEnforced) => Confinement::None(
                "this kernel does not support Landlock, or it is disabled".to_owned(),
            ),
            Err(error) => Confinement::None(format!("Landlock refused the rules: {error}")),
        }
    }

    fn try_restrict(sandbox: &Sandbox, writable: &[&Path]) -> Result<RulesetStatus, RulesetError> {
        let abi = ABI_TARGET;
        let mut ruleset = Ruleset::default()
            .handle_access(AccessFs::from_all(abi))?
            .scope(Scope::from_all(abi))?;
        if !sandbox.allow_network {
            // Handled with no rule allowing any port: every TCP connect and bind is denied.
            ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
        }
        let read_only = SYSTEM_READ_ONLY
            .iter()
            .map(Path::new)
            .chain(sandbox.read_only.iter().map(|p| p.as_path()));
        let read_write = writable
            .iter()
            .copied()
            .chain(sandbox.read_write.iter().map(|p| p.as_path()))
            .chain(DEVICES.iter().map(Path::new));
        let status = ruleset
            .create()?
            .add_rules(path_beneath_rules(read_only, AccessFs::from_read(abi)))?
            .add_rules(path_beneath_rules(read_write, AccessFs::from_all(abi)))?
            .restrict_self()?;
        Ok(status.ruleset)
    }
}

#[cfg(not(target_os = "linux"))]
mod landlock_rules {
    use std::path::Path;

    use super::{Confinement, Sandbox};

    pub(super) fn restrict(_: &Sandbox, _: &[&Path]) -> Confinement {
        Confinement::None("Landlock exists only on Linux".to_owned())
    }
}
