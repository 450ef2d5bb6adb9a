// `background` says how a forked skill runs; without `context: fork` it would be ignored.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-background-without-fork", compat = "claude-code");

fn main() {}
