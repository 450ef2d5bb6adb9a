static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/many-broken");

fn main() {
    assert!(SKILLS.is_empty());
}
