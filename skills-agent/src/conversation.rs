//! The provider-neutral conversation: an append-only list of messages.
//!
//! Messages are only ever pushed, never removed or reordered, so a failed request or a
//! misbehaving tool cannot lose what came before. The one edit is the context budget's: the
//! content of an old tool result may be replaced by a note saying what was cut
//! ([`budget`](crate::budget)). Each assistant turn keeps the provider's raw
//! JSON so it can be sent back exactly as received (Anthropic requires `thinking` blocks and
//! anything else we do not model to be echoed unchanged).

use serde_json::Value;

/// Which wire format a raw assistant turn came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireFormat {
    /// Anthropic Messages: the raw value is the `content` array.
    Anthropic,
    /// OpenAI Chat Completions: the raw value is the `message` object.
    OpenAi,
}

/// One tool call the model asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The id the result must carry (`tool_use_id` / `tool_call_id`); invented when a server
    /// sends none.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, always a JSON value (a string of JSON from OpenAI is parsed).
    pub input: Value,
}

/// What a tool call produced, paired with its call by `call_id`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool's name (OpenAI-compatible servers and logs use it).
    pub name: String,
    /// The text the model sees.
    pub content: String,
    /// Whether the tool failed (`is_error` on Anthropic).
    pub is_error: bool,
}

/// One model reply.
#[derive(Clone, Debug, PartialEq)]
pub struct AssistantTurn {
    /// The text parts, joined.
    pub text: String,
    /// The tool calls, in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    /// The provider's own JSON for this turn, echoed back on later requests to the same format.
    pub raw: Option<(WireFormat, Value)>,
    /// Why the model stopped (`stop_reason` / `finish_reason`), as sent.
    pub stop_reason: Option<String>,
}

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// What the user typed.
    User(String),
    /// A model reply.
    Assistant(AssistantTurn),
    /// The results of every tool call of the preceding assistant turn, in call order.
    ToolResults(Vec<ToolResult>),
}

impl Message {
    /// Approximate size in characters of the text this message carries (for logs and the
    /// benchmark).
    pub fn text_len(&self) -> usize {
        match self {
            Message::User(text) => text.len(),
            Message::Assistant(turn) => {
                turn.text.len()
                    + turn
                        .tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.input.to_string().len())
                        .sum::<usize>()
            }
            Message::ToolResults(results) => results.iter().map(|r| r.content.len()).sum(),
        }
    }
}

/// Token counts, summed over the requests of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens (Anthropic `input_tokens`, OpenAI `prompt_tokens`).
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the cache (`cache_read_input_tokens` / `cached_tokens`).
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the cache (`cache_creation_input_tokens`).
    pub cache_creation_tokens: u64,
    /// Number of model requests.
    pub requests: u32,
}

impl Usage {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_creation_tokens += other.cache_creation_tokens;
        self.requests += other.requests;
    }
}

/// The messages of one conversation, in order. Append-only, but for the context budget's
/// shortened tool results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversation {
    messages: Vec<Message>,
}

impl Conversation {
    /// An empty conversation.
    pub fn new() -> Self {
        Conversation::default()
    }

    /// Appends a message. The only way to change a conversation.
    pub fn push(&mut self, message: Message) {
        self.messages.push(message);
    }

    /// The messages, oldest first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The messages, for the context budget to shorten tool results in place.
    pub(crate) fn messages_mut(&mut self) -> &mut [Message] {
        &mut self.messages
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether there are no messages.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The last assistant turn, if any.
    pub fn last_assistant(&self) -> Option<&AssistantTurn> {
        self.messages.iter().rev().find_map(|m| match m {
            Message::Assistant(turn) => Some(turn),
            _ => None,
        })
    }
}
