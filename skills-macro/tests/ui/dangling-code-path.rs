// In strict mode a path in a code span that names no file is an error: the lint `dangling_code_path`
// is `deny` by default.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/dangling-code-path");

fn main() {
    assert!(SKILLS.is_empty());
}
