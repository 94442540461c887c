//! The data that flows between stages, in the two shapes it takes.
//!
//! - [`Batch`]: what a receiver thread fills from decoded datagrams and hands to the merger
//!   through the temp ring. Strings are still bytes (spans into the batch's own copy of the
//!   datagrams), dictionary indices are still the datagram's own. Filling it never allocates once
//!   the batch has been used a few times (batches are recycled through the ring's free list).
//! - [`Record`], [`Timer`], [`TagPair`]: the compact form the main pool stores, with every string
//!   interned to a dictionary id. Sizes are part of the contract (docs/ARCHITECTURE.md): 64 B per
//!   request, ≤ 24 B per timer, 8 B per tag pair; `tests::sizes` prints and checks them.
//! - [`RequestView`]: a borrowed look at one pooled request with its tags and timers, which is all
//!   that reports and the raw-data API ever see of the pool.

/// A `start, len` window into one of the vectors of a [`Batch`] (bytes, dictionary, tags, timers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub fn new(start: usize, len: usize) -> Span {
        Span {
            start: start as u32,
            len: len as u32,
        }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// A `(name, value)` pair of indices into the owning request's dictionary (`WireRequest::dictionary`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TagIndexPair {
    pub name: u32,
    pub value: u32,
}

/// One accepted request as decoded, before interning. Every index range points into the vectors of
/// the [`Batch`] that holds it; `tags` and timer tags index into `dictionary` (0-based, checked).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WireRequest {
    pub hostname: Span,
    pub server_name: Span,
    pub script_name: Span,
    /// `None` when field 19 was absent (rendered as `null`), `Some` (maybe empty) when present.
    pub schema: Option<Span>,
    pub request_count: u32,
    pub document_size: u32,
    pub memory_peak: u32,
    pub memory_footprint: u32,
    pub status: u32,
    pub request_time: f32,
    pub ru_utime: f32,
    pub ru_stime: f32,
    /// Into `Batch::dictionary`: this request's own string table (nested children have their own).
    pub dictionary: Span,
    /// Into `Batch::tags`: request tags in wire order.
    pub tags: Span,
    /// Into `Batch::timers`: kept timers (hit_count 0 already skipped) in wire order.
    pub timers: Span,
}

/// One kept timer as decoded. Times are seconds, clamped to ≥ 0 and finite.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WireTimer {
    pub hit_count: u32,
    /// Total seconds over `hit_count` runs.
    pub value: f32,
    pub ru_utime: f32,
    pub ru_stime: f32,
    /// Into `Batch::timer_tags`, in wire order.
    pub tags: Span,
}

/// Decoded requests of one or more datagrams (or, [`Batch::raw`], the datagrams themselves),
/// waiting to be merged. Owned by one receiver while it fills it, then by the merger; never
/// shared.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Copies of the datagram bytes the spans point into.
    pub bytes: Vec<u8>,
    pub requests: Vec<WireRequest>,
    /// Spans into `bytes`, one per dictionary entry (field 15) of each request.
    pub dictionary: Vec<Span>,
    pub tags: Vec<TagIndexPair>,
    pub timers: Vec<WireTimer>,
    pub timer_tags: Vec<TagIndexPair>,
    /// Where each datagram's (v0) payload sits in `bytes`, in order (in a raw batch, each
    /// datagram as received): what a batch left unmerged at shutdown is saved as (`pending`).
    pub payloads: Vec<Span>,
    /// The datagrams are stored as received, not decoded: `bytes` and `payloads` alone, one
    /// datagram each ([`Batch::push_raw`]). What receivers fill while no merger runs (start-up's
    /// restore, shutdown's snapshot), when queued batches must take the least memory; the merger
    /// decodes them when it takes them.
    pub raw: bool,
    /// The requests interned by the receiver that filled the batch (see `intern`), ready for the
    /// pool; empty and not `done` when the merger is to intern them (a raw batch, a batch made
    /// by a test or a bench).
    pub interned: InternedRequests,
}

/// One interned request: its pool record, and where its timers and its tag block sit in the
/// [`InternedRequests`] that holds it.
#[derive(Clone, Debug, Default)]
pub struct InternedRequest {
    pub record: Record,
    pub timers: std::ops::Range<usize>,
    pub tags: std::ops::Range<usize>,
}

/// Interned requests waiting to be stored in the pool, in the order received; every string an
/// id in the shared dictionary.
#[derive(Clone, Debug, Default)]
pub struct InternedRequests {
    pub requests: Vec<InternedRequest>,
    pub timers: Vec<Timer>,
    pub tags: Vec<TagPair>,
    /// Every request of the batch holding these has been interned (a `[[rewrite]]` rule may have
    /// dropped some: then there are fewer here than it decoded).
    pub done: bool,
}

impl InternedRequests {
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    pub fn clear(&mut self) {
        self.requests.clear();
        self.timers.clear();
        self.tags.clear();
        self.done = false;
    }

    /// Elements held and allocated, in bytes, counting `pick(len, capacity)` of each vector.
    fn sum_bytes(&self, pick: fn(usize, usize) -> usize) -> usize {
        use std::mem::size_of;
        pick(self.requests.len(), self.requests.capacity()) * size_of::<InternedRequest>()
            + pick(self.timers.len(), self.timers.capacity()) * size_of::<Timer>()
            + pick(self.tags.len(), self.tags.capacity()) * size_of::<TagPair>()
    }

    fn shrink_by(&mut self, k: usize) {
        self.requests.shrink_to(self.requests.capacity() / k);
        self.timers.shrink_to(self.timers.capacity() / k);
        self.tags.shrink_to(self.tags.capacity() / k);
    }
}

impl Batch {
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.requests.clear();
        self.dictionary.clear();
        self.tags.clear();
        self.timers.clear();
        self.timer_tags.clear();
        self.payloads.clear();
        self.raw = false;
        self.interned.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Requests held; in a raw batch, datagrams (a PHP datagram is one request).
    pub fn len(&self) -> usize {
        if self.raw {
            self.payloads.len()
        } else {
            self.requests.len()
        }
    }

    /// Stores `datagram` undecoded in a raw batch.
    pub fn push_raw(&mut self, datagram: &[u8]) {
        debug_assert!(self.raw);
        self.payloads
            .push(Span::new(self.bytes.len(), datagram.len()));
        self.bytes.extend_from_slice(datagram);
    }

    /// Heap bytes this batch holds: the capacity of every vector, not just what is used, since
    /// that is what the allocator gave it. The temp ring bounds the sum of these.
    pub fn memory_bytes(&self) -> usize {
        self.sum_bytes(|_, capacity| capacity)
    }

    /// Bytes this batch's contents take (lengths, not capacities): what the receiver checks to
    /// decide when a batch is full. A recycled batch keeps its capacity, so capacity would call
    /// an empty batch full.
    pub fn used_bytes(&self) -> usize {
        self.sum_bytes(|len, _| len)
    }

    /// Bytes of every vector, counting `pick(len, capacity)` elements of each.
    fn sum_bytes(&self, pick: fn(usize, usize) -> usize) -> usize {
        use std::mem::size_of;
        let n = |len: usize, capacity: usize, size: usize| pick(len, capacity) * size;
        n(self.bytes.len(), self.bytes.capacity(), 1)
            + n(
                self.requests.len(),
                self.requests.capacity(),
                size_of::<WireRequest>(),
            )
            + n(
                self.dictionary.len(),
                self.dictionary.capacity(),
                size_of::<Span>(),
            )
            + n(
                self.tags.len(),
                self.tags.capacity(),
                size_of::<TagIndexPair>(),
            )
            + n(
                self.timers.len(),
                self.timers.capacity(),
                size_of::<WireTimer>(),
            )
            + n(
                self.timer_tags.len(),
                self.timer_tags.capacity(),
                size_of::<TagIndexPair>(),
            )
            + n(
                self.payloads.len(),
                self.payloads.capacity(),
                size_of::<Span>(),
            )
            + self.interned.sum_bytes(pick)
    }

    /// Empties the batch and, if a burst made it hold more than `keep_bytes`, gives the excess
    /// back (a recycled batch keeps an ordinary batch's capacity, not a flood's): each vector
    /// shrinks in proportion, to `keep_bytes` in all. Not to nothing: at 100k/s a batch's fill
    /// varies several-fold with the receiver's wake-ups, and a batch emptied whole was regrown by
    /// the receiver, realloc by realloc (~40 per batch), each time a large fill had taken it
    /// past the bound (the receiver's allocations were ~2 % of its CPU in a profile).
    pub fn clear_and_trim(&mut self, keep_bytes: usize) {
        let held = self.memory_bytes();
        self.clear();
        if held > keep_bytes {
            let k = held.div_ceil(keep_bytes.max(1));
            self.bytes.shrink_to(self.bytes.capacity() / k);
            self.requests.shrink_to(self.requests.capacity() / k);
            self.dictionary.shrink_to(self.dictionary.capacity() / k);
            self.tags.shrink_to(self.tags.capacity() / k);
            self.timers.shrink_to(self.timers.capacity() / k);
            self.timer_tags.shrink_to(self.timer_tags.capacity() / k);
            self.payloads.shrink_to(self.payloads.capacity() / k);
            self.interned.shrink_by(k);
        }
    }

    /// The bytes behind a string span.
    pub fn bytes_of(&self, span: Span) -> &[u8] {
        &self.bytes[span.range()]
    }

    /// Entry `index` of `request`'s dictionary (the decoder has checked every index it kept).
    pub fn dictionary_entry(&self, request: &WireRequest, index: u32) -> &[u8] {
        let span = self.dictionary[request.dictionary.start as usize + index as usize];
        self.bytes_of(span)
    }

    /// Each decoded datagram's payload (a `Pinba.Request`, uncompressed), or in a raw batch each
    /// datagram as received, in the order received.
    pub fn payloads(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.payloads.iter().map(|&span| self.bytes_of(span))
    }

    pub fn tags_of(&self, request: &WireRequest) -> &[TagIndexPair] {
        &self.tags[request.tags.range()]
    }

    pub fn timers_of(&self, request: &WireRequest) -> &[WireTimer] {
        &self.timers[request.timers.range()]
    }

    pub fn timer_tags_of(&self, timer: &WireTimer) -> &[TagIndexPair] {
        &self.timer_tags[timer.tags.range()]
    }
}

/// Dictionary id meaning "schema field absent" (rendered as `null`). Never a real entry.
pub const NO_SCHEMA: u32 = u32::MAX;

/// One pooled request: 64 bytes, every string an id in the shared dictionary.
///
/// Its timers are `Pool::timers[timer_start .. timer_start + timer_count]`; its tags are a
/// contiguous block of the tag ring starting at `tag_start`: first its `tag_count` request tags,
/// then the tags of each timer in timer order (`Timer::tag_count` each). Both blocks never wrap.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Record {
    /// Milliseconds since the pool's epoch, wrapping: ages are computed with `wrapping_sub`, which
    /// is exact because `stats_history` is capped far below 2^32 ms (49 days).
    pub time_ms: u32,
    pub hostname: u32,
    pub server_name: u32,
    pub script_name: u32,
    /// [`NO_SCHEMA`] when absent.
    pub schema: u32,
    pub request_count: u32,
    pub document_size: u32,
    pub memory_peak: u32,
    pub memory_footprint: u32,
    pub status: u32,
    pub request_time: f32,
    pub ru_utime: f32,
    pub ru_stime: f32,
    pub timer_start: u32,
    pub tag_start: u32,
    pub timer_count: u16,
    pub tag_count: u16,
}

/// One pooled timer: 20 bytes. Its tags follow the request tags in the request's tag block.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Timer {
    /// Total seconds over `hit_count` runs.
    pub value: f32,
    pub ru_utime: f32,
    pub ru_stime: f32,
    pub hit_count: u32,
    pub tag_count: u16,
}

/// One tag: dictionary ids of its name and value. 8 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct TagPair {
    pub name: u32,
    pub value: u32,
}

/// A borrowed look at one pooled request. `id` is its sequence number since start-up (unique,
/// increasing), which is also what the raw-data API shows as `id`.
#[derive(Clone, Copy, Debug)]
pub struct RequestView<'a> {
    pub id: u64,
    pub record: &'a Record,
    /// The whole tag block: request tags first, then each timer's tags.
    pub tag_block: &'a [TagPair],
    pub timers: &'a [Timer],
}

impl<'a> RequestView<'a> {
    /// Request tags, wire order.
    pub fn tags(&self) -> &'a [TagPair] {
        &self.tag_block[..self.record.tag_count as usize]
    }

    /// Timers with their tags, wire order.
    pub fn timers_with_tags(&self) -> impl Iterator<Item = (&'a Timer, &'a [TagPair])> + 'a {
        let block = self.tag_block;
        let mut cursor = self.record.tag_count as usize;
        self.timers.iter().map(move |t| {
            let tags = &block[cursor..cursor + t.tag_count as usize];
            cursor += t.tag_count as usize;
            (t, tags)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let (r, t, p) = (
            std::mem::size_of::<Record>(),
            std::mem::size_of::<Timer>(),
            std::mem::size_of::<TagPair>(),
        );
        println!("pooled sizes: request {r} B, timer {t} B, tag pair {p} B");
        assert!(r <= 64, "request record is {r} B");
        assert!(t <= 24, "timer record is {t} B");
        assert_eq!(p, 8);
    }

    #[test]
    fn view_splits_tag_block() {
        let record = Record {
            tag_count: 1,
            timer_count: 2,
            ..Default::default()
        };
        let timers = [
            Timer {
                tag_count: 2,
                ..Default::default()
            },
            Timer {
                tag_count: 0,
                ..Default::default()
            },
        ];
        let block = [
            TagPair { name: 1, value: 2 },
            TagPair { name: 3, value: 4 },
            TagPair { name: 5, value: 6 },
        ];
        let view = RequestView {
            id: 7,
            record: &record,
            tag_block: &block,
            timers: &timers,
        };
        assert_eq!(view.tags(), &block[..1]);
        let t: Vec<_> = view
            .timers_with_tags()
            .map(|(_, tags)| tags.len())
            .collect();
        assert_eq!(t, vec![2, 0]);
    }
}
