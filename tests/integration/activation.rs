//! Socket activation: pinbad receives and serves on the sockets a service manager passes it
//! (descriptors 3, 4, …, `LISTEN_FDS`, `LISTEN_PID`), so that what is sent while it restarts
//! waits in the socket instead of being lost.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsFd;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::*;

/// Two daemons, one after the other, on sockets the test holds as systemd would: what is sent
/// while neither runs (datagrams, and an HTTP request) waits in the sockets and reaches the
/// second, whose window (restored from the first's snapshot) then holds every request.
#[test]
fn a_restart_on_passed_sockets_keeps_what_was_sent_in_between() {
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let http = TcpListener::bind("127.0.0.1:0").unwrap();
    let (udp_addr, http_addr) = (udp.local_addr().unwrap(), http.local_addr().unwrap());
    let state = tempfile::tempdir().unwrap();
    let sockets = [udp.as_fd(), http.as_fd()];
    let config = format!("state_dir = {:?}\n", state.path().to_str().unwrap());

    let first = Daemon::launch_activated(&config, None, None, &sockets).attach();
    assert_eq!(first.udp, vec![udp_addr], "receives on the passed socket");
    assert_eq!(first.http, http_addr, "serves on the passed listener");
    first.send(&corpus(300, 1));
    first.wait_merged(300);
    assert!(first.terminate(Duration::from_secs(30)).success());

    // Nobody reads the sockets now: the kernel queues what comes.
    send_to(udp_addr, &corpus(50, 2));
    let mut waiting = TcpStream::connect(http_addr).expect("the backlog takes the connection");
    waiting
        .write_all(b"GET /api/v1/info HTTP/1.0\r\n\r\n")
        .unwrap();
    let queued = udp_receive_queue(udp_addr.port()).expect("the test holds the socket");
    assert!(queued > 0, "the datagrams wait in the socket");

    let second = Daemon::launch_activated(&config, None, None, &sockets).attach();
    assert_eq!(second.udp, vec![udp_addr]);
    second.wait_for(
        |d| info_count(d) == 350,
        "the restored 300 and the 50 sent in between",
    );
    waiting
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut answer = String::new();
    waiting.read_to_string(&mut answer).unwrap();
    assert!(
        answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200"),
        "the request sent in between is answered: {answer}"
    );
    assert!(answer.contains("\"req_count\""), "{answer}");
}

/// Runs pinbad to its exit with `sockets` passed and `env` set; returns its exit code and stderr.
fn run_activated(
    sockets: &[std::os::fd::BorrowedFd<'_>],
    env: &HashMap<&str, &str>,
) -> (Option<i32>, String) {
    let state = tempfile::tempdir().unwrap();
    let (mut command, _high) = activated(sockets, env);
    let out = command
        .arg("--state-dir")
        .arg(state.path())
        .args(["--http", "127.0.0.1:0", "--udp", "127.0.0.1:0"])
        .env("RUST_LOG", "error")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// What the service manager passes must be IP sockets, one listening stream at most, and a
/// number in `LISTEN_FDS`: anything else stops start-up with a message naming the descriptor or
/// the variable. A `LISTEN_PID` naming another process is ignored (inherited, not ours).
#[test]
fn passed_descriptors_pinbad_cannot_use_stop_start_up_naming_them() {
    let none = HashMap::new();
    let file = tempfile::tempfile().unwrap();
    let (code, stderr) = run_activated(&[file.as_fd()], &none);
    assert_ne!(code, Some(0));
    assert!(
        stderr.contains("descriptor 3") && stderr.contains("not a socket"),
        "{stderr}"
    );

    let (unix, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
    let (code, stderr) = run_activated(&[unix.as_fd()], &none);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("not an IPv4 or IPv6 socket"), "{stderr}");

    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let a = TcpListener::bind("127.0.0.1:0").unwrap();
    let b = TcpListener::bind("127.0.0.1:0").unwrap();
    let (code, stderr) = run_activated(&[udp.as_fd(), a.as_fd(), b.as_fd()], &none);
    assert_ne!(code, Some(0));
    assert!(
        stderr.contains("more than one stream socket (descriptors 4 and 5)"),
        "{stderr}"
    );

    let unlistened =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let (code, stderr) = run_activated(&[unlistened.as_fd()], &none);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("not listening"), "{stderr}");

    let (code, stderr) = run_activated(&[udp.as_fd()], &HashMap::from([("LISTEN_FDS", "x")]));
    assert_ne!(code, Some(0));
    assert!(stderr.contains("LISTEN_FDS=\"x\""), "{stderr}");

    // Variables naming another process are someone else's (inherited): ignored, pinbad binds
    // the addresses it is given.
    let mut command = Command::new(BIN);
    command.env("LISTEN_PID", "1").env("LISTEN_FDS", "x");
    let d = Daemon::launch_as(command, "", &["--udp", "127.0.0.1:0"], None, None).attach();
    assert_ne!(d.udp[0].port(), 0);
    d.send(&corpus(5, 3));
    d.wait_merged(5);
}

/// The real tool: `systemd-socket-activate` (systemd's way to run a program as a `.socket`
/// unit would) binds a UDP port and runs pinbad when the first datagram comes; pinbad receives
/// on that socket, the datagram that woke it included.
#[test]
fn systemd_socket_activate_runs_pinbad_on_its_socket() {
    if Command::new("systemd-socket-activate")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("PINBAD_REQUIRE_SYSTEMD").is_none(),
            "PINBAD_REQUIRE_SYSTEMD is set but systemd-socket-activate is missing"
        );
        eprintln!("SKIPPED: systemd-socket-activate is not installed (apt-get install systemd)");
        return;
    }
    let addr = {
        let probe = UdpSocket::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap()
    };
    let mut command = Command::new("systemd-socket-activate");
    // The tool passes on only the variables it is told to.
    command.args(["--datagram", "-E", "RUST_LOG", "-l", &addr.to_string(), BIN]);
    let launch = Daemon::launch_as(command, "", &[], None, None);
    // A datagram sent before the tool has bound the port would be refused, and nothing would
    // ever run pinbad.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while udp_receive_queue(addr.port()).is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "systemd-socket-activate did not bind {addr}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    send_to(addr, &corpus(1, 4));
    let d = launch.attach();
    assert_eq!(d.udp, vec![addr], "receives on the socket it was given");
    d.wait_merged(1);
    d.send(&corpus(20, 5));
    d.wait_merged(21);
    assert_eq!(info_count(&d), 21);
}
