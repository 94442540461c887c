//! The snapshot's file: written through a temporary file and renamed, mapped (or read) at start,
//! its header and checksum checked; the boot's mark that dates the save; what is left of a write
//! that never finished.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use super::*;

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

/// A state file's bytes (a snapshot, a tick log segment): mapped (a regular file), or read (a
/// pipe).
pub(crate) enum FileBytes {
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
pub(crate) fn read_file(path: &Path) -> std::io::Result<FileBytes> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    // A device has no end to read to (`snapshot.bin` linked to `/dev/zero` was read until memory
    // ran out): refused, and the file kept aside like any that cannot be read.
    if std::os::unix::fs::FileTypeExt::is_char_device(&meta.file_type())
        || std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type())
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "a device, not a state file",
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
                tracing::debug!(error = %e, path = %path.display(), "Cannot map the file; reading it")
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

/// The header and the checksum of a snapshot file: the content (without the trailer), the
/// previous run's write time in µs, and the format's version.
pub(super) fn check(bytes: &[u8]) -> Result<(&[u8], u64, u32), SnapshotError> {
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

/// Which boot of the kernel a save was in, and the boot clock then: what tells the time a daemon
/// was down when the wall clock was stepped while it was (an operator correcting the time between
/// a stop and a start). `CLOCK_BOOTTIME` is never stepped and counts a suspend, which the
/// monotonic clock does not; the boot id (`/proc/sys/kernel/random/boot_id`) says whether the two
/// readings are of the same clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BootMark {
    /// The boot id's 16 bytes; all zero when it could not be read.
    pub(super) id: [u8; 16],
    pub(super) boottime_ms: u64,
}

impl BootMark {
    pub(super) const UNKNOWN: BootMark = BootMark {
        id: [0; 16],
        boottime_ms: 0,
    };

    /// This boot's mark now, if the kernel tells it.
    pub(super) fn now() -> Option<BootMark> {
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
pub(super) fn parse_boot_id(text: &str) -> Option<[u8; 16]> {
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
pub(super) fn wall_of_save(
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
pub(super) const MAX_DRIFT_MS: u64 = 1000;

/// The epoch a restored daemon resumes: the saved one, unless the wall clock was stepped since
/// the previous run started (during it, or while the daemon was down: its times, `epoch +
/// saved_now_ms`, then differ from the wall time of the save, `saved_unix_ms`, as
/// [`wall_of_save`] reads it now). The time down is the wall time since the save: resumed from
/// the saved epoch, a clock stepped back an hour made a snapshot taken a minute before look "saved
/// in the future" (refused, the data lost), one stepped forward made it an hour older than it was
/// (refused as too old). Re-anchored at the save's wall time, the restored times keep their
/// order and spacing and line up with the wall clock, as a fresh start's would.
pub(super) fn resumed_epoch(epoch_unix_ms: u64, saved_now_ms: u64, saved_unix_ms: u64) -> u64 {
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
