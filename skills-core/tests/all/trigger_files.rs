//! A skill's `evals/` folder on real folders: `evals/triggers.json` read, checked and locked
//! like every file, and nothing under `evals/` ever a resource (the model must not see its own
//! test).

use std::fs;

use skills_core::{Code, Options, load, lock};

use crate::folders::write;

const SKILL: &str =
    "---\nname: a\ndescription: Does a. Use when testing.\n---\nRun `scripts/a.sh`.\n";

const CASES: &str = r#"[
  {"query": "do a for me", "should_trigger": true},
  {"query": "write a poem", "should_trigger": false}
]
"#;

fn messages(bundle: &skills_core::Bundle) -> Vec<String> {
    bundle
        .diagnostics
        .iter()
        .map(|d| format!("{} [{}] {}", d.location(), d.code(), d.message()))
        .collect()
}

#[test]
fn evals_are_never_resources_and_the_trigger_file_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("skills/a");
    write(&skill.join("SKILL.md"), SKILL);
    write(&skill.join("scripts/a.sh"), "echo a\n");
    let before = load(dir.path(), &["skills"], &Options::default());
    assert!(before.diagnostics.is_empty(), "{:?}", messages(&before));

    write(&skill.join("evals/triggers.json"), CASES);
    write(&skill.join("evals/evals.json"), "{\"evals\": []}");
    write(&skill.join("evals/files/input.txt"), "fixture");
    let bundle = load(dir.path(), &["skills"], &Options::default());
    assert!(bundle.diagnostics.is_empty(), "{:?}", messages(&bundle));
    let a = &bundle.skills[0];
    let resources: Vec<&str> = a.resources.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(resources, ["scripts/a.sh"]);
    // The files the model can be given, and so the materialized copy, are unchanged.
    assert_eq!(a.tree_sha256, before.skills[0].tree_sha256);

    let triggers = a.triggers.as_ref().expect("the trigger file is read");
    assert_eq!(triggers.path, "skills/a/evals/triggers.json");
    assert_eq!(triggers.file, skill.join("evals/triggers.json"));
    assert_eq!(triggers.counts(), (1, 1));
    assert_eq!(triggers.cases[1].query.value, "write a poem");
    assert_eq!(
        (triggers.cases[1].query.line, triggers.cases[1].query.column),
        (3, 13)
    );

    // The lock lists the trigger and task files (a changed case is a reviewed change), and of
    // the rest of `evals/` only the files a task case copies: `files/input.txt` is named by
    // none, so it is neither read nor locked.
    let listed: Vec<&str> = bundle.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        listed,
        [
            "skills/a/SKILL.md",
            "skills/a/evals/evals.json",
            "skills/a/evals/triggers.json",
            "skills/a/scripts/a.sh"
        ]
    );
    let options = Options::default();
    fs::write(
        dir.path().join("skills.lock"),
        lock::render(&bundle.files, &options, &bundle.packs),
    )
    .unwrap();
    let locked = Options {
        lock: Some("skills.lock".into()),
        ..Options::default()
    };
    assert!(!load(dir.path(), &["skills"], &locked).has_errors());
    // A file under `evals/` that no case names is not locked.
    write(&skill.join("evals/files/input.txt"), "another fixture");
    assert!(!load(dir.path(), &["skills"], &locked).has_errors());
    write(
        &skill.join("evals/triggers.json"),
        &CASES.replace("poem", "song"),
    );
    write(
        &skill.join("evals/evals.json"),
        "{\"evals\": [{\"id\": 1, \"prompt\": \"do a\"}]}",
    );
    let changed = load(dir.path(), &["skills"], &locked);
    let codes: Vec<(Code, &str)> = changed.errors().map(|d| (d.code(), d.path())).collect();
    assert_eq!(
        codes,
        [
            (Code::LockChanged, "skills/a/evals/evals.json"),
            (Code::LockChanged, "skills/a/evals/triggers.json")
        ]
    );
}

#[test]
fn trigger_problems_are_errors_at_their_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("skills/a");
    write(&skill.join("SKILL.md"), SKILL);
    write(&skill.join("scripts/a.sh"), "echo a\n");
    write(
        &skill.join("evals/triggers.json"),
        "[\n  {\"query\": \"do a\", \"should_trigger\": \"yes\"}\n]\n",
    );
    let bundle = load(dir.path(), &["skills"], &Options::default());
    assert_eq!(
        messages(&bundle),
        [
            "skills/a/evals/triggers.json:2:39 [trigger-wrong-type] `should_trigger` of trigger case 1 must be `true` or `false`, found a string"
        ]
    );
    assert!(bundle.has_errors());
}

#[test]
fn the_file_limit_applies_to_the_trigger_file() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("skills/a");
    write(&skill.join("SKILL.md"), SKILL);
    write(&skill.join("scripts/a.sh"), "echo a\n");
    write(&skill.join("evals/triggers.json"), CASES);
    let options = Options {
        max_file_size: 100,
        ..Options::default()
    };
    let bundle = load(dir.path(), &["skills"], &options);
    assert_eq!(
        messages(&bundle),
        [
            "skills/a/evals/triggers.json [file-too-large] `skills/a/evals/triggers.json` is 109 bytes, over the per-file limit of 100 bytes"
        ]
    );
    // Not embedded, so not part of the bundle's total; embedded, it is.
    let exact = (SKILL.len() + "echo a\n".len()) as u64;
    let options = Options {
        max_bundle_size: exact,
        ..Options::default()
    };
    assert!(!load(dir.path(), &["skills"], &options).has_errors());
    let embedded = Options {
        embed_evals: true,
        ..options.clone()
    };
    let over = load(dir.path(), &["skills"], &embedded);
    let codes: Vec<Code> = over.errors().map(|d| d.code()).collect();
    assert_eq!(codes, [Code::BundleTooLarge], "{:?}", messages(&over));
    let room = Options {
        max_bundle_size: exact + CASES.len() as u64,
        ..embedded
    };
    assert!(!load(dir.path(), &["skills"], &room).has_errors());
}

#[test]
fn a_lock_records_whether_the_cases_are_embedded() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("skills/a/SKILL.md"), SKILL);
    write(&dir.path().join("skills/a/scripts/a.sh"), "echo a\n");
    write(&dir.path().join("skills/a/evals/triggers.json"), CASES);
    let bundle = load(dir.path(), &["skills"], &Options::default());
    let lock_text = lock::render(&bundle.files, &Options::default(), &bundle.packs);
    assert!(
        lock_text.contains("# option embed_evals = false\n"),
        "{lock_text}"
    );
    fs::write(dir.path().join("skills.lock"), lock_text).unwrap();
    let embedding = Options {
        embed_evals: true,
        lock: Some("skills.lock".into()),
        ..Options::default()
    };
    let changed = load(dir.path(), &["skills"], &embedding);
    let found: Vec<(Code, String)> = changed
        .errors()
        .map(|d| (d.code(), d.message().to_owned()))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Code::LockOptions);
    assert!(found[0].1.contains("`embed_evals = false`"), "{found:?}");
}

#[cfg(unix)]
#[test]
fn a_trigger_file_must_stay_inside_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("skills/a");
    write(&skill.join("SKILL.md"), SKILL);
    write(&skill.join("scripts/a.sh"), "echo a\n");
    write(&dir.path().join("outside.json"), CASES);
    fs::create_dir_all(skill.join("evals")).unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("outside.json"),
        skill.join("evals/triggers.json"),
    )
    .unwrap();
    let bundle = load(dir.path(), &["skills"], &Options::default());
    assert_eq!(
        messages(&bundle),
        [
            "skills/a/evals/triggers.json [symlink-outside] `skills/a/evals/triggers.json` is a symlink to a path outside the skills root"
        ]
    );
}
