static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/prompt-override", prompt_override = "deny");

fn main() {
    assert!(SKILLS.is_empty());
}
