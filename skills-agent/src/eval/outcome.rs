//! [`Outcome`]: what one run of a trigger case gave, decided by the first tool call of the reply.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::AssistantTurn;
use crate::tools::LOAD_SKILL;

/// What the model did with one query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Its first tool call was `load_skill` with this name (a name the catalog need not hold).
    Loaded(String),
    /// Its first tool call was another tool (named), or it called none: no skill.
    NoSkill(Option<String>),
    /// The reply could not be read as a choice: a `load_skill` call without a string `name`, or
    /// a reply the provider found malformed. Counted as an error, never as "no skill".
    Error(String),
}

impl Outcome {
    /// The outcome of `turn`: its first tool call decides.
    pub fn of(turn: &AssistantTurn) -> Outcome {
        let Some(call) = turn.tool_calls.first() else {
            return Outcome::NoSkill(None);
        };
        if call.name != LOAD_SKILL {
            return Outcome::NoSkill(Some(call.name.clone()));
        }
        match call.input.get("name").and_then(Value::as_str) {
            Some(name) => Outcome::Loaded(name.to_owned()),
            None => Outcome::Error(format!(
                "load_skill was called without a string `name`: {}",
                crate::terminal_line(&call.input.to_string(), 200)
            )),
        }
    }

    /// The skill loaded, if any.
    pub fn loaded(&self) -> Option<&str> {
        match self {
            Outcome::Loaded(name) => Some(name),
            _ => None,
        }
    }
}

/// `load_skill(name)`, `no skill (glob)`, `no skill`, `error: ...`, escaped for a terminal (the
/// names come from the model).
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Loaded(name) => write!(f, "load_skill({})", crate::terminal_line(name, 80)),
            Outcome::NoSkill(Some(tool)) => {
                write!(f, "no skill ({})", crate::terminal_line(tool, 80))
            }
            Outcome::NoSkill(None) => f.write_str("no skill"),
            Outcome::Error(message) => {
                write!(f, "error: {}", crate::terminal_line(message, 300))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::conversation::ToolCall;

    fn turn(calls: &[(&str, Value)]) -> AssistantTurn {
        AssistantTurn {
            text: "thinking".into(),
            tool_calls: calls
                .iter()
                .enumerate()
                .map(|(i, (name, input))| ToolCall {
                    id: format!("t{i}"),
                    name: (*name).to_owned(),
                    input: input.clone(),
                })
                .collect(),
            raw: None,
            stop_reason: None,
        }
    }

    #[test]
    fn the_first_call_decides() {
        let load = ("load_skill", json!({"name": "alpha"}));
        let glob = ("glob", json!({"pattern": "*"}));
        assert_eq!(
            Outcome::of(&turn(std::slice::from_ref(&load))),
            Outcome::Loaded("alpha".into())
        );
        assert_eq!(
            Outcome::of(&turn(&[glob.clone(), load])),
            Outcome::NoSkill(Some("glob".into()))
        );
        assert_eq!(Outcome::of(&turn(&[])), Outcome::NoSkill(None));
        let loaded = turn(&[("load_skill", json!({"name": "beta"})), glob]);
        assert_eq!(Outcome::of(&loaded).loaded(), Some("beta"));
    }

    #[test]
    fn a_load_skill_call_without_a_name_is_an_error_not_no_skill() {
        for input in [json!({}), json!({"name": 3}), json!("alpha")] {
            let outcome = Outcome::of(&turn(&[("load_skill", input.clone())]));
            assert!(matches!(outcome, Outcome::Error(_)), "{input}: {outcome:?}");
        }
    }

    #[test]
    fn what_the_model_named_is_shown_escaped() {
        let outcome = Outcome::Loaded("evil\u{1b}[2J".into());
        assert_eq!(outcome.to_string(), "load_skill(evil\\x1b[2J)");
    }
}
