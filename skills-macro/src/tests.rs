//! Expansion checked in-process: the generated code as text.

use std::fs;
use std::path::Path;

use crate::args::Args;
use crate::expand::{FileLocation, expand};

fn expand_dir(dir: &Path, invocation: &str) -> String {
    let args: Args = syn::parse_str(invocation).unwrap();
    let roots: Vec<String> = args.roots.iter().map(syn::LitStr::value).collect();
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    let bundle = skills_core::load(dir, &roots, &args.options);
    let location = FileLocation {
        overridden: false,
        manifest_dir: dir.to_owned(),
        watched: Vec::new(),
    };
    expand(&args, &bundle, &location, false).to_string()
}

fn bundle_with(line_ending: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "---\nname: alpha\ndescription: Does alpha.\nversion: \"1.0\"\n---\n# Alpha\n\nSteps.\n";
    fs::create_dir_all(dir.path().join("skills/alpha")).unwrap();
    fs::write(
        dir.path().join("skills/alpha/SKILL.md"),
        text.replace('\n', line_ending),
    )
    .unwrap();
    dir
}

#[test]
fn expansion_is_the_same_whatever_the_line_endings_and_machine() {
    let (lf, crlf) = (bundle_with("\n"), bundle_with("\r\n"));
    let (lf_code, crlf_code) = (
        expand_dir(lf.path(), "\"skills\""),
        expand_dir(crlf.path(), "\"skills\""),
    );
    // No machine-specific path: files are named relative to the consuming crate.
    assert!(!lf_code.contains(lf.path().to_str().unwrap()));
    assert!(!crlf_code.contains(crlf.path().to_str().unwrap()));
    let path = ":: core :: concat ! (:: core :: env ! (\"CARGO_MANIFEST_DIR\") , \"/skills/alpha/SKILL.md\")";
    // The file is tracked by `include_bytes!` (never `include_str!`: what rustc reads of it is
    // not embedded), and the text is the normalized one, so the two expansions are one.
    assert!(
        lf_code.contains(&format!(":: core :: include_bytes ! ({path})")),
        "{lf_code}"
    );
    assert!(!lf_code.contains("include_str") && !crlf_code.contains("\\r"));
    assert_eq!(lf_code, crlf_code);
}

#[test]
fn strings_are_ranges_of_the_embedded_text_not_copies() {
    let dir = bundle_with("\n");
    let code = expand_dir(dir.path(), "\"skills\"");
    // Once in the text, once in the catalog line: every other string is a range of the text.
    assert_eq!(code.matches("Does alpha.").count(), 2, "{code}");
    assert!(
        code.contains("\"- alpha: Does alpha.\""),
        "the catalog is computed at build time"
    );
}

/// A bundle whose one skill has trigger cases.
fn bundle_with_cases() -> tempfile::TempDir {
    let dir = bundle_with("\n");
    fs::create_dir_all(dir.path().join("skills/alpha/evals")).unwrap();
    fs::write(
        dir.path().join("skills/alpha/evals/triggers.json"),
        r#"[{"query": "please do the alpha thing", "should_trigger": true}]"#,
    )
    .unwrap();
    dir
}

#[test]
fn a_trigger_file_is_tracked_and_its_cases_embedded_only_when_asked() {
    let dir = bundle_with_cases();
    let tracking = ":: core :: include_bytes ! (:: core :: concat ! (:: core :: env ! (\"CARGO_MANIFEST_DIR\") , \"/skills/alpha/evals/triggers.json\"))";
    let plain = expand_dir(dir.path(), "\"skills\"");
    assert!(plain.contains(tracking), "{plain}");
    assert!(!plain.contains("please do the alpha thing"), "{plain}");
    assert!(
        plain.contains("triggers : :: core :: option :: Option :: None"),
        "{plain}"
    );
    let embedded = expand_dir(dir.path(), "\"skills\", embed_evals = true");
    assert!(embedded.contains(tracking), "{embedded}");
    assert!(
        embedded.contains("queries : \"please do the alpha thing\""),
        "{embedded}"
    );
}

/// A file rewritten after the macro read it (an editor saving, a checkout, another build step)
/// never reaches the binary: the expansion carries the text that was checked, and a resource
/// that changed fails the build.
#[test]
fn the_expansion_holds_the_bytes_that_were_checked() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("skills/alpha");
    fs::create_dir_all(skill.join("references")).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: alpha\ndescription: Does alpha.\n---\nGOOD: see references/notes.md\n",
    )
    .unwrap();
    fs::write(skill.join("references/notes.md"), "GOOD notes\n").unwrap();
    let args: Args = syn::parse_str("\"skills\"").unwrap();
    let bundle = skills_core::load(dir.path(), &["skills"], &args.options);
    assert!(!bundle.has_errors(), "{:?}", bundle.diagnostics);
    let location = FileLocation {
        overridden: false,
        manifest_dir: dir.path().to_owned(),
        watched: Vec::new(),
    };
    let expand_now = || expand(&args, &bundle, &location, false).to_string();
    let code = expand_now();
    assert!(
        code.contains("GOOD: see") && code.contains("b\"GOOD notes\\n\""),
        "{code}"
    );

    // `SKILL.md` rewritten between the macro's read and rustc's: the text is still the checked one.
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: alpha\ndescription: Does alpha.\n---\nEVIL: see references/notes.md\n",
    )
    .unwrap();
    let code = expand_now();
    assert!(
        code.contains("GOOD: see") && !code.contains("EVIL"),
        "{code}"
    );

    // A resource rewritten: the build fails, naming it.
    fs::write(skill.join("references/notes.md"), "EVIL notes\n").unwrap();
    let code = expand_now();
    assert!(!code.contains("EVIL"), "{code}");
    assert!(code.contains("[skills::file-changed]"), "{code}");
    assert!(code.contains("skills/alpha/references/notes.md"), "{code}");
    assert!(code.contains("EMPTY_REGISTRY"), "{code}");
}

/// Files under a folder the build script has cargo watch are tracked by cargo: rustc does not
/// read them again. Files elsewhere (the lock here) still are.
#[test]
fn files_cargo_watches_are_not_read_again_for_tracking() {
    let dir = bundle_with_cases();
    let unlocked = skills_core::load(dir.path(), &["skills"], &skills_core::Options::default());
    let lock = skills_core::lock::render(&unlocked.files, &Default::default(), &[]);
    fs::write(dir.path().join("skills.lock"), lock).unwrap();
    let args: Args = syn::parse_str("\"skills\", lock = \"skills.lock\"").unwrap();
    let bundle = skills_core::load(dir.path(), &["skills"], &args.options);
    assert!(!bundle.has_errors(), "{:?}", bundle.diagnostics);
    let expand_watching = |watched: &[&str]| {
        let location = FileLocation {
            overridden: false,
            manifest_dir: dir.path().to_owned(),
            watched: watched.iter().map(|w| w.to_string()).collect(),
        };
        expand(&args, &bundle, &location, false).to_string()
    };
    let tracked = |code: &str| code.matches(":: core :: include_bytes !").count();
    let (all, some) = (expand_watching(&[]), expand_watching(&["skills"]));
    // SKILL.md, the trigger file and the lock; then the lock alone.
    assert_eq!(tracked(&all), 3, "{all}");
    assert_eq!(tracked(&some), 1, "{some}");
    assert!(some.contains("\"/skills.lock\""), "{some}");
    assert_eq!(tracked(&expand_watching(&["other"])), 3);
}

#[test]
fn errors_expand_to_compile_errors_and_an_empty_registry() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("skills/bad")).unwrap();
    fs::write(dir.path().join("skills/bad/SKILL.md"), "no frontmatter").unwrap();
    let code = expand_dir(dir.path(), "\"skills\", crate = ::renamed");
    assert!(code.contains(":: core :: compile_error !"), "{code}");
    assert!(code.contains("no frontmatter"));
    assert!(
        code.contains(":: renamed :: __private :: EMPTY_REGISTRY"),
        "the crate option is honoured: {code}"
    );
}

#[test]
fn the_default_crate_path_is_the_tables() {
    use quote::ToTokens;
    let path: syn::Path = syn::parse_str(skills_core::options::DEFAULT_CRATE).unwrap();
    assert_eq!(
        crate::args::default_crate_path()
            .to_token_stream()
            .to_string(),
        path.to_token_stream().to_string()
    );
}

fn parse_error(invocation: &str) -> String {
    match syn::parse_str::<Args>(invocation) {
        Ok(_) => panic!("`{invocation}` parsed"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn every_option_of_the_table_parses() {
    let args: Args = syn::parse_str(
        "\"skills\", max_file_size = 10, max_bundle_size = 1_000, allow_unknown_keys = true, \
         infer_missing_fields = true, ignore = [\"*.bak\"], long_body = \"deny\", \
         similar_descriptions = \"allow\", prompt_override = \"deny\", external_urls = \"warn\", \
         allowed_hosts = [\"docs.rs\"], crate = ::renamed, empty_body = \"deny\", \
         ascii_names = \"warn\", compat = \"claude-code\", catalog_budget = 8000, \
         lock = \"skills.lock\", missing_trigger_cases = \"warn\", dangling_code_path = \"deny\", \
         portable = \"deny\", mcp_limits = \"allow\", embed_evals = true, \
         packs = [\"acme-skills\"],",
    )
    .unwrap();
    let options = &args.options;
    assert_eq!((options.max_file_size, options.max_bundle_size), (10, 1000));
    assert!(options.allow_unknown_keys && options.infer_missing_fields);
    assert_eq!(options.ignore, ["*.bak"]);
    assert_eq!(options.lints.allowed_hosts, ["docs.rs"]);
    use skills_core::{Level, Lint};
    assert_eq!(options.lints.level(Lint::LongBody), Level::Deny);
    assert_eq!(options.lints.level(Lint::SimilarDescriptions), Level::Allow);
    assert_eq!(options.lints.level(Lint::PromptOverride), Level::Deny);
    assert_eq!(options.lints.level(Lint::ExternalUrls), Level::Warn);
    assert_eq!(options.lints.level(Lint::EmptyBody), Level::Deny);
    assert_eq!(options.lints.level(Lint::AsciiNames), Level::Warn);
    assert_eq!(options.lints.level(Lint::MissingTriggerCases), Level::Warn);
    assert_eq!(options.lints.level(Lint::Portable), Level::Deny);
    assert_eq!(options.lints.level(Lint::McpLimits), Level::Allow);
    // Set, a level holds in every dialect.
    assert_eq!(
        options
            .lints
            .level_in(Lint::DanglingCodePath, options.compat),
        Level::Deny
    );
    assert_eq!(options.compat, skills_core::claude_code::Compat::ClaudeCode);
    assert!(options.embed_evals);
    assert_eq!(options.catalog_budget, Some(8000));
    assert_eq!(options.lock.as_deref(), Some("skills.lock"));
    assert_eq!(options.packs, ["acme-skills"]);
    // Every option of the table is in the call above.
    let call = "max_file_size max_bundle_size allow_unknown_keys infer_missing_fields ignore \
                long_body similar_descriptions prompt_override external_urls allowed_hosts crate \
                empty_body ascii_names compat catalog_budget lock missing_trigger_cases \
                dangling_code_path portable mcp_limits embed_evals packs";
    for spec in skills_core::OPTIONS {
        assert!(
            call.split(' ').any(|name| name == spec.name),
            "{}",
            spec.name
        );
    }
}

#[test]
fn a_repeated_option_is_an_error() {
    for (invocation, name) in [
        (
            "\"s\", max_file_size = 1, max_file_size = 2",
            "max_file_size",
        ),
        (
            "\"s\", long_body = \"deny\", long_body = \"allow\"",
            "long_body",
        ),
        ("\"s\", crate = ::a, crate = ::b", "crate"),
    ] {
        let error = parse_error(invocation);
        assert!(
            error.contains(&format!("option `{name}` is given more than once")),
            "{error}"
        );
    }
    assert!(parse_error("\"s\", ignore = [\"a\"], ignore = [\"b\"]").contains("one list"));
}

#[test]
fn an_unknown_option_lists_the_table() {
    let error = parse_error("\"s\", max_size = 1");
    assert!(error.starts_with("unknown option `max_size`"), "{error}");
    for spec in skills_core::OPTIONS {
        assert!(error.contains(&format!("`{}`", spec.syntax())), "{error}");
    }
}

#[test]
fn a_lock_is_tracked_and_its_digest_recorded() {
    let dir = bundle_with("\n");
    let unlocked = expand_dir(dir.path(), "\"skills\"");
    assert!(
        unlocked.contains("lock_digest : :: core :: option :: Option :: None"),
        "{unlocked}"
    );

    let bundle = skills_core::load(dir.path(), &["skills"], &skills_core::Options::default());
    let options = skills_core::Options::default();
    let lock = skills_core::lock::render(&bundle.files, &options, &bundle.packs);
    fs::write(dir.path().join("skills.lock"), &lock).unwrap();
    let locked = expand_dir(dir.path(), "\"skills\", lock = \"skills.lock\"");
    let digest = skills_core::digest::sha256_hex(lock.as_bytes());
    assert!(
        locked.contains(&format!(
            "lock_digest : :: core :: option :: Option :: Some (\"{digest}\")"
        )),
        "{locked}"
    );
    assert!(locked.contains("\"/skills.lock\""), "{locked}");

    // A changed file: errors and the empty registry, no digest.
    fs::write(
        dir.path().join("skills/alpha/SKILL.md"),
        "---\nname: alpha\ndescription: Edited.\n---\nBody\n",
    )
    .unwrap();
    let changed = expand_dir(dir.path(), "\"skills\", lock = \"skills.lock\"");
    assert!(changed.contains("skills::lock-changed"), "{changed}");
    assert!(changed.contains("EMPTY_REGISTRY") && !changed.contains(&digest));
}
