// The lint `portable` (allow by default) reports a key that hosted uploads (claude.ai, the
// Anthropic and OpenAI Skills APIs) refuse.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/portable", portable = "deny");

fn main() {
    assert!(SKILLS.is_empty());
}
