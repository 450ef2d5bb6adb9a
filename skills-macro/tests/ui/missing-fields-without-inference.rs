// The same legacy folder without `infer_missing_fields`: both keys are reported missing.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/legacy");

fn main() {
    assert!(SKILLS.is_empty());
}
