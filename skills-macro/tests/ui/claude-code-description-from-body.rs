// Claude Code takes a missing description from the first line of the body (a heading's text): under
// `compat = "claude-code"` so do we, with a warning.
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/claude-code-description-from-body", compat = "claude-code");

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
