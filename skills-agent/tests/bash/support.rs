//! What the `bash` tests share: the harness's trials and skips, a runtime per test, running a
//! command through the tool, and finding the processes a command started by a marker in their
//! command line (with the namespaces, the pids a command prints are its PID namespace's, not
//! the host's).

use std::future::Future;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libtest_mimic::{Completion, Failed, Trial};
use serde_json::json;
use skills_runtime::agent::sandbox::{Confinement, Guarantee, Level};
use skills_runtime::agent::{Bash, Sandbox, Tool, ToolContext};

/// What a test returns: passed, or skipped with the reason.
pub type Outcome = Result<Completion, Failed>;

pub fn passed() -> Outcome {
    Ok(Completion::Completed)
}

/// A test skipped with `reason`, reported as ignored with it (never a silent pass).
pub fn skipped(reason: impl ToString) -> Outcome {
    Ok(Completion::ignored_with(reason))
}

pub fn trial(name: &str, test: fn() -> Outcome) -> Trial {
    Trial::ignorable_test(name, test)
}

/// Returns early with the skip, if there is one.
#[macro_export]
macro_rules! skip_if {
    ($reason:expr) => {
        if let Some(skip) = $reason {
            return skip;
        }
    };
}

/// Runs `test` on a runtime of its own, as `#[tokio::test]` does: one thread, so that the log
/// capture of `agent_support::logs` sees every event.
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

pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
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
            }) && crate::agent_support::process_alive(*pid)
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

/// Set in a run of this binary inside a user namespace that allows no further one.
const NAMESPACES_REFUSED: &str = "SKILLS_AGENT_TEST_NAMESPACES_REFUSED";

pub fn namespaces_refused_here() -> bool {
    std::env::var_os(NAMESPACES_REFUSED).is_some()
}

/// Runs this binary again with `args`, in a user namespace whose `user.max_user_namespaces` is
/// 0, where the kernel refuses the sandbox its namespaces as a restricted distribution would.
/// Passes when that run passes; skipped where the test's own namespace cannot be made.
pub fn rerun_where_namespaces_are_refused(args: &[&str]) -> Outcome {
    let out = std::process::Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"",
        ])
        .arg(std::env::current_exe().unwrap())
        .args(args)
        .env(NAMESPACES_REFUSED, "1")
        .output();
    let Ok(out) = out else {
        return skipped("needs unshare (util-linux) to make a namespace that refuses others");
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if text.contains("unshare failed") {
        return skipped(format!(
            "this kernel refuses the user namespace the test needs: {text}"
        ));
    }
    report_nested("without namespaces", &text);
    assert!(
        out.status.success(),
        "where namespaces are refused: {}\n{text}",
        out.status
    );
    passed()
}

/// As root: runs this binary again as `nobody` with `args` (from a copy in a folder `nobody`
/// can enter: the build's may not be), and passes if every test passes there.
pub fn rerun_as_nobody(args: &[&str]) -> Outcome {
    use std::os::unix::fs::PermissionsExt;
    if !is_root() {
        return skipped("the tests already run unprivileged");
    }
    let folder = tempfile::Builder::new()
        .prefix("skills-agent-test-bin-")
        .tempdir()
        .unwrap();
    let open = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(folder.path(), open.clone()).unwrap();
    let exe = folder.path().join("bash-tests");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    std::fs::set_permissions(&exe, open).unwrap();
    let out = std::process::Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--reset-env",
        ])
        .arg(&exe)
        .args(args)
        .current_dir("/")
        .output();
    let Ok(out) = out else {
        return skipped("needs setpriv (util-linux) to run as another user");
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    report_nested("as nobody", &text);
    assert!(out.status.success(), "as nobody: {}\n{text}", out.status);
    passed()
}

/// The summary and the skips of a nested run, in this run's output.
fn report_nested(label: &str, text: &str) {
    for line in text
        .lines()
        .filter(|l| l.contains("ignored") || l.starts_with("test result"))
    {
        println!("  {label}: {line}");
    }
}
