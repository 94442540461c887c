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
//! (`message.rs`, on the readers of `wire.rs`); then the request is checked against the policy of
//! `docs/PROTOCOL.md` and, if accepted, assembled into the batch (`policy/`, which lists the checks
//! in their order and what accepted requests go through). This file holds the entry point and the
//! v1 framing around the payload.
//!
//! ## v1 framing
//! A datagram with `len >= 4 && byte0 >> 4 == 1` may carry the 4-byte header
//! `<version:4><flags:12><orig_len:16>` (big-endian). Flag bit 0 set: the rest is an LZ4 block that
//! must decompress to exactly `orig_len` bytes; clear: the rest is the plain payload and its length
//! must equal `orig_len`. If that fails, or the payload does not give at least one accepted request,
//! the whole datagram is decoded as v0 instead (a v0 datagram starts with `0x12`/`0x1a` when field 1
//! is omitted). Only the path finally taken is counted, plus `v1_decoded` or `v1_fallback`.

mod message;
mod policy;
#[cfg(test)]
mod tests;
mod wire;

pub use policy::{cut_len, DecodePolicy, MAX_SECONDS};

use crate::counters::DecodeStats;
use crate::record::Batch;
use policy::Work;

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
            work: Work::new(policy),
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
            .field("policy", self.work.policy())
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
