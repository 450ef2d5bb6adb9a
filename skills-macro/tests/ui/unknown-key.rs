static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/unknown-key");

fn main() {
    assert!(SKILLS.is_empty());
}
