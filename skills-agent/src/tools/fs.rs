//! `read_file`, `write_file` and `edit_file`, confined to the working directory by construction.
//!
//! Every path is opened beneath the working directory's handle ([`ToolContext::root`]), so the
//! kernel (or cap-std, where `openat2` is missing) refuses any resolution that leaves it, at the
//! moment of the open; there is no check-then-reopen window for a swapped symlink.
//!
//! - Reads open with `O_NONBLOCK` and look at the opened handle: anything but a regular file (a
//!   folder, a FIFO, a socket, a device) is refused without blocking, and so is a file with more
//!   than one hard link unless [`ToolContext::allow_hard_links`] says otherwise. `read_file`
//!   streams: it keeps at most one shown line in memory and goes through at most
//!   [`ReadFile::MAX_SCAN_BYTES`] of a file per call.
//! - Writes never open the target: the content goes to a new temporary file in the target's
//!   folder, which is renamed over the target, both through the folder's handle. A hard link or
//!   a FIFO at the target is replaced, not written through. A symlink at the target is followed
//!   only when it resolves beneath the working directory. Content is capped at
//!   [`WriteFile::MAX_WRITE_BYTES`]; `edit_file` reads and produces at most that much.
//! - What the sandbox keeps read-only for `bash` is read-only here too (one policy,
//!   [`Protected`](crate::sandbox::Protected)): version control metadata at any depth and what
//!   git's settings make it run. It is judged on the real path of the folder handle the write
//!   goes through, so no link, however planted, carries a write there; reading stays allowed.
//! - The work runs on tokio's blocking pool, not on the runtime's threads.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt, Permissions, PermissionsExt};
use serde_json::{Value, json};

use super::{
    Tool, ToolContext, ToolError, ToolErrorKind, blocking, fs_error, outside, str_arg, uint_arg,
};
use crate::BoxFuture;
use crate::permission::Permission;
use skills_bundle::DEFAULT_READ_LIMIT;

/// Bytes of one line kept for showing: enough for [`ReadFile::MAX_LINE_CHARS`] characters of any
/// width.
const MAX_LINE_BYTES: usize = ReadFile::MAX_LINE_CHARS * 4;
/// Bytes `read_file` goes on counting lines after the last shown one, to report the total.
const COUNT_AHEAD_BYTES: u64 = 4 << 20;

/// `read_file`: a text file with line numbers, from line `offset` (1-based), at most `limit`
/// lines (default [`DEFAULT_READ_LIMIT`]) and [`ReadFile::MAX_READ_CHARS`] characters.
///
/// The result is `N\tline` rows, lines longer than [`ReadFile::MAX_LINE_CHARS`] ending in `[line
/// cut]`. When it does not show the whole file, a last row says which lines it shows and where to
/// go on: `(lines 2-3 of 5; read more with offset=4)`. The total is counted up to a few MiB past
/// the shown lines; when the file goes on beyond that it reads `of more than N`. A file with a NUL
/// byte or invalid UTF-8 in a shown line is refused as binary.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadFile;

impl ReadFile {
    /// Longest line `read_file` shows before cutting it.
    pub const MAX_LINE_CHARS: usize = 2000;
    /// Most characters one `read_file` result holds.
    pub const MAX_READ_CHARS: usize = 50_000;
    /// Most bytes of a file one `read_file` call goes through, skipping to `offset` and reading the
    /// lines it shows (256 MiB). Past that the call stops: an `offset` further in is refused, and
    /// the line count is reported as a lower bound.
    pub const MAX_SCAN_BYTES: u64 = 256 << 20;
}

/// `write_file`: creates or replaces a file (and its missing parent folders), atomically, with at
/// most [`WriteFile::MAX_WRITE_BYTES`] of content. A replaced file keeps its permission bits (not
/// set-user/group-id).
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteFile;

impl WriteFile {
    /// Largest content `write_file` writes, and largest file `edit_file` reads or produces (10
    /// MiB).
    pub const MAX_WRITE_BYTES: usize = 10 << 20;
}

/// `edit_file`: replaces the first occurrence of an exact text, in a file of at most
/// [`WriteFile::MAX_WRITE_BYTES`], written back as `write_file` does.
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
        Box::pin(async move {
            let path = str_arg(input, "path")?.to_owned();
            let offset = uint_arg(input, "offset")?.unwrap_or(1).max(1);
            let limit = uint_arg(input, "limit")?
                .unwrap_or(DEFAULT_READ_LIMIT as u64)
                .max(1);
            let context = context.clone();
            blocking(move || read_file(&context, &path, offset, limit)).await
        })
    }
}

fn read_file(
    context: &ToolContext,
    path: &str,
    offset: u64,
    limit: u64,
) -> Result<String, ToolError> {
    let relative = context.relative(path)?;
    let file = open_regular(context, &relative, path)?;
    let mut lines = LineReader::new(file, ReadFile::MAX_SCAN_BYTES);
    let read_error = |e: std::io::Error| ToolError::io("read", path, &e);
    // Lines gone through so far; `offset` >= 1, so `offset - 1` cannot wrap.
    let mut seen: u64 = 0;
    while seen < offset - 1 {
        match lines.next(None).map_err(read_error)? {
            Step::Line { .. } => seen += 1,
            Step::End if seen == 0 => return Ok(format!("({path} is empty)")),
            Step::End => return Err(past_end(path, offset, seen)),
            Step::OverBudget => return Err(beyond_scan(path, offset)),
        }
    }
    let mut out = String::new();
    let mut shown: u64 = 0;
    let mut line = Vec::new();
    // Why the listing ended: `Step::Line` stands for "a limit was reached, the file goes on".
    let end = loop {
        if shown >= limit {
            break Step::Line { cut: false };
        }
        line.clear();
        match lines.next(Some(&mut line)).map_err(read_error)? {
            Step::Line { cut } => {
                seen += 1;
                let text = decode_line(&line, cut, path)?;
                if out.len().saturating_add(text.len()) > ReadFile::MAX_READ_CHARS {
                    break Step::Line { cut: false };
                }
                out.push_str(&format!("{seen:>6}\t{text}\n"));
                shown += 1;
            }
            other => break other,
        }
    };
    match end {
        _ if shown > 0 => {}
        Step::OverBudget => return Err(beyond_scan(path, offset)),
        _ if seen == 0 => return Ok(format!("({path} is empty)")),
        _ => return Err(past_end(path, offset, seen)),
    }
    // `shown` >= 1 lines ending at `last`; a line cut off by `ReadFile::MAX_READ_CHARS` counts in `seen`.
    let last = offset - 1 + shown;
    // How many lines the file has, when it is known within a little more scanning.
    let total = match end {
        Step::End => Some(seen),
        Step::OverBudget => None,
        Step::Line { .. } => {
            lines.extend_budget(COUNT_AHEAD_BYTES);
            loop {
                match lines.next(None).map_err(read_error)? {
                    Step::Line { .. } => seen += 1,
                    Step::End => break Some(seen),
                    Step::OverBudget => break None,
                }
            }
        }
    };
    match total {
        Some(total) if offset == 1 && last == total => {}
        Some(total) if last == total => {
            out.push_str(&format!("(lines {offset}-{last} of {total})\n"));
        }
        Some(total) => out.push_str(&format!(
            "(lines {offset}-{last} of {total}; read more with offset={})\n",
            last + 1
        )),
        None => out.push_str(&format!(
            "(lines {offset}-{last} of more than {seen}; read more with offset={})\n",
            last + 1
        )),
    }
    Ok(out)
}

fn past_end(path: &str, offset: u64, total: u64) -> ToolError {
    ToolError::new(
        ToolErrorKind::InvalidInput,
        format!("offset {offset} is past the end of {path} ({total} lines)"),
    )
    .suggest(format!("use an offset between 1 and {total}"))
}

fn beyond_scan(path: &str, offset: u64) -> ToolError {
    ToolError::new(
        ToolErrorKind::InvalidInput,
        format!(
            "line {offset} of {path} is not within the first {} MiB, which is as far as one \
             read_file call goes",
            ReadFile::MAX_SCAN_BYTES >> 20
        ),
    )
    .suggest("use a smaller offset, or bash (for example `tail -c 100000 FILE`) for the end of a huge file")
}

/// One shown line as text: `\r\n` ends trimmed, cut to [`ReadFile::MAX_LINE_CHARS`], refused when
/// binary.
fn decode_line(bytes: &[u8], cut: bool, path: &str) -> Result<String, ToolError> {
    let bytes = match bytes {
        [rest @ .., b'\r'] if !cut => rest,
        _ => bytes,
    };
    let binary = || {
        ToolError::new(
            ToolErrorKind::InvalidInput,
            format!("{path} is not UTF-8 text"),
        )
        .suggest("inspect binary files with bash (for example `file` or `xxd | head`)")
    };
    if bytes.contains(&0) {
        return Err(binary());
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        // The kept part of a cut line may end inside a character.
        Err(e) if cut && e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).map_err(|_| binary())?
        }
        Err(_) => return Err(binary()),
    };
    Ok(match text.char_indices().nth(ReadFile::MAX_LINE_CHARS) {
        Some((at, _)) => format!("{} [line cut]", &text[..at]),
        None if cut => format!("{text} [line cut]"),
        None => text.to_owned(),
    })
}

/// What [`LineReader::next`] found.
#[derive(Debug)]
enum Step {
    /// A line; `cut` when it was longer than what was kept of it.
    Line { cut: bool },
    /// The end of the file, with no line begun.
    End,
    /// The scan budget ran out before the end of the file.
    OverBudget,
}

/// Lines of a file, read through a bounded buffer: a line of any length costs at most
/// [`MAX_LINE_BYTES`] of memory, and at most `budget` bytes are read in all.
struct LineReader<R> {
    reader: BufReader<R>,
    scanned: u64,
    budget: u64,
}

impl<R: Read> LineReader<R> {
    fn new(reader: R, budget: u64) -> Self {
        LineReader {
            reader: BufReader::with_capacity(64 * 1024, reader),
            scanned: 0,
            budget,
        }
    }

    fn extend_budget(&mut self, more: u64) {
        self.budget = self.budget.saturating_add(more);
    }

    /// The next line, its first [`MAX_LINE_BYTES`] appended to `keep` when given. A line the
    /// budget cuts is returned as cut when kept (it can still be shown) and as over budget when
    /// only counted (it cannot be counted as a whole line).
    fn next(&mut self, mut keep: Option<&mut Vec<u8>>) -> std::io::Result<Step> {
        let mut begun = false;
        let mut cut = false;
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                return Ok(if begun { Step::Line { cut } } else { Step::End });
            }
            let left = self.budget.saturating_sub(self.scanned);
            if left == 0 {
                return Ok(match keep {
                    Some(_) if begun => Step::Line { cut: true },
                    _ => Step::OverBudget,
                });
            }
            let window = &buffer[..buffer
                .len()
                .min(usize::try_from(left).unwrap_or(usize::MAX))];
            begun = true;
            let newline = window.iter().position(|&b| b == b'\n');
            let content = &window[..newline.unwrap_or(window.len())];
            if let Some(kept) = keep.as_deref_mut() {
                let room = MAX_LINE_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&content[..content.len().min(room)]);
                cut |= content.len() > room;
            }
            let used = newline.map_or(window.len(), |at| at + 1);
            self.reader.consume(used);
            self.scanned = self.scanned.saturating_add(used as u64);
            if newline.is_some() {
                return Ok(Step::Line { cut });
            }
        }
    }
}

/// Flags for opening a file to read: never wait at the open (a FIFO with no writer would), never
/// take a terminal as controlling terminal.
fn read_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true);
    options.custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32);
    options
}

/// `relative` opened beneath the working directory for reading, checked on the opened handle to
/// be a regular file with one link (or hard links allowed).
fn open_regular(
    context: &ToolContext,
    relative: &Path,
    path: &str,
) -> Result<std::fs::File, ToolError> {
    let file = context
        .root()
        .open_with(or_dot(relative), &read_options())
        .map_err(|e| {
            // A socket (and a device without a driver) cannot be opened at all.
            if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) {
                not_regular(path)
            } else {
                fs_error("open", path, &e)
            }
        })?
        .into_std();
    let metadata = file
        .metadata()
        .map_err(|e| ToolError::io("inspect", path, &e))?;
    if metadata.is_dir() {
        return Err(ToolError::new(
            ToolErrorKind::InvalidInput,
            format!("{path} is a directory"),
        )
        .suggest("use glob to list its files"));
    }
    if !metadata.is_file() {
        return Err(not_regular(path));
    }
    let links = std::os::unix::fs::MetadataExt::nlink(&metadata);
    if links > 1 && !context.hard_links_allowed() {
        return Err(ToolError::new(
            ToolErrorKind::Denied,
            format!(
                "{path} has {links} hard links; another link may be outside the working \
                 directory, so the file tools do not open it"
            ),
        )
        .suggest(
            "work on a copy made with write_file, or ask the user to allow hard links \
             (AgentBuilder::allow_hard_links)",
        ));
    }
    Ok(file)
}

fn not_regular(path: &str) -> ToolError {
    ToolError::new(
        ToolErrorKind::InvalidInput,
        format!("{path} is not a regular file (a FIFO, socket or device)"),
    )
    .suggest("the file tools only handle regular files")
}

/// The empty path (the working directory) as `.`, which the open calls accept.
fn or_dot(relative: &Path) -> &Path {
    if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    }
}

/// The folder of `relative` opened beneath the working directory, created (beneath it too) when
/// missing.
fn open_parent(context: &ToolContext, parent: &Path, path: &str) -> Result<Dir, ToolError> {
    let root = context.root();
    match root.open_dir(or_dot(parent)) {
        Ok(dir) => Ok(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            root.create_dir_all(parent)
                .map_err(|e| fs_error("create the folder of", path, &e))?;
            root.open_dir(parent)
                .map_err(|e| fs_error("open the folder of", path, &e))
        }
        Err(e) => Err(fs_error("open the folder of", path, &e)),
    }
}

/// Writes `content` to `relative` through a temporary file in its folder and a rename, and
/// returns the path written (a symlink at `relative` that stays inside is written through).
fn write_atomic(
    context: &ToolContext,
    relative: &Path,
    path: &str,
    content: &[u8],
) -> Result<PathBuf, ToolError> {
    let mut target = relative.to_path_buf();
    // One symlink at the end is followed, once: the canonical form has no link left.
    for follow in [true, false] {
        let Some(name) = target.file_name().map(ToOwned::to_owned) else {
            return Err(ToolError::new(
                ToolErrorKind::InvalidInput,
                format!("{path} is the working directory"),
            ));
        };
        let parent = target.parent().unwrap_or(Path::new(""));
        // Before a missing folder is made (through whatever link is on the way), and again on
        // the handle the write goes through.
        refuse_protected(context, &nearest_real(context, &target), path)?;
        let dir = open_parent(context, parent, path)?;
        let real_dir = real_path(&dir).unwrap_or_else(|| context.workdir().join(parent));
        refuse_protected(context, &real_dir.join(&name), path)?;
        let permissions = match dir.symlink_metadata(&name) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(fs_error("inspect", path, &e)),
            Ok(metadata) if metadata.is_dir() => {
                return Err(ToolError::new(
                    ToolErrorKind::InvalidInput,
                    format!("{path} is a directory"),
                ));
            }
            Ok(metadata) if metadata.file_type().is_symlink() && follow => {
                target = context
                    .root()
                    .canonicalize(&target)
                    .map_err(|e| fs_error("follow the link", path, &e))?;
                if target.is_absolute() {
                    return Err(outside(path));
                }
                continue;
            }
            Ok(metadata) if !metadata.is_file() => return Err(not_regular(path)),
            Ok(metadata) => {
                // The mode carries over, without set-user/group-id: new content is not the
                // program that was trusted with them.
                let mut permissions = metadata.permissions();
                permissions.set_mode(permissions.mode() & 0o1777);
                Some(permissions)
            }
        };
        replace(&dir, &name, path, content, permissions)?;
        return Ok(target);
    }
    Err(ToolError::new(
        ToolErrorKind::Io,
        format!("{path} kept changing while it was written"),
    ))
}

/// Refuses a write of the absolute path `real` when the policy of the sandbox keeps it
/// read-only, unless the context opens version control metadata. The caller resolves the
/// links: on the handle of the folder the write goes through (`/proc/self/fd`), so that no
/// link, however planted or swapped in, carries a write there.
fn refuse_protected(context: &ToolContext, real: &Path, path: &str) -> Result<(), ToolError> {
    if context.vcs_writable() {
        return Ok(());
    }
    let real = real.to_path_buf();
    if !crate::sandbox::Protected::scan(context.workdir()).covers(&real) {
        return Ok(());
    }
    Err(ToolError::new(
        ToolErrorKind::Denied,
        format!(
            "{path} is version control metadata or a file git runs ({}), which stays \
             read-only: a change there would run outside the sandbox, with the person's rights, \
             the next time they use the repository",
            real.strip_prefix(context.workdir())
                .unwrap_or(&real)
                .display()
        ),
    )
    .suggest("leave it to the person, or ask them; commands that only read the repository work"))
}

/// `relative` as an absolute path with the links of its longest existing part resolved
/// (beneath the working directory), the rest as written: where a write would go, before the
/// folders it needs exist.
fn nearest_real(context: &ToolContext, relative: &Path) -> PathBuf {
    let mut existing = relative;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = context.root().canonicalize(or_dot(existing)) {
            let mut path = context.workdir().join(real);
            path.extend(rest.iter().rev());
            return path;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return context.workdir().join(relative),
        }
    }
}

/// The path a folder handle has now, links resolved (`None` where `/proc` cannot say).
fn real_path(dir: &Dir) -> Option<PathBuf> {
    use std::os::fd::{AsFd, AsRawFd};
    let fd = dir.as_fd().as_raw_fd();
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .ok()
        .filter(|p| p.is_absolute())
}

/// Creates a temporary file in `dir`, writes and syncs `content`, and renames it to `name`.
fn replace(
    dir: &Dir,
    name: &std::ffi::OsStr,
    path: &str,
    content: &[u8],
    permissions: Option<Permissions>,
) -> Result<(), ToolError> {
    let write_error = |e: std::io::Error| ToolError::io("write", path, &e);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    let (temp, mut file) = (0u32..)
        .take(16)
        .find_map(|attempt| {
            let temp = temp_name(attempt);
            match dir.open_with(&temp, &options) {
                Ok(file) => Some(Ok((temp, file))),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => None,
                Err(e) => Some(Err(e)),
            }
        })
        .unwrap_or_else(|| {
            Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "no free temporary name",
            ))
        })
        .map_err(write_error)?;
    let written = (|| {
        file.write_all(content)?;
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.sync_all()?;
        drop(file);
        dir.rename(&temp, dir, name)
    })();
    if let Err(e) = written {
        let _ = dir.remove_file(&temp);
        return Err(write_error(e));
    }
    Ok(())
}

/// A name for a temporary file, distinct across processes, calls and attempts.
fn temp_name(attempt: u32) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        ".agent-write-{:x}-{:x}-{nanos:x}-{attempt}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn too_big(path: &str, size: u64) -> ToolError {
    ToolError::new(
        ToolErrorKind::InvalidInput,
        format!(
            "{path} would be {size} bytes; the file tools write at most {} bytes ({} MiB)",
            WriteFile::MAX_WRITE_BYTES,
            WriteFile::MAX_WRITE_BYTES >> 20
        ),
    )
    .suggest("write big files in smaller pieces with bash, or generate them with a script")
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
            let path = str_arg(input, "path")?.to_owned();
            let content = str_arg(input, "content")?;
            if content.len() > WriteFile::MAX_WRITE_BYTES {
                return Err(too_big(&path, content.len() as u64));
            }
            let content = content.to_owned();
            let context = context.clone();
            blocking(move || {
                let relative = context.relative(&path)?;
                let written = write_atomic(&context, &relative, &path, content.as_bytes())?;
                Ok(format!(
                    "wrote {} bytes ({} lines) to {}",
                    content.len(),
                    content.lines().count(),
                    context.display(&written)
                ))
            })
            .await
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
            let path = str_arg(input, "path")?.to_owned();
            let old_text = str_arg(input, "old_text")?;
            let new_text = str_arg(input, "new_text")?;
            if old_text.is_empty() {
                return Err(
                    ToolError::new(ToolErrorKind::InvalidInput, "`old_text` is empty")
                        .suggest("to create a file use write_file"),
                );
            }
            if old_text.len() > WriteFile::MAX_WRITE_BYTES
                || new_text.len() > WriteFile::MAX_WRITE_BYTES
            {
                return Err(too_big(&path, old_text.len().max(new_text.len()) as u64));
            }
            let (old_text, new_text) = (old_text.to_owned(), new_text.to_owned());
            let context = context.clone();
            blocking(move || edit_file(&context, &path, &old_text, &new_text)).await
        })
    }
}

fn edit_file(
    context: &ToolContext,
    path: &str,
    old_text: &str,
    new_text: &str,
) -> Result<String, ToolError> {
    let relative = context.relative(path)?;
    let file = open_regular(context, &relative, path)?;
    let mut bytes = Vec::new();
    // One byte more than the cap tells a file that is too big, whatever its size says.
    file.take(WriteFile::MAX_WRITE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::io("read", path, &e))?;
    if bytes.len() > WriteFile::MAX_WRITE_BYTES {
        return Err(too_big(path, bytes.len() as u64).suggest(
            "edit_file handles files up to the cap; change bigger ones with bash (for example sed)",
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(
            ToolErrorKind::InvalidInput,
            format!("{path} is not UTF-8 text"),
        )
        .suggest("change binary files with bash")
    })?;
    let Some(at) = text.find(old_text) else {
        return Err(ToolError::new(
            ToolErrorKind::NotFound,
            format!("`old_text` does not occur in {path}"),
        )
        .suggest("read the file and copy the exact text, including indentation and line breaks"));
    };
    // Both lengths are at most the cap, so this neither wraps nor overflows.
    let new_len = text.len() - old_text.len() + new_text.len();
    if new_len > WriteFile::MAX_WRITE_BYTES {
        return Err(too_big(path, new_len as u64));
    }
    let occurrences = text.matches(old_text).count();
    let mut updated = String::with_capacity(new_len);
    updated.push_str(&text[..at]);
    updated.push_str(new_text);
    updated.push_str(&text[at + old_text.len()..]);
    let written = write_atomic(context, &relative, path, updated.as_bytes())?;
    let line = text[..at].matches('\n').count() + 1;
    let mut out = format!(
        "replaced 1 occurrence at line {line} of {}",
        context.display(&written)
    );
    if occurrences > 1 {
        out.push_str(&format!(
            " (the first of {occurrences}; the others are unchanged)"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_file_tells_the_model_the_default_limit_it_applies() {
        let said = format!("default {DEFAULT_READ_LIMIT})");
        assert!(ReadFile.description().contains(&said), "{said}");
    }
}
