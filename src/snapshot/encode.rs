//! Writing the snapshot: the content's encoding (header, dictionary, pool, each report's part)
//! and the file it goes to.
//!
//! Streamed: every part goes to the file as it is encoded, through the [`Writer`]'s chunk (1 MiB),
//! never gathered whole in memory. The reports, most of a snapshot's bytes and time, are encoded
//! side by side on up to `merge.threads` helpers, each straight to its place in the file: their
//! sizes are worked out first ([`Report::saved_window_len`](crate::report::Report)), which places
//! every part before any is written. What the write holds (a chunk per thread) is counted in the
//! memory budget while it runs.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use crate::budget::Account;
use crate::codec::{WriteAt, CHUNK};
use crate::report::Family;

use super::*;

/// What [`write`](fn@write) wrote.
#[derive(Clone, Copy, Debug)]
pub struct Written {
    pub requests: u64,
    pub reports: u64,
    pub bytes: u64,
    pub write_ms: f64,
    /// How far the process's resident memory rose above what it held when the write began
    /// (bytes; its peak, `VmHWM`, reset then): the write's own memory. `None` where the kernel
    /// does not tell it.
    pub rss_growth: Option<u64>,
}

/// Writes `{dir}/snapshot.bin` (temporary file, fsync, rename, fsync of the directory). Call
/// only when nothing merges any more.
pub fn write(shared: &Core, dir: &Path) -> Result<Written, SnapshotError> {
    // Readied first (see `prepare_families`): what a fold there adds to the reports is their
    // memory, not the write's.
    let families = prepare_families(shared, VERSION);
    let resident = peak_reset();
    let ((requests, reports), bytes, write_us) = write_file(dir, FILE, true, |w| {
        encode_with(shared, w, VERSION, &families)
    })?;
    Ok(Written {
        requests,
        reports,
        bytes,
        write_ms: write_us as f64 / 1000.0,
        rss_growth: resident.and_then(|r| Some(proc_status_bytes("VmHWM:")?.saturating_sub(r))),
    })
}

/// A split report's parts hold part of its state: folded in before it is saved. So do a
/// family's stages hold part of its members': saved beside them from version 7 on, once their
/// own parts are folded in (see `Family::prepare_save`), drained into the members for older
/// layouts (tests write those). Returns the families whose stages are saved.
fn prepare_families(shared: &Core, version: u32) -> Vec<Arc<Family>> {
    let threads = shared.config().merge.threads();
    // Each family once, whichever of its members comes first.
    let mut seen: Vec<Arc<Family>> = Vec::new();
    for cell in shared.reports().snapshot() {
        cell.fold_parts();
        let Some(f) = cell.family() else {
            continue;
        };
        if !seen.iter().any(|s| Arc::ptr_eq(s, f)) {
            seen.push(Arc::clone(f));
        }
    }
    seen.retain(|f| {
        if version < 7 {
            f.drain_on(threads);
            false
        } else {
            f.prepare_save(threads)
        }
    });
    seen
}

/// Resets the process's peak resident memory (`VmHWM`) to what it holds now
/// (`/proc/self/clear_refs`), and returns that (`VmRSS`, bytes), if the kernel allows.
fn peak_reset() -> Option<u64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    proc_status_bytes("VmRSS:")
}

/// A figure of `/proc/self/status` (kB there), bytes.
fn proc_status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib << 10)
}

/// The content (everything the checksum covers); returns the requests and reports saved.
pub fn encode<W: Output>(shared: &Core, w: &mut Writer<W>) -> Result<(u64, u64), SnapshotError> {
    encode_as(shared, w, VERSION)
}

/// [`encode`] in the layout of `version` (1: without the reports' closed parts; tests check
/// that such files are still read).
pub(super) fn encode_as<W: Output>(
    shared: &Core,
    w: &mut Writer<W>,
    version: u32,
) -> Result<(u64, u64), SnapshotError> {
    let families = prepare_families(shared, version);
    encode_with(shared, w, version, &families)
}

/// [`encode_as`] once the families were readied (`families`: those whose stages are saved).
fn encode_with<W: Output>(
    shared: &Core,
    w: &mut Writer<W>,
    version: u32,
    families: &[Arc<Family>],
) -> Result<(u64, u64), SnapshotError> {
    let cells = shared.reports().snapshot();
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
        // Counted first, then written: no list of a million strings in between.
        let dict = shared.dictionary().read();
        w.u32(dict.live().count() as u32)?;
        for (id, bytes, used) in dict.live() {
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

    encode_reports(shared, &cells, w, Layout::of(version))?;
    if version >= 7 {
        w.u32(families.len() as u32)?;
        for f in families {
            f.save(w, Layout::of(version))?;
        }
    }
    Ok((requests, cells.len() as u64))
}

/// Where a snapshot is written: a file, whose reports' parts helper threads write at their
/// places, or (tests) a buffer, where they are written in turn.
pub trait Output: Write {
    /// The file, for positioned writes beside this output's own.
    fn file(&self) -> Option<&std::fs::File>;
    /// Steps over `len` bytes written at their place by positioned writes; with the CRC-32 of
    /// what was written there (see [`Writer::skip_checked`]).
    fn skip_part(w: &mut Writer<Self>, len: u64, crc: u32) -> std::io::Result<()>
    where
        Self: Sized;
}

impl Output for std::fs::File {
    /// A regular file; not a pipe (no places to write at: written in turn).
    fn file(&self) -> Option<&std::fs::File> {
        self.metadata().is_ok_and(|m| m.is_file()).then_some(self)
    }
    fn skip_part(w: &mut Writer<Self>, len: u64, crc: u32) -> std::io::Result<()> {
        w.skip_checked(len, crc)
    }
}

impl Output for &mut Vec<u8> {
    fn file(&self) -> Option<&std::fs::File> {
        None
    }
    fn skip_part(_: &mut Writer<Self>, _: u64, _: u32) -> std::io::Result<()> {
        Err(std::io::Error::other("a buffer has no places to write at"))
    }
}

/// One report's part as planned before it is written: its definition, window and the size of
/// its state.
struct Plan {
    def: Vec<u8>,
    window: Window,
    len: u64,
}

/// The reports' section: their count, then each report's name, definition, window and state
/// (length-prefixed), the biggest first (a restore finds reports by name, in any order).
fn encode_reports<W: Output>(
    shared: &Core,
    cells: &[Arc<crate::report::ReportCell>],
    w: &mut Writer<W>,
    layout: Layout,
) -> Result<(), SnapshotError> {
    let threads = shared.config().merge.threads();
    // A chunk for each helper and one for this thread: all the write holds besides the state
    // it writes out (the section's plans are a few hundred bytes a report).
    let held = Account::new(Arc::clone(shared.budget()));
    held.settle(((threads + 1) * CHUNK) as u64);
    w.u32(cells.len() as u32)?;
    // Planned (histogram logs applied, sizes worked out) on the helpers, the biggest first.
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cells[i].published_rows()));
    let mut plans: Vec<Option<std::io::Result<Plan>>> = (0..cells.len()).map(|_| None).collect();
    on_threads(
        threads,
        &order,
        |i| {
            let cell = &cells[i];
            let mut report = cell.report.write();
            Ok(Plan {
                def: serde_json::to_vec(&cell.def_of(&report)).map_err(std::io::Error::other)?,
                window: report.window(),
                len: report.saved_window_len(layout),
            })
        },
        |i, plan| plans[i] = Some(plan),
    );
    let plans = plans
        .into_iter()
        .map(|p| p.expect("every report planned"))
        .collect::<std::io::Result<Vec<Plan>>>()?;
    let header = |i: usize, w: &mut Writer<W>| -> std::io::Result<()> {
        w.blob(cells[i].name().as_bytes())?;
        w.blob(&plans[i].def)?;
        plans[i].window.write(w)?;
        w.u64(plans[i].len)
    };
    // Each state written as planned, or the write fails (a size worked out wrong would misplace
    // every part after it).
    let check = |i: usize, len: u64| -> std::io::Result<()> {
        if len == plans[i].len {
            return Ok(());
        }
        Err(std::io::Error::other(format!(
            "report {}: {len} bytes written, {} planned",
            cells[i].name(),
            plans[i].len
        )))
    };
    let Some(file) = w
        .get_ref()
        .file()
        .map(std::fs::File::try_clone)
        .transpose()?
    else {
        // A buffer or a pipe: in turn.
        for &i in &order {
            header(i, w)?;
            let start = w.position();
            cells[i].report.write().save_window(w, layout)?;
            check(i, w.position() - start)?;
        }
        return Ok(());
    };
    // Places: this writer's position, then each report's header and state in order.
    w.flush()?;
    let mut at = std::io::Seek::stream_position(&mut &file)?;
    let mut places = vec![0; cells.len()];
    for &i in &order {
        let p = &plans[i];
        at += 8 + cells[i].name().len() as u64 + 8 + p.def.len() as u64 + 32 + 8;
        places[i] = at;
        at += p.len;
    }
    let mut written: Vec<Option<std::io::Result<u32>>> = (0..cells.len()).map(|_| None).collect();
    on_threads(
        threads,
        &order,
        |i| {
            let out = WriteAt {
                file: &file,
                at: places[i],
            };
            let mut rw = Writer::new(out);
            cells[i].report.write().save_window(&mut rw, layout)?;
            let (_, crc, len) = rw.finish()?;
            check(i, len)?;
            Ok(crc)
        },
        |i, crc| written[i] = Some(crc),
    );
    for &i in &order {
        let crc = written[i].take().expect("every report written")?;
        header(i, w)?;
        W::skip_part(w, plans[i].len, crc)?;
    }
    Ok(())
}
