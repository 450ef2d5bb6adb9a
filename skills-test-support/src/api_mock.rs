//! Scripted model APIs on `wiremock`, for the tests that check the exact requests the agent sends
//! and answer with the JSON the real APIs send.
//!
//! [`ApiMock::start`] answers its replies in order, each exactly once, and fails the test when it
//! is dropped unless every reply was asked for: a request past the last one gets a 500 that says
//! so (with `x-should-retry: false`, so it is not retried). Every request is recorded as received
//! and handed back as a [`Recorded`], the same record the raw-socket mock keeps, so assertions
//! read the same whichever server answered. The mocks match any request on purpose: the tests
//! assert on each recorded method, path, header and body, which says more on failure than a 404
//! from a matcher would.

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

pub use crate::mock::Recorded;

/// A JSON reply (`content-type: application/json`).
pub fn json_reply(status: u16, body: &Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(body)
}

/// A `text/html` reply, as proxies and gateways send.
pub fn text_reply(status: u16, body: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body.as_bytes().to_vec(), "text/html")
}

/// A model API on 127.0.0.1 answering scripted replies.
pub struct ApiMock {
    server: MockServer,
}

impl ApiMock {
    /// Answers `replies` in order, each once; dropping it checks that each was asked for.
    pub async fn start(replies: Vec<ResponseTemplate>) -> ApiMock {
        let server = MockServer::start().await;
        // Equal priorities match in the order mounted; each reply stops matching once used.
        for (i, reply) in replies.into_iter().enumerate() {
            Mock::given(any())
                .respond_with(reply)
                .up_to_n_times(1)
                .expect(1)
                .named(format!("scripted reply {}", i + 1))
                .mount(&server)
                .await;
        }
        Mock::given(any())
            .respond_with(
                json_reply(
                    500,
                    &json!({"error": {"type": "mock", "message": "mock: no more replies"}}),
                )
                .insert_header("x-should-retry", "false"),
            )
            .with_priority(u8::MAX)
            .named("past the last scripted reply")
            .mount(&server)
            .await;
        ApiMock { server }
    }

    /// Answers `reply` to every request.
    pub async fn repeating(reply: ResponseTemplate) -> ApiMock {
        let server = MockServer::start().await;
        Mock::given(any()).respond_with(reply).mount(&server).await;
        ApiMock { server }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.server.uri()
    }

    /// Every request received so far, in order.
    pub async fn requests(&self) -> Vec<Recorded> {
        let received = self
            .server
            .received_requests()
            .await
            .expect("request recording is on");
        received
            .iter()
            .map(|r| Recorded {
                method: r.method.to_string(),
                path: match r.url.query() {
                    Some(query) => format!("{}?{query}", r.url.path()),
                    None => r.url.path().to_owned(),
                },
                headers: r
                    .headers
                    .iter()
                    .map(|(name, value)| {
                        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                        (name.as_str().to_owned(), value)
                    })
                    .collect(),
                body: r.body.clone(),
            })
            .collect()
    }

    /// How many requests were received so far.
    pub async fn request_count(&self) -> usize {
        self.requests().await.len()
    }
}

/// An Anthropic reply asking for one tool call.
pub fn tool_use(id: &str, name: &str, input: Value) -> ResponseTemplate {
    json_reply(
        200,
        &crate::anthropic_message(
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
            "tool_use",
            1,
            1,
        ),
    )
}

/// A Chat Completions reply that ends the turn with `text`.
pub fn openai_text(text: &str) -> ResponseTemplate {
    json_reply(
        200,
        &crate::openai_completion(
            json!({"role": "assistant", "content": text}),
            "stop",
            Some(crate::openai_usage(100, 10)),
        ),
    )
}

/// An Anthropic reply that ends the turn with `text`.
pub fn final_text(text: &str) -> ResponseTemplate {
    json_reply(
        200,
        &crate::anthropic_message(json!([{"type": "text", "text": text}]), "end_turn", 1, 1),
    )
}
