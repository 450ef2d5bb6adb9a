//! The provider interface: the [`Provider`] trait and what passes through it, a [`Request`]
//! for the next assistant turn and the [`Response`] holding it, and the [`ToolDefinitions`]
//! every request offers. Nothing here speaks HTTP (see `http`).

use std::fmt;

use serde_json::Value;
use skills_core::render;

use crate::BoxFuture;
use crate::conversation::{AssistantTurn, Message, Usage};
use crate::error::ApiError;
use crate::events::EventSink;
use crate::redact::Redactor;

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

    /// Only the tools for which `keep(name)` holds, in the same order and with the same bytes.
    pub fn filtered(&self, keep: impl Fn(&str) -> bool) -> ToolDefinitions {
        let mut out = ToolDefinitions::new();
        for (i, name) in self.names.iter().enumerate() {
            if keep(name) {
                out.names.push(name.clone());
                out.anthropic.push(self.anthropic[i].clone());
                out.openai.push(self.openai[i].clone());
            }
        }
        out
    }
}

/// What the loop asks a provider for: the next assistant turn.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The system prompt (preamble + catalog + `load_skill` sentence); identical every turn.
    pub system: &'a str,
    /// The tools offered; identical every turn.
    pub tools: &'a ToolDefinitions,
    /// The conversation so far.
    pub messages: &'a [Message],
    /// A model id to use instead of the provider's own (a skill's `model:`, in the child
    /// session of a forked skill); `None` for the provider's model.
    pub model: Option<&'a str>,
    /// A reasoning effort (a skill's `effort:`). The OpenAI provider sends it as
    /// `reasoning_effort` (`max` as `xhigh`, its highest level); the Anthropic provider leaves it
    /// out, since not every Messages API model takes one.
    pub effort: Option<skills_bundle::Effort>,
    /// Asks for a streamed reply, and where its events go as they arrive: the assistant's
    /// text as [`AgentEvent::TextDelta`](crate::AgentEvent::TextDelta)s. `None` (the default)
    /// for a reply read whole. A provider that cannot stream may ignore it; the loop then
    /// delivers the text of the finished turn itself.
    pub events: Option<EventSink<'a>>,
}

impl fmt::Debug for Request<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("system_chars", &self.system.len())
            .field("tools", &self.tools.names())
            .field("messages", &self.messages.len())
            .field("model", &self.model)
            .field("effort", &self.effort)
            .field("stream", &self.events.is_some())
            .finish()
    }
}

impl<'a> Request<'a> {
    /// A request with the provider's own model and no effort.
    pub fn new(system: &'a str, tools: &'a ToolDefinitions, messages: &'a [Message]) -> Self {
        Request {
            system,
            tools,
            messages,
            model: None,
            effort: None,
            events: None,
        }
    }
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
    /// Short name for logs and errors (`anthropic`, `openai`).
    fn name(&self) -> &'static str;
    /// The model id sent with each request.
    fn model(&self) -> &str;
    /// The most tokens a reply may take, when the provider asks for a limit (`max_tokens`);
    /// the context budget keeps that much of the window free. `None` (the default): no limit
    /// is sent, and the budget keeps
    /// [`DEFAULT_REPLY_RESERVE`](crate::budget::DEFAULT_REPLY_RESERVE) free.
    fn max_output_tokens(&self) -> Option<u32> {
        None
    }
    /// The masker of this provider's API key, which the agent applies to what it shows or keeps
    /// for a person (events, the final answer, the transcript). The default masks nothing: a
    /// provider without a key, or whose key is a placeholder
    /// ([`is_placeholder_key`](crate::is_placeholder_key)).
    fn redactor(&self) -> Redactor {
        Redactor::none()
    }
    /// Produces the next assistant turn.
    fn complete<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response, ApiError>>;
}
