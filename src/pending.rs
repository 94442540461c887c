//! Requests received while the daemon stops: saved beside the snapshot and merged first by the
//! next start, so that a restart under load loses only the moments no process holds the socket.
//!
//! At shutdown with the snapshot on, the receivers go on reading until the snapshot is written
//! (seconds with a full pool; before, the sockets went unread meanwhile and everything sent then
//! was lost when the process closed them). The merger has stopped after its last round, so what
//! they receive waits in the temp ring (undecoded: raw batches, see `Batch::raw`). Once they
//! stop, every batch the ring holds is saved as its datagrams (as received, or a decoded batch's
//! `Pinba.Request` payloads) to `{state_dir}/pending.bin` ([`write_at_shutdown`]). The next start
//! hands them to the merger, which decodes them with that run's decode settings and merges them
//! before anything the ring holds ([`take_at_start`];
//! they stay outside the ring, which keeps all its room for what comes while the snapshot is
//! restored). They are merged at that start's time, like any request the ring holds: a restart of
//! a few seconds moves them by those seconds. None is merged twice (the stopping run never merged
//! them) or lost, beyond what the ring could not hold (`temp_pool_memory`: counted in
//! `temp_pool_dropped` by either run, and logged by the stopping one).
//!
//! Format: the snapshot's layout (`snapshot::write_file`): magic `PINBADPQ`, version, the wall
//! time of the write (Unix ms), since version 2 the boot's mark (`snapshot::BootMark`: its age is
//! then read on the boot clock, which a wall clock stepped while pinbad was down does not move),
//! the datagram count, each datagram as a length (u64) and its bytes,
//! then the trailer (length, CRC-32, write time). Not fsynced: it serves a restart, and a crash
//! that damages it is told by the checksum. Consumed at start: deleted once queued (or found older
//! than the longest window, as everything in it would be outside), moved to `pending.bin.skipped`
//! when it cannot be read.

use std::path::Path;

use crate::counters::DecodeStats;
use crate::record::Batch;
use crate::snapshot::{self, Reader, SnapshotError, Writer};
use crate::state::{unix_now_ms, Core};

/// The file in `state_dir`.
pub const FILE: &str = "pending.bin";
/// Where a file that could not be read is moved (the previous one is replaced).
pub const SKIPPED_FILE: &str = "pending.bin.skipped";
const MAGIC: &[u8; 8] = b"PINBADPQ";
const VERSION: u32 = 2;
/// The oldest version read (1: no boot mark).
const OLDEST_VERSION: u32 = 1;

/// At shutdown, once the receivers stopped (after the snapshot): saves what the temp ring holds,
/// if anything, and logs it, with the requests `dropped` since the stop began (the ring was full:
/// `temp_pool_memory` is what a stop can hold). Does nothing with the snapshot off (the receivers
/// stopped first and the merger drained the ring). Never stops the shutdown: a failure is
/// returned (said in the log already) for the exit status.
pub fn write_at_shutdown(shared: &Core, dropped: u64) -> Result<(), String> {
    if !shared.config().snapshot.enabled {
        return Ok(());
    }
    if dropped > 0 {
        tracing::warn!(
            requests = dropped,
            temp_pool_memory = shared.ring().max_bytes(),
            queued_bytes = shared.ring().bytes(),
            queued_batches = shared.ring().len(),
            "Requests received while stopping dropped: the temp ring was full"
        );
    }
    let mut batches = Vec::new();
    while let Some(b) = shared.ring().pop() {
        batches.push(b);
    }
    let requests: usize = batches.iter().map(|b| b.len()).sum();
    if requests == 0 {
        return Ok(());
    }
    let dir = &shared.config().state_dir;
    let path = dir.join(FILE);
    match write(dir, &batches) {
        Ok((datagrams, bytes, write_us)) => {
            tracing::info!(
                path = %path.display(),
                datagrams,
                requests,
                bytes,
                write_ms = write_us as f64 / 1000.0,
                "Requests received while stopping saved for the next start"
            );
            Ok(())
        }
        Err(e) => {
            tracing::error!(
                path = %path.display(),
                error = %e,
                requests,
                "Cannot save the requests received while stopping; they are lost"
            );
            Err(format!("cannot write {}: {e}", path.display()))
        }
    }
}

/// Writes `{dir}/pending.bin` with every payload of `batches`; returns the datagrams written, the
/// file's size and the write time (µs).
pub fn write(dir: &Path, batches: &[Box<Batch>]) -> Result<(u64, u64, u64), SnapshotError> {
    let datagrams: usize = batches.iter().map(|b| b.payloads.len()).sum();
    let ((), bytes, write_us) =
        snapshot::write_file(dir, FILE, false, |w| encode(w, batches, datagrams))?;
    Ok((datagrams as u64, bytes, write_us))
}

fn encode<W: std::io::Write>(
    w: &mut Writer<W>,
    batches: &[Box<Batch>],
    datagrams: usize,
) -> Result<(), SnapshotError> {
    w.bytes(MAGIC)?;
    w.u32(VERSION)?;
    w.u64(unix_now_ms())?;
    snapshot::BootMark::write_now(w)?;
    w.u32(u32::try_from(datagrams).map_err(|_| SnapshotError::invalid("too many datagrams"))?)?;
    for payload in batches.iter().flat_map(|b| b.payloads()) {
        w.blob(payload)?;
    }
    Ok(())
}

/// At start: loads what the last run saved while stopping, for the merger to decode and merge
/// before anything else ([`crate::merger::Merger::merge_first`]), records how many datagrams in
/// the status (`snapshot.pending_datagrams`), logs the outcome and consumes the file. Nothing
/// with the snapshot off. Held to `temp_pool_memory` too: datagrams beyond it are counted in
/// `temp_pool_dropped` (one request each).
#[allow(clippy::vec_box)]
pub fn take_at_start(shared: &mut Core, restored: &mut snapshot::Restored) -> Vec<Box<Batch>> {
    if !shared.config().snapshot.enabled {
        return Vec::new();
    }
    let dir = shared.config().state_dir.clone();
    snapshot::remove_partial_writes(&dir, FILE);
    let path = dir.join(FILE);
    let mut batches = Vec::new();
    let loaded = match read_bounded(&path, max_file_bytes(shared.ring().max_bytes())) {
        Ok(bytes) => load(shared, &bytes, &mut batches),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => Err(SnapshotError::Io(e)),
    };
    let consumed = match loaded {
        Ok(datagrams) => {
            // Removed before they are merged: a file that stayed would be merged again by the
            // next start.
            if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!(path = %path.display(), error = %e, datagrams, "Cannot remove the saved requests: skipped, so that no start merges them twice");
                return Vec::new();
            }
            restored.pending_datagrams = datagrams;
            tracing::info!(
                path = %path.display(),
                datagrams,
                "Requests received while the last run stopped queued for merging"
            );
            Ok(())
        }
        Err(e @ SnapshotError::TooOld { .. }) => {
            tracing::info!(
                path = %path.display(),
                reason = %e,
                "Requests saved while the last run stopped skipped"
            );
            std::fs::remove_file(&path)
        }
        Err(e) => {
            batches.clear();
            let aside = dir.join(SKIPPED_FILE);
            tracing::warn!(
                path = %path.display(),
                reason = %e,
                moved_to = %aside.display(),
                "Requests saved while the last run stopped skipped"
            );
            std::fs::rename(&path, aside)
        }
    };
    if let Err(e) = consumed {
        tracing::warn!(path = %path.display(), error = %e, "Cannot consume the saved requests");
    }
    batches
}

/// The largest file a stop can have saved, with room for a `temp_pool_memory` halved since:
/// what the ring held (its datagrams take no more in the file than in the ring), twice, and the
/// header. A larger file is not ours, and is not read into memory.
fn max_file_bytes(ring_bytes: usize) -> u64 {
    2 * ring_bytes as u64 + (64 << 10)
}

/// The file at `path`, whole, if it is a regular file of at most `limit` bytes. Opened without
/// waiting (a FIFO put there would hold the start-up in `open` until a writer came) and checked
/// before it is read (a device such as `/dev/zero` would be read until memory ran out).
fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    let refuse = |why: String| Err(std::io::Error::new(std::io::ErrorKind::InvalidData, why));
    if !meta.is_file() {
        return refuse("not a regular file".into());
    }
    if meta.len() > limit {
        return refuse(format!(
            "{} bytes, more than a stop saves ({limit} at most with this temp_pool_memory)",
            meta.len()
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Loads every datagram of `bytes` (a whole file) into raw batches ([`Batch::raw`], decoded by
/// the merger) in `out`; returns the datagrams kept. Counts them as a receiver does: received,
/// and one accepted request each until decoded.
#[allow(clippy::vec_box)]
fn load(shared: &Core, bytes: &[u8], out: &mut Vec<Box<Batch>>) -> Result<u64, SnapshotError> {
    let (content, _, version) = snapshot::check_file(bytes, MAGIC, OLDEST_VERSION..=VERSION)?;
    let mut r = Reader::new(&content[MAGIC.len() + 4..]);
    let written_unix_ms = r.u64()?;
    let mark = if version >= 2 {
        Some(snapshot::BootMark::read(&mut r)?)
    } else {
        None
    };
    let saved_unix_ms = snapshot::wall_of_save_now(written_unix_ms, mark);
    // Saved in the future (in another boot, or by version 1, and the wall clock went back by more
    // than a minute while pinbad was down): its age is unknown, and an hour-old file would be
    // merged as current traffic.
    if saved_unix_ms > unix_now_ms().saturating_add(60_000) {
        return Err(SnapshotError::invalid(
            "saved in the future (the system clock went back since)",
        ));
    }
    let age_ms = unix_now_ms().saturating_sub(saved_unix_ms);
    if age_ms >= snapshot::longest_window_ms(shared) {
        return Err(SnapshotError::TooOld {
            age_s: age_ms / 1000,
        });
    }
    let n = r.count(8)?;
    let mut datagrams = Vec::with_capacity(n);
    for _ in 0..n {
        let datagram = r.blob()?;
        // No receiver reads more into one datagram (a raw batch's spans hold 32-bit lengths).
        if datagram.len() > crate::receiver::DATAGRAM_BUFFER_BYTES {
            return Err(SnapshotError::invalid(
                "a datagram longer than any received",
            ));
        }
        datagrams.push(datagram);
    }
    let mut stats = DecodeStats::default();
    let (mut held, mut dropped) = (0, 0);
    let mut batch = raw_batch();
    let mut hand_over = |batch: Box<Batch>| {
        if held + batch.memory_bytes() <= shared.ring().max_bytes() {
            held += batch.memory_bytes();
            out.push(batch);
        } else {
            dropped += batch.len() as u64;
        }
    };
    for datagram in datagrams {
        if crate::receiver::is_full(&batch) {
            hand_over(std::mem::replace(&mut batch, raw_batch()));
        }
        stats.packets_received += 1;
        stats.bytes_received += datagram.len() as u64;
        stats.requests_accepted += 1;
        batch.push_raw(datagram);
    }
    if !batch.is_empty() {
        hand_over(batch);
    }
    let counters = &shared.counters();
    counters
        .temp_pool_dropped
        .fetch_add(dropped, std::sync::atomic::Ordering::Relaxed);
    counters.absorb(&mut stats);
    Ok(n as u64 - dropped)
}

/// An empty raw batch, sized as a receiver sizes one.
fn raw_batch() -> Box<Batch> {
    let mut b = Box::<Batch>::default();
    crate::receiver::start_raw(&mut b);
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::corpus::{Corpus, CorpusSpec};
    use crate::decode::{DecodePolicy, Decoder};
    use crate::merger::Merger;
    use crate::ring::Ring;
    use crate::snapshot::Started;
    use std::sync::atomic::Ordering::Relaxed;
    use std::sync::Arc;

    fn shared(state: &Path, snapshot: bool) -> Started {
        let mut config = Config {
            state_dir: state.to_path_buf(),
            ..Config::default()
        };
        config.snapshot.enabled = snapshot;
        Started::new(config)
    }

    /// [`super::take_at_start`] into a started state.
    #[allow(clippy::vec_box)]
    fn take_at_start(s: &mut Started) -> Vec<Box<Batch>> {
        let core = Arc::get_mut(&mut s.core).expect("nothing else holds the core yet");
        super::take_at_start(core, &mut s.snapshot)
    }

    /// `n` corpus datagrams decoded into batches of `per_batch`, as receivers hand them over.
    #[allow(clippy::vec_box)]
    fn decoded(n: usize, per_batch: usize) -> Vec<Box<Batch>> {
        let mut decoder = Decoder::new(DecodePolicy::default());
        let mut stats = DecodeStats::default();
        let mut batches: Vec<Box<Batch>> = Vec::new();
        for (i, d) in Corpus::new(CorpusSpec::default())
            .datagrams(n)
            .iter()
            .enumerate()
        {
            if i % per_batch == 0 {
                batches.push(Box::default());
            }
            decoder.decode(d, batches.last_mut().unwrap(), &mut stats);
        }
        batches
    }

    /// Each request's script, hostname and timer count, in order.
    fn requests<'a>(
        batches: impl IntoIterator<Item = &'a Box<Batch>>,
    ) -> Vec<(Vec<u8>, Vec<u8>, u32)> {
        batches
            .into_iter()
            .flat_map(|b| {
                b.requests.iter().map(|r| {
                    (
                        b.bytes_of(r.script_name).to_vec(),
                        b.bytes_of(r.hostname).to_vec(),
                        r.timers.len,
                    )
                })
            })
            .collect()
    }

    /// Every datagram (or decoded payload) of `batches`, in order.
    fn payloads<'a>(batches: impl IntoIterator<Item = &'a Box<Batch>>) -> Vec<Vec<u8>> {
        batches
            .into_iter()
            .flat_map(|b| b.payloads().map(<[u8]>::to_vec))
            .collect()
    }

    /// Each pooled request's script, hostname and timer count, oldest first.
    fn pooled(shared: &Core) -> Vec<(Vec<u8>, Vec<u8>, u32)> {
        let (pool, dict) = (shared.pool().read(), shared.dictionary().read());
        pool.iter_oldest_first()
            .map(|v| {
                (
                    dict.get(v.record.script_name).to_vec(),
                    dict.get(v.record.hostname).to_vec(),
                    v.timers.len() as u32,
                )
            })
            .collect()
    }

    #[test]
    fn saved_requests_are_queued_again_at_start_and_the_file_consumed() {
        let dir = tempfile::tempdir().unwrap();
        // More than one receiver batch's worth, over batches of another size.
        let batches = decoded(3000, 700);
        let (datagrams, bytes, _) = write(dir.path(), &batches).unwrap();
        assert_eq!(datagrams, 3000);
        let payload_bytes: usize = batches
            .iter()
            .flat_map(|b| b.payloads())
            .map(<[u8]>::len)
            .sum();
        assert!(bytes as usize > payload_bytes, "{bytes} {payload_bytes}");

        // With the snapshot off the file is left alone.
        let mut off = shared(dir.path(), false);
        assert!(take_at_start(&mut off).is_empty() && dir.path().join(FILE).exists());

        let mut s = shared(dir.path(), true);
        let queued = take_at_start(&mut s);
        assert_eq!(s.snapshot.pending_datagrams, 3000);
        assert!(!dir.path().join(FILE).exists());
        assert!(queued.len() > 1, "in receiver-sized batches");
        assert!(queued.iter().all(|b| b.raw), "undecoded, the least memory");
        assert_eq!(payloads(&queued), payloads(&batches));
        assert!(s.ring().is_empty(), "the ring keeps its room");
        // Counted as received, one accepted request per datagram until decoded.
        assert_eq!(s.counters().packets_received.load(Relaxed), 3000);
        assert_eq!(s.counters().requests_accepted.load(Relaxed), 3000);

        // The merger decodes and merges them first: the same requests as decoded at first.
        let s = Arc::new(s);
        let mut merger = Merger::new(Arc::clone(&s), Arc::clone(s.ring())).merge_first(queued);
        while merger.round() {}
        merger.finish();
        assert_eq!(pooled(&s), requests(&batches));
        assert_eq!(s.counters().requests_merged.load(Relaxed), 3000);
        assert_eq!(s.counters().requests_accepted.load(Relaxed), 3000);
        assert_eq!(s.counters().packets_decoded.load(Relaxed), 3000);
    }

    #[test]
    fn at_shutdown_the_ring_is_saved_and_nothing_is_written_when_it_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let s = shared(dir.path(), true);
        write_at_shutdown(&s, 0).unwrap();
        assert!(!dir.path().join(FILE).exists());
        let batches = decoded(500, 200);
        let expected = payloads(&batches);
        for b in batches {
            s.ring().push(b).unwrap();
        }
        write_at_shutdown(&s, 0).unwrap();
        assert!(s.ring().is_empty());
        let mut again = shared(dir.path(), true);
        assert_eq!(payloads(&take_at_start(&mut again)), expected);
    }

    #[test]
    fn what_exceeds_the_temp_pool_memory_is_counted_as_dropped() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &decoded(3000, 3000)).unwrap();
        let mut config = Config {
            state_dir: dir.path().to_path_buf(),
            ..Config::default()
        };
        config.snapshot.enabled = true;
        // Room for one raw batch (1 MiB of datagrams and a datagram's room: ~1,800 of them).
        let ring = Arc::new(Ring::new(1 << 21));
        let mut s = Started::with_ring(config, ring);
        let kept = take_at_start(&mut s);
        let (kept, dropped) = (
            kept.iter().map(|b| b.len() as u64).sum::<u64>(),
            s.counters().temp_pool_dropped.load(Relaxed),
        );
        assert!(kept > 0 && dropped > 0, "{kept} {dropped}");
        assert_eq!(kept + dropped, 3000);
        assert_eq!(s.snapshot.pending_datagrams, kept);
    }

    /// What a stop cannot have saved is moved aside unread: a FIFO (opened without waiting for
    /// a writer: the test would hang), a file larger than the ring could hold, a datagram longer
    /// than any received.
    #[test]
    fn what_a_stop_cannot_have_saved_is_moved_aside_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let aside = dir.path().join(SKIPPED_FILE);
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let mut s = shared(dir.path(), true);
        assert!(take_at_start(&mut s).is_empty());
        assert!(!path.exists() && aside.exists(), "the FIFO moved aside");

        let big = std::fs::File::create(&path).unwrap();
        big.set_len(max_file_bytes(s.ring().max_bytes()) + 1)
            .unwrap();
        drop(big);
        assert!(take_at_start(&mut s).is_empty());
        assert!(!path.exists() && aside.metadata().unwrap().len() > 1 << 30);

        snapshot::write_file(dir.path(), FILE, false, |w| {
            w.bytes(MAGIC)?;
            w.u32(VERSION)?;
            w.u64(unix_now_ms())?;
            snapshot::BootMark::write_now(w)?;
            w.u32(1)?;
            w.blob(&vec![0u8; crate::receiver::DATAGRAM_BUFFER_BYTES + 1])?;
            Ok(())
        })
        .unwrap();
        assert!(take_at_start(&mut s).is_empty() && s.snapshot.pending_datagrams == 0);
        assert!(!path.exists() && aside.metadata().unwrap().len() < 1 << 20);
        assert_eq!(s.counters().packets_received.load(Relaxed), 0);
    }

    #[test]
    fn a_damaged_file_is_moved_aside_and_an_old_one_deleted_with_nothing_queued() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        write(dir.path(), &decoded(100, 100)).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let mut s = shared(dir.path(), true);
        assert!(take_at_start(&mut s).is_empty() && s.snapshot.pending_datagrams == 0);
        assert!(!path.exists() && dir.path().join(SKIPPED_FILE).exists());

        // A file saved at `unix_ms` by the wall clock, holding one datagram: in version 1 (no
        // boot mark, judged by the wall clock alone) or, with `marked`, in this boot now.
        let saved_at_marked = |unix_ms: u64, marked: bool| {
            snapshot::write_file(dir.path(), FILE, false, |w| {
                w.bytes(MAGIC)?;
                w.u32(if marked { VERSION } else { 1 })?;
                w.u64(unix_ms)?;
                if marked {
                    snapshot::BootMark::write_now(w)?;
                }
                w.u32(1)?;
                w.blob(&Corpus::new(CorpusSpec::default()).datagrams(1)[0])?;
                Ok(())
            })
            .unwrap();
        };
        let saved_at = |unix_ms: u64| saved_at_marked(unix_ms, false);
        // Saved longer ago than the longest window: everything in it would be outside.
        let s = shared(dir.path(), true);
        saved_at(unix_now_ms() - 2 * snapshot::longest_window_ms(&s));
        let mut s = s;
        assert!(take_at_start(&mut s).is_empty() && s.snapshot.pending_datagrams == 0);
        assert!(!path.exists());

        // Saved an hour in the future (the clock went back while pinbad was down): its age is
        // unknown, so it is not merged as current traffic (it was: the age read as 0).
        saved_at(unix_now_ms() + 3_600_000);
        let mut s = shared(dir.path(), true);
        assert!(take_at_start(&mut s).is_empty() && s.snapshot.pending_datagrams == 0);
        assert!(!path.exists());

        // The same, or an hour old by the wall clock, with this boot's mark: the boot clock says
        // it was saved just now (the wall clock was stepped while pinbad was down): queued.
        for step in [3_600_000i64, -3_600_000] {
            saved_at_marked(unix_now_ms().saturating_add_signed(step), true);
            let mut s = shared(dir.path(), true);
            assert!(!take_at_start(&mut s).is_empty(), "{step}");
            assert_eq!(s.snapshot.pending_datagrams, 1, "{step}");
            assert!(!path.exists());
        }
    }
}
