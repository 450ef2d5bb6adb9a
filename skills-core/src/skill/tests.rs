use super::*;

fn parse_str(dir: &str, text: &str) -> (Option<SkillDef>, Vec<Diagnostic>) {
    parse(
        &format!("skills/{dir}/SKILL.md"),
        dir,
        text.as_bytes(),
        &ParseOptions::default(),
    )
}

fn errors_of(dir: &str, text: &str) -> Vec<Diagnostic> {
    let (skill, diagnostics) = parse_str(dir, text);
    assert!(skill.is_none(), "expected errors for {text:?}");
    diagnostics
}

fn skill(front: &str) -> String {
    format!("---\n{front}---\nDo the thing.\n")
}

#[test]
fn minimal_skill_parses_with_body_and_hash() {
    let (def, diagnostics) = parse_str("a", &skill("name: a\ndescription: Does a.\n"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let def = def.unwrap();
    assert_eq!(def.name.value, "a");
    assert_eq!(def.name.line, 2);
    assert_eq!(def.description.value, "Does a.");
    assert_eq!(def.body(), "Do the thing.");
    assert_eq!(def.sha256.len(), 64);
}

#[test]
fn all_fields_are_read() {
    let text = skill(
        "name: full\ndescription: Full.\nlicense: MIT\ncompatibility: Needs git\nmetadata:\n  author: me\n  \
         team: \"7\"\nallowed-tools: Bash Read\nversion: \"1.2\"\ntags: [a, b]\nwhen-not-to-use: Small edits\n\
         requires: [other]\nconflicts-with:\n  - third\n",
    );
    let (def, diagnostics) = parse_str("full", &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let def = def.unwrap();
    assert_eq!(def.license.unwrap().value, "MIT");
    assert_eq!(def.compatibility.unwrap().value, "Needs git");
    assert_eq!(
        def.metadata,
        vec![("author".into(), "me".into()), ("team".into(), "7".into())]
    );
    assert_eq!(def.allowed_tools, vec!["Bash", "Read"]);
    assert_eq!(def.version.unwrap().value, "1.2");
    assert_eq!(def.tags, vec!["a", "b"]);
    assert_eq!(def.when_not_to_use.unwrap().value, "Small edits");
    assert_eq!(def.requires[0].value, "other");
    assert_eq!(def.conflicts_with[0].value, "third");
    assert_eq!(def.conflicts_with[0].line, 15);
    // The text above sets every strict key, so each one is accepted by the parser.
    for key in FrontmatterKey::ALL
        .into_iter()
        .filter(|k| !k.is_claude_code())
    {
        let key = key.as_str();
        assert!(text.contains(&format!("\n{key}:")), "{key} not covered");
    }
}

#[test]
fn known_keys_are_the_names_of_the_key_enum() {
    assert_eq!(
        KNOWN_KEYS,
        [
            "name",
            "description",
            "license",
            "compatibility",
            "metadata",
            "allowed-tools",
            "version",
            "tags",
            "when-not-to-use",
            "requires",
            "conflicts-with",
            "when_to_use",
            "argument-hint",
            "arguments",
            "disable-model-invocation",
            "user-invocable",
            "disallowed-tools",
            "model",
            "effort",
            "context",
            "agent",
            "hooks",
            "paths",
            "shell",
            "background",
            "display-name",
            "default-enabled",
            "fallback",
        ]
    );
    let claude: Vec<_> = FrontmatterKey::ALL
        .into_iter()
        .filter(|k| k.is_claude_code())
        .collect();
    assert_eq!(claude.first(), Some(&FrontmatterKey::WhenToUse));
    assert_eq!(claude.len(), 17);
    assert!(!FrontmatterKey::AllowedTools.is_claude_code());
    for key in FrontmatterKey::ALL {
        assert_eq!(FrontmatterKey::from_name(key.as_str()), Some(key));
    }
    assert_eq!(FrontmatterKey::from_name("Name"), None);
    assert_eq!(FrontmatterKey::from_name("allowed_tools"), None);
}

#[test]
fn allowed_tools_as_list() {
    let (def, _) = parse_str(
        "a",
        &skill("name: a\ndescription: A.\nallowed-tools: [Bash, Read]\n"),
    );
    assert_eq!(def.unwrap().allowed_tools, vec!["Bash", "Read"]);
}

#[test]
fn missing_required_keys() {
    let errors = errors_of("a", &skill("license: MIT\n"));
    let messages: Vec<_> = errors.iter().map(|d| d.message()).collect();
    assert_eq!(
        messages,
        [
            "missing required key `name`",
            "missing required key `description`"
        ]
    );
}

#[test]
fn name_rules() {
    let long = "a".repeat(64);
    assert!(
        parse_str(&long, &skill(&format!("name: {long}\ndescription: x\n")))
            .0
            .is_some()
    );
    let too_long = "a".repeat(65);
    let errors = errors_of(
        &too_long,
        &skill(&format!("name: {too_long}\ndescription: x\n")),
    );
    assert!(
        errors[0]
            .message()
            .contains("1 to 64 characters long, found 65"),
        "{}",
        errors[0]
    );
    // Each problem is reported at the character that breaks the rule; columns count
    // characters, not bytes (`数据` are three bytes each).
    for (bad, expected, column) in [
        ("Code-Review", "may only hold", 7),
        ("Café", "may only hold", 7),
        ("caFé", "may only hold", 9),
        ("données-Clés", "may only hold", 15),
        ("数据-分析X", "may only hold", 12),
        ("\"café-X\"", "may only hold", 13),
        ("αβΓ", "may only hold", 9),
        ("a_b", "may only hold", 8),
        ("a.b", "may only hold", 8),
        ("-ab", "start or end", 7),
        ("ab-", "start or end", 9),
        ("a--b", "`--`", 8),
        ("数据--分析", "`--`", 9),
        ("\"\"", "1 to 64", 7),
    ] {
        let errors = errors_of("x", &skill(&format!("name: {bad}\ndescription: x\n")));
        assert_eq!(errors.len(), 1, "{bad}: {errors:?}");
        assert!(
            errors[0].message().contains(expected),
            "{bad}: {}",
            errors[0]
        );
        assert_eq!(
            (errors[0].line(), errors[0].column()),
            (Some(2), Some(column)),
            "{bad}: {}",
            errors[0]
        );
    }
    let errors = errors_of("Café", &skill("name: Café\ndescription: x\n"));
    assert!(errors[0].message().contains("found 'C'"), "{}", errors[0]);
    let errors = errors_of("folder", &skill("name: other\ndescription: x\n"));
    assert!(errors[0].message().contains("but the folder is `folder`"));
}

#[test]
fn unicode_lowercase_names_are_accepted() {
    let long = "数".repeat(64);
    for name in [
        "café",
        "数据-分析",
        "данные",
        "straße",
        "مهارة",
        "v2-ab",
        "١٢٣",
        long.as_str(),
    ] {
        let (def, diagnostics) =
            parse_str(name, &skill(&format!("name: {name}\ndescription: x\n")));
        assert!(diagnostics.is_empty(), "{name}: {diagnostics:?}");
        assert_eq!(def.unwrap().name.value, name);
    }
    let too_long = "数".repeat(65);
    let errors = errors_of(
        &too_long,
        &skill(&format!("name: {too_long}\ndescription: x\n")),
    );
    assert!(errors[0].message().contains("found 65"), "{}", errors[0]);
}

#[test]
fn names_must_already_be_nfkc() {
    // `e` + a combining acute accent: the same text as `café` to a reader, other bytes.
    let decomposed = "cafe\u{301}";
    let errors = errors_of(
        decomposed,
        &skill(&format!("name: {decomposed}\ndescription: x\n")),
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code(), Code::NameNotNormalized);
    assert!(
        errors[0].message().contains("normalized it is `café`"),
        "{}",
        errors[0]
    );
    assert!(errors[0].help().unwrap().contains("`name: café`"));
    // The accent is the 5th character of the value.
    assert_eq!((errors[0].line(), errors[0].column()), (Some(2), Some(11)));
    // Full-width letters fold to ASCII under NFKC.
    let wide = "ｃａｆｅ";
    let errors = errors_of(wide, &skill(&format!("name: {wide}\ndescription: x\n")));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code(), Code::NameNotNormalized);
    assert!(
        errors[0].message().contains("normalized it is `cafe`"),
        "{}",
        errors[0]
    );
    assert_eq!(errors[0].column(), Some(7));
    // The composed form is accepted; it no longer equals a folder in the decomposed form.
    let errors = errors_of(decomposed, &skill("name: café\ndescription: x\n"));
    assert_eq!(errors[0].code(), Code::NameMismatch);
}

#[test]
fn description_limit_counts_characters_not_bytes() {
    let ok = "é".repeat(1024);
    assert!(
        parse_str("a", &skill(&format!("name: a\ndescription: {ok}\n")))
            .0
            .is_some()
    );
    let over = "é".repeat(1025);
    let errors = errors_of("a", &skill(&format!("name: a\ndescription: {over}\n")));
    assert!(errors[0].message().contains("found 1025"), "{}", errors[0]);
    let errors = errors_of("a", &skill("name: a\ndescription: \"   \"\n"));
    assert!(errors[0].message().contains("empty"));
    // An empty description is one problem: not also a length error.
    for empty in ["\"\"", "''", "\"  \""] {
        let errors = errors_of("a", &skill(&format!("name: a\ndescription: {empty}\n")));
        assert_eq!(errors.len(), 1, "{empty}: {errors:?}");
        assert_eq!(errors[0].code(), Code::EmptyValue);
        assert_eq!((errors[0].line(), errors[0].column()), (Some(3), Some(14)));
    }
}

#[test]
fn compatibility_and_when_not_to_use_limits() {
    let ok = parse_str(
        "a",
        &skill(&format!(
            "name: a\ndescription: x\ncompatibility: {}\nwhen-not-to-use: {}\n",
            "ü".repeat(500),
            "ü".repeat(512)
        )),
    );
    assert!(ok.0.is_some(), "{:?}", ok.1);
    let errors = errors_of(
        "a",
        &skill(&format!(
            "name: a\ndescription: x\ncompatibility: {}\n",
            "ü".repeat(501)
        )),
    );
    assert!(
        errors[0]
            .message()
            .contains("`compatibility` must be 1 to 500 characters long, found 501")
    );
    let errors = errors_of(
        "a",
        &skill(&format!(
            "name: a\ndescription: x\nwhen-not-to-use: {}\n",
            "ü".repeat(513)
        )),
    );
    assert!(errors[0].message().contains("found 513"));
}

#[test]
fn unknown_key_suggests_known_one_and_metadata() {
    let errors = errors_of("a", &skill("name: a\ndescription: x\nlicence: MIT\n"));
    assert_eq!(errors[0].message(), "unknown frontmatter key `licence`");
    assert_eq!(errors[0].line(), Some(4));
    let help = errors[0].help().unwrap();
    assert!(
        help.contains("did you mean `license`?") && help.contains("metadata:"),
        "{help}"
    );
    let (def, diagnostics) = parse(
        "p",
        "a",
        skill("name: a\ndescription: x\nowner: me\n").as_bytes(),
        &ParseOptions {
            allow_unknown_keys: true,
            ..ParseOptions::default()
        },
    );
    assert!(def.is_some() && diagnostics.is_empty());
}

#[test]
fn version_as_number_says_quote_it() {
    let errors = errors_of("a", &skill("name: a\ndescription: x\nversion: 1.0\n"));
    assert_eq!(
        errors[0].message(),
        "`version` must be a string, found the number 1.0"
    );
    assert_eq!(errors[0].help(), Some("quote it: `version: \"1.0\"`"));
    assert!(
        parse_str("a", &skill("name: a\ndescription: x\nversion: 1.2.0\n"))
            .0
            .is_some()
    );
}

#[test]
fn metadata_values_must_be_strings() {
    let errors = errors_of(
        "a",
        &skill("name: a\ndescription: x\nmetadata:\n  count: 3\n  flag: true\n  list: [1]\n"),
    );
    assert_eq!(errors.len(), 3);
    assert_eq!(errors[0].help(), Some("quote it: `count: \"3\"`"));
    assert_eq!(errors[0].line(), Some(5));
}

#[test]
fn tags_must_be_non_empty_strings() {
    let errors = errors_of("a", &skill("name: a\ndescription: x\ntags: [ok, \"\"]\n"));
    assert!(errors[0].message().contains("empty entry"));
    let errors = errors_of("a", &skill("name: a\ndescription: x\ntags: one\n"));
    assert!(errors[0].message().contains("must be a list"));
}

#[test]
fn every_problem_in_a_file_is_reported() {
    let errors = errors_of(
        "a",
        &skill("name: B\ndescription: 3\nversion: 2\nextra: x\n"),
    );
    assert_eq!(errors.len(), 4, "{errors:?}");
}

#[test]
fn crlf_and_bom_files_hash_like_their_lf_form() {
    let lf = parse_str("a", "---\nname: a\ndescription: x\n---\nBody\n")
        .0
        .unwrap();
    let crlf = parse_str(
        "a",
        "\u{FEFF}---\r\nname: a\r\ndescription: x\r\n---\r\nBody\r\n",
    )
    .0
    .unwrap();
    assert_eq!(lf.sha256, crlf.sha256);
    assert_eq!(lf.text, crlf.text);
}

#[test]
fn non_mapping_frontmatter() {
    let errors = errors_of("a", "---\n- a\n- b\n---\nbody\n");
    assert!(errors[0].message().contains("must be a YAML mapping"));
    let errors = errors_of("a", "---\n---\nbody\n");
    assert!(errors[0].message().contains("frontmatter is empty"));
}

#[test]
fn compatibility_option_infers_name_and_description() {
    let options = ParseOptions {
        infer_missing_fields: true,
        ..ParseOptions::default()
    };
    let text = "---\nlicense: MIT\n---\n\n# Legacy helper\n\nSteps.\n";
    let (def, diagnostics) = parse("s/legacy/SKILL.md", "legacy", text.as_bytes(), &options);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let def = def.unwrap();
    assert_eq!(def.name.value, "legacy");
    assert_eq!(def.description.value, "Legacy helper");
    // Every other problem is still reported.
    let text = "---\nversion: 1.0\n---\nBody\n";
    let (def, diagnostics) = parse("s/legacy/SKILL.md", "legacy", text.as_bytes(), &options);
    assert!(def.is_none());
    assert_eq!(diagnostics.len(), 1);
    assert!(
        diagnostics[0]
            .message()
            .contains("`version` must be a string")
    );
}

#[test]
fn a_missing_closing_line_is_found_where_the_instructions_start() {
    for (text, line, closing) in [
        (
            "---\nname: a\ndescription: x\n\n# Title\n\nSome text\n\n---\nmore\n",
            5,
            9,
        ),
        (
            "---\nname: a\ndescription: x\nSome text here.\nMore text.\n---\nmore\n",
            4,
            6,
        ),
    ] {
        let errors = errors_of("a", text);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].code(), Code::UnclosedFrontmatter, "{}", errors[0]);
        assert_eq!(
            (errors[0].line(), errors[0].column()),
            (Some(line), Some(1)),
            "{}",
            errors[0]
        );
        assert!(
            errors[0]
                .message()
                .contains(&format!("the `---` at line {closing}")),
            "{}",
            errors[0]
        );
    }
    // A YAML mistake inside real YAML stays a YAML error.
    let errors = errors_of("a", "---\nname: a\ndescription: Use it: now\n---\nBody\n");
    assert_eq!(errors[0].code(), Code::YamlSyntax);
}

/// The crate docs' "Where we differ from the reference validator, on purpose", rule by rule.
#[test]
fn deliberate_differences_from_the_reference_validator() {
    // Strict: a non-string where the spec says string is an error that says to quote it.
    let errors = errors_of(
        "a",
        &skill("name: a\ndescription: x\nmetadata: {version: 1.0}\n"),
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code(), Code::WrongType);
    assert_eq!(
        errors[0].help(),
        Some("quote it: `version: \"1.0\"`"),
        "{}",
        errors[0]
    );
    let errors = errors_of("123", &skill("name: 123\ndescription: x\n"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code(), Code::WrongType);
    assert_eq!(errors[0].help(), Some("quote it: `name: \"123\"`"));
    // What the reference validator's parser refuses and YAML allows, we accept: anchors and
    // aliases, flow collections, tags, tabs inside unquoted values, `---` inside values.
    for front in [
        "name: a\ndescription: &d Does a.\nwhen-not-to-use: *d\n",
        "name: a\ndescription: x\ntags: [one, two]\nmetadata: {team: core}\n",
        "name: a\ndescription: x\nversion: !!str 1.0\n",
        "name: a\ndescription: Tab\tinside\n",
        "name: a\ndescription: before --- after\n",
        "name: a\ndescription: |\n  before\n  ---\n  after\n",
    ] {
        let (def, diagnostics) = parse_str("a", &skill(front));
        assert!(diagnostics.is_empty(), "{front:?}: {diagnostics:?}");
        let def = def.unwrap();
        assert_eq!(def.body(), "Do the thing.", "{front:?}");
        if front.contains("&d") {
            assert_eq!(def.when_not_to_use.unwrap().value, "Does a.");
        }
        if front.contains("!!str") {
            assert_eq!(def.version.unwrap().value, "1.0");
        }
        if front.contains("Tab") {
            assert_eq!(def.description.value, "Tab\tinside");
        }
    }
}

// ---- compat = "claude-code" ---------------------------------------------------------------

fn parse_compat(dir: &str, text: &str) -> (Option<SkillDef>, Vec<Diagnostic>) {
    parse(
        &format!("skills/{dir}/SKILL.md"),
        dir,
        text.as_bytes(),
        &ParseOptions {
            compat: Compat::ClaudeCode,
            ..ParseOptions::default()
        },
    )
}

/// The codes and lines of the errors of a compat parse that must fail.
fn compat_errors(dir: &str, front: &str) -> Vec<(Code, usize, String)> {
    let (def, diagnostics) = parse_compat(dir, &skill(front));
    assert!(def.is_none(), "expected errors for {front:?}");
    diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            (
                d.code(),
                d.line().unwrap_or(0) as usize,
                d.message().to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_claude_code_key_is_read_under_compat() {
    let front = "name: Agent Development\ndescription: Builds agents.\nwhen_to_use: When asked.\n\
         argument-hint: \"[topic]\"\narguments: topic depth\ndisable-model-invocation: true\n\
         user-invocable: false\nallowed-tools: Read, Grep, Bash(git diff:*)\n\
         disallowed-tools: [WebFetch, \"Bash(rm:*)\"]\nmodel: sonnet\neffort: xhigh\ncontext: fork\n\
         agent: Explore\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      timeout: 30\nshell: powershell\n\
         paths: \"src/**/*.rs, docs/*.md\"\nbackground: false\ndisplay-name: Agent Dev\n\
         default-enabled: false\nfallback: true\n";
    let text = skill(front);
    for key in FrontmatterKey::ALL {
        assert!(
            text.contains(&format!("\n{}:", key.as_str()))
                || key.as_str() == "name"
                || !key.is_claude_code(),
            "{key:?} not covered"
        );
    }
    let (def, diagnostics) = parse_compat("agent-development", &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let def = def.unwrap();
    let cc = &def.claude_code;
    assert_eq!(def.name.value, "agent-development");
    assert_eq!(def.name.line, 2);
    // `display-name` wins over a display `name`.
    assert_eq!(cc.display_name.as_ref().unwrap().value, "Agent Dev");
    assert_eq!(cc.background.as_ref().map(|b| b.value), Some(false));
    assert_eq!(cc.default_enabled.as_ref().map(|d| d.value), Some(false));
    assert_eq!(cc.fallback.as_ref().map(|f| f.value), Some(true));
    assert!(cc.boolean_words.is_empty());
    assert_eq!(cc.when_to_use.as_ref().unwrap().value, "When asked.");
    assert_eq!(cc.argument_hint.as_ref().unwrap().value, "[topic]");
    assert_eq!(cc.arguments, ["topic", "depth"]);
    assert!(!cc.model_invocable);
    assert!(!cc.user_invocable);
    assert_eq!(def.allowed_tools, ["Read", "Grep", "Bash(git diff:*)"]);
    assert_eq!(cc.disallowed_tools, ["WebFetch", "Bash(rm:*)"]);
    assert_eq!(cc.model.as_ref().unwrap().value, "sonnet");
    assert_eq!(cc.effort.as_ref().unwrap().value, Effort::XHigh);
    assert_eq!(cc.context.as_ref().unwrap().value, SkillContext::Fork);
    assert_eq!(cc.agent.as_ref().unwrap().value, "Explore");
    assert_eq!(
        cc.hooks.as_ref().unwrap().value,
        r#"{"PreToolUse":[{"matcher":"Bash","timeout":30}]}"#
    );
    assert_eq!(cc.shell.as_ref().unwrap().value, Shell::PowerShell);
    assert_eq!(cc.paths, ["src/**/*.rs", "docs/*.md"]);
    assert!(!def.catalog_entry().is_listed());
}

#[test]
fn claude_code_defaults_and_missing_name() {
    let (def, diagnostics) = parse_compat("deploy", &skill("description: Deploys.\n"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let def = def.unwrap();
    assert_eq!(def.name.value, "deploy", "the folder is the name");
    assert_eq!(def.claude_code, ClaudeCodeFields::default());
    assert!(def.claude_code.model_invocable && def.claude_code.user_invocable);
    // A display name equal to the folder is not kept twice.
    let (def, _) = parse_compat("deploy", &skill("name: deploy\ndescription: D.\n"));
    assert_eq!(def.unwrap().claude_code.display_name, None);
}

#[test]
fn strict_mode_names_the_option_for_claude_code_keys() {
    let errors = errors_of(
        "a",
        &skill("name: a\ndescription: A.\nargument-hint: \"[x]\"\n"),
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code(), Code::UnknownKey);
    assert_eq!(errors[0].line(), Some(4));
    assert!(
        errors[0]
            .help()
            .unwrap()
            .contains("compat = \"claude-code\""),
        "{errors:?}"
    );
    // A typo of a strict key is still a typo, not a Claude Code key.
    let errors = errors_of("a", &skill("name: a\ndescription: A.\nlicence: MIT\n"));
    assert!(
        errors[0]
            .help()
            .unwrap()
            .contains("did you mean `license`?")
    );
    assert!(!errors[0].help().unwrap().contains("compat"));
}

#[test]
fn unknown_keys_stay_errors_under_compat() {
    let errors = compat_errors("a", "name: a\ndescription: A.\nefort: high\n");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, Code::UnknownKey);
    let (_, diagnostics) = parse_compat("a", &skill("name: a\ndescription: A.\nefort: high\n"));
    assert!(
        diagnostics[0]
            .help()
            .unwrap()
            .contains("did you mean `effort`?")
    );
}

#[test]
fn claude_code_types_are_checked_at_the_value() {
    for (front, code, line) in [
        ("disable-model-invocation: \"maybe\"\n", Code::WrongType, 4),
        ("user-invocable: 2\n", Code::WrongType, 4),
        ("user-invocable: [yes]\n", Code::WrongType, 4),
        ("background: true\n", Code::BackgroundWithoutFork, 4),
        (
            "context: inline\nbackground: false\n",
            Code::BackgroundWithoutFork,
            5,
        ),
        ("background: sometimes\n", Code::WrongType, 4),
        ("default-enabled: 10\n", Code::WrongType, 4),
        ("fallback: {a: b}\n", Code::WrongType, 4),
        ("display-name: \"  \"\n", Code::InvalidDisplayName, 4),
        ("displayName: \"a\\nb\"\n", Code::InvalidDisplayName, 4),
        ("display_name: [x]\n", Code::WrongType, 4),
        ("display-name: A\ndisplayName: B\n", Code::DuplicateKey, 5),
        (
            "default_enabled: true\ndefaultEnabled: true\n",
            Code::DuplicateKey,
            5,
        ),
        ("DisplayName: A\n", Code::UnknownKey, 4),
        ("effort: extreme\n", Code::InvalidChoice, 4),
        ("context: forked\n", Code::InvalidChoice, 4),
        ("shell: zsh\n", Code::InvalidChoice, 4),
        ("agent: Explore\n", Code::AgentWithoutFork, 4),
        (
            "context: inherit\nagent: Explore\n",
            Code::AgentWithoutFork,
            5,
        ),
        ("hooks: [a]\n", Code::InvalidHooks, 4),
        ("hooks:\n  Stop: echo\n", Code::InvalidHooks, 5),
        (
            "allowed-tools: Read, Bash(git diff\n",
            Code::InvalidToolEntry,
            4,
        ),
        (
            "disallowed-tools: [\"Bash()\"]\n",
            Code::InvalidToolEntry,
            4,
        ),
        ("arguments: [1st]\n", Code::InvalidArgumentName, 4),
        ("arguments: a a\n", Code::InvalidArgumentName, 4),
        ("model: [a]\n", Code::WrongType, 4),
        ("paths: 7\n", Code::WrongType, 4),
    ] {
        let errors = compat_errors("a", &format!("name: a\ndescription: A.\n{front}"));
        assert_eq!(errors.len(), 1, "{front}: {errors:?}");
        assert_eq!(
            (errors[0].0, errors[0].1),
            (code, line),
            "{front}: {errors:?}"
        );
    }
    let errors = compat_errors("a", "name: a\ndescription: A.\neffort: extreme\n");
    assert!(
        errors[0]
            .2
            .contains("`low`, `medium`, `high`, `xhigh` or `max`"),
        "{errors:?}"
    );
}

#[test]
fn allowed_tools_entries_are_checked_in_strict_mode_too() {
    let (def, diagnostics) = parse_str(
        "a",
        &skill("name: a\ndescription: A.\nallowed-tools: Read Bash(git diff:*)\n"),
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(def.unwrap().allowed_tools, ["Read", "Bash(git diff:*)"]);
    let errors = errors_of(
        "a",
        &skill("name: a\ndescription: A.\nallowed-tools: Read)\n"),
    );
    assert_eq!(errors[0].code(), Code::InvalidToolEntry);
    let errors = errors_of(
        "a",
        &skill("name: a\ndescription: A.\nallowed-tools: [\"Read Grep\"]\n"),
    );
    assert_eq!(errors[0].code(), Code::InvalidToolEntry);
}

#[test]
fn non_string_scalars_are_text_with_a_warning_under_compat_only() {
    let front = "name: a\ndescription: A.\nversion: 1.0\nargument-hint: 2\n";
    let (def, diagnostics) = parse_compat("a", &skill(front));
    let def = def.expect("warnings only");
    assert_eq!(def.version.unwrap().value, "1.0");
    assert_eq!(def.claude_code.argument_hint.unwrap().value, "2");
    assert_eq!(diagnostics.len(), 2);
    assert!(
        diagnostics
            .iter()
            .all(|d| !d.is_error() && d.code() == Code::NonStringScalar)
    );
    assert_eq!(diagnostics[0].line(), Some(4));
    let errors = errors_of("a", &skill("name: a\ndescription: A.\nversion: 1.0\n"));
    assert_eq!(errors[0].code(), Code::WrongType);
    assert!(errors[0].help().unwrap().contains("quote it"));
}

#[test]
fn display_names_have_a_rule_and_folders_keep_theirs() {
    let long = "N".repeat(65);
    for (dir, front, code) in [
        ("a", format!("name: {long}\n"), Code::InvalidDisplayName),
        ("a", "name: \"  \"\n".to_owned(), Code::InvalidDisplayName),
        (
            "a",
            "name: \"Two\\nlines\"\n".to_owned(),
            Code::InvalidDisplayName,
        ),
        // The folder is the identifier: it must follow the name rules.
        (
            "Bad_Folder",
            "name: Fine Name\n".to_owned(),
            Code::InvalidName,
        ),
    ] {
        let errors = compat_errors(dir, &format!("{front}description: A.\n"));
        assert_eq!(errors.len(), 1, "{front}: {errors:?}");
        assert_eq!(errors[0].0, code, "{front}: {errors:?}");
        assert_eq!(errors[0].1, 2, "{front}: {errors:?}");
    }
}

#[test]
fn hooks_become_json() {
    let front = "name: a\ndescription: A.\nhooks:\n  PostToolUse:\n    - matcher: \"Edit|Write\"\n      \
                 hooks: [{type: command, command: \"say \\\"hi\\\"\", async: true, x: 0x1f, y: ~}]\n";
    let (def, diagnostics) = parse_compat("a", &skill(front));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        def.unwrap().claude_code.hooks.unwrap().value,
        r#"{"PostToolUse":[{"matcher":"Edit|Write","hooks":[{"type":"command","command":"say \"hi\"","async":true,"x":"0x1f","y":null}]}]}"#
    );
    for (number, json) in [
        ("1", true),
        ("-0.5e3", true),
        ("01", false),
        (".5", false),
        ("1.", false),
    ] {
        assert_eq!(is_json_number(number), json, "{number}");
    }
}

// ---- what Claude Code loads and strict mode rejects ---------------------------------------

/// `(code, line, column, is_error)` of every diagnostic.
fn found(diagnostics: &[Diagnostic]) -> Vec<(Code, u32, u32, bool)> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d.code(),
                d.line().unwrap_or(0),
                d.column().unwrap_or(0),
                d.is_error(),
            )
        })
        .collect()
}

#[test]
fn an_unquoted_colon_is_text_under_compat_and_an_error_in_strict_mode() {
    let text = skill("name: a\ndescription: Use it: now\n");
    let (def, diagnostics) = parse_compat("a", &text);
    assert_eq!(
        def.expect("a warning only").description.value,
        "Use it: now"
    );
    assert_eq!(found(&diagnostics), [(Code::ValueReadAsText, 3, 14, false)]);
    let errors = errors_of("a", &text);
    assert_eq!(found(&errors), [(Code::YamlSyntax, 3, 20, true)]);
}

#[test]
fn a_long_description_warns_up_to_claude_codes_listing_cap() {
    let long = "d".repeat(1_100);
    let (def, diagnostics) = parse_compat("a", &skill(&format!("description: {long}\n")));
    assert_eq!(def.expect("a warning only").description.value, long);
    assert_eq!(found(&diagnostics), [(Code::LongDescription, 2, 14, false)]);
    assert!(
        diagnostics[0].help().unwrap().contains("Codex"),
        "{}",
        diagnostics[0]
    );
    // Strict mode stays strict.
    let errors = errors_of("a", &skill(&format!("name: a\ndescription: {long}\n")));
    assert_eq!(errors[0].code(), Code::FieldLength);

    // The cap counts `description - when_to_use`, in UTF-16 code units as JavaScript does:
    // 1,000 + 3 + 533 fits; one more is cut by Claude Code, an error here.
    let (description, when) = ("d".repeat(1_000), "w".repeat(533));
    let front = format!("description: {description}\nwhen_to_use: {when}\n");
    let (def, diagnostics) = parse_compat("a", &skill(&front));
    assert!(def.is_some() && diagnostics.is_empty(), "{diagnostics:?}");
    let front = format!("description: {description}\nwhen_to_use: {when}w\n");
    let (def, diagnostics) = parse_compat("a", &skill(&front));
    assert!(def.is_none());
    assert_eq!(found(&diagnostics), [(Code::FieldLength, 2, 14, true)]);
    assert!(
        diagnostics[0].message().contains("1537 characters"),
        "{}",
        diagnostics[0]
    );
    // `𝄞` is one character of the spec's count and two code units of Claude Code's.
    let clefs = "𝄞".repeat(769);
    let (def, diagnostics) = parse_compat("a", &skill(&format!("description: {clefs}\n")));
    assert!(def.is_none(), "1,538 code units: {diagnostics:?}");
    let clefs = "𝄞".repeat(768);
    let (def, diagnostics) = parse_compat("a", &skill(&format!("description: {clefs}\n")));
    assert!(def.is_some() && diagnostics.is_empty(), "{diagnostics:?}");
}

#[test]
fn a_missing_description_is_the_first_body_line_as_claude_code_takes_it() {
    for (front, body, expected) in [
        (
            "name: a\n",
            "\n\n## Review  a change\nMore.",
            "Review  a change",
        ),
        (
            "",
            "   First line, trimmed.   \nSecond.",
            "First line, trimmed.",
        ),
        (
            "description: \"  \"\n",
            "#hashtag is no heading",
            "#hashtag is no heading",
        ),
        ("description:\n", "#\n# Real title", "#"),
    ] {
        let text = format!("---\n{front}---\n{body}\n");
        let (def, diagnostics) = parse_compat("a", &text);
        let def = def.unwrap_or_else(|| panic!("{text:?}: {diagnostics:?}"));
        assert_eq!(def.description.value, expected, "{text:?}");
        assert_eq!(found(&diagnostics).len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].code(), Code::DescriptionFromBody);
        assert!(!diagnostics[0].is_error());
    }
    // A blank `description:` is pointed at; a missing one at the opening line.
    let (_, diagnostics) = parse_compat("a", "---\ndescription: \"\"\n---\nBody\n");
    assert_eq!(
        found(&diagnostics),
        [(Code::DescriptionFromBody, 2, 14, false)]
    );
    // Over 100 code units: 97 and `...`.
    let line = "x".repeat(150);
    let (def, _) = parse_compat("a", &format!("---\n---\n{line}\n"));
    assert_eq!(
        def.unwrap().description.value,
        format!("{}...", "x".repeat(97))
    );
    // No body to take it from: still an error.
    let (def, diagnostics) = parse_compat("a", "---\nname: a\n---\n");
    assert!(def.is_none());
    assert_eq!(diagnostics[0].code(), Code::MissingKey);
    // Strict mode: an error, as before.
    let errors = errors_of("a", "---\nname: a\n---\nBody\n");
    assert_eq!(errors[0].code(), Code::MissingKey);
    // The `infer_missing_fields` option takes the same text, without a warning.
    let options = ParseOptions {
        infer_missing_fields: true,
        ..ParseOptions::default()
    };
    let text = format!("---\nname: a\n---\n# {line}\n");
    let (def, diagnostics) = parse("s/a/SKILL.md", "a", text.as_bytes(), &options);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        def.unwrap().description.value,
        format!("{}...", "x".repeat(97))
    );
}

#[test]
fn claude_variables_outside_the_runtimes_four_are_left_with_a_warning() {
    let body = "Run ${CLAUDE_SKILL_DIR}/a.sh with ${CLAUDE_SESSION_ID}, ${CLAUDE_EFFORT}\n\
                in ${CLAUDE_PROJECT_DIR}; then ${CLAUDE_PLUGIN_ROOT}/b and ${CLAUDE_PLUGIN_DATA}.";
    let text = format!("---\nname: a\ndescription: A.\n---\n{body}\n");
    let (def, diagnostics) = parse_compat("a", &text);
    assert!(def.is_some());
    assert_eq!(
        found(&diagnostics),
        [
            (Code::UnknownClaudeVariable, 6, 32, false),
            (Code::UnknownClaudeVariable, 6, 60, false),
        ]
    );
    assert!(diagnostics[0].message().contains("`${CLAUDE_PLUGIN_ROOT}`"));
    // In strict mode they are plain text.
    let (_, diagnostics) = parse_str("a", &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}

#[test]
fn shell_commands_are_recorded_under_compat_only() {
    let body = "Status: !`git status --short`\n\n```!\ngit log -1\n```\nDone.";
    let text = format!("---\nname: a\ndescription: A.\n---\n{body}\n");
    let (def, diagnostics) = parse_compat("a", &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let def = def.unwrap();
    let commands: Vec<(&str, &str, bool)> = def
        .claude_code
        .shell_commands
        .iter()
        .map(|c| (&def.body()[c.range.clone()], c.command.as_str(), c.block))
        .collect();
    assert_eq!(
        commands,
        [
            ("!`git status --short`", "git status --short", false),
            ("```!\ngit log -1\n```", "git log -1", true),
        ]
    );
    let (def, _) = parse_str("a", &text);
    assert!(def.unwrap().claude_code.shell_commands.is_empty());
}

#[test]
fn every_key_is_kept_with_its_place() {
    let front = "name: a\ndescription: A.\nversion: \"1\"\nx-custom: y\n";
    let options = ParseOptions {
        allow_unknown_keys: true,
        ..ParseOptions::default()
    };
    let (def, _) = parse("s/a/SKILL.md", "a", skill(front).as_bytes(), &options);
    let keys: Vec<(String, usize, usize)> = def
        .unwrap()
        .keys
        .into_iter()
        .map(|k| (k.value, k.line, k.column))
        .collect();
    assert_eq!(
        keys,
        [
            ("name".into(), 2, 1),
            ("description".into(), 3, 1),
            ("version".into(), 4, 1),
            ("x-custom".into(), 5, 1),
        ]
    );
}

#[test]
fn an_unknown_key_with_nothing_close_lists_the_known_ones() {
    let errors = errors_of("a", &skill("name: a\ndescription: A.\nzzzzzzzz: 1\n"));
    let help = errors[0].help().unwrap();
    assert!(
        help.contains("the known keys are `name`, `description`"),
        "{help}"
    );
    assert!(!help.contains("did you mean"), "{help}");
    // Swapped neighbours are one edit.
    let errors = errors_of("a", &skill("name: a\ndescription: A.\nlicnese: MIT\n"));
    assert!(
        errors[0]
            .help()
            .unwrap()
            .starts_with("did you mean `license`?")
    );
}

#[test]
fn the_frontmatter_as_json_keeps_every_key_in_order_with_its_yaml_type() {
    let options = ParseOptions {
        allow_unknown_keys: true,
        ..ParseOptions::default()
    };
    let text = skill(
        "description: Keys in the author's order.\nname: order\nversion: \"1.0\"\ntags: [x, y]\n\
         metadata:\n  k: v\ncount: 3\nplus: +1\nhex: 0x1f\nratio: 1.5\nflag: true\nnothing: ~\n\
         quoted: \"3\"\nfolded: >\n  two\n  lines\n",
    );
    let (def, diagnostics) = parse("skills/order/SKILL.md", "order", text.as_bytes(), &options);
    let def = def.unwrap_or_else(|| panic!("{diagnostics:?}"));
    // Numbers JSON cannot write as the author did (`+1`, `0x1f`) stay text, as in `hooks`.
    assert_eq!(
        def.frontmatter_json,
        r#"{"description":"Keys in the author's order.","name":"order","version":"1.0","tags":["x","y"],"metadata":{"k":"v"},"count":3,"plus":"+1","hex":"0x1f","ratio":1.5,"flag":true,"nothing":null,"quoted":"3","folded":"two lines\n"}"#
    );
}

// ---- text that deceives the reader --------------------------------------------------------

/// Every frontmatter value a model or a person reads refuses control, bidirectional and
/// invisible characters, written as themselves or as escapes, each at its place.
#[test]
fn hidden_characters_are_errors_at_the_character_in_every_value() {
    let cases = [
        ("description: Fine \u{202e}txt.exe\n", 3, 19),
        (
            "description: ok\nwhen-not-to-use: \"\\e]52;c;ZWNobw==\\a\"\n",
            4,
            18,
        ),
        ("description: ok\ncompatibility: Needs\u{200b} git\n", 4, 21),
        ("description: ok\nlicense: MIT\u{2066}\n", 4, 13),
        (
            "description: ok\nmetadata:\n  author: \"me\\u200d\"\n",
            5,
            11,
        ),
        ("description: ok\ntags: [a, \"b\\x07\"]\n", 4, 11),
        ("description: ok\nversion: \"1.0\u{feff}\"\n", 4, 14),
        ("description: ok\nmetadata:\n  team: core\u{e0041}\n", 5, 13),
        // A key and a comment are read by a person too.
        ("description: ok\n# note \u{202e}\n", 4, 8),
        ("description: ok\nmetadata:\n  ow\u{200b}ner: me\n", 5, 5),
        // An emoji's joiner and variation selector are invisible characters too.
        ("description: Celebrates ✔\u{fe0f}\n", 3, 26),
    ];
    for (front, line, column) in cases {
        let errors = errors_of("a", &skill(&format!("name: a\n{front}")));
        assert_eq!(
            found(&errors),
            [(Code::HiddenCharacter, line, column, true)],
            "{front:?}"
        );
    }
    // Line breaks and tabs are YAML's white space: a folded or literal description may span lines.
    let (def, diagnostics) = parse_str(
        "a",
        &skill("name: a\ndescription: |\n  Two\n  lines\twith a tab.\n"),
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(def.unwrap().description.value, "Two\nlines\twith a tab.\n");
    let message = errors_of("a", &skill("name: a\ndescription: \"\\e[2J\"\n"))[0].to_string();
    assert!(
        message.contains("a control character, U+001B (ESCAPE) (written as an escape)"),
        "{message}"
    );
}

#[test]
fn hidden_characters_in_claude_code_values_and_a_description_from_the_body() {
    for (front, line, column) in [
        ("name: Agent \u{202e}Dev\ndescription: ok\n", 2, 13),
        (
            "description: ok\nargument-hint: \"[issue]\\u200b\"\n",
            3,
            16,
        ),
        ("description: ok\nwhen_to_use: now\u{2067}\n", 3, 17),
    ] {
        let (_, diagnostics) = parse_compat("a", &skill(front));
        let errors: Vec<_> = found(&diagnostics).into_iter().filter(|f| f.3).collect();
        assert_eq!(
            errors,
            [(Code::HiddenCharacter, line, column, true)],
            "{front:?}"
        );
    }
    // No description: the first line of the body is the catalog's text, and checked as one.
    let (_, diagnostics) = parse_compat("a", "---\nname: a\n---\n# Deploy \u{202e}now\n");
    let errors: Vec<_> = found(&diagnostics).into_iter().filter(|f| f.3).collect();
    assert_eq!(errors, [(Code::HiddenCharacter, 4, 10, true)]);
}

#[test]
fn a_name_mismatch_suggests_only_a_name_the_next_build_accepts() {
    let errors = errors_of("Wrong_Name", &skill("name: right-name\ndescription: x\n"));
    assert_eq!(errors[0].code(), Code::NameMismatch);
    assert_eq!(
        errors[0].help(),
        Some("rename the folder to `right-name` (the folder's name is not a valid skill name)")
    );
    let errors = errors_of("other", &skill("name: right-name\ndescription: x\n"));
    assert_eq!(
        errors[0].help(),
        Some("rename the folder to `right-name` or set `name: other`")
    );
    let errors = errors_of("Wrong_Name", &skill("description: x\n"));
    assert!(
        !errors[0].help().unwrap().contains("Wrong_Name"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_name_in_two_scripts_is_an_error_at_the_odd_letter() {
    let errors = errors_of("сode-review", &skill("name: сode-review\ndescription: x\n"));
    assert_eq!(found(&errors), [(Code::MixedScriptName, 2, 7, true)]);
    let errors = errors_of("code-revіew", &skill("name: code-revіew\ndescription: x\n"));
    assert_eq!(found(&errors), [(Code::MixedScriptName, 2, 15, true)]);
    for single in ["данные", "数据-分析", "データ-分析", "café-2"] {
        let (def, diagnostics) =
            parse_str(single, &skill(&format!("name: {single}\ndescription: x\n")));
        assert!(def.is_some(), "{single}: {diagnostics:?}");
    }
}

#[test]
fn a_long_value_is_shortened_in_messages() {
    let long = format!("Use it: {}", "x".repeat(18_000));
    let (_, diagnostics) = parse_compat("a", &skill(&format!("name: a\ndescription: {long}\n")));
    let read_as_text = diagnostics
        .iter()
        .find(|d| d.code() == Code::ValueReadAsText)
        .expect("the warning");
    assert!(
        read_as_text.message().len() < 300,
        "{}",
        read_as_text.message()
    );
    assert!(read_as_text.message().contains("(17928 more characters)"));
    assert!(read_as_text.help().unwrap().len() < 400);
    let key = "k".repeat(5_000);
    let errors = errors_of("a", &skill(&format!("name: a\ndescription: x\n{key}: 1\n")));
    assert!(errors[0].message().len() < 200, "{}", errors[0].message());
}

/// Claude Code reads `display-name`, `default-enabled` (and `fallback`) in kebab-case,
/// snake_case and camelCase, and booleans written `yes`/`no`/`on`/`off`/`1`/`0`; each such
/// boolean is kept for the `portable` lint.
#[test]
fn claude_code_spellings_and_boolean_words() {
    for (front, display, enabled) in [
        (
            "display-name: Shown\ndefault-enabled: false\n",
            "Shown",
            false,
        ),
        ("display_name: Shown\ndefault_enabled: no\n", "Shown", false),
        (
            "displayName: Shown\ndefaultEnabled: \"off\"\n",
            "Shown",
            false,
        ),
        ("displayName: Shown\ndefaultEnabled: 0\n", "Shown", false),
        ("display_name: Shown\ndefault-enabled: YES\n", "Shown", true),
    ] {
        let (def, diagnostics) =
            parse_compat("a", &skill(&format!("name: a\ndescription: A.\n{front}")));
        assert!(diagnostics.is_empty(), "{front}: {diagnostics:?}");
        let cc = def.unwrap().claude_code;
        assert_eq!(cc.display_name.unwrap().value, display, "{front}");
        assert_eq!(cc.default_enabled.unwrap().value, enabled, "{front}");
    }
    let front = "name: a\ndescription: A.\ndisable-model-invocation: yes\nuser-invocable: \"false\"\n\
                 context: fork\nbackground: On\nfallback: 1\n";
    let (def, diagnostics) = parse_compat("a", &skill(front));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let cc = def.unwrap().claude_code;
    assert!(!cc.model_invocable && !cc.user_invocable);
    assert!(cc.background.unwrap().value);
    assert!(cc.fallback.unwrap().value);
    let words: Vec<(&str, &str, usize)> = cc
        .boolean_words
        .iter()
        .map(|w| (w.value.0.as_str(), w.value.1.as_str(), w.line))
        .collect();
    assert_eq!(
        words,
        [
            ("disable-model-invocation", "yes", 4),
            ("user-invocable", "false", 5),
            ("background", "On", 7),
            ("fallback", "1", 8),
        ]
    );
    // In strict mode the spellings are Claude Code keys, and the error says so.
    let errors = errors_of("a", &skill("name: a\ndescription: A.\ndisplayName: A\n"));
    let help = errors[0].help().unwrap();
    assert!(
        help.contains("`displayName` is a Claude Code key (`display-name`)")
            && help.contains("compat"),
        "{help}"
    );
}
