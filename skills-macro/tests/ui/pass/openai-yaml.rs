// A skill's `agents/openai.yaml` (Codex's file) is read at build time and honoured:
// `allow_implicit_invocation: false` keeps the skill out of the catalog and the `load_skill`
// names as `disable-model-invocation: true` does, and `display_name` is its display name. The
// file stays one of the skill's files.

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/openai-yaml");

fn main() {
    let deploy = SKILLS.get("deploy").unwrap();
    assert!(!deploy.model_invocable());
    assert_eq!(deploy.display_name(), "Deploy");
    let openai = deploy.openai().unwrap();
    assert_eq!(openai.allow_implicit_invocation(), Some(false));
    assert_eq!(openai.brand_color(), Some("#0F766E"));
    assert_eq!(openai.icon_small(), Some("./assets/rocket.png"));
    let tools = openai.tool_dependencies();
    assert_eq!(tools.len(), 1);
    assert_eq!((tools[0].kind, tools[0].value), ("mcp", "ci"));
    assert_eq!(tools[0].url, Some("http://127.0.0.1:9000/mcp"));
    assert!(deploy.resources().iter().any(|r| r.path() == "agents/openai.yaml"));
    assert_eq!(SKILLS.catalog(), "- lint-fix: Fixes the warnings the linter reports. Use when asked to clean up lint warnings.");
    assert!(!SKILLS.load_skill_tool_anthropic().unwrap().contains("\"deploy\""));
    assert!(SKILLS.load_skill("deploy").is_err());
    let lint = SKILLS.get("lint-fix").unwrap();
    assert!(lint.model_invocable());
    assert_eq!(lint.display_name(), "Lint Fixer");
}
