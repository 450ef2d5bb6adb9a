//! What the MCP server's tests share: an in-process connection and the check of every
//! served file against the files on disk. The root package's tests of the `mcp_server` example
//! use them too.

use std::collections::BTreeMap;
use std::path::Path;

use rmcp::model::{
    ErrorCode, GetSkillRequestParams, JsonObject, ReadResourceDirectoryRequestParams,
    ReadResourceRequestParams, ResourceContents, SkillResources, sha256_digest,
};
use rmcp::service::{RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use skills_runtime::Registry;
use skills_runtime::mcp::SkillsServer;

/// An rmcp client connected to a skills server.
pub type Client = RunningService<RoleClient, ()>;

/// The client end of `server` served in process over a pipe.
pub async fn connect(server: SkillsServer) -> Client {
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_end).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    ().serve(client_end).await.expect("client handshake")
}

/// Every file of every skill folder under `root`, by skill name then relative path, as the
/// embedding keeps them (hidden files, `__pycache__` and `*.pyc` left out, and the skill's
/// `evals/` folder, which is never served: the model must not see its own test). A relative
/// `root` is taken from the folder of the package under test, where cargo runs its tests.
pub fn disk_files(root: &str) -> BTreeMap<String, BTreeMap<String, Vec<u8>>> {
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
    let root = Path::new(root);
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

/// The bytes of standard base64 `text` (the test fails on anything else).
pub fn decode_base64(text: &str) -> Vec<u8> {
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

/// A tool call's arguments from a JSON object.
pub fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

/// The code and message of a JSON-RPC error (the test fails on a success).
pub fn protocol_error(result: Result<impl std::fmt::Debug, ServiceError>) -> (ErrorCode, String) {
    match result {
        Err(ServiceError::McpError(error)) => (error.code, error.message.into_owned()),
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

/// The text blocks of a tool result, joined.
pub fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .map(|c| c.as_text().expect("text content").text.clone())
        .collect()
}

/// Skills, resources (list and read), their digests and bytes against the files under `root`.
pub async fn check_files(client: &Client, registry: &Registry, root: &str) {
    let disk = disk_files(root);
    let info = client.peer_info().expect("server info");
    assert!(
        info.capabilities.supports_skills(),
        "Skills extension declared"
    );
    // The whole catalog after one sentence, when it fits in what Claude Code keeps.
    let instructions = info.instructions.as_deref().unwrap();
    assert!(instructions.encode_utf16().count() <= 2048);
    if registry.catalog().len() < 1800 {
        assert!(
            instructions.ends_with(&format!("returns.\n{}", registry.catalog())),
            "{instructions}"
        );
    }

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

/// A client that writes JSON-RPC lines to a server in process and reads the answers as JSON, to
/// check the exact wire shape (fields a typed client would fill in or drop).
pub struct RawClient {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    next_id: u64,
    /// `Some(version)`: every request carries the `_meta` of the stateless 2026-07-28 revision
    /// for it; `None`: the session began with `initialize`.
    inline_version: Option<&'static str>,
}

impl RawClient {
    /// A client of `server` on the 2026-07-28 revision: no `initialize`, every request names
    /// the version and the client's capabilities in its `_meta`.
    pub async fn stateless(server: SkillsServer) -> RawClient {
        Self::start(server, Some("2026-07-28")).await
    }

    /// A client of `server` that began with `initialize` at `version` (as hosts of the
    /// earlier revisions do, Claude Code among them).
    pub async fn initialized(server: SkillsServer, version: &'static str) -> RawClient {
        Self::initialized_at(server, version).await.0
    }

    /// [`initialized`](Self::initialized), and the version the server answered with.
    pub async fn initialized_at(server: SkillsServer, version: &str) -> (RawClient, String) {
        let mut client = Self::start(server, None).await;
        let answer = client
            .request(
                "initialize",
                serde_json::json!({
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1.0.0"}
                }),
            )
            .await;
        let negotiated = answer["result"]["protocolVersion"]
            .as_str()
            .unwrap_or_else(|| panic!("{answer}"))
            .to_owned();
        client
            .notify("notifications/initialized", serde_json::json!({}))
            .await;
        (client, negotiated)
    }

    async fn start(server: SkillsServer, inline_version: Option<&'static str>) -> RawClient {
        use tokio::io::AsyncBufReadExt;
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let (reader, writer) = tokio::io::split(client_end);
        RawClient {
            writer,
            lines: tokio::io::BufReader::new(reader).lines(),
            next_id: 1,
            inline_version,
        }
    }

    async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt;
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
    }

    /// Sends the notification `method` with `params`.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends `method` with `params` (an object, or `Value::Null` for none) and returns the
    /// whole response object (`result` or `error`).
    pub async fn request(&mut self, method: &str, mut params: Value) -> Value {
        if let (Some(version), Value::Object(map)) = (self.inline_version, &mut params) {
            map.entry("_meta").or_insert_with(|| {
                serde_json::json!({
                    "io.modelcontextprotocol/protocolVersion": version,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1.0.0"}
                })
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        let mut message = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message).await;
        loop {
            let line = self.lines.next_line().await.unwrap().expect("an answer");
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer.get("id") == Some(&serde_json::json!(id)) {
                return answer;
            }
        }
    }

    /// `request`, expecting a result.
    pub async fn result(&mut self, method: &str, params: Value) -> Value {
        let answer = self.request(method, params).await;
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{method}: expected a result, got {answer}"))
    }

    /// `request`, expecting an error: its code and message.
    pub async fn error(&mut self, method: &str, params: Value) -> (i64, String) {
        let answer = self.request(method, params).await;
        let error = answer
            .get("error")
            .unwrap_or_else(|| panic!("{method}: expected an error, got {answer}"));
        (
            error["code"].as_i64().unwrap(),
            error["message"].as_str().unwrap().to_owned(),
        )
    }
}
