//! `pinbad-blast --receive`: the null server the benchmarks set pinbad's CPU against.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{corpus, send_to, udp_receive_queue, wait_child};

const BLAST: &str = env!("CARGO_BIN_EXE_pinbad-blast");

/// It takes every datagram sent to it and nothing else, stops at `--count`, and says what that
/// cost per datagram (a figure, not checked against a bound: the machine decides it).
#[test]
fn blast_receive_counts_every_datagram_and_its_cost() {
    let mut child = Command::new(BLAST)
        .args([
            "--receive",
            "127.0.0.1:0",
            "--count",
            "400",
            "--duration",
            "60s",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pinbad-blast");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("pinbad-blast: receiving on ")
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .parse()
        .unwrap();
    let datagrams = corpus(400, 11);
    // In chunks the queue drains between, so that a buffer the kernel clamped never overflows.
    for chunk in datagrams.chunks(100) {
        send_to(addr, chunk);
        let deadline = Instant::now() + Duration::from_secs(30);
        while udp_receive_queue(addr.port()).is_some_and(|q| q > 0) {
            assert!(
                Instant::now() < deadline,
                "pinbad-blast did not read its socket"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // It stops by itself at --count.
    let status = wait_child(&mut child, Duration::from_secs(30));
    assert!(status.success(), "{status}");
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["mode"], "receive");
    assert_eq!(v["address"], addr.to_string());
    assert_eq!(v["received"], 400);
    let bytes: usize = datagrams.iter().map(Vec::len).sum();
    assert_eq!(v["bytes"].as_u64(), Some(bytes as u64));
    let calls = v["calls"].as_u64().unwrap();
    assert!((1..=400).contains(&calls), "{v}");
    let measured = v["measured_datagrams"].as_u64().unwrap();
    assert!(
        measured < 400,
        "the first call's datagrams are not measured: {v}"
    );
    if measured > 0 {
        let cpu = v["cpu_us_per_datagram"].as_f64().unwrap();
        let parts = v["cpu_user_us_per_datagram"].as_f64().unwrap()
            + v["cpu_system_us_per_datagram"].as_f64().unwrap();
        assert!(cpu >= 0.0 && (cpu - parts).abs() < 1e-9, "{v}");
    }
}

/// Only loopback, and not together with what only a sender does.
#[test]
fn blast_receive_refuses_other_addresses_and_sender_options() {
    for args in [
        &["--receive", "0.0.0.0:0"][..],
        &["--receive", "10.1.2.3:30002"],
        &["--receive", "127.0.0.1:0", "--check", "http://127.0.0.1:1"],
    ] {
        let out = Command::new(BLAST).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("loopback") || err.contains("cannot be used with"),
            "{args:?}: {err}"
        );
    }
}
