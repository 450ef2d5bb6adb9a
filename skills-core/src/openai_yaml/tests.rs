use super::*;
use crate::skill::{ParseOptions, parse};

/// A skill `demo` parsed from `front` in `compat`.
fn skill(front: &str, compat: Compat) -> SkillDef {
    let text = format!("---\nname: demo\ndescription: Does things.\n{front}---\nBody.\n");
    let options = ParseOptions {
        compat,
        ..ParseOptions::default()
    };
    let (def, diagnostics) = parse("skills/demo/SKILL.md", "demo", text.as_bytes(), &options);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    def.unwrap()
}

const FILES: [&str; 3] = [OPENAI_YAML, "assets/icon.png", "assets/logo.svg"];
const SHOWN: &str = "skills/demo/agents/openai.yaml";

/// `yaml` read into `skill`: its diagnostics.
fn read_into(skill: &mut SkillDef, yaml: &str, compat: Compat) -> Vec<Diagnostic> {
    read(SHOWN, yaml.as_bytes(), &FILES, skill, compat)
}

#[test]
fn a_full_file_is_read_and_honoured() {
    let yaml = "interface:\n  display_name: \"Demo  Skill\"\n  short_description: \"Does\n    things\"\n  \
        icon_small: \"./assets/icon.png\"\n  icon_large: assets/logo.svg\n  brand_color: \"#3B82F6\"\n  \
        default_prompt: \"Use $demo to do things.\"\n\
        dependencies:\n  tools:\n    - type: \"mcp\"\n      value: \"github\"\n      description: \"GitHub MCP server\"\n      \
        transport: \"streamable_http\"\n      url: \"https://example.com/mcp\"\n    - value: gh\n      type: cli\n\
        policy:\n  allow_implicit_invocation: false\n  products: [codex-cli]\n";
    let mut def = skill("", Compat::Strict);
    let diagnostics = read_into(&mut def, yaml, Compat::Strict);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let openai = def.openai.as_ref().unwrap();
    let pairs: Vec<(&str, &str)> = openai
        .pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("display_name", "Demo Skill"),
            ("short_description", "Does things"),
            ("icon_small", "./assets/icon.png"),
            ("icon_large", "assets/logo.svg"),
            ("brand_color", "#3B82F6"),
            ("default_prompt", "Use $demo to do things."),
            ("type", "mcp"),
            ("value", "github"),
            ("description", "GitHub MCP server"),
            ("transport", "streamable_http"),
            ("url", "https://example.com/mcp"),
            // The type first, whatever the order in the file: it starts a tool.
            ("type", "cli"),
            ("value", "gh"),
            ("allow_implicit_invocation", "false"),
            ("product", "codex-cli"),
        ]
    );
    // Out of the catalog as `disable-model-invocation: true` would keep it; a display name.
    assert!(!def.claude_code.model_invocable);
    assert!(!def.catalog_entry().is_listed());
    assert_eq!(def.claude_code.display_name.unwrap().value, "Demo Skill");
}

#[test]
fn every_problem_is_an_error_at_its_line() {
    for (yaml, line, says) in [
        ("interface: [a]\n", 1, "must be a mapping"),
        (
            "interfaces:\n  display_name: x\n",
            1,
            "did you mean `interface`?",
        ),
        (
            "interface:\n  display_nam: x\n",
            2,
            "did you mean `display_name`?",
        ),
        ("interface:\n  display_name: 42\n", 2, "quote it"),
        (
            "interface:\n  display_name: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n",
            2,
            "1 to 64 characters",
        ),
        ("interface:\n  short_description: \"\"\n", 2, "1 to 1024"),
        ("interface:\n  brand_color: blue\n", 2, "#RRGGBB"),
        ("interface:\n  brand_color: \"#3B82F\"\n", 2, "#RRGGBB"),
        (
            "interface:\n  icon_small: ../icon.png\n",
            2,
            "under the skill's `assets/`",
        ),
        (
            "interface:\n  icon_small: /etc/passwd\n",
            2,
            "under the skill's `assets/`",
        ),
        (
            "interface:\n  icon_large: assets/../SKILL.md\n",
            2,
            "under the skill's `assets/`",
        ),
        (
            "interface:\n  icon_large: assets/icn.png\n",
            2,
            "not a file of the skill",
        ),
        (
            "dependencies:\n  tools: github\n",
            2,
            "must be a list of tools",
        ),
        (
            "dependencies:\n  tools:\n    - type: mcp\n",
            3,
            "needs `value`",
        ),
        (
            "dependencies:\n  tools:\n    - value: gh\n",
            3,
            "needs `type`",
        ),
        (
            "dependencies:\n  tools:\n    - type: mcp\n      value: x\n      port: 1\n",
            5,
            "unknown key `port`",
        ),
        (
            "policy:\n  allow_implicit_invocation: \"no\"\n",
            2,
            "must be `true` or `false`",
        ),
        ("policy:\n  products: codex\n", 2, "must be a list"),
        (
            "policy:\n  allow_implicit_invocation: false\n  allow_implicit_invocation: true\n",
            3,
            "duplicate",
        ),
        (
            "interface:\n  display_name: x: y\n",
            2,
            "invalid YAML in agents/openai.yaml",
        ),
        ("- a\n", 1, "must be a mapping"),
        ("", 1, "is empty"),
    ] {
        let mut def = skill("", Compat::Strict);
        let diagnostics = read_into(&mut def, yaml, Compat::Strict);
        let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
        assert_eq!(errors.len(), 1, "{yaml:?}: {diagnostics:?}");
        let text = format!("{} {}", errors[0].message(), errors[0].help().unwrap_or(""));
        assert!(text.contains(says), "{yaml:?}: {text}");
        assert_eq!(errors[0].line(), Some(line), "{yaml:?}: {text}");
        assert_eq!(errors[0].path(), SHOWN);
        // Nothing of a file with errors is applied.
        assert_eq!(def.openai, None, "{yaml:?}");
        assert!(def.claude_code.model_invocable);
    }
    let mut def = skill("", Compat::Strict);
    let diagnostics = read(
        SHOWN,
        b"policy:\n  \xff\n",
        &FILES,
        &mut def,
        Compat::Strict,
    );
    assert!(
        diagnostics[0].message().contains("not UTF-8"),
        "{diagnostics:?}"
    );
}

/// The warnings where the two files say different things, and none where they agree.
#[test]
fn disagreements_with_the_frontmatter_are_warned_about() {
    let warnings = |front: &str, yaml: &str, compat: Compat| -> Vec<String> {
        let mut def = skill(front, compat);
        let diagnostics = read_into(&mut def, yaml, compat);
        assert!(diagnostics.iter().all(|d| !d.is_error()), "{diagnostics:?}");
        diagnostics
            .iter()
            .map(|d| {
                assert_eq!(d.code(), Code::OpenaiYamlDisagrees);
                format!("{}: {}", d.line().unwrap_or(0), d.message())
            })
            .collect()
    };
    let differs = warnings(
        "display-name: Claude's Demo\n",
        "interface:\n  display_name: Codex's Demo\n",
        Compat::ClaudeCode,
    );
    assert_eq!(differs.len(), 1, "{differs:?}");
    assert!(
        differs[0].starts_with("2: `interface.display_name` is `Codex's Demo`"),
        "{differs:?}"
    );
    let policy = "policy:\n  allow_implicit_invocation: true\n";
    let differs = warnings(
        "disable-model-invocation: true\n",
        policy,
        Compat::ClaudeCode,
    );
    assert_eq!(differs.len(), 1, "{differs:?}");
    assert!(differs[0].starts_with("2: "), "{differs:?}");
    let differs = warnings(
        "",
        "policy:\n  allow_implicit_invocation: false\n",
        Compat::ClaudeCode,
    );
    assert!(
        differs[0].contains("Claude Code reads `disable-model-invocation`"),
        "{differs:?}"
    );
    let differs = warnings(
        "disable-model-invocation: true\n",
        "interface:\n  display_name: demo\n",
        Compat::ClaudeCode,
    );
    assert!(
        differs[0].contains("Codex reads `policy.allow_implicit_invocation`"),
        "{differs:?}"
    );
    // Agreeing files, and a strict bundle (which has no `disable-model-invocation`): quiet.
    for (front, yaml, compat) in [
        (
            "disable-model-invocation: true\ndisplay-name: Demo\n",
            "interface:\n  display_name: Demo\npolicy:\n  allow_implicit_invocation: false\n",
            Compat::ClaudeCode,
        ),
        (
            "",
            "policy:\n  allow_implicit_invocation: false\n",
            Compat::Strict,
        ),
        ("", "interface:\n  display_name: Shown\n", Compat::Strict),
    ] {
        assert_eq!(
            warnings(front, yaml, compat),
            Vec::<String>::new(),
            "{front} {yaml}"
        );
    }
}
