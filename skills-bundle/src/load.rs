//! The `load_skill` tool with per-conversation memory of what was already loaded.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skills_core::render;

use crate::Effort;
use crate::bundle::Skill;
use crate::error::UnknownSkill;
use crate::invoke::{InvokeOptions, Rendering};
use crate::registry::Registry;

/// Handles `load_skill` calls for one conversation.
///
/// The first load of a skill returns its body; a second load in the same conversation returns a
/// short note instead, so the context does not fill up with copies.
#[derive(Clone, Debug)]
pub struct SkillLoader {
    skills: Registry,
    loaded: BTreeSet<&'static str>,
    resource_dir: Option<PathBuf>,
    session_id: Option<String>,
    effort: Option<Effort>,
    project_dir: Option<PathBuf>,
}

/// What [`SkillLoader::load_rendering`] produced: the first load's text still to finish (its
/// shell commands to run or keep), or the short note of a later one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadRendering {
    /// First load in this conversation.
    Loaded(Rendering),
    /// Loaded before in this conversation: `text` is a short note.
    AlreadyLoaded {
        /// The skill.
        skill: &'static Skill,
        /// The tool result text.
        text: String,
    },
}

/// What a `load_skill` call produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkillLoad {
    /// First load in this conversation: `text` is the wrapped body.
    Loaded {
        /// The skill.
        skill: &'static Skill,
        /// The tool result text.
        text: String,
    },
    /// Loaded before in this conversation: `text` is a short note.
    AlreadyLoaded {
        /// The skill.
        skill: &'static Skill,
        /// The tool result text.
        text: String,
    },
}

impl SkillLoad {
    /// The tool result text.
    pub fn text(&self) -> &str {
        match self {
            SkillLoad::Loaded { text, .. } | SkillLoad::AlreadyLoaded { text, .. } => text,
        }
    }

    /// The skill that was asked for.
    pub fn skill(&self) -> &'static Skill {
        match self {
            SkillLoad::Loaded { skill, .. } | SkillLoad::AlreadyLoaded { skill, .. } => skill,
        }
    }
}

impl SkillLoader {
    /// A loader for a new conversation over `skills`.
    pub fn new(skills: impl Into<Registry>) -> Self {
        SkillLoader {
            skills: skills.into(),
            loaded: BTreeSet::new(),
            resource_dir: None,
            session_id: None,
            effort: None,
            project_dir: None,
        }
    }

    /// The value of `${CLAUDE_SESSION_ID}` in what this loader returns (`None`: left as
    /// written).
    pub fn with_session_id(mut self, id: Option<String>) -> Self {
        self.session_id = id;
        self
    }

    /// The value of `${CLAUDE_EFFORT}` for a skill without an `effort` of its own (`None`: left
    /// as written for those).
    pub fn with_effort(mut self, effort: Option<Effort>) -> Self {
        self.effort = effort;
        self
    }

    /// The value of `${CLAUDE_PROJECT_DIR}`, the working directory (`None`: left as written).
    /// `${CLAUDE_SKILL_DIR}` is where [`with_resource_dir`](Self::with_resource_dir) wrote the
    /// skill's files, when it did.
    pub fn with_project_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.project_dir = dir;
        self
    }

    /// Writes a skill's files under `dir` when a skill that has any is loaded, and names the
    /// directory in the result, so the model can run its scripts with `bash`. Without this the
    /// result lists the files for `read_skill_resource`. Nothing is written for skills without
    /// files, nor before a load. See [`Skill::materialize`].
    pub fn with_resource_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.resource_dir = Some(dir.into());
        self
    }

    /// Where skills with files are written, if anywhere.
    pub fn resource_dir(&self) -> Option<&Path> {
        self.resource_dir.as_deref()
    }

    /// The skills this loader serves.
    pub fn skills(&self) -> &Registry {
        &self.skills
    }

    /// Handles one `load_skill(name)` call. A skill with `disable-model-invocation: true` is
    /// not loaded: to the model it does not exist (it is not in the catalog either), so the
    /// error lists only the skills the model is shown. Shell commands stay as written (see
    /// [`load_rendering`](Self::load_rendering) to run them).
    pub fn load(&mut self, name: &str) -> Result<SkillLoad, UnknownSkill> {
        Ok(match self.load_rendering(name)? {
            LoadRendering::Loaded(rendering) => SkillLoad::Loaded {
                skill: rendering.skill(),
                text: rendering.text(),
            },
            LoadRendering::AlreadyLoaded { skill, text } => {
                SkillLoad::AlreadyLoaded { skill, text }
            }
        })
    }

    /// [`load`](Self::load), with the first load's text left as a [`Rendering`], so that the
    /// caller can run its shell commands and put their output in place.
    pub fn load_rendering(&mut self, name: &str) -> Result<LoadRendering, UnknownSkill> {
        let skill = self.skills.model_skill(name)?;
        if !self.loaded.insert(skill.name()) {
            return Ok(LoadRendering::AlreadyLoaded {
                skill,
                text: render::already_loaded_note(skill.name()),
            });
        }
        let options = InvokeOptions {
            resource_dir: self.resource_dir.as_deref(),
            session_id: self.session_id.as_deref(),
            effort: self.effort,
            project_dir: self.project_dir.as_deref(),
        };
        Ok(LoadRendering::Loaded(Rendering::new(skill, None, &options)))
    }

    /// Counts `skill` as loaded, so a later `load_skill` gets the short note (a person invoked
    /// it, and its text is already in the conversation).
    pub(crate) fn mark_loaded(&mut self, skill: &'static Skill) {
        self.loaded.insert(skill.name());
    }

    /// Counts `name` as not loaded after all (its first load failed to finish, say a shell
    /// command of its text), so the next `load_skill` tries again instead of giving the note.
    pub fn forget(&mut self, name: &str) {
        self.loaded.remove(name);
    }

    /// Whether `name` was loaded in this conversation.
    pub fn is_loaded(&self, name: &str) -> bool {
        self.loaded.contains(name)
    }

    /// Forgets what was loaded (a new conversation).
    pub fn reset(&mut self) {
        self.loaded.clear();
    }
}
