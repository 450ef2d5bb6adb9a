// With `compat = "claude-code"`, Claude Code's fields are typed: a quoted "true" is not a bool.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("tests/fixtures/claude-code-wrong-type", compat = "claude-code");

fn main() {}
