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
//!
//! Also where the reports' row tables get their memory ([`TableAlloc`]): large tables on
//! transparent huge pages (an `Allocator` over the global one, and one `madvise` call).

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

/// When [`after_query`] last gave memory back (ms from [`process_start`]; 0: never).
static QUERY_COLLECTED_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn process_start() -> Instant {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// Called once a query on the blocking pool has built its answer and freed what it read (a
/// comparison's sides, a history answer's steps): gives memory back at most every
/// [`COLLECT_EVERY`], from any thread.
///
/// Why: each blocking thread allocates from an arena of its own, and glibc keeps what the thread
/// freed there. The merger's trims give it back while traffic expires requests; on a daemon
/// without traffic nothing did, and a busy machine, whose blocking pool started a thread per
/// query while the last one was still being handed back, kept ~8 MiB of freed sides per
/// thread resident beyond what the memory budget counts.
pub fn after_query() {
    use std::sync::atomic::Ordering::Relaxed;
    let now = process_start().elapsed().as_millis() as u64 + 1;
    let last = QUERY_COLLECTED_MS.load(Relaxed);
    let every = COLLECT_EVERY.as_millis() as u64;
    if (last == 0 || now >= last + every)
        && QUERY_COLLECTED_MS
            .compare_exchange(last, now, Relaxed, Relaxed)
            .is_ok()
    {
        give_back();
    }
}

/// Bytes freed in bulk ([`freed_in_bulk`]) since the last trim that counted them.
static FREED_IN_BULK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// After this many bytes freed in bulk, memory is given back at once, not at the next second.
const TRIM_AFTER_BYTES: u64 = 4 << 20;

/// Notes `bytes` freed in bulk (a large answer's rows once sent or dropped, what a query built
/// it with): once [`TRIM_AFTER_BYTES`] have been since the last such trim, gives memory back
/// now, from this thread.
///
/// Why: answers are built and sent on whichever HTTP or blocking thread runs them, each
/// allocating from an arena of its own, and [`after_query`]'s once a second lets a burst of
/// large answers (clients asking a 4 MB report answer many times a second, some left unread,
/// others refused and dropped) leave tens of MiB freed and resident in as many arenas: RSS
/// went ~10 % past the memory budget while what the budget counted stayed under it. A trim
/// costs far less than building the answer that freed 4 MiB.
pub fn freed_in_bulk(bytes: u64) {
    use std::sync::atomic::Ordering::Relaxed;
    let total = FREED_IN_BULK.fetch_add(bytes, Relaxed) + bytes;
    if total >= TRIM_AFTER_BYTES && FREED_IN_BULK.swap(0, Relaxed) >= TRIM_AFTER_BYTES {
        give_back();
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

/// Tables at least this large are advised onto transparent huge pages (two huge pages: a smaller
/// one's aligned interior would be at most one).
pub const HUGE_TABLE_BYTES: usize = 4 << 20;
/// The size of a transparent huge page on x86-64 and most aarch64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// The allocator of the reports' row tables: the global allocator's memory, and for a table of
/// [`HUGE_TABLE_BYTES`] or more, `madvise(MADV_HUGEPAGE)` on the 2 MiB pages inside it.
///
/// Why: a large report's rows (a 183k-row timer report's open tick and closed part are ~25 MB
/// each) are updated in table order, one row per contribution, ahead-fetched; with 4 KiB pages
/// nearly every fetch also missed the TLB, and in this VM a page walk is a nested one. The
/// whole heap on huge pages (glibc's `glibc.malloc.hugetlb=1`) made the largest timer report
/// ~17 % cheaper in the e2e but the raw pool's inserts ~30 % dearer, which is why only these
/// tables are advised. Kernels with transparent huge pages `never` ignore the advice; with
/// `always` it changes nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct TableAlloc;

// SAFETY: every block comes from and returns to `Global` unchanged (same layout); `madvise` only
// changes how the kernel backs pages the block already spans.
unsafe impl allocator_api2::alloc::Allocator for TableAlloc {
    fn allocate(
        &self,
        layout: std::alloc::Layout,
    ) -> Result<std::ptr::NonNull<[u8]>, allocator_api2::alloc::AllocError> {
        let block = allocator_api2::alloc::Global.allocate(layout)?;
        if layout.size() >= HUGE_TABLE_BYTES {
            advise_huge(block.cast::<u8>().as_ptr() as usize, layout.size());
        }
        Ok(block)
    }

    unsafe fn deallocate(&self, ptr: std::ptr::NonNull<u8>, layout: std::alloc::Layout) {
        // SAFETY: `ptr` was allocated by `allocate` above, i.e. by `Global`, with `layout`.
        unsafe { allocator_api2::alloc::Global.deallocate(ptr, layout) }
    }
}

/// The whole huge pages inside `[start, start + len)`.
fn huge_pages_inside(start: usize, len: usize) -> Option<(usize, usize)> {
    let from = start.checked_next_multiple_of(HUGE_PAGE)?;
    let to = (start + len) / HUGE_PAGE * HUGE_PAGE;
    (to > from).then_some((from, to - from))
}

/// Advises the whole huge pages inside a block onto transparent huge pages (a refusal, as on a
/// kernel without them, is ignored: the pages stay small).
fn advise_huge(start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    if let Some((from, len)) = huge_pages_inside(start, len) {
        // SAFETY: the range lies inside a live allocation of ours; MADV_HUGEPAGE changes no
        // content, only how the kernel backs the pages.
        unsafe {
            libc::madvise(from as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = huge_pages_inside(start, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_inside_a_block_are_advised() {
        let mb2 = HUGE_PAGE;
        assert_eq!(huge_pages_inside(0, 4 * mb2), Some((0, 4 * mb2)));
        assert_eq!(huge_pages_inside(16, 4 * mb2), Some((mb2, 3 * mb2)));
        assert_eq!(huge_pages_inside(mb2 - 1, mb2 + 1), Some((mb2, mb2)));
        assert_eq!(huge_pages_inside(16, 2 * mb2 - 32), None);
        assert_eq!(huge_pages_inside(usize::MAX - 10, 4), None);
    }

    /// A large table's memory is marked for huge pages (`hg` in its mapping's `VmFlags`), the
    /// same amount from the global allocator is not: what the report tables get (Linux with
    /// transparent huge pages not `never`). 64 MiB: above glibc's largest mmap threshold, so each
    /// block is a mapping of its own, whatever other tests freed.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_large_table_is_advised_onto_huge_pages_and_plain_memory_is_not() {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if thp.is_empty() || thp.contains("[never]") {
            eprintln!("skipped: transparent huge pages are off on this kernel");
            return;
        }
        let huge_flag_at = |addr: usize| {
            let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
            let mut inside = false;
            for line in smaps.lines() {
                let range = line.split_once(' ').map(|(r, _)| r);
                if let Some((lo, hi)) = range.and_then(|r| r.split_once('-')) {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        inside = (lo..hi).contains(&addr);
                        continue;
                    }
                }
                if inside && line.starts_with("VmFlags:") {
                    return line.split_whitespace().any(|f| f == "hg");
                }
            }
            panic!("no mapping holds {addr:#x}");
        };
        let bytes = 64 << 20;
        let mut table: hashbrown::HashTable<u64, TableAlloc> =
            hashbrown::HashTable::with_capacity_in(bytes / 8, TableAlloc);
        table.insert_unique(1, 1, |&v| v);
        // Bucket 1 sits just below the control bytes (the last ninth of the block): inside.
        let in_table = table
            .iter()
            .next()
            .map(|v| v as *const u64 as usize)
            .unwrap();
        assert!(huge_flag_at(in_table), "the table is advised");
        let plain = vec![1u8; bytes];
        let in_plain = plain.as_ptr() as usize + bytes / 2;
        assert!(!huge_flag_at(in_plain), "plain memory is not");
    }
}
