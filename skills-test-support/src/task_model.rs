//! A model on wiremock that works task cases by a script: the first route whose word the task
//! (the first user message) holds gives its steps, one per turn (a turn is the number of
//! assistant messages the request already holds). `Load(skill)` calls `load_skill` only when
//! the system prompt's catalog lists the skill; otherwise the model gives up and answers, so a
//! run without the skill ends there. A request offering the `grade` tool is the grader's, and
//! is answered by [`Grading`]. Both wire formats, streamed or not, with the JSON of the real
//! APIs (`router::reply`); every reply counts 100 input and 10 output tokens.

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::router::{self, Call};

/// One turn of a script.
#[derive(Clone, Debug)]
pub enum Step {
    /// `load_skill(name)` when the catalog lists it, else the answer "no skill for this".
    Load(&'static str),
    /// `write_file(path, content)`.
    Write(&'static str, &'static str),
    /// `bash(command)`.
    Bash(&'static str),
    /// The final answer.
    Answer(&'static str),
}

/// How the grader answers.
#[derive(Clone, Copy, Debug)]
pub enum Grading {
    /// Every assertion passes.
    AllPass,
    /// Every assertion fails.
    AllFail,
    /// A `grade` call whose grades lack `evidence`.
    Unreadable,
    /// Text, no `grade` call.
    NoCall,
}

struct Script {
    routes: Vec<(&'static str, Vec<Step>)>,
    grading: Grading,
}

/// The text of the system prompt of a request of either format.
pub fn system_text(body: &Value) -> String {
    match &body["system"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => body["messages"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["role"] == "system"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_owned(),
    }
}

/// The text of the first user message of a request of either format.
pub fn task_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The names of the tools a request offers, in either format.
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().or(t["function"]["name"].as_str()))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// How many assistant turns a request holds.
fn turn(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count())
}

impl Script {
    fn grade(&self, body: &Value) -> (String, Call) {
        let message = task_text(body);
        let count = message
            .split("\n## Assertions\n")
            .nth(1)
            .unwrap_or("")
            .lines()
            .filter(|l| l.split_once(". ").is_some())
            .count();
        let grades = |passed: bool| -> Value {
            (1..=count)
                .map(|n| json!({"assertion": n, "passed": passed, "evidence": format!("mock grader on {n}")}))
                .collect()
        };
        match self.grading {
            Grading::AllPass => (
                String::new(),
                Some(("grade", json!({"grades": grades(true)}))),
            ),
            Grading::AllFail => (
                String::new(),
                Some(("grade", json!({"grades": grades(false)}))),
            ),
            Grading::Unreadable => (
                String::new(),
                Some((
                    "grade",
                    json!({"grades": [{"assertion": 1, "passed": true}]}),
                )),
            ),
            Grading::NoCall => ("Everything looks fine to me.".to_owned(), None),
        }
    }

    fn step(&self, body: &Value) -> (String, Call) {
        let task = router::words(&task_text(body));
        let steps = self
            .routes
            .iter()
            .find(|(word, _)| task.iter().any(|w| w == word))
            .map(|(_, steps)| steps.as_slice())
            .unwrap_or(&[]);
        let answer = |text: &str| (text.to_owned(), None);
        match steps.get(turn(body)) {
            None => answer("done"),
            Some(Step::Answer(text)) => answer(text),
            Some(Step::Load(name)) => {
                if system_text(body).contains(&format!("- {name}: ")) {
                    (String::new(), Some(("load_skill", json!({"name": name}))))
                } else {
                    answer("no skill for this")
                }
            }
            Some(Step::Write(path, content)) => (
                String::new(),
                Some(("write_file", json!({"path": path, "content": content}))),
            ),
            Some(Step::Bash(command)) => {
                (String::new(), Some(("bash", json!({"command": command}))))
            }
        }
    }
}

impl Respond for Script {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let anthropic = request.url.path().ends_with("/v1/messages");
        let stream = body["stream"] == true;
        let (text, call) = if tool_names(&body).iter().any(|t| t == "grade") {
            self.grade(&body)
        } else {
            self.step(&body)
        };
        router::reply(anthropic, stream, &text, &call)
    }
}

/// The scripted model on 127.0.0.1.
pub struct TaskModel {
    server: MockServer,
}

impl TaskModel {
    /// Works tasks by `routes` (a word of the task, its steps), grades by `grading`.
    pub async fn start(routes: Vec<(&'static str, Vec<Step>)>, grading: Grading) -> TaskModel {
        let server = MockServer::start().await;
        Mock::given(any())
            .respond_with(Script { routes, grading })
            .mount(&server)
            .await;
        TaskModel { server }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.server.uri()
    }

    /// The body of every request received so far, as JSON, in order.
    pub async fn bodies(&self) -> Vec<Value> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null))
            .collect()
    }

    /// How many requests it received.
    pub async fn count(&self) -> usize {
        self.server.received_requests().await.map_or(0, |r| r.len())
    }
}
