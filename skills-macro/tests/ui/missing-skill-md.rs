static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/missing-skill-md");

fn main() {
    assert!(SKILLS.is_empty());
}
