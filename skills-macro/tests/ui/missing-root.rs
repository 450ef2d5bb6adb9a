static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/does-not-exist");

fn main() {
    assert!(SKILLS.is_empty());
}
