//! Sinks against the real daemon: the file sink (every request a line, rotated, gzipped, switched
//! at run time and the switch kept across a restart, nothing lost on SIGTERM), and the
//! ClickHouse sink against a real ClickHouse server (every request a row, timers with their tags,
//! sums equal to what was sent; the server killed mid-traffic and restarted: pinbad keeps
//! ingesting, retries, and the table ends up with every request not counted as dropped).

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use pinbad::corpus::{Corpus, CorpusSpec};
use prost::Message;
use serde_json::{json, Value};

use crate::clickhouse::ClickHouse;
use crate::common::*;

fn corpus(seed: u64, n: usize) -> Vec<Vec<u8>> {
    Corpus::new(CorpusSpec {
        seed,
        ..CorpusSpec::default()
    })
    .datagrams(n)
}

fn sink(d: &Daemon, name: &str) -> Value {
    named(&d.status()["sinks"], name)
}

fn n(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no `{key}` in {v}"))
}

/// Every line of the sink's files (the current one and the rotated ones, gzipped or not).
fn lines_in(dir: &Path) -> (Vec<Value>, usize) {
    let mut lines = Vec::new();
    let mut gz = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let mut text = String::new();
        if p.extension().is_some_and(|x| x == "gz") {
            gz += 1;
            flate2::read::GzDecoder::new(std::fs::File::open(&p).unwrap())
                .read_to_string(&mut text)
                .unwrap();
        } else {
            text = std::fs::read_to_string(&p).unwrap();
        }
        lines.extend(
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()),
        );
    }
    (lines, gz)
}

fn patch(d: &Daemon, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    let mut req = ureq::request("PATCH", &d.url(path)).set("Content-Type", "application/json");
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    match req.send_string(&body.to_string()) {
        Ok(r) => (
            r.status(),
            serde_json::from_str(&r.into_string().unwrap()).unwrap(),
        ),
        Err(ureq::Error::Status(code, r)) => (
            code,
            serde_json::from_str(&r.into_string().unwrap()).unwrap(),
        ),
        Err(e) => panic!("PATCH {path}: {e}"),
    }
}

#[test]
fn file_sink_rotates_gzips_switches_at_run_time_and_loses_nothing_on_sigterm() {
    let logs = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let config = format!(
        "[http]\ntoken = \"s3cret\"\ntoken_reads = false\n\n[[sink]]\nname = \"log\"\nkind = \"file\"\npath = {:?}\n\
         timers = true\nmax_bytes = \"256KiB\"\nkeep = 1000\n",
        logs.path().join("requests.ndjson").to_str().unwrap()
    );
    let args = ["--udp", "127.0.0.1:0"];
    let d = Daemon::start_with(&config, &args, Some(state.path()));
    d.send(&corpus(1, 1000));
    d.wait_merged(1000);
    d.wait_for(|d| n(&sink(d, "log"), "sent") == 1000, "1000 lines written");

    // Switched off (the token is needed), requests go on into the pool but not to the file.
    let off = json!({"enabled": false});
    assert_eq!(patch(&d, "/api/v1/sinks/log", None, &off).0, 401);
    let (code, body) = patch(
        &d,
        "/api/v1/sinks/log",
        Some("s3cret"),
        &json!({"colour": 1}),
    );
    assert_eq!(code, 400, "{body}");
    let (code, body) = patch(&d, "/api/v1/sinks/nope", Some("s3cret"), &off);
    assert_eq!(code, 404, "{body}");
    let (code, body) = patch(&d, "/api/v1/sinks/log", Some("s3cret"), &off);
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["enabled"], false);
    d.send(&corpus(2, 500));
    d.wait_merged(1500);
    // Back on, at a sample of 1.0 kept explicitly (persisted below).
    let on = json!({"enabled": true, "sample": 1.0});
    assert_eq!(patch(&d, "/api/v1/sinks/log", Some("s3cret"), &on).0, 200);
    d.send(&corpus(3, 2000));
    d.wait_merged(3500);
    // SIGTERM right away: what is queued is written before the process exits.
    let status = d.terminate(Duration::from_secs(15));
    assert!(status.success(), "{status}");

    let (lines, gz) = lines_in(logs.path());
    assert_eq!(
        lines.len(),
        3000,
        "1000 + 2000 lines, none of the 500 sent while off"
    );
    assert!(gz >= 2, "rotated and gzipped: {gz} .gz files");
    let ids: HashSet<u64> = lines.iter().map(|v| v["id"].as_u64().unwrap()).collect();
    assert_eq!(ids.len(), 3000);
    assert!(!ids.iter().any(|id| (1000..1500).contains(id)));
    assert!(lines.iter().all(|v| v["timers"].as_array().is_some()));
    let timers: usize = lines
        .iter()
        .map(|v| v["timers"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        timers,
        lines
            .iter()
            .map(|v| n(v, "timer_count") as usize)
            .sum::<usize>()
    );

    // The run-time switch outlives the restart; a PATCH of one field keeps the other.
    let d = Daemon::start_with(&config, &args, Some(state.path()));
    let s = d.json("/api/v1/sinks/log");
    assert_eq!(s["enabled"], true);
    assert_eq!(s["sample"], 1.0);
    let (code, body) = patch(
        &d,
        "/api/v1/sinks/log",
        Some("s3cret"),
        &json!({"sample": 0.1}),
    );
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["enabled"], true);
    let d = {
        drop(d);
        Daemon::start_with(&config, &args, Some(state.path()))
    };
    assert_eq!(d.json("/api/v1/sinks")["sinks"][0]["sample"], 0.1);
}

/// A sink's PATCH body must be a JSON object, as a report's and the instruments' are: an array
/// was read as the struct's fields in order (`[true, 0.5]` switched the sink on at half
/// sampling), and `[]` was refused naming the Rust type behind it.
#[test]
fn a_sink_change_that_is_not_a_json_object_is_refused_and_changes_nothing() {
    let logs = tempfile::tempdir().unwrap();
    let config = format!(
        "[[sink]]\nname = \"log\"\nkind = \"file\"\npath = {:?}\n",
        logs.path().join("requests.ndjson").to_str().unwrap()
    );
    let d = Daemon::start(&config);
    let (code, body) = patch(&d, "/api/v1/sinks/log", None, &json!({"enabled": false}));
    assert_eq!(code, 200, "{body}");
    for change in [
        json!([true, 0.5]),
        json!([]),
        json!([false]),
        json!("on"),
        json!(null),
    ] {
        let (code, body) = patch(&d, "/api/v1/sinks/log", None, &change);
        assert_eq!(code, 400, "{change}: {body}");
        assert_eq!(body["error"], "bad_request", "{change}: {body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.contains("must be a JSON object") && !detail.contains("SinkState"),
            "{change}: {body}"
        );
    }
    let s = d.json("/api/v1/sinks/log");
    assert_eq!(
        (&s["enabled"], &s["sample"]),
        (&json!(false), &json!(1.0)),
        "{s}"
    );
}

/// What a set of datagrams carries, as the prost reference decodes it.
#[derive(Default, Debug)]
struct Expected {
    requests: u64,
    timers: u64,
    hit_count: u64,
    request_time: f64,
    timer_value: f64,
    tagged_timers: u64,
}

fn expected(datagrams: &[Vec<u8>]) -> Expected {
    let mut e = Expected::default();
    for d in datagrams {
        let r = pinbad::proto::Request::decode(d.as_slice()).unwrap();
        assert!(
            r.requests.is_empty(),
            "the corpus sends one request per datagram"
        );
        e.requests += 1;
        e.request_time += r.request_time as f64;
        e.timers += r.timer_value.len() as u64;
        e.hit_count += r.timer_hit_count.iter().map(|&h| h as u64).sum::<u64>();
        e.timer_value += r.timer_value.iter().map(|&v| v as f64).sum::<f64>();
        e.tagged_timers += r.timer_tag_count.iter().filter(|&&c| c > 0).count() as u64;
    }
    e
}

fn clickhouse_config(ch: &ClickHouse, database: &str) -> String {
    format!(
        "[[sink]]\nname = \"ch\"\nkind = \"clickhouse\"\nurl = \"{}\"\ncreate_tables = true\n\
         database = \"{database}\"\nbatch_rows = 1000\nbatch_time = \"100ms\"\ninstance = \"test\"\n",
        ch.url()
    )
}

/// The SQL block of docs/stream-and-sinks.md that starts with `start`, as rows.
fn documented_sql(ch: &ClickHouse, start: &str) -> Vec<Value> {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/stream-and-sinks.md"
    ))
    .unwrap();
    let from = readme
        .find(start)
        .unwrap_or_else(|| panic!("docs/stream-and-sinks.md has `{start}`"));
    let sql = &readme[from..];
    let sql = sql[..sql.find(';').unwrap()].to_string() + " FORMAT JSONEachRow";
    ch.query(&sql)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn clickhouse_sink_writes_every_request_and_timer() {
    let Some(ch) = ClickHouse::start() else {
        return;
    };
    let d = Daemon::start(&clickhouse_config(&ch, "default"));
    let datagrams = corpus(7, 3000);
    let e = expected(&datagrams);
    d.send(&datagrams);
    d.wait_merged(3000);
    d.wait_for(
        |d| {
            let s = sink(d, "ch");
            n(&s, "sent") == e.requests && n(&s, "timers_sent") == e.timers
        },
        "every row acknowledged",
    );
    let s = sink(&d, "ch");
    assert_eq!((n(&s, "dropped"), n(&s, "failed")), (0, 0), "{s}");
    let num = |sql: &str| ch.number(sql);
    assert_eq!(num("SELECT count() FROM pinba_requests") as u64, e.requests);
    assert_eq!(
        num("SELECT uniqExact(id) FROM pinba_requests") as u64,
        e.requests
    );
    assert_eq!(num("SELECT count() FROM pinba_timers") as u64, e.timers);
    assert_eq!(
        num("SELECT sum(hit_count) FROM pinba_timers") as u64,
        e.hit_count
    );
    assert_eq!(
        num("SELECT sum(timer_count) FROM pinba_requests") as u64,
        e.timers
    );
    let sum = num("SELECT sum(request_time) FROM pinba_requests");
    assert!(
        close(sum, e.request_time, 1e-6),
        "{sum} vs {}",
        e.request_time
    );
    let sum = num("SELECT sum(value) FROM pinba_timers");
    assert!(
        close(sum, e.timer_value, 1e-6),
        "{sum} vs {}",
        e.timer_value
    );
    assert_eq!(
        num("SELECT count() FROM pinba_timers WHERE length(tags.name) > 0") as u64,
        e.tagged_timers
    );
    assert_eq!(
        ch.query("SELECT DISTINCT instance FROM pinba_requests"),
        "test"
    );

    // The documented SQL gives pinbad's own reports: report_by_script_name...
    let rows = documented_sql(&ch, "SELECT script_name,\n       count() AS req_count");
    assert_eq!(rows.len(), 100);
    for row in &rows {
        let script = row["script_name"].as_str().unwrap();
        let ours = d.json(&format!(
            "/api/v1/reports/report_by_script_name?filter=script_name:{script}"
        ));
        let ours = &ours["rows"][0];
        assert_eq!(f(&row["req_count"]), f(&ours["req_count"]), "{script}");
        assert!(close(
            f(&row["req_time_total"]),
            f(&ours["req_time_total"]),
            1e-4
        ));
        assert!(close(
            f(&row["traffic_total"]),
            f(&ours["traffic_total"]),
            1e-9
        ));
    }
    // ...and a timer-tag report.
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "by_group", "keys": ["script_name", "timer_tag:group"]}),
    );
    assert_eq!(code, 201, "{body}");
    let rows = documented_sql(&ch, "SELECT script_name,\n       tags.value[indexOf");
    assert_eq!(rows.len(), 100);
    for row in &rows {
        let (script, group) = (
            row["script_name"].as_str().unwrap(),
            row["group"].as_str().unwrap(),
        );
        let ours = d.json(&format!(
            "/api/v1/reports/by_group?filter=script_name:{script}&filter=group:{group}"
        ));
        let ours = &ours["rows"][0];
        assert_eq!(
            f(&row["req_count"]),
            f(&ours["req_count"]),
            "{script} {group}"
        );
        assert_eq!(f(&row["hits"]), f(&ours["hit_count"]), "{script} {group}");
        assert!(close(f(&row["timer_value"]), f(&ours["timer_value"]), 1e-4));
    }
}

#[test]
fn clickhouse_outage_is_retried_and_nothing_unaccounted_is_lost() {
    let Some(mut ch) = ClickHouse::start() else {
        return;
    };
    let d = Daemon::start(&clickhouse_config(&ch, "pinba"));
    d.send(&corpus(11, 1000));
    d.wait_merged(1000);
    d.wait_for(|d| n(&sink(d, "ch"), "sent") == 1000, "the first 1000 rows");

    ch.kill();
    d.send(&corpus(12, 2000));
    d.wait_merged(3000);
    d.wait_for(
        |d| n(&sink(d, "ch"), "failed") > 0,
        "failed inserts while down",
    );
    // Ingestion went on: every request is in the pool and the reports.
    let s = d.status();
    assert_eq!(n(&s, "requests_merged"), 3000);
    assert_eq!(n(&s, "temp_pool_dropped"), 0);
    assert_eq!(n(&sink(&d, "ch"), "sent"), 1000);

    ch.restart();
    d.send(&corpus(13, 1000));
    d.wait_merged(4000);
    d.wait_for(
        |d| {
            let s = sink(d, "ch");
            n(&s, "sent") + n(&s, "dropped") == 4000 && n(&s, "current_queued") == 0
        },
        "every request sent or counted after the server came back",
    );
    let s = sink(&d, "ch");
    let rows = ch.number("SELECT count() FROM pinba.pinba_requests") as u64;
    assert_eq!(rows, n(&s, "sent"), "{s}");
    assert_eq!(rows + n(&s, "dropped"), 4000);
    assert_eq!(
        ch.number("SELECT uniqExact(id) FROM pinba.pinba_requests") as u64,
        rows,
        "no request inserted twice"
    );
}

#[test]
fn a_sink_that_cannot_open_its_file_stops_start_up_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("not_a_dir"), "").unwrap();
    let config = write_file(
        dir.path(),
        "pinbad.toml",
        "[[sink]]\nname = \"log\"\nkind = \"file\"\npath = \"not_a_dir/requests.ndjson\"\n",
    );
    let (code, stderr) = run_pinbad(
        &[
            "--config",
            config.to_str().unwrap(),
            "--udp",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
        ],
        &dir.path().join("state"),
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("sink `log`"), "{stderr}");
    assert!(stderr.contains("not_a_dir"), "{stderr}");
}
