//! The sandbox of the `bash` tool: [`Sandbox`], the [`Policy`](crate::sandbox::Policy) of the
//! `skills-sandbox` crate (re-exported as [`crate::sandbox`]), which builds it.
//!
//! Every call gets new user, network, PID, IPC, UTS and mount namespaces, a seccomp filter,
//! resource limits and Landlock inside (see the crate docs of [`crate::sandbox`]); where the
//! kernel refuses unprivileged user namespaces, the fallback (Landlock, seccomp, limits) runs
//! instead and says what it loses. The sandbox is built by the program's own binary started
//! again, so the program's `main` calls [`sandbox::enter`](crate::sandbox::enter) first.

/// The sandbox of the `bash` tool ([`BashOptions::sandbox`](crate::BashOptions::sandbox)): the
/// sandbox crate's [`Policy`](crate::sandbox::Policy), under the name the agent gives it.
/// [`Sandbox::default`] is [`SandboxMode::Preferred`], no extra paths, no network, version
/// control metadata read-only, the default [`Limits`](crate::sandbox::Limits) (8 GiB of address
/// space, 4,096 processes and threads, 4,096 open files, 8 GiB per file, 1,800 CPU seconds per
/// process, 1 GiB of memory files for `/tmp` and `/dev/shm` together), and the running program
/// as the [`Entry`](crate::sandbox::Entry), whose `main` must call
/// [`sandbox::enter`](crate::sandbox::enter) first.
///
/// ```
/// use skills_runtime::agent::{BashOptions, Sandbox};
///
/// let options = BashOptions {
///     sandbox: Sandbox {
///         allow_network: true,
///         ..Sandbox::default()
///     },
///     ..BashOptions::default()
/// };
/// assert!(options.sandbox.allow_network);
/// ```
///
/// The command sees the system folders
/// ([`sandbox::SYSTEM_READ_ONLY`](crate::sandbox::SYSTEM_READ_ONLY)) and
/// [`read_only`](crate::sandbox::Policy::read_only) read-only, the working directory and
/// [`read_write`](crate::sandbox::Policy::read_write) read-write, a private `/tmp` (its
/// `TMPDIR`), a minimal `/dev`, its own `/proc`, and nothing else of the host: no home folder,
/// no `/run`, no other user's files. In the agent:
/// - [`writable_vcs`](crate::sandbox::Policy::writable_vcs) also lets the file tools write the
///   version control metadata ([`AgentBuilder::bash`](crate::AgentBuilder::bash) passes it on;
///   see [`sandbox::Protected`](crate::sandbox::Protected));
/// - the wall time of a call is [`BashOptions::timeout`](crate::BashOptions::timeout);
/// - [`Sandbox::probe`](crate::sandbox::Policy::probe) says at start-up what the calls will
///   get, and [`Agent::check_bash`](crate::Agent::check_bash) checks the entry line.
pub type Sandbox = crate::sandbox::Policy;

/// Whether `bash` runs sandboxed: the sandbox crate's [`Mode`](crate::sandbox::Mode).
///
/// In the agent, [`SandboxMode::Preferred`] (the default) outside Linux runs commands
/// unconfined with a warning per call, and [`SandboxMode::Off`] runs them unconfined with a
/// warning per call; unconfined, the environment allowlist still applies, and the processes a
/// call starts are swept when it ends (see [`BashOptions`](crate::BashOptions)).
pub type SandboxMode = crate::sandbox::Mode;
