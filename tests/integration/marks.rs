//! Marks (issue 82, item 2): `POST /api/v1/marks`, the list by time, `DELETE`, the token every
//! change needs, the marks kept in `{state_dir}/marks.json` across a restart (a damaged file set
//! aside), and the SQL table `marks` that Grafana's annotation query reads, through the real
//! `mariadb` client and the shipped dashboard's own query.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::Daemon;

const TOKEN: &str = "s3cret";
const CONFIG: &str = "[http]\ntoken = \"s3cret\"\ntoken_reads = false\n";

/// A request with a JSON body (or none) and, if given, the bearer token: (status, JSON body).
fn send(
    d: &Daemon,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, Value) {
    let mut req = ureq::request(method, &d.url(path)).set("Content-Type", "application/json");
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    let answer = match body {
        Some(b) => req.send_string(b),
        None => req.call(),
    };
    let (code, text) = match answer {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap()),
        Err(e) => panic!("{method} {path}: {e}"),
    };
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: {e}: {text}"))
    };
    (code, body)
}

fn add(d: &Daemon, body: Value) -> Value {
    let (code, answer) = send(
        d,
        "POST",
        "/api/v1/marks",
        Some(TOKEN),
        Some(&body.to_string()),
    );
    assert_eq!(code, 201, "{body}: {answer}");
    answer
}

fn texts(d: &Daemon, query: &str) -> Vec<String> {
    d.strings(&format!("/api/v1/marks{query}"), "marks", "text")
}

/// The dashboard's annotation query as Grafana sends it for a range (`$__unixEpochFilter(time)`
/// expanded as Grafana's MySQL data source does).
fn grafana_annotation_query(from_s: i64, to_s: i64) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/contrib/grafana/pinbad.json");
    let dash: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let marks = dash["annotations"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["datasource"]["type"] == "mysql")
        .expect("the dashboard's marks annotation (a MySQL data source's)")
        .clone();
    let raw = marks["target"]["rawSql"]
        .as_str()
        .expect("rawSql")
        .to_string();
    assert!(raw.contains("$__unixEpochFilter(time)"), "{raw}");
    raw.replace(
        "$__unixEpochFilter(time)",
        &format!("time >= {from_s} AND time <= {to_s}"),
    )
}

/// Added, listed by time within a range, refused without the token or with a bad body (each a
/// 4xx JSON error), deleted, read over SQL as Grafana's annotation query reads them, and kept
/// across a restart with their ids, which are never given again.
#[test]
fn marks_are_added_listed_deleted_read_over_sql_and_kept_across_a_restart() {
    let state = tempfile::tempdir().unwrap();
    let args = ["--udp", "127.0.0.1:0"];
    let d = Daemon::start_with(CONFIG, &args, Some(state.path()));
    let deploy = r#"{"text": "deploy v1.4.2", "time": 1764100000, "server_name": "shop"}"#;

    // The token is needed, as for every change; a wrong one is refused too.
    for token in [None, Some("wrong")] {
        let (code, body) = send(&d, "POST", "/api/v1/marks", token, Some(deploy));
        assert_eq!(
            (code, body["error"].as_str()),
            (401, Some("unauthorized")),
            "{body}"
        );
    }
    // Bad bodies: a 400 saying what is wrong.
    let long = format!(r#"{{"text": "{}"}}"#, "x".repeat(257));
    for (body, needle) in [
        ("[]", "must be a JSON object"),
        ("{}", "missing field `text`"),
        (r#"{"text": ""}"#, "`text` is empty"),
        (r#"{"text": "x", "time": "soon"}"#, "`time`"),
        (r#"{"text": "x", "when": 5}"#, "unknown field `when`"),
        (long.as_str(), "above 256"),
    ] {
        let (code, answer) = send(&d, "POST", "/api/v1/marks", Some(TOKEN), Some(body));
        assert_eq!(code, 400, "{body}: {answer}");
        assert!(
            answer["detail"].as_str().unwrap().contains(needle),
            "{body}: {answer}"
        );
    }
    assert!(texts(&d, "").is_empty(), "nothing refused was kept");

    let first = add(&d, serde_json::from_str(deploy).unwrap());
    assert_eq!(first["id"], 0);
    assert_eq!(first["time"], 1764100000.0);
    assert_eq!(first["server_name"], "shop");
    let second = add(
        &d,
        json!({"text": "config change", "time": "2025-11-25T22:00:00Z", "script_name": "/api.php"}),
    );
    assert_eq!(second["time"], 1764108000.0);
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let third = add(&d, json!({"text": "restarted php-fpm"}));
    assert!(
        (third["time"].as_f64().unwrap() - now_s).abs() < 60.0,
        "{third}"
    );

    // Listed by time, within a range (`from`/`to` as history takes them).
    assert_eq!(
        texts(&d, ""),
        ["deploy v1.4.2", "config change", "restarted php-fpm"]
    );
    assert_eq!(
        texts(&d, "?from=1764099000&to=1764104000"),
        ["deploy v1.4.2"]
    );
    assert_eq!(texts(&d, "?from=-1h"), ["restarted php-fpm"]);
    for bad in [
        "?from=soon",
        "?from=1764104000&to=1764099000",
        "?colour=red",
        "?to=1&to=2",
    ] {
        let (code, body) = d.get(&format!("/api/v1/marks{bad}"));
        assert_eq!(code, 400, "{bad}: {body}");
        assert_eq!(body["error"], "bad_parameter", "{bad}: {body}");
    }
    assert_eq!(d.status()["marks"]["count"], 3);

    // Over SQL, as Grafana's annotation query reads them (the shipped dashboard's query).
    if crate::sql::have_mariadb() {
        let rows = crate::sql::sql(
            &d,
            "SELECT id, time, time_ms, text, server_name, script_name FROM marks \
             WHERE time >= 1764099000 AND time <= 1764110000 ORDER BY time",
        );
        assert_eq!(
            rows,
            [
                vec![
                    "id",
                    "time",
                    "time_ms",
                    "text",
                    "server_name",
                    "script_name"
                ],
                vec![
                    "0",
                    "1764100000",
                    "1764100000000",
                    "deploy v1.4.2",
                    "shop",
                    "NULL"
                ],
                vec![
                    "1",
                    "1764108000",
                    "1764108000000",
                    "config change",
                    "NULL",
                    "/api.php"
                ],
            ]
        );
        let rows = crate::sql::sql(&d, &grafana_annotation_query(1764099000, 1764104000));
        assert_eq!(
            rows.len(),
            2,
            "a header and the one mark in range: {rows:?}"
        );
        assert_eq!(rows[0][..2], ["time", "text"], "{rows:?}");
        assert_eq!(rows[1][..2], ["1764100000", "deploy v1.4.2"], "{rows:?}");
        let tables = crate::sql::sql(&d, "SHOW TABLES LIKE 'marks'");
        assert_eq!(tables.len(), 2, "{tables:?}");
        // A report may not take the table's name.
        let (code, body) = send(
            &d,
            "POST",
            "/api/v1/reports",
            Some(TOKEN),
            Some(r#"{"name": "marks", "keys": ["script_name"]}"#),
        );
        assert_eq!(code, 400, "{body}");
    }

    // Deleted with the token; a second time, or an id that is no number, is a 4xx.
    assert_eq!(send(&d, "DELETE", "/api/v1/marks/1", None, None).0, 401);
    assert_eq!(
        send(&d, "DELETE", "/api/v1/marks/1", Some(TOKEN), None).0,
        204
    );
    let (code, body) = send(&d, "DELETE", "/api/v1/marks/1", Some(TOKEN), None);
    assert_eq!(
        (code, body["error"].as_str()),
        (404, Some("not_found")),
        "{body}"
    );
    let (code, body) = send(&d, "DELETE", "/api/v1/marks/one", Some(TOKEN), None);
    assert_eq!(code, 400, "{body}");
    let before = d.json("/api/v1/marks");
    assert_eq!(texts(&d, ""), ["deploy v1.4.2", "restarted php-fpm"]);

    // A restart keeps them as they were; ids go on past the deleted one.
    assert!(d.terminate(Duration::from_secs(15)).success());
    let d = Daemon::start_with(CONFIG, &args, Some(state.path()));
    assert_eq!(d.json("/api/v1/marks"), before);
    assert_eq!(add(&d, json!({"text": "after the restart"}))["id"], 3);
    assert_eq!(d.status()["marks"]["count"], 3);
}

/// A damaged `marks.json` is set aside at the start (the status says so) and the daemon starts
/// without marks; a new mark is written afresh.
#[test]
fn a_damaged_marks_file_is_set_aside_and_the_start_goes_on() {
    let state = tempfile::tempdir().unwrap();
    std::fs::write(
        state.path().join("marks.json"),
        "{\"version\": 1, \"marks\": [",
    )
    .unwrap();
    let d = Daemon::start_with(CONFIG, &["--udp", "127.0.0.1:0"], Some(state.path()));
    let aside = &d.status()["state_files"]["set_aside"];
    assert!(
        aside
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["file"] == "marks.json"),
        "{aside}"
    );
    assert!(state.path().join("marks.json.damaged").exists());
    assert!(texts(&d, "").is_empty());
    add(&d, json!({"text": "deploy"}));
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(state.path().join("marks.json")).unwrap())
            .unwrap();
    assert_eq!(saved["marks"][0]["text"], "deploy");
}
