//! The example agent's command line: help, version, and the flags it refuses, run on the binary
//! `cargo test` builds for the `agent` example (found beside this test's own executable), and the
//! traces its runs send to a collector. None of these runs reaches a model.

use std::path::Path;
use std::process::{Command, Output};

use skills_test_support::otlp::{self, attribute};

fn run(args: &[&str]) -> Output {
    run_with_cache(args, None)
}

/// Runs the binary; `cache` is where a loaded skill's files may be written (else nowhere).
fn run_with_cache(args: &[&str], cache: Option<&Path>) -> Output {
    let mut command = Command::new(crate::examples::example_binary("agent"));
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
        "--otlp-endpoint",
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
    // The footer counts the invoked skill; the demo model takes the arguments as its task and
    // does not load the skill again.
    assert!(
        stderr(&out).contains("skills: code-review (invoked)"),
        "{}",
        stderr(&out)
    );
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(
        answer.contains("You invoked /code-review with the arguments `src/lib.rs`."),
        "{answer}"
    );
    assert!(answer.contains("so I did not call load_skill"), "{answer}");
    assert!(!stderr(&out).contains("load_skill("), "{}", stderr(&out));
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
    // A recap of what was said before: the prompt, and the first line of the answer.
    assert!(
        stderr(&second).contains("  you   > review\n  agent > [demo provider: scripted"),
        "{}",
        stderr(&second)
    );
    let lines_after_second = std::fs::read_to_string(&file).unwrap().lines().count();
    assert!(lines_after_second > lines_after_first);
}

/// The demo bundle as the example embeds it, for the digest of its lock.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("skills", lock = "skills.lock", embed_evals = true);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traces_reach_a_collector_named_by_the_flag_or_the_environment() {
    let collector = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::path("/v1/traces"))
        .respond_with(wiremock::ResponseTemplate::new(200))
        .mount(&collector)
        .await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    let workdir = dir.path().to_str().unwrap().to_owned();
    let endpoint = collector.uri();
    // The flag, then the standard variable.
    let runs = [
        (
            vec!["--otlp-endpoint", endpoint.as_str(), "review src/lib.rs"],
            None,
        ),
        (vec!["/write-tests", "src/lib.rs"], Some(endpoint.as_str())),
    ];
    for (args, variable) in runs {
        let mut command = Command::new(crate::examples::example_binary("agent"));
        command
            .args(["--provider", "demo", "--workdir", &workdir])
            .args(&args)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        if let Some(endpoint) = variable {
            command.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
        }
        let out = tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let said = format!("traces: OTLP/HTTP to {endpoint}/v1/traces");
        assert!(stderr(&out).contains(&said), "{}", stderr(&out));
    }

    let bodies: Vec<Vec<u8>> = collector
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .map(|request| request.body)
        .collect();
    let (spans, services) = otlp::received(&bodies);
    assert!(
        services.iter().all(|s| s == "skills-agent-example"),
        "{services:?}"
    );
    let named = |name: &str| spans.iter().filter(|s| s.name == name).collect::<Vec<_>>();
    let runs = named("invoke_agent");
    assert_eq!(
        runs.len(),
        2,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let digest = SKILLS.lock_digest().unwrap();
    for run in runs {
        assert_eq!(
            attribute(run, "skills.lock_digest").as_deref(),
            Some(digest)
        );
        assert_eq!(
            attribute(run, "gen_ai.provider.name").as_deref(),
            Some("demo")
        );
        assert_eq!(
            attribute(run, "gen_ai.request.model").as_deref(),
            Some("scripted-demo")
        );
    }
    let loaded = named("load_skill code-review");
    assert_eq!(loaded.len(), 1);
    assert_eq!(
        attribute(loaded[0], "skill.trigger").as_deref(),
        Some("model")
    );
    assert_eq!(
        attribute(loaded[0], "skill.sha256").as_deref(),
        Some(SKILLS.get("code-review").unwrap().sha256())
    );
    assert_eq!(
        attribute(loaded[0], "skill.version").as_deref(),
        Some("1.0.0")
    );
    let invoked = named("invoke_skill write-tests");
    assert_eq!(invoked.len(), 1);
    assert_eq!(
        attribute(invoked[0], "skill.trigger").as_deref(),
        Some("person")
    );
    assert_eq!(
        attribute(invoked[0], "skills.lock_digest").as_deref(),
        Some(digest)
    );
    assert!(!named("execute_tool read_file").is_empty());
}
