//! Task evals: does the skill make the agent succeed?
//!
//! Each skill's task cases (`evals/evals.json`, skill-creator's and agentskills.io's format,
//! compiled in with `embed_skills!(..., embed_evals = true)` or read from disk by `skills eval
//! --tasks`) are tasks with assertions ([`TaskCase`](skills_bundle::TaskCase)). [`run`] gives
//! each case to the agent it is given, its real loop (system prompt, tools, context budget),
//! [`TaskOptions::runs`] times (default 3) in each of two configurations:
//!
//! - `with_skill`: the agent's bundle;
//! - `without_skill`, the baseline: the bundle without the skill (its catalog line removed, so
//!   `load_skill` cannot load it), or with the skill's previous version in its place
//!   ([`Comparison`]).
//!
//! Every run starts in a fresh temporary working directory holding the case's files. `bash`
//! runs only in its sandbox ([`TaskOptions::bash`]; the eval refuses to start where it would
//! run unconfined, unless [`TaskOptions::allow_unconfined`]), without network unless the case
//! says `"network": true`; the calls that would ask for approval are approved only for the
//! confined built-in tools (`bash`, `write_file`, `edit_file`). Each run is bounded by
//! [`TaskOptions::max_turns`], [`TaskOptions::max_tokens`] and [`TaskOptions::timeout`]; a run
//! that reaches a limit fails, with the reason.
//!
//! After a run, its checks (object assertions: files, a command in the case's sandbox, the
//! answer, which skills loaded over the whole run, turns and tokens) run first, then a grader
//! model ([`TaskOptions::grader`], by default the agent's provider) judges the string
//! assertions through a `grade` tool call with a strict schema: one `passed` and `evidence`
//! per assertion. A reply that does not follow it is an error of the run, never a pass.
//!
//! Numbers ([`TaskReport`]), per case and per skill, each configuration as mean, standard
//! deviation, least and greatest over its runs:
//! - `pass_rate`: 1 for a run in which every assertion passed (and it finished within its
//!   limits, without error), else 0;
//! - `assertion_pass_rate`: the share of a run's assertions that passed;
//! - `turns`, `tool_calls`, `tokens`, `time_seconds` (the agent's loop, without grading);
//! - `selection_accuracy`: the share of `loaded` / `not_loaded` checks that passed;
//! - `delta`: with minus without, of each mean; `delta.pass_rate` is the skill's *uplift*.
//!
//! Flags: assertions that passed in every run of both configurations (*non-discriminating*:
//! they measure nothing the skill adds), and *flaky* cases, whose runs disagree within a
//! configuration. The JSON report carries agentskills.io's `benchmark.json` fields too
//! (`metadata`, `runs`, `run_summary.{with_skill,without_skill}.{pass_rate,time_seconds,
//! tokens}.{mean,stddev}`, `delta`), whose `pass_rate` is skill-creator's: the assertion pass
//! rate of a run.
//!
//! Finished runs are kept in [`TaskOptions::cache_dir`], keyed by everything their first
//! request and their checks depend on (provider, model, endpoint, system prompt, tools, the
//! case, its files, the limits, the sandbox, the grader, the run index), and valid while every
//! skill the run loaded is served the same: a second eval with nothing changed sends nothing,
//! and editing one skill's body re-runs only the runs that loaded it. Errors are never kept.
//! [`TaskOptions::max_requests`] is checked before anything is sent, counting each run not in
//! the cache as its turn limit plus one grading request. [`TaskOptions::shard`] runs a
//! deterministic part of the cases; [`TaskReport::merge`] joins the shards' reports into the
//! report one eval would give. [`TaskGates`] fail a report on a pass rate or uplift under a
//! minimum, or a case that passed in an earlier report and fails now.

mod checks;
mod gates;
mod grader;
mod html;
mod metered;
mod options;
mod render;
mod report;
mod runner;
mod workdir;

pub use gates::{TaskBaseline, TaskGates};
pub use options::{Comparison, DEFAULT_MAX_TASK_REQUESTS, Shard, TaskOptions};
pub use render::TaskFormat;
pub use report::{
    BenchmarkDelta, BenchmarkSummary, CaseTaskReport, ChangedFile, ConfigSummary, Configuration,
    Delta, Expectation, Metadata, RunRecord, RunResult, RunSummary, SkillTaskReport, Stats,
    TaskGateFailure, TaskGateReport, TaskReport, TranscriptEntry,
};
pub use runner::{TaskProgress, run};
