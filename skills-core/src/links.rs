//! The rule that a skill's body points only at files it ships: relative Markdown links and
//! images, and code spans naming a path in a resource folder, must resolve to an embedded file.

use std::collections::BTreeSet;

use crate::diagnostic::{Code, Diagnostic};
use crate::skill::SkillDef;

/// Folders that, by the Agent Skills convention, hold a skill's files. A code span such as
/// `scripts/fill.py` is checked when its first segment is one of these or a folder of the skill.
const CONVENTIONAL_DIRS: &[&str] = &["references", "scripts", "assets"];

/// A reference to a file of the skill found in its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LocalReference {
    /// The path as written (anchor and query removed).
    pub target: String,
    /// 1-based line in `SKILL.md`.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
}

/// Finds the body's references into its own folder: relative Markdown link and image targets
/// (inline and reference definitions), and code spans whose first segment is a resource folder.
/// Fenced code blocks are skipped: what they hold is code, not links.
pub(crate) fn local_references(
    skill: &SkillDef,
    resource_dirs: &BTreeSet<String>,
) -> Vec<LocalReference> {
    let mut found = Vec::new();
    let mut fence: Option<&str> = None;
    for (index, line) in skill.body().lines().enumerate() {
        let line_number = skill.body_line + index;
        let trimmed = line.trim_start();
        let marker = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(marker)) => {
                fence = Some(marker);
                continue;
            }
            (Some(open), Some(marker)) if open == marker => {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            (None, None) => {}
        }
        let mut push = |target: &str, byte_offset: usize| {
            let column = line[..byte_offset].chars().count() + 1;
            found.push(LocalReference {
                target: target.to_owned(),
                line: line_number,
                column,
            });
        };
        // Reference definitions: `[id]: target`.
        if let Some(rest) = trimmed.strip_prefix('[')
            && let Some((_, after)) = rest.split_once("]:")
        {
            let target = after.trim_start();
            let target = target.split_whitespace().next().unwrap_or("");
            if let Some(target) = local_link_target(target) {
                push(target, line.len() - after.trim_start().len());
            }
        }
        // Inline links and images: `[text](target "title")`.
        let mut search = 0;
        while let Some(found_at) = line[search..].find("](") {
            let start = search + found_at + 2;
            let rest = &line[start..];
            let end = rest.find([')', ' ']).unwrap_or(rest.len());
            if let Some(target) = local_link_target(&rest[..end]) {
                push(target, start);
            }
            search = start;
        }
        // Code spans naming a file in a resource folder: `scripts/fill.py`.
        let mut parts = line.split('`');
        let mut offset = 0;
        let mut inside = false;
        for part in parts.by_ref() {
            if inside {
                let candidate = part.trim();
                let first_segment = candidate.split('/').next().unwrap_or("");
                let looks_like_path = candidate.contains('/')
                    && !candidate.contains(char::is_whitespace)
                    && !candidate.contains("://");
                if looks_like_path
                    && (CONVENTIONAL_DIRS.contains(&first_segment)
                        || resource_dirs.contains(first_segment))
                {
                    push(candidate.trim_start_matches("./"), offset);
                }
            }
            offset += part.len() + 1;
            inside = !inside;
        }
    }
    found
}

/// The path part of a link target if it is relative (not a URL, not an anchor, not absolute).
fn local_link_target(target: &str) -> Option<&str> {
    let target = target.trim_start_matches('<').trim_end_matches('>');
    let path = target.split(['#', '?']).next().unwrap_or("");
    let is_url = path.contains(':'); // `https:`, `mailto:`, `tel:`, `data:`...
    (!path.is_empty() && !is_url && !path.starts_with('/')).then(|| path.trim_start_matches("./"))
}

/// Resolves a relative reference against the skill folder: `Some(normalized)` when it stays
/// inside, `None` when `..` climbs out.
fn normalize(target: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            segment => parts.push(segment),
        }
    }
    Some(parts.join("/"))
}

/// The rule: every local reference in the body resolves to an embedded file (or a folder of
/// them, or `SKILL.md` itself).
pub(crate) fn check_references(skill: &SkillDef) -> Vec<Diagnostic> {
    let dirs: BTreeSet<String> = skill
        .resources
        .iter()
        .filter_map(|r| r.path.split_once('/').map(|(dir, _)| dir.to_owned()))
        .collect();
    let mut diagnostics = Vec::new();
    for reference in local_references(skill, &dirs) {
        let decoded = reference.target.replace("%20", " ");
        let error = |code: Code, message: String| {
            Diagnostic::error(code, &skill.path, message).at(
                &skill.text,
                reference.line,
                reference.column,
            )
        };
        let Some(normalized) = normalize(&decoded) else {
            diagnostics.push(
                error(
                    Code::LinkOutside,
                    format!("`{}` points outside the skill folder", reference.target),
                )
                .with_help("a skill can only use files inside its own folder"),
            );
            continue;
        };
        let exists = normalized == "SKILL.md"
            || normalized.is_empty()
            || skill.resources.iter().any(|r| {
                r.path == normalized
                    || r.path
                        .starts_with(&format!("{}/", normalized.trim_end_matches('/')))
            });
        if !exists {
            let mut diagnostic = error(
                Code::DanglingLink,
                format!(
                    "`{}` does not match any file in the skill folder",
                    reference.target
                ),
            );
            let available: Vec<&str> = skill.resources.iter().map(|r| r.path.as_str()).collect();
            diagnostic = match crate::render::closest_match(&normalized, available.iter().copied())
            {
                Some(close) => diagnostic.with_help(format!("did you mean `{close}`?")),
                None if available.is_empty() => diagnostic
                    .with_help("the skill folder holds no other files; add it next to SKILL.md"),
                None => diagnostic.with_help(format!(
                    "files in the skill folder: {}",
                    available.join(", ")
                )),
            };
            diagnostics.push(diagnostic);
        }
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::resources::ResourceDef;
    use crate::skill::{ParseOptions, parse};

    fn skill_with(body: &str, files: &[&str]) -> SkillDef {
        let text = format!("---\nname: s\ndescription: d\n---\n{body}\n");
        let (skill, diagnostics) = parse(
            "k/s/SKILL.md",
            "s",
            text.as_bytes(),
            &ParseOptions::default(),
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let mut skill = skill.unwrap();
        skill.resources = files
            .iter()
            .map(|path| ResourceDef {
                path: (*path).into(),
                file: PathBuf::new(),
                size: 1,
                is_text: true,
                executable: false,
                sha256: String::new(),
            })
            .collect();
        skill
    }

    fn problems(body: &str, files: &[&str]) -> Vec<String> {
        check_references(&skill_with(body, files))
            .iter()
            .map(|d| {
                let (line, column) = (d.line().unwrap_or(0), d.column().unwrap_or(0));
                format!("{line}:{column} {}", d.message())
            })
            .collect()
    }

    #[test]
    fn links_and_code_spans_must_resolve() {
        let body = "Read [forms](references/forms.md) and ![chart](assets/chart.png \"t\").\n\
                    Run `scripts/fill.py` then `scripts/missing.py`.\n\
                    See [the guide](./references/guide.md#setup) and [home](https://example.com/x).\n\
                    [ref]: references/gone.md\n\
                    Not ours: `src/lib.rs`, `cargo test`, [top](#usage), [mail](mailto:a@b).";
        let found = problems(
            body,
            &["references/forms.md", "assets/chart.png", "scripts/fill.py"],
        );
        assert_eq!(
            found,
            [
                "6:29 `scripts/missing.py` does not match any file in the skill folder",
                "7:17 `references/guide.md` does not match any file in the skill folder",
                "8:8 `references/gone.md` does not match any file in the skill folder",
            ]
        );
    }

    #[test]
    fn fenced_blocks_are_skipped_and_escapes_are_errors() {
        let body = "```sh\npython scripts/absent.py [x](nope.md)\n```\n[up](../other/SKILL.md)\n[folder](references/)";
        let found = problems(body, &["references/a.md"]);
        assert_eq!(
            found,
            ["8:6 `../other/SKILL.md` points outside the skill folder"]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// The link checker and the lints read arbitrary Markdown: they must never panic.
        #[test]
        fn link_checker_and_lints_never_panic(body in "[ -~\n\t`\\[\\]()#:/.éü漢]{1,300}") {
            let text = format!("---\nname: x\ndescription: d\n---\nx{body}\n");
            if let (Some(mut skill), _) = parse("s/x/SKILL.md", "x", text.as_bytes(), &ParseOptions::default()) {
                skill.resources.clear();
                let _ = check_references(&skill);
                let mut options = crate::LintOptions::default();
                options.set_level(crate::Lint::ExternalUrls, crate::Level::Warn);
                let _ = crate::lint::lint_skill(&skill, &options);
                let _ = crate::lint::lint_bundle(&[skill.clone(), skill], &options);
            }
        }
    }
}
