//! `load_skill` as a rig [`Tool`].

use rig_core::tool::{Tool, ToolContext, ToolExecutionError};
use serde::Deserialize;
use skills_bundle::UnknownSkill;

use crate::definition::Definition;
use crate::tools::SkillTools;

/// The `load_skill` tool: the body of a skill, wrapped as [`Registry::load_skill`] wraps it,
/// the first time a conversation asks; a short note after that (see [`SkillTools`]).
///
/// Made by [`SkillTools::load_skill`]. An unknown or person-only name fails with the
/// [`UnknownSkill`] error, whose text (the skills the model may load, and the closest name) is
/// what the model reads.
///
/// [`Registry::load_skill`]: skills_bundle::Registry::load_skill
#[derive(Clone, Debug)]
pub struct LoadSkill {
    tools: SkillTools,
    definition: Definition,
}

/// The arguments of `load_skill`.
#[derive(Clone, Debug, Deserialize)]
pub struct LoadSkillArgs {
    /// The name of the skill to load.
    pub name: String,
}

impl SkillTools {
    /// The `load_skill` tool, or `None` when the registry has no skill the model may load
    /// (the tool is then left out, as the agent and the MCP server leave it out).
    pub fn load_skill(&self) -> Option<LoadSkill> {
        let definition =
            Definition::parse(self.skills().load_skill_tool_anthropic(), LoadSkill::NAME)?;
        Some(LoadSkill {
            tools: self.clone(),
            definition,
        })
    }
}

impl Tool for LoadSkill {
    const NAME: &'static str = skills_bundle::LOAD_SKILL_TOOL;
    type Args = LoadSkillArgs;
    type Output = String;
    type Error = UnknownSkill;

    fn description(&self) -> String {
        self.definition.description.clone()
    }

    fn parameters(&self) -> serde_json::Value {
        self.definition.parameters.clone()
    }

    /// The model reads the error's own text: it names the skills there are. (rig's default
    /// shows the model only "the tool failed".)
    fn map_error(&self, error: UnknownSkill) -> ToolExecutionError {
        ToolExecutionError::not_found(error.to_string()).with_source(error)
    }

    async fn call(
        &self,
        _context: &mut ToolContext,
        args: LoadSkillArgs,
    ) -> Result<String, UnknownSkill> {
        self.tools
            .load(&args.name)
            .map(|load| load.text().to_owned())
    }
}
