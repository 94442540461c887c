//! An accepted request into the batch, as `policy/mod.rs` says accepted requests are kept: times
//! clamped, timers with hit_count 0 skipped, timers and tags capped, long strings cut at a
//! character boundary, each cut counted.

use super::{bytes_at, DecodePolicy};
use crate::counters::DecodeStats;
use crate::decode::message::Message;
use crate::record::{Batch, Span, TagIndexPair, WireRequest, WireTimer};

/// Negative times (and -0.0) become 0. The value is already known to be finite.
#[inline(always)]
fn clamp_time(seconds: f32) -> f32 {
    if seconds > 0.0 {
        seconds
    } else {
        0.0
    }
}

/// How many bytes of `bytes` to keep under a limit of `max`: all of them if they fit; else `max`,
/// backed up to the start of the UTF-8 character that the cut would split, if there is a
/// well-formed one there.
pub fn cut_len(bytes: &[u8], max: usize) -> usize {
    if bytes.len() <= max {
        return bytes.len();
    }
    for back in 1..=max.min(3) {
        let start = max - back;
        let lead = bytes[start];
        if lead & 0xc0 == 0x80 {
            continue; // a continuation byte: the character starts further back
        }
        let width = match lead {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => return max, // ASCII (ends before the cut) or not a lead byte at all
        };
        let splits = width > back && start + width <= bytes.len();
        if splits && std::str::from_utf8(&bytes[start..start + width]).is_ok() {
            return start;
        }
        return max;
    }
    max
}

/// A string kept under the limit (`payload` is only read when it is over).
#[inline(always)]
fn keep_string(span: Span, payload: &[u8], shift: usize, max: usize, truncated: &mut u64) -> Span {
    if span.len as usize <= max {
        return span;
    }
    *truncated += 1;
    let bytes = bytes_at(payload, shift, span).unwrap_or_default();
    Span {
        start: span.start,
        len: cut_len(bytes, max) as u32,
    }
}

#[inline(always)]
fn tag_pair((&name, &value): (&u32, &u32)) -> TagIndexPair {
    TagIndexPair { name, value }
}

/// Timer `i` of `m`, with times clamped and missing rusage as 0.
#[inline(always)]
fn wire_timer(m: &Message, i: usize, hit_count: u32, value: f32, tags: Span) -> WireTimer {
    WireTimer {
        hit_count,
        value: clamp_time(value),
        ru_utime: clamp_time(m.timer_ru_utime.get(i).copied().unwrap_or(0.0)),
        ru_stime: clamp_time(m.timer_ru_stime.get(i).copied().unwrap_or(0.0)),
        tags,
    }
}

/// Appends the accepted request `m` to `out`. `check(m)` has passed, so the timer arrays agree
/// and every tag index is in range. `#[inline]`: called once per request from `Work::accept`, in
/// another module (maybe another codegen unit), where it belongs inlined.
#[inline]
pub(super) fn assemble(
    m: &Message,
    policy: &DecodePolicy,
    payload: &[u8],
    shift: usize,
    out: &mut Batch,
    stats: &mut DecodeStats,
) {
    let max = policy.max_string_bytes;
    let truncated = &mut stats.strings_truncated;
    let hostname = keep_string(m.hostname, payload, shift, max, truncated);
    let server_name = keep_string(m.server_name, payload, shift, max, truncated);
    let script_name = keep_string(m.script_name, payload, shift, max, truncated);
    let schema = m
        .schema
        .map(|s| keep_string(s, payload, shift, max, truncated));

    let dictionary_start = out.dictionary.len();
    let longest = m.dictionary.iter().fold(0, |a, s| a.max(s.len));
    if longest as usize <= max {
        out.dictionary.extend_from_slice(&m.dictionary);
    } else {
        let kept = m
            .dictionary
            .iter()
            .map(|&s| keep_string(s, payload, shift, max, truncated));
        out.dictionary.extend(kept);
    }

    let tags_start = out.tags.len();
    let tags_kept = m.tag_name.len().min(policy.max_tags_per_request);
    stats.request_tags_dropped += (m.tag_name.len() - tags_kept) as u64;
    if tags_kept > 0 {
        let names = &m.tag_name[..tags_kept];
        out.tags
            .extend(names.iter().zip(&m.tag_value[..tags_kept]).map(tag_pair));
    }

    let timers_start = out.timers.len();
    let timers = m
        .timer_hit_count
        .iter()
        .zip(&m.timer_value)
        .zip(&m.timer_tag_count);
    let all_kept = m.timer_hit_count.len() <= policy.max_timers_per_request
        && m.timer_hit_count.iter().fold(true, |ok, &n| ok & (n != 0))
        && (m.timer_tag_count.iter().fold(0, |a, &n| a.max(n)) as usize)
            <= policy.max_tags_per_timer;
    if all_kept {
        // The usual case: every timer and tag kept, so the tags go over in one piece.
        let mut first_tag = out.timer_tags.len();
        let pairs = m
            .timer_tag_name
            .iter()
            .zip(&m.timer_tag_value)
            .map(tag_pair);
        out.timer_tags.extend(pairs);
        for (i, ((&hit_count, &value), &tag_count)) in timers.enumerate() {
            let tags = Span::new(first_tag, tag_count as usize);
            first_tag += tag_count as usize;
            out.timers.push(wire_timer(m, i, hit_count, value, tags));
        }
    } else {
        let mut cursor = 0;
        for (i, ((&hit_count, &value), &tag_count)) in timers.enumerate() {
            let first_tag = cursor;
            cursor += tag_count as usize;
            if hit_count == 0 {
                stats.timers_skipped += 1;
                continue;
            }
            if out.timers.len() - timers_start == policy.max_timers_per_request {
                stats.timers_dropped += 1;
                continue;
            }
            let tags_kept = (tag_count as usize).min(policy.max_tags_per_timer);
            stats.timer_tags_dropped += u64::from(tag_count) - tags_kept as u64;
            let names = &m.timer_tag_name[first_tag..first_tag + tags_kept];
            let values = &m.timer_tag_value[first_tag..first_tag + tags_kept];
            let tags = Span::new(out.timer_tags.len(), tags_kept);
            out.timer_tags
                .extend(names.iter().zip(values).map(tag_pair));
            out.timers.push(wire_timer(m, i, hit_count, value, tags));
        }
    }
    let timers_kept = out.timers.len() - timers_start;

    out.requests.push(WireRequest {
        hostname,
        server_name,
        script_name,
        schema,
        request_count: m.request_count,
        document_size: m.document_size,
        memory_peak: m.memory_peak,
        memory_footprint: m.memory_footprint,
        status: m.status,
        request_time: clamp_time(m.request_time),
        ru_utime: clamp_time(m.ru_utime),
        ru_stime: clamp_time(m.ru_stime),
        dictionary: Span::new(dictionary_start, m.dictionary.len()),
        tags: Span::new(tags_start, tags_kept),
        timers: Span::new(timers_start, timers_kept),
    });
}
