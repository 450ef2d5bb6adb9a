//! The tool calls of one turn run concurrently, bounded, with results in call order.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skills_runtime::agent::{
    Agent, BoxFuture, Permission, PermissionPolicy, Tool, ToolContext, ToolError, ToolErrorKind,
};
use skills_test_support::api_mock::{ApiMock, final_text, json_reply};
use skills_test_support::*;

/// What happened, in order: `ask <id>`, `start <id>`, `end <id>`.
type Events = Arc<Mutex<Vec<String>>>;

/// A tool that sleeps 300 ms, and fails when its input says so.
struct Nap {
    events: Events,
    permission: Permission,
}

impl Tool for Nap {
    fn name(&self) -> &str {
        "nap"
    }

    fn description(&self) -> &str {
        "Sleeps a while."
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"id": {"type": "string"}, "fail": {"type": "boolean"}}})
    }

    fn default_permission(&self) -> Permission {
        self.permission
    }

    fn call<'a>(
        &'a self,
        input: &'a Value,
        _: &'a ToolContext,
    ) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let id = input["id"].as_str().unwrap_or("?").to_owned();
            self.events.lock().unwrap().push(format!("start {id}"));
            tokio::time::sleep(Duration::from_millis(300)).await;
            self.events.lock().unwrap().push(format!("end {id}"));
            if input["fail"] == true {
                return Err(ToolError::new(ToolErrorKind::Io, format!("{id} failed")));
            }
            Ok(format!("slept {id}"))
        })
    }
}

/// One Anthropic reply asking for a `nap` per id (`!` in front: that call fails).
fn naps(ids: &[&str]) -> wiremock::ResponseTemplate {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| {
            let name = id.trim_start_matches('!');
            json!({"type": "tool_use", "id": format!("toolu_{name}"), "name": "nap",
                   "input": {"id": name, "fail": id.starts_with('!')}})
        })
        .collect();
    json_reply(200, &anthropic_message(json!(calls), "tool_use", 1, 1))
}

/// Runs one turn of `ids` then a final answer; returns the time taken, the tool_result
/// blocks of the second request and the events.
async fn run_naps(
    ids: &[&str],
    parallel: Option<usize>,
    permission: Permission,
    policy: PermissionPolicy,
    events: Events,
) -> (Duration, Vec<Value>, Vec<String>) {
    let dir = project();
    let server = ApiMock::start(vec![naps(ids), final_text("done")]).await;
    let (provider, _) = anthropic(&server.url());
    let mut builder = Agent::builder(Arc::new(provider))
        .workdir(dir.path())
        .permissions(policy)
        .tool(Arc::new(Nap {
            events: Arc::clone(&events),
            permission,
        }));
    if let Some(n) = parallel {
        builder = builder.max_parallel_tools(n);
    }
    let agent = builder.build().unwrap();
    let started = Instant::now();
    let out = agent.run(&mut agent.session(), "nap").await.unwrap();
    let elapsed = started.elapsed();
    assert_eq!(out.text, "done");
    assert_eq!(out.tool_calls, ids.len() as u32);
    let requests = server.requests().await;
    assert_eq!(requests.len(), 2);
    let second = requests[1].json();
    let results = second["messages"][2]["content"].as_array().unwrap().clone();
    let events = events.lock().unwrap().clone();
    (elapsed, results, events)
}

fn ids_and_texts(results: &[Value]) -> Vec<(String, String)> {
    results
        .iter()
        .map(|r| {
            assert_eq!(r["type"], "tool_result");
            (
                r["tool_use_id"].as_str().unwrap().to_owned(),
                r["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn three_calls_of_a_turn_run_at_once_and_answer_in_call_order() {
    let (elapsed, results, events) = run_naps(
        &["a", "b", "c"],
        None,
        Permission::Allow,
        PermissionPolicy::new(),
        Events::default(),
    )
    .await;
    assert!(elapsed < Duration::from_millis(750), "took {elapsed:?}");
    assert_eq!(
        ids_and_texts(&results),
        [
            ("toolu_a".to_owned(), "slept a".to_owned()),
            ("toolu_b".to_owned(), "slept b".to_owned()),
            ("toolu_c".to_owned(), "slept c".to_owned()),
        ]
    );
    // All three started before the first ended.
    assert_eq!(&events[..3], ["start a", "start b", "start c"]);
}

#[tokio::test]
async fn a_limit_of_one_runs_the_calls_one_after_another() {
    let (elapsed, results, events) = run_naps(
        &["a", "b", "c"],
        Some(1),
        Permission::Allow,
        PermissionPolicy::new(),
        Events::default(),
    )
    .await;
    assert!(elapsed > Duration::from_millis(850), "took {elapsed:?}");
    assert_eq!(
        events,
        ["start a", "end a", "start b", "end b", "start c", "end c"]
    );
    let ids: Vec<_> = ids_and_texts(&results).into_iter().map(|r| r.0).collect();
    assert_eq!(ids, ["toolu_a", "toolu_b", "toolu_c"]);
}

#[tokio::test]
async fn a_limit_of_two_runs_two_at_a_time() {
    let (elapsed, _, events) = run_naps(
        &["a", "b", "c"],
        Some(2),
        Permission::Allow,
        PermissionPolicy::new(),
        Events::default(),
    )
    .await;
    assert!(elapsed > Duration::from_millis(550), "took {elapsed:?}");
    assert_eq!(&events[..2], ["start a", "start b"]);
    assert!(events[2].starts_with("end"), "{events:?}");
}

#[tokio::test]
async fn a_failing_call_leaves_the_others_results_intact() {
    let (elapsed, results, _) = run_naps(
        &["a", "!b", "c"],
        None,
        Permission::Allow,
        PermissionPolicy::new(),
        Events::default(),
    )
    .await;
    assert!(elapsed < Duration::from_millis(750), "took {elapsed:?}");
    let texts = ids_and_texts(&results);
    assert_eq!(texts[0], ("toolu_a".to_owned(), "slept a".to_owned()));
    assert_eq!(texts[2], ("toolu_c".to_owned(), "slept c".to_owned()));
    assert_eq!(texts[1].0, "toolu_b");
    assert!(texts[1].1.contains("b failed"), "{}", texts[1].1);
    assert_eq!(results[1]["is_error"], true);
    assert!(results[0].get("is_error").is_none_or(|e| e == false));
    assert!(results[2].get("is_error").is_none_or(|e| e == false));
}

#[tokio::test]
async fn approvals_are_asked_in_call_order_before_any_call_runs() {
    let events = Events::default();
    let asked = Arc::clone(&events);
    // The approver writes into the same log as the tool.
    let policy = PermissionPolicy::new().with_approver(Arc::new(move |call| {
        let id = call.input["id"].as_str().unwrap_or("?");
        asked.lock().unwrap().push(format!("ask {id}"));
        id != "b"
    }));
    let (elapsed, results, events) =
        run_naps(&["a", "b", "c"], None, Permission::Ask, policy, events).await;
    assert!(elapsed < Duration::from_millis(750), "took {elapsed:?}");
    // Every approval first, one at a time in call order; the declined call never runs, the
    // approved ones run together.
    assert_eq!(
        &events[..5],
        ["ask a", "ask b", "ask c", "start a", "start c"]
    );
    assert!(!events.iter().any(|e| e == "start b"), "{events:?}");
    let texts = ids_and_texts(&results);
    assert_eq!(texts[0].1, "slept a");
    assert!(texts[1].1.contains("declined"), "{}", texts[1].1);
    assert_eq!(texts[2].1, "slept c");
}
