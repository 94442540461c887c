//! The string dictionary: every hostname, server, script, schema, tag name and tag value becomes a
//! `u32` id, shared by the pool and the reports.
//!
//! In: byte strings from the merger (interning a batch) and from report definitions (tag names and
//! filter values they pin). Out: ids, and the bytes behind an id for the API.
//!
//! Ids are reclaimed by age, not by counting each use: every [`Dictionary::intern`] stamps the
//! entry with the current time ([`Dictionary::set_now`]), and [`Dictionary::sweep`] frees the
//! entries not used since a horizon that the merger chooses beyond anything that may still refer
//! to them (the raw pool expires requests after `stats_history`, a report's window drops whole
//! ticks after its `history`). That keeps the merge path to one lookup per string, with no
//! reference taken per use and none released per request leaving the pool or a window. The
//! strings a report's definition names are pinned ([`Dictionary::pin`]) and never swept until
//! released. Freed ids are reused, so a stream of unique URLs cannot grow memory without bound;
//! past `limits.max_dictionary_entries` (or `max_dictionary_bytes`) new strings get [`LOST`] and
//! `dictionary_lost` is counted. While the memory budget is tight (see `budget`), new strings get
//! [`LOST`] too (counted as the budget's `names_refused`), and a table that would double past the
//! budget does not.
//!
//! While the budget is tight, waiting for the sweep would keep a flood of unique strings (which
//! the raw pool refers to for `stats_history`) and keep every new real name out as long: the
//! merger then **evicts** ([`Dictionary::evict_unreferenced`]) the strings no report row and no
//! pin refers to that were not used for a few seconds. An evicted string's bytes are freed and it
//! can no longer be found (interned again, it gets a new id), but its id is not reused before the
//! sweep would have freed it: the raw pool's requests that name it show [`LOST_TEXT`], never
//! another string.
//!
//! Pure: no I/O, no clock (the merger passes the time in), no locks of its own. The app wraps it
//! in one `RwLock`, shared by the receivers (which intern their batches, see `intern`), the
//! merger (raw batches, sweeps) and the API (which reads). Finding a string that is already there
//! only stamps it ([`Dictionary::find_and_stamp`], an atomic store, and only when the second
//! changed), so interning does that under a shared lock and takes the write lock only for new
//! strings: queries reading the dictionary do not wait for interning.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::budget::{Account, Budget};

/// Id given to a string that could not be interned because the dictionary is full.
pub const LOST: u32 = 0;
/// What the API shows for [`LOST`].
pub const LOST_TEXT: &[u8] = b"<dictionary full>";

/// [`Entry::pins`] of an evicted entry (see [`Dictionary::evict_unreferenced`]): no pin can
/// reach it (an evicted entry is never found, so never pinned).
const EVICTED: u32 = u32::MAX;

#[derive(Debug)]
struct Entry {
    /// The string, stored once: the table holds only ids and finds strings through here.
    bytes: Box<[u8]>,
    /// Report definitions naming this string (never swept while > 0); [`EVICTED`] for an
    /// evicted entry.
    pins: u32,
    /// When it was last interned, in the caller's seconds ([`Dictionary::set_now`]). Atomic: a
    /// lookup under the shared lock stamps it.
    used: AtomicU32,
}

/// Turns strings into ids: the dictionary itself, or the merger's access to it under a shared
/// lock (which takes the write lock only for new strings).
pub trait Intern {
    fn intern(&mut self, s: &[u8]) -> u32;
    /// Stamps live string `id` as used now, as interning it again would (for a caller that
    /// keeps ids, see `rewrite`).
    fn stamp(&mut self, id: u32);
}

impl Intern for Dictionary {
    #[inline]
    fn intern(&mut self, s: &[u8]) -> u32 {
        Dictionary::intern(self, s)
    }

    #[inline]
    fn stamp(&mut self, id: u32) {
        Dictionary::stamp(self, id)
    }
}

/// `a == b` for the short strings a dictionary holds (names, values, script paths), compared in
/// 8-byte words in line: the slice comparison calls the library's `memcmp`, which took a third
/// of a lookup (BENCHMARKS.md has the figures). `tests::same_bytes_is_slice_equality` holds it
/// to `==`.
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap());
    if n >= 8 {
        // Whole words, then the last word (overlapping the one before it when n is not a
        // multiple of 8).
        let mut at = 0;
        while at + 8 < n {
            if word(a, at) != word(b, at) {
                return false;
            }
            at += 8;
        }
        return word(a, n - 8) == word(b, n - 8);
    }
    if n >= 4 {
        let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap());
        return half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4);
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// Bytes of a table slot: the id and hashbrown's control byte.
const SLOT_BYTES: usize = std::mem::size_of::<u32>() + 1;

/// Interned strings, swept by age.
#[derive(Debug)]
pub struct Dictionary {
    /// Ids of the live strings, hashed by their bytes (in `entries`).
    table: HashTable<u32>,
    entries: Vec<Entry>,
    free: Vec<u32>,
    max_entries: usize,
    max_bytes: usize,
    /// Bytes of live string data.
    string_bytes: usize,
    /// Entries evicted and not swept yet (their ids wait for the sweep).
    evicted: usize,
    lost: u64,
    /// The time `intern` stamps (atomic, like [`Entry::used`]).
    now: AtomicU32,
    /// What the dictionary holds, against the memory budget (see [`Dictionary::settle_memory`]);
    /// also the budget the reports made with this dictionary count against.
    account: Account,
    /// Moves each time a sweep or an eviction takes strings out ([`Dictionary::generation`]).
    generation: u64,
}

/// What the allocator takes per string beyond its bytes (glibc: an 8-byte header, 16-byte
/// granules), counted against the memory budget.
const STRING_OVERHEAD: usize = 16;

impl Dictionary {
    /// A dictionary that holds at most `max_entries` live strings (and no byte bound: see
    /// [`Dictionary::with_max_bytes`]).
    pub fn new(max_entries: usize) -> Dictionary {
        let mut d = Dictionary {
            table: HashTable::new(),
            entries: Vec::new(),
            free: Vec::new(),
            max_entries,
            max_bytes: usize::MAX,
            string_bytes: 0,
            evicted: 0,
            lost: 0,
            now: AtomicU32::new(0),
            account: Account::new(Budget::unlimited()),
            generation: 0,
        };
        // id 0 is LOST, permanently pinned, never in the table.
        d.entries.push(Entry {
            bytes: LOST_TEXT.into(),
            pins: 1,
            used: AtomicU32::new(0),
        });
        d
    }

    /// Bounds the dictionary's memory ([`Dictionary::bytes`]) too: a new string that would take
    /// it past `max_bytes` gets [`LOST`].
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Dictionary {
        self.max_bytes = max_bytes;
        self
    }

    /// Counts the dictionary against `budget` (and makes it the budget of the reports made with
    /// it): while it is tight, new strings are refused.
    pub fn with_budget(mut self, budget: std::sync::Arc<Budget>) -> Dictionary {
        self.account = Account::new(budget);
        self.settle_memory();
        self
    }

    /// The memory budget it counts against.
    pub fn budget(&self) -> &std::sync::Arc<Budget> {
        self.account.budget()
    }

    /// Tells the budget what the dictionary holds now ([`Dictionary::bytes`] and the allocator's
    /// share of each string). The merger calls it whenever it publishes the dictionary's figures.
    pub fn settle_memory(&self) {
        self.account.settle(self.memory_bytes());
    }

    /// What it counts against the memory budget: [`Dictionary::bytes`] and the allocator's share
    /// of each string.
    pub fn memory_bytes(&self) -> u64 {
        (self.bytes() + self.len() * STRING_OVERHEAD) as u64
    }

    /// Whether the budget has room for one more string: not while it is tight, and not if the
    /// entries or the table would double past it. `Some(bytes)`: yes, the entries and the table
    /// growing by `bytes` (0: neither doubles).
    fn budget_allows(&self) -> Option<usize> {
        let budget = self.account.budget();
        if budget.tight() {
            return None;
        }
        let mut grows = 0;
        if self.free.is_empty() && self.entries.len() == self.entries.capacity() {
            grows += 2 * self.entries.capacity() * std::mem::size_of::<Entry>();
        }
        if self.table.len() == self.table.capacity() {
            grows += 2 * self.table.num_buckets() * SLOT_BYTES;
        }
        (grows == 0 || budget.fits(grows as u64)).then_some(grows)
    }

    fn hash(&self, s: &[u8]) -> u64 {
        FxBuildHasher.hash_one(s)
    }

    /// Sets the time [`Dictionary::intern`] stamps on the entries it finds or adds (seconds of the
    /// caller's clock; [`Dictionary::sweep`] compares with the same clock).
    pub fn set_now(&self, now: u32) {
        self.now.store(now, Relaxed);
    }

    /// The id of `s`, stamped as used now. Returns [`LOST`] (and counts it) when `s` is new and
    /// the dictionary is full (in entries or in bytes).
    #[inline]
    pub fn intern(&mut self, s: &[u8]) -> u32 {
        let hash = self.hash(s);
        match self.find_hashed(hash, s) {
            Some(id) => id,
            None => self.insert_new(hash, s),
        }
    }

    /// The id of `s` stamped as used now, if it is interned: what [`Dictionary::intern`] does
    /// for a string it has, under a shared borrow (the merger's upgradable lock).
    #[inline]
    pub fn find_and_stamp(&self, s: &[u8]) -> Option<u32> {
        self.find_hashed(self.hash(s), s)
    }

    #[inline]
    fn find_hashed(&self, hash: u64, s: &[u8]) -> Option<u32> {
        let entries = &self.entries;
        let &id = self
            .table
            .find(hash, |&id| same_bytes(&entries[id as usize].bytes, s))?;
        self.stamp(id);
        Some(id)
    }

    /// Stamps live string `id` as used now (what finding it does), under a shared borrow.
    #[inline]
    pub fn stamp(&self, id: u32) {
        let Some(entry) = self.entries.get(id as usize) else {
            return;
        };
        // Stamped only when the second changed: most lookups then leave the entry's line clean,
        // and an API thread reading the string does not have to fetch it back from the merger's
        // core. A freed entry (marked used at u32::MAX) is left as it is.
        let (used, now) = (&entry.used, self.now.load(Relaxed));
        let was = used.load(Relaxed);
        if was != now && was != u32::MAX {
            used.store(now, Relaxed);
        }
    }

    #[inline(never)]
    fn insert_new(&mut self, hash: u64, s: &[u8]) -> u32 {
        let new_cost = s.len() + std::mem::size_of::<Entry>() + 2 * SLOT_BYTES;
        if self.len() >= self.max_entries || self.bytes() + new_cost > self.max_bytes {
            self.lost += 1;
            return LOST;
        }
        let Some(grows) = self.budget_allows() else {
            self.account.budget().refused_name();
            return LOST;
        };
        self.string_bytes += s.len();
        let entry = Entry {
            bytes: s.into(),
            pins: 0,
            used: AtomicU32::new(self.now.load(Relaxed)),
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.entries[id as usize] = entry;
                id
            }
            None => {
                self.entries.push(entry);
                (self.entries.len() - 1) as u32
            }
        };
        let entries = &self.entries;
        self.table.insert_unique(hash, id, |&id| {
            FxBuildHasher.hash_one(&*entries[id as usize].bytes)
        });
        if grows > 0 {
            // Doubled: told at once, so that other holders' growth is judged against it.
            self.settle_memory();
        }
        id
    }

    /// The id of `s`, pinned: it is not swept until [`Dictionary::release`]d (once per pin).
    /// [`LOST`] when the dictionary is full.
    pub fn pin(&mut self, s: &[u8]) -> u32 {
        let id = self.intern(s);
        if id != LOST {
            self.entries[id as usize].pins += 1;
        }
        id
    }

    /// Drops one pin taken by [`Dictionary::pin`]. The entry stays until a sweep finds it unused.
    pub fn release(&mut self, id: u32) {
        if id == LOST {
            return;
        }
        if let Some(e) = self.entries.get_mut(id as usize) {
            if e.pins != EVICTED {
                e.pins = e.pins.saturating_sub(1);
            }
        }
    }

    /// One more than the highest id handed out: the size of a set of ids
    /// ([`Dictionary::evict_unreferenced`]'s `referenced`).
    pub fn id_bound(&self) -> usize {
        self.entries.len()
    }

    /// Evicts every string that is unpinned, not in `referenced` (a bit per id, bit `id % 64` of
    /// word `id / 64`: the ids the reports' rows hold) and last used before `before` (what may be
    /// on its way to a report without being in one yet is younger); returns how many. Their bytes
    /// are freed and they leave the table, but their ids stay taken until [`Dictionary::sweep`]
    /// frees them at the usual horizon, so nothing that still holds one (the raw pool) can read
    /// another string through it: it reads [`LOST_TEXT`]. For a tight memory budget (see the
    /// module docs). Cost: one pass over the entries.
    pub fn evict_unreferenced(&mut self, referenced: &[u64], before: u32) -> usize {
        let mut evicted = 0;
        for id in 1..self.entries.len() {
            let e = &mut self.entries[id];
            let used = *e.used.get_mut();
            // Free entries are marked used at u32::MAX.
            if e.pins != 0 || used >= before {
                continue;
            }
            if referenced
                .get(id / 64)
                .is_some_and(|w| w & (1 << (id % 64)) != 0)
            {
                continue;
            }
            e.pins = EVICTED;
            self.drop_string(id);
            evicted += 1;
        }
        self.evicted += evicted;
        if evicted > 0 {
            self.generation += 1;
            self.shrink_table_if_sparse();
        }
        evicted
    }

    /// Moves each time strings leave the dictionary (a sweep that freed any, an eviction): a
    /// holder of ids found earlier that keeps them beyond its lock (the receivers' interners,
    /// the rewrite rules' caches) drops them when it sees this move, since an id freed can name
    /// another string next.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Entries evicted whose ids wait for the sweep.
    pub fn evicted(&self) -> usize {
        self.evicted
    }

    /// Frees every unpinned entry last used before `before` (same clock as
    /// [`Dictionary::set_now`]), and the ids of evicted ones; returns how many. When most of the
    /// table is then empty (after a burst of unique strings), it shrinks, so memory follows the
    /// live strings down. Cost: one pass over the entries.
    pub fn sweep(&mut self, before: u32) -> usize {
        let mut freed = 0;
        for id in 1..self.entries.len() {
            let e = &mut self.entries[id];
            // Free entries are marked used at u32::MAX: never swept twice.
            if *e.used.get_mut() >= before {
                continue;
            }
            if e.pins == EVICTED {
                // Bytes freed and out of the table already: only the id was kept.
                e.pins = 0;
                *e.used.get_mut() = u32::MAX;
                self.evicted -= 1;
                self.free.push(id as u32);
                freed += 1;
                continue;
            }
            if e.pins != 0 {
                continue;
            }
            *e.used.get_mut() = u32::MAX;
            self.drop_string(id);
            self.free.push(id as u32);
            freed += 1;
        }
        if freed > 0 {
            self.generation += 1;
            self.shrink_table_if_sparse();
        }
        freed
    }

    /// Frees entry `id`'s string and takes it out of the table (a sweep or an eviction; the
    /// caller marks the entry).
    fn drop_string(&mut self, id: usize) {
        let bytes = std::mem::take(&mut self.entries[id].bytes);
        self.string_bytes -= bytes.len();
        let hash = FxBuildHasher.hash_one(&*bytes);
        if let Ok(slot) = self.table.find_entry(hash, |&i| i == id as u32) {
            slot.remove();
        }
    }

    /// When most of the table is empty (after a burst of unique strings), shrinks it, so memory
    /// follows the live strings down.
    fn shrink_table_if_sparse(&mut self) {
        if self.table.capacity() > 1024 && self.table.len() < self.table.capacity() / 8 {
            let entries = &self.entries;
            self.table.shrink_to(self.table.len() * 2, |&id| {
                FxBuildHasher.hash_one(&*entries[id as usize].bytes)
            });
        }
    }

    /// Every live string (not [`LOST`]) with its id and when it was last used (for a snapshot).
    pub fn live(&self) -> impl Iterator<Item = (u32, &[u8], u32)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, e)| e.pins != EVICTED)
            .map(|(id, e)| (id as u32, &*e.bytes, e.used.load(Relaxed)))
            .filter(|&(_, _, used)| used != u32::MAX)
    }

    /// The id of `s` if it is interned, without stamping it.
    pub fn lookup(&self, s: &[u8]) -> Option<u32> {
        let entries = &self.entries;
        self.table
            .find(self.hash(s), |&id| &*entries[id as usize].bytes == s)
            .copied()
    }

    /// The bytes behind `id` (empty for a freed or unknown id, [`LOST_TEXT`] for an evicted one).
    pub fn get(&self, id: u32) -> &[u8] {
        match self.entries.get(id as usize) {
            Some(e) if e.pins == EVICTED => LOST_TEXT,
            Some(e) => &e.bytes,
            None => &[],
        }
    }

    /// `get` rendered as UTF-8, invalid sequences replaced.
    pub fn text(&self, id: u32) -> std::borrow::Cow<'_, str> {
        let bytes = self.get(id);
        // `from_utf8` checks ASCII a word at a time; the lossy scan goes byte by byte.
        match std::str::from_utf8(bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        }
    }

    /// Live strings (not counting [`LOST`] and evicted ones).
    pub fn len(&self) -> usize {
        self.entries.len() - 1 - self.free.len() - self.evicted
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Memory the dictionary holds: string data, the entries (by capacity), the table's slots and
    /// the free list. What `limits.max_dictionary_bytes` bounds and the status shows.
    pub fn bytes(&self) -> usize {
        self.string_bytes
            + self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.table.capacity() * SLOT_BYTES
            + self.free.capacity() * std::mem::size_of::<u32>()
    }

    /// Bytes of live string data alone.
    pub fn string_bytes(&self) -> usize {
        self.string_bytes
    }

    /// Strings refused because the dictionary was full, since creation.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Pins held on `id` (tests and debugging; 0 for an evicted one).
    pub fn pins(&self, id: u32) -> u32 {
        self.entries
            .get(id as usize)
            .map(|e| if e.pins == EVICTED { 0 } else { e.pins })
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-line comparison agrees with `==` on every length around its word boundaries, for
    /// equal strings and for strings that differ in any one byte.
    #[test]
    fn same_bytes_is_slice_equality() {
        use proptest::prelude::*;
        proptest!(|(a in proptest::collection::vec(any::<u8>(), 0..70),
                    b in proptest::collection::vec(any::<u8>(), 0..70),
                    at in any::<prop::sample::Index>(), flip in 1u8..=255)| {
            prop_assert_eq!(same_bytes(&a, &b), a == b);
            prop_assert!(same_bytes(&a, &a.clone()));
            if !a.is_empty() {
                let mut c = a.clone();
                c[at.index(a.len())] ^= flip;
                prop_assert!(!same_bytes(&a, &c));
            }
            prop_assert!(!same_bytes(&a, &[a.as_slice(), b"x"].concat()));
        });
    }

    #[test]
    fn intern_is_stable_and_counted() {
        let mut d = Dictionary::new(10);
        let a = d.intern(b"/index.php");
        let b = d.intern(b"/index.php");
        assert_eq!(a, b);
        assert_ne!(a, LOST);
        assert_eq!(d.get(a), b"/index.php");
        assert_eq!(d.len(), 1);
        assert_eq!(d.string_bytes(), 10);
        assert!(
            d.bytes() > 10,
            "true bytes count the entry and the table too"
        );
    }

    #[test]
    fn sweep_frees_what_was_not_used_since_and_reuses_ids() {
        let mut d = Dictionary::new(10);
        d.set_now(5);
        let a = d.intern(b"a");
        let b = d.intern(b"b");
        d.set_now(9);
        assert_eq!(d.intern(b"b"), b, "a later use restamps");
        assert_eq!(d.sweep(5), 0, "used at 5 is not before 5");
        assert_eq!(d.sweep(6), 1);
        assert_eq!(d.lookup(b"a"), None);
        assert_eq!(d.lookup(b"b"), Some(b));
        assert_eq!(d.len(), 1);
        assert_eq!(d.string_bytes(), 1);
        assert_eq!(d.sweep(6), 0, "a freed entry is not freed twice");
        let c = d.intern(b"cc");
        assert_eq!(c, a, "freed id is reused");
        assert_eq!(d.get(c), b"cc");
        assert_eq!(d.sweep(9), 0, "the reused entry carries the new stamp");
    }

    #[test]
    fn pinned_strings_survive_sweeps_until_released() {
        let mut d = Dictionary::new(10);
        let a = d.pin(b"country");
        assert_eq!(d.pin(b"country"), a);
        assert_eq!(d.pins(a), 2);
        d.set_now(100);
        assert_eq!(d.sweep(50), 0);
        d.release(a);
        assert_eq!(d.sweep(50), 0, "one pin left");
        d.release(a);
        d.release(a); // one too many: harmless
        assert_eq!(d.sweep(50), 1);
        assert_eq!(d.lookup(b"country"), None);
    }

    /// Eviction frees the bytes of strings neither pinned, referenced nor used lately, takes them
    /// out of the table (interned again they get a new id), shows their ids as LOST_TEXT, leaves
    /// them out of `live` (a snapshot), and keeps their ids from reuse until the sweep.
    #[test]
    fn evicted_strings_free_their_bytes_and_keep_their_ids_until_the_sweep() {
        let mut d = Dictionary::new(100);
        d.set_now(5);
        let pinned = d.pin(b"country");
        let held = d.intern(b"/held");
        let cold = d.intern(b"/flood/1");
        let cold2 = d.intern(b"/flood/2");
        d.set_now(9);
        let recent = d.intern(b"/recent");
        let mut referenced = vec![0u64; d.id_bound().div_ceil(64)];
        referenced[held as usize / 64] |= 1 << (held % 64);
        let (len, bytes) = (d.len(), d.string_bytes());
        assert_eq!(d.evict_unreferenced(&referenced, 9), 2);
        assert_eq!(d.evicted(), 2);
        assert_eq!(d.len(), len - 2);
        assert_eq!(d.string_bytes(), bytes - 16);
        assert_eq!(d.get(cold), LOST_TEXT);
        assert_eq!(d.get(held), b"/held");
        assert_eq!(d.get(pinned), b"country");
        assert_eq!(d.get(recent), b"/recent");
        assert_eq!(d.lookup(b"/flood/1"), None);
        assert!(d.live().all(|(id, _, _)| id != cold && id != cold2));
        assert_eq!(d.evict_unreferenced(&referenced, 9), 0, "not evicted twice");
        d.release(cold); // a stray release leaves the mark
        assert_eq!(d.get(cold), LOST_TEXT);
        // Interned again: a new id, not the evicted one, which no new string takes before the
        // sweep.
        let again = d.intern(b"/flood/1");
        assert!(again != cold && again != cold2 && again != LOST);
        assert_eq!(d.get(again), b"/flood/1");
        assert_eq!(d.sweep(6), 3, "the sweep frees the evicted ids, and /held");
        assert_eq!(d.evicted(), 0);
        assert_eq!(d.len(), 3, "country, /recent, /flood/1 again");
        let reused = [d.intern(b"x"), d.intern(b"y"), d.intern(b"z")];
        for id in [cold, cold2, held] {
            assert!(
                reused.contains(&id),
                "{id} reused after the sweep: {reused:?}"
            );
        }
    }

    #[test]
    fn full_dictionary_gives_lost_and_counts() {
        let mut d = Dictionary::new(2);
        let a = d.intern(b"a");
        d.intern(b"b");
        assert_eq!(d.intern(b"c"), LOST);
        assert_eq!(d.pin(b"c"), LOST);
        assert_eq!(d.lost(), 2);
        assert_eq!(d.get(LOST), LOST_TEXT);
        assert_eq!(d.intern(b"a"), a, "existing strings still intern when full");
        d.release(LOST); // harmless
        d.set_now(1);
        d.sweep(u32::MAX - 1);
        assert_eq!(d.get(LOST), LOST_TEXT, "LOST is never swept");
    }

    #[test]
    fn the_byte_bound_holds() {
        let mut d = Dictionary::new(1_000_000).with_max_bytes(64 << 10);
        let mut lost = 0;
        for i in 0..10_000 {
            if d.intern(format!("/a/rather/long/url/{i:0>40}").as_bytes()) == LOST {
                lost += 1;
            }
            assert!(d.bytes() <= 64 << 10, "{}", d.bytes());
        }
        assert!(lost > 0 && d.lost() == lost);
        assert!(d.len() > 100, "{}", d.len());
    }

    #[test]
    fn the_table_shrinks_after_a_burst() {
        let mut d = Dictionary::new(1_000_000);
        for i in 0..100_000 {
            d.intern(format!("/{i}").as_bytes());
        }
        let (peak, peak_table) = (d.bytes(), d.table.capacity());
        d.set_now(10);
        assert_eq!(d.sweep(10), 100_000);
        assert_eq!(d.len(), 0);
        assert_eq!(d.string_bytes(), 0);
        assert!(
            d.table.capacity() <= peak_table / 8,
            "{}",
            d.table.capacity()
        );
        // The entry slots stay (ids index them; freed ones are reused): 24 B per slot.
        assert!(d.bytes() < peak, "{} of {peak}", d.bytes());
        let a = d.intern(b"again");
        assert_eq!(d.lookup(b"again"), Some(a));
    }

    #[test]
    fn unique_urls_do_not_grow_memory() {
        let mut d = Dictionary::new(1_000);
        for i in 0..100_000u32 {
            d.set_now(i);
            d.intern(format!("/u/{i}").as_bytes());
            d.sweep(i.saturating_sub(10));
        }
        assert!(d.len() <= 11, "{}", d.len());
        assert!(d.entries.len() <= 13, "{}", d.entries.len());
        assert_eq!(d.lost(), 0);
    }

    /// Counted against a budget: what it holds is settled into it; while the budget is tight a
    /// new string is refused (LOST, counted as the budget's, not as `lost`), strings it has are
    /// still found; and a table that would double past the budget does not.
    #[test]
    fn a_tight_budget_refuses_new_strings() {
        let budget = crate::budget::Budget::new(64 << 20);
        let mut d = Dictionary::new(1_000_000).with_budget(budget.clone());
        let a = d.intern(b"/a");
        d.settle_memory();
        assert!(budget.used() > 0 && budget.used() == d.account.accounted());
        budget.judge();
        assert!(!budget.tight());
        let filler = crate::budget::Account::new(budget.clone());
        filler.settle(63 << 20);
        assert!(budget.judge());
        assert_eq!(d.intern(b"/new"), LOST);
        assert_eq!((budget.names_refused(), d.lost()), (1, 0));
        assert_eq!(d.intern(b"/a"), a);
        filler.settle(0);
        assert!(!budget.judge());
        assert_ne!(d.intern(b"/new"), LOST);
        // Room for the strings, not for the table to double: refused at the doubling.
        let small = crate::budget::Budget::new(8 << 20);
        let mut d = Dictionary::new(10_000_000).with_budget(small.clone());
        let mut refused = None;
        for i in 0..1_000_000u32 {
            if d.intern(format!("/s/{i}").as_bytes()) == LOST {
                refused = Some(i);
                break;
            }
            if i % 1024 == 0 {
                d.settle_memory();
            }
        }
        assert!(refused.is_some(), "refused before a million strings");
        d.settle_memory();
        assert!(
            small.used() <= small.tight_at(),
            "{} of {}",
            small.used(),
            small.limit()
        );
        drop(d);
        assert_eq!(small.used(), 0, "dropped, its share leaves the budget");
    }
}
