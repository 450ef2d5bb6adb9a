// In strict mode a Claude Code key is unknown, and the help names the option that accepts it.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-key-strict");

fn main() {}
