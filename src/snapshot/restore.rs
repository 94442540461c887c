//! Restoring the snapshot: the clock resumed, the dictionary's strings interned again, the pool
//! and each report's window read back (reports on helper threads), the restored reports given to
//! the merge workers.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::*;

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
    let (pool, restored, skipped, stages) = match result {
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
    (s.restored_stages, s.folded_stages) = stages;
    s.skipped_reason = None;
    s.write_ms = Some(write_us as f64 / 1000.0);
    s.saved_at = Some(saved_unix_ms as f64 / 1000.0);
    s.down_seconds = Some(age_ms as f64 / 1000.0);
    // The restored pool holds what the last run's held, which may have overwritten or expired
    // requests before it: a report filled from it is complete from its oldest request only.
    let pool_from = pool.oldest_time_ms().map_or(now_ms, |t| {
        now_ms.saturating_sub((now_ms as u32).wrapping_sub(t) as u64)
    });
    shared.set_pool_complete_from(pool_from);
    *shared.pool_mut() = pool;
    shared.set_clock(clock);
    assign_workers(shared, &restored);
    Ok(())
}

/// The pool, the reports restored, those skipped, and the families' stages put back and folded
/// (see `report::restore_stages`).
pub(super) type Content = (
    Pool,
    Vec<Arc<crate::report::ReportCell>>,
    Vec<String>,
    (u64, u64),
);

/// What became of one saved report.
pub(super) enum Outcome {
    /// Restored; whether its table was filled from this entry (the first of the names that
    /// share it to come), which its share of a family's stage then joins.
    Yes(Arc<crate::report::ReportCell>, bool),
    /// Not restored: why.
    No(String),
    /// No report of that name any more.
    Gone,
}

/// Runs `work(i)` for every index in `order` on up to `threads` named threads, each taking the
/// next index once done with the last, and hands each result to `each` on the calling thread as
/// it comes (in the order they finish). A worker waits while a result waits for `each`, so at
/// most `threads` + 1 results exist at once. With one thread, or when none can be started,
/// everything runs on the calling thread in `order`.
///
/// Why threads: a snapshot's time is mostly each report's own (serialising its window; on
/// restore, reading it back into tables), independent of the others', and it is time the daemon
/// is not merging: receivers queue what comes meanwhile in the temp ring (docs/running.md, "Restarts keep
/// the window"). One report may still take most of it (a full 15-minute window of the benches'
/// largest timer report: 460 MB of the 1.3 GB). A snapshot's write runs it twice: the reports'
/// sizes, then their parts, each written straight to its place in the file (see `encode`).
pub(crate) fn on_threads<T: Send>(
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
pub(super) fn restore_content(
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
    // Its own ids when the snapshot is the last clean stop's, else ids no run used (`ids`).
    let renumbered = shared
        .ids()
        .restored_first(first_id, first_id.wrapping_add(requests as u64));
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
            let skipped = if renumbered == first_id { i as u64 } else { 0 };
            pool.resume_ids(renumbered.wrapping_add(skipped));
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
        let window = Window::read(r)?;
        saved.push((name, def, window, r.blob()?));
    }
    // The families' stages (see `report::SavedFamily`); older versions drained them into
    // their members before the write.
    let families = if version >= 7 {
        (0..r.count(20)?)
            .map(|_| crate::report::SavedFamily::read(r, &remap, Layout::of(version)))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    if !r.is_empty() {
        return Err(SnapshotError::invalid("trailing bytes after the reports"));
    }
    // Each report on its own (they share nothing but the remap), the biggest first, on as many
    // threads as merge: reading the reports' windows back is most of a restore's time.
    let mut order: Vec<usize> = (0..saved.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(saved[i].3.len()));
    let mut outcomes: Vec<Option<Outcome>> = (0..saved.len()).map(|_| None).collect();
    let filled_tables = parking_lot::Mutex::new(rustc_hash::FxHashSet::<usize>::default());
    on_threads(
        shared.config().merge.threads(),
        &order,
        |i| {
            let (name, def, window, state) = &saved[i];
            let Some(cell) = shared.reports().get(name) else {
                return Outcome::Gone;
            };
            // Reports sharing a table (see `report::set`) have it filled once: the lock keeps
            // the others out until the first is done.
            let mut report = cell.report.write();
            let table = Arc::as_ptr(&cell.report) as usize;
            if filled_tables.lock().contains(&table) {
                drop(report);
                return Outcome::Yes(cell, false);
            }
            let why = if let Err(e) = def {
                Some(format!("its saved definition cannot be read: {e}"))
            } else if def.as_ref() != Ok(&cell.def_of(&report)) {
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
                    filled_tables.lock().insert(table);
                    cell.publish(&report);
                    drop(report);
                    Outcome::Yes(cell, true)
                }
                Some(why) => Outcome::No(why),
            }
        },
        |i, outcome| outcomes[i] = Some(outcome),
    );
    let (mut restored, mut skipped) = (Vec::new(), Vec::new());
    let mut filled_by = FxHashMap::default();
    for ((name, ..), outcome) in saved.into_iter().zip(outcomes) {
        match outcome {
            Some(Outcome::Yes(cell, filled)) => {
                if filled {
                    filled_by.insert(name, Arc::clone(&cell));
                }
                restored.push(cell)
            }
            Some(Outcome::Gone) | None => {
                tracing::info!(report = %name, "Snapshot: the report no longer exists; not restored");
            }
            Some(Outcome::No(why)) => {
                // Its own entry did not fit, but the table it shares was filled from another's.
                let filled = filled_tables.lock();
                match shared.reports().get(&name) {
                    Some(cell) if filled.contains(&(Arc::as_ptr(&cell.report) as usize)) => {
                        restored.push(cell);
                    }
                    _ => {
                        tracing::info!(report = %name, reason = %why, "Snapshot: report not restored; it starts empty");
                        skipped.push(name);
                    }
                }
            }
        }
    }
    let stages = crate::report::restore_stages(families, &|name| filled_by.get(name).cloned());
    Ok((pool, restored, skipped, stages))
}

/// Restored reports need no filling from the pool: they are marked filled, each given to a
/// merge thread by its estimated cost (a timer report costs about a request report per timer),
/// until the merger balances them by measured cost.
pub(crate) fn assign_workers(shared: &Core, cells: &[Arc<crate::report::ReportCell>]) {
    let threads = shared.config().merge.threads().max(1);
    let mut load = vec![0u64; threads];
    load[0] = 12; // the merger's own work (intern, pool)

    // A shared table (see `report::set`) is one report's work, whichever names were restored.
    let mut tables = rustc_hash::FxHashSet::default();
    for cell in cells {
        if !tables.insert(Arc::as_ptr(&cell.report) as usize) {
            continue;
        }
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
