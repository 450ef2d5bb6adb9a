//! Tool dispatch: each call of a turn through its checks (the tool exists, the failure
//! tracker, the permission policy and the active skills' `allowed-tools`, the approver, the
//! hooks) to its result, the calls of one turn concurrently where they may be.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use serde_json::Value;

use crate::BoxFuture;
use crate::agent::Agent;
use crate::conversation::{ToolCall, ToolResult};
use crate::events::AgentEvent;
use crate::permission::{HookDecision, Permission};
use crate::run::RunState;
use crate::session::Session;
use crate::tools::{LOAD_SKILL, READ_SKILL_RESOURCE, Tool, ToolError, ToolErrorKind};

/// What a call that passed the checks runs.
pub(crate) enum Target {
    /// A tool of the list; independent of the session, so it may run with others.
    Tool(Arc<dyn Tool>),
    /// `load_skill`: changes the session.
    LoadSkill,
    /// `read_skill_resource`: reads what the session may see.
    ReadResource,
}

impl Agent {
    /// The error result of a call past the per-turn limit, in a turn of `asked` calls.
    pub(crate) fn over_limit(&self, asked: usize) -> ToolError {
        let limit = self.settings.max_tool_calls_per_turn;
        ToolError::new(
            ToolErrorKind::Denied,
            format!(
                "not run: this turn asked for {asked} tool calls and at most {limit} run per \
                 turn; only the first {limit} ran"
            ),
        )
        .suggest(format!(
            "make at most {limit} tool calls per turn; repeat this call in the next turn if it \
             is still needed"
        ))
    }

    /// Runs one tool call through the checks and the tool; never fails, never panics on bad
    /// input: every problem becomes an error result.
    async fn execute(
        &self,
        session: &mut Session,
        call: &ToolCall,
        state: &mut RunState,
        on_event: &mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) -> ToolResult {
        on_event(&AgentEvent::ToolCallStarted { call });
        let started = Instant::now();
        let outcome = match self.check(session, call) {
            Ok(target) => self.run_checked(session, call, target, state).await,
            Err(error) => Err(error),
        };
        self.finish(call, outcome, started.elapsed(), on_event)
    }

    /// Runs the calls of one turn (within the per-turn limit) and returns their results in
    /// call order; see [`AgentBuilder::max_parallel_tools`] for the order of the steps.
    pub(crate) async fn execute_turn(
        &self,
        session: &mut Session,
        calls: &[ToolCall],
        state: &mut RunState,
        on_event: &mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) -> Vec<ToolResult> {
        if self.settings.max_parallel_tools <= 1 || calls.len() <= 1 {
            let mut results = Vec::with_capacity(calls.len());
            for call in calls {
                results.push(self.execute(session, call, state, on_event).await);
            }
            return results;
        }
        // In call order: checks and approvals, and the calls that change the session. `None`
        // marks a call left for the concurrent step.
        let mut outcomes: Vec<Option<(Result<String, ToolError>, Duration)>> =
            Vec::with_capacity(calls.len());
        let mut pending = Vec::new();
        for (index, call) in calls.iter().enumerate() {
            on_event(&AgentEvent::ToolCallStarted { call });
            let started = Instant::now();
            match self.check(session, call) {
                Ok(Target::Tool(tool)) => {
                    pending.push((index, tool));
                    outcomes.push(None);
                }
                Ok(target) => {
                    let outcome = self.run_checked(session, call, target, state).await;
                    outcomes.push(Some((outcome, started.elapsed())));
                }
                Err(error) => outcomes.push(Some((Err(error), started.elapsed()))),
            }
        }
        let context = &self.context;
        // Boxed with a declared `Send`, which a closure's future cannot state for the loop's
        // own future (the forked skill's child runs this loop too).
        let mut runs: Vec<BoxFuture<'_, (Result<String, ToolError>, Duration)>> =
            Vec::with_capacity(pending.len());
        for (index, tool) in &pending {
            let call = &calls[*index];
            runs.push(Box::pin(async move {
                let started = Instant::now();
                let outcome = tool.call(&call.input, context).await;
                (outcome, started.elapsed())
            }));
        }
        // `buffered` keeps at most `max_parallel_tools` calls running and yields in call order.
        let ran: Vec<_> = futures_util::stream::iter(runs)
            .buffered(self.settings.max_parallel_tools)
            .collect()
            .await;
        let mut ran = ran.into_iter();
        calls
            .iter()
            .zip(outcomes)
            .map(|(call, done)| {
                let (outcome, elapsed) = match done {
                    Some(done) => done,
                    None => {
                        let ran = ran.next().unwrap_or_else(|| {
                            let error = ToolError::new(ToolErrorKind::Unavailable, "not run");
                            (Err(error), Duration::ZERO)
                        });
                        // Refusals do not count as failures, so only ran calls are recorded.
                        session
                            .tracker
                            .record(&call.name, ran.0.is_ok(), Instant::now());
                        ran
                    }
                };
                self.finish(call, outcome, elapsed, on_event)
            })
            .collect()
    }

    /// Logs a call's outcome, turns it into its result and runs the `after` hooks.
    fn finish(
        &self,
        call: &ToolCall,
        outcome: Result<String, ToolError>,
        elapsed: Duration,
        on_event: &mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) -> ToolResult {
        let (content, is_error) = match &outcome {
            Ok(text) => (text.clone(), false),
            Err(error) => (error.to_result_text(), true),
        };
        tracing::info!(
            tool = %self.log_text(&call.name),
            id = %self.log_text(&call.id),
            ok = !is_error,
            error_kind = outcome.as_ref().err().map(|e| e.kind.label()).unwrap_or(""),
            result_chars = content.len(),
            elapsed_ms = elapsed.as_millis() as u64,
            "tool call"
        );
        let result = ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content,
            is_error,
        };
        for hook in &self.settings.hooks.after {
            hook(call, &result);
        }
        on_event(&AgentEvent::ToolResult {
            call,
            result: &result,
        });
        result
    }

    /// The checks before a call runs, in order: the tool exists, the failure tracker lets it
    /// run, the policy and the active skills allow it (asking the approver for an `Ask`), the
    /// `before` hooks do not deny it. Returns what to run.
    pub(crate) fn check(
        &self,
        session: &mut Session,
        call: &ToolCall,
    ) -> Result<Target, ToolError> {
        let is_load_skill = self.skills.load_skill && call.name == LOAD_SKILL;
        let is_read_resource = self.skills.read_resource && call.name == READ_SKILL_RESOURCE;
        let tool = self.settings.tools.iter().find(|t| t.name() == call.name);
        if !is_load_skill && !is_read_resource && tool.is_none() {
            return Err(ToolError::new(
                ToolErrorKind::UnknownTool,
                format!("there is no tool called `{}`", call.name),
            )
            .suggest(format!(
                "available tools: {}",
                self.definitions.names().join(", ")
            )));
        }
        session.tracker.check(&call.name, Instant::now())?;
        let default = tool.map_or(Permission::Allow, |t| t.default_permission());
        let mut permission = self.settings.policy.permission(&call.name, default);
        if permission != Permission::Deny && !is_load_skill && !is_read_resource {
            permission = self.skill_permission(session, call, permission)?;
        }
        match permission {
            Permission::Allow => {}
            Permission::Deny => {
                return Err(ToolError::new(
                    ToolErrorKind::Denied,
                    format!("the permission policy does not allow `{}`", call.name),
                )
                .suggest("use another tool, or tell the user what you would need"));
            }
            Permission::Ask => match self.settings.policy.ask(call) {
                Some(true) => {}
                Some(false) => {
                    return Err(ToolError::new(
                        ToolErrorKind::Denied,
                        format!("the user declined this `{}` call", call.name),
                    )
                    .suggest("ask the user how to proceed, or try something else"));
                }
                None => {
                    return Err(ToolError::new(
                        ToolErrorKind::Denied,
                        format!(
                            "`{}` needs the user's approval and nobody can approve here",
                            call.name
                        ),
                    )
                    .suggest("finish without this tool, or describe the change for the user"));
                }
            },
        }
        for hook in &self.settings.hooks.before {
            if let HookDecision::Deny(reason) = hook(call) {
                return Err(ToolError::new(ToolErrorKind::Denied, reason));
            }
        }
        Ok(match tool {
            Some(tool) => Target::Tool(Arc::clone(tool)),
            None if is_read_resource => Target::ReadResource,
            None => Target::LoadSkill,
        })
    }

    /// Runs a call that passed [`check`](Self::check) and records its outcome with the failure
    /// tracker (refusals are not recorded: the tool itself did not fail).
    pub(crate) async fn run_checked(
        &self,
        session: &mut Session,
        call: &ToolCall,
        target: Target,
        state: &mut RunState,
    ) -> Result<String, ToolError> {
        let outcome = match target {
            Target::Tool(tool) => tool.call(&call.input, &self.context).await,
            Target::ReadResource => self.read_resource(session, &call.input),
            Target::LoadSkill => self.load_skill(session, &call.input, state).await,
        };
        session
            .tracker
            .record(&call.name, outcome.is_ok(), Instant::now());
        outcome
    }

    /// What the active skills' `allowed-tools` make of a call whose policy permission is
    /// `permission` (not `Deny`): `Allow` when an entry covers it, an error in strict mode when
    /// none does, else `permission` unchanged.
    fn skill_permission(
        &self,
        session: &Session,
        call: &ToolCall,
        permission: Permission,
    ) -> Result<Permission, ToolError> {
        let command = (call.name == "bash")
            .then(|| call.input.get("command").and_then(Value::as_str))
            .flatten();
        let covered = session
            .allowed_entries()
            .any(|entry| entry.permits(&call.name, command));
        if covered {
            if permission == Permission::Ask {
                tracing::info!(tool = %self.log_text(&call.name), "pre-approved by an active skill's allowed-tools");
            }
            return Ok(Permission::Allow);
        }
        if self.settings.strict_allowed_tools && session.restricted() {
            let skills: Vec<_> = session
                .active
                .iter()
                .filter(|s| !s.allowed_tools().is_empty())
                .map(|s| s.name())
                .collect();
            let allowed: Vec<_> = session
                .active
                .iter()
                .flat_map(|s| s.allowed_tools())
                .copied()
                .collect();
            return Err(ToolError::new(
                ToolErrorKind::Denied,
                format!(
                    "while {} {} active, only its allowed tools run, and they do not cover this `{}` call",
                    skills.join(", "),
                    if skills.len() == 1 { "is" } else { "are" },
                    call.name
                ),
            )
            .suggest(format!("allowed: {}", allowed.join(", "))));
        }
        Ok(permission)
    }
}
