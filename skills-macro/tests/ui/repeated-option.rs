static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/valid",
    max_file_size = 1_000_000,
    max_file_size = 10,
);

fn main() {
    assert!(SKILLS.is_empty());
}
