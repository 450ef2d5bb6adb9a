//! `skills package`: the zips hosted agents take as uploads, one per skill and host, written
//! only when every skill passes every host's rules.
//!
//! The rules are `skills_core::hosted`'s; this module builds the archives and writes them. An
//! archive holds one folder named after the skill, with `SKILL.md` at its root and the
//! resources the bundle embeds, in a fixed order with fixed timestamps and permissions, so the
//! same folder always gives the same bytes (a reviewer can compare a zip's SHA-256 with the one
//! of the last upload).

use std::fs;
use std::io::{self, Cursor, Write};
use std::path::{Path, PathBuf};

use skills_core::hosted::{self, Host};
use skills_core::{Bundle, Code, Diagnostic, Level, Lint, SkillDef};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, System, ZipWriter};

use crate::args::Source;
use crate::bundle::{self, plural};
use crate::output::Streams;

/// What to do about a key the uploads refuse, in place of the lint's "how to silence it".
const PORTABLE_HELP: &str = "hosted uploads accept only `name`, `description`, `license`, \
`compatibility`, `metadata` and `allowed-tools`, so `skills package` refuses every other key \
whatever the lint's level; to ship this skill to them, move the value under `metadata:`";

/// One skill's archive, the same bytes for every host.
struct Archive<'a> {
    skill: &'a SkillDef,
    bytes: Vec<u8>,
}

impl Archive<'_> {
    /// Files in the zip: `SKILL.md` and every resource.
    fn files(&self) -> usize {
        self.skill.file_sizes().count()
    }
}

/// Runs `skills package`. Exit code 1 when the bundle has errors or no skill, a host would
/// refuse a skill, or a zip cannot be written; when any skill is refused, nothing is written.
pub fn run(
    source: &Source,
    hosts: &[Host],
    out: &str,
    streams: &mut Streams<'_>,
) -> io::Result<u8> {
    let hosts = chosen(hosts);
    let Some(bundle) = load_judged(source, streams.err)? else {
        return Ok(1);
    };
    match archives(&bundle, &hosts) {
        Ok(archives) => write(&archives, &hosts, out, streams),
        Err(refusals) => {
            for diagnostic in &refusals {
                bundle::write_diagnostic(streams.err, diagnostic)?;
            }
            writeln!(
                streams.err,
                "nothing written: {} {}",
                refusals.len(),
                plural(refusals.len(), "error", "errors")
            )?;
            Ok(1)
        }
    }
}

/// The bundle as a build with `portable = "deny"` sees it (a key outside the spec's is refused
/// by every host, each reported at its line), its diagnostics written to `err`; `None` when it
/// has errors or no skill.
fn load_judged(source: &Source, err: &mut dyn Write) -> io::Result<Option<Bundle>> {
    let mut judged = source.clone();
    judged.options.lints.set_level(Lint::Portable, Level::Deny);
    let mut bundle = bundle::load(&judged);
    for diagnostic in &mut bundle.diagnostics {
        if diagnostic.code() == Code::Portable {
            // The lint's own help says how to silence it, which does not apply here.
            *diagnostic = diagnostic.clone().with_help(PORTABLE_HELP);
        }
        bundle::write_diagnostic(err, diagnostic)?;
    }
    if bundle.has_errors() {
        let (errors, warnings) = bundle::counts(&bundle);
        let summary = bundle::summary(bundle.skills_found, errors, warnings);
        writeln!(err, "nothing written: {summary}")?;
        return Ok(None);
    }
    if bundle.skills.is_empty() {
        let roots: Vec<String> = source.roots().iter().map(|r| format!("`{r}`")).collect();
        writeln!(err, "error: no skill to package in {}", roots.join(", "))?;
        return Ok(None);
    }
    Ok(Some(bundle))
}

/// Every skill's zip, or every reason a host would refuse one: its rules first, then the
/// archives themselves (a file changed since its check, a zip over a host's size).
fn archives<'a>(bundle: &'a Bundle, hosts: &[Host]) -> Result<Vec<Archive<'a>>, Vec<Diagnostic>> {
    let refusals: Vec<Diagnostic> = hosts
        .iter()
        .flat_map(|&host| {
            bundle
                .skills
                .iter()
                .flat_map(move |skill| hosted::check(skill, host))
        })
        .collect();
    if !refusals.is_empty() {
        return Err(refusals);
    }
    let mut archives = Vec::new();
    let mut refusals = Vec::new();
    for skill in &bundle.skills {
        match archive(skill) {
            Ok(archive) => archives.push(archive),
            Err(diagnostic) => refusals.push(diagnostic),
        }
    }
    refusals.extend(archives.iter().flat_map(|archive| {
        hosts
            .iter()
            .filter_map(|&host| hosted::check_zip(archive.skill, host, archive.bytes.len() as u64))
    }));
    if refusals.is_empty() {
        Ok(archives)
    } else {
        Err(refusals)
    }
}

/// Writes every archive for every host, a line each on stdout, then the stale-zip warnings and
/// the count.
fn write(
    archives: &[Archive<'_>],
    hosts: &[Host],
    out: &str,
    streams: &mut Streams<'_>,
) -> io::Result<u8> {
    let mut written = 0;
    for host in hosts {
        let folder = Path::new(out).join(host.as_str());
        for archive in archives {
            let path = folder.join(format!("{}.zip", archive.skill.name.value));
            if let Err(error) = write_atomically(&path, &archive.bytes) {
                writeln!(
                    streams.err,
                    "error: cannot write `{}`: {error}",
                    path.display()
                )?;
                return Ok(1);
            }
            writeln!(
                streams.out,
                "wrote {} ({} {}, {} bytes)",
                path.display(),
                archive.files(),
                plural(archive.files(), "file", "files"),
                archive.bytes.len()
            )?;
            written += 1;
        }
        stale(&folder, archives, streams)?;
    }
    let labels: Vec<&str> = hosts.iter().map(|host| host.label()).collect();
    writeln!(
        streams.out,
        "{written} {} for {}",
        plural(written, "zip", "zips"),
        labels.join(" and ")
    )?;
    Ok(0)
}

/// Zips in a host's folder that are no skill of this bundle (a skill removed or renamed since an
/// earlier run): left in place, since the folder may hold other files, but named, so that they
/// are not uploaded by mistake.
fn stale(folder: &Path, archives: &[Archive<'_>], streams: &mut Streams<'_>) -> io::Result<()> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Ok(());
    };
    let mut others: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let Some(stem) = path
                .extension()
                .filter(|extension| *extension == "zip")
                .and(path.file_stem())
            else {
                return false;
            };
            !archives
                .iter()
                .any(|archive| *stem == *archive.skill.name.value)
        })
        .collect();
    others.sort();
    for path in others {
        writeln!(
            streams.err,
            "warning: `{}` is not a skill of this bundle; left in place",
            path.display()
        )?;
    }
    Ok(())
}

/// The hosts asked for, each once, in [`Host::ALL`] order; every host when none was named.
fn chosen(named: &[Host]) -> Vec<Host> {
    Host::ALL
        .into_iter()
        .filter(|host| named.is_empty() || named.contains(host))
        .collect()
}

/// The zip of `skill`: `NAME/SKILL.md`, then every resource by path, each read again and
/// refused if it changed since its check ([`hosted::read_resource`]).
fn archive(skill: &SkillDef) -> Result<Archive<'_>, Diagnostic> {
    let folder = &skill.name.value;
    // Entry names are the paths an extractor writes: each component a plain name, whatever the
    // bundle's loading allowed (`a\..\..\evil.bat` is a way out of the folder for a Windows
    // extractor, `C:\x` a drive).
    let entries = std::iter::once((folder.as_str(), skill.path.clone())).chain(
        skill
            .resources
            .iter()
            .map(|r| (r.path.as_str(), skill.file_path(&r.path))),
    );
    for (path, shown) in entries {
        if let Err((component, why)) = skills_core::portable::check_path(path) {
            return Err(Diagnostic::error(
                Code::UnportableName,
                &shown,
                format!(
                    "cannot package `{}`: the component `{}` {why}",
                    skills_core::visible::escape_line(path),
                    skills_core::visible::escape_line(&component)
                ),
            ));
        }
    }
    let failed = |error: zip::result::ZipError| {
        Diagnostic::error(
            Code::UploadFile,
            &skill.path,
            format!("cannot build the zip of `{folder}`: {error}"),
        )
    };
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file(format!("{folder}/{}", hosted::MANIFEST), entry(false))
        .map_err(failed)?;
    zip.write_all(skill.text.as_bytes())
        .map_err(|error| failed(error.into()))?;
    let mut resources: Vec<_> = skill.resources.iter().collect();
    resources.sort_by(|a, b| a.path.cmp(&b.path));
    for resource in &resources {
        let bytes = hosted::read_resource(skill, resource)?;
        zip.start_file(
            format!("{folder}/{}", resource.path),
            entry(resource.executable),
        )
        .map_err(failed)?;
        zip.write_all(&bytes)
            .map_err(|error| failed(error.into()))?;
    }
    let bytes = zip.finish().map_err(failed)?.into_inner();
    Ok(Archive { skill, bytes })
}

/// How every entry is written: deflated, dated 1980-01-01 (the earliest a zip can say), Unix
/// permissions, so nothing of the machine or the moment enters the bytes.
fn entry(executable: bool) -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::DEFAULT)
        .system(System::Unix)
        .unix_permissions(if executable { 0o755 } else { 0o644 })
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`, so `path` is
/// replaced whole or not at all; the temporary file is removed when either step fails.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(folder)?;
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary: PathBuf = folder.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = fs::write(&temporary, bytes).and_then(|()| fs::rename(&temporary, path));
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder with one skill, `notes`, and its resource `references/a.md`, loaded: the
    /// folder (kept while the test runs), the skill's folder, the bundle.
    fn notes_bundle() -> (tempfile::TempDir, PathBuf, Bundle) {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("skills/notes");
        fs::create_dir_all(skill.join("references")).unwrap();
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: notes\ndescription: Keeps notes.\n---\nSee references/a.md.\n",
        )
        .unwrap();
        fs::write(skill.join("references/a.md"), "checked\n").unwrap();
        let bundle = skills_core::load(dir.path(), &["skills"], &skills_core::Options::default());
        assert!(!bundle.has_errors(), "{:?}", bundle.diagnostics);
        (dir, skill, bundle)
    }

    /// Entry names are paths an extractor writes: a resource path or a skill name that is not
    /// made of plain names is refused, whatever the loading of the bundle allowed (the bundle
    /// here is changed after its check, as one built elsewhere could be).
    #[test]
    fn entry_names_that_are_not_plain_names_are_refused() {
        let (_dir, _, bundle) = notes_bundle();
        for hostile in [
            "a\\..\\..\\evil.bat",
            "../evil.sh",
            "C:\\x",
            "/etc/x",
            "NUL.txt",
        ] {
            let mut changed = bundle.skills[0].clone();
            changed.resources[0].path = hostile.to_owned();
            let refused = archive(&changed).err().expect(hostile);
            assert_eq!(refused.code(), Code::UnportableName, "{hostile}");
            assert!(
                refused.message().starts_with("cannot package `"),
                "{}",
                refused.message()
            );
        }
        let mut renamed = bundle.skills[0].clone();
        renamed.name.value = "..".to_owned();
        assert_eq!(
            archive(&renamed).err().unwrap().code(),
            Code::UnportableName
        );
        assert!(archive(&bundle.skills[0]).is_ok());
    }

    #[test]
    fn a_resource_changed_after_its_check_is_not_packaged() {
        let (_dir, skill, bundle) = notes_bundle();
        assert!(archive(&bundle.skills[0]).is_ok());

        fs::write(skill.join("references/a.md"), "swapped\n").unwrap();
        let refused = archive(&bundle.skills[0]).err().expect("refused");
        assert_eq!(refused.code(), Code::UploadFile);
        assert_eq!(refused.path(), "skills/notes/references/a.md");
        assert_eq!(refused.message(), "the file changed after it was checked");

        // A link to an endless file in its place: refused once it passes the checked size, not
        // read to the end (this test would never finish otherwise).
        #[cfg(unix)]
        {
            fs::remove_file(skill.join("references/a.md")).unwrap();
            std::os::unix::fs::symlink("/dev/zero", skill.join("references/a.md")).unwrap();
            let endless = archive(&bundle.skills[0]).err().expect("refused");
            assert_eq!(endless.message(), "the file changed after it was checked");
        }

        fs::remove_file(skill.join("references/a.md")).unwrap();
        let gone = archive(&bundle.skills[0]).err().expect("refused");
        assert!(
            gone.message()
                .starts_with("cannot read the file to package it"),
            "{}",
            gone.message()
        );
    }
}
