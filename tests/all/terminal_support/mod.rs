//! The example agent on a pseudo-terminal, as a person runs it: the terminal is its controlling
//! terminal (so Ctrl-C typed is a SIGINT, and the line editor and the spinner see a terminal of
//! 50 x 200), what it writes is kept, and a terminal emulator shows what the person would see.

#![allow(dead_code)]

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use skills_test_support::screen::Screen;

/// The emulated terminal's size, also set on the pseudo-terminal.
pub const ROWS: u16 = 50;
pub const COLS: u16 = 200;

/// A pseudo-terminal: the controller side the test reads and types on, and the path of the
/// terminal side a program gets as its stdin, stdout and stderr.
pub fn pseudo_terminal() -> (File, PathBuf) {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
        .expect("open a pseudo-terminal");
    grantpt(&controller).unwrap();
    unlockpt(&controller).unwrap();
    let size = rustix::termios::Winsize {
        ws_row: ROWS,
        ws_col: COLS,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    rustix::termios::tcsetwinsize(&controller, size).unwrap();
    let name = ptsname(&controller, Vec::new()).unwrap();
    let path = PathBuf::from(name.into_string().unwrap());
    (File::from(controller), path)
}

/// `command` with the terminal at `terminal` as its stdin, stdout and stderr.
pub fn attach(command: &mut Command, terminal: &Path) {
    let open = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(terminal)
            .unwrap()
    };
    command.stdin(open()).stdout(open()).stderr(open());
}

/// The example agent in a session of its own whose controlling terminal is the pseudo-terminal
/// (`setsid --ctty`), so that the terminal's Ctrl-C reaches it as a person's would; `None` when
/// `setsid` is not there.
pub fn example_command() -> Option<Command> {
    let found = Command::new("setsid").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipped: `setsid` (util-linux) is needed for a controlling terminal");
        return None;
    }
    let mut command = Command::new("setsid");
    command
        .arg("--ctty")
        .arg(crate::examples::example_binary("agent"));
    Some(command)
}

/// A program running on a pseudo-terminal, and everything it wrote so far.
pub struct Session {
    controller: File,
    seen: Arc<Mutex<Vec<u8>>>,
    child: Child,
}

impl Session {
    /// Starts `command` (from [`example_command`]) on a new pseudo-terminal.
    pub fn start(mut command: Command) -> Session {
        let (controller, terminal) = pseudo_terminal();
        attach(&mut command, &terminal);
        let child = command.spawn().unwrap();
        drop(command);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = controller.try_clone().unwrap();
        let kept = Arc::clone(&seen);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            // The read fails (EIO) once the program has exited and closed the terminal.
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                kept.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        });
        Session {
            controller,
            seen,
            child,
        }
    }

    /// Types `keys` as a person would.
    pub fn type_keys(&mut self, keys: &str) {
        self.controller.write_all(keys.as_bytes()).unwrap();
        self.controller.flush().unwrap();
    }

    /// The bytes written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.seen.lock().unwrap().clone()
    }

    /// What the person sees now.
    pub fn screen(&self) -> Screen {
        Screen::of(&self.bytes(), ROWS, COLS)
    }

    /// Waits (up to 30 s) until the visible text contains `text` `times` times; fails with the
    /// screen otherwise.
    pub fn wait_for(&self, text: &str, times: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let shown = self.screen().text();
            if shown.matches(text).count() >= times {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "waited for {times} x {text:?}; the screen:\n{shown}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits (up to 30 s) until `count` rows show the prompt `>`, with or without a line typed.
    pub fn wait_for_prompts(&self, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.screen();
            let prompts = screen
                .rows
                .iter()
                .filter(|row| *row == ">" || row.starts_with("> "))
                .count();
            if prompts >= count {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "waited for {count} prompts; the screen:\n{}",
                screen.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the program to end (up to 30 s).
    pub fn wait(mut self) -> (ExitStatus, Vec<u8>) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // The last bytes reach the reader after the exit.
                std::thread::sleep(Duration::from_millis(200));
                return (status, self.bytes());
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!(
                    "the program did not end; the screen:\n{}",
                    self.screen().text()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
