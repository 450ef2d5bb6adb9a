static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/trigger-wrong-type");

fn main() {
    assert!(SKILLS.is_empty());
}
