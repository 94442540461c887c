//! The snapshot: the raw pool and the reports' windows, written to `{state_dir}/snapshot.bin` when
//! the daemon stops and restored when it starts, so that a restart loses only the seconds it was
//! down.
//!
//! In: at shutdown, the shared state after the merger stopped ([`write`](fn@write)); at start-up,
//! the file ([`restore`], before the merger starts). The receivers run meanwhile, both times: they
//! touch only the temp ring and the counters (what they take then is `pending`'s). Out: the file;
//! a restored pool, dictionary, reports and clock; a [`Restored`] summary for `/api/v1/status`.
//! Runs on the main thread, the reports' parts on up to `merge.threads` helpers
//! ("pinbad-snapshot-N", a report each at a time: see `on_threads`); never on the ingest path.
//!
//! Time: pool records and report ticks hold milliseconds since the clock's epoch. A restored
//! daemon's [`Clock`] continues the saved epoch ([`Clock::resume`]), so every restored timestamp is
//! valid as it is. Strings: records and report keys hold dictionary ids; the snapshot saves the
//! live strings with their ids and last use, and restore interns them again (stamped with their
//! saved last use, so the merger's sweep frees them when it would have) and maps old ids to new.
//!
//! Format (little-endian; version [`VERSION`]): a header (magic, version, the clock's epoch and
//! reading, the wall time, and since version 4 the boot's id and `CLOCK_BOOTTIME`: `BootMark`),
//! the dictionary, the pool oldest first, then each report's name, definition, window and window
//! state (length-prefixed, so a report that cannot be restored is skipped alone; its ticks, open
//! tick and, since version 2, its closed part: see
//! `report::snapshot`), in any order, since version 7 the families' stages (`report::SavedFamily`),
//! followed by a trailer: the content's length, its CRC-32,
//! and how long the write took (informational, written after the fsync, outside the checksum).
//! Every length is checked against the bytes left before anything is allocated.
//!
//! Written to a temporary file, fsynced, renamed over `snapshot.bin`, and the directory fsynced.
//! A snapshot is consumed at start-up: deleted once restored (or found too old), renamed to
//! `snapshot.bin.skipped` when it cannot be read (kept for inspection, never read again), so a
//! crash later never restores stale data a second time.

use std::path::{Path, PathBuf};
#[cfg(test)]
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

pub use crate::codec::{Reader, SnapshotError, Writer};
use crate::dictionary::{Dictionary, LOST};
use crate::pool::Pool;
use crate::record::{Record, TagPair, Timer, NO_SCHEMA};
use crate::report::{Layout, ReportDef, Window};
use crate::state::{unix_now_ms, Clock, Core};

/// The snapshot file in `state_dir`.
pub const FILE: &str = "snapshot.bin";
/// Where a snapshot that could not be restored is moved (the previous one is replaced).
pub const SKIPPED_FILE: &str = "snapshot.bin.skipped";
/// The snapshot while a start restores it (see [`restore_at_start`]): found at a start, the one
/// before stopped in the middle of its restore, and it is moved aside, not tried again.
pub const RESTORING_FILE: &str = "snapshot.bin.restoring";
/// The format's version. 2 saves each report's closed part (`agg`); version 1 files, which do
/// not, are still read (their closed part rebuilt from the ticks). 3 saves the reports' time
/// and byte sums (96-bit) in 128 bits; older files' 64-bit sums are read into them. 4 adds the
/// boot's id and `CLOCK_BOOTTIME` (`BootMark`) to the header. 5 adds each report's "(other)" rows
/// (the open tick's, each closed tick's, the closed part's), when each closed-part row was made,
/// and its rows folded away. 6 adds each row's memory_peak sum and largest after its other sums
/// (older files' rows read 0 for both). 7 adds the families' stages after the reports (see
/// `report::SavedFamily`): a stop no longer folds them into their members; older files, whose
/// writers did, have none. 8 writes the reports' and stages' rows compact (LEB128 key ids,
/// sums and buckets: `report::Layout`), under a third of the bytes after a flood of new names.
/// A snapshot of any other version is skipped (start empty).
pub const VERSION: u32 = 8;
/// The oldest version read.
const OLDEST_VERSION: u32 = 1;
const MAGIC: &[u8; 8] = b"PINBADSS";
/// Content length (u64), CRC-32 (u32), write time in µs (u64).
const TRAILER_BYTES: usize = 20;

/// What start-up restored, or why not: `/api/v1/status` shows it as `snapshot`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Restored {
    /// Whether a snapshot was restored.
    pub restored: bool,
    pub restored_requests: u64,
    pub restored_reports: u64,
    /// Reports that start empty although the snapshot had them (definition or window changed).
    pub skipped_reports: Vec<String>,
    /// Families whose stages (requests counted but not yet folded into their members at the
    /// stop) were put back as they were, and those whose stages were folded into their members
    /// at the restore because the configuration changed the family.
    pub restored_stages: u64,
    pub folded_stages: u64,
    /// Why nothing was restored (`null` when something was).
    pub skipped_reason: Option<String>,
    /// Size of the snapshot file.
    pub bytes: u64,
    /// Time the restore took, reading the file included.
    pub restore_ms: f64,
    /// Time the previous run took to write it (encode, write, fsync).
    pub write_ms: Option<f64>,
    /// When it was written (Unix seconds) and how long the daemon was down since.
    pub saved_at: Option<f64>,
    pub down_seconds: Option<f64>,
    /// Datagrams the previous run received while it stopped (after its last merge round), saved
    /// beside the snapshot and merged by this run first (see `pending`).
    pub pending_datagrams: u64,
}

mod encode;
mod file;
mod restore;

#[cfg(test)]
use encode::*;
pub use encode::{encode, write, Output, Written};
use file::*;
pub(crate) use file::{
    check_file, read_file, remove_partial_writes, wall_of_save_now, write_file, BootMark,
};
pub use restore::restore;
pub(crate) use restore::{assign_workers, longest_window_ms, on_threads};

/// At shutdown, once the merger stopped (the receivers may run): writes the snapshot if enabled,
/// and logs the outcome in one line. Never stops the shutdown: a failure is returned (said in
/// the log already) for the exit status, once the rest of the stop is done.
pub fn write_at_shutdown(shared: &Core) -> Result<(), String> {
    if !shared.config().snapshot.enabled {
        return Ok(());
    }
    let dir = &shared.config().state_dir;
    match write(shared, dir) {
        Ok(w) => {
            tracing::info!(
                path = %dir.join(FILE).display(),
                requests = w.requests,
                reports = w.reports,
                bytes = w.bytes,
                write_ms = w.write_ms,
                rss_growth_mib = w.rss_growth.map_or(-1.0, |b| b as f64 / (1 << 20) as f64),
                "Snapshot written"
            );
            Ok(())
        }
        Err(e) => {
            tracing::error!(
                path = %dir.join(FILE).display(),
                error = %e,
                "Cannot write the snapshot; the next start begins empty"
            );
            Err(format!("cannot write {}: {e}", dir.join(FILE).display()))
        }
    }
}

/// At start-up, before the merger starts: restores `{state_dir}/snapshot.bin` into `shared` if
/// enabled, consumes the file, and logs the outcome (or why nothing was restored) in one line.
/// Never fails the start: whatever is wrong with the file, the daemon starts empty.
///
/// Nor does it fail the next one: once opened, the file is renamed [`RESTORING_FILE`] until the
/// restore ends, so a start that dies restoring it (a read error of the mapped file is a
/// SIGBUS; a bug; the OOM killer) leaves it under that name, and the next start moves it aside
/// instead of dying on it again, in a loop under a service manager.
pub fn restore_at_start(shared: &mut Core, restored: &mut Restored) {
    if !shared.config().snapshot.enabled {
        restored.skipped_reason = Some("disabled (snapshot.enabled = false)".into());
        return;
    }
    let path = shared.config().state_dir.join(FILE);
    remove_partial_writes(&shared.config().state_dir, FILE);
    let restoring = shared.config().state_dir.join(RESTORING_FILE);
    if restoring.symlink_metadata().is_ok() {
        let e = SnapshotError::invalid(
            "the previous start stopped while restoring it (killed, crashed, or a read error of \
             the file): not tried again",
        );
        skip(restored, &restoring, &e, true);
    }
    let started = Instant::now();
    let bytes = match read_file(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            tracing::info!(path = %path.display(), "No snapshot to restore; starting empty");
            // (Unless one was just moved aside, above: its reason stays.)
            let s = &mut *restored;
            s.skipped_reason.get_or_insert_with(|| "no snapshot".into());
            return;
        }
        Err(e) => {
            // Kept aside (renamed), as any snapshot that cannot be read: a permission or a disk
            // error says nothing against its content, which the operator may still want.
            let e = SnapshotError::Io(e);
            skip(restored, &path, &e, true);
            return;
        }
    };
    // Opened (a pipe: read whole) before the rename, so a writer of a pipe still finds it.
    let held = match std::fs::rename(&path, &restoring) {
        Ok(()) => restoring,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "Cannot mark the snapshot as being restored; restoring it anyway");
            path.clone()
        }
    };
    restored.bytes = bytes.len() as u64;
    match restore(shared, restored, &bytes) {
        Ok(()) => {
            let s = &mut *restored;
            s.restore_ms = started.elapsed().as_secs_f64() * 1000.0;
            tracing::info!(
                path = %path.display(),
                requests = s.restored_requests,
                reports = s.restored_reports,
                skipped_reports = s.skipped_reports.len(),
                restored_stages = s.restored_stages,
                folded_stages = s.folded_stages,
                bytes = s.bytes,
                restore_ms = s.restore_ms,
                down_seconds = s.down_seconds.unwrap_or(0.0),
                "Snapshot restored"
            );
            if let Err(e) = std::fs::remove_file(&held) {
                tracing::warn!(path = %held.display(), error = %e, "Cannot remove the restored snapshot");
            }
        }
        Err(e) => {
            let keep = !matches!(e, SnapshotError::TooOld { .. });
            skip(restored, &held, &e, keep);
        }
    }
    restored.restore_ms = started.elapsed().as_secs_f64() * 1000.0;
}

/// Logs why a snapshot is skipped, records it for the status, and consumes the file: kept aside
/// as [`SKIPPED_FILE`] when it cannot be read or is damaged (`keep`), else (too old) deleted.
fn skip(restored: &mut Restored, path: &Path, e: &SnapshotError, keep: bool) {
    let reason = e.to_string();
    let aside: PathBuf = path.with_file_name(SKIPPED_FILE);
    let consumed = if keep {
        std::fs::rename(path, &aside)
    } else {
        std::fs::remove_file(path)
    };
    if keep {
        tracing::warn!(
            path = %path.display(),
            reason = %reason,
            moved_to = %aside.display(),
            "Snapshot skipped; starting empty"
        );
    } else {
        tracing::info!(path = %path.display(), reason = %reason, "Snapshot skipped; starting empty");
    }
    if let Err(ce) = consumed {
        if ce.kind() != std::io::ErrorKind::NotFound {
            tracing::warn!(path = %path.display(), error = %ce, "Cannot consume the snapshot");
        }
    }
    restored.restored = false;
    restored.skipped_reason = Some(reason);
}

/// A daemon's state as a start leaves it, for the tests of the snapshot and of `pending`: the
/// core (shared once built, as the merger needs it) and what the start restored.
#[cfg(test)]
pub(crate) struct Started {
    pub core: Arc<Core>,
    pub snapshot: Restored,
}

#[cfg(test)]
impl Started {
    /// A fresh state for `config`, with a temp ring of 1 GiB.
    pub fn new(config: crate::config::Config) -> Started {
        Started::with_ring(config, Arc::new(crate::ring::Ring::new(1 << 30)))
    }

    /// A fresh state for `config` with `ring` as its temp ring.
    pub fn with_ring(config: crate::config::Config, ring: Arc<crate::ring::Ring>) -> Started {
        Started {
            core: Arc::new(Core::new(config, ring, vec![], 0).unwrap()),
            snapshot: Restored::default(),
        }
    }

    /// The core, while nothing else holds it (before a merger starts).
    pub fn core_mut(&mut self) -> &mut Core {
        Arc::get_mut(&mut self.core).expect("nothing else holds the core yet")
    }

    /// [`restore`] into this state.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        let core = Arc::get_mut(&mut self.core).expect("nothing else holds the core yet");
        restore(core, &mut self.snapshot, bytes)
    }

    /// [`restore_at_start`] into this state.
    pub fn restore_at_start(&mut self) {
        let core = Arc::get_mut(&mut self.core).expect("nothing else holds the core yet");
        restore_at_start(core, &mut self.snapshot)
    }
}

#[cfg(test)]
impl std::ops::Deref for Started {
    type Target = Arc<Core>;
    fn deref(&self) -> &Arc<Core> {
        &self.core
    }
}

#[cfg(test)]
mod tests;
