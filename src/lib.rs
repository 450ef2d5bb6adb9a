//! Helpers shared by the demo package's examples and tests: what progressive disclosure saves.
//! (The offline stand-in for a model the example agent falls back to without an API key is
//! `skills_runtime::agent::provider::scripted`.)
//!
//! The package itself exists to be the library's first user: it owns the demo bundle
//! `skills/`, the examples and the integration tests.

// The README's Rust examples are this package's doctests, so user code as the README shows it
// compiles against the crates as they are (the agent's, which need a model, are `no_run`).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeExamples;

// The same for skills-runtime's README (what crates.io shows), whose examples embed a `skills/`
// folder that crate does not have and this package does.
#[doc = include_str!("../skills-runtime/README.md")]
#[cfg(doctest)]
pub struct RuntimeReadmeExamples;

use skills_runtime::Registry;

/// What a request carries with progressive disclosure (the catalog) against what it would carry
/// if every skill's instructions were in the system prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisclosureSummary {
    /// Number of skills in the registry.
    pub skills: usize,
    /// Bytes of the catalog, sent with every request.
    pub catalog_bytes: usize,
    /// Bytes of all bodies together, sent only when loaded.
    pub body_bytes: usize,
}

impl DisclosureSummary {
    /// Measures a registry.
    pub fn of(registry: &Registry) -> Self {
        DisclosureSummary {
            skills: registry.len(),
            catalog_bytes: registry.catalog().len(),
            body_bytes: registry.iter().map(|skill| skill.body().len()).sum(),
        }
    }

    /// Bytes kept out of every request: the bodies minus the catalog that replaces them.
    pub fn saved_bytes(&self) -> usize {
        self.body_bytes.saturating_sub(self.catalog_bytes)
    }

    /// [`saved_bytes`](Self::saved_bytes) as a percentage of the bodies (0 with no bodies).
    pub fn saved_percent(&self) -> f64 {
        if self.body_bytes == 0 {
            return 0.0;
        }
        100.0 * self.saved_bytes() as f64 / self.body_bytes as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SKILLS: Registry = skills_runtime::embed_skills!("skills");

    #[test]
    fn the_demo_bundle_saves_most_of_its_text() {
        let summary = DisclosureSummary::of(&SKILLS);
        assert_eq!(summary.skills, SKILLS.len());
        assert!(summary.catalog_bytes < summary.body_bytes);
        assert_eq!(
            summary.saved_bytes(),
            summary.body_bytes - summary.catalog_bytes
        );
        assert!(summary.saved_percent() > 50.0, "{summary:?}");
    }

    #[test]
    fn an_empty_registry_saves_nothing() {
        let summary = DisclosureSummary::of(&Registry::empty());
        assert_eq!(
            (
                summary.skills,
                summary.saved_bytes(),
                summary.saved_percent()
            ),
            (0, 0, 0.0)
        );
    }
}
