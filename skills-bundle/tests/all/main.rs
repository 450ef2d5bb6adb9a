//! The bundle's integration tests in one binary: the registry and its restricted views, Claude
//! Code skills and their run-time text, invocation, resources and their materialization against
//! a hostile disk, and the registry built at run time from folders (`folders` feature). The
//! bundles several modules test are in [`registries`]; the skill folders of this crate's own
//! tests are in `tests/skills`.

mod attacks_materialize;
#[cfg(feature = "folders")]
mod built_registry;
mod claude_code;
mod claude_runtime;
mod invoke;
mod registries;
mod registry_views;
mod resources;
