use std::time::Duration;

use super::*;
use crate::bundle::{Bundle, load, load_cached_as};
use crate::claude_code::Compat;
use crate::lint::{Level, LintOptions};

/// The workspace root: the demo bundle is `skills/`, the fixtures `skills-test-support/fixtures/`.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Copies a tree, symlinks as symlinks (the fixtures have some that must stay broken or
/// leave the root).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let file_type = entry.file_type().unwrap();
        if file_type.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else if file_type.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Everything the caller may see of a bundle, for comparing two of them.
fn rendering(bundle: &Bundle) -> String {
    format!("{bundle:#?}")
}

/// A copy of the workspace's skill roots in a temporary crate directory, with a cache
/// directory beside them.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&workspace().join("skills"), &dir.path().join("skills"));
        copy_tree(
            &workspace().join("skills-test-support/fixtures"),
            &dir.path().join("fixtures"),
        );
        // What no fixture has: `compatibility`, a binary resource.
        let extra = dir.path().join("extra/everything");
        fs::create_dir_all(extra.join("assets")).unwrap();
        fs::write(
            extra.join("SKILL.md"),
            "---\nname: everything\ndescription: Has what the fixtures lack.\n\
             compatibility: Needs git.\n---\nSee `assets/logo.png`.\n",
        )
        .unwrap();
        fs::write(
            extra.join("assets/logo.png"),
            [0x89, b'P', b'N', b'G', 0, 1],
        )
        .unwrap();
        // And a task case whose fixture is an executable script.
        fs::create_dir_all(extra.join("evals/files")).unwrap();
        fs::write(
            extra.join("evals/evals.json"),
            r#"{"skill_name": "everything", "evals": [{"id": 1, "prompt": "Run it", "files": ["files/run.sh"]}]}"#,
        )
        .unwrap();
        let script = extra.join("evals/files/run.sh");
        fs::write(&script, "#!/bin/sh\necho ran\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::create_dir(dir.path().join("out")).unwrap();
        Scratch { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// A cached load that trusts every file (they were all written moments ago).
    fn cached(&self, roots: &[&str], options: &Options) -> (Bundle, CacheStats) {
        self.cached_as(roots, options, version_key())
    }

    fn cached_as(&self, roots: &[&str], options: &Options, version: &str) -> (Bundle, CacheStats) {
        load_cached_as(
            self.root(),
            roots,
            options,
            &self.out(),
            version,
            Duration::ZERO,
        )
    }

    fn fresh(&self, roots: &[&str], options: &Options) -> Bundle {
        load(self.root(), roots, options)
    }

    fn cache_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = fs::read_dir(self.out())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
    }
}

/// Every way the fixtures are loaded: each fixture as a root, and each of its folders (the
/// multi-root fixtures), under options that reach every per-file rule.
fn cases(scratch: &Scratch) -> Vec<(Vec<String>, Options)> {
    let mut roots = vec![vec!["skills".to_owned()], vec!["extra".to_owned()]];
    let mut fixtures: Vec<_> = fs::read_dir(scratch.root().join("fixtures"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .collect();
    fixtures.sort_by_key(|e| e.file_name());
    for fixture in fixtures {
        let name = fixture.file_name().into_string().unwrap();
        roots.push(vec![format!("fixtures/{name}")]);
        let mut inner: Vec<String> = fs::read_dir(fixture.path())
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.path().is_dir())
            .map(|e| format!("fixtures/{name}/{}", e.file_name().into_string().unwrap()))
            .collect();
        inner.sort();
        if inner.len() > 1 {
            roots.push(inner.clone());
        }
        roots.extend(inner.into_iter().map(|root| vec![root]));
    }
    let mut deny_all = LintOptions::all_at(Level::Deny);
    deny_all.allowed_hosts = vec!["docs.rs".into()];
    let strict = Options {
        lints: deny_all,
        ..Options::default()
    };
    let claude = Options {
        compat: Compat::ClaudeCode,
        allow_unknown_keys: true,
        ..Options::default()
    };
    let legacy = Options {
        infer_missing_fields: true,
        ignore: vec!["*.md".into()],
        max_file_size: 2_000,
        ..Options::default()
    };
    let mut out = Vec::new();
    for root in roots {
        for options in [&Options::default(), &strict, &claude, &legacy] {
            out.push((root.clone(), options.clone()));
        }
    }
    out
}

/// The property the cache rests on: for the demo bundle and every fixture, under every set of
/// options, a build served from the cache is the fresh build, diagnostics, positions, hashes
/// and all. A field the encoding forgets shows up here.
#[test]
fn a_cached_bundle_equals_the_fresh_one() {
    let scratch = Scratch::new();
    let mut served = 0;
    for (roots, options) in cases(&scratch) {
        let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
        let fresh = scratch.fresh(&roots, &options);
        let (cold, cold_stats) = scratch.cached(&roots, &options);
        let (warm, warm_stats) = scratch.cached(&roots, &options);
        let what = format!("{roots:?} with {options:?}");
        assert_eq!(rendering(&cold), rendering(&fresh), "cold cache: {what}");
        assert_eq!(rendering(&warm), rendering(&fresh), "warm cache: {what}");
        assert_eq!(cold_stats.hits, 0, "{what}");
        assert_eq!(
            warm_stats.misses, 0,
            "{what}: every folder comes from the cache"
        );
        assert_eq!(warm_stats.hits, fresh.skills_found, "{what}");
        assert!(
            !warm_stats.written,
            "{what}: an unchanged cache is not rewritten"
        );
        served += warm_stats.hits;
    }
    assert!(served > 100, "only {served} folders served from the cache");
}

/// Per folder, the encoding round-trips exactly, and the folders tried give every field of
/// every cached struct two values or more somewhere, so the comparison above would see a
/// field the cache dropped, mixed up or read back as another.
///
/// A field added to a struct but not to its `record!` list cannot get past this: it is a
/// compile error (the encoding destructures the struct without `..`, the decoding builds it
/// with a struct literal). The field lists checked here are the ones `record!` generates.
#[test]
fn every_field_round_trips() {
    let scratch = Scratch::new();
    let mut seen = FieldValues::new();
    for (roots, options) in cases(&scratch) {
        let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
        let bundle = scratch.fresh(&roots, &options);
        for skill in &bundle.skills {
            let result = FolderResult {
                diagnostics: bundle.diagnostics.clone(),
                size: skill.text.len() as u64,
                files: bundle.files.clone(),
                skill: Some(skill.clone()),
            };
            let decoded = decode_result(&encode_result(&result).unwrap()).unwrap();
            assert_eq!(decoded, result);
            result.visit(&mut seen);
        }
    }
    let records: [(&str, &[&str]); 12] = [
        ("FolderResult", FolderResult::FIELDS),
        ("Diagnostic", Diagnostic::FIELDS),
        ("LockedFile", LockedFile::FIELDS),
        ("SkillDef", SkillDef::FIELDS),
        ("ClaudeCodeFields", ClaudeCodeFields::FIELDS),
        ("ShellCommand", ShellCommand::FIELDS),
        ("ResourceDef", ResourceDef::FIELDS),
        ("TriggerFile", TriggerFile::FIELDS),
        ("TriggerCase", TriggerCase::FIELDS),
        ("TaskFile", TaskFile::FIELDS),
        ("FixtureFile", FixtureFile::FIELDS),
        ("OpenAiYaml", OpenAiYaml::FIELDS),
    ];
    let unvaried: Vec<String> = records
        .into_iter()
        .flat_map(|(record, fields)| fields.iter().map(move |field| (record, *field)))
        .filter(|key| seen.get(key).is_none_or(|values| values.len() < 2))
        .map(|(record, field)| format!("{record}::{field}"))
        .collect();
    assert!(unvaried.is_empty(), "no two folders differ in {unvaried:?}");
}

/// Writes `text` into a skill of the scratch demo bundle.
fn write(scratch: &Scratch, relative: &str, text: &str) {
    let file = scratch.root().join(relative);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, text).unwrap();
}

/// One skill's `SKILL.md`.
fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")
}

/// Edits, breakage, renames, deletions and additions after a warm cache: every build equals a
/// fresh one, and only the folders touched are computed again.
#[test]
fn changes_after_a_cached_build_are_seen() {
    let scratch = Scratch::new();
    let roots = ["skills"];
    let options = Options::default();
    let check = |what: &str| -> CacheStats {
        let (cached, stats) = scratch.cached(&roots, &options);
        let fresh = scratch.fresh(&roots, &options);
        assert_eq!(rendering(&cached), rendering(&fresh), "after {what}");
        stats
    };
    let first = check("the first build");
    assert_eq!(first.misses, first.stored);
    let all = first.stored;

    write(
        &scratch,
        "skills/code-review/SKILL.md",
        &skill_md("code-review", "Review a change.", "New body."),
    );
    let stats = check("an edit");
    assert_eq!((stats.misses, stats.hits), (1, all - 1));
    let (bundle, _) = scratch.cached(&roots, &options);
    let skill = bundle.skills.iter().find(|s| s.name.value == "code-review");
    assert_eq!(skill.unwrap().body(), "New body.", "the new content");

    // A file a task case copies is not found by the walk: its edit is seen all the same, and
    // its new hash reaches the lock's list.
    let fixture = "skills/write-tests/evals/files/range-project/src/range.rs";
    write(&scratch, fixture, "pub fn parse_range() {}\n");
    let stats = check("an edit of a task case's file");
    assert_eq!((stats.misses, stats.hits), (1, all - 1));
    let (bundle, _) = scratch.cached(&roots, &options);
    let locked = bundle.files.iter().find(|f| f.path == fixture).unwrap();
    assert_eq!(
        locked.sha256,
        crate::digest::sha256_hex(b"pub fn parse_range() {}\n")
    );

    write(
        &scratch,
        "skills/code-review/SKILL.md",
        "---\nname: code-review\ndescription: Use: now\n---\nBody\n",
    );
    check("an edit that breaks the skill");
    let (broken, _) = scratch.cached(&roots, &options);
    let error = broken
        .errors()
        .next()
        .expect("the error of the broken skill");
    assert_eq!(error.location(), "skills/code-review/SKILL.md:3:17");

    write(
        &scratch,
        "skills/code-review/SKILL.md",
        &skill_md("code-review", "Review a change.", "Fixed."),
    );
    assert!(!scratch.cached(&roots, &options).0.has_errors());
    check("the fix");

    fs::rename(
        scratch.root().join("skills/write-docs"),
        scratch.root().join("skills/docs-writer"),
    )
    .unwrap();
    check("a renamed folder (its name no longer matches)");
    let (renamed, _) = scratch.cached(&roots, &options);
    assert!(renamed.errors().any(|d| d.code() == Code::NameMismatch));
    fs::rename(
        scratch.root().join("skills/docs-writer"),
        scratch.root().join("skills/write-docs"),
    )
    .unwrap();

    fs::remove_dir_all(scratch.root().join("skills/write-tests")).unwrap();
    let stats = check("a deleted skill");
    assert_eq!(stats.stored, all - 1);
    assert!(stats.written, "the deleted skill's entry is dropped");

    write(
        &scratch,
        "skills/brand-new/SKILL.md",
        &skill_md("brand-new", "Something new entirely.", "Body."),
    );
    let stats = check("a new skill");
    assert_eq!((stats.misses, stats.stored), (1, all));

    write(&scratch, "skills/brand-new/references/extra.md", "More.");
    let stats = check("a new resource");
    assert_eq!(stats.misses, 1);

    // The trigger cases are part of the folder's result: every change to them is seen.
    let cases = |query: &str| format!("[{{\"query\": \"{query}\", \"should_trigger\": true}}]\n");
    let query_of = |bundle: &Bundle, name: &str| -> Option<String> {
        let skill = bundle.skills.iter().find(|s| s.name.value == name)?;
        Some(skill.triggers.as_ref()?.cases.first()?.query.value.clone())
    };
    write(
        &scratch,
        "skills/brand-new/evals/triggers.json",
        &cases("do it"),
    );
    let stats = check("a new trigger file");
    assert_eq!(stats.misses, 1);
    assert_eq!(
        query_of(&scratch.cached(&roots, &options).0, "brand-new").as_deref(),
        Some("do it")
    );
    write(
        &scratch,
        "skills/brand-new/evals/triggers.json",
        &cases("do that"),
    );
    let stats = check("an edited case");
    assert_eq!(stats.misses, 1);
    let (bundle, _) = scratch.cached(&roots, &options);
    assert_eq!(query_of(&bundle, "brand-new").as_deref(), Some("do that"));
    let locked = bundle
        .files
        .iter()
        .find(|f| f.path == "skills/brand-new/evals/triggers.json")
        .expect("the lock lists the trigger file");
    assert_eq!(
        locked.sha256,
        crate::digest::sha256_hex(cases("do that").as_bytes())
    );
    write(
        &scratch,
        "skills/brand-new/evals/triggers.json",
        "[{\"query\": 1}]",
    );
    check("a broken case");
    let (broken, _) = scratch.cached(&roots, &options);
    assert!(
        broken
            .errors()
            .any(|d| d.location() == "skills/brand-new/evals/triggers.json:1:12"),
        "{:?}",
        broken.diagnostics
    );
    fs::remove_file(scratch.root().join("skills/brand-new/evals/triggers.json")).unwrap();
    let stats = check("a deleted trigger file");
    assert_eq!(stats.misses, 1);
    let (bundle, _) = scratch.cached(&roots, &options);
    assert!(
        bundle
            .skills
            .iter()
            .any(|s| s.name.value == "brand-new" && s.triggers.is_none())
    );
    let (bundle, _) = scratch.cached(&roots, &options);
    assert!(
        bundle
            .files
            .iter()
            .any(|f| f.path == "skills/brand-new/references/extra.md")
    );
}

/// A file written within the settle time is not cached: edited again in the same timestamp
/// tick with the same size, it would look unchanged.
#[test]
fn recent_files_are_not_cached() {
    let scratch = Scratch::new();
    let file = scratch.root().join("skills/code-review/SKILL.md");
    let options = Options::default();
    let load_settled = || {
        load_cached_as(
            scratch.root(),
            &["skills"],
            &options,
            &scratch.out(),
            version_key(),
            SETTLE_TIME,
        )
    };
    fs::write(
        &file,
        skill_md("code-review", "Review a change.", "Version A."),
    )
    .unwrap();
    let modified = fs::metadata(&file).unwrap().modified().unwrap();
    let (first, stats) = load_settled();
    assert!(first.skills.iter().any(|s| s.body() == "Version A."));
    assert!(stats.stored < stats.misses, "the new file is not stored");
    // Same size, same modification time: only the content differs.
    fs::write(
        &file,
        skill_md("code-review", "Review a change.", "Version B."),
    )
    .unwrap();
    fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let (second, _) = load_settled();
    assert!(
        second.skills.iter().any(|s| s.body() == "Version B."),
        "served a stale verdict"
    );
}

/// A changed option that decides per-file results is a different cache; one that does not
/// (a cross-skill rule) reuses it. Either way the verdict is the fresh one.
#[test]
fn options_are_part_of_the_key() {
    let scratch = Scratch::new();
    write(
        &scratch,
        "skills/code-review/SKILL.md",
        &skill_md(
            "code-review",
            "Review a change.",
            "See https://example.com/x.",
        ),
    );
    let roots = ["skills"];
    let defaults = Options::default();
    let (allowed, _) = scratch.cached(&roots, &defaults);
    assert!(!allowed.has_errors());

    let mut deny = Options::default();
    deny.lints.set_level(crate::Lint::ExternalUrls, Level::Deny);
    let (denied, stats) = scratch.cached(&roots, &deny);
    assert_eq!(stats.hits, 0, "a new lint level recomputes every folder");
    assert!(denied.errors().any(|d| d.code() == Code::ExternalUrls));
    assert_eq!(rendering(&denied), rendering(&scratch.fresh(&roots, &deny)));

    let budget = Options {
        catalog_budget: Some(10),
        ..Options::default()
    };
    let (over, stats) = scratch.cached(&roots, &budget);
    assert_eq!(
        stats.misses, 0,
        "the catalog budget is checked across skills"
    );
    assert!(over.errors().any(|d| d.code() == Code::CatalogOverBudget));
    assert_eq!(rendering(&over), rendering(&scratch.fresh(&roots, &budget)));
}

/// A cache written by another build of this crate (an upgrade) is never used, even when its
/// entries look valid, and is replaced.
#[test]
fn another_version_is_ignored() {
    let scratch = Scratch::new();
    let roots = ["skills"];
    let options = Options::default();
    let old_version = "0.0.1 0123456789abcdef";
    let (_, stats) = scratch.cached_as(&roots, &options, old_version);
    assert!(stats.written);
    // Make the old build's verdict wrong: its entries now claim a different body.
    let [file] = scratch.cache_files().try_into().unwrap();
    let mut cache = Cache::open(
        &scratch.out(),
        scratch.root(),
        &roots,
        &options,
        old_version,
        Duration::ZERO,
    );
    assert_eq!(cache.loaded_count, stats.stored);
    for entry in cache.loaded.values_mut() {
        let mut result = decode_result(&entry.result).unwrap();
        if let Some(skill) = &mut result.skill {
            skill.description.value = "stale".into();
        }
        entry.result = encode_result(&result).unwrap();
    }
    cache.kept = cache.loaded.drain().collect();
    cache.changed = true;
    cache.save();
    assert_eq!(scratch.cache_files(), std::slice::from_ref(&file));

    let (bundle, stats) = scratch.cached(&roots, &options);
    assert_eq!(stats.hits, 0);
    assert!(bundle.skills.iter().all(|s| s.description.value != "stale"));
    assert_eq!(
        rendering(&bundle),
        rendering(&scratch.fresh(&roots, &options))
    );
    assert_eq!(scratch.cache_files(), [file], "the same file, rewritten");
    assert_eq!(scratch.cached(&roots, &options).1.misses, 0);
}

/// Truncated, flipped, empty or foreign cache files, and a cache directory that cannot be
/// written, never fail or change a build.
#[test]
fn a_broken_cache_is_ignored() {
    let scratch = Scratch::new();
    let roots = ["skills"];
    let options = Options::default();
    let fresh = rendering(&scratch.fresh(&roots, &options));
    scratch.cached(&roots, &options);
    let [file] = scratch.cache_files().try_into().unwrap();
    let good = fs::read(&file).unwrap();
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x20;
    let damaged: [(&str, Vec<u8>); 5] = [
        ("truncated", good[..good.len() - 100].to_vec()),
        ("one bit flipped", flipped),
        ("empty", Vec::new()),
        ("garbage", b"not a cache at all".to_vec()),
        ("magic only", MAGIC.to_vec()),
    ];
    for (what, bytes) in damaged {
        fs::write(&file, bytes).unwrap();
        let (bundle, stats) = scratch.cached(&roots, &options);
        assert_eq!(rendering(&bundle), fresh, "{what}");
        assert_eq!(stats.hits, 0, "{what}");
        assert!(stats.written, "{what}: rewritten");
        assert_eq!(scratch.cached(&roots, &options).1.misses, 0, "{what}");
    }
    // The cache "directory" is a file: nothing can be written, the build is the same.
    let blocked = scratch.root().join("blocked");
    fs::write(&blocked, "").unwrap();
    let (bundle, stats) = load_cached_as(
        scratch.root(),
        &roots,
        &options,
        &blocked,
        version_key(),
        Duration::ZERO,
    );
    assert_eq!(rendering(&bundle), fresh);
    assert!(!stats.written);
}

/// The version key hashes every source file of the crate: a file left out of [`SOURCES`] could
/// change the rules without invalidating caches.
#[test]
fn the_version_covers_every_source_file() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).unwrap();
            assert!(
                SOURCES.contains(&text.as_str()),
                "{} is not in SOURCES",
                path.display()
            );
        }
    }
    assert!(version_key().starts_with(env!("CARGO_PKG_VERSION")));
}

#[test]
fn a_zero_line_or_a_huge_count_in_an_entry_is_damage_not_a_panic() {
    // Lines count from 1: an entry that says line 0 is refused as a whole (reading it would
    // underflow when the diagnostic is rendered).
    let mut out = Writer::default();
    LineNumber::encode(&Some(0), &mut out);
    let bytes = out.finish().unwrap();
    assert_eq!(LineNumber::decode(&mut Reader::new(&bytes)), None);
    let mut out = Writer::default();
    LineNumber::encode(&Some(7), &mut out);
    let bytes = out.finish().unwrap();
    assert_eq!(LineNumber::decode(&mut Reader::new(&bytes)), Some(Some(7)));

    // A list that claims far more elements than the bytes hold fails to decode, without
    // reserving memory for the claim.
    let mut out = Writer::default();
    out.usize(usize::MAX / 2);
    out.u8(0);
    let bytes = out.finish().unwrap();
    assert_eq!(Reader::new(&bytes).list(|input| input.u64()), None);
}
