//! The memory budget (`limits.max_memory`): what pinbad holds, accounted, against one limit.
//!
//! In: what each holder of memory accounts for itself ([`Account::settle`]): the raw pool, the
//! temp ring and the other fixed buffers once at start-up, each report (rows × ticks: its open
//! tick, its window's closed part and closed ticks, its histograms and buffers) and each family
//! stage after every merge round, the dictionary whenever the merger publishes it, the history
//! writer and the tick log as they work, a sink's queue as rounds join and leave it
//! ([`Account::grow`], [`Account::shrink`]). Out: whether the budget is **tight**
//! ([`Budget::tight`], one relaxed load), which the places that would allocate more read: a
//! report creating a row, the dictionary interning a new string (and evicting, see
//! `Dictionary::evict_unreferenced`), a report being created, a sink's queue; and whether a
//! table's growth fits ([`Budget::fits`]), checked before a row table or the dictionary doubles,
//! so that no single allocation takes pinbad past the limit.
//!
//! Cheap on the hot path: nothing here runs per request. A holder settles its account once per
//! round (one atomic add of the difference), the merger re-judges the budget once per round
//! ([`Budget::judge`], which logs once per episode), and the update path reads the flag only
//! where it would create a row. A report growing within a round (new rows, a table doubling)
//! accounts ahead of itself: when its estimate passes what its account holds, the account takes
//! [`AHEAD_BYTES`] beyond it (and the budget is judged once that reaches the mark), so its rows
//! are in the budget's figure before they are made, however many reports grow at once (rows
//! counted only every so many per report added up past the margin with a few hundred reports
//! taking their first traffic). What the margin between [`Budget::tight_at`] and the limit is
//! for: what a round adds to rows that exist (their histograms, counted as they grow), and
//! what is not accounted to the byte (allocator slack). A report's growth at a tick's close it
//! counts ahead too (see `Report::memory_estimate`).
//!
//! Memory a holder lets go of while another still holds it (a closed tick a report compacted or
//! let leave its window while the history writer or the tick log has yet to take it) stays
//! accounted until the last holder drops it ([`Budget::outlived`]), swept at each judgement.
//!
//! Pure: no I/O but [`host_memory`], which reads `/proc/meminfo` and the cgroup's limit once at
//! start-up; any thread.

use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

/// Something held elsewhere after its accounted holder let it go (see [`Budget::outlived`]).
type Outliving = (Weak<dyn Any + Send + Sync>, u64);

/// What a report growing within a merge round accounts beyond its estimate (see the module
/// docs): one atomic add on the budget per this many bytes of rows (some 10 to 25 rows), and
/// at most this much counted ahead per report until the round's end settles it.
pub const AHEAD_BYTES: u64 = 16 << 10;

/// The memory budget: a limit, what is accounted against it, whether it is tight, and what was
/// refused for want of it (see the module docs).
#[derive(Debug)]
pub struct Budget {
    /// `limits.max_memory` resolved, bytes (`u64::MAX`: no budget).
    limit: u64,
    /// Bytes accounted by every [`Account`] together.
    used: AtomicU64,
    /// Set by [`Budget::judge`] once `used` reaches [`Budget::tight_at`], cleared once it falls
    /// below [`Budget::clear_at`].
    tight: AtomicBool,
    /// Times the budget became tight since start.
    episodes: AtomicU64,
    /// Report contributions that got no row of their own because the budget was tight (they are
    /// in their report's "(other)" row).
    rows_refused: AtomicU64,
    /// New strings the dictionary did not keep because the budget was tight.
    names_refused: AtomicU64,
    /// Strings the dictionary evicted early because the budget was tight (no report row held
    /// them; see `Dictionary::evict_unreferenced`).
    names_evicted: AtomicU64,
    /// Report creations refused because the budget was tight.
    reports_refused: AtomicU64,
    /// The most `used` has been at a judgement.
    peak: AtomicU64,
    /// What holders let go of while others still held it, and its bytes (in `used` until the
    /// last holder drops it; see [`Budget::outlived`]).
    outliving: Mutex<Vec<Outliving>>,
    /// Bytes of `outliving`.
    outliving_bytes: AtomicU64,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Arc<Budget> {
        Arc::new(Budget {
            limit,
            used: AtomicU64::new(0),
            tight: AtomicBool::new(false),
            episodes: AtomicU64::new(0),
            rows_refused: AtomicU64::new(0),
            names_refused: AtomicU64::new(0),
            names_evicted: AtomicU64::new(0),
            reports_refused: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            outliving: Mutex::new(Vec::new()),
            outliving_bytes: AtomicU64::new(0),
        })
    }

    /// No budget: never tight, every growth fits (tests, benches, a dictionary made alone).
    pub fn unlimited() -> Arc<Budget> {
        Budget::new(u64::MAX)
    }

    /// The limit, bytes (`u64::MAX`: none).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes accounted now.
    pub fn used(&self) -> u64 {
        self.used.load(Relaxed)
    }

    /// The most accounted at any judgement since start.
    pub fn peak(&self) -> u64 {
        self.peak.load(Relaxed)
    }

    /// Where the budget becomes tight: 1/16 of the limit below it, the margin for what the
    /// holders add between two judgements (one merge round) and what is not accounted to the
    /// byte (allocator slack).
    pub fn tight_at(&self) -> u64 {
        self.limit - self.limit / 16
    }

    /// Where a tight budget's reports fold the rows their open tick made (see
    /// `Report::shed_if_over`): halfway from [`Budget::tight_at`] to the limit, which leaves
    /// the rest for what a tick's close adds beyond its report's estimate.
    pub fn shed_at(&self) -> u64 {
        self.limit - self.limit / 32
    }

    /// Where a tight budget eases again: 1/8 below the limit, so that a budget hovering at the
    /// mark does not flap (each episode is logged).
    pub fn clear_at(&self) -> u64 {
        self.limit - self.limit / 8
    }

    /// Whether the budget is tight: new rows, strings and reports are refused. One relaxed load.
    #[inline]
    pub fn tight(&self) -> bool {
        self.tight.load(Relaxed)
    }

    /// Whether `bytes` more (a table about to double) stay below [`Budget::tight_at`].
    #[inline]
    pub fn fits(&self, bytes: u64) -> bool {
        self.used().saturating_add(bytes) <= self.tight_at()
    }

    /// Re-judges the budget from what is accounted now (the merger, once per round, and a
    /// report growing by many rows within one): sets or clears the tight flag, and logs when it
    /// changes (once, whichever thread judges). Returns whether it is tight.
    pub fn judge(&self) -> bool {
        self.sweep_outliving();
        let used = self.used();
        self.peak.fetch_max(used, Relaxed);
        let was = self.tight();
        let now = if was {
            used >= self.clear_at()
        } else {
            used >= self.tight_at()
        };
        if now != was
            && self
                .tight
                .compare_exchange(was, now, Relaxed, Relaxed)
                .is_ok()
        {
            let mib = |b: u64| b >> 20;
            if now {
                self.episodes.fetch_add(1, Relaxed);
                tracing::warn!(
                    used_mib = mib(used),
                    limit_mib = mib(self.limit),
                    "Memory budget nearly used (limits.max_memory): new report rows, reports and \
                     strings are refused until memory frees (counted in /api/v1/status memory.*)"
                );
            } else {
                tracing::info!(
                    used_mib = mib(used),
                    limit_mib = mib(self.limit),
                    "Memory budget has room again: new rows, reports and strings are accepted"
                );
            }
        }
        now
    }

    /// A holder let go of `held` (`bytes`, which its account no longer counts) while something
    /// else still holds it: the bytes stay accounted until the last holder drops it (checked at
    /// each [`Budget::judge`]). A closed tick compacted or expired by its report while the
    /// history writer or the tick log has not taken it yet is such a thing.
    pub fn outlived(&self, held: Weak<dyn Any + Send + Sync>, bytes: u64) {
        if held.strong_count() == 0 {
            return;
        }
        let mut list = self.outliving.lock();
        list.push((held, bytes));
        self.outliving_bytes.fetch_add(bytes, Relaxed);
        self.used.fetch_add(bytes, Relaxed);
    }

    /// Bytes accounted for things their holders let go of and others still hold.
    pub fn outliving_bytes(&self) -> u64 {
        self.outliving_bytes.load(Relaxed)
    }

    /// Takes what the last holder dropped out of what is accounted.
    fn sweep_outliving(&self) {
        if self.outliving_bytes.load(Relaxed) == 0 {
            return;
        }
        let mut list = self.outliving.lock();
        let mut freed = 0;
        list.retain(|(held, bytes)| {
            let alive = held.strong_count() > 0;
            if !alive {
                freed += bytes;
            }
            alive
        });
        if freed > 0 {
            self.outliving_bytes.fetch_sub(freed, Relaxed);
            self.used.fetch_sub(freed, Relaxed);
        }
    }

    /// Counts `n` contributions that got no row for want of memory.
    pub fn refused_rows(&self, n: u64) {
        self.rows_refused.fetch_add(n, Relaxed);
    }

    /// Counts a string not kept for want of memory.
    pub fn refused_name(&self) {
        self.names_refused.fetch_add(1, Relaxed);
    }

    /// Counts `n` strings evicted for want of memory.
    pub fn evicted_names(&self, n: u64) {
        self.names_evicted.fetch_add(n, Relaxed);
    }

    /// Counts a report creation refused for want of memory.
    pub fn refused_report(&self) {
        self.reports_refused.fetch_add(1, Relaxed);
    }

    /// See the fields.
    pub fn episodes(&self) -> u64 {
        self.episodes.load(Relaxed)
    }

    pub fn rows_refused(&self) -> u64 {
        self.rows_refused.load(Relaxed)
    }

    pub fn names_refused(&self) -> u64 {
        self.names_refused.load(Relaxed)
    }

    pub fn names_evicted(&self) -> u64 {
        self.names_evicted.load(Relaxed)
    }

    pub fn reports_refused(&self) -> u64 {
        self.reports_refused.load(Relaxed)
    }

    /// Adds `new - old` to what is accounted.
    fn shift(&self, old: u64, new: u64) {
        if new >= old {
            self.used.fetch_add(new - old, Relaxed);
        } else {
            self.used.fetch_sub(old - new, Relaxed);
        }
    }
}

/// What one holder of memory (a report, a stage, the dictionary, the fixed buffers) accounts
/// against its [`Budget`]: it says what it holds now ([`Account::settle`]), and its share leaves
/// the budget when it is dropped.
#[derive(Debug)]
pub struct Account {
    budget: Arc<Budget>,
    /// Bytes this holder has accounted (atomic: settled through a shared borrow, such as the
    /// dictionary's under its read lock).
    accounted: AtomicU64,
}

impl Account {
    pub fn new(budget: Arc<Budget>) -> Account {
        Account {
            budget,
            accounted: AtomicU64::new(0),
        }
    }

    /// The budget this account counts against.
    pub fn budget(&self) -> &Arc<Budget> {
        &self.budget
    }

    /// The holder now holds `bytes`: the budget is told the difference (one atomic add).
    #[inline]
    pub fn settle(&self, bytes: u64) {
        let old = self.accounted.swap(bytes, Relaxed);
        if old != bytes {
            self.budget.shift(old, bytes);
        }
    }

    /// The holder took `bytes` more (for holders that count what comes and goes from several
    /// threads, such as a sink's queue: exact whatever the order).
    #[inline]
    pub fn grow(&self, bytes: u64) {
        self.accounted.fetch_add(bytes, Relaxed);
        self.budget.shift(0, bytes);
    }

    /// The holder let go of `bytes` it had [`Account::grow`]n by.
    #[inline]
    pub fn shrink(&self, bytes: u64) {
        self.accounted.fetch_sub(bytes, Relaxed);
        self.budget.shift(bytes, 0);
    }

    /// Bytes accounted.
    pub fn accounted(&self) -> u64 {
        self.accounted.load(Relaxed)
    }
}

impl Drop for Account {
    fn drop(&mut self) {
        self.settle(0);
    }
}

/// Bytes of a hash table (`hashbrown`'s layout, std's and `rustc_hash`'s maps and sets) that
/// holds `capacity` entries of `slot` bytes: its buckets (a power of two, at most 7/8 full) and
/// a control byte each.
pub fn table_bytes(capacity: usize, slot: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    (capacity * 8).div_ceil(7).next_power_of_two() * (slot + 1)
}

/// The memory this process may use: the host's (`MemTotal`), or its cgroup's limit when lower
/// (cgroup v2 `memory.max`, v1 `memory.limit_in_bytes`). `None` when neither can be read.
pub fn host_memory() -> Option<u64> {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| meminfo_total(&s));
    let cgroup = cgroup_limit();
    match (total, cgroup) {
        (Some(t), Some(c)) => Some(t.min(c)),
        (t, c) => t.or(c),
    }
}

/// `MemTotal` of `/proc/meminfo`, bytes.
fn meminfo_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// This process's cgroup memory limit, if it has one.
fn cgroup_limit() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    // v2: "0::/path"; v1: "N:memory:/path".
    let mut candidates = Vec::new();
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next(), parts.next(), parts.next());
        let (Some(controllers), Some(path)) = (controllers, path) else {
            continue;
        };
        if controllers.is_empty() {
            candidates.push(format!("/sys/fs/cgroup{path}/memory.max"));
            candidates.push("/sys/fs/cgroup/memory.max".to_string());
        } else if controllers.split(',').any(|c| c == "memory") {
            candidates.push(format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"));
            candidates.push("/sys/fs/cgroup/memory/memory.limit_in_bytes".to_string());
        }
    }
    candidates
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .find_map(|s| parse_limit(&s))
}

/// A cgroup limit file's value: bytes, or `None` for "max" and v1's "no limit" (a value near
/// `i64::MAX`).
fn parse_limit(s: &str) -> Option<u64> {
    let v: u64 = s.trim().parse().ok()?;
    (v < (1 << 60)).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_add_up_and_leave_when_dropped() {
        let b = Budget::new(1600);
        let a = Account::new(b.clone());
        let c = Account::new(b.clone());
        a.settle(500);
        c.settle(300);
        assert_eq!(b.used(), 800);
        a.settle(200);
        assert_eq!(b.used(), 500);
        drop(c);
        assert_eq!(b.used(), 200);
        drop(a);
        assert_eq!(b.used(), 0);
    }

    /// Tight from 15/16 of the limit, eased below 7/8 (not in between), each episode counted.
    #[test]
    fn tight_from_fifteen_sixteenths_until_below_seven_eighths() {
        let b = Budget::new(1600);
        let a = Account::new(b.clone());
        a.settle(1499);
        assert!(!b.judge());
        assert!(b.fits(1) && !b.fits(2), "growth fits up to the mark");
        a.settle(1500);
        assert!(b.judge() && b.tight());
        a.settle(1450);
        assert!(b.judge(), "still tight above 7/8");
        a.settle(1399);
        assert!(!b.judge() && !b.tight());
        a.settle(1600);
        assert!(b.judge());
        assert_eq!(b.episodes(), 2);
        assert_eq!(b.peak(), 1600);
    }

    /// What a holder let go of while another held it stays accounted until the other drops it.
    #[test]
    fn what_outlives_its_holder_stays_accounted_until_dropped() {
        let b = Budget::new(1600);
        let tick: Arc<dyn Any + Send + Sync> = Arc::new(vec![0u8; 10]);
        let tap = Arc::clone(&tick);
        b.outlived(Arc::downgrade(&tick), 500);
        drop(tick);
        assert!(!b.judge());
        assert_eq!(
            (b.used(), b.outliving_bytes()),
            (500, 500),
            "the tap holds it"
        );
        drop(tap);
        b.judge();
        assert_eq!((b.used(), b.outliving_bytes()), (0, 0));
        // Already dropped by everyone: nothing to account.
        let gone: Arc<dyn Any + Send + Sync> = Arc::new(1u8);
        let weak = Arc::downgrade(&gone);
        drop(gone);
        b.outlived(weak, 700);
        assert_eq!(b.used(), 0);
    }

    /// A table's buckets from what it holds: a power of two, at most 7/8 full.
    #[test]
    fn table_bytes_follow_hashbrowns_buckets() {
        let mut m: std::collections::HashMap<u64, u64> = Default::default();
        assert_eq!(table_bytes(m.capacity(), 16), 0);
        for i in 0..1792 {
            m.insert(i, i);
        }
        assert_eq!(table_bytes(m.capacity(), 16), 2048 * 17, "7/8 of 2048");
        m.insert(5000, 0);
        assert_eq!(table_bytes(m.capacity(), 16), 4096 * 17, "past 7/8 of 2048");
    }

    #[test]
    fn unlimited_is_never_tight() {
        let b = Budget::unlimited();
        let a = Account::new(b.clone());
        a.settle(u64::MAX / 2);
        assert!(!b.judge());
        assert!(b.fits(1 << 40));
    }

    #[test]
    fn limits_are_read_from_meminfo_and_cgroup_files() {
        assert_eq!(
            meminfo_total("MemTotal:       24684092 kB\nMemFree: 1 kB\n"),
            Some(24684092 * 1024)
        );
        assert_eq!(meminfo_total("nothing"), None);
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(parse_limit("1073741824\n"), Some(1 << 30));
        assert!(host_memory().is_some_and(|m| m > 0));
    }
}
