static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/not-utf8");

fn main() {
    assert!(SKILLS.is_empty());
}
