//! Who may run which tool: a per-tool [`Permission`], an ask callback for [`Permission::Ask`],
//! what that callback shows a person ([`CallDescription`]; the prompt itself is
//! [`ask_user`](crate::ask_user)), and hooks that run
//! before and after every tool call.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::conversation::{ToolCall, ToolResult};
use crate::terminal::{escape_line as escape, terminal_line};

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
/// stdin, such as [`ask_user`](crate::ask_user)); the loop waits for it.
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

/// What a tool call will do, rendered for a person deciding whether to allow it.
///
/// Everything the model sent can be seen, and nothing it sent can move the cursor, clear the
/// line or reorder text:
///
/// - every control character (C0 but the line break, DEL, C1) and every invisible formatting
///   character (bidirectional overrides and isolates, zero-width characters, tag characters,
///   variation selectors and the like) is shown escaped: `\r`, `\t`, `\x1b`, `\u{202e}`, as
///   [`terminal_line`] does, and so is the flag of
///   [`APPROVAL_MARKER`](crate::APPROVAL_MARKER). A backslash already in the text is shown as is.
/// - Multi-line text is shown line by line behind a gutter (`  | `), so a line the model wrote
///   cannot pass for the prompt's own.
/// - `bash` shows its command; `write_file` its path, size in bytes and lines, and content;
///   `edit_file` its path and the old text (lines prefixed `-`) and new text (`+`); any other
///   tool, or a known one with unexpected input, its name and its input as JSON. Input fields
///   a tool's view does not show are listed as JSON after it.
/// - [`brief`](Self::brief) shows at most the first 1,500 characters (40 lines) and the last 500
///   (10 lines) of each text, with `[+N more characters]` in place of the rest, and at most 300
///   characters of a path; [`full`](Self::full) shows everything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallDescription {
    brief: String,
    full: String,
}

/// How much of a text [`CallDescription::brief`] shows.
const HEAD_CHARS: usize = 1_500;
const HEAD_LINES: usize = 40;
const TAIL_CHARS: usize = 500;
const TAIL_LINES: usize = 10;
const PATH_CHARS: usize = 300;

impl CallDescription {
    /// Describes `call`.
    pub fn new(call: &ToolCall) -> Self {
        CallDescription {
            brief: render_call(call, true),
            full: render_call(call, false),
        }
    }

    /// The description with long texts cut to their head and tail, each cut marked
    /// `[+N more characters]` (N counts characters, before escaping). Ends with a newline.
    pub fn brief(&self) -> &str {
        &self.brief
    }

    /// The whole description, nothing left out. Ends with a newline.
    pub fn full(&self) -> &str {
        &self.full
    }

    /// Whether [`brief`](Self::brief) leaves something out.
    pub fn is_abridged(&self) -> bool {
        self.brief != self.full
    }
}

impl fmt::Display for CallDescription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.brief)
    }
}

/// The part of `text` [`CallDescription::brief`] shows: `(head, hidden characters, tail)`,
/// or `None` when it shows all of it.
fn excerpt(text: &str) -> Option<(&str, usize, &str)> {
    let mut head_end = text.len();
    let mut lines = 0;
    for (count, (at, c)) in text.char_indices().enumerate() {
        if count == HEAD_CHARS || lines == HEAD_LINES {
            head_end = at;
            break;
        }
        lines += usize::from(c == '\n');
    }
    let mut tail_start = 0;
    let mut lines = 0;
    // A final line break does not start a line of its own.
    let body = text.strip_suffix('\n').unwrap_or(text);
    for (count, (at, c)) in body.char_indices().rev().enumerate() {
        if count == TAIL_CHARS {
            tail_start = at + c.len_utf8();
            break;
        }
        if c == '\n' {
            lines += 1;
            if lines == TAIL_LINES {
                tail_start = at + 1;
                break;
            }
        }
    }
    (head_end < tail_start).then(|| {
        let hidden = text[head_end..tail_start].chars().count();
        (&text[..head_end], hidden, &text[tail_start..])
    })
}

/// Writes `text` line by line, each line escaped behind `gutter`; with `abridge`, only its
/// [`excerpt`] and a marker for the rest.
fn push_block(out: &mut String, text: &str, gutter: &str, abridge: bool) {
    fn lines(out: &mut String, part: &str, gutter: &str) {
        let part = part.strip_suffix('\n').unwrap_or(part);
        for line in part.split('\n') {
            out.push_str(gutter);
            out.push_str(&escape(line));
            out.push('\n');
        }
    }
    if text.is_empty() {
        out.push_str("  (empty)\n");
        return;
    }
    match excerpt(text).filter(|_| abridge) {
        None => lines(out, text, gutter),
        Some((head, hidden, tail)) => {
            lines(out, head, gutter);
            out.push_str(&format!("  [+{hidden} more characters]\n"));
            lines(out, tail, gutter);
        }
    }
}

fn count(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The string fields `keys` of `input`, when it is an object that has them all.
fn strings<'a, const N: usize>(input: &'a Value, keys: [&str; N]) -> Option<[&'a str; N]> {
    let object = input.as_object()?;
    let mut found = [""; N];
    for (slot, key) in found.iter_mut().zip(keys) {
        *slot = object.get(key)?.as_str()?;
    }
    Some(found)
}

fn render_call(call: &ToolCall, abridge: bool) -> String {
    let name = escape(&call.name);
    let path = |path: &str| {
        if abridge {
            terminal_line(path, PATH_CHARS)
        } else {
            escape(path)
        }
    };
    let mut out = String::new();
    let shown: &[&str] = match call.name.as_str() {
        "bash" => match strings(&call.input, ["command"]) {
            Some([command]) => {
                out.push_str(&format!(
                    "{name} wants to run this command ({}, {}):\n",
                    count(command.lines().count(), "line"),
                    count(command.chars().count(), "character")
                ));
                push_block(&mut out, command, "  | ", abridge);
                &["command"]
            }
            None => &[],
        },
        "write_file" => match strings(&call.input, ["path", "content"]) {
            Some([file, content]) => {
                out.push_str(&format!(
                    "{name} wants to write {} ({}, {}):\n",
                    path(file),
                    count(content.len(), "byte"),
                    count(content.lines().count(), "line")
                ));
                push_block(&mut out, content, "  | ", abridge);
                &["path", "content"]
            }
            None => &[],
        },
        "edit_file" => match strings(&call.input, ["path", "old_text", "new_text"]) {
            Some([file, old, new]) => {
                out.push_str(&format!(
                    "{name} wants to change {}, replacing ({}):\n",
                    path(file),
                    count(old.lines().count(), "line")
                ));
                push_block(&mut out, old, "  - ", abridge);
                out.push_str(&format!("with ({}):\n", count(new.lines().count(), "line")));
                push_block(&mut out, new, "  + ", abridge);
                &["path", "old_text", "new_text"]
            }
            None => &[],
        },
        _ => &[],
    };
    if shown.is_empty() {
        out.push_str(&format!("{name} wants to run with this input:\n"));
        push_block(&mut out, &pretty(&call.input), "  | ", abridge);
    } else if let Some(object) = call.input.as_object()
        && object.keys().any(|key| !shown.contains(&key.as_str()))
    {
        let rest: serde_json::Map<String, Value> = object
            .iter()
            .filter(|(key, _)| !shown.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        out.push_str("and this other input:\n");
        push_block(&mut out, &pretty(&Value::Object(rest)), "  | ", abridge);
    }
    out
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_keeps_head_and_tail_and_counts_the_rest() {
        assert_eq!(excerpt("short"), None);
        let long = "x".repeat(HEAD_CHARS + TAIL_CHARS + 7);
        let (head, hidden, tail) = excerpt(&long).unwrap();
        assert_eq!(
            (head.len(), hidden, tail.len()),
            (HEAD_CHARS, 7, TAIL_CHARS)
        );
        let many: String = (1..=100).map(|n| format!("{n}\n")).collect();
        let (head, hidden, tail) = excerpt(&many).unwrap();
        assert_eq!(head.lines().count(), HEAD_LINES);
        assert_eq!(tail, "91\n92\n93\n94\n95\n96\n97\n98\n99\n100\n");
        assert_eq!(hidden, many.len() - head.len() - tail.len());
        // Exactly at the limits: nothing is cut.
        let edge = "y".repeat(HEAD_CHARS + TAIL_CHARS);
        assert_eq!(excerpt(&edge), None);
    }
}
