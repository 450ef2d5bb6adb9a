//! Anthropic Messages: `POST {base}/v1/messages`.
//!
//! The system prompt is one text block with `cache_control: {"type": "ephemeral"}`, so the
//! constant prefix (tools + system) is cached across turns. An assistant turn is echoed back as
//! the exact `content` array received, with block types and fields we do not know. The results
//! of one turn go back as one user message of `tool_result` blocks, in call order.
//!
//! Streamed (`stream: true`), the reply comes as server-sent events: `message_start`, then per
//! content block `content_block_start`, `content_block_delta`s (`text_delta`,
//! `input_json_delta` with the tool input in pieces, `thinking_delta`, `signature_delta`,
//! `citations_delta`) and `content_block_stop`, then `message_delta` (stop reason, final usage)
//! and `message_stop`; `ping`s anywhere, an `error` event instead of the rest. The message is
//! rebuilt from them, blocks and fields we do not know included, and read by
//! [`parse_response`] like a non-streamed one. Unknown event and delta types are skipped, as
//! the API asks of clients.

use std::fmt;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::api::{Provider, Request, Response};
use super::http::{Endpoint, HttpOptions, StreamDecoder, encode, key_header};
use super::json::{count, server_error, type_name};
use crate::BoxFuture;
use crate::conversation::{AssistantTurn, Message, ToolCall, ToolResult, Usage, WireFormat};
use crate::error::{ApiError, ApiErrorKind};
use crate::events::{AgentEvent, EventSink};
use crate::redact::Redactor;

/// The public endpoint, used when `ANTHROPIC_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version header value.
pub const API_VERSION: &str = "2023-06-01";
/// Default `max_tokens` per reply.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

const NAME: &str = "anthropic";

/// The Anthropic Messages provider.
pub struct Anthropic {
    model: String,
    max_tokens: u32,
    http: Endpoint,
}

impl fmt::Debug for Anthropic {
    // Hand-written so the key never reaches a log through `{:?}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Anthropic")
            .field("base_url", &self.http.base_url())
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("api_key", &"[redacted]")
            .finish_non_exhaustive()
    }
}

impl Anthropic {
    /// A provider for `model` at the default base URL.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Result<Self, ApiError> {
        Self::with_options(api_key, model, DEFAULT_BASE_URL, HttpOptions::default())
    }

    /// A provider with an explicit base URL (`ANTHROPIC_BASE_URL`) and HTTP options.
    pub fn with_options(
        api_key: impl Into<String>,
        model: impl Into<String>,
        base_url: &str,
        options: HttpOptions,
    ) -> Result<Self, ApiError> {
        let api_key = api_key.into();
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("x-api-key"),
            key_header(NAME, &api_key)?,
        );
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(API_VERSION),
        );
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        Ok(Anthropic {
            http: Endpoint::new(NAME, base_url, "/v1/messages", headers, api_key, options)?,
            model: model.into(),
            max_tokens: DEFAULT_MAX_TOKENS,
        })
    }

    /// Sets `max_tokens` per reply.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// The largest response body accepted, in bytes (default
    /// [`DEFAULT_MAX_RESPONSE_BYTES`](crate::DEFAULT_MAX_RESPONSE_BYTES)); a larger one fails
    /// with [`ApiErrorKind::ResponseTooLarge`] once the limit is crossed.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.http.set_max_response_bytes(bytes);
        self
    }

    /// The request body for `request`, as sent: encoded straight from the conversation, with
    /// no intermediate JSON tree; `"stream": true` when the request has an event sink.
    pub fn request_body(&self, request: Request<'_>) -> Result<Vec<u8>, ApiError> {
        encode(
            NAME,
            &WireRequest {
                model: request.model.unwrap_or(&self.model),
                max_tokens: self.max_tokens,
                stream: request.events.is_some(),
                system: [SystemBlock {
                    kind: "text",
                    text: request.system,
                    cache_control: CacheControl { kind: "ephemeral" },
                }],
                tools: request.tools.anthropic(),
                messages: request.messages,
            },
        )
    }
}

impl Provider for Anthropic {
    fn name(&self) -> &'static str {
        NAME
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn max_output_tokens(&self) -> Option<u32> {
        Some(self.max_tokens)
    }

    fn redactor(&self) -> Redactor {
        self.http.redactor().clone()
    }

    fn complete<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response, ApiError>> {
        let model = request.model.unwrap_or(&self.model);
        let body = self.request_body(request);
        let stream = request.events.map(|sink| (MessageStream::default(), sink));
        Box::pin(async move {
            self.http
                .complete(model, body?, stream, parse_response)
                .await
        })
    }
}

/// The Messages request body. Fields are written in this order.
#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    system: [SystemBlock<'a>; 1],
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    tools: &'a [Value],
    #[serde(serialize_with = "wire_messages")]
    messages: &'a [Message],
}

/// The system prompt as one cached text block.
#[derive(Serialize)]
struct SystemBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    cache_control: CacheControl,
}

#[derive(Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A content block we write ourselves.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

fn wire_messages<S: Serializer>(messages: &&[Message], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(messages.iter().map(WireMessage))
}

/// One conversation message in the Messages wire format.
struct WireMessage<'a>(&'a Message);

impl Serialize for WireMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self.0 {
            Message::User(text) => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", text)?;
            }
            Message::Assistant(turn) => {
                map.serialize_entry("role", "assistant")?;
                match &turn.raw {
                    // Echoed exactly as received.
                    Some((WireFormat::Anthropic, raw)) => map.serialize_entry("content", raw)?,
                    _ => map.serialize_entry("content", &AssistantBlocks(turn))?,
                }
            }
            Message::ToolResults(results) => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", &ResultBlocks(results))?;
            }
        }
        map.end()
    }
}

/// An assistant turn from another format (or none): its text, then its tool calls.
struct AssistantBlocks<'a>(&'a AssistantTurn);

impl Serialize for AssistantBlocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let turn = self.0;
        let text = (!turn.text.is_empty()).then_some(Block::Text { text: &turn.text });
        let calls = turn.tool_calls.iter().map(|call| Block::ToolUse {
            id: &call.id,
            name: &call.name,
            input: &call.input,
        });
        serializer.collect_seq(text.into_iter().chain(calls))
    }
}

/// The results of one turn, in call order.
struct ResultBlocks<'a>(&'a [ToolResult]);

impl Serialize for ResultBlocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|r| Block::ToolResult {
            tool_use_id: &r.call_id,
            content: &r.content,
            is_error: r.is_error,
        }))
    }
}

fn malformed(message: impl Into<String>) -> ApiError {
    ApiError::new(ApiErrorKind::MalformedResponse, NAME, message)
}

/// Reads a Messages response. Unknown fields and block types are kept in the raw content.
pub fn parse_response(mut value: Value) -> Result<Response, ApiError> {
    if let Some((_, message)) = server_error(&value) {
        // The providers catch these before parsing (to mask the key); a direct caller still
        // gets an error, bounded by `ApiError::new`.
        return Err(malformed(format!(
            "the server answered with an error: {message}"
        )));
    }
    let content = match value.get_mut("content").map(Value::take) {
        Some(Value::Array(blocks)) => blocks,
        Some(Value::Null) | None => {
            return Err(malformed("no `content` array in the response"));
        }
        Some(other) => {
            return Err(malformed(format!(
                "`content` is not an array but {}",
                type_name(&other)
            )));
        }
    };
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (index, block) in content.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(t);
                }
            }
            Some("tool_use") => {
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| malformed(format!("tool_use block {index} has no name")))?;
                let id = block
                    .get("id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| malformed(format!("tool_use block {index} has no id")))?;
                tool_calls.push(ToolCall {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    input: block.get("input").cloned().unwrap_or_else(|| json!({})),
                });
            }
            // thinking, redacted_thinking, server tool blocks, future types: kept in `raw`.
            _ => {}
        }
    }
    let usage_value = value.get("usage").unwrap_or(&Value::Null);
    let usage = Usage {
        input_tokens: count(usage_value, "input_tokens"),
        output_tokens: count(usage_value, "output_tokens"),
        cache_read_tokens: count(usage_value, "cache_read_input_tokens"),
        cache_creation_tokens: count(usage_value, "cache_creation_input_tokens"),
        requests: 1,
    };
    Ok(Response {
        turn: AssistantTurn {
            text,
            tool_calls,
            raw: Some((WireFormat::Anthropic, Value::Array(content))),
            stop_reason: value
                .get("stop_reason")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
        usage,
        retries: 0,
    })
}

/// Rebuilds a Messages response from its stream events (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct MessageStream {
    /// The message of `message_start`, updated by `message_delta`.
    message: Option<Value>,
    /// The content blocks so far, by index.
    blocks: Vec<Value>,
    /// The `partial_json` pieces of each `tool_use` block not stopped yet, by index.
    inputs: Vec<Option<String>>,
    /// Whether text was sent already, so the next text block starts with the newline that
    /// [`parse_response`] puts between blocks.
    has_text: bool,
}

impl MessageStream {
    fn block(&mut self, data: &Value, what: &str) -> Result<usize, ApiError> {
        let index = data
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| malformed(format!("a `{what}` event has no index")))?;
        if index >= self.blocks.len() {
            return Err(malformed(format!(
                "a `{what}` event names block {index}, which was not started"
            )));
        }
        Ok(index)
    }

    fn text(&mut self, text: &str, sink: EventSink<'_>) {
        if !text.is_empty() {
            sink(&AgentEvent::TextDelta(text));
            self.has_text = true;
        }
    }

    /// Parses the input pieces of tool_use block `index`, if it has some pending.
    fn close_input(&mut self, index: usize) -> Result<(), ApiError> {
        let Some(json) = self.inputs.get_mut(index).and_then(Option::take) else {
            return Ok(());
        };
        let input = if json.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(&json).map_err(|e| {
                malformed(format!(
                    "the streamed input of tool_use block {index} is not valid JSON ({e})"
                ))
            })?
        };
        self.blocks[index]["input"] = input;
        Ok(())
    }
}

impl StreamDecoder for MessageStream {
    const LAST_EVENT: &'static str = "message_stop";

    fn event(
        &mut self,
        name: &str,
        data: Option<Value>,
        sink: EventSink<'_>,
    ) -> Result<bool, ApiError> {
        let Some(mut data) = data else {
            return Err(malformed("a `[DONE]` marker in a Messages stream"));
        };
        let kind = match data.get("type").and_then(Value::as_str) {
            Some(kind) => kind.to_owned(),
            None => name.to_owned(),
        };
        if self.message.is_none() && !matches!(kind.as_str(), "message_start" | "ping") {
            return Err(malformed(format!(
                "a `{}` event before `message_start`",
                crate::redact::redact(&kind, "")
            )));
        }
        match kind.as_str() {
            "message_start" => match data.get_mut("message").map(Value::take) {
                Some(message) if message.is_object() => self.message = Some(message),
                _ => return Err(malformed("`message_start` has no message object")),
            },
            "content_block_start" => {
                let index = data.get("index").and_then(Value::as_u64);
                if index != Some(self.blocks.len() as u64) {
                    return Err(malformed(format!(
                        "`content_block_start` for block {index:?}, expected {}",
                        self.blocks.len()
                    )));
                }
                let block = match data.get_mut("content_block").map(Value::take) {
                    Some(block) if block.get("type").is_some_and(Value::is_string) => block,
                    _ => {
                        return Err(malformed(
                            "`content_block_start` has no content block with a type",
                        ));
                    }
                };
                let is_tool = block.get("type").and_then(Value::as_str) == Some("tool_use");
                if block.get("type").and_then(Value::as_str) == Some("text") {
                    if self.has_text {
                        sink(&AgentEvent::TextDelta("\n"));
                    }
                    let start = block.get("text").and_then(Value::as_str).unwrap_or("");
                    self.has_text |= !start.is_empty();
                    if !start.is_empty() {
                        sink(&AgentEvent::TextDelta(start));
                    }
                }
                self.blocks.push(block);
                self.inputs.push(is_tool.then(String::new));
            }
            "content_block_delta" => {
                let index = self.block(&data, "content_block_delta")?;
                let delta = data
                    .get("delta")
                    .filter(|d| d.is_object())
                    .ok_or_else(|| malformed("`content_block_delta` has no delta object"))?;
                let piece = |field: &str| {
                    delta.get(field).and_then(Value::as_str).ok_or_else(|| {
                        malformed(format!("a content block delta has no `{field}` string"))
                    })
                };
                let append =
                    |block: &mut Value, field: &str, piece: &str| match block.get_mut(field) {
                        Some(Value::String(text)) => text.push_str(piece),
                        _ => block[field] = Value::String(piece.to_owned()),
                    };
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        let text = piece("text")?;
                        append(&mut self.blocks[index], "text", text);
                        self.text(text, sink);
                    }
                    Some("input_json_delta") => {
                        let json = piece("partial_json")?;
                        match self.inputs.get_mut(index) {
                            Some(Some(pending)) => pending.push_str(json),
                            _ => {
                                return Err(malformed(format!(
                                    "an `input_json_delta` for block {index}, which takes no input"
                                )));
                            }
                        }
                    }
                    Some("thinking_delta") => {
                        append(&mut self.blocks[index], "thinking", piece("thinking")?);
                    }
                    Some("signature_delta") => {
                        self.blocks[index]["signature"] = json!(piece("signature")?);
                    }
                    Some("citations_delta") => {
                        let citation = delta.get("citation").cloned().unwrap_or(Value::Null);
                        match self.blocks[index].get_mut("citations") {
                            Some(Value::Array(citations)) => citations.push(citation),
                            _ => self.blocks[index]["citations"] = json!([citation]),
                        }
                    }
                    // A delta type added later: skipped.
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = self.block(&data, "content_block_stop")?;
                self.close_input(index)?;
            }
            "message_delta" => {
                let message = self.message.get_or_insert_with(|| json!({}));
                if let Some(Value::Object(delta)) = data.get_mut("delta").map(Value::take) {
                    for (key, value) in delta {
                        message[key.as_str()] = value;
                    }
                }
                // The usage of `message_delta` is cumulative: its counts replace the start's.
                if let Some(Value::Object(usage)) = data.get_mut("usage").map(Value::take) {
                    if !message.get("usage").is_some_and(Value::is_object) {
                        message["usage"] = json!({});
                    }
                    for (key, value) in usage {
                        if !value.is_null() {
                            message["usage"][key.as_str()] = value;
                        }
                    }
                }
            }
            "message_stop" => return Ok(true),
            // `ping`, and event types added later.
            _ => {}
        }
        Ok(false)
    }

    fn finish(mut self) -> Result<Value, ApiError> {
        for index in 0..self.blocks.len() {
            self.close_input(index)?;
        }
        let mut message = self
            .message
            .ok_or_else(|| malformed("the stream had no `message_start`"))?;
        message["content"] = Value::Array(self.blocks);
        Ok(message)
    }
}
