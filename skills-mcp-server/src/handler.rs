//! The MCP handler: what the server answers to each request, from the index, and the
//! `ServerHandler` methods rmcp calls.

use std::future::{Future, ready};

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, GetSkillRequestParams,
    GetSkillResult, InitializeRequestParams, InitializeResult, JsonObject, ListPromptsResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, Role,
    ServerConfig,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use skills_bundle::Skill;

use crate::server::SkillsServer;
use crate::uri::{URI_SCHEME, decode, folder_uri};

impl SkillsServer {
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
                self.registry().load_skill(name).map_err(|e| e.to_string())
            }
            "read_skill_resource" if self.registry().read_resource_tool_anthropic().is_some() => {
                let tool = "read_skill_resource";
                let skill = string_argument(arguments, tool, "skill")?
                    .ok_or_else(|| missing(tool, "skill"))?;
                let path = string_argument(arguments, tool, "path")?
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
        self.registry()
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

/// `value` quoted, when it must be, so that
/// [`split_arguments`](skills_bundle::invoke::split_arguments) gives it back as one argument (a
/// plain word is left as it is, for `$ARGUMENTS`).
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
}
