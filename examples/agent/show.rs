//! What a person sees of a run: the assistant's text on stdout as it arrives, and on stderr each
//! tool call with the first lines of what it returned, a spinner while calls run, the context
//! budget's cuts, and a footer. Everything the model or a tool wrote is escaped
//! ([`agent::terminal_text`], [`agent::terminal_line`]) before the colours go around it.

use std::io::Write;

use serde_json::Value;
use skills_runtime::agent::{self, AgentEvent, RunOutput, TerminalEscaper, ToolCall, ToolResult};

use crate::spinner::Spinner;
use crate::style::Style;

/// Lines of a tool's result shown under the call.
const PREVIEW_LINES: usize = 4;
/// Characters of one such line, or of the call's arguments.
const LINE_CHARS: usize = 160;

/// A tool call in a line: `bash(cargo test)`, `read_file(src/lib.rs)`, escaped and cut.
pub fn call_label(call: &ToolCall) -> String {
    let key = match call.name.as_str() {
        "bash" => Some("command"),
        "read_file" | "write_file" | "edit_file" => Some("path"),
        "glob" => Some("pattern"),
        "load_skill" => Some("name"),
        _ => None,
    };
    let argument = key
        .and_then(|key| call.input.get(key))
        .and_then(Value::as_str)
        .map_or_else(|| call.input.to_string(), str::to_owned);
    format!(
        "{}({})",
        agent::terminal_line(&call.name, 60),
        agent::terminal_line(&argument, 80)
    )
}

/// The lines of `result` a person sees under its call: the first [`PREVIEW_LINES`], escaped
/// and cut, then `… N more lines`.
pub fn preview(result: &str) -> Vec<String> {
    let lines: Vec<&str> = result.lines().collect();
    let mut shown: Vec<String> = lines
        .iter()
        .take(PREVIEW_LINES)
        .map(|line| {
            let escaped = agent::terminal_text(line);
            match escaped.char_indices().nth(LINE_CHARS) {
                Some((at, _)) => format!("{}…", &escaped[..at]),
                None => escaped,
            }
        })
        .collect();
    if lines.len() > PREVIEW_LINES {
        shown.push(format!("… {} more lines", lines.len() - PREVIEW_LINES));
    }
    if shown.is_empty() {
        shown.push("(nothing)".to_owned());
    }
    shown
}

/// Prints one run as it goes.
pub struct Printer {
    /// The escaper of the model's text; `None` prints it raw (`--raw-output`).
    escaper: Option<TerminalEscaper>,
    /// Text was printed since the last line end.
    mid_line: bool,
    style: Style,
    spinner: Spinner,
}

impl Printer {
    pub fn new(raw_output: bool, style: Style, spinner: Spinner) -> Self {
        Printer {
            escaper: (!raw_output).then(TerminalEscaper::new),
            mid_line: false,
            style,
            spinner,
        }
    }

    pub fn event(&mut self, event: &AgentEvent<'_>) {
        match event {
            AgentEvent::TextDelta(text) => {
                let shown = match &mut self.escaper {
                    Some(escaper) => escaper.push(text),
                    None => (*text).to_owned(),
                };
                self.print(&shown);
            }
            AgentEvent::ToolCallStarted { call, .. } => {
                // A tool's lines and an approval question start on lines of their own.
                self.end_line();
                self.spinner.start(&call.id, call_label(call));
            }
            AgentEvent::ToolResult { call, result, .. } => {
                self.end_line();
                self.spinner.finish(&call.id);
                let block = self.tool_block(call, result);
                self.spinner.suspend(|| eprint!("{block}"));
            }
            AgentEvent::ContextShortened { cut, .. } => {
                self.end_line();
                eprintln!(
                    "{}",
                    self.style.dim(&format!(
                        "  [context] shortened an earlier {} result ({} -> {} bytes) to fit the \
                         window",
                        agent::terminal_line(&cut.tool, 80),
                        cut.bytes_before,
                        cut.bytes_after
                    ))
                );
            }
            AgentEvent::TurnFinished { .. } => self.end_line(),
            _ => {}
        }
    }

    /// `● name(argument)` and the preview of its result, red when it failed.
    fn tool_block(&self, call: &ToolCall, result: &ToolResult) -> String {
        let style = self.style;
        let bullet = if result.is_error {
            style.red("●")
        } else {
            style.green("●")
        };
        let mut block = format!("{bullet} {}\n", style.bold(&call_label(call)));
        for (i, line) in preview(&result.content).iter().enumerate() {
            let gutter = if i == 0 { "  ⎿ " } else { "    " };
            let line = if result.is_error {
                style.red(line)
            } else {
                style.dim(line)
            };
            block.push_str(&format!("{gutter}{line}\n"));
        }
        block
    }

    fn print(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
        self.mid_line = !text.ends_with('\n');
    }

    /// Ends the text so far (what the escaper held back) and its line.
    pub fn end_line(&mut self) {
        if let Some(rest) = self.escaper.as_mut().map(TerminalEscaper::finish) {
            self.print(&rest);
        }
        if std::mem::take(&mut self.mid_line) {
            let _ = writeln!(std::io::stdout());
        }
    }
}

/// The line after a run: turns, tool calls, the skills it used (an invoked one counts, loaded
/// earlier in the session or not) and tokens.
pub fn footer(out: &RunOutput, invoked: Option<&str>, style: Style) -> String {
    let mut skills: Vec<String> = Vec::new();
    if let Some(name) = invoked {
        skills.push(format!("{} (invoked)", agent::terminal_line(name, 64)));
    }
    for name in &out.skills_loaded {
        if Some(*name) != invoked {
            skills.push(format!("{name} (loaded)"));
        }
    }
    let skills = if skills.is_empty() {
        "none".to_owned()
    } else {
        skills.join(", ")
    };
    style.dim(&format!(
        "[{} turn(s), {} tool call(s), skills: {skills}, tokens in {} (cache read {}) / out {}]",
        out.turns,
        out.tool_calls,
        out.usage.input_tokens,
        out.usage.cache_read_tokens,
        out.usage.output_tokens
    ))
}
