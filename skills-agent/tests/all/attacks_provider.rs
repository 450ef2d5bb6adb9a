//! A hostile or compromised model server, against the providers and the loop: each test plays
//! one attack on a mock server on 127.0.0.1 and checks that it fails safely.
//!
//! - an error body (HTTP 200, 4xx or 5xx) that echoes the API key and is huge;
//! - server strings that end up in log events (stop reason, tool names and ids);
//! - a redirect to another origin, which would carry the key there;
//! - an endless or oversized response body;
//! - thousands of tool calls in one turn.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skills_runtime::agent::BoxFuture;
use skills_runtime::agent::provider::DEFAULT_MAX_RESPONSE_BYTES;
use skills_runtime::agent::{
    Agent, AgentBuilder, AgentError, Permission, Provider, Tool, ToolContext, ToolError,
};
use skills_test_support::api_mock::{ApiMock, json_reply, text_reply};
use skills_test_support::logs::{self, Captured};
use skills_test_support::mock::{MockServer, Reply};
use skills_test_support::*;

/// Longest error text the library may produce (`error::MAX_ERROR_TEXT`), plus room for the
/// fixed words around the message in `Display` and `Debug`.
const BOUND: usize = 2_000 + 400;

/// Another party's key, in a shape the redaction must know without being told.
const FOREIGN_KEY: &str = "sk-proj-FOREIGNabcdefghij0123456789";
const FOREIGN_BEARER: &str = "eyJhbGciOiJIUzI1NiJ9.FOREIGNtoken.sig";

/// Whether `text` shows `key`, or any 8-byte piece of it (a key cut in half leaks too).
fn leaks(text: &str, key: &str) -> bool {
    key.as_bytes()
        .windows(8)
        .any(|w| text.contains(std::str::from_utf8(w).unwrap()))
}

/// A message that echoes `key` (and foreign credentials) and goes on for a megabyte.
fn echoing_message(key: &str) -> String {
    format!(
        "invalid key {key} (header x-api-key: {key}; Authorization: Bearer {key}; also \
         {FOREIGN_KEY} and bearer {FOREIGN_BEARER}) {}",
        "padding ".repeat(128 * 1024)
    )
}

/// Runs `agent` once and returns the error, as shown by `Display` and `Debug`.
async fn failing_run(provider: Arc<dyn Provider>) -> (AgentError, String) {
    let agent = Agent::builder(provider).build().unwrap();
    let err = agent.run(&mut agent.session(), "hi").await.unwrap_err();
    let shown = format!("{err}\n{err:?}");
    (err, shown)
}

/// The checks every attack on the error path shares: nothing of either key, no foreign
/// credential, bounded error text and bounded log lines, and the ERROR event was emitted.
fn assert_clean(what: &str, shown: &str, logs: &Captured, key: &str) {
    for text in std::iter::once(shown.to_owned()).chain(logs.events()) {
        assert!(!leaks(&text, key), "{what}: key leaked in {text}");
        assert!(
            !leaks(&text, ANTHROPIC_KEY) && !leaks(&text, OPENAI_KEY),
            "{what}: {text}"
        );
        assert!(
            !text.contains("FOREIGN"),
            "{what}: foreign key leaked in {text}"
        );
    }
    assert!(shown.len() <= 2 * BOUND, "{what}: {} bytes", shown.len());
    for event in logs.events() {
        assert!(
            event.len() <= BOUND,
            "{what}: log line of {} bytes",
            event.len()
        );
    }
    let errors = logs.at("ERROR");
    assert_eq!(errors.len(), 1, "{what}: {errors:?}");
    assert!(errors[0].contains("[redacted]"), "{what}: {}", errors[0]);
}

#[tokio::test]
async fn error_body_with_status_200_echoing_the_key_is_redacted_and_capped() {
    let (logs, _guard) = logs::capture();
    let server = ApiMock::start(vec![json_reply(
        200,
        &json!({"type": "error", "error": {"type": "api_error",
                "message": echoing_message(ANTHROPIC_KEY)}}),
    )])
    .await;
    let (provider, _) = anthropic(&server.url());
    let (err, shown) = failing_run(Arc::new(provider)).await;
    assert!(err.api().unwrap().is_malformed_response(), "{err}");
    assert!(
        shown.contains("api_error: invalid key [redacted]"),
        "{shown}"
    );
    assert_clean("anthropic 200", &shown, &logs, ANTHROPIC_KEY);

    let (logs, _guard) = logs::capture();
    let server = ApiMock::start(vec![json_reply(
        200,
        &json!({"error": {"message": echoing_message(OPENAI_KEY), "type": "server_error"}}),
    )])
    .await;
    let (provider, _) = openai(&server.url());
    let (err, shown) = failing_run(Arc::new(provider)).await;
    assert!(err.api().unwrap().is_malformed_response(), "{err}");
    assert_clean("openai 200", &shown, &logs, OPENAI_KEY);
}

#[tokio::test]
async fn error_bodies_with_4xx_and_5xx_echoing_the_key_are_redacted_and_capped() {
    for status in [400, 401, 500] {
        let (logs, _guard) = logs::capture();
        // 500 is retried: three answers, two WARN events, one ERROR event.
        let reply = json_reply(
            status,
            &json!({"type": "error", "error": {"type": "some_error",
                    "message": echoing_message(ANTHROPIC_KEY)}}),
        );
        let server = ApiMock::repeating(reply).await;
        let (provider, _) = anthropic(&server.url());
        let (err, shown) = failing_run(Arc::new(provider)).await;
        assert_eq!(err.api().unwrap().status(), Some(status));
        // The body is cut at the error-body limit, so it is shown as text, not parsed.
        assert!(shown.contains("invalid key [redacted]"), "{shown}");
        assert_clean(&format!("anthropic {status}"), &shown, &logs, ANTHROPIC_KEY);
    }

    // Not JSON, with the key where the preview of the body is cut.
    for offset in [0, 250, 290, 299, 305] {
        let (logs, _guard) = logs::capture();
        let body = format!(
            "{}{OPENAI_KEY} {}",
            "x".repeat(offset),
            "y ".repeat(1 << 20)
        );
        let server = ApiMock::start(vec![text_reply(403, &body)]).await;
        let (provider, _) = openai(&server.url());
        let (err, shown) = failing_run(Arc::new(provider)).await;
        assert!(err.api().unwrap().is_authentication(), "{err}");
        for text in std::iter::once(shown.clone()).chain(logs.events()) {
            assert!(!leaks(&text, OPENAI_KEY), "offset {offset}: {text}");
        }
        assert!(shown.len() <= 2 * BOUND, "offset {offset}: {}", shown.len());
    }
}

#[tokio::test]
async fn a_key_that_does_not_look_like_one_is_still_masked() {
    // Local servers take any key; the exact key is masked whatever its shape.
    let key = "local-key-QWERTYUIOP";
    let (logs, _guard) = logs::capture();
    let server = ApiMock::start(vec![json_reply(
        401,
        &json!({"error": {"message": format!("bad key {key}"), "type": "auth"}}),
    )])
    .await;
    let (options, _) = fast_options();
    let provider = skills_runtime::agent::provider::openai::OpenAi::builder()
        .api_key(key)
        .model("m")
        .base_url(server.url())
        .http(options)
        .build()
        .unwrap();
    let (_, shown) = failing_run(Arc::new(provider)).await;
    assert!(shown.contains("bad key [redacted]"), "{shown}");
    assert_clean("plain key", &shown, &logs, key);
}

#[tokio::test]
async fn transport_errors_show_no_query_string_or_key() {
    let (logs, _guard) = logs::capture();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    // A base URL that carries the key (and another secret) in its query string.
    let base =
        format!("http://user:pw-SECRET-PASS@127.0.0.1:{port}/v1?api-key={OPENAI_KEY}&x=PARAM");
    let (options, _) = fast_options();
    let provider = skills_runtime::agent::provider::openai::OpenAi::builder()
        .api_key(OPENAI_KEY)
        .model("m")
        .base_url(&base)
        .http(options)
        .build()
        .unwrap();
    let (err, shown) = failing_run(Arc::new(provider)).await;
    assert!(err.api().unwrap().is_transport(), "{err}");
    assert!(shown.contains(&format!("127.0.0.1:{port}/v1")), "{shown}");
    for text in std::iter::once(shown).chain(logs.events()) {
        assert!(!leaks(&text, OPENAI_KEY), "{text}");
        assert!(
            !text.contains("PARAM") && !text.contains("SECRET-PASS"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn server_strings_in_log_events_are_redacted_and_capped() {
    // The stop reason, tool name and tool id of a reply are logged by the loop.
    let (logs, _guard) = logs::capture();
    let long = format!("{ANTHROPIC_KEY}{}", " and more".repeat(100_000));
    let server = ApiMock::start(vec![
        json_reply(
            200,
            &anthropic_message(
                json!([{"type": "tool_use", "id": format!("toolu_{ANTHROPIC_KEY}"),
                        "name": format!("{ANTHROPIC_KEY}\nERROR forged line"), "input": {}}]),
                &long,
                1,
                1,
            ),
        ),
        json_reply(
            200,
            &anthropic_message(json!([{"type": "text", "text": "done"}]), &long, 1, 1),
        ),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let out = agent.run(&mut agent.session(), "hi").await.unwrap();
    assert_eq!(out.text, "done");
    let events = logs.events();
    assert!(events.iter().any(|e| e.contains("tool call")), "{events:?}");
    for event in &events {
        assert!(!leaks(event, ANTHROPIC_KEY), "{event}");
        assert!(event.len() <= BOUND, "{} bytes", event.len());
        assert!(!event.contains('\n'), "{event}");
    }
}

#[tokio::test]
async fn redirect_to_another_origin_is_not_followed_anthropic() {
    let elsewhere = ApiMock::repeating(json_reply(
        200,
        &anthropic_message(
            json!([{"type": "text", "text": "stolen"}]),
            "end_turn",
            1,
            1,
        ),
    ))
    .await;
    // Same host, other port: another origin.
    let server = ApiMock::repeating(text_reply(307, "").insert_header(
        "location",
        &format!("{}/v1/messages?k=QUERYSECRET", elsewhere.url()),
    ))
    .await;
    let (provider, delays) = anthropic(&server.url());
    let (err, shown) = failing_run(Arc::new(provider)).await;
    let api = err.api().unwrap();
    assert!(api.is_redirect(), "{err}");
    assert_eq!(api.status(), Some(307));
    assert!(!api.is_retryable());
    assert!(shown.contains(&elsewhere.url()), "{shown}");
    assert!(!shown.contains("QUERYSECRET"), "{shown}");
    assert_eq!(
        server.request_count().await,
        1,
        "a refused redirect is not retried"
    );
    assert!(delays.lock().unwrap().is_empty());
    assert_eq!(
        elsewhere.request_count().await,
        0,
        "the other origin got a request"
    );
}

#[tokio::test]
async fn redirect_to_another_origin_is_not_followed_openai() {
    let elsewhere = ApiMock::repeating(json_reply(
        200,
        &openai_completion(
            json!({"role": "assistant", "content": "stolen"}),
            "stop",
            None,
        ),
    ))
    .await;
    let server = ApiMock::repeating(text_reply(308, "").insert_header(
        "location",
        &format!("{}/v1/chat/completions", elsewhere.url()),
    ))
    .await;
    let (provider, _) = openai(&server.url());
    let (err, _) = failing_run(Arc::new(provider)).await;
    assert!(err.api().unwrap().is_redirect(), "{err}");
    assert_eq!(server.request_count().await, 1);
    assert_eq!(
        elsewhere.request_count().await,
        0,
        "the other origin got a request"
    );
}

#[tokio::test]
async fn redirect_within_the_origin_is_followed_with_the_key() {
    let server = ApiMock::start(vec![
        text_reply(307, "").insert_header("location", "/v2/messages"),
        json_reply(
            200,
            &anthropic_message(json!([{"type": "text", "text": "moved"}]), "end_turn", 1, 1),
        ),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let out = agent.run(&mut agent.session(), "hi").await.unwrap();
    assert_eq!(out.text, "moved");
    let requests = server.requests().await;
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].path, "/v2/messages");
    assert_eq!(requests[1].header("x-api-key"), Some(ANTHROPIC_KEY));
    assert_eq!(requests[1].body, requests[0].body);
}

#[tokio::test]
async fn redirect_loop_within_the_origin_stops() {
    let server =
        ApiMock::repeating(text_reply(307, "").insert_header("location", "/v1/messages")).await;
    let (provider, _) = anthropic(&server.url());
    let (err, _) = failing_run(Arc::new(provider)).await;
    assert!(err.api().unwrap().is_redirect(), "{err}");
    // The first request and at most MAX_REDIRECTS follow-ups.
    assert_eq!(
        server.request_count().await,
        1 + skills_runtime::agent::provider::MAX_REDIRECTS
    );
}

// The endless bodies below need the raw-socket mock: it generates the body while the client
// reads and counts the bytes it got to write, which is what these tests assert on.

/// A 200 whose JSON string never ends.
fn endless_body(declared_length: Option<u64>) -> Reply {
    Reply::Endless {
        status: 200,
        prefix: br#"{"type":"message","content":[{"type":"text","text":""#.to_vec(),
        filler: vec![b'a'; 64 * 1024],
        declared_length,
    }
}

#[tokio::test]
async fn endless_response_body_stops_at_the_limit() {
    let server = MockServer::repeating(endless_body(None)).await;
    let (provider, delays) = anthropic(&server.url());
    let started = Instant::now();
    let (err, shown) = failing_run(Arc::new(provider)).await;
    let api = err.api().unwrap();
    assert!(api.is_response_too_large(), "{err}");
    assert!(!api.is_retryable());
    assert!(
        shown.contains(&DEFAULT_MAX_RESPONSE_BYTES.to_string()),
        "{shown}"
    );
    assert_eq!(server.request_count(), 1, "not retried");
    assert!(delays.lock().unwrap().is_empty());
    // Read while streaming: the server got to write little more than the limit (plus what
    // the socket buffers hold), not an unbounded body, and quickly.
    let streamed = server.streamed_bytes();
    assert!(
        streamed < (DEFAULT_MAX_RESPONSE_BYTES + 16 * 1024 * 1024) as u64,
        "{streamed} bytes streamed"
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn declared_gigabyte_body_is_refused_before_reading() {
    let server = MockServer::repeating(endless_body(Some(1 << 30))).await;
    let (provider, _) = openai(&server.url());
    let started = Instant::now();
    let (err, shown) = failing_run(Arc::new(provider)).await;
    assert!(err.api().unwrap().is_response_too_large(), "{err}");
    assert!(shown.contains("1073741824"), "{shown}");
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(server.streamed_bytes() < 64 * 1024 * 1024);
}

#[tokio::test]
async fn response_limit_is_a_provider_option() {
    // A valid reply of about 100 KB, over a 64 KiB limit, under the default.
    let reply = json_reply(
        200,
        &anthropic_message(
            json!([{"type": "text", "text": "z".repeat(100_000)}]),
            "end_turn",
            1,
            1,
        ),
    );
    let server = ApiMock::repeating(reply).await;
    let (provider, _) = skills_test_support::anthropic_builder(&server.url());
    let provider = provider.max_response_bytes(64 * 1024).build().unwrap();
    let (err, _) = failing_run(Arc::new(provider)).await;
    assert!(err.api().unwrap().is_response_too_large(), "{err}");

    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let out = agent.run(&mut agent.session(), "hi").await.unwrap();
    assert_eq!(out.text.len(), 100_000);
}

#[tokio::test]
async fn endless_error_body_is_read_only_in_part() {
    let server = MockServer::repeating(Reply::Endless {
        status: 503,
        prefix: b"upstream failure ".to_vec(),
        filler: b"again ".repeat(10_000),
        declared_length: None,
    })
    .await;
    let (provider, _) = anthropic(&server.url());
    let started = Instant::now();
    let (err, shown) = failing_run(Arc::new(provider)).await;
    let api = err.api().unwrap();
    assert!(api.is_server(), "{err}");
    assert_eq!(api.retries(), 2);
    assert!(shown.contains("upstream failure"), "{shown}");
    assert!(shown.len() <= 2 * BOUND);
    assert!(started.elapsed() < Duration::from_secs(4));
    // Three requests, each read for 64 KiB at most (plus socket buffers).
    assert!(server.streamed_bytes() < 3 * 16 * 1024 * 1024);
}

/// A tool that counts its calls.
struct Counter(Arc<AtomicUsize>);

impl Tool for Counter {
    fn name(&self) -> &str {
        "count"
    }

    fn description(&self) -> &str {
        "Counts."
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }

    fn default_permission(&self) -> Permission {
        Permission::Allow
    }

    fn call<'a>(
        &'a self,
        _: &'a Value,
        _: &'a ToolContext,
    ) -> BoxFuture<'a, Result<String, ToolError>> {
        let n = self.0.fetch_add(1, Ordering::SeqCst) + 1;
        Box::pin(async move { Ok(format!("counted {n}")) })
    }
}

#[tokio::test]
async fn ten_thousand_tool_calls_in_one_turn_run_only_up_to_the_limit() {
    let dir = project();
    let calls: Vec<Value> = (0..10_000)
        .map(|i| json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": "count", "input": {}}))
        .collect();
    let server = ApiMock::start(vec![
        json_reply(
            200,
            &anthropic_message(Value::Array(calls), "tool_use", 1, 1),
        ),
        json_reply(
            200,
            &anthropic_message(json!([{"type": "text", "text": "done"}]), "end_turn", 1, 1),
        ),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let counter = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(Arc::new(provider))
        .tools(vec![Arc::new(Counter(Arc::clone(&counter)))])
        .workdir(dir.path())
        // The 10,000 results are far over a real window; without this the context budget
        // would refuse the second request before the per-turn limit shows in it.
        .context_window(100_000_000)
        .build()
        .unwrap();
    let (logs, _guard) = logs::capture();
    let out = agent.run(&mut agent.session(), "count").await.unwrap();
    assert_eq!(out.text, "done");
    assert_eq!(
        counter.load(Ordering::SeqCst),
        AgentBuilder::DEFAULT_MAX_TOOL_CALLS_PER_TURN
    );
    assert_eq!(out.tool_calls, 10_000);

    // Every tool_use id has its tool_result, in order: the cap's worth ran, the rest were
    // told the limit.
    let requests = server.requests().await;
    assert_eq!(requests.len(), 2);
    let second = requests[1].json();
    let results = second["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(results.len(), 10_000);
    for (i, result) in results.iter().enumerate() {
        assert_eq!(result["type"], "tool_result");
        assert_eq!(result["tool_use_id"], format!("toolu_{i}"));
        let content = result["content"].as_str().unwrap();
        if i < AgentBuilder::DEFAULT_MAX_TOOL_CALLS_PER_TURN {
            assert_eq!(content, format!("counted {}", i + 1));
            assert!(result.get("is_error").is_none(), "{result}");
        } else {
            assert_eq!(result["is_error"], true, "{result}");
            assert!(content.contains("10000 tool calls"), "{content}");
            assert!(content.contains("at most 64"), "{content}");
        }
    }
    let warnings = logs.at("WARN");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("limit=64"), "{warnings:?}");
}

#[tokio::test]
async fn tool_call_limit_is_an_agent_option() {
    let dir = project();
    let calls: Vec<Value> = (0..5)
        .map(|i| {
            json!({"id": format!("call_{i}"), "type": "function",
                        "function": {"name": "count", "arguments": "{}"}})
        })
        .collect();
    let server = ApiMock::start(vec![
        json_reply(
            200,
            &openai_completion(
                json!({"role": "assistant", "content": null, "tool_calls": calls}),
                "tool_calls",
                None,
            ),
        ),
        json_reply(
            200,
            &openai_completion(json!({"role": "assistant", "content": "ok"}), "stop", None),
        ),
    ])
    .await;
    let (provider, _) = openai(&server.url());
    let counter = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(Arc::new(provider))
        .tools(vec![Arc::new(Counter(Arc::clone(&counter)))])
        .workdir(dir.path())
        .max_tool_calls_per_turn(2)
        .build()
        .unwrap();
    agent.run(&mut agent.session(), "count").await.unwrap();
    assert_eq!(counter.load(Ordering::SeqCst), 2);
    let second = server.requests().await[1].json();
    let tool_messages: Vec<&Value> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tool_messages.len(), 5);
    for (i, message) in tool_messages.iter().enumerate() {
        assert_eq!(message["tool_call_id"], format!("call_{i}"));
        let content = message["content"].as_str().unwrap();
        assert_eq!(content.starts_with("Error:"), i >= 2, "{content}");
        if i >= 2 {
            assert!(content.contains("at most 2 run per turn"), "{content}");
        }
    }
}
