//! Split reports: one report counted by several merge threads, so that no report is one core's
//! work (docs/ARCHITECTURE.md, "Scaling out").
//!
//! A report updated alone (no family) whose cost is more than a merge thread's share is split
//! by the merger's balancing: each round's requests are cut into slices ([`Split::slice`]), the
//! thread that owns the report counts slice 0 into it, and each other merge thread its slice
//! into a **part** of its own: a stage (an open tick, no closed ticks, no row limit) holding
//! only requests of one tick of the report. The parts are folded into the report's open tick
//! (one row update per part row, as a family's drain):
//! - before the owner closes a tick: it first waits until every part thread has counted the
//!   round before ([`Split::fold_to_close`]), so the closed tick holds every request of its
//!   time, exactly as unsplit;
//! - when a query, a scrape, the snapshot or history reads the report ([`Split::fold_open`],
//!   under the report's write lock): a part holds only requests of the report's open tick (or
//!   of the next, when its thread is a round ahead: those stay), so the fold is exact at any
//!   time and whoever reads sees every request merged;
//! - when a part grows past [`PART_MAX_ROWS`] (a flood of new keys within a tick), by its own
//!   thread, so that a part stays bounded.
//!
//! Waits and why they cannot deadlock: rounds are numbered and each merge thread applies them
//! in order, first the reports it owns (where a close waits for the parts' previous round),
//! then its parts (where a part whose slot still holds the previous tick waits for the owner to
//! fold it, which the owner does in the same round or an earlier one). A wait thus only ever
//! depends on an earlier round, or on the owners' step of the same round, which waits on
//! nothing of that round: no two threads wait on each other. Part threads mark a round done
//! before any optional fold that takes the report's lock, so an owner holding its lock while
//! it waits is never waited on by the thread it waits for.
//!
//! Locks: the report's write lock, then a part's slot; a part thread takes its slot alone (and
//! the report's lock only with no slot held).
//!
//! Exact: sums, counts and histograms add up whatever slice a request fell in (requests are
//! disjoint between slices; a timer report counts a request once per row within its slice, and
//! a request is in one slice). At a report's row limit the rows kept may differ from unsplit
//! (rows arrive part by part, not in request order), as for families.

use std::ops::Range;
use std::sync::atomic::{
    AtomicU64,
    Ordering::{Acquire, Release},
};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::family::absorb_stage;
use super::{Report, Window};

/// Rows a part holds before its thread folds it into the report early (bounds its memory
/// within a tick, as `family::STAGE_MAX_ROWS` bounds a stage's).
pub const PART_MAX_ROWS: usize = 1 << 20;

/// How long one wait sleeps before it looks again (a wake-up is signalled; this only bounds a
/// missed one).
const WAIT_STEP: Duration = Duration::from_millis(20);

/// A split report's parts (see the module docs). Made by the merger's balancing while no round
/// is in flight, and dropped the same way, after a last [`Split::fold_open`].
#[derive(Debug)]
pub struct Split {
    window: Window,
    parts: Vec<Part>,
    /// Signalled when a part finishes a round: what [`Split::fold_to_close`] waits for.
    progress: Mutex<()>,
    moved: Condvar,
}

/// One part: the merge thread that counts it and what it holds.
#[derive(Debug)]
struct Part {
    worker: usize,
    slot: Mutex<Slot>,
    /// Signalled when the owner folds the slot: what a part thread ahead by a tick waits for.
    folded: Condvar,
    /// The last round whose slice this part counted.
    done: AtomicU64,
}

#[derive(Debug)]
struct Slot {
    /// The report tick the stage's requests belong to.
    tick: u64,
    stage: Report,
}

impl Slot {
    /// Whether it counted anything since it was last folded (rows of earlier folds stay,
    /// zeroed, for their memory).
    fn holds_requests(&self) -> bool {
        self.stage.open_totals.contribs > 0
    }
}

impl Split {
    /// Parts of `report` on each of `workers` (the merge threads other than its owner), made
    /// after round `round` was applied by every thread.
    pub fn new(report: &Report, workers: &[usize], round: u64) -> Split {
        Split {
            window: report.window,
            parts: workers
                .iter()
                .map(|&worker| Part {
                    worker,
                    slot: Mutex::new(Slot {
                        tick: report.open_index,
                        stage: report.stage_like(),
                    }),
                    folded: Condvar::new(),
                    done: AtomicU64::new(round),
                })
                .collect(),
            progress: Mutex::new(()),
            moved: Condvar::new(),
        }
    }

    /// The merge threads that count parts (the owner's not among them).
    pub fn workers(&self) -> impl Iterator<Item = usize> + '_ {
        self.parts.iter().map(|p| p.worker)
    }

    /// Requests of a round of `len` cut into one slice per thread: slice 0 the owner's, slice
    /// `k + 1` part `k`'s. Contiguous and even (the owner's a little longer when uneven).
    pub fn slice(&self, len: usize, at: usize) -> Range<usize> {
        let n = self.parts.len() + 1;
        let (each, extra) = (len / n, len % n);
        // The first `extra` slices take one more.
        let start = at * each + at.min(extra);
        let end = start + each + usize::from(at < extra);
        start..end
    }

    /// The owner's step before its report closes a tick in round `round`: waits until every
    /// part counted round `round - 1`, then folds every part into the open tick.
    pub fn fold_to_close(&self, r: &mut Report, round: u64) {
        let before = round.saturating_sub(1);
        for p in &self.parts {
            if p.done.load(Acquire) >= before {
                continue;
            }
            let mut g = self.progress.lock();
            while p.done.load(Acquire) < before {
                self.moved.wait_for(&mut g, WAIT_STEP);
            }
        }
        self.fold_open(r);
    }

    /// Folds what the parts hold of the report's open tick (or of an earlier one: never kept
    /// out) into it, and empties them. The caller holds `r`'s write lock.
    pub fn fold_open(&self, r: &mut Report) {
        let identity: Vec<usize> = (0..r.keys.len()).collect();
        for p in &self.parts {
            let mut slot = p.slot.lock();
            if slot.tick > r.open_index || !slot.holds_requests() {
                continue;
            }
            slot.stage.flush_hist();
            absorb_stage(&slot.stage, r, &identity);
            slot.stage.empty_stage(true);
            drop(slot);
            p.folded.notify_all();
        }
    }

    /// Part `worker`'s step in round `round` (at `now_ms`): counts `range` of `batch` into its
    /// part, first waiting, when the round begins a new tick, until the owner has folded what
    /// the part holds of the last one. Returns whether the part grew past [`PART_MAX_ROWS`]:
    /// the caller then folds it with [`Split::fold_open`] under the report's lock (after this
    /// returned: the round is marked done first, see the module docs).
    pub fn count_part(
        &self,
        worker: usize,
        round: u64,
        now_ms: u64,
        batch: &super::PreparedBatch,
        range: Range<usize>,
    ) -> bool {
        let Some(p) = self.parts.iter().find(|p| p.worker == worker) else {
            return false;
        };
        let tick = self.window.tick_of(now_ms);
        let mut slot = p.slot.lock();
        while slot.tick < tick && slot.holds_requests() {
            p.folded.wait_for(&mut slot, WAIT_STEP);
        }
        slot.tick = slot.tick.max(tick);
        if !range.is_empty() {
            Report::add_slice_in_steps(&mut &mut slot.stage, batch, range, |_| {});
        }
        let full = slot.stage.open.len() > PART_MAX_ROWS;
        drop(slot);
        p.done.store(round, Release);
        drop(self.progress.lock());
        self.moved.notify_all();
        full
    }
}
