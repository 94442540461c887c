//! Giving memory back: after a burst has expired (requests, strings and report rows freed), the
//! merger calls [`give_back`] so that the process's resident memory falls back to what it holds.
//!
//! glibc's malloc keeps freed memory in its arenas (returning only the top of each heap, and only
//! as later frees trigger it), so after a burst of small allocations (strings, rows, batches) a
//! daemon stayed at its peak (~1.3 GB with an empty pool). `malloc_trim(0)` hands every free
//! page of every arena back. Measured: mimalloc as the global allocator also returned the memory,
//! but cost ~11 % loss at 100k packets/s (its page purging made the receiver fall behind the
//! kernel); glibc with trims lost nothing in the same runs. Pure policy here, the one unsafe call
//! beside it.

use std::time::{Duration, Instant};

/// How often at most a thread asks the allocator to trim: a trim walks the arenas.
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

/// Asks the allocator to return free pages to the OS (glibc: every arena; elsewhere nothing).
pub fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim has no preconditions; it only walks the allocator's own structures.
    unsafe {
        libc::malloc_trim(0);
    }
}
