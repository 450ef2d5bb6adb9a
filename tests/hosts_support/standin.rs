//! Stand-in models on 127.0.0.1 for the real hosts: Anthropic Messages (Claude Code, through
//! `ANTHROPIC_BASE_URL`) and OpenAI Responses (Codex, through its provider's `base_url`). Each
//! is scripted the same way: while the request offers the MCP server's `load_skill` and carries
//! no tool result yet, it calls `load_skill` for [`SKILL`]; otherwise it answers [`DONE`]. Both
//! stream, as the hosts ask; every request is kept for the test to check.

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// The skill the stand-in loads.
pub const SKILL: &str = "code-review";
/// The stand-in's final answer.
pub const DONE: &str = "STANDIN-DONE";

/// Server-sent events, one `event:`/`data:` pair per `(name, data)`.
fn sse(events: &[(&str, Value)]) -> ResponseTemplate {
    let body: String = events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

/// The request's JSON body (`Null` when it is not JSON).
pub fn body(request: &Request) -> Value {
    serde_json::from_slice(&request.body).unwrap_or(Value::Null)
}

/// Whether a Messages request's conversation already has a `tool_result`.
fn has_tool_result(body: &Value) -> bool {
    body["messages"].as_array().into_iter().flatten().any(|m| {
        m["content"]
            .as_array()
            .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"))
    })
}

/// Anthropic Messages: `tool` is the name Claude Code gives the server's `load_skill`
/// (`mcp__<server>__load_skill`).
pub async fn anthropic(tool: &'static str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages/count_tokens"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"input_tokens": 1})))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(move |request: &Request| messages_reply(&body(request), tool))
        .mount(&server)
        .await;
    server
}

fn messages_reply(body: &Value, tool: &str) -> ResponseTemplate {
    let offered = body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == tool));
    let usage = json!({"input_tokens": 10, "output_tokens": 1});
    if body["stream"] != true {
        return ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_plain", "type": "message", "role": "assistant", "model": body["model"],
            "content": [{"type": "text", "text": DONE}], "stop_reason": "end_turn",
            "stop_sequence": null, "usage": usage,
        }));
    }
    let start = json!({"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
        "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}});
    let (block, delta, stop) = if offered && !has_tool_result(body) {
        (
            json!({"type": "tool_use", "id": "toolu_1", "name": tool, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": json!({"name": SKILL}).to_string()}),
            "tool_use",
        )
    } else {
        (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": DONE}),
            "end_turn",
        )
    };
    sse(&[
        ("message_start", start),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

/// OpenAI Responses. Codex offers an MCP server's tools as a `namespace` tool named
/// `mcp__<server>` holding `load_skill`; the call names the tool and its namespace.
pub async fn responses() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(|request: &Request| responses_reply(&body(request)))
        .mount(&server)
        .await;
    server
}

/// The `namespace` tool of `body` that holds `load_skill`, if any.
pub fn load_skill_namespace(body: &Value) -> Option<&Value> {
    body["tools"].as_array()?.iter().find(|t| {
        t["type"] == "namespace"
            && t["tools"]
                .as_array()
                .is_some_and(|tools| tools.iter().any(|t| t["name"] == "load_skill"))
    })
}

/// The `function_call_output` items of a Responses request.
pub fn call_outputs(body: &Value) -> Vec<&Value> {
    body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item["type"] == "function_call_output")
        .collect()
}

fn responses_reply(body: &Value) -> ResponseTemplate {
    let namespace = load_skill_namespace(body).map(|n| n["name"].clone());
    let item = match namespace {
        Some(namespace) if call_outputs(body).is_empty() => json!({
            "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "load_skill",
            "namespace": namespace, "arguments": json!({"name": SKILL}).to_string(),
            "status": "completed",
        }),
        _ => json!({
            "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": DONE, "annotations": []}],
        }),
    };
    let response = |status: &str, output: Value| {
        json!({"id": "resp_1", "object": "response", "status": status, "output": output,
               "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                         "input_tokens_details": {"cached_tokens": 0},
                         "output_tokens_details": {"reasoning_tokens": 0}}})
    };
    sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": response("in_progress", json!([]))}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": response("completed", json!([item]))}),
        ),
    ])
}
