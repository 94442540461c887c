//! The test harness: a real daemon process on port 0, UDP senders, an HTTP client.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_pinbad");

/// A running daemon, killed on drop.
pub struct Daemon {
    pub child: Child,
    pub udp: Vec<SocketAddr>,
    pub http: SocketAddr,
    /// The SQL front end's address (`None` when it is off).
    pub mysql: Option<SocketAddr>,
    /// Holds the config file and state dir; removed on drop.
    _dir: tempfile::TempDir,
    agent: ureq::Agent,
    /// Its stderr lines, when started by [`Daemon::start_logged`], and the thread reading them.
    logs: Option<Arc<Mutex<Vec<String>>>>,
    log_reader: Option<std::thread::JoinHandle<()>>,
}

impl Daemon {
    /// Starts pinbad with `config` (TOML; `state_dir` is set to a fresh temp dir unless given)
    /// listening on 127.0.0.1:0 for UDP and HTTP.
    pub fn start(config: &str) -> Daemon {
        Daemon::start_with(config, &["--udp", "127.0.0.1:0"], None)
    }

    /// As `start`, with explicit extra arguments and an optional existing state dir.
    pub fn start_with(config: &str, args: &[&str], state: Option<&Path>) -> Daemon {
        Daemon::spawn(config, args, state, None)
    }

    /// As `start`, with `RUST_LOG=rust_log` and stderr captured (see [`Daemon::logs`]).
    pub fn start_logged(config: &str, rust_log: &str) -> Daemon {
        Daemon::spawn(config, &["--udp", "127.0.0.1:0"], None, Some(rust_log))
    }

    /// As `start_with`, with `RUST_LOG=rust_log` and stderr captured.
    pub fn start_logged_with(
        config: &str,
        args: &[&str],
        state: Option<&Path>,
        rust_log: &str,
    ) -> Daemon {
        Daemon::spawn(config, args, state, Some(rust_log))
    }

    fn spawn(config: &str, args: &[&str], state: Option<&Path>, log: Option<&str>) -> Daemon {
        Daemon::launch(config, args, state, log).attach()
    }

    /// Starts the process (as [`Daemon::start_logged_with`] does) without waiting for it to
    /// listen: for tests that act while it starts up.
    pub fn launch(config: &str, args: &[&str], state: Option<&Path>, log: Option<&str>) -> Launch {
        Daemon::launch_as(Command::new(BIN), config, args, state, log)
    }

    /// As [`Daemon::launch`], with `sockets` passed as systemd passes a `.socket` unit's
    /// (descriptors 3, 4, … in order, `LISTEN_FDS`, and `LISTEN_PID` naming the daemon).
    pub fn launch_activated(
        config: &str,
        state: Option<&Path>,
        log: Option<&str>,
        sockets: &[std::os::fd::BorrowedFd<'_>],
    ) -> Launch {
        let (command, _high) = activated(sockets, &std::collections::HashMap::new());
        Daemon::launch_as(command, config, &[], state, log)
    }

    /// As [`Daemon::launch`], running `command` (pinbad itself, or a program that runs it in
    /// its place: the arguments are appended).
    pub fn launch_as(
        mut command: Command,
        config: &str,
        args: &[&str],
        state: Option<&Path>,
        log: Option<&str>,
    ) -> Launch {
        let dir = tempfile::tempdir().unwrap();
        let state_dir: PathBuf = state
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dir.path().join("state"));
        let config_path = dir.path().join("pinbad.toml");
        let mut text = String::new();
        if !config.contains("state_dir") {
            text.push_str(&format!("state_dir = {:?}\n", state_dir.to_str().unwrap()));
        }
        text.push_str(config);
        std::fs::write(&config_path, text).unwrap();
        let mut child = command
            .arg("--config")
            .arg(&config_path)
            .args(http_port_0(args))
            .args(mysql_port_0(args))
            .args(args)
            .env("RUST_LOG", log.unwrap_or("error"))
            .stdout(Stdio::piped())
            .stderr(if log.is_some() {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .expect("start pinbad");
        let (logs, log_reader) = match child.stderr.take() {
            Some(stderr) => {
                let logs = Arc::new(Mutex::new(Vec::new()));
                let sink = Arc::clone(&logs);
                let reader = std::thread::spawn(move || {
                    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                        sink.lock().unwrap().push(line);
                    }
                });
                (Some(logs), Some(reader))
            }
            None => (None, None),
        };
        Launch {
            process: Some((child, dir)),
            logs,
            log_reader,
        }
    }

    /// Its stderr lines so far (only with [`Daemon::start_logged`]).
    pub fn logs(&self) -> Vec<String> {
        let logs = self.logs.as_ref().expect("started with start_logged");
        logs.lock().unwrap().clone()
    }

    /// Waits until a stderr line contains `needle`, and returns it.
    pub fn wait_log(&self, needle: &str) -> String {
        self.wait_for(
            |d| d.logs().iter().any(|l| l.contains(needle)),
            &format!("a log line with {needle:?}"),
        );
        self.logs()
            .into_iter()
            .find(|l| l.contains(needle))
            .unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.http, path)
    }

    /// GET → (status, JSON body or the raw text as a JSON string).
    pub fn get(&self, path: &str) -> (u16, Value) {
        respond(self.agent.get(&self.url(path)).call())
    }

    /// GET that must succeed.
    pub fn json(&self, path: &str) -> Value {
        let (code, body) = self.get(path);
        assert_eq!(code, 200, "GET {path}: {body}");
        body
    }

    /// One string field of every object in the list `list` of GET `path`, in order.
    pub fn strings(&self, path: &str, list: &str, field: &str) -> Vec<String> {
        let body = self.json(path);
        let items = body[list]
            .as_array()
            .unwrap_or_else(|| panic!("GET {path}: no list `{list}`"));
        items
            .iter()
            .map(|r| {
                r[field]
                    .as_str()
                    .unwrap_or_else(|| panic!("no `{field}` in {r}"))
                    .to_string()
            })
            .collect()
    }

    pub fn get_text(&self, path: &str) -> (u16, String) {
        match self.agent.get(&self.url(path)).call() {
            Ok(r) => (r.status(), r.into_string().unwrap()),
            Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap()),
            Err(e) => panic!("GET {path}: {e}"),
        }
    }

    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        respond(
            self.agent
                .post(&self.url(path))
                .set("Content-Type", "application/json")
                .send_string(&body.to_string()),
        )
    }

    pub fn patch(&self, path: &str, body: &Value) -> (u16, Value) {
        respond(
            self.agent
                .request("PATCH", &self.url(path))
                .set("Content-Type", "application/json")
                .send_string(&body.to_string()),
        )
    }

    pub fn delete(&self, path: &str) -> (u16, Value) {
        respond(self.agent.delete(&self.url(path)).call())
    }

    pub fn status(&self) -> Value {
        self.json("/api/v1/status")
    }

    /// Sends datagrams to the first UDP address from a fresh socket, in chunks, waiting after
    /// each chunk until the daemon has read it: however busy the CPU, the socket buffer never
    /// overflows, so the tests can check exact counts.
    pub fn send(&self, datagrams: &[Vec<u8>]) {
        let received = |d: &Daemon| d.status()["packets_received"].as_u64().unwrap_or(0);
        let base = received(self);
        let (mut sent, mut start, mut bytes) = (0u64, 0, 0);
        for (i, d) in datagrams.iter().enumerate() {
            bytes += d.len();
            if bytes >= SEND_CHUNK_BYTES || i + 1 == datagrams.len() {
                send_to(self.udp[0], &datagrams[start..=i]);
                sent += (i + 1 - start) as u64;
                (start, bytes) = (i + 1, 0);
                self.wait_for(
                    |d| received(d) >= base + sent,
                    "the daemon to read what was sent",
                );
            }
        }
    }

    /// Polls `cond` every 20 ms for up to 30 s (generous: the tests must pass on a busy machine;
    /// a passing condition returns at once).
    pub fn wait_for(&self, cond: impl Fn(&Daemon) -> bool, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if cond(self) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("timed out waiting for {what}; status: {}", self.status());
    }

    /// Waits until the daemon has seen `packets` datagrams in total and merged all they carried:
    /// every accepted request is either in the pool's history (merged) or counted as dropped (at
    /// the temp ring, or by a `[[rewrite]]` rule).
    /// The receivers fold their counters in only when they hand a batch over, so this holds at
    /// no instant before the last batch is merged.
    pub fn wait_merged(&self, packets: u64) {
        self.wait_for(
            |d| {
                let s = d.status();
                let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("no `{k}` in {s}"));
                n("packets_received") >= packets
                    && n("requests_accepted")
                        == n("requests_merged") + n("temp_pool_dropped") + n("rewrite_dropped")
            },
            &format!("{packets} packets merged"),
        );
    }

    /// [`Daemon::terminate`], then every line it logged (the reader has read to the end: the
    /// process closed its stderr when it exited).
    pub fn terminate_logged(self, within: Duration) -> (std::process::ExitStatus, Vec<String>) {
        self.signal_term();
        self.wait_logged(within)
    }

    /// The exit status (within `within`) of a daemon already signalled, and its logs.
    pub fn wait_logged(mut self, within: Duration) -> (std::process::ExitStatus, Vec<String>) {
        let logs = self.logs.take().expect("started logged");
        let reader = self.log_reader.take();
        let status = self.wait_exit(within);
        if let Some(r) = reader {
            let _ = r.join();
        }
        let lines = logs.lock().unwrap().clone();
        (status, lines)
    }

    /// SIGTERM, then the exit status (within `within`).
    pub fn terminate(self, within: Duration) -> std::process::ExitStatus {
        self.signal_term();
        self.wait_exit(within)
    }

    /// Sends SIGTERM and returns at once.
    pub fn signal_term(&self) {
        signal(&self.child, libc::SIGTERM);
    }

    /// Waits for the process to exit (within `within`) and returns its status.
    pub fn wait_exit(mut self, within: Duration) -> std::process::ExitStatus {
        wait_child(&mut self.child, within)
    }
}

/// Sends `signal` to our own child.
pub fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: plain kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, signal) };
}

/// Waits for `child` to exit (within `within`) and returns its status.
pub fn wait_child(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "{child:?} did not exit within {within:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A daemon process started by [`Daemon::launch`], not yet known to listen.
pub struct Launch {
    /// The process and its directory: taken by [`Launch::attach`], else the process is killed on
    /// drop (a test that failed before attaching).
    process: Option<(Child, tempfile::TempDir)>,
    logs: Option<Arc<Mutex<Vec<String>>>>,
    log_reader: Option<std::thread::JoinHandle<()>>,
}

impl Launch {
    /// Sends `signal` to the process, before it is known to listen.
    pub fn signal(&self, signal: libc::c_int) {
        let (child, _) = self.process.as_ref().expect("not attached");
        crate::common::signal(child, signal);
    }

    /// Waits for the process to exit (within `within`) without it being attached.
    pub fn wait_exit(&mut self, within: Duration) -> std::process::ExitStatus {
        let (child, _) = self.process.as_mut().expect("not attached");
        wait_child(child, within)
    }

    /// The first stderr line containing `needle` (logs captured), waiting up to 30 s for it.
    pub fn wait_log(&self, needle: &str) -> String {
        let logs = self.logs.as_ref().expect("launched with a log level");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(line) = logs.lock().unwrap().iter().find(|l| l.contains(needle)) {
                return line.clone();
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for a log line with {needle:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the daemon's "listening" lines on stdout (up to 60 s; a daemon that never
    /// listens is killed and the test fails) and its `/healthz`.
    pub fn attach(mut self) -> Daemon {
        let (mut child, dir) = self.process.take().expect("attached once");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        // Reads stdout to its end, so the daemon never blocks on a full pipe (the lines after
        // the "listening" ones go nowhere).
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let (mut udp, mut http, mut mysql) = (Vec::new(), None, None);
        while http.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match lines.recv_timeout(left) {
                Ok(line) => line,
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    match e {
                        std::sync::mpsc::RecvTimeoutError::Timeout => {
                            panic!("pinbad did not say where it listens within 60 s")
                        }
                        std::sync::mpsc::RecvTimeoutError::Disconnected => {
                            panic!("pinbad exited before listening")
                        }
                    }
                }
            };
            let mut words = line.split_whitespace().skip(1);
            match (words.next(), words.next()) {
                (Some("udp"), Some(a)) => udp.push(a.parse().unwrap()),
                (Some("http"), Some(a)) => http = Some(a.parse().unwrap()),
                (Some("mysql"), Some(a)) => mysql = Some(a.parse().unwrap()),
                _ => {}
            }
        }
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(10))
            .build();
        let d = Daemon {
            child,
            udp,
            http: http.unwrap(),
            mysql,
            _dir: dir,
            agent,
            logs: self.logs.take(),
            log_reader: self.log_reader.take(),
        };
        d.wait_for(|d| d.get("/healthz").0 == 200, "healthz");
        d
    }
}

impl Drop for Launch {
    fn drop(&mut self) {
        if let Some((mut child, _dir)) = self.process.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn respond(r: Result<ureq::Response, ureq::Error>) -> (u16, Value) {
    // Read the whole body, whatever its size (into_string stops at 10 MB).
    let text = |r: ureq::Response| {
        let mut s = String::new();
        r.into_reader().read_to_string(&mut s).unwrap();
        s
    };
    let (code, text) = match r {
        Ok(r) => (r.status(), text(r)),
        Err(ureq::Error::Status(code, r)) => (code, text(r)),
        Err(e) => panic!("HTTP error: {e}"),
    };
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (code, body)
}

/// Bytes `Daemon::send` sends before waiting for the daemon to read them: below Linux's default
/// `rmem_max` (208 KiB), so even a receive buffer the kernel clamped never overflows.
const SEND_CHUNK_BYTES: usize = 96 << 10;

pub fn send_to(addr: SocketAddr, datagrams: &[Vec<u8>]) {
    let bind = if addr.is_ipv6() {
        "[::1]:0"
    } else {
        "127.0.0.1:0"
    };
    let s = UdpSocket::bind(bind).unwrap();
    for (i, d) in datagrams.iter().enumerate() {
        s.send_to(d, addr).unwrap();
        if i % 200 == 199 {
            // Pacing for callers that send without waiting (Daemon::send waits for the daemon).
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// `--http 127.0.0.1:0` unless `args` name the HTTP address themselves (the flag is taken once).
pub fn http_port_0(args: &[&str]) -> &'static [&'static str] {
    if args.contains(&"--http") {
        &[]
    } else {
        &["--http", "127.0.0.1:0"]
    }
}

/// `--mysql 127.0.0.1:0` for a daemon started with `args`, unless they run a subcommand or name
/// the SQL front end's address themselves: the daemons tests start side by side must not share
/// its default port.
pub fn mysql_port_0(args: &[&str]) -> &'static [&'static str] {
    let subcommand = args
        .iter()
        .any(|a| ["check-config", "import-sql", "import-mycnf"].contains(a));
    if subcommand || args.contains(&"--mysql") {
        &[]
    } else {
        &["--mysql", "127.0.0.1:0"]
    }
}

/// Runs the binary to completion with `args` (state in `state_dir`, logs off), returning its exit
/// code and stderr: for start-up failures and `check-config`.
pub fn run_pinbad(args: &[&str], state_dir: &Path) -> (Option<i32>, String) {
    run_pinbad_logged(args, state_dir, "off")
}

/// As [`run_pinbad`], with `RUST_LOG=rust_log` (its log lines in the stderr returned).
pub fn run_pinbad_logged(args: &[&str], state_dir: &Path, rust_log: &str) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .args(args)
        .args(mysql_port_0(args))
        .env("RUST_LOG", rust_log)
        .env("STATE_DIRECTORY", state_dir)
        .output()
        .expect("run pinbad");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every fixture: (name, datagram, expected JSON).
pub fn fixtures() -> Vec<(String, Vec<u8>, Value)> {
    let mut out = Vec::new();
    for sub in ["php", "edge"] {
        let dir = fixture_dir().join(sub);
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        for p in names
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        {
            let json: Value =
                serde_json::from_str(&std::fs::read_to_string(p.with_extension("json")).unwrap())
                    .unwrap();
            out.push((
                format!("{sub}/{}", p.file_stem().unwrap().to_str().unwrap()),
                std::fs::read(&p).unwrap(),
                json,
            ));
        }
    }
    out
}

/// A plain request of `script` on host `h`, server `s`: 10 ms, status 200, no timers or tags.
/// Tests change what they need before encoding it.
pub fn proto_request(script: &str) -> pinbad::proto::Request {
    pinbad::proto::Request {
        hostname: b"h".to_vec(),
        server_name: b"s".to_vec(),
        script_name: script.as_bytes().to_vec(),
        request_time: 0.01,
        status: Some(200),
        ..Default::default()
    }
}

/// [`proto_request`] as a datagram.
pub fn request(script: &str) -> Vec<u8> {
    use prost::Message;
    proto_request(script).encode_to_vec()
}

/// A request of `script` on web1 / example.com taking `seconds` (status 200), with one timer of
/// group `db`: 2 hits, `timer_seconds` in all.
pub fn request_with_db_timer(script: &str, seconds: f32, timer_seconds: f32) -> Vec<u8> {
    use prost::Message;
    pinbad::proto::Request {
        hostname: b"web1".to_vec(),
        server_name: b"example.com".to_vec(),
        script_name: script.as_bytes().to_vec(),
        request_count: 1,
        request_time: seconds,
        status: Some(200),
        timer_hit_count: vec![2],
        timer_value: vec![timer_seconds],
        timer_ru_utime: vec![0.0],
        timer_ru_stime: vec![0.0],
        timer_tag_count: vec![1],
        timer_tag_name: vec![0],
        timer_tag_value: vec![1],
        dictionary: vec![b"group".to_vec(), b"db".to_vec()],
        ..Default::default()
    }
    .encode_to_vec()
}

/// A command running pinbad with `sockets` passed as systemd passes them (descriptors 3, 4, …,
/// `LISTEN_FDS`; `LISTEN_PID` names pinbad: a shell sets it to its own pid and execs pinbad in its
/// place), with `env` set too (a test may override the variables). The descriptors returned
/// (copies above 100, closed on exec) must live until the command is spawned.
pub fn activated(
    sockets: &[std::os::fd::BorrowedFd<'_>],
    env: &std::collections::HashMap<&str, &str>,
) -> (Command, Vec<std::os::fd::OwnedFd>) {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::process::CommandExt;
    // Copied above the range they go to first, so that no dup2 below overwrites another.
    let high: Vec<std::os::fd::OwnedFd> = sockets
        .iter()
        .map(|s| {
            // SAFETY: fcntl(2) F_DUPFD_CLOEXEC on a live descriptor; the new one is ours.
            let fd = unsafe { libc::fcntl(s.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 100) };
            assert!(fd >= 100, "fcntl F_DUPFD_CLOEXEC");
            // SAFETY: `fd` was just created for us alone.
            unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }
        })
        .collect();
    let raw: Vec<i32> = high.iter().map(|fd| fd.as_raw_fd()).collect();
    let mut command = Command::new("sh");
    command
        .args(["-c", "export LISTEN_PID=$$; exec \"$0\" \"$@\"", BIN])
        .env("LISTEN_FDS", sockets.len().to_string())
        .envs(env);
    // SAFETY: between fork and exec only dup2(2), which is async-signal-safe; the new
    // descriptors 3, 4, … are not close-on-exec, so sh and then pinbad inherit them.
    unsafe {
        command.pre_exec(move || {
            for (i, &fd) in raw.iter().enumerate() {
                if libc::dup2(fd, 3 + i as i32) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    (command, high)
}

/// Bytes waiting in the receive queues of the IPv4 UDP sockets bound to `port`
/// (`/proc/net/udp`), `None` while no socket is bound to it.
pub fn udp_receive_queue(port: u16) -> Option<u64> {
    let table = std::fs::read_to_string("/proc/net/udp").expect("/proc/net/udp (Linux)");
    let local = format!(":{port:04X}");
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let queues = cols.get(4)?.split_once(':')?;
            cols.get(1)?
                .ends_with(&local)
                .then(|| u64::from_str_radix(queues.1, 16).ok())
                .flatten()
        })
        .reduce(|a, b| a + b)
}

/// PHP-like datagrams (timers with tags, request tags), seeded.
pub fn corpus(n: usize, seed: u64) -> Vec<Vec<u8>> {
    pinbad::corpus::Corpus::new(pinbad::corpus::CorpusSpec {
        seed,
        scripts: 40,
        ..pinbad::corpus::CorpusSpec::default()
    })
    .datagrams(n)
}

/// `info`'s request count.
pub fn info_count(d: &Daemon) -> u64 {
    let info = d.json("/api/v1/info");
    info["rows"][0]["req_count"].as_u64().unwrap_or(0)
}

/// How a server that a test started came up (see [`wait_ready`]).
#[derive(Debug)]
pub enum Startup {
    Ready,
    Exited(std::process::ExitStatus),
    TimedOut,
}

/// Polls a server that a test started (Prometheus, ClickHouse, chromedriver) every 50 ms until
/// `ready` says it answers, its process `child` exits, or `within` has passed.
pub fn wait_ready(child: &mut Child, within: Duration, ready: impl Fn() -> bool) -> Startup {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Startup::Exited(status);
        }
        if ready() {
            return Startup::Ready;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Startup::TimedOut
}

/// A loopback TCP port free when chosen, for a server a test starts (which retries with another
/// port should something take it first).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

/// The index of `s` in a datagram's string dictionary, added at the end when new.
pub fn dictionary_index(dict: &mut Vec<String>, s: &str) -> u32 {
    if let Some(i) = dict.iter().position(|d| d == s) {
        return i as u32;
    }
    dict.push(s.to_string());
    (dict.len() - 1) as u32
}

/// The object named `name` (its `"name"` field) in the JSON array `list`.
pub fn named(list: &Value, name: &str) -> Value {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` in {list}"))
        .clone()
}

/// Writes `text` to a file in `dir` and returns its path.
pub fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    p
}

/// The `p`-th percentile by nearest rank of `samples`, each a value and how many times it
/// was seen.
pub fn nearest_rank(samples: &[(f64, u64)], p: f64) -> f64 {
    let mut v: Vec<(f64, u64)> = samples.to_vec();
    v.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
    let total: u64 = v.iter().map(|x| x.1).sum();
    let rank = ((p / 100.0 * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    for (x, w) in v {
        seen += w;
        if seen >= rank {
            return x;
        }
    }
    unreachable!()
}

/// Relative closeness for floats on the wire (f32) against expected values.
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-9)
}

/// A seeded xorshift generator for test traffic: each call gives a number in `0..m`.
pub fn rng(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut s = seed | 1;
    move |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    }
}

/// Each thread of process `pid` by name, with its niceness (field 19 of its /proc stat).
pub fn thread_nice(pid: u32) -> Vec<(String, i64)> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
    tasks
        .filter_map(|t| {
            let dir = t.ok()?.path();
            let name = std::fs::read_to_string(dir.join("comm")).ok()?;
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            // Fields after the name in parentheses start at field 3 (state).
            let after = &stat[stat.rfind(')')? + 2..];
            let nice = after.split(' ').nth(19 - 3)?.parse().ok()?;
            Some((name.trim().to_string(), nice))
        })
        .collect()
}

/// `GET path` on a connection of its own whose answer is left unread (a slow client): the
/// connection once its status line is `200` (peeked: the body stays in the socket), or the body
/// of a `503`; any other status panics.
pub fn ask_unread(http: SocketAddr, path: &str) -> Result<std::net::TcpStream, String> {
    let mut conn = std::net::TcpStream::connect(http).unwrap();
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: pinbad\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut line = [0u8; 12];
    let deadline = Instant::now() + Duration::from_secs(30);
    while conn.peek(&mut line).unwrap() < line.len() {
        assert!(Instant::now() < deadline, "no answer");
        std::thread::sleep(Duration::from_millis(5));
    }
    match &line {
        b"HTTP/1.1 200" => Ok(conn),
        b"HTTP/1.1 503" => {
            let mut text = String::new();
            let _ = conn.read_to_string(&mut text);
            Err(text)
        }
        other => panic!("{}", String::from_utf8_lossy(other)),
    }
}

/// The figure `key=VALUE` of a log line.
pub fn log_figure(line: &str, key: &str) -> f64 {
    let at = line
        .find(&format!("{key}="))
        .unwrap_or_else(|| panic!("no {key} in {line}"));
    line[at + key.len() + 1..]
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number after {key}= in {line}"))
}
