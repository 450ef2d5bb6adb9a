//! [`Metered`]: the agent's provider as one run of a task case uses it, counting its requests
//! and tokens and refusing to send past the run's token budget.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::BoxFuture;
use crate::error::{ApiError, ApiErrorKind};
use crate::provider::api::{Provider, Request, Response};

/// A provider that counts what passes through it and stops at a token budget.
pub(crate) struct Metered {
    inner: Arc<dyn Provider>,
    max_tokens: u64,
    tokens: AtomicU64,
    input: AtomicU64,
    output: AtomicU64,
    requests: AtomicU64,
    spent: AtomicBool,
}

impl Metered {
    pub(crate) fn new(inner: Arc<dyn Provider>, max_tokens: u64) -> Metered {
        Metered {
            inner,
            max_tokens,
            tokens: AtomicU64::new(0),
            input: AtomicU64::new(0),
            output: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            spent: AtomicBool::new(false),
        }
    }

    /// Requests sent.
    pub(crate) fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Input and output tokens of the replies.
    pub(crate) fn tokens(&self) -> (u64, u64) {
        (
            self.input.load(Ordering::Relaxed),
            self.output.load(Ordering::Relaxed),
        )
    }

    /// Whether a request was refused because the budget was spent.
    pub(crate) fn budget_spent(&self) -> bool {
        self.spent.load(Ordering::Relaxed)
    }
}

impl Provider for Metered {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn max_output_tokens(&self) -> Option<u32> {
        self.inner.max_output_tokens()
    }

    fn complete<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Response, ApiError>> {
        Box::pin(async move {
            if self.tokens.load(Ordering::Relaxed) >= self.max_tokens {
                self.spent.store(true, Ordering::Relaxed);
                return Err(ApiError::new(
                    ApiErrorKind::InvalidRequest,
                    self.inner.name(),
                    format!(
                        "the run's budget of {} tokens is spent; the request was not sent",
                        self.max_tokens
                    ),
                ));
            }
            self.requests.fetch_add(1, Ordering::Relaxed);
            let response = self.inner.complete(request).await?;
            let usage = response.usage;
            self.input.fetch_add(usage.input_tokens, Ordering::Relaxed);
            self.output
                .fetch_add(usage.output_tokens, Ordering::Relaxed);
            self.tokens.fetch_add(
                usage.input_tokens.saturating_add(usage.output_tokens),
                Ordering::Relaxed,
            );
            Ok(response)
        })
    }
}
