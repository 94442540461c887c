//! How a stop ends (issues 42, 59 and 60): within its bound whatever holds it (a flood of
//! unique names, a ClickHouse that never answers), and its last line telling the time from the
//! signal to the exit.
//!
//! The flood's test is the suite's longest (a million names folded into every report keyed by
//! script, written and restored: over two minutes beside the other tests on two cores). libtest
//! starts tests in the order of their names, so these are in a module that sorts early: started
//! among the last, the flood alone outlasted every other test by a minute.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;

/// A daemon on `state` with logs at info (the snapshot's and the stop's lines).
fn start(state: &Path, extra: &str) -> Daemon {
    let config = format!("state_dir = {:?}\n{extra}", state.to_str().unwrap());
    Daemon::start_logged(&config, "info")
}

/// Sends `n` requests to `d`, each with a script name of its own, as fast as the daemon reads
/// them (paced on its socket's receive queue, so that the kernel drops next to nothing), then
/// waits until it merged what it read.
fn flood_unique_names(d: &Daemon, n: usize) {
    use prost::Message;
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.connect(d.udp[0]).unwrap();
    let mut request = proto_request("");
    let mut buf = Vec::with_capacity(128);
    for i in 0..n {
        request.script_name = format!("/flood/{i:08}.php").into_bytes();
        buf.clear();
        request.encode(&mut buf).unwrap();
        // A full socket buffer (ENOBUFS/EAGAIN) loses the datagram: counted, not a failure.
        let _ = socket.send(&buf);
        if i % 1000 == 999 {
            let deadline = Instant::now() + Duration::from_secs(60);
            while udp_receive_queue(d.udp[0].port()).is_some_and(|q| q > 1 << 20) {
                assert!(Instant::now() < deadline, "the daemon stopped reading");
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let s = d.status();
        let n = |k: &str| s[k].as_u64().unwrap();
        // (What the sockets still queue is read after: on a busy machine the receivers may
        // have handed on all they read between two reads.)
        if n("requests_accepted") == n("requests_merged") + n("temp_pool_dropped")
            && udp_receive_queue(d.udp[0].port()) == Some(0)
        {
            break;
        }
        assert!(Instant::now() < deadline, "not merged: {s}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Issue 59: a stop after a flood of a million unique names (the default configuration) took
/// 14.7–30 s, and its snapshot's write took memory nobody counted (RSS 0.87 → 4.2 GB: each
/// report's part was built whole before it was written). The parts are streamed to the file
/// now, and the families' stages are saved as they are instead of folded into every member
/// first (that fold, a million new rows into each member keyed by script, was ~10 s of a
/// quiet stop and took RSS from 0.65 to ~4 GB; a stop with the stages unfolded is
/// `requests_in_families_stages_at_a_stop_are_answered_exactly_after_the_restart`'s). Here
/// the stop comes once the flood is folded into every member and their tick closed, the
/// heaviest state to write (~350 MB): it ends within the 10 s, and its peak RSS stays
/// within 512 MiB of what the daemon held when signalled (the write's own memory, logged, less
/// than an eighth of the snapshot's size). The next start restores the flood (its figures
/// printed).
#[test]
fn a_flood_of_unique_names_does_not_hold_the_stop() {
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), "");
    let t = Instant::now();
    flood_unique_names(&d, 1_000_000);
    let s = d.status();
    eprintln!(
        "flooded in {:?}: dictionary {} strings, {} merged, lost {} / {}",
        t.elapsed(),
        s["dictionary_size"],
        s["requests_merged"],
        s["kernel_drops"],
        s["temp_pool_dropped"]
    );
    let pid = d.child.id();
    // Signalled once every report keyed by script holds the flood (the family's stage is
    // handed to its members one a round after a tick), each name merged in a row of its own or
    // counted in "(other)" (evicted to make room, or lost): the stop then writes the reports
    // whole (~350 MB), not a stage still partly unfolded, whichever side of a tick the signal
    // happened to fall on. What the daemon merged, not what was sent: on a busy machine the
    // temporary pool drops some of the flood (counted), which no report ever holds.
    let merged = s["requests_merged"].as_u64().unwrap();
    let folded_by = Instant::now() + Duration::from_secs(300);
    loop {
        let status = d.status();
        let unfolded: Vec<&Value> = status["reports"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                let n = |k: &str| r[k].as_u64().unwrap();
                r["name"].as_str().unwrap().contains("script")
                    && n("rows") + n("rows_evicted") + n("rows_lost") < merged
            })
            .collect();
        if unfolded.is_empty() {
            break;
        }
        assert!(Instant::now() < folded_by, "not folded: {unfolded:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Then the tick they absorbed it in closed, each report's closed tick holding the flood's
    // rows (tick copies of a million rows: memory that is the tick's, not the stop's), all of
    // them written to the tick log and summed into history's open steps (a million keys a
    // report: the writer, behind on a loaded machine, summed them during the stop in one CI
    // run, +820 MiB that were the tick's).
    let ticklog = |s: &Value, k: &str| s["ticklog"][k].as_u64().unwrap();
    let written = ticklog(&d.status(), "written_ticks");
    let reports = d.status()["reports"].as_array().unwrap().len() as u64;
    let summed_by = Instant::now() + Duration::from_secs(300);
    loop {
        let s = d.status();
        if ticklog(&s, "written_ticks") >= written + reports
            && ticklog(&s, "current_queued") == 0
            && s["history"]["pending_ticks"].as_u64() == Some(0)
        {
            break;
        }
        assert!(
            Instant::now() < summed_by,
            "the tick not closed: {} {}",
            s["ticklog"],
            s["history"]
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // And at a quiet point: the tick's memory settled, seen as RSS no longer growing: within
    // 16 MiB over 2 s, or after 120 s whatever it does.
    let quiet_by = Instant::now() + Duration::from_secs(120);
    let mut rss = proc_status_kib(pid, "VmRSS:").expect("the daemon's RSS");
    loop {
        std::thread::sleep(Duration::from_secs(2));
        let now = proc_status_kib(pid, "VmRSS:").expect("the daemon's RSS");
        if now <= rss + (16 << 10) || Instant::now() > quiet_by {
            break;
        }
        rss = now;
    }
    let before = proc_status_kib(pid, "VmRSS:").expect("the daemon's RSS");
    let held = d.status();
    let held = format!("history {}, memory {}", held["history"], held["memory"]);
    // The peak from here on (VmHWM, reset to the RSS now).
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
    let busy_before = machine_busy_ms();
    let signalled = Instant::now();
    d.signal_term();
    let mut peak = before;
    let deadline = signalled + Duration::from_secs(300);
    // Each thread's CPU time, sampled until it is gone: a thread's last sample is within the
    // poll of its end.
    let threads_before = thread_cpu_ticks(pid);
    let mut threads_after = threads_before.clone();
    while let Some(hwm) = proc_status_kib(pid, "VmHWM:") {
        for (thread, ticks) in thread_cpu_ticks(pid) {
            let seen = threads_after.entry(thread).or_insert(0);
            *seen = (*seen).max(ticks);
        }
        peak = peak.max(hwm);
        assert!(Instant::now() < deadline, "not stopped in 300 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    let (status, logs) = d.wait_logged(Duration::from_secs(60));
    let took = signalled.elapsed();
    let others_ms = machine_busy_ms() - busy_before;
    assert!(status.success(), "{status:?}");
    let stopped = logs.iter().rfind(|l| l.contains("Stopped")).unwrap();
    let cpu_ms = log_figure(stopped, "cpu_ms");
    let others = (others_ms - cpu_ms) / took.as_secs_f64() / 1000.0;
    // The stop's own work (ms of CPU): every thread but the passes that end at the stop's
    // deadline whatever they hold (the history writer, the tick log, the request log, the
    // sinks), which `stopped_within_bound` bounds by time.
    let mut by_thread: Vec<(&str, f64)> = threads_after
        .iter()
        .map(|(thread, &ticks)| {
            let ms = (ticks - threads_before.get(thread).copied().unwrap_or(0)) as f64 * 10.0;
            (thread.0.as_str(), ms)
        })
        .filter(|&(_, ms)| ms > 0.0)
        .collect();
    by_thread.sort_by(|a, b| b.1.total_cmp(&a.1));
    let deadline_bound = [
        "pinbad-history",
        "pinbad-ticklog",
        "pinbad-reqlog",
        "pinbad-sink",
    ];
    let own_ms: f64 = by_thread
        .iter()
        .filter(|(name, _)| !deadline_bound.iter().any(|p| name.starts_with(p)))
        .map(|(_, ms)| ms)
        .sum();
    let writes = stopped_within_bound(&logs, took, others >= 1.0);
    // Within 10 s, or, where the stop waited for the CPU, its own CPU time within 10 s and half
    // again, as the same work takes more CPU time beside busy cores (the snapshot's threads
    // 5.1 s on a free machine, 8.2 s under two busy loops). It waits where other processes held
    // a core or more (tests/stress.sh, a build beside it), and on two cores even beside the
    // passes that end at the deadline (the history writer's, 2.8–4 s of CPU over the flood:
    // 10.4 s in one full run, others holding 0.2 of a core); `stopped_within_bound` holds the
    // whole stop to its deadline either way.
    assert!(
        took <= Duration::from_secs(10) || own_ms <= 15_000.0,
        "stopped in {took:?} ({own_ms} ms of the stop's own CPU, {by_thread:?}; others \
         {others:.2} cores): {logs:#?}"
    );
    // The stop's peak: the snapshot's write streams its parts (its own growth is checked
    // below), and the history writer's last pass sums the flood's ticks into its open steps,
    // held while the snapshot was written: +188 to +280 MiB measured with the whole stop, up
    // to +518 MiB where the writer had written no step before the signal (every tick of the
    // flood summed at once; 2026-12-03, 6 runs: 351 to 518). A part built whole, as before,
    // took gigabytes.
    assert!(
        peak <= before + (768 << 10),
        "RSS {before} → {peak} KiB ({held} when signalled): {logs:#?}"
    );
    eprintln!(
        "stopped in {took:?} (the state files written in {writes:?}; CPU ms by thread \
         {by_thread:?}), others took {others:.2} cores meanwhile; RSS {} MiB when signalled ({held}), {} MiB at the stop's peak: {logs:#?}",
        before >> 10,
        peak >> 10
    );
    let written = logs
        .iter()
        .find(|l| l.contains("Snapshot written"))
        .unwrap_or_else(|| panic!("{logs:#?}"));
    let (mib, growth) = (
        log_figure(written, "bytes") / 1048576.0,
        log_figure(written, "rss_growth_mib"),
    );
    // The figure is the process's RSS over the write, not the write's alone: what other threads
    // do meanwhile falls within it, the more the longer a busy machine makes the write (52.0 MiB
    // over a 7.4 s write of 409 MiB under two busy loops, 428.6 MiB over a 10.3 s write of
    // 457 MiB another time, the history writer's last pass among it). Its bound is the stop's
    // own, above: a part built whole, as before, took gigabytes.
    assert!(growth <= 512.0, "{mib:.0} MiB written: {written}");

    // The next start restores the flood whole (the reports as written: no stage was left to
    // fold).
    let started = Instant::now();
    let d = start(state.path(), "");
    let restored = d.wait_log("Snapshot restored");
    assert_eq!(
        log_figure(&restored, "requests"),
        merged as f64,
        "{restored}"
    );
    let after_restore = proc_status_kib(d.child.id(), "VmRSS:").expect("the daemon's RSS");
    eprintln!(
        "restarted in {:?}; RSS {} MiB after the restore, memory accounted {}: {restored}",
        started.elapsed(),
        after_restore >> 10,
        d.status()["memory"]
    );
    assert!(d.terminate(Duration::from_secs(120)).success());
}

/// A field (kB) of `/proc/PID/status`; `None` once the process is gone (or a zombie, which
/// has no memory figures).
fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// CPU time every process on the machine has used (ms; `/proc/stat`'s first line: all but
/// idle and I/O wait, in USER_HZ ticks of 10 ms).
fn machine_busy_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    let ticks: Vec<f64> = stat
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user and nice)
    let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7];
    busy * 10.0
}

/// The state files' write time a stop logged (its "Stopped" line), after checking that it ended
/// within its bound, `took` after the signal. Where other processes held a core or more
/// meanwhile (`contended`), the signal's way to the handler and the exit (a heap of gigabytes
/// given back) waited for the CPU too, and the stop's own figure (`stop_ms`, which
/// `the_stop_line_tells_the_time_from_the_signal_to_the_exit` shows is the time to the exit)
/// is held to the bound instead.
fn stopped_within_bound(logs: &[String], took: Duration, contended: bool) -> Duration {
    let stopped = logs
        .iter()
        .rfind(|l| l.contains("Stopped"))
        .unwrap_or_else(|| panic!("{logs:#?}"));
    let writes = Duration::from_secs_f64(log_figure(stopped, "state_files_ms") / 1000.0);
    let stop = Duration::from_secs_f64(log_figure(stopped, "stop_ms") / 1000.0);
    let measured = if contended { stop } else { took };
    assert!(
        measured <= STOP_BOUND + writes + MEASURING,
        "stopped in {took:?} ({stop:?} by its own count{}), the state files written in \
         {writes:?}: {logs:#?}",
        if contended {
            ", other processes holding a core or more"
        } else {
            ""
        }
    );
    writes
}

/// A ClickHouse that takes the connection and never answers (a listener nobody accepts on: the
/// kernel completes the handshake) held a stop for the sink's `timeout` (120 s here), and twice
/// that with a retry. The snapshot is written first, and the sinks have one deadline, the
/// stop's: what ClickHouse did not take by then is dropped, counted and logged.
#[test]
fn a_clickhouse_that_never_answers_does_not_hold_the_stop() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let state = tempfile::tempdir().unwrap();
    let config = format!(
        "[[sink]]\nname = \"ch\"\nkind = \"clickhouse\"\nurl = \"http://{}\"\n\
         batch_rows = 10\nbatch_time = \"100ms\"\ntimeout = \"120s\"\n",
        silent.local_addr().unwrap()
    );
    let d = start(state.path(), &config);
    d.send(&corpus(100, 31));
    d.wait_merged(100);
    // Every request reached the sink, and its first insert waits on the server.
    d.wait_for(
        |d| d.status()["sinks"][0]["current_queued"].as_u64() == Some(100),
        "the sink holding every request",
    );
    let signalled = Instant::now();
    let (status, logs) = d.terminate_logged(Duration::from_secs(60));
    let took = signalled.elapsed();
    assert!(status.success(), "{status:?}: {logs:#?}");
    let writes = stopped_within_bound(&logs, took, false);
    eprintln!("stopped in {took:?}, the state files written in {writes:?}");
    let at = |needle: &str| {
        logs.iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in {logs:#?}"))
    };
    let dropped = at("ClickHouse did not answer by the stop's deadline");
    assert!(at("Snapshot written") < dropped, "{logs:#?}");
    assert!(logs[dropped].contains("requests=100"), "{}", logs[dropped]);
    assert!(state.path().join("snapshot.bin").exists());
}

/// The stop's last line tells the whole stop (issue 60, which saw `stop_ms=12.7` and an exit
/// 1.45 s after SIGTERM): its `stop_ms` is at most the time from SIGTERM to the exit as this test,
/// the parent, sees it, and short of it only by the signal's way to the handler and the exit.
/// (An orphan that a container's init reaps late stays a zombie for a second or so after its
/// exit: that is no part of the stop.)
#[test]
fn the_stop_line_tells_the_time_from_the_signal_to_the_exit() {
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path(), "");
    d.send(&corpus(2000, 71));
    d.wait_merged(2000);
    let signalled = Instant::now();
    let (status, logs) = d.terminate_logged(Duration::from_secs(60));
    let took = signalled.elapsed();
    assert!(status.success(), "{status:?}: {logs:#?}");
    let stopped = logs
        .iter()
        .rfind(|l| l.contains("Stopped"))
        .unwrap_or_else(|| panic!("{logs:#?}"));
    let stop = Duration::from_secs_f64(log_figure(stopped, "stop_ms") / 1000.0);
    eprintln!("stop_ms {stop:?}, the exit {took:?} after the signal");
    assert!(
        stop <= took,
        "{stopped}: the exit came {took:?} after the signal"
    );
    assert!(
        took <= stop + MEASURING,
        "{stopped}: the exit came {took:?} after the signal"
    );
}

/// The stop's bound: this long after the signal, plus the state files' write time.
const STOP_BOUND: Duration = Duration::from_secs(5);
/// What the test's own measure adds (it polls the process's exit every 10 ms, and may wait
/// for a core on a busy machine).
const MEASURING: Duration = Duration::from_millis(300);

/// Each thread's CPU time (`/proc/PID/task/TID/stat`'s utime and stime, in USER_HZ ticks of
/// 10 ms), keyed by its name and id; empty once the process is gone.
fn thread_cpu_ticks(pid: u32) -> std::collections::BTreeMap<(String, u32), u64> {
    let mut threads = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return threads;
    };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let tid = task.file_name().to_string_lossy().parse().unwrap_or(0);
        // After the name: state, then 10 fields to utime and stime (fields 14 and 15).
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        threads.insert(
            (stat[open + 1..close].to_string(), tid),
            ticks(11) + ticks(12),
        );
    }
    threads
}
