//! The spinner while tools run: on stderr, on a terminal only, from 300 ms into a call (a
//! quick `read_file` shows none), with the running calls and the seconds since they started;
//! never while an approval is asked.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a call runs before the spinner shows.
const DELAY: Duration = Duration::from_millis(300);
/// How often the spinner turns and its time is updated.
const TICK: Duration = Duration::from_millis(100);

/// The spinner of one program. Clones share it.
#[derive(Clone, Debug, Default)]
pub struct Spinner {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    /// The calls running: id and label.
    running: Vec<(String, String)>,
    /// When the first of them started (or the approval before them ended).
    since: Option<Instant>,
    /// An approval is being asked.
    paused: bool,
    bar: Option<ProgressBar>,
}

impl Spinner {
    /// A spinner that shows itself only when stderr is a terminal.
    pub fn new() -> Spinner {
        let spinner = Spinner::default();
        if std::io::stderr().is_terminal() {
            let ticking = spinner.clone();
            std::thread::spawn(move || {
                loop {
                    std::thread::sleep(TICK);
                    ticking.tick();
                }
            });
        }
        spinner
    }

    /// A call started (its approval, if any, comes next).
    pub fn start(&self, id: &str, label: String) {
        let mut state = self.lock();
        state.running.push((id.to_owned(), label));
        state.since.get_or_insert_with(Instant::now);
    }

    /// A call has its result.
    pub fn finish(&self, id: &str) {
        let mut state = self.lock();
        state.running.retain(|(running, _)| running != id);
        if state.running.is_empty() {
            state.since = None;
            if let Some(bar) = state.bar.take() {
                bar.finish_and_clear();
            }
        }
    }

    /// Forgets the calls of a cancelled turn and clears the spinner.
    pub fn finish_all(&self) {
        let mut state = self.lock();
        state.running.clear();
        state.since = None;
        state.paused = false;
        if let Some(bar) = state.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// Hides the spinner while a person answers an approval.
    pub fn pause(&self) {
        let mut state = self.lock();
        state.paused = true;
        if let Some(bar) = state.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// After an approval: the time counts from now.
    pub fn resume(&self) {
        let mut state = self.lock();
        state.paused = false;
        if !state.running.is_empty() {
            state.since = Some(Instant::now());
        }
    }

    /// Runs `print` with the spinner out of the way, so what it prints stays above it.
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        let state = self.lock();
        match &state.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    fn tick(&self) {
        let mut state = self.lock();
        let Some(since) = state.since else {
            return;
        };
        if state.paused || state.running.is_empty() || since.elapsed() < DELAY {
            return;
        }
        let labels: Vec<&str> = state
            .running
            .iter()
            .map(|(_, label)| label.as_str())
            .collect();
        let message = format!("{} ({}s)", labels.join(" · "), since.elapsed().as_secs());
        let bar = state.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        });
        bar.set_message(message);
        bar.tick();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
