//! The root paths of items that moved to the module they belong to: each still compiles, with
//! a deprecation warning that names the new path, and is left out of the docs.

use crate::budget;
use crate::conversation::Message;
use crate::error::ApiErrorKind;
use crate::provider::api::Request;
use crate::{AgentBuilder, provider};

macro_rules! moved_consts {
    ($($name:ident: $ty:ty = $new:path, $note:literal;)*) => {$(
        #[doc(hidden)]
        #[deprecated(note = $note)]
        #[allow(missing_docs)]
        pub const $name: $ty = $new;
    )*};
}

moved_consts! {
    CLAUDE_CONTEXT_WINDOW: u64 = budget::CLAUDE_CONTEXT_WINDOW, "use `budget::CLAUDE_CONTEXT_WINDOW`";
    DEFAULT_CONTEXT_WINDOW: u64 = budget::DEFAULT_CONTEXT_WINDOW, "use `budget::DEFAULT_CONTEXT_WINDOW`";
    DEFAULT_REPLY_RESERVE: u64 = budget::DEFAULT_REPLY_RESERVE, "use `budget::DEFAULT_REPLY_RESERVE`";
    KEEP_RECENT_TURNS: usize = budget::KEEP_RECENT_TURNS, "use `budget::KEEP_RECENT_TURNS`";
    SHORTENED_PREFIX: &str = budget::SHORTENED_PREFIX, "use `budget::SHORTENED_PREFIX`";
    DEFAULT_MAX_TURNS: u32 = AgentBuilder::DEFAULT_MAX_TURNS, "use `AgentBuilder::DEFAULT_MAX_TURNS`";
    DEFAULT_MAX_TOOL_CALLS_PER_TURN: usize = AgentBuilder::DEFAULT_MAX_TOOL_CALLS_PER_TURN,
        "use `AgentBuilder::DEFAULT_MAX_TOOL_CALLS_PER_TURN`";
    DEFAULT_MAX_PARALLEL_TOOLS: usize = AgentBuilder::DEFAULT_MAX_PARALLEL_TOOLS,
        "use `AgentBuilder::DEFAULT_MAX_PARALLEL_TOOLS`";
    DEFAULT_MAX_TRANSCRIPT_BYTES: u64 = AgentBuilder::DEFAULT_MAX_TRANSCRIPT_BYTES,
        "use `AgentBuilder::DEFAULT_MAX_TRANSCRIPT_BYTES`";
    DEFAULT_PREAMBLE: &str = AgentBuilder::DEFAULT_PREAMBLE, "use `AgentBuilder::DEFAULT_PREAMBLE`";
    DEFAULT_MAX_RESPONSE_BYTES: usize = provider::DEFAULT_MAX_RESPONSE_BYTES,
        "use `provider::DEFAULT_MAX_RESPONSE_BYTES`";
    MAX_ERROR_BODY_BYTES: usize = provider::MAX_ERROR_BODY_BYTES, "use `provider::MAX_ERROR_BODY_BYTES`";
    MAX_REDIRECTS: usize = provider::MAX_REDIRECTS, "use `provider::MAX_REDIRECTS`";
}

#[doc(hidden)]
#[deprecated(note = "use `budget::default_context_window`")]
#[allow(missing_docs)]
pub fn default_context_window(provider: &str, model: &str) -> u64 {
    budget::default_context_window(provider, model)
}

#[doc(hidden)]
#[deprecated(note = "use `budget::estimate_tokens`")]
#[allow(missing_docs)]
pub fn estimate_tokens(bytes: usize) -> u64 {
    budget::estimate_tokens(bytes)
}

#[doc(hidden)]
#[deprecated(note = "use `budget::request_bytes`")]
#[allow(missing_docs)]
pub fn request_bytes(request: &Request<'_>) -> usize {
    budget::request_bytes(request)
}

#[doc(hidden)]
#[deprecated(note = "use `budget::message_bytes`")]
#[allow(missing_docs)]
pub fn message_bytes(message: &Message) -> usize {
    budget::message_bytes(message)
}

#[doc(hidden)]
#[deprecated(note = "use `budget::shortened_note`")]
#[allow(missing_docs)]
pub fn shortened_note(tool: &str, arguments: &str, content: &str) -> String {
    budget::shortened_note(tool, arguments, content)
}

#[doc(hidden)]
#[deprecated(note = "use `ApiErrorKind::for_status`")]
#[allow(missing_docs)]
pub fn kind_for_status(status: u16) -> ApiErrorKind {
    ApiErrorKind::for_status(status)
}
