//! The file-system rules every file we read goes through, written once for `SKILL.md` files,
//! skill folders, resources, trigger files and locks alike: a symlink must resolve inside the
//! root, only a regular file is read (opened without blocking and checked again once open), and
//! a size limit is enforced while reading.

use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic};

/// Why a path cannot be used (a symlink that leads out of the root).
pub(crate) enum Unreachable {
    /// The path, or a symlink on it, leads nowhere.
    Broken,
    /// Its real path is outside the root; the real path is given so callers can tell what it is.
    Outside(PathBuf),
}

/// The real path of `path` (symlinks followed) if it stays inside `real_root`.
pub(crate) fn real_path_within(path: &Path, real_root: &Path) -> Result<PathBuf, Unreachable> {
    match fs::canonicalize(path) {
        Ok(real) if real.starts_with(real_root) => Ok(real),
        Ok(real) => Err(Unreachable::Outside(real)),
        Err(_) => Err(Unreachable::Broken),
    }
}

/// What a directory entry is, once symlinks are followed. Only [`Kind::File`] is ever read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A FIFO (named pipe): opening it for reading waits for a writer, forever.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character device (`/dev/null`, a terminal): opening one may act on the device.
    CharDevice,
    /// A block device (a disk).
    BlockDevice,
    /// Anything else the system reports.
    Other,
}

impl Kind {
    /// The kind of `file_type`.
    pub(crate) fn of(file_type: fs::FileType) -> Kind {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if file_type.is_fifo() {
                return Kind::Fifo;
            }
            if file_type.is_socket() {
                return Kind::Socket;
            }
            if file_type.is_char_device() {
                return Kind::CharDevice;
            }
            if file_type.is_block_device() {
                return Kind::BlockDevice;
            }
        }
        if file_type.is_file() {
            Kind::File
        } else if file_type.is_dir() {
            Kind::Dir
        } else {
            Kind::Other
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::File => "a file",
            Kind::Dir => "a folder",
            Kind::Fifo => "a FIFO (named pipe)",
            Kind::Socket => "a socket",
            Kind::CharDevice => "a character device",
            Kind::BlockDevice => "a block device",
            Kind::Other => "neither a file nor a folder",
        })
    }
}

/// The error for a FIFO, socket or device met where a file is read (`shown` as diagnostics
/// show it): the rule `special-file`.
pub(crate) fn special_file(shown: &str, kind: Kind) -> Diagnostic {
    Diagnostic::error(
        Code::SpecialFile,
        shown,
        format!("`{shown}` is {kind}: only regular files are read"),
    )
    .with_help("replace it with a regular file, or remove it")
}

/// Why a file could not be read (over the size limit, not a regular file, or I/O).
pub(crate) enum ReadError {
    /// More bytes than the limit; the size seen.
    TooLarge(u64),
    /// Not a regular file once opened (it was swapped, or never was one): what it is.
    NotFile(Kind),
    /// The file could not be opened or read.
    Io(std::io::Error),
}

/// Opens `path` for reading without ever blocking, and only if it is a regular file: on Unix
/// with `O_NONBLOCK` (a FIFO opens at once instead of waiting for a writer) and `O_NOCTTY` (a
/// terminal does not become ours), then checked with `fstat` on the open descriptor, so a file
/// swapped for something else between a walk's `stat` and this `open` is refused too.
pub(crate) fn open_regular(path: &Path) -> Result<(fs::File, fs::Metadata), ReadError> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(ReadError::Io)?;
    let metadata = file.metadata().map_err(ReadError::Io)?;
    match Kind::of(metadata.file_type()) {
        Kind::File => Ok((file, metadata)),
        other => Err(ReadError::NotFile(other)),
    }
}

/// Reads a regular file ([`open_regular`]), refusing more than `limit` bytes (checked while
/// reading, not trusted from metadata, so a file growing under us cannot slip through).
/// Returns the metadata read on the way, so callers need no second `stat`.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<(Vec<u8>, fs::Metadata), ReadError> {
    let (file, metadata) = open_regular(path)?;
    if metadata.len() > limit {
        return Err(ReadError::TooLarge(metadata.len()));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, metadata))
}

/// Why the bytes of a file are not the ones that were checked (`read_checked`).
#[derive(Debug)]
pub enum ReadCheckedError {
    /// The file is another file now: other bytes, more bytes, or no longer a regular file.
    Changed,
    /// The file could not be opened or read.
    Unreadable(std::io::Error),
}

impl fmt::Display for ReadCheckedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadCheckedError::Changed => f.write_str("the file changed after it was checked"),
            ReadCheckedError::Unreadable(error) => {
                write!(f, "the file cannot be read again: {error}")
            }
        }
    }
}

impl std::error::Error for ReadCheckedError {}

/// The bytes of `file`, only if they are the `size` bytes with SHA-256 `sha256` (lowercase hex)
/// that were checked: read again (at most `size` bytes, so a file swapped for a larger one, or a
/// link to an endless one, is refused once it passes that size; a regular file only, opened
/// without blocking) and compared. What is embedded, zipped or copied is then what was judged.
pub(crate) fn read_checked(
    file: &Path,
    size: u64,
    sha256: &str,
) -> Result<Vec<u8>, ReadCheckedError> {
    let bytes = match read_limited(file, size) {
        Ok((bytes, _)) => bytes,
        Err(ReadError::TooLarge(_) | ReadError::NotFile(_)) => {
            return Err(ReadCheckedError::Changed);
        }
        Err(ReadError::Io(error)) => return Err(ReadCheckedError::Unreadable(error)),
    };
    if crate::digest::sha256_hex(&bytes) != sha256 {
        return Err(ReadCheckedError::Changed);
    }
    Ok(bytes)
}

/// `(device, inode)` of a folder, to recognise it when a link leads back to it.
#[cfg(unix)]
pub(crate) fn identity(metadata: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (metadata.dev(), metadata.ino())
}

/// Without inodes every folder is new: loops are still bounded by the walks' depth and entry
/// limits.
#[cfg(not(unix))]
pub(crate) fn identity(_: &fs::Metadata) -> (u64, u64) {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    (
        u64::MAX,
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
    )
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A FIFO with no writer: a plain `open` would wait forever. Run in a thread with a
    /// deadline, so a regression fails instead of hanging the test run.
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let result = read_limited(&fifo, 1024).map(|_| ());
            let _ = send.send(matches!(result, Err(ReadError::NotFile(Kind::Fifo))));
        });
        let refused = receive
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("reading a FIFO must not block");
        assert!(refused);
    }

    #[test]
    fn devices_and_sockets_are_refused() {
        assert!(matches!(
            read_limited(Path::new("/dev/null"), 1024),
            Err(ReadError::NotFile(Kind::CharDevice))
        ));
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        // A socket cannot be opened at all; either way it is not read.
        assert!(read_limited(&socket, 1024).is_err());
        assert_eq!(
            Kind::of(fs::metadata(&socket).unwrap().file_type()),
            Kind::Socket
        );
        assert!(read_limited(dir.path(), 1024).is_err());
    }
}
