static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/foreign-resource");

fn main() {
    assert!(SKILLS.is_empty());
}
