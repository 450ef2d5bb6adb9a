//! The scripted, offline `demo` model of this package driving the real loop, tools and
//! `load_skill` end to end.

use std::sync::Arc;

use skills_runtime::agent::provider::scripted::{LABEL, ScriptedModel};
use skills_runtime::agent::{Agent, AgentEvent, Message, PermissionPolicy};

static BUNDLE: skills_runtime::Registry = skills_runtime::embed_skills!("skills");

#[tokio::test]
async fn demo_loads_the_matching_skill_and_uses_the_real_tools() {
    let dir = skills_test_support::project();
    let agent = Agent::builder(Arc::new(ScriptedModel::with_skills(&BUNDLE)))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .permissions(PermissionPolicy::new())
        .build()
        .unwrap();
    // The catalog is in the prompt, no body is.
    assert!(agent.system_prompt().contains(BUNDLE.catalog()));
    for skill in BUNDLE.iter() {
        assert!(!agent.system_prompt().contains(skill.body()));
    }
    let mut session = agent.session();
    let out = agent
        .run(&mut session, "please review src/lib.rs for bugs")
        .await
        .unwrap();

    assert_eq!(out.skills_loaded, vec!["code-review"]);
    assert_eq!(out.turns, 4);
    assert_eq!(out.tool_calls, 3);
    assert!(out.text.starts_with(LABEL));
    assert!(
        out.text.contains("load_skill(\"code-review\")"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("read_file(\"src/lib.rs\")"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("pub fn add(a: i32, b: i32) -> i32"),
        "{}",
        out.text
    );
    // It reports the text that stayed out of the prompt: the other bodies' total.
    let others: usize = BUNDLE
        .iter()
        .filter(|s| s.name() != "code-review")
        .map(|s| s.body().len())
        .sum();
    assert!(
        out.text.contains(&format!("{others} characters")),
        "{}",
        out.text
    );

    // The real tool results are in the conversation: the skill body, then the listing, then
    // the file.
    let results: Vec<&str> = session
        .conversation()
        .messages()
        .iter()
        .filter_map(|m| match m {
            Message::ToolResults(r) => Some(r[0].content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 3);
    assert!(results[0].contains(BUNDLE.get("code-review").unwrap().body()));
    // The task names a file, so the listing is of that file.
    assert_eq!(results[1], "src/lib.rs");
    assert!(results[2].contains("a + b"));
}

#[tokio::test]
async fn demo_picks_another_skill_for_another_task() {
    let dir = skills_test_support::project();
    let agent = Agent::builder(Arc::new(ScriptedModel::new()))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .build()
        .unwrap();
    let out = agent
        .run(
            &mut agent.session(),
            "write unit tests for the add function",
        )
        .await
        .unwrap();
    assert_eq!(out.skills_loaded, vec!["write-tests"]);
    // Without a load_skill tool it does not call one.
    let plain = Agent::builder(Arc::new(ScriptedModel::new()))
        .skills(&BUNDLE)
        .without_load_skill()
        .workdir(dir.path())
        .build()
        .unwrap();
    let out = plain
        .run(&mut plain.session(), "review src/lib.rs")
        .await
        .unwrap();
    assert!(out.skills_loaded.is_empty());
    assert!(
        out.text.contains("none was loaded") || out.text.contains("No skill"),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn the_scripted_demo_model_streams_its_answer_in_pieces() {
    let dir = skills_test_support::project();
    let model = ScriptedModel::with_skills(&BUNDLE);
    let agent = Agent::builder(Arc::new(model))
        .skills(&BUNDLE)
        .workdir(dir.path())
        .stream(true)
        .build()
        .unwrap();
    let mut pieces = Vec::new();
    let out = agent
        .run_with_events(&mut agent.session(), "review src/lib.rs", |event| {
            if let AgentEvent::TextDelta(text) = event {
                pieces.push((*text).to_owned());
            }
        })
        .await
        .unwrap();
    assert!(pieces.len() > 3, "{pieces:?}");
    assert_eq!(pieces.concat(), out.text);
}
