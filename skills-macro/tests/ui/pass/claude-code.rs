// Skills written for Claude Code compile with `compat = "claude-code"`: every extension key is
// known and typed.

static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code", compat = "claude-code");

fn main() {
    assert_eq!(SKILLS.len(), 5);
    let agent = SKILLS.get("agent-development").unwrap();
    assert_eq!(agent.display_name(), "Agent Development");
    assert_eq!(agent.effort(), Some(skills_runtime::Effort::High));
    assert!(SKILLS.get("deploy").is_some());
    assert!(!SKILLS.catalog().contains("deploy"));
}
