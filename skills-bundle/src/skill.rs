//! [`Skill`]: one embedded skill, with accessors that decode its compact record in the bundle.

use std::fmt;

use skills_core::layout::{Field, switches};

use crate::bundle::Skill;

impl Skill {
    fn optional(&self, field: Field) -> Option<&'static str> {
        self.record().text(field)
    }

    /// The skill's name: its identifier, equal to its folder name (what `load_skill` and
    /// [`Registry::get`](crate::Registry::get) take).
    pub fn name(&self) -> &'static str {
        self.data.name(self.index as usize)
    }

    /// The name to show a person: Claude Code's `display-name`, or its display `name` (`Agent
    /// Development`) when it differs from the folder, or Codex's `interface.display_name` (in
    /// `agents/openai.yaml`) when `SKILL.md` gives none; else [`name`](Self::name).
    pub fn display_name(&self) -> &'static str {
        self.optional(Field::DisplayName)
            .unwrap_or_else(|| self.name())
    }

    /// Claude Code's `when_to_use`, if set; the catalog appends it to the description.
    pub fn when_to_use(&self) -> Option<&'static str> {
        self.optional(Field::WhenToUse)
    }

    /// Claude Code's `argument-hint` (`[issue-number]`), shown to a person typing `/name`.
    pub fn argument_hint(&self) -> Option<&'static str> {
        self.optional(Field::ArgumentHint)
    }

    /// Claude Code's `arguments`: the names `$name` placeholders in the body refer to, in
    /// position order.
    pub fn argument_names(&self) -> &'static [&'static str] {
        self.list(Field::Arguments)
    }

    /// Whether the model may load this skill by itself: `false` with
    /// `disable-model-invocation: true`, or with `allow_implicit_invocation: false` in Codex's
    /// `agents/openai.yaml`. Such a skill is left out of the catalogs, the system
    /// prompt and the `load_skill` names, but [`Registry::get`](crate::Registry::get) finds it.
    pub fn model_invocable(&self) -> bool {
        !self.record().header().has(Field::NotModelInvocable)
    }

    /// Whether a person may invoke this skill as `/name`: Claude Code's `user-invocable`
    /// (default `true`).
    pub fn user_invocable(&self) -> bool {
        !self.record().header().has(Field::NotUserInvocable)
    }

    /// Claude Code's `model`: the model to use while the skill is active, if set.
    pub fn model(&self) -> Option<&'static str> {
        self.optional(Field::Model)
    }

    /// Claude Code's `effort`, if set.
    pub fn effort(&self) -> Option<crate::Effort> {
        let position = self.record().number(Field::Effort)?;
        crate::Effort::ALL.get(position).copied()
    }

    /// Claude Code's `context`: [`Inherit`](crate::SkillContext::Inherit) unless `context: fork`.
    pub fn context(&self) -> crate::SkillContext {
        self.record()
            .number(Field::Context)
            .and_then(|position| crate::SkillContext::ALL.get(position).copied())
            .unwrap_or(crate::SkillContext::Inherit)
    }

    /// Claude Code's `agent`: the agent a forked skill runs as, if set (only with
    /// `context: fork`, which the build checks).
    pub fn agent(&self) -> Option<&'static str> {
        self.optional(Field::Agent)
    }

    /// Claude Code's `hooks`, kept as data: the mapping as compact JSON text (keys in source
    /// order, YAML scalars as JSON strings, numbers, booleans and `null`), e.g.
    /// `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh"}]}]}`.
    /// The build checks its shape (event names mapping to lists or mappings); nothing runs it.
    pub fn hooks(&self) -> Option<&'static str> {
        self.optional(Field::Hooks)
    }

    /// Claude Code's `disallowed-tools`, one entry per tool, as written (`Bash(rm:*)`).
    pub fn disallowed_tools(&self) -> &'static [&'static str] {
        self.list(Field::DisallowedTools)
    }

    /// Claude Code's `paths`: globs of the files the skill is about, one per entry.
    pub fn paths(&self) -> &'static [&'static str] {
        self.list(Field::Paths)
    }

    /// Claude Code's `background`, if set (only with `context: fork`, which the build checks):
    /// whether the fork runs in the background (Claude Code's default) or the caller waits for
    /// it. Kept as data; the agent's forks always run to their end before the turn goes on.
    pub fn background(&self) -> Option<bool> {
        let bits = self.switches();
        (bits & switches::BACKGROUND_SET != 0).then_some(bits & switches::BACKGROUND != 0)
    }

    /// Claude Code's `default-enabled` (default `true`): whether the skill starts enabled in a
    /// host that lets a person turn skills on and off. Kept as data; a registry holds what it
    /// was built or [restricted](crate::Registry::restrict) with.
    pub fn default_enabled(&self) -> bool {
        self.switches() & switches::NOT_DEFAULT_ENABLED == 0
    }

    /// Claude Code's `fallback` (default `false`): whether the skill yields to a plugin's or an
    /// MCP server's skill of the same name. Kept as data.
    pub fn fallback(&self) -> bool {
        self.switches() & switches::FALLBACK != 0
    }

    fn switches(&self) -> u32 {
        self.record()
            .number(Field::ClaudeSwitches)
            .map_or(0, |bits| bits as u32)
    }

    /// The skill's `agents/openai.yaml` (Codex's file), as the build read and checked it, if
    /// the skill has one.
    pub fn openai(&self) -> Option<crate::OpenAiYaml> {
        let pairs = self.pairs(Field::OpenAi);
        self.record()
            .header()
            .has(Field::OpenAi)
            .then_some(crate::OpenAiYaml { pairs })
    }

    /// Claude Code's `shell`, if set.
    pub fn shell(&self) -> Option<crate::Shell> {
        let position = self.record().number(Field::Shell)?;
        crate::Shell::ALL.get(position).copied()
    }

    /// Claude Code's `` !`command` `` and ```` ```! ```` blocks of the body, in order, as the
    /// build found them (under `compat = "claude-code"`; none otherwise). Nothing runs them
    /// here: see [`Rendering`](crate::invoke::Rendering).
    pub fn shell_commands(&self) -> Vec<crate::invoke::ShellCommand> {
        let record = self.record();
        let body_start = record.header().body[0] as usize;
        record
            .commands(Field::ShellCommands)
            .into_iter()
            .filter_map(|(start, construct, command)| {
                let start = start.checked_sub(body_start)?;
                Some(crate::invoke::ShellCommand {
                    range: start..start + construct.len(),
                    command,
                })
            })
            .collect()
    }

    /// The `description`, as written in the frontmatter (after YAML decoding).
    pub fn description(&self) -> &'static str {
        let record = self.record();
        record.slice(record.header().description)
    }

    /// The instructions: the Markdown after the frontmatter, without leading blank lines or
    /// trailing whitespace.
    pub fn body(&self) -> &'static str {
        let record = self.record();
        record.slice(record.header().body)
    }

    /// The whole `SKILL.md`, normalized (BOM dropped, line endings LF).
    pub fn content(&self) -> &'static str {
        let record = self.record();
        record.slice([0, record.header().content_len])
    }

    /// SHA-256 of [`content`](Self::content), lowercase hex, computed at build time (the
    /// binary holds the 32 bytes; the hex of the whole bundle is written out on first use).
    pub fn sha256(&self) -> &'static str {
        self.data.hex(self.index as usize)
    }

    /// Where the skill came from, relative to the crate that embedded it
    /// (`skills/<name>/SKILL.md`). For messages only: nothing is read from it. The binary holds
    /// the root and the name; the paths of the whole bundle are written out on first use.
    pub fn source_path(&self) -> &'static str {
        self.path()
    }

    /// `license`, if set.
    pub fn license(&self) -> Option<&'static str> {
        self.optional(Field::License)
    }

    /// `compatibility`, if set.
    pub fn compatibility(&self) -> Option<&'static str> {
        self.optional(Field::Compatibility)
    }

    /// `metadata`, as `(key, value)` pairs in source order.
    pub fn metadata(&self) -> &'static [(&'static str, &'static str)] {
        self.pairs(Field::Metadata)
    }

    /// The value of one `metadata` key.
    pub fn metadata_value(&self, key: &str) -> Option<&'static str> {
        self.metadata()
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    /// `allowed-tools`, one entry per tool, as written (`Read`, `Bash(git diff:*)`): a string
    /// is split at spaces and commas outside parentheses. Parse an entry with
    /// `skills_core::allowed_tools::Entry`.
    pub fn allowed_tools(&self) -> &'static [&'static str] {
        self.list(Field::AllowedTools)
    }

    /// `version`, if set.
    pub fn version(&self) -> Option<&'static str> {
        self.optional(Field::Version)
    }

    /// `tags`.
    pub fn tags(&self) -> &'static [&'static str] {
        self.list(Field::Tags)
    }

    /// `when-not-to-use`, if set.
    pub fn when_not_to_use(&self) -> Option<&'static str> {
        self.optional(Field::WhenNotToUse)
    }

    /// `requires`: skills this one builds on.
    pub fn requires(&self) -> &'static [&'static str] {
        self.list(Field::Requires)
    }

    /// `conflicts-with`: skills not to combine with this one.
    pub fn conflicts_with(&self) -> &'static [&'static str] {
        self.list(Field::ConflictsWith)
    }

    /// The skill's trigger cases (`evals/triggers.json`) in file order: queries for which the
    /// model should, or should not, load it. Compiled in only with `embed_skills!(...,
    /// embed_evals = true)`, and never shown to the model; empty otherwise (see
    /// [`Registry::trigger_cases_embedded`](crate::Registry::trigger_cases_embedded)).
    pub fn trigger_cases(&self) -> &'static [crate::TriggerCase] {
        self.data.trigger_cases(self.index as usize)
    }

    /// This skill's text for `arguments` (`None`: a load by the model, which substitutes the
    /// `${CLAUDE_*}` variables only), with its files written first when `options` says where:
    /// what [`Registry::render_invocation`](crate::Registry::render_invocation) gives once it
    /// found the skill and a person may invoke it.
    pub fn render(
        &self,
        arguments: Option<&str>,
        options: &crate::invoke::InvokeOptions<'_>,
    ) -> crate::invoke::Rendering {
        crate::invoke::Rendering::new(self, arguments, options)
    }

    /// The text the `load_skill` tool returns for this skill: the body inside
    /// `<skill name="..." version="...">` ... `</skill>` (the version only when set), then the
    /// list of its resource files when it has any.
    /// (`${CLAUDE_*}` and shell commands stay as written; a [`SkillLoader`](crate::SkillLoader)
    /// can substitute the variables.)
    pub fn load_result(&self) -> String {
        self.render(None, &crate::invoke::InvokeOptions::default())
            .text()
    }

    /// What the catalog shows of this skill: its name, description, `when_to_use` and
    /// `when-not-to-use`, and whether the model is shown it at all.
    pub fn catalog_entry(&self) -> crate::CatalogEntry<'static> {
        let record = self.record();
        skills_core::render::CatalogEntry {
            name: self.name(),
            description: record.slice(record.header().description),
            when_to_use: record.text(Field::WhenToUse),
            when_not_to_use: record.text(Field::WhenNotToUse),
            model_invocable: !record.header().has(Field::NotModelInvocable),
        }
    }
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("name", &self.name())
            .field("version", &self.version())
            .field("sha256", &self.sha256())
            .field("source_path", &self.source_path())
            .finish_non_exhaustive()
    }
}

impl PartialEq for Skill {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
            && self.data.hash(self.index as usize) == other.data.hash(other.index as usize)
    }
}

impl Eq for Skill {}
