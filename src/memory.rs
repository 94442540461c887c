//! Giving memory back: after a burst has expired (requests, strings and report rows freed), the
//! merger calls [`give_back`] so that the process's resident memory falls back to what it holds.
//!
//! The binary's global allocator is mimalloc (see `main.rs`), which returns freed pages to the OS
//! on its own only as later allocations in the same thread trigger it; an idle merger would keep
//! the pages of a burst. Pure policy here, the one unsafe call beside it.

use std::time::{Duration, Instant};

/// How often at most the merger asks the allocator to collect: a collect walks the thread's heap.
const COLLECT_EVERY: Duration = Duration::from_secs(1);

/// Tracks whether memory was freed since the last collect, and when that was.
#[derive(Debug)]
pub struct Reclaimer {
    freed: bool,
    last: Instant,
}

impl Default for Reclaimer {
    fn default() -> Reclaimer {
        Reclaimer {
            freed: false,
            last: Instant::now(),
        }
    }
}

impl Reclaimer {
    /// Notes that this round freed memory (requests left the pool, strings left the dictionary).
    pub fn freed(&mut self) {
        self.freed = true;
    }

    /// Called every round: collects when memory was freed and the last collect is old enough.
    pub fn maybe_collect(&mut self) {
        if self.freed && self.last.elapsed() >= COLLECT_EVERY {
            give_back();
            self.freed = false;
            self.last = Instant::now();
        }
    }
}

/// Asks mimalloc to return the calling thread's free pages (and abandoned ones) to the OS.
/// Harmless where mimalloc is not the global allocator (its heap is then empty).
pub fn give_back() {
    // SAFETY: mi_collect has no preconditions; it only walks mimalloc's own heap structures.
    unsafe { libmimalloc_sys::mi_collect(true) };
}
