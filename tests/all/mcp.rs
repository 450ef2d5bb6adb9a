//! The `mcp_server` example and the demo bundle, driven by rmcp's own client: in process over
//! a pipe, and the example binary over its stdio and over Streamable HTTP, and by the official
//! Python SDK. Every served byte and digest is compared with the files on disk.

#[path = "../mcp_client/example.rs"]
mod example;
use skills_test_support::mcp as support;

use std::path::Path;

use example::{example_binary, serve_http};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, DIRECTORY_MIME_TYPE, ErrorCode,
    GetPromptRequestParams, GetSkillRequestParams, Implementation, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceRequestParams, RequestMetaObject,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use skills_runtime::Registry;
use skills_runtime::mcp::SkillsServer;
use support::{Client, args, check_files, connect, protocol_error, text_of};

static SKILLS: Registry = skills_runtime::embed_skills!("skills");

/// The stateless revision's `server/discover` carries the catalog and capabilities too. (Over
/// HTTP, rmcp 3.11's client sends it without the `_meta` fields the server requires and gets
/// -32602, so only the pipe and stdio run this.)
async fn check_discover(client: &Client) {
    let mut meta = RequestMetaObject::new();
    meta.set_protocol_version(ProtocolVersion::V_2026_07_28);
    meta.set_client_info(Implementation::new("tests", "1.0.0"));
    meta.set_client_capabilities(ClientCapabilities::default());
    let discovered = client.discover(meta).await.unwrap();
    assert_eq!(
        discovered.instructions.as_deref(),
        Some(SkillsServer::new(&SKILLS).instructions())
    );
    assert!(discovered.capabilities.supports_directory_read());
    assert!(discovered.capabilities.tools.is_some());
}

/// Tools, prompts and every bad input, on the demo bundle.
async fn check_demo(client: &Client) {
    check_files(client, &SKILLS, "skills").await;

    let frontmatter = &client
        .get_skill(GetSkillRequestParams::new("skill://code-review/SKILL.md"))
        .await
        .unwrap()
        .skill
        .frontmatter;
    let wire = serde_json::to_value(frontmatter).unwrap();
    assert_eq!(
        wire,
        json!({
            "name": "code-review",
            "description": SKILLS.get("code-review").unwrap().description(),
            "when-not-to-use": "chasing the cause of a specific failing test (use debug-failing-test) or checking third-party packages for vulnerabilities and licences (use dependency-audit).",
            "version": "1.0.0",
            "license": "MIT OR Apache-2.0",
            "tags": ["review", "quality", "security"],
            "metadata": {"author": "skills-rs", "category": "quality"}
        })
    );
    // Verbatim: the fields in the order the author wrote them.
    let keys: Vec<&String> = wire.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "name",
            "description",
            "when-not-to-use",
            "version",
            "license",
            "tags",
            "metadata"
        ]
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, ["load_skill", "read_skill_resource"]);
    let anthropic: Value =
        serde_json::from_str(SKILLS.load_skill_tool_anthropic().unwrap()).unwrap();
    assert_eq!(
        Value::Object((*tools[0].input_schema).clone()),
        anthropic["input_schema"]
    );
    // The agent's description points at its system prompt, which an MCP host never shows.
    assert_ne!(
        tools[0].description.as_deref(),
        anthropic["description"].as_str()
    );
    assert!(
        !tools[0]
            .description
            .as_deref()
            .unwrap()
            .contains("Skills available")
    );
    let anthropic: Value =
        serde_json::from_str(SKILLS.read_resource_tool_anthropic().unwrap()).unwrap();
    assert_eq!(
        Value::Object((*tools[1].input_schema).clone()),
        anthropic["input_schema"]
    );

    for skill in SKILLS.iter() {
        let result = client
            .call_tool(
                CallToolRequestParams::new("load_skill")
                    .with_arguments(args(json!({"name": skill.name()}))),
            )
            .await
            .unwrap();
        assert_ne!(result.is_error, Some(true));
        assert_eq!(text_of(&result), SKILLS.load_skill(skill.name()).unwrap());
    }
    let result = client
        .call_tool(
            CallToolRequestParams::new("read_skill_resource").with_arguments(args(json!({
                "skill": "debug-failing-test",
                "path": "references/flaky-tests.md",
                "offset": 2,
                "limit": 3
            }))),
        )
        .await
        .unwrap();
    assert_eq!(
        text_of(&result),
        SKILLS
            .read_resource(
                "debug-failing-test",
                "references/flaky-tests.md",
                Some(2),
                Some(3)
            )
            .unwrap()
    );

    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    let expected: Vec<&str> = SKILLS
        .iter()
        .filter(|s| s.user_invocable())
        .map(|s| s.name())
        .collect();
    assert_eq!(names, expected);
    for name in expected {
        let prompt = client
            .get_prompt(
                GetPromptRequestParams::new(name)
                    .with_arguments(args(json!({"arguments": "src/lib.rs 'two words'"}))),
            )
            .await
            .unwrap();
        assert_eq!(prompt.messages.len(), 1);
        assert_eq!(
            prompt.messages[0].content.as_text().unwrap().text,
            SKILLS.invoke(name, "src/lib.rs 'two words'").unwrap()
        );
    }

    check_bad_input(client).await;
}

async fn check_bad_input(client: &Client) {
    let (code, message) = protocol_error(
        client
            .get_skill(GetSkillRequestParams::new("skill://code-reviw/SKILL.md"))
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(
        message.contains("Did you mean \"code-review\""),
        "{message}"
    );

    for (uri, hint) in [
        (
            "skill://code-review/../commit-message/SKILL.md",
            "`..` segments",
        ),
        (
            "skill://code-reviw/SKILL.md",
            "Did you mean \"code-review\"",
        ),
        (
            "skill://debug-failing-test/references/flaky-test.md",
            "Did you mean \"references/flaky-tests.md\"",
        ),
        ("file:///etc/passwd", "skill://<skill>/<path>"),
    ] {
        let (code, message) = protocol_error(
            client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await,
        );
        assert_eq!(code, ErrorCode::RESOURCE_NOT_FOUND, "{uri}");
        assert!(message.contains(hint), "{uri}: {message}");
    }

    for (uri, hint) in [
        (
            "skill://debug-failing-test/referencs",
            "has no folder \"referencs\"; its folders: skill://debug-failing-test, \
             skill://debug-failing-test/references",
        ),
        ("skill://debug-failing-test/../code-review", "`..` segments"),
        ("skill://debug-failing-test/references/..", "`..` segments"),
        (
            "skill://debug-failing-test/SKILL.md",
            "is a file, not a folder",
        ),
        ("skill://code-reviw", "Did you mean \"code-review\""),
        ("file:///etc", "is not a skill folder"),
    ] {
        let (code, message) = protocol_error(
            client
                .read_resource_directory(ReadResourceDirectoryRequestParams::new(uri))
                .await,
        );
        assert_eq!(code, ErrorCode::INVALID_PARAMS, "{uri}");
        assert!(message.contains(hint), "{uri}: {message}");
    }
    // A trailing `/` names the same folder.
    let root = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://debug-failing-test/",
        ))
        .await
        .unwrap();
    let names: Vec<&str> = root.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["SKILL.md", "references"]);
    assert_eq!(
        root.resources[1].mime_type.as_deref(),
        Some(DIRECTORY_MIME_TYPE)
    );

    // The tool ran and failed: the model reads the closest name.
    let result = client
        .call_tool(
            CallToolRequestParams::new("load_skill")
                .with_arguments(args(json!({"name": "code-reviw"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text_of(&result),
        SKILLS.load_skill("code-reviw").unwrap_err().to_string()
    );
    let result = client
        .call_tool(
            CallToolRequestParams::new("read_skill_resource").with_arguments(args(json!({
                "skill": "debug-failing-test",
                "path": "../code-review/SKILL.md"
            }))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text_of(&result).contains("has no file"),
        "{}",
        text_of(&result)
    );

    // Arguments that do not fit a tool's schema: a tool error the model reads and can correct,
    // as the protocol asks since 2025-11-25; an unknown tool is a protocol error.
    for (tool, arguments, hint) in [
        ("load_skill", json!({"name": 42}), "must be a string"),
        ("load_skill", json!({}), "is required"),
        (
            "read_skill_resource",
            json!({"skill": "debug-failing-test", "path": "references/flaky-tests.md", "offset": "2"}),
            "whole number",
        ),
        (
            "read_skill_resource",
            json!({"skill": "debug-failing-test", "path": "references/flaky-tests.md", "limit": -1}),
            "whole number",
        ),
        (
            "read_skill_resource",
            json!({"path": "references/flaky-tests.md"}),
            "\"skill\" (a string) is required",
        ),
    ] {
        let result = client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(args(arguments)))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true), "{tool}");
        assert!(
            text_of(&result).contains(hint),
            "{tool}: {}",
            text_of(&result)
        );
    }
    let (code, message) = protocol_error(
        client
            .call_tool(CallToolRequestParams::new("no_such_tool").with_arguments(args(json!({}))))
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(
        message.contains("load_skill, read_skill_resource"),
        "{message}"
    );

    let (code, message) = protocol_error(
        client
            .get_prompt(GetPromptRequestParams::new("write-doc"))
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.contains("Did you mean \"write-docs\""), "{message}");
    for (arguments, hint) in [
        (json!({"arguments": 1}), "must be a string"),
        (json!({"path": "x"}), "no argument \"path\""),
    ] {
        let (code, message) = protocol_error(
            client
                .get_prompt(
                    GetPromptRequestParams::new("write-docs").with_arguments(args(arguments)),
                )
                .await,
        );
        assert_eq!(code, ErrorCode::INVALID_PARAMS);
        assert!(message.contains(hint), "{message}");
    }

    // Still serving after every bad request.
    assert_eq!(client.list_all_skills().await.unwrap().len(), SKILLS.len());
}

#[tokio::test]
async fn in_process_every_surface_matches_the_demo_bundle_on_disk() {
    let client = connect(SkillsServer::new(&SKILLS)).await;
    check_demo(&client).await;
    check_discover(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_example_serves_over_stdio() {
    let transport = TokioChildProcess::new(tokio::process::Command::new(example_binary()))
        .expect("spawn the mcp_server example");
    let client = ().serve(transport).await.expect("handshake over stdio");
    check_demo(&client).await;
    check_discover(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_example_serves_streamable_http_statelessly() {
    let (mut child, url) = serve_http().await;
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("handshake over HTTP");
    check_demo(&client).await;
    client.cancel().await.unwrap();
    child.kill().await.unwrap();
}

/// A page served from this machine, such as the MCP Inspector's web UI at
/// `http://localhost:6274`, reaches the example over HTTP; a page of any other origin does not.
#[tokio::test]
async fn the_example_serves_the_inspectors_web_ui_and_refuses_foreign_pages() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut child, url) = serve_http().await;
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap()
        .to_owned();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"browser","version":"1"}}}"#;
    let status = |origin: &'static str| {
        let authority = authority.clone();
        async move {
            let mut stream = tokio::net::TcpStream::connect(&authority).await.unwrap();
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nOrigin: {origin}\r\n\
                 Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                 Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(request.as_bytes()).await.unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).await.unwrap();
            answer.split(' ').nth(1).unwrap_or("").to_owned()
        }
    };
    assert_eq!(status("http://localhost:6274").await, "200");
    assert_eq!(status("http://127.0.0.1:6274").await, "200");
    assert_eq!(status("http://evil.example").await, "403");
    assert_eq!(status("null").await, "403");
    child.kill().await.unwrap();
}

/// A second, independent client: the official Python SDK (`pip install mcp`) drives the example
/// over stdio (`tests/mcp_client/python_sdk.py`). Skipped, with a message, where the SDK is not
/// installed; `MCP_PYTHON` names an interpreter that has it (a virtual environment's).
#[test]
fn the_python_sdk_reads_the_example_over_stdio() {
    let python = std::env::var("MCP_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let probe = std::process::Command::new(&python)
        .args(["-c", "import mcp"])
        .output();
    if !probe.is_ok_and(|output| output.status.success()) {
        eprintln!(
            "skipped: no Python MCP SDK for `{python}` (pip install mcp, or set MCP_PYTHON to \
             an interpreter that has it)"
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client/python_sdk.py");
    // Pages of two, so that both listings take several.
    let output = std::process::Command::new(&python)
        .arg(script)
        .arg(example_binary())
        .args(["--page-size", "2"])
        .output()
        .expect("run the Python client");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(seen["server"], "skills-runtime");
    assert_eq!(
        seen["instructions"],
        SkillsServer::new(&SKILLS).instructions()
    );
    let mut expected: Vec<String> = SKILLS
        .iter()
        .flat_map(|skill| {
            let name = skill.name();
            std::iter::once(format!("skill://{name}/SKILL.md")).chain(
                skill
                    .resources()
                    .iter()
                    .map(move |r| format!("skill://{name}/{}", r.path())),
            )
        })
        .collect();
    expected.sort();
    assert_eq!(seen["resources"], json!(expected));
    assert_eq!(
        seen["skill_md"],
        SKILLS.get("code-review").unwrap().content()
    );
    assert_eq!(seen["tools"], json!(["load_skill", "read_skill_resource"]));
    assert_eq!(
        seen["load_skill"],
        SKILLS.load_skill("code-review").unwrap()
    );
    assert_eq!(seen["load_skill_is_error"], false);
    let prompts: Vec<&str> = SKILLS
        .iter()
        .filter(|s| s.user_invocable())
        .map(|s| s.name())
        .collect();
    assert_eq!(seen["prompts"], json!(prompts));

    // The 2026-07-28 session: pages of two through every skill and file, each with the cache
    // hints; a cursor the server did not issue is invalid params.
    let modern = &seen["modern"];
    assert!(
        modern["supported_versions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    let skills: Vec<String> = SKILLS
        .iter()
        .filter(|s| s.model_invocable())
        .map(|s| format!("skill://{}/SKILL.md", s.name()))
        .collect();
    let pages = modern["skill_pages"].as_array().unwrap();
    assert_eq!(pages.len(), skills.len().div_ceil(2));
    assert!(pages.iter().all(|p| p.as_array().unwrap().len() <= 2));
    let flat: Vec<&Value> = pages.iter().flat_map(|p| p.as_array().unwrap()).collect();
    assert_eq!(json!(flat), json!(skills));
    let resources: Vec<&Value> = modern["resource_pages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p.as_array().unwrap())
        .collect();
    let mut resources: Vec<String> = resources
        .iter()
        .map(|r| r.as_str().unwrap().to_owned())
        .collect();
    resources.sort();
    assert_eq!(json!(resources), json!(expected));
    let hints = json!({"resultType": "complete", "ttlMs": 3_600_000, "cacheScope": "public"});
    for hinted in modern["list_hints"].as_array().unwrap().iter().chain([
        &modern["discover"],
        &modern["read_hints"],
        &modern["tools_hints"],
    ]) {
        assert_eq!(hinted, &hints);
    }
    assert_eq!(modern["foreign_cursor_error"], -32602);
}
