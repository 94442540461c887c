//! Report query cost: top-100 rows with 3 percentiles, by report cardinality (1k, 10k, 100k
//! rows over a pool of 300k requests). Target: p99 ≤ 5 ms at 10k rows.
//! Also sorting by a percentile, which computes it for every row, and the top 100 of 10k rows
//! whose histogram samples wait in the report's log (a query reads the shown rows' from it),
//! and the top 100 of 10k rows with the caches emptied before each query (`_cold`: a query
//! under load, where the merge threads keep the caches), and the top 100 of 10k rows whose
//! busy rows (open parts in the block form) have samples in the log (`_logged_busy`).
//!
//! `cargo bench --bench query -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pinbad::dictionary::Dictionary;
use pinbad::pool::Pool;
use pinbad::record::{TagPair, Timer};
use pinbad::report::{PreparedBatch, Query, Report, ReportDef};

mod common;
use common::request;

/// A `script_name` report with `rows` rows over a pool of 300k requests (at least 3 per row) of
/// varied times: at 1k rows every row has ~300 samples (paged histograms), at 100k rows 3. The
/// requests span 45 s, three of the window's 15 s ticks, so that rows are both in the closed
/// ticks and in the open one, as in a running daemon.
fn build(rows: usize) -> (Report, Dictionary) {
    let per_row = (300_000 / rows).max(3);
    let mut dict = Dictionary::new(rows * 2 + 100);
    let mut pool = Pool::new(rows * per_row, 16, 16);
    let def = ReportDef::new("bench", &["script_name"]);
    let mut report = Report::new(def, &mut dict, rows).unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let n = rows * per_row;
    for i in 0..n {
        report.advance((i as u64 * 45_000 / n as u64).max(1));
        let record = request(&mut dict, &mut seed, i % rows);
        let (id, _) = pool.insert(record, &[] as &[Timer], &[] as &[TagPair], &mut |_, _| {});
        report.add(&pool.get(id).unwrap());
    }
    assert_eq!(report.rows(), rows);
    (report, dict)
}

/// Adds `per_row` more requests per row to `report` as merge rounds do (batches of 1,024 whose
/// histogram samples wait in the report's log), after applying what the log held: a query then
/// reads `per_row` logged samples per row, as it does between the merge thread's flushes (up to
/// 8 a row for a queried report).
///
/// `skewed`: half of the samples go to the first 100 rows, which become the top 100 the query
/// shows (as under Zipf traffic, where the busiest rows log most samples); otherwise every row
/// gets the same number.
fn add_logged(
    report: &mut Report,
    dict: &mut Dictionary,
    rows: usize,
    per_row: usize,
    skewed: bool,
) {
    report.flush_hist();
    let n = rows * per_row;
    let mut pool = Pool::new(n.max(1), 16, 16);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut batch = PreparedBatch::default();
    for i in 0..n {
        let row = if skewed && i % 2 == 0 {
            (i / 2) % 100
        } else {
            i % rows
        };
        let record = request(dict, &mut seed, row);
        let (id, _) = pool.insert(record, &[] as &[Timer], &[] as &[TagPair], &mut |_, _| {});
        batch.push(&pool.get(id).unwrap());
        if batch.len() == 1024 || i + 1 == n {
            report.add_batch(&batch);
            batch = PreparedBatch::default();
        }
    }
    assert!(per_row == 0 || report.hist_pending());
}

/// The query every case runs: the top 100 rows with 3 percentiles.
fn top100() -> Query {
    Query {
        limit: Some(100),
        percentiles: Some(vec![50.0, 95.0, 99.0]),
        ..Query::default()
    }
}

fn query(c: &mut Criterion) {
    let mut group = c.benchmark_group("report_query");
    for rows in [1_000usize, 10_000, 100_000] {
        let (report, dict) = build(rows);
        let top = top100();
        group.bench_with_input(
            BenchmarkId::new("top100_3_percentiles", rows),
            &rows,
            |b, _| b.iter(|| report.query(&top, &dict, 60.0).unwrap()),
        );
        let by_p99 = Query {
            sort: Some("-p99".into()),
            ..top.clone()
        };
        group.bench_with_input(
            BenchmarkId::new("top100_sorted_by_p99", rows),
            &rows,
            |b, _| b.iter(|| report.query(&by_p99, &dict, 60.0).unwrap()),
        );
    }
    // Cold: each query after the caches were evicted (a 64 MiB buffer written first, not
    // timed), as under load, where the merge threads keep taking the caches back.
    {
        let (report, dict) = build(10_000);
        let top = top100();
        let mut evict = vec![0u8; 64 << 20];
        group.bench_function("top100_3_percentiles_cold/10000", |b| {
            b.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                for i in 0..iters {
                    for (j, line) in evict.chunks_mut(64).enumerate() {
                        line[0] = (i as usize + j) as u8;
                    }
                    let t = std::time::Instant::now();
                    std::hint::black_box(report.query(&top, &dict, 60.0).unwrap());
                    total += t.elapsed();
                }
                total
            })
        });
    }
    // The shown rows' samples read from the log (10k rows; 0: nothing logged).
    // Skewed: half of them are the shown rows' (as under Zipf traffic). A queried report keeps
    // 8 a row.
    for (per_row, skewed) in [(0, false), (8, false), (16, false), (8, true), (16, true)] {
        let (mut report, mut dict) = build(10_000);
        add_logged(&mut report, &mut dict, 10_000, per_row, skewed);
        let top = top100();
        let name = if skewed {
            "top100_3_percentiles_logged_per_row_skewed"
        } else {
            "top100_3_percentiles_logged_per_row"
        };
        group.bench_with_input(BenchmarkId::new(name, per_row), &per_row, |b, _| {
            b.iter(|| report.query(&top, &dict, 60.0).unwrap())
        });
    }
    // Busy shown rows: their open parts are blocks (a flushed round of skewed samples), and
    // more of their samples wait in the log, as in a loaded daemon between two flushes.
    {
        let (mut report, mut dict) = build(10_000);
        add_logged(&mut report, &mut dict, 10_000, 8, true);
        add_logged(&mut report, &mut dict, 10_000, 8, true);
        let top = top100();
        group.bench_function("top100_3_percentiles_logged_busy/8", |b| {
            b.iter(|| report.query(&top, &dict, 60.0).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, query);
criterion_main!(benches);
