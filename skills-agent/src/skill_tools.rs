//! The skill tools: `load_skill` and `read_skill_resource` as the agent serves them, and the
//! child session a `context: fork` skill runs in.

use std::sync::Arc;

use serde_json::Value;
use skills_bundle::{LoadRendering, Registry, Skill, SkillContext};
use skills_core::allowed_tools::Entry;
use tracing::Instrument as _;

use crate::BoxFuture;
use crate::agent::{Agent, SkillOffer, SkillTools};
use crate::conversation::Message;
use crate::error::AgentError;
use crate::run::{RunOutput, RunState};
use crate::session::Session;
use crate::settings::Settings;
use crate::tools::{self, Tool, ToolError, ToolErrorKind};
use crate::trace::Trigger;

impl Agent {
    pub(crate) async fn load_skill(
        &self,
        session: &mut Session,
        input: &Value,
        state: &mut RunState,
    ) -> Result<String, ToolError> {
        let name = tools::str_arg(input, "name")?;
        self.check_visible(session, name)?;
        // The span of the skill the name finds (an unknown name has none: the tool's span
        // records the failure).
        let Some(skill) = self.skills.skills.get(name) else {
            return self.load_named(session, name, state).await;
        };
        let span = self.skill_span(skill, Trigger::Model, None);
        let result = self
            .load_named(session, name, state)
            .instrument(span.clone())
            .await;
        if let Err(error) = &result {
            crate::trace::failed(&span, error.kind.label());
        }
        result
    }

    /// [`load_skill`](Self::load_skill) of `name`, in its span.
    async fn load_named(
        &self,
        session: &mut Session,
        name: &str,
        state: &mut RunState,
    ) -> Result<String, ToolError> {
        let fork = self
            .skills
            .skills
            .get(name)
            .filter(|s| s.model_invocable() && s.context() == SkillContext::Fork);
        if let Some(skill) = fork {
            return self.load_forked(session, skill, state).await;
        }
        let (skill, text, first) = match session.loader.load_rendering(name) {
            Ok(LoadRendering::Loaded(rendering)) => {
                let skill = rendering.skill();
                // Active before its commands run, so that its `allowed-tools` cover them.
                session.activate(skill);
                match self.finish_rendering(session, &rendering).await {
                    Ok(text) => (skill, text, true),
                    Err(error) => {
                        // Not loaded after all: the next call tries again.
                        session.loader.forget(skill.name());
                        session.active.retain(|s| s.name() != skill.name());
                        tracing::warn!(skill = skill.name(), %error, "skill shell command failed");
                        return Err(ToolError::new(ToolErrorKind::Denied, error.to_string())
                            .suggest(
                                "do the task without this skill, or tell the user what failed",
                            ));
                    }
                }
            }
            Ok(LoadRendering::AlreadyLoaded { skill, text }) => (skill, text, false),
            Err(unknown) => {
                let error = ToolError::new(ToolErrorKind::UnknownSkill, unknown.to_string());
                return Err(match unknown.suggestion() {
                    Some(closest) => error.suggest(format!("call load_skill with \"{closest}\"")),
                    None => error.suggest("pick a name from the catalog in the system prompt"),
                });
            }
        };
        tracing::Span::current().record("skill.first_load", first);
        tracing::info!(
            skill = skill.name(),
            version = skill.version().unwrap_or(""),
            sha256 = &skill.sha256()[..skill.sha256().len().min(12)],
            first_load = first,
            chars = text.len(),
            "skill loaded"
        );
        if first {
            state.skills_loaded.push(skill.name());
        }
        session.activate(skill);
        Ok(text)
    }

    /// Refuses a skill with `paths` that no touched file has offered yet: it is not in the
    /// catalog, though its name is among `load_skill`'s (so the tools stay the same bytes).
    fn check_visible(&self, session: &Session, name: &str) -> Result<(), ToolError> {
        match self.skills.skills.get(name) {
            Some(skill) if !self.model_may_see(session, skill) => Err(ToolError::new(
                ToolErrorKind::UnknownSkill,
                format!(
                    "the skill `{}` is not available yet: it applies to files matching {}, and is \
                     offered once such a file is read, written or named in a command",
                    skill.name(),
                    skill
                        .paths()
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .suggest("pick a name from the catalog in the system prompt")),
            _ => Ok(()),
        }
    }

    /// `read_skill_resource`: the files of a skill the model may see, that is one it can load,
    /// or one a person invoked in this session (a `disable-model-invocation` skill is otherwise
    /// as absent for the model as it is from the catalog).
    pub(crate) fn read_resource(
        &self,
        session: &Session,
        input: &Value,
    ) -> Result<String, ToolError> {
        let skill = tools::str_arg(input, "skill")?;
        let path = tools::str_arg(input, "path")?;
        self.check_visible(session, skill)?;
        let as_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let offset = tools::uint_arg(input, "offset")?.map(as_usize);
        let limit = tools::uint_arg(input, "limit")?.map(as_usize);
        let invoked = session.active.iter().any(|a| a.name() == skill);
        if let (Err(unknown), false) = (
            skills_bundle::__private::model_skill(&self.skills.skills, skill),
            invoked,
        ) {
            return Err(
                ToolError::new(ToolErrorKind::UnknownSkill, unknown.to_string())
                    .suggest("use a skill and path listed in the load_skill result"),
            );
        }
        let text = self
            .skills
            .skills
            .read_resource(skill, path, offset, limit)
            .map_err(|e| {
                let kind = match e {
                    skills_bundle::ResourceError::UnknownSkill(_) => ToolErrorKind::UnknownSkill,
                    skills_bundle::ResourceError::UnknownPath { .. } => ToolErrorKind::NotFound,
                    _ => ToolErrorKind::InvalidInput,
                };
                ToolError::new(kind, e.to_string())
                    .suggest("use a skill and path listed in the load_skill result")
            })?;
        tracing::info!(skill, path, chars = text.len(), "skill resource read");
        Ok(text)
    }

    /// `load_skill` of a `context: fork` skill: runs it in a child session (each call anew: it
    /// is a task, not instructions to keep) and returns the child's final answer. The skill
    /// does not become active in this session.
    async fn load_forked(
        &self,
        session: &mut Session,
        skill: &'static Skill,
        state: &mut RunState,
    ) -> Result<String, ToolError> {
        let rendering = skill.render(Some(""), &self.invoke_options(session));
        let task = self
            .finish_rendering(session, &rendering)
            .await
            .map_err(|error| {
                ToolError::new(ToolErrorKind::Denied, error.to_string())
                    .suggest("do the task without this skill, or tell the user what failed")
            })?;
        tracing::info!(
            skill = skill.name(),
            version = skill.version().unwrap_or(""),
            sha256 = &skill.sha256()[..skill.sha256().len().min(12)],
            fork = true,
            "skill loaded"
        );
        if !state.skills_loaded.contains(&skill.name()) {
            state.skills_loaded.push(skill.name());
        }
        match self.run_fork(skill, &task).await {
            Ok((output, _)) => {
                state.usage.add(&output.usage);
                session.usage.add(&output.usage);
                Ok(output.text)
            }
            Err(error) => {
                if let AgentError::TurnLimit { usage, .. } = &error {
                    state.usage.add(usage);
                    session.usage.add(usage);
                }
                Err(ToolError::new(
                    ToolErrorKind::Unavailable,
                    format!(
                        "the skill `{}` runs in a sub-agent, which stopped without an answer: \
                         {error}",
                        skill.name()
                    ),
                )
                .suggest("do the task without this skill, or tell the user what failed"))
            }
        }
    }

    /// The child agent of a `context: fork` skill: this agent's preamble (no catalog) and
    /// tools, narrowed to the skill's `allowed-tools` when it lists some, without `load_skill`
    /// and `read_skill_resource`, with [`fork_max_turns`](AgentBuilder::fork_max_turns) and
    /// the skill's `model` and `effort` when set.
    fn fork_agent(&self, skill: &'static Skill) -> Result<Agent, AgentError> {
        let entries: Vec<Entry<'static>> = skill
            .allowed_tools()
            .iter()
            .filter_map(|entry| Entry::parse(entry).ok())
            .collect();
        let tools: Vec<Arc<dyn Tool>> = self
            .settings
            .tools
            .iter()
            .filter(|tool| {
                skill.allowed_tools().is_empty()
                    || entries.iter().any(|e| e.agent_tool() == tool.name())
            })
            .cloned()
            .collect();
        let settings = Settings {
            tools,
            max_turns: self.settings.fork_max_turns,
            resource_dir: None,
            ..self.settings.clone()
        };
        let skills = SkillTools::new(
            Registry::empty(),
            SkillOffer {
                load_skill: false,
                read_resource: false,
            },
        );
        Agent::assemble(
            settings,
            skills,
            self.context.clone(),
            skill.model().or(self.model),
            skill.effort().or(self.effort),
        )
    }

    /// Runs `task` (a forked skill's text) in a fresh child session where `skill` is active.
    /// Returns the child's output and its last message (the final answer, as the provider
    /// sent it). A boxed future with a declared `Send`: the child's loop is this same loop, one
    /// level down, so its type cannot be inferred from itself.
    pub(crate) fn run_fork<'a>(
        &'a self,
        skill: &'static Skill,
        task: &'a str,
    ) -> BoxFuture<'a, Result<(RunOutput, Option<Message>), AgentError>> {
        Box::pin(async move {
            let child = self.fork_agent(skill)?;
            let mut session = child.session();
            session.activate(skill);
            let output = child.run(&mut session, task).await?;
            tracing::info!(
                skill = skill.name(),
                turns = output.turns,
                tool_calls = output.tool_calls,
                "forked skill finished"
            );
            let answer = session.conversation.messages().last().cloned();
            Ok((output, answer))
        })
    }
}
