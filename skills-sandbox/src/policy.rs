//! What a sandboxed command may do: [`Policy`], its [`Mode`], its [`Limits`] and the [`Entry`]
//! program that builds the sandbox.

use std::path::PathBuf;

use crate::confinement::Confinement;
use crate::error::SandboxError;

/// System paths the command may read and execute from, mounted read-only at the same place (in
/// the fallback, Landlock allows reading them). A path that does not exist on a machine is
/// skipped; a symbolic link among them (`/bin -> usr/bin` on merged-`/usr` systems) is recreated
/// as the same link. Of `/etc/ssl` and `/etc/pki` only what TLS clients read (the certificate
/// authorities, OpenSSL's configuration), never the private keys beside them.
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
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/ssl/certs",
    "/etc/ssl/cert.pem",
    "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates",
    "/etc/pki/tls/certs",
    "/etc/pki/tls/cert.pem",
    "/etc/pki/tls/openssl.cnf",
    "/etc/pki/ca-trust/extracted",
];

/// The device files the command gets, readable and writable. Nothing else is under `/dev` but
/// the `fd`, `stdin`, `stdout` and `stderr` links into `/proc/self/fd` and a private `shm` (for
/// POSIX semaphores and shared memory, in the call's memory files with `/tmp`).
pub const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// Names of version control metadata, read-only at any depth of the working directory unless
/// [`Policy::writable_vcs`] (with what git's settings make it run: see [`Protected`]): a hook
/// or `core.fsmonitor` planted there would run outside the sandbox the next time the person
/// uses the repository.
///
/// [`Protected`]: crate::Protected
pub const VCS_METADATA: &[&str] = &[".git", ".hg", ".svn"];

/// How strictly to sandbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mode {
    /// Namespaces where the kernel allows unprivileged user namespaces, the fallback
    /// (Landlock, seccomp, limits, `no_new_privs`) where it refuses them. The default.
    #[default]
    Preferred,
    /// Namespaces or nothing: where the kernel refuses them, preparing a command fails with
    /// [`SandboxError::Unavailable`](crate::SandboxError::Unavailable).
    Required,
    /// The fallback even where namespaces would work (to measure it, or to test it).
    Fallback,
    /// No sandbox: the caller runs its commands itself, unconfined, and this crate builds
    /// nothing. [`Policy::probe`] says `None`, [`Policy::check_entry`] has nothing to check, and
    /// [`Policy::prepare`] refuses with [`SandboxError::Off`](crate::SandboxError::Off).
    Off,
}

/// The program that builds the sandbox: a copy of a binary whose `main` calls
/// [`enter`](crate::enter) first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The running program itself (`/proc/self/exe`), which must have called
    /// [`enter`](crate::enter) as the first line of `main`. The default.
    #[default]
    CurrentExe,
    /// Another executable that calls [`enter`](crate::enter) first: a helper a program ships,
    /// or a test binary. It should be built with the same version of this crate.
    Program(PathBuf),
}

/// Resource limits of one call, set as soft and hard limits on every process of the sandbox.
/// `None` leaves the limit the caller has. A limit larger than the caller's own hard limit is
/// lowered to it (raising a hard limit needs a privilege the sandbox does not have).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Address space of each process, in bytes (`RLIMIT_AS`; default 8 GiB). An allocation past
    /// it fails (`MemoryError`, `ENOMEM`).
    pub address_space: Option<u64>,
    /// Processes and threads of the call, together (default 4,096). With namespaces it counts
    /// only the call's own (`RLIMIT_NPROC` in the call's user namespace, and the `pid_max` of its
    /// PID namespace on kernels 6.14 and later, which also holds when the caller is root and
    /// enforces at least 300); in the fallback `RLIMIT_NPROC` counts every process of the
    /// caller's user and does not apply to root.
    pub processes: Option<u64>,
    /// Open files per process (`RLIMIT_NOFILE`; default 4,096).
    pub open_files: Option<u64>,
    /// Largest file a process may write, in bytes (`RLIMIT_FSIZE`; default 8 GiB).
    pub file_size: Option<u64>,
    /// CPU time of each process, in seconds (`RLIMIT_CPU`; default 1,800); the kernel kills a
    /// process that uses it up. Wall time is the caller's timeout.
    pub cpu_seconds: Option<u64>,
    /// Memory for the call's files, in bytes (default 1 GiB): the private `/tmp` and `/dev/shm`
    /// are two folders of one `tmpfs` of this size, lowered to
    /// [`address_space`](Limits::address_space) when that is smaller, so that what a call keeps
    /// in memory files is bounded as a whole and never more than one of its processes may
    /// allocate. Memory a file system holds counts against no process's address space, so
    /// this is the cap on it: N calls at once hold at most N times this in files. Not enforced
    /// by the fallback, whose `TMPDIR` is a folder on the host's disk.
    pub tmp_size: u64,
}

impl Limits {
    /// The default address space limit: 8 GiB.
    pub const DEFAULT_ADDRESS_SPACE: u64 = 8 << 30;
    /// The default number of processes and threads: 4,096.
    pub const DEFAULT_PROCESSES: u64 = 4096;
    /// The default number of open files: 4,096.
    pub const DEFAULT_OPEN_FILES: u64 = 4096;
    /// The default largest file: 8 GiB.
    pub const DEFAULT_FILE_SIZE: u64 = 8 << 30;
    /// The default CPU time per process: 1,800 s.
    pub const DEFAULT_CPU_SECONDS: u64 = 1800;
    /// The default memory for `/tmp` and `/dev/shm` together: 1 GiB.
    pub const DEFAULT_TMP_SIZE: u64 = 1 << 30;

    /// The size of the call's memory file system: [`tmp_size`](Limits::tmp_size), at most the
    /// address space of one process.
    pub fn memory_files(&self) -> u64 {
        self.address_space
            .map_or(self.tmp_size, |limit| self.tmp_size.min(limit))
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            address_space: Some(Self::DEFAULT_ADDRESS_SPACE),
            processes: Some(Self::DEFAULT_PROCESSES),
            open_files: Some(Self::DEFAULT_OPEN_FILES),
            file_size: Some(Self::DEFAULT_FILE_SIZE),
            cpu_seconds: Some(Self::DEFAULT_CPU_SECONDS),
            tmp_size: Self::DEFAULT_TMP_SIZE,
        }
    }
}

/// The sandbox of a command. [`Policy::default`] is [`Mode::Preferred`], no extra paths, no
/// network, version control metadata read-only, the default [`Limits`], the running program as
/// the [`Entry`].
///
/// With namespaces the command sees a fresh root: [`SYSTEM_READ_ONLY`] and
/// [`read_only`](Policy::read_only) read-only, the working directory and
/// [`read_write`](Policy::read_write) read-write (`nodev`, `nosuid`), a private `/tmp`, the
/// [`DEVICES`], its own `/proc`, and nothing else of the host. Paths keep their host names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Namespaces, fallback, or namespaces required.
    pub mode: Mode,
    /// Extra absolute paths the command may read and execute from (a toolchain, say
    /// `~/.cargo`), mounted read-only.
    pub read_only: Vec<PathBuf>,
    /// Extra absolute paths the command may also write to, mounted read-write.
    pub read_write: Vec<PathBuf>,
    /// Keep the host's network (default: a network namespace with only a private loopback).
    pub allow_network: bool,
    /// Let the command write the working directory's version control metadata and what git's
    /// settings make it run (default: read-only; see [`Protected`](crate::Protected)).
    pub writable_vcs: bool,
    /// Resource limits.
    pub limits: Limits,
    /// The program that builds the sandbox.
    pub entry: Entry,
}

impl Policy {
    /// The default policy in [`Mode::Required`]: refuse to run where namespaces are refused.
    pub fn required() -> Self {
        Policy {
            mode: Mode::Required,
            ..Policy::default()
        }
    }

    /// The default policy in [`Mode::Fallback`].
    pub fn fallback() -> Self {
        Policy {
            mode: Mode::Fallback,
            ..Policy::default()
        }
    }

    /// The default policy in [`Mode::Off`]: no sandbox.
    pub fn off() -> Self {
        Policy {
            mode: Mode::Off,
            ..Policy::default()
        }
    }

    /// Whether commands under this policy run in a sandbox: `false` in [`Mode::Off`], and in
    /// [`Mode::Preferred`] outside Linux, where there is no sandbox and the caller runs them
    /// unconfined. [`Mode::Required`] and [`Mode::Fallback`] outside Linux are
    /// [`SandboxError::Unavailable`].
    pub fn confines(&self) -> Result<bool, SandboxError> {
        match self.mode {
            Mode::Off => Ok(false),
            _ if cfg!(target_os = "linux") => Ok(true),
            Mode::Preferred => Ok(false),
            Mode::Required | Mode::Fallback => Err(SandboxError::Unavailable {
                reason: "the sandbox exists only on Linux".to_owned(),
            }),
        }
    }

    /// What commands under this policy get on this kernel, for a start-up message: the
    /// [`Confinement`] (the level, namespaces or the fallback and why, what Landlock enforces,
    /// and so which guarantees hold), or `None` when they run unconfined (see
    /// [`confines`](Policy::confines)). It builds a sandbox with this policy and stops it before
    /// any command would run (a few milliseconds, blocking), so it also finds a path of the
    /// policy that cannot be mounted.
    ///
    /// Errors as [`Policy::prepare`]'s (the entry line missing, the kernel refusing the
    /// namespaces in [`Mode::Required`], a path that cannot be used), and
    /// [`SandboxError::Setup`] for a sandbox that cannot be built with this policy.
    pub fn probe(&self) -> Result<Option<Confinement>, SandboxError> {
        if !self.confines()? {
            return Ok(None);
        }
        #[cfg(target_os = "linux")]
        return self.probe_kernel().map(Some);
        // `confines` is never true outside Linux.
        #[cfg(not(target_os = "linux"))]
        Ok(None)
    }

    /// Whether [`prepare`](Policy::prepare) can start this policy's entry, as far as it can be
    /// told without starting anything: the running program's `main` called
    /// [`enter`](crate::enter) first, before any other thread ([`SandboxError::EntryMissing`],
    /// [`SandboxError::EntryNotFirst`] otherwise), or [`Entry::Program`] names an absolute
    /// path. A policy that does not [confine](Policy::confines) has nothing to check (or is
    /// [`SandboxError::Unavailable`]). Cheap: a program or a library can ask at start-up rather
    /// than learn it from the first command; [`probe`](Policy::probe) also asks the kernel.
    pub fn check_entry(&self) -> Result<(), SandboxError> {
        if !self.confines()? {
            return Ok(());
        }
        #[cfg(target_os = "linux")]
        return self.entry_ready();
        #[cfg(not(target_os = "linux"))]
        Ok(())
    }
}
