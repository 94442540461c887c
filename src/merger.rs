//! The merge loop: batches from the temp ring in, pooled requests and up-to-date reports out.
//!
//! Runs on its own thread ("pinbad-merger"). Every `stats_gathering_period` it drains the ring in
//! rounds of at most [`ROUND_REQUESTS`], each in three phases. It takes locks only in the API's
//! order (pool → dictionary → report) and never holds the dictionary lock together with another,
//! so no reader can deadlock with it:
//! 1. **intern** (dictionary write lock): every string of the new requests becomes an id, each use
//!    taking a reference; the requests become compact pool records;
//! 2. **store** (pool write lock, and each report's write lock in turn): expire requests older than
//!    `stats_history`, insert the new ones (evicting the oldest when a ring is full), and update
//!    every report, one write lock at a time: subtract what left, add what came. Leaving goes
//!    through one path, [`Pool::remove_oldest`](crate::pool::Pool::remove_oldest)'s callback, whether by age or by eviction;
//! 3. **release** (dictionary write lock): drop the references of the requests that left.
//!
//! Receivers never wait for it (the ring is lock-free); the API waits at most one phase.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::dictionary::Dictionary;
use crate::pool::Removal;
use crate::record::{Batch, Record, RequestView, TagPair, Timer, NO_SCHEMA};
use crate::report::PreparedBatch;
use crate::ring::Ring;
use crate::shared::Shared;

/// One new request, interned: its record and where its timers and tag block sit in the scratch.
struct Pending {
    record: Record,
    timers: std::ops::Range<usize>,
    tags: std::ops::Range<usize>,
}

/// Interned requests of one round, waiting to be stored. Reused across rounds.
#[derive(Default)]
pub struct Interned {
    pending: Vec<Pending>,
    timers: Vec<Timer>,
    tags: Vec<TagPair>,
    /// Per request: the dictionary id of each of its local dictionary entries (`UNSET` if unused).
    local_ids: Vec<u32>,
}

const UNSET: u32 = u32::MAX;

/// Most requests one round merges. Bounds how long a round holds the pool's write lock (and so
/// how long an API reader can wait) when the ring has filled up behind a slow round: ~4k requests
/// is a few tens of milliseconds of work, where draining a full ring at once could take seconds.
pub const ROUND_REQUESTS: usize = 4096;

/// How long the merger keeps merging after shutdown was asked for: the process must exit within
/// a second of SIGTERM, whatever backlog the ring holds.
const SHUTDOWN_DRAIN: Duration = Duration::from_millis(700);

impl Interned {
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    fn clear(&mut self) {
        self.pending.clear();
        self.timers.clear();
        self.tags.clear();
    }

    /// Interns every request of `batch` at time `now_ms`, taking one dictionary reference per
    /// string use (released again by `release_ids` when the request leaves the pool).
    pub fn intern(&mut self, batch: &Batch, now_ms: u32, dict: &mut Dictionary) {
        for req in &batch.requests {
            self.local_ids.clear();
            self.local_ids.resize(req.dictionary.len as usize, UNSET);
            let mut local = |index: u32, dict: &mut Dictionary| -> u32 {
                let slot = &mut self.local_ids[index as usize];
                if *slot == UNSET {
                    *slot = dict.intern(batch.dictionary_entry(req, index));
                } else {
                    dict.retain(*slot);
                }
                *slot
            };
            let tags_start = self.tags.len();
            for t in batch.tags_of(req) {
                let (name, value) = (local(t.name, dict), local(t.value, dict));
                self.tags.push(TagPair { name, value });
            }
            let timers_start = self.timers.len();
            for timer in batch.timers_of(req) {
                let tags = batch.timer_tags_of(timer);
                for t in tags {
                    let (name, value) = (local(t.name, dict), local(t.value, dict));
                    self.tags.push(TagPair { name, value });
                }
                self.timers.push(Timer {
                    value: timer.value,
                    ru_utime: timer.ru_utime,
                    ru_stime: timer.ru_stime,
                    hit_count: timer.hit_count,
                    tag_count: tags.len() as u16,
                });
            }
            let record = Record {
                time_ms: now_ms,
                hostname: dict.intern(batch.bytes_of(req.hostname)),
                server_name: dict.intern(batch.bytes_of(req.server_name)),
                script_name: dict.intern(batch.bytes_of(req.script_name)),
                schema: req
                    .schema
                    .map_or(NO_SCHEMA, |s| dict.intern(batch.bytes_of(s))),
                request_count: req.request_count,
                document_size: req.document_size,
                memory_peak: req.memory_peak,
                memory_footprint: req.memory_footprint,
                status: req.status,
                request_time: req.request_time,
                ru_utime: req.ru_utime,
                ru_stime: req.ru_stime,
                tag_count: req.tags.len as u16,
                ..Record::default()
            };
            self.pending.push(Pending {
                record,
                timers: timers_start..self.timers.len(),
                tags: tags_start..self.tags.len(),
            });
        }
    }
}

/// Collects the dictionary ids a leaving request holds, to release in phase 3.
fn collect_ids(view: &RequestView<'_>, out: &mut Vec<u32>) {
    let r = view.record;
    out.extend([r.hostname, r.server_name, r.script_name]);
    if r.schema != NO_SCHEMA {
        out.push(r.schema);
    }
    for t in view.tag_block {
        out.extend([t.name, t.value]);
    }
}

/// Drops the references collected by [`collect_ids`].
fn release_ids(ids: &[u32], dict: &mut Dictionary) {
    for &id in ids {
        dict.release(id);
    }
}

/// Copies the dictionary's figures out for `/api/v1/status` (see [`crate::counters::Gauges`]).
fn publish_dictionary(shared: &Shared, dict: &Dictionary) {
    let g = &shared.counters.gauges;
    g.dictionary_size.store(dict.len() as u64, Relaxed);
    g.dictionary_bytes.store(dict.bytes() as u64, Relaxed);
    g.dictionary_lost.store(dict.lost(), Relaxed);
}

/// Copies the pool's figures out for `/api/v1/status` (see [`crate::counters::Gauges`]).
fn publish_pool(shared: &Shared, pool: &crate::pool::Pool) {
    let g = &shared.counters.gauges;
    g.pool_used.store(pool.len() as u64, Relaxed);
    g.timer_pool_used.store(pool.timers_used() as u64, Relaxed);
    g.tag_pool_used.store(pool.tags_used() as u64, Relaxed);
    g.pool_oldest_ms
        .store(pool.oldest_time_ms().map_or(u64::MAX, u64::from), Relaxed);
}

/// The merger's state between rounds.
pub struct Merger {
    shared: Arc<Shared>,
    ring: Arc<Ring>,
    interned: Interned,
    leaving_ids: Vec<u32>,
    /// Requests leaving the pool this round (already added to the reports), oldest first.
    leaving: PreparedBatch,
    /// Requests that entered the pool this round (and are still in it), oldest first.
    entering: PreparedBatch,
    /// Batches popped this round; kept boxed because they go back to the ring's free list as is.
    #[allow(clippy::vec_box)]
    batches: Vec<Box<Batch>>,
    /// Returns memory to the OS once requests and strings have left (see `memory`).
    reclaimer: crate::memory::Reclaimer,
}

impl Merger {
    pub fn new(shared: Arc<Shared>, ring: Arc<Ring>) -> Merger {
        Merger {
            shared,
            ring,
            interned: Interned::default(),
            leaving_ids: Vec::new(),
            leaving: PreparedBatch::default(),
            entering: PreparedBatch::default(),
            batches: Vec::new(),
            reclaimer: Default::default(),
        }
    }

    /// Rounds every `stats_gathering_period` until `stop` is set, then one last round that drains
    /// whatever the receivers handed over before they stopped.
    pub fn run(mut self, stop: &AtomicBool) {
        let period = self.shared.config.stats_gathering_period.0;
        let mut next = Instant::now() + period;
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
            while self.round() && !stop.load(Relaxed) {}
        }
        self.drain(SHUTDOWN_DRAIN);
    }

    /// At shutdown: merges what the receivers handed over for at most `budget`, so that the
    /// process exits promptly even behind a full ring; batches left then are counted as dropped.
    fn drain(&mut self, budget: Duration) {
        let deadline = Instant::now() + budget;
        while self.round() && Instant::now() < deadline {}
        let mut dropped = 0;
        while let Some(b) = self.ring.pop() {
            dropped += b.len() as u64;
            self.ring.recycle(b);
        }
        if dropped > 0 {
            self.shared
                .counters
                .temp_pool_dropped
                .fetch_add(dropped, Relaxed);
            tracing::warn!(
                requests = dropped,
                "Stopped before merging everything received"
            );
        }
    }

    /// One merge round (see the module docs) over at most [`ROUND_REQUESTS`] requests; returns
    /// whether the ring still holds batches. Public for tests and benches.
    pub fn round(&mut self) -> bool {
        let started = Instant::now();
        let shared = Arc::clone(&self.shared);
        let now_ms = shared.clock.now_ms();
        let mut requests = 0;
        while requests < ROUND_REQUESTS {
            let Some(b) = self.ring.pop() else { break };
            requests += b.len();
            self.batches.push(b);
        }
        // Phase 1: intern.
        if !self.batches.is_empty() {
            let mut dict = shared.dictionary.write();
            for b in &self.batches {
                self.interned.intern(b, now_ms, &mut dict);
            }
        }
        for b in self.batches.drain(..) {
            self.ring.recycle(b);
        }
        // Phase 2: store.
        let history_ms = shared
            .config
            .stats_history
            .0
            .as_millis()
            .min(u32::MAX as u128) as u32;
        let worked = self.store(now_ms, history_ms);
        // Phase 3: release.
        if !self.leaving_ids.is_empty() {
            self.reclaimer.freed();
            let mut dict = shared.dictionary.write();
            release_ids(&self.leaving_ids, &mut dict);
            self.leaving_ids.clear();
            publish_dictionary(&shared, &dict);
        } else if worked {
            // New strings were interned (phase 1): their count and bytes changed.
            publish_dictionary(&shared, &shared.dictionary.read());
        }
        if worked {
            shared
                .counters
                .record_merge(started.elapsed().as_micros() as u64);
        }
        self.reclaimer.maybe_collect();
        !self.ring.is_empty()
    }

    /// Phase 2; returns whether anything changed.
    ///
    /// The pool is updated first, collecting the requests that leave it (expired, or overwritten
    /// after having been added in an earlier round) and then those that entered it, each prepared
    /// once ([`PreparedBatch`] copies them, so overwriting their slots does not matter). Only then
    /// is each report updated in turn, subtracting every leaving request and adding every new
    /// one: report-major, so one report's rows stay in cache for the whole round, instead of
    /// touching all reports for each overwritten request.
    fn store(&mut self, now_ms: u32, history_ms: u32) -> bool {
        let shared = &*self.shared;
        let mut pool = shared.pool.write();
        let expired = pool.count_expired(now_ms, history_ms);
        if expired == 0 && self.interned.is_empty() {
            return false;
        }
        let (leaving, entering) = (&mut self.leaving, &mut self.entering);
        leaving.clear();
        entering.clear();

        // Expiry.
        if expired > 0 {
            for v in pool.iter_oldest_first().take(expired) {
                leaving.push(&v);
            }
            let ids = &mut self.leaving_ids;
            pool.remove_oldest(expired, Removal::Expired, &mut |v, _| collect_ids(&v, ids));
            shared
                .counters
                .pool_expired
                .fetch_add(expired as u64, Relaxed);
        }

        // Insertion: an evicted request leaves the reports if it had been added to them (every
        // request from before this round); one of this round is simply dropped.
        let first_new = pool.next_id();
        let (mut overwritten, mut timers_lost) = (0u64, 0u64);
        for p in &self.interned.pending {
            let ids = &mut self.leaving_ids;
            let (_, loss) = pool.insert(
                p.record,
                &self.interned.timers[p.timers.clone()],
                &self.interned.tags[p.tags.clone()],
                &mut |v, _| {
                    if v.id < first_new {
                        leaving.push(&v);
                    }
                    overwritten += 1;
                    collect_ids(&v, ids);
                },
            );
            if loss.timers > 0 {
                timers_lost += loss.timers as u64;
                // The dropped timers' tag references were taken in phase 1: give them back.
                let tag_refs = &self.interned.tags[p.tags.clone()][p.record.tag_count as usize..];
                self.leaving_ids
                    .extend(tag_refs.iter().flat_map(|t| [t.name, t.value]));
            }
        }
        for id in first_new.max(pool.oldest_id())..pool.next_id() {
            if let Some(v) = pool.get(id) {
                entering.push(&v);
            }
        }

        // Reports.
        let cells = shared.reports.snapshot();
        let updates = (leaving.len() + entering.len()) as u64;
        for cell in &cells {
            let mut r = cell.report.write();
            let t = Instant::now();
            r.subtract_batch(leaving);
            r.add_batch(entering);
            cell.publish(&r);
            drop(r);
            cell.record_update(t.elapsed().as_nanos() as u64, updates);
        }
        shared
            .counters
            .pool_overwritten
            .fetch_add(overwritten, Relaxed);
        shared.counters.timers_lost.fetch_add(timers_lost, Relaxed);
        shared
            .counters
            .requests_merged
            .fetch_add(self.interned.len() as u64, Relaxed);
        // After the reports: a reader that sees the pool's new figures sees reports that
        // include the same requests.
        publish_pool(shared, &pool);
        self.interned.clear();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::corpus::{Corpus, CorpusSpec};
    use crate::decode::{DecodePolicy, Decoder};

    fn batch_of(n: usize, corpus: &mut Corpus) -> Box<Batch> {
        let (mut decoder, mut stats, mut buf) = (
            Decoder::new(DecodePolicy::default()),
            Default::default(),
            Vec::new(),
        );
        let mut batch = Box::<Batch>::default();
        for _ in 0..n {
            corpus.next_datagram(&mut buf);
            decoder.decode(&buf, &mut batch, &mut stats);
        }
        batch
    }

    /// A backlog is merged in rounds of at most ROUND_REQUESTS, so no round holds the locks for
    /// long, and every request gets in, its strings referenced once per use.
    /// A merger with the default reports and a backlog of three batches of `per_batch` requests,
    /// where two batches are more than one round takes.
    fn merger_with_backlog() -> (Arc<Shared>, Arc<Ring>, Merger, usize) {
        let config = Config {
            state_dir: std::env::temp_dir().join("pinbad-merger-test-no-state"),
            ..Config::default()
        };
        let ring = Arc::new(Ring::new(1 << 30));
        let shared = Arc::new(Shared::new(config, Arc::clone(&ring), vec![], 0).unwrap());
        let merger = Merger::new(Arc::clone(&shared), Arc::clone(&ring));
        let mut corpus = Corpus::new(CorpusSpec::default());
        let per_batch = ROUND_REQUESTS / 2 + 1;
        for _ in 0..3 {
            ring.push(batch_of(per_batch, &mut corpus)).unwrap();
        }
        (shared, ring, merger, per_batch)
    }

    #[test]
    fn backlog_is_merged_in_bounded_rounds() {
        let (shared, _ring, mut merger, per_batch) = merger_with_backlog();
        assert!(merger.round(), "two batches exceed the round: one is left");
        assert_eq!(shared.pool.read().len(), 2 * per_batch);
        assert!(!merger.round());
        assert_eq!(shared.pool.read().len(), 3 * per_batch);
        let info = shared.reports.get("info").unwrap();
        assert_eq!(info.report.read().total_requests(), 3 * per_batch as u64);
        // Expire everything: every reference is released, reports are empty.
        let history = shared.config.stats_history.0.as_millis() as u32;
        merger.store(shared.clock.now_ms().wrapping_add(history), history);
        release_ids(&merger.leaving_ids, &mut shared.dictionary.write());
        assert_eq!(shared.pool.read().len(), 0);
        assert_eq!(shared.dictionary.read().len(), 0);
        assert_eq!(info.report.read().total_requests(), 0);
    }

    /// Shutdown merges what it can within its budget and counts the rest, never hangs on a backlog.
    #[test]
    fn shutdown_drain_is_bounded_and_counted() {
        let (shared, ring, mut merger, per_batch) = merger_with_backlog();
        merger.drain(Duration::ZERO);
        assert_eq!(shared.pool.read().len(), 2 * per_batch, "one round ran");
        assert!(ring.is_empty());
        assert_eq!(
            shared.counters.temp_pool_dropped.load(Relaxed),
            per_batch as u64
        );
    }
}
