//! A single-binary agent: the skills of `skills/` compiled in, a real tool loop.
//!
//! ```text
//! cargo run --example agent -- [--provider anthropic|openai|demo] [--model M] [--workdir DIR]
//!                              [--max-turns N] [--context-window TOKENS] [--yes]
//!                              [--no-sandbox|--require-sandbox] [--session FILE] [--no-stream]
//!                              [--raw-output] [--otlp-endpoint URL] [PROMPT...]
//! ```
//!
//! (`--help` lists the flags, `--version` prints the version and the SHA-256 of `skills.lock`,
//! the lock of reviewed skill files the build checked.)
//!
//! `--eval` runs the trigger evals of the compiled-in skills against the provider instead
//! (`--runs N`, `--threshold T`, `--isolated`, `--rule first-call|first-reply`,
//! `--format table|json|markdown|junit`, `--min-recall R`, `--min-precision P`,
//! `--baseline FILE`): an operator checks that a model server picks the right skills before
//! trusting it. `--eval --tasks` runs the task cases instead, with and without each skill, in a
//! fresh sandboxed working directory per run (`--shard K/N`, `--min-pass-rate P`,
//! `--min-uplift U`, `--format ...|html`, `--max-turns N` per run). Exit 0 pass, 1 a gate failed,
//! 2 an error.
//!
//! Environment: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`,
//! `MODEL_ID`. Without `--provider`: Anthropic if `ANTHROPIC_API_KEY` is set, else the
//! OpenAI-compatible API if `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set (a local llama.cpp,
//! Ollama or vLLM server works), else `demo`, an offline scripted model that still drives the
//! real loop, `load_skill` and tools (`skills_runtime::agent::provider::scripted`).
//!
//! With a PROMPT it runs once and prints the answer on stdout as it is generated (replies are
//! streamed; `--no-stream` reads each reply whole), and on stderr each tool call with the first
//! lines of its result. The model's text and the tools' output reach the terminal with control
//! characters and escape sequences shown escaped (`--raw-output` prints the model's bytes as
//! sent). Without one it is an interactive session: on a terminal a line editor with history
//! (`prompt`), elsewhere one line of stdin per prompt. Ctrl-C stops the running turn (the model
//! request and any `bash` call) and returns to the prompt; a second Ctrl-C, or Ctrl-D, leaves.
//! A prompt or line that starts with `/name` invokes that skill with the rest as its arguments,
//! as a person's turn (`context: fork` skills run in a sub-agent, `allowed-tools` apply); `/`
//! alone lists the skills a person may invoke. `bash`, `write_file` and `edit_file` ask first
//! unless `--yes` is given (`y`, `n`, `a` for the rest of the session, `v` to view all; see
//! `approve`), and are refused when there is no terminal to ask on. Colours on a terminal, unless
//! `NO_COLOR` is set.
//!
//! `--otlp-endpoint URL` (or `OTEL_EXPORTER_OTLP_ENDPOINT`) sends the run's spans to an
//! OpenTelemetry collector over OTLP/HTTP.

mod approve;
mod interrupt;
mod prompt;
mod show;
mod spinner;
mod style;

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, LazyLock};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use skills_runtime::agent::eval::tasks::{Shard, TaskBaseline, TaskFormat, TaskGates, TaskOptions};
use skills_runtime::agent::eval::{self, Baseline, EvalOptions, Format, Gates, TriggerRule};
use skills_runtime::agent::provider::scripted::ScriptedModel;
use skills_runtime::agent::provider::{self, ProviderKind};
use skills_runtime::agent::telemetry::{Otlp, OtlpGuard};
use skills_runtime::agent::{
    self, Agent, AgentBuilder, BashOptions, HttpOptions, Message, PermissionPolicy, Provider,
    Sandbox, Session,
};

use crate::interrupt::Interrupt;
use crate::show::Printer;
use crate::spinner::Spinner;
use crate::style::Style;

// Only the reviewed files of `skills/` compile: `skills.lock` lists their SHA-256 (`skills lock
// --embed-evals` rewrites it after a review). The trigger cases are compiled in for `--eval`.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("skills", lock = "skills.lock", embed_evals = true);

/// `--version`: the package version and, when the skills were checked against a lock, the
/// lock's SHA-256, naming the reviewed skill set this binary carries.
static VERSION: LazyLock<String> = LazyLock::new(|| match SKILLS.lock_digest() {
    Some(digest) => format!(
        "{} (skills.lock sha256 {digest})",
        env!("CARGO_PKG_VERSION")
    ),
    None => env!("CARGO_PKG_VERSION").to_owned(),
});

/// A single-binary agent with the skills of `skills/` compiled in.
#[derive(Debug, Parser)]
#[command(
    name = "agent",
    version,
    after_help = "environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, \
                  OPENAI_BASE_URL, MODEL_ID"
)]
struct Args {
    /// Which API to use (default: anthropic if ANTHROPIC_API_KEY is set, else openai if
    /// OPENAI_API_KEY or OPENAI_BASE_URL is set, else the offline demo)
    #[arg(long, value_enum)]
    provider: Option<ProviderChoice>,
    /// Model id (default: MODEL_ID, else a default per provider)
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// Folder the tools may read and change (default: current directory)
    #[arg(long, value_name = "DIR")]
    workdir: Option<String>,
    /// Most model requests per prompt
    #[arg(
        long,
        value_name = "N",
        default_value_t = AgentBuilder::DEFAULT_MAX_TURNS,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    max_turns: u32,
    /// The model's context window in tokens (default: known per model family, else 32768; set
    /// it for a local model). Old tool results are shortened to stay inside it
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(1..))]
    context_window: Option<u64>,
    /// Approve every tool call without asking
    #[arg(short, long)]
    yes: bool,
    /// Run bash without its sandbox (it can then read and write whatever your user can); the
    /// environment is still cleared
    #[arg(long, conflicts_with = "require_sandbox")]
    no_sandbox: bool,
    /// Refuse to run bash where the kernel refuses the sandbox's namespaces (instead of the
    /// fallback, which loses some guarantees)
    #[arg(long)]
    require_sandbox: bool,
    /// Keep the conversation in FILE (JSON Lines, appended as it goes) and continue the one
    /// already there, with the skills it loaded
    #[arg(long, value_name = "FILE")]
    session: Option<std::path::PathBuf>,
    /// Read each model reply whole instead of streaming it (the text then appears when the
    /// reply is complete)
    #[arg(long)]
    no_stream: bool,
    /// Run the trigger evals of the compiled-in skills against the provider and print the
    /// report, instead of a task: exit 0 pass, 1 a gate failed, 2 an error
    #[arg(long, conflicts_with_all = ["prompt", "session"])]
    eval: bool,
    /// With --eval: runs per case
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// With --eval: the share of runs at which a case triggers its skill
    #[arg(long, value_name = "T", default_value_t = 0.5, value_parser = fraction)]
    threshold: f64,
    /// With --eval: offer only the skill under test in the catalog
    #[arg(long)]
    isolated: bool,
    /// With --eval: table, json, markdown, junit, or with --tasks html
    #[arg(long, value_name = "FORMAT", default_value = "table",
          value_parser = PossibleValuesParser::new(TaskFormat::NAMES))]
    format: String,
    /// With --eval: which calls of the first reply decide a trigger (first-call, first-reply)
    #[arg(long, value_name = "RULE", default_value = "first-call",
          value_parser = PossibleValuesParser::new(TriggerRule::NAMES).try_map(|name| name.parse::<TriggerRule>()))]
    rule: TriggerRule,
    /// With --eval: run the task cases with and without each skill instead of the trigger cases
    #[arg(long)]
    tasks: bool,
    /// With --eval --tasks: run part K of N of the cases
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// With --eval --tasks: fail (exit 1) when a skill's pass rate with it is lower
    #[arg(long, value_name = "P", value_parser = fraction)]
    min_pass_rate: Option<f64>,
    /// With --eval --tasks: fail (exit 1) when a skill's uplift (pass rate with minus without)
    /// is lower
    #[arg(long, value_name = "U", allow_hyphen_values = true)]
    min_uplift: Option<f64>,
    /// With --eval: fail (exit 1) when a skill's recall is lower
    #[arg(long, value_name = "R", value_parser = fraction)]
    min_recall: Option<f64>,
    /// With --eval: fail (exit 1) when a skill's precision is lower
    #[arg(long, value_name = "P", value_parser = fraction)]
    min_precision: Option<f64>,
    /// With --eval: an earlier JSON report; fail (exit 1) when a case that passed there fails now
    #[arg(long, value_name = "FILE")]
    baseline: Option<std::path::PathBuf>,
    /// Print the model's text as sent, escape sequences and control characters included
    /// (without it they are shown escaped, so the text cannot act on the terminal or forge an
    /// approval prompt)
    #[arg(long)]
    raw_output: bool,
    /// Send the spans of every run (model requests, tool calls, skills) to this OpenTelemetry
    /// collector over OTLP/HTTP, e.g. http://127.0.0.1:4318 (default:
    /// OTEL_EXPORTER_OTLP_ENDPOINT)
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// Run once and print the answer; without it, an interactive session
    #[arg(trailing_var_arg = true)]
    prompt: Vec<String>,
}

/// The flags that only `--eval` reads.
const EVAL_FLAGS: [&str; 12] = [
    "runs",
    "threshold",
    "isolated",
    "format",
    "min_recall",
    "min_precision",
    "baseline",
    "rule",
    "tasks",
    "shard",
    "min_pass_rate",
    "min_uplift",
];

/// A share from 0 to 1.
fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err("expected a number from 0 to 1".to_owned()),
    }
}

/// The values of `--provider`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ProviderChoice {
    /// Anthropic Messages
    Anthropic,
    /// OpenAI Chat Completions, or a compatible local server
    #[value(name = "openai")]
    OpenAi,
    /// The offline, scripted stand-in for a model
    Demo,
}

impl Args {
    fn sandbox(&self) -> Sandbox {
        if self.no_sandbox {
            Sandbox::off()
        } else if self.require_sandbox {
            Sandbox::required()
        } else {
            Sandbox::default()
        }
    }
}

/// What `bash` calls get on this kernel; loudly what does not hold.
fn print_confinement(sandbox: &Sandbox) {
    match sandbox.probe() {
        Ok(Some(confinement)) if confinement.lost().is_empty() => {
            eprintln!("bash: {confinement}; cleared environment");
        }
        Ok(Some(confinement)) => eprintln!("WARNING: bash is {confinement}"),
        Ok(None) => eprintln!(
            "WARNING: bash is NOT sandboxed (--no-sandbox): commands can read and write whatever \
             your user can; the environment is still cleared"
        ),
        Err(e) => eprintln!("WARNING: bash will not run: {e}"),
    }
}

/// The provider the flags and environment ask for, a line describing it, and the address it
/// talks to.
fn make_provider(args: &Args) -> Result<(Arc<dyn Provider>, String, String), String> {
    let kind = match args.provider {
        Some(ProviderChoice::Anthropic) => Some(ProviderKind::Anthropic),
        Some(ProviderChoice::OpenAi) => Some(ProviderKind::OpenAi),
        Some(ProviderChoice::Demo) => None,
        None => ProviderKind::detect(provider::env_var),
    };
    match kind {
        Some(kind) => {
            let selected = provider::select(
                kind,
                args.model.as_deref(),
                provider::env_var,
                HttpOptions::default(),
            )
            .map_err(|e| e.to_string())?;
            let description = selected.to_string();
            Ok((selected.provider, description, selected.base_url))
        }
        None => Ok((
            Arc::new(ScriptedModel::with_skills(&SKILLS)),
            "demo: an offline, scripted stand-in for a model (no API key found). It drives \
             the real loop, load_skill and tools. Set ANTHROPIC_API_KEY, OPENAI_API_KEY or \
             OPENAI_BASE_URL to use a real model."
                .into(),
            String::new(),
        )),
    }
}

/// The report of an earlier run named by `--baseline`, read with `parse`; an error is said on
/// stderr and is the exit code 2.
fn read_baseline<T, E: std::fmt::Display>(
    args: &Args,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<Option<T>, ExitCode> {
    let Some(path) = &args.baseline else {
        return Ok(None);
    };
    std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| parse(&text).map_err(|e| e.to_string()))
        .map(Some)
        .map_err(|error| {
            eprintln!("error: baseline {}: {error}", path.display());
            ExitCode::from(2)
        })
}

/// `--eval --tasks`: the task cases of the compiled-in skills, with and without each, through
/// this agent's loop; the report on stdout, a line per run on stderr.
async fn evaluate_tasks(agent: &Agent, args: &Args, endpoint: String) -> ExitCode {
    let format = match args.format.parse::<TaskFormat>() {
        Ok(format) => format,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let baseline = match read_baseline(args, TaskBaseline::from_json) {
        Ok(baseline) => baseline,
        Err(code) => return code,
    };
    let options = TaskOptions {
        runs: args.runs,
        endpoint: endpoint.clone(),
        grader_endpoint: endpoint,
        max_turns: args.max_turns,
        bash: BashOptions {
            sandbox: args.sandbox(),
            ..BashOptions::default()
        },
        // `--no-sandbox` is the person saying so.
        allow_unconfined: args.no_sandbox,
        shard: args.shard,
        ..TaskOptions::default()
    };
    match eval::tasks::run(agent, &options, |progress| eprintln!("{progress}")).await {
        Ok(mut report) => {
            report.check(&TaskGates {
                min_pass_rate: args.min_pass_rate,
                min_uplift: args.min_uplift,
                baseline,
            });
            print!("{}", report.render(format));
            ExitCode::from(report.verdict().exit_code())
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// `--eval`: the trigger evals of the compiled-in cases against this agent's provider, with
/// exactly the requests this agent sends; the report on stdout, a line per run on stderr.
async fn evaluate(agent: &Agent, args: &Args, endpoint: String) -> ExitCode {
    if args.tasks {
        return evaluate_tasks(agent, args, endpoint).await;
    }
    let Ok(format) = args.format.parse::<Format>() else {
        eprintln!(
            "error: `--format {}` is for task reports (--tasks)",
            args.format
        );
        return ExitCode::from(2);
    };
    let baseline = match read_baseline(args, Baseline::from_json) {
        Ok(baseline) => baseline,
        Err(code) => return code,
    };
    let options = EvalOptions {
        runs: args.runs,
        threshold: args.threshold,
        isolated: args.isolated,
        endpoint,
        rule: args.rule,
        ..EvalOptions::default()
    };
    match eval::run(agent, &options, |progress| eprintln!("{progress}")).await {
        Ok(mut report) => {
            report.check(&Gates {
                min_recall: args.min_recall,
                min_precision: args.min_precision,
                baseline,
            });
            print!("{}", report.render(format));
            ExitCode::from(report.verdict().exit_code())
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// `/name arguments`: the skill's name and the rest of the line, or `None` for an ordinary
/// prompt. `/` alone gives an empty name.
fn skill_command(prompt: &str) -> Option<(&str, &str)> {
    let command = prompt.trim().strip_prefix('/')?;
    Some(match command.split_once(char::is_whitespace) {
        Some((name, arguments)) => (name, arguments.trim()),
        None => (command, ""),
    })
}

/// The skills a person may invoke, one per line, with their argument hints.
fn invocable_skills() -> String {
    let lines: Vec<String> = SKILLS
        .iter()
        .filter(|skill| skill.user_invocable())
        .map(|skill| match skill.argument_hint() {
            Some(hint) => format!("/{} {hint}", skill.name()),
            None => format!("/{}", skill.name()),
        })
        .collect();
    if lines.is_empty() {
        "(no skills to invoke)".to_owned()
    } else {
        lines.join("\n")
    }
}

/// How one prompt is shown: the model's text raw or escaped, the colours, the spinner.
#[derive(Clone)]
struct Screen {
    raw_output: bool,
    style: Style,
    spinner: Spinner,
}

/// Runs `prompt` (or the `/name` command), printing the answer as it arrives.
async fn ask(
    agent: &Agent,
    session: &mut Session,
    prompt: &str,
    screen: &Screen,
) -> Result<(), String> {
    let mut printer = Printer::new(screen.raw_output, screen.style, screen.spinner.clone());
    let on_event = |event: &agent::AgentEvent<'_>| printer.event(event);
    let command = skill_command(prompt);
    let result = match command {
        Some(("", _)) => {
            println!("{}", invocable_skills());
            return Ok(());
        }
        Some((name, arguments)) => {
            agent
                .invoke_with_events(session, name, arguments, on_event)
                .await
        }
        None => agent.run_with_events(session, prompt, on_event).await,
    };
    printer.end_line();
    match result {
        Ok(out) => {
            eprintln!(
                "{}",
                show::footer(&out, command.map(|(name, _)| name), screen.style)
            );
            Ok(())
        }
        // An error can quote what the server sent.
        Err(e) => Err(agent::terminal_text(&e.to_string())),
    }
}

/// What a resumed session said last, for the person coming back to it: the last few prompts and
/// answers, one line each, escaped.
fn recap(session: &Session, style: Style) -> String {
    const SHOWN: usize = 6;
    let said: Vec<String> = session
        .conversation()
        .messages()
        .iter()
        .filter_map(|message| match message {
            Message::User(text) => Some(style.cyan(&format!(
                "  you   > {}",
                agent::terminal_line(text.trim(), 100)
            ))),
            Message::Assistant(turn) if !turn.text.trim().is_empty() => Some(format!(
                "  agent > {}",
                agent::terminal_line(turn.text.trim(), 100)
            )),
            _ => None,
        })
        .collect();
    let start = said.len().saturating_sub(SHOWN);
    let mut lines = Vec::new();
    if start > 0 {
        lines.push(style.dim(&format!("  ({start} earlier lines)")));
    }
    lines.extend(said[start..].iter().cloned());
    lines.join("\n")
}

/// What became of one line the person typed.
enum Taken {
    /// Nothing to do (a blank line), or a turn that ran to its end (its error shown).
    Done,
    /// `exit` or `quit`.
    Quit,
    /// Ctrl-C stopped the turn.
    Interrupted,
}

/// Runs the turn `line` asks for, until its end or Ctrl-C, and shows how it ended.
async fn take(
    line: &str,
    agent: &Agent,
    session: &mut Session,
    screen: &Screen,
    interrupt: &Interrupt,
) -> Taken {
    let line = line.trim();
    if line.is_empty() {
        return Taken::Done;
    }
    if matches!(line, "exit" | "quit") {
        return Taken::Quit;
    }
    let style = screen.style;
    match interrupt.during(ask(agent, session, line, screen)).await {
        Some(Ok(())) => println!(),
        // The session keeps every message; the person can go on.
        Some(Err(message)) => eprintln!("{}", style.red(&format!("error: {message}"))),
        None => {
            screen.spinner.finish_all();
            eprintln!(
                "\n{}",
                style.yellow("interrupted: the turn and its tool calls were stopped")
            );
            return Taken::Interrupted;
        }
    }
    Taken::Done
}

/// The interactive session on a terminal: the line editor, Ctrl-C for the turn, Ctrl-C again or
/// Ctrl-D to leave.
async fn terminal_session(
    agent: &Agent,
    session: &mut Session,
    screen: &Screen,
    interrupt: &Interrupt,
) -> ExitCode {
    let invocable = SKILLS
        .iter()
        .filter(|skill| skill.user_invocable())
        .map(|skill| skill.name().to_owned())
        .collect();
    let mut prompt = match prompt::Prompt::new(invocable) {
        Ok(prompt) => prompt,
        Err(error) => {
            eprintln!("error: the line editor: {error}");
            return ExitCode::FAILURE;
        }
    };
    let leave = screen.style.dim("(Ctrl-C again or Ctrl-D to leave)");
    // The last thing was a Ctrl-C (at the prompt, or stopping a turn): another one leaves.
    let mut interrupted = false;
    loop {
        let line = match tokio::task::block_in_place(|| prompt.read()) {
            Ok(prompt::Read::Line(line)) => line,
            Ok(prompt::Read::Interrupted) if interrupted => break,
            Ok(prompt::Read::Interrupted) => {
                eprintln!("{leave}");
                interrupted = true;
                continue;
            }
            Ok(prompt::Read::End) => break,
            Err(error) => {
                eprintln!("error: reading the prompt: {error}");
                return ExitCode::FAILURE;
            }
        };
        match take(&line, agent, session, screen, interrupt).await {
            Taken::Done => interrupted = false,
            Taken::Quit => break,
            Taken::Interrupted => {
                eprintln!("{leave}");
                interrupted = true;
            }
        }
    }
    ExitCode::SUCCESS
}

/// The session without a terminal: one line of stdin per prompt, as a script sends them.
async fn plain(
    agent: &Agent,
    session: &mut Session,
    screen: &Screen,
    interrupt: &Interrupt,
) -> ExitCode {
    let stdin = std::io::stdin();
    loop {
        eprint!("> ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: reading stdin: {e}");
                return ExitCode::FAILURE;
            }
        }
        if let Taken::Quit = take(&line, agent, session, screen, interrupt).await {
            break;
        }
    }
    ExitCode::SUCCESS
}

#[skills_runtime::main]
async fn main() -> ExitCode {
    // The attribute runs the sandbox's entry line first, before the runtime starts any thread:
    // the sandbox of every `bash` call is this binary started again.
    run().await
}

async fn run() -> ExitCode {
    // Help and `--version` exit 0, a bad flag exits 2 with the usage.
    let matches = Args::command().version(VERSION.as_str()).get_matches();
    let args = Args::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    // The eval flags have defaults, so clap's `requires` cannot tell them given: ask how each
    // got its value.
    if !args.eval {
        let given = EVAL_FLAGS
            .iter()
            .find(|id| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine));
        if let Some(id) = given {
            Args::command()
                .error(
                    clap::error::ErrorKind::MissingRequiredArgument,
                    format!("--{} is a flag of --eval", id.replace('_', "-")),
                )
                .exit();
        }
    }
    let (provider, description, endpoint) = match make_provider(&args) {
        Ok(p) => p,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let interactive = args.prompt.is_empty();
    let style = Style::detect();
    let interrupt = Interrupt::install();
    let spinner = Spinner::new();
    let policy = if args.yes {
        PermissionPolicy::allow_all()
    } else if std::io::stdin().is_terminal() {
        PermissionPolicy::new().with_approver(approve::approver(
            spinner.clone(),
            interrupt.clone(),
            style,
        ))
    } else {
        // Nobody to ask: risky tools are refused and the model is told so.
        PermissionPolicy::new()
    };
    let workdir = args.workdir.clone().unwrap_or_else(|| ".".into());
    let mut builder = Agent::builder(provider)
        .skills(&SKILLS)
        .workdir(&workdir)
        .max_turns(args.max_turns)
        .permissions(policy)
        .bash(BashOptions {
            sandbox: args.sandbox(),
            ..BashOptions::default()
        })
        .stream(!args.no_stream);
    if let Some(tokens) = args.context_window {
        builder = builder.context_window(tokens);
    }
    // Skills that ship scripts get them written here (keyed by hash, checked before reuse) when
    // loaded; without a per-user folder the model reads them with read_skill_resource instead.
    if let Some(dir) = skills_runtime::default_resource_dir() {
        builder = builder.resource_dir(dir);
    }
    let agent = match builder.build() {
        Ok(agent) => agent,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    eprintln!("provider: {description}");
    if args.eval {
        return evaluate(&agent, &args, endpoint).await;
    }
    if args.raw_output {
        eprintln!(
            "WARNING: --raw-output: the model's text reaches the terminal as sent; it can move \
             the cursor, write the clipboard and draw a fake approval prompt"
        );
    }
    print_confinement(&args.sandbox());
    eprintln!(
        "skills: {} in the catalog ({} characters of prompt); workdir: {}",
        SKILLS.len(),
        agent.system_prompt().len(),
        agent.workdir().display()
    );
    // The spans of every run to a collector, when one is named; sent on the way out.
    let _traces: Option<OtlpGuard> =
        match args.otlp_endpoint.clone().or_else(Otlp::endpoint_from_env) {
            Some(endpoint) => {
                match Otlp::new(&endpoint, "skills-agent-example").and_then(Otlp::install) {
                    Ok(guard) => {
                        eprintln!("traces: OTLP/HTTP to {}", guard.otlp().url());
                        Some(guard)
                    }
                    Err(error) => {
                        eprintln!("error: {error}");
                        return ExitCode::from(2);
                    }
                }
            }
            None => None,
        };
    let mut session = match &args.session {
        Some(path) => match agent.resume(path) {
            Ok(session) => {
                eprintln!(
                    "session: {} ({} messages so far)",
                    path.display(),
                    session.conversation().len()
                );
                if !session.conversation().is_empty() {
                    eprintln!("{}", recap(&session, style));
                }
                session
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => agent.session(),
    };
    let screen = Screen {
        raw_output: args.raw_output,
        style,
        spinner,
    };

    if !interactive {
        let prompt = args.prompt.join(" ");
        return match interrupt
            .during(ask(&agent, &mut session, &prompt, &screen))
            .await
        {
            Some(Ok(())) => ExitCode::SUCCESS,
            Some(Err(message)) => {
                eprintln!("error: {message}");
                ExitCode::FAILURE
            }
            None => {
                screen.spinner.finish_all();
                eprintln!(
                    "\n{}",
                    style.yellow("interrupted: the turn and its tool calls were stopped")
                );
                ExitCode::from(interrupt::EXIT)
            }
        };
    }

    eprintln!(
        "interactive session; type a task, `/name arguments` to invoke a skill (`/` lists them), \
         or `exit` to quit"
    );
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if terminal {
        eprintln!(
            "{}",
            style.dim(
                "end a line with \\ (or press Alt-Enter) to go on below; Ctrl-C stops a turn, \
                 Ctrl-C again or Ctrl-D leaves; Up and Down recall earlier prompts"
            )
        );
        terminal_session(&agent, &mut session, &screen, &interrupt).await
    } else {
        plain(&agent, &mut session, &screen, &interrupt).await
    }
}
