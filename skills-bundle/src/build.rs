//! For `build.rs`: make a new skill folder trigger a rebuild ([`watch`]), publish a skill pack
//! ([`pack`]) and embed packs ([`packs`]).
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
//! which is `println!("cargo:rerun-if-changed=skills");` for each root, and one more line that
//! tells the macro which folders cargo watches (so rustc need not read their files again just
//! to track them).
//!
// The guide: the cache, locks and skill packs.
#![doc = include_str!("../docs/build.md")]

/// Tells cargo to rerun the build script, and so rebuild the crate, when anything under one of
/// `roots` (relative to the crate's `Cargo.toml`) changes.
///
/// It also tells `embed_skills!` which folders cargo watches, so that rustc need not read the
/// files under them a second time to track them: a rebuild after an edit costs less. Call it
/// once, with every root (a second call replaces what the first told the macro; nothing is
/// lost but that saving).
pub fn watch(roots: &[&str]) {
    for root in roots {
        println!("cargo:rerun-if-changed={root}");
    }
    println!(
        "cargo:rustc-env={}={}",
        skills_core::tracking::WATCHED_ENV,
        skills_core::tracking::encode(roots)
    );
}

/// For the build script of a **skill pack**, a crate whose `skills/` folder (beside its
/// `Cargo.toml`) other crates embed: publishes the pack's name, version and directory to the
/// crates that depend on it, and watches the folder.
///
/// The pack's `Cargo.toml` names itself in `links` (cargo hands a build script's metadata only
/// to dependents of a crate with a `links` key, and one version of it per build), and has
/// `skills-runtime` as a build dependency:
///
/// ```toml
/// [package]
/// name = "acme-skills"
/// links = "acme-skills"
///
/// [build-dependencies]
/// skills-runtime = "0.1"
/// ```
///
/// ```no_run
/// // build.rs of the pack
/// # #[allow(clippy::needless_doctest_main)]
/// fn main() {
///     skills_runtime::build::pack();
/// }
/// ```
///
/// The consuming crate calls [`packs`] in its own build script and names the pack in
/// `embed_skills!("skills", packs = ["acme-skills"])`.
pub fn pack() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let facts = [
        var("CARGO_PKG_NAME"),
        var("CARGO_PKG_VERSION"),
        var("CARGO_MANIFEST_DIR"),
    ];
    for (key, value) in skills_core::pack::METADATA_KEYS.iter().zip(facts) {
        println!("cargo::metadata={}={value}", key.to_ascii_lowercase());
    }
    println!("cargo::rerun-if-changed={}", skills_core::pack::PACK_FOLDER);
}

/// For the build script of a crate that embeds **skill packs**: passes every pack among its
/// direct dependencies (crates whose build script calls [`pack`]) on to `embed_skills!`, which
/// takes the ones its `packs = [...]` option names, and watches their folders.
///
/// ```no_run
/// // build.rs of the crate that embeds the packs
/// # #[allow(clippy::needless_doctest_main)]
/// fn main() {
///     skills_runtime::build::packs();
///     skills_runtime::build::watch(&["skills"]);
/// }
/// ```
///
/// A pack is an ordinary dependency: `Cargo.lock` pins its version, `cargo update -p NAME`
/// moves it, and where cargo keeps its files (the registry's sources, a git checkout, a path)
/// does not matter.
pub fn packs() {
    for pack in skills_core::pack::from_build_env(std::env::vars()) {
        let (variable, value) = pack.rustc_env();
        println!("cargo::rustc-env={variable}={value}");
        println!("cargo::rerun-if-changed={}", pack.skills_dir().display());
    }
}
