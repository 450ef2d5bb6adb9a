//! [`Gates`]: what fails a trigger eval (recall or precision under a minimum, a case that passed
//! in an earlier report and fails now), and the [`Verdict`] with its exit code. What failed is
//! recorded in the report ([`GateReport`]).

use std::collections::BTreeSet;

use serde::Deserialize;

use super::report::{GateFailure, GateReport, Report};

/// What a run must reach.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gates {
    /// Every skill with positive cases needs at least this recall.
    pub min_recall: Option<f64>,
    /// Every skill with cases that some run loaded needs at least this precision.
    pub min_precision: Option<f64>,
    /// Every case that passed in this earlier report must pass again.
    pub baseline: Option<Baseline>,
}

/// The cases of an earlier JSON report ([`Report`] serialized) that passed: what
/// [`Gates::baseline`] holds a run to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    passed: BTreeSet<(String, String)>,
}

impl Baseline {
    /// Reads an earlier report; only its cases' `skill`, `query` and `pass` are used, so a report
    /// of another version with more fields reads too.
    pub fn from_json(json: &str) -> Result<Baseline, serde_json::Error> {
        #[derive(Deserialize)]
        struct Earlier {
            cases: Vec<EarlierCase>,
        }
        #[derive(Deserialize)]
        struct EarlierCase {
            skill: String,
            query: String,
            pass: bool,
        }
        let earlier: Earlier = serde_json::from_str(json)?;
        Ok(Baseline {
            passed: earlier
                .cases
                .into_iter()
                .filter(|case| case.pass)
                .map(|case| (case.skill, case.query))
                .collect(),
        })
    }

    /// How many cases passed in it.
    pub fn len(&self) -> usize {
        self.passed.len()
    }

    /// Whether none did.
    pub fn is_empty(&self) -> bool {
        self.passed.is_empty()
    }
}

/// What a finished run means, for a person and for a CI job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every gate passed and no reply was an error.
    Pass,
    /// A gate failed.
    GateFailed,
    /// Some reply was an error: the numbers are incomplete.
    Errors,
}

impl Verdict {
    /// 0, 1 or 2: pass, a gate failed, an error (the code for usage, configuration and provider
    /// errors too).
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Pass => 0,
            Verdict::GateFailed => 1,
            Verdict::Errors => 2,
        }
    }
}

impl Report {
    /// Holds the report to `gates`, recording what was checked and what failed in
    /// [`Report::gates`] (left `None` when `gates` sets none); returns the failures.
    pub fn check(&mut self, gates: &Gates) -> &[GateFailure] {
        if *gates == Gates::default() {
            self.gates = None;
            return &[];
        }
        let mut failures = Vec::new();
        for skill in &self.skills {
            if let (Some(min), Some(recall)) = (gates.min_recall, skill.recall)
                && recall < min
            {
                failures.push(GateFailure::MinRecall {
                    skill: skill.name.clone(),
                    recall,
                    min,
                });
            }
            let has_cases = skill.positives + skill.negatives > 0;
            if let (Some(min), Some(precision), true) =
                (gates.min_precision, skill.precision, has_cases)
                && precision < min
            {
                failures.push(GateFailure::MinPrecision {
                    skill: skill.name.clone(),
                    precision,
                    min,
                });
            }
        }
        if let Some(baseline) = &gates.baseline {
            for case in self.cases.iter().filter(|case| !case.pass) {
                if baseline
                    .passed
                    .contains(&(case.skill.clone(), case.query.clone()))
                {
                    failures.push(GateFailure::Regressed {
                        skill: case.skill.clone(),
                        query: case.query.clone(),
                    });
                }
            }
        }
        let report = self.gates.insert(GateReport {
            min_recall: gates.min_recall,
            min_precision: gates.min_precision,
            baseline_passed: gates.baseline.as_ref().map(Baseline::len),
            failures,
        });
        &report.failures
    }

    /// Errors first (the numbers are incomplete), then the gates [`check`](Self::check)
    /// recorded.
    pub fn verdict(&self) -> Verdict {
        if self.errors > 0 {
            Verdict::Errors
        } else if self.gates.as_ref().is_some_and(|g| !g.failures.is_empty()) {
            Verdict::GateFailed
        } else {
            Verdict::Pass
        }
    }
}
