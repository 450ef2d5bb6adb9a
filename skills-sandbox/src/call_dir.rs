//! The private folder of one call: the policy file, the report file, and the mount point of the
//! new root (namespaces) or the fallback's `TMPDIR`. Only the caller's user can enter it, the
//! command never sees it (it is outside the sandbox's root, and outside the fallback's Landlock
//! rules but for `tmp/`), and it is removed with everything in it when the call is dropped.
//!
//! With the namespaces it holds only small files and an empty folder, so it goes on a memory
//! file system when there is one: the caller's `XDG_RUNTIME_DIR`, else `/dev/shm`, else the
//! system's temporary folder. Creating and removing it there costs a tenth of what it costs on a
//! busy disk (about 0.8 ms a call here). The fallback's holds the command's `TMPDIR`, which
//! may grow large: it stays in the system's temporary folder, on disk.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::confinement::Level;

/// The policy file.
pub(crate) const POLICY: &str = "policy";
/// The report file the stages append to.
pub(crate) const REPORT: &str = "report";
/// The mount point of the new root (namespaces only).
pub(crate) const ROOT: &str = "root";
/// Where the init stage mounts the call's memory files before binding their folders into the
/// new root (namespaces only; made by that stage, and empty on the host).
pub(crate) const MEMORY: &str = "memory";
/// The fallback's private `TMPDIR` (the fallback only).
pub(crate) const TMP: &str = "tmp";
/// An empty working directory for probes.
pub(crate) const PROBE_WORKDIR: &str = "work";

/// A call's folder, removed on drop.
#[derive(Debug)]
pub(crate) struct CallDir(PathBuf);

/// Where a call's folder may go, in order of preference.
fn bases(level: Level) -> Vec<PathBuf> {
    let mut bases = Vec::new();
    if level == Level::Namespaces {
        // The caller's own runtime folder (a memory file system nobody else may write), then
        // the shared one every Linux system mounts.
        if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from)
            && runtime.is_absolute()
            && runtime.is_dir()
        {
            bases.push(runtime);
        }
        bases.push(PathBuf::from("/dev/shm"));
    }
    bases.push(std::env::temp_dir());
    bases
}

/// A new folder with the subfolder `sub` under `base`, with a name no other call has.
fn create_in(base: &Path, sub: &str) -> io::Result<CallDir> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last_error = None;
    for _ in 0..16 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "skills-sandbox-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let dir = base.join(name);
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {
                let call = CallDir(dir);
                fs::DirBuilder::new().mode(0o700).create(call.path(sub))?;
                return Ok(call);
            }
            // Taken: another name. Anything else (no such folder, no permission): another base.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last_error = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last_error.unwrap_or_else(|| io::Error::other("no name left to try")))
}

impl CallDir {
    /// A new `0700` folder for a call at `level`, with the subfolder that level uses, under the
    /// first of [`bases`] where it can be made. Creation fails rather than reuse anything
    /// already there, so a name planted by someone else is never used.
    pub(crate) fn create(level: Level) -> io::Result<CallDir> {
        let sub = match level {
            Level::Namespaces => ROOT,
            _ => TMP,
        };
        let mut last_error = None;
        for base in bases(level) {
            match create_in(&base, sub) {
                Ok(dir) => return Ok(dir),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no folder to create it in")))
    }

    /// `name` inside the folder.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for CallDir {
    fn drop(&mut self) {
        remove_tree(&self.0);
    }
}

/// Removes `path` and everything beneath it, also folders the command made unreadable (`chmod
/// 000`) in the fallback's `TMPDIR`: their owner may give itself the permission back.
fn remove_tree(path: &Path) {
    if fs::remove_dir_all(path).is_ok() {
        return;
    }
    open_up(path);
    let _ = fs::remove_dir_all(path);
}

/// Gives the owner full rights on every folder beneath `path` (symbolic links are not
/// followed).
fn open_up(path: &Path) {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o700));
    if let Ok(entries) = fs::read_dir(path) {
        for entry in entries.flatten() {
            open_up(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_dir_is_private_and_removed_with_locked_folders_inside() {
        let call = CallDir::create(Level::Fallback).unwrap();
        let dir = call.0.clone();
        assert_eq!(
            fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let locked = call.path(TMP).join("a/b");
        fs::create_dir_all(&locked).unwrap();
        fs::write(locked.join("f"), b"x").unwrap();
        for folder in [locked.as_path(), locked.parent().unwrap()] {
            fs::set_permissions(folder, fs::Permissions::from_mode(0o000)).unwrap();
        }
        drop(call);
        assert!(!dir.exists(), "{} left behind", dir.display());
    }

    #[test]
    fn each_level_gets_its_own_subfolder_and_the_fallback_stays_in_the_temporary_folder() {
        let namespaces = CallDir::create(Level::Namespaces).unwrap();
        assert!(namespaces.path(ROOT).is_dir());
        assert!(!namespaces.path(TMP).exists());
        let fallback = CallDir::create(Level::Fallback).unwrap();
        assert!(fallback.path(TMP).is_dir());
        assert!(!fallback.path(ROOT).exists());
        assert!(
            fallback.0.starts_with(std::env::temp_dir()),
            "{:?}",
            fallback.0
        );
    }
}
