//! Report history: reports' closed ticks in, steps in `{state_dir}/history.sqlite` out, kept for
//! `history_retention` beyond the reports' windows and across restarts.
//!
//! ```text
//!  merger / report workers ──► History::hand_over ──► inbox (ArrayQueue, bounded: full → drop,
//!  (each report's closed ticks,   never blocks            count `dropped_ticks`)
//!   Arc-shared, no copy)                                     │
//!                                                            ▼  thread "pinbad-history"
//!     resolve key ids (dictionary read lock) → step::Step per report and step (top rows + other)
//!     → store::Store::write (one transaction per wake), prune by retention every minute
//! ```
//!
//! The source is the reports themselves: a report with `history_retention` keeps the ticks it
//! closes in an outbox ([`Report::take_closed_ticks`]), which the merge threads hand over right
//! after updating it. Nothing is done per request: a report's tick is aggregated once for its
//! window, and history reuses it (family members close their ticks the same way). Steps are
//! aligned on unix time; a tick belongs to the step holding its start. A step is written when a
//! tick of a later step arrives, or a tick (plus a grace) after it ended; at shutdown, whatever
//! is accumulated is written, and a step written again later is merged (sums add).
//!
//! Memory: what the writer holds (each open step's rows by key, the names of the keys seen lately,
//! a batch being written) is counted against the memory budget (`budget`) after every tick it
//! sums and every write. While the budget is tight, a tick's row whose key its step does not
//! hold yet is summed into the step's "(other)" row instead (`rows_refused`; the totals stay
//! exact), and its key is not named: a flood of new keys adds nothing to the open steps.
//!
//! Two resolutions: a report keeps its own steps (`history_step`) and, when `[history]
//! fine_step` is a shorter divisor of them, fine steps too (`fine_spec`), stored as a report line
//! of their own (`fine_name`) with their own retention and rows; each tick is summed into both.
//! A query reads the fine steps over a range they cover (`query::reads_fine`).
//!
//! Files: `step` (pure aggregation and the histogram blob), `store` (SQLite), `query` (reading
//! series back for `GET /api/v1/reports/{name}/history`). A damaged or empty store is set aside
//! at start and a new one made (`store::open_setting_aside`); if the store cannot be opened even
//! so (unwritable, another version) the daemon runs without history, says so in the log and in
//! `/api/v1/status`.

pub mod compare;
pub mod query;
pub mod stats;
pub mod step;
pub mod store;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_queue::ArrayQueue;
use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::budget::{table_bytes, Account};
pub use crate::config::{
    HistorySpec as Spec, DEFAULT_HISTORY_ROWS as DEFAULT_ROWS, DEFAULT_HISTORY_STEP as DEFAULT_STEP,
};
use crate::report::{ClosedTick, KeyTexts, Report, ReportCell, Window};
use crate::shutdown::StopGate;
use crate::state::Core;
use crate::tap::TickTap;
use rustc_hash::FxHashMap;
use step::{key_bytes, Key, Part, Step};
use store::{ReportInfo, Store};

/// Ticks waiting for the writer at most (all reports together); beyond, ticks are dropped and
/// counted. The writer takes them four times a second, so this is reached only if it is stuck.
const INBOX_TICKS: usize = 4096;
/// How often the writer wakes to take ticks and write the steps that are due.
const WAKE_EVERY: Duration = Duration::from_millis(250);
/// How often steps older than their report's retention are deleted.
const PRUNE_EVERY: Duration = Duration::from_secs(60);
/// Rows whose keys are resolved under one hold of the dictionary's read lock.
const RESOLVE_CHUNK: usize = 512;
/// How long after a step's last tick ended the writer waits for it before writing the step
/// without a tick of a later step (an idle report), covering the merge rounds' delay.
const FLUSH_GRACE_MS: u64 = 2000;
/// How far in the future a report's written ticks may end at its registration before the clock
/// is taken to have gone back since they were written (and they are clamped to now): more than
/// any tick, so that a tick just written under a clock a little ahead is not taken for it.
const FUTURE_TOLERANCE_MS: u64 = 60_000;

/// What identifies a report's definition for its history: kind, keys, filters and the step
/// (`step_ms`, of its [`Spec`]). History written under another fingerprint is dropped at
/// registration: it would not mean the same (steps of another length read as this one's would
/// give rates off by their ratio, and be merged with this one's). `step_ms` is the last member,
/// as the store's upgrade from schema version 0 appends it to the fingerprints written then.
pub fn fingerprint(report: &Report, step_ms: u64) -> String {
    json!({
        "kind": report.kind(),
        "keys": report.keys(),
        "filters": report.def().filters,
        "step_ms": step_ms,
    })
    .to_string()
}

/// What the store registers `report` (named `name`) with, under its history settings `spec`.
fn report_info(name: &str, report: &Report, spec: &Spec) -> ReportInfo {
    ReportInfo {
        name: name.to_string(),
        fingerprint: fingerprint(report, spec.step_ms),
        kind: report.kind().as_str().to_string(),
        key_columns: report.key_columns().to_vec(),
        step_ms: spec.step_ms,
        retention_ms: spec.retention_ms,
    }
}

/// A closed tick on its way to the writer.
struct Handed {
    cell: Arc<ReportCell>,
    tick: Arc<ClosedTick>,
    /// The tick's span in unix milliseconds.
    start_ms: u64,
    end_ms: u64,
}

/// The history's shared state (built by `app`, handed to the merger as its [`TickTap`], to the
/// writer thread and to the API): the inbox the merge threads hand ticks to, the
/// reports dropped meanwhile, and the figures of `/api/v1/status`.
pub struct History {
    enabled: bool,
    /// `{state_dir}/history.sqlite`.
    pub path: PathBuf,
    /// Filled by the merge threads (never blocking: full → dropped, counted), drained by the
    /// writer. Lock-free and bounded: the merge threads never wait on history.
    /// Ticks as closed; the writer dates them with the clock it reads then (a restored snapshot
    /// resumes an earlier epoch after this was built, so no epoch is kept here).
    inbox: ArrayQueue<(Arc<ReportCell>, Arc<ClosedTick>)>,
    /// Reports dropped through the API, whose history the writer deletes. Pushed by the API,
    /// taken by the writer; a mutex, because a drop is rare and must not be lost.
    forgotten: Mutex<Vec<String>>,
    /// Whether the writer runs (the store is open): ticks handed over otherwise are discarded.
    running: AtomicBool,
    /// The writer's stop: held while the snapshot is written, then its last pass by a deadline
    /// (see [`History::hold`], [`WriterHandle::request_stop`]).
    stop: StopGate,
    /// Why the store could not be opened, if it could not.
    error: Mutex<Option<String>>,
    /// The store's file, when start-up found it damaged and set it aside (set once, by
    /// [`start`]; read by the status's `state_files`).
    set_aside: std::sync::OnceLock<crate::durable::SetAside>,
    bytes: AtomicU64,
    rows: AtomicU64,
    /// Unix seconds of the oldest step stored; `i64::MIN` when none.
    oldest: AtomicI64,
    written_steps: AtomicU64,
    write_errors: AtomicU64,
    dropped_ticks: AtomicU64,
    /// Steps summed but not written: the stop's deadline came first.
    dropped_steps: AtomicU64,
    open_errors: AtomicU64,
    /// Times the store, which would not open at start, was opened by the writer's retries.
    reopened: AtomicU64,
    /// Stored rows that queries could not read back and left out (see `query::Answer`).
    damaged_rows_read: AtomicU64,
    /// What the writer holds (bytes), as told to the memory budget.
    memory_bytes: AtomicU64,
    /// Tick rows summed into their step's "(other)" row because the memory budget was tight.
    rows_refused: AtomicU64,
    /// Ticks handed over and not yet summed into their steps (in the inbox, or being summed):
    /// how far the writer is behind the reports.
    pending_ticks: AtomicU64,
}

impl History {
    pub fn new(config: &crate::config::Config) -> History {
        History {
            enabled: config.history.enabled,
            path: config.state_dir.join(store::FILE),
            inbox: ArrayQueue::new(INBOX_TICKS),
            forgotten: Mutex::new(Vec::new()),
            running: AtomicBool::new(false),
            stop: StopGate::default(),
            error: Mutex::new(None),
            set_aside: std::sync::OnceLock::new(),
            bytes: AtomicU64::new(0),
            rows: AtomicU64::new(0),
            oldest: AtomicI64::new(i64::MIN),
            written_steps: AtomicU64::new(0),
            write_errors: AtomicU64::new(0),
            dropped_ticks: AtomicU64::new(0),
            dropped_steps: AtomicU64::new(0),
            open_errors: AtomicU64::new(0),
            reopened: AtomicU64::new(0),
            damaged_rows_read: AtomicU64::new(0),
            memory_bytes: AtomicU64::new(0),
            rows_refused: AtomicU64::new(0),
            pending_ticks: AtomicU64::new(0),
        }
    }

    /// Whether history is switched on (`history.enabled`).
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The store's file, when start-up found it damaged and set it aside.
    pub fn set_aside(&self) -> Option<&crate::durable::SetAside> {
        self.set_aside.get()
    }

    /// Why the store is not available (opening it failed), if it is not.
    pub fn unavailable(&self) -> Option<String> {
        if !self.enabled {
            return Some("history is switched off (history.enabled = false)".into());
        }
        self.error.lock().clone()
    }

    /// At shutdown, once nothing merges any more, when no snapshot will carry the reports'
    /// open ticks over to the next run: each report keeping history closes its open tick as it
    /// is (family stages drained into their members first) and hands it over with the ticks
    /// still waiting, so that the last seconds before a stop reach history too. With a
    /// snapshot, the open tick is restored and reaches history when it closes.
    pub fn hand_open_ticks(&self, shared: &Core) {
        if !self.running.load(Relaxed) {
            return;
        }
        let cells = shared.reports().owners();
        for cell in &cells {
            cell.fold_parts();
            if let Some(f) = cell.family() {
                f.drain();
            }
        }
        let now_ms = shared.clock().now_ms64();
        for cell in &cells {
            let taken = {
                let mut r = cell.report.write();
                r.close_at_shutdown(now_ms);
                let taken = r.take_closed_ticks();
                cell.publish(&r);
                taken
            };
            self.hand_over_table(cell, taken);
        }
    }

    /// At the start of a stop, before the snapshot is written: the writer waits at its next
    /// checkpoint (within a chunk of rows) until [`WriterHandle::request_stop`], so that the
    /// snapshot, written first, has the cores. Nothing it holds is lost meanwhile.
    pub fn hold(&self) {
        self.stop.hold();
    }

    /// Where the writer's long loops look up (every tick, step or chunk of rows): waits while
    /// held, and says to give up once the stop's deadline has passed.
    fn checkpoint(&self) -> Result<(), GaveUp> {
        self.stop.checkpoint()
    }

    /// Counts stored rows a query left out because they cannot be read back.
    pub fn count_damaged_rows_read(&self, rows: u64) {
        self.damaged_rows_read.fetch_add(rows, Relaxed);
    }

    /// A report was dropped through the API: its history goes too.
    pub fn forget(&self, name: &str) {
        if self.running.load(Relaxed) {
            self.forgotten.lock().push(name.to_string());
        }
    }

    /// `history` of `/api/v1/status` (and the `pinbad_history_*` series of `/metrics`).
    pub fn status(&self) -> Value {
        let oldest = self.oldest.load(Relaxed);
        json!({
            "enabled": self.enabled,
            "available": self.running.load(Relaxed),
            "error": self.error.lock().clone(),
            "bytes": self.bytes.load(Relaxed),
            "rows": self.rows.load(Relaxed),
            "oldest": (oldest != i64::MIN).then_some(oldest),
            "written_steps": self.written_steps.load(Relaxed),
            "write_errors": self.write_errors.load(Relaxed),
            "dropped_ticks": self.dropped_ticks.load(Relaxed),
            "dropped_steps": self.dropped_steps.load(Relaxed),
            "open_errors": self.open_errors.load(Relaxed),
            "reopened": self.reopened.load(Relaxed),
            "damaged_rows_read": self.damaged_rows_read.load(Relaxed),
            "memory_bytes": self.memory_bytes.load(Relaxed),
            "rows_refused": self.rows_refused.load(Relaxed),
            "pending_ticks": self.pending_ticks.load(Relaxed),
        })
    }
}

/// The merge threads hand closed ticks to the writer's inbox. Never blocks: a full inbox drops
/// the tick and counts it.
impl crate::tap::TickTap for History {
    fn hand_over(&self, cell: &Arc<ReportCell>, (ticks, dropped): (Vec<Arc<ClosedTick>>, u64)) {
        if (ticks.is_empty() && dropped == 0) || !self.enabled {
            return;
        }
        // With the tick log on, every report hands its ticks over: those of a report without
        // history are not history's.
        if !matches!(Spec::of_report(&cell.report.read()), Ok(Some(_))) {
            return;
        }
        if !self.running.load(Relaxed) {
            // The store would not open and is being tried again: these ticks miss it.
            self.dropped_ticks
                .fetch_add(ticks.len() as u64 + dropped, Relaxed);
            return;
        }
        if dropped > 0 {
            self.dropped_ticks.fetch_add(dropped, Relaxed);
        }
        for tick in ticks {
            // Counted before the push: the writer may take the tick at once.
            self.pending_ticks.fetch_add(1, Relaxed);
            if self.inbox.push((Arc::clone(cell), tick)).is_err() {
                self.pending_ticks.fetch_sub(1, Relaxed);
                self.dropped_ticks.fetch_add(1, Relaxed);
            }
        }
    }
}

/// The writer's long work stopped: the stop's deadline passed (see [`History::checkpoint`]).
use crate::shutdown::Late as GaveUp;

/// The writer thread, once started; [`WriterHandle::request_stop`] and
/// [`WriterHandle::wait`] end it after a last pass.
pub struct WriterHandle {
    thread: std::thread::JoinHandle<()>,
}

impl WriterHandle {
    /// Asks for the last pass, to be done by `deadline` (call once the merger has stopped:
    /// everything it handed over and every report's waiting ticks are written). What is not
    /// written by then is dropped, counted (`dropped_steps`, `dropped_ticks`) and logged. Returns
    /// at once.
    pub fn request_stop(&self, history: &History, deadline: Instant) {
        history.stop.request(deadline);
        self.thread.thread().unpark();
    }

    /// Waits for the writer to end, at most until `until`: `false` when it had not (it is left
    /// to end with the process; its open transaction, if any, is rolled back by SQLite).
    pub fn wait(self, until: Instant) -> bool {
        crate::shutdown::join_until(self.thread, until)
    }
}

/// Opens the store and starts "pinbad-history" (before the merger, so that no tick is missed).
/// A damaged or empty store is set aside and replaced by a new one. `None` when history is off.
/// A store that cannot be opened even so (a full disk, a directory in its place, a read-only
/// directory) is logged once and shown in `/api/v1/status`, and the thread opens it again with a
/// back-off ([`crate::shutdown::Reopen`]): the daemon never fails for it, and history comes back
/// by itself once the disk has room (`history.reopened`). The ticks closed meanwhile are not in
/// it (`history.dropped_ticks`).
pub fn start(shared: &Arc<Core>, h: &Arc<History>) -> std::io::Result<Option<WriterHandle>> {
    if !h.enabled {
        return Ok(None);
    }
    let writer = Writer::open(shared, h);
    if writer.is_none() {
        h.open_errors.fetch_add(1, Relaxed);
        tracing::error!(path = %h.path.display(), error = h.error.lock().as_deref().unwrap_or(""), "Cannot open the history store: running without history, tried again every {} s at most until it opens", crate::shutdown::Reopen::MAX.as_secs());
    }
    let (shared, h) = (Arc::clone(shared), Arc::clone(h));
    let thread = std::thread::Builder::new()
        .name("pinbad-history".into())
        .spawn(move || {
            let writer = writer.or_else(|| {
                let writer =
                    crate::shutdown::Reopen::until_open(&h.stop, || Writer::open(&shared, &h))?;
                h.reopened.fetch_add(1, Relaxed);
                tracing::info!(path = %h.path.display(), "History store opened: history is back");
                Some(writer)
            });
            if let Some(writer) = writer {
                writer.run();
            }
        })?;
    Ok(Some(WriterHandle { thread }))
}

/// A report the writer knows: its resolutions (where their steps go and the steps being
/// summed) and the names of its key ids.
struct Tracked {
    cell: Arc<ReportCell>,
    keys: KeyTexts,
    keyless: bool,
    window: Window,
    /// The report's own steps (`history_step`), then its fine steps when it keeps them (see
    /// [`fine_spec`]).
    tiers: Vec<Tier>,
    /// Names of the key ids seen lately, with the start of the latest tick holding them (see
    /// [`Writer::name_rows`]): a tick's rows are summed by ids, each key named once, not once
    /// per row and tick.
    names: FxHashMap<Box<[u32]>, (Key, u64)>,
    /// Heap bytes of `names`' ids and keys (see [`Tracked::bytes`]).
    names_heap: usize,
}

/// Bytes of a `names` entry's slot, and the heap of one (its ids and its key).
const NAME_SLOT: usize = std::mem::size_of::<(Box<[u32]>, (Key, u64))>();
fn name_heap(ids: &[u32], key: &Key) -> usize {
    ids.len() * 4 + key_bytes(key)
}

impl Tracked {
    /// Memory the writer holds for the report (bytes): the names, every open step.
    fn bytes(&self) -> usize {
        table_bytes(self.names.capacity(), NAME_SLOT)
            + self.names_heap
            + self
                .tiers
                .iter()
                .flat_map(|t| t.steps.values())
                .map(Pending::bytes)
                .sum::<usize>()
    }
}

/// One resolution of a report's history: its line in the store (the report's name, or
/// [`fine_name`] of it), its step and rows, and the steps being summed.
struct Tier {
    id: i64,
    step_ms: u64,
    rows: usize,
    /// End (unix ms) of the latest tick written or accepted: a tick starting before it was
    /// counted already (handed over again, e.g. by a restored window) and is skipped.
    until_ms: u64,
    /// Start (unix ms) of the latest tick accepted: steps ending before it are complete.
    newest_start_ms: u64,
    /// The steps being summed, by start (unix ms).
    steps: BTreeMap<u64, Pending>,
}

/// The store's name of a report's fine steps: the report's name and a suffix no report name can
/// have (`#` is not allowed in one).
pub fn fine_name(name: &str) -> String {
    format!("{name}#fine")
}

/// The fine steps a report of history `spec` and window `window` keeps besides its own under
/// `[history]` (`config`): `fine_step` long, when that is shorter than the report's step and
/// divides it, and the report's tick divides it; kept `fine_retention` (at most the report's),
/// `fine_rows` rows a step (at most the report's). `None`: it keeps none.
pub fn fine_spec(
    spec: &Spec,
    window: Window,
    config: &crate::config::HistoryConfig,
) -> Option<Spec> {
    let step_ms = config.fine_step.0.as_millis() as u64;
    let divides = |a: u64, b: u64| a > 0 && b.is_multiple_of(a);
    if step_ms == 0
        || step_ms >= spec.step_ms
        || !divides(step_ms, spec.step_ms)
        || !divides(window.tick_ms, step_ms)
    {
        return None;
    }
    Some(Spec {
        retention_ms: (config.fine_retention.0.as_millis() as u64).min(spec.retention_ms),
        step_ms,
        rows: config.fine_rows.min(spec.rows),
    })
}

/// A step being summed: rows by key ids (named when written), and rows already named (whose
/// ids came to name another string meanwhile).
#[derive(Default)]
struct Pending {
    by_ids: FxHashMap<Box<[u32]>, Part>,
    /// Heap bytes of `by_ids`' ids and histograms.
    heap: usize,
    named: Step,
}

/// Bytes of a pending step's row slot.
const PENDING_SLOT: usize = std::mem::size_of::<(Box<[u32]>, Part)>();

impl Pending {
    /// Memory the step holds (bytes): its rows by ids, and those named already.
    fn bytes(&self) -> usize {
        table_bytes(self.by_ids.capacity(), PENDING_SLOT) + self.heap + self.named.bytes()
    }

    /// The step with every row named (looking at `h`'s checkpoint as it goes).
    fn named_by(
        self,
        names: &FxHashMap<Box<[u32]>, (Key, u64)>,
        h: &History,
    ) -> Result<Step, GaveUp> {
        let mut step = self.named;
        for (i, (ids, p)) in self.by_ids.into_iter().enumerate() {
            if i % CHECK_EVERY_ROWS == CHECK_EVERY_ROWS - 1 {
                h.checkpoint()?;
            }
            let Some((name, _)) = names.get(&ids) else {
                debug_assert!(false, "a pending row's ids are named");
                continue;
            };
            step.add_row(name.clone(), &p.sums, &p.hist);
        }
        Ok(step)
    }

    /// The row of `ids` leaves the ids' map under `name` (its ids are about to name another
    /// string).
    fn settle(&mut self, ids: &[u32], name: &Key) {
        if let Some(p) = self.by_ids.remove(ids) {
            self.heap = self
                .heap
                .saturating_sub(ids.len() * 4 + p.hist.heap_bytes());
            self.named.add_row(name.clone(), &p.sums, &p.hist);
        }
    }
}

/// Names the key ids of a tick's rows in `t.names`: ids not named yet, or not seen for a window's
/// length, are named from the dictionary (its read lock taken per chunk of rows, so that the
/// merger, which interns under the write lock every round, never waits long for a large tick).
///
/// Why a name can be kept: the dictionary frees an id only once unused for longer than the
/// longest window (and a margin), so ids seen in a tick starting at S name the same string in
/// every tick starting before S + window (`seen` moves on with each tick holding them). Ids
/// named again to another string (freed and reused) first settle what the pending steps hold
/// under the old name.
///
/// While the memory budget is `tight` (told the names' growth through `meter` at each chunk),
/// only the rows that will be summed under their key (those of keys their steps hold already,
/// see [`sum_tick`]) are named.
fn name_rows(
    t: &mut Tracked,
    m: &Handed,
    dictionary: &parking_lot::RwLock<crate::dictionary::Dictionary>,
    h: &History,
    tight: &mut bool,
    meter: &mut Meter<'_>,
) -> Result<(), GaveUp> {
    let history_ms = t.window.history_ms;
    let Tracked { names, tiers, .. } = &mut *t;
    let stale: Vec<&[u32]> = m
        .tick
        .rows()
        .map(|(ids, _, _)| ids)
        .filter(|ids| match names.get_mut(*ids) {
            Some((_, seen)) if m.start_ms < *seen + history_ms => {
                *seen = (*seen).max(m.start_ms);
                false
            }
            _ => !*tight || tiers.iter().any(|tier| tier.holds(m.start_ms, ids)),
        })
        .collect();
    for chunk in stale.chunks(RESOLVE_CHUNK) {
        h.checkpoint()?;
        *tight = meter(t.bytes());
        let held: Vec<&[u32]>;
        let chunk = if *tight {
            held = chunk
                .iter()
                .copied()
                .filter(|ids| t.tiers.iter().any(|tier| tier.holds(m.start_ms, ids)))
                .collect();
            &held[..]
        } else {
            chunk
        };
        let fresh: Vec<Key> = {
            let dict = dictionary.read();
            chunk.iter().map(|ids| t.keys.render(ids, &dict)).collect()
        };
        for (ids, name) in chunk.iter().zip(fresh) {
            if let Some((old, _)) = t.names.get(*ids) {
                if *old != name {
                    let old = old.clone();
                    for p in t.tiers.iter_mut().flat_map(|tier| tier.steps.values_mut()) {
                        p.settle(ids, &old);
                    }
                }
            }
            t.names_heap += name_heap(ids, &name);
            if let Some((old, _)) = t.names.insert((*ids).into(), (name, m.start_ms)) {
                t.names_heap = t.names_heap.saturating_sub(name_heap(ids, &old));
            }
        }
    }
    Ok(())
}

/// The writer's state (on "pinbad-history").
struct Writer {
    shared: Arc<Core>,
    history: Arc<History>,
    store: Store,
    /// By report name.
    tracked: HashMap<String, Tracked>,
    rows: i64,
    last_prune: Instant,
    /// What the writer holds, against the memory budget (see [`Writer::settle_memory`]).
    account: Arc<Account>,
}

impl Writer {
    /// Opens the store (a damaged one set aside), checks every report's definition against its
    /// history (a changed one's steps dropped), deletes the steps past retention, and marks
    /// history available. `None` when the store cannot be opened: the error is kept for the
    /// status (`history.error`).
    fn open(shared: &Arc<Core>, h: &Arc<History>) -> Option<Writer> {
        let (store, aside) = Store::open_or_set_aside(&h.path);
        if let Some(aside) = aside {
            let _ = h.set_aside.set(aside);
        }
        let store = match store {
            Ok(s) => s,
            Err(e) => {
                *h.error.lock() = Some(format!("{}: {e}", h.path.display()));
                return None;
            }
        };
        let mut writer = Writer {
            shared: Arc::clone(shared),
            history: Arc::clone(h),
            store,
            tracked: HashMap::new(),
            rows: 0,
            last_prune: Instant::now(),
            account: Arc::new(Account::new(Arc::clone(shared.budget()))),
        };
        writer.rows = match writer.store.count_rows() {
            Ok(n) => n as i64,
            Err(e) => {
                tracing::warn!(error = %e, "Cannot count the history store's rows");
                0
            }
        };
        for cell in shared.reports().snapshot() {
            writer.track(&cell);
        }
        writer.prune();
        writer.publish();
        tracing::info!(path = %h.path.display(), rows = writer.rows, "History store");
        *h.error.lock() = None;
        h.running.store(true, Relaxed);
        Some(writer)
    }

    fn run(mut self) {
        let h = Arc::clone(&self.history);
        if self.work(&h).is_err() {
            self.give_up();
        }
        // The process ends next: the names and steps held (millions of rows after a flood of
        // unique names) are left to it rather than freed one allocation at a time, which took
        // seconds of the stop's bound.
        std::mem::forget(std::mem::take(&mut self.tracked));
    }

    /// The writer's passes until the stop, then its last one.
    fn work(&mut self, h: &History) -> Result<(), GaveUp> {
        while !h.stop.stopping() {
            std::thread::park_timeout(WAKE_EVERY);
            self.pass(false)?;
        }
        // The merger has stopped: the ticks still in the reports' outboxes (family members
        // closed by the last round), then every step accumulated, partial ones too.
        for cell in self.shared.reports().owners() {
            h.checkpoint()?;
            h.collect(&cell);
        }
        self.pass(true)
    }

    /// The stop's deadline came before the last pass ended: what is still held is dropped,
    /// counted and said once.
    fn give_up(&mut self) {
        let h = &self.history;
        let steps: u64 = self
            .tracked
            .values()
            .flat_map(|t| &t.tiers)
            .map(|tier| tier.steps.len() as u64)
            .sum();
        let mut ticks = 0u64;
        while h.inbox.pop().is_some() {
            ticks += 1;
        }
        h.pending_ticks.store(0, Relaxed);
        h.dropped_steps.fetch_add(steps, Relaxed);
        h.dropped_ticks.fetch_add(ticks, Relaxed);
        let steps = h.dropped_steps.load(Relaxed);
        tracing::warn!(
            steps,
            ticks,
            "History: the stop's deadline came before everything was written; the rest is \
             dropped (history.dropped_steps, history.dropped_ticks)"
        );
    }

    /// Deletes what was dropped, takes the inbox, writes the steps that are due (all of them
    /// when `all`), prunes every [`PRUNE_EVERY`].
    fn pass(&mut self, all: bool) -> Result<(), GaveUp> {
        let shared = Arc::clone(&self.shared);
        let h = Arc::clone(&self.history);
        let forgotten = std::mem::take(&mut *h.forgotten.lock());
        for name in forgotten {
            self.tracked.remove(&name);
            for line in [name.clone(), fine_name(&name)] {
                match self.store.delete_report(&line) {
                    Ok(n) => self.rows -= n as i64,
                    Err(e) => self.write_failed(
                        &e,
                        "delete a dropped report's history",
                        Some(&name),
                        None,
                    ),
                }
            }
        }
        let clock = &shared.clock();
        let now_ms = clock.unix_ms64(clock.now_ms64());
        while let Some((cell, tick)) = {
            h.checkpoint()?;
            h.inbox.pop()
        } {
            let w = cell.window();
            let end = w.tick_start(tick.index() + 1);
            let m = Handed {
                start_ms: clock.unix_ms64(w.tick_start(tick.index())),
                end_ms: clock.unix_ms64(tick.cut_at_ms().map_or(end, |cut| cut.min(end))),
                cell,
                tick,
            };
            let taken = self.take(m, now_ms);
            h.pending_ticks.fetch_sub(1, Relaxed);
            taken?;
            self.settle_memory(0);
        }
        let wrote = self.flush(now_ms, all)?;
        self.settle_memory(0);
        h.checkpoint()?;
        if all || self.last_prune.elapsed() >= PRUNE_EVERY {
            self.prune();
        } else if wrote {
            self.publish();
        }
        Ok(())
    }

    /// The report's tracking, registering it (again, when the cell is new under the name).
    fn track(&mut self, cell: &Arc<ReportCell>) -> Option<&mut Tracked> {
        let known = self
            .tracked
            .get(cell.name())
            .is_some_and(|t| Arc::ptr_eq(&t.cell, cell));
        if !known {
            let (infos, keys, keyless, window) = {
                let r = cell.report.read();
                let spec = Spec::of_report(&r).ok().flatten()?;
                let mut infos = vec![(report_info(cell.name(), &r, &spec), spec)];
                let fine = fine_spec(&spec, r.window(), &self.shared.config().history);
                if let Some(fine) = fine {
                    infos.push((report_info(&fine_name(cell.name()), &r, &fine), fine));
                }
                (infos, r.key_texts(), r.keys().is_empty(), r.window())
            };
            let mut tiers = Vec::with_capacity(infos.len());
            for (info, spec) in infos {
                let Some(id_until) = self.register(&info) else {
                    // Without its own steps a report has no history; without the fine ones,
                    // only its own.
                    if tiers.is_empty() {
                        return None;
                    }
                    continue;
                };
                tiers.push(Tier {
                    id: id_until.0,
                    step_ms: spec.step_ms,
                    rows: spec.rows,
                    until_ms: id_until.1,
                    newest_start_ms: 0,
                    steps: BTreeMap::new(),
                });
            }
            self.tracked.insert(
                cell.name().to_string(),
                Tracked {
                    cell: Arc::clone(cell),
                    keys,
                    keyless,
                    window,
                    tiers,
                    names: FxHashMap::default(),
                    names_heap: 0,
                },
            );
        }
        self.tracked.get_mut(cell.name())
    }

    /// Registers one resolution of a report in the store; returns its line's id and where its
    /// written ticks end (`None`: the store failed, logged and counted).
    fn register(&mut self, info: &ReportInfo) -> Option<(i64, u64)> {
        let mut reg = match self.store.register(info) {
            Ok(reg) => reg,
            Err(e) => {
                self.write_failed(&e, "register a report", Some(&info.name), None);
                return None;
            }
        };
        if reg.dropped_rows > 0 {
            tracing::info!(report = %info.name, rows = reg.dropped_rows, "The report's definition (kind, keys, filters or history_step) changed: its history was dropped, a new one starts");
            self.rows -= reg.dropped_rows as i64;
        }
        // Ticks written under a clock since gone back end in the future: every tick until
        // then would be taken for one already written and skipped.
        let clock = &self.shared.clock();
        let now_ms = clock.unix_ms64(clock.now_ms64());
        if reg.written_until_ms > now_ms.saturating_add(FUTURE_TOLERANCE_MS) {
            tracing::warn!(report = %info.name, written_until_ms = reg.written_until_ms, now_ms, "The report's history was written up to a time in the future (the clock went back?): taken as written up to now, so that new ticks are not skipped");
            if let Err(e) = self.store.set_written_until(reg.id, now_ms) {
                self.write_failed(
                    &e,
                    "set where a report's history ends",
                    Some(&info.name),
                    None,
                );
            }
            reg.written_until_ms = now_ms;
        }
        Some((reg.id, reg.written_until_ms))
    }

    /// Sums a tick into its report's step. Its key ids are resolved now (under the dictionary's
    /// read lock, one tick at a time): they name the same strings while the tick is in its
    /// report's window, so a tick older than that is dropped (counted) rather than mislabelled.
    fn take(&mut self, m: Handed, now_ms: u64) -> Result<(), GaveUp> {
        let shared = Arc::clone(&self.shared);
        let h = Arc::clone(&self.history);
        let account = Arc::clone(&self.account);
        let live = shared
            .reports()
            .get(m.cell.name())
            .is_some_and(|c| Arc::ptr_eq(&c, &m.cell));
        if !live {
            return Ok(()); // dropped meanwhile
        }
        let Some(t) = self.track(&m.cell) else {
            return Ok(());
        };
        if now_ms.saturating_sub(m.end_ms) > t.window.history_ms {
            h.dropped_ticks.fetch_add(1, Relaxed);
            return Ok(());
        }
        if t.tiers.iter().all(|tier| m.start_ms < tier.until_ms) {
            tracing::debug!(report = %m.cell.name(), start_ms = m.start_ms, "Tick already in history, skipped");
            return Ok(());
        }
        // What the other reports' tracking holds stays as last settled; this one's is told as
        // it grows.
        let others = account.accounted().saturating_sub(t.bytes() as u64);
        let mut meter = |held: usize| {
            account.settle(others + held as u64);
            account.budget().judge()
        };
        sum_tick(t, &m, shared.dictionary(), &h, &mut meter)
    }

    /// Tells the memory budget what the writer holds: every report's names and open steps, and
    /// `batch` bytes of steps being written; then judges the budget (a tick of a flood can add
    /// much between two merge rounds).
    fn settle_memory(&self, batch: usize) {
        let bytes = self.tracked.values().map(Tracked::bytes).sum::<usize>() + batch;
        self.account.settle(bytes as u64);
        self.history.memory_bytes.store(bytes as u64, Relaxed);
        self.account.budget().judge();
    }
}

impl Tier {
    /// Whether this resolution sums a tick starting at `start_ms` (it has not counted it yet)
    /// into a step that holds `ids` already.
    fn holds(&self, start_ms: u64, ids: &[u32]) -> bool {
        start_ms >= self.until_ms
            && self
                .steps
                .get(&(start_ms / self.step_ms * self.step_ms))
                .is_some_and(|p| p.by_ids.contains_key(ids))
    }
}

/// Tells the memory budget what a report's tracking holds now (bytes) while a tick is summed
/// into it, and says whether the budget is tight (see [`Writer::take`]).
type Meter<'a> = dyn FnMut(usize) -> bool + 'a;

/// Sums a tick into its step of `t` (see [`Writer::take`] for what is checked before). The
/// tracking's growth is told to the budget through `meter` every [`CHECK_EVERY_ROWS`] rows
/// (and chunk of names); while the budget is tight, a row whose key the step does not hold goes
/// to the step's "(other)" row (counted in `rows_refused`), and so does one whose key was left
/// unnamed for it.
fn sum_tick(
    t: &mut Tracked,
    m: &Handed,
    dictionary: &parking_lot::RwLock<crate::dictionary::Dictionary>,
    h: &History,
    meter: &mut Meter<'_>,
) -> Result<(), GaveUp> {
    let mut tight = meter(t.bytes());
    if !t.keyless {
        name_rows(t, m, dictionary, h, &mut tight, meter)?;
    }
    let (sums, hist) = m.tick.totals();
    // Each resolution that has not counted the tick yet, and the start of its step.
    let mut steps = Vec::with_capacity(t.tiers.len());
    for (i, tier) in t.tiers.iter_mut().enumerate() {
        if m.start_ms < tier.until_ms {
            continue;
        }
        tier.until_ms = m.end_ms;
        tier.newest_start_ms = tier.newest_start_ms.max(m.start_ms);
        let step_start = m.start_ms / tier.step_ms * tier.step_ms;
        let step = tier.steps.entry(step_start).or_default();
        step.named.add_totals(sums, hist);
        step.named.ticks_end_ms = step.named.ticks_end_ms.max(m.end_ms);
        steps.push((i, step_start));
    }
    if t.keyless {
        return Ok(());
    }
    let mut refused = 0u64;
    for (n, (ids, sums, hist)) in m.tick.rows().enumerate() {
        if n % CHECK_EVERY_ROWS == CHECK_EVERY_ROWS - 1 {
            h.checkpoint()?;
            tight = meter(t.bytes());
        }
        // Named for this tick (see `name_rows`), so that a row made now is named when written.
        let named = t
            .names
            .get(ids)
            .is_some_and(|(_, seen)| *seen >= m.start_ms);
        for &(i, start) in &steps {
            let Some(step) = t.tiers[i].steps.get_mut(&start) else {
                continue;
            };
            match step.by_ids.get_mut(ids) {
                Some(p) => {
                    let before = p.hist.heap_bytes();
                    p.add(&sums, hist);
                    step.heap += p.hist.heap_bytes().saturating_sub(before);
                }
                None if tight || !named => {
                    step.named.add_other(&sums, hist);
                    refused += 1;
                }
                None => {
                    let mut p = Part::default();
                    p.add(&sums, hist);
                    step.heap += ids.len() * 4 + p.hist.heap_bytes();
                    step.by_ids.insert(ids.into(), p);
                }
            }
        }
    }
    if refused > 0 {
        h.rows_refused.fetch_add(refused, Relaxed);
    }
    Ok(())
}

/// Rows the writer's loops go through between two looks at [`History::checkpoint`].
const CHECK_EVERY_ROWS: usize = 4096;

impl Writer {
    /// Writes the steps that are complete (a tick of a later step arrived, or the step ended a
    /// tick and a grace ago), or all when `all`, in one transaction. Returns whether it wrote.
    fn flush(&mut self, now_ms: u64, all: bool) -> Result<bool, GaveUp> {
        let h = Arc::clone(&self.history);
        let mut batch = Vec::new();
        for t in self.tracked.values_mut() {
            let Tracked {
                tiers,
                names,
                names_heap,
                window,
                ..
            } = t;
            let tick_ms = window.tick_ms;
            for tier in tiers.iter_mut() {
                let step_ms = tier.step_ms;
                while let Some(entry) = tier.steps.first_entry() {
                    let end = *entry.key() + step_ms;
                    if !(all
                        || end <= tier.newest_start_ms
                        || end + tick_ms + FLUSH_GRACE_MS <= now_ms)
                    {
                        break;
                    }
                    let (start, pending) = entry.remove_entry();
                    // Given up: the steps taken for this batch are dropped with the rest.
                    let named = h.checkpoint().and_then(|()| pending.named_by(names, &h));
                    let Ok(step) = named else {
                        h.dropped_steps.fetch_add(batch.len() as u64 + 1, Relaxed);
                        return Err(GaveUp);
                    };
                    if !step.is_empty() {
                        batch.push((tier.id, (start / 1000) as i64, step, tier.rows));
                    }
                }
            }
            // Names no pending step needs and too old to be used again go.
            let first_pending = tiers
                .iter()
                .filter_map(|tier| tier.steps.keys().next().copied())
                .min()
                .unwrap_or(u64::MAX);
            let newest = tiers
                .iter()
                .map(|tier| tier.newest_start_ms)
                .max()
                .unwrap_or(0);
            let keep_from = first_pending.min(newest.saturating_sub(window.history_ms));
            names.retain(|ids, (name, seen)| {
                let keep = *seen >= keep_from;
                if !keep {
                    *names_heap = names_heap.saturating_sub(name_heap(ids, name));
                }
                keep
            });
        }
        if batch.is_empty() {
            return Ok(false);
        }
        let n = batch.len() as u64;
        // The steps being written hold their rows named (each key's strings copied).
        self.settle_memory(batch.iter().map(|s| s.2.bytes()).sum());
        if h.checkpoint().is_err() {
            h.dropped_steps.fetch_add(n, Relaxed);
            return Err(GaveUp);
        }
        // What the batch holds, for the log should it fail: which reports' steps are lost.
        let ids: std::collections::BTreeSet<i64> = batch.iter().map(|s| s.0).collect();
        let (first_t, last_t) = batch.iter().fold((i64::MAX, i64::MIN), |(lo, hi), s| {
            (lo.min(s.1), hi.max(s.1))
        });
        match self.store.write(batch) {
            Ok(written) => {
                self.rows += written.delta;
                let h = &self.history;
                h.written_steps.fetch_add(n, Relaxed);
                // A damaged stored step, replaced (logged by the store): what it held is lost.
                h.write_errors.fetch_add(written.damaged, Relaxed);
            }
            Err(e) => {
                let names: Vec<&str> = self
                    .tracked
                    .iter()
                    .filter(|(_, t)| t.tiers.iter().any(|tier| ids.contains(&tier.id)))
                    .map(|(name, _)| name.as_str())
                    .collect();
                let t = if first_t == last_t {
                    first_t.to_string()
                } else {
                    format!("{first_t}..={last_t}")
                };
                self.write_failed(&e, "write steps", Some(&names.join(", ")), Some(&t));
            }
        }
        Ok(true)
    }

    fn prune(&mut self) {
        self.last_prune = Instant::now();
        let now_ms = self
            .shared
            .clock()
            .unix_ms64(self.shared.clock().now_ms64());
        match self.store.prune(now_ms) {
            Ok(n) => self.rows -= n as i64,
            Err(e) => self.write_failed(&e, "prune", None, None),
        }
        self.publish();
    }

    /// Copies the store's figures out for `/api/v1/status`.
    fn publish(&self) {
        let h = &self.history;
        h.rows.store(self.rows.max(0) as u64, Relaxed);
        h.bytes.store(self.store.bytes(), Relaxed);
        if let Ok(oldest) = self.store.oldest() {
            h.oldest.store(oldest.unwrap_or(i64::MIN), Relaxed);
        }
    }

    /// A failed write: logged (with the report or reports, and the steps' `t`, unix seconds,
    /// when known) and counted in one place; the writer goes on.
    fn write_failed(
        &self,
        e: &store::StoreError,
        what: &str,
        report: Option<&str>,
        t: Option<&str>,
    ) {
        self.history.write_errors.fetch_add(1, Relaxed);
        tracing::error!(error = %e, report, t, path = %self.history.path.display(), "History store: cannot {what}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dictionary::Dictionary;
    use crate::record::{Record, RequestView};
    use crate::report::ReportDef;
    use crate::report::ReportSet;

    /// The step is part of what a history means: a report whose `history_step` changed starts a
    /// new history (its steps of the old length dropped at registration), and a file of before
    /// the fingerprint held the step is upgraded to the very fingerprint of an unchanged report.
    #[test]
    fn a_changed_step_starts_a_new_history() {
        let mut dict = Dictionary::new(100);
        let mut report_with = |step: &str| {
            let def = ReportDef {
                history_retention: Some("1d".parse().unwrap()),
                history_step: Some(step.parse().unwrap()),
                ..ReportDef::new("r", &["script_name"])
            };
            let r = Report::new(def, &mut dict, 1000).unwrap().with_window(
                Duration::from_secs(60),
                4,
                0,
            );
            let spec = Spec::of_report(&r).unwrap().unwrap();
            let info = report_info("r", &r, &spec);
            (r, info)
        };
        let (minute, minute_info) = report_with("1m");
        let (_, quarter_info) = report_with("15m");
        assert_ne!(minute_info.fingerprint, quarter_info.fingerprint);

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(store::FILE);
        let mut store = Store::open(&path).unwrap();
        let id = store.register(&quarter_info).unwrap().id;
        let mut step = Step::default();
        step.add_totals(
            &crate::report::Sums {
                req_count: 15,
                ..Default::default()
            },
            &crate::histogram::Histogram::new(),
        );
        step.ticks_end_ms = 900_000;
        store.write(vec![(id, 0, step, 10)]).unwrap();
        let reg = store.register(&minute_info).unwrap();
        assert_eq!(
            (reg.id, reg.dropped_rows, reg.written_until_ms),
            (id, 1, 0),
            "the 15-minute steps dropped, not read as 1-minute ones"
        );
        assert_eq!(store.count_rows().unwrap(), 0);

        // Schema version 0: the same report, its fingerprint without the step.
        let legacy = json!({
            "kind": minute.kind(),
            "keys": minute.keys(),
            "filters": minute.def().filters,
        })
        .to_string();
        store
            .register(&ReportInfo {
                fingerprint: legacy,
                ..minute_info.clone()
            })
            .unwrap();
        drop(store);
        rusqlite::Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", 0)
            .unwrap();
        drop(Store::open(&path).unwrap());
        let conn = Store::open_reader(&path).unwrap();
        let found = store::find_report(&conn, "r").unwrap().unwrap();
        assert_eq!(found.fingerprint, minute_info.fingerprint);
    }

    /// Ticks written under a clock since gone back (ending an hour ahead) are taken as written
    /// up to now at registration, in memory and in the store, so that the next ticks are not
    /// all skipped as already written.
    #[test]
    fn history_written_in_the_future_is_taken_as_written_up_to_now() {
        let state = tempfile::tempdir().unwrap();
        let config = crate::config::Config {
            state_dir: state.path().to_path_buf(),
            ..crate::config::Config::default()
        };
        let ring = Arc::new(crate::ring::Ring::new(1 << 20));
        let history = Arc::new(History::new(&config));
        let shared = Arc::new(Core::new(config, ring, vec![], 0).unwrap());
        let cell = shared.reports().get("info").expect("the built-in info");
        let info = {
            let r = cell.report.read();
            let spec = Spec::of_report(&r).unwrap().expect("info keeps history");
            report_info("info", &r, &spec)
        };
        let clock = &shared.clock();
        let now_ms = clock.unix_ms64(clock.now_ms64());
        let future = now_ms + 3_600_000;
        let mut store = Store::open(&history.path).unwrap();
        let id = store.register(&info).unwrap().id;
        store.set_written_until(id, future).unwrap();
        assert_eq!(store.register(&info).unwrap().written_until_ms, future);
        let mut writer = Writer {
            shared: Arc::clone(&shared),
            history,
            store,
            tracked: HashMap::new(),
            rows: 0,
            last_prune: Instant::now(),
            account: Arc::new(Account::new(crate::budget::Budget::unlimited())),
        };
        let until = writer.track(&cell).expect("tracked").tiers[0].until_ms;
        assert!(
            (now_ms..now_ms + FUTURE_TOLERANCE_MS).contains(&until),
            "{until} vs now {now_ms}"
        );
        let stored = writer.store.register(&info).unwrap().written_until_ms;
        assert_eq!(stored, until, "the store says so too");
    }

    /// A step left to its default follows the window (made the nearest whole-second multiple of
    /// the tick: a report saved at run time with the default step failed the start after
    /// `stats_history` changed to 7 minutes); a step the definition sets is held to it.
    #[test]
    fn a_default_step_follows_the_tick_and_a_set_one_is_held() {
        let def = |step: Option<&str>| ReportDef {
            history_retention: Some("1d".parse().unwrap()),
            history_step: step.map(|s| s.parse().unwrap()),
            ..ReportDef::new("r", &["script_name"])
        };
        // 7 minutes in 60 ticks: 7 s ticks; 1 minute is not a multiple, 63 s is.
        let window = Window::new(Duration::from_secs(420), 60);
        assert_eq!(
            Spec::of(&def(None), window).unwrap().unwrap().step_ms,
            63_000
        );
        let e = Spec::of(&def(Some("1m")), window).unwrap_err();
        assert!(e.to_string().contains("history_step"), "{e}");
        // The usual window: the default as it is.
        let window = Window::new(Duration::from_secs(900), 60);
        assert_eq!(
            Spec::of(&def(None), window).unwrap().unwrap().step_ms,
            60_000
        );
        // A 1.001 s tick: the first whole-second multiple, 1,001 s.
        let window = Window::new(Duration::from_millis(60_060), 60);
        assert_eq!(
            Spec::of(&def(None), window).unwrap().unwrap().step_ms,
            1_001_000
        );
    }

    fn view(r: &Record) -> RequestView<'_> {
        RequestView {
            id: 0,
            record: r,
            tag_block: &[],
            timers: &[],
        }
    }

    /// A report over script_name keeping 60 s steps of its 1 s ticks, made with `dict`, and
    /// the writer's tracking of it (one resolution, no names yet).
    fn script_report(
        mut dict: Dictionary,
    ) -> (Arc<ReportCell>, Tracked, parking_lot::RwLock<Dictionary>) {
        let def = ReportDef {
            history_retention: Some("1d".parse().unwrap()),
            history_step: Some("60s".parse().unwrap()),
            ..ReportDef::new("r", &["script_name"])
        };
        let mut report =
            Report::new(def, &mut dict, 1000)
                .unwrap()
                .with_window(Duration::from_secs(2), 2, 0);
        report.keep_closed_ticks();
        let window = report.window();
        let spec = Spec::of_report(&report).unwrap().unwrap();
        let keys = report.key_texts();
        let cell = ReportSet::default().try_insert(report).unwrap();
        let t = Tracked {
            cell: Arc::clone(&cell),
            keys,
            keyless: false,
            window,
            tiers: vec![Tier {
                id: 1,
                step_ms: spec.step_ms,
                rows: spec.rows,
                until_ms: 0,
                newest_start_ms: 0,
                steps: BTreeMap::new(),
            }],
            names: FxHashMap::default(),
            names_heap: 0,
        };
        (cell, t, parking_lot::RwLock::new(dict))
    }

    /// A tick's rows are summed by ids and named once; an id freed and reused for another string
    /// (possible only a window later) names the rows summed before by the old string.
    #[test]
    fn rows_keep_the_names_their_ids_had() {
        let mut dict = Dictionary::new(100);
        dict.set_now(0);
        let a = dict.intern(b"/a");
        let record = |script: u32, time: f32| Record {
            script_name: script,
            request_time: time,
            ..Record::default()
        };
        let (cell, mut t, dictionary) = script_report(dict);
        let window = t.window;
        let history = History::new(&crate::config::Config::default());
        // The writer sums each tick as it arrives, promptly after it closed.
        let sum_closed = |t: &mut Tracked| {
            let (ticks, lost) = cell.report.write().take_closed_ticks();
            assert_eq!((ticks.len(), lost), (1, 0));
            for tick in ticks {
                let m = Handed {
                    cell: Arc::clone(&cell),
                    start_ms: window.tick_start(tick.index()),
                    end_ms: window.tick_start(tick.index() + 1),
                    tick,
                };
                sum_tick(t, &m, &dictionary, &history, &mut |_| false).unwrap();
            }
        };
        {
            let mut r = cell.report.write();
            r.advance(1);
            r.add(&view(&record(a, 0.1)));
            r.add(&view(&record(a, 0.1)));
            r.advance(5_000);
        }
        sum_closed(&mut t);
        // "/a" is freed (unused for longer than the window) and its id reused for "/b", in a
        // later tick of the same step.
        let b = {
            let mut dict = dictionary.write();
            assert_eq!(dict.sweep(1), 1);
            dict.intern(b"/b")
        };
        assert_eq!(a, b, "the freed id is reused");
        {
            let mut r = cell.report.write();
            r.add(&view(&record(b, 0.2)));
            r.advance(9_000);
        }
        sum_closed(&mut t);
        assert_eq!(t.tiers[0].steps.len(), 1, "one 60 s step");
        let (_, pending) = t.tiers[0].steps.pop_first().unwrap();
        let stored = pending.named_by(&t.names, &history).unwrap().finish(10);
        let mut rows: Vec<(String, u64)> = stored
            .rows
            .iter()
            .map(|(k, p)| (k[0].clone(), p.sums.req_count))
            .collect();
        rows.sort();
        assert_eq!(rows, [("/a".to_string(), 2), ("/b".to_string(), 1)]);
        assert_eq!(stored.totals.sums.req_count, 3);
    }

    /// A tick's growth is told to the budget as it is named and summed, not once it is summed
    /// whole: once the budget turns tight midway, the rest of the tick's new keys are neither
    /// named nor given rows, and their requests are in "(other)".
    #[test]
    fn a_budget_tight_midway_through_a_tick_stops_its_growth() {
        let mut dict = Dictionary::new(10_000);
        dict.set_now(0);
        let ids: Vec<u32> = (0..3000)
            .map(|i| dict.intern(format!("/s{i}").as_bytes()))
            .collect();
        let (cell, mut t, dictionary) = script_report(dict);
        let history = History::new(&crate::config::Config::default());
        {
            let mut r = cell.report.write();
            r.advance(1);
            for &script in &ids {
                r.add(&view(&Record {
                    script_name: script,
                    request_time: 0.1,
                    ..Record::default()
                }));
            }
            r.advance(1001);
        }
        let tick = cell.report.write().take_closed_ticks().0.remove(0);
        let m = Handed {
            cell: Arc::clone(&cell),
            start_ms: t.window.tick_start(tick.index()),
            end_ms: t.window.tick_start(tick.index() + 1),
            tick,
        };
        let mut told = Vec::new();
        let mut meter = |held: usize| {
            told.push(held);
            held > 0
        };
        sum_tick(&mut t, &m, &dictionary, &history, &mut meter).unwrap();
        assert_eq!(
            told[..2],
            [0, 0],
            "nothing held before the tick and its first names"
        );
        assert!(told[2] > 0, "the first chunk of names told");
        assert_eq!(t.names.len(), RESOLVE_CHUNK, "one chunk named, then tight");
        let step = t.tiers[0].steps.values().next().unwrap();
        let refused = history.rows_refused.load(Relaxed);
        assert_eq!(step.by_ids.len(), 0, "tight from the first row on");
        // The report keeps 1,000 rows: the tick's other 2,000 requests are in its own
        // "(other)", which history sums into the totals only.
        assert_eq!(refused, 1000, "every row of the tick");
        let stored = step_of(&mut t, &history);
        assert_eq!(stored.other.unwrap().sums.req_count, 1000);
        assert_eq!(stored.totals.sums.req_count, 3000);
    }

    /// The first pending step of `t`, named and stored (10 rows).
    fn step_of(t: &mut Tracked, history: &History) -> step::Stored {
        let (_, pending) = t.tiers[0].steps.pop_first().unwrap();
        pending.named_by(&t.names, history).unwrap().finish(10)
    }

    /// While the memory budget is tight, a tick's rows whose keys the open step does not hold go
    /// to the step's "(other)" row unnamed (counted), keys it holds go on counting, and the
    /// totals stay exact; what the step and the names hold is counted, and grows by no row.
    #[test]
    fn a_tight_budget_sums_new_keys_into_other() {
        let mut dict = Dictionary::new(100);
        dict.set_now(0);
        let ids: Vec<u32> = ["/a", "/b", "/c"]
            .iter()
            .map(|s| dict.intern(s.as_bytes()))
            .collect();
        let (cell, mut t, dictionary) = script_report(dict);
        let window = t.window;
        let history = History::new(&crate::config::Config::default());
        // A tick of `scripts` (one request each), summed with the budget `tight` or not.
        let mut now = 1;
        let mut tick = |t: &mut Tracked, scripts: &[u32], tight: bool| {
            {
                let mut r = cell.report.write();
                r.advance(now);
                for &script in scripts {
                    let record = Record {
                        script_name: script,
                        request_time: 0.1,
                        ..Record::default()
                    };
                    r.add(&view(&record));
                }
                now += 1000;
                r.advance(now);
            }
            for tick in cell.report.write().take_closed_ticks().0 {
                let m = Handed {
                    cell: Arc::clone(&cell),
                    start_ms: window.tick_start(tick.index()),
                    end_ms: window.tick_start(tick.index() + 1),
                    tick,
                };
                sum_tick(t, &m, &dictionary, &history, &mut |_| tight).unwrap();
            }
        };
        tick(&mut t, &[ids[0]], false);
        let one_row = t.bytes();
        assert!(one_row > 0 && t.names_heap > 0);
        tick(&mut t, &[ids[0], ids[1], ids[2], ids[2]], true);
        assert_eq!(t.names.len(), 1, "the refused keys were not named");
        assert_eq!(history.rows_refused.load(Relaxed), 2, "/b's row and /c's");
        assert_eq!(t.bytes(), one_row, "no row, no name added");
        tick(&mut t, &[ids[1]], false);
        assert_eq!(t.names.len(), 2, "room again: /b gets its row");
        assert!(t.bytes() > one_row);

        let stored = step_of(&mut t, &history);
        let rows: Vec<(&str, u64)> = stored
            .rows
            .iter()
            .map(|(k, p)| (k[0].as_str(), p.sums.req_count))
            .collect();
        assert_eq!(rows, [("/a", 2), ("/b", 1)]);
        let other = stored.other.expect("the refused rows");
        assert_eq!(other.sums.req_count, 3, "/b's first, /c's two");
        assert_eq!(stored.totals.sums.req_count, 6, "every request");
    }
}
