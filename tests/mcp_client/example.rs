//! The `mcp_server` example as the tests start it: its path (built first when it is missing or
//! older than the sources it is built from), and a Streamable HTTP instance on a free port of
//! 127.0.0.1.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::SystemTime;

use tokio::io::AsyncBufReadExt;

/// `target/<profile>/examples/mcp_server`, beside the running test's `deps` folder, up to
/// date: `cargo test --test all mcp::` (or `--test hosts`) builds no example, so a binary left by an
/// earlier build would be tested in place of the current code. When it is missing or older
/// than any source it is built from, it is built here first, with this test's features.
pub fn example_binary() -> PathBuf {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY
        .get_or_init(|| {
            let binary = profile_dir().join("examples").join("mcp_server");
            // Cargo decides what is really out of date (a newer file it does not read, such as
            // the bundle's README, leaves the binary as it is).
            if let Some(why) = stale(&binary) {
                eprintln!("asking cargo to build the mcp_server example first: {why}");
                build(&binary);
            }
            binary
        })
        .clone()
}

/// `target/<profile>`: the test binary is `target/<profile>/deps/<name>-<hash>`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_owned()
}

/// Why `binary` must be built: it is missing, or a source is newer (`None`: up to date).
fn stale(binary: &Path) -> Option<String> {
    let built = match std::fs::metadata(binary).and_then(|m| m.modified()) {
        Ok(built) => built,
        Err(_) => return Some(format!("{} does not exist", binary.display())),
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (newest, path) = newest_source(root)?;
    (newest > built).then(|| format!("{} is newer than {}", path.display(), binary.display()))
}

/// The newest file the example is built from: the workspace's manifests and lock, every
/// crate's `src/`, the example itself and the bundle it embeds.
fn newest_source(root: &Path) -> Option<(SystemTime, PathBuf)> {
    let mut inputs = vec![
        root.join("Cargo.toml"),
        root.join("Cargo.lock"),
        root.join("examples/mcp_server.rs"),
        root.join("skills"),
        root.join("src"),
    ];
    for entry in std::fs::read_dir(root).ok()?.flatten() {
        let crate_dir = entry.path();
        if crate_dir.join("Cargo.toml").is_file() && crate_dir.join("src").is_dir() {
            inputs.push(crate_dir.join("Cargo.toml"));
            inputs.push(crate_dir.join("src"));
        }
    }
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    let mut stack = inputs;
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&path).ok()?.flatten().map(|e| e.path()));
        } else if let Ok(modified) = meta.modified()
            && newest.as_ref().is_none_or(|(time, _)| modified > *time)
        {
            newest = Some((modified, path));
        }
    }
    newest
}

/// Builds the example into this test's target folder and profile, with this test's features
/// (so that nothing the test build compiled is compiled again).
fn build(binary: &Path) {
    let profile = profile_dir();
    let target_dir = profile.parent().unwrap();
    let features: Vec<&str> = [
        ("agent", cfg!(feature = "agent")),
        ("mcp", cfg!(feature = "mcp")),
        ("rig", cfg!(feature = "rig")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    // Without what cargo set for this test's run (the package's `CARGO_*` values, `OUT_DIR`):
    // compilers and build scripts read some of them, and a build that sees other values than
    // the test build did would compile its shared dependencies again, for both.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let configures_cargo = [
            "CARGO_HOME",
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_",
            "CARGO_NET_",
            "CARGO_HTTP_",
            "CARGO_REGISTR",
            "CARGO_PROFILE_",
            "CARGO_TERM_",
            "CARGO_INCREMENTAL",
        ]
        .iter()
        .any(|prefix| name.starts_with(prefix));
        if (name.starts_with("CARGO_") && !configures_cargo) || name == "OUT_DIR" {
            command.env_remove(name.as_ref());
        }
    }
    command
        .args(["build", "--example", "mcp_server", "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir)
        .args(["--no-default-features", "--features", &features.join(",")]);
    // `target/debug` is the `dev` profile, the default; any other folder is its profile's name.
    if let Some(name) = profile
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| *n != "debug")
    {
        command.args(["--profile", name]);
    }
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("running cargo to build the mcp_server example: {e}"));
    assert!(
        output.status.success(),
        "building the mcp_server example failed ({}), so no test of it can run:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(binary.is_file(), "cargo built no {}", binary.display());
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
