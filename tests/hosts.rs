//! The example MCP server under hosts nobody here wrote: Claude Code, Codex CLI and the MCP
//! Inspector CLI, each over stdio and Streamable HTTP, Claude Code and Codex each with a
//! stand-in model on 127.0.0.1 (`tests/hosts_support/standin.rs`) scripted to call `load_skill`
//! and then answer. Each test checks what the host sent its model: the server's instructions,
//! the `load_skill` result byte for byte, a prompt's words.
//!
//! The hosts are not dependencies: a test finds its host through an environment variable
//! (`CLAUDE_CODE_BIN`, `CODEX_BIN`, `MCP_INSPECTOR_BIN`) or on `PATH` (`claude`, `codex`,
//! `mcp-inspector-cli`), and says it is skipped otherwise. Each host runs with a fresh `HOME`
//! and only the environment it needs, so nothing of a person's own configuration counts and
//! nothing leaves the machine (Claude Code's non-essential traffic is off, Codex's update check
//! too).
#![cfg(feature = "mcp")]

#[path = "mcp_client/example.rs"]
mod example;
#[path = "hosts_support/standin.rs"]
mod standin;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use skills_runtime::Registry;
use skills_runtime::mcp::SkillsServer;
use standin::{DONE, SKILL};

static SKILLS: Registry = skills_runtime::embed_skills!("skills");

/// How long a host may take for one run (it starts, connects, makes two model requests).
const HOST_TIMEOUT: Duration = Duration::from_secs(180);

/// The name Claude Code gives the server's `load_skill` (server `skills` in `.mcp.json`).
const CLAUDE_TOOL: &str = "mcp__skills__load_skill";

/// The host named by `variable`, else `program` on `PATH`; `None` (after saying the test is
/// skipped) when neither is there.
fn find_host(variable: &str, program: &str) -> Option<PathBuf> {
    let found = match std::env::var_os(variable) {
        Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file()),
        None => std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(program))
                .find(|p| p.is_file())
        }),
    };
    if found.is_none() {
        eprintln!(
            "skipped: `{program}` is not installed (put it on PATH or set {variable} to its path)"
        );
    }
    found
}

/// How the host reaches the server.
enum Transport {
    Stdio,
    Http(String),
}

impl Transport {
    /// Stdio, or a Streamable HTTP instance of the example (kept alive by the returned child).
    async fn start(http: bool) -> (Transport, Option<tokio::process::Child>) {
        if http {
            let (child, url) = example::serve_http().await;
            (Transport::Http(url), Some(child))
        } else {
            (Transport::Stdio, None)
        }
    }
}

/// `command` with a fresh `HOME` and only `PATH` of the caller's environment (a host is often a
/// Node script that needs `node`).
fn isolated(program: &Path, home: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(program);
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    command
}

/// Runs `command` to its end within [`HOST_TIMEOUT`]; its stdout, after checking it succeeded.
async fn run(mut command: tokio::process::Command, what: &str) -> String {
    let output = tokio::time::timeout(HOST_TIMEOUT, command.output())
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish in {HOST_TIMEOUT:?}"))
        .unwrap_or_else(|e| panic!("{what} did not start: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The JSON bodies of every request the stand-in received, in order.
async fn requests(server: &wiremock::MockServer) -> Vec<Value> {
    let received = server.received_requests().await.unwrap_or_default();
    received.iter().map(standin::body).collect()
}

/// The text of a content value: a string, or the `text` blocks of an array, joined.
fn text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// `claude -p PROMPT` in a project whose `.mcp.json` names the example as server `skills`;
/// its JSON result and the requests its model received.
async fn drive_claude(claude: &Path, transport: &Transport, prompt: &str) -> (Value, Vec<Value>) {
    let model = standin::anthropic(CLAUDE_TOOL).await;
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let server = match transport {
        Transport::Stdio => json!({"command": example::example_binary(), "args": []}),
        Transport::Http(url) => json!({"type": "http", "url": url}),
    };
    std::fs::write(
        project.path().join(".mcp.json"),
        json!({"mcpServers": {"skills": server}}).to_string(),
    )
    .unwrap();
    let mut command = isolated(claude, home.path());
    command
        .current_dir(project.path())
        .args(["-p", prompt, "--output-format", "json"])
        // Without it `-p` refuses the call: "you haven't granted it yet".
        .args(["--allowedTools", CLAUDE_TOOL])
        .env("ANTHROPIC_BASE_URL", model.uri())
        .env("ANTHROPIC_API_KEY", "standin-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        // MCP tools offered directly, not behind Claude Code's tool search.
        .env("ENABLE_TOOL_SEARCH", "false");
    let stdout = run(command, "claude").await;
    let result: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("claude's JSON result: {e}\n{stdout}"));
    (result, requests(&model).await)
}

/// The requests of Claude Code's main loop: those that offer the server's `load_skill`.
fn offering_claude_tool(requests: &[Value]) -> Vec<&Value> {
    requests
        .iter()
        .filter(|r| {
            r["tools"]
                .as_array()
                .is_some_and(|tools| tools.iter().any(|t| t["name"] == CLAUDE_TOOL))
        })
        .collect()
}

async fn claude_loads_a_skill(http: bool) {
    let Some(claude) = find_host("CLAUDE_CODE_BIN", "claude") else {
        return;
    };
    let (transport, _server) = Transport::start(http).await;
    let (result, requests) = drive_claude(&claude, &transport, "Review my change").await;
    assert_eq!(result["result"], DONE, "{result}");
    assert_eq!(result["permission_denials"], json!([]), "{result}");
    let main = offering_claude_tool(&requests);
    assert_eq!(main.len(), 2, "the call, then the answer: {requests:#?}");
    // The server's instructions reach the model whole (within Claude Code's 2,048), under
    // "# MCP Server Instructions" in a system-role message.
    let server = SkillsServer::new(&SKILLS);
    let instructions = server.instructions();
    let system: Vec<String> = main[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| text(&m["content"]))
        .collect();
    assert!(
        system
            .iter()
            .any(|t| t.contains(&format!("## skills\n{instructions}"))),
        "{system:#?}"
    );
    let results: Vec<&Value> = main[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 1, "{results:#?}");
    assert_ne!(results[0]["is_error"], true, "{}", results[0]);
    assert_eq!(
        text(&results[0]["content"]),
        SKILLS.load_skill(SKILL).unwrap()
    );
}

#[tokio::test]
async fn claude_code_loads_a_skill_over_stdio() {
    claude_loads_a_skill(false).await;
}

#[tokio::test]
async fn claude_code_loads_a_skill_over_streamable_http() {
    claude_loads_a_skill(true).await;
}

/// Claude Code splits `/mcp__skills__code-review a b c` at spaces and fills the prompt's
/// arguments by position; the words past the declared ones must still reach the skill.
#[tokio::test]
async fn claude_code_keeps_every_word_of_a_prompt() {
    let Some(claude) = find_host("CLAUDE_CODE_BIN", "claude") else {
        return;
    };
    let words = "src/lib.rs and src/main.rs";
    let (result, requests) = drive_claude(
        &claude,
        &Transport::Stdio,
        &format!("/mcp__skills__{SKILL} {words}"),
    )
    .await;
    assert_eq!(result["result"], DONE, "{result}");
    let first = offering_claude_tool(&requests)[0];
    let user: Vec<String> = first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| text(&m["content"]))
        .collect();
    let expected = SKILLS.invoke(SKILL, words).unwrap();
    assert!(
        expected.contains(&format!("ARGUMENTS: {words}")),
        "{expected}"
    );
    assert!(
        user.iter().any(|t| t.contains(expected.trim_end())),
        "the prompt's text, every word: {user:#?}"
    );
}

/// `codex exec` with a `CODEX_HOME` whose `config.toml` names the stand-in as its model
/// provider and the example as MCP server `skills`, `load_skill` approved.
async fn drive_codex(codex: &Path, transport: &Transport) -> (String, Vec<Value>) {
    let model = standin::responses().await;
    let home = tempfile::tempdir().unwrap();
    let codex_home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let server = match transport {
        Transport::Stdio => format!("command = {:?}", example::example_binary()),
        Transport::Http(url) => format!("url = {url:?}"),
    };
    let config = format!(
        r#"model = "standin"
model_provider = "standin"
check_for_update_on_startup = false

[model_providers.standin]
name = "standin"
base_url = "{}/v1"
wire_api = "responses"
env_key = "STANDIN_API_KEY"

[mcp_servers.skills]
{server}

# Without it `codex exec` refuses: "MCP tool call requires approval, but approval policy is never".
[mcp_servers.skills.tools.load_skill]
approval_mode = "approve"
"#,
        model.uri()
    );
    std::fs::write(codex_home.path().join("config.toml"), config).unwrap();
    let mut command = isolated(codex, home.path());
    command
        .current_dir(project.path())
        .args(["exec", "--skip-git-repo-check", "Review my change"])
        .env("CODEX_HOME", codex_home.path())
        .env("STANDIN_API_KEY", "standin-key");
    let stdout = run(command, "codex").await;
    (stdout, requests(&model).await)
}

async fn codex_loads_a_skill(http: bool) {
    let Some(codex) = find_host("CODEX_BIN", "codex") else {
        return;
    };
    let (transport, _server) = Transport::start(http).await;
    let (stdout, requests) = drive_codex(&codex, &transport).await;
    assert_eq!(stdout.trim(), DONE, "{requests:#?}");
    assert_eq!(
        requests.len(),
        2,
        "the call, then the answer: {requests:#?}"
    );
    // Codex offers the server's tools in one namespace described by its instructions.
    let namespace = standin::load_skill_namespace(&requests[0]).expect("load_skill offered");
    assert_eq!(namespace["name"], "mcp__skills");
    assert_eq!(
        namespace["description"],
        SkillsServer::new(&SKILLS).instructions()
    );
    let outputs = standin::call_outputs(&requests[1]);
    assert_eq!(outputs.len(), 1, "{outputs:#?}");
    // Codex puts a "Wall time" line first, then the tool's content.
    let blocks = outputs[0]["output"].as_array().expect("content blocks");
    assert_eq!(
        blocks.last().unwrap()["text"],
        SKILLS.load_skill(SKILL).unwrap(),
        "{blocks:#?}"
    );
}

#[tokio::test]
async fn codex_loads_a_skill_over_stdio() {
    codex_loads_a_skill(false).await;
}

#[tokio::test]
async fn codex_loads_a_skill_over_streamable_http() {
    codex_loads_a_skill(true).await;
}

/// `mcp-inspector-cli --cli ... --method METHOD ARGS`, its JSON answer.
async fn inspect(inspector: &Path, transport: &Transport, method: &[&str]) -> Value {
    let home = tempfile::tempdir().unwrap();
    // Version 1.0.3 looks for `../package.json` from its working directory (to choose how to
    // import its own), and fails without one; any file there will do.
    std::fs::write(home.path().join("package.json"), "{}").unwrap();
    let work = home.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let mut command = isolated(inspector, home.path());
    command.current_dir(&work).arg("--cli");
    match transport {
        Transport::Stdio => command.arg(example::example_binary()),
        Transport::Http(url) => command.args([url, "--transport", "http"]),
    };
    command.arg("--method").args(method);
    let stdout = run(command, "mcp-inspector-cli").await;
    // A deprecation notice may come before the JSON.
    let json = &stdout[stdout.find('{').unwrap_or(0)..];
    serde_json::from_str(json).unwrap_or_else(|e| panic!("inspector's JSON: {e}\n{stdout}"))
}

async fn inspector_reads_the_server(http: bool) {
    let Some(inspector) = find_host("MCP_INSPECTOR_BIN", "mcp-inspector-cli") else {
        return;
    };
    let (transport, _server) = Transport::start(http).await;
    let name = format!("name={SKILL}");
    let called = inspect(
        &inspector,
        &transport,
        &[
            "tools/call",
            "--tool-name",
            "load_skill",
            "--tool-arg",
            &name,
        ],
    )
    .await;
    assert_eq!(
        called["content"][0]["text"],
        SKILLS.load_skill(SKILL).unwrap()
    );
    let index = inspect(
        &inspector,
        &transport,
        &["resources/read", "--uri", "skill://index.json"],
    )
    .await;
    let index: Value =
        serde_json::from_str(index["contents"][0]["text"].as_str().unwrap()).unwrap();
    let listed: Vec<&str> = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap())
        .collect();
    let model_skills: Vec<&str> = SKILLS
        .iter()
        .filter(|s| s.model_invocable())
        .map(|s| s.name())
        .collect();
    assert_eq!(listed, model_skills);
    let resource = format!("skill://{SKILL}/SKILL.md");
    let read = inspect(
        &inspector,
        &transport,
        &["resources/read", "--uri", &resource],
    )
    .await;
    let on_disk = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("skills/{SKILL}/SKILL.md")),
    )
    .unwrap();
    assert_eq!(read["contents"][0]["text"], on_disk);
}

#[tokio::test]
async fn the_mcp_inspector_reads_the_server_over_stdio() {
    inspector_reads_the_server(false).await;
}

#[tokio::test]
async fn the_mcp_inspector_reads_the_server_over_streamable_http() {
    inspector_reads_the_server(true).await;
}
