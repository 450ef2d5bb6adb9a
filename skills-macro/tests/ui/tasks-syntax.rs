static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/tasks-syntax");

fn main() {
    assert!(SKILLS.is_empty());
}
