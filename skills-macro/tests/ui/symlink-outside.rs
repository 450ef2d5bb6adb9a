static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/symlink-outside/root");

fn main() {
    assert!(SKILLS.is_empty());
}
