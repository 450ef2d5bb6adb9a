//! The embedded bundle as an MCP server, on the official Rust SDK ([`rmcp`]).
//!
//! [`SkillsServer`] serves a [`Registry`](skills_bundle::Registry) (whole or
//! [restricted](skills_bundle::Registry::restrict)) to MCP hosts, from the embedded data only (it
//! never reads the file system):
//!
//! - the Skills extension (`io.modelcontextprotocol/skills`): `skills/list` and `skills/get`
//!   with each skill's frontmatter (every field the author wrote, in the author's order) and
//!   every file's URI, size and `sha256:` digest of exactly the bytes served. A skill only a
//!   person may invoke (`disable-model-invocation`) is left out, as it is from the catalog: it
//!   is a prompt;
//! - resources: every file of every skill (person-only ones too) at `skill://<name>/<path>`
//!   (`SKILL.md` included), listed with MIME type and size; text as text, binary files as base64
//!   blobs. Each skill's folder (`skill://<name>`) and its subfolders answer
//!   `resources/directory/read` with their direct children: files with size and MIME type, folders
//!   as `inode/directory`;
//! - tools: `load_skill` (what [`Registry::load_skill`](skills_bundle::Registry::load_skill)
//!   returns) and `read_skill_resource` (what
//!   [`Registry::read_resource`](skills_bundle::Registry::read_resource) returns), the same
//!   definitions the agent shows a model;
//! - prompts: one per [user-invocable](skills_bundle::Skill::user_invocable) skill, answering with
//!   what [`Registry::invoke`](skills_bundle::Registry::invoke) returns;
//! - instructions: the [catalog](skills_bundle::Registry::catalog).
//!
//! Nothing is parsed or hashed at run time: the macro wrote each frontmatter as JSON (this
//! crate turns on `skills-macro`'s `frontmatter-json` feature, so every bundle of a binary that
//! has the server carries it) and every digest at build time, with the YAML reading and the
//! SHA-256 the build's checks use. The listings and the files by URI are built once, on a
//! blocking thread as serving starts.
//!
//! Serve it over stdio ([`SkillsServer::serve_stdio`]) or Streamable HTTP in stateless mode
//! ([`SkillsServer::serve_http`], or [`SkillsServer::http_service`] to mount the tower service
//! in a router of your own). Over HTTP it stays up under hostile clients
//! ([`HttpServerOptions`], with defaults): timeouts for headers, bodies and idle connections, a
//! cap on connections and on the request body bytes held in memory, `Origin` checked (a page
//! served from this machine, such as the MCP Inspector's, is served; a foreign one gets `403`),
//! and a failing `accept` (no descriptor left) logged and retried.
//!
//! ```no_run
//! // static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("skills");
//! async fn serve(skills: &'static skills_runtime::Registry) -> std::io::Result<()> {
//!     skills_runtime::mcp::SkillsServer::new(skills).serve_stdio().await
//! }
//! ```
//!
// The guide: what is served in detail, protocol versions, HTTP limits, hosts.
#![doc = include_str!("../docs/guide.md")]

mod builder;
mod claude_index;
mod handler;
mod http;
mod index;
mod mime;
mod options;
mod page;
mod prompts;
mod requests;
mod server;
mod uri;

pub use builder::SkillsServerBuilder;
pub use http::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_BUFFERED_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUEST_BODY_BYTES,
    HttpServerOptions, LOCALHOST_ORIGINS,
};
pub use options::{DEFAULT_PAGE_SIZE, DEFAULT_PROMPT_WORDS, DEFAULT_TTL};
pub use server::SkillsServer;
pub use uri::URI_SCHEME;
