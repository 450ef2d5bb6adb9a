//! The command line, declared with clap: the subcommands by derive, and the flags that stand for
//! the macro's options generated from [`skills_core::options::OPTIONS`], so every option has its
//! flag, with the table's help and default.
//!
//! Every mistake is a clap error (exit code 2) that says what was wrong and, for a misspelled
//! subcommand, flag or value, what was probably meant.

use clap::builder::{NonEmptyStringValueParser, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};
use skills_agent::eval::TriggerRule;
use skills_agent::eval::tasks::{Shard, TaskFormat};
use skills_core::hosted::Host;
use skills_core::lint::{LINT_NAMES, Lint};
use skills_core::options::{self, Flag, Kind, LINT_LEVEL_FLAGS, OPTIONS, OptionSpec, Value};
use skills_core::{Level, Options};

/// The folder every command reads (or `new` writes into) when none is given.
pub const DEFAULT_DIR: &str = "skills";

/// The lint group that stands for every warning, as in rustc: `-D warnings` turns each warning
/// into an error (what `#![deny(warnings)]` does to the macro's warnings), `-A warnings` hides them.
pub const WARNINGS: &str = options::WARNINGS;

/// The heading the bundle options are listed under in `--help`.
const BUNDLE_OPTIONS: &str = "Bundle options (each as the `embed_skills!` option in brackets)";

/// `skills`: check and inspect Agent Skills folders (SKILL.md) without compiling.
#[derive(Debug, Parser)]
#[command(
    name = "skills",
    version,
    about = "Check and inspect Agent Skills folders (SKILL.md) without compiling",
    after_help = "DIR defaults to `skills`, relative to the current directory; several DIRs are \
read as one bundle, like `embed_skills!(\"a\", \"b\")`. The commands that read a bundle take every \
option of the macro (`max_file_size = N` is `--max-file-size N`, `long_body = \"deny\"` is \
`-D long_body`, ...): see `skills help check`.\n\
Exit codes: 0 success, 1 errors in the bundle (or a failed command), 2 a bad command line.",
    subcommand_required = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// What `skills check` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// The diagnostics as the compiler shows them, then a summary line.
    #[default]
    Text,
    /// One JSON document for machines.
    Json,
}

/// Which catalog format `prompt` prints and `stats` measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum CatalogFormat {
    /// `- name: description` lines ([`skills_core::render::catalog_markdown`]).
    #[default]
    #[value(name = "md", alias = "markdown")]
    Markdown,
    /// The agentskills.io `<available_skills>` block ([`skills_core::render::catalog_xml`]).
    Xml,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report every problem, as `embed_skills!` would; exit 1 on any error
    #[command(
        long_about = "Reports every problem in every skill, in the format of the compile \
errors, then `checked N skills: M errors`. Exits 1 when there is any error, 0 otherwise (warnings \
do not fail). A folder passes exactly when `embed_skills!` would compile it."
    )]
    Check {
        /// How to report
        ///
        /// `json`: one document with `diagnostics` (severity, path, line, column, message,
        /// help, source_line, rendered) and `summary`.
        #[arg(long, value_enum, default_value_t)]
        format: CheckFormat,
        /// What to read.
        #[command(flatten)]
        source: Source,
    },
    /// One line per skill: name, version, description
    #[command(
        long_about = "Prints one line per skill, sorted by name: name, version (`-` when \
unset) and the description with whitespace collapsed. A bundle with errors prints its diagnostics \
to stderr and exits 1."
    )]
    List {
        /// What to read.
        #[command(flatten)]
        source: Source,
    },
    /// A skill's metadata, sha256, resources and body
    #[command(
        long_about = "Prints every frontmatter field that is set, the path, the SHA-256 the \
binary records, the resources, then a blank line and the body. Exits 1 when no skill has that \
name."
    )]
    Show {
        /// The skill to show
        #[arg(value_name = "NAME")]
        name: String,
        /// What to read.
        #[command(flatten)]
        source: Source,
    },
    /// The catalog the binary would carry
    #[command(
        long_about = "Prints the catalog exactly as the binary carries it, and nothing \
else: Markdown (`- name: description` lines) or the agentskills.io XML block. No trailing newline \
unless stdout is a terminal."
    )]
    Prompt {
        /// The catalog format
        #[arg(long, value_enum, default_value_t)]
        format: CatalogFormat,
        /// What to read.
        #[command(flatten)]
        source: Source,
    },
    /// Sizes and estimated tokens; what progressive disclosure saves
    #[command(
        long_about = "Per skill and in total: description length (characters the catalog \
shows), body lines, body bytes, estimated body tokens and resources (files beside SKILL.md); then \
the catalog, sent in every request, against all bodies together, which progressive disclosure \
sends only on `load_skill`; the catalog against Codex's default skills budget (8,000 \
characters) and Claude Code's skill listing budget (1% of the context window at 4 characters a \
token: 8,000 characters for 200,000 tokens); the MCP server's instructions against the 2,048 \
UTF-16 units Claude Code keeps, and how much of the catalog they hold; and, with \
--context-window, the catalog against 1% and 2% of that window. Tokens are estimated as \
characters / 4, rounded up."
    )]
    Stats {
        /// The catalog format to measure
        #[arg(long, value_enum, default_value_t)]
        format: CatalogFormat,
        /// The model's context window, in tokens: the catalog is compared with 1% and 2% of it
        #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(1..))]
        context_window: Option<u64>,
        /// What to read.
        #[command(flatten)]
        source: Source,
    },
    /// Write or check skills.lock, the SHA-256 of every embedded file
    #[command(
        long_about = "Writes the lock that `embed_skills!(..., lock = \"skills.lock\")` checks: \
the options that decide what is embedded, as `# option` comment lines, then one `sha256sum` line \
per embedded file (each SKILL.md and every resource), sorted by path, paths relative to the \
current directory (run it where the crate's Cargo.toml is). `sha256sum -c skills.lock` verifies \
it too. A bundle that would not compile is not locked: its diagnostics go to stderr and the exit \
code is 1. With --check nothing is written: every difference between the lock and the files is \
reported and the exit code is 1 when there is any, for CI."
    )]
    Lock {
        /// The lock to write (or check)
        #[arg(long, value_name = "PATH", default_value = skills_core::lock::DEFAULT_LOCK,
              value_parser = NonEmptyStringValueParser::new())]
        output: String,
        /// Write nothing; exit 1 when the lock does not match the files
        #[arg(long)]
        check: bool,
        /// What to read.
        #[command(flatten)]
        source: Source,
    },
    /// Write each skill as the zip claude.ai, Anthropic's and OpenAI's Skills APIs accept
    #[command(
        long_about = "Writes, per skill and per host, the zip a hosted agent accepts as an \
upload: OUT/anthropic/NAME.zip for claude.ai and Anthropic's Skills API, OUT/openai/NAME.zip for \
OpenAI's Skills API. Each holds one folder, NAME/, with SKILL.md at its root (as the binary \
carries it: line endings LF, no byte-order mark) and the skill's resources, the files \
`embed_skills!` embeds; never `evals/`, hidden files or ignored ones. The folders are read and \
checked as for `check`, and each skill is then judged by what the host accepts: only the spec's \
frontmatter keys (the `portable` lint, always at deny here), the host's name and description \
rules, its file-count and size limits. Any error and nothing is written. The same folder gives \
the same bytes: entries sorted, timestamps fixed, permissions 644 (755 for executables).",
        after_help = "Exit codes: 0 every zip written, 1 errors in the bundle or for a host (each \
named, with the key or limit and its file), no skill at all, or a failure to write, 2 a bad \
command line."
    )]
    Package {
        /// The hosts to write for (repeat for several) [default: every host]
        #[arg(long = "host", value_name = "HOST", value_parser = host_parser())]
        hosts: Vec<Host>,
        /// The folder the zips go in, one subfolder per host
        #[arg(long, value_name = "OUT", default_value = DEFAULT_PACKAGE_DIR,
              value_parser = NonEmptyStringValueParser::new())]
        out: String,
        /// What to read.
        #[command(flatten)]
        source: Source,
    },
    /// Ask a model whether it loads the right skill (or, with --tasks, whether the skill makes the agent succeed)
    #[command(
        args_conflicts_with_subcommands = true,
        long_about = "Asks a model each skill's trigger cases (`<skill>/evals/triggers.json`) as \
the first turn of a fresh agent session, with the system prompt and tool definitions an agent \
built with the defaults sends (the preamble, the whole bundle's catalog, `load_skill` and the \
built-in tools); nothing is executed. The first tool call decides: `load_skill(X)` means X \
triggered, anything else means no skill. Reports recall, precision, false trigger rate and \
confusions per skill. The folders are read and checked as for `check`: a bundle with errors is \
not evaluated. The provider is chosen as the example agent chooses it: --provider, else \
ANTHROPIC_API_KEY, else OPENAI_API_KEY or OPENAI_BASE_URL; the model is --model, else MODEL_ID.\n\n\
With --tasks it runs each skill's task cases (`<skill>/evals/evals.json`) instead: each case through \
the agent's loop in a fresh working directory holding its files, --runs times with the skill and \
as many without it (or, with --previous, with its previous version), bash in its sandbox; then the \
checks, and a grader model for the string assertions. Reports pass rates, the uplift (with minus \
without), turns, tool calls, tokens and time per case and per skill, non-discriminating \
assertions and flaky cases. `skills eval merge` joins the JSON reports of --shard runs.",
        after_help = "Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, \
OPENAI_BASE_URL, MODEL_ID, CARGO_TARGET_DIR (the default cache is under it, else under \
`target/`).\nExit codes: 0 every gate passed, 1 a gate failed, 2 a bad command line, a bundle \
with errors, no provider, a failed request, or a reply that was an error."
    )]
    Eval {
        /// `merge`: join shard reports instead of running.
        #[command(subcommand)]
        merge: Option<EvalCommand>,
        /// How to ask, how to judge, what to report.
        #[command(flatten)]
        eval: Box<EvalArgs>,
        /// What to read.
        #[command(flatten)]
        source: Source,
    },
    /// Create DIR/NAME/SKILL.md from a skeleton that passes `check`
    #[command(
        long_about = "Creates DIR/NAME/SKILL.md from a skeleton that passes `skills check`: \
a description template to fill in and a body outline. NAME must follow the name rules (lowercase \
letters of any script, digits and single hyphens, at most 64 characters, in Unicode NFKC form); \
an existing folder is never overwritten."
    )]
    New {
        /// Name of the new skill (and its folder)
        #[arg(value_name = "NAME")]
        name: String,
        /// The skills root to create it in (created if missing)
        #[arg(long, value_name = "DIR", default_value = DEFAULT_DIR,
              value_parser = NonEmptyStringValueParser::new())]
        dir: String,
    },
    /// Print a shell completion script
    #[command(long_about = "Prints the completion script for SHELL on stdout, e.g. \
`skills completions bash > ~/.local/share/bash-completion/completions/skills`.")]
    Completions {
        /// The shell to complete in
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// What `skills eval` does besides running.
#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Join the JSON reports of `eval --tasks --shard K/N` runs into one report
    #[command(
        long_about = "Reads the JSON reports of the shards of one task eval (`skills eval --tasks \
--shard K/N --format json`), checks that they are of the same eval and do not overlap, and writes \
the report one run over every case would have given: every number recomputed from the runs, the \
counts summed, then held to the gates given here.",
        after_help = "Exit codes: 0 every gate passed, 1 a gate failed, 2 a report that cannot be \
read, reports of different evals, or a run that was an error."
    )]
    Merge {
        /// The shard reports (JSON)
        #[arg(value_name = "REPORT", required = true)]
        reports: Vec<std::path::PathBuf>,
        /// How to report the merged result
        #[arg(long, value_name = "FORMAT", default_value = "table",
              value_parser = PossibleValuesParser::new(TaskFormat::NAMES).try_map(|name| name.parse::<TaskFormat>()))]
        format: TaskFormat,
        /// The task gates, as for `eval --tasks`.
        #[command(flatten)]
        gates: TaskGateArgs,
    },
}

/// The gates of a task eval.
#[derive(Clone, Debug, PartialEq, clap::Args)]
pub struct TaskGateArgs {
    /// With --tasks: fail (exit 1) when a skill's pass rate with the skill is lower
    #[arg(long, value_name = "P", value_parser = fraction)]
    pub min_pass_rate: Option<f64>,
    /// With --tasks: fail (exit 1) when a skill's uplift (pass rate with minus without) is
    /// lower; negative values allow a skill that costs a little
    #[arg(long, value_name = "U", value_parser = uplift, allow_hyphen_values = true)]
    pub min_uplift: Option<f64>,
}

/// An uplift from -1 to 1.
fn uplift(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (-1.0..=1.0).contains(&value) => Ok(value),
        _ => Err("expected a number from -1 to 1".to_owned()),
    }
}

/// Where `skills package` writes its zips when `--out` is not given.
pub const DEFAULT_PACKAGE_DIR: &str = "target/skills-package";

/// `--host`: the names of [`Host`], each with who it stands for in `--help`.
fn host_parser() -> impl TypedValueParser<Value = Host> {
    PossibleValuesParser::new(
        Host::ALL.map(|host| clap::builder::PossibleValue::new(host.as_str()).help(host.label())),
    )
    .try_map(|name| name.parse::<Host>())
}

/// The providers `skills eval` speaks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProviderChoice {
    /// Anthropic Messages (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
    Anthropic,
    /// OpenAI Chat Completions or a compatible local server (OPENAI_API_KEY, OPENAI_BASE_URL)
    #[value(name = "openai")]
    OpenAi,
    /// No model: an offline stand-in that loads the skill whose description shares the most
    /// words with the query, and with --tasks grades by word match (a baseline, and a dry run)
    Demo,
}

/// A fraction from 0 to 1.
fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err("expected a number from 0 to 1".to_owned()),
    }
}

/// The flags of `skills eval`.
#[derive(Clone, Debug, PartialEq, clap::Args)]
pub struct EvalArgs {
    /// Which API to ask (default: anthropic if ANTHROPIC_API_KEY is set, else openai if
    /// OPENAI_API_KEY or OPENAI_BASE_URL is); demo asks no model
    #[arg(long, value_enum)]
    pub provider: Option<ProviderChoice>,
    /// Model id (default: MODEL_ID, else a default per provider)
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// The text before the catalog in the system prompt, if your agent's differs from the
    /// library's default
    #[arg(long, value_name = "TEXT")]
    pub preamble: Option<String>,
    /// Runs per case
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// The share of runs at which a case triggers its skill
    #[arg(long, value_name = "T", default_value_t = 0.5, value_parser = fraction)]
    pub threshold: f64,
    /// Offer only the skill under test in the catalog, not the whole bundle
    #[arg(long)]
    pub isolated: bool,
    /// Requests in flight at once
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub concurrency: u64,
    /// The most model requests to send; answers from the cache are free. A run that needs more
    /// sends none
    #[arg(long, value_name = "N", default_value_t = skills_agent::eval::DEFAULT_MAX_REQUESTS)]
    pub max_requests: u64,
    /// Where answers are kept between runs [default: $CARGO_TARGET_DIR/skills-eval, else
    /// target/skills-eval]
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache: Option<std::path::PathBuf>,
    /// Ask every case again and keep nothing
    #[arg(long)]
    pub no_cache: bool,
    /// Ask for streamed replies, as an agent that streams does
    #[arg(long)]
    pub stream: bool,
    /// How to report: table (for people), json (what --baseline reads), markdown (a
    /// pull-request comment), junit (CI dashboards) or, with --tasks, html (one page to open)
    #[arg(long, value_name = "FORMAT", default_value = "table",
          value_parser = PossibleValuesParser::new(TaskFormat::NAMES))]
    pub format: String,
    /// Which calls of the reply decide a trigger: the first tool call (first-call), or any
    /// load_skill call of the first reply (first-reply, skill-creator's newer runner)
    #[arg(long, value_name = "RULE", default_value = "first-call",
          value_parser = PossibleValuesParser::new(TriggerRule::NAMES).try_map(|name| name.parse::<TriggerRule>()))]
    pub rule: TriggerRule,
    /// Run the task cases (`evals/evals.json`) with and without each skill instead of the
    /// trigger cases
    #[arg(long)]
    pub tasks: bool,
    /// With --tasks: compare with each skill's previous version instead of without it: a
    /// folder of skills, git:REV (the roots at a revision) or lock:FILE (the version a lock
    /// reviewed)
    #[arg(long, value_name = "SOURCE", requires = "tasks")]
    pub previous: Option<crate::previous::PreviousSource>,
    /// With --tasks: the model that grades string assertions (default: --model), of the same
    /// provider
    #[arg(long, value_name = "M", requires = "tasks")]
    pub grader_model: Option<String>,
    /// With --tasks: most model requests of one run
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: u32,
    /// With --tasks: most tokens (input and output) of one run
    #[arg(long, value_name = "N", default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: u64,
    /// With --tasks: most seconds of one run
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// With --tasks: run even where bash would run without its sandbox, with your user's
    /// rights on what the model writes
    #[arg(long, requires = "tasks")]
    pub allow_unconfined: bool,
    /// With --tasks: run part K of N of the cases (for a CI matrix; join the JSON reports with
    /// `skills eval merge`)
    #[arg(long, value_name = "K/N", requires = "tasks")]
    pub shard: Option<Shard>,
    /// The task gates.
    #[command(flatten)]
    pub task_gates: TaskGateArgs,
    /// Fail (exit 1) when a skill with positive cases has a lower recall
    #[arg(long, value_name = "R", value_parser = fraction)]
    pub min_recall: Option<f64>,
    /// Fail (exit 1) when a skill with cases has a lower precision
    #[arg(long, value_name = "P", value_parser = fraction)]
    pub min_precision: Option<f64>,
    /// An earlier JSON report: fail (exit 1) when a case that passed there fails now
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<std::path::PathBuf>,
}

/// Parses the command line, program name first.
pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Command, clap::Error> {
    Cli::try_parse_from(args)
        .map(|cli| cli.command)
        .map_err(suggest_lint_flag)
}

/// A lowercase `-d` is a likely slip for `-D` (and so on): clap suggests only long flags, so
/// add the short one it probably meant.
fn suggest_lint_flag(mut error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    if error.kind() != ErrorKind::UnknownArgument {
        return error;
    }
    let Some(ContextValue::String(arg)) = error.get(ContextKind::InvalidArg) else {
        return error;
    };
    let meant = LINT_LEVEL_FLAGS.iter().find_map(|(short, _, _)| {
        let slip = format!("-{}", short.to_ascii_lowercase());
        arg.starts_with(&slip).then(|| format!("-{short}"))
    });
    if let Some(meant) = meant {
        error.insert(ContextKind::SuggestedArg, ContextValue::String(meant));
    }
    error
}

/// The folders to read and how to judge them: the same knobs as the macro's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// Skill roots, resolved against the current directory; `skills` when none was given.
    pub dirs: Vec<String>,
    /// Validation options, as `embed_skills!(..., max_file_size = .., long_body = "deny", ..)`.
    pub options: Options,
    /// The level of the `warnings` group: [`Level::Warn`] leaves warnings as they are,
    /// [`Level::Deny`] reports them as errors, [`Level::Allow`] drops them. It applies to
    /// whatever is still a warning after the per-lint levels, whatever the order of the flags.
    pub warnings: Level,
}

impl Source {
    /// The roots as `&str`, for [`skills_core::load`].
    pub fn roots(&self) -> Vec<&str> {
        self.dirs.iter().map(String::as_str).collect()
    }
}

/// The id of the positional `DIR...` argument.
const DIRS: &str = "dirs";

/// `name = <syntax>` as the help shows the macro option a flag stands for.
fn macro_form(spec: &OptionSpec) -> String {
    match spec.kind {
        Kind::Bool => format!("{} = true", spec.name),
        _ => spec.syntax(),
    }
}

/// One option's value from one command-line word, by the table's kind.
fn parse_value(kind: Kind, text: &str) -> Result<Value, String> {
    match kind {
        Kind::Bytes => options::parse_bytes(text)
            .map(Value::Bytes)
            .ok_or_else(|| "expected a number of bytes".to_owned()),
        Kind::Bool => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err("expected true or false".to_owned()),
        },
        Kind::Level => Level::parse(text)
            .map(Value::Level)
            .ok_or_else(|| "expected allow, warn or deny".to_owned()),
        Kind::List => Ok(Value::List(vec![text.to_owned()])),
        Kind::Compat => skills_core::claude_code::Compat::parse(text)
            .map(Value::Compat)
            .ok_or_else(|| "expected strict or claude-code".to_owned()),
        Kind::Chars => options::parse_bytes(text)
            .map(Value::Chars)
            .ok_or_else(|| "expected a number of characters".to_owned()),
        Kind::File => Ok(Value::File(text.to_owned())),
        Kind::Path => Err("not an option of `skills`".to_owned()),
    }
}

/// The flag of one option, or `None` when the option has none of its own.
fn option_arg(spec: &'static OptionSpec) -> Option<Arg> {
    let arg = Arg::new(spec.name).help_heading(BUNDLE_OPTIONS);
    let arg = match spec.flag {
        Flag::Value { long, value_name } => {
            let kind = spec.kind;
            arg.long(long)
                .value_name(value_name)
                .action(ArgAction::Set)
                .value_parser(move |text: &str| parse_value(kind, text))
                .help(format!(
                    "{} [default: {}] [{}]",
                    spec.help,
                    spec.default,
                    macro_form(spec)
                ))
        }
        Flag::Switch { long } => arg.long(long).action(ArgAction::SetTrue).help(format!(
            "{} [{}]",
            spec.help,
            macro_form(spec)
        )),
        Flag::Repeated { long, value_name } => arg
            .long(long)
            .value_name(value_name)
            .action(ArgAction::Append)
            .help(format!(
                "{}; repeatable [{} = [\"{value_name}\", ...]]",
                spec.help, spec.name
            )),
        Flag::LintLevel | Flag::None => return None,
    };
    Some(arg)
}

/// The lint-level flags' shared text: every lint with its default level, and `warnings`.
fn lints_help() -> String {
    let lints = Lint::ALL
        .iter()
        .map(|lint| {
            format!(
                "  {:<22}{} (default {})",
                lint.name(),
                lint.summary(),
                lint.default_level().name()
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "Lints (for -A, -W, -D; as `embed_skills!` options, `LINT = \"allow\"|\"warn\"|\"deny\"`):\n\
         {lints}\n  {WARNINGS:<22}every warning: `-D warnings` makes them errors, as \
         `#![deny(warnings)]` does in the crate; `-A warnings` hides them\n\
         Lint flags repeat; the last one for a lint wins, as in rustc."
    )
}

impl Args for Source {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = cmd.arg(
            Arg::new(DIRS)
                .value_name("DIR")
                .num_args(0..)
                .action(ArgAction::Append)
                .value_parser(NonEmptyStringValueParser::new())
                .help("Skill roots, read as one bundle [default: skills]"),
        );
        cmd = cmd.args(OPTIONS.iter().filter_map(option_arg));
        let lint_names = PossibleValuesParser::new(LINT_NAMES.iter().copied().chain([WARNINGS]));
        for (short, long, level) in LINT_LEVEL_FLAGS {
            let what = match level {
                Level::Allow => "silence a lint",
                Level::Warn => "report a lint as a warning",
                Level::Deny => "report a lint as an error, failing the check",
            };
            cmd = cmd.arg(
                Arg::new(long)
                    .short(short)
                    .long(long)
                    .value_name("LINT")
                    .action(ArgAction::Append)
                    .value_parser(lint_names.clone())
                    .hide_possible_values(true)
                    .help_heading(BUNDLE_OPTIONS)
                    .help(format!("{what} [LINT = \"{}\"]", level.name())),
            );
        }
        cmd.after_help(lints_help())
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

fn invalid(message: String) -> clap::Error {
    clap::Error::raw(ErrorKind::ValueValidation, message)
}

impl FromArgMatches for Source {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut dirs: Vec<String> = matches
            .get_many::<String>(DIRS)
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        if dirs.is_empty() {
            dirs.push(DEFAULT_DIR.to_owned());
        }
        let mut options = Options::default();
        for spec in OPTIONS {
            let value = match spec.flag {
                Flag::Value { .. } => matches.get_one::<Value>(spec.name).cloned(),
                Flag::Switch { .. } => matches.get_flag(spec.name).then_some(Value::Bool(true)),
                Flag::Repeated { .. } => matches
                    .get_many::<String>(spec.name)
                    .map(|items| Value::List(items.cloned().collect())),
                Flag::LintLevel | Flag::None => None,
            };
            if let Some(value) = value {
                options
                    .set(spec.key, value)
                    .map_err(|error| invalid(error.to_string()))?;
            }
        }
        // Lint levels in the order given, so the last one for a lint wins (as in rustc).
        let mut levels: Vec<(usize, Level, &String)> = Vec::new();
        for (_, long, level) in LINT_LEVEL_FLAGS {
            if let (Some(indices), Some(names)) =
                (matches.indices_of(long), matches.get_many::<String>(long))
            {
                levels.extend(indices.zip(names).map(|(index, name)| (index, level, name)));
            }
        }
        levels.sort_by_key(|(index, _, _)| *index);
        let mut warnings = Level::Warn;
        for (_, level, name) in levels {
            if name == WARNINGS {
                warnings = level;
            } else if !options.lints.set(name, level) {
                return Err(invalid(format!("unknown lint `{name}`")));
            }
        }
        Ok(Source {
            dirs,
            options,
            warnings,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use clap::CommandFactory;
    use skills_core::options::{DefaultValue, Key};

    use super::*;

    fn run(args: &[&str]) -> Result<Command, clap::Error> {
        let args = std::iter::once("skills").chain(args.iter().copied());
        parse(args.map(OsString::from))
    }

    fn check_source(args: &[&str]) -> Source {
        let mut line = vec!["check"];
        line.extend(args);
        match run(&line) {
            Ok(Command::Check { source, .. }) => source,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn the_command_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn defaults_to_the_skills_folder() {
        let Ok(Command::List { source }) = run(&["list"]) else {
            panic!("list did not parse");
        };
        assert_eq!(source.dirs, ["skills"]);
        assert_eq!(source.options, Options::default());
        assert_eq!(source.warnings, Level::Warn);
    }

    #[test]
    fn flags_take_values_inline_or_separately() {
        let a = run(&["check", "a", "--format", "json", "b"]).unwrap();
        let Command::Check { source, format } = a else {
            panic!("check did not parse");
        };
        let Ok(Command::Check {
            source: source_b,
            format: format_b,
        }) = run(&["check", "--format=json", "a", "b"])
        else {
            panic!("check did not parse");
        };
        assert_eq!((&source, format), (&source_b, format_b));
        assert_eq!(format, CheckFormat::Json);
        assert_eq!(source.dirs, ["a", "b"]);
    }

    /// Every option of the table has its flag, of the right shape, with the table's default in
    /// its help and as the value the command starts from.
    #[test]
    fn every_table_option_has_a_flag_with_the_same_default() {
        let cli = Cli::command();
        let check = cli.find_subcommand("check").unwrap();
        let help = check.clone().render_long_help().to_string();
        for spec in OPTIONS {
            let arg = |long: &str| {
                check
                    .get_arguments()
                    .find(|arg| arg.get_long() == Some(long))
                    .unwrap_or_else(|| panic!("no --{long} for `{}`", spec.name))
                    .clone()
            };
            match (spec.flag, spec.default) {
                (Flag::Value { long, value_name }, DefaultValue::Bytes(bytes)) => {
                    let arg = arg(long);
                    assert_eq!(arg.get_value_names().unwrap(), [value_name]);
                    let shown = arg.get_help().unwrap().to_string();
                    assert!(shown.contains(&format!("[default: {bytes}]")), "{shown}");
                    let given = check_source(&[&format!("--{long}"), &bytes.to_string()]);
                    assert_eq!(given.options, Options::default(), "{long}");
                }
                (Flag::Value { long, value_name }, DefaultValue::Compat(compat)) => {
                    let arg = arg(long);
                    assert_eq!(arg.get_value_names().unwrap(), [value_name]);
                    let shown = arg.get_help().unwrap().to_string();
                    assert!(
                        shown.contains(&format!("[default: \"{}\"]", compat.name())),
                        "{shown}"
                    );
                    let given = check_source(&[&format!("--{long}"), compat.name()]);
                    assert_eq!(given.options, Options::default(), "{long}");
                    let other = check_source(&[&format!("--{long}"), "claude-code"]);
                    assert_eq!(
                        other.options.compat,
                        skills_core::claude_code::Compat::ClaudeCode
                    );
                }
                (Flag::Value { long, value_name }, DefaultValue::Unlimited) => {
                    let arg = arg(long);
                    assert_eq!(arg.get_value_names().unwrap(), [value_name]);
                    let shown = arg.get_help().unwrap().to_string();
                    assert!(shown.contains("[default: none]"), "{shown}");
                    let given = check_source(&[&format!("--{long}"), "8_000"]);
                    assert_eq!(given.options.catalog_budget, Some(8000), "{long}");
                }
                (Flag::Value { long, value_name }, DefaultValue::NoFile) => {
                    let arg = arg(long);
                    assert_eq!(arg.get_value_names().unwrap(), [value_name]);
                    let shown = arg.get_help().unwrap().to_string();
                    assert!(shown.contains("[default: none]"), "{shown}");
                    let given = check_source(&[&format!("--{long}"), "a.lock"]);
                    assert_eq!(given.options.lock.as_deref(), Some("a.lock"), "{long}");
                }
                (Flag::Switch { long }, DefaultValue::Bool(false)) => {
                    assert!(!arg(long).get_action().takes_values());
                }
                (Flag::Repeated { long, .. }, DefaultValue::EmptyList) => {
                    assert!(matches!(arg(long).get_action(), ArgAction::Append));
                }
                (Flag::LintLevel, DefaultValue::Level(level)) => {
                    let Key::Lint(lint) = spec.key else {
                        panic!("{} is not a lint", spec.name);
                    };
                    assert_eq!(Options::default().lints.level(lint), level);
                    assert!(
                        help.contains(&format!("(default {})", level.name())),
                        "{help}"
                    );
                    for (short, _, level) in LINT_LEVEL_FLAGS {
                        let given = check_source(&[&format!("-{short}"), spec.name]);
                        assert_eq!(given.options.lints.level(lint), level);
                    }
                }
                (Flag::None, _) => assert_eq!(spec.key, Key::Crate),
                (flag, default) => panic!("{}: no CLI form for {flag:?} {default:?}", spec.name),
            }
            let named = match spec.flag {
                Flag::LintLevel => format!("  {} ", spec.name),
                Flag::None => continue,
                _ => format!("[{} = ", spec.name),
            };
            assert!(help.contains(&named), "{named} missing:\n{help}");
        }
    }

    #[test]
    fn every_macro_option_has_a_flag() {
        let source = check_source(&[
            "--max-file-size=10",
            "--max-bundle-size",
            "1_000",
            "--allow-unknown-keys",
            "--infer-missing-fields",
            "--ignore",
            "*.bak",
            "--ignore=*.tmp",
            "--allowed-host",
            "docs.rs",
            "-D",
            "long_body",
            "-Wexternal_urls",
            "--allow",
            "prompt_override",
            "--deny=similar_descriptions",
            "-A",
            "similar_descriptions",
            "-D",
            "warnings",
        ]);
        let options = &source.options;
        assert_eq!((options.max_file_size, options.max_bundle_size), (10, 1000));
        assert!(options.allow_unknown_keys && options.infer_missing_fields);
        assert_eq!(options.ignore, ["*.bak", "*.tmp"]);
        assert_eq!(options.lints.allowed_hosts, ["docs.rs"]);
        assert_eq!(options.lints.level(Lint::LongBody), Level::Deny);
        assert_eq!(options.lints.level(Lint::ExternalUrls), Level::Warn);
        assert_eq!(options.lints.level(Lint::PromptOverride), Level::Allow);
        assert_eq!(
            options.lints.level(Lint::SimilarDescriptions),
            Level::Allow,
            "last wins"
        );
        assert_eq!(source.warnings, Level::Deny);
    }

    #[test]
    fn double_dash_ends_options() {
        let Ok(Command::List { source }) = run(&["list", "--", "--odd"]) else {
            panic!("list did not parse");
        };
        assert_eq!(source.dirs, ["--odd"]);
    }

    #[test]
    fn a_repeated_option_flag_is_an_error() {
        for args in [
            &["check", "--max-file-size", "1", "--max-file-size", "2"][..],
            &["check", "--allow-unknown-keys", "--allow-unknown-keys"],
            &["check", "--format", "json", "--format", "text"],
        ] {
            let error = run(args).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ArgumentConflict, "{args:?}");
            assert!(error.to_string().contains("cannot be used multiple times"));
        }
    }

    #[test]
    fn usage_errors_explain_themselves() {
        let error = run(&["chek"]).unwrap_err();
        assert!(error.to_string().contains("'check'"), "{error}");
        let error = run(&["check", "--fromat", "json"]).unwrap_err();
        assert!(error.to_string().contains("'--format'"), "{error}");
        let error = run(&["prompt", "--format"]).unwrap_err();
        assert!(error.to_string().contains("a value is required"), "{error}");
        let error = run(&["check", "--max-file-size", "big"]).unwrap_err();
        assert!(error.to_string().contains("number of bytes"), "{error}");
        let error = run(&["check", "-D", "long-body"]).unwrap_err();
        assert!(error.to_string().contains("'long_body'"), "{error}");
        let error = run(&["list", "--format", "xml"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::UnknownArgument);
        assert!(run(&[]).is_err());
        let error = run(&["check", "-d", "warnings"]).unwrap_err().to_string();
        assert!(error.contains("a similar argument exists: '-D'"), "{error}");
        for error in [run(&["chek"]), run(&["check", "--max-file-size", "x"])] {
            assert_eq!(error.unwrap_err().exit_code(), 2);
        }
    }
}
