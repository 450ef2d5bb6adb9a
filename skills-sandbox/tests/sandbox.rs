//! The sandbox's guarantees, attacked: one test per attack of the hostile-model review
//! (network, local services, root, processes, delayed escape through `.git`), each asserting it
//! now fails safely, with controls showing the same test sees the attack when it succeeds, and
//! positive tests of what must keep working.
//!
//! Like a program using the crate, this harness calls `skills_sandbox::enter()` first in its
//! `main`: the sandbox's stages are this binary started again. Run as root, it also runs itself
//! again as an unprivileged user (`nobody`), so that both kinds of caller are covered by one
//! `cargo test`, and every run runs itself again where the kernel refuses user namespaces, so
//! that the fallback is covered on any kernel that allows them (`skills_test_support::sandbox`,
//! shared with skills-agent's `bash` tests). Tests that need user namespaces, root, or a tool are reported
//! ignored with the reason where they cannot run.

mod sandbox {
    pub mod descriptors;
    pub mod entry_and_errors;
    pub mod fallback;
    pub mod filesystem;
    pub mod host_identity;
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
    descriptors, entry_and_errors, fallback, filesystem, host_identity, limits, local_services,
    network, processes, root_powers, support, syscalls, working,
};

use skills_test_support::sandbox as harness;
use support::{Outcome, passed, skipped, trial};

fn main() {
    skills_sandbox::enter();
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = Vec::new();
    for group in [
        network::tests(),
        local_services::tests(),
        root_powers::tests(),
        host_identity::tests(),
        descriptors::tests(),
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

/// As root: runs every other test again as `nobody` and passes if they all pass there.
fn as_unprivileged_user() -> Outcome {
    harness::rerun_as_nobody(
        "skills-sandbox-tests",
        &[
            "--skip",
            "the_suite_passes_as_an_unprivileged_user",
            "--test-threads=2",
        ],
    )
}

/// Runs every other test again where the kernel refuses user namespaces: each passes in the
/// fallback or says why it is skipped.
fn where_namespaces_are_refused() -> Outcome {
    if support::namespaces_refused_here() {
        return skipped("this is the run where namespaces are refused");
    }
    match support::rerun_where_namespaces_are_refused(&[
        "--skip",
        "the_suite_passes_",
        "--test-threads=2",
    ]) {
        Ok(_) => passed(),
        Err(skip) => skip,
    }
}
