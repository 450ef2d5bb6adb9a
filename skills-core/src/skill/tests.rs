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
    // The text above sets every known key, so each one is accepted by the parser.
    for key in KNOWN_KEYS {
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
        ]
    );
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

/// The README's "Where we differ from the reference validator, on purpose", rule by rule.
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
