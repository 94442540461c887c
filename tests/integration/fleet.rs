//! Fleets: report ticks written to a real ClickHouse by two pinbad instances on different
//! traffic, answered for the whole fleet by the fleet view (`pinba_report_ticks_fleet`), the
//! SQL of docs/fleets.md and `GET /api/v1/fleet/reports/{name}`, checked against the exact answer computed
//! from the union of what was sent; ticks sent again (a retry after a lost reply) not doubled;
//! the server killed and restarted mid-traffic: every tick written once or counted as dropped.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::clickhouse::ClickHouse;
use crate::common::*;

/// A daemon with 1 s report ticks whose ClickHouse sink writes the ticks of every report (and no
/// request rows), as instance `instance`.
fn fleet_daemon(ch: &ClickHouse, instance: &str) -> Daemon {
    Daemon::start_logged(&fleet_config(ch, instance), "info")
}

fn fleet_config(ch: &ClickHouse, instance: &str) -> String {
    format!(
        "stats_history = \"20s\"\nreport_ticks = 20\n\n\
         [[sink]]\nname = \"ch\"\nkind = \"clickhouse\"\nurl = \"{}\"\ncreate_tables = true\n\
         database = \"fleet\"\nbatch_time = \"100ms\"\ninstance = \"{instance}\"\n\
         reports = \"*\"\nsample = 0.0\n",
        ch.url()
    )
}

fn sink(d: &Daemon) -> Value {
    named(&d.status()["sinks"], "ch")
}

fn n(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no `{key}` in {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a number: {v}"))
}

/// What was sent of one script: its requests' times (seconds, as f32 on the wire).
#[derive(Default)]
struct Sent {
    times: Vec<f32>,
}

impl Sent {
    /// Their sum in nanoseconds, as pinbad sums them (each time converted once, rounded).
    fn time_ns(&self) -> u64 {
        self.times
            .iter()
            .map(|&t| {
                let x = t as f64 * 1e9;
                let n = x as u64;
                n + (x - n as f64 >= 0.5) as u64
            })
            .sum()
    }

    fn p(&self, p: f64) -> f64 {
        let samples: Vec<(f64, u64)> = self.times.iter().map(|&t| (t as f64, 1)).collect();
        nearest_rank(&samples, p)
    }
}

/// Sends `per_script` requests of each script with times drawn from `seed`, recording them.
fn traffic(d: &Daemon, seed: u64, per_script: &[(&str, usize)], sent: &mut BTreeMap<String, Sent>) {
    let mut next = rng(seed);
    let mut datagrams = Vec::new();
    for (script, count) in per_script {
        for _ in 0..*count {
            let mut r = proto_request(script);
            // 1 ms to 2 s, log-spread.
            r.request_time = (0.001 * 2000f64.powf(next(10_000) as f64 / 10_000.0)) as f32;
            sent.entry(script.to_string())
                .or_default()
                .times
                .push(r.request_time);
            datagrams.push(prost::Message::encode_to_vec(&r));
        }
    }
    d.send(&datagrams);
}

/// Sends `datagrams` (a request each) to `d` and waits until every one is merged and counted
/// in the ticks ClickHouse holds (`fleet_total`).
fn send_to_the_fleet(d: &Daemon, ch: &ClickHouse, datagrams: &[Vec<u8>]) {
    d.send(datagrams);
    let n = datagrams.len() as u64;
    d.wait_merged(n);
    d.wait_for(
        |_| fleet_total(ch) == n,
        "every request's tick in ClickHouse",
    );
}

/// The fleet view's rows of `report_by_script_name` by script (key rows only).
fn fleet_rows(ch: &ClickHouse) -> BTreeMap<String, Value> {
    ch.query(
        "SELECT * FROM fleet.pinba_report_ticks_fleet \
         WHERE report = 'report_by_script_name' AND row_type = 0 FORMAT JSONEachRow",
    )
    .lines()
    .map(|l| {
        let v: Value = serde_json::from_str(l).unwrap();
        (v["keys"][0].as_str().unwrap().to_string(), v)
    })
    .collect()
}

/// Requests in the fleet's ticks of `report_by_script_name` (its totals rows, read `FINAL`);
/// 0 while the table does not exist yet.
fn fleet_total(ch: &ClickHouse) -> u64 {
    let sql = "SELECT sum(req_count) FROM fleet.pinba_report_ticks FINAL \
               WHERE report = 'report_by_script_name' AND row_type = 2";
    ureq::post(&ch.url())
        .send_string(sql)
        .ok()
        .and_then(|r| r.into_string().ok())
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// The fleet's answer equals the union of what both instances were sent: counts and sums
/// exact, p50/p95/p99 within pinbad's 1 %.
fn check_fleet(rows: &BTreeMap<String, Value>, sent: &BTreeMap<String, Sent>) {
    assert_eq!(
        rows.keys().collect::<Vec<_>>(),
        sent.keys().collect::<Vec<_>>()
    );
    for (script, s) in sent {
        let row = &rows[script];
        // (ClickHouse quotes 64-bit integers in JSON.)
        assert_eq!(
            f(&row["req_count"]) as usize,
            s.times.len(),
            "{script}: {row}"
        );
        assert_eq!(f(&row["time_ns"]) as u64, s.time_ns(), "{script}: {row}");
        for p in [50.0, 95.0, 99.0] {
            let (got, want) = (f(&row[&format!("p{p}")]), s.p(p));
            assert!(
                close(got, want, 0.01),
                "{script} p{p}: {got} vs exact {want}"
            );
        }
    }
}

/// The dashboard's report view switched to the fleet (`fleet=1h`) shows both instances' rows.
fn check_dashboard(d: &Daemon, sent: &BTreeMap<String, Sent>) {
    let Some(b) = crate::browser::Browser::start() else {
        return;
    };
    b.goto(&d.url("/#/report/report_by_script_name?fleet=1h"));
    let want: BTreeMap<String, String> = sent
        .iter()
        .map(|(k, s)| (k.clone(), s.times.len().to_string()))
        .collect();
    b.wait("the fleet's rows in the report view", |b| {
        let rows = b.eval(
            "return [...document.querySelectorAll('#report-table tbody tr')].map(tr =>
               [tr.querySelector('td[data-col=script_name]')?.textContent,
                tr.querySelector('td[data-col=req_count]')?.textContent]);",
            serde_json::json!([]),
        );
        let got: BTreeMap<String, String> = serde_json::from_value::<Vec<(String, String)>>(rows)
            .ok()?
            .into_iter()
            .collect();
        (got == want).then_some(())
    });
    assert_eq!(
        b.eval(
            "return document.getElementById('fleet').value",
            serde_json::json!([])
        ),
        "1h"
    );
    // A fleet row's chart is the fleet's history: /b.php's points (both instances' requests)
    // add up to what both were sent of it, `req_per_sec` × the answer's step.
    b.click("#report-table tbody tr:has(td[data-col=script_name][title='/b.php']) a.history-link");
    b.wait("the fleet history view of /b.php", |b| {
        let url = b.current_url();
        (url.contains("#/history/report_by_script_name?") && url.contains("fleet=1")).then_some(())
    });
    let step = d.json(
        "/api/v1/fleet/reports/report_by_script_name/history?from=-1h&filter=script_name:/b.php",
    )["step"]
        .as_f64()
        .unwrap();
    let want = sent["/b.php"].times.len() as f64;
    b.wait(
        "the fleet chart's points to add up to /b.php's requests",
        |b| {
            let data = b.eval(
                "const u = window.__pinbad.charts['history-rate']; return u ? u.data : null",
                serde_json::json!([]),
            );
            let data: Vec<Vec<Option<f64>>> = serde_json::from_value(data).ok()?;
            let total: f64 = data.get(1)?.iter().flatten().sum::<f64>() * step;
            ((total - want).abs() < 1e-6).then_some(())
        },
    );
    let heading = b.eval(
        "return document.querySelector('h2').textContent",
        serde_json::json!([]),
    );
    assert!(
        heading
            .as_str()
            .unwrap()
            .starts_with("Fleet history of report_by_script_name"),
        "{heading}"
    );
}

/// Both instances' ticks of `report_by_script_name` as ClickHouse holds them (read `FINAL`):
/// (instance, tick start in ms, row type, script or "", requests).
fn tick_rows(ch: &ClickHouse) -> Vec<(String, u64, u64, String, u64)> {
    ch.query(
        "SELECT instance, tick_start_ms, row_type, keys, req_count FROM fleet.pinba_report_ticks \
         FINAL WHERE report = 'report_by_script_name' FORMAT JSONEachRow",
    )
    .lines()
    .map(|l| {
        let v: Value = serde_json::from_str(l).unwrap();
        (
            v["instance"].as_str().unwrap().to_string(),
            f(&v["tick_start_ms"]) as u64,
            f(&v["row_type"]) as u64,
            v["keys"][0].as_str().unwrap_or("").to_string(),
            f(&v["req_count"]) as u64,
        )
    })
    .collect()
}

/// A series' points as (step start, first column) in `body`, of the series whose key is `key`
/// (`None`: the only one).
fn points(body: &Value, key: Option<&str>) -> BTreeMap<u64, f64> {
    let series = body["series"].as_array().unwrap();
    let s = match key {
        Some(k) => series
            .iter()
            .find(|s| s["key"][0] == k)
            .unwrap_or_else(|| panic!("no series {k} in {body}")),
        None => {
            assert_eq!(series.len(), 1, "{body}");
            &series[0]
        }
    };
    s["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), f(&p[1])))
        .collect()
}

/// `GET /api/v1/fleet/reports/report_by_script_name/history`: per step the requests of both
/// instances' ticks starting in it, summed (checked against the tick rows themselves, at 1 s
/// and 2 s steps); each script's series adds up to what both instances were sent of it;
/// `instance=` one instance's; over one step holding every tick, each script's count exact and
/// its percentiles within 1 % of the exact ones of what was sent; bad parameters a 400.
fn check_history(ch: &ClickHouse, d: &Daemon, sent: &BTreeMap<String, Sent>) {
    let ticks = tick_rows(ch);
    let base = "/api/v1/fleet/reports/report_by_script_name/history";
    for step in [1u64, 2] {
        let mut want: BTreeMap<u64, f64> = BTreeMap::new();
        for (_, start_ms, row_type, _, count) in &ticks {
            if *row_type == 2 && *count > 0 {
                *want.entry(start_ms / 1000 / step * step).or_default() += *count as f64;
            }
        }
        let (code, body) = d.get(&format!(
            "{base}?from=-1h&group=total&columns=req_count&step={step}s"
        ));
        assert_eq!(code, 200, "{body}");
        assert_eq!(
            (body["step"].as_u64(), body["stored_step"].as_u64()),
            (Some(step), Some(1))
        );
        // Ticks go on closing, empty ones too, while the test reads: one that reached ClickHouse
        // after the tick rows were read is a step of 0 requests here.
        let got: BTreeMap<u64, f64> = points(&body, None)
            .into_iter()
            .filter(|(_, v)| *v > 0.0)
            .collect();
        assert_eq!(got, want, "step {step}s: {body}");
    }
    // docs/fleets.md's example, as written (its path and query).
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/fleets.md")).unwrap();
    let at = doc
        .find("/api/v1/fleet/reports/report_by_script_name/history?")
        .expect("docs/fleets.md has a fleet history example");
    let example = &doc[at..at + doc[at..].find('\'').unwrap()];
    let (code, body) = d.get(example);
    assert_eq!(code, 200, "{example}: {body}");
    assert_eq!(body["columns"], serde_json::json!(["req_count", "p95"]));
    assert_eq!(body["step"].as_u64(), Some(60), "{body}");
    for (script, s) in sent {
        let total: f64 = points(&body, Some(script)).values().sum();
        assert_eq!(total as usize, s.times.len(), "{script}: {body}");
    }
    let (code, body) = d.get(&format!("{base}?from=-1h&columns=req_count&instance=b"));
    assert_eq!(code, 200, "{body}");
    let b_of: BTreeMap<String, f64> = body["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let total = s["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| f(&p[1]))
                .sum();
            (s["key"][0].as_str().unwrap().to_string(), total)
        })
        .collect();
    assert_eq!(
        b_of,
        BTreeMap::from([("/b.php".to_string(), 500.0), ("/c.php".to_string(), 200.0)]),
        "{body}"
    );

    // One step holding every tick (the ticks' first and last starts in one step of a whole
    // number of hours, aligned as steps are): each script's count and percentiles over all.
    let (first, last) = ticks.iter().fold((u64::MAX, 0), |(lo, hi), (_, t, ..)| {
        (lo.min(t / 1000), hi.max(t / 1000))
    });
    let step = (1..=48)
        .map(|h| h * 3600)
        .find(|s| first / s == last / s)
        .expect("a step of whole hours holds every tick");
    let from = first / step * step;
    let (code, body) = d.get(&format!(
        "{base}?from={from}&to={}&step={step}s&columns=req_count,p50,p95,p99",
        from + step
    ));
    assert_eq!(code, 200, "{body}");
    for (script, s) in sent {
        let series = body["series"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["key"][0] == script.as_str())
            .unwrap_or_else(|| panic!("no {script} in {body}"));
        let point = &series["points"][0];
        assert_eq!(series["points"].as_array().unwrap().len(), 1, "{body}");
        assert_eq!(point[0].as_u64(), Some(from), "{body}");
        assert_eq!(f(&point[1]) as usize, s.times.len(), "{script}: {body}");
        for (i, p) in [50.0, 95.0, 99.0].into_iter().enumerate() {
            let (got, want) = (f(&point[2 + i]), s.p(p));
            assert!(
                close(got, want, 0.01),
                "{script} p{p}: {got} vs exact {want}"
            );
        }
    }
    // CSV, as the history endpoint writes it.
    let csv = ureq::get(&d.url(&format!(
        "{base}?from=-1h&group=total&columns=req_count&format=csv"
    )))
    .call()
    .unwrap()
    .into_string()
    .unwrap();
    let counted: f64 = csv
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().parse::<f64>().unwrap())
        .sum();
    assert!(csv.starts_with("t,script_name,req_count\r\n"), "{csv}");
    assert_eq!(
        counted as usize,
        sent.values().map(|s| s.times.len()).sum::<usize>()
    );
    for (query, param) in [
        ("colour=red", "colour"),
        ("step=1500ms", "step"),
        ("instance=a&instance=b", "instance"),
        ("filter=nope:x", "filter"),
        ("columns=bogus", "columns"),
    ] {
        let (code, body) = d.get(&format!("{base}?{query}"));
        assert_eq!(
            (code, body["error"].as_str()),
            (400, Some("bad_parameter")),
            "{query}: {body}"
        );
        let detail = body["detail"].as_str().unwrap();
        assert!(detail.contains(&format!("`{param}`")), "{query}: {body}");
    }
    let (code, body) = d.get("/api/v1/fleet/reports/no_such_report/history");
    assert_eq!(
        (code, body["error"].as_str()),
        (404, Some("not_found")),
        "{body}"
    );
}

/// The fleet query of docs/fleets.md (its `report_by_script_name` over the last day) answers `sent`.
fn check_documented_sql(ch: &ClickHouse, sent: &BTreeMap<String, Sent>) {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/fleets.md")).unwrap();
    let from = readme
        .find("SELECT keys[1] AS script_name")
        .expect("docs/fleets.md has the fleet query");
    let sql = &readme[from..];
    let sql = sql[..sql.find(';').unwrap()]
        .replace("FROM pinba_report_ticks", "FROM fleet.pinba_report_ticks")
        + " FORMAT JSONEachRow";
    let rows: BTreeMap<String, Value> = ch
        .query(&sql)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["script_name"].as_str().unwrap().to_string(), v)
        })
        .collect();
    assert_eq!(rows.len(), sent.len(), "{rows:?}");
    for (script, s) in sent {
        let row = &rows[script];
        assert_eq!(f(&row["req_count"]) as usize, s.times.len(), "{row}");
        let secs = f(&row["req_time_total"]);
        assert!(close(secs, s.time_ns() as f64 / 1e9, 1e-12), "{row}");
        let (got, want) = (f(&row["p95"]), s.p(95.0));
        assert!(
            close(got, want, 0.01),
            "{script} p95: {got} vs exact {want}"
        );
    }
}

/// `GET /api/v1/fleet/reports/report_by_script_name` (with `extra` parameters) answers `sent`:
/// counts and sums exact, percentiles within 1 %, totals the sum of the rows.
fn check_api(d: &Daemon, extra: &str, sent: &BTreeMap<String, Sent>) {
    let (code, body) = d.get(&format!(
        "/api/v1/fleet/reports/report_by_script_name?from=-1h{extra}"
    ));
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["report"], "report_by_script_name");
    assert_eq!(
        body["rows_total"].as_u64(),
        Some(sent.len() as u64),
        "{body}"
    );
    let rows: BTreeMap<String, &Value> = body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["script_name"].as_str().unwrap().to_string(), r))
        .collect();
    assert_eq!(rows.len(), sent.len(), "{body}");
    let mut total = 0;
    for (script, s) in sent {
        let row = rows[script];
        assert_eq!(
            n(row, "req_count") as usize,
            s.times.len(),
            "{script}: {row}"
        );
        let secs = f(&row["req_time_total"]);
        assert!(
            close(secs, s.time_ns() as f64 / 1e9, 1e-12),
            "{script}: {row}"
        );
        for (column, p) in [("req_time_median", 50.0), ("p95", 95.0), ("p99", 99.0)] {
            let (got, want) = (f(&row[column]), s.p(p));
            assert!(
                close(got, want, 0.01),
                "{script} {column}: {got} vs exact {want}"
            );
        }
        total += s.times.len() as u64;
    }
    assert_eq!(n(&body["totals"], "req_count"), total, "{body}");
}

/// The fleet API's rates are over the span the ticks cover (the first tick's start to the last
/// one's end, as ClickHouse holds them), not the hour asked, and `complete_from` says where
/// they start; `*_percent` columns are shares of the totals as in the live report;
/// `percentiles=` picks the percentile columns; a report no sink writes is a 404.
fn check_span_shares_and_percentiles(ch: &ClickHouse, d: &Daemon) {
    let (code, body) =
        d.get("/api/v1/fleet/reports/report_by_script_name?from=-1h&percentiles=50,99.9");
    assert_eq!(code, 200, "{body}");
    let span = ch.query(
        "SELECT min(tick_start_ms), max(tick_start_ms + tick_ms) FROM fleet.pinba_report_ticks \
         FINAL WHERE report = 'report_by_script_name' AND row_type = 2",
    );
    let (first, end) = span.split_once('\t').unwrap();
    let (first, end): (u64, u64) = (first.parse().unwrap(), end.trim().parse().unwrap());
    let seconds = (end - first) as f64 / 1000.0;
    assert!(seconds > 0.0 && seconds < 600.0, "{span}");
    assert!(
        close(f(&body["time_interval"]), seconds, 1e-12),
        "{span}: {body}"
    );
    assert!(
        close(f(&body["complete_from"]), first as f64 / 1000.0, 1e-12),
        "{body}"
    );
    assert_eq!(f(&body["history"]), 3600.0, "{body}");
    let total = n(&body["totals"], "req_count") as f64;
    assert!(
        close(f(&body["totals"]["req_per_sec"]), total / seconds, 1e-12),
        "{body}"
    );
    let totals = body["totals"].as_object().unwrap();
    assert_eq!(f(&body["totals"]["req_percent"]), 100.0, "{body}");
    assert!(
        totals.contains_key("p99.9") && !totals.contains_key("p99"),
        "{body}"
    );
    let mut shares = 0.0;
    for row in body["rows"].as_array().unwrap() {
        let count = n(row, "req_count") as f64;
        assert!(
            close(f(&row["req_per_sec"]), count / seconds, 1e-12),
            "{row}"
        );
        assert!(
            close(f(&row["req_percent"]), 100.0 * count / total, 1e-12),
            "{row}"
        );
        assert!(f(&row["p99.9"]) >= f(&row["req_time_median"]), "{row}");
        shares += f(&row["req_percent"]);
    }
    assert!(close(shares, 100.0, 1e-9), "{body}");
    // A range starting at the first tick is complete from its start: no `complete_from`.
    let (code, body) = d.get(&format!(
        "/api/v1/fleet/reports/report_by_script_name?from={}&to=now",
        first / 1000
    ));
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["complete_from"], Value::Null, "{body}");
    let (code, body) = d.get("/api/v1/fleet/reports/report_by_script_name?percentiles=50,abc");
    assert_eq!(
        (code, body["error"].as_str()),
        (400, Some("bad_parameter")),
        "{body}"
    );
    // `reports = "*"`: a report neither here nor in ClickHouse is a 404 saying so.
    let (code, body) = d.get("/api/v1/fleet/reports/no_such_report");
    assert_eq!(
        (code, body["error"].as_str()),
        (404, Some("not_found")),
        "{body}"
    );
    assert!(
        body["detail"].as_str().unwrap().contains("no_such_report"),
        "{body}"
    );
}

#[test]
fn without_a_ticks_sink_the_fleet_endpoint_says_so() {
    let d = Daemon::start("");
    let (code, body) = d.get("/api/v1/fleet/reports/report_by_script_name");
    assert_eq!(code, 404, "{body}");
    assert_eq!(body["error"], "not_found");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("no ClickHouse sink writes"),
        "{body}"
    );
}

/// ClickHouse killed and restarted mid-traffic: the ticks closed meanwhile are kept and retried,
/// and once it is back the fleet holds every request exactly once (an insert the kill cut after
/// the server wrote it is sent again: `FINAL` reads one copy), with no tick dropped.
#[test]
fn clickhouse_restarted_mid_traffic_loses_no_tick_uncounted_and_doubles_none() {
    let Some(mut ch) = ClickHouse::start() else {
        return;
    };
    let a = fleet_daemon(&ch, "a");
    let mut sent = BTreeMap::new();
    traffic(&a, 3, &[("/a.php", 300)], &mut sent);
    a.wait_merged(300);
    a.wait_for(|_| fleet_total(&ch) == 300, "the first ticks in ClickHouse");

    ch.kill();
    traffic(&a, 4, &[("/b.php", 400)], &mut sent);
    a.wait_merged(700);
    a.wait_for(|d| n(&sink(d), "failed") >= 2, "failed inserts while down");
    traffic(&a, 5, &[("/a.php", 200)], &mut sent);
    a.wait_merged(900);
    let before = n(&sink(&a), "failed");
    a.wait_for(|d| n(&sink(d), "failed") > before, "another failed insert");

    ch.restart();
    traffic(&a, 6, &[("/c.php", 100)], &mut sent);
    a.wait_merged(1000);
    a.wait_for(
        |_| fleet_total(&ch) == 1000,
        "every request's tick in ClickHouse",
    );
    let s = sink(&a);
    assert_eq!(n(&s, "ticks_dropped"), 0, "{s}");
    check_fleet(&fleet_rows(&ch), &sent);
    let (status, logs) = a.terminate_logged(std::time::Duration::from_secs(20));
    assert!(status.success());
    ch.wait_inserts_done();
    // Every tick acknowledged is in the table once; a tick whose insert the stop gave up on
    // (counted dropped) may be there too, ClickHouse having finished it after the daemon went.
    let stopped = logs
        .iter()
        .find(|l| l.contains("Sink stopped"))
        .expect("the sink's last figures logged");
    let figure = |name| crate::common::log_figure(stopped, name) as u64;
    let (ticks_sent, ticks_dropped) = (figure("ticks_sent"), figure("ticks_dropped"));
    let stored =
        ch.number("SELECT count() FROM fleet.pinba_report_ticks FINAL WHERE row_type = 2") as u64;
    assert!(
        (ticks_sent..=ticks_sent + ticks_dropped).contains(&stored),
        "{stored} ticks stored: {stopped}"
    );
    assert_eq!(fleet_total(&ch), 1000);
}

/// Ticks of 10k rows a report: inserts of several MB, sent in the sink's 1 MB chunks one after
/// the other, land whole (every request of every script once) with no tick dropped.
#[test]
fn ticks_of_many_rows_land_whole_from_chunked_inserts() {
    let Some(ch) = ClickHouse::start() else {
        return;
    };
    let a = fleet_daemon(&ch, "a");
    let datagrams: Vec<Vec<u8>> = (0..10_000)
        .map(|i| prost::Message::encode_to_vec(&proto_request(&format!("/chunk/{i:05}.php"))))
        .collect();
    send_to_the_fleet(&a, &ch, &datagrams);
    let s = sink(&a);
    assert_eq!((n(&s, "ticks_dropped"), n(&s, "failed")), (0, 0), "{s}");
    // report_by_script_name alone wrote 10k rows of ~170 bytes: more than one chunk.
    assert!(n(&s, "tick_rows_sent") >= 10_000, "{s}");
    let by_script = "FROM fleet.pinba_report_ticks FINAL \
                     WHERE report = 'report_by_script_name' AND row_type IN (0, 1)";
    assert_eq!(
        ch.number(&format!("SELECT sum(req_count) {by_script}")) as u64,
        10_000
    );
    assert_eq!(
        ch.number(&format!("SELECT uniqExact(keys) {by_script}")) as u64,
        10_000
    );
}

#[test]
fn two_instances_answer_the_fleet_from_clickhouse_exactly_once() {
    let Some(ch) = ClickHouse::start() else {
        return;
    };
    let (a, b) = (fleet_daemon(&ch, "a"), fleet_daemon(&ch, "b"));
    let mut sent = BTreeMap::new();
    traffic(&a, 1, &[("/a.php", 600), ("/b.php", 300)], &mut sent);
    traffic(&b, 2, &[("/b.php", 500), ("/c.php", 200)], &mut sent);
    a.wait_merged(900);
    b.wait_merged(700);
    // Once the ticks holding the traffic closed (1 s) and reached the server, and each sink
    // counted its insert (it does so once ClickHouse's answer is read, which can come after the
    // rows are visible to a query).
    a.wait_for(
        |_| fleet_total(&ch) == 1600 && [&a, &b].iter().all(|d| n(&sink(d), "ticks_sent") > 0),
        "both instances' ticks in ClickHouse, counted by their sinks",
    );
    for d in [&a, &b] {
        let s = sink(d);
        assert_eq!((n(&s, "ticks_dropped"), n(&s, "sent")), (0, 0), "{s}");
        assert!(
            n(&s, "ticks_sent") > 0 && n(&s, "tick_rows_sent") > 0,
            "{s}"
        );
    }
    assert_eq!(
        ch.query("SELECT DISTINCT instance FROM fleet.pinba_report_ticks ORDER BY instance"),
        "a\nb"
    );
    check_fleet(&fleet_rows(&ch), &sent);
    check_documented_sql(&ch, &sent);
    check_api(&a, "", &sent);
    // One instance's ticks: b's answer from a.
    let only_b: BTreeMap<String, Sent> = sent
        .iter()
        .filter_map(|(k, s)| {
            let times: Vec<f32> = match k.as_str() {
                "/a.php" => return None,
                "/b.php" => s.times[300..].to_vec(),
                _ => s.times.clone(),
            };
            Some((k.clone(), Sent { times }))
        })
        .collect();
    check_api(&a, "&instance=b", &only_b);
    check_span_shares_and_percentiles(&ch, &a);
    check_history(&ch, &a, &sent);
    check_dashboard(&a, &sent);
    let (code, body) = a.get("/api/v1/fleet/reports/report_by_script_name?from=-1h&colour=red");
    assert_eq!(
        (code, body["error"].as_str()),
        (400, Some("bad_parameter")),
        "{body}"
    );
    for d in [a, b] {
        assert!(d.terminate(std::time::Duration::from_secs(20)).success());
    }
    ch.wait_inserts_done();

    // Every tick sent again, as a retry after a lost reply sends it: the same rows. Read with
    // FINAL (as the view does) nothing is doubled, and once the parts merge one copy is left.
    let rows = ch.number("SELECT count() FROM fleet.pinba_report_ticks") as u64;
    ch.query("INSERT INTO fleet.pinba_report_ticks SELECT * FROM fleet.pinba_report_ticks");
    assert_eq!(
        ch.number("SELECT count() FROM fleet.pinba_report_ticks") as u64,
        2 * rows
    );
    assert_eq!(fleet_total(&ch), 1600);
    check_fleet(&fleet_rows(&ch), &sent);
    ch.query("OPTIMIZE TABLE fleet.pinba_report_ticks FINAL");
    assert_eq!(
        ch.number("SELECT count() FROM fleet.pinba_report_ticks") as u64,
        rows
    );
}

/// Issue 83, item 2 (the fleet's chart): `GET /api/v1/fleet/reports/{name}/history` read
/// ClickHouse's whole answer (up to 64 MiB of text, then every line parsed at once) before its
/// answer was counted in the memory budget. Now it is counted first, at the history endpoint's
/// bound from the steps ClickHouse counts (each series' histogram at its largest with `p99`),
/// and ClickHouse's rows are read a line at a time: while another answer is being sent (the
/// report's 10,000 rows with 32 percentiles, unread), a chart of 10,000 series finds no room
/// and is a 503 `memory_full` before a row is read, the status answering meanwhile; asked
/// alone it answers every key.
#[test]
fn the_fleet_history_is_counted_before_clickhouse_rows_are_read() {
    let Some(ch) = ClickHouse::start() else {
        return;
    };
    const KEYS: usize = 10_000;
    let d = Daemon::start_logged(
        &format!(
            "request_pool_size = 12000\ntimer_pool_size = 20000\ntag_pool_size = 20000\n\
             temp_pool_memory = \"8MiB\"\n{}\n[merge]\nthreads = 1\n[limits]\n\
             max_memory = \"256MiB\"\nmax_query_limit = {KEYS}\nmax_stream_clients = 2\n\
             stream_buffer = \"1MiB\"\n",
            // The report's rows stay in its window until asked for.
            fleet_config(&ch, "a").replace("stats_history = \"20s\"", "stats_history = \"120s\"")
        ),
        "info",
    );
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let datagrams: Vec<Vec<u8>> = (0..KEYS)
        .map(|k| prost::Message::encode_to_vec(&proto_request(&format!("/k/{k:05}"))))
        .collect();
    send_to_the_fleet(&d, &ch, &datagrams);
    assert_eq!(d.status()["memory"]["rows_refused"], 0);
    // Every key a series (at most 1,000,000 values: steps of the ticks' 6 s over the few minutes
    // at most the test has taken).
    let chart = format!(
        "/api/v1/fleet/reports/report_by_script_name/history?from={}&step=6s&limit={KEYS}\
         &columns=req_count,p99",
        start - 6
    );
    // Another answer being sent: the report's rows with 32 percentiles each (~13 MB), unread.
    let percentiles: Vec<String> = (1..=32).map(|p| (3 * p).to_string()).collect();
    let rows = format!(
        "/api/v1/reports/report_by_script_name?limit={KEYS}&percentiles={}",
        percentiles.join(",")
    );
    let report = ask_unread(d.http, &rows).expect("alone, an answer is given");
    let text = ask_unread(d.http, &chart).expect_err("the chart's bound does not fit beside it");
    assert!(text.contains("memory_full"), "{text}");
    assert_eq!(d.get("/api/v1/status").0, 200);
    drop(report);
    // Alone, it answers every key's series.
    d.wait_for(
        |d| d.get(&chart).0 == 200,
        "the chart once the other answer is gone",
    );
    let (code, body) = d.get(&chart);
    assert_eq!(code, 200, "{body}");
    let series = body["series"].as_array().unwrap();
    assert_eq!(series.len(), KEYS);
    let requests: f64 = series
        .iter()
        .flat_map(|s| s["points"].as_array().unwrap())
        .map(|p| f(&p[1]))
        .sum();
    assert_eq!(requests, KEYS as f64);
}

/// The fleet chart's top keys are picked by ClickHouse (a subquery of the query reading their
/// steps), not listed in the query's text: listed, 4,000 keys of 1 KB made a query of ~4 MB,
/// past ClickHouse's `max_query_size` (256 KiB by default), refused: a 502. Now the top 4,000
/// of 5,000 such keys are each a series, in the history endpoint's order (request time, then
/// the key: pairs of keys share a time), as ClickHouse picked them.
#[test]
fn the_fleet_chart_of_thousands_of_long_keys_answers_them_in_order() {
    let Some(ch) = ClickHouse::start() else {
        return;
    };
    const KEYS: usize = 5_000;
    const TOP: usize = 4_000;
    // Only the report charted: its ticks alone are 5 MB of keys.
    let d = Daemon::start(
        &fleet_config(&ch, "a").replace("reports = \"*\"", "reports = [\"report_by_script_name\"]"),
    );
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    // Key k: 1,000 bytes, `/kkkk/xxx…`, taking (k / 2 + 1) ms.
    let key = |k: usize| format!("/{k:04}/{}", "x".repeat(994));
    let datagrams: Vec<Vec<u8>> = (0..KEYS)
        .map(|k| {
            let mut r = proto_request(&key(k));
            r.request_time = (k / 2 + 1) as f32 / 1000.0;
            prost::Message::encode_to_vec(&r)
        })
        .collect();
    send_to_the_fleet(&d, &ch, &datagrams);
    let (code, body) = d.get(&format!(
        "/api/v1/fleet/reports/report_by_script_name/history?from={}&step=6s&limit={TOP}\
         &columns=req_count",
        start - 6
    ));
    assert_eq!(code, 200, "{body}");
    let keys: Vec<&str> = body["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["key"][0].as_str().unwrap())
        .collect();
    // The most time first; of two with the same, the lesser key first.
    let want: Vec<String> = (KEYS - TOP..KEYS).rev().map(|k| key(k ^ 1)).collect();
    assert_eq!(keys.len(), TOP);
    if let Some(i) = (0..TOP).find(|&i| keys[i] != want[i]) {
        panic!("series {i} is {}…, not {}…", &keys[i][..6], &want[i][..6]);
    }
    let requests: f64 = body["series"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["points"].as_array().unwrap())
        .map(|p| f(&p[1]))
        .sum();
    assert_eq!(requests, TOP as f64);
}
