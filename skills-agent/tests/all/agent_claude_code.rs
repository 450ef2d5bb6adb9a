//! Claude Code's skills as the agent runs them: a display name in `load_skill`, the `${CLAUDE_*}`
//! variables of the session in what the model reads, and the skills' `` !`command` `` and
//! ```` ```! ```` blocks, run through the `bash` tool only when the builder says so. Every
//! request is checked as the mock received it.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use skills_runtime::agent::{
    Agent, AgentError, BashOptions, Permission, PermissionPolicy, SkillCommandFailure,
};
use skills_test_support::api_mock::{ApiMock, final_text, tool_use};
use skills_test_support::*;

static RUNTIME: skills_runtime::Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/claude-code-runtime",
    compat = "claude-code"
);
static DISPLAY: skills_runtime::Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/claude-code",
    compat = "claude-code"
);

/// The text of the first user turn of `request`.
fn first_turn(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_else(|| panic!("{request}"))
        .to_owned()
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

/// A private folder (mode 0700) for the skills' files.
fn resource_base() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

/// A policy that records every call it was asked about and answers `answer`.
fn approver(answer: bool) -> (PermissionPolicy, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let policy = PermissionPolicy::new().with_approver(Arc::new(move |call| {
        seen.lock().unwrap().push(call.input.to_string());
        answer
    }));
    (policy, asked)
}

#[tokio::test]
async fn the_model_loads_a_skill_by_its_display_name() {
    let dir = project();
    // The skill has `paths`: reading a matching file offers it first.
    std::fs::create_dir_all(dir.path().join("agents")).unwrap();
    std::fs::write(dir.path().join("agents/reviewer.md"), "# Reviewer\n").unwrap();
    let server = ApiMock::start(vec![
        tool_use("r1", "read_file", json!({"path": "agents/reviewer.md"})),
        tool_use("l1", "load_skill", json!({"name": "Agent Development"})),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&DISPLAY)
        .workdir(dir.path())
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent.run(&mut session, "write an agent").await.unwrap();
    assert_eq!(out.skills_loaded, ["agent-development"]);
    let result = &results_of(&server.requests().await[2].json())[1];
    assert_ne!(result["is_error"], true, "{result}");
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("<skill name=\"agent-development\""),
        "{result}"
    );
}

#[tokio::test]
async fn an_invocation_names_the_session_the_project_and_the_skills_folder() {
    let dir = project();
    let files = resource_base();
    let server = ApiMock::start(vec![final_text("ok")]).await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&RUNTIME)
        .workdir(dir.path())
        .resource_dir(files.path())
        .build()
        .unwrap();
    let mut session = agent.session();
    assert_eq!(session.id().len(), 36, "{}", session.id());
    assert_ne!(agent.session().id(), session.id(), "each session its own");
    agent.invoke(&mut session, "status", "v1").await.unwrap();
    let turn = first_turn(&server.requests().await[0].json());
    let workdir = agent.workdir().display().to_string();
    assert!(
        turn.contains(&format!(
            "Session {}, effort high, in {workdir}.",
            session.id()
        )),
        "{turn}"
    );
    let notes = turn
        .lines()
        .find_map(|l| l.strip_prefix("Notes: "))
        .unwrap();
    assert!(std::path::Path::new(notes).is_file(), "{notes}");
    // Off by default: the commands reach the model as written.
    assert!(turn.contains("Inline: !`echo inline-v1`"), "{turn}");
    assert!(
        turn.contains("```!\nprintf 'block %s\\n' \"v1\"\n```"),
        "{turn}"
    );
    // A session with an id of its own.
    let mut named = agent.session().with_id("named-session");
    let server2 = ApiMock::start(vec![final_text("ok")]).await;
    let (provider, _) = anthropic(&server2.url());
    let agent2 = Agent::builder(Arc::new(provider))
        .skills(&RUNTIME)
        .workdir(dir.path())
        .build()
        .unwrap();
    agent2.invoke(&mut named, "status", "").await.unwrap();
    assert!(first_turn(&server2.requests().await[0].json()).contains("Session named-session,"),);
}

#[tokio::test]
async fn enabled_commands_run_through_bash_and_their_output_takes_their_place() {
    let dir = project();
    let server = ApiMock::start(vec![final_text("reported")]).await;
    let (provider, _) = anthropic(&server.url());
    // The skill's `allowed-tools` (`Bash(echo:*) Bash(printf:*)`) pre-approve a command of plain
    // words (`echo inline-v1`); the block's `printf` has quotes, which a pre-approval never
    // covers, so the person is asked about it (and says yes).
    let (policy, asked) = approver(true);
    let agent = Agent::builder(Arc::new(provider))
        .skills(&RUNTIME)
        .workdir(dir.path())
        .permissions(policy)
        .run_skill_commands(true)
        // Unconfined: libtest's own `main` has no sandbox entry line (the sandboxed tool is
        // tested in tests/bash.rs); what is tested here is what the commands' output becomes.
        .bash(BashOptions::unconfined())
        .build()
        .unwrap();
    let mut session = agent.session();
    agent
        .invoke(&mut session, "status", "v1 now")
        .await
        .unwrap();
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("printf"), "{asked:?}");
    let turn = first_turn(&server.requests().await[0].json());
    // `bash` returns the output without its last line break; the body's own follows it.
    assert!(
        turn.contains("Inline: inline-v1\nblock v1 now\nAsked: v1 now"),
        "{turn}"
    );
    assert!(!turn.contains("!`") && !turn.contains("```!"), "{turn}");
}

#[tokio::test]
async fn a_failing_command_fails_the_invocation_before_anything_is_sent() {
    let dir = project();
    // No reply scripted: the model is never asked.
    let server = ApiMock::start(vec![]).await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&RUNTIME)
        .workdir(dir.path())
        .permissions(PermissionPolicy::new().set("bash", Permission::Allow))
        .run_skill_commands(true)
        .bash(BashOptions::unconfined())
        .build()
        .unwrap();
    let mut session = agent.session();
    let error = agent.invoke(&mut session, "broken", "").await.unwrap_err();
    let AgentError::SkillCommand(failed) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(failed.skill, "broken");
    assert_eq!(failed.command, "echo about to fail; exit 3");
    assert_eq!(
        failed.failure,
        SkillCommandFailure::Exit {
            code: 3,
            output: "about to fail".to_owned()
        }
    );
    assert_eq!(
        error.to_string(),
        "skill `broken`: the shell command `echo about to fail; exit 3` failed with exit code 3: \
         about to fail"
    );
    assert_eq!(server.request_count().await, 0);
    assert!(session.conversation().messages().is_empty());
    assert!(!session.has_loaded("broken"));

    // The permission policy applies: refused, it is not run, and the invocation fails too.
    let refusing = Agent::builder(Arc::new(anthropic(&server.url()).0))
        .skills(&RUNTIME)
        .workdir(dir.path())
        .permissions(PermissionPolicy::new().set("bash", Permission::Deny))
        .run_skill_commands(true)
        .bash(BashOptions::unconfined())
        .build()
        .unwrap();
    let error = refusing
        .invoke(&mut refusing.session(), "broken", "")
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::SkillCommand(e) if matches!(e.failure, SkillCommandFailure::NotRun(_))),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("`echo fine` was not run"),
        "{error}"
    );
    // Without a bash tool, nothing can run them.
    let no_bash = Agent::builder(Arc::new(anthropic(&server.url()).0))
        .skills(&RUNTIME)
        .workdir(dir.path())
        .only_tools(["read_file"])
        .run_skill_commands(true)
        .bash(BashOptions::unconfined())
        .build()
        .unwrap();
    let error = no_bash
        .invoke(&mut no_bash.session(), "broken", "")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no bash tool"), "{error}");
    assert_eq!(server.request_count().await, 0);
}

#[tokio::test]
async fn a_load_by_the_model_runs_the_commands_or_fails_as_a_tool_error() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use("l1", "load_skill", json!({"name": "status"})),
        tool_use("l2", "load_skill", json!({"name": "broken"})),
        tool_use("l3", "load_skill", json!({"name": "broken"})),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&RUNTIME)
        .workdir(dir.path())
        .permissions(PermissionPolicy::new().set("bash", Permission::Allow))
        .run_skill_commands(true)
        .bash(BashOptions::unconfined())
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent.run(&mut session, "what changed?").await.unwrap();
    assert_eq!(out.skills_loaded, ["status"]);
    let requests = server.requests().await;
    let results = results_of(&requests[3].json());
    let status = results[0]["content"].as_str().unwrap();
    // A load has no arguments: `$ARGUMENTS` stays in the text, and the shell reads the
    // commands' `"$ARGUMENTS"` as an unset variable.
    assert!(status.contains("\nblock\nAsked: $ARGUMENTS"), "{status}");
    assert!(
        !status.contains("!`echo") && !status.contains("```!"),
        "{status}"
    );
    for broken in &results[1..] {
        assert_eq!(broken["is_error"], true);
        let text = broken["content"].as_str().unwrap();
        assert!(text.contains("failed with exit code 3"), "{text}");
    }
    // A failed load is no load: the second attempt ran the commands again.
    assert!(!session.has_loaded("broken"));
    let names: Vec<_> = session.active_skills().iter().map(|s| s.name()).collect();
    assert_eq!(names, ["status"]);
}

static SCOPED: skills_runtime::Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/claude-code-scoped",
    compat = "claude-code"
);

/// An agent of the `SCOPED` skills at `server`, in `dir`, with `policy` and `bash` unconfined
/// (libtest's own `main` has no sandbox entry line).
fn scoped_agent(server: &ApiMock, dir: &std::path::Path, policy: PermissionPolicy) -> Agent {
    let (provider, _) = anthropic(&server.url());
    Agent::builder(Arc::new(provider))
        .skills(&SCOPED)
        .workdir(dir)
        .bash(BashOptions::unconfined())
        .permissions(policy)
        .build()
        .unwrap()
}

/// An Anthropic reply asking for several tool calls at once.
fn tool_uses(calls: &[(&str, &str, Value)]) -> wiremock::ResponseTemplate {
    let content: Vec<Value> = calls
        .iter()
        .map(
            |(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}),
        )
        .collect();
    api_mock::json_reply(200, &anthropic_message(json!(content), "tool_use", 1, 1))
}

#[tokio::test]
async fn a_skill_with_paths_is_offered_once_a_matching_file_is_read_or_written() {
    let dir = project();
    std::fs::create_dir_all(dir.path().join("db")).unwrap();
    std::fs::write(
        dir.path().join("db/schema.sql"),
        "create table t (id int);\n",
    )
    .unwrap();
    let server = ApiMock::start(vec![
        // Before any file: not available, though its name is among load_skill's.
        tool_use("l1", "load_skill", json!({"name": "sql-migrations"})),
        // A read and a write in one turn, run concurrently: the read's path matches.
        tool_uses(&[
            ("r1", "read_file", json!({"path": "db/schema.sql"})),
            (
                "w1",
                "write_file",
                json!({"path": "notes.md", "content": "x"}),
            ),
        ]),
        tool_use("l2", "load_skill", json!({"name": "sql-migrations"})),
        final_text("done"),
    ])
    .await;
    let agent = scoped_agent(&server, dir.path(), PermissionPolicy::allow_all());
    // The catalog leaves it out; a skill whose pattern is `**` is no condition at all.
    let prompt = agent.system_prompt();
    assert!(!prompt.contains("sql-migrations"), "{prompt}");
    assert!(prompt.contains("- everywhere: "), "{prompt}");
    assert!(prompt.contains("- release-notes: "), "{prompt}");
    let file = dir.path().join("chat.jsonl");
    let mut session = agent.session().with_transcript(&file).unwrap();
    let out = agent.run(&mut session, "add a column").await.unwrap();
    assert_eq!(out.skills_loaded, ["sql-migrations"]);
    assert_eq!(
        session
            .offered_skills()
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>(),
        ["sql-migrations"]
    );

    let requests: Vec<Value> = server.requests().await.iter().map(|r| r.json()).collect();
    assert_eq!(requests.len(), 4);
    // The prefix a provider caches never changes: the same system prompt and tools throughout.
    for request in &requests[1..] {
        assert_eq!(request["system"], requests[0]["system"]);
        assert_eq!(request["tools"], requests[0]["tools"]);
    }
    let refused = &results_of(&requests[1])[0];
    assert_eq!(refused["is_error"], true, "{refused}");
    let text = refused["content"].as_str().unwrap();
    assert!(text.contains("is not available yet"), "{text}");
    assert!(text.contains("`*.sql`, `db/migrations/`"), "{text}");
    // The read's result says what became available, with its catalog line.
    let results = results_of(&requests[2]);
    let read = results[1]["content"].as_str().unwrap();
    assert!(
        read.ends_with(
            "[skills] `db/schema.sql` matches the `paths` of this skill, available from now on; \
             call load_skill when one applies:\n- sql-migrations: Write reversible SQL \
             migrations. Use when a schema or migration file changes."
        ),
        "{read}"
    );
    assert!(!results[2]["content"].as_str().unwrap().contains("[skills]"));
    let loaded = &results_of(&requests[3])[3];
    assert_ne!(loaded["is_error"], true, "{loaded}");

    // A resumed session keeps what was offered.
    let resumed = agent.resume(&file).unwrap();
    assert_eq!(resumed.offered_skills().len(), 1);
}

#[tokio::test]
async fn a_file_a_bash_command_names_offers_a_skill_too() {
    let dir = project();
    std::fs::create_dir_all(dir.path().join("db/migrations")).unwrap();
    std::fs::write(dir.path().join("db/migrations/001_init"), "-- init\n").unwrap();
    let server = ApiMock::start(vec![
        tool_use(
            "b1",
            "bash",
            json!({"command": "ls -l db/migrations/001_init | wc -l"}),
        ),
        final_text("done"),
    ])
    .await;
    let agent = scoped_agent(&server, dir.path(), PermissionPolicy::allow_all());
    let mut session = agent.session();
    agent
        .run(&mut session, "look at the migrations")
        .await
        .unwrap();
    assert_eq!(session.offered_skills().len(), 1);
    let result = &results_of(&server.requests().await[1].json())[0];
    let text = result["content"].as_str().unwrap();
    assert!(
        text.contains("[skills] `db/migrations/001_init` matches the `paths` of this skill"),
        "{text}"
    );
}

#[tokio::test]
async fn disallowed_tools_leave_the_requests_while_the_skill_is_active() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use("w1", "write_file", json!({"path": "x.txt", "content": "x"})),
        tool_use("b1", "bash", json!({"command": "rm -rf src"})),
        tool_use("b2", "bash", json!({"command": "ls src | head"})),
        tool_use("b3", "bash", json!({"command": "ls src"})),
        final_text("reviewed"),
    ])
    .await;
    let (policy, asked) = approver(true);
    let agent = scoped_agent(&server, dir.path(), policy);
    assert!(agent.tool_definitions().contains("write_file"));
    let mut session = agent.session();
    agent
        .invoke(&mut session, "read-only-review", "src")
        .await
        .unwrap();
    let requests: Vec<Value> = server.requests().await.iter().map(|r| r.json()).collect();
    // Write and Edit are gone from every request while the skill is active; bash stays, for
    // the commands its entry does not match.
    for request in &requests {
        let names = tool_names(request);
        assert!(!names.contains(&"write_file".to_owned()), "{names:?}");
        assert!(!names.contains(&"edit_file".to_owned()), "{names:?}");
        assert!(names.contains(&"bash".to_owned()), "{names:?}");
        assert!(names.contains(&"read_file".to_owned()), "{names:?}");
    }
    let refused = |request: &Value| {
        let result = results_of(request).last().unwrap().clone();
        (
            result["is_error"] == true,
            result["content"].as_str().unwrap().to_owned(),
        )
    };
    let (error, text) = refused(&requests[1]);
    assert!(error, "{text}");
    assert!(
        text.contains(
            "while the skill `read-only-review` is active, `write_file` is not allowed: its \
             disallowed-tools lists `Write`"
        ),
        "{text}"
    );
    let (error, text) = refused(&requests[2]);
    assert!(error && text.contains("lists `Bash(rm:*)`"), "{text}");
    // A pipe could run anything: refused too.
    let (error, text) = refused(&requests[3]);
    assert!(error && text.contains("plain words"), "{text}");
    let (error, text) = refused(&requests[4]);
    assert!(!error, "{text}");
    assert!(dir.path().join("src/lib.rs").exists());
    assert!(!dir.path().join("x.txt").exists());
    // Nobody was asked about the refused calls; the approver saw only `ls src`.
    assert_eq!(
        *asked.lock().unwrap(),
        [json!({"command": "ls src"}).to_string()]
    );
    // A new session offers everything again.
    let fresh = agent.session();
    assert!(fresh.active_skills().is_empty());
}
