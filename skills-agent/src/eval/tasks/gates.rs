//! [`TaskGates`]: what fails a task eval (a skill's pass rate or uplift under a minimum, a case
//! that passed in an earlier report and fails now), and its verdict. What failed is recorded in
//! the report ([`TaskGateReport`]).

use std::collections::BTreeSet;

use serde::Deserialize;

use super::report::{TaskGateFailure, TaskGateReport, TaskReport};
use crate::eval::Verdict;

/// What a task eval must reach.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskGates {
    /// Every skill with cases needs at least this pass rate with the skill (the mean, over its
    /// runs, of "every assertion passed").
    pub min_pass_rate: Option<f64>,
    /// Every skill with cases needs at least this uplift: its pass rate with the skill minus
    /// the baseline's.
    pub min_uplift: Option<f64>,
    /// Every case that passed in this earlier report must pass again.
    pub baseline: Option<TaskBaseline>,
}

/// The cases of an earlier JSON task report that passed: what [`TaskGates::baseline`] holds a
/// run to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskBaseline {
    passed: BTreeSet<(String, u64)>,
}

impl TaskBaseline {
    /// Reads an earlier report; only its cases' `skill`, `id` and `pass` are used.
    pub fn from_json(json: &str) -> Result<TaskBaseline, serde_json::Error> {
        #[derive(Deserialize)]
        struct Earlier {
            cases: Vec<EarlierCase>,
        }
        #[derive(Deserialize)]
        struct EarlierCase {
            skill: String,
            id: u64,
            pass: bool,
        }
        let earlier: Earlier = serde_json::from_str(json)?;
        Ok(TaskBaseline {
            passed: earlier
                .cases
                .into_iter()
                .filter(|case| case.pass)
                .map(|case| (case.skill, case.id))
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

impl TaskReport {
    /// Holds the report to `gates`, recording what was checked and what failed in
    /// [`TaskReport::gates`] (left `None` when `gates` sets none); returns the failures.
    pub fn check(&mut self, gates: &TaskGates) -> &[TaskGateFailure] {
        if *gates == TaskGates::default() {
            self.gates = None;
            return &[];
        }
        let mut failures = Vec::new();
        for skill in &self.skills {
            let pass_rate = skill.with_skill.pass_rate.mean;
            if let Some(min) = gates.min_pass_rate
                && pass_rate < min
            {
                failures.push(TaskGateFailure::MinPassRate {
                    skill: skill.name.clone(),
                    pass_rate,
                    min,
                });
            }
            if let Some(min) = gates.min_uplift
                && skill.delta.pass_rate < min
            {
                failures.push(TaskGateFailure::MinUplift {
                    skill: skill.name.clone(),
                    uplift: skill.delta.pass_rate,
                    min,
                });
            }
        }
        if let Some(baseline) = &gates.baseline {
            for case in self.cases.iter().filter(|case| !case.pass) {
                if baseline.passed.contains(&(case.skill.clone(), case.id)) {
                    failures.push(TaskGateFailure::Regressed {
                        skill: case.skill.clone(),
                        id: case.id,
                    });
                }
            }
        }
        let report = self.gates.insert(TaskGateReport {
            min_pass_rate: gates.min_pass_rate,
            min_uplift: gates.min_uplift,
            baseline_passed: gates.baseline.as_ref().map(TaskBaseline::len),
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
