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
    let location = FileLocation { overridden: false };
    expand(&args, &bundle, &location).to_string()
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
fn expansion_is_identical_whatever_the_line_endings_and_machine() {
    let (lf, crlf) = (bundle_with("\n"), bundle_with("\r\n"));
    let (lf_code, crlf_code) = (
        expand_dir(lf.path(), "\"skills\""),
        expand_dir(crlf.path(), "\"skills\""),
    );
    assert_eq!(lf_code, crlf_code);
    // No machine-specific path: files are named relative to the consuming crate.
    assert!(!lf_code.contains(lf.path().to_str().unwrap()));
    assert!(lf_code.contains(
        ":: core :: include_bytes ! (:: core :: concat ! (:: core :: env ! (\"CARGO_MANIFEST_DIR\") , \"/skills/alpha/SKILL.md\"))"
    ), "{lf_code}");
}

#[test]
fn strings_are_slices_of_the_embedded_text_not_copies() {
    let dir = bundle_with("\n");
    let code = expand_dir(dir.path(), "\"skills\"");
    // The file text appears once; name, description, version and body point into it.
    assert_eq!(
        code.matches("Does alpha.").count(),
        2,
        "file text and catalog line, nothing else: {code}"
    );
    assert!(code.contains("name : [10u32 , 15u32]"), "{code}");
    assert!(code.contains("version : [51u32 , 54u32]"), "{code}");
    // Strings not in the file (hash, source path, a folded description) go to the literal's tail.
    assert!(code.contains("Steps.\\n1010f081"), "{code}");
    assert!(
        code.contains("sha256 : [76u32 , 140u32] , path : [140u32 , 161u32]"),
        "{code}"
    );
    assert!(
        code.contains("\"- alpha: Does alpha.\""),
        "the catalog is computed at build time"
    );
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
