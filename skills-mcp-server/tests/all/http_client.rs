//! A raw HTTP/1.1 client for the tests of the HTTP serving layer: exact bytes out (half a
//! header, a body that stops), the status and body back.

use std::net::SocketAddr;
use std::time::Duration;

use skills_runtime::mcp::SkillsServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A small bundle (a skill with resources, one without), served by every HTTP test and read
/// over the pipe by `server`'s.
pub static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("../skills-test-support/fixtures/with-resources");

/// A JSON-RPC `initialize` request as a Streamable HTTP client sends it.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;

/// Serves [`SKILLS`] with `options` on a free port of 127.0.0.1; returns its address.
pub async fn start(options: skills_runtime::mcp::HttpServerOptions) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(SkillsServer::new(&SKILLS).serve_http_with(listener, options));
    addr
}

/// The head of a POST to `/mcp` with `extra` header lines and a body of `length` bytes.
pub fn head(addr: SocketAddr, extra: &str, length: usize) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n{extra}\
         Content-Length: {length}\r\n\r\n"
    )
}

/// The status and body of the response on `stream`, read to its end.
pub async fn response(stream: &mut TcpStream) -> (u16, String) {
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes).await;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// POSTs `body` with `extra` header lines; the status and body of the answer.
pub async fn post(addr: SocketAddr, extra: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(head(addr, extra, body.len()).as_bytes())
        .await
        .unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    response(&mut stream).await
}

/// [`post`] of [`INITIALIZE`], failing the test when no answer comes within `limit`.
pub async fn initialize_within(addr: SocketAddr, limit: Duration) -> (u16, String) {
    tokio::time::timeout(limit, post(addr, "", INITIALIZE))
        .await
        .unwrap_or_else(|_| panic!("no answer within {limit:?}"))
}

/// Whether the server closes `stream` (end of file or an error) within `limit`.
pub async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut byte = [0u8; 1024];
    let read = async {
        loop {
            match stream.read(&mut byte).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(limit, read).await.is_ok()
}
