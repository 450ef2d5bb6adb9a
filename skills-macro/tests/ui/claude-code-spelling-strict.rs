// In strict mode a camelCase spelling of a Claude Code key is an unknown key, and the help names
// the key and the option.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-spelling-strict");

fn main() {}
