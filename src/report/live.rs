//! A live report: its state, how it is made from a definition, and what it says about itself.
//!
//! [`Report`] says how a request gets in and out of it; its methods live with the stage that owns
//! them (`update`, `window`, `hist_log`, `view`, `query`, `snapshot`, `family`). Made where a
//! definition is loaded or created (start-up, the API), holding the dictionary only to pin its
//! names; then updated by a merge thread and read by queries, under the report's lock.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::budget::{Account, Budget};
use crate::dictionary::Dictionary;

use super::batch::{name_bit, PreparedBatch};
use super::columns::key_column_names;
use super::def::{parse_filter, KeySpec, Kind, ReportDef};
use super::error::ReportError;
use super::keys::{intern, Filters, Key};
use super::rows::{Row, RowMap};
use super::update::{Deferral, SORTED_MIN_SLOTS};
use super::window::{ClosedTick, Window, DEFAULT_TICKS};

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
/// per-round map folded into the open tick would rebuild row histograms every round: on rounds
/// of ~1k requests it costs more than it saves.)
///
/// # Exactness, the row limit and the "(other)" row
/// Sums are integers (nanoseconds, bytes) and a tick leaves `agg` by subtracting exactly what it
/// added, so the report always equals one built from scratch over the requests of the ticks in its
/// window. A row is a key present in `agg` or in the open tick. A contribution with a new key
/// that gets no row (`max_rows` rows exist, or the memory budget is tight) goes to the
/// **"(other)" row** (`open_other`, then its tick's `other` and `agg_other`) and counts in
/// `rows_lost`: the rows and "(other)" together always sum to the totals.
///
/// So that a flood of new keys cannot keep real ones out for a whole window, a report holding
/// more than [`Report::room_mark`] rows when a tick closes folds its coldest rows (fewest
/// requests in the window) into "(other)" down to it ([`Report::make_room`], counted in
/// `rows_evicted`): every tick starts with room for new keys. A row folded away and made again
/// later holds its key's contributions since it was made again (`Row::mark` in `agg`: the tick it
/// was made in); an older tick leaving the window takes that key's part out of "(other)".
#[derive(Debug)]
pub struct Report {
    pub(super) def: ReportDef,
    pub(super) kind: Kind,
    /// The keys as strings, preset expanded (`tag:country`).
    pub(super) key_names: Vec<String>,
    /// Column names of the keys (`country`, or `tag:country` when it would repeat).
    pub(super) key_columns: Vec<String>,
    pub(super) keys: Vec<Key>,
    /// Positions of timer tag keys in the key array, with their tag name ids.
    pub(super) timer_keys: Vec<(usize, u32)>,
    /// The timer tag names a request's timers must carry for it to count at all (keys and
    /// filters), as a Bloom filter ([`name_bit`]): a request whose timers lack one is skipped
    /// without looking at its timers (pinba2's per-request bloom filters).
    pub(super) needed_timer_tags: u64,
    pub(super) filters: Filters,
    /// Dictionary ids this report pinned (tag names, filter values), released by `release`.
    pub(super) pins: Vec<u32>,
    pub(super) max_rows: usize,
    /// Contributions that got no row of their own (counted in "(other)"), since creation.
    pub(super) rows_lost: u64,
    /// Rows folded into "(other)" at a tick's close to make room ([`Report::make_room`]).
    pub(super) rows_evicted: u64,
    /// Counts requests applied, for `Row::mark` (timer reports: a request counts once per row).
    pub(super) update_number: u64,
    /// Whether any filter is set (most reports have none: skips the filter checks).
    pub(super) filtered: bool,
    pub(super) window: Window,
    /// The open tick.
    pub(super) open: RowMap,
    pub(super) open_totals: Row,
    pub(super) open_index: u64,
    /// Rows of `open` whose key is not in `agg`: rows = agg.len() + open_only.
    pub(super) open_only: usize,
    /// Slot numbers given to the open tick's rows so far (renumbered at each close).
    pub(super) open_slots: u32,
    /// Counts the renumberings of the open tick's rows (from 1): a closed-part row's link to
    /// its open row (`Row::link`, `Row::slot`) holds only when made at the current count.
    pub(super) open_gen: u32,
    /// Histogram samples of the open tick not yet in their rows (see [`Report::flush_hist`]),
    /// and the flush's scratch.
    pub(super) hist_log: Vec<u64>,
    /// Whether queries read the report lately: its log is kept shorter (see
    /// [`HIST_LOG_PER_ROW_QUERIED`](super::hist_log::HIST_LOG_PER_ROW_QUERIED)).
    pub(super) queried: bool,
    pub(super) hist_sorted: Vec<u64>,
    pub(super) slot_counts: Vec<u32>,
    /// Off for one-request updates ([`Report::add`]): there, logging would cost a flush each;
    /// off too while a batch goes to a table small enough to stay in cache (`add_batch`).
    pub(super) log_histograms: bool,
    /// Open tables of fewer slots than this take their samples at once, unlogged
    /// ([`SORTED_MIN_SLOTS`]; tests set 0 to run the log on small tables too).
    pub(super) log_min_slots: usize,
    /// While a batch is counted in table order (see [`Report::add_batch`]): its contributions,
    /// and the table's size as a mask of the hash.
    pub(super) deferred: Option<Deferral>,
    /// In a family's stage serving timer reports keyed by different timer tags: its per-subset
    /// counts (see `lattice`); `None` in every other report.
    pub(super) lattice: Option<Box<super::lattice::Lattice>>,
    pub(super) spare_deferral: Option<Deferral>,
    /// The open tick's contributions that got no row (see the type's docs); its `slot` is
    /// `NO_SLOT` (it has no samples in the histogram log), its `mark` the last request counted in
    /// it (timer reports count a request once per row).
    pub(super) open_other: Row,
    /// The "(other)" row of the window's closed part: the closed ticks' `other` rows and the rows
    /// folded into it, less what left with their ticks.
    pub(super) agg_other: Row,
    /// Closed ticks in the window, oldest first, and their sum.
    pub(super) closed: VecDeque<Arc<ClosedTick>>,
    /// Ticks closed since the history writer last took them (`None`: the report keeps no
    /// history); see [`Report::keep_closed_ticks`]. Pure: no channel in here, the merger moves
    /// them on.
    pub(super) outbox: Option<Vec<Arc<ClosedTick>>>,
    /// Ticks dropped from a full outbox since the last [`Report::take_closed_ticks`].
    pub(super) outbox_dropped: u64,
    pub(super) agg: RowMap,
    pub(super) agg_totals: Row,
    /// Heap bytes of the closed ticks (kept as they close and leave), of the histograms of the
    /// rows of `agg` with their per-tick memory_peak maxima (kept as ticks add and take rows) and
    /// of the open rows' (kept as rows are made and their histograms grow): what
    /// [`Report::memory_estimate`] adds up without a walk.
    pub(super) closed_bytes: usize,
    pub(super) agg_hist_bytes: usize,
    pub(super) open_hist_bytes: usize,
    /// What the report holds, against the memory budget (the dictionary's it was made with).
    pub(super) account: Account,
    /// Whether a budget near its limit folds the rows its open tick made (see
    /// [`Report::shed_if_over`]): a report's own, not a stage's (a family's, a split report's
    /// part), whose rows are its reports' contributions yet to reach their rows.
    pub(super) sheds: bool,
    /// Milliseconds (merger clock) from which the report holds every request of its window: the
    /// daemon's start for a report made at start-up, the oldest request the raw pool still held
    /// for one created (and filled) at run time.
    pub(super) complete_from_ms: u64,
    /// The latest time the report was advanced to.
    pub(super) now_ms: u64,
    /// The one request of [`Report::add`].
    pub(super) scratch_batch: PreparedBatch,
    /// A timer report with pinba_engine's percentiles: its timers' samples are their whole values
    /// ([`PreparedBatch::timer_contribs`]).
    pub(super) whole_timer_samples: bool,
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

        let (keys, filters, pins) = intern(&specs, &filter_specs, dict)?;

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
        report.account = Account::new(dict.budget().clone());
        report.sheds = true;
        report.max_rows = max_rows;
        report.filtered = filtered;
        Ok(report)
    }

    /// A report with no rows over `keys` (no names, pins or row limit yet).
    pub(super) fn empty(
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
        let whole_timer_samples =
            kind == Kind::Timer && def.compat == Some(super::Compat::PinbaEngine);
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
            rows_evicted: 0,
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
            lattice: None,
            spare_deferral: None,
            open_other: Row::other(),
            agg_other: Row::other(),
            closed: VecDeque::new(),
            outbox: None,
            outbox_dropped: 0,
            agg: RowMap::new(n),
            agg_totals: Row::default(),
            closed_bytes: 0,
            agg_hist_bytes: 0,
            open_hist_bytes: 0,
            account: Account::new(Budget::unlimited()),
            sheds: false,
            complete_from_ms: 0,
            now_ms: 0,
            scratch_batch: PreparedBatch::default(),
            whole_timer_samples,
        }
    }

    /// Sets the window (the definition's `history` wins over `default_history`; `ticks` slices;
    /// phase from what makes reports one family, see [`Report::phase_seed`]) and the time from
    /// which the report is complete. Call before the first request.
    pub fn with_window(
        mut self,
        default_history: std::time::Duration,
        ticks: u32,
        complete_from_ms: u64,
    ) -> Report {
        let history = self.def.history.map_or(default_history, |h| h.0);
        self.window = Window::new(history, ticks);
        self.window = self.window.phased(&self.phase_seed());
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

    /// Contributions (requests; timers in a timer report) that got no row of their own because
    /// the report had `max_rows` rows or the memory budget was tight, since creation: they are
    /// in the "(other)" row.
    pub fn rows_lost(&self) -> u64 {
        self.rows_lost
    }

    /// Rows folded into the "(other)" row to make room for new keys, since creation.
    pub fn rows_evicted(&self) -> u64 {
        self.rows_evicted
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

    /// What the report holds (bytes), from figures kept as it changes, no walk: its row tables
    /// by their buckets, its closed ticks, its rows' histograms (the open rows' as they grow),
    /// its buffers; and what the open tick's close will take
    /// (the closed part's table grown for the open tick's new keys, the closed tick's rows), so
    /// that the budget is tight before a close would take memory past it. What the memory
    /// budget counts.
    pub fn memory_estimate(&self) -> usize {
        let deferral = |d: &Option<super::update::Deferral>| d.as_ref().map_or(0, |d| d.bytes());
        std::mem::size_of::<Report>()
            + self.open.table_bytes()
            + self.agg.table_bytes()
            + self.pending_close_bytes()
            + self.closed_bytes
            + self.agg_hist_bytes
            + self.open_hist_bytes
            + self.open_other.hist.heap_bytes()
            + self.agg_other.hist.heap_bytes()
            + self.open_totals.hist.heap_bytes()
            + self.agg_totals.hist.heap_bytes()
            + super::window::peak_bytes(&self.agg_other)
            + super::window::peak_bytes(&self.agg_totals)
            + self.hist_log_bytes()
            + deferral(&self.deferred)
            + deferral(&self.spare_deferral)
            + self.lattice.as_ref().map_or(0, |l| l.bytes())
    }

    /// What the open tick's close will take beyond what the report holds (bytes): the closed
    /// part's table grown for the open tick's new keys (and their per-tick memory_peak maxima),
    /// and the closed tick's rows and histograms, counted twice: while the budget is tight each
    /// close halves the rows
    /// ([`Report::make_room`]), so the ticks that close from here on hold at most twice the open
    /// tick's rows, and the budget has counted them before they are made (see
    /// [`Report::memory_estimate`]).
    pub(super) fn pending_close_bytes(&self) -> usize {
        let agg_growth =
            self.agg.table_bytes_for(self.agg.len() + self.open_only) - self.agg.table_bytes();
        let tick_rows = self.open.len() * (super::window::TICK_ROW_BYTES + 4 * self.keys.len());
        // A request report's new closed-part rows get their per-tick memory_peak maxima.
        let peaks = match self.kind() {
            Kind::Timer => 0,
            _ => self.open_only * 4 * self.window.ticks as usize,
        };
        agg_growth + peaks + 2 * (tick_rows + self.open_hist_bytes)
    }

    /// Tells the memory budget what the report holds now ([`Report::memory_estimate`]): after
    /// each round (see `ReportCell::publish`).
    pub fn settle_memory(&self) {
        self.settle_memory_at(self.memory_estimate() as u64);
    }

    /// [`Report::settle_memory`] with the estimate already taken.
    pub(super) fn settle_memory_at(&self, bytes: u64) {
        self.account.settle(bytes);
    }

    /// Recomputes the histogram figures [`Report::memory_estimate`] keeps, by a walk (after a
    /// restore replaced the window).
    pub(super) fn recount_memory(&mut self) {
        self.agg_hist_bytes = self
            .agg
            .values()
            .map(|r| r.hist.heap_bytes() + super::window::peak_bytes(r))
            .sum();
        self.open_hist_bytes = self.open.values().map(|r| r.hist.heap_bytes()).sum();
        self.closed_bytes = self.closed.iter().map(|t| t.bytes()).sum();
    }

    /// Approximate heap bytes held by rows, ticks and histograms, by a walk over every row.
    pub fn memory_bytes(&self) -> usize {
        let map = |m: &RowMap| {
            m.capacity() * (m.slot_bytes() + 1)
                + m.values()
                    .map(|r| r.hist.heap_bytes() + super::window::peak_bytes(r))
                    .sum::<usize>()
        };
        let ticks: usize = self.closed.iter().map(|t| t.heap_bytes()).sum();
        map(&self.open)
            + map(&self.agg)
            + ticks
            + 8 * (self.hist_log.capacity() + self.hist_sorted.capacity())
            + 4 * self.slot_counts.capacity()
    }
}
