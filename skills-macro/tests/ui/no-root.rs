static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(max_file_size = 10);

fn main() {
    assert!(SKILLS.is_empty());
}
