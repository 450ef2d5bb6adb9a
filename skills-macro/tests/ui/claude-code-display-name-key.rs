// `display_name` (in any of its spellings) follows the rules of a display name.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-display-name-key", compat = "claude-code");

fn main() {}
