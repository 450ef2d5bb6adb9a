//! The command line, parsed by hand: a subcommand, its positionals and a few `--flags`.
//!
//! Every mistake becomes a [`UsageError`] (exit code 2) that says what was wrong and, for a
//! misspelled subcommand or flag, what was probably meant.

use std::ffi::OsString;
use std::fmt;

use skills_core::lint::LINT_NAMES;
use skills_core::render::closest_match;
use skills_core::{Level, Options};

/// The folder every command reads (or `new` writes into) when none is given.
pub const DEFAULT_DIR: &str = "skills";

/// The subcommands, in the order `skills help` lists them.
pub const COMMANDS: &[&str] = &["check", "list", "show", "prompt", "stats", "new", "help"];

/// What `skills check` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFormat {
    /// The diagnostics as the compiler shows them, then a summary line.
    Text,
    /// One JSON document for machines.
    Json,
}

/// Which catalog format `prompt` prints and `stats` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatalogFormat {
    /// `- name: description` lines ([`skills_core::render::catalog_markdown`]).
    Markdown,
    /// The agentskills.io `<available_skills>` block ([`skills_core::render::catalog_xml`]).
    Xml,
}

/// The lint group that stands for every warning, as in rustc: `-D warnings` turns each warning
/// into an error (what `#![deny(warnings)]` does to the macro's warnings), `-A warnings` hides them.
pub const WARNINGS: &str = "warnings";

/// The folders to read and how to judge them: the same knobs as the macro's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// Skill roots, resolved against the current directory; `skills` when none was given.
    pub dirs: Vec<String>,
    /// Validation options, as `embed_skills!(..., max_file_size = .., long_body = "deny", ..)`.
    pub options: Options,
    /// The level of the `warnings` group: [`Level::Warn`] leaves warnings as they are,
    /// [`Level::Deny`] reports them as errors, [`Level::Allow`] drops them. It applies to
    /// whatever is still a warning after the per-lint levels, whatever the order of the flags.
    pub warnings: Level,
}

impl Source {
    /// The roots as `&str`, for [`skills_core::load`].
    pub fn roots(&self) -> Vec<&str> {
        self.dirs.iter().map(String::as_str).collect()
    }
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `skills help [COMMAND]`, `--help`: the general help or one command's.
    Help(Option<&'static str>),
    /// `skills --version`.
    Version,
    /// `skills check`.
    Check {
        /// What to read.
        source: Source,
        /// How to report.
        format: CheckFormat,
    },
    /// `skills list`.
    List {
        /// What to read.
        source: Source,
    },
    /// `skills show NAME`.
    Show {
        /// The skill to show.
        name: String,
        /// What to read.
        source: Source,
    },
    /// `skills prompt`.
    Prompt {
        /// What to read.
        source: Source,
        /// Which catalog.
        format: CatalogFormat,
    },
    /// `skills stats`.
    Stats {
        /// What to read.
        source: Source,
        /// Which catalog to weigh against the bodies.
        format: CatalogFormat,
    },
    /// `skills new NAME`.
    New {
        /// Name of the new skill (and its folder).
        name: String,
        /// The root to create it in.
        dir: String,
    },
}

/// A command line that cannot be run: exit code 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError {
    /// What is wrong.
    pub message: String,
    /// A likely fix (`did you mean ...`), when there is one.
    pub hint: Option<String>,
    /// The subcommand whose usage line to show, when known.
    pub command: Option<&'static str>,
}

impl UsageError {
    fn new(command: Option<&'static str>, message: impl Into<String>) -> Self {
        UsageError {
            message: message.into(),
            hint: None,
            command,
        }
    }

    fn with_hint(mut self, hint: Option<String>) -> Self {
        self.hint = hint;
        self
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  = help: {hint}")?;
        }
        match self.command {
            Some(command) => write!(
                f,
                "\n\nUsage: {}\n\nFor more information, run `skills help {command}`.",
                usage(command)
            ),
            None => write!(
                f,
                "\n\nUsage: skills <COMMAND> [ARGS]\n\nFor more information, run `skills help`."
            ),
        }
    }
}

/// One `--flag` a subcommand accepts.
#[derive(Clone, Copy)]
struct Flag {
    name: &'static str,
    /// The one-letter form (`-D`), which takes its value separately or attached (`-Dwarnings`).
    short: Option<&'static str>,
    /// The placeholder of its value, or `None` for a switch.
    value: Option<&'static str>,
    /// Whether it may be given more than once (each value counts, in order).
    repeatable: bool,
}

impl Flag {
    const fn switch(name: &'static str) -> Self {
        Flag {
            name,
            short: None,
            value: None,
            repeatable: false,
        }
    }

    const fn valued(name: &'static str, placeholder: &'static str) -> Self {
        Flag {
            name,
            short: None,
            value: Some(placeholder),
            repeatable: false,
        }
    }

    const fn repeated(mut self) -> Self {
        self.repeatable = true;
        self
    }

    const fn short(mut self, short: &'static str) -> Self {
        self.short = Some(short);
        self
    }
}

/// The macro's options, for every command that reads a bundle.
const SOURCE_FLAGS: [Flag; 9] = [
    Flag::switch("--allow-unknown-keys"),
    Flag::switch("--infer-missing-fields"),
    Flag::valued("--max-file-size", "BYTES"),
    Flag::valued("--max-bundle-size", "BYTES"),
    Flag::valued("--ignore", "PATTERN").repeated(),
    Flag::valued("--allowed-host", "HOST").repeated(),
    Flag::valued("--allow", "LINT").short("-A").repeated(),
    Flag::valued("--warn", "LINT").short("-W").repeated(),
    Flag::valued("--deny", "LINT").short("-D").repeated(),
];

/// The flags of `command`, besides `--help`.
fn flags_of(command: &str) -> Vec<Flag> {
    let format = |placeholder| Flag::valued("--format", placeholder);
    let mut flags = match command {
        "check" => vec![format("text|json")],
        "prompt" | "stats" => vec![format("md|xml")],
        "new" => return vec![Flag::valued("--dir", "DIR")],
        "list" | "show" => Vec::new(),
        _ => return Vec::new(),
    };
    flags.extend(SOURCE_FLAGS);
    flags
}

/// The one-line usage of `command`.
pub fn usage(command: &str) -> &'static str {
    match command {
        "check" => "skills check [DIR...] [--format text|json] [BUNDLE OPTIONS]",
        "list" => "skills list [DIR...] [BUNDLE OPTIONS]",
        "show" => "skills show NAME [DIR...] [BUNDLE OPTIONS]",
        "prompt" => "skills prompt [DIR...] [--format md|xml] [BUNDLE OPTIONS]",
        "stats" => "skills stats [DIR...] [--format md|xml] [BUNDLE OPTIONS]",
        "new" => "skills new NAME [--dir DIR]",
        "help" => "skills help [COMMAND]",
        _ => "skills <COMMAND> [ARGS]",
    }
}

/// What the flags of one subcommand said.
#[derive(Default)]
struct Parsed {
    positionals: Vec<String>,
    values: Vec<(&'static str, String)>,
    help: bool,
}

impl Parsed {
    fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(flag, _)| *flag == name)
            .map(|(_, value)| value.as_str())
    }

    fn is_set(&self, name: &str) -> bool {
        self.values.iter().any(|(flag, _)| *flag == name)
    }

    /// Every value of a repeatable flag, in the order given.
    fn all(&self, name: &str) -> Vec<String> {
        self.values
            .iter()
            .filter(|(flag, _)| *flag == name)
            .map(|(_, value)| value.clone())
            .collect()
    }
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, UsageError> {
    let args = args
        .into_iter()
        .map(|arg| {
            arg.into_string().map_err(|arg| {
                UsageError::new(
                    None,
                    format!("argument {arg:?} is not valid UTF-8 (skill roots and names must be)"),
                )
            })
        })
        .collect::<Result<Vec<String>, _>>()?;
    let Some((first, rest)) = args.split_first() else {
        return Err(UsageError::new(None, "no command given"));
    };
    let command = match first.as_str() {
        "-h" | "--help" => return Ok(Command::Help(None)),
        "-V" | "--version" => return Ok(Command::Version),
        "help" => return parse_help(rest),
        flag if flag.starts_with('-') => {
            let hint = did_you_mean(flag, ["--help", "--version"]);
            return Err(UsageError::new(None, format!("unknown option `{flag}`")).with_hint(hint));
        }
        name => known_command(name)?,
    };
    let parsed = parse_flags(command, rest)?;
    if parsed.help {
        return Ok(Command::Help(Some(command)));
    }
    build(command, parsed)
}

/// `did you mean `X`?` when a candidate is close to `target`.
fn did_you_mean<'a>(target: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    closest_match(target, candidates).map(|close| format!("did you mean `{close}`?"))
}

fn known_command(name: &str) -> Result<&'static str, UsageError> {
    COMMANDS
        .iter()
        .copied()
        .find(|c| *c == name)
        .ok_or_else(|| {
            let hint = did_you_mean(name, COMMANDS.iter().copied());
            UsageError::new(None, format!("unknown command `{name}`")).with_hint(hint)
        })
}

fn parse_help(rest: &[String]) -> Result<Command, UsageError> {
    match rest {
        [] => Ok(Command::Help(None)),
        [topic] => Ok(Command::Help(Some(known_command(topic)?))),
        [_, extra, ..] => Err(UsageError::new(
            Some("help"),
            format!("unexpected argument `{extra}`"),
        )),
    }
}

/// Splits `args` into positionals and the flags `command` accepts. Accepts `--flag value`,
/// `--flag=value` and `--` (everything after it is positional).
fn parse_flags(command: &'static str, args: &[String]) -> Result<Parsed, UsageError> {
    let flags = flags_of(command);
    let mut parsed = Parsed::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            parsed.positionals.extend(args.by_ref().cloned());
            break;
        }
        if arg == "-h" || arg == "--help" {
            parsed.help = true;
            continue;
        }
        if !arg.starts_with('-') || arg == "-" {
            parsed.positionals.push(arg.clone());
            continue;
        }
        // `--name`, `--name=value`, or a short form: `-D NAME`, `-DNAME`.
        let short = (!arg.starts_with("--"))
            .then(|| {
                flags
                    .iter()
                    .find(|flag| flag.short.is_some_and(|short| arg.starts_with(short)))
            })
            .flatten();
        let (flag, inline_value) = match short {
            Some(flag) => {
                let rest = &arg[2..];
                (flag, (!rest.is_empty()).then(|| rest.to_owned()))
            }
            None => {
                let (name, inline_value) = match arg.split_once('=') {
                    Some((name, value)) => (name, Some(value.to_owned())),
                    None => (arg.as_str(), None),
                };
                let Some(flag) = flags.iter().find(|flag| flag.name == name) else {
                    return Err(unknown_flag(command, &flags, name, arg));
                };
                (flag, inline_value)
            }
        };
        if !flag.repeatable && parsed.is_set(flag.name) {
            return Err(UsageError::new(
                Some(command),
                format!("`{}` given more than once", flag.name),
            ));
        }
        let value = match (flag.value, inline_value) {
            (None, None) => String::new(),
            (None, Some(_)) => {
                return Err(UsageError::new(
                    Some(command),
                    format!("`{}` takes no value", flag.name),
                ));
            }
            (Some(_), Some(value)) => value,
            (Some(placeholder), None) => match args.next() {
                Some(value) if !value.starts_with('-') || value == "-" => value.clone(),
                _ => {
                    return Err(UsageError::new(
                        Some(command),
                        format!(
                            "`{}` needs a value: `{} {placeholder}`",
                            flag.name, flag.name
                        ),
                    ));
                }
            },
        };
        parsed.values.push((flag.name, value));
    }
    Ok(parsed)
}

fn unknown_flag(command: &'static str, flags: &[Flag], name: &str, arg: &str) -> UsageError {
    let mut names: Vec<&str> = flags.iter().map(|flag| flag.name).collect();
    names.push("--help");
    // A lowercase `-d` is a likely slip for `-D`; other short forms only match exactly, so a
    // folder called `-x` is not "corrected" into a lint flag.
    let short_slip = || {
        let upper = arg.get(..2)?.to_ascii_uppercase();
        flags
            .iter()
            .filter_map(|flag| flag.short)
            .find(|short| *short == upper)
    };
    let hint = closest_match(name, names.iter().copied())
        .or_else(|| (!arg.starts_with("--")).then(short_slip).flatten())
        .map(|close| format!("did you mean `{close}`?"))
        .or_else(|| {
            (!arg.starts_with("--") && arg.len() > 1).then(|| {
                "to pass a folder whose name starts with `-`, put `--` before it".to_owned()
            })
        });
    UsageError::new(
        Some(command),
        format!("unknown option `{name}` for `skills {command}`"),
    )
    .with_hint(hint)
}

fn build(command: &'static str, mut parsed: Parsed) -> Result<Command, UsageError> {
    let mut positionals = std::mem::take(&mut parsed.positionals);
    Ok(match command {
        "check" => Command::Check {
            format: match parsed.value("--format") {
                None | Some("text") => CheckFormat::Text,
                Some("json") => CheckFormat::Json,
                Some(other) => {
                    return Err(bad_value(command, "--format", other, &["text", "json"]));
                }
            },
            source: source(command, &parsed, positionals)?,
        },
        "list" => Command::List {
            source: source(command, &parsed, positionals)?,
        },
        "show" => {
            if positionals.is_empty() {
                return Err(UsageError::new(
                    Some(command),
                    "missing the NAME of the skill to show",
                ));
            }
            let name = positionals.remove(0);
            Command::Show {
                source: source(command, &parsed, positionals)?,
                name,
            }
        }
        "prompt" | "stats" => {
            let format = catalog_format(command, &parsed)?;
            let source = source(command, &parsed, positionals)?;
            if command == "prompt" {
                Command::Prompt { source, format }
            } else {
                Command::Stats { source, format }
            }
        }
        "new" => {
            let name = match positionals.as_slice() {
                [name] => name.clone(),
                [] => {
                    return Err(UsageError::new(
                        Some(command),
                        "missing the NAME of the skill to create",
                    ));
                }
                [_, extra, ..] => {
                    return Err(UsageError::new(
                        Some(command),
                        format!(
                            "unexpected argument `{extra}`: `skills new` creates one skill; \
                             choose its root with `--dir`"
                        ),
                    ));
                }
            };
            let dir = parsed.value("--dir").unwrap_or(DEFAULT_DIR).to_owned();
            if dir.is_empty() {
                return Err(UsageError::new(Some(command), "`--dir` must not be empty"));
            }
            Command::New { name, dir }
        }
        // `help` is handled before the flags are parsed; keep the parser total anyway.
        _ => Command::Help(None),
    })
}

fn catalog_format(command: &'static str, parsed: &Parsed) -> Result<CatalogFormat, UsageError> {
    match parsed.value("--format") {
        None | Some("md" | "markdown") => Ok(CatalogFormat::Markdown),
        Some("xml") => Ok(CatalogFormat::Xml),
        Some(other) => Err(bad_value(command, "--format", other, &["md", "xml"])),
    }
}

fn source(
    command: &'static str,
    parsed: &Parsed,
    mut dirs: Vec<String>,
) -> Result<Source, UsageError> {
    if let Some(empty) = dirs.iter().position(String::is_empty) {
        return Err(UsageError::new(
            Some(command),
            format!("folder argument {} is empty", empty + 1),
        ));
    }
    if dirs.is_empty() {
        dirs.push(DEFAULT_DIR.to_owned());
    }
    let mut options = Options {
        allow_unknown_keys: parsed.is_set("--allow-unknown-keys"),
        infer_missing_fields: parsed.is_set("--infer-missing-fields"),
        ignore: parsed.all("--ignore"),
        ..Options::default()
    };
    options.lints.allowed_hosts = parsed.all("--allowed-host");
    if let Some(size) = parsed.value("--max-file-size") {
        options.max_file_size = bytes(command, "--max-file-size", size)?;
    }
    if let Some(size) = parsed.value("--max-bundle-size") {
        options.max_bundle_size = bytes(command, "--max-bundle-size", size)?;
    }
    // Lint levels in the order given, so the last one for a lint wins (as in rustc).
    let mut warnings = Level::Warn;
    for (flag, lint) in &parsed.values {
        let level = match *flag {
            "--allow" => Level::Allow,
            "--warn" => Level::Warn,
            "--deny" => Level::Deny,
            _ => continue,
        };
        if lint == WARNINGS {
            warnings = level;
        } else if !options.lints.set(lint, level) {
            return Err(unknown_lint(command, lint));
        }
    }
    Ok(Source {
        dirs,
        options,
        warnings,
    })
}

/// A size in bytes: decimal digits, `_` allowed between them as in the macro's `1_000_000`.
fn bytes(command: &'static str, flag: &str, value: &str) -> Result<u64, UsageError> {
    let digits = value.replace('_', "");
    let valid = value.starts_with(|c: char| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit());
    valid.then(|| digits.parse().ok()).flatten().ok_or_else(|| {
        UsageError::new(
            Some(command),
            format!("invalid value `{value}` for `{flag}`: expected a number of bytes"),
        )
    })
}

fn unknown_lint(command: &'static str, lint: &str) -> UsageError {
    let names = LINT_NAMES.iter().copied().chain([WARNINGS]);
    let hint = match closest_match(lint, names) {
        Some(close) => format!("did you mean `{close}`?"),
        None => format!(
            "the lints are {}, and `{WARNINGS}` for every warning",
            LINT_NAMES
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    UsageError::new(Some(command), format!("unknown lint `{lint}`")).with_hint(Some(hint))
}

fn bad_value(command: &'static str, flag: &str, value: &str, expected: &[&str]) -> UsageError {
    let hint = did_you_mean(value, expected.iter().copied());
    UsageError::new(
        Some(command),
        format!(
            "invalid value `{value}` for `{flag}`: expected {}",
            expected.join(" or ")
        ),
    )
    .with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Command, UsageError> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn defaults_to_the_skills_folder() {
        let Ok(Command::List { source }) = run(&["list"]) else {
            panic!("list did not parse");
        };
        assert_eq!(source.dirs, ["skills"]);
        assert_eq!(source.options, Options::default());
    }

    #[test]
    fn flags_take_values_inline_or_separately() {
        let a = run(&["check", "a", "--format", "json", "b"]);
        let b = run(&["check", "--format=json", "a", "b"]);
        assert_eq!(a, b);
        let Ok(Command::Check { source, format }) = a else {
            panic!("check did not parse");
        };
        assert_eq!(format, CheckFormat::Json);
        assert_eq!(source.dirs, ["a", "b"]);
    }

    #[test]
    fn every_macro_option_has_a_flag() {
        let Ok(Command::Check { source, .. }) = run(&[
            "check",
            "--max-file-size=10",
            "--max-bundle-size",
            "1_000",
            "--allow-unknown-keys",
            "--infer-missing-fields",
            "--ignore",
            "*.bak",
            "--ignore=*.tmp",
            "--allowed-host",
            "docs.rs",
            "-D",
            "long_body",
            "-Wexternal_urls",
            "--allow",
            "prompt_override",
            "--deny=similar_descriptions",
            "-A",
            "similar_descriptions",
            "-D",
            "warnings",
        ]) else {
            panic!("check did not parse");
        };
        let options = &source.options;
        assert_eq!((options.max_file_size, options.max_bundle_size), (10, 1000));
        assert!(options.allow_unknown_keys && options.infer_missing_fields);
        assert_eq!(options.ignore, ["*.bak", "*.tmp"]);
        assert_eq!(options.lints.allowed_hosts, ["docs.rs"]);
        assert_eq!(options.lints.long_body, Level::Deny);
        assert_eq!(options.lints.external_urls, Level::Warn);
        assert_eq!(options.lints.prompt_override, Level::Allow);
        assert_eq!(
            options.lints.similar_descriptions,
            Level::Allow,
            "last wins"
        );
        assert_eq!(source.warnings, Level::Deny);
    }

    #[test]
    fn double_dash_ends_options() {
        let Ok(Command::List { source }) = run(&["list", "--", "--odd"]) else {
            panic!("list did not parse");
        };
        assert_eq!(source.dirs, ["--odd"]);
    }

    #[test]
    fn usage_errors_explain_themselves() {
        let error = run(&["chek"]).unwrap_err();
        assert_eq!(error.hint.as_deref(), Some("did you mean `check`?"));
        let error = run(&["check", "--fromat", "json"]).unwrap_err();
        assert_eq!(error.hint.as_deref(), Some("did you mean `--format`?"));
        let error = run(&["prompt", "--format"]).unwrap_err();
        assert!(error.message.contains("needs a value"), "{error}");
        let error = run(&["check", "--max-file-size", "big"]).unwrap_err();
        assert!(error.message.contains("number of bytes"), "{error}");
        let error = run(&["list", "--format", "xml"]).unwrap_err();
        assert!(error.message.contains("unknown option"), "{error}");
        assert!(run(&[]).is_err());
    }
}
