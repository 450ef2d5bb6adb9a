//! The frontmatter fields: reads a skill's fields out of its frontmatter tree, with the type
//! and rules of each known key.

use std::ops::Range;
use std::path::PathBuf;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use crate::allowed_tools::{self, Entry};
use crate::claude_code::Compat;
use crate::claude_code::is_js_space;
use crate::claude_code::{Effort, Shell, SkillContext};
use crate::diagnostic::{Code, Diagnostic};
use crate::resources::ResourceDef;
use crate::shell_commands::{self, ShellCommand};
use crate::spanned::Spanned;
use crate::text;
use crate::triggers::TriggerFile;
use crate::yaml::{self, Node, Value};

/// A key a frontmatter may hold: the Agent Skills spec's, then ours, then Claude Code's (known
/// only with `compat = "claude-code"`). The parser matches on this, and [`KNOWN_KEYS`] lists its
/// names, so the two cannot disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FrontmatterKey {
    /// `name`.
    Name,
    /// `description`.
    Description,
    /// `license`.
    License,
    /// `compatibility`.
    Compatibility,
    /// `metadata`.
    Metadata,
    /// `allowed-tools`.
    AllowedTools,
    /// `version`.
    Version,
    /// `tags`.
    Tags,
    /// `when-not-to-use`.
    WhenNotToUse,
    /// `requires`.
    Requires,
    /// `conflicts-with`.
    ConflictsWith,
    /// Claude Code's `when_to_use`.
    WhenToUse,
    /// Claude Code's `argument-hint`.
    ArgumentHint,
    /// Claude Code's `arguments`.
    Arguments,
    /// Claude Code's `disable-model-invocation`.
    DisableModelInvocation,
    /// Claude Code's `user-invocable`.
    UserInvocable,
    /// Claude Code's `disallowed-tools`.
    DisallowedTools,
    /// Claude Code's `model`.
    Model,
    /// Claude Code's `effort`.
    Effort,
    /// Claude Code's `context`.
    Context,
    /// Claude Code's `agent`.
    Agent,
    /// Claude Code's `hooks`.
    Hooks,
    /// Claude Code's `paths`.
    Paths,
    /// Claude Code's `shell`.
    Shell,
    /// Claude Code's `background` (only with `context: fork`).
    Background,
    /// Claude Code's `display-name` (also `display_name`, `displayName`).
    DisplayName,
    /// Claude Code's `default-enabled` (also `default_enabled`, `defaultEnabled`).
    DefaultEnabled,
    /// Claude Code's `fallback`.
    Fallback,
}

impl FrontmatterKey {
    /// Every key, the spec's first, Claude Code's last.
    pub const ALL: [FrontmatterKey; 28] = [
        FrontmatterKey::Name,
        FrontmatterKey::Description,
        FrontmatterKey::License,
        FrontmatterKey::Compatibility,
        FrontmatterKey::Metadata,
        FrontmatterKey::AllowedTools,
        FrontmatterKey::Version,
        FrontmatterKey::Tags,
        FrontmatterKey::WhenNotToUse,
        FrontmatterKey::Requires,
        FrontmatterKey::ConflictsWith,
        FrontmatterKey::WhenToUse,
        FrontmatterKey::ArgumentHint,
        FrontmatterKey::Arguments,
        FrontmatterKey::DisableModelInvocation,
        FrontmatterKey::UserInvocable,
        FrontmatterKey::DisallowedTools,
        FrontmatterKey::Model,
        FrontmatterKey::Effort,
        FrontmatterKey::Context,
        FrontmatterKey::Agent,
        FrontmatterKey::Hooks,
        FrontmatterKey::Paths,
        FrontmatterKey::Shell,
        FrontmatterKey::Background,
        FrontmatterKey::DisplayName,
        FrontmatterKey::DefaultEnabled,
        FrontmatterKey::Fallback,
    ];

    /// The key as written in `SKILL.md`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FrontmatterKey::Name => "name",
            FrontmatterKey::Description => "description",
            FrontmatterKey::License => "license",
            FrontmatterKey::Compatibility => "compatibility",
            FrontmatterKey::Metadata => "metadata",
            FrontmatterKey::AllowedTools => "allowed-tools",
            FrontmatterKey::Version => "version",
            FrontmatterKey::Tags => "tags",
            FrontmatterKey::WhenNotToUse => "when-not-to-use",
            FrontmatterKey::Requires => "requires",
            FrontmatterKey::ConflictsWith => "conflicts-with",
            FrontmatterKey::WhenToUse => "when_to_use",
            FrontmatterKey::ArgumentHint => "argument-hint",
            FrontmatterKey::Arguments => "arguments",
            FrontmatterKey::DisableModelInvocation => "disable-model-invocation",
            FrontmatterKey::UserInvocable => "user-invocable",
            FrontmatterKey::DisallowedTools => "disallowed-tools",
            FrontmatterKey::Model => "model",
            FrontmatterKey::Effort => "effort",
            FrontmatterKey::Context => "context",
            FrontmatterKey::Agent => "agent",
            FrontmatterKey::Hooks => "hooks",
            FrontmatterKey::Paths => "paths",
            FrontmatterKey::Shell => "shell",
            FrontmatterKey::Background => "background",
            FrontmatterKey::DisplayName => "display-name",
            FrontmatterKey::DefaultEnabled => "default-enabled",
            FrontmatterKey::Fallback => "fallback",
        }
    }

    /// Whether only `compat = "claude-code"` knows this key.
    pub const fn is_claude_code(self) -> bool {
        (self as usize) >= (FrontmatterKey::WhenToUse as usize)
    }

    /// Whether a frontmatter in `compat` may hold this key.
    pub const fn is_known_in(self, compat: Compat) -> bool {
        matches!(compat, Compat::ClaudeCode) || !self.is_claude_code()
    }

    /// The known key spelled exactly `text`.
    pub fn from_name(text: &str) -> Option<FrontmatterKey> {
        FrontmatterKey::ALL
            .into_iter()
            .find(|key| key.as_str() == text)
    }

    /// The key `text` names in `compat`: its own name, or under `compat = "claude-code"` one of
    /// the snake_case and camelCase spellings Claude Code reads too (`displayName`).
    pub fn from_spelling(text: &str, compat: Compat) -> Option<FrontmatterKey> {
        let key = FrontmatterKey::from_name(text)
            .or_else(|| crate::claude_code::kebab_case_of(text).and_then(Self::from_name))?;
        key.is_known_in(compat).then_some(key)
    }
}

/// The names of [`FrontmatterKey::ALL`], in the same order (Claude Code's included).
pub const KNOWN_KEYS: &[&str] = &{
    let mut names = [""; FrontmatterKey::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = FrontmatterKey::ALL[i].as_str();
        i += 1;
    }
    names
};

/// Limits of the field table.
pub(crate) const MAX_NAME_CHARS: usize = 64;
/// Maximum `description` length in characters.
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Maximum `compatibility` length in characters.
pub(crate) const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Maximum `when-not-to-use` length in characters.
pub(crate) const MAX_WHEN_NOT_TO_USE_CHARS: usize = 512;
/// Maximum length of a display `name` under `compat = "claude-code"`, in characters: the spec's
/// limit for names.
pub(crate) const MAX_DISPLAY_NAME_CHARS: usize = 64;
/// Claude Code's cap on what its skill listing shows of a skill, `description - when_to_use`,
/// in UTF-16 code units (JavaScript's string length): it cuts the rest.
pub(crate) const CLAUDE_CODE_LISTING_CHARS: usize = 1536;
/// Longest description Claude Code takes from a body, in UTF-16 code units; a longer first line
/// is cut to [`CLAUDE_CODE_CUT_CHARS`] and `...`.
const CLAUDE_CODE_BODY_DESCRIPTION_CHARS: usize = 100;
/// See [`CLAUDE_CODE_BODY_DESCRIPTION_CHARS`].
const CLAUDE_CODE_CUT_CHARS: usize = 97;

/// A skill that passed every per-file rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillDef {
    /// Display path of `SKILL.md`, relative to the manifest directory, with `/`.
    pub path: String,
    /// The file on disk (empty when parsed from memory).
    pub file: PathBuf,
    /// The normalized text of the whole file (BOM dropped, line endings LF).
    pub text: String,
    /// Byte range of the body in `text`.
    pub body: Range<usize>,
    /// 1-based line where the body starts in the file.
    pub body_line: usize,
    /// SHA-256 of `text`, lowercase hex.
    pub sha256: String,
    /// `name`, equal to the directory name.
    pub name: Spanned<String>,
    /// `description`, as decoded from YAML.
    pub description: Spanned<String>,
    /// `license`.
    pub license: Option<Spanned<String>>,
    /// `compatibility`.
    pub compatibility: Option<Spanned<String>>,
    /// `metadata`, in source order.
    pub metadata: Vec<(String, String)>,
    /// `allowed-tools`, split on whitespace when given as one string.
    pub allowed_tools: Vec<String>,
    /// `version`.
    pub version: Option<Spanned<String>>,
    /// `tags`.
    pub tags: Vec<String>,
    /// `when-not-to-use`.
    pub when_not_to_use: Option<Spanned<String>>,
    /// `requires`.
    pub requires: Vec<Spanned<String>>,
    /// `conflicts-with`.
    pub conflicts_with: Vec<Spanned<String>>,
    /// Claude Code's fields (all at their defaults without `compat = "claude-code"`).
    pub claude_code: ClaudeCodeFields,
    /// Every top-level key of the frontmatter as written, known or not, in source order.
    pub keys: Vec<Spanned<String>>,
    /// Files beside `SKILL.md` (filled in by [`crate::bundle::load`]; empty when parsed from
    /// memory). Never anything under `evals/`.
    pub resources: Vec<ResourceDef>,
    /// The trigger cases of `evals/triggers.json`, when the skill has that file (filled in by
    /// [`crate::bundle::load`]).
    pub triggers: Option<TriggerFile>,
    /// SHA-256 over `SKILL.md` and every resource (path and bytes): names the directory the
    /// runtime materializes the skill's files into. Equal to `sha256` when there are no resources.
    pub tree_sha256: String,
    /// The whole frontmatter as one compact JSON object, every key the author wrote in the
    /// author's order, read from the same YAML tree as the fields (what the MCP server lists).
    pub frontmatter_json: String,
    /// Codex's `agents/openai.yaml`, when the skill has one (filled in by
    /// [`crate::bundle::load`]; its settings are already applied to the fields above).
    pub openai: Option<crate::openai_yaml::OpenAiYaml>,
}

/// The fields only `compat = "claude-code"` accepts, as read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaudeCodeFields {
    /// `name` when it is a display name that differs from the folder (the identifier).
    pub display_name: Option<Spanned<String>>,
    /// `when_to_use`: appended to the description in the catalog.
    pub when_to_use: Option<Spanned<String>>,
    /// `argument-hint`.
    pub argument_hint: Option<Spanned<String>>,
    /// `arguments`: the names of the positional arguments, in order.
    pub arguments: Vec<String>,
    /// `false` when `disable-model-invocation: true`: the skill is left out of the catalog and
    /// the `load_skill` names.
    pub model_invocable: bool,
    /// `user-invocable` (default `true`).
    pub user_invocable: bool,
    /// `disallowed-tools`, entries as written.
    pub disallowed_tools: Vec<String>,
    /// `model`.
    pub model: Option<Spanned<String>>,
    /// `effort`.
    pub effort: Option<Spanned<Effort>>,
    /// `context`.
    pub context: Option<Spanned<SkillContext>>,
    /// `agent` (only with `context: fork`).
    pub agent: Option<Spanned<String>>,
    /// `hooks`, the mapping as compact JSON text.
    pub hooks: Option<Spanned<String>>,
    /// `paths`: globs, one per entry.
    pub paths: Vec<String>,
    /// `shell`.
    pub shell: Option<Spanned<Shell>>,
    /// The body's `` !`command` `` and ```` ```! ```` blocks, which Claude Code runs when the skill
    /// is invoked (ranges are in the body).
    pub shell_commands: Vec<ShellCommand>,
    /// `background` (only with `context: fork`): whether the fork runs in the background.
    pub background: Option<Spanned<bool>>,
    /// `default-enabled` (default `true`): whether the skill starts enabled.
    pub default_enabled: Option<Spanned<bool>>,
    /// `fallback`: whether the skill yields to a plugin's or MCP server's skill of its name.
    pub fallback: Option<Spanned<bool>>,
    /// Booleans written as words only Claude Code reads as booleans (`yes`, `off`, `1`, a
    /// quoted `"true"`): the key and the value as written, at the value.
    pub boolean_words: Vec<Spanned<(String, String)>>,
}

impl Default for ClaudeCodeFields {
    fn default() -> Self {
        ClaudeCodeFields {
            display_name: None,
            when_to_use: None,
            argument_hint: None,
            arguments: Vec::new(),
            model_invocable: true,
            user_invocable: true,
            disallowed_tools: Vec::new(),
            model: None,
            effort: None,
            context: None,
            agent: None,
            hooks: None,
            paths: Vec::new(),
            shell: None,
            shell_commands: Vec::new(),
            background: None,
            default_enabled: None,
            fallback: None,
            boolean_words: Vec::new(),
        }
    }
}

impl SkillDef {
    /// The body text.
    pub fn body(&self) -> &str {
        &self.text[self.body.clone()]
    }

    /// The display path of a file `relative` to the skill's folder (`skills/pdf/scripts/fill.py`).
    pub fn file_path(&self, relative: &str) -> String {
        let folder = self.path.strip_suffix("SKILL.md").unwrap_or(&self.path);
        format!("{folder}{relative}")
    }

    /// Every file the skill ships, with its size in bytes: `SKILL.md` as the bundle carries it
    /// (its normalized text), then each resource.
    pub fn file_sizes(&self) -> impl Iterator<Item = (&str, u64)> {
        std::iter::once(("SKILL.md", self.text.len() as u64)).chain(
            self.resources
                .iter()
                .map(|resource| (resource.path.as_str(), resource.size)),
        )
    }

    /// What the catalog shows of this skill: the one mapping the macro and the CLI both use.
    pub fn catalog_entry(&self) -> crate::render::CatalogEntry<'_> {
        crate::render::CatalogEntry {
            name: &self.name.value,
            description: &self.description.value,
            when_to_use: self
                .claude_code
                .when_to_use
                .as_ref()
                .map(|w| w.value.as_str()),
            when_not_to_use: self.when_not_to_use.as_ref().map(|w| w.value.as_str()),
            model_invocable: self.claude_code.model_invocable,
        }
    }
}

/// Per-file parsing options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept frontmatter keys outside [`KNOWN_KEYS`] (they are ignored).
    pub allow_unknown_keys: bool,
    /// Compatibility with old folders: a missing `name` is the folder name, a missing
    /// `description` the first line of the body (without leading `#`).
    pub infer_missing_fields: bool,
    /// The frontmatter dialect.
    pub compat: Compat,
}

/// Parses one `SKILL.md`. `path` is the display path; `dir_name` the name of its folder.
/// Returns the skill when every rule passed, and every problem found either way.
pub fn parse(
    path: &str,
    dir_name: &str,
    bytes: &[u8],
    options: &ParseOptions,
) -> (Option<SkillDef>, Vec<Diagnostic>) {
    let document = match text::decode(path, bytes).and_then(|text| text::split(path, text)) {
        Ok(document) => document,
        Err(diagnostic) => return (None, vec![diagnostic]),
    };
    let source = yaml::Source {
        path,
        file_text: &document.text,
        fragment: document.frontmatter(),
        first_line: 2,
    };
    let (root, mut diagnostics) = match options.compat {
        Compat::Strict => yaml::parse(&source),
        Compat::ClaudeCode => yaml::parse_as_claude_code(&source),
    };
    // Claude Code reads nothing between the `---` lines as no fields at all.
    let empty = (root.is_none() && diagnostics.is_empty() && options.compat == Compat::ClaudeCode)
        .then(|| Node {
            value: Value::Map(Vec::new()),
            line: 1,
            column: 1,
        });
    let Some(root) = root.or(empty) else {
        if diagnostics.is_empty() {
            diagnostics.push(
                Diagnostic::error(Code::EmptyFrontmatter, path, "frontmatter is empty")
                    .at(&document.text, 1, 1)
                    .with_help("add `name:` and `description:` between the `---` lines"),
            );
        }
        return (None, diagnostics);
    };
    let mut reader = FieldReader {
        path,
        text: &document.text,
        compat: options.compat,
        diagnostics,
        boolean_words: Vec::new(),
    };
    let mut skill = reader.read(&root, dir_name, document.body(), options);
    if let (Some(skill), Compat::ClaudeCode) = (&mut skill, options.compat) {
        reader.claude_code_body(document.body(), document.body.start);
        skill.claude_code.shell_commands = shell_commands::find(document.body());
    }
    let diagnostics = reader.diagnostics;
    let skill = skill
        .filter(|_| !diagnostics.iter().any(Diagnostic::is_error))
        .map(|fields| {
            let sha256 = crate::digest::sha256_hex(document.text.as_bytes());
            SkillDef {
                path: path.to_owned(),
                file: PathBuf::new(),
                body: document.body.clone(),
                body_line: document.body_line,
                tree_sha256: sha256.clone(),
                sha256,
                text: document.text,
                ..fields
            }
        });
    (skill, diagnostics)
}

/// What a tool entry looks like, for `allowed-tools` and `disallowed-tools` errors.
const TOOL_ENTRY_HELP: &str = "write tool names separated by spaces or commas, each `Tool` or \
`Tool(pattern)`, e.g. `Read, Grep, Bash(git diff:*)`";

/// What `hooks` looks like.
const HOOKS_HELP: &str = "write `hooks:` as `EventName:` lines, each holding a list of handlers, \
e.g. `PreToolUse: [{ matcher: Bash, hooks: [{ type: command, command: ./check.sh }] }]`";

/// A YAML tree as compact JSON text: mappings become objects (keys in source order), plain
/// numbers stay numbers when JSON can write them, and are strings otherwise (`0x1f`, `.inf`).
fn json(node: &Node) -> String {
    use crate::render::json_string;
    match &node.value {
        Value::Null => "null".to_owned(),
        Value::Bool(value) => value.to_string(),
        Value::Number(number) if is_json_number(number) => number.clone(),
        Value::Number(text) | Value::Str(text) => json_string(text),
        Value::Seq(items) => format!("[{}]", items.iter().map(json).collect::<Vec<_>>().join(",")),
        Value::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(key, value)| format!(
                    "{}:{}",
                    json_string(&key.value.scalar_text().unwrap_or_default()),
                    json(value)
                ))
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

/// Whether `text` is a number in JSON's grammar.
fn is_json_number(text: &str) -> bool {
    let digits = |s: &str| -> usize { s.chars().take_while(char::is_ascii_digit).count() };
    let rest = text.strip_prefix('-').unwrap_or(text);
    let int = digits(rest);
    if int == 0 || (int > 1 && rest.starts_with('0')) {
        return false;
    }
    let mut rest = &rest[int..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = digits(fraction);
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    if let Some(exponent) = rest.strip_prefix(['e', 'E']) {
        let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        let n = digits(exponent);
        return n > 0 && n == exponent.len();
    }
    rest.is_empty()
}

/// Whether `c` may appear in a `name`: `-`, a digit of any script, or a letter that is lowercase
/// or has no case at all (CJK, Arabic, ...). The spec says "lowercase alphanumeric characters"
/// without limiting them to ASCII, and its reference validator accepts `café` and `数据-分析`.
fn is_name_char(c: char) -> bool {
    c == '-' || c.is_numeric() || (c.is_alphabetic() && (c.is_lowercase() || !has_case(c)))
}

/// A character with no upper- and lowercase forms (`数`, but not `ǅ`, which is titlecase).
fn has_case(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase() || !c.to_lowercase().eq([c]) || !c.to_uppercase().eq([c])
}

/// The description Claude Code takes from a body when the frontmatter gives none: the first line that is not blank, trimmed; of a heading
/// (`# Title`), its text; over 100 UTF-16 code units (JavaScript's length), cut to 97 and
/// `...`. `None` for an empty body. The `infer_missing_fields` option takes the same text.
pub(crate) fn description_from_body(body: &str) -> Option<String> {
    let line = body
        .split('\n')
        .map(|line| line.trim_matches(is_js_space))
        .find(|line| !line.is_empty())?;
    // `^#+\s+(\S.*)$`: JavaScript's `.` stops at U+2028 and U+2029 (and `$` needs the end).
    let heading = line
        .strip_prefix('#')
        .map(|rest| rest.trim_start_matches('#'))
        .filter(|rest| rest.starts_with(is_js_space))
        .map(|rest| rest.trim_start_matches(is_js_space))
        .filter(|text| !text.is_empty() && !text.contains(['\u{2028}', '\u{2029}', '\r']));
    let text = heading.unwrap_or(line);
    if text.encode_utf16().count() <= CLAUDE_CODE_BODY_DESCRIPTION_CHARS {
        return Some(text.to_owned());
    }
    let mut units = 0;
    let cut: String = text
        .chars()
        .take_while(|c| {
            units += c.len_utf16();
            units <= CLAUDE_CODE_CUT_CHARS
        })
        .collect();
    Some(format!("{cut}..."))
}

/// The column (in characters) of the `index`-th character of a string value, found in the line
/// it was written on: after the opening quote of a quoted scalar. When the line does not hold
/// the value as written (escapes, a block scalar), the value's own column.
pub(crate) fn value_column(text: &str, value: &Spanned<String>, index: usize) -> usize {
    let line = text.lines().nth(value.line.saturating_sub(1)).unwrap_or("");
    let rest: String = line.chars().skip(value.column.saturating_sub(1)).collect();
    let quote = usize::from(rest.starts_with(['"', '\'']));
    let written = &rest[quote..];
    if written.starts_with(value.value.as_str()) {
        value.column + quote + index
    } else {
        value.column
    }
}

struct FieldReader<'a> {
    path: &'a str,
    text: &'a str,
    compat: Compat,
    diagnostics: Vec<Diagnostic>,
    /// Booleans written as words only Claude Code reads (see [`ClaudeCodeFields`]).
    boolean_words: Vec<Spanned<(String, String)>>,
}

/// Anything with a place in `SKILL.md` a diagnostic can point at.
trait Located {
    /// 1-based line and column.
    fn position(&self) -> (usize, usize);
}

impl Located for Node {
    fn position(&self) -> (usize, usize) {
        (self.line, self.column)
    }
}

impl<T> Located for Spanned<T> {
    fn position(&self) -> (usize, usize) {
        (self.line, self.column)
    }
}

/// A missing key has no line of its own: it is reported at the opening `---`.
struct OpeningLine;

impl Located for OpeningLine {
    fn position(&self) -> (usize, usize) {
        (1, 1)
    }
}

impl FieldReader<'_> {
    fn error(
        &mut self,
        code: Code,
        at: &impl Located,
        message: impl Into<String>,
        help: Option<String>,
    ) {
        let (line, column) = at.position();
        let diagnostic = Diagnostic::error(code, self.path, message).at(self.text, line, column);
        self.diagnostics.push(match help {
            Some(help) => diagnostic.with_help(help),
            None => diagnostic,
        });
    }

    fn read(
        &mut self,
        root: &Node,
        dir_name: &str,
        body: &str,
        options: &ParseOptions,
    ) -> Option<SkillDef> {
        let Value::Map(entries) = &root.value else {
            self.error(
                Code::FrontmatterNotMapping,
                root,
                format!(
                    "frontmatter must be a YAML mapping of `key: value` lines, found {}",
                    root.value.kind()
                ),
                None,
            );
            return None;
        };
        let mut skill = SkillDef {
            path: String::new(),
            file: PathBuf::new(),
            text: String::new(),
            body: 0..0,
            body_line: 0,
            sha256: String::new(),
            tree_sha256: String::new(),
            frontmatter_json: json(root),
            openai: None,
            resources: Vec::new(),
            name: Spanned {
                value: String::new(),
                line: 0,
                column: 0,
            },
            description: Spanned {
                value: String::new(),
                line: 0,
                column: 0,
            },
            license: None,
            compatibility: None,
            metadata: Vec::new(),
            allowed_tools: Vec::new(),
            version: None,
            tags: Vec::new(),
            when_not_to_use: None,
            requires: Vec::new(),
            conflicts_with: Vec::new(),
            claude_code: ClaudeCodeFields::default(),
            keys: Vec::new(),
            triggers: None,
        };
        let (mut has_name, mut has_description) = (false, false);
        // Where a blank `description:` is, which Claude Code reads as no description.
        let mut blank_description: Option<(usize, usize)> = None;
        // The keys read so far, as written: Claude Code reads `display-name`, `display_name`
        // and `displayName` as one key, so two of them in a file are one key twice.
        let mut seen: Vec<(FrontmatterKey, String)> = Vec::new();
        // Claude Code's `display-name`, which wins over a display `name`.
        let mut display_name_key: Option<Spanned<String>> = None;
        for (key_node, value) in entries {
            let written = key_node.value.scalar_text().unwrap_or_default();
            skill.keys.push(Spanned::new(written.clone(), key_node));
            let Some(known) = FrontmatterKey::from_spelling(&written, self.compat) else {
                if !options.allow_unknown_keys {
                    self.unknown_key(key_node, &written);
                }
                continue;
            };
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == known) {
                self.error(
                    Code::DuplicateKey,
                    key_node,
                    format!(
                        "`{written}` is `{first}` again: Claude Code reads kebab-case, snake_case \
                         and camelCase as one key"
                    ),
                    Some(format!("keep one of `{first}` and `{written}`")),
                );
                continue;
            }
            seen.push((known, written.clone()));
            let key = written.as_str();
            match known {
                FrontmatterKey::Name => {
                    has_name = true;
                    if let Some(name) = self.string(value, key) {
                        if self.compat == Compat::ClaudeCode {
                            skill.name = self.display_name(name, dir_name, &mut skill.claude_code);
                        } else {
                            self.check_name(&name, dir_name);
                            skill.name = name;
                        }
                    }
                }
                FrontmatterKey::Description => {
                    let blank = match &value.value {
                        Value::Null => true,
                        Value::Str(text) => text.trim_matches(is_js_space).is_empty(),
                        _ => false,
                    };
                    if blank && self.compat == Compat::ClaudeCode {
                        blank_description = Some((value.line, value.column));
                        continue;
                    }
                    has_description = true;
                    if let Some(description) = self.string(value, key) {
                        // An empty description is one problem, not also a length problem.
                        if description.value.trim().is_empty() {
                            self.error(
                                Code::EmptyValue,
                                value,
                                "`description` is empty",
                                Some("say what the skill does and when to use it".into()),
                            );
                        } else if self.compat == Compat::Strict {
                            let text = &description.value;
                            self.check_length(value, key, text, 1, MAX_DESCRIPTION_CHARS);
                        }
                        skill.description = description;
                    }
                }
                FrontmatterKey::License => skill.license = self.string(value, key),
                FrontmatterKey::Compatibility => {
                    skill.compatibility = self.bounded_string(value, key, MAX_COMPATIBILITY_CHARS);
                }
                FrontmatterKey::Metadata => skill.metadata = self.metadata(value),
                FrontmatterKey::AllowedTools => skill.allowed_tools = self.tool_list(value, key),
                FrontmatterKey::Version => skill.version = self.version(value),
                FrontmatterKey::Tags => {
                    skill.tags = self
                        .string_list(value, key)
                        .into_iter()
                        .map(|tag| tag.value)
                        .collect();
                }
                FrontmatterKey::WhenNotToUse => {
                    skill.when_not_to_use =
                        self.bounded_string(value, key, MAX_WHEN_NOT_TO_USE_CHARS);
                }
                FrontmatterKey::Requires => skill.requires = self.string_list(value, key),
                FrontmatterKey::ConflictsWith => {
                    skill.conflicts_with = self.string_list(value, key)
                }
                FrontmatterKey::DisplayName => {
                    display_name_key = self
                        .string(value, key)
                        .filter(|shown| self.check_display_name(shown, key));
                }
                _ => self.claude_code_field(known, key, value, &mut skill.claude_code),
            }
        }
        if let Some(shown) = display_name_key {
            skill.claude_code.display_name = (shown.value != dir_name).then_some(shown);
        }
        skill.claude_code.boolean_words = std::mem::take(&mut self.boolean_words);
        self.check_fork_only(&skill.claude_code);
        let opening = OpeningLine;
        if !has_name && self.compat == Compat::ClaudeCode {
            // Claude Code takes the folder as the name when `name` is left out.
            skill.name = Spanned {
                value: dir_name.to_owned(),
                line: 1,
                column: 1,
            };
            self.check_name(&skill.name, dir_name);
        } else if !has_name && options.infer_missing_fields {
            skill.name = Spanned {
                value: dir_name.to_owned(),
                line: 1,
                column: 1,
            };
        } else if !has_name {
            self.error(
                Code::MissingKey,
                &opening,
                "missing required key `name`",
                Some(format!(
                    "add `name: {dir_name}` (it must equal the folder name)"
                )),
            );
        }
        let from_body = description_from_body(body);
        match (has_description, from_body) {
            (true, _) => {}
            (false, Some(text)) if options.infer_missing_fields => {
                skill.description = Spanned {
                    value: text,
                    line: 1,
                    column: 1,
                };
            }
            (false, Some(text)) if self.compat == Compat::ClaudeCode => {
                let (line, column) = blank_description.unwrap_or((1, 1));
                self.warning(
                    Code::DescriptionFromBody,
                    &Spanned {
                        value: (),
                        line,
                        column,
                    },
                    format!(
                        "no `description`: the first line of the body, `{text}`, is taken instead, as Claude Code takes it"
                    ),
                    "add `description:` saying what the skill does and when to use it; skills-ref \
                     (the spec's reference validator) and Codex refuse a skill without one"
                        .to_owned(),
                );
                skill.description = Spanned {
                    value: text,
                    line,
                    column,
                };
            }
            (false, _) => self.error(
                Code::MissingKey,
                &opening,
                "missing required key `description`",
                Some("add `description:` saying what the skill does and when to use it".into()),
            ),
        }
        if self.compat == Compat::ClaudeCode && !skill.description.value.is_empty() {
            self.claude_code_listing(&skill.description, skill.claude_code.when_to_use.as_ref());
        }
        Some(skill)
    }

    /// Claude Code's limits on a description: what its listing shows, `description -
    /// when_to_use`, is cut at [`CLAUDE_CODE_LISTING_CHARS`] (an error: the model would not see
    /// the rest); within that, a description over the spec's 1,024 characters loads in Claude
    /// Code but not elsewhere (a warning).
    fn claude_code_listing(
        &mut self,
        description: &Spanned<String>,
        when_to_use: Option<&Spanned<String>>,
    ) {
        let utf16 = |text: &str| text.encode_utf16().count();
        let listing = utf16(&description.value) + when_to_use.map_or(0, |w| 3 + utf16(&w.value));
        let chars = description.value.chars().count();
        if listing > CLAUDE_CODE_LISTING_CHARS {
            let what = if when_to_use.is_some() {
                "`description` and `when_to_use` are"
            } else {
                "`description` is"
            };
            self.error(
                Code::FieldLength,
                description,
                format!(
                    "{what} {listing} characters in Claude Code's skill listing, over its cap of {CLAUDE_CODE_LISTING_CHARS}: Claude Code cuts the rest, so the model never sees it"
                ),
                Some("shorten them and put the key use case first; details belong in the body".into()),
            );
        } else if chars > MAX_DESCRIPTION_CHARS {
            self.warning(
                Code::LongDescription,
                description,
                format!(
                    "`description` is {chars} characters, over the spec's {MAX_DESCRIPTION_CHARS}; Claude Code accepts it (up to {CLAUDE_CODE_LISTING_CHARS} with `when_to_use`)"
                ),
                format!(
                    "shorten it to at most {MAX_DESCRIPTION_CHARS} characters: skills-ref (the spec's reference validator) and Codex refuse a longer one"
                ),
            );
        }
    }

    /// What Claude Code does with a body beyond showing it: `${CLAUDE_*}` variables it does not
    /// substitute outside a plugin stay as written, with a warning. `body_start` is the body's
    /// byte offset in the file.
    fn claude_code_body(&mut self, body: &str, body_start: usize) {
        use crate::claude_code::{SUBSTITUTED_VARIABLES, variables};
        for (range, name) in variables(body) {
            if SUBSTITUTED_VARIABLES.contains(&name) {
                continue;
            }
            let known: Vec<String> = SUBSTITUTED_VARIABLES
                .iter()
                .map(|v| format!("`${{{v}}}`"))
                .collect();
            self.diagnostics.push(
                Diagnostic::warning(
                    Code::UnknownClaudeVariable,
                    self.path,
                    format!(
                        "`${{{name}}}` is not substituted: it stays in the text as written"
                    ),
                )
                .at_offset(self.text, body_start + range.start)
                .with_help(format!(
                    "the runtime substitutes {}; others, such as a plugin's `${{CLAUDE_PLUGIN_ROOT}}`, have a meaning only inside Claude Code",
                    known.join(", ")
                )),
            );
        }
    }

    /// A key outside [`KNOWN_KEYS`].
    fn unknown_key(&mut self, key_node: &Node, key: &str) {
        let compat = self.compat;
        let mut help = String::new();
        if let Some(claude) = FrontmatterKey::from_spelling(key, Compat::ClaudeCode)
            .filter(|k| k.is_claude_code() && compat == Compat::Strict)
        {
            let spelling = if claude.as_str() == key {
                String::new()
            } else {
                format!(" (`{}`)", claude.as_str())
            };
            help.push_str(&format!(
                "`{key}` is a Claude Code key{spelling}: `compat = \"claude-code\"` \
                 (`--compat claude-code` for the `skills` command) accepts it"
            ));
        } else {
            let known: Vec<&str> = FrontmatterKey::ALL
                .into_iter()
                .filter(|k| k.is_known_in(compat))
                .map(FrontmatterKey::as_str)
                .collect();
            let suggestion = crate::render::suggestion(key, &known, "known keys");
            let close = suggestion
                .as_deref()
                .filter(|s| s.starts_with("did you mean"));
            if let Some(close) = close {
                help.push_str(close);
                help.push(' ');
            }
            help.push_str(&format!(
                "custom data belongs under `metadata:`, e.g. `metadata: {{ {key}: \"...\" }}`"
            ));
            if let (None, Some(every)) = (close, &suggestion) {
                help.push_str(&format!("; {every}"));
            }
        }
        self.error(
            Code::UnknownKey,
            key_node,
            format!("unknown frontmatter key `{key}`"),
            Some(help),
        );
    }

    fn warning(&mut self, code: Code, at: &impl Located, message: String, help: String) {
        let (line, column) = at.position();
        let diagnostic = Diagnostic::warning(code, self.path, message).at(self.text, line, column);
        self.diagnostics.push(diagnostic.with_help(help));
    }

    fn string(&mut self, node: &Node, key: &str) -> Option<Spanned<String>> {
        match &node.value {
            Value::Str(text) => Some(Spanned::new(text.clone(), node)),
            // Claude Code reads a plain `1.0` or `true` where a string belongs as its text.
            Value::Number(_) | Value::Bool(_) if self.compat == Compat::ClaudeCode => {
                let text = node.value.scalar_text().unwrap_or_default();
                self.warning(
                    Code::NonStringScalar,
                    node,
                    format!(
                        "`{key}` should be a string, found {}; it is taken as the text `{text}`",
                        node.value.kind()
                    ),
                    format!("quote it: `{key}: \"{text}\"`"),
                );
                Some(Spanned::new(text, node))
            }
            other => {
                let help = other
                    .scalar_text()
                    .filter(|t| !t.is_empty())
                    .map(|t| format!("quote it: `{key}: \"{t}\"`"));
                self.error(
                    Code::WrongType,
                    node,
                    format!("`{key}` must be a string, found {}", other.kind()),
                    help,
                );
                None
            }
        }
    }

    /// A string of 1 to `max` characters; a longer or empty one is reported (and still returned,
    /// so later rules see it).
    fn bounded_string(&mut self, node: &Node, key: &str, max: usize) -> Option<Spanned<String>> {
        let text = self.string(node, key)?;
        self.check_length(node, key, &text.value, 1, max);
        Some(text)
    }

    fn check_length(&mut self, node: &impl Located, key: &str, text: &str, min: usize, max: usize) {
        let chars = text.chars().count();
        if chars < min || chars > max {
            self.error(
                Code::FieldLength,
                node,
                format!("`{key}` must be {min} to {max} characters long, found {chars}"),
                None,
            );
        }
    }

    fn check_name(&mut self, name: &Spanned<String>, dir_name: &str) {
        let value = &name.value;
        let help = Some(
            "use 1-64 lowercase letters (any script), digits and single hyphens, e.g. `code-review`"
                .to_owned(),
        );
        let chars = value.chars().count();
        // Where the `index`-th character of the name sits, so a bad one is pointed at.
        let text = self.text;
        let at = |index: usize| Spanned {
            value: (),
            line: name.line,
            column: value_column(text, name, index),
        };
        let normalized: String = value.nfkc().collect();
        if chars == 0 || chars > MAX_NAME_CHARS {
            self.error(
                Code::InvalidName,
                name,
                format!("`name` must be 1 to {MAX_NAME_CHARS} characters long, found {chars}"),
                help,
            );
        } else if normalized != *value {
            // Two spellings of one name (`é` and `e` + U+0301) must not be two skills, and the
            // folder must match byte for byte: only the composed (NFKC) spelling is accepted.
            let first = value
                .chars()
                .position(|c| is_combining_mark(c) || std::iter::once(c).nfkc().ne([c]))
                .unwrap_or(0);
            self.error(
                Code::NameNotNormalized,
                &at(first),
                format!("`name` `{value}` is not in Unicode NFKC form; normalized it is `{normalized}`"),
                Some(format!(
                    "write it as `name: {normalized}` (composed accents, no full-width letters) and name the folder the same"
                )),
            );
        } else if let Some((index, bad)) =
            value.chars().enumerate().find(|&(_, c)| !is_name_char(c))
        {
            self.error(
                Code::InvalidName,
                &at(index),
                format!("`name` may only hold lowercase letters, digits and `-`, found {bad:?}"),
                help,
            );
        } else if value.starts_with('-') || value.ends_with('-') {
            let index = if value.starts_with('-') { 0 } else { chars - 1 };
            self.error(
                Code::InvalidName,
                &at(index),
                "`name` must not start or end with `-`",
                help,
            );
        } else if let Some(byte) = value.find("--") {
            self.error(
                Code::InvalidName,
                &at(value[..byte].chars().count()),
                "`name` must not contain `--`",
                help,
            );
        } else if value != dir_name {
            self.error(
                Code::NameMismatch,
                name,
                format!("`name` is `{value}` but the folder is `{dir_name}`; they must be equal"),
                Some(format!(
                    "rename the folder to `{value}` or set `name: {dir_name}`"
                )),
            );
        }
    }

    fn string_list(&mut self, node: &Node, key: &str) -> Vec<Spanned<String>> {
        let Value::Seq(items) = &node.value else {
            self.error(
                Code::WrongType,
                node,
                format!("`{key}` must be a list, found {}", node.value.kind()),
                Some(format!("write `{key}: [a, b]` or one `- item` per line")),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            if let Some(text) = self.string(item, key) {
                if text.value.trim().is_empty() {
                    self.error(
                        Code::EmptyValue,
                        item,
                        format!("`{key}` holds an empty entry"),
                        None,
                    );
                } else {
                    out.push(text);
                }
            }
        }
        out
    }

    fn metadata(&mut self, node: &Node) -> Vec<(String, String)> {
        let Value::Map(entries) = &node.value else {
            self.error(
                Code::WrongType,
                node,
                format!(
                    "`metadata` must be a mapping of string keys to string values, found {}",
                    node.value.kind()
                ),
                None,
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in entries {
            let key_text = key.value.scalar_text().unwrap_or_default();
            match &value.value {
                Value::Str(text) => out.push((key_text, text.clone())),
                other => {
                    let help = match other.scalar_text() {
                        Some(t) if !t.is_empty() => format!("quote it: `{key_text}: \"{t}\"`"),
                        _ => "metadata values must be strings; quote them, or encode structure in the key".to_owned(),
                    };
                    self.error(
                        Code::WrongType,
                        value,
                        format!(
                            "`metadata.{key_text}` must be a string, found {}",
                            other.kind()
                        ),
                        Some(help),
                    );
                }
            }
        }
        out
    }

    /// `allowed-tools` or `disallowed-tools`: one string (entries separated by spaces or commas)
    /// or a list with one entry per item, each entry `Tool` or `Tool(pattern)`.
    fn tool_list(&mut self, node: &Node, key: &str) -> Vec<String> {
        let entries: Vec<Spanned<String>> = match &node.value {
            Value::Str(text) => match allowed_tools::split(text) {
                Ok(entries) => entries
                    .into_iter()
                    .map(|entry| Spanned::new(entry.to_owned(), node))
                    .collect(),
                Err(problem) => {
                    self.error(
                        Code::InvalidToolEntry,
                        node,
                        format!("`{key}` is malformed: {problem}"),
                        Some(TOOL_ENTRY_HELP.to_owned()),
                    );
                    return Vec::new();
                }
            },
            Value::Seq(_) => self.string_list(node, key),
            other => {
                self.error(
                    Code::WrongType,
                    node,
                    format!(
                        "`{key}` must be a string or a list of strings, found {}",
                        other.kind()
                    ),
                    None,
                );
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for entry in entries {
            match Entry::parse(entry.value.trim()) {
                Ok(_) => out.push(entry.value.trim().to_owned()),
                Err(problem) => self.error(
                    Code::InvalidToolEntry,
                    &entry,
                    format!("`{key}` holds a malformed entry: {problem}"),
                    Some(TOOL_ENTRY_HELP.to_owned()),
                ),
            }
        }
        out
    }

    /// With `compat = "claude-code"`, `name` is a display name and the folder is the identifier
    /// (which must still follow the name rules). Returns the identifier, at the `name` line.
    fn display_name(
        &mut self,
        name: Spanned<String>,
        dir_name: &str,
        fields: &mut ClaudeCodeFields,
    ) -> Spanned<String> {
        let identifier = Spanned {
            value: dir_name.to_owned(),
            line: name.line,
            column: name.column,
        };
        self.check_name(&identifier, dir_name);
        if self.check_display_name(&name, "name") && name.value != dir_name {
            fields.display_name = Some(name);
        }
        identifier
    }

    /// A display name (`name` under compat, or `display-name`): 1 to 64 characters, not blank,
    /// one line without control characters. Whether it passed.
    fn check_display_name(&mut self, shown: &Spanned<String>, key: &str) -> bool {
        let what = if key == "name" {
            "a display `name`".to_owned()
        } else {
            format!("`{key}`")
        };
        let chars = shown.value.chars().count();
        if shown.value.trim().is_empty() || chars > MAX_DISPLAY_NAME_CHARS {
            self.error(
                Code::InvalidDisplayName,
                shown,
                format!(
                    "{what} must be 1 to {MAX_DISPLAY_NAME_CHARS} characters long and not blank, found {chars}"
                ),
                None,
            );
            false
        } else if let Some(bad) = shown.value.chars().find(|c| c.is_control()) {
            self.error(
                Code::InvalidDisplayName,
                shown,
                format!("{what} must be one line without control characters, found {bad:?}"),
                None,
            );
            false
        } else {
            true
        }
    }

    /// One of Claude Code's keys (the parser reaches it only with `compat = "claude-code"`).
    fn claude_code_field(
        &mut self,
        key: FrontmatterKey,
        name: &str,
        value: &Node,
        fields: &mut ClaudeCodeFields,
    ) {
        match key {
            FrontmatterKey::WhenToUse => fields.when_to_use = self.non_empty_string(value, name),
            FrontmatterKey::ArgumentHint => fields.argument_hint = self.string(value, name),
            FrontmatterKey::Arguments => fields.arguments = self.arguments(value),
            FrontmatterKey::DisableModelInvocation => {
                if let Some(disabled) = self.boolean(value, name) {
                    fields.model_invocable = !disabled;
                }
            }
            FrontmatterKey::UserInvocable => {
                if let Some(invocable) = self.boolean(value, name) {
                    fields.user_invocable = invocable;
                }
            }
            FrontmatterKey::DisallowedTools => {
                fields.disallowed_tools = self.tool_list(value, name)
            }
            FrontmatterKey::Model => fields.model = self.non_empty_string(value, name),
            FrontmatterKey::Effort => {
                fields.effort = self.choice(value, name, Effort::from_name, Effort::expected);
            }
            FrontmatterKey::Context => {
                fields.context =
                    self.choice(value, name, SkillContext::from_name, SkillContext::expected);
            }
            FrontmatterKey::Agent => fields.agent = self.non_empty_string(value, name),
            FrontmatterKey::Hooks => fields.hooks = self.hooks(value),
            FrontmatterKey::Paths => fields.paths = self.paths(value),
            FrontmatterKey::Shell => {
                fields.shell = self.choice(value, name, Shell::from_name, Shell::expected);
            }
            FrontmatterKey::Background => fields.background = self.spanned_boolean(value, name),
            FrontmatterKey::DefaultEnabled => {
                fields.default_enabled = self.spanned_boolean(value, name)
            }
            FrontmatterKey::Fallback => fields.fallback = self.spanned_boolean(value, name),
            // The spec's and our keys, and `display-name`, are read in `read`.
            _ => {}
        }
    }

    fn non_empty_string(&mut self, node: &Node, key: &str) -> Option<Spanned<String>> {
        let text = self.string(node, key)?;
        if text.value.trim().is_empty() {
            self.error(Code::EmptyValue, node, format!("`{key}` is empty"), None);
            return None;
        }
        Some(text)
    }

    /// A boolean of Claude Code's (only its keys are booleans): YAML's `true` or `false`, or
    /// one of the words Claude Code also reads (`yes`, `off`, `1`, a quoted `"true"`), which is
    /// kept for the `portable` lint: other hosts read such a value as text.
    fn boolean(&mut self, node: &Node, key: &str) -> Option<bool> {
        if let Value::Bool(value) = node.value {
            return Some(value);
        }
        let word = match &node.value {
            Value::Str(_) | Value::Number(_) => node.value.scalar_text(),
            _ => None,
        };
        if let Some((word, value)) =
            word.and_then(|w| crate::claude_code::boolean_word(&w).map(|value| (w, value)))
        {
            self.boolean_words
                .push(Spanned::new((key.to_owned(), word), node));
            return Some(value);
        }
        self.error(
            Code::WrongType,
            node,
            format!(
                "`{key}` must be `true` or `false`, found {}",
                node.value.kind()
            ),
            Some(format!(
                "write `{key}: true` or `{key}: false` (Claude Code also reads `yes`/`no`, \
                 `on`/`off` and `1`/`0`)"
            )),
        );
        None
    }

    fn spanned_boolean(&mut self, node: &Node, key: &str) -> Option<Spanned<bool>> {
        self.boolean(node, key)
            .map(|value| Spanned::new(value, node))
    }

    /// A value out of a closed set (`effort`, `context`, `shell`).
    fn choice<T>(
        &mut self,
        node: &Node,
        key: &str,
        parse: fn(&str) -> Option<T>,
        expected: fn() -> String,
    ) -> Option<Spanned<T>> {
        let text = self.string(node, key)?;
        match parse(&text.value) {
            Some(value) => Some(Spanned::new(value, node)),
            None => {
                self.error(
                    Code::InvalidChoice,
                    node,
                    format!("`{key}` is `{}`; it must be {}", text.value, expected()),
                    None,
                );
                None
            }
        }
    }

    /// `arguments`: names separated by spaces, or a list. A name is what a `$name` placeholder
    /// can refer to: letters, digits and `_`, not starting with a digit (`$0` is a position).
    fn arguments(&mut self, node: &Node) -> Vec<String> {
        let key = FrontmatterKey::Arguments.as_str();
        let names: Vec<Spanned<String>> = match &node.value {
            Value::Str(text) => text
                .split_whitespace()
                .map(|name| Spanned::new(name.to_owned(), node))
                .collect(),
            _ => self.string_list(node, key),
        };
        let mut out = Vec::new();
        for name in names {
            let valid = !name.value.starts_with(|c: char| c.is_ascii_digit())
                && name.value.chars().all(|c| c.is_alphanumeric() || c == '_');
            if !valid {
                self.error(
                    Code::InvalidArgumentName,
                    &name,
                    format!(
                        "argument name `{}` must be letters, digits and `_`, not starting with a digit",
                        name.value
                    ),
                    Some("the body refers to it as `$name`".to_owned()),
                );
            } else if out.contains(&name.value) {
                self.error(
                    Code::InvalidArgumentName,
                    &name,
                    format!("argument `{}` is named twice", name.value),
                    None,
                );
            } else {
                out.push(name.value);
            }
        }
        out
    }

    /// `paths`: globs separated by commas, or a list.
    fn paths(&mut self, node: &Node) -> Vec<String> {
        match &node.value {
            Value::Str(text) => text
                .split(',')
                .map(str::trim)
                .filter(|glob| !glob.is_empty())
                .map(str::to_owned)
                .collect(),
            _ => self
                .string_list(node, FrontmatterKey::Paths.as_str())
                .into_iter()
                .map(|glob| glob.value)
                .collect(),
        }
    }

    /// `hooks`: a mapping of hook event names to a list or mapping of handlers, kept as JSON.
    fn hooks(&mut self, node: &Node) -> Option<Spanned<String>> {
        let Value::Map(events) = &node.value else {
            self.error(
                Code::InvalidHooks,
                node,
                format!(
                    "`hooks` must be a mapping of hook events to their handlers, found {}",
                    node.value.kind()
                ),
                Some(HOOKS_HELP.to_owned()),
            );
            return None;
        };
        let mut valid = true;
        for (event, handlers) in events {
            let event_name = match &event.value {
                Value::Str(name) if !name.trim().is_empty() => name.clone(),
                other => {
                    self.error(
                        Code::InvalidHooks,
                        event,
                        format!("a hook event must be a name, found {}", other.kind()),
                        Some(HOOKS_HELP.to_owned()),
                    );
                    valid = false;
                    continue;
                }
            };
            if !matches!(handlers.value, Value::Seq(_) | Value::Map(_)) {
                self.error(
                    Code::InvalidHooks,
                    handlers,
                    format!(
                        "`hooks.{event_name}` must be a list or a mapping of handlers, found {}",
                        handlers.value.kind()
                    ),
                    Some(HOOKS_HELP.to_owned()),
                );
                valid = false;
            }
        }
        valid.then(|| Spanned::new(json(node), node))
    }

    /// `agent` names the agent of a forked context and `background` says how the fork runs:
    /// without `context: fork` either would be ignored.
    fn check_fork_only(&mut self, fields: &ClaudeCodeFields) {
        let forked = fields
            .context
            .as_ref()
            .is_some_and(|c| c.value == SkillContext::Fork);
        if forked {
            return;
        }
        if let Some(agent) = &fields.agent {
            self.error(
                Code::AgentWithoutFork,
                agent,
                format!("`agent: {}` only applies with `context: fork`", agent.value),
                Some("add `context: fork`, or remove `agent`".to_owned()),
            );
        }
        if let Some(background) = &fields.background {
            self.error(
                Code::BackgroundWithoutFork,
                background,
                format!(
                    "`background: {}` only applies with `context: fork` (a forked skill runs in \
                     the background unless it says `background: false`)",
                    background.value
                ),
                Some("add `context: fork`, or remove `background`".to_owned()),
            );
        }
    }

    fn version(&mut self, node: &Node) -> Option<Spanned<String>> {
        if let (Value::Number(number), Compat::Strict) = (&node.value, self.compat) {
            self.error(
                Code::WrongType,
                node,
                format!("`version` must be a string, found the number {number}"),
                Some(format!("quote it: `version: \"{number}\"`")),
            );
            return None;
        }
        self.string(node, FrontmatterKey::Version.as_str())
    }
}

#[cfg(test)]
mod tests;
