//! The decoder allocates nothing per datagram once warm (docs/ARCHITECTURE.md: "0 allocations").
//!
//! This binary's global allocator counts allocations made on a thread while that thread has
//! counting switched on, so the other tests running in parallel do not disturb the count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use pinbad::corpus::{Corpus, CorpusSpec};
use pinbad::counters::DecodeStats;
use pinbad::decode::{DecodePolicy, Decoder};
use pinbad::record::Batch;

/// The system allocator, counting the current thread's allocations while it has counting on.
pub struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: thread-local storage may already be gone while a thread exits.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only const-initialised
// thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

/// Allocations made by `f` on this thread.
fn allocations_during(f: impl FnOnce()) -> u64 {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    ALLOCATIONS.with(|n| n.get())
}

#[test]
fn decode_allocates_nothing_per_datagram_once_warm() {
    let mut corpus = Corpus::new(CorpusSpec {
        seed: 3,
        ..CorpusSpec::default()
    });
    let mut datagrams: Vec<Vec<u8>> = (0..1000)
        .map(|_| {
            let mut buf = Vec::new();
            corpus.next_datagram(&mut buf);
            buf
        })
        .collect();
    datagrams.extend(
        crate::common::fixtures()
            .into_iter()
            .map(|(_, bytes, _)| bytes),
    );
    let mut decoder = Decoder::new(DecodePolicy::default());
    let mut batch = Batch::default();
    let mut stats = DecodeStats::default();
    // Warm up: scratch vectors and the batch grow to their working size.
    for _ in 0..3 {
        for d in &datagrams {
            batch.clear();
            decoder.decode(d, &mut batch, &mut stats);
        }
    }
    let accepted_before = stats.requests_accepted;
    let n = allocations_during(|| {
        for _ in 0..10 {
            for d in &datagrams {
                batch.clear();
                decoder.decode(d, &mut batch, &mut stats);
            }
        }
    });
    assert!(
        stats.requests_accepted - accepted_before >= 10_000,
        "the datagrams were really decoded"
    );
    assert_eq!(
        n,
        0,
        "decode allocated {n} times over {} datagrams",
        10 * datagrams.len()
    );
    // The counter works: an allocation on this thread is seen.
    assert_eq!(
        allocations_during(|| drop(std::hint::black_box(vec![1u8; 10]))),
        1
    );
}
