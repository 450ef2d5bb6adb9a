// The folder is made by tests/ui.rs before the cases compile (see tests/hostile_fixtures).
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("tests/fixtures/generated/special-file");

fn main() {
    assert!(SKILLS.is_empty());
}
