//! Rows and the row map: a row's sums and histogram, and the hash tables holding a report's rows
//! under their key ids (the open tick's, and the window's closed part).
//!
//! In: keys built by `keys`, contributions from `sums`. Out: rows found, inserted, walked and
//! removed by the update path, the window's ticks and queries, on whichever thread holds the
//! report's lock. Keys are inline in the table (up to [`SMALL_KEY`] ids in one table type, up to
//! [`MAX_KEYS`] in the other), and a walk that looks up one row per item fetches the rows ahead
//! ([`Rows::prefetch`], [`with_lookahead`]): once a window's rows outgrow the caches, that miss is
//! most of an update's cost. Allocates only when a table grows.

use std::collections::VecDeque;

use hashbrown::HashTable;

use crate::histogram::{HistView, Histogram};
use crate::memory::TableAlloc;

use super::def::MAX_KEYS;
use super::keys::{hash_ids, inline_key, KeyBuf, SMALL_KEY};
use super::sums::{Counted, Sums};

/// One row: sums and histogram.
#[derive(Clone, Debug, Default)]
pub(super) struct Row {
    pub(super) sums: Sums,
    pub(super) hist: Histogram,
    /// In the open tick: the update number that last touched it (timer reports: a request counts
    /// once per row). In the window's closed part (`agg`): the tick the row was made in, from
    /// which it holds its key's contributions (a key's older ones are in "(other)" if its row was
    /// folded away meanwhile; see [`Report`](super::Report)).
    pub(super) mark: u64,
    /// In the open tick: the row's number (see [`Report::flush_hist`](super::Report::flush_hist)).
    /// In the window's closed part (`agg`): the number of the open tick's row of the same key,
    /// when `link` is the report's `open_gen` (see [`View::parts`](super::view::View::parts)).
    pub(super) slot: u32,
    /// In the closed part: the `open_gen` at which `slot` was set (0: never). Open rows keep 0.
    pub(super) link: u32,
    /// Contributions (requests, or timers in a timer report) since the row was last zeroed: what a
    /// family's member loses when it has no room for a stage row (see `family`).
    pub(super) contribs: u32,
    /// A row of the open tick whose key is not in the window's closed part (`agg`): counted in
    /// `open_only`, and what lets a query list the open tick's own rows without looking each
    /// open row up in `agg`.
    pub(super) only_open: bool,
    /// In the window's closed part (`agg`, its totals and "(other)"), once a tick with a
    /// memory_peak came in: the largest memory_peak of each closed tick in the window, by tick
    /// number modulo the window's ticks, so that `sums.memory_peak_max` (the largest of them) is
    /// recomputed when the tick holding it leaves (see `window::forget_peak`). `None` elsewhere.
    pub(super) peaks: Option<Box<[u32]>>,
}

const _: () = assert!(std::mem::size_of::<Row>() == 168);

/// The `slot` of a row that has none (the "(other)" rows): no samples in the histogram log.
pub(super) const NO_SLOT: u32 = u32::MAX;

impl Row {
    /// An empty "(other)" row (see [`NO_SLOT`]).
    pub(super) fn other() -> Row {
        Row {
            slot: NO_SLOT,
            ..Row::default()
        }
    }

    /// Empties the row in place, keeping its histogram's memory and its slot.
    pub(super) fn zero(&mut self) {
        self.sums = Sums::default();
        self.hist.clear();
        self.contribs = 0;
        self.mark = 0;
    }

    /// A new row holding `c` alone (of the request numbered `mark`, for a timer report).
    #[inline]
    pub(super) fn first(c: &impl Counted, mark: Option<u64>) -> Row {
        let mut row = Row::default();
        if let Some(mark) = mark {
            row.mark = mark;
            row.sums.req_count = 1;
        }
        row.add(c);
        row
    }

    /// Counts `c`; returns how many bytes the histogram grew by (see
    /// [`Histogram::add_bucket`](crate::histogram::Histogram::add_bucket)).
    #[inline(always)]
    pub(super) fn add(&mut self, c: &impl Counted) -> usize {
        c.add_to(&mut self.sums);
        let (bucket, samples) = c.sample();
        self.contribs = self.contribs.saturating_add(1);
        self.hist.add_bucket(bucket, samples)
    }

    /// Adds another row (a round into a tick, a tick into the window, a stage row into a
    /// member); returns how many bytes the histogram grew by.
    pub(super) fn add_row(&mut self, o: &Row) -> usize {
        self.sums.add(&o.sums);
        let before = self.hist.heap_bytes();
        self.hist.add_hist(&o.hist);
        self.contribs = self.contribs.saturating_add(o.contribs);
        self.hist.heap_bytes().saturating_sub(before)
    }

    /// Removes what a row added earlier (a tick leaving the window).
    pub(super) fn subtract_row_parts<'h>(&mut self, sums: &Sums, hist: impl Into<HistView<'h>>) {
        self.sums.subtract(sums);
        self.hist.subtract_hist(hist);
    }
}

/// The rows of a report, by key: inline keys of up to [`SMALL_KEY`] ids, or of up to
/// [`MAX_KEYS`] (a 5-key report such as the built-ins' stage, or more).
#[derive(Debug)]
pub(super) enum RowMap {
    Small(Rows<SMALL_KEY>),
    Large(Rows<MAX_KEYS>),
}

/// Rows under inline keys of up to `N` ids: hashbrown's `HashTable` (the table behind std's
/// `HashMap`), used directly for its bucket index. A table-order update knows each coming
/// contribution's bucket (`hash & (buckets - 1)`, where its probe starts) and asks the CPU to
/// fetch that bucket a few contributions ahead ([`Rows::prefetch`]): with a window's rows far
/// beyond the caches, the key compare's cache miss on the row is a large part of the merge's
/// time. Keys are inline also beyond [`SMALL_KEY`] ids: a boxed key would be a second miss per
/// lookup (and an allocation per row) for no less memory.
///
/// Allocated by [`TableAlloc`]: a large table lives on transparent huge pages.
#[derive(Debug)]
pub(super) struct Rows<const N: usize>(pub(super) HashTable<([u32; N], Row), TableAlloc>);

impl<const N: usize> Default for Rows<N> {
    fn default() -> Self {
        Rows(HashTable::new_in(TableAlloc))
    }
}

impl<const N: usize> Rows<N> {
    #[inline]
    fn get(&self, k: &[u32; N]) -> Option<&Row> {
        self.0.find(hash_ids(k), |e| e.0 == *k).map(|e| &e.1)
    }

    #[inline]
    pub(super) fn get_mut(&mut self, k: &[u32; N]) -> Option<&mut Row> {
        self.0
            .find_mut(hash_ids(k), |e| e.0 == *k)
            .map(|e| &mut e.1)
    }

    /// Inserts or replaces the row of `k`.
    pub(super) fn insert(&mut self, k: [u32; N], row: Row) {
        let hash = hash_ids(&k);
        match self.0.find_mut(hash, |e| e.0 == k) {
            Some(e) => e.1 = row,
            None => {
                self.0.insert_unique(hash, (k, row), |e| hash_ids(&e.0));
            }
        }
    }

    fn remove(&mut self, k: &[u32; N]) -> Option<Row> {
        match self.0.find_entry(hash_ids(k), |e| e.0 == *k) {
            Ok(e) => Some(e.remove().0 .1),
            Err(_) => None,
        }
    }

    fn shrink_to(&mut self, min: usize) {
        self.0.shrink_to(min, |e| hash_ids(&e.0));
    }

    /// Bytes of the table: every bucket's slot and control byte.
    fn table_bytes(&self) -> usize {
        self.0.num_buckets() * (self.slot_bytes() + 1)
    }

    /// Bytes of one slot: the key and the row.
    fn slot_bytes(&self) -> usize {
        std::mem::size_of::<([u32; N], Row)>()
    }

    /// Buckets of the table (a power of two): a key's probe starts at `hash & (buckets - 1)`.
    pub(super) fn buckets(&self) -> usize {
        self.0.num_buckets()
    }

    /// [`Rows::prefetch`] of the bucket where `k`'s probe starts.
    #[inline]
    fn prefetch_key(&self, k: &[u32; N]) {
        self.prefetch(hash_ids(k) as usize & (self.buckets() - 1));
    }

    /// Asks the CPU to fetch the row in bucket `pos` (if one is there): the bucket a key's probe
    /// starts at, and most keys sit there (the table is at most 7/8 full). A hint only: a key
    /// found a few buckets on, or a table grown since `pos` was taken, costs only the miss it
    /// would have cost anyway. Reads the bucket's control byte, which a table-order update reads
    /// in order, so it is in cache.
    #[inline]
    pub(super) fn prefetch(&self, pos: usize) {
        if let Some(e) = self.0.get_bucket(pos) {
            // Every line of the entry (152 bytes with a small key, 200 with a large one; entries
            // are 8-byte aligned, so up to three or four lines).
            let size = self.slot_bytes();
            let p = (e as *const ([u32; N], Row)).cast::<u8>();
            let mut at = 0;
            while at < size {
                prefetch_line(p.wrapping_add(at));
                at += 64;
            }
            prefetch_line(p.wrapping_add(size - 1));
        }
    }
}

/// `$body` with `$m` bound to the [`RowMap`]'s table, whichever its key size (the arms differ
/// only in the table's type).
macro_rules! each_rows {
    ($map:expr, $m:ident => $body:expr) => {
        match $map {
            RowMap::Small($m) => $body,
            RowMap::Large($m) => $body,
        }
    };
}

pub(super) use each_rows;

impl RowMap {
    pub(super) fn new(keys: usize) -> RowMap {
        if keys <= SMALL_KEY {
            RowMap::Small(Rows::default())
        } else {
            RowMap::Large(Rows::default())
        }
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        each_rows!(self, m => m.0.len())
    }

    pub(super) fn capacity(&self) -> usize {
        each_rows!(self, m => m.0.capacity())
    }

    /// Room for `n` more rows without growing.
    pub(super) fn reserve(&mut self, n: usize) {
        each_rows!(self, m => m.0.reserve(n, |e| hash_ids(&e.0)))
    }

    /// After a burst has left, gives back most of the table: when it is under 1/8 full, it
    /// shrinks to twice its rows (so steady traffic never shrinks and regrows it).
    pub(super) fn shrink_if_sparse(&mut self) {
        let (len, cap) = (self.len(), self.capacity());
        if cap > 1024 && len < cap / 8 {
            each_rows!(self, m => m.shrink_to(len * 2))
        }
    }

    /// Gives back the table's slots beyond twice its rows (while the memory budget is tight,
    /// when no new row is made: the table will not grow back soon).
    pub(super) fn shrink_to_rows(&mut self) {
        let (len, cap) = (self.len(), self.capacity());
        if cap > 64 && len < cap / 2 {
            each_rows!(self, m => m.shrink_to(len))
        }
    }

    /// An emptied map keeps its table for the next round or tick, unless a burst made it larger
    /// than `keep` slots.
    pub(super) fn trim(&mut self, keep: usize) {
        if self.capacity() > keep * 4 {
            each_rows!(self, m => m.shrink_to(keep))
        }
    }

    /// Bytes of the table (its buckets), what it holds whatever its rows.
    pub(super) fn table_bytes(&self) -> usize {
        each_rows!(self, m => m.table_bytes())
    }

    /// Bytes the next insert allocates: none while there is room, else the doubled table (the
    /// old one is held until its rows moved).
    pub(super) fn growth_bytes(&self) -> usize {
        if self.len() < self.capacity() {
            return 0;
        }
        each_rows!(self, m => (m.0.num_buckets() * 2).max(8) * (m.slot_bytes() + 1))
    }

    /// Bytes of the table once it holds `n` rows: the present one while they fit, else the one
    /// it grows to (hashbrown's buckets for `n`: 8/7 of it, up to a power of two).
    pub(super) fn table_bytes_for(&self, n: usize) -> usize {
        if n <= self.capacity() {
            return self.table_bytes();
        }
        let buckets = match n {
            0..4 => 4,
            4..8 => 8,
            _ => (n.saturating_mul(8) / 7).next_power_of_two(),
        };
        buckets * (self.slot_bytes() + 1)
    }

    /// Bytes of one map slot: the key and the row (keys are inline).
    pub(super) fn slot_bytes(&self) -> usize {
        each_rows!(self, m => m.slot_bytes())
    }

    /// The row of a key given as its ids (the closed ticks' compaction; tests: queries find
    /// open rows by link, see [`View::parts`](super::view::View::parts)).
    pub(super) fn get(&self, key: &[u32]) -> Option<&Row> {
        each_rows!(self, m => m.get(&inline_key(key)))
    }

    /// Asks the CPU to fetch the row of a key given as its ids, ahead of its use (see
    /// [`with_lookahead`]).
    #[inline]
    pub(super) fn prefetch_ids(&self, key: &[u32]) {
        each_rows!(self, m => m.prefetch_key(&inline_key(key)))
    }

    /// Keeps the rows for which `f` (given the key and the row) returns true.
    pub(super) fn retain_each(
        &mut self,
        keys: usize,
        mut f: impl FnMut(&KeyBuf, &mut Row) -> bool,
    ) {
        let mut key = KeyBuf {
            ids: [0; MAX_KEYS],
            len: keys,
        };
        each_rows!(self, m => m.0.retain(|(k, row)| {
            key.ids[..k.len()].copy_from_slice(k);
            f(&key, row)
        }))
    }

    #[inline]
    pub(super) fn get_mut(&mut self, key: &KeyBuf) -> Option<&mut Row> {
        each_rows!(self, m => m.get_mut(&key.inline()))
    }

    #[inline]
    pub(super) fn insert(&mut self, key: &KeyBuf, row: Row) {
        each_rows!(self, m => m.insert(key.inline(), row))
    }

    #[inline]
    pub(super) fn remove(&mut self, key: &KeyBuf) -> Option<Row> {
        each_rows!(self, m => m.remove(&key.inline()))
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &Row> + '_ {
        self.iter(0).map(|(_, r)| r)
    }

    pub(super) fn values_mut(&mut self) -> Box<dyn Iterator<Item = &mut Row> + '_> {
        each_rows!(self, m => Box::new(m.0.iter_mut().map(|e| &mut e.1)))
    }

    /// Every row with its key ids (`keys` of them).
    pub(super) fn iter(&self, keys: usize) -> RowIter<'_> {
        match self {
            RowMap::Small(m) => RowIter::Small(m.0.iter(), keys),
            RowMap::Large(m) => RowIter::Large(m.0.iter(), keys),
        }
    }
}

/// [`RowMap::iter`]: one match per row, no chained or flattened adapters (a query walks every
/// row of the window through it).
#[derive(Clone)]
pub(super) enum RowIter<'a> {
    Small(
        hashbrown::hash_table::Iter<'a, ([u32; SMALL_KEY], Row)>,
        usize,
    ),
    Large(
        hashbrown::hash_table::Iter<'a, ([u32; MAX_KEYS], Row)>,
        usize,
    ),
}

impl<'a> Iterator for RowIter<'a> {
    type Item = (&'a [u32], &'a Row);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            RowIter::Small(it, n) => it.next().map(|(k, r)| (&k[..*n], r)),
            RowIter::Large(it, n) => it.next().map(|(k, r)| (&k[..*n], r)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            RowIter::Small(it, _) => it.size_hint(),
            RowIter::Large(it, _) => it.size_hint(),
        }
    }
}

/// How many contributions ahead a table-order update fetches a row ([`Rows::prefetch`]):
/// enough to cover a memory access (~100 ns) with the few tens of ns each update takes.
pub(super) const PREFETCH_AHEAD: usize = 8;

/// Calls `apply` with each item [`PREFETCH_AHEAD`] items after calling `hint` with it: a walk
/// that looks up one random row per item (a tick into the window, a stage into a member) lets
/// the rows' cache misses overlap instead of paying them one after another.
pub(super) fn with_lookahead<S: ?Sized, T>(
    s: &mut S,
    items: impl IntoIterator<Item = T>,
    hint: impl Fn(&S, &T),
    mut apply: impl FnMut(&mut S, T),
) {
    let mut ahead = VecDeque::with_capacity(PREFETCH_AHEAD);
    for t in items {
        hint(s, &t);
        if ahead.len() == PREFETCH_AHEAD {
            if let Some(first) = ahead.pop_front() {
                apply(s, first);
            }
        }
        ahead.push_back(t);
    }
    for t in ahead {
        apply(s, t);
    }
}

/// A hint to fetch the cache line at `p` (no fault if `p` is not mapped: a prefetch never traps).
#[inline(always)]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault on any address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
