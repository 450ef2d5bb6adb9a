//! The working directory of one run: a fresh temporary folder holding the case's files, and
//! what the run changed in it.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::report::ChangedFile;

/// Files looked at when listing what a run changed, and the bytes of text kept per file.
const MAX_FILES: usize = 2000;
const MAX_TEXT: usize = 4000;
const MAX_DEPTH: usize = 16;

/// A fresh temporary folder with a case's files, removed when dropped.
pub(crate) struct Workdir {
    dir: tempfile::TempDir,
    before: BTreeMap<String, [u8; 32]>,
}

impl Workdir {
    /// A new folder holding `files` (`(path, bytes, executable)`, paths relative, with `/`).
    pub(crate) fn new<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a [u8], bool)>,
    ) -> io::Result<Workdir> {
        let dir = tempfile::Builder::new().prefix("skills-task-").tempdir()?;
        for (path, bytes, executable) in files {
            let target = dir.path().join(path);
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::write(&target, bytes)?;
            #[cfg(unix)]
            if executable {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&target, fs::Permissions::from_mode(0o755))?;
            }
            #[cfg(not(unix))]
            let _ = executable;
        }
        let before = snapshot(dir.path());
        Ok(Workdir { dir, before })
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// What the run added, changed and removed, by path.
    pub(crate) fn changes(&self) -> Vec<ChangedFile> {
        let after = snapshot(self.dir.path());
        let mut changes = Vec::new();
        for (path, digest) in &after {
            let change = match self.before.get(path) {
                None => "added",
                Some(old) if old != digest => "modified",
                Some(_) => continue,
            };
            changes.push(ChangedFile {
                path: path.clone(),
                change: change.to_owned(),
                content: text_of(&self.dir.path().join(path)),
            });
        }
        for path in self.before.keys().filter(|p| !after.contains_key(*p)) {
            changes.push(ChangedFile {
                path: path.clone(),
                change: "deleted".to_owned(),
                content: None,
            });
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        changes
    }
}

/// The file's text, cut, when it is UTF-8.
fn text_of(path: &Path) -> Option<String> {
    let metadata = fs::symlink_metadata(path).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let bytes = fs::read(path).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    Some(crate::tools::clip(text, MAX_TEXT))
}

/// The SHA-256 of every regular file under `root` (symlinks are not followed; a link counts by
/// its target's path), bounded in depth and count.
fn snapshot(root: &Path) -> BTreeMap<String, [u8; 32]> {
    let mut out = BTreeMap::new();
    let mut pending = vec![(root.to_path_buf(), String::new(), 0)];
    while let Some((dir, prefix, depth)) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            if out.len() >= MAX_FILES {
                return out;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = format!("{prefix}{name}");
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < MAX_DEPTH {
                    pending.push((entry.path(), format!("{relative}/"), depth + 1));
                }
            } else if kind.is_symlink() {
                let target = fs::read_link(entry.path()).unwrap_or_default();
                out.insert(
                    relative,
                    Sha256::digest(target.as_os_str().as_encoded_bytes()).into(),
                );
            } else if kind.is_file() {
                let digest = fs::read(entry.path())
                    .map(|bytes| Sha256::digest(&bytes).into())
                    .unwrap_or_default();
                out.insert(relative, digest);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workdir_holds_its_files_and_tells_what_changed() {
        let workdir = Workdir::new([
            ("a.txt", &b"one"[..], false),
            ("src/lib.rs", &b"fn f() {}"[..], true),
            ("gone.txt", &b"x"[..], false),
        ])
        .unwrap();
        let path = workdir.path().to_path_buf();
        assert_eq!(fs::read(path.join("src/lib.rs")).unwrap(), b"fn f() {}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(path.join("src/lib.rs"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o111, 0o111);
        }
        fs::write(path.join("a.txt"), "two").unwrap();
        fs::write(path.join("new.bin"), [0xff, 0xfe]).unwrap();
        fs::remove_file(path.join("gone.txt")).unwrap();
        let changes: Vec<(String, String, Option<String>)> = workdir
            .changes()
            .into_iter()
            .map(|c| (c.path, c.change, c.content))
            .collect();
        assert_eq!(
            changes,
            [
                ("a.txt".into(), "modified".into(), Some("two".into())),
                ("gone.txt".into(), "deleted".into(), None),
                ("new.bin".into(), "added".into(), None),
            ]
        );
        drop(workdir);
        assert!(!path.exists(), "the folder is removed with the workdir");
    }
}
