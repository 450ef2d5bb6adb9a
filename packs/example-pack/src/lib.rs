//! An example skill pack: a crate that carries a `skills/` folder, its trigger cases and its
//! lock, for other crates to embed.
//!
//! A crate that depends on it compiles the pack's skills together with its own, validated as
//! one bundle, by naming it in `embed_skills!`, with one line in its build script:
//!
//! ```ignore
//! // build.rs
//! fn main() {
//!     skills_runtime::build::packs();
//! }
//!
//! // src/main.rs
//! static SKILLS: skills_runtime::Registry =
//!     skills_runtime::embed_skills!("skills", packs = ["skills-example-pack"]);
//! ```
//!
//! Programs that pick packs at run time use [`SKILLS`], the pack's own registry.

/// The pack's skills, checked against the pack's own lock.
///
/// ```
/// assert!(skills_example_pack::SKILLS.get("release-notes").is_some());
/// assert!(skills_example_pack::SKILLS.lock_digest().is_some());
/// ```
pub static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("skills", lock = "skills.lock");
