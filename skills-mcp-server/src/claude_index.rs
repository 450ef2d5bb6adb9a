//! `skill://index.json`: the Skills extension's listing in the shape Claude Code's import of
//! MCP skills reads, for hosts that read a resource instead of calling `skills/list`.
//!
//! Claude Code (behind its `tengu_mcp_skills` flag) reads this one resource when a server
//! declares the extension and resources, and checks it against this shape:
//!
//! ```json
//! {"skills": [{"frontmatter": {"name": "...", "description": "...", ...},
//!              "url": "skill://name/SKILL.md", "digest": "sha256:<hex>"}]}
//! ```
//!
//! For each entry it reads `url` with `resources/read`, compares the SHA-256 of the text with
//! `digest` (with or without the `sha256:` prefix) and turns the file into a command named
//! `<server>:<frontmatter.name>`; it takes at most 100 entries. `allowed-tools` and `hooks` of
//! such a skill are ignored there.

use rmcp::model::{Skill as McpSkill, SkillResources};
use serde_json::{Value, json};

/// The URI of the index.
pub(crate) const URI: &str = "skill://index.json";

/// The index of `skills` (the extension's listing, so the same skills, frontmatter and
/// digests), as JSON text.
pub(crate) fn render(skills: &[McpSkill]) -> String {
    let entries: Vec<Value> = skills
        .iter()
        .map(|skill| {
            let digest = match &skill.resources {
                SkillResources::Files(files) => files
                    .iter()
                    .find(|file| file.uri == skill.uri)
                    .map(|file| file.digest.clone()),
                _ => None,
            };
            json!({
                "frontmatter": skill.frontmatter,
                "url": skill.uri,
                "digest": digest,
            })
        })
        .collect();
    json!({ "skills": entries }).to_string()
}
