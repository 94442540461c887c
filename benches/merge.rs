//! Merge cost per request: intern + pool insert (with eviction, the steady state of a full pool) +
//! updating the default report set (info, the 18 `report_by_*`, 4 timer-tag reports), at 100, 10k
//! and 1M distinct rows in the widest reports.
//!
//! `cargo bench --bench merge` (add `-- --quick` for a short run). Each iteration merges one batch of
//! `BATCH` decoded PHP-like requests into a pool that was filled first, so every insert also evicts
//! (subtracts) the oldest request, as in production.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use pinbad::app::Shared;
use pinbad::config::Config;
use pinbad::corpus::{Corpus, CorpusSpec};
use pinbad::decode::{DecodePolicy, Decoder};
use pinbad::merger::Merger;
use pinbad::record::Batch;
use pinbad::report::ReportDef;
use pinbad::ring::Ring;

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

fn merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge_per_request");
    group.sample_size(20);
    group.throughput(Throughput::Elements(BATCH as u64));
    // (label, scripts, hosts, pool size): rows of report_by_hostname_and_script ≈ scripts × hosts.
    for (label, scripts, hosts, pool) in [
        ("100_rows", 5, 20, 100_000),
        ("10k_rows", 500, 20, 200_000),
        ("1M_rows", 50_000, 20, 1_000_000),
    ] {
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
        let ring = Arc::new(Ring::new(16));
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
criterion_main!(benches);
