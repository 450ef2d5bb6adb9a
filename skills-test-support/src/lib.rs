//! The test code the workspace's crates share, one implementation of each: stand-in model
//! servers of both wire formats (scripted on wiremock in [`api_mock`], routed by the query's
//! words in [`router`] and [`task_model`], raw bytes on a socket in [`mock`]), realistic response
//! bodies and providers with fast retries, the capture of `tracing` events ([`logs`]), what a
//! terminal shows ([`screen`]), what an OTLP collector received ([`otlp`]), the libtest-mimic
//! harness of the binaries that start sandboxes ([`sandbox`]), the host's listeners a sandboxed
//! command must not reach ([`host_listeners`]), skill folders made at test time ([`hostile`]),
//! the fixture bundles in `fixtures/` ([`fixture`]), and the MCP client checks ([`mcp`]).
//!
//! Each part that needs a heavy dependency is behind a feature of the same name, so a crate's
//! test binary links only what it uses.

use std::path::PathBuf;

pub mod host_listeners;
pub mod hostile;

#[cfg(feature = "models")]
pub mod api_mock;
#[cfg(feature = "logs")]
pub mod logs;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "models")]
pub mod mock;
#[cfg(feature = "otlp")]
pub mod otlp;
#[cfg(feature = "models")]
pub mod router;
#[cfg(feature = "sandbox")]
pub mod sandbox;
#[cfg(feature = "screen")]
pub mod screen;
#[cfg(feature = "models")]
pub mod task_model;

#[cfg(feature = "models")]
mod bodies;
#[cfg(feature = "agent")]
mod providers;

#[cfg(feature = "models")]
pub use bodies::*;
#[cfg(feature = "agent")]
pub use providers::*;

/// A temporary working directory with a small project in it.
pub fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "//! A tiny crate.\n\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "# tiny\n").unwrap();
    dir
}

/// Whether `pid` runs. Gone, or a zombie waiting to be reaped by whoever inherited it: both are
/// dead.
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !matches!(state.and_then(|s| s.chars().next()), Some('Z' | 'X'))
        }
        Err(_) => false,
    }
}

/// The libtest name of the test `function` in the module `module_path` (its `module_path!()`):
/// the path without the test binary's own name, as `--exact` takes it.
pub fn test_name(module_path: &str, function: &str) -> String {
    match module_path.split_once("::") {
        Some((_, module)) => format!("{module}::{function}"),
        None => function.to_owned(),
    }
}

/// Runs the test `function` of the module `module_path` (its `module_path!()`) alone, in a copy
/// of this test binary with `variable` set, and fails unless it ran and passed there. For a test
/// that changes what the whole process shares (its working directory, say): the copy checks
/// `variable` to know it is the one to do it, and the other tests of the binary are left alone.
pub fn run_alone(module_path: &str, function: &str, variable: &str) {
    let name = test_name(module_path, function);
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &name, "--test-threads=1"])
        .env(variable, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{name} alone: {stdout}\n{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "{name} did not run alone: {stdout}\n{stderr}"
    );
}

/// This crate's folder. The fixture bundles are under its `fixtures/`, and the trybuild cases
/// resolve their roots (`"fixtures/<case>"`) against it, so every crate's tests find them
/// wherever the workspace is checked out.
pub const DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The fixture bundle `name`: `fixtures/<name>` in this crate's folder, one folder per case the
/// tests of several crates share.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(DIR).join("fixtures").join(name)
}
