//! The HTTP server against clients that would keep it busy: half a header each from 300 of
//! them, a body that stops, a body that trickles, more connections than the cap, bodies over
//! the cap, and requests from foreign origins and hosts (localhost origins are served); and the
//! shape each negotiated protocol revision gets over HTTP.

use std::time::{Duration, Instant};

use skills_runtime::mcp::HttpServerOptions;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::http_client::{
    INITIALIZE, closed_within, head, initialize_within, post, response, start,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_half_headers_are_timed_out_and_a_normal_client_is_answered() {
    let timeout = Duration::from_secs(1);
    let addr = start(HttpServerOptions::default().header_read_timeout(timeout)).await;
    let mut slow = Vec::new();
    for _ in 0..300 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Ty").as_bytes())
            .await
            .unwrap();
        slow.push(stream);
    }
    // More than the 256 connections served at once are waiting: the normal client is answered
    // once the timeouts free places.
    let (status, body) = initialize_within(addr, Duration::from_secs(20)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"serverInfo\""), "{body}");
    let started = Instant::now();
    for (n, stream) in slow.iter_mut().enumerate() {
        assert!(
            closed_within(stream, Duration::from_secs(20)).await,
            "slow client {n} still open"
        );
    }
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
async fn a_body_that_stops_loses_its_connection_and_one_that_trickles_gets_408() {
    let addr = start(
        HttpServerOptions::default()
            .idle_timeout(Duration::from_secs(1))
            .body_read_timeout(Duration::from_secs(2)),
    )
    .await;
    // 10 of the 100 bytes promised, then silence: closed after the idle timeout.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("{}0123456789", head(addr, "", 100)).as_bytes())
        .await
        .unwrap();
    let started = Instant::now();
    assert!(closed_within(&mut stream, Duration::from_secs(10)).await);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(900), "{waited:?}");

    // A byte every 300 ms is never idle, but the whole body must come within 2 s.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(head(addr, "", INITIALIZE.len()).as_bytes())
        .await
        .unwrap();
    let trickle = async {
        for byte in INITIALIZE.bytes() {
            if stream.write_all(&[byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(4), trickle).await;
    let (status, body) = response(&mut stream).await;
    assert_eq!(status, 408, "{body}");
}

#[tokio::test]
async fn past_the_connection_cap_a_client_waits_for_a_place() {
    let addr = start(
        HttpServerOptions::default()
            .max_connections(2)
            .header_read_timeout(Duration::from_secs(60)),
    )
    .await;
    let first = TcpStream::connect(addr).await.unwrap();
    let _second = TcpStream::connect(addr).await.unwrap();
    let waiting = tokio::spawn(post(addr, "", INITIALIZE));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!waiting.is_finished(), "served past the cap");
    drop(first);
    let (status, _) = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("served once a place is free")
        .unwrap();
    assert_eq!(status, 200);
}

#[tokio::test]
async fn bodies_over_the_cap_get_413() {
    let addr = start(HttpServerOptions::default().max_request_body_bytes(1024)).await;
    // Declared over the cap: refused before a byte of it is sent.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(head(addr, "", 5 << 20).as_bytes())
        .await
        .unwrap();
    let (status, _) = response(&mut stream).await;
    assert_eq!(status, 413);
    // Chunked, with no length: refused when it passes the cap.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let chunked = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n\
         800\r\n{}\r\n800\r\n{}\r\n0\r\n\r\n",
        " ".repeat(0x800),
        " ".repeat(0x800)
    );
    stream.write_all(chunked.as_bytes()).await.unwrap();
    let (status, _) = response(&mut stream).await;
    assert_eq!(status, 413);
    // Within it: answered.
    assert_eq!(post(addr, "", INITIALIZE).await.0, 200);
}

#[tokio::test]
async fn localhost_origins_are_served_and_foreign_ones_get_403() {
    let addr = start(HttpServerOptions::default()).await;
    // Pages served from this machine: the MCP Inspector's web UI first, the address the server
    // itself listens on, each loopback form with and without a port.
    let own = format!("http://{addr}");
    for origin in [
        "http://localhost:6274",
        own.as_str(),
        "http://localhost",
        "http://127.0.0.1:3000",
        "http://127.0.0.1",
        "http://[::1]:8080",
        "http://[::1]",
        "HTTP://LOCALHOST:6274",
    ] {
        let (status, body) = post(addr, &format!("Origin: {origin}\r\n"), INITIALIZE).await;
        assert_eq!(status, 200, "{origin}: {body}");
        assert!(body.contains("\"serverInfo\""), "{origin}: {body}");
    }
    // Every other origin: another site (whatever its name resolves to), a sandboxed page, a
    // name that only starts like a loopback one, another scheme, garbage.
    for origin in [
        "http://evil.example",
        "null",
        "http://localhost.evil.example",
        "http://127.0.0.1.evil.example:3000",
        "http://evil.example:6274",
        "https://evil.example",
        "file://",
        "not a url",
    ] {
        let (status, body) = post(addr, &format!("Origin: {origin}\r\n"), INITIALIZE).await;
        assert_eq!(status, 403, "{origin}: {body}");
    }
    // No Origin: a client that is not a browser.
    assert_eq!(post(addr, "", INITIALIZE).await.0, 200);
    // A foreign Host is refused whatever the origin (a rebinding attack names its own host).
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let rebound = head(addr, "Origin: http://localhost:6274\r\n", INITIALIZE.len())
        .replace(&format!("Host: {addr}"), "Host: evil.example");
    stream.write_all(rebound.as_bytes()).await.unwrap();
    stream.write_all(INITIALIZE.as_bytes()).await.unwrap();
    assert_eq!(response(&mut stream).await.0, 403);

    // A configured origin is served too; the localhost ones stay served.
    let addr =
        start(HttpServerOptions::default().allowed_origins(["https://app.example:8443"])).await;
    for (origin, expected) in [
        ("https://app.example:8443", 200),
        ("http://localhost:6274", 200),
        ("https://app.example:8444", 403),
        ("http://app.example:8443", 403),
        ("http://evil.example", 403),
        ("null", 403),
    ] {
        let (status, body) = post(addr, &format!("Origin: {origin}\r\n"), INITIALIZE).await;
        assert_eq!(status, expected, "{origin}: {body}");
    }
    let addr = start(HttpServerOptions::default().allowed_origins(["null"])).await;
    assert_eq!(post(addr, "Origin: null\r\n", INITIALIZE).await.0, 200);
}

/// Each revision over HTTP: a host of 2025-11-25 (the `initialize` handshake, then requests
/// naming the version in `MCP-Protocol-Version`) gets results without the 2026-07-28 fields; a
/// host of 2026-07-28 (every request self-contained) gets them, and must name the method in
/// `Mcp-Method` as that revision requires, or gets -32020 with `400`.
#[tokio::test]
async fn each_negotiated_revision_gets_its_own_shape_over_http() {
    let addr = start(HttpServerOptions::default()).await;
    let list = |meta: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"skills/list","params":{{{meta}}}}}"#)
    };
    let result = |body: &str| -> serde_json::Value {
        let answer: serde_json::Value = serde_json::from_str(body).unwrap();
        answer["result"].clone()
    };

    let (status, body) = post(addr, "", INITIALIZE).await;
    assert_eq!(status, 200, "{body}");
    let legacy = "MCP-Protocol-Version: 2025-11-25\r\n";
    let (status, body) = post(addr, legacy, &list("")).await;
    assert_eq!(status, 200, "{body}");
    let skills = result(&body);
    assert!(skills["skills"].is_array(), "{body}");
    for field in ["resultType", "ttlMs", "cacheScope"] {
        assert_eq!(skills.get(field), None, "{field}: {body}");
    }

    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let modern = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: skills/list\r\n";
    let (status, body) = post(addr, modern, &list(meta)).await;
    assert_eq!(status, 200, "{body}");
    let skills = result(&body);
    assert_eq!(skills["resultType"], "complete", "{body}");
    assert_eq!(skills["ttlMs"], 3_600_000, "{body}");
    assert_eq!(skills["cacheScope"], "public", "{body}");

    // Without the method header a 2026-07-28 request is refused, as that revision says.
    let (status, body) = post(addr, "MCP-Protocol-Version: 2026-07-28\r\n", &list(meta)).await;
    assert_eq!(status, 400, "{body}");
    let error: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"]["code"], -32020, "{body}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Mcp-Method"),
        "{body}"
    );
}
