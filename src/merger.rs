//! The merge loop: batches from the temp ring in, pooled requests and up-to-date reports out.
//!
//! Runs on its own thread ("pinbad-merger"). Every `stats_gathering_period` it drains the ring in
//! rounds of at most [`ROUND_REQUESTS`], each in phases. It takes locks only in the API's order
//! (pool → dictionary → report) and never holds the dictionary lock together with another, so no
//! reader can deadlock with it:
//! 1. **intern**: the receivers interned their batches (see `intern`); only a raw batch (queued
//!    while no merger ran) is decoded and interned here (the dictionary's upgradable lock);
//! 2. **store** (pool write lock): expire requests older than `stats_history` and insert the new
//!    ones as their batches hold them, stamped with the round's time, evicting the oldest when a
//!    ring is full. Reports do not depend on the pool;
//! 3. **reports**: the round's requests, prepared once ([`PreparedBatch`]), go to the taps
//!    (`tap`) and to every report's open tick, each report updated by the worker thread it is
//!    assigned to ("pinbad-merge-N"; the merger is worker 0), one write lock step per report. A
//!    report's window moves by whole ticks: what leaves it leaves with its tick, never request by
//!    request.
//!
//! Strings are freed by a periodic **sweep** once unused for longer than the longest window.
//! Receivers never wait for it (the ring is lock-free); the API waits at most one phase.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::RwLockWriteGuard;

pub use crate::intern::Interned;
use crate::intern::SharedInterner;
use crate::pool::{Pool, Removal};
use crate::record::{Batch, Record, RequestView};
use crate::report::{round_leaders, Family, PreparedBatch, Report, ReportCell, Split, StageSplit};
use crate::ring::Ring;
use crate::state::Core;
use crate::tap::{Round, TickTap};
use crate::turns::Turns;

/// Most requests one round merges. Bounds how long a round holds the pool's write lock (and so
/// how long an API reader can wait) when the ring has filled up behind a slow round: ~4k requests
/// is a few tens of milliseconds of work, where draining a full ring at once could take seconds.
pub const ROUND_REQUESTS: usize = 4096;

/// The share of the ring's bytes (1/N) beyond which the merger counts as behind: family members'
/// turns at their frozen stage wait (see `Family::update`), so that the merge threads catch up
/// before the ring fills. An eighth of the default 256 MiB is ~0.2 s of 100k requests/s.
const BEHIND_SHARE: usize = 8;

/// How long after the merger starts the receivers may still queue raw batches: until it first
/// finds nothing waiting, so that a restart's backlog (what came while the last run stopped and
/// while the snapshot was restored) and what comes while it is merged are held at a raw batch's
/// memory (a restart at 100k/s: 41–59k dropped at the ring while catching up when the receivers
/// decoded again at once; see BENCHMARKS.md). Bounded, so that a start into overload does not
/// leave the decoding on the merger for good.
const RAW_UNTIL_CAUGHT_UP: Duration = Duration::from_secs(30);

/// How long the merger keeps merging after shutdown was asked for: the process must exit within
/// a second of SIGTERM, whatever backlog the ring holds.
const SHUTDOWN_DRAIN: Duration = Duration::from_millis(700);

/// One round's work for the report workers: the round (requests prepared once, shared with the
/// taps) and the reports as the round saw them. Core by every worker through an `Arc`; recycled
/// once all are done.
struct RoundWork {
    round: Arc<Round>,
    cells: Vec<Arc<ReportCell>>,
    /// For each of `cells`, its family's leader in the round (see [`round_leaders`]).
    leaders: Vec<usize>,
    /// For each of `cells`, its parts on other threads if it is split (see `report::split`).
    splits: Vec<Option<Arc<Split>>>,
    /// The families whose stage is split, with its parts (see `report::split`, "split
    /// stages"), each once.
    stage_splits: Vec<(Arc<Family>, Arc<StageSplit>, usize)>,
    /// The round's number: rounds are applied in this order on every thread, and a split
    /// report's close waits for its parts' round before.
    number: u64,
    /// Threads that have not applied the round yet, plus one: the last thread to apply it
    /// counts it as merged and only then clears the extra one, so that 0 means "applied and
    /// counted" ([`Merger::finish`] waits for 0 and its callers read `requests_merged` next).
    remaining: std::sync::atomic::AtomicUsize,
    /// Requests of the round.
    merged: u64,
    /// Where the reports' closed ticks go (history), if anywhere.
    ticks: Option<Arc<dyn TickTap>>,
    /// `Some(now_ms)` when the ring held more than [`BEHIND_SHARE`] of its bytes after this
    /// round took its batches: family members' turns wait (see `Family::update`).
    behind: Option<u64>,
    /// Rounds applied by every thread, all shards' (see [`Shards::applied`]).
    applied: Arc<std::sync::atomic::AtomicU64>,
}

impl RoundWork {
    fn new(applied: Arc<std::sync::atomic::AtomicU64>) -> RoundWork {
        RoundWork {
            round: Arc::new(Round::new()),
            cells: Vec::new(),
            leaders: Vec::new(),
            splits: Vec::new(),
            stage_splits: Vec::new(),
            number: 0,
            remaining: Default::default(),
            merged: 0,
            ticks: None,
            behind: None,
            applied,
        }
    }

    /// One thread applied its share. Once every thread has, the round's requests count as
    /// `requests_merged`: from then on every report includes them (what the tests wait for).
    fn done(&self, counters: &crate::counters::Counters) {
        use std::sync::atomic::Ordering::{AcqRel, Release};
        if self.remaining.fetch_sub(1, AcqRel) == 2 {
            counters.requests_merged.fetch_add(self.merged, Relaxed);
            self.applied.fetch_add(1, Release);
            self.remaining.store(0, Release);
        }
    }
}

/// Brings the round's report `at` up to date with the round: advance its window to the round's
/// time, count the round's requests into its open tick. The one write-lock step per report and
/// round. The ticks it closed go to the history writer (a report with history; never waits).
/// `turned`: whether a family member took its turn at its stage on this thread this round (one
/// per round and thread, see [`crate::report::Family::take_turn`]).
fn update_report(work: &RoundWork, at: usize, turned: &mut bool) {
    let cell = &work.cells[at];
    if let Some(family) = cell.family() {
        // A family's leader updates its stage and the members detached from it (queried ones),
        // and hands the stage to the members on its thread; the other members take their turn
        // at the stage on their own thread, and hand over the ticks closed for them.
        let leader = work.leaders[at];
        if leader == at {
            let t = cell.instrument.start();
            let round = family.update(
                work.round.now_ms(),
                work.round.batch(),
                |c| c.queried_lately(work.round.now_ms()),
                (!*turned).then(|| cell.worker()),
                work.behind,
                work.number,
            );
            *turned |= round.handed;
            // The stage's time is the leader's; the round's requests were counted on every
            // attached member, the leader too, by `update` (a detached one's update below
            // counts its own).
            cell.instrument.record_less(t, round.handed_ns, 0);
            for member in &round.detached {
                update_alone(member, work, None);
            }
        } else {
            if cell.worker() != work.cells[leader].worker() && !*turned {
                *turned = family.take_turn(cell, work.behind);
            }
            // Its requests are counted by the leader's `Family::update`, or, detached,
            // by its own update there; its turns at the stage are timed when they happen.
        }
        if let Some(t) = &work.ticks {
            t.collect(cell);
        }
        return;
    }
    update_alone(cell, work, work.splits[at].as_deref());
}

/// [`update_report`] for a report updated request by request: alone, or a family member
/// detached from its stage (timed by its own instrument either way). A split report (`split`)
/// counts its slice of the round, and folds its parts in before it closes a tick.
fn update_alone(cell: &Arc<ReportCell>, work: &RoundWork, split: Option<&Split>) {
    let t = cell.instrument.start();
    let (now_ms, batch) = (work.round.now_ms(), work.round.batch());
    let mut r = cell.report.write();
    r.set_queried(cell.queried_lately(now_ms));
    if let Some(split) = split {
        if now_ms >= r.next_tick_ms() {
            split.fold_to_close(&mut r, work.number);
        }
    }
    r.advance(now_ms);
    let range = split.map_or(0..batch.len(), |s| s.slice(batch.len(), 0));
    if !range.is_empty() {
        // Queries of this report wait for one step of the round, not all of it.
        Report::add_slice_in_steps(&mut r, batch, range, RwLockWriteGuard::bump);
    }
    let closed = r.take_closed_ticks();
    cell.publish(&r);
    drop(r);
    if let Some(t) = &work.ticks {
        t.hand_over_table(cell, closed);
    }
    cell.instrument.record(t, batch.len() as u64);
}

/// Thread `index`'s parts of the round's split reports (after the reports it owns: see
/// `report::split` for why that order cannot deadlock). Timed on each report's instrument.
fn count_parts(work: &RoundWork, index: usize) {
    let batch = work.round.batch();
    for (at, split) in work.splits.iter().enumerate() {
        let Some(split) = split else { continue };
        let Some(k) = split.workers().position(|w| w == index) else {
            continue;
        };
        let cell = &work.cells[at];
        let t = cell.instrument.start();
        let range = split.slice(batch.len(), k + 1);
        if split.count_part(index, work.number, work.round.now_ms(), batch, range) {
            let mut r = cell.report.write();
            split.fold_open(&mut r);
            cell.publish(&r);
        }
        cell.instrument.record(t, 0);
    }
    // Split stages: timed on the leader's instrument (the stage's cost is the leader's).
    for (family, split, leader) in &work.stage_splits {
        let Some(k) = split.workers().position(|w| w == index) else {
            continue;
        };
        let cell = &work.cells[*leader];
        let t = cell.instrument.start();
        let range = split.slice(batch.len(), k + 1);
        if split.count_part(index, work.number, batch, range) {
            family.fold_parts();
        }
        cell.instrument.record(t, 0);
    }
}

/// Runs the calling thread `nice` steps of niceness below where it is (`merge.nice`; at most
/// 19). Niceness is per thread on Linux, so `setpriority` on the thread's id touches this thread
/// only. Why: with the merge threads at the receivers' and the API's priority, a query waited
/// behind their slices for a core; lowered, it gets one as soon as it wakes, and the merge threads
/// still get every cycle nothing more urgent wants. A refusal (a sandbox) is logged and ignored.
fn lower_priority(nice: i32) {
    if nice == 0 {
        return;
    }
    // SAFETY: plain system calls on the calling thread's own id, no pointers.
    let refused = unsafe {
        let tid = libc::gettid() as libc::id_t;
        *libc::__errno_location() = 0;
        let current = libc::getpriority(libc::PRIO_PROCESS, tid);
        let current = if *libc::__errno_location() != 0 {
            0
        } else {
            current
        };
        let lowered = (current + nice).min(crate::config::MERGE_NICE_MAX);
        libc::setpriority(libc::PRIO_PROCESS, tid, lowered) != 0
    };
    if refused {
        tracing::warn!(
            nice,
            error = %std::io::Error::last_os_error(),
            "could not lower the merge thread's priority (merge.nice)"
        );
    }
}

/// A report worker thread ("pinbad-merge-N"): updates the reports assigned to it, round after
/// round, in the order the merger sent them.
struct Worker {
    tx: std::sync::mpsc::Sender<Arc<RoundWork>>,
    thread: Option<std::thread::JoinHandle<()>>,
    backlog: Arc<Backlog>,
}

/// Requests sent to a worker and not yet applied by it, each round weighing at least
/// [`MIN_ROUND_WEIGHT`] ([`round_weight`]): the merger waits before sending more than
/// `capacity` (`merge.queue_requests`), the worker counts its rounds off as it applies them.
/// The one bound on a worker's queue (back-pressure: the temp ring then fills and counts what it
/// drops, rather than rounds queueing without bound).
struct Backlog {
    queued: parking_lot::Mutex<usize>,
    drained: parking_lot::Condvar,
    capacity: usize,
}

#[cfg(test)]
/// The backlog's bound in its test.
const WORKER_QUEUE_REQUESTS: usize = crate::config::MIN_AUTO_QUEUE_REQUESTS;

/// The least a round weighs in a worker's [`Backlog`].
const MIN_ROUND_WEIGHT: usize = ROUND_REQUESTS / 4;

/// A round's weight in a worker's [`Backlog`].
fn round_weight(work: &RoundWork) -> usize {
    work.round.batch().len().max(MIN_ROUND_WEIGHT)
}

impl Backlog {
    fn new(capacity: usize) -> Backlog {
        Backlog {
            queued: parking_lot::Mutex::new(0),
            drained: parking_lot::Condvar::new(),
            capacity,
        }
    }

    /// Waits (the worker still running) until `n` more requests fit, then counts them in.
    /// Returns how long it waited, if it did.
    fn admit(&self, n: usize, worker: &std::thread::JoinHandle<()>) -> Option<Duration> {
        let mut queued = self.queued.lock();
        let mut since = None;
        while *queued > 0 && *queued + n > self.capacity && !worker.is_finished() {
            since.get_or_insert_with(Instant::now);
            self.drained
                .wait_for(&mut queued, Duration::from_millis(100));
        }
        *queued += n;
        since.map(|t| t.elapsed())
    }

    /// `n` requests applied.
    fn applied(&self, n: usize) {
        let mut queued = self.queued.lock();
        *queued = queued.saturating_sub(n);
        drop(queued);
        self.drained.notify_one();
    }
}

fn spawn_worker(
    index: usize,
    counters: Arc<crate::counters::Counters>,
    nice: i32,
    queue_requests: usize,
) -> std::io::Result<Worker> {
    let (tx, rx) = std::sync::mpsc::channel::<Arc<RoundWork>>();
    let backlog = Arc::new(Backlog::new(queue_requests));
    let worker_backlog = Arc::clone(&backlog);
    let thread = std::thread::Builder::new()
        .name(format!("pinbad-merge-{index}"))
        .spawn(move || {
            lower_priority(nice);
            for work in rx {
                let mut turned = false;
                for (at, cell) in work.cells.iter().enumerate() {
                    if cell.worker() == index {
                        update_report(&work, at, &mut turned);
                    }
                }
                count_parts(&work, index);
                worker_backlog.applied(round_weight(&work));
                work.done(&counters);
            }
        })?;
    Ok(Worker {
        tx,
        thread: Some(thread),
        backlog,
    })
}

/// What the merge shards share (`merge.shards`: the merger, the leader, and its followers
/// "pinbad-shard-N", each taking batches from the temp ring, storing them into the pool and
/// preparing their rounds side by side): the order their rounds go to the report workers in,
/// and the workers, which the turn holds (see `turns`).
struct Shards {
    turns: Turns<Dispatch>,
    /// The latest round time given (merger ms). A round's time is read under the pool's write
    /// lock, where its ticket is taken, and never goes back, so that rounds' times, their
    /// requests' pool order and their turns agree.
    stamp: std::sync::atomic::AtomicU64,
    /// Report workers beside thread 0 (fixed at start).
    workers: usize,
    /// Rounds that every thread has applied (see [`RoundWork::done`]).
    applied: Arc<std::sync::atomic::AtomicU64>,
}

/// What a shard's turn holds: the report workers' queues, and the rounds handed on so far.
struct Dispatch {
    /// Report workers 1..; thread 0's reports are updated by the shard whose turn it is, so
    /// that thread 0, too, applies the rounds in their order.
    workers: Vec<Worker>,
    /// Rounds handed on so far (the last round's [`RoundWork::number`]).
    rounds: u64,
}

impl Shards {
    /// Waits until every round handed on before `held` was taken has been applied by every
    /// thread (or a worker stopped). Held, no round is handed on meanwhile.
    fn wait_applied(&self, held: &Dispatch) {
        while self.applied.load(std::sync::atomic::Ordering::Acquire) < held.rounds
            && !held
                .workers
                .iter()
                .any(|w| w.thread.as_ref().is_some_and(|t| t.is_finished()))
        {
            std::thread::yield_now();
        }
    }
}

/// The merger's state between rounds.
pub struct Merger {
    shared: Arc<Core>,
    ring: Arc<Ring>,
    interned: Interned,
    /// Batches popped this round; kept boxed because they go back to the ring's free list as is.
    #[allow(clippy::vec_box)]
    batches: Vec<Box<Batch>>,
    /// Batches merged before any the ring holds: what the last run received while it stopped
    /// (`pending`), kept out of the ring so that the ring has all its room for what comes while
    /// the snapshot is restored.
    first: std::collections::VecDeque<Box<Batch>>,
    /// For raw batches (see [`Merger::decode_raw`]).
    decoder: crate::decode::Decoder,
    /// The shards' order and the report workers 1.. (`merge.threads - 1`); worker 0 is the
    /// shard whose turn it is.
    shards: Arc<Shards>,
    /// The leader (the merger that [`Merger::new`] made) or a follower shard: the leader alone
    /// fills new reports, sweeps the dictionary, balances the workers and starts and stops the
    /// followers.
    leader: bool,
    /// The followers' threads (the leader's), and what stops them.
    followers: Vec<std::thread::JoinHandle<()>>,
    followers_stop: Arc<AtomicBool>,
    /// The pool ids of the round's requests, in order (between the pool write and the round).
    ids: Vec<u64>,
    /// Round work the workers are done with, for reuse.
    spare: Vec<Arc<RoundWork>>,
    /// Round work possibly still with a worker.
    in_flight: Vec<Arc<RoundWork>>,
    /// When the dictionary was last swept (merger ms).
    last_sweep_ms: u64,
    /// When the dictionary last evicted for a tight budget (see [`Merger::evict`]).
    last_evict_ms: u64,
    /// When report ownership is balanced next (merger ms), and the instruments' readings (by
    /// instrument name) and `requests_merged` at the last balancing.
    next_balance_ms: u64,
    balanced_totals: rustc_hash::FxHashMap<String, crate::instruments::Reading>,
    balanced_merged: u64,
    /// Returns memory to the OS once requests and strings have left (see `memory`).
    reclaimer: crate::memory::Reclaimer,
    /// Where the reports' closed ticks go (history); none: they stay with their reports.
    ticks: Option<Arc<dyn TickTap>>,
}

/// How often the dictionary is swept of strings no longer used (one pass over its entries).
const SWEEP_EVERY_MS: u64 = 1000;

/// How often at most, while the memory budget is tight, the dictionary evicts the strings no
/// report row holds (a pass over every report's and stage's rows, then over the entries).
const EVICT_EVERY_MS: u64 = 2000;

/// The dictionary evicts only while it holds at least this fraction of the budget: below, what
/// it could free cannot ease the budget, and the pass over every report's rows is not worth it.
const EVICT_SHARE: u64 = 16;

/// How long a string must have been unused before it may be evicted: longer than a request's
/// ids take from interning to a report row (a merge round, a worker's queue), and than a tap
/// takes to name a closed tick's keys.
const EVICT_UNUSED_S: u32 = 5;

impl Merger {
    /// A merger with `shared.config.merge.threads - 1` report workers (threads started now).
    pub fn new(shared: Arc<Core>, ring: Arc<Ring>) -> Merger {
        let nice = shared.config().merge.nice();
        let queue = shared.config().merge_queue_requests();
        let workers = (1..shared.config().merge.threads())
            .filter_map(|i| match spawn_worker(i, Arc::clone(shared.counters()), nice, queue) {
                Ok(w) => Some(w),
                Err(e) => {
                    tracing::warn!(error = %e, "Cannot start a report worker; fewer merge threads");
                    None
                }
            })
            .collect::<Vec<_>>();
        let shards = Arc::new(Shards {
            workers: workers.len(),
            turns: Turns::new(Dispatch { workers, rounds: 0 }),
            stamp: Default::default(),
            applied: Default::default(),
        });
        Merger::shard(shared, ring, shards, true)
    }

    fn shard(shared: Arc<Core>, ring: Arc<Ring>, shards: Arc<Shards>, leader: bool) -> Merger {
        let decoder = crate::decode::Decoder::new(shared.config().decode_policy());
        let interned = Interned::with_rewrite(Arc::clone(shared.rewrite()));
        Merger {
            shared,
            ring,
            interned,
            batches: Vec::new(),
            first: Default::default(),
            decoder,
            shards,
            leader,
            followers: Vec::new(),
            followers_stop: Default::default(),
            ids: Vec::new(),
            spare: Vec::new(),
            in_flight: Vec::new(),
            last_sweep_ms: 0,
            last_evict_ms: 0,
            next_balance_ms: FIRST_BALANCE_MS,
            balanced_totals: Default::default(),
            balanced_merged: 0,
            reclaimer: Default::default(),
            ticks: None,
        }
    }

    /// Starts the `merge.shards - 1` followers ("pinbad-shard-N"), each merging batches from
    /// the ring beside the leader. A follower that cannot start is logged; the others merge.
    fn start_followers(&mut self) {
        let stop = &self.followers_stop;
        for n in 1..self.shared.config().merge_shards() {
            let mut follower = Merger::shard(
                Arc::clone(&self.shared),
                Arc::clone(&self.ring),
                Arc::clone(&self.shards),
                false,
            );
            follower.ticks = self.ticks.clone();
            let stop = Arc::clone(stop);
            match std::thread::Builder::new()
                .name(format!("pinbad-shard-{n}"))
                .spawn(move || follower.follow(&stop))
            {
                Ok(t) => self.followers.push(t),
                Err(e) => tracing::warn!(error = %e, "Cannot start a merge shard; fewer shards"),
            }
        }
    }

    /// Stops the followers after their rounds (each hands on every round it prepared).
    fn stop_followers(&mut self) {
        self.followers_stop.store(true, Relaxed);
        for t in self.followers.drain(..) {
            let _ = t.join();
        }
    }

    /// A follower's loop: a round of whatever the ring holds every `stats_gathering_period`
    /// until `stop`. Idle (the ring empty), a round takes no lock and wakes no thread.
    fn follow(mut self, stop: &AtomicBool) {
        lower_priority(self.shared.config().merge.nice());
        let period = self.shared.config().stats_gathering_period.0;
        while !stop.load(Relaxed) {
            let started = Instant::now();
            while self.round() && !stop.load(Relaxed) {}
            if let Some(rest) = period.checked_sub(started.elapsed()) {
                std::thread::sleep(rest);
            }
        }
        self.finish();
    }

    /// Hands the reports' closed ticks to `ticks` (history) from the next round on.
    pub fn with_ticks(mut self, ticks: Arc<dyn TickTap>) -> Merger {
        self.ticks = Some(ticks);
        self
    }

    /// Merges `batches` before anything the ring holds (see `first`).
    pub fn merge_first(mut self, batches: Vec<Box<Batch>>) -> Merger {
        self.first.extend(batches);
        self
    }

    /// Rounds every `stats_gathering_period` until `stop` is set; then, with `drain`, merges
    /// whatever the receivers handed over before they stopped (for at most `SHUTDOWN_DRAIN`).
    /// Without, it leaves the ring as it is: the receivers are still running, and what the ring
    /// holds when they stop is saved for the next start (`pending`).
    pub fn run(mut self, stop: &AtomicBool, drain: bool) {
        lower_priority(self.shared.config().merge.nice());
        let period = self.shared.config().stats_gathering_period.0;
        let mut next = Instant::now() + period;
        let raw_until = Instant::now() + RAW_UNTIL_CAUGHT_UP;
        let mut followers_started = false;
        while !stop.load(Relaxed) {
            let now = Instant::now();
            if now < next {
                std::thread::sleep((next - now).min(Duration::from_millis(50)));
                continue;
            }
            next += period;
            if next < now {
                next = now + period;
            }
            // A round takes at most ROUND_REQUESTS; when the ring holds more, go again at once
            // (the locks are released in between, so readers get their turn).
            let mut waiting = true;
            while waiting && !stop.load(Relaxed) {
                waiting = self.round();
            }
            // Caught up (or past the bound): receivers decode from now on (see `Ring::is_raw`).
            if self.ring.is_raw() && (!waiting || Instant::now() >= raw_until) {
                self.ring.set_raw(false);
            }
            // The followers once the start-up's backlog (raw batches, the last run's pending)
            // is merged: until then the leader's rounds come first.
            if !followers_started && !self.ring.is_raw() && self.first.is_empty() {
                followers_started = true;
                self.start_followers();
            }
        }
        self.stop_followers();
        if drain {
            self.drain(SHUTDOWN_DRAIN);
        } else {
            // Nothing merges any more: receivers queue raw batches, the least memory.
            self.ring.set_raw(true);
            // What is left of the last run's pending goes back with the rest (rare: a stop
            // right after a start).
            for b in self.first.drain(..) {
                if let Err(b) = self.ring.push(b) {
                    let dropped = &self.shared.counters().temp_pool_dropped;
                    dropped.fetch_add(b.len() as u64, Relaxed);
                }
            }
            self.finish();
        }
    }

    /// At shutdown: merges what the receivers handed over for at most `budget`, so that the
    /// process exits promptly even behind a full ring; batches left then are counted as dropped.
    fn drain(&mut self, budget: Duration) {
        let deadline = Instant::now() + budget;
        while self.round() && Instant::now() < deadline {}
        let mut dropped = 0;
        while let Some(b) = self.first.pop_front().or_else(|| self.ring.pop()) {
            dropped += b.len() as u64;
            self.ring.recycle(b);
        }
        if dropped > 0 {
            self.shared
                .counters()
                .temp_pool_dropped
                .fetch_add(dropped, Relaxed);
            tracing::warn!(
                requests = dropped,
                "Stopped before merging everything received"
            );
        }
        self.finish();
    }

    /// Waits until every worker has applied every round any shard handed on so far and it is
    /// counted in `requests_merged` (tests, benches, shutdown).
    pub fn finish(&mut self) {
        let held = self.shards.turns.hold();
        self.shards.wait_applied(&held);
    }

    /// One merge round (see the module docs) over at most [`ROUND_REQUESTS`] requests; returns
    /// whether batches are still waiting. Public for tests and benches.
    pub fn round(&mut self) -> bool {
        // One reading: a request's pool time and its report time are the same instant (two
        // readings could put a report's fill from the pool in the neighbouring tick).
        let now64 = self.shared.clock().now_ms64();
        self.round_at(now64)
    }

    /// [`Merger::round`] at `now64` (ms of the pool's clock, never less than an earlier
    /// round's): for benches that run the merge on a simulated clock, so that a tick holds as
    /// many requests as at a production rate whatever the bench's own speed.
    pub fn round_at(&mut self, now64: u64) -> bool {
        let started = Instant::now();
        let shared = Arc::clone(&self.shared);
        let now_ms = now64 as u32;
        let mut requests = 0;
        while requests < ROUND_REQUESTS {
            let Some(mut b) = self.first.pop_front().or_else(|| self.ring.pop()) else {
                break;
            };
            if b.raw {
                b = self.decode_raw(b);
            }
            requests += b.len();
            self.batches.push(b);
        }
        // Phase 1: intern what no receiver did (raw batches); the receivers' records are
        // stored from their batches as they are, stamped with the round's time.
        if !self.leader {
            // A follower interns a raw batch as a receiver would (the leader sweeps and
            // publishes the dictionary).
            if self.batches.iter().any(|b| !b.interned.done) {
                let instruments = &shared.counters().instruments;
                let timing = instruments.intern.start();
                let mut interned_here = 0;
                for b in self.batches.iter_mut().filter(|b| !b.interned.done) {
                    self.interned.intern_batch(b, shared.dictionary());
                    interned_here += b.len();
                }
                instruments.intern.record(timing, interned_here as u64);
            }
        } else {
            shared.dictionary().read().set_now((now64 / 1000) as u32);
            if self.batches.iter().any(|b| !b.interned.done) {
                let instruments = &shared.counters().instruments;
                let timing = instruments.intern.start();
                let dict = shared.dictionary().upgradable_read();
                let mut dict = SharedInterner::Core(dict);
                let mut interned_here = 0;
                for b in self.batches.iter().filter(|b| !b.interned.done) {
                    self.interned.intern(b, now_ms, &mut dict);
                    interned_here += b.len();
                }
                self.interned.flush_rewrite_hits();
                shared.publish_dictionary(dict.get());
                drop(dict);
                instruments.intern.record(timing, interned_here as u64);
            } else if !self.batches.is_empty() {
                shared.publish_dictionary(&shared.dictionary().read());
            }
        }
        // Phases 2 and 3.
        let worked = self.store(now64);
        for b in self.batches.drain(..) {
            self.ring.recycle(b);
        }
        if worked {
            shared
                .counters()
                .record_merge(started.elapsed().as_micros() as u64);
        }
        if !self.leader {
            return !self.ring.is_empty();
        }
        if now64.saturating_sub(self.last_sweep_ms) >= SWEEP_EVERY_MS {
            self.last_sweep_ms = now64;
            self.sweep(now64);
            let budget = shared.budget();
            if budget.tight()
                && now64.saturating_sub(self.last_evict_ms) >= EVICT_EVERY_MS
                && shared.dictionary().read().memory_bytes() >= budget.limit() / EVICT_SHARE
            {
                self.last_evict_ms = now64;
                self.evict(now64);
            }
        }
        if self.shards.workers > 0 && now64 >= self.next_balance_ms {
            self.next_balance_ms = now64 + BALANCE_EVERY_MS;
            self.balance();
        }
        self.reclaimer.maybe_collect();
        // What the reports, the stages and the dictionary settled this round, judged once.
        shared.budget().judge();
        !self.first.is_empty() || !self.ring.is_empty()
    }

    /// Decodes a raw batch (queued while no merger ran, see [`Batch::raw`]) as its receiver would
    /// have, and sets `requests_accepted` right (each datagram was counted as one request).
    fn decode_raw(&mut self, raw: Box<Batch>) -> Box<Batch> {
        let counters = &self.shared.counters();
        let timing = counters.instruments.decode.start();
        let mut out = self.ring.take_empty();
        let mut stats = crate::counters::DecodeStats::default();
        for datagram in raw.payloads() {
            self.decoder.decode(datagram, &mut out, &mut stats);
        }
        counters.instruments.decode.record(timing, raw.len() as u64);
        counters
            .requests_accepted
            .fetch_sub(raw.len() as u64, Relaxed);
        counters.absorb(&mut stats);
        self.ring.recycle(raw);
        out
    }

    /// Frees the dictionary's strings that nothing can refer to any more: unused for longer than
    /// the longest window (reports' `history`, the pool's `stats_history`) plus its tick and a
    /// margin.
    fn sweep(&mut self, now64: u64) {
        let shared = &*self.shared;
        let longest = shared
            .reports()
            .snapshot()
            .iter()
            .map(|c| c.window().history_ms + c.window().tick_ms)
            .chain([shared.config().stats_history.0.as_millis() as u64])
            .max()
            .unwrap_or(0);
        let horizon_s = now64.saturating_sub(longest + 2000) / 1000;
        if horizon_s == 0 {
            return;
        }
        let timing = shared.counters().instruments.sweep.start();
        let mut dict = shared.dictionary().write();
        if dict.sweep(horizon_s as u32) > 0 {
            self.reclaimer.freed();
            self.interned.dictionary_swept();
        }
        shared.publish_dictionary(&dict);
        drop(dict);
        shared.counters().instruments.sweep.record(timing, 1);
    }

    /// While the memory budget is tight: evicts the dictionary's strings that no report row, no
    /// family stage and no pin holds and that were not used for [`EVICT_UNUSED_S`], so that
    /// after a flood of unique names the budget eases once the reports have folded the flood's
    /// rows away (at their next closes), not once the raw pool lets go of the names a window
    /// later. The raw pool's requests naming an evicted string show "<dictionary full>".
    fn evict(&mut self, now64: u64) {
        let shared = &*self.shared;
        let timing = shared.counters().instruments.evict.start();
        let bound = shared.dictionary().read().id_bound();
        let mut referenced = vec![0u64; bound.div_ceil(64)];
        let mut mark = |id: u32| {
            if let Some(w) = referenced.get_mut(id as usize / 64) {
                *w |= 1 << (id % 64);
            }
        };
        // The stages before their members: rows move from stages to members, never back.
        let cells = shared.reports().owners();
        let mut families: Vec<&Arc<crate::report::Family>> = Vec::new();
        for family in cells.iter().filter_map(|c| c.family()) {
            if !families.iter().any(|f| Arc::ptr_eq(f, family)) {
                families.push(family);
            }
        }
        for family in families {
            family.mark_stage_key_ids(&mut mark);
        }
        for cell in &cells {
            cell.report.read().mark_key_ids(&mut mark);
        }
        let before = ((now64 / 1000) as u32).saturating_sub(EVICT_UNUSED_S);
        let mut dict = shared.dictionary().write();
        let evicted = dict.evict_unreferenced(&referenced, before);
        if evicted > 0 {
            shared.budget().evicted_names(evicted as u64);
            self.reclaimer.freed();
            self.interned.dictionary_swept();
        }
        shared.publish_dictionary(&dict);
        drop(dict);
        shared.counters().instruments.evict.record(timing, 1);
    }

    /// Phases 2 (pool) and 3 (reports); returns whether any request was merged.
    ///
    /// Reports do not depend on the pool: each round's requests go to every report's window, and
    /// leave it with their tick, whatever the pool keeps or overwrites. A report new since the
    /// last round is first filled from the pool (by the leader, before this round's requests can
    /// overwrite any). Each report is then updated by the worker it belongs to; worker 0's by
    /// the shard whose turn it is.
    ///
    /// The round's time is read under the pool's write lock, where its ticket is taken (see
    /// [`Shards::stamp`]); the round is prepared with no lock held, and handed on in its turn.
    /// A report's round sees it only once it is filled: a round stored before the fill left
    /// its requests in the pool that the fill read, and one stored after has the report.
    fn store(&mut self, now64: u64) -> bool {
        let shared = Arc::clone(&self.shared);
        let cells = shared.reports().owners();
        let history_ms = shared
            .config()
            .stats_history
            .0
            .as_millis()
            .min(u32::MAX as u128) as u32;
        // Idle (no requests, nothing to expire, no window to move, no report to fill): no lock
        // taken, no thread woken. What keeps an idle daemon under 1 % of a core. A follower
        // rounds only with requests: the leader moves the windows.
        let oldest = shared.counters().gauges.pool_oldest_ms.load(Relaxed);
        let pool_expires =
            oldest != u64::MAX && (now64 as u32).wrapping_sub(oldest as u32) > history_ms;
        let received: usize = self.receivers_interned().map(|r| r.len()).sum();
        let merged = (self.interned.len() + received) as u64;
        if merged == 0
            && (!self.leader
                || !pool_expires
                    && cells
                        .iter()
                        .all(|c| c.next_tick_ms() > now64 && c.is_filled()))
        {
            return false;
        }
        let mut work = self.take_work();
        let work_mut = Arc::get_mut(&mut work).expect("spare round work is unshared");
        work_mut.ticks = self.ticks.clone();
        work_mut.cells.clear();
        let timing = shared.counters().instruments.pool.start();
        let (ticket, now64) = {
            let mut pool = shared.pool().write();
            let now64 = now64.max(self.shards.stamp.load(Relaxed));
            self.shards.stamp.store(now64, Relaxed);
            let now_ms = now64 as u32;
            if self.leader {
                for cell in &cells {
                    if !cell.is_filled() {
                        self.fill(cell, &cells, &pool, now_ms, now64);
                    }
                }
            }
            work_mut
                .cells
                .extend(cells.iter().filter(|c| c.is_filled()).cloned());
            // Expiry.
            let expired = pool.count_expired(now_ms, history_ms);
            if expired > 0 {
                pool.remove_oldest(expired, Removal::Expired, &mut |_, _| {});
                shared
                    .counters()
                    .pool_expired
                    .fetch_add(expired as u64, Relaxed);
            }
            // Insertion, of ids reserved first.
            shared.ids().ensure(pool.next_id(), merged as usize);
            let (mut overwritten, mut timers_lost) = (0u64, 0u64);
            // Taken out while `self`'s batches are read, and put back below (its capacity kept).
            let mut ids = std::mem::take(&mut self.ids);
            let sources = std::iter::once(self.interned.output()).chain(self.receivers_interned());
            for interned in sources {
                for r in &interned.requests {
                    let record = Record {
                        time_ms: now_ms,
                        ..r.record
                    };
                    let timers = &interned.timers[r.timers.clone()];
                    let tags = &interned.tags[r.tags.clone()];
                    let (id, loss) =
                        pool.insert(record, timers, tags, &mut |_, _| overwritten += 1);
                    timers_lost += loss.timers as u64;
                    ids.push(id);
                }
            }
            self.ids = ids;
            shared
                .counters()
                .pool_overwritten
                .fetch_add(overwritten, Relaxed);
            shared
                .counters()
                .timers_lost
                .fetch_add(timers_lost, Relaxed);
            shared.publish_pool(&pool);
            (self.shards.turns.ticket(), now64)
        };
        // The round's requests, prepared once for every report, with no lock held.
        let batch = Arc::get_mut(&mut work_mut.round)
            .expect("a spare round is unshared")
            .restart(now64);
        let mut ids = self.ids.iter();
        let sources = std::iter::once(self.interned.output()).chain(self.receivers_interned());
        for interned in sources {
            for (r, &id) in interned.requests.iter().zip(&mut ids) {
                let record = Record {
                    time_ms: now64 as u32,
                    ..r.record
                };
                batch.push(&RequestView {
                    id,
                    record: &record,
                    tag_block: &interned.tags[r.tags.clone()],
                    timers: &interned.timers[r.timers.clone()],
                });
            }
        }
        self.ids.clear();
        shared.counters().instruments.pool.record(timing, merged);
        self.interned.clear();
        work_mut.merged = merged;
        work_mut.behind =
            (self.ring.bytes() > self.ring.max_bytes() / BEHIND_SHARE).then_some(now64);

        // Phase 3, in the round's turn: the reports as the turn finds them assigned.
        let asked = Instant::now();
        let mut turn = self.shards.turns.wait(ticket);
        let waited = asked.elapsed().as_micros() as u64;
        if waited > 0 {
            shared
                .counters()
                .merge_turn_waited_us
                .fetch_add(waited, Relaxed);
        }
        work_mut.leaders = round_leaders(&work_mut.cells);
        work_mut.splits.clear();
        work_mut
            .splits
            .extend(work_mut.cells.iter().map(|c| c.split()));
        work_mut.stage_splits.clear();
        for (at, c) in work_mut.cells.iter().enumerate() {
            if let Some(f) = c.family().filter(|_| work_mut.leaders[at] == at) {
                if let Some(split) = f.split() {
                    work_mut.stage_splits.push((Arc::clone(f), split, at));
                }
            }
        }
        turn.rounds += 1;
        work_mut.number = turn.rounds;
        *work_mut.remaining.get_mut() = turn.workers.len() + 2;
        // Taps (stream, sinks, metrics) get the round as the workers do; they never block.
        if merged > 0 {
            shared.taps().publish(&work.round);
        }
        // The workers' share first (they run while this thread does worker 0's).
        for w in &turn.workers {
            if let Some(thread) = &w.thread {
                if let Some(waited) = w.backlog.admit(round_weight(&work), thread) {
                    shared
                        .counters()
                        .merge_waited_us
                        .fetch_add(waited.as_micros() as u64, Relaxed);
                }
            }
            if w.tx.send(Arc::clone(&work)).is_err() {
                tracing::error!("A report worker stopped; its reports no longer update");
                work.done(shared.counters());
            }
        }
        let mut turned = false;
        for (at, cell) in work.cells.iter().enumerate() {
            if cell.worker() == 0 || cell.worker() > turn.workers.len() {
                update_report(&work, at, &mut turned);
            }
        }
        count_parts(&work, 0);
        work.done(shared.counters());
        drop(turn);
        self.in_flight.push(work);
        merged > 0
    }

    /// The round's batches that receivers interned, as they interned them.
    fn receivers_interned(&self) -> impl Iterator<Item = &crate::record::InternedRequests> + '_ {
        self.batches
            .iter()
            .filter(|b| b.interned.done)
            .map(|b| &b.interned)
    }

    /// A round work to fill: a spare one no worker holds any more, else a new one.
    fn take_work(&mut self) -> Arc<RoundWork> {
        let mut i = 0;
        while i < self.in_flight.len() {
            let w = &self.in_flight[i];
            // Neither a worker nor a tap holds it.
            if Arc::strong_count(w) == 1 && Arc::strong_count(&w.round) == 1 {
                let w = self.in_flight.swap_remove(i);
                self.spare.push(w);
            } else {
                i += 1;
            }
        }
        self.spare
            .pop()
            .unwrap_or_else(|| Arc::new(RoundWork::new(Arc::clone(&self.shards.applied))))
    }

    /// Fills a report created since the last round from what the raw pool holds, and gives it to
    /// the least loaded worker. It says from when it is complete: from the daemon's start when the
    /// pool never overwrote a request (and, for a window longer than `stats_history`, never
    /// expired one), else from the oldest request the pool still holds; and never from before
    /// the pool was complete at start-up (a restored pool, or none after a crash:
    /// `Core::pool_complete_from_ms`).
    fn fill(
        &mut self,
        cell: &ReportCell,
        cells: &[Arc<ReportCell>],
        pool: &Pool,
        now_ms: u32,
        now64: u64,
    ) {
        let shared = &*self.shared;
        let to64 = |t: u32| now64.saturating_sub(now_ms.wrapping_sub(t) as u64);
        let mut complete_from = shared.pool_complete_from_ms();
        if shared.counters().pool_overwritten.load(Relaxed) > 0 {
            complete_from = complete_from.max(pool.oldest_time_ms().map_or(now64, to64));
        }
        let stats_history = shared.config().stats_history.0.as_millis() as u64;
        {
            let mut report = cell.report.write();
            if report.window().history_ms > stats_history
                && shared.counters().pool_expired.load(Relaxed) > 0
            {
                complete_from = complete_from.max(now64.saturating_sub(stats_history));
            }
            report.start_at(complete_from);
            let window_from = now64.saturating_sub(report.window().history_ms);
            let mut batch = PreparedBatch::default();
            let mut batch_time = None;
            for v in pool.iter_oldest_first() {
                let t = to64(v.record.time_ms);
                if t < window_from {
                    continue;
                }
                if batch_time != Some(t) {
                    if let Some(bt) = batch_time {
                        report.advance(bt);
                        report.add_batch(&batch);
                        batch.clear();
                    }
                    batch_time = Some(t);
                }
                batch.push(&v);
            }
            if let Some(bt) = batch_time {
                report.advance(bt);
                report.add_batch(&batch);
            }
            report.advance(now64);
            cell.publish(&report);
        }
        // Until the next balancing by measured cost, the thread with the least estimated load:
        // timer reports cost about a request report per timer, the merger has its own work.
        let cost = |c: &ReportCell| match c.report.read().kind() {
            crate::report::Kind::Timer => 8,
            _ => 1,
        };
        let mut load = vec![0; self.shards.workers + 1];
        load[0] = MERGER_OWN_COST;
        for c in cells.iter().filter(|c| c.is_filled()) {
            load[c.worker().min(self.shards.workers)] += cost(c);
        }
        let worker = (0..load.len()).min_by_key(|&w| load[w]).unwrap_or(0);
        cell.set_worker(worker);
        cell.mark_filled();
    }
}

/// How often report ownership is balanced over the merge threads by measured cost.
const BALANCE_EVERY_MS: u64 = 10_000;
/// The first balancing, soon after start: it takes the reports' costs so far as the baseline,
/// so that the second one, [`BALANCE_EVERY_MS`] later, replaces the creation-time estimate by
/// costs measured over a whole period. (Balancing at 2 s on the costs since creation, and every
/// 2 s while the first window filled, was tried against cold starts with 100 timer-tag reports:
/// costs of the first seconds miss the stages' drains, which start at 5 s, and the drops did not
/// change: that cold start needs more CPU than the 2 cores have beside the sender.)
const FIRST_BALANCE_MS: u64 = 2_000;

impl Merger {
    /// Gives each report to a merge thread so that their measured loads even out: each report's
    /// time since the last balancing (its `report:NAME` instrument), the merger's own (intern and
    /// pool) on thread 0, longest first to the least loaded thread. Applied only when it lowers the
    /// busiest thread's load by more than 10 %, after the workers finished the rounds sent (so a
    /// report never has two threads' rounds in flight), which costs a wait for the rounds queued
    /// (at most `WORKER_QUEUE_REQUESTS`).
    ///
    /// Public for benches: the merger balances every `BALANCE_EVERY_MS`; a bench measuring
    /// seconds after filling its window would otherwise run on the plan made while it filled.
    pub fn balance(&mut self) {
        if self.shards.workers == 0 {
            return;
        }
        let shared = Arc::clone(&self.shared);
        let inst = &shared.counters().instruments;
        let merged = shared.counters().requests_merged.load(Relaxed);
        let merged_since =
            merged.saturating_sub(std::mem::replace(&mut self.balanced_merged, merged));
        let totals = &mut self.balanced_totals;
        // What an instrument's work cost since the last balancing: the time measured, with the
        // events counted untimed at its timed mean, or, switched off (counting nothing), the
        // requests merged meanwhile at that mean. A stage or report whose instrument is
        // switched off keeps its measured weight instead of looking free.
        let mut weigh = |i: &crate::instruments::Instrument| -> u64 {
            let now = i.reading();
            let before = totals.insert(i.name().to_string(), now).unwrap_or(now);
            if i.enabled() {
                now.cost_since(&before, i.mean_ns())
            } else {
                (merged_since as f64 * i.mean_ns()) as u64
            }
        };
        // The merger's own work: the pool (and the receivers' records copied in). Interning is
        // the receivers' (the merger interns only the raw batches of a start-up).
        let own = weigh(&inst.pool);
        let cells = shared.reports().owners();
        let mut costs: Vec<(u64, &Arc<ReportCell>)> =
            cells.iter().map(|c| (weigh(&c.instrument), c)).collect();
        self.balanced_totals.retain(|name, _| {
            name == inst.pool.name() || cells.iter().any(|c| c.instrument.name() == name)
        });
        fold_family_costs(&mut costs);
        if costs.iter().all(|(cost, _)| *cost == 0) {
            return; // idle, never timed, or the first call
        }
        let threads = self.shards.workers + 1;
        // A split report's or stage's cost is spread evenly over its threads.
        let mut current = vec![0u64; threads];
        current[0] = own;
        for (cost, c) in &costs {
            let parts = c.parts_on();
            let n = parts.len() as u64 + 1;
            for w in parts.into_iter().chain([c.worker()]) {
                current[w.min(threads - 1)] += cost / n;
            }
        }
        // Reports alone (no family), and families' stages (through their leader, whose cost
        // is the stage's), may be split over every thread (`merge.split_reports`): the
        // costliest k of them, for the k whose plan has the least busy busiest thread, kept
        // only where it lowers that thread's load by a tenth (a split costs its folds).
        costs.sort_by_key(|c| std::cmp::Reverse(c.0));
        let weights: Vec<u64> = costs.iter().map(|c| c.0).collect();
        let mut split = vec![false; costs.len()];
        let (mut places, mut load) = plan_threads(&weights, &split, own, threads);
        if shared.config().merge.split_reports {
            let unsplit = busiest(&load);
            let mut best: Option<(Vec<Place>, Vec<u64>)> = None;
            for i in (0..costs.len()).filter(|&i| splittable(costs[i].1)) {
                split[i] = true;
                let (p, l) = plan_threads(&weights, &split, own, threads);
                let better = best.as_ref().is_none_or(|(_, b)| busiest(&l) < busiest(b));
                if busiest(&l) * 10 < unsplit * 9 && better {
                    best = Some((p, l));
                }
            }
            if let Some((p, l)) = best {
                (places, load) = (p, l);
            }
        }
        let plan: Vec<_> = costs
            .iter()
            .zip(places)
            .map(|((_, c), (w, parts))| (Arc::clone(c), w, (!parts.is_empty()).then_some(parts)))
            .collect();
        let (busiest_now, busiest_then) = (busiest(&current), busiest(&load));
        if busiest_then * 10 >= busiest_now * 9 {
            return;
        }
        // Held, no shard hands a round on; the assignments wait until none is in flight.
        let held = self.shards.turns.hold();
        self.shards.wait_applied(&held);
        for (c, w, parts) in plan {
            assign_now(&c, w, parts.as_deref(), held.rounds);
        }
        drop(held);
        tracing::debug!(?load, ?current, "Reports rebalanced over the merge threads");
    }
}

/// Most threads one report's or stage's work is split over. The owner folds every part's rows
/// at each tick (and a stage's leader absorbs them at its turn): beyond two threads the folds
/// the owner takes on outgrow the counting it hands off (measured with 8 merge threads, the
/// heaviest units split over 7 or 8: the owner's thread busier than unsplit, and the whole
/// daemon's CPU half as much again).
const MAX_SPLIT_THREADS: usize = 2;

/// The busiest thread's load.
fn busiest(load: &[u64]) -> u64 {
    load.iter().max().copied().unwrap_or(0)
}

/// One report's place in a plan: the thread that owns it, and the threads counting its parts
/// (empty: not split).
type Place = (usize, Vec<usize>);

/// A plan of reports over `threads` merge threads, thread 0 starting with the merger's `own`
/// work: the reports not marked in `split` first, costliest first (`weights` are in that
/// order), each to the least loaded thread; then each report marked in `split` over the n least
/// loaded threads, a share each, for the n that leaves the busiest thread least loaded (the
/// fewest threads at a tie: each part costs its folds), owned by the least loaded of them.
/// Returns each report's place and the threads' loads.
fn plan_threads(
    weights: &[u64],
    split: &[bool],
    own: u64,
    threads: usize,
) -> (Vec<Place>, Vec<u64>) {
    let mut load = vec![0u64; threads];
    load[0] = own;
    let mut places = vec![(0, Vec::new()); weights.len()];
    let order = (0..weights.len())
        .filter(|&i| !split[i])
        .chain((0..weights.len()).filter(|&i| split[i]));
    for i in order {
        let cost = weights[i];
        if !split[i] {
            let w = (0..threads).min_by_key(|&w| load[w]).unwrap_or(0);
            load[w] += cost;
            places[i] = (w, Vec::new());
            continue;
        }
        let mut by_load: Vec<usize> = (0..threads).collect();
        by_load.sort_by_key(|&t| (load[t], t));
        let highest = busiest(&load);
        let n = (1..=threads.min(MAX_SPLIT_THREADS))
            .min_by_key(|&n| (highest.max(load[by_load[n - 1]] + cost / n as u64), n))
            .unwrap_or(1);
        for &t in &by_load[..n] {
            load[t] += cost / n as u64;
        }
        places[i] = (by_load[0], by_load[1..n].to_vec());
    }
    (places, load)
}

impl Merger {
    /// Gives `cell` to merge thread `owner`, split with parts on the threads `parts` (see
    /// `report::split`) or not split (`None`); what its parts held is folded into it first. Waits
    /// until no round is in flight. Public for tests and benches (the balancing decides it).
    ///
    /// A family's leader splits its family's stage instead (see `report::split`, "split
    /// stages"): the leader's thread counts the stage's first slice.
    pub fn assign(&mut self, cell: &ReportCell, owner: usize, parts: Option<&[usize]>) {
        let held = self.shards.turns.hold();
        self.shards.wait_applied(&held);
        assign_now(cell, owner, parts, held.rounds);
    }
}

/// [`Merger::assign`] once no round is in flight, `rounds` having been handed on.
fn assign_now(cell: &ReportCell, owner: usize, parts: Option<&[usize]>, rounds: u64) {
    if let Some(family) = cell.family().filter(|f| f.is_led_by(cell)) {
        family.set_split(None);
        cell.set_worker(owner);
        if let Some(parts) = parts.filter(|_| family.can_split()) {
            let split = family.with_stage(|stage| StageSplit::new(stage, parts, rounds));
            family.set_split(Some(Arc::new(split)));
        }
        return;
    }
    cell.set_split(None);
    cell.set_worker(owner);
    // Another family member's work is its turns at the stage: not split.
    if let Some(parts) = parts.filter(|_| cell.family().is_none()) {
        let split = Split::new(&cell.report.read(), parts, rounds);
        cell.set_split(Some(Arc::new(split)));
    }
}

/// Whether the balancing may split `cell`'s work over threads: a report alone, or a family's
/// leader when its stage can be split.
fn splittable(cell: &ReportCell) -> bool {
    cell.family()
        .is_none_or(|f| f.is_led_by(cell) && f.can_split())
}

/// A detached family member is updated on its leader's thread: its cost moves to its leader's
/// entry. (An attached member's cost, its turns at the frozen stage, stays its own: they run on
/// its own thread.) `costs` are the reports of a round, in any order: they decide the leaders.
fn fold_family_costs(costs: &mut [(u64, &Arc<ReportCell>)]) {
    let cells: Vec<Arc<ReportCell>> = costs.iter().map(|(_, c)| Arc::clone(c)).collect();
    let leaders = round_leaders(&cells);
    for (i, &l) in leaders.iter().enumerate() {
        let detached = cells[i].family().is_some_and(|f| f.is_detached(&cells[i]));
        if l != usize::MAX && l != i && detached {
            costs[l].0 += std::mem::take(&mut costs[i].0);
        }
    }
}

/// The merger's own work (intern, pool), in the units of [`Merger::fill`]'s report costs, so that
/// worker 0 (the merger) gets fewer reports.
const MERGER_OWN_COST: u64 = 12;

impl Drop for Merger {
    fn drop(&mut self) {
        self.stop_followers();
        if !self.leader {
            return;
        }
        let workers = std::mem::take(&mut self.shards.turns.hold().workers);
        for w in workers {
            drop(w.tx);
            if let Some(t) = w.thread {
                let _ = t.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::corpus::{Corpus, CorpusSpec};

    /// The merger's wait for a worker's backlog: it admits while the backlog has room (or is
    /// empty, for a round larger than the bound), waits while it is full until the worker counts
    /// requests off, and never waits on a worker that has stopped; it says how long it waited
    /// (`merge.waited_ms`) only when it did. Each admission runs on a thread of its own and is
    /// waited for with a deadline, so a wrong wait fails, not hangs.
    #[test]
    fn a_full_backlog_waits_for_the_worker_and_never_for_a_stopped_one() {
        use std::sync::mpsc::channel;
        type Handle = Arc<std::thread::JoinHandle<()>>;
        let deadline = Duration::from_secs(30);
        let admit = |backlog: &Arc<Backlog>, n: usize, worker: &Handle| {
            let (backlog, worker, (tx, rx)) = (Arc::clone(backlog), Arc::clone(worker), channel());
            std::thread::spawn(move || {
                tx.send(backlog.admit(n, &worker)).ok();
            });
            rx
        };
        let queued = |backlog: &Backlog| *backlog.queued.lock();
        // A worker thread that runs until told to stop, and one that has stopped.
        let (stop_tx, stop_rx) = channel::<()>();
        let running: Handle = Arc::new(std::thread::spawn(move || {
            stop_rx.recv().ok();
        }));
        let stopped: Handle = Arc::new(std::thread::spawn(|| {}));
        let started = Instant::now();
        while !stopped.is_finished() {
            assert!(started.elapsed() < deadline, "the thread never finished");
            std::thread::yield_now();
        }

        let backlog = Arc::new(Backlog::new(WORKER_QUEUE_REQUESTS));
        let big = WORKER_QUEUE_REQUESTS + 5;
        // Admitted at once, it says it did not wait (`merge.waited_ms` counts only waits).
        let waited = admit(&backlog, big, &running)
            .recv_timeout(deadline)
            .expect("an empty backlog admits a round larger than the bound");
        assert_eq!(waited, None);
        backlog.applied(big);
        let waited = admit(&backlog, WORKER_QUEUE_REQUESTS - 1, &running)
            .recv_timeout(deadline)
            .expect("room");
        assert_eq!(waited, None);
        admit(&backlog, 1, &running)
            .recv_timeout(deadline)
            .expect("room for the last one");
        assert_eq!(queued(&backlog), WORKER_QUEUE_REQUESTS);

        // Full: a further admission waits until the worker applies what it holds.
        let waiting = admit(&backlog, 10, &running);
        // Still waiting a while later (it cannot go on before `applied`: no false failure).
        assert!(
            waiting.recv_timeout(Duration::from_millis(200)).is_err(),
            "admitted into a full backlog"
        );
        assert_eq!(queued(&backlog), WORKER_QUEUE_REQUESTS);
        backlog.applied(WORKER_QUEUE_REQUESTS);
        let waited = waiting
            .recv_timeout(deadline)
            .expect("the admission went on once the worker applied its backlog");
        assert!(waited.is_some(), "the merger's wait is measured");
        assert_eq!(queued(&backlog), 10);

        // A stopped worker never holds the merger, however full its backlog.
        admit(&backlog, WORKER_QUEUE_REQUESTS, &stopped)
            .recv_timeout(deadline)
            .expect("no wait for a stopped worker");
        assert_eq!(queued(&backlog), WORKER_QUEUE_REQUESTS + 10);
        stop_tx.send(()).unwrap();
    }

    fn batch_of(n: usize, corpus: &mut Corpus) -> Box<Batch> {
        corpus.decoded_batch(n)
    }

    /// Receivers interning their own batches, two of them handing batches over in any
    /// interleaving, give the reports (request, info and timer reports: every row's sums and
    /// percentiles) and the raw pool that the merger gives when it interns everything itself.
    #[test]
    fn receivers_interning_in_any_interleaving_equals_the_merger_interning() {
        let mut corpus = Corpus::new(CorpusSpec::default());
        let batches: Vec<Box<Batch>> = (0..10).map(|_| corpus.decoded_batch(300)).collect();
        let reference = pipeline_answers(&batches, None, 1);
        assert!(reference.len() > 3000, "rows and requests compared");
        for seed in [1, 2, 3] {
            let got = pipeline_answers(&batches, Some(seed), 1);
            assert!(got == reference, "seed {seed}: the answers differ");
        }
    }

    /// Shards (the merger and followers storing and preparing rounds side by side, in any
    /// interleaving the threads fall into) give the reports and the raw pool that one merger
    /// gives over the same requests.
    #[test]
    fn sharded_merging_in_any_interleaving_equals_one_merger() {
        let mut corpus = Corpus::new(CorpusSpec::default());
        let batches: Vec<Box<Batch>> = (0..24).map(|_| corpus.decoded_batch(250)).collect();
        let reference = pipeline_answers(&batches, None, 1);
        assert!(reference.len() > 6000, "rows and requests compared");
        for (seed, shards) in [(1, 2), (2, 3), (3, 4), (4, 2)] {
            let got = pipeline_answers(&batches, Some(seed), shards);
            assert!(
                got == reference,
                "seed {seed}, {shards} shards: the answers differ"
            );
        }
    }

    /// Every report's rows (but the rates, which follow the clock) and every pooled request, as
    /// text, sorted, after merging `batches`: interned by the merger (`None`), or by two
    /// receivers in an interleaving `seed` picks; merged by `shards` (the merger and followers
    /// on threads of their own, rounding as fast as they can).
    fn pipeline_answers(batches: &[Box<Batch>], seed: Option<u64>, shards: usize) -> Vec<String> {
        use crate::report::{Query, ReportDef};
        let state = tempfile::tempdir().unwrap();
        let mut config = Config {
            state_dir: state.path().to_path_buf(),
            ..Config::default()
        };
        config.merge.threads = 2;
        config.report = vec![
            ReportDef::new("tag_group", &["timer_tag:group"]),
            ReportDef::new("script_group", &["script_name", "timer_tag:group"]),
            ReportDef::new("group_server", &["timer_tag:group", "timer_tag:server"]),
        ];
        let ring = Arc::new(Ring::new(1 << 30));
        let shared = Arc::new(Core::new(config, Arc::clone(&ring), vec![], 0).unwrap());
        let mut merger = Merger::new(Arc::clone(&shared), Arc::clone(&ring));
        let mut order: Vec<Box<Batch>> = batches.to_vec();
        if let Some(seed) = seed {
            // A seeded shuffle (xorshift): the order in which the receivers' hand-overs reach
            // the ring; each batch interned by the receiver that took it.
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            for i in (1..order.len()).rev() {
                order.swap(i, next() as usize % (i + 1));
            }
            let mut receivers = [Interned::default(), Interned::default()];
            let dictionary = shared.dictionary_handle();
            for b in &mut order {
                receivers[next() as usize % 2].intern_batch(b, &dictionary);
            }
        }
        let stop = Arc::new(AtomicBool::new(false));
        let followers: Vec<_> = (1..shards)
            .map(|_| {
                let mut follower = Merger::shard(
                    Arc::clone(&shared),
                    Arc::clone(&ring),
                    Arc::clone(&merger.shards),
                    false,
                );
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    while !stop.load(Relaxed) {
                        if !follower.round() {
                            std::thread::yield_now();
                        }
                    }
                    follower.finish();
                    // The rounds it made (each round's work is kept for reuse).
                    follower.in_flight.len() + follower.spare.len()
                })
            })
            .collect();
        for (i, b) in order.into_iter().enumerate() {
            ring.push(b).unwrap();
            if shards > 1 && i < 4 {
                // The first batches are left to the followers, so that they surely merge some.
                let deadline = Instant::now() + Duration::from_secs(60);
                while !ring.is_empty() {
                    assert!(Instant::now() < deadline, "no follower took a batch");
                    std::thread::yield_now();
                }
            } else if i % 3 == 0 {
                while merger.round() {}
            }
        }
        stop.store(true, Relaxed);
        let followed: usize = followers.into_iter().map(|f| f.join().unwrap()).sum();
        assert!(shards == 1 || followed > 0, "the followers made no round");
        while merger.round() {}
        merger.finish();
        let mut out = Vec::new();
        for cell in shared.reports().snapshot() {
            let q = Query {
                limit: Some(100_000),
                ..Query::default()
            };
            let table = shared.query_report(&cell, &q).unwrap();
            for row in &table.rows {
                let mut line = format!("{}:", cell.name());
                for (column, value) in table.columns.iter().zip(row) {
                    if !column.ends_with("_per_sec") {
                        line.push(' ');
                        value.render(&mut line);
                    }
                }
                out.push(line);
            }
        }
        let pool = shared.pool().read();
        let dict = shared.dictionary().read();
        for v in pool.iter_oldest_first() {
            let r = v.record;
            let tags: Vec<_> = v
                .tag_block
                .iter()
                .map(|t| (dict.text(t.name), dict.text(t.value)))
                .collect();
            out.push(format!(
                "pool: {} {} {} {} {} {:?} {:?}",
                dict.text(r.hostname),
                dict.text(r.server_name),
                dict.text(r.script_name),
                r.request_time,
                r.status,
                v.timers,
                tags
            ));
        }
        out.sort();
        out
    }

    /// The balancing's plan: a report heavier than the rest lands on one thread unsplit, and
    /// split spreads it evenly; light reports are not split (no gain).
    #[test]
    fn a_plan_splits_a_report_only_where_it_lowers_the_busiest_thread() {
        // The merger's own 40; one report of 100 and three of 10, over two threads.
        let weights = [100, 10, 10, 10];
        let (places, load) = plan_threads(&weights, &[false; 4], 40, 2);
        assert_eq!(places[0], (1, vec![]));
        assert_eq!(busiest(&load), 100);
        // Split: the others first (all three on thread 1), then 100 levelled over both.
        let (places, load) = plan_threads(&weights, &[true, false, false, false], 40, 2);
        assert_eq!(load, vec![90, 80]);
        assert_eq!(places[0], (1, vec![0]));
        // Over eight threads, five of them busy: the heavy one over as few idle ones as bring
        // it under the next heaviest (two halves of 50 under 90).
        let weights = [100, 90, 60, 40, 10];
        let (places, load) = plan_threads(&weights, &[true, false, false, false, false], 50, 8);
        assert_eq!(places[0], (5, vec![6]), "{places:?}");
        assert_eq!(busiest(&load), 90);
        // However heavy, over two threads at most (see `MAX_SPLIT_THREADS`).
        let (places, load) = plan_threads(&[800, 10], &[true, false], 10, 8);
        assert_eq!(places[0].1.len(), 1, "{places:?}");
        assert_eq!(busiest(&load), 400);
        // Split, light ones gain nothing: no thread takes less than unsplit.
        let (_, even) = plan_threads(&[30, 30, 30], &[false; 3], 30, 4);
        let (_, split) = plan_threads(&[30, 30, 30], &[true, false, false], 30, 4);
        assert!(busiest(&split) >= busiest(&even));
    }

    /// Keeps every closed tick, by report.
    #[derive(Default)]
    struct Kept(parking_lot::Mutex<Vec<(String, Arc<crate::report::ClosedTick>)>>);

    impl TickTap for Kept {
        fn hand_over(
            &self,
            cell: &Arc<ReportCell>,
            closed: (Vec<Arc<crate::report::ClosedTick>>, u64),
        ) {
            let mut kept = self.0.lock();
            kept.extend(closed.0.into_iter().map(|t| (cell.name().to_string(), t)));
        }
    }

    /// Every row of `cell` as its query answers (the `_per_sec` columns left out: they move
    /// with the time of the query), sorted.
    fn all_rows(shared: &Core, cell: &ReportCell) -> Vec<String> {
        let q = crate::report::Query {
            limit: Some(100_000),
            ..crate::report::Query::default()
        };
        let table = shared.query_report(cell, &q).unwrap();
        let mut rows: Vec<String> = table
            .rows
            .iter()
            .map(|row| {
                let mut line = String::new();
                for (column, value) in table.columns.iter().zip(row) {
                    if !column.ends_with("_per_sec") {
                        line.push(' ');
                        value.render(&mut line);
                    }
                }
                line
            })
            .collect();
        rows.sort();
        rows
    }

    /// A merger of three threads over `reports` alone (no built-ins), tables not shared, the
    /// balancing never splitting (the tests split by hand), families only when `families`, a
    /// window of `seconds` 1 s ticks, keeping every closed tick.
    fn three_threads(
        seconds: u64,
        families: bool,
        reports: Vec<crate::report::ReportDef>,
    ) -> (tempfile::TempDir, Arc<Ring>, Arc<Core>, Merger, Arc<Kept>) {
        let state = tempfile::tempdir().unwrap();
        let mut config = Config {
            state_dir: state.path().to_path_buf(),
            stats_history: crate::units::HumanDuration(Duration::from_secs(seconds)),
            report_ticks: seconds as u32,
            ..Config::default()
        };
        config.merge.threads = 3;
        config.merge.families = families;
        config.merge.request_families = false;
        config.merge.share_tables = false;
        config.merge.split_reports = false;
        config.report = reports;
        let kept = Arc::new(Kept::default());
        let ring = Arc::new(Ring::new(1 << 30));
        let shared = Arc::new(Core::new(config, Arc::clone(&ring), vec![], 0).unwrap());
        let merger = Merger::new(Arc::clone(&shared), Arc::clone(&ring))
            .with_ticks(Arc::clone(&kept) as Arc<dyn TickTap>);
        (state, ring, shared, merger, kept)
    }

    /// A split report (each of three merge threads counting a slice of every round, parts folded
    /// at its ticks and at queries) equals the same report unsplit, fed the same rounds in the
    /// same merger: every closed tick row for row (buckets included: a request counted into the
    /// wrong tick would show), and every query answer, percentiles included, taken while the
    /// rounds run. A timer report and a request report; parts on the merger and on workers.
    #[test]
    fn a_split_report_equals_the_same_report_unsplit() {
        use crate::report::ReportDef;
        let timer_keys = ["script_name", "hostname", "server_name", "timer_tag:op"];
        let request_keys = ["script_name", "status"];
        let reports = vec![
            ReportDef::new("ops_split", &timer_keys),
            ReportDef::new("ops", &timer_keys),
            ReportDef::new("scripts_split", &request_keys),
            ReportDef::new("scripts", &request_keys),
        ];
        // 1 s ticks, so that the test sees several close.
        let (_state, ring, shared, mut merger, kept) = three_threads(3, false, reports);
        let cell = |name: &str| shared.reports().get(name).unwrap();
        for name in ["ops_split", "ops", "scripts_split", "scripts"] {
            cell(name).report.write().keep_closed_ticks();
        }
        merger.assign(&cell("ops_split"), 1, Some(&[0, 2]));
        merger.assign(&cell("scripts_split"), 0, Some(&[1, 2]));
        merger.assign(&cell("ops"), 2, None);
        merger.assign(&cell("scripts"), 1, None);
        assert!(cell("ops_split").split().is_some());

        let answer = |name: &str| all_rows(&shared, &cell(name));
        let ticks = |name: &str| -> Vec<String> {
            let mut out = Vec::new();
            let mut kept = kept.0.lock();
            let (closed, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut *kept)
                .into_iter()
                .partition(|(n, _)| n == name);
            *kept = rest;
            for (_, t) in closed {
                let (sums, hist) = t.totals();
                out.push(format!(
                    "{} totals {:?} {:?}",
                    t.index(),
                    sums,
                    hist.iter().collect::<Vec<_>>()
                ));
                let mut rows: Vec<String> = t
                    .rows()
                    .map(|(key, sums, hist)| {
                        format!(
                            "{} {key:?} {sums:?} {:?}",
                            t.index(),
                            hist.iter().collect::<Vec<_>>()
                        )
                    })
                    .collect();
                rows.sort();
                out.extend(rows);
            }
            out
        };
        let mut corpus = Corpus::new(CorpusSpec::default());
        let (mut closed_ops, mut closed_split) = (Vec::new(), Vec::new());
        let (mut closed_scripts, mut closed_scripts_split) = (Vec::new(), Vec::new());
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut compared = 0;
        // Until four ticks closed, with rounds of up to 300 requests as they come.
        while closed_ops
            .iter()
            .filter(|l: &&String| l.contains("totals"))
            .count()
            < 4
        {
            assert!(
                Instant::now() < deadline,
                "four ticks did not close in time"
            );
            ring.push(corpus.decoded_batch(300)).unwrap();
            while merger.round() {}
            if compared < 20 {
                merger.finish();
                assert_eq!(answer("ops_split"), answer("ops"), "timer report, mid-tick");
                assert_eq!(
                    answer("scripts_split"),
                    answer("scripts"),
                    "request report, mid-tick"
                );
                compared += 1;
            }
            merger.finish();
            closed_ops.extend(ticks("ops"));
            closed_split.extend(ticks("ops_split"));
            closed_scripts.extend(ticks("scripts"));
            closed_scripts_split.extend(ticks("scripts_split"));
        }
        merger.finish();
        closed_ops.extend(ticks("ops"));
        closed_split.extend(ticks("ops_split"));
        assert!(
            closed_ops.len() > 1000,
            "closed tick rows compared: {}",
            closed_ops.len()
        );
        assert!(
            closed_split == closed_ops,
            "the split timer report's closed ticks differ"
        );
        assert!(
            closed_scripts_split == closed_scripts,
            "the split request report's closed ticks differ"
        );
        assert_eq!(answer("ops_split"), answer("ops"));
        assert_eq!(answer("scripts_split"), answer("scripts"));
        // Unsplit again: what the parts held is in the report.
        merger.assign(&cell("ops_split"), 0, None);
        assert!(cell("ops_split").split().is_none());
        assert_eq!(answer("ops_split"), answer("ops"));
    }

    /// A family whose stage is split over three threads (see `report::split`, "split stages")
    /// equals its twin family unsplit, fed the same rounds in the same merger: the twins differ
    /// only by a filter every request passes (`min_time = 0`), which keeps them out of each
    /// other's family (and gives them another phase, so their ticks close at other times: the
    /// window is long enough to hold the whole test, and each answer is over all of it). The
    /// queried member (detached from the split stage by its first query, which folds the parts
    /// in) at every query, mid-tick, while ticks close through the stage; at the end the leader
    /// (counted through the stage at each tick); then unsplit again.
    #[test]
    fn a_family_with_a_split_stage_equals_the_same_family_unsplit() {
        use crate::report::ReportDef;
        let everything = |mut d: ReportDef| {
            d.filters.insert("min_time".into(), 0.0.into());
            d
        };
        let (group, script_group) = (["timer_tag:group"], ["script_name", "timer_tag:group"]);
        let reports = vec![
            ReportDef::new("group", &group),
            ReportDef::new("script_group", &script_group),
            everything(ReportDef::new("group_twin", &group)),
            everything(ReportDef::new("script_group_twin", &script_group)),
        ];
        // 1 s ticks, so that the test sees several close, in a window that holds it all.
        let (_state, ring, shared, mut merger, kept) = three_threads(120, true, reports);
        let cell = |name: &str| shared.reports().get(name).unwrap();
        let family = Arc::clone(cell("group").family().expect("group is in a family"));
        assert!(!Arc::ptr_eq(&family, cell("group_twin").family().unwrap()));
        for name in ["group", "script_group", "group_twin", "script_group_twin"] {
            cell(name).report.write().keep_closed_ticks();
        }
        // The leader counts slice 0 on thread 1, parts on threads 0 and 2.
        let (leader, member) = if family.is_led_by(&cell("group")) {
            ("group", "script_group")
        } else {
            ("script_group", "group")
        };
        merger.assign(&cell(leader), 1, Some(&[0, 2]));
        merger.assign(&cell(member), 2, None);
        assert!(family.split().is_some(), "the stage is split");
        assert!(cell(leader).split().is_none(), "the stage, not the report");
        let answer = |name: &str| all_rows(&shared, &cell(name));
        // The leader's ticks closed (through the stage, at each freeze).
        let closed = |name: &str| -> usize {
            let mut kept = kept.0.lock();
            let before = kept.len();
            kept.retain(|(n, _)| n != name);
            before - kept.len()
        };
        let mut corpus = Corpus::new(CorpusSpec::default());
        let (mut ticks, mut compared) = (0, 0);
        let deadline = Instant::now() + Duration::from_secs(60);
        while ticks < 4 {
            assert!(
                Instant::now() < deadline,
                "four ticks did not close in time"
            );
            ring.push(corpus.decoded_batch(300)).unwrap();
            while merger.round() {}
            if compared < 20 {
                merger.finish();
                assert_eq!(
                    answer(member),
                    answer(&format!("{member}_twin")),
                    "mid-tick"
                );
                compared += 1;
            }
            merger.finish();
            ticks += closed(leader);
        }
        assert!(family.split().is_some(), "still split");
        assert!(
            !family.is_detached(&cell(leader)),
            "the leader took the stage throughout"
        );
        assert_eq!(answer(leader), answer(&format!("{leader}_twin")));
        assert_eq!(answer(member), answer(&format!("{member}_twin")));
        // Unsplit again: what the parts held reaches the members.
        merger.assign(&cell(leader), 0, None);
        assert!(family.split().is_none());
        assert_eq!(answer(leader), answer(&format!("{leader}_twin")));
        assert_eq!(answer(member), answer(&format!("{member}_twin")));
    }

    /// A merger with the default reports and a backlog of three batches of `per_batch` requests,
    /// where two batches are more than one round takes.
    fn merger_with_backlog() -> (Arc<Core>, Arc<Ring>, Merger, usize, tempfile::TempDir) {
        // A state directory of its own: tests run in parallel.
        let state = tempfile::tempdir().unwrap();
        let config = Config {
            state_dir: state.path().to_path_buf(),
            ..Config::default()
        };
        let ring = Arc::new(Ring::new(1 << 30));
        let shared = Arc::new(Core::new(config, Arc::clone(&ring), vec![], 0).unwrap());
        let merger = Merger::new(Arc::clone(&shared), Arc::clone(&ring));
        let mut corpus = Corpus::new(CorpusSpec::default());
        let per_batch = ROUND_REQUESTS / 2 + 1;
        for _ in 0..3 {
            ring.push(batch_of(per_batch, &mut corpus)).unwrap();
        }
        (shared, ring, merger, per_batch, state)
    }

    /// A report whose timing (or whole instrument) is switched off keeps the weight it was
    /// measured at: balancing priced it at 0 ns, moved the light reports off the thread it
    /// shared with them and stacked it onto the other heavy report's thread (200 against 100
    /// where 150 / 150 was measured).
    #[test]
    fn an_untimed_report_keeps_its_weight_in_the_balance() {
        let state = tempfile::tempdir().unwrap();
        let mut config = Config {
            state_dir: state.path().to_path_buf(),
            ..Config::default()
        };
        config.merge.threads = 2;
        // Six timer reports on tags of their own: no two in one family.
        let names = ["h1", "h2", "l1", "l2", "l3", "l4"];
        config.report = names
            .iter()
            .map(|n| crate::report::ReportDef::new(n, &[&format!("timer_tag:{n}")]))
            .collect();
        let ring = Arc::new(Ring::new(1 << 20));
        let shared = Arc::new(Core::new(config, Arc::clone(&ring), vec![], 0).unwrap());
        let mut merger = Merger::new(Arc::clone(&shared), Arc::clone(&ring));
        assert_eq!(merger.shards.workers, 1);
        let cell = |n: &str| shared.reports().get(n).unwrap();
        // `ms` of update time over 1,000 requests (timed), or 1,000 requests only (untimed).
        let charge = |n: &str, ms: u64| {
            let i = &cell(n).instrument;
            i.record(
                i.start()
                    .map(|_| Instant::now() - Duration::from_millis(ms)),
                1000,
            );
        };
        merger.balance(); // the baseline
        let costs = [
            ("h1", 100),
            ("h2", 100),
            ("l1", 25),
            ("l2", 25),
            ("l3", 25),
            ("l4", 25),
        ];
        let load = |w: usize| -> u64 {
            costs
                .iter()
                .filter(|(n, _)| cell(n).worker() == w)
                .map(|(_, ms)| ms)
                .sum()
        };
        // An interval of the costs above, then a balancing: the heavy two end apart, evenly.
        let mut interval = |what: &str| {
            for (n, ms) in costs {
                charge(n, ms);
            }
            merger.balance();
            assert_ne!(cell("h1").worker(), cell("h2").worker(), "{what}");
            assert_eq!((load(0), load(1)), (150, 150), "{what}");
        };
        interval("all timed");
        cell("h2").instrument.set(None, Some(false));
        interval("h2 untimed");
        // Switched off, counting nothing: weighed by the requests merged at its last mean.
        cell("h1").instrument.set(Some(false), None);
        shared.counters().requests_merged.fetch_add(1000, Relaxed);
        interval("h1 off");
    }

    /// After a start the receivers queue raw batches until the merger first finds nothing
    /// waiting: it merges the backlog, then tells them to decode; at shutdown (no drain) it tells
    /// them to queue raw batches again.
    #[test]
    fn receivers_queue_raw_batches_until_the_merger_has_caught_up() {
        let (shared, ring, merger, per_batch, _state) = merger_with_backlog();
        ring.set_raw(true);
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || merger.run(&stop, false))
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while ring.is_raw() {
            assert!(Instant::now() < deadline, "still raw after the backlog");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(ring.is_empty(), "caught up first");
        stop.store(true, Relaxed);
        thread.join().unwrap();
        assert!(ring.is_raw(), "raw again once stopped");
        assert_eq!(
            shared.counters().requests_merged.load(Relaxed),
            3 * per_batch as u64
        );
    }

    /// A raw batch (queued while no merger ran) is decoded as a receiver would: its requests
    /// merged, a malformed datagram rejected, and `requests_accepted` (one per datagram while it
    /// waited) set right.
    #[test]
    fn raw_batches_are_decoded_when_merged() {
        let (shared, ring, mut merger, per_batch, _state) = merger_with_backlog();
        let counters = &shared.counters();
        counters
            .requests_accepted
            .store(3 * per_batch as u64, Relaxed);
        let mut raw = Box::<Batch>::default();
        raw.raw = true;
        let datagrams = Corpus::new(CorpusSpec::default()).datagrams(5);
        for d in &datagrams {
            raw.push_raw(d);
        }
        raw.push_raw(b"\xff\xff not protobuf");
        assert_eq!(raw.len(), 6);
        // What a receiver counts for it.
        counters.requests_accepted.fetch_add(6, Relaxed);
        ring.push(raw).unwrap();
        while merger.round() {}
        merger.finish();
        let merged = 3 * per_batch as u64 + 5;
        assert_eq!(counters.requests_merged.load(Relaxed), merged);
        assert_eq!(counters.requests_accepted.load(Relaxed), merged);
        assert_eq!(counters.packets_decoded.load(Relaxed), 5);
        assert_eq!(counters.rejected(crate::counters::Reject::Malformed), 1);
    }

    /// Balancing counts a family's detached members (they are updated on the leader's thread) on
    /// its leader, whatever their order in the cost list; attached members (their turns at the
    /// stage run on their own thread) and other reports keep their own.
    #[test]
    fn a_familys_costs_count_on_its_leader() {
        use crate::dictionary::Dictionary;
        use crate::report::{form_families, Family, ReportDef, ReportSet};
        let mut dict = Dictionary::new(1000);
        let mut reports: Vec<Report> = [
            ReportDef::new("script", &["script_name"]),
            ReportDef::new("tag", &["tag:x"]),
            ReportDef::new("host_script", &["hostname", "script_name"]),
        ]
        .into_iter()
        .map(|d| Report::new(d, &mut dict, 100).unwrap())
        .collect();
        let (members, stage) = form_families(&mut reports, true, false).pop().unwrap();
        assert_eq!(members, vec![0, 2]);
        let set = ReportSet::default();
        let cells: Vec<Arc<ReportCell>> = reports
            .into_iter()
            .map(|r| set.try_insert(r).unwrap())
            .collect();
        let family = Arc::new(Family::new(stage, &[cells[0].clone(), cells[2].clone()]));
        cells[0].join(Arc::clone(&family));
        cells[2].join(Arc::clone(&family));
        let fold = || {
            let mut costs: Vec<(u64, &Arc<ReportCell>)> =
                vec![(7, &cells[2]), (3, &cells[1]), (5, &cells[0])];
            fold_family_costs(&mut costs);
            let folded: Vec<(u64, String)> = costs
                .iter()
                .map(|(c, r)| (*c, r.name().to_string()))
                .collect();
            folded
        };
        let named = |v: [(u64, &str); 3]| v.map(|(c, n)| (c, n.to_string())).to_vec();
        assert_eq!(
            fold(),
            named([(7, "host_script"), (3, "tag"), (5, "script")])
        );
        family.detach_for_query(&cells[2]);
        assert_eq!(
            fold(),
            named([(0, "host_script"), (3, "tag"), (12, "script")])
        );
    }

    /// A backlog is merged in rounds of at most ROUND_REQUESTS, so no round holds the locks for
    /// long, and every request gets into every report, whichever thread updates it.
    #[test]
    fn backlog_is_merged_in_bounded_rounds() {
        let (shared, _ring, mut merger, per_batch, _state) = merger_with_backlog();
        assert!(merger.round(), "two batches exceed the round: one is left");
        assert_eq!(shared.pool().read().len(), 2 * per_batch);
        assert!(!merger.round());
        merger.finish();
        assert_eq!(shared.pool().read().len(), 3 * per_batch);
        for cell in shared.reports().snapshot() {
            assert!(cell.is_filled());
            if cell.name() == "info" || cell.name().starts_with("report_by_") {
                if let Some(f) = cell.family() {
                    f.drain();
                }
                let r = cell.report.read();
                assert_eq!(r.total_requests(), 3 * per_batch as u64, "{}", cell.name());
            }
        }
        // Two windows later: the pool expired everything, the reports' ticks left, and a sweep
        // frees every string.
        let history = shared.config().stats_history.0.as_millis() as u64;
        let later = shared.clock().now_ms64() + 2 * history;
        merger.store(later);
        merger.finish();
        merger.sweep(later + 2 * history);
        assert_eq!(shared.pool().read().len(), 0);
        assert_eq!(shared.dictionary().read().len(), 0);
        for cell in shared.reports().snapshot() {
            if let Some(f) = cell.family() {
                f.drain();
            }
            assert_eq!(cell.report.read().total_requests(), 0, "{}", cell.name());
        }
    }

    /// Eviction (a tight budget) frees the strings no report row holds and keeps every one a row
    /// holds, in a member or still in its family's stage (drained afterwards): every report's
    /// rows read as before; the raw pool's requests naming an evicted string read
    /// "<dictionary full>", never another string, until the sweep frees the ids.
    #[test]
    fn eviction_keeps_every_string_a_report_row_holds() {
        use crate::dictionary::LOST_TEXT;
        let (shared, _ring, mut merger, _per_batch, _state) = merger_with_backlog();
        while merger.round() {}
        merger.finish();
        let render = |shared: &Core| -> Vec<String> {
            let dict = shared.dictionary().read();
            let mut out = Vec::new();
            for cell in shared.reports().snapshot() {
                if let Some(f) = cell.family() {
                    f.drain();
                }
                let q = crate::report::Query {
                    limit: Some(100_000),
                    max_limit: 100_000,
                    ..Default::default()
                };
                let table = cell.report.read().query(&q, &dict, 1.0).unwrap();
                for row in &table.rows {
                    let mut line = cell.name().to_string();
                    for c in &row[..table.key_columns] {
                        line.push(' ');
                        c.render(&mut line);
                    }
                    out.push(line);
                }
            }
            out.sort();
            out
        };
        // The stages hold the rounds' rows, not drained yet: marking must find them there.
        let now = shared.clock().now_ms64() + 60_000;
        let strings = shared.dictionary().read().len();
        merger.evict(now);
        let evicted = shared.budget().names_evicted() as usize;
        let dict_len = shared.dictionary().read().len();
        assert!(evicted > 0, "the corpus has strings no report keys on");
        assert_eq!(dict_len, strings - evicted);
        let rows = render(&shared);
        assert!(rows.len() > 100, "{}", rows.len());
        let lost = std::str::from_utf8(LOST_TEXT).unwrap();
        assert!(
            rows.iter().all(|r| !r.contains(lost)),
            "a report row lost its name: {:?}",
            rows.iter().find(|r| r.contains(lost))
        );
        // Drained now: evicting again frees nothing more the rows hold.
        merger.evict(now);
        assert_eq!(render(&shared), rows);
        // The pool still holds every request; a name it reads is either its own string or the
        // evicted mark.
        let pool = shared.pool().read();
        let dict = shared.dictionary().read();
        let mut marked = 0;
        for v in pool.iter_oldest_first() {
            for t in v.tag_block {
                let value = dict.get(t.value);
                assert!(!value.is_empty());
                marked += usize::from(value == LOST_TEXT);
            }
            assert_ne!(
                dict.get(v.record.script_name),
                LOST_TEXT,
                "scripts are in reports"
            );
        }
        assert!(marked > 0, "some tag values no report keys on were evicted");
    }

    /// Shutdown merges what it can within its budget and counts the rest, never hangs on a backlog.
    #[test]
    fn shutdown_drain_is_bounded_and_counted() {
        let (shared, ring, mut merger, per_batch, _state) = merger_with_backlog();
        merger.drain(Duration::ZERO);
        assert_eq!(shared.pool().read().len(), 2 * per_batch, "one round ran");
        assert!(ring.is_empty());
        assert_eq!(
            shared.counters().temp_pool_dropped.load(Relaxed),
            per_batch as u64
        );
    }
}
