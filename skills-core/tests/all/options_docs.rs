//! The option tables of the docs say what [`skills_core::options::OPTIONS`] says: the
//! `skills-runtime` crate docs' (on `embed_skills!`, the one table of the options; the README
//! links to it) and `skills-command/README.md`'s. Each row
//! names an option and its default; a row missing, extra, out of order or with another default
//! fails here.

use std::fs;
use std::path::{Path, PathBuf};

use skills_core::options::{Flag, OPTIONS, OptionSpec};

fn workspace_file(path: &str) -> (PathBuf, String) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("skills-core sits in the workspace")
        .join(path);
    let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    (file, text)
}

/// The cells of every row of the Markdown table whose header line is `header`, without the
/// header and the `|---|` line. `prefix` is stripped from each line first (`/// ` in Rust docs).
fn table(text: &str, prefix: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines().map(|line| {
        line.trim_start()
            .strip_prefix(prefix)
            .unwrap_or(line)
            .trim()
    });
    lines
        .by_ref()
        .find(|line| *line == header)
        .unwrap_or_else(|| panic!("no table with the header `{header}`"));
    let rule = lines.next().unwrap_or_default();
    assert!(
        rule.starts_with("|---"),
        "`{header}` is not followed by `|---|`"
    );
    lines
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            line.trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

/// The text of the first `` `code` `` span of a cell.
fn first_code(cell: &str) -> Option<&str> {
    let start = cell.find('`')? + 1;
    let end = start + cell[start..].find('`')?;
    Some(&cell[start..end])
}

/// The option a row is about: the identifier that opens the first code span of its first cell
/// (`max_file_size` in `` `max_file_size = N` ``). `None` for rows about something else
/// (`LINT = ...`, `#![deny(warnings)]`).
fn option_name(cell: &str) -> Option<&str> {
    let code = first_code(cell)?;
    let name = code.split(" =").next()?.trim();
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    is_name.then_some(name)
}

/// Every disagreement between `rows` and the table; `default_column` holds the default, and
/// `check_row` adds its own complaints about a row.
fn disagreements(
    rows: &[Vec<String>],
    default_column: usize,
    check_row: impl Fn(&OptionSpec, &[String]) -> Option<String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let documented: Vec<(&str, &Vec<String>)> = rows
        .iter()
        .filter_map(|row| Some((option_name(&row[0])?, row)))
        .collect();
    let names: Vec<&str> = documented.iter().map(|(name, _)| *name).collect();
    let expected: Vec<&str> = OPTIONS.iter().map(|spec| spec.name).collect();
    if names != expected {
        problems.push(format!("the rows name {names:?}, the table {expected:?}"));
    }
    for (name, row) in documented {
        let Some(spec) = skills_core::options::find(name) else {
            continue;
        };
        let default = spec.default.to_string();
        let shown = row.get(default_column).and_then(|cell| first_code(cell));
        if shown != Some(default.as_str()) {
            problems.push(format!(
                "`{name}`: the docs give the default {shown:?}, the table `{default}`"
            ));
        }
        if row.iter().any(String::is_empty) {
            problems.push(format!("`{name}`: an empty cell"));
        }
        problems.extend(check_row(spec, row));
    }
    problems
}

/// The crate docs: `| option | default | meaning |`.
fn option_table_problems(text: &str, prefix: &str) -> Vec<String> {
    let rows = table(text, prefix, "| option | default | meaning |");
    disagreements(&rows, 1, |spec, row| {
        (row.len() != 3).then(|| format!("`{}`: {} cells, not 3", spec.name, row.len()))
    })
}

/// `skills-command/README.md`: `| embed_skills! option | skills flag | default |`; the flag column
/// must show the option's flag.
fn flag_table_problems(text: &str) -> Vec<String> {
    let rows = table(
        text,
        "",
        "| `embed_skills!` option | `skills` flag | default |",
    );
    disagreements(&rows, 2, |spec, row| {
        let flags = &row[1];
        let shown = match spec.flag {
            Flag::Value { long, .. } | Flag::Switch { long } | Flag::Repeated { long, .. } => {
                flags.contains(&format!("`--{long}"))
            }
            Flag::LintLevel => ["-A", "-W", "-D"]
                .iter()
                .any(|short| flags.contains(&format!("`{short} {}`", spec.name))),
            Flag::None => !flags.contains("--"),
        };
        (!shown).then(|| format!("`{}`: the flag column `{flags}` is not its flag", spec.name))
    })
}

#[test]
fn the_runtime_crate_docs_table_is_the_table() {
    let (file, text) = workspace_file("skills-runtime/src/lib.rs");
    let problems = option_table_problems(&text, "/// ");
    assert!(
        problems.is_empty(),
        "{}:\n{}",
        file.display(),
        problems.join("\n")
    );
}

#[test]
fn the_cli_readme_flags_table_is_the_table() {
    let (file, text) = workspace_file("skills-command/README.md");
    let problems = flag_table_problems(&text);
    assert!(
        problems.is_empty(),
        "{}:\n{}",
        file.display(),
        problems.join("\n")
    );
}

/// The checks above would see drift: a wrong default, a missing row, a wrong flag.
#[test]
fn drifted_tables_are_caught() {
    let (_, docs) = workspace_file("skills-runtime/src/lib.rs");
    let wrong_default = docs.replacen("| `1048576` (1 MiB) |", "| `1000000` |", 1);
    assert_ne!(wrong_default, docs);
    let problems = option_table_problems(&wrong_default, "/// ");
    assert!(
        problems.iter().any(|p| p.contains("`max_file_size`")),
        "{problems:?}"
    );
    let row = docs
        .lines()
        .find(|line| line.starts_with("/// | `allowed_hosts"))
        .unwrap();
    let missing_row = docs.replacen(&format!("{row}\n"), "", 1);
    let problems = option_table_problems(&missing_row, "/// ");
    assert!(
        problems.iter().any(|p| p.starts_with("the rows name")),
        "{problems:?}"
    );

    let (_, cli) = workspace_file("skills-command/README.md");
    let wrong_flag = cli.replacen("`--allowed-host docs.rs`", "`--allow-host docs.rs`", 1);
    assert_ne!(wrong_flag, cli);
    let problems = flag_table_problems(&wrong_flag);
    assert!(
        problems.iter().any(|p| p.contains("`allowed_hosts`")),
        "{problems:?}"
    );
}
