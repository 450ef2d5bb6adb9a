// With `compat = "claude-code"`, Claude Code's fields are typed: `model` is one string, not a list.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-wrong-type", compat = "claude-code");

fn main() {}
