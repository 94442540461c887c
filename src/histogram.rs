//! Sparse log-linear histograms of durations, for report percentiles.
//!
//! In: durations in nanoseconds (request times, per-hit timer values) added and subtracted by the
//! report engine as requests enter and leave the pool. Out: percentile estimates for queries.
//! Pure: no I/O, no clock, no locks; each histogram belongs to one report row (or totals) and is
//! guarded by that report's lock.
//!
//! Buckets are log-linear, as in HdrHistogram or DDSketch: every power of two between 2^9 ns and
//! 2^40 ns is cut into [`SUB_BUCKETS`] (128) equal sub-buckets, so a bucket is never wider than
//! 1/128 (0.78 %) of its lower bound. Any percentile of values between [`MIN_NS`] (1 µs) and
//! [`MAX_NS`] (1000 s), interpolated inside the right bucket, is therefore within 1 % of the
//! exact value. Values below 1 µs go to the zero bucket (reported as 0), values above 1000 s to the
//! overflow bucket (reported as 1000 s).
//!
//! Storage is sparse: a sorted `Vec<u64>` of only the non-empty buckets, each entry packing the
//! bucket number (top 12 bits) and its count (low 52 bits), 8 bytes per distinct bucket. Most rows
//! see few distinct values, so most histograms hold a handful of entries. Counting up and down is
//! exact; a bucket whose count returns to 0 is removed, so add-then-subtract leaves it empty.

/// Values below this (1 µs) land in the zero bucket and are reported as 0.
pub const MIN_NS: u64 = 1_000;
/// Values above this (1000 s) land in the overflow bucket and are reported as this.
pub const MAX_NS: u64 = 1_000_000_000_000;
/// Sub-buckets per power of two: relative bucket width ≤ 1/128 < 1 %.
pub const SUB_BUCKETS: u32 = 1 << SUB_BITS;
const SUB_BITS: u32 = 7;
/// The lowest power of two with buckets: 2^9 = 512 ≤ [`MIN_NS`] < 2^10.
const MIN_EXP: u32 = 9;
/// The highest power of two with buckets: 2^39 ≤ [`MAX_NS`] < 2^40.
const MAX_EXP: u32 = 39;
/// Bucket number of values below [`MIN_NS`].
pub const ZERO_BUCKET: u16 = 0;
/// Bucket number of values above [`MAX_NS`].
pub const OVERFLOW_BUCKET: u16 = (1 + (MAX_EXP - MIN_EXP + 1) * SUB_BUCKETS) as u16;
/// Number of distinct buckets.
pub const BUCKETS: usize = OVERFLOW_BUCKET as usize + 1;

const COUNT_BITS: u32 = 52;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

/// The bucket a value in nanoseconds falls into.
#[inline]
pub fn bucket_of(ns: u64) -> u16 {
    if ns < MIN_NS {
        ZERO_BUCKET
    } else if ns > MAX_NS {
        OVERFLOW_BUCKET
    } else {
        let exp = 63 - ns.leading_zeros(); // MIN_EXP..=MAX_EXP
        let sub = (ns >> (exp - SUB_BITS)) as u32 & (SUB_BUCKETS - 1);
        (1 + (exp - MIN_EXP) * SUB_BUCKETS + sub) as u16
    }
}

/// The value range `[low, high]` (ns) a bucket stands for, clamped to `[MIN_NS, MAX_NS]`.
/// The zero bucket is `[0, 0]`, the overflow bucket `[MAX_NS, MAX_NS]`.
pub fn bucket_bounds_ns(bucket: u16) -> (f64, f64) {
    if bucket == ZERO_BUCKET {
        return (0.0, 0.0);
    }
    if bucket >= OVERFLOW_BUCKET {
        return (MAX_NS as f64, MAX_NS as f64);
    }
    let b = bucket as u32 - 1;
    let exp = MIN_EXP + b / SUB_BUCKETS;
    let sub = (b % SUB_BUCKETS) as u64;
    let step = 1u64 << (exp - SUB_BITS);
    let low = (1u64 << exp) + sub * step;
    let high = low + step;
    (low.max(MIN_NS) as f64, high.min(MAX_NS) as f64)
}

/// The 1-based rank of the `p`-th percentile among `count` samples: `ceil(p/100 × count)`
/// clamped to `[1, count]` (nearest-rank). A tiny tolerance keeps `99.9 % of 1000` at 999 despite
/// floating-point noise.
pub fn rank(p: f64, count: u64) -> u64 {
    let x = p / 100.0 * count as f64;
    let tolerance = (x * 1e-12).max(1e-9);
    ((x - tolerance).ceil() as u64).clamp(1, count.max(1))
}

/// A sparse log-linear histogram. See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    /// Non-empty buckets, sorted: `bucket << 52 | count`.
    entries: Vec<u64>,
}

impl Histogram {
    pub const fn new() -> Histogram {
        Histogram { entries: Vec::new() }
    }

    /// Adds `n` samples of `ns` nanoseconds.
    #[inline]
    pub fn add(&mut self, ns: u64, n: u64) {
        self.add_bucket(bucket_of(ns), n)
    }

    /// Removes `n` samples of `ns` nanoseconds previously added.
    #[inline]
    pub fn subtract(&mut self, ns: u64, n: u64) {
        self.subtract_bucket(bucket_of(ns), n)
    }

    /// Adds `n` samples to `bucket`.
    pub fn add_bucket(&mut self, bucket: u16, n: u64) {
        if n == 0 {
            return;
        }
        match self.find(bucket) {
            Ok(i) => {
                debug_assert!((self.entries[i] & COUNT_MASK) + n <= COUNT_MASK, "histogram count overflow");
                self.entries[i] += n;
            }
            Err(i) => self.entries.insert(i, pack(bucket, n)),
        }
    }

    /// Removes `n` samples from `bucket` (which must hold them); an emptied bucket is dropped.
    pub fn subtract_bucket(&mut self, bucket: u16, n: u64) {
        if n == 0 {
            return;
        }
        match self.find(bucket) {
            Ok(i) => {
                let have = self.entries[i] & COUNT_MASK;
                debug_assert!(have >= n, "histogram: subtracting {n} samples from a bucket holding {have}");
                if have <= n {
                    self.entries.remove(i);
                } else {
                    self.entries[i] -= n;
                }
            }
            Err(_) => debug_assert!(false, "histogram: subtracting from empty bucket {bucket}"),
        }
    }

    fn find(&self, bucket: u16) -> Result<usize, usize> {
        let b = bucket as u64;
        self.entries.binary_search_by(|e| (e >> COUNT_BITS).cmp(&b))
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.entries.iter().map(|e| e & COUNT_MASK).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of non-empty buckets (what the sparse storage holds).
    pub fn buckets_used(&self) -> usize {
        self.entries.len()
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<u64>()
    }

    /// Non-empty buckets and their counts, in bucket order.
    pub fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        self.entries.iter().map(|&e| ((e >> COUNT_BITS) as u16, e & COUNT_MASK))
    }

    /// The `p`-th percentile (0 ≤ p ≤ 100) in nanoseconds, `None` when empty: the bucket holding
    /// the sample of rank `ceil(p/100 × count)` is found, and the value is interpolated linearly
    /// inside it (the k-th of c samples in a bucket sits at `low + (k − ½)/c × width`).
    pub fn percentile_ns(&self, p: f64) -> Option<f64> {
        self.percentile_ns_of(p, self.count())
    }

    /// Several percentiles at once (one count pass): `out[i]` is `percentile_ns(ps[i])`.
    pub fn percentiles_ns(&self, ps: &[f64], out: &mut Vec<Option<f64>>) {
        out.clear();
        let count = self.count();
        out.extend(ps.iter().map(|&p| self.percentile_ns_of(p, count)));
    }

    fn percentile_ns_of(&self, p: f64, count: u64) -> Option<f64> {
        if count == 0 {
            return None;
        }
        let r = rank(p, count);
        let mut below = 0u64;
        for (bucket, c) in self.iter() {
            if below + c >= r {
                let (low, high) = bucket_bounds_ns(bucket);
                let k = (r - below) as f64;
                return Some(low + (high - low) * (k - 0.5) / c as f64);
            }
            below += c;
        }
        // Unreachable: rank ≤ count. Report the largest bucket rather than panic.
        self.iter().last().map(|(b, _)| bucket_bounds_ns(b).1)
    }
}

#[inline]
fn pack(bucket: u16, n: u64) -> u64 {
    debug_assert!(n <= COUNT_MASK);
    ((bucket as u64) << COUNT_BITS) | n
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PERCENTILES: [f64; 7] = [0.1, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0];

    fn exact(sorted: &[u64], p: f64) -> u64 {
        sorted[rank(p, sorted.len() as u64) as usize - 1]
    }

    fn check_within_1_percent(samples: &[u64]) -> Result<(), TestCaseError> {
        let mut h = Histogram::new();
        for &s in samples {
            h.add(s, 1);
        }
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        prop_assert_eq!(h.count(), samples.len() as u64);
        for p in PERCENTILES {
            let want = exact(&sorted, p) as f64;
            let got = h.percentile_ns(p).unwrap();
            prop_assert!((got - want).abs() <= want * 0.01, "p{} = {} but exact is {}", p, got, want);
        }
        Ok(())
    }

    fn log_uniform() -> impl Strategy<Value = u64> {
        (3.0f64..12.0).prop_map(|e| 10f64.powf(e).round() as u64)
    }

    proptest! {
        #[test]
        fn percentiles_within_1_percent_log_uniform(samples in proptest::collection::vec(log_uniform(), 1..600)) {
            check_within_1_percent(&samples)?;
        }

        /// Few clusters of close values (the usual shape of timings), with repeats.
        #[test]
        fn percentiles_within_1_percent_clustered(
            centres in proptest::collection::vec(log_uniform(), 1..4),
            picks in proptest::collection::vec((0usize..4, 0.99f64..1.01, 1usize..4), 1..400),
        ) {
            let mut samples = Vec::new();
            for (c, jitter, repeat) in picks {
                let v = ((centres[c % centres.len()] as f64 * jitter).round() as u64).clamp(MIN_NS, MAX_NS);
                samples.extend(std::iter::repeat_n(v, repeat));
            }
            check_within_1_percent(&samples)?;
        }

        #[test]
        fn add_then_subtract_is_empty(samples in proptest::collection::vec((0u64..2_000_000_000_000, 1u64..5), 0..200), order in any::<u64>()) {
            let mut h = Histogram::new();
            for &(s, n) in &samples {
                h.add(s, n);
            }
            // Subtract in a shuffled order: counting is order-independent.
            let mut rest = samples.clone();
            let len = rest.len().max(1);
            rest.rotate_left((order as usize) % len);
            for &(s, n) in &rest {
                h.subtract(s, n);
            }
            prop_assert!(h.is_empty());
            prop_assert_eq!(h.count(), 0);
        }

        /// Every value in range falls in a bucket whose bounds contain it and are < 1 % apart.
        #[test]
        fn bucket_bounds_contain_value(ns in MIN_NS..=MAX_NS) {
            let (low, high) = bucket_bounds_ns(bucket_of(ns));
            prop_assert!(low <= ns as f64 && ns as f64 <= high, "{} not in [{}, {}]", ns, low, high);
            prop_assert!((high - low) / low < 0.01);
        }
    }

    #[test]
    fn sparse_size_small_for_few_distinct_values() {
        let mut h = Histogram::new();
        for _ in 0..1000 {
            h.add(5_000_000, 1);
            h.add(12_000_000, 3);
        }
        assert_eq!(h.buckets_used(), 2);
        assert_eq!(h.count(), 4000);
        assert!(h.heap_bytes() <= 64, "{} B", h.heap_bytes());
        assert_eq!(std::mem::size_of::<Histogram>(), 24);
    }

    #[test]
    fn zero_and_overflow_buckets() {
        let mut h = Histogram::new();
        h.add(0, 1);
        h.add(999, 1);
        h.add(MAX_NS + 1, 1);
        h.add(u64::MAX, 1);
        assert_eq!(h.percentile_ns(50.0), Some(0.0));
        assert_eq!(h.percentile_ns(100.0), Some(MAX_NS as f64));
        assert_eq!(h.percentile_ns(75.0), Some(MAX_NS as f64));
        assert_eq!(Histogram::new().percentile_ns(50.0), None);
        assert_eq!(bucket_of(MIN_NS), bucket_of(1_003));
        assert!(BUCKETS < 4096, "bucket numbers fit the 12-bit field");
    }

    #[test]
    fn rank_is_nearest_rank() {
        assert_eq!(rank(99.9, 1000), 999);
        assert_eq!(rank(0.1, 1000), 1);
        assert_eq!(rank(0.0, 10), 1);
        assert_eq!(rank(100.0, 10), 10);
        assert_eq!(rank(50.0, 3), 2);
        assert_eq!(rank(50.0, 4), 2);
        assert_eq!(rank(99.0, 1), 1);
    }

    #[test]
    fn interpolates_inside_the_bucket() {
        let mut h = Histogram::new();
        h.add(10_000_000, 4);
        let (low, high) = bucket_bounds_ns(bucket_of(10_000_000));
        let p25 = h.percentile_ns(25.0).unwrap();
        let p100 = h.percentile_ns(100.0).unwrap();
        assert!((p25 - (low + (high - low) * 0.125)).abs() < 1e-6);
        assert!((p100 - (low + (high - low) * 0.875)).abs() < 1e-6);
        let mut several = Vec::new();
        h.percentiles_ns(&[25.0, 100.0], &mut several);
        assert_eq!(several, vec![Some(p25), Some(p100)]);
    }
}
