//! `read_file`, `write_file` and `edit_file`, all confined to the working directory.

use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, ToolErrorKind, str_arg, uint_arg};
use crate::agent::permission::Permission;
use crate::agent::retry::BoxFuture;

/// Lines returned by `read_file` when no `limit` is given.
pub const DEFAULT_READ_LIMIT: u64 = 2000;
/// Longest line `read_file` shows before cutting it.
pub const MAX_LINE_CHARS: usize = 2000;
/// Most characters one `read_file` result holds.
pub const MAX_READ_CHARS: usize = 50_000;

/// `read_file`: a text file with line numbers, from line `offset` (1-based), at most `limit`
/// lines.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadFile;

/// `write_file`: creates or replaces a file (and its missing parent folders).
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteFile;

/// `edit_file`: replaces the first occurrence of an exact text.
#[derive(Clone, Copy, Debug, Default)]
pub struct EditFile;

impl Tool for ReadFile {
    fn name(&self) -> &str {
        "read_file"
    }

    fn description(&self) -> &str {
        "Read a text file in the working directory. Returns numbered lines (`N\\tline`). Use \
         `offset` (first line, 1-based) and `limit` (number of lines, default 2000) for big files."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the working directory"},
                "offset": {"type": "integer", "minimum": 1, "description": "First line to read, 1-based"},
                "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read"}
            },
            "required": ["path"]
        })
    }

    fn default_permission(&self) -> Permission {
        Permission::Allow
    }

    fn call<'a>(
        &'a self,
        input: &'a Value,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move { read_file(input, context) })
    }
}

fn read_file(input: &Value, context: &ToolContext) -> Result<String, ToolError> {
    let path = str_arg(input, "path")?;
    let offset = uint_arg(input, "offset")?.unwrap_or(1).max(1);
    let limit = uint_arg(input, "limit")?
        .unwrap_or(DEFAULT_READ_LIMIT)
        .max(1);
    let resolved = context.resolve(path)?;
    if resolved.is_dir() {
        return Err(ToolError::new(
            ToolErrorKind::InvalidInput,
            format!("{path} is a directory"),
        )
        .suggest("use glob to list its files"));
    }
    let bytes = std::fs::read(&resolved).map_err(|e| ToolError::io("read", path, &e))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(
            ToolErrorKind::InvalidInput,
            format!("{path} is not UTF-8 text"),
        )
        .suggest("inspect binary files with bash (for example `file` or `xxd | head`)")
    })?;
    let total = text.lines().count() as u64;
    if total == 0 {
        return Ok(format!("({path} is empty)"));
    }
    if offset > total {
        return Err(ToolError::new(
            ToolErrorKind::InvalidInput,
            format!("offset {offset} is past the end of {path} ({total} lines)"),
        )
        .suggest(format!("use an offset between 1 and {total}")));
    }
    let mut out = String::new();
    let mut last = offset - 1;
    for (number, line) in text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l))
        .skip((offset - 1) as usize)
        .take(limit as usize)
    {
        let shown = match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => format!("{} [line cut]", &line[..cut]),
            None => line.to_owned(),
        };
        if out.len() + shown.len() > MAX_READ_CHARS {
            break;
        }
        out.push_str(&format!("{number:>6}\t{shown}\n"));
        last = number;
    }
    if offset > 1 || last < total {
        out.push_str(&format!(
            "(lines {offset}-{last} of {total}; read more with offset={})\n",
            last + 1
        ));
    }
    Ok(out)
}

impl Tool for WriteFile {
    fn name(&self) -> &str {
        "write_file"
    }

    fn description(&self) -> &str {
        "Create or overwrite a file in the working directory with `content`. Missing parent \
         folders are created. Prefer edit_file for changing part of an existing file."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the working directory"},
                "content": {"type": "string", "description": "The whole new content"}
            },
            "required": ["path", "content"]
        })
    }

    fn default_permission(&self) -> Permission {
        Permission::Ask
    }

    fn call<'a>(
        &'a self,
        input: &'a Value,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let path = str_arg(input, "path")?;
            let content = str_arg(input, "content")?;
            let resolved = context.resolve(path)?;
            if resolved.is_dir() {
                return Err(ToolError::new(
                    ToolErrorKind::InvalidInput,
                    format!("{path} is a directory"),
                ));
            }
            if let Some(parent) = resolved.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| ToolError::io("create the folder of", path, &e))?;
            }
            std::fs::write(&resolved, content).map_err(|e| ToolError::io("write", path, &e))?;
            Ok(format!(
                "wrote {} bytes ({} lines) to {}",
                content.len(),
                content.lines().count(),
                context.display(&resolved)
            ))
        })
    }
}

impl Tool for EditFile {
    fn name(&self) -> &str {
        "edit_file"
    }

    fn description(&self) -> &str {
        "Replace the first occurrence of `old_text` in a file with `new_text`. `old_text` must \
         match exactly, whitespace included; read the file first."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the working directory"},
                "old_text": {"type": "string", "description": "Exact text to replace"},
                "new_text": {"type": "string", "description": "Replacement text"}
            },
            "required": ["path", "old_text", "new_text"]
        })
    }

    fn default_permission(&self) -> Permission {
        Permission::Ask
    }

    fn call<'a>(
        &'a self,
        input: &'a Value,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let path = str_arg(input, "path")?;
            let old_text = str_arg(input, "old_text")?;
            let new_text = str_arg(input, "new_text")?;
            if old_text.is_empty() {
                return Err(
                    ToolError::new(ToolErrorKind::InvalidInput, "`old_text` is empty")
                        .suggest("to create a file use write_file"),
                );
            }
            let resolved = context.resolve(path)?;
            let text =
                std::fs::read_to_string(&resolved).map_err(|e| ToolError::io("read", path, &e))?;
            let Some(at) = text.find(old_text) else {
                return Err(ToolError::new(
                    ToolErrorKind::NotFound,
                    format!("`old_text` does not occur in {path}"),
                )
                .suggest(
                    "read the file and copy the exact text, including indentation and line breaks",
                ));
            };
            let occurrences = text.matches(old_text).count();
            let mut updated = String::with_capacity(text.len() + new_text.len());
            updated.push_str(&text[..at]);
            updated.push_str(new_text);
            updated.push_str(&text[at + old_text.len()..]);
            std::fs::write(&resolved, &updated).map_err(|e| ToolError::io("write", path, &e))?;
            let line = text[..at].matches('\n').count() + 1;
            let mut out = format!(
                "replaced 1 occurrence at line {line} of {}",
                context.display(&resolved)
            );
            if occurrences > 1 {
                out.push_str(&format!(
                    " (the first of {occurrences}; the others are unchanged)"
                ));
            }
            Ok(out)
        })
    }
}
