//! Compile-error snapshots: one case per error class of the validation rules, each with its own
//! fixture folder under `tests/fixtures/`, plus valid files that must compile.
//!
//! The folders a repository cannot carry (FIFOs, sockets, loops, names Windows refuses) are made
//! here before the cases compile, under `tests/fixtures/generated/`, and removed afterwards.
//! Those cases are the ones a regression could hang (a build blocked opening a FIFO, a walk
//! that never ends), so the whole run has a deadline: past it the test fails instead of
//! hanging CI.

use skills_test_support::hostile as hostile_fixtures;

use std::time::Duration;

/// Far beyond what the cases take (a few minutes on a loaded machine).
const DEADLINE: Duration = Duration::from_secs(30 * 60);

#[test]
fn ui() {
    // trybuild compiles the cases in a scratch crate under target/; point the macro back at
    // this crate so the fixture roots resolve (and paths in snapshots stay relative).
    // SAFETY: this is the only test in this binary, so no other thread reads the environment.
    unsafe { std::env::set_var("SKILLS_MANIFEST_DIR_OVERRIDE", env!("CARGO_MANIFEST_DIR")) };
    let generated =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(hostile_fixtures::GENERATED);
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
