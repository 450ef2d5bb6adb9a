//! What the benchmark's peer servers share with `skills_runtime::mcp::SkillsServer::serve_http`:
//! the same Streamable HTTP configuration (stateless, JSON responses, no keep-alive events) on the
//! same hyper HTTP/1.1 loop, so that the servers measured differ only in their handlers.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

/// The value of `--NAME VALUE` on the command line.
pub fn flag(name: &str) -> Option<String> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == format!("--{name}") {
            return args.next();
        }
    }
    None
}

/// Binds `--http ADDR`, prints `listening on http://ADDR/mcp` as the `mcp_server` example does,
/// then serves `server` statelessly until accepting fails.
pub async fn serve_http<S: ServerHandler + Clone + Send + Sync + 'static>(
    server: S,
) -> io::Result<()> {
    let addr: SocketAddr = flag("http")
        .ok_or_else(|| io::Error::other("usage: --http ADDR"))?
        .parse()
        .map_err(io::Error::other)?;
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None),
    );
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let service = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The headers every request of the benchmark carries: a JSON-RPC POST as a Streamable HTTP
/// client sends it.
pub fn post(client: &reqwest::Client, url: &str, body: &'static str) -> reqwest::RequestBuilder {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body)
}

/// `Ok` when `body` is a JSON-RPC success: a `result`, no `error`, not a tool result marked
/// `isError`, and holding `expect` (a piece of the content served) when given.
pub fn check_success(status: u16, body: &[u8], expect: Option<&str>) -> Result<(), String> {
    let text = String::from_utf8_lossy(body);
    let short = || text.chars().take(300).collect::<String>();
    if status != 200 {
        return Err(format!("HTTP {status}: {}", short()));
    }
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("not JSON ({e}): {}", short()))?;
    let result = value
        .get("result")
        .filter(|_| value.get("error").is_none())
        .ok_or_else(|| format!("not a success: {}", short()))?;
    if result.get("isError") == Some(&serde_json::Value::Bool(true)) {
        return Err(format!("tool error: {}", short()));
    }
    if let Some(expect) = expect
        && !text.contains(expect)
    {
        return Err(format!("{expect:?} not in the response: {}", short()));
    }
    Ok(())
}
