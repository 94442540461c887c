//! Request logs: per step (`request_log.step`) and per group (`request_log.group_by`: server,
//! host or script), the slowest requests, those with the highest memory peak, those with the
//! highest CPU time (ru_utime + ru_stime), and the error requests (status ≥ a threshold, the
//! first ones of each status, all counted), each with its tags and timers, kept for
//! `request_log.retention` in `{state_dir}/request_log.sqlite`. Thresholds are global and per
//! server (`[request_log.servers."NAME"]`), as Pinboard's `APP_LOGGING_*` maps.
//!
//! ```text
//!  merger ──► RequestLogTap::offer ──► bounded queue (full → the round's requests dropped, counted)
//!  (every merged round, the Arc)            │
//!                                           ▼  thread "pinbad-reqlog"
//!     per request: its group and server's thresholds (ids resolved once per round), a few
//!     comparisons with the smallest values kept (select::Selector); a request a log takes is
//!     rendered (ndjson, with tags and timers) under the dictionary's read lock
//!     → store::Store::write every second (one transaction: the new entries, each touched top
//!       trimmed back to `top`), prune by retention and by `max_bytes` every minute
//! ```
//!
//! Entries are written as they are picked, not at the step's end: the logs show the current step
//! within a second, and a step written again after a restart keeps the top of both runs. If the
//! store cannot be opened (corrupt, unwritable) the daemon runs without request logs, says so in
//! the log and in `/api/v1/status`.

pub mod select;
pub mod store;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use serde_json::{json, Value};

use crate::config::{LogGroup, RequestLogConfig, Thresholds};
use crate::ndjson::{write_request, ENCODE_CHUNK};
use crate::shutdown::StopGate;
use crate::state::Core;
use crate::tap::{Round, Tap};
use select::{Figures, Selector};
use store::{Entry, Store};

/// Rounds waiting for the writer at most (a round holds at most `merger::ROUND_REQUESTS`
/// requests); beyond, rounds are dropped and their requests counted.
const QUEUE_ROUNDS: usize = 256;
/// How often picked entries are written.
const WRITE_EVERY: Duration = Duration::from_secs(1);
/// How often steps past the retention, and beyond `max_bytes`, are deleted.
const PRUNE_EVERY: Duration = Duration::from_secs(60);
/// Entries picked and not yet written at most: a bound on what the writer holds should the store
/// stall; beyond, picked requests are dropped (counted).
const MAX_PENDING: usize = 100_000;

/// The request logs' shared state (built by `app`, handed to the tap, the writer thread, the
/// API and the status): where the store is and the figures of `/api/v1/status`.
pub struct RequestLog {
    enabled: bool,
    /// `{state_dir}/request_log.sqlite`.
    pub path: PathBuf,
    /// What the logs group by.
    pub group_by: LogGroup,
    running: AtomicBool,
    stop: StopGate,
    error: Mutex<Option<String>>,
    /// The store's file, when start-up found it damaged and set it aside (set once, by
    /// [`start`]; read by the status's `state_files`).
    set_aside: std::sync::OnceLock<crate::durable::SetAside>,
    bytes: AtomicU64,
    rows: AtomicU64,
    /// Unix seconds of the oldest step stored; `i64::MIN` when none.
    oldest: AtomicI64,
    written: AtomicU64,
    replaced: AtomicU64,
    pruned: AtomicU64,
    evicted: AtomicU64,
    dropped: AtomicU64,
    write_errors: AtomicU64,
}

impl RequestLog {
    pub fn new(config: &crate::config::Config) -> RequestLog {
        RequestLog {
            enabled: config.request_log.enabled,
            path: config.state_dir.join(store::FILE),
            group_by: config.request_log.group_by,
            running: AtomicBool::new(false),
            stop: StopGate::default(),
            error: Mutex::new(None),
            set_aside: std::sync::OnceLock::new(),
            bytes: AtomicU64::new(0),
            rows: AtomicU64::new(0),
            oldest: AtomicI64::new(i64::MIN),
            written: AtomicU64::new(0),
            replaced: AtomicU64::new(0),
            pruned: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            write_errors: AtomicU64::new(0),
        }
    }

    /// The store's file, when start-up found it damaged and set it aside.
    pub fn set_aside(&self) -> Option<&crate::durable::SetAside> {
        self.set_aside.get()
    }

    /// Why the logs cannot be read, if they cannot: switched off, or the store did not open.
    pub fn unavailable(&self) -> Option<String> {
        if !self.enabled {
            return Some("the request logs are switched off (request_log.enabled = false)".into());
        }
        self.error.lock().clone()
    }

    /// At the start of a stop: the writer waits at its next pass until
    /// [`WriterHandle::request_stop`], so that the snapshot, written first, has the cores.
    pub fn hold(&self) {
        self.stop.hold();
    }

    /// `request_log` of `/api/v1/status` (and the `pinbad_request_log_*` series of `/metrics`).
    pub fn status(&self) -> Value {
        let oldest = self.oldest.load(Relaxed);
        json!({
            "enabled": self.enabled,
            "available": self.running.load(Relaxed),
            "error": self.error.lock().clone(),
            "group_by": self.group_by.as_str(),
            "bytes": self.bytes.load(Relaxed),
            "rows": self.rows.load(Relaxed),
            "oldest": (oldest != i64::MIN).then_some(oldest),
            "written": self.written.load(Relaxed),
            "replaced": self.replaced.load(Relaxed),
            "pruned": self.pruned.load(Relaxed),
            "evicted": self.evicted.load(Relaxed),
            "dropped": self.dropped.load(Relaxed),
            "write_errors": self.write_errors.load(Relaxed),
        })
    }

    fn drop_requests(&self, n: u64) {
        self.dropped.fetch_add(n, Relaxed);
    }
}

/// The merger's end of the writer's queue.
struct RequestLogTap {
    tx: SyncSender<Arc<Round>>,
    log: Arc<RequestLog>,
}

impl Tap for RequestLogTap {
    fn name(&self) -> &str {
        "request_log"
    }

    fn offer(&self, round: &Arc<Round>) {
        if round.batch().is_empty() {
            return;
        }
        if self.tx.try_send(Arc::clone(round)).is_err() {
            self.log.drop_requests(round.batch().len() as u64);
        }
    }
}

/// The writer thread, once started.
pub struct WriterHandle {
    thread: std::thread::JoinHandle<()>,
    tap: Arc<dyn Tap>,
}

impl WriterHandle {
    /// Asks for the last write, done by `deadline` (call once the merger has stopped). Returns
    /// at once.
    pub fn request_stop(&self, log: &RequestLog, deadline: Instant) {
        log.stop.request(deadline);
        self.thread.thread().unpark();
    }

    /// Unregisters the tap and waits for the writer to end, at most until `until`: `false`
    /// when it had not (it is left to end with the process).
    pub fn wait(self, core: &Core, until: Instant) -> bool {
        core.taps().remove(&self.tap);
        crate::shutdown::join_until(self.thread, until)
    }
}

/// Opens the store, registers the tap and starts "pinbad-reqlog" (before the merger, so that no
/// round is missed). A damaged or empty store is set aside and replaced by a new one. `None` when
/// the logs are off or the store cannot be opened even so: the daemon then runs without them
/// (logged, and shown in `/api/v1/status`), it never fails for it.
pub fn start(core: &Arc<Core>, log: &Arc<RequestLog>) -> std::io::Result<Option<WriterHandle>> {
    if !log.enabled {
        return Ok(None);
    }
    // A damaged file is set aside and a new store made in its place (see `store`).
    let (store, aside) = Store::open_or_set_aside(&log.path);
    if let Some(aside) = aside {
        let _ = log.set_aside.set(aside);
    }
    let store = match store {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(path = %log.path.display(), error = %e, "Cannot open the request log store: running without request logs (move the file away to start a new one)");
            *log.error.lock() = Some(format!("{}: {e}", log.path.display()));
            return Ok(None);
        }
    };
    let config = &core.config().request_log;
    let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE_ROUNDS);
    let mut writer = Writer {
        core: Arc::clone(core),
        log: Arc::clone(log),
        store,
        selector: Selector::new(
            config.step.0.as_millis() as u64,
            config.top,
            config.max_errors,
            config.max_groups,
        ),
        thresholds: ThresholdMap::new(config),
        pending: Vec::new(),
        counts: Vec::new(),
        last_prune: Instant::now(),
    };
    writer.prune();
    tracing::info!(path = %log.path.display(), rows = log.rows.load(Relaxed), "Request log store");
    log.running.store(true, Relaxed);
    let tap: Arc<dyn Tap> = Arc::new(RequestLogTap {
        tx,
        log: Arc::clone(log),
    });
    core.taps().add(Arc::clone(&tap));
    let thread = std::thread::Builder::new()
        .name("pinbad-reqlog".into())
        .spawn(move || writer.run(&rx));
    match thread {
        Ok(thread) => Ok(Some(WriterHandle { thread, tap })),
        Err(e) => {
            core.taps().remove(&tap);
            Err(e)
        }
    }
}

/// The thresholds of each server that has its own, and the global ones.
struct ThresholdMap {
    global: Thresholds,
    servers: HashMap<String, Thresholds>,
}

impl ThresholdMap {
    fn new(config: &RequestLogConfig) -> ThresholdMap {
        ThresholdMap {
            global: config.global(),
            servers: config
                .servers
                .iter()
                .map(|(name, t)| (name.clone(), config.merged(t)))
                .collect(),
        }
    }

    /// The thresholds requests of `server` are held to.
    fn of(&self, server: &str) -> Thresholds {
        self.servers.get(server).copied().unwrap_or(self.global)
    }
}

/// The writer's state (on "pinbad-reqlog").
struct Writer {
    core: Arc<Core>,
    log: Arc<RequestLog>,
    store: Store,
    selector: Selector,
    thresholds: ThresholdMap,
    /// Picked and not yet written.
    pending: Vec<Entry>,
    /// Error counts of steps left, not yet written: `(step start in unix seconds, group, status,
    /// count)`.
    counts: Vec<(i64, Box<str>, u32, u64)>,
    last_prune: Instant,
}

impl Writer {
    fn run(mut self, rx: &Receiver<Arc<Round>>) {
        let log = Arc::clone(&self.log);
        let mut last_write = Instant::now();
        while !log.stop.stopping() {
            let wait = WRITE_EVERY.saturating_sub(last_write.elapsed());
            match rx.recv_timeout(wait) {
                Ok(round) => self.take(&round),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if last_write.elapsed() >= WRITE_EVERY {
                if log.stop.checkpoint().is_err() {
                    break;
                }
                self.write();
                last_write = Instant::now();
                if self.last_prune.elapsed() >= PRUNE_EVERY {
                    self.prune();
                }
            }
        }
        // The merger has stopped: what it handed over, then the last write, by the deadline.
        while let Ok(round) = rx.try_recv() {
            if log.stop.checkpoint().is_err() {
                break;
            }
            self.take(&round);
        }
        if log.stop.checkpoint().is_ok() {
            self.write();
            self.publish();
        } else {
            let n = self.pending.len() as u64
                + rx.try_iter().map(|r| r.batch().len() as u64).sum::<u64>();
            log.drop_requests(n);
            tracing::warn!(
                entries = n,
                "Request logs: the stop's deadline came before everything was written; the rest is dropped (request_log.dropped)"
            );
        }
    }

    /// Considers every request of `round` (see the module's doc).
    fn take(&mut self, round: &Round) {
        let core = Arc::clone(&self.core);
        let clock = core.clock();
        let unix_ms = clock.unix_ms64(round.now_ms());
        if self
            .selector
            .step_start()
            .is_some_and(|s| s != unix_ms - unix_ms % self.step_ms())
        {
            self.leave_step();
        }
        let t = (self.selector.enter(unix_ms) / 1000) as i64;
        let group_by = self.log.group_by;
        // Ids name the same strings for the whole round: each group's and server's is looked up
        // once per round, not once per request.
        let mut groups: FxHashMap<u32, Option<usize>> = FxHashMap::default();
        let mut servers: FxHashMap<u32, Thresholds> = FxHashMap::default();
        let history_ms = core.config().stats_history.0.as_millis() as u64;
        let mut dropped = 0u64;
        let mut views = round.batch().views().peekable();
        while views.peek().is_some() {
            // Read under the dictionary's read lock, which a sweep needs for writing: a round
            // found young enough keeps its strings while this chunk is looked at (as the sinks).
            let dict = core.dictionary().read();
            if clock.now_ms64().saturating_sub(round.now_ms()) >= history_ms {
                dropped += views.count() as u64;
                break;
            }
            for v in views.by_ref().take(ENCODE_CHUNK) {
                let r = v.record;
                let gid = match group_by {
                    LogGroup::ServerName => r.server_name,
                    LogGroup::Hostname => r.hostname,
                    LogGroup::ScriptName => r.script_name,
                };
                let selector = &mut self.selector;
                let group = *groups
                    .entry(gid)
                    .or_insert_with(|| selector.group(&dict.text(gid)));
                let Some(group) = group else {
                    dropped += 1;
                    continue;
                };
                let th = &self.thresholds;
                let thresholds = *servers
                    .entry(r.server_name)
                    .or_insert_with(|| th.of(&dict.text(r.server_name)));
                let figures = Figures {
                    request_time: r.request_time,
                    memory_peak: r.memory_peak,
                    cpu: r.ru_utime + r.ru_stime,
                    status: r.status,
                };
                let picks = self.selector.consider(group, &figures, &thresholds);
                if picks.is_empty() {
                    continue;
                }
                if self.pending.len() >= MAX_PENDING {
                    dropped += 1;
                    continue;
                }
                let mut doc = Vec::with_capacity(512);
                write_request(&mut doc, &v, &dict, unix_ms, true);
                let request: Arc<str> = String::from_utf8_lossy(&doc).into();
                let group = self.selector.name(group).to_string();
                for kind in picks.kinds() {
                    self.pending.push(Entry {
                        kind,
                        t,
                        group: group.clone(),
                        server_name: dict.text(r.server_name).into_owned(),
                        hostname: dict.text(r.hostname).into_owned(),
                        script_name: dict.text(r.script_name).into_owned(),
                        status: r.status,
                        value: figures.value(kind),
                        time_ms: unix_ms,
                        request_id: v.id,
                        request: Arc::clone(&request),
                    });
                }
            }
        }
        dropped += self.selector.take_dropped();
        if dropped > 0 {
            self.log.drop_requests(dropped);
        }
    }

    fn step_ms(&self) -> u64 {
        self.core.config().request_log.step.0.as_millis().max(1) as u64
    }

    /// The current step ends: its error counts not yet taken go with the next write.
    fn leave_step(&mut self) {
        let Some(start) = self.selector.step_start() else {
            return;
        };
        let t = (start / 1000) as i64;
        for (group, status, n) in self.selector.take_error_counts() {
            self.counts.push((t, group, status, n));
        }
    }

    /// Writes what was picked since the last write, and the error counts.
    fn write(&mut self) {
        if let Some(start) = self.selector.step_start() {
            let t = (start / 1000) as i64;
            for (group, status, n) in self.selector.take_error_counts() {
                self.counts.push((t, group, status, n));
            }
        }
        if self.pending.is_empty() && self.counts.is_empty() {
            return;
        }
        let config = &self.core.config().request_log;
        let entries = std::mem::take(&mut self.pending);
        let counts = std::mem::take(&mut self.counts);
        match self
            .store
            .write(&entries, &counts, config.top, config.max_errors)
        {
            Ok(w) => {
                self.log.written.fetch_add(w.inserted, Relaxed);
                self.log.replaced.fetch_add(w.replaced, Relaxed);
                let rows = self.log.rows.load(Relaxed) + w.inserted;
                self.log
                    .rows
                    .store(rows.saturating_sub(w.replaced), Relaxed);
                self.log.bytes.store(self.store.bytes(), Relaxed);
                if self.log.oldest.load(Relaxed) == i64::MIN {
                    if let Some(e) = entries.first() {
                        self.log.oldest.store(e.t, Relaxed);
                    }
                }
            }
            Err(e) => {
                self.log.write_errors.fetch_add(1, Relaxed);
                self.log.drop_requests(entries.len() as u64);
                tracing::error!(error = %e, entries = entries.len(), path = %self.log.path.display(), "Request log store: cannot write");
            }
        }
    }

    /// Deletes the steps past the retention, then the oldest while beyond `max_bytes`.
    fn prune(&mut self) {
        self.last_prune = Instant::now();
        let config = &self.core.config().request_log;
        let clock = self.core.clock();
        let now_s = (clock.unix_ms64(clock.now_ms64()) / 1000) as i64;
        let before = now_s - config.retention.0.as_secs() as i64;
        match self.store.prune(before) {
            Ok(n) => {
                self.log.pruned.fetch_add(n, Relaxed);
            }
            Err(e) => self.failed(&e, "prune"),
        }
        match self.store.bound(config.max_bytes.0) {
            Ok(n) if n > 0 => {
                self.log.evicted.fetch_add(n, Relaxed);
                tracing::warn!(entries = n, max_bytes = config.max_bytes.0, "Request logs: the oldest steps deleted to stay within request_log.max_bytes (request_log.evicted)");
            }
            Ok(_) => {}
            Err(e) => self.failed(&e, "keep within max_bytes"),
        }
        self.publish();
    }

    /// Copies the store's figures out for `/api/v1/status`.
    fn publish(&self) {
        match self.store.count_rows() {
            Ok(n) => self.log.rows.store(n, Relaxed),
            Err(e) => self.failed(&e, "count rows"),
        }
        self.log.bytes.store(self.store.bytes(), Relaxed);
        if let Ok(oldest) = self.store.oldest() {
            self.log.oldest.store(oldest.unwrap_or(i64::MIN), Relaxed);
        }
    }

    fn failed(&self, e: &store::StoreError, what: &str) {
        self.log.write_errors.fetch_add(1, Relaxed);
        tracing::error!(error = %e, path = %self.log.path.display(), "Request log store: cannot {what}");
    }
}
