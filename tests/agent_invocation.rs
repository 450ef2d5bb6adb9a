//! Skills in a conversation beyond `load_skill`: `allowed-tools` pre-approving (or, strictly,
//! limiting) the tools while a skill is active, forked skills run in a child session, skills
//! only a person may invoke, and a person's `/name arguments`. Every request is checked as the
//! mock received it.
#![cfg(feature = "agent")]

mod agent_support;

use std::sync::{Arc, Mutex};

use agent_support::api_mock::{ApiMock, json_reply};
use agent_support::*;
use serde_json::{Value, json};
use skills_runtime::agent::{Agent, Permission, PermissionPolicy};
use wiremock::ResponseTemplate;

static BUNDLE: skills_runtime::Registry =
    skills_runtime::embed_skills!("tests/fixtures/invocation", compat = "claude-code");

fn tool_use(id: &str, name: &str, input: Value) -> ResponseTemplate {
    json_reply(
        200,
        &anthropic_message(
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
            "tool_use",
            1,
            1,
        ),
    )
}

fn final_text(text: &str) -> ResponseTemplate {
    json_reply(
        200,
        &anthropic_message(json!([{"type": "text", "text": text}]), "end_turn", 1, 1),
    )
}

/// The tool_result blocks of a request, in order.
fn results_of(request: &Value) -> Vec<Value> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user" && m["content"].is_array())
        .flat_map(|m| m["content"].as_array().unwrap().clone())
        .collect()
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// An approver that records what it was asked about and refuses.
fn recording_approver() -> (PermissionPolicy, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let policy = PermissionPolicy::new().with_approver(Arc::new(move |call| {
        seen.lock().unwrap().push(call.input.to_string());
        false
    }));
    (policy, asked)
}

#[tokio::test]
async fn allowed_tools_pre_approve_while_the_skill_is_active() {
    let dir = project();
    let server = ApiMock::start(vec![
        // Before the skill is active, write_file asks (and the approver refuses).
        tool_use(
            "w0",
            "write_file",
            json!({"path": "notes/early.txt", "content": "x"}),
        ),
        tool_use("l1", "load_skill", json!({"name": "notes-helper"})),
        // Covered by `Write`: runs without asking.
        tool_use(
            "w1",
            "write_file",
            json!({"path": "notes/a.txt", "content": "kept"}),
        ),
        // A chained command never matches `Bash(echo:*)`: the ordinary permission applies.
        tool_use(
            "b1",
            "bash",
            json!({"command": "echo hi && touch chained.txt"}),
        ),
        final_text("noted"),
        // The next run in the same session: the skill is still active.
        tool_use(
            "w2",
            "write_file",
            json!({"path": "notes/b.txt", "content": "later"}),
        ),
        final_text("noted again"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let (policy, asked) = recording_approver();
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .permissions(policy)
        .build()
        .unwrap();
    let mut session = agent.session();
    assert!(session.active_skills().is_empty());
    agent.run(&mut session, "write a note").await.unwrap();
    let names: Vec<_> = session.active_skills().iter().map(|s| s.name()).collect();
    assert_eq!(names, ["notes-helper"]);
    assert!(!dir.path().join("notes/early.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/a.txt")).unwrap(),
        "kept"
    );
    assert!(!dir.path().join("chained.txt").exists());
    // The approver saw the call before the load and the chained command, nothing else.
    let asked_about = asked.lock().unwrap().clone();
    assert_eq!(asked_about.len(), 2, "{asked_about:?}");
    assert!(asked_about[0].contains("early.txt"));
    assert!(asked_about[1].contains("chained.txt"));

    agent.run(&mut session, "another note").await.unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/b.txt")).unwrap(),
        "later"
    );
    assert_eq!(
        asked.lock().unwrap().len(),
        2,
        "still active: no new question"
    );
    // A new session starts with no active skill.
    assert!(agent.session().active_skills().is_empty());
}

#[tokio::test]
async fn deny_in_the_policy_wins_over_a_skill() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use("l1", "load_skill", json!({"name": "notes-helper"})),
        tool_use(
            "w1",
            "write_file",
            json!({"path": "notes/a.txt", "content": "x"}),
        ),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .permissions(
            PermissionPolicy::new()
                .set("write_file", Permission::Deny)
                .with_approver(Arc::new(|_| panic!("a denied tool is never asked about"))),
        )
        .build()
        .unwrap();
    agent.run(&mut agent.session(), "x").await.unwrap();
    assert!(!dir.path().join("notes/a.txt").exists());
    let last = server.requests().await.last().unwrap().json();
    let results = results_of(&last);
    assert_eq!(results[1]["is_error"], true);
    let text = results[1]["content"].as_str().unwrap();
    assert!(
        text.contains("permission policy does not allow `write_file`"),
        "{text}"
    );
}

#[tokio::test]
async fn strict_mode_offers_only_the_listed_tools() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use("l1", "load_skill", json!({"name": "notes-helper"})),
        // Not listed: refused, although reading is allowed by default.
        tool_use("r1", "read_file", json!({"path": "README.md"})),
        // Listed but not matching the pattern.
        tool_use("b1", "bash", json!({"command": "ls"})),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .permissions(
            PermissionPolicy::new().with_approver(Arc::new(|_| panic!("nothing is asked"))),
        )
        .strict_allowed_tools(true)
        .build()
        .unwrap();
    agent.run(&mut agent.session(), "x").await.unwrap();
    let requests: Vec<Value> = server.requests().await.iter().map(|r| r.json()).collect();
    assert_eq!(
        tool_names(&requests[0]),
        [
            "load_skill",
            "bash",
            "read_file",
            "write_file",
            "edit_file",
            "glob"
        ]
    );
    // Once the skill is active: its tools and the skill tools only, same bytes as before.
    assert_eq!(
        tool_names(&requests[1]),
        ["load_skill", "bash", "write_file"]
    );
    assert_eq!(requests[1]["tools"][0], requests[0]["tools"][0]);
    let results = results_of(&requests[3]);
    for refused in &results[1..3] {
        assert_eq!(refused["is_error"], true);
        let text = refused["content"].as_str().unwrap();
        assert!(text.contains("only its allowed tools run"), "{text}");
        assert!(text.contains("Bash(echo:*)"), "{text}");
    }
}
