//! `skills check` catches exactly what the build catches (issue 4).
//!
//! The root package's trybuild cases are the build's side: `tests/ui/*.rs` must fail to compile,
//! with the errors recorded in their `.stderr` snapshots, and `tests/ui/pass/*.rs` must compile.
//! Each case calls `skills_runtime::embed_skills!("tests/fixtures/<case>", options...)` with roots
//! relative to the workspace root. This test reads every case, turns each `embed_skills!` call
//! into a `skills check` command line (roots as `DIR`s, each option as its flag,
//! `#![deny(warnings)]` as `-D warnings`), runs the built binary from the workspace root, and
//! compares:
//!
//! - a compile-fail case exits 1, and every `--> path:line:col` of its snapshot that names a
//!   fixture (not the `tests/ui/*.rs` span of the macro call) appears in the output under the
//!   same message; conversely the output holds exactly as many `error:` diagnostics as the
//!   snapshot;
//! - a pass case exits 0 (and, when it denies warnings, prints no warning).
//!
//! The snapshots are checked against the real compiler by the root package's `tests/ui.rs`; this
//! test trusts them as the record of what the build reports.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_skills");

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

/// The workspace root: where the cases' roots are resolved, as the macro resolves them against
/// the root package's manifest directory.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("skills-cli sits in the workspace")
        .to_path_buf()
}

// ---- reading an `embed_skills!(...)` call ------------------------------------------------

/// The characters of `text` outside string literals (quotes included in neither), with their
/// byte offsets and the bracket depth after each: `(` and `[` open, `)` and `]` close.
fn code_chars(text: &str) -> impl Iterator<Item = (usize, char, i32)> + '_ {
    let mut depth = 0;
    let mut in_string = false;
    let mut escaped = false;
    text.char_indices().filter_map(move |(i, c)| {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            return None;
        }
        match c {
            '"' => {
                in_string = true;
                return None;
            }
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        Some((i, c, depth))
    })
}

/// The argument text of every `embed_skills!(...)` call in `source`.
fn macro_calls(source: &str) -> Vec<String> {
    let mut calls = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find("embed_skills!(") {
        let after = &rest[start + "embed_skills!(".len()..];
        let (end, _, _) = code_chars(after)
            .find(|&(_, _, depth)| depth < 0)
            .expect("a closed embed_skills! call");
        calls.push(after[..end].to_owned());
        rest = &after[end..];
    }
    calls
}

/// Splits `text` at the commas outside strings and brackets; drops empty pieces (trailing comma).
fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, c, depth) in code_chars(text) {
        if c == ',' && depth == 0 {
            parts.push(&text[start..i]);
            start = i + 1;
        }
    }
    parts.push(&text[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The value of a plain string literal: `"tests/fixtures/x"` -> `tests/fixtures/x`.
fn string_literal(text: &str) -> Result<String, String> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .ok_or_else(|| format!("expected a string literal, found `{text}`"))?;
    if inner.contains('\\') {
        return Err(format!("escapes are not supported in `{text}`"));
    }
    Ok(inner.to_owned())
}

/// `["a", "b"]` -> `a`, `b`.
fn string_list(text: &str) -> Result<Vec<String>, String> {
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| format!("expected a list of strings, found `{text}`"))?;
    split_top_level(inner)
        .iter()
        .map(|item| string_literal(item))
        .collect()
}

/// The `skills check` arguments equivalent to one call's arguments: the roots, then one flag per
/// option. `Err` when the call itself is malformed (no root, unknown option, bad value), which
/// the macro rejects before it looks at any folder.
fn check_args(call: &str) -> Result<Vec<String>, String> {
    let mut roots = Vec::new();
    let mut flags = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for arg in split_top_level(call) {
        if arg.starts_with('"') {
            roots.push(string_literal(&arg)?);
            continue;
        }
        let (key, value) = arg
            .split_once('=')
            .ok_or_else(|| format!("expected a root or `key = value`, found `{arg}`"))?;
        let (key, value) = (key.trim(), value.trim());
        if seen.iter().any(|given| given == key) {
            return Err(format!("option `{key}` given twice"));
        }
        seen.push(key.to_owned());
        let mut flag = |name: &str, value: String| {
            flags.push(name.to_owned());
            flags.push(value);
        };
        match key {
            "max_file_size" => flag("--max-file-size", value.to_owned()),
            "max_bundle_size" => flag("--max-bundle-size", value.to_owned()),
            "allow_unknown_keys" | "infer_missing_fields" => match value {
                "true" => flags.push(format!("--{}", key.replace('_', "-"))),
                "false" => {}
                other => return Err(format!("`{key}` takes a bool, found `{other}`")),
            },
            "ignore" => {
                for pattern in string_list(value)? {
                    flag("--ignore", pattern);
                }
            }
            "allowed_hosts" => {
                for host in string_list(value)? {
                    flag("--allowed-host", host);
                }
            }
            // Where the generated code finds the runtime: nothing to do with validation.
            "crate" => {}
            lint if skills_core::lint::LINT_NAMES.contains(&lint) => {
                let level = string_literal(value)?;
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

/// Whether the case denies warnings crate-wide, turning the macro's warnings into errors.
fn denies_warnings(source: &str) -> bool {
    source.lines().any(|line| {
        let line = line.trim();
        line.starts_with("#![deny(") && (line.contains("warnings") || line.contains("deprecated"))
    })
}

// ---- running the command -----------------------------------------------------------------

struct Run {
    code: i32,
    stdout: String,
}

fn skills_check(args: &[String]) -> Run {
    let output = Command::new(BIN)
        .arg("check")
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("the binary runs");
    Run {
        code: output.status.code().expect("exited normally"),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 output"),
    }
}

/// The diagnostic lines `error: ...` (and `warning: ...`) as the compiler and the CLI start
/// them, without the compiler's closing summaries.
fn is_diagnostic(line: &str, label: &str) -> bool {
    line.starts_with(&format!("{label}: "))
        && !line.starts_with("error: aborting due to")
        && !line.starts_with("error: could not compile")
}

/// `(message, location)` for every `-->` of a fixture in a snapshot. The message is the
/// `error:` line before it; for a warning the crate's `#![deny(warnings)]` turned into an
/// error, the compiler words it `use of deprecated unit struct `...`: <message>`.
fn snapshot_locations(snapshot: &str) -> Vec<(String, String)> {
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
        let message = previous
            .strip_prefix("error: ")
            .unwrap_or_else(|| panic!("no `error:` line before `{line}`"));
        let message = match message.strip_prefix("use of deprecated unit struct `") {
            Some(rest) => rest.split_once("`: ").map_or(rest, |(_, message)| message),
            None => message,
        };
        found.push((message.to_owned(), location.to_owned()));
    }
    found
}

/// Whether `output` reports `label: message` directly above `--> location`.
fn reports(output: &str, label: &str, message: &str, location: &str) -> bool {
    let lines: Vec<&str> = output.lines().collect();
    lines.windows(2).any(|pair| {
        pair[0] == format!("{label}: {message}")
            && pair[1].trim_start() == format!("--> {location}")
    })
}

fn count(text: &str, label: &str) -> usize {
    text.lines()
        .filter(|line| is_diagnostic(line, label))
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
    let calls = macro_calls(&source);
    assert!(!calls.is_empty(), "{name}: no embed_skills! call");
    let parsed: Result<Vec<Vec<String>>, String> =
        calls.iter().map(|call| check_args(call)).collect();

    let skip = MACRO_ARGUMENT_CASES.contains(&name.as_str());
    let args = match (parsed, skip) {
        (Ok(args), false) => args,
        (Err(_), true) => {
            // The build's error is about the call, not a folder: nothing here for `check`.
            let fixture_locations = snapshot_locations(&snapshot);
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

    let deny_warnings = denies_warnings(&source);
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
    let expected = snapshot_locations(&snapshot);
    if expected.is_empty() {
        failures.push(format!("{name}: the snapshot names no fixture location"));
    }
    for (message, location) in &expected {
        if !reports(&output, "error", message, location) {
            failures.push(format!(
                "{name}: missing `error: {message}` at `--> {location}` — {context}"
            ));
        }
    }
    let (cli_errors, build_errors) = (count(&output, "error"), count(&snapshot, "error"));
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
            for (message, location) in &expected {
                let shown = reports(&run.stdout, "warning", message, location)
                    || reports(&run.stdout, "error", message, location);
                if !shown {
                    failures.push(format!(
                        "{name}: without -D warnings, `{message}` at `{location}` is missing:\n{}",
                        run.stdout
                    ));
                }
            }
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
    let calls = macro_calls(&source);
    assert!(!calls.is_empty(), "{name}: no embed_skills! call");
    let deny_warnings = denies_warnings(&source);
    for call in &calls {
        let args = match check_args(call) {
            Ok(args) => args,
            Err(error) => {
                failures.push(format!("{name}: cannot map `{call}` to flags: {error}"));
                continue;
            }
        };
        let run = expect_pass(&name, &args, failures);
        if deny_warnings {
            let warnings = count(&run.stdout, "warning");
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
    let ui = workspace().join("tests/ui");
    let compile_fail = cases(&ui);
    let pass = cases(&ui.join("pass"));
    // Guard against a moved folder turning this test into a no-op.
    assert!(compile_fail.len() >= 20, "only {compile_fail:?}");
    assert!(pass.len() >= 2, "only {pass:?}");

    let mut failures = Vec::new();
    for case in &compile_fail {
        compile_fail_case(case, &mut failures);
    }
    for case in &pass {
        pass_case(case, &mut failures);
    }
    for skipped in MACRO_ARGUMENT_CASES {
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
        crate = ::skills_runtime,
    );
    const T: R = embed_skills!("d");"#;
    let calls = macro_calls(source);
    assert_eq!(calls.len(), 2);
    assert_eq!(
        check_args(&calls[0]).unwrap(),
        [
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
        ]
    );
    assert_eq!(check_args(&calls[1]).unwrap(), ["d"]);
    // Commas, brackets and escaped quotes inside strings are text, not structure.
    assert_eq!(
        macro_calls(r#"embed_skills!("x)", ignore = [")", "\")"]);"#),
        [r#""x)", ignore = [")", "\")"]"#]
    );
    assert_eq!(
        split_top_level(r#""a,(b", ["c", "d]"], "e\"f)","#),
        [r#""a,(b""#, r#"["c", "d]"]"#, r#""e\"f)""#]
    );
    assert!(check_args("max_file_size = 10").is_err());
    assert!(check_args(r#""a", allow_unknown = true"#).is_err());
    assert!(check_args(r#""a", long_body = "error""#).is_err());
    assert!(check_args(r#""a", ignore = ["x"], ignore = ["y"]"#).is_err());
}

#[test]
fn snapshot_messages_drop_the_deprecation_wrapper() {
    let snapshot = "error: use of deprecated unit struct `S::_::skill_lint`: bad thing\n\
                    \x20        --> tests/fixtures/x/y/SKILL.md:5:8\n\
                    \x20--> tests/ui/x.rs:1:2\n";
    assert_eq!(
        snapshot_locations(snapshot),
        [(
            "bad thing".to_owned(),
            "tests/fixtures/x/y/SKILL.md:5:8".to_owned()
        )]
    );
    assert_eq!(count(snapshot, "error"), 1);
}
