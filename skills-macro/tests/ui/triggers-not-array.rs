static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/triggers-not-array");

fn main() {
    assert!(SKILLS.is_empty());
}
