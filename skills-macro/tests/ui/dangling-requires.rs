static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/dangling-requires");

fn main() {
    assert!(SKILLS.is_empty());
}
