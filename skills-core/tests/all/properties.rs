//! Property tests: the parser never panics, and valid skills round-trip through text; the whole
//! pipeline (discovery, the walk, reading, parsing, the rules across skills, the build cache)
//! turns any folder, FIFOs and links included, into a verdict, without a panic and in bounded
//! time.

use proptest::prelude::*;
use skills_core::skill::{ParseOptions, parse};

fn parse_bytes(bytes: &[u8]) {
    let _ = parse("s/x/SKILL.md", "x", bytes, &ParseOptions::default());
}

/// Text shaped like a SKILL.md, with the characters that matter to YAML and to the splitter.
fn skill_like() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("---".to_owned()),
        Just("name: x".to_owned()),
        Just("description: d".to_owned()),
        "[a-z-]{1,12}: [ -~]{0,20}",
        "[ \t]{0,3}[-:|>&*!#\"'{}\\[\\],?]{0,4}[ -~]{0,10}",
        "\u{FEFF}?[^\n]{0,30}",
    ];
    prop::collection::vec(line, 0..16)
        .prop_map(|lines| lines.join(if lines.len() % 2 == 0 { "\n" } else { "\r\n" }))
}

/// A valid skill: name, description and optional fields from safe alphabets.
#[derive(Debug, Clone)]
struct Fields {
    name: String,
    description: String,
    version: Option<String>,
    tags: Vec<String>,
    metadata: Vec<(String, String)>,
    body: String,
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        "[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}",
        "[A-Za-z0-9 .,!?éü漢-]{1,200}",
        prop::option::of("[0-9]{1,2}\\.[0-9]{1,2}(\\.[0-9]{1,2})?"),
        prop::collection::vec("[a-z]{1,8}", 0..4),
        prop::collection::btree_map("[a-z]{1,8}", "[A-Za-z0-9 :#'\"-]{0,20}", 0..4),
        "[A-Za-z0-9 #*`.-]{1,40}(\n[A-Za-z0-9 #*`.:-]{0,40}){0,5}",
    )
        .prop_map(
            |(name, description, version, tags, metadata, body)| Fields {
                name,
                description: description.trim().to_owned(),
                version,
                tags,
                metadata: metadata.into_iter().collect(),
                body,
            },
        )
        .prop_filter("description must not be blank", |f| {
            !f.description.is_empty() && !f.body.trim().is_empty()
        })
}

fn yaml_quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

fn render(f: &Fields) -> String {
    // A plain `name: 123` is a YAML number (and rejected with a hint to quote it), so names that
    // YAML would read as numbers are quoted; the rest stay plain, as people write them.
    let plain_is_string = f.name.starts_with(|c: char| c.is_ascii_lowercase())
        && !matches!(f.name.as_str(), "true" | "false" | "null");
    let name = if plain_is_string {
        f.name.clone()
    } else {
        yaml_quoted(&f.name)
    };
    let mut out = format!(
        "---\nname: {name}\ndescription: {}\n",
        yaml_quoted(&f.description)
    );
    if let Some(version) = &f.version {
        out.push_str(&format!("version: {}\n", yaml_quoted(version)));
    }
    if !f.tags.is_empty() {
        out.push_str(&format!("tags: [{}]\n", f.tags.join(", ")));
    }
    if !f.metadata.is_empty() {
        out.push_str("metadata:\n");
        for (key, value) in &f.metadata {
            out.push_str(&format!("  {key}: {}\n", yaml_quoted(value)));
        }
    }
    out.push_str("---\n\n");
    out.push_str(&f.body);
    out.push('\n');
    out
}

/// The body: leading blank lines dropped, trailing whitespace trimmed.
fn expected_body(body: &str) -> &str {
    let mut rest = body;
    while let Some((line, after)) = rest.split_once('\n') {
        if !line.trim().is_empty() {
            break;
        }
        rest = after;
    }
    rest.trim_end()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        parse_bytes(&bytes);
    }

    #[test]
    fn skill_shaped_text_never_panics(text in skill_like()) {
        parse_bytes(text.as_bytes());
    }

    #[test]
    fn mutated_valid_skills_never_panic(f in fields(), position in any::<prop::sample::Index>(), byte in any::<u8>(), delete in any::<bool>()) {
        let mut bytes = render(&f).into_bytes();
        let at = position.index(bytes.len());
        if delete { bytes.remove(at); } else { bytes.insert(at, byte); }
        parse_bytes(&bytes);
    }

    #[test]
    fn valid_skills_round_trip(f in fields()) {
        let text = render(&f);
        let (skill, diagnostics) = parse(&format!("s/{}/SKILL.md", f.name), &f.name, text.as_bytes(), &ParseOptions::default());
        prop_assert!(diagnostics.is_empty(), "{:?}\n{}", diagnostics, text);
        let skill = skill.unwrap();
        prop_assert_eq!(&skill.name.value, &f.name);
        prop_assert_eq!(&skill.description.value, &f.description);
        prop_assert_eq!(skill.version.as_ref().map(|v| v.value.clone()), f.version.clone());
        prop_assert_eq!(&skill.tags, &f.tags);
        prop_assert_eq!(&skill.metadata, &f.metadata);
        prop_assert_eq!(skill.body(), expected_body(&f.body));
    }
}

// ---- the whole pipeline: any folder in, a verdict out ----------------------------------------

/// What one entry of a generated skills root is.
#[derive(Debug, Clone)]
enum Node {
    /// A file with these bytes.
    File(Vec<u8>),
    /// A folder.
    Dir,
    /// A symbolic link to this target.
    Link(&'static str),
    /// A FIFO.
    Fifo,
}

/// Path components that matter to the rules: skill folders, `SKILL.md` and its near misses,
/// `evals`, names that collide on macOS and Windows, names Windows refuses, hidden files.
const COMPONENTS: &[&str] = &[
    "alpha",
    "beta",
    "Beta",
    "сode",
    "con",
    ".hidden",
    "SKILL.md",
    "skill.md",
    "evals",
    "triggers.json",
    "refs",
    "a.md",
    "A.md",
    "x:y.md",
    "caf\u{e9}",
    "cafe\u{301}",
    "trail.",
    "d",
];

/// Link targets: loops, escapes from the root, other skills, trigger cases, devices.
const TARGETS: &[&str] = &[
    ".",
    "..",
    "../..",
    "../beta",
    "../../outside",
    "/dev/null",
    "/dev/zero",
    "refs",
    "SKILL.md",
    "evals/triggers.json",
    "../beta/evals",
    "../alpha/refs",
    "missing",
];

/// The bytes of a file: a valid skill with a name from the folder names, skill-shaped text,
/// trigger cases, or anything.
fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (0..5usize).prop_map(|i| {
            let name = ["alpha", "beta", "Beta", "сode", "con"][i];
            format!("---\nname: {name}\ndescription: The {name} skill.\n---\nSee refs/a.md.\n")
                .into_bytes()
        }),
        skill_like().prop_map(String::into_bytes),
        Just(br#"[{"query": "do it", "should_trigger": true}]"#.to_vec()),
        prop::collection::vec(any::<u8>(), 0..64),
    ]
}

fn node() -> impl Strategy<Value = Node> {
    prop_oneof![
        4 => file_bytes().prop_map(Node::File),
        2 => Just(Node::Dir),
        2 => prop::sample::select(TARGETS).prop_map(Node::Link),
        1 => Just(Node::Fifo),
    ]
}

/// Entries of a root: a path of one to four components and what is there.
fn tree() -> impl Strategy<Value = Vec<(Vec<&'static str>, Node)>> {
    let path = prop::collection::vec(prop::sample::select(COMPONENTS), 1..5);
    prop::collection::vec((path, node()), 0..24)
}

/// Makes `entries` under `root`, skipping those the file system refuses (a file where a folder
/// is needed, a name taken).
fn make(root: &std::path::Path, entries: &[(Vec<&'static str>, Node)]) {
    std::fs::create_dir_all(root).unwrap();
    for (components, node) in entries {
        let path = components.iter().fold(root.to_path_buf(), |p, c| p.join(c));
        let Some(parent) = path.parent() else {
            continue;
        };
        if std::fs::create_dir_all(parent).is_err() || std::fs::symlink_metadata(&path).is_ok() {
            continue;
        }
        let _ = match node {
            Node::File(bytes) => std::fs::write(&path, bytes),
            Node::Dir => std::fs::create_dir(&path),
            #[cfg(unix)]
            Node::Link(target) => std::os::unix::fs::symlink(target, &path),
            #[cfg(unix)]
            Node::Fifo => std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .map(drop),
            #[cfg(not(unix))]
            _ => Ok(()),
        };
    }
}

/// What a load decided, to compare loads: every diagnostic as rendered, and the skills.
fn verdict(bundle: &skills_core::Bundle) -> (Vec<String>, Vec<String>) {
    (
        bundle.diagnostics.iter().map(ToString::to_string).collect(),
        bundle
            .skills
            .iter()
            .map(|s| format!("{} {}", s.name.value, s.tree_sha256))
            .collect(),
    )
}

proptest! {
    // Each case makes a folder on disk and loads it three times.
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any folder gives a verdict within a deadline, without a panic: the same from a fresh load
    /// and from the build cache, every problem positioned in the root, and a bundle without
    /// errors holds only files that read back as checked.
    #[test]
    fn any_folder_gets_a_verdict_in_bounded_time(entries in tree()) {
        let dir = tempfile::tempdir().unwrap();
        make(&dir.path().join("skills"), &entries);
        let base = dir.path().to_owned();
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let options = skills_core::Options::default();
            let fresh = skills_core::load(&base, &["skills"], &options);
            let cache = base.join("cache");
            std::fs::create_dir(&cache).unwrap();
            let first = skills_core::load_cached(&base, &["skills"], &options, &cache);
            let second = skills_core::load_cached(&base, &["skills"], &options, &cache);
            let _ = send.send((fresh, verdict(&first), verdict(&second)));
        });
        let outcome = receive.recv_timeout(std::time::Duration::from_secs(60));
        let (fresh, first, second) = match outcome {
            Ok(loaded) => loaded,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("no verdict within 60 s: {entries:?}"),
            Err(_) => panic!("the pipeline panicked on {entries:?}"),
        };
        prop_assert_eq!(&verdict(&fresh), &first);
        prop_assert_eq!(&first, &second);
        for diagnostic in &fresh.diagnostics {
            prop_assert!(diagnostic.path().starts_with("skills"), "{}", diagnostic);
        }
        if !fresh.has_errors() {
            for skill in &fresh.skills {
                for resource in &skill.resources {
                    prop_assert!(resource.read_checked().is_ok(), "{}", resource.path);
                }
            }
        }
    }
}
