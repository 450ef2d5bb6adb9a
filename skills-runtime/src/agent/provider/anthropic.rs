//! Anthropic Messages: `POST {base}/v1/messages`.
//!
//! The system prompt is one text block with `cache_control: {"type": "ephemeral"}`, so the
//! constant prefix (tools + system) is cached across turns. An assistant turn is echoed back as
//! the exact `content` array received, with block types and fields we do not know. The results
//! of one turn go back as one user message of `tool_result` blocks, in call order.

use std::fmt;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::{
    Endpoint, HttpOptions, Provider, Request, Response, count, encode, key_header, server_error,
};
use crate::agent::BoxFuture;
use crate::agent::conversation::{AssistantTurn, Message, ToolCall, ToolResult, Usage, WireFormat};
use crate::agent::error::{ApiError, ApiErrorKind};

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
    /// [`DEFAULT_MAX_RESPONSE_BYTES`](super::DEFAULT_MAX_RESPONSE_BYTES)); a larger one fails
    /// with [`ApiErrorKind::ResponseTooLarge`] once the limit is crossed.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.http.set_max_response_bytes(bytes);
        self
    }

    /// The request body for `request`, as sent: encoded straight from the conversation, with
    /// no intermediate JSON tree.
    pub fn request_body(&self, request: Request<'_>) -> Result<Vec<u8>, ApiError> {
        encode(
            NAME,
            &WireRequest {
                model: request.model.unwrap_or(&self.model),
                max_tokens: self.max_tokens,
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

    fn complete<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response, ApiError>> {
        let model = request.model.unwrap_or(&self.model);
        let body = self.request_body(request);
        Box::pin(async move { self.http.complete(model, body?, parse_response).await })
    }
}

/// The Messages request body. Fields are written in this order.
#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    max_tokens: u32,
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

pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
