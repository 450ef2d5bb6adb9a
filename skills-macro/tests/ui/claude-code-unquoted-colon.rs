// Claude Code reads an unquoted `: ` in a value as text; under `compat = "claude-code"` so do we, with
// a warning naming who refuses the file.
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/claude-code-unquoted-colon", compat = "claude-code");

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
