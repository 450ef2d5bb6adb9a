// `effort` is one of Claude Code's levels; the error lists them.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/invalid-effort", compat = "claude-code");

fn main() {}
