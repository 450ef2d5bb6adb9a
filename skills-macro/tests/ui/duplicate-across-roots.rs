static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "tests/fixtures/duplicate-across-roots/team",
    "tests/fixtures/duplicate-across-roots/vendor"
);

fn main() {
    assert!(SKILLS.is_empty());
}
