// Under `compat = "claude-code"` a path in a code span that names no file is a warning (the lint
// `dangling_code_path`): skills about writing skills name example paths. Denying warnings here
// makes the snapshot show it.
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/claude-code-dangling-code-path", compat = "claude-code");

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
