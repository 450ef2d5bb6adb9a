//! The agent (feature `agent`): providers, tools, permissions and the tool loop, wired to the
//! embedded registry.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use skills_runtime::agent::{Agent, PermissionPolicy, provider::anthropic::Anthropic};
//!
//! static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");
//!
//! let key = std::env::var("ANTHROPIC_API_KEY")?;
//! let provider = Anthropic::new(key, "claude-sonnet-4-5")?;
//! let agent = Agent::builder(Arc::new(provider))
//!     .skills(&SKILLS)
//!     .workdir(".")
//!     .permissions(PermissionPolicy::new()) // bash and writes are refused without an approver
//!     .build()?;
//! let mut session = agent.session();
//! let output = agent.run(&mut session, "greet me").await?;
//! println!("{}", output.text);
//! # Ok(()) }
//! ```
//!
//! - The system prompt holds the catalog only; a skill's body reaches the model as the result
//!   of a `load_skill` call ([`SkillLoader`](skills_bundle::SkillLoader)), once per conversation.
//! - The system prompt and tool list are rendered once per [`Agent`] and sent byte-identical
//!   every turn (Anthropic caches them: the system block carries `cache_control`).
//! - Requests are retried as the official SDKs do ([`retry`]); failures are typed
//!   ([`ApiError`], [`AgentError`]). Errors and logs never contain the API key: every error
//!   text and every server string in a log event goes through [`error::redact`].
//! - A hostile server is bounded ([`provider`]): the key is never sent to another origin
//!   through a redirect, a response body is read up to a limit, and at most
//!   [`DEFAULT_MAX_TOOL_CALLS_PER_TURN`] tool calls run per turn (the rest get error results).
//! - The tool calls of one turn run concurrently, at most [`DEFAULT_MAX_PARALLEL_TOOLS`] at a
//!   time ([`AgentBuilder::max_parallel_tools`]; 1 runs them one after another). Approvals are
//!   asked one at a time, in call order, before any of them runs; `load_skill` and the other
//!   calls that change the session run in call order; the results go back in call order.
//! - A session can be kept in a JSON Lines transcript, one message a line, appended as the run
//!   goes, with the skills it loaded ([`Session::with_transcript`]), and continued from it in
//!   another process ([`Agent::resume`]); the format and what a damaged file does are in
//!   [`transcript`].
//! - File tools open every path beneath the working directory (`openat2` `RESOLVE_BENEATH`);
//!   `bash` runs under Landlock with a cleared environment, and no process it starts outlives
//!   the call ([`tools::sandbox`], [`tools::bash`]). A failing tool returns an error result to
//!   the model instead of failing the run ([`tools`]).
//! - Skills in a conversation. A skill the model loads, or a person invokes with
//!   [`Agent::invoke`] (`/name arguments`, rendered by [`Registry::invoke`](skills_bundle::Registry::invoke)),
//!   becomes *active* for the rest of the session ([`Session::active_skills`]). While it is, the
//!   calls its `allowed-tools` covers are pre-approved (`Ask` tools run without asking; a
//!   `Bash(pattern)` entry covers only matching, unchained commands), and with
//!   [`AgentBuilder::strict_allowed_tools`] only those tools are offered and run. A `Deny` in the
//!   [`PermissionPolicy`] always wins. A `disable-model-invocation` skill is neither shown to the
//!   model nor loadable by it; a `user-invocable: false` one cannot be invoked.
//! - Forked skills (`context: fork`). Loading or invoking one runs it in a child session with a
//!   fresh conversation: its text (with the person's arguments) as the task, the preamble without
//!   the catalog, this agent's tools narrowed to its `allowed-tools` when it lists some, no
//!   `load_skill`, [`AgentBuilder::fork_max_turns`], and its `model` and `effort` for every
//!   request when set. The child's final answer is the `load_skill` result, or the answer of
//!   [`Agent::invoke`]; the parent's conversation never sees the child's work. The `agent:`
//!   field (a named sub-agent type in Claude Code) has no counterpart here: the child is this
//!   agent's own configuration.
//! - Replies can be streamed ([`AgentBuilder::stream`]): the text reaches
//!   [`Agent::run_with_events`]'s callback as the model writes it, with the tool calls and their
//!   results and the end of each turn ([`AgentEvent`], in the order [`events`] describes).
//!   Without streaming the same events come, the text of a turn in one piece. A stream cut off
//!   or malformed fails the request and nothing of its reply enters the conversation; retries
//!   happen only before its first byte ([`provider`]).
//! - A context budget ([`budget`]): each request's size is estimated before it is sent
//!   against the model's window ([`AgentBuilder::context_window`], with defaults per model
//!   family) minus a reserve for the reply; over it, the oldest tool results are replaced by a
//!   note saying what was cut and how to get it back, never the system prompt, the last turns
//!   or the active skills. The cuts are reported ([`RunOutput::context_shortened`]), kept in
//!   the session and its transcript; a request that cannot fit fails before it is sent
//!   ([`AgentError::ContextOverflow`]).
//! - `tracing` events: `model request` (provider, model, tokens, retries), `tool call`
//!   (tool, outcome, size, time), `skill loaded` (name, version, hash prefix) and `context
//!   shortened` (message, tool, bytes before and after).

pub mod budget;
pub mod conversation;
pub mod error;
pub mod events;
pub mod permission;
pub mod provider;
pub mod retry;
mod tool_loop;
pub mod tools;
pub mod transcript;

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future: what the object-safe async methods of [`Tool`] and [`Provider`]
/// (and the retry [`Sleeper`](retry::Sleeper)) return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub use budget::{ContextOverflow, ContextShortened};
pub use conversation::{
    AssistantTurn, Conversation, Message, ToolCall, ToolResult, Usage, WireFormat,
};
pub use error::{AgentError, ApiError, ApiErrorKind};
pub use events::{AgentEvent, EventSink};
pub use permission::{Approver, HookDecision, Hooks, Permission, PermissionPolicy};
pub use provider::{HttpOptions, Provider, Request, Response, ToolDefinitions};
pub use retry::RetryPolicy;
pub use tool_loop::{
    Agent, AgentBuilder, DEFAULT_MAX_PARALLEL_TOOLS, DEFAULT_MAX_TOOL_CALLS_PER_TURN,
    DEFAULT_MAX_TURNS, DEFAULT_PREAMBLE, RunOutput, Session,
};
pub use tools::{Tool, ToolContext, ToolError, ToolErrorKind};
