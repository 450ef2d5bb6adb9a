//! Sessions kept in a JSON Lines transcript and resumed from it.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use skills_runtime::agent::{Agent, AgentError, Message};
use skills_test_support::api_mock::{ApiMock, final_text, tool_use};
use skills_test_support::logs::capture;
use skills_test_support::*;

/// The agent tests' own small bundle (`tests/skills`).
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");

fn agent(server: &ApiMock, dir: &Path) -> Agent {
    let (provider, _) = anthropic(&server.url());
    Agent::builder(Arc::new(provider))
        .skills(&SKILLS)
        .workdir(dir)
        .build()
        .unwrap()
}

/// A first run that loads `code-review`, kept in `path`. Returns the messages of its last
/// request.
async fn first_run(dir: &Path, path: &Path) -> Vec<Value> {
    let server = ApiMock::start(vec![
        tool_use("t1", "load_skill", json!({"name": "code-review"})),
        final_text("reviewed"),
    ])
    .await;
    let agent = agent(&server, dir);
    let mut session = agent.session().with_transcript(path).unwrap();
    assert_eq!(session.transcript_path(), Some(path));
    let out = agent.run(&mut session, "review src/lib.rs").await.unwrap();
    assert_eq!(out.skills_loaded, ["code-review"]);
    let requests = server.requests().await;
    requests[1].json()["messages"].as_array().unwrap().clone()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn a_resumed_session_sends_the_earlier_messages_and_keeps_its_skills() {
    let dir = project();
    let path = dir.path().join("session.jsonl");
    let earlier = first_run(dir.path(), &path).await;

    // One line per message, the skill recorded on the line that brought its text.
    let written = lines(&path);
    assert_eq!(written.len(), 4);
    let roles: Vec<&str> = written
        .iter()
        .map(|l| l["message"]["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool_results", "assistant"]);
    assert_eq!(written[2]["skills_loaded"], json!(["code-review"]));
    assert_eq!(written[2]["skills_active"], json!(["code-review"]));
    assert!(written[3].get("skills_loaded").is_none());

    // A new process: another agent, another server, the same file.
    let server = ApiMock::start(vec![
        tool_use("t2", "load_skill", json!({"name": "code-review"})),
        final_text("again"),
    ])
    .await;
    let agent = agent(&server, dir.path());
    let mut session = agent.resume(&path).unwrap();
    assert_eq!(session.conversation().len(), 4);
    assert!(session.has_loaded("code-review"));
    let active: Vec<_> = session.active_skills().iter().map(|s| s.name()).collect();
    assert_eq!(active, ["code-review"]);
    let out = agent.run(&mut session, "and now tests?").await.unwrap();
    assert_eq!(out.text, "again");
    assert!(out.skills_loaded.is_empty(), "{:?}", out.skills_loaded);

    let requests = server.requests().await;
    let first = requests[0].json();
    let messages = first["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5);
    // Exactly what the first run sent, echoed assistant content included, then its answer
    // and the new prompt.
    assert_eq!(messages[..3], earlier[..]);
    assert_eq!(messages[3]["role"], "assistant");
    assert_eq!(messages[3]["content"][0]["text"], "reviewed");
    assert_eq!(
        messages[4],
        json!({"role": "user", "content": "and now tests?"})
    );
    // The skill's text is in the conversation once: the second load gets the short note.
    let second = requests[1].text();
    assert_eq!(second.matches("REVIEW-BODY-MARKER").count(), 1, "{second}");
    assert!(second.contains("already loaded"));
    // The file goes on: four earlier lines and four new ones.
    assert_eq!(lines(&path).len(), 8);
}

#[tokio::test]
async fn a_last_line_cut_short_is_kept_in_the_file_and_skipped() {
    let dir = project();
    let path = dir.path().join("session.jsonl");
    first_run(dir.path(), &path).await;
    let whole = std::fs::read(&path).unwrap();
    // A crash in the middle of a line, even in the middle of a character.
    let mut cut = whole.clone();
    cut.extend_from_slice("{\"message\":{\"role\":\"user\",\"text\":\"caf\u{e9}".as_bytes());
    cut.pop();
    std::fs::write(&path, &cut).unwrap();

    let server = ApiMock::start(vec![final_text("again")]).await;
    let agent = agent(&server, dir.path());
    let (logs, guard) = capture();
    let mut session = agent.resume(&path).unwrap();
    drop(guard);
    assert_eq!(session.conversation().len(), 4);
    assert!(session.has_loaded("code-review"));
    let warnings = logs.at("WARN");
    assert!(
        warnings.iter().any(|w| w.contains("cut short")),
        "{warnings:?}"
    );
    // Nothing is cut from the file: the partial line stays, on a line of its own, and a line
    // after it says it was skipped.
    let mut expected = cut.clone();
    expected.extend_from_slice(
        b"\n{\"skipped\":{\"line\":5,\"reason\":\"cut short (a crash while writing it)\"}}\n",
    );
    assert_eq!(std::fs::read(&path).unwrap(), expected);
    // The session goes on after it, and resumes again with everything but the partial line.
    agent.run(&mut session, "more").await.unwrap();
    drop(session);
    let again = agent.resume(&path).unwrap();
    assert_eq!(again.conversation().len(), 6);
    assert!(std::fs::read(&path).unwrap().starts_with(&cut));
}

#[tokio::test]
async fn a_turn_cut_before_its_tool_results_is_skipped() {
    let dir = project();
    let path = dir.path().join("session.jsonl");
    first_run(dir.path(), &path).await;
    let whole = std::fs::read_to_string(&path).unwrap();
    // A crash after the assistant turn with tool calls, before its results were written.
    let two: String = whole.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, &two).unwrap();

    let server = ApiMock::start(vec![]).await;
    let agent = agent(&server, dir.path());
    let session = agent.resume(&path).unwrap();
    assert_eq!(session.conversation().len(), 1);
    assert!(
        matches!(&session.conversation().messages()[0], Message::User(t) if t == "review src/lib.rs")
    );
    assert!(!session.has_loaded("code-review"));
    // The turn stays in the file, named by a `skipped` line.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!(
            "{two}{{\"skipped\":{{\"line\":2,\"reason\":\"an assistant turn whose tool results \
             were never written (a crash in its turn)\"}}}}\n"
        )
    );
    drop(session);
    let again = agent.resume(&path).unwrap();
    assert_eq!(again.conversation().len(), 1);
}

#[tokio::test]
async fn a_damaged_line_before_the_last_is_an_error() {
    let dir = project();
    let path = dir.path().join("session.jsonl");
    first_run(dir.path(), &path).await;
    let whole = std::fs::read_to_string(&path).unwrap();
    let mut damaged: Vec<String> = whole.lines().map(str::to_owned).collect();
    let half = damaged[1].len() / 2;
    damaged[1].truncate(half);
    std::fs::write(&path, damaged.join("\n") + "\n").unwrap();

    let server = ApiMock::start(vec![]).await;
    let agent = agent(&server, dir.path());
    let error = agent.resume(&path).unwrap_err();
    assert!(
        matches!(&error, AgentError::Transcript { line: Some(2), .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("session.jsonl:2"), "{error}");
    // A damaged line is data the file should not hold, as `std::io` says it.
    let source = std::error::Error::source(&error)
        .and_then(|source| source.downcast_ref::<std::io::Error>())
        .expect("an io::Error source");
    assert_eq!(source.kind(), std::io::ErrorKind::InvalidData);
    // Nothing is cut from a damaged file.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        damaged.join("\n") + "\n"
    );
}

#[tokio::test]
async fn a_transcript_that_cannot_be_written_keeps_the_file_system_error() {
    let dir = project();
    let path = dir.path().join("no-such-folder").join("session.jsonl");
    let server = ApiMock::start(vec![]).await;
    let agent = agent(&server, dir.path());
    let error = agent.session().with_transcript(&path).unwrap_err();
    let AgentError::Transcript {
        path: reported,
        line: None,
        source,
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(reported, &path);
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    let chained = std::error::Error::source(&error)
        .and_then(|source| source.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind);
    assert_eq!(chained, Some(std::io::ErrorKind::NotFound));
}

#[tokio::test]
async fn resuming_a_missing_file_starts_a_new_session_there() {
    let dir = project();
    let path = dir.path().join("new.jsonl");
    let server = ApiMock::start(vec![final_text("hello")]).await;
    let agent = agent(&server, dir.path());
    let mut session = agent.resume(&path).unwrap();
    assert!(session.conversation().is_empty());
    agent.run(&mut session, "hi").await.unwrap();
    let written = lines(&path);
    assert_eq!(written.len(), 2);
    assert_eq!(written[0]["message"], json!({"role": "user", "text": "hi"}));
}

#[tokio::test]
async fn a_person_invoked_skill_is_recorded_with_the_prompt() {
    let dir = project();
    let path = dir.path().join("session.jsonl");
    let server = ApiMock::start(vec![final_text("ok")]).await;
    let agent = agent(&server, dir.path());
    let mut session = agent.session().with_transcript(&path).unwrap();
    agent
        .invoke(&mut session, "code-review", "src/lib.rs")
        .await
        .unwrap();
    let written = lines(&path);
    assert_eq!(written[0]["skills_loaded"], json!(["code-review"]));
    assert_eq!(written[0]["skills_active"], json!(["code-review"]));

    let resumed = agent.resume(&path).unwrap();
    assert!(resumed.has_loaded("code-review"));
    assert_eq!(resumed.active_skills().len(), 1);
}
