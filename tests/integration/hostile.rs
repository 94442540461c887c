//! Issue 83: an attacker's day against the real daemon, at a reduced scale.

use std::time::{Duration, Instant};

use crate::common::*;
use crate::sql::Wire;

/// Password guessing is bounded per address, whatever the connections it opens: after one
/// failure, 32 connections from the address guessing for 3 to 5 s have one password checked at a
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
    // Guessing for 3 s, longer (up to 5 s, still before a 7th guess could be checked) where a
    // busy machine has not yet had 9 logins waiting at once.
    let start = Instant::now();
    let (least, most) = (Duration::from_secs(3), Duration::from_secs(5));
    let seen_blocked = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let guessers: Vec<_> = (0..32)
        .map(|_| {
            let seen_blocked = std::sync::Arc::clone(&seen_blocked);
            std::thread::spawn(move || {
                let (mut denied, mut blocked) = (0u64, 0u64);
                let more = || {
                    let t = start.elapsed();
                    t < least
                        || (t < most && !seen_blocked.load(std::sync::atomic::Ordering::Relaxed))
                };
                while more() {
                    match Wire::login(mysql, "pinba", Some("guess")) {
                        Err((1045, _)) => denied += 1,
                        Err((1129, msg)) => {
                            assert!(msg.contains("127.0.0.1"), "{msg}");
                            blocked += 1;
                            seen_blocked.store(true, std::sync::atomic::Ordering::Relaxed);
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
    // in 3 to 5 s, the first included.
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

/// `n` datagrams of servers `{prefix}-{i}`, each a request of `request_time` seconds with 200
/// timers of 16 tags of 1 KB (drawn from 32 dictionary strings): ~3.4 MB of JSON rendered.
fn large_requests(n: usize, prefix: &str, request_time: f32) -> Vec<Vec<u8>> {
    use prost::Message;
    let mut dictionary: Vec<Vec<u8>> = (0..16).map(|i| format!("t{i}").into_bytes()).collect();
    dictionary.extend((0..16).map(|i| vec![b'a' + i as u8; 1000]));
    let names: Vec<u32> = (0..200 * 16).map(|i| (i % 16) as u32).collect();
    let values: Vec<u32> = (0..200 * 16).map(|i| 16 + (i % 16) as u32).collect();
    (0..n)
        .map(|i| {
            pinbad::proto::Request {
                hostname: format!("{prefix}-host").into_bytes(),
                server_name: format!("{prefix}-{i}").into_bytes(),
                script_name: format!("/{prefix}.php").into_bytes(),
                request_count: 1,
                request_time,
                timer_hit_count: vec![1; 200],
                timer_value: vec![0.01; 200],
                timer_ru_utime: vec![0.0; 200],
                timer_ru_stime: vec![0.0; 200],
                timer_tag_count: vec![16; 200],
                timer_tag_name: names.clone(),
                timer_tag_value: values.clone(),
                dictionary: dictionary.clone(),
                ..Default::default()
            }
            .encode_to_vec()
        })
        .collect()
}

/// The status's figure at `path` (`memory.used_bytes`).
fn figure(d: &Daemon, path: &str) -> u64 {
    path.split('.')
        .fold(d.status(), |v, k| v[k].clone())
        .as_u64()
        .unwrap_or_else(|| panic!("no {path}"))
}

/// The daemon's resident memory: now (`VmRSS`) or its peak so far (`VmHWM`), bytes.
fn resident(d: &Daemon, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", d.child.id())).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    kib << 10
}

/// Issue 83, item 2 (raw answers): connections asking for requests with their timers and
/// reading nothing held their chunks outside the budget (RSS 2.7 GB under 512 MiB). Now a
/// request's timers are sent in bounded chunks, each counted from before it is built until it is
/// written: while unread answers pile up, what the budget counts rises with them and what RSS
/// adds stays within what it counts (10 %, and a fixed base), past the budget a new answer is a
/// 503 `memory_full` while `/healthz` and the status answer, and the answers leave the budget
/// once their clients go.
#[test]
fn unread_raw_answers_with_timers_are_counted_in_the_budget() {
    const BUDGET_MIB: u64 = 128;
    // A request may take 1/64 of each pool ring: 200 timers of 16 tags need 3,216 tag slots.
    let d = Daemon::start(&format!(
        "request_pool_size = 1000\ntimer_pool_size = 20000\ntag_pool_size = 300000\n\
         temp_pool_memory = \"8MiB\"\n[merge]\nthreads = 1\n[http]\n\
         max_connections_per_client = 128\n[limits]\n\
         max_memory = \"{BUDGET_MIB}MiB\"\nmax_stream_clients = 2\nstream_buffer = \"1MiB\"\n"
    ));
    // 20 requests of 200 timers, each with 16 tags of 1 KB: ~3.4 MB of JSON each.
    let sent = large_requests(20, "raw", 0.1);
    d.send(&sent);
    d.wait_merged(20);
    assert_eq!(d.status()["timers_lost"], 0);
    // Read whole, the answer sent a part of a request at a time is the requests whole.
    let path = "/api/v1/requests?timers=true&limit=20";
    let (code, body) = d.get(path);
    assert_eq!(code, 200, "{body}");
    let requests = body["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 20);
    for r in requests {
        let timers = r["timers"].as_array().unwrap();
        assert_eq!(timers.len(), 200);
        assert_eq!(timers[199]["tags"]["t15"].as_str().unwrap().len(), 1000);
    }
    let rss = |d: &Daemon| resident(d, "VmRSS");
    const BASE: u64 = 24 << 20;
    let limit = BUDGET_MIB << 20;
    let (before, rss_before) = (figure(&d, "memory.used_bytes"), rss(&d));
    let (mut rss_peak, mut used_peak) = (rss_before, before);
    let mut held = Vec::new();
    let mut refused = None;
    let mut asked = 0;
    while refused.is_none() && asked < 200 {
        asked += 1;
        match ask_unread(d.http, path) {
            Ok(conn) => held.push(conn),
            // Busy: the held answers' chunks being built took the query slots.
            Err(text) if text.contains("busy") => {}
            Err(text) => {
                assert!(text.contains("memory_full"), "{text}");
                refused = Some(text);
            }
        }
        assert_eq!(d.get("/healthz").0, 200);
        let used = figure(&d, "memory.used_bytes");
        let resident = rss(&d);
        assert!(used <= limit + limit / 10, "accounted {} MiB", used >> 20);
        // What the answers add to RSS, the budget counts.
        let counted = used.saturating_sub(before);
        assert!(
            resident.saturating_sub(rss_before) <= counted + counted / 10 + BASE,
            "{} answers held: RSS +{} MiB, the budget counted +{} MiB",
            held.len(),
            (resident.saturating_sub(rss_before)) >> 20,
            counted >> 20
        );
        used_peak = used_peak.max(used);
        rss_peak = rss_peak.max(resident);
    }
    eprintln!(
        "unread raw answers: {} held before a 503; accounted {} -> peak {} MiB, RSS {} -> peak {} MiB",
        held.len(),
        before >> 20,
        used_peak >> 20,
        rss_before >> 20,
        rss_peak >> 20
    );
    assert!(refused.is_some(), "no answer refused past the budget");
    assert!(
        used_peak >= before + (8 << 20) && used_peak + (2 << 20) >= limit,
        "the held answers' chunks counted up to the limit: {} -> {} MiB",
        before >> 20,
        used_peak >> 20
    );
    // Past the budget, status and health still answer. A data answer asked now is refused, or,
    // where the held answers' chunks written since left room for it, admitted and then given
    // whole: the room it was admitted with is its own, never taken by the answers waiting. A
    // `busy` 503 (a held answer's chunk was being built in a query slot) is asked again.
    assert_eq!(d.get("/healthz").0, 200);
    assert_eq!(d.get("/api/v1/status").0, 200);
    let deadline = Instant::now() + Duration::from_secs(30);
    let (code, body) = loop {
        let (code, body) = d.get(path);
        if code != 503 || body["error"] != "busy" || Instant::now() > deadline {
            break (code, body);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    match code {
        503 => assert_eq!(body["error"].as_str(), Some("memory_full"), "{body}"),
        200 => assert_eq!(body["requests"].as_array().unwrap().len(), 20),
        _ => panic!("{code}: {body}"),
    }
    drop(held);
    d.wait_for(
        |d| figure(d, "memory.used_bytes") <= before + (1 << 20),
        "the answers out of the budget once their clients went",
    );
    assert_eq!(d.get(path).0, 200);
}

/// Issue 83, item 2 (request logs): a request log's page was rendered whole, and only then
/// measured against the budget (4 parallel `limit=100` asks of 2 MB entries peaked at 2.6 GB
/// under 512 MiB, three of them refused once built). Now a page is read and sent a chunk at a
/// time, each counted before it is read: 12 clients asking at once for a page of 24 entries
/// of ~2 MiB (48 MiB whole) and reading nothing take the process's peak RSS no further than
/// the budget had room for (10 % and a fixed base more), what RSS adds stays within what the
/// budget counts, those past it get a 503 `memory_full` before their first byte, the status
/// and `/metrics` answer meanwhile, and the answers leave the budget once their clients go.
#[test]
fn unread_request_log_answers_are_counted_in_the_budget() {
    const BUDGET_MIB: u64 = 128;
    const ENTRIES: usize = 24;
    // Small pools (as above), that the budget has room for the answers.
    let d = Daemon::start(&format!(
        "request_pool_size = 1000\ntimer_pool_size = 20000\ntag_pool_size = 300000\n\
         temp_pool_memory = \"8MiB\"\n[merge]\nthreads = 1\n[http]\n\
         max_connections_per_client = 128\nmax_concurrent_queries = 16\n[limits]\n\
         max_memory = \"{BUDGET_MIB}MiB\"\nmax_stream_clients = 2\nstream_buffer = \"1MiB\"\n\
         [request_log]\nmax_entry_bytes = \"2MiB\"\n"
    ));
    // Requests of 5 s, each of its own server, with 200 timers of 16 tags of 1 KB: ~3.4 MB of
    // JSON each, stored cut to 2 MiB.
    let sent = large_requests(ENTRIES, "log", 5.0);
    d.send(&sent);
    d.wait_for(
        |d| d.get("/api/v1/request_logs/slow?limit=1").1["total"] == ENTRIES,
        "every request in the slow log",
    );
    // Read whole, the page sent a chunk at a time is every entry, each near its bound.
    let path = format!("/api/v1/request_logs/slow?limit={ENTRIES}");
    let (code, body) = d.get(&path);
    assert_eq!(code, 200, "{body}");
    let entries = body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), ENTRIES);
    for e in entries {
        let bytes = e["request"].to_string().len();
        assert!((3 << 19..=2 << 20).contains(&bytes), "{bytes}");
        assert!(!e["request"]["timers"].as_array().unwrap().is_empty());
    }
    assert!(body["next_cursor"].is_string(), "{body}");
    let limit = BUDGET_MIB << 20;
    let (before, rss_before) = (figure(&d, "memory.used_bytes"), resident(&d, "VmRSS"));
    assert!(
        before + (40 << 20) < limit,
        "room for a few answers: {before}"
    );
    let (held, _) = ask_at_once(&d, &path, 16);
    // The held answers' queues fill as far as the budget lets them.
    let last = std::cell::Cell::new(before);
    d.wait_for(
        |d| {
            let now = figure(d, "memory.used_bytes");
            let settled = now == last.replace(now);
            settled && now > before + (4 << 20)
        },
        "the held answers' chunks counted",
    );
    let used = last.get();
    // Meanwhile the status and the metrics answer.
    assert_eq!(d.get("/api/v1/status").0, 200);
    assert_eq!(d.get_text("/metrics").0, 200);
    assert!(!held.is_empty());
    within_budget(&d, limit, (before, used), rss_before);
    drop(held);
    d.wait_for(
        |d| figure(d, "memory.used_bytes") <= before + (1 << 20),
        "the answers out of the budget once their clients went",
    );
    let (code, body) = d.get(&path);
    assert_eq!(
        (code, body["entries"].as_array().map(Vec::len)),
        (200, Some(ENTRIES))
    );
}

/// Issue 83, item 2 (history): a history answer was read, rendered whole and only then measured
/// against the budget, so parallel asks of a large history built theirs outside it at once. Now
/// an answer is counted at its bound (from the rows the range holds) before a row is read, a
/// 503 `memory_full` when the budget has no room for it, and rendered a chunk at a time as its
/// client reads: 12 clients asking at once for 2,000 series of 8 one-second steps of as many
/// percentiles as an answer may hold (~20 MiB of points each) and reading nothing take the
/// process's peak RSS no further than the budget had room for (10 % and a fixed base more),
/// what RSS adds stays within what the budget counts, the status answers meanwhile, and the
/// answers leave the budget once their clients go.
#[test]
fn unread_history_answers_are_counted_in_the_budget() {
    // The pools and the report's eight steps take ~120 MiB of it: a budget of 128 MiB (tight
    // from 120) made a wave's rows go to "(other)" whenever a busy machine left one step more
    // pending; with 160 the waves fit and the twelve answers (~240 MiB) still do not.
    const BUDGET_MIB: u64 = 160;
    const KEYS: usize = 2000;
    const STEPS: usize = 8;
    let d = Daemon::start(&format!(
        "stats_history = \"4s\"\nreport_ticks = 4\nrequest_pool_size = 20000\n\
         timer_pool_size = 20000\ntag_pool_size = 20000\ntemp_pool_memory = \"8MiB\"\n\
         [merge]\nthreads = 1\n[http]\nmax_connections_per_client = 128\n\
         max_concurrent_queries = 16\n[limits]\nmax_memory = \"{BUDGET_MIB}MiB\"\n\
         max_stream_clients = 2\nstream_buffer = \"1MiB\"\nmax_query_limit = {KEYS}\n\
         [[report]]\nname = \"wide\"\nkeys = [\"script_name\"]\nhistory_retention = \"1h\"\n\
         history_step = \"1s\"\nhistory_rows = {}\n",
        2 * KEYS
    ));
    // A wave of every key a step, each wave stored (in a step of its own) before the next.
    for wave in 0..STEPS {
        let sent: Vec<Vec<u8>> = (0..KEYS)
            .map(|k| {
                use prost::Message;
                let mut r = proto_request(&format!("/s{k}"));
                r.request_time = 0.001 * (1 + (k + wave) % 97) as f32;
                r.encode_to_vec()
            })
            .collect();
        d.send(&sent);
        d.wait_for(
            |d| crate::history::total_requests(d, "wide") == ((wave + 1) * KEYS) as u64,
            "the wave in the history",
        );
    }
    // Every row taken (the budget had room for the report's and the history's).
    assert_eq!(figure(&d, "memory.rows_refused"), 0);
    assert_eq!(
        figure(&d, "history.rows_refused"),
        0,
        "the history summed rows into \"(other)\": {}",
        d.status()["memory"]
    );
    // The steps written: the range is exactly theirs.
    let (code, total) = d.get("/api/v1/reports/wide/history?from=-10m&group=total&step=1s");
    assert_eq!(code, 200, "{total}");
    let steps: Vec<u64> = total["series"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_u64().unwrap())
        .collect();
    assert_eq!(steps.len(), STEPS, "{total}");
    // As many percentiles as an answer may hold (a million values) over the range.
    let span = steps[STEPS - 1] + 1 - steps[0];
    let most = (1_000_000 / ((KEYS as u64 + 1) * span)).min(64);
    assert!(most >= 16, "the waves spanned {span} s");
    // Each point's request count first: a wave a busy machine spread over two steps gives a
    // key one point fewer, never a request fewer.
    let columns: Vec<String> = std::iter::once("req_count".to_string())
        .chain((1..most).map(|p| format!("p{p}")))
        .collect();
    let path = format!(
        "/api/v1/reports/wide/history?from={}&to={}&step=1s&limit={KEYS}&columns={}",
        steps[0],
        steps[STEPS - 1] + 1,
        columns.join(",")
    );
    // Read whole, the answer rendered a chunk at a time is every series and point.
    let (code, body) = d.get(&path);
    assert_eq!(code, 200, "{}", body["detail"]);
    let series: Vec<&serde_json::Value> = body["series"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["other"] == false)
        .collect();
    assert_eq!(series.len(), KEYS);
    for s in &series {
        let points = s["points"].as_array().unwrap();
        let requests: f64 = points.iter().map(|p| p[1].as_f64().unwrap()).sum();
        assert_eq!(requests, STEPS as f64, "{s}");
        for p in points {
            assert_eq!(p.as_array().unwrap().len(), 1 + most as usize);
        }
    }
    drop(body);
    let limit = BUDGET_MIB << 20;
    let (before, rss_before) = (figure(&d, "memory.used_bytes"), resident(&d, "VmRSS"));
    let (held, refused) = ask_at_once(&d, &path, 12);
    // Meanwhile the status answers.
    assert_eq!(d.get("/api/v1/status").0, 200);
    assert!(!held.is_empty());
    assert!(
        refused > 0,
        "12 answers of ~20 MiB each all built under a {BUDGET_MIB} MiB budget"
    );
    within_budget(
        &d,
        limit,
        (before, figure(&d, "memory.used_bytes")),
        rss_before,
    );
    drop(held);
    d.wait_for(
        |d| figure(d, "memory.used_bytes") <= before + (1 << 20),
        "the answers out of the budget once their clients went",
    );
    assert_eq!(d.get(&path).0, 200);
}

/// Issue 83, item 2 (comparisons): `GET /api/v1/compare` read both sides whole from the history
/// store (with long keys, tens of MB) before it asked the budget, and then only for what it had
/// read. Now both sides are counted at their bound (the stored rows of each range, an index
/// count, each at its key's longest and its histogram's largest) before a row is read, then at
/// what they hold, and the answer is rendered a chunk at a time: comparisons asked one after
/// another and read by no one each add to what the budget counts (RSS within it, the status and
/// `/healthz` answering) until one finds no room, a 503 `memory_full`; a comparison whose sides
/// are small (short keys) but whose bound finds no room is refused too, before a row is read
/// (before, it was read, measured small and answered); once the clients go, the budget is back
/// where it was.
#[test]
fn unread_comparisons_are_counted_before_their_sides_are_read() {
    const BUDGET_MIB: u64 = 320;
    // Keys of `wide` on each side (different on each), of 16,000 bytes.
    const WIDE: usize = 250;
    const KEY_BYTES: usize = 16_000;
    // Short keys of `narrow`, the same on both sides: its sides' bound is at 500 keys (the most
    // a side reads) each.
    const NARROW: usize = 600;
    let report = |name: &str, key: &str| {
        format!(
            "[[report]]\nname = \"{name}\"\nkeys = [\"{key}\"]\nhistory_retention = \"1h\"\n\
             history_step = \"1s\"\nhistory_rows = 2000\n"
        )
    };
    let d = Daemon::start(&format!(
        "stats_history = \"4s\"\nreport_ticks = 4\nrequest_pool_size = 6000\n\
         timer_pool_size = 20000\ntag_pool_size = 20000\ntemp_pool_memory = \"8MiB\"\n[merge]\n\
         threads = 1\n[http]\nmax_connections_per_client = 128\n[limits]\n\
         max_memory = \"{BUDGET_MIB}MiB\"\nmax_string_bytes = 16384\nmax_query_limit = 1000\n\
         max_stream_clients = 2\nstream_buffer = \"1MiB\"\n{}{}",
        report("wide", "script_name"),
        report("narrow", "server_name")
    ));
    let steps = |d: &Daemon| -> Vec<i64> {
        let (code, v) =
            d.get("/api/v1/reports/narrow/history?from=-10m&group=total&columns=req_count&step=1s");
        assert_eq!(code, 200, "{v}");
        v["series"][0]["points"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|p| p[0].as_i64().unwrap())
            .collect()
    };
    // Range A's wave, stored, then range B's: `wide` a key of its own each side, `narrow` the
    // same keys on both.
    let mut ranges = Vec::new();
    for side in ["a", "b"] {
        use prost::Message;
        let mut sent: Vec<Vec<u8>> = (0..WIDE)
            .map(|k| {
                let mut key = format!("/{side}{k}/");
                key.extend(std::iter::repeat_n('x', KEY_BYTES - key.len()));
                let mut r = proto_request(&key);
                r.server_name = b"wide".to_vec();
                r.encode_to_vec()
            })
            .collect();
        sent.extend((0..NARROW).map(|k| {
            let mut r = proto_request("/narrow");
            r.server_name = format!("s{k}").into_bytes();
            r.encode_to_vec()
        }));
        let before = steps(&d);
        d.send(&sent);
        let want = if side == "a" { 1 } else { 2 } * (WIDE + NARROW) as u64;
        d.wait_for(
            |d| crate::history::total_requests(d, "narrow") == want,
            "the wave in the history",
        );
        let new: Vec<i64> = steps(&d)
            .into_iter()
            .filter(|t| !before.contains(t))
            .collect();
        ranges.push((new[0], new[new.len() - 1] + 1));
    }
    assert_eq!(figure(&d, "memory.rows_refused"), 0);
    let ask = |report: &str| {
        format!(
            "/api/v1/compare?report={report}&a_from={}&a_to={}&b_from={}&b_to={}&limit=1000",
            ranges[0].0, ranges[0].1, ranges[1].0, ranges[1].1
        )
    };
    let (wide, narrow) = (ask("wide"), ask("narrow"));
    // Read whole, rendered a chunk at a time: every key of both sides (and `/narrow`).
    let (code, body) = d.get(&wide);
    assert_eq!(code, 200, "{}", body["detail"]);
    assert_eq!(
        body["rows_compared"],
        2 * WIDE + 1,
        "{}",
        body["rows_compared"]
    );
    let rows = body["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * WIDE + 1);
    let long = rows
        .iter()
        .filter(|r| r["key"][0].as_str().unwrap().len() == KEY_BYTES);
    assert_eq!(long.count(), 2 * WIDE);
    drop(body);
    let limit = BUDGET_MIB << 20;
    let (before, rss_before) = (figure(&d, "memory.used_bytes"), resident(&d, "VmRSS"));
    // One after another, each answered before the next is asked, none read: the budget counts
    // each until one finds no room.
    let (mut held, mut refused) = (Vec::new(), None);
    for _ in 0..40 {
        match ask_unread(d.http, &wide) {
            Ok(conn) => held.push(conn),
            Err(text) => {
                refused = Some(text);
                break;
            }
        }
    }
    let refused = refused.expect("40 unread comparisons of ~9 MB each all counted in the budget");
    assert!(refused.contains("memory_full"), "{refused}");
    assert!(held.len() >= 2, "{} held", held.len());
    let used = figure(&d, "memory.used_bytes");
    assert!(
        used >= before + held.len() as u64 * (512 << 10),
        "{} answers held, the budget counted {} -> {} MiB",
        held.len(),
        before >> 20,
        used >> 20
    );
    // Meanwhile the status and the health check answer.
    assert_eq!(d.get("/api/v1/status").0, 200);
    assert_eq!(d.get("/healthz").0, 200);
    within_budget(&d, limit, (before, used), rss_before);
    // Small sides, a bound the budget has no room for: refused before they are read.
    let text =
        ask_unread(d.http, &narrow).expect_err("a comparison whose bound does not fit is refused");
    assert!(text.contains("memory_full"), "{text}");
    drop(held);
    d.wait_for(
        |d| figure(d, "memory.used_bytes") <= before + (1 << 20),
        "the answers out of the budget once their clients went",
    );
    let (code, body) = d.get(&narrow);
    assert_eq!(code, 200, "{}", body["detail"]);
    assert!(
        body["rows_compared"].as_u64().unwrap() >= 500,
        "{}",
        body["rows_compared"]
    );
}

/// `n` clients asking for `path` at once and reading nothing: the connections of those answered,
/// and how many were refused with `memory_full` (those answered `busy`, whose query slots the
/// others took, are neither).
fn ask_at_once(d: &Daemon, path: &str, n: usize) -> (Vec<std::net::TcpStream>, usize) {
    let asks: Vec<_> = (0..n)
        .map(|_| {
            let (http, path) = (d.http, path.to_string());
            std::thread::spawn(move || ask_unread(http, &path))
        })
        .collect();
    let (mut held, mut refused) = (Vec::new(), 0);
    for ask in asks {
        match ask.join().unwrap() {
            Ok(conn) => held.push(conn),
            Err(text) if text.contains("busy") => {}
            Err(text) => {
                assert!(text.contains("memory_full"), "{text}");
                refused += 1;
            }
        }
    }
    eprintln!("{path}: {} held, {refused} refused", held.len());
    (held, refused)
}

/// What answers held unread took, the budget (`limit`) having counted `before` before they were
/// asked and `used` now, and RSS having been `rss_before`: what they count stays within the
/// budget (10 % more at most); the process's peak RSS went no further than the budget had room
/// for (10 % of the limit and a fixed base more: no answer was built past it, even for a
/// moment); and what they add to RSS now the budget counts (10 % and the base more).
fn within_budget(d: &Daemon, limit: u64, (before, used): (u64, u64), rss_before: u64) {
    const BASE: u64 = 24 << 20;
    let (rss, peak) = (resident(d, "VmRSS"), resident(d, "VmHWM"));
    eprintln!(
        "accounted {} -> {} MiB, RSS {} -> {} MiB, peak {} MiB",
        before >> 20,
        used >> 20,
        rss_before >> 20,
        rss >> 20,
        peak >> 20
    );
    assert!(used <= limit + limit / 10, "accounted {} MiB", used >> 20);
    let room = limit.saturating_sub(before);
    assert!(
        peak.saturating_sub(rss_before) <= room + limit / 10 + BASE,
        "RSS peaked at +{} MiB with {} MiB left in the budget",
        peak.saturating_sub(rss_before) >> 20,
        room >> 20
    );
    let counted = used.saturating_sub(before);
    assert!(
        rss.saturating_sub(rss_before) <= counted + counted / 10 + BASE,
        "RSS +{} MiB, the budget counted +{} MiB",
        rss.saturating_sub(rss_before) >> 20,
        counted >> 20
    );
}
