//! Nothing of the host's local services: a daemon's Unix socket (the stand-in for docker.sock,
//! a D-Bus bus, ssh-agent), the user's keyring, System V and POSIX shared memory of the same
//! user, home folders and `/run`.

use std::io::ErrorKind;
use std::os::unix::net::UnixListener;

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Policy};

use crate::support::{
    Outcome, SECRET, attempt, bash, passed, python, site, trial, unique, without,
};
use skills_test_support::skip_if;

pub fn tests() -> Vec<Trial> {
    vec![
        trial(
            "local_a_unix_socket_outside_the_workdir_is_unreachable",
            unix_socket,
        ),
        trial("local_the_user_keyring_is_out_of_reach", keyring),
        trial(
            "local_sysv_shared_memory_of_the_same_user_is_out_of_reach",
            sysv_shm,
        ),
        trial(
            "local_posix_shared_memory_of_the_host_is_not_there",
            posix_shm,
        ),
        trial(
            "local_home_run_and_other_users_files_are_not_there",
            host_files,
        ),
    ]
}

/// The Python lines that connect to `path` and say what happened.
pub fn connect_script(path: &std::path::Path) -> String {
    attempt(&format!(
        "s = socket.socket(socket.AF_UNIX)\ns.connect({path:?})\nprint('connected')"
    ))
}

fn unix_socket() -> Outcome {
    skip_if!(without(Guarantee::HostHidden));
    let site = site();
    let path = site.outside.join("daemon.sock");
    let listener = UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let run = python(&Policy::default(), &site.work, &connect_script(&path));
    // The path is not in the sandbox's root at all.
    assert_eq!(run.ok().trim(), "refused 2", "{}", run.output());
    match listener.accept() {
        Err(error) if error.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the host's socket was reached: {other:?}"),
    }
    passed()
}

/// Python's `ctypes` calling the C library's `syscall`.
pub const SYSCALL: &str = "import ctypes, os\n\
     libc = ctypes.CDLL(None, use_errno=True)\n\
     libc.syscall.restype = ctypes.c_long\n\
     def call(*args):\n    r = libc.syscall(*args)\n    return r if r >= 0 else -ctypes.get_errno()\n";

/// A key in the caller's user keyring, removed when dropped.
struct Key(i64);

impl Key {
    fn add(description: &str) -> Option<Key> {
        // add_key("user", description, SECRET, len, KEY_SPEC_USER_KEYRING) on the host.
        let script = format!(
            "{SYSCALL}print(call({add_key}, b'user', b'{description}', b'{SECRET}', {len}, ctypes.c_int(-4)))",
            add_key = libc::SYS_add_key,
            len = SECRET.len()
        );
        let out = std::process::Command::new("python3")
            .args(["-c", &script])
            .output()
            .ok()?;
        let id: i64 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
        (id > 0).then_some(Key(id))
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        let script = format!(
            "{SYSCALL}call({keyctl}, 21, {id})",
            keyctl = libc::SYS_keyctl,
            id = self.0
        );
        let _ = std::process::Command::new("python3")
            .args(["-c", &script])
            .output();
    }
}

fn keyring() -> Outcome {
    let site = site();
    let description = unique("skills-sandbox-test-key");
    // Where the host has a keyring the key is planted in it; the attack is the same anyway.
    let key = Key::add(&description);
    let run = python(
        &Policy::default(),
        &site.work,
        &format!(
            "{SYSCALL}\
             print('keyring', call({keyctl}, 0, ctypes.c_int(-4), 0))\n\
             print('search', call({keyctl}, 10, ctypes.c_int(-4), b'user', b'{description}', 0))\n\
             buf = ctypes.create_string_buffer(256)\n\
             print('read', call({keyctl}, 11, {id}, buf, 256), buf.value)",
            keyctl = libc::SYS_keyctl,
            id = key.as_ref().map_or(1, |k| k.0),
        ),
    );
    let out = run.ok();
    assert_eq!(
        out,
        "keyring -1\nsearch -1\nread -1 b''\n",
        "{}",
        run.output()
    );
    assert!(!run.output().contains(SECRET));
    drop(key);
    passed()
}

fn sysv_shm() -> Outcome {
    skip_if!(without(Guarantee::PrivateIpc));
    let site = site();
    let key = (std::process::id() & 0x7fff_ffff) as i64 | 0x5000_0000;
    // A segment of the host's, of the same user, holding a secret.
    let plant = format!(
        "{SYSCALL}\
         sid = call({shmget}, {key}, 4096, 0o1600)\n\
         addr = ctypes.c_void_p(libc.syscall({shmat}, sid, 0, 0))\n\
         ctypes.memmove(addr, b'{SECRET}', {len})\n\
         print(sid)",
        shmget = libc::SYS_shmget,
        shmat = libc::SYS_shmat,
        len = SECRET.len()
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &plant])
        .output()
        .unwrap();
    let id: i64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("a segment id");
    assert!(
        id >= 0,
        "the host could not make a segment: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = python(
        &Policy::default(),
        &site.work,
        &format!(
            "{SYSCALL}\
             print('get', call({shmget}, {key}, 0, 0))\n\
             print('attach', call({shmat}, {id}, 0, 0o10000))",
            shmget = libc::SYS_shmget,
            shmat = libc::SYS_shmat,
        ),
    );
    let remove = format!(
        "{SYSCALL}call({shmctl}, {id}, 0, 0)",
        shmctl = libc::SYS_shmctl
    );
    let _ = std::process::Command::new("python3")
        .args(["-c", &remove])
        .output();
    // ENOENT and EINVAL: the sandbox's IPC namespace has no such segment (EPERM: the
    // fallback's filter refuses System V IPC).
    let expected = match crate::support::default_confinement().level() {
        skills_sandbox::Level::Namespaces => "get -2\nattach -22\n",
        _ => "get -1\nattach -1\n",
    };
    assert_eq!(run.ok(), expected, "{}", run.output());
    let listing = bash(&Policy::default(), &site.work, "ipcs -m");
    assert!(
        !listing.output().contains(&format!("{key:#010x}")),
        "{}",
        listing.output()
    );
    passed()
}

fn posix_shm() -> Outcome {
    skip_if!(without(Guarantee::PrivateIpc));
    let site = site();
    let name = unique("skills-sandbox-test-shm");
    let host = std::path::Path::new("/dev/shm").join(&name);
    if std::fs::write(&host, SECRET).is_err() {
        return crate::support::skipped("the host has no /dev/shm to plant a segment in");
    }
    let run = bash(
        &Policy::default(),
        &site.work,
        &format!("cat /dev/shm/{name}; ls /dev/shm | wc -l"),
    );
    let _ = std::fs::remove_file(&host);
    assert!(!run.output().contains(SECRET), "{}", run.output());
    assert!(run.stdout.ends_with("0\n"), "{}", run.output());
    passed()
}

fn host_files() -> Outcome {
    skip_if!(without(Guarantee::HostHidden));
    let site = site();
    let run = bash(
        &Policy::default(),
        &site.work,
        &format!(
            "for p in /home /root /run /var/run /var /etc/shadow /sys {outside}/secret; do \
             if [ -e $p ]; then echo \"present $p\"; fi; done; cat /etc/passwd | cut -d: -f3",
            outside = site.outside.display()
        ),
    );
    let out = run.ok();
    assert!(!out.contains("present"), "{}", run.output());
    let uid = std::fs::metadata(&site.work)
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .unwrap();
    let mut ids: Vec<&str> = out.lines().collect();
    ids.sort();
    let mut expected = vec!["0".to_owned(), uid.to_string(), "65534".to_owned()];
    expected.sort();
    expected.dedup();
    assert_eq!(ids, expected, "/etc/passwd names other users:\n{out}");
    passed()
}
