//! The temp ring: full batches from the receivers to the merger, and empty ones back.
//!
//! In: `Batch`es filled by receiver threads. Out: the same batches, drained by the merger every
//! `stats_gathering_period`, then returned through the free list so that steady state allocates
//! nothing. Never blocks anybody: a push into a full ring fails at once, and the receiver drops
//! that batch and counts `temp_pool_dropped` (the merger is behind; waiting would only move the
//! loss into the kernel's socket buffer, where it is harder to see).

use crossbeam_queue::ArrayQueue;

use crate::record::Batch;

/// Bounded lock-free queues between the receivers (producers of full batches, consumers of empty
/// ones) and the merger (the reverse). `ArrayQueue` because it is fixed-size, lock-free and
/// multi-producer: no receiver can stall another or the merger.
pub struct Ring {
    full: ArrayQueue<Box<Batch>>,
    empty: ArrayQueue<Box<Batch>>,
}

impl Ring {
    /// A ring holding at most `capacity` full batches (and as many recycled empty ones).
    pub fn new(capacity: usize) -> Ring {
        let capacity = capacity.max(1);
        Ring {
            full: ArrayQueue::new(capacity),
            empty: ArrayQueue::new(capacity),
        }
    }

    /// Hands a full batch to the merger; gives it back if the ring is full.
    pub fn push(&self, batch: Box<Batch>) -> Result<(), Box<Batch>> {
        self.full.push(batch)
    }

    /// The oldest full batch, if any (merger).
    pub fn pop(&self) -> Option<Box<Batch>> {
        self.full.pop()
    }

    /// Full batches waiting.
    pub fn len(&self) -> usize {
        self.full.len()
    }

    pub fn is_empty(&self) -> bool {
        self.full.is_empty()
    }

    /// An empty batch to fill: a recycled one if any, else a new one (only while warming up).
    pub fn take_empty(&self) -> Box<Batch> {
        self.empty.pop().unwrap_or_default()
    }

    /// Returns a drained batch for reuse; dropped if the free list is full.
    pub fn recycle(&self, mut batch: Box<Batch>) {
        batch.clear();
        let _ = self.empty.push(batch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_fifo_with_recycling() {
        let ring = Ring::new(2);
        for i in 0..2 {
            let mut b = ring.take_empty();
            b.bytes.push(i);
            ring.push(b).unwrap();
        }
        let overflow = ring.take_empty();
        assert!(ring.push(overflow).is_err(), "full ring refuses at once");
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
    }
}
