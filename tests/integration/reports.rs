//! Issue 3: every report over real UDP + HTTP equals a simple, independent computation over the
//! requests that were sent (counts exact, sums to float tolerance, percentiles within 1 %).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::*;
use crate::sent::Sent;

impl Sent {
    /// The value of one report key for this request; `None` = the request lacks it.
    fn key(&self, key: &str) -> Option<String> {
        Some(match key {
            "hostname" => self.hostname.clone(),
            "server_name" => self.server_name.clone(),
            "script_name" => self.script_name.clone(),
            "status" => self.status.to_string(),
            "schema" => self.schema.clone().unwrap_or_else(|| "null".into()),
            k => {
                let name = k.strip_prefix("tag:")?;
                self.tags.iter().find(|(n, _)| n == name)?.1.clone()
            }
        })
    }
}

/// A seeded traffic mix: several hosts, servers, scripts, statuses, schemas, request tags, timers
/// with 1–3 tags, a few hit counts > 1, a few requests without tags or timers.
fn traffic(n: usize, seed: u64) -> Vec<Sent> {
    let mut rnd = rng(seed);
    (0..n)
        .map(|_| {
            let mut timers = Vec::new();
            for _ in 0..rnd(4) {
                let mut tags = vec![(
                    "group".to_string(),
                    ["db", "cache", "api"][rnd(3) as usize].to_string(),
                )];
                if rnd(3) > 0 {
                    tags.push(("server".into(), format!("s{}", rnd(3))));
                }
                if rnd(2) > 0 {
                    tags.push(("op".into(), ["get", "set"][rnd(2) as usize].into()));
                }
                let hits = if rnd(5) == 0 { 1 + rnd(4) as u32 } else { 1 };
                let value = (1 + rnd(50_000)) as f32 * 1e-6 * hits as f32;
                timers.push((hits, value, value / 4.0, value / 8.0, tags));
            }
            let mut tags = Vec::new();
            if rnd(4) > 0 {
                tags.push(("country".into(), ["nl", "de", "fr"][rnd(3) as usize].into()));
            }
            if rnd(2) > 0 {
                tags.push(("lang".into(), ["en", "nl"][rnd(2) as usize].into()));
            }
            Sent {
                hostname: format!("web{}", rnd(3)),
                server_name: ["www.example.com", "api.example.com"][rnd(2) as usize].into(),
                script_name: format!("/s{}.php", rnd(6)),
                status: [200, 200, 200, 404, 500][rnd(5) as usize],
                schema: [Some("http"), Some("https"), None][rnd(3) as usize].map(String::from),
                request_time: (1 + rnd(2_000_000)) as f32 * 1e-6,
                ru_utime: rnd(1000) as f32 * 1e-4,
                ru_stime: rnd(1000) as f32 * 1e-5,
                document_size: rnd(100_000) as u32,
                memory_footprint: rnd(10_000_000) as u32,
                tags,
                timers,
            }
        })
        .collect()
}

/// Expected sums and samples of one row.
#[derive(Default, Debug)]
struct Agg {
    req_count: u64,
    sums: [f64; 5],
    samples: Vec<(f64, u64)>,
}

/// Expected rows of a request report (no timer_tag keys).
fn expect_request_report(sent: &[Sent], keys: &[&str]) -> BTreeMap<Vec<String>, Agg> {
    let mut rows: BTreeMap<Vec<String>, Agg> = BTreeMap::new();
    for r in sent {
        let Some(key) = keys.iter().map(|k| r.key(k)).collect::<Option<Vec<_>>>() else {
            continue;
        };
        let a = rows.entry(key).or_default();
        a.req_count += 1;
        for (i, v) in [
            r.request_time as f64,
            r.ru_utime as f64,
            r.ru_stime as f64,
            r.document_size as f64,
            r.memory_footprint as f64,
        ]
        .into_iter()
        .enumerate()
        {
            a.sums[i] += v;
        }
        a.samples.push((r.request_time as f64, 1));
    }
    rows
}

/// Expected rows of a timer report: a timer lands in a row when it has every timer tag named
/// (first wins); `req_count` counts each request once per row.
fn expect_timer_report(sent: &[Sent], keys: &[&str]) -> BTreeMap<Vec<String>, Agg> {
    let mut rows: BTreeMap<Vec<String>, Agg> = BTreeMap::new();
    for r in sent {
        let mut touched = std::collections::BTreeSet::new();
        for (hits, value, ru_u, ru_s, tags) in &r.timers {
            let key: Option<Vec<String>> = keys
                .iter()
                .map(|k| match k.strip_prefix("timer_tag:") {
                    Some(name) => tags.iter().find(|(n, _)| n == name).map(|t| t.1.clone()),
                    None => r.key(k),
                })
                .collect();
            let Some(key) = key else { continue };
            let a = rows.entry(key.clone()).or_default();
            if touched.insert(key) {
                a.req_count += 1;
            }
            a.sums[0] += *hits as f64;
            a.sums[1] += *value as f64;
            a.sums[2] += *ru_u as f64;
            a.sums[3] += *ru_s as f64;
            a.samples.push((*value as f64 / *hits as f64, *hits as u64));
        }
    }
    rows
}

/// The name of a key's column.
fn column(key: &str) -> &str {
    key.rsplit(':').next().unwrap()
}

fn cell_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// Fetches every row of a report, keyed by its key columns.
fn fetch(
    d: &Daemon,
    name: &str,
    keys: &[&str],
    extra: &str,
) -> (Value, BTreeMap<Vec<String>, Value>) {
    let body = d.json(&format!("/api/v1/reports/{name}?limit=100000{extra}"));
    let mut rows = BTreeMap::new();
    for row in body["rows"].as_array().unwrap() {
        let key: Vec<String> = keys.iter().map(|k| cell_text(&row[column(k)])).collect();
        assert!(
            rows.insert(key, row.clone()).is_none(),
            "{name}: duplicate row"
        );
    }
    (body, rows)
}

fn assert_close(got: &Value, want: f64, rel: f64, what: &str) {
    let g = got
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {got}"));
    assert!(
        close(g, want, rel) || (g - want).abs() < 1e-9,
        "{what}: got {g}, want {want}"
    );
}

/// Checks one request report against the expected computation.
fn check_request_report(d: &Daemon, name: &str, keys: &[&str], sent: &[Sent]) {
    let want = expect_request_report(sent, keys);
    let (body, got) = fetch(d, name, keys, "&percentiles=50,99");
    assert_eq!(
        body["kind"],
        if keys.is_empty() { "info" } else { "request" },
        "{name}"
    );
    assert_eq!(
        got.len(),
        want.len(),
        "{name}: rows {:?} vs {:?}",
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    assert_eq!(body["rows_total"].as_u64(), Some(want.len() as u64));
    let interval = body["time_interval"].as_f64().unwrap();
    assert!(interval >= 1.0, "{name}: time_interval {interval}");
    let total_count: u64 = want.values().map(|a| a.req_count).sum();
    let total_time: f64 = want.values().map(|a| a.sums[0]).sum();
    assert_eq!(
        body["totals"]["req_count"].as_u64(),
        Some(total_count),
        "{name} totals"
    );
    for (key, a) in &want {
        let row = got
            .get(key)
            .unwrap_or_else(|| panic!("{name}: missing row {key:?}"));
        let what = format!("{name} {key:?}");
        assert_eq!(row["req_count"].as_u64(), Some(a.req_count), "{what}");
        for (i, col) in [
            "req_time_total",
            "ru_utime_total",
            "ru_stime_total",
            "traffic_total",
            "memory_footprint_total",
        ]
        .iter()
        .enumerate()
        {
            assert_close(&row[*col], a.sums[i], 1e-6, &format!("{what} {col}"));
        }
        assert_close(
            &row["req_per_sec"],
            a.req_count as f64 / interval,
            1e-3,
            &format!("{what} req_per_sec"),
        );
        assert_close(
            &row["req_percent"],
            100.0 * a.req_count as f64 / total_count as f64,
            1e-6,
            &format!("{what} req_percent"),
        );
        assert_close(
            &row["req_time_percent"],
            100.0 * a.sums[0] / total_time,
            1e-5,
            &format!("{what} req_time_percent"),
        );
        assert_close(
            &row["req_time_median"],
            nearest_rank(&a.samples, 50.0),
            0.01,
            &format!("{what} median"),
        );
        assert_close(
            &row["p99"],
            nearest_rank(&a.samples, 99.0),
            0.01,
            &format!("{what} p99"),
        );
        assert!(
            row["traffic_total"].is_u64(),
            "{what}: sizes are integer bytes"
        );
    }
}

/// Checks one timer report against the expected computation.
fn check_timer_report(d: &Daemon, name: &str, keys: &[&str], sent: &[Sent]) {
    let want = expect_timer_report(sent, keys);
    let (body, got) = fetch(d, name, keys, "&percentiles=50,95");
    assert_eq!(body["kind"], "timer", "{name}");
    assert_eq!(
        got.len(),
        want.len(),
        "{name}: rows {:?} vs {:?}",
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (key, a) in &want {
        let row = got
            .get(key)
            .unwrap_or_else(|| panic!("{name}: missing row {key:?}"));
        let what = format!("{name} {key:?}");
        assert_eq!(
            row["req_count"].as_u64(),
            Some(a.req_count),
            "{what} req_count"
        );
        assert_eq!(
            row["hit_count"].as_u64(),
            Some(a.sums[0] as u64),
            "{what} hit_count"
        );
        assert_close(
            &row["timer_value"],
            a.sums[1],
            1e-6,
            &format!("{what} timer_value"),
        );
        assert_close(
            &row["ru_utime_value"],
            a.sums[2],
            1e-5,
            &format!("{what} ru_utime_value"),
        );
        assert_close(
            &row["ru_stime_value"],
            a.sums[3],
            1e-5,
            &format!("{what} ru_stime_value"),
        );
        assert_close(
            &row["timer_median"],
            nearest_rank(&a.samples, 50.0),
            0.01,
            &format!("{what} timer_median"),
        );
        assert_close(
            &row["p95"],
            nearest_rank(&a.samples, 95.0),
            0.01,
            &format!("{what} p95"),
        );
    }
}

const BUILTINS: [(&str, &[&str]); 21] = [
    ("info", &[]),
    ("report_by_script_name", &["script_name"]),
    ("report_by_server_name", &["server_name"]),
    ("report_by_hostname", &["hostname"]),
    (
        "report_by_server_and_script",
        &["server_name", "script_name"],
    ),
    (
        "report_by_hostname_and_script",
        &["hostname", "script_name"],
    ),
    (
        "report_by_hostname_and_server",
        &["hostname", "server_name"],
    ),
    (
        "report_by_hostname_server_and_script",
        &["hostname", "server_name", "script_name"],
    ),
    ("report_by_status", &["status"]),
    ("report_by_script_and_status", &["script_name", "status"]),
    ("report_by_server_and_status", &["server_name", "status"]),
    ("report_by_hostname_and_status", &["hostname", "status"]),
    (
        "report_by_hostname_script_and_status",
        &["hostname", "script_name", "status"],
    ),
    ("report_by_schema", &["schema"]),
    ("report_by_script_and_schema", &["script_name", "schema"]),
    ("report_by_server_and_schema", &["server_name", "schema"]),
    ("report_by_hostname_and_schema", &["hostname", "schema"]),
    (
        "report_by_hostname_script_and_schema",
        &["hostname", "script_name", "schema"],
    ),
    (
        "report_by_hostname_status_and_schema",
        &["hostname", "status", "schema"],
    ),
    (
        "report_by_server_script_and_status",
        &["server_name", "script_name", "status"],
    ),
    (
        "report_by_hostname_server_and_status",
        &["hostname", "server_name", "status"],
    ),
];

/// Tag reports of each family, configured from the start.
const TAG_REPORTS: [(&str, &[&str]); 7] = [
    ("tag_info_group", &["timer_tag:group"]),
    (
        "tag2_info_group_server",
        &["timer_tag:group", "timer_tag:server"],
    ),
    ("tag_report_group", &["script_name", "timer_tag:group"]),
    (
        "tag_report2_group",
        &["script_name", "hostname", "server_name", "timer_tag:group"],
    ),
    ("rtag_info_country", &["tag:country"]),
    (
        "rtag_report_country_lang",
        &["hostname", "tag:country", "tag:lang"],
    ),
    (
        "mixed_status_country_op",
        &["status", "tag:country", "timer_tag:op"],
    ),
];

fn tag_report_config() -> String {
    TAG_REPORTS
        .iter()
        .map(|(name, keys)| {
            format!(
                "[[report]]\nname = \"{name}\"\nkeys = {}\n",
                serde_json::to_string(keys).unwrap()
            )
        })
        .collect()
}

fn check_all(d: &Daemon, sent: &[Sent]) {
    for (name, keys) in BUILTINS {
        check_request_report(d, name, keys, sent);
    }
    for (name, keys) in TAG_REPORTS {
        if keys.iter().any(|k| k.starts_with("timer_tag:")) {
            check_timer_report(d, name, keys, sent);
        } else {
            check_request_report(d, name, keys, sent);
        }
    }
}

#[test]
fn every_builtin_and_tag_report_equals_an_independent_computation() {
    let d = Daemon::start(&tag_report_config());
    let sent = traffic(800, 42);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    assert_eq!(d.status()["requests_accepted"].as_u64(), Some(800));
    check_all(&d, &sent);
    // The info endpoint is the info report.
    let info = d.json("/api/v1/info");
    assert_eq!(info["rows"][0]["req_count"].as_u64(), Some(800), "{info}");
    // The list names every report with its kind and keys.
    let list = d.json("/api/v1/reports");
    let list = list["reports"].as_array().unwrap();
    assert_eq!(list.len(), BUILTINS.len() + TAG_REPORTS.len());
    let tag = list
        .iter()
        .find(|r| r["name"] == "tag_report_group")
        .unwrap();
    assert_eq!(tag["kind"], "timer");
    assert_eq!(tag["keys"], json!(["script_name", "timer_tag:group"]));
    assert_eq!(tag["builtin"], false);
    assert!(
        list.iter()
            .find(|r| r["name"] == "report_by_status")
            .unwrap()["builtin"]
            == true
    );
}

/// Request families (`merge.request_families`, on by default): the built-ins share one
/// (hostname, server, script, schema, status) stage. A built-in a query read is detached from it
/// and updated on its own (its cost shows on it); the stage's updates show on the family's first
/// member (the others show only their folds of the stage, if one came within the test); and
/// every report, detached by its query at any point, still equals the independent computation.
#[test]
fn request_families_detach_a_queried_report_and_every_report_still_equals_an_independent_computation(
) {
    let d = Daemon::start(&tag_report_config());
    let first = traffic(800, 7);
    d.send(&first.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(first.len() as u64);
    // Nothing is drained within the test's seconds: the query detaches the report from the
    // stage first (it takes what the stage holds for it), and the rounds after it update it on
    // its own.
    let (name, keys) = BUILTINS[1];
    check_request_report(&d, name, keys, &first);
    let second = traffic(800, 8);
    d.send(&second.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged((first.len() + second.len()) as u64);
    let status = d.status();
    let costing: Vec<&str> = status["reports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| BUILTINS.iter().any(|(name, _)| r["name"] == *name))
        .filter(|r| r["update_ns_per_request"].as_f64() != Some(0.0))
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(
        costing.contains(&"info") && costing.contains(&name),
        "{costing:?} {status}"
    );
    let all: Vec<Sent> = first.into_iter().chain(second).collect();
    check_all(&d, &all);
}

/// `merge.shards`: three shards (the merger and two followers) take the ring's batches side by
/// side, and every report still equals the independent computation (each request counted once,
/// whichever shard stored it), as does the raw pool.
#[test]
fn merge_shards_count_every_request_once_in_every_report() {
    let d = Daemon::start(&format!(
        "[merge]\nthreads = 2\nshards = 3\n{}",
        tag_report_config()
    ));
    wait_threads(&d, &["pinbad-merger", "pinbad-shard-1", "pinbad-shard-2"]);
    let sent = traffic(2400, 11);
    send_in_chunks(&d, &sent);
    let status = d.status();
    assert_eq!(status["requests_accepted"].as_u64(), Some(2400));
    // The shards' waits for their turns are counted (`merge.turn_waited_ms`).
    assert!(status["merge"]["turn_waited_ms"].is_u64(), "{status}");
    check_all(&d, &sent);
    assert_eq!(pooled_ids(&d).len(), 2400);
}

/// Waits until the daemon runs a thread of each of `names`.
fn wait_threads(d: &Daemon, names: &[&str]) {
    let pid = d.child.id();
    d.wait_for(
        |_| {
            let threads = thread_nice(pid);
            names.iter().all(|n| threads.iter().any(|(m, _)| m == n))
        },
        &format!("the threads {names:?}"),
    );
}

/// Sends `sent` in datagrams of 100 requests (so that several shards' rounds take them), and
/// waits until they are merged.
fn send_in_chunks(d: &Daemon, sent: &[Sent]) {
    for chunk in sent.chunks(100) {
        d.send(&chunk.iter().map(Sent::encode).collect::<Vec<_>>());
    }
    d.wait_merged(sent.len() as u64);
}

/// The newest-first ids of the raw pool, each once.
fn pooled_ids(d: &Daemon) -> Vec<u64> {
    let pooled = d.json("/api/v1/requests?limit=10000");
    let ids: Vec<u64> = pooled["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert!(
        ids.windows(2).all(|w| w[0] > w[1]),
        "newest first, once each"
    );
    ids
}

/// Issue 57's "a restart restores what it restores today", with shards: a daemon whose three
/// shards stored the requests stops cleanly, and the next start (three shards again, started
/// once the snapshot is merged) answers every report and the raw pool as the first did; the
/// requests sent after the restart are counted once more, whichever shard stores them.
#[test]
fn a_sharded_merge_restarts_with_every_report_and_the_raw_pool_whole() {
    let state = tempfile::tempdir().unwrap();
    let config = format!(
        "state_dir = {:?}\nstats_history = \"1h\"\n[merge]\nthreads = 2\nshards = 3\n{}",
        state.path().to_str().unwrap(),
        tag_report_config()
    );
    let followers = |d: &Daemon| wait_threads(d, &["pinbad-shard-1", "pinbad-shard-2"]);
    let sent = traffic(3000, 13);
    let (first, second) = sent.split_at(2400);
    let d = Daemon::start_logged(&config, "info");
    followers(&d);
    send_in_chunks(&d, first);
    check_all(&d, first);
    let ids = pooled_ids(&d);
    assert_eq!(ids.len(), first.len());
    assert!(d.terminate(Duration::from_secs(60)).success());

    let d = Daemon::start_logged(&config, "info");
    d.wait_log("Snapshot restored");
    followers(&d);
    check_all(&d, first);
    assert_eq!(pooled_ids(&d), ids, "the raw pool as it was");
    send_in_chunks(&d, second);
    check_all(&d, &sent);
    let after = pooled_ids(&d);
    assert_eq!(after.len(), sent.len());
    assert_eq!(
        &after[second.len()..],
        &ids[..],
        "the restored requests, then the new"
    );
}

/// `merge.request_families = false`: every built-in is updated on its own.
#[test]
fn without_request_families_every_report_costs_its_own_and_equals_an_independent_computation() {
    let d = Daemon::start(&format!(
        "[merge]\nrequest_families = false\n{}",
        tag_report_config()
    ));
    let sent = traffic(800, 7);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    let status = d.status();
    let free = status["reports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| BUILTINS.iter().any(|(name, _)| r["name"] == *name))
        .filter(|r| r["update_ns_per_request"].as_f64() == Some(0.0))
        .count();
    assert_eq!(free, 0, "{status}");
    check_all(&d, &sent);
}

/// The request count of an instrument in `/api/v1/instruments`.
fn instrument_count(d: &Daemon, name: &str) -> u64 {
    named(&d.json("/api/v1/instruments")["instruments"], name)["count"]
        .as_u64()
        .unwrap_or_else(|| panic!("no instrument {name}"))
}

/// Shared tables (`merge.share_tables`, on by default): start-up reports equal but for their
/// names share the first one's table. Each answers under its own name and equals the independent
/// computation; the table is updated once (a query of the twin detaches the owner, whose update
/// counts, while the twin's own instrument stays at zero); the owner dropped, the twin's table
/// is still updated; a report that differs (its percentiles) keeps a table of its own.
#[test]
fn reports_equal_but_for_their_names_share_one_table() {
    let keys = ["script_name", "timer_tag:group"];
    let report = |name: &str, extra: &str| {
        format!(
            "[[report]]\nname = \"{name}\"\nkeys = {}\n{extra}",
            serde_json::to_string(&keys).unwrap()
        )
    };
    let d = Daemon::start(&format!(
        "{}{}{}",
        report("twin_a", ""),
        report("twin_b", ""),
        report("own_c", "percentiles = [50]\n")
    ));
    let status = d.status();
    let listing = d.json("/api/v1/reports");
    for (name, shares) in [
        ("twin_a", None),
        ("twin_b", Some("twin_a")),
        ("own_c", None),
    ] {
        let want = shares.map_or(Value::Null, Value::from);
        assert_eq!(
            named(&status["reports"], name)["shares_table_with"],
            want,
            "{name}"
        );
        assert_eq!(
            named(&listing["reports"], name)["shares_table_with"],
            want,
            "{name}"
        );
    }
    let first = traffic(600, 11);
    d.send(&first.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(first.len() as u64);
    for name in ["twin_a", "twin_b", "own_c"] {
        check_timer_report(&d, name, &keys, &first);
        let (body, _) = fetch(&d, name, &keys, "");
        assert_eq!(body["report"], name);
    }
    // The twin's query detached the owner from its family's stage: from now on the owner's
    // update counts every request, and the twin's (never updated) none.
    let owner_before = instrument_count(&d, "report:twin_a");
    let second = traffic(600, 12);
    d.send(&second.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged((first.len() + second.len()) as u64);
    assert!(instrument_count(&d, "report:twin_a") > owner_before);
    assert_eq!(instrument_count(&d, "report:twin_b"), 0);
    let mut all: Vec<Sent> = first.into_iter().chain(second).collect();
    check_timer_report(&d, "twin_b", &keys, &all);
    // The owner dropped: its table lives on for the twin.
    assert_eq!(d.delete("/api/v1/reports/twin_a").0, 204);
    assert_eq!(d.get("/api/v1/reports/twin_a").0, 404);
    let third = traffic(600, 13);
    d.send(&third.iter().map(Sent::encode).collect::<Vec<_>>());
    all.extend(third);
    d.wait_merged(all.len() as u64);
    check_timer_report(&d, "twin_b", &keys, &all);
    check_timer_report(&d, "own_c", &keys, &all);
}

/// `merge.share_tables = false`: reports equal but for their names keep tables of their own.
#[test]
fn without_shared_tables_equal_reports_keep_tables_of_their_own() {
    let d = Daemon::start(
        "[merge]\nshare_tables = false\n[[report]]\nname = \"twin_a\"\nkeys = [\"script_name\"]\n\
         [[report]]\nname = \"twin_b\"\nkeys = [\"script_name\"]\n",
    );
    let status = d.status();
    assert_eq!(
        named(&status["reports"], "twin_b")["shares_table_with"],
        Value::Null
    );
    let sent = traffic(300, 5);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    check_request_report(&d, "twin_b", &["script_name"], &sent);
}

#[test]
fn expiry_removes_exactly_the_expired_requests() {
    // Old and new requests are 3 s apart in a 6 s window: after the old ones expire, the new ones
    // stay for ~3 s, ample time to compare every report even on a busy machine.
    let d = Daemon::start(&format!("stats_history = \"6s\"\n{}", tag_report_config()));
    let old = traffic(300, 1);
    d.send(&old.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(300);
    // Not a synchronisation: the test needs the two generations to be apart in time.
    std::thread::sleep(Duration::from_secs(3));
    let new = traffic(300, 2);
    d.send(&new.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(600);
    d.wait_for(
        |d| d.status()["pool_expired"].as_u64() == Some(300),
        "the first 300 to expire",
    );
    assert_eq!(d.status()["current_pool_used"].as_u64(), Some(300));
    check_all(&d, &new);
    assert_eq!(
        d.status()["pool_expired"].as_u64(),
        Some(300),
        "the checks ran inside the window"
    );
    d.wait_for(
        |d| d.status()["current_pool_used"].as_u64() == Some(0),
        "everything to expire",
    );
    // Strings are released just after the round lets the pool go: wait for that too.
    d.wait_for(
        |d| d.status()["dictionary_size"].as_u64() == Some(5),
        "dictionary down to the pinned tag names",
    );
    for (name, _) in BUILTINS.iter().skip(1).chain(TAG_REPORTS.iter()) {
        assert_eq!(
            d.json(&format!("/api/v1/reports/{name}"))["rows"]
                .as_array()
                .unwrap()
                .len(),
            0,
            "{name} empty"
        );
    }
    let s = d.status();
    assert!(
        s["reports"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["rows"] == 0 || r["name"] == "info"),
        "{s}"
    );
    // Only the tag names the report definitions pin are left: group, server, op, country, lang.
    assert_eq!(
        s["dictionary_size"].as_u64(),
        Some(5),
        "report rows hold no strings once empty: {s}"
    );
}

/// Reports v2: a raw pool much smaller than the window's traffic overwrites requests, and the
/// reports still count every request of the window. A report created afterwards can only be
/// filled from what the pool still holds, and says from when it is complete.
#[test]
fn reports_count_the_whole_window_whatever_the_raw_pool_keeps() {
    let d = Daemon::start(&format!("request_pool_size = 200\n{}", tag_report_config()));
    let sent = traffic(500, 3);
    for chunk in sent.chunks(100).enumerate() {
        d.send(&chunk.1.iter().map(Sent::encode).collect::<Vec<_>>());
        d.wait_merged(100 * (chunk.0 as u64 + 1));
    }
    let status = d.status();
    assert_eq!(status["pool_overwritten"].as_u64(), Some(300));
    assert_eq!(status["current_pool_used"].as_u64(), Some(200));
    assert!(status["pool_covers_seconds"].as_f64().is_some(), "{status}");
    check_all(&d, &sent);
    let info = d.get("/api/v1/info").1;
    assert_eq!(info["totals"]["req_count"].as_u64(), Some(500));
    assert_eq!(info["history"].as_f64(), Some(900.0));
    assert_eq!(info["tick"].as_f64(), Some(15.0));
    assert!(info["time_interval"].as_f64().unwrap() >= 1.0, "{info}");

    let (code, body) = d.post("/api/v1/reports", &json!({"name": "late_info", "keys": []}));
    assert_eq!(code, 201, "{body}");
    let late = d.get("/api/v1/reports/late_info").1;
    assert_eq!(
        late["totals"]["req_count"].as_u64(),
        Some(200),
        "filled from the 200 requests the pool holds"
    );
    let complete_from = body["complete_from"].as_f64().expect("complete_from");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        complete_from > now - 60.0 && complete_from <= now + 1.0,
        "{body}"
    );
    assert_eq!(late["complete_from"].as_f64(), Some(complete_from));
    // A built-in is complete since the daemon started.
    assert!(info["complete_from"].as_f64().unwrap() <= complete_from);
}

#[test]
fn run_time_report_equals_the_same_report_configured_at_start_and_survives_restart() {
    let state = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &tag_report_config(),
        &["--udp", "127.0.0.1:0"],
        Some(state.path()),
    );
    let sent = traffic(400, 4);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(400);
    // Created after the traffic: filled from the pool.
    let (code, body) = d.post("/api/v1/reports", &json!({"name": "rt_tag_report_group", "keys": ["script_name", "timer_tag:group"], "percentiles": [50, 95]}));
    assert_eq!(code, 201, "{body}");
    let keys = ["script_name", "timer_tag:group"];
    // Both with the same percentiles (their defaults differ).
    let same_rows = |d: &Daemon| {
        let (_, a) = fetch(d, "rt_tag_report_group", &keys, "&percentiles=50,95,99");
        let (_, b) = fetch(d, "tag_report_group", &keys, "&percentiles=50,95,99");
        assert_eq!(a, b, "a run-time report equals the configured one");
    };
    same_rows(&d);
    check_timer_report(
        &d,
        "rt_tag_report_group",
        &["script_name", "timer_tag:group"],
        &sent,
    );
    // And it stays equal as more traffic arrives.
    let more = traffic(200, 5);
    d.send(&more.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(600);
    same_rows(&d);
    // Validation.
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "rt_tag_report_group", "keys": ["script_name"]}),
    );
    assert_eq!(code, 409, "duplicate: {body}");
    let (code, body) = d.post("/api/v1/reports", &json!({"name": "x", "keys": ["colour"]}));
    assert_eq!(code, 400, "{body}");
    // The body is wrong, not a query parameter.
    assert_eq!(body["error"], "bad_request", "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("colour"),
        "{body}"
    );
    let (code, _) = d.post(
        "/api/v1/reports",
        &json!({"name": "y", "keys": ["hostname"], "filters": {"min_time": "soon"}}),
    );
    assert_eq!(code, 400);
    // Drop a built-in; restart; the run-time report is back and the built-in stays dropped.
    let (code, _) = d.delete("/api/v1/reports/report_by_schema");
    assert!(code == 200 || code == 204, "{code}");
    assert_eq!(d.get("/api/v1/reports/report_by_schema").0, 404);
    assert_eq!(d.delete("/api/v1/reports/report_by_schema").0, 404);
    assert!(d.terminate(Duration::from_secs(2)).success());
    let d = Daemon::start_with(
        &tag_report_config(),
        &["--udp", "127.0.0.1:0"],
        Some(state.path()),
    );
    let names = d.strings("/api/v1/reports", "reports", "name");
    assert!(
        names.contains(&"rt_tag_report_group".to_string()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"report_by_schema".to_string()),
        "{names:?}"
    );
}

/// A definition that is right but needs a string the full dictionary has no room for is refused
/// as the server's want of room (507 `dictionary_full`, naming the limits; not a 503, whose
/// `Retry-After: 1` a second later would not honour), not as the client's fault (a 400), and
/// nothing is created.
#[test]
fn a_full_dictionary_refuses_a_creation_with_507() {
    let d = Daemon::start("[limits]\nmax_dictionary_entries = 16\n");
    d.send(&corpus(50, 7));
    d.wait_for(
        |d| d.status()["dictionary_lost"].as_u64() > Some(0),
        "strings lost to the full dictionary",
    );
    let reports = d.strings("/api/v1/reports", "reports", "name").len();
    let resp = ureq::post(&d.url("/api/v1/reports"))
        .set("Content-Type", "application/json")
        .send_string(r#"{"name": "late", "keys": ["tag:never_seen_before"]}"#);
    let Err(ureq::Error::Status(code, resp)) = resp else {
        panic!("created with a full dictionary: {resp:?}");
    };
    assert_eq!(code, 507);
    assert_eq!(resp.header("Retry-After"), None);
    let body: Value = serde_json::from_str(&resp.into_string().unwrap()).unwrap();
    assert_eq!(body["error"], "dictionary_full", "{body}");
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.contains("never_seen_before") && detail.contains("limits.max_dictionary_entries"),
        "{body}"
    );
    assert_eq!(d.get("/api/v1/reports/late").0, 404);
    assert_eq!(
        d.strings("/api/v1/reports", "reports", "name").len(),
        reports
    );
    // A definition that is wrong is still the client's fault, full dictionary or not.
    let (code, body) = d.post("/api/v1/reports", &json!({"name": "y", "keys": ["colour"]}));
    assert_eq!(
        (code, body["error"].as_str()),
        (400, Some("bad_request")),
        "{body}"
    );
}

#[test]
fn filtered_reports_count_only_matching_requests() {
    let config = "[[report]]\nname = \"slow_nl\"\nkeys = [\"script_name\"]\n[report.filters]\nmin_time = 0.5\n\"tag:country\" = \"nl\"\n";
    let d = Daemon::start(config);
    let sent = traffic(500, 6);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(500);
    let matching: Vec<Sent> = sent
        .iter()
        .filter(|r| {
            r.request_time >= 0.5 && r.tags.iter().any(|(n, v)| n == "country" && v == "nl")
        })
        .cloned()
        .collect();
    assert!(!matching.is_empty());
    check_request_report(&d, "slow_nl", &["script_name"], &matching);
}

#[test]
fn query_parameters_sort_limit_filter_match_csv_and_errors() {
    let d = Daemon::start("");
    let sent = traffic(300, 7);
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(300);
    let name = "report_by_hostname_and_script";
    let all = d.json(&format!(
        "/api/v1/reports/{name}?limit=1000&sort=-req_count"
    ))["rows"]
        .clone();
    let counts: Vec<u64> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["req_count"].as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    let asc = d.json(&format!(
        "/api/v1/reports/{name}?limit=1000&sort=req_time_total"
    ))["rows"]
        .clone();
    let times: Vec<f64> = asc
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["req_time_total"].as_f64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    let page = d.json(&format!(
        "/api/v1/reports/{name}?sort=-req_count&limit=3&offset=2"
    ));
    assert_eq!(page["rows"].as_array().unwrap().len(), 3);
    assert_eq!(page["rows"][0], all[2]);
    let web1 = d.json(&format!(
        "/api/v1/reports/{name}?filter=hostname:web1&limit=1000"
    ));
    assert!(web1["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["hostname"] == "web1"));
    assert_eq!(
        web1["rows_total"].as_u64().unwrap() as usize,
        web1["rows"].as_array().unwrap().len()
    );
    let m = d.json(&format!(
        "/api/v1/reports/{name}?match=script_name:%5E/s%5B12%5D&limit=1000"
    ));
    assert!(!m["rows"].as_array().unwrap().is_empty());
    assert!(m["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| ["/s1.php", "/s2.php"].contains(&r["script_name"].as_str().unwrap())));
    let p = d.json(&format!("/api/v1/reports/{name}?percentiles=50,99.9"));
    assert!(p["rows"][0]["p99.9"].is_number(), "{}", p["rows"][0]);
    let (code, csv) = d.get_text(&format!("/api/v1/reports/{name}?format=csv&limit=1000"));
    assert_eq!(code, 200);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("hostname,script_name,req_count"),
        "{}",
        lines[0]
    );
    assert_eq!(lines.len(), 1 + all.as_array().unwrap().len());
    let too_many = vec!["match=script_name:x"; 65].join("&");
    for (q, needle) in [
        ("sort=-colour", "colour"),
        ("limit=many", "limit"),
        ("filter=colour:red", "colour"),
        ("match=script_name:(", "match"),
        ("percentiles=abc", "percentiles"),
        ("format=xml", "format"),
        ("frobnicate=1", "frobnicate"),
        // One value each, but for the repeatable filter and match.
        ("limit=5&limit=500", "limit"),
        ("sort=-req_count&sort=req_count", "sort"),
        ("percentiles=50&percentiles=99", "percentiles"),
        (too_many.as_str(), "more than 64"),
    ] {
        let (code, body) = d.get(&format!("/api/v1/reports/{name}?{q}"));
        assert_eq!(code, 400, "{q}: {body}");
        assert!(
            body["detail"].as_str().unwrap_or("").contains(needle),
            "{q}: {body}"
        );
    }
    let two = d.json(&format!(
        "/api/v1/reports/{name}?filter=script_name:/s1.php&match=hostname:.&match=script_name:1"
    ));
    assert!(!two["rows"].as_array().unwrap().is_empty(), "{two}");
    assert_eq!(d.get("/api/v1/reports/no_such_report").0, 404);
    // A name that is not UTF-8: a JSON 400, as every other error.
    let (code, body) = d.get("/api/v1/reports/%FF");
    assert_eq!(code, 400, "{body}");
    assert_eq!(body["error"], "bad_path", "{body}");
}

#[test]
fn reports_from_the_real_php_extension() {
    if !crate::php::php_available() {
        return;
    }
    let d = Daemon::start(
        "[[report]]\nname = \"php_timers\"\nkeys = [\"script_name\", \"timer_tag:group\"]\n",
    );
    for (script, n) in [("/php/a.php", 3), ("/php/b.php", 2)] {
        for _ in 0..n {
            crate::php::run_php(
                d.udp[0],
                &format!(
                    "pinba_script_name_set('{script}'); \
                     $t = pinba_timer_start(['group' => 'db']); usleep(2000); pinba_timer_stop($t); \
                     $t = pinba_timer_start(['group' => 'db']); usleep(1000); pinba_timer_stop($t); \
                     $c = pinba_timer_start(['group' => 'cache']); pinba_timer_stop($c);"
                ),
            );
        }
    }
    d.wait_merged(5);
    assert_eq!(d.status()["current_pool_used"].as_u64(), Some(5));
    let (_, rows) = fetch(&d, "report_by_script_name", &["script_name"], "");
    assert_eq!(rows[&vec!["/php/a.php".to_string()]]["req_count"], 3);
    assert_eq!(rows[&vec!["/php/b.php".to_string()]]["req_count"], 2);
    let (_, timers) = fetch(&d, "php_timers", &["script_name", "timer_tag:group"], "");
    let db = &timers[&vec!["/php/a.php".to_string(), "db".to_string()]];
    assert_eq!(db["req_count"], 3);
    assert_eq!(
        db["hit_count"], 6,
        "the extension merges the two db timers into one with hit_count 2"
    );
    assert!(db["timer_value"].as_f64().unwrap() >= 0.009, "{db}");
    assert_eq!(
        timers[&vec!["/php/b.php".to_string(), "cache".to_string()]]["hit_count"],
        2
    );
}

#[test]
fn report_count_is_bounded() {
    let d = Daemon::start("builtin_reports = false\n[limits]\nmax_reports = 2\n");
    for name in ["a", "b"] {
        let (code, body) = d.post(
            "/api/v1/reports",
            &json!({"name": name, "keys": ["hostname"]}),
        );
        assert_eq!(code, 201, "{body}");
    }
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "c", "keys": ["hostname"]}),
    );
    assert_eq!(code, 409, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("limits.max_reports"),
        "{body}"
    );
    assert_eq!(d.delete("/api/v1/reports/a").0, 204);
    assert_eq!(
        d.post(
            "/api/v1/reports",
            &json!({"name": "c", "keys": ["hostname"]})
        )
        .0,
        201
    );
}

/// Issue 82, "rates as they are now": beside `req_per_sec` (the window's average) every row and
/// the totals have `req_per_sec_last_tick`, the last closed tick's requests over its seconds. A
/// quiet tick (one request of /quiet.php), then a burst (20 of /burst.php) in the next tick: once
/// the burst's tick closes, its rate is 20 / tick exactly, above the window's average, while the
/// quiet row, with nothing in that tick, reads 0 beside an average above 0. Two-second ticks;
/// the burst is sent as soon as the quiet tick is seen closed, so that it falls in one tick.
#[test]
fn the_last_ticks_rate_shows_a_burst_beside_the_windows_average() {
    let d = Daemon::start(
        "stats_history = \"20s\"\nreport_ticks = 10\nstats_gathering_period = \"10ms\"",
    );
    let path = "/api/v1/reports/report_by_script_name";
    let row = |t: &Value, script: &str| -> Option<Value> {
        t["rows"]
            .as_array()?
            .iter()
            .find(|r| r["script_name"] == script)
            .cloned()
    };
    // Requests a row's last tick counted: its rate times the tick's seconds.
    let last_tick_count = |t: &Value, script: &str| -> Option<f64> {
        Some(row(t, script)?["req_per_sec_last_tick"].as_f64()? * t["tick"].as_f64()?)
    };
    let empty = d.json(path);
    assert_eq!(empty["tick"], 2.0, "{empty}");
    assert_eq!(empty["totals"]["req_per_sec_last_tick"], 0.0, "{empty}");
    // Beside the average, in CSV's header as in JSON's rows.
    let (code, csv) = d.get_text(&format!("{path}?format=csv"));
    assert_eq!(code, 200, "{csv}");
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let at = header.iter().position(|c| *c == "req_per_sec").unwrap();
    assert_eq!(header[at + 1], "req_per_sec_last_tick", "{header:?}");

    d.send(&[request("/quiet.php")]);
    d.wait_for(
        |d| last_tick_count(&d.json(path), "/quiet.php") == Some(1.0),
        "the quiet request's tick to close",
    );
    d.send(&(0..20).map(|_| request("/burst.php")).collect::<Vec<_>>());
    let seen = std::sync::Mutex::new(Value::Null);
    d.wait_for(
        |d| {
            let t = d.json(path);
            let closed = last_tick_count(&t, "/burst.php") == Some(20.0);
            *seen.lock().unwrap() = t;
            closed
        },
        "the burst's tick to close",
    );
    let t = seen.into_inner().unwrap();
    let (tick, interval) = (
        t["tick"].as_f64().unwrap(),
        t["time_interval"].as_f64().unwrap(),
    );
    let burst = row(&t, "/burst.php").unwrap();
    let quiet = row(&t, "/quiet.php").unwrap();
    assert_eq!(burst["req_count"], 20, "{t}");
    assert_eq!(quiet["req_count"], 1, "{t}");
    assert_eq!(
        burst["req_per_sec_last_tick"].as_f64(),
        Some(20.0 / tick),
        "{t}"
    );
    // The window's averages over `time_interval` as the answer prints it (to the ms): equal to
    // the last digits of a double, which the daemon's own interval may round otherwise.
    let near = |v: &Value, want: f64| v.as_f64().is_some_and(|v| (v - want).abs() <= 1e-9 * want);
    assert!(near(&burst["req_per_sec"], 20.0 / interval), "{t}");
    assert_eq!(quiet["req_per_sec_last_tick"].as_f64(), Some(0.0), "{t}");
    assert!(near(&quiet["req_per_sec"], 1.0 / interval), "{t}");
    // The window spans more than the burst's tick: its average is below the burst's rate.
    assert!(interval > tick, "{t}");
    assert!(
        burst["req_per_sec_last_tick"].as_f64() > burst["req_per_sec"].as_f64(),
        "{t}"
    );
    assert_eq!(
        t["totals"]["req_per_sec_last_tick"].as_f64(),
        Some(20.0 / tick),
        "{t}"
    );
    assert!(near(&t["totals"]["req_per_sec"], 21.0 / interval), "{t}");
    // `/api/v1/info` has the column too (its ticks have a phase of their own).
    let info = d.json("/api/v1/info");
    assert!(
        info["totals"]["req_per_sec_last_tick"].is_number(),
        "{info}"
    );
}
