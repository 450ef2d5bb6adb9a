//! Session transcripts: a conversation on disk as JSON Lines, so a session can be resumed
//! (the format is in the crate docs, under "Transcripts").

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::{AssistantTurn, Message, ToolCall, ToolResult, WireFormat};
use crate::error::AgentError;
use crate::events::ContextShortened;

/// One line of a transcript: a message, or the notes of shortened tool results.
#[derive(Serialize)]
#[serde(untagged)]
enum Line {
    Message(MessageLine),
    Shortened { shortened: Vec<ShortenedEntry> },
}

#[derive(Deserialize)]
struct ShortenedLine {
    shortened: Vec<ShortenedEntry>,
}

impl Line {
    /// Parses a line; a line that is neither kind reports why it is not a message line, the
    /// common kind.
    fn parse(text: &str) -> Result<Line, serde_json::Error> {
        match serde_json::from_str::<MessageLine>(text) {
            Ok(line) => Ok(Line::Message(line)),
            Err(error) => match serde_json::from_str::<ShortenedLine>(text) {
                Ok(line) => Ok(Line::Shortened {
                    shortened: line.shortened,
                }),
                Err(_) => Err(error),
            },
        }
    }
}

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
    /// Creates `path` (replacing what it held).
    pub(crate) fn create(path: &Path) -> Result<Transcript, AgentError> {
        let file = File::create(path).map_err(|e| io_error(path, e))?;
        Ok(Transcript {
            path: path.to_owned(),
            file,
        })
    }

    /// Opens `path` and reads its messages (see the crate docs, under "Transcripts", for damaged
    /// files); a missing file is created empty. Later lines are appended after the last message
    /// kept.
    pub(crate) fn open(path: &Path) -> Result<(Transcript, Vec<Replayed>), AgentError> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| io_error(path, e))?;
        let mut text = String::new();
        file.read_to_string(&mut text)
            .map_err(|e| io_error(path, e))?;
        // (message, byte offset where its line starts)
        let mut replayed: Vec<(Replayed, usize)> = Vec::new();
        let mut keep = 0;
        let mut start = 0;
        let mut number = 0;
        let mut newline_missing = false;
        while start < text.len() {
            number += 1;
            let (line, end, complete) = match text[start..].find('\n') {
                Some(at) => (&text[start..start + at], start + at + 1, true),
                None => (&text[start..], text.len(), false),
            };
            if line.trim().is_empty() {
                start = end;
                keep = end;
                continue;
            }
            match Line::parse(line) {
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
                    keep = end;
                    newline_missing = !complete;
                }
                Ok(Line::Message(parsed)) => {
                    replayed.push((
                        Replayed {
                            message: parsed.message.into(),
                            skills_loaded: parsed.skills_loaded,
                            skills_active: parsed.skills_active,
                        },
                        start,
                    ));
                    keep = end;
                    newline_missing = !complete;
                }
                Err(e) if !complete => {
                    tracing::warn!(
                        path = %path.display(),
                        line = number,
                        error = %e,
                        "transcript: the last line was cut short (a crash while writing); \
                         dropped it"
                    );
                }
                Err(e) => {
                    return Err(damaged(
                        path,
                        number,
                        format!("the line does not parse ({e}); the file is damaged"),
                    ));
                }
            }
            start = end;
        }
        // The turn in flight at a crash: tool calls whose results were never written.
        if let Some((last, at)) = replayed.last()
            && matches!(&last.message, Message::Assistant(turn) if !turn.tool_calls.is_empty())
        {
            tracing::warn!(
                path = %path.display(),
                "transcript: the last assistant turn has tool calls without results (a crash \
                 in its turn); dropped it"
            );
            keep = *at;
            newline_missing = false;
            replayed.pop();
        }
        let truncate = |file: &mut File, len: usize| -> io::Result<()> {
            file.set_len(len as u64)?;
            file.seek(SeekFrom::End(0))?;
            Ok(())
        };
        truncate(&mut file, keep).map_err(|e| io_error(path, e))?;
        if newline_missing {
            file.write_all(b"\n").map_err(|e| io_error(path, e))?;
        }
        let transcript = Transcript {
            path: path.to_owned(),
            file,
        };
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

    /// Writes one line and syncs it to disk.
    fn write_line(&mut self, line: &Line) -> Result<(), AgentError> {
        let mut text = serde_json::to_string(line).map_err(|e| io_error(&self.path, e.into()))?;
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
