// A boolean of Claude Code's is `true`/`false` or one of the words it reads as one (`yes`, `off`,
// `1`, ...); any other value is an error at the value.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-boolean-word", compat = "claude-code");

fn main() {}
