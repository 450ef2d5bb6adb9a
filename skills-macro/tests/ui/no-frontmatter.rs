static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/no-frontmatter");

fn main() {
    assert!(SKILLS.is_empty());
}
