//! The third level of progressive disclosure: files shipped beside `SKILL.md`
//! (`references/`, `scripts/`, `assets/`), walked, filtered and read. The rule that the body's
//! links point at these files is in `links`. The `evals/` folder is never a resource: the model
//! must not see its own test; the walk reports its `triggers.json` and `evals.json` apart.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic};
use crate::files::{ReadError, Unreachable, read_limited, real_path_within};
use crate::tasks::TASKS_FILE;
use crate::triggers::{EVALS_DIR, TRIGGERS_FILE};

/// Names skipped in every skill folder, besides hidden files (names starting with `.`, which
/// covers `.DS_Store`).
pub(crate) const DEFAULT_IGNORE: &[&str] = &["__pycache__", "*.pyc"];

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
    /// The skill's trigger file, `evals/triggers.json`: read by `triggers`, never embedded.
    Triggers {
        /// The path inside the skill folder.
        path: PathBuf,
        /// The real path (symlinks followed), inside the root.
        real: PathBuf,
    },
    /// The skill's task file, `evals/evals.json`: read by `tasks`, never embedded as a resource.
    Tasks {
        /// The path inside the skill folder.
        path: PathBuf,
        /// The real path (symlinks followed), inside the root.
        real: PathBuf,
    },
    /// A non-UTF-8 name, a broken symlink, or a symlink leading out of the root.
    Problem(Diagnostic),
}

/// Walks a skill folder: every file except `SKILL.md`, ignored names and the `evals/` folder,
/// whose `triggers.json` and `evals.json` are reported apart. Symlinks are followed only while they stay inside
/// `real_root`.
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
            if prefix.is_empty() && name == EVALS_DIR {
                for file in [TRIGGERS_FILE, TASKS_FILE] {
                    items.extend(eval_file(&entry.path(), file, shown_dir, real_root));
                }
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

/// The walk's item for `file` (`evals/triggers.json` or `evals/evals.json`) in the skill's
/// `evals` entry, when there is such a file (or a link by that name).
fn eval_file(evals: &Path, file: &str, shown_dir: &str, real_root: &Path) -> Option<WalkItem> {
    let path = evals.join(file.trim_start_matches(&format!("{EVALS_DIR}/")));
    fs::symlink_metadata(&path).ok()?;
    let shown = format!("{shown_dir}/{file}");
    Some(match real_path_within(&path, real_root) {
        Ok(real) if file == TASKS_FILE => WalkItem::Tasks { path, real },
        Ok(real) => WalkItem::Triggers { path, real },
        Err(Unreachable::Broken) => WalkItem::Problem(Diagnostic::error(
            Code::BrokenSymlink,
            &shown,
            format!("`{shown}` is a broken symlink"),
        )),
        Err(Unreachable::Outside(_)) => WalkItem::Problem(
            Diagnostic::error(
                Code::SymlinkOutside,
                &shown,
                format!("`{shown}` is a symlink to a path outside the skills root"),
            )
            .with_help("copy the file into the skill folder"),
        ),
    })
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
            // Read apart, by `triggers` and `tasks`.
            WalkItem::Triggers { .. } | WalkItem::Tasks { .. } => continue,
        };
        let shown = format!("{shown_dir}/{relative}");
        match read_limited(&real, max_file_size) {
            Ok((bytes, metadata)) => resources.push((
                ResourceDef {
                    is_text: !bytes.contains(&0) && std::str::from_utf8(&bytes).is_ok(),
                    executable: is_executable(&metadata),
                    size: bytes.len() as u64,
                    sha256: crate::digest::sha256_hex(&bytes),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
