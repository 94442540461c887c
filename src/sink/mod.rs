//! Sinks: every merged request, written where it outlives the pool. One `[[sink]]` table each,
//! with a `name` and a `kind`:
//! - `file` ([`file`](mod@file)): NDJSON lines, rotated by size and age, rotated files gzipped, N kept;
//! - `clickhouse` ([`clickhouse`]): batched inserts over ClickHouse's HTTP interface into a
//!   requests table and a timers table, retried with backoff while the server is away.
//!
//! The stages of a sink, in the order data flows:
//! 1. config ([`SinkConfig`], re-exported into `config::Config` as `sink`);
//! 2. queue: the sink's [`Tap`]; the merger offers it each round, which it keeps in a bounded
//!    queue (at most `queue` requests) or drops and counts; nothing on the ingest path waits;
//! 3. encode: the sink's thread ("pinbad-sink-NAME") takes rounds off the queue, samples, and
//!    encodes each request under one short read lock of the dictionary per round ([`Output`]);
//! 4. write/send: the same thread, after each round and on a timer ([`Output::work`]);
//! 5. stop: at shutdown, after the merger has published its last round, the thread drains its
//!    queue and [`Output::close`] writes what is left (nothing is lost on SIGTERM).
//!
//! Every outcome is counted in [`SinkStats`] (`/api/v1/status` → `sinks`, `GET /api/v1/sinks`):
//! `sent`, `failed`, `dropped`, `queued`. `PATCH /api/v1/sinks/{name}` switches a sink on or off
//! and sets its sampling rate at run time; the change is kept in `{state_dir}/sinks.json` and
//! applied again at start-up (as report changes are in `reports.json`).

pub mod clickhouse;
pub mod file;
pub mod ticks;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use crate::config::{ClickHouseConfig, FileConfig, SinkConfig, SinkKind};

use crate::budget::Account;
use crate::config::ConfigError;
use crate::dictionary::Dictionary;
use crate::durable::{OnDamage, SetAside};
use crate::ndjson::{sampled, ENCODE_CHUNK};
use crate::record::RequestView;
use crate::report::{ClosedTick, ReportCell};
use crate::state::Core;
use crate::tap::{Round, Tap, TickTap};

/// Why a file sink cannot start: the same words from `check-config` ([`Sinks::check`]) and the
/// start ([`Sinks::open`]).
fn cannot_open(sink: &Sink, f: &FileConfig, e: std::io::Error) -> std::io::Error {
    std::io::Error::other(format!(
        "sink `{}`: cannot open {}: {e}",
        sink.name,
        f.path.display()
    ))
}

/// What a sink writes to: fed on the sink's thread, one request at a time, then asked to do its
/// I/O.
pub trait Output: Send {
    /// Encodes one request (merged at `unix_ms`); called under the dictionary's read lock, so it
    /// only appends to memory.
    fn encode(&mut self, v: &RequestView<'_>, unix_ms: u64, dict: &Dictionary);
    /// Writes or sends what is due (after every round, and at least every [`TICK`]). Counts what
    /// it delivered or lost in `stats`.
    fn work(&mut self, stats: &SinkStats, now: Instant);
    /// Requests encoded and not yet delivered (part of `queued`).
    fn pending(&self) -> u64;
    /// Memory it holds for what is not delivered yet (encoded inserts waiting or kept for a
    /// retry, chunks kept for reuse), counted against the memory budget after each
    /// [`Output::work`]. A file sink's buffer is small: 0.
    fn memory_bytes(&self) -> u64 {
        0
    }
    /// Starts encoding a closed report tick (a sink with `reports`: ClickHouse): its rows follow
    /// ([`Output::tick_row`]), then [`Output::tick_end`]. Called on the sink's thread.
    fn tick_start(&mut self, _head: &clickhouse::TickHead<'_>) {}
    /// One row of the tick begun (a report row's keys are named under the dictionary's read
    /// lock, held by the caller).
    fn tick_row(&mut self, _row: &clickhouse::TickRow<'_>) {}
    /// Ends the tick begun: written, or (`keep` false) its rows taken back out.
    fn tick_end(&mut self, _keep: bool) {}
    /// At shutdown: delivers everything left by `deadline` (the stop's, shared by every sink),
    /// counting what it cannot.
    fn close(&mut self, stats: &SinkStats, deadline: Instant);
}

/// How often a sink's thread calls [`Output::work`] when no round arrives (batching by time,
/// rotation by age, retries).
pub const TICK: Duration = Duration::from_millis(100);

/// A sink's figures, cumulative since start (requests, unless named otherwise).
#[derive(Default)]
pub struct SinkStats {
    /// Delivered: lines written (file), rows acknowledged by the server (clickhouse).
    pub sent: AtomicU64,
    /// file: lines whose write failed (lost). clickhouse: insert attempts that failed (retried).
    pub failed: AtomicU64,
    /// Lost: the queue was full, or (clickhouse) the retry buffer overflowed or shutdown came
    /// before the server did, or the request waited in the queue longer than `stats_history`
    /// (see `Sink::encode`; also counted in `stale`).
    pub dropped: AtomicU64,
    /// Of `dropped`: requests whose round waited longer than `stats_history` (a stalled write):
    /// their strings may have left the dictionary, so they are not written.
    pub stale: AtomicU64,
    /// In the sink's queue now.
    pub queued: AtomicU64,
    /// Encoded, not yet delivered now.
    pub buffered: AtomicU64,
    /// clickhouse: timer rows acknowledged, and lost.
    pub timers_sent: AtomicU64,
    pub timers_dropped: AtomicU64,
    /// file: rotations done.
    pub rotations: AtomicU64,
    /// clickhouse with `reports`: report ticks acknowledged (whole ticks), their rows, and
    /// ticks lost (the sink's tick queue or retry buffer full, the stop's deadline, or a tick
    /// that waited longer than its report's window).
    pub ticks_sent: AtomicU64,
    pub tick_rows_sent: AtomicU64,
    pub ticks_dropped: AtomicU64,
}

/// A configured sink: its run-time switches, figures, queue and thread.
pub struct Sink {
    pub name: String,
    pub kind: &'static str,
    config: SinkConfig,
    enabled: AtomicBool,
    /// The sampling rate's f64 bits (atomically switchable).
    sample_bits: AtomicU64,
    /// Core with the output's own threads (the ClickHouse sender).
    pub stats: Arc<SinkStats>,
    /// The merger's end of the queue. Rounds are counted in requests against `config.queue`;
    /// the channel's own bound (in rounds) only backs that up.
    tx: SyncSender<Arc<Round>>,
    /// The thread's end, taken when it starts.
    rx: Mutex<Option<Receiver<Arc<Round>>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Set at shutdown once the merger has stopped: the thread drains its queue and closes.
    stop: AtomicBool,
    /// When everything must be delivered or dropped (set with `stop`).
    deadline: std::sync::OnceLock<Instant>,
    /// The closed report ticks it writes (`reports` of a ClickHouse sink), if any.
    ticks: Option<ticks::TickInbox>,
    /// The queued rounds' memory, against the memory budget (set when the thread starts).
    account: std::sync::OnceLock<Account>,
}

/// The merge threads hand closed report ticks to a sink with `reports` (see [`ticks`]); never
/// blocks. A switched-off sink takes none.
impl TickTap for Sink {
    fn hand_over(&self, cell: &Arc<ReportCell>, (closed, dropped): (Vec<Arc<ClosedTick>>, u64)) {
        if let Some(inbox) = &self.ticks {
            if self.enabled.load(Relaxed) {
                inbox.offer(cell, closed, dropped, &self.stats);
            }
        }
    }
}

impl Tap for Sink {
    fn name(&self) -> &str {
        &self.name
    }

    fn offer(&self, round: &Arc<Round>) {
        // A sink sampling nothing (one that writes report ticks only) takes no round.
        if !self.enabled.load(Relaxed) || self.sample_bits.load(Relaxed) == 0 {
            return;
        }
        let n = round.batch().len() as u64;
        let queued = self.stats.queued.load(Relaxed);
        // While the memory budget is tight, a queue takes rounds only while short: a sink that
        // keeps up goes on writing, one that fell behind stops growing.
        let tight = self.account.get().is_some_and(|a| a.budget().tight());
        let queue = if tight {
            self.config.queue as u64 / TIGHT_QUEUE_DIVISOR
        } else {
            self.config.queue as u64
        };
        if !admits(queued, n, queue) {
            self.stats.dropped.fetch_add(n, Relaxed);
            return;
        }
        self.stats.queued.fetch_add(n, Relaxed);
        // Accounted before it is sent: the thread may take it off (and shrink the account) at once.
        let bytes = round.batch().heap_bytes() as u64;
        if let Some(a) = self.account.get() {
            a.grow(bytes);
        }
        if self.tx.try_send(Arc::clone(round)).is_err() {
            self.stats.queued.fetch_sub(n, Relaxed);
            self.stats.dropped.fetch_add(n, Relaxed);
            if let Some(a) = self.account.get() {
                a.shrink(bytes);
            }
        }
    }
}

/// While the memory budget is tight, a sink's queue takes rounds up to this fraction of `queue`.
const TIGHT_QUEUE_DIVISOR: u64 = 8;

/// Whether a round of `n` requests joins a queue holding `queued` of at most `queue`. An empty
/// queue takes a round whole whatever its size: a `queue` smaller than one round (up to
/// `merger::ROUND_REQUESTS`) would otherwise refuse every round of a busy merger and the sink
/// would get nothing. So the queue holds at most `queue`, or one round.
fn admits(queued: u64, n: u64, queue: u64) -> bool {
    queued == 0 || queued + n <= queue
}

impl Sink {
    fn new(config: SinkConfig) -> Sink {
        // One round per 500 requests of `queue` (a round at 50k requests/s), 16 to 1024: the
        // request count binds first at any real rate, and rounds the merger cannot reuse stay few.
        let rounds = (config.queue / 500).clamp(16, 1024);
        let (tx, rx) = std::sync::mpsc::sync_channel(rounds);
        let ticks = match &config.kind {
            SinkKind::Clickhouse(c) if !c.reports.is_empty() => {
                Some(ticks::TickInbox::new(c.reports.clone()))
            }
            _ => None,
        };
        Sink {
            ticks,
            account: std::sync::OnceLock::new(),
            name: config.name.clone(),
            kind: config.kind.name(),
            enabled: AtomicBool::new(config.enabled),
            sample_bits: AtomicU64::new(config.sample.to_bits()),
            config,
            stats: Arc::default(),
            tx,
            rx: Mutex::new(Some(rx)),
            thread: Mutex::new(None),
            stop: AtomicBool::new(false),
            deadline: std::sync::OnceLock::new(),
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled.load(Relaxed)
    }

    pub fn sample(&self) -> f64 {
        f64::from_bits(self.sample_bits.load(Relaxed))
    }

    /// The sink as `/api/v1/status` and `/api/v1/sinks` show it.
    pub fn status(&self) -> Value {
        let s = &self.stats;
        let mut v = json!({
            "name": self.name,
            "kind": self.kind,
            "enabled": self.enabled(),
            "sample": self.sample(),
            "sent": s.sent.load(Relaxed),
            "failed": s.failed.load(Relaxed),
            "dropped": s.dropped.load(Relaxed),
            "dropped_stale": s.stale.load(Relaxed),
            "current_queued": s.queued.load(Relaxed) + s.buffered.load(Relaxed),
            "queue": self.config.queue,
            "ticks_sent": s.ticks_sent.load(Relaxed),
            "tick_rows_sent": s.tick_rows_sent.load(Relaxed),
            "ticks_dropped": s.ticks_dropped.load(Relaxed),
        });
        match &self.config.kind {
            SinkKind::File(f) => {
                v["path"] = json!(f.path);
                v["rotations"] = json!(s.rotations.load(Relaxed));
            }
            SinkKind::Clickhouse(c) => {
                v["url"] = json!(c.url);
                v["timers_sent"] = json!(s.timers_sent.load(Relaxed));
                v["timers_dropped"] = json!(s.timers_dropped.load(Relaxed));
            }
        }
        v
    }

    /// The sink's thread: rounds off the queue, encoded, written; at stop, the rest drained
    /// until the stop's deadline (what is left then is dropped and counted).
    fn run(&self, rx: Receiver<Arc<Round>>, mut out: Box<dyn Output>, shared: &Core) {
        let mut behind = false;
        // What the output holds undelivered, against the memory budget.
        let held = Account::new(Arc::clone(shared.budget()));
        loop {
            let stopping = self.stop.load(Relaxed);
            let late = stopping && self.deadline.get().is_some_and(|d| Instant::now() >= *d);
            let round = if late {
                let mut left = 0;
                while let Ok(round) = rx.try_recv() {
                    left += round.batch().len() as u64;
                    self.unqueued(&round);
                }
                if left > 0 {
                    self.stats.queued.fetch_sub(left, Relaxed);
                    self.stats.dropped.fetch_add(left, Relaxed);
                    tracing::warn!(sink = %self.name, requests = left, "Sink: the stop's deadline came before its queue was written; the rest is dropped");
                }
                None
            } else if stopping {
                rx.try_recv().ok()
            } else {
                match rx.recv_timeout(TICK) {
                    Ok(r) => Some(r),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            };
            match round {
                Some(round) => {
                    let stale = self.encode(&round, out.as_mut(), shared);
                    self.unqueued(&round);
                    if stale != behind {
                        behind = stale;
                        if stale {
                            tracing::warn!(sink = %self.name, "Sink more than stats_history behind (a stalled write): dropping the rounds that old, counted in dropped_stale");
                        } else {
                            tracing::info!(sink = %self.name, "Sink caught up within stats_history");
                        }
                    }
                }
                None if stopping => break,
                None => {}
            }
            if let Some(inbox) = &self.ticks {
                inbox.drain(out.as_mut(), shared, &self.stats);
            }
            out.work(&self.stats, Instant::now());
            self.stats.buffered.store(out.pending(), Relaxed);
            held.settle(out.memory_bytes());
        }
        // The ticks the merger's last rounds closed.
        if let Some(inbox) = &self.ticks {
            inbox.drain(out.as_mut(), shared, &self.stats);
        }
        let deadline = self.deadline.get().copied().unwrap_or_else(Instant::now);
        out.close(&self.stats, deadline);
        self.stats.buffered.store(out.pending(), Relaxed);
    }

    /// A round left the queue: its memory leaves the sink's account.
    fn unqueued(&self, round: &Round) {
        if let Some(a) = self.account.get() {
            a.shrink(round.batch().heap_bytes() as u64);
        }
    }

    /// Encodes a round's (sampled) requests into `out`; returns whether (the rest of) the round
    /// was dropped as stale instead.
    ///
    /// Stale: the round waited `stats_history` or longer (the sink's write stalled that long).
    /// Its requests name strings by dictionary id, and the dictionary frees a string once unused
    /// for longer than the longest window (never shorter than `stats_history`; see
    /// `Merger::sweep`) and reuses its id: written now, such a request could carry another
    /// string, silently. The age is read with the dictionary's read lock held, which a sweep
    /// needs for writing, so a chunk found young enough stays resolvable while it is encoded.
    fn encode(&self, round: &Round, out: &mut dyn Output, shared: &Core) -> bool {
        let batch = round.batch();
        let unix_ms = shared.clock().unix_ms64(round.now_ms());
        let sample = self.sample();
        let history_ms = shared.config().stats_history.0.as_millis() as u64;
        let mut stale = false;
        // The dictionary's read lock is taken per chunk, so the merger (its writer) never waits
        // longer than one chunk's encoding for it.
        let mut views = batch.views().peekable();
        while views.peek().is_some() {
            let dict = shared.dictionary().read();
            if shared.clock().now_ms64().saturating_sub(round.now_ms()) >= history_ms {
                let rest = views.count() as u64;
                self.stats.dropped.fetch_add(rest, Relaxed);
                self.stats.stale.fetch_add(rest, Relaxed);
                stale = true;
                break;
            }
            for v in views.by_ref().take(ENCODE_CHUNK) {
                if sampled(v.id, sample) {
                    out.encode(&v, unix_ms, &dict);
                }
            }
        }
        self.stats.queued.fetch_sub(batch.len() as u64, Relaxed);
        stale
    }
}

/// The sinks' outputs, opened ([`Sinks::open`]) and waiting for their threads ([`Sinks::start`]).
pub struct Opened(Vec<Box<dyn Output>>);

/// The configured sinks. Lives in `Core`; the API reads and switches them, `app` starts and
/// stops their threads.
pub struct Sinks {
    list: Vec<Arc<Sink>>,
    state_dir: PathBuf,
    /// Serialises writes of `sinks.json`.
    saving: Mutex<()>,
    /// `sinks.json`, when start-up found it damaged and set it aside (status).
    set_aside: Option<SetAside>,
}

/// `{state_dir}/sinks.json`: run-time switches of sinks, applied again at start-up.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SinkState {
    pub enabled: Option<bool>,
    pub sample: Option<f64>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateFile {
    version: u32,
    sinks: std::collections::BTreeMap<String, SinkState>,
}

const STATE_FILE: &str = "sinks.json";

impl Sinks {
    /// The sinks of `configs` with the run-time switches saved in `{state_dir}/sinks.json`
    /// applied. No thread starts and no file opens here (`pinbad check-config` runs this). A
    /// damaged `sinks.json` is set aside (or, for check-config, said to be: `on_damage`) and the
    /// sinks start as configured.
    pub fn new(
        configs: &[SinkConfig],
        state_dir: &Path,
        on_damage: OnDamage,
    ) -> Result<Sinks, ConfigError> {
        let (state, set_aside) = match read_state(state_dir)? {
            Saved::Read(state) => (state, None),
            Saved::Damaged(why) => {
                let path = state_dir.join(STATE_FILE);
                let aside =
                    on_damage.handle(&path, &why, "starting with the configured sinks' switches");
                (StateFile::default(), aside)
            }
        };
        let mut list = Vec::new();
        for c in configs {
            let sink = Sink::new(c.clone());
            if let Some(s) = state.sinks.get(&c.name) {
                if let Some(e) = s.enabled {
                    sink.enabled.store(e, Relaxed);
                }
                if let Some(x) = s.sample {
                    sink.sample_bits.store(x.to_bits(), Relaxed);
                }
                tracing::info!(sink = %c.name, enabled = sink.enabled(), sample = sink.sample(), "Sink switches restored from sinks.json");
            }
            list.push(Arc::new(sink));
        }
        for name in state.sinks.keys() {
            if !configs.iter().any(|c| &c.name == name) {
                tracing::warn!(sink = %name, "sinks.json names a sink the config no longer has; ignored");
            }
        }
        Ok(Sinks {
            list,
            state_dir: state_dir.to_path_buf(),
            saving: Mutex::new(()),
            set_aside,
        })
    }

    /// `sinks.json`, if start-up found it damaged and set it aside.
    pub fn set_aside(&self) -> Option<&SetAside> {
        self.set_aside.as_ref()
    }

    pub fn get(&self, name: &str) -> Option<&Arc<Sink>> {
        self.list.iter().find(|s| s.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<Sink>> {
        self.list.iter()
    }

    /// The sinks that write report ticks, as the merge threads' tick taps (see `app`).
    pub fn tick_taps(&self) -> Vec<Arc<dyn TickTap>> {
        self.list
            .iter()
            .filter(|s| s.ticks.is_some())
            .map(|s| Arc::clone(s) as Arc<dyn TickTap>)
            .collect()
    }

    /// The ClickHouse sink that writes the ticks of the report named `report` (the first, if
    /// several do): where the fleet API reads them.
    pub fn ticks_of(&self, report: &str) -> Option<&ClickHouseConfig> {
        self.list.iter().find_map(|s| match &s.config.kind {
            SinkKind::Clickhouse(c) if c.reports.includes(report) => Some(c),
            _ => None,
        })
    }

    /// Every sink's status.
    pub fn status(&self) -> Value {
        Value::Array(self.list.iter().map(|s| s.status()).collect())
    }

    /// Checks that every file sink could open its file, creating nothing (`check-config`; the
    /// start opens them, [`Sinks::open`]): the same message as a start that fails on it.
    pub fn check(&self) -> Result<(), std::io::Error> {
        for sink in &self.list {
            if let SinkKind::File(f) = &sink.config.kind {
                file::check_writable(&f.path).map_err(|e| cannot_open(sink, f, e))?;
            }
        }
        Ok(())
    }

    /// Opens every sink's output (a file sink's file; a ClickHouse sink's agent and sender
    /// thread, which creates its tables when it first sends): what can fail of a sink's start, done before start-up consumes the snapshot and the requests the
    /// last stop saved, so that a sink that cannot start (a file sink's directory read-only)
    /// fails the start while both are still on disk for the next one.
    pub fn open(&self) -> Result<Opened, std::io::Error> {
        let mut outputs = Vec::with_capacity(self.list.len());
        for sink in &self.list {
            let out: Box<dyn Output> = match &sink.config.kind {
                SinkKind::File(f) => Box::new(
                    file::FileOutput::open(f.clone()).map_err(|e| cannot_open(sink, f, e))?,
                ),
                SinkKind::Clickhouse(c) => Box::new(clickhouse::ClickHouseOutput::new(
                    c.clone(),
                    &sink.name,
                    Arc::clone(&sink.stats),
                )?),
            };
            outputs.push(out);
        }
        Ok(Opened(outputs))
    }

    /// Starts a thread per sink on the outputs [`Sinks::open`] opened.
    pub fn start(&self, shared: &Arc<Core>, opened: Opened) -> Result<(), std::io::Error> {
        for (sink, out) in self.list.iter().zip(opened.0) {
            let Some(rx) = sink.rx.lock().take() else {
                continue;
            };
            let _ = sink.account.set(Account::new(Arc::clone(shared.budget())));
            let (s, shared2) = (Arc::clone(sink), Arc::clone(shared));
            let handle = std::thread::Builder::new()
                .name(format!("pinbad-sink-{}", sink.name))
                .spawn(move || s.run(rx, out, &shared2))?;
            *sink.thread.lock() = Some(handle);
            shared.taps().add(Arc::clone(sink) as Arc<dyn Tap>);
            tracing::info!(sink = %sink.name, kind = sink.kind, enabled = sink.enabled(), "Sink started");
        }
        Ok(())
    }

    /// At shutdown, once the merger has published its last round: each thread drains its queue,
    /// delivers what it holds by `deadline` (one for all the sinks, however many retries),
    /// and ends. Returns at once; [`Sinks::wait`] waits for them.
    pub fn request_stop(&self, deadline: Instant) {
        for sink in &self.list {
            let _ = sink.deadline.set(deadline);
            sink.stop.store(true, Relaxed);
        }
    }

    /// Waits for the sinks' threads to end, at most until `until`. A thread still running then
    /// (a write that hangs) is left to end with the process: what it held is counted as dropped
    /// and logged.
    pub fn wait(&self, until: Instant) {
        for sink in &self.list {
            if let Some(t) = sink.thread.lock().take() {
                let s = &sink.stats;
                if !crate::shutdown::join_until(t, until) {
                    let left = s.queued.swap(0, Relaxed) + s.buffered.swap(0, Relaxed);
                    s.dropped.fetch_add(left, Relaxed);
                    tracing::warn!(sink = %sink.name, requests = left, "Sink did not finish by the stop's deadline (a write that hangs); what it held is dropped");
                    continue;
                }
                tracing::info!(
                    sink = %sink.name,
                    sent = s.sent.load(Relaxed),
                    failed = s.failed.load(Relaxed),
                    dropped = s.dropped.load(Relaxed),
                    ticks_sent = s.ticks_sent.load(Relaxed),
                    ticks_dropped = s.ticks_dropped.load(Relaxed),
                    "Sink stopped"
                );
            }
        }
    }

    /// Switches a sink at run time and saves the switch in `sinks.json`.
    pub fn set(&self, name: &str, change: &SinkState) -> Result<Value, SinkError> {
        let sink = self
            .get(name)
            .ok_or_else(|| SinkError::NotFound(name.to_string()))?;
        if let Some(x) = change.sample {
            if !(0.0..=1.0).contains(&x) {
                return Err(SinkError::Invalid(format!(
                    "`sample` {x} is not a rate in 0..=1"
                )));
            }
        }
        let _saving = self.saving.lock();
        let mut state = load_state(&self.state_dir).map_err(|e| SinkError::Io(e.to_string()))?;
        let entry = state.sinks.entry(name.to_string()).or_default();
        if let Some(e) = change.enabled {
            entry.enabled = Some(e);
        }
        if let Some(x) = change.sample {
            entry.sample = Some(x);
        }
        state.version = 1;
        save_state(&self.state_dir, &state).map_err(SinkError::Io)?;
        if let Some(e) = change.enabled {
            sink.enabled.store(e, Relaxed);
        }
        if let Some(x) = change.sample {
            sink.sample_bits.store(x.to_bits(), Relaxed);
        }
        tracing::info!(sink = %name, enabled = sink.enabled(), sample = sink.sample(), "Sink switched at run time");
        Ok(sink.status())
    }
}

/// Why a run-time switch was refused.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("no sink named `{0}`")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error("cannot save sinks.json: {0}")]
    Io(String),
}

/// What `sinks.json` holds: the switches (none when there is no file), or why it cannot be used.
enum Saved {
    Read(StateFile),
    Damaged(String),
}

/// Reads `{dir}/sinks.json`; an error only when it cannot be read at all (permissions, a
/// directory in its place): a damaged content is [`Saved::Damaged`].
fn read_state(dir: &Path) -> Result<Saved, ConfigError> {
    let path = dir.join(STATE_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Saved::Read(StateFile::default()))
        }
        Err(e) => {
            return Err(ConfigError::Invalid {
                key: "sink".into(),
                message: format!("{}: {e}", path.display()),
            })
        }
    };
    let state: StateFile = match serde_json::from_slice(&bytes) {
        Ok(s) => s,
        Err(e) => return Ok(Saved::Damaged(e.to_string())),
    };
    for (name, s) in &state.sinks {
        if s.sample.is_some_and(|x| !(0.0..=1.0).contains(&x)) {
            return Ok(Saved::Damaged(format!(
                "sink `{name}`: sample is not in 0..=1"
            )));
        }
    }
    Ok(Saved::Read(state))
}

/// `{dir}/sinks.json` for a run-time change: an error naming the file when it is damaged.
fn load_state(dir: &Path) -> Result<StateFile, ConfigError> {
    match read_state(dir)? {
        Saved::Read(state) => Ok(state),
        Saved::Damaged(why) => Err(ConfigError::Invalid {
            key: "sink".into(),
            message: format!("{}: {why}", dir.join(STATE_FILE).display()),
        }),
    }
}

/// Writes `sinks.json` whole and durably (see `durable`).
fn save_state(dir: &Path, state: &StateFile) -> Result<(), String> {
    let path = dir.join(STATE_FILE);
    crate::durable::write_json(&path, state).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<SinkConfig>, String> {
        crate::config::Config::parse(text)
            .map(|c| c.sink)
            .map_err(|e| e.to_string())
    }

    /// A batch of `n` requests with default fields, ids 0 to n - 1.
    fn empty_requests(n: u64) -> crate::report::PreparedBatch {
        let record = crate::record::Record::default();
        let mut batch = crate::report::PreparedBatch::default();
        for id in 0..n {
            batch.push(&RequestView {
                id,
                record: &record,
                tag_block: &[],
                timers: &[],
            });
        }
        batch
    }

    /// A round that waited `stats_history` or longer is not written (its strings may have left
    /// the dictionary and their ids been given to others): dropped, counted in `dropped` and
    /// `dropped_stale`. A younger round is written.
    #[test]
    fn a_round_older_than_the_window_is_dropped_not_written() {
        struct Counting(Arc<AtomicU64>);
        impl Output for Counting {
            fn encode(&mut self, _: &RequestView<'_>, _: u64, _: &Dictionary) {
                self.0.fetch_add(1, Relaxed);
            }
            fn work(&mut self, _: &SinkStats, _: Instant) {}
            fn pending(&self) -> u64 {
                0
            }
            fn close(&mut self, _: &SinkStats, _: Instant) {}
        }
        let dir = tempfile::tempdir().unwrap();
        let mut config = crate::config::Config::default();
        config.state_dir = dir.path().into();
        config.stats_history = crate::config::HumanDuration(Duration::from_secs(60));
        let mut shared =
            Core::new(config, Arc::new(crate::ring::Ring::new(1 << 20)), vec![], 0).unwrap();
        // The merger's clock at ~600 s.
        shared.set_clock(crate::state::Clock::resume(
            crate::state::unix_now_ms() - 600_000,
            0,
        ));
        let now = shared.clock().now_ms64();
        let round = |age_ms: u64, n: u64| Round::of_batch(now - age_ms, empty_requests(n));
        let sink = Sink::new(
            parse("[[sink]]\nname = \"f\"\nkind = \"file\"\npath = \"/tmp/f\"\n")
                .unwrap()
                .remove(0),
        );
        let written = Arc::new(AtomicU64::new(0));
        let mut out = Counting(Arc::clone(&written));
        sink.stats.queued.store(1000 + 300, Relaxed);
        assert!(!sink.encode(&round(1_000, 300), &mut out, &shared));
        assert_eq!(written.load(Relaxed), 300, "a second old: written");
        assert!(sink.encode(&round(61_000, 1000), &mut out, &shared));
        assert_eq!(
            written.load(Relaxed),
            300,
            "61 s old with a 60 s window: not written"
        );
        assert_eq!(sink.stats.dropped.load(Relaxed), 1000);
        assert_eq!(sink.status()["dropped_stale"], 1000);
        assert_eq!(sink.stats.queued.load(Relaxed), 0);
    }

    /// A sink's queued rounds count against the memory budget until its thread has written
    /// them; while the budget is tight the queue takes rounds only up to an eighth of `queue`
    /// (the rest dropped, counted).
    #[test]
    fn queued_rounds_are_accounted_and_a_tight_budget_shortens_the_queue() {
        let budget = crate::budget::Budget::new(64 << 20);
        let sink = Sink::new(
            parse("[[sink]]\nname = \"f\"\nkind = \"file\"\npath = \"/tmp/f\"\nqueue = 8000\n")
                .unwrap()
                .remove(0),
        );
        let _ = sink.account.set(Account::new(Arc::clone(&budget)));
        let round = |n: u64| Arc::new(Round::of_batch(0, empty_requests(n)));
        let a = round(1000);
        let bytes = a.batch().heap_bytes() as u64;
        assert!(bytes >= 1000 * 64, "{bytes}");
        sink.offer(&a);
        sink.offer(&round(1000));
        assert_eq!(budget.used(), 2 * bytes);
        assert_eq!(sink.stats.queued.load(Relaxed), 2000);
        // Tight: the queue (2,000 of 8,000) is past an eighth: refused, counted.
        let filler = Account::new(Arc::clone(&budget));
        filler.settle(63 << 20);
        assert!(budget.judge());
        sink.offer(&round(500));
        assert_eq!(sink.stats.dropped.load(Relaxed), 500);
        assert_eq!(sink.stats.queued.load(Relaxed), 2000);
        // The thread takes both rounds off: their memory leaves the budget.
        let rx = sink.rx.lock().take().unwrap();
        for _ in 0..2 {
            let r = rx.try_recv().unwrap();
            sink.unqueued(&r);
        }
        filler.settle(0);
        assert_eq!(budget.used(), 0);
        // Still tight (it eases at the next judgement): an empty queue takes a round.
        sink.stats.queued.store(0, Relaxed);
        sink.offer(&round(900));
        assert_eq!(sink.stats.queued.load(Relaxed), 900);
        assert!(budget.used() > 0);
    }

    #[test]
    fn an_empty_queue_takes_a_round_larger_than_itself() {
        assert!(
            admits(0, 4096, 1000),
            "a round larger than the queue, queue empty"
        );
        assert!(!admits(1, 4096, 1000), "but not beside anything queued");
        assert!(admits(500, 500, 1000));
        assert!(!admits(501, 500, 1000));
    }

    #[test]
    fn sink_tables_parse_with_defaults_and_refuse_unknown_keys() {
        let s = parse(
            "[[sink]]\nname = \"log\"\nkind = \"file\"\npath = \"/tmp/r.ndjson\"\n\
             [[sink]]\nname = \"ch\"\nkind = \"clickhouse\"\nurl = \"http://127.0.0.1:8123\"\nsample = 0.5\n",
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].enabled && s[0].sample == 1.0 && s[0].queue == 100_000);
        let SinkKind::File(f) = &s[0].kind else {
            panic!()
        };
        assert_eq!(f.keep, 24);
        let SinkKind::Clickhouse(c) = &s[1].kind else {
            panic!()
        };
        assert_eq!(c.requests_table, "pinba_requests");
        assert!(c.reports.is_empty() && !c.reports.includes("report_by_script_name"));
        assert_eq!(s[1].sample, 0.5);
        // `reports`: "*" for every report, or names.
        let s = parse(
            "[[sink]]\nname = \"a\"\nkind = \"clickhouse\"\nurl = \"http://h\"\nreports = \"*\"\n\
             [[sink]]\nname = \"b\"\nkind = \"clickhouse\"\nurl = \"http://h\"\nreports = [\"r1\"]\n",
        )
        .unwrap();
        assert!(crate::config::writes_ticks_of(&s[..1], "anything"));
        assert!(crate::config::writes_ticks_of(&s[1..], "r1"));
        assert!(!crate::config::writes_ticks_of(&s[1..], "r2"));
        for (text, want) in [
            ("[[sink]]\nname = \"x\"\nkind = \"file\"\npath = \"/a\"\npaht = 1", "paht"),
            ("[[sink]]\nname = \"x\"\nkind = \"kafka\"", "kafka"),
            ("[[sink]]\nname = \"x\"\npath = \"/a\"", "kind"),
            (
                "[[sink]]\nname = \"x\"\nkind = \"file\"",
                "`sink[0].path`: is required",
            ),
            (
                "[[sink]]\nname = \"x\"\nkind = \"file\"\npath = \"\"",
                "`sink[0].path`: is required",
            ),
            (
                "[[sink]]\nname = \"x\"\nkind = \"file\"\npath = \"/tmp/\"",
                "`sink[0].path`: must name a file, not a directory",
            ),
            ("[[sink]]\nname = \"x\"\nkind = \"file\"\npath = \"/a\"\nsample = 2.0", "sink[0].sample"),
            ("[[sink]]\nname = \"a b\"\nkind = \"file\"\npath = \"/a\"", "sink[0].name"),
            ("[[sink]]\nname = \"x\"\nkind = \"clickhouse\"\nurl = \"ftp://h\"", "sink[0].url"),
            (
                "[[sink]]\nname = \"x\"\nkind = \"clickhouse\"\nurl = \"http://h\"\nrequests_table = \"a;b\"",
                "sink[0].requests_table",
            ),
            (
                "[[sink]]\nname = \"x\"\nkind = \"file\"\npath = \"/a\"\n[[sink]]\nname = \"x\"\nkind = \"file\"\npath = \"/b\"",
                "sink[1].name",
            ),
            (
                "[[sink]]\nname = \"x\"\nkind = \"clickhouse\"\nurl = \"http://h\"\nreports = 5",
                "`reports`: must be \"*\" or a list of report names",
            ),
            (
                "[[sink]]\nname = \"x\"\nkind = \"clickhouse\"\nurl = \"http://h\"\nreports = [\"*\", \"a\"]",
                "sink[0].reports",
            ),
            (
                "[[sink]]\nname = \"x\"\nkind = \"clickhouse\"\nurl = \"http://h\"\nreports = [\"\"]",
                "sink[0].reports",
            ),
            (
                "[[sink]]\nname = \"x\"\nkind = \"clickhouse\"\nurl = \"http://h\"\nticks_table = \"a b\"",
                "sink[0].ticks_table",
            ),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(want), "{text:?} → {e}");
        }
    }

    #[test]
    fn run_time_switches_are_saved_and_restored() {
        let dir = tempfile::tempdir().unwrap();
        let configs =
            parse("[[sink]]\nname = \"log\"\nkind = \"file\"\npath = \"/tmp/r.ndjson\"\n").unwrap();
        let sinks = Sinks::new(&configs, dir.path(), OnDamage::SetAside).unwrap();
        assert!(sinks.get("log").unwrap().enabled());
        let change = SinkState {
            enabled: Some(false),
            sample: Some(0.25),
        };
        let v = sinks.set("log", &change).unwrap();
        assert_eq!(v["enabled"], false);
        assert!(matches!(
            sinks.set("nope", &change),
            Err(SinkError::NotFound(_))
        ));
        let bad = SinkState {
            enabled: None,
            sample: Some(1.5),
        };
        assert!(matches!(sinks.set("log", &bad), Err(SinkError::Invalid(_))));
        let again = Sinks::new(&configs, dir.path(), OnDamage::SetAside).unwrap();
        let s = again.get("log").unwrap();
        assert!(!s.enabled());
        assert_eq!(s.sample(), 0.25);
    }

    /// A damaged `sinks.json` is set aside and the sinks start as configured; check-config's
    /// reading (`OnDamage::Warn`) moves nothing; a run-time switch with it there is refused.
    #[test]
    fn a_damaged_state_file_is_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let configs =
            parse("[[sink]]\nname = \"log\"\nkind = \"file\"\npath = \"/tmp/r.ndjson\"\n").unwrap();
        let path = dir.path().join(STATE_FILE);
        for bad in [
            "{\"version\": 1, \"sinks\": {\"log\": {\"sample\": 7}}}",
            "[1,",
        ] {
            std::fs::write(&path, bad).unwrap();
            let checked = Sinks::new(&configs, dir.path(), OnDamage::Warn).unwrap();
            assert!(checked.set_aside().is_none() && path.exists());
            let change = SinkState {
                enabled: Some(false),
                sample: None,
            };
            assert!(matches!(checked.set("log", &change), Err(SinkError::Io(_))));
            let sinks = Sinks::new(&configs, dir.path(), OnDamage::SetAside).unwrap();
            let aside = sinks.set_aside().unwrap();
            assert_eq!(aside.file, STATE_FILE);
            assert!(!path.exists() && dir.path().join("sinks.json.damaged").exists());
            assert!(sinks.get("log").unwrap().enabled());
        }
    }

    /// The commented `[[sink]]` examples of config/pinbad.toml are valid and show the defaults.
    #[test]
    fn shipped_sink_examples_parse_with_the_defaults() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/config/pinbad.toml"))
                .unwrap();
        let start = text
            .find("# [[sink]]")
            .expect("config/pinbad.toml has [[sink]] examples");
        let block: String = text[start..]
            .lines()
            .map(|l| l.strip_prefix("# ").unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let sinks = parse(&block).unwrap();
        assert_eq!(sinks.len(), 2);
        for s in &sinks {
            assert!(s.enabled && s.sample == 1.0 && s.queue == SinkConfig::DEFAULT_QUEUE);
        }
        let SinkKind::File(f) = &sinks[0].kind else {
            panic!()
        };
        let d = FileConfig {
            path: f.path.clone(),
            ..Default::default()
        };
        assert_eq!(toml::to_string(f).unwrap(), toml::to_string(&d).unwrap());
        let SinkKind::Clickhouse(c) = &sinks[1].kind else {
            panic!()
        };
        let d = ClickHouseConfig {
            url: c.url.clone(),
            ..Default::default()
        };
        assert_eq!(toml::to_string(c).unwrap(), toml::to_string(&d).unwrap());
    }

    /// The `[[sink]]` example of docs/stream-and-sinks.md is valid configuration.
    #[test]
    fn documented_sink_example_parses() {
        let readme = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/stream-and-sinks.md"
        ))
        .unwrap();
        let start = readme
            .find("```toml\n# config file: sinks")
            .expect("docs/stream-and-sinks.md has the sink example");
        let block = &readme[start + 7..];
        let block = &block[..block.find("```").unwrap()];
        let sinks = parse(block).unwrap();
        let names: Vec<&str> = sinks.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["requests_log", "clickhouse"]);
        assert!(matches!(&sinks[1].kind, SinkKind::Clickhouse(c) if c.create_tables));
    }
}
