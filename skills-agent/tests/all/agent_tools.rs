//! The tools on their own: file edits, glob, and `bash` in a program without the sandbox's entry
//! line (the `bash` tests with it are in `tests/bash.rs`).

use serde_json::json;
use skills_runtime::agent::{
    Bash, BashOptions, EditFile, Glob, ReadFile, Sandbox, Tool, ToolContext, ToolErrorKind,
    WriteFile,
};

fn setup() -> (tempfile::TempDir, tempfile::TempDir, ToolContext) {
    let work = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "TOP SECRET").unwrap();
    std::fs::create_dir_all(work.path().join("src/nested")).unwrap();
    std::fs::write(
        work.path().join("src/lib.rs"),
        "fn a() {}\nfn b() {}\nfn a() {}\n",
    )
    .unwrap();
    std::fs::write(work.path().join("src/nested/deep.rs"), "// deep\n").unwrap();
    std::fs::write(
        work.path().join("notes.txt"),
        "one\ntwo\nthree\nfour\nfive\n",
    )
    .unwrap();
    std::fs::create_dir_all(work.path().join(".git")).unwrap();
    std::fs::write(work.path().join(".git/HEAD"), "ref").unwrap();
    let context = ToolContext::new(work.path()).unwrap();
    (work, outside, context)
}

#[tokio::test]
async fn paths_cannot_leave_the_working_directory() {
    let (work, outside, context) = setup();
    let secret = outside.path().join("secret.txt");
    std::os::unix::fs::symlink(outside.path(), work.path().join("link-dir")).unwrap();
    std::os::unix::fs::symlink(&secret, work.path().join("link-file")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("new.txt"), work.path().join("dangling"))
        .unwrap();
    let outside_rel = format!(
        "../{}/secret.txt",
        outside.path().file_name().unwrap().to_str().unwrap()
    );

    let read_attempts = [
        "../secret.txt".to_owned(),
        outside_rel.clone(),
        "src/../../x".to_owned(),
        secret.to_str().unwrap().to_owned(),
        "/etc/passwd".to_owned(),
        "link-dir/secret.txt".to_owned(),
        "link-file".to_owned(),
    ];
    for path in &read_attempts {
        let err = ReadFile
            .call(&json!({"path": path}), &context)
            .await
            .unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::OutsideWorkdir, "{path}: {err}");
        assert!(!err.to_string().contains("TOP SECRET"));
    }
    let write_attempts = [
        "../escape.txt",
        "link-dir/new.txt",
        "dangling",
        "new-dir/../../escape.txt",
        "/tmp/escape-from-agent-test.txt",
    ];
    for path in write_attempts {
        let err = WriteFile
            .call(&json!({"path": path, "content": "x"}), &context)
            .await
            .unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::OutsideWorkdir, "{path}: {err}");
    }
    assert!(!outside.path().join("new.txt").exists());
    assert!(!work.path().parent().unwrap().join("escape.txt").exists());
    let err = EditFile
        .call(
            &json!({"path": "link-file", "old_text": "TOP", "new_text": "x"}),
            &context,
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::OutsideWorkdir);
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "TOP SECRET");
    let err = Glob
        .call(&json!({"pattern": "*", "path": "link-dir"}), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::OutsideWorkdir);
    let err = Glob
        .call(&json!({"pattern": "../*"}), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::OutsideWorkdir);

    // Inside is fine, also through `..` that stays inside and through absolute paths inside.
    let ok = ReadFile
        .call(&json!({"path": "src/nested/../lib.rs"}), &context)
        .await
        .unwrap();
    assert!(ok.contains("fn b() {}"));
    let abs = context.workdir().join("notes.txt");
    assert!(
        ReadFile
            .call(&json!({"path": abs.to_str().unwrap()}), &context)
            .await
            .is_ok()
    );
    WriteFile
        .call(
            &json!({"path": "new/dir/file.txt", "content": "hello"}),
            &context,
        )
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(work.path().join("new/dir/file.txt")).unwrap(),
        "hello"
    );
}

#[tokio::test]
async fn read_file_offset_and_limit() {
    let (_work, _outside, context) = setup();
    let out = ReadFile
        .call(
            &json!({"path": "notes.txt", "offset": 2, "limit": 2}),
            &context,
        )
        .await
        .unwrap();
    assert!(out.contains("     2\ttwo\n     3\tthree\n"), "{out}");
    assert!(!out.contains("one") && !out.contains("four"));
    assert!(
        out.contains("lines 2-3 of 5; read more with offset=4"),
        "{out}"
    );
    let whole = ReadFile
        .call(&json!({"path": "notes.txt"}), &context)
        .await
        .unwrap();
    assert!(whole.starts_with("     1\tone\n") && whole.contains("     5\tfive"));
    assert!(!whole.contains("read more"));
    let err = ReadFile
        .call(&json!({"path": "notes.txt", "offset": 99}), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput);
    let err = ReadFile
        .call(&json!({"path": "nope.txt"}), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::NotFound);
    let err = ReadFile
        .call(&json!("notes.txt"), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput);
}

#[tokio::test]
async fn edit_file_replaces_the_first_exact_occurrence() {
    let (work, _outside, context) = setup();
    let out = EditFile
        .call(
            &json!({"path": "src/lib.rs", "old_text": "fn a() {}", "new_text": "fn a() { 1 }"}),
            &context,
        )
        .await
        .unwrap();
    assert!(
        out.contains("line 1") && out.contains("first of 2"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("src/lib.rs")).unwrap(),
        "fn a() { 1 }\nfn b() {}\nfn a() {}\n"
    );
    let err = EditFile
        .call(
            &json!({"path": "src/lib.rs", "old_text": "fn c()", "new_text": "x"}),
            &context,
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::NotFound);
    assert!(err.suggestion.is_some());
}

#[tokio::test]
async fn glob_is_recursive_sorted_and_skips_hidden() {
    let (_work, _outside, context) = setup();
    let out = Glob
        .call(&json!({"pattern": "**/*.rs"}), &context)
        .await
        .unwrap();
    assert_eq!(out, "src/lib.rs\nsrc/nested/deep.rs");
    let all = Glob
        .call(&json!({"pattern": "**/*"}), &context)
        .await
        .unwrap();
    assert!(!all.contains(".git"), "{all}");
    assert_eq!(all.lines().next(), Some("notes.txt"));
    let sub = Glob
        .call(&json!({"pattern": "*.rs", "path": "src/nested"}), &context)
        .await
        .unwrap();
    assert_eq!(sub, "src/nested/deep.rs");
    let none = Glob
        .call(&json!({"pattern": "*.py"}), &context)
        .await
        .unwrap();
    assert!(none.starts_with("no files match"));
    let hidden = Glob
        .call(&json!({"pattern": ".git/*"}), &context)
        .await
        .unwrap();
    assert_eq!(hidden, ".git/HEAD");
}

#[tokio::test]
async fn bash_without_the_entry_line_fails_with_its_name() {
    // libtest's own `main`, which never calls the entry line, stands in for a program that
    // forgot it: `bash` says so, and starts no second copy of the program.
    let (_work, _outside, context) = setup();
    let error = Bash::default()
        .call(&json!({"command": "echo ran"}), &context)
        .await
        .unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Io, "{error}");
    assert!(
        error
            .message
            .contains(&skills_runtime::agent::sandbox::SandboxError::EntryMissing.to_string()),
        "{error}"
    );
    let suggestion = error.suggestion.as_deref().unwrap_or_default();
    assert!(
        suggestion.contains("skills_runtime::agent::sandbox::enter()"),
        "{suggestion}"
    );
    assert!(matches!(
        Sandbox::default().probe(),
        Err(skills_runtime::agent::sandbox::SandboxError::EntryMissing)
    ));
    // Unconfined needs no entry.
    let out = Bash::new(BashOptions::unconfined())
        .call(&json!({"command": "echo ran"}), &context)
        .await
        .unwrap();
    assert_eq!(out, "ran");
}

/// The variable that makes [`the_developer_learns_at_build_that_bash_cannot_run`] build an agent
/// in a copy of this test binary, whose stderr the test reads.
const BUILD_ONLY: &str = "SKILLS_AGENT_TEST_BUILD_ONLY";

#[tokio::test]
async fn the_developer_learns_at_build_that_bash_cannot_run() {
    use skills_runtime::agent::{Agent, sandbox::SandboxError};
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::anthropic("http://127.0.0.1:9");
    let provider: std::sync::Arc<dyn skills_runtime::agent::Provider> =
        std::sync::Arc::new(provider);
    let build =
        |builder: skills_runtime::agent::AgentBuilder| builder.workdir(dir.path()).build().unwrap();
    if std::env::var_os(BUILD_ONLY).is_some() {
        build(Agent::builder(provider.clone()));
        build(Agent::builder(provider));
        return;
    }
    // libtest's `main` has no entry line: the default `bash` cannot run, and the program can
    // ask without starting anything.
    let agent = build(Agent::builder(provider.clone()));
    assert!(matches!(
        agent.check_bash(),
        Err(SandboxError::EntryMissing)
    ));
    // Unconfined, or without `bash`, there is nothing to miss.
    let agent = build(Agent::builder(provider.clone()).bash(BashOptions::unconfined()));
    assert!(agent.check_bash().is_ok());
    let agent = build(Agent::builder(provider).only_tools(["read_file"]));
    assert!(agent.check_bash().is_ok());
    // The developer reads it on stderr at build, once however many agents are built.
    let name = skills_test_support::test_name(
        module_path!(),
        "the_developer_learns_at_build_that_bash_cannot_run",
    );
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name.as_str(), "--nocapture"])
        .env(BUILD_ONLY, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let warning = format!(
        "WARNING: skills-agent: bash cannot run: {}; call \
         `skills_runtime::agent::sandbox::enter()` as the first line of a plain `main`, or put \
         `#[skills_runtime::main]` in place of `#[tokio::main]`; until then every bash call \
         fails",
        SandboxError::EntryMissing
    );
    assert_eq!(stderr.matches(&warning).count(), 1, "{stderr}");
}
