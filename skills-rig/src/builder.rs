//! [`AgentBuilderExt::skills`]: the catalog and both tools on rig's agent builder in one call.

use rig_agent::AgentBuilder;
use rig_agent::agent::{NoToolConfig, WithBuilderTools};

use crate::tools::SkillTools;

/// Adds a bundle's skills to rig's [`AgentBuilder`]: `.skills(&SKILLS)`.
///
/// Implemented for the builder before and after its first `.tool(...)`, so the rest of the
/// builder chain stays as it was.
pub trait AgentBuilderExt: Sized {
    /// Appends the catalog to the preamble (a blank line, `Skills available:`, one line per
    /// skill the model may load, a sentence about `load_skill`) and adds the `load_skill` and
    /// `read_skill_resource` tools; a tool no skill needs is left out, and a registry with no
    /// skill for the model adds nothing.
    ///
    /// Call it after [`preamble`](AgentBuilder::preamble): a later `preamble` replaces the whole
    /// text, the catalog with it. After `.preamble(p)`, the preamble is exactly
    /// [`SkillTools::preamble`]`(p)`.
    ///
    /// Pass `&SKILLS` (a [`Registry`](skills_bundle::Registry), for an agent per conversation)
    /// or a [`SkillTools`] you keep, to [`reset`](SkillTools::reset) what the conversation has
    /// loaded.
    fn skills(self, skills: impl Into<SkillTools>) -> AgentBuilder<WithBuilderTools>;
}

impl AgentBuilderExt for AgentBuilder<NoToolConfig> {
    fn skills(self, skills: impl Into<SkillTools>) -> AgentBuilder<WithBuilderTools> {
        // No tools yet: enter the builder's with-tools state, then add ours.
        self.dynamic_tools(Vec::new()).skills(skills)
    }
}

impl AgentBuilderExt for AgentBuilder<WithBuilderTools> {
    fn skills(self, skills: impl Into<SkillTools>) -> AgentBuilder<WithBuilderTools> {
        let skills = skills.into();
        let mut builder = self;
        let catalog = skills.preamble("");
        if !catalog.is_empty() {
            // `append_preamble` joins with one newline; the catalog starts after a blank line,
            // as `Registry::system_prompt` puts it.
            builder = builder.append_preamble(&format!("\n{catalog}"));
        }
        if let Some(tool) = skills.load_skill() {
            builder = builder.tool(tool);
        }
        if let Some(tool) = skills.read_skill_resource() {
            builder = builder.tool(tool);
        }
        builder
    }
}
