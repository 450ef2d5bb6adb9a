//! The tables of small bundles, read back with the layout's own readers.

use std::fs;
use std::path::Path;

use super::{Piece, Tables, build};
use crate::layout::{self, Field, HASH_LEN, Header, NameEntry, TriggerEntry};
use crate::{Bundle, Options};

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

/// The tables of the bundle in `dir/skills`, with or without the frontmatter as JSON.
fn tables_with(dir: &Path, options: &Options, frontmatter_json: bool) -> (Tables, Bundle) {
    let bundle = crate::load(dir, &["skills"], options);
    assert!(!bundle.has_errors(), "{:?}", bundle.diagnostics);
    let tables = build(&bundle, &["skills"], frontmatter_json, options.embed_evals).unwrap();
    (tables, bundle)
}

fn tables_of(dir: &Path) -> (Tables, Bundle) {
    tables_with(dir, &Options::default(), false)
}

#[test]
fn a_normalized_file_is_a_literal_and_the_tables_stay_the_same() {
    let (lf, crlf) = (bundle_with("\n"), bundle_with("\r\n"));
    let (lf, _) = tables_of(lf.path());
    let (crlf, _) = tables_of(crlf.path());
    assert_eq!(lf.pieces, [Piece::File(0)]);
    assert_eq!(crlf.pieces, [Piece::Normalized(0)]);
    assert_eq!(
        Tables {
            pieces: Vec::new(),
            ..lf
        },
        Tables {
            pieces: Vec::new(),
            ..crlf
        }
    );
}

#[test]
fn with_the_feature_each_record_points_at_its_frontmatter_as_json() {
    let dir = bundle_with("\n");
    let (plain, _) = tables_with(dir.path(), &Options::default(), false);
    let (tables, bundle) = tables_with(dir.path(), &Options::default(), true);
    let skill = &bundle.skills[0];
    // The JSON is the one string the file does not hold: it is the tail.
    let tail_start = skill.text.len();
    assert_eq!(
        tables.pieces,
        [
            Piece::File(0),
            Piece::Tail {
                start: tail_start,
                end: tail_start + skill.frontmatter_json.len()
            }
        ]
    );
    assert_eq!(
        tables.text,
        format!("{}{}", skill.text, skill.frontmatter_json)
    );
    let mut at = 0;
    let header = Header::read(&tables.records, &mut at);
    assert!(header.has(Field::Frontmatter) && header.has(Field::Version));
    let mut json = layout::find(&tables.records, &header, at, Field::Frontmatter).unwrap();
    let [start, len] = [
        layout::read(&tables.records, &mut json),
        layout::read(&tables.records, &mut json),
    ];
    assert_eq!(
        &tables.text[start as usize..(start + len) as usize],
        r#"{"name":"alpha","description":"Does alpha.","version":"1.0"}"#
    );
    // Without the feature nothing of it is embedded.
    let mut at = 0;
    assert!(!Header::read(&plain.records, &mut at).has(Field::Frontmatter));
    assert_eq!(plain.pieces, [Piece::File(0)]);
}

#[test]
fn each_resource_hash_follows_its_skills_tree_hash() {
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
    let (tables, bundle) = tables_of(dir.path());
    let hex = |slot: usize| -> String {
        tables.hashes[slot * HASH_LEN..(slot + 1) * HASH_LEN]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let starts: Vec<usize> = tables
        .record_starts
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as usize)
        .collect();
    let mut first_expected = 0;
    for (skill, &start) in bundle.skills.iter().zip(&starts) {
        let mut at = start;
        let header = Header::read(&tables.records, &mut at);
        let mut numbers = layout::find(&tables.records, &header, at, Field::Resources).unwrap();
        let [first, count, slot] =
            [(); 3].map(|()| layout::read(&tables.records, &mut numbers) as usize);
        assert_eq!((first, count), (first_expected, skill.resources.len()));
        first_expected += count;
        assert_eq!(hex(slot), skill.tree_sha256);
        for (i, resource) in skill.resources.iter().enumerate() {
            assert_eq!(hex(slot + 1 + i), resource.sha256, "{}", resource.path);
        }
    }
    // Two files, a tree and two resources, a tree and one resource.
    assert_eq!(tables.hashes.len(), (2 + 3 + 2) * HASH_LEN);
}

#[test]
fn strings_are_ranges_of_the_text_not_copies() {
    let dir = bundle_with("\n");
    let (tables, bundle) = tables_of(dir.path());
    let text = &bundle.skills[0].text;
    assert_eq!(tables.catalog, "- alpha: Does alpha.");
    // No tail: every string is in the file, and the source path is the root and the name.
    assert_eq!(tables.pieces, [Piece::File(0)]);
    assert_eq!(&tables.text, text);
    let name = NameEntry::read(&tables.names, 0);
    let start = name.start as usize;
    assert_eq!(&text[start..start + usize::from(name.len)], "alpha");
    assert_eq!(
        name.from_base as usize, start,
        "the first skill starts the text"
    );
    let mut at = 0;
    let header = Header::read(&tables.records, &mut at);
    let slice = |[start, len]: [u32; 2]| &text[start as usize..(start + len) as usize];
    assert_eq!(slice(header.description), "Does alpha.");
    assert_eq!(slice(header.body), "# Alpha\n\nSteps.");
    assert_eq!(
        header.flags,
        Field::Version.bit(),
        "only what the skill sets"
    );
    let mut version = layout::find(&tables.records, &header, at, Field::Version).unwrap();
    let range = [
        layout::read(&tables.records, &mut version),
        layout::read(&tables.records, &mut version),
    ];
    assert_eq!(slice(range), "1.0");
    assert_eq!(version, tables.records.len());
    assert_eq!(tables.records.len(), 8, "a record of eight bytes");
    // The hash as its 32 raw bytes.
    let hex: String = tables.hashes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, bundle.skills[0].sha256);
    assert_eq!(tables.roots, ["skills"]);
    assert!(tables.triggers.is_none());
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
    let (tables, bundle) = tables_of(dir.path());
    let skill = &bundle.skills[0];
    let start = skill.text.len();
    assert_eq!(
        tables.pieces,
        [
            Piece::File(0),
            Piece::Tail {
                start,
                end: tables.text.len()
            }
        ],
        "the file, then its tail"
    );
    assert_eq!(&tables.text[start..], "a\tbFolded text.\n");
}

#[test]
fn a_name_far_from_its_base_puts_the_base_in_the_record() {
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
    let options = Options {
        infer_missing_fields: true,
        ..Options::default()
    };
    let (tables, _) = tables_with(dir.path(), &options, false);
    let entry = NameEntry::read(&tables.names, 0);
    assert_eq!(entry.from_base, NameEntry::FAR);
    assert!(entry.start > u32::from(u8::MAX));
    let mut at = 0;
    let header = Header::read(&tables.records, &mut at);
    let mut base = layout::find(&tables.records, &header, at, Field::Base).unwrap();
    assert_eq!(layout::read(&tables.records, &mut base), 0);
}

#[test]
fn trigger_cases_are_a_table_of_their_own_and_only_with_the_option() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["alpha", "beta", "gamma"] {
        let folder = dir.path().join("skills").join(name);
        fs::create_dir_all(&folder).unwrap();
        fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Does {name}.\n---\nBody\n"),
        )
        .unwrap();
    }
    // beta has none; gamma's query has an escape, decoded.
    for (name, cases) in [
        (
            "alpha",
            r#"[{"query": "do alpha", "should_trigger": true}, {"query": "no", "should_trigger": false}]"#,
        ),
        (
            "gamma",
            r#"[{"query": "tab\there", "should_trigger": true}]"#,
        ),
    ] {
        let evals = dir.path().join("skills").join(name).join("evals");
        fs::create_dir_all(&evals).unwrap();
        fs::write(evals.join("triggers.json"), cases).unwrap();
    }
    let (without, _) = tables_of(dir.path());
    assert!(without.triggers.is_none());
    assert!(!without.text.contains("do alpha"));
    let options = Options {
        embed_evals: true,
        ..Options::default()
    };
    let (with, _) = tables_with(dir.path(), &options, false);
    assert_eq!(
        Tables {
            triggers: None,
            tasks: None,
            ..with.clone()
        },
        without,
        "the rest of the tables is the same"
    );
    let triggers = with.triggers.unwrap();
    assert_eq!(triggers.queries, "do alphanotab\there");
    let mut at = 0;
    let mut read = Vec::new();
    for _ in 0..3 {
        let count = layout::read(&triggers.table, &mut at);
        let cases: Vec<TriggerEntry> = (0..count)
            .map(|_| TriggerEntry::read(&triggers.table, &mut at))
            .collect();
        read.push(cases);
    }
    assert_eq!(at, triggers.table.len());
    let entry = |query_len, should_trigger| TriggerEntry {
        query_len,
        should_trigger,
    };
    assert_eq!(
        read,
        [
            vec![entry(8, true), entry(2, false)],
            vec![],
            vec![entry(8, true)]
        ]
    );
}
