//! The update path: requests and timers counted into rows and totals, the row limit, the
//! histogram log and the table-order update equal to counting each request on its own.

use super::*;

#[test]
fn request_report_counts_and_sums() {
    let mut w = World::new(vec![def("r", &["script_name"]), def("info", &[])], 100);
    w.insert(&Req {
        peak: 3_000_000,
        ..req("/a", 0.5)
    });
    w.insert(&Req {
        peak: 1_000_000,
        ..req("/a", 0.25)
    });
    w.insert(&Req {
        doc: 10,
        mem: 20,
        ..req("/b", 1.0)
    });
    let a = w.id("/a");
    let rows = rows_of(&w.reports[0]);
    let (sums, hist) = &rows[&vec![a]];
    assert_eq!(sums.req_count, 2);
    assert_eq!(sums.time_ns.get(), 750_000_000);
    assert_eq!(sums.traffic_bytes.get(), 2000);
    assert_eq!(sums.memory_footprint_bytes.get(), 4_000_000);
    assert_eq!(sums.memory_peak_bytes.get(), 4_000_000);
    assert_eq!(sums.memory_peak_max, 3_000_000);
    assert_eq!(hist.iter().map(|b| b.1).sum::<u64>(), 2);
    assert_eq!(w.reports[0].total_requests(), 3);
    assert_eq!(w.reports[1].rows(), 1);
    assert_eq!(totals_of(&w.reports[1]), totals_of(&w.reports[0]));
    w.remove_oldest(3);
    assert_eq!(w.reports[0].rows(), 0);
    assert_eq!(w.reports[1].rows(), 0);
    assert_eq!(totals_of(&w.reports[0]), (Sums::default(), vec![]));
}

#[test]
fn timer_report_counts_a_request_once_per_row() {
    let mut w = World::new(vec![def("r", &["timer_tag:group"])], 100);
    w.insert(&Req {
        timers: vec![
            (0.1, 2, vec![("group", "db")]),
            (0.3, 1, vec![("group", "db"), ("server", "m1")]),
            (0.05, 5, vec![("group", "cache")]),
            (0.5, 1, vec![("server", "m1")]), // no group: ignored
        ],
        ..Req::default()
    });
    w.insert(&Req {
        timers: vec![(0.2, 1, vec![("group", "db")])],
        ..Req::default()
    });
    let (db, cache) = (w.id("db"), w.id("cache"));
    let rows = rows_of(&w.reports[0]);
    let (s, hist) = &rows[&vec![db]];
    assert_eq!(
        (s.req_count, s.hit_count, s.time_ns),
        (2, 4, (ns(0.1) + ns(0.3) + ns(0.2)).into())
    );
    assert_eq!(
        hist.iter().map(|b| b.1).sum::<u64>(),
        4,
        "hit_count samples"
    );
    assert_eq!(
        (
            rows[&vec![cache]].0.req_count,
            rows[&vec![cache]].0.hit_count
        ),
        (1, 5)
    );
    assert_eq!(w.reports[0].totals().sums.req_count, 2);
    assert_eq!(w.reports[0].totals().sums.hit_count, 9);
    // Samples are value / hit_count: 5 samples of 10 ms.
    let t = w
        .query(
            0,
            &Query {
                filters: vec!["group:cache".into()],
                ..q()
            },
            1.0,
        )
        .unwrap();
    assert!((float(column(&t, 0, "timer_median")) - 0.01).abs() < 0.0001);
    w.remove_oldest(1);
    let rows = rows_of(&w.reports[0]);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[&vec![db]].0.req_count, rows[&vec![db]].0.hit_count),
        (1, 1)
    );
    w.remove_oldest(1);
    assert_eq!(w.reports[0].rows(), 0);
    assert_eq!(totals_of(&w.reports[0]), (Sums::default(), vec![]));
}

/// Beyond the row limit a contribution goes to "(other)" (counted in `rows_lost`); when a tick
/// closes, a report above its room mark folds its coldest rows into "(other)" (`rows_evicted`):
/// the flood's rows of an older tick before a key of the last one, a busy row never before them.
/// So a new key gets a row in the next tick. Whatever moved, the rows and "(other)" sum to the
/// exact totals, and once the window left it all, "(other)" is empty.
#[test]
fn beyond_the_row_limit_other_takes_the_rest_and_cold_rows_give_way() {
    const FLOOD: [&str; 6] = ["/f0", "/f1", "/f2", "/f3", "/f4", "/f5"];
    let mut dict = Dictionary::new(1000);
    let mut r = Report::new(def("r", &["script_name"]), &mut dict, 5)
        .unwrap()
        .with_exact_window(window_of_ticks(8), 0);
    assert_eq!(r.room_mark(), 4);
    let mut all = Vec::new();
    let mut send = |dict: &mut Dictionary, r: &mut Report, q: Req| {
        add_req(dict, r, &q);
        all.push(q);
    };
    // Tick 0: /hot three times, then a flood: 4 of its 6 keys get rows, 2 go to "(other)".
    for _ in 0..3 {
        send(&mut dict, &mut r, req("/hot", 0.1));
    }
    for f in FLOOD {
        send(&mut dict, &mut r, req(f, 0.01));
    }
    assert_eq!((r.rows(), r.rows_lost()), (5, 2));
    // Tick 1: /new arrives while the flood's keys fill the report; the close of tick 0 folded
    // one flood row (5 rows > the mark of 4), so /new gets the room.
    r.advance(TICK_MS);
    assert_eq!((r.rows(), r.rows_evicted()), (4, 1));
    send(&mut dict, &mut r, req("/new", 0.2));
    let new = dict.lookup(b"/new").unwrap();
    assert!(rows_of(&r).contains_key(&vec![new]), "a new key has a row");
    // Tick 2: the close of tick 1 folds one row again: a flood row of tick 0, not /new (as cold
    // by its count, but in the last tick) nor /hot.
    r.advance(2 * TICK_MS);
    assert_eq!((r.rows(), r.rows_evicted()), (4, 2));
    let rows = rows_of(&r);
    let hot = dict.lookup(b"/hot").unwrap();
    assert!(rows.contains_key(&vec![new]) && rows.contains_key(&vec![hot]));
    // Against the same requests counted without a limit.
    let mut scratch = Report::new(def("r", &["script_name"]), &mut dict, usize::MAX)
        .unwrap()
        .with_exact_window(window_of_ticks(8), 0);
    for (i, q) in all.iter().enumerate() {
        scratch.advance(if i < 9 { 0 } else { TICK_MS });
        add_req(&mut dict, &mut scratch, q);
    }
    scratch.advance(2 * TICK_MS);
    check_kept(&r, &scratch, 5).unwrap();
    let (other, _) = other_of(&r);
    assert_eq!(other.req_count, 4, "2 lost, 2 folded");
    // The query shows "(other)" as a row, its key columns saying so.
    let t = r.query(&q(), &dict, 1.0).unwrap();
    assert_eq!(t.rows_total, 5);
    let at = (0..t.rows.len())
        .find(|&i| matches!(column(&t, i, "script_name"), Cell::Text(s) if s == "(other)"))
        .expect("an (other) row");
    assert_eq!(float(column(&t, at, "req_count")), 4.0);
    let filtered = r
        .query(
            &Query {
                filters: vec!["script_name:(other)".into()],
                ..q()
            },
            &dict,
            1.0,
        )
        .unwrap();
    assert_eq!(filtered.rows_total, 1);
    // Everything leaves: rows and "(other)" empty, exactly.
    r.advance(20 * TICK_MS);
    assert_eq!(r.rows(), 0);
    assert_eq!(totals_of(&r), (Sums::default(), vec![]));
    assert_eq!(other_of(&r), (Sums::default(), vec![]));
}

/// A key folded into "(other)" and made again later: its older tick leaving the window is taken
/// out of "(other)", not out of its new row, which holds only what came since.
#[test]
fn a_row_folded_and_made_again_takes_its_old_ticks_from_other() {
    let mut dict = Dictionary::new(1000);
    let mut r = Report::new(def("r", &["script_name"]), &mut dict, 2)
        .unwrap()
        .with_exact_window(window_of_ticks(4), 0);
    add_req(&mut dict, &mut r, &req("/a", 0.1));
    add_req(&mut dict, &mut r, &req("/b", 0.2));
    add_req(&mut dict, &mut r, &req("/b", 0.2));
    // Tick 0 closes with 2 rows > the mark of 1: /a (fewer requests) is folded.
    r.advance(TICK_MS);
    assert_eq!(r.rows_evicted(), 1);
    add_req(&mut dict, &mut r, &req("/a", 0.4));
    let a = dict.lookup(b"/a").unwrap();
    assert_eq!(
        rows_of(&r)[&vec![a]].0.req_count,
        1,
        "made again: only the new request"
    );
    assert_eq!(other_of(&r).0.req_count, 1, "the old one");
    // Tick 0 leaves: "(other)" loses /a's old request, the new row keeps its own.
    r.advance(4 * TICK_MS);
    assert_eq!(other_of(&r).0.req_count, 0);
    let rows = rows_of(&r);
    assert_eq!(rows[&vec![a]].0.req_count, 1);
    assert!((rows[&vec![a]].0.time_ns.get() as i128 - 400_000_000).abs() < 1000);
    r.advance(20 * TICK_MS);
    assert_eq!((r.rows(), totals_of(&r)), (0, (Sums::default(), vec![])));
    assert_eq!(other_of(&r), (Sums::default(), vec![]));
}

/// A batch into an open table under `SORTED_MIN_SLOTS` slots counts its samples into the rows at
/// once (nothing left in the log), and into a larger one through the log: both equal counting
/// each request on its own.
#[test]
fn small_tables_take_their_samples_at_once() {
    let mut dict = Dictionary::new(100_000);
    for (scripts, logs) in [(20usize, false), (2_000, true)] {
        let names: Vec<&'static str> = (0..scripts)
            .map(|i| &*Box::leak(format!("/s{i}").into_boxed_str()))
            .collect();
        let reqs: Vec<Req> = (0..4_000)
            .map(|i| Req {
                script: names[i % scripts],
                time: (1 + i % 977) as f32 / 1e3,
                ..Req::default()
            })
            .collect();
        let def = ReportDef::new("by_script", &["script_name"]);
        let mut batched = Report::new(def.clone(), &mut dict, usize::MAX).unwrap();
        let mut single = Report::new(def, &mut dict, usize::MAX).unwrap();
        // Two batches: the first creates the rows (and grows the table), the second finds them.
        for part in reqs.chunks(2_000) {
            let batch = prepared(&mut dict, part);
            batched.add_batch(&batch);
            for v in batch.views() {
                single.add(&v);
            }
        }
        assert_eq!(batched.hist_pending(), logs, "{scripts} rows");
        batched.flush_hist();
        assert!(
            rows_of(&batched) == rows_of(&single),
            "{scripts} rows differ"
        );
    }
}

/// Histogram samples logged over many requests and applied in one grouped flush give exactly
/// the rows of applying each request at once (request and timer reports, rows created and
/// reused within the batch, a tick closing in between).
#[test]
fn logged_histograms_equal_direct_ones() {
    let defs = property_defs();
    let mut dict = Dictionary::new(100_000);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let reqs: Vec<Req> = (0..400)
        .map(|_| proptest::strategy::ValueTree::current(&arb_req().new_tree(&mut runner).unwrap()))
        .collect();
    for d in defs {
        let mut direct = Report::new(d.clone(), &mut dict, usize::MAX)
            .unwrap()
            .with_exact_window(window(), 0);
        let mut logged = Report::new(d, &mut dict, usize::MAX)
            .unwrap()
            .with_exact_window(window(), 0);
        // The log even on these small tables (in the daemon, tables under `SORTED_MIN_SLOTS`
        // slots take their samples at once).
        logged.log_min_slots = 0;
        for (half, part) in reqs.chunks(200).enumerate() {
            let t = (half as u64 + 1) * TICK_MS;
            direct.advance(t);
            logged.advance(t);
            let mut batch = PreparedBatch::default();
            let parts: Vec<_> = part.iter().map(|r| intern_req(&mut dict, r)).collect();
            for (record, timers, block) in &parts {
                let v = RequestView {
                    id: 0,
                    record,
                    tag_block: block,
                    timers,
                };
                direct.add(&v);
                batch.push(&v);
            }
            logged.add_batch(&batch);
        }
        assert!(logged.hist_pending() || logged.total_requests() == 0);
        // Queries read the samples still in the log for the rows they need, without applying
        // it: the short path (sorted by a sum, a page), sorted by a key, and sorted and filtered
        // by percentiles (every row's needed) all equal the direct report's answer.
        let key_sort = logged.key_names.first().map(|k| format!("+{k}"));
        let queries = [
            Query {
                percentiles: Some(vec![50.0, 99.0]),
                limit: Some(7),
                offset: 2,
                ..q()
            },
            Query {
                sort: key_sort,
                percentiles: Some(vec![90.0]),
                limit: Some(5),
                ..q()
            },
            Query {
                sort: Some("-p99".into()),
                percentiles: Some(vec![75.0, 99.0]),
                limit: Some(9),
                ..q()
            },
            Query {
                matches: vec!["p75:[1-9]".into()],
                percentiles: Some(vec![75.0]),
                limit: Some(1000),
                ..q()
            },
        ];
        for query in &queries {
            let a = logged.query(query, &dict, 1.0).unwrap();
            let b = direct.query(query, &dict, 1.0).unwrap();
            assert_eq!(a, b, "{} {:?}", logged.def.name, query.sort);
        }
        assert!(logged.hist_pending() || logged.total_requests() == 0);
        logged.flush_hist();
        assert!(!logged.hist_pending());
        assert_eq!(rows_of(&logged), rows_of(&direct), "{}", logged.def.name);
        assert_eq!(totals_of(&logged), totals_of(&direct));
    }
}

/// The prefetch's premise: most keys of a table sit in the bucket where their probe starts
/// (`hash_ids & (buckets - 1)`), the bucket [`Rows::prefetch`] fetches. Fails if the
/// table (hashbrown) or the hash stopped agreeing on where a probe starts.
#[test]
fn most_rows_sit_where_their_probe_starts() {
    let mut t = Rows::<SMALL_KEY>::default();
    let n = 20_000u32;
    for i in 0..n {
        t.insert([i % 1000, i / 1000, 7, 0], Row::default());
    }
    let mask = t.buckets() - 1;
    let home = (0..n)
        .filter(|i| {
            let k = [i % 1000, i / 1000, 7, 0];
            let at = hash_ids(&k) as usize & mask;
            t.0.get_bucket(at).is_some_and(|e| e.0 == k)
        })
        .count();
    assert!(
        home > n as usize / 2,
        "{home} of {n} rows in their first bucket"
    );
}

proptest! {
    /// [`with_lookahead`] applies every item once, in order, each after its hint.
    #[test]
    fn lookahead_applies_each_item_once_in_order(n in 0usize..40) {
        let mut log: Vec<usize> = Vec::new();
        let hinted = std::cell::RefCell::new(Vec::new());
        with_lookahead(&mut log, 0..n, |_, &i| hinted.borrow_mut().push(i), |log, i| {
            assert!(hinted.borrow().contains(&i), "{i} applied before its hint");
            log.push(i);
        });
        prop_assert_eq!(log, (0..n).collect::<Vec<_>>());
        prop_assert_eq!(hinted.into_inner(), (0..n).collect::<Vec<_>>());
    }
}

/// Batches counted in table order (open tables beyond [`SORTED_MIN_SLOTS`]) give the same rows as
/// requests counted one by one, timer reports' once-per-row request counts included.
#[test]
fn table_order_updates_equal_direct_ones() {
    let scripts: Vec<&'static str> = (0..24_000)
        .map(|i| &*Box::leak(format!("/s{i}").into_boxed_str()))
        .collect();
    let groups = ["db", "cache", "http", "queue"];
    let mut rng = crate::corpus::SplitMix64::new(5);
    let reqs: Vec<Req> = (0..40_000)
        .map(|_| {
            let timers = (0..1 + rng.next_u64() % 4)
                .map(|_| {
                    let g = groups[(rng.next_u64() % 4) as usize];
                    let value = (1 + rng.next_u64() % 5000) as f32 / 1e4;
                    (value, 1 + (rng.next_u64() % 3) as u32, vec![("group", g)])
                })
                .collect();
            Req {
                host: ["a", "b", "c"][(rng.next_u64() % 3) as usize],
                script: scripts[(rng.next_u64() % scripts.len() as u64) as usize],
                status: [200, 404][(rng.next_u64() % 2) as usize],
                time: (1 + rng.next_u64() % 10_000) as f32 / 1e4,
                timers,
                ..Req::default()
            }
        })
        .collect();
    let mut dict = Dictionary::new(100_000);
    // Keys of more than `SMALL_KEY` ids (the built-ins' stage) are deferred in a side list.
    let five = ["hostname", "server_name", "script_name", "status", "schema"];
    let five_timer = [
        "hostname",
        "server_name",
        "script_name",
        "status",
        "timer_tag:group",
    ];
    for d in [
        def("script", &["script_name"]),
        def("script_group", &["script_name", "timer_tag:group"]),
        with_filters(def("slow", &["script_name"]), &[("min_time", 0.2.into())]),
        def("five", &five),
        def("five_timer", &five_timer),
    ] {
        let mut direct = Report::new(d.clone(), &mut dict, usize::MAX)
            .unwrap()
            .with_exact_window(window(), 0);
        let mut sorted = Report::new(d, &mut dict, usize::MAX)
            .unwrap()
            .with_exact_window(window(), 0);
        let mut steps = 0;
        for part in reqs.chunks(1000) {
            let parts: Vec<_> = part.iter().map(|r| intern_req(&mut dict, r)).collect();
            let mut batch = PreparedBatch::default();
            for (record, timers, block) in &parts {
                let v = RequestView {
                    id: 0,
                    record,
                    tag_block: block,
                    timers,
                };
                direct.add(&v);
                batch.push(&v);
            }
            // The merge thread's stepwise update: at each step (where readers get in) every
            // request is counted in both its row and the totals, or in neither.
            Report::add_batch_in_steps(&mut &mut sorted, &batch, |r| {
                steps += 1;
                let mut rows = Sums::default();
                for (_, row) in r.items() {
                    let s = row.sums;
                    rows.req_count += s.req_count;
                    rows.time_ns.add(s.time_ns);
                    rows.traffic_bytes.add(s.traffic_bytes);
                }
                let t = r.totals().sums;
                assert_eq!(
                    (rows.req_count, rows.time_ns, rows.traffic_bytes),
                    (t.req_count, t.time_ns, t.traffic_bytes),
                    "{}: rows and totals agree between steps",
                    r.def.name
                );
            });
        }
        // Steps only in request reports' table-order updates (a timer report's request spans
        // several rows).
        let timer = sorted.kind() == Kind::Timer;
        assert_eq!(steps == 0, timer, "{}: {steps} steps", sorted.def.name);
        assert!(
            sorted.spare_deferral.is_some(),
            "{}: the table grew past {SORTED_MIN_SLOTS} slots and batches went in table order",
            sorted.def.name
        );
        sorted.flush_hist();
        assert_eq!(rows_of(&sorted), rows_of(&direct), "{}", sorted.def.name);
        assert_eq!(totals_of(&sorted), totals_of(&direct));
    }
}

/// 1,000 requests over `scripts`, of random times.
fn random_batch(
    dict: &mut Dictionary,
    rng: &mut crate::corpus::SplitMix64,
    scripts: &[&'static str],
) -> PreparedBatch {
    let reqs: Vec<Req> = (0..1000)
        .map(|_| Req {
            script: scripts[(rng.next_u64() % scripts.len() as u64) as usize],
            time: (1 + rng.next_u64() % 10_000) as f32 / 1e4,
            ..Req::default()
        })
        .collect();
    prepared(dict, &reqs)
}

/// A report that queries read keeps its histogram log (which each query reads) at 8 samples
/// per row; one nobody queries lets it grow to 64 per row (applying it is cheaper per sample).
/// Both count the same.
#[test]
fn a_queried_report_keeps_its_histogram_log_shorter() {
    let scripts: Vec<&'static str> = (0..1000)
        .map(|i| &*Box::leak(format!("/q{i}").into_boxed_str()))
        .collect();
    let mut dict = Dictionary::new(10_000);
    let new = |dict: &mut Dictionary| {
        Report::new(def("script", &["script_name"]), dict, usize::MAX)
            .unwrap()
            .with_exact_window(window(), 0)
    };
    let (mut queried, mut other) = (new(&mut dict), new(&mut dict));
    queried.set_queried(true);
    let (mut longest_queried, mut longest_other) = (0, 0);
    let mut rng = crate::corpus::SplitMix64::new(9);
    for _ in 0..100 {
        let batch = random_batch(&mut dict, &mut rng, &scripts);
        queried.add_batch(&batch);
        other.add_batch(&batch);
        longest_queried = longest_queried.max(queried.hist_log.len());
        longest_other = longest_other.max(other.hist_log.len());
    }
    let rows = queried.open.len();
    assert_eq!(rows, 1000);
    assert!(
        longest_queried < HIST_LOG_PER_ROW_QUERIED * rows + 1000,
        "queried: log up to {longest_queried} samples for {rows} rows"
    );
    assert!(
        longest_other >= 32 * rows,
        "not queried: log up to {longest_other} samples for {rows} rows"
    );
    queried.flush_hist();
    other.flush_hist();
    assert_eq!(rows_of(&queried), rows_of(&other));
}

/// While the memory budget is tight a new key gets no row: its contribution goes to "(other)",
/// counted in `rows_lost` and as the budget's refusal; keys with rows go on counting. Once the
/// budget eases, new keys get rows again. The report's share is settled into the budget and
/// leaves it when the report is dropped.
#[test]
fn a_tight_budget_refuses_new_rows_into_other() {
    let budget = crate::budget::Budget::new(256 << 20);
    let mut dict = Dictionary::new(1000).with_budget(budget.clone());
    let mut r = Report::new(def("r", &["script_name"]), &mut dict, 1000)
        .unwrap()
        .with_exact_window(window_of_ticks(4), 0);
    add_req(&mut dict, &mut r, &req("/a", 0.1));
    r.settle_memory();
    let held = budget.used();
    assert!(held >= r.memory_estimate() as u64);
    let filler = crate::budget::Account::new(budget.clone());
    filler.settle(budget.tight_at());
    assert!(budget.judge());
    add_req(&mut dict, &mut r, &req("/b", 0.1));
    add_req(&mut dict, &mut r, &req("/a", 0.1));
    assert_eq!((r.rows(), r.rows_lost(), budget.rows_refused()), (1, 1, 1));
    let a = dict.lookup(b"/a").unwrap();
    assert_eq!(rows_of(&r)[&vec![a]].0.req_count, 2);
    assert_eq!(other_of(&r).0.req_count, 1);
    filler.settle(0);
    assert!(!budget.judge());
    add_req(&mut dict, &mut r, &req("/c", 0.1));
    assert_eq!(r.rows(), 2);
    r.settle_memory();
    drop(r);
    assert_eq!(budget.used(), dict.budget().used());
    drop(dict);
    assert_eq!(budget.used(), 0);
}

/// A report's growth within a round is in the budget before the round's end settles it: each
/// new row (its account runs ahead of its estimate), and each open row's histogram as it grows,
/// counted at once (a sample into a row) or logged and applied by the log's flush.
#[test]
fn new_rows_and_growing_histograms_are_in_the_budget_before_the_round_ends() {
    let budget = crate::budget::Budget::new(1 << 30);
    let mut dict = Dictionary::new(10_000).with_budget(budget.clone());
    let mut r = Report::new(def("r", &["script_name"]), &mut dict, usize::MAX)
        .unwrap()
        .with_exact_window(window_of_ticks(4), 0);
    r.settle_memory();
    let empty = r.memory_estimate() as u64;
    let walked = |r: &Report| r.open.values().map(|o| o.hist.heap_bytes()).sum::<usize>();
    for i in 0..100 {
        let name: &'static str = format!("/new/{i}").leak();
        add_req(&mut dict, &mut r, &req(name, 0.1));
        assert!(
            r.account.accounted() >= r.memory_estimate() as u64,
            "row {i}: accounted {} for an estimate of {}",
            r.account.accounted(),
            r.memory_estimate()
        );
    }
    assert!(r.memory_estimate() as u64 > empty + 100 * 100);
    // One row's histogram grows past its inline buckets, then into a block, sample by sample.
    for i in 0..200 {
        add_req(&mut dict, &mut r, &req("/new/0", 0.001 * (i + 1) as f32));
    }
    assert!(walked(&r) > 1000, "a block: {} bytes", walked(&r));
    assert_eq!(r.open_hist_bytes, walked(&r), "counted sample by sample");
    // Logged samples: counted when the log is applied.
    let scripts: Vec<&'static str> = (0..600)
        .map(|i| &*Box::leak(format!("/new/{i}").into_boxed_str()))
        .collect();
    let mut rng = crate::corpus::SplitMix64::new(3);
    for _ in 0..10 {
        let batch = random_batch(&mut dict, &mut rng, &scripts);
        r.add_batch(&batch);
    }
    r.flush_hist();
    assert_eq!(
        r.open_hist_bytes,
        walked(&r),
        "counted as the log is applied"
    );
    assert!(r.open_hist_bytes > 600 * 8, "{}", r.open_hist_bytes);
}

/// While the memory budget is tight and near its limit (`Budget::shed_at`), a report folds the
/// colder half of the rows its open tick made into "(other)" after each round, down to none,
/// the hottest last, so the memory goes back in the round that took the budget there, not at
/// the tick's close; totals stay exact. Below the mark, nothing is folded.
#[test]
fn a_budget_near_its_limit_folds_the_rows_the_open_tick_made() {
    let budget = crate::budget::Budget::new(256 << 20);
    let mut dict = Dictionary::new(10_000).with_budget(budget.clone());
    let mut r = Report::new(def("r", &["script_name"]), &mut dict, usize::MAX)
        .unwrap()
        .with_exact_window(window_of_ticks(8), 0);
    for i in 0..400 {
        let name: &'static str = format!("/cold/{i}").leak();
        add_req(&mut dict, &mut r, &req(name, 0.1 + i as f32 / 1e4));
    }
    for _ in 0..5 {
        add_req(&mut dict, &mut r, &req("/hot", 0.2));
    }
    let filler = crate::budget::Account::new(budget.clone());
    filler.settle(budget.tight_at() + 1);
    assert!(budget.judge());
    add_req(&mut dict, &mut r, &req("/hot", 0.2));
    assert_eq!(r.rows(), 401, "tight, below the mark: nothing folded");
    filler.settle(budget.shed_at());
    let before = r.memory_estimate();
    add_req(&mut dict, &mut r, &req("/hot", 0.2));
    assert_eq!((r.rows(), r.rows_evicted()), (200, 201));
    assert!(
        r.memory_estimate() < before,
        "{before} -> {}",
        r.memory_estimate()
    );
    assert_eq!(r.account.accounted(), r.memory_estimate() as u64, "settled");
    // Halved each round: 100, 50, 25, 12, 6, 3, 1.
    for _ in 0..7 {
        add_req(&mut dict, &mut r, &req("/hot", 0.2));
    }
    let hot = dict.lookup(b"/hot").unwrap();
    let rows = rows_of(&r);
    assert_eq!(rows.len(), 1, "halved each round");
    assert_eq!(rows[&vec![hot]].0.req_count, 14, "the hottest row last");
    assert_eq!(other_of(&r).0.req_count, 400);
    assert_eq!(totals_of(&r).0.req_count, 414);
    assert_eq!(
        r.open_hist_bytes,
        r.open.values().map(|o| o.hist.heap_bytes()).sum::<usize>()
    );
    add_req(&mut dict, &mut r, &req("/hot", 0.2));
    assert_eq!(
        (r.rows(), other_of(&r).0.req_count, r.open_hist_bytes),
        (0, 415, 0),
        "down to none"
    );
    // Below the mark again: new rows wait until the budget eases; the tick closes with what
    // "(other)" holds.
    filler.settle(budget.tight_at() + 1);
    add_req(&mut dict, &mut r, &req("/cold/0", 0.2));
    r.advance(TICK_MS);
    assert_eq!((r.rows(), totals_of(&r).0.req_count), (0, 416));
    assert_eq!(other_of(&r).0.req_count, 416);
    filler.settle(0);
    assert!(!budget.judge());
    add_req(&mut dict, &mut r, &req("/hot", 0.2));
    assert_eq!(r.rows(), 1, "eased: rows are made again");
    // A stage (a family's, a split report's part) keeps its rows: they are its reports'
    // contributions yet to reach their rows.
    let mut stage = r.stage_like();
    for i in 0..100 {
        let name: &'static str = format!("/cold/{i}").leak();
        add_req(&mut dict, &mut stage, &req(name, 0.1));
    }
    filler.settle(budget.limit());
    assert!(budget.judge());
    add_req(&mut dict, &mut stage, &req("/cold/0", 0.1));
    assert_eq!((stage.open.len(), stage.rows_evicted()), (100, 0));
    filler.settle(0);
}

/// While the memory budget is tight, no histogram log is kept: the next batch applies it and
/// gives its memory back, and samples go to their rows at once (the same histograms as logged
/// ones). Until then the estimate counts the log ahead: its sort buffer, which the flush sizes
/// to it, and its next doubling once it is half full.
#[test]
fn a_tight_budget_keeps_no_histogram_log() {
    let scripts: Vec<&'static str> = (0..1000)
        .map(|i| &*Box::leak(format!("/t{i}").into_boxed_str()))
        .collect();
    let budget = crate::budget::Budget::new(256 << 20);
    let mut dict = Dictionary::new(10_000).with_budget(budget.clone());
    let new = |dict: &mut Dictionary| {
        Report::new(def("script", &["script_name"]), dict, usize::MAX)
            .unwrap()
            .with_exact_window(window(), 0)
    };
    let (mut r, mut reference) = (new(&mut dict), new(&mut dict));
    reference.account = crate::budget::Account::new(crate::budget::Budget::unlimited());
    let mut rng = crate::corpus::SplitMix64::new(7);
    let mut batches = |dict: &mut Dictionary, r: &mut Report, reference: &mut Report| {
        for _ in 0..20 {
            let batch = random_batch(dict, &mut rng, &scripts);
            r.add_batch(&batch);
            reference.add_batch(&batch);
        }
    };
    batches(&mut dict, &mut r, &mut reference);
    let logged = r.hist_log.len();
    assert!(
        logged > 0 && r.hist_sorted.capacity() == 0,
        "logged, never flushed"
    );
    assert!(
        r.hist_log_bytes() >= 16 * logged,
        "the sort buffer counted ahead"
    );
    let filler = crate::budget::Account::new(budget.clone());
    filler.settle(budget.tight_at());
    assert!(budget.judge());
    batches(&mut dict, &mut r, &mut reference);
    assert_eq!(
        (
            r.hist_log.capacity(),
            r.hist_sorted.capacity(),
            r.hist_log_bytes()
        ),
        (0, 0, 0),
        "no log while tight"
    );
    assert!(reference.hist_log.len() > logged, "the reference logs on");
    reference.flush_hist();
    assert_eq!(rows_of(&r), rows_of(&reference));
}

/// While the memory budget is tight, each tick's close folds the coldest half of the rows into
/// "(other)" (the hottest stay; not below `TIGHT_KEEP_ROWS`), whatever the row limit, so that
/// the ticks closed meanwhile stop adding copies of every row; totals stay exact.
#[test]
fn a_tight_budget_halves_the_rows_at_each_close() {
    use crate::report::window::TIGHT_KEEP_ROWS;
    let budget = crate::budget::Budget::new(256 << 20);
    let mut dict = Dictionary::new(1000).with_budget(budget.clone());
    let mut r = Report::new(def("r", &["script_name"]), &mut dict, 1000)
        .unwrap()
        .with_exact_window(window_of_ticks(8), 0);
    for i in 0..200 {
        let name: &'static str = format!("/cold/{i}").leak();
        add_req(&mut dict, &mut r, &req(name, 0.1));
    }
    for _ in 0..5 {
        add_req(&mut dict, &mut r, &req("/hot", 0.1));
    }
    r.advance(TICK_MS);
    assert_eq!((r.rows(), r.rows_evicted()), (201, 0), "not tight");
    let filler = crate::budget::Account::new(budget.clone());
    filler.settle(budget.tight_at());
    assert!(budget.judge());
    add_req(&mut dict, &mut r, &req("/hot", 0.1));
    r.advance(2 * TICK_MS);
    assert_eq!((r.rows(), r.rows_evicted()), (100, 101));
    r.advance(3 * TICK_MS);
    assert_eq!(
        r.rows(),
        TIGHT_KEEP_ROWS,
        "halved, down to the rows a report keeps"
    );
    r.advance(4 * TICK_MS);
    assert_eq!(r.rows(), TIGHT_KEEP_ROWS);
    let hot = dict.lookup(b"/hot").unwrap();
    assert_eq!(
        rows_of(&r)[&vec![hot]].0.req_count,
        6,
        "the hottest row stays"
    );
    let rows: u64 = rows_of(&r).values().map(|(s, _)| s.req_count).sum();
    assert_eq!(rows + other_of(&r).0.req_count, 206);
    assert_eq!(totals_of(&r).0.req_count, 206);
    filler.settle(0);
    assert!(!budget.judge());
}

/// A closed tick a report compacts (or lets leave its window) while a tap still holds it stays
/// accounted until the tap drops it: the report's own share drops at once, the tick's bytes
/// move to the budget's outliving part.
#[test]
fn a_tick_let_go_while_a_tap_holds_it_stays_accounted() {
    let budget = crate::budget::Budget::new(256 << 20);
    let mut dict = Dictionary::new(10_000).with_budget(budget.clone());
    let mut r = Report::new(def("r", &["script_name"]), &mut dict, 10_000)
        .unwrap()
        .with_exact_window(window_of_ticks(8), 0);
    r.keep_closed_ticks();
    for i in 0..500 {
        let name: &'static str = format!("/held/{i}").leak();
        add_req(&mut dict, &mut r, &req(name, 0.1));
    }
    r.advance(TICK_MS);
    let (held, _) = r.take_closed_ticks();
    assert_eq!(held.len(), 1, "the tap holds the closed tick");
    let filler = crate::budget::Account::new(budget.clone());
    filler.settle(250 << 20);
    assert!(budget.judge());
    add_req(&mut dict, &mut r, &req("/hot", 0.1));
    r.advance(2 * TICK_MS);
    r.settle_memory();
    let outliving = budget.outliving_bytes();
    assert!(
        outliving >= held[0].bytes() as u64,
        "the compacted tick the tap holds: {outliving} bytes"
    );
    let used = budget.used();
    drop(held);
    r.take_closed_ticks();
    budget.judge();
    assert_eq!(budget.outliving_bytes(), 0);
    assert_eq!(budget.used(), used - outliving);
}

/// While the memory budget is tight, the rows folded at a close leave the closed ticks too (into
/// each tick's "(other)"), so the memory they held is given back at once, not when their ticks
/// leave the window; the report's answers are those it would give without it: rows and "(other)"
/// sum to the totals at every step, and once every tick has left the window nothing is left over.
#[test]
fn a_tight_budget_gives_back_the_closed_ticks_rows_at_once() {
    use crate::report::window::TIGHT_KEEP_ROWS;
    let budget = crate::budget::Budget::new(256 << 20);
    let mut dict = Dictionary::new(10_000).with_budget(budget.clone());
    let mut r = Report::new(def("r", &["script_name"]), &mut dict, 10_000)
        .unwrap()
        .with_exact_window(window_of_ticks(8), 0);
    // A flood of 500 new names a tick for 4 ticks, beside a hot script.
    for t in 0..4u64 {
        for i in 0..500 {
            let name: &'static str = format!("/flood/{t}/{i}").leak();
            add_req(&mut dict, &mut r, &req(name, 0.1 + i as f32 / 1e4));
        }
        add_req(&mut dict, &mut r, &req("/hot", 0.2));
        r.advance((t + 1) * TICK_MS);
    }
    assert_eq!(r.rows(), 2001);
    let (before, closed_before) = (r.memory_estimate(), r.closed_bytes);
    let filler = crate::budget::Account::new(budget.clone());
    filler.settle(250 << 20);
    assert!(budget.judge());
    add_req(&mut dict, &mut r, &req("/hot", 0.2));
    r.advance(5 * TICK_MS);
    let (after, closed_after) = (r.memory_estimate(), r.closed_bytes);
    assert!(r.rows() <= 1001);
    assert!(
        closed_after * 2 < closed_before + TIGHT_KEEP_ROWS * 100,
        "half the rows folded, and their ticks' copies gone: {closed_before} -> {closed_after} bytes"
    );
    assert!(
        after * 2 < before + TIGHT_KEEP_ROWS * 1000,
        "and their tables' slots: {before} -> {after} bytes"
    );
    let check = |r: &Report, sent: u64| {
        let rows: u64 = rows_of(r).values().map(|(s, _)| s.req_count).sum();
        let (other, other_hist) = other_of(r);
        let (totals, totals_hist) = totals_of(r);
        assert_eq!(rows + other.req_count, totals.req_count);
        assert_eq!(totals.req_count, sent);
        let samples = |h: &Vec<(u16, u64)>| h.iter().map(|(_, n)| n).sum::<u64>();
        let row_samples: u64 = rows_of(r).values().map(|(_, h)| samples(h)).sum();
        assert_eq!(row_samples + samples(&other_hist), samples(&totals_hist));
    };
    check(&r, 2005);
    r.advance(7 * TICK_MS);
    check(&r, 2005);
    // The ticks leave the window one by one (the first at 8): what they put in "(other)" leaves
    // with them.
    for (t, sent) in [(8, 1504), (9, 1003), (10, 502), (11, 1), (12, 0)] {
        r.advance(t * TICK_MS);
        check(&r, sent);
    }
    assert_eq!(other_of(&r).0, Sums::default());
    assert_eq!(r.rows(), 0);
    filler.settle(0);
}
