// The folder is made by tests/ui.rs before the cases compile (`skills_test_support::hostile`).
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/generated/special-file");

fn main() {
    assert!(SKILLS.is_empty());
}
