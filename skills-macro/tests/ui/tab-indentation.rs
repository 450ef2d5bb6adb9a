static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/tab-indentation");

fn main() {
    assert!(SKILLS.is_empty());
}
