//! Bad input gets a clear answer in plain words: the smaller defects of issue 7, each against the
//! real daemon.

use std::process::{Command, Stdio};

use serde_json::json;

use crate::common::*;

#[test]
fn report_queries_and_definitions_refuse_what_cannot_mean_anything() {
    let d = Daemon::start("[limits]\nmax_string_bytes = 512");
    d.send(&[request("/a.php")]);
    d.wait_merged(1);
    // `status:abc` can match nothing: a 400, not an empty 200.
    let (code, body) = d.get("/api/v1/reports/report_by_status?filter=status:abc");
    assert_eq!(code, 400, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("abc"), "{body}");
    // A number, whichever way it is written (`0200` matched nothing, compared as text).
    for status in ["200", "0200", "%2B200"] {
        let rows = d.json(&format!(
            "/api/v1/reports/report_by_status?filter=status:{status}"
        ))["rows"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(rows, 1, "status:{status}");
    }
    // Endpoints that take no parameters say so, naming the one given (they answered as if
    // it were not there).
    for path in ["/api/v1/info?format=csv", "/api/v1/reports?limit=1"] {
        let (code, body) = d.get(path);
        assert_eq!(code, 400, "{path}: {body}");
        assert_eq!(body["error"], "bad_parameter", "{body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.contains("format") || detail.contains("limit"),
            "{body}"
        );
    }
    assert_eq!(d.get("/api/v1/reports/info?format=csv").0, 200);
    // -0 is 0.
    let body = d.json("/api/v1/reports/report_by_status?percentiles=-0");
    let row = &body["rows"][0];
    assert!(row.get("p0").is_some() && row.get("p-0").is_none(), "{row}");
    // A time no f32 can hold is refused, naming the filter.
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "huge", "keys": ["hostname"], "filters": {"min_time": 1e39}}),
    );
    assert_eq!(code, 400, "{body}");
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.contains("min_time") && !detail.contains("Float("),
        "{body}"
    );
    // Strings longer than any the decoder keeps could never match: refused, naming the limit.
    let long = "x".repeat(600);
    for def in [
        json!({"name": "long1", "keys": ["hostname"], "filters": {"script_name": long}}),
        json!({"name": "long2", "keys": [format!("tag:{long}")]}),
    ] {
        let (code, body) = d.post("/api/v1/reports", &def);
        assert_eq!(code, 400, "{body}");
        assert!(
            body["detail"]
                .as_str()
                .unwrap()
                .contains("max_string_bytes"),
            "{body}"
        );
    }
    // A field or a filter given twice is refused, not read as its last occurrence.
    for body in [
        r#"{"name": "a", "name": "b", "keys": []}"#,
        r#"{"name": "c", "keys": [], "filters": {"status": 200, "status": 500}}"#,
    ] {
        let r = ureq::post(&d.url("/api/v1/reports"))
            .set("Content-Type", "application/json")
            .send_string(body);
        let Err(ureq::Error::Status(400, resp)) = r else {
            panic!("{body}: expected a 400, got {r:?}")
        };
        let text = resp.into_string().unwrap();
        assert!(
            text.contains("twice") || text.contains("duplicate"),
            "{text}"
        );
    }
    // Names of dots alone are no URL path segment.
    let (code, body) = d.post("/api/v1/reports", &json!({"name": "..", "keys": []}));
    assert_eq!(code, 400, "{body}");
    // A body that is not an object, or a field of the wrong type: plain words, no Rust types.
    for bad in [
        json!(["name", "x"]),
        json!({"name": "x", "keys": "hostname"}),
    ] {
        let (code, body) = d.post("/api/v1/reports", &bad);
        assert_eq!(code, 400, "{body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            !detail.contains("ReportDef") && !detail.contains("sequence"),
            "{detail}"
        );
    }
}

/// A report may not take the name of one of the SQL front end's raw tables (`request`, `timer`,
/// `timertag`, `tag`, in any case) nor of its `status` table: its SQL table would be hidden
/// behind that one (a POST made them, 201). Refused with a 400 naming it, and a `[[report]]` so
/// named fails the start naming its key; names that merely look alike are taken.
#[test]
fn a_report_cannot_take_the_name_of_an_sql_raw_table() {
    let d = Daemon::start("");
    for name in ["request", "REQUEST", "timer", "tag", "TimerTag"] {
        let (code, body) = d.post(
            "/api/v1/reports",
            &json!({"name": name, "keys": ["hostname"]}),
        );
        assert_eq!(code, 400, "{name}: {body}");
        assert_eq!(body["error"], "bad_request", "{body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!("`{name}`")) && detail.contains("raw table"),
            "{body}"
        );
    }
    for name in ["status", "Status"] {
        let (code, body) = d.post(
            "/api/v1/reports",
            &json!({"name": name, "keys": ["hostname"]}),
        );
        assert_eq!(code, 400, "{name}: {body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!("`{name}`")) && detail.contains("status"),
            "{body}"
        );
    }
    let names = d.strings("/api/v1/reports", "reports", "name");
    assert!(
        !names.iter().any(|n| n.eq_ignore_ascii_case("request")),
        "{names:?}"
    );
    for name in ["requests", "tags", "timer_by_host"] {
        let (code, body) = d.post(
            "/api/v1/reports",
            &json!({"name": name, "keys": ["hostname"]}),
        );
        assert_eq!(code, 201, "{name}: {body}");
    }
    let dir = tempfile::tempdir().unwrap();
    let config = write_file(
        dir.path(),
        "raw.toml",
        "[[report]]\nname = \"by_host\"\nkeys = [\"hostname\"]\n\
         [[report]]\nname = \"Tag\"\nkeys = [\"hostname\"]\n",
    );
    let (code, err) = run_pinbad(&["check-config", config.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("report[1]") && err.contains("`Tag`"), "{err}");
}

/// Every endpoint of the JSON API that takes no parameters refuses any with a 400 naming it, as
/// `/api/v1/info` and `/api/v1/reports` did (the others answered as if it were not there);
/// `/metrics`, `/healthz` and the dashboard's files still ignore them (scrape configs, probes and
/// browsers add their own).
#[test]
fn endpoints_that_take_no_parameters_refuse_any_but_metrics_health_and_the_dashboard() {
    let logs = tempfile::tempdir().unwrap();
    let d = Daemon::start(&format!(
        "[[sink]]\nname = \"log\"\nkind = \"file\"\npath = {:?}\n",
        logs.path().join("requests.ndjson").to_str().unwrap()
    ));
    for path in [
        "/api/v1/status",
        "/api/v1/sinks",
        "/api/v1/sinks/log",
        "/api/v1/openapi.json",
        "/api/v1/reports",
        "/api/v1/info",
        "/api/v1/instruments",
    ] {
        assert_eq!(d.get(path).0, 200, "{path}");
        for (query, name) in [("pretty=1", "pretty"), ("debug", "debug"), ("a=1&b=2", "a")] {
            let (code, body) = d.get(&format!("{path}?{query}"));
            assert_eq!(code, 400, "{path}?{query}: {body}");
            assert_eq!(body["error"], "bad_parameter", "{path}?{query}: {body}");
            let detail = body["detail"].as_str().unwrap();
            assert!(
                detail.contains(&format!("`{name}`")) && detail.contains("takes no parameters"),
                "{path}?{query}: {body}"
            );
        }
    }
    // Changes too, before anything changes: `?dry_run=1` dropped the report it meant to spare.
    let (code, body) = d.delete("/api/v1/reports/info?dry_run=1");
    assert_eq!(code, 400, "{body}");
    assert!(d
        .strings("/api/v1/reports", "reports", "name")
        .contains(&"info".to_string()));
    let def = json!({"name": "by_host", "keys": ["hostname"]});
    let (code, body) = d.post("/api/v1/reports?fill=false", &def);
    assert_eq!(code, 400, "{body}");
    assert_eq!(d.get("/api/v1/reports/by_host").0, 404);
    let (code, body) = d.patch("/api/v1/sinks/log?enabled=false", &json!({"sample": 0.5}));
    assert_eq!(code, 400, "{body}");
    assert_eq!(d.json("/api/v1/sinks/log")["sample"], 1.0);
    let (code, body) = d.patch(
        "/api/v1/instruments?dry_run=1",
        &json!({"name": "decode", "timed": false}),
    );
    assert_eq!(code, 400, "{body}");
    let decode = named(&d.json("/api/v1/instruments")["instruments"], "decode");
    assert_eq!(decode["timed"], true, "{decode}");
    for path in ["/metrics?format=text", "/healthz?probe=1", "/?v=2"] {
        assert_eq!(d.get_text(path).0, 200, "{path}");
    }
}

#[test]
fn a_mapped_ipv6_allow_entry_matches_ipv4_senders() {
    let d = Daemon::start("[udp]\nallow = [\"::ffff:127.0.0.1\"]\n");
    d.send(&[request("/allowed.php")]);
    d.wait_merged(1);
    let s = d.status();
    assert_eq!(s["requests_accepted"], 1, "{s}");
    assert_eq!(s["rejected_by_reason"]["source_not_allowed"], 0);
}

#[test]
fn logs_written_to_a_pipe_carry_no_colour_codes() {
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["--udp", "127.0.0.1:0", "--http", "not-an-address"])
        .env("RUST_LOG", "info")
        .env("STATE_DIRECTORY", state.path())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(!err.contains('\u{1b}'), "{err:?}");
    // Each cause said once.
    let taken = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (_, err) = run_pinbad(&["--udp", &addr, "--http", "127.0.0.1:0"], state.path());
    assert_eq!(err.matches("os error").count(), 1, "{err}");
}

#[test]
fn a_full_disk_under_stdout_and_stderr_does_not_kill_the_daemon() {
    let state = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let mut child = Command::new(BIN)
        .args([
            "--udp",
            "127.0.0.1:0",
            "--http",
            &format!("127.0.0.1:{port}"),
            "--mysql",
            "127.0.0.1:0",
        ])
        .env("RUST_LOG", "debug")
        .env("STATE_DIRECTORY", state.path())
        .stdout(full())
        .stderr(full())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/healthz");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("pinbad exited with {status:?} writing to a full disk");
        }
        if ureq::get(&url).call().is_ok() {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never answered");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
}

/// Every endpoint that takes `from` and `to` reads them alike (relative, `now`, unix seconds, RFC
/// 3339: one parser) and answers a range whose `from` is after its `to` with a 400 saying so
/// (raw requests answered such a range with an empty 200, read as "no requests").
#[test]
fn every_from_to_endpoint_takes_relative_times_and_refuses_a_reversed_range() {
    let d = Daemon::start(
        "[[report]]\nname = \"by_script\"\nkeys = [\"script_name\"]\nhistory_retention = \"1h\"\n",
    );
    d.send(&[request("/a.php"), request("/b.php")]);
    d.wait_merged(2);
    let ranged = [
        "/api/v1/requests",
        "/api/v1/reports/by_script/history",
        "/api/v1/request_logs/slow",
        "/api/v1/request_logs/errors",
    ];
    // Absolute times both ways: unix seconds and RFC 3339.
    let now = std::time::SystemTime::now();
    let hour_ago = now - std::time::Duration::from_secs(3600);
    let absolute = format!(
        "from={}&to={}",
        hour_ago
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
        humantime::format_rfc3339_seconds(now + std::time::Duration::from_secs(60))
    );
    for path in ranged {
        for range in ["from=-10m", "from=-1h&to=now", &absolute] {
            let (code, body) = d.get(&format!("{path}?{range}"));
            assert_eq!(code, 200, "{path}?{range}: {body}");
        }
        for range in [
            "from=now&to=-10m",
            "from=2026-11-25T21:00:00Z&to=1764104400",
        ] {
            let (code, body) = d.get(&format!("{path}?{range}"));
            assert_eq!(code, 400, "{path}?{range}: {body}");
            assert_eq!(body["error"], "bad_parameter", "{path}?{range}: {body}");
            let detail = body["detail"].as_str().unwrap();
            assert!(
                detail.contains("`from`") && detail.contains("`to`"),
                "{path}?{range}: {body}"
            );
        }
    }
    // The raw requests of the last ten minutes are the two sent.
    let (code, body) = d.get("/api/v1/requests?from=-10m&to=now");
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["requests"].as_array().map(Vec::len), Some(2), "{body}");
    let (_, body) = d.get("/api/v1/requests?to=-10m");
    assert_eq!(body["requests"].as_array().map(Vec::len), Some(0), "{body}");
}
