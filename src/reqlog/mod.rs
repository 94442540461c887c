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
//!
//! Anyone who can send a datagram chooses what is stored, so what is stored is bounded at three
//! levels, each counted:
//! - one entry: its request is rendered within `max_entry_bytes` and `max_entry_timers` (a
//!   datagram within every decoder limit renders to tens of megabytes with its timers); the
//!   first timers are kept, then the request tags that fit (`cut`, `cut_timers`, `cut_tags`);
//! - one step: its entries take at most a share of `max_bytes` ([`step_share`]: a tenth of what
//!   the bound keeps, or an equal share when the retention holds fewer steps); past it the
//!   step's largest entries are deleted (`shed`, `shed_bytes`). A cap per step rather than per
//!   server or script, because a flood chooses its names (60 datagrams under 60 server names
//!   get 60 shares) but not its time: one step's flood can take a tenth of the history at most,
//!   and within the step the flood's large entries go before the ordinary ones;
//! - the store: after every write its files (WAL included) are brought back under
//!   `max_bytes`, the oldest step's largest entries first (`evicted`); writes are at most a
//!   fortieth of `max_bytes` each, so the files stay within the bound between checks.

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
use crate::ndjson::{write_request_within, Bound, ENCODE_CHUNK};
use crate::shutdown::StopGate;
use crate::state::Core;
use crate::tap::{Round, Tap};
use select::{Figures, Kind, Selector};
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

/// What one step's entries may take at most (their requests' JSON): a tenth of what
/// [`store::target`] keeps, or an equal share of it where the retention holds fewer than ten
/// steps. See the module's doc for why per step.
pub fn step_share(config: &RequestLogConfig) -> u64 {
    let steps = (config.retention.0.as_secs() / config.step.0.as_secs().max(1)).clamp(1, 10);
    store::target(config.max_bytes.0) / steps
}

/// Bytes of picked entries written at once at most: a fortieth of `max_bytes`, so that a write
/// takes the files little past the bound before it is checked again.
fn write_chunk(config: &RequestLogConfig) -> u64 {
    config.max_bytes.0 / 40
}

/// What one entry's request may take rendered: `max_entry_bytes`, and at most a write's chunk
/// (a small `max_bytes` bounds its entries too).
fn entry_bytes(config: &RequestLogConfig) -> u64 {
    config
        .max_entry_bytes
        .0
        .min(write_chunk(config).max(*crate::config::REQUEST_LOG_ENTRY_BYTES.start()))
}

/// The request logs' shared state (built by `app`, handed to the tap, the writer thread, the
/// API and the status): where the store is and the figures of `/api/v1/status`.
pub struct RequestLog {
    enabled: bool,
    /// `{state_dir}/request_log.sqlite`.
    pub path: PathBuf,
    /// What the logs group by.
    pub group_by: LogGroup,
    /// How each log picks what it keeps (said in every answer, see [`RequestLog::sampling`]).
    rules: Rules,
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
    cut: AtomicU64,
    cut_timers: AtomicU64,
    cut_tags: AtomicU64,
    shed: AtomicU64,
    shed_bytes: AtomicU64,
    reopened: AtomicU64,
}

impl RequestLog {
    pub fn new(config: &crate::config::Config) -> RequestLog {
        RequestLog {
            enabled: config.request_log.enabled,
            path: config.state_dir.join(store::FILE),
            group_by: config.request_log.group_by,
            rules: Rules::of(&config.request_log),
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
            cut: AtomicU64::new(0),
            cut_timers: AtomicU64::new(0),
            cut_tags: AtomicU64::new(0),
            shed: AtomicU64::new(0),
            shed_bytes: AtomicU64::new(0),
            reopened: AtomicU64::new(0),
        }
    }

    /// How log `kind` picks what it keeps, for its answers (`sampling`): the rule in words, the
    /// entries a group and step keep at most, the step, the threshold and the servers with
    /// thresholds of their own. A log that keeps a sample says so where it is read: "errors (30)"
    /// beside 130 errors in the window read as a miscount without it (issue 82).
    pub fn sampling(&self, kind: Kind) -> Value {
        let r = &self.rules;
        let group = self.group_by.as_str();
        let step = r.step;
        // What a top log takes: its requests, the condition, the threshold and its key.
        let (what, threshold, key) = match kind {
            Kind::Slow => ("slowest requests", json!(r.min_time), "min_time"),
            Kind::Memory => (
                "requests with the highest memory_peak",
                json!(r.min_memory),
                "min_memory",
            ),
            Kind::Cpu => (
                "requests with the most CPU (ru_utime + ru_stime)",
                json!(r.min_cpu),
                "min_cpu",
            ),
            Kind::Errors => ("", json!(r.error_status), "error_status"),
        };
        let (per_step, rule) = match kind {
            Kind::Errors => (
                r.max_errors,
                format!(
                    "the first {} requests of each status, {group} and {step}-second step with a status of at least {threshold}, every one counted (request_log.max_errors, request_log.{key})",
                    r.max_errors
                ),
            ),
            _ => {
                let cond = match kind {
                    Kind::Slow => format!("that took at least {threshold} s"),
                    Kind::Memory => format!("of at least {threshold} bytes"),
                    _ => format!("of at least {threshold} s"),
                };
                (
                    r.top,
                    format!(
                        "the {} {what} of each {group} and {step}-second step {cond} (request_log.top, request_log.{key})",
                        r.top
                    ),
                )
            }
        };
        json!({
            "rule": rule,
            "per_step": per_step,
            "step": r.step,
            "threshold": threshold,
            "servers_with_own_thresholds": r.servers,
        })
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
            "cut": self.cut.load(Relaxed),
            "cut_timers": self.cut_timers.load(Relaxed),
            "cut_tags": self.cut_tags.load(Relaxed),
            "shed": self.shed.load(Relaxed),
            "shed_bytes": self.shed_bytes.load(Relaxed),
            "reopened": self.reopened.load(Relaxed),
        })
    }

    fn drop_requests(&self, n: u64) {
        self.dropped.fetch_add(n, Relaxed);
    }
}

/// How the logs pick what they keep, from `[request_log]` (see [`RequestLog::sampling`]).
struct Rules {
    top: usize,
    max_errors: usize,
    /// Seconds.
    step: u64,
    /// Seconds.
    min_time: f64,
    min_memory: u64,
    /// Seconds.
    min_cpu: f64,
    error_status: u32,
    /// The servers with thresholds of their own (`[request_log.servers."NAME"]`), by name.
    servers: Vec<String>,
}

impl Rules {
    fn of(c: &RequestLogConfig) -> Rules {
        Rules {
            top: c.top,
            max_errors: c.max_errors,
            step: c.step.0.as_secs(),
            min_time: c.min_time.0.as_secs_f64(),
            min_memory: c.min_memory.0,
            min_cpu: c.min_cpu.0.as_secs_f64(),
            error_status: c.error_status,
            servers: c.servers.keys().cloned().collect(),
        }
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
/// the logs are off. A store that cannot be opened even so (a full disk, a directory in its
/// place, read-only) is logged once, shown in `/api/v1/status`, and opened again by the writer
/// with a back-off ([`crate::shutdown::Reopen`]), the entries it picks held
/// meanwhile up to a write's chunk: the daemon never fails for it, and the logs come back by
/// themselves once the disk has room.
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
        Ok(s) => Some(s),
        Err(e) => {
            tracing::error!(path = %log.path.display(), error = %e, "Cannot open the request log store: the request logs hold what they pick (request_log.max_bytes / 40 at most) and try again every {} s at most until it opens", crate::shutdown::Reopen::MAX.as_secs());
            *log.error.lock() = Some(format!("{}: {e}", log.path.display()));
            None
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
        pending_bytes: 0,
        step_bytes: None,
        counts: Vec::new(),
        last_prune: Instant::now(),
        reopen: crate::shutdown::Reopen::default(),
        evicted_line: crate::logging::Throttle::new(PRUNE_EVERY),
        shed_line: crate::logging::Throttle::new(PRUNE_EVERY),
    };
    if writer.store.is_some() {
        writer.prune();
        tracing::info!(path = %log.path.display(), rows = log.rows.load(Relaxed), "Request log store");
        log.running.store(true, Relaxed);
    }
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
    /// `None` while the store would not open (see [`start`]).
    store: Option<Store>,
    selector: Selector,
    thresholds: ThresholdMap,
    /// Picked and not yet written.
    pending: Vec<Entry>,
    /// The bytes of the requests of `pending` (each counted once, however many logs took it).
    pending_bytes: u64,
    /// The step last written to (unix seconds) and what its entries take, as far as this writer
    /// knows: read from the store when a step is first written to, then what each write adds
    /// (which may overcount what the tops replaced: [`Writer::keep_step_share`] reads it again).
    step_bytes: Option<(i64, u64)>,
    /// Error counts of steps left, not yet written: `(step start in unix seconds, group, status,
    /// count)`.
    counts: Vec<(i64, Box<str>, u32, u64)>,
    last_prune: Instant,
    /// When a store that would not open is tried again.
    reopen: crate::shutdown::Reopen,
    evicted_line: crate::logging::Throttle,
    shed_line: crate::logging::Throttle,
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
                if self.store.is_none() && self.reopen.due() {
                    self.reopen();
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
        if self.store.is_none() {
            log.drop_requests(self.pending.len() as u64);
        } else if log.stop.checkpoint().is_ok() {
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
        let config = &core.config().request_log;
        let bound = Bound {
            max_timers: config.max_entry_timers,
            max_bytes: usize::try_from(entry_bytes(config)).unwrap_or(usize::MAX),
        };
        let chunk = write_chunk(config);
        let mut dropped = 0u64;
        let mut views = round.batch().views().peekable();
        while views.peek().is_some() {
            if self.pending_bytes >= chunk {
                self.write();
            }
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
                if self.pending.len() >= MAX_PENDING
                    || (self.store.is_none() && self.pending_bytes >= chunk)
                {
                    dropped += 1;
                    continue;
                }
                let mut doc = Vec::with_capacity(512);
                let left_out = write_request_within(&mut doc, &v, &dict, unix_ms, true, bound);
                if left_out.any() {
                    self.log.cut.fetch_add(1, Relaxed);
                    self.log.cut_timers.fetch_add(left_out.timers, Relaxed);
                    self.log.cut_tags.fetch_add(left_out.tags, Relaxed);
                }
                self.pending_bytes += doc.len() as u64 * picks.kinds().count() as u64;
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
                if self.pending_bytes >= chunk {
                    // Written at the next pass, the dictionary's lock released first.
                    break;
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
        let Some(mut store) = self.store.take() else {
            // Held until the store opens again: the entries bounded in `take`, the error counts
            // here (the oldest kept).
            self.counts.truncate(MAX_PENDING);
            return;
        };
        let core = Arc::clone(&self.core);
        let config = &core.config().request_log;
        let entries = std::mem::take(&mut self.pending);
        let counts = std::mem::take(&mut self.counts);
        self.pending_bytes = 0;
        match store.write(&entries, &counts, config.top, config.max_errors) {
            Ok(w) => {
                self.log.written.fetch_add(w.inserted, Relaxed);
                self.log.replaced.fetch_add(w.replaced, Relaxed);
                let rows = self.log.rows.load(Relaxed) + w.inserted;
                self.log
                    .rows
                    .store(rows.saturating_sub(w.replaced), Relaxed);
                self.log.bytes.store(store.bytes(), Relaxed);
                if self.log.oldest.load(Relaxed) == i64::MIN {
                    if let Some(e) = entries.first() {
                        self.log.oldest.store(e.t, Relaxed);
                    }
                }
                self.keep_step_share(&mut store, &entries, config);
                self.keep_bound(&mut store, config);
                self.log.bytes.store(store.bytes(), Relaxed);
            }
            Err(e) => {
                self.log.write_errors.fetch_add(1, Relaxed);
                self.log.drop_requests(entries.len() as u64);
                tracing::error!(error = %e, entries = entries.len(), path = %self.log.path.display(), "Request log store: cannot write");
            }
        }
        self.store = Some(store);
    }

    /// Deletes the steps past the retention, then the oldest while beyond `max_bytes`.
    fn prune(&mut self) {
        self.last_prune = Instant::now();
        let Some(mut store) = self.store.take() else {
            return;
        };
        let core = Arc::clone(&self.core);
        let config = &core.config().request_log;
        let clock = self.core.clock();
        let now_s = (clock.unix_ms64(clock.now_ms64()) / 1000) as i64;
        let before = now_s - config.retention.0.as_secs() as i64;
        match store.prune(before) {
            Ok(n) => {
                self.log.pruned.fetch_add(n, Relaxed);
            }
            Err(e) => self.failed(&e, "prune"),
        }
        self.keep_bound(&mut store, config);
        self.publish_of(&store);
        self.store = Some(store);
    }

    /// Tries the store again (see [`start`]): once it opens, the logs are back, and what was
    /// held meanwhile is written at once.
    fn reopen(&mut self) {
        match Store::open(&self.log.path) {
            Ok(store) => {
                self.store = Some(store);
                *self.log.error.lock() = None;
                self.log.reopened.fetch_add(1, Relaxed);
                self.log.running.store(true, Relaxed);
                tracing::info!(path = %self.log.path.display(), held = self.pending.len(), "Request log store opened: the request logs are back");
                self.prune();
            }
            Err(e) => {
                self.reopen.failed();
                *self.log.error.lock() = Some(format!("{}: {e}", self.log.path.display()));
            }
        }
    }

    /// After a write: each step written to keeps within [`step_share`], its largest entries
    /// deleted past it (see the module's doc).
    fn keep_step_share(&mut self, store: &mut Store, entries: &[Entry], config: &RequestLogConfig) {
        let share = step_share(config);
        let mut added: Vec<(i64, u64)> = Vec::new();
        for e in entries {
            match added.iter_mut().find(|(t, _)| *t == e.t) {
                Some((_, n)) => *n += e.request.len() as u64,
                None => added.push((e.t, e.request.len() as u64)),
            }
        }
        for (t, n) in added {
            let known = match self.step_bytes {
                Some((step, bytes)) if step == t => Ok(bytes + n),
                // The step's own entries, this write's included.
                _ => store.step_bytes(t),
            };
            let bytes = match known {
                Ok(b) => b,
                Err(e) => return self.failed(&e, "measure a step"),
            };
            if bytes <= share {
                self.step_bytes = Some((t, bytes));
                continue;
            }
            match store.shed(t, share) {
                Ok(shed) => {
                    if let Some(n) = self.shed_line.note(shed.bytes) {
                        tracing::warn!(bytes = n, step = t, share, "Request logs: a step's entries took more than its share of request_log.max_bytes; its largest were deleted (request_log.shed_bytes; one line a minute at most)");
                    }
                    self.log.shed.fetch_add(shed.entries, Relaxed);
                    self.log.shed_bytes.fetch_add(shed.bytes, Relaxed);
                    self.log
                        .rows
                        .fetch_sub(shed.entries.min(self.log.rows.load(Relaxed)), Relaxed);
                    // What the tops replaced is no longer overcounted.
                    self.step_bytes = store.step_bytes(t).ok().map(|b| (t, b));
                }
                Err(e) => self.failed(&e, "keep a step within its share"),
            }
        }
    }

    /// Brings the store's files back within `max_bytes` (see [`store::Store::bound`]).
    fn keep_bound(&mut self, store: &mut Store, config: &RequestLogConfig) {
        match store.bound(config.max_bytes.0) {
            Ok(d) if d.entries > 0 => {
                self.log.evicted.fetch_add(d.entries, Relaxed);
                self.step_bytes = None;
                if let Some(n) = self.evicted_line.note(d.entries) {
                    tracing::warn!(entries = n, max_bytes = config.max_bytes.0, "Request logs: the oldest steps' largest entries deleted to stay within request_log.max_bytes (request_log.evicted; one line a minute at most)");
                }
                self.publish_of(store);
            }
            Ok(_) => {}
            Err(e) => self.failed(&e, "keep within max_bytes"),
        }
    }

    /// Copies the store's figures out for `/api/v1/status` (when it is open).
    fn publish(&self) {
        if let Some(store) = &self.store {
            self.publish_of(store);
        }
    }

    fn publish_of(&self, store: &Store) {
        match store.count_rows() {
            Ok(n) => self.log.rows.store(n, Relaxed),
            Err(e) => self.failed(&e, "count rows"),
        }
        self.log.bytes.store(store.bytes(), Relaxed);
        if let Ok(oldest) = store.oldest() {
            self.log.oldest.store(oldest.unwrap_or(i64::MIN), Relaxed);
        }
    }

    fn failed(&self, e: &store::StoreError, what: &str) {
        self.log.write_errors.fetch_add(1, Relaxed);
        tracing::error!(error = %e, path = %self.log.path.display(), "Request log store: cannot {what}");
    }
}
