//! The static bundle that `embed_skills!` compiles: [`Registry`], [`Skill`], [`SkillLoader`],
//! resources and a person's `/name arguments` ([`invoke`]). No dependencies beyond the
//! dependency-free renderers of `skills-core`, and nothing read or parsed at run time.
//!
//! Users add `skills-runtime`, which re-exports this crate flat with the macros; the agent
//! (`skills-agent`) and the MCP server (`skills-mcp-server`) build on it.
//!
//! ```
//! static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");
//!
//! assert_eq!(SKILLS.len(), 1);
//! assert_eq!(SKILLS.get("greet").unwrap().version(), Some("1.0"));
//! ```
//!
// The guide to a skill's files: what is embedded and how a program gets them back.
#![doc = include_str!("../docs/resources.md")]

pub mod build;
mod bundle;
mod error;
#[cfg(feature = "folders")]
mod folders;
pub mod invoke;
mod load;
mod openai;
mod registry;
mod resources;
mod skill;
mod tools;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use bundle::{Resource, Skill, TriggerCase};
pub use error::{DuplicateSkill, InvokeError, ResourceError, UnknownSkill};
pub use load::{LoadRendering, SkillLoad, SkillLoader};
pub use openai::{OpenAiYaml, ToolDependency};
pub use registry::{Iter, Registry};
pub use resources::{DEFAULT_READ_LIMIT, default_resource_dir};
pub use skills_core::claude_code::{Effort, Shell, SkillContext};
pub use skills_core::render::{CatalogEntry, EMPTY_CATALOG, LOAD_SKILL_TOOL};
pub use skills_core::tasks::{Assertion, Check, Fixture, TaskCase};
