//! The one implementation of the Agent Skills rules, shared by the `embed_skills!` macro,
//! the `skills` command and the runtime.
//!
//! A bundle goes through five stages, one module each:
//!
//! 1. `discover` walks the roots and finds `SKILL.md` files;
//! 2. `text` decodes and normalizes a file and splits frontmatter from body;
//! 3. `yaml` turns the frontmatter into a small positioned tree and
//!    [`skill`] reads the fields out of it;
//! 4. `resources` collects the files beside each `SKILL.md`, and `links` checks that the
//!    body's links and paths point at them; [`triggers`] reads the skill's trigger cases
//!    (`evals/triggers.json`) and [`tasks`] its task cases (`evals/evals.json`), which are never
//!    embedded as resources;
//! 5. `check` applies the rules that look at several skills at once, and [`lint`]
//!    gives advice at a level the user chooses.
//!
//! [`digest`] is the one SHA-256 helper every stage hashes with.
//!
//! [`options`] defines the options of a bundle once, for the macro's `key = value` pairs, the
//! command's flags and the docs.
//!
//! [`pack`] is how a crate's skills folder reaches the crates that depend on it.
//!
//! [`lock`] writes and checks the lockfile of reviewed files (`lock = "skills.lock"`).
//!
//! [`openai_yaml`] reads a skill's `agents/openai.yaml`, Codex's file, and applies it.
//!
//! [`hosted`] judges a checked skill against what claude.ai's and the Skills APIs' zip uploads
//! accept, for `skills package`.
//!
//! [`load`] wires the stages together. Every stage returns what it could parse *and*
//! every [`Diagnostic`] it found, so one build reports every problem in every file.
//! [`load_cached`] does the same with a build cache of the per-file results, which
//! `embed_skills!` keeps in `OUT_DIR` so that a rebuild re-reads only the skills that changed.
//!
//! [`shell_commands`] finds Claude Code's `` !`command` `` and ```` ```! ```` blocks in a body,
//! for the build and the runtime alike.
//!
//! [`tables`] lays a checked bundle out as the flat tables the macro embeds, which a registry
//! built at run time reads as well.
//! [`mcp`] has what MCP hosts take of a bundle besides its files: the Skills extension's
//! per-skill limits and the server's instructions within what hosts keep.
//!
//! [`visible`] says which characters cannot be seen for what they are and escapes them, for
//! the rule on frontmatter text and for everything that prints skill text; [`portable`] says
//! which file names can be written on every system. Both need no dependencies.
//!
//! [`render`] has the output formats (catalog, tool schemas, `load_skill` results). It needs
//! no dependencies and is compiled even with the `validate` feature off, so the runtime renders
//! a filtered catalog with exactly the code the macro used at build time.
//!
// The guides: errors, lints and hostile folders; skills written for Claude Code and Codex.
#![doc = include_str!("../docs/validation.md")]
#![doc = include_str!("../docs/compat.md")]

// The embedded format: what the macro lays out and the runtime reads, and the renderers both
// use. No dependencies, compiled with the `validate` feature off.
pub mod allowed_tools;
pub mod claude_code;
mod wildcard;

// Shared with the macro and the runtime, not part of the documented surface: the macro builds
// the name index and the skill records the runtime reads, and the runtime renders with the
// macro's own code.
#[doc(hidden)]
pub mod index;
#[doc(hidden)]
pub mod layout;
pub mod mcp;
pub mod pack;
pub mod portable;
pub mod render;
pub mod shell_commands;
#[doc(hidden)]
pub mod tables;
pub mod tasks;
#[doc(hidden)]
pub mod tracking;
pub mod visible;

/// Puts every item it is given behind the `validate` feature: the gate of the load stages, the
/// half of the crate that reads skill folders and checks them (with its YAML, hashing and
/// Unicode dependencies), written once.
macro_rules! load_stages {
    ($($item:item)*) => {
        $(#[cfg(feature = "validate")] $item)*
    };
}

// The load stages: discover, read, parse, check, lint, lock and cache a bundle's folders.
load_stages! {
    mod bundle;
    mod cache;
    mod cross_skill;
    mod diagnostic;
    pub mod digest;
    mod discover;
    mod files;
    pub mod hosted;
    mod links;
    pub mod lint;
    mod lint_table;
    pub mod lock;
    pub mod openai_yaml;
    pub mod options;
    mod resources;
    pub mod skill;
    mod spanned;
    mod text;
    pub mod triggers;
    mod yaml;

    pub use bundle::{
        Bundle, load, load_cached, load_one, load_one_with_packs, load_packs, unknown_pack,
    };
    pub use diagnostic::{Code, Diagnostic, Severity};
    #[doc(hidden)]
    pub use discover::display_root;
    pub use files::ReadCheckedError;
    pub use lint::{Level, Lint, LintOptions};
    pub use options::{OPTIONS, OptionSpec, Options};
    pub use resources::ResourceDef;
    pub use skill::SkillDef;
    pub use spanned::Spanned;
    pub use triggers::{TriggerCase, TriggerFile};
}
