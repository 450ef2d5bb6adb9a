//! Writing to stdout and stderr without ever panicking.
//!
//! `println!` panics when the reader of a pipe goes away (`skills list | head -1`). Every
//! command writes through [`Out`] instead: once the pipe is closed, further writes are dropped
//! silently and the command still returns the exit code it computed, so `set -o pipefail`
//! sees the real verdict of `skills check | head`.

use std::io::{self, Write};

/// A writer that turns a closed pipe into a quiet no-op and keeps every other error.
pub struct Out<W: Write> {
    inner: W,
    closed: bool,
}

impl<W: Write> Out<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Out {
            inner,
            closed: false,
        }
    }

    fn guard<T>(&mut self, result: io::Result<T>, done: T) -> io::Result<T> {
        match result {
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(done)
            }
            other => other,
        }
    }
}

impl<W: Write> Write for Out<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let result = self.inner.write(buf);
        self.guard(result, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.guard(result, ())
    }
}

/// The two streams a command writes to.
pub struct Streams<'a> {
    /// The command's result: what a script consumes.
    pub out: &'a mut dyn Write,
    /// Diagnostics of a failed load, notes and errors.
    pub err: &'a mut dyn Write,
}

#[cfg(test)]
mod tests {
    use super::*;

    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
    }

    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::StorageFull))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_swallows_writes() {
        let mut out = Out::new(ClosedPipe);
        assert!(writeln!(out, "one").is_ok());
        assert!(writeln!(out, "two").is_ok());
        assert!(out.flush().is_ok());
    }

    #[test]
    fn other_errors_are_kept() {
        let mut out = Out::new(Full);
        assert!(writeln!(out, "one").is_err());
    }
}
