//! Reports: definitions, the windowed aggregation engine, and queries over it.
//!
//! In: requests from the merge threads, a round at a time ([`Report::add_batch`], from a
//! [`PreparedBatch`] made once per round for every report), or one at a time ([`Report::add`]:
//! tests), and the time ([`Report::advance`], which moves the window). Out: [`Table`]s for the API
//! ([`Report::query`]). A merge thread updates a report under its write lock; the API queries
//! under its read lock. Pure: no I/O, no clock (times are arguments), and updates never touch the
//! dictionary (rows are keyed by ids, and the dictionary sweeps a string only after it has been
//! unused for longer than any window), so reports are updated without the dictionary's lock. Only
//! the persistence helpers ([`load_state`], [`save_state`], [`initial_defs`]) do file I/O, for the
//! API and the app.
//!
//! A report (see REPORTS.md) is a set of rows keyed by the ids of its keys, each row holding
//! integer sums (nanoseconds, bytes, counts) and a histogram, plus the same for the whole report
//! (totals), over a window of ticks ([`Report`] says how a request gets in and out). Because every
//! sum is an integer and a tick leaves the window by subtracting exactly what it added (the same
//! f32 → ns conversion), a report always equals one built from scratch over the requests inside
//! its window, however many billions of updates it has seen, whatever the raw pool still holds.
//!
//! This file is the engine (rows, sums, ticks, prepared batches, the histogram log). Beside it:
//! - `def`: definitions (keys, filters, presets, percentiles), their validation, the built-ins;
//! - `family`: reports that are projections of one aggregate, sharing its per-request work;
//! - `query`: columns and queries, the [`Table`] the API renders as JSON or CSV;
//! - `set`: the [`ReportSet`] of live reports, each behind its own lock;
//! - `snapshot`: a report's window in and out of the shutdown snapshot;
//! - `state`: run-time changes persisted in `{state_dir}/reports.json`, replayed at start-up.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use crate::memory::TableAlloc;
use hashbrown::HashTable;
use parking_lot::{Mutex, RwLock};
use rustc_hash::FxHashMap;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};

use crate::dictionary::{Dictionary, LOST};
use crate::histogram::{bucket_of, HistView, Histogram};
use crate::record::{Record, RequestView, TagPair, Timer, NO_SCHEMA};

/// Most keys a report may have.
pub const MAX_KEYS: usize = 15;
/// Longest report name, in bytes.
pub const MAX_NAME_BYTES: usize = 128;
/// Most percentiles a report (or a query) may show.
pub const MAX_PERCENTILES: usize = 32;
/// Percentiles shown when a definition names none.
pub const DEFAULT_PERCENTILES: [f64; 3] = [90.0, 95.0, 99.0];
/// RowMap a query returns when it does not say.
pub const DEFAULT_QUERY_LIMIT: usize = 100;
/// The state file, in `state_dir`, holding run-time report changes.
pub const STATE_FILE: &str = "reports.json";

/// Why a definition, a query or the state file was refused. Display is the reason, naming the
/// field, key, filter or column that is wrong, or the limit that left no room.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ReportError(pub String, pub Refusal);

/// Whose fault a [`ReportError`] is: what the API answers it with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The definition or the query is wrong (a 400).
    Invalid,
    /// The definition is right but pinbad has no room for it now: the dictionary is full, so a
    /// name or value the report needs cannot be kept (a 507: it may fit once unused strings
    /// are swept).
    Full,
}

impl ReportError {
    /// A refusal of what was asked (the usual kind).
    pub fn invalid(reason: impl Into<String>) -> ReportError {
        ReportError(reason.into(), Refusal::Invalid)
    }
}

fn err(reason: impl Into<String>) -> ReportError {
    ReportError::invalid(reason)
}

mod def;
mod family;
mod query;
mod set;
// The window state in and out of a snapshot (see the crate's `snapshot`).
mod snapshot;
mod state;
#[cfg(test)]
mod tests;

pub use def::*;
pub use family::{form_families, round_leaders, Family, LeaderRound};
pub use query::*;
pub use set::*;
pub use snapshot::Layout;
pub use state::*;

// ---------------------------------------------------------------------------------------------
// The engine
// ---------------------------------------------------------------------------------------------

/// A key with its tag name interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
    Status,
    Tag(u32),
    TimerTag(u32),
}

/// Filters with every string interned (pinned) to its id.
#[derive(Clone, Debug, Default)]
struct Filters {
    min_time: Option<f32>,
    max_time: Option<f32>,
    fields: Vec<(FieldName, u32)>,
    status: Option<u32>,
    tags: Vec<TagPair>,
    timer_tags: Vec<TagPair>,
}

impl Filters {
    /// The request-level filters; in a request report also "some timer passes the timer filters".
    #[inline]
    fn pass_request(&self, v: &RequestView<'_>, timer_kind: bool) -> bool {
        let r = v.record;
        if self.min_time.is_some_and(|m| r.request_time < m)
            || self.max_time.is_some_and(|m| r.request_time > m)
        {
            return false;
        }
        if self.status.is_some_and(|s| r.status != s) {
            return false;
        }
        if !self.fields.iter().all(|&(f, id)| f.of(r) == id) {
            return false;
        }
        let tags = v.tags();
        if !self
            .tags
            .iter()
            .all(|t| first_tag(tags, t.name) == Some(t.value))
        {
            return false;
        }
        timer_kind
            || self.timer_tags.is_empty()
            || v.timers_with_tags().any(|(_, tags)| self.pass_timer(tags))
    }

    #[inline]
    fn pass_timer(&self, tags: &[TagPair]) -> bool {
        self.timer_tags
            .iter()
            .all(|t| first_tag(tags, t.name) == Some(t.value))
    }
}

/// The value of the first tag named `name` (duplicate names: the first wins).
#[inline]
fn first_tag(tags: &[TagPair], name: u32) -> Option<u32> {
    tags.iter().find(|t| t.name == name).map(|t| t.value)
}

/// Seconds as received (f32) → integer nanoseconds, rounded half away from zero. add and subtract
/// both use this, so sums are exact. Negative and NaN become 0 (the decoder already refuses them).
///
/// Exactly `(x * 1e9).round() as u64`, without `f64::round`: unless the target has SSE4.1 that is
/// a libm call, and it was ~10 % of the merge. `x - trunc(x)` is exact in f64 (for x ≥ 1 by
/// Sterbenz's lemma, for x < 1 trivially), so comparing it with 0.5 rounds exactly like `round`;
/// the `as` casts saturate (negative, NaN → 0; huge → `u64::MAX`) like `round() as u64` does.
#[inline]
pub(crate) fn ns(seconds: f32) -> u64 {
    let x = seconds as f64 * 1e9;
    let t = x as u64;
    t.saturating_add((x - t as f64 >= 0.5) as u64)
}

/// Integer sums of one row (or of the totals). Request reports use `req_count`, `time_ns`
/// (request_time), `ru_*`, `traffic_bytes` and `memory_footprint_bytes`; timer reports use
/// `req_count`, `hit_count`, `time_ns` (timer value) and `ru_*`.
///
/// Times and bytes are summed in 96 bits ([`Sum96`]); the counts stay 64-bit (one per request,
/// or per hit of a `u32` hit count).
///
/// Public for the history store, which keeps them per step (see `history`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    pub req_count: u64,
    pub hit_count: u64,
    pub time_ns: Sum96,
    pub ru_utime_ns: Sum96,
    pub ru_stime_ns: Sum96,
    pub traffic_bytes: Sum96,
    pub memory_footprint_bytes: Sum96,
}
const _: () = assert!(std::mem::size_of::<Sums>() == 80);
const _: () = assert!(std::mem::size_of::<Row>() == 136);

/// A time (ns) or byte sum of a row: 96 bits, in 12 bytes aligned to 4.
///
/// In 64 bits, nanoseconds hold 584 years in all, which a 30-day window's totals reach at ~7,100
/// request-seconds a second (35k requests/s at 200 ms), and 19 requests at the decoder's bound
/// ([`crate::decode::MAX_SECONDS`]) in one row; a `memory_footprint` sum gets there at 24 MB a
/// request at 300k/s. A wrapped sum stays consistent (a tick leaves `agg` by subtracting what it
/// added) and is wrong on every read. 96 bits hold 2.5 million years of request time: 79 billion
/// requests at the decoder's bound in one row of one window (past that it wraps, never panics).
/// Not a `u128`: 16 bytes aligned to 16 made a row 160 bytes (136 with this) and a table entry
/// 176 (152), with no update measured faster for it (`benches/update.rs`, BENCHMARKS.md).
#[derive(Clone, Copy, Default)]
#[repr(C, packed(4))]
pub struct Sum96 {
    lo: u64,
    hi: u32,
}

impl Sum96 {
    pub const MAX: Sum96 = Sum96 {
        lo: u64::MAX,
        hi: u32::MAX,
    };

    #[inline(always)]
    pub fn get(self) -> u128 {
        (self.hi as u128) << 64 | self.lo as u128
    }

    /// `v`, or [`Sum96::MAX`] when it does not fit.
    pub fn saturating_from(v: u128) -> Sum96 {
        if v > Sum96::MAX.get() {
            return Sum96::MAX;
        }
        Sum96 {
            lo: v as u64,
            hi: (v >> 64) as u32,
        }
    }

    #[inline(always)]
    fn add_u64(&mut self, v: u64) {
        let (lo, carry) = self.lo.overflowing_add(v);
        self.lo = lo;
        self.hi = self.hi.wrapping_add(carry as u32);
    }

    #[inline(always)]
    fn add(&mut self, o: Sum96) {
        let (lo, carry) = self.lo.overflowing_add(o.lo);
        self.lo = lo;
        self.hi = self.hi.wrapping_add(o.hi).wrapping_add(carry as u32);
    }

    #[inline(always)]
    fn sub(&mut self, o: Sum96) {
        let (lo, borrow) = self.lo.overflowing_sub(o.lo);
        self.lo = lo;
        self.hi = self.hi.wrapping_sub(o.hi).wrapping_sub(borrow as u32);
    }

    /// `self + o`, stopping at [`Sum96::MAX`].
    pub fn saturating_add(self, o: Sum96) -> Sum96 {
        Sum96::saturating_from(self.get() + o.get())
    }
}

impl From<u64> for Sum96 {
    fn from(v: u64) -> Sum96 {
        Sum96 { lo: v, hi: 0 }
    }
}

impl PartialEq for Sum96 {
    fn eq(&self, o: &Sum96) -> bool {
        self.get() == o.get()
    }
}

impl Eq for Sum96 {}

impl PartialOrd for Sum96 {
    fn partial_cmp(&self, o: &Sum96) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Sum96 {
    fn cmp(&self, o: &Sum96) -> std::cmp::Ordering {
        self.get().cmp(&o.get())
    }
}

impl std::fmt::Debug for Sum96 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.get())
    }
}

/// What one request adds to a request report's row (besides its count of 1): each value fits
/// 64 bits (see [`ns`]), and the batch's contributions stay half the size of [`Sums`].
#[derive(Clone, Copy, Debug)]
struct Contribution {
    time_ns: u64,
    ru_utime_ns: u64,
    ru_stime_ns: u64,
    traffic_bytes: u32,
    memory_footprint_bytes: u32,
    /// Histogram bucket of the sample.
    bucket: u16,
}
const _: () = assert!(std::mem::size_of::<Contribution>() == 40);

impl Contribution {
    #[inline]
    fn of_request(r: &Record) -> Contribution {
        let time_ns = ns(r.request_time);
        Contribution {
            time_ns,
            ru_utime_ns: ns(r.ru_utime),
            ru_stime_ns: ns(r.ru_stime),
            traffic_bytes: r.document_size,
            memory_footprint_bytes: r.memory_footprint,
            bucket: bucket_of(time_ns),
        }
    }
}

/// What one timer adds to a timer report's row: only the sums a timer has (its request is
/// counted once per row, separately). 32 bytes, where a [`Contribution`] is 40: a table-order
/// update reads a round's timers' contributions in row order, not in batch order.
#[derive(Clone, Copy, Debug)]
struct TimerContribution {
    time_ns: u64,
    ru_utime_ns: u64,
    ru_stime_ns: u64,
    hit_count: u32,
    /// Histogram bucket of its per-hit value (`hit_count` samples).
    bucket: u16,
}
const _: () = assert!(std::mem::size_of::<TimerContribution>() == 32);

impl TimerContribution {
    #[inline]
    fn of(t: &Timer) -> TimerContribution {
        let time_ns = ns(t.value);
        let hits = t.hit_count as u64;
        let per_hit = time_ns
            .saturating_add(hits / 2)
            .checked_div(hits)
            .unwrap_or(0);
        TimerContribution {
            time_ns,
            ru_utime_ns: ns(t.ru_utime),
            ru_stime_ns: ns(t.ru_stime),
            hit_count: t.hit_count,
            bucket: bucket_of(per_hit),
        }
    }
}

/// A request's or a timer's contribution, as a row counts it: its sums, and its histogram
/// bucket with the number of samples in it.
trait Counted {
    fn add_to(&self, sums: &mut Sums);
    fn sample(&self) -> (u16, u64);
}

impl Counted for Contribution {
    #[inline(always)]
    fn add_to(&self, sums: &mut Sums) {
        sums.req_count += 1;
        sums.time_ns.add_u64(self.time_ns);
        sums.ru_utime_ns.add_u64(self.ru_utime_ns);
        sums.ru_stime_ns.add_u64(self.ru_stime_ns);
        sums.traffic_bytes.add_u64(self.traffic_bytes as u64);
        sums.memory_footprint_bytes
            .add_u64(self.memory_footprint_bytes as u64);
    }
    #[inline(always)]
    fn sample(&self) -> (u16, u64) {
        (self.bucket, 1)
    }
}

impl Counted for TimerContribution {
    #[inline(always)]
    fn add_to(&self, sums: &mut Sums) {
        sums.hit_count += self.hit_count as u64;
        sums.time_ns.add_u64(self.time_ns);
        sums.ru_utime_ns.add_u64(self.ru_utime_ns);
        sums.ru_stime_ns.add_u64(self.ru_stime_ns);
    }
    #[inline(always)]
    fn sample(&self) -> (u16, u64) {
        (self.bucket, self.hit_count as u64)
    }
}

/// One row: sums and histogram. `mark` is the update number that last touched it (timer reports:
/// a request counts once per row).
#[derive(Clone, Debug, Default)]
struct Row {
    sums: Sums,
    hist: Histogram,
    mark: u64,
    /// In the open tick: the row's number (see [`Report::flush_hist`]). In the window's closed
    /// part (`agg`): the number of the open tick's row of the same key, when `link` is the
    /// report's `open_gen` (see [`View::parts`]).
    slot: u32,
    /// In the closed part: the `open_gen` at which `slot` was set (0: never). Open rows keep 0.
    link: u32,
    /// Contributions (requests, or timers in a timer report) since the row was last zeroed: what a
    /// family's member loses when it has no room for a stage row (see `family`).
    contribs: u32,
    /// A row of the open tick whose key is not in the window's closed part (`agg`): counted in
    /// `open_only`, and what lets a query list the open tick's own rows without looking each
    /// open row up in `agg`.
    only_open: bool,
}

/// A sample waiting in a report's histogram log: its row's slot, bucket and count packed in a
/// word (slot: 24 bits, bucket: 12, samples: 28). Rows or counts beyond go to the row at once.
const LOG_SLOT_SHIFT: u32 = 40;
const LOG_BUCKET_SHIFT: u32 = 28;
const LOG_MAX_SLOT: u32 = 1 << 24;
const LOG_MAX_SAMPLES: u64 = 1 << 28;
const _: () = assert!(crate::histogram::BUCKETS <= 1 << 12);

/// A histogram log word's row slot, bucket and samples (see [`add_logged`]).
#[inline]
fn log_entry(e: u64) -> (usize, u16, u64) {
    (
        (e >> LOG_SLOT_SHIFT) as usize,
        ((e >> LOG_BUCKET_SHIFT) & 0xfff) as u16,
        e & (LOG_MAX_SAMPLES - 1),
    )
}

/// Counts `c` into `row`: the sums now, the histogram sample into `log` (or now when it does not
/// fit a log word).
///
/// Always inlined, as are [`count_into`] and [`Row::add`] (a report's totals, per timer): run per
/// contribution, the compiler had left them calls; inlined, the timer reports' updates of
/// `benches/update.rs` took 1–6 % less.
#[inline(always)]
fn add_logged(row: &mut Row, c: &impl Counted, log: &mut Vec<u64>) {
    c.add_to(&mut row.sums);
    row.contribs = row.contribs.saturating_add(1);
    let (bucket, samples) = c.sample();
    if row.slot < LOG_MAX_SLOT && samples < LOG_MAX_SAMPLES {
        log.push(
            (row.slot as u64) << LOG_SLOT_SHIFT | (bucket as u64) << LOG_BUCKET_SHIFT | samples,
        );
    } else {
        row.hist.add_bucket(bucket, samples);
    }
}

/// Counts `c` into an existing `row` (see `Report::apply`): its histogram sample into `log` when
/// the report logs them.
#[inline(always)]
fn count_into(row: &mut Row, c: &impl Counted, mark: Option<u64>, log: Option<&mut Vec<u64>>) {
    if let Some(mark) = mark {
        if row.mark != mark {
            row.mark = mark;
            row.sums.req_count += 1;
        }
    }
    match log {
        Some(log) => add_logged(row, c, log),
        None => row.add(c),
    }
}

impl Row {
    /// A new row holding `c` alone (of the request numbered `mark`, for a timer report).
    #[inline]
    fn first(c: &impl Counted, mark: Option<u64>) -> Row {
        let mut row = Row::default();
        if let Some(mark) = mark {
            row.mark = mark;
            row.sums.req_count = 1;
        }
        row.add(c);
        row
    }

    #[inline(always)]
    fn add(&mut self, c: &impl Counted) {
        c.add_to(&mut self.sums);
        let (bucket, samples) = c.sample();
        self.hist.add_bucket(bucket, samples);
        self.contribs = self.contribs.saturating_add(1);
    }

    /// Adds another row (a round into a tick, a tick into the window, a stage row into a member).
    fn add_row(&mut self, o: &Row) {
        self.sums.add(&o.sums);
        self.hist.add_hist(&o.hist);
        self.contribs = self.contribs.saturating_add(o.contribs);
    }

    /// Removes what a row added earlier (a tick leaving the window).
    fn subtract_row_parts<'h>(&mut self, sums: &Sums, hist: impl Into<HistView<'h>>) {
        self.sums.subtract(sums);
        self.hist.subtract_hist(hist);
    }
}

/// Row keys of up to this many ids (most reports: 1 to 4 keys) are stored in a map whose keys are
/// 16 bytes, hashed as two words and compared as two words: no length prefix and no `memcmp`
/// call per lookup. Longer keys go to a second map whose keys are [`MAX_KEYS`] ids, inline too.
const SMALL_KEY: usize = 4;

/// The key of the request (or timer) being applied: the ids of its key values, in key order,
/// then zeros.
#[derive(Clone, Copy, Debug)]
struct KeyBuf {
    ids: [u32; MAX_KEYS],
    len: usize,
}

impl KeyBuf {
    /// The key as a [`Rows`] table of up to `N` ids holds it: the ids, then zeros (`N` is at
    /// least the key's length).
    #[inline]
    fn inline<const N: usize>(&self) -> [u32; N] {
        inline_key(&self.ids[..N])
    }

    #[inline]
    fn slice(&self) -> &[u32] {
        &self.ids[..self.len]
    }
}

/// Open tables of at least this many slots are updated in table order (see
/// [`Report::add_batch`]). Not only where a table outgrows the L2 cache: the sort also brings a
/// round's contributions to the same row together (Zipf traffic repeats rows). Measured with the
/// merge bench (`MERGE_PROFILE=10k_rows:1:4:1500`, ns per request of one report): a 500-row
/// table 155 → 130, 2,500 rows 264 → 181, 10k rows 380 → 257 compared with the earlier 16k-slot
/// threshold; smaller tables (a few hundred rows) stay in L1/L2 and the sort would not pay.
const SORTED_MIN_SLOTS: usize = 1 << 9;
/// How many contributions ahead a table-order update fetches a row ([`Rows::prefetch`]):
/// enough to cover a memory access (~100 ns) with the few tens of ns each update takes.
const PREFETCH_AHEAD: usize = 8;
/// Batches smaller than this are applied as they come (sorting would not pay).
const SORTED_MIN_BATCH: usize = 64;
/// Samples per open row the histogram log holds before the merge thread applies it (see
/// [`Report::flush_hist`]): applying costs a pass over every open row, so the longer the log,
/// the cheaper per sample.
const HIST_LOG_PER_ROW: usize = 64;
/// The same for a report queried lately ([`Report::set_queried`]). Queries read the log, never
/// apply it ([`Report::pending_hists`]), so this bounds their pass over it, and the shown rows'
/// samples they add up (the busiest rows log most samples): 8 per row keeps the pass ~0.1 ms
/// for 10k rows idle, where 64 per row made it the larger part of a query. 16 per row cost the
/// e2e's query 9 % more time server-side (mean 1.59 / 1.51 against 1.75 / 1.66 ms at 100k/s);
/// the queried report's merge costs a few % more per request, and only while it is queried.
/// (Applying the log at each query instead cost ~0.66 ms of a query's CPU under load; applying
/// it at 16 per row for every report cost the merge ~5 %.)
const HIST_LOG_PER_ROW_QUERIED: usize = 8;
/// Contributions a request report's table-order update applies between two chances for
/// waiting readers (see [`Report::add_batch_in_steps`]): 256 row updates take 30–100 µs.
const STEP_CONTRIBUTIONS: usize = 256;

/// A contribution waiting to be applied in table order: its row's slot position, the
/// contribution (a request's or a timer's, by index in the batch), its key, and, for a timer,
/// the request's number (timer reports count a request once per row), 0 for a request. 32
/// bytes: the sort moves each entry twice. With a `timer` flag of their own (40 bytes) and the
/// row counting left to the compiler to inline (see [`add_logged`]), the table-order updates of
/// `benches/update.rs` took 4–24 % longer (request reports) and 5–8 % (timer reports); 28 bytes
/// (the number as an offset from the batch's first) measured the same as 32.
#[derive(Clone, Copy, Debug, Default)]
struct Deferred {
    pos: u32,
    index: u32,
    /// The key's ids; a key of more than [`SMALL_KEY`] ids is in [`Deferral::large`], at the
    /// index held in the first of them (the sort moves every entry: small entries keep it cheap).
    key: [u32; SMALL_KEY],
    mark: u64,
}
const _: () = assert!(std::mem::size_of::<Deferred>() == 32);

/// A batch's deferred contributions and the radix sort's buffers, reused batch after batch.
#[derive(Debug, Default)]
struct Deferral {
    mask: u64,
    entries: Vec<Deferred>,
    sorted: Vec<Deferred>,
    /// Keys of more than [`SMALL_KEY`] ids, in the order they were deferred.
    large: Vec<[u32; MAX_KEYS]>,
}

impl Deferral {
    /// Defers contribution `index` of the batch under a small `key`: a timer's of the request
    /// numbered `mark` (never 0, see `update_timers`), or a request's (`mark` 0).
    #[inline(always)]
    fn push_small(&mut self, key: Words, index: u32, mark: u64) {
        self.entries.push(Deferred {
            pos: (hash_words(key) & self.mask) as u32,
            index,
            key: ids_of(key),
            mark,
        });
    }

    /// [`Deferral::push_small`] of a key of more than [`SMALL_KEY`] ids: the key goes to
    /// `large`, the entry holds its index there.
    #[inline]
    fn push_large(&mut self, key: &KeyBuf, index: u32, mark: u64) {
        debug_assert!(key.len > SMALL_KEY, "small keys are deferred as words");
        let large = key.inline::<MAX_KEYS>();
        self.large.push(large);
        self.entries.push(Deferred {
            pos: (hash_ids(&large) & self.mask) as u32,
            index,
            key: [self.large.len() as u32 - 1, 0, 0, 0],
            mark,
        });
    }

    /// The key of a deferred contribution, for a report whose keys are `len` ids.
    #[inline]
    fn key_of(&self, e: &Deferred, len: usize) -> KeyBuf {
        let mut key = KeyBuf {
            ids: [0; MAX_KEYS],
            len,
        };
        if len <= SMALL_KEY {
            key.ids[..SMALL_KEY].copy_from_slice(&e.key);
        } else {
            key.ids = self.large[e.key[0] as usize];
        }
        key
    }

    /// Empties it for the next batch, keeping its buffers.
    fn clear(&mut self) {
        self.entries.clear();
        self.sorted.clear();
        self.large.clear();
    }

    /// Sorts `entries` into `sorted` by the top 11 bits of their position: one counting pass,
    /// stable. That is table order to within a 1/2048th of the table (a stretch of 16 KiB for a
    /// 256k-slot table), which is all the walk needs: a stretch is cached by its first row, and
    /// the rows are fetched ahead anyway. A full sort took one more pass for tables of over 2,048
    /// buckets (an LSD radix, 11 bits a pass). Stable, so the contributions of one row come in
    /// batch order, and a timer report's request marks only rise: it counts each request once
    /// per row (`Report::apply`).
    fn sort(&mut self) {
        let shift = (64 - self.mask.leading_zeros()).saturating_sub(11);
        let mut counts = [0u32; 2049];
        for e in &self.entries {
            counts[(e.pos >> shift) as usize + 1] += 1;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        self.sorted.clear();
        self.sorted.resize(self.entries.len(), Deferred::default());
        for e in &self.entries {
            let at = &mut counts[(e.pos >> shift) as usize];
            self.sorted[*at as usize] = *e;
            *at += 1;
        }
    }
}

/// The rows of a report, by key: inline keys of up to [`SMALL_KEY`] ids, or of up to
/// [`MAX_KEYS`] (a 5-key report such as the built-ins' stage, or more).
#[derive(Debug)]
enum RowMap {
    Small(Rows<SMALL_KEY>),
    Large(Rows<MAX_KEYS>),
}

/// The hash of an inline key: where its probe starts in a [`Rows`] table, and the order of a
/// batch's table-order update ([`Deferral`]). Two ids per word.
#[inline]
fn hash_ids<const N: usize>(k: &[u32; N]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    for pair in k.chunks(2) {
        h.write_u64(pair[0] as u64 | (pair.get(1).copied().unwrap_or(0) as u64) << 32);
    }
    h.finish()
}

/// A key given as its ids, inline: the ids, then zeros (a report's keys all have the same
/// length, so the padding never makes two keys equal). `ids` may be at most `N` long.
#[inline]
fn inline_key<const N: usize>(ids: &[u32]) -> [u32; N] {
    let mut k = [0; N];
    k[..ids.len()].copy_from_slice(ids);
    k
}

/// Rows under inline keys of up to `N` ids: hashbrown's `HashTable` (the table behind std's
/// `HashMap`), used directly for its bucket index. A table-order update knows each coming
/// contribution's bucket (`hash & (buckets - 1)`, where its probe starts) and asks the CPU to
/// fetch that bucket a few contributions ahead ([`Rows::prefetch`]): with a window's rows far
/// beyond the caches, the key compare's cache miss on the row was a fifth of the merge's time.
/// Keys are inline also beyond [`SMALL_KEY`] ids: a boxed key was a second miss per lookup (and
/// an allocation per row) for no less memory.
///
/// Allocated by [`TableAlloc`]: a large table lives on transparent huge pages.
#[derive(Debug)]
struct Rows<const N: usize>(HashTable<([u32; N], Row), TableAlloc>);

impl<const N: usize> Default for Rows<N> {
    fn default() -> Self {
        Rows(HashTable::new_in(TableAlloc))
    }
}

impl<const N: usize> Rows<N> {
    #[cfg(test)]
    fn get(&self, k: &[u32; N]) -> Option<&Row> {
        self.0.find(hash_ids(k), |e| e.0 == *k).map(|e| &e.1)
    }

    #[inline]
    fn get_mut(&mut self, k: &[u32; N]) -> Option<&mut Row> {
        self.0
            .find_mut(hash_ids(k), |e| e.0 == *k)
            .map(|e| &mut e.1)
    }

    /// Inserts or replaces the row of `k`.
    fn insert(&mut self, k: [u32; N], row: Row) {
        let hash = hash_ids(&k);
        match self.0.find_mut(hash, |e| e.0 == k) {
            Some(e) => e.1 = row,
            None => {
                self.0.insert_unique(hash, (k, row), |e| hash_ids(&e.0));
            }
        }
    }

    fn remove(&mut self, k: &[u32; N]) -> Option<Row> {
        match self.0.find_entry(hash_ids(k), |e| e.0 == *k) {
            Ok(e) => Some(e.remove().0 .1),
            Err(_) => None,
        }
    }

    fn shrink_to(&mut self, min: usize) {
        self.0.shrink_to(min, |e| hash_ids(&e.0));
    }

    /// Bytes of one slot: the key and the row.
    fn slot_bytes(&self) -> usize {
        std::mem::size_of::<([u32; N], Row)>()
    }

    /// Buckets of the table (a power of two): a key's probe starts at `hash & (buckets - 1)`.
    fn buckets(&self) -> usize {
        self.0.num_buckets()
    }

    /// [`Rows::prefetch`] of the bucket where `k`'s probe starts.
    #[inline]
    fn prefetch_key(&self, k: &[u32; N]) {
        self.prefetch(hash_ids(k) as usize & (self.buckets() - 1));
    }

    /// Asks the CPU to fetch the row in bucket `pos` (if one is there): the bucket a key's probe
    /// starts at, and most keys sit there (the table is at most 7/8 full). A hint only: a key
    /// found a few buckets on, or a table grown since `pos` was taken, costs only the miss it
    /// would have cost anyway. Reads the bucket's control byte, which a table-order update reads
    /// in order, so it is in cache.
    #[inline]
    fn prefetch(&self, pos: usize) {
        if let Some(e) = self.0.get_bucket(pos) {
            // Every line of the entry (152 bytes with a small key, 200 with a large one; entries
            // are 8-byte aligned, so up to three or four lines).
            let size = self.slot_bytes();
            let p = (e as *const ([u32; N], Row)).cast::<u8>();
            let mut at = 0;
            while at < size {
                prefetch_line(p.wrapping_add(at));
                at += 64;
            }
            prefetch_line(p.wrapping_add(size - 1));
        }
    }
}

/// `$body` with `$m` bound to the [`RowMap`]'s table, whichever its key size (the arms differ
/// only in the table's type).
macro_rules! each_rows {
    ($map:expr, $m:ident => $body:expr) => {
        match $map {
            RowMap::Small($m) => $body,
            RowMap::Large($m) => $body,
        }
    };
}

impl RowMap {
    fn new(keys: usize) -> RowMap {
        if keys <= SMALL_KEY {
            RowMap::Small(Rows::default())
        } else {
            RowMap::Large(Rows::default())
        }
    }

    #[inline]
    fn len(&self) -> usize {
        each_rows!(self, m => m.0.len())
    }

    fn capacity(&self) -> usize {
        each_rows!(self, m => m.0.capacity())
    }

    /// Room for `n` more rows without growing.
    fn reserve(&mut self, n: usize) {
        each_rows!(self, m => m.0.reserve(n, |e| hash_ids(&e.0)))
    }

    /// After a burst has left, gives back most of the table: when it is under 1/8 full, it
    /// shrinks to twice its rows (so steady traffic never shrinks and regrows it).
    fn shrink_if_sparse(&mut self) {
        let (len, cap) = (self.len(), self.capacity());
        if cap > 1024 && len < cap / 8 {
            each_rows!(self, m => m.shrink_to(len * 2))
        }
    }

    /// An emptied map keeps its table for the next round or tick, unless a burst made it larger
    /// than `keep` slots.
    fn trim(&mut self, keep: usize) {
        if self.capacity() > keep * 4 {
            each_rows!(self, m => m.shrink_to(keep))
        }
    }

    /// Bytes of one map slot: the key and the row (keys are inline).
    fn slot_bytes(&self) -> usize {
        each_rows!(self, m => m.slot_bytes())
    }

    /// The row of a key given as its ids (tests: queries find open rows by link, see
    /// [`View::parts`]).
    #[cfg(test)]
    fn get(&self, key: &[u32]) -> Option<&Row> {
        each_rows!(self, m => m.get(&inline_key(key)))
    }

    /// Asks the CPU to fetch the row of a key given as its ids, ahead of its use (see
    /// [`with_lookahead`]).
    #[inline]
    fn prefetch_ids(&self, key: &[u32]) {
        each_rows!(self, m => m.prefetch_key(&inline_key(key)))
    }

    /// Keeps the rows for which `f` (given the key and the row) returns true.
    fn retain_each(&mut self, keys: usize, mut f: impl FnMut(&KeyBuf, &mut Row) -> bool) {
        let mut key = KeyBuf {
            ids: [0; MAX_KEYS],
            len: keys,
        };
        each_rows!(self, m => m.0.retain(|(k, row)| {
            key.ids[..k.len()].copy_from_slice(k);
            f(&key, row)
        }))
    }

    #[inline]
    fn get_mut(&mut self, key: &KeyBuf) -> Option<&mut Row> {
        each_rows!(self, m => m.get_mut(&key.inline()))
    }

    #[inline]
    fn insert(&mut self, key: &KeyBuf, row: Row) {
        each_rows!(self, m => m.insert(key.inline(), row))
    }

    #[inline]
    fn remove(&mut self, key: &KeyBuf) -> Option<Row> {
        each_rows!(self, m => m.remove(&key.inline()))
    }

    fn values(&self) -> impl Iterator<Item = &Row> + '_ {
        self.iter(0).map(|(_, r)| r)
    }

    fn values_mut(&mut self) -> Box<dyn Iterator<Item = &mut Row> + '_> {
        each_rows!(self, m => Box::new(m.0.iter_mut().map(|e| &mut e.1)))
    }

    /// Every row with its key ids (`keys` of them).
    fn iter(&self, keys: usize) -> RowIter<'_> {
        match self {
            RowMap::Small(m) => RowIter::Small(m.0.iter(), keys),
            RowMap::Large(m) => RowIter::Large(m.0.iter(), keys),
        }
    }
}

/// Adds a closed tick's rows to a window's closed part (`agg`), fetching its rows ahead. With
/// `link` (the open tick's rows were just numbered in the tick's order), each `agg` row is
/// linked to the open row of its key: tick row `i` is open row `i` (see [`View::parts`]).
fn add_tick_rows(agg: &mut RowMap, tick: &ClosedTick, link: Option<u32>) {
    if agg.len() == 0 {
        // Every row is new (a report's first close, or one after its window emptied): sized
        // once, not doubled a dozen times while it fills (a 183k-row timer report's first close
        // moved every row ~14 times, with 40 such reports stalling the merge for seconds).
        agg.reserve(tick.rows.len());
    }
    let mut key = KeyBuf {
        ids: [0; MAX_KEYS],
        len: 0,
    };
    with_lookahead(
        agg,
        tick.rows().zip(0u32..),
        |agg, ((ids, _, _), _)| agg.prefetch_ids(ids),
        |agg, ((ids, sums, hist), i)| {
            key.ids[..ids.len()].copy_from_slice(ids);
            key.len = ids.len();
            let (slot, link) = link.map_or((0, 0), |gen| (i, gen));
            match agg.get_mut(&key) {
                Some(a) => {
                    a.sums.add(&sums);
                    a.hist.add_hist(hist);
                    (a.slot, a.link) = (slot, link);
                }
                None => agg.insert(
                    &key,
                    Row {
                        sums,
                        hist: hist.to_histogram(),
                        slot,
                        link,
                        ..Row::default()
                    },
                ),
            }
        },
    );
}

/// Calls `apply` with each item [`PREFETCH_AHEAD`] items after calling `hint` with it: a walk
/// that looks up one random row per item (a tick into the window, a stage into a member) lets
/// the rows' cache misses overlap instead of paying them one after another.
fn with_lookahead<S: ?Sized, T>(
    s: &mut S,
    items: impl IntoIterator<Item = T>,
    hint: impl Fn(&S, &T),
    mut apply: impl FnMut(&mut S, T),
) {
    let mut ahead = VecDeque::with_capacity(PREFETCH_AHEAD);
    for t in items {
        hint(s, &t);
        if ahead.len() == PREFETCH_AHEAD {
            if let Some(first) = ahead.pop_front() {
                apply(s, first);
            }
        }
        ahead.push_back(t);
    }
    for t in ahead {
        apply(s, t);
    }
}

/// A hint to fetch the cache line at `p` (no fault if `p` is not mapped: a prefetch never traps).
#[inline(always)]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault on any address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// [`RowMap::iter`]: one match per row, no chained or flattened adapters (a query walks every
/// row of the window through it).
#[derive(Clone)]
enum RowIter<'a> {
    Small(
        hashbrown::hash_table::Iter<'a, ([u32; SMALL_KEY], Row)>,
        usize,
    ),
    Large(
        hashbrown::hash_table::Iter<'a, ([u32; MAX_KEYS], Row)>,
        usize,
    ),
}

impl<'a> Iterator for RowIter<'a> {
    type Item = (&'a [u32], &'a Row);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            RowIter::Small(it, n) => it.next().map(|(k, r)| (&k[..*n], r)),
            RowIter::Large(it, n) => it.next().map(|(k, r)| (&k[..*n], r)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            RowIter::Small(it, _) => it.size_hint(),
            RowIter::Large(it, _) => it.size_hint(),
        }
    }
}

/// Requests prepared once for every report.
///
/// Each request's contribution (and each of its timers') is computed here once, instead of once
/// per report: the ns conversions and bucket numbers were a large share of the merge with 23
/// reports. The request is copied (record, timers, tag block), so that it stays readable after
/// the pool reused its slots: the merger collects every request leaving the pool during a round
/// (expired or overwritten) in one batch and the new ones in another, then updates each report in
/// turn with whole batches, which keeps one report's rows in cache for the whole round.
#[derive(Debug, Default)]
pub struct PreparedBatch {
    reqs: Vec<PreparedReq>,
    timers: Vec<Timer>,
    timer_contribs: Vec<TimerContribution>,
    tags: Vec<TagPair>,
}

#[derive(Debug)]
struct PreparedReq {
    id: u64,
    record: Record,
    contrib: Contribution,
    /// Start of its timers in `timers` and `timer_contribs`, and their number.
    timer_start: u32,
    timer_count: u32,
    /// Its tag block in `tags`.
    tag_start: u32,
    tag_len: u32,
    /// The timer tag names its timers carry, as a 64-bit Bloom filter ([`name_bit`]).
    timer_tag_names: u64,
}

/// A tag name's bit in a 64-bit Bloom filter of names.
#[inline]
fn name_bit(name: u32) -> u64 {
    1 << ((name.wrapping_mul(0x9E37_79B9) >> 26) & 63)
}

/// One request of a [`PreparedBatch`].
struct Prepared<'a> {
    view: RequestView<'a>,
    /// See [`PreparedReq::timer_tag_names`].
    timer_tag_names: u64,
    contrib: &'a Contribution,
    /// One per timer of `view.timers`.
    timers: &'a [TimerContribution],
    /// Its position in the batch, and where its timers' contributions start.
    index: u32,
    timer_start: u32,
}

impl PreparedBatch {
    /// Adds a copy of `v` with its contributions.
    pub fn push(&mut self, v: &RequestView<'_>) {
        let timer_start = self.timers.len() as u32;
        let tag_start = self.tags.len() as u32;
        self.timers.extend_from_slice(v.timers);
        self.timer_contribs
            .extend(v.timers.iter().map(TimerContribution::of));
        self.tags.extend_from_slice(v.tag_block);
        let timer_tag_names = v.tag_block[v.record.tag_count as usize..]
            .iter()
            .fold(0, |bits, t| bits | name_bit(t.name));
        self.reqs.push(PreparedReq {
            id: v.id,
            record: *v.record,
            contrib: Contribution::of_request(v.record),
            timer_start,
            timer_count: v.timers.len() as u32,
            tag_start,
            tag_len: v.tag_block.len() as u32,
            timer_tag_names,
        });
    }

    pub fn clear(&mut self) {
        self.reqs.clear();
        self.timers.clear();
        self.timer_contribs.clear();
        self.tags.clear();
    }

    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// The requests, as they were pushed (taps read a round through this).
    pub fn views(&self) -> impl Iterator<Item = RequestView<'_>> + '_ {
        self.iter().map(|p| p.view)
    }

    #[inline]
    fn iter(&self) -> impl Iterator<Item = Prepared<'_>> + '_ {
        self.reqs.iter().enumerate().map(move |(index, p)| {
            let timers = p.timer_start as usize..(p.timer_start + p.timer_count) as usize;
            let tags = p.tag_start as usize..(p.tag_start + p.tag_len) as usize;
            Prepared {
                view: RequestView {
                    id: p.id,
                    record: &p.record,
                    tag_block: &self.tags[tags],
                    timers: &self.timers[timers.clone()],
                },
                timer_tag_names: p.timer_tag_names,
                contrib: &p.contrib,
                timers: &self.timer_contribs[timers],
                index: index as u32,
                timer_start: p.timer_start,
            }
        })
    }
}

/// How a report's window is sliced: `ticks` slices of `tick_ms`, the newest of them open.
///
/// The window is the open tick plus the `ticks - 1` closed ticks before it, so it covers between
/// `history - tick` and `history` (the resolution is one tick). Tick `i` spans
/// `[i * tick_ms - phase_ms, (i + 1) * tick_ms - phase_ms)`: each report gets its own phase
/// (from its name), so that reports do not all close and expire their ticks in the same round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub history_ms: u64,
    pub tick_ms: u64,
    pub ticks: u64,
    pub phase_ms: u64,
}

/// Slices a window is cut into unless `report_ticks` says otherwise: 15 s ticks over the default
/// 15-minute `stats_history`, 1 s ticks over a 1-minute `history`.
pub const DEFAULT_TICKS: u32 = 60;

impl Window {
    /// `history` in `ticks` slices (at least 1 ms each), phase 0.
    pub fn new(history: std::time::Duration, ticks: u32) -> Window {
        let history_ms = (history.as_millis() as u64).max(1);
        let ticks = (ticks as u64).clamp(1, history_ms);
        Window {
            history_ms,
            tick_ms: history_ms / ticks,
            ticks,
            phase_ms: 0,
        }
    }

    /// The same window with a phase derived from `name` (see the type's docs).
    pub fn phased(mut self, name: &str) -> Window {
        let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        self.phase_ms = h % self.tick_ms;
        self
    }

    #[inline]
    fn tick_of(&self, ms: u64) -> u64 {
        (ms + self.phase_ms) / self.tick_ms
    }

    /// When tick `i` starts (0 for ticks that would start before the clock's zero).
    pub fn tick_start(&self, i: u64) -> u64 {
        i.saturating_mul(self.tick_ms).saturating_sub(self.phase_ms)
    }
}

/// A closed tick: its rows in two flat vectors (keys `n` ids per row), so that the window's
/// history costs a row's sums and histogram per tick and nothing more (no hash table slack).
///
/// Immutable once closed, and shared (`Arc`): the window holds it until it leaves, and a report
/// that keeps history also hands it to the history writer (see [`Report::take_closed_ticks`]),
/// which reads it on its own thread without copying it.
#[derive(Debug)]
pub struct ClosedTick {
    index: u64,
    /// Set when the tick was closed before its end, at shutdown: when (merger ms). History
    /// records it as ending then, so that the next run's first tick is not taken for it.
    cut_at_ms: Option<u64>,
    keys: Vec<u32>,
    rows: Vec<TickRow>,
    /// The rows whose sums do not fit [`NarrowSums`] (by their place in `rows`, ascending),
    /// whole; their `TickRow` holds zeros. Empty but for 584 years of request time in one row of
    /// one tick.
    wide: Vec<(u32, Sums)>,
    /// Every row's histogram, row after row, packed 32 bits a bucket ([`HistView::Packed`]).
    hists: Vec<u32>,
    /// The rows whose histograms do not pack (a bucket counting a million samples in one row of
    /// one tick), by their place in `rows`, ascending, whole; their `TickRow` has no buckets.
    whole_hists: Vec<(u32, Histogram)>,
    totals: Row,
}

/// A closed tick's row: its sums, and where its histogram's buckets are in the tick's `hists`.
/// 56 bytes, where the sums and a histogram of its own took 88, and 8 more a bucket.
#[derive(Debug)]
struct TickRow {
    sums: NarrowSums,
    hist_at: u32,
    hist_len: u16,
}
const _: () = assert!(std::mem::size_of::<TickRow>() == 56);

/// A closed tick's row's [`Sums`] in 48 bytes: the request and hit counts in 32 bits each, the
/// time and byte sums in 64 bits each, which holds any tick row but a pathological one (4 billion
/// requests or hits, or 584 years of time, in one row of one tick: such a row goes whole to
/// [`ClosedTick`]'s `wide`). The window's 60 closed ticks are most of a report's memory, and every
/// byte here is a byte per row and tick: 128-bit sums took 19 % more (15,663 B a row against
/// 13,130 over a 15-minute window), 64-bit counts 13,217 B, 32-bit ones 12,745 B (and with the
/// rows' histograms packed, [`HistView::Packed`], 9,441 B).
#[derive(Clone, Copy, Debug, Default)]
struct NarrowSums([u64; 6]);

impl NarrowSums {
    /// `s` narrowed, if every field fits.
    fn of(s: &Sums) -> Option<NarrowSums> {
        let w = |v: Sum96| u64::try_from(v.get()).ok();
        let count = |v: u64| u32::try_from(v).ok().map(u64::from);
        Some(NarrowSums([
            count(s.req_count)? | count(s.hit_count)? << 32,
            w(s.time_ns)?,
            w(s.ru_utime_ns)?,
            w(s.ru_stime_ns)?,
            w(s.traffic_bytes)?,
            w(s.memory_footprint_bytes)?,
        ]))
    }

    fn widen(&self) -> Sums {
        let [counts, time_ns, ru_utime_ns, ru_stime_ns, traffic, memory] = self.0;
        Sums {
            req_count: counts & u64::from(u32::MAX),
            hit_count: counts >> 32,
            time_ns: time_ns.into(),
            ru_utime_ns: ru_utime_ns.into(),
            ru_stime_ns: ru_stime_ns.into(),
            traffic_bytes: traffic.into(),
            memory_footprint_bytes: memory.into(),
        }
    }
}

/// Fills the unused places of [`RowRef::percentiles_ns`]'s parts.
static EMPTY_HISTOGRAM: Histogram = Histogram::new();

impl ClosedTick {
    /// The tick's number in its report's [`Window`] (see [`Window::tick_start`]).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// When the tick was closed, if before its end ([`Report::close_at_shutdown`]).
    pub fn cut_at_ms(&self) -> Option<u64> {
        self.cut_at_ms
    }

    /// Every row: its key ids (as many as the report has keys), sums and histogram. The ids are
    /// the dictionary's, alive at least while the tick is in its report's window.
    pub fn rows(&self) -> impl Iterator<Item = (&[u32], Sums, HistView<'_>)> + '_ {
        let n = if self.rows.is_empty() {
            0
        } else {
            self.keys.len() / self.rows.len()
        };
        let mut wide = self.wide.iter().peekable();
        let mut whole = self.whole_hists.iter().peekable();
        self.rows.iter().enumerate().map(move |(i, r)| {
            let sums = match wide.next_if(|(at, _)| *at as usize == i) {
                Some((_, s)) => *s,
                None => r.sums.widen(),
            };
            let hist = match whole.next_if(|(at, _)| *at as usize == i) {
                Some((_, h)) => HistView::Whole(h),
                None => {
                    let at = r.hist_at as usize;
                    HistView::Packed(&self.hists[at..at + r.hist_len as usize])
                }
            };
            (&self.keys[i * n..(i + 1) * n], sums, hist)
        })
    }

    /// Appends a row (key ids in key order).
    fn push_row(&mut self, key: &[u32], sums: &Sums, hist: &Histogram) {
        self.keys.extend_from_slice(key);
        let narrow = NarrowSums::of(sums).unwrap_or_else(|| {
            self.wide.push((self.rows.len() as u32, *sums));
            NarrowSums::default()
        });
        let hist_at = self.hists.len();
        // (An array past 4G buckets, which `hist_at` could not address, takes no more.)
        let room = hist_at + hist.buckets_used() <= u32::MAX as usize;
        if !(room && hist.pack32_into(&mut self.hists)) {
            self.whole_hists
                .push((self.rows.len() as u32, hist.compact_clone()));
        }
        self.rows.push(TickRow {
            sums: narrow,
            hist_at: hist_at as u32,
            hist_len: (self.hists.len() - hist_at) as u16,
        });
    }

    /// A closed tick with no rows yet.
    fn new(
        index: u64,
        cut_at_ms: Option<u64>,
        totals: Row,
        rows: usize,
        keys: usize,
    ) -> ClosedTick {
        ClosedTick {
            index,
            cut_at_ms,
            keys: Vec::with_capacity(rows * keys),
            rows: Vec::with_capacity(rows),
            wide: Vec::new(),
            hists: Vec::new(),
            whole_hists: Vec::new(),
            totals,
        }
    }

    /// Gives back what the rows' histograms did not use of their array (grown as rows came).
    fn shrink_hists(&mut self) {
        self.hists.shrink_to_fit();
    }

    /// The report's totals over the tick (requests lost for want of a row included).
    pub fn totals(&self) -> (&Sums, &Histogram) {
        (&self.totals.sums, &self.totals.hist)
    }
}

/// Closed ticks a report keeps for the history writer between two collections (see
/// [`Report::take_closed_ticks`]); beyond it the oldest are dropped and counted. The merger
/// collects every round, so this is reached only if collection stops.
const OUTBOX_MAX_TICKS: usize = 1024;

/// A row's parts: its row in the window's closed part and in the open tick (see
/// [`View::parts`]).
type RowParts<'a> = [Option<&'a Row>; 2];

/// A row of a query: the window's closed part, the open tick, and samples of the open tick still
/// in the histogram log, summed on read.
#[derive(Clone, Copy, Debug)]
struct RowRef<'a> {
    sums: Sums,
    closed: Option<&'a Histogram>,
    /// The open tick's histogram, `None` once `pending` stands for it.
    open: Option<&'a Histogram>,
    /// The open tick's histogram with its samples still in the report's histogram log (see
    /// [`PendingHists`]): set only for the rows a query reads percentiles of.
    pending: Option<&'a Histogram>,
    /// The open row's slot (its samples' address in the histogram log), [`NO_SLOT`] if none.
    open_slot: u32,
}

/// Open rows' histograms with their samples still in a report's histogram log, by the row's
/// slot (see [`Report::pending_hists`]): `index[slot]` is 1 + the row's place in `hists`, 0 for
/// a slot without (an array, not a hash map: each logged sample of a row read finds its
/// histogram with one load).
struct PendingHists {
    index: Vec<u32>,
    hists: Vec<Histogram>,
}

impl PendingHists {
    const NONE: PendingHists = PendingHists {
        index: Vec::new(),
        hists: Vec::new(),
    };

    /// The histogram of `slot`, a copy of `open` (the row's open histogram) made at first use.
    fn get_or_copy(&mut self, slot: usize, open: &Histogram) -> &mut Histogram {
        let at = &mut self.index[slot];
        if *at == 0 {
            self.hists.push(open.clone());
            *at = self.hists.len() as u32;
        }
        &mut self.hists[*at as usize - 1]
    }

    fn of_slot(&self, slot: u32) -> Option<&Histogram> {
        match self.index.get(slot as usize) {
            Some(&i) if i > 0 => Some(&self.hists[i as usize - 1]).filter(|h| !h.is_empty()),
            _ => None,
        }
    }
}

/// [`RowRef::open_slot`] of a row with no open part.
const NO_SLOT: u32 = u32::MAX;

impl<'a> RowRef<'a> {
    fn of(closed: Option<&'a Row>, open: Option<&'a Row>) -> RowRef<'a> {
        let mut sums = closed.map(|r| r.sums).unwrap_or_default();
        if let Some(o) = open {
            sums.add(&o.sums);
        }
        RowRef {
            sums,
            closed: closed.map(|r| &r.hist),
            open: open.map(|r| &r.hist),
            pending: None,
            open_slot: open.map_or(NO_SLOT, |r| r.slot),
        }
    }

    /// The row with its samples still in the histogram log, if it has any: its open
    /// histogram read from `pending` instead.
    fn with_pending(mut self, pending: &'a PendingHists) -> RowRef<'a> {
        if let Some(h) = pending.of_slot(self.open_slot) {
            self.pending = Some(h);
            self.open = None;
        }
        self
    }

    /// The `p`-th percentile of the row in nanoseconds (the parts read together, nothing
    /// built).
    fn percentile_ns(&self, p: f64) -> Option<f64> {
        if self.pending.is_some() {
            let mut out = Vec::with_capacity(1);
            self.percentiles_ns(&[p], &mut out);
            return out[0];
        }
        match (self.closed, self.open) {
            (Some(a), Some(b)) => crate::histogram::percentile_ns_of_sum(a, b, p),
            (Some(h), None) | (None, Some(h)) => h.percentile_ns(p),
            (None, None) => None,
        }
    }

    /// Several percentiles at once, in one walk over the parts' buckets (see
    /// [`crate::histogram::percentiles_ns_of_sum`]).
    fn percentiles_ns(&self, ps: &[f64], out: &mut Vec<Option<f64>>) {
        let parts: [Option<&Histogram>; 3] = [self.closed, self.open, self.pending];
        let mut hists: [&Histogram; 3] = [&EMPTY_HISTOGRAM; 3];
        let mut n = 0;
        for h in parts.into_iter().flatten() {
            hists[n] = h;
            n += 1;
        }
        if n == 0 {
            out.clear();
            out.resize(ps.len(), None);
            return;
        }
        crate::histogram::percentiles_ns_of_sum(&hists[..n], ps, out);
    }

    /// The row's histogram (merged only when both parts hold samples); tests compare rows by it.
    #[cfg(test)]
    fn hist(&self) -> Cow<'a, Histogram> {
        match (self.closed, self.open) {
            (Some(c), Some(o)) if !o.is_empty() && !c.is_empty() => {
                let mut h = c.clone();
                h.add_hist(o);
                Cow::Owned(h)
            }
            (Some(c), Some(o)) if c.is_empty() => Cow::Borrowed(o),
            (Some(c), _) => Cow::Borrowed(c),
            (None, Some(o)) => Cow::Borrowed(o),
            (None, None) => Cow::Owned(Histogram::new()),
        }
    }
}

impl Sums {
    #[inline]
    pub fn add(&mut self, o: &Sums) {
        self.req_count += o.req_count;
        self.hit_count += o.hit_count;
        self.time_ns.add(o.time_ns);
        self.ru_utime_ns.add(o.ru_utime_ns);
        self.ru_stime_ns.add(o.ru_stime_ns);
        self.traffic_bytes.add(o.traffic_bytes);
        self.memory_footprint_bytes.add(o.memory_footprint_bytes);
    }

    /// Whether [`Sums::subtract`] of `o` leaves no field below zero.
    fn covers(&self, o: &Sums) -> bool {
        self.req_count >= o.req_count
            && self.hit_count >= o.hit_count
            && self.time_ns >= o.time_ns
            && self.ru_utime_ns >= o.ru_utime_ns
            && self.ru_stime_ns >= o.ru_stime_ns
            && self.traffic_bytes >= o.traffic_bytes
            && self.memory_footprint_bytes >= o.memory_footprint_bytes
    }

    #[inline]
    fn subtract(&mut self, o: &Sums) {
        self.req_count -= o.req_count;
        self.hit_count -= o.hit_count;
        self.time_ns.sub(o.time_ns);
        self.ru_utime_ns.sub(o.ru_utime_ns);
        self.ru_stime_ns.sub(o.ru_stime_ns);
        self.traffic_bytes.sub(o.traffic_bytes);
        self.memory_footprint_bytes.sub(o.memory_footprint_bytes);
    }
}

/// A live report over a sliding window of ticks.
///
/// # How a request gets in, and out
/// 1. [`Report::add_batch`]: each request of a merge round (or each of its timers, in a timer
///    report) updates one row of the open tick's map.
/// 2. [`Report::advance`], when the clock enters a new tick: the open tick is folded into `agg`
///    (the sum of the closed ticks in the window), one update per row of the tick, and kept as a
///    compact [`ClosedTick`]; closed ticks that left the window are subtracted from `agg` whole,
///    one update per row of the tick.
///
/// Queries read `agg` and the open tick, summed row by row (`RowRef`). Nothing is subtracted
/// per request: a report's cost is one row update per request (timer reports: per matching
/// timer) plus two per row and tick, whatever the window's length or the raw pool's size. (A
/// per-round map folded into the open tick was tried: on rounds of ~1k requests it cost more
/// than it saved, rebuilding row histograms every round.)
///
/// # Exactness and the row limit
/// Sums are integers (nanoseconds, bytes) and a tick leaves `agg` by subtracting exactly what it
/// added, so the report always equals one built from scratch over the requests of the ticks in its
/// window. A row is a key present in `agg` or in the open tick; when `max_rows` exist, a
/// contribution with a new key is **lost**: it counts in the totals, in no row, and in
/// `rows_lost`. To keep every row exact, no row is then created until the tick of the loss has
/// left the window (a row created meanwhile for that key would miss the lost contribution);
/// existing rows keep counting. A tick's rows all exist in `agg` once it closed.
#[derive(Debug)]
pub struct Report {
    def: ReportDef,
    kind: Kind,
    /// The keys as strings, preset expanded (`tag:country`).
    key_names: Vec<String>,
    /// Column names of the keys (`country`, or `tag:country` when it would repeat).
    key_columns: Vec<String>,
    keys: Vec<Key>,
    /// Positions of timer tag keys in the key array, with their tag name ids.
    timer_keys: Vec<(usize, u32)>,
    /// The timer tag names a request's timers must carry for it to count at all (keys and
    /// filters), as a Bloom filter ([`name_bit`]): a request whose timers lack one is skipped
    /// without looking at its timers (pinba2's per-request bloom filters).
    needed_timer_tags: u64,
    filters: Filters,
    /// Dictionary ids this report pinned (tag names, filter values), released by `release`.
    pins: Vec<u32>,
    max_rows: usize,
    rows_lost: u64,
    /// Counts requests applied, for `Row::mark` (timer reports: a request counts once per row).
    update_number: u64,
    /// Whether any filter is set (most reports have none: skips the filter checks).
    filtered: bool,
    window: Window,
    /// The open tick.
    open: RowMap,
    open_totals: Row,
    open_index: u64,
    /// Rows of `open` whose key is not in `agg`: rows = agg.len() + open_only.
    open_only: usize,
    /// Slot numbers given to the open tick's rows so far (renumbered at each close).
    open_slots: u32,
    /// Counts the renumberings of the open tick's rows (from 1): a closed-part row's link to
    /// its open row (`Row::link`, `Row::slot`) holds only when made at the current count.
    open_gen: u32,
    /// Histogram samples of the open tick not yet in their rows (see [`Report::flush_hist`]),
    /// and the flush's scratch.
    hist_log: Vec<u64>,
    /// Whether queries read the report lately: its log is kept shorter (see
    /// [`HIST_LOG_PER_ROW_QUERIED`]).
    queried: bool,
    hist_sorted: Vec<u64>,
    slot_counts: Vec<u32>,
    /// Off for one-request updates ([`Report::add`]): there, logging would cost a flush each;
    /// off too while a batch goes to a table small enough to stay in cache (`add_batch`).
    log_histograms: bool,
    /// Open tables of fewer slots than this take their samples at once, unlogged
    /// ([`SORTED_MIN_SLOTS`]; tests set 0 to run the log on small tables too).
    log_min_slots: usize,
    /// While a batch is counted in table order (see [`Report::add_batch`]): its contributions,
    /// and the table's size as a mask of the hash.
    deferred: Option<Deferral>,
    spare_deferral: Option<Deferral>,
    /// No row may be created until this tick has left the window: a contribution of it was
    /// lost for want of a row, and a row created for that key meanwhile would miss it.
    frozen_tick: Option<u64>,
    /// Closed ticks in the window, oldest first, and their sum.
    closed: VecDeque<Arc<ClosedTick>>,
    /// Ticks closed since the history writer last took them (`None`: the report keeps no
    /// history); see [`Report::keep_closed_ticks`]. Pure: no channel in here, the merger moves
    /// them on.
    outbox: Option<Vec<Arc<ClosedTick>>>,
    /// Ticks dropped from a full outbox since the last [`Report::take_closed_ticks`].
    outbox_dropped: u64,
    agg: RowMap,
    agg_totals: Row,
    /// Milliseconds (merger clock) from which the report holds every request of its window: the
    /// daemon's start for a report made at start-up, the oldest request the raw pool still held
    /// for one created (and filled) at run time.
    complete_from_ms: u64,
    /// The latest time the report was advanced to.
    now_ms: u64,
    /// The one request of [`Report::add`].
    scratch_batch: PreparedBatch,
}

impl Report {
    /// Validates `def` and interns (pins) its tag names and filter values in `dict`;
    /// [`Report::release`] unpins them when the report is dropped. The report starts empty, over
    /// the default window (15 minutes in [`DEFAULT_TICKS`] ticks, or the definition's `history`),
    /// complete from time 0; see [`Report::with_window`].
    pub fn new(
        def: ReportDef,
        dict: &mut Dictionary,
        max_rows: usize,
    ) -> Result<Report, ReportError> {
        def.validate()?;
        let key_names = def.resolved_keys()?;
        let specs = key_names
            .iter()
            .map(|k| KeySpec::parse(k))
            .collect::<Result<Vec<_>, _>>()?;
        let filter_specs = def
            .filters
            .iter()
            .map(|(k, v)| parse_filter(k, v))
            .collect::<Result<Vec<_>, _>>()?;

        let mut pins = Vec::new();
        let mut pin = |s: &str, pins: &mut Vec<u32>| -> Result<u32, ReportError> {
            let id = dict.pin(s.as_bytes());
            if id == LOST {
                return Err(ReportError(
                    format!(
                        "dictionary full: cannot keep `{s}` (limits.max_dictionary_entries, \
                         limits.max_dictionary_bytes); strings unused for longer than the \
                         longest window are swept, or raise the limits"
                    ),
                    Refusal::Full,
                ));
            }
            pins.push(id);
            Ok(id)
        };
        let mut build = |pins: &mut Vec<u32>| -> Result<(Vec<Key>, Filters), ReportError> {
            let mut keys = Vec::with_capacity(specs.len());
            for spec in &specs {
                keys.push(match spec {
                    KeySpec::Hostname => Key::Hostname,
                    KeySpec::ServerName => Key::ServerName,
                    KeySpec::ScriptName => Key::ScriptName,
                    KeySpec::Schema => Key::Schema,
                    KeySpec::Status => Key::Status,
                    KeySpec::Tag(n) => Key::Tag(pin(n, pins)?),
                    KeySpec::TimerTag(n) => Key::TimerTag(pin(n, pins)?),
                });
            }
            let mut f = Filters::default();
            for spec in &filter_specs {
                match spec {
                    FilterSpec::MinTime(v) => f.min_time = Some(*v as f32),
                    FilterSpec::MaxTime(v) => f.max_time = Some(*v as f32),
                    FilterSpec::Status(s) => f.status = Some(*s),
                    FilterSpec::Field(field, value) => {
                        let id = pin(value, pins)?;
                        f.fields.push((*field, id));
                    }
                    FilterSpec::Tag(n, value) => {
                        let name = pin(n, pins)?;
                        let value = pin(value, pins)?;
                        f.tags.push(TagPair { name, value });
                    }
                    FilterSpec::TimerTag(n, value) => {
                        let name = pin(n, pins)?;
                        let value = pin(value, pins)?;
                        f.timer_tags.push(TagPair { name, value });
                    }
                }
            }
            Ok((keys, f))
        };
        let (keys, filters) = match build(&mut pins) {
            Ok(x) => x,
            Err(e) => {
                for id in pins {
                    dict.release(id);
                }
                return Err(e);
            }
        };

        let kind = def.kind();
        let key_columns = key_column_names(&specs, kind);
        let filtered = !filter_specs.is_empty();
        let history = def
            .history
            .map_or(std::time::Duration::from_secs(900), |h| h.0);
        let mut report = Report::empty(
            def,
            kind,
            keys,
            filters,
            Window::new(history, DEFAULT_TICKS),
        );
        report.key_names = key_names;
        report.key_columns = key_columns;
        report.pins = pins;
        report.max_rows = max_rows;
        report.filtered = filtered;
        Ok(report)
    }

    /// A report with no rows over `keys` (no names, pins or row limit yet).
    fn empty(
        def: ReportDef,
        kind: Kind,
        keys: Vec<Key>,
        filters: Filters,
        window: Window,
    ) -> Report {
        let timer_keys = keys
            .iter()
            .enumerate()
            .filter_map(|(i, k)| match *k {
                Key::TimerTag(name) => Some((i, name)),
                _ => None,
            })
            .collect();
        let needed_timer_tags = keys
            .iter()
            .filter_map(|k| match *k {
                Key::TimerTag(name) => Some(name),
                _ => None,
            })
            .chain(filters.timer_tags.iter().map(|t| t.name))
            .fold(0, |bits, name| bits | name_bit(name));
        let n = keys.len();
        Report {
            def,
            kind,
            key_names: Vec::new(),
            key_columns: Vec::new(),
            keys,
            timer_keys,
            needed_timer_tags,
            filters,
            pins: Vec::new(),
            max_rows: usize::MAX,
            rows_lost: 0,
            update_number: 0,
            filtered: false,
            window,
            open: RowMap::new(n),
            open_totals: Row::default(),
            open_index: 0,
            open_only: 0,
            open_slots: 0,
            open_gen: 1,
            hist_log: Vec::new(),
            queried: false,
            hist_sorted: Vec::new(),
            slot_counts: Vec::new(),
            log_histograms: true,
            log_min_slots: SORTED_MIN_SLOTS,
            deferred: None,
            spare_deferral: None,
            frozen_tick: None,
            closed: VecDeque::new(),
            outbox: None,
            outbox_dropped: 0,
            agg: RowMap::new(n),
            agg_totals: Row::default(),
            complete_from_ms: 0,
            now_ms: 0,
            scratch_batch: PreparedBatch::default(),
        }
    }

    /// Sets the window (the definition's `history` wins over `default_history`; `ticks` slices;
    /// phase from the name) and the time from which the report is complete. Call before the
    /// first request.
    pub fn with_window(
        mut self,
        default_history: std::time::Duration,
        ticks: u32,
        complete_from_ms: u64,
    ) -> Report {
        let history = self.def.history.map_or(default_history, |h| h.0);
        self.window = Window::new(history, ticks).phased(&self.def.name);
        self.complete_from_ms = complete_from_ms;
        self.now_ms = complete_from_ms;
        self.open_index = self.window.tick_of(complete_from_ms);
        self
    }

    /// Sets when the report is complete from (see the field), before it is filled.
    pub fn start_at(&mut self, complete_from_ms: u64) {
        self.complete_from_ms = complete_from_ms;
        self.now_ms = self.now_ms.min(complete_from_ms);
    }

    /// Sets the window exactly (tests: phase 0).
    #[cfg(test)]
    pub fn with_exact_window(mut self, window: Window, complete_from_ms: u64) -> Report {
        self.window = window;
        self.complete_from_ms = complete_from_ms;
        self.now_ms = complete_from_ms;
        self.open_index = window.tick_of(complete_from_ms);
        self
    }

    /// Unpins the dictionary ids pinned by [`Report::new`]. Call once before dropping the report
    /// (a second call does nothing).
    pub fn release(&mut self, dict: &mut Dictionary) {
        for id in self.pins.drain(..) {
            dict.release(id);
        }
    }

    pub fn def(&self) -> &ReportDef {
        &self.def
    }
    pub fn kind(&self) -> Kind {
        self.kind
    }
    /// The keys, preset expanded (`tag:country`).
    pub fn keys(&self) -> &[String] {
        &self.key_names
    }
    /// Column names of the keys (`country`).
    pub fn key_columns(&self) -> &[String] {
        &self.key_columns
    }
    pub fn window(&self) -> Window {
        self.window
    }
    /// Rows in the window (closed ticks and the open one).
    pub fn rows(&self) -> usize {
        self.agg.len() + self.open_only
    }
    /// Contributions (requests; timers in a timer report) lost because the report had
    /// `max_rows` rows, since creation.
    pub fn rows_lost(&self) -> u64 {
        self.rows_lost
    }
    pub fn max_rows(&self) -> usize {
        self.max_rows
    }
    /// Requests counted in the totals (after filters).
    pub fn total_requests(&self) -> u64 {
        self.agg_totals.sums.req_count + self.open_totals.sums.req_count
    }
    /// See the field: milliseconds of the merger's clock.
    pub fn complete_from_ms(&self) -> u64 {
        self.complete_from_ms
    }

    /// When the next tick begins (merger ms): until then an idle report has nothing to do.
    pub fn next_tick_ms(&self) -> u64 {
        self.window.tick_start(self.open_index + 1)
    }

    /// When the window now starts: the start of its oldest tick, or when the report became
    /// complete if that is later (milliseconds of the merger's clock).
    pub fn window_start_ms(&self) -> u64 {
        let first = (self.open_index + 1).saturating_sub(self.window.ticks);
        self.window.tick_start(first).max(self.complete_from_ms)
    }

    /// Seconds the report covers at `now_ms`: from [`Report::window_start_ms`] to now, at least
    /// 1 (a report seconds old shows rates over one second), at most its history.
    pub fn time_interval(&self, now_ms: u64) -> f64 {
        let span = now_ms.saturating_sub(self.window_start_ms()) as f64 / 1000.0;
        span.clamp(1.0, (self.window.history_ms as f64 / 1000.0).max(1.0))
    }

    /// Approximate heap bytes held by rows, ticks and histograms.
    pub fn memory_bytes(&self) -> usize {
        let map = |m: &RowMap| {
            m.capacity() * (m.slot_bytes() + 1)
                + m.values().map(|r| r.hist.heap_bytes()).sum::<usize>()
        };
        let ticks: usize = self
            .closed
            .iter()
            .map(|t| {
                t.keys.capacity() * 4
                    + t.rows.capacity() * std::mem::size_of::<TickRow>()
                    + t.wide.capacity() * std::mem::size_of::<(u32, Sums)>()
                    + t.hists.capacity() * 4
                    + t.whole_hists.capacity() * std::mem::size_of::<(u32, Histogram)>()
                    + t.whole_hists
                        .iter()
                        .map(|(_, h)| h.heap_bytes())
                        .sum::<usize>()
            })
            .sum();
        map(&self.open)
            + map(&self.agg)
            + ticks
            + 8 * (self.hist_log.capacity() + self.hist_sorted.capacity())
            + 4 * self.slot_counts.capacity()
    }

    /// Counts one request now (tests; the merger uses the batch calls). Never touches the
    /// dictionary.
    pub fn add(&mut self, req: &RequestView<'_>) {
        let mut b = std::mem::take(&mut self.scratch_batch);
        b.clear();
        b.push(req);
        self.log_histograms = false;
        self.add_batch(&b);
        self.log_histograms = true;
        self.scratch_batch = b;
    }

    /// Moves the window to `now_ms` (never back): when a new tick begins, the open tick closes
    /// and ticks that left the window are dropped.
    pub fn advance(&mut self, now_ms: u64) {
        if now_ms <= self.now_ms {
            return;
        }
        self.now_ms = now_ms;
        let tick = self.window.tick_of(now_ms);
        if tick <= self.open_index {
            return;
        }
        self.close_open_tick();
        self.open_index = tick;
        let first_kept = (tick + 1).saturating_sub(self.window.ticks);
        while self.closed.front().is_some_and(|t| t.index < first_kept) {
            let t = self.closed.pop_front().expect("checked");
            self.expire(t);
        }
        if self.frozen_tick.is_some_and(|f| f < first_kept) {
            self.frozen_tick = None;
        }
        self.agg.shrink_if_sparse();
        self.open.trim(1 << 16);
    }

    /// The open tick's rows go into `agg` and, as compact copies, into a closed tick. The open
    /// rows are then zeroed in place, keeping their histograms' memory (a busy row's histogram
    /// is not grown again every tick); rows idle for a whole tick are dropped.
    fn close_open_tick(&mut self) {
        self.close_open_tick_cut(None)
    }

    /// At shutdown when no snapshot keeps the open tick: closes it as it is, so that a report
    /// keeping history hands what its last, partial tick counted to the history writer (see
    /// [`ClosedTick::cut_at_ms`]). The report is not used afterwards.
    pub fn close_at_shutdown(&mut self, now_ms: u64) {
        if self.outbox.is_some() {
            self.close_open_tick_cut(Some(now_ms));
        }
    }

    fn close_open_tick_cut(&mut self, cut_at_ms: Option<u64>) {
        if self.open_totals.sums.req_count == 0 && self.open.len() == 0 {
            return;
        }
        self.flush_hist();
        let n = self.keys.len();
        let totals = Row {
            sums: self.open_totals.sums,
            hist: self.open_totals.hist.compact_clone(),
            ..Row::default()
        };
        self.open_totals.sums = Sums::default();
        self.open_totals.hist.clear();
        self.agg_totals.add_row(&totals);
        let mut tick = ClosedTick::new(self.open_index, cut_at_ms, totals, self.open.len(), n);
        let mut slots = 0;
        self.open.retain_each(n, |key, row| {
            if row.sums.req_count == 0 {
                return false;
            }
            row.slot = slots;
            slots += 1;
            tick.push_row(key.slice(), &row.sums, &row.hist);
            row.sums = Sums::default();
            row.hist.clear();
            row.contribs = 0;
            row.only_open = false;
            true
        });
        tick.shrink_hists();
        self.open_only = 0;
        self.open_slots = slots;
        // Then the tick into the window's closed part: a second walk, over the tick's rows, so
        // that each `agg` row can be fetched ahead (see `with_lookahead`).
        // The open rows were renumbered: every link made before is stale from here.
        self.open_gen = self.open_gen.wrapping_add(1).max(1);
        add_tick_rows(&mut self.agg, &tick, Some(self.open_gen));
        let tick = Arc::new(tick);
        if let Some(outbox) = &mut self.outbox {
            if outbox.len() >= OUTBOX_MAX_TICKS {
                outbox.remove(0);
                self.outbox_dropped += 1;
            }
            outbox.push(Arc::clone(&tick));
        }
        self.closed.push_back(tick);
    }

    /// From now on, every tick this report closes is also kept for the history writer until
    /// [`Report::take_closed_ticks`] (a report with `history_retention`).
    pub fn keep_closed_ticks(&mut self) {
        self.outbox.get_or_insert_with(Vec::new);
    }

    /// Whether closed ticks wait for [`Report::take_closed_ticks`].
    pub fn closed_ticks_waiting(&self) -> bool {
        self.outbox.as_ref().is_some_and(|o| !o.is_empty())
    }

    /// The ticks closed since the last call, oldest first, and how many were dropped meanwhile
    /// because the outbox was full (at most `OUTBOX_MAX_TICKS` wait).
    pub fn take_closed_ticks(&mut self) -> (Vec<Arc<ClosedTick>>, u64) {
        let ticks = self.outbox.as_mut().map(std::mem::take).unwrap_or_default();
        (ticks, std::mem::take(&mut self.outbox_dropped))
    }

    /// Subtracts a closed tick that left the window from `agg`; rows left empty go.
    fn expire(&mut self, tick: Arc<ClosedTick>) {
        let n = self.keys.len();
        self.agg_totals
            .subtract_row_parts(&tick.totals.sums, &tick.totals.hist);
        let mut key = KeyBuf {
            ids: [0; MAX_KEYS],
            len: n,
        };
        with_lookahead(
            self,
            tick.rows(),
            |r, (ids, _, _)| r.agg.prefetch_ids(ids),
            |r, (ids, sums, hist)| {
                key.ids[..n].copy_from_slice(ids);
                r.expire_row(&key, &sums, hist);
            },
        );
    }

    /// [`Report::expire`] of one row of the tick.
    #[inline]
    fn expire_row(&mut self, key: &KeyBuf, sums: &Sums, hist: HistView<'_>) {
        let Some(a) = self.agg.get_mut(key) else {
            debug_assert!(false, "a closed tick's row is in agg");
            return;
        };
        a.subtract_row_parts(sums, hist);
        if a.sums.req_count == 0 {
            debug_assert_eq!(a.sums, Sums::default());
            self.agg.remove(key);
            // The open tick's row of that key (zeroed at the last close) is now a row of its
            // own if it counted something since, else it goes.
            if let Some(o) = self.open.get_mut(key) {
                if o.sums.req_count == 0 {
                    self.open.remove(key);
                } else {
                    o.only_open = true;
                    self.open_only += 1;
                }
            }
        }
    }

    /// Counts every request of the batch into the open tick (see the type's docs).
    ///
    /// When the open tick's table is large (`SORTED_MIN_SLOTS`), each row update is a cache
    /// miss on a random slot, or at least a jump away from the previous one. There the batch's
    /// contributions are first collected with their slot's position in the table, sorted by it
    /// (one counting pass, see `Deferral::sort`), and applied in table order: the table is
    /// walked forwards, the same row's contributions come close together, and each step asks the
    /// CPU for the row 8 contributions ahead (`Rows::prefetch`), so the misses overlap. Sums are
    /// order-independent, so the result is the same. Tables of any key size: the built-ins'
    /// 5-key stage, one update per request in a table of up to a few 10k rows, went from ~500
    /// to ~300 ns per request (e2e).
    pub fn add_batch(&mut self, batch: &PreparedBatch) {
        Report::add_batch_in_steps(&mut &mut *self, batch, |_| {});
    }

    /// [`Report::add_batch`], calling `step` every `STEP_CONTRIBUTIONS` contributions while a
    /// request report's large table is updated in table order. The merge thread passes
    /// `RwLockWriteGuard::bump`, which hands the lock to waiting readers for a moment: a query
    /// then waits for one step (tens of µs), not for the whole round (1–2 ms for a 10k-row
    /// table). Between steps the report is a consistent state: each request is counted in its
    /// row and in the totals, or in neither yet. Timer reports take no steps (one request's
    /// timers are spread over the table, so a step could show part of a request).
    pub fn add_batch_in_steps<G: std::ops::DerefMut<Target = Report>>(
        this: &mut G,
        batch: &PreparedBatch,
        mut step: impl FnMut(&mut G),
    ) {
        let buckets = each_rows!(&this.open, m => if m.0.capacity() >= SORTED_MIN_SLOTS {
            m.buckets()
        } else {
            0
        });
        if buckets > 0 && batch.len() >= SORTED_MIN_BATCH && this.log_histograms {
            let mut d = this.spare_deferral.take().unwrap_or_default();
            d.mask = buckets as u64 - 1;
            this.deferred = Some(d);
            for p in batch.iter() {
                this.update(&p);
            }
            let mut d = this.deferred.take().expect("set above");
            d.sort();
            let steps = this.kind != Kind::Timer;
            for (i, e) in d.sorted.iter().enumerate() {
                if steps && i % STEP_CONTRIBUTIONS == STEP_CONTRIBUTIONS - 1 {
                    step(this);
                }
                if let Some(ahead) = d.sorted.get(i + PREFETCH_AHEAD) {
                    each_rows!(&this.open, m => m.prefetch(ahead.pos as usize));
                }
                let r: &mut Report = this;
                if e.mark != 0 {
                    let c = &batch.timer_contribs[e.index as usize];
                    r.apply_deferred(&d, e, c, Some(e.mark));
                } else {
                    // A request's totals are counted with its row (see `update`).
                    let c = &batch.reqs[e.index as usize].contrib;
                    r.open_totals.add(c);
                    r.apply_deferred(&d, e, c, None);
                }
            }
            d.clear();
            this.spare_deferral = Some(d);
        } else {
            // A table under `log_min_slots` slots stays in cache: its rows' histograms are
            // counted at once. Logging the sample there cost more than it saved (a push, then
            // the flush's sort and a second touch of the row): the timer bench's 50-row
            // `tag_info_group` took 314–316 ns per request logged, 273–277 not.
            let log = this.log_histograms;
            this.log_histograms = log && this.open.capacity() >= this.log_min_slots;
            for p in batch.iter() {
                this.update(&p);
            }
            this.log_histograms = log;
        }
        // Enough samples per row that grouping them pays (see `flush_hist`), within 8 MiB.
        let per_row = if this.queried {
            HIST_LOG_PER_ROW_QUERIED
        } else {
            HIST_LOG_PER_ROW
        };
        let limit = (per_row * this.open.len()).clamp(4096, 1 << 20);
        if this.hist_log.len() >= limit {
            this.flush_hist();
        }
    }

    /// Tells the report whether queries read it lately (they read its histogram log: see
    /// `HIST_LOG_PER_ROW_QUERIED`).
    pub fn set_queried(&mut self, queried: bool) {
        self.queried = queried;
    }

    /// Whether samples wait in the histogram log. Queries read them there
    /// (`Report::pending_hists`); a snapshot applies them first ([`Report::flush_hist`], under
    /// the write lock).
    pub fn hist_pending(&self) -> bool {
        !self.hist_log.is_empty()
    }

    /// The open histograms of the rows at `slots` (each slot with its row's open histogram;
    /// every open row when `None`) with their samples still in the histogram log added, for
    /// the rows that have some there: what a query reads those rows' percentiles from, exactly,
    /// without applying the log ([`Report::flush_hist`] needs the write lock, and the merge
    /// thread applies it in larger, cheaper batches). One pass over the log.
    ///
    /// The samples go into a copy of the row's open histogram rather than a histogram of their
    /// own: a busy row's open histogram is a block already holding most of their buckets, so
    /// each sample is one counter's increment (an empty histogram grew through the sparse form
    /// and its inserts first, a tenth of a loaded query), and the row is then read from two parts,
    /// not three.
    fn pending_hists<'h>(&'h self, slots: Option<&[(u32, &'h Histogram)]>) -> PendingHists {
        if self.hist_log.is_empty() || slots.is_some_and(|s| s.is_empty()) {
            return PendingHists::NONE;
        }
        let n = self.open_slots as usize;
        let mut open_of: Vec<Option<&Histogram>> = vec![None; n];
        match slots {
            None => {
                for (_, o) in self.open.iter(self.keys.len()) {
                    if let Some(at) = open_of.get_mut(o.slot as usize) {
                        *at = Some(&o.hist);
                    }
                }
            }
            Some(slots) => {
                for &(s, h) in slots {
                    if let Some(at) = open_of.get_mut(s as usize) {
                        *at = Some(h);
                    }
                }
            }
        }
        let mut p = PendingHists {
            index: vec![0u32; n],
            hists: Vec::new(),
        };
        for &e in &self.hist_log {
            let (slot, bucket, samples) = log_entry(e);
            if let Some(&Some(open)) = open_of.get(slot) {
                p.get_or_copy(slot, open).add_bucket(bucket, samples);
            }
        }
        p
    }

    /// Applies the logged samples to their rows' histograms, grouped by row.
    ///
    /// Why a log: updating a row's histogram per sample costs a cache miss on the bucket's
    /// counter once a report has more rows than the caches hold (the merge bench ran 3× faster
    /// with histograms switched off). Samples are appended to one sequential log instead, and
    /// applied here a few times per tick, sorted by row (a counting sort on the open tick's slot
    /// numbers), so that each row's counters are touched in one burst while they are in cache.
    pub fn flush_hist(&mut self) {
        if self.hist_log.is_empty() {
            return;
        }
        let slots = self.open_slots as usize;
        let Report {
            open,
            hist_log,
            hist_sorted,
            slot_counts,
            ..
        } = self;
        slot_counts.clear();
        slot_counts.resize(slots + 1, 0);
        for &e in hist_log.iter() {
            slot_counts[log_entry(e).0 + 1] += 1;
        }
        for i in 1..slot_counts.len() {
            slot_counts[i] += slot_counts[i - 1];
        }
        hist_sorted.clear();
        hist_sorted.resize(hist_log.len(), 0);
        for &e in hist_log.iter() {
            let at = &mut slot_counts[log_entry(e).0];
            hist_sorted[*at as usize] = e;
            *at += 1;
        }
        // `slot_counts[s]` is now where slot s's samples end (and s + 1's start). The rows take
        // theirs in table order: one forward walk over the table, not a jump per slot.
        let mut applied = 0;
        for row in open.values_mut() {
            let s = row.slot as usize;
            if s >= slots {
                continue;
            }
            let start = if s == 0 {
                0
            } else {
                slot_counts[s - 1] as usize
            };
            for &e in &hist_sorted[start..slot_counts[s] as usize] {
                let (_, bucket, samples) = log_entry(e);
                row.hist.add_bucket(bucket, samples);
            }
            applied += slot_counts[s] as usize - start;
        }
        debug_assert_eq!(
            applied,
            hist_log.len(),
            "every logged sample's row is in the open tick"
        );
        hist_log.clear();
        hist_sorted.clear();
        if hist_log.capacity() > 1 << 16 && hist_log.capacity() > 4 * self.open.len() * 64 {
            self.hist_log.shrink_to(1 << 16);
            self.hist_sorted.shrink_to(1 << 16);
        }
    }

    #[inline]
    fn update(&mut self, p: &Prepared<'_>) {
        if p.timer_tag_names & self.needed_timer_tags != self.needed_timer_tags {
            return;
        }
        let v = &p.view;
        let timer_kind = self.kind == Kind::Timer;
        if self.filtered && !self.filters.pass_request(v, timer_kind) {
            return;
        }
        if self.keys.len() <= SMALL_KEY {
            if let Some(key) = small_request_key(&self.keys, v) {
                self.update_keyed(p, key);
            }
        } else if let Some(key) = request_key(&self.keys, v) {
            self.update_keyed(p, key);
        }
    }

    /// [`Report::update`] of a request that passed the filters, under its key.
    #[inline(always)]
    fn update_keyed<K: RowKey>(&mut self, p: &Prepared<'_>, key: K) {
        if self.kind == Kind::Timer {
            return self.update_timers(p, key);
        }
        let c = p.contrib;
        if let Some(d) = &mut self.deferred {
            // Its totals are counted when its row is (`add_batch_in_steps`).
            key.defer(d, p.index, 0);
            return;
        }
        self.open_totals.add(c);
        key.apply(self, c, None);
    }

    /// Counts one contribution into its row of the open tick: a request (`mark` None), or a
    /// timer of the request numbered `mark`, which counts once per row.
    #[inline]
    fn apply(&mut self, key: &KeyBuf, c: &impl Counted, mark: Option<u64>) {
        match self.open.get_mut(key) {
            Some(row) => count_into(
                row,
                c,
                mark,
                self.log_histograms.then_some(&mut self.hist_log),
            ),
            None => self.new_row(key, Row::first(c, mark)),
        }
    }

    /// [`Report::apply`] for a contribution deferred to a table-order update: the deferred key
    /// as its table holds it, no key buffer built per contribution.
    #[inline(always)]
    fn apply_deferred(&mut self, d: &Deferral, e: &Deferred, c: &impl Counted, mark: Option<u64>) {
        let found = match &mut self.open {
            RowMap::Small(m) => m.get_mut(&e.key),
            RowMap::Large(m) => m.get_mut(&d.large[e.key[0] as usize]),
        };
        match found {
            Some(row) => count_into(
                row,
                c,
                mark,
                self.log_histograms.then_some(&mut self.hist_log),
            ),
            None => self.new_row(&d.key_of(e, self.keys.len()), Row::first(c, mark)),
        }
    }

    /// A row for a key the open tick does not have yet: created if the key is in `agg` or
    /// there is room (and no freeze), else lost (see the type's docs).
    #[inline(never)]
    fn new_row(&mut self, key: &KeyBuf, mut row: Row) {
        // The key's closed-part row, if any, is linked to the row made here.
        let in_agg = match self.agg.get_mut(key) {
            Some(a) => {
                (a.slot, a.link) = (self.open_slots, self.open_gen);
                true
            }
            None => false,
        };
        if in_agg || (self.frozen_tick.is_none() && self.rows() < self.max_rows) {
            self.open_only += !in_agg as usize;
            row.only_open = !in_agg;
            row.slot = self.open_slots;
            self.open_slots = self.open_slots.saturating_add(1);
            self.open.insert(key, row);
        } else {
            self.rows_lost += row.contribs.max(1) as u64;
            self.frozen_tick = Some(self.open_index);
        }
    }

    #[inline]
    fn update_timers<K: RowKey>(&mut self, p: &Prepared<'_>, key: K) {
        // Never 0: a deferred contribution with mark 0 is a request's.
        self.update_number += 1;
        let mark = self.update_number;
        let mut any = false;
        let v = &p.view;
        let timer_filters = !self.filters.timer_tags.is_empty();
        'timers: for (i, ((_, tags), c)) in v.timers_with_tags().zip(p.timers).enumerate() {
            if timer_filters && !self.filters.pass_timer(tags) {
                continue;
            }
            let Some(key) = key.with_timer_tags(&self.timer_keys, tags) else {
                continue 'timers;
            };
            any = true;
            self.open_totals.add(c);
            if let Some(d) = &mut self.deferred {
                key.defer(d, p.timer_start + i as u32, mark);
                continue;
            }
            key.apply(self, c, Some(mark));
        }
        if any {
            self.open_totals.sums.req_count += 1;
        }
    }

    /// Every row of the window with its key ids: the closed part and the open tick summed, each
    /// closed-part row's open part looked up by key (what [`View::parts`] finds by link; the
    /// tests compare the two).
    #[cfg(test)]
    fn items(&self) -> impl Iterator<Item = (&[u32], RowRef<'_>)> + '_ {
        let n = self.keys.len();
        let (agg, open) = (&self.agg, &self.open);
        agg.iter(n)
            .map(move |(k, r)| (k, RowRef::of(Some(r), open.get(k))))
            .chain(
                open.iter(n)
                    .filter(|(_, o)| o.only_open)
                    .map(|(k, r)| (k, RowRef::of(None, Some(r)))),
            )
    }

    /// The totals of the window.
    #[cfg(test)]
    fn totals(&self) -> RowRef<'_> {
        RowRef::of(Some(&self.agg_totals), Some(&self.open_totals))
    }
}

/// A report as a query reads it: each row's closed part and open tick, and (through
/// [`RowRef::with_pending`]) its samples still in the histogram log. Derefs to the report, so the
/// query code reads the report's fields as its own.
#[derive(Clone, Copy)]
pub(crate) struct View<'r> {
    report: &'r Report,
}

impl std::ops::Deref for View<'_> {
    type Target = Report;
    fn deref(&self) -> &Report {
        self.report
    }
}

impl<'r> View<'r> {
    /// Every row with its key ids: the closed part and the open tick summed.
    fn items(&self) -> impl Iterator<Item = (&'r [u32], RowRef<'r>)> + 'r {
        self.parts().map(|(k, [a, o])| (k, RowRef::of(a, o)))
    }

    /// [`View::items`] before its parts are summed: each row's key and its rows in the closed
    /// part and the open tick.
    fn parts(&self) -> impl Iterator<Item = (&'r [u32], RowParts<'r>)> + 'r {
        self.parts_by(|_| 0).map(|(_, k, parts)| (k, parts))
    }

    /// [`View::parts`], each row with `value` of its parts' sums added (saturating): a query
    /// sorted by a sum reads the one sum it sorts by this way and sums the rest only for the
    /// rows it keeps.
    ///
    /// Both tables are walked in their own order, never looked up: the open rows first, each
    /// put with its value in an array by slot, then each closed-part row finds its open part
    /// there through its link (`Row::link`). Looking each closed-part row's key up in the open
    /// table, or reading its open row's sums, was a cache miss per row under load (a query
    /// walks every row).
    fn parts_by(
        &self,
        value: impl Fn(&Sums) -> u128 + 'r,
    ) -> impl Iterator<Item = (u128, &'r [u32], RowParts<'r>)> + 'r {
        let r = self.report;
        let n = r.keys.len();
        let mut by_slot: Vec<(u128, Option<&'r Row>)> = vec![(0, None); r.open_slots as usize];
        let mut only_open = Vec::with_capacity(r.open_only);
        for (k, o) in r.open.iter(n) {
            let v = value(&o.sums);
            if o.only_open {
                only_open.push((v, k, [None, Some(o)]));
            } else if let Some(at) = by_slot.get_mut(o.slot as usize) {
                *at = (v, Some(o));
            }
        }
        let gen = r.open_gen;
        r.agg
            .iter(n)
            .map(move |(k, a)| {
                let (v, open) = match by_slot.get(a.slot as usize) {
                    Some(&at) if a.link == gen => at,
                    _ => (0, None),
                };
                (value(&a.sums).saturating_add(v), k, [Some(a), open])
            })
            .chain(only_open)
    }

    /// The totals of the window.
    fn totals(&self) -> RowRef<'r> {
        let r = self.report;
        RowRef::of(Some(&r.agg_totals), Some(&r.open_totals))
    }
}

/// The id of a request's value of key `k` (0 for a timer tag key, set per timer); `None` when it
/// lacks a request tag key.
#[inline(always)]
fn key_id(k: Key, v: &RequestView<'_>) -> Option<u32> {
    let r = v.record;
    Some(match k {
        Key::Hostname => r.hostname,
        Key::ServerName => r.server_name,
        Key::ScriptName => r.script_name,
        Key::Schema => r.schema,
        Key::Status => r.status,
        Key::Tag(name) => first_tag(v.tags(), name)?,
        Key::TimerTag(_) => 0, // set per timer
    })
}

/// The key of a request in a report with `keys`: the ids of its key values in key order (timer
/// tag keys left 0, set per timer by [`set_timer_key`]); `None` when it lacks a request tag key.
#[inline]
fn request_key(keys: &[Key], v: &RequestView<'_>) -> Option<KeyBuf> {
    let mut key = KeyBuf {
        ids: [0; MAX_KEYS],
        len: keys.len(),
    };
    for (slot, k) in key.ids.iter_mut().zip(keys) {
        *slot = key_id(*k, v)?;
    }
    Some(key)
}

/// [`request_key`] of a report of at most [`SMALL_KEY`] keys, as [`Words`].
#[inline(always)]
fn small_request_key(keys: &[Key], v: &RequestView<'_>) -> Option<Words> {
    let mut w = [0; 2];
    for (pos, k) in keys.iter().enumerate() {
        w = with_id(w, pos, key_id(*k, v)?);
    }
    Some(w)
}

/// Sets the timer tag keys (`(position, tag name)`) of `key` from a timer's `tags`; false when
/// the timer lacks one of them.
#[inline]
fn set_timer_key(timer_keys: &[(usize, u32)], key: &mut KeyBuf, tags: &[TagPair]) -> bool {
    for &(pos, name) in timer_keys {
        match first_tag(tags, name) {
            Some(value) => key.ids[pos] = value,
            None => return false,
        }
    }
    true
}

/// A key of at most [`SMALL_KEY`] ids as two words, two ids to a word (`ids[0] | ids[1] << 32`,
/// as [`hash_ids`] reads them): the form a small key is built in by [`Report::update`], in
/// registers. Built in memory id by id (a [`KeyBuf`]), the key's first wide load right after its
/// 4-byte stores could not be forwarded from them: those loads were the two hottest spots of
/// `Report::update` in a profile of the steady state (twenty-first pass, BENCHMARKS.md).
type Words = [u64; 2];

/// `w` with id `id` at position `pos` (which holds 0).
#[inline(always)]
fn with_id(w: Words, pos: usize, id: u32) -> Words {
    let id = (id as u64) << (32 * (pos & 1));
    if pos < 2 {
        [w[0] | id, w[1]]
    } else {
        [w[0], w[1] | id]
    }
}

/// The ids of a key held as [`Words`], as a small table holds them.
#[inline(always)]
fn ids_of(w: Words) -> [u32; SMALL_KEY] {
    [
        w[0] as u32,
        (w[0] >> 32) as u32,
        w[1] as u32,
        (w[1] >> 32) as u32,
    ]
}

/// [`hash_ids`] of the ids `w` holds.
#[inline(always)]
fn hash_words(w: Words) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write_u64(w[0]);
    h.write_u64(w[1]);
    h.finish()
}

/// A request's key in the form its report builds it: [`Words`] for at most [`SMALL_KEY`] keys, a
/// [`KeyBuf`] for more (only: its methods assume it). What [`Report::update`] does with it.
trait RowKey: Copy {
    /// The key with its timer tag keys set from a timer's `tags`; `None` when the timer lacks one.
    fn with_timer_tags(self, timer_keys: &[(usize, u32)], tags: &[TagPair]) -> Option<Self>;
    /// Defers contribution `index` under this key (see [`Deferral::push_small`]).
    fn defer(self, d: &mut Deferral, index: u32, mark: u64);
    /// Counts `c` into this key's row of the open tick now ([`Report::apply`]).
    fn apply(self, r: &mut Report, c: &impl Counted, mark: Option<u64>);
}

impl RowKey for KeyBuf {
    #[inline(always)]
    fn with_timer_tags(mut self, timer_keys: &[(usize, u32)], tags: &[TagPair]) -> Option<Self> {
        set_timer_key(timer_keys, &mut self, tags).then_some(self)
    }
    #[inline(always)]
    fn defer(self, d: &mut Deferral, index: u32, mark: u64) {
        d.push_large(&self, index, mark);
    }
    #[inline(always)]
    fn apply(self, r: &mut Report, c: &impl Counted, mark: Option<u64>) {
        r.apply(&self, c, mark);
    }
}

impl RowKey for Words {
    #[inline(always)]
    fn with_timer_tags(mut self, timer_keys: &[(usize, u32)], tags: &[TagPair]) -> Option<Self> {
        for &(pos, name) in timer_keys {
            self = with_id(self, pos, first_tag(tags, name)?);
        }
        Some(self)
    }
    #[inline(always)]
    fn defer(self, d: &mut Deferral, index: u32, mark: u64) {
        d.push_small(self, index, mark);
    }
    #[inline(always)]
    fn apply(self, r: &mut Report, c: &impl Counted, mark: Option<u64>) {
        let Report {
            open,
            hist_log,
            log_histograms,
            keys,
            ..
        } = r;
        if let RowMap::Small(m) = open {
            if let Some(row) = m.get_mut(&ids_of(self)) {
                return count_into(row, c, mark, log_histograms.then_some(hist_log));
            }
        }
        let mut key = KeyBuf {
            ids: [0; MAX_KEYS],
            len: keys.len(),
        };
        key.ids[..SMALL_KEY].copy_from_slice(&ids_of(self));
        r.new_row(&key, Row::first(c, mark));
    }
}

/// Which rows of a report a request counts in, outside the report: its filters and key
/// extraction (the same code [`Report::add_batch`] runs), for the Prometheus export, which keeps
/// counters per row of its own. Its ids are the report's pins: valid while the report exists.
#[derive(Clone, Debug)]
pub struct RowSelector {
    kind: Kind,
    keys: Vec<Key>,
    timer_keys: Vec<(usize, u32)>,
    filters: Filters,
    filtered: bool,
}

impl RowSelector {
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Calls `f` with the key ids of each row `v` counts in: once in a request (or info) report,
    /// once per matching timer, with the timer, in a timer report.
    #[inline]
    pub fn rows(&self, v: &RequestView<'_>, mut f: impl FnMut(&[u32], Option<&Timer>)) {
        let timer_kind = self.kind == Kind::Timer;
        if self.filtered && !self.filters.pass_request(v, timer_kind) {
            return;
        }
        let Some(mut key) = request_key(&self.keys, v) else {
            return;
        };
        if !timer_kind {
            return f(key.slice(), None);
        }
        let timer_filters = !self.filters.timer_tags.is_empty();
        for (timer, tags) in v.timers_with_tags() {
            if (!timer_filters || self.filters.pass_timer(tags))
                && set_timer_key(&self.timer_keys, &mut key, tags)
            {
                f(key.slice(), Some(timer));
            }
        }
    }

    /// Whether key position `i` is the status (a number, not a dictionary id) or the schema (whose
    /// [`NO_SCHEMA`] id means absent).
    pub fn key_is_status(&self, i: usize) -> bool {
        self.keys.get(i) == Some(&Key::Status)
    }
    pub fn key_is_schema(&self, i: usize) -> bool {
        self.keys.get(i) == Some(&Key::Schema)
    }
}

impl Report {
    /// This report's [`RowSelector`].
    pub fn row_selector(&self) -> RowSelector {
        RowSelector {
            kind: self.kind,
            keys: self.keys.clone(),
            timer_keys: self.timer_keys.clone(),
            filters: self.filters.clone(),
            filtered: self.filtered,
        }
    }
}

/// Column names of the keys: the short name (`script_name`, `country` for `tag:country`), or the
/// full key when a tag's short name would repeat another column's name.
fn key_column_names(specs: &[KeySpec], kind: Kind) -> Vec<String> {
    let metrics = metric_columns(kind);
    specs
        .iter()
        .map(|spec| {
            let short = spec.short_name();
            let clash = spec.is_tag()
                && (specs.iter().filter(|s| s.short_name() == short).count() > 1
                    || metrics.iter().any(|m| m.name == short)
                    || median_column(kind) == short
                    || parse_percentile_column(short).is_some());
            match spec {
                KeySpec::Tag(n) if clash => format!("tag:{n}"),
                KeySpec::TimerTag(n) if clash => format!("timer_tag:{n}"),
                _ => short.to_string(),
            }
        })
        .collect()
}
