//! The MCP server of `skills_runtime::mcp`, driven by rmcp's own client: in process over a
//! pipe, and the `mcp_server` example over its stdio and over Streamable HTTP. Every served
//! byte and digest is compared with the files on disk.
#![cfg(feature = "mcp")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, DIRECTORY_MIME_TYPE, ErrorCode,
    GetPromptRequestParams, GetSkillRequestParams, Implementation, JsonObject, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceRequestParams, RequestMetaObject,
    ResourceContents, SkillResources, sha256_digest,
};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use skills_runtime::Registry;
use skills_runtime::mcp::SkillsServer;

static SKILLS: Registry = skills_runtime::embed_skills!("skills");
static WITH_RESOURCES: Registry = skills_runtime::embed_skills!("tests/fixtures/with-resources");
static INVOCATION: Registry =
    skills_runtime::embed_skills!("tests/fixtures/invocation", compat = "claude-code");

type Client = RunningService<RoleClient, ()>;

/// `target/<profile>/examples/mcp_server`, beside this test's `deps` folder.
fn example_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(Path::parent).unwrap();
    profile.join("examples").join("mcp_server")
}

/// The client end of `server` served in process over a pipe.
async fn connect(server: SkillsServer) -> Client {
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_end).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    ().serve(client_end).await.expect("client handshake")
}

/// Every file of every skill folder under `root`, by skill name then relative path, as the
/// embedding keeps them (hidden files, `__pycache__` and `*.pyc` left out, and the skill's
/// `evals/` folder, which is never served: the model must not see its own test).
fn disk_files(root: &str) -> BTreeMap<String, BTreeMap<String, Vec<u8>>> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if name.starts_with('.') || name == "__pycache__" || name.ends_with(".pyc") {
                continue;
            }
            if prefix.is_empty() && name == "evals" {
                continue;
            }
            let path = format!("{prefix}{name}");
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &format!("{path}/"), out);
            } else {
                out.insert(path, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    let mut skills = BTreeMap::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if entry.file_type().unwrap().is_dir() && !name.starts_with('.') {
            let mut files = BTreeMap::new();
            walk(&entry.path(), "", &mut files);
            skills.insert(name, files);
        }
    }
    skills
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        other => panic!("not base64: {other}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= u32::from(*d) << (18 - 6 * i);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

fn protocol_error(result: Result<impl std::fmt::Debug, ServiceError>) -> (ErrorCode, String) {
    match result {
        Err(ServiceError::McpError(error)) => (error.code, error.message.into_owned()),
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .map(|c| c.as_text().expect("text content").text.clone())
        .collect()
}

/// Skills, resources (list and read), their digests and bytes against the files under `root`.
async fn check_files(client: &Client, registry: &Registry, root: &str) {
    let disk = disk_files(root);
    let info = client.peer_info().expect("server info");
    assert!(
        info.capabilities.supports_skills(),
        "Skills extension declared"
    );
    assert_eq!(info.instructions.as_deref(), Some(registry.catalog()));

    let skills = client.list_all_skills().await.unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s.frontmatter.name.as_str()).collect();
    let model_invocable: Vec<&str> = disk
        .keys()
        .map(String::as_str)
        .filter(|name| registry.get(name).unwrap().model_invocable())
        .collect();
    assert_eq!(names, model_invocable);
    let mut listed_uris: Vec<String> = disk
        .iter()
        .filter(|(name, _)| !model_invocable.contains(&name.as_str()))
        .flat_map(|(name, files)| {
            files
                .keys()
                .map(move |path| format!("skill://{name}/{path}"))
        })
        .collect();
    for skill in &skills {
        let name = skill.frontmatter.name.as_str();
        let embedded = registry.get(name).unwrap();
        assert_eq!(skill.uri, format!("skill://{name}/SKILL.md"));
        assert_eq!(skill.frontmatter.description, embedded.description());
        let SkillResources::Files(files) = &skill.resources else {
            panic!("static manifest expected");
        };
        let on_disk = &disk[name];
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        let expected: Vec<String> = on_disk
            .keys()
            .map(|path| format!("skill://{name}/{path}"))
            .collect();
        let mut sorted = uris.clone();
        sorted.sort();
        assert_eq!(sorted, expected, "the manifest of {name}");
        for file in files {
            let path = file.uri.strip_prefix(&format!("skill://{name}/")).unwrap();
            let bytes = &on_disk[path];
            assert_eq!(file.size, bytes.len() as u64, "{}", file.uri);
            assert_eq!(file.digest, sha256_digest(bytes), "{}", file.uri);
            file.verify(bytes).unwrap();
            if path == "SKILL.md" {
                // The build-time digest of the embedded SKILL.md agrees.
                assert_eq!(file.digest, format!("sha256:{}", embedded.sha256()));
            }
        }
        let got = client
            .get_skill(GetSkillRequestParams::new(&skill.uri))
            .await
            .unwrap();
        assert_eq!(&got.skill, skill);
        listed_uris.extend(expected);
    }

    let resources = client.list_all_resources().await.unwrap();
    let mut uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    uris.sort();
    listed_uris.sort();
    assert_eq!(uris, listed_uris);
    for resource in &resources {
        let rest = resource.uri.strip_prefix("skill://").unwrap();
        let (name, path) = rest.split_once('/').unwrap();
        let bytes = &disk[name][path];
        assert_eq!(resource.size, Some(bytes.len() as u64), "{}", resource.uri);
        if path.ends_with(".md") {
            assert_eq!(resource.mime_type.as_deref(), Some("text/markdown"));
        }
        let read = client
            .read_resource(ReadResourceRequestParams::new(&resource.uri))
            .await
            .unwrap();
        assert_eq!(read.contents.len(), 1);
        let served = match &read.contents[0] {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                assert_eq!(uri, &resource.uri);
                text.as_bytes().to_vec()
            }
            ResourceContents::BlobResourceContents { uri, blob, .. } => {
                assert_eq!(uri, &resource.uri);
                assert!(std::str::from_utf8(bytes).is_err(), "{uri} is text");
                decode_base64(blob)
            }
            other => panic!("unexpected contents {other:?}"),
        };
        assert_eq!(&served, bytes, "{}", resource.uri);
    }

    // Every skill's folder tree, walked with `resources/directory/read` from its root, holds
    // exactly its files on disk, each listed as `resources/list` lists it.
    assert!(info.capabilities.supports_directory_read());
    for (name, on_disk) in &disk {
        let mut found = Vec::new();
        let mut folders = vec![format!("skill://{name}")];
        while let Some(folder) = folders.pop() {
            let children = client
                .read_resource_directory(ReadResourceDirectoryRequestParams::new(&folder))
                .await
                .unwrap()
                .resources;
            let names: Vec<&str> = children.iter().map(|c| c.name.as_str()).collect();
            let mut sorted = names.clone();
            sorted.sort();
            assert_eq!(names, sorted, "the children of {folder}, by name");
            for child in children {
                assert_eq!(child.uri, format!("{folder}/{}", child.name));
                if child.is_directory() {
                    assert_eq!(child.size, None, "{}", child.uri);
                    folders.push(child.uri.clone());
                    continue;
                }
                let listed = resources.iter().find(|r| r.uri == child.uri).unwrap();
                let path = child.uri.strip_prefix(&format!("skill://{name}/")).unwrap();
                assert_eq!(
                    child.size,
                    Some(on_disk[path].len() as u64),
                    "{}",
                    child.uri
                );
                assert_eq!(child.mime_type, listed.mime_type, "{}", child.uri);
                found.push(path.to_owned());
            }
        }
        found.sort();
        let expected: Vec<&String> = on_disk.keys().collect();
        assert_eq!(
            found.iter().collect::<Vec<_>>(),
            expected,
            "the folders of {name}"
        );
    }
}

/// The stateless revision's `server/discover` carries the catalog and capabilities too. (Over
/// HTTP, rmcp 3.11's client sends it without the `_meta` fields the server requires and gets
/// -32602, so only the pipe and stdio run this.)
async fn check_discover(client: &Client) {
    let mut meta = RequestMetaObject::new();
    meta.set_protocol_version(ProtocolVersion::V_2026_07_28);
    meta.set_client_info(Implementation::new("tests", "1.0.0"));
    meta.set_client_capabilities(ClientCapabilities::default());
    let discovered = client.discover(meta).await.unwrap();
    assert_eq!(discovered.instructions.as_deref(), Some(SKILLS.catalog()));
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
    assert_eq!(
        tools[0].description.as_deref(),
        anthropic["description"].as_str()
    );
    let anthropic: Value =
        serde_json::from_str(&SKILLS.read_resource_tool_anthropic().unwrap()).unwrap();
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
        ("no_such_tool", json!({}), "load_skill, read_skill_resource"),
    ] {
        let (code, message) = protocol_error(
            client
                .call_tool(CallToolRequestParams::new(tool).with_arguments(args(arguments)))
                .await,
        );
        assert_eq!(code, ErrorCode::INVALID_PARAMS, "{tool}");
        assert!(message.contains(hint), "{tool}: {message}");
    }

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
async fn binary_files_go_out_as_base64_blobs_with_their_digests() {
    let client = connect(SkillsServer::new(&WITH_RESOURCES)).await;
    check_files(&client, &WITH_RESOURCES, "tests/fixtures/with-resources").await;
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://pdf-forms/assets/logo.png",
        ))
        .await
        .unwrap();
    assert!(
        matches!(&read.contents[0], ResourceContents::BlobResourceContents { mime_type, .. } if mime_type.as_deref() == Some("image/png"))
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompts_take_named_arguments_and_leave_out_skills_a_person_cannot_invoke() {
    let client = connect(SkillsServer::new(&INVOCATION)).await;
    // Every file is served, and the person-only `release` is no skill of the extension.
    check_files(&client, &INVOCATION, "tests/fixtures/invocation").await;
    let skills = client.list_all_skills().await.unwrap();
    assert!(skills.iter().all(|s| s.frontmatter.name != "release"));
    let (code, message) = protocol_error(
        client
            .get_skill(GetSkillRequestParams::new("skill://release/SKILL.md"))
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.contains("prompt \"release\""), "{message}");
    // Nor can the model load it, and no tool reads its files: only it ships any here.
    let result = client
        .call_tool(
            CallToolRequestParams::new("load_skill")
                .with_arguments(args(json!({"name": "release"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text_of(&result).contains("No skill named \"release\""),
        "{}",
        text_of(&result)
    );
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "load_skill");
    let (code, message) = protocol_error(
        client
            .call_tool(
                CallToolRequestParams::new("read_skill_resource").with_arguments(args(
                    json!({"skill": "release", "path": "scripts/release.sh"}),
                )),
            )
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.contains("offers: load_skill"), "{message}");

    let prompts = client.list_all_prompts().await.unwrap();
    assert!(prompts.iter().all(|p| p.name != "background"));
    let release = prompts.iter().find(|p| p.name == "release").unwrap();
    let arguments: Vec<&str> = release
        .arguments
        .iter()
        .flatten()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(arguments, ["version", "channel", "arguments"]);
    let hint = release.arguments.as_ref().unwrap()[2]
        .description
        .as_deref();
    assert!(hint.unwrap().contains("[version] [channel]"), "{hint:?}");

    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("release")
                .with_arguments(args(json!({"version": "1.2.0", "channel": "it's beta"}))),
        )
        .await
        .unwrap();
    assert_eq!(
        prompt.messages[0].content.as_text().unwrap().text,
        INVOCATION
            .invoke("release", r"1.2.0 'it'\''s beta'")
            .unwrap()
    );

    let (code, message) = protocol_error(
        client
            .get_prompt(GetPromptRequestParams::new("background"))
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        message,
        INVOCATION.invoke("background", "").unwrap_err().to_string()
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_restricted_registry_serves_only_its_skills() {
    let restricted = SKILLS.restrict(["code-review"]).unwrap();
    let client = connect(SkillsServer::new(restricted)).await;
    let skills = client.list_all_skills().await.unwrap();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].uri, "skill://code-review/SKILL.md");
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), 1);
    let (code, _) = protocol_error(
        client
            .read_resource(ReadResourceRequestParams::new(
                "skill://write-docs/SKILL.md",
            ))
            .await,
    );
    assert_eq!(code, ErrorCode::RESOURCE_NOT_FOUND);
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
    use tokio::io::AsyncBufReadExt;

    let mut child = tokio::process::Command::new(example_binary())
        .args(["--http", "127.0.0.1:0"])
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

    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("handshake over HTTP");
    check_demo(&client).await;
    client.cancel().await.unwrap();
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
    let output = std::process::Command::new(&python)
        .arg(script)
        .arg(example_binary())
        .output()
        .expect("run the Python client");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(seen["server"], "skills-runtime");
    assert_eq!(seen["instructions"], SKILLS.catalog());
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
}
