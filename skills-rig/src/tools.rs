//! [`SkillTools`]: a registry and one conversation's memory of the skills it loaded, shared by
//! the two rig tools it hands out.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rig_core::tool::Tool;
use skills_bundle::{Registry, SkillLoad, SkillLoader, UnknownSkill};

use crate::definition::Definition;
use crate::load::LoadSkill;
use crate::resource::ReadSkillResource;

/// The skills of a [`Registry`] for one rig conversation: the `load_skill` and
/// `read_skill_resource` tools and the preamble that lists the catalog.
///
/// The tools it hands out share its memory of what was loaded (a [`SkillLoader`]): the first
/// `load_skill` of a skill returns the body, a later one a short note. Clones share that memory
/// too. rig's agent is reused across prompts, so give each conversation its own `SkillTools`
/// (an agent built with it), or call [`reset`](Self::reset) when a new one starts: a
/// conversation that never saw a body must not be told it was loaded.
///
/// Person-only skills (`disable-model-invocation: true`) are not in the preamble nor the tools'
/// enums, and both tools answer for them as for an unknown name; a
/// [`restrict`](Registry::restrict)ed registry shows and serves only its own skills.
#[derive(Clone, Debug)]
pub struct SkillTools {
    skills: Registry,
    loader: Arc<Mutex<SkillLoader>>,
}

impl SkillTools {
    /// The tools of `skills` for a new conversation.
    pub fn new(skills: impl Into<Registry>) -> Self {
        let skills = skills.into();
        SkillTools {
            loader: Arc::new(Mutex::new(SkillLoader::new(skills.clone()))),
            skills,
        }
    }

    /// The skills these tools serve.
    pub fn skills(&self) -> &Registry {
        &self.skills
    }

    /// `preamble`, then the catalog and a sentence about `load_skill`: exactly
    /// [`Registry::system_prompt`]. Just `preamble` when no skill is shown to the model.
    pub fn preamble(&self, preamble: &str) -> String {
        self.skills.system_prompt(preamble)
    }

    /// The `load_skill` tool, or `None` when the registry has no skill the model may load
    /// (the tool is then left out, as the agent and the MCP server leave it out).
    pub fn load_skill(&self) -> Option<LoadSkill> {
        let definition =
            Definition::parse(self.skills.load_skill_tool_anthropic(), LoadSkill::NAME)?;
        Some(LoadSkill::new(self.clone(), definition))
    }

    /// The `read_skill_resource` tool, or `None` when no skill the model may load ships files
    /// besides `SKILL.md`.
    pub fn read_skill_resource(&self) -> Option<ReadSkillResource> {
        let definition = Definition::parse(
            self.skills.read_resource_tool_anthropic(),
            ReadSkillResource::NAME,
        )?;
        Some(ReadSkillResource::new(self.clone(), definition))
    }

    /// Whether `name` was loaded in this conversation.
    pub fn is_loaded(&self, name: &str) -> bool {
        self.loader().is_loaded(name)
    }

    /// Forgets what was loaded: a new conversation starts.
    pub fn reset(&self) {
        self.loader().reset();
    }

    /// One `load_skill(name)`, remembered.
    pub(crate) fn load(&self, name: &str) -> Result<SkillLoad, UnknownSkill> {
        self.loader().load(name)
    }

    fn loader(&self) -> MutexGuard<'_, SkillLoader> {
        // The loader is a set of names: a panic elsewhere while it was held leaves it usable.
        self.loader.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl From<&Registry> for SkillTools {
    fn from(skills: &Registry) -> Self {
        SkillTools::new(skills)
    }
}

impl From<Registry> for SkillTools {
    fn from(skills: Registry) -> Self {
        SkillTools::new(skills)
    }
}
