//! Not public API: the items the code `embed_skills!` generates names, and what the agent
//! (`skills-agent`), the MCP server (`skills-mcp-server`) and the rig tools (`skills-rig`) need
//! beyond the public API. They may change in any release.

use skills_core::layout::Field;

pub use crate::bundle::{BundleData, Cache, Tasks, Triggers, resource, skills};
#[cfg(feature = "folders")]
pub use crate::folders::{BuildError, registry_from_bundle};
use crate::{Registry, Skill, SkillLoader, UnknownSkill};

/// The registry of a bundle. The macro sorted the skills by name (no duplicates) and built
/// the index from their names.
pub const fn registry(data: &'static BundleData) -> Registry {
    Registry::from_bundle(data)
}

/// What the macro expands to after reporting errors: an empty registry of the right type, so
/// user code does not drown in follow-on errors.
pub const EMPTY_REGISTRY: Registry = Registry::empty();

/// The registry layout this runtime reads; the generated code checks it against the one the
/// macro wrote.
pub const LAYOUT_VERSION: u32 = skills_core::layout::VERSION;

// What the agent (`skills-agent`) and the MCP server (`skills-mcp-server`) need beyond the
// public API: the same answers the registry gives, without a second implementation.

/// The skill `name` if the model may load it, else the error `load_skill` gives (the skills the
/// model is shown, and the closest of them).
pub fn model_skill(registry: &Registry, name: &str) -> Result<&'static Skill, UnknownSkill> {
    registry.model_skill(name)
}

/// Counts `skill` as loaded in `loader`'s conversation (a person invoked it, so its text is
/// already there).
pub fn mark_loaded(loader: &mut SkillLoader, skill: &'static Skill) {
    loader.mark_loaded(skill);
}

/// The frontmatter of `skill` as compact JSON text, every key in the author's order, written
/// at build time; `None` when the macro was built without its `frontmatter-json` feature
/// (`skills-mcp-server` turns it on).
pub fn frontmatter_json(skill: &Skill) -> Option<&'static str> {
    skill.record().text(Field::Frontmatter)
}

/// The SHA-256 (lowercase hex, computed at build time) of `skill`'s resource `index`, in the
/// order of [`Skill::resources`]; empty past the end.
pub fn resource_sha256(skill: &Skill, index: usize) -> &'static str {
    skill.resource_sha256(index)
}

/// The error for `requested`, a name none of `available` is.
pub fn unknown_skill(
    requested: &str,
    available: impl Iterator<Item = &'static str>,
) -> UnknownSkill {
    UnknownSkill::new(requested, available)
}

/// The tables of `registry`'s bundle, to compare a registry built at run time with the macro's.
pub fn bundle_data(registry: &Registry) -> &'static BundleData {
    registry.bundle_data()
}
