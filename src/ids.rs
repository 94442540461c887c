//! Request ids that never repeat for an instance: not across restarts, not after `kill -9`, not
//! after a snapshot (or an old copy of one) is restored.
//!
//! The raw pool numbers requests consecutively (`Pool::insert`); this module says where that
//! count may start and keeps a durable record of how far it may go. `{state_dir}/ids.json`
//! holds `reserved_end`: no run has used an id at or past it. Ids are reserved [`BLOCK`] at a
//! time and the file is synced (through [`crate::durable::write_json`]) *before* any id of a
//! block is handed out, so after a crash the next run starts at the reserved end, past every id
//! the crashed run could have used: ids stay dense (a crash skips less than one block) and far
//! below 2^48 (the SQL front end's `timer.id` is `request_id << 16 | i`).
//!
//! A clean stop also records `clean_end`, the first id the run did not use, so the next run
//! continues from there without a gap, and keeps the ids of the requests its snapshot restores
//! only when that snapshot is the stop's own (`clean_end` equals the snapshot's next id). A
//! snapshot from before (a copy restored by hand, or one written before a crash) has its
//! requests numbered afresh from the first unused id instead.
//!
//! No state of this file stops a start (a restart loop would receive nothing at all):
//! - **Damaged or unreadable** (`: > ids.json`, a truncated write by hand, a directory in its
//!   place): it is set aside as `ids.json.damaged` ([`crate::durable::set_aside`], counted in
//!   the status's `state_files`) and the ids start past [`clock_floor`]: the wall clock's
//!   milliseconds since 2024 times [`FLOOR_IDS_PER_MS`]. Nothing else on disk says how far the
//!   lost file had reserved (the snapshot knows its own requests, taken into account after the
//!   restore, but neither a crashed run nor the sinks' files and ClickHouse leave a bound that
//!   is cheap to read at start), and the clock is a bound every run passes on the way: an
//!   instance that has used fewer than 256 ids per millisecond since 2024 on average (256k
//!   requests/s, each crash's skipped block of 4M ids counted) has used none at or past it, so
//!   `(instance, id)` stays unique. Why this pace: the ids must stay below 2^48 (the SQL
//!   `timer.id`), and 256/ms reaches it only in 2058, while 1024/ms would in 2032. What the
//!   damaged file still shows of `reserved_end` (a file truncated after the number) raises
//!   the start further.
//! - **Unwritable** (a full disk, a read-only mount): the reservation is held in memory, the
//!   failure logged once and counted (`state_files.ids`: `unsaved`, `write_failures`), and the
//!   `pinbad-ids` thread writes it again every [`RETRY`] until it succeeds (logged), so the
//!   file is right again soon after space returns. Until then a crash, or a stop that cannot
//!   write it either, may repeat the ids handed out since the last successful write: the
//!   price of receiving meanwhile rather than stopping.
//!
//! Threads: opened and begun on the main thread at start; [`Ids::ensure`] runs on the merge
//! thread under the pool's write lock (a few atomic reads; it asks the `pinbad-ids` thread to
//! reserve the next block once half of the current one is used, and writes itself only when
//! that thread has fallen a whole half-block behind); [`Ids::finish`] at shutdown.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::durable::SetAside;

/// Ids reserved per write of `ids.json`: what a crash may skip, and (half of it) how far ahead
/// of the merger the reservation stays. At 1M requests/s, a write every 2 s; 2^48 ids last 67
/// million crashes.
pub const BLOCK: u64 = 1 << 22;

/// The file's name in `state_dir`.
pub const FILE: &str = "ids.json";

/// How often the `pinbad-ids` thread writes an unwritten reservation again (see the module
/// docs, "Unwritable").
pub const RETRY: Duration = Duration::from_secs(1);

/// Where [`clock_floor`] counts from: 2024-01-01T00:00:00Z, before any pinbad handed out an id,
/// in unix milliseconds.
pub const FLOOR_EPOCH_MS: u64 = 1_704_067_200_000;

/// The ids per millisecond since [`FLOOR_EPOCH_MS`] that [`clock_floor`] assumes no instance
/// exceeded on average (see the module docs for why 256).
pub const FLOOR_IDS_PER_MS: u64 = 256;

/// The first id a run may hand out when `ids.json` is lost, at unix time `now_ms`: past every
/// id of an instance that has kept below [`FLOOR_IDS_PER_MS`] on average since
/// [`FLOOR_EPOCH_MS`], and below 2^48 until 2058.
pub fn clock_floor(now_ms: u64) -> u64 {
    now_ms
        .saturating_sub(FLOOR_EPOCH_MS)
        .saturating_mul(FLOOR_IDS_PER_MS)
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Saved {
    /// No run used an id at or past this one.
    reserved_end: u64,
    /// Written by a clean stop only: the first id that run did not use.
    #[serde(default)]
    clean_end: Option<u64>,
}

/// The first id no run may reach: the SQL front end's `timer.id` is `request_id << 16 | i`, so
/// ids stay below 2^48 (the clock floor's pace reaches it in 2058).
pub const MAX_ID: u64 = 1 << 48;

impl Saved {
    /// Why the file cannot be right, if it cannot: an id at or past [`MAX_ID`] (no run gets
    /// there: taken, it would leave every later id out of the raw tables), or a clean end past
    /// the reservation.
    fn nonsense(&self) -> Option<String> {
        if self.reserved_end >= MAX_ID {
            return Some(format!(
                "reserved_end {} is at or past 2^48",
                self.reserved_end
            ));
        }
        match self.clean_end {
            Some(end) if end > self.reserved_end => Some(format!(
                "clean_end {end} is past reserved_end {}",
                self.reserved_end
            )),
            _ => None,
        }
    }
}

/// The `pinbad-ids` thread could not be started.
#[derive(Debug, thiserror::Error)]
#[error("state_dir: {path}: {reason}")]
pub struct IdsError {
    path: PathBuf,
    reason: String,
}

/// The durable record of the request ids handed out. See the module docs.
pub struct Ids {
    /// `None`: not backed by a file (tests, benches, `check-config`): ids start at 0.
    path: Option<PathBuf>,
    /// Ids below this are covered by a synced reservation (`u64::MAX` without a file).
    reserved_end: AtomicU64,
    /// What the file said at open (when it was damaged: where ids start instead).
    saved: Saved,
    /// The file, when open found it damaged or unreadable and set it aside (the status).
    set_aside: Option<SetAside>,
    /// One writer at a time (the `pinbad-ids` thread, a merge round that caught it up, the stop).
    write: Mutex<()>,
    /// To the `pinbad-ids` thread: reserve a block past this id.
    ahead: Mutex<Option<SyncSender<u64>>>,
    /// A block is asked for and not yet written.
    asked: AtomicBool,
    /// The reservation in memory (`reserved_end`) is past what the file holds: its last write
    /// failed. Set by the writer that failed, cleared by the next that succeeds; the
    /// `pinbad-ids` thread retries every [`RETRY`] while it is set.
    unsaved: AtomicBool,
    /// Writes of the file that failed (the first of a run of them logged, see `reserve`).
    pub failures: AtomicU64,
}

impl Ids {
    /// Ids not backed by a file: they start at 0 and are never written down.
    pub fn unbacked() -> Ids {
        Ids {
            path: None,
            reserved_end: AtomicU64::new(u64::MAX),
            saved: Saved::default(),
            set_aside: None,
            write: Mutex::new(()),
            ahead: Mutex::new(None),
            asked: AtomicBool::new(false),
            unsaved: AtomicBool::new(false),
            failures: AtomicU64::new(0),
        }
    }

    /// Reads `{state_dir}/ids.json` (none yet: ids start at 0). A file that cannot be read or
    /// parsed is set aside and the ids start past [`clock_floor`] (see the module docs): going
    /// on from 0 would hand out ids an earlier run may have used, and stopping would start a
    /// restart loop that receives nothing.
    pub fn open(state_dir: &Path) -> Ids {
        let path = state_dir.join(FILE);
        let lost = |reason: String, text: &[u8]| {
            let now_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            let start = clock_floor(now_ms).max(salvaged_end(text).unwrap_or(0));
            let instead = format!(
                "request ids start at {start}, past the wall clock's floor for them (see \
                 docs/stream-and-sinks.md, \"The ClickHouse schema\")"
            );
            let aside = crate::durable::set_aside(&path, &reason, &instead);
            let saved = Saved {
                reserved_end: start,
                clean_end: None,
            };
            (saved, Some(aside))
        };
        let (saved, set_aside) = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<Saved>(&bytes) {
                // What the file says is set aside too (`salvaged_end` not asked: it would take
                // the number back).
                Ok(saved) => match saved.nonsense() {
                    Some(why) => lost(format!("out of range ({why})"), &[]),
                    None => (saved, None),
                },
                Err(e) if bytes.is_empty() => lost(format!("empty ({e})"), &bytes),
                Err(e) => lost(format!("damaged ({e})"), &bytes),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Saved::default(), None),
            Err(e) => lost(format!("cannot read it: {e}"), &[]),
        };
        Ids {
            path: Some(path),
            reserved_end: AtomicU64::new(0),
            saved,
            set_aside,
            ..Ids::unbacked()
        }
    }

    /// The file, when [`Ids::open`] found it damaged and set it aside.
    pub fn set_aside(&self) -> Option<&SetAside> {
        self.set_aside.as_ref()
    }

    /// Whether ids are handed out past what the file holds: its last write failed (the status's
    /// `state_files.ids.unsaved`).
    pub fn unsaved(&self) -> bool {
        self.unsaved.load(Ordering::Acquire)
    }

    /// The first id no earlier run used.
    pub fn first_unused(&self) -> u64 {
        self.saved.clean_end.unwrap_or(self.saved.reserved_end)
    }

    /// The id a restored snapshot's first request gets: its own (`snapshot_first`) when the
    /// snapshot is the last clean stop's (its next id, `snapshot_end`, is where that stop
    /// ended), else the first unused id (the requests are numbered afresh).
    pub fn restored_first(&self, snapshot_first: u64, snapshot_end: u64) -> u64 {
        if self.path.is_none() || self.saved.clean_end == Some(snapshot_end) {
            snapshot_first
        } else {
            self.first_unused()
        }
    }

    /// Start-up, before the merger: reserves the first block from `next` (the pool's next id)
    /// and starts the `pinbad-ids` thread that reserves the following ones. A reservation that
    /// cannot be written (a full disk) is held in memory, logged and counted, and written by
    /// that thread once it can be: only a thread that cannot start is an error.
    pub fn begin(self: &Arc<Self>, next: u64) -> Result<(), IdsError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        self.reserve(next.saturating_add(BLOCK));
        let (tx, rx) = sync_channel::<u64>(1);
        let ids = Arc::clone(self);
        std::thread::Builder::new()
            .name("pinbad-ids".into())
            .spawn(move || {
                // Ends when the sender goes (`finish`), or with the process. Wakes every
                // `RETRY` to write a reservation that could not be written (cheap otherwise:
                // one atomic read a second).
                loop {
                    match rx.recv_timeout(RETRY) {
                        Ok(next) => {
                            ids.reserve(next.saturating_add(BLOCK));
                            ids.asked.store(false, Ordering::Release);
                        }
                        Err(RecvTimeoutError::Timeout) => {
                            if ids.unsaved.load(Ordering::Acquire) {
                                ids.reserve(0);
                            }
                        }
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
            })
            .map_err(|e| IdsError {
                path: path.clone(),
                reason: format!("cannot start its thread: {e}"),
            })?;
        *self.ahead.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
        Ok(())
    }

    /// The merge thread, under the pool's write lock, before inserting `count` requests from
    /// id `next`: makes sure their ids are reserved (the common case: one atomic read), asks
    /// for the next block once half of this one is used, and reserves itself (a synced write)
    /// only when the ids would pass the reservation.
    pub fn ensure(&self, next: u64, count: usize) {
        let need = next.saturating_add(count as u64);
        let end = self.reserved_end.load(Ordering::Acquire);
        if need <= end.saturating_sub(BLOCK / 2) {
            return;
        }
        if need > end {
            self.reserve(need.saturating_add(BLOCK));
        } else if !self.asked.swap(true, Ordering::AcqRel) {
            let sent = self
                .ahead
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .is_some_and(|tx| tx.try_send(next).is_ok());
            if !sent {
                self.asked.store(false, Ordering::Release);
            }
        }
    }

    /// A clean stop, once nothing merges any more: records `next` (the pool's next id) as the
    /// first id this run did not use, and ends the `pinbad-ids` thread.
    pub fn finish(&self, next: u64) -> Result<(), String> {
        self.ahead.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(path) = &self.path else {
            return Ok(());
        };
        let end = self.reserved_end.load(Ordering::Acquire).max(next);
        self.write(end, Some(next))
            .map(|_| ())
            .map_err(|e| format!("{} could not be written: {e}", path.display()))
    }

    /// Moves the reservation to `end` (when further; with an unwritten one, writes that again).
    /// A failed write is counted, and logged when it is the first of a run of failures (the
    /// retries every [`RETRY`] would fill the log on a full disk); the ids are handed out
    /// anyway (a crash before the next successful write may repeat them), the file is written
    /// again by the `pinbad-ids` thread, and the write that succeeds says so.
    fn reserve(&self, end: u64) {
        match self.write(end, None) {
            Ok(Some(failed)) => tracing::info!(
                path = ?self.path,
                failed_writes = failed,
                "Request ids reserved on disk again"
            ),
            Ok(None) => {}
            Err(e) => {
                self.failures.fetch_add(1, Ordering::Relaxed);
                self.reserved_end.fetch_max(end, Ordering::AcqRel);
                if !self.unsaved.swap(true, Ordering::AcqRel) {
                    tracing::error!(
                        path = ?self.path,
                        error = %e,
                        "Cannot reserve request ids on disk: they are reserved in memory and \
                         the file is written again every second until it can be; after a crash \
                         before then, ids may repeat"
                    );
                }
            }
        }
    }

    /// Writes the reservation `end` (at least what is reserved in memory) and, at a clean stop,
    /// `clean_end`. `Ok(Some(n))`: it was written after `n` failed writes.
    fn write(&self, end: u64, clean_end: Option<u64>) -> std::io::Result<Option<u64>> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        let _one = self.write.lock().unwrap_or_else(|e| e.into_inner());
        let unsaved = self.unsaved.load(Ordering::Acquire);
        let held = self.reserved_end.load(Ordering::Acquire);
        if clean_end.is_none() && !unsaved && end <= held {
            return Ok(None);
        }
        let end = end.max(held);
        let saved = Saved {
            reserved_end: end,
            clean_end,
        };
        crate::durable::write_json(path, &saved)?;
        self.reserved_end.fetch_max(end, Ordering::AcqRel);
        if unsaved {
            self.unsaved.store(false, Ordering::Release);
            return Ok(Some(self.failures.load(Ordering::Relaxed)));
        }
        Ok(None)
    }
}

/// What a damaged `ids.json` still shows of its `reserved_end`: the digits after the key (a
/// file truncated after them, or with its end garbled). A number cut short is smaller than the
/// one written, so what this finds never overshoots the reservation; `None` when there is none.
fn salvaged_end(text: &[u8]) -> Option<u64> {
    let key = b"\"reserved_end\"";
    let at = text.windows(key.len()).position(|w| w == key)? + key.len();
    let rest = &text[at..];
    let start = rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b':'))?;
    let digits: Vec<u8> = rest[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .copied()
        .collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn a_crash_starts_past_every_reserved_id_and_a_clean_stop_where_it_ended() {
        let d = dir();
        let ids = Arc::new(Ids::open(d.path()));
        assert_eq!(ids.first_unused(), 0);
        ids.begin(0).unwrap();
        // Past the first block: reserved synchronously, never handed out unreserved.
        ids.ensure(BLOCK - 10, 100);
        assert!(ids.reserved_end.load(Ordering::Acquire) >= BLOCK + 90);
        drop(ids); // a crash: no finish
        let again = Ids::open(d.path());
        assert!(again.first_unused() >= BLOCK + 90);
        // A snapshot of that run is numbered afresh.
        assert_eq!(again.restored_first(5, 50), again.first_unused());

        let again = Arc::new(again);
        let start = again.first_unused();
        again.begin(start).unwrap();
        again.finish(start + 7).unwrap();
        let third = Ids::open(d.path());
        assert_eq!(third.first_unused(), start + 7);
        // The clean stop's own snapshot keeps its ids; another is numbered afresh.
        assert_eq!(third.restored_first(start, start + 7), start);
        assert_eq!(third.restored_first(start, start + 6), start + 7);
    }

    #[test]
    fn half_a_block_used_asks_the_thread_for_the_next() {
        let d = dir();
        let ids = Arc::new(Ids::open(d.path()));
        ids.begin(0).unwrap();
        ids.ensure(BLOCK / 2 + 1, 1);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while ids.reserved_end.load(Ordering::Acquire) < BLOCK + BLOCK / 2 {
            assert!(std::time::Instant::now() < deadline, "no reservation ahead");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(Ids::open(d.path()).first_unused() >= BLOCK + BLOCK / 2);
    }

    fn now_ms() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    }

    /// A damaged, empty or unreadable file stops no start: it is set aside (as the other state
    /// files are) and the ids start past the clock's floor, or past what the file still shows
    /// of its reservation when that is further.
    #[test]
    fn a_damaged_file_is_set_aside_and_ids_start_past_the_clock() {
        let big = (1u64 << 48) - 1000;
        let cases: [(&[u8], &str); 3] = [
            (b"", "empty"),
            (b"{nope", "damaged"),
            (
                b"{\n  \"reserved_end\": 281474976709656,\n  \"clean_",
                "damaged",
            ),
        ];
        for (text, why) in cases {
            let d = dir();
            std::fs::write(d.path().join(FILE), text).unwrap();
            let floor = clock_floor(now_ms());
            let ids = Ids::open(d.path());
            let aside = ids.set_aside().expect("set aside");
            assert_eq!(aside.file, FILE);
            assert!(aside.reason.contains(why), "{}", aside.reason);
            assert_eq!(
                aside.moved_to.as_deref(),
                Some(d.path().join("ids.json.damaged").as_path())
            );
            assert!(!d.path().join(FILE).exists());
            assert!(
                ids.first_unused() >= floor && floor > 1 << 40,
                "{}",
                ids.first_unused()
            );
            // A snapshot is numbered afresh: nothing says it is the last clean stop's.
            assert_eq!(ids.restored_first(5, 50), ids.first_unused());
            if text.len() > 10 {
                assert_eq!(ids.first_unused(), big);
            }
        }
        // A directory in the file's place cannot be read: set aside too.
        let d = dir();
        std::fs::create_dir(d.path().join(FILE)).unwrap();
        let ids = Ids::open(d.path());
        assert!(ids.set_aside().unwrap().reason.contains("cannot read"));
        assert!(ids.first_unused() >= clock_floor(now_ms() - 60_000));
        // A missing file is a new state directory: from 0, nothing set aside.
        let d = dir();
        let ids = Ids::open(d.path());
        assert!(ids.set_aside().is_none() && ids.first_unused() == 0);
    }

    /// A file that parses but cannot be right (an id no run reaches, a clean end past the
    /// reservation) is set aside naming what is wrong, and the ids start past the clock's floor,
    /// below 2^48.
    #[test]
    fn a_file_out_of_range_is_set_aside() {
        for (text, why) in [
            (
                format!("{{\"reserved_end\": {}}}", u64::MAX),
                "reserved_end 18446744073709551615 is at or past 2^48",
            ),
            (
                format!("{{\"reserved_end\": {}}}", 1u64 << 50),
                "at or past 2^48",
            ),
            (
                "{\"reserved_end\": 100, \"clean_end\": 200}".to_string(),
                "clean_end 200 is past reserved_end 100",
            ),
        ] {
            let d = dir();
            std::fs::write(d.path().join(FILE), &text).unwrap();
            let floor = clock_floor(now_ms());
            let ids = Ids::open(d.path());
            let aside = ids.set_aside().expect("set aside");
            assert!(aside.reason.contains(why), "{}", aside.reason);
            assert!(
                (floor..MAX_ID).contains(&ids.first_unused()),
                "{}",
                ids.first_unused()
            );
        }
    }

    /// The floor's pace keeps it below 2^48 (the SQL `timer.id`) until 2058.
    #[test]
    fn the_clock_floor_stays_below_2_48_until_2058() {
        assert_eq!(clock_floor(FLOOR_EPOCH_MS + 1000), 256_000);
        assert_eq!(clock_floor(0), 0);
        let y2058_ms = 2_777_068_800_000; // 2058-01-01T00:00:00Z
        assert!(clock_floor(y2058_ms) < 1 << 48);
    }

    /// A file that cannot be written (a full disk; here the temporary file's name is taken by a
    /// directory, which stops root too) stops no start: the reservation is held in memory,
    /// counted, and written by the `pinbad-ids` thread once it can be.
    #[test]
    fn an_unwritable_file_is_reserved_in_memory_and_written_once_it_can_be() {
        let d = dir();
        let blocker = d.path().join("ids.json.tmp");
        std::fs::create_dir(&blocker).unwrap();
        let ids = Arc::new(Ids::open(d.path()));
        ids.begin(5).unwrap();
        assert!(ids.failures.load(Ordering::Relaxed) >= 1);
        assert!(ids.unsaved());
        assert!(ids.reserved_end.load(Ordering::Acquire) >= 5 + BLOCK);
        assert!(!d.path().join(FILE).exists());
        // Past the block: handed out from memory, not waiting for the disk.
        ids.ensure(BLOCK + 5, 10);
        assert!(ids.reserved_end.load(Ordering::Acquire) >= 2 * BLOCK + 15);
        std::fs::remove_dir(&blocker).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while ids.unsaved() {
            assert!(std::time::Instant::now() < deadline, "never written again");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(Ids::open(d.path()).first_unused() >= 2 * BLOCK + 15);
    }
}
