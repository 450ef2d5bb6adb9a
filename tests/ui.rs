//! Compile-error snapshots: one case per error class of the validation rules, each with its own
//! fixture folder under `tests/fixtures/`, plus valid files that must compile.

#[test]
fn ui() {
    // trybuild compiles the cases in a scratch crate under target/; point the macro back at
    // this crate so the fixture roots resolve (and paths in snapshots stay relative).
    // SAFETY: this is the only test in this binary, so no other thread reads the environment.
    unsafe { std::env::set_var("SKILLS_MANIFEST_DIR_OVERRIDE", env!("CARGO_MANIFEST_DIR")) };
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/*.rs");
    // `#[skills_runtime::main]`, which reads no skills folder.
    cases.pass("tests/ui/main/pass/*.rs");
    cases.compile_fail("tests/ui/main/*.rs");
}
