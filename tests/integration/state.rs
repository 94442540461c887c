//! Run-time report changes and the state directory against the real daemon: racing changes are
//! whole steps (the limit holds, the state file agrees with the set), start-up and check-config
//! refuse the same things, and a bad state directory stops start-up naming it.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::json;

use crate::common::*;

fn report_names(d: &Daemon) -> BTreeSet<String> {
    d.strings("/api/v1/reports", "reports", "name")
        .into_iter()
        .collect()
}

#[test]
fn parallel_creations_never_overshoot_the_report_limit() {
    let state = tempfile::tempdir().unwrap();
    let config = "builtin_reports = false\n[limits]\nmax_reports = 24\n";
    let d = Daemon::start_with(config, &["--udp", "127.0.0.1:0"], Some(state.path()));
    let codes: Vec<u16> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..40)
            .map(|i| {
                let d = &d;
                s.spawn(move || {
                    d.post(
                        "/api/v1/reports",
                        &json!({"name": format!("r{i}"), "keys": ["hostname"]}),
                    )
                    .0
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // 503s (query slots) are retried by a real client; here every request got an answer.
    let created = codes.iter().filter(|&&c| c == 201).count();
    let refused = codes.iter().filter(|&&c| c == 409 || c == 503).count();
    assert_eq!(created + refused, 40, "{codes:?}");
    let names = report_names(&d);
    assert_eq!(names.len(), created);
    assert!(created <= 24, "{created} reports with max_reports = 24");
    // Fill up to the limit (some may have been refused as busy), then one more is refused.
    let mut i = 100;
    while report_names(&d).len() < 24 {
        let (code, body) = d.post(
            "/api/v1/reports",
            &json!({"name": format!("r{i}"), "keys": ["hostname"]}),
        );
        assert!(code == 201 || code == 503, "{body}");
        i += 1;
    }
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "one_more", "keys": ["hostname"]}),
    );
    assert_eq!(code, 409, "{body}");
    let before = report_names(&d);
    assert_eq!(before.len(), 24);
    d.terminate(Duration::from_secs(5));
    let d = Daemon::start_with(config, &["--udp", "127.0.0.1:0"], Some(state.path()));
    assert_eq!(
        report_names(&d),
        before,
        "the state file agrees with the set"
    );
}

#[test]
fn racing_creation_and_drop_leave_the_state_file_agreeing_with_the_set() {
    let state = tempfile::tempdir().unwrap();
    let config = "builtin_reports = false\n";
    let d = Daemon::start_with(config, &["--udp", "127.0.0.1:0"], Some(state.path()));
    for round in 0..12 {
        let name = format!("x{round}");
        std::thread::scope(|s| {
            let def = json!({"name": name, "keys": ["hostname"]});
            let (d1, d2) = (&d, &d);
            let path = format!("/api/v1/reports/{name}");
            s.spawn(move || d1.post("/api/v1/reports", &def));
            s.spawn(move || d2.delete(&path));
        });
    }
    let before = report_names(&d);
    d.terminate(Duration::from_secs(5));
    let d = Daemon::start_with(config, &["--udp", "127.0.0.1:0"], Some(state.path()));
    assert_eq!(report_names(&d), before);
}

#[test]
fn start_up_enforces_the_report_limit_and_check_config_refuses_what_start_up_refuses() {
    let dir = tempfile::tempdir().unwrap();
    // 19 built-ins and a limit of 10.
    let limit = write_file(dir.path(), "limit.toml", "[limits]\nmax_reports = 10\n");
    // A [[report]] named like a built-in.
    let dup = write_file(
        dir.path(),
        "dup.toml",
        "[[report]]\nname = \"info\"\nkeys = [\"hostname\"]\n",
    );
    // A file sink whose file cannot be made (below a regular file): check-config says so too,
    // creating nothing.
    write_file(dir.path(), "plain", "x");
    let sink = write_file(
        dir.path(),
        "sink.toml",
        "state_dir = \"state\"\n[[sink]]\nname = \"log\"\nkind = \"file\"\n\
         path = \"plain/logs/r.ndjson\"\n",
    );
    // One where no file can be created, though access(2) lets root write there.
    let proc_sink = write_file(
        dir.path(),
        "proc.toml",
        "state_dir = \"state\"\n[[sink]]\nname = \"p\"\nkind = \"file\"\n\
         path = \"/proc/pinbad-test.ndjson\"\n",
    );
    for (file, needle) in [
        (&limit, "limits.max_reports"),
        (&dup, "info"),
        (&sink, "sink `log`: cannot open"),
        (&proc_sink, "sink `p`: cannot open"),
    ] {
        let f = file.to_str().unwrap();
        let (code, err) = run_pinbad(&["check-config", f], dir.path());
        assert_eq!(code, Some(1), "check-config {f}: {err}");
        assert!(err.contains(needle), "{err}");
        let (code, err) = run_pinbad(
            &[
                "--config",
                f,
                "--udp",
                "127.0.0.1:0",
                "--http",
                "127.0.0.1:0",
            ],
            dir.path(),
        );
        assert_eq!(code, Some(1), "start {f}: {err}");
        assert!(err.contains(needle), "{err}");
    }
}

#[test]
fn an_unwritable_state_dir_stops_start_up_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // Below a regular file: no directory can be made there, even as root.
    let file = write_file(dir.path(), "plain", "x");
    let bad = file.join("state");
    let bad = bad.to_str().unwrap();
    let (code, err) = run_pinbad(
        &[
            "--state-dir",
            bad,
            "--udp",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
        ],
        dir.path(),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("state_dir") && err.contains(bad), "{err}");
    let cfg = write_file(dir.path(), "c.toml", &format!("state_dir = {bad:?}\n"));
    let (code, err) = run_pinbad(&["check-config", cfg.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("state_dir"), "{err}");
    // A state directory not made yet: check-config passes it, creating nothing (the start makes
    // it); one that cannot be made (in /proc, where access(2) would let root pass) it refuses.
    let fresh = dir.path().join("fresh/state");
    let cfg = write_file(dir.path(), "f.toml", &format!("state_dir = {fresh:?}\n"));
    let (code, err) = run_pinbad(&["check-config", cfg.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(
        !dir.path().join("fresh").exists(),
        "check-config created it"
    );
    let cfg = write_file(dir.path(), "p.toml", "state_dir = \"/proc/pinbad-state\"\n");
    let (code, err) = run_pinbad(&["check-config", cfg.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("state_dir"), "{err}");
}

#[test]
fn the_state_dir_flag_is_used_and_keeps_reports_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("flag-state");
    let config = write_file(dir.path(), "c.toml", "builtin_reports = false\n");
    let args = [
        "--state-dir",
        state.to_str().unwrap(),
        "--udp",
        "127.0.0.1:0",
    ];
    // Daemon::start_with writes state_dir into the config unless the config names one: name the
    // default so that only the flag decides.
    let text = format!(
        "{}state_dir = {:?}\n",
        std::fs::read_to_string(&config).unwrap(),
        dir.path().join("unused").to_str().unwrap()
    );
    let d = Daemon::start_with(&text, &args, None);
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "kept", "keys": ["hostname"]}),
    );
    assert_eq!(code, 201, "{body}");
    assert!(
        state.join("reports.json").exists(),
        "written where --state-dir says"
    );
    d.terminate(Duration::from_secs(5));
    let d = Daemon::start_with(&text, &args, None);
    assert!(report_names(&d).contains("kept"));
}
