//! `skills new NAME`: a skeleton `SKILL.md` that passes `skills check` as written, and that
//! `skills package` accepts for every host: only the keys hosted uploads take (its version under
//! `metadata:`, where the spec keeps one).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use skills_core::display_root;
use skills_core::render::json_string;
use skills_core::skill::{self, ParseOptions};
use skills_core::{Code, Diagnostic};

use crate::output::Streams;

/// The skeleton for `name`. `name_yaml` is how the name is written in the frontmatter: the
/// name itself, or a quoted form (see [`skeleton_file`]).
pub fn skeleton(name: &str, name_yaml: &str) -> String {
    let title = title(name);
    format!(
        r#"---
name: {name_yaml}
description: >-
  TODO: say what this skill does, then when to use it, in one to three sentences.
  Start with what it does ("Fills PDF forms from a JSON file and checks the result"),
  then when to use it ("Use when the user asks to fill in, complete or check a PDF form"),
  naming the words a user would say: the model picks a skill from this text alone.
# when-not-to-use: "Tasks that look alike but belong elsewhere (use other-skill)."
metadata:
  version: "0.1.0"
---

# {title}

TODO: the instructions the model follows once it has loaded this skill. Write them for a
capable colleague who has never seen this task: what to do, in which order, and how to tell
that it worked. Keep it under 500 lines; move long reference material into files beside
SKILL.md and say here when to read them.

## Steps

1. TODO: the first thing to do.
2. TODO: the next thing to do.

## Before finishing

- TODO: how to verify the result.
"#
    )
}

/// `code-review` -> `Code review`.
fn title(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// The skeleton for `name` as it will be written, checked by the same `skills-core` parser the
/// macro uses, so nothing that fails `skills check` is ever written. The name goes in plain when
/// it reads back as itself; YAML reads some valid names as something else (`123`, `true`,
/// `null`), and those go in quoted. `Err` is what the name rules say against `name`: judged on
/// the quoted form, so any text reaches the name check instead of tripping the YAML parser.
fn skeleton_file(name: &str, display_path: &str) -> Result<String, Diagnostic> {
    let parse = |text: &str| {
        skill::parse(
            display_path,
            name,
            text.as_bytes(),
            &ParseOptions::default(),
        )
    };
    let plain = skeleton(name, name);
    if parse(&plain).0.is_some() {
        return Ok(plain);
    }
    let quoted = skeleton(name, &json_string(name));
    match parse(&quoted) {
        (Some(_), _) => Ok(quoted),
        (None, diagnostics) => Err(diagnostics
            .into_iter()
            .find(Diagnostic::is_error)
            .unwrap_or_else(|| {
                Diagnostic::error(
                    Code::InvalidName,
                    display_path,
                    "rejected by the skill rules",
                )
            })),
    }
}

/// Runs `skills new`. Exit code 2 for a name the rules reject (a bad argument), 1 when the
/// folder exists already or cannot be written, 0 when the skill was created.
pub fn run(name: &str, dir: &str, streams: &mut Streams<'_>) -> io::Result<u8> {
    let root = display_root(dir);
    let root = if root.is_empty() {
        dir.to_owned()
    } else {
        root
    };
    let display_path = format!("{root}/{name}/SKILL.md");

    let text = match skeleton_file(name, &display_path) {
        Ok(text) => text,
        Err(problem) => {
            writeln!(
                streams.err,
                "error: invalid skill name `{name}`: {}",
                problem.message()
            )?;
            if let Some(help) = problem.help() {
                writeln!(streams.err, "  = help: {help}")?;
            }
            return Ok(2);
        }
    };

    let skill_dir = Path::new(dir).join(name);
    if let Err(error) = fs::create_dir_all(dir) {
        writeln!(streams.err, "error: cannot create `{root}`: {error}")?;
        return Ok(1);
    }
    match fs::create_dir(&skill_dir) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            writeln!(
                streams.err,
                "error: `{root}/{name}` already exists; nothing was written"
            )?;
            writeln!(
                streams.err,
                "  = help: choose another name, or edit `{display_path}` directly"
            )?;
            return Ok(1);
        }
        Err(error) => {
            writeln!(streams.err, "error: cannot create `{root}/{name}`: {error}")?;
            return Ok(1);
        }
    }
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(skill_dir.join("SKILL.md"))
        .and_then(|mut file| file.write_all(text.as_bytes()));
    if let Err(error) = written {
        // Leave nothing half-made behind: the folder is ours, we just created it.
        let _ = fs::remove_dir_all(&skill_dir);
        writeln!(streams.err, "error: cannot write `{display_path}`: {error}")?;
        return Ok(1);
    }
    writeln!(streams.out, "created {display_path}")?;
    writeln!(
        streams.err,
        "next: replace the TODOs in the description and body, then run `skills check {root}`"
    )?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_read_as_words() {
        assert_eq!(title("code-review"), "Code review");
        assert_eq!(title("x"), "X");
        assert_eq!(title("éclair-rapide"), "Éclair rapide");
    }

    #[test]
    fn the_skeleton_passes_the_core_rules() {
        let text = skeleton("pdf-forms", "pdf-forms");
        let (parsed, diagnostics) = skill::parse(
            "skills/pdf-forms/SKILL.md",
            "pdf-forms",
            text.as_bytes(),
            &ParseOptions::default(),
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let parsed = parsed.expect("skeleton parses");
        assert!(parsed.description.value.starts_with("TODO: say what"));
        // The version under `metadata:`, where hosted uploads take it.
        assert!(parsed.version.is_none());
        assert_eq!(
            parsed.metadata,
            [("version".to_owned(), "0.1.0".to_owned())]
        );
    }

    #[test]
    fn names_yaml_would_misread_are_quoted() {
        let path = "skills/x/SKILL.md";
        assert!(
            skeleton_file("pdf-forms", path)
                .unwrap()
                .contains("\nname: pdf-forms\n")
        );
        for name in ["123", "true", "null", "1e3"] {
            let text = skeleton_file(name, path).unwrap();
            assert!(text.contains(&format!("\nname: \"{name}\"\n")), "{text}");
        }
        let problem = skeleton_file("a--b", path).unwrap_err();
        assert_eq!(problem.message(), "`name` must not contain `--`");
        // The name rules are core's: lowercase letters of any script, in NFKC form.
        for name in ["café", "数据-分析", "данные"] {
            let text = skeleton_file(name, path).unwrap();
            assert!(text.contains(&format!("\nname: {name}\n")), "{text}");
        }
        let problem = skeleton_file("cafe\u{301}", path).unwrap_err();
        assert!(
            problem.message().contains("normalized it is `café`"),
            "{problem}"
        );
        assert!(skeleton_file("Café", path).is_err());
    }
}
