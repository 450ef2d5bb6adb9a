//! The context budget: old tool results shortened before a request would pass the window, and
//! a request that cannot fit refused before it is sent.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use skills_runtime::agent::budget::{self, SHORTENED_PREFIX};
use skills_runtime::agent::{Agent, AgentError, AgentEvent, ContextShortened, Message, Request};
use skills_test_support::api_mock::{ApiMock, final_text, json_reply, tool_use};
use skills_test_support::*;

/// The agent tests' own small bundle (`tests/skills`).
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");

/// The bytes of each file the model reads.
const FILE_BYTES: usize = 4000;

/// A file of 50 lines of 80 bytes, each naming the file.
fn file_text(name: &str) -> String {
    (0..FILE_BYTES / 80)
        .map(|n| format!("{name} line {n:03}: {}\n", "x".repeat(80 - name.len() - 15)))
        .collect()
}

/// An agent at `server` with a 4,000-token window, of which the provider's `max_tokens` of
/// 500 is kept for the reply, offering only `read_file` and `load_skill`.
fn agent(server: &ApiMock, dir: &Path, window: u64) -> Agent {
    let (provider, _) = skills_test_support::anthropic_builder(&server.url());
    Agent::builder(Arc::new(provider.max_tokens(500).build().unwrap()))
        .skills(&SKILLS)
        .only_tools(["read_file", "load_skill"])
        .workdir(dir)
        .context_window(window)
        .build()
        .unwrap()
}

/// The `content` of the `tool_result` block of message `index` of a recorded request.
fn result_content(messages: &[Value], index: usize) -> &str {
    assert_eq!(messages[index]["content"][0]["type"], "tool_result");
    messages[index]["content"][0]["content"].as_str().unwrap()
}

#[tokio::test]
async fn the_oldest_tool_results_are_shortened_and_the_rest_is_sent_whole() {
    let dir = project();
    for name in ["a", "b", "c", "d"] {
        std::fs::write(dir.path().join(format!("{name}.txt")), file_text(name)).unwrap();
    }
    let read = |id: &str, name: &str| tool_use(id, "read_file", json!({"path": name}));
    let server = ApiMock::start(vec![
        tool_use("t1", "load_skill", json!({"name": "code-review"})),
        read("t2", "a.txt"),
        read("t3", "b.txt"),
        read("t4", "c.txt"),
        read("t5", "d.txt"),
        final_text("all read"),
    ])
    .await;
    let agent = agent(&server, dir.path(), 4000);
    let transcript = dir.path().join("session.jsonl");
    let mut session = agent.session().with_transcript(&transcript).unwrap();
    // Each cut is reported as an event before its request, after the previous turn finished.
    let mut events: Vec<(u32, ContextShortened)> = Vec::new();
    let mut finished = 0;
    let out = agent
        .run_with_events(&mut session, "review the four files", |event| match event {
            AgentEvent::TurnFinished { turn, .. } => finished = *turn,
            AgentEvent::ContextShortened { cut, .. } => events.push((finished, (*cut).clone())),
            _ => {}
        })
        .await
        .unwrap();
    assert_eq!(out.text, "all read");
    let reported: Vec<(u32, ContextShortened)> = out
        .context_shortened
        .iter()
        .map(|cut| (cut.turn - 1, cut.clone()))
        .collect();
    assert_eq!(events, reported);

    // The window is 4,000 tokens, 500 of them for the reply: 14,000 bytes of request. The third
    // file passes it (request 5), the fourth again (request 6); each time the oldest result
    // outside the last two turns goes, the skill (message 2) never.
    let requests = server.requests().await;
    assert_eq!(requests.len(), 6);
    let bodies: Vec<Value> = requests.iter().map(|r| r.json()).collect();
    // Requests 1-4 fit: sent whole. What read_file returned (with line numbers) is in the 4th
    // and 6th.
    let fourth = bodies[3]["messages"].as_array().unwrap();
    let sixth = bodies[5]["messages"].as_array().unwrap();
    let whole = |name: &str| match name {
        "a.txt" => result_content(fourth, 4).to_owned(),
        "b.txt" => result_content(fourth, 6).to_owned(),
        "c.txt" => result_content(sixth, 8).to_owned(),
        _ => result_content(sixth, 10).to_owned(),
    };
    for name in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        let first = format!("{} line 000", &name[..1]);
        assert!(whole(name).contains(&first), "{}", whole(name));
        assert!(whole(name).len() > FILE_BYTES);
    }
    let arguments = |name: &str| format!(r#"{{"path":"{name}"}}"#);
    let expected = |turn, message_index, call_id: &str, name: &str| ContextShortened {
        turn,
        message_index,
        call_id: call_id.to_owned(),
        tool: "read_file".to_owned(),
        arguments: arguments(name),
        bytes_before: whole(name).len(),
        lines_before: whole(name).lines().count(),
        bytes_after: budget::shortened_note("read_file", &arguments(name), &whole(name)).len(),
    };
    assert_eq!(
        out.context_shortened,
        [expected(5, 4, "t2", "a.txt"), expected(6, 6, "t3", "b.txt")]
    );
    let skill = result_content(bodies[1]["messages"].as_array().unwrap(), 2).to_owned();
    assert!(skill.starts_with("<skill name=\"code-review\""), "{skill}");
    for body in &bodies {
        // The system prompt is sent byte-identical every turn.
        assert_eq!(body["system"][0]["text"], agent.system_prompt());
        assert_eq!(body["max_tokens"], 500);
    }

    // Request 5: a.txt is a note saying what was cut and how to get it back.
    let fifth = bodies[4]["messages"].as_array().unwrap();
    let note = result_content(fifth, 4);
    assert!(note.starts_with(SHORTENED_PREFIX), "{note}");
    let cut = format!(
        "{} bytes, {} lines of this read_file result",
        whole("a.txt").len(),
        whole("a.txt").lines().count()
    );
    assert!(note.contains(&cut), "{note}");
    assert!(note.contains(r#"({"path":"a.txt"})"#), "{note}");
    assert!(
        note.contains("call read_file again with the same arguments"),
        "{note}"
    );
    assert_eq!(result_content(fifth, 2), skill);
    assert_eq!(result_content(fifth, 6), whole("b.txt"));
    assert_eq!(result_content(fifth, 8), whole("c.txt"));

    // Request 6: b.txt too; the last two turns (c.txt, d.txt), the skill and the user's prompt
    // are whole, and every tool_use still has its tool_result.
    assert_eq!(sixth.len(), 11);
    assert_eq!(sixth[0]["content"], "review the four files");
    assert_eq!(result_content(sixth, 2), skill);
    assert_eq!(result_content(sixth, 4), note);
    assert!(result_content(sixth, 6).starts_with(SHORTENED_PREFIX));
    assert!(result_content(sixth, 6).contains(r#"({"path":"b.txt"})"#));
    for pair in [
        (1, 2, "t1"),
        (3, 4, "t2"),
        (5, 6, "t3"),
        (7, 8, "t4"),
        (9, 10, "t5"),
    ] {
        let (call, result, id) = pair;
        assert_eq!(sixth[call]["content"][0]["id"], id);
        assert_eq!(sixth[result]["content"][0]["tool_use_id"], id);
    }
    // Each request the loop sent fits the window by the estimate.
    let tools = agent.tool_definitions();
    let kept = session.conversation().messages();
    let estimate = budget::estimate_tokens(budget::request_bytes(&Request::new(
        agent.system_prompt(),
        tools,
        &kept[..kept.len() - 1],
    )));
    assert!(estimate <= 3500, "{estimate}");

    // The session keeps the notes, and so does its transcript: a resumed session holds the
    // same conversation.
    let resumed = agent.resume(&transcript).unwrap();
    assert_eq!(resumed.conversation(), session.conversation());
    let lines = std::fs::read_to_string(&transcript).unwrap();
    let shortened: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l.get("shortened").is_some())
        .collect();
    assert_eq!(shortened.len(), 2);
    assert_eq!(shortened[0]["shortened"][0]["message"], 4);
    assert_eq!(shortened[0]["shortened"][0]["call_id"], "t2");
    assert_eq!(shortened[0]["shortened"][0]["content"], note);
}

#[tokio::test]
async fn a_request_that_cannot_fit_fails_before_it_is_sent() {
    let dir = project();
    let server = ApiMock::start(Vec::new()).await;
    let agent = agent(&server, dir.path(), 2000);
    let mut session = agent.session();
    let prompt = "p".repeat(8000);
    let error = agent.run(&mut session, &prompt).await.unwrap_err();
    let AgentError::ContextOverflow(overflow) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(overflow.context_window, 2000);
    assert_eq!(overflow.reply_reserve, 500);
    assert!(overflow.estimated_tokens > 1500, "{overflow:?}");
    // The prompt is the current turn: never cut, and what makes the request too large.
    assert!(overflow.recent_turns_tokens >= 2000, "{overflow:?}");
    assert!(overflow.system_and_tools_tokens > 0);
    assert_eq!(overflow.active_skills_tokens, 0);
    let text = error.to_string();
    assert!(text.contains("does not fit the context window"), "{text}");
    assert!(text.contains("window of 2000 tokens minus 500"), "{text}");
    assert_eq!(overflow.recent_turns, budget::KEEP_RECENT_TURNS);
    assert!(
        text.contains(&format!("the last {} turns", budget::KEEP_RECENT_TURNS)),
        "{text}"
    );
    assert_eq!(error.context_overflow(), Some(overflow));
    let source = std::error::Error::source(&error).and_then(|s| s.downcast_ref());
    assert_eq!(source, Some(overflow));
    assert_eq!(server.request_count().await, 0);
    // The prompt stays in the session, as after any failed run.
    assert_eq!(session.conversation().messages(), [Message::User(prompt)]);
}

#[tokio::test]
async fn nothing_is_cut_when_cutting_cannot_make_it_fit() {
    let dir = project();
    std::fs::write(dir.path().join("a.txt"), file_text("a")).unwrap();
    // 6 KB: one fits beside a.txt, two do not, whether a.txt is cut or not.
    let big = format!("{}\n", "p".repeat(79)).repeat(75);
    std::fs::write(dir.path().join("b.txt"), big).unwrap();
    let server = ApiMock::start(vec![
        tool_use("t1", "read_file", json!({"path": "a.txt"})),
        tool_use("t2", "read_file", json!({"path": "b.txt"})),
        tool_use("t3", "read_file", json!({"path": "b.txt"})),
    ])
    .await;
    let agent = agent(&server, dir.path(), 4000);
    let mut session = agent.session();
    let error = agent.run(&mut session, "read them").await.unwrap_err();
    assert!(error.context_overflow().is_some(), "{error:?}");
    // Three requests went out; the fourth (two results of 6 KB in the last two turns) did not,
    // and the a.txt result that could have been cut is still whole.
    assert_eq!(server.request_count().await, 3);
    let Message::ToolResults(results) = &session.conversation().messages()[2] else {
        panic!("not tool results");
    };
    assert!(results[0].content.contains("a line 049"));
    assert!(!results[0].content.starts_with(SHORTENED_PREFIX));
}

#[tokio::test]
async fn openai_requests_keep_every_call_paired_with_its_shortened_result() {
    let dir = project();
    for name in ["a", "b", "c"] {
        let text: String = (0..40)
            .map(|n| format!("{name} line {n:03}: {}\n", "y".repeat(60)))
            .collect();
        std::fs::write(dir.path().join(format!("{name}.txt")), text).unwrap();
    }
    let read = |id: &str, name: &str| {
        let message = json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{"id": id, "type": "function", "function": {
                "name": "read_file", "arguments": format!("{{\"path\":\"{name}\"}}")}}]
        });
        json_reply(200, &openai_completion(message, "tool_calls", None))
    };
    let done = json!({"role": "assistant", "content": "read"});
    let server = ApiMock::start(vec![
        read("call_a", "a.txt"),
        read("call_b", "b.txt"),
        read("call_c", "c.txt"),
        json_reply(200, &openai_completion(done, "stop", None)),
    ])
    .await;
    let (provider, _) = openai(&server.url());
    // OpenAI sends no max_tokens here, so the reserve is set on the builder.
    let agent = Agent::builder(Arc::new(provider))
        .only_tools(["read_file"])
        .workdir(dir.path())
        .context_window(3000)
        .reply_reserve(500)
        .build()
        .unwrap();
    let out = agent.run(&mut agent.session(), "read three").await.unwrap();
    assert_eq!(out.text, "read");
    let cut: Vec<(u32, usize, &str)> = out
        .context_shortened
        .iter()
        .map(|c| (c.turn, c.message_index, c.call_id.as_str()))
        .collect();
    assert_eq!(cut, [(4, 2, "call_a")]);

    let requests = server.requests().await;
    let last = requests[3].json();
    let messages = last["messages"].as_array().unwrap();
    // system, user, then three calls each followed by its result.
    assert_eq!(messages.len(), 8);
    assert_eq!(messages[0]["content"], agent.system_prompt());
    for (call, id) in [(2, "call_a"), (4, "call_b"), (6, "call_c")] {
        assert_eq!(messages[call]["tool_calls"][0]["id"], id);
        assert_eq!(messages[call + 1]["role"], "tool");
        assert_eq!(messages[call + 1]["tool_call_id"], id);
    }
    let note = messages[3]["content"].as_str().unwrap();
    assert!(note.starts_with(SHORTENED_PREFIX), "{note}");
    assert!(note.contains(r#"({"path":"a.txt"})"#), "{note}");
    assert!(
        messages[5]["content"]
            .as_str()
            .unwrap()
            .contains("b line 039")
    );
    assert!(
        messages[7]["content"]
            .as_str()
            .unwrap()
            .contains("c line 039")
    );
}
