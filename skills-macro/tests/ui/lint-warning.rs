// A lint at its default level (warn) is a warning in normal cargo output; denying warnings here
// makes it fail, so the snapshot shows exactly what the user sees.
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/prompt-override");

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
