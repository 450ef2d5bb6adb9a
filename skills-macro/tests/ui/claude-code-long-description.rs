// A description over the spec's 1,024 characters loads in Claude Code (its listing takes up to 1,536):
// under `compat = "claude-code"` it compiles with a warning.
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/claude-code-long-description", compat = "claude-code");

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
