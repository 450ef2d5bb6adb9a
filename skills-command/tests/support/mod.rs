//! What the tests of the `skills` binary share: running it and what it printed.

// Each test binary uses a part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// The `skills` binary of this build.
pub const BIN: &str = env!("CARGO_BIN_EXE_skills");

/// How a run of the binary ended and what it printed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Run {
            code: output
                .status
                .code()
                .expect("exited normally, not by a signal"),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }
}

/// `skills ARGS` in `dir`.
pub fn skills_in(dir: &Path, args: &[&str]) -> Run {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
        .into()
}

/// Fails the test when the binary panicked (whatever its exit code said).
pub fn assert_no_panic(run: &Run) {
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}
