// The lint `portable` (allow by default) reports a key that claude.ai's and the Skills API's
// uploads refuse.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/fixtures/portable", portable = "deny");

fn main() {
    assert!(SKILLS.is_empty());
}
