//! The example MCP server under programs nobody here wrote: Claude Code, Codex CLI and the MCP
//! Inspector CLI, each over stdio and Streamable HTTP, Claude Code and Codex each with a
//! stand-in model on 127.0.0.1 (`tests/hosts_support/standin.rs`) scripted to call `load_skill`
//! and then answer; and the official MCP conformance suite
//! (`tests/hosts_support/conformance.rs`). Each host test checks what the host sent its
//! model: the server's instructions, the `load_skill` result byte for byte, a prompt's words.
//!
//! None of them is a dependency: each is found as `tests/hosts_support/programs.rs` says, and
//! a test whose program is absent is reported as ignored with the reason, never as passed.
//! Before a host runs, rmcp's own client checks the server over the same transport, so a
//! failure says whether our server or the host went wrong. Each host runs with a fresh `HOME`
//! and only the environment it needs, so nothing of a person's own configuration counts and
//! nothing leaves the machine (Claude Code's non-essential traffic is off, Codex's update
//! check too).
//!
//! The harness is libtest-mimic's (`harness = false`), as the sandbox tests': a skip is an
//! "ignored" in the summary. Cargo builds this test only with the `mcp` feature
//! (`required-features`), and the example it drives is built first when it is stale
//! (`tests/all/examples.rs`).

#[path = "hosts_support/conformance.rs"]
mod conformance;
#[path = "mcp_client/example.rs"]
mod example;
#[path = "all/examples.rs"]
mod examples;
#[allow(dead_code)]
use skills_test_support::sandbox as harness;
#[path = "hosts_support/programs.rs"]
mod programs;
#[path = "hosts_support/standin.rs"]
mod standin;

use std::path::Path;

use harness::{Outcome, passed, skipped, trial};
use libtest_mimic::{Failed, Trial};
use programs::{Ran, isolated};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use skills_runtime::Registry;
use skills_runtime::mcp::SkillsServer;
use standin::{DONE, SKILL};

static SKILLS: Registry = skills_runtime::embed_skills!("skills");

/// The name Claude Code gives the server's `load_skill` (server `skills` in `.mcp.json`).
const CLAUDE_TOOL: &str = "mcp__skills__load_skill";

/// Set in the nested run of [`without_clients_every_test_reports_itself_ignored`], which
/// leaves out the tests of the harness itself.
const NESTED: &str = "SKILLS_HOSTS_NESTED";

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = vec![
        host("claude_code::loads_a_skill_over_stdio", || {
            claude_loads_a_skill(false)
        }),
        host("claude_code::loads_a_skill_over_streamable_http", || {
            claude_loads_a_skill(true)
        }),
        host(
            "claude_code::keeps_every_word_of_a_prompt",
            claude_keeps_every_word_of_a_prompt,
        ),
        host("codex::loads_a_skill_over_stdio", || {
            codex_loads_a_skill(false)
        }),
        host("codex::loads_a_skill_over_streamable_http", || {
            codex_loads_a_skill(true)
        }),
        host("mcp_inspector::reads_the_server_over_stdio", || {
            inspector_reads_the_server(false)
        }),
        host(
            "mcp_inspector::reads_the_server_over_streamable_http",
            || inspector_reads_the_server(true),
        ),
    ];
    trials.extend(conformance::trials());
    if std::env::var_os(NESTED).is_none() {
        trials.push(trial(
            "harness::without_clients_every_test_reports_itself_ignored",
            without_clients_every_test_reports_itself_ignored,
        ));
        trials.push(trial(
            "harness::cargo_refuses_these_tests_without_the_mcp_feature",
            cargo_refuses_these_tests_without_the_mcp_feature,
        ));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// A host test: an async body on a runtime of its own, returning why it was skipped, if it was.
fn host<F, T>(name: &str, test: F) -> Trial
where
    F: FnOnce() -> T + Send + 'static,
    T: Future<Output = Result<Option<String>, Failed>>,
{
    Trial::ignorable_test(name, move || {
        let skip = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(test())?;
        match skip {
            Some(reason) => skipped(reason),
            None => passed(),
        }
    })
}

/// `program`, or `Ok(None)`'s early return with the reason it is absent.
macro_rules! found_or_skip {
    ($variable:expr, $program:expr, $package:expr) => {
        match programs::find($variable, $program, $package) {
            Ok(path) => path,
            Err(reason) => return Ok(Some(reason)),
        }
    };
}

/// How the host reaches the server.
enum Transport {
    Stdio,
    Http(String),
}

impl Transport {
    /// Stdio, or a Streamable HTTP instance of the example (kept alive by the returned child),
    /// after checking that the example answers rmcp's own client over it: a host's failure is
    /// then the host's, or between it and us, and the message says which.
    async fn start(http: bool) -> Result<(Transport, Option<tokio::process::Child>), Failed> {
        let (transport, child) = if http {
            let (child, url) = example::serve_http().await;
            (Transport::Http(url), Some(child))
        } else {
            (Transport::Stdio, None)
        };
        transport.check_our_server().await.map_err(|e| {
            format!(
                "OUR SERVER FAILED before any host ran: the mcp_server example ({}) does not \
                 answer rmcp's client over {}: {e}",
                example::example_binary().display(),
                transport.name()
            )
        })?;
        Ok((transport, child))
    }

    fn name(&self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http(_) => "Streamable HTTP",
        }
    }

    /// The handshake, the tools and a `load_skill` call, as a host makes them.
    async fn check_our_server(&self) -> Result<(), String> {
        let client = match self {
            Transport::Stdio => {
                let child =
                    TokioChildProcess::new(tokio::process::Command::new(example::example_binary()))
                        .map_err(|e| format!("spawning it: {e}"))?;
                ().serve(child).await.map_err(|e| e.to_string())?
            }
            Transport::Http(url) => {
                ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                    .await
                    .map_err(|e| e.to_string())?
            }
        };
        let instructions = client
            .peer_info()
            .and_then(|info| info.instructions.clone())
            .unwrap_or_default();
        let expected = SkillsServer::new(&SKILLS).instructions().to_owned();
        if instructions != expected {
            return Err(format!("instructions {instructions:?}, not {expected:?}"));
        }
        let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
        if !tools.iter().any(|t| t.name == "load_skill") {
            return Err(format!("no load_skill among {tools:?}"));
        }
        let mut arguments = serde_json::Map::new();
        arguments.insert("name".into(), json!(SKILL));
        let called = client
            .call_tool(CallToolRequestParams::new("load_skill").with_arguments(arguments))
            .await
            .map_err(|e| e.to_string())?;
        let text: String = called
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        if text != SKILLS.load_skill(SKILL).unwrap() {
            return Err(format!("load_skill({SKILL}) answered {text:?}"));
        }
        let _ = client.cancel().await;
        Ok(())
    }
}

/// `ran`'s standard output once it succeeded; otherwise a failure that names the host (our
/// server having answered our own client over the same transport just before).
fn succeeded(ran: Ran, host: &str, transport: &Transport) -> Result<String, Failed> {
    if ran.success {
        return Ok(ran.stdout);
    }
    Err(format!(
        "{host} failed ({}) with our server over {}, which had answered rmcp's client \
         correctly just before:\n{}\n{}",
        ran.status,
        transport.name(),
        ran.stdout,
        ran.stderr
    )
    .into())
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
async fn drive_claude(
    claude: &Path,
    transport: &Transport,
    prompt: &str,
) -> Result<(Value, Vec<Value>), Failed> {
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
    let stdout = succeeded(programs::run(command, "claude").await?, "claude", transport)?;
    let result: Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("claude's JSON result: {e}\n{stdout}"))?;
    Ok((result, requests(&model).await))
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

const CLAUDE_PACKAGE: &str = "@anthropic-ai/claude-code";
const CODEX_PACKAGE: &str = "@openai/codex";
const INSPECTOR_PACKAGE: &str = "@modelcontextprotocol/inspector-cli";

async fn claude_loads_a_skill(http: bool) -> Result<Option<String>, Failed> {
    let claude = found_or_skip!("CLAUDE_CODE_BIN", "claude", CLAUDE_PACKAGE);
    let (transport, _server) = Transport::start(http).await?;
    let (result, requests) = drive_claude(&claude, &transport, "Review my change").await?;
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
    Ok(None)
}

/// Claude Code splits `/mcp__skills__code-review a b c` at spaces and fills the prompt's
/// arguments by position; the words past the declared ones must still reach the skill.
async fn claude_keeps_every_word_of_a_prompt() -> Result<Option<String>, Failed> {
    let claude = found_or_skip!("CLAUDE_CODE_BIN", "claude", CLAUDE_PACKAGE);
    let words = "src/lib.rs and src/main.rs";
    let (transport, _server) = Transport::start(false).await?;
    let (result, requests) = drive_claude(
        &claude,
        &transport,
        &format!("/mcp__skills__{SKILL} {words}"),
    )
    .await?;
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
    Ok(None)
}

/// `codex exec` with a `CODEX_HOME` whose `config.toml` names the stand-in as its model
/// provider and the example as MCP server `skills`, `load_skill` approved.
async fn drive_codex(codex: &Path, transport: &Transport) -> Result<(String, Vec<Value>), Failed> {
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
    let stdout = succeeded(programs::run(command, "codex").await?, "codex", transport)?;
    Ok((stdout, requests(&model).await))
}

async fn codex_loads_a_skill(http: bool) -> Result<Option<String>, Failed> {
    let codex = found_or_skip!("CODEX_BIN", "codex", CODEX_PACKAGE);
    let (transport, _server) = Transport::start(http).await?;
    let (stdout, requests) = drive_codex(&codex, &transport).await?;
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
    Ok(None)
}

/// `mcp-inspector-cli --cli ... --method METHOD ARGS`, its JSON answer.
async fn inspect(
    inspector: &Path,
    transport: &Transport,
    method: &[&str],
) -> Result<Value, Failed> {
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
    let ran = programs::run(command, "mcp-inspector-cli").await?;
    let stdout = succeeded(ran, "mcp-inspector-cli", transport)?;
    // A deprecation notice may come before the JSON.
    let json = &stdout[stdout.find('{').unwrap_or(0)..];
    Ok(serde_json::from_str(json).map_err(|e| format!("inspector's JSON: {e}\n{stdout}"))?)
}

async fn inspector_reads_the_server(http: bool) -> Result<Option<String>, Failed> {
    let inspector = found_or_skip!("MCP_INSPECTOR_BIN", "mcp-inspector-cli", INSPECTOR_PACKAGE);
    let (transport, _server) = Transport::start(http).await?;
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
    .await?;
    assert_eq!(
        called["content"][0]["text"],
        SKILLS.load_skill(SKILL).unwrap()
    );
    let index = inspect(
        &inspector,
        &transport,
        &["resources/read", "--uri", "skill://index.json"],
    )
    .await?;
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
    .await?;
    let on_disk = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("skills/{SKILL}/SKILL.md")),
    )
    .unwrap();
    assert_eq!(read["contents"][0]["text"], on_disk);
    Ok(None)
}

/// With no program to be found (an empty search path, no variable set), every test of a host
/// or of the conformance suite reports itself ignored with the reason, and none passes.
fn without_clients_every_test_reports_itself_ignored() -> Outcome {
    let nowhere = tempfile::tempdir().unwrap();
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command
        .args(["--test-threads", "1", "--color", "never"])
        .env(NESTED, "1")
        .env(programs::HOSTS_PATH, nowhere.path());
    for variable in [
        "CLAUDE_CODE_BIN",
        "CODEX_BIN",
        "MCP_INSPECTOR_BIN",
        "MCP_CONFORMANCE_BIN",
    ] {
        command.env_remove(variable);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}\n{stdout}", output.status);
    let results: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("test ") && !l.starts_with("test result"))
        .collect();
    assert_eq!(results.len(), 10, "{stdout}");
    for line in &results {
        assert!(
            line.contains(" ... ignored (") && line.contains("is not installed"),
            "{line}"
        );
    }
    assert!(
        stdout.contains("0 passed; 0 failed; 10 ignored"),
        "{stdout}"
    );
    passed()
}

/// `cargo test --test hosts` without the `mcp` feature is refused by cargo, which names the
/// feature (the test is declared with `required-features`), rather than a run of no test.
fn cargo_refuses_these_tests_without_the_mcp_feature() -> Outcome {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Refused before anything is built; a target folder of its own all the same, so the run
    // never waits for this one's.
    let target = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(cargo)
        .args([
            "test",
            "--offline",
            "--no-run",
            "--test",
            "hosts",
            "--manifest-path",
        ])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("requires the features: `mcp`"), "{stderr}");
    passed()
}
