//! The decoder against prost, the reference codec: the policy applied the obvious way to what
//! prost decodes must give what the decoder gives, on the fixtures and on generated requests
//! encoded every way the wire format allows (packed, split, reordered, fields omitted, unknown
//! fields added); arbitrary and mutated bytes must never panic it.

use super::*;
use crate::decode::wire::{key, I32, I64, LEN, VARINT};
use proptest::collection::vec;
use proptest::prelude::*;

// ---- the reference: the policy applied to what prost decodes --------------------------------

/// The character-boundary cut, written differently from `cut_len`: cut at `max` unless a
/// well-formed multi-byte character starts before `max` and ends after it.
pub(super) fn reference_cut(bytes: &[u8], max: usize) -> &[u8] {
    if bytes.len() <= max {
        return bytes;
    }
    for start in max.saturating_sub(3)..max {
        for width in 2..=4 {
            let end = start + width;
            if end > max
                && end <= bytes.len()
                && std::str::from_utf8(&bytes[start..end]).is_ok_and(|s| s.chars().count() == 1)
            {
                return &bytes[..start];
            }
        }
    }
    &bytes[..max]
}

/// The policy of docs/PROTOCOL.md applied to a prost-decoded message, written the obvious way: one
/// result per logical request (parent, then each child), counters into `counts`.
/// `required_present[i]` says whether request `i` had all of fields 1–9 on the wire (prost
/// cannot tell); missing entries mean yes.
pub(super) fn policy_from_prost(
    request: &proto::Request,
    required_present: &[bool],
    policy: &DecodePolicy,
    counts: &mut DecodeStats,
) -> Vec<Result<Value, Reject>> {
    let present = |i: usize| required_present.get(i).copied().unwrap_or(true);
    let mut results = vec![reference_request(request, present(0), policy, counts)];
    for (i, child) in request.requests.iter().enumerate() {
        counts.nested_ignored += child.requests.len() as u64;
        results.push(reference_request(child, present(i + 1), policy, counts));
    }
    results
}

fn reference_request(
    r: &proto::Request,
    required_present: bool,
    policy: &DecodePolicy,
    counts: &mut DecodeStats,
) -> Result<Value, Reject> {
    if !required_present && !policy.lenient_required {
        return Err(Reject::MissingRequired);
    }
    let timers = r.timer_hit_count.len();
    if r.timer_value.len() != timers || r.timer_tag_count.len() != timers {
        return Err(Reject::TimerArrayMismatch);
    }
    let timer_tags: u64 = r.timer_tag_count.iter().map(|&n| u64::from(n)).sum();
    if timer_tags != r.timer_tag_name.len() as u64 || timer_tags != r.timer_tag_value.len() as u64 {
        return Err(Reject::TimerTagMismatch);
    }
    if r.tag_name.len() != r.tag_value.len() {
        return Err(Reject::RequestTagMismatch);
    }
    let indices = r
        .timer_tag_name
        .iter()
        .chain(&r.timer_tag_value)
        .chain(&r.tag_name);
    if indices
        .chain(&r.tag_value)
        .any(|&i| i as usize >= r.dictionary.len())
    {
        return Err(Reject::BadDictionaryIndex);
    }
    let times = [r.request_time, r.ru_utime, r.ru_stime]
        .into_iter()
        .chain(r.timer_value.iter().copied())
        .chain(r.timer_ru_utime.iter().take(timers).copied())
        .chain(r.timer_ru_stime.iter().take(timers).copied());
    let times: Vec<f32> = times.collect();
    if times.iter().any(|t| t.is_nan() || t.is_infinite()) {
        return Err(Reject::NonFinite);
    }
    if times.iter().any(|&t| t > MAX_SECONDS) {
        return Err(Reject::TimeOutOfRange);
    }
    let clamp = |t: f32| seconds(if t <= 0.0 { 0.0 } else { t });
    let mut string = |bytes: &[u8]| {
        let kept = reference_cut(bytes, policy.max_string_bytes);
        if kept.len() < bytes.len() {
            counts.strings_truncated += 1;
        }
        text(kept)
    };
    let hostname = string(&r.hostname);
    let server_name = string(&r.server_name);
    let script_name = string(&r.script_name);
    let schema = r.schema.as_deref().map(&mut string);
    let dictionary: Vec<Value> = r.dictionary.iter().map(|e| string(e)).collect();
    let pair = |name: u32, value: u32| {
        json!([
            dictionary[name as usize].clone(),
            dictionary[value as usize].clone()
        ])
    };

    let tags_kept = r.tag_name.len().min(policy.max_tags_per_request);
    counts.request_tags_dropped += (r.tag_name.len() - tags_kept) as u64;
    let tags: Vec<Value> = (0..tags_kept)
        .map(|i| pair(r.tag_name[i], r.tag_value[i]))
        .collect();

    let mut kept = Vec::new();
    let mut cursor = 0;
    for i in 0..timers {
        let count = r.timer_tag_count[i] as usize;
        let first = cursor;
        cursor += count;
        if r.timer_hit_count[i] == 0 {
            counts.timers_skipped += 1;
            continue;
        }
        if kept.len() == policy.max_timers_per_request {
            counts.timers_dropped += 1;
            continue;
        }
        let tags_kept = count.min(policy.max_tags_per_timer);
        counts.timer_tags_dropped += (count - tags_kept) as u64;
        let tags: Vec<Value> = (first..first + tags_kept)
            .map(|j| pair(r.timer_tag_name[j], r.timer_tag_value[j]))
            .collect();
        kept.push(json!({
            "hit_count": r.timer_hit_count[i],
            "value": clamp(r.timer_value[i]),
            "ru_utime": clamp(r.timer_ru_utime.get(i).copied().unwrap_or(0.0)),
            "ru_stime": clamp(r.timer_ru_stime.get(i).copied().unwrap_or(0.0)),
            "tags": tags,
        }));
    }
    Ok(json!({
        "hostname": hostname,
        "server_name": server_name,
        "script_name": script_name,
        "request_count": r.request_count,
        "document_size": r.document_size,
        "memory_peak": r.memory_peak,
        "request_time": clamp(r.request_time),
        "ru_utime": clamp(r.ru_utime),
        "ru_stime": clamp(r.ru_stime),
        "status": r.status.unwrap_or(0),
        "memory_footprint": r.memory_footprint.unwrap_or(0),
        "schema": schema,
        "tags": tags,
        "timers": kept,
    }))
}

pub(super) fn assert_matches_reference(
    outcome: &Outcome,
    expected: &[Result<Value, Reject>],
    counts: &DecodeStats,
    context: &str,
) {
    let accepted: Vec<Value> = expected
        .iter()
        .filter_map(|r| r.as_ref().ok().cloned())
        .collect();
    let mut rejected: Vec<&str> = expected
        .iter()
        .filter_map(|r| r.as_ref().err().map(|e| e.name()))
        .collect();
    rejected.sort_unstable();
    assert_eq!(outcome.requests, accepted, "{context}: requests");
    assert_eq!(outcome.rejected, rejected, "{context}: rejections");
    let s = &outcome.stats;
    let got = [
        s.timers_skipped,
        s.timers_dropped,
        s.timer_tags_dropped,
        s.request_tags_dropped,
        s.strings_truncated,
        s.nested_ignored,
    ];
    let want = [
        counts.timers_skipped,
        counts.timers_dropped,
        counts.timer_tags_dropped,
        counts.request_tags_dropped,
        counts.strings_truncated,
        counts.nested_ignored,
    ];
    assert_eq!(
        got, want,
        "{context}: skipped, dropped, tags dropped x2, truncated, nested"
    );
}

// ---- a hand-written encoder (packed, split, reordered, omitted fields) -----------------------

fn put_varint(buf: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        buf.push(value as u8 | 0x80);
        value >>= 7;
    }
    buf.push(value as u8);
}

fn put_key(buf: &mut Vec<u8>, field: u32, wire_type: u32) {
    put_varint(buf, u64::from(key(field, wire_type)));
}

pub(super) fn put_bytes(buf: &mut Vec<u8>, field: u32, body: &[u8]) {
    put_key(buf, field, LEN);
    put_varint(buf, body.len() as u64);
    buf.extend_from_slice(body);
}

pub(super) fn put_uint(buf: &mut Vec<u8>, field: u32, value: u32) {
    put_key(buf, field, VARINT);
    put_varint(buf, u64::from(value));
}

fn put_float(buf: &mut Vec<u8>, field: u32, value: f32) {
    put_key(buf, field, I32);
    buf.extend_from_slice(&value.to_le_bytes());
}

/// Layout 0, 1: unpacked; 2: one packed run (even when empty); 3: a packed run, then the rest
/// unpacked.
fn put_uints(buf: &mut Vec<u8>, field: u32, values: &[u32], layout: u64) {
    match layout & 3 {
        0 | 1 => values.iter().for_each(|&v| put_uint(buf, field, v)),
        2 => {
            let mut body = Vec::new();
            values
                .iter()
                .for_each(|&v| put_varint(&mut body, u64::from(v)));
            put_bytes(buf, field, &body);
        }
        _ => {
            let (packed, unpacked) = values.split_at(values.len() / 2);
            put_uints(buf, field, packed, 2);
            put_uints(buf, field, unpacked, 0);
        }
    }
}

fn put_floats(buf: &mut Vec<u8>, field: u32, values: &[f32], layout: u64) {
    match layout & 3 {
        0 | 1 => values.iter().for_each(|&v| put_float(buf, field, v)),
        2 => {
            let body: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            put_bytes(buf, field, &body);
        }
        _ => {
            let (packed, unpacked) = values.split_at(values.len() / 2);
            put_floats(buf, field, packed, 2);
            put_floats(buf, field, unpacked, 0);
        }
    }
}

/// A generated request: the message, which required fields the encoding leaves out (bit
/// `n - 1` = field `n`), and its children (`request.requests` stays empty).
#[derive(Clone, Debug)]
struct Generated {
    request: proto::Request,
    omit: u16,
    children: Vec<Generated>,
}

/// What prost should decode from `encode(g, _)`.
fn model(g: &Generated) -> proto::Request {
    let mut r = g.request.clone();
    let omitted = |n: u16| g.omit & (1 << (n - 1)) != 0;
    if omitted(1) {
        r.hostname.clear();
    }
    if omitted(2) {
        r.server_name.clear();
    }
    if omitted(3) {
        r.script_name.clear();
    }
    if omitted(4) {
        r.request_count = 0;
    }
    if omitted(5) {
        r.document_size = 0;
    }
    if omitted(6) {
        r.memory_peak = 0;
    }
    if omitted(7) {
        r.request_time = 0.0;
    }
    if omitted(8) {
        r.ru_utime = 0.0;
    }
    if omitted(9) {
        r.ru_stime = 0.0;
    }
    r.requests = g.children.iter().map(model).collect();
    r
}

/// Encodes `g`; `seed` picks the layout of each repeated field, the field order, and whether
/// to add unknown fields and a duplicated hostname.
fn encode(g: &Generated, seed: u64) -> Vec<u8> {
    let r = &g.request;
    let omitted = |n: u16| g.omit & (1 << (n - 1)) != 0;
    let mut scalars = Vec::new();
    if seed & (1 << 61) != 0 && !omitted(1) {
        put_bytes(&mut scalars, 1, b"overwritten"); // last one wins
    }
    let strings = [(1, &r.hostname), (2, &r.server_name), (3, &r.script_name)];
    for (n, value) in strings {
        if !omitted(n) {
            put_bytes(&mut scalars, u32::from(n), value);
        }
    }
    let uints = [
        (4, r.request_count),
        (5, r.document_size),
        (6, r.memory_peak),
    ];
    for (n, value) in uints {
        if !omitted(n) {
            put_uint(&mut scalars, u32::from(n), value);
        }
    }
    let floats = [(7, r.request_time), (8, r.ru_utime), (9, r.ru_stime)];
    for (n, value) in floats {
        if !omitted(n) {
            put_float(&mut scalars, u32::from(n), value);
        }
    }
    let mut rest = Vec::new();
    put_uints(&mut rest, 10, &r.timer_hit_count, seed);
    put_floats(&mut rest, 11, &r.timer_value, seed >> 2);
    put_uints(&mut rest, 12, &r.timer_tag_count, seed >> 4);
    put_uints(&mut rest, 13, &r.timer_tag_name, seed >> 6);
    put_uints(&mut rest, 14, &r.timer_tag_value, seed >> 8);
    r.dictionary
        .iter()
        .for_each(|e| put_bytes(&mut rest, 15, e));
    if let Some(status) = r.status {
        put_uint(&mut rest, 16, status);
    }
    if let Some(footprint) = r.memory_footprint {
        put_uint(&mut rest, 17, footprint);
    }
    for (i, child) in g.children.iter().enumerate() {
        let body = encode(child, seed.rotate_left(13 + i as u32));
        put_bytes(&mut rest, 18, &body);
    }
    if let Some(schema) = &r.schema {
        put_bytes(&mut rest, 19, schema);
    }
    put_uints(&mut rest, 20, &r.tag_name, seed >> 10);
    put_uints(&mut rest, 21, &r.tag_value, seed >> 12);
    put_floats(&mut rest, 22, &r.timer_ru_utime, seed >> 14);
    put_floats(&mut rest, 23, &r.timer_ru_stime, seed >> 16);
    if seed & (1 << 62) != 0 {
        put_uint(&mut rest, 99, 7);
        put_bytes(&mut rest, 100, b"zzz");
        put_key(&mut rest, 101, I64);
        rest.extend_from_slice(&[0; 8]);
        put_float(&mut rest, 102, 1.5);
    }
    if seed & (1 << 63) != 0 {
        rest.extend_from_slice(&scalars);
        rest
    } else {
        scalars.extend_from_slice(&rest);
        scalars
    }
}

// ---- generators ------------------------------------------------------------------------

fn arb_string() -> impl Strategy<Value = Vec<u8>> + Clone {
    prop_oneof![
        4 => "[a-z0-9./_-]{0,12}".prop_map(String::into_bytes),
        2 => "\\PC{0,6}".prop_map(String::into_bytes),
        1 => vec(any::<u8>(), 0..12),
    ]
}

fn arb_time() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        40 => (0u32..4096).prop_map(|n| n as f32 / 64.0),
        8 => (-4096i32..0).prop_map(|n| n as f32 / 64.0),
        1 => Just(-0.0f32),
        2 => any::<u32>().prop_map(f32::from_bits),
        1 => prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(f32::NEG_INFINITY)],
        1 => prop_oneof![Just(MAX_SECONDS), Just(MAX_SECONDS * 1.001), Just(-1e30f32)],
    ]
}

fn arb_uint() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![3 => 0u32..5000, 1 => any::<u32>()]
}

/// A timer: hit count, value, (name, value) dictionary indices.
type GenTimer = (u32, f32, Vec<(u32, u32)>);

fn arb_leaf() -> impl Strategy<Value = (proto::Request, u16)> {
    let strings = (arb_string(), arb_string(), arb_string());
    let uints = (arb_uint(), arb_uint(), arb_uint());
    let times = (arb_time(), arb_time(), arb_time());
    let optional = (
        proptest::option::of(arb_uint()),
        proptest::option::of(arb_uint()),
        proptest::option::of(arb_string()),
    );
    let omit = prop_oneof![10 => Just(0u16), 1 => 1u16..512];
    let dictionary_len = prop_oneof![1 => Just(0usize), 8 => 1usize..6];
    let body = dictionary_len.prop_flat_map(|dictionary_len| {
        let index = prop_oneof![40 => 0..dictionary_len.max(1) as u32, 1 => any::<u32>()];
        let tag = (index.clone(), index);
        let hit_count = prop_oneof![1 => Just(0u32), 6 => 1u32..5, 1 => any::<u32>()];
        let timer = (hit_count, arb_time(), vec(tag.clone(), 0..4));
        (
            vec(arb_string(), dictionary_len),
            vec(timer, 0..5),
            vec(tag, 0..4),
            vec(arb_time(), 0..6),
            vec(arb_time(), 0..6),
            prop_oneof![12 => Just(None), 1 => (0u8..4).prop_map(Some)],
        )
    });
    (strings, uints, times, optional, omit, body).prop_map(
        |(strings, uints, times, optional, omit, body)| {
            let (dictionary, timers, tags, ru_utime, ru_stime, damage) = body;
            let timers: Vec<GenTimer> = timers;
            let mut r = proto::Request {
                hostname: strings.0,
                server_name: strings.1,
                script_name: strings.2,
                request_count: uints.0,
                document_size: uints.1,
                memory_peak: uints.2,
                request_time: times.0,
                ru_utime: times.1,
                ru_stime: times.2,
                dictionary,
                status: optional.0,
                memory_footprint: optional.1,
                schema: optional.2,
                timer_ru_utime: ru_utime,
                timer_ru_stime: ru_stime,
                ..Default::default()
            };
            for (hit_count, value, tags) in timers {
                r.timer_hit_count.push(hit_count);
                r.timer_value.push(value);
                r.timer_tag_count.push(tags.len() as u32);
                r.timer_tag_name.extend(tags.iter().map(|t| t.0));
                r.timer_tag_value.extend(tags.iter().map(|t| t.1));
            }
            r.tag_name = tags.iter().map(|t| t.0).collect();
            r.tag_value = tags.iter().map(|t| t.1).collect();
            match damage {
                Some(0) => drop(r.timer_value.pop()),
                Some(1) => r.timer_tag_count.push(1),
                Some(2) => drop(r.timer_tag_value.pop()),
                Some(_) => r.tag_name.push(0),
                None => {}
            }
            (r, omit)
        },
    )
}

fn arb_generated(depth: u32) -> BoxedStrategy<Generated> {
    let leaf = arb_leaf();
    if depth == 0 {
        return leaf
            .prop_map(|(request, omit)| Generated {
                request,
                omit,
                children: Vec::new(),
            })
            .boxed();
    }
    let children = prop_oneof![5 => Just(Vec::new()), 1 => vec(arb_generated(depth - 1), 1..3)];
    (leaf, children)
        .prop_map(|((request, omit), children)| Generated {
            request,
            omit,
            children,
        })
        .boxed()
}

fn arb_policy() -> impl Strategy<Value = DecodePolicy> {
    (
        any::<bool>(),
        prop_oneof![3 => Just(1024usize), 1 => 0usize..8],
        prop_oneof![3 => Just(10_000usize), 1 => 0usize..4],
        prop_oneof![3 => Just(64usize), 1 => 0usize..3],
        prop_oneof![3 => Just(256usize), 1 => 0usize..3],
    )
        .prop_map(
            |(lenient_required, strings, timers, timer_tags, tags)| DecodePolicy {
                lenient_required,
                max_string_bytes: strings,
                max_timers_per_request: timers,
                max_tags_per_timer: timer_tags,
                max_tags_per_request: tags,
            },
        )
}

/// Decodes `datagram` twice into one batch with one decoder and checks everything that must
/// hold for any input.
fn decode_anything(datagram: &[u8], policy: &DecodePolicy) {
    let mut decoder = Decoder::new(*policy);
    let mut batch = Batch::default();
    let mut stats = DecodeStats::default();
    let first = decoder.decode(datagram, &mut batch, &mut stats);
    assert_eq!(batch.requests.len(), first);
    if first == 0 {
        assert!(
            batch.bytes.is_empty(),
            "bytes copied without an accepted request"
        );
    }
    let second = decoder.decode(datagram, &mut batch, &mut stats);
    assert_eq!(first, second);
    assert_eq!(batch.requests.len(), first + second);
    assert_eq!(stats.packets, 2);
    assert_eq!(stats.requests_accepted, (first + second) as u64);
    assert_eq!(stats.packets_decoded + stats.rejected(Reject::Malformed), 2);
    assert!(stats.requests_accepted + stats.rejected_total() >= 2);
    check_batch(&batch, policy);
    let rendered: Vec<Value> = batch.requests.iter().map(|r| render(&batch, r)).collect();
    assert_eq!(
        rendered[..first],
        rendered[first..],
        "second decode differs"
    );
    if !is_v1_candidate(datagram) && proto::Request::decode(datagram).is_err() {
        assert_eq!(
            rejected_names(&stats),
            ["malformed", "malformed"],
            "prost fails"
        );
    }
}

#[test]
fn fixtures_match_prost() {
    let lenient = DecodePolicy {
        lenient_required: true,
        ..DecodePolicy::default()
    };
    let mut compared = 0;
    for fixture in fixtures() {
        let name = &fixture.name;
        let strict_ok = !expected_rejected(&fixture).contains(&"missing_required");
        match proto::Request::decode(fixture.datagram.as_slice()) {
            Ok(request) => {
                let policies = if strict_ok {
                    vec![lenient, DecodePolicy::default()]
                } else {
                    vec![lenient]
                };
                for policy in policies {
                    let mut counts = DecodeStats::default();
                    let expected = policy_from_prost(&request, &[], &policy, &mut counts);
                    let outcome = decode_alone(policy, &fixture.datagram);
                    assert_matches_reference(&outcome, &expected, &counts, name);
                }
                compared += 1;
            }
            Err(_) => {
                let outcome = decode_alone(lenient, &fixture.datagram);
                assert_eq!(outcome.rejected, ["malformed"], "{name}: prost fails");
            }
        }
    }
    assert!(compared >= 24, "only {compared} fixtures compared");
}

#[test]
fn typical_datagram_matches_prost() {
    let request = typical_request();
    let datagram = request.encode_to_vec();
    let policy = DecodePolicy::default();
    let mut counts = DecodeStats::default();
    let expected = policy_from_prost(&request, &[], &policy, &mut counts);
    let outcome = decode_alone(policy, &datagram);
    assert_matches_reference(&outcome, &expected, &counts, "typical");
    assert_eq!(outcome.requests.len(), 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn generated_requests_match_prost(
        g in arb_generated(2),
        seed in any::<u64>(),
        policy in arb_policy(),
    ) {
        let datagram = encode(&g, seed);
        let decoded = proto::Request::decode(datagram.as_slice());
        prop_assert!(decoded.is_ok(), "prost rejects our encoding: {:?}", decoded);
        let decoded = decoded.unwrap_or_default();
        prop_assert_eq!(decoded.encode_to_vec(), model(&g).encode_to_vec());
        let present: Vec<bool> = std::iter::once(g.omit == 0)
            .chain(g.children.iter().map(|c| c.omit == 0))
            .collect();
        let mut counts = DecodeStats::default();
        let expected = policy_from_prost(&decoded, &present, &policy, &mut counts);
        let outcome = decode_alone(policy, &datagram);
        assert_matches_reference(&outcome, &expected, &counts, "generated");
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..300), policy in arb_policy()) {
        decode_anything(&bytes, &policy);
    }

    #[test]
    fn arbitrary_v1_never_panics(
        flags in any::<u16>(),
        orig_len in prop_oneof![0usize..300, any::<u16>().prop_map(usize::from)],
        body in vec(any::<u8>(), 0..300),
    ) {
        decode_anything(&v1_datagram(flags, orig_len, &body), &DecodePolicy::default());
    }

    #[test]
    fn mutated_datagrams_never_panic(
        g in arb_generated(2),
        seed in any::<u64>(),
        framing in 0u8..3,
        mutations in vec((0u8..3, any::<usize>(), any::<u8>()), 1..4),
        policy in arb_policy(),
    ) {
        let payload = encode(&g, seed);
        let mut datagram = match framing {
            0 => payload,
            1 => v1_datagram(0, payload.len(), &payload),
            _ => v1_datagram(1, payload.len(), &lz4_flex::block::compress(&payload)),
        };
        for (kind, at, byte) in mutations {
            let at = at % (datagram.len() + 1);
            match kind {
                0 if at < datagram.len() => datagram[at] ^= byte | 1,
                1 => datagram.truncate(at),
                _ => datagram.insert(at, byte),
            }
        }
        decode_anything(&datagram, &policy);
    }
}
