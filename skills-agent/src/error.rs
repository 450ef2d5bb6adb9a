//! Typed errors: [`ApiError`] for a model request, [`AgentError`] for a run.
//!
//! No error here ever holds the API key: messages are built from the status, the server's own
//! error text and reqwest's description of the failure (which names the URL but never the
//! headers), and every message goes through [`redact`], which masks the key and anything shaped
//! like one, and bounds the length. The same function cleans the server text that reaches a
//! `tracing` event.

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
    /// The server redirected to another origin (scheme, host or port), or too often. Not
    /// followed, so the key is never sent anywhere but the configured base URL. Never retried.
    Redirect,
    /// The response body is larger than the provider's limit
    /// ([`DEFAULT_MAX_RESPONSE_BYTES`](super::provider::DEFAULT_MAX_RESPONSE_BYTES) unless
    /// set otherwise); reading stopped at the limit. Never retried.
    ResponseTooLarge,
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
            ApiErrorKind::Redirect => "redirect refused",
            ApiErrorKind::ResponseTooLarge => "response too large",
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
    /// A new error. `message` goes through [`redact`] (without a key: what looks like a key or
    /// a bearer token is masked, the length is bounded); providers, which know the key, pass
    /// server text through [`redact`] with it before building the error.
    pub fn new(kind: ApiErrorKind, provider: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            provider,
            status: None,
            message: redact(&message.into(), ""),
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

    /// A redirect to another origin (or too many redirects), refused.
    pub fn is_redirect(&self) -> bool {
        self.kind == ApiErrorKind::Redirect
    }

    /// A response body over the size limit.
    pub fn is_response_too_large(&self) -> bool {
        self.kind == ApiErrorKind::ResponseTooLarge
    }

    /// The same error with `secret` masked in its message (the providers apply it to every
    /// error they return, whoever built it).
    pub(crate) fn redact_secret(mut self, secret: &str) -> Self {
        self.message = redact(&self.message, secret);
        self
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

/// The longest text [`redact`] returns, in bytes.
pub const MAX_ERROR_TEXT: usize = 2_000;

/// How much of a long text [`redact`] looks at, in bytes: enough to fill [`MAX_ERROR_TEXT`]
/// even when much of it is masked, without scanning a whole response body. Smaller than the
/// part of an error body that is read, so a body cut there is cut again here, word-aware.
pub(crate) const SCAN_LIMIT: usize = 16 * 1024;

/// What replaces a masked secret.
const MASK: &str = "[redacted]";

/// `text` made safe for an error message or a log line. The one function every piece of
/// server-provided text (and every transport message) goes through before it reaches an
/// [`ApiError`] or a `tracing` event:
///
/// - every occurrence of `secret` (the API key; nothing when empty) becomes `[redacted]`;
/// - so does anything shaped like a key or a bearer token, whoever it belongs to: a word
///   starting with `sk-` followed by at least 8 key characters, and a token of at least 8
///   characters after `Bearer ` (any case);
/// - control characters (newlines, escape sequences) become spaces, so a server cannot forge
///   log lines or drive a terminal;
/// - the result is at most [`MAX_ERROR_TEXT`] bytes. A cut drops the word it falls in, so a
///   key cut in half by the limit leaves nothing of itself behind.
///
/// The key is masked before the text is cut, and applying `redact` twice changes nothing.
pub fn redact(text: &str, secret: &str) -> String {
    redact_to(text, secret, MAX_ERROR_TEXT)
}

/// [`redact`] with another length bound (`max` bytes, at least 3).
pub(crate) fn redact_to(text: &str, secret: &str, max: usize) -> String {
    let text = cut(text, SCAN_LIMIT, "");
    let text = if secret.is_empty() {
        text
    } else {
        text.replace(secret, MASK)
    };
    let masked = mask_tokens(&text);
    let clean: String = masked
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cut(&clean, max.max(3), "...")
}

/// `text` if it fits in `max` bytes; else its start, minus the word the cut falls in, then
/// `ellipsis`, in at most `max` bytes.
fn cut(text: &str, max: usize, ellipsis: &str) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max - ellipsis.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    // A word cut in two (possibly a key) is dropped whole.
    let kept = text[..end].trim_end_matches(|c: char| !c.is_whitespace());
    format!("{kept}{ellipsis}")
}

/// Characters of a key or token (`sk-...`, base64, JWTs).
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '=')
}

/// `text` with `sk-` keys and `Bearer` tokens replaced by [`MASK`].
fn mask_tokens(text: &str) -> String {
    // Shorter words are ordinary words ("sk-learn", "a bearer of news").
    const MIN_KEY_TAIL: usize = 8;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut previous: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let at_word_start = previous.is_none_or(|p| !is_token_char(p));
        if at_word_start && rest.starts_with("sk-") {
            let tail = rest[3..]
                .find(|c: char| !is_token_char(c))
                .unwrap_or(rest.len() - 3);
            if tail >= MIN_KEY_TAIL {
                out.push_str(MASK);
                rest = &rest[3 + tail..];
                previous = Some('x');
                continue;
            }
        }
        if at_word_start
            && rest.len() > 7
            && rest.is_char_boundary(7)
            && rest[..7].eq_ignore_ascii_case("bearer ")
        {
            let after = rest[7..].trim_start_matches(' ');
            let token = after
                .find(|c: char| !is_token_char(c))
                .unwrap_or(after.len());
            if token >= MIN_KEY_TAIL {
                out.push_str(&rest[..6]);
                out.push(' ');
                out.push_str(MASK);
                rest = &after[token..];
                previous = Some('x');
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
        previous = Some(c);
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
    /// A person's `/name arguments` named no skill they may invoke ([`Agent::invoke`]).
    ///
    /// [`Agent::invoke`]: super::Agent::invoke
    Invoke(skills_bundle::InvokeError),
    /// A session transcript could not be read or written (see
    /// [`Agent::resume`](super::Agent::resume)). A failed write stops the run: a session that
    /// promises a transcript does not go on without one.
    Transcript {
        /// The transcript file.
        path: std::path::PathBuf,
        /// The 1-based line that does not parse, when that is the problem.
        line: Option<usize>,
        /// What went wrong.
        message: String,
    },
    /// The next request would not fit the model's context window even with every tool result
    /// the budget may cut shortened; it was not sent, and nothing was cut (see
    /// [`budget`](super::budget)).
    ContextOverflow(super::budget::ContextOverflow),
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
            AgentError::Invoke(error) => error.fmt(f),
            AgentError::Transcript {
                path,
                line: Some(line),
                message,
            } => write!(f, "transcript {}:{line}: {message}", path.display()),
            AgentError::Transcript {
                path,
                line: None,
                message,
            } => write!(f, "transcript {}: {message}", path.display()),
            AgentError::ContextOverflow(overflow) => overflow.fmt(f),
        }
    }
}

impl std::error::Error for AgentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AgentError::Api(error) => Some(error),
            AgentError::Invoke(error) => Some(error),
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

    /// What did not fit, if the run stopped before a request over the context window.
    pub fn context_overflow(&self) -> Option<&super::budget::ContextOverflow> {
        match self {
            AgentError::ContextOverflow(overflow) => Some(overflow),
            _ => None,
        }
    }

    /// The API error, if the run failed on a model request.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            AgentError::Api(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_the_key_and_key_shaped_tokens() {
        let key = "my-local-key-1234";
        let text = format!(
            "bad {key}; try sk-ant-api03-abcDEF_123-xyz or Authorization: Bearer \
             eyJh.bGc.iOi=, BEARER   tok/en+1"
        );
        assert_eq!(
            redact(&text, key),
            "bad [redacted]; try [redacted] or Authorization: Bearer [redacted], BEARER \
             [redacted]"
        );
    }

    #[test]
    fn leaves_ordinary_words_alone() {
        for text in [
            "risk-averse task-sk-12345678 ask-me sk-short",
            "a bearer of news: Bearer",
            "model claude-test-model, ids toolu_01A call_abc",
        ] {
            assert_eq!(redact(text, ""), text);
        }
    }

    #[test]
    fn control_characters_become_spaces() {
        assert_eq!(redact("a\nERROR fake\r\x1b[2J", ""), "a ERROR fake  [2J");
    }

    #[test]
    fn bounds_the_length_and_drops_a_cut_word() {
        for pad in 1_980..2_000 {
            let text = format!(
                "{}ABCDEFGHIJKL tail",
                "x".repeat(pad % 2) + &"x ".repeat(pad / 2)
            );
            let out = redact(&text, "");
            assert!(out.len() <= MAX_ERROR_TEXT, "{}", out.len());
            // The word is whole or gone, never cut.
            assert!(
                !out.contains("ABC") || out.contains("ABCDEFGHIJKL"),
                "{pad}"
            );
        }
        let long = "word ".repeat(1_000_000);
        let out = redact(&long, "");
        assert!(out.len() <= MAX_ERROR_TEXT && out.ends_with("..."));
        assert!(out.len() > MAX_ERROR_TEXT - 10);
    }

    #[test]
    fn a_key_across_the_scanned_part_leaves_nothing() {
        // Long foreign keys shrink when masked, so the end of the scanned part is visible.
        let filler = format!("sk-{} ", "a".repeat(200)).repeat(SCAN_LIMIT / 204);
        for shift in 0..40 {
            let start = SCAN_LIMIT - 20 + shift;
            let text = format!(
                "{filler}{}PLAINKEY123456 more",
                " ".repeat(start - filler.len())
            );
            let out = redact(&text, "PLAINKEY123456");
            assert!(
                !out.contains("PLAIN") && !out.contains("456"),
                "{shift}: {out}"
            );
            assert!(out.len() <= MAX_ERROR_TEXT);
        }
    }

    #[test]
    fn is_idempotent() {
        let text = format!(
            "{} Bearer abcdefghij sk-0123456789abc \u{7}",
            "é ".repeat(3_000)
        );
        let once = redact(&text, "abc");
        assert_eq!(redact(&once, "abc"), once);
        assert_eq!(redact(&once, ""), once);
    }

    #[test]
    fn errors_are_redacted_when_built() {
        let error = ApiError::new(
            ApiErrorKind::Server,
            "openai",
            format!("echo sk-proj-0123456789 {}", "z ".repeat(5_000)),
        );
        assert!(error.message().starts_with("echo [redacted] z"));
        assert!(error.message().len() <= MAX_ERROR_TEXT);
        let error = ApiError::new(ApiErrorKind::Server, "x", "plain SECRETVALUE")
            .redact_secret("SECRETVALUE");
        assert_eq!(error.message(), "plain [redacted]");
    }
}
