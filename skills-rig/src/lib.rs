//! Agent Skills for [rig](https://docs.rs/rig-agent) agents: a bundle compiled in by
//! `embed_skills!` becomes rig's `load_skill` and `read_skill_resource` tools and a catalog in
//! the preamble, with one call on rig's agent builder.
//!
//! ```
//! use rig_agent::AgentBuilder;
//! use rig_agent::core::{DynModel, operation::Completion};
//! use skills_rig::AgentBuilderExt;
//!
//! static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("../skills");
//!
//! fn assistant(model: impl Into<DynModel<Completion>>) -> rig_agent::Agent {
//!     AgentBuilder::new(model)
//!         .preamble("You are a careful engineer.")
//!         .skills(&SKILLS)
//!         .build()
//! }
//! ```
//!
//! The tools answer exactly as the registry does ([`Registry::load_skill`],
//! [`Registry::read_resource`]), their descriptions and schemas (the names as an enum) are the
//! ones the agent and the MCP server send, and a conversation gets each body once
//! ([`SkillTools`]). Person-only skills stay out, and a
//! [`restrict`](skills_bundle::Registry::restrict)ed registry serves only its skills.
//!
//! This crate adds rig-core and rig-agent without their default features: it sends nothing
//! itself, and the application chooses rig's HTTP transport and provider.
//!
//! [`Registry::load_skill`]: skills_bundle::Registry::load_skill
//! [`Registry::read_resource`]: skills_bundle::Registry::read_resource
//!
// The guide: conversations, versions and the example agent.
#![doc = include_str!("../docs/guide.md")]

mod builder;
mod definition;
mod load;
mod resource;
mod tools;

pub use builder::AgentBuilderExt;
pub use load::{LoadSkill, LoadSkillArgs};
pub use resource::{ReadSkillResource, ReadSkillResourceArgs};
pub use tools::SkillTools;
