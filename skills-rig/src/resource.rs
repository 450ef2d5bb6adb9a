//! `read_skill_resource` as a rig [`Tool`].

use rig_core::tool::{Tool, ToolContext, ToolExecutionError};
use serde::Deserialize;
use skills_bundle::ResourceError;

use crate::definition::Definition;
use crate::tools::SkillTools;

/// The `read_skill_resource` tool: a file shipped beside a skill's `SKILL.md`, served from the
/// binary, answered as [`Registry::read_resource`] answers.
///
/// Made by [`SkillTools::read_skill_resource`]. Only skills the model may load are served: a
/// person-only skill's files are refused as an unknown skill's are. Failures are a
/// [`ResourceError`], whose text is what the model reads.
///
/// [`Registry::read_resource`]: skills_bundle::Registry::read_resource
#[derive(Clone, Debug)]
pub struct ReadSkillResource {
    tools: SkillTools,
    definition: Definition,
}

/// The arguments of `read_skill_resource`.
#[derive(Clone, Debug, Deserialize)]
pub struct ReadSkillResourceArgs {
    /// The skill that ships the file.
    pub skill: String,
    /// The file's path inside the skill's folder.
    pub path: String,
    /// The first line to read (1-based).
    pub offset: Option<usize>,
    /// The most lines to read.
    pub limit: Option<usize>,
}

impl SkillTools {
    /// The `read_skill_resource` tool, or `None` when no skill the model may load ships files
    /// besides `SKILL.md`.
    pub fn read_skill_resource(&self) -> Option<ReadSkillResource> {
        let definition = Definition::parse(
            self.skills().read_resource_tool_anthropic(),
            ReadSkillResource::NAME,
        )?;
        Some(ReadSkillResource {
            tools: self.clone(),
            definition,
        })
    }
}

impl Tool for ReadSkillResource {
    const NAME: &'static str = skills_core::render::READ_RESOURCE_TOOL;
    type Args = ReadSkillResourceArgs;
    type Output = String;
    type Error = ResourceError;

    fn description(&self) -> String {
        self.definition.description.clone()
    }

    fn parameters(&self) -> serde_json::Value {
        self.definition.parameters.clone()
    }

    /// The model reads the error's own text (the files there are, the closest path).
    fn map_error(&self, error: ResourceError) -> ToolExecutionError {
        let message = error.to_string();
        match error {
            ResourceError::UnknownSkill(_) | ResourceError::UnknownPath { .. } => {
                ToolExecutionError::not_found(message)
            }
            _ => ToolExecutionError::invalid_args(message),
        }
        .with_source(error)
    }

    async fn call(
        &self,
        _context: &mut ToolContext,
        args: ReadSkillResourceArgs,
    ) -> Result<String, ResourceError> {
        let skills = self.tools.skills();
        skills_bundle::__private::model_skill(skills, &args.skill)
            .map_err(ResourceError::UnknownSkill)?;
        skills.read_resource(&args.skill, &args.path, args.offset, args.limit)
    }
}
