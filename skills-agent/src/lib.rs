//! The agent loop of `skills-runtime` (its feature `agent`, at `skills_runtime::agent`):
//! providers, tools, permissions and the tool loop, wired to an embedded skill registry.
//!
//! ```no_run
//! use skills_runtime::agent::{Agent, provider};
//!
//! static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");
//!
//! #[skills_runtime::main] // the sandbox's entry line, then a tokio runtime
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Anthropic, or an OpenAI-compatible server, as the environment says.
//!     let agent = Agent::builder(provider::from_env()?)
//!         .skills(&SKILLS)
//!         .workdir(".") // bash and writes are refused: nobody approves them here
//!         .build()?;
//!     let mut session = agent.session();
//!     let output = agent.run(&mut session, "greet me").await?;
//!     println!("{}", output.text);
//!     Ok(())
//! }
//! ```
//!
//! - The system prompt holds the catalog only; a skill's body reaches the model as the result
//!   of a `load_skill` call ([`SkillLoader`](skills_bundle::SkillLoader)), once per conversation.
//! - The system prompt and tool list are rendered once per [`Agent`] and sent byte-identical
//!   every turn (Anthropic caches them: the system block carries `cache_control`).
//! - Requests are retried as the official SDKs do ([`RetryPolicy`]); failures are typed
//!   ([`ApiError`], [`AgentError`]). Errors and logs never contain the API key: every error
//!   text and every server string in a log event goes through [`redact`]. Should the model
//!   echo the key, the events, the final answer and the transcript show it masked
//!   ([`Agent::redactor`]); the conversation keeps what the model said, so its tool calls run
//!   as written. A placeholder key of a local server ([`is_placeholder_key`]: `ollama`,
//!   `sk-no-key-required`, anything under [`MIN_SECRET_KEY_CHARS`] characters) is masked
//!   nowhere.
//! - A hostile server is bounded ([`provider`]): the key is never sent to another origin
//!   through a redirect, a response body is read up to a limit, and at most
//!   [`AgentBuilder::DEFAULT_MAX_TOOL_CALLS_PER_TURN`] tool calls run per turn (the rest get error results).
//! - The tool calls of one turn run concurrently, at most [`AgentBuilder::DEFAULT_MAX_PARALLEL_TOOLS`] at a
//!   time ([`AgentBuilder::max_parallel_tools`]; 1 runs them one after another). Approvals are
//!   asked one at a time, in call order, before any of them runs; `load_skill` and the other
//!   calls that change the session run in call order; the results go back in call order.
//! - A session can be kept in a JSON Lines transcript, one message a line, appended as the run
//!   goes, with the skills it loaded ([`Session::with_transcript`]), and continued from it in
//!   another process ([`Agent::resume`]); the format, how the file is opened (no symbolic links
//!   in the working directory, regular files only, a size cap, never truncated) and what a
//!   damaged file does are under [Transcripts](#transcripts).
//! - Text for a terminal ([`terminal_text`], [`TerminalEscaper`] for a stream,
//!   [`terminal_line`]): escape sequences, control characters, a lone `\r`, bidirectional and
//!   invisible characters shown escaped, so the model's text cannot write the clipboard, move
//!   the cursor or hide a line. [`ask_user`] opens every approval prompt with
//!   [`APPROVAL_MARKER`], which escaped text cannot draw. The library prints nothing itself: a
//!   program that wants the model's bytes raw leaves these out.
//! - File tools open every path beneath the working directory (`openat2` `RESOLVE_BENEATH`)
//!   and write nothing the sandbox keeps read-only for `bash` (one policy:
//!   [`sandbox::Protected`]); every `bash` call runs in a sandbox of its own (new user, network, PID, IPC and mount
//!   namespaces, seccomp, resource limits and Landlock; [`Sandbox`], [`sandbox`]) with a cleared
//!   environment, and no process it starts outlives the call ([`Bash`]). The program's `main`
//!   calls [`sandbox::enter`] first ([below](#the-entry-line)). A failing tool returns an error
//!   result to the model instead of failing the run ([`ToolError`]).
//! - Skills in a conversation. A skill the model loads, or a person invokes with
//!   [`Agent::invoke`] (`/name arguments`, rendered by
//!   [`Registry::invoke`](skills_bundle::Registry::invoke)),
//!   becomes *active* for the rest of the session ([`Session::active_skills`]). While it is, the
//!   calls its `allowed-tools` covers are pre-approved (`Ask` tools run without asking; a
//!   `Bash(pattern)` entry covers only matching commands made of plain words, nothing the shell
//!   would expand, substitute, glob, chain or redirect:
//!   [`plain_words`](skills_core::allowed_tools::plain_words)), and with
//!   [`AgentBuilder::strict_allowed_tools`] only those tools are offered and run. A `Deny` in the
//!   [`PermissionPolicy`] always wins. A `disable-model-invocation` skill is neither shown to the
//!   model nor loadable by it; a `user-invocable: false` one cannot be invoked.
//! - An active skill's `disallowed-tools` takes the tools it names out of the requests and
//!   refuses calls to them, before any approval
//!   ([`Entry::forbids`](skills_core::allowed_tools::Entry::forbids): a `Bash(prefix:*)` entry
//!   refuses the commands it matches and every command that is not plain words). A skill with
//!   `paths` (Claude Code's globs, read as gitignore patterns) stays out of the catalog until
//!   a file they match is read, written or named in a `bash` command, and is then offered for
//!   the rest of the session ([`Session::offered_skills`]); the system prompt and the tools stay
//!   the same bytes (its name is among `load_skill`'s from the start, and the offer is a note
//!   after the result of the call that touched the file), so the cached prompt prefix holds.
//! - Cancelling a run is dropping its future (a person's Ctrl-C): the model request stops and
//!   so do the tool calls running; the next run gives the interrupted calls an error result.
//!   Approvals for the rest of a session: [`ask_approval`] and [`SessionApprovals`].
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
//!   results and the end of each turn ([`AgentEvent`], in the order its docs give).
//!   Without streaming the same events come, the text of a turn in one piece. A stream cut off
//!   or malformed fails the request and nothing of its reply enters the conversation; retries
//!   happen only before its first byte (see [`provider`]).
//! - A context budget ([below](#the-context-budget)): each request's size is estimated before it is
//!   sent against the model's window ([`AgentBuilder::context_window`], with defaults per model
//!   family) minus a reserve for the reply; over it, the oldest tool results are replaced by a note
//!   saying what was cut and how to get it back, never the system prompt, the last turns or the
//!   active skills. The cuts are reported ([`RunOutput::context_shortened`]), kept in the session
//!   and its transcript; a request that cannot fit fails before it is sent
//!   ([`AgentError::ContextOverflow`]).
//! - Trigger evals ([`eval`]): does the model load the right skill? Each skill's trigger cases,
//!   compiled in with `embed_evals = true`, asked as the first turn of a fresh session with
//!   exactly this agent's system prompt and tools; recall, precision, false triggers and
//!   confusions per skill, gates for CI, a cache on disk. Task evals ([`eval::tasks`]): does the
//!   skill make the agent succeed? Each task case through this agent's loop in a fresh sandboxed
//!   working directory, with the skill and without it (or its previous version), checks and a
//!   grader; pass rates, uplift, cost, flags, `benchmark.json` fields and an HTML page.
//! - `tracing` spans for each run, turn, model request, tool call and skill, with
//!   OpenTelemetry's generative-AI attributes ([below](#traces)), exported over OTLP/HTTP with
//!   the `otlp` feature (the `telemetry` module); and events: `model request` (provider, model,
//!   tokens, retries), `tool call` (tool, outcome, size, time), `skill loaded` (name, version,
//!   hash prefix), `skill offered` and `context shortened` (message, tool, bytes before and
//!   after).
//!
//! # The entry line
//!
//! The sandbox of a `bash` call is built by the program's own binary, started again as a small
//! entry point (a process with threads cannot create the user namespace, nor fork safely, and
//! nothing here uses `unsafe`, which running code before `main` would take). So the program's
//! `main` runs the entry line, [`sandbox::enter`], before any thread starts:
//! `#[skills_runtime::main]` in place of `#[tokio::main]` runs it and then starts the tokio
//! runtime,
//!
//! ```no_run
//! #[skills_runtime::main]
//! async fn main() {
//!     // build the agent and run it
//! }
//! ```
//!
//! or, by hand, as the first line of a plain `main`:
//!
//! ```no_run
//! fn main() {
//!     skills_runtime::agent::sandbox::enter(); // returns at once; never returns in a stage
//!     let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
//!     runtime.block_on(run());
//! }
//!
//! async fn run() {
//!     // build the agent and run it
//! }
//! ```
//!
//! Without it, [`AgentBuilder::build`] says so on stderr, once per process, with what to write
//! (the person running a new program is most often its developer), [`Agent::check_bash`]
//! returns the error for a program that would rather stop, and every `bash` call fails with an
//! error that names it (the sandbox's
//! [`SandboxError::EntryMissing`](sandbox::SandboxError::EntryMissing)) rather than start a
//! second copy of the program. [`Sandbox::probe`] says at start-up what the calls will get: the
//! namespaces, or the fallback where the kernel refuses unprivileged user namespaces, and which
//! guarantees the fallback loses. [`SandboxMode::Off`] ([`BashOptions::unconfined`]) runs
//! commands without a sandbox, with a warning per call.
//!
//! # Traces
//!
//! Every run is a tree of `tracing` spans at level `INFO`, named and attributed after
//! OpenTelemetry's semantic conventions for generative AI, so that an OpenTelemetry layer (the
//! `otlp` feature's `telemetry::Otlp`, or a program's own) exports them as tracing backends
//! expect (`otel.name` is the span's name there):
//!
//! | span | when | attributes |
//! |---|---|---|
//! | `invoke_agent` | a [`Agent::run`] or [`Agent::invoke`] | `gen_ai.operation.name` (`invoke_agent`), `gen_ai.provider.name` (`anthropic`, `openai`), `gen_ai.request.model`, `gen_ai.conversation.id` (the [`Session::id`]), `skills.lock_digest`; at the end `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `agent.turns`, `agent.tool_calls` |
//! | `turn` | one model request and its tool calls | `agent.turn` (from 1) |
//! | `chat {model}` | the model request, retries included | `gen_ai.operation.name` (`chat`), `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.request.max_tokens`, `gen_ai.request.stream`; with the reply `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens`, `gen_ai.usage.cache_creation.input_tokens`, `gen_ai.response.finish_reasons`, `agent.retries` |
//! | `execute_tool {tool}` | each tool call, refused ones included | `gen_ai.operation.name` (`execute_tool`), `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` (`function`), `agent.tool.outcome` (`ok` or the error's kind) |
//! | `load_skill {skill}` | the model loads a skill (inside its `execute_tool load_skill`) | `skill.name`, `skill.version`, `skill.sha256` (of its `SKILL.md`), `skills.lock_digest` (the SHA-256 of the bundle's lock, when it has one), `skill.trigger` (`model`), `skill.first_load` |
//! | `invoke_skill {skill}` | a person invokes a skill ([`Agent::invoke`]) | the same, `skill.trigger` `person` |
//! | `offer_skill {skill}` | a touched file offers a skill with `paths` (inside the call's span) | the same, `skill.trigger` `path`, `skill.path` (the file) |
//!
//! A failure sets `error.type` (the kind of error) and `otel.status_code` (`ERROR`) on its span.
//! Text the model chose (a tool's name, a call id, a path) goes through [`redact`] first, and no
//! span carries a message, a tool's input or output, or an error's text, so the API key cannot
//! reach a span. Without a subscriber the spans cost next to nothing.
//!
//! # The context budget
//!
//! The window is [`AgentBuilder::context_window`] (by default [`budget::default_context_window`] of the
//! model) and the reply reserve [`AgentBuilder::reply_reserve`].
//!
//! Before every request the loop estimates its size ([`budget::estimate_tokens`] over the system
//! prompt, the tool definitions and the messages). When the estimate is over the window minus
//! the reserve for the reply, the oldest tool results are shortened first: their content is
//! replaced by a short note ([`budget::shortened_note`]) that says what was cut and how to get it back
//! (call the same tool again with the same arguments). Each cut is reported as a
//! [`ContextShortened`] in [`RunOutput::context_shortened`] and logged as a
//! `context shortened` `tracing` event.
//!
//! Never shortened:
//! - the system prompt and the tool definitions;
//! - the messages from the [`budget::KEEP_RECENT_TURNS`]-th last assistant turn on (those turns, their
//!   tool results and the current user turn; with fewer turns, the whole conversation);
//! - the `load_skill` results of skills still active in the session (the instructions of the
//!   current task);
//! - user messages and assistant turns (only tool results are cut, so every `tool_use` keeps
//!   its `tool_result` and the conversation stays valid for both wire formats).
//!
//! A request that does not fit even with everything allowed cut fails before it is sent with
//! [`AgentError::ContextOverflow`], and nothing is cut.
//!
//! The cuts are made in the session's conversation itself, so later requests do not redo them
//! (and the prompt prefix a provider caches stays stable between cuts), and they are written to
//! the session's transcript, so a resumed session sends exactly what the original would have.
//!
//! The estimate is deliberately cheap: one token per 4 bytes, rounded up, of the text each
//! part carries (the system prompt, each tool definition's JSON, user text, assistant text and
//! tool-call JSON, tool-result content). Real tokenizers give about 3.5-4.5 bytes per token
//! for English and code; JSON punctuation between messages is not counted, so the reply
//! reserve doubles as the margin. The size of each message is computed once and cached, so the
//! check costs nothing per request beyond the messages new since the last one.
//!
//! # Transcripts
//!
//! A session on disk ([`Session::with_transcript`]) is a conversation as JSON Lines, so the
//! session can be resumed.
//!
//! One line per message, appended (and synced) as the run pushes it, so a crash loses at most
//! the line being written. A line is an object:
//!
//! ```json
//! {"message":{"role":"user","text":"review src/lib.rs"}}
//! {"message":{"role":"assistant","text":"","tool_calls":[{"id":"t1","name":"load_skill","input":{"name":"code-review"}}],"raw":{"format":"anthropic","value":[...]},"stop_reason":"tool_use"}}
//! {"message":{"role":"tool_results","results":[{"call_id":"t1","name":"load_skill","content":"...","is_error":false}]},"skills_loaded":["code-review"],"skills_active":["code-review"]}
//! ```
//!
//! `skills_loaded` and `skills_active` name the skills that became loaded or active since the
//! line before, so the record of a skill and the message that brought its text travel in the
//! same line: a resumed session never loses one without the other.
//!
//! When the context budget shortens old tool results, one line
//! records the notes that replaced them, by message index (0-based, counting message lines)
//! and call id, so a resumed session sends what the original would have:
//!
//! ```json
//! {"shortened":[{"message":2,"call_id":"t1","content":"[shortened to save context: ...]"}]}
//! ```
//!
//! The file is untrusted input (the model can write in the working directory, and a person may
//! keep the session there), so it is opened as follows, by [`Agent::resume`] and
//! [`Session::with_transcript`] alike, and any refusal is an [`AgentError::Transcript`] before
//! a byte is read or written:
//! - The path is walked a folder at a time: symbolic links are followed in folders outside the
//!   working directory (the person's own layout), never at or below it, and the file itself is
//!   never one, wherever it is.
//! - It must be a regular file with a single link; it is opened without blocking, so a FIFO or
//!   a device is refused at once.
//! - A file over [`AgentBuilder::max_transcript_bytes`] (default
//!   [`AgentBuilder::DEFAULT_MAX_TRANSCRIPT_BYTES`], 64 MiB) is refused by its size, unread.
//! - Nothing is ever truncated or replaced: [`Session::with_transcript`] only creates a new file
//!   (an existing one is an error), and [`Agent::resume`] appends.
//!
//! Reading back ([`Agent::resume`]):
//! - A last line without its newline is a write cut short by a crash: when it does not parse it
//!   is skipped with a `tracing` warning and kept in the file, ended by a line break, followed by
//!   a line that names it (below), so later lines start clean and nothing of the file is lost.
//!   A line that does not parse anywhere else is an error ([`AgentError::Transcript`]): the
//!   file was damaged or edited, and guessing would lose more.
//! - An assistant turn with tool calls and no results after it is the turn in flight at the
//!   crash: it is skipped the same way (the API refuses tool calls without results).
//! - A skill this binary no longer has is skipped with a warning.
//! - A `shortened` entry naming no tool result read so far is an error, as a damaged line.
//!
//! The line that names a line a resume skipped (1-based, as editors count), which every later
//! resume skips too:
//!
//! ```json
//! {"skipped":{"line":5,"reason":"cut short (a crash while writing it)"}}
//! ```
//!
// The guide to the example agent and to the library in a program: a file of its own, kept out
// of the module list above.
#![doc = include_str!("../docs/agent.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
mod approvals;
pub mod budget;
mod builder;
mod conversation;
mod deprecated;
mod dispatch;
mod error;
pub mod eval;
mod events;
mod permission;
pub mod provider;
mod redact;
mod retry;
mod run;
mod session;
mod session_file;
mod settings;
mod skill_paths;
mod skill_rendering;
mod skill_tools;
#[cfg(feature = "otlp")]
#[cfg_attr(docsrs, doc(cfg(feature = "otlp")))]
pub mod telemetry;
mod terminal;
mod tools;
mod trace;
mod transcript;

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future: what the object-safe async methods of [`Tool`] and [`Provider`]
/// (and the retry [`Sleeper`]) return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The sandbox of the `bash` tool: the crate `skills-sandbox`, whose entry line
/// [`sandbox::enter`] a program calls first in `main` (see [the entry line](crate#the-entry-line)).
#[doc(inline)]
pub use skills_sandbox as sandbox;

// The generated code of `#[skills_runtime::main]`.
#[doc(hidden)]
pub mod __private {
    /// The runtime `#[skills_runtime::main]` runs the body on, built after the entry line. It
    /// panics when the runtime cannot be built, as `#[tokio::main]` does.
    pub fn runtime(multi_thread: bool, worker_threads: Option<usize>) -> tokio::runtime::Runtime {
        let mut builder = if multi_thread {
            tokio::runtime::Builder::new_multi_thread()
        } else {
            tokio::runtime::Builder::new_current_thread()
        };
        if let Some(threads) = worker_threads {
            builder.worker_threads(threads);
        }
        builder
            .enable_all()
            .build()
            .expect("cannot start the tokio runtime")
    }
}

pub use agent::Agent;
pub use approvals::{Approval, ApprovalScope, SessionApprovals, ask_approval, ask_user};
pub use builder::AgentBuilder;
pub use conversation::{
    AssistantTurn, Conversation, Message, ToolCall, ToolResult, Usage, WireFormat,
};
#[allow(deprecated)]
pub use deprecated::*;
pub use error::{
    AgentError, ApiError, ApiErrorKind, ConfigError, ContextOverflow, SkillCommandError,
    SkillCommandFailure,
};
pub use events::{AgentEvent, ContextShortened, EventSink};
pub use permission::{
    AfterHook, Approver, BeforeHook, CallDescription, HookDecision, Hooks, Permission,
    PermissionPolicy,
};
pub use provider::api::{Provider, Request, Response, ToolDefinitions};
pub use provider::http::HttpOptions;
pub use redact::{
    MAX_ERROR_TEXT, MIN_SECRET_KEY_CHARS, RedactingStream, Redactor, is_placeholder_key, redact,
};
pub use retry::{RetryPolicy, Sleeper};
pub use run::RunOutput;
pub use session::Session;
pub use terminal::{APPROVAL_MARKER, TerminalEscaper, terminal_line, terminal_text};
pub use tools::{
    Bash, BashOptions, EditFile, FailureTracker, Glob, LOAD_SKILL, READ_SKILL_RESOURCE, ReadFile,
    Sandbox, SandboxMode, Tool, ToolContext, ToolError, ToolErrorKind, WriteFile, builtin_tools,
};
