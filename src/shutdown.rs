//! One shutdown signal for every thread: the receivers and the merger poll a flag between
//! batches (they never block longer than a few milliseconds), the HTTP server awaits a notify.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// Cloned into every thread. Whoever calls [`Shutdown::trigger`] (the signal handler, a test, or a
/// thread that failed) stops them all.
#[derive(Clone, Default)]
pub struct Shutdown {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    stopping: AtomicBool,
    notify: Notify,
}

impl Shutdown {
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    pub fn trigger(&self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    pub fn is_triggered(&self) -> bool {
        self.inner.stopping.load(Ordering::SeqCst)
    }

    /// Resolves once `trigger` has been called (for the HTTP server's graceful shutdown).
    pub async fn wait(&self) {
        loop {
            let notified = self.inner.notify.notified();
            if self.is_triggered() {
                return;
            }
            notified.await;
        }
    }
}
