//! The model providers of the two wire formats, on one HTTP client with the retry policy (the
//! [`Provider`](crate::Provider) trait and its types are at the crate root):
//!
//! - [`anthropic::Anthropic`]: Anthropic Messages.
//! - [`openai::OpenAi`]: OpenAI Chat Completions and compatible local servers (llama.cpp,
//!   Ollama, vLLM).
//! - [`scripted::ScriptedModel`]: no model at all, an offline stand-in that drives the loop for
//!   demonstrations and evals without a key (`demo`).
//!
//! [`from_env`] makes one of them from the environment (`ANTHROPIC_API_KEY`,
//! `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `MODEL_ID`), as the example agent
//! and the `skills` command do.
//!
//! What a server can make the HTTP providers do is bounded:
//!
//! - **The key goes to the configured origin only.** Redirects are followed only within the
//!   scheme, host and port of the base URL (at most [`MAX_REDIRECTS`]);
//!   a redirect anywhere else is not followed and fails with
//!   [`ApiErrorKind::Redirect`](crate::ApiErrorKind::Redirect), never retried. (reqwest drops
//!   `Authorization` on a cross-host redirect but would forward Anthropic's `x-api-key`.)
//! - **Bodies are read up to a limit.** A 2xx body larger than
//!   [`DEFAULT_MAX_RESPONSE_BYTES`] (or the provider's
//!   `max_response_bytes`) fails with
//!   [`ApiErrorKind::ResponseTooLarge`](crate::ApiErrorKind::ResponseTooLarge) as soon as the
//!   limit is crossed, while streaming, or before reading when the declared length is over it.
//!   Of an error body only the first [`MAX_ERROR_BODY_BYTES`] are
//!   read.
//! - **Errors and logs never contain the API key.** Every error message and every piece of
//!   server text in a `tracing` event goes through [`redact`](crate::redact).
//!
//! Streaming ([`Request::events`](crate::Request::events) set): both HTTP providers ask for
//! server-sent events and rebuild from them the very body the non-streaming API returns (as the
//! official SDKs' stream helpers do), which the one response parser of each format then reads;
//! text goes to the sink as it arrives. The same bounds hold, and:
//!
//! - **Retries stop at the first byte.** A failure before any byte of a 2xx body is retried as
//!   usual; after it, the stream is not restarted (the caller has seen text).
//! - **A stream cut short is an error.** A body that ends before the format's last event
//!   (`message_stop`, `data: [DONE]`) fails with
//!   [`ApiErrorKind::Transport`](crate::ApiErrorKind::Transport), an event that is not the JSON
//!   the format defines with
//!   [`ApiErrorKind::MalformedResponse`](crate::ApiErrorKind::MalformedResponse), an `error`
//!   event as any error body; nothing of such a reply is returned.
//! - **An idle stream times out.** No byte for
//!   [`HttpOptions::timeout`](crate::HttpOptions::timeout) fails with
//!   [`ApiErrorKind::Transport`](crate::ApiErrorKind::Transport); a stream that keeps sending
//!   is not cut by the timeout.

pub mod anthropic;
pub(crate) mod api;
pub(crate) mod http;
pub(crate) mod json;
pub mod openai;
pub mod scripted;
mod select;
mod sse;

pub use http::{DEFAULT_MAX_RESPONSE_BYTES, MAX_ERROR_BODY_BYTES, MAX_REDIRECTS};
pub use select::{
    DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, ProviderKind, SelectError, Selected, env_var,
    from_env, select,
};
