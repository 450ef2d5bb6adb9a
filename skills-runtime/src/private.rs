//! Not public API. The items `embed_skills!` expands to; they may change in any release.

use crate::{Registry, Resource, Skill};

/// A string of a skill: a byte range of the embedded file text, or a literal when the decoded
/// YAML value does not appear verbatim in the file (escapes, folded block scalars).
#[derive(Clone, Copy, Debug)]
pub enum Text {
    /// `content[start..end]`.
    Slice(u32, u32),
    /// A separate literal.
    Literal(&'static str),
}

impl Text {
    pub(crate) fn resolve(self, content: &'static str) -> &'static str {
        match self {
            // The macro computed the range on the same text; `get` keeps this safe regardless.
            Text::Slice(start, end) => content.get(start as usize..end as usize).unwrap_or(""),
            Text::Literal(text) => text,
        }
    }
}

/// The optional fields, shared as one static [`EMPTY_EXTRA`] by skills that set none.
#[derive(Debug)]
pub struct SkillExtra {
    pub license: Option<Text>,
    pub compatibility: Option<Text>,
    pub metadata: &'static [(&'static str, &'static str)],
    pub allowed_tools: &'static [&'static str],
    pub version: Option<Text>,
    pub tags: &'static [&'static str],
    pub when_not_to_use: Option<Text>,
    pub requires: &'static [&'static str],
    pub conflicts_with: &'static [&'static str],
    pub resources: &'static [Resource],
    /// Hash over `SKILL.md` and the resources; `None` when there are no resources.
    pub tree_sha256: Option<&'static str>,
}

/// The extra fields of a skill that sets no optional field; generated code fills in only the
/// fields a skill sets and takes the rest from here.
pub const NO_EXTRA: SkillExtra = SkillExtra {
    license: None,
    compatibility: None,
    metadata: &[],
    allowed_tools: &[],
    version: None,
    tags: &[],
    when_not_to_use: None,
    requires: &[],
    conflicts_with: &[],
    resources: &[],
    tree_sha256: None,
};

/// [`NO_EXTRA`] as a static, shared by every skill that sets no optional field.
pub static EMPTY_EXTRA: SkillExtra = NO_EXTRA;

/// Everything the macro knows about one skill.
#[derive(Clone, Copy, Debug)]
pub struct SkillParts {
    pub content: &'static str,
    pub name: Text,
    pub description: Text,
    pub body: Text,
    pub sha256: &'static str,
    pub path: &'static str,
    pub extra: &'static SkillExtra,
}

/// Builds a [`Resource`].
pub const fn resource(
    path: &'static str,
    bytes: &'static [u8],
    is_text: bool,
    executable: bool,
) -> Resource {
    Resource {
        path,
        bytes,
        is_text,
        executable,
    }
}

/// Builds a [`Skill`].
pub const fn skill(parts: SkillParts) -> Skill {
    Skill { parts }
}

/// Builds a [`Registry`]. `skills` must be sorted by name with no duplicates and `index` be
/// `skills_core::index::build` of their names; the macro ensures both.
pub const fn registry(
    skills: &'static [Skill],
    index: &'static [u32],
    catalog: &'static str,
    tool_anthropic: &'static str,
    tool_openai: &'static str,
) -> Registry {
    Registry {
        skills,
        index,
        catalog,
        tool_anthropic,
        tool_openai,
    }
}

/// What the macro expands to after reporting errors: an empty registry of the right type, so
/// user code does not drown in follow-on errors.
pub const EMPTY_REGISTRY: Registry = Registry::empty();
