//! [`run`]: every task case of an agent's skills, in both configurations, a bounded number of
//! runs at a time, each in a fresh working directory, through the cache.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use futures_util::stream::{self, StreamExt};
use serde::{Deserialize, Serialize};
use sha2::Digest;
use skills_bundle::{Assertion, Registry, Skill, TaskCase};

use super::checks::{self, RunFacts};
use super::grader::{self, Material};
use super::metered::Metered;
use super::options::{Comparison, TaskOptions};
use super::report::{
    CaseInfo, Configuration, Expectation, RunRecord, RunResult, TaskReport, Totals, TranscriptEntry,
};
use super::workdir::Workdir;
use crate::Agent;
use crate::conversation::{Conversation, Message};
use crate::error::AgentError;
use crate::eval::EvalError;
use crate::eval::Tokens;
use crate::eval::cache::{Cache, Key};
use crate::permission::PermissionPolicy;
use crate::provider::api::Provider;
use crate::tools::{Bash, BashOptions, LOAD_SKILL, ToolContext};

/// Changes whenever what a cache file holds, or what the key covers, changes.
const FORMAT: &str = "skills task-eval cache 1";

/// Largest cache file read: a run with its transcript.
const MAX_ENTRY_BYTES: u64 = 16 * 1024 * 1024;

/// Characters kept of each transcript entry.
const MAX_ENTRY_TEXT: usize = 4000;

/// One finished run, as [`run`] reports it.
#[derive(Clone, Copy, Debug)]
pub struct TaskProgress<'a> {
    /// Runs finished so far, this one included.
    pub done: usize,
    /// Runs in all.
    pub total: usize,
    /// The case's skill.
    pub skill: &'a str,
    /// The case's id.
    pub id: u64,
    /// The configuration.
    pub configuration: Configuration,
    /// Which run (from 1).
    pub run: u32,
    /// Whether every assertion passed.
    pub pass: bool,
    /// Why it stopped early, or what went wrong.
    pub note: Option<&'a str>,
    /// Whether it came from the cache.
    pub cached: bool,
}

/// `[3/36] write-tests #1 with_skill, run 2: pass (cached)`, escaped for a terminal.
impl fmt::Display for TaskProgress<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}/{}] {} #{} {}, run {}: {}",
            self.done,
            self.total,
            crate::terminal_line(self.skill, 64),
            self.id,
            self.configuration.as_str(),
            self.run,
            if self.pass { "pass" } else { "FAIL" }
        )?;
        if let Some(note) = self.note {
            write!(f, " ({})", crate::terminal_line(note, 200))?;
        }
        if self.cached {
            f.write_str(" (cached)")?;
        }
        Ok(())
    }
}

/// One case to run, with the registries of its two configurations.
struct Planned {
    skill: &'static Skill,
    case: TaskCase,
    index: u32,
    registries: [Registry; 2],
}

/// One run to make.
struct Job {
    case: usize,
    configuration: Configuration,
    run: u32,
    key: Key,
}

/// A run as the cache keeps it: the record and the skills it loaded, each with the digest of
/// its files (a later eval reuses the run only while they are the same).
#[derive(Serialize, Deserialize)]
struct Entry {
    loaded: Vec<(String, String)>,
    record: RunRecord,
}

/// What one run cost besides its record.
struct Spent {
    requests: u64,
    tokens: Tokens,
    loaded: Vec<(String, String)>,
}

/// What every run of an eval shares.
struct Shared<'a> {
    agent: &'a Agent,
    options: &'a TaskOptions,
    grader: Arc<dyn Provider>,
}

/// Runs every task case of `agent`'s skills (see [the module docs](super)) with and without
/// the skill, reporting each finished run to `on_progress`, and returns the report (not yet
/// held to any gate).
///
/// Fails before sending anything on bad options, a registry without its cases compiled in, no
/// case at all, `bash` unconfined without [`TaskOptions::allow_unconfined`], or an eval over
/// [`TaskOptions::max_requests`]; stops at the first request that fails after the provider's
/// retries. A reply that cannot be read (the agent's or the grader's) does not stop it: that
/// run is an error in the report, never a pass.
pub async fn run(
    agent: &Agent,
    options: &TaskOptions,
    mut on_progress: impl FnMut(&TaskProgress<'_>),
) -> Result<TaskReport, EvalError> {
    check(options)?;
    let registry = agent.skills();
    if !registry.trigger_cases_embedded() {
        return Err(EvalError::NotEmbedded);
    }
    let sandbox = confinement(options)?;
    let mut all = Vec::new();
    for skill in registry.iter() {
        for (index, case) in skill.task_cases().into_iter().enumerate() {
            all.push((skill, case, index as u32));
        }
    }
    if all.is_empty() {
        return Err(EvalError::NoTaskCases);
    }
    let mut planned = Vec::new();
    for (position, (skill, case, index)) in all.into_iter().enumerate() {
        if options.shard.is_some_and(|shard| !shard.holds(position)) {
            continue;
        }
        planned.push(Planned {
            registries: registries(registry, skill.name(), &options.comparison)?,
            skill,
            case,
            index,
        });
    }
    let grader = options
        .grader
        .clone()
        .unwrap_or_else(|| agent.settings.provider.clone());
    let shared = Shared {
        agent,
        options,
        grader,
    };
    let cache = match &options.cache_dir {
        Some(dir) => Some(Cache::open(dir).map_err(|source| EvalError::Cache {
            path: dir.clone(),
            source,
        })?),
        None => None,
    };

    let mut records = Vec::new();
    let mut pending = Vec::new();
    let mut needed = 0u64;
    for (index, planned_case) in planned.iter().enumerate() {
        for (slot, configuration) in Configuration::BOTH.into_iter().enumerate() {
            let template = shared.template(&planned_case.registries[slot])?;
            for run in 0..options.runs {
                let key = key(&shared, &template, planned_case, configuration, run);
                let hit = cache
                    .as_ref()
                    .and_then(|cache| cache.read::<Entry>(&key, MAX_ENTRY_BYTES))
                    .filter(|entry| still_valid(entry, &planned_case.registries[slot]));
                match hit {
                    Some(entry) => records.push(RunRecord {
                        cached: true,
                        ..entry.record
                    }),
                    None => {
                        needed +=
                            u64::from(options.max_turns) + u64::from(graded(&planned_case.case));
                        pending.push(Job {
                            case: index,
                            configuration,
                            run,
                            key,
                        });
                    }
                }
            }
        }
    }
    if let Some(max) = options.max_requests
        && needed > max
    {
        return Err(EvalError::TooManyRequests {
            needed,
            max,
            cached: records.len() as u64,
        });
    }

    let total = records.len() + pending.len();
    let cached = records.len() as u64;
    let mut done = 0;
    for record in &records {
        done += 1;
        on_progress(&progress(record, done, total));
    }
    let mut requests = 0;
    let mut tokens = Tokens::default();
    let mut finished = stream::iter(pending)
        .map(|job| {
            let shared = &shared;
            let planned = &planned;
            async move {
                let outcome = shared.execute(&planned[job.case], &job).await;
                (outcome, job)
            }
        })
        .buffer_unordered(options.concurrency);
    while let Some((outcome, job)) = finished.next().await {
        let (record, spent) = outcome?;
        requests += spent.requests;
        tokens.input += spent.tokens.input;
        tokens.output += spent.tokens.output;
        if let Some(cache) = &cache
            && record.error.is_none()
        {
            cache.write(
                &job.key,
                &Entry {
                    loaded: spent.loaded,
                    record: record.clone(),
                },
            );
        }
        done += 1;
        on_progress(&progress(&record, done, total));
        records.push(record);
    }
    drop(finished);

    let cases: Vec<CaseInfo> = planned
        .iter()
        .map(|p| CaseInfo {
            skill: p.skill.name().to_owned(),
            id: p.case.id,
            index: p.index,
            prompt: p.case.prompt.clone(),
            expected_output: p.case.expected_output.clone(),
            assertions: ordered(&p.case).iter().map(ToString::to_string).collect(),
        })
        .collect();
    let any_graded = planned.iter().any(|p| graded(&p.case));
    let provider = agent.provider();
    Ok(TaskReport::from_runs(
        &cases,
        records,
        Totals {
            provider: provider.name().to_owned(),
            model: provider.model().to_owned(),
            grader: any_graded
                .then(|| format!("{}/{}", shared.grader.name(), shared.grader.model())),
            runs: options.runs,
            baseline: options.comparison.label(),
            sandbox,
            shards: options.shard.iter().map(ToString::to_string).collect(),
            requests,
            tokens,
        },
        cached,
    ))
}

/// The line [`run`] reports for `record`.
fn progress(record: &RunRecord, done: usize, total: usize) -> TaskProgress<'_> {
    TaskProgress {
        done,
        total,
        skill: &record.skill,
        id: record.eval_id,
        configuration: record.configuration,
        run: record.run_number,
        pass: record.pass,
        note: record.error.as_deref().or(record.stopped.as_deref()),
        cached: record.cached,
    }
}

/// Refuses options no eval can use.
fn check(options: &TaskOptions) -> Result<(), EvalError> {
    if options.runs == 0 {
        return Err(EvalError::Options("runs must be at least 1".into()));
    }
    if options.concurrency == 0 {
        return Err(EvalError::Options("concurrency must be at least 1".into()));
    }
    if options.max_turns == 0 {
        return Err(EvalError::Options("max turns must be at least 1".into()));
    }
    Ok(())
}

/// What `bash` will run in, for the report; an error when it would run unconfined and that was
/// not allowed, or when the sandbox cannot be built.
fn confinement(options: &TaskOptions) -> Result<String, EvalError> {
    match options.bash.sandbox.probe() {
        Ok(Some(confinement)) => Ok(confinement.to_string()),
        Ok(None) if options.allow_unconfined => {
            Ok("UNCONFINED: bash ran with the user's rights (allowed explicitly)".to_owned())
        }
        Ok(None) => Err(EvalError::Unconfined),
        Err(error) => Err(EvalError::Sandbox(error)),
    }
}

/// The registries of a case of `skill`: the bundle, and its baseline.
fn registries(
    registry: &Registry,
    skill: &str,
    comparison: &Comparison,
) -> Result<[Registry; 2], EvalError> {
    let options = |error: skills_bundle::UnknownSkill| EvalError::Options(error.to_string());
    let without = registry
        .restrict(registry.names().filter(|name| *name != skill))
        .map_err(options)?;
    let baseline = match comparison {
        Comparison::Previous { skills, .. } if skills.get(skill).is_some() => {
            let previous = skills.restrict([skill]).map_err(options)?;
            Registry::compose([&without, &previous])
                .map_err(|error| EvalError::Options(error.to_string()))?
        }
        _ => without,
    };
    Ok([registry.clone(), baseline])
}

/// Whether the case has an assertion for the grader.
fn graded(case: &TaskCase) -> bool {
    case.assertions
        .iter()
        .any(|a| matches!(a, Assertion::Graded(_)))
}

/// The case's assertions as a run reports them: the checks first, then the graded ones.
fn ordered(case: &TaskCase) -> Vec<&Assertion> {
    let checks = case
        .assertions
        .iter()
        .filter(|a| matches!(a, Assertion::Check(_)));
    let graded = case
        .assertions
        .iter()
        .filter(|a| matches!(a, Assertion::Graded(_)));
    checks.chain(graded).collect()
}

/// The digest of a skill as `load_skill` and `read_skill_resource` serve it: its `SKILL.md`
/// and every file beside it.
fn digest(skill: &Skill) -> String {
    let mut parts = vec![skill.sha256().to_owned()];
    for (i, resource) in skill.resources().iter().enumerate() {
        parts.push(resource.path().to_owned());
        parts.push(skills_bundle::__private::resource_sha256(skill, i).to_owned());
    }
    Key::of(&parts).hex().to_owned()
}

/// Whether a cached run still stands: every skill it loaded is served the same now.
fn still_valid(entry: &Entry, registry: &Registry) -> bool {
    entry.loaded.iter().all(|(name, recorded)| {
        registry
            .get(name)
            .is_some_and(|skill| digest(skill) == *recorded)
    })
}

/// The key of one run: everything its first request and its checks depend on. The skills it
/// loads are checked apart ([`still_valid`]), so editing a skill's body re-runs only the runs
/// that loaded it.
fn key(
    shared: &Shared<'_>,
    template: &Agent,
    planned: &Planned,
    configuration: Configuration,
    run: u32,
) -> Key {
    let options = shared.options;
    let case = &planned.case;
    let mut parts = vec![FORMAT.to_owned()];
    parts.extend(Key::request_parts(template, &options.endpoint));
    parts.push(case.prompt.clone());
    parts.push(case.expected_output.clone());
    parts.push(
        ordered(case)
            .iter()
            .map(|a| format!("{a:?}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    for fixture in &case.files {
        parts.push(format!("{fixture:?}"));
        let bytes = planned.skill.task_file(fixture).unwrap_or_default();
        let digest = sha2::Sha256::digest(bytes);
        parts.push(digest.iter().map(|byte| format!("{byte:02x}")).collect());
    }
    parts.push(format!(
        "{} {} {} {:?} {}",
        options.max_turns,
        options.max_tokens,
        options.timeout.as_millis(),
        options.bash.sandbox.mode,
        case.network
    ));
    if graded(case) {
        parts.push(shared.grader.name().to_owned());
        parts.push(shared.grader.model().to_owned());
        parts.push(options.grader_endpoint.clone());
    }
    parts.push(configuration.as_str().to_owned());
    parts.push(run.to_string());
    Key::of(&parts)
}

impl Shared<'_> {
    /// The agent a configuration's runs use, but in the agent's own working directory: what the
    /// cache key reads (its system prompt and tools).
    fn template(&self, registry: &Registry) -> Result<Agent, EvalError> {
        Ok(self.agent.for_task(
            registry.clone(),
            self.agent.workdir(),
            self.agent.settings.provider.clone(),
            Some(self.options.bash.clone()),
            PermissionPolicy::new(),
            self.options.max_turns,
        )?)
    }

    /// One run: a fresh working directory with the case's files, the agent's loop on the prompt,
    /// the checks, the grader.
    async fn execute(&self, planned: &Planned, job: &Job) -> Result<(RunRecord, Spent), EvalError> {
        let options = self.options;
        let case = &planned.case;
        let registry = match job.configuration {
            Configuration::WithSkill => &planned.registries[0],
            Configuration::WithoutSkill => &planned.registries[1],
        };
        let files: Vec<(&str, &[u8], bool)> = case
            .files
            .iter()
            .map(|f| {
                let bytes = planned.skill.task_file(f).unwrap_or_default();
                (f.path.as_str(), bytes, f.executable)
            })
            .collect();
        let workdir = Workdir::new(files).map_err(EvalError::Workdir)?;
        let mut bash_options: BashOptions = options.bash.clone();
        bash_options.sandbox.allow_network = case.network;
        let metered = Arc::new(Metered::new(
            self.agent.settings.provider.clone(),
            options.max_tokens,
        ));
        // Approvals inside the sandbox only: `bash` runs in it, the file tools beneath the
        // working directory; a tool of the agent's own that asks is refused.
        let approve: crate::Approver =
            Arc::new(|call| matches!(call.name.as_str(), "bash" | "write_file" | "edit_file"));
        let agent = self.agent.for_task(
            registry.clone(),
            workdir.path(),
            metered.clone(),
            Some(bash_options.clone()),
            PermissionPolicy::new().with_approver(approve),
            options.max_turns,
        )?;
        let mut session = agent.session();
        let started = Instant::now();
        let outcome =
            tokio::time::timeout(options.timeout, agent.run(&mut session, &case.prompt)).await;
        let time_seconds = started.elapsed().as_secs_f64();
        let (mut stopped, mut error, mut answer) = (None, None, String::new());
        match outcome {
            Ok(Ok(output)) => answer = output.text,
            Ok(Err(AgentError::TurnLimit { max_turns, .. })) => {
                stopped = Some(format!("stopped at the turn limit of {max_turns}"));
            }
            Ok(Err(AgentError::Api(_))) if metered.budget_spent() => {
                stopped = Some(format!(
                    "stopped at the token budget of {}",
                    options.max_tokens
                ));
            }
            Ok(Err(AgentError::Api(api))) if api.is_malformed_response() => {
                error = Some(api.to_string());
            }
            Ok(Err(AgentError::ContextOverflow(overflow))) => {
                stopped = Some(format!("stopped: {overflow}"));
            }
            Ok(Err(other)) => return Err(EvalError::Agent(other)),
            Err(_) => {
                stopped = Some(format!(
                    "stopped at the time limit of {} s",
                    options.timeout.as_secs()
                ));
            }
        }
        let conversation = session.conversation();
        if answer.is_empty()
            && let Some(last) = conversation.last_assistant()
        {
            answer = last.text.clone();
        }
        let skills_loaded = loaded_skills(conversation);
        let tool_calls: usize = conversation
            .messages()
            .iter()
            .map(|m| match m {
                Message::ToolResults(results) => results.len(),
                _ => 0,
            })
            .sum();
        let (input, output) = metered.tokens();
        let turns = metered.requests() as u32;
        let mut expectations = Vec::new();
        let context = ToolContext::new(workdir.path()).map_err(EvalError::Workdir)?;
        let bash = Bash::new(bash_options);
        let facts = RunFacts {
            answer: &answer,
            skills_loaded: &skills_loaded,
            turns,
            tokens: input + output,
        };
        for assertion in &case.assertions {
            if let Assertion::Check(check) = assertion {
                expectations.push(checks::run(check, &facts, &context, &bash).await);
            }
        }
        let transcript = transcript(conversation);
        let changed_files = workdir.changes();
        let mut spent = Spent {
            requests: metered.requests(),
            tokens: Tokens { input, output },
            loaded: skills_loaded
                .iter()
                .filter_map(|name| Some((name.clone(), digest(registry.get(name)?))))
                .collect(),
        };
        let graded: Vec<&str> = case
            .assertions
            .iter()
            .filter_map(|a| match a {
                Assertion::Graded(text) => Some(text.as_str()),
                Assertion::Check(_) => None,
            })
            .collect();
        if !graded.is_empty() {
            let material = Material {
                prompt: &case.prompt,
                expected_output: &case.expected_output,
                transcript: &transcript,
                answer: &answer,
                changed_files: &changed_files,
            };
            let (grades, usage) = grader::grade(&*self.grader, &material, &graded).await;
            spent.requests += 1;
            spent.tokens.input += usage.input_tokens;
            spent.tokens.output += usage.output_tokens;
            match grades {
                Ok(grades) => expectations.extend(grades),
                Err(message) => {
                    expectations.extend(graded.iter().map(|text| Expectation {
                        text: (*text).to_owned(),
                        passed: false,
                        evidence: message.clone(),
                        graded: true,
                    }));
                    error.get_or_insert(message);
                }
            }
        }
        let passed = expectations.iter().filter(|e| e.passed).count() as u32;
        let total = expectations.len() as u32;
        let finished = stopped.is_none() && error.is_none();
        let pass = finished && passed == total;
        let pass_rate = if total == 0 {
            f64::from(u8::from(finished))
        } else {
            super::report::round(f64::from(passed) / f64::from(total))
        };
        let record = RunRecord {
            skill: planned.skill.name().to_owned(),
            eval_id: case.id,
            configuration: job.configuration,
            run_number: job.run + 1,
            result: RunResult {
                pass_rate,
                passed,
                failed: total - passed,
                total,
                time_seconds: super::report::round(time_seconds),
                tokens: input + output,
                tool_calls: tool_calls as u32,
                errors: u32::from(error.is_some()),
            },
            expectations,
            pass,
            turns,
            input_tokens: input,
            output_tokens: output,
            skills_loaded,
            answer,
            stopped,
            error,
            changed_files,
            transcript,
            cached: false,
        };
        Ok((record, spent))
    }
}

/// The skills `load_skill` served in `conversation`, in order, once each.
fn loaded_skills(conversation: &Conversation) -> Vec<String> {
    let mut served = Vec::new();
    let mut names: Vec<(String, String)> = Vec::new();
    for message in conversation.messages() {
        match message {
            Message::Assistant(turn) => {
                for call in turn.tool_calls.iter().filter(|c| c.name == LOAD_SKILL) {
                    if let Some(name) = call.input.get("name").and_then(|v| v.as_str()) {
                        names.push((call.id.clone(), name.to_owned()));
                    }
                }
            }
            Message::ToolResults(results) => {
                for result in results
                    .iter()
                    .filter(|r| r.name == LOAD_SKILL && !r.is_error)
                {
                    if let Some((_, name)) = names.iter().find(|(id, _)| *id == result.call_id)
                        && !served.contains(name)
                    {
                        served.push(name.clone());
                    }
                }
            }
            Message::User(_) => {}
        }
    }
    served
}

/// The conversation as entries for people and the grader.
fn transcript(conversation: &Conversation) -> Vec<TranscriptEntry> {
    let entry = |role: &str, text: &str| TranscriptEntry {
        role: role.to_owned(),
        text: crate::tools::clip(text, MAX_ENTRY_TEXT),
    };
    let mut out = Vec::new();
    for message in conversation.messages() {
        match message {
            Message::User(text) => out.push(entry("user", text)),
            Message::Assistant(turn) => {
                if !turn.text.is_empty() {
                    out.push(entry("assistant", &turn.text));
                }
                for call in &turn.tool_calls {
                    out.push(entry("tool call", &format!("{} {}", call.name, call.input)));
                }
            }
            Message::ToolResults(results) => {
                for result in results {
                    let role = if result.is_error {
                        "tool error"
                    } else {
                        "tool result"
                    };
                    out.push(entry(role, &format!("{}: {}", result.name, result.content)));
                }
            }
        }
    }
    out
}
