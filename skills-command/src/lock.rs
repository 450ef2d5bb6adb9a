//! `skills lock`: writes the lock `embed_skills!(..., lock = "...")` checks, or, with `--check`,
//! reports how the files differ from it.

use std::fs;
use std::io;
use std::path::Path;

use skills_core::Diagnostic;
use skills_core::lock;

use crate::args::Source;
use crate::bundle::{self, counts, summary};
use crate::output::Streams;

/// Runs `skills lock`. Exit code 1 when the bundle would not compile, when the lock cannot be
/// written, or (with `check`) when the lock differs from the files.
pub fn run(
    source: &Source,
    output: &str,
    check: bool,
    streams: &mut Streams<'_>,
) -> io::Result<u8> {
    // The bundle as it would compile without a lock: only such a bundle is locked.
    let mut unlocked = source.clone();
    unlocked.options.lock = None;
    let Some(bundle) = bundle::load_valid(&unlocked, streams.err)? else {
        return Ok(1);
    };
    // The same bundle judged against the lock on disk: its lock diagnostics are the differences.
    let mut locked = source.clone();
    locked.options.lock = Some(output.to_owned());
    let against_lock = bundle::load(&locked);
    let differences: Vec<&Diagnostic> = against_lock.errors().collect();
    if check {
        for diagnostic in &differences {
            bundle::write_diagnostic(streams.out, diagnostic)?;
        }
        if differences.is_empty() {
            writeln!(
                streams.out,
                "`{output}` matches the {} embedded files",
                bundle.files.len()
            )?;
            return Ok(0);
        }
        let (errors, warnings) = counts(&against_lock);
        writeln!(
            streams.out,
            "{}",
            summary(against_lock.skills_found, errors, warnings)
        )?;
        return Ok(1);
    }
    let text = lock::render(&bundle.files, &source.options, &bundle.packs);
    if differences.is_empty()
        && skills_core::lock::read(Path::new(output)).is_ok_and(|old| old == text.as_bytes())
    {
        writeln!(
            streams.out,
            "`{output}` is up to date: {} files",
            bundle.files.len()
        )?;
        return Ok(0);
    }
    if let Err(error) = write_atomically(Path::new(output), &text) {
        writeln!(streams.err, "error: cannot write `{output}`: {error}")?;
        return Ok(1);
    }
    writeln!(
        streams.out,
        "wrote `{output}`: {} files",
        bundle.files.len()
    )?;
    for diagnostic in differences {
        if diagnostic.code() != skills_core::Code::LockMissing {
            writeln!(
                streams.out,
                "  {}",
                skills_core::visible::escape_text(diagnostic.message())
            )?;
        }
    }
    Ok(0)
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`, so a reader
/// never sees half a lock.
fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("not a file name"))?
        .to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.tmp"));
    fs::write(&temporary, text)?;
    fs::rename(&temporary, path).inspect_err(|_| {
        let _ = fs::remove_file(&temporary);
    })
}
