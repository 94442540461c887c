//! Unit and property tests of the report engine, definitions, queries and persistence.

use super::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::columns::*;
use super::hist_log::*;
use super::keys::*;
use super::query::*;
use super::rows::Rows;
use super::rows::*;
use super::sums::*;
use super::update::*;
use super::view::*;
use super::window::*;
use crate::config::Config;
use crate::dictionary::Dictionary;
use crate::histogram::Histogram;
use crate::record::Timer;
use crate::record::{Record, RequestView, TagPair, NO_SCHEMA};
use proptest::prelude::*;

/// value (s), hit_count, tags
type TestTimer = (f32, u32, Vec<(&'static str, &'static str)>);

/// A request as a test writes it, with strings not yet interned.
#[derive(Clone, Debug)]
struct Req {
    host: &'static str,
    server: &'static str,
    script: &'static str,
    schema: Option<&'static str>,
    status: u32,
    time: f32,
    ru_utime: f32,
    ru_stime: f32,
    doc: u32,
    mem: u32,
    tags: Vec<(&'static str, &'static str)>,
    timers: Vec<TestTimer>,
}

impl Default for Req {
    fn default() -> Req {
        Req {
            host: "h0",
            server: "s0",
            script: "/a",
            schema: None,
            status: 200,
            time: 0.1,
            ru_utime: 0.01,
            ru_stime: 0.002,
            doc: 1000,
            mem: 2_000_000,
            tags: vec![],
            timers: vec![],
        }
    }
}

fn req(script: &'static str, time: f32) -> Req {
    Req {
        script,
        time,
        ..Req::default()
    }
}

/// A dictionary and reports fed the way the merger feeds them, over a window of [`TICKS`] ticks of
/// 1 s: each request in a tick of its own until [`World::remove_oldest`] moved the window, then
/// in the newest tick.
struct World {
    dict: Dictionary,
    reports: Vec<Report>,
    /// Every request inserted, with its tick, oldest first.
    log: Vec<(u64, Req)>,
    /// The current tick (the open one).
    tick: u64,
    /// Ticks still in the window start here.
    first_kept: u64,
}

const TICKS: u64 = 1000;
const TICK_MS: u64 = 1000;

fn window() -> Window {
    window_of_ticks(TICKS)
}

/// A window of `ticks` ticks of [`TICK_MS`].
fn window_of_ticks(ticks: u64) -> Window {
    Window {
        history_ms: ticks * TICK_MS,
        tick_ms: TICK_MS,
        ticks,
        phase_ms: 0,
    }
}

/// A request's parts, interned: record, timers, tag block.
fn intern_req(d: &mut Dictionary, r: &Req) -> (Record, Vec<Timer>, Vec<TagPair>) {
    let mut block: Vec<TagPair> = r
        .tags
        .iter()
        .map(|(n, v)| TagPair {
            name: d.intern(n.as_bytes()),
            value: d.intern(v.as_bytes()),
        })
        .collect();
    let mut timers = Vec::new();
    for (value, hits, tags) in &r.timers {
        timers.push(Timer {
            value: *value,
            ru_utime: value / 10.0,
            ru_stime: value / 20.0,
            hit_count: *hits,
            tag_count: tags.len() as u16,
        });
        block.extend(tags.iter().map(|(n, v)| TagPair {
            name: d.intern(n.as_bytes()),
            value: d.intern(v.as_bytes()),
        }));
    }
    let record = Record {
        hostname: d.intern(r.host.as_bytes()),
        server_name: d.intern(r.server.as_bytes()),
        script_name: d.intern(r.script.as_bytes()),
        schema: r.schema.map_or(NO_SCHEMA, |s| d.intern(s.as_bytes())),
        status: r.status,
        request_time: r.time,
        ru_utime: r.ru_utime,
        ru_stime: r.ru_stime,
        document_size: r.doc,
        memory_footprint: r.mem,
        request_count: 1,
        tag_count: r.tags.len() as u16,
        ..Record::default()
    };
    (record, timers, block)
}

fn add_req(dict: &mut Dictionary, rep: &mut Report, r: &Req) {
    let (record, timers, block) = intern_req(dict, r);
    rep.add(&RequestView {
        id: 0,
        record: &record,
        tag_block: &block,
        timers: &timers,
    });
}

impl World {
    fn new(defs: Vec<ReportDef>, max_rows: usize) -> World {
        let mut dict = Dictionary::new(1_000_000);
        let reports = defs
            .into_iter()
            .map(|d| {
                Report::new(d, &mut dict, max_rows)
                    .unwrap()
                    .with_exact_window(window(), 0)
            })
            .collect();
        World {
            dict,
            reports,
            log: Vec::new(),
            tick: 0,
            first_kept: 1,
        }
    }

    /// Adds a request in the next tick, or in the current one when the window is full (the next
    /// tick would push the oldest kept requests out).
    fn insert(&mut self, r: &Req) {
        if self.tick + 1 < self.first_kept + TICKS {
            self.tick += 1;
        }
        let (reports, dict) = (&mut self.reports, &mut self.dict);
        for rep in reports.iter_mut() {
            rep.advance(self.tick * TICK_MS);
            add_req(dict, rep, r);
        }
        self.log.push((self.tick, r.clone()));
    }

    /// Moves the window so that the `n` oldest requests still in it leave (fewer when the next one
    /// shares their tick).
    fn remove_oldest(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let live: Vec<u64> = self
            .log
            .iter()
            .map(|(t, _)| *t)
            .filter(|&t| t >= self.first_kept)
            .collect();
        let first_kept = match live.get(n) {
            Some(&t) => t,
            None => self.tick + 1,
        };
        self.first_kept = self.first_kept.max(first_kept);
        // The window holds ticks tick - TICKS + 1 ..= tick.
        self.tick = self.tick.max(self.first_kept + TICKS - 1);
        for rep in self.reports.iter_mut() {
            rep.advance(self.tick * TICK_MS);
        }
    }

    /// Report `i` built from scratch over the requests in its window (all in one tick), without
    /// a row limit.
    fn scratch(&mut self, i: usize) -> Report {
        let mut r = Report::new(self.reports[i].def.clone(), &mut self.dict, usize::MAX)
            .unwrap()
            .with_exact_window(window(), 0);
        r.advance(self.tick * TICK_MS);
        for (t, req) in &self.log {
            if *t >= self.first_kept {
                add_req(&mut self.dict, &mut r, req);
            }
        }
        r
    }

    fn query(&self, i: usize, q: &Query, interval: f64) -> Result<Table, ReportError> {
        self.reports[i].query(q, &self.dict, interval)
    }

    fn id(&self, s: &str) -> u32 {
        self.dict.lookup(s.as_bytes()).unwrap()
    }
}

type RowState = (Sums, Vec<(u16, u64)>);

/// The rows of `r` as its queries read them (open parts found by link), checked against the
/// same rows with each open part looked up by key.
fn rows_of(r: &Report) -> BTreeMap<Vec<u32>, RowState> {
    let state =
        |(k, row): (&[u32], RowRef<'_>)| (k.to_vec(), (row.sums, row.hist().iter().collect()));
    let linked: Vec<_> = View { report: r }.items().map(state).collect();
    let looked_up: BTreeMap<_, _> = r.items().map(state).collect();
    assert_eq!(
        linked.len(),
        looked_up.len(),
        "rows of {}: no row twice",
        r.def.name
    );
    let linked: BTreeMap<_, _> = linked.into_iter().collect();
    assert_eq!(
        linked, looked_up,
        "rows of {}: linked and looked up",
        r.def.name
    );
    linked
}

fn totals_of(r: &Report) -> RowState {
    let t = r.totals();
    (t.sums, t.hist().iter().collect())
}

fn def(name: &str, keys: &[&str]) -> ReportDef {
    ReportDef::new(name, keys)
}

fn with_filters(mut d: ReportDef, filters: &[(&str, FilterValue)]) -> ReportDef {
    d.filters = filters
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    d
}

fn column<'t>(t: &'t Table, row: usize, name: &str) -> &'t Cell {
    let i = t
        .columns
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    &t.rows[row][i]
}

fn total<'t>(t: &'t Table, name: &str) -> &'t Cell {
    let i = t.columns[t.key_columns..]
        .iter()
        .position(|c| c == name)
        .unwrap();
    &t.totals[i]
}

fn text(c: &Cell) -> &str {
    match c {
        Cell::Text(s) => s,
        other => panic!("not text: {other:?}"),
    }
}

fn float(c: &Cell) -> f64 {
    match c {
        Cell::Float(f) => *f,
        Cell::Int(i) => *i as f64,
        other => panic!("not a number: {other:?}"),
    }
}

fn q() -> Query {
    Query::default()
}

// ---- definitions -------------------------------------------------------------------------

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

#[test]
fn builtins_are_info_and_18_reports() {
    let defs = builtin_defs();
    assert_eq!(defs.len(), 19);
    assert_eq!(defs[0].name, "info");
    assert_eq!(defs[0].kind(), Kind::Info);
    for d in &defs {
        d.validate().unwrap();
    }
    assert!(defs
        .iter()
        .all(|d| d.name == "info" || d.name.starts_with("report_by_")));
    let by = defs
        .iter()
        .find(|d| d.name == "report_by_hostname_status_and_schema")
        .unwrap();
    assert_eq!(by.keys, vec!["hostname", "status", "schema"]);
}

#[test]
fn validation_names_what_is_wrong() {
    let cases: Vec<(ReportDef, &str)> = vec![
        (def("", &[]), "name"),
        (def("bad name", &[]), "' '"),
        (def(&"x".repeat(129), &[]), "128"),
        (def("..", &[]), "dots"),
        (def(".", &[]), "dots"),
        (def("r", &["colour"]), "colour"),
        (def("r", &["tag:"]), "empty tag name"),
        (def("r", &["script_name", "script_name"]), "twice"),
        (
            def(
                "r",
                &[
                    "tag:a", "tag:b", "tag:c", "tag:d", "tag:e", "tag:f", "tag:g", "tag:h",
                    "tag:i", "tag:j", "tag:k", "tag:l", "tag:m", "tag:n", "tag:o", "tag:p",
                ],
            ),
            "15",
        ),
        (
            with_filters(def("r", &[]), &[("colour", "red".into())]),
            "colour",
        ),
        (
            with_filters(def("r", &[]), &[("min_time", "soon".into())]),
            "min_time",
        ),
        (
            with_filters(
                def("r", &[]),
                &[("min_time", 2.0.into()), ("max_time", 1.into())],
            ),
            "min_time",
        ),
        (
            with_filters(def("r", &[]), &[("status", (-1).into())]),
            "status",
        ),
        (
            with_filters(def("r", &[]), &[("script_name", 1.5.into())]),
            "script_name",
        ),
        (
            ReportDef {
                percentiles: vec![101.0],
                ..def("r", &[])
            },
            "101",
        ),
        (
            ReportDef {
                percentiles: vec![50.0, 50.0],
                ..def("r", &[])
            },
            "twice",
        ),
        (
            ReportDef {
                percentiles: vec![f64::NAN],
                ..def("r", &[])
            },
            "NaN",
        ),
        (
            ReportDef {
                preset: Some("nope".into()),
                tags: vec!["a".into()],
                ..def("r", &[])
            },
            "nope",
        ),
        (
            ReportDef {
                preset: Some("tag_info".into()),
                ..def("r", &[])
            },
            "tags",
        ),
        (
            ReportDef {
                tags: vec!["a".into()],
                ..def("r", &[])
            },
            "preset",
        ),
    ];
    for (d, needle) in cases {
        let e = d.validate().unwrap_err().to_string();
        assert!(e.contains(needle), "{d:?}: `{e}` lacks `{needle}`");
    }
    def("ok:name.with,all-chars_1", &["tag:a:b"])
        .validate()
        .unwrap();
}

#[test]
fn presets_expand_to_the_families() {
    let p = |preset: &str| ReportDef {
        preset: Some(preset.into()),
        tags: vec!["group".into(), "server".into()],
        ..def("r", &[])
    };
    assert_eq!(
        p("timer_tag_info").resolved_keys().unwrap(),
        vec!["timer_tag:group", "timer_tag:server"]
    );
    assert_eq!(
        p("tag_report").resolved_keys().unwrap(),
        vec!["script_name", "timer_tag:group", "timer_tag:server"]
    );
    assert_eq!(
        p("timer_tag_report2").resolved_keys().unwrap(),
        vec![
            "script_name",
            "hostname",
            "server_name",
            "timer_tag:group",
            "timer_tag:server"
        ]
    );
    assert_eq!(
        p("rtag_info").resolved_keys().unwrap(),
        vec!["tag:group", "tag:server"]
    );
    assert_eq!(
        p("request_tag_report").resolved_keys().unwrap(),
        vec!["hostname", "tag:group", "tag:server"]
    );
    assert_eq!(p("timer_tag_report").kind(), Kind::Timer);
    assert_eq!(p("request_tag_report").kind(), Kind::Request);
    let mut dict = Dictionary::new(100);
    let r = Report::new(p("timer_tag_report"), &mut dict, 10).unwrap();
    assert_eq!(
        r.keys(),
        &["script_name", "timer_tag:group", "timer_tag:server"]
    );
    assert_eq!(r.kind(), Kind::Timer);
}

#[test]
fn definitions_parse_from_toml_and_json() {
    let text = r#"
        name = "slow"
        keys = ["script_name", "tag:country"]
        percentiles = [50, 99.9]
        [filters]
        min_time = 0.1
        max_time = 2
        status = 200
        "tag:country" = "nl"
        "timer_tag:group" = "db"
    "#;
    let d: ReportDef = toml::from_str(text).unwrap();
    d.validate().unwrap();
    assert_eq!(d.percentiles, vec![50.0, 99.9]);
    assert_eq!(d.filters["min_time"], FilterValue::Float(0.1));
    assert_eq!(d.filters["max_time"], FilterValue::Int(2));
    assert_eq!(d.filters["tag:country"], FilterValue::Text("nl".into()));
    // Round trips through TOML (the config prints itself) and JSON (the state file).
    let back: ReportDef = toml::from_str(&toml::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
    let back: ReportDef = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
    let j: ReportDef = serde_json::from_str(
        r#"{"name": "x", "filters": {"status": 404, "script_name": "/x.php"}}"#,
    )
    .unwrap();
    assert_eq!(j.percentiles, DEFAULT_PERCENTILES.to_vec());
    assert!(j.keys.is_empty());
    let e = serde_json::from_str::<ReportDef>(r#"{"name": "x", "kyes": []}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("kyes"), "{e}");
}

#[test]
fn new_pins_names_and_values_and_release_unpins() {
    let mut dict = Dictionary::new(100);
    let d = with_filters(
        def("r", &["tag:country"]),
        &[
            ("script_name", "/x".into()),
            ("timer_tag:group", "db".into()),
        ],
    );
    let mut r = Report::new(d, &mut dict, 10).unwrap();
    assert_eq!(dict.len(), 4);
    dict.sweep(1);
    assert_eq!(dict.len(), 4, "pinned");
    r.release(&mut dict);
    r.release(&mut dict);
    dict.sweep(1);
    assert_eq!(dict.len(), 0);
    // A full dictionary is an error, and pins taken so far are given back.
    let mut small = Dictionary::new(1);
    let e = Report::new(def("r", &["tag:a", "tag:b"]), &mut small, 10).unwrap_err();
    assert!(e.to_string().contains("dictionary full"), "{e}");
    assert_eq!(e.1, Refusal::Full, "not the definition's fault");
    small.sweep(1);
    assert_eq!(
        small.len(),
        0,
        "the pin taken before the failure was given back"
    );
}

// ---- the engine ---------------------------------------------------------------------------

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

// ---- columns and queries -----------------------------------------------------------------

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
         memory_footprint_percent req_time_median p50 p99.9"
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

// ---- the set and persistence --------------------------------------------------------------

#[test]
fn report_set_inserts_gets_and_removes() {
    let mut dict = Dictionary::new(100);
    let set = ReportSet::default();
    set.insert(Report::new(builtin_defs().remove(0), &mut dict, 10).unwrap())
        .unwrap();
    set.insert(Report::new(def("x", &["tag:a"]), &mut dict, 10).unwrap())
        .unwrap();
    let (e, mut back) = set
        .try_insert(Report::new(def("x", &[]), &mut dict, 10).unwrap())
        .unwrap_err();
    assert!(e.to_string().contains("already exists"));
    back.release(&mut dict);
    assert_eq!(
        set.snapshot()
            .iter()
            .map(|c| c.name().to_string())
            .collect::<Vec<_>>(),
        vec!["info", "x"]
    );
    assert!(set.get("info").unwrap().builtin());
    assert!(!set.get("x").unwrap().builtin());
    let cell = set.get("x").unwrap();
    cell.instrument.record(None, 10);
    assert_eq!(cell.instrument.count(), 10);
    assert_eq!(cell.instrument.name(), "report:x");
    assert_eq!(cell.update_ns_per_request(), 0.0, "untimed");
    let gone = set.remove("x").unwrap();
    gone.report.write().release(&mut dict);
    dict.sweep(1);
    assert_eq!(dict.len(), 0);
    assert!(set.get("x").is_none() && set.remove("x").is_none());
    assert_eq!(set.len(), 1);
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pinbad-report-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn state_file_round_trips_and_replays() {
    let dir = temp_dir("state");
    assert_eq!(load_state(&dir).unwrap(), None);
    let mut config = Config {
        state_dir: dir.clone(),
        ..Config::default()
    };
    config.report.push(def("configured", &["hostname"]));
    assert_eq!(
        initial_defs(config.builtin_reports, &config.report, &config.state_dir)
            .unwrap()
            .len(),
        20
    );

    let set = ReportSet::default();
    let created = with_filters(
        def("by_country", &["tag:country"]),
        &[("status", 200.into())],
    );
    set.persist_change(&set.lock_changes(), &dir, |s| s.record_create(&created))
        .unwrap();
    set.persist_change(&set.lock_changes(), &dir, |s| {
        s.record_delete("report_by_status", true)
    })
    .unwrap();
    set.persist_change(&set.lock_changes(), &dir, |s| s.record_delete("info", true))
        .unwrap();
    // Re-creating a deleted built-in with other keys: the new one replaces it.
    let info2 = def("info", &["hostname"]);
    set.persist_change(&set.lock_changes(), &dir, |s| s.record_create(&info2))
        .unwrap();
    let state = load_state(&dir).unwrap().unwrap();
    assert_eq!(state.created, vec![created.clone(), info2.clone()]);
    assert_eq!(state.deleted, vec!["report_by_status", "info"]);

    let defs = initial_defs(config.builtin_reports, &config.report, &config.state_dir).unwrap();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert!(!names.contains(&"report_by_status"));
    assert!(names.contains(&"configured"));
    assert_eq!(&names[names.len() - 2..], ["by_country", "info"]);
    assert_eq!(defs.iter().find(|d| d.name == "info").unwrap(), &info2);

    // Deleting a run-time report forgets it; built-ins can be turned off entirely.
    set.persist_change(&set.lock_changes(), &dir, |s| {
        s.record_delete("by_country", false)
    })
    .unwrap();
    config.builtin_reports = false;
    let names: Vec<String> =
        initial_defs(config.builtin_reports, &config.report, &config.state_dir)
            .unwrap()
            .into_iter()
            .map(|d| d.name)
            .collect();
    assert_eq!(names, vec!["configured", "info"]);

    std::fs::write(dir.join(STATE_FILE), "{not json").unwrap();
    let e = initial_defs(config.builtin_reports, &config.report, &config.state_dir)
        .unwrap_err()
        .to_string();
    assert!(e.contains(STATE_FILE), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- properties ---------------------------------------------------------------------------

fn one_of<T: Clone + std::fmt::Debug + 'static>(xs: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(xs)
}

fn arb_tags(
    names: &'static [&'static str],
    values: &'static [&'static str],
) -> impl Strategy<Value = Vec<(&'static str, &'static str)>> {
    proptest::collection::vec((one_of(names), one_of(values)), 0..3)
}

fn arb_req() -> impl Strategy<Value = Req> {
    let time = prop_oneof![
        one_of(&[0.0f32, 0.000_5, 0.001, 0.05, 0.2, 1.5]),
        0.0f32..3.0
    ];
    let timer = (
        prop_oneof![one_of(&[0.0f32, 0.01, 0.1]), 0.0f32..1.0],
        0u32..4,
        arb_tags(&["group", "server"], &["db", "cache", "m1"]),
    );
    (
        (
            one_of(&["h0", "h1"]),
            one_of(&["s0", "s1"]),
            one_of(&["/a", "/b", "/c"]),
        ),
        (
            one_of(&[None, Some("http"), Some("https")]),
            one_of(&[200u32, 404, 500]),
            time,
        ),
        (
            0u32..5000,
            arb_tags(&["country", "app"], &["nl", "de", "x"]),
        ),
        proptest::collection::vec(timer, 0..4),
    )
        .prop_map(
            |((host, server, script), (schema, status, time), (doc, tags), timers)| Req {
                host,
                server,
                script,
                schema,
                status,
                time,
                ru_utime: time / 3.0,
                ru_stime: time / 7.0,
                doc,
                mem: doc * 3,
                tags,
                timers,
            },
        )
}

fn property_defs() -> Vec<ReportDef> {
    vec![
        def("info", &[]),
        def("script", &["script_name"]),
        def("host_status_schema", &["hostname", "status", "schema"]),
        def("country", &["tag:country"]),
        def("group", &["timer_tag:group"]),
        def(
            "mixed",
            &[
                "script_name",
                "timer_tag:group",
                "tag:app",
                "timer_tag:server",
            ],
        ),
        with_filters(
            def("group_on_m1", &["timer_tag:group"]),
            &[("timer_tag:server", "m1".into())],
        ),
        with_filters(
            def("filtered", &["script_name", "server_name"]),
            &[
                ("min_time", 0.01.into()),
                ("status", 200.into()),
                ("timer_tag:group", "db".into()),
            ],
        ),
        with_filters(
            def("nl", &["status"]),
            &[("tag:country", "nl".into()), ("max_time", 1.into())],
        ),
    ]
}

/// Inserting requests and letting the window move over them, in any interleaving, leaves every
/// report equal to one built from scratch over the requests inside its window; with a row
/// limit, every kept row is still exact. Once everything left, the reports are empty and a
/// dictionary sweep leaves only the reports' pins.
fn check_incremental(ops: &[(Req, usize)], max_rows: usize) -> Result<(), TestCaseError> {
    let mut w = World::new(property_defs(), max_rows);
    for (r, remove) in ops {
        w.insert(r);
        w.remove_oldest(*remove);
        for i in 0..w.reports.len() {
            let scratch = w.scratch(i);
            let (inc, full) = (rows_of(&w.reports[i]), rows_of(&scratch));
            prop_assert_eq!(
                totals_of(&w.reports[i]),
                totals_of(&scratch),
                "totals of {}",
                w.reports[i].def.name
            );
            prop_assert!(inc.len() <= max_rows);
            prop_assert_eq!(inc.len(), w.reports[i].rows());
            if max_rows == usize::MAX {
                prop_assert_eq!(&inc, &full, "rows of {}", w.reports[i].def.name);
            } else {
                for (k, v) in &inc {
                    prop_assert_eq!(
                        Some(v),
                        full.get(k),
                        "row {:?} of {}",
                        k,
                        w.reports[i].def.name
                    );
                }
            }
        }
    }
    w.remove_oldest(usize::MAX);
    for r in &w.reports {
        prop_assert_eq!(r.rows(), 0);
        prop_assert_eq!(totals_of(r), (Sums::default(), vec![]));
    }
    w.dict.set_now(10);
    w.dict.sweep(10);
    prop_assert_eq!(w.dict.len(), property_pins(&w));
    Ok(())
}

/// Dictionary entries still alive once the reports are empty and swept: only the reports' pins.
fn property_pins(w: &World) -> usize {
    let mut ids: Vec<u32> = w
        .reports
        .iter()
        .flat_map(|r| r.pins.iter().copied())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.len()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn incremental_equals_from_scratch(
        ops in proptest::collection::vec((arb_req(), prop_oneof![3 => Just(0usize), 1 => 1usize..3]), 1..40),
    ) {
        check_incremental(&ops, usize::MAX)?;
    }

    #[test]
    fn row_limit_keeps_rows_exact(
        ops in proptest::collection::vec((arb_req(), prop_oneof![3 => Just(0usize), 1 => 1usize..3]), 1..40),
        max_rows in 1usize..4,
    ) {
        check_incremental(&ops, max_rows)?;
    }
}

/// Memory per row over a 15-minute window (60 ticks of 15 s), histograms included: rows present
/// in every tick, each with 8 requests per tick spread over several histogram buckets. The
/// figure BENCHMARKS.md states (`cargo test --release --lib memory_per_row -- --nocapture`).
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
                add_req(&mut dict, &mut r, &req(s, ms as f32 / 1000.0));
            }
        }
    }
    assert_eq!(r.rows(), 1000);
    assert_eq!(r.total_requests(), 60 * 1000 * 8, "60 ticks in the window");
    let per_row = r.memory_bytes() as f64 / r.rows() as f64;
    eprintln!("memory per row over a 15-minute window of 60 ticks: {per_row:.0} B");
    assert!(per_row < 16_000.0, "{per_row}");
}

/// A closed tick's row keeps its sums and histogram exactly: narrowed (counts in 32 bits, sums in
/// 64, histogram buckets in 32 bits) when they fit, whole otherwise.
#[test]
fn closed_tick_rows_narrow_only_what_fits() {
    let mut s = Sums {
        req_count: u32::MAX as u64,
        hit_count: u32::MAX as u64 - 1,
        ..Sums::default()
    };
    s.time_ns = Sum96::from(u64::MAX);
    s.memory_footprint_bytes = Sum96::from(7);
    let narrow = NarrowSums::of(&s).expect("fits");
    assert_eq!(narrow.widen(), s);
    for wider in [
        Sums {
            req_count: 1 << 32,
            ..s
        },
        Sums {
            hit_count: 1 << 32,
            ..s
        },
        Sums {
            time_ns: Sum96::saturating_from(1 << 64),
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

/// `reqs` interned and prepared as a merge round.
fn prepared(dict: &mut Dictionary, reqs: &[Req]) -> PreparedBatch {
    let mut batch = PreparedBatch::default();
    for (record, timers, block) in reqs.iter().map(|r| intern_req(dict, r)) {
        batch.push(&RequestView {
            id: 0,
            record: &record,
            tag_block: &block,
            timers: &timers,
        });
    }
    batch
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

// ---- families ---------------------------------------------------------------------------------

/// The property reports plus projections of some of them, so that request, request-tag, timer
/// and filtered families form.
fn family_defs() -> Vec<ReportDef> {
    let mut defs = property_defs();
    defs.extend([
        def("host_script", &["hostname", "script_name"]),
        def("status", &["status"]),
        def("country_host", &["hostname", "tag:country"]),
        def("script_group", &["script_name", "timer_tag:group"]),
        def(
            "group_server_host",
            &[
                "timer_tag:server",
                "hostname",
                "timer_tag:group",
                "tag:app",
                "script_name",
            ],
        ),
        with_filters(
            def("filtered_status", &["status"]),
            &[
                ("min_time", 0.01.into()),
                ("status", 200.into()),
                ("timer_tag:group", "db".into()),
            ],
        ),
    ]);
    defs
}

/// Feeds the same requests, at the same times, to standalone reports and to the same reports in
/// families (stage updated per request, drained at ticks and at random "queries"); every member
/// always equals its standalone twin once drained. With a row limit, every row a member keeps is
/// exact. An op's mask, when set, says from then on which reports count as queried (bit `i % 8`
/// for the `i`th report): members detach from their stage and rejoin it at random.
type FamilyOp = (Req, u64, bool, Option<u8>);
fn check_families(ops: &[FamilyOp], max_rows: usize) -> Result<(), TestCaseError> {
    let win = window_of_ticks(4);
    let mut dict = Dictionary::new(1_000_000);
    let defs = family_defs();
    let mut make = |limit: usize| -> Vec<Report> {
        defs.iter()
            .map(|d| {
                let mut r = Report::new(d.clone(), &mut dict, limit)
                    .unwrap()
                    .with_exact_window(win, 0);
                r.keep_closed_ticks();
                r
            })
            .collect()
    };
    let mut alone = make(usize::MAX);
    let mut grouped = make(max_rows);
    let families = form_families(&mut grouped, true);
    let sizes: Vec<usize> = families.iter().map(|(m, _)| m.len()).collect();
    prop_assert_eq!(
        sizes,
        vec![5, 2, 2, 2, 2],
        "families: request, country, group, mixed, filtered"
    );
    let cells = in_families(grouped, families);
    let compare = |alone: &[Report], dict: &Dictionary| -> Result<(), TestCaseError> {
        // Queries of members: the same table as the standalone report's.
        if max_rows == usize::MAX {
            let all = Query {
                limit: Some(1000),
                percentiles: Some(vec![50.0, 99.0]),
                ..q()
            };
            for (a, cell) in alone.iter().zip(&cells) {
                // As the API does: a member is detached from its stage first. The log is not
                // applied: queries read its samples for the rows they show.
                if let Some(f) = cell.family() {
                    f.detach_for_query(cell);
                }
                let r = cell.report.read();
                let mine = r.query(&all, dict, 1.0).unwrap();
                let theirs = a.query(&all, dict, 1.0).unwrap();
                prop_assert_eq!(
                    serde_json::to_value(&mine).unwrap(),
                    serde_json::to_value(&theirs).unwrap(),
                    "query of {}",
                    a.def.name
                );
            }
        }
        // Drained, every member's rows are exactly the standalone report's.
        for cell in &cells {
            if let Some(f) = cell.family() {
                f.drain();
            }
        }
        for (a, cell) in alone.iter().zip(&cells) {
            cell.apply_hist_log();
            let r = cell.report.read();
            let (mine, theirs) = (rows_of(&r), rows_of(a));
            prop_assert_eq!(totals_of(&r), totals_of(a), "totals of {}", a.def.name);
            prop_assert_eq!(mine.len(), r.rows(), "rows of {}", a.def.name);
            if max_rows == usize::MAX {
                prop_assert_eq!(&mine, &theirs, "rows of {}", a.def.name);
                prop_assert_eq!(r.rows_lost(), 0);
            } else {
                prop_assert!(mine.len() <= max_rows);
                for (k, v) in &mine {
                    prop_assert_eq!(Some(v), theirs.get(k), "row {:?} of {}", k, a.def.name);
                }
            }
        }
        Ok(())
    };
    let mut now = 0;
    let mut mask = 0u8;
    let queried = |mask: u8, c: &ReportCell| {
        cells
            .iter()
            .position(|x| std::ptr::eq(&**x, c))
            .is_some_and(|i| mask >> (i % 8) & 1 == 1)
    };
    // A round of the merge threads, one after the other: a leader counts the round into its
    // stage, its detached members and the members on its thread; the members on the other
    // thread take their turn at the frozen stage themselves, before or after their leader.
    let leaders = round_leaders(&cells);
    // Each thread gives one member a turn per round (as the merger does).
    let round = |now: u64, batch: &PreparedBatch, mask: u8| {
        let mut turned = [false; 2];
        for (i, cell) in cells.iter().enumerate() {
            let w = cell.worker();
            match cell.family() {
                Some(f) if leaders[i] == i => {
                    let round =
                        f.update(now, batch, |c| queried(mask, c), (!turned[w]).then_some(w));
                    turned[w] |= round.handed;
                    for c in round.detached {
                        let mut rep = c.report.write();
                        rep.advance(now);
                        rep.add_batch(batch);
                    }
                }
                Some(f) => {
                    if w != cells[leaders[i]].worker() && !turned[w] {
                        turned[w] = f.take_turn(cell);
                    }
                }
                None => {
                    let mut rep = cell.report.write();
                    rep.advance(now);
                    rep.add_batch(batch);
                }
            }
        }
    };
    for (r, step, query, new_mask) in ops {
        now += step;
        if let Some(m) = new_mask {
            mask = *m;
            // The balancer moves reports between the two threads now and then (between rounds).
            for (i, c) in cells.iter().enumerate() {
                c.set_worker((mask >> ((i + 4) % 8) & 1) as usize);
            }
        }
        let batch = prepared(&mut dict, std::slice::from_ref(r));
        for a in alone.iter_mut() {
            a.advance(now);
            for v in batch.views() {
                a.add(&v);
            }
        }
        round(now, &batch, mask);
        if *query {
            compare(&alone, &dict)?;
        }
    }
    // Everything leaves the window.
    now += 10 * TICK_MS;
    for a in alone.iter_mut() {
        a.advance(now);
    }
    round(now, &PreparedBatch::default(), mask);
    compare(&alone, &dict)?;
    for cell in &cells {
        prop_assert_eq!(cell.report.read().rows(), 0, "{} empties", cell.name());
    }
    // The ticks handed to the history writer: a member closes the same ticks as its standalone
    // twin (families need nothing special for history).
    if max_rows == usize::MAX {
        for (a, cell) in alone.iter_mut().zip(&cells) {
            let (mine, lost) = cell.report.write().take_closed_ticks();
            let (theirs, _) = a.take_closed_ticks();
            prop_assert_eq!(lost, 0);
            if a.def.name == "script" {
                // Unfiltered: its ticks hold every request sent.
                let counted: u64 = ticks_of(&mine).iter().map(|t| t.1.req_count).sum();
                prop_assert_eq!(counted, ops.len() as u64);
            }
            prop_assert_eq!(
                ticks_of(&mine),
                ticks_of(&theirs),
                "ticks of {}",
                a.def.name
            );
        }
    }
    Ok(())
}

/// Closed ticks as comparable values: per tick with data, its index, totals and rows by key.
type TickView = (
    u64,
    Sums,
    Vec<(u16, u64)>,
    BTreeMap<Vec<u32>, (Sums, Vec<(u16, u64)>)>,
);
fn ticks_of(ticks: &[Arc<ClosedTick>]) -> Vec<TickView> {
    ticks
        .iter()
        .filter(|t| t.totals().0 != &Sums::default())
        .map(|t| {
            let rows = t
                .rows()
                .map(|(k, s, h)| (k.to_vec(), (s, h.iter().collect())))
                .collect();
            (
                t.index(),
                *t.totals().0,
                t.totals().1.iter().collect(),
                rows,
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn family_members_equal_standalone_reports(
        ops in proptest::collection::vec(
            (
                arb_req(),
                prop_oneof![3 => Just(0u64), 2 => 1u64..700, 1 => 700u64..3000],
                proptest::bool::weighted(0.3),
                prop_oneof![4 => Just(None), 1 => any::<u8>().prop_map(Some)],
            ),
            1..60),
    ) {
        check_families(&ops, usize::MAX)?;
    }

    #[test]
    fn family_members_with_a_row_limit_keep_exact_rows(
        ops in proptest::collection::vec(
            (
                arb_req(),
                prop_oneof![3 => Just(0u64), 2 => 1u64..700, 1 => 700u64..3000],
                proptest::bool::weighted(0.3),
                prop_oneof![4 => Just(None), 1 => any::<u8>().prop_map(Some)],
            ),
            1..60),
        max_rows in 1usize..4,
    ) {
        check_families(&ops, max_rows)?;
    }
}

#[test]
fn families_form_only_from_projections_with_equal_filters_tags_and_windows() {
    let mut dict = Dictionary::new(1000);
    let mut reports: Vec<Report> = [
        def("a", &["script_name"]),
        def("b", &["hostname", "script_name"]),
        def("c", &["tag:x"]),
        with_filters(def("d", &["script_name"]), &[("status", 200.into())]),
        ReportDef {
            history: Some(crate::units::HumanDuration(std::time::Duration::from_secs(
                60,
            ))),
            ..def("e", &["status"])
        },
        def("f", &["timer_tag:g"]),
        def("g", &["hostname", "timer_tag:g"]),
    ]
    .into_iter()
    .map(|d| {
        Report::new(d, &mut dict, 100).unwrap().with_window(
            std::time::Duration::from_secs(900),
            60,
            0,
        )
    })
    .collect();
    let families = form_families(&mut reports, true);
    let members: Vec<Vec<usize>> = families.iter().map(|(m, _)| m.clone()).collect();
    assert_eq!(members, vec![vec![0, 1], vec![5, 6]]);
    // Members share the first one's phase; the stage keys on the union of their keys.
    assert_eq!(reports[1].window().phase_ms, reports[0].window().phase_ms);
    assert_eq!(reports[6].window().phase_ms, reports[5].window().phase_ms);
    assert_eq!(families[0].1.keys, vec![Key::Hostname, Key::ScriptName]);
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

/// `reports` as cells of a set, each member of `families` (from `form_families`) joined to its
/// family.
fn in_families(reports: Vec<Report>, families: Vec<(Vec<usize>, Report)>) -> Vec<Arc<ReportCell>> {
    let set = ReportSet::default();
    let cells: Vec<Arc<ReportCell>> = reports
        .into_iter()
        .map(|r| set.try_insert(r).unwrap())
        .collect();
    for (members, stage) in families {
        let member_cells: Vec<_> = members.iter().map(|&i| Arc::clone(&cells[i])).collect();
        let family = Arc::new(Family::new(stage, &member_cells));
        for c in &member_cells {
            c.join(Arc::clone(&family));
        }
    }
    cells
}

/// `reports`, all of one family, as cells of a set joined to it.
fn one_family(mut reports: Vec<Report>) -> (Arc<Family>, Vec<Arc<ReportCell>>) {
    let families = form_families(&mut reports, true);
    assert_eq!(families.len(), 1, "one family");
    assert_eq!(
        families[0].0,
        (0..reports.len()).collect::<Vec<_>>(),
        "one family of all"
    );
    let cells = in_families(reports, families);
    let family = Arc::clone(cells[0].family().unwrap());
    (family, cells)
}

/// A round's leader of each family is its first member among the round's reports, in whatever
/// order the round lists them; when that member is not in the round (dropped), the next one
/// leads. Reports in no family have none.
#[test]
fn each_family_is_led_by_its_first_member_in_the_round() {
    let mut dict = Dictionary::new(1000);
    let mut reports: Vec<Report> = [
        def("script", &["script_name"]),
        def("tag", &["tag:x"]),
        def("host_script", &["hostname", "script_name"]),
        def("tag_script", &["tag:x", "script_name"]),
        def("status", &["status"]),
        def("lone_timer", &["timer_tag:y"]),
    ]
    .into_iter()
    .map(|d| Report::new(d, &mut dict, 100).unwrap())
    .collect();
    let families = form_families(&mut reports, true);
    let cells = in_families(reports, families);
    let led = |order: &[usize]| -> Vec<(String, Option<String>)> {
        let round: Vec<Arc<ReportCell>> = order.iter().map(|&i| Arc::clone(&cells[i])).collect();
        round_leaders(&round)
            .iter()
            .zip(&round)
            .map(|(&l, c)| {
                let leader = (l != usize::MAX).then(|| round[l].name().to_string());
                (c.name().to_string(), leader)
            })
            .collect()
    };
    let of = |v: &[(&str, Option<&str>)]| -> Vec<(String, Option<String>)> {
        v.iter()
            .map(|(n, l)| (n.to_string(), l.map(str::to_string)))
            .collect()
    };
    assert_eq!(
        led(&[3, 2, 5, 1, 0, 4]),
        of(&[
            ("tag_script", Some("tag")),
            ("host_script", Some("script")),
            ("lone_timer", None),
            ("tag", Some("tag")),
            ("script", Some("script")),
            ("status", Some("script")),
        ])
    );
    // `script` and `tag` left the set: the next members lead.
    assert_eq!(
        led(&[4, 3, 2]),
        of(&[
            ("status", Some("host_script")),
            ("tag_script", Some("tag_script")),
            ("host_script", Some("host_script")),
        ])
    );
}

/// A member queries read is detached: the query makes it take what the stage holds for it, so it
/// holds every request merged so far, and from then on the merge thread updates it directly; a
/// member no longer queried rejoins the stage once the stage was drained, with no request
/// counted twice or missed. The merge thread detaches a queried member too (a query that did
/// not do it itself: tests).
#[test]
fn a_queried_member_detaches_from_its_stage_and_rejoins_it() {
    let mut dict = Dictionary::new(1000);
    let win = Window {
        history_ms: 60 * TICK_MS,
        tick_ms: 60 * TICK_MS,
        ticks: 1,
        phase_ms: 0,
    };
    let reports: Vec<Report> = [
        def("script", &["script_name"]),
        def("host_script", &["hostname", "script_name"]),
    ]
    .into_iter()
    .map(|d| {
        Report::new(d, &mut dict, 100)
            .unwrap()
            .with_exact_window(win, 0)
    })
    .collect();
    let (family, cells) = one_family(reports);
    let (script, host_script) = (&cells[0], &cells[1]);
    let batch = prepared(&mut dict, &[Req::default()]);
    let mut sent = 0;
    // One round: the family's step, then the detached members' own updates.
    let mut round = |now: u64, queried: &[&str]| -> Vec<String> {
        sent += 1;
        let detached = family
            .update(now, &batch, |c| queried.contains(&c.name()), Some(0))
            .detached;
        for c in &detached {
            let mut r = c.report.write();
            r.advance(now);
            r.add_batch(&batch);
        }
        detached.iter().map(|c| c.name().to_string()).collect()
    };
    let total = |cell: &ReportCell| cell.report.read().total_requests();
    assert!(round(100, &[]).is_empty());
    assert_eq!(total(script), 0, "the stage holds the request");
    // A query detaches the member at once: it then holds everything itself.
    family.detach_for_query(script);
    assert_eq!(total(script), 1);
    assert_eq!(round(200, &["script"]), ["script"]);
    assert_eq!(total(script), 2, "updated directly");
    assert_eq!(
        total(host_script),
        0,
        "the other member still through the stage"
    );
    // The merge thread detaches a member queried lately.
    assert_eq!(
        round(300, &["script", "host_script"]),
        ["script", "host_script"]
    );
    assert_eq!(total(host_script), 3);
    // Both detached: nobody needs the stage, which is kept empty, so one no longer queried
    // rejoins at once.
    assert_eq!(round(400, &["script"]), ["script"]);
    // The other, no longer queried, stays detached while the stage holds requests it has...
    assert_eq!(round(500, &[]), ["script"]);
    assert_eq!(total(script), 5);
    assert_eq!(round(500 + family::DRAIN_EVERY_MS, &[]), ["script"]);
    // ... until the periodic drain empties the stage.
    assert!(
        round(600 + family::DRAIN_EVERY_MS, &[]).is_empty(),
        "rejoined"
    );
    for c in &cells {
        assert_eq!(
            total(c),
            sent - 1,
            "{}: the last request is in the stage",
            c.name()
        );
    }
    family.drain();
    for c in &cells {
        assert_eq!(total(c), sent, "{} drained", c.name());
    }
}

/// Queries detach members on their own thread while the merge thread runs the family's rounds
/// (ticks, drains, expiry) and detaches and rejoins members as the queried flags change: once
/// both stop, every member equals its standalone twin, closed ticks included, whatever the
/// interleaving was.
#[test]
fn detaching_queries_racing_the_merge_thread_lose_and_double_nothing() {
    use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};
    let win = window_of_ticks(4);
    let mut dict = Dictionary::new(100_000);
    let defs = [
        def("info", &[]),
        def("script", &["script_name"]),
        def("host_script", &["hostname", "script_name"]),
        def("script_status", &["script_name", "status"]),
    ];
    let make = |dict: &mut Dictionary| -> Vec<Report> {
        defs.iter()
            .map(|d| {
                let mut r = Report::new(d.clone(), dict, usize::MAX)
                    .unwrap()
                    .with_exact_window(win, 0);
                r.keep_closed_ticks();
                r
            })
            .collect()
    };
    let mut alone = make(&mut dict);
    let grouped = make(&mut dict);
    let (family, cells) = one_family(grouped);
    let mut rng = crate::corpus::SplitMix64::new(11);
    // Stages of hundreds of rows, so that a member's turn on the other thread takes a while
    // (the leader's rounds meet it busy), and a tick ends every ~3 rounds.
    let scripts: Vec<&'static str> = (0..300)
        .map(|i| &*Box::leak(format!("/s{i}").into_boxed_str()))
        .collect();
    let batches: Vec<PreparedBatch> = (0..400)
        .map(|_| {
            let reqs: Vec<Req> = (0..1 + rng.next_u64() % 120)
                .map(|_| Req {
                    host: ["h0", "h1"][(rng.next_u64() % 2) as usize],
                    script: scripts[(rng.next_u64() % 300) as usize],
                    status: [200, 404][(rng.next_u64() % 2) as usize],
                    time: (1 + rng.next_u64() % 1000) as f32 / 1e3,
                    ..Req::default()
                })
                .collect();
            prepared(&mut dict, &reqs)
        })
        .collect();
    let queried = AtomicU8::new(0);
    let done = AtomicBool::new(false);
    let ops = std::sync::atomic::AtomicUsize::new(0);
    let mut detaches = 0;
    let mut rejoins_seen = 0;
    // Two members are on the other merge thread: they take their turns at the frozen stage
    // there, racing the leader's rounds (tick ends wait for them) and the queries' detaches.
    cells[2].set_worker(1);
    cells[3].set_worker(1);
    let turns = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Relaxed) {
                for c in &cells[2..] {
                    turns.fetch_add(usize::from(family.take_turn(c)), Relaxed);
                }
                std::thread::yield_now();
            }
        });
        s.spawn(|| {
            // The query thread: marks members queried and detaches them, or stops querying
            // some (they rejoin), at its own pace.
            let mut rng = crate::corpus::SplitMix64::new(12);
            while !done.load(Relaxed) {
                let i = (rng.next_u64() % 4) as usize;
                if rng.next_u64().is_multiple_of(3) {
                    queried.fetch_and(!(1 << i), Relaxed);
                } else {
                    queried.fetch_or(1 << i, Relaxed);
                    family.detach_for_query(&cells[i]);
                    let _ = cells[i].report.read().query(&q(), &dict, 1.0);
                }
                ops.fetch_add(1, Relaxed);
                std::thread::yield_now();
            }
        });
        // The merge thread.
        let mut was_detached = [false; 4];
        for (round, batch) in batches.iter().enumerate() {
            // Each round waits for a query thread's step, so that the two interleave (they
            // still race within the round).
            let (seen, deadline) = (
                ops.load(Relaxed),
                std::time::Instant::now() + std::time::Duration::from_secs(20),
            );
            while ops.load(Relaxed) == seen {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the query thread made no step"
                );
                std::thread::yield_now();
            }
            let now = round as u64 * 337;
            let mask = queried.load(Relaxed);
            let detached = family
                .update(
                    now,
                    batch,
                    |c| {
                        let i = cells.iter().position(|x| std::ptr::eq(&**x, c)).unwrap();
                        mask >> i & 1 == 1
                    },
                    Some(0),
                )
                .detached;
            let mut is_detached = [false; 4];
            for c in &detached {
                let i = cells.iter().position(|x| Arc::ptr_eq(x, c)).unwrap();
                is_detached[i] = true;
                let mut r = c.report.write();
                r.advance(now);
                r.add_batch(batch);
                // As the merger's update of a detached member counts it.
                c.instrument.record(None, batch.len() as u64);
            }
            for i in 0..4 {
                detaches += usize::from(is_detached[i] && !was_detached[i]);
                rejoins_seen += usize::from(!is_detached[i] && was_detached[i]);
            }
            was_detached = is_detached;
            for a in alone.iter_mut() {
                a.advance(now);
                for v in batch.views() {
                    a.add(&v);
                }
            }
        }
        done.store(true, Relaxed);
    });
    assert!(
        detaches > 0 && rejoins_seen > 0,
        "{detaches} detaches, {rejoins_seen} rejoins"
    );
    assert!(
        turns.load(Relaxed) > 0,
        "the other thread's members took no turn"
    );
    family.drain();
    // Each member counted every request once: attached, by the leader's step, under the lock a
    // query's detachment takes (counted after it, a member detached in between missed a round).
    let requests: u64 = batches.iter().map(|b| b.len() as u64).sum();
    for cell in &cells {
        assert_eq!(cell.instrument.count(), requests, "{}", cell.name());
    }
    for (a, cell) in alone.iter_mut().zip(&cells) {
        let mut r = cell.report.write();
        r.flush_hist();
        assert_eq!(rows_of(&r), rows_of(a), "rows of {}", a.def.name);
        assert_eq!(totals_of(&r), totals_of(a), "totals of {}", a.def.name);
        let (mine, _) = r.take_closed_ticks();
        let (theirs, _) = a.take_closed_ticks();
        assert_eq!(
            ticks_of(&mine),
            ticks_of(&theirs),
            "ticks of {}",
            a.def.name
        );
    }
}

/// A window saved with its closed part (snapshot versions 2 and 3) and restored after some of its
/// ticks left: the same rows and totals as the same file restored from its ticks alone (version
/// 1, the closed part rebuilt) and as the live report moved to the same time. A file whose closed part
/// does not hold a tick that left is refused, the report left as it was.
#[test]
fn a_saved_closed_part_restores_like_the_ticks_it_sums() {
    use crate::codec::{Reader, Writer};
    let mut dict = Dictionary::new(1000);
    let w = Window {
        history_ms: 4000,
        tick_ms: 1000,
        ticks: 4,
        phase_ms: 0,
    };
    let new = |dict: &mut Dictionary| {
        Report::new(def("s", &["script_name"]), dict, 100)
            .unwrap()
            .with_exact_window(w, 0)
    };
    let mut live = new(&mut dict);
    // Closed ticks 0, 1 and 2 (`/gone` in tick 0 alone), the open tick 3.
    for (t, script, time) in [
        (100, "/a", 0.1),
        (200, "/gone", 0.3),
        (1100, "/a", 0.2),
        (2100, "/b", 1.5),
        (2200, "/a", 0.7),
        (3500, "/a", 0.05),
    ] {
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
    let saved = [3, 2, 1].map(|v| (v, save(&mut live, v)));
    assert!(saved[0].1.len() > saved[1].1.len(), "version 3's wide sums");
    assert!(
        saved[1].1.len() > saved[2].1.len(),
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
