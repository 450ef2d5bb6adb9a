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
//! skills stats [DIR...] [--format md|xml] [--context-window TOKENS]
//!                                              sizes, estimated tokens, what the catalog saves
//! skills lock [DIR...] [--output PATH] [--check]
//!                                              write (or check) skills.lock, the reviewed files
//! skills eval [DIR...] [--provider anthropic|openai] [--model M] [--runs N] [--isolated]
//!            [--rule first-call|first-reply] [--format table|json|markdown|junit]
//!            [--min-recall R] [--min-precision P] [--baseline FILE] [--max-requests N]
//!            [--cache DIR]
//!                                              does the model load the right skill? exit 1 on a
//!                                              failed gate, 2 on an error
//! skills eval --tasks [DIR...] [--previous DIR|git:REV|lock:FILE] [--shard K/N]
//!            [--format table|json|markdown|junit|html] [--min-pass-rate P] [--min-uplift U]
//!            [--baseline FILE] [--max-turns N] [--max-tokens N] [--allow-unconfined]
//!                                              does the skill make the agent succeed?
//! skills eval merge REPORT... [--format ...] [--min-pass-rate P] [--min-uplift U]
//!                                              the shards' task reports joined into one
//! skills package [DIR...] [--host anthropic|openai] [--out OUT]
//!                                              per skill, the zip claude.ai, Anthropic's and
//!                                              OpenAI's Skills APIs accept as an upload
//! skills new NAME [--dir DIR]                  a skeleton SKILL.md that passes `check`
//! skills completions bash|zsh|fish             a shell completion script
//! ```
//!
//! `DIR` defaults to `skills`, resolved against the current directory (the macro resolves its
//! roots against the crate's manifest directory, so run the command from there). The commands
//! that read a bundle also take every option of the macro, so `skills check` judges a folder
//! exactly as a given `embed_skills!` call does. Their flags are generated from the options table
//! of `skills-core` (`skills_core::options::OPTIONS`): `max_file_size = N` is
//! `--max-file-size N`, a list is a repeated flag, `LINT = "deny"` is `-D LINT` (`-A`, `-W` for
//! the other levels), and `-D warnings` is `#![deny(warnings)]` in the crate. Lint flags are read
//! in order and the last one for a lint wins, as in rustc; an unknown lint name is a bad command
//! line. `skills help check` lists them all.
//!
//! Exit codes: 0 success; 1 the bundle has errors (diagnostics on stderr, or on stdout for
//! `check`), an unknown skill for `show`, or a failure to write; 2 a bad command line. `eval`
//! exits 1 when a gate fails and 2 on anything that kept it from judging (a bundle with errors, no
//! provider, a failed request, a reply that was an error).

mod args;
mod bundle;
mod check;
mod eval;
mod listing;
mod lock;
mod new;
mod output;
mod package;
mod packs;
mod previous;
mod stats;

use std::env;
use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use args::{Cli, Command};
use clap::CommandFactory;
use output::{Out, Streams};

fn main() -> ExitCode {
    // First, before any thread starts: `eval --tasks` runs bash in a sandbox that this binary,
    // started again, builds; in such a copy this line never returns.
    skills_agent::sandbox::enter();
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

/// Parses `args` (without the program name) and runs the command; returns the exit code.
fn run(args: impl IntoIterator<Item = OsString>, streams: &mut Streams<'_>) -> u8 {
    let args = std::iter::once(OsString::from("skills")).chain(args);
    let command = match args::parse(args) {
        Ok(command) => command,
        Err(error) => return clap_exit(&error, streams),
    };
    match execute(command, streams) {
        Ok(code) => code,
        Err(error) => {
            let _ = writeln!(streams.err, "error: cannot write output: {error}");
            1
        }
    }
}

/// What clap says instead of running: help and the version on stdout (exit 0), a bad command
/// line on stderr (exit 2).
fn clap_exit(error: &clap::Error, streams: &mut Streams<'_>) -> u8 {
    let text = error.render().to_string();
    let stream = if error.use_stderr() {
        &mut *streams.err
    } else {
        &mut *streams.out
    };
    let _ = write!(stream, "{text}");
    u8::try_from(error.exit_code()).unwrap_or(2)
}

fn execute(command: Command, streams: &mut Streams<'_>) -> io::Result<u8> {
    match command {
        Command::Check { source, format } => check::run(&source, format, streams),
        Command::List { source } => listing::list(&source, streams),
        Command::Show { name, source } => listing::show(&name, &source, streams),
        Command::Prompt { source, format } => listing::prompt(&source, format, streams),
        Command::Stats {
            source,
            format,
            context_window,
        } => stats::run(&source, format, context_window, streams),
        Command::Lock {
            output,
            check,
            source,
        } => lock::run(&source, &output, check, streams),
        Command::Package { hosts, out, source } => package::run(&source, &hosts, &out, streams),
        Command::Eval {
            merge,
            eval,
            source,
        } => eval::run(merge.as_ref(), &source, &eval, streams),
        Command::New { name, dir } => new::run(&name, &dir, streams),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "skills", &mut *streams.out);
            Ok(0)
        }
    }
}
