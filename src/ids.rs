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
//! Threads: opened and begun on the main thread at start; [`Ids::ensure`] runs on the merge
//! thread under the pool's write lock (a few atomic reads; it asks the `pinbad-ids` thread to
//! reserve the next block once half of the current one is used, and writes itself only when
//! that thread has fallen a whole half-block behind); [`Ids::finish`] at shutdown.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};

/// Ids reserved per write of `ids.json`: what a crash may skip, and (half of it) how far ahead
/// of the merger the reservation stays. At 1M requests/s, a write every 2 s; 2^48 ids last 67
/// million crashes.
pub const BLOCK: u64 = 1 << 22;

/// The file's name in `state_dir`.
pub const FILE: &str = "ids.json";

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Saved {
    /// No run used an id at or past this one.
    reserved_end: u64,
    /// Written by a clean stop only: the first id that run did not use.
    #[serde(default)]
    clean_end: Option<u64>,
}

/// `ids.json` could not be read or written at start-up.
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
    /// What the file said at open.
    saved: Saved,
    /// One writer at a time (the `pinbad-ids` thread, a merge round that caught it up, the stop).
    write: Mutex<()>,
    /// To the `pinbad-ids` thread: reserve a block past this id.
    ahead: Mutex<Option<SyncSender<u64>>>,
    /// A block is asked for and not yet written.
    asked: AtomicBool,
    /// Reservations that could not be written (logged each).
    pub failures: AtomicU64,
}

impl Ids {
    /// Ids not backed by a file: they start at 0 and are never written down.
    pub fn unbacked() -> Ids {
        Ids {
            path: None,
            reserved_end: AtomicU64::new(u64::MAX),
            saved: Saved::default(),
            write: Mutex::new(()),
            ahead: Mutex::new(None),
            asked: AtomicBool::new(false),
            failures: AtomicU64::new(0),
        }
    }

    /// Reads `{state_dir}/ids.json` (none yet: ids start at 0). A file that cannot be read or
    /// parsed stops the start: going on would hand out ids an earlier run may have used.
    pub fn open(state_dir: &Path) -> Result<Ids, IdsError> {
        let path = state_dir.join(FILE);
        let err = |reason: String| IdsError {
            path: path.clone(),
            reason,
        };
        let saved = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<Saved>(&bytes).map_err(|e| {
                err(format!(
                    "damaged ({e}); remove it to start anyway (request ids then start at 0 \
                     and may repeat those of earlier runs)"
                ))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Saved::default(),
            Err(e) => return Err(err(format!("cannot read it: {e}"))),
        };
        Ok(Ids {
            path: Some(path),
            reserved_end: AtomicU64::new(0),
            saved,
            ..Ids::unbacked()
        })
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
    /// and starts the `pinbad-ids` thread that reserves the following ones.
    pub fn begin(self: &Arc<Self>, next: u64) -> Result<(), IdsError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        self.write(next.saturating_add(BLOCK), None)
            .map_err(|e| IdsError {
                path: path.clone(),
                reason: format!("cannot write it: {e}"),
            })?;
        let (tx, rx) = sync_channel::<u64>(1);
        let ids = Arc::clone(self);
        std::thread::Builder::new()
            .name("pinbad-ids".into())
            .spawn(move || {
                // Ends when the sender goes (`finish`), or with the process.
                while let Ok(next) = rx.recv() {
                    ids.reserve(next.saturating_add(BLOCK));
                    ids.asked.store(false, Ordering::Release);
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
            .map_err(|e| format!("{} could not be written: {e}", path.display()))
    }

    /// Moves the reservation to `end` (when further): a failed write is logged and counted, and
    /// the ids are handed out anyway (a crash before the next successful write may repeat them).
    fn reserve(&self, end: u64) {
        if let Err(e) = self.write(end, None) {
            self.failures.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                path = ?self.path,
                error = %e,
                "Cannot reserve request ids: after a crash before the next reservation is \
                 written, ids may repeat"
            );
            self.reserved_end.fetch_max(end, Ordering::AcqRel);
        }
    }

    fn write(&self, end: u64, clean_end: Option<u64>) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let _one = self.write.lock().unwrap_or_else(|e| e.into_inner());
        if clean_end.is_none() && end <= self.reserved_end.load(Ordering::Acquire) {
            return Ok(());
        }
        let saved = Saved {
            reserved_end: end,
            clean_end,
        };
        crate::durable::write_json(path, &saved)?;
        self.reserved_end.fetch_max(end, Ordering::AcqRel);
        Ok(())
    }
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
        let ids = Arc::new(Ids::open(d.path()).unwrap());
        assert_eq!(ids.first_unused(), 0);
        ids.begin(0).unwrap();
        // Past the first block: reserved synchronously, never handed out unreserved.
        ids.ensure(BLOCK - 10, 100);
        assert!(ids.reserved_end.load(Ordering::Acquire) >= BLOCK + 90);
        drop(ids); // a crash: no finish
        let again = Ids::open(d.path()).unwrap();
        assert!(again.first_unused() >= BLOCK + 90);
        // A snapshot of that run is numbered afresh.
        assert_eq!(again.restored_first(5, 50), again.first_unused());

        let again = Arc::new(again);
        let start = again.first_unused();
        again.begin(start).unwrap();
        again.finish(start + 7).unwrap();
        let third = Ids::open(d.path()).unwrap();
        assert_eq!(third.first_unused(), start + 7);
        // The clean stop's own snapshot keeps its ids; another is numbered afresh.
        assert_eq!(third.restored_first(start, start + 7), start);
        assert_eq!(third.restored_first(start, start + 6), start + 7);
    }

    #[test]
    fn half_a_block_used_asks_the_thread_for_the_next() {
        let d = dir();
        let ids = Arc::new(Ids::open(d.path()).unwrap());
        ids.begin(0).unwrap();
        ids.ensure(BLOCK / 2 + 1, 1);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while ids.reserved_end.load(Ordering::Acquire) < BLOCK + BLOCK / 2 {
            assert!(std::time::Instant::now() < deadline, "no reservation ahead");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(Ids::open(d.path()).unwrap().first_unused() >= BLOCK + BLOCK / 2);
    }

    #[test]
    fn a_damaged_file_stops_the_start_naming_it() {
        let d = dir();
        std::fs::write(d.path().join(FILE), b"{nope").unwrap();
        let e = Ids::open(d.path()).err().unwrap().to_string();
        assert!(e.contains("ids.json") && e.contains("damaged"), "{e}");
    }
}
