//! The `tracing` spans of a run, named and attributed after OpenTelemetry's semantic conventions
//! for generative AI: the table is in the crate docs ([Traces](crate#traces)).

use skills_bundle::Skill;
use tracing::Span;
use tracing::field::Empty;

use crate::agent::Agent;
use crate::conversation::{ToolCall, Usage};
use crate::error::AgentError;

/// How a skill came into a conversation: `skill.trigger`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// The model called `load_skill`.
    Model,
    /// A person invoked it (`/name arguments`).
    Person,
    /// A file its `paths` match was touched, which offered it to the model.
    Path,
}

impl Trigger {
    fn as_str(self) -> &'static str {
        match self {
            Trigger::Model => "model",
            Trigger::Person => "person",
            Trigger::Path => "path",
        }
    }
}

impl Agent {
    /// The model this agent asks (a forked skill's own, else the provider's).
    fn traced_model(&self) -> &str {
        self.model.unwrap_or_else(|| self.settings.provider.model())
    }

    /// The span of one run.
    pub(crate) fn run_span(&self, conversation: &str) -> Span {
        tracing::info_span!(
            "invoke_agent",
            otel.name = "invoke_agent",
            otel.kind = "internal",
            otel.status_code = Empty,
            gen_ai.operation.name = "invoke_agent",
            gen_ai.provider.name = self.settings.provider.name(),
            gen_ai.request.model = %self.log_text(self.traced_model()),
            gen_ai.conversation.id = conversation,
            skills.lock_digest = self.skills.skills.lock_digest(),
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            agent.turns = Empty,
            agent.tool_calls = Empty,
            error.type = Empty,
        )
    }

    /// The span of one model request.
    pub(crate) fn chat_span(&self) -> Span {
        let model = self.log_text(self.traced_model());
        tracing::info_span!(
            "chat",
            otel.name = %format_args!("chat {model}"),
            otel.kind = "client",
            otel.status_code = Empty,
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = self.settings.provider.name(),
            gen_ai.request.model = %model,
            gen_ai.request.max_tokens = self.settings.provider.max_output_tokens(),
            gen_ai.request.stream = self.settings.stream,
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            gen_ai.usage.cache_read.input_tokens = Empty,
            gen_ai.usage.cache_creation.input_tokens = Empty,
            gen_ai.response.finish_reasons = Empty,
            agent.retries = Empty,
            error.type = Empty,
        )
    }

    /// The span of one tool call.
    pub(crate) fn tool_span(&self, call: &ToolCall) -> Span {
        let tool = self.log_text(&call.name);
        tracing::info_span!(
            "execute_tool",
            otel.name = %format_args!("execute_tool {tool}"),
            otel.kind = "internal",
            otel.status_code = Empty,
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = %tool,
            gen_ai.tool.call.id = %self.log_text(&call.id),
            gen_ai.tool.type = "function",
            agent.tool.outcome = Empty,
            error.type = Empty,
        )
    }

    /// The span of a skill entering a conversation; `path` is the file that offered it.
    pub(crate) fn skill_span(&self, skill: &Skill, trigger: Trigger, path: Option<&str>) -> Span {
        let operation = match trigger {
            Trigger::Model => "load_skill",
            Trigger::Person => "invoke_skill",
            Trigger::Path => "offer_skill",
        };
        tracing::info_span!(
            "skill",
            otel.name = %format_args!("{operation} {}", skill.name()),
            otel.kind = "internal",
            otel.status_code = Empty,
            skill.name = skill.name(),
            skill.version = skill.version().unwrap_or(""),
            skill.sha256 = skill.sha256(),
            skills.lock_digest = self.skills.skills.lock_digest(),
            skill.trigger = trigger.as_str(),
            skill.first_load = Empty,
            skill.path = path.map(|p| self.log_text(p)).as_deref(),
            error.type = Empty,
        )
    }
}

/// Marks `span` failed with the error kind `kind`.
pub(crate) fn failed(span: &Span, kind: &str) {
    span.record("otel.status_code", "ERROR");
    span.record("error.type", kind);
}

/// `error.type` of an [`AgentError`]: what kind of failure ended a run.
pub(crate) fn error_type(error: &AgentError) -> &'static str {
    match error {
        AgentError::Api(error) => error.kind().label(),
        AgentError::TurnLimit { .. } => "turn limit",
        AgentError::Config(_) => "configuration",
        AgentError::Invoke(_) => "invocation",
        AgentError::Transcript { .. } => "transcript",
        AgentError::ContextOverflow(_) => "context overflow",
        AgentError::SkillCommand(_) => "skill command",
    }
}

/// Records a request's or a run's tokens on `span`.
pub(crate) fn usage(span: &Span, usage: &Usage) {
    span.record("gen_ai.usage.input_tokens", usage.input_tokens);
    span.record("gen_ai.usage.output_tokens", usage.output_tokens);
}
