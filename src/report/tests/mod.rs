//! Unit and property tests of the report engine, definitions, queries and persistence, one file
//! per part of the engine they test; this file holds what they share: requests as tests write
//! them ([`Req`]), a dictionary with reports fed as the merger feeds them ([`World`]), rows and
//! tables read back for comparison, and the property tests' request strategies.

mod defs;
mod sums;
mod keys;
mod update;
mod window;
mod query;
mod set;
mod properties;
mod families;
mod snapshot;
mod peak;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;

use super::columns::*;
use super::hist_log::*;
use super::keys::*;
use super::query::*;
use super::rows::*;
use super::sums::*;
use super::update::*;
use super::view::*;
use super::window::*;
use super::*;
use crate::dictionary::Dictionary;
use crate::histogram::Histogram;
use crate::record::{Record, RequestView, TagPair, Timer, NO_SCHEMA};

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
    /// memory_peak.
    peak: u32,
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
            peak: 0,
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
        memory_peak: r.peak,
        request_count: 1,
        tag_count: r.tags.len() as u16,
        ..Record::default()
    };
    (record, timers, block)
}

/// A report's window as a snapshot of format `version` saves it.
fn saved_window(r: &mut Report, version: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut out = crate::codec::Writer::new(&mut bytes);
    r.save_window(&mut out, Layout::of(version)).unwrap();
    out.finish().unwrap();
    bytes
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

/// The report's "(other)" row (empty when it holds nothing).
fn other_of(r: &Report) -> RowState {
    View { report: r }
        .other_item()
        .map_or((Sums::default(), vec![]), |(_, row)| {
            (row.sums, row.hist().iter().collect())
        })
}

/// Whether `big` holds at least what `small` holds, sum by sum and bucket by bucket.
fn state_covers(big: &RowState, small: &RowState) -> bool {
    let buckets: BTreeMap<u16, u64> = big.1.iter().copied().collect();
    big.0.covers(&small.0)
        && small
            .1
            .iter()
            .all(|(b, n)| buckets.get(b).is_some_and(|m| m >= n))
}

/// What a report under a row limit (or a memory budget) keeps, against the report built from
/// scratch without one: its totals exact; at most `max_rows` rows, each holding at most its key's
/// contributions; its rows and "(other)" summing to the totals (in a timer report but for
/// `req_count`, which counts a request once per row); and, while nothing went to "(other)", every
/// row exact.
fn check_kept(r: &Report, scratch: &Report, max_rows: usize) -> Result<(), TestCaseError> {
    let name = &r.def.name;
    let (rows, full) = (rows_of(r), rows_of(scratch));
    prop_assert_eq!(totals_of(r), totals_of(scratch), "totals of {}", name);
    prop_assert!(rows.len() <= max_rows, "rows of {}", name);
    prop_assert_eq!(rows.len(), r.rows());
    for (k, v) in &rows {
        let whole = full.get(k);
        prop_assert!(
            whole.is_some_and(|w| state_covers(w, v)),
            "row {:?} of {} holds more than its key's contributions",
            k,
            name
        );
    }
    let mut sum = other_of(r);
    let mut buckets: BTreeMap<u16, u64> = sum.1.iter().copied().collect();
    for (s, h) in rows.values() {
        sum.0.add(s);
        for &(b, n) in h {
            *buckets.entry(b).or_default() += n;
        }
    }
    sum.1 = buckets.into_iter().collect();
    let mut totals = totals_of(r);
    if r.kind == Kind::Timer {
        (sum.0.req_count, totals.0.req_count) = (0, 0);
    }
    prop_assert_eq!(
        sum,
        totals,
        "rows and (other) of {} sum to its totals",
        name
    );
    if r.rows_lost() == 0 && r.rows_evicted() == 0 {
        prop_assert_eq!(&rows, &full, "rows of {}", name);
        prop_assert_eq!(other_of(r), (Sums::default(), vec![]));
    }
    Ok(())
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

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pinbad-report-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

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
                // Peaks that rise and fall with the document size: a row's largest leaves the
                // window with its tick, and the next largest is another tick's.
                peak: (doc * 7919) % 65_536,
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
