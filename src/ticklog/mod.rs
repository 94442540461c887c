//! The tick log: every report tick, as it closes, appended to `{state_dir}/ticklog/`, so that a
//! start after a crash (`kill -9`, the OOM killer, a power loss), which finds no snapshot,
//! restores every report's window but its open tick. The raw pool is lost.
//!
//! ```text
//!  merge threads ──► TickLog::hand_over ──► inbox (ArrayQueue, bounded: full → drop, count
//!  (each report's closed ticks,  never blocks         `dropped_ticks`)
//!   Arc-shared, no copy)                                  │
//!                                                         ▼  thread "pinbad-ticklog"
//!     a segment's records: the strings the tick names (each id once a segment, resolved under
//!     the dictionary's read lock), the report (once a segment), the tick; written, then the
//!     file's data synced, each pass (every 200 ms while ticks come); segments rotated every
//!     quarter of the longest window and deleted once the window has left them, the whole
//!     log bounded by `ticklog.max_bytes`
//! ```
//!
//! The source is the reports' own outboxes (`Report::take_closed_ticks`): every report keeps its
//! closed ticks while the log is on, and the merge threads hand them to `app`'s composition of
//! the tick taps (`tap::TickFanOut`: history and this log). Nothing is done per request: a tick
//! is encoded once, as the snapshot encodes a window's ticks, on this thread.
//!
//! At start ([`restore_at_start`], after the snapshot's restore and before the merger): a start
//! whose snapshot restored the window (a clean stop) has nothing to take from the log. Otherwise
//! the clock resumes the log's epoch and each report gets the logged ticks still inside its
//! window, if its definition and window are those it was logged with (see `restore`). Files:
//! `segment` (the format), `restore`.
//!
//! At stop: held while the snapshot is written, then what waits is written by the stop's
//! deadline; the rest is dropped and counted (the snapshot has it).
//!
//! Memory: what the writer holds (the ids the current segment names, its scratch buffers, each
//! as large as the largest tick it encoded lately, freed after a pass when above
//! [`SCRATCH_KEEP`]) is counted against the memory budget after every pass.

mod restore;
pub mod segment;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_queue::ArrayQueue;
use parking_lot::Mutex;
use rustc_hash::FxHashSet;
use serde::Serialize;
use serde_json::{json, Value};

use crate::dictionary::LOST;
use crate::record::NO_SCHEMA;
use crate::report::{ClosedTick, ReportCell};
use crate::shutdown::{Late, StopGate};
use crate::state::Core;
pub use restore::restore_at_start;
use segment::{Kind, SegmentFile};

/// Ticks waiting for the writer at most (all reports together); beyond, ticks are dropped and
/// counted. The writer takes them five times a second: reached only if the disk stalls.
const INBOX_TICKS: usize = 4096;
/// How often the writer wakes to write what came.
const WAKE_EVERY: Duration = Duration::from_millis(200);
/// How often segments are rotated and deleted when due, and the figures published.
const TIDY_EVERY: Duration = Duration::from_secs(1);
/// Ids whose strings are looked up under one hold of the dictionary's read lock.
const RESOLVE_CHUNK: usize = 4096;
/// How long after the longest window a segment is kept (its last tick, written a little after
/// it closed, is then out of every window).
const KEEP_MARGIN: Duration = Duration::from_secs(10);
/// How often a tick dropped for `max_bytes` or a failed write is said in the log, at most.
const SAY_EVERY: Duration = Duration::from_secs(60);
/// Scratch a pass keeps for the next (bytes, each buffer): a busy report's tick fits, while a
/// flood's ticks do not keep their buffers' tens of MB.
const SCRATCH_KEEP: usize = 4 << 20;

/// What a start took from the log, or why nothing: `/api/v1/status` shows it as
/// `ticklog.restored`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Restored {
    /// Ticks put back into reports' windows.
    pub ticks: u64,
    /// Reports that got ticks back.
    pub reports: u64,
    /// Reports whose logged ticks were skipped: their definition or window changed since.
    pub skipped_reports: Vec<String>,
    /// Why nothing was taken from the log (`null` when something was).
    pub skipped_reason: Option<String>,
    /// Records that could not be read (a segment cut by a crash, or damaged): each ends its
    /// segment.
    pub damaged_segments: u64,
    /// Time the restore took, reading the files included.
    pub restore_ms: f64,
}

/// The tick log's shared state (built by `app`, handed to the merger as a
/// [`TickTap`](crate::tap::TickTap), to the writer thread and to the status).
pub struct TickLog {
    enabled: bool,
    /// `{state_dir}/ticklog`.
    pub dir: PathBuf,
    max_bytes: u64,
    /// Filled by the merge threads (never blocking: full → dropped, counted), drained by the
    /// writer.
    inbox: ArrayQueue<(Arc<ReportCell>, Arc<ClosedTick>)>,
    /// Whether the writer runs: ticks handed over otherwise are not kept.
    running: AtomicBool,
    stop: StopGate,
    /// Why the log cannot be written, if it cannot.
    error: Mutex<Option<String>>,
    restored: Mutex<Restored>,
    bytes: AtomicU64,
    segments: AtomicU64,
    written_ticks: AtomicU64,
    written_bytes: AtomicU64,
    dropped_ticks: AtomicU64,
    write_errors: AtomicU64,
    /// Ticks handed over and not yet written and synced (or dropped).
    queued: AtomicU64,
    /// What the writer holds (bytes), as told to the memory budget.
    memory_bytes: AtomicU64,
    /// Times the directory, which could not be written at start, was by the writer's retries.
    reopened: AtomicU64,
}

impl TickLog {
    pub fn new(config: &crate::config::Config) -> TickLog {
        TickLog {
            enabled: config.ticklog.enabled,
            dir: config.state_dir.join(segment::DIR),
            max_bytes: config.ticklog.max_bytes.0,
            inbox: ArrayQueue::new(INBOX_TICKS),
            running: AtomicBool::new(false),
            stop: StopGate::default(),
            error: Mutex::new(None),
            restored: Mutex::new(Restored::default()),
            bytes: AtomicU64::new(0),
            segments: AtomicU64::new(0),
            written_ticks: AtomicU64::new(0),
            written_bytes: AtomicU64::new(0),
            dropped_ticks: AtomicU64::new(0),
            write_errors: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            memory_bytes: AtomicU64::new(0),
            reopened: AtomicU64::new(0),
        }
    }

    /// At the start of a stop: the writer waits until [`WriterHandle::request_stop`], so that
    /// the snapshot, written first, has the disk.
    pub fn hold(&self) {
        self.stop.hold();
    }

    /// `ticklog` of `/api/v1/status` (and the `pinbad_ticklog_*` series of `/metrics`).
    pub fn status(&self) -> Value {
        json!({
            "enabled": self.enabled,
            "available": self.running.load(Relaxed),
            "error": self.error.lock().clone(),
            "bytes": self.bytes.load(Relaxed),
            "segments": self.segments.load(Relaxed),
            "written_ticks": self.written_ticks.load(Relaxed),
            "written_bytes": self.written_bytes.load(Relaxed),
            "dropped_ticks": self.dropped_ticks.load(Relaxed),
            "write_errors": self.write_errors.load(Relaxed),
            "current_queued": self.queued.load(Relaxed),
            "memory_bytes": self.memory_bytes.load(Relaxed),
            "reopened": self.reopened.load(Relaxed),
            "restored": *self.restored.lock(),
        })
    }
}

/// The merge threads hand closed ticks to the writer's inbox. Never blocks: a full inbox drops
/// the tick and counts it.
impl crate::tap::TickTap for TickLog {
    fn hand_over(&self, cell: &Arc<ReportCell>, (ticks, dropped): (Vec<Arc<ClosedTick>>, u64)) {
        if !self.enabled {
            return;
        }
        if !self.running.load(Relaxed) {
            // The directory could not be written and is being tried again: these ticks miss it.
            self.dropped_ticks
                .fetch_add(ticks.len() as u64 + dropped, Relaxed);
            return;
        }
        if dropped > 0 {
            self.dropped_ticks.fetch_add(dropped, Relaxed);
        }
        for tick in ticks {
            self.queued.fetch_add(1, Relaxed);
            if self.inbox.push((Arc::clone(cell), tick)).is_err() {
                self.queued.fetch_sub(1, Relaxed);
                self.dropped_ticks.fetch_add(1, Relaxed);
            }
        }
    }

    /// A shared table's ticks are logged once, under the first report reading it: a restore
    /// fills the table, and with it every report sharing it.
    fn hand_over_shared(&self, cells: &[Arc<ReportCell>], closed: (Vec<Arc<ClosedTick>>, u64)) {
        if let Some(first) = cells.first() {
            self.hand_over(first, closed);
        }
    }
}

/// The writer thread, once started.
pub struct WriterHandle {
    thread: std::thread::JoinHandle<()>,
}

impl WriterHandle {
    /// Asks the writer to write what waits by `deadline`, then end (the rest is dropped and
    /// counted). Returns at once.
    pub fn request_stop(&self, log: &TickLog, deadline: Instant) {
        log.stop.request(deadline);
        self.thread.thread().unpark();
    }

    /// Waits for the writer to end, at most until `until`: `false` when it had not (a write
    /// that hangs; it ends with the process, and a record it cut is skipped when read back).
    pub fn wait(self, until: Instant) -> bool {
        crate::shutdown::join_until(self.thread, until)
    }
}

/// Starts "pinbad-ticklog" on a new segment (after the restore, before the merger). `None` when
/// the log is off. A directory that cannot be written (a full disk, read-only, a file in its
/// place) is logged once and shown in the status, and the thread makes its segment again with a
/// back-off ([`crate::shutdown::Reopen`]): the daemon never fails for it, and the log comes back
/// by itself once the disk has room (`ticklog.reopened`). The ticks closed meanwhile are not in
/// it (`ticklog.dropped_ticks`).
pub fn start(shared: &Arc<Core>, log: &Arc<TickLog>) -> std::io::Result<Option<WriterHandle>> {
    if !log.enabled {
        return Ok(None);
    }
    let writer = Writer::open(shared, log);
    if writer.is_none() {
        log.write_errors.fetch_add(1, Relaxed);
        tracing::error!(path = %log.dir.display(), error = log.error.lock().as_deref().unwrap_or(""), "Cannot write the tick log: running without it (a crash will lose the reports' windows), tried again every {} s at most until it can", crate::shutdown::Reopen::MAX.as_secs());
    }
    let (shared, log) = (Arc::clone(shared), Arc::clone(log));
    let thread = std::thread::Builder::new()
        .name("pinbad-ticklog".into())
        .spawn(move || {
            let writer = writer.or_else(|| {
                let writer =
                    crate::shutdown::Reopen::until_open(&log.stop, || Writer::open(&shared, &log))?;
                log.reopened.fetch_add(1, Relaxed);
                tracing::info!(path = %log.dir.display(), "Tick log opened: the reports' windows are logged again");
                Some(writer)
            });
            if let Some(writer) = writer {
                writer.run();
            }
        })?;
    Ok(Some(WriterHandle { thread }))
}

/// The writer's state (on "pinbad-ticklog").
struct Writer {
    shared: Arc<Core>,
    log: Arc<TickLog>,
    current: SegmentFile,
    /// When `current` was created.
    opened: Instant,
    /// The ids whose strings `current` holds.
    written: FxHashSet<u32>,
    /// The reports `current` holds, by name: the cell and its number in the segment (numbers
    /// are not reused within a segment: a report dropped and created again gets a new one).
    reports: HashMap<String, (Arc<ReportCell>, u32)>,
    next_report: u32,
    /// Bytes of every segment, `current` included.
    total_bytes: u64,
    last_tidy: Instant,
    /// When a drop for `max_bytes` or a failed write was last said.
    last_said: Option<Instant>,
    /// Scratch: a tick's record, and the record of the strings it needs; a tick encoded, and
    /// compressed.
    tick_record: Vec<u8>,
    strings_record: Vec<u8>,
    tick_raw: Vec<u8>,
    tick_lz4: Vec<u8>,
    /// What the writer holds, against the memory budget (see [`Writer::settle_memory`]).
    account: crate::budget::Account,
}

impl Writer {
    /// Makes a new segment after the directory's last, tidies the old ones, and marks the log
    /// running. `None` when the directory cannot be written: the error is kept for the status
    /// (`ticklog.error`).
    fn open(shared: &Arc<Core>, log: &Arc<TickLog>) -> Option<Writer> {
        let opened = segment::list(&log.dir).and_then(|old| {
            let seq = old.last().map_or(0, |(s, _)| s + 1);
            SegmentFile::create(&log.dir, seq, shared.clock().epoch_unix_ms())
        });
        let current = match opened {
            Ok(s) => s,
            Err(e) => {
                *log.error.lock() = Some(format!("{}: {e}", log.dir.display()));
                return None;
            }
        };
        let mut writer = Writer {
            shared: Arc::clone(shared),
            log: Arc::clone(log),
            current,
            opened: Instant::now(),
            written: FxHashSet::default(),
            reports: HashMap::new(),
            next_report: 0,
            total_bytes: 0,
            last_tidy: Instant::now(),
            last_said: None,
            tick_record: Vec::new(),
            strings_record: Vec::new(),
            tick_raw: Vec::new(),
            tick_lz4: Vec::new(),
            account: crate::budget::Account::new(Arc::clone(shared.budget())),
        };
        writer.tidy();
        *log.error.lock() = None;
        log.running.store(true, Relaxed);
        Some(writer)
    }

    fn run(mut self) {
        let log = Arc::clone(&self.log);
        let done = (|| {
            while !log.stop.stopping() {
                std::thread::park_timeout(WAKE_EVERY);
                self.pass()?;
            }
            // What the merger handed over last.
            self.pass()
        })();
        if done.is_err() {
            let mut left = 0u64;
            while log.inbox.pop().is_some() {
                left += 1;
            }
            log.dropped_ticks.fetch_add(left, Relaxed);
            log.queued.fetch_sub(left, Relaxed);
            tracing::warn!(
                ticks = left,
                "Tick log: the stop's deadline came before everything was written; the rest is \
                 dropped (ticklog.dropped_ticks)"
            );
        }
    }

    /// Writes every tick waiting, syncs, and tidies the segments when due.
    fn pass(&mut self) -> Result<(), Late> {
        let log = Arc::clone(&self.log);
        let (mut taken, mut ticks, mut bytes) = (0, 0, 0);
        let done = self.write_waiting(&log, &mut taken, &mut ticks, &mut bytes);
        if ticks > 0 {
            match self.current.sync() {
                Ok(()) => {
                    log.written_ticks.fetch_add(ticks, Relaxed);
                    log.written_bytes.fetch_add(bytes, Relaxed);
                }
                Err(e) => self.failed(&e, ticks),
            }
        }
        log.queued.fetch_sub(taken, Relaxed);
        self.settle_memory();
        done?;
        if self.last_tidy.elapsed() >= TIDY_EVERY {
            self.tidy();
        }
        Ok(())
    }

    /// Writes the ticks waiting (`taken` of them; `ticks` written, `bytes` theirs) until none
    /// waits, or the stop's deadline.
    fn write_waiting(
        &mut self,
        log: &TickLog,
        taken: &mut u64,
        ticks: &mut u64,
        bytes: &mut u64,
    ) -> Result<(), Late> {
        while let Some((cell, tick)) = {
            log.stop.checkpoint()?;
            log.inbox.pop()
        } {
            *taken += 1;
            match self.write(&cell, &tick) {
                Ok(Some(n)) => {
                    *ticks += 1;
                    *bytes += n;
                }
                Ok(None) => {}
                Err(e) => self.failed(&e, 1),
            }
        }
        Ok(())
    }

    /// A write or sync that failed: its ticks are counted as dropped, the error said at most
    /// every [`SAY_EVERY`]; the next tick goes to a new segment.
    fn failed(&mut self, e: &std::io::Error, ticks: u64) {
        let log = &self.log;
        log.write_errors.fetch_add(1, Relaxed);
        log.dropped_ticks.fetch_add(ticks, Relaxed);
        if self.say() {
            tracing::error!(path = %self.current.path.display(), error = %e, "Tick log: cannot write; ticks dropped (a crash now loses them)");
        }
        self.rotate();
    }

    /// Frees scratch buffers above [`SCRATCH_KEEP`], and tells the memory budget what the
    /// writer holds: the ids of the current segment, its reports and the scratch.
    fn settle_memory(&mut self) {
        let mut scratch = 0;
        for buf in [
            &mut self.tick_record,
            &mut self.strings_record,
            &mut self.tick_raw,
            &mut self.tick_lz4,
        ] {
            if buf.capacity() > SCRATCH_KEEP {
                *buf = Vec::new();
            }
            scratch += buf.capacity();
        }
        let ids = crate::budget::table_bytes(self.written.capacity(), 4);
        let reports = self.reports.len() * 128;
        let bytes = (scratch + ids + reports) as u64;
        self.account.settle(bytes);
        self.log.memory_bytes.store(bytes, Relaxed);
    }

    fn say(&mut self) -> bool {
        let due = self.last_said.is_none_or(|t| t.elapsed() >= SAY_EVERY);
        if due {
            self.last_said = Some(Instant::now());
        }
        due
    }

    /// Appends `tick` of `cell` (after the strings and the report it needs, when the segment
    /// does not hold them yet): its bytes, or `None` when it was not written (its report
    /// dropped meanwhile, or no room left in `max_bytes`).
    fn write(&mut self, cell: &Arc<ReportCell>, tick: &ClosedTick) -> std::io::Result<Option<u64>> {
        let live = self
            .shared
            .reports()
            .get(cell.name())
            .is_some_and(|c| Arc::ptr_eq(&c, cell));
        if !live {
            return Ok(None);
        }
        let (report, report_record, id_keys) = self.report_record(cell)?;
        let report_bytes = report_record
            .as_ref()
            .map_or(0, |p| (p.len() + segment::FRAME_BYTES) as u64);
        let new_ids = self.new_ids(tick, &id_keys);
        let strings_bytes = if new_ids.is_empty() {
            0
        } else {
            self.encode_strings(&new_ids)?
        };
        let tick_bytes = self.encode_tick(report, tick)?;
        let needed = report_bytes + strings_bytes + tick_bytes;
        if self.total_bytes + needed > self.log.max_bytes {
            self.log.dropped_ticks.fetch_add(1, Relaxed);
            if self.say() {
                tracing::warn!(max_bytes = self.log.max_bytes, "Tick log: full (ticklog.max_bytes); ticks dropped until older segments leave the window");
            }
            return Ok(None);
        }
        if let Some(payload) = report_record {
            self.current.append(&payload)?;
            self.reports
                .insert(cell.name().to_string(), (Arc::clone(cell), report));
            self.next_report += 1;
        }
        if strings_bytes > 0 {
            self.current.append(&self.strings_record)?;
            self.written.extend(new_ids);
        }
        self.current.append(&self.tick_record)?;
        self.total_bytes += needed;
        Ok(Some(needed))
    }

    /// Encodes `tick` of report number `report` into `tick_record`, returning the record's
    /// size: the tick as the snapshot writes a window's ticks, LZ4-compressed (its histograms'
    /// 64-bit counts are mostly zero bytes: about a third of the size, at a few ms a MB).
    fn encode_tick(&mut self, report: u32, tick: &ClosedTick) -> std::io::Result<u64> {
        self.tick_raw.clear();
        let mut w = crate::codec::Writer::with_capacity(&mut self.tick_raw, 4096);
        tick.write(&mut w)?;
        w.finish()?;
        let raw_len = u32::try_from(self.tick_raw.len())
            .map_err(|_| std::io::Error::other("a tick too large for one record"))?;
        self.tick_lz4.resize(
            lz4_flex::block::get_maximum_output_size(self.tick_raw.len()),
            0,
        );
        let n = lz4_flex::block::compress_into(&self.tick_raw, &mut self.tick_lz4)
            .map_err(std::io::Error::other)?;
        let compressed = &self.tick_lz4[..n];
        segment::encode(&mut self.tick_record, Kind::Tick, |w| {
            w.u32(report)?;
            w.u64(tick.index())?;
            w.u32(raw_len)?;
            w.blob(compressed)
        })
    }

    /// The report's number in the segment and which of its keys are string ids; with its
    /// record's payload (name, definition, window, `complete_from`) when the segment does not
    /// hold it yet (or holds another report of its name).
    fn report_record(
        &self,
        cell: &Arc<ReportCell>,
    ) -> std::io::Result<(u32, Option<Vec<u8>>, Vec<bool>)> {
        let r = cell.report.read();
        let id_keys = r.id_keys();
        if let Some((c, n)) = self.reports.get(cell.name()) {
            if Arc::ptr_eq(c, cell) {
                return Ok((*n, None, id_keys));
            }
        }
        let n = self.next_report;
        let def = serde_json::to_vec(&cell.def_of(&r)).map_err(std::io::Error::other)?;
        let (window, complete_from) = (r.window(), r.complete_from_ms());
        drop(r);
        let mut payload = Vec::new();
        segment::encode(&mut payload, Kind::Report, |w| {
            w.u32(n)?;
            w.blob(cell.name().as_bytes())?;
            w.blob(&def)?;
            window.write(w)?;
            w.u64(complete_from)
        })?;
        Ok((n, Some(payload), id_keys))
    }

    /// The ids of `tick`'s keys (those `id_keys` says are strings) the segment does not hold.
    fn new_ids(&self, tick: &ClosedTick, id_keys: &[bool]) -> Vec<u32> {
        let mut new: Vec<u32> = Vec::new();
        let mut seen = FxHashSet::default();
        for (ids, _, _) in tick.rows() {
            for (&id, &is_id) in ids.iter().zip(id_keys) {
                if is_id
                    && id != LOST
                    && id != NO_SCHEMA
                    && !self.written.contains(&id)
                    && seen.insert(id)
                {
                    new.push(id);
                }
            }
        }
        new
    }

    /// Encodes the strings of `ids` into `strings_record` (the dictionary's read lock taken per
    /// chunk), returning the record's size.
    fn encode_strings(&mut self, ids: &[u32]) -> std::io::Result<u64> {
        let dictionary = self.shared.dictionary();
        segment::encode(&mut self.strings_record, Kind::Strings, |w| {
            w.u32(ids.len() as u32)?;
            for chunk in ids.chunks(RESOLVE_CHUNK) {
                let dict = dictionary.read();
                for &id in chunk {
                    let s = dict.get(id);
                    w.u32(id)?;
                    w.u32(s.len() as u32)?;
                    w.bytes(s)?;
                }
            }
            Ok(())
        })
    }

    /// Starts a new segment: the next tick writes its strings and report again.
    fn rotate(&mut self) {
        let _ = self.current.sync();
        let seq = self.current.seq + 1;
        match SegmentFile::create(&self.log.dir, seq, self.shared.clock().epoch_unix_ms()) {
            Ok(s) => {
                self.current = s;
                self.opened = Instant::now();
                self.written.clear();
                self.reports.clear();
                self.next_report = 0;
            }
            Err(e) => {
                self.log.write_errors.fetch_add(1, Relaxed);
                if self.say() {
                    tracing::error!(path = %self.log.dir.display(), error = %e, "Tick log: cannot start a new segment; writing on in the current one");
                }
            }
        }
    }

    /// Rotates the current segment once it is a quarter of the longest window old, deletes the
    /// segments the window has left (their last write older than the longest window), and
    /// publishes the figures.
    fn tidy(&mut self) {
        self.last_tidy = Instant::now();
        let longest = Duration::from_millis(crate::snapshot::longest_window_ms(&self.shared));
        if self.opened.elapsed() >= (longest / 4).max(Duration::from_secs(1)) {
            self.rotate();
        }
        let segments = match segment::list(&self.log.dir) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(path = %self.log.dir.display(), error = %e, "Tick log: cannot list its segments");
                return;
            }
        };
        let (mut bytes, mut count) = (0, 0);
        let now = std::time::SystemTime::now();
        for (seq, path) in segments {
            let Ok(meta) = path.metadata() else { continue };
            let gone = meta
                .modified()
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age > longest + KEEP_MARGIN);
            if seq != self.current.seq && gone {
                match std::fs::remove_file(&path) {
                    Ok(()) => continue,
                    Err(e) => {
                        tracing::warn!(path = %path.display(), error = %e, "Tick log: cannot delete a segment the window has left")
                    }
                }
            }
            bytes += meta.len().max(if seq == self.current.seq {
                self.current.bytes
            } else {
                0
            });
            count += 1;
        }
        self.total_bytes = bytes;
        self.log.bytes.store(bytes, Relaxed);
        self.log.segments.store(count, Relaxed);
    }
}
