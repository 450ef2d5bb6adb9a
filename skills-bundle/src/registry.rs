//! [`Registry`]: the skills compiled into the binary, whole, restricted or composed at run time.
//!
//! There is one type for all three, so every question (the catalog, a skill, the tool
//! definitions, `load_skill`, resources) is asked and answered one way. The representation
//! differs only underneath: the whole bundle is the macro's constant data; a restricted or
//! composed registry adds the list of its skills and the strings rendered for them.

use std::fmt;
use std::iter::FusedIterator;
use std::slice;
use std::sync::Arc;

use skills_core::render;

use crate::bundle::{BundleData, EMPTY_BUNDLE, Skill, ToolJson};
use crate::error::{DuplicateSkill, InvokeError, ResourceError, UnknownSkill};
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
    /// For a subset of one bundle: the indices of `skills` in it, ascending (only
    /// [`Bundle::find`] produces them), so a lookup is the bundle's hash index and an integer
    /// search. `None` for skills of several bundles, looked up by name.
    positions: Option<Box<[usize]>>,
    catalog: String,
    tools: ToolJson,
}

impl Bundle {
    fn skills(&self) -> &'static [Skill] {
        self.data.skills
    }

    /// The skill called `name` and its index: one hash and, almost always, one string
    /// comparison, whatever the number of skills.
    fn find(&self, name: &str) -> Option<(usize, &'static Skill)> {
        let data = self.data;
        let position = skills_core::index::lookup(data.index, name, |i| data.name(i))?;
        data.skills.get(position).map(|skill| (position, skill))
    }
}

impl Selection {
    /// `skills` sorted by name, without two of one name; `positions` as the field says.
    fn new(skills: Box<[&'static Skill]>, positions: Option<Box<[usize]>>) -> Self {
        let entries: Vec<_> = skills.iter().map(|s| s.catalog_entry()).collect();
        Selection {
            catalog: render::catalog_markdown(&entries),
            tools: ToolJson::render(skills.iter().copied()),
            skills,
            positions,
        }
    }

    /// The chosen skill called `name`, given the bundle to look positions up in.
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

    /// The skill called `name`, if this registry has it. The only lookup: every method that
    /// takes a name goes through it.
    fn find(&self, name: &str) -> Option<&'static Skill> {
        match &self.selection {
            None => self.bundle.find(name).map(|(_, skill)| skill),
            Some(selection) => selection.find(&self.bundle, name),
        }
    }

    /// The error for a name this registry does not have: it lists this registry's skills.
    pub(crate) fn unknown(&self, name: &str) -> UnknownSkill {
        UnknownSkill::new(name, self.names())
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

    /// The skill called `name`, if this registry has it.
    ///
    /// The compile-time hash index: one hash and, almost always, one string comparison,
    /// whatever the number of skills, and no allocation. A restricted registry then also
    /// binary-searches its chosen positions (integers, not names); a composed one
    /// binary-searches its names.
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

    /// The definitions of the skill tools: the bundle's, rendered on the first call in the
    /// process, or the restricted registry's, rendered when it was made.
    fn tool_json(&self) -> &ToolJson {
        match &self.selection {
            None => {
                let data = self.bundle.data;
                data.cache
                    .tools
                    .get_or_init(|| ToolJson::render(data.skills.iter()))
            }
            Some(selection) => &selection.tools,
        }
    }

    /// The `load_skill` tool definition in the Anthropic shape (`input_schema`), as JSON text
    /// listing the names of this registry's skills the model is shown. `None` when there are
    /// none (the tool is left out). Rendered once: for the whole bundle on the first call in
    /// the process, for a restricted registry when it is made.
    pub fn load_skill_tool_anthropic(&self) -> Option<&str> {
        tools::offered(&self.tool_json().load_skill[0])
    }

    /// The `load_skill` tool definition in the OpenAI shape (`function.parameters`); `None`
    /// when no skill is listed.
    pub fn load_skill_tool_openai(&self) -> Option<&str> {
        tools::offered(&self.tool_json().load_skill[1])
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
                UnknownSkill::new(
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
    /// `${CLAUDE_SKILL_DIR}` is left as written: use [`invoke_in`](Self::invoke_in) to write
    /// the skill's files to disk and name their folder.
    ///
    /// Fails when this registry has no such skill (listing the ones a person may invoke and
    /// suggesting the closest), or when it says `user-invocable: false`. A skill with
    /// `disable-model-invocation: true` can be invoked: that flag only keeps the model from
    /// loading it.
    pub fn invoke(&self, name: &str, arguments: &str) -> Result<String, InvokeError> {
        self.invoke_with_dir(name, arguments, None)
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
        self.invoke_with_dir(name, arguments, Some(resource_dir))
    }

    fn invoke_with_dir(
        &self,
        name: &str,
        arguments: &str,
        resource_dir: Option<&std::path::Path>,
    ) -> Result<String, InvokeError> {
        let skill = self
            .get(name)
            .filter(|s| s.user_invocable())
            .ok_or_else(|| match self.get(name) {
                Some(skill) => InvokeError::NotUserInvocable { name: skill.name() },
                None => InvokeError::Unknown(UnknownSkill::new(
                    name,
                    self.iter().filter(|s| s.user_invocable()).map(Skill::name),
                )),
            })?;
        Ok(crate::invoke::invocation_text(
            skill,
            arguments,
            resource_dir,
        ))
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
        tools::offered(&self.tool_json().read_resource[0])
    }

    /// The `read_skill_resource` tool (OpenAI shape), or `None` when no skill ships files.
    pub fn read_resource_tool_openai(&self) -> Option<&str> {
        tools::offered(&self.tool_json().read_resource[1])
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
        let composed = self
            .selection
            .as_ref()
            .is_some_and(|selection| selection.positions.is_none());
        if composed {
            let mut skills = Vec::new();
            for name in allow {
                let name = name.as_ref();
                skills.push(self.find(name).ok_or_else(|| self.unknown(name))?);
            }
            skills.sort_unstable_by_key(|skill| skill.name());
            skills.dedup_by_key(|skill| skill.name());
            return Ok(Registry {
                bundle: self.bundle,
                selection: Some(Arc::new(Selection::new(skills.into(), None))),
            });
        }
        let mut positions = Vec::new();
        for name in allow {
            let name = name.as_ref();
            if self.find(name).is_none() {
                return Err(self.unknown(name));
            }
            let (position, _) = self.bundle.find(name).ok_or_else(|| self.unknown(name))?;
            positions.push(position);
        }
        positions.sort_unstable();
        positions.dedup();
        let all = self.bundle.skills();
        let skills = positions.iter().map(|&i| &all[i]).collect();
        Ok(Registry {
            bundle: self.bundle,
            selection: Some(Arc::new(Selection::new(skills, Some(positions.into())))),
        })
    }

    /// One registry of the skills of all `registries`, for a program that chooses its skill
    /// packs by configuration at run time: each pack's registry (whole or
    /// [restricted](Self::restrict)) and the program's own. Every method answers for all of
    /// them; the skills stay sorted by name.
    ///
    /// Fails when two of the registries have a skill of the same name, naming it: one would
    /// shadow the other, which is what compiling packs together with `embed_skills!` rejects
    /// at build time too.
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
        let mut skills: Vec<&'static Skill> =
            registries.into_iter().flat_map(Registry::iter).collect();
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
            selection: Some(Arc::new(Selection::new(skills.into(), None))),
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
