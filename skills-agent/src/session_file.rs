//! Opening a session's transcript file as the untrusted input it is: the model can plant
//! symlinks, FIFOs and huge files in the working directory, and a person may point `--session`
//! there.
//!
//! - The path is walked one component at a time. Symbolic links are followed only in folders
//!   outside the working directory (the person's own layout, such as `/home -> /var/home`); at
//!   or below the working directory, where the model can write, a symbolic link anywhere in the
//!   path is refused, and so is the last component being one, wherever it is.
//! - The file is opened without blocking (a FIFO would wait for a writer) and refused unless it
//!   is a regular file with one link (another name could be outside the working directory).
//! - A file over the size cap is refused before anything is read, and no more than the cap is
//!   ever read.
//! - Nothing here truncates: an existing file is opened to append, a new one is created only
//!   where nothing is.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags};

/// The most symbolic links one path may go through, as the kernel's own limit.
const MAX_SYMLINKS: usize = 40;

/// What a session file may be, for one agent: where its working directory is, and how large a
/// transcript it reads.
#[derive(Clone, Debug)]
pub(crate) struct SessionFiles {
    /// Device and inode of the working directory, `None` when it could not be looked at (then
    /// every folder counts as outside it).
    workdir: Option<(u64, u64)>,
    max_bytes: u64,
}

/// How to open: a new file only, or an existing one (created when missing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Open {
    New,
    Existing,
}

impl SessionFiles {
    /// The rules for an agent whose working directory is the open directory `workdir`.
    pub(crate) fn new(workdir: impl AsFd, max_bytes: u64) -> Self {
        let workdir = rustix::fs::fstat(workdir)
            .ok()
            .map(|stat| (stat.st_dev, stat.st_ino));
        SessionFiles { workdir, max_bytes }
    }

    /// `path` opened to read and append, checked as the module docs say.
    pub(crate) fn open(&self, path: &Path, how: Open) -> io::Result<File> {
        let absolute = if path.is_absolute() {
            path.to_owned()
        } else {
            std::env::current_dir()?.join(path)
        };
        let (Some(folder), Some(Component::Normal(name))) =
            (absolute.parent(), absolute.components().next_back())
        else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path names no file",
            ));
        };
        let folder = self.walk(folder)?;
        let mut flags = OFlags::RDWR
            | OFlags::APPEND
            | OFlags::CREATE
            | OFlags::NOFOLLOW
            | OFlags::NONBLOCK
            | OFlags::NOCTTY
            | OFlags::CLOEXEC;
        if how == Open::New {
            flags |= OFlags::EXCL;
        }
        let file = rustix::fs::openat(&folder, name, flags, Mode::from_raw_mode(0o600)).map_err(
            |errno| match errno {
                rustix::io::Errno::LOOP => symlink_refused(),
                // A socket cannot be opened at all.
                rustix::io::Errno::NXIO => not_regular(),
                errno => errno.into(),
            },
        )?;
        let stat = rustix::fs::fstat(&file)?;
        if !FileType::from_raw_mode(stat.st_mode).is_file() {
            return Err(not_regular());
        }
        if stat.st_nlink > 1 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "the file has {} hard links; another one may be outside the working \
                     directory, so it is not used as a session",
                    stat.st_nlink
                ),
            ));
        }
        Ok(File::from(file))
    }

    /// Reads all of `file`, refusing one over the cap before reading and never reading more
    /// than the cap.
    pub(crate) fn read(&self, file: &mut File) -> io::Result<Vec<u8>> {
        let size = rustix::fs::fstat(&*file)?.st_size.max(0) as u64;
        if size > self.max_bytes {
            return Err(self.too_large(size));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        (&mut *file)
            .take(self.max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > self.max_bytes {
            return Err(self.too_large(bytes.len() as u64));
        }
        Ok(bytes)
    }

    fn too_large(&self, size: u64) -> io::Error {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "the transcript holds {size} bytes or more, over the limit of {} \
                 (AgentBuilder::max_transcript_bytes)",
                self.max_bytes
            ),
        )
    }

    /// The folder `path` (absolute) opened, component by component: a symbolic link is
    /// followed only in a folder outside the working directory.
    fn walk(&self, path: &Path) -> io::Result<OwnedFd> {
        let open_root = || {
            rustix::fs::openat(
                rustix::fs::CWD,
                "/",
                OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
        };
        let root = open_root()?;
        let root_inside = self.is_workdir(&root)?;
        // The folders from `/` to where the walk is, each with whether it is the working
        // directory or inside it; `..` goes back one.
        let mut folders: Vec<(OwnedFd, bool)> = vec![(root, root_inside)];
        let mut queue: VecDeque<OsString> = names(path);
        let mut links = 0;
        while let Some(name) = queue.pop_front() {
            if name == ".." {
                if folders.len() > 1 {
                    folders.pop();
                }
                continue;
            }
            let (folder, inside) = folders.last().expect("the root stays");
            let inside = *inside;
            let next = rustix::fs::openat(
                folder,
                &name,
                OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            let kind = FileType::from_raw_mode(rustix::fs::fstat(&next)?.st_mode);
            if kind.is_symlink() {
                if inside {
                    return Err(symlink_refused());
                }
                links += 1;
                if links > MAX_SYMLINKS {
                    return Err(rustix::io::Errno::LOOP.into());
                }
                let target = PathBuf::from(OsString::from_vec(
                    rustix::fs::readlinkat(folder, &name, Vec::new())?.into_bytes(),
                ));
                if target.is_absolute() {
                    folders.truncate(1);
                }
                for name in names(&target).into_iter().rev() {
                    queue.push_front(name);
                }
                continue;
            }
            if !kind.is_dir() {
                return Err(rustix::io::Errno::NOTDIR.into());
            }
            let inside = inside || self.is_workdir(&next)?;
            folders.push((next, inside));
        }
        let (folder, _) = folders.pop().expect("the root stays");
        Ok(folder)
    }

    fn is_workdir(&self, folder: impl AsFd) -> io::Result<bool> {
        let stat = rustix::fs::fstat(folder)?;
        Ok(self.workdir == Some((stat.st_dev, stat.st_ino)))
    }
}

/// The names of `path`'s components, `..` kept, the root and `.` dropped.
fn names(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

fn symlink_refused() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "the path goes through a symbolic link in the working directory, or ends in one; a \
         session file is never opened through one",
    )
}

fn not_regular() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "not a regular file (a FIFO, socket or device)",
    )
}
