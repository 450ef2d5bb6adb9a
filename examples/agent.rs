//! A single-binary agent: the skills of `skills/` compiled in, a real tool loop.
//!
//! ```text
//! cargo run --example agent -- [--provider anthropic|openai|demo] [--model M] [--workdir DIR]
//!                              [--max-turns N] [--context-window TOKENS] [--yes]
//!                              [--no-sandbox|--require-sandbox] [--session FILE] [--no-stream]
//!                              [--raw-output] [PROMPT...]
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
//! real loop, `load_skill` and tools ([`skills_demo::scripted`]).
//!
//! With a PROMPT it runs once and prints the answer on stdout as it is generated (replies are
//! streamed; `--no-stream` reads each reply whole), with a status line per tool call on stderr.
//! The model's text reaches the terminal with control characters and escape sequences shown
//! escaped (`--raw-output` prints its bytes as sent);
//! without one it is an interactive session. A prompt or line that starts with `/name` invokes that skill with the rest as its
//! arguments, as a person's turn (`context: fork` skills run in a sub-agent, `allowed-tools`
//! apply); `/` alone lists the skills a person may invoke. `bash`, `write_file` and `edit_file` ask for confirmation unless `--yes` is given
//! (and are refused when there is no terminal to ask on).

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, LazyLock};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use skills_demo::scripted::ScriptedModel;
use skills_runtime::agent::eval::tasks::{Shard, TaskBaseline, TaskFormat, TaskGates, TaskOptions};
use skills_runtime::agent::eval::{self, Baseline, EvalOptions, Format, Gates, TriggerRule};
use skills_runtime::agent::provider::{self, ProviderKind};
use skills_runtime::agent::{
    self, Agent, AgentEvent, BashOptions, DEFAULT_MAX_TURNS, HttpOptions, PermissionPolicy,
    Provider, RunOutput, Sandbox, Session, TerminalEscaper,
};

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
        default_value_t = DEFAULT_MAX_TURNS,
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
    let baseline = match &args.baseline {
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| TaskBaseline::from_json(&text).map_err(|e| e.to_string()))
        {
            Ok(baseline) => Some(baseline),
            Err(error) => {
                eprintln!("error: baseline {}: {error}", path.display());
                return ExitCode::from(2);
            }
        },
        None => None,
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
    let baseline = match &args.baseline {
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Baseline::from_json(&text).map_err(|e| e.to_string()))
        {
            Ok(baseline) => Some(baseline),
            Err(error) => {
                eprintln!("error: baseline {}: {error}", path.display());
                return ExitCode::from(2);
            }
        },
        None => None,
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

/// Asks on the terminal whether a tool call may run, showing exactly what it will do (escaped,
/// with `v` to see all of a long text).
fn approver() -> skills_runtime::agent::Approver {
    Arc::new(|call| {
        agent::ask_user(call, std::io::stdin().lock(), std::io::stderr()).unwrap_or(false)
    })
}

/// Prints a run as it goes: the assistant's text on stdout as it arrives (escaped, unless
/// `--raw-output`), and one status line per tool call on stderr when it has its result. What
/// the model sent and the tool printed is escaped and cut in those lines, so it cannot act on
/// the terminal.
struct Printer {
    /// The escaper of the model's text; `None` prints it raw.
    escaper: Option<TerminalEscaper>,
    /// Text was printed since the last line end.
    mid_line: bool,
}

impl Printer {
    fn new(raw_output: bool) -> Self {
        Printer {
            escaper: (!raw_output).then(TerminalEscaper::new),
            mid_line: false,
        }
    }

    fn event(&mut self, event: &AgentEvent<'_>) {
        match event {
            AgentEvent::TextDelta(text) => {
                let shown = match &mut self.escaper {
                    Some(escaper) => escaper.push(text),
                    None => (*text).to_owned(),
                };
                self.print(&shown);
            }
            // A tool line or an approval question starts on a line of its own.
            AgentEvent::ToolCallStarted { .. } | AgentEvent::TurnFinished { .. } => self.end_line(),
            AgentEvent::ToolResult { call, result, .. } => {
                self.end_line();
                let status = if result.is_error { "error" } else { "ok" };
                eprintln!(
                    "  [tool] {}({}) -> {status}, {} chars",
                    agent::terminal_line(&call.name, 80),
                    agent::terminal_line(&call.input.to_string(), 120),
                    result.content.len()
                );
                if result.is_error {
                    eprintln!("         {}", agent::terminal_line(&result.content, 300));
                }
            }
            AgentEvent::ContextShortened { cut, .. } => {
                self.end_line();
                eprintln!(
                    "  [context] shortened an earlier {} result ({} -> {} bytes) to fit the window",
                    agent::terminal_line(&cut.tool, 80),
                    cut.bytes_before,
                    cut.bytes_after
                );
            }
            _ => {}
        }
    }

    fn print(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
        self.mid_line = !text.ends_with('\n');
    }

    /// Ends the text so far (what the escaper held back) and its line.
    fn end_line(&mut self) {
        if let Some(rest) = self.escaper.as_mut().map(TerminalEscaper::finish) {
            self.print(&rest);
        }
        if std::mem::take(&mut self.mid_line) {
            let _ = writeln!(std::io::stdout());
        }
    }
}

fn summary(out: &RunOutput) -> String {
    let skills = if out.skills_loaded.is_empty() {
        "none".to_owned()
    } else {
        out.skills_loaded.join(", ")
    };
    format!(
        "[{} turn(s), {} tool call(s), skills loaded: {skills}, tokens in {} (cache read {}) / out {}]",
        out.turns,
        out.tool_calls,
        out.usage.input_tokens,
        out.usage.cache_read_tokens,
        out.usage.output_tokens
    )
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

/// Runs `prompt` (or the `/name` command), printing the answer as it arrives.
async fn ask(
    agent: &Agent,
    session: &mut Session,
    prompt: &str,
    raw_output: bool,
) -> Result<(), String> {
    let mut printer = Printer::new(raw_output);
    let on_event = |event: &AgentEvent<'_>| printer.event(event);
    let result = match skill_command(prompt) {
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
            eprintln!("{}", summary(&out));
            Ok(())
        }
        // An error can quote what the server sent.
        Err(e) => Err(agent::terminal_text(&e.to_string())),
    }
}

fn main() -> ExitCode {
    // First, before any thread starts: the sandbox of every `bash` call is this binary started
    // again, and in such a copy this line builds the sandbox and never returns.
    agent::sandbox::enter();
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        }
    }
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
    let policy = if args.yes {
        PermissionPolicy::allow_all()
    } else if std::io::stdin().is_terminal() {
        PermissionPolicy::new().with_approver(approver())
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
    let mut session = match &args.session {
        Some(path) => match agent.resume(path) {
            Ok(session) => {
                eprintln!(
                    "session: {} ({} messages so far)",
                    path.display(),
                    session.conversation().len()
                );
                session
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => agent.session(),
    };

    if !interactive {
        let prompt = args.prompt.join(" ");
        return match ask(&agent, &mut session, &prompt, args.raw_output).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::FAILURE
            }
        };
    }

    eprintln!(
        "interactive session; type a task, `/name arguments` to invoke a skill (`/` lists them), \
         or `exit` to quit"
    );
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
        let prompt = line.trim();
        if prompt.is_empty() {
            continue;
        }
        if matches!(prompt, "exit" | "quit") {
            break;
        }
        match ask(&agent, &mut session, prompt, args.raw_output).await {
            Ok(()) => println!(),
            // The session keeps every message; the user can go on.
            Err(message) => eprintln!("error: {message}"),
        }
    }
    ExitCode::SUCCESS
}
