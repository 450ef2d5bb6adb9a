//! Typed errors: [`ApiError`] for a model request, [`AgentError`] for a run.
//!
//! No error here ever holds the API key: messages are built from the status, the server's own
//! error text (with the key masked if a server echoes it) and reqwest's description of the
//! failure, which names the URL but never the headers.

use std::fmt;
use std::time::Duration;

use super::conversation::Usage;

/// What class of failure a model request hit. Decides whether it is retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApiErrorKind {
    /// 401 or 403: the key is missing, wrong or lacks permission. Never retried.
    Authentication,
    /// 429: too many requests. Retried.
    RateLimit,
    /// 529 (Anthropic's "overloaded"), or an `overloaded_error` body. Retried.
    Overloaded,
    /// Another 5xx. Retried.
    Server,
    /// 408 or 409: request timeout or conflict on the server side. Retried.
    Conflict,
    /// 400, 404, 413, 422 and every other 4xx: the request itself is wrong. Never retried.
    InvalidRequest,
    /// The connection failed, was reset, or timed out. Retried.
    Transport,
    /// The server answered 2xx with a body we cannot use (not JSON, truncated, wrong shape).
    MalformedResponse,
}

impl ApiErrorKind {
    /// A short lowercase label, as used in messages and logs.
    pub fn label(self) -> &'static str {
        match self {
            ApiErrorKind::Authentication => "authentication failed",
            ApiErrorKind::RateLimit => "rate limited",
            ApiErrorKind::Overloaded => "overloaded",
            ApiErrorKind::Server => "server error",
            ApiErrorKind::Conflict => "request timeout or conflict",
            ApiErrorKind::InvalidRequest => "invalid request",
            ApiErrorKind::Transport => "transport error",
            ApiErrorKind::MalformedResponse => "malformed response",
        }
    }
}

/// A failed model request, after any retries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    kind: ApiErrorKind,
    provider: &'static str,
    status: Option<u16>,
    message: String,
    retries: u32,
    retry_after: Option<Duration>,
}

impl ApiError {
    /// A new error. `message` must not contain secrets; providers pass it through
    /// [`redact`] first.
    pub fn new(kind: ApiErrorKind, provider: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            provider,
            status: None,
            message: message.into(),
            retries: 0,
            retry_after: None,
        }
    }

    /// Sets the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Records how many retries were made before giving up.
    pub fn with_retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// Records the delay the server asked for, if any.
    pub fn with_retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.retry_after = retry_after;
        self
    }

    /// The class of failure.
    pub fn kind(&self) -> ApiErrorKind {
        self.kind
    }

    /// Which provider failed (`anthropic`, `openai`, ...).
    pub fn provider(&self) -> &'static str {
        self.provider
    }

    /// The HTTP status, when the server answered.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// What the server (or the transport) said.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// How many retries were made before this error was returned.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The delay the server asked for in its last answer (`retry-after-ms` / `retry-after`).
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// 401 or 403.
    pub fn is_authentication(&self) -> bool {
        self.kind == ApiErrorKind::Authentication
    }

    /// 429.
    pub fn is_rate_limit(&self) -> bool {
        self.kind == ApiErrorKind::RateLimit
    }

    /// 529 or an `overloaded_error`.
    pub fn is_overloaded(&self) -> bool {
        self.kind == ApiErrorKind::Overloaded
    }

    /// A 4xx other than 401/403/408/409/429: the request is wrong and retrying will not help.
    pub fn is_invalid_request(&self) -> bool {
        self.kind == ApiErrorKind::InvalidRequest
    }

    /// Connection refused or reset, DNS failure, timeout.
    pub fn is_transport(&self) -> bool {
        self.kind == ApiErrorKind::Transport
    }

    /// A 2xx answer whose body is not the JSON we expect.
    pub fn is_malformed_response(&self) -> bool {
        self.kind == ApiErrorKind::MalformedResponse
    }

    /// A 5xx other than 529.
    pub fn is_server(&self) -> bool {
        self.kind == ApiErrorKind::Server
    }

    /// Whether the retry policy considers this class retryable (before looking at headers).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind,
            ApiErrorKind::RateLimit
                | ApiErrorKind::Overloaded
                | ApiErrorKind::Server
                | ApiErrorKind::Conflict
                | ApiErrorKind::Transport
        )
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} API: {}", self.provider, self.kind.label())?;
        if let Some(status) = self.status {
            write!(f, " (HTTP {status})")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        if self.retries > 0 {
            let s = if self.retries == 1 { "y" } else { "ies" };
            write!(f, " [after {} retr{s}]", self.retries)?;
        }
        if self.kind == ApiErrorKind::Authentication {
            f.write_str(" (check the API key environment variable)")?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}

/// The class of an HTTP status, as the official SDKs map them.
pub fn kind_for_status(status: u16) -> ApiErrorKind {
    match status {
        401 | 403 => ApiErrorKind::Authentication,
        408 | 409 => ApiErrorKind::Conflict,
        429 => ApiErrorKind::RateLimit,
        529 => ApiErrorKind::Overloaded,
        500..=599 => ApiErrorKind::Server,
        _ => ApiErrorKind::InvalidRequest,
    }
}

/// `text` with every occurrence of `secret` replaced, and cut to a readable length. Used on
/// anything a server sends back before it goes into an error, in case the server echoes the key.
pub fn redact(text: &str, secret: &str) -> String {
    const MAX: usize = 2_000;
    let mut out = if secret.len() >= 4 {
        text.replace(secret, "[redacted]")
    } else {
        text.to_owned()
    };
    if out.len() > MAX {
        let mut cut = MAX;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("...");
    }
    out
}

/// Why an agent run stopped without a final answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum AgentError {
    /// The model request failed (after retries). The conversation keeps every message so far.
    Api(ApiError),
    /// The model was still calling tools after `max_turns` requests.
    TurnLimit {
        /// The configured limit.
        max_turns: u32,
        /// Tokens used by the run up to the limit.
        usage: Usage,
    },
    /// The agent was configured wrongly (for example, a tool name in a policy that no tool has).
    Config(String),
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Api(error) => error.fmt(f),
            AgentError::TurnLimit { max_turns, .. } => write!(
                f,
                "turn limit reached: the model was still calling tools after {max_turns} \
                 requests; raise the limit (--max-turns) or narrow the task"
            ),
            AgentError::Config(message) => write!(f, "agent configuration: {message}"),
        }
    }
}

impl std::error::Error for AgentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AgentError::Api(error) => Some(error),
            _ => None,
        }
    }
}

impl From<ApiError> for AgentError {
    fn from(error: ApiError) -> Self {
        AgentError::Api(error)
    }
}

impl AgentError {
    /// Whether this is the turn limit.
    pub fn is_turn_limit(&self) -> bool {
        matches!(self, AgentError::TurnLimit { .. })
    }

    /// The API error, if the run failed on a model request.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            AgentError::Api(error) => Some(error),
            _ => None,
        }
    }
}
