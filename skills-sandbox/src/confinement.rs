//! The confinement report: which level of sandbox a call got, and which guarantees hold at that
//! level on this kernel.

use std::fmt;

/// How a call is sandboxed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Level {
    /// New user, network, PID, IPC, UTS and mount namespaces, with seccomp, limits and Landlock
    /// inside.
    Namespaces,
    /// No namespaces (the kernel refuses them, or [`Mode::Fallback`](crate::Mode::Fallback)):
    /// Landlock, seccomp, limits, no capabilities and `no_new_privs`.
    Fallback,
}

impl Level {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Level::Namespaces => "namespaces",
            Level::Fallback => "fallback",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Level> {
        match text {
            "namespaces" => Some(Level::Namespaces),
            "fallback" => Some(Level::Fallback),
            _ => None,
        }
    }
}

/// What the kernel's Landlock enforced of the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LandlockStatus {
    /// Every rule.
    Full,
    /// Some: the kernel's Landlock ABI is older than the rules (network rules need ABI 4,
    /// signal and abstract socket scoping ABI 6).
    Partial,
    /// None: no Landlock in this kernel, or it is disabled.
    None,
}

impl LandlockStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LandlockStatus::Full => "full",
            LandlockStatus::Partial => "partial",
            LandlockStatus::None => "none",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<LandlockStatus> {
        match text {
            "full" => Some(LandlockStatus::Full),
            "partial" => Some(LandlockStatus::Partial),
            "none" => Some(LandlockStatus::None),
            _ => None,
        }
    }
}

/// One promise of the sandbox. [`Confinement::holds`] says whether it holds for a call; each
/// has an adversarial test in the crate's `tests/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Guarantee {
    /// No capability over anything outside the sandbox and none inside, whatever the caller's
    /// user (root included): no `CAP_NET_ADMIN`, no `mknod`, no `sethostname` of the host.
    NoCapabilities,
    /// The command is nobody to the host's files: a root caller's command runs as the overflow
    /// user (65534) to them, so it owns none of root's and reads none that only root may, while
    /// what it writes in the working directory still belongs to the caller (an idmapped mount).
    /// A caller that is not root gives its own user, as without a sandbox.
    NobodyToHost,
    /// Reads are limited to the system folders, the working directory, `/tmp` and the policy's
    /// paths; writes to the working directory, `/tmp` and the policy's read-write paths.
    FilesConfined,
    /// No write and no metadata change (mode, owner, extended attributes, file capabilities,
    /// set-user-ID bits) outside the writable paths, even for a caller that is root.
    NoMetadataChanges,
    /// No set-user-ID or set-group-ID bit and no file capability on any file, the command's own
    /// in the working directory included: nothing it leaves grants a privilege to whoever runs
    /// it later.
    NoSetIdFiles,
    /// No home folder, `/run`, other users' files, host-wide `/proc` tables (keys, kernel
    /// symbols, timers, ...) or host daemon's Unix socket at a path (docker, D-Bus,
    /// `ssh-agent`) is reachable.
    HostHidden,
    /// No TCP, MPTCP, Fast Open, `listen` without `bind`, UDP, DNS or ICMP to anything outside,
    /// and no abstract Unix socket of the host (only when the network is not allowed).
    NoNetwork,
    /// When the call ends, every process it started is gone, however deep the chain; calls can
    /// run in parallel.
    ProcessCleanup,
    /// No System V or POSIX IPC object of the host is reachable.
    PrivateIpc,
    /// A private `/tmp` and `/dev/shm`, sharing one size cap, gone with the call whatever the
    /// modes inside.
    PrivateTmp,
    /// Version control metadata at any depth of the working directory, and what git's settings
    /// make it run there, are read-only (unless the policy opens them; see
    /// [`Protected`](crate::Protected)), with nothing left uncovered
    /// ([`Confinement::unprotected`]).
    VcsReadOnly,
    /// No signal reaches a process outside the sandbox.
    NoSignalsOut,
    /// No resource limit, priority, I/O priority, scheduling policy, CPU affinity or memory
    /// placement of a process outside the sandbox can be changed.
    NoProcessControlOut,
    /// The command has no controlling terminal: it cannot write to or read the person's
    /// terminal through `/dev/tty`.
    NoTerminal,
    /// No descriptor above the standard streams reaches the command, whatever the caller or
    /// its launcher left open (a socket, a file, a folder, a terminal).
    NothingInherited,
    /// The system call filter refuses keyrings, `ptrace`, `bpf`, `perf_event_open`,
    /// `userfaultfd`, `io_uring`, kernel modules and `kexec`, mounts, new namespaces, and
    /// sockets of unneeded families (netlink audit, packet, vsock, ...) and protocols (MPTCP,
    /// SCTP).
    SyscallFilter,
    /// Address space, open files, file size and CPU time are capped per process.
    ResourceLimits,
    /// The call's processes and threads are capped (a fork bomb ends bounded).
    ProcessLimit,
}

impl Guarantee {
    /// Every guarantee, in the order of the threat table.
    pub const ALL: &'static [Guarantee] = &[
        Guarantee::NoCapabilities,
        Guarantee::NobodyToHost,
        Guarantee::FilesConfined,
        Guarantee::NoMetadataChanges,
        Guarantee::NoSetIdFiles,
        Guarantee::HostHidden,
        Guarantee::NoNetwork,
        Guarantee::ProcessCleanup,
        Guarantee::PrivateIpc,
        Guarantee::PrivateTmp,
        Guarantee::VcsReadOnly,
        Guarantee::NoSignalsOut,
        Guarantee::NoProcessControlOut,
        Guarantee::NoTerminal,
        Guarantee::NothingInherited,
        Guarantee::SyscallFilter,
        Guarantee::ResourceLimits,
        Guarantee::ProcessLimit,
    ];

    /// A short description, for a start-up message or a table.
    pub fn describe(self) -> &'static str {
        match self {
            Guarantee::NoCapabilities => "no capabilities, inside or outside, even as root",
            Guarantee::NobodyToHost => {
                "nobody to the host's files: a root caller's command owns and reads none of root's"
            }
            Guarantee::FilesConfined => {
                "files: read the system folders, workdir, /tmp and the policy's paths; write the \
                 workdir, /tmp and the read-write paths"
            }
            Guarantee::NoMetadataChanges => {
                "no writes or metadata changes (mode, owner, xattrs, capabilities, set-user-ID) \
                 outside the writable paths, even as root"
            }
            Guarantee::NoSetIdFiles => {
                "no set-user-ID, set-group-ID bit or file capability on any file it makes"
            }
            Guarantee::HostHidden => {
                "the host's folders not there (home, /run, other users' files, host /proc \
                 tables), nor a Unix socket at a path (docker, D-Bus, ssh-agent) to connect to"
            }
            Guarantee::NoNetwork => {
                "no network: no TCP, MPTCP, Fast Open, UDP, DNS, ICMP or host abstract socket"
            }
            Guarantee::ProcessCleanup => {
                "nothing the call starts outlives it; calls can run in parallel"
            }
            Guarantee::PrivateIpc => "no System V or POSIX IPC of the host",
            Guarantee::PrivateTmp => {
                "a private /tmp and /dev/shm, one size cap for both, gone with the call"
            }
            Guarantee::VcsReadOnly => {
                "version control metadata at any depth and what git's settings run: read-only"
            }
            Guarantee::NoSignalsOut => "no signals to processes outside the sandbox",
            Guarantee::NoProcessControlOut => {
                "no limits, priority, scheduling or CPU affinity of processes outside changed"
            }
            Guarantee::NoTerminal => "no controlling terminal (/dev/tty)",
            Guarantee::NothingInherited => {
                "no descriptor of the caller's above stdin, stdout and stderr"
            }
            Guarantee::SyscallFilter => {
                "seccomp refuses keyrings, ptrace, bpf, io_uring, mounts, new namespaces, MPTCP, \
                 SCTP and raw socket families"
            }
            Guarantee::ResourceLimits => "address space, open files, file size and CPU time capped",
            Guarantee::ProcessLimit => "processes and threads of the call capped",
        }
    }
}

/// What a call got, or what calls will get on this kernel ([`Policy::probe`](crate::Policy::probe)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confinement {
    pub(crate) level: Level,
    pub(crate) landlock: LandlockStatus,
    /// Whether the PID namespace's `pid_max` caps the call's processes (kernels 6.14+).
    pub(crate) pid_max: bool,
    pub(crate) network_allowed: bool,
    pub(crate) vcs_writable: bool,
    pub(crate) caller_is_root: bool,
    /// Whether the command was nobody to the host's files (a root caller's, mapped).
    pub(crate) nobody: bool,
    /// What the working directory's read-only part did not cover.
    pub(crate) unprotected: Option<String>,
    pub(crate) fallback_reason: Option<String>,
}

impl Confinement {
    /// The level of sandbox.
    pub fn level(&self) -> Level {
        self.level
    }

    /// What Landlock enforced.
    pub fn landlock(&self) -> LandlockStatus {
        self.landlock
    }

    /// Why the call runs in the fallback, when [`Mode::Preferred`](crate::Mode::Preferred) chose
    /// it because the kernel refused namespaces.
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback_reason.as_deref()
    }

    /// What a command could still write of what the working directory keeps read-only, when
    /// the call left anything uncovered (see [`Protected::unprotected`](crate::Protected::unprotected)).
    pub fn unprotected(&self) -> Option<&str> {
        self.unprotected.as_deref()
    }

    /// Whether `guarantee` holds. [`Guarantee::NoNetwork`] does not when the policy allows the
    /// network, nor [`Guarantee::VcsReadOnly`] when it opens version control metadata.
    pub fn holds(&self, guarantee: Guarantee) -> bool {
        let namespaces = self.level == Level::Namespaces;
        let landlock = self.landlock != LandlockStatus::None;
        // Landlock's signal and abstract socket scoping need ABI 6, reported as full here.
        let scoped = self.landlock == LandlockStatus::Full;
        match guarantee {
            Guarantee::NoCapabilities
            | Guarantee::NoSetIdFiles
            | Guarantee::NoTerminal
            | Guarantee::NothingInherited
            | Guarantee::SyscallFilter
            | Guarantee::ResourceLimits => true,
            // Fallback: the filter refuses these calls on any process but the caller.
            Guarantee::NoProcessControlOut => true,
            // Fallback: root's files are root's; a caller that is not root is itself.
            Guarantee::NobodyToHost => !self.caller_is_root || (namespaces && self.nobody),
            Guarantee::FilesConfined => namespaces || landlock,
            // Fallback: Landlock covers reads and writes but not metadata, nor `connect` to a
            // socket file; the private TMPDIR is a host folder; no PID namespace.
            Guarantee::NoMetadataChanges
            | Guarantee::HostHidden
            | Guarantee::ProcessCleanup
            | Guarantee::PrivateTmp => namespaces,
            Guarantee::VcsReadOnly => {
                namespaces && !self.vcs_writable && self.unprotected.is_none()
            }
            // Fallback: seccomp refuses every IPv4 and IPv6 socket; Landlock's scoping keeps the
            // host's abstract sockets out.
            Guarantee::NoNetwork => !self.network_allowed && (namespaces || scoped),
            // Fallback: seccomp refuses System V IPC and message queues; Landlock keeps
            // `/dev/shm` out.
            Guarantee::PrivateIpc => namespaces || landlock,
            Guarantee::NoSignalsOut => namespaces || scoped,
            // RLIMIT_NPROC does not apply to root; the namespace's pid_max does, and so does
            // RLIMIT_NPROC to a root caller's command that is nobody (uid 0 of its own user
            // namespace).
            Guarantee::ProcessLimit => {
                namespaces && (!self.caller_is_root || self.pid_max || self.nobody)
            }
        }
    }

    /// The guarantees that do not hold, in the order of [`Guarantee::ALL`].
    pub fn lost(&self) -> Vec<Guarantee> {
        Guarantee::ALL
            .iter()
            .copied()
            .filter(|&g| !self.holds(g))
            .collect()
    }
}

impl fmt::Display for Confinement {
    /// One line naming the level, then one line per guarantee that does not hold.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.level {
            Level::Namespaces => f.write_str(
                "sandboxed by user, network, PID, IPC, UTS and mount namespaces, seccomp and \
                 resource limits",
            )?,
            Level::Fallback => {
                f.write_str("sandboxed WITHOUT namespaces (Landlock, seccomp, resource limits)")?
            }
        }
        write!(f, "; Landlock {}", self.landlock.as_str())?;
        if let Some(reason) = &self.fallback_reason {
            write!(f, " ({reason})")?;
        }
        for lost in self.lost() {
            write!(f, "\n  does not hold: {}", lost.describe())?;
        }
        if let Some(what) = self.unprotected.as_ref().filter(|_| !self.vcs_writable) {
            write!(f, "\n  not kept read-only: {what}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confinement(level: Level) -> Confinement {
        Confinement {
            level,
            landlock: LandlockStatus::Full,
            pid_max: true,
            network_allowed: false,
            vcs_writable: false,
            caller_is_root: false,
            nobody: false,
            unprotected: None,
            fallback_reason: None,
        }
    }

    #[test]
    fn namespaces_with_full_landlock_lose_nothing() {
        assert_eq!(confinement(Level::Namespaces).lost(), Vec::new());
    }

    #[test]
    fn the_fallback_says_what_it_loses() {
        assert_eq!(
            confinement(Level::Fallback).lost(),
            vec![
                Guarantee::NoMetadataChanges,
                Guarantee::HostHidden,
                Guarantee::ProcessCleanup,
                Guarantee::PrivateTmp,
                Guarantee::VcsReadOnly,
                Guarantee::ProcessLimit,
            ]
        );
        let without_landlock = Confinement {
            landlock: LandlockStatus::None,
            ..confinement(Level::Fallback)
        };
        for lost in [
            Guarantee::FilesConfined,
            Guarantee::NoNetwork,
            Guarantee::PrivateIpc,
            Guarantee::NoSignalsOut,
        ] {
            assert!(!without_landlock.holds(lost), "{lost:?}");
        }
    }

    #[test]
    fn policy_choices_are_not_promised() {
        let open = Confinement {
            network_allowed: true,
            vcs_writable: true,
            ..confinement(Level::Namespaces)
        };
        assert_eq!(
            open.lost(),
            vec![Guarantee::NoNetwork, Guarantee::VcsReadOnly]
        );
    }

    #[test]
    fn a_root_caller_needs_to_be_nobody_or_the_namespace_pid_max() {
        let root = Confinement {
            caller_is_root: true,
            pid_max: false,
            ..confinement(Level::Namespaces)
        };
        assert_eq!(
            root.lost(),
            vec![Guarantee::NobodyToHost, Guarantee::ProcessLimit]
        );
        let nobody = Confinement {
            nobody: true,
            ..root.clone()
        };
        assert_eq!(nobody.lost(), Vec::new());
        let fallback = Confinement {
            level: Level::Fallback,
            ..nobody
        };
        assert!(!fallback.holds(Guarantee::NobodyToHost));
    }

    #[test]
    fn what_the_walk_left_uncovered_is_said() {
        let gap = Confinement {
            unprotected: Some("git's settings name /w/.githooks".to_owned()),
            ..confinement(Level::Namespaces)
        };
        assert_eq!(gap.lost(), vec![Guarantee::VcsReadOnly]);
        assert!(
            gap.to_string()
                .ends_with("not kept read-only: git's settings name /w/.githooks")
        );
    }

    #[test]
    fn display_names_the_level_and_every_loss() {
        let text = confinement(Level::Fallback).to_string();
        assert!(text.starts_with("sandboxed WITHOUT namespaces"), "{text}");
        assert_eq!(text.matches("does not hold").count(), 6, "{text}");
    }
}
