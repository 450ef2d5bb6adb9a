//! Not public API. The items `embed_skills!` expands to; they may change in any release.

use crate::{Effort, Registry, Resource, Shell, Skill, SkillContext};

/// A string of a skill: the byte range `[start, end)` of the skill's one embedded literal (the
/// normalized file, then a tail holding the hashes, the source path and any decoded value that
/// does not appear verbatim in the file). Plain integers: no pointer, no relocation, and the
/// cheapest thing for rustc to type-check in a large expansion.
pub type Span = [u32; 2];

/// An absent optional string.
pub const NONE: Span = [u32::MAX, u32::MAX];

/// `text[span]`; the macro computed the range on the same literal, `get` keeps this safe
/// regardless.
pub(crate) fn resolve(text: &'static str, span: Span) -> &'static str {
    text.get(span[0] as usize..span[1] as usize).unwrap_or("")
}

/// Like [`resolve`], `None` for [`NONE`].
pub(crate) fn resolve_optional(text: &'static str, span: Span) -> Option<&'static str> {
    (span != NONE).then(|| resolve(text, span))
}

/// The optional fields of a skill that sets any; the others read [`NO_EXTRA`].
#[derive(Debug)]
pub struct SkillExtra {
    pub license: Span,
    pub compatibility: Span,
    pub metadata: &'static [(&'static str, &'static str)],
    pub allowed_tools: &'static [&'static str],
    pub version: Span,
    pub tags: &'static [&'static str],
    pub when_not_to_use: Span,
    pub requires: &'static [&'static str],
    pub conflicts_with: &'static [&'static str],
    pub resources: &'static [Resource],
    /// Hash over `SKILL.md` and the resources; [`NONE`] when there are no resources.
    pub tree_sha256: Span,
    // Claude Code's fields.
    pub display_name: Span,
    pub when_to_use: Span,
    pub argument_hint: Span,
    pub arguments: &'static [&'static str],
    pub model_invocable: bool,
    pub user_invocable: bool,
    pub disallowed_tools: &'static [&'static str],
    pub model: Span,
    pub effort: Option<Effort>,
    pub context: Option<SkillContext>,
    pub agent: Span,
    /// `hooks` as compact JSON text.
    pub hooks: Span,
    pub paths: &'static [&'static str],
    pub shell: Option<Shell>,
}

/// The extra fields of a skill that sets no optional field; generated code fills in only the
/// fields a skill sets and takes the rest from here.
pub const NO_EXTRA: SkillExtra = SkillExtra {
    license: NONE,
    compatibility: NONE,
    metadata: &[],
    allowed_tools: &[],
    version: NONE,
    tags: &[],
    when_not_to_use: NONE,
    requires: &[],
    conflicts_with: &[],
    resources: &[],
    tree_sha256: NONE,
    display_name: NONE,
    when_to_use: NONE,
    argument_hint: NONE,
    arguments: &[],
    model_invocable: true,
    user_invocable: true,
    disallowed_tools: &[],
    model: NONE,
    effort: None,
    context: None,
    agent: NONE,
    hooks: NONE,
    paths: &[],
    shell: None,
};

/// Everything the macro knows about one skill.
#[derive(Clone, Copy, Debug)]
pub struct SkillParts {
    /// The normalized `SKILL.md` followed by the tail (see [`Span`]).
    pub text: &'static str,
    /// Length of the normalized file at the start of `text`.
    pub content_len: u32,
    pub name: Span,
    pub description: Span,
    pub body: Span,
    pub sha256: Span,
    pub path: Span,
    /// `None` for a skill that sets no optional field: a null pointer needs no relocation.
    pub extra: Option<&'static SkillExtra>,
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
    Registry::from_bundle(skills, index, catalog, tool_anthropic, tool_openai)
}

/// `registry` checked against a lock whose SHA-256 is `digest` (`lock = "..."`).
pub const fn with_lock_digest(registry: Registry, digest: &'static str) -> Registry {
    registry.with_lock_digest(digest)
}

/// What the macro expands to after reporting errors: an empty registry of the right type, so
/// user code does not drown in follow-on errors.
pub const EMPTY_REGISTRY: Registry = Registry::empty();
