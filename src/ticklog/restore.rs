//! Restoring the reports' windows from the tick log at start, when the snapshot did not.
//!
//! A clean stop's snapshot holds every closed tick the log holds and more (the open ticks, the
//! raw pool): a start that restored it takes nothing from the log. Otherwise (a crash wrote no
//! snapshot; or it was damaged, or switched off) the log's segments of the last run's clock
//! (the newest segment's epoch; a run resumes the epoch of the one before, so segments of
//! several runs share it) are read in order: their strings interned again (ids remapped as the
//! snapshot's are), each tick decoded into the report of its name if that report's definition
//! and window are the ones it was logged with (else its ticks are skipped, and the report
//! named in `skipped_reports`). The clock resumes the log's epoch, so every tick keeps its
//! place, and each report's window is filled with its ticks still inside it
//! (`Report::replay_ticks`). The raw pool is lost: a report the log did not fill is filled
//! from the (empty) pool, complete from now.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Instant;

use rustc_hash::FxHashMap;

use super::segment::{self, Kind};
use super::{Restored, TickLog};
use crate::codec::{Reader, SnapshotError};
use crate::dictionary::{Dictionary, LOST};
use crate::record::NO_SCHEMA;
use crate::report::{ClosedTick, ReportCell, ReportDef, Window};
use crate::state::{unix_now_ms, Clock, Core};

/// At start-up, after the snapshot's restore (`snapshot` says what it restored) and before the
/// merger starts: fills the reports' windows from the log when the snapshot did not, and logs
/// the outcome (or why nothing was taken) in one line. Never fails the start.
pub fn restore_at_start(shared: &mut Core, snapshot: &crate::snapshot::Restored, log: &TickLog) {
    let started = Instant::now();
    let mut summary = Restored::default();
    let outcome = if !log.enabled {
        Err("disabled (ticklog.enabled = false)".to_string())
    } else if snapshot.restored {
        Err("the snapshot restored the windows (a clean stop): the log holds nothing more".into())
    } else {
        restore(shared, log, &mut summary)
    };
    summary.restore_ms = started.elapsed().as_secs_f64() * 1000.0;
    match outcome {
        Ok(()) => tracing::info!(
            path = %log.dir.display(),
            ticks = summary.ticks,
            reports = summary.reports,
            skipped_reports = summary.skipped_reports.len(),
            restore_ms = summary.restore_ms,
            "Reports restored from the tick log (the raw pool and the open ticks are lost)"
        ),
        Err(why) => {
            tracing::info!(path = %log.dir.display(), reason = %why, "Nothing restored from the tick log");
            summary.skipped_reason = Some(why);
        }
    }
    *log.restored.lock() = summary;
}

/// What the log holds for one report: its ticks, still compressed, each with the segment whose
/// strings its ids name.
struct Found<'a> {
    cell: Arc<ReportCell>,
    ticks: Vec<Logged<'a>>,
    complete_from_ms: u64,
}

/// A tick as a record holds it.
struct Logged<'a> {
    /// The segment's place among those read (its ids' map: `ids[segment]`).
    segment: usize,
    /// The segment's format version (how its ticks are laid out).
    version: u32,
    index: u64,
    raw_len: usize,
    compressed: &'a [u8],
}

/// A report of a segment, as its record says, matched with the live one.
enum Report {
    /// The live report of its name, the same definition and window, and its `complete_from`.
    Live(Arc<ReportCell>, u64),
    /// Changed since, or gone: its ticks are skipped.
    Not,
}

fn restore(shared: &mut Core, log: &TickLog, summary: &mut Restored) -> Result<(), String> {
    let segments = segment::list(&log.dir).map_err(|e| format!("cannot list it: {e}"))?;
    let mut files = Vec::new();
    for (_, path) in segments {
        // Mapped as the snapshot is (the segments are appended to only by this daemon's
        // writer, which starts after the restore).
        match crate::snapshot::read_file(&path) {
            Ok(bytes) => files.push((path, bytes)),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "Tick log: cannot read a segment; skipped");
                summary.damaged_segments += 1;
            }
        }
    }
    let mut opened = Vec::new();
    for (path, bytes) in &files {
        match segment::open(bytes) {
            Ok(s) => opened.push((path.as_path(), s)),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "Tick log: not a segment this version reads; skipped");
                summary.damaged_segments += 1;
            }
        }
    }
    // The last run's clock: older runs' segments under another epoch are not read.
    let epoch = opened
        .last()
        .map(|(_, s)| s.epoch_unix_ms)
        .ok_or("no tick log")?;
    let other_epoch = opened
        .iter()
        .filter(|(_, s)| s.epoch_unix_ms != epoch)
        .count();
    if other_epoch > 0 {
        tracing::warn!(
            segments = other_epoch,
            epoch,
            "Tick log: segments under another clock epoch than the newest one's are not read (an older run's, or a damaged header)"
        );
    }
    let now_ms = unix_now_ms().saturating_sub(epoch);
    // First, in order, on this thread: the strings interned, each segment's ids mapped, the
    // ticks found for each report (decoded after, on threads).
    let mut found: HashMap<String, Found<'_>> = HashMap::new();
    let mut ids: Vec<FxHashMap<u32, u32>> = Vec::new();
    let mut skipped = BTreeSet::new();
    let mut newest_end_ms = 0u64;
    let mut dict = shared.dictionary().write();
    dict.set_now((now_ms / 1000) as u32);
    for (path, s) in opened.into_iter().filter(|(_, s)| s.epoch_unix_ms == epoch) {
        let at = ids.len();
        let read = read_segment(
            shared,
            &mut dict,
            (s.records, s.version),
            at,
            &mut found,
            &mut skipped,
        );
        newest_end_ms = newest_end_ms.max(read.newest_end_ms);
        ids.push(read.ids);
        if let Some(e) = read.damage {
            tracing::warn!(path = %path.display(), error = %e, "Tick log: a segment ends in a record that cannot be read (cut by a crash, or damaged); what came before it is restored");
            summary.damaged_segments += 1;
        }
    }
    summary.skipped_reports = skipped.into_iter().collect();
    let refuse = |dict: &mut Dictionary, why: String| {
        // At start-up the dictionary held only pinned strings: the log's go.
        dict.sweep(u32::MAX);
        Err(why)
    };
    if found.is_empty() {
        return refuse(
            &mut dict,
            "no closed tick of a report that exists as logged".into(),
        );
    }
    // Logged in the future by the wall clock: how long the daemon was down cannot be known.
    if epoch.saturating_add(newest_end_ms) > unix_now_ms().saturating_add(60_000) {
        return refuse(
            &mut dict,
            "written in the future (the system clock went back since)".into(),
        );
    }
    let clock = Clock::resume(epoch, newest_end_ms);
    let now_ms = clock.now_ms64();
    let longest = crate::snapshot::longest_window_ms(shared);
    if now_ms.saturating_sub(newest_end_ms) >= longest {
        let age_s = (now_ms - newest_end_ms) / 1000;
        return refuse(
            &mut dict,
            format!("too old: the last tick ended {age_s} s ago, outside every window"),
        );
    }
    shared.publish_dictionary(&dict);
    drop(dict);
    shared.set_clock(clock);
    // The raw pool is lost: a report filled from it is complete from now.
    shared.set_pool_complete_from(now_ms);
    // Then each report on its own, on as many threads as merge, the biggest first: its ticks
    // decompressed and decoded, its window filled.
    let shared: &Core = shared;
    // Reports sharing a table (see `report::set`) have it filled once.
    let mut tables = rustc_hash::FxHashSet::default();
    let found: Vec<Found<'_>> = found
        .into_values()
        .filter(|f| tables.insert(Arc::as_ptr(&f.cell.report) as usize))
        .collect();
    let mut order: Vec<usize> = (0..found.len()).collect();
    let size = |f: &Found<'_>| f.ticks.iter().map(|t| t.raw_len).sum::<usize>();
    order.sort_by_key(|&i| std::cmp::Reverse(size(&found[i])));
    let mut cells = Vec::new();
    crate::snapshot::on_threads(
        shared.config().merge.threads(),
        &order,
        |i| replay(&found[i], &ids, now_ms),
        |i, replayed| match replayed {
            Ok(0) => {}
            Ok(kept) => {
                summary.ticks += kept as u64;
                summary.reports += 1;
                cells.push(Arc::clone(&found[i].cell));
            }
            Err(e) => {
                tracing::warn!(report = %found[i].cell.name(), error = %e, "Tick log: a report's ticks cannot be decoded; it starts empty");
                summary.damaged_segments += 1;
            }
        },
    );
    crate::snapshot::assign_workers(shared, &cells);
    Ok(())
}

/// Decodes a report's logged ticks still inside its window at `now_ms` (ids remapped by their
/// segments' maps, `ids`) and fills its window with them; returns how many it kept. Nothing
/// changes on an error.
fn replay(f: &Found<'_>, ids: &[FxHashMap<u32, u32>], now_ms: u64) -> Result<usize, SnapshotError> {
    let w = f.cell.window();
    let first_kept = (w.tick_of(now_ms) + 1).saturating_sub(w.ticks);
    let mut ticks = Vec::new();
    for t in f.ticks.iter().filter(|t| t.index >= first_kept) {
        let map = &ids[t.segment];
        let remap = |id: u32| match id {
            NO_SCHEMA => id,
            _ => map.get(&id).copied().unwrap_or(LOST),
        };
        ticks.push(decode_tick(t, &f.cell, &remap)?);
    }
    let mut r = f.cell.report.write();
    let kept = r.replay_ticks(ticks, f.complete_from_ms, now_ms);
    f.cell.publish(&r);
    Ok(kept)
}

/// What one segment gave.
struct SegmentRead {
    /// Its ids, old → new.
    ids: FxHashMap<u32, u32>,
    /// The end of its newest tick (merger ms).
    newest_end_ms: u64,
    /// Why it ended before its end, if it did.
    damage: Option<SnapshotError>,
}

/// Reads the records of the segment at `segment` (among those read) into `found` (ticks by
/// report name, still compressed), interning its strings.
fn read_segment<'a>(
    shared: &Core,
    dict: &mut Dictionary,
    (records, version): (segment::Records<'a>, u32),
    segment: usize,
    found: &mut HashMap<String, Found<'a>>,
    skipped: &mut BTreeSet<String>,
) -> SegmentRead {
    let mut reports: FxHashMap<u32, Report> = FxHashMap::default();
    let mut out = SegmentRead {
        ids: FxHashMap::default(),
        newest_end_ms: 0,
        damage: None,
    };
    for record in records {
        let read = record.and_then(|(kind, mut r)| match kind {
            Kind::Strings => read_strings(&mut r, dict, &mut out.ids),
            Kind::Report => {
                let (n, report) = read_report(&mut r, shared, skipped)?;
                reports.insert(n, report);
                Ok(())
            }
            Kind::Tick => {
                let (n, index, raw_len) = (r.u32()?, r.u64()?, r.u32()? as usize);
                let compressed = r.blob()?;
                // LZ4 expands at most 255 times: a length beyond is damage, not an allocation.
                if raw_len > compressed.len().saturating_mul(255) + 64 || !r.is_empty() {
                    return Err(SnapshotError::invalid("a tick record's lengths disagree"));
                }
                let Some(Report::Live(cell, complete_from_ms)) = reports.get(&n) else {
                    return Ok(());
                };
                out.newest_end_ms = out.newest_end_ms.max(cell.window().tick_start(index + 1));
                let f = found
                    .entry(cell.name().to_string())
                    .or_insert_with(|| Found {
                        cell: Arc::clone(cell),
                        ticks: Vec::new(),
                        complete_from_ms: *complete_from_ms,
                    });
                if Arc::ptr_eq(&f.cell, cell) {
                    f.ticks.push(Logged {
                        segment,
                        version,
                        index,
                        raw_len,
                        compressed,
                    });
                    f.complete_from_ms = *complete_from_ms;
                }
                Ok(())
            }
        });
        if let Err(e) = read {
            out.damage = Some(e);
            break;
        }
    }
    out
}

/// A logged tick decompressed and decoded for `cell`'s report, its key ids remapped.
fn decode_tick(
    t: &Logged<'_>,
    cell: &ReportCell,
    remap: &dyn Fn(u32) -> u32,
) -> Result<ClosedTick, SnapshotError> {
    let raw = lz4_flex::block::decompress(t.compressed, t.raw_len)
        .map_err(|e| SnapshotError::Invalid(format!("a tick that does not decompress: {e}")))?;
    let mut r = Reader::new(&raw);
    let layout = crate::report::Layout::of(segment::snapshot_version(t.version));
    let tick = cell.report.read().read_tick(&mut r, remap, layout)?;
    if raw.len() != t.raw_len || !r.is_empty() || tick.index() != t.index {
        return Err(SnapshotError::invalid(
            "a tick record disagrees with its tick",
        ));
    }
    Ok(tick)
}

/// A strings record: each interned, its old id mapped to the new one.
fn read_strings(
    r: &mut Reader<'_>,
    dict: &mut Dictionary,
    ids: &mut FxHashMap<u32, u32>,
) -> Result<(), SnapshotError> {
    for _ in 0..r.count(8)? {
        let (old, len) = (r.u32()?, r.u32()?);
        let s = r.take(len as usize)?;
        ids.insert(old, dict.intern(s));
    }
    Ok(())
}

/// A report record: its number, and the live report it is (same name, definition and window),
/// if any; a report whose definition or window changed is named in `skipped`.
fn read_report(
    r: &mut Reader<'_>,
    shared: &Core,
    skipped: &mut BTreeSet<String>,
) -> Result<(u32, Report), SnapshotError> {
    let n = r.u32()?;
    let name = String::from_utf8_lossy(r.blob()?).into_owned();
    let def: Result<ReportDef, _> = serde_json::from_slice(r.blob()?);
    let window = Window::read(r)?;
    let complete_from_ms = r.u64()?;
    let Some(cell) = shared.reports().get(&name) else {
        return Ok((n, Report::Not));
    };
    let same = def.is_ok_and(|d| d == cell.def_of(&cell.report.read())) && window == cell.window();
    if !same {
        skipped.insert(name);
        return Ok((n, Report::Not));
    }
    Ok((n, Report::Live(cell, complete_from_ms)))
}
