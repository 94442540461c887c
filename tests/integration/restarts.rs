//! Issue 42, "a bad day loses nothing", across restarts: every report, however it was created,
//! is restored whole after a clean restart, and one refilled from the raw pool says from when it
//! is complete; after `kill -9` the tick log restores every closed tick. (How the stop itself
//! ends is `exit`'s.)

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::*;

/// A daemon on `state` with logs at info (the snapshot's and the tick log's lines).
fn start(state: &Path, extra: &str) -> Daemon {
    let config = format!("state_dir = {:?}\n{extra}", state.to_str().unwrap());
    Daemon::start_logged(&config, "info")
}

/// Waits until the daemon has been up `secs` seconds: traffic sent before and after lands in
/// different ticks of a window of 1-second ticks.
fn wait_uptime(d: &Daemon, secs: f64) {
    d.wait_for(
        |d| d.status()["uptime_seconds"].as_f64().unwrap_or(0.0) >= secs,
        &format!("{secs} s of uptime"),
    );
}

/// What a restart must keep of a report: each row's keys and integer sums (sorted), the totals'
/// sums, and `complete_from`.
fn report_state(d: &Daemon, report: &str, keys: &[&str]) -> (Vec<Vec<Value>>, Vec<Value>, Value) {
    let body = d.json(&format!("/api/v1/reports/{report}?limit=100000"));
    let sums = ["req_count", "req_time_total", "traffic_total"];
    let (rows, totals) = rows_and_totals(&body, keys, &sums);
    (rows, totals, body["complete_from"].clone())
}

/// A report's answer: each row's `keys` and `columns` (rows sorted), and the totals' `columns`.
fn rows_and_totals(body: &Value, keys: &[&str], columns: &[&str]) -> (Vec<Vec<Value>>, Vec<Value>) {
    let mut rows: Vec<Vec<Value>> = body["rows"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|r| keys.iter().chain(columns).map(|k| r[*k].clone()).collect())
        .collect();
    rows.sort_by_key(|r| r.iter().map(Value::to_string).collect::<Vec<_>>());
    let totals = columns.iter().map(|k| body["totals"][*k].clone()).collect();
    (rows, totals)
}

/// A daemon on `state` with `extra` config, and the report created through the API.
fn with_custom_hosts(state: &Path, extra: &str) -> Daemon {
    let d = start(state, extra);
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "custom_hosts", "keys": ["hostname", "status"]}),
    );
    assert_eq!(code, 201, "{body}");
    d
}

/// The report as `GET /api/v1/reports` lists it.
fn listed(d: &Daemon, report: &str) -> Value {
    named(&d.json("/api/v1/reports")["reports"], report)
}

/// The steps: with `merge.request_families` on (the default), a report created through
/// the API is in no family until the next start, which puts it in the built-ins' family; its
/// window's phase was its own, so the snapshot's window no longer matched and the report was
/// refilled from the pool, claiming the whole window. Its phase is now the family's from its
/// creation on: the restart restores it whole, as a report from the config file.
#[test]
fn a_report_created_through_the_api_is_restored_whole_after_a_clean_restart() {
    let state = tempfile::tempdir().unwrap();
    let config = "stats_history = \"60s\"\nreport_ticks = 60\n";
    let d = with_custom_hosts(state.path(), config);
    // Traffic over several 1-second ticks: closed ticks and an open one.
    let mut sent = 0;
    for (i, seed) in (21..25).enumerate() {
        wait_uptime(&d, 1.2 * (i + 1) as f64);
        d.send(&corpus(150, seed));
        sent += 150;
        d.wait_merged(sent);
    }
    let keys = ["hostname", "status"];
    let before = report_state(&d, "custom_hosts", &keys);
    let before_info = report_state(&d, "info", &[]);
    assert_eq!(before.1[0], json!(sent), "{before:?}");
    assert!(before.0.len() > 5, "{before:?}");
    let listed_before = listed(&d, "custom_hosts")["complete_from"].clone();
    assert!(listed_before.is_number(), "{listed_before}");
    assert!(d.terminate(Duration::from_secs(60)).success());

    let d = start(state.path(), config);
    d.wait_log("Snapshot restored");
    let snap = d.status()["snapshot"].clone();
    assert_eq!(snap["skipped_reports"], json!([]), "{snap}");
    assert!(
        !d.logs().iter().any(|l| l.contains("not restored")),
        "{:#?}",
        d.logs()
    );
    assert_eq!(report_state(&d, "custom_hosts", &keys), before);
    assert_eq!(report_state(&d, "info", &[]), before_info);
    assert_eq!(listed(&d, "custom_hosts")["complete_from"], listed_before);
}

/// A report the snapshot cannot restore (its definition changed while the daemon was down) is
/// refilled from the restored pool, which holds only the requests the last run's pool still
/// held: it is complete from the oldest of them, not from the last run's start.
#[test]
fn a_report_refilled_from_a_restored_pool_says_from_when_it_is_complete() {
    let state = tempfile::tempdir().unwrap();
    let config = "stats_history = \"60s\"\nreport_ticks = 60\nrequest_pool_size = 100\n";
    let d = with_custom_hosts(state.path(), config);
    d.send(&corpus(150, 31));
    d.wait_merged(150);
    // A tick later, more than the pool holds: every request of the first batch is overwritten.
    wait_uptime(&d, 2.5);
    let second_sent = d.status()["uptime_seconds"].as_f64().unwrap();
    let started_at = listed(&d, "custom_hosts")["complete_from"]
        .as_f64()
        .unwrap();
    d.send(&corpus(150, 32));
    d.wait_merged(300);
    assert!(d.terminate(Duration::from_secs(60)).success());

    // The definition changes while the daemon is down.
    let file = state.path().join("reports.json");
    let mut saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    saved["created"][0]["percentiles"] = json!([50]);
    std::fs::write(&file, saved.to_string()).unwrap();

    let d = start(state.path(), config);
    d.wait_log("Snapshot restored");
    let snap = d.status()["snapshot"].clone();
    assert_eq!(snap["skipped_reports"], json!(["custom_hosts"]), "{snap}");
    d.wait_for(
        |d| listed(d, "custom_hosts")["complete_from"].is_number(),
        "the report filled",
    );
    let from = listed(&d, "custom_hosts")["complete_from"]
        .as_f64()
        .unwrap();
    // The first run started at `started_at`; its second batch came `second_sent` s later, and
    // only its requests are in the restored pool.
    assert!(
        from >= started_at + second_sent - 0.5,
        "complete_from {from}, the first run started at {started_at}, the pool holds requests \
         from {} on",
        started_at + second_sent
    );
    let (rows, totals, query_from) = report_state(&d, "custom_hosts", &["hostname", "status"]);
    assert_eq!(totals[0], json!(100), "the pool's 100 requests: {rows:?}");
    assert_eq!(query_from.as_f64(), Some(from));
}

/// Reports of one family (`by_*`: a stage counted per request, folded into them at ticks) and
/// the same reports with a filter every request passes (`all_by_*`: another family, whose
/// members a query detaches from its stage), with or without `by_host`. Ticks of 6 minutes: a
/// test's traffic stays in the open tick, in the `by_*` stage until a query or the tick folds
/// it.
fn two_families(state: &Path, with_host: bool) -> Daemon {
    let mut config = String::from(
        "builtin_reports = false\nstats_history = \"1h\"\nreport_ticks = 10\n[history]\nenabled = false\n",
    );
    for (name, keys) in FAMILY {
        for (prefix, filters) in [("", ""), ("all_", "filters = { min_time = 0.0 }\n")] {
            if name == "by_host" && prefix.is_empty() && !with_host {
                continue;
            }
            config.push_str(&format!(
                "[[report]]\nname = \"{prefix}{name}\"\nkeys = {keys:?}\n{filters}"
            ));
        }
    }
    start(state, &config)
}

const FAMILY: [(&str, &[&str]); 4] = [
    ("by_script", &["script_name"]),
    ("by_host_script", &["hostname", "script_name"]),
    ("by_host", &["hostname"]),
    ("by_script_status", &["script_name", "status"]),
];

/// A report's answer as two daemons must agree on it (their reports' ticks may be phased
/// differently): each row's keys, sums and percentiles (sorted), and the same of the totals.
fn sums_and_percentiles(d: &Daemon, report: &str, keys: &[&str]) -> (Vec<Vec<Value>>, Vec<Value>) {
    let body = d.json(&format!(
        "/api/v1/reports/{report}?limit=100000&percentiles=50,90,99.9"
    ));
    let columns = [
        "req_count",
        "req_time_total",
        "ru_utime_total",
        "ru_stime_total",
        "traffic_total",
        "memory_footprint_total",
        "memory_peak_total",
        "memory_peak_max",
        "p50",
        "p90",
        "p99.9",
    ];
    rows_and_totals(&body, keys, &columns)
}

/// Issue 59: a stop no longer folds the families' stages into their members (after a flood
/// of new names, most of its time); the snapshot keeps the stages and the next start puts them
/// back. The requests still in a stage at the stop (`by_*`: never queried, within their open
/// tick) are answered after the restart exactly as the first daemon answered them (through
/// `all_by_*`, queried before the stop: detached, each holds every request): rows, sums,
/// percentiles. A start whose configuration lost a member (`by_host`) folds that family's
/// saved stages into the members left, at the restore: exact too.
#[test]
fn requests_in_families_stages_at_a_stop_are_answered_exactly_after_the_restart() {
    let state = tempfile::tempdir().unwrap();
    let d = two_families(state.path(), true);
    d.send(&corpus(2000, 41));
    d.wait_merged(2000);
    d.send(&corpus(1000, 42));
    d.wait_merged(3000);
    let before: Vec<_> = FAMILY
        .iter()
        .map(|(name, keys)| sums_and_percentiles(&d, &format!("all_{name}"), keys))
        .collect();
    assert_eq!(before[0].1[0], json!(3000), "{:?}", before[0]);
    assert!(before[1].0.len() > 20, "{:?}", before[1]);
    assert!(d.terminate(Duration::from_secs(60)).success());
    // The state as this stop left it, for a start with another configuration.
    let changed = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(state.path()).unwrap().flatten() {
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), changed.path().join(e.file_name())).unwrap();
        }
    }

    // Restarted on `dir`: the by_* stages put back, or folded at the restore (`stages`), and
    // every report answering as before the stop (by_host only where configured).
    let restarted = |dir: &Path, with_host: bool, stages: (u64, u64)| {
        let d = two_families(dir, with_host);
        d.wait_log("Snapshot restored");
        let snap = d.status()["snapshot"].clone();
        assert_eq!(snap["skipped_reports"], json!([]), "{snap}");
        let got = (&snap["restored_stages"], &snap["folded_stages"]);
        assert_eq!(got, (&json!(stages.0), &json!(stages.1)), "{snap}");
        for ((name, keys), before) in FAMILY.iter().zip(&before) {
            for report in [name.to_string(), format!("all_{name}")] {
                if with_host || report != "by_host" {
                    let answer = sums_and_percentiles(&d, &report, keys);
                    assert_eq!(&answer, before, "{report}");
                }
            }
        }
        assert!(d.terminate(Duration::from_secs(60)).success());
    };
    restarted(state.path(), true, (1, 0));
    // by_* lost a member: its stages are folded into the others at the restore.
    restarted(changed.path(), false, (0, 1));
}

/// Issue 42's steps: `kill -9` lost the whole window (only a clean stop wrote the snapshot).
/// Each closed tick is in the tick log now: requests sent over a few ticks, `kill -9`, and the
/// restart's reports hold the closed ticks' counts exactly (built-ins and a report created
/// through the API alike); the open tick and the raw pool are lost. A report whose definition
/// changed meanwhile skips its logged ticks.
///
/// Families are off: then each report closes its tick in the merge round that first passes its
/// end and hands it to the log there, so once a later request is merged every earlier tick is
/// handed over, and the test knows when the log has them all (a family hands its members their
/// ticks over several rounds).
#[test]
fn after_kill_9_the_restart_restores_every_closed_tick() {
    let state = tempfile::tempdir().unwrap();
    let config = "stats_history = \"60s\"\nreport_ticks = 60\n[merge]\nfamilies = false\n";
    let d = with_custom_hosts(state.path(), config);
    let (code, body) = d.post(
        "/api/v1/reports",
        &json!({"name": "custom_scripts", "keys": ["script_name"]}),
    );
    assert_eq!(code, 201, "{body}");
    let mut sent = 0;
    let mut last = 0.0;
    for (i, seed) in (41..44).enumerate() {
        wait_uptime(&d, 1.2 * (i + 1) as f64);
        d.send(&corpus(150, seed));
        sent += 150;
        d.wait_merged(sent);
        last = d.status()["uptime_seconds"].as_f64().unwrap();
    }
    let reports = [
        ("info", &[][..]),
        ("report_by_script_name", &["script_name"][..]),
        ("custom_hosts", &["hostname", "status"][..]),
        ("custom_scripts", &["script_name"][..]),
    ];
    let before: Vec<_> = reports
        .iter()
        .map(|(r, keys)| report_state(&d, r, keys))
        .collect();
    assert_eq!(before[0].1[0], json!(sent), "{:?}", before[0]);
    let listed_before = listed(&d, "custom_scripts")["complete_from"].clone();
    // A tick later: every tick holding the requests above closes when this one is merged.
    wait_uptime(&d, last + 1.1);
    d.send(&corpus(100, 49));
    d.wait_merged(sent + 100);
    let after: Vec<_> = reports
        .iter()
        .map(|(r, keys)| report_state(&d, r, keys))
        .collect();
    d.wait_for(
        |d| {
            let t = &d.status()["ticklog"];
            t["current_queued"] == 0 && t["written_ticks"].as_u64() > Some(0)
        },
        "the tick log written",
    );
    assert_eq!(d.status()["ticklog"]["dropped_ticks"], 0);
    let mut d = d;
    d.child.kill().unwrap();
    d.child.wait().unwrap();
    drop(d);
    // The last 100 requests' tick is the open one at the kill, and lost, unless a busy machine
    // took past its end to kill (then it closed and may have been logged): whole or not at all.
    let sent_last = sent + 100;
    assert!(!state.path().join("snapshot.bin").exists(), "no snapshot");
    // custom_hosts' definition changes while the daemon is down: its ticks are skipped.
    let file = state.path().join("reports.json");
    let mut saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    saved["created"][0]["percentiles"] = json!([50]);
    std::fs::write(&file, saved.to_string()).unwrap();

    let d = start(state.path(), config);
    let line = d.wait_log("Reports restored from the tick log");
    let s = d.status();
    let restored = &s["ticklog"]["restored"];
    assert_eq!(restored["skipped_reports"], json!(["custom_hosts"]), "{s}");
    assert!(restored["ticks"].as_u64() > Some(0), "{line}: {s}");
    assert_eq!(s["current_pool_used"], 0, "the raw pool is lost: {s}");
    let want = closed_ticks_restored(&d, sent, sent_last, &before, &after);
    for ((report, keys), want) in reports.iter().zip(want) {
        if *report == "custom_hosts" {
            let (rows, totals, _) = report_state(&d, report, keys);
            assert_eq!((rows.len(), &totals[0]), (0, &json!(0)), "{report}");
            continue;
        }
        assert_eq!(&report_state(&d, report, keys), want, "{report}");
    }
    assert_eq!(listed(&d, "custom_scripts")["complete_from"], listed_before);
}

/// What a restart after `kill -9` must hold of each report: `before` (every request but the last
/// batch, all in ticks closed and logged before it was sent), and the last batch too (`after`)
/// only when its tick closed and was logged before the kill. The test cannot know which without
/// racing the clock (a tick is a second, and a busy machine may take longer between the send and
/// the kill), so `info`'s count says it: exactly one of the two, never anything between.
fn closed_ticks_restored<'a, T>(
    d: &Daemon,
    closed: u64,
    all: u64,
    before: &'a [T],
    after: &'a [T],
) -> &'a [T] {
    let count = report_state(d, "info", &[]).1[0].as_u64();
    if count == Some(all) {
        eprintln!("the last batch's tick closed and was logged before the kill");
        after
    } else {
        assert_eq!(
            count,
            Some(closed),
            "every closed tick restored, and no more"
        );
        before
    }
}

/// Two `[[report]]`s equal but for their names: they share one table (see docs/reports.md, "share one
/// tables").
const SCRIPT_TWINS: &str = "[[report]]\nname = \"scripts_a\"\nkeys = [\"script_name\"]\n\
                            [[report]]\nname = \"scripts_b\"\nkeys = [\"script_name\"]\n";

/// A shared table across restarts: the snapshot keeps each report sharing it under its own name
/// and definition, so a restart restores them all, and one whose owner is gone from the
/// configuration still gets its window back.
#[test]
fn reports_sharing_a_table_are_restored_whole_even_when_their_owner_is_gone() {
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), SCRIPT_TWINS);
    let s = d.status();
    assert_eq!(
        named(&s["reports"], "scripts_b")["shares_table_with"],
        "scripts_a"
    );
    d.send(&corpus(400, 61));
    d.wait_merged(400);
    let keys = ["script_name"];
    let before = report_state(&d, "report_by_script_name", &keys);
    assert_eq!(before.1[0], json!(400));
    for r in ["scripts_a", "scripts_b"] {
        assert_eq!(report_state(&d, r, &keys), before, "{r}");
    }
    assert!(d.terminate(Duration::from_secs(30)).success());

    let d = start(state.path(), SCRIPT_TWINS);
    d.wait_log("Snapshot restored");
    for r in ["report_by_script_name", "scripts_a", "scripts_b"] {
        assert_eq!(report_state(&d, r, &keys), before, "{r}");
    }
    assert!(d.terminate(Duration::from_secs(30)).success());

    // scripts_a gone from the configuration: scripts_b owns a table of its own, restored.
    let config = "[[report]]\nname = \"scripts_b\"\nkeys = [\"script_name\"]\n";
    let d = start(state.path(), config);
    d.wait_log("Snapshot restored");
    assert!(named(&d.status()["reports"], "scripts_b")["shares_table_with"].is_null());
    assert_eq!(report_state(&d, "scripts_b", &keys), before);
    assert!(d.terminate(Duration::from_secs(30)).success());

    // scripts_a back, new (not in the snapshot): the twin's entry fills the table both read.
    let d = start(state.path(), SCRIPT_TWINS);
    d.wait_log("Snapshot restored");
    for r in ["scripts_a", "scripts_b"] {
        assert_eq!(report_state(&d, r, &keys).0, before.0, "{r}");
        assert_eq!(report_state(&d, r, &keys).1, before.1, "{r}");
    }
}

/// A shared table's ticks are in the tick log once (under its first report), and after
/// `kill -9` the restart fills the table, and with it every report sharing it. Families are off
/// (see `after_kill_9_the_restart_restores_every_closed_tick`).
#[test]
fn after_kill_9_a_shared_table_is_restored_for_every_report_sharing_it() {
    let state = tempfile::tempdir().unwrap();
    let config = format!(
        "stats_history = \"60s\"\nreport_ticks = 60\n{SCRIPT_TWINS}[merge]\nfamilies = false\n"
    );
    let d = start(state.path(), &config);
    wait_uptime(&d, 1.2);
    d.send(&corpus(300, 62));
    d.wait_merged(300);
    let last = d.status()["uptime_seconds"].as_f64().unwrap();
    let keys = ["script_name"];
    let before = [report_state(&d, "scripts_b", &keys)];
    assert_eq!(before[0].1[0], json!(300));
    // A tick later, the requests' tick closed and logged.
    wait_uptime(&d, last + 1.1);
    d.send(&corpus(50, 63));
    d.wait_merged(350);
    let after = [report_state(&d, "scripts_b", &keys)];
    d.wait_for(
        |d| {
            let t = &d.status()["ticklog"];
            t["current_queued"] == 0 && t["written_ticks"].as_u64() > Some(0)
        },
        "the tick log written",
    );
    let mut d = d;
    d.child.kill().unwrap();
    d.child.wait().unwrap();
    drop(d);

    let d = start(state.path(), &config);
    d.wait_log("Reports restored from the tick log");
    let want = &closed_ticks_restored(&d, 300, 350, &before, &after)[0];
    for r in ["report_by_script_name", "scripts_a", "scripts_b"] {
        assert_eq!(report_state(&d, r, &keys).0, want.0, "{r}");
        assert_eq!(report_state(&d, r, &keys).1, want.1, "{r}");
    }
}

/// Issue 83, item 3: a tick log whose directory cannot be written at start (here a file in its
/// place; a full disk or a read-only directory alike) leaves the daemon running without it, and
/// comes back by itself once the directory can be made, without a restart: a `kill -9` after
/// that restores the tick closed since.
#[test]
fn a_tick_log_that_could_not_be_written_at_start_comes_back_by_itself() {
    let state = tempfile::tempdir().unwrap();
    let blocker = state.path().join("ticklog");
    std::fs::write(&blocker, b"not a directory").unwrap();
    let config = "stats_history = \"60s\"\nreport_ticks = 60\n[merge]\nfamilies = false\n";
    let d = start(state.path(), config);
    let t = d.status()["ticklog"].clone();
    assert_eq!(t["available"], false, "{t}");
    assert!(t["error"].as_str().unwrap().contains("ticklog"), "{t}");
    assert_eq!(t["write_errors"], 1, "{t}");
    std::fs::remove_file(&blocker).unwrap();
    d.wait_for(
        |d| d.status()["ticklog"]["available"] == true,
        "the tick log made again",
    );
    let t = d.status()["ticklog"].clone();
    assert_eq!(t["reopened"], 1, "{t}");
    assert_eq!(t["error"], Value::Null, "{t}");
    // 50 requests in one tick, then one a tick later: the first tick closes and is logged.
    d.send(&corpus(50, 7));
    d.wait_merged(50);
    let last = d.status()["uptime_seconds"].as_f64().unwrap();
    wait_uptime(&d, last + 1.1);
    d.send(&corpus(1, 8));
    d.wait_merged(51);
    d.wait_for(
        |d| {
            let t = &d.status()["ticklog"];
            t["current_queued"] == 0 && t["written_ticks"].as_u64() > Some(0)
        },
        "the tick log written",
    );
    let logs = d.logs();
    let said = logs
        .iter()
        .filter(|l| l.contains("Cannot write the tick log"))
        .count();
    assert_eq!(said, 1, "logged once, not at each try");
    assert!(logs.iter().any(|l| l.contains("Tick log opened")));
    let mut d = d;
    d.child.kill().unwrap();
    d.child.wait().unwrap();
    drop(d);

    let d = start(state.path(), config);
    let line = d.wait_log("Reports restored from the tick log");
    let s = d.status();
    assert!(
        s["ticklog"]["restored"]["ticks"].as_u64() > Some(0),
        "{line}: {s}"
    );
    // The last request's tick was the open one at the kill, and lost, unless a busy machine
    // took past its end to kill: whole or not at all.
    let (_, totals, _) = report_state(&d, "info", &[]);
    let restored = totals[0].as_u64().unwrap();
    assert!(
        (50..=51).contains(&restored),
        "{restored} requests restored"
    );
}
