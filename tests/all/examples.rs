//! The example binaries as the tests start them: `target/<profile>/examples/<name>`, beside the
//! running test's `deps` folder, up to date. `cargo test` builds every example before its tests,
//! but `cargo test --test all NAME` (or `--test hosts`) builds none, so a binary left by an earlier
//! build would be tested in place of the current code, or be missing. When it is missing or older
//! than any source it is built from, it is built here first, with this test's features.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::SystemTime;

/// The example `name` (`agent`, `mcp_server`, `rig_agent`), built first when it is stale.
pub fn example_binary(name: &str) -> PathBuf {
    static READY: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    // Held while building, so that tests asking at once build each example once.
    let mut ready = READY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(binary) = ready.as_ref().and_then(|built| built.get(name)) {
        return binary.clone();
    }
    let binary = profile_dir().join("examples").join(name);
    // Cargo decides what is really out of date (a newer file it does not read, such as the
    // bundle's README, leaves the binary as it is).
    if let Some(why) = stale(name, &binary) {
        eprintln!("asking cargo to build the {name} example first: {why}");
        build(name, &binary);
    }
    ready
        .get_or_insert_with(HashMap::new)
        .insert(name.to_owned(), binary.clone());
    binary
}

/// `target/<profile>`: the test binary is `target/<profile>/deps/<name>-<hash>`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_owned()
}

/// Why `binary` must be built: it is missing, or a source is newer (`None`: up to date).
fn stale(name: &str, binary: &Path) -> Option<String> {
    let built = match std::fs::metadata(binary).and_then(|m| m.modified()) {
        Ok(built) => built,
        Err(_) => return Some(format!("{} does not exist", binary.display())),
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (newest, path) = newest_source(root, name)?;
    (newest > built).then(|| format!("{} is newer than {}", path.display(), binary.display()))
}

/// The newest file the example is built from: the workspace's manifests and lock, every
/// crate's `src/`, the example itself (a file or a folder) and the bundle it embeds.
fn newest_source(root: &Path, name: &str) -> Option<(SystemTime, PathBuf)> {
    let mut inputs = vec![
        root.join("Cargo.toml"),
        root.join("Cargo.lock"),
        root.join("examples").join(format!("{name}.rs")),
        root.join("examples").join(name),
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
fn build(name: &str, binary: &Path) {
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
        .args(["build", "--example", name, "--manifest-path"])
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
        .unwrap_or_else(|e| panic!("running cargo to build the {name} example: {e}"));
    assert!(
        output.status.success(),
        "building the {name} example failed ({}), so no test of it can run:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(binary.is_file(), "cargo built no {}", binary.display());
}
