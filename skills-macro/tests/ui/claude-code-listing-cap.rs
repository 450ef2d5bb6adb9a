// Claude Code cuts `description - when_to_use` at 1,536 characters in its listing: past that the
// model would not see the rest, so it is an error.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/claude-code-listing-cap", compat = "claude-code");

fn main() {
    assert!(SKILLS.is_empty());
}
