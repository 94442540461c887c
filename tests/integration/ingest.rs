//! The ingest path's bounds against the real daemon: an exclusive UDP bind, and a temp ring held
//! to its memory bound by a flood of datagrams that decode into many small requests.

use prost::Message;

use crate::common::*;

/// Resident and peak memory of a process, from /proc (kB → bytes).
fn memory(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

#[test]
fn a_second_instance_on_the_same_udp_address_fails_and_steals_nothing() {
    let d = Daemon::start("");
    let addr = d.udp[0].to_string();
    let state = tempfile::tempdir().unwrap();
    let (code, err) = run_pinbad(&["--udp", &addr, "--http", "127.0.0.1:0"], state.path());
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("cannot bind UDP") && err.contains(&addr),
        "{err}"
    );
    let datagrams: Vec<Vec<u8>> = (0..200).map(|_| request("/a.php")).collect();
    d.send(&datagrams);
    d.wait_merged(200);
    assert_eq!(
        d.status()["requests_accepted"],
        200,
        "the first one got everything"
    );
}

#[test]
fn a_flood_of_nested_requests_is_held_to_the_temp_ring_bound() {
    // The merger runs every 10 s, so the flood piles up in the ring; 8 MiB holds a fraction.
    let d = Daemon::start(
        "temp_pool_memory = \"8MiB\"\nstats_gathering_period = \"10s\"\nrequest_pool_size = 10000\n\
         builtin_reports = false\n",
    );
    let pid = d.child.id();
    // One datagram of ~60 KB holding ~1,600 nested requests: ~1 MB once decoded.
    let mut top = proto_request("/top.php");
    top.requests = (0..1600)
        .map(|i| proto_request(&format!("/{}", i % 10)))
        .collect();
    let datagram = top.encode_to_vec();
    assert!(datagram.len() < 65_000, "{}", datagram.len());
    let (base_rss, _) = memory(pid);
    d.send(&vec![datagram; 1000]);
    let s = d.status();
    let (rss, peak) = memory(pid);
    eprintln!(
        "flood of 1000 × {} requests: RSS {} → {} MB, peak {} MB; queued {} bytes; dropped {}",
        top.requests.len() + 1,
        base_rss >> 20,
        rss >> 20,
        peak >> 20,
        s["current_temp_pool_bytes"],
        s["temp_pool_dropped"]
    );
    assert!(
        s["current_temp_pool_bytes"].as_u64().unwrap() <= 8 << 20,
        "{s}"
    );
    assert!(s["temp_pool_dropped"].as_u64().unwrap() > 0, "{s}");
    // Unbounded, this flood queued ~1.6M decoded requests (hundreds of MB); bounded, the ring's
    // 8 MiB plus a receiver's batch and its datagram buffers (4 MiB).
    assert!(
        peak.saturating_sub(base_rss) < 48 << 20,
        "peak {} MB over a {} MB start",
        peak >> 20,
        base_rss >> 20
    );
    d.wait_merged(1000);
}

#[test]
fn one_request_takes_only_a_bounded_share_of_the_timer_ring() {
    // 20,000 timers: one request may take 312 of them (1/64).
    let d = Daemon::start("request_pool_size = 10000\ntimer_pool_size = 20000\n");
    let mut real = proto_request("/real.php");
    real.timer_hit_count = vec![1; 3];
    real.timer_value = vec![0.01; 3];
    real.timer_tag_count = vec![0; 3];
    d.send(&vec![real.encode_to_vec(); 200]);
    d.wait_merged(200);
    // Datagrams of 6,000 timers each, as an attacker would send.
    let mut monster = proto_request("/monster.php");
    monster.timer_hit_count = vec![1; 6_000];
    monster.timer_value = vec![0.01; 6_000];
    monster.timer_tag_count = vec![0; 6_000];
    d.send(&vec![monster.encode_to_vec(); 50]);
    d.wait_merged(250);
    let s = d.status();
    assert_eq!(s["pool_overwritten"], 0, "no real request was evicted: {s}");
    assert_eq!(s["current_pool_used"], 250);
    assert_eq!(
        s["current_timer_pool_used"], 600,
        "only the real requests' timers"
    );
    // limits.max_timers_per_request (1,000) cut each at decoding, the share cut the rest.
    assert_eq!(s["timers_dropped"], 50 * 5_000);
    assert_eq!(s["timers_lost"], 50 * 1_000);
}

#[test]
fn memory_goes_back_after_a_burst_has_expired() {
    // History off: it keeps the rows of the steps being summed (here the built-ins' 15-minute
    // steps) until they are written, by design; this test is about the window and the pool.
    let d = Daemon::start("stats_history = \"10s\"\n[history]\nenabled = false\n");
    let pid = d.child.id();
    let (base, _) = memory(pid);
    // 10,000 requests each with ~9 KB of unique strings (a script name and 8 request tags of
    // 1 KB): ~90 MB of dictionary strings and report rows, against 0.6 MB of pool records.
    let long = "x".repeat(1000);
    let burst: Vec<Vec<u8>> = (0..10_000)
        .map(|i| {
            let mut r = proto_request(&format!("/{i}/{long}"));
            r.dictionary = (0..8)
                .map(|t| format!("{i}-{t}-{long}").into_bytes())
                .collect();
            r.dictionary.push(b"tag".to_vec());
            r.tag_name = vec![8; 8];
            r.tag_value = (0..8).collect();
            r.encode_to_vec()
        })
        .collect();
    d.send(&burst);
    d.wait_merged(10_000);
    let (_, peak) = memory(pid);
    d.wait_for(
        |d| d.status()["current_pool_used"] == 0 && d.status()["dictionary_size"] == 0,
        "the burst to expire",
    );
    let grown = peak.saturating_sub(base);
    assert!(
        grown > 40 << 20,
        "the burst took memory: {} MB",
        grown >> 20
    );
    d.wait_for(
        |_| memory(pid).0 < base + grown / 2,
        &format!(
            "resident memory to fall back (start {} MB, peak {} MB, now {} MB)",
            base >> 20,
            peak >> 20,
            memory(pid).0 >> 20
        ),
    );
    eprintln!(
        "RSS {} MB at start, peak {} MB during the burst, {} MB after it expired",
        base >> 20,
        peak >> 20,
        memory(pid).0 >> 20
    );
}
