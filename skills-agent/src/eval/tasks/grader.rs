//! The grader: a model that judges a run's string assertions from the task, the transcript,
//! the final answer and the files the run changed, answering through the tool [`GRADE_TOOL`]
//! with a strict schema. A reply that does not follow it is an error, never a pass.

use std::fmt::Write;

use serde_json::{Value, json};

use super::report::{ChangedFile, Expectation, TranscriptEntry};
use crate::conversation::{Message, Usage};
use crate::provider::api::{Provider, Request, ToolDefinitions};

/// The tool the grader answers with.
pub(crate) const GRADE_TOOL: &str = "grade";

/// What the grader is told to do.
pub(crate) const GRADER_PROMPT: &str = "You grade the work of a software agent. You are given \
the task it was set, what a good result looks like, its transcript, its final answer and the \
files it changed, then numbered assertions. Decide for each assertion whether it holds, from \
this material only. A pass needs concrete evidence: quote or point at it. If the material does \
not show that an assertion holds, it fails. Answer by calling the tool `grade` once, with one \
entry per assertion.";

/// The most characters of material the grader gets, so a huge run cannot make a request that no
/// model accepts.
const MAX_MATERIAL: usize = 60_000;

/// The grade tool's definitions.
pub(crate) fn tools() -> ToolDefinitions {
    let mut tools = ToolDefinitions::new();
    let schema = json!({
        "type": "object",
        "properties": {
            "grades": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "assertion": {"type": "integer", "minimum": 1,
                                      "description": "The assertion's number"},
                        "passed": {"type": "boolean"},
                        "evidence": {"type": "string",
                                     "description": "What shows it: a quote, a file, a line"}
                    },
                    "required": ["assertion", "passed", "evidence"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["grades"],
        "additionalProperties": false
    });
    // A fixed schema always renders.
    let _ = tools.push(
        GRADE_TOOL,
        "Record whether each numbered assertion holds, with the evidence.",
        &schema,
    );
    tools
}

/// What the grader is shown of one run.
pub(crate) struct Material<'a> {
    pub(crate) prompt: &'a str,
    pub(crate) expected_output: &'a str,
    pub(crate) transcript: &'a [TranscriptEntry],
    pub(crate) answer: &'a str,
    pub(crate) changed_files: &'a [ChangedFile],
}

/// The user message of the grading request.
pub(crate) fn message(material: &Material<'_>, assertions: &[&str]) -> String {
    let mut body = String::new();
    let _ = writeln!(body, "## Transcript");
    for entry in material.transcript {
        let _ = writeln!(body, "[{}] {}", entry.role, entry.text);
    }
    let _ = writeln!(body, "\n## Files the agent changed");
    if material.changed_files.is_empty() {
        let _ = writeln!(body, "(none)");
    }
    for file in material.changed_files {
        let _ = writeln!(body, "### {} ({})", file.path, file.change);
        if let Some(content) = &file.content {
            let _ = writeln!(body, "{content}");
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "## Task\n{}\n", material.prompt);
    if !material.expected_output.is_empty() {
        let _ = writeln!(out, "## A good result\n{}\n", material.expected_output);
    }
    out.push_str(&crate::tools::clip(&body, MAX_MATERIAL));
    let _ = writeln!(
        out,
        "\n## Final answer\n{}\n",
        crate::tools::clip(material.answer, 8000)
    );
    let _ = writeln!(out, "## Assertions");
    for (i, assertion) in assertions.iter().enumerate() {
        let _ = writeln!(out, "{}. {assertion}", i + 1);
    }
    out
}

/// Asks `grader` about `assertions` and returns one expectation per assertion, in order, and
/// the request's usage; an error (the request failed, or the reply does not follow the schema)
/// is a message.
pub(crate) async fn grade(
    grader: &dyn Provider,
    material: &Material<'_>,
    assertions: &[&str],
) -> (Result<Vec<Expectation>, String>, Usage) {
    let tools = tools();
    let messages = [Message::User(message(material, assertions))];
    let request = Request::new(GRADER_PROMPT, &tools, &messages);
    match grader.complete(request).await {
        Ok(response) => {
            let call = response
                .turn
                .tool_calls
                .iter()
                .find(|call| call.name == GRADE_TOOL);
            let result = match call {
                Some(call) => read(&call.input, assertions),
                None => Err(format!(
                    "the grader did not call `{GRADE_TOOL}`; it answered: {}",
                    crate::terminal_line(&response.turn.text, 200)
                )),
            };
            (result, response.usage)
        }
        Err(error) => (
            Err(format!("the grading request failed: {error}")),
            Usage::default(),
        ),
    }
}

/// The grades of a `grade` call's input: exactly one per assertion, each with a boolean
/// `passed` and a non-empty `evidence`.
pub(crate) fn read(input: &Value, assertions: &[&str]) -> Result<Vec<Expectation>, String> {
    let unreadable = |why: String| Err(format!("the grader's reply cannot be read: {why}"));
    let Some(grades) = input.get("grades").and_then(Value::as_array) else {
        return unreadable("no `grades` array".to_owned());
    };
    let mut out: Vec<Option<Expectation>> = vec![None; assertions.len()];
    for grade in grades {
        let number = grade.get("assertion").and_then(Value::as_u64);
        let passed = grade.get("passed").and_then(Value::as_bool);
        let evidence = grade
            .get("evidence")
            .and_then(Value::as_str)
            .filter(|e| !e.trim().is_empty());
        let (Some(number), Some(passed), Some(evidence)) = (number, passed, evidence) else {
            return unreadable(format!(
                "a grade without an assertion number, a boolean `passed` or an `evidence`: {}",
                crate::terminal_line(&grade.to_string(), 200)
            ));
        };
        let Some(slot) = usize::try_from(number)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| out.get_mut(i))
        else {
            return unreadable(format!(
                "a grade for assertion {number}, which does not exist"
            ));
        };
        if slot.is_some() {
            return unreadable(format!("two grades for assertion {number}"));
        }
        *slot = Some(Expectation {
            text: assertions[(number - 1) as usize].to_owned(),
            passed,
            evidence: evidence.to_owned(),
            graded: true,
        });
    }
    let missing: Vec<String> = out
        .iter()
        .enumerate()
        .filter(|(_, g)| g.is_none())
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if !missing.is_empty() {
        return unreadable(format!("no grade for assertion {}", missing.join(", ")));
    }
    Ok(out.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_complete_grade_for_every_assertion_reads() {
        let assertions = ["a", "b"];
        let good = json!({"grades": [
            {"assertion": 2, "passed": false, "evidence": "no b"},
            {"assertion": 1, "passed": true, "evidence": "a is there"}]});
        let read_back = read(&good, &assertions).unwrap();
        assert_eq!(
            read_back
                .iter()
                .map(|e| (e.text.as_str(), e.passed, e.evidence.as_str()))
                .collect::<Vec<_>>(),
            [("a", true, "a is there"), ("b", false, "no b")]
        );
        for bad in [
            json!({}),
            json!({"grades": "yes"}),
            json!({"grades": [{"assertion": 1, "passed": true, "evidence": "x"}]}),
            json!({"grades": [{"assertion": 1, "passed": "true", "evidence": "x"},
                              {"assertion": 2, "passed": true, "evidence": "x"}]}),
            json!({"grades": [{"assertion": 1, "passed": true, "evidence": " "},
                              {"assertion": 2, "passed": true, "evidence": "x"}]}),
            json!({"grades": [{"assertion": 1, "passed": true, "evidence": "x"},
                              {"assertion": 1, "passed": true, "evidence": "x"}]}),
            json!({"grades": [{"assertion": 3, "passed": true, "evidence": "x"}]}),
            json!({"grades": [{"assertion": 0, "passed": true, "evidence": "x"}]}),
        ] {
            let error = read(&bad, &assertions).unwrap_err();
            assert!(
                error.starts_with("the grader's reply cannot be read"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn the_message_holds_the_material_and_numbers_the_assertions() {
        let transcript = [TranscriptEntry {
            role: "user".into(),
            text: "do it".into(),
        }];
        let changed = [ChangedFile {
            path: "out.txt".into(),
            change: "added".into(),
            content: Some("42".into()),
        }];
        let text = message(
            &Material {
                prompt: "Sum it",
                expected_output: "the sum",
                transcript: &transcript,
                answer: "It is 42",
                changed_files: &changed,
            },
            &["The sum is 42", "It says so"],
        );
        for part in [
            "## Task\nSum it",
            "## A good result\nthe sum",
            "[user] do it",
            "### out.txt (added)\n42",
            "## Final answer\nIt is 42",
            "1. The sum is 42\n2. It says so",
        ] {
            assert!(text.contains(part), "{part} missing from:\n{text}");
        }
    }
}
