//! What a person's `/name arguments` turns a skill's body into: Claude Code's argument
//! substitutions, done once, left to right.
//!
//! | placeholder | becomes |
//! |---|---|
//! | `$ARGUMENTS` | the whole argument text, as typed (trimmed) |
//! | `$ARGUMENTS[N]`, `$N` | the `N`th argument, counted from 0; empty when there are fewer |
//! | `$name` | the argument at the position of `name` in the skill's `arguments:` list |
//! | `${CLAUDE_SKILL_DIR}` | the folder the skill's files were written to, when there is one |
//!
//! Arguments are split at whitespace; single or double quotes keep spaces inside one argument
//! (`"my widget" React` is two arguments), and a backslash outside single quotes takes the next
//! character literally. Text that came from an argument is never expanded again, so an argument
//! holding `$ARGUMENTS` stays as typed. A `$` that starts no placeholder (`$HOME`, `$` at the end)
//! stays as it is. When the body has no `$ARGUMENTS`, `$ARGUMENTS[N]` or `$N` and arguments were
//! given, they are appended as a last paragraph `ARGUMENTS: ...`, so the model still sees them
//! (named placeholders alone do not count, as in Claude Code).

use std::path::Path;

use skills_core::render;

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

/// `body` with every placeholder replaced (see the module docs). `names` are the skill's
/// `arguments:` in order; `skill_dir` is where its files are on disk, if anywhere.
pub fn substitute(body: &str, arguments: &str, names: &[&str], skill_dir: Option<&str>) -> String {
    let raw = arguments.trim();
    let split = split_arguments(raw);
    let positional = |index: usize| split.get(index).map_or("", String::as_str);
    let mut out = String::with_capacity(body.len() + raw.len());
    let mut used_arguments = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let found = placeholder(after, names);
        let (replacement, consumed) = match found {
            Some(Placeholder::All) => (Some(raw), "ARGUMENTS".len()),
            Some(Placeholder::Index(index, len) | Placeholder::Named(index, len)) => {
                (Some(positional(index)), len)
            }
            Some(Placeholder::SkillDir(len)) => (skill_dir, len),
            None => (None, 0),
        };
        match replacement {
            Some(text) => {
                used_arguments |= matches!(found, Some(Placeholder::All | Placeholder::Index(..)));
                out.push_str(text);
                rest = &after[consumed..];
            }
            None => {
                // Not a placeholder, or `${CLAUDE_SKILL_DIR}` without a folder: keep the `$`.
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if !used_arguments && !raw.is_empty() {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str("ARGUMENTS: ");
        out.push_str(raw);
    }
    out
}

/// The text of a person's invocation of `skill` (see
/// [`Registry::invoke`](crate::Registry::invoke)): the substituted body in the `load_skill`
/// wrapping, the skill's files written under `resource_dir` when it has files and a folder is
/// given.
pub(crate) fn invocation_text(
    skill: &Skill,
    arguments: &str,
    resource_dir: Option<&Path>,
) -> String {
    let written = resource_dir
        .filter(|_| !skill.resources().is_empty())
        .map(|base| skill.materialize(base));
    let dir = match &written {
        Some(Ok(dir)) => Some(dir.to_string_lossy()),
        _ => None,
    };
    let body = substitute(
        skill.body(),
        arguments,
        skill.argument_names(),
        dir.as_deref(),
    );
    let resources: Vec<_> = skill
        .resources()
        .iter()
        .map(|r| render::ResourceEntry {
            path: r.path(),
            size: r.size(),
        })
        .collect();
    let mut text = render::load_skill_result(
        skill.name(),
        skill.version(),
        &body,
        &resources,
        dir.as_deref(),
    );
    if let Some(Err(error)) = written {
        // As for `load_skill`: the files stay readable through `read_skill_resource`.
        text.push_str(&format!(
            "\n(The files could not be written to disk: {error}.)"
        ));
    }
    text
}

/// A placeholder starting right after a `$`, with the length of its text after the `$`.
enum Placeholder {
    All,
    Index(usize, usize),
    Named(usize, usize),
    SkillDir(usize),
}

fn placeholder(after: &str, names: &[&str]) -> Option<Placeholder> {
    const SKILL_DIR: &str = "{CLAUDE_SKILL_DIR}";
    if after.starts_with(SKILL_DIR) {
        return Some(Placeholder::SkillDir(SKILL_DIR.len()));
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
            Some("/run/skills/x"),
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
            None,
        );
        assert_eq!(
            out,
            "cost $ or $HOME or $ARGUMENTSX or $componentry or ${CLAUDE_SKILL_DIR} end$"
        );
    }

    #[test]
    fn missing_arguments_are_empty() {
        assert_eq!(
            substitute("[$3][$ARGUMENTS[9]][$b]", "x", &["a", "b"], None),
            "[][][]"
        );
        assert_eq!(
            substitute("$ARGUMENTS[99999999999999999999999]", "x", &[], None),
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
                Some("/d")
            ),
            "run: $ARGUMENTS $0 ${CLAUDE_SKILL_DIR}"
        );
    }

    #[test]
    fn arguments_are_appended_when_the_body_has_no_placeholder() {
        assert_eq!(
            substitute("Release the crate.", " 1.2.0 ", &[], None),
            "Release the crate.\n\nARGUMENTS: 1.2.0"
        );
        // Named arguments alone do not count as showing the arguments.
        assert_eq!(
            substitute("Version $v.", "1.2.0", &["v"], None),
            "Version 1.2.0.\n\nARGUMENTS: 1.2.0"
        );
        assert_eq!(
            substitute("No arguments.", "  ", &[], None),
            "No arguments."
        );
    }
}
