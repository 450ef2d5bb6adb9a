//! The agent loop against a local mock of each API: wire formats, quirks, retries, errors.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use skills_runtime::agent::{
    Agent, AgentError, ConfigError, HookDecision, Hooks, Message, Permission, PermissionPolicy,
    Provider, ReadFile,
};
use skills_test_support::api_mock::{
    ApiMock, Recorded, final_text, json_reply, text_reply, tool_use,
};
use skills_test_support::mock::{MockServer, Reply};
use skills_test_support::*;
use wiremock::ResponseTemplate;

/// The agent tests' own small bundle (`tests/skills`).
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");

fn body_of(skill: &str) -> &'static str {
    SKILLS.get(skill).unwrap().body()
}

#[tokio::test]
async fn anthropic_full_tool_loop() {
    let dir = project();
    // Turn 1: text + a thinking block (unknown to us) + load_skill.
    let turn1_content = json!([
        {"type": "thinking", "thinking": "The user wants a review.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
        {"type": "text", "text": "I'll load the review skill."},
        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "load_skill",
         "input": {"name": "code-review"}, "caller": {"type": "direct"}}
    ]);
    let turn2_content = json!([
        {"type": "tool_use", "id": "toolu_02B", "name": "read_file", "input": {"path": "src/lib.rs"}}
    ]);
    let turn3_content = json!([{"type": "text", "text": "src/lib.rs:3 add() can overflow."}]);
    let server = ApiMock::start(vec![
        json_reply(
            200,
            &anthropic_message(turn1_content.clone(), "tool_use", 500, 40),
        )
        .insert_header("request-id", "req_1")
        .insert_header("anthropic-organization-id", "org"),
        json_reply(
            200,
            &anthropic_message(turn2_content.clone(), "tool_use", 900, 30),
        ),
        json_reply(200, &anthropic_message(turn3_content, "end_turn", 1100, 20)),
    ])
    .await;
    let (provider, delays) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&SKILLS)
        .workdir(dir.path())
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent.run(&mut session, "review src/lib.rs").await.unwrap();

    assert_eq!(out.text, "src/lib.rs:3 add() can overflow.");
    assert_eq!(out.turns, 3);
    assert_eq!(out.tool_calls, 2);
    assert_eq!(out.skills_loaded, vec!["code-review"]);
    assert_eq!(out.usage.input_tokens, 2500);
    assert_eq!(out.usage.output_tokens, 90);
    assert_eq!(out.usage.cache_read_tokens, 360);
    assert_eq!(out.usage.requests, 3);
    assert!(delays.lock().unwrap().is_empty());

    let requests = server.requests().await;
    assert_eq!(requests.len(), 3);
    for r in &requests {
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(r.header("x-api-key"), Some(ANTHROPIC_KEY));
        assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert!(r.header("authorization").is_none());
    }
    let first = requests[0].json();
    assert_eq!(first["model"], "claude-test-model");
    assert!(first["max_tokens"].as_u64().unwrap() > 0);
    // System: one cached text block with the catalog and no skill body.
    let system = &first["system"];
    assert_eq!(system.as_array().unwrap().len(), 1);
    assert_eq!(system[0]["type"], "text");
    assert_eq!(system[0]["cache_control"], json!({"type": "ephemeral"}));
    let system_text = system[0]["text"].as_str().unwrap();
    assert!(system_text.contains(SKILLS.catalog()));
    assert!(system_text.contains("- code-review: Review source code"));
    assert!(!system_text.contains("REVIEW-BODY-MARKER"));
    assert!(!system_text.contains("TESTS-BODY-MARKER"));
    // Tools: load_skill exactly as the registry rendered it, then the built-ins.
    let tools = first["tools"].as_array().unwrap();
    let expected: Value =
        serde_json::from_str(SKILLS.load_skill_tool_anthropic().unwrap()).unwrap();
    assert_eq!(tools[0], expected);
    assert_eq!(
        tools[0]["input_schema"]["properties"]["name"]["enum"],
        json!(["code-review", "write-tests"])
    );
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "load_skill",
            "read_skill_resource",
            "bash",
            "read_file",
            "write_file",
            "edit_file",
            "glob"
        ]
    );
    for tool in tools {
        assert!(tool["input_schema"]["type"] == "object", "{tool}");
    }
    // The constant prefix is byte-identical on every turn.
    let prefix = |r: &Recorded| {
        let v = r.json();
        (v["system"].to_string(), v["tools"].to_string())
    };
    assert_eq!(prefix(&requests[0]), prefix(&requests[1]));
    assert_eq!(prefix(&requests[0]), prefix(&requests[2]));

    // Turn 2: the assistant content echoed unchanged, then the paired tool_result.
    let second = requests[1].json();
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "review src/lib.rs"})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], turn1_content);
    // Byte for byte, field order included.
    assert!(
        requests[1]
            .text()
            .contains(&serde_json::to_string(&turn1_content).unwrap())
    );
    assert_eq!(messages[2]["role"], "user");
    let results = messages[2]["content"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["type"], "tool_result");
    assert_eq!(results[0]["tool_use_id"], "toolu_01A09q90qw90lq917835lq9");
    assert!(results[0].get("is_error").is_none());
    let loaded = results[0]["content"].as_str().unwrap();
    assert!(loaded.starts_with("<skill name=\"code-review\" version=\"2.1\">"));
    assert!(loaded.contains(body_of("code-review")));

    // Turn 3: everything before kept in order, the read_file result paired.
    let third = requests[2].json();
    let messages = third["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5);
    assert_eq!(&messages[..3], &second["messages"].as_array().unwrap()[..]);
    assert_eq!(messages[3]["content"], turn2_content);
    assert_eq!(messages[4]["content"][0]["tool_use_id"], "toolu_02B");
    assert!(
        messages[4]["content"][0]["content"]
            .as_str()
            .unwrap()
            .contains("pub fn add(a: i32, b: i32) -> i32 {")
    );
    assert_eq!(session.conversation().len(), 6);
}

#[tokio::test]
async fn openai_full_tool_loop_with_parallel_calls() {
    let dir = project();
    let turn1 = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [
            {"id": "call_abc", "type": "function",
             "function": {"name": "load_skill", "arguments": "{\"name\":\"write-tests\"}"}}
        ],
        "refusal": null,
        "annotations": []
    });
    // Two calls in one turn: both run, both answered in call order.
    let turn2 = json!({
        "role": "assistant",
        "content": "Looking at the project.",
        "tool_calls": [
            {"id": "call_g", "type": "function",
             "function": {"name": "glob", "arguments": "{\"pattern\":\"**/*.rs\"}"}},
            {"id": "call_r", "type": "function",
             "function": {"name": "read_file", "arguments": "{\"path\":\"README.md\"}"}}
        ]
    });
    let turn3 = json!({"role": "assistant", "content": "Added nothing yet; here is the plan."});
    let server = ApiMock::start(vec![
        json_reply(
            200,
            &openai_completion(turn1, "tool_calls", Some(openai_usage(300, 10))),
        ),
        json_reply(
            200,
            &openai_completion(turn2, "tool_calls", Some(openai_usage(500, 20))),
        ),
        json_reply(
            200,
            &openai_completion(turn3, "stop", Some(openai_usage(700, 30))),
        ),
    ])
    .await;
    let (provider, _) = openai(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&SKILLS)
        .workdir(dir.path())
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent.run(&mut session, "add tests").await.unwrap();
    assert_eq!(out.text, "Added nothing yet; here is the plan.");
    assert_eq!(out.tool_calls, 3);
    assert_eq!(out.usage.input_tokens, 1500);
    assert_eq!(out.usage.output_tokens, 60);

    let requests = server.requests().await;
    assert_eq!(requests.len(), 3);
    for r in &requests {
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(
            r.header("authorization").unwrap(),
            format!("Bearer {OPENAI_KEY}")
        );
        assert!(r.header("x-api-key").is_none());
    }
    let first = requests[0].json();
    assert_eq!(first["model"], "gpt-test-model");
    let messages = first["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.contains(SKILLS.catalog()));
    assert!(!system.contains("TESTS-BODY-MARKER"));
    let tools = first["tools"].as_array().unwrap();
    let expected: Value = serde_json::from_str(SKILLS.load_skill_tool_openai().unwrap()).unwrap();
    assert_eq!(tools[0], expected);
    for tool in tools {
        assert_eq!(tool["type"], "function");
        assert_eq!(tool["function"]["parameters"]["type"], "object");
    }

    let third = requests[2].json();
    let messages = third["messages"].as_array().unwrap();
    // system, user, assistant, tool, assistant, tool, tool
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "tool"
        ]
    );
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call_abc");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        "{\"name\":\"write-tests\"}"
    );
    assert_eq!(messages[3]["tool_call_id"], "call_abc");
    assert!(
        messages[3]["content"]
            .as_str()
            .unwrap()
            .contains("TESTS-BODY-MARKER")
    );
    assert_eq!(messages[4]["content"], "Looking at the project.");
    assert_eq!(messages[5]["tool_call_id"], "call_g");
    assert_eq!(messages[5]["content"], "src/lib.rs");
    assert_eq!(messages[6]["tool_call_id"], "call_r");
    assert!(messages[6]["content"].as_str().unwrap().contains("# tiny"));
}

#[tokio::test]
async fn openai_local_server_quirks() {
    let dir = project();
    // llama.cpp / Ollama style: arguments as an object, no id, finish_reason "stop" with tool
    // calls, no usage, no `type`.
    let turn1 = json!({
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "README.md"}}}]
    });
    // vLLM style: empty-string arguments, extra fields.
    let turn2 = json!({
        "role": "assistant",
        "content": null,
        "reasoning_content": "thinking...",
        "tool_calls": [{"id": "", "type": "function", "index": 0,
                        "function": {"name": "glob", "arguments": ""}}]
    });
    let turn3 = json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]});
    let server = ApiMock::start(vec![
        json_reply(200, &openai_completion(turn1, "stop", None)),
        json_reply(200, &openai_completion(turn2, "tool_calls", None)),
        json_reply(200, &openai_completion(turn3, "stop", None)),
    ])
    .await;
    let (options, _) = fast_options();
    // A local server without a key: no Authorization header at all.
    let provider = skills_runtime::agent::provider::openai::OpenAi::builder()
        .model("local-model")
        .base_url(format!("{}/v1/", server.url()))
        .http(options)
        .build()
        .unwrap();
    let agent = Agent::builder(Arc::new(provider))
        .workdir(dir.path())
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent.run(&mut session, "look around").await.unwrap();
    assert_eq!(out.text, "done");
    assert_eq!(out.turns, 3);
    assert_eq!(out.usage.input_tokens, 0);

    let requests = server.requests().await;
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert!(requests[0].header("authorization").is_none());
    // No skills: no load_skill tool, system prompt is the preamble alone.
    let first = requests[0].json();
    assert!(
        !first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "load_skill")
    );
    let third = requests[2].json();
    let m = third["messages"].as_array().unwrap();
    // The invented id is used for the call and its result; arguments went back as a string.
    let id = m[2]["tool_calls"][0]["id"].as_str().unwrap();
    assert!(!id.is_empty());
    assert_eq!(m[2]["tool_calls"][0]["type"], "function");
    let args: Value = serde_json::from_str(
        m[2]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(args, json!({"path": "README.md"}));
    assert_eq!(m[3]["tool_call_id"], id);
    assert!(m[3]["content"].as_str().unwrap().contains("# tiny"));
    // Second turn: a different invented id; the empty arguments were read as `{}`, so glob
    // reported the missing pattern as an error result.
    let id2 = m[4]["tool_calls"][0]["id"].as_str().unwrap();
    assert!(!id2.is_empty() && id2 != id);
    assert!(m[4].get("reasoning_content").is_none());
    assert_eq!(m[5]["tool_call_id"], id2);
    assert!(
        m[5]["content"]
            .as_str()
            .unwrap()
            .starts_with("Error: error (invalid_input): missing required field `pattern`")
    );
}

#[tokio::test]
async fn overloaded_529_then_success_retries_once() {
    let server = ApiMock::start(vec![
        json_reply(
            529,
            &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
        json_reply(
            200,
            &anthropic_message(json!([{"type": "text", "text": "hi"}]), "end_turn", 10, 2),
        ),
    ])
    .await;
    let (provider, delays) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .workdir(".")
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent.run(&mut session, "hello").await.unwrap();
    assert_eq!(out.text, "hi");
    assert_eq!(server.request_count().await, 2);
    let delays = delays.lock().unwrap().clone();
    assert_eq!(delays.len(), 1);
    // Backoff for the first retry: 0.5 s minus at most 25 % jitter.
    assert!(
        delays[0] <= Duration::from_millis(500) && delays[0] >= Duration::from_millis(375),
        "{delays:?}"
    );
    // Both attempts sent the same body.
    let requests = server.requests().await;
    assert_eq!(requests[0].body, requests[1].body);
}

#[tokio::test]
async fn rate_limit_obeys_retry_after() {
    let server = ApiMock::start(vec![
        json_reply(
            429,
            &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
        )
        .insert_header("retry-after", "7"),
        json_reply(
            429,
            &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
        )
        .insert_header("retry-after-ms", "1500")
        .insert_header("retry-after", "30"),
        json_reply(
            200,
            &anthropic_message(json!([{"type": "text", "text": "ok"}]), "end_turn", 1, 1),
        ),
    ])
    .await;
    let (provider, delays) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let out = agent.run(&mut agent.session(), "x").await.unwrap();
    assert_eq!(out.text, "ok");
    assert_eq!(server.request_count().await, 3);
    assert_eq!(
        *delays.lock().unwrap(),
        vec![Duration::from_secs(7), Duration::from_millis(1500)]
    );
}

#[tokio::test]
async fn gives_up_after_two_retries() {
    let server = ApiMock::repeating(json_reply(
        503,
        &json!({"error": {"message": "upstream down", "type": "server_error"}}),
    ))
    .await;
    let (provider, delays) = openai(&server.url());
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let mut session = agent.session();
    let err = agent.run(&mut session, "x").await.unwrap_err();
    let api = err.api().unwrap();
    assert!(api.is_server());
    assert_eq!(api.status(), Some(503));
    assert_eq!(api.retries(), 2);
    assert_eq!(server.request_count().await, 3);
    assert_eq!(delays.lock().unwrap().len(), 2);
    assert!(err.to_string().contains("upstream down"), "{err}");
    // The conversation still holds the prompt.
    assert_eq!(
        session.conversation().messages(),
        &[Message::User("x".into())]
    );
}

#[tokio::test]
async fn x_should_retry_overrides_status() {
    let server = ApiMock::start(vec![
        json_reply(500, &json!({"error": {"message": "no"}}))
            .insert_header("x-should-retry", "false"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let err = agent.run(&mut agent.session(), "x").await.unwrap_err();
    assert!(err.api().unwrap().is_server());
    assert_eq!(server.request_count().await, 1);
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_hides_the_key() {
    // A server that echoes the key in its error must not leak it through us.
    let server = ApiMock::start(vec![json_reply(
        401,
        &json!({"type": "error", "error": {"type": "authentication_error",
                "message": format!("invalid x-api-key {ANTHROPIC_KEY}")}}),
    )])
    .await;
    let (provider, delays) = anthropic(&server.url());
    let debug = format!("{provider:?}");
    assert!(!debug.contains(ANTHROPIC_KEY));
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let err = agent.run(&mut agent.session(), "x").await.unwrap_err();
    let api = err.api().unwrap();
    assert!(api.is_authentication());
    assert_eq!(api.retries(), 0);
    assert_eq!(server.request_count().await, 1);
    assert!(delays.lock().unwrap().is_empty());
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains(ANTHROPIC_KEY), "{shown}");
    assert!(shown.contains("authentication_error"));
    assert!(shown.contains("HTTP 401"));
}

#[tokio::test]
async fn bad_request_is_not_retried() {
    let server = ApiMock::start(vec![json_reply(
        400,
        &json!({"error": {"message": "Invalid value for 'tools[0]'", "type": "invalid_request_error",
                "param": "tools", "code": null}}),
    )])
    .await;
    let (provider, _) = openai(&server.url());
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let err = agent.run(&mut agent.session(), "x").await.unwrap_err();
    let api = err.api().unwrap();
    assert!(api.is_invalid_request());
    assert!(!api.is_retryable());
    assert_eq!(server.request_count().await, 1);
    assert!(err.to_string().contains("Invalid value for 'tools[0]'"));
    assert!(!format!("{err:?}").contains(OPENAI_KEY));
}

#[tokio::test]
async fn non_json_and_truncated_bodies_are_clean_errors() {
    for (reply, what) in [
        (
            text_reply(200, "<html><body>Bad gateway</body></html>"),
            "html",
        ),
        (
            ResponseTemplate::new(200).set_body_raw(
                br#"{"id":"msg_1","type":"message","content":[{"type":"te"#.to_vec(),
                "application/json",
            ),
            "truncated json",
        ),
        (
            json_reply(200, &json!({"id": "msg_1", "type": "message"})),
            "no content",
        ),
        (
            json_reply(200, &json!({"content": "nope"})),
            "content not an array",
        ),
    ] {
        let server = ApiMock::start(vec![reply]).await;
        let (provider, _) = anthropic(&server.url());
        let agent = Agent::builder(Arc::new(provider)).build().unwrap();
        let mut session = agent.session();
        let err = agent.run(&mut session, "x").await.unwrap_err();
        let api = err.api().unwrap();
        assert!(api.is_malformed_response(), "{what}: {err}");
        assert_eq!(server.request_count().await, 1, "{what}");
        assert_eq!(session.conversation().len(), 1, "{what}");
    }

    // OpenAI shapes too.
    for body in [
        json!({"choices": []}),
        json!({"object": "chat.completion"}),
        json!({"choices": [{"index": 0}]}),
    ] {
        let server = ApiMock::start(vec![json_reply(200, &body)]).await;
        let (provider, _) = openai(&server.url());
        let agent = Agent::builder(Arc::new(provider)).build().unwrap();
        let err = agent.run(&mut agent.session(), "x").await.unwrap_err();
        assert!(err.api().unwrap().is_malformed_response(), "{body}: {err}");
    }
}

#[tokio::test]
async fn body_cut_mid_stream_is_a_transport_error_and_retried() {
    // The raw-socket mock: a response that declares 5000 bytes and closes after a few is not
    // something a well-behaved HTTP server (wiremock's hyper) can be made to send.
    let cut = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{\"id\":\"msg_1\",\"content\":[".to_vec();
    let server = MockServer::start(vec![
        Reply::Raw(cut.clone()),
        Reply::Raw(cut.clone()),
        Reply::Raw(cut),
    ])
    .await;
    let (provider, delays) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let err = agent.run(&mut agent.session(), "x").await.unwrap_err();
    let api = err.api().unwrap();
    assert!(api.is_transport(), "{err}");
    assert_eq!(api.retries(), 2);
    assert_eq!(server.request_count(), 3);
    assert_eq!(delays.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn connection_refused_is_a_transport_error() {
    // Bind, note the port, close: nothing listens there now.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let (provider, delays) = anthropic(&format!("http://127.0.0.1:{port}"));
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let err = agent.run(&mut agent.session(), "x").await.unwrap_err();
    assert!(err.api().unwrap().is_transport(), "{err}");
    assert!(err.to_string().contains("could not connect"), "{err}");
    assert_eq!(delays.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn turn_limit_is_a_clear_error_and_keeps_the_conversation() {
    let dir = project();
    let server = ApiMock::repeating(json_reply(
        200,
        &anthropic_message(
            json!([{"type": "tool_use", "id": "toolu_x", "name": "glob", "input": {"pattern": "*"}}]),
            "tool_use",
            10,
            5,
        ),
    ))
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .workdir(dir.path())
        .max_turns(3)
        .build()
        .unwrap();
    let mut session = agent.session();
    let err = agent.run(&mut session, "loop forever").await.unwrap_err();
    match &err {
        AgentError::TurnLimit { max_turns, usage } => {
            assert_eq!(*max_turns, 3);
            assert_eq!(usage.requests, 3);
            assert_eq!(usage.output_tokens, 15);
        }
        other => panic!("expected the turn limit, got {other:?}"),
    }
    assert!(err.to_string().contains("turn limit reached"));
    assert!(err.to_string().contains("3 requests"));
    assert_eq!(server.request_count().await, 3);
    // user + 3 x (assistant, results)
    assert_eq!(session.conversation().len(), 7);
}

#[tokio::test]
async fn restricted_skills_and_tools() {
    let server = ApiMock::repeating(json_reply(
        200,
        &anthropic_message(json!([{"type": "text", "text": "ok"}]), "end_turn", 1, 1),
    ))
    .await;
    let (provider, _) = anthropic(&server.url());
    let provider = Arc::new(provider);
    let agent = Agent::builder(provider.clone())
        .skills(SKILLS.restrict(["write-tests"]).unwrap())
        .only_tools(["load_skill", "read_file"])
        .build()
        .unwrap();
    agent.run(&mut agent.session(), "x").await.unwrap();
    // A sub-agent without load_skill: no catalog, no skill tool.
    let sub = Agent::builder(provider.clone())
        .skills(&SKILLS)
        .without_load_skill()
        .only_tools(["glob"])
        .preamble("You are a file finder.")
        .build()
        .unwrap();
    sub.run(&mut sub.session(), "y").await.unwrap();

    let requests = server.requests().await;
    let restricted = requests[0].json();
    let tools = restricted["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["name"], "load_skill");
    assert_eq!(
        tools[0]["input_schema"]["properties"]["name"]["enum"],
        json!(["write-tests"])
    );
    assert_eq!(tools[1]["name"], "read_file");
    let system = restricted["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("- write-tests:"));
    assert!(!system.contains("code-review"));

    let sub = requests[1].json();
    assert_eq!(sub["system"][0]["text"], "You are a file finder.");
    let tools = sub["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "glob");

    // A tool name that does not exist is a configuration error.
    let bad = Agent::builder(provider).only_tools(["grep"]).build();
    assert!(
        matches!(&bad, Err(AgentError::Config(ConfigError::UnknownTool { name })) if name == "grep"),
        "{bad:?}"
    );
}

#[test]
fn configuration_errors_are_typed_and_keep_their_sources() {
    use std::error::Error as _;
    let (provider, _) = anthropic("http://127.0.0.1:9");
    let provider: Arc<dyn Provider> = Arc::new(provider);
    let missing = std::env::temp_dir().join("skills-agent-test-no-such-workdir");
    let error = Agent::builder(Arc::clone(&provider))
        .workdir(&missing)
        .build()
        .unwrap_err();
    let AgentError::Config(ConfigError::Workdir { path, source }) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(path, &missing);
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    // The chain reaches the file system's error: AgentError -> ConfigError -> io::Error.
    let io = error
        .source()
        .and_then(|config| config.source())
        .and_then(|io| io.downcast_ref::<std::io::Error>());
    assert_eq!(
        io.map(std::io::Error::kind),
        Some(std::io::ErrorKind::NotFound)
    );

    let dir = project();
    let twice = Agent::builder(Arc::clone(&provider))
        .workdir(dir.path())
        .tool(Arc::new(ReadFile))
        .build()
        .unwrap_err();
    assert!(
        matches!(&twice, AgentError::Config(ConfigError::DuplicateTool { name }) if name == "read_file"),
        "{twice:?}"
    );
}

/// The tool_result blocks of the last request.
async fn last_results(server: &ApiMock) -> Vec<Value> {
    let last = server.requests().await.last().unwrap().json();
    let messages = last["messages"].as_array().unwrap().clone();
    messages
        .into_iter()
        .filter(|m| m["role"] == "user" && m["content"].is_array())
        .flat_map(|m| m["content"].as_array().unwrap().clone())
        .collect()
}

#[tokio::test]
async fn second_load_and_unknown_skill() {
    let server = ApiMock::start(vec![
        tool_use("t1", "load_skill", json!({"name": "code-review"})),
        tool_use("t2", "load_skill", json!({"name": "code-review"})),
        tool_use("t3", "load_skill", json!({"name": "code-reveiw"})),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&SKILLS)
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent.run(&mut session, "x").await.unwrap();
    assert_eq!(out.skills_loaded, vec!["code-review"]);
    assert!(session.has_loaded("code-review"));
    let results = last_results(&server).await;
    assert_eq!(results.len(), 3);
    assert!(
        results[0]["content"]
            .as_str()
            .unwrap()
            .contains("REVIEW-BODY-MARKER")
    );
    let second = results[1]["content"].as_str().unwrap();
    assert!(second.contains("already loaded"), "{second}");
    assert!(!second.contains("REVIEW-BODY-MARKER"));
    assert_eq!(results[2]["is_error"], true);
    let unknown = results[2]["content"].as_str().unwrap();
    assert!(unknown.starts_with("error (unknown_skill)"), "{unknown}");
    assert!(
        unknown.contains("Did you mean \"code-review\"?"),
        "{unknown}"
    );
}

#[tokio::test]
async fn permissions_hooks_and_resting_tools() {
    let dir = project();
    let server = ApiMock::start(vec![
        // Ask without an approver: refused.
        tool_use("p1", "bash", json!({"command": "echo hi"})),
        // Denied by policy.
        tool_use("p2", "write_file", json!({"path": "x.txt", "content": "x"})),
        // Refused by a before-hook.
        tool_use("p3", "read_file", json!({"path": "secret.txt"})),
        // Unknown tool.
        tool_use("p4", "grep", json!({})),
        // Three failures in a row, then the fourth call is not even made.
        tool_use("f1", "read_file", json!({"path": "missing1"})),
        tool_use("f2", "read_file", json!({"path": "missing2"})),
        tool_use("f3", "read_file", json!({"path": "missing3"})),
        tool_use("f4", "read_file", json!({"path": "README.md"})),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let after_calls = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&after_calls);
    let hooks = Hooks::new()
        .before(Arc::new(|call| {
            if call.input["path"] == "secret.txt" {
                HookDecision::Deny("secrets are off limits".into())
            } else {
                HookDecision::Continue
            }
        }))
        .after(Arc::new(move |call, result| {
            seen.lock()
                .unwrap()
                .push((call.name.clone(), result.is_error));
        }));
    let agent = Agent::builder(Arc::new(provider))
        .workdir(dir.path())
        .permissions(PermissionPolicy::new().set("write_file", Permission::Deny))
        .hooks(hooks)
        .build()
        .unwrap();
    let out = agent.run(&mut agent.session(), "x").await.unwrap();
    assert_eq!(out.tool_calls, 8);
    let results = last_results(&server).await;
    let text = |i: usize| results[i]["content"].as_str().unwrap().to_owned();
    assert!(results.iter().all(|r| r["is_error"] == true));
    assert!(text(0).contains("needs the user's approval"), "{}", text(0));
    assert!(text(1).contains("permission policy does not allow `write_file`"));
    assert!(!dir.path().join("x.txt").exists());
    assert!(text(2).contains("secrets are off limits"));
    assert!(text(3).starts_with("error (unknown_tool)"));
    assert!(text(4).starts_with("error (not_found)"));
    assert!(text(4).contains("suggestion:"));
    assert!(text(7).starts_with("error (unavailable)"), "{}", text(7));
    assert_eq!(after_calls.lock().unwrap().len(), 8);
}

#[tokio::test]
async fn approver_decides_ask_tools() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use(
            "a1",
            "write_file",
            json!({"path": "notes/a.txt", "content": "yes"}),
        ),
        tool_use(
            "a2",
            "bash",
            json!({"command": "echo should-not-run > b.txt"}),
        ),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let policy = PermissionPolicy::new().with_approver(Arc::new(|call| call.name == "write_file"));
    let agent = Agent::builder(Arc::new(provider))
        .workdir(dir.path())
        .permissions(policy)
        .build()
        .unwrap();
    agent.run(&mut agent.session(), "x").await.unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/a.txt")).unwrap(),
        "yes"
    );
    assert!(!dir.path().join("b.txt").exists());
    let results = last_results(&server).await;
    assert!(results[1]["content"].as_str().unwrap().contains("declined"));
}

#[tokio::test]
async fn request_timeout_is_a_transport_error_and_retried() {
    let slow = || final_text("too late").set_delay(Duration::from_secs(3));
    let server = ApiMock::start(vec![slow(), final_text("in time")]).await;
    let (mut options, delays) = fast_options();
    options.timeout = Duration::from_millis(300);
    let provider = skills_runtime::agent::provider::anthropic::Anthropic::builder(ANTHROPIC_KEY)
        .model("m")
        .base_url(server.url())
        .http(options)
        .build()
        .unwrap();
    let agent = Agent::builder(Arc::new(provider)).build().unwrap();
    let started = std::time::Instant::now();
    let out = agent.run(&mut agent.session(), "x").await.unwrap();
    assert_eq!(out.text, "in time");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(server.request_count().await, 2);
    assert_eq!(delays.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn resource_dir_puts_a_loaded_skills_files_on_disk() {
    let server = ApiMock::start(vec![
        tool_use("m0", "load_skill", json!({"name": "code-review"})),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let temp = tempfile::tempdir().unwrap();
    // A folder of its own: materialize creates it private (0700) and refuses a shared one.
    let cache = temp.path().join("skills");
    let agent = Agent::builder(Arc::new(provider))
        .skills(&SKILLS)
        .resource_dir(&cache)
        .build()
        .unwrap();
    agent.run(&mut agent.session(), "x").await.unwrap();
    let skill = SKILLS.get("code-review").unwrap();
    let written = cache.join(format!("code-review-{}", &skill.tree_sha256()[..16]));
    assert!(written.join("references/checklist.md").is_file());
    let results = last_results(&server).await;
    let text = results[0]["content"].as_str().unwrap();
    assert!(
        text.contains(&format!("written to {}", written.display())),
        "{text}"
    );
}

#[tokio::test]
async fn skill_resources_are_read_from_the_binary() {
    let server = ApiMock::start(vec![
        tool_use("r0", "load_skill", json!({"name": "code-review"})),
        tool_use(
            "r1",
            "read_skill_resource",
            json!({"skill": "code-review", "path": "references/checklist.md"}),
        ),
        tool_use(
            "r2",
            "read_skill_resource",
            json!({"skill": "code-review", "path": "nope.md"}),
        ),
        final_text("done"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&SKILLS)
        .build()
        .unwrap();
    agent.run(&mut agent.session(), "x").await.unwrap();
    let first = server.requests().await[0].json();
    let tool = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "read_skill_resource")
        .unwrap()
        .clone();
    let expected: Value =
        serde_json::from_str(SKILLS.read_resource_tool_anthropic().unwrap()).unwrap();
    assert_eq!(tool, expected);
    // Only skills with files are offered.
    assert_eq!(
        tool["input_schema"]["properties"]["skill"]["enum"],
        json!(["code-review"])
    );
    let results = last_results(&server).await;
    assert!(
        results[0]["content"]
            .as_str()
            .unwrap()
            .contains("references/checklist.md")
    );
    assert!(
        results[1]["content"]
            .as_str()
            .unwrap()
            .contains("CHECKLIST-MARKER")
    );
    assert!(results[1].get("is_error").is_none());
    assert_eq!(results[2]["is_error"], true);
    assert!(
        results[2]["content"]
            .as_str()
            .unwrap()
            .starts_with("error (not_found)")
    );
}

#[tokio::test]
async fn a_cancelled_run_stops_its_tool_and_leaves_a_session_that_runs_again() {
    let dir = project();
    let server = ApiMock::start(vec![
        tool_use(
            "b1",
            "bash",
            json!({"command": "echo $$ > pid && exec sleep 30"}),
        ),
        final_text("carried on"),
    ])
    .await;
    let (provider, _) = anthropic(&server.url());
    // Unconfined: libtest's `main` has no sandbox entry line (the example's pseudo-terminal test
    // cancels a sandboxed call).
    let agent = Agent::builder(Arc::new(provider))
        .workdir(dir.path())
        .bash(skills_runtime::agent::BashOptions::unconfined())
        .permissions(PermissionPolicy::allow_all())
        .build()
        .unwrap();
    let mut session = agent.session();
    let pid_file = dir.path().join("pid");
    // Cancelled as a person's Ctrl-C cancels it: the future is dropped mid-call.
    let cancelled = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::select! {
            _ = agent.run(&mut session, "wait") => panic!("the run finished"),
            _ = async {
                while !pid_file.exists() {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            } => {}
        }
    })
    .await;
    assert!(cancelled.is_ok());
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = (0..200).any(|_| {
        std::thread::sleep(Duration::from_millis(25));
        !process_alive(pid)
    });
    assert!(gone, "the command outlived its cancelled call");
    // The turn with the call is kept without a result; the next run closes it first.
    let out = agent.run(&mut session, "go on").await.unwrap();
    assert_eq!(out.text, "carried on");
    let request = server.requests().await[1].json();
    let messages = request["messages"].as_array().unwrap();
    let closed = &messages[2]["content"][0];
    assert_eq!(closed["type"], "tool_result", "{request}");
    assert_eq!(closed["tool_use_id"], "b1");
    assert_eq!(closed["is_error"], true);
    assert!(
        closed["content"]
            .as_str()
            .unwrap()
            .starts_with("error (interrupted): the user interrupted the run"),
        "{closed}"
    );
    assert_eq!(messages[3]["content"], "go on", "{request}");
}

/// The paths the moved items had at the crate root still compile (deprecated) and name the same
/// items as their modules.
#[test]
#[allow(deprecated)]
fn the_moved_items_keep_their_old_root_paths() {
    use skills_runtime::agent::{self as agent, AgentBuilder, ApiErrorKind, budget, provider};
    assert_eq!(agent::KEEP_RECENT_TURNS, budget::KEEP_RECENT_TURNS);
    assert_eq!(agent::SHORTENED_PREFIX, budget::SHORTENED_PREFIX);
    assert_eq!(agent::CLAUDE_CONTEXT_WINDOW, budget::CLAUDE_CONTEXT_WINDOW);
    assert_eq!(
        agent::default_context_window("anthropic", "claude-sonnet-4-5"),
        budget::CLAUDE_CONTEXT_WINDOW
    );
    assert_eq!(agent::estimate_tokens(9), 3);
    assert_eq!(
        agent::shortened_note("read_file", "{}", "text"),
        budget::shortened_note("read_file", "{}", "text")
    );
    assert_eq!(
        agent::message_bytes(&Message::User("four".into())),
        budget::message_bytes(&Message::User("four".into()))
    );
    assert_eq!(agent::DEFAULT_MAX_TURNS, AgentBuilder::DEFAULT_MAX_TURNS);
    assert_eq!(agent::DEFAULT_PREAMBLE, AgentBuilder::DEFAULT_PREAMBLE);
    assert_eq!(
        agent::DEFAULT_MAX_TOOL_CALLS_PER_TURN,
        AgentBuilder::DEFAULT_MAX_TOOL_CALLS_PER_TURN
    );
    assert_eq!(agent::MAX_REDIRECTS, provider::MAX_REDIRECTS);
    assert_eq!(
        agent::DEFAULT_MAX_RESPONSE_BYTES,
        provider::DEFAULT_MAX_RESPONSE_BYTES
    );
    assert_eq!(agent::kind_for_status(429), ApiErrorKind::RateLimit);
    assert_eq!(ApiErrorKind::for_status(529), ApiErrorKind::Overloaded);
}
