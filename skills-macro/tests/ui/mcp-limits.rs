// A skill over the MCP Skills extension's 512 files or 16 MiB is the lint `mcp_limits`, a warning
// by default (here 513 files); denying warnings makes the snapshot show it.
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/mcp-limits");

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
