//! The embedded bundle as an MCP server, on the official Rust SDK ([`rmcp`]).
//!
//! [`SkillsServer`] serves a [`Registry`] (whole or [restricted](Registry::restrict)) to MCP
//! hosts, from the embedded data only (it never reads the file system):
//!
//! - the Skills extension (`io.modelcontextprotocol/skills`): `skills/list` and `skills/get`
//!   with each skill's frontmatter (every field the author wrote) and every file's URI, size
//!   and `sha256:` digest of exactly the bytes served. A skill only a person may invoke
//!   (`disable-model-invocation`) is left out, as it is from the catalog: it is a prompt;
//! - resources: every file of every skill (person-only ones too) at `skill://<name>/<path>` (`SKILL.md` included),
//!   listed with MIME type and size; text as text, binary files as base64 blobs. Each skill's
//!   folder (`skill://<name>`) and its subfolders answer `resources/directory/read` with their
//!   direct children: files with size and MIME type, folders as `inode/directory`;
//! - tools: `load_skill` (what [`Registry::load_skill`] returns) and `read_skill_resource`
//!   (what [`Registry::read_resource`] returns), the same definitions the agent shows a model;
//! - prompts: one per [user-invocable](skills_bundle::Skill::user_invocable) skill, answering with
//!   what [`Registry::invoke`] returns;
//! - instructions: the [catalog](Registry::catalog).
//!
//! Serve it over stdio ([`SkillsServer::serve_stdio`]) or Streamable HTTP in stateless mode
//! ([`SkillsServer::serve_http`], or [`SkillsServer::http_service`] to mount the tower service
//! in a router of your own).
//!
//! ```no_run
//! // static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("skills");
//! async fn serve(skills: &'static skills_runtime::Registry) -> std::io::Result<()> {
//!     skills_runtime::mcp::SkillsServer::new(skills).serve_stdio().await
//! }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::future::{Future, ready};
use std::io;
use std::sync::{Arc, OnceLock};

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DIRECTORY_MIME_TYPE,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    GetSkillRequestParams, GetSkillResult, Implementation, InitializeRequestParams,
    InitializeResult, JsonObject, ListPromptsResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument, PromptMessage,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource as McpResource, ResourceContents, Role,
    ServerCapabilities, ServerConfig, Skill as McpSkill, SkillFrontmatter, SkillResource,
    SkillResources, Tool,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Map, Value};

use skills_bundle::{Registry, Skill};

/// The URI scheme of every served file: `skill://<name>/<path>`.
pub const URI_SCHEME: &str = "skill://";

/// An MCP server of one [`Registry`]; cheap to clone (the digests and listings are computed
/// once, on first use, and shared by every clone).
#[derive(Clone)]
pub struct SkillsServer {
    // One pointer: Streamable HTTP clones the server for every request and moves it through
    // several futures.
    shared: Arc<Shared>,
}

struct Shared {
    registry: Registry,
    index: OnceLock<Index>,
}

/// Everything derived from the embedded bytes, computed once.
struct Index {
    /// What rmcp's capability checks ask for on every request: built once, cloned, without
    /// the instructions (the catalog, a few KB), which only `initialize` and `server/discover`
    /// answer with.
    info: ServerConfig,
    skills: Vec<McpSkill>,
    resources: Vec<McpResource>,
    files: HashMap<String, File>,
    /// Every folder's URI (`skill://<name>` and `skill://<name>/<path>`, no trailing `/`) and
    /// its direct children, by name.
    directories: HashMap<String, Vec<McpResource>>,
    tools: Vec<Tool>,
}

struct File {
    bytes: &'static [u8],
    text: Option<&'static str>,
    mime_type: Option<&'static str>,
}

impl std::fmt::Debug for SkillsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillsServer")
            .field("registry", &self.registry())
            .finish_non_exhaustive()
    }
}

impl SkillsServer {
    /// A server of `registry` (a `&'static Registry` or an owned, maybe restricted, one).
    pub fn new(registry: impl Into<Registry>) -> Self {
        Self {
            shared: Arc::new(Shared {
                registry: registry.into(),
                index: OnceLock::new(),
            }),
        }
    }

    /// The registry served.
    pub fn registry(&self) -> &Registry {
        &self.shared.registry
    }

    /// Serves one client on standard input and output until it disconnects.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.prepare_index();
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(io::Error::other)?;
        running.waiting().await.map_err(io::Error::other)?;
        Ok(())
    }

    /// The Streamable HTTP service (stateless: every POST is answered on its own, no session),
    /// as a tower service to mount at a path of an HTTP server (axum, hyper, ...). Only
    /// requests whose `Host` is `localhost`, `127.0.0.1` or `::1` are accepted (rmcp's
    /// default protection against DNS rebinding); set `config.allowed_hosts` of the returned
    /// service to serve other names.
    pub fn http_service(&self) -> StreamableHttpService<SkillsServer, NeverSessionManager> {
        let server = self.clone();
        StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(NeverSessionManager::default()),
            StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_keep_alive(None),
        )
    }

    /// Serves [`http_service`](Self::http_service) over HTTP/1.1 at every path on connections
    /// accepted from `listener`, until accepting fails.
    pub async fn serve_http(self, listener: tokio::net::TcpListener) -> io::Result<()> {
        self.prepare_index();
        let service = self.http_service();
        loop {
            let (stream, _) = listener.accept().await?;
            let service = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                // A client that hangs up mid-request ends only its own connection.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    }

    /// Starts computing the digests and listings on a blocking thread, so that they are
    /// (nearly) ready when the first request arrives instead of delaying its answer.
    fn prepare_index(&self) {
        let server = self.clone();
        drop(tokio::task::spawn_blocking(move || {
            server.index();
        }));
    }

    fn index(&self) -> &Index {
        let shared = &*self.shared;
        shared.index.get_or_init(|| Index::build(&shared.registry))
    }

    fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let Some(file) = self.index().files.get(uri) else {
            return Err(ErrorData::resource_not_found(self.why_not_found(uri), None));
        };
        let contents = match file.text {
            Some(text) => ResourceContents::text(text, uri),
            None => ResourceContents::blob(
                base64::engine::general_purpose::STANDARD.encode(file.bytes),
                uri,
            ),
        };
        let contents = match file.mime_type {
            Some(mime_type) => contents.with_mime_type(mime_type),
            None => contents,
        };
        Ok(ReadResourceResult::new(vec![contents]))
    }

    /// The children of the folder at `uri` (a trailing `/` is allowed).
    fn read_directory(&self, uri: &str) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let folder = uri.strip_suffix('/').unwrap_or(uri);
        match self.index().directories.get(folder) {
            Some(children) => Ok(ReadResourceDirectoryResult::with_all_items(
                children.clone(),
            )),
            None => Err(ErrorData::invalid_params(self.why_no_folder(uri), None)),
        }
    }

    /// The skill `uri` points into and the percent-decoded path inside it, or why it points
    /// into none (`what`: "file" or "folder").
    fn locate<'a>(&'a self, uri: &'a str, what: &str) -> Result<(&'a Skill, String), String> {
        let Some(rest) = uri.strip_prefix(URI_SCHEME) else {
            return Err(format!(
                "{uri} is not a skill {what}: every {what} is at {URI_SCHEME}<skill>/<path>"
            ));
        };
        if rest
            .split('/')
            .any(|segment| segment == ".." || segment == ".")
        {
            return Err(format!(
                "{uri}: a path with `.` or `..` segments names no {what} of a skill"
            ));
        }
        let (name, path) = rest.split_once('/').unwrap_or((rest, ""));
        match self.registry().get(name) {
            Some(skill) => Ok((skill, decode(path))),
            None => Err(format!(
                "{uri}: {}",
                skills_bundle::__private::unknown_skill(name, self.registry().names())
            )),
        }
    }

    /// Why `uri` names no served file, with the closest skill or path.
    fn why_not_found(&self, uri: &str) -> String {
        let (skill, path) = match self.locate(uri, "file") {
            Ok(found) => found,
            Err(message) => return message,
        };
        let error = skill
            .read_resource(&path, None, None)
            .err()
            .map_or_else(|| "no such file".to_owned(), |e| e.to_string());
        format!("{uri}: {error} (SKILL.md is served too)")
    }

    /// Why `uri` names no folder: a file, no skill, or a folder the skill does not have (with
    /// the folders it has).
    fn why_no_folder(&self, uri: &str) -> String {
        if self.index().files.contains_key(uri) {
            return format!("{uri} is a file, not a folder: read it with resources/read");
        }
        let (skill, path) = match self.locate(uri, "folder") {
            Ok(found) => found,
            Err(message) => return message,
        };
        let root = folder_uri(skill.name(), "");
        let mut folders: Vec<&str> = self
            .index()
            .directories
            .keys()
            .map(String::as_str)
            .filter(|folder| *folder == root || folder.starts_with(&format!("{root}/")))
            .collect();
        folders.sort_unstable();
        format!(
            "{uri}: the skill \"{}\" has no folder \"{}\"; its folders: {}",
            skill.name(),
            path.trim_end_matches('/'),
            folders.join(", ")
        )
    }

    /// The skill whose `SKILL.md` is at `uri`, or why there is none (a person-only skill is a
    /// prompt, not a skill of the extension).
    fn skill(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        if let Some(skill) = self.index().skills.iter().find(|s| s.uri == uri) {
            return Ok(GetSkillResult::new(skill.clone()));
        }
        let person_only = rmcp::model::skill_name_from_uri(uri)
            .filter(|_| uri.starts_with(URI_SCHEME))
            .and_then(|name| self.registry().get(name))
            .filter(|skill| !skill.model_invocable());
        let message = match person_only {
            Some(skill) => format!(
                "{uri}: the skill \"{}\" is only for a person to invoke \
                 (disable-model-invocation), so it is offered as the prompt \"{}\", \
                 not as a skill",
                skill.name(),
                skill.name()
            ),
            None => self.why_not_found(uri),
        };
        Err(ErrorData::invalid_params(message, None))
    }

    fn call(&self, request: &CallToolRequestParams) -> Result<CallToolResult, ErrorData> {
        let empty = JsonObject::new();
        let arguments = request.arguments.as_ref().unwrap_or(&empty);
        let text = match &*request.name {
            "load_skill" if self.registry().load_skill_tool_anthropic().is_some() => {
                let name = string_argument(arguments, "load_skill", "name")?
                    .ok_or_else(|| missing("load_skill", "name"))?;
                self.shared
                    .registry
                    .load_skill(name)
                    .map_err(|e| e.to_string())
            }
            "read_skill_resource"
                if self
                    .shared
                    .registry
                    .read_resource_tool_anthropic()
                    .is_some() =>
            {
                let tool = "read_skill_resource";
                let skill = string_argument(arguments, tool, "skill")?
                    .ok_or_else(|| missing(tool, "skill"))?;
                let path = string_argument(arguments, tool, "path")?
                    .ok_or_else(|| missing(tool, "path"))?;
                let offset = count_argument(arguments, tool, "offset")?;
                let limit = count_argument(arguments, tool, "limit")?;
                // The model's tool: person-only skills are hidden from it, as in the catalog.
                if self
                    .shared
                    .registry
                    .get(skill)
                    .is_some_and(Skill::model_invocable)
                {
                    self.shared
                        .registry
                        .read_resource(skill, path, offset, limit)
                        .map_err(|e| e.to_string())
                } else {
                    Err(skills_bundle::__private::unknown_skill(
                        skill,
                        self.registry().names_with_resources().into_iter(),
                    )
                    .to_string())
                }
            }
            other => {
                let offered: Vec<_> = self
                    .index()
                    .tools
                    .iter()
                    .map(|t| t.name.to_string())
                    .collect();
                return Err(ErrorData::invalid_params(
                    format!(
                        "no tool named \"{other}\"; this server offers: {}",
                        offered.join(", ")
                    ),
                    None,
                ));
            }
        };
        // A tool that ran and failed: the model reads the message (closest name, files).
        Ok(match text {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        })
    }

    fn prompt(&self, request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
        let name = request.name.as_str();
        let skill = self
            .registry()
            .get(name)
            .filter(|s| s.user_invocable())
            .ok_or_else(|| {
                let error = self
                    .registry()
                    .invoke(name, "")
                    .err()
                    .map_or_else(|| format!("no prompt named \"{name}\""), |e| e.to_string());
                ErrorData::invalid_params(error, None)
            })?;
        let empty = JsonObject::new();
        let arguments = request.arguments.as_ref().unwrap_or(&empty);
        let names = skill.argument_names();
        for key in arguments.keys() {
            if key != ARGUMENTS && !names.contains(&key.as_str()) {
                let mut known: Vec<&str> = names.to_vec();
                known.push(ARGUMENTS);
                return Err(ErrorData::invalid_params(
                    format!(
                        "the prompt \"{name}\" has no argument \"{key}\"; its arguments: {}",
                        known.join(", ")
                    ),
                    None,
                ));
            }
        }
        let what = format!("prompt \"{name}\"");
        let mut text = String::new();
        if let Some(raw) = string_argument(arguments, &what, ARGUMENTS)? {
            text.push_str(raw);
        }
        for &argument in names {
            if let Some(value) = string_argument(arguments, &what, argument)? {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&quote(value));
            }
        }
        let invocation = self
            .registry()
            .invoke(name, &text)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, invocation)])
                .with_description(skill.description()),
        )
    }

    fn prompts(&self) -> Vec<Prompt> {
        self.shared
            .registry
            .iter()
            .filter(|s| s.user_invocable())
            .map(|skill| {
                let hint = skill.argument_hint();
                let mut arguments: Vec<PromptArgument> = skill
                    .argument_names()
                    .iter()
                    .map(|&name| PromptArgument::new(name).with_required(false))
                    .collect();
                let raw = PromptArgument::new(ARGUMENTS).with_required(false);
                arguments.push(match (hint, arguments.is_empty()) {
                    (Some(hint), _) => raw.with_description(format!(
                        "The text after /{}, split as a shell would: {hint}",
                        skill.name()
                    )),
                    (None, true) => {
                        raw.with_description(format!("The text after /{} (optional)", skill.name()))
                    }
                    (None, false) => raw.with_description(
                        "More text after the named arguments, split as a shell would",
                    ),
                });
                Prompt::new(skill.name(), Some(skill.description()), Some(arguments))
                    .with_title(skill.display_name())
            })
            .collect()
    }
}

/// The prompt argument holding the raw text after `/name`.
const ARGUMENTS: &str = "arguments";

impl Index {
    fn build(registry: &Registry) -> Self {
        let mut skills = Vec::new();
        let mut resources = Vec::new();
        let mut files = HashMap::new();
        let mut directories = HashMap::new();
        for skill in registry.iter() {
            let skill_md = uri_of(skill.name(), "SKILL.md");
            let content = skill.content();
            // The SKILL.md digest was computed at build time; only resources are hashed here.
            let mut manifest = vec![SkillResource::new(
                &skill_md,
                format!("sha256:{}", skill.sha256()),
                content.len() as u64,
            )];
            resources.push(
                McpResource::new(&skill_md, format!("{}/SKILL.md", skill.name()))
                    .with_title(skill.display_name())
                    .with_description(skill.description())
                    .with_mime_type("text/markdown")
                    .with_size(content.len() as u64),
            );
            files.insert(
                skill_md.clone(),
                File {
                    bytes: content.as_bytes(),
                    text: Some(content),
                    mime_type: Some("text/markdown"),
                },
            );
            // Folder path -> child name -> child, both sorted.
            let mut folders: BTreeMap<&str, BTreeMap<&str, McpResource>> = BTreeMap::new();
            folders.entry("").or_default().insert(
                "SKILL.md",
                McpResource::new(&skill_md, "SKILL.md")
                    .with_mime_type("text/markdown")
                    .with_size(content.len() as u64),
            );
            for resource in skill.resources() {
                let uri = uri_of(skill.name(), resource.path());
                add_to_folders(
                    &mut folders,
                    skill.name(),
                    resource.path(),
                    &uri,
                    resource.size(),
                );
                manifest.push(SkillResource::from_bytes(&uri, resource.bytes()));
                let mime_type = mime_type_of(resource.path());
                let mut listed =
                    McpResource::new(&uri, format!("{}/{}", skill.name(), resource.path()))
                        .with_size(resource.size());
                if let Some(mime_type) = mime_type {
                    listed = listed.with_mime_type(mime_type);
                }
                resources.push(listed);
                files.insert(
                    uri,
                    File {
                        bytes: resource.bytes(),
                        text: resource.text().filter(|t| !t.contains('\0')),
                        mime_type,
                    },
                );
            }
            for (folder, children) in folders {
                directories.insert(
                    folder_uri(skill.name(), folder),
                    children.into_values().collect(),
                );
            }
            // The Skills extension is how a host shows skills to its model: a person-only
            // skill stays out of it (as out of the catalog) and is offered as a prompt.
            if skill.model_invocable() {
                skills.push(McpSkill::new(
                    skill_md,
                    frontmatter(skill),
                    SkillResources::Files(manifest),
                ));
            }
        }
        let tools = [
            registry.load_skill_tool_anthropic().map(str::to_owned),
            registry.read_resource_tool_anthropic(),
        ]
        .into_iter()
        .flatten()
        .filter_map(|json| tool_from_anthropic(&json))
        .collect::<Vec<_>>();
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_prompts()
            .enable_skills_with_directory_read();
        let capabilities = if tools.is_empty() {
            capabilities.build()
        } else {
            capabilities.enable_tools().build()
        };
        let info = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            "skills-runtime",
            env!("CARGO_PKG_VERSION"),
        ));
        Self {
            info,
            skills,
            resources,
            files,
            directories,
            tools,
        }
    }
}

/// An MCP tool from the Anthropic definition (`name`, `description`, `input_schema`).
fn tool_from_anthropic(json: &str) -> Option<Tool> {
    let Value::Object(mut tool) = serde_json::from_str(json).ok()? else {
        return None;
    };
    let name = tool.get("name")?.as_str()?.to_owned();
    let description = tool.get("description")?.as_str()?.to_owned();
    let Value::Object(schema) = tool.remove("input_schema")? else {
        return None;
    };
    Some(Tool::new(name, description, schema))
}

/// `skill://<name>/<path>`, each byte outside the unreserved set and `/` percent-encoded.
fn uri_of(name: &str, path: &str) -> String {
    let mut uri = String::from(URI_SCHEME);
    for byte in name.bytes().chain([b'/']).chain(path.bytes()) {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// `skill://<name>` for the skill's own folder (`path` empty), else `skill://<name>/<path>`.
fn folder_uri(name: &str, path: &str) -> String {
    let mut uri = uri_of(name, path);
    if path.is_empty() {
        uri.pop();
    }
    uri
}

/// Enters the file at `path` (with `uri` and `size`) and every folder above it in `folders`.
fn add_to_folders<'a>(
    folders: &mut BTreeMap<&'a str, BTreeMap<&'a str, McpResource>>,
    skill: &str,
    path: &'a str,
    uri: &str,
    size: u64,
) {
    let mut parent = "";
    for (end, _) in path.match_indices('/') {
        let folder = &path[..end];
        let name = folder[parent.len()..].trim_start_matches('/');
        folders.entry(parent).or_default().insert(
            name,
            McpResource::new(folder_uri(skill, folder), name).with_mime_type(DIRECTORY_MIME_TYPE),
        );
        folders.entry(folder).or_default();
        parent = folder;
    }
    let name = path[parent.len()..].trim_start_matches('/');
    let mut file = McpResource::new(uri, name).with_size(size);
    if let Some(mime_type) = mime_type_of(path) {
        file = file.with_mime_type(mime_type);
    }
    folders.entry(parent).or_default().insert(name, file);
}

/// A percent-decoded path, for the error message of a path that is not served.
fn decode(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `value` quoted, when it must be, so that [`split_arguments`](skills_bundle::invoke::split_arguments)
/// gives it back as one argument (a plain word is left as it is, for `$ARGUMENTS`).
fn quote(value: &str) -> String {
    let plain = !value.is_empty()
        && !value
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '\'' | '"' | '\\'));
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

fn missing(tool: &str, argument: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("{tool}: the argument \"{argument}\" (a string) is required"),
        None,
    )
}

fn string_argument<'a>(
    arguments: &'a JsonObject,
    what: &str,
    name: &str,
) -> Result<Option<&'a str>, ErrorData> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(ErrorData::invalid_params(
            format!(
                "{what}: the argument \"{name}\" must be a string, not {}",
                kind(other)
            ),
            None,
        )),
    }
}

fn count_argument(
    arguments: &JsonObject,
    tool: &str,
    name: &str,
) -> Result<Option<usize>, ErrorData> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(Some(
            usize::try_from(n.as_u64().unwrap_or(0)).unwrap_or(usize::MAX),
        )),
        Some(other) => Err(ErrorData::invalid_params(
            format!(
                "{tool}: the argument \"{name}\" must be a whole number of lines (1 or more), not {}",
                kind(other)
            ),
            None,
        )),
    }
}

fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// The frontmatter of `skill` as JSON: every field the author wrote, read from the embedded
/// `SKILL.md` text. `name` is the skill's identifier (the folder, in Claude Code mode, where
/// `name` may be a display name) and `description` is always present.
fn frontmatter(skill: &Skill) -> SkillFrontmatter {
    let mut fields = frontmatter_text(skill.content())
        .and_then(yaml_to_json)
        .and_then(|value| match value {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .unwrap_or_default();
    fields.shift_remove("name");
    let description = match fields.shift_remove("description") {
        Some(Value::String(text)) => text,
        _ => skill.description().to_owned(),
    };
    let mut frontmatter = SkillFrontmatter::new(skill.name(), description);
    frontmatter.extra = fields;
    frontmatter
}

/// The YAML between the opening `---` line and the closing one.
fn frontmatter_text(content: &str) -> Option<&str> {
    let rest = content
        .strip_prefix("---\n")
        .or_else(|| content.strip_prefix("---\r\n"))?;
    let mut end = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some(&rest[..end]);
        }
        end += line.len();
    }
    None
}

/// A YAML document as JSON (the core schema: plain `true`, `false`, `null`, `~` and numbers
/// are typed, everything else is a string). `None` on a syntax error or an alias.
fn yaml_to_json(text: &str) -> Option<Value> {
    use saphyr_parser::{Event, Parser, ScalarStyle};

    enum Open {
        Sequence(Vec<Value>),
        Mapping(Map<String, Value>, Option<String>),
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    for event in Parser::new_from_str(text) {
        let (event, _) = event.ok()?;
        let value = match event {
            Event::Scalar(text, style, _, _) => {
                let plain = style == ScalarStyle::Plain;
                scalar(&text, plain)
            }
            Event::SequenceStart(..) => {
                stack.push(Open::Sequence(Vec::new()));
                continue;
            }
            Event::MappingStart(..) => {
                stack.push(Open::Mapping(Map::new(), None));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop()? {
                Open::Sequence(items) => Value::Array(items),
                Open::Mapping(map, _) => Value::Object(map),
            },
            Event::Alias(_) => return None,
            _ => continue,
        };
        match stack.last_mut() {
            None => root = Some(value),
            Some(Open::Sequence(items)) => items.push(value),
            Some(Open::Mapping(map, key)) => match key.take() {
                Some(key) => {
                    map.insert(key, value);
                }
                None => {
                    *key = Some(match value {
                        Value::String(text) => text,
                        other => other.to_string(),
                    })
                }
            },
        }
    }
    root
}

fn scalar(text: &str, plain: bool) -> Value {
    if !plain {
        return Value::String(text.to_owned());
    }
    match text {
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        _ => {}
    }
    if let Ok(n) = text.parse::<i64>() {
        return Value::from(n);
    }
    if text.bytes().any(|b| b.is_ascii_digit())
        && let Ok(x) = text.parse::<f64>()
        && x.is_finite()
    {
        return Value::from(x);
    }
    Value::String(text.to_owned())
}

/// `None` for an unknown extension, so `mimeType` is left out.
fn mime_type_of(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "sh" => "application/x-sh",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => return None,
    })
}

// Every answer is computed at once from the index, so the handlers return ready futures: they
// hold only the answer, not the request, which keeps the task rmcp spawns per request small.
impl ServerHandler for SkillsServer {
    fn get_info(&self) -> ServerConfig {
        self.index().info.clone()
    }

    fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<InitializeResult, ErrorData>> + MaybeSendFuture + '_ {
        // rmcp's own answer (version negotiation included), plus the catalog.
        context.peer.set_peer_info(request.clone());
        let result = self.negotiate_initialize(&request);
        ready(result.map(|result| result.with_instructions(self.registry().catalog())))
    }

    fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<DiscoverResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info().with_instructions(self.registry().catalog()),
        )))
    }

    fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListSkillsResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(Ok(ListSkillsResult::with_all_items(
            self.index().skills.clone(),
        )))
    }

    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetSkillResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.skill(&request.uri))
    }

    fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(Ok(ListResourcesResult::with_all_items(
            self.index().resources.clone(),
        )))
    }

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceResponse, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.read(&request.uri).map(Into::into))
    }

    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceDirectoryResult, ErrorData>> + MaybeSendFuture + '_
    {
        ready(self.read_directory(&request.uri))
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(Ok(ListToolsResult::with_all_items(
            self.index().tools.clone(),
        )))
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.call(&request).map(Into::into))
    }

    fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(Ok(ListPromptsResult::with_all_items(self.prompts())))
    }

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetPromptResponse, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.prompt(&request).map(Into::into))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_frontmatter_becomes_json_with_types_and_order() {
        let json = yaml_to_json(
            "name: a\nversion: \"1.0\"\ntags: [x, y]\nn: 3\nflag: true\nmetadata:\n  k: v\n",
        )
        .unwrap();
        assert_eq!(
            json.to_string(),
            r#"{"name":"a","version":"1.0","tags":["x","y"],"n":3,"flag":true,"metadata":{"k":"v"}}"#
        );
    }

    #[test]
    fn frontmatter_text_is_between_the_fences() {
        assert_eq!(
            frontmatter_text("---\nname: a\n---\nbody\n"),
            Some("name: a\n")
        );
        assert_eq!(frontmatter_text("no fence"), None);
    }

    #[test]
    fn quoted_values_split_back_into_one_argument_each() {
        let text = [
            quote("it's here"),
            quote(""),
            quote("a\\b \"c\""),
            quote("1.2"),
        ]
        .join(" ");
        assert_eq!(
            skills_bundle::invoke::split_arguments(&text),
            ["it's here", "", "a\\b \"c\"", "1.2"]
        );
        assert_eq!(quote("1.2"), "1.2");
    }

    #[test]
    fn nested_files_enter_every_folder_above_them() {
        let mut folders = BTreeMap::new();
        add_to_folders(&mut folders, "s", "a/b/c.md", "skill://s/a/b/c.md", 3);
        add_to_folders(&mut folders, "s", "a/d.txt", "skill://s/a/d.txt", 4);
        let listing = |folder: &str| -> Vec<(String, String, Option<u64>, Option<String>)> {
            folders[folder]
                .values()
                .map(|r| (r.uri.clone(), r.name.clone(), r.size, r.mime_type.clone()))
                .collect()
        };
        let directory = Some(DIRECTORY_MIME_TYPE.to_owned());
        assert_eq!(
            folders.keys().copied().collect::<Vec<_>>(),
            ["", "a", "a/b"]
        );
        assert_eq!(
            listing(""),
            [("skill://s/a".into(), "a".into(), None, directory.clone())]
        );
        assert_eq!(
            listing("a"),
            [
                ("skill://s/a/b".into(), "b".into(), None, directory),
                (
                    "skill://s/a/d.txt".into(),
                    "d.txt".into(),
                    Some(4),
                    Some("text/plain".into())
                ),
            ]
        );
        assert_eq!(
            listing("a/b"),
            [(
                "skill://s/a/b/c.md".into(),
                "c.md".into(),
                Some(3),
                Some("text/markdown".into())
            )]
        );
        assert_eq!(folder_uri("s", ""), "skill://s");
    }

    #[test]
    fn uris_encode_what_a_uri_cannot_hold() {
        assert_eq!(uri_of("s", "a b/ü.md"), "skill://s/a%20b/%C3%BC.md");
    }
}
