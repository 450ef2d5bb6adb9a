//! The `mcp_server` example as the tests start it: its path (built first when it is missing or
//! older than the sources it is built from), and a Streamable HTTP instance on a free port of
//! 127.0.0.1.

use std::path::PathBuf;

use tokio::io::AsyncBufReadExt;

/// `target/<profile>/examples/mcp_server`, built first when it is stale.
pub fn example_binary() -> PathBuf {
    crate::examples::example_binary("mcp_server")
}

/// The example serving Streamable HTTP on a free port, and its URL as it printed it. The child
/// is killed when dropped.
pub async fn serve_http() -> (tokio::process::Child, String) {
    serve_http_with(&[]).await
}

/// [`serve_http`] with more arguments for the example (`--skill NAME`, `--page-size N`).
pub async fn serve_http_with(args: &[&str]) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(example_binary())
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the mcp_server example");
    let mut line = String::new();
    tokio::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .await
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    (child, url)
}
