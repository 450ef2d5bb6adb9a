//! A skill's `Bash(git diff:*)` pre-approval against commands that start with `git diff` and
//! make bash run something else: `${x@P}` prompt expansion and `$[...]` arithmetic on a
//! variable the same command assigns, neither of which contains `$(`, a backquote or a
//! chaining character. They are asked about (here: refused), never run on the pre-approval.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::json;
use skills_runtime::agent::{Agent, BashOptions, PermissionPolicy};
use skills_test_support::api_mock::{ApiMock, final_text, tool_use};
use skills_test_support::{anthropic, project};

static BUNDLE: skills_runtime::Registry =
    skills_runtime::embed_skills!("../skills-test-support/fixtures/pre-approval");

/// `${x@P}`: the assignment stores the text `$(touch pwned-p)`, prompt expansion runs it.
const PROMPT_EXPANSION: &str = r"git diff ${x:=\$\(touch\ pwned-p\)}${x@P}";
/// `$[y]`: the assignment stores `a[$(touch pwned-a)]`, arithmetic evaluates the subscript.
const ARITHMETIC: &str = r"git diff ${y:=a[\$\(touch\ pwned-a\)]}$[y]";

/// Runs the attack script with the skill active; `approve` answers every question. Returns
/// the commands the approver was asked about.
async fn run(dir: &Path, approve: bool) -> Vec<String> {
    let server = ApiMock::start(vec![
        tool_use("l1", "load_skill", json!({"name": "review-diff"})),
        tool_use("b0", "bash", json!({"command": "git diff --stat"})),
        tool_use("b1", "bash", json!({"command": PROMPT_EXPANSION})),
        tool_use("b2", "bash", json!({"command": ARITHMETIC})),
        final_text("reviewed"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let policy = PermissionPolicy::new().with_approver(Arc::new(move |call| {
        let command = call.input["command"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        seen.lock().unwrap().push(command);
        approve
    }));
    // Unconfined: the point is what runs without asking, not what a sandbox would stop.
    let agent = Agent::builder(Arc::new(provider))
        .skills(&BUNDLE)
        .workdir(dir)
        .permissions(policy)
        .bash(BashOptions::unconfined())
        .max_parallel_tools(1)
        .build()
        .unwrap();
    let mut session = agent.session();
    agent.run(&mut session, "review my changes").await.unwrap();
    asked.lock().unwrap().clone()
}

#[tokio::test]
async fn prompt_expansion_and_arithmetic_are_asked_about_not_pre_approved() {
    let dir = project();
    let asked = run(dir.path(), false).await;
    // The plain `git diff --stat` ran on the pre-approval; both attacks went to the person.
    assert_eq!(asked, [PROMPT_EXPANSION, ARITHMETIC]);
    assert!(!dir.path().join("pwned-p").exists());
    assert!(!dir.path().join("pwned-a").exists());

    // The payloads are live: approved by the person, the same calls run them.
    let dir = project();
    let asked = run(dir.path(), true).await;
    assert_eq!(asked, [PROMPT_EXPANSION, ARITHMETIC]);
    assert!(dir.path().join("pwned-p").exists());
    assert!(dir.path().join("pwned-a").exists());
}
