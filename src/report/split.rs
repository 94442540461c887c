//! Split reports: one report counted by several merge threads, so that no report is one core's
//! work (docs/ARCHITECTURE.md, "Scaling out"); and split stages ([`StageSplit`]), a family's
//! stage counted the same way.
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
        slice_of(len, self.parts.len() + 1, at)
    }

    /// The owner's step before its report closes a tick in round `round`: waits until every
    /// part counted round `round - 1`, then folds every part into the open tick.
    pub fn fold_to_close(&self, r: &mut Report, round: u64) {
        let before = round.saturating_sub(1);
        wait_until_done(
            self.parts.iter().map(|p| &p.done),
            before,
            &self.progress,
            &self.moved,
        );
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

/// A family's stage counted by several merge threads (a **split stage**): the same scheme as a
/// split report's, for the one unit of work a family is. The leader's thread counts slice 0 of
/// each round into the stage (`Family::update`), each other thread its slice into a part of its
/// own, folded into the stage whenever the stage is read or moved: before it is frozen at a tick
/// or for a drain, before a member detaches from it (a query) or rejoins it, before a drain or
/// the dictionary's sweep reads it, and by a part's own thread when the part grows past
/// [`PART_MAX_ROWS`].
///
/// A part counts round `n` only once the leader has **booked** it (done the round's steps that
/// freeze, detach and rejoin, which decide whether the stage counts the round at all), and each
/// of those steps first waits until every part has counted the rounds booked before and folds
/// them. So what a stage holds when it is frozen, or when a member detaches, is exactly every
/// request of the rounds booked so far: a request is never counted twice into a member (once
/// directly while it is detached, once through a part) nor missed.
///
/// Waits and why they cannot deadlock: a part thread waits only for the leader's booking of the
/// same round, which waits only for the parts' earlier rounds (each thread applies rounds in
/// order) and takes no lock a part thread holds while it waits; a query's detach waits, with
/// the stage locked, for the parts to finish the round booked, which needs no lock of the
/// stage's (a part thread marks its round done before it takes the stage to fold itself).
#[derive(Debug)]
pub struct StageSplit {
    parts: Vec<StagePart>,
    booked: Mutex<Booked>,
    /// Signalled when the leader books a round: what a part thread waits for.
    booked_moved: Condvar,
    /// Signalled when a part finishes a round: what the leader and a detach wait for.
    progress: Mutex<()>,
    moved: Condvar,
}

/// The last round the leader booked, and whether the stage counts it (no member attached:
/// nobody takes the stage, which stays empty).
#[derive(Debug, Clone, Copy)]
struct Booked {
    round: u64,
    counting: bool,
}

#[derive(Debug)]
struct StagePart {
    worker: usize,
    slot: Mutex<Report>,
    /// The last round whose slice this part counted.
    done: AtomicU64,
}

/// Waits until each of `done` (parts' last rounds counted) reaches `round`; `moved` is
/// signalled (under `progress`) when one moves.
fn wait_until_done<'a>(
    done: impl Iterator<Item = &'a AtomicU64>,
    round: u64,
    progress: &Mutex<()>,
    moved: &Condvar,
) {
    for d in done {
        if d.load(Acquire) >= round {
            continue;
        }
        let mut g = progress.lock();
        while d.load(Acquire) < round {
            moved.wait_for(&mut g, WAIT_STEP);
        }
    }
}

/// `len` requests cut into `n` contiguous, even slices; slice `at` (the first `len % n` take
/// one more).
fn slice_of(len: usize, n: usize, at: usize) -> Range<usize> {
    let (each, extra) = (len / n, len % n);
    let start = at * each + at.min(extra);
    start..start + each + usize::from(at < extra)
}

impl StageSplit {
    /// Parts of `stage` on each of `workers` (not the leader's thread), made after round
    /// `round` was applied by every thread.
    pub fn new(stage: &Report, workers: &[usize], round: u64) -> StageSplit {
        StageSplit {
            parts: workers
                .iter()
                .map(|&worker| StagePart {
                    worker,
                    slot: Mutex::new(stage.stage_like()),
                    done: AtomicU64::new(round),
                })
                .collect(),
            booked: Mutex::new(Booked {
                round,
                counting: true,
            }),
            booked_moved: Condvar::new(),
            progress: Mutex::new(()),
            moved: Condvar::new(),
        }
    }

    /// The merge threads that count parts (the leader's not among them).
    pub fn workers(&self) -> impl Iterator<Item = usize> + '_ {
        self.parts.iter().map(|p| p.worker)
    }

    /// The leader has done round `round`'s steps; the stage counts it when `counting`.
    pub(super) fn book(&self, round: u64, counting: bool) {
        *self.booked.lock() = Booked { round, counting };
        self.booked_moved.notify_all();
    }

    /// Waits until every part counted the rounds booked so far, then folds them into `stage`
    /// (see the type's docs). The caller holds the stage.
    pub(super) fn settle_into(&self, stage: &mut Report) {
        let booked = self.booked.lock().round;
        wait_until_done(
            self.parts.iter().map(|p| &p.done),
            booked,
            &self.progress,
            &self.moved,
        );
        self.fold_into(stage);
    }

    /// Folds what the parts hold into `stage`, and empties them (no wait: see
    /// [`StageSplit::settle_into`] for when that is exact). The caller holds the stage.
    pub(super) fn fold_into(&self, stage: &mut Report) {
        for p in &self.parts {
            let mut part = p.slot.lock();
            if part.open_totals.contribs == 0 {
                continue;
            }
            part.seal_stage();
            let identity: Vec<usize> = (0..part.keys.len()).collect();
            absorb_stage(&part, stage, &identity);
            part.empty_stage(true);
            part.settle_memory();
        }
    }

    /// A round of `len` requests: slice 0 the leader's, slice `k + 1` part `k`'s.
    pub fn slice(&self, len: usize, at: usize) -> Range<usize> {
        slice_of(len, self.parts.len() + 1, at)
    }

    /// Part `worker`'s step in round `round`: waits until the leader booked the round, then
    /// counts `range` of `batch` into its part if the stage counts the round. Returns whether
    /// the part grew past [`PART_MAX_ROWS`]: the caller then folds it with the stage locked
    /// (after this returned: the round is marked done first, see the type's docs).
    pub fn count_part(
        &self,
        worker: usize,
        round: u64,
        batch: &super::PreparedBatch,
        range: Range<usize>,
    ) -> bool {
        let Some(p) = self.parts.iter().find(|p| p.worker == worker) else {
            return false;
        };
        let counting = {
            let mut b = self.booked.lock();
            while b.round < round {
                self.booked_moved.wait_for(&mut b, WAIT_STEP);
            }
            b.counting
        };
        let mut full = false;
        if counting && !range.is_empty() {
            let mut part = p.slot.lock();
            Report::add_slice_in_steps(&mut &mut *part, batch, range, |_| {});
            part.settle_memory();
            full = part.open.len() > PART_MAX_ROWS;
        }
        p.done.store(round, Release);
        drop(self.progress.lock());
        self.moved.notify_all();
        full
    }

    /// Whether a part holds requests not folded yet.
    pub(super) fn holds_requests(&self) -> bool {
        self.parts
            .iter()
            .any(|p| p.slot.lock().open_totals.contribs > 0)
    }

    /// Whether every part counted every round booked and holds nothing: the stage's parts add
    /// nothing until the next round is booked.
    pub(super) fn is_idle(&self) -> bool {
        let booked = self.booked.lock().round;
        self.parts
            .iter()
            .all(|p| p.done.load(Acquire) >= booked && p.slot.lock().open_totals.contribs == 0)
    }

    /// Calls `mark` with every id the parts hold (see `Family::mark_stage_key_ids`).
    pub(super) fn mark_key_ids(&self, mark: &mut dyn FnMut(u32)) {
        for p in &self.parts {
            p.slot.lock().mark_key_ids(mark);
        }
    }
}
