//! What the `bash` tests share: the harness's trials and skips (skills-sandbox's test harness),
//! a runtime per test, running a command through the tool, and finding the processes a command
//! started by a marker in their command line (with the namespaces, the pids a command prints are
//! its PID namespace's, not the host's).

use std::future::Future;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::json;
use skills_runtime::agent::sandbox::{Confinement, Guarantee, Level};
use skills_runtime::agent::{Bash, Sandbox, Tool, ToolContext};

pub use skills_test_support::sandbox::{
    Outcome, namespaces_refused_here, passed, rerun_as_nobody, skipped, trial,
};

/// Runs `test` on a runtime of its own, as `#[tokio::test]` does: one thread, so that the log
/// capture of `skills_test_support::logs` sees every event.
pub fn block_on<F: Future>(test: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(test)
}

/// What the default sandbox gives here, probed once.
pub fn confinement() -> &'static Confinement {
    static CONFINEMENT: OnceLock<Confinement> = OnceLock::new();
    CONFINEMENT.get_or_init(|| {
        Sandbox::default()
            .probe()
            .expect("the default sandbox probes")
            .expect("the default sandbox is not off")
    })
}

/// Whether calls run in the namespace sandbox here.
pub fn namespaces() -> bool {
    confinement().level() == Level::Namespaces
}

/// The reason to skip a test of a guarantee that does not hold here.
pub fn without(guarantee: Guarantee) -> Option<Outcome> {
    (!confinement().holds(guarantee)).then(|| {
        skipped(format!(
            "this kernel does not give \"{}\": {}",
            guarantee.describe(),
            confinement()
        ))
    })
}

/// The command's result text, or the error's.
pub async fn run(bash: &Bash, context: &ToolContext, command: &str) -> String {
    match bash.call(&json!({ "command": command }), context).await {
        Ok(out) => out,
        Err(error) => error.to_result_text(),
    }
}

/// A `sleep` argument no other process has: `sleep {marker}` runs for about 1,000 s, and
/// [`running_with`] finds it on the host.
pub fn marker() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "1000.{}{:04}{nanos:09}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// The live processes of the host whose command line holds the argument `marker`.
pub fn running_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                cmdline
                    .split(|&b| b == 0)
                    .any(|arg| arg == marker.as_bytes())
            }) && skills_test_support::process_alive(*pid)
        })
        .collect()
}

/// Polls until no process holds `marker`, up to `limit`; returns those left.
pub fn wait_until_gone(marker: &str, limit: Duration) -> Vec<u32> {
    let deadline = Instant::now() + limit;
    loop {
        let left = running_with(marker);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// [`skills_test_support::sandbox::rerun_where_namespaces_are_refused`], as a test's outcome.
pub fn rerun_where_namespaces_are_refused(args: &[&str]) -> Outcome {
    match skills_test_support::sandbox::rerun_where_namespaces_are_refused(args, &[]) {
        Ok(_) => passed(),
        Err(skip) => skip,
    }
}
