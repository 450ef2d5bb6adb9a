//! Processes: a linear chain of 1,200 processes, each in its own session, does not outlive the
//! call (nor the agent); and three `bash` calls of one turn run at once.

use std::time::Duration;

use crate::attacks_example::support::{
    Caller, Site, bash, marker, python, run, running_with, skip,
};

/// Depth of the chain the attack built.
const DEPTH: usize = 1200;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_a_chain_of_1200_sessions_does_not_outlive_the_call() {
    let test = "processes_a_chain_of_1200_sessions_does_not_outlive_the_call";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let marker = marker();
        // Each link forks the next in a session of its own and becomes `sleep MARKER`; the
        // deepest says so in a file, and the first then returns: the command is done, its
        // 1,200 descendants are not.
        let script = format!(
            "import os, time\n\
             depth = 0\n\
             while depth < {DEPTH}:\n    \
             if os.fork():\n        break\n    \
             os.setsid(); depth += 1\n\
             if depth == {DEPTH}: open('deep', 'w').close()\n\
             if depth == 0:\n    \
             while not os.path.exists('deep'): time.sleep(0.05)\n    \
             print('built')\n\
             else: os.execv('/bin/sleep', ['sleep', '{marker}'])"
        );
        let calls = vec![python("chain", &script)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        let left = running_with(&marker);
        // The fallback's sweep stops after a bounded time: make sure nothing stays around
        // after the test, whatever it reports.
        for pid in &left {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .output();
        }
        assert_eq!(run.result("chain"), "built", "{}", caller.label());
        if let Some(reason) = run.without_namespaces() {
            skip(
                test,
                caller,
                &format!("{reason} ({} links left)", left.len()),
            );
            continue;
        }
        // Nothing left when the call returned, and so none after the agent exited.
        assert!(
            left.is_empty(),
            "{}: {} of {DEPTH} links outlived the call",
            caller.label(),
            left.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_three_parallel_half_second_calls_take_well_under_a_second() {
    let test = "processes_three_parallel_half_second_calls_take_well_under_a_second";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let calls = ["a", "b", "c"]
            .map(|id| bash(id, &format!("sleep 0.5; echo {id}")))
            .to_vec();
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        for id in ["a", "b", "c"] {
            assert_eq!(run.result(id), id, "{}", caller.label());
        }
        // From the model's tool calls to the request with their results: the three calls,
        // sandbox and all. One after the other they take 1.5 s.
        let took = run.arrivals[1] - run.arrivals[0];
        if let Some(reason) = run.without_namespaces() {
            // The fallback runs them one at a time.
            assert!(took >= Duration::from_millis(1500), "{took:?}");
            skip(test, caller, &reason);
            continue;
        }
        assert!(
            took < Duration::from_secs(1),
            "{}: three 0.5 s calls took {took:?}",
            caller.label()
        );
    }
}

/// The command's attack on descriptors it might have inherited: list them, write to and read
/// from every one above 2, open the terminal.
const DESCRIPTORS: &str = "import os\n\
    try: print(' '.join(sorted(os.listdir('/proc/self/fd'), key=int)))\n\
    except OSError: print()\n\
    for fd in range(3, 64):\n    \
    try: os.write(fd, b'\\x1b]52;c;cHduZWQ=\\x07 \\xe2\\x9a\\x91 approval \\n'); print('wrote', fd)\n    \
    except OSError: pass\n    \
    try: os.set_blocking(fd, False); print('read', fd, os.read(fd, 64))\n    \
    except OSError: pass\n\
    try: os.open('/dev/tty', os.O_WRONLY); print('opened the terminal')\n\
    except OSError as e: print('terminal', e.errno)";

/// A pseudo-terminal standing for the person's: the side the test reads, and the path of the
/// side a program opens.
struct Terminal {
    controller: std::fs::File,
    path: String,
}

impl Terminal {
    fn open(owner: Option<u32>) -> Terminal {
        use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
        let controller =
            openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC).unwrap();
        grantpt(&controller).unwrap();
        unlockpt(&controller).unwrap();
        let path = ptsname(&controller, Vec::new())
            .unwrap()
            .into_string()
            .unwrap();
        if let Some(uid) = owner {
            std::os::unix::fs::chown(&path, Some(uid), Some(uid)).unwrap();
        }
        rustix::io::ioctl_fionbio(&controller, true).unwrap();
        Terminal {
            controller: std::fs::File::from(controller),
            path,
        }
    }

    /// What reached the terminal and nobody read yet.
    fn pending(&self) -> Vec<u8> {
        use std::io::Read;
        let mut buf = [0u8; 4096];
        match (&self.controller).read(&mut buf) {
            Ok(n) => buf[..n].to_vec(),
            Err(_) => Vec::new(),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_nothing_the_launcher_left_open_reaches_the_command() {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let test = "processes_nothing_the_launcher_left_open_reaches_the_command";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let owner = (caller == Caller::Nobody).then_some(crate::attacks_example::support::NOBODY);
        let file = site.outside.join("file");
        std::fs::write(&file, "OUTSIDE-FILE-9\n").unwrap();
        if let Some(uid) = owner {
            std::os::unix::fs::chown(&file, Some(uid), Some(uid)).unwrap();
        }
        let socket = site.outside.join("launcher.sock");
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o777)).unwrap();
        listener.set_nonblocking(true).unwrap();
        let terminal = Terminal::open(owner);
        // The launcher leaves a connected socket, an outside file, an outside folder and the
        // terminal open at 20 to 23, as the attack found them, then becomes the agent.
        let launcher = format!(
            "import os, socket, sys\n\
             s = socket.socket(socket.AF_UNIX); s.connect({socket:?})\n\
             opened = [s.detach(), os.open({file:?}, os.O_RDWR), \
             os.open({folder:?}, os.O_RDONLY | os.O_DIRECTORY), \
             os.open({tty:?}, os.O_RDWR | os.O_NOCTTY)]\n\
             for fd, at in zip(opened, range(20, 24)):\n    os.dup2(fd, at, inheritable=True)\n\
             os.execv(sys.argv[1], sys.argv[1:])",
            socket = socket.display().to_string(),
            file = file.display().to_string(),
            folder = site.outside.display().to_string(),
            tty = terminal.path,
        );
        let peer = std::sync::Arc::new(std::sync::Mutex::new(None));
        let accepted = std::sync::Arc::clone(&peer);
        let during = move || {
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while std::time::Instant::now() < deadline {
                if let Ok((stream, _)) = listener.accept() {
                    *accepted.lock().unwrap() = Some(stream);
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        let calls = vec![python("fds", DESCRIPTORS)];
        let launch = ["python3", "-c", launcher.as_str()];
        let Some(run) = crate::attacks_example::support::run_launched(
            test, caller, &site, calls, during, &launch,
        )
        .await
        else {
            continue;
        };
        let out = run.result("fds");
        let listed = out.lines().next().unwrap_or_default();
        // The standard streams and the listing's own (the fallback has no /proc to list).
        assert!(
            listed == "0 1 2 3" || listed.is_empty(),
            "{}: {out}",
            caller.label()
        );
        assert!(
            !out.contains("wrote") && !out.contains("read "),
            "{}: {out}",
            caller.label()
        );
        // No controlling terminal: ENXIO.
        assert!(out.ends_with("terminal 6"), "{}: {out}", caller.label());
        // Nothing arrived on the terminal, the socket or in the file.
        assert_eq!(terminal.pending(), b"", "{}", caller.label());
        let mut peer = peer.lock().unwrap().take().expect("the launcher connected");
        peer.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 64];
        match peer.read(&mut buf) {
            Ok(0) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("{}: the socket got {other:?}", caller.label()),
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "OUTSIDE-FILE-9\n");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_the_agents_limits_and_priority_are_out_of_reach() {
    let test = "processes_the_agents_limits_and_priority_are_out_of_reach";
    // The command's parent: the agent in the fallback, the call's own first process with the
    // namespaces (the agent is not in sight).
    let command = "prlimit --pid $PPID --nofile=7:7 2>/dev/null; echo prlimit=$?; \
                   renice -n 19 -p $PPID >/dev/null 2>&1; echo renice=$?; \
                   ionice -c 3 -p $PPID 2>/dev/null; echo ionice=$?; \
                   taskset -p 1 $PPID >/dev/null 2>&1; echo taskset=$?; \
                   renice -n 19 -u $(id -u) >/dev/null 2>&1; echo user=$?; \
                   cat /proc/$PPID/comm 2>/dev/null; echo";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let calls = vec![bash("control", command)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        let out = run.result("control");
        if run.namespaces() {
            assert!(
                out.trim_end().ends_with("sandbox-init"),
                "{}: {out}",
                caller.label()
            );
        } else {
            for refused in ["prlimit", "renice", "ionice", "taskset", "user"] {
                assert!(
                    out.lines().any(|l| l == format!("{refused}=1")),
                    "{} {refused}: {out}",
                    caller.label()
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_four_parallel_calls_hold_one_capped_memory_file_system_each() {
    let test = "processes_four_parallel_calls_hold_one_capped_memory_file_system_each";
    let command = "head -c 1048576 /dev/zero > /tmp/fill && \
                   stat -f -c '%i %b %S %f' /tmp /dev/shm";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let calls = ["a", "b", "c", "d"].map(|id| bash(id, command)).to_vec();
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        if let Some(reason) = run.without_namespaces() {
            // The fallback's TMPDIR is a folder on the host's disk.
            skip(test, caller, &reason);
            continue;
        }
        let mut file_systems = std::collections::BTreeSet::new();
        for id in ["a", "b", "c", "d"] {
            let out = run.result(id);
            let lines: Vec<&str> = out.lines().collect();
            // /tmp and /dev/shm: the same file system, the same free space, the default cap.
            assert_eq!(lines.len(), 2, "{}: {out}", caller.label());
            assert_eq!(lines[0], lines[1], "{}: {out}", caller.label());
            let fields: Vec<u64> = lines[0]
                .split(' ')
                .skip(1)
                .map(|n| n.parse().unwrap())
                .collect();
            assert_eq!(
                fields[0] * fields[1],
                skills_runtime::agent::sandbox::Limits::DEFAULT_TMP_SIZE,
                "{}: {out}",
                caller.label()
            );
            file_systems.insert(lines[0].split(' ').next().unwrap().to_owned());
        }
        assert_eq!(file_systems.len(), 4, "{}", caller.label());
    }
}
