//! What several benches build their requests from.

use pinbad::dictionary::Dictionary;
use pinbad::record::Record;

/// A request of script number `script` with a random time (xorshift `seed`) of 1 µs–2 s.
pub fn request(dict: &mut Dictionary, seed: &mut u64, script: usize) -> Record {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    Record {
        hostname: dict.intern(b"web1"),
        server_name: dict.intern(b"www.example.com"),
        script_name: dict.intern(format!("/script/{script}.php").as_bytes()),
        schema: u32::MAX,
        status: 200,
        request_time: (1 + *seed % 2_000_000) as f32 * 1e-6,
        ru_utime: 0.001,
        ru_stime: 0.0005,
        document_size: (*seed % 100_000) as u32,
        memory_footprint: 1 << 20,
        ..Record::default()
    }
}
