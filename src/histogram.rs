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
//! - **block** (more than [`SPARSE_MAX`] distinct buckets: totals and busy rows; `is_paged`): one
//!   contiguous array of `u32` counters covering the powers of two in use (128 counters each),
//!   grown at either end when a value falls outside it and trimmed when its end pages empty, so an
//!   update is one array indexing and a single dependent memory access after the row (the old
//!   paged form, one allocation per power of two, took two) instead of a binary search and a
//!   shifting insert into a long vector. A block spans at most the 31 powers of two (15.5 KiB).
//!   Counts beyond `u32` make the block wide (a second array of high words), so nothing
//!   overflows. A histogram falls back to the sparse form when it holds [`SPARSE_MIN`] distinct
//!   buckets or fewer.

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
/// Powers of two with buckets (pages of the block form).
const PAGES: usize = (MAX_EXP - MIN_EXP + 1) as usize;
/// Bucket number of values below [`MIN_NS`].
pub const ZERO_BUCKET: u16 = 0;
/// Bucket number of values above [`MAX_NS`].
pub const OVERFLOW_BUCKET: u16 = (1 + PAGES as u32 * SUB_BUCKETS) as u16;
/// Number of distinct buckets.
pub const BUCKETS: usize = OVERFLOW_BUCKET as usize + 1;
/// A sparse histogram with more distinct buckets than this becomes a block.
pub const SPARSE_MAX: usize = 48;
/// A block histogram with this many distinct buckets or fewer becomes sparse again.
pub const SPARSE_MIN: usize = 16;

const COUNT_BITS: u32 = 52;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
/// Largest count one bucket holds in the sparse form: a count read from a file (snapshot,
/// history store) above it is refused as damaged.
pub const MAX_BUCKET_COUNT: u64 = COUNT_MASK;
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

/// A log-linear histogram, inline, sparse or block. See the module docs.
#[derive(Clone, Debug)]
pub struct Histogram {
    repr: Repr,
}

#[derive(Clone, Debug)]
enum Repr {
    /// The first few buckets, inside the histogram itself (see [`INLINE`]).
    Inline(Inline),
    Sparse(Sparse),
    Block(Block),
}

// The block form's small fields share the enum tag's word: a histogram stays 32 bytes.
const _: () = assert!(std::mem::size_of::<Histogram>() == 32);

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
        self.add_bucket(bucket_of(ns), n);
    }

    /// Removes `n` samples of `ns` nanoseconds previously added.
    #[inline]
    pub fn subtract(&mut self, ns: u64, n: u64) {
        self.subtract_bucket(bucket_of(ns), n)
    }

    /// Adds `n` samples to `bucket`. Returns how many bytes the histogram's heap grew by (0
    /// but when its storage grew, which only the slow path does): what lets a report count its
    /// open rows' histograms as they grow, at no cost per sample (see `Report::memory_estimate`).
    #[inline]
    pub fn add_bucket(&mut self, bucket: u16, n: u64) -> usize {
        if let Repr::Block(b) = &mut self.repr {
            if b.add_fast(bucket, n) {
                return 0;
            }
        }
        self.add_bucket_slow(bucket, n)
    }

    #[inline(never)]
    fn add_bucket_slow(&mut self, bucket: u16, n: u64) -> usize {
        if n == 0 {
            return 0;
        }
        let before = self.heap_bytes();
        match &mut self.repr {
            Repr::Block(b) => b.add(bucket, n),
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
                    let mut block = Block::from_sparse(s);
                    block.add(bucket, n);
                    self.repr = Repr::Block(block);
                }
            }
        }
        self.heap_bytes().saturating_sub(before)
    }

    /// Removes `n` samples from `bucket` (which must hold them).
    #[inline]
    pub fn subtract_bucket(&mut self, bucket: u16, n: u64) {
        if let Repr::Block(b) = &mut self.repr {
            if b.subtract_fast(bucket, n) {
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
            Repr::Block(b) => {
                b.subtract(bucket, n);
                if b.nonzero as usize <= SPARSE_MIN {
                    self.repr = Repr::Sparse(b.to_sparse());
                }
            }
        }
    }

    /// Empties the histogram, keeping a block's memory: a report's open tick reuses its rows
    /// from tick to tick instead of growing their histograms again.
    pub fn clear(&mut self) {
        match &mut self.repr {
            Repr::Inline(i) => i.entries = [0; INLINE],
            Repr::Sparse(s) => s.entries.clear(),
            Repr::Block(b) => {
                b.words.fill(0);
                b.nonzero = 0;
                b.total = 0;
            }
        }
    }

    /// A copy in the smallest form that holds these samples.
    pub fn compact_clone(&self) -> Histogram {
        Histogram::compact_of(self.buckets_used(), self.iter()).unwrap_or_else(|| self.clone())
    }

    /// The histogram of `n` sorted buckets in the smallest form that holds them, or `None` when
    /// that is the block form (the caller builds it).
    fn compact_of(n: usize, buckets: impl Iterator<Item = (u16, u64)>) -> Option<Histogram> {
        if n <= INLINE {
            let mut entries = [0; INLINE];
            for (slot, (b, c)) in entries.iter_mut().zip(buckets) {
                *slot = pack(b, c);
            }
            Some(Histogram {
                repr: Repr::Inline(Inline { entries }),
            })
        } else if n <= SPARSE_MAX {
            let mut entries = Vec::with_capacity(n);
            entries.extend(buckets.map(|(b, c)| pack(b, c)));
            Some(Histogram {
                repr: Repr::Sparse(Sparse { entries }),
            })
        } else {
            None
        }
    }

    /// Adds every sample of `other` (a report's window folding a tick in, a drain adding a
    /// stage's row to a member's). An inline or sparse histogram takes an inline, sparse or
    /// packed `other` of two buckets or more in one merge of the two sorted lists
    /// ([`Histogram::add_merged`]), not a search and a shift per bucket; a block, or a sum that
    /// would not stay sparse, bucket by bucket.
    pub fn add_hist<'h>(&mut self, other: impl Into<HistView<'h>>) {
        let other = other.into();
        // One bucket: its add is the merge (and cheaper than setting one up).
        if !matches!(self.repr, Repr::Block(_))
            && other.buckets_used() > 1
            && self.add_merged(other)
        {
            return;
        }
        other.each_bucket(|bucket, n| {
            self.add_bucket(bucket, n);
        });
    }

    /// [`Histogram::add_hist`] for an inline or sparse histogram and an `other` that is not a
    /// block: the two sorted bucket lists merged into one on the stack, then kept; returns false,
    /// changing nothing, when the sum would take more than [`SPARSE_MAX`] buckets (the caller adds
    /// bucket by bucket, which makes a block) or `other` is a block.
    fn add_merged(&mut self, other: HistView<'_>) -> bool {
        let mine: &[u64] = match &self.repr {
            Repr::Inline(i) => i.as_slice(),
            Repr::Sparse(s) => &s.entries,
            Repr::Block(_) => return false,
        };
        let theirs: &[u64];
        let unpacked;
        match other {
            HistView::Whole(h) => match &h.repr {
                Repr::Inline(i) => theirs = i.as_slice(),
                Repr::Sparse(s) => theirs = &s.entries,
                Repr::Block(_) => return false,
            },
            HistView::Packed(p) => {
                if p.len() > SPARSE_MAX {
                    return false;
                }
                // Its empty buckets left out, as `add_bucket` skips them.
                let mut buf = [0u64; SPARSE_MAX];
                let mut n = 0;
                for &e in p {
                    let (bucket, count) = HistView::unpack(e);
                    if count > 0 {
                        buf[n] = pack(bucket, count);
                        n += 1;
                    }
                }
                unpacked = (buf, n);
                theirs = &unpacked.0[..unpacked.1];
            }
        }
        if mine.len() + theirs.len() <= 2 * INLINE {
            let mut out = [0u64; 2 * INLINE];
            let n = merge_packed(mine, theirs, &mut out).expect("room for both lists");
            self.keep_merged(&out[..n]);
            return true;
        }
        let mut out = [0u64; SPARSE_MAX];
        let Some(n) = merge_packed(mine, theirs, &mut out) else {
            return false;
        };
        self.keep_merged(&out[..n]);
        true
    }

    /// Replaces an inline or sparse histogram's entries with `merged` (sorted, at most
    /// [`SPARSE_MAX`]): inline while they fit and it was inline, sparse otherwise.
    fn keep_merged(&mut self, merged: &[u64]) {
        match &mut self.repr {
            Repr::Inline(i) if merged.len() <= INLINE => {
                i.entries = [0; INLINE];
                i.entries[..merged.len()].copy_from_slice(merged);
            }
            Repr::Sparse(s) => {
                s.entries.clear();
                s.entries.extend_from_slice(merged);
            }
            _ => {
                let mut entries = Vec::with_capacity(merged.len().max(2 * INLINE));
                entries.extend_from_slice(merged);
                self.repr = Repr::Sparse(Sparse { entries });
            }
        }
    }

    /// Adds every sample of `other`, a bucket's count stopping at [`MAX_BUCKET_COUNT`]: what
    /// history adds together, steps read back from the store whose counts may each be up to that
    /// bound (past it a packed count would carry into its bucket number). When the two counts
    /// together are within the bound, no bucket can pass it and this is [`Histogram::add_hist`];
    /// only a histogram near the bound takes the bucket-by-bucket clamp. The reports' own paths
    /// (a request, a tick folded into a window) count real samples and keep the unchecked adds.
    pub fn add_hist_saturating<'h>(&mut self, other: impl Into<HistView<'h>>) {
        let other = other.into();
        if self.count().saturating_add(other.count()) <= MAX_BUCKET_COUNT {
            return self.add_hist(other);
        }
        let room: Vec<(u16, u64)> = {
            let mut mine = self.iter().peekable();
            other
                .iter()
                .map(|(bucket, n)| {
                    while mine.next_if(|&(b, _)| b < bucket).is_some() {}
                    let have = mine.next_if(|&(b, _)| b == bucket).map_or(0, |(_, c)| c);
                    (bucket, n.min(MAX_BUCKET_COUNT.saturating_sub(have)))
                })
                .filter(|&(_, n)| n > 0)
                .collect()
        };
        for (bucket, n) in room {
            self.add_bucket(bucket, n);
        }
    }

    /// Whether every bucket of `other` holds at most this one's count of it: whether
    /// [`Histogram::subtract_hist`] of `other` is exact (what a restore checks before taking a
    /// tick out of a saved window).
    pub fn covers<'h>(&self, other: impl Into<HistView<'h>>) -> bool {
        let other = other.into();
        let mut mine = self.iter().peekable();
        other.iter().all(|(bucket, n)| {
            while mine.next_if(|&(b, _)| b < bucket).is_some() {}
            mine.next_if(|&(b, _)| b == bucket)
                .is_some_and(|(_, m)| m >= n)
        })
    }

    /// Removes every sample of `other`, which this histogram must hold (a tick leaving a window).
    pub fn subtract_hist<'h>(&mut self, other: impl Into<HistView<'h>>) {
        other
            .into()
            .each_bucket(|bucket, n| self.subtract_bucket(bucket, n));
    }

    /// Appends this histogram's buckets to `out` in the packed 32-bit form of [`HistView`]
    /// (what a closed tick keeps), or returns false, `out` as it was, when a bucket counts too
    /// many samples for it.
    pub fn pack32_into(&self, out: &mut Vec<u32>) -> bool {
        let start = out.len();
        let mut fits = true;
        self.each_bucket(|bucket, n| {
            if n <= PACKED32_MAX_COUNT {
                out.push((bucket as u32) << PACKED32_COUNT_BITS | n as u32);
            } else {
                fits = false;
            }
        });
        if !fits {
            out.truncate(start);
        }
        fits
    }

    /// `f(bucket, count)` for every non-empty bucket, in order: [`Histogram::iter`] without the
    /// chained iterators (a tick's fold calls this once per row).
    #[inline]
    fn each_bucket(&self, mut f: impl FnMut(u16, u64)) {
        let packed = match &self.repr {
            Repr::Inline(i) => i.as_slice(),
            Repr::Sparse(s) => &s.entries[..],
            Repr::Block(b) => {
                for (bucket, n) in b.iter() {
                    f(bucket, n);
                }
                return;
            }
        };
        for &e in packed {
            f((e >> COUNT_BITS) as u16, e & COUNT_MASK);
        }
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        match &self.repr {
            Repr::Inline(i) => i.as_slice().iter().map(|e| e & COUNT_MASK).sum(),
            Repr::Sparse(s) => s.entries.iter().map(|e| e & COUNT_MASK).sum(),
            Repr::Block(b) => b.total,
        }
    }

    pub fn is_empty(&self) -> bool {
        match &self.repr {
            Repr::Inline(i) => i.entries[0] == 0,
            Repr::Sparse(s) => s.entries.is_empty(),
            Repr::Block(b) => b.nonzero == 0,
        }
    }

    /// Number of non-empty buckets.
    pub fn buckets_used(&self) -> usize {
        match &self.repr {
            Repr::Inline(i) => i.len(),
            Repr::Sparse(s) => s.entries.len(),
            Repr::Block(b) => b.nonzero as usize,
        }
    }

    /// Whether the block form (formerly paged) is in use (tests and memory accounting).
    pub fn is_paged(&self) -> bool {
        matches!(self.repr, Repr::Block(_))
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        match &self.repr {
            Repr::Inline(_) => 0,
            Repr::Sparse(s) => s.entries.capacity() * 8,
            Repr::Block(b) => b.words.len() * 4,
        }
    }

    /// Non-empty buckets and their counts, in bucket order.
    pub fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        match &self.repr {
            Repr::Inline(i) => Either::Left(iter_packed(i.as_slice())),
            Repr::Sparse(s) => Either::Left(iter_packed(&s.entries)),
            Repr::Block(b) => Either::Right(b.iter()),
        }
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
            Repr::Block(b) => b.find_rank(r)?,
        };
        Some(interpolate(bucket, k, c))
    }
}

/// The `p`-th percentile of the samples of `a` and `b` together, as
/// [`Histogram::percentile_ns`] of their sum would give it, without building the sum (a report
/// row's closed window and open tick, at query time).
pub fn percentile_ns_of_sum(a: &Histogram, b: &Histogram, p: f64) -> Option<f64> {
    let count = a.count() + b.count();
    if count == 0 {
        return None;
    }
    if let Some(v) = percentile_ns_by_pages(&[a, b], count, p) {
        return v;
    }
    let (bucket, k, c) = find_rank(merge_buckets(a.iter(), b.iter()), rank(p, count))?;
    Some(interpolate(bucket, k, c))
}

/// One percentile of `count` samples of `hists` together walked page by page (see
/// [`percentiles_ns_of_sum`]) when one of them is a block, with nothing allocated (a query sorted
/// by a percentile reads one for every row); `None` when none is (merging their few buckets is
/// cheaper).
fn percentile_ns_by_pages(hists: &[&Histogram], count: u64, p: f64) -> Option<Option<f64>> {
    if !any_paged(hists) {
        return None;
    }
    let mut out = [None];
    walk_sum(hists, &[(rank(p, count), 0)], &mut out, true);
    Some(out[0])
}

/// Several percentiles of the samples of `hists` (one to four) together, in one walk over their
/// merged buckets: `out[i]` is what `percentile_ns_of_sum` gives for `ps[i]` (`ps` in any order).
/// A query's percentile columns of a row cost one walk instead of one each.
///
/// When a part is a block (a busy row: up to 31 × 128 counters), the walk goes page by page
/// (`walk_by_pages`): a page's total over all parts is one vectorised sum per block, and only
/// the pages holding a wanted rank are looked into. Merging the parts' buckets one by one
/// (`walk_by_merge`) cost a query's top 100 busy rows ~0.7 ms under load; it stays the walk of
/// sparse parts (a few buckets each).
pub fn percentiles_ns_of_sum(hists: &[&Histogram], ps: &[f64], out: &mut Vec<Option<f64>>) {
    percentiles_ns_of_sum_with(hists, ps, out, any_paged(hists))
}

/// Whether one of `hists` is a block: their sum is then walked page by page.
fn any_paged(hists: &[&Histogram]) -> bool {
    hists.iter().any(|h| h.is_paged())
}

fn percentiles_ns_of_sum_with(
    hists: &[&Histogram],
    ps: &[f64],
    out: &mut Vec<Option<f64>>,
    by_pages: bool,
) {
    out.clear();
    out.resize(ps.len(), None);
    let count: u64 = hists.iter().map(|h| h.count()).sum();
    if count == 0 || ps.is_empty() {
        return;
    }
    // Wanted ranks in ascending order, with the output slot of each.
    let mut wanted: Vec<(u64, usize)> = ps
        .iter()
        .enumerate()
        .map(|(i, &p)| (rank(p, count), i))
        .collect();
    wanted.sort_unstable();
    walk_sum(hists, &wanted, out, by_pages);
}

/// Fills `out[i]` for each wanted `(rank, i)` (ranks ascending) with one walk over the sum of
/// `hists`: page by page, or bucket by bucket.
fn walk_sum(
    hists: &[&Histogram],
    wanted: &[(u64, usize)],
    out: &mut [Option<f64>],
    by_pages: bool,
) {
    let mut walk = RankWalk {
        wanted,
        next: 0,
        below: 0,
        out,
    };
    if by_pages {
        walk_by_pages(hists, &mut walk);
    } else {
        walk_by_merge(hists, &mut walk);
    }
}

/// The state of a walk over a sum's buckets in order, filling the percentiles whose ranks it
/// passes.
struct RankWalk<'w> {
    /// Ranks wanted (ascending) and the output slot of each.
    wanted: &'w [(u64, usize)],
    next: usize,
    /// Samples in the buckets walked so far.
    below: u64,
    out: &'w mut [Option<f64>],
}

impl RankWalk<'_> {
    /// Walks over `c` samples in `bucket`; false once every wanted rank is found.
    #[inline]
    fn bucket(&mut self, bucket: u16, c: u64) -> bool {
        while self.next < self.wanted.len() && self.below + c >= self.wanted[self.next].0 {
            let (r, i) = self.wanted[self.next];
            self.out[i] = Some(interpolate(bucket, r - self.below, c));
            self.next += 1;
        }
        self.below += c;
        self.next < self.wanted.len()
    }

    /// Whether the next wanted rank lies beyond `c` more samples (they can be skipped).
    #[inline]
    fn skips(&self, c: u64) -> bool {
        self.next < self.wanted.len() && self.below + c < self.wanted[self.next].0
    }
}

/// The parts' buckets merged one by one, in order.
fn walk_by_merge(hists: &[&Histogram], walk: &mut RankWalk<'_>) {
    let mut go = |it: &mut dyn Iterator<Item = (u16, u64)>| {
        for (b, c) in it {
            if !walk.bucket(b, c) {
                break;
            }
        }
    };
    match hists {
        [a] => go(&mut a.iter()),
        [a, b] => go(&mut merge_buckets(a.iter(), b.iter())),
        [a, b, c] => go(&mut merge_buckets(
            merge_buckets(a.iter(), b.iter()),
            c.iter(),
        )),
        [a, b, c, d] => go(&mut merge_buckets(
            merge_buckets(a.iter(), b.iter()),
            merge_buckets(c.iter(), d.iter()),
        )),
        _ => debug_assert!(false, "one to four histograms"),
    }
}

/// The parts summed page by page: a page whose total leaves the next wanted rank beyond it is
/// skipped whole; a page holding one is summed into 128 counters and walked.
fn walk_by_pages(hists: &[&Histogram], walk: &mut RankWalk<'_>) {
    let mut parts: [PageCursor<'_>; 4] =
        std::array::from_fn(|i| PageCursor::of(hists.get(i).copied().unwrap_or(&EMPTY)));
    let parts = &mut parts[..hists.len().min(4)];
    let zero: u64 = parts.iter().map(|p| p.edge(false)).sum();
    if zero > 0 && !walk.bucket(ZERO_BUCKET, zero) {
        return;
    }
    let mut dense = [0u64; PAGE];
    for page in 0..PAGES {
        let total: u64 = parts.iter_mut().map(|p| p.enter(page)).sum();
        if total == 0 {
            continue;
        }
        if walk.skips(total) {
            walk.below += total;
            continue;
        }
        dense.fill(0);
        for p in parts.iter() {
            p.add_page(page, &mut dense);
        }
        for (i, &c) in dense.iter().enumerate() {
            if c > 0 && !walk.bucket((1 + page * PAGE + i) as u16, c) {
                return;
            }
        }
    }
    let overflow: u64 = parts.iter().map(|p| p.edge(true)).sum();
    if overflow > 0 {
        walk.bucket(OVERFLOW_BUCKET, overflow);
    }
}

/// Stands in for the parts [`walk_by_pages`] does not have.
static EMPTY: Histogram = Histogram::new();

/// One histogram read page by page, pages in increasing order (see [`walk_by_pages`]).
enum PageCursor<'h> {
    /// Sorted packed entries (inline or sparse form): those of the current page, and the rest.
    Packed {
        page: &'h [u64],
        rest: &'h [u64],
    },
    Block(&'h Block),
}

impl<'h> PageCursor<'h> {
    fn of(h: &'h Histogram) -> PageCursor<'h> {
        let entries = match &h.repr {
            Repr::Block(b) => return PageCursor::Block(b),
            Repr::Inline(i) => i.as_slice(),
            Repr::Sparse(s) => &s.entries,
        };
        PageCursor::Packed {
            page: &[],
            rest: entries,
        }
    }

    /// Samples in the zero bucket (`last` false) or the overflow bucket (`last` true): the
    /// first and last buckets, in no page.
    fn edge(&self, last: bool) -> u64 {
        let (bucket, at) = if last {
            (OVERFLOW_BUCKET, OVERFLOW_AT)
        } else {
            (ZERO_BUCKET, ZERO_AT)
        };
        match self {
            PageCursor::Packed { rest, .. } => if last { rest.last() } else { rest.first() }
                .filter(|&&e| (e >> COUNT_BITS) as u16 == bucket)
                .map_or(0, |e| e & COUNT_MASK),
            PageCursor::Block(b) => b.get_u64(at),
        }
    }

    /// Moves to `page` (after the previous one) and returns its samples.
    fn enter(&mut self, page: usize) -> u64 {
        match self {
            PageCursor::Packed { page: cur, rest } => {
                let end = (1 + (page + 1) * PAGE) as u64;
                let n = rest.iter().take_while(|&&e| e >> COUNT_BITS < end).count();
                (*cur, *rest) = rest.split_at(n);
                // The zero bucket's entry (first, if any) belongs to no page.
                if page == 0 && cur.first().is_some_and(|&e| e >> COUNT_BITS == 0) {
                    *cur = &cur[1..];
                }
                cur.iter().map(|&e| e & COUNT_MASK).sum()
            }
            PageCursor::Block(b) => b.page_counters(page).map_or(0, |(low, high)| {
                let t: u64 = low.iter().map(|&c| c as u64).sum();
                t + (high.iter().map(|&c| c as u64).sum::<u64>() << 32)
            }),
        }
    }

    /// Adds the current page's counts (see [`PageCursor::enter`]) to `dense`.
    fn add_page(&self, page: usize, dense: &mut [u64; PAGE]) {
        match self {
            PageCursor::Packed { page: cur, .. } => {
                for &e in *cur {
                    dense[((e >> COUNT_BITS) as usize - 1) % PAGE] += e & COUNT_MASK;
                }
            }
            PageCursor::Block(b) => {
                if let Some((low, high)) = b.page_counters(page) {
                    for (d, &c) in dense.iter_mut().zip(low) {
                        *d += c as u64;
                    }
                    for (d, &c) in dense.iter_mut().zip(high) {
                        *d += (c as u64) << 32;
                    }
                }
            }
        }
    }
}

/// Bits of a bucket's count in the packed 32-bit form of [`HistView::Packed`] (the bucket number
/// takes the 12 above).
const PACKED32_COUNT_BITS: u32 = 20;
/// Largest count a bucket holds in the packed 32-bit form.
const PACKED32_MAX_COUNT: u64 = (1 << PACKED32_COUNT_BITS) - 1;
const _: () = assert!(BUCKETS <= 1 << (32 - PACKED32_COUNT_BITS));

/// A histogram to read: a whole [`Histogram`], or the sorted buckets of one packed 32 bits each
/// (bucket 12 bits, count 20), as a closed tick keeps its rows' histograms. A tick's rows are
/// never updated, and most of a report's memory: packed in one array per tick, a row's
/// histogram takes 4 bytes a bucket and no allocation of its own, where the sparse form took 8
/// and an allocation (and the row 32 bytes for the histogram itself).
#[derive(Clone, Copy, Debug)]
pub enum HistView<'h> {
    Whole(&'h Histogram),
    Packed(&'h [u32]),
}

impl<'h> From<&'h Histogram> for HistView<'h> {
    fn from(h: &'h Histogram) -> HistView<'h> {
        HistView::Whole(h)
    }
}

impl<'h> HistView<'h> {
    #[inline]
    fn unpack(e: u32) -> (u16, u64) {
        (
            (e >> PACKED32_COUNT_BITS) as u16,
            (e as u64) & PACKED32_MAX_COUNT,
        )
    }

    /// `f(bucket, count)` for every non-empty bucket, in order.
    #[inline]
    fn each_bucket(self, mut f: impl FnMut(u16, u64)) {
        match self {
            HistView::Whole(h) => h.each_bucket(f),
            HistView::Packed(p) => {
                for &e in p {
                    let (bucket, n) = HistView::unpack(e);
                    f(bucket, n);
                }
            }
        }
    }

    /// Non-empty buckets and their counts, in bucket order.
    pub fn iter(self) -> impl Iterator<Item = (u16, u64)> + 'h {
        match self {
            HistView::Whole(h) => Either::Left(h.iter()),
            HistView::Packed(p) => Either::Right(p.iter().map(|&e| HistView::unpack(e))),
        }
    }

    /// Number of non-empty buckets.
    pub fn buckets_used(self) -> usize {
        match self {
            HistView::Whole(h) => h.buckets_used(),
            HistView::Packed(p) => p.len(),
        }
    }

    /// Number of samples.
    pub fn count(self) -> u64 {
        match self {
            HistView::Whole(h) => h.count(),
            HistView::Packed(p) => p.iter().map(|&e| HistView::unpack(e).1).sum(),
        }
    }

    /// A histogram of its own, in the smallest form that holds these samples.
    pub fn to_histogram(self) -> Histogram {
        match self {
            HistView::Whole(h) => h.compact_clone(),
            HistView::Packed(p) => {
                Histogram::compact_of(p.len(), self.iter()).unwrap_or_else(|| {
                    let mut h = Histogram::new();
                    h.add_hist(self);
                    h
                })
            }
        }
    }
}

/// One of two iterators of the same items (no chained or flattened adapters on the per-bucket
/// path of a percentile).
enum Either<L, R> {
    Left(L),
    Right(R),
}

impl<T, L: Iterator<Item = T>, R: Iterator<Item = T>> Iterator for Either<L, R> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            Either::Left(l) => l.next(),
            Either::Right(r) => r.next(),
        }
    }
}

/// Two bucket-ordered `(bucket, count)` streams as one, counts of equal buckets added.
fn merge_buckets(
    x: impl Iterator<Item = (u16, u64)>,
    y: impl Iterator<Item = (u16, u64)>,
) -> impl Iterator<Item = (u16, u64)> {
    let (mut x, mut y) = (x.peekable(), y.peekable());
    std::iter::from_fn(move || match (x.peek().copied(), y.peek().copied()) {
        (Some((bx, cx)), Some((by, cy))) if bx == by => {
            x.next();
            y.next();
            Some((bx, cx + cy))
        }
        (Some((bx, _)), Some((by, _))) if by < bx => y.next(),
        (Some(_), _) => x.next(),
        (None, _) => y.next(),
    })
}

/// The value of the `k`-th of `c` samples in `bucket`: `low + (k − ½)/c × width`.
fn interpolate(bucket: u16, k: u64, c: u64) -> f64 {
    let (low, high) = bucket_bounds_ns(bucket);
    low + (high - low) * (k as f64 - 0.5) / c as f64
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

/// Merges two sorted lists of packed entries, none with a count of 0 (counts of a bucket in both
/// added), into `out`; returns the merged length, or `None` when it would not fit `out`.
#[inline]
fn merge_packed<const N: usize>(a: &[u64], b: &[u64], out: &mut [u64; N]) -> Option<usize> {
    let (mut i, mut n) = (0, 0);
    for &e in b {
        let bucket = e >> COUNT_BITS;
        while i < a.len() && a[i] >> COUNT_BITS < bucket {
            *out.get_mut(n)? = a[i];
            n += 1;
            i += 1;
        }
        if i < a.len() && a[i] >> COUNT_BITS == bucket {
            debug_assert!(
                (a[i] & COUNT_MASK) + (e & COUNT_MASK) <= COUNT_MASK,
                "histogram count overflow"
            );
            *out.get_mut(n)? = a[i] + (e & COUNT_MASK);
            i += 1;
        } else {
            *out.get_mut(n)? = e;
        }
        n += 1;
    }
    for &e in &a[i..] {
        *out.get_mut(n)? = e;
        n += 1;
    }
    Some(n)
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

    fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        self.entries
            .iter()
            .map(|&e| ((e >> COUNT_BITS) as u16, e & COUNT_MASK))
    }
}

/// Empty pages a block adds beyond a value's page when it grows, and keeps at each end when it
/// trims. 1 cut reallocations in the merge benchmark by 2.7× but made busy histograms ~12 %
/// bigger, for no measurable gain in time; 0 keeps a block exactly the range in use (plus at most
/// one lazily kept empty page at each end, see [`Block::trim`]).
const SLACK: usize = 0;
/// Counters per page (power of two).
const PAGE: usize = SUB_BUCKETS as usize;
/// Header words at the front of a block's `words`: the zero and overflow counts (`u64`, low word
/// first), then the non-empty bucket count of every page (indexed by absolute page number).
const ZERO_AT: usize = 0;
const OVERFLOW_AT: usize = 2;
const NONZERO_AT: usize = 4;
const HDR: usize = NONZERO_AT + PAGES;
// Bucket numbers and counter indices fit `u16`.
const _: () = assert!(PAGES * PAGE < u16::MAX as usize);

/// The most heap bytes a histogram holds ([`Histogram::heap_bytes`]): a wide block of every
/// page. What a reader that holds one while it adds rows up counts it at before it knows.
pub const MAX_HEAP_BYTES: usize = (HDR + 2 * PAGES * PAGE) * 4;

/// The block form: one contiguous array of `u32` counters covering the pages (powers of two)
/// `[first, first + len / 128)` in use, grown at either end when a value falls outside it and
/// trimmed when end pages empty. Everything an update needs to find its counter (`base`, `len`,
/// the pointer) and `total` sit in the histogram itself, in the report row: an update is one
/// dependent cache miss (the counter) after the row. The header words (zero and overflow counts,
/// non-empty buckets per page) are only touched when a bucket empties or fills.
///
/// Counts beyond `u32` (over 4 billion samples in one bucket: rare) make the block *wide*: a
/// second array of high words follows the counters, so nothing overflows.
#[derive(Clone, Debug)]
struct Block {
    /// Bucket of the first counter: `1 + first × 128`.
    base: u16,
    /// Counters covered: pages × 128 (0 only transiently, before the first page is added).
    len: u16,
    /// Distinct non-empty buckets (zero and overflow included).
    nonzero: u16,
    /// Whether `words` holds high words after the counters.
    wide: bool,
    total: u64,
    /// [`HDR`] header words, `len` counters (the low words), then, if `wide`, `len` high words.
    words: Box<[u32]>,
}

impl Block {
    fn from_sparse(s: &Sparse) -> Block {
        let pages = s
            .iter()
            .filter(|&(b, _)| b != ZERO_BUCKET && b < OVERFLOW_BUCKET)
            .map(|(b, _)| (b as usize - 1) / PAGE);
        let (lo, hi) = pages.fold((usize::MAX, 0), |(lo, hi), p| (lo.min(p), hi.max(p)));
        let mut block = Block {
            base: 1,
            len: 0,
            nonzero: 0,
            wide: false,
            total: 0,
            words: vec![0; HDR].into_boxed_slice(),
        };
        if lo <= hi {
            let (lo, hi) = (lo.saturating_sub(SLACK), (hi + 1 + SLACK).min(PAGES));
            block.resize(lo, hi - lo);
        }
        for (bucket, c) in s.iter() {
            block.add(bucket, c);
        }
        block
    }

    fn to_sparse(&self) -> Sparse {
        Sparse {
            entries: self.iter().map(|(b, c)| pack(b, c)).collect(),
        }
    }

    /// The common cases of an update of a busy histogram, in a few instructions: `bucket` is in
    /// the block, its count stays within `u32`, and a new bucket needs no more than its page's
    /// non-empty count raised. Returns false, having changed nothing, otherwise.
    #[inline]
    fn add_fast(&mut self, bucket: u16, n: u64) -> bool {
        let i = (bucket as usize).wrapping_sub(self.base as usize);
        if i >= self.len as usize {
            return false;
        }
        let Some(slot) = self.words.get_mut(HDR + i) else {
            return false;
        };
        let v = *slot;
        let sum = v as u64 + n;
        if sum > u32::MAX as u64 {
            return false;
        }
        if v == 0 {
            // A new bucket (unless a wide block holds it in its high word).
            if n == 0 || self.wide {
                return false;
            }
            *slot = n as u32;
            self.nonzero += 1;
            if let Some(c) = self
                .words
                .get_mut(NONZERO_AT + (bucket as usize - 1) / PAGE)
            {
                *c += 1;
            }
        } else {
            *slot = sum as u32;
        }
        self.total += n;
        true
    }

    /// Like [`Block::add_fast`]: the bucket keeps a non-zero low word (the high word of a wide
    /// block, if any, is left alone), or it empties without emptying an end page of the block
    /// (no trim) nor bringing the histogram down to [`SPARSE_MIN`] buckets.
    #[inline]
    fn subtract_fast(&mut self, bucket: u16, n: u64) -> bool {
        let i = (bucket as usize).wrapping_sub(self.base as usize);
        if i >= self.len as usize {
            return false;
        }
        let Some(slot) = self.words.get_mut(HDR + i) else {
            return false;
        };
        let v = *slot as u64;
        if v > n {
            *slot -= n as u32;
        } else if v == n && n != 0 && !self.wide && self.nonzero as usize > SPARSE_MIN + 1 {
            let page = (bucket as usize - 1) / PAGE;
            let c = self.page_nonzero(page);
            if c <= 1 {
                // The page empties: the slow path trims when it is near an end.
                let (first, end) = (self.first_page(), self.first_page() + self.pages());
                if page <= first + SLACK + 1 || page + SLACK + 2 >= end {
                    return false;
                }
            }
            self.words[HDR + i] = 0;
            self.words[NONZERO_AT + page] = c - 1;
            self.nonzero -= 1;
        } else {
            return false;
        }
        self.total -= n;
        true
    }

    #[inline]
    fn first_page(&self) -> usize {
        (self.base as usize - 1) / PAGE
    }

    #[inline]
    fn pages(&self) -> usize {
        self.len as usize / PAGE
    }

    fn page_nonzero(&self, page: usize) -> u32 {
        self.words[NONZERO_AT + page]
    }

    /// The low and high words (empty unless wide) of absolute page `page`'s 128 counters, or
    /// `None` when the page is outside the block or empty.
    fn page_counters(&self, page: usize) -> Option<(&[u32], &[u32])> {
        let first = self.first_page();
        if page < first || page >= first + self.pages() || self.page_nonzero(page) == 0 {
            return None;
        }
        let at = HDR + (page - first) * PAGE;
        let low = &self.words[at..at + PAGE];
        let high = if self.wide {
            let at = at + self.len as usize;
            &self.words[at..at + PAGE]
        } else {
            &[]
        };
        Some((low, high))
    }

    fn get_u64(&self, at: usize) -> u64 {
        self.words[at] as u64 | (self.words[at + 1] as u64) << 32
    }

    fn set_u64(&mut self, at: usize, v: u64) {
        self.words[at] = v as u32;
        self.words[at + 1] = (v >> 32) as u32;
    }

    /// Count of counter `i` (low word plus high word).
    #[inline]
    fn get(&self, i: usize) -> u64 {
        let low = self.words[HDR + i] as u64;
        if self.wide {
            low | (self.words[HDR + self.len as usize + i] as u64) << 32
        } else {
            low
        }
    }

    #[inline]
    fn set(&mut self, i: usize, v: u64) {
        if v > u32::MAX as u64 && !self.wide {
            self.resize_to(self.first_page(), self.pages(), true);
        }
        self.words[HDR + i] = v as u32;
        if self.wide {
            self.words[HDR + self.len as usize + i] = (v >> 32) as u32;
        }
    }

    /// Reallocates to cover `pages` pages from `first`, keeping the header and the counters of
    /// the pages both ranges cover (the others must be empty). Every word is written once.
    fn resize(&mut self, first: usize, pages: usize) {
        self.resize_to(first, pages, self.wide)
    }

    /// [`Block::resize`], becoming wide if `wide`.
    fn resize_to(&mut self, first: usize, pages: usize, wide: bool) {
        debug_assert!(first + pages <= PAGES && (wide || !self.wide));
        let len = pages * PAGE;
        let copies = 1 + wide as usize;
        let (old_first, old_len) = (self.first_page(), self.len as usize);
        let lo = first.max(old_first);
        let hi = (first + pages).min(old_first + self.pages());
        let mut words = Vec::with_capacity(HDR + copies * len);
        words.extend_from_slice(&self.words[..HDR]);
        for copy in 0..copies {
            if lo < hi && (copy == 0 || self.wide) {
                let src = HDR + copy * old_len + (lo - old_first) * PAGE;
                words.resize(HDR + copy * len + (lo - first) * PAGE, 0);
                words.extend_from_slice(&self.words[src..src + (hi - lo) * PAGE]);
            }
            words.resize(HDR + (copy + 1) * len, 0);
        }
        self.words = words.into_boxed_slice();
        self.base = (1 + first * PAGE) as u16;
        self.len = len as u16;
        self.wide = wide;
    }

    /// Drops empty pages at the ends beyond [`SLACK`] at each end, once more than `SLACK + 1`
    /// are empty there, so that a value coming and going at the edge of the range does not
    /// reallocate every time.
    fn trim(&mut self) {
        let (first, pages) = (self.first_page(), self.pages());
        let lead = (0..pages)
            .take_while(|&p| self.page_nonzero(first + p) == 0)
            .count();
        if lead == pages {
            self.resize(first, 0);
            return;
        }
        let trail = (0..pages)
            .rev()
            .take_while(|&p| self.page_nonzero(first + p) == 0)
            .count();
        let drop = |empty: usize| if empty > SLACK + 1 { empty - SLACK } else { 0 };
        let (lead, trail) = (drop(lead), drop(trail));
        if lead + trail > 0 {
            self.resize(first + lead, pages - lead - trail);
        }
    }

    fn add(&mut self, bucket: u16, n: u64) {
        self.total += n;
        if bucket == ZERO_BUCKET || bucket >= OVERFLOW_BUCKET {
            let at = if bucket == ZERO_BUCKET {
                ZERO_AT
            } else {
                OVERFLOW_AT
            };
            let v = self.get_u64(at);
            self.nonzero += (v == 0) as u16;
            self.set_u64(at, v + n);
            return;
        }
        let page = (bucket as usize - 1) / PAGE;
        if self.len == 0 {
            let first = page.saturating_sub(SLACK);
            self.resize(first, (page + 1 + SLACK).min(PAGES) - first);
        } else {
            let (first, end) = (self.first_page(), self.first_page() + self.pages());
            if page < first {
                let first = page.saturating_sub(SLACK);
                self.resize(first, end - first);
            } else if page >= end {
                self.resize(first, (page + 1 + SLACK).min(PAGES) - first);
            }
        }
        let i = bucket as usize - self.base as usize;
        let v = self.get(i);
        if v == 0 {
            self.nonzero += 1;
            self.words[NONZERO_AT + page] += 1;
        }
        debug_assert!(v + n <= COUNT_MASK, "histogram count overflow");
        self.set(i, v + n);
    }

    fn subtract(&mut self, bucket: u16, n: u64) {
        debug_assert!(self.total >= n);
        self.total -= n;
        if bucket == ZERO_BUCKET || bucket >= OVERFLOW_BUCKET {
            let at = if bucket == ZERO_BUCKET {
                ZERO_AT
            } else {
                OVERFLOW_AT
            };
            let v = self.get_u64(at);
            debug_assert!(
                v >= n,
                "histogram: subtracting {n} samples from bucket {bucket} holding {v}"
            );
            let v = v.saturating_sub(n);
            self.nonzero -= (v == 0) as u16;
            self.set_u64(at, v);
            return;
        }
        let i = (bucket as usize).wrapping_sub(self.base as usize);
        if i >= self.len as usize {
            debug_assert!(false, "histogram: subtracting from empty bucket {bucket}");
            return;
        }
        let v = self.get(i);
        debug_assert!(
            v >= n,
            "histogram: subtracting {n} samples from bucket {bucket} holding {v}"
        );
        let v = v.saturating_sub(n);
        self.set(i, v);
        if v == 0 {
            self.nonzero -= 1;
            let page = (bucket as usize - 1) / PAGE;
            // Runs of empty end pages are at most `SLACK + 1` long: only a page this close to an
            // end can lengthen one past that.
            let (first, end) = (self.first_page(), self.first_page() + self.pages());
            let page_nonzero = &mut self.words[NONZERO_AT + page];
            *page_nonzero -= 1;
            if *page_nonzero == 0 && (page <= first + SLACK + 1 || page + SLACK + 2 >= end) {
                self.trim();
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        let zero = self.get_u64(ZERO_AT);
        let overflow = self.get_u64(OVERFLOW_AT);
        let zero = (zero > 0).then_some((ZERO_BUCKET, zero));
        let overflow = (overflow > 0).then_some((OVERFLOW_BUCKET, overflow));
        let counters = (0..self.len as usize).filter_map(move |i| {
            let c = self.get(i);
            (c > 0).then_some(((self.base as usize + i) as u16, c))
        });
        zero.into_iter().chain(counters).chain(overflow)
    }

    /// Like [`find_rank`], summing a page (one pass over 128 counters) before looking inside.
    fn find_rank(&self, r: u64) -> Option<(u16, u64, u64)> {
        let zero = self.get_u64(ZERO_AT);
        if zero >= r {
            return Some((ZERO_BUCKET, r, zero));
        }
        let mut below = zero;
        let len = self.len as usize;
        let first = self.first_page();
        for p in 0..self.pages() {
            if self.page_nonzero(first + p) == 0 {
                continue;
            }
            let range = p * PAGE..(p + 1) * PAGE;
            let sum = |from: usize| -> u64 {
                self.words[from + range.start..from + range.end]
                    .iter()
                    .map(|&c| c as u64)
                    .sum()
            };
            let mut t = sum(HDR);
            if self.wide {
                t += sum(HDR + len) << 32;
            }
            if below + t < r {
                below += t;
                continue;
            }
            for i in range {
                let c = self.get(i);
                if c > 0 && below + c >= r {
                    return Some(((self.base as usize + i) as u16, r - below, c));
                }
                below += c;
            }
            return None;
        }
        let overflow = self.get_u64(OVERFLOW_AT);
        (overflow > 0).then_some((OVERFLOW_BUCKET, r - below, overflow))
    }
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

        /// Adding a histogram (inline, sparse, block, or a closed tick's packed form) to one of
        /// any form by `add_hist` (the one-pass merge where both are short) holds exactly what
        /// adding its buckets one by one holds.
        #[test]
        fn add_hist_equals_adding_bucket_by_bucket(
            a in proptest::collection::vec((0u16..BUCKETS as u16, 1u64..5), 0..70),
            b in proptest::collection::vec((0u16..BUCKETS as u16, 1u64..5), 0..70),
            spread in 1u16..300,
            packed in any::<bool>(),
        ) {
            let build = |v: &[(u16, u64)]| {
                let mut h = Histogram::new();
                for &(bucket, n) in v {
                    h.add_bucket(bucket % spread, n);
                }
                h
            };
            let (mut merged, other) = (build(&a), build(&b));
            let mut one_by_one = merged.clone();
            for (bucket, n) in other.iter() {
                one_by_one.add_bucket(bucket, n);
            }
            let mut words = Vec::new();
            if packed && other.pack32_into(&mut words) {
                merged.add_hist(HistView::Packed(&words));
            } else {
                merged.add_hist(&other);
            }
            prop_assert_eq!(merged.iter().collect::<Vec<_>>(), one_by_one.iter().collect::<Vec<_>>());
            prop_assert_eq!(merged.count(), one_by_one.count());
            prop_assert_eq!(merged.buckets_used(), one_by_one.buckets_used());
            // And it keeps working: subtracting `other` again leaves `a`'s histogram.
            merged.subtract_hist(&other);
            prop_assert_eq!(merged.iter().collect::<Vec<_>>(), build(&a).iter().collect::<Vec<_>>());
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

        /// Several percentiles of one to four histograms in one walk equal each percentile of
        /// their sum computed on its own, whatever the order of `ps` and the histograms' forms.
        #[test]
        fn percentiles_of_a_sum_in_one_walk_equal_each_alone(
            // Values over the whole range (blocks: every page, the overflow bucket) and below
            // 2 µs (the zero bucket and the first page).
            parts in proptest::collection::vec(
                proptest::collection::vec(
                    (prop_oneof![0u64..2_000_000_000_000, 0u64..2_000], 1u64..4), 0..400),
                1..=4),
            ps in proptest::collection::vec(0.0f64..=100.0, 0..8),
        ) {
            let hists: Vec<Histogram> = parts
                .iter()
                .map(|samples| {
                    let mut h = Histogram::new();
                    for &(s, n) in samples {
                        h.add(s, n);
                    }
                    h
                })
                .collect();
            let mut sum = Histogram::new();
            for h in &hists {
                sum.add_hist(h);
            }
            let refs: Vec<&Histogram> = hists.iter().collect();
            // Both walks, whatever the parts' forms.
            for by_pages in [false, true] {
                let mut out = Vec::new();
                percentiles_ns_of_sum_with(&refs, &ps, &mut out, by_pages);
                prop_assert_eq!(out.len(), ps.len());
                for (i, &p) in ps.iter().enumerate() {
                    prop_assert_eq!(out[i], sum.percentile_ns(p), "p{} by pages: {}", p, by_pages);
                }
            }
            // One percentile at a time (a sort by a percentile), either walk by the forms.
            for &p in &ps {
                let one = match refs[..] {
                    [a, b] => percentile_ns_of_sum(a, b, p),
                    _ => continue,
                };
                prop_assert_eq!(one, sum.percentile_ns(p), "p{} of {} parts", p, refs.len());
            }
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

    /// A busy histogram is one block over the pages in use: it grows at either end, trims empty
    /// end pages, goes wide past `u32` and stays within 31 pages.
    #[test]
    fn block_grows_trims_and_goes_wide() {
        let page_bucket = |page: usize, sub: usize| (1 + page * PAGE + sub) as u16;
        let mut h = Histogram::new();
        for sub in 0..60 {
            h.add_bucket(page_bucket(10, sub), 1);
        }
        assert!(h.is_paged());
        assert_eq!(h.heap_bytes(), (HDR + (1 + 2 * SLACK) * PAGE) * 4);
        h.add_bucket(page_bucket(20, 5), 2);
        h.add_bucket(page_bucket(3, 7), 1);
        h.add_bucket(ZERO_BUCKET, 1);
        h.add_bucket(OVERFLOW_BUCKET, 1);
        assert_eq!(h.heap_bytes(), (HDR + (18 + 2 * SLACK) * PAGE) * 4);
        assert_eq!(h.count(), 60 + 2 + 1 + 2);
        h.subtract_bucket(page_bucket(20, 5), 2);
        h.subtract_bucket(page_bucket(3, 7), 1);
        assert_eq!(h.heap_bytes(), (HDR + (1 + 2 * SLACK) * PAGE) * 4);
        // Past u32: the block goes wide, and counts stay exact.
        let big = u32::MAX as u64 + 7;
        h.add_bucket(page_bucket(10, 3), big);
        h.add_bucket(page_bucket(11, 0), big);
        h.add_bucket(page_bucket(11, 0), big);
        assert_eq!(h.count(), 60 + 2 + 3 * big);
        assert_eq!(
            h.iter().find(|&(b, _)| b == page_bucket(11, 0)),
            Some((page_bucket(11, 0), 2 * big))
        );
        assert_eq!(h.percentile_ns(100.0), Some(MAX_NS as f64));
        h.subtract_bucket(page_bucket(11, 0), 2 * big);
        h.subtract_bucket(page_bucket(10, 3), big);
        // Every page: still one bounded block.
        for page in 0..PAGES {
            h.add_bucket(page_bucket(page, page), 1);
        }
        assert!(h.heap_bytes() <= (HDR + 2 * PAGES * PAGE) * 4);
        for page in 0..PAGES {
            h.subtract_bucket(page_bucket(page, page), 1);
        }
        for sub in 0..60 {
            h.subtract_bucket(page_bucket(10, sub), 1);
        }
        h.subtract_bucket(ZERO_BUCKET, 1);
        h.subtract_bucket(OVERFLOW_BUCKET, 1);
        assert!(h.is_empty() && !h.is_paged() && h.count() == 0);
    }

    /// Adding histograms whose counts are near [`MAX_BUCKET_COUNT`] (history's steps read back
    /// from the store) stops each bucket at the bound, in every form, and leaves the other
    /// buckets exact; far from the bound it adds as `add_hist` does.
    #[test]
    fn saturating_add_stops_a_bucket_at_the_bound() {
        let near = MAX_BUCKET_COUNT - 5;
        for distinct in [1u64, 20, 200] {
            // Inline, sparse and block forms, each holding one bucket near the bound.
            let mut a = Histogram::new();
            let mut b = Histogram::new();
            for i in 0..distinct {
                a.add(1_000_000 + i * 50_000, 1);
                b.add(1_000_000 + i * 50_000, 2);
            }
            a.add(7_000_000_000, near);
            b.add(7_000_000_000, near);
            b.add(9_000_000_000, 3);
            a.add_hist_saturating(&b);
            let count_of = |h: &Histogram, ns: u64| {
                h.iter()
                    .find(|&(bucket, _)| bucket == bucket_of(ns))
                    .map_or(0, |(_, n)| n)
            };
            assert_eq!(count_of(&a, 7_000_000_000), MAX_BUCKET_COUNT, "{distinct}");
            assert_eq!(count_of(&a, 9_000_000_000), 3, "{distinct}");
            assert_eq!(count_of(&a, 1_000_000), 3, "{distinct}");
            assert_eq!(a.count(), MAX_BUCKET_COUNT + 3 + 3 * distinct, "{distinct}");
            assert!(a.iter().all(|(bucket, _)| bucket < BUCKETS as u16));
            // Once more: nothing passes the bound, the rest still adds.
            a.add_hist_saturating(&b);
            assert_eq!(count_of(&a, 7_000_000_000), MAX_BUCKET_COUNT);
            assert_eq!(count_of(&a, 9_000_000_000), 6);
        }
        // Far from the bound: the plain sum.
        let (mut a, mut b) = (Histogram::new(), Histogram::new());
        a.add(5_000, 2);
        b.add(5_000, 3);
        b.add(6_000_000, 1);
        let mut plain = a.clone();
        plain.add_hist(&b);
        a.add_hist_saturating(&b);
        assert_eq!(a, plain);
        assert_eq!(a.count(), 6);
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

    /// The percentile of two histograms read together equals that of their sum, whatever their
    /// forms (inline, sparse, block) and overlaps.
    #[test]
    fn percentile_of_a_sum_equals_the_sum_s_percentile() {
        let mut seed = 7u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..200 {
            let (mut a, mut b) = (Histogram::new(), Histogram::new());
            let (na, nb) = (
                (next() % [2, 10, 300][case % 3]) as usize,
                (next() % 200) as usize,
            );
            for _ in 0..na {
                a.add(1_000 + next() % 50_000_000, 1 + next() % 3);
            }
            for _ in 0..nb {
                b.add(1_000 + next() % 5_000_000, 1);
            }
            let mut sum = a.clone();
            sum.add_hist(&b);
            for p in [0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0] {
                assert_eq!(
                    percentile_ns_of_sum(&a, &b, p),
                    sum.percentile_ns(p),
                    "case {case} p{p}"
                );
            }
        }
    }
}
