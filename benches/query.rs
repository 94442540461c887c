//! Report query cost: top-100 rows with 3 percentiles, by report cardinality (1k, 10k, 100k
//! rows over a pool of 300k requests). Target (ARCHITECTURE.md): p99 ≤ 5 ms at 10k rows.
//! Also sorting by a percentile, which computes it for every row.
//!
//! `cargo bench --bench query -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pinbad::dictionary::Dictionary;
use pinbad::pool::Pool;
use pinbad::record::{Record, TagPair, Timer};
use pinbad::report::{Query, Report, ReportDef};

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
    let host = dict.intern(b"web1");
    let server = dict.intern(b"www.example.com");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let n = rows * per_row;
    for i in 0..n {
        report.advance((i as u64 * 45_000 / n as u64).max(1));
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let script = dict.intern(format!("/script/{}.php", i % rows).as_bytes());
        let record = Record {
            hostname: host,
            server_name: server,
            script_name: script,
            schema: u32::MAX,
            status: 200,
            request_time: (1 + seed % 2_000_000) as f32 * 1e-6,
            ru_utime: 0.001,
            ru_stime: 0.0005,
            document_size: (seed % 100_000) as u32,
            memory_footprint: 1 << 20,
            ..Record::default()
        };
        let (id, _) = pool.insert(record, &[] as &[Timer], &[] as &[TagPair], &mut |_, _| {});
        report.add(&pool.get(id).unwrap());
    }
    assert_eq!(report.rows(), rows);
    (report, dict)
}

fn query(c: &mut Criterion) {
    let mut group = c.benchmark_group("report_query");
    for rows in [1_000usize, 10_000, 100_000] {
        let (report, dict) = build(rows);
        let top = Query {
            limit: Some(100),
            percentiles: Some(vec![50.0, 95.0, 99.0]),
            ..Query::default()
        };
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
    group.finish();
}

criterion_group!(benches, query);
criterion_main!(benches);
