//! Skill folders written at test time.

use std::fs;
use std::path::Path;

/// Writes `text` to the file `path`, making the folders on the way first.
pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}
