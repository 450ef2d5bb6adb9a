// `${CLAUDE_SKILL_DIR}`, `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}` are
// substituted at run time; any other `${CLAUDE_...}` stays as written, with a warning.
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/claude-code-unknown-variable", compat = "claude-code");

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
