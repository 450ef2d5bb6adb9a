//! The JSON bodies the real APIs answer with, the test keys, and what a request offers.

use serde_json::{Value, json};

/// The API key of the Anthropic providers of the tests.
pub const ANTHROPIC_KEY: &str = "sk-ant-test-0123456789-SECRET";
/// The API key of the OpenAI-compatible providers of the tests.
pub const OPENAI_KEY: &str = "sk-openai-test-9876543210-SECRET";

/// A Messages API response, shaped like the documented one, with extra fields a client must
/// ignore.
pub fn anthropic_message(content: Value, stop_reason: &str, input: u64, output: u64) -> Value {
    json!({
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-model",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": {
            "input_tokens": input,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 120,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": output,
            "service_tier": "standard"
        },
        "container": null
    })
}

/// A Chat Completions response with one choice.
pub fn openai_completion(message: Value, finish_reason: &str, usage: Option<Value>) -> Value {
    let mut body = json!({
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion",
        "created": 1741569952,
        "model": "gpt-test-model",
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason
        }],
        "service_tier": "default",
        "system_fingerprint": "fp_test"
    });
    if let Some(usage) = usage {
        body["usage"] = usage;
    }
    body
}

/// The `usage` object of a Chat Completions response.
pub fn openai_usage(prompt: u64, completion: u64) -> Value {
    json!({
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
    })
}

/// The names of the tools a request offers (either wire format's `tools`).
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
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
