//! The set of live reports: each behind its own lock, with its update statistics.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::error::err;
use super::*;

/// How long after a query a report counts as queried (see [`ReportCell::queried_lately`]):
/// longer than the refresh of a dashboard or a Prometheus scrape.
pub const QUERIED_FOR_MS: u64 = 60_000;

/// One live report with its lock and update statistics.
#[derive(Debug)]
pub struct ReportCell {
    /// Written by the merger (add/subtract each round) and by report creation (fill); read by the
    /// API for queries and status. parking_lot: small, fair (a steady stream of queries cannot
    /// starve the merger), no poisoning.
    pub report: RwLock<Report>,
    name: String,
    builtin: bool,
    /// The report's update each round (`report:NAME`): count = requests, time = its share of
    /// the merge. Written by the thread that owns the report, read by the API.
    pub instrument: crate::instruments::Instrument,
    /// Rows and lost contributions as of the last update, for `/api/v1/status` (which must not
    /// wait on the report's lock). Written by whoever holds the write lock, after each change.
    rows: AtomicU64,
    rows_lost: AtomicU64,
    rows_evicted: AtomicU64,
    /// What the report holds (bytes, [`Report::memory_estimate`]) as of the last update.
    memory_bytes: AtomicU64,
    /// When a query last read it (merger ms, 0: never): the merge thread keeps the histogram log
    /// of a report queried in the last [`QUERIED_FOR_MS`] short (see `Report::set_queried`).
    last_query_ms: AtomicU64,
    /// The merge thread that updates it (0: the merger), set when the merger first sees it.
    worker: std::sync::atomic::AtomicUsize,
    /// Set by the merger once the report was filled from the pool and joined the rounds; the
    /// API's creation waits for it.
    filled: Mutex<bool>,
    filled_cv: parking_lot::Condvar,
    window: Window,
    /// When the report's next tick begins (merger ms): an idle merger skips the report until then.
    next_tick_ms: AtomicU64,
    /// The family whose stage feeds this report, if any, and where it is among the family's
    /// members (set once, at start-up; see `family`).
    family: std::sync::OnceLock<(Arc<Family>, usize)>,
    /// Whether closed ticks wait for the history writer, as of the last update (see
    /// [`Report::take_closed_ticks`]): lets the merger collect a family member's ticks, closed
    /// by whichever thread handed it its stage, without locking members that have none.
    ticks_waiting: std::sync::atomic::AtomicBool,
}

impl ReportCell {
    fn new(report: Report) -> ReportCell {
        let name = report.def.name.clone();
        let builtin = builtin_defs().iter().any(|d| d == &report.def);
        ReportCell {
            instrument: crate::instruments::Instrument::new(format!("report:{name}")),
            name,
            builtin,
            rows: AtomicU64::new(report.rows() as u64),
            rows_lost: AtomicU64::new(report.rows_lost()),
            rows_evicted: AtomicU64::new(report.rows_evicted()),
            memory_bytes: AtomicU64::new(report.memory_estimate() as u64),
            last_query_ms: AtomicU64::new(0),
            worker: Default::default(),
            filled: Mutex::new(false),
            filled_cv: Default::default(),
            window: report.window(),
            next_tick_ms: AtomicU64::new(0),
            family: Default::default(),
            ticks_waiting: Default::default(),
            report: RwLock::new(report),
        }
    }

    /// Copies the report's row figures out for lock-free readers, and tells the memory budget
    /// what it holds; call with the report locked.
    pub fn publish(&self, report: &Report) {
        self.next_tick_ms.store(report.next_tick_ms(), Relaxed);
        self.rows.store(report.rows() as u64, Relaxed);
        self.rows_lost.store(report.rows_lost(), Relaxed);
        self.rows_evicted.store(report.rows_evicted(), Relaxed);
        let bytes = report.memory_estimate() as u64;
        self.memory_bytes.store(bytes, Relaxed);
        report.settle_memory_at(bytes);
        self.ticks_waiting
            .store(report.closed_ticks_waiting(), Relaxed);
    }

    /// Whether closed ticks waited for the history writer at the last update (lock-free).
    pub fn ticks_waiting(&self) -> bool {
        self.ticks_waiting.load(Relaxed)
    }

    /// The family this report is a member of, if any.
    pub fn family(&self) -> Option<&Arc<Family>> {
        self.family.get().map(|(f, _)| f)
    }

    /// Where the report is among its family's members (see [`ReportCell::family`]).
    pub fn member_index(&self) -> Option<usize> {
        self.family.get().map(|&(_, i)| i)
    }

    /// Makes the report a member of `family` (once; later calls are ignored, and so is a
    /// family it is not a member of).
    pub fn join(&self, family: Arc<Family>) {
        if let Some(i) = family.index_of(self) {
            let _ = self.family.set((family, i));
        }
    }

    /// Applies the report's histogram log (a short write-lock step, only when samples wait):
    /// before a snapshot writes the report. Queries read the log instead (see
    /// `Report::pending_hists`).
    pub fn apply_hist_log(&self) {
        if self.report.read().hist_pending() {
            self.report.write().flush_hist();
        }
    }

    /// Notes a query at `now_ms` (merger ms).
    pub fn mark_queried(&self, now_ms: u64) {
        self.last_query_ms.store(now_ms.max(1), Relaxed);
    }

    /// Whether a query read the report in the [`QUERIED_FOR_MS`] before `now_ms`.
    pub fn queried_lately(&self, now_ms: u64) -> bool {
        let at = self.last_query_ms.load(Relaxed);
        at > 0 && now_ms.saturating_sub(at) <= QUERIED_FOR_MS
    }

    /// The report's window (lock-free).
    pub fn window(&self) -> Window {
        self.window
    }

    /// When the report's window next moves (see [`Report::next_tick_ms`]), as of its last update.
    pub fn next_tick_ms(&self) -> u64 {
        self.next_tick_ms.load(Relaxed)
    }

    /// The merge thread that updates this report.
    pub fn worker(&self) -> usize {
        self.worker.load(Relaxed)
    }

    pub fn set_worker(&self, worker: usize) {
        self.worker.store(worker, Relaxed);
    }

    /// Whether the merger filled it and updates it every round.
    pub fn is_filled(&self) -> bool {
        *self.filled.lock()
    }

    pub fn mark_filled(&self) {
        *self.filled.lock() = true;
        self.filled_cv.notify_all();
    }

    /// Waits until the merger filled the report, at most `timeout`; returns whether it did.
    pub fn wait_filled(&self, timeout: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut filled = self.filled.lock();
        while !*filled {
            if self.filled_cv.wait_until(&mut filled, deadline).timed_out() {
                break;
            }
        }
        *filled
    }

    /// Rows at the last update (lock-free).
    pub fn published_rows(&self) -> u64 {
        self.rows.load(Relaxed)
    }

    /// Lost contributions at the last update (lock-free).
    pub fn published_rows_lost(&self) -> u64 {
        self.rows_lost.load(Relaxed)
    }

    /// Rows folded into "(other)" at the last update (lock-free).
    pub fn published_rows_evicted(&self) -> u64 {
        self.rows_evicted.load(Relaxed)
    }

    /// What the report held (bytes) at the last update (lock-free).
    pub fn published_memory_bytes(&self) -> u64 {
        self.memory_bytes.load(Relaxed)
    }

    /// Mean update time per request since creation (0 before the first timed update).
    pub fn update_ns_per_request(&self) -> f64 {
        self.instrument.mean_ns()
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether this is one of [`builtin_defs`] unchanged.
    pub fn builtin(&self) -> bool {
        self.builtin
    }
}

/// The live reports, in creation order. The merger takes a [`snapshot`](ReportSet::snapshot)
/// every round; the API inserts and removes. The list lock is held only to copy or edit the list
/// of `Arc`s, never while a report is locked.
#[derive(Default)]
pub struct ReportSet {
    list: RwLock<Vec<Arc<ReportCell>>>,
    /// Serialises run-time changes (API create/delete) as whole steps: the checks (name, limit),
    /// the change of the set and the write of the state file happen under it, so two racing
    /// requests can neither overshoot `limits.max_reports` nor leave the file disagreeing with
    /// the set. Never taken by the merger; taken before the pool in the API (lock order:
    /// changes → pool → dictionary → a report).
    changes: Mutex<()>,
}

/// Proof that the caller holds the set's change lock ([`ReportSet::lock_changes`]).
pub type ChangeGuard<'a> = parking_lot::MutexGuard<'a, ()>;

impl ReportSet {
    /// The current reports (the merger iterates this every round).
    pub fn snapshot(&self) -> Vec<Arc<ReportCell>> {
        self.list.read().clone()
    }

    /// Adds a report; a duplicate name is an error (the report is then dropped without
    /// `release`: use [`ReportSet::try_insert`] where the dictionary is at hand).
    pub fn insert(&self, report: Report) -> Result<(), ReportError> {
        self.try_insert(report).map(|_| ()).map_err(|(e, _)| e)
    }

    /// Adds a report, or gives it back with the error when the name is taken.
    #[allow(clippy::result_large_err)]
    pub fn try_insert(
        &self,
        report: Report,
    ) -> Result<Arc<ReportCell>, (ReportError, Box<Report>)> {
        let mut list = self.list.write();
        if list.iter().any(|c| c.name == report.def.name) {
            let e = err(format!("report `{}` already exists", report.def.name));
            return Err((e, Box::new(report)));
        }
        let cell = Arc::new(ReportCell::new(report));
        list.push(cell.clone());
        Ok(cell)
    }

    pub fn get(&self, name: &str) -> Option<Arc<ReportCell>> {
        self.list.read().iter().find(|c| c.name == name).cloned()
    }

    /// Takes a report out of the set; the caller releases its pins.
    pub fn remove(&self, name: &str) -> Option<Arc<ReportCell>> {
        let mut list = self.list.write();
        let i = list.iter().position(|c| c.name == name)?;
        Some(list.remove(i))
    }

    pub fn len(&self) -> usize {
        self.list.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.read().is_empty()
    }

    /// Takes the change lock: hold it from the checks of a run-time change to its state write.
    pub fn lock_changes(&self) -> ChangeGuard<'_> {
        self.changes.lock()
    }

    /// Records a run-time change in `{dir}/reports.json`: loads it, applies `change`, writes it
    /// back atomically. The caller holds the change lock across this and the set's change.
    pub fn persist_change(
        &self,
        _held: &ChangeGuard<'_>,
        dir: &Path,
        change: impl FnOnce(&mut StateFile),
    ) -> Result<(), ReportError> {
        let mut state = load_state(dir)?.unwrap_or_default();
        change(&mut state);
        save_state(dir, &state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dictionary::Dictionary;

    #[test]
    fn a_report_counts_as_queried_for_a_minute_after_a_query() {
        let mut dict = Dictionary::new(100);
        let report = Report::new(ReportDef::new("s", &["script_name"]), &mut dict, 10).unwrap();
        let cell = ReportCell::new(report);
        assert!(!cell.queried_lately(0), "never queried");
        assert!(!cell.queried_lately(1_000_000), "never queried");
        cell.mark_queried(5_000);
        assert!(cell.queried_lately(5_000));
        assert!(cell.queried_lately(5_000 + QUERIED_FOR_MS));
        assert!(!cell.queried_lately(5_001 + QUERIED_FOR_MS));
        // A query at the clock's start still counts.
        cell.mark_queried(0);
        assert!(cell.queried_lately(QUERIED_FOR_MS));
    }
}
