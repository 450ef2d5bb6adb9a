static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/name-mismatch");

fn main() {
    assert!(SKILLS.is_empty());
}
