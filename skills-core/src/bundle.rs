//! Wires the stages together: discover -> read -> parse -> resources -> cross-check -> lint.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::cache::{self, Cache, CacheStats, FolderResult};
use crate::cross_skill;
use crate::diagnostic::{self, Code, Diagnostic, Severity};
use crate::digest::{self, hex};
use crate::discover::{self, FoundSkill};
use crate::files::{self, Kind, ReadCheckedError, ReadError, read_limited};
use crate::links;
use crate::lint::{self, Level, LintOptions};
use crate::lock::{self, LockedFile};
use crate::openai_yaml;
use crate::options::Options;
use crate::pack::Pack;
use crate::resources::{self, ResourceDef, SkillFolders, WalkItem};
use crate::skill::{self, ParseOptions, SkillDef};
use crate::tasks::{self, TASKS_FILE, TaskFile};
use crate::triggers::{self, TRIGGERS_FILE, TriggerFile};

/// The result of loading one or more roots.
#[derive(Clone, Debug, Default)]
pub struct Bundle {
    /// Valid skills, sorted by name. When there are errors this holds only the skills that
    /// passed, and must not be shipped.
    pub skills: Vec<SkillDef>,
    /// Every problem in every file (errors and lint warnings), sorted by path and position.
    pub diagnostics: Vec<Diagnostic>,
    /// How many `SKILL.md` files discovery found, valid or not (what "checked N skills" counts).
    pub skills_found: usize,
    /// Every file the bundle embeds (each `SKILL.md` and every resource) with the SHA-256 of its
    /// bytes on disk, sorted by path: what a lock lists ([`crate::lock::render`]).
    pub files: Vec<LockedFile>,
    /// With the `lock` option: SHA-256 (hex) of the lock file's bytes, which the registry
    /// reports as `Registry::lock_digest`.
    pub lock_digest: Option<String>,
    /// With the `lock` option: the lock file on disk, for the macro to track.
    pub lock_file: Option<PathBuf>,
    /// The packs the bundle was loaded with, sorted by name (what a lock records).
    pub packs: Vec<Pack>,
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

    /// Only the warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }

    /// The bytes of every resource, skill after skill in [`skills`](Self::skills) order, each
    /// read again and compared with the SHA-256 it was checked and locked with
    /// ([`ResourceDef::read_checked`]): what `embed_skills!` writes into the binary, so that a file
    /// changed after its check (an editor saving, a checkout, another build step) fails the build
    /// instead of shipping unreviewed. One error per file that changed or cannot be read.
    pub fn checked_resource_bytes(&self) -> Result<Vec<Vec<u8>>, Vec<Diagnostic>> {
        read_all_checked(self.skills.iter().flat_map(|skill| {
            skill
                .resources
                .iter()
                .map(|resource| (skill.file_path(&resource.path), resource.read_checked()))
        }))
    }

    /// The bytes of every file the task cases copy (`evals/evals.json`'s fixtures), skill after
    /// skill, each read again and compared as [`checked_resource_bytes`](Self::checked_resource_bytes)
    /// does: what `embed_skills!` writes into the binary with `embed_evals = true`.
    pub fn checked_fixture_bytes(&self) -> Result<Vec<Vec<u8>>, Vec<Diagnostic>> {
        read_all_checked(
            self.skills
                .iter()
                .filter_map(|skill| skill.tasks.as_ref())
                .flat_map(|tasks| &tasks.fixtures)
                .map(|fixture| (fixture.path.clone(), fixture.read_checked())),
        )
    }

    /// What the `warnings` group does to the macro's warnings (`#![deny(warnings)]` or
    /// `#![allow(warnings)]` in the crate, `-D warnings` or `-A warnings` for `skills check`):
    /// at `deny` every warning, a lint's or not, becomes an error; at `allow` they are dropped;
    /// at `warn` nothing changes.
    pub fn set_warnings(&mut self, level: Level) {
        match level {
            Level::Warn => {}
            Level::Allow => self.diagnostics.retain(Diagnostic::is_error),
            Level::Deny => {
                for diagnostic in &mut self.diagnostics {
                    diagnostic.severity = Severity::Error;
                }
            }
        }
    }
}

/// The bytes of every file, or an error for each one that changed since its check (`file-changed`)
/// or cannot be read again.
fn read_all_checked(
    files: impl Iterator<Item = (String, Result<Vec<u8>, ReadCheckedError>)>,
) -> Result<Vec<Vec<u8>>, Vec<Diagnostic>> {
    let mut bytes = Vec::new();
    let mut errors = Vec::new();
    for (shown, read) in files {
        match read {
            Ok(read) => bytes.push(read),
            Err(error) => errors.push(
                Diagnostic::error(
                    Code::FileChanged,
                    &shown,
                    format!("`{shown}` changed while the crate was compiling ({error}): the binary would carry bytes that were not checked"),
                )
                .with_help("build again once nothing is writing to the skill folder"),
            ),
        }
    }
    if errors.is_empty() {
        Ok(bytes)
    } else {
        Err(errors)
    }
}

/// Loads every root (resolved against `manifest_dir`), applying every rule of the policy.
pub fn load(manifest_dir: &Path, roots: &[&str], options: &Options) -> Bundle {
    load_with(manifest_dir, roots, &[], options, None)
}

/// [`load`] with the skills of `packs` too (crates carrying a skills folder, see
/// [`crate::pack`]), checked as one bundle with the roots: a name defined twice, `requires`
/// and `conflicts-with`, the catalog budget, the bundle size and the lock look at all of them.
/// Pack files are shown (and locked) as `acme-skills@1.4.0/skills/<name>/...`. With
/// `cache_dir`, as [`load_cached`].
pub fn load_packs(
    manifest_dir: &Path,
    roots: &[&str],
    packs: &[Pack],
    options: &Options,
    cache_dir: Option<&Path>,
) -> Bundle {
    match cache_dir {
        Some(cache_dir) => {
            let version = cache::version_key();
            let sources = Sources::new(manifest_dir, roots, packs);
            let mut cache = Cache::open(
                cache_dir,
                manifest_dir,
                &sources.keys(),
                options,
                version,
                cache::SETTLE_TIME,
            );
            let bundle = load_with(manifest_dir, roots, packs, options, Some(&mut cache));
            cache.save();
            bundle
        }
        None => load_with(manifest_dir, roots, packs, options, None),
    }
}

/// The folders a bundle is read from: the crate's own roots, then each pack's folder.
struct Sources {
    /// Each folder on disk and as shown.
    folders: Vec<(PathBuf, String)>,
    /// How many of them are the crate's own roots.
    own: usize,
}

impl Sources {
    fn new(manifest_dir: &Path, roots: &[&str], packs: &[Pack]) -> Self {
        let own = roots
            .iter()
            .map(|root| (manifest_dir.join(root), discover::display_root(root)));
        let packs = packs
            .iter()
            .map(|pack| (pack.skills_dir(), pack.shown_root()));
        Sources {
            folders: own.chain(packs).collect(),
            own: roots.len(),
        }
    }

    /// Every folder as shown.
    fn shown(&self) -> Vec<String> {
        self.folders
            .iter()
            .map(|(_, shown)| shown.clone())
            .collect()
    }

    /// What the cache is keyed on: the roots as given, then each pack's folder on disk and
    /// as shown (a moved pack, or a new version, starts a new cache).
    fn keys(&self) -> Vec<&str> {
        self.folders
            .iter()
            .enumerate()
            .flat_map(|(i, (path, shown))| {
                let own = i < self.own;
                let path = path.to_str().unwrap_or_default();
                if own {
                    vec![shown.as_str()]
                } else {
                    vec![path, shown.as_str()]
                }
            })
            .collect()
    }
}

/// [`load`], with the per-file results of unchanged skill folders kept in `cache_dir` (the
/// crate's `OUT_DIR` when `embed_skills!` runs): a rebuild after editing one skill reads,
/// parses and hashes that skill's folder only. The bundle is the one [`load`] returns; the
/// rules across skills run every time. A cache that cannot be read or written is ignored.
pub fn load_cached(
    manifest_dir: &Path,
    roots: &[&str],
    options: &Options,
    cache_dir: &Path,
) -> Bundle {
    let version = cache::version_key();
    load_cached_as(
        manifest_dir,
        roots,
        options,
        cache_dir,
        version,
        cache::SETTLE_TIME,
    )
    .0
}

/// [`load_cached`] under a given cache version and settle time (tests simulate an upgrade,
/// and cache files they have just written).
pub(crate) fn load_cached_as(
    manifest_dir: &Path,
    roots: &[&str],
    options: &Options,
    cache_dir: &Path,
    version: &str,
    settle: std::time::Duration,
) -> (Bundle, CacheStats) {
    let mut cache = Cache::open(cache_dir, manifest_dir, roots, options, version, settle);
    let bundle = load_with(manifest_dir, roots, &[], options, Some(&mut cache));
    (bundle, cache.save())
}

fn load_with(
    manifest_dir: &Path,
    roots: &[&str],
    packs: &[Pack],
    options: &Options,
    mut cache: Option<&mut Cache>,
) -> Bundle {
    let mut bundle = Bundle::default();
    let mut found: Vec<FoundSkill> = Vec::new();
    let sources = Sources::new(manifest_dir, roots, packs);
    bundle.packs = packs.to_vec();
    bundle.packs.sort();
    for (path, shown) in &sources.folders {
        let (skills, diagnostics) = discover::discover(path, shown);
        found.extend(skills);
        bundle.diagnostics.extend(diagnostics);
    }
    bundle.diagnostics.extend(cross_skill::duplicate_names(&found));
    bundle.skills_found = found.len();

    let parse_options = ParseOptions {
        allow_unknown_keys: options.allow_unknown_keys,
        infer_missing_fields: options.infer_missing_fields,
        compat: options.compat,
    };
    // Every lint at its level in the bundle's dialect.
    let lints = options.lints.resolved(options.compat);
    let mut total_size = 0u64;
    let folders = SkillFolders::new(&found);
    for found_skill in &found {
        let walk = resources::walk(found_skill, &folders, &options.ignore);
        let fresh = |walk| load_folder(found_skill, walk, options, &lints, &parse_options);
        let result = match cache.as_deref_mut() {
            // The cache compares the walk of the folder with the last one, and hands it on.
            Some(cache) => cache.folder(found_skill, walk, fresh),
            None => fresh(walk),
        };
        let FolderResult {
            diagnostics,
            size,
            files,
            skill,
        } = result;
        total_size = total_size.saturating_add(size);
        bundle.diagnostics.extend(diagnostics);
        bundle.files.extend(files);
        bundle.skills.extend(skill);
    }
    let shown_roots = sources.shown();
    if total_size > options.max_bundle_size {
        bundle.diagnostics.push(
            Diagnostic::error(
                Code::BundleTooLarge,
                shown_roots.join(", "),
                format!("the bundle embeds {total_size} bytes, over the limit of {} bytes", options.max_bundle_size),
            )
            .with_help("raise the limit with `max_bundle_size = ...`, or leave large files out with `ignore = [...]`"),
        );
    }

    let names: BTreeSet<String> = found.iter().map(|skill| skill.dir_name.clone()).collect();
    for skill in &bundle.skills {
        bundle.diagnostics.extend(cross_skill::references(skill, &names));
        bundle.diagnostics.extend(cross_skill::task_skills(skill, &names));
    }
    bundle
        .skills
        .sort_by(|a, b| a.name.value.cmp(&b.name.value));
    // Two roots may hold the same name; keep one so a consumer never sees duplicates.
    bundle.skills.dedup_by(|a, b| a.name.value == b.name.value);
    bundle
        .diagnostics
        .extend(cross_skill::confusable_names(&bundle.skills));
    if let Some(budget) = options.catalog_budget {
        bundle
            .diagnostics
            .extend(cross_skill::catalog_budget(&bundle.skills, &shown_roots, budget));
    }
    bundle
        .diagnostics
        .extend(lint::lint_bundle(&bundle.skills, &lints));
    bundle.files.sort_by(|a, b| a.path.cmp(&b.path));
    if let Some(lock_path) = &options.lock {
        let own_roots = &shown_roots[..sources.own];
        check_lock(
            &mut bundle,
            manifest_dir,
            lock_path,
            options,
            own_roots,
            packs,
        );
    }
    diagnostic::sort(&mut bundle.diagnostics);
    bundle
}

/// The folder's `SKILL.md` as shown, without `/SKILL.md`.
fn shown_dir(found: &FoundSkill) -> &str {
    found.display_path.trim_end_matches("/SKILL.md")
}

/// Reads, parses, hashes and checks one skill folder (`walk`: what walking it found).
fn load_folder(
    found: &FoundSkill,
    walk: Vec<WalkItem>,
    options: &Options,
    lints: &LintOptions,
    parse_options: &ParseOptions,
) -> FolderResult {
    let mut result = FolderResult::default();
    let bytes = match read_limited(&found.file, options.max_file_size) {
        Ok((bytes, _)) => bytes,
        Err(error) => {
            let diagnostic = read_error(error, &found.display_path, options.max_file_size);
            result.diagnostics.push(diagnostic);
            return result;
        }
    };
    result.size += bytes.len() as u64;
    let (parsed, diagnostics) =
        skill::parse(&found.display_path, &found.dir_name, &bytes, parse_options);
    result.diagnostics.extend(diagnostics);
    let Some(mut skill) = parsed else {
        return result;
    };
    // Most files need no normalization: their bytes are the text already hashed.
    let file_sha256 = if bytes == skill.text.as_bytes() {
        skill.sha256.clone()
    } else {
        digest::sha256_hex(&bytes)
    };
    result.files.push(LockedFile {
        path: found.display_path.clone(),
        sha256: file_sha256,
    });
    skill.file = found.file.clone();
    let shown_dir = shown_dir(found);
    let trigger_file = walk.iter().find_map(|item| match item {
        WalkItem::Triggers { path, real } => Some((path.clone(), real.clone())),
        _ => None,
    });
    if let Some((path, real)) = trigger_file {
        skill.triggers = read_triggers(shown_dir, path, &real, options, &mut result);
    }
    let task_file = walk.iter().find_map(|item| match item {
        WalkItem::Tasks { path, real } => Some((path.clone(), real.clone())),
        _ => None,
    });
    if let Some((path, real)) = task_file {
        let folder = tasks::Folder {
            dir: &found.dir,
            shown: shown_dir,
            name: &skill.name.value,
            max_file_size: options.max_file_size,
        };
        skill.tasks = read_tasks(&folder, path, &real, options, &mut result);
    }
    let (files, diagnostics) = resources::collect(walk, shown_dir, options.max_file_size);
    result.diagnostics.extend(diagnostics);
    result.size += files.iter().map(|(r, _)| r.size).sum::<u64>();
    result.files.extend(files.iter().map(|(r, _)| LockedFile {
        path: format!("{shown_dir}/{}", r.path),
        sha256: r.sha256.clone(),
    }));
    if let Some((_, bytes)) = files
        .iter()
        .find(|(resource, _)| resource.path == openai_yaml::OPENAI_YAML)
    {
        let paths: Vec<&str> = files.iter().map(|(r, _)| r.path.as_str()).collect();
        let shown = format!("{shown_dir}/{}", openai_yaml::OPENAI_YAML);
        let (yaml, diagnostics) = openai_yaml::read(
            &shown,
            bytes,
            &paths,
            &skill.openai_frontmatter(),
            parse_options.compat,
        );
        result.diagnostics.extend(diagnostics);
        if let Some(yaml) = yaml {
            skill.honour_openai(yaml);
        }
    }
    skill.tree_sha256 = tree_hash(&skill, &files);
    skill.resources = files.into_iter().map(|(resource, _)| resource).collect();
    result
        .diagnostics
        .extend(links::check_references(&skill, lints));
    result.diagnostics.extend(lint::lint_skill(&skill, lints));
    result.skill = Some(skill);
    result
}

/// Reads and checks a skill's `evals/triggers.json` (`path` in the folder, `real` its real
/// path), adding its problems and its lock entry to `result`. Its size counts toward
/// `max_bundle_size` only with `embed_evals`, when its cases are compiled in; `max_file_size`
/// applies as to every file.
fn read_triggers(
    shown_dir: &str,
    path: PathBuf,
    real: &Path,
    options: &Options,
    result: &mut FolderResult,
) -> Option<TriggerFile> {
    let shown = format!("{shown_dir}/{TRIGGERS_FILE}");
    let bytes = match read_eval_file(&shown, real, options.max_file_size) {
        Ok(bytes) => bytes,
        Err(diagnostic) => {
            result.diagnostics.push(diagnostic);
            return None;
        }
    };
    if options.embed_evals {
        result.size += bytes.len() as u64;
    }
    let sha256 = digest::sha256_hex(&bytes);
    result.files.push(LockedFile {
        path: shown.clone(),
        sha256: sha256.clone(),
    });
    let (cases, diagnostics) = triggers::parse(&shown, &bytes);
    result.diagnostics.extend(diagnostics);
    Some(TriggerFile {
        path: shown,
        file: path,
        sha256,
        cases,
    })
}

/// The bytes of an eval file (`evals/triggers.json`, `evals/evals.json`, shown as `shown`, at
/// `real`), or the error: too large, a folder, a FIFO or device, unreadable.
fn read_eval_file(shown: &str, real: &Path, limit: u64) -> Result<Vec<u8>, Diagnostic> {
    match read_limited(real, limit) {
        Ok((bytes, _)) => Ok(bytes),
        Err(ReadError::TooLarge(size)) => Err(Diagnostic::error(
            Code::FileTooLarge,
            shown,
            format!("`{shown}` is {size} bytes, over the per-file limit of {limit} bytes"),
        )
        .with_help("fewer cases, or raise the limit with `max_file_size = ...`")),
        Err(ReadError::NotFile(kind @ (Kind::Dir | Kind::Other))) => Err(Diagnostic::error(
            Code::Unreadable,
            shown,
            format!("cannot read `{shown}`: it is {kind}"),
        )),
        Err(ReadError::NotFile(kind)) => Err(files::special_file(shown, kind)),
        Err(ReadError::Io(error)) => Err(Diagnostic::error(
            Code::Unreadable,
            shown,
            format!("cannot read `{shown}`: {error}"),
        )),
    }
}

/// Reads and checks a skill's `evals/evals.json` and the files its cases copy (`path` in the
/// folder, `real` its real path), adding their problems and lock entries to `result`: a changed
/// case or fixture is a reviewed change. Their sizes count toward `max_bundle_size` only with
/// `embed_evals`, when they are compiled in.
fn read_tasks(
    folder: &tasks::Folder<'_>,
    path: PathBuf,
    real: &Path,
    options: &Options,
    result: &mut FolderResult,
) -> Option<TaskFile> {
    let shown = format!("{}/{TASKS_FILE}", folder.shown);
    let bytes = match read_eval_file(&shown, real, options.max_file_size) {
        Ok(bytes) => bytes,
        Err(diagnostic) => {
            result.diagnostics.push(diagnostic);
            return None;
        }
    };
    let sha256 = digest::sha256_hex(&bytes);
    result.files.push(LockedFile {
        path: shown.clone(),
        sha256: sha256.clone(),
    });
    let (cases, fixtures, skill_refs, diagnostics) = tasks::parse(&shown, &bytes, folder);
    result.diagnostics.extend(diagnostics);
    if options.embed_evals {
        result.size += bytes.len() as u64 + fixtures.iter().map(|f| f.size).sum::<u64>();
    }
    result
        .files
        .extend(fixtures.iter().map(|fixture| LockedFile {
            path: fixture.path.clone(),
            sha256: fixture.sha256.clone(),
        }));
    Some(TaskFile {
        path: shown,
        file: path,
        sha256,
        cases,
        fixtures,
        skill_refs,
    })
}

/// The skill in folder `name` of `root` (resolved against `manifest_dir`), read and parsed
/// alone, as `embed_skills!` would read it: the check behind `skill_name!`, which must not read
/// the whole bundle. Only the folder names of `root` are listed, for the closest name when
/// `name` is not there. The skill's resources and the rules across skills are not looked at.
pub fn load_one(
    manifest_dir: &Path,
    root: &str,
    name: &str,
    options: &Options,
) -> Result<SkillDef, Vec<Diagnostic>> {
    load_one_in(
        &manifest_dir.join(root),
        &discover::display_root(root),
        name,
        options,
    )
}

/// [`load_one`] looking in `root`, then in each of `packs`: the skill may come from a pack the
/// crate embeds. When no folder has it, the errors are those of `root`.
pub fn load_one_with_packs(
    manifest_dir: &Path,
    root: &str,
    packs: &[Pack],
    name: &str,
    options: &Options,
) -> Result<SkillDef, Vec<Diagnostic>> {
    let own = load_one(manifest_dir, root, name, options);
    let missing = |result: &Result<SkillDef, Vec<Diagnostic>>| matches!(result, Err(errors) if errors.iter().all(|e| e.code() == Code::UnknownSkill));
    if !missing(&own) {
        return own;
    }
    packs
        .iter()
        .map(|pack| load_one_in(&pack.skills_dir(), &pack.shown_root(), name, options))
        .find(|found| !missing(found))
        .unwrap_or(own)
}

/// [`load_one`] in the folder `root_path`, shown as `shown_root`.
fn load_one_in(
    root_path: &Path,
    shown_root: &str,
    name: &str,
    options: &Options,
) -> Result<SkillDef, Vec<Diagnostic>> {
    let shown = format!("{shown_root}/{name}/SKILL.md");
    let plain = !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\']);
    let file = root_path.join(name).join("SKILL.md");
    if !plain || !file.is_file() {
        let mut skills: Vec<String> = std::fs::read_dir(root_path)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter(|entry| entry.path().join("SKILL.md").is_file())
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|folder| !folder.starts_with('.'))
            .collect();
        skills.sort();
        let mut diagnostic = Diagnostic::error(
            Code::UnknownSkill,
            &shown,
            format!("`{shown_root}` has no skill `{name}`"),
        );
        let names: Vec<&str> = skills.iter().map(String::as_str).collect();
        let what = format!("skills in `{shown_root}`");
        if !root_path.is_dir() {
            diagnostic = diagnostic.with_help(format!("`{shown_root}` is not a folder"));
        } else if let Some(help) = crate::render::suggestion(name, &names, &what) {
            diagnostic = diagnostic.with_help(help);
        } else {
            diagnostic = diagnostic.with_help(format!("`{shown_root}` holds no skill"));
        }
        return Err(vec![diagnostic]);
    }
    let bytes = match read_limited(&file, options.max_file_size) {
        Ok((bytes, _)) => bytes,
        Err(error) => return Err(vec![read_error(error, &shown, options.max_file_size)]),
    };
    let parse_options = ParseOptions {
        allow_unknown_keys: options.allow_unknown_keys,
        infer_missing_fields: options.infer_missing_fields,
        compat: options.compat,
    };
    let (parsed, diagnostics) = skill::parse(&shown, name, &bytes, &parse_options);
    match parsed {
        Some(mut skill) if !diagnostics.iter().any(Diagnostic::is_error) => {
            skill.file = file;
            Ok(skill)
        }
        _ => Err(diagnostics
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect()),
    }
}

/// Reads the lock and compares it with the files the bundle embeds.
fn check_lock(
    bundle: &mut Bundle,
    manifest_dir: &Path,
    lock_path: &str,
    options: &Options,
    shown_roots: &[String],
    packs: &[Pack],
) {
    let file = manifest_dir.join(lock_path);
    let shown = lock_path.replace('\\', "/");
    let read = lock::read(&file);
    match read {
        Ok(bytes) => {
            bundle.lock_digest = Some(digest::sha256_hex(&bytes));
            let text = String::from_utf8_lossy(&bytes);
            let found = lock::check(&text, &shown, &bundle.files, options, shown_roots, packs);
            bundle.diagnostics.extend(found);
            bundle.lock_file = Some(file);
        }
        Err(error) => bundle.diagnostics.push(
            Diagnostic::error(
                Code::LockMissing,
                &shown,
                format!("cannot read the lock `{shown}`: {error}"),
            )
            .with_help(format!(
                "review the skills, then write the lock with `{}`",
                lock::update_command(shown_roots, &shown, options, packs)
            )),
        ),
    }
}

/// SHA-256 over `SKILL.md` and every resource (sorted by path, with their bytes), each framed
/// by path and length so no two trees hash alike. With no resources it is the hash of
/// `SKILL.md` alone.
fn tree_hash(skill: &SkillDef, resources: &[(ResourceDef, Vec<u8>)]) -> String {
    if resources.is_empty() {
        return skill.sha256.clone();
    }
    let mut hasher = Sha256::new();
    hasher.update(skill.text.as_bytes());
    for (resource, bytes) in resources {
        hasher.update([0]);
        hasher.update(resource.path.as_bytes());
        hasher.update([0]);
        hasher.update(resource.size.to_le_bytes());
        hasher.update(bytes);
    }
    hex(&hasher.finalize())
}

/// The diagnostic for a `SKILL.md` that could not be read.
fn read_error(error: ReadError, path: &str, limit: u64) -> Diagnostic {
    match error {
        ReadError::TooLarge(size) => Diagnostic::error(Code::FileTooLarge, path, format!("SKILL.md is {size} bytes, over the limit of {limit} bytes"))
            .with_help("move long reference material into files beside SKILL.md, or raise the limit with `max_file_size = ...`"),
        ReadError::NotFile(kind @ (Kind::Dir | Kind::Other)) => Diagnostic::error(Code::SkillMdNotFile, path, format!("SKILL.md is {kind}, not a file")),
        ReadError::NotFile(kind) => files::special_file(path, kind),
        ReadError::Io(error) => Diagnostic::error(Code::Unreadable, path, format!("cannot read SKILL.md: {error}")),
    }
}

/// The error for a skill pack named by the `packs` option that is not among the crate's
/// dependencies (`message` says which and how it was looked for).
pub fn unknown_pack(message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Code::UnknownPack, "Cargo.toml", message)
        .with_help("a pack is a crate in [dependencies] whose build script calls `skills_runtime::build::pack()`")
}
