//! What the taps cost per request, off the ingest path: rendering a merged round as the stream
//! and the file sink do (NDJSON, with and without timers), and encoding it as the ClickHouse sink
//! does (a requests row and a row per timer). Corpus: PHP-like requests, 3–15 timers with 3 tags.
//!
//! `cargo bench --bench taps -- --warm-up-time 1 --measurement-time 3`

use std::sync::{Arc, Mutex};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pinbad::config::Config;
use pinbad::corpus::{Corpus, CorpusSpec};
use pinbad::decode::{DecodePolicy, Decoder};
use pinbad::merger::Merger;
use pinbad::ndjson::write_request;
use pinbad::record::Batch;
use pinbad::ring::Ring;
use pinbad::sink::clickhouse::{ClickHouseConfig, ClickHouseOutput};
use pinbad::sink::{Output, SinkStats};
use pinbad::state::Core;
use pinbad::tap::{Round, Tap};

/// Keeps the rounds it is offered.
struct Keep(Mutex<Vec<Arc<Round>>>);
impl Tap for Keep {
    fn name(&self) -> &str {
        "bench"
    }
    fn offer(&self, round: &Arc<Round>) {
        self.0.lock().unwrap().push(Arc::clone(round));
    }
}

/// One merged round of 1,024 corpus requests, and the state that interned it.
fn round() -> (Arc<Core>, Arc<Round>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        state_dir: dir.path().to_path_buf(),
        builtin_reports: false,
        ..Config::default()
    };
    let ring = Arc::new(Ring::new(64 << 20));
    let shared = Arc::new(Core::new(config, Arc::clone(&ring), vec![], 0).expect("shared"));
    let keep = Arc::new(Keep(Mutex::new(Vec::new())));
    shared.taps().add(keep.clone());
    let mut corpus = Corpus::new(CorpusSpec::default());
    let mut decoder = Decoder::new(DecodePolicy::default());
    let (mut stats, mut buf, mut batch) = (Default::default(), Vec::new(), Batch::default());
    while batch.len() < 1024 {
        corpus.next_datagram(&mut buf);
        decoder.decode(&buf, &mut batch, &mut stats);
    }
    ring.push(Box::new(batch)).ok();
    let mut merger = Merger::new(Arc::clone(&shared), ring);
    merger.round();
    let round = keep.0.lock().unwrap().pop().expect("a round");
    (shared, round, dir)
}

fn taps(c: &mut Criterion) {
    let (shared, round, _dir) = round();
    let n = round.batch().len() as u64;
    let mut group = c.benchmark_group("taps_per_round_of_1024");
    group.throughput(Throughput::Elements(n));
    let mut out = Vec::with_capacity(4 << 20);
    for timers in [false, true] {
        let name = if timers {
            "ndjson_with_timers"
        } else {
            "ndjson"
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                let dict = shared.dictionary().read();
                for v in round.batch().views() {
                    write_request(&mut out, &v, &dict, 1_700_000_000_000, timers);
                    out.push(b'\n');
                }
                out.len()
            })
        });
    }
    let config = ClickHouseConfig {
        url: "http://127.0.0.1:9".into(),
        batch_rows: 1_000_000,
        max_buffered_rows: 1_000_000,
        ..Default::default()
    };
    let stats = Arc::new(SinkStats::default());
    group.bench_function("clickhouse_rows", |b| {
        b.iter_batched(
            || ClickHouseOutput::new(config.clone(), "bench", Arc::clone(&stats)).unwrap(),
            |mut ch| {
                let dict = shared.dictionary().read();
                for v in round.batch().views() {
                    ch.encode(&v, 1_700_000_000_000, &dict);
                }
                ch
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, taps);
criterion_main!(benches);
