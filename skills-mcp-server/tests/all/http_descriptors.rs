//! `accept` failing for want of descriptors (EMFILE), as under a flood of connections: the
//! server logs it, keeps trying after a pause, and answers again once descriptors are free.
//! Alone in a copy of the test binary, because it lowers the process's own descriptor limit.

use std::time::Duration;

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
use skills_runtime::mcp::SkillsServer;
use skills_test_support::logs;
use tokio::net::TcpListener;

use crate::http_client::{SKILLS, initialize_within};

/// Set in the copy of this test binary that runs
/// [`out_of_descriptors_the_server_waits_logs_and_answers_again`], which lowers the descriptor
/// limit of its process.
const ALONE: &str = "SKILLS_MCP_SERVER_TEST_DESCRIPTORS_ALONE";

/// The descriptors this process has open now.
fn open_descriptors() -> u64 {
    // The listing's own descriptor is closed again when it is dropped.
    std::fs::read_dir("/proc/self/fd").unwrap().count() as u64 - 1
}

// One thread: the server's task runs on the test's thread, where the logs are captured.
#[tokio::test(flavor = "current_thread")]
async fn out_of_descriptors_the_server_waits_logs_and_answers_again() {
    // Any other test running in this process would be refused descriptors: alone in a copy of
    // the binary.
    if std::env::var_os(ALONE).is_none() {
        skills_test_support::run_alone(
            module_path!(),
            "out_of_descriptors_the_server_waits_logs_and_answers_again",
            ALONE,
        );
        return;
    }
    let (logs, _guard) = logs::capture();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // Connections waiting in the listener's queue before the server takes any.
    let queued: Vec<std::net::TcpStream> = (0..8)
        .map(|_| std::net::TcpStream::connect(addr).unwrap())
        .collect();
    let limit = getrlimit(Resource::Nofile);
    let now = open_descriptors();
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(now),
            maximum: limit.maximum,
        },
    )
    .unwrap();
    let server = tokio::spawn(SkillsServer::new(&SKILLS).serve_http(listener));
    tokio::time::sleep(Duration::from_secs(1)).await;
    let failing = logs.at("WARN");
    // Give the descriptors back before asserting, so a failure does not starve the harness.
    setrlimit(Resource::Nofile, limit).unwrap();
    assert!(
        !server.is_finished(),
        "serve_http returned: {:?}",
        server.await
    );
    assert!(
        failing
            .iter()
            .any(|w| w.contains("accepting a connection failed")
                && w.contains("Too many open files")),
        "{failing:?}"
    );
    // Once descriptors are free, the queued connections are taken and a new client is
    // answered.
    drop(queued);
    let (status, body) = initialize_within(addr, Duration::from_secs(10)).await;
    assert_eq!(status, 200, "{body}");
    let warnings = logs.at("WARN");
    assert!(
        warnings.iter().any(|w| w.contains("works again")),
        "{warnings:?}"
    );
    // One warning when it started failing, one when it recovered: not one per retry.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    server.abort();
}
