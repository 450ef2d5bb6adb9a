//! Trigger evals: does the model, shown the catalog, load a skill when a task needs it and
//! leave it alone when it does not? And task evals ([`tasks`]): once it has the skill, does the
//! agent do the task better than without it?
//!
//! Each skill's trigger cases (`evals/triggers.json`, compiled in with `embed_skills!(...,
//! embed_evals = true)`, or read from disk by the `skills eval` command) are queries marked
//! `should_trigger` true or false. [`run`] asks each one as the first turn of a fresh session of
//! the agent it is given, with exactly the system prompt and tools that agent sends
//! ([`Agent::first_reply`](crate::Agent::first_reply)); nothing is executed. The first tool call
//! of the reply decides: `load_skill(X)` means X triggered, any other call or none means no
//! skill. A `load_skill` call without a string `name`, or a reply the provider cannot read, is an
//! error, reported and failing the run, never counted as "no skill".
//!
//! - Every case is asked [`EvalOptions::runs`] times (default 3). Its *trigger rate* is the share
//!   of its answered runs that loaded its skill; the case *triggers* its skill when that share is
//!   at least [`EvalOptions::threshold`] (default 0.5), and *passes* when that is what it should
//!   do and no run failed.
//! - [`EvalOptions::rule`] can count a skill as triggered when it is loaded anywhere in the
//!   first reply, after other calls too ([`TriggerRule::FirstReply`], skill-creator's newer
//!   runner's way); the report says which rule decided.
//! - By default the catalog is the agent's whole bundle, which is what catches two skills
//!   competing for a query; [`EvalOptions::isolated`] offers only the skill under test (a
//!   [`Registry::restrict`](skills_bundle::Registry::restrict)ed agent, through
//!   [`Agent::with_skills`](crate::Agent::with_skills)).
//! - Requests run [`EvalOptions::concurrency`] at a time (default 4), with the provider's retry
//!   policy (`retry-after` obeyed). [`EvalOptions::max_requests`] is a hard limit: a run that
//!   would send more fails before it sends any. Answers already in the cache are free.
//! - With [`EvalOptions::cache_dir`] every answer is kept on disk, keyed by the provider, the
//!   model, [`EvalOptions::endpoint`], the exact request (system prompt, tool definitions, query)
//!   and the run index. Running again with nothing changed sends nothing; changing one
//!   description changes the system prompt, so it asks again every case that prompt is sent with:
//!   every case of the bundle, or with `isolated` only that skill's. Errors are never cached.
//!
//! Per skill ([`SkillReport`]):
//! - `recall`: the share of its positive cases (`should_trigger: true`) that trigger it;
//! - `false_trigger_rate`: the share of its negative cases that do;
//! - `precision`: of all runs, over every case of the bundle, that loaded this skill, the share in
//!   which it was the skill the case expected (the case is one of its positives);
//! - `confused_with`: its positive cases whose most loaded outcome was another skill, counted by
//!   that skill (a tie goes to the case's own skill, then to no skill, then to the first name).
//!
//! A value with nothing to count (recall of a skill without positive cases, precision of one no
//! run loaded) is `None` (`null` in JSON), never below a gate. [`Gates`] fail a run on recall or
//! precision under a minimum for any skill, or on a case that passed in an earlier JSON report
//! and fails now ([`Baseline`]); [`Report::verdict`] turns the result into an exit code.
//! [`Report::render`] writes a table, JSON, Markdown or JUnit XML ([`Format`]).
//!
// The guide: the case formats, the three ways to run evals, the numbers, gates and CI jobs.
#![doc = include_str!("../../docs/evals.md")]

mod cache;
mod error;
mod format;
mod gates;
mod junit;
mod outcome;
mod report;
mod runner;
pub mod tasks;

pub use error::EvalError;
pub use format::Format;
pub use gates::{Baseline, Gates, Verdict};
pub use outcome::{Outcome, TriggerRule};
pub use report::{CaseReport, GateFailure, GateReport, Report, SkillReport, Tokens};
pub use runner::{DEFAULT_MAX_REQUESTS, EvalOptions, Progress, run};
