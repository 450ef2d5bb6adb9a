// A skill's `agents/openai.yaml` (Codex's file) is read at build time: each problem at its line.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/openai-yaml-invalid");

fn main() {}
