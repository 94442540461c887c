//! The set of live reports: each behind its own lock, with its update statistics.
//!
//! # Shared tables
//! Start-up reports whose definitions are equal but for their names (and whose windows and row
//! limits are equal: [`find_twins`]) would hold the same rows at every moment. Keeping each
//! its own table made a configuration's cost follow its number of reports: every table is
//! folded, closed, expired and logged at each tick, whatever the requests. So the first of them
//! (the **owner**) keeps the table, and the others (**twins**) are cells holding the same
//! `Arc` of it under their own names ([`ReportSet::insert_twin`]):
//! - the merger updates owners only ([`ReportSet::owners`]); a twin's lock-free figures (rows,
//!   cost, worker, family, when it was queried) are its owner's ([`ReportCell::owner`]);
//! - a query of a twin detaches the owner from its family and answers under the twin's name;
//! - a closed tick goes to history and the sinks once per name reading the table
//!   ([`ReportCell::sharers`], `tap::TickTap::hand_over_table`), to the tick log once;
//! - the snapshot writes every name with its own definition ([`ReportCell::def_of`]) and a
//!   restore fills a table once, so a twin whose owner left the configuration gets its window
//!   back;
//! - an owner dropped at run time keeps its table updated for its twins (its cell leaves the
//!   set, not the merger's rounds); the table's pins are released once no report reads it.
//!
//! Run-time creations keep tables of their own: sharing is decided at start-up.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
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
    /// starve the merger), no poisoning. Shared with the cells of the reports that share its
    /// table (see the module's "shared tables").
    pub report: Arc<RwLock<Report>>,
    name: String,
    builtin: bool,
    /// The report whose table this one shares (its owner), if any: the owner's cell updates
    /// the table and holds its figures; this cell lends it its own name.
    source: Option<Arc<ReportCell>>,
    /// The reports sharing this one's table (set once, at start-up, on the owner).
    twins: std::sync::OnceLock<Vec<std::sync::Weak<ReportCell>>>,
    /// Set when the report left the set (a drop). A dropped owner whose twins remain still
    /// updates their table; its ticks are handed over under the twins' names only.
    dropped: AtomicBool,
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
    ticks_waiting: AtomicBool,
    /// The report's parts on other merge threads while it is split (see `split`); set and
    /// cleared by the merger's balancing while no round is in flight.
    split: Mutex<Option<Arc<Split>>>,
}

impl ReportCell {
    fn new(report: Report) -> ReportCell {
        let name = report.def.name.clone();
        let builtin = is_builtin(&report.def);
        ReportCell::holding(Arc::new(RwLock::new(report)), name, builtin, None)
    }

    /// A cell for `table`: its own (`source` None) or the table of `source`, a twin's.
    fn holding(
        table: Arc<RwLock<Report>>,
        name: String,
        builtin: bool,
        source: Option<Arc<ReportCell>>,
    ) -> ReportCell {
        let (rows, rows_lost, rows_evicted, memory_bytes, window) = {
            let r = table.read();
            let bytes = r.memory_estimate() as u64;
            (
                r.rows() as u64,
                r.rows_lost(),
                r.rows_evicted(),
                bytes,
                r.window(),
            )
        };
        ReportCell {
            instrument: crate::instruments::Instrument::new(format!("report:{name}")),
            name,
            builtin,
            source,
            twins: Default::default(),
            dropped: Default::default(),
            rows: AtomicU64::new(rows),
            rows_lost: AtomicU64::new(rows_lost),
            rows_evicted: AtomicU64::new(rows_evicted),
            memory_bytes: AtomicU64::new(memory_bytes),
            last_query_ms: AtomicU64::new(0),
            worker: Default::default(),
            filled: Mutex::new(false),
            filled_cv: Default::default(),
            window,
            next_tick_ms: AtomicU64::new(0),
            family: Default::default(),
            ticks_waiting: Default::default(),
            split: Default::default(),
            report: table,
        }
    }

    /// The cell that owns the report's table: this one, or the one it shares it with.
    pub fn owner(&self) -> &ReportCell {
        self.source.as_deref().unwrap_or(self)
    }

    /// [`ReportCell::owner`] as an `Arc` (`self` must be the set's `Arc` of this cell).
    pub fn owner_arc(self: &Arc<Self>) -> Arc<ReportCell> {
        self.source.clone().unwrap_or_else(|| Arc::clone(self))
    }

    /// The name of the report whose table this one shares, if it shares one.
    pub fn shares_table_with(&self) -> Option<&str> {
        self.source.as_deref().map(|s| s.name())
    }

    /// Whether other reports share this owner's table.
    pub fn has_twins(&self) -> bool {
        self.twins.get().is_some_and(|t| !t.is_empty())
    }

    /// The reports in the set that read this owner's table, the owner first (when not
    /// dropped): the names its closed ticks are handed over under.
    pub fn sharers(self: &Arc<Self>) -> Vec<Arc<ReportCell>> {
        let owner = self.owner_arc();
        let twins = owner.twins.get().into_iter().flatten();
        std::iter::once(owner.clone())
            .chain(twins.filter_map(std::sync::Weak::upgrade))
            .filter(|c| !c.dropped.load(Relaxed))
            .collect()
    }

    /// Whether the table of a report that left the set is still read by one that did not.
    fn table_in_use(self: &Arc<Self>) -> bool {
        !self.sharers().is_empty()
    }

    /// The report's definition under this cell's name (a twin's table holds its owner's).
    pub fn def_of(&self, report: &Report) -> ReportDef {
        let mut def = report.def.clone();
        def.name.clone_from(&self.name);
        def
    }

    /// Copies the report's row figures out for lock-free readers, and tells the memory budget
    /// what it holds; call with the report locked.
    pub fn publish(&self, report: &Report) {
        let o = self.owner();
        o.next_tick_ms.store(report.next_tick_ms(), Relaxed);
        o.rows.store(report.rows() as u64, Relaxed);
        o.rows_lost.store(report.rows_lost(), Relaxed);
        o.rows_evicted.store(report.rows_evicted(), Relaxed);
        let bytes = report.memory_estimate() as u64;
        o.memory_bytes.store(bytes, Relaxed);
        report.settle_memory_at(bytes);
        o.ticks_waiting
            .store(report.closed_ticks_waiting(), Relaxed);
    }

    /// The report's parts while it is split (see `split`).
    pub fn split(&self) -> Option<Arc<Split>> {
        self.owner().split.lock().clone()
    }

    /// The merge threads that count parts of this report's work besides its own thread: its
    /// split's, or, for a family's leader (whose work is the stage's), its stage's (see
    /// `split`); empty for another family member.
    pub fn parts_on(&self) -> Vec<usize> {
        match self.family() {
            Some(f) if f.is_led_by(self.owner()) => {
                f.split().map_or_else(Vec::new, |s| s.workers().collect())
            }
            Some(_) => Vec::new(),
            None => self
                .split()
                .map_or_else(Vec::new, |s| s.workers().collect()),
        }
    }

    /// Splits the report (`Some`) or ends its split (`None`), what its parts held folded into
    /// it first. Only while no merge round is in flight (the merger's balancing).
    pub fn set_split(&self, split: Option<Arc<Split>>) {
        let mut held = self.owner().split.lock();
        if let Some(old) = held.take() {
            let mut r = self.report.write();
            old.fold_open(&mut r);
            self.publish(&r);
        }
        *held = split;
    }

    /// Folds what a split report's parts hold into it (see [`Split::fold_open`]): before a
    /// query, a scrape, the snapshot or history reads it, so that it holds every request merged.
    pub fn fold_parts(&self) {
        if let Some(split) = self.split() {
            let mut r = self.report.write();
            split.fold_open(&mut r);
            self.publish(&r);
        }
    }

    /// Whether closed ticks waited for the history writer at the last update (lock-free).
    pub fn ticks_waiting(&self) -> bool {
        self.owner().ticks_waiting.load(Relaxed)
    }

    /// The family this report is a member of, if any.
    pub fn family(&self) -> Option<&Arc<Family>> {
        self.owner().family.get().map(|(f, _)| f)
    }

    /// Where the report is among its family's members (see [`ReportCell::family`]).
    pub fn member_index(&self) -> Option<usize> {
        self.owner().family.get().map(|&(_, i)| i)
    }

    /// Makes the report a member of `family` (once; later calls are ignored, and so is a
    /// family it is not a member of).
    pub fn join(&self, family: Arc<Family>) {
        if let Some(i) = family.index_of(self) {
            let _ = self.owner().family.set((family, i));
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
        self.owner().last_query_ms.store(now_ms.max(1), Relaxed);
    }

    /// Whether a query read the report in the [`QUERIED_FOR_MS`] before `now_ms`.
    pub fn queried_lately(&self, now_ms: u64) -> bool {
        let at = self.owner().last_query_ms.load(Relaxed);
        at > 0 && now_ms.saturating_sub(at) <= QUERIED_FOR_MS
    }

    /// The report's window (lock-free).
    pub fn window(&self) -> Window {
        self.window
    }

    /// When the report's window next moves (see [`Report::next_tick_ms`]), as of its last update.
    pub fn next_tick_ms(&self) -> u64 {
        self.owner().next_tick_ms.load(Relaxed)
    }

    /// The merge thread that updates this report.
    pub fn worker(&self) -> usize {
        self.owner().worker.load(Relaxed)
    }

    pub fn set_worker(&self, worker: usize) {
        self.owner().worker.store(worker, Relaxed);
    }

    /// Whether the merger filled it and updates it every round.
    pub fn is_filled(&self) -> bool {
        *self.owner().filled.lock()
    }

    pub fn mark_filled(&self) {
        *self.owner().filled.lock() = true;
        self.owner().filled_cv.notify_all();
    }

    /// Waits until the merger filled the report, at most `timeout`; returns whether it did.
    pub fn wait_filled(&self, timeout: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let o = self.owner();
        let mut filled = o.filled.lock();
        while !*filled {
            if o.filled_cv.wait_until(&mut filled, deadline).timed_out() {
                break;
            }
        }
        *filled
    }

    /// Rows at the last update (lock-free).
    pub fn published_rows(&self) -> u64 {
        self.owner().rows.load(Relaxed)
    }

    /// Lost contributions at the last update (lock-free).
    pub fn published_rows_lost(&self) -> u64 {
        self.owner().rows_lost.load(Relaxed)
    }

    /// Rows folded into "(other)" at the last update (lock-free).
    pub fn published_rows_evicted(&self) -> u64 {
        self.owner().rows_evicted.load(Relaxed)
    }

    /// What the report held (bytes) at the last update (lock-free).
    pub fn published_memory_bytes(&self) -> u64 {
        self.owner().memory_bytes.load(Relaxed)
    }

    /// Mean update time per request since creation (0 before the first timed update); a
    /// shared table's, for each report sharing it.
    pub fn update_ns_per_request(&self) -> f64 {
        self.owner().instrument.mean_ns()
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
    /// The current reports.
    pub fn snapshot(&self) -> Vec<Arc<ReportCell>> {
        self.list.read().clone()
    }

    /// The tables the current reports read, each once, by its owner's cell (which may have
    /// left the set while a twin reads its table): what the merger updates every round.
    pub fn owners(&self) -> Vec<Arc<ReportCell>> {
        let list = self.list.read();
        if list.iter().all(|c| c.source.is_none()) {
            return list.clone();
        }
        let mut owners: Vec<Arc<ReportCell>> = Vec::with_capacity(list.len());
        let mut seen = rustc_hash::FxHashSet::default();
        for c in list.iter() {
            let owner = c.owner_arc();
            if seen.insert(Arc::as_ptr(&owner) as usize) {
                owners.push(owner);
            }
        }
        owners
    }

    /// Adds the report `def` defines as one sharing `owner`'s table (start-up only: see the
    /// module's "shared tables"); a duplicate name is an error.
    pub fn insert_twin(
        &self,
        def: &ReportDef,
        owner: &Arc<ReportCell>,
    ) -> Result<Arc<ReportCell>, ReportError> {
        let mut list = self.list.write();
        let name = def.name.clone();
        if list.iter().any(|c| c.name == name) {
            return Err(err(format!("report `{name}` already exists")));
        }
        let builtin = is_builtin(def);
        let owner = owner.owner_arc();
        let cell = Arc::new(ReportCell::holding(
            Arc::clone(&owner.report),
            name,
            builtin,
            Some(Arc::clone(&owner)),
        ));
        list.push(cell.clone());
        Ok(cell)
    }

    /// Records, on each owner, the reports that share its table (once, after the start-up
    /// inserts).
    pub fn seal_twins(&self) {
        let list = self.list.read();
        for owner in list.iter().filter(|c| c.source.is_none()) {
            let twins: Vec<_> = list
                .iter()
                .filter(|c| c.source.as_ref().is_some_and(|s| Arc::ptr_eq(s, owner)))
                .map(Arc::downgrade)
                .collect();
            let _ = owner.twins.set(twins);
        }
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

    /// Takes a report out of the set; the caller releases its pins when the second value says
    /// no report left in the set reads its table.
    pub fn remove(&self, name: &str) -> Option<(Arc<ReportCell>, bool)> {
        let mut list = self.list.write();
        let i = list.iter().position(|c| c.name == name)?;
        let cell = list.remove(i);
        cell.dropped.store(true, Relaxed);
        let unread = !cell.table_in_use();
        Some((cell, unread))
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

/// Whether `def` is one of [`builtin_defs`] unchanged.
fn is_builtin(def: &ReportDef) -> bool {
    builtin_defs().iter().any(|d| d == def)
}

/// For each of `reports` (start-up's, in order), the earlier one whose table it can share, if
/// any: a report whose definition is equal but for its name, over the same window and row
/// limit, would hold the same rows at every moment (see the module's "shared tables"). An
/// owner is never itself a twin.
pub fn find_twins(reports: &[Report]) -> Vec<Option<usize>> {
    let mut owners: rustc_hash::FxHashMap<String, usize> = Default::default();
    let mut twins = Vec::with_capacity(reports.len());
    for (i, r) in reports.iter().enumerate() {
        let mut def = r.def.clone();
        def.name.clear();
        // The whole definition but its name (serde: every field, in a fixed order), the window
        // and the row limit. (A definition that would not serialise shares nothing.)
        let Ok(def) = serde_json::to_string(&def) else {
            twins.push(None);
            continue;
        };
        let key = format!("{def}|{:?}|{}", r.window, r.max_rows);
        match owners.get(&key) {
            Some(&owner) => twins.push(Some(owner)),
            None => {
                owners.insert(key, i);
                twins.push(None);
            }
        }
    }
    twins
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dictionary::Dictionary;

    #[test]
    fn only_reports_equal_but_for_their_names_share_a_table() {
        let mut dict = Dictionary::new(100);
        let mut make = |name: &str, edit: &dyn Fn(&mut ReportDef), max_rows: usize| {
            let mut def = ReportDef::new(name, &["script_name", "timer_tag:group"]);
            edit(&mut def);
            Report::new(def, &mut dict, max_rows).unwrap()
        };
        let same = |_: &mut ReportDef| {};
        let reports = vec![
            make("a", &same, 10),
            make("b", &same, 10),
            make("c", &|d| d.percentiles = vec![50.0], 10),
            make("d", &same, 20),
            make("e", &|d| d.keys.reverse(), 10),
            make("f", &same, 10),
            make("g", &|d| d.percentiles = vec![50.0], 10),
            make("h", &|d| d.compat = Some(Compat::PinbaEngine), 10),
        ];
        let twins = find_twins(&reports);
        assert_eq!(
            twins,
            vec![None, Some(0), None, None, None, Some(0), Some(2), None]
        );
    }

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
