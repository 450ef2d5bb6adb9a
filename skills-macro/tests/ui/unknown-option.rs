static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/valid", allow_unknown = true);

fn main() {
    assert!(SKILLS.is_empty());
}
