//! [`Report`]: the numbers of a trigger eval, computed from the outcome of every run, in the
//! shape the JSON report has.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::outcome::Outcome;

/// The key of [`CaseReport::loaded`] for runs that loaded no skill.
pub(crate) const NO_SKILL: &str = "none";

/// What a trigger eval found. Fractions are between 0 and 1, rounded to 4 places.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The provider's name (`anthropic`, `openai`, ...).
    pub provider: String,
    /// The model asked.
    pub model: String,
    /// Runs per case.
    pub runs: u32,
    /// The share of runs at which a case triggers its skill.
    pub threshold: f64,
    /// Whether each skill was offered alone.
    pub isolated: bool,
    /// Which calls of the reply decided.
    #[serde(default)]
    pub rule: super::outcome::TriggerRule,
    /// Per skill with cases (and any other skill some run loaded), in name order.
    pub skills: Vec<SkillReport>,
    /// Per case, skill after skill, in file order.
    pub cases: Vec<CaseReport>,
    /// Model requests sent by this run.
    pub requests: u64,
    /// Answers taken from the cache instead.
    pub cached: u64,
    /// Runs whose reply was an error.
    pub errors: u64,
    /// Tokens of the requests sent by this run.
    pub tokens: Tokens,
    /// The gates checked, once [`Report::check`](Self::check) ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gates: Option<GateReport>,
}

/// Tokens summed over requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
}

/// One skill's numbers (see [the module docs](super) for each).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillReport {
    /// The skill.
    pub name: String,
    /// Its cases that should trigger it.
    pub positives: u32,
    /// Its cases that should not.
    pub negatives: u32,
    /// Share of its positive cases that trigger it; `None` without positive cases.
    pub recall: Option<f64>,
    /// Share of the runs that loaded it in which a positive case of its own asked; `None`
    /// when no run loaded it.
    pub precision: Option<f64>,
    /// Share of its negative cases that trigger it; `None` without negative cases.
    pub false_trigger_rate: Option<f64>,
    /// Its positive cases whose most loaded outcome was another skill, by that skill.
    pub confused_with: BTreeMap<String, u32>,
}

/// One case's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    /// The skill whose case it is.
    pub skill: String,
    /// The query.
    pub query: String,
    /// Whether it should load the skill.
    pub should_trigger: bool,
    /// Share of its answered runs that loaded the skill.
    pub trigger_rate: f64,
    /// Runs by what they loaded: a skill's name, or `none`.
    pub loaded: BTreeMap<String, u32>,
    /// Runs whose reply was an error.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub errors: u32,
    /// The first of those errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether it did what it should, with no error.
    pub pass: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Rounded to 4 places, as reports show fractions.
fn fraction(part: u32, whole: u32) -> Option<f64> {
    (whole > 0).then(|| (f64::from(part) / f64::from(whole) * 10_000.0).round() / 10_000.0)
}

/// Whether the runs counted in `loaded` (errors left out) load `skill` at least at
/// `threshold`. The exact share decides, not the rounded one a report shows.
fn triggers(loaded: &BTreeMap<String, u32>, skill: &str, threshold: f64) -> bool {
    let answered: u32 = loaded.values().sum();
    let count = loaded.get(skill).copied().unwrap_or(0);
    answered > 0 && f64::from(count) >= threshold * f64::from(answered)
}

/// The outcomes of one case, as [`Report::from_outcomes`] takes them.
pub(crate) struct CaseOutcomes<'a> {
    pub(crate) skill: &'a str,
    pub(crate) query: &'a str,
    pub(crate) should_trigger: bool,
    pub(crate) outcomes: Vec<Outcome>,
}

/// What the runner counted besides the outcomes.
pub(crate) struct Totals {
    pub(crate) provider: String,
    pub(crate) model: String,
    pub(crate) runs: u32,
    pub(crate) threshold: f64,
    pub(crate) isolated: bool,
    pub(crate) rule: super::outcome::TriggerRule,
    pub(crate) requests: u64,
    pub(crate) cached: u64,
    pub(crate) tokens: Tokens,
}

impl CaseReport {
    fn new(case: &CaseOutcomes<'_>, threshold: f64) -> CaseReport {
        let mut loaded = BTreeMap::new();
        let mut errors = 0;
        let mut error = None;
        for outcome in &case.outcomes {
            let key = match outcome {
                Outcome::Loaded(name) => name.as_str(),
                Outcome::NoSkill(_) => NO_SKILL,
                Outcome::Error(message) => {
                    errors += 1;
                    error.get_or_insert_with(|| message.clone());
                    continue;
                }
            };
            *loaded.entry(key.to_owned()).or_insert(0) += 1;
        }
        let answered = case.outcomes.len() as u32 - errors;
        let own = loaded.get(case.skill).copied().unwrap_or(0);
        let triggered = triggers(&loaded, case.skill, threshold);
        CaseReport {
            skill: case.skill.to_owned(),
            query: case.query.to_owned(),
            should_trigger: case.should_trigger,
            trigger_rate: fraction(own, answered).unwrap_or(0.0),
            loaded,
            errors,
            error,
            pass: errors == 0 && triggered == case.should_trigger,
        }
    }

    /// The outcome with the most runs: a tie goes to the case's own skill, then to no skill,
    /// then to the first name.
    fn most_loaded(&self) -> Option<&str> {
        let rank = |name: &str| (name != self.skill, name != NO_SKILL);
        self.loaded
            .iter()
            .max_by(|(a, x), (b, y)| x.cmp(y).then_with(|| rank(b).cmp(&rank(a))).then(b.cmp(a)))
            .map(|(name, _)| name.as_str())
    }
}

impl Report {
    /// The report of `cases`; `skills` are the names of the registry, in order.
    pub(crate) fn from_outcomes(
        skills: &[&str],
        cases: &[CaseOutcomes<'_>],
        totals: Totals,
    ) -> Report {
        let case_reports: Vec<CaseReport> = cases
            .iter()
            .map(|case| CaseReport::new(case, totals.threshold))
            .collect();
        let skill_reports = skills
            .iter()
            .filter_map(|&name| SkillReport::new(name, &case_reports, totals.threshold))
            .collect();
        Report {
            provider: totals.provider,
            model: totals.model,
            runs: totals.runs,
            threshold: totals.threshold,
            isolated: totals.isolated,
            rule: totals.rule,
            skills: skill_reports,
            errors: case_reports.iter().map(|c| u64::from(c.errors)).sum(),
            cases: case_reports,
            requests: totals.requests,
            cached: totals.cached,
            tokens: totals.tokens,
            gates: None,
        }
    }

    /// The skill's numbers, if it has any.
    pub fn skill(&self, name: &str) -> Option<&SkillReport> {
        self.skills.iter().find(|skill| skill.name == name)
    }
}

impl SkillReport {
    /// The numbers of skill `name`, or `None` when it has no case and no run loaded it.
    fn new(name: &str, reports: &[CaseReport], threshold: f64) -> Option<SkillReport> {
        let own: Vec<&CaseReport> = reports.iter().filter(|c| c.skill == name).collect();
        let loads: u32 = reports.iter().filter_map(|c| c.loaded.get(name)).sum();
        if own.is_empty() && loads == 0 {
            return None;
        }
        let positives: Vec<&&CaseReport> = own.iter().filter(|c| c.should_trigger).collect();
        let negatives: Vec<&&CaseReport> = own.iter().filter(|c| !c.should_trigger).collect();
        let triggered = |case: &CaseReport| triggers(&case.loaded, name, threshold);
        let expected: u32 = positives.iter().filter_map(|c| c.loaded.get(name)).sum();
        let mut confused_with = BTreeMap::new();
        for case in &positives {
            if let Some(other) = case.most_loaded().filter(|&m| m != name && m != NO_SKILL) {
                *confused_with.entry(other.to_owned()).or_insert(0) += 1;
            }
        }
        Some(SkillReport {
            name: name.to_owned(),
            positives: positives.len() as u32,
            negatives: negatives.len() as u32,
            recall: fraction(
                positives.iter().filter(|c| triggered(c)).count() as u32,
                positives.len() as u32,
            ),
            precision: fraction(expected, loads),
            false_trigger_rate: fraction(
                negatives.iter().filter(|c| triggered(c)).count() as u32,
                negatives.len() as u32,
            ),
            confused_with,
        })
    }
}

/// The gates a run was held to and what failed them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    /// [`Gates::min_recall`](super::Gates::min_recall).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_recall: Option<f64>,
    /// [`Gates::min_precision`](super::Gates::min_precision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_precision: Option<f64>,
    /// The number of passing cases of the baseline, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_passed: Option<usize>,
    /// What failed; empty when the run passed them all.
    pub failures: Vec<GateFailure>,
}

/// One failed gate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "gate", rename_all = "snake_case")]
pub enum GateFailure {
    /// A skill's recall is under [`Gates::min_recall`](super::Gates::min_recall).
    MinRecall {
        /// The skill.
        skill: String,
        /// Its recall.
        recall: f64,
        /// The minimum.
        min: f64,
    },
    /// A skill's precision is under [`Gates::min_precision`](super::Gates::min_precision).
    MinPrecision {
        /// The skill.
        skill: String,
        /// Its precision.
        precision: f64,
        /// The minimum.
        min: f64,
    },
    /// A case passed in the baseline and fails now.
    Regressed {
        /// The skill.
        skill: String,
        /// The query.
        query: String,
    },
}

impl fmt::Display for GateFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GateFailure::MinRecall { skill, recall, min } => {
                write!(f, "recall of {skill} is {recall}, under the minimum {min}")
            }
            GateFailure::MinPrecision {
                skill,
                precision,
                min,
            } => write!(
                f,
                "precision of {skill} is {precision}, under the minimum {min}"
            ),
            GateFailure::Regressed { skill, query } => write!(
                f,
                "{skill}: {:?} passed in the baseline and fails now",
                crate::terminal_line(query, 100)
            ),
        }
    }
}
