//! Agent Skills compiled into your binary.
//!
//! A skill is a folder `skills/<name>/SKILL.md`: YAML frontmatter (`name`, `description`, ...)
//! over Markdown instructions. [`embed_skills!`] reads the folder **at build time**, validates
//! every skill, and compiles the registry, the catalog and the bodies into the binary. A malformed
//! or duplicate skill is a compile error naming its file and line; at run time nothing is read
//! from disk and nothing is parsed.
//!
//! ```
//! static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");
//!
//! // The catalog the model always sees: one line per skill.
//! assert_eq!(
//!     SKILLS.catalog(),
//!     "- greet: Greet the user by name. Use when a conversation starts."
//! );
//! // What `load_skill("greet")` returns.
//! let skill = SKILLS.get("greet").unwrap();
//! assert_eq!(skill.version(), Some("1.0"));
//! assert!(SKILLS.load_skill("greet").unwrap().starts_with("<skill name=\"greet\" version=\"1.0\">"));
//! // Unknown names get an error that suggests the closest one.
//! assert!(SKILLS.load_skill("gret").unwrap_err().to_string().contains("Did you mean \"greet\"?"));
//! ```
//!
//! # What you get
//!
//! - [`Registry`]: the static bundle. [`Registry::catalog`] (Markdown, built at compile time),
//!   [`Registry::catalog_xml`], [`Registry::get`], [`Registry::iter`], and
//!   [`Registry::restrict`] to switch skills off at run time without a rebuild: it returns a
//!   `Registry` too, so a whole bundle and a restricted one answer every question the same way.
//! - [`Skill`]: name, description, body, the whole normalized file, its SHA-256, and every
//!   optional frontmatter field.
//! - The `load_skill` tool: its JSON definition for Anthropic and OpenAI
//!   ([`Registry::load_skill_tool_anthropic`], [`Registry::load_skill_tool_openai`]) and
//!   [`SkillLoader`], which turns a call into the tool result and remembers what a conversation
//!   has already loaded.
//! - [`Registry::system_prompt`]: your preamble plus the catalog and one sentence about
//!   `load_skill`.
//! - [`Registry::invoke`]: what a person's `/name arguments` turns into, with Claude Code's
//!   `$ARGUMENTS`, `$N`, `$name` and `${CLAUDE_SKILL_DIR}` substitutions ([`invoke`]); refusals
//!   are an [`InvokeError`].
//! - Resources (files beside `SKILL.md`): [`Skill::resources`], the `read_skill_resource` tool
//!   ([`Registry::read_resource_tool_anthropic`], [`Registry::read_resource`]) and
//!   [`Skill::materialize`].
//! - Trigger cases (`evals/triggers.json`), compiled in with `embed_evals = true`:
//!   [`Skill::trigger_cases`], for the trigger evals (`agent::eval` with the `agent` feature).
//!
//! # Rebuilds
//!
//! Every file the macro reads is tracked, so editing or deleting a skill rebuilds. For a *new*
//! skill folder to rebuild too, add one line to `build.rs` (see [`build`]). With a build script
//! the macro also caches each skill folder's checked result in `OUT_DIR`, so a rebuild re-reads
//! only the folders that changed.
//!
//! # Skill packs
//!
//! A crate can carry a `skills/` folder for others to embed: with `links = "<its name>"` in its
//! `Cargo.toml` and [`build::pack`] in its build script it publishes where the folder is. A crate
//! that depends on it calls [`build::packs`] in its build script and names it in
//! `embed_skills!("skills", packs = ["acme-skills"])`: the packs and its own folders are checked
//! as one bundle (names, `requires`, the budget, the lock). At run time, a pack's own registry
//! works alone and [`Registry::compose`] joins several.
//!
//! # Features
//!
//! With default features off this crate has no dependencies beyond its own macro, the static
//! bundle (`skills-bundle`) and the dependency-free renderers of `skills-core`.
//!
//! - `agent`: the [`agent`] module (the crate `skills-agent`): Anthropic and OpenAI-compatible
//!   providers (hand-written on reqwest with rustls), the tools (`bash`, `read_file`,
//!   `write_file`, `edit_file`, `glob`, `load_skill`, `read_skill_resource`), permissions,
//!   transcripts, the context budget, the tool loop and the trigger evals. Adds tokio, reqwest,
//!   serde, serde_json and tracing. Every `bash` call runs in a sandbox of its own (the crate
//!   `skills-sandbox`, at [`agent::sandbox`]), built by the program's binary started again, so a
//!   program running the agent calls `skills_runtime::agent::sandbox::enter()` as the first line
//!   of a plain `main`, before any thread (a tokio runtime) starts; see the agent's crate docs,
//!   "The entry line".
//! - `mcp`: the [`mcp`] module (the crate `skills-mcp-server`): an MCP server of the bundle on
//!   rmcp, with the Skills extension, every file as a resource, the `load_skill` and
//!   `read_skill_resource` tools and one prompt per skill a person may invoke, over stdio or
//!   Streamable HTTP. Adds rmcp, tokio, hyper and serde_json.
//! - `rig`: the [`rig`] module (the crate `skills-rig`): for agents built on rig, `load_skill`
//!   and `read_skill_resource` as rig tools and the catalog in the preamble, added by one call
//!   on rig's agent builder (`.skills(&SKILLS)`). Adds rig-core and rig-agent without their
//!   default features (the application picks rig's HTTP client and provider), serde and
//!   serde_json.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "agent")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
#[doc(inline)]
pub use skills_agent as agent;

#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
#[doc(inline)]
pub use skills_mcp_server as mcp;

#[cfg(feature = "rig")]
#[cfg_attr(docsrs, doc(cfg(feature = "rig")))]
#[doc(inline)]
pub use skills_rig as rig;

pub use skills_bundle::{
    CatalogEntry, DEFAULT_READ_LIMIT, DuplicateSkill, EMPTY_CATALOG, Effort, InvokeError, Iter,
    LOAD_SKILL_TOOL, LoadRendering, OpenAiYaml, Registry, Resource, ResourceError, Shell, Skill,
    SkillContext, SkillLoad, SkillLoader, ToolDependency, TriggerCase, UnknownSkill, build,
    default_resource_dir, invoke,
};

// The generated code's paths (`::skills_runtime::__private::...`): the bundle's.
#[doc(hidden)]
pub use skills_bundle::__private;

/// Compiles a skills folder into a [`Registry`].
///
/// ```ignore
/// static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("skills");
/// ```
///
/// Arguments: one or more string-literal roots, resolved against the directory of the crate's
/// `Cargo.toml`, then options as `key = value`:
///
/// | option | default | meaning |
/// |---|---|---|
/// | `max_file_size = <bytes>` | `1048576` (1 MiB) | largest accepted file, `SKILL.md` or resource, in bytes |
/// | `max_bundle_size = <bytes>` | `67108864` (64 MiB) | largest total of all embedded files, in bytes |
/// | `allow_unknown_keys = true` | `false` | accept (and ignore) frontmatter keys outside the spec; custom data belongs under `metadata:` |
/// | `infer_missing_fields = true` | `false` | importing old folders: a missing `name` is the folder name, a missing `description` the first body line |
/// | `ignore = ["*.bak", "drafts"]` | `[]` | more file names or `*` patterns to leave out of the resources (hidden files, `__pycache__` and `*.pyc` always are) |
/// | `compat = "claude-code"` | `"strict"` | also accept Claude Code's frontmatter keys (`argument-hint`, `disable-model-invocation`, `effort`, `context`, `hooks`, ...), checked as strictly; `name` may be a display name and the folder is the identifier |
/// | `embed_evals = true` | `false` | also compile each skill's trigger cases (`evals/triggers.json`) into the binary, for `Skill::trigger_cases` and evals the binary runs itself (`agent --eval`); never shown to the model, counted in `max_bundle_size` |
/// | `catalog_budget = <chars>` | `none` | longest accepted catalog, in characters; the error names the skills that contribute most |
/// | `long_body = "deny"` | `"warn"` | lint level (`"allow"`, `"warn"` or `"deny"`) for a body over 500 lines or about 5,000 tokens |
/// | `similar_descriptions = "deny"` | `"warn"` | lint level for two descriptions so alike that the model may pick the wrong skill |
/// | `prompt_override = "deny"` | `"warn"` | lint level for text that tries to override the system prompt ("ignore previous instructions") |
/// | `external_urls = "warn"` | `"allow"` | lint level for links to hosts outside `allowed_hosts` |
/// | `empty_body = "deny"` | `"warn"` | lint level for a skill with no instructions after the frontmatter |
/// | `ascii_names = "deny"` | `"allow"` | lint level for a `name` with characters outside ASCII (`café`, `数据-分析`) |
/// | `missing_trigger_cases = "warn"` | `"allow"` | lint level for a skill with no trigger cases in `evals/triggers.json` |
/// | `dangling_code_path = "warn"` | `"deny"` | lint level for a path in a code span that names no file of the skill; `"warn"` by default with `compat = "claude-code"` (a Markdown link or image that names no file is an error in every mode) |
/// | `portable = "deny"` | `"allow"` | lint level for a frontmatter key that hosted uploads (claude.ai, the Anthropic and OpenAI Skills APIs) refuse (any but `name`, `description`, `license`, `compatibility`, `metadata`, `allowed-tools`), or a boolean written as a word only Claude Code reads as one (`yes`, `off`, `1`) |
/// | `mcp_limits = "deny"` | `"warn"` | lint level for a skill over the MCP Skills extension's per-skill limits of 512 files or 16 MiB |
/// | `allowed_hosts = ["docs.rs"]` | `[]` | hosts (and their subdomains) that the `external_urls` lint accepts |
/// | `crate = ::my_runtime` | `::skills_runtime` | path of the runtime crate in generated code, for a renamed dependency |
/// | `lock = "skills.lock"` | `none` | lockfile (`sha256sum` format) every embedded file must match, with the options that decide what is embedded: a changed, new or removed file is a compile error until `skills lock` rewrites it; `Registry::lock_digest()` reports its SHA-256 |
/// | `packs = ["acme-skills"]` | `[]` | skill packs (dependencies carrying a `skills/` folder) compiled with the roots and checked as one bundle: names, `requires`, `conflicts-with`, the budget and the lock cover them all; the crate's `build.rs` calls `skills_runtime::build::packs()` |
///
/// Every problem in every file is its own compile error, pointing at the file and line.
///
/// With `lock = "skills.lock"` only reviewed files compile. The lock is what `skills lock`
/// writes, in `sha256sum` format so `sha256sum -c skills.lock` (run beside `Cargo.toml`)
/// verifies it too: `# option name = value` comment lines for the options that decide what is
/// embedded (`max_file_size`, `max_bundle_size`, `allow_unknown_keys`, `infer_missing_fields`,
/// `ignore`, `compat`, `embed_evals`), which `sha256sum` skips, then one `<sha256>  <path>`
/// line per embedded file, sorted by path. A changed file, a file the lock does not list, a
/// listed file that is gone and a changed option are each a compile error naming the file, both
/// hash prefixes and the `skills lock` command that updates the lock. The lock is tracked, so
/// editing it rebuilds, and [`Registry::lock_digest`] reports its SHA-256.
pub use skills_macro::embed_skills;

/// A skill name checked at build time: `skill_name!("skills", "code-review")` is
/// `"code-review"` (a `&'static str`, usable in a `const`) when `skills/code-review/SKILL.md`
/// exists and its frontmatter is valid, and a compile error at the name otherwise, with the
/// closest folder name.
///
/// ```ignore
/// const REVIEW: &str = skills_runtime::skill_name!("skills", "code-review");
/// let skill = SKILLS.get(REVIEW).expect("checked at build time");
/// ```
///
/// Only that skill's `SKILL.md` is read (and tracked, so editing it rebuilds), not the whole
/// root. Options that change how a file is read (`compat`, `allow_unknown_keys`,
/// `infer_missing_fields`, `max_file_size`) follow as in `embed_skills!`, and should match the
/// root's `embed_skills!` call.
pub use skills_macro::skill_name;
