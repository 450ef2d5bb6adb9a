//! Key redaction: the one function every piece of server text and every transport message
//! goes through before it reaches an error or a `tracing` event, so no error and no log line
//! ever holds the API key.

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
