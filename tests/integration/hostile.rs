//! Issue 83: an attacker's day against the real daemon, at a reduced scale.

use std::time::{Duration, Instant};

use crate::common::*;
use crate::sql::Wire;

/// Password guessing is bounded per address, whatever the connections it opens: after one
/// failure, 32 connections from the address guessing for 3 s have one password checked at a
/// time, each after the answer to the one before (the others refused unchecked with the same
/// 1045), connections past 8 waiting are refused before their handshake with MySQL's 1129, the
/// guesses checked stay a handful, and the log has one line for the address. Once the guessing
/// stops, a client retrying the right password one login at a time gets in.
#[test]
fn password_guessing_is_bounded_per_address() {
    let d = Daemon::start_logged(
        "[mysql]\nuser = \"pinba\"\npassword = \"s3cret\"\nmax_connections = 64\n",
        "pinbad=info",
    );
    let mysql = d.mysql.unwrap();
    // The address fails once: from then on its guesses are held to one at a time.
    let (code, _) = Wire::login(mysql, "pinba", Some("guess")).err().unwrap();
    assert_eq!(code, 1045);
    let until = Instant::now() + Duration::from_secs(3);
    let guessers: Vec<_> = (0..32)
        .map(|_| {
            std::thread::spawn(move || {
                let (mut denied, mut blocked) = (0u64, 0u64);
                while Instant::now() < until {
                    match Wire::login(mysql, "pinba", Some("guess")) {
                        Err((1045, _)) => denied += 1,
                        Err((1129, msg)) => {
                            assert!(msg.contains("127.0.0.1"), "{msg}");
                            blocked += 1;
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        other => panic!("{:?}", other.err()),
                    }
                }
                (denied, blocked)
            })
        })
        .collect();
    let (denied, blocked) = guessers
        .into_iter()
        .map(|g| g.join().unwrap())
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let mysql_status = &d.status()["mysql"];
    let failed = mysql_status["auth_failed"].as_u64().unwrap();
    assert_eq!(failed, denied + 1, "{mysql_status}");
    // One guess at a time, each after the answer to the one before (200 ms, 400 ms, …): a few
    // in 3 s, the first included.
    let checked = failed - mysql_status["auth_unchecked"].as_u64().unwrap();
    assert!(
        (1..=6).contains(&checked),
        "{checked} guesses checked: {mysql_status}"
    );
    assert!(blocked > 0, "{mysql_status}");
    assert_eq!(mysql_status["hosts_blocked"], blocked, "{mysql_status}");
    let lines = d
        .logs()
        .iter()
        .filter(|l| l.contains("SQL login refused"))
        .count();
    assert_eq!(lines, 1, "one line for the address");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match Wire::login(mysql, "pinba", Some("s3cret")) {
            Ok(mut c) => {
                assert_eq!(c.value("SELECT 1"), "1");
                break;
            }
            Err((1045 | 1129, _)) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("{e:?}"),
        }
    }
}

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
