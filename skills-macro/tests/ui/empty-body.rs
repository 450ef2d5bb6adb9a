// An empty body is allowed (the spec's minimal skill has none) and reported by the `empty_body`
// lint, a warning by default; denying warnings here makes the snapshot show what the user sees.
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/empty-body");

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
