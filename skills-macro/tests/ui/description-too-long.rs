static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/description-too-long");

fn main() {
    assert!(SKILLS.is_empty());
}
