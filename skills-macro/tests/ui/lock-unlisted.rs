static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "tests/fixtures/lock-unlisted/skills",
    lock = "tests/fixtures/lock-unlisted/skills.lock"
);

fn main() {
    assert!(SKILLS.is_empty());
}
