// Claude Code reads `display-name`, `display_name` and `displayName` as one key: two of them in
// one frontmatter are that key twice.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-spelled-twice", compat = "claude-code");

fn main() {}
