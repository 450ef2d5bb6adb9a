//! Model providers: the [`Provider`] trait, the wire formats and the shared HTTP + retry code.
//!
//! - [`anthropic::Anthropic`]: Anthropic Messages.
//! - [`openai::OpenAi`]: OpenAI Chat Completions and compatible local servers (llama.cpp,
//!   Ollama, vLLM).
//! - [`demo::Demo`]: an offline scripted model for trying the loop without a key.

pub mod anthropic;
pub mod demo;
pub mod openai;

use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;
use skills_core::render;

use super::conversation::{AssistantTurn, Message, Usage};
use super::error::{ApiError, ApiErrorKind, kind_for_status, redact};
use super::retry::{BoxFuture, RetryPolicy};

/// The tools of an agent, rendered once in both wire shapes so every request sends the very same
/// bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolDefinitions {
    names: Vec<String>,
    anthropic: Vec<Value>,
    openai: Vec<Value>,
}

impl ToolDefinitions {
    /// No tools.
    pub fn new() -> Self {
        ToolDefinitions::default()
    }

    /// Adds a tool from its name, description and JSON schema, rendered in both shapes by
    /// [`render::tool_anthropic`] and [`render::tool_openai`], as the registry renders
    /// `load_skill`.
    pub fn push(
        &mut self,
        name: &str,
        description: &str,
        input_schema: &Value,
    ) -> Result<(), serde_json::Error> {
        let schema = input_schema.to_string();
        self.push_rendered(
            name,
            &render::tool_anthropic(name, description, &schema),
            &render::tool_openai(name, description, &schema),
        )
    }

    /// Adds a tool whose two shapes are already rendered as JSON text (the `load_skill` tool,
    /// whose JSON the registry computed at build time).
    pub fn push_rendered(
        &mut self,
        name: &str,
        anthropic: &str,
        openai: &str,
    ) -> Result<(), serde_json::Error> {
        let anthropic = serde_json::from_str(anthropic)?;
        let openai = serde_json::from_str(openai)?;
        self.anthropic.push(anthropic);
        self.openai.push(openai);
        self.names.push(name.to_owned());
        Ok(())
    }

    /// The tool names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The Anthropic shapes (`name`, `description`, `input_schema`).
    pub fn anthropic(&self) -> &[Value] {
        &self.anthropic
    }

    /// The OpenAI shapes (`type: function`, `function.parameters`).
    pub fn openai(&self) -> &[Value] {
        &self.openai
    }

    /// Whether a tool called `name` is offered.
    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// What the loop asks a provider for: the next assistant turn.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The system prompt (preamble + catalog + `load_skill` sentence); identical every turn.
    pub system: &'a str,
    /// The tools offered; identical every turn.
    pub tools: &'a ToolDefinitions,
    /// The conversation so far.
    pub messages: &'a [Message],
}

/// A provider's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The assistant turn, with its raw JSON for echoing.
    pub turn: AssistantTurn,
    /// Tokens of this request (`requests` is 1).
    pub usage: Usage,
    /// Retries made before this answer.
    pub retries: u32,
}

/// A model behind an API.
///
/// Object-safe so an agent can hold `Box<dyn Provider>` picked at run time.
pub trait Provider: Send + Sync {
    /// Short name for logs and errors (`anthropic`, `openai`, `demo`).
    fn name(&self) -> &'static str;
    /// The model id sent with each request.
    fn model(&self) -> &str;
    /// Produces the next assistant turn.
    fn complete<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response, ApiError>>;
}

/// HTTP settings shared by the HTTP providers.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Whole-request timeout (default 600 s, as the SDKs).
    pub timeout: Duration,
    /// Connect timeout (default 10 s).
    pub connect_timeout: Duration,
    /// Retry policy.
    pub retry: RetryPolicy,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            timeout: Duration::from_secs(600),
            connect_timeout: Duration::from_secs(10),
            retry: RetryPolicy::default(),
        }
    }
}

impl HttpOptions {
    fn client(&self) -> Result<reqwest::Client, ApiError> {
        reqwest::Client::builder()
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .user_agent(concat!("skills-runtime/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                ApiError::new(
                    ApiErrorKind::Transport,
                    "http",
                    format!("cannot build the HTTP client: {e}"),
                )
            })
    }
}

/// Where and how an HTTP provider sends its requests: the client, the URL and the headers (key
/// included) are built once, at construction, and reused on every turn.
pub(crate) struct Endpoint {
    provider: &'static str,
    client: reqwest::Client,
    retry: RetryPolicy,
    url: String,
    path: &'static str,
    headers: HeaderMap,
    /// The API key, masked in anything that ends up in an error (empty when there is none).
    secret: String,
}

impl Endpoint {
    /// An endpoint at `{base_url}{path}` (a trailing `/` of the base is dropped, so there is
    /// exactly one slash).
    pub(crate) fn new(
        provider: &'static str,
        base_url: &str,
        path: &'static str,
        headers: HeaderMap,
        secret: String,
        options: HttpOptions,
    ) -> Result<Self, ApiError> {
        Ok(Endpoint {
            provider,
            client: options.client()?,
            retry: options.retry,
            url: format!("{}{path}", base_url.trim_end_matches('/')),
            path,
            headers,
            secret,
        })
    }

    /// The base URL, as configured (without a trailing `/`).
    pub(crate) fn base_url(&self) -> &str {
        &self.url[..self.url.len() - self.path.len()]
    }

    /// Whether requests carry an API key.
    pub(crate) fn has_key(&self) -> bool {
        !self.secret.is_empty()
    }

    /// POSTs the encoded `body` with the retry policy, reads the 2xx answer with `parse` and
    /// emits the `model request` event.
    pub(crate) async fn complete(
        &self,
        model: &str,
        body: Vec<u8>,
        parse: impl FnOnce(Value) -> Result<Response, ApiError>,
    ) -> Result<Response, ApiError> {
        let (value, retries) = self.post_json(body).await?;
        let mut response = parse(value).map_err(|e| e.with_retries(retries).with_status(200))?;
        response.retries = retries;
        log_response(self.provider, model, &response);
        Ok(response)
    }

    /// POSTs `body` with the retry policy; returns the parsed JSON of a 2xx answer and the
    /// number of retries made.
    async fn post_json(&self, body: Vec<u8>) -> Result<(Value, u32), ApiError> {
        let (provider, policy, secret) = (self.provider, &self.retry, self.secret.as_str());
        let mut retry = 0u32;
        loop {
            let started = Instant::now();
            let result = self
                .client
                .post(&self.url)
                .headers(self.headers.clone())
                .body(body.clone())
                .send()
                .await;
            let (error, wait_headers) = match result {
                Err(e) => (transport_error(provider, &e, secret), None),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let response_headers = response.headers().clone();
                    match response.bytes().await {
                        Err(e) => (
                            transport_error(provider, &e, secret).with_status(status),
                            Some(response_headers),
                        ),
                        Ok(bytes) if (200..300).contains(&status) => {
                            tracing::debug!(
                                provider,
                                status,
                                bytes = bytes.len(),
                                elapsed_ms = started.elapsed().as_millis() as u64,
                                "model response received"
                            );
                            return match serde_json::from_slice::<Value>(&bytes) {
                                Ok(value) => Ok((value, retry)),
                                Err(e) => Err(ApiError::new(
                                    ApiErrorKind::MalformedResponse,
                                    provider,
                                    format!(
                                        "the body is not valid JSON ({e}); it starts with: {}",
                                        redact(&preview(&bytes), secret)
                                    ),
                                )
                                .with_status(status)
                                .with_retries(retry)),
                            };
                        }
                        Ok(bytes) => {
                            let mut kind = kind_for_status(status);
                            let (error_type, message) = error_body(&bytes);
                            if error_type.as_deref() == Some("overloaded_error") {
                                kind = ApiErrorKind::Overloaded;
                            }
                            let error = ApiError::new(kind, provider, redact(&message, secret))
                                .with_status(status)
                                .with_retry_after(policy.server_delay(&response_headers));
                            if !policy.should_retry_status(status, &response_headers) {
                                return Err(error.with_retries(retry));
                            }
                            (error, Some(response_headers))
                        }
                    }
                }
            };
            if retry >= policy.max_retries {
                return Err(error.with_retries(retry));
            }
            let delay = policy.delay(retry, wait_headers.as_ref());
            tracing::warn!(
                provider,
                status = error.status().unwrap_or(0),
                kind = error.kind().label(),
                retry = retry + 1,
                delay_ms = delay.as_millis() as u64,
                "model request failed; retrying"
            );
            (policy.sleeper)(delay).await;
            retry += 1;
        }
    }
}

/// `body` as JSON bytes.
pub(crate) fn encode(
    provider: &'static str,
    body: &impl serde::Serialize,
) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(body).map_err(|e| {
        ApiError::new(
            ApiErrorKind::InvalidRequest,
            provider,
            format!("encoding: {e}"),
        )
    })
}

/// A header value holding the API key, marked sensitive; an `Authentication` error when the key
/// cannot be sent in a header.
pub(crate) fn key_header(provider: &'static str, value: &str) -> Result<HeaderValue, ApiError> {
    let mut header = HeaderValue::from_str(value).map_err(|_| {
        ApiError::new(
            ApiErrorKind::Authentication,
            provider,
            "the API key contains characters not allowed in an HTTP header",
        )
    })?;
    header.set_sensitive(true);
    Ok(header)
}

fn transport_error(provider: &'static str, error: &reqwest::Error, secret: &str) -> ApiError {
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_body() || error.is_decode() {
        "the response body was cut off"
    } else {
        "request failed"
    };
    // reqwest's Display names the URL (never headers); the chain carries the cause.
    let mut message = format!("{what}: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    ApiError::new(ApiErrorKind::Transport, provider, redact(&message, secret))
}

/// The `error.type` and the best message from an error body (`{"error": {"type", "message"}}`
/// on both APIs), else the body text itself.
fn error_body(bytes: &[u8]) -> (Option<String>, String) {
    if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
        let error = value.get("error").unwrap_or(&value);
        let kind = error.get("type").and_then(Value::as_str).map(str::to_owned);
        let message = match error {
            Value::String(s) => Some(s.clone()),
            _ => error
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        };
        if let Some(message) = message {
            let message = match &kind {
                Some(kind) => format!("{kind}: {message}"),
                None => message,
            };
            return (kind, message);
        }
    }
    (None, preview(bytes))
}

fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]);
    text.trim().to_owned()
}

/// A count from a JSON usage object (missing or non-numeric fields count as 0).
pub(crate) fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The `model request` event every provider emits after a successful call.
fn log_response(provider: &str, model: &str, response: &Response) {
    tracing::info!(
        provider,
        model,
        input_tokens = response.usage.input_tokens,
        output_tokens = response.usage.output_tokens,
        cache_read_tokens = response.usage.cache_read_tokens,
        retries = response.retries,
        tool_calls = response.turn.tool_calls.len(),
        "model request"
    );
}
