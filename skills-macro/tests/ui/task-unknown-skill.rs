static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/task-unknown-skill");

fn main() {
    assert!(SKILLS.is_empty());
}
