//! Files shipped beside a skill's `SKILL.md` (`references/`, `scripts/`, `assets/`): embedded
//! at build time, read on demand by the model, and written to disk only when a script must run.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::bundle::{Resource, Skill};
use crate::error::ResourceError;

impl Resource {
    /// Path relative to the skill folder, with `/` (`references/forms.md`).
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &'static [u8] {
        self.bytes
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Whether the file is UTF-8 text (checked at build time).
    pub fn is_text(&self) -> bool {
        self.is_text
    }

    /// The file as text, if it is text.
    pub fn text(&self) -> Option<&'static str> {
        if self.is_text {
            std::str::from_utf8(self.bytes).ok()
        } else {
            None
        }
    }

    /// Whether the file had an executable bit when it was embedded.
    pub fn is_executable(&self) -> bool {
        self.executable
    }
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("path", &self.path)
            .field("size", &self.size())
            .field("is_text", &self.is_text)
            .field("executable", &self.executable)
            .finish()
    }
}

/// Lines a read returns when no `limit` is given: [`Skill::read_resource`] (the
/// `read_skill_resource` tool) and, with feature `agent`, the `read_file` tool.
pub const DEFAULT_READ_LIMIT: usize = 2_000;

/// What kind of binary file a name suggests, for the model.
fn binary_kind(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" | "bmp" | "ico" => "image",
        "pdf" => "PDF document",
        "ttf" | "otf" | "woff" | "woff2" => "font",
        "zip" | "gz" | "tar" | "tgz" | "xz" | "zst" => "archive",
        "docx" | "xlsx" | "pptx" | "odt" => "office document",
        _ => "data",
    }
}

impl Skill {
    /// The files shipped beside `SKILL.md`, sorted by path.
    pub fn resources(&self) -> &'static [Resource] {
        let Some([first, count, _]) = self.record().resources() else {
            return &[];
        };
        self.data
            .resources
            .get(first..first.saturating_add(count))
            .unwrap_or(&[])
    }

    /// The file at `path` (relative to the skill folder; a leading `./` is accepted).
    pub fn resource(&self, path: &str) -> Option<&'static Resource> {
        let path = path.trim_start_matches("./");
        self.resources().iter().find(|r| r.path == path)
    }

    /// The SHA-256 (lowercase hex, computed at build time) of resource `index` of
    /// [`resources`](Self::resources); empty past the end.
    pub(crate) fn resource_sha256(&self, index: usize) -> &'static str {
        match self.record().resources() {
            Some([_, count, slot]) if index < count => self.data.hex(slot + 1 + index),
            _ => "",
        }
    }

    /// SHA-256 over `SKILL.md` and every resource: changes whenever any file of the skill does.
    /// Equal to [`sha256`](Self::sha256) for a skill without resources.
    pub fn tree_sha256(&self) -> &'static str {
        match self.record().resources() {
            Some([_, _, slot]) => self.data.hex(slot),
            None => self.sha256(),
        }
    }

    /// Reads a text resource the way `read_file` reads a file: from line `offset` (1-based,
    /// default 1), at most `limit` lines (default [`DEFAULT_READ_LIMIT`]). A binary resource
    /// gives a one-line description instead of its bytes.
    pub fn read_resource(
        &self,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<String, ResourceError> {
        let resource = self
            .resource(path)
            .ok_or_else(|| ResourceError::UnknownPath {
                skill: self.name(),
                path: path.to_owned(),
                available: self.resources().iter().map(|r| r.path).collect(),
            })?;
        let Some(text) = resource.text() else {
            return Ok(format!(
                "`{}` is binary ({}, {} bytes) and cannot be shown as text. Use it from the skill's files on disk.",
                resource.path,
                binary_kind(resource.path),
                resource.size()
            ));
        };
        let lines: Vec<&str> = text.lines().collect();
        let offset = offset.unwrap_or(1).max(1);
        let limit = limit.unwrap_or(DEFAULT_READ_LIMIT).max(1);
        if offset > lines.len().max(1) {
            return Err(ResourceError::OffsetOutOfRange {
                offset,
                lines: lines.len(),
            });
        }
        // Both come from the model: `limit` may be `usize::MAX`.
        let end = (offset - 1).saturating_add(limit).min(lines.len());
        let mut out = lines[offset - 1..end].join("\n");
        if end < lines.len() {
            out.push_str(&format!(
                "\n[... {} more lines; read on with offset={}]",
                lines.len() - end,
                end + 1
            ));
        }
        Ok(out)
    }

    /// Writes `SKILL.md` and every resource under `base`, in a directory named after the skill
    /// and its [`tree_sha256`](Self::tree_sha256), and returns that directory.
    ///
    /// Nothing already on disk is trusted, because the model is told to run what it finds there:
    ///
    /// - `base` is created with mode `0700` when missing (its parents with the default mode).
    ///   An existing `base`, and an existing skill directory in it, are refused with
    ///   [`io::ErrorKind::PermissionDenied`] when they are a symbolic link, not a directory, not
    ///   owned by the current user, or not of mode `0700`. The current user is the owner of a
    ///   directory this call has just created in `base` (the file-system uid, learnt without a
    ///   libc call); on non-Unix systems only the link and directory checks apply.
    /// - An existing skill directory is reused only when it holds exactly the embedded files:
    ///   `SKILL.md` and every resource with equal bytes and the expected mode (`0755` for
    ///   executables, `0644` otherwise), and nothing else. Anything else (a changed, missing or
    ///   extra file, a link, an empty directory) is rebuilt.
    /// - A copy is built under a temporary name and renamed into place, so a reader never sees
    ///   half a skill; a stale copy is moved aside first and then removed.
    pub fn materialize(&self, base: &Path) -> io::Result<PathBuf> {
        self.check_paths()?;
        let name = format!("{}-{}", self.name(), &self.tree_sha256()[..16]);
        let target = base.join(&name);
        create_private_dir(base)?;
        // Link, type and mode first, so nothing is created in a folder others can change; the
        // owner once a fresh directory says who the current user is.
        check_private_dir(base, "resource directory", None)?;
        let staging = Staging::create(base, &name)?;
        let me = current_user(&staging.path)?;
        check_private_dir(base, "resource directory", me)?;
        match fs::symlink_metadata(&target) {
            Ok(_) => {
                check_private_dir(&target, "skill directory", me)?;
                if self.is_written_in(&target) {
                    return Ok(target);
                }
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
        self.write_files(&staging.path)?;
        let refused = match fs::rename(&staging.path, &target) {
            Ok(()) => return Ok(target),
            Err(error) => error,
        };
        // Something is in the way: a copy another process has just finished (use it), or the
        // stale copy found above (move it aside, then put ours in its place).
        if matches!(fs::symlink_metadata(&target), Err(e) if e.kind() == io::ErrorKind::NotFound) {
            return Err(refused);
        }
        check_private_dir(&target, "skill directory", me)?;
        if self.is_written_in(&target) {
            return Ok(target);
        }
        let aside = base.join(format!(".{name}.{}.old", unique_suffix()));
        fs::rename(&target, &aside)?;
        let installed = fs::rename(&staging.path, &target);
        let _ = fs::remove_dir_all(&aside);
        installed.map(|()| target)
    }

    /// Refuses, before anything is written, a skill name or resource path with a component that
    /// is not a plain file name on every system ([`skills_core::portable::check_path`]: `..`, an
    /// absolute path, `\`, a drive's `:`, a Windows device name, ...). The build refuses them
    /// too, but a registry can be put together elsewhere, and on Windows `a\..\..\x` or `C:\x`
    /// joined to `base` would land outside it.
    fn check_paths(&self) -> io::Result<()> {
        let names = std::iter::once(self.name()).chain(self.resources().iter().map(|r| r.path));
        for path in names {
            if let Err((component, why)) = skills_core::portable::check_path(path) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "refusing to write `{}` of skill `{}`: the component `{}` {why}",
                        skills_core::visible::escape_line(path),
                        skills_core::visible::escape_line(self.name()),
                        skills_core::visible::escape_line(&component),
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Whether `dir` holds exactly the files [`write_files`](Self::write_files) writes. Any
    /// error while looking counts as a difference: the caller rebuilds.
    fn is_written_in(&self, dir: &Path) -> bool {
        let mut expected: BTreeMap<&str, (&[u8], bool)> = self
            .resources()
            .iter()
            .map(|r| (r.path, (r.bytes, r.executable)))
            .collect();
        expected.insert("SKILL.md", (self.content().as_bytes(), false));
        let mut found = 0;
        matches_tree(dir, "", &expected, &mut found).unwrap_or(false) && found == expected.len()
    }

    fn write_files(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)?;
        fs::write(dir.join("SKILL.md"), self.content())?;
        set_mode(&dir.join("SKILL.md"), 0o644)?;
        for resource in self.resources() {
            let file = dir.join(resource.path);
            if let Some(parent) = file.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::write(&file, resource.bytes)?;
            set_mode(&file, file_mode(resource.executable))?;
        }
        Ok(())
    }
}

/// The mode [`Skill::write_files`] gives a file.
fn file_mode(executable: bool) -> u32 {
    if executable { 0o755 } else { 0o644 }
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> io::Result<()> {
    Ok(())
}

/// Compares the tree under `dir` (whose path relative to the skill is `prefix`) with
/// `expected`, counting the expected files it finds. Only directories that lead to an expected
/// file are entered, so the walk is as deep as the skill itself.
fn matches_tree(
    dir: &Path,
    prefix: &str,
    expected: &BTreeMap<&str, (&[u8], bool)>,
    found: &mut usize,
) -> io::Result<bool> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            return Ok(false);
        };
        let relative = format!("{prefix}{name}");
        // `file_type` and `metadata` of a directory entry do not follow symbolic links.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            let inner = format!("{relative}/");
            if !expected.keys().any(|path| path.starts_with(&inner))
                || !matches_tree(&entry.path(), &inner, expected, found)?
            {
                return Ok(false);
            }
        } else if kind.is_file() {
            let Some(&(bytes, executable)) = expected.get(relative.as_str()) else {
                return Ok(false);
            };
            let metadata = entry.metadata()?;
            if metadata.len() != bytes.len() as u64
                || !has_mode(&metadata, file_mode(executable))
                || fs::read(entry.path())? != bytes
            {
                return Ok(false);
            }
            *found += 1;
        } else {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(unix)]
fn has_mode(metadata: &fs::Metadata, mode: u32) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o777 == mode
}

#[cfg(not(unix))]
fn has_mode(_: &fs::Metadata, _: u32) -> bool {
    true
}

/// A name no other call uses: process id and clock.
fn unique_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}.{nanos}", std::process::id())
}

/// The directory a skill is built in before it is renamed into place; removed when dropped
/// unless it was renamed away.
struct Staging {
    path: PathBuf,
}

impl Staging {
    fn create(base: &Path, name: &str) -> io::Result<Staging> {
        let path = base.join(format!(".{name}.{}.tmp", unique_suffix()));
        private_dir_builder().create(&path)?;
        Ok(Staging { path })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if fs::symlink_metadata(&self.path).is_ok() {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// Creates one directory, private (`0700`) on Unix; fails when the path exists.
fn private_dir_builder() -> fs::DirBuilder {
    #[allow(unused_mut)]
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
}

/// Creates `dir` private when it is missing; an existing one is left for
/// [`check_private_dir`].
fn create_private_dir(dir: &Path) -> io::Result<()> {
    match fs::symlink_metadata(dir) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        other => return other.map(drop),
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    match private_dir_builder().create(dir) {
        // Another process created it first: it is checked like any existing directory.
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// The owner of `fresh`, a directory this process has just created: the user whose
/// directories can be trusted. `None` where files have no Unix owner.
#[cfg(unix)]
fn current_user(fresh: &Path) -> io::Result<Option<u32>> {
    use std::os::unix::fs::MetadataExt;
    Ok(Some(fs::symlink_metadata(fresh)?.uid()))
}

#[cfg(not(unix))]
fn current_user(_: &Path) -> io::Result<Option<u32>> {
    Ok(None)
}

/// Refuses `dir` unless it is a real directory, owned by `me` (when known) and of mode `0700`.
fn check_private_dir(dir: &Path, what: &str, me: Option<u32>) -> io::Result<()> {
    let refuse = |why: String| {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "refusing the {what} {}: it {why}; remove it or choose another directory",
                dir.display()
            ),
        )
    };
    let metadata = fs::symlink_metadata(dir)?;
    if metadata.file_type().is_symlink() {
        return Err(refuse("is a symbolic link".into()));
    }
    if !metadata.is_dir() {
        return Err(refuse("is not a directory".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Some(me) = me
            && metadata.uid() != me
        {
            return Err(refuse(format!(
                "is owned by uid {}, not by the current user (uid {me})",
                metadata.uid()
            )));
        }
        let mode = metadata.mode() & 0o777;
        if mode != 0o700 {
            return Err(refuse(format!(
                "has mode {mode:03o}, not 0700, so other users could change what is in it"
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = me;
    Ok(())
}

/// Where skills are materialized by default: a folder only the current user can reach, never
/// the shared temporary directory (whose predictable names anyone can take first).
///
/// In order: `$XDG_RUNTIME_DIR/skills-runtime` (the per-user runtime directory, when set to an
/// absolute path), `$XDG_CACHE_HOME/skills-runtime` (when absolute), `$HOME/.cache/skills-runtime`,
/// and on Windows `%LOCALAPPDATA%\skills-runtime`. `None` when none of these is known; pass a
/// directory of your own to
/// [`SkillLoader::with_resource_dir`](crate::SkillLoader::with_resource_dir) then.
/// [`Skill::materialize`] creates the folder with mode `0700` and refuses it otherwise.
pub fn default_resource_dir() -> Option<PathBuf> {
    resource_dir_from(|name| std::env::var_os(name))
}

/// [`default_resource_dir`] with the environment given as a function (testable without
/// changing the process environment).
fn resource_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| {
        var(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    let base = absolute("XDG_RUNTIME_DIR")
        .or_else(|| absolute("XDG_CACHE_HOME"))
        .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
        .or_else(|| {
            if cfg!(windows) {
                absolute("LOCALAPPDATA")
            } else {
                None
            }
        })?;
    Some(base.join("skills-runtime"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn default_resource_dir_is_per_user_and_never_the_shared_temp_dir() {
        let all = [
            ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ("XDG_CACHE_HOME", "/home/u/.xdg-cache"),
            ("HOME", "/home/u"),
        ];
        assert_eq!(
            resource_dir_from(env(&all)),
            Some(PathBuf::from("/run/user/1000/skills-runtime"))
        );
        assert_eq!(
            resource_dir_from(env(&all[1..])),
            Some(PathBuf::from("/home/u/.xdg-cache/skills-runtime"))
        );
        assert_eq!(
            resource_dir_from(env(&all[2..])),
            Some(PathBuf::from("/home/u/.cache/skills-runtime"))
        );
        // Relative values are not directories of this user's: they are skipped.
        assert_eq!(
            resource_dir_from(env(&[
                ("XDG_RUNTIME_DIR", "run"),
                ("XDG_CACHE_HOME", ""),
                ("HOME", "/home/u"),
            ])),
            Some(PathBuf::from("/home/u/.cache/skills-runtime"))
        );
        if !cfg!(windows) {
            assert_eq!(resource_dir_from(env(&[("HOME", "home")])), None);
            assert_eq!(resource_dir_from(env(&[("TMPDIR", "/tmp")])), None);
        }
    }
}
