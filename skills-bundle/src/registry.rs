//! [`Registry`]: the skills compiled into the binary, whole, restricted or composed at run time.
//!
//! There is one type for all three, so every question (the catalog, a skill, the tool
//! definitions, `load_skill`, resources) is asked and answered one way. The representation
//! differs only underneath: the whole bundle is the macro's constant data; a restricted or
//! composed registry adds the list of its skills and the strings rendered for them.

use std::fmt;
use std::iter::FusedIterator;
use std::slice;
use std::sync::{Arc, OnceLock};

use skills_core::render;

use crate::bundle::{BundleData, EMPTY_BUNDLE, Skill, ToolJson};
use crate::error::{DuplicateSkill, InvokeError, ResourceError, UnknownSkill};
use crate::invoke::{InvokeOptions, Rendering};
use crate::tools;

/// The skills compiled into the binary by `embed_skills!`, or a subset of
/// them chosen at run time with [`restrict`](Self::restrict).
///
/// The whole bundle is a constant that only points at data in the binary: usable in a `static`
/// or `const`, and cloned by copying pointers. A restricted registry answers every method for its
/// own skills only (catalog, tool schemas, lookups, `load_skill`, resources); it renders its
/// catalog and tool definitions once, with the renderer the macro uses, and its clones share
/// them. Skills are sorted by name.
///
/// ```
/// static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");
///
/// let none = SKILLS.restrict::<_, &str>([]).unwrap();
/// assert!(none.get("greet").is_none());
/// assert_eq!(none.catalog(), skills_runtime::EMPTY_CATALOG);
/// assert!(SKILLS.restrict(["gret"]).is_err(), "a typo is an error, not a silent drop");
/// ```
#[derive(Clone)]
pub struct Registry {
    bundle: Bundle,
    /// `None`: the whole bundle.
    selection: Option<Arc<Selection>>,
}

/// What `embed_skills!` compiled: every skill, sorted by name, its tables and the catalog
/// rendered at build time.
#[derive(Clone, Copy)]
struct Bundle {
    data: &'static BundleData,
}

/// A run-time choice of skills, and the strings rendered for it.
struct Selection {
    /// The skills, sorted by name, without two of one name.
    skills: Box<[&'static Skill]>,
    /// For a subset of one bundle: the indices of `skills` in it, ascending, so a lookup by
    /// name is the bundle's hash index and an integer search. `None` for skills of several
    /// bundles, looked up by name.
    positions: Option<Box<[usize]>>,
    /// Whether the trigger cases of the bundle(s) the skills come from were compiled in.
    trigger_cases_embedded: bool,
    catalog: String,
    load_skill: ToolJson,
    /// Rendered on the first call, as the bundle's (see `tools.rs`).
    read_resource: OnceLock<ToolJson>,
}

impl Bundle {
    fn skills(&self) -> &'static [Skill] {
        self.data.skills()
    }

    /// The skill called `name` and its index: one hash and, almost always, one string
    /// comparison, whatever the number of skills.
    fn find(&self, name: &str) -> Option<(usize, &'static Skill)> {
        let data = self.data;
        let position = skills_core::index::lookup(data.index, name, |i| data.name(i))?;
        data.skills().get(position).map(|skill| (position, skill))
    }
}

impl Selection {
    /// `skills` sorted by name, without two of one name; `positions` as the field says.
    fn new(
        skills: Box<[&'static Skill]>,
        positions: Option<Box<[usize]>>,
        trigger_cases_embedded: bool,
    ) -> Self {
        let entries: Vec<_> = skills.iter().map(|s| s.catalog_entry()).collect();
        Selection {
            catalog: render::catalog_markdown(&entries),
            load_skill: tools::load_skill(&entries),
            read_resource: OnceLock::new(),
            skills,
            positions,
            trigger_cases_embedded,
        }
    }

    /// The chosen skill called `name` (a name, not a display name), given the bundle to look
    /// positions up in.
    fn find(&self, bundle: &Bundle, name: &str) -> Option<&'static Skill> {
        match &self.positions {
            Some(positions) => {
                let (position, skill) = bundle.find(name)?;
                positions.binary_search(&position).ok().map(|_| skill)
            }
            None => {
                let index = self.skills.binary_search_by(|s| s.name().cmp(name)).ok()?;
                Some(self.skills[index])
            }
        }
    }
}

impl Registry {
    /// A registry with no skills.
    pub const fn empty() -> Self {
        Registry::from_bundle(&EMPTY_BUNDLE)
    }

    /// The whole bundle the macro generated (see `__private::registry`).
    pub(crate) const fn from_bundle(data: &'static BundleData) -> Self {
        Registry {
            bundle: Bundle { data },
            selection: None,
        }
    }

    /// The SHA-256 (lowercase hex) of the lockfile the skills were checked against at build
    /// time, when `embed_skills!` was given `lock = "..."`; `None` otherwise.
    ///
    /// Every embedded file matched the lock, so this names the reviewed skill set the binary
    /// carries: print it in `--version` or logs, and compare it with `sha256sum skills.lock`.
    /// A restricted registry reports its bundle's lock; a [composed](Self::compose) one
    /// reports none, as no one lock covers its bundles (each of them reports its own).
    pub const fn lock_digest(&self) -> Option<&'static str> {
        self.bundle.data.lock_digest
    }

    /// Whether the skills' trigger cases were compiled in (`embed_skills!(..., embed_evals =
    /// true)`). Without them every [`Skill::trigger_cases`] is empty, whatever the skills' files
    /// hold: this tells "not embedded" from "no cases". A restricted registry reports its
    /// bundle's; a [composed](Self::compose) one whether any of its registries had them (the
    /// skills of the others then have no cases).
    pub fn trigger_cases_embedded(&self) -> bool {
        match &self.selection {
            None => self.bundle.data.triggers.is_some(),
            Some(selection) => selection.trigger_cases_embedded,
        }
    }

    /// The bundle's data (whole, whatever the selection; a composed registry's is empty).
    pub(crate) fn bundle_data(&self) -> &'static BundleData {
        self.bundle.data
    }

    /// The skill called `name`, if this registry has it: by its name, else by its display name
    /// when exactly one of this registry's skills has that one. The only lookup: every method
    /// that takes a name goes through it.
    fn find(&self, name: &str) -> Option<&'static Skill> {
        let by_name = match &self.selection {
            None => self.bundle.find(name).map(|(_, skill)| skill),
            Some(selection) => selection.find(&self.bundle, name),
        };
        if by_name.is_some() {
            return by_name;
        }
        match self.display_named(name).as_slice() {
            [only] => Some(*only),
            _ => None,
        }
    }

    /// The skills of this registry whose display name (one that differs from their name) is
    /// `name`. Only looked at when no skill is called `name`, so a name always wins over a display
    /// name.
    fn display_named(&self, name: &str) -> Vec<&'static Skill> {
        self.iter()
            .filter(|skill| skill.display_name() == name && skill.name() != name)
            .collect()
    }

    /// The error for `name`, a name this registry does not resolve, listing `available`: also
    /// naming the skills `name` is the display name of, when there are several.
    pub(crate) fn unknown_among(
        &self,
        name: &str,
        available: impl Iterator<Item = &'static str>,
    ) -> UnknownSkill {
        let ambiguous = self
            .display_named(name)
            .into_iter()
            .map(Skill::name)
            .collect();
        UnknownSkill::new(name, available).ambiguous_among(ambiguous)
    }

    /// The error for a name this registry does not have: it lists this registry's skills.
    pub(crate) fn unknown(&self, name: &str) -> UnknownSkill {
        self.unknown_among(name, self.names())
    }

    /// The Markdown catalog, one line per skill (`- name: description`); `(no skills found)`
    /// when empty. For the whole bundle it was computed at build time; nothing is allocated.
    pub fn catalog(&self) -> &str {
        self.selection
            .as_ref()
            .map_or(self.bundle.data.catalog, |s| &s.catalog)
    }

    /// The XML catalog (`<available_skills>`), the agentskills.io prompt format. Rendered on
    /// each call, so the binary carries only one catalog.
    pub fn catalog_xml(&self) -> String {
        let entries: Vec<_> = self.iter().map(Skill::catalog_entry).collect();
        render::catalog_xml(&entries)
    }

    /// The skill called `name`, if this registry has it; else the skill whose display name
    /// (Claude Code's `name: Agent Development` in `agent-development/`) is `name`, when only one
    /// skill has it. A name always wins: a display name that is another skill's name finds that
    /// other skill, and a display name that several skills share finds none (the errors of
    /// [`load_skill`](Self::load_skill) and [`invoke`](Self::invoke) then name them all).
    ///
    /// By name, the compile-time hash index: one hash and, almost always, one string comparison,
    /// whatever the number of skills, and no allocation. A restricted registry then also
    /// binary-searches its chosen positions (integers, not names); a composed one
    /// binary-searches its names. A display name is looked for among the skills only when no
    /// name matches.
    pub fn get(&self, name: &str) -> Option<&'static Skill> {
        self.find(name)
    }

    /// Whether this registry has a skill called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// The skills, sorted by name.
    pub fn iter(&self) -> Iter<'_> {
        Iter(match &self.selection {
            None => Positions::All(self.bundle.skills().iter()),
            Some(selection) => Positions::Chosen(selection.skills.iter()),
        })
    }

    /// The names of the skills, sorted.
    pub fn names(&self) -> impl DoubleEndedIterator<Item = &'static str> + ExactSizeIterator + '_ {
        self.iter().map(Skill::name)
    }

    /// Number of skills.
    pub fn len(&self) -> usize {
        self.selection
            .as_ref()
            .map_or(self.bundle.skills().len(), |s| s.skills.len())
    }

    /// Whether there are no skills.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The system prompt: `preamble`, then the catalog and a sentence about `load_skill`.
    /// With no skills the model is shown (see [`Skill::model_invocable`]), just the preamble.
    pub fn system_prompt(&self, preamble: &str) -> String {
        let entries: Vec<_> = self.iter().map(Skill::catalog_entry).collect();
        render::system_prompt(preamble, self.catalog(), render::listed(&entries).count())
    }

    /// `load_skill`'s definition: the bundle's, rendered on the first call in the process, or
    /// the restricted registry's, rendered when it was made.
    fn load_skill_json(&self) -> &ToolJson {
        match &self.selection {
            None => {
                let data = self.bundle.data;
                data.cache.load_skill.get_or_init(|| {
                    let entries: Vec<_> = data.skills().iter().map(Skill::catalog_entry).collect();
                    tools::load_skill(&entries)
                })
            }
            Some(selection) => &selection.load_skill,
        }
    }

    /// `read_skill_resource`'s definition, rendered on the first call.
    fn read_resource_json(&self) -> &ToolJson {
        let cell = match &self.selection {
            None => &self.bundle.data.cache.read_resource,
            Some(selection) => &selection.read_resource,
        };
        cell.get_or_init(|| tools::read_resource(self.iter()))
    }

    /// The `load_skill` tool definition in the Anthropic shape (`input_schema`), as JSON text
    /// listing the names of this registry's skills the model is shown. `None` when there are
    /// none (the tool is left out). Rendered once: for the whole bundle on the first call in
    /// the process, for a restricted registry when it is made.
    pub fn load_skill_tool_anthropic(&self) -> Option<&str> {
        tools::offered(&self.load_skill_json()[0])
    }

    /// The `load_skill` tool definition in the OpenAI shape (`function.parameters`); `None`
    /// when no skill is listed.
    pub fn load_skill_tool_openai(&self) -> Option<&str> {
        tools::offered(&self.load_skill_json()[1])
    }

    /// The `load_skill` result for `name`, or an error that lists the skills the model is shown
    /// and suggests the closest name. A `disable-model-invocation` skill is refused like an
    /// unknown one: `load_skill` is the model's tool (a person uses [`invoke`](Self::invoke)).
    /// (A conversation that should not get the same body twice uses a
    /// [`SkillLoader`](crate::SkillLoader).)
    pub fn load_skill(&self, name: &str) -> Result<String, UnknownSkill> {
        self.model_skill(name).map(Skill::load_result)
    }

    /// The skill `name` if the model may load it, else the error `load_skill` gives: the
    /// skills the model is shown, and the closest of them.
    pub(crate) fn model_skill(&self, name: &str) -> Result<&'static Skill, UnknownSkill> {
        self.get(name)
            .filter(|s| s.model_invocable())
            .ok_or_else(|| {
                self.unknown_among(
                    name,
                    self.iter().filter(|s| s.model_invocable()).map(Skill::name),
                )
            })
    }

    /// What a person's `/name arguments` turns into: the skill's body with Claude Code's
    /// substitutions (`$ARGUMENTS`, `$ARGUMENTS[N]`, `$N`, the named `$arg`s; see
    /// [`invoke`](crate::invoke)), wrapped as the `load_skill` result is
    /// (`<skill name="...">` ... `</skill>`, then the list of the skill's files), so the model
    /// reads a skill the same way whether it loaded it or a person invoked it. The caller sends
    /// the text as the user's turn, as Claude Code does (`agent::Agent::invoke`, with the
    /// `agent` feature, does that, and also runs `context: fork` skills in a child session).
    ///
    /// `${CLAUDE_*}` variables are left as written (see [`invoke_with`](Self::invoke_with)),
    /// and so are the skill's `` !`command` `` and ```` ```! ```` blocks: nothing runs here (see
    /// [`render_invocation`](Self::render_invocation)).
    ///
    /// Fails when this registry has no such skill (listing the ones a person may invoke and
    /// suggesting the closest), or when it says `user-invocable: false`. A skill with
    /// `disable-model-invocation: true` can be invoked: that flag only keeps the model from
    /// loading it.
    pub fn invoke(&self, name: &str, arguments: &str) -> Result<String, InvokeError> {
        self.invoke_with(name, arguments, &InvokeOptions::default())
    }

    /// [`invoke`](Self::invoke), with the skill's files written under `resource_dir` (see
    /// [`Skill::materialize`]) when it has any, and `${CLAUDE_SKILL_DIR}` replaced by their
    /// folder. If the files cannot be written the text says so, and `${CLAUDE_SKILL_DIR}` stays
    /// as written (the files can still be read with `read_skill_resource`).
    pub fn invoke_in(
        &self,
        name: &str,
        arguments: &str,
        resource_dir: &std::path::Path,
    ) -> Result<String, InvokeError> {
        let options = InvokeOptions {
            resource_dir: Some(resource_dir),
            ..InvokeOptions::default()
        };
        self.invoke_with(name, arguments, &options)
    }

    /// [`invoke`](Self::invoke) with `options`: where to write the skill's files, and the
    /// values of `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}`.
    pub fn invoke_with(
        &self,
        name: &str,
        arguments: &str,
        options: &InvokeOptions<'_>,
    ) -> Result<String, InvokeError> {
        Ok(self.render_invocation(name, arguments, options)?.text())
    }

    /// The text of [`invoke_with`](Self::invoke_with) before its shell commands are run: a
    /// [`Rendering`] lists them (substituted as the text around them is) and puts their
    /// outputs in place, for a caller that runs them.
    pub fn render_invocation(
        &self,
        name: &str,
        arguments: &str,
        options: &InvokeOptions<'_>,
    ) -> Result<Rendering, InvokeError> {
        let skill = self
            .get(name)
            .filter(|s| s.user_invocable())
            .ok_or_else(|| match self.get(name) {
                Some(skill) => InvokeError::NotUserInvocable { name: skill.name() },
                None => InvokeError::Unknown(self.unknown_among(
                    name,
                    self.iter().filter(|s| s.user_invocable()).map(Skill::name),
                )),
            })?;
        Ok(Rendering::new(skill, Some(arguments), options))
    }

    /// The names of the skills the model may load that ship files besides `SKILL.md`, sorted:
    /// the names the `read_skill_resource` tool offers (a `disable-model-invocation` skill is
    /// left out, as it is from the catalog).
    pub fn names_with_resources(&self) -> Vec<&'static str> {
        tools::names_with_resources(self.iter())
    }

    /// The `read_skill_resource` tool (Anthropic shape), as JSON text listing
    /// [`names_with_resources`](Self::names_with_resources), or `None` when no skill of this
    /// registry ships files (the tool is then left out). Rendered once, as `load_skill`'s.
    pub fn read_resource_tool_anthropic(&self) -> Option<&str> {
        tools::offered(&self.read_resource_json()[0])
    }

    /// The `read_skill_resource` tool (OpenAI shape), or `None` when no skill ships files.
    pub fn read_resource_tool_openai(&self) -> Option<&str> {
        tools::offered(&self.read_resource_json()[1])
    }

    /// Handles `read_skill_resource(skill, path, offset, limit)`: see [`Skill::read_resource`].
    pub fn read_resource(
        &self,
        skill: &str,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<String, ResourceError> {
        self.get(skill)
            .ok_or_else(|| ResourceError::UnknownSkill(self.unknown(skill)))?
            .read_resource(path, offset, limit)
    }

    /// Only the skills named in `allow` (a deployment can switch skills off without a rebuild):
    /// every method of the returned registry respects the list. Restricting a restricted
    /// registry narrows it further.
    ///
    /// Fails on the first name that this registry does not have, so a typo in a deployment's
    /// configuration is loud rather than silently dropping a skill.
    pub fn restrict<I, S>(&self, allow: I) -> Result<Registry, UnknownSkill>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut skills = Vec::new();
        for name in allow {
            let name = name.as_ref();
            skills.push(self.find(name).ok_or_else(|| self.unknown(name))?);
        }
        skills.sort_unstable_by_key(|skill| skill.name());
        skills.dedup_by_key(|skill| skill.name());
        let composed = self
            .selection
            .as_ref()
            .is_some_and(|selection| selection.positions.is_none());
        // Of one bundle: the positions there too (sorted as the names are), for lookups.
        let positions = (!composed).then(|| {
            skills
                .iter()
                .filter_map(|skill| self.bundle.find(skill.name()).map(|(i, _)| i))
                .collect()
        });
        Ok(Registry {
            bundle: self.bundle,
            selection: Some(Arc::new(Selection::new(
                skills.into(),
                positions,
                self.trigger_cases_embedded(),
            ))),
        })
    }

    /// One registry of the skills of all `registries`, for a program that chooses its skill
    /// packs by configuration at run time: each pack's registry (whole or
    /// [restricted](Self::restrict)) and the program's own. Every method answers for all of
    /// them; the skills stay sorted by name.
    ///
    /// Fails when two of the registries have a skill of the same name, naming it: one would
    /// shadow the other, which is what compiling packs together with `embed_skills!` rejects
    /// at build time too. Display names resolve across all of them, as in one bundle: a display
    /// name that skills of two registries share is ambiguous, and the errors name both.
    ///
    /// ```
    /// use skills_runtime::Registry;
    /// static OWN: Registry = skills_runtime::embed_skills!("tests/skills");
    ///
    /// let empty = Registry::empty();
    /// let both = Registry::compose([&OWN, &empty]).unwrap();
    /// assert_eq!(both.names().collect::<Vec<_>>(), ["greet"]);
    /// let twice = Registry::compose([&OWN, &OWN]).unwrap_err();
    /// assert_eq!(twice.name(), "greet");
    /// ```
    pub fn compose<'a, I>(registries: I) -> Result<Registry, DuplicateSkill>
    where
        I: IntoIterator<Item = &'a Registry>,
    {
        let mut skills: Vec<&'static Skill> = Vec::new();
        let mut trigger_cases_embedded = false;
        for registry in registries {
            skills.extend(registry.iter());
            trigger_cases_embedded |= registry.trigger_cases_embedded();
        }
        skills.sort_by_key(|skill| skill.name());
        if let Some(pair) = skills
            .windows(2)
            .find(|pair| pair[0].name() == pair[1].name())
        {
            return Err(DuplicateSkill::new(pair[0].name()));
        }
        Ok(Registry {
            bundle: Bundle {
                data: &EMPTY_BUNDLE,
            },
            selection: Some(Arc::new(Selection::new(
                skills.into(),
                None,
                trigger_cases_embedded,
            ))),
        })
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

/// A clone: lets APIs that take `impl Into<Registry>` borrow a `static`.
impl From<&Registry> for Registry {
    fn from(registry: &Registry) -> Self {
        registry.clone()
    }
}

impl<'a> IntoIterator for &'a Registry {
    type Item = &'static Skill;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The skills of a [`Registry`], sorted by name: see [`Registry::iter`].
#[derive(Clone, Debug)]
pub struct Iter<'a>(Positions<'a>);

#[derive(Clone, Debug)]
enum Positions<'a> {
    All(slice::Iter<'static, Skill>),
    Chosen(slice::Iter<'a, &'static Skill>),
}

impl Iterator for Iter<'_> {
    type Item = &'static Skill;

    fn next(&mut self) -> Option<&'static Skill> {
        match &mut self.0 {
            Positions::All(skills) => skills.next(),
            Positions::Chosen(skills) => skills.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            Positions::All(skills) => skills.size_hint(),
            Positions::Chosen(skills) => skills.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<&'static Skill> {
        match &mut self.0 {
            Positions::All(skills) => skills.next_back(),
            Positions::Chosen(skills) => skills.next_back().copied(),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl FusedIterator for Iter<'_> {}
