static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/task-bad-check");

fn main() {
    assert!(SKILLS.is_empty());
}
