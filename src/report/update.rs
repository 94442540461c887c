//! The update path: a merge round's requests counted into a report's open tick.
//!
//! In: a [`PreparedBatch`] ([`Report::add_batch`]: per report and round, on a merge thread, under
//! the report's write lock). Out: each request (each matching timer, in a timer report) counted in
//! its row of the open tick and in the totals; one with a new key beyond the row limit is lost
//! (see [`Report`]). The hottest code of the daemon, run per request and report: a large table is
//! updated in table order ([`Deferral`]), so that rows are fetched ahead and a row's contributions
//! come together. Never touches the dictionary; reuses its buffers round after round.

use crate::record::{RequestView, TagPair};

use super::batch::{Prepared, PreparedBatch};
use super::def::{Kind, MAX_KEYS};
use super::hist_log::{count_into, HIST_LOG_PER_ROW, HIST_LOG_PER_ROW_QUERIED};
use super::keys::{
    first_tag, hash_ids, hash_words, ids_of, request_key, set_timer_key, small_request_key,
    with_id, KeyBuf, Words, SMALL_KEY,
};
use super::live::Report;
use super::rows::{each_rows, Row, RowMap, PREFETCH_AHEAD};
use super::sums::Counted;

/// Open tables of at least this many slots are updated in table order (see
/// [`Report::add_batch`]). Not only where a table outgrows the L2 cache: the sort also brings a
/// round's contributions to the same row together (Zipf traffic repeats rows), which pays from a
/// few hundred rows on; smaller tables stay in L1/L2 and the sort would not pay.
pub(super) const SORTED_MIN_SLOTS: usize = 1 << 9;

/// Batches smaller than this are applied as they come (sorting would not pay).
const SORTED_MIN_BATCH: usize = 64;

/// Contributions a request report's table-order update applies between two chances for
/// waiting readers (see [`Report::add_batch_in_steps`]): 256 row updates take 30–100 µs.
const STEP_CONTRIBUTIONS: usize = 256;

/// A contribution waiting to be applied in table order: its row's slot position, the
/// contribution (a request's or a timer's, by index in the batch), its key, and, for a timer,
/// the request's number (timer reports count a request once per row), 0 for a request, which
/// tells a timer's entry from a request's. 32 bytes: the sort moves each entry twice, so an entry
/// is kept to half a cache line.
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
pub(super) struct Deferral {
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

    /// Bytes of its buffers.
    pub(super) fn bytes(&self) -> usize {
        (self.entries.capacity() + self.sorted.capacity()) * std::mem::size_of::<Deferred>()
            + self.large.capacity() * std::mem::size_of::<[u32; MAX_KEYS]>()
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
    /// the rows are fetched ahead anyway. A full sort would take one more pass for tables of over
    /// 2,048 buckets (an LSD radix, 11 bits a pass). Stable, so the contributions of one row come
    /// in batch order, and a timer report's request marks only rise: it counts each request once
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

impl Report {
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

    /// Counts every request of the batch into the open tick (see the type's docs).
    ///
    /// When the open tick's table is large (`SORTED_MIN_SLOTS`), each row update is a cache
    /// miss on a random slot, or at least a jump away from the previous one. There the batch's
    /// contributions are first collected with their slot's position in the table, sorted by it
    /// (one counting pass, see `Deferral::sort`), and applied in table order: the table is
    /// walked forwards, the same row's contributions come close together, and each step asks the
    /// CPU for the row 8 contributions ahead (`Rows::prefetch`), so the misses overlap. Sums are
    /// order-independent, so the result is the same. Tables of any key size take this path, the
    /// built-ins' 5-key stage (one update per request, up to a few 10k rows) too.
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
        step: impl FnMut(&mut G),
    ) {
        Report::add_slice_in_steps(this, batch, 0..batch.len(), step)
    }

    /// [`Report::add_batch_in_steps`] for the requests of `range` only: a split report's slice
    /// of the round (see `split`).
    pub fn add_slice_in_steps<G: std::ops::DerefMut<Target = Report>>(
        this: &mut G,
        batch: &PreparedBatch,
        range: std::ops::Range<usize>,
        mut step: impl FnMut(&mut G),
    ) {
        let buckets = each_rows!(&this.open, m => if m.0.capacity() >= SORTED_MIN_SLOTS {
            m.buckets()
        } else {
            0
        });
        let defer = buckets > 0 && range.len() >= SORTED_MIN_BATCH && this.log_histograms;
        // While the memory budget is tight the histogram log is not kept: its samples go to
        // their rows at once (a cache miss each), so that it grows with no request.
        let logging = this.log_histograms;
        if this.account.budget().tight() {
            this.drop_hist_log();
            this.log_histograms = false;
        }
        let timer_contribs = batch.timer_contribs(this.whole_timer_samples);
        if defer {
            let mut d = this.spare_deferral.take().unwrap_or_default();
            d.mask = buckets as u64 - 1;
            this.deferred = Some(d);
            for p in batch.iter_range_with(range.clone(), timer_contribs) {
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
                    let c = &timer_contribs[e.index as usize];
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
            // counted at once. Logging the sample there would cost more than it saves (a push,
            // then the flush's sort and a second touch of the row).
            let log = this.log_histograms;
            this.log_histograms = log && this.open.capacity() >= this.log_min_slots;
            for p in batch.iter_range_with(range.clone(), timer_contribs) {
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
        this.log_histograms = logging;
        if this.sheds && this.account.budget().tight() {
            this.shed_if_over();
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
        if self.lattice.is_some() {
            if let Some(key) = request_key(&self.keys, v) {
                self.update_lattice(p, key);
            }
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
            Some(row) => {
                self.open_hist_bytes += count_into(
                    row,
                    c,
                    mark,
                    self.log_histograms.then_some(&mut self.hist_log),
                )
            }
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
            Some(row) => {
                self.open_hist_bytes += count_into(
                    row,
                    c,
                    mark,
                    self.log_histograms.then_some(&mut self.hist_log),
                )
            }
            None => self.new_row(&d.key_of(e, self.keys.len()), Row::first(c, mark)),
        }
    }

    /// A row for a key the open tick does not have yet: created if the key is in `agg`, or if
    /// there is room (fewer than `max_rows` rows, and the memory budget not tight); else the
    /// contribution goes to the "(other)" row (see the type's docs). Either way, not if the open
    /// table, or the closed part's that the row joins at the tick's close, would have to double
    /// past the memory budget. Off the per-request path: once per new key and tick.
    #[inline(never)]
    pub(super) fn new_row(&mut self, key: &KeyBuf, mut row: Row) {
        let open_growth = self.open.growth_bytes();
        let n = self.agg.len() + self.open_only;
        // Saturating: a closed part whose table is larger than `n + 1` rows need (made for more
        // rows that have left since) does not grow, and a wrapped difference would refuse the row.
        let agg_growth = self
            .agg
            .table_bytes_for(n + 1)
            .saturating_sub(self.agg.table_bytes_for(n));
        let growth = if open_growth + agg_growth == 0 {
            0
        } else {
            // A table doubles: the closed part's only for a key it does not have.
            let in_agg = self.agg.get_mut(key).is_some();
            open_growth + if in_agg { 0 } else { agg_growth }
        };
        if growth > 0 && !self.account.budget().fits(growth as u64) {
            return self.refuse_for_memory(row);
        }
        // The key's closed-part row, if any, is linked to the row made here.
        let in_agg = match self.agg.get_mut(key) {
            Some(a) => {
                (a.slot, a.link) = (self.open_slots, self.open_gen);
                true
            }
            None => false,
        };
        if !in_agg && self.rows() >= self.max_rows {
            return self.lose(row);
        }
        if !in_agg && self.account.budget().tight() {
            return self.refuse_for_memory(row);
        }
        self.open_only += !in_agg as usize;
        self.open_hist_bytes += row.hist.heap_bytes();
        row.only_open = !in_agg;
        row.slot = self.open_slots;
        self.open_slots = self.open_slots.saturating_add(1);
        self.open.insert(key, row);
        self.account_ahead();
    }

    /// Keeps what the memory budget counts for this report ahead of what it holds while it
    /// grows within a round: once its estimate passes what its account holds, the account takes
    /// [`AHEAD_BYTES`](crate::budget::AHEAD_BYTES) more than the estimate, and the budget is
    /// judged when that reaches its mark. So every report's new rows (and a table's doubling) are
    /// in the budget's figure before they are made, a chunk at a time (one atomic add per
    /// chunk, not per row), and the round that would take the budget past its mark is the one
    /// that makes it tight: with hundreds of reports growing in one round, rows made unseen
    /// until a settlement added up past the margin. The round's end settles the account to the
    /// estimate again (`ReportCell::publish`).
    #[inline]
    pub(super) fn account_ahead(&self) {
        let bytes = self.memory_estimate() as u64;
        if bytes > self.account.accounted() {
            self.account.settle(bytes + crate::budget::AHEAD_BYTES);
            let budget = self.account.budget();
            if !budget.tight() && budget.used() >= budget.tight_at() {
                budget.judge();
            }
        }
    }

    /// [`Report::lose`] for want of memory, counted as the budget's refusal too.
    #[cold]
    fn refuse_for_memory(&mut self, row: Row) {
        self.account
            .budget()
            .refused_rows(row.contribs.max(1) as u64);
        self.lose(row);
    }

    /// Counts a contribution (or a stage row) that got no row into the "(other)" row. A timer
    /// report counts a request once in it when its timers come one after another (a request's
    /// timers spread over a table-order update count once each).
    #[cold]
    pub(super) fn lose(&mut self, mut row: Row) {
        self.rows_lost += row.contribs.max(1) as u64;
        let other = &mut self.open_other;
        if row.mark != 0 && row.mark == other.mark && row.sums.req_count > 0 {
            row.sums.req_count -= 1;
        }
        other.sums.add(&row.sums);
        other.hist.add_hist(&row.hist);
        other.contribs = other.contribs.saturating_add(row.contribs.max(1));
        other.mark = row.mark;
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
            open_hist_bytes,
            ..
        } = r;
        if let RowMap::Small(m) = open {
            if let Some(row) = m.get_mut(&ids_of(self)) {
                *open_hist_bytes += count_into(row, c, mark, log_histograms.then_some(hist_log));
                return;
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
