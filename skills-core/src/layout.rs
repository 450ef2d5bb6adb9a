//! The compact description of an embedded skill, written by the macro and read by the runtime:
//! one implementation of the format, so the two cannot disagree.
//!
//! Generated code embeds each bundle as a few flat literals instead of one struct expression
//! per skill (every expression costs type-checking time in the user's build, and every pointer
//! a relocation in the binary). A skill's *record* is a run of unsigned LEB128 integers in one
//! byte string:
//!
//! ```text
//! content_len description_start description_len body_start body_trim flags field...
//! ```
//!
//! Offsets are relative to the skill's *base*, where its text starts in the bundle's text (its
//! normalized `SKILL.md`, then a tail of the strings that do not appear in the file verbatim).
//! The body ends `body_trim` bytes before the end of the file (usually one: the last newline).
//! `flags` has one bit per [`Field`] the skill sets, and the data of those fields follows in
//! [`Field::ALL`] order, each shaped by its [`Kind`]. A skill that sets no optional field has a
//! record of six small numbers, about nine bytes.
//!
//! Fixed-width tables are little-endian integers in byte strings, read with [`u32_at`]: the
//! hashes (every `SKILL.md`'s in skill order, then for each skill with files the hash of its
//! tree followed by each file's), the name index, and the names table, which `Registry::get` reads without touching
//! the records: per skill its name's start in the bundle's text, its length, and how far into
//! the skill's text it starts (which gives the base; see [`NameEntry`]).
//!
//! With `embed_evals = true` the trigger cases are a table of their own, apart from the records
//! (see [`TriggerEntry`]), so a bundle without them carries nothing of them.

/// The version of this format. The generated code asserts at compile time that the runtime it
/// links reads the version the macro wrote, so a macro and a runtime of different releases are
/// a compile error, not wrong data.
pub const VERSION: u32 = 5;

/// What a [`Field`]'s data is, after the flag bit that says it is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A string: start and length.
    Text,
    /// A list of strings: the count, then start and length of each.
    List,
    /// A list of `(key, value)` pairs: the count, then start and length of key and value.
    Pairs,
    /// Nothing: the bit alone says it.
    Flag,
    /// One number (a root, or a position in one of the `ALL` lists of [`crate::claude_code`]).
    Number,
    /// The skill's files: the position of the first in the bundle's list of files, their
    /// count, and the slot of the hash over the skill's tree in the bundle's hashes; the hash of
    /// each file follows in the next slots, in the files' order.
    Resources,
    /// Claude Code's shell commands of the body: the count, then for each the start and length
    /// of the whole construct (`` !`...` `` or a ```` ```! ```` block) and the start and length
    /// of its command, all from the skill's base.
    Commands,
}

/// Defines [`Field`] with its `ALL` list and each field's [`Kind`], in record order.
macro_rules! fields {
    ($($(#[doc = $doc:literal])* $name:ident: $kind:ident,)*) => {
        /// An optional part of a skill: a bit in its record's flags, and the data that follows.
        /// The order is the order of the data (the common fields first, so that their flags fit
        /// in one byte) and must not change without the macro and the runtime changing together.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Field {
            $($(#[doc = $doc])* $name,)*
        }

        impl Field {
            /// Every field, in record order.
            pub const ALL: &'static [Field] = &[$(Field::$name),*];

            /// The shape of the field's data.
            pub const fn kind(self) -> Kind {
                match self {
                    $(Field::$name => Kind::$kind,)*
                }
            }
        }
    };
}

fields! {
    /// `version`.
    Version: Text,
    /// `license`.
    License: Text,
    /// `when-not-to-use`.
    WhenNotToUse: Text,
    /// `tags`.
    Tags: List,
    /// `allowed-tools`.
    AllowedTools: List,
    /// `metadata`.
    Metadata: Pairs,
    /// `compatibility`.
    Compatibility: Text,
    /// `requires`.
    Requires: List,
    /// `conflicts-with`.
    ConflictsWith: List,
    /// Files beside `SKILL.md`.
    Resources: Resources,
    /// The index of the skill's root in the bundle's roots, when it is not the first.
    Root: Number,
    /// The source path, when it is not `<root>/<name>/SKILL.md`.
    SourcePath: Text,
    /// Claude Code's display `name`.
    DisplayName: Text,
    /// Claude Code's `when_to_use`.
    WhenToUse: Text,
    /// Claude Code's `argument-hint`.
    ArgumentHint: Text,
    /// Claude Code's `arguments`.
    Arguments: List,
    /// `disable-model-invocation: true`.
    NotModelInvocable: Flag,
    /// `user-invocable: false`.
    NotUserInvocable: Flag,
    /// Claude Code's `disallowed-tools`.
    DisallowedTools: List,
    /// Claude Code's `model`.
    Model: Text,
    /// Claude Code's `effort`, a position in `Effort::ALL`.
    Effort: Number,
    /// Claude Code's `context`, a position in `SkillContext::ALL`.
    Context: Number,
    /// Claude Code's `agent`.
    Agent: Text,
    /// Claude Code's `hooks`, as compact JSON text.
    Hooks: Text,
    /// Claude Code's `paths`.
    Paths: List,
    /// Claude Code's `shell`, a position in `Shell::ALL`.
    Shell: Number,
    /// The skill's base, when its names entry cannot give it (see [`NameEntry`]).
    Base: Number,
    /// The whole frontmatter as compact JSON text (`SkillDef::frontmatter_json`), written only
    /// by a macro built with its `frontmatter-json` feature (the MCP server's).
    Frontmatter: Text,
    /// Claude Code's `` !`command` `` and ```` ```! ```` blocks of the body
    /// (`ClaudeCodeFields::shell_commands`), recorded under `compat = "claude-code"`.
    ShellCommands: Commands,
    /// Claude Code's `background`, `default-enabled` and `fallback`, as the bits of
    /// [`switches`].
    ClaudeSwitches: Number,
    /// The skill's `agents/openai.yaml` (Codex's file), as read and checked: `(key, value)`
    /// pairs named in [`openai`].
    OpenAi: Pairs,
}

/// The bits of [`Field::ClaudeSwitches`].
pub mod switches {
    /// `background` is set.
    pub const BACKGROUND_SET: u32 = 1;
    /// `background: true`.
    pub const BACKGROUND: u32 = 1 << 1;
    /// `default-enabled: false`.
    pub const NOT_DEFAULT_ENABLED: u32 = 1 << 2;
    /// `fallback: true`.
    pub const FALLBACK: u32 = 1 << 3;
}

/// The keys of [`Field::OpenAi`]'s pairs: one per `interface` field and the policy, then per
/// product a [`PRODUCT`](openai::PRODUCT) pair, then per tool dependency a
/// [`TOOL_TYPE`](openai::TOOL_TYPE) pair followed by that tool's other fields.
pub mod openai {
    /// `interface.display_name`.
    pub const DISPLAY_NAME: &str = "display_name";
    /// `interface.short_description`.
    pub const SHORT_DESCRIPTION: &str = "short_description";
    /// `interface.icon_small`.
    pub const ICON_SMALL: &str = "icon_small";
    /// `interface.icon_large`.
    pub const ICON_LARGE: &str = "icon_large";
    /// `interface.brand_color`.
    pub const BRAND_COLOR: &str = "brand_color";
    /// `interface.default_prompt`.
    pub const DEFAULT_PROMPT: &str = "default_prompt";
    /// `policy.allow_implicit_invocation`, `true` or `false`.
    pub const ALLOW_IMPLICIT_INVOCATION: &str = "allow_implicit_invocation";
    /// One of `policy.products`.
    pub const PRODUCT: &str = "product";
    /// `dependencies.tools[].type`: starts a tool.
    pub const TOOL_TYPE: &str = "type";
    /// `dependencies.tools[].value`.
    pub const TOOL_VALUE: &str = "value";
    /// `dependencies.tools[].description`.
    pub const TOOL_DESCRIPTION: &str = "description";
    /// `dependencies.tools[].transport`.
    pub const TOOL_TRANSPORT: &str = "transport";
    /// `dependencies.tools[].command`.
    pub const TOOL_COMMAND: &str = "command";
    /// `dependencies.tools[].url`.
    pub const TOOL_URL: &str = "url";
}

impl Field {
    /// The field's bit in a record's flags.
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// Bytes of one SHA-256 in the bundle's hashes.
pub const HASH_LEN: usize = 32;

/// One entry of the names table, [`NameEntry::LEN`] bytes: where the skill's name starts in the
/// bundle's text (`u32`), its length less one (`u8`: a name has 1 to 64 characters, so 1 to 256
/// bytes), and its offset from the skill's base (`u8`; `name:` is usually the first key). A
/// name further from the base than that has [`NameEntry::FAR`] there, and the record sets
/// [`Field::Base`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameEntry {
    /// Start of the name in the bundle's text.
    pub start: u32,
    /// Length of the name in bytes, 1 to 256.
    pub len: u16,
    /// `start` minus the skill's base, or [`NameEntry::FAR`].
    pub from_base: u8,
}

impl NameEntry {
    /// Bytes of one entry.
    pub const LEN: usize = 6;
    /// `from_base` of a name too far from its base: the record holds the base.
    pub const FAR: u8 = u8::MAX;

    /// The entry's bytes.
    pub fn to_bytes(self) -> [u8; Self::LEN] {
        let start = self.start.to_le_bytes();
        let len = self.len.clamp(1, 256) - 1;
        [
            start[0],
            start[1],
            start[2],
            start[3],
            len as u8,
            self.from_base,
        ]
    }

    /// Entry `i` of a names table (zeros past the end).
    pub fn read(names: &[u8], i: usize) -> NameEntry {
        let at = i * Self::LEN;
        match names.get(at..at + Self::LEN) {
            Some(&[a, b, c, d, len, from_base]) => NameEntry {
                start: u32::from_le_bytes([a, b, c, d]),
                len: u16::from(len) + 1,
                from_base,
            },
            _ => NameEntry {
                start: 0,
                len: 0,
                from_base: 0,
            },
        }
    }
}

/// Appends `value` as unsigned LEB128.
pub fn write(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads the unsigned LEB128 number at `*at` and moves past it. Bytes past the end read as
/// zero, so a damaged record gives wrong numbers, never a panic.
pub fn read(bytes: &[u8], at: &mut usize) -> u32 {
    let mut value = 0u32;
    let mut shift = 0;
    while let Some(&byte) = bytes.get(*at) {
        *at += 1;
        if shift < 32 {
            value |= u32::from(byte & 0x7f) << shift;
        }
        shift += 7;
        if byte & 0x80 == 0 {
            break;
        }
    }
    value
}

/// The little-endian `u32` at byte `at` of `bytes` (0 past the end). Usable in `const` code.
pub const fn u32_at(bytes: &[u8], at: usize) -> u32 {
    if at + 4 > bytes.len() {
        return 0;
    }
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The fixed start of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Length of the normalized `SKILL.md` at the base.
    pub content_len: u32,
    /// `description`: start (from the base) and length.
    pub description: [u32; 2],
    /// The body: start (from the base) and length (written as the bytes after its end).
    pub body: [u32; 2],
    /// One [`Field::bit`] per field set.
    pub flags: u32,
}

impl Header {
    /// Appends the header; the fields' data follows it.
    pub fn write(&self, out: &mut Vec<u8>) {
        let [body_start, body_len] = self.body;
        let body_trim = self.content_len.saturating_sub(body_start + body_len);
        for value in [
            self.content_len,
            self.description[0],
            self.description[1],
            body_start,
            body_trim,
            self.flags,
        ] {
            write(out, value);
        }
    }

    /// Reads the header of the record at `*at`, leaving `*at` on the first field's data.
    pub fn read(bytes: &[u8], at: &mut usize) -> Header {
        let mut next = || read(bytes, at);
        let content_len = next();
        let description = [next(), next()];
        let body_start = next();
        let body_end = content_len.saturating_sub(next());
        Header {
            content_len,
            description,
            body: [body_start, body_end.saturating_sub(body_start)],
            flags: next(),
        }
    }

    /// Whether the record has `field`.
    pub const fn has(&self, field: Field) -> bool {
        self.flags & field.bit() != 0
    }
}

/// The fields a record sets, in order, each with the position of its data, for the record
/// whose fields start at `fields_at` (just after its header).
pub fn fields<'a>(
    bytes: &'a [u8],
    header: &Header,
    fields_at: usize,
) -> impl Iterator<Item = (Field, usize)> + 'a {
    let header = *header;
    let mut at = fields_at;
    Field::ALL
        .iter()
        .copied()
        .filter(move |&field| header.has(field))
        .map(move |field| {
            let start = at;
            skip(bytes, &mut at, field.kind());
            (field, start)
        })
}

/// The position of `field`'s data, or `None` when the record does not set it.
pub fn find(bytes: &[u8], header: &Header, fields_at: usize, field: Field) -> Option<usize> {
    fields(bytes, header, fields_at).find_map(|(found, at)| (found == field).then_some(at))
}

/// Moves `*at` past one field's data.
fn skip(bytes: &[u8], at: &mut usize, kind: Kind) {
    let numbers = match kind {
        Kind::Flag => 0,
        Kind::Number => 1,
        Kind::Text => 2,
        Kind::Resources => 3,
        Kind::List => 2 * read(bytes, at) as usize,
        Kind::Pairs | Kind::Commands => 4 * read(bytes, at) as usize,
    };
    // Each number takes at least one byte: a damaged count cannot make this loop long.
    for _ in 0..numbers.min(bytes.len().saturating_sub(*at)) {
        read(bytes, at);
    }
}

/// One trigger case in the table of a bundle built with `embed_evals = true`. The table holds,
/// for each skill in order, the number of its cases, then one entry per case, all unsigned
/// LEB128; the queries are laid end to end, in the same order, in a text of their own, so a case
/// needs only the length of its query and its bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriggerEntry {
    /// Length of the query in bytes.
    pub query_len: u32,
    /// Whether the model should load the skill.
    pub should_trigger: bool,
}

impl TriggerEntry {
    /// Appends the entry: `query_len * 2 + should_trigger`.
    pub fn write(self, out: &mut Vec<u8>) {
        // A query is at most `max_file_size` bytes; past 2 GiB it would not fit the text anyway.
        let len = self.query_len.min(u32::MAX >> 1);
        write(out, len << 1 | u32::from(self.should_trigger));
    }

    /// Reads the entry at `*at` and moves past it.
    pub fn read(bytes: &[u8], at: &mut usize) -> TriggerEntry {
        let value = read(bytes, at);
        TriggerEntry {
            query_len: value >> 1,
            should_trigger: value & 1 == 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigger_entries_round_trip() {
        let entries = [
            TriggerEntry {
                query_len: 0,
                should_trigger: true,
            },
            TriggerEntry {
                query_len: 300,
                should_trigger: false,
            },
            TriggerEntry {
                query_len: 63,
                should_trigger: true,
            },
        ];
        let mut bytes = Vec::new();
        for entry in entries {
            entry.write(&mut bytes);
        }
        assert_eq!(bytes.len(), 1 + 2 + 1, "short queries take one byte");
        let mut at = 0;
        for entry in entries {
            assert_eq!(TriggerEntry::read(&bytes, &mut at), entry);
        }
        assert_eq!(at, bytes.len());
    }

    #[test]
    fn numbers_round_trip() {
        let values = [0, 1, 127, 128, 300, 16_383, 16_384, u32::MAX];
        let mut bytes = Vec::new();
        for value in values {
            write(&mut bytes, value);
        }
        assert_eq!(bytes.len(), 1 + 1 + 1 + 2 + 2 + 2 + 3 + 5);
        let mut at = 0;
        for value in values {
            assert_eq!(read(&bytes, &mut at), value);
        }
        assert_eq!(at, bytes.len());
        assert_eq!(read(&bytes, &mut at), 0, "past the end reads zero");
        assert_eq!(
            read(&[0xff, 0xff], &mut 0),
            0x3fff,
            "a cut number does not panic"
        );
    }

    #[test]
    fn fields_are_found_after_the_ones_before_them() {
        let header = Header {
            content_len: 200,
            description: [20, 30],
            body: [60, 140],
            flags: Field::Tags.bit() | Field::Metadata.bit() | Field::Effort.bit(),
        };
        let mut bytes = vec![0xaa]; // a record need not start the table
        header.write(&mut bytes);
        let fields_at = bytes.len();
        for value in [2, 1, 2, 4, 3] {
            write(&mut bytes, value); // tags: 2 entries
        }
        for value in [1, 5, 6, 7, 8] {
            write(&mut bytes, value); // metadata: 1 pair
        }
        write(&mut bytes, 2); // effort
        let mut at = 1;
        assert_eq!(Header::read(&bytes, &mut at), header);
        assert_eq!(at, fields_at);
        assert_eq!(find(&bytes, &header, at, Field::Tags), Some(fields_at));
        assert_eq!(find(&bytes, &header, at, Field::Version), None);
        let effort = find(&bytes, &header, at, Field::Effort).unwrap();
        assert_eq!(read(&bytes, &mut { effort }), 2);
        assert_eq!(effort, bytes.len() - 1);
    }

    #[test]
    fn flags_of_common_fields_fit_one_byte() {
        for field in &Field::ALL[..7] {
            assert!(field.bit() < 0x80, "{field:?}");
        }
        assert!(Field::ALL.len() <= 32);
    }

    #[test]
    fn fixed_width_numbers() {
        assert_eq!(u32_at(&[1, 2, 0, 0, 9], 0), 0x0201);
        assert_eq!(u32_at(&[1, 2, 0, 0, 9], 2), 0);
        let entry = NameEntry {
            start: 70_000,
            len: 256,
            from_base: 10,
        };
        let mut names = vec![0; NameEntry::LEN];
        names.extend(entry.to_bytes());
        assert_eq!(NameEntry::read(&names, 1), entry);
        assert_eq!(NameEntry::read(&names, 0).len, 1);
        assert_eq!(NameEntry::read(&names, 2).len, 0, "past the end");
    }
}
