static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/trigger-duplicate-query");

fn main() {
    assert!(SKILLS.is_empty());
}
