//! The interactive prompt on a terminal, on rustyline: line editing, history kept in the
//! person's state folder (`$XDG_STATE_HOME/skills-rs/agent_history`, else
//! `~/.local/state/...`, mode 0600; a line starting with a space is not kept), several lines
//! (end a line with `\` or press Alt-Enter for a new one; a pasted text keeps its lines), and
//! Tab completion of `/name` for the skills a person may invoke.

use std::path::PathBuf;

use rustyline::completion::Completer;
use rustyline::config::Config;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Cmd, Context, Editor, EventHandler, Helper, KeyCode, KeyEvent, Modifiers};

/// What the prompt read.
pub enum Read {
    /// A prompt (several lines joined by line breaks).
    Line(String),
    /// Ctrl-C.
    Interrupted,
    /// Ctrl-D on an empty line.
    End,
}

/// The line editor of the interactive session.
pub struct Prompt {
    editor: Editor<Skills, DefaultHistory>,
    history: Option<PathBuf>,
}

impl Prompt {
    /// An editor completing the names `invocable`, with the history file's lines loaded.
    pub fn new(invocable: Vec<String>) -> Result<Prompt, String> {
        let config = Config::builder()
            .max_history_size(1000)
            .and_then(|builder| builder.history_ignore_dups(true))
            .map_err(|e| e.to_string())?
            .history_ignore_space(true)
            .auto_add_history(false)
            .build();
        let mut editor =
            Editor::<Skills, DefaultHistory>::with_config(config).map_err(|e| e.to_string())?;
        editor.set_helper(Some(Skills { names: invocable }));
        editor.bind_sequence(
            KeyEvent(KeyCode::Enter, Modifiers::ALT),
            EventHandler::Simple(Cmd::Newline),
        );
        let history = history_file();
        if let Some(path) = &history
            && path.exists()
            && let Err(error) = editor.load_history(path)
        {
            eprintln!("warning: history {}: {error}", path.display());
        }
        Ok(Prompt { editor, history })
    }

    /// Reads the next prompt (blocking: the caller runs it off the async threads).
    pub fn read(&mut self) -> Result<Read, String> {
        match self.editor.readline("> ") {
            Ok(line) => {
                let text = line.replace("\\\n", "\n");
                if !text.trim().is_empty() {
                    let _ = self.editor.add_history_entry(line.as_str());
                    if let Some(path) = &self.history
                        && let Err(error) = self.editor.append_history(path)
                    {
                        eprintln!("warning: history {}: {error}", path.display());
                    }
                }
                Ok(Read::Line(text))
            }
            Err(ReadlineError::Interrupted) => Ok(Read::Interrupted),
            Err(ReadlineError::Eof) => Ok(Read::End),
            Err(error) => Err(error.to_string()),
        }
    }
}

/// `$XDG_STATE_HOME/skills-rs/agent_history` (an absolute `XDG_STATE_HOME` only, as the XDG
/// specification says), else `$HOME/.local/state/skills-rs/agent_history`, its folder made
/// private (0700) when it is new; `None` without either.
fn history_file() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| {
            let home = PathBuf::from(std::env::var_os("HOME")?);
            home.is_absolute().then(|| home.join(".local/state"))
        })?;
    let dir = state.join("skills-rs");
    let created = {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
    };
    match created {
        Ok(()) => Some(dir.join("agent_history")),
        Err(error) => {
            eprintln!("warning: no history: {}: {error}", dir.display());
            None
        }
    }
}

/// The editor's helper: `/name` completion and the lines of one prompt.
struct Skills {
    names: Vec<String>,
}

impl Completer for Skills {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let typed = &line[..pos];
        let Some(name) = typed.strip_prefix('/') else {
            return Ok((0, Vec::new()));
        };
        if name.contains(char::is_whitespace) {
            return Ok((0, Vec::new()));
        }
        let found = self
            .names
            .iter()
            .filter(|candidate| candidate.starts_with(name))
            .cloned()
            .collect();
        Ok((1, found))
    }
}

impl Validator for Skills {
    /// A line ending with `\` continues on the next one.
    fn validate(&self, context: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if context.input().ends_with('\\') {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Hinter for Skills {
    type Hint = String;
}

impl Highlighter for Skills {}

impl Helper for Skills {}
