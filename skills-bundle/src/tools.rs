//! The JSON definitions of the two skill tools, `load_skill` and `read_skill_resource`, in
//! both API shapes: rendered once per registry, for the whole bundle on first use (into its
//! cache) and for a restricted registry when it is made, with the renderers the macro uses.

use skills_core::render;

use crate::bundle::{Skill, ToolJson};

impl ToolJson {
    /// The definitions for `skills` (sorted by name): `load_skill` lists the skills the model
    /// is shown, `read_skill_resource` those of them that ship files; empty strings for a tool
    /// with no skill to list.
    pub(crate) fn render<'a>(skills: impl Iterator<Item = &'a Skill> + Clone) -> ToolJson {
        let entries: Vec<_> = skills.clone().map(Skill::catalog_entry).collect();
        let listed = render::listed_names(&entries);
        let with_files = names_with_resources(skills);
        let both =
            |names: &[&str], anthropic: fn(&[&str]) -> String, openai: fn(&[&str]) -> String| {
                if names.is_empty() {
                    [Box::default(), Box::default()]
                } else {
                    [anthropic(names).into(), openai(names).into()]
                }
            };
        ToolJson {
            load_skill: both(
                &listed,
                render::load_skill_tool_anthropic,
                render::load_skill_tool_openai,
            ),
            read_resource: both(
                &with_files,
                render::read_resource_tool_anthropic,
                render::read_resource_tool_openai,
            ),
        }
    }
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
