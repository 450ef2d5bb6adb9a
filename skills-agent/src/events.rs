//! What a run reports while it goes: [`AgentEvent`], delivered to the callback of
//! [`Agent::run_with_events`](crate::Agent::run_with_events) (and
//! [`Agent::invoke_with_events`](crate::Agent::invoke_with_events)).
//!
//! In one run the events come in this order, for each model request:
//!
//! 1. [`AgentEvent::TextDelta`]s: the assistant's text. With streaming on
//!    ([`AgentBuilder::stream`](crate::AgentBuilder::stream)) they arrive as the model writes;
//!    without it, or from a provider that does not stream, the whole text of the turn comes as
//!    one delta once the reply is complete. Either way the deltas of a turn, joined, are exactly
//!    [`AssistantTurn::text`].
//! 2. For each tool call of the turn, in call order: [`AgentEvent::ToolCallStarted`] when the
//!    loop takes it up (before its checks and approval), and [`AgentEvent::ToolResult`] when it
//!    has its result. With parallel tool calls the starts of a turn may all come before its
//!    results; a call's start always comes before its result.
//! 3. [`AgentEvent::TurnFinished`], once the turn and its tool results are in the conversation.
//!
//! Before a request whose size the context budget had to reduce, one
//! [`AgentEvent::ContextShortened`] per tool result it shortened comes first.
//!
//! A request that fails (a stream cut off, a malformed event, or one that cannot fit the
//! context window even shortened) ends the run with its error and
//! no `TurnFinished`: text deltas already delivered belong to a reply that was not kept.
//!
//! The enum is `#[non_exhaustive]`: later versions may add events (match with a `_` arm).

use crate::conversation::{AssistantTurn, ToolCall, ToolResult, Usage};
use crate::redact::{RedactingStream, Redactor};

/// One thing that happened during a run. Borrowed: copy out what you keep.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum AgentEvent<'a> {
    /// A piece of the assistant's text, in order.
    TextDelta(&'a str),
    /// The loop took up a tool call the model made (it may still be refused).
    #[non_exhaustive]
    ToolCallStarted {
        /// The call, with its complete input.
        call: &'a ToolCall,
    },
    /// A tool call has its result (an error result when it was refused or failed).
    #[non_exhaustive]
    ToolResult {
        /// The call.
        call: &'a ToolCall,
        /// What goes back to the model.
        result: &'a ToolResult,
    },
    /// Before a request, a tool result was replaced by a note to keep the request inside the
    /// model's context window (see [`budget`](crate#the-context-budget)); the cut is also in
    /// [`RunOutput::context_shortened`](crate::RunOutput::context_shortened).
    #[non_exhaustive]
    ContextShortened {
        /// What was cut.
        cut: &'a ContextShortened,
    },
    /// A model turn is complete: the reply and its tool results are in the conversation.
    #[non_exhaustive]
    TurnFinished {
        /// The number of the model request in this run, from 1.
        turn: u32,
        /// The reply, as appended to the conversation.
        reply: &'a AssistantTurn,
        /// The tokens of this request.
        usage: Usage,
    },
}

/// Where a provider sends the events of a reply while it streams (see
/// [`Request::events`](crate::Request::events)).
pub type EventSink<'a> = &'a (dyn Fn(&AgentEvent<'_>) + Send + Sync);

/// One tool result whose content was replaced by a note to keep a request inside the context
/// window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextShortened {
    /// The request of the run (1-based, as [`RunOutput::turns`](crate::RunOutput) counts) before
    /// which the cut was made.
    pub turn: u32,
    /// The index of the tool-results message in the session's conversation.
    pub message_index: usize,
    /// The id of the tool call whose result was cut.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// The call's arguments as JSON (cut to a few hundred bytes).
    pub arguments: String,
    /// The content's size before, in bytes.
    pub bytes_before: usize,
    /// The content's lines before.
    pub lines_before: usize,
    /// The note's size, in bytes.
    pub bytes_after: usize,
}

/// Passes a run's events on with the provider's key masked in every text the program receives:
/// the deltas through a [`RedactingStream`] (a key split across two deltas is masked too),
/// the calls, results, cuts and replies as masked copies. Used only when there is a key to
/// mask; the conversation itself keeps what the model said.
pub(crate) struct MaskedEvents<'a> {
    redactor: Redactor,
    stream: RedactingStream,
    on_event: &'a mut (dyn FnMut(&AgentEvent<'_>) + Send),
}

impl<'a> MaskedEvents<'a> {
    /// Masks what goes to `on_event` with `redactor`.
    pub(crate) fn new(
        redactor: &Redactor,
        on_event: &'a mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) -> Self {
        MaskedEvents {
            redactor: redactor.clone(),
            stream: redactor.stream(),
            on_event,
        }
    }

    /// Passes `event` on, masked. Text held back (a possible start of the key) goes out before
    /// any other event: a key cannot run across one.
    pub(crate) fn event(&mut self, event: &AgentEvent<'_>) {
        if let AgentEvent::TextDelta(text) = event {
            let shown = self.stream.push(text);
            if !shown.is_empty() {
                (self.on_event)(&AgentEvent::TextDelta(&shown));
            }
            return;
        }
        self.flush();
        let r = &self.redactor;
        match *event {
            AgentEvent::ToolCallStarted { call } => {
                let call = masked_call(r, call);
                (self.on_event)(&AgentEvent::ToolCallStarted { call: &call });
            }
            AgentEvent::ToolResult { call, result } => {
                let call = masked_call(r, call);
                let result = ToolResult {
                    call_id: r.text(&result.call_id).into_owned(),
                    name: r.text(&result.name).into_owned(),
                    content: r.text(&result.content).into_owned(),
                    is_error: result.is_error,
                };
                (self.on_event)(&AgentEvent::ToolResult {
                    call: &call,
                    result: &result,
                });
            }
            AgentEvent::ContextShortened { cut } => {
                let cut = ContextShortened {
                    call_id: r.text(&cut.call_id).into_owned(),
                    tool: r.text(&cut.tool).into_owned(),
                    arguments: r.text(&cut.arguments).into_owned(),
                    ..cut.clone()
                };
                (self.on_event)(&AgentEvent::ContextShortened { cut: &cut });
            }
            AgentEvent::TurnFinished { turn, reply, usage } => {
                let reply = AssistantTurn {
                    text: r.text(&reply.text).into_owned(),
                    tool_calls: reply.tool_calls.iter().map(|c| masked_call(r, c)).collect(),
                    raw: reply.raw.as_ref().map(|(format, value)| {
                        (*format, r.json(value).unwrap_or_else(|| value.clone()))
                    }),
                    stop_reason: reply.stop_reason.as_deref().map(|s| r.text(s).into_owned()),
                };
                (self.on_event)(&AgentEvent::TurnFinished {
                    turn,
                    reply: &reply,
                    usage,
                });
            }
            AgentEvent::TextDelta(_) => {}
        }
    }

    /// Sends the text held back, if any: the run ended, or another event comes.
    pub(crate) fn flush(&mut self) {
        let rest = self.stream.finish();
        if !rest.is_empty() {
            (self.on_event)(&AgentEvent::TextDelta(&rest));
        }
    }
}

/// A copy of `call` with the key masked in its id, name and input.
fn masked_call(redactor: &Redactor, call: &ToolCall) -> ToolCall {
    ToolCall {
        id: redactor.text(&call.id).into_owned(),
        name: redactor.text(&call.name).into_owned(),
        input: redactor
            .json(&call.input)
            .unwrap_or_else(|| call.input.clone()),
    }
}
