static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "tests/fixtures/lock-changed/skills",
    lock = "tests/fixtures/lock-changed/skills.lock"
);

fn main() {
    assert!(SKILLS.is_empty());
}
