//! A checked bundle as the flat tables of [`crate::layout`]: what `embed_skills!` writes into the
//! binary as literals, and what a registry built at run time from folders on disk holds (the
//! `skills eval` command's). One implementation of the layout, so the two cannot differ.
//!
//! [`Tables`] is plain data and needs no feature; `build` (feature `validate`) makes it from a
//! [`Bundle`](crate::Bundle).

/// How the bundle's text is made, piece after piece: the macro writes a file that needs no
/// normalizing with `include_str!`, which also tracks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Skill `i`'s `SKILL.md`, whose bytes on disk are its normalized text.
    File(usize),
    /// Skill `i`'s normalized text, which differs from its bytes on disk (a byte-order mark,
    /// CRLF): a literal, with the file tracked apart.
    Normalized(usize),
    /// A skill's tail (the strings its file does not hold verbatim): `text[start..end]`.
    Tail {
        /// Where the tail starts in [`Tables::text`].
        start: usize,
        /// Where it ends.
        end: usize,
    },
}

/// A bundle as flat tables (the format is [`crate::layout`]).
///
/// Resources are not copied here: the registry lists every skill's resources, skill after skill,
/// in the bundle's order, and the records point into that list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    /// The one text every string of every skill is a range of: each skill's normalized
    /// `SKILL.md`, then its tail.
    pub text: String,
    /// What [`text`](Self::text) is made of, in order.
    pub pieces: Vec<Piece>,
    /// The names table: where each name is, and so where each skill's text starts.
    pub names: Vec<u8>,
    /// The records.
    pub records: Vec<u8>,
    /// Where each record starts, a little-endian `u32` per skill.
    pub record_starts: Vec<u8>,
    /// Raw SHA-256s: every `SKILL.md`, then for each skill with resources its tree and each
    /// resource.
    pub hashes: Vec<u8>,
    /// The name index (`crate::index::encode`).
    pub index: Vec<u8>,
    /// The Markdown catalog.
    pub catalog: String,
    /// The roots as diagnostics show them.
    pub roots: Vec<String>,
    /// The trigger cases, when they are embedded.
    pub triggers: Option<TriggerTables>,
}

/// The trigger cases of a bundle (see [`crate::layout::TriggerEntry`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TriggerTables {
    /// Per skill the number of its cases, then an entry per case.
    pub table: Vec<u8>,
    /// Every query, end to end, in the table's order.
    pub queries: String,
}

/// The skills' text is over what one registry can address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextTooLarge {
    /// Bytes of `SKILL.md` text in the bundle.
    pub bytes: u64,
}

impl std::fmt::Display for TextTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the skills hold {} bytes of SKILL.md text, over the 2 GiB one registry can embed",
            self.bytes
        )
    }
}

impl std::error::Error for TextTooLarge {}

#[cfg(feature = "validate")]
pub use build::build;

#[cfg(feature = "validate")]
mod build {
    use std::collections::HashMap;

    use super::{Piece, Tables, TextTooLarge, TriggerTables};
    use crate::claude_code::{Effort, Shell, SkillContext};
    use crate::layout::{self, Field, HASH_LEN, Header, NameEntry, TriggerEntry};
    use crate::render::{self, CatalogEntry};
    use crate::{Bundle, SkillDef, discover};

    /// The tables of `bundle`, a bundle without errors, read from `roots` (as written in the
    /// macro call). With `frontmatter_json` each record also points at the skill's frontmatter
    /// as JSON text; with `embed_evals` the trigger cases are included.
    pub fn build(
        bundle: &Bundle,
        roots: &[&str],
        frontmatter_json: bool,
        embed_evals: bool,
    ) -> Result<Tables, TextTooLarge> {
        // Offsets are `u32`: the files take at most half the range, leaving the rest for the
        // tails (decoded frontmatter values and source paths, short next to their files).
        let bytes: u64 = bundle.skills.iter().map(|s| s.text.len() as u64).sum();
        if bytes > u64::from(u32::MAX / 2) {
            return Err(TextTooLarge { bytes });
        }
        let roots: Vec<String> = roots
            .iter()
            .map(|root| discover::display_root(root))
            .collect();
        let entries: Vec<CatalogEntry<'_>> =
            bundle.skills.iter().map(SkillDef::catalog_entry).collect();
        let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
        let mut tables = Tables {
            catalog: render::catalog_markdown(&entries),
            index: crate::index::encode(&crate::index::build(&names)),
            triggers: embed_evals.then(|| triggers(bundle)),
            ..Tables::default()
        };
        skills(&mut tables, bundle, &roots, frontmatter_json);
        tables.roots = roots;
        Ok(tables)
    }

    /// The trigger cases of every skill, in skill order (a skill without a file has none).
    fn triggers(bundle: &Bundle) -> TriggerTables {
        let mut out = TriggerTables::default();
        for skill in &bundle.skills {
            let cases = skill.triggers.as_ref().map_or(&[][..], |t| &t.cases[..]);
            layout::write(&mut out.table, cases.len() as u32);
            for case in cases {
                let query = &case.query.value;
                out.queries.push_str(query);
                TriggerEntry {
                    query_len: query.len() as u32,
                    should_trigger: case.should_trigger.value,
                }
                .write(&mut out.table);
            }
        }
        out
    }

    /// The text, names, records and hashes of every skill.
    fn skills(tables: &mut Tables, bundle: &Bundle, roots: &[String], frontmatter_json: bool) {
        // The hash of each file's bytes on disk: equal to the hash of the normalized text
        // exactly when normalizing changed nothing.
        let on_disk: HashMap<&str, &str> = bundle
            .files
            .iter()
            .map(|file| (file.path.as_str(), file.sha256.as_str()))
            .collect();
        let mut tree_hashes = Vec::new();
        let mut resources = 0u32;
        for (i, skill) in bundle.skills.iter().enumerate() {
            let verbatim = on_disk.get(skill.path.as_str()) == Some(&skill.sha256.as_str());
            tables.pieces.push(if verbatim {
                Piece::File(i)
            } else {
                Piece::Normalized(i)
            });
            let mut text = SkillText::new(tables.text.len() as u32, &skill.text);
            let name = text.span(&skill.name.value);
            let from_base = u8::try_from(name[0])
                .ok()
                .filter(|&offset| offset != NameEntry::FAR);
            let entry = NameEntry {
                start: text.base + name[0],
                len: name[1] as u16, // names are 1 to 64 characters
                from_base: from_base.unwrap_or(NameEntry::FAR),
            };
            tables.names.extend(entry.to_bytes());
            tables
                .record_starts
                .extend_from_slice(&(tables.records.len() as u32).to_le_bytes());
            tables.hashes.extend(hex_bytes(&skill.sha256));

            let mut fields = Fields::default();
            if from_base.is_none() {
                fields.set(Field::Base, vec![text.base]);
            }
            fields.texts(&mut text, skill);
            if frontmatter_json {
                let json = text.span(&skill.frontmatter_json);
                fields.set(Field::Frontmatter, json.to_vec());
            }
            fields.shell_commands(skill);
            if !skill.resources.is_empty() {
                let slot = (bundle.skills.len() + tree_hashes.len() / HASH_LEN) as u32;
                tree_hashes.extend(hex_bytes(&skill.tree_sha256));
                for resource in &skill.resources {
                    tree_hashes.extend(hex_bytes(&resource.sha256));
                }
                let count = skill.resources.len() as u32;
                fields.set(Field::Resources, vec![resources, count, slot]);
                resources += count;
            }
            let root = roots
                .iter()
                .position(|root| skill.path.starts_with(&format!("{root}/")));
            let composed =
                root.map(|root| format!("{}/{}/SKILL.md", roots[root], skill.name.value));
            match root {
                Some(root) if composed.as_deref() == Some(skill.path.as_str()) => {
                    if root != 0 {
                        fields.set(Field::Root, vec![root as u32]);
                    }
                }
                _ => {
                    let span = text.span(&skill.path);
                    fields.set(Field::SourcePath, span.to_vec());
                }
            }

            let header = Header {
                content_len: skill.text.len() as u32,
                description: text.span(&skill.description.value),
                body: [
                    skill.body.start as u32,
                    (skill.body.end - skill.body.start) as u32,
                ],
                flags: fields.flags,
            };
            header.write(&mut tables.records);
            for field in Field::ALL {
                if let Some(values) = &fields.values[*field as usize] {
                    for &value in values {
                        layout::write(&mut tables.records, value);
                    }
                }
            }

            tables.text.push_str(&skill.text);
            if !text.tail.is_empty() {
                let start = tables.text.len();
                tables.text.push_str(&text.tail);
                tables.pieces.push(Piece::Tail {
                    start,
                    end: tables.text.len(),
                });
            }
        }
        tables.hashes.extend(tree_hashes);
    }

    /// The optional fields of one record, as the numbers that follow its header.
    struct Fields {
        flags: u32,
        values: Vec<Option<Vec<u32>>>,
    }

    impl Default for Fields {
        fn default() -> Self {
            Fields {
                flags: 0,
                values: vec![None; Field::ALL.len()],
            }
        }
    }

    impl Fields {
        fn set(&mut self, field: Field, values: Vec<u32>) {
            self.flags |= field.bit();
            self.values[field as usize] = Some(values);
        }

        /// Every field read from the frontmatter; only those the skill sets cost anything.
        fn texts(&mut self, text: &mut SkillText, skill: &SkillDef) {
            let claude = &skill.claude_code;
            for (field, value) in [
                (Field::Version, &skill.version),
                (Field::License, &skill.license),
                (Field::WhenNotToUse, &skill.when_not_to_use),
                (Field::Compatibility, &skill.compatibility),
                (Field::DisplayName, &claude.display_name),
                (Field::WhenToUse, &claude.when_to_use),
                (Field::ArgumentHint, &claude.argument_hint),
                (Field::Model, &claude.model),
                (Field::Agent, &claude.agent),
                (Field::Hooks, &claude.hooks),
            ] {
                if let Some(value) = value {
                    self.set(field, text.span(&value.value).to_vec());
                }
            }
            let requires: Vec<&str> = skill.requires.iter().map(|s| s.value.as_str()).collect();
            let conflicts: Vec<&str> = skill
                .conflicts_with
                .iter()
                .map(|s| s.value.as_str())
                .collect();
            for (field, list) in [
                (Field::Tags, strings(&skill.tags)),
                (Field::AllowedTools, strings(&skill.allowed_tools)),
                (Field::Requires, requires),
                (Field::ConflictsWith, conflicts),
                (Field::Arguments, strings(&claude.arguments)),
                (Field::DisallowedTools, strings(&claude.disallowed_tools)),
                (Field::Paths, strings(&claude.paths)),
            ] {
                if !list.is_empty() {
                    let mut values = vec![list.len() as u32];
                    for item in list {
                        values.extend(text.span(item));
                    }
                    self.set(field, values);
                }
            }
            if !skill.metadata.is_empty() {
                let mut values = vec![skill.metadata.len() as u32];
                for (key, value) in &skill.metadata {
                    values.extend(text.span(key));
                    values.extend(text.span(value));
                }
                self.set(Field::Metadata, values);
            }
            if !claude.model_invocable {
                self.set(Field::NotModelInvocable, Vec::new());
            }
            if !claude.user_invocable {
                self.set(Field::NotUserInvocable, Vec::new());
            }
            if let Some(effort) = &claude.effort {
                let p = position(Effort::ALL, &effort.value);
                self.set(Field::Effort, p.into_iter().collect());
            }
            if let Some(context) = &claude.context {
                let p = position(SkillContext::ALL, &context.value);
                self.set(Field::Context, p.into_iter().collect());
            }
            if let Some(shell) = &claude.shell {
                let p = position(Shell::ALL, &shell.value);
                self.set(Field::Shell, p.into_iter().collect());
            }
            let switches = claude_switches(claude);
            if switches != 0 {
                self.set(Field::ClaudeSwitches, vec![switches]);
            }
            if let Some(openai) = skill.openai.as_ref().filter(|o| !o.pairs.is_empty()) {
                let mut values = vec![openai.pairs.len() as u32];
                for (key, value) in &openai.pairs {
                    values.extend(text.span(key));
                    values.extend(text.span(value));
                }
                self.set(Field::OpenAi, values);
            }
        }
    }

    impl Fields {
        /// Claude Code's shell commands of the body, as ranges of the file (the body starts at
        /// `skill.body.start`): the construct, then the command inside it.
        fn shell_commands(&mut self, skill: &SkillDef) {
            let commands = &skill.claude_code.shell_commands;
            if commands.is_empty() {
                return;
            }
            let body = skill.body();
            let at = skill.body.start as u32;
            let mut values = vec![commands.len() as u32];
            for command in commands {
                let inside = command.command_range(body);
                values.extend([
                    at + command.range.start as u32,
                    command.range.len() as u32,
                    at + inside.start as u32,
                    inside.len() as u32,
                ]);
            }
            self.set(Field::ShellCommands, values);
        }
    }

    /// Claude Code's `background`, `default-enabled` and `fallback` as the bits of
    /// [`crate::layout::switches`].
    fn claude_switches(claude: &crate::skill::ClaudeCodeFields) -> u32 {
        use crate::layout::switches;
        let mut bits = 0;
        if let Some(background) = &claude.background {
            bits |= switches::BACKGROUND_SET;
            if background.value {
                bits |= switches::BACKGROUND;
            }
        }
        if claude.default_enabled.as_ref().is_some_and(|d| !d.value) {
            bits |= switches::NOT_DEFAULT_ENABLED;
        }
        if claude.fallback.as_ref().is_some_and(|f| f.value) {
            bits |= switches::FALLBACK;
        }
        bits
    }

    fn strings(list: &[String]) -> Vec<&str> {
        list.iter().map(String::as_str).collect()
    }

    /// The position of `value` in one of the `ALL` lists of `crate::claude_code`.
    fn position<T: PartialEq>(all: &[T], value: &T) -> Option<u32> {
        all.iter().position(|v| v == value).map(|p| p as u32)
    }

    /// One skill's text: the normalized file, then a tail for the strings that are not in the
    /// file verbatim (decoded escapes or folded scalars, an unusual source path). Every string
    /// of the skill is a `[start, length]` range of it, from `base`, its place in the bundle's
    /// text.
    struct SkillText<'a> {
        base: u32,
        file: &'a str,
        tail: String,
    }

    impl<'a> SkillText<'a> {
        fn new(base: u32, file: &'a str) -> Self {
            SkillText {
                base,
                file,
                tail: String::new(),
            }
        }

        /// The range of `value`: where it already appears (file or tail), else appended to the
        /// tail.
        fn span(&mut self, value: &str) -> [u32; 2] {
            let start = match self.file.find(value) {
                Some(start) => start, // an empty value is found at 0
                None => match self.tail.find(value) {
                    Some(start) => self.file.len() + start,
                    None => {
                        self.tail.push_str(value);
                        self.file.len() + self.tail.len() - value.len()
                    }
                },
            };
            [start as u32, value.len() as u32]
        }
    }

    /// The 32 bytes of a SHA-256 written as 64 hex digits.
    fn hex_bytes(hex: &str) -> Vec<u8> {
        let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
        hex.as_bytes()
            .chunks(2)
            .map(|pair| pair.iter().fold(0, |byte, &c| byte << 4 | digit(c)))
            .collect()
    }
}

#[cfg(all(test, feature = "validate"))]
mod tests;
