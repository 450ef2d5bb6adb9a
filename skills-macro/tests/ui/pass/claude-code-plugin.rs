// Skills shaped like Anthropic's Claude Code plugin skills compile under `compat = "claude-code"`: a
// meta-skill naming example paths in code spans, display names, an unquoted `version`, a
// `${CLAUDE_PLUGIN_ROOT}` in the body, `!`command`` blocks. (Their warnings have UI cases of their
// own.) The `evals/` folder is never a resource.

static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-plugin", compat = "claude-code");

fn main() {
    assert_eq!(SKILLS.len(), 3);
    let authoring = SKILLS.get("skill-authoring").unwrap();
    assert_eq!(authoring.display_name(), "Skill Authoring");
    assert_eq!(authoring.version(), Some("0.3.1"));
    let files: Vec<&str> = authoring.resources().iter().map(|r| r.path()).collect();
    assert_eq!(
        files,
        ["examples/minimal.md", "references/layout.md", "scripts/check-skill.sh"]
    );
    assert!(SKILLS.read_resource("skill-authoring", "evals/triggers.json", None, None).is_err());
    assert!(!authoring.load_result().contains("evals"));
    assert_eq!(SKILLS.get("hook-writing").unwrap().display_name(), "Hook Writing");
    assert!(SKILLS.catalog().contains("- hook-writing: This skill should be used"));
    assert!(!SKILLS.catalog().contains("release-check"));
}
