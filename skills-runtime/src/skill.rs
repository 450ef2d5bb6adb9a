//! [`Skill`]: one embedded skill, with zero-cost accessors into its embedded text.

use std::fmt;

use crate::__private::{SkillExtra, SkillParts, Span, resolve, resolve_optional};

/// One skill, validated and embedded at build time.
///
/// Every string is `&'static`: it lives in the binary. The body, name and description are slices
/// of the embedded file text rather than second copies.
#[derive(Clone, Copy)]
pub struct Skill {
    pub(crate) parts: SkillParts,
}

impl Skill {
    fn text(&self, span: Span) -> &'static str {
        resolve(self.parts.text, span)
    }

    fn optional(&self, span: Span) -> Option<&'static str> {
        resolve_optional(self.parts.text, span)
    }

    pub(crate) fn extra(&self) -> &'static SkillExtra {
        // `&NO_EXTRA` is promoted to a `'static` constant: one shared value, no allocation.
        self.parts.extra.unwrap_or(&crate::__private::NO_EXTRA)
    }

    /// The skill's name: its identifier, equal to its folder name (what `load_skill` and
    /// [`Registry::get`](crate::Registry::get) take).
    pub fn name(&self) -> &'static str {
        self.text(self.parts.name)
    }

    /// The name to show a person: Claude Code's display `name` (`Agent Development`) when it
    /// differs from the folder, else [`name`](Self::name).
    pub fn display_name(&self) -> &'static str {
        self.optional(self.extra().display_name)
            .unwrap_or_else(|| self.name())
    }

    /// Claude Code's `when_to_use`, if set; the catalog appends it to the description.
    pub fn when_to_use(&self) -> Option<&'static str> {
        self.optional(self.extra().when_to_use)
    }

    /// Claude Code's `argument-hint` (`[issue-number]`), shown to a person typing `/name`.
    pub fn argument_hint(&self) -> Option<&'static str> {
        self.optional(self.extra().argument_hint)
    }

    /// Claude Code's `arguments`: the names `$name` placeholders in the body refer to, in
    /// position order.
    pub fn argument_names(&self) -> &'static [&'static str] {
        self.extra().arguments
    }

    /// Whether the model may load this skill by itself: `false` with
    /// `disable-model-invocation: true`. Such a skill is left out of the catalogs, the system
    /// prompt and the `load_skill` names, but [`Registry::get`](crate::Registry::get) finds it.
    pub fn model_invocable(&self) -> bool {
        self.extra().model_invocable
    }

    /// Whether a person may invoke this skill as `/name`: Claude Code's `user-invocable`
    /// (default `true`).
    pub fn user_invocable(&self) -> bool {
        self.extra().user_invocable
    }

    /// Claude Code's `model`: the model to use while the skill is active, if set.
    pub fn model(&self) -> Option<&'static str> {
        self.optional(self.extra().model)
    }

    /// Claude Code's `effort`, if set.
    pub fn effort(&self) -> Option<crate::Effort> {
        self.extra().effort
    }

    /// Claude Code's `context`: [`Inherit`](crate::SkillContext::Inherit) unless `context: fork`.
    pub fn context(&self) -> crate::SkillContext {
        self.extra().context.unwrap_or(crate::SkillContext::Inherit)
    }

    /// Claude Code's `agent`: the agent a forked skill runs as, if set (only with
    /// `context: fork`, which the build checks).
    pub fn agent(&self) -> Option<&'static str> {
        self.optional(self.extra().agent)
    }

    /// Claude Code's `hooks`, kept as data: the mapping as compact JSON text (keys in source
    /// order, YAML scalars as JSON strings, numbers, booleans and `null`), e.g.
    /// `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh"}]}]}`.
    /// The build checks its shape (event names mapping to lists or mappings); nothing runs it.
    pub fn hooks(&self) -> Option<&'static str> {
        self.optional(self.extra().hooks)
    }

    /// Claude Code's `disallowed-tools`, one entry per tool, as written (`Bash(rm:*)`).
    pub fn disallowed_tools(&self) -> &'static [&'static str] {
        self.extra().disallowed_tools
    }

    /// Claude Code's `paths`: globs of the files the skill is about, one per entry.
    pub fn paths(&self) -> &'static [&'static str] {
        self.extra().paths
    }

    /// Claude Code's `shell`, if set.
    pub fn shell(&self) -> Option<crate::Shell> {
        self.extra().shell
    }

    /// The `description`, as written in the frontmatter (after YAML decoding).
    pub fn description(&self) -> &'static str {
        self.text(self.parts.description)
    }

    /// The instructions: the Markdown after the frontmatter, without leading blank lines or
    /// trailing whitespace.
    pub fn body(&self) -> &'static str {
        self.text(self.parts.body)
    }

    /// The whole `SKILL.md`, normalized (BOM dropped, line endings LF).
    pub fn content(&self) -> &'static str {
        resolve(self.parts.text, [0, self.parts.content_len])
    }

    /// SHA-256 of [`content`](Self::content), lowercase hex, computed at build time.
    pub fn sha256(&self) -> &'static str {
        self.text(self.parts.sha256)
    }

    /// Where the skill came from, relative to the crate that embedded it
    /// (`skills/<name>/SKILL.md`). For messages only: nothing is read from it.
    pub fn source_path(&self) -> &'static str {
        self.text(self.parts.path)
    }

    /// `license`, if set.
    pub fn license(&self) -> Option<&'static str> {
        self.optional(self.extra().license)
    }

    /// `compatibility`, if set.
    pub fn compatibility(&self) -> Option<&'static str> {
        self.optional(self.extra().compatibility)
    }

    /// `metadata`, as `(key, value)` pairs in source order.
    pub fn metadata(&self) -> &'static [(&'static str, &'static str)] {
        self.extra().metadata
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
        self.extra().allowed_tools
    }

    /// `version`, if set.
    pub fn version(&self) -> Option<&'static str> {
        self.optional(self.extra().version)
    }

    /// `tags`.
    pub fn tags(&self) -> &'static [&'static str] {
        self.extra().tags
    }

    /// `when-not-to-use`, if set.
    pub fn when_not_to_use(&self) -> Option<&'static str> {
        self.optional(self.extra().when_not_to_use)
    }

    /// `requires`: skills this one builds on.
    pub fn requires(&self) -> &'static [&'static str] {
        self.extra().requires
    }

    /// `conflicts-with`: skills not to combine with this one.
    pub fn conflicts_with(&self) -> &'static [&'static str] {
        self.extra().conflicts_with
    }

    /// The text the `load_skill` tool returns for this skill: the body inside
    /// `<skill name="..." version="...">` ... `</skill>` (the version only when set), then the
    /// list of its resource files when it has any.
    pub fn load_result(&self) -> String {
        self.load_result_with_dir(None)
    }

    /// The `load_skill` result, naming `resource_dir` as where the skill's files were written.
    pub(crate) fn load_result_with_dir(&self, resource_dir: Option<&str>) -> String {
        let resources: Vec<_> = self
            .resources()
            .iter()
            .map(|r| skills_core::render::ResourceEntry {
                path: r.path(),
                size: r.size(),
            })
            .collect();
        skills_core::render::load_skill_result(
            self.name(),
            self.version(),
            self.body(),
            &resources,
            resource_dir,
        )
    }

    pub(crate) fn catalog_entry(&self) -> skills_core::render::CatalogEntry<'static> {
        skills_core::render::CatalogEntry {
            name: self.name(),
            description: self.description(),
            when_to_use: self.when_to_use(),
            when_not_to_use: self.when_not_to_use(),
            model_invocable: self.model_invocable(),
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
        self.name() == other.name() && self.sha256() == other.sha256()
    }
}

impl Eq for Skill {}
