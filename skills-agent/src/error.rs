//! Typed errors: [`ApiError`] for a model request, [`AgentError`] for a run.
//!
//! No error here ever holds the API key: messages are built from the status, the server's own error
//! text and reqwest's description of the failure (which names the URL but never the headers), and
//! every message goes through [`redact`](crate::redact), which masks the key and anything shaped
//! like one, and bounds the length. The same function cleans the server text that reaches a
//! `tracing` event.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::conversation::Usage;
use crate::redact::redact;

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
    /// ([`DEFAULT_MAX_RESPONSE_BYTES`](crate::provider::DEFAULT_MAX_RESPONSE_BYTES) unless
    /// set otherwise); reading stopped at the limit. Never retried.
    ResponseTooLarge,
}

impl ApiErrorKind {
    /// The class of an HTTP status, as the official SDKs map them.
    pub fn for_status(status: u16) -> ApiErrorKind {
        match status {
            401 | 403 => ApiErrorKind::Authentication,
            408 | 409 => ApiErrorKind::Conflict,
            429 => ApiErrorKind::RateLimit,
            529 => ApiErrorKind::Overloaded,
            500..=599 => ApiErrorKind::Server,
            _ => ApiErrorKind::InvalidRequest,
        }
    }

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
    /// A new error. `message` goes through [`redact`](crate::redact) (without a key: what
    /// looks like a key or a bearer token is masked, the length is bounded); providers, which
    /// know the key, pass server text through it with the key before building the error.
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
    /// The agent was configured wrongly (see [`ConfigError`]).
    Config(ConfigError),
    /// A person's `/name arguments` named no skill they may invoke ([`Agent::invoke`]).
    ///
    /// [`Agent::invoke`]: crate::Agent::invoke
    Invoke(skills_bundle::InvokeError),
    /// A session transcript could not be read or written (see
    /// [`Agent::resume`](crate::Agent::resume)). A failed write stops the run: a session that
    /// promises a transcript does not go on without one.
    Transcript {
        /// The transcript file.
        path: PathBuf,
        /// The 1-based line that does not parse, when that is the problem.
        line: Option<usize>,
        /// What went wrong: the file system's error, or one of kind
        /// [`InvalidData`](io::ErrorKind::InvalidData) for a damaged line.
        source: io::Error,
    },
    /// The next request would not fit the model's context window even with every tool result
    /// the budget may cut shortened; it was not sent, and nothing was cut (see
    /// [`AgentBuilder::context_window`](crate::AgentBuilder::context_window)).
    ContextOverflow(ContextOverflow),
    /// A shell command of the invoked skill did not run or failed (see
    /// [`AgentBuilder::run_skill_commands`](crate::AgentBuilder::run_skill_commands)); nothing
    /// was sent to the model.
    SkillCommand(SkillCommandError),
}

/// Why a skill's `` !`command` `` or ```` ```! ```` block did not give its output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillCommandError {
    /// The skill.
    pub skill: &'static str,
    /// The command, as it was to run (after the substitutions).
    pub command: String,
    /// What happened.
    pub failure: SkillCommandFailure,
}

/// What went wrong with a skill's shell command.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkillCommandFailure {
    /// The agent offers no `bash` tool to run it with.
    NoBash,
    /// `bash` did not run it: the permission policy, the approver, a hook or the skill's
    /// `allowed-tools` in strict mode refused it, or the tool failed (timeout, sandbox).
    NotRun(crate::tools::ToolError),
    /// It ran and exited with this status; `output` is what it printed.
    Exit {
        /// The exit status.
        code: i32,
        /// Its output (stdout and stderr, as `bash` returns them).
        output: String,
    },
    /// A signal ended it; `output` is what it printed.
    Signal {
        /// Its output.
        output: String,
    },
}

impl fmt::Display for SkillCommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "skill `{}`: the shell command `{}` ",
            self.skill, self.command
        )?;
        match &self.failure {
            SkillCommandFailure::NoBash => {
                f.write_str("was not run: the agent has no bash tool to run it with")
            }
            SkillCommandFailure::NotRun(error) => write!(f, "was not run: {}", error.message),
            SkillCommandFailure::Exit { code, output } => {
                write!(f, "failed with exit code {code}: {}", output.trim_end())
            }
            SkillCommandFailure::Signal { output } => {
                write!(f, "was ended by a signal: {}", output.trim_end())
            }
        }
    }
}

impl std::error::Error for SkillCommandError {}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Api(error) => error.fmt(f),
            AgentError::TurnLimit { max_turns, .. } => write!(
                f,
                "turn limit reached: the model was still calling tools after {max_turns} \
                 requests; raise the limit (--max-turns) or narrow the task"
            ),
            AgentError::Config(error) => write!(f, "agent configuration: {error}"),
            AgentError::Invoke(error) => error.fmt(f),
            AgentError::Transcript {
                path,
                line: Some(line),
                source,
            } => write!(f, "transcript {}:{line}: {source}", path.display()),
            AgentError::Transcript {
                path,
                line: None,
                source,
            } => write!(f, "transcript {}: {source}", path.display()),
            AgentError::ContextOverflow(overflow) => overflow.fmt(f),
            AgentError::SkillCommand(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for AgentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AgentError::Api(error) => Some(error),
            AgentError::Config(error) => Some(error),
            AgentError::Invoke(error) => Some(error),
            AgentError::Transcript { source, .. } => Some(source),
            AgentError::ContextOverflow(overflow) => Some(overflow),
            AgentError::SkillCommand(error) => Some(error),
            AgentError::TurnLimit { .. } => None,
        }
    }
}

impl From<ApiError> for AgentError {
    fn from(error: ApiError) -> Self {
        AgentError::Api(error)
    }
}

impl From<ConfigError> for AgentError {
    fn from(error: ConfigError) -> Self {
        AgentError::Config(error)
    }
}

impl AgentError {
    /// Whether this is the turn limit.
    pub fn is_turn_limit(&self) -> bool {
        matches!(self, AgentError::TurnLimit { .. })
    }

    /// What did not fit, if the run stopped before a request over the context window.
    pub fn context_overflow(&self) -> Option<&ContextOverflow> {
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

/// What [`AgentBuilder::build`](crate::AgentBuilder::build) found wrong with the
/// configuration.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The working directory cannot be opened (missing, not a folder, not readable).
    Workdir {
        /// The directory as given.
        path: PathBuf,
        /// Why it cannot be opened.
        source: io::Error,
    },
    /// [`AgentBuilder::only_tools`](crate::AgentBuilder::only_tools) names a tool this agent
    /// does not have.
    UnknownTool {
        /// The name.
        name: String,
    },
    /// Two tools have the same name, or a tool takes the name of `load_skill` or
    /// `read_skill_resource`.
    DuplicateTool {
        /// The name.
        name: String,
    },
    /// A tool's definition is not valid JSON: its [`input_schema`](crate::Tool::input_schema),
    /// or the rendered definition of a skill tool.
    ToolJson {
        /// The tool.
        tool: String,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Workdir { path, source } => {
                write!(f, "working directory {}: {source}", path.display())
            }
            ConfigError::UnknownTool { name } => {
                write!(
                    f,
                    "only_tools names `{name}`, which is not a tool of this agent"
                )
            }
            ConfigError::DuplicateTool { name } => write!(f, "two tools are called `{name}`"),
            ConfigError::ToolJson { tool, source } => {
                write!(f, "tool `{tool}`: its JSON does not parse: {source}")
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Workdir { source, .. } => Some(source),
            ConfigError::ToolJson { source, .. } => Some(source),
            ConfigError::UnknownTool { .. } | ConfigError::DuplicateTool { .. } => None,
        }
    }
}

/// Why a request could not be made to fit: the estimate after every allowed cut, the window,
/// and what could not be cut, in estimated tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextOverflow {
    /// The request's estimated size with every allowed cut made.
    pub estimated_tokens: u64,
    /// The model's context window.
    pub context_window: u64,
    /// The part of the window kept for the reply.
    pub reply_reserve: u64,
    /// The system prompt and the tool definitions.
    pub system_and_tools_tokens: u64,
    /// How many of the last assistant turns are never cut
    /// ([`KEEP_RECENT_TURNS`](crate::budget::KEEP_RECENT_TURNS)).
    pub recent_turns: usize,
    /// Those last turns, their results and the user turn.
    pub recent_turns_tokens: u64,
    /// The `load_skill` results of the skills active in the session.
    pub active_skills_tokens: u64,
    /// The rest: older user messages and assistant turns, and the notes of shortened results.
    pub older_messages_tokens: u64,
}

impl fmt::Display for ContextOverflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the request does not fit the context window, even with every older tool result \
             shortened: about {} tokens estimated, over the window of {} tokens minus {} kept \
             for the reply. What cannot be cut: the system prompt and tools (~{}), the last {} \
             turns (~{}), the active skills (~{}), older messages and notes (~{}). Set the \
             model's real window (context_window), or start a new session",
            self.estimated_tokens,
            self.context_window,
            self.reply_reserve,
            self.system_and_tools_tokens,
            self.recent_turns,
            self.recent_turns_tokens,
            self.active_skills_tokens,
            self.older_messages_tokens,
        )
    }
}

impl std::error::Error for ContextOverflow {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::MAX_ERROR_TEXT;

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
