static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/metadata-not-string");

fn main() {
    assert!(SKILLS.is_empty());
}
