//! The temp ring: full batches from the receivers to the merger, and empty ones back.
//!
//! In: `Batch`es filled by receiver threads. Out: the same batches, drained by the merger every
//! `stats_gathering_period`, then returned through the free list (the batch returned last is
//! filled next) so that steady state allocates nothing. Never blocks a receiver: a push that
//! would take the ring past its memory bound (`temp_pool_memory`) fails at once, and the
//! receiver drops that batch and counts `temp_pool_dropped` (the merger is behind; waiting would
//! only move the loss into the kernel's socket buffer, where it is harder to see).
//!
//! The bound is in bytes of everything a queued batch holds (datagram copies and the decoded
//! request, timer and tag arrays, by capacity), so a flood of datagrams that decode into many
//! small requests is held to the same memory as ordinary traffic.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use crossbeam_queue::ArrayQueue;

use crate::record::Batch;

/// Most batches queued at once, whatever their size (a slot is one pointer): far more than the
/// memory bound lets through with real batches, so the bytes are what bounds the ring.
const MAX_BATCHES: usize = 1 << 16;
/// Empty batches kept for reuse: a merge round's worth at high rates (a receiver hands a batch
/// over each time its socket runs dry, ~50 requests at 100k/s), so that in steady state the
/// receivers allocate almost nothing (with 8, they allocated and grew ~40 batches per round at
/// 100k/s and fell behind the kernel: ~11 % lost). With [`KEEP_BATCH_BYTES`] it bounds what the
/// free list holds at 64 MiB; batches a burst made bigger give the excess back.
const FREE_BATCHES: usize = 256;
/// A recycled batch that holds more than this gives the excess back (an ordinary batch holds
/// 60–130 KiB at 100k/s, its fill varying several-fold with the receiver's wake-ups: see
/// `Batch::clear_and_trim`).
pub const KEEP_BATCH_BYTES: usize = 256 << 10;

/// A bounded lock-free queue of full batches from the receivers to the merger, and a free list
/// of empty ones back. `ArrayQueue` for the full ones because it is fixed-size, lock-free and
/// multi-producer: no receiver can stall another or the merger. `bytes` counts the memory of
/// queued batches: added by a push before the batch is visible, taken off by the pop.
pub struct Ring {
    full: ArrayQueue<Box<Batch>>,
    /// Empty batches, the one recycled last on top: a receiver fills the batch whose memory the
    /// merger touched last, likeliest still in a shared cache (taken in turn, the batch filled
    /// would be the coldest in circulation, measurably slower to decode into: see
    /// BENCHMARKS.md). A lock, held for one push or pop: the merger's
    /// [`Ring::recycle`] waits at most that long, and a receiver never waits (it only tries the
    /// lock, and takes a new batch when another thread holds it; the list's bound then drops
    /// the surplus as it comes back).
    /// (Boxed: batches move between the threads as `Box<Batch>`, a pointer each.)
    #[allow(clippy::vec_box)]
    empty: parking_lot::Mutex<Vec<Box<Batch>>>,
    bytes: AtomicUsize,
    max_bytes: usize,
    /// No merger runs, or it has not caught up since it started (start-up, bounded), or it has
    /// stopped (shutdown): receivers queue raw batches ([`Batch::raw`]), a third of a decoded
    /// batch's memory per request, so the ring holds three times the seconds of traffic while
    /// nothing drains it.
    raw: AtomicBool,
}

impl Ring {
    /// A ring holding at most `max_bytes` of batches.
    pub fn new(max_bytes: usize) -> Ring {
        Ring {
            full: ArrayQueue::new(MAX_BATCHES),
            empty: parking_lot::Mutex::new(Vec::with_capacity(FREE_BATCHES)),
            bytes: AtomicUsize::new(0),
            max_bytes: max_bytes.max(1),
            raw: AtomicBool::new(false),
        }
    }

    /// Hands a full batch to the merger; gives it back if the ring cannot take its memory.
    pub fn push(&self, batch: Box<Batch>) -> Result<(), Box<Batch>> {
        let b = batch.memory_bytes();
        // Reserve first, so that concurrent pushes can never take the ring past its bound.
        let before = self.bytes.fetch_add(b, Relaxed);
        if before + b > self.max_bytes {
            self.bytes.fetch_sub(b, Relaxed);
            return Err(batch);
        }
        self.full.push(batch).inspect_err(|_| {
            self.bytes.fetch_sub(b, Relaxed);
        })
    }

    /// The oldest full batch, if any (merger).
    pub fn pop(&self) -> Option<Box<Batch>> {
        let batch = self.full.pop()?;
        self.bytes.fetch_sub(batch.memory_bytes(), Relaxed);
        Some(batch)
    }

    /// Whether receivers are to queue raw batches (see `raw`).
    pub fn is_raw(&self) -> bool {
        self.raw.load(Relaxed)
    }

    /// Set at start-up before the receivers start (true), by the merger once it has first caught
    /// up (false) and once it has stopped (true, when receivers outlive it).
    pub fn set_raw(&self, raw: bool) {
        self.raw.store(raw, Relaxed);
    }

    /// Bytes of the batches queued now.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Relaxed)
    }

    /// The memory bound (`temp_pool_memory`).
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Full batches waiting.
    pub fn len(&self) -> usize {
        self.full.len()
    }

    pub fn is_empty(&self) -> bool {
        self.full.is_empty()
    }

    /// An empty batch to fill: the one recycled last if any, else a new one (while warming up,
    /// or in the rare moment another thread holds the free list: never waits).
    pub fn take_empty(&self) -> Box<Batch> {
        self.empty
            .try_lock()
            .and_then(|mut free| free.pop())
            .unwrap_or_default()
    }

    /// Returns a drained batch for reuse (trimmed if a burst made it large); dropped if the free
    /// list is full.
    pub fn recycle(&self, mut batch: Box<Batch>) {
        batch.clear_and_trim(KEEP_BATCH_BYTES);
        let mut free = self.empty.lock();
        if free.len() < FREE_BATCHES {
            free.push(batch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch_of(ring: &Ring, byte: u8, capacity: usize) -> Box<Batch> {
        let mut b = ring.take_empty();
        b.bytes.reserve_exact(capacity);
        b.bytes.push(byte);
        b
    }

    #[test]
    fn bounded_in_bytes_fifo_with_recycling() {
        let ring = Ring::new(3000);
        for i in 0..2 {
            ring.push(batch_of(&ring, i, 1000)).unwrap();
        }
        assert_eq!(ring.bytes(), 2000);
        // The decoded arrays count too: a batch with few datagram bytes but many requests.
        let mut heavy = batch_of(&ring, 9, 10);
        heavy.requests.reserve_exact(100);
        assert!(heavy.memory_bytes() > 1000);
        assert!(
            ring.push(heavy).is_err(),
            "over the byte bound: refused at once"
        );
        assert_eq!(ring.bytes(), 2000, "a refused push leaves no trace");
        let first = ring.pop().unwrap();
        assert_eq!(first.bytes, vec![0]);
        let cap = first.bytes.capacity();
        ring.recycle(first);
        let reused = ring.take_empty();
        assert!(reused.bytes.is_empty());
        assert_eq!(
            reused.bytes.capacity(),
            cap,
            "recycled batch keeps its allocation"
        );
        assert_eq!(ring.len(), 1);
        assert_eq!(ring.bytes(), 1000);
    }

    /// The batch recycled last is the one taken next (the warmest); the free list keeps at most
    /// `FREE_BATCHES`, dropping the surplus.
    #[test]
    fn the_batch_recycled_last_is_taken_first_and_the_free_list_is_bounded() {
        let ring = Ring::new(1 << 30);
        let marked = |byte: u8| {
            let mut b = Box::<Batch>::default();
            b.bytes.reserve_exact(64 + byte as usize);
            b
        };
        for byte in 0..3 {
            ring.recycle(marked(byte));
        }
        let taken: Vec<usize> = (0..3).map(|_| ring.take_empty().bytes.capacity()).collect();
        assert_eq!(taken, vec![66, 65, 64]);
        for _ in 0..FREE_BATCHES + 10 {
            ring.recycle(Box::default());
        }
        assert_eq!(ring.empty.lock().len(), FREE_BATCHES);
    }

    #[test]
    fn recycled_batches_give_back_what_a_burst_took() {
        let ring = Ring::new(1 << 30);
        let mut b = ring.take_empty();
        b.requests.reserve_exact(1 << 20);
        b.bytes.reserve_exact(1 << 20);
        let (requests, bytes) = (b.requests.capacity(), b.bytes.capacity());
        ring.recycle(b);
        let b = ring.take_empty();
        assert!(b.memory_bytes() <= KEEP_BATCH_BYTES, "{}", b.memory_bytes());
        // Not to nothing: what is kept is shared in proportion, so that the next ordinary fills
        // do not regrow the batch from empty.
        assert!(
            b.memory_bytes() > KEEP_BATCH_BYTES / 2,
            "{}",
            b.memory_bytes()
        );
        let ratio = |now: usize, was: usize| now as f64 / was as f64;
        let (r, y) = (
            ratio(b.requests.capacity(), requests),
            ratio(b.bytes.capacity(), bytes),
        );
        assert!((r - y).abs() < 0.01, "{r} {y}");
    }
}
