//! Expansion checked in-process: the generated code as text.

use std::fs;
use std::path::Path;

use crate::args::Args;
use crate::expand::{FileLocation, Layout, expand};

fn expand_dir(dir: &Path, invocation: &str) -> String {
    let args: Args = syn::parse_str(invocation).unwrap();
    let roots: Vec<String> = args.roots.iter().map(syn::LitStr::value).collect();
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    let bundle = skills_core::load(dir, &roots, &args.options);
    let location = FileLocation {
        overridden: false,
        manifest_dir: dir.to_owned(),
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
    // A file embedded as it is comes from `include_str!`, which also tracks it; one that needed
    // normalizing is a literal of the normalized text, tracked by `include_bytes!`.
    assert!(
        lf_code.contains(&format!(":: core :: include_str ! ({path})")),
        "{lf_code}"
    );
    assert!(!lf_code.contains("include_bytes"), "{lf_code}");
    assert!(
        crlf_code.contains(&format!(":: core :: include_bytes ! ({path})")),
        "{crlf_code}"
    );
    assert!(!crlf_code.contains("include_str") && !crlf_code.contains("\\r"));
    // Everything else (offsets, hashes, index, catalog) is byte for byte the same.
    let tables = |code: &str| code[code.find("const _ : () =").unwrap()..].to_owned();
    assert_eq!(tables(&lf_code), tables(&crlf_code));
}

fn layout_of(dir: &Path) -> (Layout, skills_core::Bundle) {
    layout_with(dir, false)
}

/// The layout of the bundle in `dir/skills`, with or without the frontmatter as JSON.
fn layout_with(dir: &Path, frontmatter_json: bool) -> (Layout, skills_core::Bundle) {
    let bundle = skills_core::load(dir, &["skills"], &skills_core::Options::default());
    let krate = crate::args::default_crate_path();
    let location = FileLocation {
        overridden: false,
        manifest_dir: dir.to_owned(),
    };
    let roots = ["skills".to_owned()];
    let layout = Layout::new(&krate, &bundle, &roots, &location, frontmatter_json);
    (layout, bundle)
}

#[test]
fn with_the_feature_each_record_points_at_its_frontmatter_as_json() {
    use skills_core::layout::{self, Field, Header};
    let dir = bundle_with("\n");
    let (plain, _) = layout_with(dir.path(), false);
    let (layout, bundle) = layout_with(dir.path(), true);
    let skill = &bundle.skills[0];
    // The JSON is the one string the file does not hold: it is the tail.
    assert_eq!(layout.pieces.len(), 2);
    assert_eq!(
        layout.pieces[1].to_string(),
        format!("{:?}", skill.frontmatter_json)
    );
    let text = format!("{}{}", skill.text, skill.frontmatter_json);
    let mut at = 0;
    let header = Header::read(&layout.records, &mut at);
    assert!(header.has(Field::Frontmatter) && header.has(Field::Version));
    let mut json = layout::find(&layout.records, &header, at, Field::Frontmatter).unwrap();
    let [start, len] = [
        layout::read(&layout.records, &mut json),
        layout::read(&layout.records, &mut json),
    ];
    assert_eq!(
        &text[start as usize..(start + len) as usize],
        r#"{"name":"alpha","description":"Does alpha.","version":"1.0"}"#
    );
    // Without the feature nothing of it is embedded.
    let mut at = 0;
    assert!(!Header::read(&plain.records, &mut at).has(Field::Frontmatter));
    assert_eq!(plain.pieces.len(), 1);
}

#[test]
fn each_resource_hash_follows_its_skills_tree_hash() {
    use skills_core::layout::{self, Field, HASH_LEN, Header};
    let dir = tempfile::tempdir().unwrap();
    for (name, files) in [("one", &["a.md", "b.md"][..]), ("two", &["c.md"][..])] {
        let folder = dir.path().join("skills").join(name);
        fs::create_dir_all(&folder).unwrap();
        let links: String = files.iter().map(|f| format!(" `{f}`")).collect();
        fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Has files.\n---\nRead{links}.\n"),
        )
        .unwrap();
        for file in files {
            fs::write(folder.join(file), format!("{name} {file}\n")).unwrap();
        }
    }
    let (layout, bundle) = layout_with(dir.path(), false);
    assert!(!bundle.has_errors(), "{:?}", bundle.diagnostics);
    let hex = |slot: usize| -> String {
        layout.hashes[slot * HASH_LEN..(slot + 1) * HASH_LEN]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let starts: Vec<usize> = layout
        .record_starts
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as usize)
        .collect();
    for (skill, &start) in bundle.skills.iter().zip(&starts) {
        let mut at = start;
        let header = Header::read(&layout.records, &mut at);
        let mut numbers = layout::find(&layout.records, &header, at, Field::Resources).unwrap();
        let [_, count, slot] =
            [(); 3].map(|()| layout::read(&layout.records, &mut numbers) as usize);
        assert_eq!(count, skill.resources.len());
        assert_eq!(hex(slot), skill.tree_sha256);
        for (i, resource) in skill.resources.iter().enumerate() {
            assert_eq!(hex(slot + 1 + i), resource.sha256, "{}", resource.path);
        }
    }
    // Two files, a tree and two resources, a tree and one resource.
    assert_eq!(layout.hashes.len(), (2 + 3 + 2) * HASH_LEN);
}

#[test]
fn strings_are_ranges_of_the_embedded_text_not_copies() {
    use skills_core::layout::{self, Field, Header};
    let dir = bundle_with("\n");
    let code = expand_dir(dir.path(), "\"skills\"");
    // The file text comes from `include_str!`: only the catalog line repeats the description.
    assert_eq!(code.matches("Does alpha.").count(), 1, "{code}");
    assert!(
        code.contains("\"- alpha: Does alpha.\""),
        "the catalog is computed at build time"
    );

    let (layout, bundle) = layout_of(dir.path());
    let text = &bundle.skills[0].text;
    // No tail: every string is in the file, and the source path is the root and the name.
    assert_eq!(layout.pieces.len(), 1);
    assert_eq!(layout.text_len as usize, text.len());
    let name = layout::NameEntry::read(&layout.names, 0);
    let start = name.start as usize;
    assert_eq!(&text[start..start + usize::from(name.len)], "alpha");
    assert_eq!(
        name.from_base as usize, start,
        "the first skill starts the text"
    );
    let mut at = 0;
    let header = Header::read(&layout.records, &mut at);
    let slice = |[start, len]: [u32; 2]| &text[start as usize..(start + len) as usize];
    assert_eq!(slice(header.description), "Does alpha.");
    assert_eq!(slice(header.body), "# Alpha\n\nSteps.");
    assert_eq!(
        header.flags,
        Field::Version.bit(),
        "only what the skill sets"
    );
    let mut version = layout::find(&layout.records, &header, at, Field::Version).unwrap();
    let range = [
        layout::read(&layout.records, &mut version),
        layout::read(&layout.records, &mut version),
    ];
    assert_eq!(slice(range), "1.0");
    assert_eq!(version, layout.records.len());
    assert_eq!(layout.records.len(), 8, "a record of eight bytes");
    // The hash as its 32 raw bytes.
    let hex: String = layout.hashes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, bundle.skills[0].sha256);
}

#[test]
fn strings_not_in_the_file_go_to_its_tail() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("skills/folded")).unwrap();
    fs::write(
        dir.path().join("skills/folded/SKILL.md"),
        "---\nname: folded\ndescription: >\n  Folded\n  text.\ntags: [\"a\\tb\"]\n---\nBody\n",
    )
    .unwrap();
    let (layout, bundle) = layout_of(dir.path());
    let skill = &bundle.skills[0];
    assert_eq!(layout.pieces.len(), 2, "the file, then its tail");
    let tail = layout.pieces[1].to_string();
    assert_eq!(tail, "\"a\\tbFolded text.\\n\"");
    assert_eq!(
        layout.text_len as usize,
        skill.text.len() + "a\tbFolded text.\n".len()
    );
}

#[test]
fn a_name_far_from_its_base_puts_the_base_in_the_record() {
    use skills_core::layout::{self, Field, Header, NameEntry};
    // With `infer_missing_fields` the name is the folder's, found only in the tail, after the
    // file.
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("skills/zq-far")).unwrap();
    let body = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(10);
    fs::write(
        dir.path().join("skills/zq-far/SKILL.md"),
        format!("---\ndescription: Far.\n---\n{body}"),
    )
    .unwrap();
    let options: Args = syn::parse_str("\"skills\", infer_missing_fields = true").unwrap();
    let bundle = skills_core::load(dir.path(), &["skills"], &options.options);
    assert!(!bundle.has_errors(), "{:?}", bundle.diagnostics);
    let krate = crate::args::default_crate_path();
    let location = FileLocation {
        overridden: false,
        manifest_dir: dir.path().to_owned(),
    };
    let layout = Layout::new(&krate, &bundle, &["skills".to_owned()], &location, false);
    let entry = NameEntry::read(&layout.names, 0);
    assert_eq!(entry.from_base, NameEntry::FAR);
    assert!(entry.start > u32::from(u8::MAX));
    let mut at = 0;
    let header = Header::read(&layout.records, &mut at);
    let mut base = layout::find(&layout.records, &header, at, Field::Base).unwrap();
    assert_eq!(layout::read(&layout.records, &mut base), 0);
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
         portable = \"deny\", mcp_limits = \"allow\", packs = [\"acme-skills\"],",
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
    assert_eq!(options.catalog_budget, Some(8000));
    assert_eq!(options.lock.as_deref(), Some("skills.lock"));
    assert_eq!(options.packs, ["acme-skills"]);
    // Every option of the table is in the call above.
    let call = "max_file_size max_bundle_size allow_unknown_keys infer_missing_fields ignore \
                long_body similar_descriptions prompt_override external_urls allowed_hosts crate \
                empty_body ascii_names compat catalog_budget lock missing_trigger_cases \
                dangling_code_path portable mcp_limits packs";
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
