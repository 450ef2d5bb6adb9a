//! Who the command is to the host, and the `/etc/passwd` and `/etc/group` it sees (they name
//! only root, the caller and the overflow id instead of every user of the host).
//!
//! A caller that is not root: its own uid and gid, mapped to themselves in the call's user
//! namespace (so files it creates in the working directory belong to the caller, as they would
//! without a sandbox).
//!
//! A caller that is the host's root: no user namespace is needed to build the sandbox (root
//! may create the others), and the command must not be root to the host's files. The first
//! stage, once it has started the init stage, becomes the overflow user (65534) for good and
//! makes a user namespace of its own in which it is uid 0 ([`become_nobody`]). The init stage
//! builds the sandbox as root, mounts the working directory idmapped through that namespace's
//! id map (root's files are the command's there, and what it creates is root's on disk), and
//! joins it before the command starts ([`join_nobody`]): the command is uid 0 of that
//! namespace, the overflow user to every host file, and owns nothing of root's elsewhere. A
//! second lock on a file of the call's folder tells the init stage when the namespace is ready.

use std::fs::{self, File};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rustix::fs::{FlockOperation, flock};
use rustix::process::{DumpableBehavior, Gid, Pid, Uid, set_dumpable_behavior};
use rustix::thread::{
    LinkNameSpaceType, UnshareFlags, move_into_link_name_space, set_thread_groups,
    set_thread_res_gid, set_thread_res_uid,
};

use crate::stage::{Failure, Step};

/// The id unmapped users and groups show as inside a user namespace, and the one a root
/// caller's command is to the host.
const OVERFLOW_ID: u32 = 65534;

/// The file of the call's folder whose lock the first stage holds until its user namespace is
/// ready (a root caller only).
const NOBODY_LOCK: &str = "nobody";

/// Whether this process is the host's root: uid 0 in the initial user namespace, whose id map
/// is the whole range.
pub(crate) fn is_host_root() -> bool {
    rustix::process::geteuid().is_root()
        && fs::read_to_string("/proc/self/uid_map")
            .is_ok_and(|map| map.split_whitespace().collect::<Vec<_>>() == ["0", "0", "4294967295"])
}

/// The lock the first stage of a root caller holds until its user namespace is ready.
pub(crate) struct NobodyLock {
    _held: File,
}

impl NobodyLock {
    /// Taken before the init stage starts, in the call's folder `dir`.
    pub(crate) fn take(dir: &Path) -> Result<NobodyLock, Failure> {
        let step = || "lock the user namespace's readiness".to_owned();
        let file = File::create(dir.join(NOBODY_LOCK)).step(step)?;
        flock(&file, FlockOperation::LockExclusive).step(step)?;
        Ok(NobodyLock { _held: file })
    }
}

/// Makes this process (the host's root, single-threaded) the overflow user and group for
/// good, without supplementary groups, in a new user namespace where it is uid and gid 0 (the
/// only ids mapped), then releases `lock`. A failure leaves the command root to the host's
/// files, which the init stage reports.
pub(crate) fn become_nobody(lock: NobodyLock) -> Result<(), Failure> {
    let nobody = Uid::from_raw(OVERFLOW_ID);
    let nogroup = Gid::from_raw(OVERFLOW_ID);
    set_thread_groups(&[]).step(|| "drop the supplementary groups".to_owned())?;
    set_thread_res_gid(nogroup, nogroup, nogroup).step(|| "become group 65534".to_owned())?;
    set_thread_res_uid(nobody, nobody, nobody).step(|| "become user 65534".to_owned())?;
    // Changing user made the process non-dumpable, which would keep it from writing its own
    // id maps; nothing of it is worth reading, and it is made non-dumpable again below.
    set_dumpable_behavior(DumpableBehavior::Dumpable)
        .step(|| "make the first stage dumpable".to_owned())?;
    #[expect(deprecated, reason = "safe without CLONE_FILES, which is never passed")]
    rustix::thread::unshare(UnshareFlags::NEWUSER)
        .step(|| "create the command's user namespace".to_owned())?;
    map_ids(Uid::from_raw(0), nobody, Gid::from_raw(0), nogroup)?;
    set_dumpable_behavior(DumpableBehavior::NotDumpable)
        .step(|| "make the first stage non-dumpable".to_owned())?;
    drop(lock);
    Ok(())
}

/// In the init stage of a root caller: waits until the first stage `owner` released its lock
/// in `dir`, and returns its user namespace, or `None` when it could not make one.
pub(crate) fn nobody_namespace(dir: &Path, owner: Pid) -> Result<Option<OwnedFd>, Failure> {
    let file =
        File::open(dir.join(NOBODY_LOCK)).step(|| "open the user namespace's lock".to_owned())?;
    flock(&file, FlockOperation::LockShared)
        .step(|| "wait for the command's user namespace".to_owned())?;
    let theirs = File::open(format!("/proc/{}/ns/user", owner.as_raw_nonzero()))
        .step(|| "open the command's user namespace".to_owned())?;
    let ours =
        fs::metadata("/proc/self/ns/user").step(|| "look at the user namespace".to_owned())?;
    let theirs_meta = theirs
        .metadata()
        .step(|| "look at the command's user namespace".to_owned())?;
    let mapped = fs::read_to_string(format!("/proc/{}/gid_map", owner.as_raw_nonzero()))
        .is_ok_and(|map| !map.trim().is_empty());
    Ok((theirs_meta.ino() != ours.ino() && mapped).then(|| theirs.into()))
}

/// Drops the supplementary groups (while root of the host, before they would be the
/// overflow group), gives the standard streams that are pipes to the overflow user (so that
/// the command may open them again, as `> /dev/stderr` does), joins `userns` and becomes its
/// uid and gid 0: the overflow user to the host. Single-threaded, after every mount.
pub(crate) fn join_nobody(userns: &OwnedFd) -> Result<(), Failure> {
    set_thread_groups(&[]).step(|| "drop the supplementary groups".to_owned())?;
    let (stdin, stdout, stderr) = (std::io::stdin(), std::io::stdout(), std::io::stderr());
    let streams = [stdin.as_fd(), stdout.as_fd(), stderr.as_fd()];
    for (fd, stream) in streams.into_iter().enumerate() {
        // Only a pipe of its own: a FIFO, a file or a terminal belongs to someone on the host.
        let anonymous_pipe = fs::read_link(format!("/proc/self/fd/{fd}"))
            .is_ok_and(|target| target.to_string_lossy().starts_with("pipe:"));
        if anonymous_pipe {
            rustix::fs::fchown(
                stream,
                Some(Uid::from_raw(OVERFLOW_ID)),
                Some(Gid::from_raw(OVERFLOW_ID)),
            )
            .step(|| format!("give the pipe of descriptor {fd} to the command"))?;
        }
    }
    move_into_link_name_space(userns.as_fd(), Some(LinkNameSpaceType::User))
        .step(|| "join the command's user namespace".to_owned())?;
    let root_gid = Gid::from_raw(0);
    let root_uid = Uid::from_raw(0);
    set_thread_res_gid(root_gid, root_gid, root_gid)
        .step(|| "become group 0 of the command's user namespace".to_owned())?;
    set_thread_res_uid(root_uid, root_uid, root_uid)
        .step(|| "become user 0 of the command's user namespace".to_owned())
}

/// Maps `uid` and `gid` (the caller's, from outside) to the same ids inside the user namespace
/// this process just created.
pub(crate) fn map_own_ids(uid: Uid, gid: Gid) -> Result<(), Failure> {
    map_ids(uid, uid, gid, gid)
}

/// Maps `inside_uid` to `uid` (the process's own, from outside) and `inside_gid` to `gid` in
/// the user namespace this process just created. `setgroups` is denied first, as the kernel
/// requires of an unprivileged caller, and so the command cannot drop a group that denies it
/// something.
fn map_ids(inside_uid: Uid, uid: Uid, inside_gid: Gid, gid: Gid) -> Result<(), Failure> {
    fs::write("/proc/self/setgroups", "deny")
        .step(|| "deny setgroups in the user namespace".to_owned())?;
    let (inside, outside) = (inside_uid.as_raw(), uid.as_raw());
    fs::write("/proc/self/uid_map", format!("{inside} {outside} 1\n"))
        .step(|| format!("map uid {outside} into the user namespace"))?;
    let (inside, outside) = (inside_gid.as_raw(), gid.as_raw());
    fs::write("/proc/self/gid_map", format!("{inside} {outside} 1\n"))
        .step(|| format!("map gid {outside} into the user namespace"))?;
    Ok(())
}

/// The `/etc/passwd` and `/etc/group` of the sandbox, from the host's entries for root, the
/// caller's ids and the overflow id (with made-up ones where the host has none).
pub(crate) fn passwd_and_group(
    uid: u32,
    gid: u32,
    host_passwd: &str,
    host_group: &str,
) -> (String, String) {
    let mut uids = vec![0, uid, OVERFLOW_ID];
    uids.sort_unstable();
    uids.dedup();
    let mut gids = vec![0, gid, OVERFLOW_ID];
    gids.sort_unstable();
    gids.dedup();
    let passwd = uids
        .iter()
        .map(|&id| {
            find_entry(host_passwd, id).unwrap_or_else(|| match id {
                0 => "root:x:0:0:root:/root:/bin/sh".to_owned(),
                OVERFLOW_ID => format!("nobody:x:{id}:{id}:nobody:/nonexistent:/usr/sbin/nologin"),
                _ => format!("user:x:{id}:{gid}::/nonexistent:/bin/sh"),
            })
        })
        .map(|line| line + "\n")
        .collect();
    let group = gids
        .iter()
        .map(|&id| {
            // Only the name and id: the host's member lists name other users.
            let name = find_entry(host_group, id)
                .and_then(|line| line.split(':').next().map(str::to_owned))
                .unwrap_or_else(|| match id {
                    0 => "root".to_owned(),
                    OVERFLOW_ID => "nogroup".to_owned(),
                    _ => "user".to_owned(),
                });
            format!("{name}:x:{id}:\n")
        })
        .collect();
    (passwd, group)
}

/// The line of a passwd or group file whose third field is `id`.
fn find_entry(file: &str, id: u32) -> Option<String> {
    let id = id.to_string();
    file.lines()
        .find(|line| line.split(':').nth(2) == Some(id.as_str()))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_root_the_caller_and_nobody_are_named() {
        let host_passwd = "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/zsh\nbob:x:1001:1001::/home/bob:/bin/sh\n";
        let host_group = "root:x:0:\nalice:x:1000:\nwheel:x:10:alice,bob\n";
        let (passwd, group) = passwd_and_group(1000, 1000, host_passwd, host_group);
        assert_eq!(
            passwd,
            "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/zsh\n\
             nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        );
        assert_eq!(group, "root:x:0:\nalice:x:1000:\nnogroup:x:65534:\n");
        let (passwd, _) = passwd_and_group(0, 0, "", "");
        assert_eq!(passwd.lines().count(), 2, "{passwd}");
    }
}
