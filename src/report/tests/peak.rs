//! memory_peak in request reports: its sum, and its largest over the window, which leaves with
//! the tick that held it (exactly, also through "(other)", a snapshot and an older snapshot).

use super::*;

/// A window of 4 ticks of 1 s, phase 0.
const FOUR_TICKS: Window = Window {
    history_ms: 4000,
    tick_ms: 1000,
    ticks: 4,
    phase_ms: 0,
};

fn with_peak(script: &'static str, peak: u32) -> Req {
    Req {
        peak,
        ..req(script, 0.1)
    }
}

fn new_report(dict: &mut Dictionary, rows: usize) -> Report {
    Report::new(def("s", &["script_name"]), dict, rows)
        .unwrap()
        .with_exact_window(FOUR_TICKS, 0)
}

/// `(memory_peak sum, largest)` of `script`'s row and of the totals.
fn peaks(dict: &Dictionary, r: &Report, script: &str) -> ((u128, u32), (u128, u32)) {
    let id = dict.lookup(script.as_bytes()).unwrap();
    let of = |s: &Sums| (s.memory_peak_bytes.get(), s.memory_peak_max);
    let row = rows_of(r)
        .get(&vec![id])
        .map_or((0, 0), |(sums, _)| of(sums));
    (row, of(&totals_of(r).0))
}

/// Sums add memory_peak and keep the largest; subtracting leaves the largest (the window
/// recomputes it).
#[test]
fn sums_add_memory_peak_and_keep_the_largest() {
    let mut dict = Dictionary::new(100);
    let mut r = new_report(&mut dict, 100);
    for p in [5, 9, 7] {
        add_req(&mut dict, &mut r, &with_peak("/a", p << 20));
    }
    let ((sum, max), (total, total_max)) = peaks(&dict, &r, "/a");
    assert_eq!((sum, max), (21 << 20, 9 << 20));
    assert_eq!((total, total_max), (sum, max));
    let mut a = Sums {
        memory_peak_bytes: Sum96::from(10),
        memory_peak_max: 6,
        ..Sums::default()
    };
    let b = Sums {
        memory_peak_bytes: Sum96::from(4),
        memory_peak_max: 4,
        ..Sums::default()
    };
    a.add(&b);
    assert_eq!((a.memory_peak_bytes.get(), a.memory_peak_max), (14, 6));
    a.subtract(&b);
    assert_eq!((a.memory_peak_bytes.get(), a.memory_peak_max), (10, 6));
}

/// The largest memory_peak of the window leaves with its tick: the row's and the totals' become
/// the largest of the ticks still in the window (and of the open tick).
#[test]
fn the_largest_memory_peak_leaves_the_window_with_its_tick() {
    let mut dict = Dictionary::new(100);
    let mut r = new_report(&mut dict, 100);
    // Ticks 0..=3: /a with peaks 300, 500, 200, 100; /b with 400 in tick 1.
    for (tick, peak) in [300, 500, 200, 100].into_iter().enumerate() {
        r.advance(tick as u64 * 1000 + 10);
        add_req(&mut dict, &mut r, &with_peak("/a", peak));
        if tick == 1 {
            add_req(&mut dict, &mut r, &with_peak("/b", 400));
        }
    }
    assert_eq!(peaks(&dict, &r, "/a"), ((1100, 500), (1500, 500)));
    // Tick 0 leaves: 500 is still in.
    r.advance(4000);
    assert_eq!(peaks(&dict, &r, "/a"), ((800, 500), (1200, 500)));
    // Tick 1 leaves with 500 (and /b's 400): 200, of tick 2.
    r.advance(5000);
    assert_eq!(peaks(&dict, &r, "/a"), ((300, 200), (300, 200)));
    assert_eq!(peaks(&dict, &r, "/b").0, (0, 0));
    // A new request in the open tick counts at once.
    add_req(&mut dict, &mut r, &with_peak("/a", 250));
    assert_eq!(peaks(&dict, &r, "/a"), ((550, 250), (550, 250)));
    // Tick 2 leaves: the open tick's 250 and tick 3's 100.
    r.advance(6000);
    assert_eq!(peaks(&dict, &r, "/a"), ((350, 250), (350, 250)));
    // The query's columns.
    let t = r.query(&q(), &dict, 2.0).unwrap();
    let col = |name: &str| {
        let at = t.columns.iter().position(|c| c == name).expect(name);
        t.rows[0][at].clone()
    };
    assert_eq!(t.rows.len(), 1);
    assert_eq!(col("memory_peak_total"), Cell::Int(350));
    assert_eq!(col("memory_peak_per_sec"), Cell::Float(175.0));
    assert_eq!(col("memory_peak_percent"), Cell::Float(100.0));
    assert_eq!(col("memory_peak_max"), Cell::Int(250));
    // Every tick leaves: nothing is left, no stale largest either.
    r.advance(20_000);
    assert_eq!(peaks(&dict, &r, "/a"), ((0, 0), (0, 0)));
}

/// Rows folded into "(other)" bring their per-tick largest: "(other)"'s largest leaves with the
/// tick that held it too.
#[test]
fn the_largest_memory_peak_of_other_leaves_with_its_tick() {
    let mut dict = Dictionary::new(100);
    // Room for one row at a close: the colder rows fold into "(other)".
    let mut r = new_report(&mut dict, 2);
    r.advance(10);
    add_req(&mut dict, &mut r, &with_peak("/hot", 1));
    add_req(&mut dict, &mut r, &with_peak("/hot", 1));
    add_req(&mut dict, &mut r, &with_peak("/cold", 900));
    r.advance(1010);
    add_req(&mut dict, &mut r, &with_peak("/cold2", 300));
    r.advance(2010);
    let other = other_of(&r).0;
    assert_eq!(other.memory_peak_max, 900, "{other:?}");
    // Tick 0 leaves with /cold's 900: /cold2's 300 of tick 1 is the largest left in "(other)".
    r.advance(4010);
    let other = other_of(&r).0;
    assert_eq!(
        (other.memory_peak_bytes.get(), other.memory_peak_max),
        (300, 300),
        "{other:?}"
    );
    r.advance(5010);
    assert_eq!(other_of(&r).0.memory_peak_max, 0);
}

/// Through a snapshot: the per-tick largest are rebuilt from the ticks (a saved closed part's
/// largest may be of a tick that left while the daemon was down); a version 5 snapshot (no
/// memory_peak) restores with memory_peak 0.
#[test]
fn the_largest_memory_peak_survives_a_snapshot_and_an_older_one_restores() {
    use crate::codec::Reader;
    let mut dict = Dictionary::new(100);
    let mut live = new_report(&mut dict, 100);
    for (tick, peak) in [700, 300, 200].into_iter().enumerate() {
        live.advance(tick as u64 * 1000 + 10);
        add_req(&mut dict, &mut live, &with_peak("/a", peak));
    }
    let (v6, v5) = (saved_window(&mut live, 6), saved_window(&mut live, 5));
    let same = |id: u32| id;
    // Restored after tick 0 (700) left.
    live.advance(4000);
    let mut r = new_report(&mut dict, 100);
    r.restore_window(&mut Reader::new(&v6), &same, 4000, Layout::of(6))
        .unwrap();
    r.advance(4000);
    assert_eq!(rows_of(&r), rows_of(&live));
    assert_eq!(totals_of(&r), totals_of(&live));
    assert_eq!(peaks(&dict, &r, "/a"), ((500, 300), (500, 300)));
    // And the rebuilt maxima go on leaving with their ticks.
    r.advance(5000);
    live.advance(5000);
    assert_eq!(peaks(&dict, &r, "/a"), ((200, 200), (200, 200)));
    assert_eq!(rows_of(&r), rows_of(&live));
    let mut old = new_report(&mut dict, 100);
    old.restore_window(&mut Reader::new(&v5), &same, 4000, Layout::of(5))
        .unwrap();
    old.advance(4000);
    assert_eq!(peaks(&dict, &old, "/a"), ((0, 0), (0, 0)));
    assert_eq!(rows_of(&old).len(), 1);
    let n = rows_of(&old)[&vec![dict.lookup(b"/a").unwrap()]]
        .0
        .req_count;
    assert_eq!(n, 2, "the requests of ticks 1 and 2");
}
