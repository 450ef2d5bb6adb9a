//! [`HttpServerOptions`]: the limits, origins and hosts of the HTTP server.

use std::time::Duration;

/// Default [`HttpServerOptions::header_read_timeout`]: 10 s.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default [`HttpServerOptions::body_read_timeout`]: 30 s.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Default [`HttpServerOptions::idle_timeout`]: 60 s.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default [`HttpServerOptions::max_connections`]: 256.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// Default [`HttpServerOptions::max_request_body_bytes`]: 4 MiB.
pub const DEFAULT_MAX_REQUEST_BODY_BYTES: usize = 4 * 1024 * 1024;
/// Default [`HttpServerOptions::max_buffered_body_bytes`]: 64 MiB.
pub const DEFAULT_MAX_BUFFERED_BODY_BYTES: usize = 64 * 1024 * 1024;

/// The browser origins always served, on any port: pages served from this machine itself, such
/// as the MCP Inspector's web UI (`http://localhost:6274`). The MCP transport asks a server to
/// refuse *foreign* origins, against DNS rebinding (a page of another site whose name resolves
/// to 127.0.0.1 sends its own origin, never one of these).
pub const LOCALHOST_ORIGINS: [&str; 3] =
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// How [`SkillsServer::serve_http_with`](crate::SkillsServer::serve_http_with) serves: timeouts
/// for slow or silent clients, caps on connections and on the request bodies held in memory,
/// and the `Origin` and `Host` values accepted. [`Default`] gives the documented defaults; each
/// method changes one.
#[derive(Clone, Debug)]
pub struct HttpServerOptions {
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) max_request_body_bytes: usize,
    pub(crate) max_buffered_body_bytes: usize,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) allowed_hosts: Option<Vec<String>>,
}

impl Default for HttpServerOptions {
    fn default() -> Self {
        HttpServerOptions {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_request_body_bytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
            max_buffered_body_bytes: DEFAULT_MAX_BUFFERED_BODY_BYTES,
            allowed_origins: Vec::new(),
            allowed_hosts: None,
        }
    }
}

impl HttpServerOptions {
    /// How long a client has to send a request's headers, counted from when the server starts
    /// waiting for them, also between requests on a kept-alive connection (default
    /// [`DEFAULT_HEADER_READ_TIMEOUT`]). Past it the connection is closed.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a client has to send a request's whole body once its headers are in (default
    /// [`DEFAULT_BODY_READ_TIMEOUT`]). Past it the answer is `408 Request Timeout`.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// How long a connection may pass no byte in either direction (default
    /// [`DEFAULT_IDLE_TIMEOUT`]): a client that stops sending a body, or stops reading an
    /// answer, loses its connection.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// The most connections served at once (default [`DEFAULT_MAX_CONNECTIONS`], at least 1).
    /// When that many are open, the next ones wait in the listener's queue until one closes.
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// The largest request body accepted, in bytes (default
    /// [`DEFAULT_MAX_REQUEST_BODY_BYTES`]); a larger one gets `413 Payload Too Large`, before
    /// it is read when its `Content-Length` says so.
    pub fn max_request_body_bytes(mut self, max: usize) -> Self {
        self.max_request_body_bytes = max;
        self
    }

    /// The most bytes of request bodies held in memory at once, over all connections (default
    /// [`DEFAULT_MAX_BUFFERED_BODY_BYTES`]). Each request reserves its `Content-Length` (or
    /// [`max_request_body_bytes`](Self::max_request_body_bytes) when it sends none) before its
    /// body is read, until it is answered; a request that does not fit gets
    /// `503 Service Unavailable` with `Retry-After: 1` at once (so a body larger than this
    /// budget is never served).
    pub fn max_buffered_body_bytes(mut self, max: usize) -> Self {
        self.max_buffered_body_bytes = max;
        self
    }

    /// More browser origins to serve besides the [`LOCALHOST_ORIGINS`], as
    /// `scheme://host:port` (`:*` for any port; `null` for `Origin: null`). A request without
    /// `Origin` is always served (it comes from a program, not a web page); one whose `Origin` is
    /// neither a localhost origin nor listed gets `403 Forbidden`. Default: none, so a page of
    /// any other site, and a sandboxed page (`Origin: null`), is refused.
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The `Host` values served (names, or `name:port`); others get `403 Forbidden`. Default:
    /// `localhost`, `127.0.0.1` and `::1`, as a server on loopback needs.
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }
}
