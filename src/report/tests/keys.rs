//! Keys and filters: which row a request (or a timer) counts in, and whether it counts at all.

use super::*;

#[test]
fn status_and_schema_keys() {
    let mut w = World::new(vec![def("r", &["status", "schema"])], 100);
    w.insert(&Req {
        status: 404,
        ..Req::default()
    });
    w.insert(&Req {
        status: 200,
        schema: Some("https"),
        ..Req::default()
    });
    let https = w.id("https");
    let rows = rows_of(&w.reports[0]);
    assert!(rows.contains_key(&vec![404, NO_SCHEMA]));
    assert!(rows.contains_key(&vec![200, https]));
    let t = w
        .query(
            0,
            &Query {
                sort: Some("status".into()),
                ..q()
            },
            1.0,
        )
        .unwrap();
    assert_eq!(t.columns[..2], ["status".to_string(), "schema".to_string()]);
    assert_eq!(t.rows[0][..2], [Cell::Int(200), Cell::Text("https".into())]);
    assert_eq!(t.rows[1][..2], [Cell::Int(404), Cell::Null]);
    let json = serde_json::to_value(&t).unwrap();
    assert_eq!(json["rows"][1]["schema"], serde_json::Value::Null);
    assert!(t.to_csv().contains("\r\n404,,"), "{}", t.to_csv());
}

/// A status filter takes what the API's `status` takes: a status, a class, a bound.
#[test]
fn status_filters_take_classes_and_bounds() {
    let defs = [
        ("one", FilterValue::Int(503)),
        ("class", "5xx".into()),
        ("bound", ">=404".into()),
        ("below", "<300".into()),
    ]
    .into_iter()
    .map(|(name, f)| with_filters(def(name, &["status"]), &[("status", f)]))
    .collect();
    let mut w = World::new(defs, 100);
    for status in [200, 302, 404, 500, 503, 599, 600] {
        w.insert(&Req {
            status,
            ..Req::default()
        });
    }
    let statuses = |i: usize| {
        let mut s: Vec<u32> = rows_of(&w.reports[i]).keys().map(|k| k[0]).collect();
        s.sort();
        s
    };
    assert_eq!(statuses(0), [503]);
    assert_eq!(statuses(1), [500, 503, 599]);
    assert_eq!(statuses(2), [404, 500, 503, 599, 600]);
    assert_eq!(statuses(3), [200]);
    for bad in ["6xx", "five", ">=x"] {
        let e = Report::new(
            with_filters(def("r", &["status"]), &[("status", bad.into())]),
            &mut Dictionary::new(100),
            100,
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(e.contains("status") && e.contains(bad), "{bad}: {e}");
    }
}

#[test]
fn missing_request_tag_contributes_nothing() {
    let mut w = World::new(vec![def("r", &["tag:country"])], 100);
    w.insert(&Req {
        tags: vec![("app", "x")],
        ..Req::default()
    });
    assert_eq!(w.reports[0].rows(), 0);
    assert_eq!(w.reports[0].total_requests(), 0);
    w.insert(&Req {
        tags: vec![("country", "nl"), ("country", "de")],
        ..Req::default()
    });
    let nl = w.id("nl");
    assert_eq!(
        rows_of(&w.reports[0]).keys().collect::<Vec<_>>(),
        vec![&vec![nl]],
        "first tag wins"
    );
    w.remove_oldest(2);
    assert_eq!(w.reports[0].rows(), 0);
}

#[test]
fn duplicate_timer_tag_names_first_wins() {
    let mut w = World::new(vec![def("r", &["timer_tag:group"])], 100);
    w.insert(&Req {
        timers: vec![(0.1, 1, vec![("group", "db"), ("group", "cache")])],
        ..Req::default()
    });
    let db = w.id("db");
    assert_eq!(
        rows_of(&w.reports[0]).keys().cloned().collect::<Vec<_>>(),
        vec![vec![db]]
    );
}

#[test]
fn mixed_keys_need_every_tag() {
    let mut w = World::new(
        vec![def(
            "r",
            &[
                "script_name",
                "tag:app",
                "timer_tag:group",
                "timer_tag:server",
            ],
        )],
        100,
    );
    w.insert(&Req {
        tags: vec![("app", "x")],
        timers: vec![
            (
                0.1,
                1,
                vec![("group", "db"), ("server", "m1"), ("extra", "1")],
            ),
            (0.1, 1, vec![("group", "db")]),
        ],
        ..Req::default()
    });
    w.insert(&Req {
        timers: vec![(0.1, 1, vec![("group", "db"), ("server", "m1")])],
        ..Req::default()
    });
    let key = vec![w.id("/a"), w.id("x"), w.id("db"), w.id("m1")];
    let rows = rows_of(&w.reports[0]);
    assert_eq!(rows.keys().collect::<Vec<_>>(), vec![&key]);
    assert_eq!((rows[&key].0.req_count, rows[&key].0.hit_count), (1, 1));
}

#[test]
fn filters_of_each_kind() {
    let f = |filters: &[(&str, FilterValue)]| with_filters(def("r", &[]), filters);
    let defs = vec![
        f(&[("min_time", 0.1.into())]),
        f(&[("max_time", 0.1.into())]),
        f(&[("hostname", "h1".into())]),
        f(&[("server_name", "s1".into())]),
        f(&[("script_name", "/b".into())]),
        f(&[("schema", "https".into())]),
        f(&[("status", 404.into())]),
        f(&[("tag:country", "nl".into())]),
        f(&[("timer_tag:group", "db".into())]),
        with_filters(
            def("t", &["timer_tag:group"]),
            &[("timer_tag:server", "m1".into())],
        ),
        f(&[("status", 404.into()), ("script_name", "/b".into())]),
    ];
    let mut w = World::new(defs, 100);
    let base = Req::default();
    let reqs = [
        Req {
            time: 0.1,
            ..base.clone()
        }, // min_time and max_time are inclusive
        Req {
            time: 0.05,
            host: "h1",
            ..base.clone()
        },
        Req {
            time: 0.3,
            server: "s1",
            schema: Some("https"),
            ..base.clone()
        },
        Req {
            script: "/b",
            status: 404,
            tags: vec![("country", "nl")],
            ..base.clone()
        },
        Req {
            script: "/b",
            tags: vec![("country", "de")],
            ..base.clone()
        },
        Req {
            timers: vec![
                (0.1, 1, vec![("group", "db"), ("server", "m2")]),
                (0.2, 3, vec![("group", "cache"), ("server", "m1")]),
            ],
            ..base.clone()
        },
    ];
    for r in &reqs {
        w.insert(r);
    }
    let counts: Vec<u64> = w.reports.iter().map(|r| r.total_requests()).collect();
    assert_eq!(counts, vec![5, 5, 1, 1, 2, 1, 1, 1, 1, 1, 1]);
    // The timer report counts only the timer carrying server=m1.
    let t = &w.reports[9];
    assert_eq!(t.totals().sums.hit_count, 3);
    assert_eq!(
        rows_of(t).keys().cloned().collect::<Vec<_>>(),
        vec![vec![w.id("cache")]]
    );
    w.remove_oldest(usize::MAX);
    assert!(w
        .reports
        .iter()
        .all(|r| r.rows() == 0 && r.totals().sums == Sums::default()));
}

/// A request whose timers lack a tag name a timer report needs is skipped before its timers are
/// looked at (the Bloom filter of timer tag names); one that has them is counted.
#[test]
fn requests_without_the_needed_timer_tags_are_skipped_whole() {
    let mut dict = Dictionary::new(1000);
    let mut rep = Report::new(def("x", &["timer_tag:x"]), &mut dict, 100)
        .unwrap()
        .with_exact_window(window(), 0);
    let without = Req {
        timers: vec![(0.1, 1, vec![("y", "1")]), (0.2, 1, vec![("z", "2")])],
        ..Req::default()
    };
    add_req(&mut dict, &mut rep, &without);
    assert_eq!(rep.update_number, 0, "skipped before its timers were read");
    assert_eq!(rep.total_requests(), 0);
    let with = Req {
        timers: vec![(0.1, 1, vec![("y", "1"), ("x", "a")])],
        ..Req::default()
    };
    add_req(&mut dict, &mut rep, &with);
    assert_eq!(rep.update_number, 1);
    assert_eq!(rep.total_requests(), 1);
    assert_eq!(rep.rows(), 1);
}

proptest! {
    /// A small key built as [`Words`] (in registers, by `Report::update`) is the key built id by
    /// id: the same ids in the same places, the same hash (the table-order update's order and
    /// prefetch), whichever positions the timer tags take.
    #[test]
    fn a_key_built_in_words_equals_the_key_built_by_ids(
        ids in proptest::array::uniform4(any::<u32>()),
        len in 1usize..=SMALL_KEY,
        timer_pos in proptest::collection::vec(0usize..SMALL_KEY, 0..3),
    ) {
        let mut by_ids = KeyBuf { ids: [0; MAX_KEYS], len };
        let mut words: Words = [0; 2];
        let mut timer = timer_pos.iter().map(|p| p % len).collect::<Vec<_>>();
        timer.sort_unstable();
        timer.dedup();
        for pos in (0..len).filter(|p| !timer.contains(p)) {
            by_ids.ids[pos] = ids[pos];
            words = with_id(words, pos, ids[pos]);
        }
        // The timer tag positions, set afterwards as `update_timers` sets them.
        for &pos in &timer {
            by_ids.ids[pos] = ids[pos];
            words = with_id(words, pos, ids[pos]);
        }
        prop_assert_eq!(ids_of(words), by_ids.inline::<SMALL_KEY>());
        prop_assert_eq!(hash_words(words), hash_ids(&by_ids.inline::<SMALL_KEY>()));
    }
}
