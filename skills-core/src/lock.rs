//! The lockfile of reviewed skills: `embed_skills!(..., lock = "skills.lock")` compiles only
//! files whose SHA-256 the lock lists, and `skills lock` writes it.
//!
//! The format is what `sha256sum` prints, so `sha256sum -c skills.lock`, run in the crate's
//! directory, verifies it without this crate: one `<64 hex>  <path>` line per embedded file
//! (every `SKILL.md` and every resource), sorted by path, paths relative to the crate as the
//! diagnostics show them. The options that decide what is embedded ([`Key::is_locked`](crate::options::Key::is_locked)) are
//! recorded first, one `# option name = value` line each: GNU `sha256sum -c` skips lines that
//! start with `#` (even with `--strict`), and the check here compares them, so changing
//! `ignore` or a size limit cannot silently let a file in.
//!
//! Files of skill packs (crates carrying a skills folder, see [`crate::pack`]) are locked too,
//! under their crate's name and version: `acme-skills@1.4.0/skills/<name>/SKILL.md`, after a
//! `# pack acme-skills = 1.4.0` line for each pack. Those lines are for the build only
//! (`sha256sum -c` cannot find a pack's files from the crate's directory). When a pack's
//! version changes, the build fails with one error that names the pack, both versions and the
//! files that differ, until `skills lock` records the reviewed version.
//!
//! The first line names the format: [`FORMAT`] since packs are locked. A lock of format 1 (the
//! same lines without `(lock format N)` in the header, and no packs) is still read as it is.

use std::collections::BTreeMap;

use crate::diagnostic::{Code, Diagnostic};
use crate::digest::sha256_hex;
use crate::options::{Flag, OPTIONS, Options, Value};
use crate::pack::Pack;

/// The lock `skills lock` writes when no `--output` is given.
pub const DEFAULT_LOCK: &str = "skills.lock";

/// The lock format `skills lock` writes: 2 added packs.
pub const FORMAT: u32 = 2;

/// The first line of every lock: what it is, its format and how to use it.
const HEADER: &str = "# Reviewed skill files for embed_skills! (lock format 2): verify with \
                      `sha256sum -c`, update with `skills lock`.";

/// Where the header names the format; a lock without it is of format 1.
const FORMAT_MARK: &str = "(lock format ";

/// The prefix of a line that records an option.
const OPTION_PREFIX: &str = "# option ";

/// The prefix of a line that records a pack and its version.
const PACK_PREFIX: &str = "# pack ";

/// How many hex digits of a hash the diagnostics show.
const SHOWN_HEX: usize = 12;

/// One embedded file as the lock lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedFile {
    /// Path relative to the crate, with `/`, as diagnostics show it.
    pub path: String,
    /// SHA-256 of the file's bytes on disk, in lowercase hex (what `sha256sum` prints).
    pub sha256: String,
}

impl LockedFile {
    /// The entry for `bytes` read from `path`.
    pub fn new(path: impl Into<String>, bytes: &[u8]) -> Self {
        LockedFile {
            path: path.into(),
            sha256: sha256_hex(bytes),
        }
    }
}

/// The lock for `files` read with `options` from the crate's roots and `packs`: the header,
/// the locked options, each pack's version, then one `sha256sum` line per file, sorted by path.
pub fn render(files: &[LockedFile], options: &Options, packs: &[Pack]) -> String {
    let mut text = format!("{HEADER}\n");
    for (name, value) in locked_options(options) {
        text.push_str(&format!("{OPTION_PREFIX}{name} = {value}\n"));
    }
    for pack in packs {
        text.push_str(&format!("{PACK_PREFIX}{} = {}\n", pack.name, pack.version));
    }
    let mut files: Vec<&LockedFile> = files.iter().collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    for file in files {
        text.push_str(&entry_line(file));
        text.push('\n');
    }
    text
}

/// `<hash>  <path>`; as `sha256sum` does, a path with `\` or a newline is escaped and the line
/// starts with `\`.
fn entry_line(file: &LockedFile) -> String {
    if file.path.contains(['\\', '\n']) {
        let escaped = file.path.replace('\\', "\\\\").replace('\n', "\\n");
        format!("\\{}  {escaped}", file.sha256)
    } else {
        format!("{}  {}", file.sha256, file.path)
    }
}

/// The options a lock records, in the table's order, with their values as a macro call writes
/// them.
fn locked_options(options: &Options) -> Vec<(&'static str, String)> {
    OPTIONS
        .iter()
        .filter(|spec| spec.key.is_locked())
        .filter_map(|spec| Some((spec.name, options.get(spec.key)?.to_string())))
        .collect()
}

/// A lock as read back: files by path, options by name, pack versions by name, and every line
/// that is none of them.
#[derive(Default)]
struct Parsed {
    files: BTreeMap<String, String>,
    options: BTreeMap<String, String>,
    packs: BTreeMap<String, String>,
    malformed: Vec<(usize, String)>,
}

/// What a lock records as reviewed: the SHA-256 of each file by path, and each pack's version by
/// name (lines that do not parse are left out: the build reports them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reviewed {
    /// SHA-256 (lowercase hex) by path, as diagnostics show paths.
    pub files: BTreeMap<String, String>,
    /// Version by pack name.
    pub packs: BTreeMap<String, String>,
}

/// What the lock `text` records: the files it reviewed, at what hash, and the packs' versions
/// (what `skills eval --tasks --previous lock:FILE` looks for).
pub fn reviewed(text: &str) -> Reviewed {
    let parsed = parse(text);
    Reviewed {
        files: parsed.files,
        packs: parsed.packs,
    }
}

/// The format the header names: 1 when it names none.
fn format_of(first_line: &str) -> Option<u32> {
    let Some((_, rest)) = first_line.split_once(FORMAT_MARK) else {
        return Some(1);
    };
    rest.split(')').next()?.trim().parse().ok()
}

fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    if let Some(first) = text.lines().next().filter(|line| line.starts_with('#')) {
        match format_of(first) {
            Some(format) if format <= FORMAT => {}
            _ => parsed.malformed.push((
                1,
                format!(
                    "the header names a lock format this build does not know (it reads 1 to \
                     {FORMAT}): update skills-runtime"
                ),
            )),
        }
    }
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        for (prefix, map, form) in [
            (OPTION_PREFIX, &mut parsed.options, "# option name = value"),
            (
                PACK_PREFIX,
                &mut parsed.packs,
                "# pack crate-name = version",
            ),
        ] {
            let Some(entry) = line.strip_prefix(prefix) else {
                continue;
            };
            match entry.split_once(" = ") {
                Some((name, value)) => {
                    map.insert(name.to_owned(), value.to_owned());
                }
                None => parsed
                    .malformed
                    .push((line_number, format!("such a line is `{form}`"))),
            }
        }
        if line.starts_with(OPTION_PREFIX) || line.starts_with(PACK_PREFIX) {
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (escaped, rest) = match line.strip_prefix('\\') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let entry = rest.split_once("  ").or_else(|| rest.split_once(" *"));
        let Some((hash, path)) = entry.filter(|(hash, path)| {
            hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) && !path.is_empty()
        }) else {
            parsed.malformed.push((
                line_number,
                "a file line is `<64 hex digits>  <path>`".into(),
            ));
            continue;
        };
        let path = if escaped {
            unescape(path)
        } else {
            path.to_owned()
        };
        if parsed
            .files
            .insert(path.clone(), hash.to_ascii_lowercase())
            .is_some()
        {
            parsed
                .malformed
                .push((line_number, format!("`{path}` is listed twice")));
        }
    }
    parsed
}

fn unescape(path: &str) -> String {
    let mut out = String::new();
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

fn short(hash: &str) -> &str {
    hash.get(..SHOWN_HEX).unwrap_or(hash)
}

/// Every difference between the lock `lock_text` (shown as `lock_path`) and the files the bundle
/// embeds with `options`, one diagnostic each; `roots` are the roots as shown, for the command
/// that updates the lock.
pub(crate) fn check(
    lock_text: &str,
    lock_path: &str,
    files: &[LockedFile],
    options: &Options,
    roots: &[String],
    packs: &[Pack],
) -> Vec<Diagnostic> {
    let help = format!(
        "review the change, then update the lock with `{}`",
        update_command(roots, lock_path, options, packs)
    );
    let parsed = parse(lock_text);
    let mut diagnostics: Vec<Diagnostic> = parsed
        .malformed
        .iter()
        .map(|(line, message)| {
            Diagnostic::error(
                Code::LockMalformed,
                lock_path,
                format!("the lock `{lock_path}` has a line it cannot read: {message}"),
            )
            .at(lock_text, *line, 1)
            .with_help(help.clone())
        })
        .collect();
    let mut recorded = parsed.options.clone();
    for (name, now) in locked_options(options) {
        let message = match recorded.remove(name) {
            Some(then) if then == now => continue,
            Some(then) => format!(
                "option `{name}` is `{now}`, but the lock `{lock_path}` was written with \
                 `{name} = {then}`: it changes which files are embedded"
            ),
            None => format!(
                "the lock `{lock_path}` does not record option `{name}` (now `{now}`), which \
                 changes which files are embedded"
            ),
        };
        diagnostics
            .push(Diagnostic::error(Code::LockOptions, lock_path, message).with_help(help.clone()));
    }
    for (name, then) in recorded {
        diagnostics.push(
            Diagnostic::error(
                Code::LockOptions,
                lock_path,
                format!("the lock `{lock_path}` records `{name} = {then}`, which is not an option that decides what is embedded"),
            )
            .with_help(help.clone()),
        );
    }
    let mut listed = parsed.files;
    let mut files: Vec<&LockedFile> = files.iter().collect();
    let mut recorded_packs = parsed.packs;
    for pack in packs {
        let then = recorded_packs.remove(&pack.name);
        if then.as_deref() == Some(pack.version.as_str()) {
            continue;
        }
        // A new pack, or a new version: one error for the whole pack, not one per file.
        let now_prefix = format!("{}/", pack.id());
        let (now, rest): (Vec<&LockedFile>, Vec<&LockedFile>) = files
            .into_iter()
            .partition(|f| f.path.starts_with(&now_prefix));
        files = rest;
        let message = match then {
            Some(then) => {
                let then_prefix = format!("{}@{then}/", pack.name);
                let before = take_prefixed(&mut listed, &then_prefix);
                let changed = changed_files(&before, &now, &now_prefix);
                format!(
                    "pack `{}` is {} now, but the lock `{lock_path}` was reviewed at {then}; \
                     {changed}",
                    pack.name, pack.version
                )
            }
            None => format!(
                "pack `{}` {} is not in the lock `{lock_path}`: its {} files were never reviewed",
                pack.name,
                pack.version,
                now.len()
            ),
        };
        diagnostics.push(
            Diagnostic::error(Code::LockPackVersion, lock_path, message).with_help(help.clone()),
        );
    }
    for (name, then) in recorded_packs {
        let gone = take_prefixed(&mut listed, &format!("{name}@{then}/"));
        diagnostics.push(
            Diagnostic::error(
                Code::LockPackVersion,
                lock_path,
                format!(
                    "pack `{name}` {then} is in the lock `{lock_path}` but no longer embedded \
                     ({} files)",
                    gone.len()
                ),
            )
            .with_help(help.clone()),
        );
    }
    for file in files {
        let message = match listed.remove(&file.path) {
            Some(then) if then == file.sha256 => continue,
            Some(then) => (
                Code::LockChanged,
                format!(
                    "`{}` changed since it was locked: sha256 {} in `{lock_path}`, now {}",
                    file.path,
                    short(&then),
                    short(&file.sha256)
                ),
            ),
            None => (
                Code::LockUnlisted,
                format!(
                    "`{}` is not in the lock `{lock_path}`: sha256 none in the lock, now {}",
                    file.path,
                    short(&file.sha256)
                ),
            ),
        };
        diagnostics
            .push(Diagnostic::error(message.0, &file.path, message.1).with_help(help.clone()));
    }
    for (path, then) in listed {
        diagnostics.push(
            Diagnostic::error(
                Code::LockGone,
                &path,
                format!(
                    "`{path}` is in the lock `{lock_path}` but no longer embedded: sha256 {} in \
                     the lock, now none",
                    short(&then)
                ),
            )
            .with_help(help.clone()),
        );
    }
    diagnostics
}

/// Removes and returns the entries of `listed` under `prefix`, by their path after it.
fn take_prefixed(listed: &mut BTreeMap<String, String>, prefix: &str) -> BTreeMap<String, String> {
    let paths: Vec<String> = listed
        .keys()
        .filter(|path| path.starts_with(prefix))
        .cloned()
        .collect();
    paths
        .into_iter()
        .filter_map(|path| {
            let hash = listed.remove(&path)?;
            Some((path[prefix.len()..].to_owned(), hash))
        })
        .collect()
}

/// What differs between a pack's files as locked (`before`, by path inside the pack) and now
/// (`now`, full paths under `now_prefix`), as a sentence naming each file.
fn changed_files(
    before: &BTreeMap<String, String>,
    now: &[&LockedFile],
    now_prefix: &str,
) -> String {
    let mut before = before.clone();
    let mut changes = Vec::new();
    for file in now {
        let inner = &file.path[now_prefix.len()..];
        match before.remove(inner) {
            Some(then) if then == file.sha256 => {}
            Some(_) => changes.push(format!("`{inner}` changed")),
            None => changes.push(format!("`{inner}` is new")),
        }
    }
    changes.extend(before.keys().map(|inner| format!("`{inner}` is gone")));
    changes.sort();
    if changes.is_empty() {
        "no file differs".to_owned()
    } else {
        format!("files that differ: {}", changes.join(", "))
    }
}

/// The `skills lock` command that writes this lock for these roots, packs and options, run
/// from the crate's directory: only what differs from the defaults is spelled out.
pub fn update_command(
    roots: &[String],
    lock_path: &str,
    options: &Options,
    packs: &[Pack],
) -> String {
    let mut words = vec!["skills".to_owned(), "lock".to_owned()];
    if roots != ["skills"] {
        words.extend(roots.iter().map(|root| shell_word(root)));
    }
    for pack in packs {
        words.push("--pack".into());
        words.push(shell_word(&pack.name));
    }
    if lock_path != DEFAULT_LOCK {
        words.push("--output".into());
        words.push(shell_word(lock_path));
    }
    let defaults = Options::default();
    for spec in OPTIONS.iter().filter(|spec| spec.key.is_locked()) {
        let (Some(value), default) = (options.get(spec.key), defaults.get(spec.key)) else {
            continue;
        };
        if Some(&value) == default.as_ref() {
            continue;
        }
        match (spec.flag, value) {
            (Flag::Switch { long }, Value::Bool(true)) => words.push(format!("--{long}")),
            (Flag::Repeated { long, .. }, Value::List(items)) => {
                for item in items {
                    words.push(format!("--{long}"));
                    words.push(shell_word(&item));
                }
            }
            (Flag::Value { long, .. }, value) => {
                words.push(format!("--{long}"));
                words.push(shell_word(&flag_value(&value)));
            }
            _ => {}
        }
    }
    words.join(" ")
}

/// A value as the command line takes it: `claude-code`, not `"claude-code"`.
fn flag_value(value: &Value) -> String {
    match value {
        Value::Compat(compat) => compat.name().to_owned(),
        Value::Level(level) => level.name().to_owned(),
        Value::File(path) => path.clone(),
        other => other.to_string(),
    }
}

/// `word`, in single quotes when a shell would read it otherwise (`*.bak`, spaces).
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/-+=:,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<LockedFile> {
        vec![
            LockedFile::new("skills/b/SKILL.md", b"b"),
            LockedFile::new("skills/a/SKILL.md", b"a"),
        ]
    }

    fn roots() -> Vec<String> {
        vec!["skills".into()]
    }

    #[test]
    fn a_lock_is_sorted_sha256sum_lines_after_the_options() {
        let text = render(&files(), &Options::default(), &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], HEADER);
        assert_eq!(lines[1], "# option max_file_size = 1048576");
        assert!(lines.contains(&"# option ignore = []"));
        assert!(lines.contains(&"# option compat = \"strict\""));
        assert_eq!(
            lines[lines.len() - 2],
            format!("{}  skills/a/SKILL.md", sha256_hex(b"a"))
        );
        assert_eq!(
            sha256_hex(b"a"),
            "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
        );
        assert!(text.ends_with("skills/b/SKILL.md\n"));
    }

    #[test]
    fn a_fresh_lock_has_no_differences() {
        let options = Options::default();
        let text = render(&files(), &options, &[]);
        assert_eq!(
            check(&text, "skills.lock", &files(), &options, &roots(), &[]),
            []
        );
    }

    #[test]
    fn each_difference_is_its_own_error() {
        let options = Options::default();
        let text = render(&files(), &options, &[]);
        let mut now = files();
        now[0] = LockedFile::new("skills/b/SKILL.md", b"changed");
        now[1] = LockedFile::new("skills/c/SKILL.md", b"c");
        let mut changed = options.clone();
        changed.ignore = vec!["*.bak".into()];
        let found = check(&text, "skills.lock", &now, &changed, &roots(), &[]);
        let codes: Vec<Code> = found.iter().map(Diagnostic::code).collect();
        assert_eq!(
            codes,
            [
                Code::LockOptions,
                Code::LockChanged,
                Code::LockUnlisted,
                Code::LockGone
            ]
        );
        let changed_text = found[1].to_string();
        assert!(
            changed_text.contains(short(&sha256_hex(b"b"))),
            "{changed_text}"
        );
        assert!(changed_text.contains(short(&sha256_hex(b"changed"))));
        assert!(
            changed_text.contains("skills lock --ignore '*.bak'"),
            "{changed_text}"
        );
        assert_eq!(found[3].path(), "skills/a/SKILL.md");
    }

    #[test]
    fn malformed_lines_are_reported_and_comments_skipped() {
        let text = "# a comment\nnot a line\n# option ignore\n";
        let found = check(text, "skills.lock", &[], &Options::default(), &roots(), &[]);
        let malformed = found
            .iter()
            .filter(|d| d.code() == Code::LockMalformed)
            .count();
        assert_eq!(malformed, 2);
    }

    #[test]
    fn odd_paths_are_escaped_as_sha256sum_does() {
        let file = LockedFile::new("skills/a/x\\y\nz", b"a");
        let text = render(std::slice::from_ref(&file), &Options::default(), &[]);
        assert!(text.contains(&format!("\\{}  skills/a/x\\\\y\\nz", file.sha256)));
        assert_eq!(parse(&text).files.get(&file.path), Some(&file.sha256));
    }

    #[test]
    fn the_update_command_spells_out_what_differs() {
        let mut options = Options::default();
        assert_eq!(
            update_command(&roots(), "skills.lock", &options, &[]),
            "skills lock"
        );
        options.compat = crate::claude_code::Compat::ClaudeCode;
        options.allow_unknown_keys = true;
        options.max_file_size = 10;
        assert_eq!(
            update_command(&["a b".into()], "x/l.lock", &options, &[]),
            "skills lock 'a b' --output x/l.lock --max-file-size 10 --allow-unknown-keys \
             --compat claude-code"
        );
    }

    fn pack(version: &str) -> Pack {
        Pack {
            name: "acme-skills".into(),
            version: version.into(),
            dir: "/packs/acme".into(),
        }
    }

    fn pack_files(version: &str, body: &[u8]) -> Vec<LockedFile> {
        vec![
            LockedFile::new(format!("acme-skills@{version}/skills/x/SKILL.md"), body),
            LockedFile::new(format!("acme-skills@{version}/skills/y/SKILL.md"), b"y"),
        ]
    }

    #[test]
    fn a_new_pack_version_is_one_error_naming_both_versions_and_the_changed_files() {
        let options = Options::default();
        let text = render(&pack_files("1.4.0", b"x"), &options, &[pack("1.4.0")]);
        assert!(text.contains("# pack acme-skills = 1.4.0\n"), "{text}");
        let same = check(
            &text,
            "skills.lock",
            &pack_files("1.4.0", b"x"),
            &options,
            &roots(),
            &[pack("1.4.0")],
        );
        assert_eq!(same, []);
        let mut now = pack_files("1.5.0", b"x2");
        now.push(LockedFile::new("acme-skills@1.5.0/skills/z/SKILL.md", b"z"));
        now.remove(1);
        let found = check(
            &text,
            "skills.lock",
            &now,
            &options,
            &roots(),
            &[pack("1.5.0")],
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].code(), Code::LockPackVersion);
        assert_eq!(
            found[0].message(),
            "pack `acme-skills` is 1.5.0 now, but the lock `skills.lock` was reviewed at 1.4.0; \
             files that differ: `skills/x/SKILL.md` changed, `skills/y/SKILL.md` is gone, \
             `skills/z/SKILL.md` is new"
        );
        assert!(
            found[0]
                .to_string()
                .contains("skills lock --pack acme-skills")
        );
    }

    #[test]
    fn a_pack_missing_from_the_lock_or_dropped_from_the_build_is_an_error() {
        let options = Options::default();
        let without = render(&[], &options, &[]);
        let found = check(
            &without,
            "skills.lock",
            &pack_files("1.4.0", b"x"),
            &options,
            &roots(),
            &[pack("1.4.0")],
        );
        let messages: Vec<&str> = found.iter().map(Diagnostic::message).collect();
        assert_eq!(
            messages,
            [
                "pack `acme-skills` 1.4.0 is not in the lock `skills.lock`: its 2 files were never reviewed"
            ]
        );
        let with = render(&pack_files("1.4.0", b"x"), &options, &[pack("1.4.0")]);
        let found = check(&with, "skills.lock", &[], &options, &roots(), &[]);
        let messages: Vec<&str> = found.iter().map(Diagnostic::message).collect();
        assert_eq!(
            messages,
            [
                "pack `acme-skills` 1.4.0 is in the lock `skills.lock` but no longer embedded (2 files)"
            ]
        );
    }

    #[test]
    fn a_lock_of_format_1_is_read_and_a_newer_format_refused() {
        let options = Options::default();
        let text = render(&files(), &options, &[]);
        let format_1 = text.replacen(" (lock format 2)", "", 1);
        assert_ne!(format_1, text);
        assert_eq!(
            check(&format_1, "skills.lock", &files(), &options, &roots(), &[]),
            []
        );
        let format_3 = text.replacen("(lock format 2)", "(lock format 3)", 1);
        let found = check(&format_3, "skills.lock", &files(), &options, &roots(), &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code(), Code::LockMalformed);
        assert!(
            found[0]
                .message()
                .contains("lock format this build does not know")
        );
    }
}
