//! `agent --eval` through the example binary: the trigger evals of the cases compiled in with
//! `embed_evals`, against the offline demo model and against a model server on 127.0.0.1 that
//! loads skills by the words of the query, with the requests the agent itself sends.
#![cfg(feature = "agent")]

use skills_test_support::router;

use std::process::{Command, Output};
use std::sync::Arc;

use router::{Reply, RoutingModel};
use serde_json::Value;
use skills_runtime::agent::Agent;
use skills_runtime::agent::eval::{self, EvalOptions};
use skills_runtime::agent::provider::scripted::ScriptedModel;

static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("skills", embed_evals = true);

/// The example with `args`, its provider variables cleared, then `env` set; off the test's
/// runtime, so a mock on it keeps answering.
async fn agent(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut command = Command::new(crate::examples::example_binary("agent"));
    command.args(args).env_remove("XDG_RUNTIME_DIR");
    for name in [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "MODEL_ID",
    ] {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn report(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_model_runs_the_compiled_in_cases() {
    let output = agent(&["--eval", "--provider", "demo", "--format", "json"], &[]).await;
    assert_eq!(output.status.code(), Some(0));
    let shown = report(&output);
    assert_eq!(shown["provider"], "demo");
    assert_eq!(shown["cases"].as_array().unwrap().len(), 96);
    assert_eq!(shown["requests"], 288);
    // The word-overlap model shares "code" with code-review's description.
    let rustfmt = shown["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["query"] == "Format the code with rustfmt")
        .unwrap();
    assert_eq!(rustfmt["loaded"], serde_json::json!({"code-review": 3}));
    assert_eq!(rustfmt["pass"], false);
    // The same runner in this process, over the same cases and model, gives the same numbers.
    let agent = Agent::builder(Arc::new(ScriptedModel::with_skills(&SKILLS)))
        .skills(&SKILLS)
        .build()
        .unwrap();
    let here = eval::run(&agent, &EvalOptions::default(), |_| {})
        .await
        .unwrap();
    let here: Value = serde_json::from_str(&here.render(eval::Format::Json)).unwrap();
    assert_eq!(shown["skills"], here["skills"]);
    assert_eq!(shown["cases"], here["cases"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_server_is_asked_what_the_agent_sends_and_gated() {
    let model = RoutingModel::start(
        vec![
            ("commit", Reply::Load("commit-message")),
            ("review", Reply::Load("code-review")),
        ],
        Reply::Text,
    )
    .await;
    let env = [("OPENAI_BASE_URL", format!("{}/v1", model.url()))];
    let output = agent(
        &[
            "--eval",
            "--runs",
            "1",
            "--min-recall",
            "0.5",
            "--format",
            "markdown",
        ],
        &env,
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("recall of code-review is 0.25, under the minimum 0.5"),
        "{stdout}"
    );
    assert!(
        stdout.contains("| commit-message | 8 / 8 | 1.00 |"),
        "{stdout}"
    );
    let asked = model.bodies().await;
    assert_eq!(asked.len(), 96);
    // A task the model answers with text is one request: the agent's own first request.
    let task = agent(&["what time is it"], &env).await;
    assert!(
        task.status.success(),
        "{}",
        String::from_utf8_lossy(&task.stderr)
    );
    let own = model.bodies().await.pop().unwrap();
    assert_eq!(router::last_user_text(&own), "what time is it");
    for body in &asked {
        assert_eq!(body["tools"], own["tools"]);
        assert_eq!(body["messages"][0], own["messages"][0], "the system prompt");
        assert_eq!(body["stream"], own["stream"]);
        assert_eq!(body["model"], own["model"]);
        assert_eq!(body["messages"].as_array().unwrap().len(), 2);
    }
    // Skills no run loaded have no precision, so only commit-message (0.5) and code-review
    // (6 of 21 runs) are held to it.
    let passing = agent(&["--eval", "--runs", "1", "--min-precision", "0.25"], &env).await;
    assert_eq!(passing.status.code(), Some(0));
    let failing = agent(&["--eval", "--runs", "1", "--min-precision", "0.3"], &env).await;
    assert_eq!(failing.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread")]
async fn eval_flags_need_eval_and_exclude_a_task() {
    for args in [
        &["--runs", "2", "hello"][..],
        &["--min-recall", "0.5"],
        &["--isolated"],
        &["--eval", "hello"],
        &["--eval", "--threshold", "1.5"],
        &["--eval", "--format", "yaml"],
    ] {
        let output = agent(args, &[]).await;
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}

/// A `--baseline` that cannot be read, or is not a report of its kind, fails before any run
/// (exit 2, the file named), for trigger and task evals alike.
#[tokio::test(flavor = "multi_thread")]
async fn an_unreadable_baseline_fails_before_any_run() {
    let dir = std::env::temp_dir().join(format!("agent-eval-baseline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{").unwrap();
    let missing = dir.join("missing.json");
    for (tasks, path) in [
        (false, &missing),
        (true, &missing),
        (false, &broken),
        (true, &broken),
    ] {
        let path = path.to_str().unwrap();
        let mut args = vec!["--eval", "--provider", "demo", "--baseline", path];
        if tasks {
            args.push("--tasks");
        }
        let output = agent(&args, &[]).await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("error: baseline {path}: ")),
            "{stderr}"
        );
        assert!(output.stdout.is_empty(), "no report: {args:?}");
        assert!(!stderr.contains("run 1"), "no case ran: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `agent --eval --tasks` against the demo model: the demo bundle's task cases, with and
/// without each skill, through the example's own loop and sandbox; the numbers the agent's
/// eval docs quote, and the page.
#[tokio::test(flavor = "multi_thread")]
async fn the_demo_model_runs_the_compiled_in_task_cases() {
    let output = agent(
        &[
            "--eval",
            "--tasks",
            "--provider",
            "demo",
            "--format",
            "json",
        ],
        &[],
    )
    .await;
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shown = report(&output);
    assert_eq!(shown["kind"], "tasks");
    assert_eq!(shown["runs_per_configuration"], 3);
    let skills = shown["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 6);
    let uplift = |name: &str| {
        skills.iter().find(|s| s["name"] == name).unwrap()["delta"]["pass_rate"]
            .as_f64()
            .unwrap()
    };
    // The eval docs' table: every demo skill but code-review (whose conflict case goes the
    // other way) lifts its pass rate from 0 to 1.
    assert_eq!(uplift("code-review"), 0.0);
    for name in [
        "commit-message",
        "debug-failing-test",
        "dependency-audit",
        "write-docs",
        "write-tests",
    ] {
        assert_eq!(uplift(name), 1.0, "{name}");
    }
    // Every graded assertion was graded by the labelled word-match grader.
    let evidence: Vec<&str> = shown["runs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["expectations"].as_array().unwrap().iter())
        .filter(|e| e["graded"] == true)
        .map(|e| e["evidence"].as_str().unwrap())
        .collect();
    assert!(!evidence.is_empty());
    assert!(
        evidence
            .iter()
            .all(|e| e.starts_with(skills_runtime::agent::provider::scripted::GRADER_LABEL))
    );
    // The page, and a gate.
    let html = agent(
        &[
            "--eval",
            "--tasks",
            "--provider",
            "demo",
            "--format",
            "html",
            "--runs",
            "1",
        ],
        &[],
    )
    .await;
    assert_eq!(html.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&html.stdout).starts_with("<!DOCTYPE html>"));
    let gated = agent(
        &[
            "--eval",
            "--tasks",
            "--provider",
            "demo",
            "--runs",
            "1",
            "--min-uplift",
            "0.5",
        ],
        &[],
    )
    .await;
    assert_eq!(gated.status.code(), Some(1));
    // The task flags are flags of --eval; html is a task report's format.
    for args in [
        &["--tasks", "hello"][..],
        &["--min-uplift", "0.5"],
        &["--eval", "--provider", "demo", "--format", "html"],
    ] {
        assert_eq!(agent(args, &[]).await.status.code(), Some(2), "{args:?}");
    }
}
