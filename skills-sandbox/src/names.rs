//! The names the caller and the stages share: the environment variables that tell a copy of
//! the program which stage it is and where its call's folder is, the stages' names, and the
//! name the first stage is started under.

// Outside Linux only the entry line reads them.
#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

/// Environment variable naming the stage a copy of the program runs.
pub(crate) const STAGE: &str = "SKILLS_SANDBOX_STAGE";
/// Environment variable naming the call's private folder.
pub(crate) const CALL: &str = "SKILLS_SANDBOX_CALL";
/// The prefix of the variables above, none of which reaches the command.
pub(crate) const ENV_PREFIX: &str = "SKILLS_SANDBOX_";

/// [`STAGE`] of the first stage, which the caller spawns.
pub(crate) const OUTER: &str = "outer";
/// [`STAGE`] of the second stage without namespaces, which becomes the command.
pub(crate) const FALLBACK: &str = "fallback";

/// The name (`argv[0]`) the first stage is started under: with it and without [`STAGE`], a
/// copy of the program knows that its caller cleared the environment the stage needs, and
/// stops instead of running as the program.
pub(crate) const OUTER_ARG0: &str = "skills-sandbox";

/// The exit code of a stage that could not build the sandbox (the report says why), or of a
/// copy of the program started as a stage without the stage's environment.
pub(crate) const EXIT_SETUP_FAILED: i32 = 125;
