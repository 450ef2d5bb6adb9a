//! [`OpenAiYaml`]: a skill's `agents/openai.yaml`, Codex's file, as the build read and checked
//! it (the file itself is one of the skill's resources too).

use skills_core::layout::openai as keys;

/// What a skill's `agents/openai.yaml` says: how Codex shows the skill (`interface`), what it
/// needs (`dependencies.tools`) and whether the model may load it by itself (`policy`). The
/// build already applied the policy and the display name: `allow_implicit_invocation: false`
/// makes [`Skill::model_invocable`](crate::Skill::model_invocable) false, and `display_name` is
/// [`Skill::display_name`](crate::Skill::display_name) when `SKILL.md` gives none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenAiYaml {
    pub(crate) pairs: &'static [(&'static str, &'static str)],
}

/// One of `dependencies.tools`: something the skill needs, such as an MCP server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolDependency {
    /// `type` (`mcp`, `env_var`, `cli`, ...).
    pub kind: &'static str,
    /// `value`: the tool's name or identifier (an MCP server's name, a variable, a program).
    pub value: &'static str,
    /// `description`.
    pub description: Option<&'static str>,
    /// `transport` of an MCP server (`streamable_http`, `stdio`).
    pub transport: Option<&'static str>,
    /// `command` that starts a stdio MCP server.
    pub command: Option<&'static str>,
    /// `url` of an MCP server.
    pub url: Option<&'static str>,
}

impl OpenAiYaml {
    fn get(&self, key: &str) -> Option<&'static str> {
        self.pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// `interface.display_name`: the title Codex shows.
    pub fn display_name(&self) -> Option<&'static str> {
        self.get(keys::DISPLAY_NAME)
    }

    /// `interface.short_description`: Codex's short blurb for the skill.
    pub fn short_description(&self) -> Option<&'static str> {
        self.get(keys::SHORT_DESCRIPTION)
    }

    /// `interface.icon_small`: a file of the skill under `assets/` (as written, `./` dropped
    /// or not).
    pub fn icon_small(&self) -> Option<&'static str> {
        self.get(keys::ICON_SMALL)
    }

    /// `interface.icon_large`: a file of the skill under `assets/`.
    pub fn icon_large(&self) -> Option<&'static str> {
        self.get(keys::ICON_LARGE)
    }

    /// `interface.brand_color`, `#RRGGBB`.
    pub fn brand_color(&self) -> Option<&'static str> {
        self.get(keys::BRAND_COLOR)
    }

    /// `interface.default_prompt`: the prompt Codex offers to start with the skill.
    pub fn default_prompt(&self) -> Option<&'static str> {
        self.get(keys::DEFAULT_PROMPT)
    }

    /// `policy.allow_implicit_invocation`, if the file sets it (Codex's default is `true`).
    pub fn allow_implicit_invocation(&self) -> Option<bool> {
        self.get(keys::ALLOW_IMPLICIT_INVOCATION)
            .map(|value| value == "true")
    }

    /// `policy.products`, in order.
    pub fn products(&self) -> impl Iterator<Item = &'static str> {
        self.pairs
            .iter()
            .filter(|(k, _)| *k == keys::PRODUCT)
            .map(|(_, v)| *v)
    }

    /// `dependencies.tools`, in order.
    pub fn tool_dependencies(&self) -> Vec<ToolDependency> {
        let mut tools: Vec<ToolDependency> = Vec::new();
        for &(key, value) in self.pairs {
            if key == keys::TOOL_TYPE {
                tools.push(ToolDependency {
                    kind: value,
                    ..ToolDependency::default()
                });
                continue;
            }
            let Some(tool) = tools.last_mut() else {
                continue;
            };
            match key {
                keys::TOOL_VALUE => tool.value = value,
                keys::TOOL_DESCRIPTION => tool.description = Some(value),
                keys::TOOL_TRANSPORT => tool.transport = Some(value),
                keys::TOOL_COMMAND => tool.command = Some(value),
                keys::TOOL_URL => tool.url = Some(value),
                _ => {}
            }
        }
        tools
    }
}
