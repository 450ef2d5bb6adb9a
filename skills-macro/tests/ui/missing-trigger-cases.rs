// The lint `missing_trigger_cases` (allow by default) reports a skill without `evals/triggers.json`
// cases.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/missing-trigger-cases", missing_trigger_cases = "deny");

fn main() {
    assert!(SKILLS.is_empty());
}
