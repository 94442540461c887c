//! The update path: requests and timers counted into rows and totals, the row limit, the
//! histogram log and the table-order update equal to counting each request on its own.

use super::*;

#[test]
fn request_report_counts_and_sums() {
    let mut w = World::new(vec![def("r", &["script_name"]), def("info", &[])], 100);
    w.insert(&req("/a", 0.5));
    w.insert(&req("/a", 0.25));
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

#[test]
fn max_rows_loses_and_freezes_until_the_losing_tick_leaves() {
    let mut w = World::new(vec![def("r", &["script_name"])], 2);
    w.insert(&req("/a", 0.1));
    w.insert(&req("/b", 0.1));
    w.insert(&req("/c", 0.1)); // lost: 2 rows exist
    assert_eq!((w.reports[0].rows(), w.reports[0].rows_lost()), (2, 1));
    w.insert(&req("/a", 0.2)); // an existing row still counts
    w.remove_oldest(2); // /a (0.1) and /b leave: /b's row goes, room for one
    assert_eq!(w.reports[0].rows(), 1);
    w.insert(&req("/d", 0.1)); // lost: frozen until /c's tick leaves
    w.insert(&req("/c", 0.1)); // lost
    assert_eq!((w.reports[0].rows(), w.reports[0].rows_lost()), (1, 3));
    let scratch = w.scratch(0);
    assert_eq!(
        totals_of(&w.reports[0]),
        totals_of(&scratch),
        "totals count lost contributions"
    );
    for (k, v) in rows_of(&w.reports[0]) {
        assert_eq!(rows_of(&scratch)[&k], v, "every kept row is exact");
    }
    w.remove_oldest(usize::MAX); // the freeze ends
    assert_eq!(w.reports[0].rows(), 0);
    assert_eq!(totals_of(&w.reports[0]), (Sums::default(), vec![]));
    w.insert(&req("/e", 0.1));
    w.insert(&req("/f", 0.1));
    assert_eq!(w.reports[0].rows(), 2);
    assert_eq!(w.reports[0].rows_lost(), 3);
    assert_eq!(rows_of(&w.reports[0]), rows_of(&w.scratch(0)));
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
        let reqs: Vec<Req> = (0..1000)
            .map(|_| Req {
                script: scripts[(rng.next_u64() % 1000) as usize],
                time: (1 + rng.next_u64() % 10_000) as f32 / 1e4,
                ..Req::default()
            })
            .collect();
        let batch = prepared(&mut dict, &reqs);
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
