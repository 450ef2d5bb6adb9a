//! `skills check` catches exactly what the build catches.
//!
//! skills-macro's trybuild cases are the build's side: `tests/ui/*.rs` must fail to compile,
//! with the errors recorded in their `.stderr` snapshots, and `tests/ui/pass/*.rs` must compile.
//! Each case calls `skills_runtime::embed_skills!("fixtures/<case>", options...)` with roots
//! relative to the support crate's folder. This test parses every case with `syn`, turns each
//! `embed_skills!` call into a `skills check` command line (roots as `DIR`s, each option as its flag,
//! `#![deny(warnings)]` as `-D warnings`), runs the built binary from that folder, and
//! compares:
//!
//! - a compile-fail case exits 1, and every `--> path:line:col` of its snapshot that names a
//!   fixture (not the `tests/ui/*.rs` span of the macro call) appears in the output under the
//!   same code and message; conversely the output holds exactly as many errors as the
//!   snapshot;
//! - a pass case exits 0 (and, when it denies warnings, prints no warning);
//! - a `skill_name!("root", "name")` call is `skills show name root`: a case that fails only on
//!   such a call exits 1 there and suggests the same closest name; in a pass case it exits 0.
//!
//! The snapshots are checked against the real compiler by skills-macro's `tests/ui.rs`; this
//! test trusts them as the record of what the build reports.
//!
//! The cases whose folders a repository cannot carry (FIFOs, loops, names Windows refuses) have
//! them made at test time, by the same code as `tests/ui.rs` uses, under
//! the support crate's `fixtures/generated/`; each `skills check` runs under a deadline, so a command that
//! blocks on a FIFO or walks a loop forever fails the test instead of hanging it.

use crate::support;
use skills_test_support::hostile as hostile_fixtures;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use syn::Token;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::visit::Visit;

use support::{BIN, Run};

/// Compile-fail cases whose error is about the macro's arguments themselves, not about any
/// skill folder: there is no bundle to check, so `skills check` has nothing to say about them
/// (its own command line rejects the equivalent mistakes with exit 2). The parser below must
/// refuse exactly these calls, and each snapshot must point only at the `.rs` file.
const MACRO_ARGUMENT_CASES: &[&str] = &[
    // `long_body = "error"`: not a lint level.
    "bad-lint-level",
    // `embed_skills!(max_file_size = 10)`: no root at all.
    "no-root",
    // `max_file_size` given twice.
    "repeated-option",
    // `allow_unknown = true`: not an option.
    "unknown-option",
];

/// Compile-fail cases whose bundle is valid: the build fails on the runtime the expansion links
/// (another release's registry layout), which `skills check` has no part in. It must pass them,
/// and each snapshot must point only at the `.rs` file.
const RUNTIME_CASES: &[&str] = &["layout-version-mismatch"];

/// Where the cases' roots are resolved: the support crate's folder, which skills-macro's
/// `tests/ui.rs` points the macro at.
fn fixtures_home() -> PathBuf {
    PathBuf::from(skills_test_support::DIR)
}

/// skills-macro's trybuild cases.
fn ui_cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills-macro/tests/ui")
}

// ---- reading an `embed_skills!(...)` call ------------------------------------------------

/// One argument of an `embed_skills!` call: a root, or an option.
enum MacroArg {
    Root(syn::LitStr),
    Option { key: String, value: syn::Expr },
}

/// The arguments of one call, in order, as the macro's own parser reads them: string literals
/// are roots, `key = value` pairs are options (`crate` is a keyword, hence `parse_any`).
struct MacroArgs(Vec<MacroArg>);

impl Parse for MacroArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut args = Vec::new();
        while !input.is_empty() {
            if input.peek(syn::LitStr) {
                args.push(MacroArg::Root(input.parse()?));
            } else {
                let key = syn::Ident::parse_any(input)?.to_string();
                input.parse::<Token![=]>()?;
                args.push(MacroArg::Option {
                    key,
                    value: input.parse()?,
                });
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(MacroArgs(args))
    }
}

/// What a case file holds: its `embed_skills!` calls (parsed, or the parse error) and whether
/// it denies warnings crate-wide.
struct CaseSource {
    calls: Vec<Result<MacroArgs, String>>,
    /// The `skill_name!(root, name, ...)` calls, as `(root, name)`.
    names: Vec<(String, String)>,
    denies_warnings: bool,
}

/// Collects every `embed_skills!` invocation, wherever it sits (a `static`, a `const`, a
/// function body).
#[derive(Default)]
struct FindCalls(Vec<Result<MacroArgs, String>>, Vec<(String, String)>);

/// The root and the name that open a `skill_name!` call.
struct SkillNameCall(String, String);

impl Parse for SkillNameCall {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let root: syn::LitStr = input.parse()?;
        input.parse::<Token![,]>()?;
        let name: syn::LitStr = input.parse()?;
        // The options after the name do not change which name is checked.
        input.step(|cursor| {
            let mut rest = *cursor;
            while let Some((_, next)) = rest.token_tree() {
                rest = next;
            }
            Ok(((), rest))
        })?;
        Ok(SkillNameCall(root.value(), name.value()))
    }
}

impl<'ast> Visit<'ast> for FindCalls {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "skill_name")
        {
            let call: SkillNameCall = mac.parse_body().expect("a skill_name! call parses");
            self.1.push((call.0, call.1));
        }
        if mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "embed_skills")
        {
            self.0.push(
                mac.parse_body::<MacroArgs>()
                    .map_err(|e| format!("the call does not parse: {e}")),
            );
        }
        syn::visit::visit_macro(self, mac);
    }
}

fn read_case(source: &str) -> CaseSource {
    let file = syn::parse_file(source).expect("a UI case is valid Rust");
    let mut finder = FindCalls::default();
    finder.visit_file(&file);
    CaseSource {
        calls: finder.0,
        names: finder.1,
        denies_warnings: denies_warnings(&file.attrs),
    }
}

/// Whether `#![deny(warnings)]` (or `deny(deprecated)`, which is how the macro's warnings
/// reach the compiler) turns the macro's warnings into errors.
fn denies_warnings(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|attr| {
            matches!(attr.style, syn::AttrStyle::Inner(_)) && attr.path().is_ident("deny")
        })
        .any(|attr| {
            let mut found = false;
            let _ = attr.parse_nested_meta(|meta| {
                found |= meta.path.is_ident("warnings") || meta.path.is_ident("deprecated");
                Ok(())
            });
            found
        })
}

/// The value of a string literal expression.
fn string_literal(key: &str, value: &syn::Expr) -> Result<String, String> {
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Ok(text.value()),
        _ => Err(format!("`{key}` takes a string literal")),
    }
}

/// `["a", "b"]` -> `a`, `b`.
fn string_list(key: &str, value: &syn::Expr) -> Result<Vec<String>, String> {
    match value {
        syn::Expr::Array(array) => array
            .elems
            .iter()
            .map(|item| string_literal(key, item))
            .collect(),
        _ => Err(format!("`{key}` takes a list of strings")),
    }
}

/// An integer literal as written (`1_000_000`), which is what the CLI's flag accepts.
fn integer(key: &str, value: &syn::Expr) -> Result<String, String> {
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(number),
            ..
        }) => Ok(number.to_string()),
        _ => Err(format!("`{key}` takes an integer")),
    }
}

/// The `skills check` arguments equivalent to one call's arguments: the roots, then one flag per
/// option. `Err` when the call itself is malformed (no root, unknown option, bad value), which
/// the macro rejects before it looks at any folder.
fn check_args(call: &MacroArgs) -> Result<Vec<String>, String> {
    let mut roots = Vec::new();
    let mut flags = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for arg in &call.0 {
        let (key, value) = match arg {
            MacroArg::Root(root) => {
                roots.push(root.value());
                continue;
            }
            MacroArg::Option { key, value } => (key.as_str(), value),
        };
        if seen.contains(&key) {
            return Err(format!("option `{key}` given twice"));
        }
        seen.push(key);
        let mut flag = |name: &str, value: String| {
            flags.push(name.to_owned());
            flags.push(value);
        };
        match key {
            "max_file_size" => flag("--max-file-size", integer(key, value)?),
            "max_bundle_size" => flag("--max-bundle-size", integer(key, value)?),
            "catalog_budget" => flag("--catalog-budget", integer(key, value)?),
            "compat" => flag("--compat", string_literal(key, value)?),
            "lock" => flag("--lock", string_literal(key, value)?),
            "allow_unknown_keys" | "infer_missing_fields" => match value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(on),
                    ..
                }) => {
                    if on.value {
                        flags.push(format!("--{}", key.replace('_', "-")));
                    }
                }
                _ => return Err(format!("`{key}` takes a bool")),
            },
            "ignore" => {
                for pattern in string_list(key, value)? {
                    flag("--ignore", pattern);
                }
            }
            "allowed_hosts" => {
                for host in string_list(key, value)? {
                    flag("--allowed-host", host);
                }
            }
            // Where the generated code finds the runtime: nothing to do with validation.
            "crate" => {}
            lint if skills_core::lint::LINT_NAMES.contains(&lint) => {
                let level = string_literal(key, value)?;
                let short = match level.as_str() {
                    "allow" => "-A",
                    "warn" => "-W",
                    "deny" => "-D",
                    other => return Err(format!("`{other}` is not a lint level")),
                };
                flag(short, lint.to_owned());
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if roots.is_empty() {
        return Err("no skills root".to_owned());
    }
    roots.extend(flags);
    Ok(roots)
}

// ---- running the command -----------------------------------------------------------------

fn skills_check(args: &[String]) -> Run {
    let mut command = Command::new(BIN);
    command.arg("check").args(args).current_dir(fixtures_home());
    support::run_within(command, support::DEADLINE)
}

/// One problem as both sides report it: the rule's code, the message and the fixture location.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Finding {
    code: String,
    message: String,
    location: String,
}

/// `[skills::code] message` (the compile error's text) -> `(code, message)`.
fn split_code(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("[skills::")?;
    rest.split_once("] ")
}

/// The compiler's diagnostic lines `error: ...`, without its closing summaries.
fn is_compiler_error(line: &str) -> bool {
    line.starts_with("error: ")
        && !line.starts_with("error: aborting due to")
        && !line.starts_with("error: could not compile")
}

/// Every `-->` of a fixture in a snapshot, with the code and message of the `error:` line before
/// it. For a warning the crate's `#![deny(warnings)]` turned into an error, the compiler words
/// that line `use of deprecated constant `...::skills_bundle_lint::rule`: [skills::code] message`.
fn snapshot_findings(snapshot: &str) -> Vec<Finding> {
    let lines: Vec<&str> = snapshot.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(location) = line.trim_start().strip_prefix("--> ") else {
            continue;
        };
        if location.starts_with("tests/ui/") {
            continue;
        }
        let previous = i.checked_sub(1).map_or("", |p| lines[p]);
        let text = previous
            .strip_prefix("error: ")
            .unwrap_or_else(|| panic!("no `error:` line before `{line}`"));
        let text = match text.strip_prefix("use of deprecated constant `") {
            Some(rest) => rest.split_once("`: ").map_or(rest, |(_, text)| text),
            None => text,
        };
        let (code, message) =
            split_code(text).unwrap_or_else(|| panic!("no `[skills::code]` in `{previous}`"));
        found.push(Finding {
            code: code.to_owned(),
            message: message.to_owned(),
            location: location.to_owned(),
        });
    }
    found
}

/// Every `label[skills::code]: message` line of `skills check` output with the `-->` below it.
fn cli_findings(output: &str, label: &str) -> Vec<Finding> {
    let prefix = format!("{label}[skills::");
    let lines: Vec<&str> = output.lines().collect();
    lines
        .windows(2)
        .filter_map(|pair| {
            let (code, message) = pair[0].strip_prefix(&prefix)?.split_once("]: ")?;
            let location = pair[1].trim_start().strip_prefix("--> ")?;
            Some(Finding {
                code: code.to_owned(),
                message: message.to_owned(),
                location: location.to_owned(),
            })
        })
        .collect()
}

fn count_cli(text: &str, label: &str) -> usize {
    let prefix = format!("{label}[skills::");
    text.lines()
        .filter(|line| line.starts_with(&prefix))
        .count()
}

fn count_compiler_errors(snapshot: &str) -> usize {
    snapshot
        .lines()
        .filter(|line| is_compiler_error(line))
        .count()
}

// ---- the test ----------------------------------------------------------------------------

fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    cases.sort();
    cases
}

fn name_of(case: &Path) -> String {
    case.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Checks one compile-fail case; pushes every disagreement onto `failures`.
fn compile_fail_case(case: &Path, failures: &mut Vec<String>) {
    let name = name_of(case);
    let source = fs::read_to_string(case).unwrap();
    let snapshot = fs::read_to_string(case.with_extension("stderr"))
        .unwrap_or_else(|e| panic!("{name}: no .stderr snapshot: {e}"));
    let case_source = read_case(&source);
    if case_source.calls.is_empty() && !case_source.names.is_empty() {
        skill_name_fail_case(&name, &case_source.names, &snapshot, failures);
        return;
    }
    assert!(
        !case_source.calls.is_empty(),
        "{name}: no embed_skills! call"
    );
    let parsed: Result<Vec<Vec<String>>, String> = case_source
        .calls
        .iter()
        .map(|call| call.as_ref().map_err(Clone::clone).and_then(check_args))
        .collect();

    if RUNTIME_CASES.contains(&name.as_str()) {
        match parsed {
            Ok(calls) => calls.iter().for_each(|args| {
                expect_pass(&name, args, failures);
            }),
            Err(error) => failures.push(format!("{name}: cannot map a call to flags: {error}")),
        }
        let fixture_locations = snapshot_findings(&snapshot);
        if !fixture_locations.is_empty() {
            failures.push(format!(
                "{name}: listed as a runtime case, but its snapshot names fixtures: \
                 {fixture_locations:?}"
            ));
        }
        return;
    }
    let skip = MACRO_ARGUMENT_CASES.contains(&name.as_str());
    let args = match (parsed, skip) {
        (Ok(args), false) => args,
        (Err(_), true) => {
            // The build's error is about the call, not a folder: nothing here for `check`.
            let fixture_locations = snapshot_findings(&snapshot);
            if !fixture_locations.is_empty() {
                failures.push(format!(
                    "{name}: listed as a macro-argument case, but its snapshot names fixtures: \
                     {fixture_locations:?}"
                ));
            }
            return;
        }
        (Ok(_), true) => {
            failures.push(format!(
                "{name}: listed as a macro-argument case, but its call parses"
            ));
            return;
        }
        (Err(error), false) => {
            failures.push(format!(
                "{name}: cannot map the macro call to flags: {error}"
            ));
            return;
        }
    };

    let deny_warnings = case_source.denies_warnings;
    let mut output = String::new();
    let mut code = 0;
    let mut command_lines = Vec::new();
    for args in &args {
        let mut args = args.clone();
        if deny_warnings {
            args.push("-D".to_owned());
            args.push("warnings".to_owned());
        }
        let run = skills_check(&args);
        code = code.max(run.code);
        output.push_str(&run.stdout);
        command_lines.push(format!("skills check {}", args.join(" ")));
    }
    let context = format!(
        "{name} ({}):\n{output}\n--- snapshot ---\n{snapshot}",
        command_lines.join("; ")
    );

    if code != 1 {
        failures.push(format!("{name}: exit {code}, expected 1 — {context}"));
    }
    let expected = snapshot_findings(&snapshot);
    if expected.is_empty() {
        failures.push(format!("{name}: the snapshot names no fixture location"));
    }
    let reported = cli_findings(&output, "error");
    for finding in &expected {
        if !reported.contains(finding) {
            failures.push(format!(
                "{name}: missing `error[skills::{}]: {}` at `--> {}` — {context}",
                finding.code, finding.message, finding.location
            ));
        }
    }
    let (cli_errors, build_errors) = (
        count_cli(&output, "error"),
        count_compiler_errors(&snapshot),
    );
    if cli_errors != build_errors {
        failures.push(format!(
            "{name}: `skills check` reports {cli_errors} errors, the build {build_errors} — {context}"
        ));
    }

    // Without `-D warnings`, the same findings are the plain warnings the macro emits before
    // the crate's `#![deny(warnings)]` turns them into errors: reported, but not failing.
    if deny_warnings {
        for args in &args {
            let run = skills_check(args);
            let mut shown = cli_findings(&run.stdout, "warning");
            shown.extend(cli_findings(&run.stdout, "error"));
            for finding in &expected {
                if !shown.contains(finding) {
                    failures.push(format!(
                        "{name}: without -D warnings, {finding:?} is missing:\n{}",
                        run.stdout
                    ));
                }
            }
        }
    }
}

/// `skills show NAME ROOT`: the command's way of asking whether a root has a skill.
fn skills_show(root: &str, name: &str) -> (i32, String) {
    let output = Command::new(BIN)
        .args(["show", name, root])
        .current_dir(fixtures_home())
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8 output");
    (output.status.code().expect("exited normally"), stderr)
}

/// A `skill_name!` case: `skills show` must fail on the same name and suggest the same one.
fn skill_name_fail_case(
    name: &str,
    calls: &[(String, String)],
    snapshot: &str,
    failures: &mut Vec<String>,
) {
    let suggested = snapshot
        .split_once("did you mean `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(closest, _)| closest);
    for (root, skill) in calls {
        let (code, stderr) = skills_show(root, skill);
        if code != 1 {
            failures.push(format!("{name}: `skills show {skill} {root}` exits {code}"));
        }
        if let Some(closest) = suggested
            && !stderr.contains(&format!("\"{closest}\""))
        {
            failures.push(format!(
                "{name}: the build suggests `{closest}`, `skills show` says: {stderr}"
            ));
        }
    }
}

/// Runs `skills check` with `args`; a failure unless it exits 0.
fn expect_pass(name: &str, args: &[String], failures: &mut Vec<String>) -> Run {
    let run = skills_check(args);
    if run.code != 0 {
        failures.push(format!(
            "{name}: `skills check {}` exits {}, expected 0:\n{}",
            args.join(" "),
            run.code,
            run.stdout
        ));
    }
    run
}

/// Checks one case that must compile.
fn pass_case(case: &Path, failures: &mut Vec<String>) {
    let name = format!("pass/{}", name_of(case));
    let source = fs::read_to_string(case).unwrap();
    let case_source = read_case(&source);
    assert!(
        !case_source.calls.is_empty(),
        "{name}: no embed_skills! call"
    );
    for (root, skill) in &case_source.names {
        let (code, stderr) = skills_show(root, skill);
        if code != 0 {
            failures.push(format!(
                "{name}: `skills show {skill} {root}` exits {code}: {stderr}"
            ));
        }
    }
    let deny_warnings = case_source.denies_warnings;
    for call in &case_source.calls {
        let args = match call.as_ref().map_err(Clone::clone).and_then(check_args) {
            Ok(args) => args,
            Err(error) => {
                failures.push(format!("{name}: cannot map a call to flags: {error}"));
                continue;
            }
        };
        let run = expect_pass(&name, &args, failures);
        if deny_warnings {
            let warnings = count_cli(&run.stdout, "warning");
            if warnings > 0 {
                failures.push(format!(
                    "{name}: denies warnings and compiles, but `skills check {}` warns:\n{}",
                    args.join(" "),
                    run.stdout
                ));
            }
            let mut denied = args.clone();
            denied.extend(["-D".to_owned(), "warnings".to_owned()]);
            expect_pass(&name, &denied, failures);
        }
    }
}

#[test]
fn skills_check_agrees_with_every_trybuild_case() {
    let ui = ui_cases();
    let compile_fail = cases(&ui);
    let pass = cases(&ui.join("pass"));
    // Guard against a moved folder turning this test into a no-op.
    assert!(compile_fail.len() >= 65, "only {compile_fail:?}");
    let _generated =
        hostile_fixtures::Generated::create_all(&fixtures_home().join(hostile_fixtures::GENERATED));
    assert!(pass.len() >= 8, "only {pass:?}");

    let mut failures = Vec::new();
    for case in &compile_fail {
        compile_fail_case(case, &mut failures);
    }
    for case in &pass {
        pass_case(case, &mut failures);
    }
    for skipped in MACRO_ARGUMENT_CASES.iter().chain(RUNTIME_CASES) {
        if !compile_fail.iter().any(|case| name_of(case) == *skipped) {
            failures.push(format!("macro-argument case `{skipped}` no longer exists"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s) between `skills check` and the build:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ---- the helpers themselves --------------------------------------------------------------

/// The flags of every call in `source`, in order.
fn flags_of(source: &str) -> Vec<Result<Vec<String>, String>> {
    read_case(source)
        .calls
        .into_iter()
        .map(|call| call.and_then(|call| check_args(&call)))
        .collect()
}

#[test]
fn macro_calls_map_to_flags() {
    let source = r#"static S: R = skills_runtime::embed_skills!(
        "a", "b/c",
        prompt_override = "allow",
        external_urls = "deny",
        allowed_hosts = ["docs.rs", "x.io"],
        ignore = ["*.bak"],
        infer_missing_fields = false,
        allow_unknown_keys = true,
        max_bundle_size = 1_000_000,
        compat = "claude-code",
        catalog_budget = 4_000,
        crate = ::skills_runtime,
    );
    fn main() { const T: R = embed_skills!("d"); }"#;
    let flags = flags_of(source);
    assert_eq!(flags.len(), 2);
    assert_eq!(
        flags[0].as_ref().unwrap(),
        &[
            "a",
            "b/c",
            "-A",
            "prompt_override",
            "-D",
            "external_urls",
            "--allowed-host",
            "docs.rs",
            "--allowed-host",
            "x.io",
            "--ignore",
            "*.bak",
            "--allow-unknown-keys",
            "--max-bundle-size",
            "1_000_000",
            "--compat",
            "claude-code",
            "--catalog-budget",
            "4_000",
        ]
    );
    assert_eq!(flags[1].as_ref().unwrap(), &["d"]);
    // Commas, brackets and escaped quotes inside strings are text, not structure.
    assert_eq!(
        flags_of(r#"static S: R = embed_skills!("x)", ignore = [")", "\")"]);"#),
        [Ok(vec![
            "x)".to_owned(),
            "--ignore".to_owned(),
            ")".to_owned(),
            "--ignore".to_owned(),
            "\")".to_owned()
        ])]
    );
    for malformed in [
        "embed_skills!(max_file_size = 10)",
        r#"embed_skills!("a", allow_unknown = true)"#,
        r#"embed_skills!("a", long_body = "error")"#,
        r#"embed_skills!("a" "b")"#,
        r#"embed_skills!("a", ignore = ["x"], ignore = ["y"])"#,
    ] {
        let flags = flags_of(&format!("static S: R = {malformed};"));
        assert!(
            matches!(flags.as_slice(), [Err(_)]),
            "{malformed}: {flags:?}"
        );
    }
    assert!(read_case("#![deny(warnings)]\nfn main() {}").denies_warnings);
    assert!(read_case("#![deny(unused, deprecated)]\nfn main() {}").denies_warnings);
    assert!(!read_case("#![deny(unused)]\n#[deny(warnings)]\nfn main() {}").denies_warnings);
}

#[test]
fn snapshot_findings_drop_the_deprecation_wrapper() {
    let snapshot = "error: use of deprecated constant `S::_::skills_bundle_lint::long_body`: [skills::long-body] bad thing\n\
                    \x20        --> fixtures/x/y/SKILL.md:5:8\n\
                    \x20--> tests/ui/x.rs:1:2\n";
    assert_eq!(
        snapshot_findings(snapshot),
        [Finding {
            code: "long-body".to_owned(),
            message: "bad thing".to_owned(),
            location: "fixtures/x/y/SKILL.md:5:8".to_owned()
        }]
    );
    assert_eq!(count_compiler_errors(snapshot), 1);
    let output = "warning[skills::long-body]: bad thing\n  --> fixtures/x/y/SKILL.md:5:8\n";
    assert_eq!(cli_findings(output, "warning"), snapshot_findings(snapshot));
    assert_eq!(count_cli(output, "warning"), 1);
}
