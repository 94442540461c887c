//! The histogram log: samples of the open tick waiting to be counted into their rows'
//! histograms.
//!
//! In: one sample per contribution from the update path ([`add_logged`]), packed in a word with
//! its row's slot. Out: the rows' histograms, when the merge thread applies the log grouped by
//! row ([`Report::flush_hist`], under the write lock); and, for a query, which reads the log
//! without applying it, the open histograms with their logged samples added
//! ([`Report::pending_hists`], under the read lock). Why a log: see [`Report::flush_hist`].

use crate::histogram::Histogram;

use super::live::Report;
use super::rows::Row;
use super::sums::Counted;

/// A sample waiting in a report's histogram log: its row's slot, bucket and count packed in a
/// word (slot: 24 bits, bucket: 12, samples: 28). Rows or counts beyond go to the row at once.
const LOG_SLOT_SHIFT: u32 = 40;

const LOG_BUCKET_SHIFT: u32 = 28;

const LOG_MAX_SLOT: u32 = 1 << 24;

const LOG_MAX_SAMPLES: u64 = 1 << 28;

const _: () = assert!(crate::histogram::BUCKETS <= 1 << 12);

/// A histogram log word's row slot, bucket and samples (see [`add_logged`]).
#[inline]
fn log_entry(e: u64) -> (usize, u16, u64) {
    (
        (e >> LOG_SLOT_SHIFT) as usize,
        ((e >> LOG_BUCKET_SHIFT) & 0xfff) as u16,
        e & (LOG_MAX_SAMPLES - 1),
    )
}

/// Counts `c` into `row`: the sums now, the histogram sample into `log` (or now when it does not
/// fit a log word). Returns how many bytes the row's histogram grew by.
///
/// Always inlined, as are [`count_into`] and [`Row::add`] (a report's totals, per timer): they run
/// per contribution, and left to itself the compiler keeps them calls.
#[inline(always)]
fn add_logged(row: &mut Row, c: &impl Counted, log: &mut Vec<u64>) -> usize {
    c.add_to(&mut row.sums);
    row.contribs = row.contribs.saturating_add(1);
    let (bucket, samples) = c.sample();
    if row.slot < LOG_MAX_SLOT && samples < LOG_MAX_SAMPLES {
        log.push(
            (row.slot as u64) << LOG_SLOT_SHIFT | (bucket as u64) << LOG_BUCKET_SHIFT | samples,
        );
        0
    } else {
        row.hist.add_bucket(bucket, samples)
    }
}

/// Counts `c` into an existing `row` (see `Report::apply`): its histogram sample into `log` when
/// the report logs them. Returns how many bytes the row's histogram grew by, which the caller
/// adds to its open rows' (`Report::open_hist_bytes`): so the memory budget sees a row's
/// histogram as it grows, not at the tick's close.
#[inline(always)]
pub(super) fn count_into(
    row: &mut Row,
    c: &impl Counted,
    mark: Option<u64>,
    log: Option<&mut Vec<u64>>,
) -> usize {
    if let Some(mark) = mark {
        if row.mark != mark {
            row.mark = mark;
            row.sums.req_count += 1;
        }
    }
    match log {
        Some(log) => add_logged(row, c, log),
        None => row.add(c),
    }
}

/// Samples per open row the histogram log holds before the merge thread applies it (see
/// [`Report::flush_hist`]): applying costs a pass over every open row, so the longer the log,
/// the cheaper per sample.
pub(super) const HIST_LOG_PER_ROW: usize = 64;

/// The same for a report queried lately ([`Report::set_queried`]). Queries read the log, never
/// apply it ([`Report::pending_hists`]), so this bounds their pass over it, and the shown rows'
/// samples they add up (the busiest rows log most samples): at 8 per row the pass stays a small
/// part of a query. The price is a queried report's merge, which applies its log more often,
/// and only while it is queried. (Applying the log at each query instead would put that work on
/// every query, under the write lock; a short log for every report would cost every merge.)
pub(super) const HIST_LOG_PER_ROW_QUERIED: usize = 8;

/// Open rows' histograms with their samples still in a report's histogram log, by the row's
/// slot (see [`Report::pending_hists`]): `index[slot]` is 1 + the row's place in `hists`, 0 for
/// a slot without (an array, not a hash map: each logged sample of a row read finds its
/// histogram with one load).
pub(super) struct PendingHists {
    index: Vec<u32>,
    hists: Vec<Histogram>,
}

impl PendingHists {
    pub(super) const NONE: PendingHists = PendingHists {
        index: Vec::new(),
        hists: Vec::new(),
    };

    /// The histogram of `slot`, a copy of `open` (the row's open histogram) made at first use.
    fn get_or_copy(&mut self, slot: usize, open: &Histogram) -> &mut Histogram {
        let at = &mut self.index[slot];
        if *at == 0 {
            self.hists.push(open.clone());
            *at = self.hists.len() as u32;
        }
        &mut self.hists[*at as usize - 1]
    }

    pub(super) fn of_slot(&self, slot: u32) -> Option<&Histogram> {
        match self.index.get(slot as usize) {
            Some(&i) if i > 0 => Some(&self.hists[i as usize - 1]).filter(|h| !h.is_empty()),
            _ => None,
        }
    }
}

impl Report {
    /// Tells the report whether queries read it lately (they read its histogram log: see
    /// `HIST_LOG_PER_ROW_QUERIED`).
    pub fn set_queried(&mut self, queried: bool) {
        self.queried = queried;
    }

    /// Whether samples wait in the histogram log. Queries read them there
    /// (`Report::pending_hists`); a snapshot applies them first ([`Report::flush_hist`], under
    /// the write lock).
    pub fn hist_pending(&self) -> bool {
        !self.hist_log.is_empty()
    }

    /// The open histograms of the rows at `slots` (each slot with its row's open histogram;
    /// every open row when `None`) with their samples still in the histogram log added, for
    /// the rows that have some there: what a query reads those rows' percentiles from, exactly,
    /// without applying the log ([`Report::flush_hist`] needs the write lock, and the merge
    /// thread applies it in larger, cheaper batches). One pass over the log.
    ///
    /// The samples go into a copy of the row's open histogram rather than a histogram of their
    /// own: a busy row's open histogram is a block already holding most of their buckets, so
    /// each sample is one counter's increment (an empty histogram grew through the sparse form
    /// and its inserts first, a tenth of a loaded query), and the row is then read from two parts,
    /// not three.
    pub(super) fn pending_hists<'h>(
        &'h self,
        slots: Option<&[(u32, &'h Histogram)]>,
    ) -> PendingHists {
        if self.hist_log.is_empty() || slots.is_some_and(|s| s.is_empty()) {
            return PendingHists::NONE;
        }
        let n = self.open_slots as usize;
        let mut open_of: Vec<Option<&Histogram>> = vec![None; n];
        match slots {
            None => {
                for (_, o) in self.open.iter(self.keys.len()) {
                    if let Some(at) = open_of.get_mut(o.slot as usize) {
                        *at = Some(&o.hist);
                    }
                }
            }
            Some(slots) => {
                for &(s, h) in slots {
                    if let Some(at) = open_of.get_mut(s as usize) {
                        *at = Some(h);
                    }
                }
            }
        }
        let mut p = PendingHists {
            index: vec![0u32; n],
            hists: Vec::new(),
        };
        for &e in &self.hist_log {
            let (slot, bucket, samples) = log_entry(e);
            if let Some(&Some(open)) = open_of.get(slot) {
                p.get_or_copy(slot, open).add_bucket(bucket, samples);
            }
        }
        p
    }

    /// Applies the logged samples and gives the log's memory back (while the memory budget is
    /// tight, when no sample is logged).
    pub(super) fn drop_hist_log(&mut self) {
        self.flush_hist();
        if self.hist_log.capacity() + self.hist_sorted.capacity() + self.slot_counts.capacity() > 0
        {
            self.hist_log = Vec::new();
            self.hist_sorted = Vec::new();
            self.slot_counts = Vec::new();
        }
    }

    /// What the histogram log takes (bytes), counted ahead: the log, doubled once it is half
    /// full (a round adds up to its next doubling unseen), and the sort buffer and slot counts
    /// its next flush sizes to it (see [`Report::memory_estimate`]).
    pub(super) fn hist_log_bytes(&self) -> usize {
        let log = if self.hist_log.len() * 2 > self.hist_log.capacity() {
            self.hist_log.capacity() * 2
        } else {
            self.hist_log.capacity()
        };
        let slots = if self.hist_log.is_empty() {
            0
        } else {
            self.open_slots as usize + 1
        };
        8 * (log + self.hist_sorted.capacity().max(log))
            + 4 * self.slot_counts.capacity().max(slots)
    }

    /// Applies the logged samples to their rows' histograms, grouped by row.
    ///
    /// Why a log: updating a row's histogram per sample costs a cache miss on the bucket's
    /// counter once a report has more rows than the caches hold, which would be most of the
    /// merge's time. Samples are appended to one sequential log instead, and
    /// applied here a few times per tick, sorted by row (a counting sort on the open tick's slot
    /// numbers), so that each row's counters are touched in one burst while they are in cache.
    pub fn flush_hist(&mut self) {
        if self.hist_log.is_empty() {
            return;
        }
        let slots = self.open_slots as usize;
        let Report {
            open,
            hist_log,
            hist_sorted,
            slot_counts,
            open_hist_bytes,
            ..
        } = self;
        slot_counts.clear();
        slot_counts.resize(slots + 1, 0);
        for &e in hist_log.iter() {
            slot_counts[log_entry(e).0 + 1] += 1;
        }
        for i in 1..slot_counts.len() {
            slot_counts[i] += slot_counts[i - 1];
        }
        hist_sorted.clear();
        hist_sorted.resize(hist_log.len(), 0);
        for &e in hist_log.iter() {
            let at = &mut slot_counts[log_entry(e).0];
            hist_sorted[*at as usize] = e;
            *at += 1;
        }
        // `slot_counts[s]` is now where slot s's samples end (and s + 1's start). The rows take
        // theirs in table order: one forward walk over the table, not a jump per slot.
        let mut applied = 0;
        for row in open.values_mut() {
            let s = row.slot as usize;
            if s >= slots {
                continue;
            }
            let start = if s == 0 {
                0
            } else {
                slot_counts[s - 1] as usize
            };
            for &e in &hist_sorted[start..slot_counts[s] as usize] {
                let (_, bucket, samples) = log_entry(e);
                *open_hist_bytes += row.hist.add_bucket(bucket, samples);
            }
            applied += slot_counts[s] as usize - start;
        }
        debug_assert_eq!(
            applied,
            hist_log.len(),
            "every logged sample's row is in the open tick"
        );
        hist_log.clear();
        hist_sorted.clear();
        if hist_log.capacity() > 1 << 16 && hist_log.capacity() > 4 * self.open.len() * 64 {
            self.hist_log.shrink_to(1 << 16);
            self.hist_sorted.shrink_to(1 << 16);
        }
    }
}
