static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/file-too-large", max_file_size = 200);

fn main() {
    assert!(SKILLS.is_empty());
}
