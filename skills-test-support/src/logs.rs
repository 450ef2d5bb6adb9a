//! Captures `tracing` events as text, for tests that check what reaches the logs.
//!
//! [`capture`] starts recording the events of the current thread (the `#[tokio::test]` runtime
//! runs everything on it) and returns the buffer and a guard; each event is recorded as one line
//! of its level, message and fields.
//!
//! One process-wide subscriber does the recording, into the buffer of the thread that emitted
//! the event, if that thread is capturing. A subscriber per thread (`set_default`) is not
//! enough: `tracing` caches per call site whether anyone is interested, and a call site first
//! reached on a thread without that subscriber (another test, a mock server's thread) can be
//! cached as "never", so the capturing test silently misses its events.

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex, Once};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

thread_local! {
    /// Where the events of this thread go, while a [`capture`] guard lives.
    static CURRENT: RefCell<Option<Captured>> = const { RefCell::new(None) };
}

/// The events captured so far, one string per event.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<String>>>);

impl Captured {
    /// Every event captured so far, one line each.
    pub fn events(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// Events at `level` (`"ERROR"`, `"WARN"`, ...).
    pub fn at(&self, level: &str) -> Vec<String> {
        self.events()
            .into_iter()
            .filter(|e| e.starts_with(level))
            .collect()
    }
}

/// Stops the capture of [`capture`] when dropped (a capture it replaced resumes).
pub struct CaptureGuard {
    previous: Option<Captured>,
}

impl Drop for CaptureGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        let _ = CURRENT.try_with(|current| *current.borrow_mut() = previous);
    }
}

/// Records every event, at every level, of the current thread until the guard is dropped.
pub fn capture() -> (Captured, CaptureGuard) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        tracing::subscriber::set_global_default(Recorder)
            .expect("the agent tests install no other global subscriber");
    });
    let captured = Captured::default();
    let previous = CURRENT.with(|current| current.replace(Some(captured.clone())));
    (captured, CaptureGuard { previous })
}

/// The process-wide subscriber: interested in everything, records only on capturing threads.
struct Recorder;

struct Line<'a>(&'a mut String);

impl Visit for Line<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={value}", field.name());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let Ok(Some(captured)) = CURRENT.try_with(|current| current.borrow().clone()) else {
            return;
        };
        let mut line = event.metadata().level().to_string();
        event.record(&mut Line(&mut line));
        captured.0.lock().unwrap().push(line);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}
