//! What stays read-only in a working directory, decided once for every tool: the sandbox mounts
//! it read-only for a command, and the agent's file tools refuse to write it (on the real path,
//! links resolved). A hook, an `fsmonitor` or a filter planted there would run outside the
//! sandbox, with the person's rights, the next time they use the repository.
//!
//! - Version control metadata at any depth: every `.git` (a folder, or the file of a submodule
//!   or worktree, with the folder it names when that is inside), `.hg` and `.svn`, every
//!   `.gitmodules`, and a git folder under another name (a bare repository: `HEAD`, `objects`,
//!   `refs`).
//! - What git's settings name inside the working directory, for every repository found (and
//!   one the working directory lies in), read from its configuration, the files that includes,
//!   and the person's own files (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`,
//!   `/etc/gitconfig`): the folder of `core.hooksPath`, included configuration files, and every
//!   path in a setting whose value git runs ([`COMMAND_KEYS`]: `core.fsmonitor`, `core.pager`,
//!   `diff.external`, filter drivers, ...).
//! - The folders of submodules `.gitmodules` names that are not checked out (a `.git` made
//!   there would be run by the person's next `git status`).
//!
//! Repositories are found by a walk of the working directory that reads at most
//! [`Protected::MAX_ENTRIES`] entries and follows no link; what it could not cover (the rest of a
//! larger tree, a path a setting names that does not exist yet, a `.git` that is a link) is
//! [`Protected::unprotected`]. The file tools refuse a path with a metadata name anywhere, found
//! or not.
//!
//! What is left to the person, as with any coding agent: files they run by hand later (a
//! `Makefile`, a `package.json` script, a build script) and repositories a command creates.

use std::collections::VecDeque;
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::gitconfig::{self, Entry};
use crate::policy::VCS_METADATA;

/// The file that names a repository's submodules.
const GITMODULES: &str = ".gitmodules";

/// Largest configuration file, `.git` file or `commondir` read (git's own are a few KiB).
const MAX_FILE_BYTES: u64 = 1 << 20;

/// How deep `include.path` is followed (git's own limit is 10).
const MAX_INCLUDE_DEPTH: usize = 10;

/// Git settings whose value is a command git runs, as `(section, key)`; a subsection (`diff
/// "tool"`) may stand between them. A word of the value that is a path (it holds a `/`) naming
/// a file inside the working directory makes that file read-only.
pub const COMMAND_KEYS: &[(&str, &str)] = &[
    ("core", "fsmonitor"),
    ("core", "pager"),
    ("core", "editor"),
    ("core", "askpass"),
    ("core", "sshcommand"),
    ("core", "gitproxy"),
    ("sequence", "editor"),
    ("diff", "external"),
    ("diff", "command"),
    ("diff", "textconv"),
    ("filter", "clean"),
    ("filter", "smudge"),
    ("filter", "process"),
    ("merge", "driver"),
    ("credential", "helper"),
    ("gpg", "program"),
    ("interactive", "difffilter"),
    ("difftool", "cmd"),
    ("mergetool", "cmd"),
    ("pager", "*"),
    ("alias", "*"),
    ("browser", "cmd"),
    ("man", "cmd"),
    ("uploadpack", "packobjectshook"),
];

/// The names git runs from a hooks folder (githooks(5)).
const GIT_HOOKS: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
];

/// What the policy keeps read-only in one working directory, as a walk found it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Protected {
    workdir: PathBuf,
    /// Existing paths, real, inside the working directory, none inside another, parents first.
    paths: Vec<PathBuf>,
    /// Paths a setting names inside the working directory that do not exist.
    missing: Vec<PathBuf>,
    /// `.git` entries that are symbolic links.
    links: Vec<PathBuf>,
    /// Where the walk stopped, when it did, and after how many entries.
    stopped_at: Option<(PathBuf, usize)>,
}

/// Where git finds the person's own settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GitSettings {
    /// The global and system configuration files.
    pub(crate) files: Vec<PathBuf>,
    /// For `~/` in a value.
    pub(crate) home: Option<PathBuf>,
}

impl GitSettings {
    /// As git finds them from this process's environment.
    pub(crate) fn from_env() -> GitSettings {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        let home = var("HOME").map(PathBuf::from);
        let mut files = Vec::new();
        if let Some(global) = var("GIT_CONFIG_GLOBAL") {
            files.push(PathBuf::from(global));
        } else {
            let xdg = var("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".config")));
            files.extend(xdg.map(|x| x.join("git/config")));
            files.extend(home.as_ref().map(|h| h.join(".gitconfig")));
        }
        if var("GIT_CONFIG_NOSYSTEM").is_none() {
            files
                .push(var("GIT_CONFIG_SYSTEM").map_or_else(|| "/etc/gitconfig".into(), Into::into));
        }
        GitSettings { files, home }
    }
}

/// A repository found: the folder its hooks and commands run in, and its git folder.
struct Repository {
    worktree: PathBuf,
    git_dir: PathBuf,
}

impl Protected {
    /// Most directory entries one walk reads.
    pub const MAX_ENTRIES: usize = 10_000;

    /// Walks `workdir` (absolute, links resolved) for what the policy keeps read-only, with the
    /// person's git settings as this process's environment finds them.
    pub fn scan(workdir: &Path) -> Protected {
        Protected::scan_with(workdir, &GitSettings::from_env(), Protected::MAX_ENTRIES)
    }

    pub(crate) fn scan_with(workdir: &Path, git: &GitSettings, max_entries: usize) -> Protected {
        let mut scan = Scan {
            protected: Protected {
                workdir: workdir.to_owned(),
                ..Protected::default()
            },
            repositories: Vec::new(),
        };
        // A repository the working directory lies in: its settings may name paths in here.
        if let Some(enclosing) = workdir
            .ancestors()
            .skip(1)
            .find(|dir| fs::symlink_metadata(dir.join(".git")).is_ok())
        {
            scan.repository_at(enclosing, false);
        }
        scan.walk(max_entries);
        let repositories = std::mem::take(&mut scan.repositories);
        for repository in &repositories {
            scan.settings_of(repository, git);
            scan.submodules_of(repository);
        }
        scan.protected.tidy();
        scan.protected
    }

    /// The paths to keep read-only: real, inside the working directory, none inside another,
    /// parents first.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// What a command could still write of what the policy protects, when anything: the rest of
    /// a tree larger than the walk reads, paths git's settings name that do not exist yet (a
    /// command could create them), and `.git` entries that are links (a command could replace
    /// them). `None` when everything is covered.
    pub fn unprotected(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some((at, entries)) = &self.stopped_at {
            parts.push(format!(
                "the search for version control metadata stopped after {entries} entries, at \
                 {}: repositories below it are not kept read-only",
                at.display()
            ));
        }
        if !self.missing.is_empty() {
            parts.push(format!(
                "git's settings name {}, which do not exist yet and could be created",
                list(&self.missing)
            ));
        }
        if !self.links.is_empty() {
            parts.push(format!(
                "{} are symbolic links, which could be replaced",
                list(&self.links)
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Whether the policy keeps `path` (absolute, links resolved) read-only: a version control
    /// name in it anywhere below the working directory (found by the walk or not), or inside a
    /// path found or named.
    pub fn covers(&self, path: &Path) -> bool {
        let Ok(relative) = path.strip_prefix(&self.workdir) else {
            return false;
        };
        let named = relative.components().any(|c| match c {
            Component::Normal(name) => VCS_METADATA.iter().any(|m| name == *m),
            _ => false,
        }) || relative.file_name().is_some_and(|name| name == GITMODULES);
        named
            || self
                .paths
                .iter()
                .chain(&self.missing)
                .any(|p| path.starts_with(p))
    }

    /// Sorts parents first and drops what lies inside another path.
    fn tidy(&mut self) {
        for list in [&mut self.paths, &mut self.missing, &mut self.links] {
            list.sort_by_key(|p| p.components().count());
            let mut kept: Vec<PathBuf> = Vec::with_capacity(list.len());
            for path in list.drain(..) {
                if !kept.iter().any(|k| path.starts_with(k)) {
                    kept.push(path);
                }
            }
            *list = kept;
        }
        let paths = self.paths.clone();
        self.missing
            .retain(|m| !paths.iter().any(|p| m.starts_with(p)));
        self.links
            .retain(|l| !paths.iter().any(|p| l.starts_with(p)));
    }
}

/// Paths for a message, the first few.
fn list(paths: &[PathBuf]) -> String {
    let mut shown: Vec<String> = paths
        .iter()
        .take(5)
        .map(|p| p.display().to_string())
        .collect();
    if paths.len() > 5 {
        shown.push(format!("and {} more", paths.len() - 5));
    }
    shown.join(", ")
}

/// A scan in progress.
struct Scan {
    protected: Protected,
    repositories: Vec<Repository>,
}

impl Scan {
    fn inside(&self, path: &Path) -> bool {
        path.starts_with(&self.protected.workdir) && path != self.protected.workdir
    }

    /// Keeps `path` read-only when it is inside the working directory: its real path when it
    /// exists (a link's target), else as missing.
    fn protect(&mut self, path: &Path) {
        let path = normalize(path);
        if !self.inside(&path) {
            return;
        }
        match fs::canonicalize(&path) {
            Ok(real) if self.inside(&real) => self.protected.paths.push(real),
            // Out of the working directory: not in the sandbox, nothing to protect here.
            Ok(_) => {}
            Err(_) => self.protected.missing.push(path),
        }
    }

    /// Breadth first, reading at most `max_entries` entries, following no link.
    fn walk(&mut self, max_entries: usize) {
        let mut read = 0usize;
        let mut queue = VecDeque::from([self.protected.workdir.clone()]);
        while let Some(dir) = queue.pop_front() {
            let Ok(listing) = fs::read_dir(&dir) else {
                continue;
            };
            let mut entries = Vec::new();
            for entry in listing {
                read += 1;
                if read > max_entries {
                    // Whatever fills the folder, its own metadata is looked for by name.
                    self.names_in(&dir);
                    self.protected.stopped_at = Some((dir, max_entries));
                    return;
                }
                let Ok(entry) = entry else { continue };
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                entries.push((entry.file_name(), kind));
            }
            if dir != self.protected.workdir && looks_like_git_dir(&entries) {
                self.protected.paths.push(dir.clone());
                self.repositories.push(Repository {
                    worktree: dir.clone(),
                    git_dir: dir,
                });
                continue;
            }
            for (name, kind) in entries {
                let path = dir.join(&name);
                if name == ".git" {
                    if kind.is_symlink() {
                        self.protected.links.push(path.clone());
                    }
                    self.repository_at(&dir, true);
                } else if VCS_METADATA.iter().any(|m| name == *m) || name == GITMODULES {
                    if kind.is_symlink() {
                        self.protected.links.push(path.clone());
                    }
                    self.protect(&path);
                } else if kind.is_dir() {
                    queue.push_back(path);
                }
            }
        }
    }

    /// The metadata names of `dir`, looked up one by one (where its listing is too long to
    /// read to the end).
    fn names_in(&mut self, dir: &Path) {
        for name in VCS_METADATA.iter().chain(&[GITMODULES]) {
            let path = dir.join(name);
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_symlink() {
                self.protected.links.push(path.clone());
            }
            if *name == ".git" {
                self.repository_at(dir, true);
            } else {
                self.protect(&path);
            }
        }
    }

    /// The repository whose worktree is `worktree` (its `.git` a folder, a `gitdir:` file or a
    /// link); with `protect`, its `.git` and a git folder it names inside are kept read-only.
    fn repository_at(&mut self, worktree: &Path, protect: bool) {
        let dot_git = worktree.join(".git");
        let git_dir = if dot_git.is_file() {
            let Some(text) = read_small(&dot_git) else {
                return;
            };
            let Some(target) = text.trim_end().strip_prefix("gitdir:") else {
                return;
            };
            let target = worktree.join(target.trim());
            if protect {
                self.protect(&target);
            }
            target
        } else {
            dot_git.clone()
        };
        if protect {
            self.protect(&dot_git);
        }
        let git_dir = fs::canonicalize(&git_dir).unwrap_or(git_dir);
        self.repositories.push(Repository {
            worktree: worktree.to_owned(),
            git_dir,
        });
    }

    /// Applies the settings of `repository` (its own files, the files they include, and the
    /// person's).
    fn settings_of(&mut self, repository: &Repository, git: &GitSettings) {
        let mut files = vec![
            repository.git_dir.join("config"),
            repository.git_dir.join("config.worktree"),
        ];
        if let Some(common) = read_small(&repository.git_dir.join("commondir")) {
            files.push(repository.git_dir.join(common.trim()).join("config"));
        }
        files.extend(git.files.iter().cloned());
        let mut entries = Vec::new();
        for file in files {
            self.read_config(&file, git, 0, &mut entries);
        }
        for entry in entries {
            let Some(kind) = key_kind(&entry) else {
                continue;
            };
            match kind {
                KeyKind::HooksFolder => {
                    let folder = normalize(&resolve(&entry.value, &repository.worktree, git));
                    if folder == self.protected.workdir {
                        // The whole working directory cannot be read-only: its files that git
                        // would run as hooks are.
                        for hook in GIT_HOOKS {
                            self.protect(&folder.join(hook));
                        }
                    } else {
                        self.protect(&folder);
                    }
                }
                KeyKind::Command => {
                    for word in command_paths(&entry.value) {
                        self.protect(&resolve(word, &repository.worktree, git));
                    }
                }
            }
        }
    }

    /// The entries of the configuration file `file` and of the files it includes (kept
    /// read-only when inside), appended to `entries`.
    fn read_config(
        &mut self,
        file: &Path,
        git: &GitSettings,
        depth: usize,
        entries: &mut Vec<Entry>,
    ) {
        let Some(text) = read_small(file) else {
            return;
        };
        for entry in gitconfig::parse(&text) {
            let include =
                entry.key == "path" && (entry.section == "include" || entry.section == "includeif");
            if include && depth < MAX_INCLUDE_DEPTH {
                let base = file.parent().unwrap_or(Path::new("/"));
                let included = resolve(&entry.value, base, git);
                self.protect(&included);
                self.read_config(&included, git, depth + 1, entries);
            }
            entries.push(entry);
        }
    }

    /// The folders `.gitmodules` names that are not checked out (no `.git` in them).
    fn submodules_of(&mut self, repository: &Repository) {
        let Some(text) = read_small(&repository.worktree.join(GITMODULES)) else {
            return;
        };
        for entry in gitconfig::parse(&text) {
            if entry.section != "submodule" || entry.key != "path" {
                continue;
            }
            let folder = normalize(&repository.worktree.join(&entry.value));
            if fs::symlink_metadata(folder.join(".git")).is_err() {
                self.protect(&folder);
            }
        }
    }
}

/// What a setting of [`COMMAND_KEYS`] or `core.hooksPath` holds.
enum KeyKind {
    HooksFolder,
    Command,
}

fn key_kind(entry: &Entry) -> Option<KeyKind> {
    if entry.section == "core" && entry.key == "hookspath" && entry.subsection.is_none() {
        return Some(KeyKind::HooksFolder);
    }
    let listed = COMMAND_KEYS
        .iter()
        .any(|&(section, key)| section == entry.section && (key == "*" || key == entry.key));
    // An alias runs a command only with a leading `!`.
    let runs = entry.section != "alias" || entry.value.starts_with('!');
    (listed && runs).then_some(KeyKind::Command)
}

/// The words of a command line that name a path (they hold a `/`), quotes and shell operators
/// taken off.
fn command_paths(value: &str) -> impl Iterator<Item = &str> {
    value
        .trim_start_matches('!')
        .split(|c: char| c.is_whitespace() || "'\";|&()<>`=".contains(c))
        .filter(|word| word.contains('/'))
}

/// `value` as a path: `~/` is the home folder, a relative path is relative to `base`.
fn resolve(value: &str, base: &Path, git: &GitSettings) -> PathBuf {
    if let (Some(rest), Some(home)) = (value.strip_prefix("~/"), &git.home) {
        return home.join(rest);
    }
    base.join(value)
}

/// `path` with `.` and `..` worked out on the text.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A small regular file's text (a configuration, a `.git` file).
fn read_small(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    fs::read_to_string(path).ok()
}

/// Whether a folder's entries are those of a git folder: `HEAD`, `objects` and `refs`.
fn looks_like_git_dir(entries: &[(std::ffi::OsString, fs::FileType)]) -> bool {
    let has = |name: &str, dir: bool| {
        entries
            .iter()
            .any(|(n, kind)| n == name && kind.is_dir() == dir && !kind.is_symlink())
    };
    has("HEAD", false) && has("objects", true) && has("refs", true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> (tempfile::TempDir, PathBuf) {
        let temp = tempfile::tempdir().unwrap();
        let work = fs::canonicalize(temp.path()).unwrap().join("work");
        fs::create_dir(&work).unwrap();
        (temp, work)
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn scan(work: &Path, git: &GitSettings) -> Protected {
        Protected::scan_with(work, git, Protected::MAX_ENTRIES)
    }

    #[test]
    fn metadata_at_any_depth_and_what_git_settings_name_are_found() {
        let (_temp, work) = site();
        write(
            &work.join(".git/config"),
            "[core]\n\thooksPath = .husky\n\tfsmonitor = ./tools/watch.sh --fast\n\
             [include]\n\tpath = ../shared.gitconfig\n\
             [filter \"x\"]\n\tsmudge = scripts/smudge %f\n\
             [alias]\n\tls = log --stat\n\trun = !./bin/run.sh\n",
        );
        write(
            &work.join("shared.gitconfig"),
            "[core]\n\tpager = tools/pager\n",
        );
        for file in [
            ".husky/pre-commit",
            "tools/watch.sh",
            "tools/pager",
            "scripts/smudge",
            "bin/run.sh",
        ] {
            write(&work.join(file), "#!/bin/sh\n");
        }
        write(&work.join("sub/.git"), "gitdir: ../.git/modules/sub\n");
        write(
            &work.join("deep/er/nested/.git/HEAD"),
            "ref: refs/heads/main\n",
        );
        write(
            &work.join("deep/er/nested/.git/config"),
            "[core]\n\tpager = ../../pager.sh\n",
        );
        write(&work.join("deep/pager.sh"), "x");
        write(&work.join("old/.hg/hgrc"), "");
        write(&work.join("svn/.svn/entries"), "");
        write(&work.join("bare.git/HEAD"), "ref: refs/heads/main\n");
        fs::create_dir_all(work.join("bare.git/objects")).unwrap();
        fs::create_dir_all(work.join("bare.git/refs")).unwrap();
        write(
            &work.join(".gitmodules"),
            "[submodule \"a\"]\n\tpath = sub\n[submodule \"b\"]\n\tpath = vendor/lib\n",
        );
        fs::create_dir_all(work.join("vendor/lib")).unwrap();
        write(&work.join("src/main.rs"), "");
        let found = scan(&work, &GitSettings::default());
        let mut paths: Vec<String> = found
            .paths()
            .iter()
            .map(|p| p.strip_prefix(&work).unwrap().display().to_string())
            .collect();
        paths.sort();
        assert_eq!(
            paths,
            [
                ".git",
                ".gitmodules",
                ".husky",
                "bare.git",
                "bin/run.sh",
                "deep/er/nested/.git",
                "deep/pager.sh",
                "old/.hg",
                "scripts/smudge",
                "shared.gitconfig",
                "sub/.git",
                "svn/.svn",
                "tools/pager",
                "tools/watch.sh",
                "vendor/lib",
            ]
        );
        assert_eq!(found.unprotected(), None);
        for covered in [
            ".git/config",
            ".husky/new-hook",
            "x/y/.git/config",
            "a/.gitmodules",
            "a/.hg",
            "tools/pager",
        ] {
            assert!(found.covers(&work.join(covered)), "{covered}");
        }
        for free in [
            "src/main.rs",
            "tools/other",
            "gitconfig",
            ".github/workflows/ci.yml",
            ".gitignore",
        ] {
            assert!(!found.covers(&work.join(free)), "{free}");
        }
        assert!(!found.covers(Path::new("/elsewhere/.git/config")));
    }

    #[test]
    fn the_persons_settings_apply_to_every_repository_and_gaps_are_said() {
        let (temp, work) = site();
        let home = temp.path().join("home");
        write(
            &home.join(".gitconfig"),
            "[core]\n\thooksPath = .githooks\n\teditor = ~/bin/edit\n",
        );
        write(&work.join("a/.git/config"), "");
        write(&work.join("b/.git/config"), "");
        fs::create_dir_all(work.join("a/.githooks")).unwrap();
        let git = GitSettings {
            files: vec![home.join(".gitconfig")],
            home: Some(home.clone()),
        };
        let found = scan(&work, &git);
        assert!(found.paths().contains(&work.join("a/.githooks")));
        assert!(found.covers(&work.join("b/.githooks/pre-commit")));
        let said = found.unprotected().expect("b's hooks folder is missing");
        assert!(said.contains("b/.githooks"), "{said}");
        // A home folder outside the working directory is not the sandbox's to protect.
        assert!(!said.contains("edit"), "{said}");
    }

    #[test]
    fn the_walk_is_bounded_and_says_where_it_stopped() {
        let (_temp, work) = site();
        for i in 0..50 {
            fs::create_dir_all(work.join(format!("d{i:02}"))).unwrap();
        }
        // However many entries come first in the listing, the top folder's own are found.
        write(&work.join(".git/config"), "");
        write(&work.join("d49/deep/.git/config"), "");
        let found = Protected::scan_with(&work, &GitSettings::default(), 20);
        assert_eq!(found.paths(), [work.join(".git")]);
        let said = found.unprotected().unwrap();
        assert!(said.contains("stopped after 20 entries"), "{said}");
        let all = scan(&work, &GitSettings::default());
        assert_eq!(all.paths(), [work.join(".git"), work.join("d49/deep/.git")]);
    }

    #[test]
    fn links_are_not_followed_and_said() {
        let (temp, work) = site();
        let outside = temp.path().join("outside");
        write(&outside.join(".git/config"), "[core]\n\tpager = ./evil\n");
        std::os::unix::fs::symlink(&outside, work.join("out")).unwrap();
        std::os::unix::fs::symlink(outside.join(".git"), work.join(".git")).unwrap();
        let found = scan(&work, &GitSettings::default());
        assert!(found.paths().is_empty(), "{:?}", found.paths());
        let said = found.unprotected().unwrap();
        assert!(said.contains("symbolic links"), "{said}");
    }
}
