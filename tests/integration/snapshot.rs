//! Issue 9, "restart keeps the window": the real daemon writes its pool and reports to
//! `state_dir/snapshot.bin` on SIGTERM and restores them when started again on the same
//! directory; a damaged snapshot is skipped with the reason in the log and the status.

use std::path::Path;
use std::time::Duration;

use pinbad::corpus::{Corpus, CorpusSpec};
use serde_json::Value;

use crate::common::*;

/// PHP-like datagrams (timers with tags, request tags), seeded.
fn corpus(n: usize, seed: u64) -> Vec<Vec<u8>> {
    Corpus::new(CorpusSpec {
        seed,
        scripts: 40,
        ..CorpusSpec::default()
    })
    .datagrams(n)
}

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

fn info_count(d: &Daemon) -> u64 {
    let info = d.json("/api/v1/info");
    info["rows"][0]["req_count"].as_u64().unwrap_or(0)
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

#[test]
fn a_corrupt_snapshot_is_skipped_with_the_reason_and_the_daemon_starts_empty() {
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), "");
    d.send(&corpus(50, 3));
    d.wait_merged(50);
    assert!(d.terminate(Duration::from_secs(30)).success());
    let file = state.path().join("snapshot.bin");
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
