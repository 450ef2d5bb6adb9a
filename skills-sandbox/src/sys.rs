//! The system calls the sandbox needs that rustix does not wrap, and the crate's only `unsafe`
//! code: `close_range` (rustix leaves closing descriptors it does not own to `unsafe` code,
//! since it would break the ownership of any object holding one), `mount_setattr` (for an
//! idmapped mount), and `fork` of the single-threaded first stage (rustix leaves it to `unsafe`
//! code, since a child of a process with other threads may find their locks held forever).

#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

/// Closes every descriptor numbered `first` and above.
///
/// For the start of a stage: it runs before the stage opens anything (its `main` called
/// [`enter`](crate::enter) first, and the stage never returns to the program), so every
/// descriptor in the range is one the process inherited, which no object of this process owns.
pub(crate) fn close_inherited(first: u32) -> io::Result<()> {
    // SAFETY: `close_range` takes plain integers and only closes descriptors. Those it closes
    // belong to no object of this process (see above), so none is used or closed again later.
    let closed = unsafe { libc::syscall(libc::SYS_close_range, first, u32::MAX, 0u32) };
    if closed == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    if error.raw_os_error() != Some(libc::ENOSYS) {
        return Err(error);
    }
    // Before Linux 5.9: one at a time, as `/proc/self/fd` lists them (the listing's own
    // descriptor is closed with the rest, and the loop ends with the listing it read).
    let open: Vec<i32> = std::fs::read_dir("/proc/self/fd")?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd: &i32| u32::try_from(fd).is_ok_and(|fd| fd >= first))
        .collect();
    for fd in open {
        // SAFETY: as above; a descriptor already closed answers EBADF, which is ignored.
        unsafe { libc::close(fd) };
    }
    Ok(())
}

/// Makes the detached mount tree `tree` (from `open_tree` with `OPEN_TREE_CLONE`) and every
/// mount beneath it idmapped through the user namespace `userns`: the owner a file has on disk
/// is seen, and files are created, through that namespace's id map.
pub(crate) fn idmap(tree: BorrowedFd<'_>, userns: BorrowedFd<'_>) -> io::Result<()> {
    let attr = libc::mount_attr {
        attr_set: libc::MOUNT_ATTR_IDMAP,
        attr_clr: 0,
        propagation: 0,
        userns_fd: userns.as_raw_fd() as u64,
    };
    // SAFETY: the path is a valid C string, `attr` a valid `mount_attr` whose size is passed
    // with it, and both descriptors are borrowed for the call; the kernel only reads them.
    let done = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            tree.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH | libc::AT_RECURSIVE,
            &attr as *const libc::mount_attr,
            std::mem::size_of::<libc::mount_attr>(),
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Which side of a [`fork`] this is.
pub(crate) enum Forked {
    /// The new process.
    Child,
    /// This process, with the child's id.
    Parent(rustix::process::Pid),
}

/// Forks this process, which must have a single thread: the child is a copy whose every object
/// is as consistent as in the parent, since no other thread held a lock or was midway through
/// a change. The first stage checks that it has one thread before anything else.
pub(crate) fn fork() -> io::Result<Forked> {
    debug_assert_eq!(crate::threads::thread_count(), 1);
    // SAFETY: a single-threaded process may fork and go on running any code in the child.
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => Ok(Forked::Child),
        pid => rustix::process::Pid::from_raw(pid)
            .map(Forked::Parent)
            .ok_or_else(|| io::Error::other("fork returned a negative process id")),
    }
}
