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
    // 21 built-ins and a limit of 10.
    let limit = write_file(dir.path(), "limit.toml", "[limits]\nmax_reports = 10\n");
    // Two [[report]]s of one name (one named like a built-in replaces it: docs/reports.md).
    let dup = write_file(
        dir.path(),
        "dup.toml",
        "[[report]]\nname = \"mine\"\nkeys = [\"hostname\"]\n\
         [[report]]\nname = \"mine\"\nkeys = [\"script_name\"]\n",
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
        (&dup, "duplicate report name `mine`"),
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

/// A damaged `reports.json` or `sinks.json` stops no start: each is set aside as `NAME.damaged`
/// (logged with why, shown in the status) and the daemon starts with the configured reports and
/// sinks; check-config says so and moves nothing. A `reports.json` the config no longer takes
/// (more reports than `limits.max_reports`) goes the same way.
#[test]
fn damaged_state_files_are_set_aside_and_the_start_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    std::fs::write(state.join("reports.json"), "{\"created\": [{\"name\": ").unwrap();
    std::fs::write(state.join("sinks.json"), "[1, 2").unwrap();
    let config = format!(
        "state_dir = {:?}\nbuiltin_reports = false\n\
         [[report]]\nname = \"configured\"\nkeys = [\"hostname\"]\n\
         [[sink]]\nname = \"log\"\nkind = \"file\"\npath = {:?}\n",
        state.to_str().unwrap(),
        dir.path().join("r.ndjson").to_str().unwrap()
    );
    let file = write_file(dir.path(), "c.toml", &config);
    let (code, err) = run_pinbad_logged(
        &["check-config", file.to_str().unwrap()],
        dir.path(),
        "warn",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("reports.json") && err.contains("sinks.json") && err.contains("sets it aside"),
        "{err}"
    );
    assert!(state.join("reports.json").exists() && !state.join("reports.json.damaged").exists());

    let d = Daemon::start_logged_with(&config, &["--udp", "127.0.0.1:0"], None, "warn");
    assert_eq!(report_names(&d), BTreeSet::from(["configured".to_string()]));
    let status = d.status();
    assert_eq!(status["state_files"]["damaged"], 2, "{status}");
    let aside = status["state_files"]["set_aside"]
        .as_array()
        .unwrap()
        .clone();
    let files: Vec<&str> = aside.iter().map(|a| a["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["reports.json", "sinks.json"]);
    for a in &aside {
        assert!(!a["reason"].as_str().unwrap().is_empty(), "{a}");
        let moved = a["moved_to"].as_str().unwrap();
        assert!(moved.ends_with(".damaged") && std::path::Path::new(moved).exists());
    }
    assert!(!state.join("reports.json").exists() && !state.join("sinks.json").exists());
    let line = d.wait_log("Damaged state file set aside");
    assert!(
        line.contains("reports.json") || line.contains("sinks.json"),
        "{line}"
    );
    assert!(d.json("/api/v1/sinks")["sinks"][0]["enabled"]
        .as_bool()
        .unwrap());
    // Changes are saved afresh beside what was set aside.
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "new", "keys": ["hostname"]}),
    );
    assert_eq!(code, 201, "{body}");
    d.terminate(Duration::from_secs(10));

    // A reports.json this config no longer takes: set aside too, naming why.
    let many: Vec<_> = (0..5)
        .map(|i| json!({"name": format!("r{i}"), "keys": ["hostname"]}))
        .collect();
    std::fs::write(
        state.join("reports.json"),
        json!({"version": 1, "created": many, "deleted": []}).to_string(),
    )
    .unwrap();
    let limited = format!("{config}[limits]\nmax_reports = 3\n");
    let d = Daemon::start_with(&limited, &["--udp", "127.0.0.1:0"], None);
    assert_eq!(report_names(&d), BTreeSet::from(["configured".to_string()]));
    let status = d.status();
    assert_eq!(status["state_files"]["damaged"], 1, "{status}");
    let reason = status["state_files"]["set_aside"][0]["reason"]
        .as_str()
        .unwrap();
    assert!(reason.contains("limits.max_reports"), "{reason}");
}

/// Two daemons cannot share a state directory: the second refuses to start naming the first's
/// pid; check-config needs no lock; once the first is gone, the directory is free.
#[test]
fn a_second_daemon_on_one_state_dir_refuses_to_start_naming_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let first = Daemon::start_with("", &["--udp", "127.0.0.1:0"], Some(&state));
    let args = [
        "--state-dir",
        state.to_str().unwrap(),
        "--udp",
        "127.0.0.1:0",
        "--http",
        "127.0.0.1:0",
    ];
    let (code, err) = run_pinbad(&args, dir.path());
    assert_eq!(code, Some(1), "{err}");
    let pid = first.child.id();
    assert!(
        err.contains("in use by another pinbad") && err.contains(&format!("pid {pid}")),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(state.join("lock")).unwrap().trim(),
        pid.to_string()
    );
    let cfg = write_file(
        dir.path(),
        "c.toml",
        &format!("state_dir = {:?}\n", state.to_str().unwrap()),
    );
    let (code, err) = run_pinbad(&["check-config", cfg.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(0), "check-config beside a running daemon: {err}");
    assert!(first.terminate(Duration::from_secs(10)).success());
    let second = Daemon::start_with("", &["--udp", "127.0.0.1:0"], Some(&state));
    assert_eq!(second.get("/healthz").0, 200);
}

/// The lock holds by the open directory, not by the lock file's presence: a daemon killed with
/// `kill -9` leaves its lock file (naming its pid) and the next start takes the directory all
/// the same; with the running daemon's lock file deleted, a second on the directory is still
/// refused, naming the first, and leaves no lock file behind.
#[test]
fn a_deleted_lock_file_keeps_a_second_daemon_out_and_a_stale_one_lets_a_start_in() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let mut killed = Daemon::start_with("", &["--udp", "127.0.0.1:0"], Some(&state));
    let killed_pid = killed.child.id();
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    drop(killed);
    assert_eq!(
        std::fs::read_to_string(state.join("lock")).unwrap().trim(),
        killed_pid.to_string(),
        "the stale lock file is left"
    );
    let first = Daemon::start_with("", &["--udp", "127.0.0.1:0"], Some(&state));
    let pid = first.child.id();
    assert_eq!(
        std::fs::read_to_string(state.join("lock")).unwrap().trim(),
        pid.to_string()
    );
    std::fs::remove_file(state.join("lock")).unwrap();
    // Launched, not run to its end: a second daemon let in would run on (and is killed when
    // this test fails).
    let mut second = Daemon::launch("", &["--udp", "127.0.0.1:0"], Some(&state), Some("off"));
    let err = second.wait_log("pinbad: ");
    assert_eq!(
        second.wait_exit(Duration::from_secs(30)).code(),
        Some(1),
        "{err}"
    );
    assert!(
        err.contains("in use by another pinbad") && err.contains(&format!("pid {pid}")),
        "{err}"
    );
    assert!(
        !state.join("lock").exists(),
        "the refused start made no lock file"
    );
    assert_eq!(first.get("/healthz").0, 200);
}

/// The state files are created 0600, or 0640 and the group's with `state_dir_group` (the
/// directory the group's, 2750, or 0750 when it is the process's own group); a state file an
/// earlier run left open to others is given that mode at start.
#[test]
fn state_files_are_private_or_the_groups() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    // A group not the process's own when root may give files to any (the directory then gets
    // the set-group-id bit), else the process's own.
    // SAFETY: getegid and geteuid have no preconditions and cannot fail.
    let (egid, root) = unsafe { (libc::getegid(), libc::geteuid() == 0) };
    let gid = if root { egid + 4242 } else { egid };
    for group in [None, Some(gid)] {
        let state = dir.path().join(format!("state-{}", group.is_some()));
        let sink = dir.path().join(format!("sink-{}", group.is_some()));
        let mut config = format!(
            "stats_history = \"20s\"\nreport_ticks = 20\n\
             [http]\ntoken = \"s3cret\"\n\
             [[report]]\nname = \"by_script\"\nkeys = [\"script_name\"]\n\
             history_retention = \"1h\"\nhistory_step = \"1s\"\n\
             [[sink]]\nname = \"log\"\nkind = \"file\"\npath = {:?}\n",
            sink.join("r.ndjson").to_str().unwrap()
        );
        if let Some(g) = group {
            config = format!("state_dir_group = \"{g}\"\n{config}");
        }
        // Named here: the harness adds `state_dir` only to a config that does not name it (as
        // `state_dir_group` does).
        config = format!("state_dir = {:?}\n{config}", state.to_str().unwrap());
        // An earlier run's file, open to everyone.
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join("sinks.json"), "{\"version\": 1, \"sinks\": {}}").unwrap();
        std::fs::set_permissions(
            state.join("sinks.json"),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        let d = Daemon::start_with(&config, &["--udp", "127.0.0.1:0"], None);
        let post = ureq::post(&d.url("/api/v1/reports"))
            .set("Authorization", "Bearer s3cret")
            .send_string(&json!({"name": "made", "keys": ["hostname"]}).to_string());
        match post {
            Ok(r) => assert_eq!(r.status(), 201),
            Err(ureq::Error::Status(c, r)) => panic!("{c}: {}", r.into_string().unwrap()),
            Err(e) => panic!("{e}"),
        }
        send_to(d.udp[0], &[request("/a.php"), request("/b.php")]);
        // The history store written (1 s steps).
        let written = || {
            let r = ureq::get(&d.url("/api/v1/status"))
                .set("Authorization", "Bearer s3cret")
                .call()
                .unwrap();
            let s: serde_json::Value = serde_json::from_str(&r.into_string().unwrap()).unwrap();
            s["history"]["written_steps"].as_u64().unwrap_or(0)
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while written() == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "no history written within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(d.terminate(Duration::from_secs(20)).success());
        let want = if group.is_some() { 0o640 } else { 0o600 };
        // Directories pinbad makes inside (the tick log's) are the files' mode plus search.
        let want_dir = match group {
            Some(_) if gid != egid => 0o2750,
            Some(_) => 0o750,
            None => 0o700,
        };
        let mut seen = Vec::new();
        let mut dirs = vec![state.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let entry = entry.unwrap();
                let meta = entry.metadata().unwrap();
                let name = entry
                    .path()
                    .strip_prefix(&state)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let mode = meta.mode() & 0o7777;
                if meta.is_dir() {
                    assert_eq!(mode, want_dir, "{name}/: {mode:o}");
                    dirs.push(entry.path());
                } else {
                    assert_eq!(mode, want, "{name}: {mode:o}");
                }
                if let Some(g) = group {
                    assert_eq!(meta.gid(), g, "{name}");
                }
                seen.push(name);
            }
        }
        for name in [
            "lock",
            "reports.json",
            "sinks.json",
            "snapshot.bin",
            "history.sqlite",
            "ticklog",
        ] {
            assert!(seen.iter().any(|s| s == name), "{name} not in {seen:?}");
        }
        let dir_mode = std::fs::metadata(&state).unwrap().mode() & 0o7777;
        if group.is_some() {
            let want = if gid == egid { 0o750 } else { 0o2750 };
            assert_eq!(dir_mode, want, "{dir_mode:o}");
        }
        // The sink's file follows the same mode.
        let sink_file = std::fs::metadata(sink.join("r.ndjson")).unwrap();
        assert_eq!(sink_file.mode() & 0o777, want);
    }
}
