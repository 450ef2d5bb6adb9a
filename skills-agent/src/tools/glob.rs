//! `glob`: files of the working directory matching a pattern.
//!
//! Patterns are [globset](https://docs.rs/globset) globs matched against paths relative to the
//! search folder: `*` and `?` match within one path segment, `[abc]` / `[a-z]` / `[!a]` a
//! character class, `{a,b}` alternatives, and a `**` segment any number of folders (`src/**/*.rs`,
//! `**/*.md`, `docs/**`). As in shells, a name starting with `.` is only matched, or searched,
//! where it matches a pattern segment that itself starts with `.`: `**/*` skips `.git`, `.git/*`
//! lists it. Only files are listed, not folders.
//!
//! The walk opens every folder beneath the working directory's handle and never follows a symlink
//! (a link is listed like a file, never entered). It is bounded: a pattern of at most
//! [`Glob::MAX_PATTERN_CHARS`], at most [`Glob::MAX_VISITED`] entries and [`Glob::TIME_LIMIT`] per
//! call, and when a bound stops it the result says so. Results are sorted and capped at
//! [`Glob::MAX_RESULTS`]. The walk runs on tokio's blocking pool.

use std::path::Path;
use std::time::{Duration, Instant};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, ToolErrorKind, blocking, fs_error, str_arg};
use crate::BoxFuture;
use crate::permission::Permission;

/// The `glob` tool.
#[derive(Clone, Copy, Debug, Default)]
pub struct Glob;

impl Glob {
    /// Most paths one `glob` result lists.
    pub const MAX_RESULTS: usize = 500;
    /// Most directory entries one `glob` call visits.
    pub const MAX_VISITED: usize = 100_000;
    /// Longest pattern, in characters, that `glob` accepts.
    pub const MAX_PATTERN_CHARS: usize = 1000;
    /// Longest time one `glob` walk runs before it stops and reports what it found.
    pub const TIME_LIMIT: Duration = Duration::from_secs(5);
}

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
        Box::pin(async move {
            let pattern = Pattern::parse(str_arg(input, "pattern")?)?;
            let base = match input.get("path") {
                Some(Value::String(p)) if !p.is_empty() => p.clone(),
                _ => ".".to_owned(),
            };
            let context = context.clone();
            blocking(move || glob(&pattern, &base, &context)).await
        })
    }
}

/// A checked and compiled pattern.
#[derive(Debug)]
struct Pattern {
    text: String,
    whole: GlobMatcher,
    /// The segments that start with `.`: a hidden name must match one of them.
    dot_segments: Vec<GlobMatcher>,
    /// How deep a match can be, when the pattern has no `**`.
    max_depth: Option<usize>,
}

impl Pattern {
    fn parse(text: &str) -> Result<Pattern, ToolError> {
        if text.chars().nth(Glob::MAX_PATTERN_CHARS).is_some() {
            return Err(ToolError::new(
                ToolErrorKind::InvalidInput,
                format!(
                    "the pattern is longer than {} characters",
                    Glob::MAX_PATTERN_CHARS
                ),
            )
            .suggest("use a shorter pattern, such as **/*.rs"));
        }
        if text.starts_with('/') || text.split('/').any(|s| s == "..") {
            return Err(ToolError::new(
                ToolErrorKind::OutsideWorkdir,
                format!("the pattern {text} leaves the search folder"),
            )
            .suggest("use a relative pattern such as src/**/*.rs"));
        }
        let segments: Vec<&str> = text
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        if segments.is_empty() {
            return Err(
                ToolError::new(ToolErrorKind::InvalidInput, "the pattern names no file")
                    .suggest("use a pattern such as * or **/*.rs"),
            );
        }
        let compile = |glob: &str| {
            GlobBuilder::new(glob)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map(|g| g.compile_matcher())
                .map_err(|e| {
                    ToolError::new(
                        ToolErrorKind::InvalidInput,
                        format!("the pattern {text} is not a valid glob: {e}"),
                    )
                    .suggest("use `*`, `?`, `[a-z]`, `{a,b}` and `**` as whole segments")
                })
        };
        Ok(Pattern {
            whole: compile(&segments.join("/"))?,
            dot_segments: segments
                .iter()
                .filter(|s| s.starts_with('.'))
                .map(|s| compile(s))
                .collect::<Result<_, _>>()?,
            max_depth: (!segments.iter().any(|s| s.contains("**"))).then_some(segments.len()),
            text: text.to_owned(),
        })
    }

    /// Whether a name may be matched or searched at all (hidden names need a dot segment).
    fn admits(&self, name: &str) -> bool {
        !name.starts_with('.') || self.dot_segments.iter().any(|m| m.is_match(name))
    }
}

fn glob(pattern: &Pattern, base_arg: &str, context: &ToolContext) -> Result<String, ToolError> {
    let relative = context.relative(base_arg)?;
    let base = if relative.as_os_str().is_empty() {
        context.root().try_clone()
    } else {
        context.root().open_dir(&relative)
    };
    let base = base.map_err(|e| {
        let not_a_folder = e.kind() == std::io::ErrorKind::NotFound
            || e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error());
        if not_a_folder {
            ToolError::new(
                ToolErrorKind::NotFound,
                format!("{base_arg} is not a folder"),
            )
            .suggest("use glob without `path` to see what exists")
        } else {
            fs_error("open", base_arg, &e)
        }
    })?;
    let walk = walk(
        &base,
        pattern,
        Limits {
            max_visited: Glob::MAX_VISITED,
            deadline: Instant::now() + Glob::TIME_LIMIT,
        },
    );
    let mut found = walk.found;
    found.sort();
    let mut out: Vec<String> = Vec::new();
    if found.is_empty() {
        out.push(format!("no files match {}", pattern.text));
    }
    let prefix = if relative.as_os_str().is_empty() {
        String::new()
    } else {
        format!("{}/", relative.display())
    };
    let total = found.len();
    out.extend(
        found
            .into_iter()
            .take(Glob::MAX_RESULTS)
            .map(|p| format!("{prefix}{p}")),
    );
    if total > Glob::MAX_RESULTS {
        out.push(format!(
            "({} more matches not shown; narrow the pattern)",
            total - Glob::MAX_RESULTS
        ));
    }
    match walk.stopped {
        Some(Stop::Visited) => out.push(format!(
            "(search stopped after {} entries; narrow the pattern or the path)",
            Glob::MAX_VISITED
        )),
        Some(Stop::Time) => out.push(format!(
            "(search stopped after {} s; narrow the pattern or the path)",
            Glob::TIME_LIMIT.as_secs()
        )),
        None => {}
    }
    Ok(out.join("\n"))
}

/// The bounds of one walk.
#[derive(Clone, Copy, Debug)]
struct Limits {
    max_visited: usize,
    deadline: Instant,
}

/// Why a walk stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Visited,
    Time,
}

/// What a walk found: matching file paths relative to the base, unsorted.
#[derive(Debug, Default)]
struct Walked {
    found: Vec<String>,
    stopped: Option<Stop>,
}

/// Walks the tree under `base` without recursion (a deep tree cannot exhaust the stack) and
/// without holding more than one folder open.
fn walk(base: &Dir, pattern: &Pattern, limits: Limits) -> Walked {
    let mut walked = Walked::default();
    let mut visited = 0usize;
    // Folders still to list: path relative to `base` and depth (entries of `base` are depth 1).
    let mut pending: Vec<(String, usize)> = vec![(String::new(), 0)];
    while let Some((folder, depth)) = pending.pop() {
        let dir = if folder.is_empty() {
            base.try_clone()
        } else {
            open_dir_nofollow(base, Path::new(&folder))
        };
        // A folder that vanished or cannot be read is skipped, as `find` would.
        let Ok(entries) = dir.and_then(|d| d.entries()) else {
            continue;
        };
        for entry in entries {
            visited += 1;
            if visited > limits.max_visited {
                walked.stopped = Some(Stop::Visited);
                return walked;
            }
            if Instant::now() >= limits.deadline {
                walked.stopped = Some(Stop::Time);
                return walked;
            }
            let Ok(entry) = entry else { continue };
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if !pattern.admits(&name) {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let child = if folder.is_empty() {
                name
            } else {
                format!("{folder}/{name}")
            };
            // `file_type` does not follow links: a symlink to a folder is not a folder here.
            if file_type.is_dir() {
                if pattern.max_depth.is_none_or(|max| depth + 1 < max) {
                    pending.push((child, depth + 1));
                }
            } else if pattern.whole.is_match(&child) {
                walked.found.push(child);
            }
        }
    }
    walked
}

/// A folder beneath `base`, refusing a symlink as its last component (one swapped in after the
/// listing); any link earlier in the path still resolves only beneath `base`.
fn open_dir_nofollow(base: &Dir, path: &Path) -> std::io::Result<Dir> {
    use rustix::fs::OFlags;
    let mut options = OpenOptions::new();
    options.read(true);
    options.custom_flags((OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32);
    Ok(Dir::from_std_file(
        base.open_with(path, &options)?.into_std(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, path: &str) -> bool {
        let pattern = Pattern::parse(pattern).unwrap();
        path.split('/').all(|name| pattern.admits(name)) && pattern.whole.is_match(path)
    }

    #[test]
    fn pattern_semantics() {
        assert!(matches("*.rs", "lib.rs"));
        assert!(!matches("*.rs", "lib.rs.bak"));
        assert!(!matches("*.rs", "src/lib.rs"));
        assert!(matches("l?b.rs", "lib.rs"));
        assert!(matches("[a-c]x", "bx"));
        assert!(!matches("[!a-c]x", "bx"));
        assert!(!matches("*", ".git"));
        assert!(matches(".*", ".git"));
        assert!(matches("Cargo.toml", "Cargo.toml"));
        assert!(matches("**/*.rs", "lib.rs"));
        assert!(matches("src/**/*.rs", "src/a/b/c.rs"));
        assert!(matches("src/**", "src/a/b"));
        assert!(!matches("**/*", ".git/HEAD"));
        assert!(matches(".git/*", ".git/HEAD"));
        assert!(matches("./src//*.rs", "src/lib.rs"));
        assert_eq!(Pattern::parse("*.rs").unwrap().max_depth, Some(1));
        assert_eq!(Pattern::parse("a/**/b").unwrap().max_depth, None);
    }

    #[test]
    fn hostile_patterns_are_refused_or_cheap() {
        let long = "*".repeat(Glob::MAX_PATTERN_CHARS + 1);
        let err = Pattern::parse(&long).unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::InvalidInput);
        // At the cap, with a name that forces a backtracking matcher through every split.
        let started = Instant::now();
        let name = "a".repeat(300);
        if let Ok(pattern) =
            Pattern::parse(&format!("{}z", "*".repeat(Glob::MAX_PATTERN_CHARS - 1)))
        {
            assert!(!pattern.whole.is_match(&name));
        }
        assert!(started.elapsed() < Duration::from_secs(5));
        for bad in ["", "/etc/*", "a/../../*", "[z-a"] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
    }

    /// A fresh folder under the system temp folder, removed on drop.
    struct Scratch(std::path::PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(files: usize) -> (Scratch, Dir) {
        let path = std::env::temp_dir().join(format!(
            "glob-walk-{}-{files}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(path.join("sub")).unwrap();
        for i in 0..files {
            std::fs::write(path.join(format!("sub/f{i}.txt")), "x").unwrap();
        }
        let dir = Dir::open_ambient_dir(&path, cap_std::ambient_authority()).unwrap();
        (Scratch(path), dir)
    }

    #[test]
    fn walk_stops_at_its_limits() {
        let (_scratch, dir) = scratch(20);
        let pattern = Pattern::parse("**/*.txt").unwrap();
        let far = Instant::now() + Duration::from_secs(60);
        let all = walk(
            &dir,
            &pattern,
            Limits {
                max_visited: 1000,
                deadline: far,
            },
        );
        assert_eq!((all.found.len(), all.stopped), (20, None));
        let few = walk(
            &dir,
            &pattern,
            Limits {
                max_visited: 5,
                deadline: far,
            },
        );
        assert_eq!(few.stopped, Some(Stop::Visited));
        assert!(few.found.len() < 5);
        let late = walk(
            &dir,
            &pattern,
            Limits {
                max_visited: 1000,
                deadline: Instant::now(),
            },
        );
        assert_eq!((late.found.len(), late.stopped), (0, Some(Stop::Time)));
    }
}
