static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/version-number");

fn main() {
    assert!(SKILLS.is_empty());
}
