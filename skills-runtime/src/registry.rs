//! [`Registry`], the static bundle, and [`SkillSet`], a registry restricted at run time.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;

use skills_core::render;

use crate::{ResourceError, Skill};

/// The skills compiled into the binary by [`embed_skills!`](crate::embed_skills).
///
/// A `Registry` is `Copy` and usable in a `static`: it only points at data in the binary.
/// Skills are sorted by name; lookups are a binary search.
#[derive(Clone, Copy)]
pub struct Registry {
    pub(crate) skills: &'static [Skill],
    /// Hash table of the names (see `skills_core::index`), built at compile time.
    pub(crate) index: &'static [u32],
    pub(crate) catalog: &'static str,
    pub(crate) tool_anthropic: &'static str,
    pub(crate) tool_openai: &'static str,
}

impl Registry {
    /// A registry with no skills.
    pub const fn empty() -> Self {
        Registry {
            skills: &[],
            index: &[],
            catalog: render::EMPTY_CATALOG,
            tool_anthropic: "",
            tool_openai: "",
        }
    }

    /// The Markdown catalog, one line per skill (`- name: description`), computed at build time.
    /// `(no skills found)` when empty.
    pub fn catalog(&self) -> &'static str {
        self.catalog
    }

    /// The XML catalog (`<available_skills>`), the agentskills.io prompt format. Rendered on
    /// each call, so the binary carries only one catalog.
    pub fn catalog_xml(&self) -> String {
        let entries: Vec<_> = self.skills.iter().map(Skill::catalog_entry).collect();
        render::catalog_xml(&entries)
    }

    /// The skill called `name`.
    /// One hash and, almost always, one string comparison, whatever the number of skills.
    pub fn get(&self, name: &str) -> Option<&'static Skill> {
        let skills = self.skills;
        let name_at = |i: usize| skills.get(i).map_or("", Skill::name);
        skills_core::index::lookup(self.index, name, name_at).and_then(|i| skills.get(i))
    }

    /// Whether a skill called `name` exists.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// All skills, sorted by name.
    pub fn iter(&self) -> std::slice::Iter<'static, Skill> {
        self.skills.iter()
    }

    /// The names of all skills, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + 'static {
        self.skills.iter().map(Skill::name)
    }

    /// Number of skills.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether there are no skills.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The system prompt: `preamble`, then the catalog and a sentence about `load_skill`
    /// (DESIGN section 4). With no skills, just the preamble.
    pub fn system_prompt(&self, preamble: &str) -> String {
        render::system_prompt(preamble, self.catalog, self.len())
    }

    /// The `load_skill` tool definition in the Anthropic shape (`input_schema`), as JSON text
    /// computed at build time. `None` when there are no skills (the tool is left out).
    pub fn load_skill_tool_anthropic(&self) -> Option<&'static str> {
        (!self.is_empty()).then_some(self.tool_anthropic)
    }

    /// The `load_skill` tool definition in the OpenAI shape (`function.parameters`).
    pub fn load_skill_tool_openai(&self) -> Option<&'static str> {
        (!self.is_empty()).then_some(self.tool_openai)
    }

    /// The `load_skill` result for `name`, or an error that lists the available skills and
    /// suggests the closest name.
    pub fn load_skill(&self, name: &str) -> Result<String, UnknownSkill> {
        self.get(name)
            .map(Skill::load_result)
            .ok_or_else(|| UnknownSkill::new(name, self.names()))
    }

    /// Every skill, as a [`SkillSet`].
    pub fn to_set(&self) -> SkillSet {
        SkillSet {
            skills: self.skills.iter().collect(),
            catalog: Cow::Borrowed(self.catalog),
            tool_anthropic: Cow::Borrowed(self.tool_anthropic),
            tool_openai: Cow::Borrowed(self.tool_openai),
        }
    }

    /// Only the skills named in `allow` (a deployment can switch skills off without a rebuild).
    /// The returned set's catalog, tool schema and lookups all respect the list.
    ///
    /// Fails on the first name that is not in the registry, so a typo in a deployment's
    /// configuration is loud rather than silently dropping a skill.
    pub fn restrict<I, S>(&self, allow: I) -> Result<SkillSet, UnknownSkill>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut chosen = BTreeSet::new();
        for name in allow {
            let name = name.as_ref();
            let skill = self
                .get(name)
                .ok_or_else(|| UnknownSkill::new(name, self.names()))?;
            chosen.insert(skill.name());
        }
        let skills: Vec<&'static Skill> = self
            .skills
            .iter()
            .filter(|s| chosen.contains(s.name()))
            .collect();
        Ok(SkillSet::from_sorted(skills))
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::empty()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl IntoIterator for &Registry {
    type Item = &'static Skill;
    type IntoIter = std::slice::Iter<'static, Skill>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A subset of a [`Registry`] chosen at run time, with its own catalog and tool schema.
///
/// Build one with [`Registry::restrict`] or [`Registry::to_set`]. The full set borrows the
/// build-time strings; a restricted one renders its own once, with the same renderer.
#[derive(Clone, Debug)]
pub struct SkillSet {
    skills: Vec<&'static Skill>,
    catalog: Cow<'static, str>,
    tool_anthropic: Cow<'static, str>,
    tool_openai: Cow<'static, str>,
}

impl SkillSet {
    fn from_sorted(skills: Vec<&'static Skill>) -> Self {
        let entries: Vec<_> = skills.iter().map(|s| s.catalog_entry()).collect();
        let names: Vec<&str> = skills.iter().map(|s| s.name()).collect();
        let (tool_anthropic, tool_openai) = if names.is_empty() {
            (String::new(), String::new())
        } else {
            (
                render::load_skill_tool_anthropic(&names),
                render::load_skill_tool_openai(&names),
            )
        };
        SkillSet {
            catalog: Cow::Owned(render::catalog_markdown(&entries)),
            tool_anthropic: Cow::Owned(tool_anthropic),
            tool_openai: Cow::Owned(tool_openai),
            skills,
        }
    }

    /// The Markdown catalog of the skills in this set.
    pub fn catalog(&self) -> &str {
        &self.catalog
    }

    /// The XML catalog of the skills in this set.
    pub fn catalog_xml(&self) -> String {
        let entries: Vec<_> = self.skills.iter().map(|s| s.catalog_entry()).collect();
        render::catalog_xml(&entries)
    }

    /// The skill called `name`, if it is in this set.
    pub fn get(&self, name: &str) -> Option<&'static Skill> {
        self.skills
            .binary_search_by(|skill| skill.name().cmp(name))
            .ok()
            .map(|index| self.skills[index])
    }

    /// Whether a skill called `name` is in this set.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The skills, sorted by name.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'static Skill> + '_ {
        self.skills.iter().copied()
    }

    /// The names of the skills, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.skills.iter().map(|s| s.name())
    }

    /// Number of skills.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The system prompt for this set (see [`Registry::system_prompt`]).
    pub fn system_prompt(&self, preamble: &str) -> String {
        render::system_prompt(preamble, &self.catalog, self.len())
    }

    /// The `load_skill` tool (Anthropic shape) listing this set's names; `None` when empty.
    pub fn load_skill_tool_anthropic(&self) -> Option<&str> {
        (!self.is_empty()).then_some(&*self.tool_anthropic)
    }

    /// The `load_skill` tool (OpenAI shape) listing this set's names; `None` when empty.
    pub fn load_skill_tool_openai(&self) -> Option<&str> {
        (!self.is_empty()).then_some(&*self.tool_openai)
    }

    /// The `load_skill` result for `name`, or an error naming the skills of this set.
    pub fn load_skill(&self, name: &str) -> Result<String, UnknownSkill> {
        self.get(name)
            .map(Skill::load_result)
            .ok_or_else(|| UnknownSkill::new(name, self.names()))
    }

    /// The skills that ship files besides `SKILL.md`.
    pub fn names_with_resources(&self) -> Vec<&'static str> {
        self.skills
            .iter()
            .filter(|s| !s.resources().is_empty())
            .map(|s| s.name())
            .collect()
    }

    /// The `read_skill_resource` tool (Anthropic shape), or `None` when no skill of this set
    /// ships files (the tool is then left out).
    pub fn read_resource_tool_anthropic(&self) -> Option<String> {
        let names = self.names_with_resources();
        (!names.is_empty()).then(|| render::read_resource_tool_anthropic(&names))
    }

    /// The `read_skill_resource` tool (OpenAI shape), or `None` when no skill ships files.
    pub fn read_resource_tool_openai(&self) -> Option<String> {
        let names = self.names_with_resources();
        (!names.is_empty()).then(|| render::read_resource_tool_openai(&names))
    }

    /// Handles `read_skill_resource(skill, path, offset, limit)`: see [`Skill::read_resource`].
    pub fn read_resource(
        &self,
        skill: &str,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<String, ResourceError> {
        let found = self
            .get(skill)
            .ok_or_else(|| ResourceError::UnknownSkill(UnknownSkill::new(skill, self.names())))?;
        found.read_resource(path, offset, limit)
    }
}

impl From<Registry> for SkillSet {
    fn from(registry: Registry) -> Self {
        registry.to_set()
    }
}

impl From<&Registry> for SkillSet {
    fn from(registry: &Registry) -> Self {
        registry.to_set()
    }
}

/// A skill name that is not in the registry or set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSkill {
    requested: String,
    available: Vec<&'static str>,
}

impl UnknownSkill {
    pub(crate) fn new(requested: &str, available: impl Iterator<Item = &'static str>) -> Self {
        UnknownSkill {
            requested: requested.to_owned(),
            available: available.collect(),
        }
    }

    /// The name that was asked for.
    pub fn requested(&self) -> &str {
        &self.requested
    }

    /// The names that exist.
    pub fn available(&self) -> &[&'static str] {
        &self.available
    }

    /// The closest existing name, if one is close enough to be a likely typo.
    pub fn suggestion(&self) -> Option<&'static str> {
        render::closest_match(&self.requested, self.available.iter().copied())
    }
}

impl fmt::Display for UnknownSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render::unknown_skill_message(
            &self.requested,
            &self.available,
        ))
    }
}

impl std::error::Error for UnknownSkill {}
