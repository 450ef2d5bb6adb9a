static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/duplicate-across-roots/team",
    "fixtures/duplicate-across-roots/vendor"
);

fn main() {
    assert!(SKILLS.is_empty());
}
