//! Approvals on the terminal: `y` runs the call, `n` (or anything else) refuses it, `a` runs it
//! and every call like it for the rest of the session (that tool, or for `bash` the commands
//! starting with its program and subcommand), `v` shows all of a long command or file. Ctrl-C
//! while a question waits declines it and cancels the turn.

use std::io::{self, BufRead, Read};
use std::os::fd::AsFd;
use std::sync::Arc;

use skills_runtime::agent::{Approval, ApprovalScope, Approver, SessionApprovals, ask_approval};

use crate::interrupt::Interrupt;
use crate::spinner::Spinner;
use crate::style::Style;

/// The approver of the terminal session.
pub fn approver(spinner: Spinner, interrupt: Interrupt, style: Style) -> Approver {
    let approvals = SessionApprovals::new();
    Arc::new(move |call| {
        // A turn being cancelled asks nothing more.
        if interrupt.is_hit() {
            return false;
        }
        if approvals.covers(call) {
            let scope = ApprovalScope::of(call);
            spinner.suspend(|| {
                eprintln!(
                    "{}",
                    style.dim(&format!("  allowed for this session: {scope}"))
                );
            });
            return true;
        }
        spinner.pause();
        let answer = ask_approval(call, Answers::new(&interrupt), io::stderr());
        spinner.resume();
        match answer {
            Ok(Approval::Once) => true,
            Ok(Approval::Session) => {
                approvals.remember(ApprovalScope::of(call));
                true
            }
            Ok(Approval::Declined) | Err(_) => false,
        }
    })
}

/// The terminal's lines for an approval, read so that Ctrl-C can end the wait: stdin is polled
/// a tenth of a second at a time, and a Ctrl-C is an error that declines. (The terminal is in
/// its line mode then, so a read returns one line.)
struct Answers<'a> {
    interrupt: &'a Interrupt,
    buffer: Vec<u8>,
    read: usize,
}

impl<'a> Answers<'a> {
    fn new(interrupt: &'a Interrupt) -> Self {
        Answers {
            interrupt,
            buffer: Vec::new(),
            read: 0,
        }
    }
}

impl Read for Answers<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Answers<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        if self.read < self.buffer.len() {
            return Ok(&self.buffer[self.read..]);
        }
        let stdin = io::stdin();
        let tenth = Timespec {
            tv_sec: 0,
            tv_nsec: 100_000_000,
        };
        loop {
            if self.interrupt.is_hit() {
                // Not `Interrupted`, which `read_line` would retry.
                return Err(io::Error::other("cancelled by Ctrl-C"));
            }
            let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
            match poll(&mut fds, Some(&tenth)) {
                Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                Ok(_) => break,
                Err(error) => return Err(error.into()),
            }
        }
        self.buffer.resize(4096, 0);
        let n = rustix::io::read(stdin.as_fd(), &mut self.buffer[..])?;
        self.buffer.truncate(n);
        self.read = 0;
        Ok(&self.buffer[..])
    }

    fn consume(&mut self, amount: usize) {
        self.read = (self.read + amount).min(self.buffer.len());
    }
}
