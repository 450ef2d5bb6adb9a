static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/invalid-name");

fn main() {
    assert!(SKILLS.is_empty());
}
