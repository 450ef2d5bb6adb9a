//! The JSON definitions of the two skill tools, `load_skill` and `read_skill_resource`, in
//! both API shapes, with the renderers the macro uses: each rendered once per registry, for the
//! whole bundle when first asked for (into its cache), for a restricted registry when made.
//! Apart, so that a program that never asks for `read_skill_resource` does not carry its code.

use skills_core::render;

use crate::bundle::{Skill, ToolJson};

/// `load_skill` listing the skills of `entries` (sorted by name) the model is shown.
pub(crate) fn load_skill(entries: &[render::CatalogEntry<'_>]) -> ToolJson {
    both(
        &render::listed_names(entries),
        render::load_skill_tool_anthropic,
        render::load_skill_tool_openai,
    )
}

/// `read_skill_resource` listing the skills of `skills` the model is shown that ship files.
pub(crate) fn read_resource<'a>(skills: impl Iterator<Item = &'a Skill>) -> ToolJson {
    both(
        &names_with_resources(skills),
        render::read_resource_tool_anthropic,
        render::read_resource_tool_openai,
    )
}

/// Both shapes of a tool listing `names`, or two empty strings when there are none.
fn both(
    names: &[&str],
    anthropic: fn(&[&str]) -> String,
    openai: fn(&[&str]) -> String,
) -> ToolJson {
    if names.is_empty() {
        return [Box::default(), Box::default()];
    }
    [anthropic(names).into(), openai(names).into()]
}

/// The names of `skills` the model may load that ship files besides `SKILL.md`: what
/// `read_skill_resource` offers.
pub(crate) fn names_with_resources<'a>(
    skills: impl Iterator<Item = &'a Skill>,
) -> Vec<&'static str> {
    skills
        .filter(|s| s.model_invocable() && !s.resources().is_empty())
        .map(Skill::name)
        .collect()
}

/// `Some(json)`, or `None` for a tool left out (rendered empty).
pub(crate) fn offered(json: &str) -> Option<&str> {
    (!json.is_empty()).then_some(json)
}
