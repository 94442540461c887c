//! What the decoder accepts, rejects and counts: the policy of `docs/PROTOCOL.md`, applied to the
//! requests `message.rs` reads off the wire.
//!
//! - **In**: one v0 payload (a datagram, or what its v1 header wraps), the [`DecodePolicy`].
//!   **Out**: each accepted request appended to the batch (`assemble.rs`), every rejection and cut
//!   counted into the receiver's [`DecodeStats`].
//! - **Thread**: the receiver threads, one `Work` each (inside their `Decoder`).
//! - **Never**: allocates once the scratch vectors have grown, reads the clock, panics on any input.
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

mod assemble;
mod check;

pub use assemble::cut_len;
pub use check::MAX_SECONDS;

use super::message::{parse_request, Message};
use super::wire::Malformed;
use crate::counters::{DecodeStats, Reject};
use crate::record::{Batch, Span};
use assemble::assemble;
use check::check;

/// How the decoder treats requests: the `decode.*` and `limits.*` settings it needs, copied into
/// each receiver's [`Decoder`](super::Decoder) at start-up.
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

/// The part of the decoder that turns one v0 payload into requests (split from [`Decoder`](super::Decoder) so that
/// the payload can borrow the LZ4 buffer while this is borrowed mutably).
#[derive(Debug)]
pub(super) struct Work {
    policy: DecodePolicy,
    /// The request being decoded: the parent, then each child in turn.
    message: Message,
    /// Field-18 spans of the parent, moved out of `message` while the children reuse it.
    children: Vec<Span>,
}

impl Work {
    pub(super) fn new(policy: DecodePolicy) -> Work {
        Work {
            policy,
            message: Message::with_capacity(),
            children: Vec::with_capacity(8),
        }
    }

    pub(super) fn policy(&self) -> &DecodePolicy {
        &self.policy
    }

    /// Decodes one v0 payload. A malformed payload is counted once and leaves `out` untouched.
    pub(super) fn decode_payload(
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
