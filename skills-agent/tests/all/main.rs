//! The agent's integration tests in one binary: the loop against stand-in model servers of both
//! wire formats, the tools, sessions, evals, and the attacks on each. The stand-in servers and the
//! rest of what the workspace's tests share are in `skills-test-support`.
//!
//! The `bash` tool in its sandbox is tested by `tests/bash.rs`, a binary of its own: it calls the
//! sandbox's entry line first in its `main`, as a program running the agent does.

mod agent_api;
mod agent_budget;
mod agent_claude_code;
mod agent_invocation;
mod agent_parallel;
mod agent_resume;
mod agent_stream;
mod agent_tools;
mod attacks_fs;
mod attacks_key_echo;
mod attacks_preapproval;
mod attacks_prompt;
mod attacks_properties;
mod attacks_provider;
mod attacks_session;
mod attacks_terminal;
mod eval;
#[cfg(feature = "otlp")]
mod traces;
