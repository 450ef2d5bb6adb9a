//! The paths a call may name: the working directory, the policy's extra paths and an entry
//! program, each absolute, without `..`, existing, and not `/`.

use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::error::SandboxError;

/// The working directory as an absolute path without symbolic links; not `/`, which would
/// open the whole host.
pub(crate) fn checked_workdir(workdir: &Path) -> Result<PathBuf, SandboxError> {
    let real = fs::canonicalize(workdir).map_err(|_| SandboxError::InvalidPath {
        path: workdir.to_owned(),
        reason: "the working directory does not exist",
    })?;
    if !real.is_dir() {
        return Err(SandboxError::InvalidPath {
            path: workdir.to_owned(),
            reason: "the working directory is not a folder",
        });
    }
    checked_absolute(&real)?;
    Ok(real)
}

/// `path` if it is absolute, has no `..`, exists and is not `/`.
pub(crate) fn checked_absolute(path: &Path) -> Result<&Path, SandboxError> {
    let invalid = |reason| SandboxError::InvalidPath {
        path: path.to_owned(),
        reason,
    };
    if !path.is_absolute() {
        return Err(invalid("the path is not absolute"));
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(invalid("the path has a `..` component"));
    }
    if path.parent().is_none() {
        return Err(invalid("the path is the whole filesystem"));
    }
    if fs::symlink_metadata(path).is_err() {
        return Err(invalid("the path does not exist"));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unusable_paths_are_refused_with_the_reason() {
        for (path, reason) in [
            ("relative", "the path is not absolute"),
            ("/usr/../etc", "the path has a `..` component"),
            ("/", "the path is the whole filesystem"),
            ("/no/such/path/here", "the path does not exist"),
        ] {
            match checked_absolute(Path::new(path)) {
                Err(SandboxError::InvalidPath { reason: got, .. }) => assert_eq!(got, reason),
                other => panic!("{path}: {other:?}"),
            }
        }
        assert!(checked_absolute(Path::new("/usr")).is_ok());
        assert!(matches!(
            checked_workdir(Path::new("/")),
            Err(SandboxError::InvalidPath { .. })
        ));
    }
}
