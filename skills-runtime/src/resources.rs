//! Files shipped beside a skill's `SKILL.md` (`references/`, `scripts/`, `assets/`): embedded
//! at build time, read on demand by the model, and written to disk only when a script must run.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::Skill;

/// One embedded file of a skill.
#[derive(Clone, Copy)]
pub struct Resource {
    pub(crate) path: &'static str,
    pub(crate) bytes: &'static [u8],
    pub(crate) is_text: bool,
    pub(crate) executable: bool,
}

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

/// Default number of lines [`Skill::read_resource`] returns.
pub const DEFAULT_READ_LIMIT: usize = 2_000;

/// Why a resource could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceError {
    /// No skill of that name in the set.
    UnknownSkill(crate::UnknownSkill),
    /// The skill has no file at that path.
    UnknownPath {
        /// The skill asked for.
        skill: &'static str,
        /// The path asked for.
        path: String,
        /// The paths that exist.
        available: Vec<&'static str>,
    },
    /// `offset` is past the end of the file.
    OffsetOutOfRange {
        /// The offset asked for (1-based line).
        offset: usize,
        /// Lines in the file.
        lines: usize,
    },
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceError::UnknownSkill(error) => error.fmt(f),
            ResourceError::UnknownPath {
                skill,
                path,
                available,
            } if available.is_empty() => {
                write!(
                    f,
                    "The skill \"{skill}\" has no file \"{path}\"; it ships no files besides SKILL.md."
                )
            }
            ResourceError::UnknownPath {
                skill,
                path,
                available,
            } => {
                write!(f, "The skill \"{skill}\" has no file \"{path}\".")?;
                if let Some(close) =
                    skills_core::render::closest_match(path, available.iter().copied())
                {
                    write!(f, " Did you mean \"{close}\"?")?;
                }
                write!(f, " Its files: {}.", available.join(", "))
            }
            ResourceError::OffsetOutOfRange { offset, lines } => {
                write!(
                    f,
                    "offset {offset} is past the end of the file ({lines} lines)"
                )
            }
        }
    }
}

impl std::error::Error for ResourceError {}

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
        self.extra().resources
    }

    /// The file at `path` (relative to the skill folder; a leading `./` is accepted).
    pub fn resource(&self, path: &str) -> Option<&'static Resource> {
        let path = path.trim_start_matches("./");
        self.resources().iter().find(|r| r.path == path)
    }

    /// SHA-256 over `SKILL.md` and every resource: changes whenever any file of the skill does.
    /// Equal to [`sha256`](Self::sha256) for a skill without resources.
    pub fn tree_sha256(&self) -> &'static str {
        crate::__private::resolve_optional(self.parts.text, self.extra().tree_sha256)
            .unwrap_or_else(|| self.sha256())
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
        let end = (offset - 1 + limit).min(lines.len());
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
    /// The directory is built under a temporary name and renamed into place, so a reader never
    /// sees half a skill; when it already exists (an earlier run, another process) it is reused
    /// as is. Executable files keep their executable bit. `base` is created private (`0700`).
    pub fn materialize(&self, base: &Path) -> io::Result<PathBuf> {
        let target = base.join(format!("{}-{}", self.name(), &self.tree_sha256()[..16]));
        if target.is_dir() {
            return Ok(target);
        }
        create_private_dir(base)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let staging = base.join(format!(
            ".{}-{}.{}.{nanos}.tmp",
            self.name(),
            &self.tree_sha256()[..16],
            std::process::id()
        ));
        let written = self.write_files(&staging);
        if let Err(error) = written {
            let _ = fs::remove_dir_all(&staging);
            return Err(error);
        }
        match fs::rename(&staging, &target) {
            Ok(()) => Ok(target),
            // Another process finished first: its copy is identical (same hash), use it.
            Err(_) if target.is_dir() => {
                let _ = fs::remove_dir_all(&staging);
                Ok(target)
            }
            Err(error) => {
                let _ = fs::remove_dir_all(&staging);
                Err(error)
            }
        }
    }

    fn write_files(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)?;
        fs::write(dir.join("SKILL.md"), self.content())?;
        for resource in self.resources() {
            let file = dir.join(resource.path);
            if let Some(parent) = file.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::write(&file, resource.bytes)?;
            set_mode(&file, if resource.executable { 0o755 } else { 0o644 })?;
        }
        Ok(())
    }
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

fn create_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    fs::create_dir_all(dir)?;
    set_mode(dir, 0o700)
}

/// Where [`SkillLoader`](crate::SkillLoader) materializes skills unless told otherwise:
/// `skills-runtime` in the system's temporary directory.
pub fn default_resource_dir() -> PathBuf {
    std::env::temp_dir().join("skills-runtime")
}
