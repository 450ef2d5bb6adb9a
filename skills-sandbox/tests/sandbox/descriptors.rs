//! Nothing inherited: a caller started with descriptors left open (a connected socket, a file
//! outside the working directory, a folder outside it and a terminal), as a careless launcher
//! leaves them, gives none of them to the command; its input is `/dev/null` unless the caller
//! sets it, and it has no controlling terminal.

use std::io::{ErrorKind, Read};
use std::os::unix::net::UnixListener;
use std::process::Stdio;

use libtest_mimic::Trial;
use skills_sandbox::{Policy, Prepared};

use crate::support::{Outcome, PATH, SECRET, passed, site, skipped, trial};

pub fn tests() -> Vec<Trial> {
    vec![
        trial(
            "descriptors_a_socket_file_folder_and_terminal_left_open_do_not_reach_the_command",
            leaked,
        ),
        trial("descriptors_input_is_dev_null_and_no_terminal", input),
    ]
}

/// The numbers the launcher leaves the descriptors at, as a hostile review found them.
const LEAKED: [u32; 4] = [20, 21, 22, 23];

/// What the command tries with every descriptor above 2: list them, write to each, read from
/// each; then the terminal. (Python, which holds no descriptor of its own, where a shell keeps
/// copies of its streams above 9 while it redirects them.)
const ATTACK: &str = "import os\n\
     try: print(' '.join(sorted(os.listdir('/proc/self/fd'), key=int)))\n\
     except OSError: print()\n\
     for fd in range(3, 64):\n    \
     try: os.write(fd, b'pwned\\n'); print('wrote', fd)\n    \
     except OSError: pass\n    \
     try: os.set_blocking(fd, False); print('read', fd, os.read(fd, 64))\n    \
     except OSError: pass\n\
     try: os.open('/dev/tty', os.O_WRONLY); print('opened the terminal')\n\
     except OSError as e: print('terminal', e.errno)\n\
     print('end')";

fn leaked() -> Outcome {
    let site = site();
    std::fs::write(site.outside.join("file"), format!("{SECRET}\n")).unwrap();
    let socket_path = site.outside.join("launcher.sock");
    let listener = UnixListener::bind(&socket_path).unwrap();
    // The person's terminal: a pseudo-terminal whose other side the test reads.
    let Ok(terminal) = Terminal::open() else {
        return skipped("this machine gives no pseudo-terminal");
    };
    for policy in [Policy::default(), Policy::fallback()] {
        let Prepared { command, call } = policy
            .prepare(&site.work, "python3", ["-c", ATTACK])
            .expect("prepared");
        // The launcher: opens the four at the numbers without close-on-exec, then becomes
        // the prepared command (its program, name and environment).
        let launcher = format!(
            "import os, socket, sys\n\
             s = socket.socket(socket.AF_UNIX); s.connect({socket:?})\n\
             opened = [s.detach(), os.open({file:?}, os.O_RDWR), \
             os.open({folder:?}, os.O_RDONLY | os.O_DIRECTORY), \
             os.open({tty:?}, os.O_RDWR | os.O_NOCTTY)]\n\
             for fd, at in zip(opened, {LEAKED:?}):\n    os.dup2(fd, at, inheritable=True)\n\
             os.execve(sys.argv[1], ['skills-sandbox'], os.environ)",
            socket = socket_path.display().to_string(),
            file = site.outside.join("file").display().to_string(),
            folder = site.outside.display().to_string(),
            tty = terminal.path,
        );
        // The prepared program is `/proc/self/exe`: this binary, named from the launcher.
        assert_eq!(command.get_program(), "/proc/self/exe");
        let mut launch = std::process::Command::new("python3");
        launch
            .args(["-c", &launcher])
            .arg(std::env::current_exe().unwrap())
            .env_clear()
            .envs(
                command
                    .get_envs()
                    .filter_map(|(name, value)| Some((name, value?))),
            )
            .env("PATH", PATH)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = launch.spawn().expect("python3 runs");
        let (mut peer, _) = listener.accept().expect("the launcher connects");
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let finished = call.finish(out.status).expect("the sandbox works");
        assert!(finished.status.success(), "{stdout}");
        // Only the standard streams (and `ls`'s own listing) are open in the command (the
        // fallback has no `/proc` to list).
        let listed = stdout.lines().next().unwrap_or_default();
        assert!(listed == "0 1 2 3" || listed.is_empty(), "{stdout}");
        assert!(
            !stdout.contains("wrote") && !stdout.contains("read "),
            "{stdout}"
        );
        // No controlling terminal: ENXIO.
        assert!(stdout.ends_with("terminal 6\nend\n"), "{stdout}");
        // Nothing reached the socket's other side, the terminal or the file.
        peer.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 64];
        match peer.read(&mut buf) {
            Ok(0) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("the socket got {other:?}: {:?}", &buf[..8]),
        }
        assert_eq!(terminal.pending(), "", "the terminal got output");
        assert_eq!(
            std::fs::read_to_string(site.outside.join("file")).unwrap(),
            format!("{SECRET}\n")
        );
    }
    passed()
}

/// A pseudo-terminal: its other side, and the path of the side a program opens.
struct Terminal {
    controller: std::fs::File,
    path: String,
}

impl Terminal {
    fn open() -> std::io::Result<Terminal> {
        use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
        let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
        grantpt(&controller)?;
        unlockpt(&controller)?;
        let path = ptsname(&controller, Vec::new())?
            .into_string()
            .map_err(|_| std::io::Error::other("a path that is not UTF-8"))?;
        rustix::io::ioctl_fionbio(&controller, true)?;
        Ok(Terminal {
            controller: std::fs::File::from(controller),
            path,
        })
    }

    /// What a program wrote to the terminal and nobody read yet.
    fn pending(&self) -> String {
        let mut buf = [0u8; 4096];
        match (&self.controller).read(&mut buf) {
            Ok(n) => String::from_utf8_lossy(&buf[..n]).into_owned(),
            // Nothing written (EAGAIN), or no program holds the terminal any more (EIO).
            Err(_) => String::new(),
        }
    }
}

fn input() -> Outcome {
    let site = site();
    for policy in [Policy::default(), Policy::fallback()] {
        let Prepared { mut command, call } = policy
            .prepare(
                &site.work,
                "bash",
                [
                    "-c",
                    "read -r line; echo \"read=$? $line\"; cat /dev/tty 2>&1 | head -c 60",
                ],
            )
            .expect("prepared");
        // The caller sets the output only: its own input (a terminal, say) is not passed on.
        let out = command
            .env("PATH", PATH)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        call.finish(out.status).expect("the sandbox works");
        // End of input at once: `/dev/null`.
        assert!(text.starts_with("read=1 \n"), "{text}");
        assert!(text.contains("No such device or address"), "{text}");
    }
    passed()
}
