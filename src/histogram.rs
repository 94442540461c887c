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
//! Storage adapts to what a histogram holds, and counting up and down is exact in both forms:
//! - **sparse** (most rows: few distinct values): a sorted `Vec<u64>` of the non-empty buckets,
//!   each entry packing the bucket number (top 12 bits) and its count (low 52 bits), 8 bytes per
//!   distinct bucket; an emptied bucket is removed, so add-then-subtract leaves it empty;
//! - **paged** (more than [`SPARSE_MAX`] distinct buckets: totals and busy rows): one lazily
//!   allocated page of 128 `u32` counters per power of two, so an update is two array indexings
//!   instead of a binary search and a shifting insert into a long vector (which made busy
//!   histograms the dominant cost of the merge). Counts beyond `u32` spill into a small sparse
//!   side list, so nothing overflows. Emptied pages are freed, and a histogram falls back to the
//!   sparse form when it holds [`SPARSE_MIN`] distinct buckets or fewer.

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
/// Powers of two with buckets (pages of the paged form).
const PAGES: usize = (MAX_EXP - MIN_EXP + 1) as usize;
/// Bucket number of values below [`MIN_NS`].
pub const ZERO_BUCKET: u16 = 0;
/// Bucket number of values above [`MAX_NS`].
pub const OVERFLOW_BUCKET: u16 = (1 + PAGES as u32 * SUB_BUCKETS) as u16;
/// Number of distinct buckets.
pub const BUCKETS: usize = OVERFLOW_BUCKET as usize + 1;
/// A sparse histogram with more distinct buckets than this becomes paged.
pub const SPARSE_MAX: usize = 48;
/// A paged histogram with this many distinct buckets or fewer becomes sparse again.
pub const SPARSE_MIN: usize = 16;

const COUNT_BITS: u32 = 52;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
// Bucket numbers must fit the 12 bits above the count.
const _: () = assert!(BUCKETS <= 1 << (64 - COUNT_BITS));

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

/// A log-linear histogram, sparse or paged. See the module docs.
#[derive(Clone, Debug)]
pub struct Histogram {
    repr: Repr,
}

#[derive(Clone, Debug)]
enum Repr {
    /// The first few buckets, inside the histogram itself (see [`INLINE`]).
    Inline(Inline),
    Sparse(Sparse),
    Paged(Box<Paged>),
}

/// Buckets a histogram holds without a heap allocation. Most rows of a wide report see one or two
/// distinct values: keeping them in the row (the histogram is 32 bytes either way) saves an
/// allocation per new row and a cache miss per update.
const INLINE: usize = 3;

/// Up to [`INLINE`] sorted packed entries, like [`Sparse`], then zeros (a live entry has a count,
/// so it is never 0: no length field, which keeps the histogram at 32 bytes).
#[derive(Clone, Copy, Debug)]
struct Inline {
    entries: [u64; INLINE],
}

impl Inline {
    #[inline]
    fn len(&self) -> usize {
        self.entries.iter().take_while(|&&e| e != 0).count()
    }

    #[inline]
    fn as_slice(&self) -> &[u64] {
        &self.entries[..self.len()]
    }

    /// Adds, or returns false (changing nothing) when a new bucket does not fit.
    #[inline]
    fn add(&mut self, bucket: u16, n: u64) -> bool {
        let len = self.len();
        let b = bucket as u64;
        let mut i = 0;
        while i < len {
            let eb = self.entries[i] >> COUNT_BITS;
            if eb == b {
                debug_assert!(
                    (self.entries[i] & COUNT_MASK) + n <= COUNT_MASK,
                    "histogram count overflow"
                );
                self.entries[i] += n;
                return true;
            }
            if eb > b {
                break;
            }
            i += 1;
        }
        if len == INLINE {
            return false;
        }
        self.entries.copy_within(i..len, i + 1);
        self.entries[i] = pack(bucket, n);
        true
    }

    #[inline]
    fn subtract(&mut self, bucket: u16, n: u64) {
        let len = self.len();
        let b = bucket as u64;
        let Some(i) = self.entries[..len]
            .iter()
            .position(|e| e >> COUNT_BITS == b)
        else {
            debug_assert!(false, "histogram: subtracting from empty bucket {bucket}");
            return;
        };
        let have = self.entries[i] & COUNT_MASK;
        debug_assert!(
            have >= n,
            "histogram: subtracting {n} samples from bucket {bucket} holding {have}"
        );
        if have <= n {
            self.entries.copy_within(i + 1..len, i);
            self.entries[len - 1] = 0;
        } else {
            self.entries[i] -= n;
        }
    }
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram::new()
    }
}

/// Equal when they hold the same samples, whatever their form.
impl PartialEq for Histogram {
    fn eq(&self, other: &Histogram) -> bool {
        self.iter().eq(other.iter())
    }
}
impl Eq for Histogram {}

impl Histogram {
    pub const fn new() -> Histogram {
        Histogram {
            repr: Repr::Inline(Inline {
                entries: [0; INLINE],
            }),
        }
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
    #[inline]
    pub fn add_bucket(&mut self, bucket: u16, n: u64) {
        if let Repr::Paged(p) = &mut self.repr {
            if p.add_fast(bucket, n) {
                return;
            }
        }
        self.add_bucket_slow(bucket, n)
    }

    #[inline(never)]
    fn add_bucket_slow(&mut self, bucket: u16, n: u64) {
        if n == 0 {
            return;
        }
        match &mut self.repr {
            Repr::Paged(p) => p.add(bucket, n),
            Repr::Inline(i) => {
                if !i.add(bucket, n) {
                    let mut s = Sparse {
                        entries: Vec::with_capacity(2 * INLINE),
                    };
                    s.entries.extend_from_slice(i.as_slice());
                    s.add(bucket, n);
                    self.repr = Repr::Sparse(s);
                }
            }
            Repr::Sparse(s) => {
                if !s.add(bucket, n) {
                    let mut paged = Paged::from_sparse(s);
                    paged.add(bucket, n);
                    self.repr = Repr::Paged(paged);
                }
            }
        }
    }

    /// Removes `n` samples from `bucket` (which must hold them).
    #[inline]
    pub fn subtract_bucket(&mut self, bucket: u16, n: u64) {
        if let Repr::Paged(p) = &mut self.repr {
            if p.subtract_fast(bucket, n) {
                return;
            }
        }
        self.subtract_bucket_slow(bucket, n)
    }

    #[inline(never)]
    fn subtract_bucket_slow(&mut self, bucket: u16, n: u64) {
        if n == 0 {
            return;
        }
        match &mut self.repr {
            Repr::Inline(i) => i.subtract(bucket, n),
            Repr::Sparse(s) => s.subtract(bucket, n),
            Repr::Paged(p) => {
                p.subtract(bucket, n);
                if p.nonzero <= SPARSE_MIN {
                    self.repr = Repr::Sparse(p.to_sparse());
                }
            }
        }
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        match &self.repr {
            Repr::Inline(i) => i.as_slice().iter().map(|e| e & COUNT_MASK).sum(),
            Repr::Sparse(s) => s.entries.iter().map(|e| e & COUNT_MASK).sum(),
            Repr::Paged(p) => p.total,
        }
    }

    pub fn is_empty(&self) -> bool {
        match &self.repr {
            Repr::Inline(i) => i.entries[0] == 0,
            Repr::Sparse(s) => s.entries.is_empty(),
            Repr::Paged(_) => false,
        }
    }

    /// Number of non-empty buckets.
    pub fn buckets_used(&self) -> usize {
        match &self.repr {
            Repr::Inline(i) => i.len(),
            Repr::Sparse(s) => s.entries.len(),
            Repr::Paged(p) => p.nonzero,
        }
    }

    /// Whether the paged form is in use (tests and memory accounting).
    pub fn is_paged(&self) -> bool {
        matches!(self.repr, Repr::Paged(_))
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        match &self.repr {
            Repr::Inline(_) => 0,
            Repr::Sparse(s) => s.entries.capacity() * 8,
            Repr::Paged(p) => {
                std::mem::size_of::<Paged>()
                    + p.pages.iter().flatten().count() * std::mem::size_of::<Page>()
                    + p.excess.entries.capacity() * 8
            }
        }
    }

    /// Non-empty buckets and their counts, in bucket order.
    pub fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        let (sparse, paged) = match &self.repr {
            Repr::Inline(i) => (Some(iter_packed(i.as_slice())), None),
            Repr::Sparse(s) => (Some(iter_packed(&s.entries)), None),
            Repr::Paged(p) => (None, Some(p.iter())),
        };
        sparse
            .into_iter()
            .flatten()
            .chain(paged.into_iter().flatten())
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
        let (bucket, k, c) = match &self.repr {
            Repr::Inline(i) => find_rank(iter_packed(i.as_slice()), r)?,
            Repr::Sparse(s) => find_rank(s.iter(), r)?,
            Repr::Paged(pg) => pg.find_rank(r)?,
        };
        let (low, high) = bucket_bounds_ns(bucket);
        Some(low + (high - low) * (k as f64 - 0.5) / c as f64)
    }
}

/// The bucket holding rank `r` among `buckets` (in order), with the rank inside it and its count.
fn find_rank(buckets: impl Iterator<Item = (u16, u64)>, r: u64) -> Option<(u16, u64, u64)> {
    let mut below = 0u64;
    for (bucket, c) in buckets {
        if below + c >= r {
            return Some((bucket, r - below, c));
        }
        below += c;
    }
    None
}

/// Buckets and counts of packed entries.
fn iter_packed(entries: &[u64]) -> impl Iterator<Item = (u16, u64)> + '_ {
    entries
        .iter()
        .map(|&e| ((e >> COUNT_BITS) as u16, e & COUNT_MASK))
}

#[inline]
fn pack(bucket: u16, n: u64) -> u64 {
    debug_assert!(n <= COUNT_MASK);
    ((bucket as u64) << COUNT_BITS) | n
}

/// Sorted packed `bucket << 52 | count` entries of the non-empty buckets.
#[derive(Clone, Debug, Default)]
struct Sparse {
    entries: Vec<u64>,
}

impl Sparse {
    #[inline]
    fn find(&self, bucket: u16) -> Result<usize, usize> {
        let b = bucket as u64;
        self.entries.binary_search_by(|e| (e >> COUNT_BITS).cmp(&b))
    }

    /// Adds, or returns false when a new bucket would exceed [`SPARSE_MAX`].
    #[inline]
    fn add(&mut self, bucket: u16, n: u64) -> bool {
        match self.find(bucket) {
            Ok(i) => {
                debug_assert!(
                    (self.entries[i] & COUNT_MASK) + n <= COUNT_MASK,
                    "histogram count overflow"
                );
                self.entries[i] += n;
                true
            }
            Err(_) if self.entries.len() >= SPARSE_MAX => false,
            Err(i) => {
                self.entries.insert(i, pack(bucket, n));
                true
            }
        }
    }

    /// Subtracts up to `n`; returns how many were there to subtract.
    #[inline]
    fn take(&mut self, bucket: u16, n: u64) -> u64 {
        match self.find(bucket) {
            Ok(i) => {
                let have = self.entries[i] & COUNT_MASK;
                if have <= n {
                    self.entries.remove(i);
                    have
                } else {
                    self.entries[i] -= n;
                    n
                }
            }
            Err(_) => 0,
        }
    }

    #[inline]
    fn subtract(&mut self, bucket: u16, n: u64) {
        let _taken = self.take(bucket, n);
        debug_assert_eq!(
            _taken, n,
            "histogram: subtracting {n} samples from bucket {bucket} holding {_taken}"
        );
    }

    fn get(&self, bucket: u16) -> u64 {
        self.find(bucket)
            .map_or(0, |i| self.entries[i] & COUNT_MASK)
    }

    fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        self.entries
            .iter()
            .map(|&e| ((e >> COUNT_BITS) as u16, e & COUNT_MASK))
    }
}

/// 128 counters of one power of two.
#[derive(Clone, Debug)]
#[repr(C)]
struct Page {
    /// Buckets of this page with a non-zero count (including `excess`); first, so that it shares
    /// a cache line with the page's first counters and is only touched on transitions.
    nonzero: u32,
    counts: [u32; SUB_BUCKETS as usize],
}

/// The paged form: direct-indexed pages, allocated on first use and freed when emptied. The
/// fields an update touches (`total`, the page pointers) come first, in as few cache lines as
/// possible: an update of a busy histogram is bound by cache misses, not arithmetic.
#[derive(Clone, Debug)]
#[repr(C)]
struct Paged {
    total: u64,
    /// Distinct non-empty buckets.
    nonzero: usize,
    pages: [Option<Box<Page>>; PAGES],
    zero: u64,
    overflow: u64,
    /// What would overflow a page's `u32` counter: rare (needs > 4 billion samples in one bucket).
    excess: Sparse,
}

impl Paged {
    fn from_sparse(s: &Sparse) -> Box<Paged> {
        let mut p = Box::new(Paged {
            total: 0,
            nonzero: 0,
            zero: 0,
            overflow: 0,
            pages: Default::default(),
            excess: Sparse::default(),
        });
        for (bucket, c) in s.iter() {
            p.add(bucket, c);
        }
        p
    }

    fn to_sparse(&self) -> Sparse {
        Sparse {
            entries: self.iter().map(|(b, c)| pack(b, c)).collect(),
        }
    }

    /// The common case of an update of a busy histogram, in a few instructions: `bucket` is in a
    /// page and already counted, and stays so without reaching the `u32` limit (no change to
    /// `nonzero`, pages or `excess`). Returns false, having changed nothing, otherwise.
    #[inline]
    fn add_fast(&mut self, bucket: u16, n: u64) -> bool {
        let b = (bucket as usize).wrapping_sub(1);
        let Some(Some(page)) = self.pages.get_mut(b / SUB_BUCKETS as usize) else {
            return false;
        };
        let slot = &mut page.counts[b % SUB_BUCKETS as usize];
        let sum = *slot as u64 + n;
        if *slot == 0 || sum > u32::MAX as u64 {
            return false;
        }
        *slot = sum as u32;
        self.total += n;
        true
    }

    /// Like [`Paged::add_fast`]: the bucket keeps a non-zero count and nothing is in `excess`.
    #[inline]
    fn subtract_fast(&mut self, bucket: u16, n: u64) -> bool {
        let b = (bucket as usize).wrapping_sub(1);
        let Some(Some(page)) = self.pages.get_mut(b / SUB_BUCKETS as usize) else {
            return false;
        };
        let slot = &mut page.counts[b % SUB_BUCKETS as usize];
        if *slot as u64 <= n || !self.excess.entries.is_empty() {
            return false;
        }
        *slot -= n as u32;
        self.total -= n;
        true
    }

    #[inline]
    fn add(&mut self, bucket: u16, n: u64) {
        self.total += n;
        if bucket == ZERO_BUCKET || bucket >= OVERFLOW_BUCKET {
            let slot = if bucket == ZERO_BUCKET {
                &mut self.zero
            } else {
                &mut self.overflow
            };
            self.nonzero += (*slot == 0) as usize;
            *slot += n;
            return;
        }
        let (page_no, sub) = page_of(bucket);
        let page = self.pages[page_no].get_or_insert_with(|| {
            Box::new(Page {
                nonzero: 0,
                counts: [0; SUB_BUCKETS as usize],
            })
        });
        let slot = &mut page.counts[sub];
        let was_empty =
            *slot == 0 && (self.excess.entries.is_empty() || self.excess.get(bucket) == 0);
        match u32::try_from(*slot as u64 + n) {
            Ok(v) => *slot = v,
            Err(_) => match self.excess.find(bucket) {
                Ok(i) => self.excess.entries[i] += n,
                Err(i) => self.excess.entries.insert(i, pack(bucket, n)),
            },
        }
        if was_empty {
            page.nonzero += 1;
            self.nonzero += 1;
        }
    }

    #[inline]
    fn subtract(&mut self, bucket: u16, n: u64) {
        debug_assert!(self.total >= n);
        self.total -= n;
        if bucket == ZERO_BUCKET || bucket >= OVERFLOW_BUCKET {
            let slot = if bucket == ZERO_BUCKET {
                &mut self.zero
            } else {
                &mut self.overflow
            };
            debug_assert!(
                *slot >= n,
                "histogram: subtracting {n} samples from bucket {bucket} holding {}",
                *slot
            );
            *slot -= n;
            self.nonzero -= (*slot == 0) as usize;
            return;
        }
        let (page_no, sub) = page_of(bucket);
        let Some(page) = self.pages[page_no].as_mut() else {
            debug_assert!(false, "histogram: subtracting from empty bucket {bucket}");
            return;
        };
        let mut left = n;
        if !self.excess.entries.is_empty() {
            left -= self.excess.take(bucket, n);
        }
        let slot = &mut page.counts[sub];
        debug_assert!(
            *slot as u64 >= left,
            "histogram: subtracting {n} samples from bucket {bucket} holding {}",
            *slot
        );
        *slot -= left as u32;
        if *slot == 0 && (self.excess.entries.is_empty() || self.excess.get(bucket) == 0) {
            page.nonzero -= 1;
            self.nonzero -= 1;
            if page.nonzero == 0 {
                self.pages[page_no] = None;
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        let zero = (self.zero > 0).then_some((ZERO_BUCKET, self.zero));
        let overflow = (self.overflow > 0).then_some((OVERFLOW_BUCKET, self.overflow));
        let pages = self
            .pages
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.as_ref().map(|p| (i, p)))
            .flat_map(move |(i, page)| {
                page.counts.iter().enumerate().filter_map(move |(sub, &c)| {
                    let bucket = bucket_at(i, sub);
                    let c = c as u64
                        + if self.excess.entries.is_empty() {
                            0
                        } else {
                            self.excess.get(bucket)
                        };
                    (c > 0).then_some((bucket, c))
                })
            });
        zero.into_iter().chain(pages).chain(overflow)
    }

    /// Like [`find_rank`], summing a page (one pass over 128 counters) before looking inside.
    fn find_rank(&self, r: u64) -> Option<(u16, u64, u64)> {
        if self.zero >= r {
            return Some((ZERO_BUCKET, r, self.zero));
        }
        let mut below = self.zero;
        let excess = |bucket: u16| {
            if self.excess.entries.is_empty() {
                0
            } else {
                self.excess.get(bucket)
            }
        };
        for (i, page) in self.pages.iter().enumerate() {
            let Some(page) = page else { continue };
            let mut t: u64 = page.counts.iter().map(|&c| c as u64).sum();
            if !self.excess.entries.is_empty() {
                t += (0..SUB_BUCKETS as usize)
                    .map(|sub| excess(bucket_at(i, sub)))
                    .sum::<u64>();
            }
            if below + t < r {
                below += t;
                continue;
            }
            for (sub, &c) in page.counts.iter().enumerate() {
                let bucket = bucket_at(i, sub);
                let c = c as u64 + excess(bucket);
                if c > 0 && below + c >= r {
                    return Some((bucket, r - below, c));
                }
                below += c;
            }
            return None;
        }
        (self.overflow > 0).then_some((OVERFLOW_BUCKET, r - below, self.overflow))
    }
}

#[inline]
fn page_of(bucket: u16) -> (usize, usize) {
    let b = bucket as usize - 1;
    (b / SUB_BUCKETS as usize, b % SUB_BUCKETS as usize)
}

#[inline]
fn bucket_at(page: usize, sub: usize) -> u16 {
    (1 + page * SUB_BUCKETS as usize + sub) as u16
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
            prop_assert!(
                (got - want).abs() <= want * 0.01,
                "p{} = {} but exact is {}",
                p,
                got,
                want
            );
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

        /// Whatever the interleaving of adds and subtracts (crossing the sparse/paged thresholds
        /// both ways, with counts past `u32`), the histogram holds exactly what a plain map of
        /// counts holds, and ends empty.
        #[test]
        fn paged_and_sparse_agree_with_a_plain_count(
            ops in proptest::collection::vec((0u16..BUCKETS as u16, prop_oneof![9 => 1u64..4, 1 => (u32::MAX as u64 - 2)..(u32::MAX as u64 + 3)]), 1..400),
            spread in 1u16..200,
        ) {
            use std::collections::BTreeMap;
            let mut h = Histogram::new();
            let mut want: BTreeMap<u16, u64> = BTreeMap::new();
            let mut added = Vec::new();
            for (i, &(b, n)) in ops.iter().enumerate() {
                let b = b % spread * (BUCKETS as u16 / spread);
                h.add_bucket(b, n);
                *want.entry(b).or_default() += n;
                added.push((b, n));
                if i % 3 == 2 {
                    // Take back an earlier addition.
                    let (b, n) = added.swap_remove(i % added.len());
                    h.subtract_bucket(b, n);
                    let e = want.get_mut(&b).unwrap();
                    *e -= n;
                    if *e == 0 {
                        want.remove(&b);
                    }
                }
                prop_assert_eq!(h.count(), want.values().sum::<u64>());
                if i % 8 == 0 || i + 1 == ops.len() {
                    prop_assert_eq!(h.iter().collect::<Vec<_>>(), want.iter().map(|(&b, &c)| (b, c)).collect::<Vec<_>>());
                }
                prop_assert_eq!(h.buckets_used(), want.len());
                if want.len() > SPARSE_MAX {
                    prop_assert!(h.is_paged());
                }
                if want.len() <= SPARSE_MIN {
                    prop_assert!(!h.is_paged());
                }
            }
            // Percentiles agree with a scan of the plain counts.
            let total: u64 = want.values().sum();
            for p in PERCENTILES {
                if total == 0 {
                    break;
                }
                let sparse_like = find_rank(want.iter().map(|(&b, &c)| (b, c)), rank(p, total));
                let (b, k, c) = sparse_like.unwrap();
                let (low, high) = bucket_bounds_ns(b);
                prop_assert_eq!(h.percentile_ns(p), Some(low + (high - low) * (k as f64 - 0.5) / c as f64));
            }
            for (b, n) in added {
                h.subtract_bucket(b, n);
            }
            prop_assert!(h.is_empty());
            prop_assert!(!h.is_paged());
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
        assert!(!h.is_paged());
        assert!(std::mem::size_of::<Histogram>() <= 32);
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
