//! Taps: where merged requests leave the pipeline for the live stream, the sinks and the metrics,
//! and where the reports' closed ticks leave it for history ([`TickTap`]).
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

use crate::report::{ClosedTick, PreparedBatch, ReportCell};

/// One merge round as the taps see it: when it was merged and its requests, prepared once for
/// the reports. The merger fills it and hands the same `Arc` to the report workers and to every
/// tap; it reuses it for a later round once nobody holds it any more.
#[derive(Default)]
pub struct Round {
    /// The merger's clock when the round began (ms since the clock's epoch).
    now_ms: u64,
    batch: PreparedBatch,
}

impl Round {
    pub fn new() -> Round {
        Round::default()
    }

    /// A round of `batch` merged at `now_ms` (the taps' tests and benches).
    pub fn of_batch(now_ms: u64, batch: PreparedBatch) -> Round {
        Round { now_ms, batch }
    }

    /// When the round was merged: milliseconds since the clock's epoch (see `Clock::unix_ms64`).
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The round's requests, with their pool ids, in the order they were merged.
    pub fn batch(&self) -> &PreparedBatch {
        &self.batch
    }

    /// Empties the round for requests merged at `now_ms` (the merger, reusing it), and gives its
    /// batch to fill.
    pub fn restart(&mut self, now_ms: u64) -> &mut PreparedBatch {
        self.now_ms = now_ms;
        self.batch.clear();
        &mut self.batch
    }
}

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

/// Where the merge threads hand the reports' closed ticks (history). Defined here, below the
/// merger, so that the merger hands them over without knowing who takes them.
pub trait TickTap: Send + Sync {
    /// Takes a report's closed ticks and how many it dropped, as
    /// [`Report::take_closed_ticks`](crate::report::Report::take_closed_ticks) gave them (called
    /// by the merge threads right after the report's update). Must never block: what it cannot
    /// take it drops and counts.
    fn hand_over(&self, cell: &Arc<ReportCell>, closed: (Vec<Arc<ClosedTick>>, u64));

    /// Takes the ticks of a table several reports share (see `report::set`, "shared tables"),
    /// once for each of `cells`, the reports in the set that read it. A tap that keeps one
    /// copy of a table's ticks (the tick log) takes them for the first one only.
    fn hand_over_shared(&self, cells: &[Arc<ReportCell>], closed: (Vec<Arc<ClosedTick>>, u64)) {
        for c in cells {
            self.hand_over(c, (closed.0.clone(), closed.1));
        }
    }

    /// Hands over the ticks an owner's table closed: to [`TickTap::hand_over`] for a table of
    /// one report, to [`TickTap::hand_over_shared`] for a shared one.
    fn hand_over_table(&self, owner: &Arc<ReportCell>, closed: (Vec<Arc<ClosedTick>>, u64)) {
        if owner.has_twins() && (!closed.0.is_empty() || closed.1 > 0) {
            self.hand_over_shared(&owner.sharers(), closed);
        } else {
            self.hand_over(owner, closed);
        }
    }

    /// Collects the ticks waiting in a family member (closed for it by another thread) and
    /// hands them over; takes no lock when none wait.
    fn collect(&self, cell: &Arc<ReportCell>) {
        if !cell.ticks_waiting() {
            return;
        }
        let taken = {
            let mut r = cell.report.write();
            let taken = r.take_closed_ticks();
            cell.publish(&r);
            taken
        };
        self.hand_over_table(cell, taken);
    }
}

/// Several tick taps as one (history and the tick log, composed by `app`): each gets every
/// closed tick handed over, in turn.
pub struct TickFanOut(Vec<Arc<dyn TickTap>>);

impl TickFanOut {
    pub fn new(taps: Vec<Arc<dyn TickTap>>) -> TickFanOut {
        TickFanOut(taps)
    }
}

impl TickTap for TickFanOut {
    fn hand_over(&self, cell: &Arc<ReportCell>, (ticks, dropped): (Vec<Arc<ClosedTick>>, u64)) {
        if ticks.is_empty() && dropped == 0 {
            return;
        }
        if let Some((last, rest)) = self.0.split_last() {
            for tap in rest {
                tap.hand_over(cell, (ticks.clone(), dropped));
            }
            last.hand_over(cell, (ticks, dropped));
        }
    }

    fn hand_over_shared(&self, cells: &[Arc<ReportCell>], closed: (Vec<Arc<ClosedTick>>, u64)) {
        for tap in &self.0 {
            tap.hand_over_shared(cells, (closed.0.clone(), closed.1));
        }
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
