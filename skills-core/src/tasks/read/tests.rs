use std::fs;

use super::*;

/// A skill folder `alpha` with a few fixture files under `evals/`.
fn skill() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let evals = dir.path().join("evals");
    fs::create_dir_all(evals.join("files/project/src")).unwrap();
    fs::write(evals.join("files/data.csv"), "a,b\n1,2\n").unwrap();
    fs::write(evals.join("files/project/Cargo.toml"), "[package]\n").unwrap();
    fs::write(evals.join("files/project/src/lib.rs"), "pub fn f() {}\n").unwrap();
    fs::write(evals.join("files/project/.hidden"), "x").unwrap();
    dir
}

fn read(dir: &Path, text: &str) -> (Vec<TaskCase>, Vec<FixtureFile>, SkillRefs, Vec<Diagnostic>) {
    let folder = Folder {
        dir,
        shown: "skills/alpha",
        name: "alpha",
        max_file_size: 1 << 20,
    };
    parse("skills/alpha/evals/evals.json", text.as_bytes(), &folder)
}

/// `line:column [code] message` of every problem.
fn problems(dir: &Path, text: &str) -> Vec<String> {
    read(dir, text)
        .3
        .iter()
        .map(|d| {
            let (line, column) = (d.line().unwrap_or(0), d.column().unwrap_or(0));
            format!("{line}:{column} [{}] {}", d.code(), d.message())
        })
        .collect()
}

#[test]
fn skill_creators_format_reads_with_our_checks() {
    let dir = skill();
    let text = r#"{
  "skill_name": "alpha",
  "evals": [
    {"id": 1, "prompt": "Sum the csv", "expected_output": "the sum",
     "files": ["evals/files/data.csv"],
     "expectations": ["The sum is 3"]},
    {"id": 2, "prompt": "Fix the crate", "files": ["files/project"], "network": true,
     "assertions": [
       {"file": "out.txt"}, {"file": "./src/lib.rs", "exists": false},
       {"file": "a", "contains": "x"}, {"file": "a", "matches": "^fn \\w+"},
       {"command": "cargo test"}, {"command": "false", "exit": 1},
       {"answer_contains": "done"}, {"loaded": "alpha"}, {"not_loaded": ["beta", "gamma"]},
       {"max_turns": 4}, {"max_tokens": 9000}]}
  ]
}"#;
    let (cases, fixtures, refs, diagnostics) = read(dir.path(), text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0].id, 1);
    assert_eq!(cases[0].expected_output, "the sum");
    assert_eq!(
        cases[0].assertions,
        [Assertion::Graded("The sum is 3".into())]
    );
    assert_eq!(
        cases[0].files,
        [Fixture {
            path: "data.csv".into(),
            file: 0,
            executable: false
        }]
    );
    // A folder's files land with their paths, hidden names left out, in path order.
    let landed: Vec<(&str, u32)> = cases[1]
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.file))
        .collect();
    assert_eq!(landed, [("Cargo.toml", 1), ("src/lib.rs", 2)]);
    assert!(cases[1].network && !cases[0].network);
    let shown: Vec<&str> = fixtures.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        shown,
        [
            "skills/alpha/evals/files/data.csv",
            "skills/alpha/evals/files/project/Cargo.toml",
            "skills/alpha/evals/files/project/src/lib.rs"
        ]
    );
    assert_eq!(fixtures[0].sha256, crate::digest::sha256_hex(b"a,b\n1,2\n"));
    assert_eq!(
        cases[1].assertions[1],
        Assertion::Check(Check::FileExists {
            path: "src/lib.rs".into(),
            exists: false
        })
    );
    assert_eq!(
        cases[1].assertions[5],
        Assertion::Check(Check::Command {
            command: "false".into(),
            exit: 1
        })
    );
    assert_eq!(
        cases[1].assertions[8],
        Assertion::Check(Check::NotLoaded(vec!["beta".into(), "gamma".into()]))
    );
    let named: Vec<(&str, usize)> = refs
        .iter()
        .map(|(n, _)| (n.value.as_str(), n.line))
        .collect();
    assert_eq!(named, [("alpha", 12), ("beta", 12), ("gamma", 12)]);
}

#[test]
fn every_problem_is_found_at_its_place() {
    let dir = skill();
    let text = r#"{"skill_name": "beta", "evals": [
  {"id": 1, "prompt": "a", "asertions": []},
  {"id": 1, "prompt": "b"},
  {"id": "2", "prompt": ""},
  {"prompt": "c", "files": ["../SKILL.md", "files/none.txt"]},
  {"id": 5, "prompt": "d", "assertions": [7, {"file": "/etc/passwd"}, {"file": "a", "matches": "("}]},
  {"id": 6, "prompt": "e", "assertions": [], "expectations": []},
  {"id": 7, "prompt": "f", "assertions": [{"exit": 0}, {"file": "a", "contains": "x", "exists": true}]}
]}"#;
    assert_eq!(
        problems(dir.path(), text),
        [
            "1:16 [task-skill-name] `skill_name` is `beta`, but the skill is `alpha`",
            "2:28 [task-unknown-key] task case 1 has an unknown key `asertions`",
            "3:10 [task-duplicate-id] task case 2 has the id 1 of an earlier case (line 2)",
            "4:10 [task-wrong-type] `id` of task case 3 must be a whole number from 0 to 18446744073709551615, found a string",
            "4:25 [task-wrong-type] `prompt` of task case 3 is empty",
            "5:29 [task-file-outside] `../SKILL.md` is not a path inside the skill's `evals/` folder",
            "5:44 [task-file-missing] `files/none.txt` names no file: `skills/alpha/evals/files/none.txt` does not exist",
            "5:3 [task-missing-key] task case 4 has no `id`",
            "6:43 [task-wrong-type] assertion 1 of task case 5 must be a statement for the grader (a string) or a check (an object), found a number",
            "6:55 [task-bad-check] `file` of assertion 2 of task case 5 must be a relative path inside the working directory, with `/` and no `..`: `/etc/passwd`",
            "6:96 [task-bad-check] assertion 3 of task case 5 has a regular expression that does not compile: error: unclosed group",
            "7:46 [task-duplicate-key] task case 6 has both `assertions` and `expectations`",
            "8:43 [task-bad-check] assertion 1 of task case 7 has no `command`",
            "8:56 [task-bad-check] assertion 2 of task case 7 mixes keys of several checks: a `file` check takes one of `exists`, `contains` and `matches`",
        ]
    );
    // Every case has a problem: none is kept.
    let (cases, _, _, diagnostics) = read(dir.path(), text);
    assert!(cases.is_empty(), "{cases:?}");
    let unknown = diagnostics
        .iter()
        .find(|d| d.code() == Code::TaskUnknownKey)
        .unwrap();
    assert!(
        unknown
            .help()
            .unwrap()
            .starts_with("did you mean `assertions`?"),
        "{unknown}"
    );
}

#[test]
fn the_file_must_be_one_object_with_evals() {
    let dir = skill();
    assert_eq!(
        problems(dir.path(), r#"[{"query": "a", "should_trigger": true}]"#),
        [
            "1:1 [tasks-not-object] the task file must hold a JSON object with `evals`, found an array"
        ]
    );
    assert_eq!(
        problems(dir.path(), r#"{"skill_name": "alpha"}"#),
        ["1:1 [task-missing-key] the task file has no `evals`"]
    );
    assert_eq!(
        problems(dir.path(), r#"{"evals": [], "evals": []}"#),
        ["1:15 [task-duplicate-key] the task file has the key `evals` twice (first on line 1)"]
    );
    assert_eq!(
        problems(dir.path(), "{\"evals\": [],}"),
        ["1:13 [tasks-syntax] invalid JSON in the task cases: trailing commas are not allowed"]
    );
    assert_eq!(
        problems(dir.path(), " "),
        ["1:1 [tasks-syntax] the task file is empty"]
    );
    assert_eq!(
        problems(dir.path(), r#"{"evals": []}"#),
        Vec::<String>::new()
    );
}

#[test]
fn fixtures_stay_in_the_evals_folder_and_do_not_collide() {
    let dir = skill();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret"), "s").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        outside.path().join("secret"),
        dir.path().join("evals/files/link"),
    )
    .unwrap();
    #[cfg(unix)]
    assert_eq!(
        problems(
            dir.path(),
            r#"{"evals": [{"id": 1, "prompt": "p", "files": ["evals/files/link"]}]}"#
        ),
        [
            "1:47 [task-file-outside] `skills/alpha/evals/files/link` leads outside the skill's `evals/` folder"
        ]
    );
    fs::write(dir.path().join("evals/files/Cargo.toml"), "x").unwrap();
    assert_eq!(
        problems(
            dir.path(),
            r#"{"evals": [{"id": 1, "prompt": "p", "files": ["files/project", "files/Cargo.toml"]}]}"#
        ),
        [
            "1:64 [task-file-outside] `files/Cargo.toml` would put `Cargo.toml` where `files/project` already put it in the working directory of task case 1"
        ]
    );
    for escaping in ["/etc/passwd", "evals/../SKILL.md", "evals/", "a\\\\b"] {
        let found = problems(
            dir.path(),
            &format!(r#"{{"evals": [{{"id": 1, "prompt": "p", "files": ["{escaping}"]}}]}}"#),
        );
        assert_eq!(found.len(), 1, "{escaping}: {found:?}");
        assert!(
            found[0].contains("[task-file-outside]"),
            "{escaping}: {found:?}"
        );
    }
    // The same file named by two cases is read once.
    let (_, fixtures, _, diagnostics) = read(
        dir.path(),
        r#"{"evals": [{"id": 1, "prompt": "p", "files": ["files/data.csv"]},
                      {"id": 2, "prompt": "q", "files": ["evals/files/data.csv"]}]}"#,
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(fixtures.len(), 1);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Arbitrary text never panics the reader, and every problem has a position.
    #[test]
    fn arbitrary_text_is_read_without_panicking(text in "[\\[\\]{}\":, \\n\\\\a-z0-9_/.é]{0,160}") {
        let dir = skill();
        let (_, _, _, diagnostics) = read(dir.path(), &text);
        for diagnostic in diagnostics {
            proptest::prop_assert!(diagnostic.line().is_some(), "{}", diagnostic);
        }
    }
}
