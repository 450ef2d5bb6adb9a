//! For `build.rs`: make a new skill folder trigger a rebuild.
//!
//! `embed_skills!` tracks every file it reads, so editing or deleting a skill already rebuilds.
//! A folder that did not exist at the last build cannot be tracked that way; one line in
//! `build.rs` watches the roots:
//!
//! ```no_run
//! // build.rs
//! # #[allow(clippy::needless_doctest_main)]
//! fn main() {
//!     skills_runtime::build::watch(&["skills"]);
//! }
//! ```
//!
//! which is the same as `println!("cargo:rerun-if-changed=skills");` for each root.
//!
//! Having a build script also gives the crate an `OUT_DIR`, where `embed_skills!` keeps the
//! per-file results of unchanged skill folders, so a rebuild after one edit re-reads one skill.

/// Tells cargo to rerun the build script, and so rebuild the crate, when anything under one of
/// `roots` (relative to the crate's `Cargo.toml`) changes.
pub fn watch(roots: &[&str]) {
    for root in roots {
        println!("cargo:rerun-if-changed={root}");
    }
}
