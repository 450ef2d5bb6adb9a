//! The libtest-mimic harness of the test binaries that start sandboxes (skills-sandbox's
//! `sandbox`, skills-agent's `bash` and the root package's `hosts`): outcomes and skips, and running
//! the binary again as `nobody` and where the kernel refuses user namespaces, so one `cargo
//! test` as root covers both kinds of caller and the fallback.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use libtest_mimic::{Completion, Failed, Trial};

/// What a test returns: passed, or skipped with the reason.
pub type Outcome = Result<Completion, Failed>;

/// A test that passed.
pub fn passed() -> Outcome {
    Ok(Completion::Completed)
}

/// A test skipped with `reason`, reported as ignored with it (never a silent pass).
pub fn skipped(reason: impl ToString) -> Outcome {
    Ok(Completion::ignored_with(reason))
}

/// A trial of the harness.
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

/// Whether the tests run as root (the real user id is 0).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(2) == Some("0"))
    })
}

/// Set in a run of the binary inside a user namespace that allows no further one.
const NAMESPACES_REFUSED: &str = "SKILLS_TEST_NAMESPACES_REFUSED";

/// Whether this is the run where the kernel refuses namespaces.
pub fn namespaces_refused_here() -> bool {
    std::env::var_os(NAMESPACES_REFUSED).is_some()
}

/// Runs this binary again with `args` (and `envs`), in a user namespace whose
/// `user.max_user_namespaces` is 0, where the kernel refuses the sandbox its namespaces as a
/// restricted distribution would. Returns its output once it passed (a failure fails the test),
/// or the reason to skip where the test's own namespace cannot be made.
pub fn rerun_where_namespaces_are_refused(
    args: &[&str],
    envs: &[(&str, &str)],
) -> Result<String, Outcome> {
    let out = Command::new("unshare")
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
        .envs(envs.iter().copied())
        .output()
        .map_err(|_| {
            skipped("needs unshare (util-linux) to make a namespace that refuses others")
        })?;
    let text = output_text(&out);
    if text.contains("unshare failed") {
        return Err(skipped(format!(
            "this kernel refuses the user namespace the test needs: {text}"
        )));
    }
    report_nested("without namespaces", &text);
    assert!(
        out.status.success(),
        "where namespaces are refused: {}\n{text}",
        out.status
    );
    Ok(text)
}

/// As root: runs this binary again as `nobody` with `args`, from a copy named `copy_name` in a
/// folder `nobody` can enter (the build's may not be), and passes if every test passes there.
pub fn rerun_as_nobody(copy_name: &str, args: &[&str]) -> Outcome {
    if !is_root() {
        return skipped("the tests already run unprivileged");
    }
    let folder = tempfile::Builder::new()
        .prefix(&format!("{copy_name}-"))
        .tempdir()
        .unwrap();
    let open = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(folder.path(), open.clone()).unwrap();
    let exe = folder.path().join(copy_name);
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    std::fs::set_permissions(&exe, open).unwrap();
    let out = Command::new("setpriv")
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
    let text = output_text(&out);
    report_nested("as nobody", &text);
    assert!(out.status.success(), "as nobody: {}\n{text}", out.status);
    passed()
}

fn output_text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
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
