static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/task-file-missing");

fn main() {
    assert!(SKILLS.is_empty());
}
