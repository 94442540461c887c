//! Taps: where merged requests leave the pipeline for the live stream, the sinks and the metrics.
//!
//! The merger hands every merge round to every tap once, at one place ([`Taps::publish`], called
//! right after the round's requests were stored in the pool and before the reports are updated),
//! as the same `Arc` the report workers read: the round's requests with their pool ids, interned
//! records, timers and tags. A tap must return at once: it keeps the `Arc` in a bounded queue of
//! its own and does its work (resolving ids to strings through the dictionary, encoding, sending)
//! on its own thread or task. What it cannot keep up with it drops and counts; nothing on the
//! ingest path ever waits for a tap. With no tap registered, publishing costs one atomic load.
//!
//! Ids stay resolvable for as long as a tap can hold a round: the dictionary frees a string only
//! after it went unused for longer than the longest report window (see `Dictionary::sweep`).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::RwLock;

pub use crate::merger::RoundWork as Round;

/// A consumer of merged rounds.
pub trait Tap: Send + Sync {
    /// Its name, for logs and status.
    fn name(&self) -> &str;
    /// Takes one round. Called on the merger thread: must not block, allocate per request or take
    /// a lock the merger holds; keep the `Arc` (bounded) or drop it and count the loss.
    fn offer(&self, round: &Arc<Round>);
}

/// The registered taps. Written when a tap starts or stops (start-up, a stream client connecting),
/// read by the merger once per round.
#[derive(Default)]
pub struct Taps {
    /// Whether any tap is registered: the merger's only cost when there is none.
    any: AtomicBool,
    /// Behind a lock because stream clients come and go at run time; the merger holds the read
    /// lock only for the `offer` calls, which return at once.
    list: RwLock<Vec<Arc<dyn Tap>>>,
}

impl Taps {
    /// Registers `tap`; it sees every round merged from now on.
    pub fn add(&self, tap: Arc<dyn Tap>) {
        let mut list = self.list.write();
        list.push(tap);
        self.any.store(true, Relaxed);
    }

    /// Unregisters the tap `tap` (compared by address).
    pub fn remove(&self, tap: &Arc<dyn Tap>) {
        let mut list = self.list.write();
        list.retain(|t| !Arc::ptr_eq(t, tap));
        self.any.store(!list.is_empty(), Relaxed);
    }

    /// Hands `round` to every tap (merger thread).
    pub fn publish(&self, round: &Arc<Round>) {
        if !self.any.load(Relaxed) {
            return;
        }
        for tap in self.list.read().iter() {
            tap.offer(round);
        }
    }

    pub fn len(&self) -> usize {
        self.list.read().len()
    }

    pub fn is_empty(&self) -> bool {
        !self.any.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    struct Counting(AtomicUsize);
    impl Tap for Counting {
        fn name(&self) -> &str {
            "counting"
        }
        fn offer(&self, _round: &Arc<Round>) {
            self.0.fetch_add(1, Relaxed);
        }
    }

    #[test]
    fn taps_see_rounds_while_registered() {
        let taps = Taps::default();
        let round = Arc::new(Round::new());
        taps.publish(&round);
        let a = Arc::new(Counting(AtomicUsize::new(0)));
        let a_dyn: Arc<dyn Tap> = a.clone();
        taps.add(Arc::clone(&a_dyn));
        taps.publish(&round);
        taps.publish(&round);
        assert_eq!(a.0.load(Relaxed), 2);
        assert_eq!(taps.len(), 1);
        taps.remove(&a_dyn);
        taps.publish(&round);
        assert_eq!(a.0.load(Relaxed), 2);
        assert!(taps.is_empty());
    }
}
