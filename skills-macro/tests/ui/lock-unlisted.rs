static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/lock-unlisted/skills",
    lock = "fixtures/lock-unlisted/skills.lock"
);

fn main() {
    assert!(SKILLS.is_empty());
}
