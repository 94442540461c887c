//! Merge cost per request: intern + pool insert (with eviction, the steady state of a full pool) +
//! updating the default report set (info, the 18 `report_by_*`, 4 timer-tag reports), at 100, 10k
//! and 1M distinct rows in the widest reports.
//!
//! `cargo bench --bench merge` (add `-- --quick` for a short run; `-- intern` for the
//! interning case alone). Each iteration merges one batch of
//! `BATCH` decoded PHP-like requests into a pool that was filled first, so every insert also evicts
//! (subtracts) the oldest request, as in production.

use std::sync::Arc;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use pinbad::config::Config;
use pinbad::corpus::{Corpus, CorpusSpec};
use pinbad::decode::{DecodePolicy, Decoder};
use pinbad::merger::Merger;
use pinbad::record::Batch;
use pinbad::report::ReportDef;
use pinbad::ring::Ring;
use pinbad::state::Core;

const BATCH: usize = 1024;

/// Decoded batches of the corpus: `n` requests in batches of `BATCH`.
fn batches(spec: CorpusSpec, n: usize) -> Vec<Batch> {
    let mut corpus = Corpus::new(spec);
    let mut decoder = Decoder::new(DecodePolicy::default());
    let mut stats = Default::default();
    let mut buf = Vec::new();
    let mut out = Vec::new();
    let mut batch = Batch::default();
    for _ in 0..n {
        corpus.next_datagram(&mut buf);
        decoder.decode(&buf, &mut batch, &mut stats);
        if batch.len() == BATCH {
            out.push(std::mem::take(&mut batch));
        }
    }
    out
}

fn clone_batch(b: &Batch) -> Box<Batch> {
    Box::new(b.clone())
}

/// (label, scripts, hosts, pool size): rows of report_by_hostname_and_script ≈ scripts × hosts.
const CASES: [(&str, usize, usize, usize); 2] =
    [("100_rows", 5, 20, 100_000), ("10k_rows", 500, 20, 200_000)];

/// A case for `MERGE_PROFILE` and `MERGE_RATIO` only: benches/e2e.sh's corpus (1,000 scripts and 20
/// hosts by Zipf popularity, the rows a report gets at 100k/s there).
const E2E_CASE: (&str, usize, usize, usize) = ("e2e", 1000, 20, 200_000);

/// (merge threads, timer-tag reports) measured for each case.
const SETS: [(usize, usize); 6] = [(1, 4), (2, 4), (1, 20), (1, 40), (2, 40), (1, 100)];

/// The window of the benchmark: 5 s in 10 ticks, so that ticks close and expire many times during
/// a measurement (the steady state of a full window), and the pool is full too.
const HISTORY: &str = "5s";
const TICKS: u32 = 5;

/// `n` timer-tag reports: the four of the benchmark set, repeated under other names; with
/// `MERGE_MIXED=1`, over the 12 key sets of `benches/e2e.sh`'s `TIMER_REPORTS_MIXED`; with
/// `MERGE_DISTINCT=1`, over `n` different key sets (`TIMER_REPORTS_DISTINCT`).
fn timer_reports(n: usize) -> Vec<ReportDef> {
    if std::env::var("MERGE_MIXED").is_ok_and(|v| v == "1") {
        return pinbad::corpus::mixed_timer_tag_report_defs(n);
    }
    if std::env::var("MERGE_DISTINCT").is_ok_and(|v| v == "1") {
        return pinbad::corpus::distinct_timer_tag_report_defs(n);
    }
    let four = pinbad::corpus::timer_tag_report_defs();
    (0..n)
        .map(|i| {
            let mut d = four[i % 4].clone();
            if i >= 4 {
                d.name = format!("{}_{i}", d.name);
            }
            d
        })
        .collect()
}

/// A merger with `threads` merge threads and the default set plus `timer_reports` timer-tag
/// reports, over a pool of `pool` requests and a window that are both full (filled for one
/// window's length of wall time), and fresh batches to measure on.
fn setup(
    label: &str,
    scripts: usize,
    hosts: usize,
    pool: usize,
    threads: usize,
    timer_reports_n: usize,
) -> (Arc<Ring>, Merger, Vec<Batch>, Arc<Core>) {
    let spec = CorpusSpec {
        seed: 7,
        scripts,
        hosts,
        // The e2e case has benches/e2e.sh's popularity (Zipf); the others are uniform.
        zipf_s: if label == E2E_CASE.0 { 1.0 } else { 0.0 },
        ..CorpusSpec::default()
    };
    let mut config = Config {
        request_pool_size: pool,
        timer_pool_size: pool * 16,
        tag_pool_size: pool * 52,
        stats_history: HISTORY.parse().expect("history"),
        report_ticks: TICKS,
        ..Config::default()
    };
    config.limits.max_reports = 1000;
    config.merge.threads = threads;
    // The bench's own thread is the merger and is not lowered: keep its workers level with it
    // (in the daemon both are lowered, `merge.nice`).
    config.merge.nice = Some(0);
    // MERGE_FAMILIES=0: every report updated on its own (what families save).
    config.merge.families = std::env::var("MERGE_FAMILIES").map_or(true, |v| v != "0");
    // MERGE_REQUEST_FAMILIES=0: timer families only (what the built-ins' family saves).
    config.merge.request_families =
        std::env::var("MERGE_REQUEST_FAMILIES").map_or(true, |v| v != "0");
    // MERGE_LATTICE=1: lattice stages around tops (`merge.lattice`); 0, the daemon's default:
    // timer families over one set of timer tags each.
    config.merge.lattice =
        std::env::var("MERGE_LATTICE").map_or(config.merge.lattice, |v| v != "0");
    // MERGE_WINDOW=30s:2: another window (`stats_history:report_ticks`), e.g. production's 15 s
    // ticks, whose per-tick work (folds) the default 1 s ticks pay 15 times as often.
    if let Ok(w) = std::env::var("MERGE_WINDOW") {
        let (history, ticks) = w.split_once(':').expect("MERGE_WINDOW=HISTORY:TICKS");
        config.stats_history = history.parse().expect("MERGE_WINDOW's history");
        config.report_ticks = ticks.parse().expect("MERGE_WINDOW's ticks");
    }
    config.state_dir = std::env::temp_dir().join("pinbad-bench-no-state");
    config.report = timer_reports(timer_reports_n);
    // MERGE_HISTORY=0: no report keeps history, to measure what history costs the merge: with
    // it (the default), the built-ins keep the ticks they close for the history writer and the
    // merge threads hand them over (the writer itself is not started here: its own cost is
    // measured in the daemon, see BENCHMARKS.md "History").
    config.history.enabled = std::env::var("MERGE_HISTORY").map_or(true, |v| v != "0");
    let ring = Arc::new(Ring::new(1 << 30));
    let shared = Arc::new(Core::new(config, Arc::clone(&ring), vec![], 0).expect("shared"));
    let mut merger = Merger::new(Arc::clone(&shared), Arc::clone(&ring));
    let fill = batches(spec.clone(), pool + BATCH);
    let window = shared.config().stats_history.0;
    let started = clock_now(&shared);
    merge_until(&ring, &mut merger, &shared, &fill, || {
        clock_now(&shared) - started > window && shared.pool().read().len() == pool
    });
    let measured = batches(CorpusSpec { seed: 8, ..spec }, 64 * BATCH);
    // The report threads' plan as the daemon's would be in this steady state (it rebalances
    // every 10 s): from the costs of a second of merging like the measurement's, not of the fill.
    merger.balance();
    let started = clock_now(&shared);
    merge_until(&ring, &mut merger, &shared, &measured, || {
        clock_now(&shared) - started > std::time::Duration::from_secs(1)
    });
    merger.balance();
    let rows: usize = shared
        .reports()
        .snapshot()
        .iter()
        .map(|c| c.report.read().rows())
        .max()
        .unwrap_or(0);
    eprintln!(
        "{label}: pool {} requests, widest report {rows} rows, {} reports, {threads} threads",
        shared.pool().read().len(),
        shared.reports().len()
    );
    (ring, merger, measured, shared)
}

/// Whether the command line's filters (criterion's positional arguments, regexes) select `id`;
/// cases that are not selected are not even set up (filling takes a window's length of time).
fn selected(id: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    // Values of options that take one (`--measurement-time 4`) look like filters: ignore numbers.
    let filters: Vec<&String> = filters
        .iter()
        .filter(|f| f.parse::<f64>().is_err())
        .collect();
    filters.is_empty()
        || filters
            .iter()
            .any(|f| regex::Regex::new(f).is_ok_and(|re| re.is_match(id)))
}

/// The case of [`CASES`] called `label` (from `MERGE_PROFILE` or `MERGE_RATIO`).
fn case_named(label: &str) -> (&'static str, usize, usize, usize) {
    *CASES
        .iter()
        .chain([&E2E_CASE])
        .find(|c| c.0 == label)
        .unwrap_or_else(|| panic!("unknown case {label}"))
}

/// A number given after a case's label, or `default`.
fn number(part: Option<&str>, default: usize, what: &str) -> usize {
    part.map_or(default, |p| {
        p.parse().unwrap_or_else(|_| panic!("{what}: {p}"))
    })
}

/// Profiling mode, for instruction counts: `MERGE_PROFILE=100_rows[:THREADS[:TIMER_REPORTS[:BATCHES]]]`
/// sets a case up and merges `BATCHES` (default 16; the 64 fresh batches, cycled) in
/// [`measured`], which callgrind can single out with `--toggle-collect='*measured*'`. Prints the
/// wall time per request, each thread's time running and waiting to run, and each report's and
/// each merge thread's instrumented time, all over the measured batches alone: with 2 threads,
/// wall time above the busier thread's running time is time a thread waited for the other.
fn profile(spec: &str) {
    let mut parts = spec.split(':');
    let (label, scripts, hosts, pool) = case_named(parts.next().unwrap_or("100_rows"));
    let threads = number(parts.next(), 1, "threads");
    let timers = number(parts.next(), 4, "timer reports");
    let n = number(parts.next(), 16, "batches");
    let (ring, mut merger, batches, shared) = setup(label, scripts, hosts, pool, threads, timers);
    // Each instrument's total before the measured batches: the figures printed are theirs alone
    // (the set-up's fill is another load).
    let inst = &shared.counters().instruments;
    let cells = shared.reports().snapshot();
    let own_before = [inst.intern.total_ns(), inst.pool.total_ns()];
    let reports_before: Vec<u64> = cells.iter().map(|c| c.instrument.total_ns()).collect();
    let cpu_before = thread_cpu_ns();
    let t = std::time::Instant::now();
    let picked: Vec<&Batch> = batches.iter().cycle().take(n).collect();
    measured(&ring, &mut merger, &shared, &picked);
    let per = t.elapsed().as_nanos() as f64 / (n * BATCH) as f64;
    eprintln!("{label}: {per:.0} ns per request over {n} batches");
    let per_request = |ns: u64| ns as f64 / (n * BATCH) as f64;
    for (name, ran, waited) in thread_cpu_ns() {
        let was = cpu_before
            .iter()
            .find(|b| b.0 == name)
            .map_or((0, 0), |b| (b.1, b.2));
        eprintln!(
            "  thread {name}: ran {:.0} ns/request, waited to run {:.0}",
            per_request(ran - was.0),
            per_request(waited - was.1)
        );
    }
    let spent =
        |i: &pinbad::instruments::Instrument, before: u64| per_request(i.total_ns() - before);
    eprintln!(
        "  merger's own work: intern {:.0} ns/request, pool {:.0} ns/request",
        spent(&inst.intern, own_before[0]),
        spent(&inst.pool, own_before[1])
    );
    let mut per_thread = vec![0f64; threads];
    per_thread[0] = spent(&inst.intern, own_before[0]) + spent(&inst.pool, own_before[1]);
    for (c, &b) in cells.iter().zip(&reports_before) {
        let ns = spent(&c.instrument, b);
        per_thread[c.worker().min(threads - 1)] += ns;
        eprintln!(
            "  {:40} worker {} rows {:>7} {:>6.0} ns/request",
            c.name(),
            c.worker(),
            c.published_rows(),
            ns
        );
    }
    eprintln!("  per thread (ns/request of its reports and own work): {per_thread:.0?}");
}

/// Each thread of this process by name, with the time it ran and the time it waited to run
/// while runnable (ns, `/proc/self/task/*/schedstat`).
fn thread_cpu_ns() -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        let f: Vec<u64> = stat
            .split_whitespace()
            .map(|x| x.parse().unwrap_or(0))
            .collect();
        if f.len() >= 2 {
            out.push((comm.trim().to_string(), f[0], f[1]));
        }
    }
    out
}

/// Scaling mode: `MERGE_RATIO=10k_rows[:TIMER_REPORTS[:ROUNDS]]` sets the case up twice, with 1
/// and with 2 merge threads, and merges `SLICE` batches into one, then as many into the other,
/// `ROUNDS` times (default 20), swapping which goes first each round, after one slice each that
/// is not counted (the windows moved on while the other setup was filled). The machine's speed
/// moves 30–40 % within minutes here; two runs minutes apart compared that, where slices a
/// second apart share it. Each slice spans a few of the window's 1 s ticks, so that tick closes
/// fall evenly on both. Prints each setup's time per request and their ratio, overall and per
/// round (median and range).
fn ratio(spec: &str) {
    let mut parts = spec.split(':');
    let (label, scripts, hosts, pool) = case_named(parts.next().unwrap_or("10k_rows"));
    let timers = number(parts.next(), 4, "timer reports");
    let rounds = number(parts.next(), 20, "rounds");
    let mut one = setup(label, scripts, hosts, pool, 1, timers);
    let mut two = setup(label, scripts, hosts, pool, 2, timers);
    let batches = std::mem::take(&mut one.2);
    let (mut total_one, mut total_two) = (0u128, 0u128);
    const SLICE: usize = 256;
    let mut per_round = Vec::new();
    let mut next = 0;
    for round in 0..=rounds {
        let picked: Vec<&Batch> = (0..SLICE)
            .map(|k| &batches[(next + k) % batches.len()])
            .collect();
        next += SLICE;
        let time = |s: &mut (Arc<Ring>, Merger, Vec<Batch>, Arc<Core>)| {
            let t = std::time::Instant::now();
            measured(&s.0, &mut s.1, &s.3, &picked);
            t.elapsed().as_nanos()
        };
        let (a, b) = if round % 2 == 0 {
            let a = time(&mut one);
            (a, time(&mut two))
        } else {
            let b = time(&mut two);
            (time(&mut one), b)
        };
        if round == 0 {
            continue;
        }
        total_one += a;
        total_two += b;
        per_round.push(a as f64 / b as f64);
    }
    per_round.sort_by(f64::total_cmp);
    let n = (rounds * SLICE * BATCH) as f64;
    eprintln!(
        "{label}: 1 thread {:.0} ns, 2 threads {:.0} ns per request; 2 threads {:.2}x as fast \
         (median round {:.2}x, rounds {:.2}x to {:.2}x)",
        total_one as f64 / n,
        total_two as f64 / n,
        total_one as f64 / total_two as f64,
        per_round[per_round.len() / 2],
        per_round[0],
        per_round[per_round.len() - 1],
    );
}

/// `MERGE_RATE=R` (requests per second): the merge runs on a simulated clock that moves
/// `BATCH / R` seconds a round, so that each report tick holds what it holds in the daemon at
/// that rate, whatever the bench's own speed. Without it, a set-up that merges slowly (many
/// reports) closes its ticks after fewer requests than the daemon's at that rate, and a fast one
/// after more: the per-tick work (folds, tick closes, expiry) then weighs on each request by the
/// bench's speed, not by the rate measured.
fn simulated_rate() -> Option<f64> {
    std::env::var("MERGE_RATE").ok().map(|r| {
        let r: f64 = r.parse().expect("MERGE_RATE: requests per second");
        assert!(r > 0.0, "MERGE_RATE: requests per second");
        r
    })
}

thread_local! {
    /// Each set-up's simulated clock (by its `Core`), in µs of the pool's clock: the ratio mode
    /// runs two set-ups side by side, each with its own time.
    static SIMULATED_US: std::cell::RefCell<std::collections::HashMap<usize, u64>> =
        Default::default();
}

/// The simulated clock of `shared`'s set-up, in µs (started at the real clock's reading).
fn simulated_us(shared: &Core) -> u64 {
    SIMULATED_US.with(|m| {
        *m.borrow_mut()
            .entry(shared as *const Core as usize)
            .or_insert_with(|| shared.clock().now_ms64() * 1000)
    })
}

/// One merge round: at the simulated clock (moved a batch's worth first) under `MERGE_RATE`,
/// else at the real one.
fn round(merger: &mut Merger, shared: &Core) {
    match simulated_rate() {
        None => {
            merger.round();
        }
        Some(rate) => {
            let now = simulated_us(shared) + (BATCH as f64 * 1e6 / rate) as u64;
            SIMULATED_US.with(|m| m.borrow_mut().insert(shared as *const Core as usize, now));
            merger.round_at(now / 1000);
        }
    }
}

/// The set-up's time: on its simulated clock under `MERGE_RATE`, else the real one.
fn clock_now(shared: &Core) -> std::time::Duration {
    match simulated_rate() {
        Some(_) => std::time::Duration::from_micros(simulated_us(shared)),
        None => shared.clock().uptime(),
    }
}

/// Merges `batches`, cycled, one round each, until `done` (asked after each round), then waits
/// for the report threads.
fn merge_until(
    ring: &Ring,
    merger: &mut Merger,
    shared: &Core,
    batches: &[Batch],
    done: impl Fn() -> bool,
) {
    for b in batches.iter().cycle() {
        ring.push(clone_batch(b)).ok();
        round(merger, shared);
        if done() {
            break;
        }
    }
    merger.finish();
}

/// Merges the batches and waits for the report workers: the wall time of the whole pipeline.
#[inline(never)]
fn measured(ring: &Ring, merger: &mut Merger, shared: &Core, batches: &[&Batch]) {
    for b in batches {
        ring.push(clone_batch(b)).ok();
        round(merger, shared);
    }
    merger.finish();
}

fn merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge_per_request");
    group.sample_size(20);
    group.throughput(Throughput::Elements(BATCH as u64));
    for (label, scripts, hosts, pool) in CASES {
        for (threads, timers) in SETS {
            let id = format!("{label}/{threads}t_{timers}tr");
            if !selected(&format!("merge_per_request/{id}")) {
                continue;
            }
            let (ring, mut merger, measured_batches, shared) =
                setup(label, scripts, hosts, pool, threads, timers);
            let mut i = 0;
            group.bench_function(BenchmarkId::from_parameter(&id), |b| {
                b.iter_custom(|iters| {
                    let picked: Vec<Box<Batch>> = (0..iters)
                        .map(|_| {
                            i = (i + 1) % measured_batches.len();
                            clone_batch(&measured_batches[i])
                        })
                        .collect();
                    let t = std::time::Instant::now();
                    for b in picked {
                        ring.push(b).ok();
                        round(&mut merger, &shared);
                    }
                    merger.finish();
                    t.elapsed()
                })
            });
        }
    }
    group.finish();
}

/// Ten `[[rewrite]]` rules over the corpus's names: four on script names, one each on the host
/// and server names, two on request tag values and two on timer tag values; most requests are
/// hit by several.
fn ten_rules() -> Vec<pinbad::rewrite::RuleDef> {
    [
        ("script_name", r"(\D)\d+\.php$", "${1}N.php"),
        ("script_name", r"^/api/v\d/", "/api/"),
        ("script_name", r"^/index\.php$", "/"),
        ("script_name", r"/(edit|save|delete)\.php$", "/write.php"),
        ("hostname", r"^web0?(\d+)$", "web-$1"),
        ("server_name", r"\.example\.com$", ""),
        ("tag:country", r"^(us|ca|mx)$", "na"),
        ("tag:lang", r"^(..)$", "lang-$1"),
        ("timer_tag:server", r"\d+$", ""),
        ("timer_tag:op", r"^(select|get|fetch|search)$", "read"),
    ]
    .iter()
    .map(|(field, regex, replacement)| pinbad::rewrite::RuleDef {
        name: None,
        field: field.to_string(),
        regex: regex.to_string(),
        replacement: Some(replacement.to_string()),
        drop: false,
    })
    .collect()
}

/// The merger's interning alone: a batch of 1,024 corpus requests (~31 strings each: hostname,
/// server, script and ~27 of the request's own dictionary) turned into ids by a dictionary that
/// holds them all (the steady state). Per request: as received, and through ten `[[rewrite]]`
/// rules (their cost is the difference); over the default corpus (1,000 scripts: names repeat,
/// the rules' cache answers) and over 1,000,000 scripts (mostly names not seen before: the
/// rules run).
fn intern(c: &mut Criterion) {
    let mut group = c.benchmark_group("intern_per_request");
    group.throughput(Throughput::Elements(BATCH as u64));
    let rules = Arc::new(pinbad::rewrite::Rules::compile(&ten_rules(), 1 << 20, 1024).unwrap());
    for (corpus, scripts) in [("corpus_batch", 1000), ("unique_scripts", 1_000_000)] {
        for (label, rules) in [("", None), ("_10_rules", Some(&rules))] {
            let name = format!("{corpus}{label}");
            if !selected(&format!("intern_per_request/{name}")) {
                continue;
            }
            let mut dict = pinbad::dictionary::Dictionary::new(1 << 22);
            let spec = CorpusSpec {
                scripts,
                ..CorpusSpec::default()
            };
            let batches = batches(spec, 64 * BATCH);
            let mut interned = match rules {
                Some(r) => pinbad::merger::Interned::with_rewrite(Arc::clone(r)),
                None => pinbad::merger::Interned::default(),
            };
            // Warm: the dictionary holds every string (and the rules' cache what fits).
            for b in &batches {
                interned.intern(b, 1, &mut dict);
                interned.clear();
            }
            let mut next = batches.iter().cycle();
            group.bench_function(&name, |b| {
                b.iter(|| {
                    interned.intern(next.next().unwrap(), 1, &mut dict);
                    interned.flush_rewrite_hits();
                    interned.clear();
                })
            });
        }
    }
    // What a receiver does: the same batches interned under the shared dictionary's read lock
    // (`Interned::intern_batch`), through the receiver's own cache.
    if selected("intern_per_request/receiver") {
        let lock = parking_lot::RwLock::new(pinbad::dictionary::Dictionary::new(1 << 22));
        let mut batches = batches(CorpusSpec::default(), 64 * BATCH);
        let mut interned = pinbad::merger::Interned::default();
        for b in batches.iter_mut() {
            interned.intern_batch(b, &lock);
        }
        let mut i = 0;
        group.bench_function("receiver", |b| {
            b.iter(|| {
                i = (i + 1) % batches.len();
                interned.intern_batch(&mut batches[i], &lock);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, merge, intern);

fn main() {
    if let Ok(spec) = std::env::var("MERGE_PROFILE") {
        profile(&spec);
        return;
    }
    if let Ok(spec) = std::env::var("MERGE_RATIO") {
        ratio(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
