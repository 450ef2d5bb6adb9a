//! Providers of both wire formats pointed at a stand-in server, with retries that never wait, and
//! a working directory with a secret beside it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use skills_runtime::agent::provider::anthropic::{Anthropic, AnthropicBuilder};
use skills_runtime::agent::provider::openai::OpenAi;
use skills_runtime::agent::{HttpOptions, RetryPolicy};

use crate::{ANTHROPIC_KEY, OPENAI_KEY};

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

/// An Anthropic provider at `base` with the test key and model, and the delays it asked for.
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

/// An OpenAI-compatible provider at `base/v1` with the test key and model, and the delays it
/// asked for.
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

/// A working directory and, beside it, a folder holding [`SECRET`] that no tool may reach.
pub struct HostileSite {
    _root: tempfile::TempDir,
    /// The working directory.
    pub work: std::path::PathBuf,
    /// The folder beside it, holding `secret`.
    pub outside: std::path::PathBuf,
    /// The tools' context at `work`.
    pub context: skills_runtime::agent::ToolContext,
}

/// The content of `outside/secret` in a [`HostileSite`].
pub const SECRET: &str = "TOP-SECRET-42";

/// A fresh [`HostileSite`].
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
