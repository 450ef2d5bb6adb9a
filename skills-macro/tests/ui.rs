//! Compile-error snapshots: one case per error class of the validation rules, each with its own
//! fixture folder under `skills-test-support`'s `fixtures/`, plus valid files that must compile.
//!
//! The cases live here, with the macro, and not in a package of the whole stack: trybuild builds
//! them in a scratch crate with this package's dependencies and dev-dependencies, so what it
//! compiles is the facade with the agent (for `#[skills_runtime::main]`), not MCP, rig or the
//! test tooling of the root package.
//!
//! The folders a repository cannot carry (FIFOs, sockets, loops, names Windows refuses) are made
//! here before the cases compile, under `fixtures/generated/`, and removed afterwards.
//! Those cases are the ones a regression could hang (a build blocked opening a FIFO, a walk
//! that never ends), so the whole run has a deadline: past it the test fails instead of
//! hanging CI.

use skills_test_support::hostile as hostile_fixtures;

use std::time::Duration;

/// Far beyond what the cases take (a few minutes on a loaded machine).
const DEADLINE: Duration = Duration::from_secs(30 * 60);

#[test]
fn ui() {
    // trybuild compiles the cases in a scratch crate under target/; point the macro at the
    // support crate so the fixture roots resolve (and paths in snapshots stay relative).
    // SAFETY: this is the only test in this binary, so no other thread reads the environment.
    unsafe { std::env::set_var("SKILLS_MANIFEST_DIR_OVERRIDE", skills_test_support::DIR) };
    let generated =
        std::path::Path::new(skills_test_support::DIR).join(hostile_fixtures::GENERATED);
    let _generated = hostile_fixtures::Generated::create_all(&generated);
    std::thread::spawn(|| {
        std::thread::sleep(DEADLINE);
        eprintln!("the trybuild cases did not finish in {DEADLINE:?}: a build hangs");
        std::process::exit(101);
    });
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/*.rs");
    // `#[skills_runtime::main]`, which reads no skills folder.
    cases.pass("tests/ui/main/pass/*.rs");
    cases.compile_fail("tests/ui/main/*.rs");
}
