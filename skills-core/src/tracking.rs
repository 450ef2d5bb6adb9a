//! How a crate's build script tells `embed_skills!` which folders cargo already watches.
//!
//! `skills_runtime::build::watch(&["skills"])` prints `cargo:rerun-if-changed=skills`, so cargo
//! reruns the build script, and rebuilds the crate, whenever anything in the folder changes; it
//! also passes the folders to the compiler in [`WATCHED_ENV`]. The macro then needs no
//! `include_bytes!` of the files under them to know when to rebuild: rustc does not read those
//! files a second time. Files outside the watched folders (a pack's, the lock) are tracked with
//! `include_bytes!` as before, and so is everything when the variable is not set.

/// The compiler variable that lists the watched folders ([`encode`]).
pub const WATCHED_ENV: &str = "SKILLS_RUNTIME_WATCHED";

/// Separates folders in the variable's value: a character no sensible path holds. A folder that
/// holds it is left out (its files are then tracked with `include_bytes!`).
const SEPARATOR: char = '|';

/// The value of [`WATCHED_ENV`] for `folders` (relative to the crate's `Cargo.toml`, as given to
/// `watch`): each folder as the macro shows a root, joined with `|`. Folders with a `|` or a line
/// break are left out.
pub fn encode(folders: &[&str]) -> String {
    folders
        .iter()
        .map(|folder| display_root(folder))
        .filter(|folder| !folder.is_empty() && !folder.contains([SEPARATOR, '\n', '\r']))
        .collect::<Vec<_>>()
        .join(&SEPARATOR.to_string())
}

/// The folders a [`WATCHED_ENV`] value lists.
pub fn decode(value: &str) -> Vec<&str> {
    value.split(SEPARATOR).filter(|f| !f.is_empty()).collect()
}

/// Whether the file shown as `shown_path` (relative to the crate's `Cargo.toml`, with `/`, as
/// diagnostics show it) lies under one of `watched` (from [`decode`]). A path that climbs out
/// (`..`) or is absolute is never under a watched folder.
pub fn is_watched(shown_path: &str, watched: &[&str]) -> bool {
    if shown_path.starts_with('/') || shown_path.split('/').any(|c| c == "..") {
        return false;
    }
    watched.iter().any(|folder| {
        *folder == "."
            || shown_path
                .strip_prefix(folder)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// A root as diagnostics show it, and as [`is_watched`] compares it: `/` separators, no `./`
/// prefix, no trailing `/`.
pub fn display_root(root: &str) -> String {
    let root = root.replace('\\', "/");
    let root = root.strip_prefix("./").unwrap_or(&root);
    root.trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_round_trip_and_cover_their_files() {
        let value = encode(&["skills", "./vendor/skills/", "a|b", "."]);
        assert_eq!(value, "skills|vendor/skills|.");
        let watched = decode(&value);
        assert_eq!(watched, ["skills", "vendor/skills", "."]);
        let watched = ["skills", "vendor/skills"];
        assert!(is_watched("skills/alpha/SKILL.md", &watched));
        assert!(is_watched("vendor/skills/x/refs/a.md", &watched));
        assert!(!is_watched("skills-other/alpha/SKILL.md", &watched));
        assert!(!is_watched("skills.lock", &watched));
        assert!(!is_watched("acme-skills@1.0.0/skills/x/SKILL.md", &watched));
        assert!(!is_watched("skills/../elsewhere/SKILL.md", &watched));
        assert!(!is_watched("/abs/skills/SKILL.md", &["/abs"]));
        assert!(is_watched("skills.lock", &["."]));
        assert!(decode("").is_empty());
    }
}
