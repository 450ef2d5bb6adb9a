//! The command line, parsed by hand: a subcommand, its positionals and a few `--flags`.
//!
//! Every mistake becomes a [`UsageError`] (exit code 2) that says what was wrong and, for a
//! misspelled subcommand or flag, what was probably meant.

use std::ffi::OsString;
use std::fmt;

use skills_core::Options;
use skills_core::render::closest_match;

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

/// The folders to read and how to judge them: the same knobs as the macro's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// Skill roots, resolved against the current directory; `skills` when none was given.
    pub dirs: Vec<String>,
    /// Validation options, as `embed_skills!(..., max_file_size = .., allow_unknown_keys = ..)`.
    pub options: Options,
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
struct Flag {
    name: &'static str,
    /// The placeholder of its value, or `None` for a switch.
    value: Option<&'static str>,
}

const SOURCE_FLAGS: [Flag; 2] = [
    Flag {
        name: "--allow-unknown-keys",
        value: None,
    },
    Flag {
        name: "--max-file-size",
        value: Some("BYTES"),
    },
];

/// The flags of `command`, besides `--help`.
fn flags_of(command: &str) -> Vec<Flag> {
    let format = |placeholder| Flag {
        name: "--format",
        value: Some(placeholder),
    };
    let mut flags = match command {
        "check" => vec![format("text|json")],
        "prompt" | "stats" => vec![format("md|xml")],
        "new" => {
            return vec![Flag {
                name: "--dir",
                value: Some("DIR"),
            }];
        }
        "list" | "show" => Vec::new(),
        _ => return Vec::new(),
    };
    flags.extend(SOURCE_FLAGS);
    flags
}

/// The one-line usage of `command`.
pub fn usage(command: &str) -> &'static str {
    match command {
        "check" => {
            "skills check [DIR...] [--format text|json] [--allow-unknown-keys] [--max-file-size BYTES]"
        }
        "list" => "skills list [DIR...] [--allow-unknown-keys] [--max-file-size BYTES]",
        "show" => "skills show NAME [DIR...] [--allow-unknown-keys] [--max-file-size BYTES]",
        "prompt" => {
            "skills prompt [DIR...] [--format md|xml] [--allow-unknown-keys] [--max-file-size BYTES]"
        }
        "stats" => {
            "skills stats [DIR...] [--format md|xml] [--allow-unknown-keys] [--max-file-size BYTES]"
        }
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
            let hint = closest_match(flag, ["--help", "--version"])
                .map(|close| format!("did you mean `{close}`?"));
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

fn known_command(name: &str) -> Result<&'static str, UsageError> {
    COMMANDS
        .iter()
        .copied()
        .find(|c| *c == name)
        .ok_or_else(|| {
            let hint = closest_match(name, COMMANDS.iter().copied())
                .map(|close| format!("did you mean `{close}`?"));
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
        let (name, inline_value) = match arg.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (arg.as_str(), None),
        };
        let Some(flag) = flags.iter().find(|flag| flag.name == name) else {
            let mut names: Vec<&str> = flags.iter().map(|flag| flag.name).collect();
            names.push("--help");
            let hint = closest_match(name, names.iter().copied())
                .map(|close| format!("did you mean `{close}`?"))
                .or_else(|| {
                    (!arg.starts_with("--") && arg.len() > 1).then(|| {
                        "to pass a folder whose name starts with `-`, put `--` before it".to_owned()
                    })
                });
            return Err(UsageError::new(
                Some(command),
                format!("unknown option `{name}` for `skills {command}`"),
            )
            .with_hint(hint));
        };
        if parsed.is_set(flag.name) {
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

fn build(command: &'static str, mut parsed: Parsed) -> Result<Command, UsageError> {
    Ok(match command {
        "check" => Command::Check {
            format: match parsed.value("--format") {
                None | Some("text") => CheckFormat::Text,
                Some("json") => CheckFormat::Json,
                Some(other) => {
                    return Err(bad_value(command, "--format", other, &["text", "json"]));
                }
            },
            source: source(command, &parsed, parsed.positionals.clone())?,
        },
        "list" => Command::List {
            source: source(command, &parsed, parsed.positionals.clone())?,
        },
        "show" => {
            if parsed.positionals.is_empty() {
                return Err(UsageError::new(
                    Some(command),
                    "missing the NAME of the skill to show",
                ));
            }
            let name = parsed.positionals.remove(0);
            Command::Show {
                source: source(command, &parsed, parsed.positionals.clone())?,
                name,
            }
        }
        "prompt" | "stats" => {
            let format = catalog_format(command, &parsed)?;
            let source = source(command, &parsed, parsed.positionals.clone())?;
            if command == "prompt" {
                Command::Prompt { source, format }
            } else {
                Command::Stats { source, format }
            }
        }
        "new" => {
            let name = match parsed.positionals.as_slice() {
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
        ..Options::default()
    };
    if let Some(size) = parsed.value("--max-file-size") {
        options.max_file_size = size.parse().map_err(|_| {
            UsageError::new(
                Some(command),
                format!("invalid value `{size}` for `--max-file-size`: expected a number of bytes"),
            )
        })?;
    }
    Ok(Source { dirs, options })
}

fn bad_value(command: &'static str, flag: &str, value: &str, expected: &[&str]) -> UsageError {
    let hint = closest_match(value, expected.iter().copied())
        .map(|close| format!("did you mean `{close}`?"));
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
