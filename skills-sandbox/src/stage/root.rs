//! The new root of a namespace sandbox, built by the init stage in its own mount namespace.
//!
//! An empty `tmpfs` is mounted on the call's `root` folder; into it go the synthesized
//! `/etc/passwd` and `/etc/group`, a private `/tmp` and `/dev/shm` (two folders of one size-capped
//! `tmpfs`, so that what a call keeps in memory files is capped as a whole), a `/dev` holding only
//! [`DEVICES`] (bind mounts of the host's nodes: device files on a filesystem mounted inside a
//! user namespace never work), a fresh `/proc` of the new PID namespace with `sys`,
//! `sysrq-trigger`, `irq`, `bus` and `fs` read-only and what container runtimes mask hidden
//! ([`PROC_MASKED`]), then bind mounts of the host paths the policy names at their own paths,
//! parents before children: read-only ones with `ro`, writable ones (the working directory) with
//! `nodev,nosuid` (idmapped when the command is nobody to the host), and what the working
//! directory keeps read-only ([`Protected`](crate::Protected)) bound over itself read-only, each
//! folder above it bound over itself so that it cannot be renamed away. Small system files
//! (`/etc/ld.so.cache`, `/etc/hosts`, ...) are copied instead, into the root that becomes
//! read-only. Then `pivot_root` makes it the root, the host's root is detached, and the new root
//! itself becomes read-only.
//!
//! A remount keeps the flags of the mount it copies (the kernel refuses to clear `nosuid`,
//! `nodev`, `noexec` or the atime mode of a mount from a more privileged namespace), adding
//! only restrictions.

use std::ffi::{CString, OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{CWD, StatVfsMountFlags, statvfs};
use rustix::mount::{
    MountFlags, MountPropagationFlags, UnmountFlags, mount, mount_bind, mount_bind_recursive,
    mount_change, mount_remount, unmount,
};

use crate::policy::DEVICES;
use crate::stage::{Failure, Step};

/// Parts of `/proc` that are the host's whatever the namespace (kernel settings, interrupts,
/// buses, the magic SysRq key): read-only, so that even a root caller's command cannot change
/// them through the uid they share with the host's root.
const PROC_READ_ONLY: &[&str] = &["sys", "sysrq-trigger", "irq", "bus", "fs"];

/// What container runtimes (runc's defaults, Docker's) mask in `/proc`, and the kernel's other
/// host-wide tables: files read as empty (`/dev/null` over them), folders as empty read-only
/// folders. Keys and their owners, the kernel's symbols and core, slab and timer statistics,
/// the scheduler's view of every host task, interrupts, ACPI, sound and SCSI devices.
const PROC_MASKED: &[&str] = &[
    "keys",
    "key-users",
    "kcore",
    "kallsyms",
    "slabinfo",
    "timer_list",
    "timer_stats",
    "sched_debug",
    "latency_stats",
    "interrupts",
    "acpi",
    "asound",
    "scsi",
];

/// Links of `/dev` into `/proc/self/fd`, which shells use (`<(...)`, `> /dev/stderr`).
const DEV_LINKS: &[(&str, &str)] = &[
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
];

/// How a host path is mounted into the new root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    ReadOnly,
    ReadWrite,
}

/// A host path to bind into the new root.
#[derive(Clone, Debug)]
pub(crate) struct Bind {
    pub(crate) path: PathBuf,
    pub(crate) access: Access,
    /// One of [`SYSTEM_READ_ONLY`](crate::SYSTEM_READ_ONLY): it may be missing on this host,
    /// and a small file is copied into the new root rather than bound (a mount costs more, and
    /// the copy is as read-only as the root it is in).
    pub(crate) system: bool,
}

/// The user namespace the writable binds are idmapped through, while they are.
struct Idmap<'a> {
    userns: Option<BorrowedFd<'a>>,
    /// Whether one was idmapped already.
    done: bool,
}

/// The largest system file copied rather than bound.
const COPY_LIMIT: u64 = 256 << 10;

/// The root being built, at `base` (a host path, until [`NewRoot::enter`]).
pub(crate) struct NewRoot {
    base: PathBuf,
}

impl NewRoot {
    /// An empty `tmpfs` at `base`, in a mount namespace whose mounts no longer propagate to
    /// the host's.
    pub(crate) fn create(base: &Path) -> Result<NewRoot, Failure> {
        mount_change(
            "/",
            MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
        )
        .step(|| "make the mounts private".to_owned())?;
        mount_tmpfs(
            base,
            MountFlags::NOSUID | MountFlags::NODEV,
            "mode=0755,size=1m",
        )
        .step(|| "mount the new root".to_owned())?;
        Ok(NewRoot {
            base: base.to_owned(),
        })
    }

    /// Writes a file of the new root (before it becomes read-only).
    pub(crate) fn write_file(&self, at: &str, contents: &str) -> Result<(), Failure> {
        let target = self.make_path(Path::new(at), false)?;
        fs::write(&target, contents).step(|| format!("write {at}"))
    }

    /// `/dev` with only [`DEVICES`] and the [`DEV_LINKS`]. [`NewRoot::seal_dev`] makes it
    /// read-only once nothing more goes under it.
    pub(crate) fn dev(&self) -> Result<(), Failure> {
        let dev = self.make_path(Path::new("/dev"), true)?;
        let sealed = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
        mount_tmpfs(&dev, sealed, "mode=0755,size=64k").step(|| "mount /dev".to_owned())?;
        for device in DEVICES {
            let target = self.make_path(Path::new(device), false)?;
            mount_bind(*device, &target).step(|| format!("bind {device}"))?;
        }
        for (name, link) in DEV_LINKS {
            std::os::unix::fs::symlink(link, dev.join(name))
                .step(|| format!("link /dev/{name}"))?;
        }
        Ok(())
    }

    /// The call's memory files: one `tmpfs` of `size` bytes, mounted at `staging` (a folder
    /// outside the new root, detached with the host's root), whose two folders are bound at
    /// `/tmp` and `/dev/shm` (after [`NewRoot::dev`]).
    pub(crate) fn memory(&self, staging: &Path, size: u64) -> Result<(), Failure> {
        let step = || "mount the private /tmp and /dev/shm".to_owned();
        fs::create_dir(staging).step(step)?;
        mount_tmpfs(
            staging,
            MountFlags::NOSUID | MountFlags::NODEV,
            &format!("mode=0700,size={size}"),
        )
        .step(step)?;
        for (folder, at, noexec) in [("tmp", "/tmp", false), ("shm", "/dev/shm", true)] {
            let source = staging.join(folder);
            fs::create_dir(&source).step(step)?;
            // Everyone's, sticky, whatever the umask.
            fs::set_permissions(&source, fs::Permissions::from_mode(0o1777)).step(step)?;
            let target = self.make_path(Path::new(at), true)?;
            mount_bind(&source, &target).step(step)?;
            if noexec {
                remount(&target, MountFlags::NOEXEC)?;
            }
        }
        Ok(())
    }

    /// The `/proc` of the PID namespace this process is the first of.
    pub(crate) fn proc(&self) -> Result<PathBuf, Failure> {
        let target = self.make_path(Path::new("/proc"), true)?;
        mount(
            "proc",
            &target,
            "proc",
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            None,
        )
        .step(|| "mount /proc of the new PID namespace".to_owned())?;
        Ok(target)
    }

    /// Makes [`PROC_READ_ONLY`] read-only (after the init stage has set what it sets there) and
    /// hides [`PROC_MASKED`].
    pub(crate) fn seal_proc(&self, proc: &Path) -> Result<(), Failure> {
        for part in PROC_MASKED {
            let target = proc.join(part);
            let Ok(meta) = fs::symlink_metadata(&target) else {
                continue;
            };
            let masked = if meta.is_dir() {
                mount_tmpfs(
                    &target,
                    MountFlags::RDONLY
                        | MountFlags::NOSUID
                        | MountFlags::NODEV
                        | MountFlags::NOEXEC,
                    "mode=0555,size=4k",
                )
            } else {
                mount_bind("/dev/null", &target)
            };
            masked.step(|| format!("mask /proc/{part}"))?;
        }
        for part in PROC_READ_ONLY {
            let target = proc.join(part);
            if fs::symlink_metadata(&target).is_err() {
                continue;
            }
            mount_bind(&target, &target).step(|| format!("bind /proc/{part}"))?;
            remount(
                &target,
                MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            )?;
        }
        Ok(())
    }

    /// Binds `binds` into the new root at their own paths, parents before children (a later
    /// bind of a path wins). A symbolic link is recreated as the same link when its target is
    /// inside another bind (`/bin -> usr/bin`), else its target is bound at its path. With
    /// `userns`, the writable binds are idmapped through it (see [`NewRoot::idmapped`]); returns
    /// whether they are, which they are not where the kernel or the file system of the first
    /// refuses it (then none is).
    pub(crate) fn bind_all(
        &self,
        mut binds: Vec<Bind>,
        userns: Option<BorrowedFd<'_>>,
    ) -> Result<bool, Failure> {
        binds.sort_by_key(|bind| bind.path.components().count());
        let covered: Vec<PathBuf> = binds
            .iter()
            .filter(|bind| fs::symlink_metadata(&bind.path).is_ok_and(|m| !m.is_symlink()))
            .filter_map(|bind| fs::canonicalize(&bind.path).ok())
            .collect();
        // The host's mounts, read once: a recursive bind brings those beneath its source along.
        // In one read or two: `fs::read` would start small (the file says its size is 0) and
        // have the kernel render the table again for each larger read.
        let mut mountinfo = Vec::with_capacity(64 << 10);
        File::open("/proc/self/mountinfo")
            .and_then(|mut file| file.read_to_end(&mut mountinfo))
            .step(|| "read the mount table".to_owned())?;
        let host_mounts = mount_points(&mountinfo);
        let mut idmap = Idmap {
            userns,
            done: false,
        };
        for bind in &binds {
            self.bind(bind, &covered, &host_mounts, &mut idmap)?;
        }
        Ok(idmap.done && idmap.userns.is_some())
    }

    fn bind(
        &self,
        bind: &Bind,
        covered: &[PathBuf],
        host_mounts: &[PathBuf],
        idmap: &mut Idmap<'_>,
    ) -> Result<(), Failure> {
        let path = &bind.path;
        let meta = match fs::symlink_metadata(path) {
            Err(error) if bind.system && error.kind() == io::ErrorKind::NotFound => return Ok(()),
            other => other.step(|| format!("look at {}", path.display()))?,
        };
        let mut source = path.clone();
        if meta.is_symlink() {
            match fs::canonicalize(path) {
                Ok(real) if covered.iter().any(|c| real.starts_with(c)) => {
                    let link =
                        fs::read_link(path).step(|| format!("read the link {}", path.display()))?;
                    return self.symlink(path, &link);
                }
                Ok(real) => source = real,
                // A link to nothing on this host (`/etc/resolv.conf` into a missing `/run`).
                Err(_) if bind.system => return Ok(()),
                Err(error) => {
                    return Err(error).step(|| format!("follow the link {}", path.display()));
                }
            }
        }
        let source_meta = fs::metadata(&source).step(|| format!("look at {}", source.display()))?;
        if bind.system && source_meta.is_file() && source_meta.len() <= COPY_LIMIT {
            let contents = match fs::read(&source) {
                // Not this stage's to read, so not the command's either.
                Err(error) if error.kind() == io::ErrorKind::PermissionDenied => return Ok(()),
                other => other.step(|| format!("read {}", source.display()))?,
            };
            let target = self.make_path(path, false)?;
            fs::write(&target, contents).step(|| format!("copy {}", path.display()))?;
            // The copy is as readable as the original, no more.
            return fs::set_permissions(&target, source_meta.permissions())
                .step(|| format!("copy the mode of {}", path.display()));
        }
        let target = self.make_path(path, source_meta.is_dir())?;
        let idmapped = match (bind.access, idmap.userns) {
            (Access::ReadWrite, Some(userns)) => {
                let done = self.idmapped(&source, &target, userns)?;
                if !done && idmap.done {
                    return Err(Failure::message(format!(
                        "{} cannot be idmapped like the working directory (another file system)",
                        path.display()
                    )));
                }
                if done {
                    idmap.done = true;
                } else {
                    idmap.userns = None;
                }
                done
            }
            _ => false,
        };
        if !idmapped {
            mount_bind_recursive(&source, &target)
                .step(|| format!("bind {} into the sandbox", path.display()))?;
        }
        let restrict = match bind.access {
            Access::ReadOnly => MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV,
            Access::ReadWrite => MountFlags::NOSUID | MountFlags::NODEV,
        };
        remount(&target, restrict)?;
        for beneath in host_mounts
            .iter()
            .filter(|m| m.starts_with(&source) && **m != source)
        {
            let relative = beneath.strip_prefix(&source).unwrap_or(beneath);
            remount(&target.join(relative), restrict)?;
        }
        Ok(())
    }

    /// Mounts a copy of the host folder `source` at `target`, idmapped through the user
    /// namespace `userns`: the owners files have on disk are seen, and given to new files,
    /// through its id map, so that a command that is nobody to the host owns there what the
    /// caller owns. `false`, with nothing mounted, where the kernel or the file system refuses
    /// idmapped mounts.
    fn idmapped(
        &self,
        source: &Path,
        target: &Path,
        userns: BorrowedFd<'_>,
    ) -> Result<bool, Failure> {
        use rustix::mount::{MoveMountFlags, OpenTreeFlags, move_mount, open_tree};
        let Ok(tree) = open_tree(
            CWD,
            source,
            OpenTreeFlags::OPEN_TREE_CLONE
                | OpenTreeFlags::OPEN_TREE_CLOEXEC
                | OpenTreeFlags::AT_RECURSIVE,
        ) else {
            return Ok(false);
        };
        if crate::sys::idmap(tree.as_fd(), userns).is_err() {
            return Ok(false);
        }
        move_mount(
            &tree,
            "",
            CWD,
            target,
            MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
        )
        .step(|| format!("bind {} into the sandbox, idmapped", source.display()))?;
        Ok(true)
    }

    /// Keeps `paths` (inside the working directory, bound already; none inside another)
    /// read-only: each is bound over itself and made read-only, after every folder between the
    /// working directory and it is bound over itself as it is (a mount point cannot be renamed
    /// or removed, so none can be moved away and replaced by a writable copy).
    pub(crate) fn protect(&self, workdir: &Path, paths: &[PathBuf]) -> Result<(), Failure> {
        let mut pinned: Vec<&Path> = Vec::new();
        for path in paths {
            let folders = path
                .ancestors()
                .skip(1)
                .take_while(|folder| folder.starts_with(workdir) && *folder != workdir);
            for folder in folders {
                if !pinned.contains(&folder) {
                    pinned.push(folder);
                }
            }
        }
        pinned.sort_by_key(|folder| folder.components().count());
        for folder in pinned {
            let target = self.base.join(folder.strip_prefix("/").unwrap_or(folder));
            mount_bind_recursive(&target, &target).step(|| format!("pin {}", folder.display()))?;
        }
        for path in paths {
            let target = self.base.join(path.strip_prefix("/").unwrap_or(path));
            mount_bind_recursive(&target, &target)
                .step(|| format!("bind {} read-only", path.display()))?;
            remount(
                &target,
                MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV,
            )?;
        }
        Ok(())
    }

    fn symlink(&self, path: &Path, link: &Path) -> Result<(), Failure> {
        let parent = path.parent().unwrap_or(Path::new("/"));
        let dir = self.make_path(parent, true)?;
        let at = dir.join(path.file_name().unwrap_or(OsStr::new("")));
        if fs::symlink_metadata(&at).is_ok() {
            return Ok(());
        }
        std::os::unix::fs::symlink(link, &at).step(|| format!("link {}", path.display()))
    }

    /// Makes `/dev` read-only: nothing can be created beside the devices.
    pub(crate) fn seal_dev(&self) -> Result<(), Failure> {
        remount(
            &self.base.join("dev"),
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
        )
    }

    /// Makes the new root the root of this mount namespace, detaches the host's, makes the new
    /// root read-only and goes to `workdir`.
    pub(crate) fn enter(self, workdir: &Path) -> Result<(), Failure> {
        let old = self.base.join(".old");
        fs::create_dir(&old).step(|| "create the old root's mount point".to_owned())?;
        rustix::process::pivot_root(&self.base, &old)
            .step(|| "pivot_root into the new root".to_owned())?;
        rustix::process::chdir("/").step(|| "enter the new root".to_owned())?;
        unmount("/.old", UnmountFlags::DETACH).step(|| "detach the host's root".to_owned())?;
        fs::remove_dir("/.old").step(|| "remove the old root's mount point".to_owned())?;
        remount(
            Path::new("/"),
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV,
        )?;
        rustix::process::chdir(workdir).step(|| format!("enter {}", workdir.display()))
    }

    /// Creates `at` (a host path, so absolute) in the new root, as a folder or an empty file,
    /// and the folders above it; returns its path. Symbolic links of the new root are never
    /// followed: one in the way (a replicated link) is an error, so nothing is ever created
    /// on the host through one.
    fn make_path(&self, at: &Path, dir: bool) -> Result<PathBuf, Failure> {
        let names: Vec<Component> = at
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect();
        let mut current = self.base.clone();
        for (i, name) in names.iter().enumerate() {
            current.push(name);
            let last = i + 1 == names.len();
            match fs::symlink_metadata(&current) {
                Ok(meta) if meta.is_symlink() => {
                    return Err(Failure::message(format!(
                        "{} crosses a symbolic link of the sandbox",
                        at.display()
                    )));
                }
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::NotFound => {
                    let made = if last && !dir {
                        File::create_new(&current).map(drop)
                    } else {
                        fs::create_dir(&current)
                    };
                    made.step(|| format!("create the mount point of {}", at.display()))?;
                }
                Err(error) => return Err(error).step(|| format!("look at {}", current.display())),
            }
        }
        Ok(current)
    }
}

fn mount_tmpfs(at: &Path, flags: MountFlags, options: &str) -> rustix::io::Result<()> {
    let options = CString::new(options).map_err(|_| rustix::io::Errno::INVAL)?;
    mount("tmpfs", at, "tmpfs", flags, Some(options.as_c_str()))
}

/// Remounts the mount at `at` with its current flags and `restrict`.
fn remount(at: &Path, restrict: MountFlags) -> Result<(), Failure> {
    let current = statvfs(at)
        .step(|| format!("read the flags of {}", at.display()))?
        .f_flag;
    let mut flags = MountFlags::BIND | restrict;
    for (has, keep) in [
        (StatVfsMountFlags::RDONLY, MountFlags::RDONLY),
        (StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
        (StatVfsMountFlags::NOATIME, MountFlags::NOATIME),
        (StatVfsMountFlags::NODIRATIME, MountFlags::NODIRATIME),
        (StatVfsMountFlags::RELATIME, MountFlags::RELATIME),
    ] {
        if current.contains(has) {
            flags |= keep;
        }
    }
    // Without an atime flag the kernel would choose relatime, a change it refuses.
    if !current.intersects(StatVfsMountFlags::NOATIME | StatVfsMountFlags::RELATIME) {
        flags |= MountFlags::STRICTATIME;
    }
    mount_remount(at, flags, "").step(|| format!("remount {} with {restrict:?}", at.display()))
}

/// The mount points of a mountinfo table (its fifth field).
fn mount_points(mountinfo: &[u8]) -> Vec<PathBuf> {
    mountinfo
        .split(|&b| b == b'\n')
        .filter_map(|line| line.split(|&b| b == b' ').nth(4))
        .map(|field| PathBuf::from(OsString::from_vec(unescape(field))))
        .collect()
}

/// Undoes the octal escapes of a mountinfo field (`\040` for a space).
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let octal = field
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match (field[i], octal) {
            (b'\\', Some(digits)) => {
                out.push(
                    digits
                        .iter()
                        .fold(0u8, |n, d| n.wrapping_mul(8).wrapping_add(d - b'0')),
                );
                i += 4;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStrExt;

    use super::*;

    #[test]
    fn mount_points_are_read_escapes_undone() {
        let mountinfo = b"22 1 0:21 / / rw - ext4 /dev/vda rw\n\
            30 22 0:30 / /usr rw - ext4 /dev/vda rw\n\
            31 30 0:31 / /usr/my\\040dir rw - tmpfs tmpfs rw\n\
            32 22 0:32 / /usrx rw - tmpfs tmpfs rw\n";
        assert_eq!(
            mount_points(mountinfo),
            ["/", "/usr", "/usr/my dir", "/usrx"].map(PathBuf::from)
        );
        assert_eq!(unescape(b"a\\134b\\04"), b"a\\b\\04".to_vec());
        assert_eq!(OsStr::from_bytes(&unescape(b"\\011")), OsStr::new("\t"));
    }
}
