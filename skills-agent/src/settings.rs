//! [`Settings`]: what the builder sets and an agent keeps, one struct for both (a forked
//! skill's child agent starts from a copy of its parent's).

use std::path::PathBuf;
use std::sync::Arc;

use crate::permission::{Hooks, PermissionPolicy};
use crate::provider::api::Provider;
use crate::tools::{FailureTracker, Tool};

// The defaults, documented where users read them: `AgentBuilder`'s constants of the same names.
pub(crate) const DEFAULT_MAX_TURNS: u32 = 30;
pub(crate) const DEFAULT_MAX_TOOL_CALLS_PER_TURN: usize = 64;
pub(crate) const DEFAULT_MAX_PARALLEL_TOOLS: usize = 4;
pub(crate) const DEFAULT_MAX_TRANSCRIPT_BYTES: u64 = 64 * 1024 * 1024;
pub(crate) const DEFAULT_PREAMBLE: &str = "You are a capable software agent working in a project \
directory. Use the tools to inspect and change files and run commands; paths are relative to \
the working directory. Be concise, and say what you did.";

/// The settings of an agent, as the builder's methods set them (see
/// [`AgentBuilder`](crate::AgentBuilder) for each).
#[derive(Clone)]
pub(crate) struct Settings {
    pub(crate) provider: Arc<dyn Provider>,
    /// The tools besides `load_skill` and `read_skill_resource`, in order.
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    /// The system prompt's text before the catalog (all of it in a forked skill's child).
    pub(crate) preamble: String,
    pub(crate) max_turns: u32,
    pub(crate) max_tool_calls_per_turn: usize,
    pub(crate) max_parallel_tools: usize,
    pub(crate) policy: PermissionPolicy,
    pub(crate) hooks: Hooks,
    /// The failure tracker each new session starts from.
    pub(crate) tracker: FailureTracker,
    pub(crate) resource_dir: Option<PathBuf>,
    pub(crate) strict_allowed_tools: bool,
    pub(crate) run_skill_commands: bool,
    pub(crate) fork_max_turns: u32,
    pub(crate) stream: bool,
    /// The context window and the reply reserve set on the builder, if any; otherwise the
    /// budget takes the defaults of the provider and model.
    pub(crate) context_window: Option<u64>,
    pub(crate) reply_reserve: Option<u64>,
    pub(crate) max_transcript_bytes: u64,
}

impl Settings {
    /// The defaults, with `provider` and the built-in tools.
    pub(crate) fn new(provider: Arc<dyn Provider>) -> Self {
        Settings {
            provider,
            tools: crate::tools::builtin_tools(),
            preamble: DEFAULT_PREAMBLE.to_owned(),
            max_turns: DEFAULT_MAX_TURNS,
            max_tool_calls_per_turn: DEFAULT_MAX_TOOL_CALLS_PER_TURN,
            max_parallel_tools: DEFAULT_MAX_PARALLEL_TOOLS,
            policy: PermissionPolicy::new(),
            hooks: Hooks::new(),
            tracker: FailureTracker::default(),
            resource_dir: None,
            strict_allowed_tools: false,
            run_skill_commands: false,
            fork_max_turns: DEFAULT_MAX_TURNS,
            stream: false,
            context_window: None,
            reply_reserve: None,
            max_transcript_bytes: DEFAULT_MAX_TRANSCRIPT_BYTES,
        }
    }
}
