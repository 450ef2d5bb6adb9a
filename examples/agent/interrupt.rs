//! Ctrl-C. While a turn runs it cancels the turn: the turn's future is dropped, which stops
//! the model request and kills the `bash` calls in flight (their sandboxes end with them), and
//! an approval being asked counts as declined. With no turn running (a plain, non-terminal
//! prompt), it ends the program, as it would without a handler. At the terminal prompt the line
//! editor reads Ctrl-C as a key instead (see `prompt`).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

/// The exit status of a program ended by Ctrl-C (128 + SIGINT).
pub const EXIT: u8 = 130;

/// Ctrl-C as the turns of a session see it. Clones share it.
#[derive(Clone, Debug)]
pub struct Interrupt {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    /// Ctrl-C came during the current turn.
    hit: AtomicBool,
    /// A turn runs.
    running: AtomicBool,
    notify: Notify,
}

impl Interrupt {
    /// Takes over SIGINT for the rest of the program.
    pub fn install() -> Interrupt {
        let shared = Arc::new(Shared::default());
        let listener = Arc::clone(&shared);
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                if listener.running.load(Ordering::SeqCst) {
                    listener.hit.store(true, Ordering::SeqCst);
                    listener.notify.notify_waiters();
                } else {
                    eprintln!();
                    std::process::exit(i32::from(EXIT));
                }
            }
        });
        Interrupt { shared }
    }

    /// Runs `turn` to its end, or until Ctrl-C: then `None`, and `turn` is dropped.
    pub async fn during<F: Future>(&self, turn: F) -> Option<F::Output> {
        self.shared.hit.store(false, Ordering::SeqCst);
        self.shared.running.store(true, Ordering::SeqCst);
        let outcome = tokio::select! {
            biased;
            () = self.hit() => None,
            output = turn => Some(output),
        };
        self.shared.running.store(false, Ordering::SeqCst);
        outcome
    }

    /// Whether Ctrl-C came during the current turn (an approval then asks nothing more).
    pub fn is_hit(&self) -> bool {
        self.shared.hit.load(Ordering::SeqCst)
    }

    /// Resolves once Ctrl-C came during the current turn.
    async fn hit(&self) {
        loop {
            let notified = self.shared.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_hit() {
                return;
            }
            notified.await;
        }
    }
}
