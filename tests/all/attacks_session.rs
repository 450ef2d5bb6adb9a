//! `--session FILE` of the example agent against what a model can plant in the working
//! directory: a symlink to a credentials file outside, a folder symlinked outside, a FIFO.
//! The run stops with an error before any model is asked, and nothing outside is written.
#![cfg(all(feature = "agent", target_os = "linux"))]

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The offline demo model in `work` with `--session session`.
fn run(work: &Path, session: &Path) -> Output {
    Command::new(crate::examples::example_binary("agent"))
        .args(["--provider", "demo", "--workdir"])
        .arg(work)
        .arg("--session")
        .arg(session)
        .arg("review src/lib.rs")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", work)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_planted_symlink_or_fifo_stops_the_run_and_nothing_outside_changes() {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(work.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    let credentials = outside.join("credentials");
    std::fs::write(&credentials, "aws_secret_access_key = SECRET\n").unwrap();
    std::os::unix::fs::symlink(&credentials, work.join("session.jsonl")).unwrap();
    std::os::unix::fs::symlink(&outside, work.join(".agent")).unwrap();
    let fifo = work.join("fifo.jsonl");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );

    for (session, says) in [
        (work.join("session.jsonl"), "symbolic link"),
        (work.join(".agent/credentials"), "symbolic link"),
        (work.join(".agent/new.jsonl"), "symbolic link"),
        (fifo, "not a regular file"),
    ] {
        let output = run(&work, &session);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{session:?} was used: {stderr}");
        assert!(stderr.contains(says), "{session:?}: {stderr}");
        // It stopped before the model: no answer.
        assert!(output.stdout.is_empty(), "{session:?}");
    }
    assert_eq!(
        std::fs::read_to_string(&credentials).unwrap(),
        "aws_secret_access_key = SECRET\n"
    );
    assert!(!outside.join("new.jsonl").exists());

    // A plain path in the working directory works, and is continued on the next run.
    let plain = work.join("plain.jsonl");
    assert!(run(&work, &plain).status.success());
    let written = std::fs::read_to_string(&plain).unwrap();
    assert!(written.lines().count() >= 2, "{written}");
    assert!(run(&work, &plain).status.success());
    let again = std::fs::read_to_string(&plain).unwrap();
    assert!(again.starts_with(&written) && again.len() > written.len());
}
