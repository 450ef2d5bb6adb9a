//! The system call filter: each refused call tried from Python (x86-64 numbers), with controls
//! that must still work, so that a filter refusing everything would fail too.

use libtest_mimic::Trial;
use skills_sandbox::Policy;

use crate::local_services::SYSCALL;
use crate::support::{Outcome, passed, python, site, skipped, trial};

pub fn tests() -> Vec<Trial> {
    vec![
        trial("syscalls_what_no_shell_needs_is_refused", by_default),
        trial(
            "syscalls_the_fallback_refuses_the_same_and_the_network",
            in_the_fallback,
        ),
    ]
}

/// `(name, Python arguments of syscall)`; the results are printed as `name result`.
const ATTEMPTS: &[(&str, &str)] = &[
    ("keyctl", "250, 0, ctypes.c_int(-4), 0"),
    ("add_key", "248, b'user', b'k', b'v', 1, ctypes.c_int(-4)"),
    ("request_key", "249, b'user', b'k', None, 0"),
    ("ptrace", "101, 0, 0, 0, 0"),
    ("process_vm_readv", "310, 1, 0, 0, 0, 0, 0"),
    ("bpf", "321, 0, 0, 0"),
    ("perf_event_open", "298, 0, 0, -1, -1, 0"),
    ("userfaultfd", "323, 0"),
    ("io_uring_setup", "425, 1, 0"),
    ("init_module", "175, 0, 0, b''"),
    ("finit_module", "313, 0, b'', 0"),
    ("delete_module", "176, b'x', 0"),
    ("kexec_load", "246, 0, 0, 0, 0"),
    ("mount", "165, b'none', b'/tmp', b'tmpfs', 0, 0"),
    ("umount2", "166, b'/tmp', 2"),
    ("pivot_root", "155, b'/tmp', b'/tmp'"),
    ("open_tree", "428, -100, b'/tmp', 1"),
    ("fsopen", "430, b'tmpfs', 0"),
    ("move_mount", "429, -100, b'/tmp', -100, b'/tmp', 0"),
    ("mount_setattr", "442, -100, b'/tmp', 0, 0, 0"),
    ("chroot", "161, b'/'"),
    ("open_by_handle_at", "304, -100, 0, 0"),
    ("unshare_user", "272, 0x10000000"),
    ("unshare_nothing", "272, 0"),
    ("setns", "308, 0, 0"),
    ("clone_newuser", "56, 0x10000000 | 17, 0, 0, 0, 0"),
    ("clone_newns", "56, 0x00020000 | 17, 0, 0, 0, 0"),
    ("clone3", "435, 0, 0"),
    // keyctl in the x32 convention (bit 30 set), which rules naming x86-64 numbers would miss.
    ("x32_keyctl", "0x40000000 | 250, 0, ctypes.c_int(-4), 0"),
    ("socket_netlink_audit", "41, 16, 3, 9"),
    ("socket_packet", "41, 17, 3, 0"),
    ("socket_vsock", "41, 40, 1, 0"),
    ("socket_alg", "41, 38, 5, 0"),
    ("socket_sctp", "41, 2, 1, 132"),
    ("socket_mptcp", "41, 2, 1, 262"),
    ("tiocsti", "16, 0, 0x5412, b'x'"),
];

/// Calls that must work: the same kinds of socket and process a shell uses.
const CONTROLS: &[(&str, &str)] = &[
    ("socket_unix", "41, 1, 1, 0"),
    ("socket_netlink_route", "41, 16, 3, 0"),
    ("socket_inet", "41, 2, 1, 0"),
    ("socket_inet6", "41, 10, 2, 0"),
];

fn script() -> String {
    let mut script = SYSCALL.to_owned();
    for (name, args) in ATTEMPTS.iter().chain(CONTROLS) {
        script.push_str(&format!("print('{name}', call({args}))\n"));
    }
    // A plain fork (clone without namespace flags) works.
    script.push_str(
        "pid = os.fork()\nif pid == 0: os._exit(0)\nos.waitpid(pid, 0); print('fork ok')\n",
    );
    script
}

/// Runs the attempts under `policy`; `inet_refused` says whether IPv4 and IPv6 sockets are.
fn attempt(policy: &Policy, inet_refused: bool) -> Outcome {
    if !cfg!(target_arch = "x86_64") {
        return skipped("the attempts use x86-64 system call numbers");
    }
    let site = site();
    let run = python(policy, &site.work, &script());
    let out = run.ok();
    let results: Vec<(&str, i64)> = out
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter_map(|(name, result)| Some((name, result.parse().ok()?)))
        .collect();
    for (name, _) in ATTEMPTS {
        let result = results.iter().find(|(n, _)| n == name).map(|(_, r)| *r);
        // ENOSYS for clone3, so that the C library falls back to clone, and for the x32
        // convention; EPERM for the rest.
        let refused = if ["clone3", "x32_keyctl"].contains(name) {
            -38
        } else {
            -1
        };
        assert_eq!(result, Some(refused), "{name}:\n{}", run.output());
    }
    for (name, _) in CONTROLS {
        let result = results.iter().find(|(n, _)| n == name).map(|(_, r)| *r);
        let inet = name.starts_with("socket_inet");
        if inet && inet_refused {
            assert_eq!(result, Some(-1), "{name}:\n{}", run.output());
        } else {
            assert!(
                result.is_some_and(|fd| fd >= 0),
                "{name} should work:\n{}",
                run.output()
            );
        }
    }
    assert!(out.ends_with("fork ok\n"), "{}", run.output());
    passed()
}

fn by_default() -> Outcome {
    // Where the kernel refuses namespaces the default is the fallback, which has no network.
    let fallback = crate::support::default_confinement().level() == skills_sandbox::Level::Fallback;
    attempt(&Policy::default(), fallback)
}

fn in_the_fallback() -> Outcome {
    attempt(&Policy::fallback(), true)
}
