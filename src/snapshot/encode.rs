//! Writing the snapshot: the content's encoding (header, dictionary, pool, each report's part)
//! and the file it goes to.

use std::io::Write;
use std::path::Path;

use super::*;

/// What [`write`](fn@write) wrote.
#[derive(Clone, Copy, Debug)]
pub struct Written {
    pub requests: u64,
    pub reports: u64,
    pub bytes: u64,
    pub write_ms: f64,
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

/// The content (everything the checksum covers); returns the requests and reports saved.
pub fn encode<W: Write>(shared: &Core, w: &mut Writer<W>) -> Result<(u64, u64), SnapshotError> {
    encode_as(shared, w, VERSION)
}

/// [`encode`] in the layout of `version` (1: without the reports' closed parts; tests check
/// that such files are still read).
pub(super) fn encode_as<W: Write>(
    shared: &Core,
    w: &mut Writer<W>,
    version: u32,
) -> Result<(u64, u64), SnapshotError> {
    let cells = shared.reports().snapshot();
    // A family member's stage, a split report's parts hold part of its state: fold them in
    // first.
    for cell in &cells {
        cell.fold_parts();
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
            let def = serde_json::to_vec(&cell.def_of(&report)).map_err(std::io::Error::other)?;
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
                r.window.write(w)?;
                w.blob_checked(&r.blob, r.crc)?;
                spare.lock().push(r.blob);
                Ok(())
            });
        },
    );
    result?;
    Ok((requests, cells.len() as u64))
}
