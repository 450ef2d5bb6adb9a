//! The `bash` tool in its sandbox: the tool's own behaviour (`bash/tool.rs`) and hostile calls
//! against its wiring to the sandbox (`bash/attacks.rs`), each asserting the attack fails
//! safely.
//!
//! Like a program running the agent, this harness calls the sandbox's entry line first in its
//! `main`: the sandbox's stages are this binary started again. Run as root, it also runs itself
//! again as `nobody`; every run also runs itself again where the kernel refuses user
//! namespaces, so that the fallback is covered. Tests that need what the kernel does not give
//! here are reported ignored with the reason.
#![cfg(target_os = "linux")]

mod bash {
    pub mod attacks;
    pub mod support;
    pub mod tool;
}

use bash::{attacks, support, tool};

fn main() {
    skills_runtime::agent::sandbox::enter();
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = tool::tests();
    trials.extend(attacks::tests());
    trials.push(support::trial(
        "the_tests_pass_as_an_unprivileged_user",
        || {
            support::rerun_as_nobody(
                "skills-agent-bash-tests",
                &["--skip", "the_tests_pass_", "--test-threads=2"],
            )
        },
    ));
    trials.push(support::trial(
        "the_tests_pass_where_the_kernel_refuses_namespaces",
        || {
            if support::namespaces_refused_here() {
                return support::skipped("this is the run where namespaces are refused");
            }
            support::rerun_where_namespaces_are_refused(&[
                "--skip",
                "the_tests_pass_",
                "--test-threads=2",
            ])
        },
    ));
    eprintln!("confinement here: {}", support::confinement());
    libtest_mimic::run(&args, trials).exit();
}
