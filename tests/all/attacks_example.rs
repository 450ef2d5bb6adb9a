//! The example agent binary driven by a hostile model: a mock OpenAI-compatible server on
//! 127.0.0.1 scripts the tool calls an attacker would send, and the tests check what came back
//! to the "model" and what happened on disk and to processes.
//!
//! Here, the file tools, the flood of calls and the first `bash` attacks; in
//! `attacks_example/`, one test per attack on the kernel's side of `bash` (network, local
//! services, root, processes, files), each run as the test user, as `nobody` and where the
//! kernel refuses user namespaces (`attacks_example/support.rs`).
//!
//! The binary is the one `cargo test` builds for the `agent` example, found beside this test's
//! own executable.
#![cfg(all(feature = "agent", target_os = "linux"))]

mod files;
mod local;
mod network;
mod processes;
mod root;
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skills_test_support::OPENAI_KEY;
use skills_test_support::api_mock::{ApiMock, json_reply};
use support::{marker, running_with, tool_call};
use wiremock::ResponseTemplate;

fn turn(calls: Vec<Value>) -> ResponseTemplate {
    json_reply(
        200,
        &skills_test_support::openai_completion(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
            Some(skills_test_support::openai_usage(100, 10)),
        ),
    )
}

fn answer(text: &str) -> ResponseTemplate {
    json_reply(
        200,
        &skills_test_support::openai_completion(
            json!({"role": "assistant", "content": text}),
            "stop",
            Some(skills_test_support::openai_usage(100, 10)),
        ),
    )
}

/// The tool results the agent sent back, by tool call id.
fn tool_results(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_attack_fails_safely_through_the_example_binary() {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let outside = root.path().join("outside");
    let home = root.path().join("home");
    for dir in [&work, &outside, &home] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(outside.join("secret"), "TOP-SECRET-42\n").unwrap();
    std::fs::write(outside.join("victim"), "untouched\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret"), work.join("link")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim"), work.join("victim-link")).unwrap();
    std::fs::hard_link(outside.join("victim"), work.join("hard")).unwrap();
    let fifo = Command::new("mkfifo")
        .arg(work.join("fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());

    let (background, session) = (marker(), marker());
    let bash = format!(
        "cut -d: -f1 /etc/passwd; cat ../outside/secret; echo \"KEY=[$OPENAI_API_KEY]\"; \
         sleep {background} & setsid sleep {session} & echo end"
    );
    let first = vec![
        tool_call("c-bash", "bash", json!({ "command": bash })),
        tool_call("c-up", "read_file", json!({"path": "../outside/secret"})),
        tool_call("c-link", "read_file", json!({"path": "link"})),
        tool_call("c-hard", "read_file", json!({"path": "hard"})),
        tool_call("c-fifo", "read_file", json!({"path": "fifo"})),
        tool_call(
            "c-write",
            "write_file",
            json!({"path": "victim-link", "content": "PWNED"}),
        ),
        tool_call(
            "c-edit",
            "edit_file",
            json!({"path": "hard", "old_text": "untouched", "new_text": "PWNED"}),
        ),
        tool_call("c-glob1", "glob", json!({"pattern": "*".repeat(60_000)})),
        tool_call("c-glob2", "glob", json!({"pattern": "**********z"})),
        tool_call(
            "c-resource",
            "read_skill_resource",
            json!({"skill": "debug-failing-test", "path": "references/flaky-tests.md",
                   "offset": 2, "limit": u64::MAX}),
        ),
    ];
    // Then a flood of calls in one turn, then the answer.
    let flood = (0..10_000)
        .map(|i| tool_call(&format!("f{i}"), "glob", json!({"pattern": "*.md"})))
        .collect();
    let server = ApiMock::start(vec![turn(first), turn(flood), answer("all done")]).await;

    let started = Instant::now();
    let output = tokio::task::spawn_blocking({
        let (work, home, base) = (work.clone(), home.clone(), server.url());
        move || {
            Command::new(crate::examples::example_binary("agent"))
                // The flood's 10,000 results are far over any real window; the budget would
                // refuse the request before the loop's own limits are seen.
                .args([
                    "--provider",
                    "openai",
                    "--yes",
                    "--context-window",
                    "100000000",
                ])
                .arg("--workdir")
                .arg(&work)
                .arg("do the task")
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", &home)
                .env("OPENAI_API_KEY", OPENAI_KEY)
                .env("OPENAI_BASE_URL", format!("{base}/v1"))
                .env("MODEL_ID", "gpt-test-model")
                .stdin(Stdio::null())
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let elapsed = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stdout.trim(), "all done");
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
    assert!(!stdout.contains(OPENAI_KEY) && !stderr.contains(OPENAI_KEY));

    let requests = server.requests().await;
    assert_eq!(requests.len(), 3, "{stderr}");
    let second = requests[1].json();
    let results = tool_results(&second);
    let result = |id: &str| -> &str {
        &results
            .iter()
            .find(|(call, _)| call == id)
            .unwrap_or_else(|| panic!("no result for {id}"))
            .1
    };
    // Nothing of the outside file, nor the key, reached the model.
    for (id, text) in &results {
        assert!(
            !text.contains("TOP-SECRET"),
            "{id} leaked the secret: {text}"
        );
        assert!(!text.contains(OPENAI_KEY), "{id} leaked the key");
    }
    let shell = result("c-bash");
    assert!(shell.contains("KEY=[]"), "{shell}");
    assert!(shell.contains("end"), "{shell}");
    // None of the host's accounts but root, nobody and the caller shows (the sandbox has a
    // passwd of its own, or none to read in the fallback).
    let me = std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m));
    let me = me.unwrap().to_string();
    for line in std::fs::read_to_string("/etc/passwd").unwrap().lines() {
        let fields: Vec<&str> = line.split(':').collect();
        if let [name, _, uid, ..] = fields[..]
            && !["0", "65534", me.as_str()].contains(&uid)
        {
            assert!(!shell.lines().any(|l| l == name), "{name} shows: {shell}");
        }
    }
    for marker in [background, session] {
        let left = running_with(&marker);
        assert!(
            left.is_empty(),
            "sleep {marker} outlived the bash call: {left:?}"
        );
    }
    for id in [
        "c-up", "c-link", "c-hard", "c-fifo", "c-write", "c-edit", "c-glob1",
    ] {
        assert!(result(id).contains("error ("), "{id}: {}", result(id));
    }
    assert!(
        result("c-resource").contains("shared state between tests"),
        "{}",
        result("c-resource")
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("victim")).unwrap(),
        "untouched\n"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("secret")).unwrap(),
        "TOP-SECRET-42\n"
    );

    // The flood: every call answered, only the per-turn cap actually ran.
    let third = requests[2].json();
    let flood_results = tool_results(&third);
    let flood_results: Vec<_> = flood_results
        .iter()
        .filter(|(id, _)| id.starts_with('f'))
        .collect();
    assert_eq!(flood_results.len(), 10_000);
    let ran = flood_results
        .iter()
        .filter(|(_, text)| !text.contains("error ("))
        .count();
    assert_eq!(
        ran,
        skills_runtime::agent::AgentBuilder::DEFAULT_MAX_TOOL_CALLS_PER_TURN
    );
    // No request carried the key anywhere but its Authorization header.
    for request in &requests {
        assert!(!request.text().contains(OPENAI_KEY));
    }
}

#[test]
fn the_example_asks_through_the_library() {
    // No second rendering in the example: its approver and tool lines call these.
    let approve = include_str!("../../examples/agent/approve.rs");
    assert!(approve.contains("ask_approval(call, Answers::new(&interrupt), io::stderr())"));
    let show = include_str!("../../examples/agent/show.rs");
    assert!(show.contains("let escaped = agent::terminal_text(line);"));
    assert!(show.contains("agent::terminal_line(&argument, 80)"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn security_md_lists_every_guarantee_the_fallback_warns_it_loses() {
    use self::support::{Caller, Site, bash, run};
    let test = "security_md_lists_every_guarantee_the_fallback_warns_it_loses";
    let policy = include_str!("../../SECURITY.md");
    let site = Site::new(Caller::NamespacesRefused);
    let calls = vec![bash("x", "true")];
    let Some(run) = run(test, Caller::NamespacesRefused, &site, calls, || {}).await else {
        return;
    };
    let lost: Vec<&str> = run
        .stderr
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("does not hold: "))
        .collect();
    assert!(!lost.is_empty(), "{}", run.stderr);
    for line in lost {
        assert!(
            policy.contains(&format!("- does not hold: {line}\n")),
            "SECURITY.md does not list \"{line}\""
        );
    }
}
