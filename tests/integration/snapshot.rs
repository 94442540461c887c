//! Issue 9, "restart keeps the window": the real daemon writes its pool and reports to
//! `state_dir/snapshot.bin` on SIGTERM and restores them when started again on the same
//! directory; a damaged snapshot is skipped with the reason in the log and the status.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::common::*;

/// A daemon on `state` with logs at info (the snapshot's lines).
fn start(state: &Path, extra: &str) -> Daemon {
    let config = format!("state_dir = {:?}\n{extra}", state.to_str().unwrap());
    Daemon::start_logged(&config, "info")
}

/// The counts a restart must keep: each row's key and integer sums, sorted by key.
fn report_counts(d: &Daemon, report: &str) -> Vec<(String, u64, f64, f64)> {
    let body = d.json(&format!("/api/v1/reports/{report}?limit=100000"));
    let mut rows: Vec<_> = body["rows"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|r| {
            let key = ["script_name", "hostname"]
                .iter()
                .map(|k| r[*k].as_str().unwrap_or("").to_string())
                .collect::<Vec<_>>()
                .join("|");
            (
                key,
                r["req_count"].as_u64().unwrap(),
                r["req_time_total"].as_f64().unwrap(),
                r["traffic_total"].as_f64().unwrap(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

fn raw_requests(d: &Daemon) -> Vec<Value> {
    let body = d.json("/api/v1/requests?limit=100000&timers=true");
    body["requests"].as_array().unwrap().clone()
}

#[test]
fn a_restart_keeps_the_window_and_the_raw_requests() {
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), "");
    d.send(&corpus(400, 1));
    d.wait_merged(400);
    let info = d.json("/api/v1/info");
    let by_script = report_counts(&d, "report_by_script_name");
    let by_host_script = report_counts(&d, "report_by_hostname_and_script");
    let requests = raw_requests(&d);
    assert_eq!(info_count(&d), 400);
    assert_eq!(requests.len(), 400);
    assert!(by_script.len() > 10, "{by_script:?}");

    let status = d.terminate(Duration::from_secs(30));
    assert!(status.success(), "{status:?}");
    let file = state.path().join("snapshot.bin");
    assert!(file.exists(), "SIGTERM wrote the snapshot");

    let d = start(state.path(), "");
    let line = d.wait_log("Snapshot restored");
    assert!(line.contains("requests=400"), "{line}");
    assert!(!file.exists(), "a restored snapshot is consumed");
    let s = d.status();
    let snap = &s["snapshot"];
    assert_eq!(snap["restored"], true, "{snap}");
    assert_eq!(snap["restored_requests"].as_u64(), Some(400), "{snap}");
    assert!(snap["skipped_reason"].is_null(), "{snap}");
    assert!(snap["bytes"].as_u64().unwrap() > 400 * 100, "{snap}");
    assert!(snap["write_ms"].as_f64().unwrap() > 0.0, "{snap}");
    assert_eq!(s["current_pool_used"].as_u64(), Some(400), "{s}");
    // The same counts, rows and raw requests (ids and timestamps included).
    assert_eq!(info_count(&d), 400);
    let again = d.json("/api/v1/info");
    assert_eq!(
        again["rows"][0]["req_time_total"],
        info["rows"][0]["req_time_total"]
    );
    assert_eq!(report_counts(&d, "report_by_script_name"), by_script);
    assert_eq!(
        report_counts(&d, "report_by_hostname_and_script"),
        by_host_script
    );
    assert_eq!(raw_requests(&d), requests);

    // New traffic adds to what was restored.
    d.send(&corpus(100, 2));
    d.wait_merged(100);
    assert_eq!(info_count(&d), 500);
    let now = raw_requests(&d);
    assert_eq!(now.len(), 500);
    assert_eq!(
        &now[100..],
        &requests[..],
        "the restored ones are the oldest"
    );
    let ids: Vec<u64> = now.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[0] == w[1] + 1),
        "ids go on: {ids:?}"
    );
}

/// Runs a daemon on `state` with `n` corpus requests (seed `seed`) and stops it; returns the
/// snapshot file it wrote.
fn stopped_with(state: &Path, n: usize, seed: u64) -> std::path::PathBuf {
    let d = start(state, "");
    d.send(&corpus(n, seed));
    d.wait_merged(n as u64);
    assert!(d.terminate(Duration::from_secs(30)).success());
    state.join("snapshot.bin")
}

#[test]
fn a_corrupt_snapshot_is_skipped_with_the_reason_and_the_daemon_starts_empty() {
    let state = tempfile::tempdir().unwrap();
    let file = stopped_with(state.path(), 50, 3);
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();

    let d = start(state.path(), "");
    let line = d.wait_log("Snapshot skipped");
    assert!(line.contains("checksum"), "{line}");
    let snap = d.status()["snapshot"].clone();
    assert_eq!(snap["restored"], false, "{snap}");
    assert!(
        snap["skipped_reason"]
            .as_str()
            .unwrap()
            .contains("checksum"),
        "{snap}"
    );
    assert_eq!(info_count(&d), 0);
    assert!(raw_requests(&d).is_empty());
    assert!(!file.exists() && state.path().join("snapshot.bin.skipped").exists());
    // It works as ever.
    d.send(&corpus(20, 4));
    d.wait_merged(20);
    assert_eq!(info_count(&d), 20);

    // Truncated: the same, with its own reason; and nothing to restore is said too.
    assert!(d.terminate(Duration::from_secs(30)).success());
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 3]).unwrap();
    let d = start(state.path(), "");
    let line = d.wait_log("Snapshot skipped");
    assert!(line.contains("truncated"), "{line}");
    assert_eq!(info_count(&d), 0);
    drop(d); // killed: no snapshot written
    let d = start(state.path(), "");
    d.wait_log("No snapshot to restore");
    assert_eq!(d.status()["snapshot"]["skipped_reason"], "no snapshot");
}

#[test]
fn with_the_snapshot_disabled_a_restart_starts_empty() {
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), "[snapshot]\nenabled = false\n");
    d.send(&corpus(30, 5));
    d.wait_merged(30);
    assert!(d.terminate(Duration::from_secs(30)).success());
    assert!(!state.path().join("snapshot.bin").exists());
    let d = start(state.path(), "[snapshot]\nenabled = false\n");
    assert_eq!(info_count(&d), 0);
    assert!(d.status()["snapshot"]["skipped_reason"]
        .as_str()
        .unwrap()
        .contains("disabled"));
}

/// Waits until pinbad has read everything sent to `udp` (its socket's receive queue is empty).
fn wait_read(udp: std::net::SocketAddr, during: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while udp_receive_queue(udp.port()) != Some(0) {
        assert!(
            std::time::Instant::now() < deadline,
            "the receive queue of {udp} did not empty during {during}: {:?} bytes",
            udp_receive_queue(udp.port())
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a valid NUL-terminated path.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o600) },
        0,
        "mkfifo {path:?}"
    );
}

#[test]
fn datagrams_sent_while_a_snapshot_restores_wait_for_the_merger_and_are_kept() {
    let state = tempfile::tempdir().unwrap();
    let file = stopped_with(state.path(), 300, 6);
    let snapshot = std::fs::read(&file).unwrap();
    // The snapshot behind a FIFO: the restore waits in its read until the test writes it, a
    // restore as long as the test needs on any machine.
    std::fs::remove_file(&file).unwrap();
    mkfifo(&file);

    let config = format!("state_dir = {:?}\n", state.path().to_str().unwrap());
    let launch = Daemon::launch(&config, &["--udp", "127.0.0.1:0"], None, Some("info"));
    // The receivers say where they listen before the restore begins.
    let line = launch.wait_log("Listening");
    let udp: std::net::SocketAddr = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("udp="))
        .unwrap_or_else(|| panic!("{line}"))
        .parse()
        .unwrap();
    send_to(udp, &corpus(200, 7));
    // ... and read what comes while it lasts (rather than leave it in the socket's queue).
    wait_read(udp, "the restore");
    std::fs::write(&file, &snapshot).unwrap();
    let d = launch.attach();
    let line = d.wait_log("Snapshot restored");
    assert!(line.contains("requests=300"), "{line}");
    // What came during the restore is merged after it, on top of the restored window.
    d.wait_merged(200);
    assert_eq!(info_count(&d), 500);
    assert_eq!(raw_requests(&d).len(), 500);
    let s = d.status();
    assert_eq!(s["kernel_drops"].as_u64(), Some(0), "{s}");
    assert_eq!(s["temp_pool_dropped"].as_u64(), Some(0), "{s}");
}

/// SIGHUP (a closed terminal or session) stops the daemon in order; started with SIGHUP ignored
/// (`nohup`, which the daemon inherits from this test's process when it runs under one), the
/// daemon keeps ignoring it. Whichever this environment is, its outcome is checked.
#[test]
fn sighup_stops_in_order_unless_started_ignoring_it() {
    // What the daemon will inherit: this process's SIGHUP, read as the daemon reads its own.
    let ignored = !pinbad::shutdown::stop_signals().contains(&libc::SIGHUP);
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), "");
    d.send(&corpus(40, 13));
    d.wait_merged(40);
    signal(&d.child, libc::SIGHUP);
    if ignored {
        eprintln!("SIGHUP is ignored here (nohup): checking that the daemon keeps ignoring it");
        // An ignored signal is discarded when sent: the daemon answers on, and stops on SIGTERM.
        assert_eq!(d.get("/healthz").0, 200);
        assert_eq!(info_count(&d), 40);
        assert!(d.terminate(Duration::from_secs(30)).success());
    } else {
        let line = d.wait_log("Snapshot written");
        assert!(line.contains("requests=40"), "{line}");
        assert!(d.wait_exit(Duration::from_secs(30)).success());
    }
}

/// A snapshot the stop cannot write makes the exit status say so (non-zero), once the rest of
/// the stop is done.
#[test]
fn a_snapshot_that_cannot_be_written_exits_non_zero() {
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), "");
    d.send(&corpus(50, 12));
    d.wait_merged(50);
    // The write's temporary file cannot be created: a directory holds its name.
    let tmp = state
        .path()
        .join(format!("snapshot.bin.tmp-{}", d.child.id()));
    std::fs::create_dir(&tmp).unwrap();
    let (status, logs) = d.terminate_logged(Duration::from_secs(30));
    assert_eq!(status.code(), Some(1), "{logs:?}");
    assert!(
        logs.iter()
            .any(|l| l.contains("pinbad: stopped, but cannot write") && l.contains("snapshot.bin")),
        "{logs:?}"
    );
    assert!(logs
        .iter()
        .any(|l| l.contains("Sink") || l.contains("Cannot write the snapshot")));
}

/// A sink that cannot start fails the start before the snapshot is consumed: the next start,
/// the sink mended, restores the window (the failed start must not have consumed it).
#[test]
fn a_sink_that_cannot_start_fails_the_start_with_the_snapshot_kept() {
    let state = tempfile::tempdir().unwrap();
    let file = stopped_with(state.path(), 120, 11);
    let not_a_dir = state.path().join("not-a-dir");
    std::fs::write(&not_a_dir, b"").unwrap();
    let config = write_file(
        state.path(),
        "p.toml",
        &format!(
            "state_dir = {:?}\n[[sink]]\nname = \"log\"\nkind = \"file\"\npath = {:?}\n",
            state.path().to_str().unwrap(),
            not_a_dir.join("requests.ndjson").to_str().unwrap()
        ),
    );
    let args = ["--config", config.to_str().unwrap(), "--udp", "127.0.0.1:0"];
    let (code, stderr) = run_pinbad(
        &[&args[..], &["--http", "127.0.0.1:0"]].concat(),
        state.path(),
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("sink `log`: cannot open"), "{stderr}");
    assert!(file.exists(), "the snapshot is kept for the next start");
    let d = start(state.path(), "");
    assert_eq!(info_count(&d), 120);
}

/// A stop signal while start-up restores the snapshot waits for it: the daemon finishes the
/// restore, then stops in order and saves the window again (the default action ended it at once,
/// after the restore had consumed the file: the window was lost). SIGINT too.
#[test]
fn a_stop_signal_during_the_restore_waits_for_it_and_keeps_the_window() {
    let state = tempfile::tempdir().unwrap();
    let file = stopped_with(state.path(), 300, 10);
    let snapshot = std::fs::read(&file).unwrap();
    for (round, signal) in [(1, libc::SIGTERM), (2, libc::SIGINT)] {
        std::fs::remove_file(&file).unwrap();
        mkfifo(&file);
        let config = format!("state_dir = {:?}\n", state.path().to_str().unwrap());
        let mut launch = Daemon::launch(&config, &["--udp", "127.0.0.1:0"], None, Some("info"));
        // The receivers listen; the restore waits in its read of the FIFO.
        launch.wait_log("Listening");
        launch.signal(signal);
        std::fs::write(&file, &snapshot).unwrap();
        let status = launch.wait_exit(Duration::from_secs(60));
        assert!(status.success(), "round {round}: {status:?}");
        let restored = launch.wait_log("Snapshot restored");
        assert!(restored.contains("requests=300"), "{restored}");
        launch.wait_log("Stopping");
        let written = launch.wait_log("Snapshot written");
        assert!(written.contains("requests=300"), "round {round}: {written}");
    }
    let d = start(state.path(), "");
    assert_eq!(info_count(&d), 300);
}

#[test]
fn datagrams_sent_while_pinbad_stops_are_merged_by_the_next_start() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;

    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), "");
    d.send(&corpus(300, 8));
    d.wait_merged(300);
    let udp = d.udp[0];
    // The snapshot is written to `snapshot.bin.tmp-PID`: a FIFO there with a one-page buffer
    // holds the daemon in that write until the test reads it (a disk as slow as the test needs).
    // Its fsync then fails (a FIFO cannot be synced): the test keeps the bytes as the snapshot.
    let tmp = state
        .path()
        .join(format!("snapshot.bin.tmp-{}", d.child.id()));
    mkfifo(&tmp);
    let mut fifo = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&tmp)
        .unwrap();
    // SAFETY: fcntl(2) on a descriptor we own.
    assert!(unsafe { libc::fcntl(fifo.as_raw_fd(), libc::F_SETPIPE_SZ, 4096) } > 0);
    d.signal_term();
    let mut snapshot = Vec::new();
    let read_some = |fifo: &mut std::fs::File, into: &mut Vec<u8>| -> Option<usize> {
        let mut buf = [0u8; 65536];
        match fifo.read(&mut buf) {
            Ok(n) => {
                into.extend_from_slice(&buf[..n]);
                Some(n)
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => None,
            Err(e) => panic!("reading the FIFO: {e}"),
        }
    };
    // The first bytes: the merger has stopped, the snapshot is being written.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while snapshot.is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no snapshot write began"
        );
        if read_some(&mut fifo, &mut snapshot).is_none_or(|n| n == 0) {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    send_to(udp, &corpus(200, 9));
    // The receivers still read while the write waits (the datagrams would otherwise be lost
    // with the socket).
    wait_read(udp, "the snapshot's write");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while read_some(&mut fifo, &mut snapshot) != Some(0) {
        assert!(
            std::time::Instant::now() < deadline,
            "the snapshot's write did not end"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    // Exit 1: as far as the daemon knows its snapshot was not written (the FIFO's fsync).
    assert_eq!(d.wait_exit(Duration::from_secs(30)).code(), Some(1));
    let pending = state.path().join("pending.bin");
    assert!(pending.exists(), "what came during the write is saved");
    std::fs::write(state.path().join("snapshot.bin"), &snapshot).unwrap();

    let d = start(state.path(), "");
    let line = d.wait_log("Snapshot restored");
    assert!(line.contains("requests=300"), "{line}");
    let line = d.wait_log("Requests received while the last run stopped");
    assert!(line.contains("datagrams=200"), "{line}");
    assert!(!pending.exists(), "consumed");
    d.wait_merged(200);
    assert_eq!(info_count(&d), 500);
    assert_eq!(raw_requests(&d).len(), 500);
    let s = d.status();
    assert_eq!(
        s["snapshot"]["pending_datagrams"].as_u64(),
        Some(200),
        "{s}"
    );
    assert_eq!(s["temp_pool_dropped"].as_u64(), Some(0), "{s}");
}
