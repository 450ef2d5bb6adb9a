//! What a person's `/name arguments` turns a skill's body into: Claude Code's argument
//! substitutions and the `${CLAUDE_*}` variables that make sense outside Claude Code, done once,
//! left to right; and the skill's shell commands, found at build time, left to the caller to run.
//!
//! | placeholder | becomes |
//! |---|---|
//! | `$ARGUMENTS` | the whole argument text, as typed (trimmed) |
//! | `$ARGUMENTS[N]`, `$N` | the `N`th argument, counted from 0; empty when there are fewer |
//! | `$name` | the argument at the position of `name` in the skill's `arguments:` list |
//! | `${CLAUDE_SKILL_DIR}` | the folder the skill's files were written to, when there is one |
//! | `${CLAUDE_SESSION_ID}` | the session's id, when the caller gives one |
//! | `${CLAUDE_EFFORT}` | the skill's `effort`, else the caller's, when there is one |
//! | `${CLAUDE_PROJECT_DIR}` | the working directory, when the caller gives one |
//!
//! A variable without a value, and any other `${CLAUDE_...}` (a plugin's `${CLAUDE_PLUGIN_ROOT}`),
//! stays as written; the build warns about the others. Arguments are split at whitespace; single
//! or double quotes keep spaces inside one argument (`"my widget" React` is two arguments), and a
//! backslash outside single quotes takes the next character literally. Text that came from an
//! argument or a variable is never expanded again, so an argument holding `$ARGUMENTS` stays as
//! typed. A `$` that starts no placeholder (`$HOME`, `$` at the end) stays as it is. When the body
//! has no `$ARGUMENTS`, `$ARGUMENTS[N]` or `$N` and arguments were given, they are appended as a
//! last paragraph `ARGUMENTS: ...`, so the model still sees them (named placeholders alone do not
//! count, as in Claude Code). A load by the model (no arguments) substitutes the variables only.
//!
//! Claude Code's `` !`command` `` and ```` ```! ```` blocks (recorded at build time under
//! `compat = "claude-code"`) are run by Claude Code when the skill is invoked, their output put
//! in their place. Here a [`Rendering`] lists them, substituted as the text around them is (as
//! Claude Code substitutes before it runs them), and puts outputs in place when its caller ran
//! them ([`Rendering::text_with_outputs`]); the agent does so through its `bash` tool when told
//! to. [`Registry::invoke`](crate::Registry::invoke) runs nothing: the text keeps them as written.

use std::path::Path;

use skills_core::render;

use crate::Effort;
use crate::bundle::Skill;

/// The arguments of an invocation, split as a shell would (quotes group, backslash escapes).
/// An unclosed quote runs to the end of the text.
pub fn split_arguments(text: &str) -> Vec<String> {
    let mut arguments = Vec::new();
    let mut current = String::new();
    let mut in_argument = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => current.push(c),
            (_, '\\') => {
                in_argument = true;
                match chars.next() {
                    Some(next) => current.push(next),
                    None => current.push('\\'),
                }
            }
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_argument = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_argument {
                    arguments.push(std::mem::take(&mut current));
                    in_argument = false;
                }
            }
            (None, c) => {
                current.push(c);
                in_argument = true;
            }
        }
    }
    if in_argument {
        arguments.push(current);
    }
    arguments
}

/// What the `${CLAUDE_*}` variables of a body stand for; `None` leaves one as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Variables<'a> {
    /// `${CLAUDE_SKILL_DIR}`: where the skill's files are on disk.
    pub skill_dir: Option<&'a str>,
    /// `${CLAUDE_SESSION_ID}`: the session's id.
    pub session_id: Option<&'a str>,
    /// `${CLAUDE_EFFORT}`: the effort level (`low` to `max`).
    pub effort: Option<&'a str>,
    /// `${CLAUDE_PROJECT_DIR}`: the working directory.
    pub project_dir: Option<&'a str>,
}

impl Variables<'_> {
    /// The value of the variable called `name` (`CLAUDE_SKILL_DIR`), if it has one.
    fn value(&self, name: &str) -> Option<&str> {
        match name {
            "CLAUDE_SKILL_DIR" => self.skill_dir,
            "CLAUDE_SESSION_ID" => self.session_id,
            "CLAUDE_EFFORT" => self.effort,
            "CLAUDE_PROJECT_DIR" => self.project_dir,
            _ => None,
        }
    }
}

/// `body` with every placeholder replaced (see the module docs). `names` are the skill's
/// `arguments:` in order.
pub fn substitute(
    body: &str,
    arguments: &str,
    names: &[&str],
    variables: &Variables<'_>,
) -> String {
    let mut substitution = Substitution::new(Some(arguments), names, variables);
    let mut out = substitution.apply(body);
    substitution.finish(&mut out);
    out
}

/// The substitutions of one invocation, applied to the pieces of a body in order: the body
/// between its shell commands and the commands themselves share one state, so the closing
/// `ARGUMENTS:` paragraph depends on the whole body.
struct Substitution<'a> {
    /// `None`: a load, which substitutes the variables only.
    raw: Option<&'a str>,
    split: Vec<String>,
    names: &'a [&'a str],
    variables: &'a Variables<'a>,
    used_arguments: bool,
}

impl<'a> Substitution<'a> {
    fn new(arguments: Option<&'a str>, names: &'a [&'a str], variables: &'a Variables<'a>) -> Self {
        let raw = arguments.map(str::trim);
        Substitution {
            raw,
            split: raw.map(split_arguments).unwrap_or_default(),
            names,
            variables,
            used_arguments: false,
        }
    }

    fn apply(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let found = placeholder(after, self.names)
                .filter(|p| self.raw.is_some() || matches!(p, Placeholder::Variable(..)));
            let (replacement, consumed) = match &found {
                Some(Placeholder::All) => (self.raw, "ARGUMENTS".len()),
                Some(Placeholder::Index(index, len) | Placeholder::Named(index, len)) => (
                    Some(self.split.get(*index).map_or("", String::as_str)),
                    *len,
                ),
                Some(Placeholder::Variable(name, len)) => (self.variables.value(name), *len),
                None => (None, 0),
            };
            match replacement {
                Some(replaced) => {
                    self.used_arguments |=
                        matches!(found, Some(Placeholder::All | Placeholder::Index(..)));
                    out.push_str(replaced);
                    rest = &after[consumed..];
                }
                None => {
                    // Not a placeholder, or a variable without a value: keep the `$`.
                    out.push('$');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Appends the arguments as a last paragraph when no placeholder showed them.
    fn finish(&self, out: &mut String) {
        let Some(raw) = self.raw.filter(|raw| !raw.is_empty()) else {
            return;
        };
        if !self.used_arguments {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str("ARGUMENTS: ");
            out.push_str(raw);
        }
    }
}

/// Where an invocation's text comes from besides the skill and the arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct InvokeOptions<'a> {
    /// Write the skill's files under this folder (see [`Skill::materialize`]) when it has any,
    /// for `${CLAUDE_SKILL_DIR}` and so that the text names where they are.
    pub resource_dir: Option<&'a Path>,
    /// `${CLAUDE_SESSION_ID}`.
    pub session_id: Option<&'a str>,
    /// `${CLAUDE_EFFORT}` when the skill sets no `effort` of its own.
    pub effort: Option<Effort>,
    /// `${CLAUDE_PROJECT_DIR}`.
    pub project_dir: Option<&'a Path>,
}

/// One shell command of a skill's body, as [`Skill::shell_commands`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellCommand {
    /// The byte range in [`Skill::body`] of the whole construct (`` !`...` `` or the block
    /// from ```` ```! ```` to its closing ```` ``` ````), which its output replaces.
    pub range: std::ops::Range<usize>,
    /// The command as written (trimmed).
    pub command: &'static str,
}

impl ShellCommand {
    /// Whether it is a ```` ```! ```` block (otherwise an inline `` !`...` ``).
    pub fn is_block(&self, skill: &Skill) -> bool {
        skill
            .body()
            .get(self.range.clone())
            .is_some_and(|text| text.starts_with("```!"))
    }
}

/// A skill's text as an invocation or a load gives it, with its shell commands found but not
/// run: [`text`](Self::text) keeps them as written, [`text_with_outputs`](Self::text_with_outputs)
/// puts each command's output in its place. Made by
/// [`Registry::render_invocation`](crate::Registry::render_invocation) and
/// [`SkillLoader::load_rendering`](crate::SkillLoader::load_rendering).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendering {
    skill: &'static Skill,
    /// The substituted body between the commands: one more than `commands`.
    pieces: Vec<String>,
    /// Each command: the substituted construct (kept as written when nothing runs) and the
    /// substituted command.
    commands: Vec<(String, String)>,
    /// Where the skill's files were written, if they were.
    dir: Option<String>,
    /// Why they could not be, if they could not.
    write_error: Option<String>,
}

impl Rendering {
    /// `skill`'s text for `arguments` (`None`: a load by the model, which substitutes the
    /// `${CLAUDE_*}` variables only), its files written first when `options` says where.
    pub(crate) fn new(
        skill: &Skill,
        arguments: Option<&str>,
        options: &InvokeOptions<'_>,
    ) -> Rendering {
        let skill = skill.as_static();
        let written = options
            .resource_dir
            .filter(|_| !skill.resources().is_empty())
            .map(|base| skill.materialize(base));
        let dir = match &written {
            Some(Ok(dir)) => Some(dir.to_string_lossy().into_owned()),
            _ => None,
        };
        let project_dir = options.project_dir.map(|p| p.to_string_lossy());
        let variables = Variables {
            skill_dir: dir.as_deref(),
            session_id: options.session_id,
            effort: skill.effort().or(options.effort).map(Effort::as_str),
            project_dir: project_dir.as_deref(),
        };
        let mut substitution = Substitution::new(arguments, skill.argument_names(), &variables);
        let body = skill.body();
        let mut pieces = Vec::new();
        let mut commands = Vec::new();
        let mut at = 0;
        for command in skill.shell_commands() {
            let (Some(before), Some(construct)) = (
                body.get(at..command.range.start),
                body.get(command.range.clone()),
            ) else {
                continue;
            };
            pieces.push(substitution.apply(before));
            commands.push((
                substitution.apply(construct),
                substitution.apply(command.command),
            ));
            at = command.range.end;
        }
        pieces.push(substitution.apply(body.get(at..).unwrap_or("")));
        if let Some(last) = pieces.last_mut() {
            substitution.finish(last);
        }
        Rendering {
            skill,
            pieces,
            commands,
            dir,
            write_error: match written {
                Some(Err(error)) => Some(error.to_string()),
                _ => None,
            },
        }
    }

    /// The skill.
    pub fn skill(&self) -> &'static Skill {
        self.skill
    }

    /// The shell commands to run, in order, with the arguments and variables substituted.
    pub fn commands(&self) -> impl ExactSizeIterator<Item = &str> {
        self.commands.iter().map(|(_, command)| command.as_str())
    }

    /// The text with the shell commands as written (substituted, not run).
    pub fn text(&self) -> String {
        let constructs: Vec<&str> = self.commands.iter().map(|(c, _)| c.as_str()).collect();
        self.assemble(&constructs)
    }

    /// The text with each command's output in its place, `outputs` in the order of
    /// [`commands`](Self::commands) (a missing one leaves its command as written).
    pub fn text_with_outputs<S: AsRef<str>>(&self, outputs: &[S]) -> String {
        let filled: Vec<&str> = self
            .commands
            .iter()
            .enumerate()
            .map(|(i, (construct, _))| outputs.get(i).map_or(construct.as_str(), AsRef::as_ref))
            .collect();
        self.assemble(&filled)
    }

    /// The body from its pieces and what goes between them, wrapped as the `load_skill` result
    /// is, with the note on files that could not be written.
    fn assemble(&self, between: &[&str]) -> String {
        let mut body = String::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            body.push_str(piece);
            if let Some(middle) = between.get(i) {
                body.push_str(middle);
            }
        }
        let resources: Vec<_> = self
            .skill
            .resources()
            .iter()
            .map(|r| render::ResourceEntry {
                path: r.path(),
                size: r.size(),
            })
            .collect();
        let mut text = render::load_skill_result(
            self.skill.name(),
            self.skill.version(),
            &body,
            &resources,
            self.dir.as_deref(),
        );
        if let Some(error) = &self.write_error {
            // The files stay readable through `read_skill_resource`.
            text.push_str(&format!(
                "\n(The files could not be written to disk: {error}.)"
            ));
        }
        text
    }
}

/// A placeholder starting right after a `$`, with the length of its text after the `$`.
enum Placeholder<'a> {
    All,
    Index(usize, usize),
    Named(usize, usize),
    /// One of the variables substituted at run time, by name (`CLAUDE_SKILL_DIR`).
    Variable(&'a str, usize),
}

fn placeholder<'a>(after: &'a str, names: &[&str]) -> Option<Placeholder<'a>> {
    if let Some(braced) = after.strip_prefix('{') {
        let variable = skills_core::claude_code::SUBSTITUTED_VARIABLES
            .into_iter()
            .find(|name| {
                braced
                    .strip_prefix(name)
                    .is_some_and(|r| r.starts_with('}'))
            });
        return variable.map(|name| Placeholder::Variable(&braced[..name.len()], name.len() + 2));
    }
    if let Some(indexed) = after.strip_prefix("ARGUMENTS[") {
        let digits = leading_digits(indexed);
        if digits > 0 && indexed[digits..].starts_with(']') {
            let index = indexed[..digits].parse().unwrap_or(usize::MAX);
            return Some(Placeholder::Index(index, "ARGUMENTS[".len() + digits + 1));
        }
    }
    if after.starts_with("ARGUMENTS") && !continues_word(&after["ARGUMENTS".len()..]) {
        return Some(Placeholder::All);
    }
    let digits = leading_digits(after);
    if digits > 0 {
        let index = after[..digits].parse().unwrap_or(usize::MAX);
        return Some(Placeholder::Index(index, digits));
    }
    // The longest declared name that the text starts with as a whole word.
    names
        .iter()
        .enumerate()
        .filter(|(_, name)| {
            !name.is_empty() && after.starts_with(*name) && !continues_word(&after[name.len()..])
        })
        .max_by_key(|(_, name)| name.len())
        .map(|(index, name)| Placeholder::Named(index, name.len()))
}

fn leading_digits(text: &str) -> usize {
    text.bytes().take_while(u8::is_ascii_digit).count()
}

/// Whether `rest` goes on with a character that would make the placeholder a longer word.
fn continues_word(rest: &str) -> bool {
    rest.chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_split_like_a_shell() {
        assert_eq!(
            split_arguments(r#"  "my widget" React 'it''s' a\ b "q\"x"  "#),
            ["my widget", "React", "its", "a b", "q\"x"]
        );
        assert_eq!(split_arguments(""), Vec::<String>::new());
        assert_eq!(split_arguments(r#"'' x"#), ["", "x"]);
        assert_eq!(split_arguments(r#""unclosed rest"#), ["unclosed rest"]);
        assert_eq!(split_arguments("trailing\\"), ["trailing\\"]);
    }

    #[test]
    fn every_placeholder_form() {
        let body = "all=$ARGUMENTS first=$ARGUMENTS[0] second=$1 third=$ARGUMENTS[2] \
                    c=$component t=$target dir=${CLAUDE_SKILL_DIR}";
        let out = substitute(
            body,
            r#" "Search Bar" React Vue "#,
            &["component", "source", "target"],
            &Variables {
                skill_dir: Some("/run/skills/x"),
                ..Variables::default()
            },
        );
        assert_eq!(
            out,
            "all=\"Search Bar\" React Vue first=Search Bar second=React third=Vue \
             c=Search Bar t=Vue dir=/run/skills/x"
        );
    }

    #[test]
    fn dollars_that_are_not_placeholders_stay() {
        let out = substitute(
            "cost $ or $HOME or $ARGUMENTSX or $componentry or ${CLAUDE_SKILL_DIR} end$",
            "",
            &["component"],
            &Variables::default(),
        );
        assert_eq!(
            out,
            "cost $ or $HOME or $ARGUMENTSX or $componentry or ${CLAUDE_SKILL_DIR} end$"
        );
    }

    #[test]
    fn missing_arguments_are_empty() {
        assert_eq!(
            substitute(
                "[$3][$ARGUMENTS[9]][$b]",
                "x",
                &["a", "b"],
                &Variables::default()
            ),
            "[][][]"
        );
        assert_eq!(
            substitute(
                "$ARGUMENTS[99999999999999999999999]",
                "x",
                &[],
                &Variables::default()
            ),
            ""
        );
    }

    #[test]
    fn argument_text_is_not_expanded_again() {
        assert_eq!(
            substitute(
                "run: $ARGUMENTS",
                "$ARGUMENTS $0 ${CLAUDE_SKILL_DIR}",
                &[],
                &Variables {
                    skill_dir: Some("/d"),
                    ..Variables::default()
                }
            ),
            "run: $ARGUMENTS $0 ${CLAUDE_SKILL_DIR}"
        );
    }

    #[test]
    fn arguments_are_appended_when_the_body_has_no_placeholder() {
        assert_eq!(
            substitute("Release the crate.", " 1.2.0 ", &[], &Variables::default()),
            "Release the crate.\n\nARGUMENTS: 1.2.0"
        );
        // Named arguments alone do not count as showing the arguments.
        assert_eq!(
            substitute("Version $v.", "1.2.0", &["v"], &Variables::default()),
            "Version 1.2.0.\n\nARGUMENTS: 1.2.0"
        );
        assert_eq!(
            substitute("No arguments.", "  ", &[], &Variables::default()),
            "No arguments."
        );
    }

    #[test]
    fn the_four_variables_and_the_others() {
        let variables = Variables {
            skill_dir: Some("/skills/x"),
            session_id: Some("s-1"),
            effort: Some("high"),
            project_dir: Some("/work"),
        };
        let body = "${CLAUDE_SKILL_DIR} ${CLAUDE_SESSION_ID} ${CLAUDE_EFFORT} \
                    ${CLAUDE_PROJECT_DIR} ${CLAUDE_PLUGIN_ROOT} ${CLAUDE_SESSION_ID ${CLAUDE_EFFORTS}";
        assert_eq!(
            substitute(body, "", &[], &variables),
            "/skills/x s-1 high /work ${CLAUDE_PLUGIN_ROOT} ${CLAUDE_SESSION_ID ${CLAUDE_EFFORTS}"
        );
        // Without values they stay as written.
        assert_eq!(substitute(body, "", &[], &Variables::default()), body);
        // A variable's value is not expanded again.
        let tricky = Variables {
            session_id: Some("$ARGUMENTS ${CLAUDE_EFFORT}"),
            ..variables
        };
        assert_eq!(
            substitute("${CLAUDE_SESSION_ID}", "x", &[], &tricky),
            "$ARGUMENTS ${CLAUDE_EFFORT}\n\nARGUMENTS: x"
        );
    }

    #[test]
    fn a_load_substitutes_the_variables_only() {
        let variables = Variables {
            project_dir: Some("/work"),
            ..Variables::default()
        };
        let mut load = Substitution::new(None, &["a"], &variables);
        let mut out = load.apply("$ARGUMENTS $0 $a in ${CLAUDE_PROJECT_DIR}");
        load.finish(&mut out);
        assert_eq!(out, "$ARGUMENTS $0 $a in /work");
    }
}
