//! Decoder throughput by datagram size, against prost on the same bytes.
//!
//! - `decode/{small,typical,large}`: `Decoder::decode` of a minimal request, a ~550 B PHP-like
//!   request (9 timers × 3 tags, 2 request tags) and a ~5 KB one (100 timers), into a batch that
//!   is cleared before each datagram, as a receiver reuses its batches; `decode/typical_v1_lz4` is
//!   the typical request behind the v1 header, LZ4-compressed; `decode/corpus_1024` is 1,024
//!   different corpus datagrams (the e2e's traffic) decoded into one batch, per datagram: the
//!   same decoder with the branch predictor no longer trained on one datagram.
//! - `prost/{small,typical,large}`: `pinbad::proto::Request::decode` of the same v0 datagrams,
//!   the reference the decoder's target (≤ 300 ns per typical datagram) is set against.
//!
//! That decoding allocates nothing per datagram once warm is a test, not a bench: see
//! `tests/integration/alloc.rs` (a counting global allocator in the integration-test binary).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pinbad::counters::DecodeStats;
use pinbad::decode::{DecodePolicy, Decoder};
use pinbad::proto::Request;
use pinbad::record::Batch;
use prost::Message;

const GROUPS: [&str; 3] = ["mysql", "memcache", "redis"];
const SERVERS: [&str; 4] = ["db-main-01", "db-main-02", "mc-01", "redis-01"];
const OPS: [&str; 5] = ["select", "insert", "update", "get", "set"];

/// A PHP-like request: `timers` timers with tags {group, server, op} drawn from a dictionary
/// (first the three tag names, then the values), 2 request tags, as the PHP extension sends it.
fn php_like(timers: usize, ops: usize) -> Request {
    let mut dictionary: Vec<Vec<u8>> = ["group", "server", "op", "country", "nl", "lang", "en"]
        .iter()
        .map(|w| w.as_bytes().to_vec())
        .collect();
    let first_value = dictionary.len() as u32;
    dictionary.extend(GROUPS.iter().chain(&SERVERS).map(|w| w.as_bytes().to_vec()));
    let first_op = dictionary.len() as u32;
    dictionary.extend((0..ops).map(|i| format!("{}_{i}", OPS[i % OPS.len()]).into_bytes()));
    let mut r = Request {
        hostname: b"web01.example.com".to_vec(),
        server_name: b"www.example.com".to_vec(),
        script_name: b"/catalog/view.php".to_vec(),
        request_count: 0,
        document_size: 48_213,
        memory_peak: 6_291_456,
        request_time: 0.183,
        ru_utime: 0.092,
        ru_stime: 0.011,
        dictionary,
        status: Some(200),
        memory_footprint: Some(4_194_304),
        schema: Some(b"https".to_vec()),
        tag_name: vec![3, 5],
        tag_value: vec![4, 6],
        ..Default::default()
    };
    for i in 0..timers {
        let group = first_value + (i % GROUPS.len()) as u32;
        let server = first_value + (GROUPS.len() + i % SERVERS.len()) as u32;
        let op = first_op + (i % ops) as u32;
        r.timer_hit_count.push(1 + i as u32 % 3);
        r.timer_value.push(0.0123 * (i + 1) as f32);
        r.timer_tag_count.push(3);
        r.timer_tag_name.extend([0, 1, 2]);
        r.timer_tag_value.extend([group, server, op]);
        r.timer_ru_utime.push(0.001 * i as f32);
        r.timer_ru_stime.push(0.0005 * i as f32);
    }
    r
}

fn small() -> Vec<u8> {
    Request {
        hostname: b"web02".to_vec(),
        server_name: b"api.example.com".to_vec(),
        script_name: b"/api/v1/items".to_vec(),
        document_size: 100,
        memory_peak: 1 << 20,
        request_time: 0.5,
        ru_utime: 0.25,
        ru_stime: 0.125,
        status: Some(404),
        ..Default::default()
    }
    .encode_to_vec()
}

fn v1_lz4(payload: &[u8]) -> Vec<u8> {
    let mut datagram = vec![0x10, 0x01];
    datagram.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    datagram.extend_from_slice(&lz4_flex::block::compress(payload));
    datagram
}

/// The v0 datagrams by name.
fn datagrams() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("small", small()),
        ("typical", php_like(9, 6).encode_to_vec()),
        ("large", php_like(100, 80).encode_to_vec()),
    ]
}

fn decode_into(
    decoder: &mut Decoder,
    datagram: &[u8],
    batch: &mut Batch,
    stats: &mut DecodeStats,
) -> usize {
    batch.clear();
    decoder.decode(datagram, batch, stats)
}

fn bench(c: &mut Criterion) {
    let mut datagrams = datagrams();
    let typical = datagrams[1].1.clone();
    println!(
        "typical datagram: {} bytes (9 timers x 3 tags, 2 request tags)",
        typical.len()
    );
    let v0_count = datagrams.len();
    datagrams.push(("typical_v1_lz4", v1_lz4(&typical)));

    let mut group = c.benchmark_group("decode");
    for (name, datagram) in &datagrams {
        group.throughput(Throughput::Bytes(datagram.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(name),
            datagram,
            |b, datagram| {
                let mut decoder = Decoder::new(DecodePolicy::default());
                let mut batch = Batch::default();
                let mut stats = DecodeStats::default();
                b.iter(|| decode_into(&mut decoder, black_box(datagram), &mut batch, &mut stats));
            },
        );
    }
    // The e2e's traffic: 1,024 different corpus datagrams (3–15 timers, Zipf strings) decoded
    // into one batch, as a receiver decodes a `recvmmsg` batch; per datagram.
    let corpus = pinbad::corpus::Corpus::new(pinbad::corpus::CorpusSpec::default()).datagrams(1024);
    group.throughput(Throughput::Elements(corpus.len() as u64));
    group.bench_function("corpus_1024", |b| {
        let mut decoder = Decoder::new(DecodePolicy::default());
        let mut batch = Batch::default();
        let mut stats = DecodeStats::default();
        b.iter(|| {
            batch.clear();
            for d in &corpus {
                decoder.decode(black_box(d), &mut batch, &mut stats);
            }
        });
    });
    group.finish();

    let mut group = c.benchmark_group("prost");
    for (name, datagram) in &datagrams[..v0_count] {
        group.throughput(Throughput::Bytes(datagram.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(name),
            datagram,
            |b, datagram| {
                b.iter(|| {
                    Request::decode(black_box(datagram.as_slice())).map(|r| r.timer_hit_count.len())
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
