//! The root package's integration tests in one binary: the demo bundle, the example agent (its
//! flags, evals, terminal, and the attacks on it), the MCP server example and the rig example, each
//! with the feature its example needs. What the workspace's tests share is in
//! `skills-test-support`.
//!
//! One stays a binary of its own: `tests/hosts.rs` (real MCP hosts, with a harness that reports a
//! host that is not installed as ignored). trybuild's compile-fail cases are skills-macro's.

#[cfg(feature = "agent")]
mod agent_demo;
mod agent_eval;
#[cfg(feature = "agent")]
mod agent_terminal;
mod attacks_example;
mod attacks_session;
mod attacks_terminal;
mod demo_bundle;
#[cfg(feature = "agent")]
mod example_flags;
#[cfg(feature = "mcp")]
mod mcp;
mod rebuild;
#[cfg(feature = "rig")]
mod rig_agent;
#[cfg(all(feature = "agent", target_os = "linux"))]
mod terminal_support;
