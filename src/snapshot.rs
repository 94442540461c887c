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
//! `report::snapshot`), in any order, followed by a trailer: the content's length, its CRC-32,
//! and how long the write took (informational, written after the fsync, outside the checksum).
//! Every length is checked against the bytes left before anything is allocated.
//!
//! Written to a temporary file, fsynced, renamed over `snapshot.bin`, and the directory fsynced.
//! A snapshot is consumed at start-up: deleted once restored (or found too old), renamed to
//! `snapshot.bin.skipped` when it cannot be read (kept for inspection, never read again), so a
//! crash later never restores stale data a second time.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use rustc_hash::FxHashMap;
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
/// boot's id and `CLOCK_BOOTTIME` (`BootMark`) to the header. A snapshot of any other version is skipped (start empty).
pub const VERSION: u32 = 4;
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

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// What [`write`](fn@write) wrote.
#[derive(Clone, Copy, Debug)]
pub struct Written {
    pub requests: u64,
    pub reports: u64,
    pub bytes: u64,
    pub write_ms: f64,
}

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

/// Writes `{dir}/snapshot.bin` (temporary file, fsync, rename, fsync of the directory). Call
/// only when nothing merges any more: family stages are drained into their members here.
pub fn write(shared: &Core, dir: &Path) -> Result<Written, SnapshotError> {
    let ((requests, reports), bytes, write_us) =
        write_file(dir, FILE, true, |w| encode(shared, w))?;
    Ok(Written {
        requests,
        reports,
        bytes,
        write_ms: write_us as f64 / 1000.0,
    })
}

/// Writes `{dir}/{name}` in the snapshot's layout through a temporary file (`{name}.tmp-PID`,
/// removed on an error): `encode` writes the content from the magic on, then comes the trailer.
/// `durable`: the file is fsynced before the rename and the directory after it; without, a crash
/// of the machine may leave the file damaged, which its checksum then tells. Returns what
/// `encode` returned, the file's size and the time the write took (µs).
pub(crate) fn write_file<T>(
    dir: &Path,
    name: &str,
    durable: bool,
    encode: impl FnOnce(&mut Writer<std::fs::File>) -> Result<T, SnapshotError>,
) -> Result<(T, u64, u64), SnapshotError> {
    let started = Instant::now();
    let tmp = dir.join(format!("{name}.tmp-{}", std::process::id()));
    let written = (|| -> Result<(T, u64, u64), SnapshotError> {
        let mut w = Writer::new(std::fs::File::create(&tmp)?);
        let encoded = encode(&mut w)?;
        let (mut file, crc, len) = w.finish()?;
        file.write_all(&len.to_le_bytes())?;
        file.write_all(&crc.to_le_bytes())?;
        file.write_all(&0u64.to_le_bytes())?;
        if durable {
            file.sync_all()?;
        }
        let write_us = started.elapsed().as_micros() as u64;
        // Informational, outside the checksum: lost in a crash, it reads as 0.
        std::os::unix::fs::FileExt::write_all_at(&file, &write_us.to_le_bytes(), len + 12)?;
        Ok((encoded, len + TRAILER_BYTES as u64, write_us))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    let written = written?;
    std::fs::rename(&tmp, dir.join(name))?;
    if durable {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(written)
}

/// The content (everything the checksum covers); returns the requests and reports saved.
pub fn encode<W: Write>(shared: &Core, w: &mut Writer<W>) -> Result<(u64, u64), SnapshotError> {
    encode_as(shared, w, VERSION)
}

/// [`encode`] in the layout of `version` (1: without the reports' closed parts; tests check
/// that such files are still read).
fn encode_as<W: Write>(
    shared: &Core,
    w: &mut Writer<W>,
    version: u32,
) -> Result<(u64, u64), SnapshotError> {
    let cells = shared.reports().snapshot();
    // A family member's stage holds part of its state: fold it in first.
    for cell in &cells {
        if let Some(f) = cell.family() {
            f.drain();
        }
    }
    w.bytes(MAGIC)?;
    w.u32(version)?;
    w.u64(shared.clock().epoch_unix_ms())?;
    w.u64(shared.clock().now_ms64())?;
    w.u64(unix_now_ms())?;
    if version >= 4 {
        BootMark::write_now(w)?;
    }

    // Lock order: pool → dictionary → a report. Nothing else runs, but the API's order is kept.
    let pool = shared.pool().read();
    {
        let dict = shared.dictionary().read();
        let live: Vec<_> = dict.live().collect();
        w.u32(live.len() as u32)?;
        for (id, bytes, used) in live {
            w.u32(id)?;
            w.u32(used)?;
            w.u32(bytes.len() as u32)?;
            w.bytes(bytes)?;
        }
    }
    w.u32(pool.len() as u32)?;
    w.u64(pool.oldest_id())?;
    for v in pool.iter_oldest_first() {
        let r = v.record;
        for x in [
            r.time_ms,
            r.hostname,
            r.server_name,
            r.script_name,
            r.schema,
            r.request_count,
            r.document_size,
            r.memory_peak,
            r.memory_footprint,
            r.status,
        ] {
            w.u32(x)?;
        }
        w.f32(r.request_time)?;
        w.f32(r.ru_utime)?;
        w.f32(r.ru_stime)?;
        w.u16(v.timers.len() as u16)?;
        w.u16(r.tag_count)?;
        for t in v.timers {
            w.f32(t.value)?;
            w.f32(t.ru_utime)?;
            w.f32(t.ru_stime)?;
            w.u32(t.hit_count)?;
            w.u16(t.tag_count)?;
        }
        for t in v.tag_block {
            w.u32(t.name)?;
            w.u32(t.value)?;
        }
    }
    let requests = pool.len() as u64;
    drop(pool);

    // Each report serialised on its own (the biggest first, by rows) on as many threads as
    // merge, and written as it comes: a restore finds reports by name, in any order.
    w.u32(cells.len() as u32)?;
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cells[i].published_rows()));
    // Blobs already written, for the next report to reuse (fresh memory is zeroed by the
    // kernel as it is first touched: a full window's reports are ~1 GiB).
    let spare = parking_lot::Mutex::new(Vec::<Vec<u8>>::new());
    let mut result = Ok(());
    on_threads(
        shared.config().merge.threads(),
        &order,
        |i| -> std::io::Result<SavedReport> {
            let cell = &cells[i];
            let mut blob = spare.lock().pop().unwrap_or_default();
            blob.clear();
            let mut report = cell.report.write();
            let def = serde_json::to_vec(report.def()).map_err(std::io::Error::other)?;
            let window = report.window();
            let mut bw = Writer::new(&mut blob);
            report.save_window(&mut bw, Layout::of(version))?;
            let (_, crc, _) = bw.finish()?;
            Ok(SavedReport {
                def,
                window,
                blob,
                crc,
            })
        },
        |i, saved| {
            if result.is_err() {
                return;
            }
            result = saved.and_then(|r| {
                w.blob(cells[i].name().as_bytes())?;
                w.blob(&r.def)?;
                let win = r.window;
                for x in [win.history_ms, win.tick_ms, win.ticks, win.phase_ms] {
                    w.u64(x)?;
                }
                w.blob_checked(&r.blob, r.crc)?;
                spare.lock().push(r.blob);
                Ok(())
            });
        },
    );
    result?;
    Ok((requests, cells.len() as u64))
}

// ---------------------------------------------------------------------------------------------
// Restoring
// ---------------------------------------------------------------------------------------------

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

/// A snapshot file's bytes: mapped (a regular file), or read (a pipe).
enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

/// The file at `path` whole: a regular file mapped (`mmap`, read ahead at once), a pipe read to
/// its end, a device refused.
///
/// Mapped, not copied: a full default pool's snapshot is 1.3–1.6 GB, and read into fresh memory
/// it sat on top of the state being restored, the process's own until the restore ended (the
/// peak of a start, in a cgroup sized for the steady state). Mapped, its pages are the kernel's
/// file cache, which it can drop under pressure and read back, and the restore's threads fault
/// in the parts they decode, in parallel (as the earlier `pread` on threads did). The file is
/// pinbad's own, replaced only by rename (`durable`), never rewritten in place; a process that
/// truncated it during the restore would stop the start with SIGBUS, as it would any program
/// reading a mapped file.
fn read_file(path: &Path) -> std::io::Result<FileBytes> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    // A device has no end to read to (`snapshot.bin` linked to `/dev/zero` was read until memory
    // ran out): refused, and the file kept aside like any that cannot be read.
    if std::os::unix::fs::FileTypeExt::is_char_device(&meta.file_type())
        || std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type())
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "a device, not a snapshot file",
        ));
    }
    if meta.is_file() {
        // SAFETY: the map is read-only and private, and lives in the returned value, which
        // borrows nothing; its bytes change only if the file is rewritten in place, which pinbad
        // never does (see above).
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(map) => {
                // Read ahead now, in the background: the restore then rarely waits on the disk.
                let _ = map.advise(memmap2::Advice::WillNeed);
                return Ok(FileBytes::Mapped(map));
            }
            // A file system that cannot map files (some network or FUSE ones): read below.
            Err(e) => {
                tracing::debug!(error = %e, path = %path.display(), "Cannot map the snapshot; reading it")
            }
        }
    }
    // A pipe (no length to map), or a file that cannot be mapped: read to its end.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(FileBytes::Read(bytes))
}

/// Removes temporary files of writes that never finished (the process was killed while writing:
/// e.g. systemd's `TimeoutStopSec` ran out). They were never renamed, so never read.
pub(crate) fn remove_partial_writes(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{name}.tmp-");
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            tracing::warn!(path = %e.path().display(), "Removing an unfinished write");
            let _ = std::fs::remove_file(e.path());
        }
    }
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

/// The header and the checksum of a snapshot file: the content (without the trailer), the
/// previous run's write time in µs, and the format's version.
fn check(bytes: &[u8]) -> Result<(&[u8], u64, u32), SnapshotError> {
    check_file(bytes, MAGIC, OLDEST_VERSION..=VERSION)
}

/// [`check`] for any file in the snapshot's layout (`magic`, `version`, content, trailer).
pub(crate) fn check_file<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    versions: std::ops::RangeInclusive<u32>,
) -> Result<(&'a [u8], u64, u32), SnapshotError> {
    if bytes.len() < magic.len() + 4 {
        return Err(SnapshotError::Truncated(format!(
            "{} bytes, shorter than a header",
            bytes.len()
        )));
    }
    if &bytes[..magic.len()] != magic {
        return Err(SnapshotError::Magic);
    }
    let found = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if !versions.contains(&found) {
        return Err(SnapshotError::Version {
            found,
            reads: *versions.end(),
        });
    }
    let Some(content_len) = bytes.len().checked_sub(TRAILER_BYTES) else {
        return Err(SnapshotError::Truncated("no trailer".into()));
    };
    let (content, trailer) = bytes.split_at(content_len);
    let mut t = Reader::new(trailer);
    let (len, crc, write_us) = (t.u64()?, t.u32()?, t.u64()?);
    if len != content_len as u64 {
        return Err(SnapshotError::Truncated(format!(
            "{} bytes, the trailer says {} (cut short or extended)",
            bytes.len(),
            len.saturating_add(TRAILER_BYTES as u64)
        )));
    }
    if crc32fast::hash(content) != crc {
        return Err(SnapshotError::Checksum);
    }
    Ok((content, write_us, found))
}

/// The longest window of any report and of the raw pool (`stats_history`): what is older than
/// this at start is outside every window.
pub(crate) fn longest_window_ms(shared: &Core) -> u64 {
    shared
        .reports()
        .snapshot()
        .iter()
        .map(|c| c.window().history_ms)
        .chain([shared.config().stats_history.0.as_millis() as u64])
        .max()
        .unwrap_or(0)
}

/// Which boot of the kernel a save was in, and the boot clock then: what tells the time a daemon
/// was down when the wall clock was stepped while it was (an operator correcting the time between
/// a stop and a start). `CLOCK_BOOTTIME` is never stepped and counts a suspend, which the
/// monotonic clock does not; the boot id (`/proc/sys/kernel/random/boot_id`) says whether the two
/// readings are of the same clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BootMark {
    /// The boot id's 16 bytes; all zero when it could not be read.
    id: [u8; 16],
    boottime_ms: u64,
}

impl BootMark {
    const UNKNOWN: BootMark = BootMark {
        id: [0; 16],
        boottime_ms: 0,
    };

    /// This boot's mark now, if the kernel tells it.
    fn now() -> Option<BootMark> {
        let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let id = parse_boot_id(&text)?;
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid timespec to fill.
        if unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) } != 0 {
            return None;
        }
        let boottime_ms = (ts.tv_sec as u64)
            .saturating_mul(1000)
            .saturating_add(ts.tv_nsec as u64 / 1_000_000);
        Some(BootMark { id, boottime_ms })
    }

    /// Writes this boot's mark now (all zero if unknown): 16 bytes of id, the boot clock (u64).
    pub(crate) fn write_now<W: Write>(w: &mut Writer<W>) -> std::io::Result<()> {
        let mark = BootMark::now().unwrap_or(BootMark::UNKNOWN);
        w.bytes(&mark.id)?;
        w.u64(mark.boottime_ms)
    }

    /// Reads what [`BootMark::write_now`] wrote.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<BootMark, SnapshotError> {
        Ok(BootMark {
            id: r.array()?,
            boottime_ms: r.u64()?,
        })
    }
}

/// [`wall_of_save`] of a save that wrote `written_unix_ms` and `mark` (`None`: a format without
/// one), now.
pub(crate) fn wall_of_save_now(written_unix_ms: u64, mark: Option<BootMark>) -> u64 {
    wall_of_save(written_unix_ms, mark, BootMark::now(), unix_now_ms())
}

/// The 16 bytes of a boot id as the kernel prints it (`8-4-4-4-12` hex digits and a newline).
fn parse_boot_id(text: &str) -> Option<[u8; 16]> {
    let hex: Vec<u8> = text.trim().bytes().filter(|&b| b != b'-').collect();
    if hex.len() != 32 {
        return None;
    }
    let mut id = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        id[i] = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    (id != [0; 16]).then_some(id)
}

/// The wall time of the save as the wall clock reads now: when the save was in this boot, now
/// less the boot clock's time since (so a wall clock stepped while the daemon was down moves
/// nothing); otherwise (another boot, an older file, a boot clock that went back) the wall time
/// written at the save.
fn wall_of_save(
    saved_unix_ms: u64,
    saved: Option<BootMark>,
    now: Option<BootMark>,
    now_unix_ms: u64,
) -> u64 {
    match (saved, now) {
        (Some(s), Some(n))
            if s.id == n.id && s.id != BootMark::UNKNOWN.id && n.boottime_ms >= s.boottime_ms =>
        {
            now_unix_ms.saturating_sub(n.boottime_ms - s.boottime_ms)
        }
        _ => saved_unix_ms,
    }
}

/// How far the previous run's times (its epoch plus its merger milliseconds) may have drifted
/// from the wall clock by the save and still be resumed as they were.
const MAX_DRIFT_MS: u64 = 1000;

/// The epoch a restored daemon resumes: the saved one, unless the wall clock was stepped since
/// the previous run started (during it, or while the daemon was down: its times, `epoch +
/// saved_now_ms`, then differ from the wall time of the save, `saved_unix_ms`, as
/// [`wall_of_save`] reads it now). The time down is the wall time since the save: resumed from
/// the saved epoch, a clock stepped back an hour made a snapshot taken a minute before look "saved
/// in the future" (refused, the data lost), one stepped forward made it an hour older than it was
/// (refused as too old). Re-anchored at the save's wall time, the restored times keep their
/// order and spacing and line up with the wall clock, as a fresh start's would.
fn resumed_epoch(epoch_unix_ms: u64, saved_now_ms: u64, saved_unix_ms: u64) -> u64 {
    let labelled = epoch_unix_ms.saturating_add(saved_now_ms);
    if labelled.abs_diff(saved_unix_ms) <= MAX_DRIFT_MS {
        return epoch_unix_ms;
    }
    let drift_s = (saved_unix_ms as f64 - labelled as f64) / 1000.0;
    tracing::warn!(
        drift_s,
        "the system clock was stepped by {drift_s:+.0} s since the previous run started: its \
         data is resumed as the wall clock dates the snapshot now"
    );
    saved_unix_ms.saturating_sub(saved_now_ms)
}

/// Restores `bytes` (a whole snapshot file) into `shared`, whose pool and reports are still
/// empty. On an error nothing changed but the dictionary, whose restored strings are swept.
pub fn restore(
    shared: &mut Core,
    summary: &mut Restored,
    bytes: &[u8],
) -> Result<(), SnapshotError> {
    let (content, write_us, version) = check(bytes)?;
    let mut r = Reader::new(&content[MAGIC.len() + 4..]);
    let epoch_unix_ms = r.u64()?;
    let saved_now_ms = r.u64()?;
    let written_unix_ms = r.u64()?;
    let mark = if version >= 4 {
        Some(BootMark::read(&mut r)?)
    } else {
        None
    };
    let saved_unix_ms = wall_of_save_now(written_unix_ms, mark);
    // The previous run's milliseconds since its epoch cannot exceed the milliseconds since 1970
    // of its save: past that, the reading is garbage (its clock resumed there would tell a time
    // ages ahead, and overflow soon after).
    if saved_now_ms > saved_unix_ms {
        return Err(SnapshotError::invalid(
            "its clock reading is later than the wall time of its save",
        ));
    }
    // Saved in the future by the wall clock (saved in another boot, or by an older version, and
    // the clock went back by more than a minute since, or garbage): how long the daemon was down
    // cannot be known; refuse rather than resume a wrong clock.
    if saved_unix_ms > unix_now_ms().saturating_add(60_000) {
        return Err(SnapshotError::invalid(
            "saved in the future (the system clock went back since)",
        ));
    }
    let clock = Clock::resume(
        resumed_epoch(epoch_unix_ms, saved_now_ms, saved_unix_ms),
        saved_now_ms,
    );
    let now_ms = clock.now_ms64();
    let age_ms = now_ms - saved_now_ms.min(now_ms);
    if age_ms >= longest_window_ms(shared) {
        return Err(SnapshotError::TooOld {
            age_s: age_ms / 1000,
        });
    }

    let mut dict = shared.dictionary().write();
    let result = restore_content(shared, &mut dict, &mut r, now_ms, version);
    let (pool, restored, skipped) = match result {
        Ok(x) => x,
        Err(e) => {
            // At start-up the dictionary held only pinned strings: the restored ones go.
            dict.sweep(u32::MAX);
            return Err(e);
        }
    };
    dict.set_now((now_ms / 1000) as u32);
    shared.publish_dictionary(&dict);
    drop(dict);
    shared.publish_pool(&pool);
    let s = summary;
    s.restored = true;
    s.restored_requests = pool.len() as u64;
    s.restored_reports = restored.len() as u64;
    s.skipped_reports = skipped;
    s.skipped_reason = None;
    s.write_ms = Some(write_us as f64 / 1000.0);
    s.saved_at = Some(saved_unix_ms as f64 / 1000.0);
    s.down_seconds = Some(age_ms as f64 / 1000.0);
    *shared.pool_mut() = pool;
    shared.set_clock(clock);
    assign_workers(shared, &restored);
    Ok(())
}

type Content = (Pool, Vec<Arc<crate::report::ReportCell>>, Vec<String>);

/// One report's part of a snapshot, serialised (see [`encode`]).
struct SavedReport {
    def: Vec<u8>,
    window: Window,
    blob: Vec<u8>,
    /// CRC-32 of `blob`.
    crc: u32,
}

/// What became of one saved report.
enum Outcome {
    Yes(Arc<crate::report::ReportCell>),
    /// Not restored: why.
    No(String),
    /// No report of that name any more.
    Gone,
}

/// Runs `work(i)` for every index in `order` on up to `threads` named threads, each taking the
/// next index once done with the last, and hands each result to `each` on the calling thread as
/// it comes (in the order they finish). A worker waits while a result waits for `each`, so at
/// most `threads` + 1 results exist at once (the snapshot's reports: each a blob of up to
/// hundreds of MiB). With one thread, or when none can be started, everything runs on the
/// calling thread in `order`.
///
/// Why threads: a snapshot's time is mostly each report's own (serialising its window; on
/// restore, reading it back into tables), independent of the others', and it is time the daemon
/// is not merging: receivers queue what comes meanwhile in the temp ring (README, "Restarts keep
/// the window"). One report may still take most of it (a full 15-minute window of the benches'
/// largest timer report: 460 MB of the 1.3 GB).
fn on_threads<T: Send>(
    threads: usize,
    order: &[usize],
    work: impl Fn(usize) -> T + Sync,
    mut each: impl FnMut(usize, T),
) {
    let next = AtomicUsize::new(0);
    let take = || order.get(next.fetch_add(1, Relaxed)).copied();
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel(0);
        let mut started = 0;
        if threads > 1 {
            let (take, work) = (&take, &work);
            for t in 0..threads.min(order.len()) {
                let tx = tx.clone();
                let spawned = std::thread::Builder::new()
                    .name(format!("pinbad-snapshot-{t}"))
                    .spawn_scoped(s, move || {
                        while let Some(i) = take() {
                            if tx.send((i, work(i))).is_err() {
                                break;
                            }
                        }
                    });
                started += spawned.is_ok() as usize;
            }
        }
        drop(tx);
        if started == 0 {
            while let Some(i) = take() {
                each(i, work(i));
            }
        }
        for (i, result) in rx {
            each(i, result);
        }
    });
}

/// The dictionary, pool and reports sections. Restored reports are changed in place (each only
/// once it was read whole); the pool is returned for the caller to put in place.
fn restore_content(
    shared: &Core,
    dict: &mut Dictionary,
    r: &mut Reader<'_>,
    now_ms: u64,
    version: u32,
) -> Result<Content, SnapshotError> {
    // Dictionary: old id → new id.
    let strings = r.count(12)?;
    let mut ids: FxHashMap<u32, u32> = FxHashMap::default();
    ids.reserve(strings);
    for _ in 0..strings {
        let (old, used, len) = (r.u32()?, r.u32()?, r.u32()?);
        let s = r.take(len as usize)?;
        dict.set_now(used);
        ids.insert(old, dict.intern(s));
    }
    let remap = |id: u32| -> u32 {
        if id == NO_SCHEMA {
            id
        } else {
            ids.get(&id).copied().unwrap_or(LOST)
        }
    };

    // Pool, oldest first; requests out of the window are skipped, and when the configured pool
    // is smaller, inserting evicts the oldest: the newest that fit are kept.
    let c = &shared.config();
    let mut pool = Pool::new(c.request_pool_size, c.timer_pool_size, c.tag_pool_size);
    let history_ms = c.stats_history.0.as_millis().min(u32::MAX as u128) as u32;
    let requests = r.count(56)?;
    let first_id = r.u64()?;
    let (mut timers, mut tags) = (Vec::new(), Vec::new());
    for i in 0..requests {
        let mut f = [0u32; 10];
        for x in &mut f {
            *x = r.u32()?;
        }
        let mut record = Record {
            time_ms: f[0],
            hostname: remap(f[1]),
            server_name: remap(f[2]),
            script_name: remap(f[3]),
            schema: remap(f[4]),
            request_count: f[5],
            document_size: f[6],
            memory_peak: f[7],
            memory_footprint: f[8],
            status: f[9],
            request_time: r.f32()?,
            ru_utime: r.f32()?,
            ru_stime: r.f32()?,
            ..Record::default()
        };
        let (ntimers, ntags) = (r.u16()?, r.u16()?);
        record.tag_count = ntags;
        timers.clear();
        let mut block = ntags as usize;
        for _ in 0..ntimers {
            let t = Timer {
                value: r.f32()?,
                ru_utime: r.f32()?,
                ru_stime: r.f32()?,
                hit_count: r.u32()?,
                tag_count: r.u16()?,
            };
            block += t.tag_count as usize;
            timers.push(t);
        }
        tags.clear();
        for _ in 0..block {
            tags.push(TagPair {
                name: remap(r.u32()?),
                value: remap(r.u32()?),
            });
        }
        if (now_ms as u32).wrapping_sub(record.time_ms) >= history_ms {
            continue;
        }
        if pool.is_empty() {
            pool.resume_ids(first_id.wrapping_add(i as u64));
        }
        pool.insert(record, &timers, &tags, &mut |_, _| {});
    }

    // Reports: the section is read whole first (a damaged one changes no report), then each is
    // restored only into a report of the same name, definition and window.
    let count = r.count(40)?;
    let mut saved = Vec::with_capacity(count);
    for _ in 0..count {
        let name = String::from_utf8_lossy(r.blob()?).into_owned();
        // A definition this version cannot read (another version's) is told apart from one that
        // changed: the skip says why.
        let def: Result<ReportDef, String> =
            serde_json::from_slice(r.blob()?).map_err(|e| e.to_string());
        let (history_ms, tick_ms, ticks, phase_ms) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
        let window = Window {
            history_ms,
            tick_ms,
            ticks,
            phase_ms,
        };
        saved.push((name, def, window, r.blob()?));
    }
    if !r.is_empty() {
        return Err(SnapshotError::invalid("trailing bytes after the reports"));
    }
    // Each report on its own (they share nothing but the remap), the biggest first, on as many
    // threads as merge: reading the reports' windows back is most of a restore's time.
    let mut order: Vec<usize> = (0..saved.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(saved[i].3.len()));
    let mut outcomes: Vec<Option<Outcome>> = (0..saved.len()).map(|_| None).collect();
    on_threads(
        shared.config().merge.threads(),
        &order,
        |i| {
            let (name, def, window, state) = &saved[i];
            let Some(cell) = shared.reports().get(name) else {
                return Outcome::Gone;
            };
            let mut report = cell.report.write();
            let why = if let Err(e) = def {
                Some(format!("its saved definition cannot be read: {e}"))
            } else if def.as_ref() != Ok(report.def()) {
                Some("its definition changed".to_string())
            } else if *window != report.window() {
                Some("its window changed (history, report_ticks or family)".to_string())
            } else {
                report
                    .restore_window(&mut Reader::new(state), &remap, now_ms, Layout::of(version))
                    .err()
                    .map(|e| e.to_string())
            };
            match why {
                None => {
                    cell.publish(&report);
                    drop(report);
                    Outcome::Yes(cell)
                }
                Some(why) => Outcome::No(why),
            }
        },
        |i, outcome| outcomes[i] = Some(outcome),
    );
    let (mut restored, mut skipped) = (Vec::new(), Vec::new());
    for ((name, ..), outcome) in saved.into_iter().zip(outcomes) {
        match outcome {
            Some(Outcome::Yes(cell)) => restored.push(cell),
            Some(Outcome::Gone) | None => {
                tracing::info!(report = %name, "Snapshot: the report no longer exists; not restored");
            }
            Some(Outcome::No(why)) => {
                tracing::info!(report = %name, reason = %why, "Snapshot: report not restored; it starts empty");
                skipped.push(name);
            }
        }
    }
    Ok((pool, restored, skipped))
}

/// Restored reports need no filling from the pool: they are marked filled, each given to a
/// merge thread by its estimated cost (a timer report costs about a request report per timer),
/// until the merger balances them by measured cost.
fn assign_workers(shared: &Core, cells: &[Arc<crate::report::ReportCell>]) {
    let threads = shared.config().merge.threads().max(1);
    let mut load = vec![0u64; threads];
    load[0] = 12; // the merger's own work (intern, pool)
    for cell in cells {
        let cost = match cell.report.read().kind() {
            crate::report::Kind::Timer => 8,
            _ => 1,
        };
        let w = (0..threads).min_by_key(|&w| load[w]).unwrap_or(0);
        load[w] += cost;
        cell.set_worker(w);
        cell.mark_filled();
    }
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
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::corpus::{Corpus, CorpusSpec};
    use crate::merger::Merger;
    use crate::record::RequestView;
    use crate::report::Query;
    use proptest::prelude::*;

    /// The built-ins and the benches' four timer-tag reports (two of them a family), over a
    /// one-minute window of 1 s ticks, a small pool, in `state`.
    fn config(state: &Path) -> Config {
        Config {
            state_dir: state.to_path_buf(),
            stats_history: "1m".parse().unwrap(),
            report_ticks: 60,
            request_pool_size: 3000,
            timer_pool_size: 30_000,
            tag_pool_size: 100_000,
            report: crate::corpus::timer_tag_report_defs(),
            ..Config::default()
        }
    }

    fn shared(config: Config) -> Started {
        Started::new(config)
    }

    /// Merges `n` corpus requests (seed `seed`) through a real merger.
    fn feed(shared: &Arc<Core>, n: usize, seed: u64) {
        let ring = Arc::clone(&shared.ring());
        let mut merger = Merger::new(Arc::clone(shared), Arc::clone(&ring));
        let mut corpus = Corpus::new(CorpusSpec {
            seed,
            scripts: 50,
            ..CorpusSpec::default()
        });
        ring.push(corpus.decoded_batch(n)).unwrap();
        while merger.round() {}
        merger.round();
        merger.finish();
    }

    /// Every field of every pooled request, strings resolved, oldest first.
    fn pool_text(shared: &Core) -> Vec<String> {
        let pool = shared.pool().read();
        let dict = shared.dictionary().read();
        let s = |id: u32| dict.text(id).into_owned();
        pool.iter_oldest_first()
            .map(|v: RequestView<'_>| {
                let r = v.record;
                let tags: Vec<_> = v
                    .tag_block
                    .iter()
                    .map(|t| (s(t.name), s(t.value)))
                    .collect();
                format!(
                    "{} {} {} {} {} {} {:?} {} {} {} {} {} {} {} {} {} {:?} {:?}",
                    v.id,
                    r.time_ms,
                    s(r.hostname),
                    s(r.server_name),
                    s(r.script_name),
                    r.schema == NO_SCHEMA,
                    (r.schema != NO_SCHEMA).then(|| s(r.schema)),
                    r.request_count,
                    r.document_size,
                    r.memory_peak,
                    r.memory_footprint,
                    r.status,
                    r.request_time,
                    r.ru_utime,
                    r.ru_stime,
                    r.tag_count,
                    v.timers,
                    tags
                )
            })
            .collect()
    }

    /// Every report as a query shows it (all rows, sorted as text: ids differ between runs),
    /// family stages drained first.
    fn reports_text(shared: &Core) -> Vec<(String, Vec<String>, u64)> {
        let dict = shared.dictionary().read();
        shared
            .reports()
            .snapshot()
            .iter()
            .map(|cell| {
                if let Some(f) = cell.family() {
                    f.drain();
                }
                cell.apply_hist_log();
                let r = cell.report.read();
                let q = Query {
                    limit: Some(100_000),
                    ..Query::default()
                };
                let table = r.query(&q, &dict, 60.0).unwrap();
                let mut lines: Vec<String> = table.to_csv().lines().map(str::to_string).collect();
                lines.push(serde_json::to_string(&table.totals_json()).unwrap());
                lines.sort();
                (cell.name().to_string(), lines, r.rows_lost())
            })
            .collect()
    }

    fn encoded(shared: &Core) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        write(shared, dir.path()).unwrap();
        std::fs::read(dir.path().join(FILE)).unwrap()
    }

    /// Rewrites the trailer so the content passes the checksum again (tests that reach the
    /// parser with damaged content).
    fn reseal(mut content: Vec<u8>) -> Vec<u8> {
        let crc = crc32fast::hash(&content);
        let len = content.len() as u64;
        content.extend_from_slice(&len.to_le_bytes());
        content.extend_from_slice(&crc.to_le_bytes());
        content.extend_from_slice(&0u64.to_le_bytes());
        content
    }

    fn content(bytes: &[u8]) -> Vec<u8> {
        bytes[..bytes.len() - TRAILER_BYTES].to_vec()
    }

    /// Moves a snapshot's saved epoch, its save's wall time and its boot clock (header fields
    /// after the magic and version) by the milliseconds given.
    fn shift_header(content: &mut [u8], epoch_by: i64, saved_unix_by: i64, boottime_by: i64) {
        for (at, by) in [(12, epoch_by), (28, saved_unix_by), (52, boottime_by)] {
            let v = u64::from_le_bytes(content[at..at + 8].try_into().unwrap());
            content[at..at + 8].copy_from_slice(&v.wrapping_add_signed(by).to_le_bytes());
        }
    }

    /// `content` (resealed) restores into a fresh state in `dir`: its 200 requests, down for no
    /// time, the restored clock telling the wall time.
    fn restores_now(content: &[u8], dir: &Path, step: i64) {
        let mut b = shared(config(dir));
        b.restore(&reseal(content.to_vec())).unwrap();
        assert_eq!(b.pool().read().len(), 200, "{step}");
        assert!(b.snapshot.down_seconds.unwrap() < 60.0, "{step}");
        let told = b.clock().unix_ms64(b.clock().now_ms64());
        assert!(told.abs_diff(unix_now_ms()) < 60_000, "{step}: {told}");
    }

    /// A wall clock stepped an hour either way during the previous run (its times an hour off
    /// the save's wall time) or while the daemon was down (the save's wall time and times an hour
    /// off today's clock, the boot clock saying a moment passed): restored, down for no time, the
    /// times lined up with the wall clock (refused before: "saved in the future", or too old).
    /// Saved in another boot, the second is judged by the wall clock alone: "saved in the
    /// future", or too old.
    #[test]
    fn a_clock_stepped_during_the_previous_run_or_while_down_restores() {
        let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = Arc::new(shared(config(sa.path())));
        feed(&a, 200, 1);
        let bytes = encoded(&a);
        for step in [3_600_000i64, -3_600_000] {
            let mut c = content(&bytes);
            shift_header(&mut c, step, 0, 0);
            restores_now(&c, sb.path(), step);
            // The rest reads the boot clock (the case above needs only the wall clock).
            assert!(
                BootMark::now().is_some(),
                "Linux tells its boot id and boot clock"
            );
            let mut c = content(&bytes);
            shift_header(&mut c, step, step, 0);
            restores_now(&c, sb.path(), step);
            // Another boot's save (its id's first byte changed).
            c[36] ^= 0xff;
            let e = shared(config(sb.path())).restore(&reseal(c)).unwrap_err();
            if step > 0 {
                assert!(e.to_string().contains("saved in the future"), "{e}");
            } else {
                assert!(matches!(e, SnapshotError::TooOld { .. }), "{e}");
            }
        }
    }

    #[test]
    fn the_save_is_dated_by_the_boot_clock_only_within_one_boot() {
        let id = parse_boot_id("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n").unwrap();
        assert_eq!(id[0], 0x0f);
        assert_eq!(id[15], 0xf0);
        assert_eq!(parse_boot_id("not-an-id"), None);
        assert_eq!(parse_boot_id("00000000-0000-0000-0000-000000000000"), None);
        assert_eq!(parse_boot_id("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fz"), None);
        let mark = |id: [u8; 16], boottime_ms| Some(BootMark { id, boottime_ms });
        let other = [7; 16];
        // Same boot: now less the boot clock's time since, whatever the saved wall time said.
        assert_eq!(
            wall_of_save(1, mark(id, 500), mark(id, 2_500), 10_000),
            8_000
        );
        // Another boot, an unknown id, no mark (older file or no /proc), the boot clock behind
        // the save: the saved wall time.
        assert_eq!(
            wall_of_save(1, mark(id, 500), mark(other, 2_500), 10_000),
            1
        );
        let unknown = BootMark::UNKNOWN.id;
        assert_eq!(
            wall_of_save(1, mark(unknown, 5), mark(unknown, 9), 10_000),
            1
        );
        assert_eq!(wall_of_save(1, None, mark(id, 2_500), 10_000), 1);
        assert_eq!(wall_of_save(1, mark(id, 500), None, 10_000), 1);
        assert_eq!(wall_of_save(1, mark(id, 3_000), mark(id, 2_500), 10_000), 1);
        // A boot clock that says more than the wall clock's whole span: 0, never below.
        assert_eq!(wall_of_save(1, mark(id, 0), mark(id, 20_000), 10_000), 0);
    }

    /// Save, restore into a fresh daemon state: the same pool (every field of every request,
    /// timers and tags), the same reports (every row of every query, a timer report and a family
    /// member included), the same request ids; and both go on alike with more traffic.
    #[test]
    fn round_trip_restores_pool_and_reports() {
        let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = Arc::new(shared(config(sa.path())));
        feed(&a, 1500, 1);
        // A tick boundary between the two halves: closed ticks and an open one.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        feed(&a, 2500, 2);
        assert!(
            a.pool().read().len() == 3000,
            "the pool overwrote: eviction order matters"
        );
        let bytes = encoded(&a);
        let mut b = shared(config(sb.path()));
        b.restore(&bytes).unwrap();
        let b = Arc::new(b);
        assert_eq!(b.snapshot.restored_requests, 3000);
        assert_eq!(b.snapshot.restored_reports as usize, a.reports().len());
        assert!(b.snapshot.skipped_reports.is_empty());
        assert_eq!(b.clock().epoch_unix_ms(), a.clock().epoch_unix_ms());
        assert_eq!(pool_text(&a), pool_text(&b));
        let (ra, rb) = (reports_text(&a), reports_text(&b));
        assert!(ra
            .iter()
            .any(|(n, l, _)| n == "tag_report_group" && l.len() > 10));
        assert!(b
            .reports()
            .get("tag_report_group")
            .unwrap()
            .family()
            .is_some());
        assert_eq!(ra, rb);
        assert!(b.reports().snapshot().iter().all(|c| c.is_filled()));
        // The same state in version 1 (no closed parts; rebuilt from the ticks) and in version 3
        // (no boot mark): read alike.
        for version in [1, 3] {
            let mut old = Vec::new();
            let mut w = Writer::new(&mut old);
            encode_as(&a, &mut w, version).unwrap();
            w.finish().unwrap();
            assert!(old.len() < bytes.len() - TRAILER_BYTES);
            let sc = tempfile::tempdir().unwrap();
            let mut c = shared(config(sc.path()));
            c.restore(&reseal(old)).unwrap();
            assert_eq!(c.snapshot.restored_reports as usize, a.reports().len());
            assert_eq!(
                (pool_text(&c), reports_text(&c)),
                (pool_text(&a), ra.clone()),
                "version {version}"
            );
        }
        // More traffic into both: still equal (the restored windows and family go on).
        feed(&a, 500, 3);
        feed(&b, 500, 3);
        assert_eq!(reports_text(&a), reports_text(&b));
        // The same requests with the same ids (merged at different times).
        let untimed = |s: &Core| -> Vec<String> {
            pool_text(s)
                .iter()
                .map(|l| {
                    let mut w: Vec<&str> = l.splitn(3, ' ').collect();
                    w.remove(1);
                    w.join(" ")
                })
                .collect()
        };
        assert_eq!(untimed(&a), untimed(&b));
    }

    /// A report whose definition changed starts empty; the others are restored.
    #[test]
    fn a_changed_report_starts_empty() {
        let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = Arc::new(shared(config(sa.path())));
        feed(&a, 300, 1);
        let bytes = encoded(&a);
        let mut cb = config(sb.path());
        cb.report[0].percentiles = vec![50.0];
        let mut b = shared(cb);
        b.restore(&bytes).unwrap();
        assert_eq!(
            b.snapshot.skipped_reports,
            vec!["tag_info_group".to_string()]
        );
        let cell = b.reports().get("tag_info_group").unwrap();
        assert!(
            !cell.is_filled(),
            "the merger fills it from the restored pool"
        );
        assert_eq!(cell.report.read().total_requests(), 0);
        assert!(
            b.reports()
                .get("info")
                .unwrap()
                .report
                .read()
                .total_requests()
                == 300
        );
    }

    #[test]
    fn damaged_snapshots_are_refused_with_the_reason() {
        let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = Arc::new(shared(config(sa.path())));
        feed(&a, 200, 1);
        let bytes = encoded(&a);
        let fresh = || shared(config(sb.path()));
        // A flipped byte anywhere in the content.
        for at in [20, bytes.len() / 2, bytes.len() - TRAILER_BYTES - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x40;
            let e = fresh().restore(&bad).unwrap_err();
            assert!(matches!(e, SnapshotError::Checksum), "{at}: {e}");
        }
        let mut bad = bytes.clone();
        bad[8] = 9;
        let e = fresh().restore(&bad).unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");
        let e = fresh()
            .restore(b"GIF89a, not a snapshot at all")
            .unwrap_err();
        assert!(matches!(e, SnapshotError::Magic), "{e}");
        let e = fresh().restore(&bytes[..bytes.len() - 7]).unwrap_err();
        assert!(matches!(e, SnapshotError::Truncated(_)), "{e}");
        // Too old: saved two windows ago (the epoch and the wall time of the save moved back,
        // resealed); saved an hour from now by the wall clock: refused.
        let moved = |by: i64| {
            let mut c = content(&bytes);
            shift_header(&mut c, by, by, by);
            reseal(c)
        };
        let mut b = fresh();
        let e = b.restore(&moved(-120_000)).unwrap_err();
        assert!(matches!(e, SnapshotError::TooOld { .. }), "{e}");
        assert_eq!(b.pool().read().len(), 0);
        let e = fresh().restore(&moved(3_600_000)).unwrap_err();
        assert!(e.to_string().contains("saved in the future"), "{e}");
        // A garbage clock reading (the merger's milliseconds at the save), sealed as valid:
        // refused, where it was resumed as a clock ages ahead.
        for reading in [1u64 << 50, u64::MAX - 5000] {
            let mut c = content(&bytes);
            c[20..28].copy_from_slice(&reading.to_le_bytes());
            let e = fresh().restore(&reseal(c)).unwrap_err();
            assert!(e.to_string().contains("clock reading is later"), "{e}");
        }
        // The intact one restores.
        let mut b = fresh();
        b.restore(&bytes).unwrap();
        assert_eq!(b.pool().read().len(), 200);
    }

    /// The file is consumed: deleted once restored, moved aside when damaged; the status says why.
    #[test]
    fn restore_at_start_consumes_the_file() {
        let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = Arc::new(shared(config(sa.path())));
        feed(&a, 100, 1);
        write(&a, sb.path()).unwrap();
        let mut b = shared(config(sb.path()));
        b.restore_at_start();
        assert!(b.snapshot.restored && b.snapshot.restored_requests == 100);
        assert!(!sb.path().join(FILE).exists());
        let partial = sb.path().join(format!("{FILE}.tmp-1"));
        std::fs::write(&partial, b"half written").unwrap();
        let mut b = shared(config(sb.path()));
        b.restore_at_start();
        assert_eq!(b.snapshot.skipped_reason.as_deref(), Some("no snapshot"));
        assert!(!partial.exists(), "an unfinished write is removed");
        write(&a, sb.path()).unwrap();
        let path = sb.path().join(FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[30] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let mut b = shared(config(sb.path()));
        b.restore_at_start();
        assert!(!b.snapshot.restored);
        assert!(b
            .snapshot
            .skipped_reason
            .as_deref()
            .unwrap()
            .contains("checksum"));
        assert!(sb.path().join(SKIPPED_FILE).exists() && !path.exists());
        assert_eq!(b.pool().read().len(), 0);
        // A snapshot that cannot be read at all (here a directory in its place: EISDIR) is kept
        // aside too, not deleted; so is a device in its place, refused unread.
        std::fs::remove_file(sb.path().join(SKIPPED_FILE)).unwrap();
        std::fs::create_dir(&path).unwrap();
        let mut c = shared(config(sb.path()));
        c.restore_at_start();
        assert!(!c.snapshot.restored && c.snapshot.skipped_reason.is_some());
        assert!(sb.path().join(SKIPPED_FILE).is_dir() && !path.exists());
        std::fs::remove_dir(sb.path().join(SKIPPED_FILE)).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let mut d = shared(config(sb.path()));
        d.restore_at_start();
        let why = d.snapshot.skipped_reason.clone().unwrap_or_default();
        assert!(!d.snapshot.restored && why.contains("a device"), "{why}");
        assert!(!path.exists() && sb.path().join(SKIPPED_FILE).is_symlink());
        assert_eq!(b.dictionary().read().len(), {
            let c = shared(config(sb.path()));
            let n = c.dictionary().read().len();
            n
        });
    }

    /// Write and restore times of a full default pool (1M requests, 4M timers, 12M tags: the
    /// PHP-like corpus fills the timer and tag rings first) under the default report set (info,
    /// the 18 built-ins, the benches' 4 timer-tag reports) with a full 15-minute window (60
    /// ticks), in `state_dir` on this machine's disk. Requests are stamped over 15 virtual
    /// minutes, as a daemon that ran that long at ~1.4k requests/s would hold them.
    ///
    /// `cargo test --release --lib full_default_pool -- --ignored --nocapture`
    #[test]
    #[ignore = "a measurement: ~1 minute and ~7 GiB of memory"]
    fn full_default_pool_write_and_restore_times() {
        // `RssAnon` of /proc/self/status (KiB): memory of the process's own, not file cache.
        fn rss_anon_kib() -> i64 {
            std::fs::read_to_string("/proc/self/status")
                .unwrap()
                .lines()
                .find_map(|l| l.strip_prefix("RssAnon:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap()
        }
        let state = tempfile::tempdir().unwrap();
        let mut c = config(state.path());
        let d = Config::default();
        (c.stats_history, c.report_ticks) = (d.stats_history, d.report_ticks);
        (c.request_pool_size, c.timer_pool_size, c.tag_pool_size) =
            (d.request_pool_size, d.timer_pool_size, d.tag_pool_size);
        let mut shared = shared(c.clone());
        let history_ms = c.stats_history.0.as_millis() as u64;
        shared
            .core_mut()
            .set_clock(Clock::resume(unix_now_ms() - history_ms, 0));
        let shared = Arc::new(shared);
        let (requests, per_batch) = (1_300_000usize, 1024usize);
        let batches = requests / per_batch;
        let mut corpus = Corpus::new(CorpusSpec::default());
        let mut interned = crate::merger::Interned::default();
        let mut prepared = crate::report::PreparedBatch::default();
        let cells = shared.reports().snapshot();
        let started = Instant::now();
        for i in 0..batches {
            let t = 5_000 + i as u64 * (history_ms - 10_000) / batches as u64;
            let batch = corpus.decoded_batch(per_batch);
            let mut pool = shared.pool().write();
            {
                let mut dict = shared.dictionary().write();
                dict.set_now((t / 1000) as u32);
                interned.intern(&batch, t as u32, &mut *dict);
            }
            for (record, timers, tags) in interned.requests() {
                let (id, _) = pool.insert(*record, timers, tags, &mut |_, _| {});
                prepared.push(&pool.get(id).unwrap());
            }
            drop(pool);
            for cell in &cells {
                let mut r = cell.report.write();
                r.advance(t);
                r.add_batch(&prepared);
            }
            interned.clear();
            prepared.clear();
        }
        let now = shared.clock().now_ms64();
        for cell in &cells {
            let mut r = cell.report.write();
            r.advance(now);
            cell.publish(&r);
        }
        let (len, timers, tags) = {
            let p = shared.pool().read();
            (p.len(), p.timers_used(), p.tags_used())
        };
        let rows: u64 = cells.iter().map(|c| c.published_rows()).sum();
        eprintln!(
            "filled in {:?}: pool {len} requests, {timers} timers, {tags} tags; {} strings; {} \
             reports, {rows} rows",
            started.elapsed(),
            shared.dictionary().read().len(),
            cells.len()
        );
        let mut write_ms = Vec::new();
        let mut restore_ms = Vec::new();
        let mut bytes = 0;
        for _ in 0..3 {
            let w = write(&shared, state.path()).unwrap();
            write_ms.push(w.write_ms);
            bytes = w.bytes;
            let mut fresh = Started::new(c.clone());
            let anon = rss_anon_kib();
            let file = read_file(&state.path().join(FILE)).unwrap();
            let touched: u64 = file.iter().step_by(4096).map(|&b| b as u64).sum();
            eprintln!(
                "the file read: {} MiB of it, the process's anonymous memory +{} MiB ({touched})",
                file.len() >> 20,
                (rss_anon_kib() - anon) >> 10
            );
            drop(file);
            fresh.restore_at_start();
            assert_eq!(fresh.snapshot.restored_requests, len as u64);
            assert_eq!(fresh.snapshot.restored_reports, cells.len() as u64);
            restore_ms.push(fresh.snapshot.restore_ms);
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        eprintln!(
            "snapshot {bytes} bytes ({:.0} MiB): write {:.0} ms, restore {:.0} ms (medians of 3; \
             write {write_ms:?}, restore {restore_ms:?})",
            bytes as f64 / (1 << 20) as f64,
            median(&mut write_ms),
            median(&mut restore_ms)
        );
    }

    /// A snapshot left as `snapshot.bin.restoring` (a start died restoring it) is moved aside,
    /// not tried again; a snapshot.bin beside it is restored as usual, and consumed (no file
    /// left under either name).
    #[test]
    fn a_snapshot_a_start_died_restoring_is_not_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let a = Arc::new(shared(config(dir.path())));
        feed(&a, 40, 1);
        let bytes = encoded(&a);
        std::fs::write(dir.path().join(RESTORING_FILE), &bytes).unwrap();
        let mut b = shared(config(dir.path()));
        b.restore_at_start();
        assert!(!b.snapshot.restored);
        let reason = b.snapshot.skipped_reason.clone().unwrap();
        assert!(
            reason.contains("previous start stopped while restoring"),
            "{reason}"
        );
        assert!(!dir.path().join(RESTORING_FILE).exists());
        assert_eq!(std::fs::read(dir.path().join(SKIPPED_FILE)).unwrap(), bytes);
        // The next snapshot is restored, and leaves nothing behind.
        std::fs::write(dir.path().join(FILE), &bytes).unwrap();
        let mut c = shared(config(dir.path()));
        c.restore_at_start();
        assert!(c.snapshot.restored, "{:?}", c.snapshot.skipped_reason);
        assert_eq!(c.pool().read().len(), a.pool().read().len());
        assert!(!dir.path().join(FILE).exists() && !dir.path().join(RESTORING_FILE).exists());
    }

    /// A regular file is mapped, not copied into the process's memory (see `read_file`), and
    /// reads as its bytes; an empty one too (mmap refuses a length of 0).
    #[test]
    fn a_snapshot_file_is_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let bytes: Vec<u8> = (0..3 * 4096 + 17).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let read = read_file(&path).unwrap();
        assert!(matches!(read, FileBytes::Mapped(_)));
        assert_eq!(&*read, &bytes[..]);
        // Removed while mapped (as a restore removes it before it lets the bytes go): still read.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(&*read, &bytes[..]);
        std::fs::write(&path, b"").unwrap();
        assert!(read_file(&path).unwrap().is_empty());
        // A file that cannot be mapped (sysfs: no mmap) is read instead.
        let sysfs = Path::new("/sys/devices/system/cpu/online");
        let read = read_file(sysfs).unwrap();
        assert!(matches!(read, FileBytes::Read(_)));
        assert_eq!(&*read, &std::fs::read(sysfs).unwrap()[..]);
    }

    fn small_snapshot() -> &'static (Vec<u8>, tempfile::TempDir) {
        static S: std::sync::OnceLock<(Vec<u8>, tempfile::TempDir)> = std::sync::OnceLock::new();
        S.get_or_init(|| {
            let sa = tempfile::tempdir().unwrap();
            let a = Arc::new(shared(config(sa.path())));
            feed(&a, 40, 1);
            (encoded(&a), sa)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
        /// Content cut anywhere (and resealed, so the parser itself meets the cut), or with
        /// garbage written over it: an error or a restore, never a panic.
        #[test]
        fn cut_or_garbled_content_never_panics(cut in 0.0f64..1.0, at in 0.0f64..1.0, garbage in proptest::collection::vec(any::<u8>(), 1..16)) {
            let (bytes, dir) = small_snapshot();
            let content = content(bytes);
            let n = (cut * content.len() as f64) as usize;
            let mut b = shared(config(dir.path()));
            let r = b.restore(&reseal(content[..n].to_vec()));
            prop_assert!(r.is_err());
            let mut garbled = content.clone();
            let start = 12 + (at * (garbled.len() - 12) as f64) as usize;
            for (i, g) in garbage.iter().enumerate() {
                if let Some(x) = garbled.get_mut(start + i) {
                    *x = *g;
                }
            }
            let mut b = shared(config(dir.path()));
            let _ = b.restore(&reseal(garbled));
        }
    }
}
