//! A model on wiremock that picks a skill by the words of the query: for each request it reads
//! the last user message and answers by the first route whose word the message holds (words
//! lowercased, split at anything but letters, digits, `-` and `_`), else by the fallback. It
//! speaks both wire formats, Anthropic Messages (`/v1/messages`) and Chat Completions
//! (`/chat/completions`), streamed (server-sent events) when the request asks for it and as one
//! JSON body otherwise, with the JSON the real APIs send. Every reply counts 100 input and 10
//! output tokens.
//!
//! Needs only wiremock and serde_json (the `models` feature): the tests of the agent, of the
//! `skills` command and of the example binaries use it.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// What the model answers.
#[derive(Clone, Debug)]
pub enum Reply {
    /// `load_skill` with this name.
    Load(&'static str),
    /// Another tool (`glob` with a pattern).
    Tool(&'static str),
    /// Text, no tool call.
    Text,
    /// `load_skill` called with arguments that hold no `name`.
    NoName,
    /// A 200 whose body is not JSON (not an event stream either, when streamed).
    Garbage,
    /// The replies in turn, one per request with this query.
    Cycle(Vec<Reply>),
    /// A 429 with `retry-after: SECONDS` for the first request with this query, then the reply.
    LimitedOnce(u64, Box<Reply>),
}

struct Router {
    routes: Vec<(&'static str, Reply)>,
    fallback: Reply,
    /// Requests seen per query, for `Cycle` and `LimitedOnce`.
    seen: Mutex<HashMap<String, usize>>,
}

/// The words of `text`, lowercased.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The text of the last user message of a request body of either format.
pub fn last_user_text(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

impl Router {
    fn reply_for(&self, query: &str) -> (Reply, usize) {
        let seen = {
            let mut seen = self.seen.lock().unwrap();
            let count = seen.entry(query.to_owned()).or_insert(0);
            *count += 1;
            *count - 1
        };
        let query_words = words(query);
        let reply = self
            .routes
            .iter()
            .find(|(word, _)| query_words.iter().any(|w| w == word))
            .map_or(&self.fallback, |(_, reply)| reply)
            .clone();
        (reply, seen)
    }
}

impl Respond for Router {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let anthropic = request.url.path().ends_with("/v1/messages");
        let stream = body["stream"] == true;
        let (reply, seen) = self.reply_for(&last_user_text(&body));
        let reply = match resolve(reply, seen) {
            Ok(reply) => reply,
            Err(limited) => return *limited,
        };
        if let Reply::Garbage = reply {
            let kind = if stream {
                "text/event-stream"
            } else {
                "application/json"
            };
            let bytes = if stream {
                "data: {not json\n\n"
            } else {
                "<html>oops"
            };
            return ResponseTemplate::new(200).set_body_raw(bytes.as_bytes().to_vec(), kind);
        }
        let call = match &reply {
            Reply::Load(name) => Some(("load_skill", json!({"name": name}))),
            Reply::Tool(tool) => Some((*tool, json!({"pattern": "**/*"}))),
            Reply::NoName => Some(("load_skill", json!({"skill": "alpha"}))),
            _ => None,
        };
        self::reply(anthropic, stream, "Let me see.", &call)
    }
}

/// A reply of `text` and at most one tool call, in the wire format and streaming mode the
/// request asked for, with the JSON the real APIs send.
pub fn reply(anthropic: bool, stream: bool, text: &str, call: &Call) -> ResponseTemplate {
    match (anthropic, stream) {
        (true, false) => ResponseTemplate::new(200).set_body_json(anthropic_body(text, call)),
        (true, true) => sse(anthropic_events(text, call)),
        (false, false) => ResponseTemplate::new(200).set_body_json(openai_body(text, call)),
        (false, true) => sse(openai_chunks(text, call)),
    }
}

/// The plain reply to the request that is the `seen`-th (from 0) with its query, or the 429 a
/// [`Reply::LimitedOnce`] gives first.
fn resolve(reply: Reply, seen: usize) -> Result<Reply, Box<ResponseTemplate>> {
    match reply {
        Reply::Cycle(replies) => resolve(replies[seen % replies.len()].clone(), seen),
        Reply::LimitedOnce(seconds, _) if seen == 0 => Err(Box::new(
            ResponseTemplate::new(429)
                .insert_header("retry-after", seconds.to_string().as_str())
                .set_body_json(json!({"type": "error", "error": {
                    "type": "rate_limit_error", "message": "slow down"}})),
        )),
        Reply::LimitedOnce(_, then) => resolve(*then, seen - 1),
        other => Ok(other),
    }
}

/// A tool call: its name and input.
pub type Call = Option<(&'static str, Value)>;

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.into_bytes(), "text/event-stream")
}

fn anthropic_body(text: &str, call: &Call) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    if let Some((name, input)) = call {
        content.push(json!({"type": "tool_use", "id": "toolu_01", "name": name, "input": input}));
    }
    json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test-model",
        "content": content,
        "stop_reason": if call.is_some() { "tool_use" } else { "end_turn" },
        "stop_sequence": null,
        "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0, "output_tokens": 10}
    })
}

fn anthropic_events(text: &str, call: &Call) -> String {
    let mut events = vec![
        json!({"type": "message_start", "message": {
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test-model",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 100, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    if let Some((name, input)) = call {
        let input = input.to_string();
        let (head, tail) = input.split_at(input.len() / 2);
        events.extend([
            json!({"type": "content_block_start", "index": 1, "content_block":
                {"type": "tool_use", "id": "toolu_01", "name": name, "input": {}}}),
            json!({"type": "content_block_delta", "index": 1,
                   "delta": {"type": "input_json_delta", "partial_json": head}}),
            json!({"type": "content_block_delta", "index": 1,
                   "delta": {"type": "input_json_delta", "partial_json": tail}}),
            json!({"type": "content_block_stop", "index": 1}),
        ]);
    }
    let stop = if call.is_some() {
        "tool_use"
    } else {
        "end_turn"
    };
    events.extend([
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
               "usage": {"output_tokens": 10}}),
        json!({"type": "message_stop"}),
    ]);
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect()
}

fn openai_usage() -> Value {
    json!({"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110})
}

fn openai_body(text: &str, call: &Call) -> Value {
    let mut message = json!({"role": "assistant", "content": text, "refusal": null});
    if let Some((name, input)) = call {
        message["tool_calls"] = json!([{"id": "call_01", "type": "function",
            "function": {"name": name, "arguments": input.to_string()}}]);
    }
    json!({
        "id": "chatcmpl-01", "object": "chat.completion", "created": 1741569952,
        "model": "gpt-test-model",
        "choices": [{"index": 0, "message": message, "logprobs": null,
                     "finish_reason": if call.is_some() { "tool_calls" } else { "stop" }}],
        "usage": openai_usage()
    })
}

fn openai_chunks(text: &str, call: &Call) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-01", "object": "chat.completion.chunk", "created": 1741569952,
               "model": "gpt-test-model",
               "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
               "usage": null})
    };
    let mut chunks = vec![
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(json!({"content": text}), Value::Null),
    ];
    if let Some((name, input)) = call {
        let input = input.to_string();
        let (head, tail) = input.split_at(input.len() / 2);
        chunks.push(chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_01", "type": "function",
                                   "function": {"name": name, "arguments": head}}]}),
            Value::Null,
        ));
        chunks.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": tail}}]}),
            Value::Null,
        ));
    }
    let finish = if call.is_some() { "tool_calls" } else { "stop" };
    chunks.push(chunk(json!({}), json!(finish)));
    chunks.push(
        json!({"id": "chatcmpl-01", "object": "chat.completion.chunk",
                       "created": 1741569952, "model": "gpt-test-model", "choices": [],
                       "usage": openai_usage()}),
    );
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

/// The routing model on 127.0.0.1.
pub struct RoutingModel {
    server: MockServer,
}

impl RoutingModel {
    /// Answers by `routes` (word, reply), in order, else by `fallback`.
    pub async fn start(routes: Vec<(&'static str, Reply)>, fallback: Reply) -> RoutingModel {
        let server = MockServer::start().await;
        Mock::given(any())
            .respond_with(Router {
                routes,
                fallback,
                seen: Mutex::new(HashMap::new()),
            })
            .mount(&server)
            .await;
        RoutingModel { server }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.server.uri()
    }

    /// The body of every request received so far, as JSON, in order.
    pub async fn bodies(&self) -> Vec<Value> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null))
            .collect()
    }

    /// The raw body bytes of every request received so far, in order.
    pub async fn raw_bodies(&self) -> Vec<Vec<u8>> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.body)
            .collect()
    }

    /// How many requests it received.
    pub async fn count(&self) -> usize {
        self.server.received_requests().await.map_or(0, |r| r.len())
    }
}
