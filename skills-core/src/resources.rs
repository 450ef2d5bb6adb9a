//! The third level of progressive disclosure: files shipped beside `SKILL.md`
//! (`references/`, `scripts/`, `assets/`), walked, filtered and read. The rule that the body's
//! links point at these files is in `links`. The `evals/` folder is never a resource: the model
//! must not see its own test; the walk reports its `triggers.json` and `evals.json` apart.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic};
use crate::discover::FoundSkill;
use crate::files::{
    Kind, ReadCheckedError, ReadError, Unreachable, identity, read_checked, read_limited,
    real_path_within, special_file,
};
use crate::tasks::TASKS_FILE;
use crate::triggers::{EVALS_DIR, TRIGGERS_FILE};
use crate::{portable, visible};

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

impl ResourceDef {
    /// The file's bytes, only if they are the bytes that were checked and hashed: read again
    /// (at most [`size`](Self::size) bytes, so a file swapped for a larger one, or a link to an
    /// endless one, is refused once it passes that size; a regular file only, opened without
    /// blocking) and compared by SHA-256. What the macro embeds and `skills package` zips, so a
    /// file that changes after its check never ships unreviewed.
    pub fn read_checked(&self) -> Result<Vec<u8>, ReadCheckedError> {
        read_checked(&self.file, self.size, &self.sha256)
    }
}

/// Whether `name` matches an ignore pattern: an exact name, or `*` wildcards within one name.
pub(crate) fn is_ignored(name: &str, patterns: &[String]) -> bool {
    name.starts_with('.')
        || DEFAULT_IGNORE
            .iter()
            .any(|p| crate::wildcard::matches(p, name))
        || patterns.iter().any(|p| crate::wildcard::matches(p, name))
}

/// Deepest folder a skill's files may sit in, counted from the skill folder: deep enough for any
/// real layout, and a bound on a walk through links that keep going down.
pub(crate) const MAX_DEPTH: usize = 32;

/// Most names the walk of one skill folder reads, every folder together: a bound on the time and
/// memory a folder can cost (links that fan out, a vendored dependency tree). Ignored names
/// count, since they are read too.
pub(crate) const MAX_ENTRIES: usize = 10_000;

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
    /// A name that cannot be embedded: not UTF-8 or not portable, a broken symlink or one
    /// leading out of the root, into another skill or into trigger cases, a FIFO, socket or
    /// device, a link back to a folder it is in, a folder too deep, too many names, two names
    /// that are one on macOS and Windows.
    Problem(Diagnostic),
}

/// The real folder of every skill of a bundle (every root and pack), for the rule that a
/// resource lies neither in another skill's folder nor in any `evals/` folder.
#[derive(Debug, Default)]
pub(crate) struct SkillFolders {
    /// Real path of each skill folder, and its folder as shown.
    folders: HashMap<PathBuf, String>,
}

impl SkillFolders {
    /// The folders of every skill found.
    pub(crate) fn new(found: &[FoundSkill]) -> Self {
        let folders = found
            .iter()
            .map(|skill| {
                let shown = skill.display_path.trim_end_matches("/SKILL.md").to_owned();
                (skill.real_dir.clone(), shown)
            })
            .collect();
        SkillFolders { folders }
    }

    /// The skill folder `real` lies in (the nearest, as shown, with its real path), and whether
    /// it lies in that skill's `evals/` folder.
    fn owner(&self, real: &Path) -> Option<(&Path, &str, bool)> {
        let mut child: Option<&Path> = None;
        for ancestor in real.ancestors() {
            if let Some((dir, shown)) = self.folders.get_key_value(ancestor) {
                let in_evals = child
                    .and_then(Path::file_name)
                    .is_some_and(|name| name == EVALS_DIR);
                return Some((dir, shown, in_evals));
            }
            child = Some(ancestor);
        }
        None
    }
}

/// One folder waiting to be walked.
struct Pending {
    /// The folder inside the skill folder.
    dir: PathBuf,
    /// Its path relative to the skill folder with a trailing `/` (empty for the skill folder).
    prefix: String,
    /// How many folders deep it is.
    depth: usize,
    /// `(device, inode)` of every folder from the skill folder down to this one: a link to any
    /// of them is a loop.
    ancestors: Vec<(u64, u64)>,
}

/// Walks a skill folder: every file except `SKILL.md`, ignored names and the `evals/` folder,
/// whose `triggers.json` and `evals.json` are reported apart.
///
/// Symlinks are followed, to files and to folders, while they stay inside `real_root`, out of
/// every other skill's folder and out of every `evals/` folder: a skill may share a folder of
/// references kept beside the skills (a dot-folder of the root, say) without copying it. A link
/// is never followed blindly: a link to a folder it sits in is an error naming the link (a
/// loop), and the walk stops at [`MAX_DEPTH`] folders deep and at [`MAX_ENTRIES`] names, each an
/// error, so no folder can make the walk run away (two links to `.` double the paths at every
/// level). Only regular files become items; a FIFO, socket or device is an error.
pub(crate) fn walk(found: &FoundSkill, folders: &SkillFolders, ignore: &[String]) -> Vec<WalkItem> {
    let shown_dir = found.display_path.trim_end_matches("/SKILL.md");
    let mut walker = Walker {
        found,
        shown_dir,
        folders,
        ignore,
        items: Vec::new(),
        names: vec!["SKILL.md".to_owned()],
        entries: 0,
    };
    walker.run();
    let Walker {
        mut items, names, ..
    } = walker;
    items.extend(
        collisions(&names, shown_dir)
            .into_iter()
            .map(WalkItem::Problem),
    );
    items
}

/// The state of one walk.
struct Walker<'a> {
    found: &'a FoundSkill,
    shown_dir: &'a str,
    folders: &'a SkillFolders,
    ignore: &'a [String],
    items: Vec<WalkItem>,
    /// Every path the skill ships or holds, relative, for the collision rule: `SKILL.md`, each
    /// file and each folder walked (and `evals` when there is one).
    names: Vec<String>,
    /// Names read so far, against [`MAX_ENTRIES`].
    entries: usize,
}

impl Walker<'_> {
    fn problem(&mut self, diagnostic: Diagnostic) {
        self.items.push(WalkItem::Problem(diagnostic));
    }

    fn run(&mut self) {
        let Some(start) = identity_of(&self.found.dir) else {
            return;
        };
        let mut pending = vec![Pending {
            dir: self.found.dir.clone(),
            prefix: String::new(),
            depth: 0,
            ancestors: vec![start],
        }];
        while let Some(folder) = pending.pop() {
            let Some(entries) = self.read_folder(&folder) else {
                return;
            };
            // Pushed in reverse so the folders are walked in name order.
            let mut below = Vec::new();
            for entry in entries {
                if let Some(next) = self.entry(&folder, entry) {
                    below.push(next);
                }
            }
            pending.extend(below.into_iter().rev());
        }
    }

    /// The entries of `folder`, sorted by name; `None` once [`MAX_ENTRIES`] is passed (the
    /// walk stops, with an error).
    fn read_folder(&mut self, folder: &Pending) -> Option<Vec<fs::DirEntry>> {
        let Ok(read) = fs::read_dir(&folder.dir) else {
            return Some(Vec::new());
        };
        let mut entries = Vec::new();
        for entry in read.filter_map(Result::ok) {
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                let shown = self.shown_dir.to_owned();
                self.problem(
                    Diagnostic::error(
                        Code::TooManyEntries,
                        &shown,
                        format!("skill folder `{shown}` holds more than {MAX_ENTRIES} files and folders; the walk stopped there"),
                    )
                    .with_help("ship fewer files, or leave the rest out with `ignore = [...]`"),
                );
                return None;
            }
            entries.push(entry);
        }
        entries.sort_by_key(|e| e.file_name());
        Some(entries)
    }

    /// One entry of `folder`: an item or a problem, or the folder to walk next.
    fn entry(&mut self, folder: &Pending, entry: fs::DirEntry) -> Option<Pending> {
        let shown_dir = self.shown_dir;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            let shown = format!(
                "{shown_dir}/{}{}",
                folder.prefix,
                entry.file_name().to_string_lossy()
            );
            self.problem(Diagnostic::error(
                Code::NonUtf8Path,
                shown,
                format!("file name {:?} is not valid UTF-8", entry.file_name()),
            ));
            return None;
        };
        let top = folder.prefix.is_empty();
        if (top && name == "SKILL.md") || is_ignored(&name, self.ignore) {
            return None;
        }
        let relative = format!("{}{name}", folder.prefix);
        let shown = format!("{shown_dir}/{relative}");
        if let Err(why) = portable::check_component(&name) {
            self.problem(
                Diagnostic::error(Code::UnportableName, &shown, format!("`{}` {why}", visible::escape_line(&relative)))
                    .with_help("rename it: skills are written to disk on Linux, macOS and Windows, and unpacked by hosts"),
            );
            return None;
        }
        if top && name == EVALS_DIR {
            self.names.push(name);
            for file in [TRIGGERS_FILE, TASKS_FILE] {
                let item = eval_file(&entry.path(), file, shown_dir, &self.found.real_root);
                self.items.extend(item);
            }
            return None;
        }
        let path = entry.path();
        let real = match real_path_within(&path, &self.found.real_root) {
            Ok(real) => real,
            Err(Unreachable::Broken) => {
                self.problem(Diagnostic::error(
                    Code::BrokenSymlink,
                    &shown,
                    format!("`{shown}` is a broken symlink"),
                ));
                return None;
            }
            Err(Unreachable::Outside(_)) => {
                self.problem(
                    Diagnostic::error(
                        Code::SymlinkOutside,
                        &shown,
                        format!("`{shown}` is a symlink to a path outside the skills root"),
                    )
                    .with_help("copy the file into the skill folder"),
                );
                return None;
            }
        };
        if let Some(diagnostic) = self.foreign(&shown, &real) {
            self.problem(diagnostic);
            return None;
        }
        let Ok(metadata) = fs::metadata(&real) else {
            self.problem(Diagnostic::error(
                Code::Unreadable,
                &shown,
                format!("cannot read `{shown}`"),
            ));
            return None;
        };
        match Kind::of(metadata.file_type()) {
            Kind::File => {
                self.names.push(relative.clone());
                self.items.push(WalkItem::File {
                    relative,
                    path,
                    real,
                });
                None
            }
            Kind::Dir => self.folder(folder, &metadata, relative, shown, path),
            other => {
                self.problem(special_file(&shown, other));
                None
            }
        }
    }

    /// A folder below `parent`, to walk unless it is a loop or too deep.
    fn folder(
        &mut self,
        parent: &Pending,
        metadata: &fs::Metadata,
        relative: String,
        shown: String,
        path: PathBuf,
    ) -> Option<Pending> {
        let here = identity(metadata);
        if let Some(index) = parent.ancestors.iter().position(|a| *a == here) {
            // The folder the link leads back to, as shown: the skill folder, or one below it.
            let target = match relative
                .split('/')
                .take(index)
                .collect::<Vec<_>>()
                .join("/")
            {
                inner if inner.is_empty() => self.shown_dir.to_owned(),
                inner => format!("{}/{inner}", self.shown_dir),
            };
            self.problem(
                Diagnostic::error(
                    Code::SymlinkLoop,
                    &shown,
                    format!("`{shown}` is a loop: it links back to `{target}`, a folder it is in"),
                )
                .with_help("remove the link, or point it at the files it should share"),
            );
            return None;
        }
        let depth = parent.depth + 1;
        if depth > MAX_DEPTH {
            self.problem(
                Diagnostic::error(Code::TooDeep, &shown, format!("`{shown}` is more than {MAX_DEPTH} folders deep in its skill; the walk stops there"))
                    .with_help("flatten the folder, or leave it out with `ignore = [...]`"),
            );
            return None;
        }
        self.names.push(relative.clone());
        let mut ancestors = parent.ancestors.clone();
        ancestors.push(here);
        Some(Pending {
            dir: path,
            prefix: format!("{relative}/"),
            depth,
            ancestors,
        })
    }

    /// The error for an entry whose real path lies in another skill's folder, or in any skill's
    /// `evals/` folder (this one's included): the model would read another skill's files, or
    /// the cases it is tested with.
    fn foreign(&self, shown: &str, real: &Path) -> Option<Diagnostic> {
        let (dir, owner, in_evals) = self.folders.owner(real)?;
        let message = if in_evals {
            format!(
                "`{shown}` leads into `{owner}/{EVALS_DIR}/`: trigger and task cases are never shown to the model"
            )
        } else if dir != self.found.real_dir {
            format!("`{shown}` leads into `{owner}`, the folder of another skill")
        } else {
            return None;
        };
        Some(
            Diagnostic::error(Code::ForeignResource, shown, message)
                .with_help("copy what the skill needs into its own folder, or keep shared files outside every skill folder"),
        )
    }
}

/// `(device, inode)` of the folder at `path`, symlinks followed.
fn identity_of(path: &Path) -> Option<(u64, u64)> {
    fs::metadata(path).ok().map(|m| identity(&m))
}

/// Two paths of one skill that are the same file where case and Unicode normalization do not
/// count (macOS and Windows by default, and hosts that unpack uploads there): one would
/// overwrite the other. One error per later path, naming the first.
fn collisions(names: &[String], shown_dir: &str) -> Vec<Diagnostic> {
    if names.len() < 2 {
        return Vec::new();
    }
    let mut first: HashMap<String, &str> = HashMap::new();
    let mut problems = Vec::new();
    let mut sorted: Vec<&String> = names.iter().collect();
    sorted.sort();
    sorted.dedup();
    for name in sorted {
        match first.entry(portable::fold(name)) {
            Entry::Vacant(slot) => {
                slot.insert(name);
            }
            Entry::Occupied(slot) => {
                let earlier = *slot.get();
                let (earlier_shown, later_shown) = (
                    format!("{shown_dir}/{earlier}"),
                    format!("{shown_dir}/{name}"),
                );
                // Two spellings of one text look alike: show them by code point.
                let spellings = if earlier.to_lowercase() == name.to_lowercase() {
                    String::new()
                } else {
                    format!(" (`{}` and `{}`)", code_points(name), code_points(earlier))
                };
                problems.push(
                    Diagnostic::error(
                        Code::PathCollision,
                        &later_shown,
                        format!(
                            "`{}` and `{}` are one file on macOS and Windows: they differ only in case or Unicode normalization{spellings}",
                            visible::escape_line(&later_shown),
                            visible::escape_line(&earlier_shown)
                        ),
                    )
                    .with_help("rename one of them"),
                );
            }
        }
    }
    problems
}

/// `text` with every character outside ASCII written as `\u{..}`, so two spellings that
/// look the same can be told apart.
fn code_points(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii() && !c.is_ascii_control() {
                c.to_string()
            } else {
                format!("\\u{{{:x}}}", u32::from(c))
            }
        })
        .collect()
}

/// The walk's item for `file` (`evals/triggers.json` or `evals/evals.json`) in the skill's
/// `evals` entry, when there is such a file (or a link by that name).
fn eval_file(evals: &Path, file: &str, shown_dir: &str, real_root: &Path) -> Option<WalkItem> {
    let path = evals.join(file.trim_start_matches(&format!("{EVALS_DIR}/")));
    fs::symlink_metadata(&path).ok()?;
    let shown = format!("{shown_dir}/{file}");
    Some(match real_path_within(&path, real_root) {
        Ok(real) => match fs::metadata(&real).map(|m| Kind::of(m.file_type())) {
            Ok(Kind::File | Kind::Dir) | Err(_) if file == TASKS_FILE => {
                WalkItem::Tasks { path, real }
            }
            Ok(Kind::File | Kind::Dir) | Err(_) => WalkItem::Triggers { path, real },
            Ok(kind) => WalkItem::Problem(special_file(&shown, kind)),
        },
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
            Err(ReadError::NotFile(kind)) => diagnostics.push(special_file(&shown, kind)),
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
