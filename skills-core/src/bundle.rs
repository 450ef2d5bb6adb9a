//! Wires the stages together: discover -> read -> parse -> cross-check.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::check;
use crate::diagnostic::{self, Diagnostic};
use crate::discover::{self, FoundSkill};
use crate::skill::{self, ParseOptions, SkillDef};

/// Default per-file size limit (D5): 1 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// Options shared by the macro and the CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Largest accepted `SKILL.md`, in bytes.
    pub max_file_size: u64,
    /// Accept (and ignore) unknown frontmatter keys.
    pub allow_unknown_keys: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            allow_unknown_keys: false,
        }
    }
}

/// The result of loading one or more roots.
#[derive(Clone, Debug, Default)]
pub struct Bundle {
    /// Valid skills, sorted by name. When there are errors this holds only the skills that
    /// passed, and must not be shipped.
    pub skills: Vec<SkillDef>,
    /// Every problem in every file, sorted by path and position.
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read, sorted, so the macro can track them for rebuilds.
    pub files_read: Vec<PathBuf>,
}

impl Bundle {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Only the errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }
}

/// Loads every root (resolved against `manifest_dir`), applying every rule of the policy.
pub fn load(manifest_dir: &Path, roots: &[&str], options: &Options) -> Bundle {
    let mut bundle = Bundle::default();
    let mut found: Vec<FoundSkill> = Vec::new();
    for root in roots {
        let (skills, diagnostics) = discover::discover(manifest_dir, root);
        found.extend(skills);
        bundle.diagnostics.extend(diagnostics);
    }
    bundle.diagnostics.extend(check::duplicate_names(&found));

    let parse_options = ParseOptions {
        allow_unknown_keys: options.allow_unknown_keys,
    };
    for skill in &found {
        match read_limited(&skill.file, options.max_file_size) {
            Ok(bytes) => {
                bundle.files_read.push(skill.file.clone());
                let (parsed, diagnostics) =
                    skill::parse(&skill.display_path, &skill.dir_name, &bytes, &parse_options);
                bundle.diagnostics.extend(diagnostics);
                bundle.skills.extend(parsed.map(|def| SkillDef {
                    file: skill.file.clone(),
                    ..def
                }));
            }
            Err(message) => bundle
                .diagnostics
                .push(message.into_diagnostic(&skill.display_path, options.max_file_size)),
        }
    }

    let names: BTreeSet<String> = found.iter().map(|skill| skill.dir_name.clone()).collect();
    for skill in &bundle.skills {
        bundle.diagnostics.extend(check::references(skill, &names));
    }
    bundle
        .skills
        .sort_by(|a, b| a.name.value.cmp(&b.name.value));
    // Two roots may hold the same name; keep one so a consumer never sees duplicates.
    bundle.skills.dedup_by(|a, b| a.name.value == b.name.value);
    bundle.files_read.sort();
    diagnostic::sort(&mut bundle.diagnostics);
    bundle
}

enum ReadError {
    TooLarge(u64),
    Io(std::io::Error),
}

impl ReadError {
    fn into_diagnostic(self, path: &str, limit: u64) -> Diagnostic {
        match self {
            ReadError::TooLarge(size) => Diagnostic::error(path, format!("SKILL.md is {size} bytes, over the limit of {limit} bytes"))
                .with_help("move long reference material into files beside SKILL.md, or raise the limit with `max_file_size = ...`"),
            ReadError::Io(error) => Diagnostic::error(path, format!("cannot read SKILL.md: {error}")),
        }
    }
}

/// D5: reads a file, refusing more than `limit` bytes (checked while reading, not trusted from
/// metadata, so a file growing under us cannot slip through).
fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = fs::File::open(path).map_err(ReadError::Io)?;
    let size_hint = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size_hint > limit {
        return Err(ReadError::TooLarge(size_hint));
    }
    let mut bytes = Vec::with_capacity(size_hint as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}
