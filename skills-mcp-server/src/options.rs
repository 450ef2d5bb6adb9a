//! The settings of a [`SkillsServer`](crate::SkillsServer), each with its default.

use std::time::Duration;

/// How long a host may treat a listing or a file as fresh by default (`ttlMs`): an hour. The
/// bundle is compiled into the binary, so nothing changes while the process runs; the hour only
/// bounds how long a host keeps the answers of a server binary that was since replaced (and a
/// replaced file fails the host's digest check anyway).
pub const DEFAULT_TTL: Duration = Duration::from_secs(3600);

/// Skills per `skills/list` page, and entries per `resources/list` and
/// `resources/directory/read` page, by default.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// Words of a prompt's free text that reach the skill from a host that fills prompt arguments
/// by position, one word each (Claude Code does, and drops the words past the last argument).
pub const DEFAULT_PROMPT_WORDS: usize = 16;

/// The settings of a server (see [`SkillsServer::builder`](crate::SkillsServer::builder)).
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub(crate) ttl: Duration,
    pub(crate) page_size: usize,
    pub(crate) max_files: usize,
    pub(crate) max_bytes: u64,
    pub(crate) prompt_words: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ttl: DEFAULT_TTL,
            page_size: DEFAULT_PAGE_SIZE,
            max_files: skills_core::mcp::MAX_FILES,
            max_bytes: skills_core::mcp::MAX_BYTES,
            prompt_words: DEFAULT_PROMPT_WORDS,
        }
    }
}

impl Options {
    /// `ttlMs`: the TTL in whole milliseconds.
    pub(crate) fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }
}
