//! The HTTP server against clients that would keep it busy: half a header each from 300 of
//! them, a body that stops, a body that trickles, more connections than the cap, bodies over
//! the cap, and requests from a foreign `Origin`.

mod http_client;

use std::time::{Duration, Instant};

use http_client::{INITIALIZE, closed_within, head, initialize_within, post, response, start};
use skills_runtime::mcp::HttpServerOptions;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

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
async fn a_foreign_origin_gets_403_and_configured_ones_are_served() {
    let addr = start(HttpServerOptions::default()).await;
    for origin in [
        "http://evil.example",
        "null",
        "http://localhost:3000",
        "not a url",
    ] {
        let (status, body) = post(addr, &format!("Origin: {origin}\r\n"), INITIALIZE).await;
        assert_eq!(status, 403, "{origin}: {body}");
    }
    // No Origin: a client that is not a browser.
    assert_eq!(post(addr, "", INITIALIZE).await.0, 200);

    let addr = start(HttpServerOptions::default().allowed_origins(["http://localhost:3000"])).await;
    assert_eq!(
        post(addr, "Origin: http://localhost:3000\r\n", INITIALIZE)
            .await
            .0,
        200
    );
    assert_eq!(
        post(addr, "Origin: http://localhost:3001\r\n", INITIALIZE)
            .await
            .0,
        403
    );
    assert_eq!(
        post(addr, "Origin: http://evil.example\r\n", INITIALIZE)
            .await
            .0,
        403
    );
}
