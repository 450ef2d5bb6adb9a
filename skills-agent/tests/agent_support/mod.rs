//! Shared helpers of the agent tests: the mock servers (wiremock-based scripted APIs, and a
//! raw-socket one for what wiremock cannot send), realistic response bodies, providers with fast
//! retries.

#![allow(dead_code)]

pub mod api_mock;
pub mod logs;
pub mod mock;
pub mod otlp;
pub mod router;
pub mod screen;
pub mod task_model;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use skills_runtime::agent::provider::anthropic::{Anthropic, AnthropicBuilder};
use skills_runtime::agent::provider::openai::OpenAi;
use skills_runtime::agent::{HttpOptions, RetryPolicy};

pub const ANTHROPIC_KEY: &str = "sk-ant-test-0123456789-SECRET";
pub const OPENAI_KEY: &str = "sk-openai-test-9876543210-SECRET";

/// Retry options that never wait: every requested delay is recorded instead of slept.
pub fn fast_options() -> (HttpOptions, Arc<Mutex<Vec<Duration>>>) {
    let delays = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&delays);
    let retry = RetryPolicy::default().with_sleeper(Arc::new(move |d| {
        recorded.lock().unwrap().push(d);
        Box::pin(async {})
    }));
    let options = HttpOptions {
        timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(2),
        retry,
    };
    (options, delays)
}

pub fn anthropic(base: &str) -> (Anthropic, Arc<Mutex<Vec<Duration>>>) {
    let (builder, delays) = anthropic_builder(base);
    (builder.build().unwrap(), delays)
}

/// [`anthropic`]'s settings, for a test that changes one more.
pub fn anthropic_builder(base: &str) -> (AnthropicBuilder, Arc<Mutex<Vec<Duration>>>) {
    let (options, delays) = fast_options();
    let builder = Anthropic::builder(ANTHROPIC_KEY)
        .model("claude-test-model")
        .base_url(base)
        .http(options);
    (builder, delays)
}

pub fn openai(base: &str) -> (OpenAi, Arc<Mutex<Vec<Duration>>>) {
    let (options, delays) = fast_options();
    let provider = OpenAi::builder()
        .api_key(OPENAI_KEY)
        .model("gpt-test-model")
        .base_url(format!("{base}/v1"))
        .http(options)
        .build()
        .unwrap();
    (provider, delays)
}

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

/// A temporary working directory with a small project in it.
pub fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "//! A tiny crate.\n\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "# tiny\n").unwrap();
    dir
}

/// A working directory and, beside it, a folder holding [`SECRET`] that no tool may reach.
pub struct HostileSite {
    _root: tempfile::TempDir,
    pub work: std::path::PathBuf,
    pub outside: std::path::PathBuf,
    pub context: skills_runtime::agent::ToolContext,
}

/// The content of `outside/secret` in a [`HostileSite`].
pub const SECRET: &str = "TOP-SECRET-42";

pub fn hostile_site() -> HostileSite {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret"), SECRET).unwrap();
    let context = skills_runtime::agent::ToolContext::new(&work).unwrap();
    HostileSite {
        _root: root,
        work,
        outside,
        context,
    }
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

/// Whether `pid` runs. Gone, or a zombie waiting to be reaped by whoever inherited it: both are
/// dead.
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !matches!(state.and_then(|s| s.chars().next()), Some('Z' | 'X'))
        }
        Err(_) => false,
    }
}
