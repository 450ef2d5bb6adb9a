//! `skills eval --tasks --previous SOURCE`: the previous versions of the skills, the baseline of
//! an upgrade. A folder of skills; `git:REV`, the roots at a git revision; or `lock:FILE`, the
//! version of each skill that a lock reviewed, found by its hashes in the git history (or, for
//! a skill of a pack, in cargo's copy of the pack's locked version), so an upgrade is measured
//! before its lock is accepted.
//!
//! Whatever the source, the previous versions are read and checked as `skills check` reads a
//! bundle, then built into a registry; the eval puts a skill's previous version in place of the
//! current one for its baseline.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;

use skills_agent::eval::tasks::Comparison;
use skills_core::{Bundle, Options};

use crate::args::Source;

/// Where the previous versions are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreviousSource {
    /// A folder holding skill folders, as a root.
    Folder(PathBuf),
    /// The roots at a git revision.
    Git(String),
    /// What a lock reviewed.
    Lock(PathBuf),
}

impl FromStr for PreviousSource {
    type Err = String;

    /// `git:REV`, `lock:FILE`, or a folder.
    fn from_str(text: &str) -> Result<PreviousSource, String> {
        let nonempty = |rest: &str, what: &str| {
            if rest.is_empty() {
                Err(format!("`{text}` names no {what}"))
            } else {
                Ok(rest.to_owned())
            }
        };
        if let Some(rest) = text.strip_prefix("git:") {
            return nonempty(rest, "revision").map(PreviousSource::Git);
        }
        if let Some(rest) = text.strip_prefix("lock:") {
            return nonempty(rest, "lock").map(|l| PreviousSource::Lock(l.into()));
        }
        nonempty(text, "folder").map(|f| PreviousSource::Folder(f.into()))
    }
}

/// The comparison with the previous versions `previous` names of the bundle `current` (read
/// from `source`); an error says what could not be found or read.
pub fn comparison(
    previous: &PreviousSource,
    source: &Source,
    current: &Bundle,
) -> Result<Comparison, String> {
    let options = Options {
        lock: None,
        embed_evals: false,
        packs: Vec::new(),
        ..source.options.clone()
    };
    let scratch = tempfile::Builder::new()
        .prefix("skills-previous-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let (base, roots, label): (PathBuf, Vec<String>, String) = match previous {
        PreviousSource::Folder(folder) => (
            std::env::current_dir().unwrap_or_else(|_| ".".into()),
            vec![folder.to_string_lossy().into_owned()],
            format!("folder {}", folder.display()),
        ),
        PreviousSource::Git(revision) => {
            extract_roots(revision, &source.dirs, scratch.path())?;
            (
                scratch.path().to_owned(),
                source.dirs.clone(),
                format!("git:{revision}"),
            )
        }
        PreviousSource::Lock(lock) => {
            let root = scratch.path().join("previous");
            fs::create_dir_all(&root).map_err(|e| e.to_string())?;
            locked_versions(lock, current, &root)?;
            (
                scratch.path().to_owned(),
                vec!["previous".to_owned()],
                format!("lock:{}", lock.display()),
            )
        }
    };
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    let bundle = skills_core::load(&base, &roots, &options);
    if let Some(error) = bundle.errors().next() {
        return Err(format!(
            "the previous versions ({label}) do not pass `skills check`; the first error:\n{error}"
        ));
    }
    let skills = skills_bundle::__private::registry_from_bundle(&bundle, &roots, false, false)
        .map_err(|e| e.to_string())?;
    Ok(Comparison::Previous { skills, label })
}

/// Runs git in the current directory; its standard output, or what it said.
fn git(args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}

/// The current directory's path inside its repository (`sub/dir/`, or empty at the top).
fn prefix() -> Result<String, String> {
    let out = git(&["rev-parse", "--show-prefix"])?;
    Ok(String::from_utf8_lossy(&out).trim().to_owned())
}

/// `git archive TREE -- PATHS` unpacked into `into`, paths relative to the current directory.
fn archive(tree: &str, paths: &[&str], into: &Path) -> Result<(), String> {
    let mut args = vec!["archive", "--format=tar", tree, "--"];
    args.extend(paths);
    let tar = git(&args)?;
    let mut child = Command::new("tar")
        .args(["-x", "-C"])
        .arg(into)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(&tar)
            .map_err(|e| format!("cannot unpack the archive: {e}"))?;
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "tar could not unpack git's archive: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(())
}

/// The roots `dirs` as they were at `revision`, unpacked under `into`.
fn extract_roots(revision: &str, dirs: &[String], into: &Path) -> Result<(), String> {
    let tree = format!("{revision}:{}", prefix()?);
    let paths: Vec<&str> = dirs.iter().map(String::as_str).collect();
    archive(&tree, &paths, into)
}

/// Into `root`, one folder per skill of `current`: the version the lock at `lock` reviewed (the
/// current one when it is unchanged), without its `evals/`.
fn locked_versions(lock: &Path, current: &Bundle, root: &Path) -> Result<(), String> {
    let text = fs::read_to_string(lock)
        .map_err(|e| format!("cannot read the lock {}: {e}", lock.display()))?;
    let reviewed = skills_core::lock::reviewed(&text);
    let now: BTreeMap<&str, &str> = current
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    for skill in &current.skills {
        let dir = skill.path.trim_end_matches("SKILL.md");
        let is_reviewed =
            |path: &&String| path.starts_with(dir) && !path[dir.len()..].starts_with("evals/");
        let locked: BTreeMap<&String, &String> = reviewed
            .files
            .iter()
            .filter(|(p, _)| is_reviewed(p))
            .collect();
        let name = skill.name.value.as_str();
        let target = root.join(name);
        if locked.is_empty() {
            // A skill the lock never reviewed has no previous version: its baseline is the
            // bundle without it.
            continue;
        }
        let own: Vec<&str> = now
            .keys()
            .copied()
            .filter(|p| p.starts_with(dir) && !p[dir.len()..].starts_with("evals/"))
            .collect();
        let unchanged = own.len() == locked.len()
            && locked
                .iter()
                .all(|(p, h)| now.get(p.as_str()) == Some(&h.as_str()));
        if unchanged {
            copy_skill(skill.file.parent().unwrap_or(Path::new(".")), &target)?;
            continue;
        }
        let from_pack = dir.split('/').next().filter(|first| first.contains('@'));
        match from_pack {
            Some(id) => pack_version(id, dir, &locked, &reviewed.packs, &target)?,
            None => git_version(dir, &locked, &target)?,
        }
    }
    Ok(())
}

/// Whether every file of `locked` (paths under `dir`) has its hash when read by `read` (given
/// the path relative to `dir`).
fn matches(
    dir: &str,
    locked: &BTreeMap<&String, &String>,
    read: impl Fn(&str) -> Option<Vec<u8>>,
) -> bool {
    locked.iter().all(|(path, hash)| {
        read(&path[dir.len()..])
            .is_some_and(|bytes| skills_core::digest::sha256_hex(&bytes) == **hash)
    })
}

/// The skill folder `dir` at the newest commit where its files are those `locked` lists.
fn git_version(
    dir: &str,
    locked: &BTreeMap<&String, &String>,
    target: &Path,
) -> Result<(), String> {
    let prefix = prefix()?;
    let dir_path = dir.trim_end_matches('/');
    let log = git(&["log", "--format=%H", "--", dir_path])?;
    for commit in String::from_utf8_lossy(&log).lines() {
        let found = matches(dir, locked, |relative| {
            git(&["show", &format!("{commit}:{prefix}{dir}{relative}")]).ok()
        });
        if found {
            let scratch = target.with_extension("extract");
            fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
            archive(&format!("{commit}:{prefix}{dir_path}"), &["."], &scratch)?;
            copy_skill(&scratch, target)?;
            let _ = fs::remove_dir_all(&scratch);
            return Ok(());
        }
    }
    Err(format!(
        "no commit of `{dir_path}` holds the files the lock reviewed (is the reviewed version committed?)"
    ))
}

/// A pack skill (`dir` is `acme@1.5.0/skills/<name>/`) at the version the lock reviewed, from
/// cargo's copy of that version of the pack.
fn pack_version(
    id: &str,
    dir: &str,
    locked: &BTreeMap<&String, &String>,
    packs: &BTreeMap<String, String>,
    target: &Path,
) -> Result<(), String> {
    let (name, _) = id.split_once('@').unwrap_or((id, ""));
    let Some(version) = packs.get(name) else {
        return Err(format!("the lock records no version of the pack {name}"));
    };
    let locked_dir = format!("{name}@{version}/{}", &dir[id.len() + 1..]);
    let locked: BTreeMap<String, &String> = locked
        .iter()
        .map(|(p, h)| (p.replacen(id, &format!("{name}@{version}"), 1), *h))
        .collect();
    let locked_refs: BTreeMap<&String, &String> = locked.iter().map(|(p, h)| (p, *h)).collect();
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    let skill_in_pack = &locked_dir[format!("{name}@{version}/").len()..];
    let registries = fs::read_dir(home.join("registry/src")).map_err(|e| {
        format!("cargo's copy of {name} {version} is not there ({e}): fetch it once (`cargo fetch` at that version)")
    })?;
    for registry in registries.filter_map(Result::ok) {
        let candidate = registry
            .path()
            .join(format!("{name}-{version}"))
            .join(skill_in_pack);
        if matches(&locked_dir, &locked_refs, |relative| {
            fs::read(candidate.join(relative)).ok()
        }) {
            return copy_skill(&candidate, target);
        }
    }
    Err(format!(
        "cargo has no copy of {name} {version} with the files the lock reviewed: fetch that version once"
    ))
}

/// Copies the skill folder `from` to `to`, without its `evals/` folder and hidden names.
fn copy_skill(from: &Path, to: &Path) -> Result<(), String> {
    fn copy(from: &Path, to: &Path, top: bool) -> std::io::Result<()> {
        fs::create_dir_all(to)?;
        for entry in fs::read_dir(from)?.filter_map(Result::ok) {
            let name = entry.file_name();
            let text = name.to_string_lossy();
            if text.starts_with('.') || (top && text == "evals") {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                copy(&path, &to.join(&name), false)?;
            } else {
                fs::copy(&path, to.join(&name))?;
            }
        }
        Ok(())
    }
    copy(from, to, true).map_err(|e| format!("cannot copy {}: {e}", from.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_parse() {
        assert_eq!("git:v1".parse(), Ok(PreviousSource::Git("v1".into())));
        assert_eq!(
            "lock:skills.lock".parse(),
            Ok(PreviousSource::Lock("skills.lock".into()))
        );
        assert_eq!(
            "old/skills".parse(),
            Ok(PreviousSource::Folder("old/skills".into()))
        );
        assert!("git:".parse::<PreviousSource>().is_err());
        assert!("".parse::<PreviousSource>().is_err());
    }
}
