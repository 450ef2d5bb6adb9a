//! Session transcripts: a conversation on disk as JSON Lines, so a session can be resumed
//! (the format is in the crate docs, under "Transcripts").

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::{AssistantTurn, Message, ToolCall, ToolResult, WireFormat};
use crate::error::AgentError;
use crate::events::ContextShortened;
use crate::redact::Redactor;
use crate::session_file::{Open, SessionFiles};

/// One line of a transcript: a message, the notes of shortened tool results, or the record of
/// an earlier line a resume left out.
#[derive(Serialize)]
#[serde(untagged)]
enum Line {
    Message(MessageLine),
    Shortened { shortened: Vec<ShortenedEntry> },
    Skipped { skipped: SkippedEntry },
}

#[derive(Deserialize)]
struct ShortenedLine {
    shortened: Vec<ShortenedEntry>,
}

#[derive(Deserialize)]
struct SkippedLine {
    skipped: SkippedEntry,
}

/// An earlier line left in the file but not replayed: cut short by a crash, or a turn whose
/// tool results were never written.
#[derive(Serialize, Deserialize)]
struct SkippedEntry {
    /// Its 1-based line number.
    line: usize,
    reason: String,
}

impl Line {
    /// Parses a line; a line that is no kind reports why it is not a message line, the common
    /// kind.
    fn parse(text: &[u8]) -> Result<Line, serde_json::Error> {
        match serde_json::from_slice::<MessageLine>(text) {
            Ok(line) => Ok(Line::Message(line)),
            Err(error) => {
                if let Ok(line) = serde_json::from_slice::<ShortenedLine>(text) {
                    Ok(Line::Shortened {
                        shortened: line.shortened,
                    })
                } else if let Ok(line) = serde_json::from_slice::<SkippedLine>(text) {
                    Ok(Line::Skipped {
                        skipped: line.skipped,
                    })
                } else {
                    Err(error)
                }
            }
        }
    }
}

/// Why a cut last line is skipped.
const CUT_SHORT: &str = "cut short (a crash while writing it)";
/// Why a last turn with tool calls and no results is skipped.
const IN_FLIGHT: &str =
    "an assistant turn whose tool results were never written (a crash in its turn)";

/// A tool result's content replaced by the context budget.
#[derive(Serialize, Deserialize)]
struct ShortenedEntry {
    message: usize,
    call_id: String,
    content: String,
}

/// The line of one message.
#[derive(Serialize, Deserialize)]
struct MessageLine {
    message: Entry,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    skills_loaded: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    skills_active: Vec<String>,
}

/// A message as written: its own format, apart from the Rust types, so they can change.
#[derive(Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum Entry {
    User {
        text: String,
    },
    Assistant {
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<CallEntry>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        raw: Option<RawEntry>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop_reason: Option<String>,
    },
    ToolResults {
        results: Vec<ResultEntry>,
    },
}

#[derive(Serialize, Deserialize)]
struct CallEntry {
    id: String,
    name: String,
    input: Value,
}

#[derive(Serialize, Deserialize)]
struct ResultEntry {
    call_id: String,
    name: String,
    content: String,
    #[serde(default)]
    is_error: bool,
}

#[derive(Serialize, Deserialize)]
struct RawEntry {
    format: FormatEntry,
    value: Value,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum FormatEntry {
    Anthropic,
    Openai,
}

impl From<&Message> for Entry {
    fn from(message: &Message) -> Self {
        match message {
            Message::User(text) => Entry::User { text: text.clone() },
            Message::Assistant(turn) => Entry::Assistant {
                text: turn.text.clone(),
                tool_calls: turn
                    .tool_calls
                    .iter()
                    .map(|c| CallEntry {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        input: c.input.clone(),
                    })
                    .collect(),
                raw: turn.raw.as_ref().map(|(format, value)| RawEntry {
                    format: match format {
                        WireFormat::Anthropic => FormatEntry::Anthropic,
                        WireFormat::OpenAi => FormatEntry::Openai,
                    },
                    value: value.clone(),
                }),
                stop_reason: turn.stop_reason.clone(),
            },
            Message::ToolResults(results) => Entry::ToolResults {
                results: results
                    .iter()
                    .map(|r| ResultEntry {
                        call_id: r.call_id.clone(),
                        name: r.name.clone(),
                        content: r.content.clone(),
                        is_error: r.is_error,
                    })
                    .collect(),
            },
        }
    }
}

impl From<Entry> for Message {
    fn from(entry: Entry) -> Self {
        match entry {
            Entry::User { text } => Message::User(text),
            Entry::Assistant {
                text,
                tool_calls,
                raw,
                stop_reason,
            } => Message::Assistant(AssistantTurn {
                text,
                tool_calls: tool_calls
                    .into_iter()
                    .map(|c| ToolCall {
                        id: c.id,
                        name: c.name,
                        input: c.input,
                    })
                    .collect(),
                raw: raw.map(|r| {
                    let format = match r.format {
                        FormatEntry::Anthropic => WireFormat::Anthropic,
                        FormatEntry::Openai => WireFormat::OpenAi,
                    };
                    (format, r.value)
                }),
                stop_reason,
            }),
            Entry::ToolResults { results } => Message::ToolResults(
                results
                    .into_iter()
                    .map(|r| ToolResult {
                        call_id: r.call_id,
                        name: r.name,
                        content: r.content,
                        is_error: r.is_error,
                    })
                    .collect(),
            ),
        }
    }
}

/// A message read back, with the skills its line recorded.
pub(crate) struct Replayed {
    pub(crate) message: Message,
    pub(crate) skills_loaded: Vec<String>,
    pub(crate) skills_active: Vec<String>,
}

/// The open transcript file of a session.
#[derive(Debug)]
pub(crate) struct Transcript {
    path: PathBuf,
    file: File,
    /// Masks the provider's key in what is written.
    redactor: Redactor,
}

/// The error of the file system at `path`.
fn io_error(path: &Path, source: io::Error) -> AgentError {
    AgentError::Transcript {
        path: path.to_owned(),
        line: None,
        source,
    }
}

/// A damaged line `line` of the transcript at `path`: an error of kind `InvalidData`.
fn damaged(path: &Path, line: usize, message: String) -> AgentError {
    AgentError::Transcript {
        path: path.to_owned(),
        line: Some(line),
        source: io::Error::new(io::ErrorKind::InvalidData, message),
    }
}

impl Transcript {
    /// Creates `path`, a new file (an existing one is an error: nothing is replaced).
    /// The provider's key is masked in every line written (`redactor`).
    pub(crate) fn create(
        path: &Path,
        files: &SessionFiles,
        redactor: Redactor,
    ) -> Result<Transcript, AgentError> {
        let file = files.open(path, Open::New).map_err(|e| io_error(path, e))?;
        Ok(Transcript {
            path: path.to_owned(),
            file,
            redactor,
        })
    }

    /// Opens `path` and reads its messages (see the crate docs, under "Transcripts", for
    /// damaged files); a missing file is created empty. Nothing is cut from the file: what is
    /// not replayed stays, named by a `skipped` line appended after it, and later lines are
    /// appended at the end.
    pub(crate) fn open(
        path: &Path,
        files: &SessionFiles,
        redactor: Redactor,
    ) -> Result<(Transcript, Vec<Replayed>), AgentError> {
        let mut file = files
            .open(path, Open::Existing)
            .map_err(|e| io_error(path, e))?;
        let bytes = files.read(&mut file).map_err(|e| io_error(path, e))?;
        // (1-based number, text, whether its line break is there)
        let mut lines: Vec<(usize, &[u8], bool)> = Vec::new();
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            let (line, after, complete) = match rest.iter().position(|&b| b == b'\n') {
                Some(at) => (&rest[..at], &rest[at + 1..], true),
                None => (rest, &rest[rest.len()..], false),
            };
            lines.push((lines.len() + 1, line, complete));
            rest = after;
        }
        let parsed: Vec<Option<Result<Line, serde_json::Error>>> = lines
            .iter()
            .map(|(_, text, _)| (!text.trim_ascii().is_empty()).then(|| Line::parse(text)))
            .collect();
        // The lines an earlier resume left out.
        let mut skipped = BTreeSet::new();
        for ((number, _, _), line) in lines.iter().zip(&parsed) {
            if let Some(Ok(Line::Skipped { skipped: entry })) = line {
                if entry.line == 0 || entry.line >= *number {
                    return Err(damaged(
                        path,
                        *number,
                        format!(
                            "a skipped line names line {}, which is not an earlier line; the \
                             file is damaged",
                            entry.line
                        ),
                    ));
                }
                skipped.insert(entry.line);
            }
        }
        // (message, its line number)
        let mut replayed: Vec<(Replayed, usize)> = Vec::new();
        let mut skip: Vec<(usize, &str)> = Vec::new();
        for ((number, _, complete), line) in lines.iter().zip(parsed) {
            let (number, complete) = (*number, *complete);
            let Some(line) = line else { continue };
            if skipped.contains(&number) {
                continue;
            }
            match line {
                Ok(Line::Skipped { .. }) => {}
                Ok(Line::Shortened { shortened }) => {
                    for entry in shortened {
                        let result = replayed
                            .get_mut(entry.message)
                            .and_then(|(r, _)| match &mut r.message {
                                Message::ToolResults(results) => {
                                    results.iter_mut().find(|r| r.call_id == entry.call_id)
                                }
                                _ => None,
                            })
                            .ok_or_else(|| {
                                damaged(
                                    path,
                                    number,
                                    format!(
                                        "a shortened result names message {} call `{}`, which no earlier line holds; the \
                                         file is damaged",
                                        entry.message, entry.call_id
                                    ),
                                )
                            })?;
                        result.content = entry.content;
                    }
                }
                Ok(Line::Message(parsed)) => {
                    replayed.push((
                        Replayed {
                            message: parsed.message.into(),
                            skills_loaded: parsed.skills_loaded,
                            skills_active: parsed.skills_active,
                        },
                        number,
                    ));
                }
                Err(e) if !complete => {
                    tracing::warn!(
                        path = %path.display(),
                        line = number,
                        error = %e,
                        "transcript: the last line was cut short (a crash while writing); \
                         kept in the file, skipped"
                    );
                    skip.push((number, CUT_SHORT));
                }
                Err(e) => {
                    return Err(damaged(
                        path,
                        number,
                        format!("the line does not parse ({e}); the file is damaged"),
                    ));
                }
            }
        }
        // The turn in flight at a crash: tool calls whose results were never written.
        if let Some((last, number)) = replayed.last()
            && matches!(&last.message, Message::Assistant(turn) if !turn.tool_calls.is_empty())
        {
            tracing::warn!(
                path = %path.display(),
                line = number,
                "transcript: the last assistant turn has tool calls without results (a crash \
                 in its turn); kept in the file, skipped"
            );
            skip.push((*number, IN_FLIGHT));
            replayed.pop();
        }
        let mut transcript = Transcript {
            path: path.to_owned(),
            file,
            redactor,
        };
        if lines.last().is_some_and(|(_, _, complete)| !complete) {
            transcript
                .file
                .write_all(b"\n")
                .map_err(|e| io_error(path, e))?;
        }
        for (line, reason) in skip {
            transcript.write_line(&Line::Skipped {
                skipped: SkippedEntry {
                    line,
                    reason: reason.to_owned(),
                },
            })?;
        }
        Ok((transcript, replayed.into_iter().map(|(r, _)| r).collect()))
    }

    /// Appends `message` and the skills that became loaded and active with it, in one line,
    /// and syncs it to disk.
    pub(crate) fn append(
        &mut self,
        message: &Message,
        skills_loaded: &[&str],
        skills_active: &[&str],
    ) -> Result<(), AgentError> {
        self.write_line(&Line::Message(MessageLine {
            message: message.into(),
            skills_loaded: skills_loaded.iter().map(|s| (*s).to_owned()).collect(),
            skills_active: skills_active.iter().map(|s| (*s).to_owned()).collect(),
        }))
    }

    /// Appends the notes that replaced the results in `cuts`, as they now stand in `messages`.
    pub(crate) fn append_shortened(
        &mut self,
        cuts: &[ContextShortened],
        messages: &[Message],
    ) -> Result<(), AgentError> {
        let shortened = cuts
            .iter()
            .filter_map(|cut| {
                let Some(Message::ToolResults(results)) = messages.get(cut.message_index) else {
                    return None;
                };
                let result = results.iter().find(|r| r.call_id == cut.call_id)?;
                Some(ShortenedEntry {
                    message: cut.message_index,
                    call_id: cut.call_id.clone(),
                    content: result.content.clone(),
                })
            })
            .collect();
        self.write_line(&Line::Shortened { shortened })
    }

    /// Writes one line, the provider's key masked in it, and syncs it to disk.
    fn write_line(&mut self, line: &Line) -> Result<(), AgentError> {
        let failed = |e: serde_json::Error| io_error(&self.path, e.into());
        let mut text = if self.redactor.is_active() {
            let value = serde_json::to_value(line).map_err(failed)?;
            let masked = self.redactor.json(&value).unwrap_or(value);
            serde_json::to_string(&masked).map_err(failed)?
        } else {
            serde_json::to_string(line).map_err(failed)?
        };
        text.push('\n');
        // One write per line, so a crash cuts at most this line.
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io_error(&self.path, e))
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}
