//! The build cache of `embed_skills!`: each skill folder's per-file result (the parsed skill, its
//! diagnostics with their positions, the SHA-256 of every file), kept in the consuming crate's
//! `OUT_DIR`, so a rebuild after editing one skill reads, parses and hashes that skill only.
//!
//! An entry is used only when everything it was computed from is unchanged:
//!
//! - the cache file's header: the version of this crate, a hash of its source (so any change
//!   to the rules or to this format invalidates it), the manifest directory, the roots, and the
//!   options that change per-file results;
//! - the folder's fingerprint: the discovered paths, the `stat` of `SKILL.md` and of every file
//!   a walk of the folder finds (size, modification and change times, inode, mode), and the
//!   walk's own problems (broken symlinks, ...).
//!
//! A file changed less than [`SETTLE_TIME`] before the build is not cached ("racy", as git and
//! make call it): a second edit within the same timestamp tick and with the same size would
//! otherwise look unchanged. The rules across skills (duplicates, `requires`, similar
//! descriptions, the catalog budget, the lock) run on the cached results on every build.
//!
//! The cache can never fail a build: a missing, unreadable, truncated, corrupt or foreign file
//! is ignored (and rewritten), and it is written to a temporary file renamed into place, so
//! concurrent builds never see half of one.

use std::collections::HashMap;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::claude_code::{Effort, Shell, SkillContext};
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::discover::FoundSkill;
use crate::lock::LockedFile;
use crate::openai_yaml::OpenAiYaml;
use crate::options::Options;
use crate::resources::{ResourceDef, WalkItem};
use crate::shell_commands::ShellCommand;
use crate::skill::{ClaudeCodeFields, SkillDef};
use crate::spanned::Spanned;
use crate::tasks::{FixtureFile, TaskCase, TaskFile};
use crate::triggers::{TriggerCase, TriggerFile};

/// Everything the per-folder stage finds for one `SKILL.md` and the files beside it, before
/// the rules across skills: what the build cache keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FolderResult {
    /// The problems of the folder's files, in the order the rules found them.
    pub diagnostics: Vec<Diagnostic>,
    /// Bytes embedded from the folder, for `max_bundle_size`.
    pub size: u64,
    /// The lock entries of the folder's files: `SKILL.md` first, then the trigger file and the
    /// resources.
    pub files: Vec<LockedFile>,
    /// The skill, when every per-file rule passed.
    pub skill: Option<SkillDef>,
}

/// A file whose last change is more recent than this, when the build starts, is not cached:
/// longer than the coarsest common timestamp granularity (2 s on FAT) plus the lag of the
/// kernel's coarse clock.
pub(crate) const SETTLE_TIME: Duration = Duration::from_secs(3);

/// First bytes of every cache file.
const MAGIC: &[u8] = b"skills-core build cache\n";

/// The code that computes and encodes per-file results: any change to it changes the key.
const SOURCES: &[&str] = &[
    include_str!("../Cargo.toml"),
    include_str!("allowed_tools.rs"),
    include_str!("bundle.rs"),
    include_str!("cache.rs"),
    include_str!("cross_skill.rs"),
    include_str!("claude_code.rs"),
    include_str!("diagnostic.rs"),
    include_str!("digest.rs"),
    include_str!("discover.rs"),
    include_str!("files.rs"),
    include_str!("hosted.rs"),
    include_str!("index.rs"),
    include_str!("layout.rs"),
    include_str!("lib.rs"),
    include_str!("links.rs"),
    include_str!("lint.rs"),
    include_str!("lint_table.rs"),
    include_str!("lock.rs"),
    include_str!("mcp.rs"),
    include_str!("openai_yaml.rs"),
    include_str!("options.rs"),
    include_str!("pack.rs"),
    include_str!("portable.rs"),
    include_str!("render.rs"),
    include_str!("resources.rs"),
    include_str!("shell_commands.rs"),
    include_str!("skill.rs"),
    include_str!("spanned.rs"),
    include_str!("tables.rs"),
    include_str!("tasks.rs"),
    include_str!("tasks/read.rs"),
    include_str!("text.rs"),
    include_str!("tracking.rs"),
    include_str!("triggers.rs"),
    include_str!("visible.rs"),
    include_str!("wildcard.rs"),
    include_str!("yaml.rs"),
];

/// This build of `skills-core`: its version, a hash of its source and the Unicode version of
/// the name normalization. A cache written by any other build (an upgrade, a local edit of the
/// rules, a newer Unicode table) is ignored. The YAML and JSON parsers' versions are not part of
/// it (they expose none): after updating only those dependencies in `Cargo.lock`, `cargo clean`
/// the crate to drop verdicts parsed by the old ones.
pub(crate) fn version_key() -> &'static str {
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut hash = 0u64;
        for source in SOURCES {
            hash = checksum(hash, source.as_bytes());
        }
        let (major, minor, patch) = unicode_normalization::UNICODE_VERSION;
        format!(
            "{} {hash:016x} unicode {major}.{minor}.{patch}",
            env!("CARGO_PKG_VERSION")
        )
    })
}

/// FNV-1a over 8-byte words, seeded: fast even in an unoptimized proc macro, and enough to tell
/// a corrupt cache file or a changed source apart (not a defence against an attacker, who could
/// write the cache's content directly).
fn checksum(seed: u64, bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = seed ^ 0xcbf2_9ce4_8422_2325 ^ bytes.len() as u64;
    // A slice pattern, not `chunks_exact` or indexing: at opt-level 0 (how proc macros are
    // built by default) those cost tens of instructions a byte, this a few.
    let mut rest = bytes;
    while let [a, b, c, d, e, f, g, h, tail @ ..] = rest {
        let word = u64::from_le_bytes([*a, *b, *c, *d, *e, *f, *g, *h]);
        hash = (hash ^ word).wrapping_mul(PRIME);
        rest = tail;
    }
    for &byte in rest {
        hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
    }
    hash ^ (hash >> 29)
}

/// What one build did with the cache (for tests and measurements).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CacheStats {
    /// Folders whose result came from the cache.
    pub hits: usize,
    /// Folders computed afresh.
    pub misses: usize,
    /// Entries in the cache after the build.
    pub stored: usize,
    /// Whether the cache file was (re)written.
    pub written: bool,
}

/// One cached folder, still encoded.
struct Entry {
    fingerprint: Vec<u8>,
    result: Vec<u8>,
}

/// The cache of one `embed_skills!` invocation (one set of roots and options) in a directory.
pub(crate) struct Cache {
    file: PathBuf,
    header: Vec<u8>,
    /// Entries of the file on disk not used yet by this build.
    loaded: HashMap<String, Entry>,
    loaded_count: usize,
    /// Whether a file was there that could not be used.
    unusable_file: bool,
    /// This build's entries, in discovery order.
    kept: Vec<(String, Entry)>,
    /// Whether `kept` holds an entry the file does not.
    changed: bool,
    /// Changes after this are too recent to cache.
    settled_before: i128,
    stats: CacheStats,
}

impl Cache {
    /// Opens the cache in `dir` for these roots and options (an empty one if there is none
    /// usable). `version` is [`version_key`] and `settle` [`SETTLE_TIME`], except in tests.
    pub(crate) fn open(
        dir: &Path,
        manifest_dir: &Path,
        roots: &[&str],
        options: &Options,
        version: &str,
        settle: Duration,
    ) -> Cache {
        let mut context = Writer::default();
        context.path(manifest_dir);
        context.usize(roots.len());
        for root in roots {
            context.str(root);
        }
        context.str(&per_file_options(options));
        let context = context.finish().unwrap_or_default();
        // One file per invocation, whatever the version: an upgrade replaces it.
        let name = format!("skills-cache-{:016x}.bin", checksum(0, &context));
        let mut header = Writer::default();
        header.str(version);
        header.bytes(&context);
        let header = header.finish().unwrap_or_default();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let mut cache = Cache {
            file: dir.join(name),
            header,
            loaded: HashMap::new(),
            loaded_count: 0,
            unusable_file: false,
            kept: Vec::new(),
            changed: false,
            settled_before: nanos(now.saturating_sub(settle)),
            stats: CacheStats::default(),
        };
        if let Ok(bytes) = fs::read(&cache.file) {
            match cache.decode_file(&bytes) {
                Some(entries) => {
                    cache.loaded_count = entries.len();
                    cache.loaded = entries.into_iter().collect();
                }
                None => cache.unusable_file = true,
            }
        }
        cache
    }

    /// The entries of a cache file, or `None` if it is not a complete cache for this header.
    fn decode_file(&self, bytes: &[u8]) -> Option<Vec<(String, Entry)>> {
        let body = bytes.strip_prefix(MAGIC)?;
        let split = body.len().checked_sub(8)?;
        let (payload, sum) = body.split_at(split);
        if checksum(0, payload).to_le_bytes() != sum {
            return None;
        }
        let mut reader = Reader::new(payload);
        if reader.bytes()? != self.header.as_slice() {
            return None;
        }
        let count = reader.usize()?;
        let mut entries = Vec::new();
        for _ in 0..count {
            let key = reader.str()?;
            let fingerprint = reader.bytes()?.to_vec();
            let result = reader.bytes()?.to_vec();
            entries.push((
                key,
                Entry {
                    fingerprint,
                    result,
                },
            ));
        }
        reader.at_end().then_some(entries)
    }

    /// The result for one discovered skill: from the cache when its folder is unchanged,
    /// otherwise from `fresh` (handed the walk already made), which is then cached.
    pub(crate) fn folder(
        &mut self,
        found: &FoundSkill,
        walk: Vec<WalkItem>,
        fresh: impl FnOnce(Vec<WalkItem>) -> FolderResult,
    ) -> FolderResult {
        let fingerprint = fingerprint(found, &walk, self.settled_before);
        let key = &found.display_path;
        if let Some(fingerprint) = &fingerprint
            && let Some(entry) = self.loaded.remove(key)
            && entry.fingerprint == *fingerprint
            && let Some(result) = decode_result(&entry.result)
        {
            self.stats.hits += 1;
            self.kept.push((key.clone(), entry));
            return result;
        }
        self.stats.misses += 1;
        let result = fresh(walk);
        if let Some(fingerprint) = fingerprint
            && let Some(encoded) = encode_result(&result)
        {
            self.changed = true;
            self.kept.push((
                key.clone(),
                Entry {
                    fingerprint,
                    result: encoded,
                },
            ));
        }
        result
    }

    /// Writes the cache back if this build changed it; never fails (a cache that cannot be
    /// written is simply not there next time).
    pub(crate) fn save(mut self) -> CacheStats {
        self.stats.stored = self.kept.len();
        let same = !self.changed && self.kept.len() == self.loaded_count && !self.unusable_file;
        if same {
            return self.stats;
        }
        let mut payload = Writer::default();
        payload.bytes(&self.header);
        payload.usize(self.kept.len());
        for (key, entry) in &self.kept {
            payload.str(key);
            payload.bytes(&entry.fingerprint);
            payload.bytes(&entry.result);
        }
        let Some(payload) = payload.finish() else {
            return self.stats;
        };
        let mut bytes = Vec::with_capacity(MAGIC.len() + payload.len() + 8);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&payload);
        bytes.extend_from_slice(&checksum(0, &payload).to_le_bytes());
        self.stats.written = write_atomically(&self.file, &bytes);
        self.stats
    }
}

/// Writes `bytes` to a temporary file beside `file` and renames it into place.
fn write_atomically(file: &Path, bytes: &[u8]) -> bool {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut temporary = file.as_os_str().to_owned();
    temporary.push(format!(".{}.{unique}.tmp", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let written = fs::write(&temporary, bytes).is_ok() && fs::rename(&temporary, file).is_ok();
    if !written {
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// The options that change what the per-file stage finds. Every field is named, so a new
/// option must be sorted in or out here.
fn per_file_options(options: &Options) -> String {
    let Options {
        max_file_size,
        max_bundle_size: _,
        allow_unknown_keys,
        infer_missing_fields,
        ignore,
        compat,
        embed_evals,
        catalog_budget: _,
        lints,
        lock: _,
        packs: _,
    } = options;
    // `embed_evals`: a folder's size counts its trigger file only when the cases are embedded.
    format!(
        "{max_file_size:?} {allow_unknown_keys:?} {infer_missing_fields:?} {ignore:?} {compat:?} {embed_evals:?} {lints:?}"
    )
}

/// Nanoseconds since the epoch.
fn nanos(since_epoch: Duration) -> i128 {
    since_epoch.as_nanos() as i128
}

/// What a folder's result depends on, or `None` when a file is too recent to trust its
/// timestamps, cannot be examined, or has a path the format does not hold.
fn fingerprint(found: &FoundSkill, walk: &[WalkItem], settled_before: i128) -> Option<Vec<u8>> {
    let FoundSkill {
        dir_name,
        file,
        display_path,
        dir,
        real_dir,
        real_root,
    } = found;
    let mut out = Writer::default();
    out.str(dir_name);
    out.path(file);
    out.str(display_path);
    out.path(dir);
    out.path(real_dir);
    out.path(real_root);
    stat(&mut out, file, settled_before)?;
    out.usize(walk.len());
    for item in walk {
        match item {
            WalkItem::File {
                relative,
                path,
                real,
            } => {
                out.u8(0);
                out.str(relative);
                out.path(path);
                out.path(real);
                stat(&mut out, real, settled_before)?;
            }
            WalkItem::Problem(diagnostic) => {
                out.u8(1);
                diagnostic.encode(&mut out);
            }
            WalkItem::Triggers { path, real } => {
                out.u8(2);
                out.path(path);
                out.path(real);
                stat(&mut out, real, settled_before)?;
            }
            WalkItem::Tasks { path, real } => {
                out.u8(3);
                out.path(path);
                out.path(real);
                stat(&mut out, real, settled_before)?;
                // The files its cases copy are named inside it, not found by the walk; they all
                // lie in the `evals/` folder, so every file there counts.
                evals_folder(&mut out, path.parent()?, settled_before)?;
            }
        }
    }
    out.finish()
}

/// Appends the name and `stat` of everything under the `evals/` folder `dir` (links followed,
/// as the task files are read), in name order; `None` past 16 folders deep or 10,000 entries,
/// or when one cannot be examined: then the folder is not cached.
fn evals_folder(out: &mut Writer, dir: &Path, settled_before: i128) -> Option<()> {
    let mut pending = vec![(dir.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((folder, depth)) = pending.pop() {
        let mut entries: Vec<_> = fs::read_dir(&folder).ok()?.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        out.path(&folder);
        out.usize(entries.len());
        for entry in entries {
            seen += 1;
            if seen > 10_000 {
                return None;
            }
            let path = entry.path();
            out.path(&path);
            if fs::metadata(&path).ok()?.is_dir() {
                if depth >= 16 {
                    return None;
                }
                pending.push((path, depth + 1));
            } else {
                stat(out, &path, settled_before)?;
            }
        }
    }
    Some(())
}

/// Appends what `stat` says of `file`; `None` if it changed too recently or cannot be read.
#[cfg(unix)]
fn stat(out: &mut Writer, file: &Path, settled_before: i128) -> Option<()> {
    use std::os::unix::fs::MetadataExt;
    let metadata = fs::metadata(file).ok()?;
    let time = |secs: i64, nsecs: i64| i128::from(secs) * 1_000_000_000 + i128::from(nsecs);
    let modified = time(metadata.mtime(), metadata.mtime_nsec());
    let changed = time(metadata.ctime(), metadata.ctime_nsec());
    if modified.max(changed) >= settled_before {
        return None;
    }
    for value in [
        metadata.len(),
        metadata.ino(),
        metadata.dev(),
        u64::from(metadata.mode()),
    ] {
        out.u64(value);
    }
    out.bytes(&modified.to_le_bytes());
    out.bytes(&changed.to_le_bytes());
    Some(())
}

/// Appends what `stat` says of `file`; `None` if it changed too recently or cannot be read.
#[cfg(not(unix))]
fn stat(out: &mut Writer, file: &Path, settled_before: i128) -> Option<()> {
    let metadata = fs::metadata(file).ok()?;
    let modified = nanos(metadata.modified().ok()?.duration_since(UNIX_EPOCH).ok()?);
    if modified >= settled_before {
        return None;
    }
    out.u64(metadata.len());
    out.bool(metadata.permissions().readonly());
    out.bytes(&modified.to_le_bytes());
    Some(())
}

/// Encodes a folder's result; `None` if a path is not UTF-8.
pub(crate) fn encode_result(result: &FolderResult) -> Option<Vec<u8>> {
    let mut out = Writer::default();
    result.encode(&mut out);
    out.finish()
}

/// Decodes what [`encode_result`] wrote; `None` on anything else.
pub(crate) fn decode_result(bytes: &[u8]) -> Option<FolderResult> {
    let mut reader = Reader::new(bytes);
    let result = FolderResult::decode(&mut reader)?;
    reader.at_end().then_some(result)
}

/// Appends little-endian integers and length-prefixed bytes.
#[derive(Default)]
pub(crate) struct Writer {
    bytes: Vec<u8>,
    /// A path was not UTF-8: the output must not be used.
    failed: bool,
}

impl Writer {
    fn finish(self) -> Option<Vec<u8>> {
        (!self.failed).then_some(self.bytes)
    }

    fn u8(&mut self, value: u8) {
        self.bytes.push(value);
    }

    fn u64(&mut self, value: u64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    fn usize(&mut self, value: usize) {
        self.u64(value as u64);
    }

    fn bool(&mut self, value: bool) {
        self.u8(u8::from(value));
    }

    fn bytes(&mut self, value: &[u8]) {
        self.usize(value.len());
        self.bytes.extend_from_slice(value);
    }

    fn str(&mut self, value: &str) {
        self.bytes(value.as_bytes());
    }

    fn path(&mut self, value: &Path) {
        match value.to_str() {
            Some(text) => self.str(text),
            None => self.failed = true,
        }
    }

    fn option<T>(&mut self, value: &Option<T>, write: impl FnOnce(&mut Self, &T)) {
        match value {
            None => self.u8(0),
            Some(value) => {
                self.u8(1);
                write(self, value);
            }
        }
    }

    fn list<T>(&mut self, values: &[T], mut write: impl FnMut(&mut Self, &T)) {
        self.usize(values.len());
        for value in values {
            write(self, value);
        }
    }
}

/// Reads what [`Writer`] wrote; every method returns `None` past the end or on a bad value.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, position: 0 }
    }

    fn at_end(&self) -> bool {
        self.position == self.bytes.len()
    }

    fn take(&mut self, count: usize) -> Option<&'a [u8]> {
        let end = self.position.checked_add(count)?;
        let taken = self.bytes.get(self.position..end)?;
        self.position = end;
        Some(taken)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u64(&mut self) -> Option<u64> {
        let mut value = [0u8; 8];
        value.copy_from_slice(self.take(8)?);
        Some(u64::from_le_bytes(value))
    }

    fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    fn bool(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let count = self.usize()?;
        self.take(count)
    }

    fn str(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }

    fn path(&mut self) -> Option<PathBuf> {
        self.str().map(PathBuf::from)
    }

    fn option<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => read(self).map(Some),
            _ => None,
        }
    }

    fn list<T>(&mut self, mut read: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let count = self.usize()?;
        // Every element takes at least one byte: a corrupt count cannot reserve more elements
        // than bytes remain, nor more bytes than their size in memory.
        let remaining = self.bytes.len() - self.position;
        let mut values = Vec::with_capacity(count.min(remaining / std::mem::size_of::<T>().max(1)));
        for _ in 0..count {
            values.push(read(self)?);
        }
        Some(values)
    }
}

/// The encoding of a type in the cache. Structs implement it through [`record!`], which names
/// every field once.
trait Encode: Sized {
    /// For a struct, its fields in the order they are written.
    #[cfg(test)]
    const FIELDS: &'static [&'static str] = &[];
    fn encode(&self, out: &mut Writer);
    fn decode(input: &mut Reader<'_>) -> Option<Self>;
    /// Records the encoding of every field of every struct in `self`, for the test that the
    /// test folders give each field more than one value.
    #[cfg(test)]
    fn visit(&self, _fields: &mut FieldValues) {}
}

/// The encodings each field (`(struct, field)`) was seen with.
#[cfg(test)]
type FieldValues =
    std::collections::BTreeMap<(&'static str, &'static str), std::collections::BTreeSet<Vec<u8>>>;

/// Implements [`Encode`] for a struct from one list of its fields, in the order they are
/// written: the encoding and the decoding follow the same list, so they cannot disagree on
/// the order. The encoding destructures the struct without `..` and the decoding builds it with
/// a struct literal, so a field added to the struct and not to the list is a compile error.
///
/// `field as Codec` writes a field with [`Codec`] `Codec` instead of its type's [`Encode`];
/// `check f` ends the list with a validation of the decoded value (`f(&value)` must hold).
macro_rules! record {
    ($type:ident { $($field:ident $(as $codec:ty)?),* $(,)? } $(check $check:path)?) => {
        impl Encode for $type {
            #[cfg(test)]
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];

            fn encode(&self, out: &mut Writer) {
                let $type { $($field),* } = self;
                $(record!(@encode out, $field $(as $codec)?);)*
            }

            fn decode(input: &mut Reader<'_>) -> Option<Self> {
                let value = $type { $($field: record!(@decode input $(as $codec)?),)* };
                $(if !$check(&value) {
                    return None;
                })?
                Some(value)
            }

            #[cfg(test)]
            fn visit(&self, fields: &mut FieldValues) {
                let $type { $($field),* } = self;
                $(
                    let mut out = Writer::default();
                    record!(@encode &mut out, $field $(as $codec)?);
                    fields
                        .entry((stringify!($type), stringify!($field)))
                        .or_default()
                        .insert(out.bytes);
                    record!(@visit fields, $field $(as $codec)?);
                )*
            }
        }
    };
    (@encode $out:expr, $field:ident) => { Encode::encode($field, $out) };
    (@encode $out:expr, $field:ident as $codec:ty) => { <$codec>::encode($field, $out) };
    (@decode $input:ident) => { Encode::decode($input)? };
    (@decode $input:ident as $codec:ty) => { <$codec>::decode($input)? };
    (@visit $fields:ident, $field:ident) => { Encode::visit($field, $fields) };
    // A field with its own codec holds no struct of the cache.
    (@visit $fields:ident, $field:ident as $codec:ty) => {};
}

/// A way to write a field other than its type's [`Encode`].
trait Codec<T> {
    fn encode(value: &T, out: &mut Writer);
    fn decode(input: &mut Reader<'_>) -> Option<T>;
}

impl Encode for String {
    fn encode(&self, out: &mut Writer) {
        out.str(self);
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        input.str()
    }
}

impl Encode for bool {
    fn encode(&self, out: &mut Writer) {
        out.bool(*self);
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        input.bool()
    }
}

impl Encode for u64 {
    fn encode(&self, out: &mut Writer) {
        out.u64(*self);
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        input.u64()
    }
}

impl Encode for usize {
    fn encode(&self, out: &mut Writer) {
        out.usize(*self);
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        input.usize()
    }
}

impl Encode for PathBuf {
    fn encode(&self, out: &mut Writer) {
        out.path(self);
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        input.path()
    }
}

impl Encode for Range<usize> {
    fn encode(&self, out: &mut Writer) {
        out.usize(self.start);
        out.usize(self.end);
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        Some(input.usize()?..input.usize()?)
    }
}

impl<A: Encode, B: Encode> Encode for (A, B) {
    fn encode(&self, out: &mut Writer) {
        self.0.encode(out);
        self.1.encode(out);
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        Some((A::decode(input)?, B::decode(input)?))
    }
    #[cfg(test)]
    fn visit(&self, fields: &mut FieldValues) {
        self.0.visit(fields);
        self.1.visit(fields);
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut Writer) {
        out.option(self, |out, value| value.encode(out));
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        input.option(T::decode)
    }
    #[cfg(test)]
    fn visit(&self, fields: &mut FieldValues) {
        if let Some(value) = self {
            value.visit(fields);
        }
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, out: &mut Writer) {
        out.list(self, |out, value| value.encode(out));
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        input.list(T::decode)
    }
    #[cfg(test)]
    fn visit(&self, fields: &mut FieldValues) {
        for value in self {
            value.visit(fields);
        }
    }
}

/// The closed sets of values, written as their names.
macro_rules! encode_by_name {
    ($($type:ty),*) => {$(
        impl Encode for $type {
            fn encode(&self, out: &mut Writer) {
                out.str(self.as_str());
            }
            fn decode(input: &mut Reader<'_>) -> Option<Self> {
                let name = input.str()?;
                <$type>::ALL.iter().copied().find(|value| value.as_str() == name)
            }
        }
    )*};
}

encode_by_name!(Code, Effort, SkillContext, Shell);

impl Encode for Severity {
    fn encode(&self, out: &mut Writer) {
        // Exhaustive, so a new severity does not compile until it has its own encoding.
        out.bool(match self {
            Severity::Error => true,
            Severity::Warning => false,
        });
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        Some(if input.bool()? {
            Severity::Error
        } else {
            Severity::Warning
        })
    }
}

impl<T: Encode> Encode for Spanned<T> {
    // Generic, so written out rather than through `record!`.
    #[cfg(test)]
    const FIELDS: &'static [&'static str] = &["value", "line", "column"];
    fn encode(&self, out: &mut Writer) {
        let Spanned {
            value,
            line,
            column,
        } = self;
        value.encode(out);
        out.usize(*line);
        out.usize(*column);
    }
    fn decode(input: &mut Reader<'_>) -> Option<Self> {
        Some(Spanned {
            value: T::decode(input)?,
            line: input.usize()?,
            column: input.usize()?,
        })
    }
    #[cfg(test)]
    fn visit(&self, fields: &mut FieldValues) {
        self.value.visit(fields);
    }
}

/// A line or column of a diagnostic: counted from 1, so a 0 is a damaged entry (it would
/// underflow later).
struct LineNumber;

impl Codec<Option<u32>> for LineNumber {
    fn encode(value: &Option<u32>, out: &mut Writer) {
        out.option(value, |out, value| out.u64(u64::from(*value)));
    }
    fn decode(input: &mut Reader<'_>) -> Option<Option<u32>> {
        input.option(|input| u32::try_from(input.u64()?).ok().filter(|&n| n != 0))
    }
}

record!(Diagnostic {
    severity,
    code,
    path,
    line as LineNumber,
    column as LineNumber,
    message,
    help,
    source_line,
});

record!(OpenAiYaml { pairs });

record!(LockedFile { path, sha256 });

record!(ResourceDef {
    path,
    file,
    size,
    is_text,
    executable,
    sha256,
});

record!(TriggerCase {
    query,
    should_trigger,
});

record!(TriggerFile {
    path,
    file,
    sha256,
    cases,
});

record!(FixtureFile {
    path,
    file,
    sha256,
    size,
    executable,
});

/// A skill's task cases, in the form a bundle embeds them: one codec for both.
struct TaskCases;

impl Codec<Vec<TaskCase>> for TaskCases {
    fn encode(value: &Vec<TaskCase>, out: &mut Writer) {
        // The embedded form counts each skill's fixture files to number them across a bundle;
        // one skill's cases read alone need no count (the fixtures are a field of their own).
        out.bytes(&crate::tasks::encode([(&value[..], 0)]));
    }
    fn decode(input: &mut Reader<'_>) -> Option<Vec<TaskCase>> {
        Some(crate::tasks::decode(input.bytes()?, 1).pop()?.cases)
    }
}

record!(TaskFile {
    path,
    file,
    sha256,
    cases as TaskCases,
    fixtures,
    skill_refs,
});

record!(ShellCommand {
    range,
    command,
    block,
});

record!(ClaudeCodeFields {
    display_name,
    when_to_use,
    argument_hint,
    arguments,
    model_invocable,
    user_invocable,
    disallowed_tools,
    model,
    effort,
    context,
    agent,
    hooks,
    paths,
    shell,
    shell_commands,
    background,
    default_enabled,
    fallback,
    boolean_words,
});

record!(SkillDef {
    path,
    file,
    text,
    body,
    body_line,
    sha256,
    name,
    description,
    license,
    compatibility,
    metadata,
    allowed_tools,
    version,
    tags,
    when_not_to_use,
    requires,
    conflicts_with,
    claude_code,
    keys,
    resources,
    triggers,
    tasks,
    tree_sha256,
    frontmatter_json,
    openai,
} check ranges_slice_the_text);

/// `SkillDef::body` slices `text` with `body`, and the commands' ranges slice the body: a
/// damaged range must not get through.
fn ranges_slice_the_text(skill: &SkillDef) -> bool {
    skill.text.get(skill.body.clone()).is_some()
        && skill
            .claude_code
            .shell_commands
            .iter()
            .all(|c| skill.body().get(c.range.clone()).is_some())
}

record!(FolderResult {
    diagnostics,
    size,
    files,
    skill,
});

#[cfg(test)]
mod tests;
