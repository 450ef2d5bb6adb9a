static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/lock-changed/skills",
    lock = "fixtures/lock-changed/skills.lock"
);

fn main() {
    assert!(SKILLS.is_empty());
}
