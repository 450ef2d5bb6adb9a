//! [`run`]: every trigger case of an agent's skills, asked as the first turn of a fresh session,
//! a bounded number at a time, through the cache.

use std::fmt;
use std::path::PathBuf;

use futures_util::stream::{self, StreamExt};

use super::cache::{Answer, Cache, Key};
use super::error::EvalError;
use super::outcome::{Outcome, TriggerRule};
use super::report::{CaseOutcomes, Report, Tokens, Totals};
use crate::Agent;
use crate::error::AgentError;

/// The request limit of [`EvalOptions::default`]: enough for 50 skills of 20 cases at the
/// default 3 runs, not enough for a mistake to cost much.
pub const DEFAULT_MAX_REQUESTS: u64 = 3000;

/// How a trigger eval runs.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalOptions {
    /// Runs per case (default 3).
    pub runs: u32,
    /// The share of runs at which a case triggers its skill (default 0.5).
    pub threshold: f64,
    /// Offer only the skill under test, not the whole bundle (default `false`).
    pub isolated: bool,
    /// Requests in flight at once (default 4).
    pub concurrency: usize,
    /// The most requests the run may send; cached answers are free (default
    /// [`DEFAULT_MAX_REQUESTS`]; `None`: no limit).
    pub max_requests: Option<u64>,
    /// Where answers are kept between runs (default `None`: nowhere).
    pub cache_dir: Option<PathBuf>,
    /// The server the provider talks to (its base URL), part of the cache key: the same model
    /// name on another server is another model.
    pub endpoint: String,
    /// Which calls of the reply decide (default [`TriggerRule::FirstCall`]).
    pub rule: TriggerRule,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            runs: 3,
            threshold: 0.5,
            isolated: false,
            concurrency: 4,
            max_requests: Some(DEFAULT_MAX_REQUESTS),
            cache_dir: None,
            endpoint: String::new(),
            rule: TriggerRule::FirstCall,
        }
    }
}

/// One finished run of a case, as [`run`] reports it.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// Runs finished so far, this one included.
    pub done: usize,
    /// Runs in all.
    pub total: usize,
    /// The case's skill.
    pub skill: &'a str,
    /// The case's query.
    pub query: &'a str,
    /// Which run of the case (from 1).
    pub run: u32,
    /// What the model did.
    pub outcome: &'a Outcome,
    /// Whether the answer came from the cache.
    pub cached: bool,
}

/// `[12/96] code-review, run 2: "review my change" -> load_skill(code-review)`, escaped for a
/// terminal.
impl fmt::Display for Progress<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}/{}] {}, run {}: \"{}\" -> {}",
            self.done,
            self.total,
            crate::terminal_line(self.skill, 64),
            self.run,
            crate::terminal_line(self.query, 60),
            self.outcome
        )?;
        if self.cached {
            f.write_str(" (cached)")?;
        }
        Ok(())
    }
}

/// One case to ask: its skill, its query, and the agent whose catalog it is asked with.
struct Case {
    skill: &'static str,
    query: &'static str,
    should_trigger: bool,
    agent: usize,
}

/// One request: run `run` of case `case`.
struct Job {
    case: usize,
    run: u32,
    key: Key,
}

/// Asks every trigger case of `agent`'s skills (see [the module docs](super)), reporting each
/// finished run to `on_progress`, and returns the report (not yet held to any gate).
///
/// Fails before sending anything on bad options, a registry without trigger cases or a run
/// over [`EvalOptions::max_requests`]; stops at the first request that fails after the
/// provider's retries (authentication, transport, server). A malformed reply does not stop
/// it: it is an error in the report.
pub async fn run(
    agent: &Agent,
    options: &EvalOptions,
    mut on_progress: impl FnMut(&Progress<'_>),
) -> Result<Report, EvalError> {
    check(options)?;
    let registry = agent.skills();
    if !registry.trigger_cases_embedded() {
        return Err(EvalError::NotEmbedded);
    }
    let mut agents: Vec<Agent> = Vec::new();
    let mut cases = Vec::new();
    for skill in registry
        .iter()
        .filter(|skill| !skill.trigger_cases().is_empty())
    {
        if options.isolated {
            agents.push(agent.with_skills(registry.restrict([skill.name()]).map_err(
                // A name of the registry's own iteration is always there.
                |error| EvalError::Options(error.to_string()),
            )?)?);
        }
        let index = if options.isolated {
            agents.len() - 1
        } else {
            0
        };
        cases.extend(skill.trigger_cases().iter().map(|case| Case {
            skill: skill.name(),
            query: case.query,
            should_trigger: case.should_trigger,
            agent: index,
        }));
    }
    if cases.is_empty() {
        return Err(EvalError::NoCases);
    }
    let agent_of = |case: &Case| {
        if options.isolated {
            &agents[case.agent]
        } else {
            agent
        }
    };
    let cache = match &options.cache_dir {
        Some(dir) => Some(Cache::open(dir).map_err(|source| EvalError::Cache {
            path: dir.clone(),
            source,
        })?),
        None => None,
    };

    let total = cases.len() * options.runs as usize;
    let mut outcomes: Vec<Vec<Option<Outcome>>> =
        vec![vec![None; options.runs as usize]; cases.len()];
    let mut pending = Vec::new();
    let mut hits = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        for run in 0..options.runs {
            let key = Key::new(
                agent_of(case),
                &options.endpoint,
                case.query,
                run,
                options.rule,
            );
            match cache.as_ref().and_then(|cache| cache.get(&key)) {
                Some(answer) => hits.push((index, run, answer.outcome)),
                None => pending.push(Job {
                    case: index,
                    run,
                    key,
                }),
            }
        }
    }
    let needed = pending.len() as u64;
    if let Some(max) = options.max_requests
        && needed > max
    {
        return Err(EvalError::TooManyRequests {
            needed,
            max,
            cached: hits.len() as u64,
        });
    }

    let mut done = 0;
    let cached = hits.len() as u64;
    for (index, run, outcome) in hits {
        done += 1;
        let case = &cases[index];
        on_progress(&Progress {
            done,
            total,
            skill: case.skill,
            query: case.query,
            run: run + 1,
            outcome: &outcome,
            cached: true,
        });
        outcomes[index][run as usize] = Some(outcome);
    }
    let mut tokens = Tokens::default();
    let mut answers = stream::iter(pending)
        .map(|job| {
            let case = &cases[job.case];
            async move { (agent_of(case).first_reply(case.query).await, job) }
        })
        .buffer_unordered(options.concurrency);
    while let Some((reply, job)) = answers.next().await {
        let answer = match reply {
            Ok(response) => Answer::new(Outcome::by(&response.turn, options.rule), &response.usage),
            // A reply the provider could not read is the model's (or its server's) answer, an
            // error of this case; anything else stops the run.
            Err(AgentError::Api(error)) if error.is_malformed_response() => {
                Answer::new(Outcome::Error(error.to_string()), &crate::Usage::default())
            }
            Err(error) => return Err(EvalError::Agent(error)),
        };
        tokens.input += answer.input_tokens;
        tokens.output += answer.output_tokens;
        if let Some(cache) = &cache {
            cache.put(&job.key, &answer);
        }
        done += 1;
        let case = &cases[job.case];
        on_progress(&Progress {
            done,
            total,
            skill: case.skill,
            query: case.query,
            run: job.run + 1,
            outcome: &answer.outcome,
            cached: false,
        });
        outcomes[job.case][job.run as usize] = Some(answer.outcome);
    }
    drop(answers);

    let case_outcomes: Vec<CaseOutcomes<'_>> = cases
        .iter()
        .zip(outcomes)
        .map(|(case, runs)| CaseOutcomes {
            skill: case.skill,
            query: case.query,
            should_trigger: case.should_trigger,
            outcomes: runs.into_iter().flatten().collect(),
        })
        .collect();
    let names: Vec<&str> = registry.names().collect();
    let provider = agent.provider();
    Ok(Report::from_outcomes(
        &names,
        &case_outcomes,
        Totals {
            provider: provider.name().to_owned(),
            model: provider.model().to_owned(),
            runs: options.runs,
            threshold: options.threshold,
            isolated: options.isolated,
            rule: options.rule,
            requests: needed,
            cached,
            tokens,
        },
    ))
}

/// Refuses options no run can use.
fn check(options: &EvalOptions) -> Result<(), EvalError> {
    if options.runs == 0 {
        return Err(EvalError::Options("runs must be at least 1".into()));
    }
    if !(0.0..=1.0).contains(&options.threshold) {
        return Err(EvalError::Options(format!(
            "the threshold is a share of runs, from 0 to 1; {} is not",
            options.threshold
        )));
    }
    if options.concurrency == 0 {
        return Err(EvalError::Options("concurrency must be at least 1".into()));
    }
    Ok(())
}
