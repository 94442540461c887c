//! The protobuf wire format, read in place: varints, keys, length-delimited fields, fixed32, and
//! repeated scalars unpacked (one key per element, read as a run) or packed; unknown fields are
//! skipped.
//!
//! - **In**: a byte slice and a cursor into it. **Out**: the value read (the cursor moved past it),
//!   or [`Malformed`] for what prost would refuse: a truncated field, a length past the end, a
//!   varint over 10 bytes or over 64 bits, wire type 3, 4, 6 or 7.
//! - **Thread**: the receiver threads, inside the per-packet loop of `message.rs`, which maps the
//!   fields of `Pinba.Request` onto these readers.
//! - **Never**: knows a field of `Pinba.Request` or what is accepted (`policy/`), allocates beyond
//!   the caller's vectors, panics on any input.
//!
//! The readers run once per element of a repeated field: they are `#[inline]`, and the run loops
//! read the common case (the same one-byte key again, a one-byte value) with one bounds check.

use crate::record::Span;

/// The bytes are not well-formed protobuf (or, from `message.rs`, not a well-formed
/// `Pinba.Request`): the datagram is dropped whole.
#[derive(Debug)]
pub(super) struct Malformed;

/// Wire types: the low 3 bits of a key.
pub(super) const VARINT: u32 = 0;
pub(super) const I64: u32 = 1;
pub(super) const LEN: u32 = 2;
pub(super) const I32: u32 = 5;

/// The key of `field` with `wire_type`, as it stands on the wire (before its varint encoding).
pub(super) const fn key(field: u32, wire_type: u32) -> u32 {
    (field << 3) | wire_type
}

#[inline(always)]
pub(super) fn read_varint(data: &[u8], pos: &mut usize) -> Result<u64, Malformed> {
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
pub(super) fn read_len(data: &[u8], pos: &mut usize) -> Result<(usize, usize), Malformed> {
    let len = read_varint(data, pos)?;
    let start = *pos;
    if len > (data.len() - start) as u64 {
        return Err(Malformed);
    }
    *pos = start + len as usize;
    Ok((start, len as usize))
}

#[inline(always)]
pub(super) fn read_fixed32(data: &[u8], pos: &mut usize) -> Result<u32, Malformed> {
    match data.get(*pos..*pos + 4) {
        Some(&[a, b, c, d]) => {
            *pos += 4;
            Ok(u32::from_le_bytes([a, b, c, d]))
        }
        _ => Err(Malformed),
    }
}

#[inline(always)]
pub(super) fn read_span(data: &[u8], pos: &mut usize, offset: usize) -> Result<Span, Malformed> {
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
pub(super) fn read_u32_run<const COLLECT: bool, const KEY: u32>(
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
pub(super) fn read_f32_run<const COLLECT: bool, const KEY: u32>(
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
pub(super) fn read_span_run<const COLLECT: bool, const KEY: u32>(
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
pub(super) fn read_packed_u32<const COLLECT: bool>(
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
pub(super) fn read_packed_f32<const COLLECT: bool>(
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

pub(super) fn skip_field(data: &[u8], pos: &mut usize, wire_type: u32) -> Result<(), Malformed> {
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
