//! [`Outcome`]: what one run of a trigger case gave, decided by the first tool call of the reply
//! or, by the other [`TriggerRule`], by any `load_skill` call in it.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::AssistantTurn;
use crate::tools::LOAD_SKILL;

/// Which calls of the first reply decide what a trigger case loaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerRule {
    /// The first tool call: `load_skill(X)` means X, any other call or none means no skill
    /// (the default).
    #[default]
    FirstCall,
    /// The first `load_skill` call anywhere in the reply, after other calls too, as
    /// skill-creator's newer runner counts a trigger.
    FirstReply,
}

impl TriggerRule {
    /// The names [`FromStr`](std::str::FromStr) takes.
    pub const NAMES: [&'static str; 2] = ["first-call", "first-reply"];

    /// `first tool call` or `any load_skill call of the first reply`, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            TriggerRule::FirstCall => "the first tool call decides",
            TriggerRule::FirstReply => "any load_skill call of the first reply decides",
        }
    }
}

impl std::str::FromStr for TriggerRule {
    type Err = String;

    /// `first-call` or `first-reply`.
    fn from_str(name: &str) -> Result<TriggerRule, String> {
        match name {
            "first-call" => Ok(TriggerRule::FirstCall),
            "first-reply" => Ok(TriggerRule::FirstReply),
            _ => Err(format!(
                "`{name}` is not a trigger rule; the rules are {}",
                TriggerRule::NAMES.join(", ")
            )),
        }
    }
}

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
        Outcome::by(turn, TriggerRule::FirstCall)
    }

    /// The outcome of `turn` by `rule`: its first tool call, or its first `load_skill` call
    /// wherever it is in the reply.
    pub fn by(turn: &AssistantTurn, rule: TriggerRule) -> Outcome {
        let first = match rule {
            TriggerRule::FirstCall => turn.tool_calls.first(),
            TriggerRule::FirstReply => turn
                .tool_calls
                .iter()
                .find(|call| call.name == LOAD_SKILL)
                .or(turn.tool_calls.first()),
        };
        let Some(call) = first else {
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
    fn by_the_first_reply_rule_a_later_load_counts() {
        let glob = ("glob", json!({"pattern": "*"}));
        let load = ("load_skill", json!({"name": "alpha"}));
        let later = turn(&[glob.clone(), load]);
        assert_eq!(
            Outcome::by(&later, TriggerRule::FirstReply),
            Outcome::Loaded("alpha".into())
        );
        assert_eq!(
            Outcome::by(&later, TriggerRule::FirstCall),
            Outcome::NoSkill(Some("glob".into()))
        );
        assert_eq!(
            Outcome::by(&turn(&[glob]), TriggerRule::FirstReply),
            Outcome::NoSkill(Some("glob".into()))
        );
        assert_eq!("first-reply".parse(), Ok(TriggerRule::FirstReply));
        assert!("first".parse::<TriggerRule>().is_err());
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
