//! The run loop: [`Agent::run`] and a person's [`Agent::invoke`], request after request until
//! the model answers without tool calls or the turn limit.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use skills_bundle::SkillContext;

use crate::agent::Agent;
use crate::conversation::{Message, ToolResult, Usage};
use crate::error::AgentError;
use crate::events::{AgentEvent, ContextShortened, MaskedEvents};
use crate::provider::api::{Request, Response};
use crate::session::Session;

/// What a successful [`Agent::run`] produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// The final answer (the text of the last assistant turn).
    pub text: String,
    /// Model requests made.
    pub turns: u32,
    /// Tool calls made (including refused ones).
    pub tool_calls: u32,
    /// Tokens used by this run.
    pub usage: Usage,
    /// Skills loaded (first loads) in this run, in order.
    pub skills_loaded: Vec<&'static str>,
    /// The tool results shortened to keep this run's requests inside the context window,
    /// oldest first (see [`budget`](crate#the-context-budget)).
    pub context_shortened: Vec<ContextShortened>,
}

impl Agent {
    /// Sends `prompt` and runs the loop until the model answers without tool calls, or the turn
    /// limit. Every message stays in `session`, whatever the outcome, so a failed run can be
    /// inspected or continued.
    pub async fn run(&self, session: &mut Session, prompt: &str) -> Result<RunOutput, AgentError> {
        self.run_with_events(session, prompt, |_| {}).await
    }

    /// [`run`](Self::run), reporting what happens to `on_event` as it happens: the assistant's text
    /// as it arrives (as it is generated with
    /// [`AgentBuilder::stream`](crate::AgentBuilder::stream)), each tool call and its result, the
    /// end of each turn. The order is in [`events`](crate::AgentEvent).
    ///
    /// A request that fails mid-stream ends the run with its error; the conversation keeps the
    /// prompt and nothing of the cut reply, so the session can run again.
    ///
    /// The provider's API key is masked (`[redacted]`) in every event and in the output's
    /// text, should the model ever write it ([`Agent::redactor`]); the conversation keeps the
    /// reply as the model sent it.
    pub async fn run_with_events(
        &self,
        session: &mut Session,
        prompt: &str,
        mut on_event: impl FnMut(&AgentEvent<'_>) + Send,
    ) -> Result<RunOutput, AgentError> {
        if !self.redactor.is_active() {
            return self.run_loop(session, prompt, &mut on_event).await;
        }
        let mut masked = MaskedEvents::new(&self.redactor, &mut on_event);
        let result = self
            .run_loop(session, prompt, &mut |event| masked.event(event))
            .await;
        masked.flush();
        result.map(|output| self.masked_output(output))
    }

    /// `output` with the provider's key masked in its text.
    fn masked_output(&self, output: RunOutput) -> RunOutput {
        RunOutput {
            text: self.redactor.text(&output.text).into_owned(),
            ..output
        }
    }

    async fn run_loop(
        &self,
        session: &mut Session,
        prompt: &str,
        on_event: &mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) -> Result<RunOutput, AgentError> {
        session.push(Message::User(prompt.to_owned()))?;
        let mut state = RunState::default();
        let mut tool_calls = 0u32;
        for turn in 1..=self.settings.max_turns {
            let started = Instant::now();
            let (response, streamed_text) = self
                .request_turn(session, turn, &mut state, on_event)
                .await?;
            state.usage.add(&response.usage);
            session.usage.add(&response.usage);
            tracing::debug!(
                turn,
                elapsed_ms = started.elapsed().as_millis() as u64,
                tool_calls = response.turn.tool_calls.len(),
                stop_reason = %self.log_text(response.turn.stop_reason.as_deref().unwrap_or("")),
                "assistant turn"
            );
            // The presence of tool calls decides, not the stop reason: some servers say
            // "stop" next to tool calls.
            let calls = response.turn.tool_calls.clone();
            let text = response.turn.text.clone();
            if !streamed_text && !text.is_empty() {
                on_event(&AgentEvent::TextDelta(&text));
            }
            let usage = response.usage;
            session.push(Message::Assistant(response.turn))?;
            if calls.is_empty() {
                self.turn_finished(session, turn, usage, on_event);
                return Ok(RunOutput {
                    text,
                    turns: turn,
                    tool_calls,
                    usage: state.usage,
                    skills_loaded: state.skills_loaded,
                    context_shortened: state.context_shortened,
                });
            }
            let (run, refused) =
                calls.split_at(calls.len().min(self.settings.max_tool_calls_per_turn));
            tool_calls = tool_calls.saturating_add(run.len() as u32);
            let mut results = self.execute_turn(session, run, &mut state, on_event).await;
            if !refused.is_empty() {
                tracing::warn!(
                    turn,
                    tool_calls = calls.len(),
                    limit = self.settings.max_tool_calls_per_turn,
                    "tool calls over the per-turn limit were not run"
                );
                // Every call keeps a result, so the conversation stays valid for the API.
                let text = self.over_limit(calls.len()).to_result_text();
                for call in refused {
                    let result = ToolResult {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        content: text.clone(),
                        is_error: true,
                    };
                    on_event(&AgentEvent::ToolCallStarted { call });
                    on_event(&AgentEvent::ToolResult {
                        call,
                        result: &result,
                    });
                    results.push(result);
                }
                tool_calls = tool_calls.saturating_add(refused.len() as u32);
            }
            session.push(Message::ToolResults(results))?;
            self.turn_finished(session, turn, usage, on_event);
        }
        tracing::warn!(max_turns = self.settings.max_turns, "turn limit reached");
        Err(AgentError::TurnLimit {
            max_turns: self.settings.max_turns,
            usage: state.usage,
        })
    }

    /// The model's reply to `prompt` as the first turn of a fresh session, and nothing else:
    /// the request [`run`](Self::run) would send first (this agent's system prompt and tools,
    /// the context budget, streamed when the agent streams), with no tool call run and no
    /// session kept. What the trigger evals ask ([`eval`](crate::eval)).
    pub async fn first_reply(&self, prompt: &str) -> Result<Response, AgentError> {
        let mut session = self.session();
        session.push(Message::User(prompt.to_owned()))?;
        let mut state = RunState::default();
        let (response, _) = self
            .request_turn(&mut session, 1, &mut state, &mut |_| {})
            .await?;
        Ok(response)
    }

    /// One model request for the next turn of `session`: the context budget first (its cuts
    /// reported and kept in `state`), then the provider, streaming into `on_event` when the
    /// agent streams. Returns the reply and whether its text was streamed.
    async fn request_turn(
        &self,
        session: &mut Session,
        turn: u32,
        state: &mut RunState,
        on_event: &mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) -> Result<(Response, bool), AgentError> {
        let narrowed = self.offered_tools(session);
        let offered = narrowed.as_ref().unwrap_or(&self.definitions);
        let cuts = session.fit_context(&self.budget, offered, turn)?;
        for cut in &cuts {
            on_event(&AgentEvent::ContextShortened { cut });
        }
        state.context_shortened.extend(cuts);
        // The provider streams into the caller's callback; whether it sent any text decides
        // whether the loop sends the turn's text itself.
        let streamed_text = AtomicBool::new(false);
        let result = {
            let callback = Mutex::new(&mut *on_event);
            let sink = |event: &AgentEvent<'_>| {
                if matches!(event, AgentEvent::TextDelta(_)) {
                    streamed_text.store(true, Ordering::Relaxed);
                }
                let mut callback = callback.lock().unwrap_or_else(|e| e.into_inner());
                (*callback)(event);
            };
            let request = Request {
                model: self.model,
                effort: self.effort,
                events: if self.settings.stream {
                    Some(&sink)
                } else {
                    None
                },
                ..Request::new(&self.system, offered, session.conversation.messages())
            };
            self.settings.provider.complete(request).await
        };
        match result {
            Ok(response) => Ok((response, streamed_text.into_inner())),
            Err(error) => {
                tracing::error!(
                    provider = self.settings.provider.name(),
                    model = self.settings.provider.model(),
                    turn,
                    error = %error,
                    "model request failed"
                );
                Err(AgentError::Api(error))
            }
        }
    }

    /// Sends [`AgentEvent::TurnFinished`] for the last assistant turn of `session`.
    fn turn_finished(
        &self,
        session: &Session,
        turn: u32,
        usage: Usage,
        on_event: &mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) {
        if let Some(reply) = session.conversation.last_assistant() {
            on_event(&AgentEvent::TurnFinished { turn, reply, usage });
        }
    }

    /// Runs a person's `/name arguments` as the user's turn: the text of
    /// [`Registry::invoke`](skills_bundle::Registry::invoke) (or
    /// [`Registry::invoke_in`](skills_bundle::Registry::invoke_in) with the agent's
    /// [`resource_dir`](crate::AgentBuilder::resource_dir), so `${CLAUDE_SKILL_DIR}` names the
    /// skill's files on disk).
    ///
    /// - An ordinary skill becomes active in `session` (its `allowed-tools` apply from the first
    ///   request on; see [`Session::active_skills`]) and counts as loaded, then the loop runs as
    ///   for [`run`](Self::run).
    /// - A `context: fork` skill runs in a child session instead (see the crate docs): its
    ///   answer is the output, and `session`'s conversation gets the person's `/name arguments`
    ///   and that answer, not the skill's text.
    ///
    /// Fails with [`AgentError::Invoke`] for a name that is not a skill a person may invoke
    /// (`user-invocable: false`, or unknown: the error suggests the closest name). A
    /// `disable-model-invocation` skill can be invoked.
    pub async fn invoke(
        &self,
        session: &mut Session,
        name: &str,
        arguments: &str,
    ) -> Result<RunOutput, AgentError> {
        self.invoke_with_events(session, name, arguments, |_| {})
            .await
    }

    /// [`invoke`](Self::invoke), reporting to `on_event` as
    /// [`run_with_events`](Self::run_with_events) does (the key masked alike). A forked skill's
    /// child session reports nothing but its answer, as one text delta: its work stays out of
    /// this conversation.
    pub async fn invoke_with_events(
        &self,
        session: &mut Session,
        name: &str,
        arguments: &str,
        mut on_event: impl FnMut(&AgentEvent<'_>) + Send,
    ) -> Result<RunOutput, AgentError> {
        if !self.redactor.is_active() {
            return self
                .invoke_loop(session, name, arguments, &mut on_event)
                .await;
        }
        let mut masked = MaskedEvents::new(&self.redactor, &mut on_event);
        let result = self
            .invoke_loop(session, name, arguments, &mut |event| masked.event(event))
            .await;
        masked.flush();
        result.map(|output| self.masked_output(output))
    }

    async fn invoke_loop(
        &self,
        session: &mut Session,
        name: &str,
        arguments: &str,
        on_event: &mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) -> Result<RunOutput, AgentError> {
        let rendering = self
            .skills
            .skills
            .render_invocation(name, arguments, &self.invoke_options(session))
            .map_err(AgentError::Invoke)?;
        let skill = rendering.skill();
        let forked = skill.context() == SkillContext::Fork;
        // Its commands run with its `allowed-tools` in force (as in Claude Code); a forked
        // skill is active in its child only, so it is active here just for them.
        let was_active = session.active.len();
        session.activate(skill);
        let finished = self.finish_rendering(session, &rendering).await;
        if forked {
            session.active.truncate(was_active);
        }
        let text = finished.map_err(AgentError::SkillCommand)?;
        tracing::info!(
            skill = skill.name(),
            version = skill.version().unwrap_or(""),
            fork = skill.context() == SkillContext::Fork,
            "skill invoked"
        );
        if forked {
            let (output, answer) = self.run_fork(skill, &text).await?;
            if !output.text.is_empty() {
                on_event(&AgentEvent::TextDelta(&output.text));
            }
            session.usage.add(&output.usage);
            let typed = format!("/{} {}", skill.name(), arguments.trim());
            session.push(Message::User(typed.trim_end().to_owned()))?;
            if let Some(answer) = answer {
                session.push(answer)?;
            }
            return Ok(RunOutput {
                skills_loaded: vec![skill.name()],
                ..output
            });
        }
        session.activate(skill);
        let first = !session.loader.is_loaded(skill.name());
        skills_bundle::__private::mark_loaded(&mut session.loader, skill);
        let mut output = self.run_loop(session, &text, on_event).await?;
        if first {
            output.skills_loaded.insert(0, skill.name());
        }
        Ok(output)
    }
}

/// What one [`Agent::run`] accumulates besides the conversation.
#[derive(Default)]
pub(crate) struct RunState {
    pub(crate) usage: Usage,
    pub(crate) skills_loaded: Vec<&'static str>,
    pub(crate) context_shortened: Vec<ContextShortened>,
}
