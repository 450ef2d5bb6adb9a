//! A problem found in a skill file, with the place it was found, the rule it breaks and, when
//! known, the fix.

use std::fmt;

use crate::visible;

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Advice; the skill still compiles.
    Warning,
    /// The skill is rejected; the build fails.
    Error,
}

impl Severity {
    /// `error` or `warning`, as the compiler labels a diagnostic.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Defines [`Code`] from one table (variant, stable text, and the rule in one line), and the
/// lints' codes from the lint table, between the other codes: a lint's code is its name in
/// kebab case (`long_body`: `long-body`).
macro_rules! codes {
    (
        [$($(#[doc = $doc:literal])* $variant:ident = $text:literal,)*]
        [$($(#[doc = $after_doc:literal])* $after:ident = $after_text:literal,)*]
        $(
            $(#[doc = $lint_doc:literal])*
            $lint:ident {
                name: $name:literal,
                level: $level:ident,
                claude_code: $claude_code:ident,
                check: $scope:ident($check:path),
                summary: $summary:literal $(,)?
            }
        )*
    ) => {
        /// The rule a [`Diagnostic`] is about: stable, kebab-case, shown as `skills::<code>` so
        /// users can search for it, filter on it and name it when silencing a lint.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
            $(#[doc = concat!("Lint `", $name, "`: ", $summary, ".")] $lint,)*
            $($(#[doc = $after_doc])* $after,)*
        }

        impl Code {
            /// Every code, in the order they are defined.
            pub const ALL: &'static [Code] = &[
                $(Code::$variant,)* $(Code::$lint,)* $(Code::$after,)*
            ];

            /// The stable text of the code, e.g. `name-mismatch`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                    $(Code::$lint => kebab_case!($name),)*
                    $(Code::$after => $after_text,)*
                }
            }
        }
    };
}

/// A `snake_case` literal in kebab case, as a `&'static str` computed at compile time.
macro_rules! kebab_case {
    ($name:literal) => {{
        const BYTES: [u8; $name.len()] = kebab_case_bytes($name);
        const TEXT: &str = match std::str::from_utf8(&BYTES) {
            Ok(text) => text,
            Err(_) => panic!("a lint name is ASCII"),
        };
        TEXT
    }};
}

/// The bytes of `name` with each `_` turned into `-`; `N` is `name.len()`.
const fn kebab_case_bytes<const N: usize>(name: &str) -> [u8; N] {
    let name = name.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = if name[i] == b'_' { b'-' } else { name[i] };
        i += 1;
    }
    out
}

crate::lint_table::lint_table! { codes [
    // Discovery.
    /// A root passed to the macro does not exist.
    MissingRoot = "missing-root",
    /// A root exists but is not a directory.
    RootNotDirectory = "root-not-directory",
    /// A folder or file could not be read (permissions, I/O).
    Unreadable = "unreadable",
    /// A folder or file name is not valid UTF-8.
    NonUtf8Path = "non-utf8-path",
    /// A symlink leads outside the skills root.
    SymlinkOutside = "symlink-outside",
    /// A symlink leads nowhere.
    BrokenSymlink = "broken-symlink",
    /// A skill folder has no `SKILL.md`.
    MissingSkillMd = "missing-skill-md",
    /// `SKILL.md` is a folder or another non-file.
    SkillMdNotFile = "skill-md-not-file",
    /// A file is over `max_file_size`.
    FileTooLarge = "file-too-large",
    /// Everything embedded is over `max_bundle_size`.
    BundleTooLarge = "bundle-too-large",
    /// A FIFO, socket or device where a file is read (`SKILL.md`, a resource, the trigger
    /// file): only regular files are read, and opening one never waits.
    SpecialFile = "special-file",
    /// A link to a folder it sits in: following it would walk the same files forever.
    SymlinkLoop = "symlink-loop",
    /// A folder more than 32 levels deep in its skill.
    TooDeep = "too-deep",
    /// A skill folder with more than 10,000 files and folders.
    TooManyEntries = "too-many-entries",
    /// A resource whose real path lies in another skill's folder, or in any `evals/` folder.
    ForeignResource = "foreign-resource",
    /// A file or folder name that cannot be written on Windows or macOS as it is: `\`, `:` and
    /// the other characters Windows refuses, a device name (`CON`, `NUL`, `COM1`, ...), a
    /// trailing dot or space, a control, bidirectional or invisible character.
    UnportableName = "unportable-name",
    /// Two paths of a skill that are one file where case and Unicode normalization do not
    /// count (macOS and Windows by default).
    PathCollision = "path-collision",
    /// A file that changed between its check and its embedding: the binary would carry bytes
    /// nobody checked.
    FileChanged = "file-changed",
    // Text.
    /// `SKILL.md` or `evals/triggers.json` is not UTF-8.
    NotUtf8 = "not-utf8",
    /// Line 1 is not `---`.
    NoFrontmatter = "no-frontmatter",
    /// No `---` line closes the frontmatter.
    UnclosedFrontmatter = "unclosed-frontmatter",
    // YAML.
    /// The frontmatter is not valid YAML (or uses an unknown alias).
    YamlSyntax = "yaml-syntax",
    /// A line of the frontmatter is indented with a tab.
    TabIndentation = "tab-indentation",
    /// The same key twice in one mapping.
    DuplicateKey = "duplicate-key",
    /// A key that is a list, a mapping or null rather than a word.
    ComplexKey = "complex-key",
    /// More than one YAML document between the `---` lines.
    MultipleDocuments = "multiple-documents",
    /// More YAML values than the parser accepts (an alias bomb, say).
    FrontmatterTooLarge = "frontmatter-too-large",
    // Fields.
    /// Nothing between the `---` lines.
    EmptyFrontmatter = "empty-frontmatter",
    /// The frontmatter is a list or a scalar, not `key: value` lines.
    FrontmatterNotMapping = "frontmatter-not-mapping",
    /// A key outside the known keys.
    UnknownKey = "unknown-key",
    /// `name` or `description` is missing.
    MissingKey = "missing-key",
    /// A value of the wrong type (a number for `version`, a list for a string, ...).
    WrongType = "wrong-type",
    /// A string shorter or longer than its field allows.
    FieldLength = "field-length",
    /// An empty `description` or an empty list entry.
    EmptyValue = "empty-value",
    /// `name` breaks the character rules.
    InvalidName = "invalid-name",
    /// `name` differs from its folder's name.
    NameMismatch = "name-mismatch",
    /// `name` is not in Unicode NFKC form (a combining accent, full-width letters).
    NameNotNormalized = "name-not-normalized",
    /// A control, bidirectional or invisible character in a frontmatter value (or key, or
    /// comment): text a model or a person reads must show what it holds.
    HiddenCharacter = "hidden-character",
    /// With `compat = "claude-code"`: a display `name` that is blank, too long or not one line.
    InvalidDisplayName = "invalid-display-name",
    /// With `compat = "claude-code"`: a number or boolean where a string belongs, taken as its
    /// text (a warning).
    NonStringScalar = "non-string-scalar",
    /// An `allowed-tools` or `disallowed-tools` entry that is not `Tool` or `Tool(pattern)`.
    InvalidToolEntry = "invalid-tool-entry",
    /// A value outside a field's closed set (`effort`, `context`, `shell`).
    InvalidChoice = "invalid-choice",
    /// `agent` without `context: fork`.
    AgentWithoutFork = "agent-without-fork",
    /// With `compat = "claude-code"`: `background` without `context: fork`.
    BackgroundWithoutFork = "background-without-fork",
    /// A skill's `agents/openai.yaml` (Codex's file) that is not YAML of the shape Codex reads.
    InvalidOpenaiYaml = "invalid-openai-yaml",
    /// `agents/openai.yaml` and the frontmatter say different things (a display name, whether
    /// the model may load the skill), so hosts would show or offer the skill differently (a
    /// warning).
    OpenaiYamlDisagrees = "openai-yaml-disagrees",
    /// `hooks` that is not a mapping of event names to lists or mappings.
    InvalidHooks = "invalid-hooks",
    /// An `arguments` name a `$name` placeholder cannot refer to, or one named twice.
    InvalidArgumentName = "invalid-argument-name",
    /// With `compat = "claude-code"`: a value YAML cannot read unquoted (`description: Use it:
    /// now`), read as its text, as Claude Code reads it (a warning).
    ValueReadAsText = "value-read-as-text",
    /// With `compat = "claude-code"`: a `description` over the spec's 1,024 characters, within
    /// Claude Code's 1,536 (a warning).
    LongDescription = "long-description",
    /// With `compat = "claude-code"`: no `description`, so the first line of the body is taken,
    /// as Claude Code takes it (a warning).
    DescriptionFromBody = "description-from-body",
    /// With `compat = "claude-code"`: a `${CLAUDE_...}` variable the runtime does not substitute,
    /// left in the text (a warning).
    UnknownClaudeVariable = "unknown-claude-variable",
    // Trigger cases (`evals/triggers.json`).
    /// The trigger file is not valid JSON.
    TriggersSyntax = "triggers-syntax",
    /// The trigger file holds something other than an array of cases.
    TriggersNotArray = "triggers-not-array",
    /// A trigger case that is not an object.
    TriggerNotObject = "trigger-not-object",
    /// A trigger case whose `query` is not a string or whose `should_trigger` is not a boolean.
    TriggerWrongType = "trigger-wrong-type",
    /// A trigger case whose `query` is empty or only spaces.
    TriggerEmptyQuery = "trigger-empty-query",
    /// A trigger case without `query` or without `should_trigger`.
    TriggerMissingKey = "trigger-missing-key",
    /// A trigger case with a key other than `query` and `should_trigger`.
    TriggerUnknownKey = "trigger-unknown-key",
    /// A trigger case with the same key twice.
    TriggerDuplicateKey = "trigger-duplicate-key",
    /// Two trigger cases of one skill with the same query.
    TriggerDuplicateQuery = "trigger-duplicate-query",
    // Task cases (`evals/evals.json`).
    /// The task file is not valid JSON.
    TasksSyntax = "tasks-syntax",
    /// The task file holds something other than an object with `evals`.
    TasksNotObject = "tasks-not-object",
    /// A key the task file, a case or a check does not have.
    TaskUnknownKey = "task-unknown-key",
    /// The same key twice in one object, or both `assertions` and `expectations`.
    TaskDuplicateKey = "task-duplicate-key",
    /// A task file without `evals`, or a case without `id` or `prompt`.
    TaskMissingKey = "task-missing-key",
    /// A value of the wrong type, or an empty string, in the task file.
    TaskWrongType = "task-wrong-type",
    /// Two task cases of one skill with the same `id`.
    TaskDuplicateId = "task-duplicate-id",
    /// `skill_name` names another skill.
    TaskSkillName = "task-skill-name",
    /// A file a task case copies that does not exist.
    TaskFileMissing = "task-file-missing",
    /// A file a task case copies that is outside the skill's `evals/` folder, or two that land
    /// on the same path.
    TaskFileOutside = "task-file-outside",
    /// A check object that is none of the known forms, or whose path or regular expression is
    /// unusable.
    TaskBadCheck = "task-bad-check",
    /// A `loaded` or `not_loaded` check naming a skill the bundle does not have.
    TaskUnknownSkill = "task-unknown-skill",
    // Across skills.
    /// Two skills share a name.
    DuplicateName = "duplicate-name",
    /// `requires` names a skill that is not in the bundle.
    DanglingRequires = "dangling-requires",
    /// `conflicts-with` names a skill that is not in the bundle.
    DanglingConflict = "dangling-conflict",
    /// Two skill names (or display names) that look the same: their Unicode confusable
    /// skeletons (UTS #39) are equal.
    ConfusableName = "confusable-name",
    /// A skill name that mixes scripts (Latin with a Cyrillic letter, say).
    MixedScriptName = "mixed-script-name",
    /// `requires` or `conflicts-with` names the skill itself.
    SelfReference = "self-reference",
    /// The same skill is both required and in `conflicts-with`.
    RequiresAndConflicts = "requires-and-conflicts",
    /// A link in the body to a file that is not in the skill folder.
    DanglingLink = "dangling-link",
    /// A link in the body that leaves the skill folder.
    LinkOutside = "link-outside",
    /// The catalog is longer than `catalog_budget`.
    CatalogOverBudget = "catalog-over-budget",
    /// `skill_name!` names a folder the root does not hold as a skill.
    UnknownSkill = "unknown-skill",
    /// A skill pack named by `packs` that is not a dependency of the crate.
    UnknownPack = "unknown-pack",
    // The lock.
    /// The file named by `lock` cannot be read.
    LockMissing = "lock-missing",
    /// A line of the lock is neither a comment nor `<sha256>  <path>`.
    LockMalformed = "lock-malformed",
    /// An embedded file whose SHA-256 differs from the one in the lock.
    LockChanged = "lock-changed",
    /// An embedded file the lock does not list.
    LockUnlisted = "lock-unlisted",
    /// A file the lock lists that the bundle no longer embeds.
    LockGone = "lock-gone",
    /// An option that decides what is embedded differs from the one the lock was written with.
    LockOptions = "lock-options",
    /// A pack embedded at another version than the lock reviewed, not in the lock, or in the
    /// lock but no longer embedded.
    LockPackVersion = "lock-pack-version",
    // The lints' codes come from their table, between these two lists.
] [
    // Uploads to hosted agents (`skills package`).
    /// A `name` a hosted upload refuses: a display name, characters outside ASCII, or a
    /// reserved word.
    UploadName = "upload-name",
    /// A `description` a hosted upload refuses: too long, or with `<` or `>`.
    UploadDescription = "upload-description",
    /// A skill over a hosted upload's size or file-count limits.
    UploadSize = "upload-size",
    /// A second `SKILL.md` (in any case) where the host wants exactly one.
    UploadManifest = "upload-manifest",
    /// A file that changed between its check and its packaging, or that could not be read or
    /// written while packaging.
    UploadFile = "upload-file",
] }

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem in one file.
///
/// Rendered (with [`Display`](fmt::Display)) the way rustc and askama render errors in external
/// files: `error[skills::code]: message` first, then `--> path:line:col`, the offending line, and
/// `help:` when a fix is known. Its severity is fixed when it is built ([`Diagnostic::error`],
/// [`Diagnostic::warning`]); the position and help are added before it is handed out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    // Crate-visible for the build cache, which stores diagnostics field by field.
    pub(crate) severity: Severity,
    pub(crate) code: Code,
    pub(crate) path: String,
    pub(crate) line: Option<u32>,
    pub(crate) column: Option<u32>,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
    pub(crate) source_line: Option<String>,
}

impl Diagnostic {
    fn new(
        severity: Severity,
        code: Code,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            code,
            path: path.into(),
            line: None,
            column: None,
            message: message.into(),
            help: None,
            source_line: None,
        }
    }

    /// An error about `path` as a whole (no line): the build fails.
    pub fn error(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, code, path, message)
    }

    /// A warning about `path` as a whole (no line): the build goes on.
    pub fn warning(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, code, path, message)
    }

    /// Points the diagnostic at `line:column` (1-based) and records the line's text.
    pub fn at(mut self, text: &str, line: usize, column: usize) -> Self {
        self.line = position(line);
        self.column = position(column.max(1));
        self.source_line = text.lines().nth(line.saturating_sub(1)).map(str::to_owned);
        self
    }

    /// Points the diagnostic at the byte `offset` of `text` (its line, and its column in
    /// characters), quoting the line.
    pub fn at_offset(self, text: &str, offset: usize) -> Self {
        let (line, column) = line_column(text, offset);
        self.at(text, line, column)
    }

    /// Points the diagnostic at `line:column` without quoting the line (for text that is not
    /// UTF-8). A 0 stands for unknown.
    pub fn at_position(mut self, line: usize, column: usize) -> Self {
        self.line = position(line);
        self.column = self.line.and(position(column));
        self
    }

    /// Adds a `help:` line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// Whether this diagnostic fails the build.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The rule this diagnostic is about.
    pub fn code(&self) -> Code {
        self.code
    }

    /// Path of the file, relative to the consuming crate's manifest directory, with `/`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// 1-based line; `None` when the problem concerns the file or directory as a whole.
    pub fn line(&self) -> Option<u32> {
        self.line
    }

    /// 1-based column in characters; `None` when unknown.
    pub fn column(&self) -> Option<u32> {
        self.column
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// How to fix it, when known.
    pub fn help(&self) -> Option<&str> {
        self.help.as_deref()
    }

    /// The text of the offending line, when there is one.
    pub fn source_line(&self) -> Option<&str> {
        self.source_line.as_deref()
    }

    /// `path:line:col`, `path:line`, or just `path`: what is unknown is left out.
    pub fn location(&self) -> String {
        match (self.line, self.column) {
            (None, _) => self.path.clone(),
            (Some(line), None) => format!("{}:{line}", self.path),
            (Some(line), Some(col)) => format!("{}:{line}:{col}", self.path),
        }
    }

    /// The text of a compile error, which rustc prefixes with `error: ` itself:
    /// `[skills::code] message`, then the location, the line and the help as in `Display`.
    pub fn compile_error_text(&self) -> String {
        format!("[skills::{}] {}", self.code, Details(self))
    }
}

/// The 1-based line and column (in characters) of the byte `offset` of `text` (clamped to its
/// end, and to the character it falls in).
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn position(n: usize) -> Option<u32> {
    u32::try_from(n).ok().filter(|&n| n > 0)
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[skills::{}]: {}",
            self.severity.as_str(),
            self.code,
            Details(self)
        )
    }
}

/// The message, the location, the quoted line with a caret, and the help, every hidden
/// character escaped (a file name, a line of `SKILL.md` or a value quoted in a message reaches
/// the terminal of whoever builds: it must not act on it, or hide what it holds).
struct Details<'a>(&'a Diagnostic);

impl fmt::Display for Details<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        writeln!(f, "{}", visible::escape_text(&d.message))?;
        write!(f, "  --> {}", visible::escape_line(&d.location()))?;
        if let (Some(source), Some(line)) = (&d.source_line, d.line) {
            let column = d.column.map(|c| c as usize);
            let source = shorten_line(source, column.unwrap_or(0));
            let number = line.to_string();
            let pad = " ".repeat(number.len());
            write!(
                f,
                "\n {pad} |\n {number} | {}",
                visible::escape_text(&source)
            )?;
            if let Some(column) = column {
                // Under the character, or the start of its escape: as wide as what is shown.
                let caret_pad: String = source
                    .chars()
                    .take(column - 1)
                    .map(|c| match c {
                        '\t' => "\t".to_owned(),
                        c => " ".repeat(visible::escape_text(&c.to_string()).chars().count()),
                    })
                    .collect();
                write!(f, "\n {pad} | {caret_pad}^")?;
            }
        }
        if let Some(help) = &d.help {
            write!(f, "\n  = help: {}", visible::escape_text(help))?;
        }
        Ok(())
    }
}

/// Sorts diagnostics by file, then position, so output is deterministic.
pub(crate) fn sort(diagnostics: &mut [Diagnostic]) {
    // Stable: problems at the same place keep the order the rules found them in. An unknown
    // position (the file as a whole) sorts first.
    diagnostics.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
}

/// Longest value a message quotes, in characters.
const MAX_QUOTED_VALUE_CHARS: usize = 80;

/// `text` as a message quotes it: whole when short, else its first 80 characters and how many
/// more there are, so an 18 kB value does not become an 18 kB message.
pub(crate) fn shorten(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_VALUE_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => format!(
            "{}... ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        ),
    }
}

/// Longest quoted source line, in characters; longer lines are cut after the column shown.
const MAX_QUOTED_CHARS: usize = 100;

/// Cuts a very long line (a 1,000-character description) so the error stays readable.
fn shorten_line(line: &str, column: usize) -> String {
    let keep = MAX_QUOTED_CHARS.max(column + 20);
    if line.chars().count() <= keep {
        return line.to_owned();
    }
    let mut short: String = line.chars().take(keep).collect();
    short.push_str(" ...");
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut seen = std::collections::BTreeSet::new();
        for code in Code::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "`{text}` is used by two codes");
            assert!(
                text.starts_with(|c: char| c.is_ascii_lowercase())
                    && !text.ends_with('-')
                    && !text.contains("--")
                    && text
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "`{text}` is not kebab-case"
            );
        }
    }

    /// A lint is silenced by its name and filtered by its code: the same words.
    #[test]
    fn every_lint_has_its_code() {
        for lint in crate::lint::LINT_NAMES {
            let code = lint.replace('_', "-");
            assert!(
                Code::ALL.iter().any(|c| c.as_str() == code),
                "lint `{lint}` has no code `{code}`"
            );
        }
    }

    /// Every code is built somewhere outside this file: a code nobody emits is a rule that
    /// was removed or never written.
    #[test]
    fn every_code_is_used() {
        let sources = [
            include_str!("bundle.rs"),
            include_str!("cross_skill.rs"),
            include_str!("discover.rs"),
            include_str!("files.rs"),
            include_str!("hosted.rs"),
            include_str!("links.rs"),
            include_str!("lint.rs"),
            include_str!("lint_table.rs"),
            include_str!("lock.rs"),
            include_str!("openai_yaml.rs"),
            include_str!("resources.rs"),
            include_str!("skill.rs"),
            include_str!("tasks/read.rs"),
            include_str!("text.rs"),
            include_str!("triggers.rs"),
            include_str!("yaml.rs"),
        ]
        .concat();
        for code in Code::ALL {
            // A lint's code is built from the lint table and carried by each of its findings
            // (the lint tests check that every lint reports under its code).
            if crate::lint::Lint::ALL
                .iter()
                .any(|lint| lint.code() == *code)
            {
                continue;
            }
            let variant = format!("Code::{code:?}");
            assert!(
                sources.contains(&format!("{variant},"))
                    || sources.contains(&format!("{variant})"))
                    || sources.contains(&format!("{variant} ")),
                "{variant} (`{code}`) is never used"
            );
        }
    }

    #[test]
    fn long_values_are_shortened_in_messages() {
        assert_eq!(shorten("short"), "short");
        let long = "é".repeat(100);
        assert_eq!(
            shorten(&long),
            format!("{}... (20 more characters)", "é".repeat(80))
        );
    }

    #[test]
    fn hidden_characters_are_shown_escaped_with_the_caret_under_them() {
        let text = "---\ndescription: a\u{202e}b\x1b[2J\n---\n";
        let d = Diagnostic::error(
            Code::HiddenCharacter,
            "s/\x1b]0;x/SKILL.md",
            "holds \u{200b}",
        )
        .at(text, 2, 15)
        .with_help("no \x07");
        assert_eq!(
            d.to_string(),
            "error[skills::hidden-character]: holds \\u{200b}\n  --> s/\\x1b]0;x/SKILL.md:2:15\n   |\n 2 | description: a\\u{202e}b\\x1b[2J\n   |               ^\n  = help: no \\x07"
        );
        // After the escape of U+202E (8 characters shown for 1), under the escape of ESC.
        let d = Diagnostic::error(Code::HiddenCharacter, "p", "m").at(text, 2, 17);
        assert!(
            d.to_string()
                .ends_with(&format!("\n   | {}^", " ".repeat(23))),
            "{d}"
        );
    }

    #[test]
    fn offsets_become_lines_and_columns_in_characters() {
        let text = "ab\ncé漢d\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        // `d` is after `c`, `é` (2 bytes) and `漢` (3 bytes): byte 9, column 4.
        assert_eq!(line_column(text, 9), (2, 4));
        // Inside `漢`: its own column; past the end: the end.
        assert_eq!(line_column(text, 7), (2, 3));
        assert_eq!(line_column(text, 99), (3, 1));
        let d = Diagnostic::error(Code::NotUtf8, "p", "m").at_offset(text, 9);
        assert_eq!(
            (d.line(), d.column(), d.source_line()),
            (Some(2), Some(4), Some("cé漢d"))
        );
    }

    #[test]
    fn unknown_positions_are_left_out() {
        let whole = Diagnostic::error(Code::MissingSkillMd, "s/a", "no SKILL.md");
        assert_eq!((whole.line(), whole.column()), (None, None));
        assert_eq!(whole.location(), "s/a");
        assert_eq!(
            whole.to_string(),
            "error[skills::missing-skill-md]: no SKILL.md\n  --> s/a"
        );
        let line_only = Diagnostic::error(Code::NotUtf8, "s/a/SKILL.md", "bad").at_position(3, 0);
        assert_eq!((line_only.line(), line_only.column()), (Some(3), None));
        assert_eq!(line_only.location(), "s/a/SKILL.md:3");
        let no_line = Diagnostic::error(Code::NotUtf8, "s/a/SKILL.md", "bad").at_position(0, 4);
        assert_eq!((no_line.line(), no_line.column()), (None, None));
    }

    #[test]
    fn rendering_names_severity_and_code() {
        let text = "---\nname: b\n---\nbody\n";
        let d = Diagnostic::warning(Code::NameMismatch, "s/a/SKILL.md", "`name` is `b`")
            .at(text, 2, 7)
            .with_help("rename it");
        assert_eq!(
            d.to_string(),
            "warning[skills::name-mismatch]: `name` is `b`\n  --> s/a/SKILL.md:2:7\n   |\n 2 | name: b\n   |       ^\n  = help: rename it"
        );
        assert!(
            d.compile_error_text()
                .starts_with("[skills::name-mismatch] `name` is `b`\n  --> s/a/SKILL.md:2:7\n")
        );
        assert!(!d.is_error());
    }
}
