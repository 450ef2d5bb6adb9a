//! Local services: a Unix socket at a path outside the working directory (the stand-in for
//! `docker.sock`, a D-Bus session bus, `ssh-agent`), the caller's kernel keyring and System V
//! shared memory of the same user, each tried from inside and out of reach.

use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;

use crate::attacks_example::support::{Caller, Site, attempt, host_python, python, run, skip};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_a_unix_socket_outside_the_workdir_is_unreachable() {
    let test = "local_a_unix_socket_outside_the_workdir_is_unreachable";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let path = site.outside.join("daemon.sock");
        let listener = UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        // Anyone may connect on the host: only the sandbox stands in the way.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        let script = attempt(&format!(
            "s = socket.socket(socket.AF_UNIX)\ns.connect('{}')\nprint('connected')",
            path.display()
        ));
        let calls = vec![python("unix", &script)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        if let Some(reason) = run.without_namespaces() {
            // Landlock does not cover `connect` to a socket file.
            skip(test, caller, &reason);
            continue;
        }
        // The path does not exist in the sandbox's root.
        assert_eq!(run.result("unix"), "refused 2", "{}", caller.label());
        match listener.accept() {
            Err(error) if error.kind() == ErrorKind::WouldBlock => {}
            other => panic!(
                "{}: the host's socket was reached: {other:?}",
                caller.label()
            ),
        }
    }
}

/// The system call numbers of `add_key` and `keyctl` on this architecture.
fn key_syscalls() -> Option<(u32, u32)> {
    match std::env::consts::ARCH {
        "x86_64" => Some((248, 250)),
        "aarch64" | "riscv64" => Some((217, 219)),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_the_callers_keyring_is_out_of_reach() {
    let test = "local_the_callers_keyring_is_out_of_reach";
    let Some((add_key, keyctl)) = key_syscalls() else {
        skip(
            test,
            Caller::Me,
            "no system call numbers for this architecture",
        );
        return;
    };
    for caller in Caller::ALL {
        let site = Site::new(caller);
        // A secret in the caller's user keyring (KEY_SPEC_USER_KEYRING), put there outside.
        let secret = "KEYRING-SECRET-77";
        let add = format!(
            "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n\
             print(libc.syscall({add_key}, b'user', b'skills-attack', b'{secret}', {}, -4))",
            secret.len()
        );
        let key: i64 = if caller == Caller::NamespacesRefused {
            // The user namespace has keyrings of its own: only the filter is tried.
            -1
        } else {
            host_python(caller, &add).parse().unwrap()
        };
        // KEYCTL_GET_KEYRING_ID of the user keyring, then KEYCTL_READ of the key.
        let script = format!(
            "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n\
             buf = ctypes.create_string_buffer(256)\n\
             for args in ((0, -4, 0), (11, {key}, buf, 256)):\n    \
             r = libc.syscall({keyctl}, *args)\n    \
             print('refused', ctypes.get_errno()) if r < 0 else print('got', r, buf.value)"
        );
        let calls = vec![python("keys", &script)];
        let ran = run(test, caller, &site, calls, || {}).await;
        if key > 0 {
            // KEYCTL_UNLINK from the user keyring.
            host_python(
                caller,
                &format!("import ctypes\nctypes.CDLL(None).syscall({keyctl}, 9, {key}, -4)"),
            );
        }
        let Some(run) = ran else {
            continue;
        };
        let out = run.result("keys");
        // EPERM from the filter, for both.
        assert_eq!(out, "refused 1\nrefused 1", "{}", caller.label());
        assert!(!out.contains(secret));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_system_v_shared_memory_of_the_caller_is_out_of_reach() {
    let test = "local_system_v_shared_memory_of_the_caller_is_out_of_reach";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let key = 0x5f00_0000 + i64::from(nanos & 0xff_ffff);
        let secret = "SHM-SECRET-31";
        // A segment of the caller's, holding the secret (IPC_CREAT | 0600).
        let create = format!(
            "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n\
             libc.shmat.restype = ctypes.c_void_p\n\
             id = libc.shmget({key}, 4096, 0o1600)\n\
             addr = libc.shmat(id, None, 0)\n\
             ctypes.memmove(addr, b'{secret}', {})\nprint(id)",
            secret.len()
        );
        let id: i64 = host_python(caller, &create).parse().unwrap();
        assert!(id >= 0, "the host could not make the segment");
        let script = format!(
            "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n\
             libc.shmat.restype = ctypes.c_void_p\n\
             for id in (libc.shmget({key}, 0, 0), {id}):\n    \
             if id < 0: print('refused', ctypes.get_errno()); continue\n    \
             addr = libc.shmat(id, None, 0)\n    \
             print('refused', ctypes.get_errno()) if addr in (None, 2**64 - 1) else \
             print('got', ctypes.string_at(addr, 20))"
        );
        let calls = vec![python("shm", &script)];
        let ran = run(test, caller, &site, calls, || {}).await;
        let _ = std::process::Command::new("ipcrm")
            .args(["-m", &id.to_string()])
            .output();
        let Some(run) = ran else {
            continue;
        };
        let out = run.result("shm");
        assert!(!out.contains(secret), "{}: {out}", caller.label());
        let lines: Vec<&str> = out.lines().collect();
        // A private IPC namespace has no such key or id (ENOENT, EINVAL); the fallback's
        // filter refuses System V IPC (EPERM).
        assert_eq!(lines.len(), 2, "{out}");
        for line in lines {
            assert!(
                ["refused 2", "refused 22", "refused 1"].contains(&line),
                "{}: {out}",
                caller.label()
            );
        }
    }
}
