// `agent` names the agent of a forked context; without `context: fork` it would be ignored.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/agent-without-fork", compat = "claude-code");

fn main() {}
