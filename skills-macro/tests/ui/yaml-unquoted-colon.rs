static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/yaml-unquoted-colon");

fn main() {
    assert!(SKILLS.is_empty());
}
