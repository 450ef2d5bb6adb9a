//! No capabilities: what root could do before (set-user-ID bits and file capabilities on system
//! files, device nodes, the hostname, network administration), refused, and nothing held even
//! when the command is uid 0.

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Policy};

use crate::support::{Outcome, bash, passed, python, site, trial, without, without_root};
use skills_test_support::skip_if;

pub fn tests() -> Vec<Trial> {
    vec![
        trial("root_no_capability_is_held_inside", no_capabilities),
        trial(
            "root_set_user_id_bits_and_file_capabilities_on_system_files_are_refused",
            system_metadata,
        ),
        trial("root_mknod_makes_no_device", mknod),
        trial("root_sethostname_does_not_reach_the_host", hostname),
        trial("root_cap_net_admin_is_not_held", net_admin),
        trial(
            "root_host_kernel_settings_cannot_be_changed",
            kernel_settings,
        ),
    ]
}

fn no_capabilities() -> Outcome {
    let site = site();
    let run = python(
        &Policy::default(),
        &site.work,
        "import ctypes, os\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         header = (ctypes.c_uint32 * 2)(0x20080522, 0); sets = (ctypes.c_uint32 * 6)()\n\
         libc.capget(header, sets); print('sets', sum(sets))\n\
         print('ambient', sum(libc.prctl(47, 1, cap, 0, 0) for cap in range(41)))\n\
         print('bounding', sum(max(libc.prctl(23, cap, 0, 0, 0), 0) for cap in range(41)))\n\
         print('no_new_privs', libc.prctl(39, 0, 0, 0, 0))\n\
         print('uid', os.getuid())",
    );
    let out = run.ok();
    // Effective, permitted and inheritable sets empty, no ambient capability, no_new_privs.
    for line in ["sets 0", "ambient 0", "no_new_privs 1"] {
        assert!(out.lines().any(|l| l == line), "{line} expected:\n{out}");
    }
    // The bounding set is empty too, unless a caller without CAP_SETPCAP runs the fallback
    // (where `no_new_privs` keeps it from granting anything).
    let fallback_unprivileged = crate::support::default_confinement().level()
        == skills_sandbox::Level::Fallback
        && !crate::support::is_root();
    assert!(
        fallback_unprivileged || out.contains("bounding 0\n"),
        "{out}"
    );
    // The command keeps the caller's uid (0 for root), without root's powers.
    let uid = rustix::process::getuid().as_raw();
    assert!(out.ends_with(&format!("uid {uid}\n")), "{out}");
    passed()
}

/// A system program whose metadata an attacker would change.
const TARGET: &str = "/usr/bin/env";

fn system_metadata() -> Outcome {
    skip_if!(without_root());
    skip_if!(without(Guarantee::NoMetadataChanges));
    let site = site();
    let before = std::fs::metadata(TARGET).unwrap();
    let run = python(
        &Policy::default(),
        &site.work,
        &format!(
            "import os\n\
             attempts = [\n    \
             ('chmod', lambda: os.chmod('{TARGET}', 0o4755)),\n    \
             ('chown', lambda: os.chown('{TARGET}', 1, 1)),\n    \
             ('setcap', lambda: os.setxattr('{TARGET}', 'security.capability', \
             bytes.fromhex('0100000200000000000000000000000000000000'))),\n    \
             ('xattr', lambda: os.setxattr('{TARGET}', 'user.planted', b'x')),\n    \
             ('write', lambda: open('{TARGET}', 'ab')),\n]\n\
             for name, attempt in attempts:\n    \
             try:\n        attempt(); print(name, 'done')\n    \
             except OSError as e: print(name, 'refused', e.errno)"
        ),
    );
    // EROFS: the system folders are read-only mounts, which no capability gets past; before
    // that, the filter refuses a set-user-ID mode (EPERM) and every extended attribute
    // (EOPNOTSUPP), and the command, nobody to the host, may not open root's file (EACCES).
    assert_eq!(
        run.ok(),
        "chmod refused 1\nchown refused 30\nsetcap refused 95\nxattr refused 95\nwrite refused 13\n",
        "{}",
        run.output()
    );
    let after = std::fs::metadata(TARGET).unwrap();
    assert_eq!(before.permissions().mode(), after.permissions().mode());
    assert_eq!((before.uid(), before.gid()), (after.uid(), after.gid()));
    passed()
}

fn mknod() -> Outcome {
    skip_if!(without_root());
    let site = site();
    // `c 1 11` is /dev/kmsg: reading and writing the kernel log.
    let run = bash(
        &Policy::default(),
        &site.work,
        "mknod kmsg c 1 11; echo rc=$?; python3 -c \"import os; os.mknod('null', 0o20666, os.makedev(1, 3))\"; echo rc=$?",
    );
    let out = run.output();
    assert!(out.contains("Operation not permitted"), "{out}");
    assert_eq!(run.stdout, "rc=1\nrc=1\n", "{out}");
    assert!(!site.work.join("kmsg").exists(), "{out}");
    assert!(!site.work.join("null").exists(), "{out}");
    passed()
}

fn hostname() -> Outcome {
    let site = site();
    let host = rustix::system::uname().nodename().to_owned();
    let run = python(
        &Policy::default(),
        &site.work,
        "import socket\n\
         try:\n    socket.sethostname('evil-host'); print('renamed')\n\
         except OSError as e: print('refused', e.errno)\n\
         print(socket.gethostname())",
    );
    let out = run.ok();
    assert!(out.starts_with("refused 1\n"), "{}", run.output());
    assert_eq!(
        rustix::system::uname().nodename(),
        host.as_c_str(),
        "the host's name changed"
    );
    if crate::support::default_confinement().level() == skills_sandbox::Level::Namespaces {
        assert!(out.ends_with("\nsandbox\n"), "{}", run.output());
    }
    passed()
}

fn net_admin() -> Outcome {
    let site = site();
    let run = bash(
        &Policy::default(),
        &site.work,
        "ip link add skills-test0 type dummy; echo rc=$?; ip link set lo down; echo rc=$?; \
         ip link show lo | head -1",
    );
    let out = run.output();
    assert!(out.contains("Operation not permitted"), "{out}");
    assert!(run.stdout.starts_with("rc=2\nrc=2\n"), "{out}");
    if crate::support::default_confinement().holds(Guarantee::NoNetwork) {
        assert!(run.stdout.contains("UP"), "{out}");
    }
    passed()
}

fn kernel_settings() -> Outcome {
    skip_if!(without(Guarantee::NoMetadataChanges));
    let site = site();
    let before = std::fs::read_to_string("/proc/sys/kernel/core_pattern").unwrap();
    // As root (uid 0 is the host's root outside), a writable /proc/sys would let the command set
    // a core_pattern the host runs as root.
    let run = bash(
        &Policy::default(),
        &site.work,
        "echo '|/tmp/evil' > /proc/sys/kernel/core_pattern; echo rc=$?; \
         echo 1 > /proc/sys/vm/drop_caches; echo rc=$?; echo h > /proc/sysrq-trigger; echo rc=$?",
    );
    assert_eq!(run.stdout, "rc=1\nrc=1\nrc=1\n", "{}", run.output());
    assert_eq!(
        std::fs::read_to_string("/proc/sys/kernel/core_pattern").unwrap(),
        before
    );
    passed()
}
