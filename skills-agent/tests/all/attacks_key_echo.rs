//! The API key against the model's own words, in both wire formats, streamed and not:
//!
//! - a placeholder key (`i`, `x`, `ollama`, `sk-no-key-required`: what local servers are given)
//!   rewrites nothing: tool calls whose names and arguments contain it parse and run, and the
//!   text the person sees is the text the model wrote;
//! - a real key that the model echoes (an injected prompt can make it) is `[redacted]` in every
//!   event a program shows, the final answer, the transcript, the logs and the errors, while the
//!   tool call that names it still runs as the model wrote it and the next turn still works.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use skills_runtime::agent::provider::anthropic::Anthropic;
use skills_runtime::agent::provider::openai::OpenAi;
use skills_runtime::agent::{Agent, AgentEvent, PermissionPolicy, Provider};
use skills_test_support::api_mock::{ApiMock, json_reply};
use skills_test_support::logs;
use skills_test_support::{anthropic_message, fast_options, openai_completion, openai_usage};
use wiremock::ResponseTemplate;

/// A realistic key: 40 characters, in the shape of a project key.
const REAL_KEY: &str = "sk-proj-4fQ9xT2mZ8pL1vR7nB3kW6yH0cJ5dA8e";

/// What local servers are commonly given.
const PLACEHOLDERS: [&str; 4] = ["i", "x", "ollama", "sk-no-key-required"];

#[derive(Clone, Copy, Debug)]
enum Format {
    Anthropic,
    OpenAi,
}

/// One scripted model turn: its text, and the tool call it makes (name, input), if any.
struct Turn {
    text: String,
    call: Option<(&'static str, Value)>,
}

/// The reply of `turn` in `format`, as one JSON body or as the event stream of that format
/// with the text cut in pieces of 7 bytes (a key is split across several deltas).
fn reply(format: Format, stream: bool, turn: &Turn, index: usize) -> ResponseTemplate {
    let id = format!("call_{index}");
    match (format, stream) {
        (Format::Anthropic, false) => {
            let mut content = vec![json!({"type": "text", "text": turn.text})];
            if let Some((name, input)) = &turn.call {
                content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            }
            let stop = if turn.call.is_some() {
                "tool_use"
            } else {
                "end_turn"
            };
            json_reply(200, &anthropic_message(Value::Array(content), stop, 10, 5))
        }
        (Format::OpenAi, false) => {
            let mut message = json!({"role": "assistant", "content": turn.text, "refusal": null});
            if let Some((name, input)) = &turn.call {
                message["tool_calls"] = json!([{"id": id, "type": "function",
                    "function": {"name": name, "arguments": input.to_string()}}]);
            }
            let finish = if turn.call.is_some() {
                "tool_calls"
            } else {
                "stop"
            };
            json_reply(
                200,
                &openai_completion(message, finish, Some(openai_usage(10, 5))),
            )
        }
        (Format::Anthropic, true) => sse(anthropic_events(turn, &id)),
        (Format::OpenAi, true) => sse(openai_events(turn, &id)),
    }
}

fn pieces(text: &str) -> Vec<String> {
    text.as_bytes()
        .chunks(7)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect()
}

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.into_bytes(), "text/event-stream")
}

fn anthropic_events(turn: &Turn, id: &str) -> String {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "msg_01", "type": "message",
            "role": "assistant", "model": "claude-test-model", "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "text", "text": ""}}),
    ];
    for piece in pieces(&turn.text) {
        events.push(json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": piece}}));
    }
    events.push(json!({"type": "content_block_stop", "index": 0}));
    if let Some((name, input)) = &turn.call {
        events.push(json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
        for piece in pieces(&input.to_string()) {
            events.push(json!({"type": "content_block_delta", "index": 1,
                               "delta": {"type": "input_json_delta", "partial_json": piece}}));
        }
        events.push(json!({"type": "content_block_stop", "index": 1}));
    }
    let stop = if turn.call.is_some() {
        "tool_use"
    } else {
        "end_turn"
    };
    events.push(json!({"type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}));
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect()
}

fn openai_events(turn: &Turn, id: &str) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1741569952,
               "model": "gpt-test-model", "choices": [{"index": 0, "delta": delta,
               "logprobs": null, "finish_reason": finish}], "usage": null})
    };
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in pieces(&turn.text) {
        chunks.push(chunk(json!({"content": piece}), Value::Null));
    }
    if let Some((name, input)) = &turn.call {
        chunks.push(chunk(
            json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                                   "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ));
        for piece in pieces(&input.to_string()) {
            chunks.push(chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    let finish = if turn.call.is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    chunks.push(chunk(json!({}), json!(finish)));
    chunks.push(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
        "created": 1741569952, "model": "gpt-test-model", "choices": [],
        "usage": openai_usage(10, 5)}),
    );
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

fn provider(format: Format, key: &str, base: &str) -> Arc<dyn Provider> {
    let (options, _) = fast_options();
    match format {
        Format::Anthropic => Arc::new(
            Anthropic::builder(key)
                .model("claude-test-model")
                .base_url(base)
                .http(options)
                .build()
                .unwrap(),
        ),
        Format::OpenAi => Arc::new(
            OpenAi::builder()
                .api_key(key)
                .model("gpt-test-model")
                .base_url(format!("{base}/v1"))
                .http(options)
                .build()
                .unwrap(),
        ),
    }
}

/// What a program printing the events would show: the text deltas, and one line per tool call
/// and per result.
fn screen() -> (
    Arc<Mutex<String>>,
    impl FnMut(&AgentEvent<'_>) + Send + 'static,
) {
    let shown = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&shown);
    let on_event = move |event: &AgentEvent<'_>| {
        let mut shown = sink.lock().unwrap();
        match event {
            AgentEvent::TextDelta(text) => shown.push_str(text),
            AgentEvent::ToolCallStarted { call, .. } => {
                shown.push_str(&format!(
                    "\n[call {} {} {}]\n",
                    call.id, call.name, call.input
                ));
            }
            AgentEvent::ToolResult { result, .. } => {
                shown.push_str(&format!(
                    "\n[result error={} {}]\n",
                    result.is_error, result.content
                ));
            }
            AgentEvent::TurnFinished { reply, .. } => {
                shown.push_str(&format!("\n[turn {} {:?}]\n", reply.text, reply.tool_calls));
            }
            _ => {}
        }
    };
    (shown, on_event)
}

/// Whether `text` shows `key` or any 8-byte piece of it.
fn leaks(text: &str, key: &str) -> bool {
    key.as_bytes()
        .windows(8)
        .any(|w| text.contains(std::str::from_utf8(w).unwrap()))
}

fn agent(provider: Arc<dyn Provider>, workdir: &std::path::Path, stream: bool) -> Agent {
    Agent::builder(provider)
        .workdir(workdir)
        .permissions(PermissionPolicy::new())
        .stream(stream)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_placeholder_key_rewrites_nothing_the_model_says() {
    for key in PLACEHOLDERS {
        for format in [Format::Anthropic, Format::OpenAi] {
            for stream in [false, true] {
                let what = format!("{key:?} {format:?} stream={stream}");
                let (logs, _guard) = logs::capture();
                let dir = tempfile::tempdir().unwrap();
                // A file whose name holds the key's text, read through a tool whose name
                // holds it too (`read_file` has an `i`).
                let file = format!("notes-{key}-ollama.txt");
                std::fs::write(dir.path().join(&file), format!("{key} is fine")).unwrap();
                let answer = format!("Read it: {key} works with ollama, i and x.");
                let script = [
                    Turn {
                        text: format!("Reading {file}."),
                        call: Some(("read_file", json!({"path": file}))),
                    },
                    Turn {
                        text: answer.clone(),
                        call: None,
                    },
                ];
                let server = ApiMock::start(
                    script
                        .iter()
                        .enumerate()
                        .map(|(i, turn)| reply(format, stream, turn, i))
                        .collect(),
                )
                .await;
                let agent = agent(provider(format, key, &server.url()), dir.path(), stream);
                assert!(!agent.redactor().is_active(), "{what}");
                let (shown, on_event) = screen();
                let out = agent
                    .run_with_events(&mut agent.session(), "go", on_event)
                    .await
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(out.text, answer, "{what}");
                assert_eq!(out.tool_calls, 1, "{what}");
                let shown = shown.lock().unwrap().clone();
                assert!(!shown.contains("[redacted]"), "{what}: {shown}");
                assert!(
                    shown.contains("[call call_0 read_file {\"path\":\"notes-"),
                    "{what}: {shown}"
                );
                assert!(
                    shown.contains(&format!("[result error=false      1\t{key} is fine")),
                    "{what}: {shown}"
                );
                assert!(shown.contains(&answer), "{what}: {shown}");
                // The tool result went back to the model under the call's own id and name.
                let second: Value =
                    serde_json::from_slice(&server.requests().await[1].body).unwrap();
                let sent = second.to_string();
                assert!(sent.contains(&format!("{key} is fine")), "{what}: {sent}");
                assert!(
                    sent.contains("read_file") && !sent.contains("[redacted]"),
                    "{what}"
                );
                let events = logs.events();
                assert!(
                    events
                        .iter()
                        .any(|e| e.contains("tool call") && e.contains("read_file")),
                    "{what}: {events:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_real_key_echoed_by_the_model_is_redacted_everywhere_shown_or_kept() {
    for format in [Format::Anthropic, Format::OpenAi] {
        for stream in [false, true] {
            let what = format!("{format:?} stream={stream}");
            let (logs, _guard) = logs::capture();
            let dir = tempfile::tempdir().unwrap();
            // The model names a file after the key: the call must run with the real name.
            let file = format!("{REAL_KEY}.txt");
            std::fs::write(dir.path().join(&file), "the file's text").unwrap();
            let script = [
                Turn {
                    text: format!("Your key is {REAL_KEY}; reading {file}."),
                    call: Some(("read_file", json!({"path": file}))),
                },
                Turn {
                    text: format!("Missing: {REAL_KEY}/nothing."),
                    call: Some(("read_file", json!({"path": format!("{REAL_KEY}/nothing")}))),
                },
                Turn {
                    text: format!("Done. The key was {REAL_KEY}!"),
                    call: None,
                },
                Turn {
                    text: "Still here.".into(),
                    call: None,
                },
            ];
            let mut replies: Vec<_> = script
                .iter()
                .enumerate()
                .map(|(i, turn)| reply(format, stream, turn, i))
                .collect();
            // A last request fails with an error body that quotes the key.
            replies.push(json_reply(
                400,
                &json!({"type": "error", "error": {"type": "invalid_request_error",
                        "message": format!("bad input near {REAL_KEY}")}}),
            ));
            let server = ApiMock::start(replies).await;
            let agent = agent(
                provider(format, REAL_KEY, &server.url()),
                dir.path(),
                stream,
            );
            assert!(agent.redactor().is_active(), "{what}");
            let transcript = dir.path().join("session.jsonl");
            let mut session = agent.session().with_transcript(&transcript).unwrap();

            let (shown, on_event) = screen();
            let out = agent
                .run_with_events(&mut session, "go", on_event)
                .await
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.text, "Done. The key was [redacted]!", "{what}");
            let shown = shown.lock().unwrap().clone();
            assert!(!leaks(&shown, REAL_KEY), "{what}: {shown}");
            assert!(
                shown.contains("Your key is [redacted]; reading [redacted].txt."),
                "{what}: {shown}"
            );
            assert!(
                shown.contains("[call call_0 read_file {\"path\":\"[redacted].txt\"}]"),
                "{what}: {shown}"
            );
            // The call ran with the real path, the error of the second names it masked.
            assert!(
                shown.contains("[result error=false      1\tthe file's text"),
                "{what}: {shown}"
            );
            assert!(shown.contains("[result error=true "), "{what}: {shown}");

            // The conversation keeps what the model said, so the calls are sent back intact.
            let second: Value = serde_json::from_slice(&server.requests().await[1].body).unwrap();
            assert!(second.to_string().contains(&file), "{what}");

            // The next turn works.
            let next = agent.run(&mut session, "and now?").await.unwrap();
            assert_eq!(next.text, "Still here.", "{what}");

            // An error that quotes the key.
            let error = agent.run(&mut session, "again").await.unwrap_err();
            let error = format!("{error}\n{error:?}");
            assert!(
                error.contains("[redacted]") && !leaks(&error, REAL_KEY),
                "{what}: {error}"
            );

            let kept = std::fs::read_to_string(&transcript).unwrap();
            assert!(!leaks(&kept, REAL_KEY), "{what}: {kept}");
            assert!(
                kept.contains("Done. The key was [redacted]!"),
                "{what}: {kept}"
            );
            for event in logs.events() {
                assert!(!leaks(&event, REAL_KEY), "{what}: {event}");
            }
            // The transcript, masked, still resumes.
            let resumed = agent.resume(&transcript).unwrap();
            assert!(resumed.conversation().messages().len() >= 8, "{what}");
        }
    }
}
