static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/lock-gone/skills",
    lock = "fixtures/lock-gone/skills.lock"
);

fn main() {
    assert!(SKILLS.is_empty());
}
