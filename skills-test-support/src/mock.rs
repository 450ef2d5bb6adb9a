//! A raw-socket HTTP/1.1 mock server on 127.0.0.1, for what a well-behaved HTTP server cannot
//! be made to send.
//!
//! The agent tests that check exact requests against scripted JSON replies use wiremock
//! (`api_mock.rs`). This one stays for the rest, all of which wiremock (hyper underneath, which
//! frames every response correctly and buffers each body whole) cannot do:
//!
//! - [`Reply::Raw`]: bytes written as-is before closing the connection, e.g. a response that
//!   declares 5000 bytes and is cut off after a few;
//! - [`Reply::Paced`]: a chunked body written piece by piece with pauses between the pieces (a
//!   streamed reply as a model server sends it, an idle stream), optionally closed before its
//!   end;
//! - [`Reply::Endless`]: a body generated for as long as the client reads, or with a declared
//!   length of a gigabyte, without holding it in memory, and [`MockServer::streamed_bytes`],
//!   the count of body bytes the client let it write, which the size-limit tests assert on;
//! - the benchmark (`benches/agent.rs`), whose published numbers were measured against
//!   this server, with [`MockServer::stop_recording`] to keep the mock's own memory out of them.
//!
//! It answers from a queue of scripted [`Reply`]s (the last one repeats when `repeat_last` is
//! set) and records every request exactly as received: method, path, headers and body bytes.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One recorded request.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The request method.
    pub method: String,
    /// The request target: path and query.
    pub path: String,
    /// Header names lowercased, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body bytes as received.
    pub body: Vec<u8>,
}

impl Recorded {
    /// The value of the header `name` (lowercase), if it was sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (the test fails when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }

    /// The body as text, invalid UTF-8 replaced.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A well-formed response with a body of known length.
    Http {
        /// The status code.
        status: u16,
        /// The headers besides the framing ones.
        headers: Vec<(String, String)>,
        /// The body.
        body: Vec<u8>,
    },
    /// Written as-is; then the connection is closed.
    Raw(Vec<u8>),
    /// The inner reply, after a pause (to trip client timeouts).
    Delayed(std::time::Duration, Box<Reply>),
    /// A chunked body: each of `chunks` in its own HTTP chunk, `interval` after the one
    /// before, then the terminating chunk, or, when `cut`, the connection closed instead.
    Paced {
        /// The status code.
        status: u16,
        /// The `content-type` header.
        content_type: String,
        /// The pieces of the body, one chunk each.
        chunks: Vec<Vec<u8>>,
        /// The pause before each piece.
        interval: std::time::Duration,
        /// Whether the connection is closed instead of the terminating chunk.
        cut: bool,
    },
    /// `prefix`, then `filler` repeated until the client stops reading (or `declared_length`
    /// bytes in all, when set). Chunked unless a length is declared. The bytes written are
    /// counted in [`MockServer::streamed_bytes`].
    Endless {
        /// The status code.
        status: u16,
        /// The first bytes of the body.
        prefix: Vec<u8>,
        /// The bytes repeated after `prefix`.
        filler: Vec<u8>,
        /// The `content-length` declared, if any.
        declared_length: Option<u64>,
    },
}

impl Reply {
    /// A JSON body (`content-type: application/json`).
    pub fn json(status: u16, body: &serde_json::Value) -> Reply {
        Reply::Http {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: serde_json::to_vec(body).unwrap(),
        }
    }

    /// A `text/html` body, as proxies and gateways send.
    pub fn text(status: u16, body: &str) -> Reply {
        Reply::Http {
            status,
            headers: vec![("content-type".into(), "text/html".into())],
            body: body.as_bytes().to_vec(),
        }
    }

    /// The same reply with one more header (an [`Reply::Http`] only).
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Http { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    repeat_last: bool,
    not_recording: bool,
    requests: Vec<Recorded>,
}

/// The raw-socket server on 127.0.0.1, stopped when dropped.
pub struct MockServer {
    addr: std::net::SocketAddr,
    state: Arc<Mutex<State>>,
    streamed: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockServer {
    /// Starts a server answering `replies` in order.
    pub async fn start(replies: Vec<Reply>) -> MockServer {
        Self::start_with(replies, false).await
    }

    /// Starts a server that answers `reply` to every request.
    pub async fn repeating(reply: Reply) -> MockServer {
        Self::start_with(vec![reply], true).await
    }

    async fn start_with(replies: Vec<Reply>, repeat_last: bool) -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            replies: replies.into(),
            repeat_last,
            not_recording: false,
            requests: Vec::new(),
        }));
        let shared = Arc::clone(&state);
        let streamed = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&streamed);
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let state = Arc::clone(&shared);
                let counter = Arc::clone(&counter);
                tokio::spawn(async move {
                    let _ = serve(stream, state, counter).await;
                });
            }
        });
        MockServer {
            addr,
            state,
            streamed,
            task,
        }
    }

    /// `http://127.0.0.1:PORT`.
    /// The base URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    /// How many requests were received.
    pub fn request_count(&self) -> usize {
        self.state.lock().unwrap().requests.len()
    }

    /// Stops recording requests (the benchmark measures memory without the mock's copies).
    pub fn stop_recording(&self) {
        let mut state = self.state.lock().unwrap();
        state.not_recording = true;
        state.requests.clear();
    }

    /// Body bytes written by [`Reply::Endless`] replies so far.
    pub fn streamed_bytes(&self) -> u64 {
        self.streamed.load(Ordering::Relaxed)
    }

    /// Forgets the recorded requests (the benchmark keeps memory flat this way).
    pub fn clear_requests(&self) {
        self.state.lock().unwrap().requests.clear();
    }
}

async fn serve(
    mut stream: TcpStream,
    state: Arc<Mutex<State>>,
    streamed: Arc<AtomicU64>,
) -> std::io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    loop {
        // Read the head.
        let head_end = loop {
            if let Some(pos) = find(&buf, b"\r\n\r\n") {
                break pos;
            }
            let mut chunk = [0u8; 16 * 1024];
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let mut request_line = lines.next().unwrap_or("").split_whitespace();
        let method = request_line.next().unwrap_or("").to_owned();
        let path = request_line.next().unwrap_or("").to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let length: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let body_start = head_end + 4;
        while buf.len() < body_start + length {
            let mut chunk = vec![0u8; 64 * 1024];
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        let body = buf[body_start..body_start + length].to_vec();
        buf.drain(..body_start + length);

        let reply = {
            let mut state = state.lock().unwrap();
            if !state.not_recording {
                state.requests.push(Recorded {
                    method,
                    path,
                    headers,
                    body,
                });
            }
            let reply = if state.repeat_last && state.replies.len() == 1 {
                state.replies.front().cloned()
            } else {
                state.replies.pop_front()
            };
            reply.unwrap_or_else(|| {
                Reply::json(
                    500,
                    &serde_json::json!({"error": {"type": "mock", "message": "mock: no more replies"}}),
                )
                .header("x-should-retry", "false")
            })
        };
        let reply = match reply {
            Reply::Delayed(pause, inner) => {
                tokio::time::sleep(pause).await;
                *inner
            }
            other => other,
        };
        match reply {
            Reply::Delayed(..) => unreachable!("nested delays are not used"),
            Reply::Raw(bytes) => {
                stream.write_all(&bytes).await?;
                stream.flush().await?;
                return Ok(());
            }
            Reply::Paced {
                status,
                content_type,
                chunks,
                interval,
                cut,
            } => {
                // Each piece goes out when written, not held back for the ACK of the one
                // before (Nagle's algorithm, which the client's delayed ACK turns into 40 ms).
                stream.set_nodelay(true)?;
                let head = format!(
                    "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\n\
                     transfer-encoding: chunked\r\n\r\n",
                    reason(status)
                );
                stream.write_all(head.as_bytes()).await?;
                stream.flush().await?;
                for (i, chunk) in chunks.iter().enumerate() {
                    if i > 0 && !interval.is_zero() {
                        tokio::time::sleep(interval).await;
                    }
                    if chunk.is_empty() {
                        continue;
                    }
                    let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
                    framed.extend_from_slice(chunk);
                    framed.extend_from_slice(b"\r\n");
                    stream.write_all(&framed).await?;
                    stream.flush().await?;
                    streamed.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                }
                if cut {
                    return Ok(());
                }
                stream.write_all(b"0\r\n\r\n").await?;
                stream.flush().await?;
            }
            Reply::Endless {
                status,
                prefix,
                filler,
                declared_length,
            } => {
                let framing = match declared_length {
                    Some(n) => format!("content-length: {n}"),
                    None => "transfer-encoding: chunked".to_owned(),
                };
                let head = format!(
                    "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\n{framing}\r\n\r\n",
                    reason(status)
                );
                stream.write_all(head.as_bytes()).await?;
                let mut left = declared_length.unwrap_or(u64::MAX);
                let mut piece: &[u8] = &prefix;
                loop {
                    let take = piece.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    if take == 0 {
                        break;
                    }
                    let data = &piece[..take];
                    if declared_length.is_some() {
                        stream.write_all(data).await?;
                    } else {
                        stream
                            .write_all(format!("{:x}\r\n", data.len()).as_bytes())
                            .await?;
                        stream.write_all(data).await?;
                        stream.write_all(b"\r\n").await?;
                    }
                    streamed.fetch_add(take as u64, Ordering::Relaxed);
                    left -= take as u64;
                    piece = &filler;
                }
                if declared_length.is_none() {
                    stream.write_all(b"0\r\n\r\n").await?;
                }
                stream.flush().await?;
                return Ok(());
            }
            Reply::Http {
                status,
                headers,
                body,
            } => {
                let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status));
                for (k, v) in &headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
                let mut bytes = out.into_bytes();
                bytes.extend_from_slice(&body);
                stream.write_all(&bytes).await?;
                stream.flush().await?;
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}
