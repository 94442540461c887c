//! pinbad-blast: a loopback-only load generator for pinbad.
//!
//! Pre-generates a pool of PHP-like datagrams ([`pinbad::corpus`], or a replay file), cycles
//! through it sending `sendmmsg` batches on a connected UDP socket, paced to `--rate` against a
//! start-time schedule, and stops by itself at `--count` packets or after `--duration` (10 s when
//! neither is given). With `--check URL` it reads pinbad's `/api/v1/status` before and after and
//! reports how many packets the server missed. It refuses any target that is not loopback.
//!
//! With `--count N` and N no larger than the pool, the packets sent are exactly the first N of
//! `Corpus::new(spec)` for the spec given on the command line, so a test can compute the reports
//! it expects from the same seed.
//!
//! With `--receive ADDR` it is the receiving end instead, a null server: it receives as pinbad's
//! receivers do, drops every datagram, and reports the CPU that cost per datagram, the kernel's
//! share of any server's cost on the machine (see `pinbad::receiver::discard`).
//!
//! Built with the `corpus` feature (the generator is not part of the daemon): `cargo test` builds
//! it, `cargo build --release --features corpus --bin pinbad-blast` alone.
//!
//! Exit codes: 0 done (loss is a measurement, not a failure), 1 runtime error, 2 usage error.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::{IpAddr, SocketAddr, ToSocketAddrs, UdpSocket};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Parser;
use pinbad::corpus::{self, Corpus, CorpusSpec};

/// Largest sendmmsg batch (the kernel's UIO_MAXIOV).
const MAX_BATCH: usize = 1024;
/// How long the send loop keeps retrying one batch on EAGAIN/ENOBUFS before giving up on it.
const RETRY_LIMIT: u32 = 200;
/// `--check`: poll interval and the longest wait for the server's counters to settle.
const SETTLE_POLL: Duration = Duration::from_millis(100);
const SETTLE_MAX: Duration = Duration::from_secs(5);

#[derive(Parser, Debug)]
#[command(
    name = "pinbad-blast",
    version,
    about = "Send PHP-like Pinba datagrams to a pinbad on loopback, and measure loss"
)]
struct Args {
    /// UDP address to send to; must be loopback (127.0.0.0/8, ::1 or localhost).
    #[arg(long, default_value = "127.0.0.1:30002")]
    target: String,
    /// Packets per second, 0 = as fast as possible. Accepts 100k, 1M.
    #[arg(long, value_name = "PPS", default_value = "0", value_parser = parse_count)]
    rate: u64,
    /// Stop after this long ("10s", "500ms", "2m"); the default when --count is not given is 10s.
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Stop after this many packets (with --duration too: whichever comes first). Accepts 100k, 1M.
    #[arg(long, value_parser = parse_count)]
    count: Option<u64>,
    /// Corpus seed: the same seed and corpus options give the same datagrams.
    #[arg(long, default_value = "1", value_parser = parse_count)]
    seed: u64,
    /// Distinct script names in the corpus.
    #[arg(long, default_value = "1000", value_parser = parse_size)]
    scripts: usize,
    /// Distinct host names in the corpus.
    #[arg(long, default_value = "20", value_parser = parse_size)]
    hosts: usize,
    /// Distinct server names in the corpus.
    #[arg(long, default_value = "5", value_parser = parse_size)]
    servers: usize,
    /// Distinct values per tag name in the corpus.
    #[arg(long, default_value = "50", value_parser = parse_size)]
    tag_values: usize,
    /// Fewest timers per request (before merging identical tag sets).
    #[arg(long, default_value = "3", value_parser = parse_size)]
    min_timers: usize,
    /// Most timers per request (before merging identical tag sets).
    #[arg(long, default_value = "15", value_parser = parse_size)]
    max_timers: usize,
    /// Send the datagrams of this replay file (u32 LE length + bytes, repeated) instead of the corpus.
    #[arg(long, value_name = "FILE", conflicts_with = "write_replay")]
    replay: Option<PathBuf>,
    /// Datagrams per sendmmsg call (1–1024); smaller when --rate is low, to keep pacing smooth.
    #[arg(long, default_value = "64", value_parser = parse_batch)]
    batch: usize,
    /// Corpus datagrams pre-generated and cycled through (fewer when --count is smaller).
    #[arg(long, default_value = "50000", value_parser = parse_count)]
    pool: u64,
    /// pinbad's HTTP address: read /api/v1/status before and after to measure loss (loopback only).
    #[arg(long, value_name = "URL")]
    check: Option<String>,
    /// Print one JSON object with every figure instead of text.
    #[arg(long)]
    json: bool,
    /// Write --count corpus datagrams to FILE and exit without sending anything.
    #[arg(
        long,
        value_name = "FILE",
        requires = "count",
        conflicts_with = "check"
    )]
    write_replay: Option<PathBuf>,
    /// Be the receiving end instead: bind this loopback address (port 0: any free port, printed
    /// on stderr) and receive as pinbad's receivers do, with pinbad's default recvmmsg batch and
    /// receive buffer, doing nothing with the datagrams. Stops after --count datagrams, after
    /// --duration (10 s when neither is given), or a second after the last datagram, and prints
    /// the CPU this process spent per datagram: the null server, the kernel's share of any UDP
    /// server's cost on this machine (benches/e2e.sh NULL=on sets pinbad's figure against it).
    #[arg(long, value_name = "ADDR", conflicts_with_all = ["replay", "write_replay", "check"])]
    receive: Option<String>,
    /// Senders, each on a socket of its own (another source port: another flow, which a server
    /// with several `SO_REUSEPORT` sockets may give to another of them), each at `--rate / N`
    /// and `--count / N`, starting at its own place in the pool. 1 to 64.
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u16).range(1..=64))]
    senders: u16,
    /// With --receive: receiver threads, each on a `SO_REUSEPORT` socket of its own (as pinbad
    /// binds `udp.readers`), so that the null server spreads as pinbad does. 1 to 64.
    #[arg(long, default_value = "1", value_parser = clap::value_parser!(u16).range(1..=64), requires = "receive")]
    readers: u16,
}

/// Why the run failed, which decides the exit code.
enum Failure {
    /// Bad arguments (exit 2).
    Usage(String),
    /// Something went wrong while running (exit 1).
    Runtime(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Runtime(e)
    }
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("pinbad-blast: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(e)) => {
            eprintln!("pinbad-blast: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(args: Args) -> Result<(), Failure> {
    let spec = CorpusSpec {
        seed: args.seed,
        scripts: args.scripts,
        hosts: args.hosts,
        servers: args.servers,
        tag_values: args.tag_values,
        min_timers: args.min_timers,
        max_timers: args.max_timers,
        ..CorpusSpec::default()
    };
    if spec.min_timers > spec.max_timers {
        return Err(Failure::Usage(format!(
            "--min-timers {} is larger than --max-timers {}",
            spec.min_timers, spec.max_timers
        )));
    }
    if let Some(path) = &args.write_replay {
        // `requires = "count"` guarantees the count.
        let count = args.count.unwrap_or(0);
        return write_corpus_replay(spec, count, path, args.json).map_err(Failure::Runtime);
    }

    let limit = Limit {
        count: args.count,
        duration: match (args.count, args.duration) {
            (None, None) => Some(Duration::from_secs(10)),
            (_, d) => d,
        },
    };
    if let Some(addr) = &args.receive {
        let addr = loopback_address(addr, "receive address").map_err(Failure::Usage)?;
        return receive(addr, args.readers as usize, limit, args.json).map_err(Failure::Runtime);
    }

    let target = loopback_address(&args.target, "target").map_err(Failure::Usage)?;
    let check_url = match &args.check {
        Some(url) => Some(loopback_url(url).map_err(Failure::Usage)?),
        None => None,
    };
    let pool = match &args.replay {
        Some(path) => {
            let datagrams = corpus::read_replay(path)
                .with_context(|| format!("reading replay file {}", path.display()))?;
            if datagrams.is_empty() {
                return Err(Failure::Usage(format!(
                    "replay file {} holds no datagrams",
                    path.display()
                )));
            }
            Pool::from_datagrams(&datagrams)
        }
        None => {
            let size = args.pool.min(args.count.unwrap_or(u64::MAX)).max(1);
            Pool::from_corpus(spec, usize::try_from(size).unwrap_or(usize::MAX))
        }
    };

    let before = match &check_url {
        Some(url) => Some(
            fetch_status(url).with_context(|| format!("reading {url}/api/v1/status (before)"))?,
        ),
        None => None,
    };
    let sent = blast_from(
        target,
        args.senders as usize,
        &pool,
        args.rate,
        args.batch,
        limit,
    )?;
    let server = match (&check_url, before) {
        (Some(url), Some(before)) => Some(settle(url, before)?),
        _ => None,
    };

    let report = Report {
        target,
        rate: args.rate,
        batch: effective_batch(args.rate, args.batch),
        pool_datagrams: pool.len(),
        pool_mean_bytes: pool.mean_bytes(),
        sent,
        server,
    };
    if args.json {
        println!("{}", report.to_json());
    } else {
        report.print_text();
    }
    if report.sent.packets == 0 && report.sent.errors() > 0 {
        return Err(Failure::Runtime(anyhow::anyhow!(
            "nothing could be sent to {target} ({} send errors)",
            report.sent.errors()
        )));
    }
    Ok(())
}

/// `--write-replay FILE --count N`: stream N corpus datagrams into FILE.
fn write_corpus_replay(
    spec: CorpusSpec,
    count: u64,
    path: &std::path::Path,
    json: bool,
) -> anyhow::Result<()> {
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut out = BufWriter::new(file);
    let mut corpus = Corpus::new(spec);
    let mut buf = Vec::new();
    let mut bytes = 0u64;
    for _ in 0..count {
        corpus.next_datagram(&mut buf);
        bytes += buf.len() as u64;
        corpus::write_replay_record(&mut out, &buf)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    out.flush()
        .with_context(|| format!("writing {}", path.display()))?;
    let mean = if count == 0 {
        0.0
    } else {
        bytes as f64 / count as f64
    };
    if json {
        let v = serde_json::json!({
            "replay_file": path.display().to_string(),
            "datagrams": count,
            "datagram_bytes": bytes,
            "mean_datagram_bytes": mean,
        });
        println!("{v}");
    } else {
        println!(
            "wrote {count} datagrams ({bytes} B, mean {mean:.1} B) to {}",
            path.display()
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Argument parsing and the loopback-only guard.

/// A non-negative integer, with optional `_` separators and a k/M/G (×1000) suffix.
fn parse_count(s: &str) -> Result<u64, String> {
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    let (digits, mult) = match t.as_bytes().last() {
        Some(b'k' | b'K') => (&t[..t.len() - 1], 1_000),
        Some(b'm' | b'M') => (&t[..t.len() - 1], 1_000_000),
        Some(b'g' | b'G') => (&t[..t.len() - 1], 1_000_000_000),
        _ => (t.as_str(), 1),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a non-negative integer (examples: 5000, 100k, 1M)"))?;
    n.checked_mul(mult)
        .ok_or_else(|| format!("'{s}' is too large"))
}

fn parse_size(s: &str) -> Result<usize, String> {
    let n = parse_count(s)?;
    usize::try_from(n).map_err(|_| format!("'{s}' is too large"))
}

fn parse_batch(s: &str) -> Result<usize, String> {
    match parse_size(s)? {
        n @ 1..=MAX_BATCH => Ok(n),
        _ => Err(format!(
            "'{s}' is not a batch size between 1 and {MAX_BATCH}"
        )),
    }
}

/// "10s", "500ms", "2m", or a bare number of seconds; must be positive.
fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let d = match t.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Duration::from_secs_f64(secs),
        Ok(_) => return Err(format!("'{s}' is not a valid duration")),
        Err(_) => humantime::parse_duration(t)
            .map_err(|e| format!("'{s}' is not a duration ({e}); examples: 10s, 500ms, 2m"))?,
    };
    if d.is_zero() {
        return Err("the duration must be positive".to_string());
    }
    Ok(d)
}

/// True for 127.0.0.0/8, ::1 and ::ffff:127.x.y.z.
fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// Parse `--target` or `--receive` (`role` names which): an IP:port, or `localhost:port`
/// resolved to a loopback address. Anything that is not loopback is refused: this tool must
/// never send anywhere else, nor listen anywhere else.
fn loopback_address(s: &str, role: &str) -> Result<SocketAddr, String> {
    let refuse = |what: &str| {
        format!("refusing {role} '{s}': {what}; pinbad-blast only uses loopback (127.0.0.0/8, ::1)")
    };
    if let Ok(addr) = s.parse::<SocketAddr>() {
        return if is_loopback(addr.ip()) {
            Ok(addr)
        } else {
            Err(refuse("not a loopback address"))
        };
    }
    let (host, _) = s
        .rsplit_once(':')
        .ok_or_else(|| format!("'{s}' is not HOST:PORT (example: 127.0.0.1:30002)"))?;
    if !host.eq_ignore_ascii_case("localhost") {
        return Err(refuse("only IP addresses and localhost are accepted"));
    }
    let addrs = s
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve '{s}': {e}"))?;
    addrs
        .into_iter()
        .find(|a| is_loopback(a.ip()))
        .ok_or_else(|| refuse("localhost does not resolve to a loopback address"))
}

/// Check a `--check` URL: plain http to a loopback IP or localhost. Returns it without a trailing
/// slash.
fn loopback_url(url: &str) -> Result<String, String> {
    let refuse = |what: &str| format!("refusing --check '{url}': {what}");
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| refuse("only http:// URLs are supported"))?;
    let authority = rest.split('/').next().unwrap_or("");
    if authority.contains('@') {
        return Err(refuse("user information is not supported"));
    }
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    let ok =
        host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(is_loopback);
    if !ok {
        return Err(refuse(
            "the host must be loopback (127.0.0.0/8, ::1, localhost)",
        ));
    }
    Ok(url.trim_end_matches('/').to_string())
}

// ---------------------------------------------------------------------------------------------
// The pool of datagrams.

/// All datagrams back to back in one buffer (one allocation, cache-friendly to cycle through).
struct Pool {
    bytes: Vec<u8>,
    /// `(start, end)` of each datagram in `bytes`.
    spans: Vec<(usize, usize)>,
}

impl Pool {
    fn from_corpus(spec: CorpusSpec, n: usize) -> Pool {
        let mut corpus = Corpus::new(spec);
        let mut pool = Pool {
            bytes: Vec::with_capacity(n.saturating_mul(600)),
            spans: Vec::with_capacity(n),
        };
        let mut buf = Vec::new();
        for _ in 0..n {
            corpus.next_datagram(&mut buf);
            pool.push(&buf);
        }
        pool
    }

    fn from_datagrams(datagrams: &[Vec<u8>]) -> Pool {
        let mut pool = Pool {
            bytes: Vec::with_capacity(datagrams.iter().map(Vec::len).sum()),
            spans: Vec::with_capacity(datagrams.len()),
        };
        for d in datagrams {
            pool.push(d);
        }
        pool
    }

    fn push(&mut self, datagram: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(datagram);
        self.spans.push((start, self.bytes.len()));
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    fn get(&self, i: usize) -> &[u8] {
        let (start, end) = self.spans[i];
        &self.bytes[start..end]
    }

    fn mean_bytes(&self) -> f64 {
        if self.spans.is_empty() {
            0.0
        } else {
            self.bytes.len() as f64 / self.spans.len() as f64
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sending.

/// When to stop: whichever limit is reached first (at least one is always set).
#[derive(Clone, Copy, Debug)]
struct Limit {
    count: Option<u64>,
    duration: Option<Duration>,
}

/// What the send loop did.
#[derive(Debug, Default)]
struct SendStats {
    packets: u64,
    bytes: u64,
    seconds: f64,
    /// sendmmsg calls that failed with EAGAIN/EWOULDBLOCK (retried).
    eagain: u64,
    /// ... with ENOBUFS (retried).
    enobufs: u64,
    /// ... with ECONNREFUSED: an ICMP port-unreachable came back, nobody listens (retried).
    refused: u64,
    /// ... with anything else (the datagram at fault is skipped).
    other: u64,
    /// Datagrams given up on: a batch still failing after the retries, or skipped on error.
    dropped: u64,
}

impl SendStats {
    fn errors(&self) -> u64 {
        self.eagain + self.enobufs + self.refused + self.other
    }

    fn pps(&self) -> f64 {
        if self.seconds > 0.0 {
            self.packets as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// A UDP socket bound to loopback and connected to `target`, non-blocking, with a large send
/// buffer so that bursts do not hit EAGAIN.
fn connect(target: SocketAddr) -> io::Result<UdpSocket> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(
        Domain::for_address(target),
        Type::DGRAM,
        Some(Protocol::UDP),
    )?;
    // Best effort: the kernel caps it at net.core.wmem_max.
    let _ = socket.set_send_buffer_size(4 << 20);
    let local: SocketAddr = match target {
        SocketAddr::V4(_) => (std::net::Ipv4Addr::LOCALHOST, 0).into(),
        SocketAddr::V6(_) => (std::net::Ipv6Addr::LOCALHOST, 0).into(),
    };
    socket.bind(&local.into())?;
    socket.connect(&target.into())?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// Reusable `iovec`/`mmsghdr` arrays for [`send_batch`].
struct Mmsg {
    iov: Vec<libc::iovec>,
    hdr: Vec<libc::mmsghdr>,
}

impl Mmsg {
    fn new() -> Mmsg {
        Mmsg {
            iov: Vec::with_capacity(MAX_BATCH),
            hdr: Vec::with_capacity(MAX_BATCH),
        }
    }
}

/// Send `datagrams` (at most [`MAX_BATCH`]) with one `sendmmsg` on the connected `socket`.
/// Returns how many were sent, counting from the first; an error means the first one failed.
fn send_batch(socket: &UdpSocket, scratch: &mut Mmsg, datagrams: &[&[u8]]) -> io::Result<usize> {
    let n = datagrams.len().min(MAX_BATCH);
    scratch.iov.clear();
    scratch.hdr.clear();
    scratch
        .iov
        .extend(datagrams[..n].iter().map(|d| libc::iovec {
            // The kernel only reads through this pointer (sendmmsg never writes to the payload).
            iov_base: d.as_ptr() as *mut libc::c_void,
            iov_len: d.len(),
        }));
    let iov = scratch.iov.as_mut_ptr();
    for i in 0..n {
        // SAFETY: mmsghdr is a plain C struct of integers and pointers, for which all-zero bytes
        // are a valid value (null name and control, no flags); musl's private padding included.
        let mut hdr: libc::mmsghdr = unsafe { std::mem::zeroed() };
        // SAFETY (pointer arithmetic): i < n == scratch.iov.len(), within the same allocation.
        hdr.msg_hdr.msg_iov = unsafe { iov.add(i) };
        hdr.msg_hdr.msg_iovlen = 1;
        scratch.hdr.push(hdr);
    }
    // SAFETY: `hdr` holds n initialised headers, each pointing at one iovec in `scratch.iov`,
    // which points into `datagrams`; all of them outlive this call and are not moved during it.
    // The socket is connected, so msg_name is null. The kernel writes only `msg_len` fields.
    let rc = unsafe {
        libc::sendmmsg(
            socket.as_raw_fd(),
            scratch.hdr.as_mut_ptr(),
            n as libc::c_uint,
            0,
        )
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc as usize)
    }
}

/// The batch size actually used: at a low rate, smaller batches sent more often (about 1000 per
/// second at most) so that the traffic is smooth rather than bursty.
fn effective_batch(rate: u64, batch: usize) -> usize {
    if rate > 0 {
        batch.min(usize::try_from(rate / 1000).unwrap_or(usize::MAX).max(1))
    } else {
        batch
    }
}

/// The send loop: cycle through `pool` in batches, paced to `rate` packets per second (0 = flat
/// out) against a schedule anchored at the start, until `limit`.
/// [`blast`] from `senders` sockets at once, each its own thread with its share of the rate and
/// of the count, starting at its own place in the pool; their figures summed (the time: the
/// longest).
fn blast_from(
    target: SocketAddr,
    senders: usize,
    pool: &Pool,
    rate: u64,
    batch: usize,
    limit: Limit,
) -> anyhow::Result<SendStats> {
    let share = |total: u64, i: u64| total / senders as u64 + u64::from(i < total % senders as u64);
    let runs: Vec<anyhow::Result<SendStats>> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..senders as u64)
            .map(|i| {
                let limit = Limit {
                    count: limit.count.map(|c| share(c, i)),
                    ..limit
                };
                let rate = share(rate, i).max(u64::from(rate > 0));
                let start = pool.len() * i as usize / senders;
                scope.spawn(move || {
                    let socket = connect(target)
                        .with_context(|| format!("opening a UDP socket to {target}"))?;
                    blast(&socket, pool, rate, batch, limit, start)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| {
                t.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a sender panicked")))
            })
            .collect()
    });
    let mut total = SendStats::default();
    for run in runs {
        let s = run?;
        total.packets += s.packets;
        total.bytes += s.bytes;
        total.seconds = total.seconds.max(s.seconds);
        total.eagain += s.eagain;
        total.enobufs += s.enobufs;
        total.refused += s.refused;
        total.other += s.other;
        total.dropped += s.dropped;
    }
    Ok(total)
}

fn blast(
    socket: &UdpSocket,
    pool: &Pool,
    rate: u64,
    batch: usize,
    limit: Limit,
    start_at: usize,
) -> anyhow::Result<SendStats> {
    if pool.len() == 0 {
        bail!("no datagrams to send");
    }
    let batch = effective_batch(rate, batch);
    let mut stats = SendStats::default();
    let mut scratch = Mmsg::new();
    let mut slices: Vec<&[u8]> = Vec::with_capacity(batch);
    let mut next = start_at % pool.len().max(1); // pool index of the next datagram
    let mut attempted = 0u64; // sent + dropped: what the schedule and --count count
    let start = Instant::now();
    let deadline = limit.duration.map(|d| start + d);

    loop {
        let remaining = match limit.count {
            Some(count) if attempted >= count => break,
            Some(count) => count - attempted,
            None => u64::MAX,
        };
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            break;
        }
        if rate > 0 {
            let due = start + Duration::from_secs_f64(attempted as f64 / rate as f64);
            if due > now {
                let wake = deadline.map_or(due, |d| due.min(d));
                std::thread::sleep(wake - now);
                continue;
            }
        }

        let n = (batch as u64).min(remaining) as usize;
        slices.clear();
        for _ in 0..n {
            slices.push(pool.get(next));
            next = (next + 1) % pool.len();
        }

        let mut off = 0;
        let mut retries = 0u32;
        while off < n {
            match send_batch(socket, &mut scratch, &slices[off..n]) {
                Ok(k) => {
                    stats.packets += k as u64;
                    stats.bytes += slices[off..off + k]
                        .iter()
                        .map(|d| d.len() as u64)
                        .sum::<u64>();
                    off += k;
                    retries = 0;
                }
                Err(e) => {
                    match e.raw_os_error() {
                        Some(libc::EINTR) => continue,
                        Some(libc::EAGAIN) => stats.eagain += 1,
                        Some(libc::ENOBUFS) => stats.enobufs += 1,
                        Some(libc::ECONNREFUSED) => stats.refused += 1,
                        _ => {
                            // EMSGSIZE and the like: this datagram will never go; skip it.
                            stats.other += 1;
                            stats.dropped += 1;
                            off += 1;
                            continue;
                        }
                    }
                    retries += 1;
                    if retries > RETRY_LIMIT || deadline.is_some_and(|d| Instant::now() >= d) {
                        stats.dropped += (n - off) as u64;
                        break;
                    }
                    // Brief back-off: 20 µs doubling to 1 ms.
                    let wait_us = (20u64 << retries.min(6)).min(1000);
                    std::thread::sleep(Duration::from_micros(wait_us));
                }
            }
        }
        attempted += n as u64;
    }
    stats.seconds = start.elapsed().as_secs_f64();
    Ok(stats)
}

// ---------------------------------------------------------------------------------------------
// --receive: the null server.

/// `--receive` ends this long after the last datagram: the sender has stopped.
const RECEIVE_QUIET_END: Duration = Duration::from_secs(1);

/// User and system CPU this process has used so far (getrusage).
fn process_cpu() -> (Duration, Duration) {
    // SAFETY: getrusage fills the zeroed struct it is given; RUSAGE_SELF is always valid.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut r) };
    let d = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (d(r.ru_utime), d(r.ru_stime))
}

/// `--receive ADDR`: receives as pinbad does and drops everything
/// ([`pinbad::receiver::discard`]), then prints what that cost per datagram. The CPU is counted
/// from the end of the first `recvmmsg` call that brought datagrams to the end of the run (the
/// quiet second after the last one costs a few polls), over the datagrams received after that
/// first call: the figure of the steady flow, not of the wait before it.
fn receive(addr: SocketAddr, readers: usize, limit: Limit, json: bool) -> anyhow::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let udp = pinbad::config::Config::default().udp;
    let group = pinbad::receiver::bind_group(addr, readers, udp.recv_buffer.0 as usize)
        .with_context(|| format!("binding {addr}"))?;
    let bound = &group[0];
    eprintln!("pinbad-blast: receiving on {}", bound.local_addr);
    let started = Instant::now();
    // Across the readers: datagrams so far, the last time one came (ns since `started`), and
    // at the first call that brought datagrams: when, the CPU used, the datagrams so far.
    let total = AtomicU64::new(0);
    let last_ns = AtomicU64::new(0);
    type First = Option<(Instant, (Duration, Duration), u64)>;
    let first: parking_lot::Mutex<First> = parking_lot::Mutex::new(None);
    let seen: Vec<pinbad::receiver::Discarded> = std::thread::scope(|scope| {
        let threads: Vec<_> = group
            .iter()
            .map(|b| {
                let (total, last_ns, first) = (&total, &last_ns, &first);
                scope.spawn(move || {
                    let mut mine = 0u64;
                    pinbad::receiver::discard(&b.socket, udp.batch, |s| {
                        let now = Instant::now();
                        let new = s.datagrams - mine;
                        mine = s.datagrams;
                        let all = if new > 0 {
                            last_ns.fetch_max((now - started).as_nanos() as u64, Relaxed);
                            let all = total.fetch_add(new, Relaxed) + new;
                            let mut f = first.lock();
                            if f.is_none() {
                                *f = Some((now, process_cpu(), all));
                            }
                            all
                        } else {
                            total.load(Relaxed)
                        };
                        let last = started + Duration::from_nanos(last_ns.load(Relaxed));
                        limit.count.is_some_and(|c| all >= c)
                            || limit.duration.is_some_and(|d| now - started >= d)
                            || (all > 0 && now - last >= RECEIVE_QUIET_END)
                    })
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_default())
            .collect()
    });
    let seen = seen
        .iter()
        .fold(pinbad::receiver::Discarded::default(), |a, s| {
            pinbad::receiver::Discarded {
                datagrams: a.datagrams + s.datagrams,
                bytes: a.bytes + s.bytes,
                calls: a.calls + s.calls,
            }
        });
    let last = started + Duration::from_nanos(last_ns.load(Relaxed));
    let (user1, system1) = process_cpu();
    let (seconds, measured, user_us, system_us) = match first.into_inner() {
        Some((at, (user0, system0), before)) => (
            (last - at).as_secs_f64(),
            seen.datagrams - before,
            (user1 - user0).as_secs_f64() * 1e6,
            (system1 - system0).as_secs_f64() * 1e6,
        ),
        None => (0.0, 0, 0.0, 0.0),
    };
    let per = |us: f64| (measured > 0).then(|| us / measured as f64);
    let per_call = (seen.calls > 0).then(|| seen.datagrams as f64 / seen.calls as f64);
    if json {
        let v = serde_json::json!({
            "mode": "receive",
            "address": bound.local_addr.to_string(),
            "readers": group.len(),
            "recv_buffer_bytes": bound.recv_buffer_bytes,
            "batch": udp.batch,
            "received": seen.datagrams,
            "bytes": seen.bytes,
            "calls": seen.calls,
            "datagrams_per_call": per_call,
            "measured_datagrams": measured,
            "seconds": seconds,
            "pps": (seconds > 0.0).then(|| measured as f64 / seconds),
            "cpu_user_us_per_datagram": per(user_us),
            "cpu_system_us_per_datagram": per(system_us),
            "cpu_us_per_datagram": per(user_us + system_us),
        });
        println!("{v}");
    } else {
        println!(
            "received {} datagrams ({} B) on {} in {} recvmmsg calls ({:.1} per call)",
            seen.datagrams,
            seen.bytes,
            bound.local_addr,
            seen.calls,
            per_call.unwrap_or(0.0)
        );
        if let (Some(u), Some(s)) = (per(user_us), per(system_us)) {
            println!(
                "CPU per datagram over the last {measured} ({seconds:.1} s): {:.3} µs \
                 (user {u:.3}, system {s:.3})",
                u + s
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// --check: pinbad's counters before and after.

/// The `/api/v1/status` figures used to measure loss.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Status {
    packets_received: u64,
    requests_accepted: u64,
    kernel_drops: Option<u64>,
    temp_pool_dropped: Option<u64>,
}

fn fetch_status(url: &str) -> anyhow::Result<Status> {
    // Generous: a daemon at its limit answers slowly, and that is what is being measured.
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .build();
    let body = agent
        .get(&format!("{url}/api/v1/status"))
        .call()?
        .into_string()?;
    let v: serde_json::Value = serde_json::from_str(&body).context("status is not JSON")?;
    let field = |name: &str| v.get(name).and_then(serde_json::Value::as_u64);
    Ok(Status {
        packets_received: field("packets_received")
            .context("status has no integer packets_received")?,
        requests_accepted: field("requests_accepted")
            .context("status has no integer requests_accepted")?,
        kernel_drops: field("kernel_drops"),
        temp_pool_dropped: field("temp_pool_dropped"),
    })
}

/// What the server saw of this run.
#[derive(Debug)]
struct ServerFigures {
    before: Status,
    after: Status,
    settle_seconds: f64,
}

/// Poll the status until its counters stop changing (or [`SETTLE_MAX`]), then return the figures.
fn settle(url: &str, before: Status) -> anyhow::Result<ServerFigures> {
    let start = Instant::now();
    let mut last = fetch_status(url).with_context(|| format!("reading {url}/api/v1/status"))?;
    while start.elapsed() < SETTLE_MAX {
        std::thread::sleep(SETTLE_POLL);
        let now = fetch_status(url).with_context(|| format!("reading {url}/api/v1/status"))?;
        let stable = now.packets_received == last.packets_received
            && now.requests_accepted == last.requests_accepted;
        last = now;
        if stable {
            break;
        }
    }
    Ok(ServerFigures {
        before,
        after: last,
        settle_seconds: start.elapsed().as_secs_f64(),
    })
}

impl ServerFigures {
    fn received(&self) -> i64 {
        self.after.packets_received as i64 - self.before.packets_received as i64
    }

    fn accepted(&self) -> i64 {
        self.after.requests_accepted as i64 - self.before.requests_accepted as i64
    }

    fn delta(before: Option<u64>, after: Option<u64>) -> Option<i64> {
        Some(after? as i64 - before? as i64)
    }
}

// ---------------------------------------------------------------------------------------------
// Output.

struct Report {
    target: SocketAddr,
    rate: u64,
    batch: usize,
    pool_datagrams: usize,
    pool_mean_bytes: f64,
    sent: SendStats,
    server: Option<ServerFigures>,
}

impl Report {
    /// Packets sent that the server did not count as received, and the percentage of those sent.
    fn loss(&self) -> Option<(i64, f64)> {
        let server = self.server.as_ref()?;
        let loss = self.sent.packets as i64 - server.received();
        let percent = if self.sent.packets > 0 {
            100.0 * loss as f64 / self.sent.packets as f64
        } else {
            0.0
        };
        Some((loss, percent))
    }

    fn to_json(&self) -> serde_json::Value {
        let s = &self.sent;
        let mut v = serde_json::json!({
            "target": self.target.to_string(),
            "rate_requested_pps": self.rate,
            "batch": self.batch,
            "pool_datagrams": self.pool_datagrams,
            "pool_mean_bytes": self.pool_mean_bytes,
            "packets_sent": s.packets,
            "bytes_sent": s.bytes,
            "seconds": s.seconds,
            "pps": s.pps(),
            "send_errors": s.errors(),
            "send_errors_by_kind": {
                "eagain": s.eagain, "enobufs": s.enobufs, "refused": s.refused, "other": s.other,
            },
            "packets_dropped": s.dropped,
        });
        if let (Some(server), Some((loss, percent))) = (&self.server, self.loss()) {
            let extra = serde_json::json!({
                "received": server.received(),
                "accepted": server.accepted(),
                "loss_packets": loss,
                "loss_percent": percent,
                "kernel_drops": ServerFigures::delta(server.before.kernel_drops, server.after.kernel_drops),
                "temp_pool_dropped": ServerFigures::delta(server.before.temp_pool_dropped, server.after.temp_pool_dropped),
                "settle_seconds": server.settle_seconds,
            });
            if let (Some(obj), serde_json::Value::Object(extra)) = (v.as_object_mut(), extra) {
                obj.extend(extra);
            }
        }
        v
    }

    fn print_text(&self) {
        let s = &self.sent;
        println!(
            "target   {} (rate {}, batch {}), pool of {} datagrams, mean {:.1} B",
            self.target,
            if self.rate == 0 {
                "max".to_string()
            } else {
                format!("{} pps", self.rate)
            },
            self.batch,
            self.pool_datagrams,
            self.pool_mean_bytes
        );
        println!(
            "sent     {} packets, {} bytes in {:.3} s: {:.0} pps, {:.1} Mbit/s",
            s.packets,
            s.bytes,
            s.seconds,
            s.pps(),
            s.bytes as f64 * 8.0 / s.seconds.max(1e-9) / 1e6
        );
        println!(
            "errors   {} (eagain {}, enobufs {}, refused {}, other {}), {} packets dropped",
            s.errors(),
            s.eagain,
            s.enobufs,
            s.refused,
            s.other,
            s.dropped
        );
        if s.refused > 0 {
            println!(
                "         (refused: ICMP port unreachable came back; is anything listening on {}?)",
                self.target
            );
        }
        if let (Some(server), Some((loss, percent))) = (&self.server, self.loss()) {
            println!(
                "pinbad   received {}, accepted {}, loss {} ({:.3} %) after {:.1} s to settle",
                server.received(),
                server.accepted(),
                loss,
                percent,
                server.settle_seconds
            );
            let kernel =
                ServerFigures::delta(server.before.kernel_drops, server.after.kernel_drops);
            let temp = ServerFigures::delta(
                server.before.temp_pool_dropped,
                server.after.temp_pool_dropped,
            );
            if kernel.is_some() || temp.is_some() {
                println!(
                    "         kernel_drops {}, temp_pool_dropped {}",
                    kernel.map_or("-".to_string(), |d| d.to_string()),
                    temp.map_or("-".to_string(), |d| d.to_string())
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_durations_parse() {
        assert_eq!(parse_count("1000"), Ok(1000));
        assert_eq!(parse_count("100k"), Ok(100_000));
        assert_eq!(parse_count("1_000_000"), Ok(1_000_000));
        assert_eq!(parse_count("2M"), Ok(2_000_000));
        assert!(parse_count("-1").is_err());
        assert!(parse_count("ten").is_err());
        assert!(parse_count("99999999999999999999").is_err());
        assert_eq!(parse_batch("64"), Ok(64));
        assert!(parse_batch("0").is_err());
        assert!(parse_batch("2000").is_err());
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2.5"), Ok(Duration::from_millis(2500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-3").is_err());
    }

    #[test]
    fn only_loopback_targets() {
        assert!(loopback_address("127.0.0.1:30002", "target").is_ok());
        assert!(loopback_address("127.1.2.3:1", "target").is_ok());
        assert!(loopback_address("[::1]:30002", "target").is_ok());
        assert!(loopback_address("[::ffff:127.0.0.1]:30002", "target").is_ok());
        for bad in [
            "0.0.0.0:30002",
            "10.0.0.1:30002",
            "8.8.8.8:53",
            "[::]:30002",
            "[2001:db8::1]:30002",
            "example.com:30002",
            "127.0.0.1",
        ] {
            assert!(loopback_address(bad, "target").is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn only_loopback_check_urls() {
        assert_eq!(
            loopback_url("http://127.0.0.1:30080/").as_deref(),
            Ok("http://127.0.0.1:30080")
        );
        assert!(loopback_url("http://[::1]:30080").is_ok());
        assert!(loopback_url("http://localhost:30080").is_ok());
        for bad in [
            "https://127.0.0.1:30080",
            "http://10.1.1.1:30080",
            "http://example.com",
            "http://127.0.0.1@evil.example:80",
            "127.0.0.1:30080",
        ] {
            assert!(loopback_url(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn sends_a_counted_burst_to_a_local_socket() {
        let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
        receiver
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let target = receiver.local_addr().unwrap();
        let pool = Pool::from_corpus(CorpusSpec::default(), 10);
        let socket = connect(target).unwrap();
        let limit = Limit {
            count: Some(25),
            duration: Some(Duration::from_secs(5)),
        };
        let stats = blast(&socket, &pool, 0, 8, limit, 0).unwrap();
        assert_eq!(stats.packets, 25);
        let mut buf = vec![0u8; 65536];
        for i in 0..25 {
            let n = receiver.recv(&mut buf).unwrap();
            assert_eq!(&buf[..n], pool.get(i % 10));
        }
    }
}
