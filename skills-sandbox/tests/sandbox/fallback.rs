//! The fallback: forced with [`Mode::Fallback`], and chosen by the kernel where it refuses user
//! namespaces (a nested user namespace allowed none, so this runs on any kernel that allows
//! one). What it keeps is attacked as with namespaces; what it reports lost is shown lost.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Level, Mode, Policy, SandboxError};

use crate::local_services::{SYSCALL, connect_script};
use crate::support::{
    Outcome, SECRET, bash, namespaces_refused_here, passed, python,
    rerun_where_namespaces_are_refused, site, skipped, trial,
};

pub fn tests() -> Vec<Trial> {
    vec![
        trial("fallback_confines_files_network_and_ipc", keeps),
        trial("fallback_reports_what_it_loses_and_it_is_lost", loses),
        trial(
            "fallback_limits_and_priority_of_other_processes_cannot_be_changed",
            process_control,
        ),
        trial(REFUSED_TEST, kernel_refuses_namespaces),
    ]
}

fn keeps() -> Outcome {
    let confinement = Policy::fallback().probe().unwrap().unwrap();
    assert_eq!(confinement.level(), Level::Fallback);
    if !confinement.holds(Guarantee::FilesConfined) {
        return skipped(format!(
            "this kernel's Landlock enforces nothing: {confinement}"
        ));
    }
    let site = site();
    let policy = Policy::fallback();
    let files = bash(
        &policy,
        &site.work,
        &format!(
            "echo ok > mine && cat mine; cat /etc/passwd ../outside/secret {}/secret; \
             echo x > /usr/planted; echo t > $TMPDIR/t && cat $TMPDIR/t",
            site.outside.display()
        ),
    );
    assert!(files.stdout.starts_with("ok\n"), "{}", files.output());
    assert!(files.stdout.ends_with("t\n"), "{}", files.output());
    assert!(
        !files.output().contains(SECRET) && !files.output().contains("root:"),
        "{}",
        files.output()
    );
    assert!(
        files.output().contains("Permission denied"),
        "{}",
        files.output()
    );

    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let network = python(
        &policy,
        &site.work,
        &format!(
            "import socket\n\
             for kind, addr in ((socket.SOCK_STREAM, {tcp}), (socket.SOCK_DGRAM, {udp})):\n    \
             try:\n        s = socket.socket(socket.AF_INET, kind); s.connect(('127.0.0.1', addr)); \
             s.send(b'x'); print('sent')\n    \
             except OSError as e: print('refused', e.errno)",
            tcp = tcp.local_addr().unwrap().port(),
            udp = udp.local_addr().unwrap().port()
        ),
    );
    assert_eq!(
        network.ok(),
        "refused 1\nrefused 1\n",
        "{}",
        network.output()
    );
    assert_eq!(
        tcp.accept().map(drop).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock)
    );
    let mut buf = [0u8; 8];
    assert_eq!(
        udp.recv(&mut buf).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock)
    );

    // No System V IPC, no keyring, no capabilities.
    let ipc = python(
        &policy,
        &site.work,
        &format!(
            "{SYSCALL}\
             print(call({shmget}, 0, 4096, 0o1600), call({keyctl}, 0, ctypes.c_int(-4), 0))\n\
             header = (ctypes.c_uint32 * 2)(0x20080522, 0); data = (ctypes.c_uint32 * 6)()\n\
             call({capget}, header, data); print(list(data))",
            shmget = libc::SYS_shmget,
            keyctl = libc::SYS_keyctl,
            capget = libc::SYS_capget
        ),
    );
    assert_eq!(ipc.ok(), "-1 -1\n[0, 0, 0, 0, 0, 0]\n", "{}", ipc.output());
    passed()
}

fn loses() -> Outcome {
    let confinement = Policy::fallback().probe().unwrap().unwrap();
    let lost = confinement.lost();
    for guarantee in [
        Guarantee::NoMetadataChanges,
        Guarantee::HostHidden,
        Guarantee::ProcessCleanup,
        Guarantee::PrivateTmp,
        Guarantee::VcsReadOnly,
        Guarantee::ProcessLimit,
    ] {
        assert!(
            lost.contains(&guarantee),
            "{guarantee:?} not reported lost: {confinement}"
        );
    }
    let site = site();
    // A host daemon's socket outside the working directory: reachable without namespaces.
    let path = site.outside.join("daemon.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let reached = python(&Policy::fallback(), &site.work, &connect_script(&path));
    assert!(
        reached.ok().starts_with("connected"),
        "{}",
        reached.output()
    );
    drop(listener);
    // Version control metadata: writable.
    std::fs::create_dir(site.work.join(".git")).unwrap();
    bash(
        &Policy::fallback(),
        &site.work,
        "echo planted > .git/config",
    )
    .ok();
    assert_eq!(
        std::fs::read_to_string(site.work.join(".git/config")).unwrap(),
        "planted\n"
    );
    // As root, root's files: readable (the command is root to them).
    if let Some(secret) = Planted::new("/usr/local").filter(|_| crate::support::is_root()) {
        let read = bash(
            &Policy::fallback(),
            &site.work,
            &format!("cat {}", secret.0.display()),
        );
        assert_eq!(read.ok(), SECRET, "{}", read.output());
        assert!(lost.contains(&Guarantee::NobodyToHost), "{confinement}");
    }
    // A process in a new session: outlives the call.
    let run = bash(
        &Policy::fallback(),
        &site.work,
        "setsid sleep 1000 > /dev/null 2>&1 & echo $!",
    );
    let pid: u32 = run.ok().trim().parse().unwrap();
    let survived = crate::support::alive(pid);
    let _ = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status();
    assert!(survived, "the fallback's report says it loses this");
    passed()
}

/// A root-only file planted in a host folder, removed when dropped.
struct Planted(std::path::PathBuf);

impl Planted {
    /// `None` where the tests may not write there (`nobody`, even as uid 0 of a namespace).
    fn new(folder: &str) -> Option<Planted> {
        use std::os::unix::fs::PermissionsExt;
        let path = std::path::Path::new(folder).join(crate::support::unique("skills-planted"));
        std::fs::write(&path, SECRET).ok()?;
        let planted = Planted(path);
        std::fs::set_permissions(&planted.0, std::fs::Permissions::from_mode(0o600)).ok()?;
        Some(planted)
    }
}

impl Drop for Planted {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A victim of the caller's user: another process (the agent, in the attack), whose resource
/// limits, priority, I/O priority and CPU affinity the command tries to change by its process
/// id, with `prlimit`, `renice`, `ionice` and `taskset` and the system calls under them; each
/// is refused (the filter, or a PID namespace where the victim is not there), and the victim
/// is unchanged. The same calls on the command itself work.
fn process_control() -> Outcome {
    let mut victim = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let pid = victim.id();
    let before = observe(pid);
    let site = site();
    let attack = format!(
        "prlimit --pid {pid} --nofile=7:7 2>/dev/null; echo prlimit=$?; \
         renice -n 19 -p {pid} >/dev/null 2>&1; echo renice=$?; \
         ionice -c 3 -p {pid} 2>/dev/null; echo ionice=$?; \
         taskset -p 1 {pid} >/dev/null 2>&1; echo taskset=$?; \
         ulimit -n 100; echo own_limit=$?; renice -n 5 -p $$ >/dev/null; echo own_nice=$?; \
         nice -n 3 true; echo child_nice=$?; \
         renice -n 19 -u $(id -u) >/dev/null 2>&1; echo user=$?"
    );
    for policy in [Policy::default(), Policy::fallback()] {
        let run = bash(&policy, &site.work, &attack);
        let out = run.ok();
        for refused in ["prlimit", "renice", "ionice", "taskset"] {
            assert!(
                !out.contains(&format!("{refused}=0\n")),
                "{refused} reached the victim:\n{out}"
            );
        }
        // Every process of the user: in the fallback the agent's among them, so refused; with
        // the namespaces, only the call's own.
        let level = run.finished.as_ref().unwrap().confinement.level();
        if level == Level::Fallback {
            assert!(!out.contains("user=0"), "{out}");
        }
        assert!(
            out.contains("own_limit=0\nown_nice=0\nchild_nice=0\n"),
            "{out}"
        );
        assert_eq!(observe(pid), before, "the victim changed:\n{out}");
    }
    victim.kill().unwrap();
    victim.wait().unwrap();
    passed()
}

/// A process's open-files limit, nice value and CPU affinity, as `/proc` shows them.
fn observe(pid: u32) -> (String, String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let nofile = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap_or_default()
        .to_owned();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let nice = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(16))
        .unwrap_or_default()
        .to_owned();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let cpus = status
        .lines()
        .find(|l| l.starts_with("Cpus_allowed_list"))
        .unwrap_or_default()
        .to_owned();
    (nofile, nice, cpus)
}

/// The test that runs inside a user namespace allowing no further one.
const REFUSED_TEST: &str =
    "fallback_where_the_kernel_refuses_namespaces_preferred_falls_back_and_required_refuses";

fn kernel_refuses_namespaces() -> Outcome {
    if !namespaces_refused_here() {
        return match rerun_where_namespaces_are_refused(&["--exact", REFUSED_TEST]) {
            Ok(text) => {
                assert!(text.contains("1 passed"), "{text}");
                passed()
            }
            Err(skip) => skip,
        };
    }
    // `unshare` would fail here: the probe says so, Preferred falls back, Required refuses.
    let confinement = Policy::default().probe().unwrap().unwrap();
    assert_eq!(confinement.level(), Level::Fallback, "{confinement}");
    let reason = confinement.fallback_reason().expect("a reason");
    assert!(reason.contains("namespaces"), "{reason}");
    let site = site();
    let run = bash(&Policy::default(), &site.work, "echo still runs");
    assert_eq!(run.ok(), "still runs\n");
    assert_eq!(
        run.finished.as_ref().unwrap().confinement.level(),
        Level::Fallback
    );
    for result in [
        Policy::required().probe().map(drop),
        Policy::required()
            .prepare(&site.work, "true", [""; 0])
            .map(drop),
    ] {
        match result {
            Err(error @ SandboxError::Unavailable { .. }) => {
                assert!(error.is_unavailable());
                assert!(error.to_string().contains("refuses"), "{error}");
            }
            other => panic!("{:?}: {other:?}", Mode::Required),
        }
    }
    passed()
}
