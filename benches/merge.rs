//! Merge cost per request: intern + pool insert (with eviction, the steady state of a full pool) +
//! updating the default report set (info, the 18 `report_by_*`, 4 timer-tag reports), at 100, 10k
//! and 1M distinct rows in the widest reports.
//!
//! `cargo bench --bench merge` (add `-- --quick` for a short run). Each iteration merges one batch of
//! `BATCH` decoded PHP-like requests into a pool that was filled first, so every insert also evicts
//! (subtracts) the oldest request, as in production.

use std::sync::Arc;

use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use pinbad::config::Config;
use pinbad::corpus::{Corpus, CorpusSpec};
use pinbad::decode::{DecodePolicy, Decoder};
use pinbad::merger::Merger;
use pinbad::record::Batch;
use pinbad::report::ReportDef;
use pinbad::ring::Ring;
use pinbad::shared::Shared;

const BATCH: usize = 1024;

/// The four timer-tag reports of the benchmark report set.
pub fn timer_tag_reports() -> Vec<ReportDef> {
    let def = |name: &str, keys: &[&str]| -> ReportDef {
        serde_json::from_value(serde_json::json!({"name": name, "keys": keys})).expect("report def")
    };
    vec![
        def("tag_info_group", &["timer_tag:group"]),
        def("tag_report_group", &["script_name", "timer_tag:group"]),
        def(
            "tag2_info_group_server",
            &["timer_tag:group", "timer_tag:server"],
        ),
        def(
            "tag_report2_op",
            &["script_name", "hostname", "server_name", "timer_tag:op"],
        ),
    ]
}

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
    Box::new(Batch {
        bytes: b.bytes.clone(),
        requests: b.requests.clone(),
        dictionary: b.dictionary.clone(),
        tags: b.tags.clone(),
        timers: b.timers.clone(),
        timer_tags: b.timer_tags.clone(),
    })
}

/// (label, scripts, hosts, pool size): rows of report_by_hostname_and_script ≈ scripts × hosts.
const CASES: [(&str, usize, usize, usize); 3] = [
    ("100_rows", 5, 20, 100_000),
    ("10k_rows", 500, 20, 200_000),
    ("1M_rows", 50_000, 20, 1_000_000),
];

/// A merger over a pool of `pool` requests, filled (with every report) from the corpus, and fresh
/// batches to measure on.
fn setup(
    label: &str,
    scripts: usize,
    hosts: usize,
    pool: usize,
) -> (Arc<Ring>, Merger, Vec<Batch>) {
    let spec = CorpusSpec {
        seed: 7,
        scripts,
        hosts,
        zipf_s: 0.0,
        ..CorpusSpec::default()
    };
    let mut config = Config {
        request_pool_size: pool,
        timer_pool_size: pool * 16,
        tag_pool_size: pool * 52,
        ..Config::default()
    };
    config.state_dir = std::env::temp_dir().join("pinbad-bench-no-state");
    config.report = timer_tag_reports();
    let ring = Arc::new(Ring::new(1 << 30));
    let shared = Arc::new(Shared::new(config, Arc::clone(&ring), vec![], 0).expect("shared"));
    let mut merger = Merger::new(Arc::clone(&shared), Arc::clone(&ring));
    // Fill the pool (and every report) first, then measure on fresh batches.
    let fill = batches(spec.clone(), pool + BATCH);
    for b in &fill {
        ring.push(clone_batch(b)).ok();
        merger.round();
    }
    let measured = batches(CorpusSpec { seed: 8, ..spec }, 64 * BATCH);
    let rows: usize = shared
        .reports
        .snapshot()
        .iter()
        .map(|c| c.report.read().rows())
        .max()
        .unwrap_or(0);
    eprintln!(
        "{label}: pool {} requests, widest report {rows} rows",
        shared.pool.read().len()
    );
    (ring, merger, measured)
}

/// Whether the command line's filters (criterion's positional arguments, regexes) select `id`;
/// cases that are not selected are not even set up (filling the 1M pool takes a long time).
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

/// Profiling mode, for instruction counts: `MERGE_PROFILE=100_rows[:POOL[:BATCHES]]` fills a pool
/// (default: the case's size) and merges `BATCHES` (default 16; the 64 fresh batches, cycled) in
/// [`measured`],
/// which callgrind can single out with `--toggle-collect='*measured*'`.
fn profile(spec: &str) {
    let mut parts = spec.split(':');
    let label = parts.next().unwrap_or("100_rows");
    let &(_, scripts, hosts, default_pool) = CASES
        .iter()
        .find(|c| c.0 == label)
        .expect("MERGE_PROFILE: unknown case");
    let pool = parts
        .next()
        .map_or(default_pool, |p| p.parse().expect("pool"));
    let n = parts.next().map_or(16, |p| p.parse().expect("batches"));
    let (ring, mut merger, batches) = setup(label, scripts, hosts, pool);
    let t = std::time::Instant::now();
    let picked: Vec<&Batch> = batches.iter().cycle().take(n).collect();
    measured(&ring, &mut merger, &picked);
    let per = t.elapsed().as_nanos() as f64 / (n * BATCH) as f64;
    eprintln!("{label}: {per:.0} ns per request over {n} batches");
}

#[inline(never)]
fn measured(ring: &Ring, merger: &mut Merger, batches: &[&Batch]) {
    for b in batches {
        ring.push(clone_batch(b)).ok();
        merger.round();
    }
}

fn merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge_per_request");
    group.sample_size(20);
    group.throughput(Throughput::Elements(BATCH as u64));
    for (label, scripts, hosts, pool) in CASES {
        if !selected(&format!("merge_per_request/{label}")) {
            continue;
        }
        let (ring, mut merger, measured) = setup(label, scripts, hosts, pool);
        let mut i = 0;
        group.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter_batched(
                || {
                    i = (i + 1) % measured.len();
                    clone_batch(&measured[i])
                },
                |batch| {
                    ring.push(batch).ok();
                    merger.round();
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, merge);

fn main() {
    if let Ok(spec) = std::env::var("MERGE_PROFILE") {
        profile(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
