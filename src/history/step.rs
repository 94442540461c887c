//! Steps: a report's closed ticks summed into the history's steps, the top rows kept and the rest
//! summed into "(other)"; and the compact histogram blob a stored row carries.
//!
//! Pure: no I/O, no clock, no locks (keys arrive as strings, resolved by the writer).

use rustc_hash::FxHashMap;

use crate::budget::table_bytes;
use crate::histogram::{HistView, Histogram, BUCKETS};
use crate::report::Sums;

/// What the key columns of the "(other)" row show.
pub const OTHER: &str = "(other)";

/// Sums and histogram of a row (or of the other row, or of the totals) over a step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Part {
    pub sums: Sums,
    pub hist: Histogram,
}

impl Part {
    /// Adds a row's sums and histogram, saturating: history adds steps read back from the store
    /// (counts up to `i64::MAX` each, bucket counts up to `histogram::MAX_BUCKET_COUNT`) over
    /// any range, so a count stops at `u64::MAX` and a bucket's count at its bound rather than
    /// wrap (or panic, in a debug build).
    pub fn add<'h>(&mut self, sums: &Sums, hist: impl Into<HistView<'h>>) {
        add_sums(&mut self.sums, sums);
        self.hist.add_hist_saturating(hist);
    }

    pub fn add_part(&mut self, o: &Part) {
        self.add(&o.sums, &o.hist);
    }

    pub fn is_empty(&self) -> bool {
        self.sums == Sums::default() && self.hist.is_empty()
    }
}

/// `to += o`, each field stopping at its type's bound (see [`Part::add`]). The reports' own
/// `Sums::add` stays unchecked: it runs per request and counts real samples.
fn add_sums(to: &mut Sums, o: &Sums) {
    to.req_count = to.req_count.saturating_add(o.req_count);
    to.hit_count = to.hit_count.saturating_add(o.hit_count);
    to.time_ns = to.time_ns.saturating_add(o.time_ns);
    to.ru_utime_ns = to.ru_utime_ns.saturating_add(o.ru_utime_ns);
    to.ru_stime_ns = to.ru_stime_ns.saturating_add(o.ru_stime_ns);
    to.traffic_bytes = to.traffic_bytes.saturating_add(o.traffic_bytes);
    to.memory_footprint_bytes = to
        .memory_footprint_bytes
        .saturating_add(o.memory_footprint_bytes);
    to.memory_peak_bytes = to.memory_peak_bytes.saturating_add(o.memory_peak_bytes);
    to.memory_peak_max = to.memory_peak_max.max(o.memory_peak_max);
}

/// The key values of a row, as the report query shows them.
pub type Key = Box<[String]>;

/// Heap bytes of a key: its strings and their slots.
pub fn key_bytes(key: &Key) -> usize {
    key.len() * std::mem::size_of::<String>() + key.iter().map(|s| s.capacity()).sum::<usize>()
}

/// One step of one report while its ticks arrive (or a stored step read back to be merged).
#[derive(Debug, Default)]
pub struct Step {
    rows: FxHashMap<Key, Part>,
    other: Part,
    totals: Part,
    /// End (unix ms) of the latest tick summed in: what the store records as written.
    pub ticks_end_ms: u64,
}

/// A step as stored: at most `history_rows` rows, the other row (when rows were left out) and
/// the report's totals.
#[derive(Debug, Default, PartialEq)]
pub struct Stored {
    pub rows: Vec<(Key, Part)>,
    pub other: Option<Part>,
    pub totals: Part,
}

impl Step {
    /// Adds a row of a tick (or of a stored step) under its key.
    pub fn add_row(&mut self, key: Key, sums: &Sums, hist: &Histogram) {
        match self.rows.get_mut(&key) {
            Some(p) => p.add(sums, hist),
            None => {
                let mut p = Part::default();
                p.add(sums, hist);
                self.rows.insert(key, p);
            }
        }
    }

    /// Adds to the other row (a stored step's, read back; or a tick's row the memory budget
    /// left no row for).
    pub fn add_other<'h>(&mut self, sums: &Sums, hist: impl Into<HistView<'h>>) {
        self.other.add(sums, hist);
    }

    /// Adds a tick's (or a stored step's) totals.
    pub fn add_totals(&mut self, sums: &Sums, hist: &Histogram) {
        self.totals.add(sums, hist);
    }

    /// Adds everything of a stored step.
    pub fn add_stored(&mut self, s: Stored) {
        for (key, p) in s.rows {
            self.add_row(key, &p.sums, &p.hist);
        }
        if let Some(o) = s.other {
            self.other.add_part(&o);
        }
        self.totals.add_part(&s.totals);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.other.is_empty() && self.totals.is_empty()
    }

    /// Memory the step holds (bytes), by a walk over its rows: their table, keys and
    /// histograms (what the history writer tells the memory budget).
    pub fn bytes(&self) -> usize {
        let keys: usize = self
            .rows
            .iter()
            .map(|(k, p)| key_bytes(k) + p.hist.heap_bytes())
            .sum();
        table_bytes(self.rows.capacity(), std::mem::size_of::<(Key, Part)>())
            + keys
            + self.other.hist.heap_bytes()
            + self.totals.hist.heap_bytes()
    }

    /// The step as stored: the `keep` rows of largest time (`req_time_total`, `timer_value`;
    /// ties by key, so the choice never depends on hash order), the others summed into the
    /// other row. Every sum and sample is in exactly one stored row, so totals stay exact.
    pub fn finish(self, keep: usize) -> Stored {
        let Step {
            rows,
            mut other,
            totals,
            ..
        } = self;
        let mut rows: Vec<(Key, Part)> = rows.into_iter().collect();
        let by_time = |a: &(Key, Part), b: &(Key, Part)| {
            b.1.sums
                .time_ns
                .cmp(&a.1.sums.time_ns)
                .then_with(|| a.0.cmp(&b.0))
        };
        if rows.len() > keep {
            if keep > 0 {
                rows.select_nth_unstable_by(keep - 1, by_time);
            }
            for (_, p) in rows.drain(keep..) {
                other.add_part(&p);
            }
        }
        rows.sort_unstable_by(by_time);
        Stored {
            rows,
            other: (!other.is_empty()).then_some(other),
            totals,
        }
    }
}

/// The first byte of a histogram blob: its format.
const BLOB_FORMAT: u8 = 1;

/// A histogram as a blob: a format byte, then runs of neighbouring non-empty buckets, each as the
/// distance from the end of the previous run (from bucket 0 for the first), the run's length and
/// its counts, all LEB128 varints. A busy row's histogram is a few long runs, so a bucket costs
/// about the bytes of its count (1 to 3), where the in-memory forms take 8.
pub fn encode_hist(h: &Histogram, out: &mut Vec<u8>) {
    out.push(BLOB_FORMAT);
    let mut counts: Vec<u64> = Vec::new();
    let (mut run_start, mut prev_end) = (0u64, 0u64);
    let flush = |out: &mut Vec<u8>, counts: &mut Vec<u64>, start: u64, prev_end: &mut u64| {
        if counts.is_empty() {
            return;
        }
        put_varint(out, start - *prev_end);
        put_varint(out, counts.len() as u64);
        for &n in counts.iter() {
            put_varint(out, n);
        }
        *prev_end = start + counts.len() as u64;
        counts.clear();
    };
    for (bucket, n) in h.iter() {
        let bucket = bucket as u64;
        if bucket != run_start + counts.len() as u64 {
            flush(out, &mut counts, run_start, &mut prev_end);
            run_start = bucket;
        }
        counts.push(n);
    }
    flush(out, &mut counts, run_start, &mut prev_end);
}

/// Reads a blob of [`encode_hist`]; an error says what is wrong (a damaged store is reported,
/// never trusted).
pub fn decode_hist(mut b: &[u8]) -> Result<Histogram, String> {
    let mut h = Histogram::new();
    match b.split_first() {
        Some((&BLOB_FORMAT, rest)) => b = rest,
        Some((f, _)) => return Err(format!("unknown histogram blob format {f}")),
        None => return Err("empty histogram blob".into()),
    }
    let (mut end, mut first) = (0u64, true);
    while !b.is_empty() {
        let gap = get_varint(&mut b)?;
        let len = get_varint(&mut b)?;
        if (!first && gap == 0) || len == 0 {
            return Err("histogram blob: runs not apart, or empty".into());
        }
        first = false;
        let start = end.saturating_add(gap);
        end = start.saturating_add(len);
        if end > BUCKETS as u64 {
            return Err(format!("histogram blob: buckets up to {end} out of range"));
        }
        for bucket in start..end {
            let n = get_varint(&mut b)?;
            if n == 0 || n > crate::histogram::MAX_BUCKET_COUNT {
                return Err(format!("histogram blob: count {n} out of range"));
            }
            h.add_bucket(bucket as u16, n);
        }
    }
    Ok(h)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &mut &[u8]) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first().ok_or("histogram blob: truncated varint")?;
        *b = rest;
        v |= ((byte & 0x7f) as u64) << shift;
        if byte < 0x80 {
            return Ok(v);
        }
    }
    Err("histogram blob: varint too long".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sums(req: u64, time_ns: u64) -> Sums {
        Sums {
            req_count: req,
            time_ns: time_ns.into(),
            ru_utime_ns: (req * 3).into(),
            traffic_bytes: (req * 100).into(),
            ..Sums::default()
        }
    }

    fn hist(values_ns: &[u64]) -> Histogram {
        let mut h = Histogram::new();
        for &v in values_ns {
            h.add(v, 1);
        }
        h
    }

    fn key(s: &str) -> Key {
        vec![s.to_string()].into_boxed_slice()
    }

    /// Top-N and the other row: the kept rows are the largest by time, every request and sample
    /// is in exactly one stored row, and the totals pass through untouched.
    #[test]
    fn top_rows_and_other_keep_totals_exact() {
        let mut step = Step::default();
        let mut all = Part::default();
        for i in 0..50u64 {
            // Two ticks per key: sums add up per key before the top is chosen.
            for _ in 0..2 {
                let s = sums(i + 1, (i + 1) * 1_000_000);
                let h = hist(&[(i + 1) * 10_000, (i + 1) * 20_000]);
                step.add_row(key(&format!("/s{i}")), &s, &h);
                step.add_totals(&s, &h);
                all.add(&s, &h);
            }
        }
        let stored = step.finish(10);
        assert_eq!(stored.rows.len(), 10);
        let names: Vec<&str> = stored.rows.iter().map(|(k, _)| k[0].as_str()).collect();
        assert_eq!(names[0], "/s49");
        assert_eq!(names[9], "/s40");
        let mut sum = stored.other.clone().expect("40 rows went to other");
        for (_, p) in &stored.rows {
            sum.add_part(p);
        }
        assert_eq!(sum, all, "rows + other = every contribution");
        assert_eq!(stored.totals, all);
        assert_eq!(
            stored.other.unwrap().sums.req_count,
            2 * (1..=40).sum::<u64>()
        );
    }

    #[test]
    fn few_rows_have_no_other_row() {
        let mut step = Step::default();
        step.add_row(key("/a"), &sums(1, 5), &hist(&[5_000]));
        let stored = step.finish(100);
        assert_eq!(stored.rows.len(), 1);
        assert_eq!(stored.other, None);
    }

    /// A step written again (a partial step at shutdown, the rest after a restart) merges: the
    /// stored parts and the new ones add, and the top is chosen over the sum.
    #[test]
    fn rewritten_step_merges_and_keeps_the_top_of_the_sum() {
        let mut first = Step::default();
        first.add_row(key("/a"), &sums(1, 10), &hist(&[10_000]));
        first.add_row(key("/b"), &sums(1, 30), &hist(&[30_000]));
        first.add_row(key("/c"), &sums(1, 20), &hist(&[20_000]));
        first.add_totals(&sums(3, 60), &hist(&[10_000, 20_000, 30_000]));
        let stored = first.finish(2);
        assert_eq!(stored.other.as_ref().unwrap().sums.time_ns.get(), 10, "/a");

        let mut second = Step::default();
        second.add_row(key("/a"), &sums(5, 100), &hist(&[10_000; 5]));
        second.add_totals(&sums(5, 100), &hist(&[10_000; 5]));
        second.add_stored(stored);
        let merged = second.finish(2);
        let names: Vec<&str> = merged.rows.iter().map(|(k, _)| k[0].as_str()).collect();
        assert_eq!(names, ["/a", "/b"]);
        // What a step already put in the other row stays there; /c joins it now.
        assert_eq!(merged.rows[0].1.sums.req_count, 5);
        assert_eq!(merged.rows[0].1.hist.count(), 5);
        assert_eq!(
            merged.other.as_ref().unwrap().sums.time_ns.get(),
            10 + 20,
            "/a's first, /c"
        );
        assert_eq!(merged.totals.sums.req_count, 8);
        assert_eq!(merged.totals.hist.count(), 8);
    }

    /// Steps read back with counts at the store's bounds add up without wrapping: a bucket stops
    /// at `MAX_BUCKET_COUNT` (and still encodes and decodes), a count at `u64::MAX`; a time sum
    /// (96 bits) adds up whole.
    #[test]
    fn parts_at_the_bounds_add_saturating() {
        let mut h = Histogram::new();
        h.add(5_000_000, crate::histogram::MAX_BUCKET_COUNT);
        h.add(9_000, 1);
        let mut blob = Vec::new();
        encode_hist(&h, &mut blob);
        let stored = Part {
            sums: Sums {
                req_count: i64::MAX as u64,
                time_ns: (i64::MAX as u64).into(),
                ..Sums::default()
            },
            hist: decode_hist(&blob).unwrap(),
        };
        let mut sum = Part::default();
        for _ in 0..3 {
            sum.add_part(&stored);
        }
        assert_eq!(sum.sums.req_count, u64::MAX);
        assert_eq!(sum.sums.time_ns.get(), 3 * i64::MAX as u128);
        let buckets: Vec<(u16, u64)> = sum.hist.iter().collect();
        assert_eq!(
            buckets,
            [
                (crate::histogram::bucket_of(9_000), 3),
                (
                    crate::histogram::bucket_of(5_000_000),
                    crate::histogram::MAX_BUCKET_COUNT
                )
            ]
        );
        blob.clear();
        encode_hist(&sum.hist, &mut blob);
        assert_eq!(decode_hist(&blob).unwrap(), sum.hist);
    }

    #[test]
    fn blob_round_trips_and_rejects_damage() {
        for values in [
            vec![],
            vec![0],
            vec![500, 1_000, 1_001, 2_000_000, 999_999_999_999, u64::MAX],
            (1..5000u64).map(|i| i * 7919).collect(),
        ] {
            let mut h = hist(&values);
            h.add(123_456, 1 << 40);
            let mut blob = Vec::new();
            encode_hist(&h, &mut blob);
            assert_eq!(decode_hist(&blob).unwrap(), h);
            assert!(blob.len() <= 1 + 5 * h.buckets_used() + 8);
        }
        // A dense histogram: one run, a byte per small count.
        let dense = hist(
            &(0..1000u64)
                .map(|i| 1_000_000 + i * 8_000)
                .collect::<Vec<_>>(),
        );
        let mut blob = Vec::new();
        encode_hist(&dense, &mut blob);
        assert!(
            blob.len() < dense.buckets_used() + 16,
            "{} bytes",
            blob.len()
        );
        for (bad, why) in [
            (&[][..], "empty"),
            (&[9, 1, 1, 1], "unknown format"),
            (&[BLOB_FORMAT, 1, 2, 1], "truncated"),
            (&[BLOB_FORMAT, 1, 1, 0], "empty count"),
            (&[BLOB_FORMAT, 1, 0], "empty run"),
            (&[BLOB_FORMAT, 0xff, 0x7f, 1, 1], "bucket too high"),
            (&[BLOB_FORMAT, 1, 1, 1, 0, 1, 1], "runs not apart"),
            // A count of 2^52, one above what a bucket holds.
            (
                &[
                    BLOB_FORMAT,
                    1,
                    1,
                    0x80,
                    0x80,
                    0x80,
                    0x80,
                    0x80,
                    0x80,
                    0x80,
                    0x08,
                ],
                "count too large",
            ),
        ] {
            assert!(decode_hist(bad).is_err(), "{why}");
        }
    }

    proptest! {
        #[test]
        fn blob_round_trip_any(values in proptest::collection::vec((0u64..2_000_000_000_000, 1u64..1000), 0..300)) {
            let mut h = Histogram::new();
            for (v, n) in values {
                h.add(v, n);
            }
            let mut blob = Vec::new();
            encode_hist(&h, &mut blob);
            prop_assert_eq!(decode_hist(&blob).unwrap(), h);
        }
    }
}
