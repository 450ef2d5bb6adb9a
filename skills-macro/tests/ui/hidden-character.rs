static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/hidden-character");

fn main() {
    assert!(SKILLS.is_empty());
}
