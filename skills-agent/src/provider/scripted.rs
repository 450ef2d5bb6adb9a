//! A scripted, offline stand-in for a model: the example agent's `demo` provider, and the
//! offline `demo` provider of `skills eval`.
//!
//! [`ScriptedModel`] implements [`Provider`] without calling any language model: it lets someone
//! with no API key and no network watch the real mechanism, and gives trigger evals a
//! word-overlap baseline that needs no model. It reads the catalog out of the
//! system prompt it receives, picks the skill whose description shares the most words with the
//! task, calls the real `load_skill`, lists the working directory with the real `glob`, reads one
//! file with the real `read_file`, and answers with what happened: which skill was loaded, how
//! big the prompt was, and how much skill text never entered it. Everything goes through the
//! agent loop, the permission policy and the tools like a real model's calls. Every answer starts
//! with [`LABEL`], which says so.
//!
//! It is stateless: each step is derived from the conversation it is sent. Token counts in its
//! usage are estimates (4 characters per token), since no tokenizer runs.
//!
//! A person's `/name arguments` reaches it as the skill's text (what
//! [`Registry::invoke`](skills_bundle::Registry::invoke) renders): it takes the skill as loaded
//! already and the arguments as the task.
//!
//! For the task evals it also stands in for the grader ([`GRADER_LABEL`]): offered only the
//! `grade` tool, it passes an assertion when every word of it (of four letters or more, stop
//! words left out) appears in what the agent did (its transcript, answer and changed files),
//! and quotes the words as evidence. A word-match baseline, not a judgement: the demo's task
//! numbers say what loading a skill changes in this scripted agent's answer, nothing about a
//! language model.
//!
//! It is a demonstration and a baseline, not a model: it understands nothing.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use skills_bundle::Skill;

use crate::BoxFuture;
use crate::conversation::{AssistantTurn, Message, ToolCall, ToolResult, Usage};
use crate::error::ApiError;
use crate::events::AgentEvent;
use crate::provider::api::{Provider, Request, Response};

/// The label every answer of the scripted model starts with.
pub const LABEL: &str = "[demo provider: scripted and offline. No language model was called; \
the tool calls below really ran through the agent loop.]";

/// The label every piece of evidence of the scripted grader starts with.
pub const GRADER_LABEL: &str = "[demo grader: word match, no language model]";

/// The scripted, offline model (provider name `demo`, model `scripted-demo`).
#[derive(Clone, Debug, Default)]
pub struct ScriptedModel {
    skills: Option<Vec<&'static Skill>>,
}

impl ScriptedModel {
    /// A scripted model. It knows only what the conversation tells it.
    pub fn new() -> Self {
        ScriptedModel::default()
    }

    /// Also tells it the bundle's bodies (`&REGISTRY` works), so the final answer can say how
    /// many characters of instructions stayed out of the prompt. (It still picks a skill from the
    /// catalog in the system prompt, as a model would.)
    pub fn with_skills(skills: impl IntoIterator<Item = &'static Skill>) -> Self {
        ScriptedModel {
            skills: Some(skills.into_iter().collect()),
        }
    }

    fn step(&self, request: Request<'_>) -> AssistantTurn {
        if request.tools.names() == ["grade"] {
            return grade(request);
        }
        let messages = request.messages;
        let start = messages
            .iter()
            .rposition(|m| matches!(m, Message::User(_)))
            .unwrap_or(0);
        let prompt = match messages.get(start) {
            Some(Message::User(text)) => text.as_str(),
            _ => "",
        };
        let since: &[Message] = messages.get(start + 1..).unwrap_or(&[]);
        let calls_made: Vec<&ToolCall> = since
            .iter()
            .filter_map(|m| match m {
                Message::Assistant(turn) => Some(turn.tool_calls.iter()),
                _ => None,
            })
            .flatten()
            .collect();
        let results: Vec<&ToolResult> = since
            .iter()
            .filter_map(|m| match m {
                Message::ToolResults(results) => Some(results.iter()),
                _ => None,
            })
            .flatten()
            .collect();
        let made = |name: &str| calls_made.iter().any(|c| c.name == name);
        let offered = |name: &str| request.tools.contains(name);
        let step = calls_made.len();
        // A person's `/name arguments`: the skill is there already, its arguments are the task.
        let task = Invocation::of(prompt).map_or(prompt, |invoked| invoked.task);

        if !made("load_skill") && !made("glob") && !made("read_file") {
            if offered("load_skill")
                && Invocation::of(prompt).is_none()
                && let Some((skill, _)) = best_skill(request.system, prompt)
            {
                return call(step, "load_skill", json!({"name": skill}));
            }
            if offered("glob") {
                return call(step, "glob", json!({"pattern": glob_pattern(task)}));
            }
        }
        if !made("glob") && offered("glob") {
            return call(step, "glob", json!({"pattern": glob_pattern(task)}));
        }
        if !made("read_file") && offered("read_file") {
            // A failed listing names no file.
            let listing = result_of(&calls_made, &results, "glob")
                .filter(|listing| !listing.starts_with("error"))
                .unwrap_or("");
            if let Some(path) = pick_file(task, listing) {
                return call(step, "read_file", json!({"path": path, "limit": 80}));
            }
        }
        AssistantTurn {
            text: self.answer(request, prompt, &calls_made, &results),
            tool_calls: Vec::new(),
            raw: None,
            stop_reason: Some("end_turn".to_owned()),
        }
    }

    fn answer(
        &self,
        request: Request<'_>,
        prompt: &str,
        calls: &[&ToolCall],
        results: &[&ToolResult],
    ) -> String {
        let catalog = catalog(request.system);
        let invoked = Invocation::of(prompt);
        let mut out = match &invoked {
            Some(invoked) => format!(
                "{LABEL}\n\nYou invoked /{} with the arguments `{}`.\n\n",
                invoked.skill, invoked.task
            ),
            None => format!("{LABEL}\n\nTask: {prompt}\n\n"),
        };
        out.push_str(&format!(
            "1. The system prompt I was sent is {} characters: a preamble and a catalog of {} \
             skill(s), one line each. No skill's instructions were in it.\n",
            request.system.len(),
            catalog.len()
        ));
        let skill_call = calls.iter().find(|c| c.name == "load_skill");
        if let Some(invoked) = &invoked {
            out.push_str(&format!(
                "2. Your /{} put the skill's instructions ({} characters) into this turn's \
                 message, so I did not call load_skill: the skill is in the conversation \
                 already.\n",
                invoked.skill,
                prompt.len()
            ));
        }
        match (skill_call, result_of(calls, results, "load_skill")) {
            _ if invoked.is_some() => {}
            (Some(call), Some(text)) if !text.starts_with('<') && !text.starts_with("error") => {
                let name = call
                    .input
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                out.push_str(&format!(
                    "2. The task matches \"{name}\" again, so I called load_skill(\"{name}\"); it \
                     was loaded earlier in this conversation, so the result was a short note ({} \
                     characters), not its instructions a second time.\n",
                    text.len()
                ));
            }
            (Some(call), Some(text)) if !text.starts_with("error") => {
                let name = call
                    .input
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                let shared = best_skill(request.system, prompt)
                    .map(|(_, words)| words.join(", "))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "2. The task shares the words [{shared}] with the catalog entry of \
                     \"{name}\", so I called load_skill(\"{name}\"). Its instructions ({} \
                     characters) entered the conversation only now, as a tool result.\n",
                    text.len()
                ));
                if let Some(skills) = &self.skills {
                    let others: Vec<_> = skills.iter().filter(|s| s.name() != name).collect();
                    let chars: usize = others.iter().map(|s| s.body().len()).sum();
                    out.push_str(&format!(
                        "   The other {} skill(s) hold {chars} characters of instructions that \
                         were never sent.\n",
                        others.len()
                    ));
                }
                let steps: Vec<&str> = text
                    .lines()
                    .skip(1)
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with("</skill"))
                    .take(6)
                    .collect();
                if !steps.is_empty() {
                    out.push_str("   The skill begins:\n");
                    for line in steps {
                        out.push_str(&format!("     | {line}\n"));
                    }
                }
                // The skill's numbered sections: the steps a model following it would take.
                let sections: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("## "))
                    .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
                    .collect();
                if !sections.is_empty() {
                    out.push_str(&format!(
                        "   Its steps, which I would follow: {}\n",
                        sections.join("; ")
                    ));
                }
            }
            (Some(_), Some(error)) => {
                out.push_str(&format!("2. load_skill failed: {error}\n"));
            }
            _ => out.push_str(
                "2. No skill in the catalog shares enough words with the task, so none was \
                 loaded (a real model would decide this from the descriptions).\n",
            ),
        }
        if let Some(listing) = result_of(calls, results, "glob") {
            let files = listing
                .lines()
                .filter(|l| {
                    !l.starts_with('(') && !l.starts_with("error") && !l.starts_with("no files")
                })
                .count();
            let pattern = calls
                .iter()
                .find(|c| c.name == "glob")
                .and_then(|c| c.input.get("pattern"))
                .and_then(Value::as_str)
                .unwrap_or("**/*");
            out.push_str(&format!(
                "3. glob(\"{pattern}\") listed {files} file(s) in the working directory.\n"
            ));
        }
        let read = calls.iter().find(|c| c.name == "read_file");
        if let (Some(call), Some(text)) = (read, result_of(calls, results, "read_file")) {
            let path = call
                .input
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or("?");
            if text.starts_with("error") {
                out.push_str(&format!("4. read_file(\"{path}\") failed: {text}\n"));
            } else {
                let lines = text.lines().filter(|l| !l.starts_with('(')).count();
                let items: Vec<String> = text
                    .lines()
                    .filter_map(|l| l.split_once('\t').map(|(_, code)| code.trim()))
                    .filter(|code| looks_like_item(code))
                    .take(8)
                    .map(|code| code.trim_end_matches(['{', ' ']).to_owned())
                    .collect();
                out.push_str(&format!(
                    "4. read_file(\"{path}\") returned {lines} line(s)."
                ));
                if !items.is_empty() {
                    out.push_str(" Items seen:\n");
                    for item in items {
                        out.push_str(&format!("     - {item}\n"));
                    }
                } else {
                    out.push('\n');
                }
            }
        }
        out.push_str(
            "\nA real model would now carry out the skill's instructions on these files. Set \
             ANTHROPIC_API_KEY, or OPENAI_BASE_URL for a local model server, to run one.",
        );
        out
    }
}

impl Provider for ScriptedModel {
    fn name(&self) -> &'static str {
        "demo"
    }

    fn model(&self) -> &str {
        "scripted-demo"
    }

    fn complete<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response, ApiError>> {
        Box::pin(async move {
            let turn = self.step(request);
            // Asked to stream, it sends its text a line at a time through the same event path
            // a streaming provider uses, so the offline demo prints as a real model would.
            if let Some(sink) = request.events {
                for line in turn.text.split_inclusive('\n') {
                    sink(&AgentEvent::TextDelta(line));
                }
            }
            let input_chars = request.system.len()
                + request
                    .messages
                    .iter()
                    .map(Message::text_len)
                    .sum::<usize>();
            let output_chars = Message::Assistant(turn.clone()).text_len();
            Ok(Response {
                turn,
                usage: Usage {
                    input_tokens: (input_chars / 4) as u64,
                    output_tokens: (output_chars / 4) as u64,
                    requests: 1,
                    ..Usage::default()
                },
                retries: 0,
            })
        })
    }
}

/// A person's `/name arguments` as it reaches the model: the skill's text, as
/// [`Registry::invoke`](skills_bundle::Registry::invoke) renders it, wrapped in
/// `<skill name="...">`, with the arguments on a last `ARGUMENTS:` line when the text had no
/// placeholder for them.
struct Invocation<'a> {
    skill: &'a str,
    /// The arguments, or the whole text when they were substituted into it.
    task: &'a str,
}

impl<'a> Invocation<'a> {
    fn of(prompt: &'a str) -> Option<Invocation<'a>> {
        let rest = prompt.strip_prefix("<skill name=\"")?;
        let skill = &rest[..rest.find('"')?];
        let task = prompt
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix("ARGUMENTS: "))
            .unwrap_or(prompt);
        Some(Invocation { skill, task })
    }
}

/// The scripted grader's answer to a grading request: one `grade` call, an assertion passing when
/// every word of it is in the material after the task (transcript, changed files, answer).
fn grade(request: Request<'_>) -> AssistantTurn {
    let text = match request.messages.first() {
        Some(Message::User(text)) => text.as_str(),
        _ => "",
    };
    let material = text
        .split_once("## Transcript")
        .map_or("", |(_, rest)| rest)
        .split("\n## Assertions")
        .next()
        .unwrap_or("");
    let seen = words(material);
    let assertions = text.split("\n## Assertions\n").nth(1).unwrap_or("");
    let grades: Vec<Value> = assertions
        .lines()
        .filter_map(|line| line.split_once(". "))
        .filter_map(|(number, assertion)| Some((number.trim().parse::<u64>().ok()?, assertion)))
        .map(|(number, assertion)| {
            let wanted: Vec<String> = words(assertion)
                .into_iter()
                .filter(|w| w.len() >= 4)
                .collect();
            let missing: Vec<&String> = wanted.iter().filter(|w| !seen.contains(*w)).collect();
            let evidence = if missing.is_empty() {
                format!(
                    "{GRADER_LABEL} every word is in what the agent did: {}",
                    wanted.join(", ")
                )
            } else {
                let missing: Vec<&str> = missing.iter().map(|w| w.as_str()).collect();
                format!(
                    "{GRADER_LABEL} not in what the agent did: {}",
                    missing.join(", ")
                )
            };
            json!({"assertion": number, "passed": missing.is_empty() && !wanted.is_empty(),
                   "evidence": evidence})
        })
        .collect();
    call(0, "grade", json!({ "grades": grades }))
}

fn call(step: usize, name: &str, input: Value) -> AssistantTurn {
    AssistantTurn {
        text: String::new(),
        tool_calls: vec![ToolCall {
            id: format!("demo_{step}"),
            name: name.to_owned(),
            input,
        }],
        raw: None,
        stop_reason: Some("tool_use".to_owned()),
    }
}

/// The result text of the first call of `tool`.
fn result_of<'a>(calls: &[&ToolCall], results: &[&'a ToolResult], tool: &str) -> Option<&'a str> {
    let call = calls.iter().find(|c| c.name == tool)?;
    results
        .iter()
        .find(|r| r.call_id == call.id)
        .map(|r| r.content.as_str())
}

/// `(name, description)` pairs of the Markdown catalog in a system prompt.
fn catalog(system: &str) -> Vec<(&str, &str)> {
    let Some(start) = system.find("Skills available:\n") else {
        return Vec::new();
    };
    system[start + "Skills available:\n".len()..]
        .lines()
        .take_while(|l| l.starts_with("- "))
        .filter_map(|l| l[2..].split_once(": "))
        .collect()
}

const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "this", "that", "use", "when", "you", "your", "are", "from",
    "into", "not", "its", "can", "all", "any", "but", "has", "have", "one", "our", "out", "was",
    "will", "what", "how", "why", "who", "some", "more", "most", "other", "about", "than", "then",
    "them", "they", "these", "those", "before", "after", "such", "via", "also", "only", "please",
    "just", "need", "needs",
];

fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP_WORDS.contains(&w.as_str()))
        .map(|w| {
            // A crude stem so "tests" meets "test" and "reviewing" meets "review".
            for suffix in ["ing", "es", "s"] {
                if w.len() > suffix.len() + 3 && w.ends_with(suffix) {
                    return w[..w.len() - suffix.len()].to_owned();
                }
            }
            w
        })
        .collect()
}

/// The catalog skill sharing the most words with `prompt` (its name counts double), with the
/// shared words; `None` when nothing is shared.
fn best_skill(system: &str, prompt: &str) -> Option<(String, Vec<String>)> {
    let prompt_words = words(prompt);
    catalog(system)
        .into_iter()
        .map(|(name, description)| {
            let name_words = words(&name.replace('-', " "));
            let mut shared: Vec<String> = words(description)
                .union(&name_words)
                .filter(|w| prompt_words.contains(*w))
                .cloned()
                .collect();
            shared.sort();
            let score = shared.len() + name_words.intersection(&prompt_words).count();
            (score, name.to_owned(), shared)
        })
        .filter(|(score, _, _)| *score > 0)
        // Highest score; on a tie the first name in catalog order.
        .fold(
            None::<(usize, String, Vec<String>)>,
            |best, item| match best {
                Some(b) if b.0 >= item.0 => Some(b),
                _ => Some(item),
            },
        )
        .map(|(_, name, shared)| (name, shared))
}

/// Words of the prompt with surrounding punctuation removed.
fn prompt_tokens(prompt: &str) -> impl Iterator<Item = &str> {
    let quote = |c: char| matches!(c, '"' | '\'' | '`' | ',' | ';' | ':' | '(' | ')');
    prompt
        .split_whitespace()
        // A sentence's final `.` goes, a leading one (`.env`) stays.
        .map(move |token| {
            token
                .trim_start_matches(quote)
                .trim_end_matches(|c| quote(c) || c == '.')
        })
        .filter(|token| !token.is_empty())
}

/// What to list: the file the task names (`review src/lib.rs`), else the whole tree.
fn glob_pattern(prompt: &str) -> String {
    prompt_tokens(prompt)
        .find(|token| {
            token.contains('.')
                && !token.starts_with('/')
                && !token.contains("..")
                && token
                    .chars()
                    .all(|c| c.is_alphanumeric() || "/._-".contains(c))
        })
        .unwrap_or("**/*")
        .to_owned()
}

/// A file to read: one the prompt names, else a likely entry point, else the first source file.
fn pick_file(prompt: &str, listing: &str) -> Option<String> {
    let files: Vec<&str> = listing
        .lines()
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with('(')
                && !l.starts_with("error")
                && !l.starts_with("no files")
        })
        .collect();
    for token in prompt_tokens(prompt) {
        // An exact path beats a file of the same name deeper in the tree.
        let exact = files.iter().find(|f| **f == token);
        let nested = || files.iter().find(|f| f.ends_with(&format!("/{token}")));
        if let Some(file) = exact.or_else(nested) {
            return Some((*file).to_owned());
        }
    }
    for preferred in ["src/lib.rs", "src/main.rs", "README.md", "Cargo.toml"] {
        if files.contains(&preferred) {
            return Some(preferred.to_owned());
        }
    }
    let source = [".rs", ".py", ".ts", ".js", ".go", ".md", ".toml", ".txt"];
    files
        .iter()
        .find(|f| source.iter().any(|ext| f.ends_with(ext)))
        .or(files.first())
        .map(|f| (*f).to_owned())
}

fn looks_like_item(code: &str) -> bool {
    const STARTS: &[&str] = &[
        "pub fn ",
        "fn ",
        "pub struct ",
        "struct ",
        "pub enum ",
        "enum ",
        "pub trait ",
        "trait ",
        "impl ",
        "pub mod ",
        "mod ",
        "def ",
        "class ",
        "function ",
        "func ",
        "# ",
        "## ",
    ];
    STARTS.iter().any(|s| code.starts_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_by_word_overlap() {
        let system = "Preamble.\n\nSkills available:\n- code-review: Review code for bugs and \
                      style.\n- write-tests: Write unit tests for a module.\n\nWhen a task...";
        assert_eq!(catalog(system).len(), 2);
        assert_eq!(
            best_skill(system, "please review src/lib.rs").unwrap().0,
            "code-review"
        );
        assert_eq!(
            best_skill(system, "add tests to the parser").unwrap().0,
            "write-tests"
        );
        assert!(best_skill(system, "hello there").is_none());
    }

    #[test]
    fn an_invocation_is_the_task_and_needs_no_load() {
        let text = "<skill name=\"code-review\" version=\"1.0\">\nReview it.\n\nARGUMENTS: \
                    src/lib.rs\n</skill>";
        let invoked = Invocation::of(text).unwrap();
        assert_eq!((invoked.skill, invoked.task), ("code-review", "src/lib.rs"));
        // Arguments substituted into the text: the whole text is the task.
        let inline = "<skill name=\"fix\">\nFix issue 12.\n</skill>";
        assert_eq!(Invocation::of(inline).unwrap().task, inline);
        assert!(Invocation::of("review src/lib.rs").is_none());
    }

    #[test]
    fn picks_named_file() {
        let listing = "Cargo.toml\nsrc/lib.rs\nsrc/main.rs";
        assert_eq!(pick_file("review main.rs", listing).unwrap(), "src/main.rs");
        assert_eq!(pick_file("review it", listing).unwrap(), "src/lib.rs");
        assert_eq!(pick_file("x", ""), None);
        // The exact path wins over a same-named file that sorts first.
        let nested = "skills-core/src/lib.rs\nsrc/lib.rs";
        assert_eq!(
            pick_file("review src/lib.rs", nested).unwrap(),
            "src/lib.rs"
        );
    }

    #[test]
    fn the_grader_passes_what_the_material_holds_word_for_word() {
        let tools = {
            let mut tools = crate::provider::api::ToolDefinitions::new();
            tools
                .push("grade", "grade", &json!({"type": "object"}))
                .unwrap();
            tools
        };
        let message = Message::User(
            "## Task\nreview parsers\n\n## Transcript\n[assistant] Checked the parser for \
             errors.\n\n## Final answer\nStep: Establish the scope\n\n## Assertions\n\
             1. The answer establishes the scope\n2. It mentions security\n3. a it\n"
                .to_owned(),
        );
        let messages = [message];
        let turn = grade(Request::new("grader", &tools, &messages));
        let grades = turn.tool_calls[0].input["grades"]
            .as_array()
            .unwrap()
            .clone();
        let passed: Vec<bool> = grades
            .iter()
            .map(|g| g["passed"].as_bool().unwrap())
            .collect();
        // "review" is in the task only, which does not count; a statement with no word to
        // look for cannot pass.
        assert_eq!(passed, [true, false, false]);
        assert!(
            grades[1]["evidence"]
                .as_str()
                .unwrap()
                .starts_with(GRADER_LABEL)
        );
        assert!(grades[1]["evidence"].as_str().unwrap().contains("security"));
    }

    #[test]
    fn globs_the_named_file_or_the_tree() {
        assert_eq!(glob_pattern("review src/lib.rs please"), "src/lib.rs");
        assert_eq!(glob_pattern("review `Cargo.toml`."), "Cargo.toml");
        assert_eq!(glob_pattern("review ../etc/passwd"), "**/*");
        assert_eq!(glob_pattern("review the code"), "**/*");
    }
}
