//! A registry built at run time from folders on disk (the `skills` command's, for its evals) is
//! the registry `embed_skills!` compiles from the same folders: the same tables byte for byte, and
//! the same answers from every accessor.

use std::path::Path;

use skills_runtime::__private::{bundle_data, frontmatter_json, registry_from_bundle};
use skills_runtime::{Registry, Skill};

use crate::registries::{CLAUDE_CODE as CLAUDE, MIXED as PLAIN};

static DEMO: Registry = skills_runtime::embed_skills!("../skills", embed_evals = true);

/// The folders of a macro call, read and built at run time with its options.
fn built(roots: &[&str], options: &skills_core::Options, like: &Registry) -> Registry {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bundle = skills_core::load(manifest, roots, options);
    assert!(!bundle.has_errors(), "{:?}", bundle.diagnostics);
    // The macro writes the frontmatter as JSON when a crate of the build (the MCP server's)
    // turns its feature on: build the same way.
    let json = like
        .iter()
        .next()
        .is_some_and(|skill| frontmatter_json(skill).is_some());
    registry_from_bundle(&bundle, roots, json, options.embed_evals).unwrap()
}

/// Everything a skill answers.
fn answers(skill: &Skill) -> String {
    let resources: Vec<_> = skill
        .resources()
        .iter()
        .map(|r| (r.path(), r.bytes(), r.is_text(), r.is_executable()))
        .collect();
    format!(
        "{skill:?} {} {} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} \
         {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {:?}",
        skill.name(),
        skill.description(),
        skill.body(),
        skill.content(),
        skill.display_name(),
        skill.when_to_use(),
        skill.argument_hint(),
        skill.argument_names(),
        skill.model_invocable(),
        skill.user_invocable(),
        skill.model(),
        skill.effort(),
        skill.context(),
        skill.agent(),
        skill.hooks(),
        skill.disallowed_tools(),
        skill.paths(),
        skill.shell(),
        skill.license(),
        skill.compatibility(),
        skill.metadata(),
        skill.allowed_tools(),
        skill.version(),
        skill.tags(),
        skill.when_not_to_use(),
        skill.requires(),
        skill.conflicts_with(),
        skill.tree_sha256(),
        skill.load_result(),
        (resources, skill.trigger_cases(), frontmatter_json(skill)),
    )
}

fn assert_same(compiled: &Registry, built: &Registry) {
    let (a, b) = (bundle_data(compiled), bundle_data(built));
    assert_eq!(a.text, b.text);
    assert_eq!(a.names, b.names);
    assert_eq!(a.records, b.records);
    assert_eq!(a.hashes, b.hashes);
    assert_eq!(a.index, b.index);
    assert_eq!(a.roots, b.roots);
    assert_eq!(a.catalog, b.catalog);
    assert_eq!(
        a.triggers.map(|t| (t.table, t.queries)),
        b.triggers.map(|t| (t.table, t.queries))
    );
    assert_eq!(
        compiled.names().collect::<Vec<_>>(),
        built.names().collect::<Vec<_>>()
    );
    assert_eq!(compiled.system_prompt("P."), built.system_prompt("P."));
    assert_eq!(compiled.catalog_xml(), built.catalog_xml());
    assert_eq!(
        compiled.load_skill_tool_anthropic(),
        built.load_skill_tool_anthropic()
    );
    assert_eq!(
        compiled.load_skill_tool_openai(),
        built.load_skill_tool_openai()
    );
    assert_eq!(
        compiled.read_resource_tool_openai(),
        built.read_resource_tool_openai()
    );
    assert_eq!(
        compiled.trigger_cases_embedded(),
        built.trigger_cases_embedded()
    );
    for (x, y) in compiled.iter().zip(built.iter()) {
        assert_eq!(answers(x), answers(y));
    }
    assert!(!compiled.is_empty());
}

#[test]
fn a_bundle_built_at_run_time_is_the_compiled_one() {
    let options = skills_core::Options::default();
    let roots = [
        "tests/skills",
        "../skills-test-support/fixtures/with-resources",
        "../skills-test-support/fixtures/valid",
    ];
    assert_same(&PLAIN, &built(&roots, &options, &PLAIN));
    let claude = skills_core::Options {
        compat: skills_core::claude_code::Compat::ClaudeCode,
        ..skills_core::Options::default()
    };
    let roots = ["../skills-test-support/fixtures/claude-code"];
    assert_same(&CLAUDE, &built(&roots, &claude, &CLAUDE));
}

#[test]
fn trigger_cases_are_the_files_cases_only_when_embedded() {
    let evals = skills_core::Options {
        embed_evals: true,
        ..skills_core::Options::default()
    };
    let built_demo = built(&["../skills"], &evals, &DEMO);
    assert_same(&DEMO, &built_demo);
    assert!(DEMO.trigger_cases_embedded());
    let review = DEMO.get("code-review").unwrap();
    let file = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills/code-review/evals/triggers.json"),
    )
    .unwrap();
    assert_eq!(review.trigger_cases().len(), 16);
    for case in review.trigger_cases() {
        assert!(
            file.contains(&format!("\"query\": \"{}\"", case.query)),
            "{case:?}"
        );
    }
    assert_eq!(
        review
            .trigger_cases()
            .iter()
            .filter(|c| c.should_trigger)
            .count(),
        8
    );
    // Not embedded: none, and the registry says why.
    let plain = built(&["../skills"], &skills_core::Options::default(), &DEMO);
    assert!(!plain.trigger_cases_embedded());
    assert!(plain.iter().all(|skill| skill.trigger_cases().is_empty()));
    assert!(plain.get("code-review").unwrap().trigger_cases().is_empty());

    // Restricted and composed registries keep their skills' cases, and say so.
    let review_only = DEMO.restrict(["code-review"]).unwrap();
    assert!(review_only.trigger_cases_embedded());
    let composed = Registry::compose([&review_only, &Registry::empty()]).unwrap();
    assert!(composed.trigger_cases_embedded());
    assert_eq!(
        composed.get("code-review").unwrap().trigger_cases().len(),
        16
    );
    let without = Registry::compose([&plain.restrict(["code-review"]).unwrap()]).unwrap();
    assert!(!without.trigger_cases_embedded());
}

/// `Skill::materialize` writes only plain names, whatever built the registry: resource paths
/// that leave the folder (`..`, an absolute path) or that another system reads as a way out or
/// as something else (`a\..\..\evil.bat` and `C:\x` on Windows, a device name, a trailing dot)
/// are refused before anything is written. The build refuses such names; this registry is put
/// together at run time with them, as a registry that did not come from the macro could be.
#[test]
fn materialize_writes_plain_names_only_whatever_the_registry_holds() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let roots = ["../skills-test-support/fixtures/with-resources"];
    let loaded = skills_core::load(manifest, &roots, &skills_core::Options::default());
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    for hostile in [
        "../escaped.md",
        "/tmp/absolute.md",
        "a\\..\\..\\evil.bat",
        "C:\\x",
        "scripts/../../up.md",
        "CON",
        "notes.",
        "./here.md",
        "a//b.md",
    ] {
        let mut bundle = loaded.clone();
        bundle.skills[0].resources[0].path = hostile.to_owned();
        let registry = registry_from_bundle(&bundle, &roots, false, false).unwrap();
        let skill = registry.iter().next().unwrap();
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().join("base");
        let error = skill.materialize(&base).expect_err(hostile);
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::InvalidInput,
            "{hostile}: {error}"
        );
        assert!(error.to_string().contains("refusing to write"), "{error}");
        // Nothing was written, inside or outside the base.
        let written: Vec<_> = std::fs::read_dir(temp.path()).unwrap().collect();
        assert!(written.is_empty(), "{hostile}: {written:?}");
    }
    // The same registry with the real paths is written.
    let registry = registry_from_bundle(&loaded, &roots, false, false).unwrap();
    let temp = tempfile::tempdir().unwrap();
    let skill = registry.iter().next().unwrap();
    assert!(skill.materialize(&temp.path().join("base")).is_ok());
}
