//! The options of `embed_skills!("skills", key = value, ...)`, defined once.
//!
//! [`OPTIONS`] names every option with the kind of value it takes, its default, a line of help
//! and the `skills` flag that stands for it. The macro parses its `key = value` pairs by this
//! table, the command builds its flags and their help from it, and tests hold the option tables
//! of the `skills` command's README and the crate docs to it. [`Options`] is the typed result both sides hand to
//! [`crate::load`].

use std::fmt;

use crate::claude_code::Compat;
use crate::lint::{Level, Lint, LintOptions};
use crate::render::closest_match;

/// Default per-file size limit: 1 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;
/// Default limit for everything a bundle embeds: 64 MiB.
pub const DEFAULT_MAX_BUNDLE_SIZE: u64 = 64 * 1024 * 1024;
/// Default path of the runtime crate in generated code.
pub const DEFAULT_CRATE: &str = "::skills_runtime";

/// Which setting an option changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// [`Options::max_file_size`].
    MaxFileSize,
    /// [`Options::max_bundle_size`].
    MaxBundleSize,
    /// [`Options::allow_unknown_keys`].
    AllowUnknownKeys,
    /// [`Options::infer_missing_fields`].
    InferMissingFields,
    /// [`Options::ignore`].
    Ignore,
    /// [`LintOptions::allowed_hosts`].
    AllowedHosts,
    /// [`Options::compat`].
    Compat,
    /// [`Options::embed_evals`].
    EmbedEvals,
    /// [`Options::catalog_budget`].
    CatalogBudget,
    /// [`Options::lock`].
    Lock,
    /// [`Options::packs`].
    Packs,
    /// The level of one lint.
    Lint(Lint),
    /// Where generated code finds the runtime crate: the macro's business alone.
    Crate,
}

/// The kind of value an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A number of bytes: an integer literal (`1_000_000`).
    Bytes,
    /// `true` or `false`.
    Bool,
    /// A list of strings: `["a", "b"]`.
    List,
    /// A lint level: `"allow"`, `"warn"` or `"deny"`.
    Level,
    /// A Rust path: `::my_runtime`.
    Path,
    /// A frontmatter dialect: `"strict"` or `"claude-code"`.
    Compat,
    /// A number of characters: an integer literal (`8_000`).
    Chars,
    /// A file path relative to the crate's `Cargo.toml`: a string literal (`"skills.lock"`).
    File,
}

impl Key {
    /// Whether the option changes which files are embedded or how they are read, so a lock
    /// records its value: a changed `ignore` or size limit cannot slip a file past the review.
    /// Lint levels, budgets and hosts only decide what passes, and `lock` names the lock itself.
    pub const fn is_locked(self) -> bool {
        matches!(
            self,
            Key::MaxFileSize
                | Key::MaxBundleSize
                | Key::AllowUnknownKeys
                | Key::InferMissingFields
                | Key::Ignore
                | Key::Compat
                | Key::EmbedEvals
        )
    }
}

impl Kind {
    /// How a value of this kind is written in the macro call.
    pub const fn syntax(self) -> &'static str {
        match self {
            Kind::Bytes => "<bytes>",
            Kind::Bool => "<bool>",
            Kind::List => "[\"...\", ...]",
            Kind::Level => "\"allow\"|\"warn\"|\"deny\"",
            Kind::Path => "<path>",
            Kind::Compat => "\"strict\"|\"claude-code\"",
            Kind::Chars => "<chars>",
            Kind::File => "\"<path>\"",
        }
    }
}

/// A default value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    /// A number of bytes.
    Bytes(u64),
    /// A bool.
    Bool(bool),
    /// An empty list.
    EmptyList,
    /// A lint level.
    Level(Level),
    /// A path.
    Path(&'static str),
    /// A dialect.
    Compat(Compat),
    /// No limit.
    Unlimited,
    /// No file.
    NoFile,
}

impl DefaultValue {
    /// The default as a [`Value`] (`None` for a path, which [`Options`] does not hold).
    pub fn value(self) -> Option<Value> {
        Some(match self {
            DefaultValue::Bytes(bytes) => Value::Bytes(bytes),
            DefaultValue::Bool(bool) => Value::Bool(bool),
            DefaultValue::EmptyList => Value::List(Vec::new()),
            DefaultValue::Level(level) => Value::Level(level),
            DefaultValue::Compat(compat) => Value::Compat(compat),
            DefaultValue::Unlimited => Value::Unlimited,
            DefaultValue::NoFile => Value::NoFile,
            DefaultValue::Path(_) => return None,
        })
    }
}

/// As written in a macro call: `1048576`, `false`, `[]`, `"warn"`, `::skills_runtime`,
/// `"strict"`; `none` for no limit. The docs tables show exactly this text.
impl fmt::Display for DefaultValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefaultValue::Bytes(bytes) => write!(f, "{bytes}"),
            DefaultValue::Bool(bool) => write!(f, "{bool}"),
            DefaultValue::EmptyList => f.write_str("[]"),
            DefaultValue::Level(level) => write!(f, "\"{}\"", level.name()),
            DefaultValue::Path(path) => f.write_str(path),
            DefaultValue::Compat(compat) => write!(f, "\"{}\"", compat.name()),
            DefaultValue::Unlimited | DefaultValue::NoFile => f.write_str("none"),
        }
    }
}

/// How the `skills` command takes an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// `--LONG VALUE`, at most once.
    Value {
        /// The flag without its dashes.
        long: &'static str,
        /// The placeholder of its value in help texts.
        value_name: &'static str,
    },
    /// `--LONG`, at most once: sets the option to `true`.
    Switch {
        /// The flag without its dashes.
        long: &'static str,
    },
    /// `--LONG VALUE`, repeatable: each one adds an item to the list.
    Repeated {
        /// The flag without its dashes.
        long: &'static str,
        /// The placeholder of its value in help texts.
        value_name: &'static str,
    },
    /// One of [`LINT_LEVEL_FLAGS`] followed by the lint's name: `-D long_body`.
    LintLevel,
    /// No flag: the option is about generated code, not about what passes.
    None,
}

/// One option of `embed_skills!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name in the macro call: `max_file_size`.
    pub name: &'static str,
    /// The setting it changes.
    pub key: Key,
    /// The kind of value it takes.
    pub kind: Kind,
    /// Its value when the call does not give it.
    pub default: DefaultValue,
    /// What it does, in one line.
    pub help: &'static str,
    /// The `skills` flag that stands for it.
    pub flag: Flag,
}

impl OptionSpec {
    /// `name = <syntax>`, as error messages list the options.
    pub fn syntax(&self) -> String {
        format!("{} = {}", self.name, self.kind.syntax())
    }

    /// The option that sets the level of `lint`.
    const fn lint(lint: Lint) -> OptionSpec {
        OptionSpec {
            name: lint.name(),
            key: Key::Lint(lint),
            kind: Kind::Level,
            default: DefaultValue::Level(lint.default_level()),
            help: lint.summary(),
            flag: Flag::LintLevel,
        }
    }
}

/// Every option, in the order the docs list them: the general ones, one per lint (in the order
/// of [`Lint::ALL`], built from the lint table), then the rest.
pub const OPTIONS: &[OptionSpec] = &all_options();

/// How many options there are.
const OPTION_COUNT: usize = GENERAL_OPTIONS.len() + Lint::ALL.len() + LATER_OPTIONS.len();

/// [`GENERAL_OPTIONS`], an option per lint, then [`LATER_OPTIONS`].
const fn all_options() -> [OptionSpec; OPTION_COUNT] {
    let mut out = [GENERAL_OPTIONS[0]; OPTION_COUNT];
    let mut i = 0;
    while i < GENERAL_OPTIONS.len() {
        out[i] = GENERAL_OPTIONS[i];
        i += 1;
    }
    let mut lint = 0;
    while lint < Lint::ALL.len() {
        out[i] = OptionSpec::lint(Lint::ALL[lint]);
        i += 1;
        lint += 1;
    }
    let mut later = 0;
    while later < LATER_OPTIONS.len() {
        out[i] = LATER_OPTIONS[later];
        i += 1;
        later += 1;
    }
    out
}

/// The options before the lints' own.
const GENERAL_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "max_file_size",
        key: Key::MaxFileSize,
        kind: Kind::Bytes,
        default: DefaultValue::Bytes(DEFAULT_MAX_FILE_SIZE),
        help: "largest accepted file, `SKILL.md` or resource, in bytes",
        flag: Flag::Value {
            long: "max-file-size",
            value_name: "BYTES",
        },
    },
    OptionSpec {
        name: "max_bundle_size",
        key: Key::MaxBundleSize,
        kind: Kind::Bytes,
        default: DefaultValue::Bytes(DEFAULT_MAX_BUNDLE_SIZE),
        help: "largest total of all embedded files, in bytes",
        flag: Flag::Value {
            long: "max-bundle-size",
            value_name: "BYTES",
        },
    },
    OptionSpec {
        name: "allow_unknown_keys",
        key: Key::AllowUnknownKeys,
        kind: Kind::Bool,
        default: DefaultValue::Bool(false),
        help: "accept (and ignore) frontmatter keys outside the spec; custom data belongs under \
               `metadata:`",
        flag: Flag::Switch {
            long: "allow-unknown-keys",
        },
    },
    OptionSpec {
        name: "infer_missing_fields",
        key: Key::InferMissingFields,
        kind: Kind::Bool,
        default: DefaultValue::Bool(false),
        help: "importing old folders: a missing `name` is the folder name, a missing \
               `description` the first body line",
        flag: Flag::Switch {
            long: "infer-missing-fields",
        },
    },
    OptionSpec {
        name: "ignore",
        key: Key::Ignore,
        kind: Kind::List,
        default: DefaultValue::EmptyList,
        help: "more file names or `*` patterns to leave out of the resources (hidden files, \
               `__pycache__` and `*.pyc` always are)",
        flag: Flag::Repeated {
            long: "ignore",
            value_name: "PATTERN",
        },
    },
    OptionSpec {
        name: "compat",
        key: Key::Compat,
        kind: Kind::Compat,
        default: DefaultValue::Compat(Compat::Strict),
        help: "`\"claude-code\"` also accepts Claude Code's frontmatter keys (`argument-hint`, \
               `disable-model-invocation`, `effort`, `context`, `hooks`, ...), checked as strictly, \
               and takes `name` as a display name (the folder is the identifier)",
        flag: Flag::Value {
            long: "compat",
            value_name: "DIALECT",
        },
    },
    OptionSpec {
        name: "embed_evals",
        key: Key::EmbedEvals,
        kind: Kind::Bool,
        default: DefaultValue::Bool(false),
        help: "also compile each skill's trigger and task cases (`evals/triggers.json`, \
               `evals/evals.json` and the files it names) into the binary, for \
               `Skill::trigger_cases`, `Skill::task_cases` and evals run by the binary itself; \
               they count toward `max_bundle_size`",
        flag: Flag::Switch {
            long: "embed-evals",
        },
    },
    OptionSpec {
        name: "catalog_budget",
        key: Key::CatalogBudget,
        kind: Kind::Chars,
        default: DefaultValue::Unlimited,
        help: "longest accepted catalog, in characters; the error names the skills that \
               contribute most",
        flag: Flag::Value {
            long: "catalog-budget",
            value_name: "CHARS",
        },
    },
];

/// The options after the lints' own.
const LATER_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "allowed_hosts",
        key: Key::AllowedHosts,
        kind: Kind::List,
        default: DefaultValue::EmptyList,
        help: "hosts (and their subdomains) that the `external_urls` lint accepts",
        flag: Flag::Repeated {
            long: "allowed-host",
            value_name: "HOST",
        },
    },
    OptionSpec {
        name: "crate",
        key: Key::Crate,
        kind: Kind::Path,
        default: DefaultValue::Path(DEFAULT_CRATE),
        help: "path of the runtime crate in generated code, for a renamed dependency",
        flag: Flag::None,
    },
    OptionSpec {
        name: "lock",
        key: Key::Lock,
        kind: Kind::File,
        default: DefaultValue::NoFile,
        help: "lockfile (`sha256sum` format) that every embedded file must match, so only \
               reviewed skills compile; `skills lock` writes it",
        flag: Flag::Value {
            long: "lock",
            value_name: "PATH",
        },
    },
    OptionSpec {
        name: "packs",
        key: Key::Packs,
        kind: Kind::List,
        default: DefaultValue::EmptyList,
        help: "skill packs (crates carrying a `skills/` folder) to embed with the roots, checked \
               as one bundle; each is a dependency, seen through `build::packs()` in build.rs",
        flag: Flag::Repeated {
            long: "pack",
            value_name: "CRATE",
        },
    },
];

/// The flags that set a lint's level, as rustc's: short form, long form, level.
pub const LINT_LEVEL_FLAGS: [(char, &str, Level); 3] = [
    ('A', "allow", Level::Allow),
    ('W', "warn", Level::Warn),
    ('D', "deny", Level::Deny),
];

/// The group of every warning, for the lint-level flags: `-D warnings` reports each warning as
/// an error, as `#![deny(warnings)]` does to the macro's warnings; `-A warnings` hides them.
pub const WARNINGS: &str = "warnings";

/// The option called `name`.
pub fn find(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS.iter().find(|spec| spec.name == name)
}

/// The options as an error message lists them: `` `max_file_size = <bytes>`, ... ``.
pub fn known_options() -> String {
    OPTIONS
        .iter()
        .map(|spec| format!("`{}`", spec.syntax()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The message for an option that does not exist, with the closest one and every valid one.
pub fn unknown_option_message(name: &str) -> String {
    let hint = closest_match(name, OPTIONS.iter().map(|spec| spec.name))
        .map(|close| format!("did you mean `{close}`? "))
        .unwrap_or_default();
    format!(
        "unknown option `{name}`; {hint}the options are {}",
        known_options()
    )
}

/// The message for an option given twice.
pub fn repeated_option_message(name: &str) -> String {
    match find(name).map(|spec| spec.kind) {
        Some(Kind::List) => format!(
            "option `{name}` is given more than once; put every item in one list: `{name} = [\"a\", \"b\"]`"
        ),
        _ => format!("option `{name}` is given more than once; give each option once"),
    }
}

/// A size in bytes as the command line takes it: decimal digits, `_` allowed between them as in
/// the macro's `1_000_000`.
pub fn parse_bytes(text: &str) -> Option<u64> {
    let valid = text.starts_with(|c: char| c.is_ascii_digit())
        && text.chars().all(|c| c.is_ascii_digit() || c == '_');
    valid.then(|| text.replace('_', "").parse().ok()).flatten()
}

/// A value for one option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// For [`Kind::Bytes`].
    Bytes(u64),
    /// For [`Kind::Bool`].
    Bool(bool),
    /// For [`Kind::List`].
    List(Vec<String>),
    /// For [`Kind::Level`].
    Level(Level),
    /// For [`Kind::Compat`].
    Compat(Compat),
    /// For [`Kind::Chars`].
    Chars(u64),
    /// No limit, for [`Kind::Chars`].
    Unlimited,
    /// For [`Kind::File`].
    File(String),
    /// No file, for [`Kind::File`].
    NoFile,
}

/// The validation options, shared by the macro and the CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Largest accepted file (`SKILL.md` or resource), in bytes.
    pub max_file_size: u64,
    /// Largest total of all embedded files, in bytes.
    pub max_bundle_size: u64,
    /// Accept (and ignore) unknown frontmatter keys.
    pub allow_unknown_keys: bool,
    /// Compatibility with old folders: infer a missing `name` and `description`.
    pub infer_missing_fields: bool,
    /// Extra file names or `*` patterns to leave out of resources (hidden files, `__pycache__`
    /// and `*.pyc` are always left out).
    pub ignore: Vec<String>,
    /// The frontmatter dialect.
    pub compat: Compat,
    /// Compile each skill's trigger and task cases into the binary (never shown to the model).
    pub embed_evals: bool,
    /// Longest accepted catalog, in characters; `None`: no limit.
    pub catalog_budget: Option<u64>,
    /// Lint levels and the hosts `external_urls` accepts.
    pub lints: LintOptions,
    /// The lockfile every embedded file must match, relative to the manifest directory.
    pub lock: Option<String>,
    /// The skill packs to embed with the roots, by crate name (see [`crate::pack`]).
    pub packs: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            max_bundle_size: DEFAULT_MAX_BUNDLE_SIZE,
            allow_unknown_keys: false,
            infer_missing_fields: false,
            ignore: Vec::new(),
            compat: Compat::Strict,
            embed_evals: false,
            catalog_budget: None,
            lints: LintOptions::default(),
            lock: None,
            packs: Vec::new(),
        }
    }
}

/// A value of the wrong kind for an option, or an option [`Options`] does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrongValue {
    /// The option.
    pub key: Key,
    /// What was given.
    pub value: Value,
}

impl fmt::Display for WrongValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} does not fit option {:?}", self.value, self.key)
    }
}

impl std::error::Error for WrongValue {}

impl Options {
    /// Sets the option `key` to `value`.
    pub fn set(&mut self, key: Key, value: Value) -> Result<(), WrongValue> {
        match (key, value) {
            (Key::MaxFileSize, Value::Bytes(bytes)) => self.max_file_size = bytes,
            (Key::MaxBundleSize, Value::Bytes(bytes)) => self.max_bundle_size = bytes,
            (Key::AllowUnknownKeys, Value::Bool(bool)) => self.allow_unknown_keys = bool,
            (Key::InferMissingFields, Value::Bool(bool)) => self.infer_missing_fields = bool,
            (Key::Ignore, Value::List(list)) => self.ignore = list,
            (Key::AllowedHosts, Value::List(list)) => self.lints.allowed_hosts = list,
            (Key::Lint(lint), Value::Level(level)) => self.lints.set_level(lint, level),
            (Key::Compat, Value::Compat(compat)) => self.compat = compat,
            (Key::EmbedEvals, Value::Bool(bool)) => self.embed_evals = bool,
            (Key::CatalogBudget, Value::Chars(chars)) => self.catalog_budget = Some(chars),
            (Key::CatalogBudget, Value::Unlimited) => self.catalog_budget = None,
            (Key::Lock, Value::File(path)) => self.lock = Some(path),
            (Key::Lock, Value::NoFile) => self.lock = None,
            (Key::Packs, Value::List(list)) => self.packs = list,
            (key, value) => return Err(WrongValue { key, value }),
        }
        Ok(())
    }

    /// The value of the option `key` (`None` for `crate`, which [`Options`] does not hold).
    pub fn get(&self, key: Key) -> Option<Value> {
        Some(match key {
            Key::MaxFileSize => Value::Bytes(self.max_file_size),
            Key::MaxBundleSize => Value::Bytes(self.max_bundle_size),
            Key::AllowUnknownKeys => Value::Bool(self.allow_unknown_keys),
            Key::InferMissingFields => Value::Bool(self.infer_missing_fields),
            Key::Ignore => Value::List(self.ignore.clone()),
            Key::AllowedHosts => Value::List(self.lints.allowed_hosts.clone()),
            Key::Lint(lint) => Value::Level(self.lints.level(lint)),
            Key::Compat => Value::Compat(self.compat),
            Key::EmbedEvals => Value::Bool(self.embed_evals),
            Key::CatalogBudget => self.catalog_budget.map_or(Value::Unlimited, Value::Chars),
            Key::Lock => self.lock.clone().map_or(Value::NoFile, Value::File),
            Key::Packs => Value::List(self.packs.clone()),
            Key::Crate => return None,
        })
    }
}

/// As written in a macro call: `1048576`, `true`, `["*.bak"]`, `"deny"`, `"strict"`,
/// `"skills.lock"`; `none` for no limit or no file.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bytes(n) | Value::Chars(n) => write!(f, "{n}"),
            Value::Bool(bool) => write!(f, "{bool}"),
            Value::List(items) => {
                let items: Vec<String> = items.iter().map(|item| format!("{item:?}")).collect();
                write!(f, "[{}]", items.join(", "))
            }
            Value::Level(level) => write!(f, "\"{}\"", level.name()),
            Value::Compat(compat) => write!(f, "\"{}\"", compat.name()),
            Value::File(path) => write!(f, "{path:?}"),
            Value::Unlimited | Value::NoFile => f.write_str("none"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_the_defaults_options_start_from() {
        // Start from the opposite of every default, then apply the table's defaults.
        let mut options = Options {
            max_file_size: 1,
            max_bundle_size: 2,
            allow_unknown_keys: true,
            infer_missing_fields: true,
            ignore: vec!["x".into()],
            compat: Compat::ClaudeCode,
            embed_evals: true,
            catalog_budget: Some(1),
            lints: LintOptions::all_at(Level::Deny),
            lock: Some("x".into()),
            packs: vec!["x".into()],
        };
        options.lints.allowed_hosts = vec!["x".into()];
        for lint in Lint::ALL {
            let other = Level::ALL.into_iter().find(|l| *l != lint.default_level());
            options.lints.set_level(lint, other.unwrap());
        }
        assert_ne!(options, Options::default());
        for spec in OPTIONS {
            match spec.default.value() {
                Some(value) => options.set(spec.key, value).unwrap(),
                None => assert_eq!(spec.key, Key::Crate),
            }
        }
        // Set, each lint has the level the table shows; unset, the default is that level in
        // the strict dialect, the table's.
        let defaults = Options::default();
        assert_eq!(
            options.lints.resolved(Compat::Strict),
            defaults.lints.resolved(Compat::Strict)
        );
        options.lints = defaults.lints.clone();
        assert_eq!(options, defaults);
    }

    /// `dangling_code_path` alone has another default under `compat = "claude-code"`, and a level
    /// that is set is the same in every dialect.
    #[test]
    fn a_lint_default_may_depend_on_the_dialect() {
        let lints = LintOptions::default();
        for lint in Lint::ALL {
            let expected = match lint {
                Lint::DanglingCodePath => Level::Warn,
                _ => lint.default_level(),
            };
            assert_eq!(
                lints.level_in(lint, Compat::ClaudeCode),
                expected,
                "{lint:?}"
            );
            assert_eq!(lints.level_in(lint, Compat::Strict), lint.default_level());
        }
        assert_eq!(Lint::DanglingCodePath.default_level(), Level::Deny);
        let mut set = LintOptions::default();
        set.set_level(Lint::DanglingCodePath, Level::Deny);
        assert_eq!(
            set.level_in(Lint::DanglingCodePath, Compat::ClaudeCode),
            Level::Deny
        );
    }

    #[test]
    fn every_lint_is_an_option_once_and_names_are_unique() {
        for lint in Lint::ALL {
            let specs: Vec<_> = OPTIONS
                .iter()
                .filter(|spec| spec.key == Key::Lint(lint))
                .collect();
            assert_eq!(specs.len(), 1, "{lint:?}");
            assert_eq!(specs[0].name, lint.name());
        }
        for (i, spec) in OPTIONS.iter().enumerate() {
            assert!(
                OPTIONS[i + 1..].iter().all(|other| other.name != spec.name),
                "{} twice",
                spec.name
            );
            assert_eq!(find(spec.name), Some(spec));
        }
    }

    #[test]
    fn get_returns_what_set_stored() {
        let mut options = Options::default();
        for spec in OPTIONS {
            if let Some(value) = spec.default.value() {
                assert_eq!(options.get(spec.key), Some(value), "{}", spec.name);
            }
        }
        options
            .set(Key::Lock, Value::File("a.lock".into()))
            .unwrap();
        assert_eq!(options.get(Key::Lock), Some(Value::File("a.lock".into())));
        assert_eq!(
            Value::List(vec!["*.bak".into(), "a\"b".into()]).to_string(),
            r#"["*.bak", "a\"b"]"#
        );
        assert_eq!(
            Value::Compat(Compat::ClaudeCode).to_string(),
            "\"claude-code\""
        );
    }

    #[test]
    fn values_of_the_wrong_kind_are_refused() {
        let mut options = Options::default();
        assert!(options.set(Key::MaxFileSize, Value::Bool(true)).is_err());
        assert!(options.set(Key::Crate, Value::List(Vec::new())).is_err());
        assert_eq!(options, Options::default());
        options.set(Key::MaxFileSize, Value::Bytes(10)).unwrap();
        assert_eq!(options.max_file_size, 10);
    }

    #[test]
    fn messages_name_the_options() {
        let message = unknown_option_message("allow_unknown");
        assert!(
            message.contains("did you mean `allow_unknown_keys`?"),
            "{message}"
        );
        for spec in OPTIONS {
            assert!(
                message.contains(&format!("`{}`", spec.syntax())),
                "{message}"
            );
        }
        assert!(!unknown_option_message("zzzzzz").contains("did you mean"));
        assert!(repeated_option_message("ignore").contains("one list"));
        assert!(repeated_option_message("max_file_size").contains("more than once"));
    }

    #[test]
    fn bytes_take_digit_separators() {
        assert_eq!(parse_bytes("1_000"), Some(1000));
        assert_eq!(parse_bytes("42"), Some(42));
        for bad in ["", "_1", "1e6", "-1", "lots", "99999999999999999999999"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
    }
}
