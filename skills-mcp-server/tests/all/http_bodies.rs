//! 200 clients each sending a 4 MiB request body at once: the server holds at most its budget
//! of body bytes (64 MiB by default), refuses the requests past it with `503` at once, and
//! answers the others; its memory grows by about the budget, not by 800 MiB. Alone in a copy of
//! the test binary, so the peak memory measured is this test's.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use skills_runtime::mcp::{
    DEFAULT_MAX_BUFFERED_BODY_BYTES, DEFAULT_MAX_REQUEST_BODY_BYTES, HttpServerOptions,
};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::Notify;

use crate::http_client::{head, response, start};

/// Set in the copy of this test binary that runs [`two_hundred_4_mib_bodies_stay_within_the_budget`],
/// whose measure of the process's peak memory must not count other tests'.
const ALONE: &str = "SKILLS_MCP_SERVER_TEST_BODIES_ALONE";

/// The value, in KiB, of the `field:` line of `/proc/self/status`.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with(field))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_4_mib_bodies_stay_within_the_budget() {
    // The peak memory of the process is measured: alone in a copy of the binary, so that no
    // other test adds to it.
    if std::env::var_os(ALONE).is_none() {
        skills_test_support::run_alone(
            module_path!(),
            "two_hundred_4_mib_bodies_stay_within_the_budget",
            ALONE,
        );
        return;
    }
    const CLIENTS: usize = 200;
    // A JSON-RPC ping padded with spaces to just under the per-request cap.
    let length = DEFAULT_MAX_REQUEST_BODY_BYTES - 1024;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut body = ping.as_bytes().to_vec();
    body.resize(length, b' ');
    let body: Arc<[u8]> = body.into();
    let fits = DEFAULT_MAX_BUFFERED_BODY_BYTES / length;
    assert_eq!(fits, 16);

    let addr = start(HttpServerOptions::default()).await;
    let before = status_kib("VmRSS:");
    let refused = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Notify::new());
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        let (body, refused, release) = (
            Arc::clone(&body),
            Arc::clone(&refused),
            Arc::clone(&release),
        );
        clients.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            stream
                .write_all(head(addr, "", body.len()).as_bytes())
                .await
                .unwrap();
            // The server decides on the headers: a refusal comes at once; the others wait for
            // the body, which every client sends once all have been decided.
            let mut peek = [0u8; 1];
            tokio::select! {
                _ = stream.peek(&mut peek) => {
                    refused.fetch_add(1, Ordering::SeqCst);
                }
                () = release.notified() => {
                    stream.write_all(&body).await.unwrap();
                }
            }
            response(&mut stream).await
        }));
    }
    let decided = async {
        while refused.load(Ordering::SeqCst) < CLIENTS - fits {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(30), decided).await;
    // A little longer, so a refusal past the expected number would be counted too.
    tokio::time::sleep(Duration::from_millis(300)).await;
    release.notify_waiters();
    let mut statuses = Vec::new();
    for client in clients {
        statuses.push(client.await.unwrap().0);
    }
    let busy = statuses.iter().filter(|&&s| s == 503).count();
    assert_eq!(busy, CLIENTS - fits, "{statuses:?}");
    // The others were read whole and answered.
    let answered = statuses.iter().filter(|&&s| s == 200).count();
    assert_eq!(answered, fits, "{statuses:?}");
    let peak = status_kib("VmHWM:");
    let grown_mib = peak.saturating_sub(before) / 1024;
    eprintln!("peak memory grew by {grown_mib} MiB for {CLIENTS} bodies of 4 MiB");
    // The budget is 64 MiB; without it the bodies alone are 800 MiB.
    assert!(grown_mib < 3 * 64, "peak memory grew by {grown_mib} MiB");
}
