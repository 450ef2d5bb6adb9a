//! What `embed_skills!` embeds: a bundle's literals ([`BundleData`]) and the two views into
//! them, [`Skill`] and [`Resource`] (their public accessors are in `skill.rs` and
//! `resources.rs`). The macro's generated code reaches these through `__private`.
//!
//! A bundle is a few flat literals (the format is `skills_core::layout`): one string holding
//! every file's text, byte strings of integers describing the skills, and the raw SHA-256s.
//! [`Skill`] is a view of one entry: the accessors read the integers on demand. What the
//! public API hands out as `&'static` but the literals do not hold verbatim (the hashes as hex,
//! the source paths, the lists, the tool definitions) is computed on first use into the
//! bundle's [`Cache`], once for the process.

use std::sync::OnceLock;

use skills_core::layout::{self, Field, Header, Kind, NameEntry, TriggerEntry};

/// One bundle as the macro embeds it.
pub struct BundleData {
    /// Every skill, sorted by name; each points back here.
    pub skills: &'static [Skill],
    /// Each skill's normalized `SKILL.md`, the text the build checked and hashed (one literal the
    /// macro writes, never a second read of the file), followed by its tail of strings not
    /// found in the file.
    pub text: &'static str,
    /// Per skill, where its name is in `text` and so where its own text starts
    /// (`layout::NameEntry`).
    pub names: &'static [u8],
    /// The records (`skills_core::layout`); each skill knows where its own starts.
    pub records: &'static [u8],
    /// SHA-256s, 32 raw bytes each: the skills' files in order, then the trees of the skills
    /// that have resources.
    pub hashes: &'static [u8],
    /// The name index (`skills_core::index::encode`).
    pub index: &'static [u8],
    /// The roots as diagnostics show them: source paths are `<root>/<name>/SKILL.md`.
    pub roots: &'static [&'static str],
    /// Every skill's resources, skill after skill.
    pub resources: &'static [Resource],
    /// The Markdown catalog, rendered at build time.
    pub catalog: &'static str,
    /// SHA-256 (hex) of the lock the bundle was checked against, with `lock = "..."`.
    pub lock_digest: Option<&'static str>,
    /// The trigger cases, with `embed_evals = true`.
    pub triggers: Option<Triggers>,
    /// The task cases and their files, with `embed_evals = true`.
    pub tasks: Option<Tasks>,
    /// What is computed on first use.
    pub cache: &'static Cache,
}

/// The trigger cases of a bundle built with `embed_evals = true`
/// (`skills_core::layout::TriggerEntry` describes the table).
#[derive(Clone, Copy)]
pub struct Triggers {
    /// Per skill the number of its cases, then an entry per case.
    pub table: &'static [u8],
    /// Every query, end to end, in the table's order.
    pub queries: &'static str,
}

/// The task cases of a bundle built with `embed_evals = true`.
#[derive(Clone, Copy)]
pub struct Tasks {
    /// Every skill's cases, in the compact form of `skills_core::tasks::encode`.
    pub table: &'static [u8],
    /// The files the cases copy, skill after skill.
    pub files: &'static [&'static [u8]],
}

/// One skill, validated and embedded at build time.
///
/// Every string is `&'static`: the body, name, description and the other fields are slices of the
/// embedded file text in the binary (not second copies); the hex digests, the source path and the
/// lists are computed once per process, on first use, into the bundle's cache. A `Skill` is a small
/// view (a reference to its bundle and two integers): the fields are read from the bundle's compact
/// tables when asked for.
#[derive(Clone, Copy)]
pub struct Skill {
    pub(crate) data: &'static BundleData,
    /// Position in the bundle (sorted by name).
    pub(crate) index: u32,
    /// Where the skill's record starts in the bundle's records.
    pub(crate) record: u32,
}

/// One embedded file of a skill.
#[derive(Clone, Copy)]
pub struct Resource {
    pub(crate) path: &'static str,
    pub(crate) bytes: &'static [u8],
    pub(crate) is_text: bool,
    pub(crate) executable: bool,
}

/// The JSON definition of one skill tool, Anthropic then OpenAI shape; empty strings when the
/// tool is left out (no skill to list).
pub(crate) type ToolJson = [Box<str>; 2];

/// Strings derived from a bundle on first use, kept for the life of the process.
pub struct Cache {
    hex: OnceLock<Box<str>>,
    paths: OnceLock<Joined>,
    lists: OnceLock<Lists>,
    cases: OnceLock<Cases>,
    /// The skill tools' definitions (see `tools.rs`), each rendered when first asked for.
    pub(crate) load_skill: OnceLock<ToolJson>,
    pub(crate) read_resource: OnceLock<ToolJson>,
    /// The skills of a bundle built at run time (see `folders.rs`): its data is made before the
    /// skills that point at it, so it cannot hold them itself.
    pub(crate) skills: OnceLock<&'static [Skill]>,
}

impl Cache {
    /// An empty cache, for a `static` beside the bundle.
    pub const fn new() -> Self {
        Cache {
            hex: OnceLock::new(),
            paths: OnceLock::new(),
            lists: OnceLock::new(),
            cases: OnceLock::new(),
            load_skill: OnceLock::new(),
            read_resource: OnceLock::new(),
            skills: OnceLock::new(),
        }
    }
}

impl Default for Cache {
    fn default() -> Self {
        Cache::new()
    }
}

/// Strings laid end to end, and where each ends.
struct Joined {
    text: String,
    ends: Vec<usize>,
}

impl Joined {
    fn get(&self, i: usize) -> &str {
        let (Some(&end), start) = (
            self.ends.get(i),
            i.checked_sub(1).map_or(Some(&0), |j| self.ends.get(j)),
        ) else {
            return "";
        };
        start
            .and_then(|&start| self.text.get(start..end))
            .unwrap_or("")
    }
}

/// Every list of every skill: the strings of the lists in record order, the metadata pairs,
/// and where each skill's first string and pair are.
struct Lists {
    strings: Vec<&'static str>,
    pairs: Vec<(&'static str, &'static str)>,
    first: Vec<[usize; 2]>,
}

/// One trigger case compiled in with `embed_evals = true`: a query for which the model should,
/// or should not, load its skill (see [`Skill::trigger_cases`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TriggerCase {
    /// What the user asks.
    pub query: &'static str,
    /// Whether the model should load the skill for it.
    pub should_trigger: bool,
}

/// Every trigger case of the bundle, skill after skill, and where each skill's run of cases
/// starts and ends.
struct Cases {
    cases: Vec<TriggerCase>,
    ends: Vec<usize>,
}

/// The `[Skill; N]` of a bundle, each with its index and the start of its record (read from
/// `record_starts`, a little-endian `u32` per skill, which only this constant evaluation
/// reads).
pub const fn skills<const N: usize>(data: &'static BundleData, record_starts: &[u8]) -> [Skill; N] {
    let mut skills = [Skill {
        data,
        index: 0,
        record: 0,
    }; N];
    let mut i = 0;
    while i < N {
        skills[i].index = i as u32;
        skills[i].record = layout::u32_at(record_starts, 4 * i);
        i += 1;
    }
    skills
}

/// Builds a [`Resource`].
pub const fn resource(
    path: &'static str,
    bytes: &'static [u8],
    is_text: bool,
    executable: bool,
) -> Resource {
    Resource {
        path,
        bytes,
        is_text,
        executable,
    }
}

static EMPTY_CACHE: Cache = Cache::new();

/// The bundle of no skills.
pub(crate) static EMPTY_BUNDLE: BundleData = BundleData {
    skills: &[],
    text: "",
    names: &[],
    records: &[],
    hashes: &[],
    index: &[],
    roots: &[],
    resources: &[],
    catalog: skills_core::render::EMPTY_CATALOG,
    lock_digest: None,
    triggers: None,
    tasks: None,
    cache: &EMPTY_CACHE,
};

impl BundleData {
    /// Every skill, sorted by name: the macro's array, or those of a bundle built at run time.
    pub(crate) fn skills(&self) -> &'static [Skill] {
        match self.cache.skills.get() {
            Some(skills) => skills,
            None => self.skills,
        }
    }

    /// The trigger cases of skill `i` (none when they are not embedded), decoded for the whole
    /// bundle on first use.
    pub(crate) fn trigger_cases(&self, i: usize) -> &'static [TriggerCase] {
        let Some(triggers) = self.triggers else {
            return &[];
        };
        let skills = self.skills().len();
        let decoded = self.cache.cases.get_or_init(|| {
            let mut decoded = Cases {
                cases: Vec::new(),
                ends: Vec::with_capacity(skills),
            };
            let (mut at, mut query_at) = (0, 0);
            for _ in 0..skills {
                let count = layout::read(triggers.table, &mut at);
                // Each entry takes at least a byte: a damaged count cannot make this loop long.
                for _ in 0..(count as usize).min(triggers.table.len().saturating_sub(at)) {
                    let entry = TriggerEntry::read(triggers.table, &mut at);
                    let end = query_at + entry.query_len as usize;
                    decoded.cases.push(TriggerCase {
                        query: triggers.queries.get(query_at..end).unwrap_or(""),
                        should_trigger: entry.should_trigger,
                    });
                    query_at = end;
                }
                decoded.ends.push(decoded.cases.len());
            }
            decoded
        });
        let start = match i.checked_sub(1) {
            Some(before) => decoded.ends.get(before).copied(),
            None => Some(0),
        };
        start
            .zip(decoded.ends.get(i).copied())
            .and_then(|(start, end)| decoded.cases.get(start..end))
            .unwrap_or(&[])
    }

    /// The task cases of skill `i` (none when they are not embedded), decoded on each call: an
    /// eval asks once per run.
    pub(crate) fn task_cases(&self, i: usize) -> skills_core::tasks::SkillTasks {
        let Some(tasks) = self.tasks else {
            return skills_core::tasks::SkillTasks::default();
        };
        skills_core::tasks::decode(tasks.table, self.skills().len())
            .into_iter()
            .nth(i)
            .unwrap_or_default()
    }

    /// The name of skill `i` (empty when out of range: the tables come from the macro).
    pub(crate) fn name(&self, i: usize) -> &'static str {
        let entry = NameEntry::read(self.names, i);
        let start = entry.start as usize;
        self.text
            .get(start..start + usize::from(entry.len))
            .unwrap_or("")
    }

    /// The raw SHA-256 in hash slot `slot`.
    pub(crate) fn hash(&self, slot: usize) -> &'static [u8] {
        let at = slot * layout::HASH_LEN;
        self.hashes.get(at..at + layout::HASH_LEN).unwrap_or(&[])
    }

    /// The SHA-256 in hash slot `slot`, as lowercase hex.
    pub(crate) fn hex(&'static self, slot: usize) -> &'static str {
        let hex = self.cache.hex.get_or_init(|| {
            let mut hex = String::with_capacity(self.hashes.len() * 2);
            for byte in self.hashes {
                hex.push(char::from(HEX_DIGITS[usize::from(byte >> 4)]));
                hex.push(char::from(HEX_DIGITS[usize::from(byte & 0xf)]));
            }
            hex.into_boxed_str()
        });
        let at = slot * 2 * layout::HASH_LEN;
        hex.get(at..at + 2 * layout::HASH_LEN).unwrap_or("")
    }
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// A skill's record, decoded on demand.
pub(crate) struct Record {
    data: &'static BundleData,
    /// Where the skill's text starts in the bundle's text.
    base: usize,
    header: Header,
    fields_at: usize,
}

impl Record {
    pub(crate) fn of(skill: &Skill) -> Record {
        let mut at = skill.record as usize;
        let header = Header::read(skill.data.records, &mut at);
        let name = NameEntry::read(skill.data.names, skill.index as usize);
        let mut record = Record {
            data: skill.data,
            base: (name.start as usize).saturating_sub(usize::from(name.from_base)),
            header,
            fields_at: at,
        };
        if name.from_base == NameEntry::FAR {
            record.base = record.number(Field::Base).unwrap_or(0);
        }
        record
    }

    pub(crate) fn header(&self) -> &Header {
        &self.header
    }

    /// The numbers at `at`, moving past them.
    fn read(&self, at: &mut usize) -> u32 {
        layout::read(self.data.records, at)
    }

    /// `text[base + start ..][.. len]`; empty if the numbers do not fit (they come from the
    /// macro, so they always do).
    pub(crate) fn slice(&self, [start, len]: [u32; 2]) -> &'static str {
        let start = self.base + start as usize;
        self.data
            .text
            .get(start..start + len as usize)
            .unwrap_or("")
    }

    fn find(&self, field: Field) -> Option<usize> {
        layout::find(self.data.records, &self.header, self.fields_at, field)
    }

    /// A [`Kind::Text`] field.
    pub(crate) fn text(&self, field: Field) -> Option<&'static str> {
        let mut at = self.find(field)?;
        let range = [self.read(&mut at), self.read(&mut at)];
        Some(self.slice(range))
    }

    /// A [`Kind::Number`] field.
    pub(crate) fn number(&self, field: Field) -> Option<usize> {
        self.find(field).map(|mut at| self.read(&mut at) as usize)
    }

    /// The numbers of a [`Kind::Resources`] field: first file, count, hash slot.
    pub(crate) fn resources(&self) -> Option<[usize; 3]> {
        let mut at = self.find(Field::Resources)?;
        Some([(); 3].map(|()| self.read(&mut at) as usize))
    }

    /// A [`Kind::Commands`] field: per command, the range of its construct and of the command,
    /// as slices of the skill's text with the construct's start from the base.
    pub(crate) fn commands(&self, field: Field) -> Vec<(usize, &'static str, &'static str)> {
        let Some(mut at) = self.find(field) else {
            return Vec::new();
        };
        let count = self.read(&mut at) as usize;
        // Each number takes at least one byte: a damaged count cannot make this long.
        let count = count.min(self.data.records.len().saturating_sub(at));
        (0..count)
            .map(|_| {
                let construct = [self.read(&mut at), self.read(&mut at)];
                let command = [self.read(&mut at), self.read(&mut at)];
                (
                    construct[0] as usize,
                    self.slice(construct),
                    self.slice(command),
                )
            })
            .collect()
    }

    /// Every string of the record's lists, in order, and every metadata pair.
    fn lists(
        &self,
        strings: &mut Vec<&'static str>,
        pairs: &mut Vec<(&'static str, &'static str)>,
    ) {
        for (field, mut at) in layout::fields(self.data.records, &self.header, self.fields_at) {
            match field.kind() {
                Kind::List => {
                    for _ in 0..self.read(&mut at) {
                        strings.push(self.slice([self.read(&mut at), self.read(&mut at)]));
                    }
                }
                Kind::Pairs => {
                    for _ in 0..self.read(&mut at) {
                        let key = self.slice([self.read(&mut at), self.read(&mut at)]);
                        let value = self.slice([self.read(&mut at), self.read(&mut at)]);
                        pairs.push((key, value));
                    }
                }
                _ => {}
            }
        }
    }

    /// Where `field`'s list starts among the record's list strings (or pairs), and its length.
    fn list_range(&self, field: Field) -> Option<(usize, usize)> {
        let mut before = 0;
        for (found, mut at) in layout::fields(self.data.records, &self.header, self.fields_at) {
            if found.kind() != field.kind() {
                continue;
            }
            let count = self.read(&mut at) as usize;
            if found == field {
                return Some((before, count));
            }
            before += count;
        }
        None
    }
}

impl Skill {
    pub(crate) fn record(&self) -> Record {
        Record::of(self)
    }

    /// This skill in its bundle's `'static` list (a `Skill` is a copyable view of it).
    pub(crate) fn as_static(&self) -> &'static Skill {
        // Through the cache: a registry built at run time sets its list there.
        match self.data.skills().get(self.index as usize) {
            Some(skill) => skill,
            // Not reached (a skill's index is in its bundle's list); a copy rather than a panic.
            None => Box::leak(Box::new(*self)),
        }
    }

    /// The source path: from the record when it is unusual, else `<root>/<name>/SKILL.md`,
    /// composed once for the whole bundle.
    pub(crate) fn path(&self) -> &'static str {
        let record = self.record();
        if let Some(path) = record.text(Field::SourcePath) {
            return path;
        }
        let data = self.data;
        let paths = data.cache.paths.get_or_init(|| {
            let mut joined = Joined {
                text: String::new(),
                ends: Vec::with_capacity(data.skills().len()),
            };
            for skill in data.skills() {
                let record = skill.record();
                if !record.header().has(Field::SourcePath) {
                    let root = record.number(Field::Root).unwrap_or(0);
                    let root = data.roots.get(root).copied().unwrap_or_default();
                    joined.text.push_str(root);
                    joined.text.push('/');
                    joined.text.push_str(skill.name());
                    joined.text.push_str("/SKILL.md");
                }
                joined.ends.push(joined.text.len());
            }
            joined
        });
        paths.get(self.index as usize)
    }

    /// A list field (`Kind::List`), from the lists of the whole bundle, decoded once.
    pub(crate) fn list(&self, field: Field) -> &'static [&'static str] {
        let record = self.record();
        let Some((offset, count)) = record.list_range(field) else {
            return &[];
        };
        let lists = self.lists();
        let first = lists.first.get(self.index as usize).map_or(0, |f| f[0]);
        lists
            .strings
            .get(first + offset..first + offset + count)
            .unwrap_or(&[])
    }

    /// A field of `(key, value)` pairs (`Kind::Pairs`), from the lists of the whole bundle.
    pub(crate) fn pairs(&self, field: Field) -> &'static [(&'static str, &'static str)] {
        let Some((offset, count)) = self.record().list_range(field) else {
            return &[];
        };
        let lists = self.lists();
        let first = lists.first.get(self.index as usize).map_or(0, |f| f[1]);
        lists
            .pairs
            .get(first + offset..first + offset + count)
            .unwrap_or(&[])
    }

    fn lists(&self) -> &'static Lists {
        let data = self.data;
        data.cache.lists.get_or_init(|| {
            let mut lists = Lists {
                strings: Vec::new(),
                pairs: Vec::new(),
                first: Vec::with_capacity(data.skills().len()),
            };
            for skill in data.skills() {
                lists.first.push([lists.strings.len(), lists.pairs.len()]);
                skill.record().lists(&mut lists.strings, &mut lists.pairs);
            }
            lists
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;

    /// One file, described twice: the second entry finds its base through the record
    /// (`Field::Base`), as a name far into a large file would.
    const TEXT: &str = "---\nname: demo\ndescription: Does it.\ntags: [a, b]\n---\nBody\n";
    const NEAR: &[u8] = &[59, 28, 8, 54, 1, 8, 2, 44, 1, 47, 1];
    const FAR: &[u8] = &[59, 28, 8, 54, 1, 0x88, 0x80, 0x80, 0x20, 2, 44, 1, 47, 1, 0];
    const RECORDS: &[u8] = &{
        let mut records = [0; NEAR.len() + FAR.len()];
        let mut i = 0;
        while i < records.len() {
            records[i] = if i < NEAR.len() {
                NEAR[i]
            } else {
                FAR[i - NEAR.len()]
            };
            i += 1;
        }
        records
    };
    static CACHE: Cache = Cache::new();
    static DATA: BundleData = BundleData {
        skills: &SKILLS,
        text: TEXT,
        names: &[10, 0, 0, 0, 3, 10, 10, 0, 0, 0, 3, 0xff],
        records: RECORDS,
        hashes: [[0x11; 32], [0xab; 32]].as_flattened(),
        index: &[2],
        roots: &["skills"],
        resources: &[],
        catalog: "",
        lock_digest: None,
        triggers: None,
        tasks: None,
        cache: &CACHE,
    };
    static SKILLS: [Skill; 2] = skills::<2>(&DATA, &[0, 0, 0, 0, NEAR.len() as u8, 0, 0, 0]);

    #[test]
    fn the_hand_written_records_are_the_format() {
        let header = Header {
            content_len: 59,
            description: [28, 8],
            body: [54, 4],
            flags: Field::Tags.bit(),
        };
        let mut near = Vec::new();
        header.write(&mut near);
        for value in [2, 44, 1, 47, 1] {
            layout::write(&mut near, value);
        }
        assert_eq!(near, NEAR);
        let mut far = Vec::new();
        Header {
            flags: Field::Tags.bit() | Field::Base.bit(),
            ..header
        }
        .write(&mut far);
        for value in [2, 44, 1, 47, 1, 0] {
            layout::write(&mut far, value);
        }
        assert_eq!(far, FAR);
    }

    #[test]
    fn a_skill_reads_its_record_wherever_its_base_comes_from() {
        for skill in &SKILLS {
            assert_eq!(skill.name(), "demo");
            assert_eq!(skill.description(), "Does it.");
            assert_eq!(skill.body(), "Body");
            assert_eq!(skill.content(), TEXT);
            assert_eq!(skill.tags(), ["a", "b"]);
            assert!(skill.allowed_tools().is_empty() && skill.metadata().is_empty());
            assert_eq!(skill.version(), None);
            assert_eq!(skill.source_path(), "skills/demo/SKILL.md");
            assert!(skill.model_invocable() && skill.user_invocable());
            assert!(skill.resources().is_empty());
            assert_eq!(skill.tree_sha256(), skill.sha256());
        }
        assert_eq!(SKILLS[0].sha256(), "11".repeat(32));
        assert_eq!(SKILLS[1].sha256(), "ab".repeat(32));
        assert_ne!(SKILLS[0], SKILLS[1], "same name, different file");
        assert_eq!(SKILLS[0], SKILLS[0]);
    }

    #[test]
    fn the_empty_bundle_answers_everything() {
        let registry = Registry::empty();
        assert!(registry.is_empty() && registry.get("demo").is_none());
        assert_eq!(registry.catalog(), skills_core::render::EMPTY_CATALOG);
        assert_eq!(registry.load_skill_tool_anthropic(), None);
    }
}
