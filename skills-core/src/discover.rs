//! Discovery: find the skill folders under each root, resolved against the crate's manifest
//! directory, with symlinks kept inside the root and files within the size limit.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic};
use crate::files::{Kind, Unreachable, real_path_within, special_file};
use crate::{portable, visible};

/// One `SKILL.md` found under a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FoundSkill {
    /// The folder name, which must equal the skill's `name`.
    pub dir_name: String,
    /// The file on disk.
    pub file: PathBuf,
    /// `root/dir/SKILL.md` as shown in diagnostics (relative to the manifest directory).
    pub display_path: String,
    /// The skill folder on disk.
    pub dir: PathBuf,
    /// The skill folder's real path (symlinks followed): what its files may not leave for
    /// another skill's folder.
    pub real_dir: PathBuf,
    /// The root's real path: nothing the skill embeds may resolve outside it.
    pub real_root: PathBuf,
}

/// The spellings of `SKILL.md` that people type by mistake.
fn is_near_miss(file_name: &str) -> bool {
    file_name != "SKILL.md" && file_name.eq_ignore_ascii_case("skill.md")
}

pub use crate::tracking::display_root;

/// Finds every skill folder in the root at `root_path`, shown as `shown_root`, sorted by folder
/// name.
pub(crate) fn discover(root_path: &Path, shown_root: &str) -> (Vec<FoundSkill>, Vec<Diagnostic>) {
    let mut found = Vec::new();
    let mut diagnostics = Vec::new();
    let real_root = match fs::canonicalize(root_path) {
        Ok(real) if real.is_dir() => real,
        Ok(_) => {
            diagnostics.push(Diagnostic::error(
                Code::RootNotDirectory,
                shown_root,
                format!("skills root `{shown_root}` is not a directory"),
            ));
            return (found, diagnostics);
        }
        Err(_) => {
            diagnostics.push(
                Diagnostic::error(
                    Code::MissingRoot,
                    shown_root,
                    format!("skills root `{shown_root}` does not exist"),
                )
                .with_help("roots are resolved against the directory of the crate's Cargo.toml"),
            );
            return (found, diagnostics);
        }
    };
    let mut entries: Vec<_> = match fs::read_dir(root_path) {
        Ok(entries) => entries.filter_map(Result::ok).collect(),
        Err(error) => {
            diagnostics.push(Diagnostic::error(
                Code::Unreadable,
                shown_root,
                format!("cannot read skills root `{shown_root}`: {error}"),
            ));
            return (found, diagnostics);
        }
    };
    entries.sort_by_key(|entry| entry.file_name());

    for entry in entries {
        let Some(dir_name) = entry.file_name().to_str().map(str::to_owned) else {
            let shown = format!("{shown_root}/{}", entry.file_name().to_string_lossy());
            diagnostics.push(
                Diagnostic::error(Code::NonUtf8Path, &shown, "folder name is not valid UTF-8")
                    .with_help("skill names are UTF-8 text: lowercase letters, digits and `-`"),
            );
            continue;
        };
        if dir_name.starts_with('.') {
            continue;
        }
        let dir_path = entry.path();
        let shown_dir = format!("{shown_root}/{dir_name}");
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let real_dir = if file_type.is_symlink() {
            match real_path_within(&dir_path, &real_root) {
                Ok(real) if real.is_dir() => real,
                Ok(_) => continue, // a link to a loose file: not a skill
                Err(Unreachable::Outside(real)) => {
                    if real.is_dir() {
                        diagnostics.push(
                            Diagnostic::error(Code::SymlinkOutside, &shown_dir, format!("skill folder `{shown_dir}` is a symlink to a path outside `{shown_root}`"))
                                .with_help("copy the skill into the root, or add its real location as another root"),
                        );
                    }
                    continue;
                }
                Err(Unreachable::Broken) => {
                    diagnostics.push(Diagnostic::error(
                        Code::BrokenSymlink,
                        &shown_dir,
                        format!("`{shown_dir}` is a broken symlink"),
                    ));
                    continue;
                }
            }
        } else if file_type.is_dir() {
            real_root.join(&dir_name)
        } else {
            continue; // README, LICENSE and other loose files in the root are not skills.
        };
        if let Err(why) = portable::check_component(&dir_name) {
            diagnostics.push(
                Diagnostic::error(
                    Code::UnportableName,
                    &shown_dir,
                    format!("skill folder `{}` {why}", visible::escape_line(&dir_name)),
                )
                .with_help("rename the folder (and the skill): skills are written to disk on Linux, macOS and Windows, and unpacked by hosts"),
            );
            continue;
        }

        let skill_file = dir_path.join("SKILL.md");
        let display_path = format!("{shown_dir}/SKILL.md");
        let Ok(meta) = fs::symlink_metadata(&skill_file) else {
            diagnostics.push(missing_skill_file(&dir_path, &shown_dir));
            continue;
        };
        let problem = if !meta.file_type().is_symlink() {
            not_a_file(
                &display_path,
                Kind::of(meta.file_type()),
                "SKILL.md is not a file",
            )
        } else {
            match real_path_within(&skill_file, &real_root) {
                Ok(real) => match fs::metadata(&real) {
                    Ok(meta) => not_a_file(
                        &display_path,
                        Kind::of(meta.file_type()),
                        "SKILL.md is a symlink to something that is not a file",
                    ),
                    Err(_) => None,
                },
                Err(Unreachable::Outside(_)) => Some(
                    Diagnostic::error(
                        Code::SymlinkOutside,
                        &display_path,
                        format!("SKILL.md is a symlink to a file outside `{shown_root}`"),
                    )
                    .with_help("copy the file into the skill folder"),
                ),
                Err(Unreachable::Broken) => Some(Diagnostic::error(
                    Code::BrokenSymlink,
                    &display_path,
                    "SKILL.md is a broken symlink",
                )),
            }
        };
        if let Some(problem) = problem {
            diagnostics.push(problem);
            continue;
        }
        found.push(FoundSkill {
            dir_name,
            file: skill_file,
            display_path,
            dir: dir_path,
            real_dir,
            real_root: real_root.clone(),
        });
    }
    (found, diagnostics)
}

/// The error for a `SKILL.md` that is not a regular file: a folder (`message`), or a FIFO,
/// socket or device, which is never opened.
fn not_a_file(display_path: &str, kind: Kind, message: &str) -> Option<Diagnostic> {
    match kind {
        Kind::File => None,
        Kind::Dir | Kind::Other => Some(Diagnostic::error(
            Code::SkillMdNotFile,
            display_path,
            message,
        )),
        special => Some(special_file(display_path, special)),
    }
}

/// A folder without `SKILL.md`, with a hint when a near miss is there.
fn missing_skill_file(dir_path: &Path, shown_dir: &str) -> Diagnostic {
    let near_miss = fs::read_dir(dir_path).ok().and_then(|entries| {
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| is_near_miss(n))
            .collect();
        names.sort();
        names.into_iter().next()
    });
    let diagnostic = Diagnostic::error(
        Code::MissingSkillMd,
        shown_dir,
        format!("skill folder `{shown_dir}` has no SKILL.md"),
    );
    match near_miss {
        Some(name) => diagnostic.with_help(format!("found `{name}`: the file must be named exactly `SKILL.md`")),
        None => diagnostic.with_help("add a SKILL.md, or move the folder out of the skills root (folders starting with `.` are ignored)"),
    }
}
