//! Who the command is inside the user namespace: the caller's own uid and gid, mapped to
//! themselves (so files it creates in the working directory belong to the caller, as they
//! would without a sandbox), and the `/etc/passwd` and `/etc/group` it sees, which name only
//! root, the caller and the overflow id instead of every user of the host.

use std::fs;

use rustix::process::{Gid, Uid};

use crate::stage::{Failure, Step};

/// The id unmapped users and groups show as inside a user namespace.
const OVERFLOW_ID: u32 = 65534;

/// Maps `uid` and `gid` (the caller's, from outside) to the same ids inside the user namespace
/// this process just created. `setgroups` is denied first, as the kernel requires of an
/// unprivileged caller, and so the command cannot drop a group that denies it something.
pub(crate) fn map_ids(uid: Uid, gid: Gid) -> Result<(), Failure> {
    fs::write("/proc/self/setgroups", "deny")
        .step(|| "deny setgroups in the user namespace".to_owned())?;
    let uid = uid.as_raw();
    fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))
        .step(|| format!("map uid {uid} into the user namespace"))?;
    let gid = gid.as_raw();
    fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
        .step(|| format!("map gid {gid} into the user namespace"))?;
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
