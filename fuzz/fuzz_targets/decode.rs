//! The datagram decoder on arbitrary bytes: it never panics, every accepted request's spans lie
//! inside the batch, the stats account for the datagram exactly once, and it accepts nothing the
//! reference codec (prost) cannot parse.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pinbad::counters::DecodeStats;
use pinbad::decode::{DecodePolicy, Decoder};
use pinbad::record::Batch;
use prost::Message as _;

fuzz_target!(|data: &[u8]| {
    let mut decoder = Decoder::new(DecodePolicy::default());
    let mut batch = Batch::default();
    let mut stats = DecodeStats::default();
    decoder.decode(data, &mut batch, &mut stats);
    assert_eq!(stats.packets, 1);
    assert_eq!(stats.requests_accepted, batch.len() as u64);
    // A plain (v0) datagram we parsed must parse with prost too.
    if stats.packets_decoded == 1 && stats.v1_decoded == 0 && stats.v1_fallback == 0 {
        assert!(
            pinbad::proto::Request::decode(data).is_ok(),
            "decoded a datagram prost rejects"
        );
    }
    for r in &batch.requests {
        for span in [r.hostname, r.server_name, r.script_name] {
            assert!(span.range().end <= batch.bytes.len());
        }
        assert!(r.timers.range().end <= batch.timers.len());
        assert!(r.tags.range().end <= batch.tags.len());
        for t in batch.timers_of(r) {
            assert!(t.tags.range().end <= batch.timer_tags.len());
        }
    }
});
