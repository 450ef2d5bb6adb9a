//! The two file-system rules every file we embed goes through, written once for `SKILL.md`
//! files, skill folders and resources alike: a symlink must resolve inside the root, and
//! (a size limit enforced while reading).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a path cannot be used (a symlink that leads out of the root).
pub(crate) enum Unreachable {
    /// The path, or a symlink on it, leads nowhere.
    Broken,
    /// Its real path is outside the root; the real path is given so callers can tell what it is.
    Outside(PathBuf),
}

/// The real path of `path` (symlinks followed) if it stays inside `real_root`.
pub(crate) fn real_path_within(path: &Path, real_root: &Path) -> Result<PathBuf, Unreachable> {
    match fs::canonicalize(path) {
        Ok(real) if real.starts_with(real_root) => Ok(real),
        Ok(real) => Err(Unreachable::Outside(real)),
        Err(_) => Err(Unreachable::Broken),
    }
}

/// Why a file could not be read (over the size limit, or I/O).
pub(crate) enum ReadError {
    /// More bytes than the limit; the size seen.
    TooLarge(u64),
    /// The file could not be opened or read.
    Io(std::io::Error),
}

/// Reads a file, refusing more than `limit` bytes (checked while reading, not trusted from
/// metadata, so a file growing under us cannot slip through). Returns the metadata read on the
/// way, so callers need no second `stat`.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<(Vec<u8>, fs::Metadata), ReadError> {
    let file = fs::File::open(path).map_err(ReadError::Io)?;
    let metadata = file.metadata().map_err(ReadError::Io)?;
    if metadata.len() > limit {
        return Err(ReadError::TooLarge(metadata.len()));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, metadata))
}
