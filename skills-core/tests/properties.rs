//! Property tests: the parser never panics, and valid skills round-trip through text.

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
