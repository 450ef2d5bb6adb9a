//! The third level of progressive disclosure: files shipped beside `SKILL.md`
//! (`references/`, `scripts/`, `assets/`), and the rule that the body's relative links and
//! paths into its folder resolve to one of them.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic};
use crate::files::{ReadError, Unreachable, read_limited, real_path_within};
use crate::skill::SkillDef;

/// Names skipped in every skill folder, besides hidden files (names starting with `.`, which
/// covers `.DS_Store`).
pub(crate) const DEFAULT_IGNORE: &[&str] = &["__pycache__", "*.pyc"];

/// Folders that, by the Agent Skills convention, hold a skill's files. A code span such as
/// `scripts/fill.py` is checked when its first segment is one of these or a folder of the skill.
pub(crate) const CONVENTIONAL_DIRS: &[&str] = &["references", "scripts", "assets"];

/// One embedded file of a skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceDef {
    /// Path relative to the skill folder, with `/`.
    pub path: String,
    /// The file on disk.
    pub file: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Valid UTF-8 without NUL bytes.
    pub is_text: bool,
    /// Has an executable bit (Unix); scripts keep it when materialized.
    pub executable: bool,
    /// SHA-256 of the bytes on disk, lowercase hex (what the lock lists).
    pub sha256: String,
}

/// Whether `name` matches an ignore pattern: an exact name, or `*` wildcards within one name.
pub(crate) fn is_ignored(name: &str, patterns: &[String]) -> bool {
    name.starts_with('.')
        || DEFAULT_IGNORE
            .iter()
            .any(|p| crate::wildcard::matches(p, name))
        || patterns.iter().any(|p| crate::wildcard::matches(p, name))
}

/// What walking a skill folder finds, in walk order: a file to embed, or a name that cannot be
/// embedded. Nothing is read yet, so the build cache can compare a walk with the last one.
#[derive(Debug)]
pub(crate) enum WalkItem {
    /// A file beside `SKILL.md`.
    File {
        /// Path relative to the skill folder, with `/`.
        relative: String,
        /// The path inside the skill folder.
        path: PathBuf,
        /// The real path (symlinks followed), inside the root.
        real: PathBuf,
    },
    /// A non-UTF-8 name, a broken symlink, or a symlink leading out of the root.
    Problem(Diagnostic),
}

/// Walks a skill folder: every file except `SKILL.md` and ignored names. Symlinks are followed
/// only while they stay inside `real_root`.
pub(crate) fn walk(
    skill_dir: &Path,
    shown_dir: &str,
    real_root: &Path,
    ignore: &[String],
) -> Vec<WalkItem> {
    let mut items = Vec::new();
    let mut pending = vec![(skill_dir.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                items.push(WalkItem::Problem(Diagnostic::error(
                    Code::NonUtf8Path,
                    shown_dir,
                    format!("file name {:?} is not valid UTF-8", entry.file_name()),
                )));
                continue;
            };
            if (prefix.is_empty() && name == "SKILL.md") || is_ignored(&name, ignore) {
                continue;
            }
            let relative = format!("{prefix}{name}");
            let shown = format!("{shown_dir}/{relative}");
            let path = entry.path();
            let real = match real_path_within(&path, real_root) {
                Ok(real) => real,
                Err(Unreachable::Broken) => {
                    items.push(WalkItem::Problem(Diagnostic::error(
                        Code::BrokenSymlink,
                        &shown,
                        format!("`{shown}` is a broken symlink"),
                    )));
                    continue;
                }
                Err(Unreachable::Outside(_)) => {
                    items.push(WalkItem::Problem(
                        Diagnostic::error(
                            Code::SymlinkOutside,
                            &shown,
                            format!("`{shown}` is a symlink to a path outside the skills root"),
                        )
                        .with_help("copy the file into the skill folder"),
                    ));
                    continue;
                }
            };
            if real.is_dir() {
                pending.push((path, format!("{relative}/")));
                continue;
            }
            items.push(WalkItem::File {
                relative,
                path,
                real,
            });
        }
    }
    items
}

/// Reads the files a walk found, sorted by path, each with its bytes (for the tree hash), and
/// every problem in walk order.
pub(crate) fn collect(
    items: Vec<WalkItem>,
    shown_dir: &str,
    max_file_size: u64,
) -> (Vec<(ResourceDef, Vec<u8>)>, Vec<Diagnostic>) {
    let mut resources = Vec::new();
    let mut diagnostics = Vec::new();
    for item in items {
        let (relative, path, real) = match item {
            WalkItem::File {
                relative,
                path,
                real,
            } => (relative, path, real),
            WalkItem::Problem(diagnostic) => {
                diagnostics.push(diagnostic);
                continue;
            }
        };
        let shown = format!("{shown_dir}/{relative}");
        match read_limited(&real, max_file_size) {
            Ok((bytes, metadata)) => resources.push((
                ResourceDef {
                    is_text: !bytes.contains(&0) && std::str::from_utf8(&bytes).is_ok(),
                    executable: is_executable(&metadata),
                    size: bytes.len() as u64,
                    sha256: crate::lock::sha256_hex(&bytes),
                    path: relative,
                    file: path,
                },
                bytes,
            )),
            Err(ReadError::TooLarge(size)) => diagnostics.push(
                Diagnostic::error(Code::FileTooLarge, &shown, format!("`{shown}` is {size} bytes, over the per-file limit of {max_file_size} bytes"))
                    .with_help("raise the limit with `max_file_size = ...`, or ship the file another way"),
            ),
            Err(ReadError::Io(error)) => {
                diagnostics.push(Diagnostic::error(Code::Unreadable, &shown, format!("cannot read `{shown}`: {error}")))
            }
        }
    }
    resources.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    (resources, diagnostics)
}

#[cfg(unix)]
fn is_executable(metadata: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &fs::Metadata) -> bool {
    false
}

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
    use super::*;
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

    #[test]
    fn ignore_patterns() {
        assert!(is_ignored(".DS_Store", &[]));
        assert!(is_ignored("__pycache__", &[]));
        assert!(is_ignored("mod.pyc", &[]));
        assert!(!is_ignored("mod.py", &[]));
        assert!(is_ignored("notes.bak", &["*.bak".into()]));
        assert!(is_ignored("draft-1.md", &["draft-*.md".into()]));
        assert!(!is_ignored("final.md", &["draft-*.md".into()]));
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
