//! `skills`: check, inspect and create Agent Skills folders without compiling anything.
//!
//! The command calls the same `skills-core` functions as the `embed_skills!` macro
//! ([`skills_core::load`] for discovery, parsing and validation, [`skills_core::render`] for the
//! catalog), so a folder passes `skills check` exactly when it compiles, and `skills prompt`
//! prints exactly the catalog the binary carries.
//!
//! ```text
//! skills check [DIR...] [--format text|json]   every diagnostic; exit 1 on any error
//! skills list [DIR...]                         name, version, description per skill
//! skills show NAME [DIR...]                    metadata, sha256, resources, body
//! skills prompt [DIR...] [--format md|xml]     the catalog the binary would carry
//! skills stats [DIR...] [--format md|xml]      sizes, estimated tokens, what the catalog saves
//! skills new NAME [--dir DIR]                  a skeleton SKILL.md that passes `check`
//! ```
//!
//! `DIR` defaults to `skills`, resolved against the current directory (the macro resolves its
//! roots against the crate's manifest directory, so run the command from there). The commands
//! that read a bundle also take every option of the macro, so `skills check` judges a folder
//! exactly as a given `embed_skills!` call does:
//!
//! | `embed_skills!` option            | flag                              |
//! |-----------------------------------|-----------------------------------|
//! | `max_file_size = N`               | `--max-file-size N`               |
//! | `max_bundle_size = N`             | `--max-bundle-size N`             |
//! | `allow_unknown_keys = true`       | `--allow-unknown-keys`            |
//! | `infer_missing_fields = true`     | `--infer-missing-fields`          |
//! | `ignore = ["a", "b"]`             | `--ignore a --ignore b`           |
//! | `allowed_hosts = ["docs.rs"]`     | `--allowed-host docs.rs`          |
//! | `LINT = "allow"/"warn"/"deny"`    | `-A LINT` / `-W LINT` / `-D LINT` |
//! | `#![deny(warnings)]` in the crate | `-D warnings`                     |
//!
//! Lint flags are read in order and the last one for a lint wins, as in rustc; an unknown lint
//! name is a bad command line.
//!
//! Exit codes: 0 success; 1 the bundle has errors (diagnostics on stderr, or on stdout for
//! `check`), an unknown skill for `show`, or a failure to write; 2 a bad command line.

mod args;
mod bundle;
mod check;
mod listing;
mod new;
mod output;
mod stats;

use std::env;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use args::{Command, UsageError};
use output::{Out, Streams};

/// Exit code for a command line that cannot be run.
const USAGE: u8 = 2;

fn main() -> ExitCode {
    let stdout = io::stdout();
    let mut out = Out::new(BufWriter::new(stdout.lock()));
    let mut err = Out::new(io::stderr());
    let mut streams = Streams {
        out: &mut out,
        err: &mut err,
    };
    let mut code = run(env::args_os().skip(1), &mut streams);
    if let Err(error) = out.flush() {
        let _ = writeln!(err, "error: cannot write output: {error}");
        code = code.max(1);
    }
    ExitCode::from(code)
}

/// Parses `args` and runs the command; returns the exit code.
fn run(args: impl IntoIterator<Item = std::ffi::OsString>, streams: &mut Streams<'_>) -> u8 {
    let command = match args::parse(args) {
        Ok(command) => command,
        Err(error) => return usage_error(&error, streams),
    };
    match execute(command, streams) {
        Ok(code) => code,
        Err(error) => {
            let _ = writeln!(streams.err, "error: cannot write output: {error}");
            1
        }
    }
}

fn usage_error(error: &UsageError, streams: &mut Streams<'_>) -> u8 {
    let _ = writeln!(streams.err, "{error}");
    USAGE
}

fn execute(command: Command, streams: &mut Streams<'_>) -> io::Result<u8> {
    match command {
        Command::Help(topic) => {
            write!(streams.out, "{}", help(topic))?;
            Ok(0)
        }
        Command::Version => {
            writeln!(streams.out, "skills {}", env!("CARGO_PKG_VERSION"))?;
            Ok(0)
        }
        Command::Check { source, format } => check::run(&source, format, streams),
        Command::List { source } => listing::list(&source, streams),
        Command::Show { name, source } => listing::show(&name, &source, streams),
        Command::Prompt { source, format } => listing::prompt(&source, format, streams),
        Command::Stats { source, format } => stats::run(&source, format, streams),
        Command::New { name, dir } => new::run(&name, &dir, streams),
    }
}

/// The macro's options, as every command that reads a bundle takes them.
const SOURCE_OPTIONS: &str = "\
Bundle options (each as the `embed_skills!` option named in brackets):
  --max-file-size BYTES    largest accepted file, SKILL.md or resource (default 1048576)
                           [max_file_size = BYTES]
  --max-bundle-size BYTES  largest total of all embedded files (default 67108864)
                           [max_bundle_size = BYTES]
  --allow-unknown-keys     accept (and ignore) unknown frontmatter keys
                           [allow_unknown_keys = true]
  --infer-missing-fields   take a missing `name` from the folder and a missing `description`
                           from the first body line [infer_missing_fields = true]
  --ignore PATTERN         leave files named PATTERN (`*` wildcards allowed) out of the
                           resources; repeatable [ignore = [\"PATTERN\", ...]]
  --allowed-host HOST      a host (and its subdomains) the `external_urls` lint accepts;
                           repeatable [allowed_hosts = [\"HOST\", ...]]
  -A, --allow LINT         silence a lint [LINT = \"allow\"]
  -W, --warn LINT          report a lint as a warning [LINT = \"warn\"]
  -D, --deny LINT          report a lint as an error, failing the check [LINT = \"deny\"]
                           Lint flags repeat; the last one for a lint wins. Lints (default
                           level): long_body (warn), similar_descriptions (warn),
                           prompt_override (warn), external_urls (allow). `warnings` stands for
                           every warning: `-D warnings` makes them errors, as
                           `#![deny(warnings)]` does in the crate; `-A warnings` hides them.
";

/// The text of `skills help [COMMAND]`.
fn help(topic: Option<&str>) -> String {
    let usage = args::usage(topic.unwrap_or(""));
    let (about, options) = match topic {
        None => {
            return format!(
                "skills {} - check and inspect Agent Skills folders (SKILL.md) without compiling

Usage: skills <COMMAND> [ARGS]

Commands:
  check [DIR...]       report every problem, as `embed_skills!` would; exit 1 on any error
  list [DIR...]        one line per skill: name, version, description
  show NAME [DIR...]   a skill's metadata, sha256, resources and body
  prompt [DIR...]      the catalog the binary would carry (--format md|xml)
  stats [DIR...]       sizes and estimated tokens; what progressive disclosure saves
  new NAME             create DIR/NAME/SKILL.md from a skeleton that passes `check`
  help [COMMAND]       this text, or a command's

Options:
  -h, --help           print help
  -V, --version        print the version

DIR defaults to `skills`, relative to the current directory; several DIRs are read as one
bundle, like `embed_skills!(\"a\", \"b\")`. The commands that read a bundle take every option
of the macro (`max_file_size = N` is `--max-file-size N`, `long_body = \"deny\"` is
`-D long_body`, ...): see `skills help check`.
Exit codes: 0 success, 1 errors in the bundle (or a failed command), 2 a bad command line.
",
                env!("CARGO_PKG_VERSION")
            );
        }
        Some("check") => (
            "Reports every problem in every skill, in the format of the compile errors, then
`checked N skills: M errors`. Exits 1 when there is any error, 0 otherwise (warnings do not
fail). A folder passes exactly when `embed_skills!` would compile it.",
            "  --format text|json       `json`: one document with `diagnostics` (severity, path, line,
                           column, message, help, source_line, rendered) and `summary`
",
        ),
        Some("list") => (
            "Prints one line per skill, sorted by name: name, version (`-` when unset) and the
description with whitespace collapsed. A bundle with errors prints its diagnostics to stderr
and exits 1.",
            "",
        ),
        Some("show") => (
            "Prints every frontmatter field that is set, the path, the SHA-256 the binary records,
the resources, then a blank line and the body. Exits 1 when no skill has that name.",
            "",
        ),
        Some("prompt") => (
            "Prints the catalog exactly as the binary carries it, and nothing else: Markdown
(`- name: description` lines) or the agentskills.io XML block. No trailing newline unless
stdout is a terminal.",
            "  --format md|xml          the catalog format (default md)
",
        ),
        Some("stats") => (
            "Per skill and in total: description length (characters the catalog shows), body lines,
body bytes, estimated body tokens and resources (files beside SKILL.md); then the catalog, sent in every request,
against all bodies together, which progressive disclosure sends only on `load_skill`.
Tokens are estimated as characters / 4, rounded up.",
            "  --format md|xml          the catalog format to measure (default md)
",
        ),
        Some("new") => {
            return format!(
                "Creates DIR/NAME/SKILL.md from a skeleton that passes `skills check`: a description
template to fill in and a body outline. NAME must follow the name rules (lowercase ASCII
letters, digits and single hyphens, at most 64 characters); an existing folder is never
overwritten.

Usage: {usage}

Options:
  --dir DIR    the skills root to create it in (default `skills`, created if missing)
  -h, --help   print help
"
            );
        }
        Some(_) => {
            return format!("Prints help.\n\nUsage: {usage}\n");
        }
    };
    format!(
        "{about}\n\nUsage: {usage}\n\nDIR defaults to `skills`; several DIRs are read as one \
         bundle.\n\nOptions:\n{options}  -h, --help               print help\n\n{SOURCE_OPTIONS}"
    )
}
