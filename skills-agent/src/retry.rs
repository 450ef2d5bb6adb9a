//! The retry policy of the official SDKs.
//!
//! At most [`RetryPolicy::max_retries`] retries (2 by default), on 408, 409, 429, 5xx (529
//! included), connection errors and timeouts. The server's `x-should-retry` header overrides the
//! status either way. The delay is the server's `retry-after-ms` or `retry-after` when it is
//! positive and at most 60 s; otherwise `0.5 s * 2^n`, capped at 8 s, minus up to 25 % jitter.
//! Other 4xx are never retried.
//!
//! The sleep itself goes through [`Sleeper`], so tests can record delays instead of waiting.

use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;

use super::BoxFuture;

/// How a retry waits. The default is `tokio::time::sleep`.
pub type Sleeper = Arc<dyn Fn(Duration) -> BoxFuture<'static, ()> + Send + Sync>;

/// When and how long to retry a failed model request.
#[derive(Clone)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 2).
    pub max_retries: u32,
    /// First backoff delay (default 0.5 s); doubles per retry.
    pub initial_delay: Duration,
    /// Largest backoff delay (default 8 s).
    pub max_delay: Duration,
    /// Largest server-requested delay that is obeyed (default 60 s); a larger one falls back to
    /// the backoff.
    pub max_retry_after: Duration,
    /// Whether to subtract up to 25 % random jitter from the backoff (default true).
    pub jitter: bool,
    /// Waits between attempts.
    pub sleeper: Sleeper,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
            jitter: true,
            sleeper: Arc::new(|d| Box::pin(tokio::time::sleep(d))),
        }
    }
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_retries", &self.max_retries)
            .field("initial_delay", &self.initial_delay)
            .field("max_delay", &self.max_delay)
            .field("max_retry_after", &self.max_retry_after)
            .field("jitter", &self.jitter)
            .finish_non_exhaustive()
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// Replaces the sleep function (tests record the delays instead of waiting).
    pub fn with_sleeper(mut self, sleeper: Sleeper) -> Self {
        self.sleeper = sleeper;
        self
    }

    /// Whether an HTTP answer with `status` and `headers` should be retried, ignoring the
    /// retry count. `x-should-retry: true|false` wins over the status.
    pub fn should_retry_status(&self, status: u16, headers: &HeaderMap) -> bool {
        match headers
            .get("x-should-retry")
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
        {
            Some("true") => return true,
            Some("false") => return false,
            _ => {}
        }
        matches!(status, 408 | 409 | 429) || status >= 500
    }

    /// The delay the server asked for in `headers`, if it is positive and not longer than
    /// [`max_retry_after`](Self::max_retry_after).
    pub fn server_delay(&self, headers: &HeaderMap) -> Option<Duration> {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let requested = header("retry-after-ms")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|ms| ms / 1000.0)
            .or_else(|| header("retry-after").and_then(parse_retry_after));
        let seconds = requested?;
        (seconds.is_finite() && seconds > 0.0 && seconds <= self.max_retry_after.as_secs_f64())
            .then(|| Duration::from_secs_f64(seconds))
    }

    /// The backoff before retry number `retry` (0 for the first retry), without server hints.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(30));
        let delay = self
            .initial_delay
            .saturating_mul(factor)
            .min(self.max_delay);
        if self.jitter {
            delay.mul_f64(1.0 - 0.25 * random_unit())
        } else {
            delay
        }
    }

    /// The delay before retry number `retry`: the server's, else the backoff.
    pub fn delay(&self, retry: u32, headers: Option<&HeaderMap>) -> Duration {
        headers
            .and_then(|h| self.server_delay(h))
            .unwrap_or_else(|| self.backoff(retry))
    }
}

/// `retry-after`: seconds (possibly fractional) or an HTTP date (any of the three forms HTTP
/// allows, read by `httpdate`). A date in the past gives a negative number of seconds.
fn parse_retry_after(value: &str) -> Option<f64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return Some(seconds);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(match when.duration_since(SystemTime::now()) {
        Ok(ahead) => ahead.as_secs_f64(),
        Err(past) => -past.duration().as_secs_f64(),
    })
}

/// A number in `[0, 1)`, random enough for jitter, without a dependency: std's randomly keyed
/// hasher fed with the clock.
fn random_unit() -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    #[test]
    fn statuses_and_override() {
        let policy = RetryPolicy::default();
        let none = HeaderMap::new();
        for status in [408, 409, 429, 500, 502, 503, 529] {
            assert!(policy.should_retry_status(status, &none), "{status}");
        }
        for status in [400, 401, 403, 404, 413, 422] {
            assert!(!policy.should_retry_status(status, &none), "{status}");
        }
        assert!(policy.should_retry_status(400, &headers(&[("x-should-retry", "true")])));
        assert!(!policy.should_retry_status(529, &headers(&[("x-should-retry", "false")])));
    }

    #[test]
    fn server_delays() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.server_delay(&headers(&[("retry-after-ms", "250")])),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            policy.server_delay(&headers(&[("retry-after", "3")])),
            Some(Duration::from_secs(3))
        );
        // Too long or not positive: ignored, the backoff applies.
        assert_eq!(
            policy.server_delay(&headers(&[("retry-after", "61")])),
            None
        );
        assert_eq!(policy.server_delay(&headers(&[("retry-after", "0")])), None);
        assert_eq!(
            policy.server_delay(&headers(&[("retry-after", "soon")])),
            None
        );
        // A date in the past is not positive.
        assert_eq!(
            policy.server_delay(&headers(&[(
                "retry-after",
                "Wed, 21 Oct 2015 07:28:00 GMT"
            )])),
            None
        );
        assert!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT").unwrap() < 0.0);
        // A date a few seconds ahead, in each form HTTP allows, is obeyed.
        let ahead = SystemTime::now() + Duration::from_secs(30);
        let imf = httpdate::fmt_http_date(ahead);
        let delay = policy
            .server_delay(&headers(&[("retry-after", &imf)]))
            .unwrap();
        assert!(
            delay > Duration::from_secs(25) && delay <= Duration::from_secs(30),
            "{imf}: {delay:?}"
        );
        for obsolete in ["Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            assert!(parse_retry_after(obsolete).unwrap() < 0.0, "{obsolete}");
        }
        // Too far ahead: the backoff applies.
        let late = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(3600));
        assert_eq!(
            policy.server_delay(&headers(&[("retry-after", &late)])),
            None
        );
        assert_eq!(parse_retry_after("Wed, 32 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let policy = RetryPolicy {
            jitter: false,
            ..RetryPolicy::default()
        };
        assert_eq!(policy.backoff(0), Duration::from_millis(500));
        assert_eq!(policy.backoff(1), Duration::from_secs(1));
        assert_eq!(policy.backoff(4), Duration::from_secs(8));
        assert_eq!(policy.backoff(10), Duration::from_secs(8));
        let jittered = RetryPolicy::default();
        for retry in 0..5 {
            let d = jittered.backoff(retry);
            let full = policy.backoff(retry);
            assert!(d <= full && d >= full.mul_f64(0.75), "{d:?} vs {full:?}");
        }
    }
}
