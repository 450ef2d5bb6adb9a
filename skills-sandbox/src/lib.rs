//! A per-command Linux sandbox, built the way bubblewrap and Codex's linux-sandbox build
//! theirs, with Landlock inside as a second layer, and started from the program's own binary.
//!
//! Each command gets new user, network, PID, IPC, UTS and mount namespaces: no capability
//! over anything outside, and none inside even as uid 0; no network but a private loopback
//! (unless [`Policy::allow_network`]); a PID namespace whose end kills every process the
//! command started; a fresh root with the system folders read-only, the working directory
//! read-write (`nodev`, `nosuid`, with version control metadata at any depth and what git's
//! settings make it run read-only: [`Protected`]), a private `/tmp` and `/dev/shm` under one
//! size cap, a minimal `/dev`, its own `/proc` with the host-wide tables masked, and nothing
//! else of the host. A caller that is root gives a command that is nobody to the host's files
//! (the working directory idmapped, so what it writes is still root's). No descriptor above the
//! standard streams reaches the command, its input is `/dev/null` unless the caller sets it,
//! and it has no controlling terminal. A seccomp filter refuses what no shell command needs (set-id
//! bits and file capabilities among it), [`Limits`] cap its resources, and Landlock restricts it
//! again. Where the kernel refuses unprivileged user namespaces, the fallback (Landlock,
//! seccomp, limits, no capabilities, `no_new_privs`) runs instead, and the [`Confinement`]
//! report says which [`Guarantee`]s it loses; [`Mode::Required`] refuses to run there. It knows
//! nothing of agents: a [`Policy`], a program and its arguments in, a
//! [`std::process::Command`] out.
//!
//! # The entry line
//!
//! A process with threads cannot create a user namespace (nor fork safely), so the sandbox is
//! built by the program's own binary started again (`/proc/self/exe`) as a small entry point, in
//! two stages: the first, single-threaded, creates the namespaces and forks the second, the
//! first process of the new PID namespace (the only kind of process that can mount its
//! `/proc`), which starts the command. The program makes that possible with one line, first in a plain
//! `main`, before any thread starts (so before `#[tokio::main]`'s runtime):
//!
//! ```no_run
//! fn main() {
//!     skills_sandbox::enter();
//!     run();
//! }
//!
//! // #[tokio::main]
//! fn run() {
//!     // the program, which may now prepare sandboxed commands
//! }
//! ```
//!
//! [`enter`] returns at once in a normal start, and never returns in a stage. Without it,
//! [`Policy::prepare`] refuses with [`SandboxError::EntryMissing`] rather than start a second
//! copy of the program; after threads started, with [`SandboxError::EntryNotFirst`]. A program
//! that ships a helper binary (or a test) names it with [`Entry::Program`].
//!
//! # Running a command
//!
//! [`Policy::prepare`] gives a [`Prepared`]: a `Command` to configure (standard streams,
//! environment: it starts empty) and spawn, and a [`Call`] that turns the spawned process's
//! exit status into the command's, or into a typed [`SandboxError`] if the sandbox could not
//! be built. With tokio, reading the output from pipes, with a timeout:
//!
//! ```no_run
//! # async fn example(workdir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
//! use std::process::Stdio;
//! use tokio::io::AsyncReadExt;
//!
//! let policy = skills_sandbox::Policy::default();
//! let skills_sandbox::Prepared { command, call } =
//!     policy.prepare(workdir, "bash", ["-c", "cargo test"])?;
//! let mut command = tokio::process::Command::from(command);
//! command
//!     .env("PATH", "/usr/local/bin:/usr/bin:/bin")
//!     .stdin(Stdio::null())
//!     .stdout(Stdio::piped())
//!     .stderr(Stdio::piped())
//!     // A dropped (cancelled) call kills the sandbox, and so everything in it.
//!     .kill_on_drop(true);
//! let mut child = command.spawn()?;
//! let mut stdout = child.stdout.take().expect("piped");
//! let mut output = Vec::new();
//! let status = tokio::time::timeout(std::time::Duration::from_secs(120), async {
//!     stdout.read_to_end(&mut output).await?;
//!     child.wait().await
//! })
//! .await;
//! let status = match status {
//!     Ok(status) => status?,
//!     // Killing the process that was spawned ends every process of the call.
//!     Err(_) => {
//!         child.kill().await?;
//!         child.wait().await?
//!     }
//! };
//! let finished = call.finish(status)?;
//! println!("{:?}: {}", finished.status.code(), String::from_utf8_lossy(&output));
//! # Ok(())
//! # }
//! ```
//!
//! When the command exits, the process that was spawned exits once every process of the call
//! is gone. When the caller kills it instead, the kernel kills every process of the call at
//! once and finishes within milliseconds; the output pipes reach their end when the last
//! holder is gone. Calls are independent and can run in parallel.
//!
//! # Other systems
//!
//! The sandbox is Linux's: elsewhere the crate has its types, an [`enter`] that does nothing,
//! and [`Policy::probe`] and [`Policy::check_entry`], which say that commands run unconfined in
//! [`Mode::Preferred`] and [`Mode::Off`] and that there is no sandbox in [`Mode::Required`] and
//! [`Mode::Fallback`] ([`SandboxError::Unavailable`]), but no [`Policy::prepare`].
//!
//! # What is not covered
//!
//! A repository a command creates during the call is its own (git runs nothing of it from the
//! person's other repositories); a path git's settings name that does not exist when the call
//! starts, a `.git` that is a symbolic link, and a tree larger than [`Protected`]'s walk are
//! said by [`Confinement::unprotected`], not mounted over. Files the person later runs by hand
//! (a `Makefile`, a `package.json` script) are theirs to review. A root caller's command
//! reopening a standard stream that is a file or a terminal of the caller's (`> /dev/stdout`)
//! is refused, as it would be to any other user (pipes are handed over).
//!
// The guide: guarantees, the fallback and limits.
#![doc = include_str!("../docs/guide.md")]

#[cfg(target_os = "linux")]
mod call;
#[cfg(target_os = "linux")]
mod call_dir;
mod confinement;
mod entry;
mod error;
mod gitconfig;
#[cfg(target_os = "linux")]
mod landlock_rules;
mod names;
#[cfg(target_os = "linux")]
mod paths;
mod policy;
#[cfg(target_os = "linux")]
mod prepare;
#[cfg(target_os = "linux")]
mod probe;
mod protected;
#[cfg(target_os = "linux")]
mod report;
#[cfg(target_os = "linux")]
mod stage;
#[cfg(target_os = "linux")]
mod sys;
mod threads;
#[cfg(target_os = "linux")]
mod wire;

#[cfg(target_os = "linux")]
pub use call::{Call, Finished, Prepared};
pub use confinement::{Confinement, Guarantee, LandlockStatus, Level};
pub use entry::enter;
pub use error::SandboxError;
pub use policy::{DEVICES, Entry, Limits, Mode, Policy, SYSTEM_READ_ONLY, VCS_METADATA};
pub use protected::{COMMAND_KEYS, Protected};
