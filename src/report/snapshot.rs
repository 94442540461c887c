//! A report's window state in and out of a snapshot (see the `snapshot` module): the closed ticks
//! in the window, the open tick, the window's closed part (`agg`, the sum of the closed ticks),
//! and the figures that go with them.
//!
//! Why `agg` is saved although the ticks sum to it: rebuilding it on restore, every saved tick's
//! rows added into it, would be most of a restore's time (seconds for a large report's full
//! window). Ticks that left
//! the window while the daemon was down are taken out of the saved `agg` as expiry would, each
//! checked to be inside it first (a file that says otherwise is refused, never subtracted below
//! zero). Version 1 snapshots, written without it, are still read: their `agg` is rebuilt.
//! Since version 3 the time and byte sums are saved in 128 bits, wide enough for [`Sums`]'
//! 96-bit ones; older files' 64-bit sums are read into them. Since version 5 the "(other)" rows
//! (the open tick's, each closed tick's, the closed part's), the tick each closed-part row was
//! made in (`Row::mark`) and the count of rows folded away are saved; older files had none.
//! Since version 6 each row's sums end with its memory_peak sum and largest memory_peak; older
//! files' rows read 0 for both. The closed part's per-tick memory_peak maxima (`Row::peaks`) are
//! not saved: they are rebuilt from the ticks in the window ([`Report::rebuild_peaks`]).
//! Since version 8 ([`Layout::compact`]) a row's key ids, sums, histogram buckets and mark are
//! LEB128 varints: a row of one request (most of a flood of new names, whose rows a stop writes
//! twice, in their tick and in the closed part) took ~150 bytes at fixed width and takes ~35,
//! and the bytes a stop copies into the page cache were most of its time. The tick log keeps
//! the fixed-width layout ([`Layout::TICK_LOG`]): its segments are LZ4-compressed.
//!
//! Dictionary ids in row keys are remapped on restore (`remap`: old id → id in the new
//! dictionary), except a `status` key, which is a number.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::codec::{var_len, Reader, SnapshotError, Writer};
use crate::histogram::{HistView, Histogram, MAX_BUCKET_COUNT};

use super::keys::{Key, KeyBuf};
use super::rows::{Row, RowMap, NO_SLOT};
use super::window::{add_tick_rows, note_peak};
use super::*;

/// What a snapshot version's report state holds, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The window's closed part (`agg`) is saved (version 2 on).
    with_agg: bool,
    /// Time and byte sums (96-bit) in 128 bits, low word first (version 3 on); 64 before.
    wide_sums: bool,
    /// The "(other)" rows, the closed-part rows' `mark` and `rows_evicted` (version 5 on).
    with_other: bool,
    /// The memory_peak sum (128 bits) and largest memory_peak after each row's other sums
    /// (version 6 on); older files had none: their rows read 0 for both.
    with_peak: bool,
    /// Key ids, sums, contributions, histogram buckets and marks as LEB128 varints (version 8
    /// on; see the module's doc); fixed-width before.
    compact: bool,
}

impl Layout {
    /// What this version writes.
    pub const CURRENT: Layout = Layout {
        with_agg: true,
        wide_sums: true,
        with_other: true,
        with_peak: true,
        compact: true,
    };

    /// What the tick log writes its ticks in: version 6's fixed-width rows (its segments are
    /// LZ4-compressed, which takes most of what the varints save).
    pub const TICK_LOG: Layout = Layout {
        compact: false,
        ..Layout::CURRENT
    };

    /// The layout of snapshot format `version`.
    pub fn of(version: u32) -> Layout {
        Layout {
            with_agg: version >= 2,
            wide_sums: version >= 3,
            with_other: version >= 5,
            with_peak: version >= 6,
            compact: version >= 8,
        }
    }
}

fn write_sums<W: std::io::Write>(
    w: &mut Writer<W>,
    s: &Sums,
    layout: Layout,
) -> std::io::Result<()> {
    if layout.compact {
        w.var(s.req_count)?;
        w.var(s.hit_count)?;
        for v in wide_sums(s) {
            w.var128(v)?;
        }
        return w.var(s.memory_peak_max as u64);
    }
    w.u64(s.req_count)?;
    w.u64(s.hit_count)?;
    for v in [
        s.time_ns,
        s.ru_utime_ns,
        s.ru_stime_ns,
        s.traffic_bytes,
        s.memory_footprint_bytes,
    ] {
        let v = v.get();
        if layout.wide_sums {
            w.u64(v as u64)?;
            w.u64((v >> 64) as u64)?;
        } else {
            // Only tests write the older layouts.
            w.u64(u64::try_from(v).unwrap_or(u64::MAX))?;
        }
    }
    if layout.with_peak {
        let v = s.memory_peak_bytes.get();
        w.u64(v as u64)?;
        w.u64((v >> 64) as u64)?;
        w.u32(s.memory_peak_max)?;
    }
    Ok(())
}

/// A row's 96-bit sums, memory_peak's last: what the compact layout writes after the counts.
fn wide_sums(s: &Sums) -> [u128; 6] {
    [
        s.time_ns.get(),
        s.ru_utime_ns.get(),
        s.ru_stime_ns.get(),
        s.traffic_bytes.get(),
        s.memory_footprint_bytes.get(),
        s.memory_peak_bytes.get(),
    ]
}

fn read_sums(r: &mut Reader<'_>, layout: Layout) -> Result<Sums, SnapshotError> {
    // The counts, the 96-bit sums in `wide_sums`' order, and the largest memory_peak.
    let (req_count, hit_count, wide, memory_peak_max) = if layout.compact {
        let counts = (r.var()?, r.var()?);
        let mut wide = [0u128; 6];
        for v in &mut wide {
            *v = r.var128()?;
        }
        (counts.0, counts.1, wide, r.var32()?)
    } else {
        let counts = (r.u64()?, r.u64()?);
        let mut wide = [0u128; 6];
        for v in &mut wide[..5] {
            *v = r.u64()? as u128;
            if layout.wide_sums {
                *v |= (r.u64()? as u128) << 64;
            }
        }
        let peak_max = if layout.with_peak {
            wide[5] = r.u64()? as u128 | (r.u64()? as u128) << 64;
            r.u32()?
        } else {
            0
        };
        (counts.0, counts.1, wide, peak_max)
    };
    let [time_ns, ru_utime_ns, ru_stime_ns, traffic_bytes, memory_footprint_bytes, memory_peak_bytes] =
        wide.map(Sum96::saturating_from);
    Ok(Sums {
        req_count,
        hit_count,
        time_ns,
        ru_utime_ns,
        ru_stime_ns,
        traffic_bytes,
        memory_footprint_bytes,
        memory_peak_bytes,
        memory_peak_max,
    })
}

fn write_hist<'h, W: std::io::Write>(
    w: &mut Writer<W>,
    h: impl Into<HistView<'h>>,
    layout: Layout,
) -> std::io::Result<()> {
    let h = h.into();
    if layout.compact {
        w.var(h.buckets_used() as u64)?;
        for (bucket, n) in h.iter() {
            w.var(bucket as u64)?;
            w.var(n)?;
        }
        return Ok(());
    }
    w.u32(h.buckets_used() as u32)?;
    for (bucket, n) in h.iter() {
        w.u16(bucket)?;
        w.u64(n)?;
    }
    Ok(())
}

fn read_hist(r: &mut Reader<'_>, layout: Layout) -> Result<Histogram, SnapshotError> {
    let n = if layout.compact {
        r.var()? as usize
    } else {
        r.count(10)?
    };
    if n > crate::histogram::BUCKETS {
        return Err(SnapshotError::invalid("histogram with too many buckets"));
    }
    let mut h = Histogram::new();
    for _ in 0..n {
        let (bucket, count) = if layout.compact {
            let bucket = r.var()?;
            (u16::try_from(bucket).unwrap_or(u16::MAX), r.var()?)
        } else {
            (r.u16()?, r.u64()?)
        };
        if bucket as usize >= crate::histogram::BUCKETS || count > MAX_BUCKET_COUNT {
            return Err(SnapshotError::invalid("histogram bucket out of range"));
        }
        h.add_bucket(bucket, count);
    }
    Ok(h)
}

fn write_row<W: std::io::Write>(
    w: &mut Writer<W>,
    row: &Row,
    layout: Layout,
) -> std::io::Result<()> {
    write_sums(w, &row.sums, layout)?;
    if layout.compact {
        w.var(row.contribs as u64)?;
    } else {
        w.u32(row.contribs)?;
    }
    write_hist(w, &row.hist, layout)
}

fn read_row(r: &mut Reader<'_>, layout: Layout) -> Result<Row, SnapshotError> {
    let sums = read_sums(r, layout)?;
    let contribs = if layout.compact { r.var32()? } else { r.u32()? };
    let hist = read_hist(r, layout)?;
    Ok(Row {
        sums,
        hist,
        contribs,
        ..Row::default()
    })
}

/// Which ids of a row key are dictionary ids, remapped on restore: all but a `status` key's,
/// a number. A report's keys say it, and so do the flags a family's saved stage keeps (see
/// [`SavedStage`]).
trait IdKeys {
    fn count(&self) -> usize;
    fn is_id(&self, at: usize) -> bool;
}

impl IdKeys for [Key] {
    fn count(&self) -> usize {
        self.len()
    }
    fn is_id(&self, at: usize) -> bool {
        !matches!(self[at], Key::Status)
    }
}

impl IdKeys for [bool] {
    fn count(&self) -> usize {
        self.len()
    }
    fn is_id(&self, at: usize) -> bool {
        self[at]
    }
}

/// A row key as saved (old ids), remapped to the new dictionary.
fn read_key<K: IdKeys + ?Sized>(
    r: &mut Reader<'_>,
    keys: &K,
    remap: &dyn Fn(u32) -> u32,
    layout: Layout,
) -> Result<KeyBuf, SnapshotError> {
    let n = keys.count();
    let mut key = KeyBuf {
        ids: [0; MAX_KEYS],
        len: n,
    };
    for (at, slot) in key.ids[..n].iter_mut().enumerate() {
        let id = if layout.compact { r.var32()? } else { r.u32()? };
        *slot = if keys.is_id(at) { remap(id) } else { id };
    }
    Ok(key)
}

/// A count, then each row with its key (and, with `marks`, its `mark`): what [`read_rows`]
/// reads.
fn write_rows<'a, W: std::io::Write>(
    w: &mut Writer<W>,
    rows: impl Iterator<Item = (&'a [u32], &'a Row)> + Clone,
    layout: Layout,
    marks: bool,
) -> std::io::Result<()> {
    w.u32(rows.clone().count() as u32)?;
    for (key, row) in rows {
        write_key(w, key, layout)?;
        write_row(w, row, layout)?;
        if marks {
            if layout.compact {
                w.var(row.mark)?;
            } else {
                w.u64(row.mark)?;
            }
        }
    }
    Ok(())
}

/// A row's key ids: what [`read_key`] reads.
fn write_key<W: std::io::Write>(
    w: &mut Writer<W>,
    ids: &[u32],
    layout: Layout,
) -> std::io::Result<()> {
    for &id in ids {
        if layout.compact {
            w.var(id as u64)?;
        } else {
            w.u32(id)?;
        }
    }
    Ok(())
}

/// A count, then that many rows with their keys (as saved, remapped) into a new table.
fn read_rows<K: IdKeys + ?Sized>(
    r: &mut Reader<'_>,
    keys: &K,
    remap: &dyn Fn(u32) -> u32,
    layout: Layout,
    marks: bool,
) -> Result<RowMap, SnapshotError> {
    let rows = r.count(row_min_len(keys.count(), layout))?;
    let mut map = RowMap::new(keys.count());
    map.reserve(rows);
    for _ in 0..rows {
        let key = read_key(r, keys, remap, layout)?;
        let mut row = read_row(r, layout)?;
        if marks {
            row.mark = if layout.compact { r.var()? } else { r.u64()? };
        }
        match map.get_mut(&key) {
            // Two old ids can become one (the dictionary was full): their rows merge, made when
            // the later was.
            Some(o) => {
                o.add_row(&row);
                o.mark = o.mark.max(row.mark);
            }
            None => map.insert(&key, row),
        }
    }
    Ok(map)
}

/// A row that may be absent (a closed tick's "(other)" row): a flag, then the row.
fn write_other<W: std::io::Write>(
    w: &mut Writer<W>,
    row: Option<&Row>,
    layout: Layout,
) -> std::io::Result<()> {
    match row {
        Some(row) => {
            w.u16(1)?;
            write_row(w, row, layout)
        }
        None => w.u16(0),
    }
}

/// What [`write_other`] wrote.
fn read_other(r: &mut Reader<'_>, layout: Layout) -> Result<Option<Row>, SnapshotError> {
    match r.u16()? {
        0 => Ok(None),
        1 => Ok(Some(Row {
            slot: NO_SLOT,
            ..read_row(r, layout)?
        })),
        _ => Err(SnapshotError::invalid("a bad \"(other)\" row flag")),
    }
}

/// The fewest bytes a row of `n` keys takes in `layout` (keys, sums, contributions and an
/// empty histogram): what bounds a count read back against the bytes left.
fn row_min_len(n: usize, layout: Layout) -> usize {
    if layout.compact {
        n + 9 + 1 + 1
    } else {
        4 * n + 60
    }
}

/// Bytes [`write_sums`] writes for `s` in `layout`.
fn sums_len(s: &Sums, layout: Layout) -> u64 {
    if layout.compact {
        return var_len(s.req_count as u128)
            + var_len(s.hit_count as u128)
            + wide_sums(s).into_iter().map(var_len).sum::<u64>()
            + var_len(s.memory_peak_max as u128);
    }
    16 + 5 * if layout.wide_sums { 16 } else { 8 } + if layout.with_peak { 20 } else { 0 }
}

/// Bytes [`write_hist`] writes for `h` in `layout`.
fn hist_len<'h>(h: impl Into<HistView<'h>>, layout: Layout) -> u64 {
    let h = h.into();
    if layout.compact {
        return var_len(h.buckets_used() as u128)
            + h.iter()
                .map(|(bucket, n)| var_len(bucket as u128) + var_len(n as u128))
                .sum::<u64>();
    }
    4 + 10 * h.buckets_used() as u64
}

/// Bytes [`write_row`] writes for `row`.
fn row_len(row: &Row, layout: Layout) -> u64 {
    let contribs = if layout.compact {
        var_len(row.contribs as u128)
    } else {
        4
    };
    sums_len(&row.sums, layout) + contribs + hist_len(&row.hist, layout)
}

/// Bytes [`write_key`] writes for `ids`.
fn key_len(ids: &[u32], layout: Layout) -> u64 {
    if layout.compact {
        ids.iter().map(|&id| var_len(id as u128)).sum()
    } else {
        4 * ids.len() as u64
    }
}

/// Bytes [`write_rows`] writes for `rows`.
fn rows_len<'a>(
    rows: impl Iterator<Item = (&'a [u32], &'a Row)>,
    layout: Layout,
    marks: bool,
) -> u64 {
    let mark = |row: &Row| match (marks, layout.compact) {
        (false, _) => 0,
        (true, true) => var_len(row.mark as u128),
        (true, false) => 8,
    };
    4 + rows
        .map(|(key, row)| key_len(key, layout) + row_len(row, layout) + mark(row))
        .sum::<u64>()
}

/// Bytes [`write_tick`] writes for `tick`.
fn tick_len(tick: &ClosedTick, layout: Layout) -> u64 {
    let rows: u64 = tick
        .rows()
        .map(|(ids, sums, hist)| {
            key_len(ids, layout) + sums_len(&sums, layout) + hist_len(hist, layout)
        })
        .sum();
    let other = match (layout.with_other, tick.other.as_deref()) {
        (false, _) => 0,
        (true, None) => 2,
        (true, Some(o)) => 2 + row_len(o, layout),
    };
    8 + row_len(&tick.totals, layout) + 4 + rows + other
}

impl Report {
    /// Writes the window state (the histogram log applied first, so nothing waits in it) in
    /// `layout` (older layouts only for tests). A family member's stage must have been drained
    /// into it before (`Family::drain`).
    pub fn save_window<W: std::io::Write>(
        &mut self,
        w: &mut Writer<W>,
        layout: Layout,
    ) -> std::io::Result<()> {
        self.flush_hist();
        let n = self.keys.len();
        w.u32(n as u32)?;
        w.u64(self.rows_lost)?;
        w.u64(self.update_number)?;
        // Where versions before 5 kept the tick rows were frozen until (none since).
        w.u64(u64::MAX)?;
        w.u64(self.complete_from_ms)?;
        w.u64(self.now_ms)?;
        w.u64(self.open_index)?;
        write_row(w, &self.open_totals, layout)?;
        // Open rows zeroed at the last close (kept only for their memory) are not saved.
        write_rows(
            w,
            self.open.iter(n).filter(|(_, r)| r.sums.req_count > 0),
            layout,
            false,
        )?;
        w.u32(self.closed.len() as u32)?;
        for tick in &self.closed {
            write_tick(w, tick, layout)?;
        }
        if layout.with_agg {
            write_row(w, &self.agg_totals, layout)?;
            write_rows(w, self.agg.iter(n), layout, layout.with_other)?;
        }
        if layout.with_other {
            write_row(w, &self.open_other, layout)?;
            write_row(w, &self.agg_other, layout)?;
            w.u64(self.rows_evicted)?;
        }
        Ok(())
    }

    /// The bytes [`Report::save_window`] will write in `layout` (the histogram log applied
    /// first, as it does): what lets the snapshot place each report's part in its file before
    /// writing any, and write them side by side. Walks the rows without writing (a fraction of
    /// the write's time).
    pub fn saved_window_len(&mut self, layout: Layout) -> u64 {
        self.flush_hist();
        let n = self.keys.len();
        let mut len = 4 + 6 * 8 + row_len(&self.open_totals, layout);
        len += rows_len(
            self.open.iter(n).filter(|(_, r)| r.sums.req_count > 0),
            layout,
            false,
        );
        len += 4 + self.closed.iter().map(|t| tick_len(t, layout)).sum::<u64>();
        if layout.with_agg {
            len += row_len(&self.agg_totals, layout);
            len += rows_len(self.agg.iter(n), layout, layout.with_other);
        }
        if layout.with_other {
            len += row_len(&self.open_other, layout) + row_len(&self.agg_other, layout) + 8;
        }
        len
    }

    /// Replaces the window state with the one [`Report::save_window`] wrote (in `layout`),
    /// ticks that left the window by `now_ms` skipped. Everything is read before
    /// anything changes: on an error the report is as it was. Call on a report that has not
    /// counted anything yet.
    pub fn restore_window(
        &mut self,
        r: &mut Reader<'_>,
        remap: &dyn Fn(u32) -> u32,
        now_ms: u64,
        layout: Layout,
    ) -> Result<(), SnapshotError> {
        let n = self.keys.len();
        if r.u32()? as usize != n {
            return Err(SnapshotError::invalid("a report's key count differs"));
        }
        let rows_lost = r.u64()?;
        let update_number = r.u64()?;
        // Versions before 5: the tick rows were frozen until, which no report keeps any more.
        let _frozen_tick = r.u64()?;
        let complete_from_ms = r.u64()?;
        let saved_now_ms = r.u64()?;
        let open_index = r.u64()?;
        let open_totals = read_row(r, layout)?;
        let mut open = read_rows(r, &self.keys[..], remap, layout, false)?;
        let first_kept = (self.window.tick_of(now_ms) + 1).saturating_sub(self.window.ticks);
        // A tick's number, totals and row count at least.
        let ticks = r.count(8 + row_min_len(0, layout) + 4)?;
        let mut closed = VecDeque::new();
        // Ticks that left the window: taken out of a saved `agg`.
        let mut gone = Vec::new();
        let mut last_index = None;
        for _ in 0..ticks {
            let tick = read_tick(r, &self.keys, remap, layout)?;
            let index = tick.index;
            if last_index.is_some_and(|l| index <= l) || index >= open_index {
                return Err(SnapshotError::invalid("a report's ticks are out of order"));
            }
            last_index = Some(index);
            if index >= first_kept {
                closed.push_back(Arc::new(tick));
            } else if layout.with_agg {
                gone.push(tick);
            }
        }
        let saved_agg = if layout.with_agg {
            let totals = read_row(r, layout)?;
            Some((
                read_rows(r, &self.keys[..], remap, layout, layout.with_other)?,
                totals,
            ))
        } else {
            None
        };
        let (open_other, saved_agg_other, rows_evicted) = if layout.with_other {
            let open_other = read_row(r, layout)?;
            let agg_other = read_row(r, layout)?;
            (open_other, Some(agg_other), r.u64()?)
        } else {
            (Row::default(), None, 0)
        };
        if !r.is_empty() {
            return Err(SnapshotError::invalid(
                "a report's state has trailing bytes",
            ));
        }

        let (mut agg, agg_totals, agg_other) = match saved_agg {
            Some((mut agg, mut totals)) => {
                let mut other = saved_agg_other.unwrap_or_default();
                for tick in &gone {
                    take_out(&mut agg, &mut totals, &mut other, tick, n)?;
                }
                (agg, totals, other)
            }
            None => sum_of(closed.iter().map(|t| &**t), n, self.window.ticks),
        };

        // Everything read: now the report changes.
        let mut slots = 0;
        let mut open_only = 0;
        let gen = self.open_gen.wrapping_add(1).max(1);
        open.retain_each(n, |key, row| {
            row.slot = slots;
            row.only_open = match agg.get_mut(key) {
                Some(a) => {
                    (a.slot, a.link) = (slots, gen);
                    false
                }
                None => true,
            };
            slots += 1;
            open_only += row.only_open as usize;
            true
        });
        self.rows_lost = rows_lost;
        self.rows_evicted = rows_evicted;
        self.update_number = update_number;
        self.open_other = Row {
            slot: NO_SLOT,
            ..open_other
        };
        self.agg_other = Row {
            slot: NO_SLOT,
            ..agg_other
        };
        self.complete_from_ms = complete_from_ms;
        self.now_ms = saved_now_ms.min(now_ms);
        self.open_index = open_index;
        self.open = open;
        self.open_totals = open_totals;
        self.open_only = open_only;
        self.open_slots = slots;
        self.open_gen = gen;
        self.hist_log.clear();
        self.closed = closed;
        self.agg = agg;
        self.agg_totals = agg_totals;
        self.rebuild_peaks();
        self.recount_memory();
        Ok(())
    }

    /// Rebuilds the closed part's per-tick memory_peak maxima (`Row::peaks`) and largest
    /// memory_peak from the closed ticks in the window (after a restore: a saved closed part's
    /// largest may be of ticks that left). A lookup per tick row, and none for a report whose
    /// ticks saw no memory_peak (timer reports).
    pub(super) fn rebuild_peaks(&mut self) {
        let n = self.keys.len();
        let ticks = self.window.ticks;
        for row in self
            .agg
            .values_mut()
            .chain([&mut self.agg_totals, &mut self.agg_other])
        {
            row.peaks = None;
            row.sums.memory_peak_max = 0;
        }
        let mut key = KeyBuf {
            ids: [0; MAX_KEYS],
            len: n,
        };
        for tick in &self.closed {
            if tick.totals.sums.memory_peak_max == 0 {
                continue;
            }
            let index = tick.index;
            let max = tick.totals.sums.memory_peak_max;
            note_peak(&mut self.agg_totals, ticks, index, max);
            if let Some(o) = &tick.other {
                note_peak(&mut self.agg_other, ticks, index, o.sums.memory_peak_max);
            }
            for (ids, sums, _) in tick.rows() {
                key.ids[..n].copy_from_slice(ids);
                let max = sums.memory_peak_max;
                match self.agg.get_mut(&key) {
                    Some(a) if a.mark <= index => note_peak(a, ticks, index, max),
                    _ => note_peak(&mut self.agg_other, ticks, index, max),
                };
            }
        }
    }
}

/// A family's stage as the snapshot keeps it (see `family::SavedFamily`): the rows that
/// counted something since its last fold (with their contributions, which a member short of
/// room counts as lost), its totals and its "(other)" row, key ids as the saving run's
/// dictionary had them until read back. Put back into a stage of the same keys, or folded into
/// members straight away (see `family::restore_stages`).
#[derive(Debug)]
pub(super) struct SavedStage {
    pub(super) rows: RowMap,
    pub(super) totals: Row,
    pub(super) other: Row,
}

impl SavedStage {
    /// What [`Report::save_stage`] wrote, for a stage of `id_keys.len()` keys (`id_keys`: which
    /// hold dictionary ids, remapped by `remap`).
    pub(super) fn read(
        r: &mut Reader<'_>,
        id_keys: &[bool],
        remap: &dyn Fn(u32) -> u32,
        layout: Layout,
    ) -> Result<SavedStage, SnapshotError> {
        let totals = read_row(r, layout)?;
        let other = read_row(r, layout)?;
        let rows = read_rows(r, id_keys, remap, layout, false)?;
        Ok(SavedStage {
            rows,
            totals,
            other: Row {
                slot: NO_SLOT,
                ..other
            },
        })
    }
}

impl Report {
    /// Writes a stage's state (see [`SavedStage`]); its histogram log must be applied.
    pub(super) fn save_stage<W: std::io::Write>(
        &self,
        w: &mut Writer<W>,
        layout: Layout,
    ) -> std::io::Result<()> {
        debug_assert!(self.hist_log.is_empty());
        write_row(w, &self.open_totals, layout)?;
        write_row(w, &self.open_other, layout)?;
        let n = self.keys.len();
        let rows = self.open.iter(n).filter(|(_, r)| r.contribs > 0);
        write_rows(w, rows, layout, false)
    }

    /// Puts a saved stage's state into this stage, which holds nothing yet: as if it had
    /// counted those requests itself.
    pub(super) fn put_back_stage(&mut self, saved: SavedStage) {
        debug_assert_eq!(self.open_totals.contribs, 0);
        let mut rows = saved.rows;
        let mut slots = 0;
        rows.retain_each(self.keys.len(), |_, row| {
            row.slot = slots;
            slots += 1;
            // A stage has no closed part; its rows' marks are of the saving run's updates.
            row.only_open = true;
            row.mark = 0;
            true
        });
        self.open_only = rows.len();
        self.open = rows;
        self.open_slots = slots;
        self.open_totals = saved.totals;
        self.open_other = saved.other;
        self.hist_log.clear();
        self.recount_memory();
        self.settle_memory();
    }
}

/// One closed tick: its number, totals, and rows (key ids as the dictionary has them, sums,
/// histogram), and (version 5 on) its "(other)" row. The snapshot writes each report's closed ticks so, and the tick log each tick as
/// it closes.
fn write_tick<W: std::io::Write>(
    w: &mut Writer<W>,
    tick: &ClosedTick,
    layout: Layout,
) -> std::io::Result<()> {
    w.u64(tick.index)?;
    write_row(w, &tick.totals, layout)?;
    w.u32(tick.rows.len() as u32)?;
    for (ids, sums, hist) in tick.rows() {
        write_key(w, ids, layout)?;
        write_sums(w, &sums, layout)?;
        write_hist(w, hist, layout)?;
    }
    if layout.with_other {
        write_other(w, tick.other.as_deref(), layout)?;
    }
    Ok(())
}

/// What [`write_tick`] wrote, for a report keyed on `keys` (ids remapped).
fn read_tick(
    r: &mut Reader<'_>,
    keys: &[Key],
    remap: &dyn Fn(u32) -> u32,
    layout: Layout,
) -> Result<ClosedTick, SnapshotError> {
    let n = keys.len();
    let index = r.u64()?;
    let totals = read_row(r, layout)?;
    let rows = r.count(row_min_len(n, layout) - 1)?;
    let mut tick = ClosedTick::new(index, None, totals, rows, n);
    for _ in 0..rows {
        let key = read_key(r, keys, remap, layout)?;
        let sums = read_sums(r, layout)?;
        let hist = read_hist(r, layout)?;
        tick.push_row(key.slice(), &sums, &hist);
    }
    tick.shrink_hists();
    if layout.with_other {
        tick.other = read_other(r, layout)?.map(Box::new);
    }
    Ok(tick)
}

impl Window {
    /// Writes the window (history, tick length, ticks, phase: ms), as the snapshot and the tick
    /// log save a report's.
    pub fn write<W: std::io::Write>(&self, w: &mut Writer<W>) -> std::io::Result<()> {
        for x in [self.history_ms, self.tick_ms, self.ticks, self.phase_ms] {
            w.u64(x)?;
        }
        Ok(())
    }

    /// What [`Window::write`] wrote.
    pub fn read(r: &mut Reader<'_>) -> Result<Window, SnapshotError> {
        Ok(Window {
            history_ms: r.u64()?,
            tick_ms: r.u64()?,
            ticks: r.u64()?,
            phase_ms: r.u64()?,
        })
    }
}

/// The sum of closed ticks (`n` keys): a window's closed part, its totals and its "(other)"
/// row, rebuilt.
fn sum_of<'t>(
    closed: impl Iterator<Item = &'t ClosedTick>,
    n: usize,
    ticks: u64,
) -> (RowMap, Row, Row) {
    let mut agg = RowMap::new(n);
    let mut totals = Row::default();
    let mut other = Row::other();
    for tick in closed {
        totals.add_row(&tick.totals);
        note_peak(
            &mut totals,
            ticks,
            tick.index,
            tick.totals.sums.memory_peak_max,
        );
        if let Some(o) = &tick.other {
            other.add_row(o);
            note_peak(&mut other, ticks, tick.index, o.sums.memory_peak_max);
        }
        add_tick_rows(&mut agg, tick, None, ticks);
    }
    (agg, totals, other)
}

impl ClosedTick {
    /// Writes the tick as the tick log keeps it ([`Layout::TICK_LOG`]).
    pub fn write<W: std::io::Write>(&self, w: &mut Writer<W>) -> std::io::Result<()> {
        write_tick(w, self, Layout::TICK_LOG)
    }
}

impl Report {
    /// Which of the report's keys hold dictionary ids, in key order: all but `status`, a number.
    pub fn id_keys(&self) -> Vec<bool> {
        self.keys
            .iter()
            .map(|k| !matches!(k, Key::Status))
            .collect()
    }

    /// Reads a tick [`ClosedTick::write`] wrote (in `layout`: [`Layout::TICK_LOG`], or an older
    /// version's) for a report of this one's keys, its key ids remapped (`remap`: old id → id in
    /// this run's dictionary).
    pub fn read_tick(
        &self,
        r: &mut Reader<'_>,
        remap: &dyn Fn(u32) -> u32,
        layout: Layout,
    ) -> Result<ClosedTick, SnapshotError> {
        read_tick(r, &self.keys, remap, layout)
    }

    /// Fills the window of a report that has counted nothing yet with closed `ticks` (the tick
    /// log's, after a crash): those inside the window at `now_ms` and before its open tick, one
    /// per number (the last given wins), their sum rebuilt; the open tick starts empty. The
    /// report is complete from `complete_from_ms`. Returns how many ticks it kept.
    pub fn replay_ticks(
        &mut self,
        ticks: Vec<ClosedTick>,
        complete_from_ms: u64,
        now_ms: u64,
    ) -> usize {
        debug_assert_eq!(
            self.open_totals.sums.req_count, 0,
            "a report that counted nothing"
        );
        let n = self.keys.len();
        let open_index = self.window.tick_of(now_ms);
        let first_kept = (open_index + 1).saturating_sub(self.window.ticks);
        let mut kept: std::collections::BTreeMap<u64, ClosedTick> = Default::default();
        for tick in ticks {
            if (first_kept..open_index).contains(&tick.index) {
                kept.insert(tick.index, tick);
            }
        }
        let (agg, totals, other) = sum_of(kept.values(), n, self.window.ticks);
        let count = kept.len();
        self.closed = kept.into_values().map(Arc::new).collect();
        self.agg = agg;
        self.agg_totals = totals;
        self.agg_other = other;
        self.open_index = open_index;
        self.now_ms = now_ms;
        self.complete_from_ms = complete_from_ms;
        self.recount_memory();
        count
    }
}

/// Takes a tick that left the window out of a saved closed part (`agg`, its totals and its
/// "(other)" row), as [`Report::expire`] would; rows left empty go. Each part is checked to be
/// inside what it is taken from first: a file that says otherwise is refused (the report starts
/// empty), never subtracted below zero.
fn take_out(
    agg: &mut RowMap,
    totals: &mut Row,
    other: &mut Row,
    tick: &ClosedTick,
    n: usize,
) -> Result<(), SnapshotError> {
    let outside = || SnapshotError::invalid("a closed tick is not inside the window's closed part");
    let take = |from: &mut Row, sums: &Sums, hist: HistView<'_>| {
        if !from.sums.covers(sums) || !from.hist.covers(hist) {
            return Err(outside());
        }
        from.subtract_row_parts(sums, hist);
        Ok(())
    };
    take(totals, &tick.totals.sums, (&tick.totals.hist).into())?;
    if let Some(o) = &tick.other {
        take(other, &o.sums, (&o.hist).into())?;
    }
    let mut key = KeyBuf {
        ids: [0; MAX_KEYS],
        len: n,
    };
    for (ids, sums, hist) in tick.rows() {
        key.ids[..n].copy_from_slice(ids);
        match agg.get_mut(&key) {
            Some(a) if a.mark <= tick.index => {
                take(a, &sums, hist)?;
                if a.sums.req_count == 0 {
                    agg.remove(&key);
                }
            }
            // Folded into "(other)" after the tick closed (see `Report::expire`).
            _ => take(other, &sums, hist)?,
        }
    }
    Ok(())
}
