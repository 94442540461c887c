//! The decoder's tests on fixed inputs: the fixtures of `tests/fixtures` (each with the JSON it
//! must give), v1 framing, string cuts, nesting, malformed wire data, caps and time bounds. The
//! harness here (decode one datagram alone, render a batch in the fixtures' JSON, check what a
//! consumer of the batch relies on) is shared with `oracle.rs`, which compares the decoder with
//! prost on fixtures and on generated requests.

mod oracle;

use super::*;
use crate::counters::Reject;
use crate::decode::policy::cut_len;
use crate::proto;
use crate::record::{Span, TagIndexPair, WireRequest};
use oracle::{assert_matches_reference, policy_from_prost, put_bytes, put_uint, reference_cut};
use prost::Message as _;
use serde_json::{json, Value};
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

// ---- the fixture format ----------------------------------------------------------------

fn text(bytes: &[u8]) -> Value {
    Value::from(String::from_utf8_lossy(bytes).into_owned())
}

fn seconds(value: f32) -> Value {
    Value::from(f64::from(value))
}

/// One request of a batch in the fixture format.
fn render(batch: &Batch, r: &WireRequest) -> Value {
    let pair = |p: &TagIndexPair| {
        json!([
            text(batch.dictionary_entry(r, p.name)),
            text(batch.dictionary_entry(r, p.value))
        ])
    };
    let timers: Vec<Value> = batch
        .timers_of(r)
        .iter()
        .map(|t| {
            json!({
                "hit_count": t.hit_count,
                "value": seconds(t.value),
                "ru_utime": seconds(t.ru_utime),
                "ru_stime": seconds(t.ru_stime),
                "tags": batch.timer_tags_of(t).iter().map(pair).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "hostname": text(batch.bytes_of(r.hostname)),
        "server_name": text(batch.bytes_of(r.server_name)),
        "script_name": text(batch.bytes_of(r.script_name)),
        "request_count": r.request_count,
        "document_size": r.document_size,
        "memory_peak": r.memory_peak,
        "request_time": seconds(r.request_time),
        "ru_utime": seconds(r.ru_utime),
        "ru_stime": seconds(r.ru_stime),
        "status": r.status,
        "memory_footprint": r.memory_footprint,
        "schema": r.schema.map(|s| text(batch.bytes_of(s))),
        "tags": batch.tags_of(r).iter().map(pair).collect::<Vec<_>>(),
        "timers": timers,
    })
}

/// JSON equality with numbers compared to 1e-6 relative (the fixtures widen f32 to double).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            x == y || (x - y).abs() <= 1e-6 * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn rejected_names(stats: &DecodeStats) -> Vec<&'static str> {
    let mut names = Vec::new();
    for reason in Reject::ALL {
        for _ in 0..stats.rejected(reason) {
            names.push(reason.name());
        }
    }
    names.sort_unstable();
    names
}

/// What one datagram gave, decoded alone into a fresh batch.
#[derive(Debug)]
struct Outcome {
    requests: Vec<Value>,
    rejected: Vec<&'static str>,
    stats: DecodeStats,
}

fn decode_alone(policy: DecodePolicy, datagram: &[u8]) -> Outcome {
    let mut decoder = Decoder::new(policy);
    let mut batch = Batch::default();
    let mut stats = DecodeStats::default();
    let accepted = decoder.decode(datagram, &mut batch, &mut stats);
    assert_eq!(accepted, batch.requests.len());
    assert_eq!(stats.requests_accepted, accepted as u64);
    assert_eq!(stats.packets, 1);
    check_batch(&batch, &policy);
    Outcome {
        requests: batch.requests.iter().map(|r| render(&batch, r)).collect(),
        rejected: rejected_names(&stats),
        stats,
    }
}

/// Everything a consumer of the batch relies on: spans in range, indices checked, times finite
/// and ≥ 0, caps respected.
fn check_batch(batch: &Batch, policy: &DecodePolicy) {
    let string_ok = |s: Span| {
        assert!(
            s.range().end <= batch.bytes.len(),
            "string span out of bytes"
        );
        assert!(
            s.len as usize <= policy.max_string_bytes,
            "string over the limit"
        );
    };
    let time_ok = |t: f32| assert!(t.is_finite() && t.is_sign_positive(), "time {t}");
    for r in &batch.requests {
        string_ok(r.hostname);
        string_ok(r.server_name);
        string_ok(r.script_name);
        if let Some(schema) = r.schema {
            string_ok(schema);
        }
        time_ok(r.request_time);
        time_ok(r.ru_utime);
        time_ok(r.ru_stime);
        assert!(r.dictionary.range().end <= batch.dictionary.len());
        batch.dictionary[r.dictionary.range()]
            .iter()
            .for_each(|&e| string_ok(e));
        let index_ok = |p: &TagIndexPair| p.name < r.dictionary.len && p.value < r.dictionary.len;
        assert!(r.tags.range().end <= batch.tags.len());
        assert!(r.tags.len as usize <= policy.max_tags_per_request);
        assert!(batch.tags_of(r).iter().all(index_ok));
        assert!(r.timers.range().end <= batch.timers.len());
        assert!(r.timers.len as usize <= policy.max_timers_per_request);
        for t in batch.timers_of(r) {
            assert!(t.hit_count > 0);
            time_ok(t.value);
            time_ok(t.ru_utime);
            time_ok(t.ru_stime);
            assert!(t.tags.range().end <= batch.timer_tags.len());
            assert!(t.tags.len as usize <= policy.max_tags_per_timer);
            assert!(batch.timer_tags_of(t).iter().all(index_ok));
        }
    }
}

struct Fixture {
    name: String,
    datagram: Vec<u8>,
    expected: Value,
}

fn fixtures() -> Vec<Fixture> {
    let mut all = Vec::new();
    for dir in ["edge", "php"] {
        let dir = Path::new(FIXTURES).join(dir);
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "bin"))
            .collect();
        paths.sort();
        for path in paths {
            let json = std::fs::read(path.with_extension("json")).expect("fixture json");
            all.push(Fixture {
                name: path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                datagram: std::fs::read(&path).expect("fixture bin"),
                expected: serde_json::from_slice(&json).expect("fixture json parses"),
            });
        }
    }
    assert!(all.len() >= 25, "fixtures missing under {FIXTURES}");
    all
}

fn expected_rejected(fixture: &Fixture) -> Vec<&str> {
    let list = fixture.expected["rejected"]
        .as_array()
        .expect("rejected list");
    let mut names: Vec<&str> = list.iter().map(|v| v.as_str().expect("reason")).collect();
    names.sort_unstable();
    names
}

fn v1_datagram(flags: u16, orig_len: usize, body: &[u8]) -> Vec<u8> {
    let mut datagram = vec![0x10 | ((flags >> 8) as u8 & 0x0f), flags as u8];
    datagram.extend_from_slice(&(orig_len as u16).to_be_bytes());
    datagram.extend_from_slice(body);
    datagram
}

// ---- tests -------------------------------------------------------------------------------

#[test]
fn fixtures_decode_to_their_json() {
    for fixture in fixtures() {
        let name = &fixture.name;
        let outcome = decode_alone(DecodePolicy::default(), &fixture.datagram);
        let expected = &fixture.expected["requests"];
        assert!(
            same(&Value::Array(outcome.requests.clone()), expected),
            "{name}:\n got {}\nwant {expected}",
            Value::Array(outcome.requests.clone())
        );
        assert_eq!(outcome.rejected, expected_rejected(&fixture), "{name}");
    }
}

#[test]
fn one_decoder_and_one_batch_for_all_fixtures() {
    let policy = DecodePolicy::default();
    let mut decoder = Decoder::new(policy);
    let mut batch = Batch::default();
    let mut stats = DecodeStats::default();
    let mut expected = Vec::new();
    let mut expected_rejected = Vec::new();
    for fixture in fixtures() {
        let alone = decode_alone(policy, &fixture.datagram);
        expected.extend(alone.requests);
        expected_rejected.extend(alone.rejected);
        decoder.decode(&fixture.datagram, &mut batch, &mut stats);
    }
    check_batch(&batch, &policy);
    let rendered: Vec<Value> = batch.requests.iter().map(|r| render(&batch, r)).collect();
    assert_eq!(rendered, expected);
    expected_rejected.sort_unstable();
    assert_eq!(rejected_names(&stats), expected_rejected);
    assert_eq!(stats.packets, fixtures().len() as u64);
}

#[test]
fn missing_hostname_starts_like_v1_and_falls_back() {
    let datagram =
        std::fs::read(format!("{FIXTURES}/edge/missing_required_hostname.bin")).expect("fixture");
    assert!(is_v1_candidate(&datagram));
    let strict = decode_alone(DecodePolicy::default(), &datagram);
    assert_eq!(strict.rejected, ["missing_required"]);
    assert_eq!((strict.stats.v1_decoded, strict.stats.v1_fallback), (0, 1));
    let lenient = DecodePolicy {
        lenient_required: true,
        ..DecodePolicy::default()
    };
    let outcome = decode_alone(lenient, &datagram);
    assert_eq!(outcome.requests.len(), 1);
    assert_eq!(outcome.requests[0]["hostname"], "");
    assert_eq!(outcome.requests[0]["server_name"], "example.com");
}

#[test]
fn v1_plain_and_lz4_decode_like_v0() {
    let mut compared = 0;
    for fixture in fixtures() {
        let v0 = decode_alone(DecodePolicy::default(), &fixture.datagram);
        if v0.requests.is_empty() {
            continue;
        }
        let datagram = &fixture.datagram;
        let compressed = lz4_flex::block::compress(datagram);
        let plain = v1_datagram(0, datagram.len(), datagram);
        let lz4 = v1_datagram(1, datagram.len(), &compressed);
        for (kind, v1) in [("plain", plain), ("lz4", lz4)] {
            let outcome = decode_alone(DecodePolicy::default(), &v1);
            let name = &fixture.name;
            assert_eq!(outcome.requests, v0.requests, "{name} {kind}");
            assert_eq!(outcome.rejected, v0.rejected, "{name} {kind}");
            assert_eq!(
                (outcome.stats.v1_decoded, outcome.stats.v1_fallback),
                (1, 0)
            );
        }
        compared += 1;
    }
    assert!(compared >= 15);
}

#[test]
fn corrupt_v1_falls_back_to_v0_and_counts_only_that_path() {
    let datagram = std::fs::read(format!("{FIXTURES}/php/web_request.bin")).expect("fixture");
    let compressed = lz4_flex::block::compress(&datagram);
    let mut garbage = compressed.clone();
    garbage.truncate(compressed.len() / 2);
    let nan = std::fs::read(format!("{FIXTURES}/edge/nan_request_time.bin")).expect("fixture");
    let cases = [
        (
            "truncated lz4 block",
            v1_datagram(1, datagram.len(), &garbage),
        ),
        (
            "lz4 length differs",
            v1_datagram(1, datagram.len() + 1, &compressed),
        ),
        (
            "plain length differs",
            v1_datagram(0, datagram.len() - 1, &datagram),
        ),
        ("lz4 of garbage", v1_datagram(1, 100, &[0xff; 40])),
        ("no accepted request", v1_datagram(0, nan.len(), &nan)),
    ];
    for (what, v1) in cases {
        let outcome = decode_alone(DecodePolicy::default(), &v1);
        assert_eq!(
            (outcome.stats.v1_decoded, outcome.stats.v1_fallback),
            (0, 1),
            "{what}"
        );
        // As v0, the header byte 0x10/0x11 is field 2 with a wrong wire type.
        assert_eq!(outcome.rejected, ["malformed"], "{what}");
        assert_eq!(outcome.stats.packets_decoded, 0, "{what}");
        assert!(outcome.requests.is_empty(), "{what}");
    }
}

#[test]
fn cut_len_backs_up_to_a_character_start() {
    let cases: &[(&[u8], usize, usize)] = &[
        (b"abc", 5, 3),
        (b"abc", 3, 3),
        (b"abcdef", 3, 3),
        (b"abc", 0, 0),
        ("aé".as_bytes(), 2, 1),
        ("aéb".as_bytes(), 3, 3),
        ("€x".as_bytes(), 1, 0),
        ("€x".as_bytes(), 2, 0),
        ("€x".as_bytes(), 3, 3),
        ("😀x".as_bytes(), 3, 0),
        (&[0x61, 0xc3, 0x41, 0x42], 2, 2), // lead byte without its continuation
        (&[0x80, 0x80, 0x80, 0x80, 0x80], 4, 4),
        (&[0xff, 0xff, 0xff, 0xff], 3, 3),
        (&[0xe2, 0x82], 1, 1), // truncated character at the end: not well formed
    ];
    for &(bytes, max, want) in cases {
        assert_eq!(cut_len(bytes, max), want, "{bytes:x?} cut at {max}");
        assert_eq!(
            reference_cut(bytes, max).len(),
            want,
            "reference {bytes:x?} cut at {max}"
        );
    }
}

/// A message nested `depth` levels below a request with all required fields, ending in
/// `innermost` (the top is depth 0).
fn nested_to(depth: usize, innermost: &[u8]) -> Vec<u8> {
    let mut datagram =
        std::fs::read(format!("{FIXTURES}/edge/minimal_required_only.bin")).expect("fixture");
    if depth == 0 {
        datagram.extend_from_slice(innermost);
        return datagram;
    }
    let mut body = innermost.to_vec();
    for _ in 1..depth {
        let mut outer = Vec::new();
        put_bytes(&mut outer, 18, &body);
        body = outer;
    }
    put_bytes(&mut datagram, 18, &body);
    datagram
}

#[test]
fn nesting_limit_is_prost_s() {
    let mut unknown = Vec::new();
    put_uint(&mut unknown, 99, 1);
    for (depth, innermost, prost_ok) in [
        (1, &[][..], true),
        (2, &[], true),
        (100, &[], true),
        (101, &[], false),
        (99, &unknown[..], true),
        (100, &unknown[..], false),
    ] {
        let datagram = nested_to(depth, innermost);
        assert_eq!(
            proto::Request::decode(datagram.as_slice()).is_ok(),
            prost_ok,
            "{depth}"
        );
        let outcome = decode_alone(DecodePolicy::default(), &datagram);
        let malformed = outcome.rejected == ["malformed"];
        assert_eq!(
            !malformed, prost_ok,
            "depth {depth}: {:?}",
            outcome.rejected
        );
        if prost_ok {
            assert_eq!(outcome.requests.len(), 1, "the parent");
            assert_eq!(outcome.stats.nested_ignored, u64::from(depth >= 2));
        }
    }
}

#[test]
fn malformed_child_drops_the_whole_datagram() {
    let mut datagram =
        std::fs::read(format!("{FIXTURES}/edge/minimal_required_only.bin")).expect("fixture");
    let child = datagram.clone();
    put_bytes(&mut datagram, 18, &child);
    put_bytes(&mut datagram, 18, &[0x0a, 0x05, b'x']); // hostname runs past the child
    let outcome = decode_alone(DecodePolicy::default(), &datagram);
    assert_eq!(outcome.rejected, ["malformed"]);
    assert!(outcome.requests.is_empty());
    assert!(proto::Request::decode(datagram.as_slice()).is_err());
}

#[test]
fn groups_and_bad_wire_types_are_malformed() {
    let base =
        std::fs::read(format!("{FIXTURES}/edge/minimal_required_only.bin")).expect("fixture");
    let with = |extra: &[u8]| {
        let mut d = base.clone();
        d.extend_from_slice(extra);
        d
    };
    let cases: &[(&str, Vec<u8>)] = &[
        ("group in unknown field", with(&[0x9b, 0x06, 0x9c, 0x06])),
        ("end group", with(&[0x9c, 0x06])),
        ("wire type 6", with(&[0x9e, 0x06])),
        ("field 0", with(&[0x00, 0x01])),
        ("hostname as varint", with(&[0x08, 0x01])),
        ("status as fixed32", with(&[0x85, 0x01, 0, 0, 0, 0])),
        ("packed floats of 3 bytes", with(&[0x5a, 0x03, 0, 0, 0])),
        ("dictionary as varint", with(&[0x78, 0x01])),
        (
            "11-byte varint",
            with(&[
                0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
            ]),
        ),
        (
            "10-byte varint over 64 bits",
            with(&[
                0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
            ]),
        ),
        (
            "key over 32 bits",
            with(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
        ),
    ];
    for (what, datagram) in cases {
        assert_eq!(
            decode_alone(DecodePolicy::default(), datagram).rejected,
            ["malformed"],
            "{what}"
        );
    }
}

#[test]
fn caps_are_applied_and_counted() {
    let request = typical_request();
    let datagram = request.encode_to_vec();
    let policy = DecodePolicy {
        lenient_required: false,
        max_string_bytes: 4,
        max_timers_per_request: 5,
        max_tags_per_timer: 2,
        max_tags_per_request: 1,
    };
    let outcome = decode_alone(policy, &datagram);
    assert_eq!(outcome.requests.len(), 1);
    let r = &outcome.requests[0];
    assert_eq!(r["hostname"], "web0");
    assert_eq!(r["timers"].as_array().map(Vec::len), Some(5));
    assert_eq!(r["tags"].as_array().map(Vec::len), Some(1));
    let s = &outcome.stats;
    assert_eq!(s.timers_dropped, 4);
    assert_eq!(s.timer_tags_dropped, 5);
    assert_eq!(s.request_tags_dropped, 1);
    let long_strings = request.dictionary.iter().filter(|e| e.len() > 4).count() as u64;
    assert_eq!(
        s.strings_truncated,
        4 + long_strings,
        "host, server, script, schema"
    );
}

/// The PHP-like datagram of the bench: 9 timers × 3 tags, 2 request tags.
fn typical_request() -> proto::Request {
    let words = [
        "group",
        "server",
        "op",
        "mysql",
        "memcache",
        "redis",
        "db-main-01",
        "db-main-02",
        "mc-01",
        "redis-01",
        "select",
        "insert",
        "update",
        "get",
        "set",
        "country",
        "nl",
        "lang",
        "en",
    ];
    let timers = [
        (3, 6, 10),
        (3, 6, 11),
        (3, 7, 10),
        (3, 7, 12),
        (4, 8, 13),
        (4, 8, 14),
        (5, 9, 13),
        (5, 9, 14),
        (3, 6, 12),
    ];
    let mut r = proto::Request {
        hostname: b"web01.dc1.example.com".to_vec(),
        server_name: b"www.example.com".to_vec(),
        script_name: b"/catalog/product.php".to_vec(),
        request_count: 0,
        document_size: 48_213,
        memory_peak: 6_291_456,
        request_time: 0.183,
        ru_utime: 0.092,
        ru_stime: 0.011,
        dictionary: words.iter().map(|w| w.as_bytes().to_vec()).collect(),
        status: Some(200),
        memory_footprint: Some(4_194_304),
        schema: Some(b"https".to_vec()),
        tag_name: vec![15, 17],
        tag_value: vec![16, 18],
        ..Default::default()
    };
    for (i, (group, server, op)) in timers.into_iter().enumerate() {
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

#[test]
fn times_beyond_the_bound_are_refused_and_negative_ones_clamped() {
    let mut r = typical_request();
    r.ru_utime = -1e30; // finite and negative: clamped to 0, as any negative time
    r.timer_value[3] = MAX_SECONDS; // the bound itself is a time
    let outcome = decode_alone(DecodePolicy::default(), &r.encode_to_vec());
    assert_eq!(outcome.requests.len(), 1, "{:?}", outcome.rejected);
    assert_eq!(outcome.requests[0]["ru_utime"], 0.0);
    let beyond = MAX_SECONDS * 1.001;
    type Set = fn(&mut proto::Request, f32);
    let fields: [(&str, Set); 4] = [
        ("request_time", |r, v| r.request_time = v),
        ("ru_stime", |r, v| r.ru_stime = v),
        ("timer value", |r, v| r.timer_value[0] = v),
        ("timer ru_stime", |r, v| r.timer_ru_stime[1] = v),
    ];
    for (what, set) in fields {
        for (v, reason) in [
            (beyond, "time_out_of_range"),
            (f32::MAX, "time_out_of_range"),
            (f32::INFINITY, "non_finite"),
            (f32::NEG_INFINITY, "non_finite"),
        ] {
            let mut r = typical_request();
            set(&mut r, v);
            let outcome = decode_alone(DecodePolicy::default(), &r.encode_to_vec());
            assert_eq!(outcome.rejected, [reason], "{what} = {v}");
            let mut counts = DecodeStats::default();
            let expected = policy_from_prost(&r, &[], &DecodePolicy::default(), &mut counts);
            assert_matches_reference(&outcome, &expected, &counts, what);
        }
    }
}
