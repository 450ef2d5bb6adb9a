//! Skills written for Claude Code, compiled with `compat = "claude-code"`: every extension field
//! reaches a typed accessor, and a skill only a person may invoke is hidden from the model (the
//! catalogs, the system prompt, the `load_skill` names) but still found by name.

use skills_runtime::{Effort, Registry, Shell, SkillContext};

use crate::registries::CLAUDE_CODE as SKILLS;

#[test]
fn the_folder_is_the_name_and_the_display_name_is_kept() {
    let names: Vec<_> = SKILLS.names().collect();
    assert_eq!(
        names,
        [
            "agent-development",
            "code-review",
            "deploy",
            "explain-code",
            "fix-issue"
        ]
    );
    let agent = SKILLS.get("agent-development").unwrap();
    assert_eq!(agent.name(), "agent-development");
    assert_eq!(agent.display_name(), "Agent Development");
    assert_eq!(SKILLS.get("deploy").unwrap().display_name(), "deploy");
    // A display name finds its skill, everywhere a name is taken.
    assert_eq!(SKILLS.get("Agent Development"), Some(agent));
    assert!(
        SKILLS
            .load_skill("Agent Development")
            .unwrap()
            .starts_with("<skill name=\"agent-development\"")
    );
    assert_eq!(
        SKILLS
            .restrict(["Agent Development"])
            .unwrap()
            .names()
            .collect::<Vec<_>>(),
        ["agent-development"]
    );
    assert!(
        SKILLS.get("agent development").is_none(),
        "exactly as written"
    );
}

/// Display names that are not unambiguous: two skills share one (`writer` and `agents` are both
/// `Agent Writer`), and one is another skill's name (`review` is `checks`, the name of the
/// folder `checks/`, whose own display name is `Run Checks`).
static DISPLAY: Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/claude-code-display-names",
    compat = "claude-code"
);

#[test]
fn a_display_name_shared_or_taken_by_a_name_is_not_resolved_to_it() {
    assert!(DISPLAY.get("Agent Writer").is_none());
    let error = DISPLAY.load_skill("Agent Writer").unwrap_err();
    assert_eq!(error.ambiguous(), ["agents", "writer"]);
    assert_eq!(
        error.to_string(),
        "\"Agent Writer\" is the display name of 2 skills: agents, writer. Use the name of the one \
         you mean."
    );
    let error = DISPLAY.invoke("Agent Writer", "").unwrap_err();
    assert!(
        error.to_string().contains("display name of 2 skills"),
        "{error}"
    );
    // A restricted view that keeps only one of them resolves it.
    let view = DISPLAY.restrict(["writer"]).unwrap();
    assert_eq!(view.get("Agent Writer").unwrap().name(), "writer");

    // A name always wins over a display name.
    assert_eq!(DISPLAY.get("checks").unwrap().name(), "checks");
    assert_eq!(DISPLAY.get("Run Checks").unwrap().name(), "checks");
    assert!(
        DISPLAY
            .load_skill("checks")
            .unwrap()
            .contains("CHECKS-BODY")
    );
    // An unknown name is no ambiguity.
    assert!(
        DISPLAY
            .load_skill("nothing")
            .unwrap_err()
            .ambiguous()
            .is_empty()
    );
}

#[test]
fn display_names_resolve_across_composed_registries_as_in_one_bundle() {
    let writer = DISPLAY.restrict(["writer"]).unwrap();
    let with_claude = Registry::compose([&writer, &SKILLS]).unwrap();
    assert_eq!(with_claude.get("Agent Writer").unwrap().name(), "writer");
    assert_eq!(
        with_claude.get("Agent Development").unwrap().name(),
        "agent-development"
    );
    assert_eq!(
        with_claude
            .restrict(["Agent Writer"])
            .unwrap()
            .names()
            .collect::<Vec<_>>(),
        ["writer"]
    );

    // One display name in two composed registries: neither, and the error names both.
    let agents = DISPLAY.restrict(["agents"]).unwrap();
    let shared = Registry::compose([&writer, &agents]).unwrap();
    assert!(shared.get("Agent Writer").is_none());
    let error = shared.load_skill("Agent Writer").unwrap_err();
    assert_eq!(error.ambiguous(), ["agents", "writer"]);
    let error = shared.invoke("Agent Writer", "").unwrap_err();
    assert!(
        error.to_string().contains("display name of 2 skills"),
        "{error}"
    );

    // `review`'s display name is `checks`: it finds `review` until a skill is called `checks`.
    let review = DISPLAY.restrict(["review"]).unwrap();
    let alone = Registry::compose([&review]).unwrap();
    assert_eq!(alone.get("checks").unwrap().name(), "review");
    let checks = DISPLAY.restrict(["checks"]).unwrap();
    let named = Registry::compose([&review, &checks]).unwrap();
    assert_eq!(named.get("checks").unwrap().name(), "checks");
}

#[test]
fn every_extension_field_has_its_value() {
    let agent = SKILLS.get("agent-development").unwrap();
    assert_eq!(
        agent.when_to_use(),
        Some("Also when an existing agent definition needs new tools or a new model.")
    );
    assert_eq!(agent.allowed_tools(), ["Read", "Grep", "Bash(git diff:*)"]);
    assert_eq!(agent.model(), Some("sonnet"));
    assert_eq!(agent.effort(), Some(Effort::High));
    assert_eq!(agent.paths(), ["agents/**/*.md", ".claude/agents/*.md"]);
    assert_eq!(agent.context(), SkillContext::Inherit);
    assert!(agent.model_invocable() && agent.user_invocable());

    let fix = SKILLS.get("fix-issue").unwrap();
    assert_eq!(fix.argument_hint(), Some("[issue-number] [priority]"));
    assert_eq!(fix.argument_names(), ["issue", "priority"]);
    assert_eq!(
        fix.allowed_tools(),
        [
            "Bash(gh issue view:*)",
            "Bash(npm run *)",
            "Edit",
            "mcp__github__create_pull_request"
        ]
    );
    assert_eq!(
        fix.disallowed_tools(),
        ["Bash(git push --force:*)", "WebFetch"]
    );
    assert_eq!(fix.shell(), Some(Shell::Bash));
    assert!(fix.body().contains("$issue"));

    let deploy = SKILLS.get("deploy").unwrap();
    assert!(!deploy.model_invocable());
    assert!(deploy.user_invocable());
    assert_eq!(deploy.context(), SkillContext::Fork);
    assert_eq!(deploy.agent(), Some("general-purpose"));
    assert_eq!(
        deploy.hooks(),
        Some(
            r#"{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./scripts/check-deploy.sh","timeout":30}]}],"Stop":[{"hooks":[{"type":"command","command":"echo done"}]}]}"#
        )
    );

    let review = SKILLS.get("code-review").unwrap();
    assert_eq!(review.effort(), Some(Effort::Max));
    assert!(!review.user_invocable());
    assert_eq!(review.allowed_tools(), ["Read", "Grep", "Glob"]);

    let explain = SKILLS.get("explain-code").unwrap();
    assert_eq!(explain.version(), Some("2"));
    assert_eq!(explain.effort(), None);
    assert_eq!(explain.hooks(), None);
}

#[test]
fn a_skill_only_a_person_invokes_is_hidden_from_the_model() {
    let catalog = SKILLS.catalog();
    assert!(!catalog.contains("deploy"), "{catalog}");
    assert_eq!(catalog.lines().count(), 4);
    assert!(!SKILLS.catalog_xml().contains("deploy"));
    assert!(!SKILLS.system_prompt("Be brief.").contains("deploy"));
    for tool in [
        SKILLS.load_skill_tool_anthropic().unwrap(),
        SKILLS.load_skill_tool_openai().unwrap(),
    ] {
        assert!(!tool.contains("\"deploy\""), "{tool}");
        assert!(tool.contains("\"fix-issue\""), "{tool}");
    }
    assert!(SKILLS.get("deploy").is_some());

    // The same rule on a registry restricted at run time.
    let restricted = SKILLS.restrict(["deploy", "fix-issue"]).unwrap();
    assert!(!restricted.catalog().contains("deploy"));
    assert!(
        !restricted
            .load_skill_tool_anthropic()
            .unwrap()
            .contains("\"deploy\"")
    );
    assert!(restricted.get("deploy").is_some());
    let only_hidden = SKILLS.restrict(["deploy"]).unwrap();
    assert_eq!(only_hidden.catalog(), skills_runtime::EMPTY_CATALOG);
    assert_eq!(only_hidden.system_prompt("Be brief."), "Be brief.");
    assert!(only_hidden.load_skill_tool_anthropic().is_none());
    assert!(only_hidden.load_skill_tool_openai().is_none());
}

#[test]
fn when_to_use_is_appended_to_the_description_in_the_catalog() {
    assert!(SKILLS.catalog().contains(
        "- explain-code: Explains code with diagrams and analogies. When the user asks how a piece of code works."
    ));
}

#[test]
fn load_skill_refuses_a_person_only_skill_as_if_it_did_not_exist() {
    let error = SKILLS.load_skill("deploy").unwrap_err();
    assert_eq!(error.requested(), "deploy");
    assert!(!error.available().contains(&"deploy"), "{error}");
    assert!(SKILLS.load_skill("code-review").is_ok());
    // A person may still invoke it.
    assert!(SKILLS.invoke("deploy", "staging").is_ok());
    // Restricted views answer the same way.
    let view = SKILLS.restrict(["deploy", "code-review"]).unwrap();
    assert!(view.load_skill("deploy").is_err());
    assert!(!view.system_prompt("p").contains("deploy"));
}
