//! Key redaction, in two parts:
//!
//! - [`redact`]: the one function every piece of server text and every transport message goes
//!   through before it reaches an error or a `tracing` event, so no error and no log line ever
//!   holds the API key (or anything shaped like a key).
//! - [`Redactor`]: the agent's own key masked in what is shown or kept for a person (the
//!   events a program prints, the final answer, the transcript), while the conversation the
//!   model sees, and the tool calls the loop parses and runs, stay exactly what the model said.
//!
//! A key too short or too common to be a secret ([`is_placeholder_key`]: under
//! [`MIN_SECRET_KEY_CHARS`] characters, or one of the values local servers document) is not
//! masked anywhere: local model servers accept any key, and masking `i` or `ollama` would
//! rewrite every word containing it.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

/// The longest text [`redact`] returns, in bytes.
pub const MAX_ERROR_TEXT: usize = 2_000;

/// How much of a long text [`redact`] looks at, in bytes: enough to fill [`MAX_ERROR_TEXT`]
/// even when much of it is masked, without scanning a whole response body. Smaller than the
/// part of an error body that is read, so a body cut there is cut again here, word-aware.
pub(crate) const SCAN_LIMIT: usize = 16 * 1024;

/// What replaces a masked secret.
const MASK: &str = "[redacted]";

/// `text` made safe for an error message or a log line. The one function every piece of
/// server-provided text (and every transport message) goes through before it reaches an
/// [`ApiError`](crate::ApiError) or a `tracing` event:
///
/// - every occurrence of `secret` (the API key; nothing when empty) becomes `[redacted]`;
/// - so does anything shaped like a key or a bearer token, whoever it belongs to: a word
///   starting with `sk-` followed by at least 8 key characters, and a token of at least 8
///   characters after `Bearer ` (any case);
/// - control characters (newlines, escape sequences) become spaces, so a server cannot forge
///   log lines or drive a terminal;
/// - the result is at most [`MAX_ERROR_TEXT`] bytes. A cut drops the word it falls in, so a
///   key cut in half by the limit leaves nothing of itself behind.
///
/// The key is masked before the text is cut, and applying `redact` twice changes nothing.
pub fn redact(text: &str, secret: &str) -> String {
    redact_to(text, secret, MAX_ERROR_TEXT)
}

/// [`redact`] with another length bound (`max` bytes, at least 3).
pub(crate) fn redact_to(text: &str, secret: &str, max: usize) -> String {
    let text = cut(text, SCAN_LIMIT, "");
    let text = if secret.is_empty() {
        text
    } else {
        text.replace(secret, MASK)
    };
    let masked = mask_tokens(&text);
    let clean: String = masked
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cut(&clean, max.max(3), "...")
}

/// The fewest characters a key must have to be treated as a secret. Provider keys are far
/// longer (Anthropic's over 100 characters, OpenAI's over 50); the values people put in a local
/// server's key (`x`, `ollama`, `dummy`, `sk-local`) are shorter.
pub const MIN_SECRET_KEY_CHARS: usize = 12;

/// Keys local model servers and their guides tell people to set when the server checks none
/// (compared without case).
const PLACEHOLDER_KEYS: &[&str] = &[
    "sk-no-key-required", // llama.cpp's server
    "no-key-required",
    "ollama",       // Ollama's OpenAI compatibility
    "lm-studio",    // LM Studio
    "token-abc123", // vLLM's examples
    "empty",        // vLLM's and SGLang's examples (`EMPTY`)
    "none",
    "null",
    "dummy",
    "placeholder",
    "not-needed",
    "not-required",
    "no-key",
    "nokey",
    "unused",
    "changeme",
    "localai",
    "llamacpp",
    "llama.cpp",
    "vllm",
    "sglang",
    "jan",
    "koboldcpp",
    "sk-dummy",
    "sk-placeholder",
    "sk-local",
];

/// Whether `key` is a placeholder rather than a secret: empty, shorter than
/// [`MIN_SECRET_KEY_CHARS`], one of the values local servers document (`ollama`,
/// `sk-no-key-required`, `EMPTY`, ...), or one character repeated (`sk-xxxxxxxxxxxx`). Such a
/// key is sent as given but masked nowhere.
pub fn is_placeholder_key(key: &str) -> bool {
    let key = key.trim();
    if key.chars().count() < MIN_SECRET_KEY_CHARS
        || PLACEHOLDER_KEYS
            .iter()
            .any(|placeholder| key.eq_ignore_ascii_case(placeholder))
    {
        return true;
    }
    let body = key.strip_prefix("sk-").unwrap_or(key);
    let mut chars = body.chars();
    let first = chars.next();
    chars.all(|c| Some(c) == first)
}

/// Masks one API key in text meant for a person or for a file: the events the agent reports,
/// its final answer, its transcript. Cheap to clone; [`Redactor::none`] (no key, or a
/// placeholder key) changes nothing.
///
/// It masks the key alone: unlike [`redact`], it leaves other key-shaped words and control
/// characters as they are, because what the model wrote is shown (escaped by the terminal
/// helpers) rather than logged.
#[derive(Clone, Default)]
pub struct Redactor {
    /// The key, when it is a secret.
    secret: Option<Arc<str>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("active", &self.is_active())
            .finish()
    }
}

impl Redactor {
    /// A redactor that changes nothing.
    pub fn none() -> Redactor {
        Redactor::default()
    }

    /// A redactor of `key`; one that changes nothing when the key is a placeholder
    /// ([`is_placeholder_key`]).
    pub fn for_key(key: &str) -> Redactor {
        Redactor {
            secret: (!is_placeholder_key(key)).then(|| Arc::from(key)),
        }
    }

    /// Whether it masks anything.
    pub fn is_active(&self) -> bool {
        self.secret.is_some()
    }

    /// The key to mask in errors and logs: empty when there is none to mask.
    pub(crate) fn secret(&self) -> &str {
        self.secret.as_deref().unwrap_or("")
    }

    /// `text` with every occurrence of the key replaced by `[redacted]`.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match &self.secret {
            Some(secret) if text.contains(&**secret) => Cow::Owned(text.replace(&**secret, MASK)),
            _ => Cow::Borrowed(text),
        }
    }

    /// `value` with the key masked in every string and object key, or `None` when it holds
    /// no key (so callers copy only what changes).
    pub fn json(&self, value: &Value) -> Option<Value> {
        let secret = self.secret.as_deref()?;
        fn holds(value: &Value, secret: &str) -> bool {
            match value {
                Value::String(text) => text.contains(secret),
                Value::Array(items) => items.iter().any(|item| holds(item, secret)),
                Value::Object(map) => map
                    .iter()
                    .any(|(key, value)| key.contains(secret) || holds(value, secret)),
                _ => false,
            }
        }
        fn mask(value: &Value, secret: &str) -> Value {
            match value {
                Value::String(text) => Value::String(text.replace(secret, MASK)),
                Value::Array(items) => {
                    Value::Array(items.iter().map(|item| mask(item, secret)).collect())
                }
                Value::Object(map) => Value::Object(
                    map.iter()
                        .map(|(key, value)| (key.replace(secret, MASK), mask(value, secret)))
                        .collect(),
                ),
                other => other.clone(),
            }
        }
        holds(value, secret).then(|| mask(value, secret))
    }

    /// A masker for text that arrives in pieces (a streamed reply), where the key may be split
    /// across two pieces.
    pub fn stream(&self) -> RedactingStream {
        RedactingStream {
            secret: self.secret.clone(),
            held: String::new(),
        }
    }
}

/// [`Redactor::text`] for a stream of pieces: [`push`](Self::push) returns what can be shown
/// now and holds back the end of the text while it could be the start of the key;
/// [`finish`](Self::finish) returns the rest. The pieces it returns, joined, are the text
/// joined, masked.
#[derive(Debug, Default)]
pub struct RedactingStream {
    secret: Option<Arc<str>>,
    held: String,
}

impl RedactingStream {
    /// Takes the next piece; returns the text that is safe to show now.
    pub fn push(&mut self, piece: &str) -> String {
        let Some(secret) = self.secret.as_deref() else {
            return piece.to_owned();
        };
        self.held.push_str(piece);
        let masked = self.held.replace(secret, MASK);
        // Hold back the longest end of the text that is a start of the key.
        let keep = (1..secret.len().min(masked.len() + 1))
            .rev()
            .find(|&n| {
                secret.is_char_boundary(n)
                    && masked.is_char_boundary(masked.len() - n)
                    && masked.ends_with(&secret[..n])
            })
            .unwrap_or(0);
        let split = masked.len() - keep;
        self.held = masked[split..].to_owned();
        let mut shown = masked;
        shown.truncate(split);
        shown
    }

    /// The text still held back (it was not the key).
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// `text` if it fits in `max` bytes; else its start, minus the word the cut falls in, then
/// `ellipsis`, in at most `max` bytes.
fn cut(text: &str, max: usize, ellipsis: &str) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max - ellipsis.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    // A word cut in two (possibly a key) is dropped whole.
    let kept = text[..end].trim_end_matches(|c: char| !c.is_whitespace());
    format!("{kept}{ellipsis}")
}

/// Characters of a key or token (`sk-...`, base64, JWTs).
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '=')
}

/// `text` with `sk-` keys and `Bearer` tokens replaced by [`MASK`].
fn mask_tokens(text: &str) -> String {
    // Shorter words are ordinary words ("sk-learn", "a bearer of news").
    const MIN_KEY_TAIL: usize = 8;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut previous: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let at_word_start = previous.is_none_or(|p| !is_token_char(p));
        if at_word_start && rest.starts_with("sk-") {
            let tail = rest[3..]
                .find(|c: char| !is_token_char(c))
                .unwrap_or(rest.len() - 3);
            if tail >= MIN_KEY_TAIL {
                out.push_str(MASK);
                rest = &rest[3 + tail..];
                previous = Some('x');
                continue;
            }
        }
        if at_word_start
            && rest.len() > 7
            && rest.is_char_boundary(7)
            && rest[..7].eq_ignore_ascii_case("bearer ")
        {
            let after = rest[7..].trim_start_matches(' ');
            let token = after
                .find(|c: char| !is_token_char(c))
                .unwrap_or(after.len());
            if token >= MIN_KEY_TAIL {
                out.push_str(&rest[..6]);
                out.push(' ');
                out.push_str(MASK);
                rest = &after[token..];
                previous = Some('x');
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
        previous = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_the_key_and_key_shaped_tokens() {
        let key = "my-local-key-1234";
        let text = format!(
            "bad {key}; try sk-ant-api03-abcDEF_123-xyz or Authorization: Bearer \
             eyJh.bGc.iOi=, BEARER   tok/en+1"
        );
        assert_eq!(
            redact(&text, key),
            "bad [redacted]; try [redacted] or Authorization: Bearer [redacted], BEARER \
             [redacted]"
        );
    }

    #[test]
    fn leaves_ordinary_words_alone() {
        for text in [
            "risk-averse task-sk-12345678 ask-me sk-short",
            "a bearer of news: Bearer",
            "model claude-test-model, ids toolu_01A call_abc",
        ] {
            assert_eq!(redact(text, ""), text);
        }
    }

    #[test]
    fn control_characters_become_spaces() {
        assert_eq!(redact("a\nERROR fake\r\x1b[2J", ""), "a ERROR fake  [2J");
    }

    #[test]
    fn bounds_the_length_and_drops_a_cut_word() {
        for pad in 1_980..2_000 {
            let text = format!(
                "{}ABCDEFGHIJKL tail",
                "x".repeat(pad % 2) + &"x ".repeat(pad / 2)
            );
            let out = redact(&text, "");
            assert!(out.len() <= MAX_ERROR_TEXT, "{}", out.len());
            // The word is whole or gone, never cut.
            assert!(
                !out.contains("ABC") || out.contains("ABCDEFGHIJKL"),
                "{pad}"
            );
        }
        let long = "word ".repeat(1_000_000);
        let out = redact(&long, "");
        assert!(out.len() <= MAX_ERROR_TEXT && out.ends_with("..."));
        assert!(out.len() > MAX_ERROR_TEXT - 10);
    }

    #[test]
    fn a_key_across_the_scanned_part_leaves_nothing() {
        // Long foreign keys shrink when masked, so the end of the scanned part is visible.
        let filler = format!("sk-{} ", "a".repeat(200)).repeat(SCAN_LIMIT / 204);
        for shift in 0..40 {
            let start = SCAN_LIMIT - 20 + shift;
            let text = format!(
                "{filler}{}PLAINKEY123456 more",
                " ".repeat(start - filler.len())
            );
            let out = redact(&text, "PLAINKEY123456");
            assert!(
                !out.contains("PLAIN") && !out.contains("456"),
                "{shift}: {out}"
            );
            assert!(out.len() <= MAX_ERROR_TEXT);
        }
    }

    const KEY: &str = "sk-proj-4fQ9xT2mZ8pL1vR7nB3kW6yH0cJ5dA8e"; // 40 characters

    #[test]
    fn placeholders_are_not_secrets() {
        for key in [
            "",
            "i",
            "x",
            "ollama",
            "OLLAMA",
            "sk-no-key-required",
            "EMPTY",
            "token-abc123",
            "lm-studio",
            "sk-xxxxxxxxxxxxxxxx",
            "aaaaaaaaaaaaaaaaaaaa",
            "short-key10",
        ] {
            assert!(is_placeholder_key(key), "{key:?}");
            assert!(!Redactor::for_key(key).is_active(), "{key:?}");
            assert_eq!(
                Redactor::for_key(key).text("load_skill ollama x i"),
                "load_skill ollama x i"
            );
        }
        assert_eq!(KEY.len(), 40);
        for key in [KEY, "my-vllm-secret-2024", "0123456789ab"] {
            assert!(!is_placeholder_key(key), "{key:?}");
        }
    }

    #[test]
    fn the_redactor_masks_the_key_only() {
        let redactor = Redactor::for_key(KEY);
        assert_eq!(
            redactor.text(&format!("key {KEY}, sk-other-12345678 \u{1b}")),
            "key [redacted], sk-other-12345678 \u{1b}"
        );
        assert!(matches!(redactor.text("nothing here"), Cow::Borrowed(_)));
        let value = serde_json::json!({"command": format!("echo {KEY}"), KEY: [1, KEY]});
        assert_eq!(
            redactor.json(&value),
            Some(
                serde_json::json!({"command": "echo [redacted]", "[redacted]": [1, "[redacted]"]})
            )
        );
        assert_eq!(redactor.json(&serde_json::json!({"a": "b"})), None);
    }

    #[test]
    fn a_stream_masks_a_key_split_anywhere() {
        let redactor = Redactor::for_key(KEY);
        let text = format!("the key is {KEY}, and {KEY}{KEY} twice; é{KEY}");
        let expected = redactor.text(&text).into_owned();
        for size in 1..=text.len() {
            let mut stream = redactor.stream();
            let mut shown = String::new();
            let mut rest = text.as_str();
            while !rest.is_empty() {
                let mut cut = size.min(rest.len());
                while !rest.is_char_boundary(cut) {
                    cut += 1;
                }
                let piece = stream.push(&rest[..cut]);
                assert!(!piece.contains(&KEY[..KEY.len() / 2]), "{size}: {piece}");
                shown.push_str(&piece);
                rest = &rest[cut..];
            }
            shown.push_str(&stream.finish());
            assert_eq!(shown, expected, "pieces of {size}");
        }
        // Text that only starts like the key is shown in the end.
        let mut stream = redactor.stream();
        assert_eq!(stream.push("sk-pro"), "");
        assert_eq!(stream.push("se"), "sk-prose");
        assert_eq!(stream.push("sk-"), "");
        assert_eq!(stream.finish(), "sk-");
    }

    #[test]
    fn is_idempotent() {
        let text = format!(
            "{} Bearer abcdefghij sk-0123456789abc \u{7}",
            "é ".repeat(3_000)
        );
        let once = redact(&text, "abc");
        assert_eq!(redact(&once, "abc"), once);
        assert_eq!(redact(&once, ""), once);
    }
}
