// What the Agent Skills spec allows and its reference validator accepts: names of lowercase
// letters of any script, and the spec's minimal skill, frontmatter with no body (the
// `empty_body` lint warns about it; a warning does not fail the build).
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/spec-names");

fn main() {
    assert_eq!(
        SKILLS.names().collect::<Vec<_>>(),
        ["café", "minimal", "данные", "数据-分析"]
    );
    assert_eq!(SKILLS.get("minimal").unwrap().body(), "");
    assert_eq!(SKILLS.get("café").unwrap().body(), "Body of café.");
    assert_eq!(SKILLS.get("数据-分析").unwrap().body(), "Body of 数据-分析.");
    assert!(SKILLS.get("cafe\u{301}").is_none());
}
