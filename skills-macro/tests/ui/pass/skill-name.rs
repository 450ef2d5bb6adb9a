// A name checked at build time is the name itself, usable in a `const` and with the registry.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/skill-name");
const REVIEW: &str = skills_runtime::skill_name!("fixtures/skill-name", "alpha-review");

fn main() {
    assert_eq!(REVIEW, "alpha-review");
    assert!(SKILLS.get(REVIEW).is_some());
    let beta: &'static str =
        skills_runtime::skill_name!("fixtures/skill-name", "beta", compat = "strict");
    assert_eq!(SKILLS.get(beta).unwrap().name(), "beta");
}
