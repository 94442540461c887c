//! Report history against the real daemon: known traffic over several steps comes back from
//! `GET /api/v1/reports/{name}/history` with exact counts (top rows and the "(other)" row
//! together), sane percentiles, coarser steps that sum, filters, CSV, errors; it survives a
//! restart on the same state directory, goes when its report is dropped, and a store that cannot
//! be opened leaves the daemon running without history.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::*;

/// 1 s ticks (20 s windows), history at 1 s (`by_script`, 2 rows a step) and 2 s (`groups`).
const CONFIG: &str = r#"
stats_history = "20s"
report_ticks = 20

[[report]]
name = "by_script"
keys = ["script_name"]
history_retention = "1h"
history_step = "1s"
history_rows = 2

[[report]]
name = "groups"
keys = ["timer_tag:group"]
history_retention = "1h"
history_step = "2s"

[[report]]
name = "no_history"
keys = ["hostname"]
"#;

/// One wave: /a 30 × 10 ms, /b 20 × 20 ms, /c 10 × 50 ms (by time: /c, /b, then /a).
fn wave() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (script, n, t) in [("/a", 30, 0.010), ("/b", 20, 0.020), ("/c", 10, 0.050)] {
        out.extend((0..n).map(|_| request_with_db_timer(script, t, 0.004)));
    }
    out
}

const WAVE: u64 = 60;

fn history(d: &Daemon, name: &str, query: &str) -> Value {
    let (code, body) = d.get(&format!("/api/v1/reports/{name}/history?from=-10m&{query}"));
    assert_eq!(code, 200, "{body}");
    body
}

/// Sum of column `col` over every point of every series.
fn sum(v: &Value, col: &str) -> f64 {
    let i = v["columns"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c == col)
        .unwrap_or_else(|| panic!("no column {col} in {v}"))
        + 1;
    v["series"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["points"].as_array().unwrap())
        .map(|p| p[i].as_f64().unwrap())
        .sum()
}

/// Requests in report `name`'s history (every step of the last 10 minutes).
pub(crate) fn total_requests(d: &Daemon, name: &str) -> u64 {
    sum(
        &history(d, name, "group=total&columns=req_count"),
        "req_count",
    ) as u64
}

/// Report `name`'s history is a 404 saying that it keeps none.
fn assert_keeps_no_history(d: &Daemon, name: &str) {
    let (code, body) = d.get(&format!("/api/v1/reports/{name}/history"));
    assert_eq!(code, 404, "{body}");
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.contains("keeps no history"), "{body}");
}

/// Sends `n` waves, each in the history of every one of `reports` before the next is sent.
fn send_waves(d: &Daemon, n: u64, reports: &[&str]) {
    let mut packets = 0;
    for w in 1..=n {
        let datagrams = wave();
        packets += datagrams.len() as u64;
        d.send(&datagrams);
        d.wait_merged(packets);
        d.wait_for(
            |d| reports.iter().all(|r| total_requests(d, r) == w * WAVE),
            &format!("wave {w} in the history of {reports:?}"),
        );
    }
}

#[test]
fn history_keeps_exact_steps_across_restart() {
    let state = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(CONFIG, &["--udp", "127.0.0.1:0"], Some(state.path()));
    // Three waves, each in history before the next is sent: they land in different steps.
    send_waves(&d, 3, &["by_script"]);
    d.wait_for(
        |d| total_requests(d, "groups") == 3 * WAVE,
        "the timer report's last step",
    );
    let check = |d: &Daemon| {
        // Totals by step: every request once; three waves, three steps at least.
        let total = history(d, "by_script", "group=total&step=1s&columns=req_count,p50");
        assert_eq!(total["stored_step"], 1);
        assert_eq!(total["step"], 1);
        assert_eq!(sum(&total, "req_count"), (3 * WAVE) as f64, "{total}");
        let points = total["series"][0]["points"].as_array().unwrap();
        assert!(points.len() >= 3, "{total}");
        assert!(points
            .windows(2)
            .all(|p| p[0][0].as_i64() < p[1][0].as_i64()));
        // Rows: 2 kept a step (/c, /b by time), /a in the other row; together exact.
        let rows = history(d, "by_script", "columns=req_count,p50,p99");
        let series = rows["series"].as_array().unwrap();
        let by_key: BTreeMap<String, &Value> = series
            .iter()
            .map(|s| (s["key"][0].as_str().unwrap().to_string(), s))
            .collect();
        assert_eq!(
            by_key.keys().collect::<Vec<_>>(),
            ["(other)", "/b", "/c"],
            "{rows}"
        );
        assert_eq!(by_key["(other)"]["other"], true);
        assert_eq!(series[0]["key"], json!(["/c"]), "top by time first");
        let count = |key: &str| -> f64 {
            by_key[key]["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p[1].as_f64().unwrap())
                .sum()
        };
        assert_eq!(
            (count("/c"), count("/b"), count("(other)")),
            (30.0, 60.0, 90.0)
        );
        for p in by_key["/c"]["points"].as_array().unwrap() {
            assert!(close(p[2].as_f64().unwrap(), 0.050, 0.01), "p50 of /c: {p}");
            assert!(close(p[3].as_f64().unwrap(), 0.050, 0.01), "p99 of /c: {p}");
        }
        // A coarser step sums the stored ones (per_sec over the coarser step).
        let coarse = history(
            d,
            "by_script",
            "group=total&step=4s&columns=req_count,req_per_sec",
        );
        assert_eq!(coarse["step"], 4);
        assert_eq!(sum(&coarse, "req_count"), (3 * WAVE) as f64);
        for p in coarse["series"][0]["points"].as_array().unwrap() {
            assert_eq!(p[0].as_i64().unwrap() % 4, 0, "aligned on unix time");
            assert!(close(
                p[2].as_f64().unwrap(),
                p[1].as_f64().unwrap() / 4.0,
                1e-9
            ));
        }
        // filter= on a key column.
        let b = history(d, "by_script", "filter=script_name:/b&columns=req_count");
        assert_eq!(b["series"].as_array().unwrap().len(), 1, "{b}");
        assert_eq!(sum(&b, "req_count"), 60.0);
        // A timer report at 2 s: hits and requests of its one row.
        let g = history(d, "groups", "columns=req_count,hit_count,timer_value");
        assert_eq!(g["kind"], "timer");
        assert_eq!(g["stored_step"], 2);
        assert_eq!(g["series"][0]["key"], json!(["db"]));
        assert_eq!(sum(&g, "req_count"), (3 * WAVE) as f64);
        assert_eq!(sum(&g, "hit_count"), (6 * WAVE) as f64);
        assert!(close(
            sum(&g, "timer_value"),
            0.004 * (3 * WAVE) as f64,
            1e-3
        ));
    };
    check(&d);

    // The OpenAPI document describes the answer as it is.
    let doc = d.json("/api/v1/openapi.json");
    let props = |schema: &str| -> Vec<String> {
        let mut v: Vec<String> = doc["components"]["schemas"][schema]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("no schema {schema}"))
            .keys()
            .cloned()
            .collect();
        v.sort();
        v
    };
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let answer = history(&d, "by_script", "");
    assert_eq!(keys(&answer), props("HistoryAnswer"));
    assert_eq!(keys(&answer["series"][0]), props("HistorySeries"));

    // CSV: header, then a line per point.
    let (code, csv) =
        d.get_text("/api/v1/reports/by_script/history?from=-10m&columns=req_count,p95&format=csv");
    assert_eq!(code, 200);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("t,script_name,req_count,p95"));
    assert!(lines.any(|l| l.split(',').nth(1) == Some("/c")), "{csv}");

    // Errors: 400 naming the parameter, 404 for a report without history or none at all.
    for (query, param) in [
        ("step=1500ms", "step"),
        ("columns=req_percent", "columns"),
        ("from=yesterday", "from"),
        ("group=hosts", "group"),
        ("filter=status:200", "filter"),
        ("colour=red", "colour"),
        ("limit=1&limit=2", "limit"),
        // `group=total` reads the totals: a filter would be silently ignored.
        ("group=total&filter=script_name:/a.php", "filter"),
        ("columns=p99,req_count,p99", "columns"),
        ("from=-9223372036854775808s", "from"),
        // Longer than the range: its one point would start before `from`.
        ("step=99999999999d", "step"),
        // Each within its bound, together too many values: 1001 series × 3600 points × 1.
        ("from=-1h&step=1s&limit=1000&columns=req_count", "limit"),
    ] {
        let (code, body) = d.get(&format!("/api/v1/reports/by_script/history?{query}"));
        assert_eq!(code, 400, "{query}: {body}");
        assert!(
            body["detail"]
                .as_str()
                .unwrap()
                .contains(&format!("`{param}`")),
            "{body}"
        );
    }
    assert_keeps_no_history(&d, "no_history");
    assert_eq!(d.get("/api/v1/reports/nope/history").0, 404);

    // The listing shows the settings (resolved); built-ins have theirs.
    let list = d.json("/api/v1/reports");
    let entry = |name: &str| named(&list["reports"], name);
    assert_eq!(
        (
            entry("by_script")["history_step"].clone(),
            entry("by_script")["history_rows"].clone()
        ),
        (json!(1.0), json!(2))
    );
    assert_eq!(entry("no_history")["history_retention"], Value::Null);
    assert_eq!(entry("info")["history_retention"], json!(30.0 * 86400.0));
    assert_eq!(entry("report_by_script_name")["history_step"], json!(900.0));
    assert_eq!(entry("report_by_script_name")["history_rows"], json!(500));

    // Status and /metrics show the store.
    let h = d.status()["history"].clone();
    assert_eq!(h["available"], true, "{h}");
    assert!(h["bytes"].as_u64().unwrap() > 0, "{h}");
    assert!(h["rows"].as_u64().unwrap() >= 9, "{h}");
    assert!(h["written_steps"].as_u64().unwrap() >= 3, "{h}");
    assert!(h["oldest"].as_i64().is_some(), "{h}");
    assert_eq!(
        (h["write_errors"].as_u64(), h["dropped_ticks"].as_u64()),
        (Some(0), Some(0))
    );
    let (_, metrics) = d.get_text("/metrics");
    assert!(metrics.contains("pinbad_history_rows "), "{metrics}");
    assert!(metrics.contains("pinbad_history_written_steps_total "));

    // Restart on the same state directory: the history is still there, exactly.
    d.terminate(Duration::from_secs(5));
    let d = Daemon::start_with(CONFIG, &["--udp", "127.0.0.1:0"], Some(state.path()));
    check(&d);
    assert!(d.status()["history"]["rows"].as_u64().unwrap() >= 9);

    // After the restart (its clock resumed from the snapshot's epoch) new steps are dated now,
    // not shifted by the first run's uptime.
    let unix_s = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
    };
    let sent_at = unix_s();
    d.send(&wave());
    d.wait_merged(WAVE);
    let merged_at = unix_s();
    d.wait_for(
        |d| total_requests(d, "by_script") == 4 * WAVE,
        "a fourth wave in history after the restart",
    );
    let total = history(&d, "by_script", "group=total&columns=req_count");
    let points = total["series"][0]["points"].as_array().unwrap();
    let fourth: f64 = points
        .iter()
        .filter(|p| (sent_at - 1..=merged_at).contains(&p[0].as_i64().unwrap()))
        .map(|p| p[1].as_f64().unwrap())
        .sum();
    assert_eq!(
        fourth, WAVE as f64,
        "the fourth wave is dated between {sent_at} and {merged_at}: {total}"
    );

    // Dropping the report drops its history: re-created, it starts empty. (A report created at
    // run time is filled from the raw pool, which the snapshot restored: wait until it has
    // expired, so that the new report has nothing to fill and write.)
    d.wait_for(
        |d| d.status()["current_pool_used"] == json!(0),
        "the restored raw requests expired",
    );
    assert_eq!(d.delete("/api/v1/reports/by_script").0, 204);
    assert_eq!(d.get("/api/v1/reports/by_script/history").0, 404);
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "by_script", "keys": ["script_name"], "history_retention": "1h", "history_step": "1s"}),
    );
    assert_eq!(code, 201, "{body}");
    d.wait_for(
        |d| history(d, "by_script", "group=total")["series"] == json!([]),
        "the dropped report's history gone",
    );
}

/// With the snapshot off nothing carries the open tick over a stop: at SIGTERM each report's
/// last, partial tick goes to history (ticks here are a minute: mostly none closes while a run
/// lasts), dated up to the stop, so that the next run's ticks are counted too and not taken for
/// what was already written.
#[test]
fn without_a_snapshot_the_last_partial_tick_reaches_history_at_a_stop() {
    const CONFIG: &str = r#"
stats_history = "2m"
report_ticks = 2
[snapshot]
enabled = false

[[report]]
name = "by_script"
keys = ["script_name"]
history_retention = "1d"
history_step = "1m"
"#;
    let state = tempfile::tempdir().unwrap();
    // The runs' history log, shown if the count is wrong.
    let mut logs = Vec::new();
    for run in 1..=2u64 {
        let d = Daemon::start_logged_with(
            CONFIG,
            &["--udp", "127.0.0.1:0"],
            Some(state.path()),
            "error,pinbad::history=debug",
        );
        assert_eq!(d.status()["snapshot"]["restored"], false, "run {run}");
        d.send(&wave());
        d.wait_merged(WAVE);
        // The wave is in the report's open tick (what the stop hands to history).
        d.wait_for(
            |d| d.json("/api/v1/reports/by_script")["totals"]["req_count"] == WAVE,
            &format!("run {run}: the wave in the report"),
        );
        let (status, lines) = d.terminate_logged(Duration::from_secs(5));
        assert!(
            status.success(),
            "run {run} exited with {status}: {lines:#?}"
        );
        logs.push(lines);
    }
    let d = Daemon::start_with(CONFIG, &["--udp", "127.0.0.1:0"], Some(state.path()));
    assert_eq!(
        total_requests(&d, "by_script"),
        2 * WAVE,
        "history status {}, the runs' logs {logs:#?}",
        d.status()["history"]
    );
    assert_eq!(
        total_requests(&d, "info"),
        2 * WAVE,
        "the built-in info report too"
    );
    let rows = history(&d, "by_script", "columns=req_count");
    let by_key: BTreeMap<String, f64> = rows["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let n = s["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p[1].as_f64().unwrap())
                .sum();
            (s["key"][0].as_str().unwrap().to_string(), n)
        })
        .collect();
    assert_eq!(by_key.get("/c"), Some(&20.0), "{rows}");
}

#[test]
fn history_settings_are_validated_naming_the_key() {
    let d = Daemon::start("builtin_reports = false\nstats_history = \"20s\"\nreport_ticks = 20\n");
    for (def, needle) in [
        (
            json!({"name": "x", "keys": ["hostname"], "history_retention": "30d", "history_step": "1500ms"}),
            "history_step",
        ),
        (
            json!({"name": "x", "keys": ["hostname"], "history_retention": "1s"}),
            "history_retention",
        ),
        (
            json!({"name": "x", "keys": ["hostname"], "history_retention": "0s", "history_step": "1m"}),
            "history_retention",
        ),
        (
            json!({"name": "x", "keys": ["hostname"], "history_retention": "1h", "history_rows": 0}),
            "history_rows",
        ),
        (
            json!({"name": "x", "keys": ["hostname"], "history_retention": "1h", "history_step": "2h"}),
            "history_step",
        ),
    ] {
        let (code, body) = d.post("/api/v1/reports", &def);
        assert_eq!(code, 400, "{def}: {body}");
        assert!(
            body["detail"].as_str().unwrap().contains(needle),
            "{def}: {body}"
        );
    }
    // A step that is not a multiple of the tick (here 1 s) stops start-up, naming the key.
    let dir = tempfile::tempdir().unwrap();
    let config = write_file(
        dir.path(),
        "bad.toml",
        "stats_history = \"30s\"\nreport_ticks = 20\n[[report]]\nname = \"x\"\nkeys = [\"hostname\"]\nhistory_retention = \"1d\"\nhistory_step = \"2s\"\n",
    );
    let (code, out) = run_pinbad(&["check-config", config.to_str().unwrap()], dir.path());
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("history_step") && out.contains("`x`"), "{out}");
}

/// A store that cannot be opened (here a directory in its place; also a full disk, a read-only
/// directory, or one of another pinbad version: nothing wrong with what they hold, so they stay)
/// leaves the daemon running without history; once the store can be made, history comes back by
/// itself without a restart (issue 83, item 3), the ticks closed meanwhile counted as dropped.
#[test]
fn an_unusable_store_leaves_the_daemon_running_and_comes_back_by_itself() {
    let state = tempfile::tempdir().unwrap();
    let blocker = state.path().join("history.sqlite");
    std::fs::create_dir(&blocker).unwrap();
    let d = Daemon::start_logged_with(
        CONFIG,
        &["--udp", "127.0.0.1:0"],
        Some(state.path()),
        "pinbad=info",
    );
    let h = d.status()["history"].clone();
    assert_eq!(h["available"], false, "{h}");
    assert_eq!(h["open_errors"], 1, "{h}");
    assert!(
        h["error"].as_str().unwrap().contains("history.sqlite"),
        "{h}"
    );
    assert_eq!(d.status()["state_files"]["damaged"], 0);
    let (code, body) = d.get("/api/v1/reports/by_script/history");
    assert_eq!(code, 503, "{body}");
    // Reports work as ever.
    d.send(&wave());
    d.wait_merged(WAVE);
    assert_eq!(
        d.json("/api/v1/reports/by_script")["rows_total"],
        3,
        "the report counts without history"
    );
    // The wave's tick closes for both reports keeping history while the store is away.
    let dropped = |d: &Daemon| d.status()["history"]["dropped_ticks"].as_u64().unwrap();
    let before = dropped(&d);
    d.wait_for(
        |d| dropped(d) >= before + 2,
        "the wave's ticks closed without a store",
    );

    std::fs::remove_dir(&blocker).unwrap();
    d.wait_for(
        |d| d.status()["history"]["available"] == true,
        "the store opened again",
    );
    let h = d.status()["history"].clone();
    assert_eq!(h["reopened"], 1, "{h}");
    assert_eq!(h["open_errors"], 1, "tried again without a count each: {h}");
    assert_eq!(h["error"], Value::Null, "{h}");
    assert!(blocker.is_file(), "the store made in its place");
    d.send(&wave());
    d.wait_merged(2 * WAVE);
    d.wait_for(
        |d| total_requests(d, "by_script") == WAVE,
        "the wave after the store came back in its history",
    );
    let logs = d.logs();
    assert!(logs.iter().any(|l| l.contains("History store opened")));
    let said = logs
        .iter()
        .filter(|l| l.contains("Cannot open the history store"))
        .count();
    assert_eq!(said, 1, "logged once, not at each try");
}

/// Issue 59, item 3: a damaged store (not a database) or an empty one (0 bytes) is set aside as
/// `history.sqlite.damaged`, counted in `state_files`, and a new store takes the history from
/// the first wave on; the next start opens that store as it is.
#[test]
fn a_damaged_or_empty_store_is_set_aside_and_history_goes_on() {
    for (what, content) in [("damaged", vec![0x5a; 8192]), ("empty", Vec::new())] {
        let state = tempfile::tempdir().unwrap();
        let file = state.path().join("history.sqlite");
        std::fs::write(&file, &content).unwrap();
        let d = Daemon::start_with(CONFIG, &["--udp", "127.0.0.1:0"], Some(state.path()));
        let status = d.status();
        assert_eq!(status["history"]["available"], true, "{what}: {status}");
        assert_eq!(status["state_files"]["damaged"], 1, "{what}: {status}");
        let aside = &status["state_files"]["set_aside"][0];
        assert_eq!(aside["file"], "history.sqlite", "{what}: {aside}");
        let moved = aside["moved_to"].as_str().unwrap();
        assert!(moved.ends_with("history.sqlite.damaged"), "{moved}");
        assert_eq!(std::fs::read(moved).unwrap(), content, "{what}");
        send_waves(&d, 1, &["by_script"]);
        assert!(d.terminate(Duration::from_secs(30)).success());

        let d = Daemon::start_with(CONFIG, &["--udp", "127.0.0.1:0"], Some(state.path()));
        let status = d.status();
        assert_eq!(status["state_files"]["damaged"], 0, "{what}: {status}");
        assert_eq!(
            total_requests(&d, "by_script"),
            WAVE,
            "{what}: kept across the restart"
        );
    }
}

fn request_with_peak(script: &str, memory_peak: u32) -> Vec<u8> {
    use prost::Message;
    pinbad::proto::Request {
        memory_peak,
        ..proto_request(script)
    }
    .encode_to_vec()
}

/// The value of the sample `line_start` (the series with its labels) in a `/metrics` text.
fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// memory_peak sums and its largest, with known peaks: in the report query (total, per second,
/// percent, max), in history (steps summed, the largest of them) and on `/metrics` (the sum's
/// counter, the largest's gauge).
#[test]
fn memory_peak_is_summed_and_its_largest_kept_in_reports_history_and_metrics() {
    const MIB: u64 = 1 << 20;
    let d = Daemon::start(
        r#"
stats_history = "20s"
report_ticks = 20

[[report]]
name = "mem"
keys = ["script_name"]
history_retention = "1h"
history_step = "1s"
prometheus = true
"#,
    );
    let peaks: [(&str, u64); 4] = [
        ("/a", MIB),
        ("/a", 3 * MIB),
        ("/a", 2 * MIB),
        ("/b", 4 * MIB),
    ];
    let sent: Vec<Vec<u8>> = peaks
        .iter()
        .map(|(s, p)| request_with_peak(s, *p as u32))
        .collect();
    d.send(&sent);
    d.wait_merged(sent.len() as u64);
    // The live report.
    let body = d.json("/api/v1/reports/mem");
    let row = |script: &str| -> Value {
        body["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["script_name"] == script)
            .unwrap_or_else(|| panic!("no row {script}: {body}"))
            .clone()
    };
    let a = row("/a");
    assert_eq!(a["memory_peak_total"].as_u64(), Some(6 * MIB), "{a}");
    assert_eq!(a["memory_peak_max"].as_u64(), Some(3 * MIB), "{a}");
    assert!(
        close(a["memory_peak_percent"].as_f64().unwrap(), 60.0, 1e-9),
        "{a}"
    );
    let interval = body["time_interval"].as_f64().unwrap();
    assert!(
        close(
            a["memory_peak_per_sec"].as_f64().unwrap(),
            6.0 * MIB as f64 / interval,
            1e-6
        ),
        "{a} over {interval} s"
    );
    assert_eq!(
        body["totals"]["memory_peak_total"].as_u64(),
        Some(10 * MIB),
        "{body}"
    );
    assert_eq!(
        body["totals"]["memory_peak_max"].as_u64(),
        Some(4 * MIB),
        "{body}"
    );
    // History: every step summed, the largest of the steps.
    let columns = "columns=req_count,memory_peak_total,memory_peak_max";
    d.wait_for(
        |d| {
            sum(
                &history(d, "mem", &format!("group=total&{columns}")),
                "req_count",
            ) == 4.0
        },
        "the requests in history",
    );
    let rows = history(&d, "mem", columns);
    let series = |script: &str| -> Vec<Value> {
        rows["series"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"][0] == script)
            .unwrap_or_else(|| panic!("no series {script}: {rows}"))["points"]
            .as_array()
            .unwrap()
            .clone()
    };
    let a = series("/a");
    let total: f64 = a.iter().map(|p| p[2].as_f64().unwrap()).sum();
    let max = a.iter().map(|p| p[3].as_f64().unwrap()).fold(0.0, f64::max);
    assert_eq!((total, max), ((6 * MIB) as f64, (3 * MIB) as f64), "{rows}");
    // One coarser step over the whole range: the largest of the steps it sums.
    let whole = history(&d, "mem", &format!("group=total&step=600s&{columns}"));
    let points = whole["series"][0]["points"].as_array().unwrap();
    let max = points
        .iter()
        .map(|p| p[3].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(max, (4 * MIB) as f64, "{whole}");
    // /metrics: the sum's counter and the largest's gauge, per row.
    let (_, text) = d.get_text("/metrics");
    let value = |family: &str, s: &str| {
        metric(
            &text,
            &format!("{family}{{report=\"mem\",script_name=\"{s}\"}}"),
        )
    };
    for (family, script, want) in [
        ("pinba_memory_peak_bytes_total", "/a", 6 * MIB),
        ("pinba_memory_peak_max_bytes", "/a", 3 * MIB),
        ("pinba_memory_peak_max_bytes", "/b", 4 * MIB),
    ] {
        assert_eq!(
            value(family, script),
            Some(want as f64),
            "{family} {script}: {text}"
        );
    }
    assert!(
        text.contains("# TYPE pinba_memory_peak_max_bytes gauge"),
        "{text}"
    );
}

/// Fine steps of 2 s beside the reports' own (1 h for `hourly`, 15 min for the `report_by_*`
/// built-ins), kept 15 minutes.
const FINE_CONFIG: &str = r#"
stats_history = "20s"
report_ticks = 20

[history]
fine_step = "2s"
fine_retention = "15m"
fine_rows = 50

[[report]]
name = "hourly"
keys = ["script_name"]
history_retention = "1d"
history_step = "1h"
"#;

/// 15 scripts, `/s1` … `/s15`, script `i` sent `i` times.
fn fifteen_scripts() -> Vec<Vec<u8>> {
    (1..=15)
        .flat_map(|i| (0..i).map(move |_| request(&format!("/s{i}"))))
        .collect()
}

/// Series of a history answer by their key's first value.
fn series_keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["key"][0].as_str().unwrap_or("").to_string())
        .collect();
    keys.sort();
    keys
}

/// History from the first minute: a report whose own step is an hour, and the built-ins (15
/// minutes), answer within their first fine step (2 s) from fine steps; a built-in keeps more
/// than 10 rows; after a restart (the partial steps written at the stop), a range longer than the
/// fine retention is answered from the report's own steps, a short one still from the fine ones.
#[test]
fn history_has_points_from_the_first_fine_step_and_long_ranges_read_coarse_steps() {
    let state = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(FINE_CONFIG, &["--udp", "127.0.0.1:0"], Some(state.path()));
    let sent = fifteen_scripts();
    let n = sent.len() as u64; // 120
    d.send(&sent);
    d.wait_merged(n);
    let fine_total = |d: &Daemon, name: &str| {
        let v = history(d, name, "group=total&columns=req_count");
        (sum(&v, "req_count") as u64, v["stored_step"].as_u64())
    };
    // Neither the hour nor the 15 minutes have ended: the points are the fine steps'.
    d.wait_for(
        |d| fine_total(d, "hourly") == (n, Some(2)),
        "`hourly` in its fine steps",
    );
    d.wait_for(
        |d| fine_total(d, "report_by_script_name") == (n, Some(2)),
        "report_by_script_name in its fine steps",
    );
    let rows = history(&d, "report_by_script_name", "limit=20&columns=req_count");
    let keys = series_keys(&rows);
    assert_eq!(keys.len(), 15, "every script its own series: {rows}");
    assert!(
        keys.iter().all(|k| k.starts_with("/s")),
        "no \"(other)\": {rows}"
    );
    // Points are placed by the step's start, on the fine step's grid.
    for s in rows["series"].as_array().unwrap() {
        for p in s["points"].as_array().unwrap() {
            assert_eq!(p[0].as_i64().unwrap() % 2, 0, "{p}");
        }
    }
    // The stop writes the partial steps of both resolutions; the restart reads them back.
    assert!(d.terminate(Duration::from_secs(30)).success());
    let d = Daemon::start_with(FINE_CONFIG, &["--udp", "127.0.0.1:0"], Some(state.path()));
    let long = |d: &Daemon, name: &str, q: &str| {
        let (code, v) = d.get(&format!("/api/v1/reports/{name}/history?from=-2h&{q}"));
        assert_eq!(code, 200, "{v}");
        v
    };
    // The open tick, carried over by the snapshot, reaches both after the restart.
    for name in ["hourly", "report_by_script_name"] {
        d.wait_for(
            |d| sum(&long(d, name, "group=total&columns=req_count"), "req_count") == n as f64,
            &format!("`{name}`'s own steps over two hours"),
        );
    }
    let v = long(&d, "hourly", "group=total&columns=req_count");
    assert_eq!(v["stored_step"], 3600, "{v}");
    let rows = long(&d, "report_by_script_name", "limit=20&columns=req_count");
    assert_eq!(rows["stored_step"], 900, "{rows}");
    let keys = series_keys(&rows);
    assert_eq!(keys.len(), 15, "a built-in keeps more than 10 rows: {rows}");
    assert_eq!(sum(&rows, "req_count"), n as f64, "{rows}");
    // Within the fine retention: still the fine steps.
    let (code, v) = d.get("/api/v1/reports/hourly/history?from=-50s&group=total&columns=req_count");
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["stored_step"], 2, "{v}");
}

/// Reports sharing a table (docs/reports.md, "share one table") each keep their own history: the table's
/// closed ticks reach history under every name reading it, exactly.
#[test]
fn reports_sharing_a_table_each_keep_their_history() {
    let twin = |name: &str| {
        format!(
            "[[report]]\nname = \"{name}\"\nkeys = [\"script_name\"]\nhistory_retention = \"1h\"\n\
             history_step = \"1s\"\nhistory_rows = 2\n"
        )
    };
    let config = format!(
        "stats_history = \"20s\"\nreport_ticks = 20\n{}{}",
        twin("scripts_a"),
        twin("scripts_b")
    );
    let state = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(&config, &["--udp", "127.0.0.1:0"], Some(state.path()));
    assert_eq!(
        named(&d.status()["reports"], "scripts_b")["shares_table_with"],
        "scripts_a"
    );
    send_waves(&d, 2, &["scripts_a", "scripts_b"]);
    let rows = |name: &str| history(&d, name, "columns=req_count")["series"].clone();
    assert_eq!(rows("scripts_a"), rows("scripts_b"));
    assert_eq!(
        history(&d, "scripts_b", "columns=req_count")["report"],
        "scripts_b"
    );
}

/// Issue 82, item 3: a report created at run time keeps history without being asked (a day,
/// the listing says so), its steps answer with what was sent once they close; `"0s"` keeps
/// none, as asked, and its history is a 404 that says so.
#[test]
fn a_report_created_at_run_time_keeps_history_by_default() {
    let d = Daemon::start(CONFIG);
    // A 1 s step, so that its steps close within the test (the default step is 1 minute).
    let (code, made) = d.post(
        "/api/v1/reports",
        &json!({"name": "rt", "keys": ["script_name"], "history_step": "1s"}),
    );
    assert_eq!(code, 201, "{made}");
    assert_eq!(made["history_retention"], json!(86400.0), "{made}");
    assert_eq!(made["history_step"], json!(1.0), "{made}");
    let (code, plain) = d.post(
        "/api/v1/reports",
        &json!({"name": "rt_plain", "keys": ["hostname"]}),
    );
    assert_eq!(code, 201, "{plain}");
    assert_eq!(
        (
            plain["history_retention"].clone(),
            plain["history_step"].clone()
        ),
        (json!(86400.0), json!(60.0)),
        "{plain}"
    );
    let (code, none) = d.post(
        "/api/v1/reports",
        &json!({"name": "rt_none", "keys": ["hostname"], "history_retention": "0s"}),
    );
    assert_eq!(code, 201, "{none}");
    assert_eq!(none["history_retention"], Value::Null, "{none}");
    assert_keeps_no_history(&d, "rt_none");

    // Two waves, each in the run-time report's history before the next is sent.
    send_waves(&d, 2, &["rt"]);
    let rows = history(&d, "rt", "columns=req_count");
    let by_script: BTreeMap<String, f64> = rows["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let n: f64 = s["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p[1].as_f64().unwrap())
                .sum();
            (s["key"][0].as_str().unwrap_or("").to_string(), n)
        })
        .collect();
    assert_eq!(
        by_script,
        BTreeMap::from([
            ("/a".to_string(), 60.0),
            ("/b".to_string(), 40.0),
            ("/c".to_string(), 20.0)
        ]),
        "{rows}"
    );
}
