//! The `load_skill` tool with per-conversation memory of what was already loaded.

use std::collections::BTreeSet;

use skills_core::render;

use crate::{Skill, SkillSet, UnknownSkill};

/// Handles `load_skill` calls for one conversation.
///
/// The first load of a skill returns its body; a second load in the same conversation returns a
/// short note instead, so the context does not fill up with copies.
#[derive(Clone, Debug)]
pub struct SkillLoader {
    skills: SkillSet,
    loaded: BTreeSet<&'static str>,
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
    pub fn new(skills: impl Into<SkillSet>) -> Self {
        SkillLoader {
            skills: skills.into(),
            loaded: BTreeSet::new(),
        }
    }

    /// The skills this loader serves.
    pub fn skills(&self) -> &SkillSet {
        &self.skills
    }

    /// Handles one `load_skill(name)` call.
    pub fn load(&mut self, name: &str) -> Result<SkillLoad, UnknownSkill> {
        let skill = self
            .skills
            .get(name)
            .ok_or_else(|| self.skills.load_skill(name).unwrap_err())?;
        Ok(if self.loaded.insert(skill.name()) {
            SkillLoad::Loaded {
                skill,
                text: skill.load_result(),
            }
        } else {
            SkillLoad::AlreadyLoaded {
                skill,
                text: render::already_loaded_note(skill.name()),
            }
        })
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
