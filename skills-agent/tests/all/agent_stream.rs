//! Streamed replies of both providers against mock servers speaking the real event-stream wire
//! formats on 127.0.0.1: text deltas, tool inputs in pieces, usage events, the end markers, and
//! what a cut, malformed, idle or oversized stream does to the run and the conversation.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use skills_runtime::agent::{
    Agent, AgentError, AgentEvent, ApiErrorKind, HttpOptions, Message, PermissionPolicy, Provider,
    Request,
};
use skills_test_support::api_mock::{ApiMock, json_reply};
use skills_test_support::mock::{MockServer, Reply};
use skills_test_support::{ANTHROPIC_KEY, OPENAI_KEY};
use wiremock::ResponseTemplate;

/// What the tests keep of an event.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Text(String),
    Started(String),
    Result(String, bool),
    Finished(u32),
}

fn recorder() -> (Arc<Mutex<Vec<Seen>>>, impl FnMut(&AgentEvent<'_>) + Send) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let on_event = move |event: &AgentEvent<'_>| {
        let seen = match event {
            AgentEvent::TextDelta(text) => Seen::Text((*text).to_owned()),
            AgentEvent::ToolCallStarted { call, .. } => Seen::Started(call.id.clone()),
            AgentEvent::ToolResult { call, result, .. } => {
                Seen::Result(call.id.clone(), result.is_error)
            }
            AgentEvent::TurnFinished { turn, .. } => Seen::Finished(*turn),
            _ => return,
        };
        sink.lock().unwrap().push(seen);
    };
    (seen, on_event)
}

fn texts(seen: &[Seen]) -> Vec<String> {
    seen.iter()
        .filter_map(|s| match s {
            Seen::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// An event stream: `event: NAME` and `data: JSON` per event, as Anthropic sends.
fn anthropic_sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect()
}

/// `data: JSON` per chunk and the `[DONE]` marker, as OpenAI sends.
fn openai_sse(chunks: &[Value], done: bool) -> String {
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    body
}

fn sse_reply(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.into_bytes(), "text/event-stream")
}

fn message_start(input_tokens: u64) -> Value {
    json!({"type": "message_start", "message": {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test-model",
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 120, "output_tokens": 1}}})
}

fn message_end(stop_reason: &str, output_tokens: u64) -> [Value; 2] {
    [
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": output_tokens}}),
        json!({"type": "message_stop"}),
    ]
}

/// A whole Anthropic text reply streamed in `pieces`.
fn anthropic_text_events(pieces: &[&str]) -> Vec<Value> {
    let mut events = vec![
        message_start(25),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "ping"}),
    ];
    for piece in pieces {
        events.push(json!({"type": "content_block_delta", "index": 0,
                            "delta": {"type": "text_delta", "text": piece}}));
    }
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events.extend(message_end("end_turn", 15));
    events
}

fn openai_chunk(delta: Value, finish_reason: Value) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1741569952,
           "model": "gpt-test-model", "system_fingerprint": "fp_test",
           "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
           "usage": null})
}

fn openai_usage_chunk(prompt: u64, completion: u64) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1741569952,
           "model": "gpt-test-model", "choices": [],
           "usage": skills_test_support::openai_usage(prompt, completion)})
}

fn openai_text_chunks(pieces: &[&str]) -> Vec<Value> {
    let mut chunks = vec![openai_chunk(
        json!({"role": "assistant", "content": "", "refusal": null}),
        Value::Null,
    )];
    for piece in pieces {
        chunks.push(openai_chunk(json!({"content": piece}), Value::Null));
    }
    chunks.push(openai_chunk(json!({}), json!("stop")));
    chunks.push(openai_usage_chunk(40, 9));
    chunks
}

fn streaming_agent(provider: Arc<dyn Provider>, workdir: &std::path::Path) -> Agent {
    Agent::builder(provider)
        .workdir(workdir)
        .permissions(PermissionPolicy::new())
        .stream(true)
        .build()
        .unwrap()
}

fn paced(body: &[u8], pieces: usize, interval: Duration, cut: bool) -> Reply {
    let size = body.len().div_ceil(pieces).max(1);
    Reply::Paced {
        status: 200,
        content_type: "text/event-stream".into(),
        chunks: body.chunks(size).map(<[u8]>::to_vec).collect(),
        interval,
        cut,
    }
}

#[tokio::test]
async fn anthropic_text_deltas_arrive_in_order_and_make_the_turn() {
    let pieces = ["Hel", "lo, ", "wor", "ld!"];
    let server = ApiMock::start(vec![sse_reply(anthropic_sse(&anthropic_text_events(
        &pieces,
    )))])
    .await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::anthropic(&server.url());
    let provider = Arc::new(provider);
    let agent = streaming_agent(provider.clone(), dir.path());
    let mut session = agent.session();
    let (seen, on_event) = recorder();
    let out = agent
        .run_with_events(&mut session, "say hello", on_event)
        .await
        .unwrap();

    assert_eq!(out.text, "Hello, world!");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(texts(&seen), pieces);
    assert_eq!(seen.last(), Some(&Seen::Finished(1)));
    // Usage: the input counts of message_start, the output count of message_delta.
    assert_eq!(out.usage.input_tokens, 25);
    assert_eq!(out.usage.cache_read_tokens, 120);
    assert_eq!(out.usage.output_tokens, 15);
    let Some(Message::Assistant(turn)) = session.conversation().messages().last() else {
        panic!("no assistant turn");
    };
    assert_eq!(turn.stop_reason.as_deref(), Some("end_turn"));
    // The rebuilt content is what the non-streaming API returns, to be echoed as is.
    assert_eq!(
        turn.raw.as_ref().unwrap().1,
        json!([{"type": "text", "text": "Hello, world!"}])
    );

    // The request is the non-streaming one plus `"stream": true`.
    let requests = server.requests().await;
    assert_eq!(requests.len(), 1);
    let mut sent = requests[0].json();
    assert_eq!(sent["stream"], json!(true));
    sent.as_object_mut().unwrap().remove("stream");
    let messages = [Message::User("say hello".into())];
    let plain = provider
        .request_body(Request::new(
            agent.system_prompt(),
            agent.tool_definitions(),
            &messages,
        ))
        .unwrap();
    assert_eq!(sent, serde_json::from_slice::<Value>(&plain).unwrap());
    assert!(!String::from_utf8_lossy(&plain).contains("\"stream\""));
}

#[tokio::test]
async fn anthropic_tool_input_in_pieces_runs_the_tool_and_events_come_in_order() {
    let mut first = vec![
        message_start(30),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me look."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block":
               {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {}}}),
    ];
    for piece in ["", "{\"pa", "th\": \"RE", "ADME", ".md\"}"] {
        first.push(json!({"type": "content_block_delta", "index": 1,
                          "delta": {"type": "input_json_delta", "partial_json": piece}}));
    }
    first.push(json!({"type": "content_block_stop", "index": 1}));
    first.extend(message_end("tool_use", 40));
    let server = ApiMock::start(vec![
        sse_reply(anthropic_sse(&first)),
        sse_reply(anthropic_sse(&anthropic_text_events(&[
            "It is ", "a title.",
        ]))),
    ])
    .await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::anthropic(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let mut session = agent.session();
    let (seen, on_event) = recorder();
    let out = agent
        .run_with_events(&mut session, "what is in README.md?", on_event)
        .await
        .unwrap();

    assert_eq!(out.text, "It is a title.");
    assert_eq!((out.turns, out.tool_calls), (2, 1));
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            Seen::Text("Let me look.".into()),
            Seen::Started("toolu_01".into()),
            Seen::Result("toolu_01".into(), false),
            Seen::Finished(1),
            Seen::Text("It is ".into()),
            Seen::Text("a title.".into()),
            Seen::Finished(2),
        ]
    );
    let messages = session.conversation().messages();
    let Message::ToolResults(results) = &messages[2] else {
        panic!("{messages:?}");
    };
    assert!(results[0].content.contains("# tiny"), "{results:?}");
    // The second request echoes the rebuilt content: the input assembled from its pieces.
    let second = server.requests().await[1].json();
    assert_eq!(
        second["messages"][1]["content"],
        json!([
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "README.md"}}
        ])
    );
    assert_eq!(out.usage.output_tokens, 40 + 15);
}

#[tokio::test]
async fn openai_tool_calls_interleaved_by_index_with_arguments_across_chunks() {
    let mut chunks = vec![
        openai_chunk(json!({"role": "assistant", "content": null}), Value::Null),
        openai_chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
            "function": {"name": "read_file", "arguments": ""}}]}),
            Value::Null,
        ),
        openai_chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
            "function": {"name": "glob", "arguments": ""}}]}),
            Value::Null,
        ),
    ];
    for (index, piece) in [
        (0, "{\"path\""),
        (1, "{\"pat"),
        (0, ": \"README.md\"}"),
        (1, "tern\": \"src/*.rs\"}"),
    ] {
        chunks.push(openai_chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
            Value::Null,
        ));
    }
    chunks.push(openai_chunk(json!({}), json!("tool_calls")));
    chunks.push(openai_usage_chunk(100, 30));
    let server = ApiMock::start(vec![
        sse_reply(openai_sse(&chunks, true)),
        sse_reply(openai_sse(&openai_text_chunks(&["Two ", "files."]), true)),
    ])
    .await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::openai(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let mut session = agent.session();
    let (seen, on_event) = recorder();
    let out = agent
        .run_with_events(&mut session, "look around", on_event)
        .await
        .unwrap();

    assert_eq!(out.text, "Two files.");
    assert_eq!(out.tool_calls, 2);
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (140, 39));
    let messages = session.conversation().messages();
    let Message::Assistant(turn) = &messages[1] else {
        panic!("{messages:?}");
    };
    let calls: Vec<(&str, &str, &Value)> = turn
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), &c.input))
        .collect();
    assert_eq!(
        calls,
        vec![
            ("call_a", "read_file", &json!({"path": "README.md"})),
            ("call_b", "glob", &json!({"pattern": "src/*.rs"})),
        ]
    );
    let Message::ToolResults(results) = &messages[2] else {
        panic!("{messages:?}");
    };
    assert!(results[0].content.contains("# tiny") && results[1].content.contains("src/lib.rs"));
    let seen = seen.lock().unwrap().clone();
    let position = |s: Seen| seen.iter().position(|x| *x == s).unwrap();
    assert!(
        position(Seen::Started("call_a".into())) < position(Seen::Result("call_a".into(), false))
    );
    assert!(
        position(Seen::Started("call_b".into())) < position(Seen::Result("call_b".into(), false))
    );
    assert!(position(Seen::Result("call_b".into(), false)) < position(Seen::Finished(1)));
    assert_eq!(seen.last(), Some(&Seen::Finished(2)));

    let requests = server.requests().await;
    let first = requests[0].json();
    assert_eq!(first["stream"], json!(true));
    assert_eq!(first["stream_options"], json!({"include_usage": true}));
    // The calls go back with their arguments as JSON strings.
    let echoed = &requests[1].json()["messages"][2]["tool_calls"];
    assert_eq!(
        echoed[0]["function"]["arguments"],
        json!("{\"path\":\"README.md\"}")
    );
    assert_eq!(echoed[1]["id"], json!("call_b"));
}

#[tokio::test]
async fn a_local_server_streaming_arguments_a_character_at_a_time_without_ids() {
    // llama.cpp-style: no id, no usage, the arguments one character per chunk, `index` only on
    // some pieces.
    let arguments = "{\"path\": \"src/lib.rs\"}";
    let mut chunks = vec![openai_chunk(
        json!({"role": "assistant", "tool_calls": [{"index": 0, "function": {"name": "read_file"}}]}),
        Value::Null,
    )];
    for (i, c) in arguments.chars().enumerate() {
        let mut piece = json!({"function": {"arguments": c.to_string()}});
        if i % 2 == 0 {
            piece["index"] = json!(0);
        }
        chunks.push(openai_chunk(json!({"tool_calls": [piece]}), Value::Null));
    }
    chunks.push(openai_chunk(json!({}), json!("stop")));
    let server = MockServer::start(vec![
        paced(
            openai_sse(&chunks, true).as_bytes(),
            7,
            Duration::ZERO,
            false,
        ),
        paced(
            openai_sse(&openai_text_chunks(&["An ", "adder."]), true).as_bytes(),
            3,
            Duration::ZERO,
            false,
        ),
    ])
    .await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::openai(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let mut session = agent.session();
    let out = agent.run(&mut session, "read src/lib.rs").await.unwrap();
    assert_eq!(out.text, "An adder.");
    let Message::Assistant(turn) = &session.conversation().messages()[1] else {
        panic!();
    };
    assert_eq!(turn.tool_calls[0].input, json!({"path": "src/lib.rs"}));
    assert_eq!(turn.tool_calls[0].id, "call_0_0");
    let Message::ToolResults(results) = &session.conversation().messages()[2] else {
        panic!();
    };
    assert!(!results[0].is_error && results[0].content.contains("pub fn add"));
}

#[tokio::test]
async fn a_stream_cut_mid_way_fails_keeps_the_conversation_and_the_next_run_works() {
    let full = anthropic_sse(&anthropic_text_events(&["Hello", " again"]));
    let half = full.as_bytes()[..full.find("content_block_stop").unwrap()].to_vec();
    let server = MockServer::start(vec![
        // Chunked and closed before the terminating chunk: the connection dies mid-body.
        paced(&half, 3, Duration::ZERO, true),
        paced(full.as_bytes(), 4, Duration::ZERO, false),
    ])
    .await;
    let dir = skills_test_support::project();
    let (provider, delays) = skills_test_support::anthropic(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let transcript = dir.path().join("session.jsonl");
    let mut session = agent.session().with_transcript(&transcript).unwrap();
    let (seen, on_event) = recorder();
    let error = agent
        .run_with_events(&mut session, "greet", on_event)
        .await
        .unwrap_err();
    let AgentError::Api(api) = &error else {
        panic!("{error}");
    };
    assert_eq!(api.kind(), ApiErrorKind::Transport, "{error}");
    assert!(api.message().contains("before its last event"), "{error}");
    assert!(api.message().contains("not kept"), "{error}");
    // No retry after the first byte; the text shown belongs to no kept turn.
    assert_eq!((api.retries(), server.request_count()), (0, 1));
    assert!(delays.lock().unwrap().is_empty());
    let seen = seen.lock().unwrap().clone();
    assert!(seen.contains(&Seen::Text("Hello".into())), "{seen:?}");
    assert!(!seen.iter().any(|s| matches!(s, Seen::Finished(_))));
    assert_eq!(
        session.conversation().messages(),
        &[Message::User("greet".into())]
    );
    assert_eq!(
        std::fs::read_to_string(&transcript)
            .unwrap()
            .lines()
            .count(),
        1
    );

    let out = agent.run(&mut session, "greet, please").await.unwrap();
    assert_eq!(out.text, "Hello again");
    assert_eq!(session.conversation().len(), 3);
    let resumed = agent.resume(&transcript).unwrap();
    assert_eq!(resumed.conversation(), session.conversation());
}

#[tokio::test]
async fn an_openai_stream_ending_without_done_is_an_error() {
    let body = openai_sse(&openai_text_chunks(&["almost"]), false);
    // Delimited by the connection's end, which comes cleanly, but before `[DONE]`.
    let mut raw =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n".to_vec();
    raw.extend_from_slice(body.as_bytes());
    let server = MockServer::start(vec![Reply::Raw(raw)]).await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::openai(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let mut session = agent.session();
    let error = agent.run(&mut session, "hi").await.unwrap_err();
    let api = error.api().unwrap();
    assert!(api.is_transport(), "{error}");
    assert!(api.message().contains("data: [DONE]"), "{error}");
    assert_eq!(server.request_count(), 1);
    assert_eq!(session.conversation().len(), 1);
}

#[tokio::test]
async fn an_event_with_bad_json_is_a_malformed_response_without_the_key() {
    let mut events = anthropic_sse(&anthropic_text_events(&["fine"]));
    let bad = format!(
        "event: content_block_delta\ndata: {{\"type\": \"content_block_delta\", \"key\": \"{ANTHROPIC_KEY}\", oops\n\n"
    );
    let at = events.find("event: content_block_stop").unwrap();
    events.insert_str(at, &bad);
    let server = ApiMock::start(vec![sse_reply(events)]).await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::anthropic(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let mut session = agent.session();
    let error = agent.run(&mut session, "hi").await.unwrap_err();
    let api = error.api().unwrap();
    assert!(api.is_malformed_response(), "{error}");
    assert!(api.message().contains("not valid JSON"), "{error}");
    assert!(!error.to_string().contains("SECRET"), "{error}");
    assert_eq!(session.conversation().len(), 1);

    // A known event of the wrong shape is an error too, not a panic.
    let wrong = anthropic_sse(&[
        message_start(1),
        json!({"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "x"}}),
    ]);
    let server = ApiMock::start(vec![sse_reply(wrong)]).await;
    let (provider, _) = skills_test_support::anthropic(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let error = agent.run(&mut agent.session(), "hi").await.unwrap_err();
    assert!(error.api().unwrap().is_malformed_response(), "{error}");
    assert!(error.to_string().contains("block 3"), "{error}");
}

#[tokio::test]
async fn an_openai_stream_without_a_choice_is_malformed_not_an_empty_answer() {
    // Only a usage chunk and `[DONE]`: read whole, a response with no choices is an error, and
    // streamed it must be the same, not a successful empty turn.
    for chunks in [vec![], vec![openai_usage_chunk(10, 0)]] {
        let server = ApiMock::start(vec![sse_reply(openai_sse(&chunks, true))]).await;
        let dir = skills_test_support::project();
        let (provider, _) = skills_test_support::openai(&server.url());
        let agent = streaming_agent(Arc::new(provider), dir.path());
        let mut session = agent.session();
        let error = agent.run(&mut session, "hi").await.unwrap_err();
        assert!(error.api().unwrap().is_malformed_response(), "{error}");
        assert!(error.to_string().contains("without a choice"), "{error}");
        assert_eq!(session.conversation().len(), 1);
    }
}

#[tokio::test]
async fn an_error_event_mid_stream_is_the_servers_error_with_the_key_masked() {
    let mut events = anthropic_text_events(&["Par"]);
    events.truncate(4);
    events.push(
        json!({"type": "error", "error": {"type": "overloaded_error",
        "message": format!("Overloaded (your key {ANTHROPIC_KEY})")}}),
    );
    let server = ApiMock::start(vec![sse_reply(anthropic_sse(&events))]).await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::anthropic(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let error = agent.run(&mut agent.session(), "hi").await.unwrap_err();
    let api = error.api().unwrap();
    assert!(api.is_overloaded(), "{error}");
    assert!(api.message().contains("Overloaded"), "{error}");
    assert!(!error.to_string().contains("SECRET"), "{error}");
    // Not retried: text had been delivered.
    assert_eq!(server.request_count().await, 1);
}

#[tokio::test]
async fn rate_limits_and_server_errors_before_the_first_byte_are_retried() {
    let server = ApiMock::start(vec![
        json_reply(429, &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}))
            .insert_header("retry-after", "1"),
        json_reply(503, &json!({"type": "error", "error": {"type": "api_error", "message": "busy"}})),
        sse_reply(anthropic_sse(&anthropic_text_events(&["ok"]))),
    ])
    .await;
    let dir = skills_test_support::project();
    let (provider, delays) = skills_test_support::anthropic(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let out = agent.run(&mut agent.session(), "hi").await.unwrap();
    assert_eq!(out.text, "ok");
    assert_eq!(delays.lock().unwrap().len(), 2);
    assert_eq!(delays.lock().unwrap()[0], Duration::from_secs(1));
    for request in server.requests().await {
        assert_eq!(request.json()["stream"], json!(true));
    }

    // A 200 whose connection closes before any byte of the body is retried too.
    let head_only =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
            .to_vec();
    let server = MockServer::start(vec![
        Reply::Raw(head_only),
        paced(
            openai_sse(&openai_text_chunks(&["again"]), true).as_bytes(),
            2,
            Duration::ZERO,
            false,
        ),
    ])
    .await;
    let (provider, delays) = skills_test_support::openai(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let out = agent.run(&mut agent.session(), "hi").await.unwrap();
    assert_eq!(out.text, "again");
    assert_eq!(
        (server.request_count(), delays.lock().unwrap().len()),
        (2, 1)
    );
}

#[tokio::test]
async fn an_idle_stream_times_out_but_a_slow_steady_one_does_not() {
    let body = anthropic_sse(&anthropic_text_events(&["a", "b", "c", "d", "e", "f"]));
    let server = MockServer::start(vec![
        // Pauses of 2 s between pieces, with a timeout of 0.4 s.
        paced(body.as_bytes(), 3, Duration::from_secs(2), false),
        // Pieces 0.15 s apart for well over the timeout in all.
        paced(body.as_bytes(), 12, Duration::from_millis(150), false),
    ])
    .await;
    let (mut options, _) = skills_test_support::fast_options();
    options.timeout = Duration::from_millis(400);
    let options = HttpOptions {
        retry: skills_runtime::agent::RetryPolicy::none(),
        ..options
    };
    let (provider, _) = skills_test_support::anthropic_builder(&server.url());
    let provider = provider.http(options).build().unwrap();
    let dir = skills_test_support::project();
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let mut session = agent.session();
    let error = agent.run(&mut session, "hi").await.unwrap_err();
    let api = error.api().unwrap();
    assert!(api.is_transport(), "{error}");
    assert!(
        api.message().contains("no data from the server for 0.4 s"),
        "{error}"
    );
    assert_eq!(session.conversation().len(), 1);

    let out = agent.run(&mut session, "hi").await.unwrap();
    assert_eq!(out.text, "abcdef");
}

#[tokio::test]
async fn an_error_body_that_never_finishes_is_bounded_by_the_timeout_too() {
    // A 500 whose body arrives a piece every 2 s: with a timeout of 0.4 s the request fails as
    // idle instead of waiting for the body's end.
    let error = br#"{"type":"error","error":{"type":"api_error","message":"slow"}}"#;
    let server = MockServer::start(vec![Reply::Paced {
        status: 500,
        content_type: "application/json".into(),
        chunks: error.chunks(20).map(<[u8]>::to_vec).collect(),
        interval: Duration::from_secs(2),
        cut: false,
    }])
    .await;
    let (mut options, _) = skills_test_support::fast_options();
    options.timeout = Duration::from_millis(400);
    let options = HttpOptions {
        retry: skills_runtime::agent::RetryPolicy::none(),
        ..options
    };
    let (provider, _) = skills_test_support::anthropic_builder(&server.url());
    let provider = provider.http(options).build().unwrap();
    let dir = skills_test_support::project();
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let error = agent.run(&mut agent.session(), "hi").await.unwrap_err();
    let api = error.api().unwrap();
    assert!(api.is_transport(), "{error}");
    assert!(
        api.message().contains("no data from the server for 0.4 s"),
        "{error}"
    );
    assert_eq!(api.status(), Some(500), "{error}");
}

#[tokio::test]
async fn the_body_limit_applies_to_a_stream() {
    let mut chunks =
        vec![format!("event: message_start\ndata: {}\n\n", message_start(1)).into_bytes()];
    let ping = format!(
        "event: ping\ndata: {{\"type\": \"ping\", \"pad\": \"{}\"}}\n\n",
        "x".repeat(1000)
    );
    chunks.extend(std::iter::repeat_n(ping.into_bytes(), 2000));
    let server = MockServer::start(vec![Reply::Paced {
        status: 200,
        content_type: "text/event-stream".into(),
        chunks,
        interval: Duration::from_millis(1),
        cut: false,
    }])
    .await;
    let (provider, _) = skills_test_support::anthropic_builder(&server.url());
    let provider = provider.max_response_bytes(64 * 1024).build().unwrap();
    let dir = skills_test_support::project();
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let error = agent.run(&mut agent.session(), "hi").await.unwrap_err();
    assert!(error.api().unwrap().is_response_too_large(), "{error}");
    assert!(error.to_string().contains("65536"), "{error}");
    // Reading stopped near the limit, not at the end of the 2 MB body.
    assert!(
        server.streamed_bytes() < 1024 * 1024,
        "{}",
        server.streamed_bytes()
    );
}

#[tokio::test]
async fn a_json_answer_to_a_stream_request_is_read_whole_and_its_text_still_reported() {
    let server = ApiMock::start(vec![json_reply(
        200,
        &skills_test_support::openai_completion(
            json!({"role": "assistant", "content": "whole"}),
            "stop",
            Some(skills_test_support::openai_usage(3, 1)),
        ),
    )])
    .await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::openai(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let (seen, on_event) = recorder();
    let out = agent
        .run_with_events(&mut agent.session(), "hi", on_event)
        .await
        .unwrap();
    assert_eq!(out.text, "whole");
    assert_eq!(
        *seen.lock().unwrap(),
        vec![Seen::Text("whole".into()), Seen::Finished(1)]
    );
    let _ = OPENAI_KEY;
}

#[tokio::test]
async fn without_streaming_the_same_events_come_with_the_text_in_one_piece() {
    let server = ApiMock::start(vec![
        skills_test_support::api_mock::tool_use("toolu_9", "glob", json!({"pattern": "*.md"})),
        skills_test_support::api_mock::final_text("One file."),
    ])
    .await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .workdir(dir.path())
        .permissions(PermissionPolicy::new())
        .build()
        .unwrap();
    let (seen, on_event) = recorder();
    agent
        .run_with_events(&mut agent.session(), "list", on_event)
        .await
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            Seen::Started("toolu_9".into()),
            Seen::Result("toolu_9".into(), false),
            Seen::Finished(1),
            Seen::Text("One file.".into()),
            Seen::Finished(2),
        ]
    );
    for request in server.requests().await {
        assert!(request.json().get("stream").is_none());
    }
}

#[tokio::test]
async fn thinking_and_several_text_blocks_are_rebuilt_for_the_echo() {
    let events = vec![
        message_start(5),
        json!({"type": "content_block_start", "index": 0, "content_block":
               {"type": "thinking", "thinking": "", "signature": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me "}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "think."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "First."}}),
        json!({"type": "content_block_stop", "index": 1}),
        // A delta type this client does not know is skipped.
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "future_delta", "x": 1}}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "Second."}}),
        json!({"type": "content_block_stop", "index": 2}),
        // So is an event type it does not know.
        json!({"type": "future_event", "data": {}}),
    ];
    let mut events = events;
    events.extend(message_end("end_turn", 7));
    let server = ApiMock::start(vec![sse_reply(anthropic_sse(&events))]).await;
    let dir = skills_test_support::project();
    let (provider, _) = skills_test_support::anthropic(&server.url());
    let agent = streaming_agent(Arc::new(provider), dir.path());
    let mut session = agent.session();
    let (seen, on_event) = recorder();
    let out = agent
        .run_with_events(&mut session, "think", on_event)
        .await
        .unwrap();
    // The deltas join to the turn's text, blocks separated as a whole reply's are.
    assert_eq!(out.text, "First.\nSecond.");
    assert_eq!(texts(&seen.lock().unwrap()).concat(), out.text);
    let Some(Message::Assistant(turn)) = session.conversation().messages().last() else {
        panic!();
    };
    assert_eq!(
        turn.raw.as_ref().unwrap().1,
        json!([
            {"type": "thinking", "thinking": "Let me think.", "signature": "EqQBCgIYAhIM"},
            {"type": "text", "text": "First."},
            {"type": "text", "text": "Second."}
        ])
    );
}

/// `target/<profile>/examples/agent`, next to `target/<profile>/deps/<this test>`.
fn example_binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(std::path::Path::parent).unwrap();
    profile.join("examples").join("agent")
}

#[tokio::test]
async fn the_example_agent_streams_by_default_and_not_with_no_stream() {
    let tool_turn = anthropic_sse(&[
        message_start(3),
        json!({"type": "content_block_start", "index": 0, "content_block":
               {"type": "tool_use", "id": "toolu_1", "name": "glob", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "input_json_delta", "partial_json": "{\"pattern\": \"*.md\"}"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 4}}),
        json!({"type": "message_stop"}),
    ]);
    let answer = anthropic_sse(&anthropic_text_events(&["Streamed ", "to you."]));
    for (flags, streamed) in [(&[][..], true), (&["--no-stream"][..], false)] {
        let server = if streamed {
            ApiMock::start(vec![
                sse_reply(tool_turn.clone()),
                sse_reply(answer.clone()),
            ])
            .await
        } else {
            ApiMock::start(vec![
                skills_test_support::api_mock::tool_use(
                    "toolu_1",
                    "glob",
                    json!({"pattern": "*.md"}),
                ),
                skills_test_support::api_mock::final_text("Streamed to you."),
            ])
            .await
        };
        let dir = skills_test_support::project();
        let output = tokio::task::spawn_blocking({
            let (work, base) = (dir.path().to_owned(), server.url());
            let flags: Vec<&'static str> = flags.to_vec();
            move || {
                std::process::Command::new(example_binary())
                    .args(["--provider", "anthropic", "--yes", "--workdir"])
                    .arg(&work)
                    .args(flags)
                    .arg("list the docs")
                    .env_clear()
                    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                    .env("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
                    .env("ANTHROPIC_BASE_URL", base)
                    .stdin(std::process::Stdio::null())
                    .output()
                    .unwrap()
            }
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{flags:?}: {stderr}");
        assert_eq!(stdout, "Streamed to you.\n", "{flags:?}");
        assert_eq!(
            stderr.matches("● glob(*.md)").count(),
            1,
            "{flags:?}: {stderr}"
        );
        for request in server.requests().await {
            assert_eq!(
                request.json().get("stream") == Some(&json!(true)),
                streamed,
                "{flags:?}"
            );
        }
    }
}
