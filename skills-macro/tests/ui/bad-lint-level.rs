static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/valid", long_body = "error");

fn main() {
    assert!(SKILLS.is_empty());
}
