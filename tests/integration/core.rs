//! Issue 2: receive, decode, pool, raw data, status, config, lifecycle.

use std::time::Duration;

use prost::Message;
use serde_json::{json, Value};

use crate::common::*;

/// A minimal valid request with the given script name.
/// The fixture's request rendered the way the API renders it (tags as objects, first name wins).
fn expected_api_request(fixture: &Value) -> Value {
    let tags = |list: &Value| {
        let mut m = serde_json::Map::new();
        for pair in list.as_array().unwrap() {
            m.entry(pair[0].as_str().unwrap())
                .or_insert(pair[1].clone());
        }
        Value::Object(m)
    };
    let mut r = fixture.clone();
    r["tags"] = tags(&fixture["tags"]);
    let timers: Vec<Value> = fixture["timers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let mut t = t.clone();
            t["tags"] = tags(&t["tags"]);
            t
        })
        .collect();
    r["timers"] = Value::Array(timers);
    r
}

/// Compares an API request with the expected one: floats to f32 precision, the rest exactly.
fn assert_same_request(got: &Value, want: &Value, what: &str) {
    for (k, w) in want.as_object().unwrap() {
        let g = &got[k];
        match (k.as_str(), w) {
            ("timers", Value::Array(wt)) => {
                let gt = g
                    .as_array()
                    .unwrap_or_else(|| panic!("{what}: no timers in {got}"));
                assert_eq!(gt.len(), wt.len(), "{what}: timer count");
                for (i, (gt, wt)) in gt.iter().zip(wt).enumerate() {
                    assert_same_request(gt, wt, &format!("{what} timer {i}"));
                }
            }
            (_, Value::Number(n)) if n.is_f64() => {
                let (gf, wf) = (g.as_f64().unwrap(), n.as_f64().unwrap());
                assert!(close(gf, wf, 1e-6), "{what}: {k} = {gf}, want {wf}");
            }
            _ => assert_eq!(g, w, "{what}: field {k}"),
        }
    }
}

#[test]
fn every_fixture_round_trips_to_the_raw_api_and_counts_rejections() {
    let d = Daemon::start("");
    let mut sent = 0;
    let mut want_rejected: std::collections::BTreeMap<String, u64> = Default::default();
    for (name, bytes, expected) in fixtures() {
        d.send(&[bytes]);
        sent += 1;
        d.wait_merged(sent);
        for r in expected["rejected"].as_array().unwrap() {
            *want_rejected
                .entry(r.as_str().unwrap().to_string())
                .or_default() += 1;
        }
        let want = expected["requests"].as_array().unwrap();
        if want.is_empty() {
            continue;
        }
        let got = d.json(&format!(
            "/api/v1/requests?timers=true&limit={}",
            want.len()
        ));
        let got = got["requests"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{name}");
        // Newest first: the last request of the datagram comes first.
        for (i, (g, w)) in got.iter().rev().zip(want).enumerate() {
            assert_same_request(g, &expected_api_request(w), &format!("{name} request {i}"));
        }
    }
    let s = d.status();
    for (reason, n) in &want_rejected {
        assert_eq!(
            s["rejected_by_reason"][reason].as_u64(),
            Some(*n),
            "rejected_by_reason.{reason}: {s}"
        );
    }
    let total: u64 = want_rejected.values().sum();
    assert_eq!(s["requests_rejected"].as_u64(), Some(total));
    assert_eq!(s["packets_received"].as_u64(), Some(sent));
    assert!(
        s["timers_skipped"].as_u64().unwrap() >= 1,
        "the zero-hit fixture skips a timer"
    );
}

#[test]
fn status_has_every_documented_counter() {
    let d = Daemon::start("");
    let s = d.status();
    for key in [
        "uptime_seconds",
        "packets_received",
        "bytes_received",
        "packets_decoded",
        "requests_accepted",
        "requests_rejected",
        "rejected_by_reason",
        "timers_skipped",
        "temp_pool_dropped",
        "pool_capacity",
        "current_pool_used",
        "pool_overwritten",
        "pool_expired",
        "timer_pool_capacity",
        "current_timer_pool_used",
        "dictionary_size",
        "dictionary_bytes",
        "dictionary_lost",
        "kernel_drops",
        "reports",
        "merge",
        "receive_buffer_bytes",
    ] {
        assert!(!s[key].is_null(), "status lacks {key}: {s}");
    }
    for reason in [
        "malformed",
        "missing_required",
        "timer_array_mismatch",
        "timer_tag_mismatch",
        "request_tag_mismatch",
        "bad_dictionary_index",
        "non_finite",
        "time_out_of_range",
        "source_not_allowed",
    ] {
        assert_eq!(
            s["rejected_by_reason"][reason].as_u64(),
            Some(0),
            "{reason}"
        );
    }
    assert!(s["merge"]["last_ms"].is_number() && s["merge"]["max_ms"].is_number());
    assert_eq!(s["pool_capacity"].as_u64(), Some(1_000_000));
    assert!(s["receive_buffer_bytes"].as_u64().unwrap() > 0);
}

/// `merge.nice`: the merger and the report workers run that many steps below the receivers and
/// the HTTP API (and all level with `nice = 0`); unset, sized from the cores.
#[test]
fn merge_threads_run_below_the_receivers_and_the_api() {
    // Unset, 5 up to 8 cores and 0 past (`merge.nice` in docs/configuration.md).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let automatic = if cores <= 8 { 5 } else { 0 };
    for (nice, config) in [
        (automatic, "[merge]\nthreads = 2\n"),
        (3, "[merge]\nthreads = 2\nnice = 3\n"),
        (0, "[merge]\nthreads = 2\nnice = 0\n"),
    ] {
        let d = Daemon::start(config);
        let pid = d.child.id();
        let of = |threads: &[(String, i64)], name: &str| {
            threads.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
        };
        // The threads start (and name and lower themselves) while the daemon already answers.
        d.wait_for(
            |_| {
                let t = thread_nice(pid);
                let Some(base) = of(&t, "pinbad-recv-0") else {
                    return false;
                };
                of(&t, "pinbad-merger") == Some(base + nice)
                    && of(&t, "pinbad-merge-1") == Some(base + nice)
            },
            &format!("merge threads at nice +{nice}"),
        );
        let t = thread_nice(pid);
        let http = of(&t, "pinbad-http");
        assert!(http.is_some(), "{t:?}");
        assert_eq!(http, of(&t, "pinbad-recv-0"), "{t:?}");
    }
}

#[test]
fn raw_requests_filter_and_order() {
    let d = Daemon::start("");
    let mut datagrams = Vec::new();
    for i in 0..30u32 {
        let mut r = pinbad::proto::Request {
            hostname: format!("web{}", i % 3).into_bytes(),
            server_name: b"example.com".to_vec(),
            script_name: format!("/s{}.php", i % 5).into_bytes(),
            request_time: i as f32 / 10.0,
            status: Some(if i % 2 == 0 { 200 } else { 500 }),
            dictionary: vec![
                b"country".to_vec(),
                format!("c{}", i % 2).into_bytes(),
                b"group".to_vec(),
                b"db".to_vec(),
            ],
            tag_name: vec![0],
            tag_value: vec![1],
            ..Default::default()
        };
        if i % 3 == 0 {
            r.timer_hit_count = vec![1];
            r.timer_value = vec![0.01];
            r.timer_tag_count = vec![1];
            r.timer_tag_name = vec![2];
            r.timer_tag_value = vec![3];
        }
        datagrams.push(r.encode_to_vec());
    }
    d.send(&datagrams);
    d.wait_merged(30);
    let all = d.json("/api/v1/requests?limit=1000");
    let all = all["requests"].as_array().unwrap();
    assert_eq!(all.len(), 30);
    let ids: Vec<u64> = all.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first: {ids:?}");
    assert!(
        all[0].get("timers").is_none(),
        "timers only with timers=true"
    );
    let count = |q: &str| {
        d.json(&format!("/api/v1/requests?limit=1000&{q}"))["requests"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count("hostname=web1"), 10);
    assert_eq!(count("script_name=%2Fs0.php"), 6);
    assert_eq!(count("server_name=example.com&status=500"), 15);
    assert_eq!(count("min_time=1.0"), 20);
    assert_eq!(count("min_time=1.0&max_time=1.95"), 10);
    assert_eq!(count("tag.country=c1"), 15);
    assert_eq!(count("tag.country=zz"), 0);
    assert_eq!(count("timer_tag.group=db"), 10);
    assert_eq!(count("timer_tag.group=db&hostname=web0"), 10);
    assert_eq!(
        d.json("/api/v1/requests?limit=7")["requests"]
            .as_array()
            .unwrap()
            .len(),
        7
    );
    let with_timers = d.json("/api/v1/requests?timer_tag.group=db&timers=true&limit=1");
    assert_eq!(
        with_timers["requests"][0]["timers"][0]["tags"],
        json!({"group": "db"})
    );
    assert_eq!(
        with_timers["requests"][0]["tags"]["country"]
            .as_str()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn bad_query_parameters_are_400_naming_the_parameter() {
    let d = Daemon::start("");
    for (q, name) in [
        ("limit=lots", "limit"),
        ("limit=100001", "limit"),
        ("status=ok", "status"),
        ("min_time=-1", "min_time"),
        ("timers=maybe", "timers"),
        ("bogus=1", "bogus"),
        // One value per parameter: a repeat is refused, not silently last-wins or ANDed.
        ("limit=1&limit=2", "limit"),
        ("hostname=a&hostname=b", "hostname"),
        ("tag.country=nl&tag.country=de", "tag.country"),
    ] {
        let (code, body) = d.get(&format!("/api/v1/requests?{q}"));
        assert_eq!(code, 400, "{q}: {body}");
        assert_eq!(body["error"], "bad_parameter");
        assert!(
            body["detail"].as_str().unwrap().contains(name),
            "{q}: {body}"
        );
    }
    let (code, body) = d.get("/api/v1/nothing");
    assert_eq!(code, 404);
    assert!(body["error"].is_string());
}

#[test]
fn short_history_expires_everything() {
    let d = Daemon::start("stats_history = \"1s\"");
    d.send(
        &(0..50)
            .map(|i| request(&format!("/e{i}.php")))
            .collect::<Vec<_>>(),
    );
    d.wait_merged(50);
    // All 50 were stored (some may already have aged out if the CPU is busy).
    let s = d.status();
    assert_eq!(
        s["current_pool_used"].as_u64().unwrap() + s["pool_expired"].as_u64().unwrap(),
        50,
        "{s}"
    );
    d.wait_for(
        |d| d.status()["current_pool_used"].as_u64() == Some(0),
        "pool to empty by age",
    );
    // The strings are released right after the pool lock is let go, in the same round.
    d.wait_for(
        |d| d.status()["dictionary_size"].as_u64() == Some(0),
        "every string released with the requests that used them",
    );
    let s = d.status();
    assert_eq!(s["pool_expired"].as_u64(), Some(50));
    assert_eq!(s["pool_overwritten"].as_u64(), Some(0));
    assert_eq!(
        d.json("/api/v1/requests")["requests"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn small_pool_overwrites_oldest_first() {
    let d = Daemon::start("request_pool_size = 10");
    for i in 0..25 {
        d.send(&[request(&format!("/o{i}.php"))]);
        d.wait_merged(i + 1);
    }
    let s = d.status();
    assert_eq!(s["current_pool_used"].as_u64(), Some(10));
    assert_eq!(s["pool_overwritten"].as_u64(), Some(15));
    let got = d.strings("/api/v1/requests", "requests", "script_name");
    let want: Vec<String> = (15..25).rev().map(|i| format!("/o{i}.php")).collect();
    assert_eq!(got, want);
}

#[test]
fn timer_ring_overwrites_too() {
    let d = Daemon::start("timer_pool_size = 4");
    let with_timers = |n: usize| {
        pinbad::proto::Request {
            hostname: b"h".to_vec(),
            server_name: b"s".to_vec(),
            script_name: format!("/t{n}").into_bytes(),
            timer_hit_count: vec![1; n],
            timer_value: vec![0.5; n],
            timer_tag_count: vec![0; n],
            ..Default::default()
        }
        .encode_to_vec()
    };
    d.send(&[with_timers(2)]);
    d.wait_merged(1);
    d.send(&[with_timers(2)]);
    d.wait_merged(2);
    d.send(&[with_timers(3)]);
    d.wait_merged(3);
    let s = d.status();
    assert_eq!(s["current_timer_pool_used"].as_u64(), Some(3));
    assert_eq!(s["pool_overwritten"].as_u64(), Some(2), "{s}");
    d.send(&[with_timers(9)]);
    d.wait_merged(4);
    let s = d.status();
    assert_eq!(
        s["timers_lost"].as_u64(),
        Some(9),
        "a request larger than the whole timer ring keeps no timers"
    );
    let newest = &d.json("/api/v1/requests?limit=1&timers=true")["requests"][0];
    assert_eq!(newest["script_name"], "/t9");
    assert_eq!(newest["timers"].as_array().unwrap().len(), 0);
}

#[test]
fn ipv6_and_several_readers() {
    let d = Daemon::start_with(
        "[udp]\nreaders = 2",
        &["--udp", "[::1]:0", "--udp", "127.0.0.1:0"],
        None,
    );
    // Each address once, whatever its readers (a SO_REUSEPORT socket each, one port).
    assert_eq!(d.udp.len(), 2);
    assert!(d.udp[0].is_ipv6());
    assert!(d.udp[1].is_ipv4());
    let receivers = thread_nice(d.child.id())
        .iter()
        .filter(|(name, _)| name.starts_with("pinbad-recv-"))
        .count();
    assert_eq!(receivers, 4, "two readers per address");
    send_to(d.udp[0], &[request("/v6.php")]);
    send_to(d.udp[1], &[request("/v4.php")]);
    d.wait_merged(2);
    let scripts = d.strings("/api/v1/requests", "requests", "script_name");
    assert!(
        scripts.contains(&"/v6.php".to_string()) && scripts.contains(&"/v4.php".to_string()),
        "{scripts:?}"
    );
}

/// The objects of `list` as JSON text without the fields `drop` names, sorted: the same
/// multiset whatever the order the daemon gave them in.
fn sorted_without(list: &Value, drop: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.as_object_mut().unwrap().retain(|k, _| !drop(k));
            r.to_string()
        })
        .collect();
    out.sort();
    out
}

/// Four readers, one sender: what the daemon holds is what one reader gives, exactly. The same
/// 3,000 corpus datagrams (40 scripts, 1–9 timers each) to a daemon with `readers = 1` and one
/// with `readers = 4` (the kernel spreads the one flow over four sockets, each reader interning
/// its share into the shared dictionary in whatever order): every row of a request report and of
/// a timer-tag report (counts, sums, percentiles) and every raw request the API returns are equal.
#[test]
fn four_readers_hold_exactly_what_one_reader_holds() {
    let datagrams = corpus(3000, 57);
    let config = |readers: usize| {
        format!(
            "[udp]\nreaders = {readers}\n[[report]]\nname = \"by_op\"\n\
             keys = [\"script_name\", \"timer_tag:op\"]\n"
        )
    };
    let held = |readers: usize| {
        let d = Daemon::start(&config(readers));
        let receivers = thread_nice(d.child.id())
            .iter()
            .filter(|(name, _)| name.starts_with("pinbad-recv-"))
            .count();
        assert_eq!(receivers, readers);
        d.send(&datagrams);
        d.wait_merged(datagrams.len() as u64);
        let rows = |name: &str, sort: &str| {
            let body = d.json(&format!(
                "/api/v1/reports/{name}?limit=100000&percentiles=50,99&sort={sort}"
            ));
            // Rates depend on when each daemon started; everything else must be equal.
            sorted_without(&body["rows"], |k| k.ends_with("_per_sec"))
        };
        // Ids and arrival times are each daemon's own.
        let requests = sorted_without(
            &d.json("/api/v1/requests?limit=100000&timers=true")["requests"],
            |k| matches!(k, "id" | "timestamp"),
        );
        (
            rows("report_by_script_name", "script_name"),
            rows("by_op", "req_count"),
            requests,
        )
    };
    let (scripts_1, ops_1, requests_1) = held(1);
    let (scripts_4, ops_4, requests_4) = held(4);
    assert_eq!(scripts_1.len(), 40, "{scripts_1:?}");
    assert!(ops_1.len() > 40, "{} timer-tag rows", ops_1.len());
    assert_eq!(requests_1.len(), 3000);
    assert_eq!(scripts_4, scripts_1);
    assert_eq!(ops_4, ops_1);
    assert_eq!(requests_4, requests_1);
}

#[test]
fn allowlist_drops_and_counts_other_sources() {
    let d = Daemon::start("[udp]\nallow = [\"10.0.0.0/8\"]");
    d.send(&[request("/denied.php"), request("/denied2.php")]);
    d.wait_for(
        |d| d.status()["rejected_by_reason"]["source_not_allowed"].as_u64() == Some(2),
        "source_not_allowed",
    );
    assert_eq!(d.status()["current_pool_used"].as_u64(), Some(0));
    let ok = Daemon::start("[udp]\nallow = [\"127.0.0.0/8\"]");
    ok.send(&[request("/allowed.php")]);
    ok.wait_merged(1);
    assert_eq!(ok.status()["current_pool_used"].as_u64(), Some(1));
}

#[test]
fn sigterm_drains_and_exits_zero_within_two_seconds() {
    let d = Daemon::start("stats_gathering_period = \"2s\"");
    d.send(
        &(0..20)
            .map(|i| request(&format!("/d{i}.php")))
            .collect::<Vec<_>>(),
    );
    d.wait_for(
        |d| d.status()["requests_accepted"].as_u64() == Some(20),
        "receive",
    );
    // The drain is bounded to 700 ms; 2 s is the promise, whatever else runs on the machine.
    let status = d.terminate(Duration::from_secs(2));
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn start_up_errors_exit_non_zero_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| run_pinbad(args, dir.path());
    let bad = write_file(dir.path(), "bad.toml", "[udp]\nreaderz = 2\n");
    let (code, err) = run(&["--config", bad.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("readerz"), "{err}");
    let bad = write_file(dir.path(), "bad2.toml", "request_pool_size = 0\n");
    let (code, err) = run(&["check-config", bad.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("request_pool_size"), "{err}");
    // A port already taken by a non-reuseport socket.
    let taken = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (code, err) = run(&["--udp", &addr, "--http", "127.0.0.1:0"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("cannot bind UDP") && err.contains(&addr),
        "{err}"
    );
    // A port another pinbad holds with several readers (a SO_REUSEPORT socket each): a second
    // one fails at start whatever its readers, as on an exclusive socket.
    let group = pinbad::receiver::bind_group("127.0.0.1:0".parse().unwrap(), 2, 1 << 20).unwrap();
    let addr = group[0].local_addr.to_string();
    for readers in [1, 2, 4] {
        let conf = write_file(
            dir.path(),
            "readers.toml",
            &format!("[udp]\nreaders = {readers}\n"),
        );
        let conf = conf.to_str().unwrap();
        let (code, err) = run(&["--config", conf, "--udp", &addr, "--http", "127.0.0.1:0"]);
        assert_eq!(code, Some(1), "readers = {readers}: {err}");
        assert!(
            err.contains("cannot bind UDP") && err.contains(&addr),
            "{err}"
        );
    }
    drop(group);
    // A bad flag is named as given, not as the key it replaces.
    let (code, err) = run(&["--udp", "127.0.0.1:0", "--http", "not-an-address"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("`--http`"), "{err}");
    let (code, err) = run(&["--udp", "nope", "--http", "127.0.0.1:0"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("`--udp`") && !err.contains("udp.listen"),
        "{err}"
    );
}

/// A daemon flag that a subcommand does not use is a usage error (exit 2, naming it), not
/// ignored: `check-config --config a.toml b.toml` checked b.toml alone, `import-sql --udp nope`
/// succeeded. The flags check-config does use still apply.
#[test]
fn subcommands_refuse_the_daemon_flags_they_do_not_use() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| run_pinbad(args, dir.path());
    let f = write_file(dir.path(), "c.toml", "stats_history = \"5m\"\n");
    let f = f.to_str().unwrap();
    let dump = write_file(
        dir.path(),
        "pinba.sql",
        "CREATE TABLE `report_by_script_name` (`req_count` int(11) DEFAULT NULL, \
         `script_name` varchar(128) DEFAULT NULL) ENGINE=PINBA COMMENT='report1';\n",
    );
    let dump = dump.to_str().unwrap();
    for (args, flag) in [
        (vec!["check-config", "--config", f, f], "'--config'"),
        (vec!["--config", f, "check-config", f], "'--config'"),
        (vec!["import-sql", "--udp", "nope", dump], "'--udp'"),
        (vec!["import-sql", dump, "--config", f], "'--config'"),
        (
            vec!["--state-dir", "st", "import-sql", dump],
            "'--state-dir'",
        ),
        (
            vec!["import-sql", "--stats-history", "5m", dump],
            "'--stats-history'",
        ),
        (
            vec!["--http", "127.0.0.1:0", "import-sql", dump],
            "'--http'",
        ),
    ] {
        let (code, err) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains(flag) && err.contains("Usage:"),
            "{args:?}: {err}"
        );
    }
    let (code, err) = run(&["import-sql", dump]);
    assert_eq!(code, Some(0), "{err}");
    let out = std::process::Command::new(BIN)
        .args([
            "check-config",
            f,
            "--udp",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
        ])
        .env("STATE_DIRECTORY", dir.path())
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parsed: toml::Value = toml::from_str(&text).unwrap();
    assert_eq!(parsed["http"]["listen"].as_str(), Some("127.0.0.1:0"));
    assert_eq!(parsed["udp"]["listen"][0].as_str(), Some("127.0.0.1:0"));
    // Checked as the start would check it, named by the flag.
    let (code, err) = run(&["check-config", f, "--udp", "nope"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("`--udp`"), "{err}");
}

#[test]
fn check_config_prints_the_effective_config() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_file(
        dir.path(),
        "c.toml",
        "stats_history = \"5m\"\n[udp]\nreaders = 2\n[http]\ntoken = \"s3cret-token\"\n\
         [[sink]]\nname = \"ch\"\nkind = \"clickhouse\"\nurl = \"http://127.0.0.1:1\"\n\
         password = \"s3cret-pass\"\n",
    );
    let out = std::process::Command::new(BIN)
        .args(["check-config", f.to_str().unwrap()])
        .env("STATE_DIRECTORY", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let parsed: toml::Value = toml::from_str(&text).unwrap();
    assert_eq!(parsed["stats_history"].as_str(), Some("5m"));
    assert_eq!(parsed["udp"]["readers"].as_integer(), Some(2));
    assert_eq!(
        parsed["request_pool_size"].as_integer(),
        Some(1_000_000),
        "defaults are filled in"
    );
    // Secrets are never printed, but said to be set.
    assert!(!text.contains("s3cret"), "{text}");
    assert_eq!(parsed["http"]["token"].as_str(), Some("(set, not shown)"));
    assert_eq!(
        parsed["sink"][0]["password"].as_str(),
        Some("(set, not shown)")
    );
    // The daemon's flags apply as they would at start-up, before or after the subcommand (they
    // were ignored: the saved reports of another state directory were checked).
    let other = dir.path().join("other-state");
    for args in [
        vec![
            "--state-dir",
            other.to_str().unwrap(),
            "--stats-history",
            "7m",
            "check-config",
            f.to_str().unwrap(),
        ],
        vec![
            "check-config",
            f.to_str().unwrap(),
            "--state-dir",
            other.to_str().unwrap(),
            "--stats-history",
            "7m",
        ],
    ] {
        let out = std::process::Command::new(BIN)
            .args(&args)
            .env("STATE_DIRECTORY", dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let parsed: toml::Value = toml::from_str(&String::from_utf8(out.stdout).unwrap()).unwrap();
        assert_eq!(parsed["state_dir"].as_str(), other.to_str(), "{args:?}");
        assert_eq!(parsed["stats_history"].as_str(), Some("7m"), "{args:?}");
    }
}

#[test]
fn garbage_never_kills_the_daemon() {
    let d = Daemon::start("");
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut junk = Vec::new();
    for i in 0..300 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 700) as usize;
        let mut bytes: Vec<u8> = (0..len)
            .map(|j| (seed >> (j % 56)) as u8 ^ j as u8)
            .collect();
        if i % 3 == 0 {
            // A valid prefix followed by junk.
            let mut v = request("/junk.php");
            v.extend_from_slice(&bytes);
            bytes = v;
        }
        junk.push(bytes);
    }
    d.send(&junk);
    d.wait_for(
        |d| d.status()["packets_received"].as_u64() == Some(300),
        "junk received",
    );
    d.send(&[request("/after.php")]);
    d.wait_merged(301);
    let s = d.status();
    assert_eq!(
        d.json("/api/v1/requests?limit=1")["requests"][0]["script_name"],
        "/after.php"
    );
    assert!(s["requests_rejected"].as_u64().unwrap() > 0);
}

#[test]
fn v1_framed_lz4_datagrams_are_accepted_and_counted() {
    let d = Daemon::start("");
    let payload = request("/v1.php");
    let compressed = lz4_flex::block::compress(&payload);
    // <version:4 = 1><flags:12, bit 0 = LZ4><orig_len:16>, big-endian.
    let mut v1 = vec![0x10, 0x01];
    v1.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    v1.extend_from_slice(&compressed);
    d.send(&[v1]);
    d.wait_merged(1);
    let s = d.status();
    assert_eq!(s["v1_decoded"].as_u64(), Some(1), "{s}");
    assert_eq!(
        d.json("/api/v1/requests")["requests"][0]["script_name"],
        "/v1.php"
    );
}
