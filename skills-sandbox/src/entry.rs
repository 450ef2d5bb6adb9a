//! The entry line, [`enter`], and how the library knows it ran.
//!
//! The sandbox is built by the program's own binary started again as a stage (see the crate
//! docs); an environment variable tells a copy which stage it is. In a normal start
//! `enter` only records that it ran and whether it ran before any other thread, so that
//! preparing a command can refuse, with an error naming the missing line, rather than start a
//! second copy of the program that would not know it is a stage.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::names::{OUTER_ARG0, STAGE};
use crate::threads::thread_count;

/// Threads of the process when [`enter`] ran in a normal start; 0 until it ran.
static THREADS_AT_ENTRY: AtomicUsize = AtomicUsize::new(0);

/// The sandbox's entry point: call it as the first line of `main`, before anything starts a
/// thread.
///
/// In a normal start it returns at once (it records that it ran). When the program was
/// started by this crate as a stage of a sandbox, it builds that stage and never returns: the
/// process ends as the sandboxed command ends.
///
/// It must come before any thread starts because a process with more than one thread cannot
/// create a user namespace. So `#[tokio::main]` (which starts the runtime's threads before the
/// body runs) goes on a function that `main` calls afterwards:
///
/// ```no_run
/// fn main() {
///     skills_sandbox::enter();
///     run();
/// }
///
/// // #[tokio::main]
/// fn run() {
///     // the program
/// }
/// ```
pub fn enter() {
    match std::env::var_os(STAGE) {
        // Started as a stage, but without the stage's environment (the caller cleared the
        // prepared command's): running as the program would start a second copy of it.
        None if std::env::args_os()
            .next()
            .is_some_and(|arg0| arg0 == OUTER_ARG0) =>
        {
            eprintln!(
                "skills-sandbox: started as the sandbox's first stage without its environment: \
                 add variables to the prepared command, never clear them"
            );
            std::process::exit(crate::names::EXIT_SETUP_FAILED);
        }
        None => {
            // Only the first call counts: a later one may see threads the program started.
            let threads = thread_count().max(1);
            let _ =
                THREADS_AT_ENTRY.compare_exchange(0, threads, Ordering::SeqCst, Ordering::SeqCst);
        }
        #[cfg(target_os = "linux")]
        Some(stage) => crate::stage::run(&stage),
        #[cfg(not(target_os = "linux"))]
        Some(_) => {}
    }
}

/// How [`enter`] ran in this process: `None` if it did not, else the number of threads then.
pub(crate) fn threads_at_entry() -> Option<usize> {
    match THREADS_AT_ENTRY.load(Ordering::SeqCst) {
        0 => None,
        threads => Some(threads),
    }
}
