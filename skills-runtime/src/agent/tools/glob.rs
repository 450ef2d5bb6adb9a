//! `glob`: files of the working directory matching a pattern.
//!
//! `*` and `?` match within one path segment, `[abc]` / `[a-z]` / `[!a]` a character class,
//! and a `**` segment any number of folders. As in shells, wildcards do not match a leading `.`
//! unless the pattern segment starts with `.`, so `.git` and other hidden folders are skipped.
//! Symlinked folders are not followed (they could lead out of the working directory). Results
//! are sorted and capped.

use std::path::Path;

use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, ToolErrorKind, str_arg};
use crate::agent::permission::Permission;
use crate::agent::retry::BoxFuture;

/// Most paths one `glob` result lists.
pub const MAX_RESULTS: usize = 500;
/// Most directory entries one `glob` call visits.
const MAX_VISITED: usize = 100_000;

/// The `glob` tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct Glob;

impl Tool for Glob {
    fn name(&self) -> &str {
        "glob"
    }

    fn description(&self) -> &str {
        "List files in the working directory matching a glob pattern, sorted. `*` and `?` match \
         within a path segment, `**` matches any number of folders (e.g. `src/**/*.rs`). \
         Hidden files need an explicit leading dot."
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern, e.g. **/*.rs"},
                "path": {"type": "string", "description": "Folder to search in, relative to the working directory (default: the working directory)"}
            },
            "required": ["pattern"]
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
        Box::pin(async move { glob(input, context) })
    }
}

fn glob(input: &Value, context: &ToolContext) -> Result<String, ToolError> {
    let pattern = str_arg(input, "pattern")?;
    let base_arg = match input.get("path") {
        Some(Value::String(p)) if !p.is_empty() => p.as_str(),
        _ => ".",
    };
    if pattern.starts_with('/') || pattern.split('/').any(|s| s == "..") {
        return Err(ToolError::new(
            ToolErrorKind::OutsideWorkdir,
            format!("the pattern {pattern} leaves the search folder"),
        )
        .suggest("use a relative pattern such as src/**/*.rs"));
    }
    let base = context.resolve(base_arg)?;
    if !base.is_dir() {
        return Err(ToolError::new(
            ToolErrorKind::NotFound,
            format!("{base_arg} is not a folder"),
        ));
    }
    let segments: Vec<&str> = pattern
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let mut found = Vec::new();
    let mut visited = 0usize;
    walk(&base, "", &segments, &mut found, &mut visited);
    found.sort();
    found.dedup();
    if found.is_empty() {
        return Ok(format!("no files match {pattern}"));
    }
    let prefix = if base_arg == "." {
        String::new()
    } else {
        format!("{}/", context.display(&base))
    };
    let total = found.len();
    let mut out: Vec<String> = found
        .into_iter()
        .take(MAX_RESULTS)
        .map(|p| format!("{prefix}{p}"))
        .collect();
    if total > MAX_RESULTS {
        out.push(format!(
            "({} more matches not shown; narrow the pattern)",
            total - MAX_RESULTS
        ));
    }
    if visited >= MAX_VISITED {
        out.push(format!(
            "(search stopped after {MAX_VISITED} entries; narrow the pattern or the path)"
        ));
    }
    Ok(out.join("\n"))
}

/// Matches `segments` against the tree under `dir` (whose path relative to the search base is
/// `rel`), collecting matching files.
fn walk(dir: &Path, rel: &str, segments: &[&str], found: &mut Vec<String>, visited: &mut usize) {
    let Some((first, rest)) = segments.split_first() else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    if *first == "**" {
        // Zero folders: the rest of the pattern applies right here.
        walk(dir, rel, rest, found, visited);
    }
    for entry in entries {
        *visited += 1;
        if *visited >= MAX_VISITED {
            return;
        }
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let is_dir = file_type.is_dir(); // false for a symlink: links are not followed
        let child_rel = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if *first == "**" {
            if is_dir && !name.starts_with('.') {
                walk(&entry.path(), &child_rel, segments, found, visited);
            }
            continue;
        }
        if !segment_matches(first, &name) {
            continue;
        }
        if rest.is_empty() {
            if !is_dir {
                found.push(child_rel);
            }
        } else if is_dir {
            walk(&entry.path(), &child_rel, rest, found, visited);
        }
    }
}

/// Whether one path segment matches one pattern segment.
pub fn segment_matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches_from(&p, &n)
}

fn matches_from(p: &[char], n: &[char]) -> bool {
    match p.first() {
        None => n.is_empty(),
        Some('*') => (0..=n.len()).any(|skip| matches_from(&p[1..], &n[skip..])),
        Some('?') => !n.is_empty() && matches_from(&p[1..], &n[1..]),
        Some('[') => {
            let Some(close) = p.iter().skip(2).position(|&c| c == ']').map(|i| i + 2) else {
                // No closing bracket: a literal `[`.
                return n.first() == Some(&'[') && matches_from(&p[1..], &n[1..]);
            };
            let Some(&c) = n.first() else {
                return false;
            };
            let (negate, class) = match p[1] {
                '!' | '^' => (true, &p[2..close]),
                _ => (false, &p[1..close]),
            };
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == '-' {
                    hit |= class[i] <= c && c <= class[i + 2];
                    i += 3;
                } else {
                    hit |= class[i] == c;
                    i += 1;
                }
            }
            hit != negate && matches_from(&p[close + 1..], &n[1..])
        }
        Some(&literal) => n.first() == Some(&literal) && matches_from(&p[1..], &n[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::segment_matches;

    #[test]
    fn segments() {
        assert!(segment_matches("*.rs", "lib.rs"));
        assert!(!segment_matches("*.rs", "lib.rs.bak"));
        assert!(segment_matches("l?b.rs", "lib.rs"));
        assert!(segment_matches("[a-c]x", "bx"));
        assert!(!segment_matches("[!a-c]x", "bx"));
        assert!(!segment_matches("*", ".git"));
        assert!(segment_matches(".*", ".git"));
        assert!(segment_matches("Cargo.toml", "Cargo.toml"));
    }
}
