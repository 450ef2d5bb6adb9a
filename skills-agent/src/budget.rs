//! The context budget: keeping each request inside the model's context window (see
//! [the context budget](crate#the-context-budget)). Here are its defaults, the size estimate
//! the loop makes before each request, and the note that replaces a shortened tool result.

use std::io;

use serde_json::Value;

use crate::conversation::Message;
use crate::error::ContextOverflow;
use crate::events::ContextShortened;
use crate::provider::api::{Provider, Request, ToolDefinitions};

/// The context window of a Claude model, and of any model behind the Anthropic provider.
pub const CLAUDE_CONTEXT_WINDOW: u64 = 200_000;

/// The context window assumed for a model this crate does not know (a local model behind an
/// OpenAI-compatible server, a new model id): 32,768 tokens. Conservative on purpose: cutting
/// old tool results early costs a re-read, while a request over the real window fails or, on
/// some local servers, is cut silently. Set the real one with
/// [`AgentBuilder::context_window`](crate::AgentBuilder::context_window).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 32_768;

/// Tokens kept free for the reply when the provider does not say how many it asks for
/// ([`Provider::max_output_tokens`] is `None`).
pub const DEFAULT_REPLY_RESERVE: u64 = 4_096;

/// How many of the last assistant turns (with their tool results, and the user turn after
/// them) are never shortened.
pub const KEEP_RECENT_TURNS: usize = 2;

/// The start of every note that replaces a shortened tool result.
pub const SHORTENED_PREFIX: &str = "[shortened to save context:";

/// Bytes of a tool call's arguments quoted in a note; longer ones are cut.
const NOTE_ARGUMENTS_BYTES: usize = 300;

/// Known model families and their context windows, most specific prefix first. Matched
/// against the model id lowercased, after any `provider/` prefix (`openai/gpt-4o`).
const KNOWN_WINDOWS: &[(&str, u64)] = &[
    ("claude", CLAUDE_CONTEXT_WINDOW),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    // After the longer `gpt-4` names: the older models have smaller windows than the default.
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5", 16_385),
    ("gpt-5", 400_000),
    ("o1-mini", 128_000),
    ("o1-preview", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
];

/// The context window, in tokens, of `model` served by the provider called `provider`
/// ([`Provider::name`]):
///
/// | model | window |
/// |---|---:|
/// | `claude-*`, and every model of the `anthropic` provider | 200,000 |
/// | `gpt-4.1*` | 1,047,576 |
/// | `gpt-4o*` | 128,000 |
/// | `gpt-4-turbo*` | 128,000 |
/// | `gpt-4*` (the others) | 8,192 |
/// | `gpt-3.5*` | 16,385 |
/// | `gpt-5*` | 400,000 |
/// | `o1-mini*`, `o1-preview*` | 128,000 |
/// | `o1*`, `o3*`, `o4-mini*` | 200,000 |
/// | anything else | [`DEFAULT_CONTEXT_WINDOW`] |
pub fn default_context_window(provider: &str, model: &str) -> u64 {
    let id = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    KNOWN_WINDOWS
        .iter()
        .find(|(prefix, _)| id.starts_with(prefix))
        .map(|&(_, window)| window)
        .unwrap_or(if provider == "anthropic" {
            CLAUDE_CONTEXT_WINDOW
        } else {
            DEFAULT_CONTEXT_WINDOW
        })
}

/// The estimated token count of `bytes` bytes of request text: one token per 4 bytes, rounded
/// up.
pub fn estimate_tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

/// The bytes of `request` that the estimate counts: the system prompt, the tool definitions
/// and every message ([`message_bytes`]). The loop keeps the same sum cached.
pub fn request_bytes(request: &Request<'_>) -> usize {
    request.system.len()
        + tools_bytes(request.tools)
        + request.messages.iter().map(message_bytes).sum::<usize>()
}

/// The bytes of one message that the estimate counts: user text; an assistant turn's raw JSON
/// as the provider sent it (else its text and tool calls); the content, names and ids of tool
/// results.
pub fn message_bytes(message: &Message) -> usize {
    match message {
        Message::User(text) => text.len(),
        Message::Assistant(turn) => match &turn.raw {
            Some((_, raw)) => json_len(raw),
            None => {
                turn.text.len()
                    + turn
                        .tool_calls
                        .iter()
                        .map(|c| c.id.len() + c.name.len() + json_len(&c.input))
                        .sum::<usize>()
            }
        },
        Message::ToolResults(results) => results
            .iter()
            .map(|r| r.call_id.len() + r.name.len() + r.content.len())
            .sum(),
    }
}

/// The bytes of every tool definition's JSON (the Anthropic shape; the OpenAI one is about as
/// long).
fn tools_bytes(tools: &ToolDefinitions) -> usize {
    tools.anthropic().iter().map(json_len).sum()
}

/// The length of `value` as compact JSON, counted without building the string.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The note that replaces the content of a result of `tool` called with `arguments`.
pub fn shortened_note(tool: &str, arguments: &str, content: &str) -> String {
    let again = if tool == "bash" {
        "re-run the command if you need it".to_owned()
    } else {
        format!("call {tool} again with the same arguments if you need it")
    };
    format!(
        "{SHORTENED_PREFIX} {} bytes, {} lines of this {tool} result ({arguments}) were removed; \
         {again}]",
        content.len(),
        content.lines().count()
    )
}

/// An agent's budget: the window, the reply reserve, and the fixed part of every request.
#[derive(Clone, Debug)]
pub(crate) struct Budget {
    pub(crate) context_window: u64,
    pub(crate) reply_reserve: u64,
    /// The bytes of the system prompt.
    system_bytes: usize,
    /// Each tool definition's name and bytes, to size a narrowed list without re-encoding it.
    tool_bytes: Vec<(String, usize)>,
}

impl Budget {
    pub(crate) fn new(
        explicit_window: Option<u64>,
        explicit_reserve: Option<u64>,
        provider: &dyn Provider,
        model: Option<&str>,
        system: &str,
        tools: &ToolDefinitions,
    ) -> Budget {
        let model = model.unwrap_or(provider.model());
        Budget {
            context_window: explicit_window
                .unwrap_or_else(|| default_context_window(provider.name(), model)),
            reply_reserve: explicit_reserve
                .or(provider.max_output_tokens().map(u64::from))
                .unwrap_or(DEFAULT_REPLY_RESERVE),
            system_bytes: system.len(),
            tool_bytes: tools
                .names()
                .iter()
                .zip(tools.anthropic())
                .map(|(name, json)| (name.clone(), json_len(json)))
                .collect(),
        }
    }

    /// The most tokens a request may take.
    fn limit(&self) -> u64 {
        self.context_window.saturating_sub(self.reply_reserve)
    }

    /// The bytes of the system prompt and of the offered tools.
    fn fixed_bytes(&self, offered: &ToolDefinitions) -> usize {
        let tools = if offered.names().len() == self.tool_bytes.len() {
            self.tool_bytes.iter().map(|(_, n)| n).sum::<usize>()
        } else {
            self.tool_bytes
                .iter()
                .filter(|(name, _)| offered.contains(name))
                .map(|(_, n)| n)
                .sum()
        };
        self.system_bytes + tools
    }

    /// Cuts old tool results of `messages` until the request fits, or says why it cannot.
    /// `sizes` is the session's cache, `protected_skill(name)` says whether a `load_skill`
    /// result of `name` must stay. Returns what was cut; on an error nothing was.
    pub(crate) fn fit(
        &self,
        messages: &mut [Message],
        sizes: &mut SizeCache,
        offered: &ToolDefinitions,
        protected_skill: impl Fn(&str) -> bool,
        turn: u32,
    ) -> Result<Vec<ContextShortened>, ContextOverflow> {
        sizes.sync(messages);
        let fixed = self.fixed_bytes(offered);
        let limit = self.limit();
        let mut total = fixed + sizes.total;
        if estimate_tokens(total) <= limit {
            return Ok(Vec::new());
        }
        let recent_from = recent_start(messages);
        let mut cuts = Vec::new();
        let mut skills_bytes = 0;
        for index in 0..recent_from {
            if estimate_tokens(total) <= limit {
                break;
            }
            let (before, rest) = messages.split_at(index);
            let (Message::ToolResults(results), Some(Message::Assistant(turn_of_calls))) =
                (&rest[0], before.last())
            else {
                continue;
            };
            for (position, result) in results.iter().enumerate() {
                let call = turn_of_calls
                    .tool_calls
                    .iter()
                    .find(|c| c.id == result.call_id);
                let input = call.map(|c| &c.input);
                let is_skill = result.name == crate::tools::LOAD_SKILL
                    && input
                        .and_then(|i| i.get("name"))
                        .and_then(Value::as_str)
                        .is_some_and(&protected_skill);
                if is_skill {
                    skills_bytes += result.content.len();
                    continue;
                }
                if result.content.starts_with(SHORTENED_PREFIX) {
                    continue;
                }
                let arguments = input.map(short_arguments).unwrap_or_default();
                let note = shortened_note(&result.name, &arguments, &result.content);
                if note.len() >= result.content.len() {
                    continue;
                }
                total -= result.content.len() - note.len();
                cuts.push((index, position, note, arguments));
                if estimate_tokens(total) <= limit {
                    break;
                }
            }
        }
        if estimate_tokens(total) > limit {
            // Cutting went through every older message, so the skills were all counted.
            let recent: usize = sizes.bytes[recent_from..].iter().sum();
            let older = total - fixed - recent - skills_bytes;
            return Err(ContextOverflow {
                estimated_tokens: estimate_tokens(total),
                context_window: self.context_window,
                reply_reserve: self.reply_reserve,
                system_and_tools_tokens: estimate_tokens(fixed),
                recent_turns: KEEP_RECENT_TURNS,
                recent_turns_tokens: estimate_tokens(recent),
                active_skills_tokens: estimate_tokens(skills_bytes),
                older_messages_tokens: estimate_tokens(older),
            });
        }
        let mut report = Vec::with_capacity(cuts.len());
        for (index, position, note, arguments) in cuts {
            let Message::ToolResults(results) = &mut messages[index] else {
                continue;
            };
            let result = &mut results[position];
            report.push(ContextShortened {
                turn,
                message_index: index,
                call_id: result.call_id.clone(),
                tool: result.name.clone(),
                arguments,
                bytes_before: result.content.len(),
                lines_before: result.content.lines().count(),
                bytes_after: note.len(),
            });
            result.content = note;
            sizes.refresh(index, &messages[index]);
        }
        Ok(report)
    }
}

/// The index of the first message never shortened: the [`KEEP_RECENT_TURNS`]-th last
/// assistant turn; with fewer turns than that, the whole conversation is recent.
fn recent_start(messages: &[Message]) -> usize {
    messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, message)| matches!(message, Message::Assistant(_)))
        .nth(KEEP_RECENT_TURNS - 1)
        .map_or(0, |(index, _)| index)
}

/// A call's arguments as compact JSON, cut at a character boundary.
fn short_arguments(input: &Value) -> String {
    let mut text = input.to_string();
    if text.len() > NOTE_ARGUMENTS_BYTES {
        let mut end = NOTE_ARGUMENTS_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    text
}

/// The estimated bytes of each message of a session, computed once per message.
#[derive(Clone, Debug, Default)]
pub(crate) struct SizeCache {
    bytes: Vec<usize>,
    total: usize,
}

impl SizeCache {
    /// Sizes the messages new since the last call.
    fn sync(&mut self, messages: &[Message]) {
        if self.bytes.len() > messages.len() {
            *self = SizeCache::default();
        }
        for message in &messages[self.bytes.len()..] {
            let bytes = message_bytes(message);
            self.bytes.push(bytes);
            self.total += bytes;
        }
    }

    /// Re-sizes message `index` after it changed.
    pub(crate) fn refresh(&mut self, index: usize, message: &Message) {
        if let Some(old) = self.bytes.get_mut(index) {
            let new = message_bytes(message);
            self.total = self.total - *old + new;
            *old = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{AssistantTurn, ToolCall, ToolResult};
    use serde_json::json;

    #[test]
    fn the_estimate_is_a_quarter_of_the_bytes_rounded_up() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(4), 1);
        assert_eq!(estimate_tokens(5), 2);
        assert_eq!(estimate_tokens(4000), 1000);
    }

    #[test]
    fn message_sizes_count_what_each_message_carries() {
        assert_eq!(message_bytes(&Message::User("hello".into())), 5);
        let call = ToolCall {
            id: "t1".into(),
            name: "read_file".into(),
            input: json!({"path": "a"}),
        };
        let turn = AssistantTurn {
            text: "ok".into(),
            tool_calls: vec![call],
            raw: None,
            stop_reason: None,
        };
        // "ok" + "t1" + "read_file" + {"path":"a"}
        assert_eq!(
            message_bytes(&Message::Assistant(turn.clone())),
            2 + 2 + 9 + 12
        );
        let raw = json!([{"type": "text", "text": "ok"}]);
        let with_raw = AssistantTurn {
            raw: Some((crate::WireFormat::Anthropic, raw.clone())),
            ..turn
        };
        assert_eq!(
            message_bytes(&Message::Assistant(with_raw)),
            raw.to_string().len()
        );
        let results = Message::ToolResults(vec![ToolResult {
            call_id: "t1".into(),
            name: "bash".into(),
            content: "x".repeat(100),
            is_error: false,
        }]);
        assert_eq!(message_bytes(&results), 2 + 4 + 100);
    }

    #[test]
    fn known_model_families_have_their_documented_windows() {
        for (provider, model, window) in [
            ("anthropic", "claude-sonnet-4-5", 200_000),
            ("openai", "claude-3-5-haiku-latest", 200_000),
            ("anthropic", "some-future-model", 200_000),
            ("openai", "gpt-4o", 128_000),
            ("openai", "gpt-4o-mini-2024-07-18", 128_000),
            ("openai", "gpt-4-turbo-2024-04-09", 128_000),
            ("openai", "gpt-4-0613", 8_192),
            ("openai", "gpt-3.5-turbo", 16_385),
            ("openai", "openai/gpt-4o", 128_000),
            ("openai", "gpt-4.1", 1_047_576),
            ("openai", "GPT-4.1-nano", 1_047_576),
            ("openai", "gpt-5-mini", 400_000),
            ("openai", "o1", 200_000),
            ("openai", "o1-mini", 128_000),
            ("openai", "o3-mini", 200_000),
            ("openai", "o4-mini", 200_000),
            ("openai", "llama3.1:8b", DEFAULT_CONTEXT_WINDOW),
            ("openai", "qwen2.5-coder", DEFAULT_CONTEXT_WINDOW),
        ] {
            assert_eq!(
                default_context_window(provider, model),
                window,
                "{provider} {model}"
            );
        }
    }

    #[test]
    fn long_arguments_are_cut_at_a_character_boundary() {
        let input = json!({"path": "é".repeat(400)});
        let short = short_arguments(&input);
        assert!(short.len() <= NOTE_ARGUMENTS_BYTES + 3);
        assert!(short.ends_with("..."));
    }

    #[test]
    fn the_note_says_what_was_cut_and_how_to_get_it_again() {
        let note = shortened_note("read_file", r#"{"path":"a.rs"}"#, "one\ntwo\nthree\n");
        assert!(note.starts_with(SHORTENED_PREFIX));
        assert!(note.contains("14 bytes, 3 lines"), "{note}");
        assert!(
            note.contains(r#"read_file result ({"path":"a.rs"})"#),
            "{note}"
        );
        assert!(note.contains("call read_file again with the same arguments"));
        assert!(shortened_note("bash", "{}", "x").contains("re-run the command"));
    }

    #[test]
    fn the_cached_sizes_follow_appends_and_edits() {
        let mut messages = vec![Message::User("abcd".into())];
        let mut cache = SizeCache::default();
        cache.sync(&messages);
        messages.push(Message::User("efgh".into()));
        cache.sync(&messages);
        assert_eq!(cache.total, 8);
        messages[0] = Message::User("a".into());
        cache.refresh(0, &messages[0]);
        assert_eq!(cache.total, 5);
        let total: usize = messages.iter().map(message_bytes).sum();
        assert_eq!(cache.total, total);
    }

    #[test]
    fn the_recent_turns_start_at_the_second_last_assistant_turn() {
        let turn = || {
            Message::Assistant(AssistantTurn {
                text: String::new(),
                tool_calls: Vec::new(),
                raw: None,
                stop_reason: None,
            })
        };
        let user = || Message::User(String::new());
        assert_eq!(recent_start(&[user()]), 0);
        assert_eq!(recent_start(&[user(), turn(), user()]), 0);
        assert_eq!(recent_start(&[user(), turn(), user(), turn(), user()]), 1);
        assert_eq!(
            recent_start(&[user(), turn(), user(), turn(), user(), turn(), user()]),
            3
        );
    }
}
