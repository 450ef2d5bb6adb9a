//! [`SkillTools`]: a registry and one conversation's memory of the skills it loaded, shared by
//! the two rig tools it hands out ([`load_skill`](SkillTools::load_skill) and
//! [`read_skill_resource`](SkillTools::read_skill_resource), each made in its tool's module).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use skills_bundle::{Registry, SkillLoad, SkillLoader, UnknownSkill};

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
