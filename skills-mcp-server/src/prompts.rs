//! One prompt per skill a person may invoke, and what `prompts/get` makes of its arguments.
//!
//! Hosts fill prompt arguments in two ways. A host with a form (the MCP Inspector, Claude
//! Desktop) lets a person type each argument, and the whole free text into one. Claude Code
//! splits what follows `/mcp__server__prompt` at white space and gives the declared arguments
//! one word each, in order, dropping the words past the last one. So each prompt declares:
//!
//! 1. its positional arguments: the skill's `arguments:` names, or else one per token of its
//!    `argument-hint` when every token is `[name]` or `<name>` (`[file] [focus]`);
//! 2. `arguments`, the free text (all of it, from a form);
//! 3. `arguments_2` up to `arguments_N` (the builder's `prompt_words`), the words after it
//!    from a host that fills by position.
//!
//! `prompts/get` joins what it is given in that order, one space apart, into the text after
//! `/name` and answers with [`Registry::invoke`](skills_bundle::Registry::invoke) of it, so a
//! positional host loses no word (up to the slots declared) and a form loses no space inside a
//! value. A positional value holding white space, or an empty one before a later value, is
//! quoted so that it stays one argument; the free text is passed as it is.

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage,
    Role,
};
use skills_bundle::Skill;

use crate::handler::string_argument;
use crate::server::SkillsServer;

/// The free-text argument: the whole text after `/name` from a form, its first word from a
/// host that fills arguments by position.
pub(crate) const ARGUMENTS: &str = "arguments";

/// The arguments of `skill`'s prompt, in order.
struct Slots {
    /// The skill's positional arguments (named, or from its hint).
    positional: Vec<String>,
    /// `arguments`, then `arguments_2` ...
    free: Vec<String>,
}

impl Slots {
    fn of(skill: &Skill, words: usize) -> Slots {
        let positional: Vec<String> = if skill.argument_names().is_empty() {
            hint_names(skill.argument_hint().unwrap_or("")).unwrap_or_default()
        } else {
            skill
                .argument_names()
                .iter()
                .map(|&n| n.to_owned())
                .collect()
        };
        let free = (1..=words.max(1))
            .map(|i| match i {
                1 => ARGUMENTS.to_owned(),
                i => format!("{ARGUMENTS}_{i}"),
            })
            .filter(|name| !positional.contains(name))
            .collect();
        Slots { positional, free }
    }

    fn contains(&self, name: &str) -> bool {
        self.positional.iter().chain(&self.free).any(|n| n == name)
    }

    fn names(&self) -> Vec<&str> {
        self.positional
            .iter()
            .chain(&self.free)
            .map(String::as_str)
            .collect()
    }
}

/// The names of an `argument-hint` whose every token is `[name]` or `<name>`; `None` when one
/// is not (`add [tag] | list` describes choices, not positions) or when two are the same.
fn hint_names(hint: &str) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for token in hint.split_whitespace() {
        let inner = token
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .or_else(|| token.strip_prefix('<').and_then(|t| t.strip_suffix('>')))?;
        let plain = !inner.is_empty()
            && !inner.contains(['[', ']', '<', '>', '|'])
            && !names.iter().any(|n| n == inner);
        if !plain {
            return None;
        }
        names.push(inner.to_owned());
    }
    Some(names)
}

/// `value` as one argument of the text after `/name`: quoted when it holds white space or is
/// empty, so that [`split_arguments`](skills_bundle::invoke::split_arguments) gives it back
/// whole; otherwise as it is (a word a positional host split off, quotes and all).
fn as_one_argument(value: &str) -> String {
    if !value.is_empty() && !value.chars().any(char::is_whitespace) {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

impl SkillsServer {
    pub(crate) fn prompts(&self) -> Vec<Prompt> {
        let words = self.options().prompt_words;
        self.registry()
            .iter()
            .filter(|s| s.user_invocable())
            .map(|skill| {
                let slots = Slots::of(skill, words);
                let name = skill.name();
                let named = !skill.argument_names().is_empty();
                let mut arguments: Vec<PromptArgument> = slots
                    .positional
                    .iter()
                    .enumerate()
                    .map(|(i, argument)| {
                        let description = if named {
                            format!("Argument {} of /{name} (`${argument}` in the skill)", i + 1)
                        } else {
                            format!("Argument {} of /{name}: [{argument}]", i + 1)
                        };
                        PromptArgument::new(argument)
                            .with_required(false)
                            .with_description(description)
                    })
                    .collect();
                for (i, argument) in slots.free.iter().enumerate() {
                    let description = if i == 0 {
                        let after = if slots.positional.is_empty() {
                            String::new()
                        } else {
                            " after the arguments before it".to_owned()
                        };
                        let hint = skill
                            .argument_hint()
                            .map(|hint| format!(" ({hint})"))
                            .unwrap_or_default();
                        format!(
                            "The text after /{name}{after}{hint}, whole; a host that fills \
                             arguments by position puts its first word here and the next ones \
                             in {ARGUMENTS}_2 to {ARGUMENTS}_{}",
                            slots.free.len()
                        )
                    } else {
                        format!(
                            "Word {} of the text, from a host that fills arguments by position",
                            i + 1
                        )
                    };
                    arguments.push(
                        PromptArgument::new(argument)
                            .with_required(false)
                            .with_description(description),
                    );
                }
                Prompt::new(name, Some(skill.description()), Some(arguments))
                    .with_title(skill.display_name())
            })
            .collect()
    }

    pub(crate) fn prompt(
        &self,
        request: &GetPromptRequestParams,
    ) -> Result<GetPromptResult, ErrorData> {
        let name = request.name.as_str();
        let skill = self
            .registry()
            .get(name)
            .filter(|s| s.user_invocable())
            .ok_or_else(|| {
                let error = self
                    .registry()
                    .invoke(name, "")
                    .err()
                    .map_or_else(|| format!("no prompt named \"{name}\""), |e| e.to_string());
                ErrorData::invalid_params(error, None)
            })?;
        let empty = JsonObject::new();
        let given = request.arguments.as_ref().unwrap_or(&empty);
        let slots = Slots::of(skill, self.options().prompt_words);
        if let Some(key) = given.keys().find(|key| !slots.contains(key)) {
            return Err(ErrorData::invalid_params(
                format!(
                    "the prompt \"{name}\" has no argument \"{key}\"; its arguments: {}",
                    slots.names().join(", ")
                ),
                None,
            ));
        }
        let what = format!("prompt \"{name}\"");
        let mut positional = Vec::new();
        for argument in &slots.positional {
            positional.push(string_argument(given, &what, argument)?);
        }
        // Positions keep their place: an empty or missing value before a later one is `''`.
        let kept = positional
            .iter()
            .rposition(|v| v.is_some_and(|v| !v.is_empty()))
            .map_or(0, |last| last + 1);
        let mut parts: Vec<String> = positional[..kept]
            .iter()
            .map(|value| as_one_argument(value.unwrap_or("")))
            .collect();
        for argument in &slots.free {
            if let Some(text) = string_argument(given, &what, argument)?
                && !text.trim().is_empty()
            {
                parts.push(text.trim().to_owned());
            }
        }
        let invocation = self
            .registry()
            .invoke(name, &parts.join(" "))
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, invocation)])
                .with_description(skill.description()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_of_positions_only_give_names() {
        assert_eq!(
            hint_names("[file] <focus>"),
            Some(vec!["file".to_owned(), "focus".to_owned()])
        );
        assert_eq!(hint_names(""), Some(vec![]));
        for choices in ["add [tag] | list", "[file] [file]", "[a b]", "[]", "file"] {
            assert_eq!(hint_names(choices), None, "{choices}");
        }
    }

    #[test]
    fn one_argument_each() {
        let text = [
            as_one_argument("it's here"),
            as_one_argument(""),
            as_one_argument("a\\b \"c\""),
            as_one_argument("1.2"),
        ]
        .join(" ");
        assert_eq!(
            skills_bundle::invoke::split_arguments(&text),
            ["it's here", "", "a\\b \"c\"", "1.2"]
        );
        // A word a positional host split off goes on as it is, so the text comes back whole.
        let words = ["\"my", "widget\"", "React"].map(as_one_argument).join(" ");
        assert_eq!(words, "\"my widget\" React");
        assert_eq!(
            skills_bundle::invoke::split_arguments(&words),
            ["my widget", "React"]
        );
    }
}
