//! Skills in a conversation beyond `load_skill`: `allowed-tools` pre-approving (or, strictly,
//! limiting) the tools while a skill is active, forked skills run in a child session, skills
//! only a person may invoke, and a person's `/name arguments`. Every request is checked as the
//! mock received it.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use skills_runtime::InvokeError;
use skills_runtime::agent::{Agent, AgentError, Permission, PermissionPolicy};
use skills_test_support::api_mock::{ApiMock, final_text, json_reply, tool_use};
use skills_test_support::*;

static BUNDLE: skills_runtime::Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/invocation",
    compat = "claude-code"
);

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
    // No `read_skill_resource`: the only skill with files here is person-only, so the model is
    // not offered its files.
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

#[tokio::test]
async fn a_forked_skill_answers_from_its_own_conversation() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use("l1", "load_skill", json!({"name": "summarize"})),
        // The child's turns.
        tool_use("c1", "read_file", json!({"path": "README.md"})),
        final_text("CHILD-ANSWER: a tiny crate."),
        // The parent again, with the child's answer as the tool result.
        final_text("The README says: a tiny crate."),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .preamble("PREAMBLE")
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent
        .run(&mut session, "summarize the project")
        .await
        .unwrap();
    assert_eq!(out.text, "The README says: a tiny crate.");
    assert_eq!(out.skills_loaded, ["summarize"]);
    assert!(
        session.active_skills().is_empty(),
        "active in the child only"
    );
    assert_eq!(out.usage.requests, 4, "the child's requests count");

    let requests: Vec<Value> = server.requests().await.iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 4);
    let (parent, child, child_2, parent_2) =
        (&requests[0], &requests[1], &requests[2], &requests[3]);
    assert_eq!(parent["model"], "claude-test-model");
    assert!(tool_names(parent).contains(&"load_skill".to_owned()));
    // The child: a fresh conversation whose task is the skill's text, the preamble without the
    // catalog, only the skill's allowed tools, and the skill's model.
    assert_eq!(child["model"], "child-model");
    // The Messages API takes no effort field on every model: none is sent.
    assert!(!requests[1].to_string().contains("effort"));
    assert_eq!(child["system"][0]["text"], "PREAMBLE");
    assert_eq!(tool_names(child), ["read_file"]);
    let task = &child["messages"].as_array().unwrap()[..];
    assert_eq!(task.len(), 1);
    assert_eq!(task[0]["role"], "user");
    let task_text = task[0]["content"].as_str().unwrap();
    assert!(
        task_text.starts_with("<skill name=\"summarize\">"),
        "{task_text}"
    );
    assert!(task_text.contains("SUMMARIZE-BODY"), "{task_text}");
    assert!(!task_text.contains("summarize the project"));
    assert_eq!(child_2["model"], "child-model");
    assert!(
        results_of(child_2)[0]["content"]
            .as_str()
            .unwrap()
            .contains("# tiny")
    );
    // The parent's conversation holds the answer, not the child's work.
    assert_eq!(parent_2["model"], "claude-test-model");
    let results = results_of(parent_2);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["content"], "CHILD-ANSWER: a tiny crate.");
    assert!(!parent_2.to_string().contains("SUMMARIZE-BODY"));
}

#[tokio::test]
async fn a_skill_only_a_person_invokes_is_hidden_from_the_model() {
    let server = ApiMock::start(vec![
        tool_use("l1", "load_skill", json!({"name": "release"})),
        tool_use(
            "r1",
            "read_skill_resource",
            json!({"skill": "release", "path": "scripts/release.sh"}),
        ),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent.run(&mut session, "release 1.0").await.unwrap();
    assert!(out.skills_loaded.is_empty());
    assert!(!session.has_loaded("release"));
    let requests: Vec<Value> = server.requests().await.iter().map(|r| r.json()).collect();
    let system = requests[0]["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("- notes-helper:"), "{system}");
    assert!(!system.contains("release"), "{system}");
    let load = &requests[0]["tools"][0];
    assert_eq!(load["name"], "load_skill");
    let names = load["input_schema"]["properties"]["name"]["enum"].clone();
    assert_eq!(
        names,
        json!(["background", "notes-helper", "plain", "summarize"])
    );
    let result = &results_of(&requests[1])[0];
    assert_eq!(result["is_error"], true);
    let text = result["content"].as_str().unwrap();
    assert!(text.starts_with("error (unknown_skill)"), "{text}");
    assert!(!text.contains("RELEASE-BODY"));
    // Its files are as hidden as its body: not offered, and refused when asked for by name.
    let script = std::fs::read_to_string(
        "../skills-test-support/fixtures/invocation/release/scripts/release.sh",
    )
    .unwrap();
    let read = &results_of(&requests[2])[0];
    assert_eq!(read["is_error"], true);
    let text = read["content"].as_str().unwrap();
    assert!(text.starts_with("error (unknown_skill)"), "{text}");
    assert!(!text.contains(script.trim()), "{text}");
}

#[tokio::test]
async fn a_person_invokes_with_arguments_and_the_skill_becomes_active() {
    let dir = project();
    let files = tempfile::tempdir().unwrap();
    let server = ApiMock::start(vec![final_text("released")]).await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .resource_dir(files.path().join("skills"))
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent
        .invoke(&mut session, "release", r#"1.2.0 "early access""#)
        .await
        .unwrap();
    assert_eq!(out.text, "released");
    assert_eq!(out.skills_loaded, ["release"]);
    assert_eq!(session.active_skills()[0].name(), "release");
    assert!(session.has_loaded("release"));

    let request = server.requests().await[0].json();
    let messages = request["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    let turn = messages[0]["content"].as_str().unwrap();
    let skill_dir = std::fs::read_dir(files.path().join("skills"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(skill_dir.join("scripts/release.sh").is_file());
    assert_eq!(
        turn,
        format!(
            "<skill name=\"release\">\nRELEASE-BODY: release 1.2.0 on the early access channel \
             (all: 1.2.0 \"early access\").\nRun {}/scripts/release.sh 1.2.0.\n</skill>\n\n\
             Resources of this skill, written to {}:\n- scripts/release.sh (30 bytes)",
            skill_dir.display(),
            skill_dir.display()
        )
    );

    // Refusals are typed and carry the suggestion.
    let unknown = agent.invoke(&mut session, "relase", "").await.unwrap_err();
    let AgentError::Invoke(error) = unknown else {
        panic!("{unknown:?}")
    };
    assert!(error.is_unknown());
    assert_eq!(error.suggestion(), Some("release"));
    let hidden = agent
        .invoke(&mut session, "background", "")
        .await
        .unwrap_err();
    assert!(
        matches!(
            hidden,
            AgentError::Invoke(InvokeError::NotUserInvocable { name: "background" })
        ),
        "{hidden:?}"
    );
    assert_eq!(server.request_count().await, 1, "refusals send nothing");
}

#[tokio::test]
async fn a_person_invokes_a_forked_skill_on_openai_with_its_model_and_effort() {
    let dir = project();
    let answer = |text: &str| {
        json_reply(
            200,
            &openai_completion(
                json!({"role": "assistant", "content": text}),
                "stop",
                Some(openai_usage(10, 2)),
            ),
        )
    };
    let server = ApiMock::start(vec![answer("CHILD: tiny."), answer("later")]).await;
    let (provider, _) = openai(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent
        .invoke(&mut session, "summarize", "briefly")
        .await
        .unwrap();
    assert_eq!(out.text, "CHILD: tiny.");
    assert!(session.active_skills().is_empty());
    agent.run(&mut session, "thanks").await.unwrap();

    let requests: Vec<Value> = server.requests().await.iter().map(|r| r.json()).collect();
    let child = &requests[0];
    assert_eq!(child["model"], "child-model");
    assert_eq!(
        child["reasoning_effort"], "xhigh",
        "`max` is OpenAI's `xhigh`"
    );
    let names: Vec<_> = child["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read_file"]);
    let task = child["messages"][1]["content"].as_str().unwrap();
    assert!(task.contains("SUMMARIZE-BODY"), "{task}");
    assert!(task.ends_with("ARGUMENTS: briefly\n</skill>"), "{task}");
    // The parent continues with the person's command and the answer, at its own model.
    let parent = &requests[1];
    assert_eq!(parent["model"], "gpt-test-model");
    assert!(parent.get("reasoning_effort").is_none());
    let messages = parent["messages"].as_array().unwrap();
    assert_eq!(messages[1]["content"], "/summarize briefly");
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["content"], "CHILD: tiny.");
    assert_eq!(messages[3]["content"], "thanks");
}

#[tokio::test]
async fn a_forked_skill_has_its_own_turn_limit() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use("l1", "load_skill", json!({"name": "summarize"})),
        // The child keeps calling tools past its limit of two requests.
        tool_use("c1", "read_file", json!({"path": "README.md"})),
        tool_use("c2", "read_file", json!({"path": "README.md"})),
        final_text("the parent goes on"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .fork_max_turns(2)
        .build()
        .unwrap();
    let out = agent.run(&mut agent.session(), "x").await.unwrap();
    assert_eq!(out.text, "the parent goes on");
    assert_eq!(out.usage.requests, 4);
    let last = server.requests().await.last().unwrap().json();
    let result = &results_of(&last)[0];
    assert_eq!(result["is_error"], true);
    let text = result["content"].as_str().unwrap();
    assert!(text.contains("runs in a sub-agent"), "{text}");
    assert!(text.contains("turn limit reached"), "{text}");
}

#[tokio::test]
async fn a_person_invoked_skill_pre_approves_from_the_first_request() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use(
            "w1",
            "write_file",
            json!({"path": "notes/todo.txt", "content": "todo"}),
        ),
        final_text("written"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .permissions(
            PermissionPolicy::new().with_approver(Arc::new(|_| panic!("pre-approved: not asked"))),
        )
        .build()
        .unwrap();
    let mut session = agent.session();
    agent
        .invoke(&mut session, "notes-helper", "todo")
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/todo.txt")).unwrap(),
        "todo"
    );
    let first = server.requests().await[0].json();
    let turn = first["messages"][0]["content"].as_str().unwrap();
    assert!(turn.contains("NOTES-HELPER-BODY"), "{turn}");
    assert!(turn.ends_with("ARGUMENTS: todo\n</skill>"), "{turn}");
}
