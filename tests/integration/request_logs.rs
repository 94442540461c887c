//! The request logs against the real daemon: requests of three servers with known times, memory,
//! CPU and statuses come back from `GET /api/v1/request_logs/{kind}` as exactly the top of each
//! server in the step (with their tags and timers), the errors as the first of each status with
//! every one counted, per-server thresholds honoured, `total` right whatever the page, and all of
//! it still there after a clean restart, where a step written again keeps the top of both runs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::common::*;

/// One hour steps (the test waits out an hour's last two minutes, so every request falls in one
/// step), tops of 3, two errors per status; `api` has its own thresholds. One reader: requests
/// merge in the order sent, which is what "the first errors" means.
const CONFIG: &str = r#"
[udp]
readers = 1

[request_log]
step = "1h"
top = 3
max_errors = 2
min_time = "100ms"
min_memory = "1MiB"
min_cpu = "0s"
error_status = 500

[request_log.servers."api"]
min_time = "1s"
error_status = 400
"#;

const SERVERS: [&str; 3] = ["www", "api", "shop"];

/// A request sent: what the logs rank and filter by.
#[derive(Clone, Debug)]
struct Sent {
    server: &'static str,
    /// Its tag `n`, which names it in the answers.
    n: String,
    time: f32,
    memory: u32,
    cpu: f32,
    status: u32,
}

impl Sent {
    fn new(server: &'static str, i: u32, s: u32) -> Sent {
        let status = match i % 10 {
            3 => 500,
            7 => 502,
            _ if i % 15 == 4 => 404,
            _ => 200,
        };
        Sent {
            server,
            n: format!("{server}-{i}"),
            // Distinct values everywhere: no ties in a top.
            time: ((i * 37) % 30) as f32 * 0.05 + 0.01 + s as f32 * 0.001,
            memory: ((i * 11) % 30) * 200_000 + s,
            cpu: ((i * 7) % 30) as f32 * 0.01 + 0.005 + s as f32 * 0.0001,
            status,
        }
    }

    fn encode(&self) -> Vec<u8> {
        use prost::Message;
        pinbad::proto::Request {
            hostname: format!("{}-host", self.server).into_bytes(),
            server_name: self.server.as_bytes().to_vec(),
            script_name: b"/index.php".to_vec(),
            request_count: 1,
            request_time: self.time,
            memory_peak: self.memory,
            ru_utime: self.cpu,
            ru_stime: 0.0,
            status: Some(self.status),
            tag_name: vec![0],
            tag_value: vec![1],
            timer_hit_count: vec![1],
            timer_value: vec![0.002],
            timer_ru_utime: vec![0.0],
            timer_ru_stime: vec![0.0],
            timer_tag_count: vec![1],
            timer_tag_name: vec![2],
            timer_tag_value: vec![3],
            dictionary: vec![
                b"n".to_vec(),
                self.n.clone().into_bytes(),
                b"group".to_vec(),
                b"db".to_vec(),
            ],
            ..Default::default()
        }
        .encode_to_vec()
    }
}

/// The thresholds of `server` (as CONFIG sets them): min_time, error_status.
fn thresholds(server: &str) -> (f32, u32) {
    if server == "api" {
        (1.0, 400)
    } else {
        (0.1, 500)
    }
}

/// What the logs must hold per kind and server, `n`s in answer order for `sort=value` (and the
/// errors oldest first), given everything sent in one step in this order.
fn expected(sent: &[Sent]) -> BTreeMap<(&'static str, &'static str), Vec<String>> {
    let mut out = BTreeMap::new();
    for server in SERVERS {
        let mine: Vec<&Sent> = sent.iter().filter(|r| r.server == server).collect();
        let (min_time, error_status) = thresholds(server);
        let top = |key: &dyn Fn(&Sent) -> f64, keep: &dyn Fn(&Sent) -> bool| {
            let mut v: Vec<&&Sent> = mine.iter().filter(|r| keep(r)).collect();
            v.sort_by(|a, b| key(b).total_cmp(&key(a)));
            v.into_iter()
                .take(3)
                .map(|r| r.n.clone())
                .collect::<Vec<_>>()
        };
        out.insert(
            ("slow", server),
            top(&|r| r.time as f64, &|r| r.time >= min_time),
        );
        out.insert(
            ("memory", server),
            top(&|r| r.memory as f64, &|r| r.memory >= 1 << 20),
        );
        out.insert(("cpu", server), top(&|r| r.cpu as f64, &|r| r.cpu > 0.0));
        let mut errors: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for r in mine.iter().filter(|r| r.status >= error_status) {
            let kept = errors.entry(r.status).or_default();
            if kept.len() < 2 {
                kept.push(r.n.clone());
            }
        }
        out.insert(("errors", server), errors.into_values().flatten().collect());
    }
    out
}

/// Every entry of a log matching `query`, following the cursors `limit` at a time; each page's
/// `total` must be the number of all of them.
fn all_pages(d: &Daemon, kind: &str, query: &str, limit: usize) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor = String::new();
    loop {
        let (code, page) = d.get(&format!(
            "/api/v1/request_logs/{kind}?limit={limit}&{query}{cursor}"
        ));
        assert_eq!(code, 200, "{page}");
        let entries = page["entries"].as_array().unwrap();
        assert!(entries.len() <= limit, "{page}");
        out.extend(entries.iter().cloned());
        match page["next_cursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => {
                assert_eq!(page["total"].as_u64().unwrap(), out.len() as u64, "{page}");
                return out;
            }
        }
    }
}

/// The `n` tag of each entry.
fn names(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|e| e["request"]["tags"]["n"].as_str().unwrap().to_string())
        .collect()
}

/// The entries of log `kind` for `server`, followed page by page (2 at a time): the tops largest
/// first, the errors oldest first within each status, statuses in order.
fn logged(d: &Daemon, kind: &str, server: &str) -> Vec<Value> {
    if kind != "errors" {
        return all_pages(d, kind, &format!("server_name={server}&sort=value"), 2);
    }
    let mut entries = all_pages(d, kind, &format!("server_name={server}&sort=time"), 2);
    entries.reverse();
    entries.sort_by_key(|e| e["request"]["status"].as_u64().unwrap());
    entries
}

/// Whether the logs hold `want` (see [`expected`]).
fn holds(d: &Daemon, want: &BTreeMap<(&str, &str), Vec<String>>) -> bool {
    want.iter()
        .all(|(&(kind, server), n)| names(&logged(d, kind, server)) == *n)
}

/// The logs hold exactly `want`, every entry in step `step` with its tags and timer; `total`
/// counts every match; `error_counts` says `counts` per server.
fn check(
    d: &Daemon,
    want: &BTreeMap<(&str, &str), Vec<String>>,
    step: i64,
    counts: &BTreeMap<(&str, u32), u64>,
) {
    let mut total = BTreeMap::new();
    for (&(kind, server), n) in want {
        let entries = logged(d, kind, server);
        assert_eq!(&names(&entries), n, "{kind} of {server}");
        for e in &entries {
            assert_eq!(e["step"], step, "{e}");
            assert_eq!(e["group"], server, "{e}");
            assert_eq!(e["request"]["server_name"], server, "{e}");
            assert_eq!(e["request"]["timers"][0]["tags"]["group"], "db", "{e}");
        }
        *total.entry(kind).or_insert(0) += n.len() as u64;
    }
    for (kind, n) in total {
        let (code, page) = d.get(&format!("/api/v1/request_logs/{kind}?limit=1"));
        assert_eq!(code, 200, "{page}");
        assert_eq!(page["total"], n, "{kind}: {page}");
    }
    for server in SERVERS {
        let (_, page) = d.get(&format!("/api/v1/request_logs/errors?server_name={server}"));
        let got: BTreeMap<u32, u64> = page["error_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["status"].as_u64().unwrap() as u32,
                    c["count"].as_u64().unwrap(),
                )
            })
            .collect();
        let want: BTreeMap<u32, u64> = counts
            .iter()
            .filter(|((s, _), _)| *s == server)
            .map(|((_, status), n)| (*status, *n))
            .collect();
        assert_eq!(got, want, "error counts of {server}");
    }
}

/// Every error request sent, per server and status, under that server's threshold.
fn error_counts(sent: &[Sent]) -> BTreeMap<(&'static str, u32), u64> {
    let mut out = BTreeMap::new();
    for r in sent.iter().filter(|r| r.status >= thresholds(r.server).1) {
        *out.entry((r.server, r.status)).or_insert(0) += 1;
    }
    out
}

/// Waits until at least two minutes of the current hour are left (at most two minutes), so that
/// everything the test sends falls in one one-hour step; returns that step's start.
fn hour_with_room() -> i64 {
    let now = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
    };
    let deadline = Instant::now() + Duration::from_secs(150);
    while now() % 3600 > 3600 - 120 {
        assert!(Instant::now() < deadline, "the clock does not move");
        std::thread::sleep(Duration::from_millis(200));
    }
    now() - now() % 3600
}

fn start(state: &Path) -> Daemon {
    Daemon::start_with(CONFIG, &["--udp", "127.0.0.1:0"], Some(state))
}

/// Rows the logs keep, as the status says.
fn rows(d: &Daemon) -> u64 {
    d.status()["request_log"]["rows"].as_u64().unwrap_or(0)
}

#[test]
fn request_logs_keep_the_top_of_each_server_and_step() {
    let step = hour_with_room();
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path());
    let mut sent: Vec<Sent> = Vec::new();
    for i in 0..30 {
        for (s, server) in SERVERS.iter().enumerate() {
            sent.push(Sent::new(server, i, s as u32));
        }
    }
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    let want = expected(&sent);
    d.wait_for(|d| holds(d, &want), "the request logs to be written");
    check(&d, &want, step, &error_counts(&sent));
    let stored: u64 = want.values().map(|v| v.len() as u64).sum();
    d.wait_for(
        |d| rows(d) == stored,
        "request_log.rows to count what is stored",
    );
    // The thresholds per server: api keeps no request under 1 s, and its 404s; www neither.
    let api_slow = all_pages(&d, "slow", "server_name=api", 10);
    assert!(api_slow
        .iter()
        .all(|e| e["request"]["request_time"].as_f64().unwrap() >= 1.0));
    let (_, p) = d.get("/api/v1/request_logs/errors?status=4xx&limit=100");
    assert_eq!(p["total"], 2, "api's two 404s: {p}");
    assert!(names(p["entries"].as_array().unwrap())
        .iter()
        .all(|n| n.starts_with("api-")));
    // Filters: the host, a time range that holds nothing, one that holds all.
    let (_, p) = d.get("/api/v1/request_logs/cpu?hostname=shop-host&limit=1");
    assert_eq!(p["total"], 3, "{p}");
    let (_, p) = d.get("/api/v1/request_logs/cpu?to=-1h");
    assert_eq!(p["total"], 0, "{p}");
    let (_, p) = d.get(&format!("/api/v1/request_logs/cpu?from={step}&to=now"));
    assert_eq!(p["total"], 9, "{p}");
    // The answer has the fields the OpenAPI document says.
    let doc = d.json("/api/v1/openapi.json");
    let documented = |schema: &str| -> BTreeSet<String> {
        doc["components"]["schemas"][schema]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("no schema {schema}"))
            .keys()
            .cloned()
            .collect()
    };
    let fields =
        |v: &Value| -> BTreeSet<String> { v.as_object().unwrap().keys().cloned().collect() };
    let (_, p) = d.get("/api/v1/request_logs/errors?limit=1");
    assert_eq!(fields(&p), documented("RequestLogAnswer"));
    assert_eq!(fields(&p["entries"][0]), documented("RequestLogEntry"));
    assert_eq!(
        fields(&p["entries"][0]["request"]),
        documented("RawRequest")
    );
    assert_eq!(fields(&p["error_counts"][0]), documented("ErrorCount"));
    // Errors: a kind that does not exist, a bad parameter.
    assert_eq!(d.get("/api/v1/request_logs/fast").0, 404);
    let (code, e) = d.get("/api/v1/request_logs/slow?status=5x");
    assert_eq!(code, 400);
    assert!(e["detail"].as_str().unwrap().contains("`status`"), "{e}");
    assert_eq!(d.status()["request_log"]["dropped"], 0);

    // A clean restart keeps everything; a step written again keeps the top of both runs.
    assert!(d.terminate(Duration::from_secs(20)).success());
    let d = start(state.path());
    check(&d, &want, step, &error_counts(&sent));
    let late = vec![
        Sent {
            time: 9.0,
            ..Sent::new("www", 100, 0)
        },
        Sent {
            status: 500,
            ..Sent::new("www", 101, 0)
        },
    ];
    d.send(&late.iter().map(Sent::encode).collect::<Vec<_>>());
    sent.extend(late);
    let want = expected(&sent);
    assert_eq!(want[&("slow", "www")][0], "www-100");
    let www_500 = |d: &Daemon| {
        let (_, p) = d.get("/api/v1/request_logs/errors?server_name=www&status=500");
        p["error_counts"][0]["count"].as_u64().unwrap_or(0)
    };
    d.wait_for(
        |d| www_500(d) == 4 && holds(d, &want),
        "the requests sent after the restart to be written",
    );
    check(&d, &want, step, &error_counts(&sent));
    let distinct: BTreeSet<String> = names(&all_pages(&d, "slow", "sort=value", 1))
        .into_iter()
        .collect();
    assert_eq!(distinct.len(), 9, "no entry twice across pages");
}

/// The request logs view in a real browser: a log as the URL says (kind, filters, sort, page
/// size), the total of all matches, the next page by its link, another kind by its tab with the
/// filters kept, and no error in the page.
#[test]
fn the_request_logs_view_shows_what_the_url_asks() {
    let Some(b) = crate::browser::Browser::start() else {
        return;
    };
    hour_with_room();
    let state = tempfile::tempdir().unwrap();
    let d = start(state.path());
    let sent: Vec<Sent> = (0..30)
        .flat_map(|i| {
            SERVERS
                .iter()
                .enumerate()
                .map(move |(s, server)| Sent::new(server, i, s as u32))
        })
        .collect();
    d.send(&sent.iter().map(Sent::encode).collect::<Vec<_>>());
    d.wait_merged(sent.len() as u64);
    let want = expected(&sent);
    d.wait_for(|d| holds(d, &want), "the request logs to be written");
    let base = d.url("/");
    // What the page shows: the caption's total, and each row's `n` tag.
    let shown = |b: &crate::browser::Browser| -> Option<(u64, Vec<String>)> {
        let v = b.eval(
            "const c = document.getElementById('logs-caption');
             if (!c || c.dataset.total === undefined) return null;
             const rows = [...document.querySelectorAll('#logs-table tr.log-entry')];
             return [Number(c.dataset.total), rows.map((r) => (r.innerText.match(/\\bn=(\\S+)/) || [])[1])];",
            serde_json::json!([]),
        );
        serde_json::from_value(v).ok()
    };
    b.goto(&format!("{base}#/logs/errors?server_name=api&status=4xx"));
    let mut rows = b
        .wait("api's 404s", |b| shown(b).filter(|(t, _)| *t == 2))
        .1;
    rows.sort();
    assert_eq!(rows, ["api-19", "api-4"]);

    // Every slow entry, largest first, four a page: the first page, then the next by its link.
    b.goto(&format!("{base}#/logs/slow?sort=value&limit=4&range=1d"));
    let first = b
        .wait("the first page", |b| {
            shown(b).filter(|(t, r)| *t == 9 && r.len() == 4)
        })
        .1;
    let mut largest: Vec<&Sent> = want
        .iter()
        .filter(|((kind, _), _)| *kind == "slow")
        .flat_map(|(_, n)| n.iter())
        .map(|n| sent.iter().find(|r| &r.n == n).unwrap())
        .collect();
    largest.sort_by(|a, b| b.time.total_cmp(&a.time));
    let order: Vec<String> = largest.iter().map(|r| r.n.clone()).collect();
    assert_eq!(first, order[..4]);
    crate::dashboard::shot(&b, "logs");
    b.click("#logs-next");
    let second = b.wait("the second page", |b| {
        shown(b)
            .filter(|(_, r)| r.len() == 4 && r[0] != first[0])
            .map(|s| s.1)
    });
    assert_eq!(second, order[4..8]);
    assert!(b.current_url().contains("cursor="), "{}", b.current_url());

    // Another kind by its tab: the filters stay, the page starts again.
    b.goto(&format!("{base}#/logs/slow?server_name=shop"));
    b.wait("shop's slow log", |b| shown(b).filter(|(t, _)| *t == 3));
    b.click("#logs-tabs a[data-kind=cpu]");
    let cpu = b.wait("shop's CPU log", |b| {
        (b.current_url().contains("#/logs/cpu?server_name=shop"))
            .then(|| shown(b))
            .flatten()
            .filter(|(t, r)| *t == 3 && r.iter().all(|n| n.starts_with("shop-")))
    });
    assert_eq!(cpu.1.len(), 3);
    // Each column once: the kind's value is not repeated among the request's figures.
    let head = b.eval(
        "return [...document.querySelectorAll('#logs-table thead th')].map((th) => th.textContent)",
        serde_json::json!([]),
    );
    assert_eq!(
        head,
        serde_json::json!([
            "time",
            "CPU (user + system)",
            "server",
            "host",
            "script",
            "status",
            "request time",
            "memory peak",
            "tags",
            "timers"
        ])
    );
    let caught = b.eval("return window.__pinbad.errors", serde_json::json!([]));
    assert_eq!(caught, serde_json::json!([]), "errors caught in the page");
}

/// Switched off, or with a store that cannot be opened, the daemon runs without request logs:
/// the API answers 503 saying why, the status shows it, requests are merged as ever.
#[test]
fn without_a_store_the_logs_answer_503_and_the_daemon_runs() {
    let d = Daemon::start("[request_log]\nenabled = false\n");
    let (code, e) = d.get("/api/v1/request_logs/slow");
    assert_eq!(code, 503, "{e}");
    assert!(
        e["detail"]
            .as_str()
            .unwrap()
            .contains("request_log.enabled"),
        "{e}"
    );
    assert_eq!(d.status()["request_log"]["available"], false);

    // A directory in the store's place: it cannot be opened, and is no damaged file to set aside.
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir(state.path().join("request_log.sqlite")).unwrap();
    let d = Daemon::start_with("", &["--udp", "127.0.0.1:0"], Some(state.path()));
    let status = &d.status()["request_log"];
    assert_eq!(status["available"], false, "{status}");
    assert!(
        status["error"]
            .as_str()
            .unwrap()
            .contains("request_log.sqlite"),
        "{status}"
    );
    let (code, e) = d.get("/api/v1/request_logs/errors");
    assert_eq!(code, 503, "{e}");
    d.send(&[request("/a.php")]);
    d.wait_merged(1);
}

/// Issue 59, item 3: a damaged store (not a database) or an empty one is set aside as
/// `request_log.sqlite.damaged`, counted in `state_files`, and a new store keeps the logs.
#[test]
fn a_damaged_or_empty_store_is_set_aside_and_the_logs_go_on() {
    for (what, content) in [("damaged", vec![0x5a; 8192]), ("empty", Vec::new())] {
        let state = tempfile::tempdir().unwrap();
        std::fs::write(state.path().join("request_log.sqlite"), &content).unwrap();
        let d = Daemon::start_with("", &["--udp", "127.0.0.1:0"], Some(state.path()));
        let status = d.status();
        assert_eq!(status["request_log"]["available"], true, "{what}: {status}");
        assert_eq!(status["state_files"]["damaged"], 1, "{what}: {status}");
        let aside = &status["state_files"]["set_aside"][0];
        assert_eq!(aside["file"], "request_log.sqlite", "{what}: {aside}");
        let moved = aside["moved_to"].as_str().unwrap();
        assert_eq!(std::fs::read(moved).unwrap(), content, "{what}");
        // Written to the new store: a failed request is kept by the errors log.
        let mut failed = proto_request("/e.php");
        failed.status = Some(500);
        d.send(&[prost::Message::encode_to_vec(&failed)]);
        d.wait_for(|d| rows(d) >= 1, "the failed request in the new store");
        let (code, e) = d.get("/api/v1/request_logs/errors");
        assert_eq!(code, 200, "{what}: {e}");
    }
}

/// Issue 83, item 1, at a reduced scale: 60 datagrams within every decoder limit, each under its
/// own server name, 5 s and 5 s of CPU, with 200 timers of 16 tags of 1,000 bytes (3 MB each
/// rendered with its timers), after 20 ordinary slow requests of the same step. Each entry is
/// stored cut to `max_entry_bytes` (its first timers, `timer_count` saying how many it had), the
/// step keeps within its share of `max_bytes` by deleting its largest entries, so the files on
/// disk stay within the bound, every ordinary entry is still there, and the flood is counted in
/// the status, on `/metrics` and on the health table.
#[test]
fn a_flood_of_large_requests_keeps_the_bound_and_the_ordinary_entries() {
    use prost::Message;
    const MAX_BYTES: u64 = 1 << 20;
    hour_with_room();
    let state = tempfile::tempdir().unwrap();
    let config = "[request_log]\nstep = \"1h\"\nmax_bytes = \"1MiB\"\nmax_entry_bytes = \"8KiB\"\n";
    let d = Daemon::start_with(config, &["--udp", "127.0.0.1:0"], Some(state.path()));
    let ordinary: Vec<Vec<u8>> = (0..20)
        .map(|i| {
            let mut r = proto_request("/index.php");
            r.server_name = format!("ordinary-{i}").into_bytes();
            r.request_time = 2.0;
            r.encode_to_vec()
        })
        .collect();
    d.send(&ordinary);
    d.wait_for(|d| rows(d) == 20, "the ordinary requests in the slow log");

    let mut dictionary: Vec<Vec<u8>> = (0..16).map(|i| format!("t{i}").into_bytes()).collect();
    dictionary.extend((0..16).map(|i| vec![b'a' + i as u8; 1000]));
    let tags = |n: usize| -> (Vec<u32>, Vec<u32>) {
        let names = (0..n).map(|i| (i % 16) as u32).collect();
        let values = (0..n).map(|i| 16 + (i % 16) as u32).collect();
        (names, values)
    };
    let (tag_name, tag_value) = tags(16);
    let (timer_tag_name, timer_tag_value) = tags(200 * 16);
    let flood: Vec<Vec<u8>> = (0..60)
        .map(|i| {
            let datagram = pinbad::proto::Request {
                hostname: b"flood-host".to_vec(),
                server_name: format!("flood-{i}").into_bytes(),
                script_name: b"/flood.php".to_vec(),
                request_count: 1,
                request_time: 5.0,
                ru_utime: 5.0,
                tag_name: tag_name.clone(),
                tag_value: tag_value.clone(),
                timer_hit_count: vec![1; 200],
                timer_value: vec![0.01; 200],
                timer_ru_utime: vec![0.0; 200],
                timer_ru_stime: vec![0.0; 200],
                timer_tag_count: vec![16; 200],
                timer_tag_name: timer_tag_name.clone(),
                timer_tag_value: timer_tag_value.clone(),
                dictionary: dictionary.clone(),
                ..Default::default()
            }
            .encode_to_vec();
            assert!(datagram.len() < 60_000, "{}", datagram.len());
            datagram
        })
        .collect();
    d.send(&flood);
    d.wait_merged(80);
    let counted = |d: &Daemon, key: &str| d.status()["request_log"][key].as_u64().unwrap_or(0);
    d.wait_for(
        |d| counted(d, "cut") >= 60 && counted(d, "shed_bytes") > 0,
        "the flood cut and shed",
    );
    let on_disk: u64 = std::fs::read_dir(state.path())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("request_log.sqlite")
        })
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert!(on_disk <= MAX_BYTES, "{on_disk} bytes on disk");
    for i in 0..20 {
        let (_, p) = d.get(&format!(
            "/api/v1/request_logs/slow?server_name=ordinary-{i}"
        ));
        assert_eq!(p["total"], 1, "ordinary-{i}: {p}");
    }
    // What is left of the flood: cut requests, saying how many timers they had.
    let (_, p) = d.get("/api/v1/request_logs/slow?script_name=/flood.php");
    let left = p["entries"].as_array().unwrap();
    assert!(!left.is_empty() && left.len() < 60, "{p}");
    for e in left {
        let request = &e["request"];
        assert_eq!(request["timer_count"], 200, "{request}");
        let timers = request["timers"].as_array().unwrap().len();
        assert!(timers < 200, "{timers} timers stored");
        // (read back as f64, its figures print longer than they were stored)
        assert!(request.to_string().len() < 16 << 10);
    }
    let status = d.status();
    assert!(
        status["request_log"]["cut_timers"].as_u64().unwrap() >= 60 * 190,
        "{status}"
    );
    let (_, metrics) = d.get_text("/metrics");
    let shed = metrics
        .lines()
        .find_map(|l| l.strip_prefix("pinbad_request_log_shed_bytes_total "))
        .unwrap_or_else(|| panic!("no pinbad_request_log_shed_bytes_total"));
    assert!(shed.parse::<f64>().unwrap() > 0.0, "{shed}");
    let figures = d.json("/api/v1/status/figures");
    assert!(
        figures["figures"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "request_log.shed_bytes" && f["loss"] == true),
        "{figures}"
    );
}

/// Issue 83, item 3: a store that cannot be opened at start (a directory in its place, as a full
/// disk would) is tried again by itself: once it can be made, the logs are back without a
/// restart, with what was picked meanwhile.
#[test]
fn a_store_that_would_not_open_comes_back_by_itself() {
    let state = tempfile::tempdir().unwrap();
    let store = state.path().join("request_log.sqlite");
    std::fs::create_dir(&store).unwrap();
    let d = Daemon::start_with("", &["--udp", "127.0.0.1:0"], Some(state.path()));
    assert_eq!(d.status()["request_log"]["available"], false);
    let mut failed = proto_request("/held.php");
    failed.status = Some(500);
    d.send(&[prost::Message::encode_to_vec(&failed)]);
    d.wait_merged(1);
    assert_eq!(d.get("/api/v1/request_logs/errors").0, 503);
    std::fs::remove_dir(&store).unwrap();
    d.wait_for(
        |d| d.status()["request_log"]["available"] == true && rows(d) == 1,
        "the store opened again, with the request picked meanwhile",
    );
    let status = d.status();
    assert_eq!(status["request_log"]["reopened"], 1, "{status}");
    assert_eq!(status["request_log"]["dropped"], 0, "{status}");
    let (code, page) = d.get("/api/v1/request_logs/errors");
    assert_eq!(code, 200, "{page}");
    assert_eq!(page["entries"][0]["request"]["script_name"], "/held.php");
}

/// The server of [`app_100ms`]'s requests.
pub const APP: &str = "app.example.com";
/// Error requests [`app_100ms`] sends: more than `request_log.max_errors` (10 by default).
pub const APP_ERRORS: u64 = 13;

/// An app whose requests take about 100 ms (61 to 139 ms, 2 ms apart: 20 of them at least
/// 101 ms), and [`APP_ERRORS`] fast ones answering 500, all of [`APP`]: what the default
/// thresholds must fill the slow log and the slow requests with (issue 82, item 5).
pub fn app_100ms() -> Vec<Vec<u8>> {
    use prost::Message;
    let request = |i: u64, time: f32, status: u32| {
        pinbad::proto::Request {
            hostname: b"web1".to_vec(),
            server_name: APP.as_bytes().to_vec(),
            script_name: b"/page.php".to_vec(),
            request_count: 1,
            request_time: time,
            ru_utime: time / 2.0,
            memory_peak: 2 << 20,
            status: Some(status),
            tag_name: vec![0],
            tag_value: vec![1],
            dictionary: vec![b"n".to_vec(), i.to_string().into_bytes()],
            ..Default::default()
        }
        .encode_to_vec()
    };
    (0..40)
        .map(|i| request(i, 0.061 + i as f32 * 0.002, 200))
        .chain((0..APP_ERRORS).map(|i| request(100 + i, 0.05, 500)))
        .collect()
}

/// Waits until at least 20 s of the current minute are left (at most 40 s), so that what the
/// test sends next falls in one step of the default one-minute step.
pub fn minute_with_room() {
    let now = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    let deadline = Instant::now() + Duration::from_secs(45);
    while now() % 60 > 40 {
        assert!(Instant::now() < deadline, "the clock does not move");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Issue 82, item 5: with the default config, an app of ~100-ms requests fills the slow log
/// (its ten slowest of the step, every one at least 100 ms) and the slow requests the dashboard
/// asks for by default (`min_time=0.1`: the 20 at 101 ms or more); the error log says how it
/// samples: the first 10 of 13 errors kept, 13 seen, the rule in words.
#[test]
fn a_100ms_app_fills_the_slow_log_and_the_slow_requests_with_the_defaults() {
    minute_with_room();
    let d = Daemon::start("");
    let sent = app_100ms();
    d.send(&sent);
    d.wait_merged(sent.len() as u64);
    let slow = |d: &Daemon| d.json(&format!("/api/v1/request_logs/slow?server_name={APP}"));
    d.wait_for(|d| slow(d)["total"] == 10, "the slow log's ten entries");
    let p = slow(&d);
    let mut times: Vec<u64> = p["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["request"]["request_time"].as_f64().unwrap() * 1000.0).round() as u64)
        .collect();
    times.sort_unstable();
    assert_eq!(times, (30..40).map(|i| 61 + 2 * i).collect::<Vec<u64>>());
    let s = &p["sampling"];
    assert_eq!(s["threshold"], 0.1, "{s}");
    assert_eq!(
        (&s["per_step"], &s["step"]),
        (&json!(10), &json!(60)),
        "{s}"
    );
    assert_eq!(
        s["rule"],
        "the 10 slowest requests of each server_name and 60-second step that took at least 0.1 s \
         (request_log.top, request_log.min_time)"
    );
    assert_eq!((&s["kept"], &s["seen"]), (&json!(10), &Value::Null), "{s}");

    // The slow requests as the dashboard asks for them by default.
    let raw = d.json(&format!("/api/v1/requests?min_time=0.1&server_name={APP}"));
    let raw = raw["requests"].as_array().unwrap();
    assert_eq!(raw.len(), 20);
    assert!(raw
        .iter()
        .all(|r| r["request_time"].as_f64().unwrap() >= 0.1));

    // The error log: 10 kept of the 13 seen, and the rule that kept them.
    let errors = |d: &Daemon| d.json(&format!("/api/v1/request_logs/errors?server_name={APP}"));
    d.wait_for(
        |d| errors(d)["sampling"]["seen"] == APP_ERRORS,
        "the error log's counts",
    );
    let p = errors(&d);
    assert_eq!(p["total"], 10, "{p}");
    let s = &p["sampling"];
    assert_eq!(
        (&s["kept"], &s["seen"]),
        (&json!(10), &json!(APP_ERRORS)),
        "{s}"
    );
    assert_eq!(
        (&s["threshold"], &s["per_step"]),
        (&json!(500), &json!(10)),
        "{s}"
    );
    assert!(
        s["rule"]
            .as_str()
            .unwrap()
            .starts_with("the first 10 requests of each status, server_name and 60-second step"),
        "{s}"
    );
    // A filter the counts cannot follow (the script, not the grouped column): seen is unknown.
    let p = d.json(&format!(
        "/api/v1/request_logs/errors?server_name={APP}&script_name=/page.php"
    ));
    assert_eq!(
        (&p["sampling"]["kept"], &p["sampling"]["seen"]),
        (&json!(10), &Value::Null)
    );
}
