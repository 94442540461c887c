//! The live stream against the real daemon: filtered NDJSON, SSE, the client limit, and a client
//! that stops reading: it loses lines (counted per client in status, told by `{"dropped": N}`),
//! while ingestion and the other client lose nothing.

use std::io::{BufRead, BufReader};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use pinbad::corpus::{Corpus, CorpusSpec};
use serde_json::Value;

use crate::common::*;

/// A stream client on its own thread; `gate` (if given) must be opened before it reads at all.
/// Its lines come out of the receiver, parsed (blank keep-alive lines skipped).
pub fn subscribe(
    d: &Daemon,
    query: &str,
    accept: &str,
    gate: Option<Receiver<()>>,
) -> (Receiver<Value>, String) {
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(10))
        .timeout_read(Duration::from_secs(60))
        .build();
    let resp = agent
        .get(&d.url(&format!("/api/v1/stream?{query}")))
        .set("Accept", accept)
        .call()
        .unwrap();
    let content_type = resp.header("content-type").unwrap_or("").to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        if let Some(gate) = gate {
            if gate.recv().is_err() {
                return;
            }
        }
        let reader = BufReader::with_capacity(1 << 16, resp.into_reader());
        for line in reader.lines() {
            let Ok(line) = line else { return };
            let json = line.strip_prefix("data: ").unwrap_or(&line);
            if json.trim().is_empty() || line.starts_with(':') || line.starts_with("event:") {
                continue;
            }
            if tx.send(serde_json::from_str(json).unwrap()).is_err() {
                return;
            }
        }
    });
    (rx, content_type)
}

/// Takes lines from `rx` until `done` says so (30 s deadline).
pub fn collect(rx: &Receiver<Value>, got: &mut Vec<Value>, done: impl Fn(&[Value]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done(got) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(v) => got.push(v),
            Err(RecvTimeoutError::Timeout) => panic!("timed out; got {} lines", got.len()),
            Err(RecvTimeoutError::Disconnected) => panic!("stream ended; got {} lines", got.len()),
        }
    }
}

fn clients(d: &Daemon) -> Vec<Value> {
    d.status()["stream"]["clients"].as_array().unwrap().clone()
}

#[test]
fn a_client_that_stops_reading_loses_lines_counted_while_ingestion_and_others_lose_nothing() {
    let d = Daemon::start("[limits]\nmax_stream_clients = 2\nstream_buffer = \"64KiB\"\n");
    let (a, content_type) = subscribe(&d, "script_name=/a.php&timers=true", "*/*", None);
    assert_eq!(content_type, "application/x-ndjson");
    let (gate, gate_rx) = std::sync::mpsc::channel();
    let (b, _) = subscribe(&d, "timers=true", "*/*", Some(gate_rx));
    d.wait_for(|d| clients(d).len() == 2, "two stream clients");
    // A third is one too many.
    let (code, body) = d.get("/api/v1/stream");
    assert_eq!(code, 503, "{body}");
    assert_eq!(body["error"], "too_many_stream_clients");

    let mut datagrams = Corpus::new(CorpusSpec::default()).datagrams(8_000);
    for i in 0..200 {
        datagrams.insert(i * 40, request_with_db_timer("/a.php", 0.05, 0.01));
    }
    let total = datagrams.len() as u64;
    d.send(&datagrams);
    d.wait_merged(total);

    // Ingestion lost nothing while b did not read.
    let s = d.status();
    assert_eq!(s["requests_merged"], total, "{s}");
    assert_eq!(s["temp_pool_dropped"], 0, "{s}");
    // a got each of its 200 requests, or was told how many it lost.
    let mut got_a = Vec::new();
    let delivered = |got: &[Value]| {
        got.iter()
            .map(|v| v["dropped"].as_u64().unwrap_or(1))
            .sum::<u64>()
    };
    collect(&a, &mut got_a, |got| delivered(got) >= 200);
    assert_eq!(delivered(&got_a), 200);
    for v in got_a.iter().filter(|v| v.get("dropped").is_none()) {
        assert_eq!(v["script_name"], "/a.php");
        assert_eq!(v["timers"][0]["tags"]["group"], "db", "{v}");
        assert_eq!(v["timers"][0]["hit_count"], 2);
    }
    // b's pump has seen every round: each request was sent to it or counted lost, and lost some.
    let b_status = |d: &Daemon| {
        clients(d)
            .into_iter()
            .find(|c| c["query"] == "timers=true")
            .expect("b in status")
    };
    d.wait_for(
        |d| {
            let c = b_status(d);
            c["sent"].as_u64().unwrap() + c["dropped"].as_u64().unwrap() == total
        },
        "b's every request sent or counted",
    );
    let lost = b_status(&d)["dropped"].as_u64().unwrap();
    assert!(lost > 0, "b never read, yet lost nothing: {}", b_status(&d));
    // What waits for b is within its buffer's bound (a whole round of lines with timers went in
    // whenever the buffer was empty, megabytes against 64 KiB).
    let held = b_status(&d)["current_buffered_bytes"].as_u64().unwrap();
    assert!(held <= 64 << 10, "{held} bytes held for b");
    assert!(d.status()["stream"]["dropped"].as_u64().unwrap() >= lost);

    // b reads again: everything sent arrives, and after new traffic it is told what it lost.
    gate.send(()).unwrap();
    let mut got_b = Vec::new();
    let mut late = 0u64;
    let lines = |got: &[Value]| got.iter().filter(|v| v.get("dropped").is_none()).count() as u64;
    let told = |got: &[Value]| {
        got.iter()
            .filter_map(|v| v["dropped"].as_u64())
            .sum::<u64>()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        d.send(&[request_with_db_timer("/late.php", 0.05, 0.01)]);
        late += 1;
        d.wait_for(
            |d| {
                let c = b_status(d);
                c["sent"].as_u64().unwrap() + c["dropped"].as_u64().unwrap() == total + late
            },
            "the late request sent or counted",
        );
        let c = b_status(&d);
        let sent = c["sent"].as_u64().unwrap();
        collect(&b, &mut got_b, |got| lines(got) >= sent);
        assert_eq!(lines(&got_b), sent);
        // Every loss is told exactly once, with the first lines that get through after it.
        if told(&got_b) == c["dropped"].as_u64().unwrap() {
            break;
        }
        assert!(Instant::now() < deadline, "not told of every loss: {c}");
    }
    assert!(told(&got_b) >= lost);
    assert_eq!(got_b.last().unwrap()["script_name"], "/late.php");
}

#[test]
fn server_sent_events_with_filters_and_sampling() {
    let d = Daemon::start("");
    let (code, body) = d.get("/api/v1/stream?sample=2");
    assert_eq!(code, 400);
    assert!(
        body["detail"].as_str().unwrap().contains("sample"),
        "{body}"
    );
    let (code, body) = d.get("/api/v1/stream?limit=5");
    assert_eq!(code, 400, "the stream has no limit: {body}");
    // Not one of HTTP's classes: refused, as by /api/v1/requests, not a stream that never
    // sends a line.
    let (code, body) = d.get("/api/v1/stream?status=6xx");
    assert_eq!(code, 400, "{body}");
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.contains("`status`") && detail.contains("`6xx`"),
        "{body}"
    );

    let (sse, content_type) = subscribe(&d, "script_name=/b.php", "text/event-stream", None);
    assert_eq!(content_type, "text/event-stream");
    let (half, _) = subscribe(&d, "sample=0.5", "application/x-ndjson", None);
    d.wait_for(|d| clients(d).len() == 2, "two stream clients");
    let mut datagrams: Vec<Vec<u8>> = (0..1000)
        .map(|_| request_with_db_timer("/a.php", 0.05, 0.01))
        .collect();
    datagrams.extend((0..10).map(|_| request_with_db_timer("/b.php", 0.05, 0.01)));
    d.send(&datagrams);
    d.wait_merged(1010);
    let mut got = Vec::new();
    collect(&sse, &mut got, |g| g.len() >= 10);
    assert!(got.iter().all(|v| v["script_name"] == "/b.php"));
    assert!(got.iter().all(|v| v.get("timers").is_none()));
    // About half the requests, chosen by a hash of their ids: only ids in the sample arrive,
    // and each that the client was sent.
    let half_status = |d: &Daemon| {
        clients(d)
            .into_iter()
            .find(|c| c["query"] == "sample=0.5")
            .unwrap()
    };
    // Pool ids count from 0.
    let in_sample = (0..1010u64)
        .filter(|id| pinbad::stream::sampled(*id, 0.5))
        .count() as u64;
    assert!((300..=700).contains(&in_sample), "{in_sample} of 1010");
    d.wait_for(
        |d| {
            let c = half_status(d);
            c["sent"].as_u64().unwrap() + c["dropped"].as_u64().unwrap() == in_sample
        },
        "every sampled request sent or counted",
    );
    let sent = half_status(&d)["sent"].as_u64().unwrap();
    let mut got = Vec::new();
    collect(&half, &mut got, |g| g.len() as u64 >= sent);
    assert_eq!(got.len() as u64, sent);
    for v in &got {
        assert!(
            pinbad::stream::sampled(v["id"].as_u64().unwrap(), 0.5),
            "{v}"
        );
    }
}

/// With `http.idle_timeout` shorter than the stream's usual keep-alive interval (10 s), a quiet
/// stream is kept alive at half the idle timeout: it outlives several idle timeouts without
/// traffic, and a request sent after them still arrives.
#[test]
fn a_quiet_stream_outlives_a_short_idle_timeout() {
    let d = Daemon::start("[http]\nidle_timeout = \"300ms\"\n");
    let resp = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(10))
        .timeout_read(Duration::from_secs(60))
        .build()
        .get(&d.url("/api/v1/stream?script_name=/late.php"))
        .call()
        .unwrap();
    // Each line: None for a keep-alive, the request otherwise.
    let (tx, rx) = std::sync::mpsc::channel::<Option<Value>>();
    std::thread::spawn(move || {
        for line in BufReader::new(resp.into_reader()).lines() {
            let Ok(line) = line else { return };
            let parsed = (!line.trim().is_empty()).then(|| serde_json::from_str(&line).unwrap());
            if tx.send(parsed).is_err() {
                return;
            }
        }
    });
    let next = || match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(line) => line,
        Err(e) => panic!("the quiet stream ended or stalled: {e:?}"),
    };
    // Four keep-alives: more than two idle timeouts of silence otherwise.
    for _ in 0..4 {
        assert_eq!(next(), None, "nothing was sent yet");
    }
    d.send(&[request_with_db_timer("/late.php", 0.05, 0.01)]);
    let v = loop {
        if let Some(v) = next() {
            break v;
        }
    };
    assert_eq!(v["script_name"], "/late.php", "{v}");
}
