//! One `Pinba.Request` (`proto/pinba.proto`) read off the wire into reusable scratch vectors.
//!
//! - **In**: the bytes of one message (a datagram's payload, or a nested request of field 18).
//!   **Out**: its fields in a [`Message`]: strings as spans into the batch the payload will be
//!   appended to, repeated fields in the order read whatever their encoding (unpacked, packed, or
//!   split across several runs), which of fields 1–9 were seen. Or `Malformed`: check 1 of the
//!   order in `policy/mod.rs`, the only one made here.
//! - **Thread**: the receiver threads, once per request of every datagram.
//! - **Never**: judges the values (`policy/` does), allocates once the scratch vectors have grown
//!   to the largest request seen, panics on any input.
//!
//! ## Where this differs from prost (the oracle of the tests)
//! - prost does not enforce proto2 `required`; we record which of fields 1–9 were seen, for the
//!   policy to require them (or fill defaults when lenient).
//! - prost skips groups (wire types 3/4) in unknown fields; we call them malformed (no Pinba client
//!   ever wrote a group).

use super::wire::{
    key, read_f32_run, read_fixed32, read_len, read_packed_f32, read_packed_u32, read_span,
    read_span_run, read_u32_run, read_varint, skip_field, Malformed, I32, LEN, VARINT,
};
use crate::record::Span;

/// One request as found on the wire. Spans are already relative to the batch the payload will be
/// appended to (see `Work::decode_requests`).
#[derive(Debug, Default)]
pub(super) struct Message {
    /// Bit `n - 1` set when required field `n` (1–9) was seen.
    pub(super) present: u16,
    pub(super) hostname: Span,
    pub(super) server_name: Span,
    pub(super) script_name: Span,
    pub(super) schema: Option<Span>,
    pub(super) request_count: u32,
    pub(super) document_size: u32,
    pub(super) memory_peak: u32,
    pub(super) status: u32,
    pub(super) memory_footprint: u32,
    pub(super) request_time: f32,
    pub(super) ru_utime: f32,
    pub(super) ru_stime: f32,
    pub(super) timer_hit_count: Vec<u32>,
    pub(super) timer_value: Vec<f32>,
    pub(super) timer_tag_count: Vec<u32>,
    pub(super) timer_tag_name: Vec<u32>,
    pub(super) timer_tag_value: Vec<u32>,
    pub(super) dictionary: Vec<Span>,
    pub(super) tag_name: Vec<u32>,
    pub(super) tag_value: Vec<u32>,
    pub(super) timer_ru_utime: Vec<f32>,
    pub(super) timer_ru_stime: Vec<f32>,
    /// Field 18: the children of the parent, or the grandchildren of a child.
    pub(super) requests: Vec<Span>,
}

impl Message {
    pub(super) fn with_capacity() -> Message {
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

    pub(super) fn clear(&mut self) {
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

/// Highest field number of `Pinba.Request`: any other wire type for 1..=23 is malformed.
const LAST_KNOWN_FIELD: u32 = 23;

/// prost's recursion limit: a message at this depth (the top is 0) may hold no nested message and
/// no unknown field.
const MAX_DEPTH: u32 = 100;

/// Parses one `Pinba.Request` in `data` (which will start at `offset` in the batch bytes) into `m`.
///
/// With `COLLECT = false` it only checks that the message (and everything nested in it) is well
/// formed, and never touches `m`: that is how grandchildren are validated. With `COLLECT = true`,
/// nested messages are not parsed but their spans pushed to `m.requests` for the caller.
pub(super) fn parse_request<const COLLECT: bool>(
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
