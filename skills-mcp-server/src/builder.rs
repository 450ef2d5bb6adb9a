//! [`SkillsServerBuilder`]: a [`SkillsServer`] with settings other than the defaults.

use std::time::Duration;

use skills_bundle::Registry;

use crate::options::Options;
use crate::server::SkillsServer;

impl SkillsServer {
    /// A server of `registry` (a `&'static Registry` or an owned, maybe restricted, one) with
    /// the default settings (see [`builder`](Self::builder)).
    pub fn new(registry: impl Into<Registry>) -> Self {
        Self::builder(registry).build()
    }

    /// A server of `registry` with settings of its own: the TTL of its answers, the page
    /// size of its listings, the per-skill limits, the prompts' word slots.
    pub fn builder(registry: impl Into<Registry>) -> SkillsServerBuilder {
        SkillsServerBuilder::new(registry.into())
    }
}

/// Builds a [`SkillsServer`] with settings other than the defaults.
///
/// ```
/// use std::time::Duration;
///
/// static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/spec");
///
/// let server = skills_runtime::mcp::SkillsServer::builder(&SKILLS)
///     .ttl(Duration::from_secs(60))
///     .page_size(20)
///     .build();
/// # let _ = server;
/// ```
#[derive(Clone, Debug)]
pub struct SkillsServerBuilder {
    registry: Registry,
    options: Options,
}

impl SkillsServerBuilder {
    pub(crate) fn new(registry: Registry) -> Self {
        SkillsServerBuilder {
            registry,
            options: Options::default(),
        }
    }

    /// How long a host may treat the answers as fresh before asking again: the `ttlMs` of
    /// `skills/list`, `skills/get`, `resources/list`, `resources/read`, `tools/list`,
    /// `prompts/list` and `server/discover`, all `cacheScope: "public"` (nothing served depends
    /// on who asks). Default [`DEFAULT_TTL`](crate::DEFAULT_TTL); zero says "always ask again".
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.options.ttl = ttl;
        self
    }

    /// Entries per page of `skills/list`, `resources/list` and `resources/directory/read`
    /// (at least 1; default [`DEFAULT_PAGE_SIZE`](crate::DEFAULT_PAGE_SIZE)). The next page is asked for with the
    /// `nextCursor` of the last; a cursor this server did not issue is refused with -32602.
    pub fn page_size(mut self, entries: usize) -> Self {
        self.options.page_size = entries.max(1);
        self
    }

    /// The per-skill limits above which a skill is left out of the Skills extension
    /// (`skills/list`, `skills/get`, `skill://index.json`): the MCP Skills extension's 512
    /// files and 16 MiB by default, which a server should not exceed because a host need not
    /// accept more. Its files are still served as resources and through the tools. Raise
    /// them only for hosts known to accept larger skills; the build's `mcp_limits` lint
    /// reports such skills (`mcp_limits = "deny"` makes them a compile error).
    pub fn skill_limits(mut self, max_files: usize, max_bytes: u64) -> Self {
        self.options.max_files = max_files;
        self.options.max_bytes = max_bytes;
        self
    }

    /// How many words of a prompt's free text reach the skill from a host that fills prompt
    /// arguments by position (default [`DEFAULT_PROMPT_WORDS`](crate::DEFAULT_PROMPT_WORDS)): each prompt declares its named
    /// arguments, then `arguments` and `arguments_2` up to `arguments_N` for the words after
    /// them. A host with a form fills `arguments` with the whole text instead.
    pub fn prompt_words(mut self, words: usize) -> Self {
        self.options.prompt_words = words.max(1);
        self
    }

    /// The server.
    pub fn build(self) -> SkillsServer {
        SkillsServer::with_options(self.registry, self.options)
    }
}
