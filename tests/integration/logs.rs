//! Logs as operators see them: JSON lines, client addresses on changes, 4xx answers at debug.

use serde_json::{json, Value};

use crate::common::Daemon;

#[test]
fn json_logs_are_one_object_per_line_and_changes_name_the_client() {
    // Started only once it has printed its plain "listening" lines on stdout (`Daemon::attach`
    // reads them): with JSON logs too, as docs/configuration.md says; the JSON is all on stderr.
    let d = Daemon::start_logged("[log]\nformat = \"json\"\n", "info");
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "by_host", "keys": ["hostname"]}),
    );
    assert_eq!(code, 201, "{body}");
    let created = d.wait_log("Report created");
    assert_eq!(d.delete("/api/v1/reports/by_host").0, 204);
    let dropped = d.wait_log("Report dropped");

    let lines = d.logs();
    assert!(lines.len() >= 3, "{lines:?}");
    for line in &lines {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not a JSON object ({e}): {line}"));
        assert!(
            v["timestamp"].is_string() && v["level"].is_string(),
            "{line}"
        );
        assert!(v["message"].is_string(), "{line}");
        assert!(!line.contains('\u{1b}'), "no colour codes: {line}");
    }
    for (line, message) in [(created, "Report created"), (dropped, "Report dropped")] {
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["message"], message);
        assert_eq!(v["level"], "INFO");
        assert_eq!(v["report"], "by_host");
        // The client is this test's connection: a loopback address with its port.
        let client: std::net::SocketAddr = v["client"]
            .as_str()
            .unwrap_or_else(|| panic!("no client in {line}"))
            .parse()
            .unwrap();
        assert!(client.ip().is_loopback() && client.port() != 0, "{line}");
    }
}

#[test]
fn text_logs_have_no_colour_in_a_pipe_and_show_4xx_at_debug() {
    let d = Daemon::start_logged("", "pinbad=debug");
    assert_eq!(d.get("/api/v1/reports/nope").0, 404);
    assert_eq!(d.get("/api/v1/reports/info?limit=lots").0, 400);
    let not_found = d.wait_log("no report named `nope`");
    assert!(not_found.contains("DEBUG"), "{not_found}");
    assert!(not_found.contains("status=404"), "{not_found}");
    assert!(not_found.contains("/api/v1/reports/nope"), "{not_found}");
    assert!(not_found.contains("client=127.0.0.1:"), "{not_found}");
    let bad = d.wait_log("parameter `limit`");
    assert!(
        bad.contains("status=400") && bad.contains("bad_parameter"),
        "{bad}"
    );
    for line in d.logs() {
        assert!(!line.contains('\u{1b}'), "colour code in a pipe: {line:?}");
    }
}

#[test]
fn an_unknown_log_format_stops_start_up_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::common::write_file(dir.path(), "p.toml", "[log]\nformat = \"xml\"\n");
    let (code, stderr) =
        crate::common::run_pinbad(&["check-config", config.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("format") && stderr.contains("xml"),
        "{stderr}"
    );
}

/// A window `report_ticks` does not cut into whole milliseconds covers a little less than set:
/// said at start-up, once for `stats_history` and once per report with its own `history`.
#[test]
fn a_window_report_ticks_does_not_divide_is_warned_about() {
    let config = "stats_history = \"900s\"\nreport_ticks = 7\n\
                  [[report]]\nname = \"own\"\nkeys = [\"script_name\"]\nhistory = \"10s\"\n";
    let d = Daemon::start_logged(config, "warn");
    let all = d.wait_log("key=\"stats_history\"");
    assert!(
        all.contains("covers 899997 ms of the 900000 ms") && all.contains("report=\"(all)\""),
        "{all}"
    );
    let own = d.wait_log("report=\"own\"");
    assert!(own.contains("covers 9996 ms of the 10000 ms"), "{own}");
}

/// A `RUST_LOG` that does not parse stops start-up naming it (it fell back to `info` whole,
/// silently); and a closed stdout does not turn `check-config`'s exit 0 into a panic.
#[test]
fn a_bad_rust_log_stops_start_up_and_a_closed_stdout_is_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    // The daemon started with `RUST_LOG=rust_log`: its exit code and stderr.
    let start = |rust_log: &str| {
        let out = std::process::Command::new(crate::common::BIN)
            .args(["--udp", "127.0.0.1:0", "--http", "127.0.0.1:0"])
            .env("RUST_LOG", rust_log)
            .env("STATE_DIRECTORY", dir.path())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = start("pinbad=debug,hyper=warnn");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("RUST_LOG") && stderr.contains("warnn"),
        "{stderr}"
    );
    // A mistyped level alone would parse as a module name and silence every line: refused too.
    let (code, stderr) = start("warning");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("`warning` is not a level"), "{stderr}");

    let config = crate::common::write_file(dir.path(), "p.toml", "");
    let mut child = std::process::Command::new(crate::common::BIN)
        .args(["check-config", config.to_str().unwrap()])
        .env("RUST_LOG", "off")
        .env("STATE_DIRECTORY", dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader is gone before anything is written
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Options are logged as their values: the SQL front end's address as `mysql=127.0.0.1:PORT`,
/// not `mysql=Some(127.0.0.1:PORT)` (issue 60).
#[test]
fn addresses_are_logged_as_their_values() {
    let d = Daemon::start_logged("", "info");
    let mysql = d.mysql.expect("the SQL front end is on by default");
    let line = d.wait_log("mysql=");
    assert!(
        line.contains(&format!("mysql={mysql}")) && !line.contains("Some("),
        "{line}"
    );
}
