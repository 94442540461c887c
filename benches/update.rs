//! One large report's update: a batch of 1,024 requests counted into an open tick of 10k, 100k
//! or 400k rows (a `script_name` report, every row already there, rows picked uniformly), so
//! each update is a row lookup far from the previous one. What the table-order update and its
//! prefetch ([`Report::add_batch`]) are for; ns per request (criterion reports the batch).
//!
//! Also each of the four timer-tag reports of the benchmarks on its own (`timer_report_update`),
//! and a drain's histogram add (`hist_add`): a stage row's histogram added to a member row's by
//! `Histogram::add_hist` (one merge of the two sorted lists) and bucket by bucket (what it did
//! before), for the forms a drain meets.
//!
//! `cargo bench --bench update -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pinbad::dictionary::Dictionary;
use pinbad::pool::Pool;
use pinbad::record::{Record, TagPair, Timer};
use pinbad::report::{PreparedBatch, Report, ReportDef};

mod common;
use common::request;

/// Batches prepared per case, cycled: more rows than the caches hold between two uses.
const BATCHES: usize = 64;
const BATCH: usize = 1024;

/// A request of a row picked uniformly among `rows` (xorshift `seed`).
fn record(dict: &mut Dictionary, seed: &mut u64, rows: usize) -> Record {
    let row = *seed as usize % rows;
    request(dict, seed, row)
}

/// A report whose open tick holds `rows` rows, and `BATCHES` batches of random rows of it.
fn build(rows: usize) -> (Report, Vec<PreparedBatch>) {
    let mut dict = Dictionary::new(rows * 2 + 100);
    let def = ReportDef::new("bench", &["script_name"]);
    let mut report = Report::new(def, &mut dict, rows).unwrap();
    report.advance(1);
    let mut pool = Pool::new(rows.max(BATCH), 16, 16);
    let mut batch = PreparedBatch::default();
    for i in 0..rows {
        let r = request(&mut dict, &mut 1, i);
        let (id, _) = pool.insert(r, &[] as &[Timer], &[] as &[TagPair], &mut |_, _| {});
        batch.push(&pool.get(id).unwrap());
        if batch.len() == BATCH || i + 1 == rows {
            report.add_batch(&batch);
            batch.clear();
        }
    }
    assert_eq!(report.rows(), rows);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let batches = (0..BATCHES)
        .map(|_| {
            let mut b = PreparedBatch::default();
            for _ in 0..BATCH {
                let r = record(&mut dict, &mut seed, rows);
                let (id, _) = pool.insert(r, &[] as &[Timer], &[] as &[TagPair], &mut |_, _| {});
                b.push(&pool.get(id).unwrap());
            }
            b
        })
        .collect();
    (report, batches)
}

fn update(c: &mut Criterion) {
    let mut group = c.benchmark_group("report_update");
    group.throughput(Throughput::Elements(BATCH as u64));
    for rows in [10_000, 100_000, 400_000] {
        let (mut report, batches) = build(rows);
        let mut next = batches.iter().cycle();
        group.bench_with_input(BenchmarkId::new("batch_of_1024", rows), &rows, |b, _| {
            b.iter(|| report.add_batch(next.next().unwrap()))
        });
        assert_eq!(report.rows(), rows);
    }
    group.finish();
}

/// The four timer-tag reports of the benchmarks (`corpus::timer_tag_report_defs`), each on its
/// own, counting batches of 1,024 PHP-like requests of the corpus (~9 timers each, 500 scripts,
/// Zipf popularity) into its open tick; the rows exist already (the batches were counted once).
/// What one timer report costs per request without the merge around it (families, ticks, the
/// other reports sharing the caches): compare with its `update_ns_per_request` in e2e.
fn timer_update(c: &mut Criterion) {
    use pinbad::corpus::{Corpus, CorpusSpec};
    let mut dict = Dictionary::new(1 << 22);
    let mut corpus = Corpus::new(CorpusSpec {
        seed: 3,
        scripts: 500,
        ..CorpusSpec::default()
    });
    let mut pool = Pool::new(1 << 17, 1 << 21, 1 << 23);
    let batches: Vec<PreparedBatch> = (0..BATCHES)
        .map(|_| {
            let mut interned = pinbad::merger::Interned::default();
            interned.intern(&corpus.decoded_batch(BATCH), 1, &mut dict);
            let mut b = PreparedBatch::default();
            for (record, timers, tags) in interned.requests() {
                let (id, _) = pool.insert(*record, timers, tags, &mut |_, _| {});
                b.push(&pool.get(id).unwrap());
            }
            b
        })
        .collect();
    let mut group = c.benchmark_group("timer_report_update");
    group.throughput(Throughput::Elements(BATCH as u64));
    for def in pinbad::corpus::timer_tag_report_defs() {
        let name = def.name.clone();
        // Built at the report's first measurement, so that a run filtered to one report (or a
        // callgrind run of it) builds and counts nothing of the others.
        let mut built: Option<(Report, usize)> = None;
        let mut next = batches.iter().cycle();
        group.bench_function(BenchmarkId::new("batch_of_1024", &name), |b| {
            let (report, _) = built.get_or_insert_with(|| {
                let mut report = Report::new(def.clone(), &mut dict, 1 << 22).unwrap();
                report.advance(1);
                for b in &batches {
                    report.add_batch(b);
                }
                let rows = report.rows();
                assert!(rows > 0, "{name} counted no timer");
                (report, rows)
            });
            b.iter(|| report.add_batch(next.next().unwrap()))
        });
        if let Some((report, rows)) = &built {
            assert_eq!(report.rows(), *rows, "{name}: every row was there");
        }
    }
    group.finish();
}

/// `hist_add/{merged,bucket_by_bucket}/CASE`: 1,024 pairs of histograms (a member row's and a
/// stage row's, `mine` and `theirs` distinct buckets each, buckets spread over a timer's usual
/// range), each member row added to once per iteration; ns per add.
fn hist_add(c: &mut Criterion) {
    use pinbad::histogram::Histogram;
    let mut group = c.benchmark_group("hist_add");
    group.throughput(Throughput::Elements(1024));
    for (label, mine, theirs) in [
        ("inline1+inline1", 1usize, 1usize),
        ("inline3+inline2", 3, 2),
        ("sparse12+inline2", 12, 2),
        ("sparse24+sparse8", 24, 8),
    ] {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut make = |n: usize| {
            let mut h = Histogram::new();
            while h.buckets_used() < n {
                h.add_bucket(1000 + (next() % 300) as u16, 1);
            }
            h
        };
        let pairs: Vec<(Histogram, Histogram)> =
            (0..1024).map(|_| (make(mine), make(theirs))).collect();
        group.bench_function(BenchmarkId::new("merged", label), |b| {
            b.iter_batched_ref(
                || pairs.clone(),
                |pairs| {
                    for (m, t) in pairs.iter_mut() {
                        m.add_hist(&*t);
                    }
                },
                criterion::BatchSize::LargeInput,
            )
        });
        group.bench_function(BenchmarkId::new("bucket_by_bucket", label), |b| {
            b.iter_batched_ref(
                || pairs.clone(),
                |pairs| {
                    for (m, t) in pairs.iter_mut() {
                        for (bucket, n) in t.iter() {
                            m.add_bucket(bucket, n);
                        }
                    }
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, update, timer_update, hist_add);
criterion_main!(benches);
