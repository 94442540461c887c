//! The HTTP server's bounds against the real daemon: shutdown whatever the clients do, the
//! connection caps (a slowloris beside `/healthz` and ingest, the health connections), header
//! and idle timeouts, the query bound (503), the bearer token (reads, open paths, no token in a
//! log line), JSON 405s, and a large raw query that neither stalls ingestion nor the status
//! endpoint.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pinbad::corpus::{Corpus, CorpusSpec};
use serde_json::{json, Value};

use crate::common::*;

/// `n` PHP-like datagrams (3–15 timers each), so a raw query with timers is large.
fn corpus(n: usize) -> Vec<Vec<u8>> {
    Corpus::new(CorpusSpec::default()).datagrams(n)
}

/// A connection that sends `head` and then nothing, with a tiny receive buffer so that the
/// server's writes to it block as soon as possible.
fn stalled(d: &Daemon, head: &str) -> TcpStream {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    sock.connect(&d.http.into()).unwrap();
    let mut s: TcpStream = sock.into();
    s.write_all(head.as_bytes()).unwrap();
    s
}

/// Waits (with a deadline) until the server closes `s`: a read returns 0 or an error.
/// Returns how long that took.
fn closed_within(mut s: TcpStream, deadline: Duration) -> Duration {
    let t = Instant::now();
    s.set_read_timeout(Some(deadline)).unwrap();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return t.elapsed(),
            Ok(_) => continue, // a response (408/400) before the close is fine
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                panic!("connection still open after {deadline:?}")
            }
            Err(_) => return t.elapsed(),
        }
    }
}

#[test]
fn sigterm_exits_within_two_seconds_whatever_the_clients_do() {
    let d = Daemon::start("");
    d.send(&corpus(5000));
    d.wait_merged(5000);
    // A half-sent request, a half-sent body, a big response nobody reads, and idle connections.
    let _half = stalled(&d, "GET /healthz HTTP/1.1\r\nHost: x\r\n");
    let _body = stalled(
        &d,
        "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"na",
    );
    let _reader = stalled(
        &d,
        "GET /api/v1/requests?limit=100000&timers=true HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    // Idle connections, within the one client's bound (`http.max_connections_per_client`).
    let _idle: Vec<TcpStream> = (0..50)
        .map(|_| TcpStream::connect(d.http).unwrap())
        .collect();
    d.wait_for(
        |d| d.get("/healthz").0 == 200,
        "healthz beside the stalled clients",
    );
    let started = Instant::now();
    let status = d.terminate(Duration::from_secs(2));
    assert!(status.success(), "{status:?}");
    eprintln!("exited {:?} after SIGTERM", started.elapsed());
}

/// Whether the server closed `s` (a read returns 0 or an error) within `within`, reading
/// whatever answer comes before the close.
fn closes_within(s: &mut TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        s.set_read_timeout(Some(left)).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                return false
            }
            Err(_) => return true,
        }
    }
}

/// At `http.max_connections`, a new connection takes the place of the one that has waited
/// longest for a request (closed, counted); when every one is busy with a request, the new one
/// is closed at once (counted).
#[test]
fn connections_beyond_the_cap_make_room_or_are_refused_and_counted() {
    let d = Daemon::start(
        "[http]\nmax_connections = 4\nhealth_connections = 0\nheader_timeout = \"30s\"\n\
         idle_timeout = \"1h\"",
    );
    // A slow request: half a header. New connections push it out (after the harness's own idle
    // keep-alive connection, which waited longer).
    let mut slow = stalled(&d, "GET /healthz HTTP/1.1\r\nHost: x\r\n");
    let mut newer = Vec::new();
    let pushed_out = (0..20).any(|_| {
        newer.push(stalled(&d, ""));
        closes_within(&mut slow, Duration::from_millis(300))
    });
    assert!(pushed_out, "the slow connection made room for newer ones");
    drop(newer);
    // Counts read on a new connection each time: the harness's keep-alive one may be the one
    // pushed out.
    let http = |d: &Daemon| http_status(d)["http"].clone();
    assert!(http(&d)["connections_evicted"].as_u64().unwrap() >= 1);
    // Four connections busy with a request (bodies that never come): a fifth is closed at once,
    // without an answer (once all four are known busy).
    let head = "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{";
    let mut busy: Vec<TcpStream> = (0..4).map(|_| stalled(&d, head)).collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    let refused = loop {
        assert!(
            Instant::now() < deadline,
            "no connection refused within 30 s"
        );
        // One accepted before its head was read (waiting, not yet busy) may have been chosen to
        // make room for a connection the server had not seen closed yet: put another in its place.
        for b in busy.iter_mut() {
            if closes_within(b, Duration::from_millis(1)) {
                *b = stalled(&d, head);
            }
        }
        let mut s = TcpStream::connect(d.http).unwrap();
        if closes_within(&mut s, Duration::from_millis(300)) {
            break true;
        }
    };
    assert!(refused);
    drop(busy);
    // Refused as the client's (its bound is the server's here).
    d.wait_for(
        |d| {
            let http = http(d);
            http["connections_refused"].as_u64().unwrap()
                + http["connections_refused_per_client"].as_u64().unwrap()
                >= 1
        },
        "the refusal to be counted",
    );
}

/// `/api/v1/status` read on a connection of its own, retried (within 30 s) while the server is
/// still closing the connections the test dropped and has no room for it yet.
fn http_status(d: &Daemon) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(5))
            .build();
        match agent.get(&d.url("/api/v1/status")).call() {
            Ok(r) => return serde_json::from_str(&r.into_string().unwrap()).unwrap(),
            Err(e) => assert!(Instant::now() < deadline, "no status within 30 s: {e}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A connection that sends `GET path` and reads the whole answer (`Connection: close`), all
/// within `within`: the status, or `None` when it did not come in time.
fn get_within(addr: SocketAddr, path: &str, within: Duration) -> Option<u16> {
    let deadline = Instant::now() + within;
    let mut s = TcpStream::connect_timeout(&addr, within).ok()?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .ok()?;
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        s.set_read_timeout(Some(left)).ok()?;
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(_) => return None,
        }
    }
    let text = String::from_utf8_lossy(&answer);
    text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

/// A slowloris from the poller's own address: `CONNECTIONS` connections each sending one header
/// line a second and reconnecting when closed, for `ATTACK`. Meanwhile `/healthz` is polled
/// every 50 ms on a new connection and must answer within 100 ms (99 % of the polls at least),
/// and datagrams sent during it are all merged.
#[test]
fn a_slowloris_keeps_neither_healthz_nor_ingest_out() {
    const CONNECTIONS: usize = 600;
    const ATTACK: Duration = Duration::from_secs(12);
    const POLL_EVERY: Duration = Duration::from_millis(50);
    const ANSWER_WITHIN: Duration = Duration::from_millis(100);
    let d = Daemon::start("");
    let addr = d.http;
    let attacking = AtomicBool::new(true);
    let datagrams = corpus(20_000);
    let (polls, attack) = std::thread::scope(|s| {
        let attacker = s.spawn(|| {
            // Each slot: a connection that has sent a request line and one header line per
            // second, replaced by a new one once the server closes or answers it.
            let open = || -> Option<TcpStream> {
                let mut c = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok()?;
                c.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").ok()?;
                c.set_nonblocking(true).ok()?;
                Some(c)
            };
            let mut slots: Vec<Option<TcpStream>> = (0..CONNECTIONS).map(|_| open()).collect();
            let (mut opened, mut line) = (CONNECTIONS, 0u64);
            while attacking.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_secs(1));
                line += 1;
                for slot in &mut slots {
                    let alive = slot.as_mut().is_some_and(|c| {
                        let mut b = [0u8; 512];
                        let closed = match c.read(&mut b) {
                            Ok(_) => true, // closed, or answered (a 408): done with
                            Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
                        };
                        !closed
                            && c.write_all(format!("X-Slow-{line}: 1\r\n").as_bytes())
                                .is_ok()
                    });
                    if !alive {
                        *slot = open();
                        opened += 1;
                    }
                }
            }
            opened
        });
        let poller = s.spawn(|| {
            let started = Instant::now();
            let mut polls = Vec::new();
            // The attack's connections are all opened first.
            std::thread::sleep(Duration::from_secs(1));
            while started.elapsed() + POLL_EVERY < ATTACK {
                let t = Instant::now();
                let status = get_within(addr, "/healthz", ANSWER_WITHIN);
                polls.push((status, t.elapsed()));
                std::thread::sleep(POLL_EVERY.saturating_sub(t.elapsed()));
            }
            attacking.store(false, Ordering::Relaxed);
            polls
        });
        // Ingest during the attack: 20,000 datagrams over ~10 s.
        for chunk in datagrams.chunks(200) {
            send_to(d.udp[0], chunk);
            std::thread::sleep(Duration::from_millis(100));
        }
        (poller.join().unwrap(), attacker.join().unwrap())
    });
    let answered = polls
        .iter()
        .filter(|(status, took)| *status == Some(200) && *took <= ANSWER_WITHIN)
        .count();
    let failed: Vec<_> = polls
        .iter()
        .filter(|(status, took)| *status != Some(200) || *took > ANSWER_WITHIN)
        .collect();
    let mut took: Vec<Duration> = polls.iter().map(|p| p.1).collect();
    took.sort();
    let status = d.status();
    eprintln!(
        "slowloris: {CONNECTIONS} connections, {attack} opened; /healthz answered {answered} of {} \
         polls within {ANSWER_WITHIN:?} (median {:?}, max {:?}); evicted {}, refused {} + {} (per client)",
        polls.len(),
        took[took.len() / 2],
        took[took.len() - 1],
        status["http"]["connections_evicted"],
        status["http"]["connections_refused"],
        status["http"]["connections_refused_per_client"],
    );
    assert!(polls.len() >= 150, "{} polls", polls.len());
    assert!(
        answered * 100 >= polls.len() * 99,
        "/healthz answered {answered} of {} polls within {ANSWER_WITHIN:?}; failed: {failed:?}",
        polls.len()
    );
    assert!(
        attack > CONNECTIONS,
        "the server closed slow connections to make room"
    );
    // Ingest lost nothing.
    d.wait_merged(20_000);
    let status = d.status();
    assert_eq!(status["requests_accepted"], 20_000, "{status}");
    assert_eq!(status["temp_pool_dropped"], 0);
    assert_eq!(status["kernel_drops"], 0);
}

/// When every connection a client may hold is busy with a request, `/healthz` and `/metrics`
/// still answer, on the connections kept for them, which answer nothing else.
#[test]
fn health_connections_answer_when_every_connection_is_busy() {
    let d = Daemon::start(
        "[http]\nmax_connections_per_client = 4\nhealth_connections = 2\n\
         header_timeout = \"30s\"\nidle_timeout = \"1h\"",
    );
    // Four requests whose bodies never come: the client's four connections, busy.
    let head = "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{";
    let _busy: Vec<TcpStream> = (0..4).map(|_| stalled(&d, head)).collect();
    // Once all four are known busy, another request lands on a health connection: a 503.
    let deadline = Instant::now() + Duration::from_secs(30);
    while get_within(d.http, "/api/v1/info", Duration::from_secs(5)) != Some(503) {
        assert!(
            Instant::now() < deadline,
            "no health connection within 30 s"
        );
    }
    for path in ["/healthz", "/metrics"] {
        assert_eq!(
            get_within(d.http, path, Duration::from_secs(5)),
            Some(200),
            "{path}"
        );
    }
    let body = {
        let mut s = TcpStream::connect(d.http).unwrap();
        s.write_all(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut text = String::new();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let _ = s.read_to_string(&mut text);
        text
    };
    assert!(body.starts_with("HTTP/1.1 503"), "{body}");
    assert!(body.contains("/healthz and /metrics"), "{body}");
    assert!(
        body.to_ascii_lowercase().contains("connection: close"),
        "{body}"
    );
}

#[test]
fn slow_headers_and_stalled_bodies_are_cut() {
    let d = Daemon::start("[http]\nheader_timeout = \"300ms\"\nidle_timeout = \"500ms\"");
    let t = closed_within(
        stalled(&d, "GET /healthz HTTP/1.1\r\nHost: x\r\n"),
        Duration::from_secs(20),
    );
    eprintln!("half-sent header closed after {t:?}");
    let t = closed_within(stalled(&d, ""), Duration::from_secs(20));
    eprintln!("silent connection closed after {t:?}");
    let t = closed_within(
        stalled(
            &d,
            "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"na",
        ),
        Duration::from_secs(20),
    );
    eprintln!("half-sent body closed after {t:?}");
    assert_eq!(d.get("/healthz").0, 200);
}

/// A body that has not all come within `http.header_timeout` gets a JSON 408: the idle timeout
/// (an hour here) is reset by every byte, so a client trickling a body held its connection.
#[test]
fn a_body_that_does_not_all_come_in_time_gets_a_json_408() {
    let d = Daemon::start("[http]\nheader_timeout = \"300ms\"\nidle_timeout = \"1h\"");
    for head in [
        "PATCH /api/v1/instruments HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n[{\"na",
        "POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"na",
    ] {
        let mut s = stalled(&d, head);
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&answer).contains("header_timeout") {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
                Err(e) => panic!("no answer within 30 s ({e}): {answer:?}"),
            }
        }
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("\"body_timeout\""), "{answer}");
    }
    assert_eq!(d.get("/healthz").0, 200);
}

#[test]
fn queries_beyond_the_bound_get_503_with_retry_after() {
    let d = Daemon::start("[http]\nmax_concurrent_queries = 1");
    d.send(&corpus(20_000));
    d.wait_merged(20_000);
    // Six clients querying at once against one slot: some query finds it taken.
    let path = "/api/v1/reports/report_by_hostname_and_script?limit=100&percentiles=50,95,99";
    let refused = std::sync::Mutex::new(None);
    let deadline = Instant::now() + Duration::from_secs(120);
    std::thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| {
                while refused.lock().unwrap().is_none() && Instant::now() < deadline {
                    match ureq::get(&d.url(path)).call() {
                        Ok(r) => assert_eq!(r.status(), 200),
                        Err(ureq::Error::Status(503, resp)) => {
                            *refused.lock().unwrap() = Some(resp);
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
            });
        }
    });
    let resp = refused
        .into_inner()
        .unwrap()
        .expect("a 503 within 120 s of six clients querying through one slot");
    assert_eq!(resp.header("Retry-After"), Some("1"));
    let body: Value = serde_json::from_str(&resp.into_string().unwrap()).unwrap();
    assert_eq!(body["error"], "busy");
    assert!(d.status()["http"]["queries_refused"].as_u64() >= Some(1));
    // Light endpoints are not bounded.
    assert_eq!(d.get("/healthz").0, 200);
}

#[test]
fn a_raw_answer_its_client_does_not_read_holds_no_query_slot() {
    let d = Daemon::start("[http]\nmax_concurrent_queries = 1\nidle_timeout = \"1h\"");
    // ~25 MB of JSON: far more than socket buffers and the scan's chunk queue hold.
    d.send(&corpus(20_000));
    d.wait_merged(20_000);
    let mut reader = stalled(
        &d,
        "GET /api/v1/requests?limit=100000&timers=true HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    let mut head = [0u8; 12];
    reader.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // Once the scan is stuck behind its client (the connection open for an hour; while it still
    // produces chunks it takes the slot now and then), every heavy request gets the one slot:
    // report queries, scrapes, other scans. Before, the stuck scan held it until the client
    // went away.
    let paths = [
        "/api/v1/reports/report_by_script_name",
        "/api/v1/requests?limit=10",
        "/metrics",
    ];
    d.wait_for(
        |d| paths.iter().all(|p| d.get_text(p).0 == 200),
        "heavy requests to be answered beside a stalled raw answer",
    );
    // The stalled answer is whole once read: the scan went on where it stopped.
    reader
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut rest = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let body_at = loop {
        let n = reader.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the headers ended");
        rest.extend_from_slice(&buf[..n]);
        if let Some(at) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let mut body = Vec::new();
    let mut chunked = rest.split_off(body_at);
    // The body is chunked (`Transfer-Encoding: chunked`): read to the last, empty chunk.
    while !chunked.ends_with(b"\r\n0\r\n\r\n") {
        let n = reader.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the last chunk");
        chunked.extend_from_slice(&buf[..n]);
    }
    let mut at = 0;
    loop {
        let line_end = at + chunked[at..].windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(std::str::from_utf8(&chunked[at..line_end]).unwrap(), 16)
            .unwrap();
        if size == 0 {
            break;
        }
        body.extend_from_slice(&chunked[line_end + 2..line_end + 2 + size]);
        at = line_end + 2 + size + 2;
    }
    let answer: Value = serde_json::from_slice(&body).unwrap();
    let ids: Vec<u64> = answer["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids.len(), 20_000);
    assert!(
        ids.windows(2).all(|w| w[0] == w[1] + 1),
        "every id, newest first"
    );
}

#[test]
fn a_large_raw_query_streams_without_dropping_requests() {
    let d = Daemon::start("");
    d.send(&corpus(20_000));
    d.wait_merged(20_000);
    let t = Instant::now();
    let body = d.json("/api/v1/requests?limit=100000&timers=true");
    let list = body["requests"].as_array().unwrap();
    assert_eq!(list.len(), 20_000);
    let ids: Vec<u64> = list.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[0] == w[1] + 1),
        "every id, newest first"
    );
    assert!(list
        .iter()
        .all(|r| r["timers"].as_array().is_some_and(|t| !t.is_empty())));
    eprintln!("20,000 requests with timers streamed in {:?}", t.elapsed());
    // Traffic during scans: nothing is dropped, every request is merged.
    let more = corpus(10_000);
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..3 {
                let n = d.json("/api/v1/requests?limit=100000&timers=true")["requests"]
                    .as_array()
                    .unwrap()
                    .len();
                assert!(n >= 20_000, "a scan during traffic returned {n} requests");
            }
        });
        d.send(&more);
    });
    d.wait_merged(30_000);
    assert_eq!(d.status()["temp_pool_dropped"], 0);
}

#[test]
fn changes_need_the_token_and_reads_stay_open_when_told() {
    let d = Daemon::start("[http]\ntoken = \"s3cret\"\ntoken_reads = false");
    let def = json!({"name": "by_host", "keys": ["hostname"]});
    let post = |auth: Option<&str>| {
        let mut r = ureq::post(&d.url("/api/v1/reports")).set("Content-Type", "application/json");
        if let Some(a) = auth {
            r = r.set("Authorization", a);
        }
        match r.send_string(&def.to_string()) {
            Ok(r) => (r.status(), None),
            Err(ureq::Error::Status(c, r)) => (c, r.header("WWW-Authenticate").map(String::from)),
            Err(e) => panic!("{e}"),
        }
    };
    let (code, challenge) = post(None);
    assert_eq!(code, 401);
    assert!(challenge.unwrap().starts_with("Bearer"));
    assert_eq!(post(Some("Bearer wrong")).0, 401);
    assert_eq!(post(Some("Bearer s3cret")).0, 201);
    let (code, _) = d.delete("/api/v1/reports/by_host");
    assert_eq!(code, 401, "DELETE needs it too");
    assert_eq!(d.get("/api/v1/reports/by_host").0, 200, "reads stay open");
    assert!(d.status()["http"]["unauthorized"].as_u64() >= Some(2));

    let dir = tempfile::tempdir().unwrap();
    let file = write_file(dir.path(), "token", "  from-file\n");
    let d = Daemon::start(&format!(
        "[http]\ntoken_file = {:?}\ntoken_reads = true",
        file.to_str().unwrap()
    ));
    assert_eq!(d.get("/healthz").0, 200, "liveness never needs it");
    let (code, body) = d.get("/api/v1/status");
    assert_eq!(code, 401, "{body}");
    assert_eq!(body["error"], "unauthorized");
    let r = ureq::get(&d.url("/api/v1/status"))
        .set("Authorization", "Bearer from-file")
        .call()
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// GET `path` with an `Authorization` header (if any): the status.
fn get_status(d: &Daemon, path: &str, auth: Option<&str>) -> u16 {
    let mut r = ureq::get(&d.url(path));
    if let Some(a) = auth {
        r = r.set("Authorization", a);
    }
    match r.call() {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(e) => panic!("GET {path}: {e}"),
    }
}

/// With a token set, every data read needs it (the scheme in any case); `/healthz`, `/metrics`
/// and the dashboard's files stay open, `/metrics` and the files each unless its switch says
/// otherwise (`healthz_needs_token` is the unit tests': the harness waits on `/healthz`).
#[test]
fn with_a_token_reads_need_it_and_the_open_paths_are_switches() {
    let d = Daemon::start("[http]\ntoken = \"s3cret\"");
    for path in [
        "/api/v1/requests",
        "/api/v1/reports",
        "/api/v1/reports/info",
        "/api/v1/reports/info/history",
        "/api/v1/stream",
        "/api/v1/status",
        "/api/v1/info",
        "/api/v1/openapi.json",
    ] {
        assert_eq!(get_status(&d, path, None), 401, "{path}");
        assert_eq!(get_status(&d, path, Some("Bearer wrong")), 401, "{path}");
    }
    for auth in ["Bearer s3cret", "bearer s3cret", "BEARER  s3cret"] {
        assert_eq!(
            get_status(&d, "/api/v1/reports/info", Some(auth)),
            200,
            "{auth}"
        );
    }
    for path in ["/healthz", "/metrics", "/", "/dashboard/app.js"] {
        assert_eq!(get_status(&d, path, None), 200, "{path}");
    }
    let d = Daemon::start(
        "[http]\ntoken = \"s3cret\"\nmetrics_needs_token = true\ndashboard_needs_token = true",
    );
    for path in ["/metrics", "/", "/dashboard/app.js"] {
        assert_eq!(get_status(&d, path, None), 401, "{path}");
        assert_eq!(get_status(&d, path, Some("Bearer s3cret")), 200, "{path}");
    }
    assert_eq!(get_status(&d, "/healthz", None), 200);
}

/// At every log level, no log line holds the token, nor a secret-named parameter's value: 401s
/// with the token (or a guess) in the query, answers whose detail quotes a parameter's value.
#[test]
fn no_token_reaches_a_log_line() {
    let d = Daemon::start_logged("[http]\ntoken = \"s3cret-Tok\"", "trace");
    let auth = Some("Bearer s3cret-Tok");
    for (path, auth, code) in [
        ("/api/v1/info?token=s3cret-Tok", None, 401),
        ("/api/v1/reports?access_token=guess-Tok", None, 401),
        (
            "/api/v1/requests?token=s3cret-Tok",
            Some("bearer wrong-Tok"),
            401,
        ),
        ("/api/v1/reports/s3cret-Tok", auth, 404),
        ("/api/v1/reports/info?limit=s3cret-Tok", auth, 400),
        ("/api/v1/stream?token=s3cret-Tok", auth, 400),
    ] {
        assert_eq!(get_status(&d, path, auth), code, "{path}");
    }
    d.wait_for(
        |d| {
            d.logs()
                .iter()
                .filter(|l| l.contains("Client error"))
                .count()
                >= 6
        },
        "six client errors logged",
    );
    let logs = d.logs();
    for needle in ["s3cret", "guess-Tok", "wrong-Tok"] {
        let leaks: Vec<_> = logs.iter().filter(|l| l.contains(needle)).collect();
        assert!(leaks.is_empty(), "{needle} logged: {leaks:#?}");
    }
    assert!(
        logs.iter().any(|l| l.contains("redacted")),
        "the redacted parameters are still named"
    );
}

#[test]
fn wrong_methods_get_a_json_405_with_allow() {
    let d = Daemon::start("");
    let r = ureq::put(&d.url("/api/v1/status")).call();
    let Err(ureq::Error::Status(405, resp)) = r else {
        panic!("expected 405, got {r:?}")
    };
    let allow = resp.header("Allow").unwrap_or_default().to_string();
    assert!(allow.contains("GET"), "Allow: {allow}");
    let body: Value = serde_json::from_str(&resp.into_string().unwrap()).unwrap();
    assert_eq!(body["error"], "method_not_allowed");
}

/// Every endpoint that reads a body holds it to `limits.max_body_bytes`: above it a JSON 413
/// naming the limit; below it the body is read and judged on its content.
#[test]
fn bodies_above_the_limit_get_a_json_413_on_every_endpoint() {
    let d = Daemon::start("[limits]\nmax_body_bytes = 1024\n");
    let big = serde_json::json!({ "name": "x".repeat(2000) });
    for (method, path) in [
        ("POST", "/api/v1/reports"),
        ("PATCH", "/api/v1/instruments"),
        ("PATCH", "/api/v1/sinks/none"),
    ] {
        let (code, body) = match method {
            "POST" => d.post(path, &big),
            _ => d.patch(path, &big),
        };
        assert_eq!(code, 413, "{method} {path}: {body}");
        assert_eq!(
            body["error"], "payload_too_large",
            "{method} {path}: {body}"
        );
        assert!(
            body["detail"]
                .as_str()
                .unwrap()
                .contains("limits.max_body_bytes"),
            "{method} {path}: {body}"
        );
    }
    // Within the limit: read, then refused for what it says.
    let (code, body) = d.patch(
        "/api/v1/sinks/none",
        &serde_json::json!({ "enabled": true }),
    );
    assert_eq!(code, 404, "{body}");
    let (code, body) = d.patch(
        "/api/v1/instruments",
        &serde_json::json!({ "name": "nothing" }),
    );
    assert_eq!(code, 400, "{body}");
}

/// Self-instrumentation: every stage and report is listed with counts that follow the traffic,
/// with the clock's measured cost; PATCH switches timing and counting off and on, by name or
/// prefix; mistakes get a 4xx that says what is wrong.
#[test]
fn instruments_count_each_stage_and_switch_at_run_time() {
    let d = Daemon::start("");
    d.send(&corpus(300));
    d.wait_merged(300);
    let _ = d.json("/api/v1/info");
    let body = d.json("/api/v1/instruments");
    assert!(
        body["timer"]["overhead_ns"].as_f64().unwrap() > 0.0,
        "{body}"
    );
    assert!(
        body["timer"]["resolution_ns"].as_u64().unwrap() > 0,
        "{body}"
    );
    let get = |body: &Value, name: &str| -> Value { named(&body["instruments"], name) };
    assert_eq!(get(&body, "receive")["count"].as_u64(), Some(300));
    assert_eq!(get(&body, "decode")["count"].as_u64(), Some(300));
    let merged = d.status()["requests_merged"].as_u64().unwrap();
    assert_eq!(get(&body, "intern")["count"].as_u64(), Some(merged));
    assert_eq!(get(&body, "pool")["count"].as_u64(), Some(merged));
    assert_eq!(get(&body, "report:info")["count"].as_u64(), Some(merged));
    assert!(get(&body, "report:info")["total_ns"].as_u64().unwrap() > 0);
    // A family member (the built-ins share one stage; this one never queried): its requests
    // count as timed and its time is its turns at the stage, so its mean is its time per request
    // (its requests were counted untimed: `timed_count` 0, a mean of 0 beside a growing total).
    let member = get(&body, "report:report_by_script_name");
    assert_eq!(member["count"].as_u64(), Some(merged), "{member}");
    assert_eq!(member["timed_count"], member["count"], "{member}");
    assert!(get(&body, "query")["count"].as_u64().unwrap() >= 1);
    // Queries also give their calls' time distribution (the server's own p99).
    let calls = &get(&body, "query")["call_ns"];
    let (p50, p99) = (
        calls["p50"].as_u64().unwrap(),
        calls["p99"].as_u64().unwrap(),
    );
    assert!(p50 > 0 && p50 <= p99, "{calls}");

    // Queried, a member is updated on its own (detached) and the family's leader may be too:
    // each still counts every request once (a queried member counted each twice).
    let _ = d.json("/api/v1/reports/report_by_script_name");
    d.send(&corpus(100));
    d.wait_merged(400);
    let merged = d.status()["requests_merged"].as_u64().unwrap();
    let body = d.json("/api/v1/instruments");
    for name in [
        "report:info",
        "report:report_by_script_name",
        "report:report_by_hostname",
    ] {
        let i = get(&body, name);
        assert_eq!(i["count"].as_u64(), Some(merged), "{i}");
        assert_eq!(i["timed_count"], i["count"], "{i}");
    }

    // Untimed: counts go on, time stops.
    let (code, after) = d.patch(
        "/api/v1/instruments",
        &json!({"name": "report:*", "timed": false}),
    );
    assert_eq!(code, 200, "{after}");
    let info = get(&after, "report:info");
    assert_eq!(
        (info["timed"].as_bool(), info["enabled"].as_bool()),
        (Some(false), Some(true))
    );
    let (ns, timed, mean) = (
        info["total_ns"].as_u64().unwrap(),
        info["timed_count"].as_u64().unwrap(),
        info["mean_ns"].as_f64().unwrap(),
    );
    assert_eq!(timed, info["count"].as_u64().unwrap(), "all timed so far");
    d.send(&corpus(50));
    d.wait_merged(450);
    let now = d.json("/api/v1/instruments");
    let info = get(&now, "report:info");
    assert!(info["count"].as_u64().unwrap() >= merged + 50 - 1);
    assert_eq!(info["total_ns"].as_u64(), Some(ns));
    // The mean is over the timed events: the untimed ones do not drag it down.
    assert_eq!(info["timed_count"].as_u64(), Some(timed));
    assert_eq!(info["mean_ns"].as_f64(), Some(mean));
    // Disabled: nothing counted.
    let (code, _) = d.patch(
        "/api/v1/instruments",
        &json!({"name": "decode", "enabled": false}),
    );
    assert_eq!(code, 200);
    d.send(&corpus(20));
    d.wait_merged(470);
    let now = d.json("/api/v1/instruments");
    assert_eq!(get(&now, "decode")["count"].as_u64(), Some(450));
    assert_eq!(get(&now, "receive")["count"].as_u64(), Some(470));

    for (body, want) in [
        (json!({"name": "nope", "timed": true}), 404),
        (json!({"name": "decode"}), 400),
        (json!({"name": "decode", "timed": "yes"}), 400),
        (json!({"name": "decode", "colour": true}), 400),
        (json!(["decode"]), 400),
    ] {
        let (code, err) = d.patch("/api/v1/instruments", &body);
        assert_eq!(code, want, "{body} → {err}");
        assert!(
            err["error"].is_string() && err["detail"].is_string(),
            "{err}"
        );
    }
}
