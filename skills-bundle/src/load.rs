//! The `load_skill` tool with per-conversation memory of what was already loaded.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skills_core::render;

use crate::bundle::Skill;
use crate::error::UnknownSkill;
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
        }
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
    /// error lists only the skills the model is shown.
    pub fn load(&mut self, name: &str) -> Result<SkillLoad, UnknownSkill> {
        let skill = self.skills.model_skill(name)?;
        Ok(if self.loaded.insert(skill.name()) {
            SkillLoad::Loaded {
                skill,
                text: self.load_text(skill),
            }
        } else {
            SkillLoad::AlreadyLoaded {
                skill,
                text: render::already_loaded_note(skill.name()),
            }
        })
    }

    fn load_text(&self, skill: &'static Skill) -> String {
        let (Some(base), false) = (&self.resource_dir, skill.resources().is_empty()) else {
            return skill.load_result();
        };
        match skill.materialize(base) {
            Ok(dir) => skill.load_result_with_dir(Some(&dir.to_string_lossy())),
            // The files can still be read through `read_skill_resource`; say why they are not
            // on disk rather than failing the load.
            Err(error) => format!(
                "{}\n(The files could not be written to disk: {error}.)",
                skill.load_result()
            ),
        }
    }

    /// Counts `skill` as loaded, so a later `load_skill` gets the short note (a person invoked
    /// it, and its text is already in the conversation).
    pub(crate) fn mark_loaded(&mut self, skill: &'static Skill) {
        self.loaded.insert(skill.name());
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
