//! The tool loop: [`Agent`] (configuration, shared) and [`Session`] (one conversation).

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;

use serde_json::Value;
use skills_core::allowed_tools::Entry;

use super::budget::{Budget, ContextShortened, SizeCache};
use super::conversation::{Conversation, Message, ToolCall, ToolResult, Usage};
use super::error::AgentError;
use super::events::AgentEvent;
use super::permission::{HookDecision, Hooks, Permission, PermissionPolicy};
use super::provider::{Provider, Request, ToolDefinitions};
use super::tools::{
    self, FailureTracker, LOAD_SKILL, READ_SKILL_RESOURCE, Tool, ToolContext, ToolError,
    ToolErrorKind,
};
use super::transcript::Transcript;
use skills_bundle::{Effort, Registry, Skill, SkillContext, SkillLoad, SkillLoader};

/// Default limit on model requests per [`Agent::run`].
pub const DEFAULT_MAX_TURNS: u32 = 30;

/// Default limit on the tool calls run for one assistant turn. A turn asking for more gets an
/// error result for each call past the limit, so the model learns the limit and every call
/// still has its result.
pub const DEFAULT_MAX_TOOL_CALLS_PER_TURN: usize = 64;

/// Default limit on the tool calls of one assistant turn that run at the same time.
pub const DEFAULT_MAX_PARALLEL_TOOLS: usize = 4;

/// The default preamble of the system prompt.
pub const DEFAULT_PREAMBLE: &str = "You are a capable software agent working in a project \
directory. Use the tools to inspect and change files and run commands; paths are relative to \
the working directory. Be concise, and say what you did.";

/// Builds an [`Agent`].
pub struct AgentBuilder {
    provider: Arc<dyn Provider>,
    skills: Registry,
    load_skill: bool,
    tools: Vec<Arc<dyn Tool>>,
    only_tools: Option<Vec<String>>,
    preamble: String,
    workdir: PathBuf,
    max_turns: u32,
    max_tool_calls_per_turn: usize,
    max_parallel_tools: usize,
    policy: PermissionPolicy,
    hooks: Hooks,
    tracker: FailureTracker,
    resource_dir: Option<PathBuf>,
    allow_hard_links: bool,
    strict_allowed_tools: bool,
    fork_max_turns: u32,
    stream: bool,
    context_window: Option<u64>,
    reply_reserve: Option<u64>,
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("provider", &self.provider.name())
            .field("skills", &self.skills.names().collect::<Vec<_>>())
            .field("workdir", &self.workdir)
            .field("max_turns", &self.max_turns)
            .finish_non_exhaustive()
    }
}

impl AgentBuilder {
    /// Starts from `provider` with the built-in tools, no skills, the current directory as
    /// working directory and [`DEFAULT_MAX_TURNS`].
    pub fn new(provider: Arc<dyn Provider>) -> Self {
        AgentBuilder {
            provider,
            skills: Registry::empty(),
            load_skill: true,
            tools: tools::builtin(),
            only_tools: None,
            preamble: DEFAULT_PREAMBLE.to_owned(),
            workdir: PathBuf::from("."),
            max_turns: DEFAULT_MAX_TURNS,
            max_tool_calls_per_turn: DEFAULT_MAX_TOOL_CALLS_PER_TURN,
            max_parallel_tools: DEFAULT_MAX_PARALLEL_TOOLS,
            policy: PermissionPolicy::new(),
            hooks: Hooks::new(),
            tracker: FailureTracker::default(),
            resource_dir: None,
            allow_hard_links: false,
            strict_allowed_tools: false,
            fork_max_turns: DEFAULT_MAX_TURNS,
            stream: false,
            context_window: None,
            reply_reserve: None,
        }
    }

    /// Where to write a skill's files (scripts, references, assets) when a skill that has any is
    /// loaded, so the model can run its scripts with `bash`; the `load_skill` result names the
    /// directory. Without it the files are only readable through `read_skill_resource`.
    /// [`skills_bundle::default_resource_dir`] is a sensible choice. See [`skills_bundle::Skill::materialize`].
    pub fn resource_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.resource_dir = Some(dir.into());
        self
    }

    /// The skills in the catalog and behind `load_skill`: a whole bundle (`&SKILLS` for a
    /// `static`) or a [`Registry::restrict`]ed one.
    pub fn skills(mut self, skills: impl Into<Registry>) -> Self {
        self.skills = skills.into();
        self
    }

    /// Leaves out `load_skill` and the catalog (a sub-agent that only works with files).
    pub fn without_load_skill(mut self) -> Self {
        self.load_skill = false;
        self
    }

    /// Replaces the tool list (default [`tools::builtin`]).
    pub fn tools(mut self, tools: Vec<Arc<dyn Tool>>) -> Self {
        self.tools = tools;
        self
    }

    /// Settings of the built-in `bash` tool, among them its kernel sandbox (confined by
    /// default; [`BashOptions::unconfined`](tools::BashOptions::unconfined) switches it off, [`Sandbox::required`] refuses to run
    /// unconfined). Replaces the `bash` tool in the list, or adds it when absent.
    ///
    /// [`Sandbox::required`]: tools::Sandbox::required
    pub fn bash(mut self, options: tools::BashOptions) -> Self {
        self.tools.retain(|t| t.name() != "bash");
        self.tools.push(Arc::new(tools::Bash::new(options)));
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Offers only the tools named here (`load_skill` included or not by name). A name that
    /// no tool has makes [`build`](Self::build) fail.
    pub fn only_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only_tools = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// The text before the catalog in the system prompt (default [`DEFAULT_PREAMBLE`]).
    pub fn preamble(mut self, preamble: impl Into<String>) -> Self {
        self.preamble = preamble.into();
        self
    }

    /// The folder the tools are confined to (default `.`).
    pub fn workdir(mut self, workdir: impl Into<PathBuf>) -> Self {
        self.workdir = workdir.into();
        self
    }

    /// Whether the file tools may read and edit files with several hard links (default no; see
    /// [`ToolContext::allow_hard_links`]).
    pub fn allow_hard_links(mut self, allow: bool) -> Self {
        self.allow_hard_links = allow;
        self
    }

    /// The most model requests one [`Agent::run`] makes.
    pub fn max_turns(mut self, max_turns: u32) -> Self {
        self.max_turns = max_turns.max(1);
        self
    }

    /// The most tool calls run for one assistant turn (default
    /// [`DEFAULT_MAX_TOOL_CALLS_PER_TURN`], at least 1); the calls past it are not run and get
    /// an error result that names the limit.
    pub fn max_tool_calls_per_turn(mut self, max: usize) -> Self {
        self.max_tool_calls_per_turn = max.max(1);
        self
    }

    /// The most tool calls of one assistant turn that run at the same time (default
    /// [`DEFAULT_MAX_PARALLEL_TOOLS`], at least 1).
    ///
    /// Above 1, a turn's calls go in three steps. First, in call order: the checks of every
    /// call (failure tracker, permission policy, active skills' `allowed-tools`, the
    /// approver for [`Permission::Ask`], asked one call at a time, and the `before` hooks),
    /// and the calls that change the session (`load_skill`, `read_skill_resource`, a forked
    /// skill), which run right away, so a skill loaded early in the turn pre-approves the
    /// calls after it. Then the other calls that passed run concurrently, at most `max` at a
    /// time; one failing does not stop the others. Last, in call order, the failure tracker
    /// records the outcomes, the `after` hooks run and the results go back to the model in the
    /// order of the calls. `bash` calls still run one at a time (the sandbox serializes them).
    ///
    /// 1 runs each call to its end before the next one is checked, as a sequential loop does.
    pub fn max_parallel_tools(mut self, max: usize) -> Self {
        self.max_parallel_tools = max.max(1);
        self
    }

    /// The permission policy.
    pub fn permissions(mut self, policy: PermissionPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Hooks around tool calls.
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Whether an active skill's `allowed-tools` is also a limit (default `false`).
    ///
    /// Either way, while a skill is active in a session (see [`Session::active_skills`]) the
    /// calls its `allowed-tools` covers are pre-approved: a tool whose permission is
    /// [`Permission::Ask`] runs without asking; `Bash(git diff:*)` covers only the `bash` calls
    /// whose command matches it (never a chained one). [`Permission::Deny`] always wins.
    ///
    /// Strict: while an active skill lists `allowed-tools`, only the listed tools (and
    /// `load_skill`, `read_skill_resource`) are offered to the model, and any call that no
    /// active skill's entry covers is refused. Skills without `allowed-tools` restrict nothing.
    pub fn strict_allowed_tools(mut self, strict: bool) -> Self {
        self.strict_allowed_tools = strict;
        self
    }

    /// The most model requests the child session of a `context: fork` skill makes (default
    /// [`DEFAULT_MAX_TURNS`]); a child past it fails the `load_skill` call with an error result,
    /// or the person's [`Agent::invoke`] with [`AgentError::TurnLimit`].
    pub fn fork_max_turns(mut self, max_turns: u32) -> Self {
        self.fork_max_turns = max_turns.max(1);
        self
    }

    /// Whether model replies are streamed (default `false`): the providers ask for server-sent
    /// events and [`Agent::run_with_events`] gets the text as it is generated. Off, each reply
    /// is read whole and its text comes as one event. The conversation, the output and the
    /// errors are the same either way, except that a stream is retried only before its first
    /// byte, and that its timeout bounds each wait for data rather than the whole reply.
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// The model's context window, in tokens (default: by model family,
    /// [`budget::default_context_window`](super::budget::default_context_window)). Before each
    /// request the oldest tool results are shortened as needed to keep its estimated size
    /// within the window minus the [`reply_reserve`](Self::reply_reserve); see
    /// [`budget`](super::budget).
    pub fn context_window(mut self, tokens: u64) -> Self {
        self.context_window = Some(tokens);
        self
    }

    /// The tokens of the window kept free for the reply (default: the provider's
    /// [`max_output_tokens`](Provider::max_output_tokens), else
    /// [`DEFAULT_REPLY_RESERVE`](super::budget::DEFAULT_REPLY_RESERVE)).
    pub fn reply_reserve(mut self, tokens: u64) -> Self {
        self.reply_reserve = Some(tokens);
        self
    }

    /// The failure tracker each new session starts from.
    pub fn failure_tracker(mut self, tracker: FailureTracker) -> Self {
        self.tracker = tracker;
        self
    }

    /// Checks the configuration and renders the system prompt and the tool definitions once.
    pub fn build(self) -> Result<Agent, AgentError> {
        let context = ToolContext::new(&self.workdir)
            .map_err(|e| {
                AgentError::Config(format!("working directory {}: {e}", self.workdir.display()))
            })?
            .allow_hard_links(self.allow_hard_links);
        let mut tools = self.tools;
        let mut load_skill = self.load_skill && !self.skills.is_empty();
        // Offered with load_skill when some skill ships files besides SKILL.md.
        let mut read_resource = load_skill && !self.skills.names_with_resources().is_empty();
        if let Some(only) = &self.only_tools {
            for name in only {
                let known = tools.iter().any(|t| t.name() == name)
                    || (name == LOAD_SKILL && load_skill)
                    || (name == READ_SKILL_RESOURCE && read_resource);
                if !known {
                    return Err(AgentError::Config(format!(
                        "only_tools names `{name}`, which is not a tool of this agent"
                    )));
                }
            }
            tools.retain(|t| only.iter().any(|n| n == t.name()));
            load_skill &= only.iter().any(|n| n == LOAD_SKILL);
            read_resource &= only.iter().any(|n| n == READ_SKILL_RESOURCE);
        }
        let mut seen = std::collections::BTreeSet::new();
        for tool in &tools {
            if tool.name() == LOAD_SKILL
                || tool.name() == READ_SKILL_RESOURCE
                || !seen.insert(tool.name().to_owned())
            {
                return Err(AgentError::Config(format!(
                    "two tools are called `{}`",
                    tool.name()
                )));
            }
        }
        let mut definitions = ToolDefinitions::new();
        let system = if load_skill {
            // The build-time JSON of the registry (or the set's own rendering), parsed once.
            let skill_tool = |e: serde_json::Error| {
                AgentError::Config(format!("a skill tool's JSON does not parse: {e}"))
            };
            definitions
                .push_rendered(
                    LOAD_SKILL,
                    self.skills.load_skill_tool_anthropic().unwrap_or(""),
                    self.skills.load_skill_tool_openai().unwrap_or(""),
                )
                .map_err(skill_tool)?;
            if read_resource {
                definitions
                    .push_rendered(
                        READ_SKILL_RESOURCE,
                        &self
                            .skills
                            .read_resource_tool_anthropic()
                            .unwrap_or_default(),
                        &self.skills.read_resource_tool_openai().unwrap_or_default(),
                    )
                    .map_err(skill_tool)?;
            }
            self.skills.system_prompt(&self.preamble)
        } else {
            self.preamble.clone()
        };
        push_tools(&mut definitions, &tools)?;
        let budget = Budget::new(
            self.context_window,
            self.reply_reserve,
            &*self.provider,
            None,
            &system,
            &definitions,
        );
        Ok(Agent {
            budget,
            provider: self.provider,
            skills: self.skills,
            load_skill,
            read_resource,
            tools,
            definitions,
            system,
            context,
            max_turns: self.max_turns,
            max_tool_calls_per_turn: self.max_tool_calls_per_turn,
            max_parallel_tools: self.max_parallel_tools,
            policy: self.policy,
            hooks: self.hooks,
            tracker: self.tracker,
            resource_dir: self.resource_dir,
            strict_allowed_tools: self.strict_allowed_tools,
            fork_max_turns: self.fork_max_turns,
            stream: self.stream,
            preamble: self.preamble,
            model: None,
            effort: None,
        })
    }
}

/// Renders `tools` into `definitions`, in order.
fn push_tools(
    definitions: &mut ToolDefinitions,
    tools: &[Arc<dyn Tool>],
) -> Result<(), AgentError> {
    for tool in tools {
        definitions
            .push(tool.name(), tool.description(), &tool.input_schema())
            .map_err(|e| {
                AgentError::Config(format!(
                    "tool `{}`: its JSON does not parse: {e}",
                    tool.name()
                ))
            })?;
    }
    Ok(())
}

/// An agent: a provider, skills, tools and policies. Shared by any number of [`Session`]s.
pub struct Agent {
    provider: Arc<dyn Provider>,
    skills: Registry,
    load_skill: bool,
    read_resource: bool,
    tools: Vec<Arc<dyn Tool>>,
    definitions: ToolDefinitions,
    system: String,
    context: ToolContext,
    max_turns: u32,
    max_tool_calls_per_turn: usize,
    max_parallel_tools: usize,
    policy: PermissionPolicy,
    hooks: Hooks,
    tracker: FailureTracker,
    resource_dir: Option<PathBuf>,
    strict_allowed_tools: bool,
    fork_max_turns: u32,
    stream: bool,
    /// The system prompt without the catalog: a forked skill's child session gets it.
    preamble: String,
    /// A forked skill's `model` and `effort`, in its child agent; `None` elsewhere.
    model: Option<&'static str>,
    effort: Option<Effort>,
    budget: Budget,
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("provider", &self.provider.name())
            .field("model", &self.provider.model())
            .field("tools", &self.definitions.names())
            .field("workdir", &self.context.workdir())
            .field("max_turns", &self.max_turns)
            .finish_non_exhaustive()
    }
}

/// One conversation with an [`Agent`]: its messages, what it has loaded, its token usage.
#[derive(Debug)]
pub struct Session {
    conversation: Conversation,
    loader: SkillLoader,
    tracker: FailureTracker,
    usage: Usage,
    /// Skills whose `allowed-tools` apply, in the order they became active.
    active: Vec<&'static Skill>,
    /// Where each message is appended as it is pushed, if anywhere.
    transcript: Option<Transcript>,
    /// The loaded skills the transcript records already.
    recorded_loaded: BTreeSet<&'static str>,
    /// How many of `active` the transcript records already.
    recorded_active: usize,
    /// The context budget's size of each message.
    sizes: SizeCache,
}

impl Session {
    /// The conversation so far (kept whole, also after an error).
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// Tokens used by every run of this session.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Whether `skill` was loaded in this conversation.
    pub fn has_loaded(&self, skill: &str) -> bool {
        self.loader.is_loaded(skill)
    }

    /// The skills active in this session, in the order they became active.
    ///
    /// A skill becomes active when the model loads it with `load_skill` or a person invokes it
    /// ([`Agent::invoke`]), and stays active for the rest of the session, as in Claude Code:
    /// its instructions stay in the conversation, and so do the tools it was promised. A new
    /// session starts with none. A forked skill is active in its child session only.
    pub fn active_skills(&self) -> &[&'static Skill] {
        &self.active
    }

    /// Keeps this session in a JSON Lines transcript at `path`, replacing what the file held:
    /// the messages so far are written now, every later one as it is pushed, each line with
    /// the skills that became loaded or active with it. [`Agent::resume`] reads it back. The
    /// format and what a damaged file does are in [`transcript`](super::transcript).
    ///
    /// A write that fails stops the run with [`AgentError::Transcript`].
    pub fn with_transcript(mut self, path: impl AsRef<Path>) -> Result<Session, AgentError> {
        self.transcript = Some(Transcript::create(path.as_ref())?);
        self.recorded_loaded.clear();
        self.recorded_active = 0;
        let count = self.conversation.len();
        for index in 0..count {
            self.record(index, index + 1 == count)?;
        }
        Ok(self)
    }

    /// The transcript file this session is kept in, if any.
    pub fn transcript_path(&self) -> Option<&Path> {
        self.transcript.as_ref().map(Transcript::path)
    }

    /// Appends `message` to the conversation, and to the transcript when there is one.
    fn push(&mut self, message: Message) -> Result<(), AgentError> {
        self.conversation.push(message);
        self.record(self.conversation.len() - 1, true)
    }

    /// Writes message `index` to the transcript, with the skill changes not yet recorded when
    /// `with_skills`.
    fn record(&mut self, index: usize, with_skills: bool) -> Result<(), AgentError> {
        let Some(transcript) = &mut self.transcript else {
            return Ok(());
        };
        let Some(message) = self.conversation.messages().get(index) else {
            return Ok(());
        };
        let (loaded, active): (Vec<&'static str>, Vec<&'static str>) = if with_skills {
            let loaded = self
                .loader
                .skills()
                .names()
                .filter(|name| self.loader.is_loaded(name) && !self.recorded_loaded.contains(name))
                .collect();
            let active = self.active[self.recorded_active..]
                .iter()
                .map(|s| s.name())
                .collect();
            (loaded, active)
        } else {
            (Vec::new(), Vec::new())
        };
        transcript.append(message, &loaded, &active)?;
        self.recorded_loaded.extend(loaded);
        if with_skills {
            self.recorded_active = self.active.len();
        }
        Ok(())
    }

    /// Shortens old tool results so the next request fits `budget` (see
    /// [`budget`](super::budget)), logs and records the cuts, and returns them.
    fn fit_context(
        &mut self,
        budget: &Budget,
        offered: &ToolDefinitions,
        turn: u32,
    ) -> Result<Vec<ContextShortened>, AgentError> {
        let active = &self.active;
        let cuts = budget
            .fit(
                self.conversation.messages_mut(),
                &mut self.sizes,
                offered,
                |skill| active.iter().any(|s| s.name() == skill),
                turn,
            )
            .map_err(|overflow| {
                tracing::error!(%overflow, "request over the context window; not sent");
                AgentError::ContextOverflow(overflow)
            })?;
        for cut in &cuts {
            tracing::info!(
                turn,
                message_index = cut.message_index,
                tool = %cut.tool,
                bytes_before = cut.bytes_before,
                bytes_after = cut.bytes_after,
                "context shortened"
            );
        }
        if let (Some(transcript), false) = (&mut self.transcript, cuts.is_empty()) {
            transcript.append_shortened(&cuts, self.conversation.messages())?;
        }
        Ok(cuts)
    }

    /// Marks `skill` active (once).
    fn activate(&mut self, skill: &'static Skill) {
        if !self.active.iter().any(|s| s.name() == skill.name()) {
            self.active.push(skill);
        }
    }

    /// The parsed `allowed-tools` entries of the active skills that list some.
    fn allowed_entries(&self) -> impl Iterator<Item = Entry<'static>> + '_ {
        self.active
            .iter()
            .flat_map(|skill| skill.allowed_tools())
            .filter_map(|entry| Entry::parse(entry).ok())
    }

    /// Whether an active skill lists `allowed-tools` (so strict mode narrows the tools).
    fn restricted(&self) -> bool {
        self.active.iter().any(|s| !s.allowed_tools().is_empty())
    }
}

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
    /// oldest first (see [`budget`](super::budget)).
    pub context_shortened: Vec<ContextShortened>,
}

impl Agent {
    /// A builder.
    pub fn builder(provider: Arc<dyn Provider>) -> AgentBuilder {
        AgentBuilder::new(provider)
    }

    /// The system prompt sent with every request.
    pub fn system_prompt(&self) -> &str {
        &self.system
    }

    /// The tools offered with every request.
    pub fn tool_definitions(&self) -> &ToolDefinitions {
        &self.definitions
    }

    /// The skills behind `load_skill` (empty of use when the tool is left out).
    pub fn skills(&self) -> &Registry {
        &self.skills
    }

    /// The provider.
    pub fn provider(&self) -> &dyn Provider {
        &*self.provider
    }

    /// The canonical working directory.
    pub fn workdir(&self) -> &std::path::Path {
        self.context.workdir()
    }

    /// A new, empty conversation.
    pub fn session(&self) -> Session {
        Session {
            conversation: Conversation::new(),
            loader: match &self.resource_dir {
                Some(dir) => SkillLoader::new(self.skills.clone()).with_resource_dir(dir),
                None => SkillLoader::new(self.skills.clone()),
            },
            tracker: self.tracker.clone(),
            usage: Usage::default(),
            active: Vec::new(),
            transcript: None,
            recorded_loaded: BTreeSet::new(),
            recorded_active: 0,
            sizes: SizeCache::default(),
        }
    }

    /// Continues the session kept in the transcript at `path` (see
    /// [`Session::with_transcript`]): its messages, the skills it loaded (a second `load_skill`
    /// gets the short note, not the text again) and the skills active in it; later messages
    /// are appended to the same file. A missing file starts a new, empty session there.
    ///
    /// A last line cut short by a crash, and an assistant turn whose tool results were never
    /// written, are dropped with a `tracing` warning and cut from the file; a damaged line
    /// elsewhere fails with [`AgentError::Transcript`]. A recorded skill this agent does not
    /// have is skipped with a warning. Token usage and the failure tracker start afresh.
    pub fn resume(&self, path: impl AsRef<Path>) -> Result<Session, AgentError> {
        let path = path.as_ref();
        let (transcript, replayed) = Transcript::open(path)?;
        let mut session = self.session();
        for line in replayed {
            for name in &line.skills_loaded {
                match self.skills.get(name) {
                    Some(skill) => {
                        skills_bundle::__private::mark_loaded(&mut session.loader, skill);
                        session.recorded_loaded.insert(skill.name());
                    }
                    None => tracing::warn!(
                        path = %path.display(),
                        skill = %name,
                        "transcript: a loaded skill this agent does not have; skipped"
                    ),
                }
            }
            for name in &line.skills_active {
                match self.skills.get(name) {
                    Some(skill) => session.activate(skill),
                    None => tracing::warn!(
                        path = %path.display(),
                        skill = %name,
                        "transcript: an active skill this agent does not have; skipped"
                    ),
                }
            }
            session.conversation.push(line.message);
        }
        session.recorded_active = session.active.len();
        session.transcript = Some(transcript);
        tracing::info!(
            path = %path.display(),
            messages = session.conversation.len(),
            skills_active = session.active.len(),
            "session resumed"
        );
        Ok(session)
    }

    /// The tools offered in `session` now: all of them, or in strict mode while an active
    /// skill lists `allowed-tools`, only the listed ones and the skill tools.
    fn offered_tools(&self, session: &Session) -> Option<ToolDefinitions> {
        if !self.strict_allowed_tools || !session.restricted() {
            return None;
        }
        Some(self.definitions.filtered(|name| {
            name == LOAD_SKILL
                || name == READ_SKILL_RESOURCE
                || session.allowed_entries().any(|e| e.agent_tool() == name)
        }))
    }

    /// Sends `prompt` and runs the loop until the model answers without tool calls, or the turn
    /// limit. Every message stays in `session`, whatever the outcome, so a failed run can be
    /// inspected or continued.
    pub async fn run(&self, session: &mut Session, prompt: &str) -> Result<RunOutput, AgentError> {
        self.run_with_events(session, prompt, |_| {}).await
    }

    /// [`run`](Self::run), reporting what happens to `on_event` as it happens: the assistant's
    /// text as it arrives (as it is generated with [`AgentBuilder::stream`]), each tool call
    /// and its result, the end of each turn. The order is in [`events`](super::events).
    ///
    /// A request that fails mid-stream ends the run with its error; the conversation keeps the
    /// prompt and nothing of the cut reply, so the session can run again.
    pub async fn run_with_events(
        &self,
        session: &mut Session,
        prompt: &str,
        mut on_event: impl FnMut(&AgentEvent<'_>) + Send,
    ) -> Result<RunOutput, AgentError> {
        self.run_loop(session, prompt, &mut on_event).await
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
        for turn in 1..=self.max_turns {
            let narrowed = self.offered_tools(session);
            let offered = narrowed.as_ref().unwrap_or(&self.definitions);
            let cuts = session.fit_context(&self.budget, offered, turn)?;
            for cut in &cuts {
                on_event(&AgentEvent::ContextShortened { cut });
            }
            state.context_shortened.extend(cuts);
            let started = Instant::now();
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
                    events: if self.stream { Some(&sink) } else { None },
                    ..Request::new(&self.system, offered, session.conversation.messages())
                };
                self.provider.complete(request).await
            };
            let response = match result {
                Ok(response) => response,
                Err(error) => {
                    tracing::error!(
                        provider = self.provider.name(),
                        model = self.provider.model(),
                        turn,
                        error = %error,
                        "model request failed"
                    );
                    return Err(AgentError::Api(error));
                }
            };
            state.usage.add(&response.usage);
            session.usage.add(&response.usage);
            tracing::debug!(
                turn,
                elapsed_ms = started.elapsed().as_millis() as u64,
                tool_calls = response.turn.tool_calls.len(),
                stop_reason = response.turn.stop_reason.as_deref().unwrap_or(""),
                "assistant turn"
            );
            // The presence of tool calls decides, not the stop reason: some servers say
            // "stop" next to tool calls.
            let calls = response.turn.tool_calls.clone();
            let text = response.turn.text.clone();
            if !streamed_text.into_inner() && !text.is_empty() {
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
            let (run, refused) = calls.split_at(calls.len().min(self.max_tool_calls_per_turn));
            tool_calls = tool_calls.saturating_add(run.len() as u32);
            let mut results = self.execute_turn(session, run, &mut state, on_event).await;
            if !refused.is_empty() {
                tracing::warn!(
                    turn,
                    tool_calls = calls.len(),
                    limit = self.max_tool_calls_per_turn,
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
        tracing::warn!(max_turns = self.max_turns, "turn limit reached");
        Err(AgentError::TurnLimit {
            max_turns: self.max_turns,
            usage: state.usage,
        })
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
    /// [`Registry::invoke`] (or [`Registry::invoke_in`] with the agent's
    /// [`resource_dir`](AgentBuilder::resource_dir), so `${CLAUDE_SKILL_DIR}` names the skill's
    /// files on disk).
    ///
    /// - An ordinary skill becomes active in `session` (its `allowed-tools` apply from the first
    ///   request on; see [`Session::active_skills`]) and counts as loaded, then the loop runs as
    ///   for [`run`](Self::run).
    /// - A `context: fork` skill runs in a child session instead (see the module docs): its
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
    /// [`run_with_events`](Self::run_with_events) does. A forked skill's child session reports
    /// nothing but its answer, as one text delta: its work stays out of this conversation.
    pub async fn invoke_with_events(
        &self,
        session: &mut Session,
        name: &str,
        arguments: &str,
        mut on_event: impl FnMut(&AgentEvent<'_>) + Send,
    ) -> Result<RunOutput, AgentError> {
        let text = match &self.resource_dir {
            Some(dir) => self.skills.invoke_in(name, arguments, dir),
            None => self.skills.invoke(name, arguments),
        }
        .map_err(AgentError::Invoke)?;
        let Some(skill) = self.skills.get(name) else {
            // `invoke` succeeded, so the registry has the skill.
            return Err(AgentError::Config(format!("skill `{name}` vanished")));
        };
        tracing::info!(
            skill = skill.name(),
            version = skill.version().unwrap_or(""),
            fork = skill.context() == SkillContext::Fork,
            "skill invoked"
        );
        if skill.context() == SkillContext::Fork {
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
        let mut output = self.run_loop(session, &text, &mut on_event).await?;
        if first {
            output.skills_loaded.insert(0, skill.name());
        }
        Ok(output)
    }

    /// The child agent of a `context: fork` skill: this agent's preamble (no catalog) and
    /// tools, narrowed to the skill's `allowed-tools` when it lists some, without `load_skill`
    /// and `read_skill_resource`, with [`fork_max_turns`](AgentBuilder::fork_max_turns) and
    /// the skill's `model` and `effort` when set.
    fn fork_agent(&self, skill: &'static Skill) -> Result<Agent, AgentError> {
        let entries: Vec<Entry<'static>> = skill
            .allowed_tools()
            .iter()
            .filter_map(|entry| Entry::parse(entry).ok())
            .collect();
        let tools: Vec<Arc<dyn Tool>> = self
            .tools
            .iter()
            .filter(|tool| {
                skill.allowed_tools().is_empty()
                    || entries.iter().any(|e| e.agent_tool() == tool.name())
            })
            .cloned()
            .collect();
        let mut definitions = ToolDefinitions::new();
        push_tools(&mut definitions, &tools)?;
        let model = skill.model().or(self.model);
        let budget = Budget::new(
            self.budget.explicit_window,
            self.budget.explicit_reserve,
            &*self.provider,
            model,
            &self.preamble,
            &definitions,
        );
        Ok(Agent {
            budget,
            provider: Arc::clone(&self.provider),
            skills: Registry::empty(),
            load_skill: false,
            read_resource: false,
            tools,
            definitions,
            system: self.preamble.clone(),
            context: self.context.clone(),
            max_turns: self.fork_max_turns,
            max_tool_calls_per_turn: self.max_tool_calls_per_turn,
            max_parallel_tools: self.max_parallel_tools,
            policy: self.policy.clone(),
            hooks: self.hooks.clone(),
            tracker: self.tracker.clone(),
            resource_dir: None,
            strict_allowed_tools: self.strict_allowed_tools,
            fork_max_turns: self.fork_max_turns,
            stream: self.stream,
            preamble: self.preamble.clone(),
            model,
            effort: skill.effort().or(self.effort),
        })
    }

    /// Runs `task` (a forked skill's text) in a fresh child session where `skill` is active.
    /// Returns the child's output and its last message (the final answer, as the provider
    /// sent it). A boxed future with a declared `Send`: the child's loop is this same loop, one
    /// level down, so its type cannot be inferred from itself.
    fn run_fork<'a>(
        &'a self,
        skill: &'static Skill,
        task: &'a str,
    ) -> super::BoxFuture<'a, Result<(RunOutput, Option<Message>), AgentError>> {
        Box::pin(async move {
            let child = self.fork_agent(skill)?;
            let mut session = child.session();
            session.activate(skill);
            let output = child.run(&mut session, task).await?;
            tracing::info!(
                skill = skill.name(),
                turns = output.turns,
                tool_calls = output.tool_calls,
                "forked skill finished"
            );
            let answer = session.conversation.messages().last().cloned();
            Ok((output, answer))
        })
    }

    /// The error result of a call past the per-turn limit, in a turn of `asked` calls.
    fn over_limit(&self, asked: usize) -> ToolError {
        let limit = self.max_tool_calls_per_turn;
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
    async fn execute_turn(
        &self,
        session: &mut Session,
        calls: &[ToolCall],
        state: &mut RunState,
        on_event: &mut (dyn FnMut(&AgentEvent<'_>) + Send),
    ) -> Vec<ToolResult> {
        if self.max_parallel_tools <= 1 || calls.len() <= 1 {
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
        let mut runs: Vec<super::BoxFuture<'_, (Result<String, ToolError>, Duration)>> =
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
            .buffered(self.max_parallel_tools)
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
            tool = %call.name,
            id = %call.id,
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
        for hook in &self.hooks.after {
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
    fn check(&self, session: &mut Session, call: &ToolCall) -> Result<Target, ToolError> {
        let is_load_skill = self.load_skill && call.name == LOAD_SKILL;
        let is_read_resource = self.read_resource && call.name == READ_SKILL_RESOURCE;
        let tool = self.tools.iter().find(|t| t.name() == call.name);
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
        let mut permission = self.policy.permission(&call.name, default);
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
            Permission::Ask => match self.policy.ask(call) {
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
        for hook in &self.hooks.before {
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
    async fn run_checked(
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
                tracing::info!(tool = %call.name, "pre-approved by an active skill's allowed-tools");
            }
            return Ok(Permission::Allow);
        }
        if self.strict_allowed_tools && session.restricted() {
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

    /// `load_skill` of a `context: fork` skill: runs it in a child session (each call anew: it
    /// is a task, not instructions to keep) and returns the child's final answer. The skill
    /// does not become active in this session.
    async fn load_forked(
        &self,
        session: &mut Session,
        skill: &'static Skill,
        state: &mut RunState,
    ) -> Result<String, ToolError> {
        let task =
            skills_bundle::__private::invocation_text(skill, "", self.resource_dir.as_deref());
        tracing::info!(
            skill = skill.name(),
            version = skill.version().unwrap_or(""),
            sha256 = &skill.sha256()[..skill.sha256().len().min(12)],
            fork = true,
            "skill loaded"
        );
        if !state.skills_loaded.contains(&skill.name()) {
            state.skills_loaded.push(skill.name());
        }
        match self.run_fork(skill, &task).await {
            Ok((output, _)) => {
                state.usage.add(&output.usage);
                session.usage.add(&output.usage);
                Ok(output.text)
            }
            Err(error) => {
                if let AgentError::TurnLimit { usage, .. } = &error {
                    state.usage.add(usage);
                    session.usage.add(usage);
                }
                Err(ToolError::new(
                    ToolErrorKind::Unavailable,
                    format!(
                        "the skill `{}` runs in a sub-agent, which stopped without an answer: \
                         {error}",
                        skill.name()
                    ),
                )
                .suggest("do the task without this skill, or tell the user what failed"))
            }
        }
    }

    /// `read_skill_resource`: a file shipped with a skill, served from the binary.
    /// `read_skill_resource`: the files of a skill the model may see, that is one it can load,
    /// or one a person invoked in this session (a `disable-model-invocation` skill is otherwise
    /// as absent for the model as it is from the catalog).
    fn read_resource(&self, session: &Session, input: &Value) -> Result<String, ToolError> {
        let skill = tools::str_arg(input, "skill")?;
        let path = tools::str_arg(input, "path")?;
        let as_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let offset = tools::uint_arg(input, "offset")?.map(as_usize);
        let limit = tools::uint_arg(input, "limit")?.map(as_usize);
        let invoked = session.active.iter().any(|a| a.name() == skill);
        if let (Err(unknown), false) = (
            skills_bundle::__private::model_skill(&self.skills, skill),
            invoked,
        ) {
            return Err(
                ToolError::new(ToolErrorKind::UnknownSkill, unknown.to_string())
                    .suggest("use a skill and path listed in the load_skill result"),
            );
        }
        let text = self
            .skills
            .read_resource(skill, path, offset, limit)
            .map_err(|e| {
                let kind = match e {
                    skills_bundle::ResourceError::UnknownSkill(_) => ToolErrorKind::UnknownSkill,
                    skills_bundle::ResourceError::UnknownPath { .. } => ToolErrorKind::NotFound,
                    _ => ToolErrorKind::InvalidInput,
                };
                ToolError::new(kind, e.to_string())
                    .suggest("use a skill and path listed in the load_skill result")
            })?;
        tracing::info!(skill, path, chars = text.len(), "skill resource read");
        Ok(text)
    }

    async fn load_skill(
        &self,
        session: &mut Session,
        input: &Value,
        state: &mut RunState,
    ) -> Result<String, ToolError> {
        let name = tools::str_arg(input, "name")?;
        let fork = self
            .skills
            .get(name)
            .filter(|s| s.model_invocable() && s.context() == SkillContext::Fork);
        if let Some(skill) = fork {
            return self.load_forked(session, skill, state).await;
        }
        match session.loader.load(name) {
            Ok(load) => {
                let skill = load.skill();
                let first = matches!(load, SkillLoad::Loaded { .. });
                tracing::info!(
                    skill = skill.name(),
                    version = skill.version().unwrap_or(""),
                    sha256 = &skill.sha256()[..skill.sha256().len().min(12)],
                    first_load = first,
                    chars = load.text().len(),
                    "skill loaded"
                );
                if first {
                    state.skills_loaded.push(skill.name());
                }
                session.activate(skill);
                Ok(load.text().to_owned())
            }
            Err(unknown) => {
                let error = ToolError::new(ToolErrorKind::UnknownSkill, unknown.to_string());
                Err(match unknown.suggestion() {
                    Some(closest) => error.suggest(format!("call load_skill with \"{closest}\"")),
                    None => error.suggest("pick a name from the catalog in the system prompt"),
                })
            }
        }
    }
}

/// What a call that passed the checks runs.
enum Target {
    /// A tool of the list; independent of the session, so it may run with others.
    Tool(Arc<dyn Tool>),
    /// `load_skill`: changes the session.
    LoadSkill,
    /// `read_skill_resource`: reads what the session may see.
    ReadResource,
}

/// What one [`Agent::run`] accumulates besides the conversation.
#[derive(Default)]
struct RunState {
    usage: Usage,
    skills_loaded: Vec<&'static str>,
    context_shortened: Vec<ContextShortened>,
}
