//! `skills eval`: the trigger evals of folders on disk, through the agent's runner.
//!
//! The folders are read and checked as for `check` (a bundle with errors is not evaluated),
//! then built into the registry the macro would compile from them, with the trigger cases in.
//! The agent is one built with the library's defaults (its preamble unless `--preamble`, the
//! built-in tools), so the requests are those such an agent sends.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use skills_agent::eval::{self, Baseline, EvalOptions, Gates, Progress};
use skills_agent::provider::scripted::ScriptedModel;
use skills_agent::provider::{self, ProviderKind};
use skills_agent::{Agent, HttpOptions, Provider};

use crate::args::{EvalArgs, ProviderChoice, Source};
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

/// Runs the evals of `source` as `args` say; returns the exit code.
pub fn run(source: &Source, args: &EvalArgs, streams: &mut Streams<'_>) -> io::Result<u8> {
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
             query (no model is asked)"
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
    let baseline = match &args.baseline {
        Some(path) => {
            let read = std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|text| Baseline::from_json(&text).map_err(|e| e.to_string()));
            match read {
                Ok(baseline) => Some(baseline),
                Err(error) => {
                    let message = format!("baseline {}: {error}", path.display());
                    return fail(streams, &message);
                }
            }
        }
        None => None,
    };
    let options = EvalOptions {
        runs: args.runs,
        threshold: args.threshold,
        isolated: args.isolated,
        concurrency: args.concurrency as usize,
        max_requests: Some(args.max_requests),
        cache_dir: (!args.no_cache).then(|| args.cache.clone().unwrap_or_else(default_cache)),
        endpoint,
    };
    writeln!(streams.err, "model: {description}")?;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(streams, &error),
    };
    let mut progress = Shown::new(streams.err);
    let result = runtime.block_on(eval::run(&agent, &options, |p| progress.show(p)));
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
    streams
        .out
        .write_all(report.render(args.format).as_bytes())?;
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

    fn show(&mut self, progress: &Progress<'_>) {
        if !self.terminal {
            let _ = writeln!(self.err, "{progress}");
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(progress.total as u64);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(progress.done as u64);
        bar.set_message(progress.to_string());
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
