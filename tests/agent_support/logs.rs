//! Captures `tracing` events as text, for tests that check what reaches the logs.
//!
//! [`capture`] installs a subscriber for the current thread (the `#[tokio::test]` runtime runs
//! everything on it) and returns the buffer and a guard; each event is recorded as one line of
//! its level, message and fields.

#![allow(dead_code)]

use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::DefaultGuard;
use tracing::{Event, Metadata, Subscriber};

/// The events captured so far, one string per event.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<String>>>);

impl Captured {
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

/// Records every event, at every level, of the current thread until the guard is dropped.
pub fn capture() -> (Captured, DefaultGuard) {
    let captured = Captured::default();
    let guard = tracing::subscriber::set_default(Recorder(captured.clone()));
    (captured, guard)
}

struct Recorder(Captured);

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
        let mut line = event.metadata().level().to_string();
        event.record(&mut Line(&mut line));
        self.0.0.lock().unwrap().push(line);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}
