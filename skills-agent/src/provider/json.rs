//! Reading the JSON both wire formats send: counts, the names of JSON types for error
//! messages, and the error object a body may hold.

use serde_json::Value;

/// A count from a JSON usage object (missing or non-numeric fields count as 0).
pub(crate) fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The name of `value`'s JSON type, for an error message ("a string", "an array").
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The `error.type` and the message of an error object (`{"error": {"type", "message"}}` on
/// both APIs, or `{"error": "text"}`), when `value` holds one.
pub(crate) fn server_error(value: &Value) -> Option<(Option<String>, String)> {
    let error = value.get("error").filter(|e| !e.is_null())?;
    let kind = error.get("type").and_then(Value::as_str).map(str::to_owned);
    let message = match error {
        Value::String(s) => s.clone(),
        _ => error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| error.to_string()),
    };
    let message = match &kind {
        Some(kind) => format!("{kind}: {message}"),
        None => message,
    };
    Some((kind, message))
}
