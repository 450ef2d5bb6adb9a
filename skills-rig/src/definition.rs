//! The description and argument schema rig asks a tool for, read from the definition the
//! registry renders (the same JSON the agent and the MCP server send), so the texts and the
//! schemas with the names as an enum have one implementation.

use serde::Deserialize;
use serde_json::Value;

/// One tool definition as the registry renders it in the Anthropic shape (`name`,
/// `description`, `input_schema`), the shape closest to rig's own `ToolDefinition`.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Definition {
    pub(crate) name: String,
    pub(crate) description: String,
    #[serde(rename = "input_schema")]
    pub(crate) parameters: Value,
}

impl Definition {
    /// The definition of the tool `name` in `json`, or `None` when the registry offers no such
    /// tool (`json` is `None`: no skill to list) or the text is not that tool's definition.
    pub(crate) fn parse(json: Option<&str>, name: &str) -> Option<Definition> {
        serde_json::from_str(json?)
            .ok()
            .filter(|definition: &Definition| definition.name == name)
    }
}
