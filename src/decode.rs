//! Pinba datagram bytes → accepted requests in a [`Batch`], every rejection counted.
//!
//! - **In**: the bytes of one UDP datagram: a serialized `Pinba.Request` ("v0", `proto/pinba.proto`),
//!   or the same behind the optional 4-byte "v1" header (plain or LZ4 block).
//! - **Out**: each accepted request appended to a [`record::Batch`](crate::record::Batch) (the
//!   parent and each direct child of a nested batch are separate requests); the v0 payload (the
//!   datagram itself, or what its v1 header wraps) is copied into `Batch::bytes` once, only when at
//!   least one request is accepted, and every string is a span into that copy. Everything that
//!   happened is counted into a [`DecodeStats`].
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
//!    a packed float run whose length is not a multiple of 4, a nested message or unknown field
//!    inside a message nested 100 levels deep (prost's recursion limit). A malformed nested message
//!    makes the whole datagram malformed, as with prost: its bytes are part of the datagram.
//! 2. `missing_required`: one of fields 1–9 absent (unless `lenient_required`).
//! 3. `timer_array_mismatch`: lengths of fields 10, 11, 12 differ.
//! 4. `timer_tag_mismatch`: Σ field 12 ≠ len(13) or ≠ len(14).
//! 5. `request_tag_mismatch`: len(20) ≠ len(21).
//! 6. `bad_dictionary_index`: any entry of 13, 14, 20 or 21 ≥ len(15).
//! 7. `non_finite`: NaN or ±Inf in fields 7, 8, 9, any entry of 11, or the entries of 22/23 that
//!    belong to a timer (entries past the timer count are ignored).
//! 8. `time_out_of_range`: one of those times above [`MAX_SECONDS`] (10^9 s, ~31.7 years).
//!
//! Checks 6 to 8 look at every timer on the wire, including those then skipped (hit_count 0) or
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
            max_timers_per_request: 1000,
            max_tags_per_timer: 16,
            max_tags_per_request: 256,
        }
    }
}

/// Decodes datagrams into batches. One per receiver thread: it owns the scratch vectors that make
/// decoding allocation-free once they have grown to the largest datagram seen.
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
        if is_v1_candidate(datagram) {
            return self.decode_v1(datagram, out, stats);
        }
        self.work.decode_payload(datagram, out, stats)
    }

    /// The v1 path, then the v0 fallback. The v1 attempt counts into its own tally, kept only if
    /// it accepts a request (otherwise it has appended nothing to `out`).
    #[inline(never)]
    fn decode_v1(&mut self, datagram: &[u8], out: &mut Batch, stats: &mut DecodeStats) -> usize {
        if let Some(payload) = v1_payload(datagram, &mut self.lz4_payload) {
            let mut tally = DecodeStats::default();
            let accepted = self.work.decode_payload(payload, out, &mut tally);
            if accepted > 0 {
                tally.v1_decoded += 1;
                add_stats(stats, &tally);
                return accepted;
            }
        }
        stats.v1_fallback += 1;
        self.work.decode_payload(datagram, out, stats)
    }
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder")
            .field("policy", &self.work.policy)
            .finish_non_exhaustive()
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
        packets_received,
        bytes_received,
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
    total.packets_received += packets_received;
    total.bytes_received += bytes_received;
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

impl Work {
    /// Decodes one v0 payload. A malformed payload is counted once and leaves `out` untouched.
    fn decode_payload(
        &mut self,
        payload: &[u8],
        out: &mut Batch,
        stats: &mut DecodeStats,
    ) -> usize {
        match self.decode_requests(payload, out, stats) {
            Ok(accepted) => {
                if accepted > 0 {
                    out.payloads.push(Span::new(out.bytes.len(), payload.len()));
                    out.bytes.extend_from_slice(payload);
                }
                stats.packets_decoded += 1;
                stats.requests_accepted += accepted as u64;
                accepted
            }
            Err(Malformed) => {
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
        // Spans are relative to the batch: the payload will be appended at `shift`.
        let shift = out.bytes.len();
        self.message.clear();
        parse_request::<true>(payload, shift, &mut self.message, 0)?;
        std::mem::swap(&mut self.children, &mut self.message.requests);
        // A malformed child makes the whole datagram malformed: check each child and everything
        // nested in it before anything is appended or counted (the `false` instance only
        // validates and never touches the message). Only nested batches pay for this pass.
        for &child in &self.children {
            let data = bytes_at(payload, shift, child).ok_or(Malformed)?;
            parse_request::<false>(data, 0, &mut self.message, 1)?;
        }
        let mut accepted = self.accept(payload, shift, out, stats);
        for i in 0..self.children.len() {
            let child = self.children[i];
            self.message.clear();
            // Cannot fail: the same bytes passed the stricter validation above.
            let data = bytes_at(payload, shift, child).ok_or(Malformed)?;
            parse_request::<true>(data, child.start as usize, &mut self.message, 1)?;
            // Grandchildren were validated with their parent child; they are only counted.
            stats.nested_ignored += self.message.requests.len() as u64;
            accepted += self.accept(payload, shift, out, stats);
        }
        Ok(accepted)
    }

    /// Checks the request in `self.message` and appends it to `out` if it passes; 1 if accepted.
    fn accept(
        &self,
        payload: &[u8],
        shift: usize,
        out: &mut Batch,
        stats: &mut DecodeStats,
    ) -> usize {
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

/// The bytes of a batch-relative span, while they are still only in `payload` (which is to be
/// appended to the batch at `shift`).
fn bytes_at(payload: &[u8], shift: usize, span: Span) -> Option<&[u8]> {
    let start = (span.start as usize).checked_sub(shift)?;
    payload.get(start..start + span.len as usize)
}

/// One request as found on the wire. Spans are already relative to the batch the payload will be
/// appended to (see `Work::decode_requests`).
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

/// Consumes the next key if it is `KEY` again (in its canonical 1- or 2-byte encoding). Real
/// clients write each repeated field as one run of elements, so the run loops below stay in a
/// predictable loop instead of going through the field dispatch once per element.
#[inline(always)]
fn next_is<const KEY: u32>(data: &[u8], pos: &mut usize) -> bool {
    if KEY < 0x80 {
        if data.get(*pos) == Some(&(KEY as u8)) {
            *pos += 1;
            return true;
        }
    } else if data.get(*pos..*pos + 2) == Some(&[(KEY as u8) | 0x80, (KEY >> 7) as u8]) {
        *pos += 2;
        return true;
    }
    false
}

/// One unpacked uint32 element (low 32 bits of the varint, like protobuf) and any that follow
/// with the same key.
#[inline(always)]
fn read_u32_run<const COLLECT: bool, const KEY: u32>(
    data: &[u8],
    pos: &mut usize,
    values: &mut Vec<u32>,
) -> Result<(), Malformed> {
    loop {
        let value = read_varint(data, pos)? as u32;
        if COLLECT {
            values.push(value);
        }
        // Fast path: the same 1-byte key and a 1-byte value, read with one bounds check.
        if KEY < 0x80 {
            while let Some(&[key, value]) = data.get(*pos..*pos + 2) {
                if key != KEY as u8 || value >= 0x80 {
                    break;
                }
                *pos += 2;
                if COLLECT {
                    values.push(u32::from(value));
                }
            }
        }
        if !next_is::<KEY>(data, pos) {
            return Ok(());
        }
    }
}

/// One unpacked float element and any that follow with the same key.
#[inline(always)]
fn read_f32_run<const COLLECT: bool, const KEY: u32>(
    data: &[u8],
    pos: &mut usize,
    values: &mut Vec<f32>,
) -> Result<(), Malformed> {
    loop {
        let value = f32::from_bits(read_fixed32(data, pos)?);
        if COLLECT {
            values.push(value);
        }
        // Fast path: the same 1-byte key and its 4 bytes, read with one bounds check.
        if KEY < 0x80 {
            while let Some(&[key, a, b, c, d]) = data.get(*pos..*pos + 5) {
                if key != KEY as u8 {
                    break;
                }
                *pos += 5;
                if COLLECT {
                    values.push(f32::from_le_bytes([a, b, c, d]));
                }
            }
        }
        if !next_is::<KEY>(data, pos) {
            return Ok(());
        }
    }
}

/// One dictionary entry and any that follow.
#[inline(always)]
fn read_span_run<const COLLECT: bool, const KEY: u32>(
    data: &[u8],
    pos: &mut usize,
    offset: usize,
    spans: &mut Vec<Span>,
) -> Result<(), Malformed> {
    loop {
        let span = read_span(data, pos, offset)?;
        if COLLECT {
            spans.push(span);
        }
        if !next_is::<KEY>(data, pos) {
            return Ok(());
        }
    }
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
        values.extend(
            run.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
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

/// Parses one `Pinba.Request` in `data` (which will start at `offset` in the batch bytes) into `m`.
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
                read_u32_run::<COLLECT, TIMER_HIT_COUNT>(data, &mut pos, &mut m.timer_hit_count)?
            }
            TIMER_HIT_COUNT_PACKED => {
                read_packed_u32::<COLLECT>(data, &mut pos, &mut m.timer_hit_count)?;
            }
            TIMER_VALUE => {
                read_f32_run::<COLLECT, TIMER_VALUE>(data, &mut pos, &mut m.timer_value)?
            }
            TIMER_VALUE_PACKED => read_packed_f32::<COLLECT>(data, &mut pos, &mut m.timer_value)?,
            TIMER_TAG_COUNT => {
                read_u32_run::<COLLECT, TIMER_TAG_COUNT>(data, &mut pos, &mut m.timer_tag_count)?
            }
            TIMER_TAG_COUNT_PACKED => {
                read_packed_u32::<COLLECT>(data, &mut pos, &mut m.timer_tag_count)?;
            }
            TIMER_TAG_NAME => {
                read_u32_run::<COLLECT, TIMER_TAG_NAME>(data, &mut pos, &mut m.timer_tag_name)?
            }
            TIMER_TAG_NAME_PACKED => {
                read_packed_u32::<COLLECT>(data, &mut pos, &mut m.timer_tag_name)?;
            }
            TIMER_TAG_VALUE => {
                read_u32_run::<COLLECT, TIMER_TAG_VALUE>(data, &mut pos, &mut m.timer_tag_value)?
            }
            TIMER_TAG_VALUE_PACKED => {
                read_packed_u32::<COLLECT>(data, &mut pos, &mut m.timer_tag_value)?;
            }
            DICTIONARY => {
                read_span_run::<COLLECT, DICTIONARY>(data, &mut pos, offset, &mut m.dictionary)?;
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
            TAG_NAME => read_u32_run::<COLLECT, TAG_NAME>(data, &mut pos, &mut m.tag_name)?,
            TAG_NAME_PACKED => read_packed_u32::<COLLECT>(data, &mut pos, &mut m.tag_name)?,
            TAG_VALUE => read_u32_run::<COLLECT, TAG_VALUE>(data, &mut pos, &mut m.tag_value)?,
            TAG_VALUE_PACKED => read_packed_u32::<COLLECT>(data, &mut pos, &mut m.tag_value)?,
            TIMER_RU_UTIME => {
                read_f32_run::<COLLECT, TIMER_RU_UTIME>(data, &mut pos, &mut m.timer_ru_utime)?
            }
            TIMER_RU_UTIME_PACKED => {
                read_packed_f32::<COLLECT>(data, &mut pos, &mut m.timer_ru_utime)?;
            }
            TIMER_RU_STIME => {
                read_f32_run::<COLLECT, TIMER_RU_STIME>(data, &mut pos, &mut m.timer_ru_stime)?
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
    // Folds rather than short-circuits: these loops vectorize and nearly every request passes.
    let dictionary_len = m.dictionary.len();
    let in_range = |indices: &[u32]| {
        indices.is_empty() || (indices.iter().fold(0, |a, &i| a.max(i)) as usize) < dictionary_len
    };
    if !(in_range(&m.timer_tag_name)
        && in_range(&m.timer_tag_value)
        && in_range(&m.tag_name)
        && in_range(&m.tag_value))
    {
        return Err(Reject::BadDictionaryIndex);
    }
    // One test for both checks (NaN fails both comparisons, ±Inf one of them; a finite negative
    // time passes, to be clamped to 0); the reason is told apart only for the rare request that
    // fails it.
    let within = |values: &[f32]| {
        values
            .iter()
            .fold(true, |ok, v| ok & (f32::MIN..=MAX_SECONDS).contains(v))
    };
    let ru_utime = &m.timer_ru_utime[..m.timer_ru_utime.len().min(timers)];
    let ru_stime = &m.timer_ru_stime[..m.timer_ru_stime.len().min(timers)];
    let times = [m.request_time, m.ru_utime, m.ru_stime];
    let all = [&times[..], &m.timer_value, ru_utime, ru_stime];
    if !all.iter().all(|values| within(values)) {
        let finite = all
            .iter()
            .all(|values| values.iter().all(|v| v.is_finite()));
        return Err(if finite {
            Reject::TimeOutOfRange
        } else {
            Reject::NonFinite
        });
    }
    Ok(())
}

/// The largest time a request or timer may carry, in seconds (~31.7 years; negative times are
/// clamped to 0 rather than refused, see the module doc). No request runs that long: a larger
/// value is a client's garbage. In nanoseconds it fits a `u64` (what a row adds per request);
/// the rows sum them in 96 bits (see `report::Sum96`), where ~7.9·10^10 requests at this bound
/// fit (2^96 ns over 10^18 ns each) before a sum wraps.
pub const MAX_SECONDS: f32 = 1e9;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto;
    use proptest::collection::vec;
    use proptest::prelude::*;
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
            let index_ok =
                |p: &TagIndexPair| p.name < r.dictionary.len && p.value < r.dictionary.len;
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

    // ---- the reference: the policy applied to what prost decodes --------------------------------

    /// The character-boundary cut, written differently from `cut_len`: cut at `max` unless a
    /// well-formed multi-byte character starts before `max` and ends after it.
    fn reference_cut(bytes: &[u8], max: usize) -> &[u8] {
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

    /// PROTOCOL.md's policy applied to a prost-decoded message, written the obvious way: one
    /// result per logical request (parent, then each child), counters into `counts`.
    /// `required_present[i]` says whether request `i` had all of fields 1–9 on the wire (prost
    /// cannot tell); missing entries mean yes.
    fn policy_from_prost(
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
        if timer_tags != r.timer_tag_name.len() as u64
            || timer_tags != r.timer_tag_value.len() as u64
        {
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

    fn assert_matches_reference(
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

    fn put_bytes(buf: &mut Vec<u8>, field: u32, body: &[u8]) {
        put_key(buf, field, LEN);
        put_varint(buf, body.len() as u64);
        buf.extend_from_slice(body);
    }

    fn put_uint(buf: &mut Vec<u8>, field: u32, value: u32) {
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
            .prop_map(|(lenient_required, strings, timers, timer_tags, tags)| {
                DecodePolicy {
                    lenient_required,
                    max_string_bytes: strings,
                    max_timers_per_request: timers,
                    max_tags_per_timer: timer_tags,
                    max_tags_per_request: tags,
                }
            })
    }

    fn v1_datagram(flags: u16, orig_len: usize, body: &[u8]) -> Vec<u8> {
        let mut datagram = vec![0x10 | ((flags >> 8) as u8 & 0x0f), flags as u8];
        datagram.extend_from_slice(&(orig_len as u16).to_be_bytes());
        datagram.extend_from_slice(body);
        datagram
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
        let datagram = std::fs::read(format!("{FIXTURES}/edge/missing_required_hostname.bin"))
            .expect("fixture");
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
}
