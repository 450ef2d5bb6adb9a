//! The example agent's command line: help, version, and the flags it refuses, run on the binary
//! `cargo test` builds for the `agent` example (found beside this test's own executable). None
//! of these runs reaches a model.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(Path::parent).unwrap();
    profile.join("examples").join("agent")
}

fn run(args: &[&str]) -> Output {
    run_with_cache(args, None)
}

/// Runs the binary; `cache` is where a loaded skill's files may be written (else nowhere).
fn run_with_cache(args: &[&str], cache: Option<&Path>) -> Output {
    let mut command = Command::new(example_binary());
    if let Some(cache) = cache {
        command.env("XDG_RUNTIME_DIR", cache);
    } else {
        command.env_remove("XDG_RUNTIME_DIR");
    }
    command
        .args(args)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn help_lists_every_flag_and_version_prints_the_package_version() {
    let help = run(&["--help"]);
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--provider",
        "--model",
        "--workdir",
        "--max-turns",
        "--context-window",
        "--yes",
        "--no-sandbox",
        "--require-sandbox",
        "--session",
        "--raw-output",
        "[PROMPT]...",
        "anthropic",
        "openai",
        "demo",
        "OPENAI_BASE_URL",
    ] {
        assert!(text.contains(flag), "{flag} missing from:\n{text}");
    }
    let version = run(&["--version"]);
    assert!(version.status.success());
    let shown = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    let prefix = format!("agent {} (skills.lock sha256 ", env!("CARGO_PKG_VERSION"));
    let digest = shown
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("`{shown}` does not name the lock's digest"));
    assert_eq!(digest.len(), 64, "{shown}");
    assert!(
        digest
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    );
    // The digest is that of the committed lock, as `sha256sum skills.lock` computes it.
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills.lock");
    match Command::new("sha256sum").arg(&lock).output() {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(text.split_whitespace().next(), Some(digest), "{text}");
        }
        _ => eprintln!("skipping the digest comparison: `sha256sum` is not available"),
    }
}

#[test]
fn bad_flags_exit_2_before_anything_runs() {
    for (args, says) in [
        (&["--provider", "gemini", "x"][..], "invalid value 'gemini'"),
        (&["--max-turns", "0", "x"], "invalid value '0'"),
        (&["--max-turns", "many", "x"], "invalid value 'many'"),
        (&["--model"], "a value is required"),
        (
            &["--no-sandbox", "--require-sandbox", "x"],
            "cannot be used with",
        ),
        (&["--bogus", "x"], "unexpected argument '--bogus'"),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        // Nothing was set up: no provider line.
        assert!(!stderr(&out).contains("provider:"), "{args:?}");
    }
}

#[test]
fn words_after_the_prompt_starts_are_prompt_words() {
    let dir = tempfile::tempdir().unwrap();
    let workdir = dir.path().to_str().unwrap();
    // `-v` after the first prompt word is part of the prompt, not an unknown flag; the
    // scripted model echoes the task it was given.
    let out = run_with_cache(
        &[
            "--provider=demo",
            "-y",
            "--workdir",
            workdir,
            "review",
            "-v",
            "--quietly",
        ],
        Some(&dir.path().join("cache")),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(answer.contains("Task: review -v --quietly"), "{answer}");
}

#[test]
fn a_slash_lists_or_invokes_skills_and_an_unknown_name_gets_a_suggestion() {
    let out = run(&["--provider=demo", "/"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = listed.lines().collect();
    assert!(lines.contains(&"/code-review"), "{listed}");
    assert!(lines.contains(&"/write-tests"), "{listed}");

    let out = run(&["--provider=demo", "/code-reveiw", "src"]);
    assert_eq!(out.status.code(), Some(1));
    let error = stderr(&out);
    assert!(error.contains("Did you mean \"code-review\"?"), "{error}");

    // An invocation is the user's turn: the scripted model is given the skill's text.
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "--provider=demo",
        "--workdir",
        dir.path().to_str().unwrap(),
        "/code-review",
        "src/lib.rs",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("skills loaded: code-review"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn session_keeps_the_conversation_in_a_file_and_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let workdir = dir.path().to_str().unwrap();
    let file = dir.path().join("chat.jsonl");
    let file_arg = file.to_str().unwrap();
    let args = [
        "--provider=demo",
        "-y",
        "--workdir",
        workdir,
        "--session",
        file_arg,
    ];
    let first = run(&[&args[..], &["review"]].concat());
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("(0 messages so far)"),
        "{}",
        stderr(&first)
    );
    let lines_after_first = std::fs::read_to_string(&file).unwrap().lines().count();
    assert!(lines_after_first >= 2, "{lines_after_first}");

    let second = run(&[&args[..], &["again"]].concat());
    assert!(second.status.success(), "{}", stderr(&second));
    let said = format!("({lines_after_first} messages so far)");
    assert!(stderr(&second).contains(&said), "{}", stderr(&second));
    let lines_after_second = std::fs::read_to_string(&file).unwrap().lines().count();
    assert!(lines_after_second > lines_after_first);
}
