//! A report's window through a snapshot: the saved closed part restores like the ticks it sums.

use super::*;

/// A window of 4 ticks of 1 s, phase 0.
const FOUR_TICKS: Window = Window {
    history_ms: 4000,
    tick_ms: 1000,
    ticks: 4,
    phase_ms: 0,
};

/// Requests (time, script, seconds) in ticks 0, 1 and 2 of [`FOUR_TICKS`], `/gone` in tick 0
/// alone.
const THREE_TICKS: [(u64, &str, f32); 5] = [
    (100, "/a", 0.1),
    (200, "/gone", 0.3),
    (1100, "/a", 0.2),
    (2100, "/b", 1.5),
    (2200, "/a", 0.7),
];

/// A window saved with its closed part (snapshot versions 2, 3 and 8, whose rows are compact) and
/// restored after some of its
/// ticks left: the same rows and totals as the same file restored from its ticks alone (version
/// 1, the closed part rebuilt) and as the live report moved to the same time. A file whose closed part
/// does not hold a tick that left is refused, the report left as it was.
#[test]
fn a_saved_closed_part_restores_like_the_ticks_it_sums() {
    use crate::codec::{Reader, Writer};
    let mut dict = Dictionary::new(1000);
    let w = FOUR_TICKS;
    let new = |dict: &mut Dictionary| {
        Report::new(def("s", &["script_name"]), dict, 100)
            .unwrap()
            .with_exact_window(w, 0)
    };
    let mut live = new(&mut dict);
    // Closed ticks 0, 1 and 2 (`/gone` in tick 0 alone), the open tick 3.
    for (t, script, time) in THREE_TICKS.into_iter().chain([(3500, "/a", 0.05)]) {
        live.advance(t);
        add_req(&mut dict, &mut live, &req(script, time));
    }
    let save = |r: &mut Report, version: u32| {
        let mut bytes = Vec::new();
        let mut out = Writer::new(&mut bytes);
        r.save_window(&mut out, Layout::of(version)).unwrap();
        out.finish().unwrap();
        bytes
    };
    let saved = [8, 3, 2, 1].map(|v| (v, save(&mut live, v)));
    assert!(
        saved[0].1.len() * 3 < saved[1].1.len(),
        "version 8's compact rows: {} bytes against {}",
        saved[0].1.len(),
        saved[1].1.len()
    );
    assert!(saved[1].1.len() > saved[2].1.len(), "version 3's wide sums");
    assert!(
        saved[2].1.len() > saved[3].1.len(),
        "version 2 holds the closed part"
    );
    let same = |id: u32| id;
    let gone = dict.lookup(b"/gone").unwrap();
    // 3600: nothing left; 4300: tick 0 left (`/gone` with it); 5100: ticks 0 and 1; 6000: every
    // closed tick (the open one closes); 7000: the window is empty.
    for now in [3600, 4300, 5100, 6000, 7000] {
        live.advance(now);
        let mut restored = saved.each_ref().map(|(version, bytes)| {
            let mut r = new(&mut dict);
            r.restore_window(&mut Reader::new(bytes), &same, now, Layout::of(*version))
                .unwrap();
            r.advance(now);
            r
        });
        for r in &mut restored {
            assert_eq!(rows_of(r), rows_of(&live), "rows at {now}");
            assert_eq!(totals_of(r), totals_of(&live), "totals at {now}");
            let mut t = BTreeMap::new();
            for (k, row) in r.agg.iter(1) {
                t.insert(k.to_vec(), row.sums);
            }
            assert_eq!(t.contains_key(&vec![gone]), now < 4000, "`/gone` at {now}");
        }
        assert_eq!(live.total_requests() > 0, now < 7000);
    }

    // The closed part without `/gone`, restored once tick 0 has left: refused.
    let mut damaged = new(&mut dict);
    for (t, script) in [(200, "/gone"), (1100, "/a"), (2100, "/b")] {
        damaged.advance(t);
        add_req(&mut dict, &mut damaged, &req(script, 0.1));
    }
    let mut key = KeyBuf {
        ids: [0; MAX_KEYS],
        len: 1,
    };
    key.ids[0] = gone;
    assert!(damaged.agg.remove(&key).is_some());
    let bytes = save(&mut damaged, 3);
    let mut r = new(&mut dict);
    let err = r
        .restore_window(&mut Reader::new(&bytes), &same, 4300, Layout::of(3))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("not inside the window's closed part"),
        "{err}"
    );
    assert_eq!((r.total_requests(), r.rows()), (0, 0), "left as it was");
    // Restored before tick 0 leaves, nothing is taken out: read as saved.
    let mut r = new(&mut dict);
    r.restore_window(&mut Reader::new(&bytes), &same, 2500, Layout::of(3))
        .unwrap();
}

/// A window whose rows went to "(other)" (lost beyond the row limit, and folded at ticks'
/// closes) saved (version 5) and restored: as saved (rows, "(other)", totals, counts) while no
/// tick moves; restored later, with ticks that left taken out (of "(other)" too), what it keeps
/// holds what a report counting the same requests without a limit holds (see [`check_kept`]),
/// down to an empty window.
#[test]
fn a_window_with_other_rows_restores_as_saved_and_as_ticks_leave() {
    use crate::codec::{Reader, Writer};
    let mut dict = Dictionary::new(1000);
    let new = |dict: &mut Dictionary, limit: usize| {
        Report::new(def("s", &["script_name"]), dict, limit)
            .unwrap()
            .with_exact_window(window_of_ticks(4), 0)
    };
    let mut live = new(&mut dict, 3);
    let mut scratch = new(&mut dict, usize::MAX);
    for (t, script) in [
        (100, "/a"),
        (150, "/a"),
        (200, "/b"),
        (300, "/c"),
        (400, "/d"),
        (1100, "/e"),
        (1200, "/a"),
        (2100, "/f"),
        (2200, "/b"),
        (3500, "/g"),
    ] {
        for r in [&mut live, &mut scratch] {
            r.advance(t);
            add_req(&mut dict, r, &req(script, 0.1));
        }
    }
    assert!(live.rows_lost() > 0 && live.rows_evicted() > 0);
    let mut bytes = Vec::new();
    let mut out = Writer::new(&mut bytes);
    live.save_window(&mut out, Layout::of(5)).unwrap();
    out.finish().unwrap();
    let restore = |dict: &mut Dictionary, now: u64| {
        let mut r = new(dict, 3);
        r.restore_window(&mut Reader::new(&bytes), &|id| id, now, Layout::of(5))
            .unwrap();
        r.advance(now);
        r
    };
    let r = restore(&mut dict, 3600);
    assert_eq!(rows_of(&r), rows_of(&live));
    assert_eq!(other_of(&r), other_of(&live));
    assert_eq!(totals_of(&r), totals_of(&live));
    assert_eq!(
        (r.rows_lost(), r.rows_evicted()),
        (live.rows_lost(), live.rows_evicted())
    );
    for now in [4300, 5100, 6000, 7000] {
        scratch.advance(now);
        live.advance(now);
        let r = restore(&mut dict, now);
        check_kept(&r, &scratch, 3).unwrap();
        check_kept(&live, &scratch, 3).unwrap();
    }
    assert_eq!(
        other_of(&restore(&mut dict, 7000)),
        (Sums::default(), vec![])
    );
}

/// What a report's memory estimate (kept as it changes, no walk) says is close to what a walk
/// over every row and tick finds, as rows come, ticks close and leave.
#[test]
fn the_memory_estimate_follows_the_rows_and_ticks() {
    let mut dict = Dictionary::new(100_000);
    let mut r = Report::new(def("s", &["script_name", "status"]), &mut dict, 1_000_000)
        .unwrap()
        .with_exact_window(window_of_ticks(4), 0);
    let names: Vec<&'static str> = (0..3000)
        .map(|i| &*Box::leak(format!("/p{i}").into_boxed_str()))
        .collect();
    let empty = r.memory_estimate();
    for t in 0..6u64 {
        r.advance(t * TICK_MS);
        for (i, name) in names.iter().enumerate() {
            let q = Req {
                status: (i % 7) as u32,
                ..req(name, 0.001 * (i % 50) as f32)
            };
            add_req(&mut dict, &mut r, &q);
        }
        let (estimate, walked) = (
            r.memory_estimate() - r.pending_close_bytes(),
            r.memory_bytes(),
        );
        assert!(estimate > empty + 3000 * 100, "{estimate}");
        // What the estimate counts ahead covers what the next close takes.
        let ahead = r.memory_estimate();
        r.advance((t + 1) * TICK_MS);
        let after = r.memory_bytes();
        assert!(
            (after as f64) < ahead as f64 * 1.1,
            "tick {t}: counted ahead {ahead}, after the close {after}"
        );
        assert!(
            estimate as f64 > walked as f64 * 0.9 && (estimate as f64) < walked as f64 * 1.5,
            "tick {t}: estimate {estimate}, walked {walked}"
        );
    }
    r.advance(100 * TICK_MS);
    assert!(
        r.memory_estimate() < empty + (1 << 20),
        "{}",
        r.memory_estimate()
    );
}

/// Ticks written one by one as they close (the tick log's records) and replayed into a fresh
/// report: its window holds what the live report's closed ticks hold, the open tick empty; ticks
/// outside the window or at or past the open one are left out, and a tick given twice counts
/// once.
#[test]
fn ticks_written_as_they_close_replay_into_the_window() {
    use crate::codec::Reader;
    let mut dict = Dictionary::new(1000);
    let w = FOUR_TICKS;
    let new = |dict: &mut Dictionary| {
        Report::new(def("s", &["script_name", "status"]), dict, 100)
            .unwrap()
            .with_exact_window(w, 0)
    };
    let mut live = new(&mut dict);
    live.keep_closed_ticks();
    assert_eq!(live.id_keys(), vec![true, false]);
    let mut logged = Vec::new();
    for (t, script, time) in THREE_TICKS.into_iter().chain([(4500, "/a", 0.05)]) {
        live.advance(t);
        add_req(&mut dict, &mut live, &req(script, time));
        logged.extend(live.take_closed_ticks().0.iter().map(|t| logged_tick(t)));
    }
    assert_eq!(logged.len(), 3, "ticks 0, 1 and 2 closed");
    let same = |id: u32| id;
    let read = |r: &Report| -> Vec<ClosedTick> {
        logged
            .iter()
            .chain(&logged[2..])
            .map(|b| {
                r.read_tick(&mut Reader::new(b), &same, Layout::TICK_LOG)
                    .unwrap()
            })
            .collect()
    };
    // At 4500 tick 0 has left the window (and `/gone` with it) and tick 4 is open.
    let mut replayed = new(&mut dict);
    let ticks = read(&replayed);
    assert_eq!(replayed.replay_ticks(ticks, 0, 4500), 2);
    let mut closed_only = new(&mut dict);
    closed_only.keep_closed_ticks();
    for (t, script, time) in [(1100, "/a", 0.2), (2100, "/b", 1.5), (2200, "/a", 0.7)] {
        closed_only.advance(t);
        add_req(&mut dict, &mut closed_only, &req(script, time));
    }
    closed_only.advance(4500);
    assert_eq!(rows_of(&replayed), rows_of(&closed_only));
    assert_eq!(totals_of(&replayed), totals_of(&closed_only));
    // The window moves on from there as the live one does (the open tick's request, lost with
    // the crash, comes again).
    add_req(&mut dict, &mut replayed, &req("/a", 0.05));
    for r in [&mut replayed, &mut live] {
        r.advance(6100);
    }
    add_req(&mut dict, &mut live, &req("/c", 0.4));
    add_req(&mut dict, &mut replayed, &req("/c", 0.4));
    assert_eq!(rows_of(&replayed), rows_of(&live));
    assert_eq!(totals_of(&replayed), totals_of(&live));
}

/// Ticks with "(other)" rows (beyond the row limit) written as the tick log writes them and
/// replayed: the totals are the live window's, its "(other)" row holds the ticks' ones, and
/// from the next close on (which folds the rows again) it is the live window.
#[test]
fn replayed_ticks_keep_their_other_rows() {
    use crate::codec::Reader;
    let mut dict = Dictionary::new(1000);
    let new = |dict: &mut Dictionary| {
        Report::new(def("s", &["script_name"]), dict, 1)
            .unwrap()
            .with_exact_window(FOUR_TICKS, 0)
    };
    let mut live = new(&mut dict);
    live.keep_closed_ticks();
    let mut logged = Vec::new();
    for (t, script) in [
        (100, "/a"),
        (200, "/b"),
        (1100, "/a"),
        (1200, "/c"),
        (2100, "/d"),
    ] {
        live.advance(t);
        add_req(&mut dict, &mut live, &req(script, 0.1));
        logged.extend(live.take_closed_ticks().0.iter().map(|t| logged_tick(t)));
    }
    live.advance(3000);
    logged.extend(live.take_closed_ticks().0.iter().map(|t| logged_tick(t)));
    assert!(other_of(&live).0.req_count > 0, "rows went to (other)");
    let mut replayed = new(&mut dict);
    let ticks = logged
        .iter()
        .map(|b| {
            replayed
                .read_tick(&mut Reader::new(b), &|id| id, Layout::TICK_LOG)
                .unwrap()
        })
        .collect();
    assert_eq!(replayed.replay_ticks(ticks, 0, 3000), 3);
    assert_eq!(totals_of(&replayed), totals_of(&live));
    // The ticks' own "(other)" rows (the two requests that got no row); the rows the live report
    // folded at its closes are rows again, until the next close folds them.
    assert_eq!(other_of(&replayed).0.req_count, 2);
    let rows: u64 = rows_of(&replayed).values().map(|(s, _)| s.req_count).sum();
    assert_eq!(rows + 2, 5);
    replayed.advance(4000);
    live.advance(4000);
    assert_eq!(other_of(&replayed), other_of(&live));
    assert_eq!(rows_of(&replayed), rows_of(&live));
}

/// A closed tick as the tick log writes it.
fn logged_tick(tick: &ClosedTick) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut out = crate::codec::Writer::new(&mut bytes);
    tick.write(&mut out).unwrap();
    out.finish().unwrap();
    bytes
}
