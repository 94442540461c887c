//! SQLite's memory, counted and bounded for the SQL front end: SQLite's allocator (installed
//! with `SQLITE_CONFIG_MALLOC` before SQLite is first used, see [`install`]) counts every block
//! made on a thread while it runs an SQL session's engine, and refuses the large ones once what
//! those blocks hold together would pass the cap the front end sets ([`Heap::set_cap`]: its share
//! of `limits.max_memory`). A refused block is SQLite's out-of-memory: the statement fails with
//! an error, the session and the daemon go on.
//!
//! Why an allocator of our own: SQLite's own bound (`sqlite3_hard_heap_limit64`) is process-wide,
//! so a session at the bound would also fail the history writer and the HTTP API's history and
//! request-log queries, which use SQLite too; and its figure (`sqlite3_memory_used`) cannot tell
//! SQL's memory from theirs. Here a block remembers whether it is SQL's (a 16-byte header, which
//! keeps malloc's alignment), so that it leaves the count wherever it is freed.
//!
//! What is refused, and when: only while a statement is prepared or stepped
//! ([`bounded`]), only blocks (or a block's growth) of [`SMALL`] bytes or more, and never inside
//! pinbad's own callbacks ([`counted`]), whose results rusqlite asserts on or copies with an
//! allocation that must not fail (an error message, a virtual table's index string: a failure
//! there aborts the process). Small blocks that pass the cap are caught by the engine's
//! progress handler, which stops the statement once [`Heap::over`] (every few thousand steps),
//! so they overshoot the cap by little. Everything else SQLite does handles out-of-memory: it is
//! part of SQLite's tested design.
//!
//! Besides SQLite's blocks, the front end charges the rows it has read and not yet written to
//! the client ([`Heap::charge`]), so that one figure is what SQL holds.
//!
//! Pure accounting but for the allocator's calls to `malloc`; any thread.

use std::cell::Cell;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Blocks (or growth) smaller than this are never refused (see the module docs).
pub const SMALL: u64 = 1024;

/// Bytes before each block: its size and whether it is SQL's. 16 keeps malloc's alignment.
const HEADER: usize = 16;

/// What SQL holds, against what it may hold.
#[derive(Debug)]
pub struct Heap {
    /// Bytes of SQL's blocks and charged rows.
    held: AtomicU64,
    /// What they may hold (`u64::MAX` until the front end sets it).
    cap: AtomicU64,
    /// The most `held` has been.
    peak: AtomicU64,
    /// Blocks refused at the cap.
    refused: AtomicU64,
}

/// The process's SQL heap: what the installed allocator counts.
pub static HEAP: Heap = Heap::new();

static INSTALLED: AtomicBool = AtomicBool::new(false);

/// How the allocator treats a block made on this thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Not SQL's (the history writer, the API): neither counted nor refused.
    Off,
    /// SQL's, counted, never refused.
    Counted,
    /// SQL's, counted, refused past the cap when large.
    Bounded,
}

thread_local! {
    static MODE: Cell<Mode> = const { Cell::new(Mode::Off) };
    /// Set while a failing callback unwinds into SQLite: no refusal until the statement ends.
    static YIELDED: Cell<bool> = const { Cell::new(false) };
    /// A block was refused (or the cap passed) on this thread since [`take_refused`].
    static HIT: Cell<bool> = const { Cell::new(false) };
}

impl Heap {
    pub const fn new() -> Heap {
        Heap {
            held: AtomicU64::new(0),
            cap: AtomicU64::new(u64::MAX),
            peak: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }
    }

    /// Bytes SQL holds now.
    pub fn held(&self) -> u64 {
        self.held.load(Relaxed)
    }

    pub fn cap(&self) -> u64 {
        self.cap.load(Relaxed)
    }

    pub fn set_cap(&self, cap: u64) {
        self.cap.store(cap, Relaxed);
    }

    pub fn peak(&self) -> u64 {
        self.peak.load(Relaxed)
    }

    /// Blocks refused, and charges refused, at the cap since start.
    pub fn refused(&self) -> u64 {
        self.refused.load(Relaxed)
    }

    /// Whether SQL holds more than its cap (small blocks passed it).
    pub fn over(&self) -> bool {
        self.held() > self.cap()
    }

    /// Takes `bytes` more if they fit under the cap (or `refusable` is false); false (and
    /// nothing taken) if not.
    fn take(&self, bytes: u64, refusable: bool) -> bool {
        let before = self.held.fetch_add(bytes, Relaxed);
        let now = before.saturating_add(bytes);
        if refusable && now > self.cap() {
            self.held.fetch_sub(bytes, Relaxed);
            self.refused.fetch_add(1, Relaxed);
            return false;
        }
        self.peak.fetch_max(now, Relaxed);
        true
    }

    fn give(&self, bytes: u64) {
        self.held.fetch_sub(bytes, Relaxed);
    }

    /// Rows read and not yet written (Rust's memory, not SQLite's) counted as SQL's: false, with
    /// nothing charged, when they would take SQL past its cap.
    pub fn charge(&self, bytes: u64) -> bool {
        let ok = self.take(bytes, true);
        if !ok {
            HIT.with(|h| h.set(true));
        }
        ok
    }

    /// Rows [`Heap::charge`]d are written (or dropped).
    pub fn release(&self, bytes: u64) {
        self.give(bytes);
    }
}

impl Default for Heap {
    fn default() -> Heap {
        Heap::new()
    }
}

/// Installs the allocator; must run before SQLite is first used in the process (it is then
/// configured once for good). False, and SQL's memory neither counted nor bounded, when SQLite
/// was already in use (in-process tests that opened a connection before).
pub fn install() -> bool {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        static METHODS: SyncMethods = SyncMethods(rusqlite::ffi::sqlite3_mem_methods {
            xMalloc: Some(x_malloc),
            xFree: Some(x_free),
            xRealloc: Some(x_realloc),
            xSize: Some(x_size),
            xRoundup: Some(x_roundup),
            xInit: Some(x_init),
            xShutdown: Some(x_shutdown),
            pAppData: std::ptr::null_mut(),
        });
        // SAFETY: SQLITE_CONFIG_MALLOC takes a pointer to methods that live as long as the
        // process (a static); SQLite copies them. Before `sqlite3_initialize` it has no other
        // precondition, and after it, it returns SQLITE_MISUSE and changes nothing.
        let rc = unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MALLOC,
                &METHODS.0 as *const rusqlite::ffi::sqlite3_mem_methods,
            )
        };
        INSTALLED.store(rc == rusqlite::ffi::SQLITE_OK, Relaxed);
    });
    INSTALLED.load(Relaxed)
}

/// The methods as a static (a raw pointer field makes the struct not `Sync` by itself).
struct SyncMethods(rusqlite::ffi::sqlite3_mem_methods);
// SAFETY: the methods are plain function pointers and a null pointer, never written.
unsafe impl Sync for SyncMethods {}

/// Restores the thread's mode when dropped.
#[must_use = "the mode holds until this is dropped"]
pub struct ModeGuard {
    was: Mode,
    yielded: bool,
}

impl Drop for ModeGuard {
    fn drop(&mut self) {
        MODE.with(|m| m.set(self.was));
        if self.was != Mode::Bounded {
            // The statement ended: refusals again from the next one on.
            YIELDED.with(|y| y.set(self.yielded));
        }
    }
}

fn enter(mode: Mode) -> ModeGuard {
    let was = MODE.with(|m| m.replace(mode));
    ModeGuard {
        was,
        yielded: YIELDED.with(Cell::get),
    }
}

/// What SQLite allocates on this thread until the guard drops is SQL's, counted, never refused
/// (an engine made or brought in line with the reports, a callback of pinbad's).
pub fn counted() -> ModeGuard {
    enter(Mode::Counted)
}

/// What SQLite allocates on this thread until the guard drops is SQL's, and its large blocks are
/// refused past the cap (a statement prepared or stepped).
pub fn bounded() -> ModeGuard {
    let g = enter(Mode::Bounded);
    if g.was != Mode::Bounded {
        YIELDED.with(|y| y.set(false));
    }
    g
}

/// A callback of pinbad's is failing: what rusqlite allocates for its error (which it must not
/// be refused) and the rest of the statement is not refused.
pub fn yield_refusals() {
    YIELDED.with(|y| y.set(true));
}

/// Whether a block was refused at the cap on this thread (or the statement was stopped for it)
/// since the last call; clears it.
pub fn take_refused() -> bool {
    HIT.with(|h| h.replace(false))
}

/// Notes that this thread's statement is stopped for SQL's memory (see [`take_refused`]).
pub fn note_refused() {
    HIT.with(|h| h.set(true));
}

/// Whether a block of this thread may be refused, and whether it is counted.
fn mode() -> (bool, bool) {
    match MODE.with(Cell::get) {
        Mode::Off => (false, false),
        Mode::Counted => (true, false),
        Mode::Bounded => (true, !YIELDED.with(Cell::get)),
    }
}

/// A block's header: its size, and whether it is SQL's in the top bit.
const SQL_BIT: u64 = 1 << 63;

/// # Safety
/// `user` is a pointer this allocator returned.
unsafe fn header(user: *mut c_void) -> (*mut u8, u64, bool) {
    // SAFETY: the caller's pointer is HEADER bytes past the start of a block of ours, whose
    // first 8 bytes are its header.
    unsafe {
        let base = (user as *mut u8).sub(HEADER);
        let h = (base as *const u64).read();
        (base, h & !SQL_BIT, h & SQL_BIT != 0)
    }
}

unsafe extern "C" fn x_malloc(n: c_int) -> *mut c_void {
    let n = n.max(0) as u64;
    let (sql, bounded) = mode();
    if sql && !HEAP.take(n, bounded && n >= SMALL) {
        HIT.with(|h| h.set(true));
        return std::ptr::null_mut();
    }
    // SAFETY: malloc of a positive size; the header is written inside the block.
    unsafe {
        let base = libc::malloc(n as usize + HEADER) as *mut u8;
        if base.is_null() {
            if sql {
                HEAP.give(n);
            }
            return std::ptr::null_mut();
        }
        (base as *mut u64).write(n | if sql { SQL_BIT } else { 0 });
        base.add(HEADER) as *mut c_void
    }
}

unsafe extern "C" fn x_free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: SQLite frees only blocks this allocator made.
    unsafe {
        let (base, n, sql) = header(p);
        if sql {
            HEAP.give(n);
        }
        libc::free(base as *mut c_void);
    }
}

unsafe extern "C" fn x_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
    let n = n.max(0) as u64;
    // SAFETY: SQLite reallocates only blocks this allocator made (never null: it mallocs those).
    let (base, old, sql) = unsafe { header(p) };
    // The block stays whose it was, so that its bytes leave the count it entered.
    let bounded = sql && mode().1;
    if sql && n > old && !HEAP.take(n - old, bounded && n - old >= SMALL) {
        HIT.with(|h| h.set(true));
        return std::ptr::null_mut();
    }
    // SAFETY: the block is ours; on failure it is left as it was.
    unsafe {
        let moved = libc::realloc(base as *mut c_void, n as usize + HEADER) as *mut u8;
        if moved.is_null() {
            if sql && n > old {
                HEAP.give(n - old);
            }
            return std::ptr::null_mut();
        }
        if sql && n < old {
            HEAP.give(old - n);
        }
        (moved as *mut u64).write(n | if sql { SQL_BIT } else { 0 });
        moved.add(HEADER) as *mut c_void
    }
}

unsafe extern "C" fn x_size(p: *mut c_void) -> c_int {
    if p.is_null() {
        return 0;
    }
    // SAFETY: SQLite asks only about blocks this allocator made.
    unsafe { header(p).1 as c_int }
}

unsafe extern "C" fn x_roundup(n: c_int) -> c_int {
    (n.max(0) + 7) & !7
}

unsafe extern "C" fn x_init(_: *mut c_void) -> c_int {
    rusqlite::ffi::SQLITE_OK
}

unsafe extern "C" fn x_shutdown(_: *mut c_void) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the cap, what may be refused is; what is taken and given back adds up; the peak is
    /// kept; a charge of rows past the cap is refused whatever its size.
    #[test]
    fn large_blocks_are_refused_past_the_cap_while_bounded() {
        let heap = Heap::new();
        heap.set_cap(10_000);
        assert!(heap.take(8_000, true));
        assert!(!heap.take(4_000, true), "past the cap");
        assert_eq!(heap.refused(), 1);
        assert!(heap.take(4_000, false), "not refusable");
        assert!(heap.over());
        assert!(heap.take(100, false));
        heap.give(12_100);
        assert_eq!(heap.held(), 0);
        assert!(!heap.over());
        assert_eq!(heap.peak(), 12_100);
        assert!(heap.charge(10_000) && !heap.charge(1));
        assert!(
            take_refused() && !take_refused(),
            "a refused charge is noted once"
        );
        heap.release(10_000);
        assert_eq!(heap.held(), 0);
    }

    /// The allocator's blocks keep their size and owner whatever the thread's mode when they
    /// are freed or grown; blocks made outside SQL are not counted. (The global heap: other
    /// tests' engines may count at the same time, so only this test's own blocks are compared,
    /// as differences while no other test can free SQL blocks of ours.)
    #[test]
    fn blocks_remember_their_size_and_owner() {
        // SAFETY: the allocator's own functions, on blocks they made.
        unsafe {
            let plain = x_malloc(100);
            assert_eq!(x_size(plain), 100);
            let sql = {
                let _g = counted();
                x_malloc(3_000)
            };
            assert!(!plain.is_null() && !sql.is_null());
            assert_eq!(x_size(sql), 3_000);
            assert_eq!(sql as usize % 16, 0, "malloc's alignment kept");
            (sql as *mut u8).write_bytes(7, 3_000);
            let grown = x_realloc(sql, 5_000);
            assert_eq!(x_size(grown), 5_000);
            assert_eq!(*(grown as *const u8).add(2_999), 7, "contents kept");
            let (_, size, owner) = header(grown);
            assert_eq!((size, owner), (5_000, true));
            let (_, _, owner) = header(plain);
            assert!(!owner);
            x_free(grown);
            x_free(plain);
            assert_eq!(x_roundup(13), 16);
        }
    }

    /// The modes nest and restore; a failing callback stops refusals until its statement ends.
    #[test]
    fn modes_nest_and_a_yield_lasts_until_the_statement_ends() {
        assert_eq!(mode(), (false, false));
        {
            let _s = counted();
            assert_eq!(mode(), (true, false));
            {
                let _b = bounded();
                assert_eq!(mode(), (true, true));
                {
                    let _cb = counted();
                    yield_refusals();
                }
                assert_eq!(mode(), (true, false), "yielded until the statement ends");
            }
            assert_eq!(mode(), (true, false));
            let _b = bounded();
            assert_eq!(mode(), (true, true), "the next statement is bounded again");
        }
        assert_eq!(mode(), (false, false));
    }
}
