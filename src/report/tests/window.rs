//! Windows and ticks: the window sliding by whole ticks, phases, a report's own history, and
//! closed ticks' memory and narrowing.

use super::*;

/// A window of 3 ticks of 1 s: requests leave with their tick, time_interval is the span the
/// window covers (from the report's start until it is full), and an idle report empties.
#[test]
fn windows_slide_by_whole_ticks() {
    let mut dict = Dictionary::new(1000);
    let w = Window {
        history_ms: 3000,
        tick_ms: 1000,
        ticks: 3,
        phase_ms: 0,
    };
    let mut r = Report::new(def("s", &["script_name"]), &mut dict, 100)
        .unwrap()
        .with_exact_window(w, 500);
    assert_eq!(r.window_start_ms(), 500);
    assert_eq!(r.time_interval(500), 1.0, "at least one second");
    assert_eq!(r.time_interval(2500), 2.0);
    for t in [600, 1200, 1900, 2100] {
        r.advance(t);
        add_req(&mut dict, &mut r, &req("/a", 0.1));
    }
    assert_eq!(r.total_requests(), 4);
    r.advance(3000); // window: ticks 1, 2, 3 → the request of tick 0 (600 ms) left
    assert_eq!(r.total_requests(), 3);
    assert_eq!(r.window_start_ms(), 1000);
    assert_eq!(r.time_interval(3400), 2.4);
    r.advance(4999); // ticks 2..4: 1200 and 1900 left
    assert_eq!(r.total_requests(), 1);
    r.advance(5000);
    assert_eq!((r.total_requests(), r.rows()), (0, 0));
    assert_eq!(
        r.time_interval(5000),
        2.0,
        "ticks 3 and 4, and tick 5 just opened"
    );
    assert_eq!(r.time_interval(5999), 2.999, "never more than the history");
    // Time never goes back.
    r.advance(100);
    add_req(&mut dict, &mut r, &req("/b", 0.1));
    r.advance(7999);
    assert_eq!(
        r.total_requests(),
        1,
        "counted in tick 5, still in the window"
    );
}

/// Reports get their own phase, so their ticks do not all close in the same round; the phase
/// only moves the boundaries.
#[test]
fn phases_differ_by_name_and_stay_within_a_tick() {
    let w = Window::new(std::time::Duration::from_secs(900), 60);
    assert_eq!((w.tick_ms, w.ticks), (15_000, 60));
    let phases: Vec<u64> = ["info", "report_by_script_name", "report_by_hostname"]
        .iter()
        .map(|n| w.phased(n).phase_ms)
        .collect();
    assert!(phases.iter().all(|&p| p < 15_000));
    assert!(phases[0] != phases[1] || phases[1] != phases[2]);
    assert_eq!(
        Window::new(std::time::Duration::from_millis(10), 60).tick_ms,
        1
    );
}

/// A report may set its own window (`history`), between 1 s and 30 days; it wins over
/// `stats_history` and is cut into the configured ticks.
#[test]
fn a_report_may_set_its_own_history() {
    let mut dict = Dictionary::new(100);
    let d: ReportDef =
        serde_json::from_value(serde_json::json!({"name": "m", "keys": [], "history": "1m"}))
            .unwrap();
    let r = Report::new(d.clone(), &mut dict, 10).unwrap().with_window(
        std::time::Duration::from_secs(900),
        60,
        0,
    );
    assert_eq!((r.window().history_ms, r.window().tick_ms), (60_000, 1000));
    let plain = Report::new(def("p", &[]), &mut dict, 10)
        .unwrap()
        .with_window(std::time::Duration::from_secs(900), 60, 0);
    assert_eq!(plain.window().history_ms, 900_000);
    for bad in ["0s", "500ms", "31days"] {
        let d: ReportDef =
            serde_json::from_value(serde_json::json!({"name": "m", "keys": [], "history": bad}))
                .unwrap();
        let e = d.validate().unwrap_err().to_string();
        assert!(e.contains("history"), "{bad}: {e}");
    }
}

/// Memory per row over a 15-minute window (60 ticks of 15 s), histograms included: rows present
/// in every tick, each with 8 requests per tick spread over several histogram buckets. The
/// figure BENCHMARKS.md states (`cargo test --release --lib memory_per_row -- --nocapture`),
/// held to docs/ARCHITECTURE.md's bound (9.4 KB). Memory is counted, not timed: the figure is
/// the same on every machine.
#[test]
fn memory_per_row_over_a_full_window() {
    let mut dict = Dictionary::new(100_000);
    let w = Window::new(std::time::Duration::from_secs(900), 60);
    let mut r = Report::new(def("s", &["script_name"]), &mut dict, 1_000_000)
        .unwrap()
        .with_exact_window(w, 0);
    let scripts: Vec<&'static str> = (0..1000)
        .map(|i| &*Box::leak(format!("/s{i}.php").into_boxed_str()))
        .collect();
    for tick in 0..61u64 {
        r.advance(tick * w.tick_ms);
        for (i, s) in scripts.iter().enumerate() {
            for k in 0..8u64 {
                let ms = 1 + (i as u64 + k * 7 + tick) % 200;
                // memory_peak on: every row keeps its per-tick largest (4 bytes a tick).
                let peak = 1 + ((i as u32 + tick as u32 * 13 + k as u32) % 64) * 65_536;
                let r_ = Req {
                    peak,
                    ..req(s, ms as f32 / 1000.0)
                };
                add_req(&mut dict, &mut r, &r_);
            }
        }
    }
    assert_eq!(r.rows(), 1000);
    assert_eq!(r.total_requests(), 60 * 1000 * 8, "60 ticks in the window");
    let per_row = r.memory_bytes() as f64 / r.rows() as f64;
    eprintln!("memory per row over a 15-minute window of 60 ticks: {per_row:.0} B");
    assert!(per_row <= 9_400.0, "{per_row}");
}

/// A closed tick's row keeps its sums and histogram exactly: narrowed (counts in 32 bits, hits
/// or the largest memory_peak in 31, times in 48, byte sums in 37 or 38, histogram buckets in 32
/// bits) when they fit, whole otherwise.
#[test]
fn closed_tick_rows_narrow_only_what_fits() {
    let mut s = Sums {
        req_count: u32::MAX as u64,
        hit_count: (1 << 31) - 1,
        ..Sums::default()
    };
    s.time_ns = Sum96::from((1 << 48) - 1);
    s.ru_utime_ns = Sum96::from((1 << 48) - 2);
    s.ru_stime_ns = Sum96::from((1 << 48) - 3);
    s.memory_footprint_bytes = Sum96::from(7);
    let narrow = NarrowSums::of(&s).expect("fits");
    assert_eq!(narrow.widen(), s);
    // A request report's row: no hits, its largest memory_peak and byte sums at their bounds.
    let r = Sums {
        hit_count: 0,
        memory_peak_max: (1 << 31) - 1,
        traffic_bytes: Sum96::from((1 << 37) - 1),
        memory_footprint_bytes: Sum96::from((1 << 38) - 1),
        memory_peak_bytes: Sum96::from((1 << 37) - 1),
        ..s
    };
    assert_eq!(NarrowSums::of(&r).expect("fits").widen(), r);
    let peak_only = Sums {
        req_count: 3,
        memory_peak_max: 5 << 20,
        memory_peak_bytes: Sum96::from(12 << 20),
        ..Sums::default()
    };
    assert_eq!(NarrowSums::of(&peak_only).expect("fits").widen(), peak_only);
    for wider in [
        Sums {
            memory_peak_max: 1 << 31,
            ..r
        },
        Sums { hit_count: 1, ..r },
        Sums {
            traffic_bytes: Sum96::from(1 << 37),
            ..r
        },
        Sums {
            memory_footprint_bytes: Sum96::from(1 << 38),
            ..r
        },
        Sums {
            memory_peak_bytes: Sum96::from(1 << 37),
            ..r
        },
        Sums {
            req_count: 1 << 32,
            ..s
        },
        Sums {
            hit_count: 1 << 31,
            ..s
        },
        Sums {
            time_ns: Sum96::from(1 << 48),
            ..s
        },
        Sums {
            ru_utime_ns: Sum96::from(1 << 48),
            ..s
        },
        Sums {
            ru_stime_ns: Sum96::from(1 << 48),
            ..s
        },
    ] {
        assert!(NarrowSums::of(&wider).is_none(), "{wider:?}");
    }
    // Through a closed tick: rows whose sums or histograms do not fit the narrow forms come back
    // whole, the others as they went in.
    let mut tick = ClosedTick::new(0, None, Row::default(), 4, 1);
    let big = Sums {
        req_count: 1 << 40,
        ..s
    };
    let hist = |buckets: &[(u16, u64)]| {
        let mut h = Histogram::new();
        for &(b, n) in buckets {
            h.add_bucket(b, n);
        }
        h
    };
    let rows = [
        (s, hist(&[(3, 1), (9, 2), (40, 1 << 19), (41, 7), (500, 1)])),
        (big, hist(&[(2, 1)])),
        (s, hist(&[(5, 1 << 20), (6, 1)])),
        (s, Histogram::new()),
        (big, hist(&[(7, 1 << 45), (8, 3), (9, 4), (10, 5)])),
    ];
    for (i, (sums, h)) in rows.iter().enumerate() {
        tick.push_row(&[i as u32], sums, h);
    }
    tick.shrink_hists();
    assert_eq!(
        tick.whole_hists.len(),
        2,
        "the two with a bucket over 20 bits"
    );
    assert_eq!(tick.hists.len(), 5 + 1);
    type RowBack = (Vec<u32>, Sums, Vec<(u16, u64)>);
    let back: Vec<RowBack> = tick
        .rows()
        .map(|(k, sums, h)| (k.to_vec(), sums, h.iter().collect()))
        .collect();
    let want: Vec<RowBack> = rows
        .iter()
        .enumerate()
        .map(|(i, (sums, h))| (vec![i as u32], *sums, h.iter().collect()))
        .collect();
    assert_eq!(back, want);
    for ((_, _, v), (_, h)) in tick.rows().zip(&rows) {
        assert_eq!(v.to_histogram(), *h);
        assert_eq!((v.count(), v.buckets_used()), (h.count(), h.buckets_used()));
        let mut sum = h.clone();
        sum.add_hist(v);
        assert!(sum.covers(v));
        sum.subtract_hist(v);
        assert_eq!(sum, *h);
    }
}

proptest! {
    /// Any sums within the narrow widths come back exactly; one bit past any field's width, the
    /// row does not narrow (it is kept whole instead).
    #[test]
    fn narrow_sums_round_trip(
        fields in proptest::array::uniform6(any::<u64>()),
        req_count in any::<u32>(),
        high in 0u64..(1 << 31),
        peak_row in any::<bool>(),
        past in 0usize..7,
    ) {
        let bits = [48u32, 48, 48, 37, 38, 37];
        let v: Vec<u64> = fields.iter().zip(bits).map(|(f, n)| f & ((1u64 << n) - 1)).collect();
        let (hit_count, memory_peak_max) = if peak_row { (0, high as u32) } else { (high, 0) };
        let mut s = Sums {
            req_count: u64::from(req_count),
            hit_count,
            time_ns: v[0].into(),
            ru_utime_ns: v[1].into(),
            ru_stime_ns: v[2].into(),
            traffic_bytes: v[3].into(),
            memory_footprint_bytes: v[4].into(),
            memory_peak_bytes: v[5].into(),
            memory_peak_max,
        };
        prop_assert_eq!(NarrowSums::of(&s).expect("fits").widen(), s);
        if past < 6 {
            let over = Sum96::from(1u64 << bits[past]);
            match past {
                0 => s.time_ns = over,
                1 => s.ru_utime_ns = over,
                2 => s.ru_stime_ns = over,
                3 => s.traffic_bytes = over,
                4 => s.memory_footprint_bytes = over,
                _ => s.memory_peak_bytes = over,
            }
            prop_assert!(NarrowSums::of(&s).is_none());
        }
    }
}

/// `*_per_sec` divide by what each definition says (`Report::rate_interval`): pinbad's the span
/// covered, pinba2's the whole window, pinba_engine's the requests' span in whole seconds (from
/// the window's start where the pool lost the oldest tick's requests), 1 under 2 rows.
#[test]
fn rates_divide_by_each_definitions_interval() {
    let mut dict = Dictionary::new(100);
    let make = |compat: Option<Compat>, dict: &mut Dictionary| {
        let def = ReportDef {
            compat,
            ..def("r", &["script_name"])
        };
        Report::new(def, dict, 100)
            .unwrap()
            .with_exact_window(window_of_ticks(10), 0)
    };
    let unix = |ms: u64| ms + 500;
    let mut pe = make(Some(Compat::PinbaEngine), &mut dict);
    add_req(&mut dict, &mut pe, &req("/a", 0.1));
    // One row: 1, whatever the span.
    assert_eq!(pe.rate_interval(5000, Some((0, 3600)), unix), 1.0);
    add_req(&mut dict, &mut pe, &req("/b", 0.1));
    // Unix seconds 0.5 and 4.1: 4 whole seconds apart.
    assert_eq!(pe.rate_interval(5000, Some((0, 3600)), unix), 4.0);
    // Under a second (0.7 and 1.6 s: 1 apart), at least 1.
    assert_eq!(pe.rate_interval(5000, Some((200, 1100)), unix), 1.0);
    assert_eq!(pe.rate_interval(5000, Some((200, 300)), unix), 1.0);
    assert_eq!(pe.rate_interval(5000, None, unix), 1.0);
    pe.advance(2500);
    // The pool's oldest (2.2 s) is past the oldest tick that counted (0–1 s): from its start.
    assert_eq!(pe.rate_interval(2600, Some((2200, 2400)), unix), 2.0);
    let mut v2 = make(Some(Compat::Pinba2), &mut dict);
    add_req(&mut dict, &mut v2, &req("/a", 0.1));
    assert_eq!(v2.rate_interval(3000, None, unix), 10.0);
    let own = make(None, &mut dict);
    assert_eq!(own.rate_interval(3000, None, unix), own.time_interval(3000));
}
