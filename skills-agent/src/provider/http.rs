//! The HTTP client both providers share: an [`Endpoint`] (client, URL and headers built once),
//! POST with the retry policy, bounded reading of whole and streamed bodies, and the mapping
//! of every failure to a redacted [`ApiError`].

use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION};
use serde_json::Value;

use super::api::Response;
use super::json::server_error;
use super::sse;
use crate::error::{ApiError, ApiErrorKind};
use crate::events::EventSink;
use crate::redact::{Redactor, SCAN_LIMIT, redact, redact_to};
use crate::retry::RetryPolicy;

/// The default limit on a response body, in bytes (32 MiB): far above any real reply, far below
/// what would hurt. Set per provider with `max_response_bytes`.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// How much of an error (non-2xx) body is read, in bytes; the rest is ignored. Only a message
/// is taken from it.
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// Most redirects followed for one request (all within the base URL's origin).
pub const MAX_REDIRECTS: usize = 5;

/// HTTP settings shared by the HTTP providers.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Whole-request timeout (default 600 s, as the SDKs). A streamed reply has no total
    /// limit: it fails when no byte arrives for this long.
    pub timeout: Duration,
    /// Connect timeout (default 10 s).
    pub connect_timeout: Duration,
    /// Retry policy.
    pub retry: RetryPolicy,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            timeout: Duration::from_secs(600),
            connect_timeout: Duration::from_secs(10),
            retry: RetryPolicy::default(),
        }
    }
}

impl HttpOptions {
    fn client(&self) -> Result<reqwest::Client, ApiError> {
        // The timeout is set per request: whole for a reply read at once, per read for a stream.
        reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .user_agent(concat!("skills-runtime/", env!("CARGO_PKG_VERSION")))
            .redirect(same_origin_redirects())
            .build()
            .map_err(|e| {
                ApiError::new(
                    ApiErrorKind::Transport,
                    "http",
                    format!("cannot build the HTTP client: {e}"),
                )
            })
    }
}

/// The methods the builders of the HTTP providers share, on fields of the same names:
/// `model`, `base_url` (its variable, default and the path appended named in its docs), `http`
/// and `max_response_bytes`.
macro_rules! shared_builder_methods {
    ($variable:literal, $default:literal, $path:literal) => {
        /// The model asked for (`MODEL_ID` in the environment's selection).
        pub fn model(mut self, model: impl Into<String>) -> Self {
            self.model = model.into();
            self
        }

        #[doc = concat!(
                    "Where the API is (`", $variable, "`; default `", $default, "`); `", $path,
                    "` is appended."
                )]
        pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
            self.base_url = base_url.into();
            self
        }

        /// Timeouts and retries.
        pub fn http(mut self, options: HttpOptions) -> Self {
            self.http = options;
            self
        }

        /// The largest response body accepted, in bytes (default
        /// [`DEFAULT_MAX_RESPONSE_BYTES`](crate::provider::DEFAULT_MAX_RESPONSE_BYTES)); a larger one
        /// fails with [`ApiErrorKind::ResponseTooLarge`](crate::ApiErrorKind::ResponseTooLarge)
        /// once the limit is crossed.
        pub fn max_response_bytes(mut self, bytes: usize) -> Self {
            self.max_response_bytes = bytes;
            self
        }
    };
}

pub(crate) use shared_builder_methods;

/// Follows a redirect only to the origin (scheme, host, port) of the first URL, and at most
/// [`MAX_REDIRECTS`] times. Anything else stops, and the 3xx answer becomes a
/// [`ApiErrorKind::Redirect`] error.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let previous = attempt.previous();
        let same_origin = previous.first().is_some_and(|first| {
            let next = attempt.url();
            first.scheme() == next.scheme()
                && first.host_str() == next.host_str()
                && first.port_or_known_default() == next.port_or_known_default()
        });
        if same_origin && previous.len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// Where and how an HTTP provider sends its requests: the client, the URL and the headers (key
/// included) are built once, at construction, and reused on every turn.
pub(crate) struct Endpoint {
    provider: &'static str,
    client: reqwest::Client,
    retry: RetryPolicy,
    timeout: Duration,
    url: String,
    path: &'static str,
    headers: HeaderMap,
    /// Whether requests carry an API key.
    has_key: bool,
    /// The API key, masked in anything that ends up in an error or a log (nothing to mask when
    /// there is no key, or only a placeholder).
    redactor: Redactor,
    /// The largest 2xx body read.
    max_response_bytes: usize,
}

impl Endpoint {
    /// An endpoint at `{base_url}{path}` (a trailing `/` of the base is dropped, so there is
    /// exactly one slash).
    pub(crate) fn new(
        provider: &'static str,
        base_url: &str,
        path: &'static str,
        headers: HeaderMap,
        secret: String,
        options: HttpOptions,
    ) -> Result<Self, ApiError> {
        Ok(Endpoint {
            provider,
            client: options.client()?,
            retry: options.retry,
            timeout: options.timeout,
            url: format!("{}{path}", base_url.trim_end_matches('/')),
            path,
            headers,
            has_key: !secret.is_empty(),
            redactor: Redactor::for_key(&secret),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        })
    }

    /// Sets the largest 2xx body read (at least 1 byte).
    pub(crate) fn set_max_response_bytes(&mut self, bytes: usize) {
        self.max_response_bytes = bytes.max(1);
    }

    /// The base URL, as configured (without a trailing `/`).
    pub(crate) fn base_url(&self) -> &str {
        &self.url[..self.url.len() - self.path.len()]
    }

    /// Whether requests carry an API key.
    pub(crate) fn has_key(&self) -> bool {
        self.has_key
    }

    /// The masker of this endpoint's key, for what the agent shows or keeps.
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// POSTs the encoded `body` with the retry policy, reads the 2xx answer (whole, or as a
    /// stream `decoder` rebuilds, sending events to `sink`), reads that with `parse` and emits
    /// the `model request` event.
    pub(crate) async fn complete<D: StreamDecoder>(
        &self,
        model: &str,
        body: Vec<u8>,
        stream: Option<(D, EventSink<'_>)>,
        parse: impl FnOnce(Value) -> Result<Response, ApiError>,
    ) -> Result<Response, ApiError> {
        let (value, retries) = self.post(body, stream).await?;
        let mut response = parse(value).map_err(|e| {
            e.redact_secret(self.redactor.secret())
                .with_retries(retries)
                .with_status(200)
        })?;
        response.retries = retries;
        log_response(self.provider, model, &response);
        Ok(response)
    }

    /// POSTs `body` with the retry policy; returns the JSON of the 2xx answer (read whole, or
    /// rebuilt from the stream) and the number of retries made.
    async fn post<D: StreamDecoder>(
        &self,
        body: Vec<u8>,
        mut stream: Option<(D, EventSink<'_>)>,
    ) -> Result<(Value, u32), ApiError> {
        let mut retry = 0u32;
        loop {
            let (error, wait_headers) = match self.attempt(&body, stream.is_some(), retry).await {
                Attempt::Fatal(error) => return Err(error),
                Attempt::Retry(error, headers) => (error, headers),
                Attempt::Success(response, headers) => {
                    let status = response.status().as_u16();
                    let read = match stream.take() {
                        None => self.read_whole(response, &headers, status).await,
                        Some((decoder, sink)) => {
                            let read = self
                                .read_stream(response, &headers, status, decoder, sink)
                                .await;
                            match read {
                                Read::NoByte(error, decoder) => {
                                    stream = Some((decoder, sink));
                                    Read::Retry(error)
                                }
                                other => other,
                            }
                        }
                    };
                    match read {
                        Read::Done(value) => return Ok((value, retry)),
                        Read::Fatal(error) => {
                            return Err(error
                                .redact_secret(self.redactor.secret())
                                .with_status(status)
                                .with_retries(retry));
                        }
                        Read::Retry(error) | Read::NoByte(error, _) => {
                            (error.with_status(status), Some(headers))
                        }
                    }
                }
            };
            if retry >= self.retry.max_retries {
                return Err(error.with_retries(retry));
            }
            let delay = self.retry.delay(retry, wait_headers.as_ref());
            tracing::warn!(
                provider = self.provider,
                status = error.status().unwrap_or(0),
                kind = error.kind().label(),
                retry = retry + 1,
                delay_ms = delay.as_millis() as u64,
                "model request failed; retrying"
            );
            (self.retry.sleeper)(delay).await;
            retry += 1;
        }
    }

    /// One POST: a 2xx answer with its body unread, or what failed and whether to retry. A
    /// non-2xx body is read here (up to [`MAX_ERROR_BODY_BYTES`]) for its message.
    async fn attempt(&self, body: &[u8], streaming: bool, retry: u32) -> Attempt {
        let (provider, policy, secret) = (self.provider, &self.retry, self.redactor.secret());
        let request = self
            .client
            .post(&self.url)
            .headers(self.headers.clone())
            .body(body.to_vec());
        // A stream has no total limit, only the wait for its headers and then for each read.
        let result = if streaming {
            match tokio::time::timeout(self.timeout, request.send()).await {
                Ok(result) => result,
                Err(_) => return Attempt::Retry(self.idle_error(), None),
            }
        } else {
            request.timeout(self.timeout).send().await
        };
        let mut response = match result {
            Ok(response) => response,
            Err(e) => return Attempt::Retry(transport_error(provider, e, secret), None),
        };
        let status = response.status().as_u16();
        let headers = std::mem::take(response.headers_mut());
        if (300..400).contains(&status) {
            return Attempt::Fatal(
                redirect_error(provider, &response, &headers, secret)
                    .with_status(status)
                    .with_retries(retry),
            );
        }
        if (200..300).contains(&status) {
            return Attempt::Success(response, headers);
        }
        // A streamed request has no total limit (see above), so the error body gets the same
        // bound as the wait for each piece of a stream: a server that sends its error slowly or
        // not at all cannot hold the run.
        let error_body = read_body(&mut response, &headers, MAX_ERROR_BODY_BYTES, false);
        let error_body = if streaming {
            match tokio::time::timeout(self.timeout, error_body).await {
                Ok(read) => read,
                Err(_) => {
                    return Attempt::Retry(self.idle_error().with_status(status), Some(headers));
                }
            }
        } else {
            error_body.await
        };
        match error_body {
            Err(e) => Attempt::Retry(
                transport_error(provider, e, secret).with_status(status),
                Some(headers),
            ),
            Ok(body) => {
                let error = status_error(provider, status, &body.into_bytes(), secret)
                    .with_retry_after(policy.server_delay(&headers));
                if policy.should_retry_status(status, &headers) {
                    Attempt::Retry(error, Some(headers))
                } else {
                    Attempt::Fatal(error.with_retries(retry))
                }
            }
        }
    }

    /// Reads a 2xx body whole, up to the limit, as JSON. A transport failure while reading is
    /// retried (nothing of it was used).
    async fn read_whole<D>(
        &self,
        mut response: reqwest::Response,
        headers: &HeaderMap,
        status: u16,
    ) -> Read<D> {
        let started = Instant::now();
        match read_body(&mut response, headers, self.max_response_bytes, true).await {
            Err(e) => Read::Retry(transport_error(self.provider, e, self.redactor.secret())),
            Ok(Body::TooLarge { declared, .. }) => Read::Fatal(self.too_large(declared)),
            Ok(Body::Complete(bytes)) => {
                tracing::debug!(
                    provider = self.provider,
                    status,
                    bytes = bytes.len(),
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "model response received"
                );
                match self.json_answer(status, &bytes) {
                    Ok(value) => Read::Done(value),
                    Err(error) => Read::Fatal(error),
                }
            }
        }
    }

    /// Reads a 2xx event stream through `decoder` and returns the body it rebuilt. Until the
    /// first byte arrives a failure hands the decoder back for a retry ([`Read::NoByte`]);
    /// after it every failure is final. A server that answers JSON instead of a stream (some
    /// ignore `stream`, some send an error object) is read as a whole body.
    async fn read_stream<D: StreamDecoder>(
        &self,
        mut response: reqwest::Response,
        headers: &HeaderMap,
        status: u16,
        mut decoder: D,
        sink: EventSink<'_>,
    ) -> Read<D> {
        let started = Instant::now();
        let limit = self.max_response_bytes;
        let declared = content_length(headers);
        if declared.is_some_and(|n| n > limit as u64) {
            return Read::Fatal(self.too_large(declared));
        }
        let first = match self.next_chunk(&mut response).await {
            Err(error) => return Read::NoByte(error, decoder),
            Ok(None) => {
                let error = ApiError::new(
                    ApiErrorKind::Transport,
                    self.provider,
                    "the stream closed before its first byte",
                );
                return Read::NoByte(error, decoder);
            }
            Ok(Some(first)) => first,
        };
        let is_json = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("application/json"));
        let mut total = 0usize;
        let mut reader = sse::SseReader::default();
        let mut events = Vec::new();
        let mut whole = Vec::new();
        let mut chunk = Some(first);
        loop {
            let ended = match chunk.take() {
                Some(bytes) => {
                    total = total.saturating_add(bytes.len());
                    if total > limit {
                        return Read::Fatal(self.too_large(declared));
                    }
                    if is_json {
                        whole.extend_from_slice(&bytes);
                    } else if let Err(message) = reader.feed(&bytes, &mut events) {
                        return Read::Fatal(self.malformed_stream(message));
                    }
                    false
                }
                None => {
                    if let Err(message) = reader.finish(&mut events) {
                        return Read::Fatal(self.malformed_stream(message));
                    }
                    true
                }
            };
            for event in events.drain(..) {
                match self.stream_event(&mut decoder, &event, sink) {
                    Ok(false) => {}
                    Ok(true) => {
                        tracing::debug!(
                            provider = self.provider,
                            status,
                            bytes = total,
                            elapsed_ms = started.elapsed().as_millis() as u64,
                            "model stream received"
                        );
                        return match decoder.finish() {
                            Ok(value) => Read::Done(value),
                            Err(error) => Read::Fatal(error),
                        };
                    }
                    Err(error) => return Read::Fatal(error),
                }
            }
            if ended {
                if is_json {
                    return match self.json_answer(status, &whole) {
                        Ok(value) => Read::Done(value),
                        Err(error) => Read::Fatal(error),
                    };
                }
                return Read::Fatal(ApiError::new(
                    ApiErrorKind::Transport,
                    self.provider,
                    format!(
                        "the stream ended after {total} bytes, before its last event ({}); \
                         the reply is incomplete and was not kept",
                        D::LAST_EVENT
                    ),
                ));
            }
            chunk = match self.next_chunk(&mut response).await {
                Ok(Some(bytes)) => Some(bytes),
                Ok(None) => None,
                Err(error) => {
                    return Read::Fatal(ApiError::new(
                        error.kind(),
                        self.provider,
                        format!(
                            "{} (after {total} bytes of the stream, before its last event; \
                             the reply is incomplete and was not kept)",
                            error.message()
                        ),
                    ));
                }
            };
        }
    }

    /// One event for `decoder`: the `[DONE]` marker, or JSON, which an error object turns
    /// into the error it carries. Returns whether it was the last event.
    fn stream_event<D: StreamDecoder>(
        &self,
        decoder: &mut D,
        event: &sse::SseEvent,
        sink: EventSink<'_>,
    ) -> Result<bool, ApiError> {
        if event.data.trim() == "[DONE]" {
            return decoder.event(&event.name, None, sink);
        }
        let value = serde_json::from_str::<Value>(&event.data).map_err(|e| {
            self.malformed_stream(format!(
                "a `{}` event is not valid JSON ({e}); it starts with: {}",
                redact_to(&event.name, self.redactor.secret(), 40),
                preview(event.data.as_bytes(), self.redactor.secret())
            ))
        })?;
        if server_error(&value).is_some() {
            return Err(status_error(
                self.provider,
                200,
                event.data.as_bytes(),
                self.redactor.secret(),
            ));
        }
        decoder.event(&event.name, Some(value), sink)
    }

    /// The next piece of a streamed body, waiting at most the timeout for it.
    async fn next_chunk(
        &self,
        response: &mut reqwest::Response,
    ) -> Result<Option<bytes::Bytes>, ApiError> {
        match tokio::time::timeout(self.timeout, response.chunk()).await {
            Err(_) => Err(self.idle_error()),
            Ok(Err(e)) => Err(transport_error(self.provider, e, self.redactor.secret())),
            Ok(Ok(chunk)) => Ok(chunk),
        }
    }

    fn idle_error(&self) -> ApiError {
        ApiError::new(
            ApiErrorKind::Transport,
            self.provider,
            format!(
                "timed out: no data from the server for {:.1} s",
                self.timeout.as_secs_f64()
            ),
        )
    }

    fn malformed_stream(&self, message: String) -> ApiError {
        ApiError::new(
            ApiErrorKind::MalformedResponse,
            self.provider,
            redact(&message, self.redactor.secret()),
        )
    }

    fn too_large(&self, declared: Option<u64>) -> ApiError {
        let declared = declared
            .map(|n| format!(" (it declares {n} bytes)"))
            .unwrap_or_default();
        ApiError::new(
            ApiErrorKind::ResponseTooLarge,
            self.provider,
            format!(
                "the body is over the limit of {} bytes{declared}; reading stopped there (raise \
                 max_response_bytes if the server is trusted)",
                self.max_response_bytes
            ),
        )
    }

    /// A whole 2xx body as JSON. Some servers answer 200 with an error object; it is read as
    /// any error body, with the key masked first.
    fn json_answer(&self, status: u16, bytes: &[u8]) -> Result<Value, ApiError> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value) if server_error(&value).is_some() => Err(status_error(
                self.provider,
                status,
                bytes,
                self.redactor.secret(),
            )),
            Ok(value) => Ok(value),
            Err(e) => Err(ApiError::new(
                ApiErrorKind::MalformedResponse,
                self.provider,
                format!(
                    "the body is not valid JSON ({e}); it starts with: {}",
                    preview(bytes, self.redactor.secret())
                ),
            )),
        }
    }
}

/// What one POST gave.
enum Attempt {
    /// A 2xx answer, its body not read yet, and its headers.
    Success(reqwest::Response, HeaderMap),
    /// A failure worth retrying, with the headers that may say when.
    Retry(ApiError, Option<HeaderMap>),
    /// A failure that is final.
    Fatal(ApiError),
}

/// What reading a 2xx body gave.
enum Read<D> {
    /// The JSON of the reply.
    Done(Value),
    /// A failure while reading a whole body: retried.
    Retry(ApiError),
    /// A stream failed before its first byte: retried with its decoder, still unused.
    NoByte(ApiError, D),
    /// A failure that is final.
    Fatal(ApiError),
}

/// Rebuilds the non-streaming body of a format from its stream events.
pub(crate) trait StreamDecoder: Send {
    /// The event that ends a complete stream, for error messages.
    const LAST_EVENT: &'static str;
    /// Takes one event: its name and its JSON (`None` for a `[DONE]` marker). Sends what it
    /// can show (text) to `sink`. Returns whether the stream is complete.
    fn event(
        &mut self,
        name: &str,
        data: Option<Value>,
        sink: EventSink<'_>,
    ) -> Result<bool, ApiError>;
    /// The body the non-streaming API would have answered, once the stream is complete.
    fn finish(self) -> Result<Value, ApiError>;
}

/// `body` as JSON bytes.
pub(crate) fn encode(
    provider: &'static str,
    body: &impl serde::Serialize,
) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(body).map_err(|e| {
        ApiError::new(
            ApiErrorKind::InvalidRequest,
            provider,
            format!("encoding: {e}"),
        )
    })
}

/// A header value holding the API key, marked sensitive; an `Authentication` error when the key
/// cannot be sent in a header.
pub(crate) fn key_header(provider: &'static str, value: &str) -> Result<HeaderValue, ApiError> {
    let mut header = HeaderValue::from_str(value).map_err(|_| {
        ApiError::new(
            ApiErrorKind::Authentication,
            provider,
            "the API key contains characters not allowed in an HTTP header",
        )
    })?;
    header.set_sensitive(true);
    Ok(header)
}

/// A response body as read by [`read_body`].
enum Body {
    /// The whole body.
    Complete(Vec<u8>),
    /// The body is over the limit: the bytes read before it was crossed (none when the declared
    /// length was already over it), and that declared length.
    TooLarge {
        partial: Vec<u8>,
        declared: Option<u64>,
    },
}

impl Body {
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Body::Complete(bytes) | Body::TooLarge { partial: bytes, .. } => bytes,
        }
    }
}

/// Reads the body chunk by chunk, holding at most `limit` bytes: reading stops as soon as the
/// limit is crossed. When `refuse_declared` is set, it does not start if `content-length` is
/// already over the limit (a 2xx body is useless cut; an error body is read in part).
async fn read_body(
    response: &mut reqwest::Response,
    headers: &HeaderMap,
    limit: usize,
    refuse_declared: bool,
) -> Result<Body, reqwest::Error> {
    let declared = content_length(headers);
    if refuse_declared && declared.is_some_and(|n| n > limit as u64) {
        return Ok(Body::TooLarge {
            partial: Vec::new(),
            declared,
        });
    }
    let expected = declared.map_or(0, |n| n.min(limit as u64) as usize);
    let mut bytes = Vec::with_capacity(expected);
    while let Some(chunk) = response.chunk().await? {
        if chunk.len() > limit - bytes.len() {
            let room = limit - bytes.len();
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Body::TooLarge {
                partial: bytes,
                declared,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Body::Complete(bytes))
}

/// The declared `content-length`, if any.
fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
}

/// The error for a non-2xx answer, or a 2xx answer holding an error object: classified by the
/// status (and an `overloaded_error` type), with the server's message, key masked.
fn status_error(provider: &'static str, status: u16, body: &[u8], secret: &str) -> ApiError {
    let (error_type, message) = error_body(body, secret);
    let kind = if error_type.as_deref() == Some("overloaded_error") {
        ApiErrorKind::Overloaded
    } else if (200..300).contains(&status) {
        ApiErrorKind::MalformedResponse
    } else {
        ApiErrorKind::for_status(status)
    };
    let message = if (200..300).contains(&status) {
        format!("the server answered with an error: {message}")
    } else {
        message
    };
    ApiError::new(kind, provider, message).with_status(status)
}

/// The error for a 3xx answer: a redirect the policy did not follow (another origin, or too
/// many), or one without a usable `Location`.
fn redirect_error(
    provider: &'static str,
    response: &reqwest::Response,
    headers: &HeaderMap,
    secret: &str,
) -> ApiError {
    let target = headers
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|location| response.url().join(location).ok());
    let message = match target {
        Some(target) => format!(
            "the server redirected to {}, which was not followed: the API key is only sent \
             to the origin of the base URL, through at most {MAX_REDIRECTS} redirects (set the \
             base URL to the new address if you trust it)",
            display_url(&target)
        ),
        None => "the server answered with a redirect that cannot be followed".to_owned(),
    };
    ApiError::new(ApiErrorKind::Redirect, provider, redact(&message, secret))
}

/// `url` without user, password, query and fragment: what an error may show of a URL.
fn display_url(url: &reqwest::Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

fn transport_error(provider: &'static str, error: reqwest::Error, secret: &str) -> ApiError {
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_body() || error.is_decode() {
        "the response body was cut off"
    } else {
        "request failed"
    };
    // reqwest's Display names the URL (never headers); it is shown without its query string
    // and user info, and the chain carries the cause.
    let url = error.url().map(display_url);
    let error = error.without_url();
    let mut message = format!("{what}: {error}");
    if let Some(url) = url {
        message.push_str(&format!(" (url: {url})"));
    }
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    ApiError::new(ApiErrorKind::Transport, provider, redact(&message, secret))
}

/// The `error.type` and the best message from an error body, else the start of the body text;
/// the message with `secret` masked.
fn error_body(bytes: &[u8], secret: &str) -> (Option<String>, String) {
    match serde_json::from_slice::<Value>(bytes)
        .ok()
        .as_ref()
        .and_then(server_error)
    {
        Some((kind, message)) => (kind, redact(&message, secret)),
        None => (None, preview(bytes, secret)),
    }
}

/// The start of a body as text, key masked. More than [`SCAN_LIMIT`] bytes are handed to the
/// redaction, so the cut that matters is its word-aware one.
fn preview(bytes: &[u8], secret: &str) -> String {
    let window = &bytes[..bytes.len().min(2 * SCAN_LIMIT)];
    redact_to(String::from_utf8_lossy(window).trim(), secret, 300)
}

/// The `model request` event every provider emits after a successful call.
fn log_response(provider: &str, model: &str, response: &Response) {
    tracing::info!(
        provider,
        model,
        input_tokens = response.usage.input_tokens,
        output_tokens = response.usage.output_tokens,
        cache_read_tokens = response.usage.cache_read_tokens,
        retries = response.retries,
        tool_calls = response.turn.tool_calls.len(),
        "model request"
    );
}
