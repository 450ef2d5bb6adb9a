//! How many threads this process has: a user namespace can only be created by a process with
//! one, so the entry line records it, and the first stage checks it.

/// The number of threads of this process (1 if `/proc` cannot tell).
pub(crate) fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(1, |tasks| tasks.count())
}
