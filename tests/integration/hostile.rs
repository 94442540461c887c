//! Issue 83: an attacker's day against the real daemon, at a reduced scale.

use std::time::Duration;

use crate::common::*;

/// Report definitions are bounded in filters as in keys: 33 filters are a 400 saying the
/// bound, 32 are taken.
#[test]
fn report_filters_are_bounded_as_keys_are() {
    let d = Daemon::start("");
    let filters = |n: usize| -> serde_json::Value {
        (0..n)
            .map(|i| (format!("tag:t{i}"), serde_json::json!("v")))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let (code, body) = d.post(
        "/api/v1/reports",
        &serde_json::json!({"name": "many", "keys": ["script_name"], "filters": filters(33)}),
    );
    assert_eq!(code, 400, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("at most 32 filters, got 33"),
        "{body}"
    );
    let (code, body) = d.post(
        "/api/v1/reports",
        &serde_json::json!({"name": "enough", "keys": ["script_name"], "filters": filters(32)}),
    );
    assert_eq!(code, 201, "{body}");
}

/// `ids.json` saying an id no run reaches (2^64 - 1) is set aside naming it: raw requests keep
/// their ids below 2^48 and the raw table answers them.
#[test]
fn ids_out_of_range_are_set_aside_and_requests_stay_readable() {
    let state = tempfile::tempdir().unwrap();
    std::fs::write(
        state.path().join("ids.json"),
        format!("{{\"reserved_end\": {}}}", u64::MAX),
    )
    .unwrap();
    let d = Daemon::start_with("", &["--udp", "127.0.0.1:0"], Some(state.path()));
    let status = d.status();
    let aside = &status["state_files"]["set_aside"][0];
    assert_eq!(aside["file"], "ids.json", "{status}");
    assert!(
        aside["reason"]
            .as_str()
            .unwrap()
            .contains("at or past 2^48"),
        "{aside}"
    );
    d.send(&[request("/a.php")]);
    d.wait_merged(1);
    let (_, page) = d.get("/api/v1/requests?limit=10");
    let id = page["requests"][0]["id"].as_u64().unwrap();
    assert!(id < 1 << 48, "{id}");
}

/// A directory in the lock file's place stops the start naming the lock, not the state
/// directory as unwritable.
#[test]
fn a_lock_that_is_a_directory_is_refused_naming_it() {
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir(state.path().join("lock")).unwrap();
    let mut launch = Daemon::launch(
        "",
        &["--udp", "127.0.0.1:0"],
        Some(state.path()),
        Some("info"),
    );
    let line = launch.wait_log("is not a file");
    assert!(
        line.contains("lock is not a file but a directory"),
        "{line}"
    );
    assert!(!launch.wait_exit(Duration::from_secs(30)).success());
    let err = line;
    assert!(!err.contains("not writable"), "{err}");
}
