// `agents/openai.yaml` lets the model load the skill, `SKILL.md` does not: a warning (denied here,
// so the snapshot shows it).
#![deny(warnings)]

static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/openai-yaml-disagrees", compat = "claude-code");

fn main() {
    // Either file keeping the skill from the model keeps it out.
    assert!(!SKILLS.get("deploy").unwrap().model_invocable());
}
