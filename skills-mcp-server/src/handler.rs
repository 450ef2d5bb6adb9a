//! The MCP handler: what the server answers to each request, from the index, and the
//! `ServerHandler` methods rmcp calls.

use std::future::{Future, ready};

use base64::Engine as _;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    CustomRequest, CustomResult, DiscoverResult, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, InitializeRequestParams, InitializeResult, JsonObject,
    ListPromptsResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceContents, ServerConfig,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use skills_bundle::Skill;

use crate::claude_index;
use crate::page::{Listing, unpaged};
use crate::server::SkillsServer;
use crate::uri::{URI_SCHEME, decode, folder_uri};

impl SkillsServer {
    fn read(&self, uri: &str, hints: Hints) -> Result<ReadResourceResult, ErrorData> {
        if uri == claude_index::URI {
            let contents = ResourceContents::text(self.index().claude_index.clone(), uri)
                .with_mime_type("application/json");
            return Ok(ReadResourceResult::new(vec![contents]).cached(hints));
        }
        let Some(file) = self.index().files.get(uri) else {
            // The URI in the data too, as the 2026-07-28 revision asks (its code there is
            // -32602, which rmcp sets for those peers).
            return Err(ErrorData::resource_not_found(
                self.why_not_found(uri),
                Some(serde_json::json!({ "uri": uri })),
            ));
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
        Ok(ReadResourceResult::new(vec![contents]).cached(hints))
    }

    /// The caching hints (`ttlMs`, `cacheScope`) for a request: only a peer on the 2026-07-28
    /// revision or later gets them, the revision that defines them; earlier revisions have no
    /// such fields, and their hosts are sent nothing they did not negotiate.
    fn hints(&self, context: &RequestContext<RoleServer>) -> Hints {
        let negotiated = context.protocol_version()?;
        (negotiated.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
            .then(|| (self.options().ttl_ms(), CacheScope::Public))
    }

    /// The children of the folder at `uri` (a trailing `/` is allowed), a page at a time.
    fn read_directory(
        &self,
        request: &ReadResourceDirectoryRequestParams,
        hints: Hints,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let uri = request.uri.as_str();
        let folder = uri.strip_suffix('/').unwrap_or(uri);
        let Some(children) = self.index().directories.get(folder) else {
            return Err(ErrorData::invalid_params(self.why_no_folder(uri), None));
        };
        let keys = std::iter::once(folder).chain(children.iter().map(|c| c.uri.as_str()));
        let listing = Listing::new("resources/directory/read", keys, self.options().page_size);
        let (page, next) = listing.page(children, request.cursor.as_deref())?;
        // Not a cacheable result in the extension's schema, but rmcp fills in hints of its
        // own (0, private) for 2026-07-28 peers: the same as every other listing instead.
        let mut result = ReadResourceDirectoryResult::with_all_items(page).cached(hints);
        result.next_cursor = next;
        Ok(result)
    }

    fn list_skills_page(
        &self,
        request: Option<&PaginatedRequestParams>,
        hints: Hints,
    ) -> Result<ListSkillsResult, ErrorData> {
        let index = self.index();
        let cursor = request.and_then(|r| r.cursor.as_deref());
        let (page, next) = index.skill_pages.page(&index.skills, cursor)?;
        let mut result = ListSkillsResult::with_all_items(page).cached(hints);
        result.next_cursor = next;
        Ok(result)
    }

    fn list_resources_page(
        &self,
        request: Option<&PaginatedRequestParams>,
        hints: Hints,
    ) -> Result<ListResourcesResult, ErrorData> {
        let index = self.index();
        let cursor = request.and_then(|r| r.cursor.as_deref());
        let (page, next) = index.resource_pages.page(&index.resources, cursor)?;
        let mut result = ListResourcesResult::with_all_items(page).cached(hints);
        result.next_cursor = next;
        Ok(result)
    }

    fn list_tools_page(
        &self,
        request: Option<&PaginatedRequestParams>,
        hints: Hints,
    ) -> Result<ListToolsResult, ErrorData> {
        if let Some(cursor) = request.and_then(|r| r.cursor.as_deref()) {
            return Err(unpaged("tools/list", cursor));
        }
        Ok(ListToolsResult::with_all_items(self.index().tools.clone()).cached(hints))
    }

    fn list_prompts_page(
        &self,
        request: Option<&PaginatedRequestParams>,
        hints: Hints,
    ) -> Result<ListPromptsResult, ErrorData> {
        if let Some(cursor) = request.and_then(|r| r.cursor.as_deref()) {
            return Err(unpaged("prompts/list", cursor));
        }
        Ok(ListPromptsResult::with_all_items(self.prompts()).cached(hints))
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
    fn skill(&self, uri: &str, hints: Hints) -> Result<GetSkillResult, ErrorData> {
        if let Some(skill) = self.index().skills.iter().find(|s| s.uri == uri) {
            return Ok(GetSkillResult::new(skill.clone()).cached(hints));
        }
        let over = rmcp::model::skill_name_from_uri(uri)
            .filter(|_| uri.starts_with(URI_SCHEME))
            .and_then(|name| self.index().over_limits.iter().find(|(n, ..)| *n == name));
        if let Some((name, files, bytes)) = over {
            let options = self.options();
            return Err(ErrorData::invalid_params(
                format!(
                    "{uri}: the skill \"{name}\" has {files} files of {bytes} bytes, over the \
                     per-skill limits of {} files and {} bytes that every host accepts, so it \
                     is not served as a skill (its files are still resources)",
                    options.max_files, options.max_bytes
                ),
                None,
            ));
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
                self.call_load_skill(arguments)
            }
            "read_skill_resource" if self.registry().read_resource_tool_anthropic().is_some() => {
                self.call_read_skill_resource(arguments)
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
        // A tool that ran and failed, or was called with arguments that do not fit its schema:
        // the model reads the message (closest name, files, the argument to fix) and can try
        // again, as the protocol asks since 2025-11-25. Only an unknown tool is a protocol error.
        Ok(match text {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        })
    }

    fn call_load_skill(&self, arguments: &JsonObject) -> Result<String, String> {
        let name = string_argument(arguments, "load_skill", "name")
            .map_err(message)?
            .ok_or_else(|| missing("load_skill", "name"))?;
        self.registry().load_skill(name).map_err(|e| e.to_string())
    }

    fn call_read_skill_resource(&self, arguments: &JsonObject) -> Result<String, String> {
        let tool = "read_skill_resource";
        let skill = string_argument(arguments, tool, "skill")
            .map_err(message)?
            .ok_or_else(|| missing(tool, "skill"))?;
        let path = string_argument(arguments, tool, "path")
            .map_err(message)?
            .ok_or_else(|| missing(tool, "path"))?;
        let offset = count_argument(arguments, tool, "offset")?;
        let limit = count_argument(arguments, tool, "limit")?;
        // The model's tool: person-only skills are hidden from it, as in the catalog.
        if self
            .registry()
            .get(skill)
            .is_some_and(Skill::model_invocable)
        {
            self.registry()
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
}

/// The caching hints of a result for the peer at hand: `None` for a peer on a revision before
/// 2026-07-28.
type Hints = Option<(u64, CacheScope)>;

/// A result with the caching hints of the 2026-07-28 revision.
trait Cached: Sized {
    fn cached(self, hints: Hints) -> Self;
}

macro_rules! cached {
    ($($result:ty),*) => {$(
        impl Cached for $result {
            fn cached(mut self, hints: Hints) -> Self {
                if let Some((ttl_ms, scope)) = hints {
                    self.ttl_ms = Some(ttl_ms);
                    self.cache_scope = Some(scope);
                }
                self
            }
        }
    )*};
}

cached!(
    ListSkillsResult,
    GetSkillResult,
    ListResourcesResult,
    ReadResourceResult,
    ListToolsResult,
    ListPromptsResult
);

fn missing(tool: &str, argument: &str) -> String {
    format!("{tool}: the argument \"{argument}\" (a string) is required")
}

fn message(error: ErrorData) -> String {
    error.message.into_owned()
}

pub(crate) fn string_argument<'a>(
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

fn count_argument(arguments: &JsonObject, tool: &str, name: &str) -> Result<Option<usize>, String> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(Some(
            usize::try_from(n.as_u64().unwrap_or(0)).unwrap_or(usize::MAX),
        )),
        Some(other) => Err(format!(
            "{tool}: the argument \"{name}\" must be a whole number of lines (1 or more), not {}",
            kind(other)
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
        // rmcp's own answer (version negotiation included), plus the instructions.
        context.peer.set_peer_info(request.clone());
        let result = self.negotiate_initialize(&request);
        ready(result.map(|result| result.with_instructions(self.instructions())))
    }

    fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<DiscoverResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info().with_instructions(self.instructions()),
        )
        .with_ttl_ms(self.options().ttl_ms())
        .with_cache_scope(CacheScope::Public)))
    }

    fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListSkillsResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.list_skills_page(request.as_ref(), self.hints(&context)))
    }

    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetSkillResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.skill(&request.uri, self.hints(&context)))
    }

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.list_resources_page(request.as_ref(), self.hints(&context)))
    }

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceResponse, ErrorData>> + MaybeSendFuture + '_ {
        ready(
            self.read(&request.uri, self.hints(&context))
                .map(Into::into),
        )
    }

    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceDirectoryResult, ErrorData>> + MaybeSendFuture + '_
    {
        ready(self.read_directory(&request, self.hints(&context)))
    }

    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.list_tools_page(request.as_ref(), self.hints(&context)))
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
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.list_prompts_page(request.as_ref(), self.hints(&context)))
    }

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetPromptResponse, ErrorData>> + MaybeSendFuture + '_ {
        ready(self.prompt(&request).map(Into::into))
    }

    fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CustomResult, ErrorData>> + MaybeSendFuture + '_ {
        ready(Err(crate::requests::refuse(&request)))
    }
}
