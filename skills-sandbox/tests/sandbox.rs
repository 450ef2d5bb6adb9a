//! The sandbox's guarantees, attacked: one test per attack of the hostile-model review
//! (network, local services, root, processes, delayed escape through `.git`), each asserting it
//! now fails safely, with controls showing the same test sees the attack when it succeeds, and
//! positive tests of what must keep working.
//!
//! Like a program using the crate, this harness calls `skills_sandbox::enter()` first in its
//! `main`: the sandbox's stages are this binary started again. Run as root, it also runs itself
//! again as an unprivileged user (`nobody`), so that both kinds of caller are covered by one
//! `cargo test`, and every run runs itself again where the kernel refuses user namespaces, so
//! that the fallback is covered on any kernel that allows them. Tests that need user namespaces, root, or a tool are reported ignored with the
//! reason where they cannot run.

mod sandbox {
    pub mod entry_and_errors;
    pub mod fallback;
    pub mod filesystem;
    pub mod host_listeners;
    pub mod limits;
    pub mod local_services;
    pub mod network;
    pub mod processes;
    pub mod root_powers;
    pub mod support;
    pub mod syscalls;
    pub mod working;
}

use sandbox::{
    entry_and_errors, fallback, filesystem, limits, local_services, network, processes,
    root_powers, support, syscalls, working,
};

use support::{Outcome, passed, skipped, trial};

fn main() {
    skills_sandbox::enter();
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = Vec::new();
    for group in [
        network::tests(),
        local_services::tests(),
        root_powers::tests(),
        processes::tests(),
        filesystem::tests(),
        syscalls::tests(),
        limits::tests(),
        working::tests(),
        entry_and_errors::tests(),
        fallback::tests(),
    ] {
        trials.extend(group);
    }
    trials.push(trial(
        "the_suite_passes_as_an_unprivileged_user",
        as_unprivileged_user,
    ));
    trials.push(trial(
        "the_suite_passes_where_the_kernel_refuses_namespaces",
        where_namespaces_are_refused,
    ));
    eprintln!("confinement here: {}", support::default_confinement());
    libtest_mimic::run(&args, trials).exit();
}

/// As root: runs every other test again as `nobody` and passes if they all pass there. The run
/// uses a copy of this binary in a folder `nobody` can enter (the build's may not be).
fn as_unprivileged_user() -> Outcome {
    use std::os::unix::fs::PermissionsExt;
    if !support::is_root() {
        return skipped("the tests already run unprivileged");
    }
    let folder = tempfile::Builder::new()
        .prefix("skills-sandbox-test-bin-")
        .tempdir()
        .unwrap();
    let open = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(folder.path(), open.clone()).unwrap();
    let exe = folder.path().join("sandbox-tests");
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
        .args([
            "--skip",
            "the_suite_passes_as_an_unprivileged_user",
            "--test-threads=2",
        ])
        .current_dir("/")
        .output();
    let Ok(out) = out else {
        return skipped("needs setpriv (util-linux) to run as another user");
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Its summary and its skips, in this run's output.
    for line in stdout
        .lines()
        .filter(|l| l.contains("ignored") || l.starts_with("test result"))
    {
        println!("  as nobody: {line}");
    }
    assert!(
        out.status.success(),
        "as nobody: {}\n{stdout}\n{stderr}",
        out.status
    );
    passed()
}

/// Runs every other test again where the kernel refuses user namespaces: each passes in the
/// fallback or says why it is skipped.
fn where_namespaces_are_refused() -> Outcome {
    if support::namespaces_refused_here() {
        return skipped("this is the run where namespaces are refused");
    }
    let text = match support::rerun_where_namespaces_are_refused(&[
        "--skip",
        "the_suite_passes_",
        "--test-threads=2",
    ]) {
        Ok(text) => text,
        Err(skip) => return skip,
    };
    for line in text.lines().filter(|l| l.starts_with("test result")) {
        println!("  without namespaces: {line}");
    }
    passed()
}
