// Awkward but valid files: BOM + CRLF, folded and literal block scalars, an indented `---`
// inside a block scalar, `---` in the body, a hidden folder and a loose README to ignore.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/valid");
const AS_CONST: skills_runtime::Registry = skills_runtime::embed_skills!("fixtures/valid");

fn main() {
    assert_eq!(SKILLS.names().collect::<Vec<_>>(), ["block", "crlf"]);
    assert_eq!(AS_CONST.len(), 2);
    let crlf = SKILLS.get("crlf").unwrap();
    assert_eq!(crlf.body(), "Body line 1\n---\nBody line 2");
    assert!(!crlf.content().contains('\r') && !crlf.content().starts_with('\u{feff}'));
    assert_eq!(crlf.description(), "Folded, with CRLF line endings. Use when testing.\n");
    let block = SKILLS.get("block").unwrap();
    assert_eq!(block.version(), Some("2.1"));
    assert_eq!(block.tags(), ["a", "b"]);
    assert_eq!(block.metadata_value("author"), Some("team"));
    assert_eq!(
        SKILLS.catalog(),
        "- block: Literal block --- with an indented rule. Use when testing.\n\
         - crlf: Folded, with CRLF line endings. Use when testing. Not for: Production."
    );
    // Options are accepted too.
    static BIG: skills_runtime::Registry = skills_runtime::embed_skills!(
        "fixtures/valid",
        max_file_size = 4096,
        allow_unknown_keys = true,
        crate = ::skills_runtime,
    );
    assert_eq!(BIG.len(), 2);
}
