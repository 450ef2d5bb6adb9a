//! [`TaskReport`]: the numbers of a task eval, computed from the record of every run, in the
//! shape the JSON report has: agentskills.io's `benchmark.json` fields (`metadata`, `runs`,
//! `run_summary`) beside ours (per skill and per case, both configurations, their delta, the
//! flags). [`TaskReport::merge`] joins the reports of shards by recomputing from their runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::eval::Tokens;

/// The two configurations every case runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Configuration {
    /// The bundle with the skill.
    WithSkill,
    /// The baseline: the bundle without the skill, or with its previous version
    /// ([`TaskReport::baseline`] says which).
    WithoutSkill,
}

impl Configuration {
    /// Both, in report order.
    pub const BOTH: [Configuration; 2] = [Configuration::WithSkill, Configuration::WithoutSkill];

    /// `with_skill` or `without_skill`, as `benchmark.json` names them.
    pub fn as_str(self) -> &'static str {
        match self {
            Configuration::WithSkill => "with_skill",
            Configuration::WithoutSkill => "without_skill",
        }
    }
}

/// What a task eval found. Fractions are between 0 and 1, everything rounded to 4 places.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskReport {
    /// Always `tasks`: tells this report from a trigger eval's.
    pub kind: String,
    /// The provider's name.
    pub provider: String,
    /// The model that ran the agent.
    pub model: String,
    /// The grader (`provider/model`), when some assertion needed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grader: Option<String>,
    /// Runs per case and configuration.
    pub runs_per_configuration: u32,
    /// What the baseline is: `without the skill`, or the previous version's source.
    pub baseline: String,
    /// What `bash` ran in.
    pub sandbox: String,
    /// The shards joined into this report, `K/N` each; empty for a whole run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<String>,
    /// `benchmark.json`'s metadata.
    pub metadata: Metadata,
    /// Over every run of the report, per configuration, as `benchmark.json` has it: its
    /// `pass_rate` is skill-creator's, the share of a run's assertions that passed.
    pub run_summary: RunSummary,
    /// Per skill with cases, in name order.
    pub skills: Vec<SkillTaskReport>,
    /// Per case, skill after skill, in file order.
    pub cases: Vec<CaseTaskReport>,
    /// Every run, in case order, `with_skill` first, by run number.
    pub runs: Vec<RunRecord>,
    /// Model requests sent by this run (agent turns and grading).
    pub requests: u64,
    /// Runs taken from the cache.
    pub cached: u64,
    /// Runs that ended in an error (a reply that could not be read, the grader's included).
    pub errors: u64,
    /// Tokens of the requests sent by this run.
    pub tokens: Tokens,
    /// The gates checked, once [`TaskReport::check`] ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gates: Option<TaskGateReport>,
}

/// `benchmark.json`'s `metadata`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// The skill, when the report holds one; the skills joined by `, ` otherwise.
    pub skill_name: String,
    /// The model that ran the agent.
    pub executor_model: String,
    /// The ids of the cases run (of every skill).
    pub evals_run: Vec<u64>,
    /// Runs per case and configuration.
    pub runs_per_configuration: u32,
}

/// Mean, sample standard deviation, least and greatest of a number over runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation (n - 1; 0 for one run), as skill-creator computes it.
    pub stddev: f64,
    /// The least value.
    pub min: f64,
    /// The greatest value.
    pub max: f64,
}

/// Rounded to 4 places, as reports show numbers.
pub(crate) fn round(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

/// `+0.67`: a difference as reports show it.
pub(crate) fn signed(value: f64, places: usize) -> String {
    format!("{value:+.places$}")
}

impl Stats {
    /// `0.67±0.58`: the mean and deviation as reports show them.
    pub(crate) fn shown(&self, places: usize) -> String {
        format!("{:.places$}±{:.places$}", self.mean, self.stddev)
    }

    /// The stats of `values` (all zero for none).
    pub fn of(values: &[f64]) -> Stats {
        if values.is_empty() {
            return Stats::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let stddev = if values.len() > 1 {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        Stats {
            mean: round(mean),
            stddev: round(stddev),
            min: round(values.iter().copied().fold(f64::INFINITY, f64::min)),
            max: round(values.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        }
    }
}

/// `benchmark.json`'s `run_summary`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// With the skill.
    pub with_skill: BenchmarkSummary,
    /// The baseline.
    pub without_skill: BenchmarkSummary,
    /// With minus without, of each mean.
    pub delta: BenchmarkDelta,
}

/// One configuration in `run_summary`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkSummary {
    /// The share of a run's assertions that passed.
    pub pass_rate: Stats,
    /// Wall time of a run, in seconds.
    pub time_seconds: Stats,
    /// Tokens of a run, input and output.
    pub tokens: Stats,
}

/// `run_summary.delta`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkDelta {
    /// Of the assertion pass rate.
    pub pass_rate: f64,
    /// Of the wall time.
    pub time_seconds: f64,
    /// Of the tokens.
    pub tokens: f64,
}

/// One configuration's numbers over some runs (of a case or of a skill).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigSummary {
    /// Runs counted.
    pub runs: u32,
    /// Runs that ended in an error (counted as failed, and the numbers are incomplete).
    pub errors: u32,
    /// Per run 1 when every assertion passed (and the run finished within its limits), else 0.
    pub pass_rate: Stats,
    /// Per run the share of its assertions that passed.
    pub assertion_pass_rate: Stats,
    /// Model requests of a run.
    pub turns: Stats,
    /// Tool calls of a run.
    pub tool_calls: Stats,
    /// Tokens of a run, input and output.
    pub tokens: Stats,
    /// Wall time of a run, in seconds.
    pub time_seconds: Stats,
    /// Of the runs with `loaded` or `not_loaded` checks, the share of those checks that passed;
    /// `None` without such checks.
    pub selection_accuracy: Option<f64>,
}

/// With minus without, of each mean: the skill's uplift (pass rates) and its cost (the rest).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// Of the pass rate.
    pub pass_rate: f64,
    /// Of the assertion pass rate.
    pub assertion_pass_rate: f64,
    /// Of the turns.
    pub turns: f64,
    /// Of the tool calls.
    pub tool_calls: f64,
    /// Of the tokens.
    pub tokens: f64,
    /// Of the wall time.
    pub time_seconds: f64,
}

impl Delta {
    fn of(with: &ConfigSummary, without: &ConfigSummary) -> Delta {
        let d = |a: Stats, b: Stats| round(a.mean - b.mean);
        Delta {
            pass_rate: d(with.pass_rate, without.pass_rate),
            assertion_pass_rate: d(with.assertion_pass_rate, without.assertion_pass_rate),
            turns: d(with.turns, without.turns),
            tool_calls: d(with.tool_calls, without.tool_calls),
            tokens: d(with.tokens, without.tokens),
            time_seconds: d(with.time_seconds, without.time_seconds),
        }
    }
}

/// One skill's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillTaskReport {
    /// The skill.
    pub name: String,
    /// Its cases in this report.
    pub cases: u32,
    /// Over every run of its cases with the skill.
    pub with_skill: ConfigSummary,
    /// Over every run of its cases in the baseline.
    pub without_skill: ConfigSummary,
    /// With minus without.
    pub delta: Delta,
    /// `id: assertion` of the assertions that passed in every run of both configurations:
    /// they measure nothing the skill adds.
    pub non_discriminating: Vec<String>,
    /// Ids of its cases whose runs disagree (some passed, some did not) in a configuration.
    pub flaky: Vec<u64>,
}

/// One case's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseTaskReport {
    /// The skill whose case it is.
    pub skill: String,
    /// Its id.
    pub id: u64,
    /// Its place among its skill's cases, from 0 (file order; what orders merged shards).
    pub index: u32,
    /// The task.
    pub prompt: String,
    /// What success looks like.
    pub expected_output: String,
    /// Its assertions, as the runs report them.
    pub assertions: Vec<String>,
    /// Over its runs with the skill.
    pub with_skill: ConfigSummary,
    /// Over its runs in the baseline.
    pub without_skill: ConfigSummary,
    /// With minus without.
    pub delta: Delta,
    /// Its assertions that passed in every run of both configurations.
    pub non_discriminating: Vec<String>,
    /// Whether its runs disagree in a configuration.
    pub flaky: bool,
    /// Whether at least half its runs with the skill passed every assertion, without an error
    /// (what `--baseline` compares).
    pub pass: bool,
}

/// One assertion's outcome in one run: `benchmark.json`'s `expectations[]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expectation {
    /// The assertion: the statement as written, or the check in words.
    pub text: String,
    /// Whether it held.
    pub passed: bool,
    /// Why: what the check saw, or the grader's quote.
    pub evidence: String,
    /// Whether the grader judged it (a string assertion) rather than a check.
    #[serde(default)]
    pub graded: bool,
}

/// `benchmark.json`'s `runs[].result`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The share of the run's assertions that passed.
    pub pass_rate: f64,
    /// Assertions that passed.
    pub passed: u32,
    /// Assertions that failed.
    pub failed: u32,
    /// Assertions in all.
    pub total: u32,
    /// Wall time of the run and its checks, in seconds.
    pub time_seconds: f64,
    /// Tokens of the run's model requests, input and output.
    pub tokens: u64,
    /// Tool calls the model made.
    pub tool_calls: u32,
    /// 1 when the run ended in an error.
    pub errors: u32,
}

/// One message of a run's conversation, for people and the grader.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptEntry {
    /// `user`, `assistant`, `tool call` or `tool result`.
    pub role: String,
    /// The text (a tool call as `name {json}`), cut to a few thousand characters.
    pub text: String,
}

/// One file a run added, changed or removed in its working directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFile {
    /// Relative to the working directory.
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub change: String,
    /// Its text afterwards (cut), when it is text and was not deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// One run of one case in one configuration: `benchmark.json`'s `runs[]`, with what a person
/// needs to see why it passed or failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The case's skill.
    pub skill: String,
    /// The case's id.
    pub eval_id: u64,
    /// The configuration.
    pub configuration: Configuration,
    /// From 1.
    pub run_number: u32,
    /// The numbers `benchmark.json` has.
    pub result: RunResult,
    /// Every assertion, checks first, then the graded ones.
    pub expectations: Vec<Expectation>,
    /// Every assertion passed, the run finished within its limits and nothing was an error.
    pub pass: bool,
    /// Model requests.
    pub turns: u32,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// The skills loaded at some point of the run, in order.
    pub skills_loaded: Vec<String>,
    /// The final answer (the last assistant text).
    pub answer: String,
    /// Why the run stopped before the model finished: a turn, token or time limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// What went wrong, for a run that ended in an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the run changed in its working directory.
    pub changed_files: Vec<ChangedFile>,
    /// The conversation.
    pub transcript: Vec<TranscriptEntry>,
    /// Whether this record came from the cache.
    #[serde(default)]
    pub cached: bool,
}

/// What the runner knows of a case besides its runs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CaseInfo {
    pub(crate) skill: String,
    pub(crate) id: u64,
    pub(crate) index: u32,
    pub(crate) prompt: String,
    pub(crate) expected_output: String,
    pub(crate) assertions: Vec<String>,
}

/// What the runner counted besides the runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Totals {
    pub(crate) provider: String,
    pub(crate) model: String,
    pub(crate) grader: Option<String>,
    pub(crate) runs: u32,
    pub(crate) baseline: String,
    pub(crate) sandbox: String,
    pub(crate) shards: Vec<String>,
    pub(crate) requests: u64,
    pub(crate) tokens: Tokens,
}

fn summary(runs: &[&RunRecord]) -> ConfigSummary {
    let values =
        |f: &dyn Fn(&RunRecord) -> f64| -> Vec<f64> { runs.iter().map(|r| f(r)).collect() };
    let selection: Vec<&Expectation> = runs
        .iter()
        .flat_map(|r| r.expectations.iter())
        .filter(|e| is_selection(&e.text) && !e.graded)
        .collect();
    ConfigSummary {
        runs: runs.len() as u32,
        errors: runs.iter().filter(|r| r.error.is_some()).count() as u32,
        pass_rate: Stats::of(&values(&|r| f64::from(u8::from(r.pass)))),
        assertion_pass_rate: Stats::of(&values(&|r| r.result.pass_rate)),
        turns: Stats::of(&values(&|r| f64::from(r.turns))),
        tool_calls: Stats::of(&values(&|r| f64::from(r.result.tool_calls))),
        tokens: Stats::of(&values(&|r| r.result.tokens as f64)),
        time_seconds: Stats::of(&values(&|r| r.result.time_seconds)),
        selection_accuracy: (!selection.is_empty()).then(|| {
            round(selection.iter().filter(|e| e.passed).count() as f64 / selection.len() as f64)
        }),
    }
}

/// Whether a check's text is a selection check (`loaded ...`, `did not load ...`): the words
/// [`Check`](skills_bundle::Check)'s `Display` gives them.
fn is_selection(text: &str) -> bool {
    text.starts_with("loaded ") || text.starts_with("did not load ")
}

/// The assertions that passed in every run of both configurations (each configuration having
/// runs), by text.
fn non_discriminating(runs: &[&RunRecord]) -> Vec<String> {
    let mut texts: Vec<&str> = Vec::new();
    for run in runs {
        for expectation in &run.expectations {
            if !texts.contains(&expectation.text.as_str()) {
                texts.push(&expectation.text);
            }
        }
    }
    let both = Configuration::BOTH
        .iter()
        .all(|config| runs.iter().any(|r| r.configuration == *config));
    if !both {
        return Vec::new();
    }
    texts
        .into_iter()
        .filter(|text| {
            runs.iter().all(|run| {
                run.error.is_none() && run.expectations.iter().any(|e| e.text == *text && e.passed)
            })
        })
        .map(str::to_owned)
        .collect()
}

/// Whether the runs of some configuration disagree.
fn flaky(runs: &[&RunRecord]) -> bool {
    Configuration::BOTH.iter().any(|config| {
        let passes: BTreeSet<bool> = runs
            .iter()
            .filter(|r| r.configuration == *config)
            .map(|r| r.pass)
            .collect();
        passes.len() > 1
    })
}

impl TaskReport {
    /// The report of `runs` of `cases`.
    pub(crate) fn from_runs(
        cases: &[CaseInfo],
        mut runs: Vec<RunRecord>,
        totals: Totals,
        cached: u64,
    ) -> TaskReport {
        let position: BTreeMap<(&str, u64), usize> = cases
            .iter()
            .enumerate()
            .map(|(i, c)| ((c.skill.as_str(), c.id), i))
            .collect();
        runs.sort_by_key(|r| {
            (
                position
                    .get(&(r.skill.as_str(), r.eval_id))
                    .copied()
                    .unwrap_or(usize::MAX),
                r.configuration,
                r.run_number,
            )
        });
        let of_case = |case: &CaseInfo, config: Option<Configuration>| -> Vec<&RunRecord> {
            runs.iter()
                .filter(|r| r.skill == case.skill && r.eval_id == case.id)
                .filter(|r| config.is_none_or(|c| r.configuration == c))
                .collect()
        };
        let case_reports: Vec<CaseTaskReport> = cases
            .iter()
            .map(|case| {
                let with = summary(&of_case(case, Some(Configuration::WithSkill)));
                let without = summary(&of_case(case, Some(Configuration::WithoutSkill)));
                let all = of_case(case, None);
                CaseTaskReport {
                    skill: case.skill.clone(),
                    id: case.id,
                    index: case.index,
                    prompt: case.prompt.clone(),
                    expected_output: case.expected_output.clone(),
                    assertions: case.assertions.clone(),
                    delta: Delta::of(&with, &without),
                    non_discriminating: non_discriminating(&all),
                    flaky: flaky(&all),
                    pass: with.runs > 0 && with.errors == 0 && with.pass_rate.mean >= 0.5,
                    with_skill: with,
                    without_skill: without,
                }
            })
            .collect();
        let mut names: Vec<&str> = cases.iter().map(|c| c.skill.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let skills = names
            .iter()
            .map(|&name| {
                let of = |config: Configuration| -> Vec<&RunRecord> {
                    runs.iter()
                        .filter(|r| r.skill == name && r.configuration == config)
                        .collect()
                };
                let with = summary(&of(Configuration::WithSkill));
                let without = summary(&of(Configuration::WithoutSkill));
                let own: Vec<&CaseTaskReport> =
                    case_reports.iter().filter(|c| c.skill == name).collect();
                SkillTaskReport {
                    name: name.to_owned(),
                    cases: own.len() as u32,
                    delta: Delta::of(&with, &without),
                    with_skill: with,
                    without_skill: without,
                    non_discriminating: own
                        .iter()
                        .flat_map(|c| {
                            c.non_discriminating
                                .iter()
                                .map(move |text| format!("{}: {text}", c.id))
                        })
                        .collect(),
                    flaky: own.iter().filter(|c| c.flaky).map(|c| c.id).collect(),
                }
            })
            .collect();
        let benchmark = |config: Configuration| {
            let of: Vec<&RunRecord> = runs.iter().filter(|r| r.configuration == config).collect();
            let values =
                |f: &dyn Fn(&RunRecord) -> f64| -> Vec<f64> { of.iter().map(|r| f(r)).collect() };
            BenchmarkSummary {
                pass_rate: Stats::of(&values(&|r| r.result.pass_rate)),
                time_seconds: Stats::of(&values(&|r| r.result.time_seconds)),
                tokens: Stats::of(&values(&|r| r.result.tokens as f64)),
            }
        };
        let (with, without) = (
            benchmark(Configuration::WithSkill),
            benchmark(Configuration::WithoutSkill),
        );
        let run_summary = RunSummary {
            delta: BenchmarkDelta {
                pass_rate: round(with.pass_rate.mean - without.pass_rate.mean),
                time_seconds: round(with.time_seconds.mean - without.time_seconds.mean),
                tokens: round(with.tokens.mean - without.tokens.mean),
            },
            with_skill: with,
            without_skill: without,
        };
        TaskReport {
            kind: KIND.to_owned(),
            metadata: Metadata {
                skill_name: names.join(", "),
                executor_model: totals.model.clone(),
                evals_run: cases.iter().map(|c| c.id).collect(),
                runs_per_configuration: totals.runs,
            },
            provider: totals.provider,
            model: totals.model,
            grader: totals.grader,
            runs_per_configuration: totals.runs,
            baseline: totals.baseline,
            sandbox: totals.sandbox,
            shards: totals.shards,
            run_summary,
            skills,
            cases: case_reports,
            errors: runs.iter().filter(|r| r.error.is_some()).count() as u64,
            runs,
            requests: totals.requests,
            cached,
            tokens: totals.tokens,
            gates: None,
        }
    }

    /// The skill's numbers, if it has cases here.
    pub fn skill(&self, name: &str) -> Option<&SkillTaskReport> {
        self.skills.iter().find(|skill| skill.name == name)
    }

    /// The case's numbers.
    pub fn case(&self, skill: &str, id: u64) -> Option<&CaseTaskReport> {
        self.cases.iter().find(|c| c.skill == skill && c.id == id)
    }

    /// One report of the runs of `reports`, the shards of one eval (`--shard K/N`): the numbers
    /// recomputed from every run, the counts summed, gates left to check again. Fails when the
    /// reports are of different setups (provider, model, runs, baseline) or two hold the same
    /// run.
    pub fn merge(reports: Vec<TaskReport>) -> Result<TaskReport, String> {
        let Some(first) = reports.first() else {
            return Err("no report to merge".to_owned());
        };
        // A shard without string assertions names no grader; the others must agree on it.
        let setup = |r: &TaskReport| {
            (
                r.provider.clone(),
                r.model.clone(),
                r.runs_per_configuration,
                r.baseline.clone(),
            )
        };
        let expected = setup(first);
        let mut totals = Totals {
            provider: first.provider.clone(),
            model: first.model.clone(),
            grader: first.grader.clone(),
            runs: first.runs_per_configuration,
            baseline: first.baseline.clone(),
            sandbox: first.sandbox.clone(),
            ..Totals::default()
        };
        let mut cases: Vec<CaseInfo> = Vec::new();
        let mut runs: Vec<RunRecord> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut cached = 0;
        for report in reports {
            if report.kind != KIND {
                return Err(format!(
                    "a report of kind `{}` is not a task eval's",
                    report.kind
                ));
            }
            if setup(&report) != expected {
                return Err(format!(
                    "the reports are of different evals: {} {} ({} runs, baseline {}) and {} {} ({} runs, baseline {})",
                    expected.0,
                    expected.1,
                    expected.2,
                    expected.3,
                    report.provider,
                    report.model,
                    report.runs_per_configuration,
                    report.baseline
                ));
            }
            totals.requests += report.requests;
            totals.tokens.input += report.tokens.input;
            totals.tokens.output += report.tokens.output;
            totals.shards.extend(report.shards);
            cached += report.cached;
            for case in report.cases {
                if !cases
                    .iter()
                    .any(|c| c.skill == case.skill && c.id == case.id)
                {
                    cases.push(CaseInfo {
                        skill: case.skill,
                        id: case.id,
                        index: case.index,
                        prompt: case.prompt,
                        expected_output: case.expected_output,
                        assertions: case.assertions,
                    });
                }
            }
            for run in report.runs {
                let key = (
                    run.skill.clone(),
                    run.eval_id,
                    run.configuration,
                    run.run_number,
                );
                if !seen.insert(key.clone()) {
                    return Err(format!(
                        "two reports hold run {} of case {} of {} ({}): shards do not overlap",
                        key.3,
                        key.1,
                        key.0,
                        key.2.as_str()
                    ));
                }
                runs.push(run);
            }
        }
        // Cases in the order a whole run gives them: by skill name, then in file order.
        cases.sort_by(|a, b| a.skill.cmp(&b.skill).then(a.index.cmp(&b.index)));
        totals.shards.sort();
        totals.shards.dedup();
        Ok(TaskReport::from_runs(&cases, runs, totals, cached))
    }
}

/// The gates a task eval was held to and what failed them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskGateReport {
    /// [`TaskGates::min_pass_rate`](super::TaskGates::min_pass_rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_pass_rate: Option<f64>,
    /// [`TaskGates::min_uplift`](super::TaskGates::min_uplift).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_uplift: Option<f64>,
    /// The number of passing cases of the baseline, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_passed: Option<usize>,
    /// What failed; empty when the run passed them all.
    pub failures: Vec<TaskGateFailure>,
}

/// One failed gate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "gate", rename_all = "snake_case")]
pub enum TaskGateFailure {
    /// A skill's pass rate is under [`TaskGates::min_pass_rate`](super::TaskGates::min_pass_rate).
    MinPassRate {
        /// The skill.
        skill: String,
        /// Its pass rate with the skill.
        pass_rate: f64,
        /// The minimum.
        min: f64,
    },
    /// A skill's uplift is under [`TaskGates::min_uplift`](super::TaskGates::min_uplift).
    MinUplift {
        /// The skill.
        skill: String,
        /// Its uplift.
        uplift: f64,
        /// The minimum.
        min: f64,
    },
    /// A case passed in the baseline and fails now.
    Regressed {
        /// The skill.
        skill: String,
        /// The case's id.
        id: u64,
    },
}

impl fmt::Display for TaskGateFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskGateFailure::MinPassRate {
                skill,
                pass_rate,
                min,
            } => write!(
                f,
                "pass rate of {skill} is {pass_rate}, under the minimum {min}"
            ),
            TaskGateFailure::MinUplift { skill, uplift, min } => {
                write!(f, "uplift of {skill} is {uplift}, under the minimum {min}")
            }
            TaskGateFailure::Regressed { skill, id } => {
                write!(f, "{skill}: case {id} passed in the baseline and fails now")
            }
        }
    }
}

/// [`TaskReport::kind`].
pub(crate) const KIND: &str = "tasks";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_are_skill_creators() {
        let stats = Stats::of(&[1.0, 0.0, 1.0]);
        assert_eq!(stats.mean, 0.6667);
        assert_eq!(stats.stddev, 0.5774);
        assert_eq!((stats.min, stats.max), (0.0, 1.0));
        assert_eq!(Stats::of(&[2.5]).stddev, 0.0);
        assert_eq!(Stats::of(&[]), Stats::default());
    }
}
