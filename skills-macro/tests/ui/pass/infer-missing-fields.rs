// Importing an old folder: `name` comes from the folder, `description` from the first body line.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/legacy", infer_missing_fields = true);

fn main() {
    let skill = SKILLS.get("old-helper").unwrap();
    assert_eq!(skill.description(), "Formats release notes from a changelog");
    assert_eq!(skill.license(), Some("MIT"));
    assert_eq!(SKILLS.catalog(), "- old-helper: Formats release notes from a changelog");
}
