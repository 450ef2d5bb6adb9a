//! `skills eval`: the trigger evals (or, with `--tasks`, the task evals) of folders on disk,
//! through the agent's runners; `skills eval merge` joins the reports of task-eval shards.
//!
//! The folders are read and checked as for `check` (a bundle with errors is not evaluated),
//! then built into the registry the macro would compile from them, with the trigger cases in.
//! The agent is one built with the library's defaults (its preamble unless `--preamble`, the
//! built-in tools), so the requests are those such an agent sends.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use skills_agent::eval::tasks::{
    Comparison, TaskBaseline, TaskFormat, TaskGates, TaskOptions, TaskReport,
};
use skills_agent::eval::{self, Baseline, EvalOptions, Format, Gates};
use skills_agent::provider::scripted::ScriptedModel;
use skills_agent::provider::{self, ProviderKind};
use skills_agent::{Agent, BashOptions, HttpOptions, Provider};

use crate::args::{EvalArgs, EvalCommand, ProviderChoice, Source, TaskGateArgs};
use crate::bundle;
use crate::output::Streams;

/// The exit code of a run that could not judge.
const ERROR: u8 = 2;

/// The default cache: `skills-eval` in the target folder of the current directory.
fn default_cache() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from("target"), PathBuf::from)
        .join("skills-eval")
}

/// Runs the evals of `source` as `args` say (or joins shard reports, `merge`); returns the exit
/// code.
pub fn run(
    merge: Option<&EvalCommand>,
    source: &Source,
    args: &EvalArgs,
    streams: &mut Streams<'_>,
) -> io::Result<u8> {
    if let Some(EvalCommand::Merge {
        reports,
        format,
        gates,
    }) = merge
    {
        return merge_reports(reports, *format, gates, args, streams);
    }
    let trigger_format = if args.tasks {
        None
    } else {
        match args.format.parse::<Format>() {
            Ok(format) => Some(format),
            Err(_) => {
                return fail(
                    streams,
                    &format!("`--format {}` is for task reports (--tasks)", args.format),
                );
            }
        }
    };
    let Some(loaded) = bundle::load_valid(source, streams.err)? else {
        return Ok(ERROR);
    };
    let registry =
        match skills_bundle::__private::registry_from_bundle(&loaded, &source.roots(), false, true)
        {
            Ok(registry) => registry,
            Err(error) => return fail(streams, &error),
        };
    let kind = match args.provider {
        Some(ProviderChoice::Anthropic) => Some(ProviderKind::Anthropic),
        Some(ProviderChoice::OpenAi) => Some(ProviderKind::OpenAi),
        Some(ProviderChoice::Demo) => None,
        None => match ProviderKind::detect(provider::env_var) {
            Some(kind) => Some(kind),
            None => {
                return fail(
                    streams,
                    &"no model to ask: set ANTHROPIC_API_KEY, or OPENAI_API_KEY or \
                      OPENAI_BASE_URL (a local server), or pass --provider (demo asks none)",
                );
            }
        },
    };
    // The model, what it is for the report's first line, and its address for the cache's key.
    let (model, description, endpoint): (Arc<dyn Provider>, String, String) = match kind {
        Some(kind) => match provider::select(
            kind,
            args.model.as_deref(),
            provider::env_var,
            HttpOptions::default(),
        ) {
            Ok(selected) => {
                let description = selected.to_string();
                (selected.provider, description, selected.base_url)
            }
            Err(error) => return fail(streams, &error),
        },
        None => (
            Arc::new(ScriptedModel::new()),
            "demo: an offline stand-in that loads the skill sharing the most words with the \
             query, and grades by word match (no model is asked)"
                .to_owned(),
            String::new(),
        ),
    };
    let mut builder = Agent::builder(model).skills(registry).stream(args.stream);
    if let Some(preamble) = &args.preamble {
        builder = builder.preamble(preamble.as_str());
    }
    let agent = match builder.build() {
        Ok(agent) => agent,
        Err(error) => return fail(streams, &error),
    };
    writeln!(streams.err, "model: {description}")?;
    let cache_dir = (!args.no_cache).then(|| args.cache.clone().unwrap_or_else(default_cache));
    match trigger_format {
        Some(format) => triggers(&agent, args, format, endpoint, cache_dir, streams),
        None => {
            // The demo grades with itself, whatever `--grader-model` says.
            let grader = match (&args.grader_model, kind) {
                (Some(model), Some(kind)) => match provider::select(
                    kind,
                    Some(model),
                    provider::env_var,
                    HttpOptions::default(),
                ) {
                    Ok(grader) => Some(grader),
                    Err(error) => return fail(streams, &error),
                },
                _ => None,
            };
            let comparison = match &args.previous {
                Some(previous) => match crate::previous::comparison(previous, source, &loaded) {
                    Ok(comparison) => comparison,
                    Err(error) => return fail(streams, &error),
                },
                None => Comparison::WithoutSkill,
            };
            let options = TaskOptions {
                runs: args.runs,
                comparison,
                grader_endpoint: grader
                    .as_ref()
                    .map_or_else(|| endpoint.clone(), |g| g.base_url.clone()),
                grader: grader.map(|g| g.provider),
                endpoint,
                max_turns: args.max_turns,
                max_tokens: args.max_tokens,
                timeout: Duration::from_secs(args.timeout),
                bash: BashOptions::default(),
                allow_unconfined: args.allow_unconfined,
                concurrency: args.concurrency as usize,
                max_requests: Some(args.max_requests),
                cache_dir,
                shard: args.shard,
            };
            tasks(&agent, args, &options, streams)
        }
    }
}

/// Reads an earlier report for `--baseline` with `read`, or says why it cannot.
fn read_baseline<T, E: std::fmt::Display>(
    path: Option<&std::path::Path>,
    read: impl FnOnce(&str) -> Result<T, E>,
) -> Result<Option<T>, String> {
    let Some(path) = path else {
        return Ok(None);
    };
    std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| read(&text).map_err(|e| e.to_string()))
        .map(Some)
        .map_err(|error| format!("baseline {}: {error}", path.display()))
}

/// A runtime for the requests.
fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// The trigger evals.
fn triggers(
    agent: &Agent,
    args: &EvalArgs,
    format: Format,
    endpoint: String,
    cache_dir: Option<PathBuf>,
    streams: &mut Streams<'_>,
) -> io::Result<u8> {
    let baseline = match read_baseline(args.baseline.as_deref(), Baseline::from_json) {
        Ok(baseline) => baseline,
        Err(error) => return fail(streams, &error),
    };
    let options = EvalOptions {
        runs: args.runs,
        threshold: args.threshold,
        isolated: args.isolated,
        concurrency: args.concurrency as usize,
        max_requests: Some(args.max_requests),
        cache_dir,
        endpoint,
        rule: args.rule,
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(error) => return fail(streams, &error),
    };
    let mut progress = Shown::new(streams.err);
    let result = runtime.block_on(eval::run(agent, &options, |p| {
        progress.show(p.done, p.total, p)
    }));
    progress.finish();
    let mut report = match result {
        Ok(report) => report,
        Err(error) => return fail(streams, &error),
    };
    report.check(&Gates {
        min_recall: args.min_recall,
        min_precision: args.min_precision,
        baseline,
    });
    streams.out.write_all(report.render(format).as_bytes())?;
    Ok(report.verdict().exit_code())
}

/// The task evals.
fn tasks(
    agent: &Agent,
    args: &EvalArgs,
    options: &TaskOptions,
    streams: &mut Streams<'_>,
) -> io::Result<u8> {
    let format = match args.format.parse::<TaskFormat>() {
        Ok(format) => format,
        Err(error) => return fail(streams, &error),
    };
    let baseline = match read_baseline(args.baseline.as_deref(), TaskBaseline::from_json) {
        Ok(baseline) => baseline,
        Err(error) => return fail(streams, &error),
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(error) => return fail(streams, &error),
    };
    let mut progress = Shown::new(streams.err);
    let result = runtime.block_on(eval::tasks::run(agent, options, |p| {
        progress.show(p.done, p.total, p)
    }));
    progress.finish();
    let mut report = match result {
        Ok(report) => report,
        Err(error) => return fail(streams, &error),
    };
    report.check(&TaskGates {
        min_pass_rate: args.task_gates.min_pass_rate,
        min_uplift: args.task_gates.min_uplift,
        baseline,
    });
    streams.out.write_all(report.render(format).as_bytes())?;
    Ok(report.verdict().exit_code())
}

/// `skills eval merge`: the shards' reports joined, held to the gates.
fn merge_reports(
    paths: &[PathBuf],
    format: TaskFormat,
    gates: &TaskGateArgs,
    args: &EvalArgs,
    streams: &mut Streams<'_>,
) -> io::Result<u8> {
    let mut reports = Vec::new();
    for path in paths {
        let read = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()));
        match read {
            Ok(report) => reports.push(report),
            Err(error) => {
                return fail(streams, &format!("report {}: {error}", path.display()));
            }
        }
    }
    let mut report = match TaskReport::merge(reports) {
        Ok(report) => report,
        Err(error) => return fail(streams, &error),
    };
    let baseline = match read_baseline(args.baseline.as_deref(), TaskBaseline::from_json) {
        Ok(baseline) => baseline,
        Err(error) => return fail(streams, &error),
    };
    report.check(&TaskGates {
        min_pass_rate: gates.min_pass_rate,
        min_uplift: gates.min_uplift,
        baseline,
    });
    streams.out.write_all(report.render(format).as_bytes())?;
    Ok(report.verdict().exit_code())
}

fn fail(streams: &mut Streams<'_>, error: &dyn std::fmt::Display) -> io::Result<u8> {
    writeln!(streams.err, "error: {error}")?;
    Ok(ERROR)
}

/// Progress: a bar on a terminal, a plain line per finished run otherwise.
struct Shown<'a> {
    err: &'a mut dyn Write,
    bar: Option<indicatif::ProgressBar>,
    terminal: bool,
}

impl<'a> Shown<'a> {
    fn new(err: &'a mut dyn Write) -> Self {
        Shown {
            err,
            bar: None,
            terminal: io::stderr().is_terminal(),
        }
    }

    /// Run `done` of `total` finished, as `line` says.
    fn show(&mut self, done: usize, total: usize, line: &dyn std::fmt::Display) {
        if !self.terminal {
            let _ = writeln!(self.err, "{line}");
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(done as u64);
        bar.set_message(line.to_string());
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
