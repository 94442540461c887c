//! Windows and ticks: how a report's window is cut into ticks, and how it moves.
//!
//! In: the merger's clock ([`Report::advance`], never backwards). Out: the open tick closed into
//! a compact, immutable [`ClosedTick`], added to the window's closed part (`agg`) and handed to
//! the history writer when the report keeps history ([`Report::take_closed_ticks`]); ticks that
//! left the window subtracted from `agg`, exactly; at a close, the coldest rows of a report near
//! its row limit folded into "(other)" ([`Report::make_room`]). Runs on the merge thread under the
//! report's write lock. No clock of its own: times are arguments.

use std::sync::Arc;

use crate::histogram::{HistView, Histogram};

use super::def::MAX_KEYS;
use super::keys::KeyBuf;
use super::live::Report;
use super::rows::{with_lookahead, Row, RowMap};
use super::sums::Sums;

/// How a report's window is sliced: `ticks` slices of `tick_ms`, the newest of them open.
///
/// The window is the open tick plus the `ticks - 1` closed ticks before it, so it covers between
/// `history - tick` and `history` (the resolution is one tick). Tick `i` spans
/// `[i * tick_ms - phase_ms, (i + 1) * tick_ms - phase_ms)`: reports get phases of their own
/// (one per family a report could be in, `Report::phase_seed`), so that reports do not all close
/// and expire their ticks in the same round.
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

    /// The same window with a phase derived from `seed` (see the type's docs).
    pub fn phased(mut self, seed: &str) -> Window {
        let h = seed.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        self.phase_ms = h % self.tick_ms;
        self
    }

    /// The tick holding `ms`.
    #[inline]
    pub fn tick_of(&self, ms: u64) -> u64 {
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
    pub(super) index: u64,
    /// Set when the tick was closed before its end, at shutdown: when (merger ms). History
    /// records it as ending then, so that the next run's first tick is not taken for it.
    cut_at_ms: Option<u64>,
    keys: Vec<u32>,
    pub(super) rows: Vec<TickRow>,
    /// The rows whose sums do not fit [`NarrowSums`] (by their place in `rows`, ascending),
    /// whole; their `TickRow` holds zeros. Empty but for 584 years of request time in one row of
    /// one tick.
    wide: Vec<(u32, Sums)>,
    /// Every row's histogram, row after row, packed 32 bits a bucket ([`HistView::Packed`]).
    pub(super) hists: Vec<u32>,
    /// The rows whose histograms do not pack (a bucket counting a million samples in one row of
    /// one tick), by their place in `rows`, ascending, whole; their `TickRow` has no buckets.
    pub(super) whole_hists: Vec<(u32, Histogram)>,
    pub(super) totals: Row,
    /// The tick's contributions that got no row (its "(other)" row), if any.
    pub(super) other: Option<Box<Row>>,
}

/// A closed tick's row: its sums, and where its histogram's buckets are in the tick's `hists`.
/// 48 bytes; with its sums and a histogram of its own, a row would take 88, and 8 more a bucket.
#[derive(Debug)]
pub(super) struct TickRow {
    sums: NarrowSums,
    hist_at: u32,
    hist_len: u16,
}

const _: () = assert!(std::mem::size_of::<TickRow>() == 48);

/// Rows a report keeps at a tick's close while the memory budget is tight (see
/// [`Report::make_room`]).
pub const TIGHT_KEEP_ROWS: usize = 64;

/// Bytes a closed tick takes per row besides its key and histogram (see
/// [`Report::memory_estimate`]).
pub(super) const TICK_ROW_BYTES: usize = std::mem::size_of::<TickRow>();

/// A closed tick's row's [`Sums`] in 40 bytes, which holds any tick row but an extreme one (such
/// a row goes whole to [`ClosedTick`]'s `wide`, exactly). The window's 60 closed ticks are most of
/// a report's memory, and every byte here is a byte per row and tick (BENCHMARKS.md has the bytes
/// per row). Five words:
/// - the request count (low 32 bits) and, in the high 32, the timer hit count (bit 63 clear) or
///   the largest memory_peak (bit 63 set), each below 2^31: a timer report's rows have no
///   memory_peak and a request report's no hits, so a row has one of them;
/// - then 256 bits of fields ([`FIELDS`]): the three time sums (request time, ru_utime,
///   ru_stime) in [`TIME_BITS`] each (78 hours of summed time in one row of one tick), and the
///   three byte sums (traffic, memory_footprint, memory_peak) in 37, 38 and 37 bits (128, 256
///   and 128 GiB in one row of one tick).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NarrowSums([u64; 5]);

/// Bits of each time sum in [`NarrowSums`].
pub(super) const TIME_BITS: u32 = 48;
const TRAFFIC_BITS: u32 = 37;
const FOOTPRINT_BITS: u32 = 38;
const PEAK_BITS: u32 = 37;
/// The packed fields' widths, in order: time, ru_utime, ru_stime, traffic, footprint, peak.
const FIELDS: [u32; 6] = [
    TIME_BITS,
    TIME_BITS,
    TIME_BITS,
    TRAFFIC_BITS,
    FOOTPRINT_BITS,
    PEAK_BITS,
];
const _: () = assert!(3 * TIME_BITS + TRAFFIC_BITS + FOOTPRINT_BITS + PEAK_BITS == 256);
/// Bit 31 of the first word's high half: it holds the largest memory_peak, not a hit count.
const MAX_FLAG: u64 = 1 << 31;

impl NarrowSums {
    /// `s` narrowed, if every field fits.
    pub(super) fn of(s: &Sums) -> Option<NarrowSums> {
        let count = |v: u64| u32::try_from(v).ok().map(u64::from);
        let high = match (s.hit_count, u64::from(s.memory_peak_max)) {
            (0, 0) => 0,
            (hits, 0) if hits < MAX_FLAG => hits,
            (0, max) if max < MAX_FLAG => MAX_FLAG | max,
            _ => return None,
        };
        let values = [
            s.time_ns,
            s.ru_utime_ns,
            s.ru_stime_ns,
            s.traffic_bytes,
            s.memory_footprint_bytes,
            s.memory_peak_bytes,
        ];
        let mut words = [count(s.req_count)? | high << 32, 0, 0, 0, 0];
        let mut at = 0u32;
        for (v, n) in values.into_iter().zip(FIELDS) {
            let v = v.get();
            if v >= 1u128 << n {
                return None;
            }
            // A field spans at most two words (n ≤ 64): its low bits in the word `at` falls in,
            // the rest in the next.
            let (w, b) = (1 + (at / 64) as usize, at % 64);
            let v = v as u64;
            words[w] |= v << b;
            if b + n > 64 {
                words[w + 1] |= v >> (64 - b);
            }
            at += n;
        }
        Some(NarrowSums(words))
    }

    pub(super) fn widen(&self) -> Sums {
        let words = &self.0;
        let high = words[0] >> 32;
        let (hit_count, memory_peak_max) = if high & MAX_FLAG != 0 {
            (0, (high & !MAX_FLAG) as u32)
        } else {
            (high, 0)
        };
        let mut values = [0u64; 6];
        let mut at = 0u32;
        for (v, n) in values.iter_mut().zip(FIELDS) {
            let (w, b) = (1 + (at / 64) as usize, at % 64);
            let mut x = words[w] >> b;
            if b + n > 64 {
                x |= words[w + 1] << (64 - b);
            }
            *v = x & ((1u64 << n) - 1);
            at += n;
        }
        let [time_ns, ru_utime_ns, ru_stime_ns, traffic, footprint, peak] = values;
        Sums {
            req_count: words[0] & u64::from(u32::MAX),
            hit_count,
            time_ns: time_ns.into(),
            ru_utime_ns: ru_utime_ns.into(),
            ru_stime_ns: ru_stime_ns.into(),
            traffic_bytes: traffic.into(),
            memory_footprint_bytes: footprint.into(),
            memory_peak_bytes: peak.into(),
            memory_peak_max,
        }
    }
}

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
    pub(super) fn push_row(&mut self, key: &[u32], sums: &Sums, hist: &Histogram) {
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
    pub(super) fn new(
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
            other: None,
        }
    }

    /// Gives back what the rows' histograms did not use of their array (grown as rows came).
    pub(super) fn shrink_hists(&mut self) {
        self.hists.shrink_to_fit();
    }

    /// Heap bytes of the tick's rows and histograms (see [`Report::memory_bytes`]).
    pub(super) fn heap_bytes(&self) -> usize {
        self.keys.capacity() * 4
            + self.rows.capacity() * std::mem::size_of::<TickRow>()
            + self.wide.capacity() * std::mem::size_of::<(u32, Sums)>()
            + self.hists.capacity() * 4
            + self.whole_hists.capacity() * std::mem::size_of::<(u32, Histogram)>()
            + self
                .whole_hists
                .iter()
                .map(|(_, h)| h.heap_bytes())
                .sum::<usize>()
    }

    /// The report's totals over the tick (its "(other)" row included).
    pub fn totals(&self) -> (&Sums, &Histogram) {
        (&self.totals.sums, &self.totals.hist)
    }

    /// The tick's "(other)" row: its contributions that got no row of their own, if any. With
    /// [`ClosedTick::rows`] they sum to the totals (but for a timer report's `req_count`).
    pub fn other(&self) -> Option<(&Sums, &Histogram)> {
        self.other.as_deref().map(|o| (&o.sums, &o.hist))
    }

    /// Memory the tick takes, its own size included (see [`Report::memory_estimate`]).
    pub(super) fn bytes(&self) -> usize {
        // The `Arc`'s counts beside it.
        std::mem::size_of::<ClosedTick>()
            + 16
            + self.heap_bytes()
            + self
                .other
                .as_deref()
                .map_or(0, |o| std::mem::size_of::<Row>() + o.hist.heap_bytes())
    }
}

/// Closed ticks a report keeps for the history writer between two collections (see
/// [`Report::take_closed_ticks`]); beyond it the oldest are dropped and counted. The merger
/// collects every round, so this is reached only if collection stops.
const OUTBOX_MAX_TICKS: usize = 1024;

/// Where folding the `n` coldest rows cuts, from the rows of each class, coldest first: the
/// class at the cut, and how many of its rows go (every row of a colder class does).
fn cut_at(classes: &[usize], n: usize) -> (usize, usize) {
    let mut below = 0;
    for (c, &count) in classes.iter().enumerate() {
        if below + count >= n {
            return (c, n - below);
        }
        below += count;
    }
    (classes.len() - 1, n - below)
}

/// Adds a closed tick's rows to a window's closed part (`agg`), fetching its rows ahead. With
/// `link` (the open tick's rows were just numbered in the tick's order), each `agg` row is
/// linked to the open row of its key: tick row `i` is open row `i` (see
/// [`View::parts`](super::view::View::parts)). A row made here is marked as made in the tick (see
/// `Row::mark`). Returns how much the rows' histograms grew (bytes, see
/// [`Report::memory_estimate`]), and each row's largest memory_peak noted in its per-tick maxima
/// (a window of `ticks`, see `Row::peaks`).
pub(super) fn add_tick_rows(
    agg: &mut RowMap,
    tick: &ClosedTick,
    link: Option<u32>,
    ticks: u64,
) -> isize {
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
    let mut grown = 0isize;
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
                    let before = a.hist.heap_bytes() as isize;
                    a.sums.add(&sums);
                    a.hist.add_hist(hist);
                    (a.slot, a.link) = (slot, link);
                    grown += a.hist.heap_bytes() as isize - before;
                    grown += note_peak(a, ticks, tick.index, sums.memory_peak_max) as isize;
                }
                None => {
                    let hist = hist.to_histogram();
                    grown += hist.heap_bytes() as isize;
                    let mut row = Row {
                        sums,
                        hist,
                        slot,
                        link,
                        mark: tick.index,
                        ..Row::default()
                    };
                    grown += note_peak(&mut row, ticks, tick.index, sums.memory_peak_max) as isize;
                    agg.insert(&key, row)
                }
            }
        },
    );
    grown
}

/// Notes tick `index`'s largest memory_peak `max` in a closed-part row's per-tick maxima (a
/// window of `ticks`; see `Row::peaks`), made at the first nonzero one. Returns the bytes it
/// allocated.
pub(super) fn note_peak(row: &mut Row, ticks: u64, index: u64, max: u32) -> usize {
    if max == 0 {
        return 0;
    }
    let made = row.peaks.is_none();
    let ring = row
        .peaks
        .get_or_insert_with(|| vec![0; ticks as usize].into_boxed_slice());
    let at = &mut ring[(index % ticks) as usize];
    *at = (*at).max(max);
    row.sums.memory_peak_max = row.sums.memory_peak_max.max(max);
    if made {
        peak_bytes(row)
    } else {
        0
    }
}

/// Takes tick `index` (whose largest memory_peak in the row was `max`) out of a closed-part row's
/// per-tick maxima: if it held the row's largest, the largest of the ticks left is the row's.
pub(super) fn forget_peak(row: &mut Row, ticks: u64, index: u64, max: u32) {
    let Some(ring) = row.peaks.as_mut() else {
        return;
    };
    ring[(index % ticks) as usize] = 0;
    if max >= row.sums.memory_peak_max {
        row.sums.memory_peak_max = ring.iter().copied().max().unwrap_or(0);
    }
}

/// Heap bytes of a row's per-tick maxima.
pub(super) fn peak_bytes(row: &Row) -> usize {
    row.peaks.as_ref().map_or(0, |p| p.len() * 4)
}

/// Folds `from`'s per-tick maxima into `into`'s (a row folded into "(other)"). Returns the bytes
/// `into` allocated.
fn merge_peaks(into: &mut Row, from: &Row) -> usize {
    let Some(from) = from.peaks.as_deref() else {
        return 0;
    };
    let made = into.peaks.is_none();
    let ring = into
        .peaks
        .get_or_insert_with(|| vec![0; from.len()].into_boxed_slice());
    for (a, b) in ring.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
    if made {
        from.len() * 4
    } else {
        0
    }
}

impl Report {
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

    /// Seconds a query's `*_per_sec` divide by (its `time_interval`), by the definitions the
    /// report follows (its `compat`): pinbad's [`Report::time_interval`]; pinba2's, the whole
    /// window; pinba_engine's, the span of the requests the window holds, in whole Unix seconds
    /// (`unix_ms` of a merger time), at least 1, and 1 while the report holds fewer than 2 rows
    /// (`info`: requests), as pinba_engine computed it. `pool` is the raw pool's oldest request
    /// at or after [`Report::window_start_ms`] and its newest (merger ms): the span's ends
    /// while the pool holds every request the window counts; where it has overwritten some, the
    /// span starts at the oldest tick that counted one (pinba_engine's reports held only what
    /// its pool held).
    pub fn rate_interval(
        &self,
        now_ms: u64,
        pool: Option<(u64, u64)>,
        unix_ms: impl Fn(u64) -> u64,
    ) -> f64 {
        match self.def.compat {
            None => self.time_interval(now_ms),
            Some(super::Compat::Pinba2) => (self.window.history_ms as f64 / 1000.0).max(1.0),
            Some(super::Compat::PinbaEngine) => {
                let held = if self.kind == super::Kind::Info {
                    self.agg_totals.sums.req_count + self.open_totals.sums.req_count
                } else {
                    self.rows() as u64
                };
                let Some((pool_oldest, newest)) = pool.filter(|_| held >= 2) else {
                    return 1.0;
                };
                let oldest = match self.oldest_counted_tick() {
                    Some((start, end)) if pool_oldest >= end => start.max(self.window_start_ms()),
                    _ => pool_oldest,
                };
                let secs = (unix_ms(newest) / 1000).saturating_sub(unix_ms(oldest) / 1000);
                secs.max(1) as f64
            }
        }
    }

    /// The start and end (merger ms) of the oldest tick in the window that counted a request:
    /// a closed one, else the open tick; `None` when none did.
    fn oldest_counted_tick(&self) -> Option<(u64, u64)> {
        let index = self
            .closed
            .iter()
            .find(|t| t.totals.sums.req_count > 0)
            .map(|t| t.index)
            .or((self.open_totals.sums.req_count > 0).then_some(self.open_index))?;
        Some((
            self.window.tick_start(index),
            self.window.tick_start(index + 1),
        ))
    }

    /// Moves the window to `now_ms` (never back): when a new tick begins, the open tick closes
    /// and ticks that left the window are dropped.
    pub fn advance(&mut self, now_ms: u64) {
        self.advance_closing(now_ms, None)
    }

    /// Whether [`Report::advance_from_stage`] may close this family member's open tick straight
    /// from its family's frozen `stage` at `now_ms`: the move ends the open tick; the member's
    /// keys are the stage's (`projection` a permutation of them, so each stage row is one row
    /// of the member); its open tick counted nothing of its own (it holds only the rows the
    /// last close zeroed); and every stage row would get a row of its own (within `max_rows`,
    /// the budget not tight and the closed part's table able to grow), as
    /// [`Report::new_row`] would have decided row by row.
    pub(super) fn closes_from_stage(
        &self,
        stage: &Report,
        projection: &[usize],
        now_ms: u64,
    ) -> bool {
        let stage_rows = stage.open.len();
        let agg_growth = self.agg.table_bytes_for(self.agg.len() + stage_rows)
            - self.agg.table_bytes_for(self.agg.len());
        projection.len() == stage.keys.len()
            // A lattice stage's rows may lack some of the member's tags (see `lattice`).
            && stage.lattice.is_none()
            && now_ms > self.now_ms
            && self.window.tick_of(now_ms) > self.open_index
            && self.open_totals.sums.req_count == 0
            && self.open_other.contribs == 0
            && self.hist_log.is_empty()
            && stage.hist_log.is_empty()
            && self.agg.len().saturating_add(stage_rows) <= self.max_rows
            && !self.account.budget().tight()
            && self.account.budget().fits(agg_growth as u64)
    }

    /// [`Report::advance`] for a family member whose tick ends with the fold of its family's
    /// frozen `stage` (see [`Report::closes_from_stage`], which must hold): the closed tick is
    /// built from the stage's rows directly instead of folding them into the open tick's table
    /// and closing that. Saves a row lookup and update per stage row, and the member's open
    /// table: while the member takes its stage (until a query detaches it), nothing counts into
    /// it, so it stays empty instead of holding every row of the last tick, zeroed.
    pub(super) fn advance_from_stage(&mut self, now_ms: u64, stage: &Report, projection: &[usize]) {
        debug_assert!(self.closes_from_stage(stage, projection, now_ms));
        self.absorb_totals(stage);
        self.advance_closing(now_ms, Some((stage, projection)))
    }

    /// [`Report::advance`], the open tick's rows taken from `from_stage` when given (see
    /// [`Report::advance_from_stage`]).
    fn advance_closing(&mut self, now_ms: u64, from_stage: Option<(&Report, &[usize])>) {
        if now_ms <= self.now_ms {
            return;
        }
        self.now_ms = now_ms;
        let tick = self.window.tick_of(now_ms);
        if tick <= self.open_index {
            return;
        }
        self.close_tick(None, from_stage);
        self.open_index = tick;
        let first_kept = (tick + 1).saturating_sub(self.window.ticks);
        while self.closed.front().is_some_and(|t| t.index < first_kept) {
            let t = self.closed.pop_front().expect("checked");
            self.expire(t);
        }
        self.make_room();
        if self.account.budget().tight() {
            self.agg.shrink_to_rows();
            self.open.shrink_to_rows();
        } else {
            self.agg.shrink_if_sparse();
            self.open.trim(1 << 16);
        }
    }

    /// At shutdown when no snapshot keeps the open tick: closes it as it is, so that a report
    /// keeping history hands what its last, partial tick counted to the history writer (see
    /// [`ClosedTick::cut_at_ms`]). The report is not used afterwards.
    pub fn close_at_shutdown(&mut self, now_ms: u64) {
        if self.outbox.is_some() {
            self.close_tick(Some(now_ms), None);
        }
    }

    /// The open tick's rows go into `agg` and, as compact copies, into a closed tick. The open
    /// rows are then zeroed in place, keeping their histograms' memory (a busy row's histogram
    /// is not grown again every tick); rows idle for a whole tick are dropped. With
    /// `from_stage` (a family's frozen stage and where the member's keys sit in it; see
    /// [`Report::advance_from_stage`]) the tick's rows are the stage's instead, and the open
    /// table, which holds nothing, is let go.
    fn close_tick(&mut self, cut_at_ms: Option<u64>, from_stage: Option<(&Report, &[usize])>) {
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
        let ticks = self.window.ticks;
        note_peak(
            &mut self.agg_totals,
            ticks,
            self.open_index,
            totals.sums.memory_peak_max,
        );
        let rows = from_stage.map_or(self.open.len(), |(stage, _)| stage.open.len());
        let mut tick = ClosedTick::new(self.open_index, cut_at_ms, totals, rows, n);
        let mut slots = 0;
        let mut open_hist_bytes = 0;
        if let Some((stage, projection)) = from_stage {
            for (key, _, row) in super::family::projected(stage, projection) {
                if row.sums.req_count > 0 {
                    tick.push_row(key.slice(), &row.sums, &row.hist);
                }
            }
            // The zeroed rows of the last close go with their table: nothing counts into an
            // attached member's open tick.
            self.open = RowMap::new(n);
        } else {
            // While the memory budget is tight the zeroed rows let their histograms' memory go
            // too: kept, it would be counted again for the next close (see
            // `Report::pending_close_bytes`) beside the copies this close makes.
            let tight = self.account.budget().tight();
            self.open.retain_each(n, |key, row| {
                if row.sums.req_count == 0 {
                    return false;
                }
                row.slot = slots;
                slots += 1;
                tick.push_row(key.slice(), &row.sums, &row.hist);
                row.sums = Sums::default();
                if tight {
                    row.hist = Histogram::new();
                } else {
                    row.hist.clear();
                }
                row.contribs = 0;
                row.only_open = false;
                open_hist_bytes += row.hist.heap_bytes();
                true
            });
        }
        tick.shrink_hists();
        self.open_hist_bytes = open_hist_bytes;
        self.open_only = 0;
        self.open_slots = slots;
        if self.open_other.contribs > 0 {
            let other = Row {
                sums: self.open_other.sums,
                hist: self.open_other.hist.compact_clone(),
                contribs: self.open_other.contribs,
                ..Row::other()
            };
            self.agg_other.add_row(&other);
            note_peak(
                &mut self.agg_other,
                ticks,
                self.open_index,
                other.sums.memory_peak_max,
            );
            tick.other = Some(Box::new(other));
            self.open_other.zero();
        }
        // Then the tick into the window's closed part: a second walk, over the tick's rows, so
        // that each `agg` row can be fetched ahead (see `with_lookahead`).
        // The open rows were renumbered: every link made before is stale from here.
        self.open_gen = self.open_gen.wrapping_add(1).max(1);
        // Rows closed from a stage have no open row to link to.
        let link = from_stage.is_none().then_some(self.open_gen);
        let grown = add_tick_rows(&mut self.agg, &tick, link, ticks);
        self.agg_hist_bytes = self.agg_hist_bytes.saturating_add_signed(grown);
        self.closed_bytes += tick.bytes();
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

    /// Whether closed ticks are kept for [`Report::take_closed_ticks`].
    pub fn keeps_closed_ticks(&self) -> bool {
        self.outbox.is_some()
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

    /// Subtracts a closed tick that left the window from `agg`; rows left empty go. A row of the
    /// tick whose key's row was folded into "(other)" since (no row, or one made after the tick:
    /// see `Row::mark`) is taken out of "(other)".
    fn expire(&mut self, tick: Arc<ClosedTick>) {
        let n = self.keys.len();
        self.closed_bytes = self.closed_bytes.saturating_sub(tick.bytes());
        self.agg_totals
            .subtract_row_parts(&tick.totals.sums, &tick.totals.hist);
        if let Some(o) = &tick.other {
            self.agg_other.subtract_row_parts(&o.sums, &o.hist);
        }
        let index = tick.index;
        let ticks = self.window.ticks;
        forget_peak(
            &mut self.agg_totals,
            ticks,
            index,
            tick.totals.sums.memory_peak_max,
        );
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
                r.expire_row(index, &key, &sums, hist);
            },
        );
        // Every part of the tick left "(other)" too: its own "(other)" row's, and those of rows
        // folded into it since.
        forget_peak(&mut self.agg_other, ticks, index, u32::MAX);
        self.let_go(tick);
    }

    /// [`Report::expire`] of one row of tick `index`.
    #[inline]
    fn expire_row(&mut self, index: u64, key: &KeyBuf, sums: &Sums, hist: HistView<'_>) {
        let a = match self.agg.get_mut(key) {
            Some(a) if a.mark <= index => a,
            // Folded into "(other)" after this tick closed.
            _ => return self.agg_other.subtract_row_parts(sums, hist),
        };
        let before = a.hist.heap_bytes() + peak_bytes(a);
        a.subtract_row_parts(sums, hist);
        forget_peak(a, self.window.ticks, index, sums.memory_peak_max);
        let after = a.hist.heap_bytes() + peak_bytes(a);
        if a.sums.req_count == 0 {
            debug_assert_eq!(a.sums, Sums::default());
            self.agg_hist_bytes = self.agg_hist_bytes.saturating_sub(before);
            self.agg.remove(key);
            // The open tick's row of that key (zeroed at the last close) is now a row of its
            // own if it counted something since, else it goes.
            if let Some(o) = self.open.get_mut(key) {
                if o.sums.req_count == 0 {
                    let heap = o.hist.heap_bytes();
                    self.open_hist_bytes = self.open_hist_bytes.saturating_sub(heap);
                    self.open.remove(key);
                } else {
                    o.only_open = true;
                    self.open_only += 1;
                }
            }
        } else {
            self.agg_hist_bytes = (self.agg_hist_bytes + after).saturating_sub(before);
        }
    }

    /// Rows a report keeps at most when a tick has closed: its row limit less a sixteenth of it
    /// (at least one row), so that every tick starts with room for new keys.
    pub fn room_mark(&self) -> usize {
        self.max_rows - (self.max_rows / 16).max(1).min(self.max_rows)
    }

    /// When the window moved into a new tick (the open tick closed, so every open row is in
    /// `agg`, and the ticks that left are out): if the report holds more than
    /// [`Report::room_mark`] rows, its coldest rows are folded into "(other)" down to it (see
    /// [`Report`]). While the memory budget is tight, down to half the rows it holds (but not
    /// below [`TIGHT_KEEP_ROWS`]: a small report costs little, and its rows stay readable; near
    /// the limit, `Budget::shed_at`, below it too, as many small reports add up): no new
    /// row is made then, but the keys with rows go on counting, and each tick that closes holds a
    /// copy of their rows, so rows × ticks would go on growing; halved at each close, what the
    /// ticks closed while it is tight add stays within about two ticks' worth. Costs a pass over
    /// the rows, and only when the report is that full.
    pub(super) fn make_room(&mut self) {
        let rows = self.rows();
        let budget = self.account.budget();
        // Near the limit, no floor (see `Report::shed_if_over`).
        let floor = if budget.used() >= budget.shed_at() {
            0
        } else {
            TIGHT_KEEP_ROWS
        };
        let mark = if budget.tight() {
            (rows / 2).max(floor).min(self.room_mark())
        } else if self.max_rows == usize::MAX {
            return;
        } else {
            self.room_mark()
        };
        if rows > mark {
            self.fold_coldest(rows - mark);
            if self.account.budget().tight() {
                self.compact_closed();
            }
        }
    }

    /// While the memory budget is tight, after [`Report::fold_coldest`]: the closed ticks' rows
    /// whose key's row was folded away (the rows [`Report::expire`] would take out of "(other)")
    /// move into their tick's "(other)" row, so that the memory they held is given back now, not
    /// when their ticks leave the window. Each tick's "(other)" then holds them, and `expire`
    /// takes them out of `agg_other` through it, as it would have row by row: the report's
    /// answers do not change. Without this, a flood's rows stay in the closed ticks for a whole
    /// window after the flood stops, and with them the budget stays tight and new names and rows
    /// are refused. Costs a lookup per row and closed tick, and a copy of each tick that had
    /// such rows (a tick still held elsewhere, by the history writer or the tick log, is theirs
    /// unchanged).
    fn compact_closed(&mut self) {
        let n = self.keys.len();
        let folded = |agg: &RowMap, index: u64, ids: &[u32]| !matches!(agg.get(ids), Some(a) if a.mark <= index);
        for at in 0..self.closed.len() {
            let tick = &self.closed[at];
            let index = tick.index;
            let gone = tick
                .rows()
                .filter(|(ids, _, _)| folded(&self.agg, index, ids))
                .count();
            if gone == 0 {
                continue;
            }
            let totals = Row {
                sums: tick.totals.sums,
                hist: tick.totals.hist.compact_clone(),
                ..Row::default()
            };
            let mut other = tick.other.as_deref().cloned().unwrap_or_else(Row::other);
            let mut new = ClosedTick::new(index, tick.cut_at_ms, totals, tick.rows.len() - gone, n);
            for (ids, sums, hist) in tick.rows() {
                if folded(&self.agg, index, ids) {
                    other.sums.add(&sums);
                    other.hist.add_hist(hist);
                } else {
                    new.push_row(ids, &sums, &hist.to_histogram());
                }
            }
            new.shrink_hists();
            new.other = Some(Box::new(other));
            self.closed_bytes = (self.closed_bytes + new.bytes()).saturating_sub(tick.bytes());
            let old = std::mem::replace(&mut self.closed[at], Arc::new(new));
            self.let_go(old);
        }
    }

    /// The report no longer holds `tick` (compacted, or out of the window): if a tap (the
    /// history writer, the tick log) or the outbox still does, the budget keeps its bytes
    /// accounted until they drop it.
    fn let_go(&self, tick: Arc<ClosedTick>) {
        if Arc::strong_count(&tick) > 1 {
            let weak: std::sync::Weak<ClosedTick> = Arc::downgrade(&tick);
            self.account.budget().outlived(weak, tick.bytes() as u64);
        }
    }

    /// While the memory budget is tight, after a round's update: settles the report's account
    /// and, when the budget is then near its limit (`Budget::shed_at`), folds the colder half of
    /// the rows only the open tick has into the open tick's "(other)" row, so that the round
    /// that takes the budget there is the one that gives memory back. Tight, no new row is made,
    /// but the rows made before go on growing (their histograms, which the budget counts as
    /// they grow, and what their tick's close will copy): with hundreds of reports taking their
    /// first traffic, that took the budget's figure far past its limit within the first tick,
    /// where [`Report::make_room`] acts only at the close. Halved round after round while the
    /// budget stays there, down to none (no floor such as the close's [`TIGHT_KEEP_ROWS`]:
    /// a hundred reports each keeping their 64 busiest rows, histograms and all, outgrew a small
    /// budget alone). Rows with a closed-part row are left to the close. Each report checks
    /// after its own round, with what the others settled: the reports updated while the budget
    /// is past the mark fold, until it is below. Costs a pass over the open rows, only then.
    pub(super) fn shed_if_over(&mut self) {
        self.settle_memory();
        let budget = self.account.budget();
        if budget.used() < budget.shed_at() {
            return;
        }
        let keep = self.open_only / 2;
        if self.open_only == 0 {
            return;
        }
        self.flush_hist();
        let mut n = self.open_only - keep;
        // Coldest first: fewest contributions, by powers of two; at the cut, as they come.
        let class = |r: &Row| 32 - r.contribs.leading_zeros() as usize;
        let mut classes = [0usize; 33];
        for r in self.open.values().filter(|r| r.only_open) {
            classes[class(r)] += 1;
        }
        let (cut, mut at_cut) = cut_at(&classes, n);
        let Report {
            open,
            open_other,
            open_only,
            open_hist_bytes,
            rows_evicted,
            keys,
            ..
        } = self;
        open.retain_each(keys.len(), |_, r| {
            let c = class(r);
            if !r.only_open || n == 0 || c > cut || (c == cut && at_cut == 0) {
                return true;
            }
            if c == cut {
                at_cut -= 1;
            }
            n -= 1;
            open_other.add_row(r);
            *open_hist_bytes = open_hist_bytes.saturating_sub(r.hist.heap_bytes());
            *open_only -= 1;
            *rows_evicted += 1;
            false
        });
        self.open.shrink_to_rows();
        self.settle_memory();
    }

    /// Folds the `n` coldest rows of `agg` into "(other)", with their open rows (empty right
    /// after a close). Coldest: fewest requests in the window (by powers of two), and of rows
    /// alike, those the tick just closed did not touch (a flood's rows of earlier ticks go before
    /// a key that came in the last one); all rows of the colder classes, then rows of the class
    /// at the cut as they come.
    fn fold_coldest(&mut self, n: usize) {
        debug_assert_eq!(self.open_only, 0, "right after a close");
        // The rows the tick just closed touched are linked to their open rows (`add_tick_rows`).
        let gen = self.open_gen;
        let class = move |r: &Row| {
            (64 - r.sums.req_count.leading_zeros() as usize) * 2 + usize::from(r.link == gen)
        };
        let mut classes = [0usize; 130];
        for r in self.agg.values() {
            classes[class(r)] += 1;
        }
        let (cut, mut at_cut) = cut_at(&classes, n);
        let Report {
            agg,
            open,
            agg_other,
            keys,
            agg_hist_bytes,
            open_hist_bytes,
            rows_evicted,
            ..
        } = self;
        agg.retain_each(keys.len(), |key, a| {
            let c = class(a);
            let fold = c < cut || (c == cut && at_cut > 0);
            if !fold {
                return true;
            }
            if c == cut {
                at_cut -= 1;
            }
            agg_other.sums.add(&a.sums);
            agg_other.hist.add_hist(&a.hist);
            merge_peaks(agg_other, a);
            *agg_hist_bytes = agg_hist_bytes.saturating_sub(a.hist.heap_bytes() + peak_bytes(a));
            if let Some(o) = open.remove(key) {
                *open_hist_bytes = open_hist_bytes.saturating_sub(o.hist.heap_bytes());
            }
            *rows_evicted += 1;
            false
        });
    }
}
