//! What the tests of the `skills` binary share: running it and what it printed.

// Each test binary uses a part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

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

/// How long a run of the binary may take before [`run_within`] fails the test: far more than
/// any command here needs, far less than a hang.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// Runs `command` (its output captured), killing it and failing the test when it has not
/// ended within `deadline`: a command that blocks on a FIFO or walks a loop forever fails
/// instead of hanging the test run.
pub fn run_within(mut command: Command, deadline: Duration) -> Run {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Read both pipes on threads, so a full pipe never stalls the child.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut bytes).map(|_| bytes)
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut bytes).map(|_| bytes)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited on") {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{command:?}` did not end within {deadline:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap().unwrap(),
        stderr: err.join().unwrap().unwrap(),
    }
    .into()
}
