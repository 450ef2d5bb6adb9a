//! The `rig_agent` example against a local mock of the OpenAI Chat Completions API: the model
//! calls `load_skill`, rig's own tool loop runs our tool, and the next request carries the
//! exact text `Registry::load_skill` returns. The first request is checked too: the preamble
//! with the catalog, and the `load_skill` definition the registry renders.

use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

// The example's call: the demo lock records `embed_evals = true`.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("skills", lock = "skills.lock", embed_evals = true);

/// The example's preamble, before the catalog.
const PREAMBLE: &str = "You are a careful software engineer. Answer briefly.";
const SKILL: &str = "code-review";
const ANSWER: &str = "Reviewed: the function is correct.";

/// A Chat Completions reply as OpenAI sends it, around one assistant `message`.
fn completion(message: Value, finish_reason: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "logprobs": null,
                     "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    }))
}

/// A message's text, whether rig sent it as a string or as text parts.
fn content_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|part| part["text"].as_str().unwrap_or_default())
            .collect(),
        other => panic!("unexpected content {other}"),
    }
}

#[tokio::test]
async fn the_example_loads_a_skill_through_rigs_tool_loop() {
    let server = MockServer::start().await;
    let chat = || {
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .and(header("authorization", "Bearer test-key"))
    };
    // First request: the model calls `load_skill`. Every later one: the answer.
    chat()
        .respond_with(completion(
            json!({"role": "assistant", "content": null, "refusal": null, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "load_skill", "arguments": "{\"name\":\"code-review\"}"}
            }]}),
            "tool_calls",
        ))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    chat()
        .respond_with(completion(
            json!({"role": "assistant", "content": ANSWER, "refusal": null}),
            "stop",
        ))
        .with_priority(2)
        .mount(&server)
        .await;

    let mut command = std::process::Command::new(crate::examples::example_binary("rig_agent"));
    command
        .arg("please review src/lib.rs")
        .env("OPENAI_API_KEY", "test-key")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .env("MODEL_ID", "test-model")
        .env("NO_PROXY", "127.0.0.1");
    for proxy in ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
        command.env_remove(proxy);
    }
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .expect("run the rig_agent example");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim_end(), ANSWER);

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2, "a tool call, then the answer");
    let bodies: Vec<Value> = requests
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect();

    // The first request: our preamble with the catalog, and the registry's `load_skill`.
    let first = &bodies[0];
    assert_eq!(first["model"], "test-model");
    let system = &first["messages"][0];
    assert_eq!(system["role"], "system");
    assert_eq!(content_text(system), SKILLS.system_prompt(PREAMBLE));
    let rendered: Value = serde_json::from_str(SKILLS.load_skill_tool_openai().unwrap()).unwrap();
    let sent = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["function"]["name"] == "load_skill")
        .expect("load_skill is offered");
    assert_eq!(sent["type"], "function");
    for field in ["description", "parameters"] {
        assert_eq!(
            sent["function"][field], rendered["function"][field],
            "{field}"
        );
    }
    let tool_names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tool_names, ["load_skill", "read_skill_resource"]);

    // The second: rig sent back the exact text the registry gives for the skill.
    let messages = bodies[1]["messages"].as_array().unwrap();
    let result = messages
        .iter()
        .find(|message| message["role"] == "tool")
        .expect("the tool result goes back to the model");
    assert_eq!(result["tool_call_id"], "call_1");
    assert_eq!(content_text(result), SKILLS.load_skill(SKILL).unwrap());
}
