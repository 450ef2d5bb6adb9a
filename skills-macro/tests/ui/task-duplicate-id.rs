static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/task-duplicate-id");

fn main() {
    assert!(SKILLS.is_empty());
}
