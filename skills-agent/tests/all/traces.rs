//! The spans of a run, exported by the `otlp` feature to a collector on 127.0.0.1 that decodes
//! the protobuf bodies with the protocol's own message types: the tree (run, turns, model
//! requests, tool calls, skills), OpenTelemetry's generative-AI attributes, and a model that
//! echoes the API key into a tool call's id, a tool's name and its answer without the key
//! reaching any byte the collector receives.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;
use skills_runtime::agent::telemetry::Otlp;
use skills_runtime::agent::{Agent, PermissionPolicy};
use skills_test_support::api_mock::{ApiMock, final_text, tool_use};
use skills_test_support::otlp::{self, Span, attribute};
use skills_test_support::{ANTHROPIC_KEY, anthropic, project};
use tracing_subscriber::layer::SubscriberExt as _;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");

/// An OTLP/HTTP collector: answers every export with an empty (valid) response.
async fn collector() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/traces"))
        .respond_with(
            ResponseTemplate::new(200).insert_header("content-type", "application/x-protobuf"),
        )
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn a_run_reaches_the_collector_as_a_tree_of_gen_ai_spans_without_the_key() {
    let receiver = collector().await;
    let otlp = Otlp::new(&receiver.uri(), "traces-test").unwrap();
    assert_eq!(otlp.url(), format!("{}/v1/traces", receiver.uri()));
    let _default =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(otlp.layer()));

    let dir = project();
    // The model puts the key in a call id, a tool's name and its answer.
    let server = ApiMock::start(vec![
        tool_use(
            &format!("toolu_{ANTHROPIC_KEY}"),
            "load_skill",
            json!({"name": "code-review"}),
        ),
        tool_use("t2", "read_file", json!({"path": "src/lib.rs"})),
        tool_use("t3", &format!("tool_{ANTHROPIC_KEY}"), json!({})),
        final_text(&format!("Done; the key was {ANTHROPIC_KEY}")),
        final_text("Tests written."),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&SKILLS)
        .workdir(dir.path())
        .permissions(PermissionPolicy::new())
        .build()
        .unwrap();
    let mut session = agent.session();
    agent.run(&mut session, "review src/lib.rs").await.unwrap();
    agent
        .invoke(&mut session, "write-tests", "src/lib.rs")
        .await
        .unwrap();
    otlp.flush().unwrap();

    let bodies: Vec<Vec<u8>> = receiver
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .map(|request| {
            assert_eq!(
                request
                    .headers
                    .get("content-type")
                    .map(|v| v.to_str().unwrap()),
                Some("application/x-protobuf")
            );
            request.body
        })
        .collect();
    assert!(!bodies.is_empty());
    for body in &bodies {
        let text = String::from_utf8_lossy(body);
        assert!(
            !text.contains(ANTHROPIC_KEY),
            "the key reached the collector"
        );
        assert!(
            !text.contains("0123456789-SECRET"),
            "a piece of the key reached it"
        );
    }
    let (spans, services) = otlp::received(&bodies);
    assert!(!services.is_empty());
    assert!(services.iter().all(|s| s == "traces-test"), "{services:?}");
    let by_id: HashMap<Vec<u8>, &Span> = spans.iter().map(|s| (s.span_id.clone(), s)).collect();
    let parent = |span: &Span| by_id.get(&span.parent_span_id).map(|p| p.name.as_str());
    let named = |name: &str| spans.iter().filter(|s| s.name == name).collect::<Vec<_>>();

    // Two runs, one trace each; the run is the root.
    let runs = named("invoke_agent");
    assert_eq!(
        runs.len(),
        2,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    for run in &runs {
        assert!(run.parent_span_id.is_empty());
        assert_eq!(
            attribute(run, "gen_ai.operation.name").as_deref(),
            Some("invoke_agent")
        );
        assert_eq!(
            attribute(run, "gen_ai.provider.name").as_deref(),
            Some("anthropic")
        );
        assert_eq!(
            attribute(run, "gen_ai.request.model").as_deref(),
            Some("claude-test-model")
        );
        assert_eq!(
            attribute(run, "gen_ai.conversation.id").as_deref(),
            Some(session.id())
        );
        // The bundle has no lock: no digest to report.
        assert_eq!(attribute(run, "skills.lock_digest"), None);
    }
    let first = runs
        .iter()
        .find(|r| attribute(r, "agent.turns").as_deref() == Some("4"))
        .unwrap();
    assert_eq!(attribute(first, "agent.tool_calls").as_deref(), Some("3"));
    assert_eq!(
        attribute(first, "gen_ai.usage.input_tokens").as_deref(),
        Some("4")
    );
    assert_eq!(
        attribute(first, "gen_ai.usage.output_tokens").as_deref(),
        Some("4")
    );

    // Turns under the runs, a model request under each turn.
    assert_eq!(named("turn").len(), 5);
    assert!(
        named("turn")
            .iter()
            .all(|t| parent(t) == Some("invoke_agent"))
    );
    let chats = named("chat claude-test-model");
    assert_eq!(chats.len(), 5);
    for chat in &chats {
        assert_eq!(parent(chat), Some("turn"));
        assert_eq!(
            chat.kind,
            opentelemetry_proto::tonic::trace::v1::span::SpanKind::Client as i32
        );
        assert_eq!(
            attribute(chat, "gen_ai.operation.name").as_deref(),
            Some("chat")
        );
        assert_eq!(
            attribute(chat, "gen_ai.provider.name").as_deref(),
            Some("anthropic")
        );
        assert_eq!(
            attribute(chat, "gen_ai.request.model").as_deref(),
            Some("claude-test-model")
        );
        assert_eq!(
            attribute(chat, "gen_ai.usage.input_tokens").as_deref(),
            Some("1")
        );
        assert_eq!(
            attribute(chat, "gen_ai.usage.output_tokens").as_deref(),
            Some("1")
        );
        assert_eq!(
            attribute(chat, "gen_ai.usage.cache_read.input_tokens").as_deref(),
            Some("120")
        );
        assert_eq!(
            attribute(chat, "gen_ai.request.max_tokens").as_deref(),
            Some("8192")
        );
    }

    // Tool calls under their turn; the model's text in them masked.
    let load = named("execute_tool load_skill");
    assert_eq!(load.len(), 1);
    assert_eq!(parent(load[0]), Some("turn"));
    assert_eq!(
        attribute(load[0], "gen_ai.tool.name").as_deref(),
        Some("load_skill")
    );
    assert_eq!(
        attribute(load[0], "gen_ai.tool.type").as_deref(),
        Some("function")
    );
    assert_eq!(
        attribute(load[0], "agent.tool.outcome").as_deref(),
        Some("ok")
    );
    let id = attribute(load[0], "gen_ai.tool.call.id").unwrap();
    assert!(
        id.starts_with("toolu_") && id.contains("[redacted]"),
        "{id}"
    );
    let read = named("execute_tool read_file");
    assert_eq!(
        attribute(read[0], "agent.tool.outcome").as_deref(),
        Some("ok")
    );
    let unknown = spans
        .iter()
        .find(|s| s.name.starts_with("execute_tool tool_"))
        .unwrap();
    assert_eq!(
        attribute(unknown, "error.type").as_deref(),
        Some("unknown_tool")
    );
    assert_eq!(
        unknown.status.as_ref().map(|s| s.code),
        Some(opentelemetry_proto::tonic::trace::v1::status::StatusCode::Error as i32)
    );

    // The skill the model loaded, inside its tool call; the one the person invoked, in the run.
    let skill = SKILLS.get("code-review").unwrap();
    let loaded = named("load_skill code-review");
    assert_eq!(loaded.len(), 1);
    assert_eq!(parent(loaded[0]), Some("execute_tool load_skill"));
    assert_eq!(
        attribute(loaded[0], "skill.name").as_deref(),
        Some("code-review")
    );
    assert_eq!(
        attribute(loaded[0], "skill.version").as_deref(),
        Some("2.1")
    );
    assert_eq!(
        attribute(loaded[0], "skill.sha256").as_deref(),
        Some(skill.sha256())
    );
    assert_eq!(
        attribute(loaded[0], "skill.trigger").as_deref(),
        Some("model")
    );
    assert_eq!(
        attribute(loaded[0], "skill.first_load").as_deref(),
        Some("true")
    );
    let invoked = named("invoke_skill write-tests");
    assert_eq!(invoked.len(), 1);
    assert_eq!(parent(invoked[0]), Some("invoke_agent"));
    assert_eq!(
        attribute(invoked[0], "skill.trigger").as_deref(),
        Some("person")
    );
    assert_eq!(
        attribute(invoked[0], "skill.sha256").as_deref(),
        Some(SKILLS.get("write-tests").unwrap().sha256())
    );
}
