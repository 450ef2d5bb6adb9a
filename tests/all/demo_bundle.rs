//! The demo bundle `skills/`, embedded the way users embed theirs: every skill compiles, the
//! catalog, tool schema and `load_skill` results have the documented formats (one catalog line
//! per skill, the name `enum` in both tool shapes, the body wrapped in `<skill>`), and what is
//! embedded is exactly what the files hold.

use std::path::{Path, PathBuf};

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("skills");

fn skills_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("skills")
}

/// The file as the macro normalizes it: one leading BOM dropped, CRLF and lone CR made LF.
fn normalized(path: &Path) -> String {
    let raw = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let raw = raw.strip_prefix('\u{feff}').unwrap_or(&raw);
    raw.replace("\r\n", "\n").replace('\r', "\n")
}

/// The body as the macro cuts it: after the closing `---` line, leading blank lines dropped,
/// trailing whitespace trimmed.
fn body_after_frontmatter(text: &str) -> &str {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().expect("empty file");
    assert_eq!(first.trim_end(), "---", "line 1 must open the frontmatter");
    let mut offset = first.len();
    for line in lines.by_ref() {
        offset += line.len();
        if line.trim_end_matches(['\n', ' ']) == "---" {
            let rest = &text[offset..];
            let mut start = 0;
            for line in rest.split_inclusive('\n') {
                if !line.trim().is_empty() {
                    break;
                }
                start += line.len();
            }
            return rest[start..].trim_end();
        }
    }
    panic!("frontmatter never closes");
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn bundle_has_at_least_five_skills_and_nothing_was_skipped() {
    assert!(SKILLS.len() >= 5, "only {} skills", SKILLS.len());
    assert!(!SKILLS.is_empty());

    // Every folder holding a SKILL.md is in the registry: discovery skipped nothing.
    let mut on_disk: Vec<String> = std::fs::read_dir(skills_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("SKILL.md").is_file())
        .map(|path| path.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    on_disk.sort();
    let embedded: Vec<&str> = SKILLS.names().collect();
    assert_eq!(embedded, on_disk);
}

#[test]
fn every_skill_has_identity_version_and_licence() {
    for skill in SKILLS.iter() {
        assert_eq!(
            skill.source_path(),
            format!("skills/{}/SKILL.md", skill.name())
        );
        let version = skill
            .version()
            .unwrap_or_else(|| panic!("{}: no version", skill.name()));
        let parts: Vec<&str> = version.split('.').collect();
        assert!(
            parts.len() == 3 && parts.iter().all(|p| p.parse::<u32>().is_ok()),
            "{}: version {version:?} is not MAJOR.MINOR.PATCH",
            skill.name()
        );
        assert_eq!(
            skill.license(),
            Some("MIT OR Apache-2.0"),
            "{}",
            skill.name()
        );
        assert_eq!(skill.sha256().len(), 64, "{}", skill.name());
        assert!(std::ptr::eq(SKILLS.get(skill.name()).unwrap(), skill));
    }
}

#[test]
fn every_description_says_what_and_when() {
    for skill in SKILLS.iter() {
        let description = skill.description().trim();
        assert!(
            !description.is_empty(),
            "{}: empty description",
            skill.name()
        );
        assert!(
            description.contains("Use") || description.contains("when"),
            "{}: description does not say when to use it: {description}",
            skill.name()
        );
        assert!(
            description.chars().count() <= 300,
            "{}: description is {} characters, keep it under 300",
            skill.name(),
            description.chars().count()
        );
    }
}

#[test]
fn catalog_is_one_sorted_line_per_skill() {
    let catalog = SKILLS.catalog();
    assert!(!catalog.ends_with('\n'), "no trailing newline");
    let lines: Vec<&str> = catalog.split('\n').collect();
    assert_eq!(lines.len(), SKILLS.len(), "{catalog}");

    let names: Vec<&str> = SKILLS.names().collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(names, sorted, "names are sorted and unique");

    for (line, skill) in lines.iter().zip(SKILLS.iter()) {
        let mut expected = format!("- {}: {}", skill.name(), collapse(skill.description()));
        if let Some(not_for) = skill.when_not_to_use() {
            expected.push_str(" Not for: ");
            expected.push_str(&collapse(not_for));
        }
        assert_eq!(*line, expected);
    }
}

#[test]
fn system_prompt_holds_preamble_catalog_and_hint() {
    let preamble = "You are a coding agent.";
    let prompt = SKILLS.system_prompt(preamble);
    let expected_start = format!("{preamble}\n\nSkills available:\n{}\n\n", SKILLS.catalog());
    assert!(prompt.starts_with(&expected_start), "{prompt}");
    assert!(prompt.contains("load_skill"));
}

#[test]
fn bodies_and_content_are_what_the_files_hold() {
    for skill in SKILLS.iter() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(skill.source_path());
        let text = normalized(&path);
        assert_eq!(skill.content(), text, "{}", skill.name());
        assert_eq!(
            skill.body(),
            body_after_frontmatter(&text),
            "{}",
            skill.name()
        );
        assert!(skill.body().starts_with("# "), "{}", skill.name());

        let lines = skill.body().lines().count();
        assert!(
            (40..=120).contains(&lines),
            "{}: body has {lines} lines, the bundle keeps them between 40 and 120",
            skill.name()
        );
    }
}

#[test]
fn load_skill_wraps_the_body_with_name_and_version() {
    let result = SKILLS
        .load_skill("code-review")
        .expect("code-review exists");
    assert!(
        result.starts_with("<skill name=\"code-review\" version=\"1.0.0\">"),
        "{result}"
    );
    let body = SKILLS.get("code-review").unwrap().body();
    assert_eq!(
        result,
        format!("<skill name=\"code-review\" version=\"1.0.0\">\n{body}\n</skill>")
    );

    for skill in SKILLS.iter() {
        assert_eq!(
            SKILLS.load_skill(skill.name()).unwrap(),
            skill.load_result()
        );
    }
}

#[test]
fn unknown_skill_suggests_the_closest_name() {
    let error = SKILLS.load_skill("code-reveiw").unwrap_err();
    assert_eq!(error.requested(), "code-reveiw");
    assert_eq!(error.suggestion(), Some("code-review"));
    assert_eq!(
        error.available().to_vec(),
        SKILLS.names().collect::<Vec<_>>()
    );
}

#[test]
fn tool_schema_lists_every_name() {
    let names: Vec<String> = SKILLS.names().map(|name| format!("\"{name}\"")).collect();
    let expected_enum = format!("\"enum\":[{}]", names.join(","));

    let anthropic = SKILLS.load_skill_tool_anthropic().expect("tool present");
    assert!(
        anthropic.starts_with("{\"name\":\"load_skill\""),
        "{anthropic}"
    );
    assert!(anthropic.contains("\"input_schema\":"), "{anthropic}");
    assert!(anthropic.contains(&expected_enum), "{anthropic}");
    assert!(anthropic.contains("\"required\":[\"name\"]"), "{anthropic}");

    let openai = SKILLS.load_skill_tool_openai().expect("tool present");
    assert!(
        openai.starts_with("{\"type\":\"function\",\"function\":{\"name\":\"load_skill\""),
        "{openai}"
    );
    assert!(openai.contains("\"parameters\":"), "{openai}");
    assert!(openai.contains(&expected_enum), "{openai}");

    for name in SKILLS.names() {
        assert_eq!(anthropic.matches(&format!("\"{name}\"")).count(), 1);
        assert_eq!(openai.matches(&format!("\"{name}\"")).count(), 1);
    }
}
