//! Columns and queries: column names, metric math, sorting, paging, filters and rendering.

use super::*;

#[test]
fn column_names_and_repeats() {
    let mut dict = Dictionary::new(100);
    let cols = |keys: &[&str], dict: &mut Dictionary| {
        Report::new(def("r", keys), dict, 1)
            .unwrap()
            .key_columns()
            .to_vec()
    };
    assert_eq!(
        cols(&["tag:country", "timer_tag:group"], &mut dict),
        vec!["country", "group"]
    );
    assert_eq!(
        cols(&["status", "tag:status"], &mut dict),
        vec!["status", "tag:status"]
    );
    assert_eq!(
        cols(&["tag:group", "timer_tag:group"], &mut dict),
        vec!["tag:group", "timer_tag:group"]
    );
    assert_eq!(
        cols(&["tag:req_count", "tag:p99"], &mut dict),
        vec!["tag:req_count", "tag:p99"]
    );
    assert_eq!(
        cols(&["timer_tag:hit_count"], &mut dict),
        vec!["timer_tag:hit_count"]
    );
    // A tag name holding `:` could name the column another key's prefix gives: refused, naming
    // both keys, instead of a row keeping one of two values.
    for keys in [
        &["tag:timer_tag:x", "timer_tag:x", "tag:x"][..],
        &["tag:tag:x", "tag:x", "timer_tag:x"][..],
    ] {
        let e = def("r", keys).validate().unwrap_err();
        assert!(
            e.to_string().contains(&format!("`{}`", keys[0]))
                && e.to_string().contains("would both be shown as column"),
            "{keys:?}: {e}"
        );
        assert!(Report::new(def("r", keys), &mut dict, 1).is_err());
    }
    assert_eq!(
        cols(&["tag:timer_tag:x", "timer_tag:x"], &mut dict),
        vec!["timer_tag:x", "x"]
    );
    let mut w = World::new(
        vec![def("r", &["script_name"]), def("t", &["timer_tag:g"])],
        10,
    );
    w.insert(&Req {
        timers: vec![(0.1, 1, vec![("g", "x")])],
        ..Req::default()
    });
    let t = w
        .query(
            0,
            &Query {
                percentiles: Some(vec![50.0, 99.9]),
                ..q()
            },
            1.0,
        )
        .unwrap();
    assert_eq!(
        t.columns,
        "script_name req_count req_per_sec req_percent req_time_total req_time_per_sec req_time_percent \
         ru_utime_total ru_utime_per_sec ru_utime_percent ru_stime_total ru_stime_per_sec ru_stime_percent \
         traffic_total traffic_per_sec traffic_percent memory_footprint_total memory_footprint_per_sec \
         memory_footprint_percent memory_peak_total memory_peak_per_sec memory_peak_percent \
         memory_peak_max req_time_median p50 p99.9"
            .split_whitespace()
            .collect::<Vec<_>>()
    );
    let t = w.query(1, &q(), 1.0).unwrap();
    assert_eq!(
        t.columns,
        "g req_count req_per_sec req_percent hit_count hit_per_sec hit_percent timer_value timer_value_per_sec \
         timer_value_percent ru_utime_value ru_stime_value timer_median p90 p95 p99"
            .split_whitespace()
            .collect::<Vec<_>>()
    );
    assert_eq!(t.keys, vec!["timer_tag:g"]);
}

#[test]
fn percent_and_per_sec_math() {
    let mut w = World::new(vec![def("r", &["script_name"])], 10);
    w.insert(&Req {
        doc: 100,
        ..req("/a", 1.0)
    });
    w.insert(&Req {
        doc: 100,
        ..req("/a", 1.0)
    });
    w.insert(&Req {
        doc: 200,
        ..req("/b", 2.0)
    });
    let t = w
        .query(
            0,
            &Query {
                sort: Some("script_name".into()),
                ..q()
            },
            2.0,
        )
        .unwrap();
    assert_eq!(text(column(&t, 0, "script_name")), "/a");
    assert_eq!(column(&t, 0, "req_count"), &Cell::Int(2));
    assert_eq!(float(column(&t, 0, "req_per_sec")), 1.0);
    assert!((float(column(&t, 0, "req_percent")) - 200.0 / 3.0).abs() < 1e-9);
    assert_eq!(float(column(&t, 0, "req_time_total")), 2.0);
    assert_eq!(float(column(&t, 0, "req_time_per_sec")), 1.0);
    assert_eq!(float(column(&t, 0, "req_time_percent")), 50.0);
    assert_eq!(column(&t, 0, "traffic_total"), &Cell::Int(200));
    assert_eq!(float(column(&t, 0, "traffic_percent")), 50.0);
    assert_eq!(float(column(&t, 1, "traffic_per_sec")), 100.0);
    assert!((float(column(&t, 0, "ru_utime_total")) - 0.02).abs() < 1e-9);
    assert_eq!(total(&t, "req_count"), &Cell::Int(3));
    assert_eq!(float(total(&t, "req_percent")), 100.0);
    assert_eq!(float(total(&t, "req_time_per_sec")), 2.0);
    assert!((float(column(&t, 1, "req_time_median")) - 2.0).abs() < 0.02);
    assert!((float(column(&t, 0, "p99")) - 1.0).abs() < 0.01);
    assert_eq!(t.time_interval, 2.0);
    // An empty report: zero totals, no NaN.
    w.remove_oldest(3);
    let t = w.query(0, &q(), 2.0).unwrap();
    assert_eq!((t.rows_total, t.rows.len()), (0, 0));
    assert_eq!(float(total(&t, "req_percent")), 0.0);
    assert_eq!(total(&t, "p99"), &Cell::Null);
}

fn scripts_world() -> World {
    let mut w = World::new(vec![def("r", &["script_name", "tag:country"])], 100);
    let scripts = ["/a", "/b", "/c", "/api/x", "/api/y"];
    for (i, s) in scripts.iter().enumerate() {
        for _ in 0..=i {
            w.insert(&Req {
                tags: vec![("country", if i % 2 == 0 { "nl" } else { "de" })],
                ..req(s, 0.1 * (i + 1) as f32)
            });
        }
    }
    w
}

fn script_column(t: &Table) -> Vec<&str> {
    t.rows.iter().map(|r| text(&r[0])).collect()
}

#[test]
fn query_sorts_limits_and_pages() {
    let w = scripts_world();
    let t = w.query(0, &q(), 1.0).unwrap();
    assert_eq!(
        script_column(&t),
        vec!["/api/y", "/api/x", "/c", "/b", "/a"],
        "default -req_time_total"
    );
    assert_eq!(t.rows_total, 5);
    let t = w
        .query(
            0,
            &Query {
                sort: Some("req_count".into()),
                limit: Some(2),
                ..q()
            },
            1.0,
        )
        .unwrap();
    assert_eq!(script_column(&t), vec!["/a", "/b"]);
    assert_eq!(t.rows_total, 5);
    let t = w
        .query(
            0,
            &Query {
                sort: Some("-script_name".into()),
                limit: Some(2),
                offset: 1,
                ..q()
            },
            1.0,
        )
        .unwrap();
    assert_eq!(script_column(&t), vec!["/b", "/api/y"]);
    let t = w
        .query(
            0,
            &Query {
                sort: Some("country".into()),
                ..q()
            },
            1.0,
        )
        .unwrap();
    assert_eq!(
        script_column(&t)[..2],
        ["/b", "/api/x"],
        "ties broken by key ids"
    );
    let t = w
        .query(
            0,
            &Query {
                sort: Some("-p99".into()),
                limit: Some(1),
                ..q()
            },
            1.0,
        )
        .unwrap();
    assert_eq!(script_column(&t), vec!["/api/y"]);
    let t = w.query(0, &Query { offset: 10, ..q() }, 1.0).unwrap();
    assert!(t.rows.is_empty());
    let t = w
        .query(
            0,
            &Query {
                limit: Some(0),
                ..q()
            },
            1.0,
        )
        .unwrap();
    assert!(t.rows.is_empty());
    assert_eq!(total(&t, "req_count"), &Cell::Int(15));
}

/// A query sorted by a sum with nothing to filter takes a shorter path (rows sorted by the raw
/// sum, summed in full only when kept): it answers exactly what the general path (forced here by
/// a match every row passes) answers, for every sum column, both directions, pages and ties.
#[test]
fn sorted_by_a_sum_the_short_path_equals_the_general_one() {
    let mut w = World::new(
        vec![
            def("scripts", &["script_name"]),
            def("groups", &["timer_tag:group"]),
        ],
        usize::MAX,
    );
    let scripts: Vec<&'static str> = (0..40)
        .map(|i| &*Box::leak(format!("/s{i}").into_boxed_str()))
        .collect();
    let groups = ["db", "cache", "http", "queue", "mail"];
    let mut rng = crate::corpus::SplitMix64::new(11);
    for i in 0..600 {
        let timers = (0..rng.next_u64() % 3)
            .map(|_| {
                let g = groups[(rng.next_u64() % groups.len() as u64) as usize];
                (
                    (1 + rng.next_u64() % 50) as f32 / 1e3,
                    1 + (rng.next_u64() % 3) as u32,
                    vec![("group", g)],
                )
            })
            .collect();
        w.insert(&Req {
            // Equal sums on purpose (ties broken by the key ids on both paths).
            time: (1 + rng.next_u64() % 4) as f32 / 10.0,
            doc: (rng.next_u64() % 3) as u32 * 1000,
            mem: (rng.next_u64() % 5) as u32 * 4096,
            ru_utime: (rng.next_u64() % 7) as f32 / 100.0,
            timers,
            ..req(
                scripts[(rng.next_u64() % scripts.len() as u64) as usize],
                0.0,
            )
        });
        if i == 400 {
            w.remove_oldest(100);
        }
    }
    let mut compared = 0;
    for (i, kind) in [(0, Kind::Request), (1, Kind::Timer)] {
        let key = w.query(i, &q(), 7.0).unwrap().columns[0].clone();
        for mc in metric_columns(kind) {
            for dir in ["", "-"] {
                for (offset, limit) in [(0, 10), (5, 7), (0, 1000), (38, 5)] {
                    let sorted = Query {
                        sort: Some(format!("{dir}{}", mc.name)),
                        offset,
                        limit: Some(limit),
                        ..q()
                    };
                    let short = w.query(i, &sorted, 7.0).unwrap();
                    let general = w
                        .query(
                            i,
                            &Query {
                                matches: vec![format!("{key}:.*")],
                                ..sorted.clone()
                            },
                            7.0,
                        )
                        .unwrap();
                    assert_eq!(short.rows_total, general.rows_total, "{:?}", sorted.sort);
                    assert_eq!(
                        short.rows, general.rows,
                        "{:?} {offset} {limit}",
                        sorted.sort
                    );
                    assert_eq!(short.totals, general.totals);
                    compared += !short.rows.is_empty() as usize;
                }
            }
        }
    }
    assert!(compared > 40, "{compared} non-empty pages compared");
}

#[test]
fn query_filters_and_matches() {
    let w = scripts_world();
    let run = |filters: &[&str], matches: &[&str]| {
        let q = Query {
            sort: Some("script_name".into()),
            filters: filters.iter().map(|s| s.to_string()).collect(),
            matches: matches.iter().map(|s| s.to_string()).collect(),
            ..q()
        };
        let t = w.query(0, &q, 1.0).unwrap();
        assert_eq!(t.rows_total, t.rows.len());
        script_column(&t)
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(run(&["script_name:/b"], &[]), vec!["/b"]);
    assert_eq!(run(&["country:nl"], &[]), vec!["/a", "/api/y", "/c"]);
    assert_eq!(
        run(&["tag:country:de"], &[]),
        vec!["/api/x", "/b"],
        "the key's own name works too"
    );
    assert_eq!(run(&["req_count:4"], &[]), vec!["/api/x"]);
    assert_eq!(run(&[], &["script_name:^/api"]), vec!["/api/x", "/api/y"]);
    assert_eq!(run(&["country:nl"], &["script_name:^/api"]), vec!["/api/y"]);
    assert_eq!(run(&[], &["req_count:^[12]$"]), vec!["/a", "/b"]);
    assert_eq!(run(&["script_name:/nope"], &[]), Vec::<String>::new());
}

#[test]
fn query_errors_name_the_column() {
    let w = scripts_world();
    let e = |q: Query| w.query(0, &q, 1.0).unwrap_err().to_string();
    assert!(e(Query {
        sort: Some("-bogus".into()),
        ..q()
    })
    .contains("`bogus`"));
    assert!(e(Query {
        filters: vec!["bogus:1".into()],
        ..q()
    })
    .contains("`bogus`"));
    assert!(e(Query {
        filters: vec!["req_count:many".into()],
        ..q()
    })
    .contains("many"));
    assert!(e(Query {
        filters: vec!["nocolon".into()],
        ..q()
    })
    .contains("COLUMN:VALUE"));
    assert!(e(Query {
        matches: vec!["script_name:(".into()],
        ..q()
    })
    .contains("match"));
    assert!(e(Query {
        matches: vec!["script_name:a{1000}{1000}".into()],
        max_regex_bytes: 1000,
        ..q()
    })
    .contains("match"));
    assert!(e(Query {
        limit: Some(11),
        max_limit: 10,
        ..q()
    })
    .contains("limit"));
    assert!(e(Query {
        percentiles: Some(vec![200.0]),
        ..q()
    })
    .contains("200"));
}

#[test]
fn query_renders_json_and_csv() {
    let mut w = World::new(vec![def("r", &["script_name"])], 10);
    w.insert(&req("/a,\"b\"", 0.5));
    w.insert(&req("/plain", 0.25));
    let t = w
        .query(
            0,
            &Query {
                percentiles: Some(vec![50.0]),
                ..q()
            },
            1.0,
        )
        .unwrap();
    let json = serde_json::to_value(&t).unwrap();
    assert_eq!(json["report"], "r");
    assert_eq!(json["kind"], "request");
    assert_eq!(json["keys"], serde_json::json!(["script_name"]));
    assert_eq!(json["rows_total"], 2);
    assert_eq!(json["totals"]["req_count"], 2);
    assert!(json["totals"].get("script_name").is_none());
    assert_eq!(json["rows"][0]["script_name"], "/a,\"b\"");
    assert_eq!(json["rows"][0]["traffic_total"], 1000);
    // Columns keep their order in the JSON text.
    let text = serde_json::to_string(&t).unwrap();
    assert!(text.find("\"req_count\"").unwrap() < text.find("\"p50\"").unwrap());
    let csv = t.to_csv();
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert!(lines[0].starts_with("script_name,req_count,req_per_sec,"));
    assert!(lines[0].ends_with(",req_time_median,p50"));
    assert!(lines[1].starts_with("\"/a,\"\"b\"\"\",1,"), "{}", lines[1]);
    assert!(lines[2].starts_with("/plain,1,"));
    assert_eq!(lines.len(), 4);
    assert_eq!(t.totals_json()["req_count"], 2);
}

#[test]
fn top_of_keeps_the_best_in_order() {
    let data: Vec<u32> = (0..5000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 10_007)
        .collect();
    let mut sorted = data.clone();
    sorted.sort_unstable();
    for want in [0, 1, 7, 100, 4999, 5000, 9000] {
        let (n, top) = top_of(data.iter().copied(), want, |a, b| a.cmp(b));
        assert_eq!(n, 5000);
        assert_eq!(top, sorted[..want.min(5000)], "want {want}");
    }
    let (_, top) = top_of(data.iter().copied(), 3, |a, b| b.cmp(a));
    assert_eq!(top, vec![sorted[4999], sorted[4998], sorted[4997]]);
}

/// A timer report with pinba_engine's definitions (`compat`) histograms each timer's whole value,
/// `hit_count` times; pinbad's and pinba2's its value per hit.
#[test]
fn pinba_engine_timer_percentiles_are_of_whole_values() {
    let with = |name: &str, compat: Option<Compat>| ReportDef {
        compat,
        ..def(name, &["timer_tag:g"])
    };
    let mut w = World::new(
        vec![
            with("pe", Some(Compat::PinbaEngine)),
            with("own", None),
            with("v2", Some(Compat::Pinba2)),
        ],
        10,
    );
    for _ in 0..3 {
        w.insert(&Req {
            timers: vec![(1.0, 10, vec![("g", "x")]), (0.2, 1, vec![("g", "x")])],
            ..Req::default()
        });
    }
    let ps = Query {
        percentiles: Some(vec![50.0, 95.0]),
        ..q()
    };
    let near = |got: f64, want: f64| (got - want).abs() <= want * 0.01;
    for (i, (p50, p95)) in [(1.0, 1.0), (0.1, 0.2), (0.1, 0.2)].into_iter().enumerate() {
        let t = w.query(i, &ps, 1.0).unwrap();
        let (got50, got95) = (float(column(&t, 0, "p50")), float(column(&t, 0, "p95")));
        assert!(near(got50, p50) && near(got95, p95), "{i}: {got50} {got95}");
    }
}
