//! The `skills` command's integration tests in one binary: the command run as a process on
//! valid, broken and hostile bundles, `skills eval` against stand-in models, packages and packs,
//! the lock against a rewrite between two reads, and the command's verdicts held to the macro's.

mod cli;
mod eval;
mod hostile;
mod package;
mod packaged;
mod packs;
mod rebuild_lock;
mod same_verdicts;
mod support;
