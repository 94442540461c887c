//! Comparing two ranges of history against the real daemon (issue 82, item 1): one script is
//! slowed threefold between two ranges, another starts failing, a third is unchanged; real
//! datagrams, real steps (fine steps of 1 s beside the built-ins' 15 minutes), real HTTP.
//! `GET /api/v1/compare` ranks the slowed script first as significant and does not flag the
//! unchanged one, for a built-in report, a report with a `status` key (error ratios) and one
//! created at run time; `vs`/`at` give the same ranges; CSV; bad parameters are 400s naming them.

use serde_json::{json, Value};

use crate::common::*;

/// 1 s ticks, fine steps of 1 s kept a day (as by default) for every report keeping history
/// (the built-ins among them).
pub(crate) const CONFIG: &str = r#"
stats_history = "20s"
report_ticks = 20

[history]
fine_step = "1s"
fine_retention = "1d"
"#;

/// Requests of each script a wave.
const N: u64 = 100;

/// A wave: `/slow` 20-40 ms (×`slow`), `/same` 10-20 ms, `/errs` 15 ms with `errors` of them
/// answered 500.
fn wave(slow: f32, errors: u64) -> Vec<Vec<u8>> {
    use prost::Message;
    let mut out = Vec::new();
    for i in 0..N {
        let mut r = proto_request("/slow");
        r.request_time = (0.020 + 0.001 * (i % 21) as f32) * slow;
        out.push(r.encode_to_vec());
        let mut r = proto_request("/same");
        r.request_time = 0.010 + 0.0005 * (i % 21) as f32;
        out.push(r.encode_to_vec());
        let mut r = proto_request("/errs");
        r.request_time = 0.015;
        r.status = Some(if i < errors { 500 } else { 200 });
        out.push(r.encode_to_vec());
    }
    out
}

/// The steps (unix seconds) of report `name`'s history holding requests, and their total.
fn steps(d: &Daemon, name: &str) -> (Vec<i64>, u64) {
    let (code, v) = d.get(&format!(
        "/api/v1/reports/{name}/history?from=-10m&group=total&columns=req_count"
    ));
    assert_eq!(code, 200, "{v}");
    let points = v["series"][0]["points"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Once there are any, the fine steps answer.
    assert!(points.is_empty() || v["stored_step"] == 1, "{v}");
    let ts = points.iter().map(|p| p[0].as_i64().unwrap()).collect();
    let n = points.iter().map(|p| p[1].as_u64().unwrap()).sum();
    (ts, n)
}

const REPORTS: [&str; 3] = [
    "report_by_script_name",
    "report_by_script_and_status",
    "runtime",
];

/// Sends `datagrams` (`sent` before them) and waits until the history of every one of
/// `reports` holds them; the steps holding requests.
fn send_into_history(d: &Daemon, reports: &[&str], datagrams: &[Vec<u8>], sent: u64) -> Vec<i64> {
    d.send(datagrams);
    let total = sent + datagrams.len() as u64;
    d.wait_merged(total);
    d.wait_for(
        |d| reports.iter().all(|r| steps(d, r).1 == total),
        &format!("{total} requests in the history of {reports:?}"),
    );
    steps(d, reports[0]).0
}

/// Range A's wave, then range B's (`/slow` three times slower, 40 of `/errs` answered 500), each
/// in the history of `reports` (under `CONFIG`) before the next is sent, so that B's steps all
/// come after A's. Returns the boundary (B's first step) and a length such that ranges of it
/// before and after the boundary hold each its wave; range B has passed when this returns.
pub(crate) fn slowed_between_two_ranges(d: &Daemon, reports: &[&str]) -> (i64, i64) {
    let a_steps = send_into_history(d, reports, &wave(1.0, 0), 0);
    let boundary = a_steps.iter().max().unwrap() + 1;
    let all = send_into_history(d, reports, &wave(3.0, 40), 3 * N);
    let last = *all.iter().max().unwrap();
    assert!(last >= boundary, "{all:?}");
    let len = (boundary - a_steps.iter().min().unwrap()).max(last + 1 - boundary);
    // Range B has passed (its rate divides by all of it).
    d.wait_for(
        |d| {
            let (code, v) = d.get(&format!(
                "/api/v1/compare?report={}&at={boundary}&span={len}s",
                reports[0]
            ));
            code == 200 && v["b"]["seconds"] == len
        },
        "range B to pass",
    );
    (boundary, len)
}

fn row<'a>(v: &'a Value, script: &str) -> &'a Value {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"][0] == script)
        .unwrap_or_else(|| panic!("no row {script} in {v}"))
}

fn change<'a>(row: &'a Value, metric: &str) -> &'a Value {
    row["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric} in {row}"))
}

#[test]
fn a_slowed_script_ranks_first_as_significant_and_an_unchanged_one_is_not_flagged() {
    let d = Daemon::start_with(CONFIG, &["--udp", "127.0.0.1:0"], None);
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "runtime", "keys": ["script_name"], "history_retention": "1h"}),
    );
    assert!(code == 200 || code == 201, "{code} {body}");
    let (boundary, len) = slowed_between_two_ranges(&d, &REPORTS);
    let query = format!(
        "a_from={}&a_to={boundary}&b_from={boundary}&b_to={}",
        boundary - len,
        boundary + len
    );
    let compare = |d: &Daemon, report: &str, q: &str| {
        let (code, v) = d.get(&format!("/api/v1/compare?report={report}&{q}"));
        assert_eq!(code, 200, "{v}");
        v
    };
    for report in REPORTS {
        let v = compare(&d, report, &query);
        assert_eq!(
            (&v["a"]["step"], &v["b"]["step"]),
            (&json!(1), &json!(1)),
            "{v}"
        );
        assert_eq!(
            (v["a"]["seconds"].as_i64(), v["b"]["seconds"].as_i64()),
            (Some(len), Some(len)),
            "{v}"
        );
        assert_eq!(v["rows_compared"], 3, "{v}");
        assert_eq!(v["total"]["a"]["requests"], 3 * N, "{v}");
        assert_eq!(v["total"]["b"]["requests"], 3 * N, "{v}");
        let slow = row(&v, "/slow");
        assert_eq!(slow["significant"], true, "{report}: {v}");
        assert_eq!(
            (
                slow["a"]["requests"].as_u64(),
                slow["b"]["requests"].as_u64()
            ),
            (Some(N), Some(N))
        );
        for p in ["p50", "p95", "p99"] {
            let c = change(slow, p);
            assert_eq!(c["significant"], true, "{report} {p}: {slow}");
            assert!(
                c["p_value"].as_f64().unwrap() < 1e-6,
                "{report} {p}: {slow}"
            );
            let ratio = c["ratio"].as_f64().unwrap();
            assert!(close(ratio, 3.0, 0.05), "{report} {p}: ratio {ratio}");
        }
        // p95 of 20..40 ms: 39 ms; of 60..120 ms: 117 ms.
        assert!(
            close(slow["a"]["p95"].as_f64().unwrap(), 0.039, 0.02),
            "{slow}"
        );
        assert!(
            close(slow["b"]["p95"].as_f64().unwrap(), 0.117, 0.02),
            "{slow}"
        );
        // The rate did not change (the same requests over ranges of one length).
        let rate = change(slow, "rate");
        assert_eq!(rate["significant"], false, "{slow}");
        assert!(close(
            slow["a"]["rate"].as_f64().unwrap(),
            N as f64 / len as f64,
            1e-9
        ));
        let same = row(&v, "/same");
        assert_eq!(same["significant"], false, "{report}: {same}");
        assert_eq!(same["score"], 0.0, "{same}");
        for c in same["changes"].as_array().unwrap() {
            assert_ne!(c["significant"], true, "{report}: {c}");
        }
        if report == "report_by_script_and_status" {
            // Error ratios by the other keys: /errs from none to 40 %, ranked first (a change
            // from 0), /slow after it.
            assert_eq!(v["key_columns"], json!(["script_name"]), "{v}");
            assert_eq!(v["errors_from"], "status");
            let errs = row(&v, "/errs");
            assert_eq!(
                (errs["a"]["errors"].as_u64(), errs["b"]["errors"].as_u64()),
                (Some(0), Some(40)),
                "{errs}"
            );
            assert_eq!(errs["b"]["error_ratio"], 0.4);
            let e = change(errs, "error_ratio");
            assert_eq!(e["significant"], true, "{errs}");
            assert!(e["p_value"].as_f64().unwrap() < 1e-10, "{errs}");
            assert_eq!(v["rows"][0]["key"], json!(["/errs"]), "{v}");
            assert_eq!(v["rows"][1]["key"], json!(["/slow"]), "{v}");
            assert_eq!(v["significant_rows"], 2, "{v}");
            assert_eq!(change(same, "error_ratio")["p_value"], 1.0, "{same}");
        } else {
            // No status key: no error ratio; /errs' time did not change.
            assert_eq!(v["errors_from"], Value::Null);
            assert_eq!(change(slow, "error_ratio")["p_value"], Value::Null);
            assert_eq!(v["rows"][0]["key"], json!(["/slow"]), "{report}: {v}");
            assert_eq!(v["significant_rows"], 1, "{report}: {v}");
            assert_eq!(row(&v, "/errs")["significant"], false, "{v}");
        }
    }
    // The shorthands: `at` the boundary, and `vs` the range's length, give the same ranges.
    let explicit = compare(&d, REPORTS[0], &query);
    let at = compare(&d, REPORTS[0], &format!("at={boundary}&span={len}s"));
    let vs = compare(
        &d,
        REPORTS[0],
        &format!("vs={len}s&b_from={boundary}&b_to={}", boundary + len),
    );
    for v in [&at, &vs] {
        assert_eq!((&v["a"], &v["b"]), (&explicit["a"], &explicit["b"]), "{v}");
        assert_eq!(v["rows"], explicit["rows"]);
    }
    // Ranked by one figure, and limited.
    let by = compare(&d, REPORTS[1], &format!("{query}&by=p95&limit=1"));
    assert_eq!(by["rows"].as_array().unwrap().len(), 1, "{by}");
    assert_eq!(by["rows"][0]["key"], json!(["/slow"]), "{by}");
    assert_eq!(by["significant_rows"], 1, "{by}");
    // CSV: a header, then a line per row, ranked.
    let (code, csv) = d.get_text(&format!(
        "/api/v1/compare?report={}&{query}&format=csv",
        REPORTS[0]
    ));
    assert_eq!(code, 200, "{csv}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(
        lines[0].starts_with("script_name,other,significant,score,a_requests,b_requests,a_rate,"),
        "{csv}"
    );
    assert!(lines[1].starts_with("/slow,false,true,"), "{csv}");
    assert!(lines[1].contains(&format!(",{N},{N},")), "{csv}");
    // Bad parameters: a 400 naming the parameter.
    for (q, param) in [
        ("report=runtime", "a_from"),
        ("vs=1h", "report"),
        ("report=runtime&vs=soon", "vs"),
        ("report=runtime&vs=1h&at=-1m", "vs"),
        ("report=runtime&vs=1h&limit=x", "limit"),
        ("report=runtime&vs=1h&by=speed", "by"),
        ("report=runtime&vs=1h&alpha=2", "alpha"),
        ("report=runtime&at=-1m&span=1h&format=xml", "format"),
        (
            "report=runtime&a_from=-1h&a_to=-2h&b_from=-1h&b_to=now",
            "a_from",
        ),
        ("report=runtime&vs=1h&nonsense=1", "nonsense"),
    ] {
        let (code, v) = d.get(&format!("/api/v1/compare?{q}"));
        assert_eq!(code, 400, "{q}: {v}");
        assert_eq!(v["error"], "bad_parameter", "{q}: {v}");
        assert!(
            v["detail"]
                .as_str()
                .unwrap()
                .contains(&format!("`{param}`")),
            "{q}: {v}"
        );
    }
    let (code, v) = d.get("/api/v1/compare?report=nosuch&vs=1h");
    assert_eq!(code, 404, "{v}");
    // A report keeping no history.
    let (code, v) = d.post(
        "/api/v1/reports",
        &json!({"name": "nohistory", "keys": ["hostname"], "history_retention": "0s"}),
    );
    assert!(code == 200 || code == 201, "{code} {v}");
    let (code, v) = d.get("/api/v1/compare?report=nohistory&vs=1h");
    assert_eq!(code, 404, "{v}");
    assert!(v["detail"].as_str().unwrap().contains("history"), "{v}");
}
