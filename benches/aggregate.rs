//! What a timer's count costs by how it reaches memory: a second of the e2e corpus's timers at
//! 100k requests/s, keyed by the finest key of `benches/e2e.sh`'s distinct timer reports (the five
//! request fields and the three timer tags), aggregated three ways: what the stages of an exact
//! design for many different timer reports cost alone (docs/REPORTS.md, "Lattice stages", what
//! many different timer reports cost at least).
//!
//! - `row by row`: each timer looked up in one hash table of rows, in arrival order: a random
//!   row per timer, as a stage or report is updated today (without the update path's sort and
//!   prefetch, so a bound from above on the lookup's cost);
//! - `partitioned`: each timer appended to a log; at the drain the log is scattered by its key
//!   hash's top bits into partitions of a few hundred entries, and each partition aggregated in
//!   a small table that stays in the L1/L2 cache, its rows appended to the output in turn;
//! - `indexed`: the same with 8-byte log entries (the key hash and the timer's index), the key
//!   and contribution read from the timers at the aggregation, fetched ahead;
//! - `fold`: the partitioned output folded the same way into a coarser key
//!   (script_name + the three tags), per output row.
//!
//! Rows hold what a timer row holds (counts, sums, a histogram). Prints ns per timer (median of
//! five drains) and the rows each way made. `--rows`: the rows each of the 40 distinct timer
//! reports holds after a 15 s tick (~1.5 GiB, 2 minutes).
//!
//! `cargo bench --bench aggregate`

use std::time::Instant;

use pinbad::corpus::{Corpus, CorpusSpec};
use pinbad::histogram::{bucket_of, Histogram};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;

/// Requests in a drain: one second at 100k/s.
const REQUESTS: usize = 100_000;
/// Drains measured (the median is printed).
const DRAINS: usize = 5;
/// Bits of the key hash that pick a partition.
const PARTITION_BITS: u32 = 11;

type Key = [u32; 8];

/// One timer's contribution.
#[derive(Clone, Copy)]
struct Timer {
    bucket: u16,
    hits: u32,
    value_ns: u64,
    ru_ns: u64,
    request: u32,
}

/// A row: what a timer report's row sums.
#[derive(Clone, Default)]
struct Row {
    req_count: u32,
    last_request: u32,
    hits: u64,
    value_ns: u64,
    ru_ns: u64,
    hist: Histogram,
}

impl Row {
    #[inline]
    fn add(&mut self, t: &Timer) {
        if self.last_request != t.request + 1 {
            self.last_request = t.request + 1;
            self.req_count += 1;
        }
        self.hits += u64::from(t.hits);
        self.value_ns += t.value_ns;
        self.ru_ns += t.ru_ns;
        self.hist.add_bucket(t.bucket, u64::from(t.hits));
    }

    fn add_row(&mut self, o: &Row) {
        self.req_count += o.req_count;
        self.hits += o.hits;
        self.value_ns += o.value_ns;
        self.ru_ns += o.ru_ns;
        self.hist.add_hist(&o.hist);
    }
}

/// The corpus's timers of `n` requests, keyed by interned ids.
fn timers(n: usize) -> Vec<(Key, Timer)> {
    let mut corpus = Corpus::new(CorpusSpec::default());
    let mut ids: FxHashMap<Vec<u8>, u32> = FxHashMap::default();
    let mut id = |s: &[u8]| {
        let next = ids.len() as u32;
        *ids.entry(s.to_vec()).or_insert(next)
    };
    let mut out = Vec::new();
    for r in 0..n {
        let req = corpus.next_request();
        let schema = req.schema.as_deref().map_or(u32::MAX, &mut id);
        let fields = [
            id(&req.hostname),
            id(&req.server_name),
            id(&req.script_name),
            req.status.unwrap_or(0),
            schema,
        ];
        let mut tag = 0;
        for (i, &count) in req.timer_tag_count.iter().enumerate() {
            let mut key = [0u32; 8];
            key[..5].copy_from_slice(&fields);
            for k in 0..count as usize {
                let value = req.timer_tag_value[tag + k] as usize;
                if k < 3 {
                    key[5 + k] = id(&req.dictionary[value]);
                }
            }
            tag += count as usize;
            let value_ns = (f64::from(req.timer_value[i]) * 1e9) as u64;
            out.push((
                key,
                Timer {
                    bucket: bucket_of(value_ns),
                    hits: req.timer_hit_count[i],
                    value_ns,
                    ru_ns: (f64::from(req.timer_ru_utime[i]) * 1e9) as u64,
                    request: r as u32,
                },
            ));
        }
    }
    out
}

/// Each timer looked up in one table; returns the rows made.
fn row_by_row(table: &mut FxHashMap<Key, Row>, timers: &[(Key, Timer)]) -> usize {
    table.clear();
    for (k, t) in timers {
        table.entry(*k).or_default().add(t);
    }
    table.len()
}

/// A partitioned aggregation's buffers, reused drain after drain: a log of entries `T` under
/// their keys and key hashes, and the rows it made.
struct Partitioned<T> {
    log: Vec<(u64, Key, T)>,
    scattered: Vec<(u64, Key, T)>,
    small: FxHashMap<Key, Row>,
    out: Vec<(Key, Row)>,
}

impl<T> Default for Partitioned<T> {
    fn default() -> Self {
        Partitioned {
            log: Vec::new(),
            scattered: Vec::new(),
            small: FxHashMap::default(),
            out: Vec::new(),
        }
    }
}

impl<T: Copy> Partitioned<T> {
    /// Logs `entries` under their keys (what the per-request path would do), then aggregates the
    /// log with `add`; adds each phase's time (ns: log, scatter, aggregate) to `phases`. Returns
    /// the rows made.
    fn run(
        &mut self,
        entries: impl Iterator<Item = (Key, T)>,
        add: impl Fn(&mut Row, &T),
        phases: &mut [f64; 3],
    ) -> usize {
        let t = Instant::now();
        self.log.clear();
        self.log
            .extend(entries.map(|(k, e)| (FxBuildHasher.hash_one(k), k, e)));
        let t = lap(t, &mut phases[0]);
        scatter(&self.log, &mut self.scattered);
        let t = lap(t, &mut phases[1]);
        self.out.clear();
        let (small, out) = (&mut self.small, &mut self.out);
        each_partition(&self.scattered, |part| {
            small.clear();
            for (_, k, e) in part {
                add(small.entry(*k).or_default(), e);
            }
            out.extend(small.drain());
        });
        lap(t, &mut phases[2]);
        self.out.len()
    }
}

/// Adds the time since `t` to `into`; returns now.
fn lap(t: Instant, into: &mut f64) -> Instant {
    let now = Instant::now();
    *into += (now - t).as_nanos() as f64;
    now
}

/// Counting sort by the hash's top [`PARTITION_BITS`] bits (stable).
fn scatter<T: Copy>(log: &[(u64, Key, T)], out: &mut Vec<(u64, Key, T)>) {
    let shift = 64 - PARTITION_BITS;
    let mut counts = vec![0usize; (1 << PARTITION_BITS) + 1];
    for e in log {
        counts[(e.0 >> shift) as usize + 1] += 1;
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    // Sized once and reused: resizing writes only what grows.
    let Some(&first) = log.first() else {
        out.clear();
        return;
    };
    out.resize(log.len(), first);
    for e in log {
        let at = &mut counts[(e.0 >> shift) as usize];
        out[*at] = *e;
        *at += 1;
    }
}

/// The indexed aggregation's log and its scattered copy: (key hash's top 32 bits, timer index).
type IndexedLog = (Vec<(u32, u32)>, Vec<(u32, u32)>);

/// Partitioned with 8-byte entries: the key hash's top 32 bits and the timer's index. The key and
/// the contribution are read from the timers at the aggregation, fetched a few entries ahead.
/// Returns the rows made; adds each phase's time to `phases`.
fn indexed(
    timers: &[(Key, Timer)],
    bufs: &mut IndexedLog,
    small: &mut FxHashMap<Key, Row>,
    out: &mut Vec<(Key, Row)>,
    phases: &mut [f64; 3],
) -> usize {
    const AHEAD: usize = 8;
    let (log, scattered) = bufs;
    let t = Instant::now();
    log.clear();
    log.extend(
        timers
            .iter()
            .enumerate()
            .map(|(i, (k, _))| ((FxBuildHasher.hash_one(k) >> 32) as u32, i as u32)),
    );
    let t = lap(t, &mut phases[0]);
    let shift = 32 - PARTITION_BITS;
    let mut counts = vec![0usize; (1 << PARTITION_BITS) + 1];
    for e in log.iter() {
        counts[(e.0 >> shift) as usize + 1] += 1;
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    scattered.resize(log.len(), (0, 0));
    let mut at = counts.clone();
    for e in log.iter() {
        let a = &mut at[(e.0 >> shift) as usize];
        scattered[*a] = *e;
        *a += 1;
    }
    let t = lap(t, &mut phases[1]);
    out.clear();
    for p in 0..1 << PARTITION_BITS {
        let part = &scattered[counts[p]..counts[p + 1]];
        small.clear();
        for (j, e) in part.iter().enumerate() {
            if let Some(ahead) = part.get(j + AHEAD) {
                prefetch(&timers[ahead.1 as usize]);
            }
            let (k, c) = &timers[e.1 as usize];
            small.entry(*k).or_default().add(c);
        }
        out.extend(small.drain());
    }
    lap(t, &mut phases[2]);
    out.len()
}

/// Asks the CPU for the cache line holding `x`.
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it reads nothing the program sees and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const T).cast(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Calls `f` with each run of entries sharing a partition.
fn each_partition<T>(sorted: &[(u64, Key, T)], mut f: impl FnMut(&[(u64, Key, T)])) {
    let shift = 64 - PARTITION_BITS;
    let mut start = 0;
    while start < sorted.len() {
        let p = sorted[start].0 >> shift;
        let end = start + sorted[start..].partition_point(|e| e.0 >> shift == p);
        f(&sorted[start..end]);
        start = end;
    }
}

/// `--rows`: the rows each of the 40 distinct timer reports holds after a 15 s tick at 100k/s
/// (1.5M requests), against the tick's timers: the row writes per timer that any exact
/// aggregation pays at least once a tick, however it reaches memory.
fn rows_per_tick() {
    const TICK: usize = 1_500_000;
    let all = timers(TICK);
    println!("{TICK} requests, {} timers", all.len());
    let column = |k: &str| match k {
        "hostname" => 0,
        "server_name" => 1,
        "script_name" => 2,
        "status" => 3,
        "schema" => 4,
        "timer_tag:group" => 5,
        "timer_tag:server" => 6,
        "timer_tag:op" => 7,
        other => panic!("no column for {other}"),
    };
    let mut total = 0usize;
    let mut set: rustc_hash::FxHashSet<Key> = Default::default();
    for def in pinbad::corpus::distinct_timer_tag_report_defs(40) {
        let cols: Vec<usize> = def.keys.iter().map(|k| column(k)).collect();
        set.clear();
        for (k, _) in &all {
            let mut p = [u32::MAX; 8];
            for &c in &cols {
                p[c] = k[c];
            }
            set.insert(p);
        }
        total += set.len();
        println!(
            "{:24} {:>9} rows ({:.3} a timer)  {}",
            def.name,
            set.len(),
            set.len() as f64 / all.len() as f64,
            def.keys.join(",")
        );
    }
    println!(
        "all 40: {total} rows, {:.2} a timer, {:.1} a request",
        total as f64 / all.len() as f64,
        total as f64 / TICK as f64
    );
}

/// Runs `run` over a first drain (sizing its buffers, so that the phases' means leave the page
/// faults out), then over each drain; prints the median ns a timer and each phase's mean.
/// Returns the rows the last drain made.
fn phased(
    drains: &[Vec<(Key, Timer)>],
    label: &str,
    mut run: impl FnMut(&[(Key, Timer)], &mut [f64; 3]) -> usize,
) -> usize {
    let mut phases = [0.0; 3];
    run(&drains[0], &mut phases);
    phases = [0.0; 3];
    let (ns, rows) = timed(drains, |d| run(d, &mut phases));
    let timers: usize = drains.iter().map(Vec::len).sum();
    let [log, scatter, aggregate] = phases.map(|x| x / timers as f64);
    println!(
        "{label} {ns:6.1} ns a timer, {rows} rows (mean: log {log:.1}, scatter {scatter:.1}, aggregate {aggregate:.1})"
    );
    rows
}

/// The median over the drains of `run`'s ns a timer, and the rows the last drain made.
fn timed(
    drains: &[Vec<(Key, Timer)>],
    mut run: impl FnMut(&[(Key, Timer)]) -> usize,
) -> (f64, usize) {
    let mut rows = 0;
    let ns = median(
        drains
            .iter()
            .map(|d| {
                let t = Instant::now();
                rows = run(d);
                t.elapsed().as_nanos() as f64 / d.len() as f64
            })
            .collect(),
    );
    (ns, rows)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    if std::env::args().any(|a| a == "--rows") {
        return rows_per_tick();
    }
    let drains: Vec<Vec<(Key, Timer)>> = {
        let all = timers(REQUESTS * DRAINS);
        let per = all.len() / DRAINS;
        all.chunks(per).take(DRAINS).map(<[_]>::to_vec).collect()
    };
    let n = drains[0].len();
    println!(
        "{REQUESTS} requests a drain, {n} timers ({:.1} a request)",
        n as f64 / REQUESTS as f64
    );

    let mut table = FxHashMap::default();
    let (a, rows) = timed(&drains, |d| row_by_row(&mut table, d));
    println!("row by row:  {a:6.1} ns a timer, {rows} rows");

    let mut p = Partitioned::default();
    phased(&drains, "partitioned:", |d, phases| {
        p.run(d.iter().copied(), Row::add, phases)
    });
    let (mut bufs, mut small, mut out) = Default::default();
    phased(&drains, "indexed:    ", |d, phases| {
        indexed(d, &mut bufs, &mut small, &mut out, phases)
    });

    let mut f = Partitioned::<u32>::default();
    let rows_of = &p.out;
    let mut coarse = 0;
    let c = median(
        (0..DRAINS)
            .map(|_| {
                let t = Instant::now();
                let coarser = rows_of
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| ([k[2], k[5], k[6], k[7], 0, 0, 0, 0], i as u32));
                let add = |row: &mut Row, i: &u32| row.add_row(&rows_of[*i as usize].1);
                coarse = f.run(coarser, add, &mut [0.0; 3]);
                t.elapsed().as_nanos() as f64 / rows_of.len() as f64
            })
            .collect(),
    );
    println!(
        "fold to script + tags: {c:6.1} ns a row folded, {coarse} rows from {}",
        rows_of.len()
    );
}
