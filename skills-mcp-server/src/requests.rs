//! Requests rmcp could not read as any method it knows: a method this server implements whose
//! params do not have the method's shape is invalid params (-32602), as the protocol and the
//! Skills extension say; only a method the server does not have is method not found (-32601).

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CustomRequest, ErrorCode, GetPromptRequestParams, GetSkillRequestParams,
    PaginatedRequestParams, ReadResourceDirectoryRequestParams, ReadResourceRequestParams,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The methods this server implements, each with the shape of its params (for the message).
const METHODS: &[(&str, &str)] = &[
    ("skills/list", "{\"cursor\"?: string}"),
    ("skills/get", "{\"uri\": string}"),
    ("resources/list", "{\"cursor\"?: string}"),
    ("resources/read", "{\"uri\": string}"),
    (
        "resources/directory/read",
        "{\"uri\": string, \"cursor\"?: string}",
    ),
    ("tools/list", "{\"cursor\"?: string}"),
    ("tools/call", "{\"name\": string, \"arguments\"?: object}"),
    ("prompts/list", "{\"cursor\"?: string}"),
    (
        "prompts/get",
        "{\"name\": string, \"arguments\"?: {string: string}}",
    ),
];

/// The error for `request`, which reached the server as no method rmcp knows.
pub(crate) fn refuse(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    let Some(&(_, shape)) = METHODS.iter().find(|(known, _)| *known == method) else {
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("this server has no method {method:?}"),
            None,
        );
    };
    let why = match method {
        "skills/get" => parse_error::<GetSkillRequestParams>(request.params.as_ref()),
        "resources/read" => parse_error::<ReadResourceRequestParams>(request.params.as_ref()),
        "resources/directory/read" => {
            parse_error::<ReadResourceDirectoryRequestParams>(request.params.as_ref())
        }
        "tools/call" => parse_error::<CallToolRequestParams>(request.params.as_ref()),
        "prompts/get" => parse_error::<GetPromptRequestParams>(request.params.as_ref()),
        _ => parse_error::<PaginatedRequestParams>(request.params.as_ref()),
    };
    ErrorData::invalid_params(
        format!("malformed params of {method} ({why}); expected {shape}"),
        None,
    )
}

/// Why `params` are not a `T`.
fn parse_error<T: DeserializeOwned>(params: Option<&Value>) -> String {
    match params {
        None => "no params".to_owned(),
        Some(params) => match serde_json::from_value::<T>(params.clone()) {
            Err(error) => error.to_string(),
            // Readable on its own, so something else about the request was off.
            Ok(_) => "not readable as this method's request".to_owned(),
        },
    }
}
