//! The errors of the bundle: an unknown skill name, a refused invocation, a resource that
//! cannot be read. Each says what exists and suggests the closest name.

use std::fmt;

use skills_core::render;

/// Two registries given to [`Registry::compose`](crate::Registry::compose) both have a skill
/// of this name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateSkill {
    name: &'static str,
}

impl DuplicateSkill {
    pub(crate) fn new(name: &'static str) -> Self {
        DuplicateSkill { name }
    }

    /// The name two registries have.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl fmt::Display for DuplicateSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "skill `{}` is in more than one of the registries composed: one would shadow the other",
            self.name
        )
    }
}

impl std::error::Error for DuplicateSkill {}

/// A skill name that is not in the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSkill {
    requested: String,
    available: Vec<&'static str>,
    ambiguous: Vec<&'static str>,
}

impl UnknownSkill {
    pub(crate) fn new(requested: &str, available: impl Iterator<Item = &'static str>) -> Self {
        UnknownSkill {
            requested: requested.to_owned(),
            available: available.collect(),
            ambiguous: Vec::new(),
        }
    }

    /// The same error, for a name that is the display name of every skill in `skills` (two or
    /// more): no one of them is meant more than another.
    pub(crate) fn ambiguous_among(mut self, skills: Vec<&'static str>) -> Self {
        if skills.len() > 1 {
            self.ambiguous = skills;
        }
        self
    }

    /// The skills whose display name the requested name is, when there are several (so it names
    /// none of them); empty otherwise.
    pub fn ambiguous(&self) -> &[&'static str] {
        &self.ambiguous
    }

    /// The name that was asked for.
    pub fn requested(&self) -> &str {
        &self.requested
    }

    /// The names that exist.
    pub fn available(&self) -> &[&'static str] {
        &self.available
    }

    /// The closest existing name, if one is close enough to be a likely typo.
    pub fn suggestion(&self) -> Option<&'static str> {
        render::closest_match(&self.requested, self.available.iter().copied())
    }
}

impl fmt::Display for UnknownSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.ambiguous.is_empty() {
            return write!(
                f,
                "\"{}\" is the display name of {} skills: {}. Use the name of the one you mean.",
                self.requested,
                self.ambiguous.len(),
                self.ambiguous.join(", ")
            );
        }
        f.write_str(&render::unknown_skill_message(
            &self.requested,
            &self.available,
        ))
    }
}

impl std::error::Error for UnknownSkill {}

/// Why [`Registry::invoke`](crate::Registry::invoke) refused a `/name arguments`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvokeError {
    /// No skill of that name a person may invoke; the error lists the ones there are and
    /// suggests the closest.
    Unknown(UnknownSkill),
    /// The skill exists but says `user-invocable: false`: only the model loads it.
    NotUserInvocable {
        /// The skill's name.
        name: &'static str,
    },
}

impl InvokeError {
    /// The closest name a person may invoke, when the name was unknown and one is close.
    pub fn suggestion(&self) -> Option<&'static str> {
        match self {
            InvokeError::Unknown(unknown) => unknown.suggestion(),
            InvokeError::NotUserInvocable { .. } => None,
        }
    }

    /// Whether no skill had that name.
    pub fn is_unknown(&self) -> bool {
        matches!(self, InvokeError::Unknown(_))
    }
}

impl fmt::Display for InvokeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvokeError::Unknown(unknown) => unknown.fmt(f),
            InvokeError::NotUserInvocable { name } => write!(
                f,
                "skill \"{name}\" cannot be invoked as /{name}: it says `user-invocable: false`, \
                 so only the model loads it"
            ),
        }
    }
}

impl std::error::Error for InvokeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InvokeError::Unknown(unknown) => Some(unknown),
            InvokeError::NotUserInvocable { .. } => None,
        }
    }
}

/// Why a resource could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceError {
    /// No skill of that name in the set.
    UnknownSkill(UnknownSkill),
    /// The skill has no file at that path.
    UnknownPath {
        /// The skill asked for.
        skill: &'static str,
        /// The path asked for.
        path: String,
        /// The paths that exist.
        available: Vec<&'static str>,
    },
    /// `offset` is past the end of the file.
    OffsetOutOfRange {
        /// The offset asked for (1-based line).
        offset: usize,
        /// Lines in the file.
        lines: usize,
    },
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceError::UnknownSkill(error) => error.fmt(f),
            ResourceError::UnknownPath {
                skill,
                path,
                available,
            } if available.is_empty() => {
                write!(
                    f,
                    "The skill \"{skill}\" has no file \"{path}\"; it ships no files besides SKILL.md."
                )
            }
            ResourceError::UnknownPath {
                skill,
                path,
                available,
            } => {
                write!(f, "The skill \"{skill}\" has no file \"{path}\".")?;
                if let Some(close) = render::closest_match(path, available.iter().copied()) {
                    write!(f, " Did you mean \"{close}\"?")?;
                }
                write!(f, " Its files: {}.", available.join(", "))
            }
            ResourceError::OffsetOutOfRange { offset, lines } => {
                write!(
                    f,
                    "offset {offset} is past the end of the file ({lines} lines)"
                )
            }
        }
    }
}

impl std::error::Error for ResourceError {}
