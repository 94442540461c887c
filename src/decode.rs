//! Pinba datagram bytes → accepted requests in a [`Batch`], every rejection counted.
//!
//! - **In**: the bytes of one UDP datagram: a serialized `Pinba.Request` ("v0", `proto/pinba.proto`),
//!   or the same behind the optional 4-byte "v1" header (plain or LZ4 block).
//! - **Out**: each accepted request appended to a [`record::Batch`](crate::record::Batch) (the
//!   parent and each direct child of a nested batch are separate requests); the datagram bytes are
//!   copied into `Batch::bytes` once, only when at least one request is accepted, and every string
//!   is a span into that copy. Everything that happened is counted into a [`DecodeStats`].
//! - **Thread**: receiver threads, one [`Decoder`] each (it owns the scratch vectors it reuses).
//! - **Never**: allocates per datagram in steady state (scratch and batch vectors are cleared, not
//!   dropped), panics on any input, reads the clock, does I/O.
//!
//! ## How
//! One pass over the protobuf wire format collects every field of a request into scratch vectors
//! (repeated scalars in either encoding: unpacked, packed, or split across several runs), then the
//! request is checked against the policy of `PROTOCOL.md` and, if accepted, assembled into the batch.
//!
//! ## Check order
//! The first failing check gives the reason, so a request is counted exactly once:
//! 1. `malformed` (whole datagram, counted once): truncated field, length past the end, varint over
//!    10 bytes or over 64 bits, key over 32 bits, field number 0, wire type 3, 4, 6 or 7 anywhere,
//!    wrong wire type for a known field (fields 10–14 and 20–23 accept both unpacked and packed),
//!    a packed float run whose length is not a multiple of 4, nesting deeper than prost's limit of
//!    100 levels. A malformed nested message makes the whole datagram malformed, as with prost:
//!    its bytes are part of the datagram.
//! 2. `missing_required`: one of fields 1–9 absent (unless `lenient_required`).
//! 3. `timer_array_mismatch`: lengths of fields 10, 11, 12 differ.
//! 4. `timer_tag_mismatch`: Σ field 12 ≠ len(13) or ≠ len(14).
//! 5. `request_tag_mismatch`: len(20) ≠ len(21).
//! 6. `bad_dictionary_index`: any entry of 13, 14, 20 or 21 ≥ len(15).
//! 7. `non_finite`: NaN or ±Inf in fields 7, 8, 9, any entry of 11, or the entries of 22/23 that
//!    belong to a timer (entries past the timer count are ignored).
//!
//! Checks 6 and 7 look at every timer on the wire, including those then skipped (hit_count 0) or
//! cut by the caps: they judge the request as sent.
//!
//! ## What accepted requests go through
//! Negative times become 0 (and -0.0 becomes 0.0). Timers with hit_count 0 are skipped (their tags
//! still advance the tag cursor) and counted in `timers_skipped`; then at most
//! `max_timers_per_request` timers are kept (`timers_dropped` counts the others), each with at most
//! `max_tags_per_timer` tags (`timer_tags_dropped`); at most `max_tags_per_request` request tags are
//! kept (`request_tags_dropped`). Strings (hostname, server, script, schema, dictionary entries)
//! longer than `max_string_bytes` are cut, backing up to the start of a UTF-8 character the cut
//! would split (`strings_truncated`, one per string). These counters only count accepted requests.
//!
//! ## Nested batches (field 18)
//! The parent and each direct child are validated independently (each child has its own
//! dictionary); a rejected child drops only itself. Grandchildren are checked for well-formedness,
//! then ignored and counted in `nested_ignored` (one per grandchild of a well-formed datagram,
//! whether or not its parent child is accepted).
//!
//! ## Where this decoder differs from prost (the oracle of the tests)
//! - prost does not enforce proto2 `required`; we do (or fill defaults when lenient).
//! - prost skips groups (wire types 3/4) in unknown fields; we call them malformed (no Pinba client
//!   ever wrote a group).
//!
//! ## v1 framing
//! A datagram with `len >= 4 && byte0 >> 4 == 1` may carry the 4-byte header
//! `<version:4><flags:12><orig_len:16>` (big-endian). Flag bit 0 set: the rest is an LZ4 block that
//! must decompress to exactly `orig_len` bytes; clear: the rest is the plain payload and its length
//! must equal `orig_len`. If that fails, or the payload does not give at least one accepted request,
//! the whole datagram is decoded as v0 instead (a v0 datagram starts with `0x12`/`0x1a` when field 1
//! is omitted). Only the path finally taken is counted, plus `v1_decoded` or `v1_fallback`.

use crate::counters::{DecodeStats, Reject};
use crate::record::{Batch, Span, TagIndexPair, WireRequest, WireTimer};

/// How the decoder treats requests: the `decode.*` and `limits.*` settings it needs, copied into
/// each receiver's [`Decoder`] at start-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodePolicy {
    /// Accept requests that lack one of the required fields 1–9, with empty strings and zeros in
    /// their place, instead of rejecting them as `missing_required`.
    pub lenient_required: bool,
    /// Longest string kept (hostname, server, script, schema, dictionary entries), in bytes.
    pub max_string_bytes: usize,
    /// Most timers kept per request (after skipping hit_count 0).
    pub max_timers_per_request: usize,
    /// Most tags kept per timer.
    pub max_tags_per_timer: usize,
    /// Most request tags (fields 20/21) kept per request.
    pub max_tags_per_request: usize,
}

impl Default for DecodePolicy {
    fn default() -> DecodePolicy {
        DecodePolicy {
            lenient_required: false,
            max_string_bytes: 1024,
            max_timers_per_request: 10_000,
            max_tags_per_timer: 64,
            max_tags_per_request: 256,
        }
    }
}

/// Decodes datagrams into batches. One per receiver thread: it owns the scratch vectors that make
/// decoding allocation-free once they have grown to the largest datagram seen.
#[derive(Debug)]
pub struct Decoder {
    work: Work,
    /// Decompressed v1 payloads: grown to 64 KiB by the first LZ4 datagram, then reused.
    lz4_payload: Vec<u8>,
}

impl Decoder {
    pub fn new(policy: DecodePolicy) -> Decoder {
        Decoder {
            work: Work {
                policy,
                message: Message::with_capacity(),
                children: Vec::with_capacity(8),
            },
            lz4_payload: Vec::new(),
        }
    }

    /// Decodes one datagram, appends each accepted request to `out` (copying the datagram bytes into
    /// `out.bytes` once, only if at least one request is accepted; spans are relative to out.bytes),
    /// counts everything into `stats` (stats.packets += 1, packets_decoded, requests_accepted, rejections
    /// by reason, timers_skipped, strings_truncated, ...). Returns the number of requests accepted.
    pub fn decode(&mut self, datagram: &[u8], out: &mut Batch, stats: &mut DecodeStats) -> usize {
        stats.packets += 1;
        let mut tally = DecodeStats::default();
        let accepted = if is_v1_candidate(datagram) {
            let v1 = match v1_payload(datagram, &mut self.lz4_payload) {
                Some(payload) => self.work.decode_payload(payload, out, &mut tally),
                None => 0,
            };
            if v1 > 0 {
                tally.v1_decoded += 1;
                v1
            } else {
                // Nothing was appended to `out`; forget what the v1 attempt counted.
                tally = DecodeStats::default();
                tally.v1_fallback += 1;
                self.work.decode_payload(datagram, out, &mut tally)
            }
        } else {
            self.work.decode_payload(datagram, out, &mut tally)
        };
        add_stats(stats, &tally);
        accepted
    }
}

/// Longest v1 payload (`orig_len` is 16 bits).
const V1_MAX_PAYLOAD: usize = u16::MAX as usize;

fn is_v1_candidate(datagram: &[u8]) -> bool {
    datagram.len() >= 4 && datagram[0] >> 4 == 1
}

/// The v0 payload behind a v1 header, decompressed into `scratch` if needed; `None` if the header
/// does not hold up (bad LZ4 block, length different from `orig_len`).
fn v1_payload<'a>(datagram: &'a [u8], scratch: &'a mut Vec<u8>) -> Option<&'a [u8]> {
    let (&[b0, b1, len_hi, len_lo], body) = datagram.split_first_chunk::<4>()?;
    let flags = (u16::from(b0 & 0x0f) << 8) | u16::from(b1);
    let orig_len = usize::from(u16::from_be_bytes([len_hi, len_lo]));
    if flags & 1 == 0 {
        return (body.len() == orig_len).then_some(body);
    }
    if scratch.len() < V1_MAX_PAYLOAD {
        scratch.resize(V1_MAX_PAYLOAD, 0);
    }
    let written = lz4_flex::block::decompress_into(body, &mut scratch[..orig_len]).ok()?;
    (written == orig_len).then(|| &scratch[..orig_len])
}

/// Adds one datagram's tally to a receiver's running stats. Destructures so that a new counter is
/// a compile error here rather than silently never added.
fn add_stats(total: &mut DecodeStats, part: &DecodeStats) {
    let DecodeStats {
        packets,
        packets_decoded,
        requests_accepted,
        rejected,
        timers_skipped,
        timers_dropped,
        timer_tags_dropped,
        request_tags_dropped,
        strings_truncated,
        nested_ignored,
        v1_decoded,
        v1_fallback,
    } = part;
    total.packets += packets;
    total.packets_decoded += packets_decoded;
    total.requests_accepted += requests_accepted;
    for (sum, n) in total.rejected.iter_mut().zip(rejected) {
        *sum += n;
    }
    total.timers_skipped += timers_skipped;
    total.timers_dropped += timers_dropped;
    total.timer_tags_dropped += timer_tags_dropped;
    total.request_tags_dropped += request_tags_dropped;
    total.strings_truncated += strings_truncated;
    total.nested_ignored += nested_ignored;
    total.v1_decoded += v1_decoded;
    total.v1_fallback += v1_fallback;
}

/// The part of the decoder that turns one v0 payload into requests (split from [`Decoder`] so that
/// the payload can borrow the LZ4 buffer while this is borrowed mutably).
#[derive(Debug)]
struct Work {
    policy: DecodePolicy,
    /// The request being decoded: the parent, then each child in turn.
    message: Message,
    /// Field-18 spans of the parent, moved out of `message` while the children reuse it.
    children: Vec<Span>,
}

/// The datagram is not a well-formed `Pinba.Request`: it is dropped whole.
#[derive(Debug)]
struct Malformed;

/// Where the output vectors of a batch stood before a datagram, to undo its appends when a later
/// part of it turns out malformed.
struct Marks {
    requests: usize,
    dictionary: usize,
    tags: usize,
    timers: usize,
    timer_tags: usize,
}

impl Marks {
    fn of(out: &Batch) -> Marks {
        Marks {
            requests: out.requests.len(),
            dictionary: out.dictionary.len(),
            tags: out.tags.len(),
            timers: out.timers.len(),
            timer_tags: out.timer_tags.len(),
        }
    }

    fn restore(&self, out: &mut Batch) {
        out.requests.truncate(self.requests);
        out.dictionary.truncate(self.dictionary);
        out.tags.truncate(self.tags);
        out.timers.truncate(self.timers);
        out.timer_tags.truncate(self.timer_tags);
    }
}

impl Work {
    /// Decodes one v0 payload: `stats` is a fresh tally for this attempt (it is reset when the
    /// payload is malformed, so that only `malformed` is counted).
    fn decode_payload(&mut self, payload: &[u8], out: &mut Batch, stats: &mut DecodeStats) -> usize {
        let marks = Marks::of(out);
        match self.decode_requests(payload, out, stats) {
            Ok(accepted) => {
                if accepted > 0 {
                    out.bytes.extend_from_slice(payload);
                }
                stats.packets_decoded += 1;
                stats.requests_accepted += accepted as u64;
                accepted
            }
            Err(Malformed) => {
                marks.restore(out);
                *stats = DecodeStats::default();
                stats.reject(Reject::Malformed);
                0
            }
        }
    }

    fn decode_requests(
        &mut self,
        payload: &[u8],
        out: &mut Batch,
        stats: &mut DecodeStats,
    ) -> Result<usize, Malformed> {
        // Spans are relative to the payload; the payload will be appended at `shift`.
        let shift = out.bytes.len();
        self.message.clear();
        parse_request::<true>(payload, 0, &mut self.message, 0)?;
        std::mem::swap(&mut self.children, &mut self.message.requests);
        let mut accepted = self.accept(payload, shift, out, stats);
        for i in 0..self.children.len() {
            let child = self.children[i];
            let data = payload.get(child.range()).ok_or(Malformed)?;
            self.message.clear();
            parse_request::<true>(data, child.start as usize, &mut self.message, 1)?;
            for j in 0..self.message.requests.len() {
                let grandchild = self.message.requests[j];
                let data = payload.get(grandchild.range()).ok_or(Malformed)?;
                // Validation only: the `false` instance never touches the message.
                parse_request::<false>(data, 0, &mut self.message, 2)?;
                stats.nested_ignored += 1;
            }
            accepted += self.accept(payload, shift, out, stats);
        }
        Ok(accepted)
    }

    /// Checks the request in `self.message` and appends it to `out` if it passes; 1 if accepted.
    fn accept(&self, payload: &[u8], shift: usize, out: &mut Batch, stats: &mut DecodeStats) -> usize {
        match check(&self.message, &self.policy) {
            Ok(()) => {
                assemble(&self.message, &self.policy, payload, shift, out, stats);
                1
            }
            Err(reason) => {
                stats.reject(reason);
                0
            }
        }
    }
}

/// One request as found on the wire. Spans are relative to the payload.
#[derive(Debug, Default)]
struct Message {
    /// Bit `n - 1` set when required field `n` (1–9) was seen.
    present: u16,
    hostname: Span,
    server_name: Span,
    script_name: Span,
    schema: Option<Span>,
    request_count: u32,
    document_size: u32,
    memory_peak: u32,
    status: u32,
    memory_footprint: u32,
    request_time: f32,
    ru_utime: f32,
    ru_stime: f32,
    timer_hit_count: Vec<u32>,
    timer_value: Vec<f32>,
    timer_tag_count: Vec<u32>,
    timer_tag_name: Vec<u32>,
    timer_tag_value: Vec<u32>,
    dictionary: Vec<Span>,
    tag_name: Vec<u32>,
    tag_value: Vec<u32>,
    timer_ru_utime: Vec<f32>,
    timer_ru_stime: Vec<f32>,
    /// Field 18: the children of the parent, or the grandchildren of a child.
    requests: Vec<Span>,
}

const REQUIRED_FIELDS: u16 = (1 << 9) - 1;

impl Message {
    fn with_capacity() -> Message {
        Message {
            timer_hit_count: Vec::with_capacity(64),
            timer_value: Vec::with_capacity(64),
            timer_tag_count: Vec::with_capacity(64),
            timer_tag_name: Vec::with_capacity(256),
            timer_tag_value: Vec::with_capacity(256),
            dictionary: Vec::with_capacity(128),
            tag_name: Vec::with_capacity(16),
            tag_value: Vec::with_capacity(16),
            timer_ru_utime: Vec::with_capacity(64),
            timer_ru_stime: Vec::with_capacity(64),
            requests: Vec::with_capacity(8),
            ..Message::default()
        }
    }

    fn clear(&mut self) {
        self.present = 0;
        self.hostname = Span::default();
        self.server_name = Span::default();
        self.script_name = Span::default();
        self.schema = None;
        self.request_count = 0;
        self.document_size = 0;
        self.memory_peak = 0;
        self.status = 0;
        self.memory_footprint = 0;
        self.request_time = 0.0;
        self.ru_utime = 0.0;
        self.ru_stime = 0.0;
        self.timer_hit_count.clear();
        self.timer_value.clear();
        self.timer_tag_count.clear();
        self.timer_tag_name.clear();
        self.timer_tag_value.clear();
        self.dictionary.clear();
        self.tag_name.clear();
        self.tag_value.clear();
        self.timer_ru_utime.clear();
        self.timer_ru_stime.clear();
        self.requests.clear();
    }
}

// ---- wire format -------------------------------------------------------------------------------

const VARINT: u32 = 0;
const I64: u32 = 1;
const LEN: u32 = 2;
const I32: u32 = 5;

const fn key(field: u32, wire_type: u32) -> u32 {
    (field << 3) | wire_type
}

/// Highest field number of `Pinba.Request`: any other wire type for 1..=23 is malformed.
const LAST_KNOWN_FIELD: u32 = 23;

/// prost's recursion limit: a message at this depth (the top is 0) may hold no nested message and
/// no unknown field.
const MAX_DEPTH: u32 = 100;

#[inline(always)]
fn read_varint(data: &[u8], pos: &mut usize) -> Result<u64, Malformed> {
    match data.get(*pos) {
        Some(&byte) if byte < 0x80 => {
            *pos += 1;
            Ok(u64::from(byte))
        }
        _ => read_varint_long(data, pos),
    }
}

/// A varint of 2–10 bytes; the 10th byte may only carry bit 63 (as prost checks).
#[inline]
fn read_varint_long(data: &[u8], pos: &mut usize) -> Result<u64, Malformed> {
    let rest = data.get(*pos..).unwrap_or_default();
    let mut value = 0u64;
    for (i, &byte) in rest.iter().take(10).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            if i == 9 && byte > 1 {
                return Err(Malformed);
            }
            *pos += i + 1;
            return Ok(value);
        }
    }
    Err(Malformed)
}

/// A length-delimited field's body: `(start, len)` within `data`.
#[inline(always)]
fn read_len(data: &[u8], pos: &mut usize) -> Result<(usize, usize), Malformed> {
    let len = read_varint(data, pos)?;
    let start = *pos;
    if len > (data.len() - start) as u64 {
        return Err(Malformed);
    }
    *pos = start + len as usize;
    Ok((start, len as usize))
}

#[inline(always)]
fn read_fixed32(data: &[u8], pos: &mut usize) -> Result<u32, Malformed> {
    match data.get(*pos..*pos + 4) {
        Some(&[a, b, c, d]) => {
            *pos += 4;
            Ok(u32::from_le_bytes([a, b, c, d]))
        }
        _ => Err(Malformed),
    }
}

#[inline(always)]
fn read_span(data: &[u8], pos: &mut usize, offset: usize) -> Result<Span, Malformed> {
    let (start, len) = read_len(data, pos)?;
    Ok(Span::new(offset + start, len))
}

/// A packed run of uint32 (low 32 bits of each varint, like protobuf).
#[inline]
fn read_packed_u32<const COLLECT: bool>(
    data: &[u8],
    pos: &mut usize,
    values: &mut Vec<u32>,
) -> Result<(), Malformed> {
    let (start, len) = read_len(data, pos)?;
    let run = data.get(start..start + len).ok_or(Malformed)?;
    let mut p = 0;
    while p < run.len() {
        let value = read_varint(run, &mut p)? as u32;
        if COLLECT {
            values.push(value);
        }
    }
    Ok(())
}

#[inline]
fn read_packed_f32<const COLLECT: bool>(
    data: &[u8],
    pos: &mut usize,
    values: &mut Vec<f32>,
) -> Result<(), Malformed> {
    let (start, len) = read_len(data, pos)?;
    let run = data.get(start..start + len).ok_or(Malformed)?;
    if len % 4 != 0 {
        return Err(Malformed);
    }
    if COLLECT {
        values.extend(run.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    }
    Ok(())
}

fn skip_field(data: &[u8], pos: &mut usize, wire_type: u32) -> Result<(), Malformed> {
    let len = match wire_type {
        VARINT => return read_varint(data, pos).map(drop),
        LEN => return read_len(data, pos).map(drop),
        I64 => 8,
        I32 => 4,
        _ => return Err(Malformed), // groups (3, 4) and the undefined 6, 7
    };
    if data.len() - *pos < len {
        return Err(Malformed);
    }
    *pos += len;
    Ok(())
}

/// Parses one `Pinba.Request` in `data` (which starts at `offset` in the payload) into `m`.
///
/// With `COLLECT = false` it only checks that the message (and everything nested in it) is well
/// formed, and never touches `m`: that is how grandchildren are validated. With `COLLECT = true`,
/// nested messages are not parsed but their spans pushed to `m.requests` for the caller.
fn parse_request<const COLLECT: bool>(
    data: &[u8],
    offset: usize,
    m: &mut Message,
    depth: u32,
) -> Result<(), Malformed> {
    const HOSTNAME: u32 = key(1, LEN);
    const SERVER_NAME: u32 = key(2, LEN);
    const SCRIPT_NAME: u32 = key(3, LEN);
    const REQUEST_COUNT: u32 = key(4, VARINT);
    const DOCUMENT_SIZE: u32 = key(5, VARINT);
    const MEMORY_PEAK: u32 = key(6, VARINT);
    const REQUEST_TIME: u32 = key(7, I32);
    const RU_UTIME: u32 = key(8, I32);
    const RU_STIME: u32 = key(9, I32);
    const TIMER_HIT_COUNT: u32 = key(10, VARINT);
    const TIMER_HIT_COUNT_PACKED: u32 = key(10, LEN);
    const TIMER_VALUE: u32 = key(11, I32);
    const TIMER_VALUE_PACKED: u32 = key(11, LEN);
    const TIMER_TAG_COUNT: u32 = key(12, VARINT);
    const TIMER_TAG_COUNT_PACKED: u32 = key(12, LEN);
    const TIMER_TAG_NAME: u32 = key(13, VARINT);
    const TIMER_TAG_NAME_PACKED: u32 = key(13, LEN);
    const TIMER_TAG_VALUE: u32 = key(14, VARINT);
    const TIMER_TAG_VALUE_PACKED: u32 = key(14, LEN);
    const DICTIONARY: u32 = key(15, LEN);
    const STATUS: u32 = key(16, VARINT);
    const MEMORY_FOOTPRINT: u32 = key(17, VARINT);
    const REQUESTS: u32 = key(18, LEN);
    const SCHEMA: u32 = key(19, LEN);
    const TAG_NAME: u32 = key(20, VARINT);
    const TAG_NAME_PACKED: u32 = key(20, LEN);
    const TAG_VALUE: u32 = key(21, VARINT);
    const TAG_VALUE_PACKED: u32 = key(21, LEN);
    const TIMER_RU_UTIME: u32 = key(22, I32);
    const TIMER_RU_UTIME_PACKED: u32 = key(22, LEN);
    const TIMER_RU_STIME: u32 = key(23, I32);
    const TIMER_RU_STIME_PACKED: u32 = key(23, LEN);

    let mut pos = 0;
    while pos < data.len() {
        let key = read_varint(data, &mut pos)?;
        let Ok(key) = u32::try_from(key) else {
            return Err(Malformed);
        };
        match key {
            HOSTNAME => {
                let span = read_span(data, &mut pos, offset)?;
                if COLLECT {
                    m.hostname = span;
                    m.present |= 1 << 0;
                }
            }
            SERVER_NAME => {
                let span = read_span(data, &mut pos, offset)?;
                if COLLECT {
                    m.server_name = span;
                    m.present |= 1 << 1;
                }
            }
            SCRIPT_NAME => {
                let span = read_span(data, &mut pos, offset)?;
                if COLLECT {
                    m.script_name = span;
                    m.present |= 1 << 2;
                }
            }
            REQUEST_COUNT => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.request_count = value;
                    m.present |= 1 << 3;
                }
            }
            DOCUMENT_SIZE => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.document_size = value;
                    m.present |= 1 << 4;
                }
            }
            MEMORY_PEAK => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.memory_peak = value;
                    m.present |= 1 << 5;
                }
            }
            REQUEST_TIME => {
                let value = f32::from_bits(read_fixed32(data, &mut pos)?);
                if COLLECT {
                    m.request_time = value;
                    m.present |= 1 << 6;
                }
            }
            RU_UTIME => {
                let value = f32::from_bits(read_fixed32(data, &mut pos)?);
                if COLLECT {
                    m.ru_utime = value;
                    m.present |= 1 << 7;
                }
            }
            RU_STIME => {
                let value = f32::from_bits(read_fixed32(data, &mut pos)?);
                if COLLECT {
                    m.ru_stime = value;
                    m.present |= 1 << 8;
                }
            }
            TIMER_HIT_COUNT => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.timer_hit_count.push(value);
                }
            }
            TIMER_HIT_COUNT_PACKED => {
                read_packed_u32::<COLLECT>(data, &mut pos, &mut m.timer_hit_count)?;
            }
            TIMER_VALUE => {
                let value = f32::from_bits(read_fixed32(data, &mut pos)?);
                if COLLECT {
                    m.timer_value.push(value);
                }
            }
            TIMER_VALUE_PACKED => read_packed_f32::<COLLECT>(data, &mut pos, &mut m.timer_value)?,
            TIMER_TAG_COUNT => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.timer_tag_count.push(value);
                }
            }
            TIMER_TAG_COUNT_PACKED => {
                read_packed_u32::<COLLECT>(data, &mut pos, &mut m.timer_tag_count)?;
            }
            TIMER_TAG_NAME => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.timer_tag_name.push(value);
                }
            }
            TIMER_TAG_NAME_PACKED => {
                read_packed_u32::<COLLECT>(data, &mut pos, &mut m.timer_tag_name)?;
            }
            TIMER_TAG_VALUE => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.timer_tag_value.push(value);
                }
            }
            TIMER_TAG_VALUE_PACKED => {
                read_packed_u32::<COLLECT>(data, &mut pos, &mut m.timer_tag_value)?;
            }
            DICTIONARY => {
                let span = read_span(data, &mut pos, offset)?;
                if COLLECT {
                    m.dictionary.push(span);
                }
            }
            STATUS => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.status = value;
                }
            }
            MEMORY_FOOTPRINT => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.memory_footprint = value;
                }
            }
            REQUESTS => {
                let (start, len) = read_len(data, &mut pos)?;
                if depth >= MAX_DEPTH {
                    return Err(Malformed);
                }
                if COLLECT {
                    m.requests.push(Span::new(offset + start, len));
                } else {
                    let nested = data.get(start..start + len).ok_or(Malformed)?;
                    parse_request::<false>(nested, 0, m, depth + 1)?;
                }
            }
            SCHEMA => {
                let span = read_span(data, &mut pos, offset)?;
                if COLLECT {
                    m.schema = Some(span);
                }
            }
            TAG_NAME => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.tag_name.push(value);
                }
            }
            TAG_NAME_PACKED => read_packed_u32::<COLLECT>(data, &mut pos, &mut m.tag_name)?,
            TAG_VALUE => {
                let value = read_varint(data, &mut pos)? as u32;
                if COLLECT {
                    m.tag_value.push(value);
                }
            }
            TAG_VALUE_PACKED => read_packed_u32::<COLLECT>(data, &mut pos, &mut m.tag_value)?,
            TIMER_RU_UTIME => {
                let value = f32::from_bits(read_fixed32(data, &mut pos)?);
                if COLLECT {
                    m.timer_ru_utime.push(value);
                }
            }
            TIMER_RU_UTIME_PACKED => {
                read_packed_f32::<COLLECT>(data, &mut pos, &mut m.timer_ru_utime)?;
            }
            TIMER_RU_STIME => {
                let value = f32::from_bits(read_fixed32(data, &mut pos)?);
                if COLLECT {
                    m.timer_ru_stime.push(value);
                }
            }
            TIMER_RU_STIME_PACKED => {
                read_packed_f32::<COLLECT>(data, &mut pos, &mut m.timer_ru_stime)?;
            }
            other => {
                // Field 0, a known field with the wrong wire type, or an unknown field where
                // prost's recursion limit forbids even skipping one.
                let field = other >> 3;
                if field <= LAST_KNOWN_FIELD || depth >= MAX_DEPTH {
                    return Err(Malformed);
                }
                skip_field(data, &mut pos, other & 7)?;
            }
        }
    }
    Ok(())
}

// ---- policy ------------------------------------------------------------------------------------

/// The checks of the module doc, in that order.
fn check(m: &Message, policy: &DecodePolicy) -> Result<(), Reject> {
    if !policy.lenient_required && m.present != REQUIRED_FIELDS {
        return Err(Reject::MissingRequired);
    }
    let timers = m.timer_hit_count.len();
    if m.timer_value.len() != timers || m.timer_tag_count.len() != timers {
        return Err(Reject::TimerArrayMismatch);
    }
    let timer_tags: u64 = m.timer_tag_count.iter().map(|&n| u64::from(n)).sum();
    if timer_tags != m.timer_tag_name.len() as u64 || timer_tags != m.timer_tag_value.len() as u64 {
        return Err(Reject::TimerTagMismatch);
    }
    if m.tag_name.len() != m.tag_value.len() {
        return Err(Reject::RequestTagMismatch);
    }
    let dictionary_len = m.dictionary.len();
    let in_range = |indices: &[u32]| indices.iter().all(|&i| (i as usize) < dictionary_len);
    if !(in_range(&m.timer_tag_name)
        && in_range(&m.timer_tag_value)
        && in_range(&m.tag_name)
        && in_range(&m.tag_value))
    {
        return Err(Reject::BadDictionaryIndex);
    }
    let finite = |values: &[f32]| values.iter().all(|v| v.is_finite());
    let ru_utime = &m.timer_ru_utime[..m.timer_ru_utime.len().min(timers)];
    let ru_stime = &m.timer_ru_stime[..m.timer_ru_stime.len().min(timers)];
    if !(finite(&[m.request_time, m.ru_utime, m.ru_stime])
        && finite(&m.timer_value)
        && finite(ru_utime)
        && finite(ru_stime))
    {
        return Err(Reject::NonFinite);
    }
    Ok(())
}

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
fn cut_len(bytes: &[u8], max: usize) -> usize {
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

/// A string kept under the limit, moved from payload offsets to batch offsets.
#[inline]
fn keep_string(
    span: Span,
    payload: &[u8],
    shift: usize,
    max: usize,
    truncated: &mut u64,
) -> Span {
    let bytes = payload.get(span.range()).unwrap_or_default();
    let len = cut_len(bytes, max);
    if len < bytes.len() {
        *truncated += 1;
    }
    Span::new(shift + span.start as usize, len)
}

/// Appends the accepted request `m` to `out`. `check(m)` has passed, so the timer arrays agree
/// and every tag index is in range.
fn assemble(
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
    let schema = m.schema.map(|s| keep_string(s, payload, shift, max, truncated));

    let dictionary_start = out.dictionary.len();
    for &entry in &m.dictionary {
        out.dictionary.push(keep_string(entry, payload, shift, max, truncated));
    }

    let tags_start = out.tags.len();
    let tags_kept = m.tag_name.len().min(policy.max_tags_per_request);
    stats.request_tags_dropped += (m.tag_name.len() - tags_kept) as u64;
    let names = &m.tag_name[..tags_kept];
    let values = &m.tag_value[..tags_kept];
    out.tags.extend(names.iter().zip(values).map(|(&name, &value)| TagIndexPair { name, value }));

    let timers_start = out.timers.len();
    let mut timers_kept = 0;
    let mut cursor = 0;
    let timers = m.timer_hit_count.iter().zip(&m.timer_value).zip(&m.timer_tag_count);
    for (i, ((&hit_count, &value), &tag_count)) in timers.enumerate() {
        let first_tag = cursor;
        cursor += tag_count as usize;
        if hit_count == 0 {
            stats.timers_skipped += 1;
            continue;
        }
        if timers_kept == policy.max_timers_per_request {
            stats.timers_dropped += 1;
            continue;
        }
        timers_kept += 1;
        let tags_kept = (tag_count as usize).min(policy.max_tags_per_timer);
        stats.timer_tags_dropped += u64::from(tag_count) - tags_kept as u64;
        let names = &m.timer_tag_name[first_tag..first_tag + tags_kept];
        let values = &m.timer_tag_value[first_tag..first_tag + tags_kept];
        let timer_tags_start = out.timer_tags.len();
        out.timer_tags
            .extend(names.iter().zip(values).map(|(&name, &value)| TagIndexPair { name, value }));
        out.timers.push(WireTimer {
            hit_count,
            value: clamp_time(value),
            ru_utime: clamp_time(m.timer_ru_utime.get(i).copied().unwrap_or(0.0)),
            ru_stime: clamp_time(m.timer_ru_stime.get(i).copied().unwrap_or(0.0)),
            tags: Span::new(timer_tags_start, tags_kept),
        });
    }

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
