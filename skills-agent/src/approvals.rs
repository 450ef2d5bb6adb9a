//! Approvals that last: a person answering `a` allows calls like the one asked about for the
//! rest of the session ([`ask_approval`], [`ApprovalScope`], [`SessionApprovals`]), as Claude
//! Code and Codex offer. [`ask_user`](crate::ask_user) is the same prompt without `a`.

use std::fmt;
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use skills_core::allowed_tools::plain_words;

use crate::conversation::ToolCall;
use crate::permission::CallDescription;
use crate::terminal::{APPROVAL_MARKER, terminal_line};

/// Asks a person whether `call` may run: writes [`APPROVAL_MARKER`](crate::APPROVAL_MARKER) (a
/// reset of the terminal's attributes and a marker that escaped model text cannot draw) and the
/// call's [`CallDescription::brief`] to `output`, then reads answers from `input` until one
/// decides. `y` or `yes` allows; `v` or `view` writes the [`full`](CallDescription::full)
/// description and asks again; anything else, or the end of the input, refuses.
/// [`ask_approval`] also offers `a`, for the rest of the session.
pub fn ask_user(call: &ToolCall, input: impl BufRead, output: impl Write) -> io::Result<bool> {
    ask(call, input, output, None).map(|answer| answer != Approval::Declined)
}

/// A person's answer to an approval prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Approval {
    /// `y`: this call may run.
    Once,
    /// `a`: this call, and the calls its [`ApprovalScope`] covers for the rest of the session.
    Session,
    /// Anything else, or the end of the input: the call does not run.
    Declined,
}

/// What an `a` answer allows for the rest of a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalScope {
    /// Every call of this tool.
    Tool(String),
    /// The `bash` commands whose first words are these: only commands of plain words, the rule
    /// of a `Bash(prefix:*)` entry in `allowed-tools`
    /// ([`command_matches`](skills_core::allowed_tools::command_matches)), so nothing the shell
    /// would expand, chain or redirect rides on it.
    CommandPrefix(Vec<String>),
    /// This `bash` command, exactly (one that is not plain words).
    Command(String),
}

impl ApprovalScope {
    /// The scope `a` offers for `call`: for `bash`, the command's program and, when the second
    /// word names a subcommand (`cargo test`, `git diff`, `npm run`), that word too; a command
    /// that is not plain words only itself. Every other tool whole.
    pub fn of(call: &ToolCall) -> ApprovalScope {
        if call.name != "bash" {
            return ApprovalScope::Tool(call.name.clone());
        }
        let command = call
            .input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match plain_words(command) {
            Some(words) => {
                let subcommand = words.get(1).filter(|word| {
                    word.starts_with(|c: char| c.is_ascii_lowercase())
                        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                });
                let mut prefix = vec![words[0].to_owned()];
                prefix.extend(subcommand.map(|word| (*word).to_owned()));
                ApprovalScope::CommandPrefix(prefix)
            }
            None => ApprovalScope::Command(command.to_owned()),
        }
    }

    /// Whether the scope covers `call`.
    pub fn covers(&self, call: &ToolCall) -> bool {
        let command = || call.input.get("command").and_then(Value::as_str);
        match self {
            ApprovalScope::Tool(tool) => call.name == *tool,
            ApprovalScope::CommandPrefix(prefix) => {
                call.name == "bash"
                    && command().is_some_and(|command| {
                        plain_words(command).is_some_and(|words| {
                            words.len() >= prefix.len()
                                && words.iter().zip(prefix).all(|(word, want)| word == want)
                        })
                    })
            }
            ApprovalScope::Command(exact) => {
                call.name == "bash" && command() == Some(exact.as_str())
            }
        }
    }
}

impl fmt::Display for ApprovalScope {
    /// For a person: `every write_file call`, `bash commands starting "cargo test"`, `this
    /// exact bash command`, the model's text escaped ([`terminal_line`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalScope::Tool(tool) => write!(f, "every {} call", terminal_line(tool, 80)),
            ApprovalScope::CommandPrefix(prefix) => write!(
                f,
                "bash commands starting \"{}\"",
                terminal_line(&prefix.join(" "), 80)
            ),
            ApprovalScope::Command(_) => f.write_str("this exact bash command"),
        }
    }
}

/// The `a` answers of one session: an approver asks it first, and remembers what `a` allowed.
/// Clones share the same answers.
///
/// ```
/// use std::sync::Arc;
/// use skills_runtime::agent::{Approval, ApprovalScope, PermissionPolicy, SessionApprovals, ask_approval};
///
/// let approvals = SessionApprovals::new();
/// let policy = PermissionPolicy::new().with_approver(Arc::new(move |call| {
///     if approvals.covers(call) {
///         return true;
///     }
///     match ask_approval(call, std::io::stdin().lock(), std::io::stderr()) {
///         Ok(Approval::Once) => true,
///         Ok(Approval::Session) => {
///             approvals.remember(ApprovalScope::of(call));
///             true
///         }
///         _ => false,
///     }
/// }));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SessionApprovals {
    scopes: Arc<Mutex<Vec<ApprovalScope>>>,
}

impl SessionApprovals {
    /// No answers yet.
    pub fn new() -> Self {
        SessionApprovals::default()
    }

    /// Whether an earlier `a` covers `call`.
    pub fn covers(&self, call: &ToolCall) -> bool {
        self.lock().iter().any(|scope| scope.covers(call))
    }

    /// Remembers `scope` for the rest of the session.
    pub fn remember(&self, scope: ApprovalScope) {
        let mut scopes = self.lock();
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }

    /// What was allowed so far, in order.
    pub fn scopes(&self) -> Vec<ApprovalScope> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ApprovalScope>> {
        self.scopes.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// [`ask_user`](crate::ask_user)'s prompt with one more answer: after [`APPROVAL_MARKER`] and the
/// call's [`CallDescription::brief`], a line saying what `a` would allow
/// ([`ApprovalScope::of`]), then `allow? [y/N/a, v = view]`. `y` or `yes` is
/// [`Approval::Once`], `a` or `always` [`Approval::Session`], `v` or `view` shows the
/// [`full`](CallDescription::full) description and asks again; anything else, or the end of
/// the input, is [`Approval::Declined`].
pub fn ask_approval(
    call: &ToolCall,
    input: impl BufRead,
    output: impl Write,
) -> io::Result<Approval> {
    ask(call, input, output, Some(&ApprovalScope::of(call)))
}

/// The prompt of [`ask_approval`], and of [`ask_user`](crate::ask_user) without `scope`.
pub(crate) fn ask(
    call: &ToolCall,
    mut input: impl BufRead,
    mut output: impl Write,
    scope: Option<&ApprovalScope>,
) -> io::Result<Approval> {
    let description = CallDescription::new(call);
    output.write_all(APPROVAL_MARKER.as_bytes())?;
    output.write_all(description.brief().as_bytes())?;
    if let Some(scope) = scope {
        writeln!(
            output,
            "  a = yes, and do not ask again this session for {scope}"
        )?;
    }
    let answers = if scope.is_some() { "y/N/a" } else { "y/N" };
    loop {
        let view = if description.is_abridged() {
            "v = view all"
        } else {
            "v = view"
        };
        write!(output, "  allow? [{answers}, {view}] ")?;
        output.flush()?;
        let mut answer = String::new();
        if input.read_line(&mut answer)? == 0 {
            return Ok(Approval::Declined);
        }
        let answer = answer.trim();
        let is = |short: &str, long: &str| {
            answer.eq_ignore_ascii_case(short) || answer.eq_ignore_ascii_case(long)
        };
        if is("y", "yes") {
            return Ok(Approval::Once);
        }
        if scope.is_some() && is("a", "always") {
            return Ok(Approval::Session);
        }
        if !is("v", "view") {
            return Ok(Approval::Declined);
        }
        output.write_all(description.full().as_bytes())?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(command: &str) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: "bash".into(),
            input: json!({ "command": command }),
        }
    }

    #[test]
    fn a_scope_covers_the_calls_like_the_one_asked_about() {
        let scope = ApprovalScope::of(&bash("cargo test --workspace"));
        assert_eq!(
            scope,
            ApprovalScope::CommandPrefix(vec!["cargo".into(), "test".into()])
        );
        assert!(scope.covers(&bash("cargo test -p x")));
        assert!(!scope.covers(&bash("cargo build")));
        // Only plain words ride on a prefix.
        assert!(!scope.covers(&bash("cargo test; curl x | sh")));
        assert!(!scope.covers(&bash("cargo test $(id)")));
        // A flag or a path is not a subcommand: the program alone.
        let ls = ApprovalScope::of(&bash("ls -la src"));
        assert_eq!(ls, ApprovalScope::CommandPrefix(vec!["ls".into()]));
        assert_eq!(ls.to_string(), "bash commands starting \"ls\"");
        // Not plain words: that command and no other.
        let piped = ApprovalScope::of(&bash("grep -rn x src | head"));
        assert!(piped.covers(&bash("grep -rn x src | head")));
        assert!(!piped.covers(&bash("grep -rn x src | head; rm -rf ~")));
        let write = ToolCall {
            id: "w".into(),
            name: "write_file".into(),
            input: json!({"path": "a", "content": "b"}),
        };
        assert_eq!(
            ApprovalScope::of(&write).to_string(),
            "every write_file call"
        );
        assert!(!ApprovalScope::of(&write).covers(&bash("ls")));
    }

    #[test]
    fn the_prompt_takes_y_a_v_and_declines_the_rest() {
        let call = bash("cargo test");
        let answer = |typed: &str| {
            let mut shown = Vec::new();
            let approval = ask_approval(&call, typed.as_bytes(), &mut shown).unwrap();
            (approval, String::from_utf8(shown).unwrap())
        };
        let (approval, shown) = answer("a\n");
        assert_eq!(approval, Approval::Session);
        assert!(shown.starts_with(APPROVAL_MARKER), "{shown}");
        assert!(
            shown.contains(
                "  a = yes, and do not ask again this session for bash commands starting \"cargo test\"\n  allow? [y/N/a, v = view] "
            ),
            "{shown}"
        );
        assert_eq!(answer("yes\n").0, Approval::Once);
        assert_eq!(answer("v\nALWAYS\n").0, Approval::Session);
        assert_eq!(answer("n\n").0, Approval::Declined);
        assert_eq!(answer("").0, Approval::Declined);
        // Without a scope (`ask_user`), `a` is no answer.
        assert_eq!(
            ask(&call, "a\n".as_bytes(), Vec::new(), None).unwrap(),
            Approval::Declined
        );
    }
}
