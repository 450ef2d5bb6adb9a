//! The [`Index`]: everything the server answers with, derived once from the embedded bytes
//! (the listings of skills, resources and folders, the files by URI, the tools, the server's
//! configuration and instructions, Claude Code's skill index).

use std::collections::{BTreeMap, HashMap};

use rmcp::model::{
    DIRECTORY_MIME_TYPE, Implementation, Resource as McpResource, ServerCapabilities, ServerConfig,
    Skill as McpSkill, SkillFrontmatter, SkillResource, SkillResources, Tool,
};
use serde_json::{Map, Value};
use skills_bundle::{Registry, Skill};

use crate::claude_index;
use crate::mime::mime_type_of;
use crate::options::Options;
use crate::page::Listing;
use crate::uri::{folder_uri, uri_of};

/// Everything derived from the embedded bytes, computed once.
pub(crate) struct Index {
    /// What rmcp's capability checks ask for on every request: built once, cloned, without
    /// the instructions (the catalog, a few KB), which only `initialize` and `server/discover`
    /// answer with.
    pub(crate) info: ServerConfig,
    /// The server's instructions (the catalog, or as much of it as hosts keep).
    pub(crate) instructions: String,
    /// The Skills extension's listing: the skills the model may load, within the per-skill
    /// limits.
    pub(crate) skills: Vec<McpSkill>,
    /// The skills left out of the listing for their size: name, files, bytes.
    pub(crate) over_limits: Vec<(&'static str, usize, u64)>,
    /// `skill://index.json`, the listing in the shape Claude Code imports.
    pub(crate) claude_index: String,
    /// The pages of `skills` and their cursors.
    pub(crate) skill_pages: Listing,
    pub(crate) resources: Vec<McpResource>,
    /// The pages of `resources` and their cursors.
    pub(crate) resource_pages: Listing,
    pub(crate) files: HashMap<String, File>,
    /// Every folder's URI (`skill://<name>` and `skill://<name>/<path>`, no trailing `/`) and
    /// its direct children, by name.
    pub(crate) directories: HashMap<String, Vec<McpResource>>,
    pub(crate) tools: Vec<Tool>,
}

pub(crate) struct File {
    pub(crate) bytes: &'static [u8],
    pub(crate) text: Option<&'static str>,
    pub(crate) mime_type: Option<&'static str>,
}

impl Index {
    pub(crate) fn build(registry: &Registry, options: &Options) -> Self {
        let mut skills = Vec::new();
        let mut over_limits = Vec::new();
        let mut resources = Vec::new();
        let mut files = HashMap::new();
        let mut directories = HashMap::new();
        for skill in registry.iter() {
            let skill_md = uri_of(skill.name(), "SKILL.md");
            let content = skill.content();
            // The SKILL.md digest was computed at build time; only resources are hashed here.
            let mut manifest = vec![SkillResource::new(
                &skill_md,
                format!("sha256:{}", skill.sha256()),
                content.len() as u64,
            )];
            // Named as the Skills extension asks: the frontmatter's name (the skill's
            // identifier, as `skills/list` gives it), the display name as the title.
            resources.push(
                McpResource::new(&skill_md, skill.name())
                    .with_title(skill.display_name())
                    .with_description(skill.description())
                    .with_mime_type("text/markdown")
                    .with_size(content.len() as u64),
            );
            files.insert(
                skill_md.clone(),
                File {
                    bytes: content.as_bytes(),
                    text: Some(content),
                    mime_type: Some("text/markdown"),
                },
            );
            // Folder path -> child name -> child, both sorted.
            let mut folders: BTreeMap<&str, BTreeMap<&str, McpResource>> = BTreeMap::new();
            folders.entry("").or_default().insert(
                "SKILL.md",
                McpResource::new(&skill_md, "SKILL.md")
                    .with_mime_type("text/markdown")
                    .with_size(content.len() as u64),
            );
            for (index, resource) in skill.resources().iter().enumerate() {
                let uri = uri_of(skill.name(), resource.path());
                add_to_folders(
                    &mut folders,
                    skill.name(),
                    resource.path(),
                    &uri,
                    resource.size(),
                );
                let digest = skills_bundle::__private::resource_sha256(skill, index);
                manifest.push(SkillResource::new(
                    &uri,
                    format!("sha256:{digest}"),
                    resource.size(),
                ));
                let mime_type = mime_type_of(resource.path());
                let mut listed =
                    McpResource::new(&uri, format!("{}/{}", skill.name(), resource.path()))
                        .with_size(resource.size());
                if let Some(mime_type) = mime_type {
                    listed = listed.with_mime_type(mime_type);
                }
                resources.push(listed);
                files.insert(
                    uri,
                    File {
                        bytes: resource.bytes(),
                        text: resource.text().filter(|t| !t.contains('\0')),
                        mime_type,
                    },
                );
            }
            for (folder, children) in folders {
                directories.insert(
                    folder_uri(skill.name(), folder),
                    children.into_values().collect(),
                );
            }
            // The Skills extension is how a host shows skills to its model: a person-only
            // skill stays out of it (as out of the catalog) and is offered as a prompt. A
            // skill over the limits stays out too: a host need not accept it.
            let bytes: u64 = manifest.iter().map(|file| file.size).sum();
            if manifest.len() > options.max_files || bytes > options.max_bytes {
                over_limits.push((skill.name(), manifest.len(), bytes));
            } else if skill.model_invocable() {
                skills.push(McpSkill::new(
                    skill_md,
                    frontmatter(skill),
                    SkillResources::Files(manifest),
                ));
            }
        }
        let tools = [
            registry.load_skill_tool_anthropic(),
            registry.read_resource_tool_anthropic(),
        ]
        .into_iter()
        .flatten()
        .filter_map(tool_from_anthropic)
        .map(|mut tool| {
            // The agent's description points at its system prompt, which no MCP host shows.
            if tool.name == skills_core::render::LOAD_SKILL_TOOL {
                tool.description = Some(skills_core::mcp::LOAD_SKILL_DESCRIPTION.into());
            }
            tool
        })
        .collect::<Vec<_>>();
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_prompts()
            .enable_skills_with_directory_read();
        let capabilities = if tools.is_empty() {
            capabilities.build()
        } else {
            capabilities.enable_tools().build()
        };
        let info = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            "skills-runtime",
            env!("CARGO_PKG_VERSION"),
        ));
        let entries: Vec<_> = registry.iter().map(Skill::catalog_entry).collect();
        let instructions =
            skills_core::mcp::instructions(&entries, skills_core::mcp::INSTRUCTIONS_LIMIT).text;
        Self {
            info,
            instructions,
            claude_index: claude_index::render(&skills),
            skill_pages: Listing::new(
                "skills/list",
                skills.iter().map(|s| s.uri.as_str()),
                options.page_size,
            ),
            skills,
            over_limits,
            resource_pages: Listing::new(
                "resources/list",
                resources.iter().map(|r| r.uri.as_str()),
                options.page_size,
            ),
            resources,
            files,
            directories,
            tools,
        }
    }
}

/// An MCP tool from the Anthropic definition (`name`, `description`, `input_schema`).
fn tool_from_anthropic(json: &str) -> Option<Tool> {
    let Value::Object(mut tool) = serde_json::from_str(json).ok()? else {
        return None;
    };
    let name = tool.get("name")?.as_str()?.to_owned();
    let description = tool.get("description")?.as_str()?.to_owned();
    let Value::Object(schema) = tool.remove("input_schema")? else {
        return None;
    };
    Some(Tool::new(name, description, schema))
}

/// Enters the file at `path` (with `uri` and `size`) and every folder above it in `folders`.
fn add_to_folders<'a>(
    folders: &mut BTreeMap<&'a str, BTreeMap<&'a str, McpResource>>,
    skill: &str,
    path: &'a str,
    uri: &str,
    size: u64,
) {
    let mut parent = "";
    for (end, _) in path.match_indices('/') {
        let folder = &path[..end];
        let name = folder[parent.len()..].trim_start_matches('/');
        folders.entry(parent).or_default().insert(
            name,
            McpResource::new(folder_uri(skill, folder), name).with_mime_type(DIRECTORY_MIME_TYPE),
        );
        folders.entry(folder).or_default();
        parent = folder;
    }
    let name = path[parent.len()..].trim_start_matches('/');
    let mut file = McpResource::new(uri, name).with_size(size);
    if let Some(mime_type) = mime_type_of(path) {
        file = file.with_mime_type(mime_type);
    }
    folders.entry(parent).or_default().insert(name, file);
}

/// The frontmatter of `skill`: every field the author wrote, in the author's order, from the
/// JSON the macro wrote at build time. `name` is the skill's identifier (the folder, in Claude
/// Code mode, where `name` may be a display name) and `description` is always present (the
/// inferred one, when the file has none).
fn frontmatter(skill: &Skill) -> SkillFrontmatter {
    let mut fields = skills_bundle::__private::frontmatter_json(skill)
        .and_then(|json| serde_json::from_str::<Map<String, Value>>(json).ok())
        .unwrap_or_default();
    fields.shift_remove("name");
    let description = match fields.shift_remove("description") {
        Some(Value::String(text)) => text,
        _ => skill.description().to_owned(),
    };
    let mut frontmatter = SkillFrontmatter::new(skill.name(), description);
    frontmatter.extra = fields;
    frontmatter
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_files_enter_every_folder_above_them() {
        let mut folders = BTreeMap::new();
        add_to_folders(&mut folders, "s", "a/b/c.md", "skill://s/a/b/c.md", 3);
        add_to_folders(&mut folders, "s", "a/d.txt", "skill://s/a/d.txt", 4);
        let listing = |folder: &str| -> Vec<(String, String, Option<u64>, Option<String>)> {
            folders[folder]
                .values()
                .map(|r| (r.uri.clone(), r.name.clone(), r.size, r.mime_type.clone()))
                .collect()
        };
        let directory = Some(DIRECTORY_MIME_TYPE.to_owned());
        assert_eq!(
            folders.keys().copied().collect::<Vec<_>>(),
            ["", "a", "a/b"]
        );
        assert_eq!(
            listing(""),
            [("skill://s/a".into(), "a".into(), None, directory.clone())]
        );
        assert_eq!(
            listing("a"),
            [
                ("skill://s/a/b".into(), "b".into(), None, directory),
                (
                    "skill://s/a/d.txt".into(),
                    "d.txt".into(),
                    Some(4),
                    Some("text/plain".into())
                ),
            ]
        );
        assert_eq!(
            listing("a/b"),
            [(
                "skill://s/a/b/c.md".into(),
                "c.md".into(),
                Some(3),
                Some("text/markdown".into())
            )]
        );
        assert_eq!(folder_uri("s", ""), "skill://s");
    }
}
