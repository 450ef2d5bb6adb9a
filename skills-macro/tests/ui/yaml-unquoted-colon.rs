static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/fixtures/yaml-unquoted-colon");

fn main() {
    assert!(SKILLS.is_empty());
}
