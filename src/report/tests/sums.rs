//! Sums: the f32 → ns conversion, and time sums past 64 bits kept exact everywhere they go.

use super::*;

/// `ns` rounds exactly like `f64::round`, which it replaces for speed.
#[test]
fn ns_rounds_like_f64_round() {
    let reference = |s: f32| (s as f64 * 1e9).round() as u64;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let special = [
        0.0f32,
        -0.0,
        -1.5,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN_POSITIVE,
        5e-10,
        1.5e-9,
        2.5e-9,
        0.1,
        1e10,
        2e10,
    ];
    for s in special.into_iter().chain((0..200_000).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f32::from_bits(x as u32)
    })) {
        assert_eq!(ns(s), reference(s), "{s:e}");
    }
}

/// Time sums past 64 bits (20 requests at the decoder's bound in one row: 2·10^19 ns, where a
/// `u64` holds 1.8·10^19) stay exact: in the row, the totals and a query's cells while in the
/// window, through a snapshot, and back to nothing when their tick leaves.
#[test]
fn sums_past_64_bits_stay_exact() {
    use crate::codec::{Reader, Writer};
    let mut dict = Dictionary::new(1000);
    let w = Window {
        history_ms: 2000,
        tick_ms: 1000,
        ticks: 2,
        phase_ms: 0,
    };
    let new = |dict: &mut Dictionary| {
        Report::new(def("s", &["script_name"]), dict, 100)
            .unwrap()
            .with_exact_window(w, 0)
    };
    let mut r = new(&mut dict);
    r.advance(100);
    for _ in 0..20 {
        add_req(&mut dict, &mut r, &req("/long", crate::decode::MAX_SECONDS));
    }
    add_req(&mut dict, &mut r, &req("/short", 0.5));
    let long_ns = 20 * ns(crate::decode::MAX_SECONDS) as u128;
    assert!(long_ns > u64::MAX as u128);
    let long = dict.lookup(b"/long").unwrap();
    let check = |r: &Report, dict: &Dictionary, at: &str| {
        assert_eq!(rows_of(r)[&vec![long]].0.time_ns.get(), long_ns, "{at}");
        assert_eq!(
            totals_of(r).0.time_ns.get(),
            long_ns + ns(0.5) as u128,
            "{at}"
        );
        let t = r.query(&q(), dict, 1.0).unwrap();
        assert_eq!(
            text(column(&t, 0, "script_name")),
            "/long",
            "{at}: sorted first"
        );
        assert_eq!(float(column(&t, 0, "req_time_total")), 2e10, "{at}");
        assert_eq!(float(total(&t, "req_time_total")), 2e10 + 0.5, "{at}");
    };
    check(&r, &dict, "open tick");
    r.advance(1100);
    check(&r, &dict, "closed tick");
    let mut bytes = Vec::new();
    let mut out = Writer::new(&mut bytes);
    r.save_window(&mut out, Layout::of(crate::snapshot::VERSION))
        .unwrap();
    out.finish().unwrap();
    let mut restored = new(&mut dict);
    restored
        .restore_window(
            &mut Reader::new(&bytes),
            &|id| id,
            1100,
            Layout::of(crate::snapshot::VERSION),
        )
        .unwrap();
    check(&restored, &dict, "restored");
    for r in [&mut r, &mut restored] {
        r.advance(2100);
        assert_eq!(totals_of(r).0, Sums::default(), "tick 0 left the window");
        assert!(rows_of(r).is_empty());
    }
    // A byte sum past 64 bits is an integer cell, written whole.
    let big = Cell::Int(u64::MAX as u128 * 3);
    assert_eq!(serde_json::to_string(&big).unwrap(), "55340232221128654845");
}
