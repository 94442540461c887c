//! The main pool: the last `stats_history` seconds of requests, in fixed-capacity cyclic rings.
//!
//! In: interned requests from the merger ([`Pool::insert`]), and the merger's clock for
//! [`Pool::expire`]. Out: [`RequestView`]s for reports and the raw-data API.
//!
//! Three rings are allocated once at start-up and never re-allocated (the Pinba design): requests
//! (`request_pool_size` × 64 B), timers (`timer_pool_size` × 20 B) and tag pairs (`tag_pool_size`
//! × 8 B). A request's timers and its tag block are each one contiguous run of their ring (an
//! allocation that does not fit before the end of a ring starts again at 0), so a view is plain
//! slices. Allocation is FIFO: when any ring is full, the oldest requests are evicted.
//!
//! Every request leaves through one path, [`Pool::remove_oldest`]'s callback, whether it expired or
//! was overwritten: that is where the merger subtracts it from every report and releases its
//! dictionary references. Pure: time is an argument, no I/O, no locks (the app wraps it in one).

use crate::record::{Record, RequestView, TagPair, Timer};

/// Why a request left the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// Older than `stats_history`.
    Expired,
    /// Evicted to make room for a newer request (a ring was full).
    Overwritten,
}

/// A FIFO allocator of contiguous runs over a ring of `cap` slots. Knows nothing of what is stored.
#[derive(Debug)]
struct RingAlloc {
    cap: usize,
    /// Start of the oldest live run.
    head: usize,
    /// Where the next run starts if it fits before the end.
    tail: usize,
    /// Slots between head and tail, including any skipped end-of-ring gap.
    used: usize,
}

impl RingAlloc {
    fn new(cap: usize) -> RingAlloc {
        RingAlloc {
            cap,
            head: 0,
            tail: 0,
            used: 0,
        }
    }

    /// Reserves `n` contiguous slots, or `None` if the oldest runs must go first. `n <= cap`.
    fn alloc(&mut self, n: usize) -> Option<usize> {
        if n == 0 {
            return Some(self.tail);
        }
        if self.used == 0 {
            self.head = 0;
            self.tail = 0;
        }
        let full = self.used == self.cap;
        let start = if full {
            return None;
        } else if self.tail >= self.head {
            if self.cap - self.tail >= n {
                self.tail
            } else if self.head >= n {
                // Skip the gap at the end of the ring; it is freed with the run that follows it.
                self.used += self.cap - self.tail;
                0
            } else {
                return None;
            }
        } else if self.head - self.tail >= n {
            self.tail
        } else {
            return None;
        };
        self.used += n;
        self.tail = (start + n) % self.cap;
        Some(start)
    }

    /// Frees the oldest live run, which is `n` slots at `start`.
    fn free(&mut self, start: usize, n: usize) {
        if n == 0 {
            return;
        }
        let end = start + n;
        let freed = if start >= self.head {
            end - self.head
        } else {
            self.cap - self.head + end
        };
        self.used = self.used.saturating_sub(freed);
        self.head = end % self.cap;
    }
}

/// Plain-data ring slots that are valid when all-zero (only integers and floats).
///
/// # Safety
/// Implement only for types whose every field is an integer or a float.
unsafe trait ZeroValid: Copy {}
// SAFETY: `Record`, `Timer` and `TagPair` are `#[repr(C)]` structs of u32, u16 and f32 only.
unsafe impl ZeroValid for Record {}
// SAFETY: as above.
unsafe impl ZeroValid for Timer {}
// SAFETY: as above.
unsafe impl ZeroValid for TagPair {}

/// A ring of `n` zeroed slots. Zeroed memory comes from the kernel untouched (calloc), so a ring
/// only costs resident memory as it fills, instead of all of it at start-up; it is still
/// allocated once and never re-allocated.
///
/// `None` when the memory cannot be had (a size the configuration allowed but this machine's
/// memory and overcommit policy do not): the caller names the setting, where the global
/// allocator's failure aborted the process with a backtrace.
fn zeroed_ring<T: ZeroValid>(n: usize) -> Option<Box<[T]>> {
    let layout = std::alloc::Layout::array::<T>(n).ok()?;
    if layout.size() == 0 {
        let slots = Box::<[T]>::new_zeroed_slice(n);
        // SAFETY: all-zero bytes are a valid `T` (the `ZeroValid` contract).
        return Some(unsafe { slots.assume_init() });
    }
    // SAFETY: the layout has a non-zero size; a null result is handled.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` holds `n` zeroed `T`s (a valid `T`: `ZeroValid`), allocated by the global
    // allocator with the layout of `[T; n]`, as a `Box<[T]>` frees it.
    Some(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)) })
}

/// The most entries one request may take in a ring of `ring` entries: 1/64 of it (or, in rings
/// smaller than 4,096, up to 64 entries). A request with more timers or tags than that keeps its
/// fields and request tags but loses its timers (`timers_lost`), so that one datagram can never
/// evict a large part of the pool.
pub fn share_of(ring: usize) -> usize {
    (ring / 64).max(ring.min(64))
}

/// The pool of recent requests. See the module docs.
pub struct Pool {
    records: Box<[Record]>,
    timers: Box<[Timer]>,
    tags: Box<[TagPair]>,
    timer_alloc: RingAlloc,
    tag_alloc: RingAlloc,
    /// Sequence number the next inserted request gets; live requests are `next_id - len .. next_id`.
    next_id: u64,
    len: usize,
    /// Live timer and tag slots (without gaps), for status.
    timers_used: usize,
    tags_used: usize,
}

/// What one inserted request lost to a ring too small to hold it at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InsertLoss {
    pub timers: usize,
}

impl Pool {
    /// Allocates all three rings now (each at least 1 slot). Panics when the memory cannot be
    /// had (tests and benches); the daemon uses [`Pool::try_new`].
    pub fn new(requests: usize, timers: usize, tags: usize) -> Pool {
        Pool::try_new(requests, timers, tags)
            .unwrap_or_else(|ring| panic!("cannot allocate the pool's {ring} ring"))
    }

    /// [`Pool::new`], or the name of the first ring whose memory cannot be had (`requests`,
    /// `timers` or `tags`).
    pub fn try_new(requests: usize, timers: usize, tags: usize) -> Result<Pool, &'static str> {
        let (requests, timers, tags) = (requests.max(1), timers.max(1), tags.max(1));
        Ok(Pool {
            records: zeroed_ring(requests).ok_or("requests")?,
            timers: zeroed_ring(timers).ok_or("timers")?,
            tags: zeroed_ring(tags).ok_or("tags")?,
            timer_alloc: RingAlloc::new(timers),
            tag_alloc: RingAlloc::new(tags),
            next_id: 0,
            len: 0,
            timers_used: 0,
            tags_used: 0,
        })
    }

    pub fn capacity(&self) -> usize {
        self.records.len()
    }
    pub fn timer_capacity(&self) -> usize {
        self.timers.len()
    }
    pub fn tag_capacity(&self) -> usize {
        self.tags.len()
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn timers_used(&self) -> usize {
        self.timers_used
    }
    pub fn tags_used(&self) -> usize {
        self.tags_used
    }
    /// Id of the oldest live request (== `next_id()` when empty).
    pub fn oldest_id(&self) -> u64 {
        self.next_id - self.len as u64
    }
    /// Id the next inserted request will get.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// Makes the next inserted request's id `next_id`, so that a pool restored from a snapshot
    /// keeps the ids it had. Only while empty (ids are consecutive); ignored otherwise.
    pub fn resume_ids(&mut self, next_id: u64) {
        if self.len == 0 {
            self.next_id = next_id;
        }
    }

    /// Bytes held by the three rings (fixed from start-up).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.records)
            + std::mem::size_of_val(&*self.timers)
            + std::mem::size_of_val(&*self.tags)
    }

    /// Stores one request (see [`share_of`] for what one request may take): `record`'s `timer_start`, `tag_start` and `timer_count` are set here;
    /// `record.tag_count` says how many of `tag_block` are request tags (the rest are the timers'
    /// tags, `Timer::tag_count` each). Evicts the oldest requests through `on_remove` as needed.
    /// Returns the new request's id and what could not be kept (a request whose timers or tags
    /// exceed a whole ring keeps none of its timers).
    pub fn insert(
        &mut self,
        mut record: Record,
        timers: &[Timer],
        tag_block: &[TagPair],
        on_remove: &mut dyn FnMut(RequestView<'_>, Removal),
    ) -> (u64, InsertLoss) {
        let mut loss = InsertLoss::default();
        let (mut timers, mut tag_block) = (timers, tag_block);
        if timers.len() > share_of(self.timers.len())
            || timers.len() > u16::MAX as usize
            || tag_block.len() > share_of(self.tags.len())
        {
            loss.timers = timers.len();
            timers = &[];
            let request_tags = (record.tag_count as usize).min(self.tags.len());
            tag_block = &tag_block[..request_tags.min(tag_block.len())];
            record.tag_count = tag_block.len() as u16;
        }
        while self.len == self.records.len() {
            self.remove_oldest(1, Removal::Overwritten, on_remove);
        }
        let timer_start = loop {
            match self.timer_alloc.alloc(timers.len()) {
                Some(at) => break at,
                None => self.remove_oldest(1, Removal::Overwritten, on_remove),
            }
        };
        let tag_start = loop {
            match self.tag_alloc.alloc(tag_block.len()) {
                Some(at) => break at,
                None => self.remove_oldest(1, Removal::Overwritten, on_remove),
            }
        };
        self.timers[timer_start..timer_start + timers.len()].copy_from_slice(timers);
        self.tags[tag_start..tag_start + tag_block.len()].copy_from_slice(tag_block);
        self.timers_used += timers.len();
        self.tags_used += tag_block.len();
        record.timer_start = timer_start as u32;
        record.tag_start = tag_start as u32;
        record.timer_count = timers.len() as u16;
        let id = self.next_id;
        let slot = (id % self.records.len() as u64) as usize;
        self.records[slot] = record;
        self.next_id += 1;
        self.len += 1;
        (id, loss)
    }

    /// Removes the `n` oldest requests (fewer if the pool holds fewer), each through `on_remove`
    /// before its slots can be reused. The one path out of the pool.
    pub fn remove_oldest(
        &mut self,
        n: usize,
        why: Removal,
        on_remove: &mut dyn FnMut(RequestView<'_>, Removal),
    ) {
        for _ in 0..n.min(self.len) {
            let id = self.oldest_id();
            let view = self.view_at(id);
            let (timer_start, timer_count, tag_start, tag_len) = (
                view.record.timer_start as usize,
                view.timers.len(),
                view.record.tag_start as usize,
                view.tag_block.len(),
            );
            on_remove(view, why);
            self.timer_alloc.free(timer_start, timer_count);
            self.tag_alloc.free(tag_start, tag_len);
            self.timers_used -= timer_count;
            self.tags_used -= tag_len;
            self.len -= 1;
        }
    }

    /// How many of the oldest requests are at least `history_ms` old at `now_ms`.
    pub fn count_expired(&self, now_ms: u32, history_ms: u32) -> usize {
        // Requests are in time order, so the expired ones are a prefix: binary search it.
        let (mut lo, mut hi) = (0usize, self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let rec = self.record_at(self.oldest_id() + mid as u64);
            if now_ms.wrapping_sub(rec.time_ms) >= history_ms {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Removes every request at least `history_ms` old at `now_ms`. Returns how many.
    pub fn expire(
        &mut self,
        now_ms: u32,
        history_ms: u32,
        on_remove: &mut dyn FnMut(RequestView<'_>, Removal),
    ) -> usize {
        let n = self.count_expired(now_ms, history_ms);
        self.remove_oldest(n, Removal::Expired, on_remove);
        n
    }

    /// Time of the oldest live request, if any.
    pub fn oldest_time_ms(&self) -> Option<u32> {
        (self.len > 0).then(|| self.record_at(self.oldest_id()).time_ms)
    }

    /// The live request `id`, if it is still in the pool.
    pub fn get(&self, id: u64) -> Option<RequestView<'_>> {
        (id >= self.oldest_id() && id < self.next_id).then(|| self.view_at(id))
    }

    /// The live request `id`'s record alone (its timers and tags not looked at), if it is still
    /// in the pool: what a scan that reads no timer or tag needs.
    pub fn record(&self, id: u64) -> Option<&Record> {
        (id >= self.oldest_id() && id < self.next_id).then(|| self.record_at(id))
    }

    /// Live requests, newest first.
    pub fn iter_newest_first(&self) -> impl Iterator<Item = RequestView<'_>> + '_ {
        (self.oldest_id()..self.next_id)
            .rev()
            .map(move |id| self.view_at(id))
    }

    /// Live requests, oldest first (the order reports were fed in).
    pub fn iter_oldest_first(&self) -> impl Iterator<Item = RequestView<'_>> + '_ {
        (self.oldest_id()..self.next_id).map(move |id| self.view_at(id))
    }

    fn record_at(&self, id: u64) -> &Record {
        &self.records[(id % self.records.len() as u64) as usize]
    }

    fn view_at(&self, id: u64) -> RequestView<'_> {
        let record = self.record_at(id);
        let ts = record.timer_start as usize;
        let timers = &self.timers[ts..ts + record.timer_count as usize];
        let tag_len =
            record.tag_count as usize + timers.iter().map(|t| t.tag_count as usize).sum::<usize>();
        let gs = record.tag_start as usize;
        RequestView {
            id,
            record,
            tag_block: &self.tags[gs..gs + tag_len],
            timers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn req(
        time_ms: u32,
        script: u32,
        request_tags: &[(u32, u32)],
        timers: &[(u32, &[(u32, u32)])],
    ) -> (Record, Vec<Timer>, Vec<TagPair>) {
        let mut block: Vec<TagPair> = request_tags
            .iter()
            .map(|&(name, value)| TagPair { name, value })
            .collect();
        let mut ts = Vec::new();
        for (hits, tags) in timers {
            ts.push(Timer {
                value: 0.1,
                hit_count: *hits,
                tag_count: tags.len() as u16,
                ..Default::default()
            });
            block.extend(tags.iter().map(|&(name, value)| TagPair { name, value }));
        }
        let record = Record {
            time_ms,
            script_name: script,
            tag_count: request_tags.len() as u16,
            ..Default::default()
        };
        (record, ts, block)
    }

    fn insert(
        pool: &mut Pool,
        r: (Record, Vec<Timer>, Vec<TagPair>),
        removed: &mut Vec<(u64, Removal)>,
    ) -> u64 {
        pool.insert(r.0, &r.1, &r.2, &mut |v, why| removed.push((v.id, why)))
            .0
    }

    #[test]
    fn rings_that_cannot_be_allocated_are_named() {
        assert_eq!(Pool::try_new(usize::MAX / 2, 1, 1).err(), Some("requests"));
        assert_eq!(Pool::try_new(1, usize::MAX / 2, 1).err(), Some("timers"));
        assert_eq!(Pool::try_new(1, 1, usize::MAX / 2).err(), Some("tags"));
        assert!(Pool::try_new(10, 10, 10).is_ok());
    }

    #[test]
    fn rings_start_zeroed() {
        let pool = Pool::new(3, 3, 3);
        assert!(pool.records.iter().all(|r| *r == Record::default()));
        assert!(pool.timers.iter().all(|t| *t == Timer::default()));
        assert!(pool.tags.iter().all(|t| *t == TagPair::default()));
    }

    #[test]
    fn views_round_trip() {
        let mut pool = Pool::new(4, 10, 10);
        let mut removed = vec![];
        let id = insert(
            &mut pool,
            req(5, 7, &[(1, 2)], &[(3, &[(4, 5), (6, 7)]), (1, &[])]),
            &mut removed,
        );
        let v = pool.get(id).unwrap();
        assert_eq!(v.record.script_name, 7);
        assert_eq!(v.tags(), &[TagPair { name: 1, value: 2 }]);
        let timers: Vec<_> = v
            .timers_with_tags()
            .map(|(t, tags)| (t.hit_count, tags.to_vec()))
            .collect();
        assert_eq!(
            timers,
            vec![
                (
                    3,
                    vec![TagPair { name: 4, value: 5 }, TagPair { name: 6, value: 7 }]
                ),
                (1, vec![])
            ]
        );
        assert!(removed.is_empty());
    }

    #[test]
    fn full_request_ring_overwrites_oldest_first() {
        let mut pool = Pool::new(3, 100, 100);
        let mut removed = vec![];
        for i in 0..5 {
            insert(&mut pool, req(i, i, &[], &[]), &mut removed);
        }
        assert_eq!(
            removed,
            vec![(0, Removal::Overwritten), (1, Removal::Overwritten)]
        );
        let scripts: Vec<u32> = pool
            .iter_newest_first()
            .map(|v| v.record.script_name)
            .collect();
        assert_eq!(scripts, vec![4, 3, 2]);
    }

    #[test]
    fn full_timer_ring_evicts_and_wraps_contiguously() {
        let mut pool = Pool::new(100, 5, 100);
        let mut removed = vec![];
        insert(
            &mut pool,
            req(0, 0, &[], &[(1, &[]), (1, &[])]),
            &mut removed,
        ); // timers 0..2
        insert(
            &mut pool,
            req(0, 1, &[], &[(1, &[]), (1, &[])]),
            &mut removed,
        ); // 2..4
        insert(
            &mut pool,
            req(0, 2, &[], &[(1, &[]), (1, &[])]),
            &mut removed,
        ); // needs wrap: evicts 0
        assert_eq!(removed, vec![(0, Removal::Overwritten)]);
        let v = pool.get(2).unwrap();
        assert_eq!(v.record.timer_start, 0);
        assert_eq!(pool.timers_used(), 4);
    }

    #[test]
    fn expire_removes_exactly_the_old_prefix() {
        let mut pool = Pool::new(10, 10, 10);
        let mut removed = vec![];
        for t in [0, 100, 200, 300] {
            insert(&mut pool, req(t, t, &[], &[]), &mut removed);
        }
        assert_eq!(pool.count_expired(350, 200), 2);
        let n = pool.expire(350, 200, &mut |v, why| removed.push((v.id, why)));
        assert_eq!(n, 2);
        assert_eq!(removed, vec![(0, Removal::Expired), (1, Removal::Expired)]);
        assert_eq!(pool.oldest_time_ms(), Some(200));
        // Clock wrap-around: ages use wrapping arithmetic.
        let mut pool = Pool::new(10, 10, 10);
        insert(&mut pool, req(u32::MAX - 10, 0, &[], &[]), &mut removed);
        assert_eq!(pool.count_expired(5, 100), 0);
        assert_eq!(pool.count_expired(100, 100), 1);
    }

    #[test]
    fn oversized_request_keeps_fields_and_request_tags() {
        let mut pool = Pool::new(10, 2, 10);
        let r = req(0, 9, &[(1, 1)], &[(1, &[]), (1, &[]), (1, &[])]);
        let (id, loss) = pool.insert(r.0, &r.1, &r.2, &mut |_, _| {});
        assert_eq!(loss.timers, 3);
        let v = pool.get(id).unwrap();
        assert_eq!(
            (v.timers.len(), v.tags().len(), v.record.script_name),
            (0, 1, 9)
        );
    }

    proptest! {
        /// Whatever the sizes, the pool never holds more than its rings, every view is intact,
        /// removals come oldest first, and emptying it frees every slot.
        #[test]
        fn rings_stay_consistent(reqs in proptest::collection::vec((0usize..4, 0usize..3, 0usize..3), 1..200), cap in 1usize..8, tcap in 3usize..12, gcap in 6usize..20) {
            let mut pool = Pool::new(cap, tcap, gcap);
            let mut last_removed: Option<u64> = None;
            for (i, (ntimers, ntags_per_timer, nreq_tags)) in reqs.iter().enumerate() {
                let timers: Vec<(u32, Vec<(u32, u32)>)> = (0..*ntimers).map(|t| (1, (0..*ntags_per_timer).map(|g| (t as u32, g as u32)).collect())).collect();
                let timers_ref: Vec<(u32, &[(u32, u32)])> = timers.iter().map(|(h, t)| (*h, t.as_slice())).collect();
                let rtags: Vec<(u32, u32)> = (0..*nreq_tags).map(|g| (100, g as u32)).collect();
                let r = req(i as u32, i as u32, &rtags, &timers_ref);
                let want_timers = if r.1.len() <= tcap && r.2.len() <= gcap { r.1.len() } else { 0 };
                let (id, _) = pool.insert(r.0, &r.1, &r.2, &mut |v, _| {
                    if let Some(prev) = last_removed { assert_eq!(v.id, prev + 1); }
                    last_removed = Some(v.id);
                });
                let v = pool.get(id).unwrap();
                prop_assert_eq!(v.record.script_name, i as u32);
                prop_assert_eq!(v.timers.len(), want_timers);
                for (t, tags) in v.timers_with_tags() {
                    prop_assert_eq!(t.tag_count as usize, tags.len());
                }
                prop_assert!(pool.len() <= cap && pool.timers_used() <= tcap && pool.tags_used() <= gcap);
                // Every live view still reads back what was written.
                for v in pool.iter_oldest_first() {
                    prop_assert_eq!(v.record.script_name as u64, v.id);
                    prop_assert_eq!(v.tags().len(), reqs[v.id as usize].2.min(gcap));
                }
            }
            pool.remove_oldest(usize::MAX, Removal::Expired, &mut |_, _| {});
            prop_assert_eq!((pool.len(), pool.timers_used(), pool.tags_used()), (0, 0, 0));
        }
    }
}
