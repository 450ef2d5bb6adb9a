//! [`Session`]: one conversation with an agent, what it has loaded and made active, and its
//! transcript.

use std::collections::BTreeSet;
use std::path::Path;

use skills_bundle::{Skill, SkillLoader};
use skills_core::allowed_tools::Entry;

use crate::budget::{Budget, SizeCache};
use crate::conversation::{Conversation, Message, Usage};
use crate::error::AgentError;
use crate::events::ContextShortened;
use crate::provider::api::ToolDefinitions;
use crate::redact::Redactor;
use crate::session_file::SessionFiles;
use crate::tools::FailureTracker;
use crate::transcript::Transcript;

/// One conversation with an [`Agent`](crate::Agent): its messages, what it has loaded, its token
/// usage.
#[derive(Debug)]
pub struct Session {
    /// What `${CLAUDE_SESSION_ID}` is in the skills this session loads or invokes.
    pub(crate) id: String,
    pub(crate) conversation: Conversation,
    pub(crate) loader: SkillLoader,
    pub(crate) tracker: FailureTracker,
    pub(crate) usage: Usage,
    /// Skills whose `allowed-tools` apply, in the order they became active.
    pub(crate) active: Vec<&'static Skill>,
    /// Where each message is appended as it is pushed, if anywhere.
    pub(crate) transcript: Option<Transcript>,
    /// The loaded skills the transcript records already.
    pub(crate) recorded_loaded: BTreeSet<&'static str>,
    /// How many of `active` the transcript records already.
    pub(crate) recorded_active: usize,
    /// The context budget's size of each message.
    pub(crate) sizes: SizeCache,
    /// How its transcript file is opened and read.
    pub(crate) files: SessionFiles,
    /// The provider's key, masked in the transcript.
    pub(crate) redactor: Redactor,
}

/// A new session id: 128 bits in the form of a UUID, from the process's random hash keys, the
/// time and a counter (unique, not secret).
pub(crate) fn new_session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let half = |salt: u64| {
        let mut hasher = std::hash::RandomState::new().build_hasher();
        hasher.write_u128(nanos);
        hasher.write_u64(count);
        hasher.write_u32(std::process::id());
        hasher.write_u64(salt);
        hasher.finish()
    };
    let bits = (u128::from(half(1)) << 64) | u128::from(half(2));
    // Version 4 and the RFC 4122 variant, so it reads as what it stands for.
    let bits = (bits & !(0xf << 76) & !(0x3 << 62)) | (0x4 << 76) | (0x2 << 62);
    let hex = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

impl Session {
    /// The session's id: what `${CLAUDE_SESSION_ID}` is in the skills it loads or invokes. A
    /// new session gets a new one (a resumed one too); [`with_id`](Self::with_id) sets it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// This session with `id` as its id (a caller that keeps sessions under names of its own,
    /// or resumes one and wants its old id back).
    pub fn with_id(mut self, id: impl Into<String>) -> Session {
        self.id = id.into();
        let loader = std::mem::replace(
            &mut self.loader,
            SkillLoader::new(skills_bundle::Registry::empty()),
        );
        self.loader = loader.with_session_id(Some(self.id.clone()));
        self
    }

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
    /// ([`Agent::invoke`](crate::Agent::invoke)), and stays active for the rest of the session, as
    /// in Claude Code: its instructions stay in the conversation, and so do the tools it was
    /// promised. A new session starts with none. A forked skill is active in its child session
    /// only.
    pub fn active_skills(&self) -> &[&'static Skill] {
        &self.active
    }

    /// Keeps this session in a JSON Lines transcript at `path`, a new file: the messages so far
    /// are written now, every later one as it is pushed, each line with the skills that became
    /// loaded or active with it. [`Agent::resume`](crate::Agent::resume) reads it back (and
    /// continues an existing file). The format, how the file is opened and what a damaged file
    /// does are in [`transcript`](crate#transcripts).
    ///
    /// Fails with [`AgentError::Transcript`] when something is at `path` already (of kind
    /// [`AlreadyExists`](std::io::ErrorKind::AlreadyExists): nothing is replaced), when the path
    /// goes through a symbolic link in the working directory or ends in one, and when a write
    /// fails (which also stops a run).
    pub fn with_transcript(mut self, path: impl AsRef<Path>) -> Result<Session, AgentError> {
        self.transcript = Some(Transcript::create(
            path.as_ref(),
            &self.files,
            self.redactor.clone(),
        )?);
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
    pub(crate) fn push(&mut self, message: Message) -> Result<(), AgentError> {
        self.conversation.push(message);
        self.record(self.conversation.len() - 1, true)
    }

    /// Writes message `index` to the transcript, with the skill changes not yet recorded when
    /// `with_skills`.
    pub(crate) fn record(&mut self, index: usize, with_skills: bool) -> Result<(), AgentError> {
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
    /// [`budget`](crate::budget)), logs and records the cuts, and returns them.
    pub(crate) fn fit_context(
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
    pub(crate) fn activate(&mut self, skill: &'static Skill) {
        if !self.active.iter().any(|s| s.name() == skill.name()) {
            self.active.push(skill);
        }
    }

    /// The parsed `allowed-tools` entries of the active skills that list some.
    pub(crate) fn allowed_entries(&self) -> impl Iterator<Item = Entry<'static>> + '_ {
        self.active
            .iter()
            .flat_map(|skill| skill.allowed_tools())
            .filter_map(|entry| Entry::parse(entry).ok())
    }

    /// Whether an active skill lists `allowed-tools` (so strict mode narrows the tools).
    pub(crate) fn restricted(&self) -> bool {
        self.active.iter().any(|s| !s.allowed_tools().is_empty())
    }
}
