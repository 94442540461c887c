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
