static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/unclosed-frontmatter");

fn main() {
    assert!(SKILLS.is_empty());
}
