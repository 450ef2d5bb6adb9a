//! Who may run which tool: a per-tool [`Permission`], an ask callback for [`Permission::Ask`],
//! and hooks that run before and after every tool call.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::conversation::{ToolCall, ToolResult};

/// What happens when the model calls a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Permission {
    /// Run it.
    Allow,
    /// Ask the [`Approver`] first; without one, refuse.
    Ask,
    /// Refuse; the model gets a `denied` error result.
    Deny,
}

/// Answers [`Permission::Ask`]: `true` runs the call. It may block (an interactive prompt on
/// stdin); the loop waits for it.
pub type Approver = Arc<dyn Fn(&ToolCall) -> bool + Send + Sync>;

/// The permission of each tool.
///
/// A tool's own default ([`Tool::default_permission`](super::tools::Tool::default_permission):
/// ask for `bash`, `write_file`, `edit_file`; allow for reading tools and `load_skill`) applies
/// unless [`set`](Self::set) or [`allow_all`](Self::allow_all) says otherwise.
#[derive(Clone, Default)]
pub struct PermissionPolicy {
    per_tool: HashMap<String, Permission>,
    all: Option<Permission>,
    approver: Option<Approver>,
}

impl fmt::Debug for PermissionPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PermissionPolicy")
            .field("per_tool", &self.per_tool)
            .field("all", &self.all)
            .field("approver", &self.approver.is_some())
            .finish()
    }
}

impl PermissionPolicy {
    /// Each tool's own default, no approver (so `Ask` tools are refused until one is set).
    pub fn new() -> Self {
        PermissionPolicy::default()
    }

    /// Every tool allowed without asking (`--yes`). Explicit [`set`](Self::set) entries still
    /// win, so a tool can be denied on top of this.
    pub fn allow_all() -> Self {
        PermissionPolicy {
            all: Some(Permission::Allow),
            ..PermissionPolicy::default()
        }
    }

    /// Sets the permission of one tool.
    pub fn set(mut self, tool: impl Into<String>, permission: Permission) -> Self {
        self.per_tool.insert(tool.into(), permission);
        self
    }

    /// Sets the callback that answers `Ask`.
    pub fn with_approver(mut self, approver: Approver) -> Self {
        self.approver = Some(approver);
        self
    }

    /// The permission for `tool`, whose own default is `tool_default`.
    pub fn permission(&self, tool: &str, tool_default: Permission) -> Permission {
        self.per_tool
            .get(tool)
            .copied()
            .or(self.all)
            .unwrap_or(tool_default)
    }

    /// Asks the approver about `call`; `None` when there is no approver.
    pub fn ask(&self, call: &ToolCall) -> Option<bool> {
        self.approver.as_ref().map(|approve| approve(call))
    }
}

/// What a before-hook decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookDecision {
    /// Go on (to the permission check and the call).
    Continue,
    /// Refuse the call with this reason; the model gets a `denied` error result.
    Deny(String),
}

/// Runs before each tool call, after the permission check.
pub type BeforeHook = Arc<dyn Fn(&ToolCall) -> HookDecision + Send + Sync>;
/// Runs after each tool call (also after refused and failed ones) with its result.
pub type AfterHook = Arc<dyn Fn(&ToolCall, &ToolResult) + Send + Sync>;

/// Hooks around tool calls (auditing, extra policy, metrics).
#[derive(Clone, Default)]
pub struct Hooks {
    pub(crate) before: Vec<BeforeHook>,
    pub(crate) after: Vec<AfterHook>,
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("before", &self.before.len())
            .field("after", &self.after.len())
            .finish()
    }
}

impl Hooks {
    /// No hooks.
    pub fn new() -> Self {
        Hooks::default()
    }

    /// Adds a hook run before each call.
    pub fn before(mut self, hook: BeforeHook) -> Self {
        self.before.push(hook);
        self
    }

    /// Adds a hook run after each call.
    pub fn after(mut self, hook: AfterHook) -> Self {
        self.after.push(hook);
        self
    }
}
