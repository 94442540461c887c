//! Issue 43, item 4: `(instance, id)` never repeats. Request ids (the API's, the stream's, the
//! sinks' and the SQL tables') continue past every id an earlier run on the same `state_dir`
//! used: after `kill -9`, after a clean restart that restores the snapshot (whose requests keep
//! their ids), and after an old snapshot is put back (its requests are numbered afresh).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use crate::common::*;

fn start(state: &Path) -> Daemon {
    Daemon::start(&format!("state_dir = {:?}\n", state.to_str().unwrap()))
}

/// The ids of every request the pool holds.
fn ids(d: &Daemon) -> BTreeSet<u64> {
    d.json("/api/v1/requests?limit=1000")["requests"]
        .as_array()
        .expect("a list of requests")
        .iter()
        .map(|r| r["id"].as_u64().expect("a numeric id"))
        .collect()
}

/// Sends `n` requests and waits until the pool holds `held` requests, then returns their ids.
fn traffic(d: &Daemon, n: usize, seed: u64, held: usize) -> BTreeSet<u64> {
    d.send(&corpus(n, seed));
    d.wait_for(
        |d| ids(d).len() >= held,
        &format!("{held} requests in the pool"),
    );
    ids(d)
}

fn kill_9(d: Daemon) {
    let mut d = d;
    d.child.kill().unwrap();
    d.child.wait().unwrap();
}

#[test]
fn request_ids_never_repeat_across_kill_9_restarts_and_restored_snapshots() {
    let state = tempfile::tempdir().unwrap();
    let snapshot = state.path().join("snapshot.bin");

    // Run 1, ended by kill -9: nothing but ids.json says which ids it used.
    let d = start(state.path());
    let run1 = traffic(&d, 200, 1, 200);
    kill_9(d);
    assert!(!snapshot.exists());

    // Run 2: none of run 1's ids; a clean stop writes the snapshot.
    let d = start(state.path());
    let run2 = traffic(&d, 150, 2, 150);
    assert!(
        run1.is_disjoint(&run2),
        "run 2 reused ids of run 1: {run1:?} {run2:?}"
    );
    assert!(d.terminate(Duration::from_secs(30)).success());
    assert!(snapshot.exists());
    let old_snapshot = state.path().join("old-snapshot.bin");
    std::fs::copy(&snapshot, &old_snapshot).unwrap();

    // Run 3: the snapshot's requests keep their ids; new ones get ids no run used.
    let d = start(state.path());
    assert_eq!(ids(&d), run2, "the restored requests keep their ids");
    let run3: BTreeSet<u64> = &traffic(&d, 100, 3, 250) - &run2;
    assert_eq!(run3.len(), 100);
    assert!(run3.is_disjoint(&run1), "{run3:?}");
    // Dense: a clean stop leaves no gap.
    assert_eq!(run3.first(), Some(&(run2.last().unwrap() + 1)));
    kill_9(d);

    // Run 4 on an old snapshot (run 2's, put back): its requests are numbered afresh.
    std::fs::rename(&old_snapshot, &snapshot).unwrap();
    let d = start(state.path());
    let restored = ids(&d);
    assert_eq!(restored.len(), run2.len(), "the old snapshot restored");
    let run4 = traffic(&d, 50, 4, 200);
    for (earlier, name) in [(&run1, "run 1"), (&run2, "run 2"), (&run3, "run 3")] {
        assert!(
            run4.is_disjoint(earlier),
            "run 4 reused ids of {name}: {run4:?}"
        );
    }
    // Small: at most one reserved block past the last used id per crash.
    let max = *run4.last().unwrap();
    assert!(max < 4 * pinbad::ids::BLOCK, "{max}");
    assert!(d.terminate(Duration::from_secs(30)).success());
}

fn start_logged(state: &Path) -> Daemon {
    Daemon::start_logged_with(
        &format!("state_dir = {:?}\n", state.to_str().unwrap()),
        &["--udp", "127.0.0.1:0"],
        None,
        "info",
    )
}

/// Issue 59, item 2: no damaged `ids.json` stops a start. An empty one (`: > ids.json`) and a
/// truncated one are set aside as `ids.json.damaged` (counted in `state_files`) and the ids go
/// on past every id the crashed runs used (the clock's floor, `ids::clock_floor`).
#[test]
fn a_damaged_ids_json_is_set_aside_and_ids_stay_unique() {
    let state = tempfile::tempdir().unwrap();
    let file = state.path().join("ids.json");
    let d = start(state.path());
    let mut used = traffic(&d, 50, 1, 50);
    kill_9(d);

    let text = std::fs::read_to_string(&file).unwrap();
    let damages = [
        ("empty", String::new()),
        ("truncated", text[..text.len() / 2].to_string()),
    ];
    for (seed, (what, damaged)) in (2..).zip(damages) {
        std::fs::write(&file, &damaged).unwrap();
        let d = start_logged(state.path());
        let status = d.status();
        assert_eq!(status["state_files"]["damaged"], 1, "{what}: {status}");
        let aside = &status["state_files"]["set_aside"][0];
        assert_eq!(aside["file"], "ids.json", "{what}: {aside}");
        let moved = aside["moved_to"].as_str().unwrap();
        assert!(moved.ends_with("ids.json.damaged"), "{moved}");
        assert_eq!(std::fs::read_to_string(moved).unwrap(), damaged, "{what}");
        d.wait_log("Damaged state file set aside");
        let run = traffic(&d, 50, seed, 50);
        assert!(
            run.first() > used.last(),
            "{what}: ids {run:?} not past the earlier runs' {used:?}"
        );
        assert!(*run.last().unwrap() < 1 << 48, "{what}: {run:?}");
        used.extend(run);
        kill_9(d);
    }
}

/// Issue 59, item 2: an `ids.json` that cannot be written (a full disk; here its temporary
/// file's name is taken by a directory, which stops root too, where a chmod would not) stops
/// no start: logged and counted, the daemon receives, and the file is written once it can be,
/// so that a crash after that still continues past every used id.
#[test]
fn an_unwritable_ids_json_stops_no_start_and_is_written_once_it_can_be() {
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path());
    let mut used = traffic(&d, 50, 1, 50);
    kill_9(d);

    let blocker = state.path().join("ids.json.tmp");
    std::fs::create_dir(&blocker).unwrap();
    let d = start_logged(state.path());
    let ids = &d.status()["state_files"]["ids"];
    assert_eq!(ids["unsaved"], true, "{ids}");
    assert!(ids["write_failures"].as_u64().unwrap() >= 1, "{ids}");
    let line = d.wait_log("Cannot reserve request ids on disk");
    assert!(line.contains("ids.json"), "{line}");
    let run = traffic(&d, 50, 2, 50);
    assert!(run.first() > used.last(), "{run:?} {used:?}");
    used.extend(run);
    std::fs::remove_dir(&blocker).unwrap();
    d.wait_for(
        |d| d.status()["state_files"]["ids"]["unsaved"] == false,
        "ids.json written again",
    );
    d.wait_log("Request ids reserved on disk again");
    kill_9(d);

    let d = start(state.path());
    assert_eq!(d.status()["state_files"]["damaged"], 0);
    let run = traffic(&d, 50, 3, 50);
    assert!(run.first() > used.last(), "{run:?} {used:?}");
    assert!(d.terminate(Duration::from_secs(30)).success());
}
