//! OpenAI-compatible Chat Completions: `POST {base}/chat/completions`.
//!
//! Also the way to reach local servers (llama.cpp, Ollama, vLLM), which differ from OpenAI in
//! small ways this module tolerates: tool arguments as a JSON string *or* an object (or an empty
//! string), tool calls without ids (one is invented), `finish_reason: "stop"` next to tool calls
//! (the presence of `tool_calls` is what counts), a missing `usage`, unknown fields anywhere.
//!
//! An assistant turn is sent back normalized (ids filled in, arguments as a JSON string, only
//! the fields the API defines), because some servers reject their own extra fields on input.
//!
//! Streamed (`stream: true`, with `stream_options: {"include_usage": true}`), the reply comes as
//! `data:` chunks: `choices[0].delta.content` pieces of text, `delta.tool_calls` pieces keyed by
//! `index` (the id and name first, the arguments string in any number of pieces, several calls
//! interleaved), `finish_reason`, then a chunk with `usage` and no choices, then `data: [DONE]`.
//! The completion is rebuilt from them and read by [`parse_response`] like a non-streamed one.
//! Servers that leave out `index` are followed by call id, else the last call continues.

use std::borrow::Cow;
use std::fmt;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::api::{Provider, Request, Response};
use super::http::{Endpoint, HttpOptions, StreamDecoder, encode, key_header};
use super::json::{count, server_error, type_name};
use crate::BoxFuture;
use crate::conversation::{AssistantTurn, Message, ToolCall, Usage, WireFormat};
use crate::error::{ApiError, ApiErrorKind};
use crate::events::{AgentEvent, EventSink};
use crate::redact::Redactor;

/// The public endpoint, used when `OPENAI_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

const NAME: &str = "openai";

/// The OpenAI-compatible Chat Completions provider.
pub struct OpenAi {
    model: String,
    max_tokens: Option<u32>,
    http: Endpoint,
}

impl fmt::Debug for OpenAi {
    // Hand-written so the key never reaches a log through `{:?}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAi")
            .field("base_url", &self.http.base_url())
            .field("model", &self.model)
            .field("api_key", &self.http.has_key().then_some("[redacted]"))
            .finish_non_exhaustive()
    }
}

impl OpenAi {
    /// A provider for `model` at `base_url` (`https://api.openai.com/v1` or a local server's
    /// `http://127.0.0.1:8080/v1`). `api_key` may be `None` for local servers.
    pub fn new(
        api_key: Option<String>,
        model: impl Into<String>,
        base_url: &str,
        options: HttpOptions,
    ) -> Result<Self, ApiError> {
        let api_key = api_key.unwrap_or_default();
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if !api_key.is_empty() {
            headers.insert(
                AUTHORIZATION,
                key_header(NAME, &format!("Bearer {api_key}"))?,
            );
        }
        Ok(OpenAi {
            http: Endpoint::new(
                NAME,
                base_url,
                "/chat/completions",
                headers,
                api_key,
                options,
            )?,
            model: model.into(),
            max_tokens: None,
        })
    }

    /// Sends `max_tokens` with each request (left out by default: newer OpenAI models reject
    /// it in favour of `max_completion_tokens`, and local servers have their own defaults).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
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
    /// no intermediate JSON tree; `"stream": true` and `stream_options` when the request has
    /// an event sink.
    pub fn request_body(&self, request: Request<'_>) -> Result<Vec<u8>, ApiError> {
        let stream = request.events.is_some();
        encode(
            NAME,
            &WireRequest {
                model: request.model.unwrap_or(&self.model),
                messages: WireMessages {
                    system: request.system,
                    messages: request.messages,
                },
                tools: request.tools.openai(),
                max_tokens: self.max_tokens,
                reasoning_effort: request.effort.map(reasoning_effort),
                stream,
                stream_options: stream.then_some(StreamOptions {
                    include_usage: true,
                }),
            },
        )
    }
}

impl Provider for OpenAi {
    fn name(&self) -> &'static str {
        NAME
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn max_output_tokens(&self) -> Option<u32> {
        self.max_tokens
    }

    fn redactor(&self) -> Redactor {
        self.http.redactor().clone()
    }

    fn complete<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response, ApiError>> {
        // Invented tool-call ids are numbered by turn, so they stay unique in a conversation.
        let turn_number = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant(_)))
            .count();
        let model = request.model.unwrap_or(&self.model);
        let body = self.request_body(request);
        let stream = request.events.map(|sink| (ChunkStream::default(), sink));
        Box::pin(async move {
            let parse = move |value| parse_response(value, turn_number);
            self.http.complete(model, body?, stream, parse).await
        })
    }
}

/// Chat Completions' `reasoning_effort` for a skill's effort: the same word, but `max`, which
/// the API does not know, becomes its highest level.
fn reasoning_effort(effort: skills_bundle::Effort) -> &'static str {
    match effort {
        skills_bundle::Effort::Max => "xhigh",
        other => other.as_str(),
    }
}

/// The Chat Completions request body. Fields are written in this order.
#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: WireMessages<'a>,
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    tools: &'a [Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

/// Asks for the usage chunk at the end of a stream.
#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// The system prompt as the first message, then the conversation.
struct WireMessages<'a> {
    system: &'a str,
    messages: &'a [Message],
}

/// One message in the Chat Completions wire format.
#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: &'a str,
    },
    Assistant {
        // `content: null` is what OpenAI sends with tool calls; some servers reject a missing
        // key, so it is always present.
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "<[_]>::is_empty", serialize_with = "wire_calls")]
        tool_calls: &'a [ToolCall],
    },
    Tool {
        tool_call_id: &'a str,
        content: Cow<'a, str>,
    },
}

impl Serialize for WireMessages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        seq.serialize_element(&WireMessage::System {
            content: self.system,
        })?;
        for message in self.messages {
            match message {
                Message::User(text) => {
                    seq.serialize_element(&WireMessage::User { content: text })?
                }
                // Sent back normalized: ids filled in, arguments as a JSON string, only the
                // fields the API defines.
                Message::Assistant(turn) => seq.serialize_element(&WireMessage::Assistant {
                    content: (turn.tool_calls.is_empty() || !turn.text.is_empty())
                        .then_some(turn.text.as_str()),
                    tool_calls: &turn.tool_calls,
                })?,
                // One `tool` message per result, in call order.
                Message::ToolResults(results) => {
                    for result in results {
                        seq.serialize_element(&WireMessage::Tool {
                            tool_call_id: &result.call_id,
                            // Chat Completions has no error flag: the text says it.
                            content: if result.is_error {
                                Cow::Owned(format!("Error: {}", result.content))
                            } else {
                                Cow::Borrowed(&result.content)
                            },
                        })?;
                    }
                }
            }
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    arguments: String,
}

fn wire_calls<S: Serializer>(calls: &&[ToolCall], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(calls.iter().map(|call| WireCall {
        id: &call.id,
        kind: "function",
        function: WireFunction {
            name: &call.name,
            arguments: call.input.to_string(),
        },
    }))
}

fn malformed(message: impl Into<String>) -> ApiError {
    ApiError::new(ApiErrorKind::MalformedResponse, NAME, message)
}

/// Reads a Chat Completions response. `turn_number` makes invented tool-call ids unique within
/// a conversation.
pub fn parse_response(mut value: Value, turn_number: usize) -> Result<Response, ApiError> {
    if let Some((_, message)) = server_error(&value) {
        // The providers catch these before parsing (to mask the key); a direct caller still
        // gets an error, bounded by `ApiError::new`.
        return Err(malformed(format!(
            "the server answered with an error: {message}"
        )));
    }
    let mut choice = match value.get_mut("choices") {
        Some(Value::Array(choices)) if !choices.is_empty() => choices.swap_remove(0),
        Some(Value::Array(_)) => return Err(malformed("`choices` is empty")),
        Some(other) => {
            return Err(malformed(format!(
                "`choices` is not an array but {}",
                type_name(other)
            )));
        }
        None => return Err(malformed("no `choices` in the response")),
    };
    let finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let message = match choice.get_mut("message").map(Value::take) {
        Some(message) if message.is_object() => message,
        _ => return Err(malformed("the first choice has no `message` object")),
    };
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        // Some servers send content as a list of parts.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").filter(|c| !c.is_null()) {
        let calls = calls
            .as_array()
            .ok_or_else(|| malformed("`tool_calls` is not an array"))?;
        for (index, call) in calls.iter().enumerate() {
            let function = call.get("function").unwrap_or(call);
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| malformed(format!("tool call {index} has no function name")))?;
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
                .map(str::to_owned)
                .unwrap_or_else(|| format!("call_{turn_number}_{index}"));
            let input = match function.get("arguments") {
                Some(Value::String(s)) if s.trim().is_empty() => json!({}),
                Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                    Ok(v) => v,
                    // Kept as a string: the tool reports the bad input to the model, which
                    // can correct itself, instead of the whole run failing.
                    Err(_) => Value::String(s.clone()),
                },
                Some(Value::Null) | None => json!({}),
                Some(other) => other.clone(),
            };
            tool_calls.push(ToolCall {
                id,
                name: name.to_owned(),
                input,
            });
        }
    }
    let usage_value = value.get("usage").unwrap_or(&Value::Null);
    let usage = Usage {
        input_tokens: count(usage_value, "prompt_tokens"),
        output_tokens: count(usage_value, "completion_tokens"),
        cache_read_tokens: usage_value
            .pointer("/prompt_tokens_details/cached_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        cache_creation_tokens: 0,
        requests: 1,
    };
    Ok(Response {
        turn: AssistantTurn {
            text,
            tool_calls,
            raw: Some((WireFormat::OpenAi, message)),
            stop_reason: finish_reason,
        },
        usage,
        retries: 0,
    })
}

/// Rebuilds a Chat Completions response from its stream chunks (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct ChunkStream {
    text: String,
    calls: Vec<StreamedCall>,
    finish_reason: Option<Value>,
    usage: Option<Value>,
    /// Whether any chunk carried the first choice: a stream without one is malformed, as a
    /// whole response with no choices is.
    saw_choice: bool,
}

/// A tool call assembled from its pieces.
#[derive(Debug)]
struct StreamedCall {
    index: u64,
    id: String,
    name: String,
    arguments: String,
}

impl ChunkStream {
    /// Adds the pieces of `delta.tool_calls` to the calls they belong to.
    fn tool_pieces(&mut self, pieces: &[Value]) -> Result<(), ApiError> {
        for piece in pieces {
            let function = piece.get("function").unwrap_or(&Value::Null);
            let id = piece.get("id").and_then(Value::as_str).unwrap_or("");
            let name = function.get("name").and_then(Value::as_str).unwrap_or("");
            let found = match piece.get("index").and_then(Value::as_u64) {
                Some(index) => self.calls.iter().position(|c| c.index == index),
                None if !id.is_empty() => self.calls.iter().position(|c| c.id == id),
                None if !name.is_empty() => None,
                None => self.calls.len().checked_sub(1),
            };
            let position = match found {
                Some(position) => position,
                None => {
                    let index = piece
                        .get("index")
                        .and_then(Value::as_u64)
                        .unwrap_or(self.calls.len() as u64);
                    self.calls.push(StreamedCall {
                        index,
                        id: String::new(),
                        name: String::new(),
                        arguments: String::new(),
                    });
                    self.calls.len() - 1
                }
            };
            let call = &mut self.calls[position];
            if call.id.is_empty() {
                id.clone_into(&mut call.id);
            }
            // Some servers repeat the name with every piece; others could split it.
            if call.name != name {
                call.name.push_str(name);
            }
            match function.get("arguments") {
                Some(Value::String(piece)) => call.arguments.push_str(piece),
                Some(Value::Null) | None => {}
                // Arguments sent whole, as an object.
                Some(other) if call.arguments.is_empty() => call.arguments = other.to_string(),
                Some(_) => {
                    return Err(malformed(
                        "a tool call's arguments come as an object after string pieces",
                    ));
                }
            }
        }
        Ok(())
    }
}

impl StreamDecoder for ChunkStream {
    const LAST_EVENT: &'static str = "data: [DONE]";

    fn event(
        &mut self,
        _name: &str,
        data: Option<Value>,
        sink: EventSink<'_>,
    ) -> Result<bool, ApiError> {
        let Some(chunk) = data else {
            return Ok(true);
        };
        if !chunk.is_object() {
            return Err(malformed(format!(
                "a stream chunk is {}, not an object",
                type_name(&chunk)
            )));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        let choices = match chunk.get("choices") {
            Some(Value::Array(choices)) => choices.as_slice(),
            Some(Value::Null) | None => &[],
            Some(other) => {
                return Err(malformed(format!(
                    "`choices` of a stream chunk is {}, not an array",
                    type_name(other)
                )));
            }
        };
        // The first choice only, as for a whole response.
        let Some(choice) = choices
            .iter()
            .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        else {
            return Ok(false);
        };
        self.saw_choice = true;
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(reason.clone());
        }
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            self.text.push_str(text);
            sink(&AgentEvent::TextDelta(text));
        }
        match delta.get("tool_calls") {
            Some(Value::Array(pieces)) => self.tool_pieces(pieces)?,
            Some(Value::Null) | None => {}
            Some(other) => {
                return Err(malformed(format!(
                    "`delta.tool_calls` is {}, not an array",
                    type_name(other)
                )));
            }
        }
        Ok(false)
    }

    fn finish(mut self) -> Result<Value, ApiError> {
        if !self.saw_choice {
            return Err(malformed(
                "the stream ended without a choice (no `choices` in any chunk)",
            ));
        }
        self.calls.sort_by_key(|c| c.index);
        let mut message = json!({
            "role": "assistant",
            "content": if self.text.is_empty() && !self.calls.is_empty() {
                Value::Null
            } else {
                Value::String(self.text)
            },
        });
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .into_iter()
                .map(|call| {
                    let mut wire = json!({
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    });
                    if !call.id.is_empty() {
                        wire["id"] = Value::String(call.id);
                    }
                    wire
                })
                .collect();
            message["tool_calls"] = Value::Array(calls);
        }
        let mut completion = json!({
            "object": "chat.completion",
            "choices": [{
                "index": 0,
                "message": message,
                "finish_reason": self.finish_reason.unwrap_or(Value::Null),
            }],
        });
        if let Some(usage) = self.usage {
            completion["usage"] = usage;
        }
        Ok(completion)
    }
}
