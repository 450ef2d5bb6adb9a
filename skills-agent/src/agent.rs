//! [`Agent`]: the configuration every session of an agent shares, made once, and the start of a
//! session, new or resumed from its transcript.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use skills_bundle::{Effort, Registry, SkillLoader};

use crate::budget::{Budget, SizeCache};
use crate::conversation::{Conversation, Usage};
use crate::error::{AgentError, ConfigError};
use crate::provider::api::{Provider, ToolDefinitions};
use crate::redact::Redactor;
use crate::session::Session;
use crate::session_file::SessionFiles;
use crate::settings::Settings;
use crate::tools::{LOAD_SKILL, READ_SKILL_RESOURCE, ToolContext};
use crate::transcript::Transcript;

/// An agent: a provider, skills, tools and policies. Shared by any number of [`Session`]s.
pub struct Agent {
    pub(crate) settings: Settings,
    /// The skills behind `load_skill`, and which of the two skill tools are offered.
    pub(crate) skills: SkillTools,
    pub(crate) definitions: ToolDefinitions,
    pub(crate) system: String,
    pub(crate) context: ToolContext,
    /// A forked skill's `model` and `effort`, in its child agent; `None` elsewhere.
    pub(crate) model: Option<&'static str>,
    pub(crate) effort: Option<Effort>,
    pub(crate) budget: Budget,
    /// The provider's key masker, for what the agent reports and keeps.
    pub(crate) redactor: Redactor,
}

/// The skills of an agent and the tools that serve them.
pub(crate) struct SkillTools {
    pub(crate) skills: Registry,
    /// Whether `load_skill` (and the catalog) is offered.
    pub(crate) load_skill: bool,
    /// Whether `read_skill_resource` is offered.
    pub(crate) read_resource: bool,
    /// What the configuration allows, whatever the skills.
    pub(crate) offer: SkillOffer,
}

/// Which skill tools the configuration allows ([`AgentBuilder::without_load_skill`] and
/// [`AgentBuilder::only_tools`]); the skills decide whether they are offered.
///
/// [`AgentBuilder::without_load_skill`]: crate::AgentBuilder::without_load_skill
/// [`AgentBuilder::only_tools`]: crate::AgentBuilder::only_tools
#[derive(Clone, Copy, Debug)]
pub(crate) struct SkillOffer {
    pub(crate) load_skill: bool,
    pub(crate) read_resource: bool,
}

impl SkillTools {
    /// `load_skill` when some skill is listed; `read_skill_resource` beside it when some skill
    /// ships files besides `SKILL.md`; each as far as `offer` allows.
    pub(crate) fn new(skills: Registry, offer: SkillOffer) -> SkillTools {
        let any = !skills.is_empty();
        SkillTools {
            load_skill: offer.load_skill && any,
            read_resource: offer.read_resource && any && !skills.names_with_resources().is_empty(),
            skills,
            offer,
        }
    }
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("provider", &self.settings.provider.name())
            .field("model", &self.settings.provider.model())
            .field("tools", &self.definitions.names())
            .field("workdir", &self.context.workdir())
            .field("max_turns", &self.settings.max_turns)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// The one way an agent is made, by [`AgentBuilder::build`](crate::AgentBuilder::build)
    /// and for a forked skill's child: renders the system prompt (the catalog when
    /// `load_skill` is offered) and the tool definitions once, and sizes the context budget.
    pub(crate) fn assemble(
        settings: Settings,
        skills: SkillTools,
        context: ToolContext,
        model: Option<&'static str>,
        effort: Option<Effort>,
    ) -> Result<Agent, AgentError> {
        let mut definitions = ToolDefinitions::new();
        let registry = &skills.skills;
        let system = if skills.load_skill {
            // The build-time JSON of the registry (or the restricted one's own rendering),
            // parsed once.
            let tools = [
                (
                    LOAD_SKILL,
                    true,
                    registry.load_skill_tool_anthropic(),
                    registry.load_skill_tool_openai(),
                ),
                (
                    READ_SKILL_RESOURCE,
                    skills.read_resource,
                    registry.read_resource_tool_anthropic(),
                    registry.read_resource_tool_openai(),
                ),
            ];
            for (name, offered, anthropic, openai) in tools {
                if offered {
                    definitions
                        .push_rendered(name, anthropic.unwrap_or(""), openai.unwrap_or(""))
                        .map_err(|source| ConfigError::ToolJson {
                            tool: name.to_owned(),
                            source,
                        })?;
                }
            }
            registry.system_prompt(&settings.preamble)
        } else {
            settings.preamble.clone()
        };
        for tool in &settings.tools {
            definitions
                .push(tool.name(), tool.description(), &tool.input_schema())
                .map_err(|source| ConfigError::ToolJson {
                    tool: tool.name().to_owned(),
                    source,
                })?;
        }
        let budget = Budget::new(
            settings.context_window,
            settings.reply_reserve,
            &*settings.provider,
            model,
            &system,
            &definitions,
        );
        Ok(Agent {
            redactor: settings.provider.redactor(),
            settings,
            skills,
            definitions,
            system,
            context,
            model,
            effort,
            budget,
        })
    }

    /// This agent with other skills: what [`AgentBuilder::skills`](crate::AgentBuilder::skills)
    /// with `skills` would have built, the rest of the configuration the same. The trigger
    /// evals offer one skill at a time this way
    /// ([`EvalOptions::isolated`](crate::eval::EvalOptions::isolated)).
    pub fn with_skills(&self, skills: impl Into<Registry>) -> Result<Agent, AgentError> {
        Agent::assemble(
            self.settings.clone(),
            SkillTools::new(skills.into(), self.skills.offer),
            self.context.clone(),
            self.model,
            self.effort,
        )
    }

    /// The system prompt sent with every request.
    pub fn system_prompt(&self) -> &str {
        &self.system
    }

    /// The tools offered with every request.
    pub fn tool_definitions(&self) -> &ToolDefinitions {
        &self.definitions
    }

    /// The skills behind `load_skill` (empty of use when the tool is left out).
    pub fn skills(&self) -> &Registry {
        &self.skills.skills
    }

    /// The provider.
    pub fn provider(&self) -> &dyn Provider {
        &*self.settings.provider
    }

    /// What masks the provider's API key in what this agent reports and keeps: its events,
    /// final answers and transcripts already go through it; a program that shows or stores
    /// other text of the conversation (a [`Session::conversation`]) can use it too. Masks
    /// nothing when the key is a placeholder ([`is_placeholder_key`](crate::is_placeholder_key)).
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// `text` the model sent, fit for a log line: the key and key-shaped words masked,
    /// control characters made spaces ([`redact`](crate::redact)).
    pub(crate) fn log_text(&self, text: &str) -> String {
        crate::redact::redact(text, self.redactor.secret())
    }

    /// The canonical working directory.
    pub fn workdir(&self) -> &std::path::Path {
        self.context.workdir()
    }

    /// A new, empty conversation, with a new [`id`](Session::id).
    pub fn session(&self) -> Session {
        let id = crate::session::new_session_id();
        let loader = SkillLoader::new(self.skills.skills.clone())
            .with_session_id(Some(id.clone()))
            .with_effort(self.effort)
            .with_project_dir(Some(self.context.workdir().to_owned()));
        Session {
            id,
            conversation: Conversation::new(),
            loader: match &self.settings.resource_dir {
                Some(dir) => loader.with_resource_dir(dir),
                None => loader,
            },
            tracker: self.settings.tracker.clone(),
            usage: Usage::default(),
            active: Vec::new(),
            transcript: None,
            recorded_loaded: BTreeSet::new(),
            recorded_active: 0,
            sizes: SizeCache::default(),
            files: SessionFiles::new(self.context.root(), self.settings.max_transcript_bytes),
            redactor: self.redactor.clone(),
        }
    }

    /// Continues the session kept in the transcript at `path` (see
    /// [`Session::with_transcript`]): its messages, the skills it loaded (a second `load_skill`
    /// gets the short note, not the text again) and the skills active in it; later messages
    /// are appended to the same file. A missing file starts a new, empty session there.
    ///
    /// The file is input like any other ([`transcript`](crate#transcripts)): a path through a
    /// symbolic link in the working directory, a FIFO, a device, a file with several hard links
    /// or one over [`AgentBuilder::max_transcript_bytes`](crate::AgentBuilder::max_transcript_bytes)
    /// fails with [`AgentError::Transcript`] before anything is read. A last line cut short by
    /// a crash, and an assistant turn whose tool results were never written, are skipped with
    /// a `tracing` warning and stay in the file; a damaged line elsewhere fails with
    /// [`AgentError::Transcript`]. A recorded skill this agent does not have is skipped with a
    /// warning. Token usage and the failure tracker start afresh.
    pub fn resume(&self, path: impl AsRef<Path>) -> Result<Session, AgentError> {
        let path = path.as_ref();
        let mut session = self.session();
        let (transcript, replayed) =
            Transcript::open(path, &session.files, session.redactor.clone())?;
        for line in replayed {
            for name in &line.skills_loaded {
                match self.skills.skills.get(name) {
                    Some(skill) => {
                        skills_bundle::__private::mark_loaded(&mut session.loader, skill);
                        session.recorded_loaded.insert(skill.name());
                    }
                    None => tracing::warn!(
                        path = %path.display(),
                        skill = %name,
                        "transcript: a loaded skill this agent does not have; skipped"
                    ),
                }
            }
            for name in &line.skills_active {
                match self.skills.skills.get(name) {
                    Some(skill) => session.activate(skill),
                    None => tracing::warn!(
                        path = %path.display(),
                        skill = %name,
                        "transcript: an active skill this agent does not have; skipped"
                    ),
                }
            }
            session.conversation.push(line.message);
        }
        session.recorded_active = session.active.len();
        session.transcript = Some(transcript);
        tracing::info!(
            path = %path.display(),
            messages = session.conversation.len(),
            skills_active = session.active.len(),
            "session resumed"
        );
        Ok(session)
    }

    /// The tools offered in `session` now: all of them, or in strict mode while an active
    /// skill lists `allowed-tools`, only the listed ones and the skill tools.
    pub(crate) fn offered_tools(&self, session: &Session) -> Option<ToolDefinitions> {
        if !self.settings.strict_allowed_tools || !session.restricted() {
            return None;
        }
        Some(self.definitions.filtered(|name| {
            name == LOAD_SKILL
                || name == READ_SKILL_RESOURCE
                || session.allowed_entries().any(|e| e.agent_tool() == name)
        }))
    }
}
