//! The bundles several modules test, each compiled into the binary once.

use skills_runtime::Registry;

/// Skills with resources (`pdf-forms`: a text file, a binary one, an executable script) and
/// one without (`plain`).
pub static WITH_RESOURCES: Registry =
    skills_runtime::embed_skills!("../skills-test-support/fixtures/with-resources");

/// Skills written for Claude Code, compiled with `compat = "claude-code"`.
pub static CLAUDE_CODE: Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/claude-code",
    compat = "claude-code"
);

/// Skills with and without resources, versions, `when-not-to-use`, and names that are one typo
/// apart from others.
pub static MIXED: Registry = skills_runtime::embed_skills!(
    "tests/skills",
    "../skills-test-support/fixtures/with-resources",
    "../skills-test-support/fixtures/valid"
);
