//! [`AgentBuilder`]: an agent's configuration, checked once by [`AgentBuilder::build`].

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use skills_bundle::Registry;

use crate::agent::{Agent, SkillOffer, SkillTools};
use crate::error::{AgentError, ConfigError};
use crate::permission::{Hooks, PermissionPolicy};
use crate::provider::api::Provider;
use crate::settings::{self, Settings};
use crate::tools::{
    Bash, BashOptions, FailureTracker, LOAD_SKILL, READ_SKILL_RESOURCE, Tool, ToolContext,
};

/// Builds an [`Agent`].
pub struct AgentBuilder {
    settings: Settings,
    skills: Registry,
    load_skill: bool,
    only_tools: Option<Vec<String>>,
    workdir: PathBuf,
    allow_hard_links: bool,
    writable_vcs: bool,
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("provider", &self.settings.provider.name())
            .field("skills", &self.skills.names().collect::<Vec<_>>())
            .field("workdir", &self.workdir)
            .field("max_turns", &self.settings.max_turns)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// A builder.
    pub fn builder(provider: Arc<dyn Provider>) -> AgentBuilder {
        AgentBuilder::new(provider)
    }
}

impl AgentBuilder {
    /// Default limit on model requests per [`Agent::run`] ([`max_turns`](Self::max_turns)).
    pub const DEFAULT_MAX_TURNS: u32 = settings::DEFAULT_MAX_TURNS;

    /// Default limit on the tool calls run for one assistant turn
    /// ([`max_tool_calls_per_turn`](Self::max_tool_calls_per_turn)). A turn asking for more gets
    /// an error result for each call past the limit, so the model learns the limit and every
    /// call still has its result.
    pub const DEFAULT_MAX_TOOL_CALLS_PER_TURN: usize = settings::DEFAULT_MAX_TOOL_CALLS_PER_TURN;

    /// Default limit on the tool calls of one assistant turn that run at the same time
    /// ([`max_parallel_tools`](Self::max_parallel_tools)).
    pub const DEFAULT_MAX_PARALLEL_TOOLS: usize = settings::DEFAULT_MAX_PARALLEL_TOOLS;

    /// Default limit on the size of a transcript [`Agent::resume`] reads
    /// ([`max_transcript_bytes`](Self::max_transcript_bytes)): 64 MiB.
    pub const DEFAULT_MAX_TRANSCRIPT_BYTES: u64 = settings::DEFAULT_MAX_TRANSCRIPT_BYTES;

    /// The default preamble of the system prompt ([`preamble`](Self::preamble)).
    pub const DEFAULT_PREAMBLE: &str = settings::DEFAULT_PREAMBLE;

    /// Starts from `provider` with the built-in tools, no skills, the current directory as
    /// working directory and [`DEFAULT_MAX_TURNS`](Self::DEFAULT_MAX_TURNS).
    pub fn new(provider: Arc<dyn Provider>) -> Self {
        AgentBuilder {
            settings: Settings::new(provider),
            skills: Registry::empty(),
            load_skill: true,
            only_tools: None,
            workdir: PathBuf::from("."),
            allow_hard_links: false,
            writable_vcs: false,
        }
    }

    /// Where to write a skill's files (scripts, references, assets) when a skill that has any is
    /// loaded, so the model can run its scripts with `bash`; the `load_skill` result names the
    /// directory. Without it the files are only readable through `read_skill_resource`.
    /// [`skills_bundle::default_resource_dir`] is a sensible choice. See
    /// [`skills_bundle::Skill::materialize`].
    pub fn resource_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.settings.resource_dir = Some(dir.into());
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

    /// Replaces the tool list (default [`crate::builtin_tools`]).
    pub fn tools(mut self, tools: Vec<Arc<dyn Tool>>) -> Self {
        self.settings.tools = tools;
        self
    }

    /// Settings of the built-in `bash` tool, among them its sandbox (namespaces, seccomp, limits
    /// and Landlock by default, the fallback where the kernel refuses the namespaces;
    /// [`BashOptions::unconfined`] switches it off,
    /// [`Sandbox::required`](crate::Sandbox::required) refuses to run without the namespaces).
    /// Replaces the `bash` tool in the list, or adds it when absent. The program's `main` calls
    /// [`sandbox::enter`](crate::sandbox::enter) first. Its
    /// [`Sandbox::writable_vcs`](crate::Sandbox::writable_vcs) applies to the file tools too
    /// ([`ToolContext::writable_vcs`]): one policy for every tool.
    pub fn bash(mut self, options: BashOptions) -> Self {
        self.writable_vcs = options.sandbox.writable_vcs;
        self.settings.tools.retain(|t| t.name() != "bash");
        self.settings.tools.push(Arc::new(Bash::new(options)));
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.settings.tools.push(tool);
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

    /// The text before the catalog in the system prompt (default
    /// [`DEFAULT_PREAMBLE`](Self::DEFAULT_PREAMBLE)).
    pub fn preamble(mut self, preamble: impl Into<String>) -> Self {
        self.settings.preamble = preamble.into();
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
        self.settings.max_turns = max_turns.max(1);
        self
    }

    /// The most tool calls run for one assistant turn (default
    /// [`DEFAULT_MAX_TOOL_CALLS_PER_TURN`](Self::DEFAULT_MAX_TOOL_CALLS_PER_TURN), at least 1);
    /// the calls past it are not run and get an error result that names the limit.
    pub fn max_tool_calls_per_turn(mut self, max: usize) -> Self {
        self.settings.max_tool_calls_per_turn = max.max(1);
        self
    }

    /// The most tool calls of one assistant turn that run at the same time (default
    /// [`DEFAULT_MAX_PARALLEL_TOOLS`](Self::DEFAULT_MAX_PARALLEL_TOOLS), at least 1).
    ///
    /// Above 1, a turn's calls go in three steps. First, in call order: the checks of every call
    /// (failure tracker, permission policy, active skills' `allowed-tools`, the approver for
    /// [`Permission::Ask`](crate::Permission::Ask), asked one call at a time, and the `before`
    /// hooks), and the calls that change the session (`load_skill`, `read_skill_resource`, a forked
    /// skill), which run right away, so a skill loaded early in the turn pre-approves the calls
    /// after it. Then the other calls that passed run concurrently, at most `max` at a time; one
    /// failing does not stop the others. Last, in call order, the failure tracker records the
    /// outcomes, the `after` hooks run and the results go back to the model in the order of the
    /// calls. `bash` calls run in parallel too in the namespace sandbox; in its fallback and
    /// with the sandbox off they run one at a time (their processes are swept by time window).
    ///
    /// 1 runs each call to its end before the next one is checked, as a sequential loop does.
    pub fn max_parallel_tools(mut self, max: usize) -> Self {
        self.settings.max_parallel_tools = max.max(1);
        self
    }

    /// The permission policy.
    pub fn permissions(mut self, policy: PermissionPolicy) -> Self {
        self.settings.policy = policy;
        self
    }

    /// Hooks around tool calls.
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.settings.hooks = hooks;
        self
    }

    /// Whether an active skill's `allowed-tools` is also a limit (default `false`).
    ///
    /// Either way, while a skill is active in a session (see
    /// [`Session::active_skills`](crate::Session::active_skills)) the calls its `allowed-tools`
    /// covers are pre-approved: a tool whose permission is
    /// [`Permission::Ask`](crate::Permission::Ask) runs without asking; `Bash(git diff:*)` covers
    /// only the `bash` calls whose command is `git diff` and plain words (never one the shell
    /// would expand, substitute, glob, chain or redirect; see
    /// [`plain_words`](skills_core::allowed_tools::plain_words)).
    /// [`Permission::Deny`](crate::Permission::Deny) always wins.
    ///
    /// Strict: while an active skill lists `allowed-tools`, only the listed tools (and
    /// `load_skill`, `read_skill_resource`) are offered to the model, and any call that no
    /// active skill's entry covers is refused. Skills without `allowed-tools` restrict nothing.
    pub fn strict_allowed_tools(mut self, strict: bool) -> Self {
        self.settings.strict_allowed_tools = strict;
        self
    }

    /// Whether a skill's `` !`command` `` and ```` ```! ```` blocks run when it is invoked or
    /// loaded, as Claude Code runs them (default `false`).
    ///
    /// On: each command (with the invocation's arguments and `${CLAUDE_*}` variables
    /// substituted) runs through the `bash` tool, the way a model's call would, under the
    /// sandbox, the permission policy, the approver, the hooks and the skill's `allowed-tools`
    /// (which pre-approve its own commands, as in Claude Code), one after the other before
    /// anything is sent to the model; each output takes the place of its command. A command
    /// that is refused, does not run or exits with a non-zero status fails the whole
    /// invocation with [`AgentError::SkillCommand`] (a load: an error result for the model),
    /// and nothing of the skill reaches the model.
    ///
    /// Off: the text reaches the model with the commands as written.
    pub fn run_skill_commands(mut self, run: bool) -> Self {
        self.settings.run_skill_commands = run;
        self
    }

    /// The most model requests the child session of a `context: fork` skill makes (default
    /// [`DEFAULT_MAX_TURNS`](Self::DEFAULT_MAX_TURNS)); a child past it fails the `load_skill`
    /// call with an error result, or the person's [`Agent::invoke`] with [`AgentError::TurnLimit`].
    pub fn fork_max_turns(mut self, max_turns: u32) -> Self {
        self.settings.fork_max_turns = max_turns.max(1);
        self
    }

    /// Whether model replies are streamed (default `false`): the providers ask for server-sent
    /// events and [`Agent::run_with_events`] gets the text as it is generated. Off, each reply
    /// is read whole and its text comes as one event. The conversation, the output and the
    /// errors are the same either way, except that a stream is retried only before its first
    /// byte, and that its timeout bounds each wait for data rather than the whole reply.
    pub fn stream(mut self, stream: bool) -> Self {
        self.settings.stream = stream;
        self
    }

    /// The model's context window, in tokens (default: by model family,
    /// [`budget::default_context_window`](crate::budget::default_context_window)). Before each
    /// request the oldest tool results are shortened as needed to keep its estimated size
    /// within the window minus the [`reply_reserve`](Self::reply_reserve); see
    /// [`budget`](crate#the-context-budget).
    pub fn context_window(mut self, tokens: u64) -> Self {
        self.settings.context_window = Some(tokens);
        self
    }

    /// The tokens of the window kept free for the reply (default: the provider's
    /// [`max_output_tokens`](Provider::max_output_tokens), else
    /// [`DEFAULT_REPLY_RESERVE`](crate::budget::DEFAULT_REPLY_RESERVE)).
    pub fn reply_reserve(mut self, tokens: u64) -> Self {
        self.settings.reply_reserve = Some(tokens);
        self
    }

    /// The largest transcript [`Agent::resume`] reads, in bytes (default
    /// [`DEFAULT_MAX_TRANSCRIPT_BYTES`](Self::DEFAULT_MAX_TRANSCRIPT_BYTES), 64 MiB). A larger
    /// file fails with [`AgentError::Transcript`] of kind
    /// [`FileTooLarge`](std::io::ErrorKind::FileTooLarge), before any of it is read. Writing
    /// is not capped: a session that grows past it is resumed with a larger limit.
    pub fn max_transcript_bytes(mut self, bytes: u64) -> Self {
        self.settings.max_transcript_bytes = bytes;
        self
    }

    /// The failure tracker each new session starts from.
    pub fn failure_tracker(mut self, tracker: FailureTracker) -> Self {
        self.settings.tracker = tracker;
        self
    }

    /// Checks the configuration and renders the system prompt and the tool definitions once.
    pub fn build(self) -> Result<Agent, AgentError> {
        let AgentBuilder {
            mut settings,
            skills,
            load_skill,
            only_tools,
            workdir,
            allow_hard_links,
            writable_vcs,
        } = self;
        let context = ToolContext::new(&workdir)
            .map_err(|source| ConfigError::Workdir {
                path: workdir.clone(),
                source,
            })?
            .allow_hard_links(allow_hard_links)
            .writable_vcs(writable_vcs);
        let mut offer = SkillOffer {
            load_skill,
            read_resource: load_skill,
        };
        if let Some(only) = &only_tools {
            let offered = SkillTools::new(skills.clone(), offer);
            for name in only {
                let known = settings.tools.iter().any(|t| t.name() == name)
                    || (name == LOAD_SKILL && offered.load_skill)
                    || (name == READ_SKILL_RESOURCE && offered.read_resource);
                if !known {
                    return Err(ConfigError::UnknownTool { name: name.clone() }.into());
                }
            }
            settings
                .tools
                .retain(|t| only.iter().any(|n| n == t.name()));
            offer.load_skill &= only.iter().any(|n| n == LOAD_SKILL);
            offer.read_resource &= only.iter().any(|n| n == READ_SKILL_RESOURCE);
        }
        let mut seen = BTreeSet::new();
        for tool in &settings.tools {
            if tool.name() == LOAD_SKILL
                || tool.name() == READ_SKILL_RESOURCE
                || !seen.insert(tool.name().to_owned())
            {
                return Err(ConfigError::DuplicateTool {
                    name: tool.name().to_owned(),
                }
                .into());
            }
        }
        let agent = Agent::assemble(
            settings,
            SkillTools::new(skills, offer),
            context,
            None,
            None,
        )?;
        if let Err(error) = agent.check_bash() {
            tell_the_developer(&error);
        }
        Ok(agent)
    }
}

/// Says, once per process on stderr and as a `tracing` warning, that `bash` cannot run and what
/// the program must do: the person who runs the program is its developer more often than the
/// model is, and a log nobody subscribed to would hide it.
fn tell_the_developer(error: &crate::sandbox::SandboxError) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static TOLD: AtomicBool = AtomicBool::new(false);
    let fix = match error {
        crate::sandbox::SandboxError::EntryMissing
        | crate::sandbox::SandboxError::EntryNotFirst { .. } => {
            format!("; {}", crate::tools::ENTRY_FIX)
        }
        _ => String::new(),
    };
    tracing::warn!(%error, "bash cannot run{fix}");
    if !TOLD.swap(true, Ordering::Relaxed) {
        eprintln!(
            "WARNING: skills-agent: bash cannot run: {error}{fix}; until then every bash call fails"
        );
    }
}
