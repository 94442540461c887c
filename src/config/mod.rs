//! Configuration: the TOML file, its defaults, CLI overrides and validation.
//!
//! In: a TOML file (every key documented with its default in `config/pinbad.toml`, which a test
//! parses) and CLI overrides. Out: a validated [`Config`]. Names follow pinba_engine where one
//! exists (`stats_history`, `request_pool_size`, ...). Unknown keys and invalid values are errors
//! that name the key: start-up stops with them, it never guesses.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::decode::DecodePolicy;
use crate::report::ReportDef;
mod history;
pub mod import;
pub mod mycnf;
mod mysql;
mod reqlog;
mod sink;
mod taps;

pub use crate::units::{ByteSize, HumanDuration};
pub use history::{HistorySpec, DEFAULT_HISTORY_ROWS, DEFAULT_HISTORY_STEP};
pub use mysql::MysqlConfig;
pub use reqlog::{
    LogGroup, RequestLogConfig, ServerThresholds, Thresholds, REQUEST_LOG_ENTRY_BYTES,
};
pub use sink::{writes_ticks_of, ClickHouseConfig, FileConfig, SinkConfig, SinkKind, TickReports};
pub use taps::{
    HistoryConfig, MetricsConfig, SnapshotConfig, TickLogConfig, DEFAULT_MAX_REPORT_ROWS,
    TICKLOG_MIN_BYTES,
};

/// Why a configuration was refused. The message always names the key (or the file).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("invalid value for `{key}`: {message}")]
    Invalid { key: String, message: String },
}

/// Why a bearer token cannot be used, if it cannot: a client sends it in a header, which holds
/// visible ASCII only (`HeaderValue::to_str`), so any other byte would make every request 401.
fn token_fault(token: &str) -> Option<&'static str> {
    token.bytes().any(|b| !b.is_ascii_graphic()).then_some(
        "must be visible ASCII characters only (no spaces, control or non-ASCII characters)",
    )
}

pub(crate) fn invalid(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        message: message.into(),
    }
}

/// What tells two sink paths apart as files: the path without its `.` components and doubled
/// slashes (`logs/r.ndjson` and `./logs//r.ndjson` are one file), and for an absolute path the
/// directory's real path where it exists (symbolic links and `..` resolved). Relative paths are
/// relative to the config file, which `Config::load` resolves before validating again.
fn same_file_key(path: &std::path::Path) -> std::path::PathBuf {
    let plain: std::path::PathBuf = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    match (plain.is_absolute(), plain.parent(), plain.file_name()) {
        (true, Some(dir), Some(name)) => dir.canonicalize().map_or(plain.clone(), |d| d.join(name)),
        _ => plain,
    }
}

/// The whole configuration. `Default` is the one place defaults live.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// How long a request stays in the pool and in every report.
    pub stats_history: HumanDuration,
    /// How often the merger moves received requests into the pool and reports.
    pub stats_gathering_period: HumanDuration,
    /// Slices of a report's window: it advances one tick (`history / report_ticks`, 15 s by
    /// default) at a time and covers between `history - tick` and `history`. More ticks: finer
    /// windows, more memory per row (one row per tick it appears in).
    pub report_ticks: u32,
    pub merge: MergeConfig,
    /// Requests the pool holds (64 B each, allocated at start-up); the oldest are overwritten.
    pub request_pool_size: usize,
    /// Timers the pool holds (20 B each).
    pub timer_pool_size: usize,
    /// Tag pairs the pool holds, request and timer tags together (8 B each).
    pub tag_pool_size: usize,
    /// Memory the temp ring between receivers and merger may hold: everything queued batches hold
    /// (datagram copies and decoded arrays). Beyond it batches are dropped (`temp_pool_dropped`).
    pub temp_pool_memory: ByteSize,
    /// Replaced by `temp_pool_memory`; present only to refuse it with a message saying so.
    #[serde(skip_serializing)]
    pub temp_pool_size: Option<toml::Value>,
    /// Where run-time report definitions are kept across restarts. Default: see
    /// [`default_state_dir`]; a relative path in a config file is relative to that file.
    pub state_dir: PathBuf,
    /// A group (name or number) that may read the state files: they are then created 0640 and
    /// the directory is given to the group (see `durable::restrict`); empty, they are 0600.
    pub state_dir_group: String,
    /// Whether `info` and the 20 `report_by_*` reports exist at start-up. A `[[report]]` of a
    /// built-in's name takes that built-in's place (logged at start).
    pub builtin_reports: bool,
    pub udp: UdpConfig,
    pub http: HttpConfig,
    /// `[mysql]`: the SQL front end (see `sql`).
    pub mysql: MysqlConfig,
    pub decode: DecodeConfig,
    pub limits: Limits,
    pub log: crate::logging::LogConfig,
    /// `GET /metrics` (see the `metrics` module).
    pub metrics: MetricsConfig,
    /// Extra reports (`[[report]]` tables).
    pub report: Vec<ReportDef>,
    /// Sinks (`[[sink]]` tables): where every merged request is written (see `sink`).
    pub sink: Vec<SinkConfig>,
    /// `[[rewrite]]` rules: names folded before they are interned (see `rewrite`).
    pub rewrite: Vec<crate::rewrite::RuleDef>,
    /// Report history (see `history`): the global switch.
    pub history: HistoryConfig,
    /// `[snapshot]`: the pool and the reports' windows kept across restarts (see `snapshot`).
    pub snapshot: SnapshotConfig,
    /// `[ticklog]`: closed report ticks kept across a crash (see `ticklog`).
    pub ticklog: TickLogConfig,
    /// `[request_log]`: the slowest, heaviest and failing requests kept per step (see `reqlog`).
    pub request_log: RequestLogConfig,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MergeConfig {
    /// Threads that update reports: the merger and `threads - 1` report workers, each report
    /// owned by one. 0 (the default): the machine's cores, at most 4, or on a host of more
    /// than 8 cores half of them, at most 8 ([`MergeConfig::threads`]).
    pub threads: usize,
    /// Merge shards: threads that each take batches from the temp ring, store their requests
    /// into the pool and prepare them for the reports, side by side (the merger and
    /// `shards - 1` "pinbad-shard-N"), their rounds handed to the report workers in the order of
    /// their times. One shard stores ~2M requests a second; more are for rates beyond ~1M/s on
    /// a host with cores to spare. 0: one per four readers ([`MergeConfig::shards`]).
    pub shards: usize,
    /// Whether start-up timer reports that are projections of one aggregate share its
    /// per-request work (see `report::family`). On by default; off only to measure what it saves.
    pub families: bool,
    /// Whether start-up request reports form families too (the 21 built-ins: projections of one
    /// (hostname, server, script, schema, status) aggregate). On by default: a member that
    /// queries read is updated on its own meanwhile (see `report::family`), so queries cost
    /// what they cost without families. Off where those 5-tuples hardly repeat within seconds
    /// (then the aggregate costs more than it folds).
    pub request_families: bool,
    /// Whether start-up timer reports keyed by different timer tags (with the same filters,
    /// window and request tags) share a stage keyed like the report whose keys include theirs,
    /// a **lattice** (see `report::lattice`): each timer updates one row of it, whatever the
    /// reports. Off by default: on this project's benchmarks it does not yet save what its
    /// folds cost (BENCHMARKS.md, "Report variety"); off, one family per set of timer tags.
    pub lattice: bool,
    /// Whether start-up reports whose definitions are equal but for their names share one
    /// table (see `report::set`, "shared tables"): each name answers queries, keeps its
    /// history and is written by sinks as before, and the rows are counted, closed and logged
    /// once. On by default; off only to measure what it saves.
    pub share_tables: bool,
    /// Whether a report updated alone, or a family's stage, whose cost is more than a merge
    /// thread's share is split over two merge threads, each counting a slice of each round,
    /// the second into a part folded in at the report's ticks and reads (see `report::split`),
    /// so that no report or stage is one core's work. On by default; off only to measure what
    /// it changes.
    pub split_reports: bool,
    /// How many steps of niceness the merge threads (the merger and the report workers) run
    /// below the rest of the daemon, 0–19 ([`MERGE_NICE_MAX`]). They are throughput work with
    /// seconds of slack (the temp ring); the receivers and the HTTP API are the latency work
    /// (a query's p99 falls with it, CPU per packet does not move: BENCHMARKS.md). Unset (the
    /// default): sized from the cores ([`MergeConfig::nice`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nice: Option<i32>,
    /// Requests the report workers may be behind the merge shards before the shards wait for
    /// them (the queue of prepared rounds every worker reads; each round weighs at least a
    /// quarter of a full one). Deep enough to ride out a tick's close at the host's rate: the
    /// rounds that close ticks cost tens of times a plain round, and not on every thread alike,
    /// so with a shallow queue the shards stop on a full one while a worker closes its ticks
    /// (`merge.waited_ms`), the temp ring fills behind them, and the worker later waits on an
    /// empty one. Not deeper than needed: queued rounds are read back from memory, beyond the
    /// caches, and each queued request is counted in `limits.max_memory`
    /// ([`QUEUED_REQUEST_BYTES`]). 0 (the default): sized from the readers
    /// ([`MergeConfig::queue_requests`]).
    pub queue_requests: usize,
}

/// The least automatic `merge.queue_requests` (one or two readers): 16 rounds of up to 1,024
/// requests (a 10 ms round holds ~1,000 at 100k/s; an idle round that only moves the windows
/// weighs as much), ~20 MB of prepared requests with the corpus's 9 timers (~1.2 KB each).
pub const MIN_AUTO_QUEUE_REQUESTS: usize = 16 << 10;

/// The most automatic `merge.queue_requests` (eight readers or more).
pub const MAX_AUTO_QUEUE_REQUESTS: usize = 256 << 10;

/// Highest `merge.queue_requests`: ~1.5 GB of prepared requests.
pub const MAX_QUEUE_REQUESTS: usize = 1 << 20;

/// Memory a request queued for the merge workers is counted for in `limits.max_memory`: a
/// prepared request (~1.2 KB with the corpus's 9 timers) and its share of the round. Counted
/// once: every worker reads the same rounds.
pub const QUEUED_REQUEST_BYTES: u64 = 1536;

/// Highest `merge.nice` (the kernel's lowest priority is nice 19).
pub const MERGE_NICE_MAX: i32 = 19;

impl Default for MergeConfig {
    fn default() -> MergeConfig {
        MergeConfig {
            threads: 0,
            shards: 0,
            families: true,
            request_families: true,
            lattice: false,
            share_tables: true,
            split_reports: true,
            nice: None,
            queue_requests: 0,
        }
    }
}

/// The automatic number of merge threads and of readers per address, for this machine's cores
/// ([`threads_for_cores`]).
fn automatic_threads() -> usize {
    threads_for_cores(std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Readers per address (and merge threads) for a host of `cores`: the cores, at most 4, up to 8
/// cores; past that, half the cores, at most 8. A small host's rate needs no more than 4 of
/// each, and each thread added costs hand-offs; a many-core host is there for a rate that
/// needs 8 readers and 8 merge threads (with a merge shard per four readers), and half its
/// cores leave the other half to the kernel's receive work, the shards and the senders on it.
fn threads_for_cores(cores: usize) -> usize {
    if cores <= 8 {
        cores.clamp(1, 4)
    } else {
        (cores / 2).min(8)
    }
}

/// The automatic `merge.nice` for a host of `cores`: 5 up to 8 cores, 0 past. Up to 8 cores the
/// readers and the merge threads ([`threads_for_cores`]) can take every core, and the queries
/// get one as soon as they wake only if the merge threads yield theirs. Past 8 the pipeline takes
/// half the cores and leaves the other half free for the queries, while a niced merge thread
/// loses its turns to the kernel's receive work and to whatever else the host runs: on a 16-core
/// host the merge threads waited 2.5–3.1 s of 6 for their turns at nice 5 and lost packets from
/// 1.5M/s, at nice 0 0.5–0.8 s and nothing lost up to 1.6M/s (BENCHMARKS.md, "Scaling out").
fn nice_for_cores(cores: usize) -> i32 {
    if cores <= 8 {
        5
    } else {
        0
    }
}

impl MergeConfig {
    /// The niceness of the merge threads: `nice`, or when unset [`nice_for_cores`] of this
    /// machine.
    pub fn nice(&self) -> i32 {
        self.nice.unwrap_or_else(|| {
            nice_for_cores(std::thread::available_parallelism().map_or(1, |n| n.get()))
        })
    }

    /// The merge threads to run: `threads`, or when 0 [`threads_for_cores`] of this machine.
    pub fn threads(&self) -> usize {
        match self.threads {
            0 => automatic_threads(),
            n => n,
        }
    }

    /// The report workers' queue (see [`MergeConfig::queue_requests`]): `queue_requests`, or
    /// when 0 16k requests × (readers / 2)², between 16k and 256k (`readers`: the busiest
    /// address's [`UdpConfig::readers`]). A tick's close takes about as long as its rows, which
    /// grow with the rate, and the requests arriving meanwhile grow with the rate again: the
    /// readers stand for the rate the host is sized for, so the queue grows with their square
    /// (2 readers: 16k, 4: 64k, 8: 256k).
    pub fn queue_requests(&self, readers: usize) -> usize {
        match self.queue_requests {
            0 => (MIN_AUTO_QUEUE_REQUESTS * (readers / 2).pow(2))
                .clamp(MIN_AUTO_QUEUE_REQUESTS, MAX_AUTO_QUEUE_REQUESTS),
            n => n,
        }
    }

    /// The merge shards to run: `shards`, or when 0 one per four readers of the busiest
    /// address (`readers`: [`UdpConfig::readers`]).
    pub fn shards(&self, readers: usize) -> usize {
        match self.shards {
            0 => readers.div_ceil(4).max(1),
            n => n,
        }
    }
}

impl UdpConfig {
    /// Receiver threads (and sockets) per address: `readers`, or when 0 [`threads_for_cores`]
    /// of this machine.
    pub fn readers(&self) -> usize {
        match self.readers {
            0 => automatic_threads(),
            n => n,
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct UdpConfig {
    /// Addresses to listen on. Each is checked free with an exclusive bind first, so a second
    /// server on the address fails at start instead of taking part of the datagrams; its readers
    /// then bind one `SO_REUSEPORT` socket each (see `receiver::bind_group`).
    pub listen: Vec<String>,
    /// Receiver threads per address, each with its own socket; 0: the machine's cores, at most 4,
    /// or past 8 cores half of them, at most 8 ([`UdpConfig::readers`]).
    pub readers: usize,
    /// SO_RCVBUF asked of the kernel per socket: how long the kernel holds datagrams while the
    /// receiver is off the CPU (at 100k/s, 8 MiB held ~95 ms and 32 MiB ~370 ms).
    pub recv_buffer: ByteSize,
    /// Datagrams per `recvmmsg` call.
    pub batch: usize,
    /// Source networks allowed to send (CIDR). Empty = everyone.
    pub allow: Vec<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    pub listen: String,
    /// Open connections at once. A new one beyond it takes the place of the connection that has
    /// waited longest for a request (a slow or idle one); when every connection is busy with a
    /// request it is closed at once (see `api::server`).
    pub max_connections: usize,
    /// Open connections one client (IP address) may hold; as above, a new one beyond it takes the
    /// place of that client's longest-waiting connection. At most `max_connections`.
    pub max_connections_per_client: usize,
    /// Connections kept beyond `max_connections` for `/healthz` and `/metrics`, for when every
    /// other connection is busy: one request each, any other path answered 503. 0: none.
    pub health_connections: usize,
    /// Heavy requests (raw scans, report queries and creations) running at once; beyond it the
    /// API answers 503 with `Retry-After`.
    pub max_concurrent_queries: usize,
    /// A client must send a request's whole header within this time.
    pub header_timeout: HumanDuration,
    /// A connection with nothing moving in either direction for this long is closed (idle
    /// keep-alive, a half-sent body, a client that stops reading).
    pub idle_timeout: HumanDuration,
    /// An answer not taken whole by its client within this time of its request is cut (its
    /// connection closed): what the answer holds is not held longer (`/api/v1/stream` excepted).
    pub answer_timeout: HumanDuration,
    /// Bearer token that every request but `/healthz`, `/metrics` and the dashboard's files
    /// needs (`Authorization: Bearer TOKEN`; reads too, unless `token_reads = false`). Empty: none.
    pub token: String,
    /// File holding the token (trimmed), instead of `token`.
    pub token_file: Option<PathBuf>,
    /// Whether reads (GET, HEAD) need the token: unset, they do whenever a token is set
    /// ([`HttpConfig::reads_need_token`]); `false` leaves them open, only changes need it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_reads: Option<bool>,
    /// Whether `/healthz` needs the token (a load balancer's probe seldom can send one).
    pub healthz_needs_token: bool,
    /// Whether `/metrics` needs the token (Prometheus sends it with `authorization`).
    pub metrics_needs_token: bool,
    /// Whether the dashboard's files (`/`, `/dashboard/*`, no data in them) need the token; the
    /// page asks for it when the API it reads answers 401 either way.
    pub dashboard_needs_token: bool,
}

impl HttpConfig {
    /// Whether a token is configured (`token` or `token_file`).
    pub fn has_token(&self) -> bool {
        !self.token.is_empty() || self.token_file.is_some()
    }

    /// Whether reads need the token: `token_reads` when set, else whether there is a token.
    pub fn reads_need_token(&self) -> bool {
        self.token_reads.unwrap_or_else(|| self.has_token())
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DecodeConfig {
    /// Accept requests that lack a required field (1–9), with empty/zero defaults.
    pub lenient_required: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    pub max_rows_per_report: usize,
    /// Reports that may exist at once (each costs merge time per request).
    pub max_reports: usize,
    pub max_dictionary_entries: usize,
    /// Memory the dictionary may hold (strings, entries, table); new strings beyond it are lost.
    pub max_dictionary_bytes: ByteSize,
    pub max_string_bytes: usize,
    pub max_timers_per_request: usize,
    pub max_tags_per_timer: usize,
    pub max_tags_per_request: usize,
    /// Largest `limit` a query may ask for.
    pub max_query_limit: usize,
    /// Largest `match=` regex, in bytes of compiled program.
    pub max_regex_bytes: usize,
    /// Largest HTTP request body (report definitions).
    pub max_body_bytes: usize,
    /// Clients of `/api/v1/stream` at once (0: the stream is off); one more gets a 503.
    pub max_stream_clients: usize,
    /// Bytes of lines waiting for one stream client to read them; beyond it lines are dropped
    /// (counted, and told to the client by a `{"dropped": N}` line).
    pub stream_buffer: ByteSize,
    /// Prometheus series the reports with `prometheus = true` may export together on `/metrics`.
    pub max_metric_series: usize,
    /// The memory budget: the raw pool, the temp ring and other buffers, the dictionary and the
    /// reports together (see `budget`).
    pub max_memory: MaxMemory,
}

/// `limits.max_memory`: `"auto"` (see [`MaxMemory::resolve`]) or a size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxMemory {
    Auto,
    Size(ByteSize),
}

/// Memory pinbad needs besides its pool, buffers, dictionary and reports, counted against
/// `limits.max_memory` from the start: its code, threads' stacks, the HTTP server and queries'
/// answers, the allocator's own slack.
pub const FIXED_OVERHEAD: u64 = 64 << 20;

/// Memory a follower shard's round may hold while it waits for its turn: a round of at most
/// 4,096 requests prepared (~1.2 KB each with the corpus's 9 timers), counted against
/// `limits.max_memory` from the start.
pub const SHARD_ROUND_BYTES: u64 = 6 << 20;

/// What `"auto"` leaves for the dictionary and the reports at least, beyond the reserved parts.
pub const MIN_DYNAMIC_MEMORY: u64 = 256 << 20;

/// What a set `limits.max_memory` must leave for the dictionary and the reports at least, beyond
/// the reserved parts: a few built-in reports' worth of rows.
pub const LEAST_DYNAMIC_MEMORY: u64 = 32 << 20;

impl MaxMemory {
    /// The budget in bytes, given what is reserved from the start (`reserved`: see
    /// [`Config::reserved_memory`]) and the memory the host gives this process (`host`, see
    /// `budget::host_memory`). `"auto"`: half of the host's memory, which leaves the rest to the
    /// page cache (history, the state files), the kernel's socket buffers and whatever else the
    /// host runs; but never less than `reserved` plus [`MIN_DYNAMIC_MEMORY`] (a small host keeps
    /// the pool it is configured with). Without a known host size, 4 GiB.
    pub fn resolve(self, reserved: u64, host: Option<u64>) -> u64 {
        match self {
            MaxMemory::Size(s) => s.0,
            MaxMemory::Auto => {
                (host.map_or(4 << 30, |h| h / 2)).max(reserved.saturating_add(MIN_DYNAMIC_MEMORY))
            }
        }
    }
}

impl Serialize for MaxMemory {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MaxMemory::Auto => s.serialize_str("auto"),
            MaxMemory::Size(b) => b.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for MaxMemory {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Auto(AutoWord),
            Size(ByteSize),
        }
        #[derive(Deserialize)]
        enum AutoWord {
            #[serde(rename = "auto")]
            Auto,
        }
        match Raw::deserialize(d) {
            Ok(Raw::Auto(AutoWord::Auto)) => Ok(MaxMemory::Auto),
            Ok(Raw::Size(b)) => Ok(MaxMemory::Size(b)),
            Err(_) => Err(serde::de::Error::custom(
                "limits.max_memory: expected \"auto\" or a size like \"4GiB\"",
            )),
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            stats_history: HumanDuration(Duration::from_secs(900)),
            stats_gathering_period: HumanDuration(Duration::from_millis(10)),
            report_ticks: crate::report::DEFAULT_TICKS,
            merge: MergeConfig::default(),
            request_pool_size: 1_000_000,
            timer_pool_size: 4_000_000,
            tag_pool_size: 12_000_000,
            temp_pool_memory: ByteSize(256 << 20),
            temp_pool_size: None,
            state_dir: default_state_dir(),
            state_dir_group: String::new(),
            builtin_reports: true,
            udp: UdpConfig::default(),
            http: HttpConfig::default(),
            mysql: MysqlConfig::default(),
            decode: DecodeConfig::default(),
            limits: Limits::default(),
            log: Default::default(),
            metrics: Default::default(),
            report: Vec::new(),
            sink: Vec::new(),
            rewrite: Vec::new(),
            history: Default::default(),
            snapshot: Default::default(),
            ticklog: Default::default(),
            request_log: Default::default(),
        }
    }
}

impl Default for UdpConfig {
    fn default() -> UdpConfig {
        UdpConfig {
            listen: vec!["0.0.0.0:30002".into(), "[::]:30002".into()],
            readers: 0,
            recv_buffer: ByteSize(32 << 20),
            batch: 64,
            allow: Vec::new(),
        }
    }
}

impl Default for HttpConfig {
    fn default() -> HttpConfig {
        HttpConfig {
            listen: "127.0.0.1:30080".into(),
            max_connections: 512,
            max_connections_per_client: 64,
            health_connections: 8,
            max_concurrent_queries: 4,
            header_timeout: HumanDuration(Duration::from_secs(5)),
            idle_timeout: HumanDuration(Duration::from_secs(60)),
            answer_timeout: HumanDuration(Duration::from_secs(120)),
            token: String::new(),
            token_file: None,
            token_reads: None,
            healthz_needs_token: false,
            metrics_needs_token: false,
            dashboard_needs_token: false,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_rows_per_report: 1_000_000,
            max_reports: 256,
            max_dictionary_entries: 4_000_000,
            max_dictionary_bytes: ByteSize(1 << 30),
            max_string_bytes: 1024,
            max_timers_per_request: 1000,
            max_tags_per_timer: 16,
            max_tags_per_request: 256,
            max_query_limit: 100_000,
            max_regex_bytes: 1 << 20,
            max_body_bytes: 64 << 10,
            max_stream_clients: 16,
            stream_buffer: ByteSize(4 << 20),
            max_metric_series: 100_000,
            max_memory: MaxMemory::Auto,
        }
    }
}

/// The state directory when none is configured, never relative to wherever the daemon was
/// started: `$STATE_DIRECTORY` (set by systemd's `StateDirectory=`), else `/var/lib/pinbad` for
/// root, else `$XDG_STATE_HOME/pinbad`, else `$HOME/.local/state/pinbad`, else
/// `/var/lib/pinbad`.
pub fn default_state_dir() -> PathBuf {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("STATE_DIRECTORY") {
        // systemd may list several, colon-separated: the first is ours.
        let first = dir
            .to_string_lossy()
            .split(':')
            .next()
            .unwrap_or("")
            .to_string();
        return PathBuf::from(first);
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return PathBuf::from("/var/lib/pinbad");
    }
    if let Some(dir) = var("XDG_STATE_HOME").filter(|d| d.is_absolute()) {
        return dir.join("pinbad");
    }
    match var("HOME") {
        Some(home) => home.join(".local/state/pinbad"),
        None => PathBuf::from("/var/lib/pinbad"),
    }
}

/// Overrides given on the command line; each replaces the file's value.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// Replaces the whole `udp.listen` list when not empty.
    pub udp: Vec<String>,
    pub http: Option<String>,
    /// `--mysql`: the SQL front end's address ("" turns it off).
    pub mysql: Option<String>,
    pub stats_history: Option<HumanDuration>,
    /// `--state-dir`, relative to the current directory.
    pub state_dir: Option<PathBuf>,
}

pub use crate::report::MAX_HISTORY;

/// The fewest `limits.max_metric_series`: the series of one request report row on `/metrics`
/// with the default buckets (`metrics::REQUEST_ROW_SERIES`, which a compile-time check keeps
/// equal to it).
pub const MIN_METRIC_SERIES: usize = 61;

/// Prometheus series of one row of an exported report whose histogram has `bounds` buckets
/// besides `+Inf` (its `prometheus_buckets`): a request row's 6 counters and its memory_peak
/// gauge (a timer row's 3 counters), then
/// the histogram's buckets with `+Inf`, its sum and its count. What `metrics` counts against
/// `limits.max_metric_series`.
pub const fn metric_row_series(timer: bool, bounds: usize) -> usize {
    (if timer { 3 } else { 7 }) + bounds + 1 + 2
}

impl Config {
    /// Reads, parses and validates a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.into(),
            source,
        })?;
        let config = Config::parse(&text).map_err(|e| match e {
            ConfigError::Parse { message, .. } => ConfigError::Parse {
                path: path.into(),
                message,
            },
            other => other,
        })?;
        let mut config = config;
        // Paths relative to the config file, not to wherever the daemon happens to be started
        // (systemd starts it in `/`): the state directory, the token file, the sinks' files.
        let base = path.parent().unwrap_or(Path::new("."));
        let base = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
        if config.state_dir.is_relative() {
            config.state_dir = base.join(&config.state_dir);
        }
        if let Some(f) = config.http.token_file.as_mut().filter(|f| f.is_relative()) {
            *f = base.join(&*f);
        }
        for s in &mut config.sink {
            s.resolve_paths(&base);
        }
        Ok(config)
    }

    /// Parses and validates TOML text.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: PathBuf::new(),
            message: e.to_string(),
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Applies CLI overrides, then validates again. A bad override is named by its flag
    /// (`--udp`, not the `udp.listen[0]` it replaced): the file may not even have that key.
    pub fn apply(mut self, o: &Overrides) -> Result<Config, ConfigError> {
        if !o.udp.is_empty() {
            check_udp_listen(&o.udp, &|_| "--udp".to_string())?;
            self.udp.listen = o.udp.clone();
        }
        if let Some(http) = &o.http {
            check_http_listen(http, "--http")?;
            self.http.listen = http.clone();
        }
        if let Some(mysql) = &o.mysql {
            mysql::check_listen(mysql, "--mysql")?;
            self.mysql.listen = mysql.clone();
        }
        if let Some(h) = o.stats_history {
            check_stats_history(h, "--stats-history")?;
            self.stats_history = h;
        }
        if let Some(dir) = &o.state_dir {
            self.state_dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
        }
        self.validate()?;
        Ok(self)
    }

    /// The merge shards to run (see [`MergeConfig::shards`]).
    pub fn merge_shards(&self) -> usize {
        self.merge.shards(self.udp.readers())
    }

    /// The report workers' queue, in requests (see [`MergeConfig::queue_requests`]).
    pub fn merge_queue_requests(&self) -> usize {
        self.merge.queue_requests(self.udp.readers())
    }

    /// Checks every value; the error names the first bad key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_stats_history(self.stats_history, "stats_history")?;
        let p = self.stats_gathering_period.0;
        if p < Duration::from_millis(1) || p > Duration::from_secs(10) {
            return Err(invalid(
                "stats_gathering_period",
                "must be between 1ms and 10s",
            ));
        }
        if self.merge.threads > 64 {
            return Err(invalid(
                "merge.threads",
                "must be between 0 (automatic) and 64",
            ));
        }
        if self.merge.shards > 64 {
            return Err(invalid(
                "merge.shards",
                "must be between 0 (automatic) and 64",
            ));
        }
        let queue = self.merge.queue_requests;
        if queue != 0 && !(1024..=MAX_QUEUE_REQUESTS).contains(&queue) {
            return Err(invalid(
                "merge.queue_requests",
                format!("{queue} is out of range 1024..={MAX_QUEUE_REQUESTS} (0: automatic)"),
            ));
        }
        if self.udp.readers > 64 {
            return Err(invalid(
                "udp.readers",
                format!("{} is out of range 0..=64 (0: automatic)", self.udp.readers),
            ));
        }
        if self
            .merge
            .nice
            .is_some_and(|n| !(0..=MERGE_NICE_MAX).contains(&n))
        {
            return Err(invalid("merge.nice", "must be between 0 and 19"));
        }
        for (key, v, max) in [
            ("request_pool_size", self.request_pool_size, 1usize << 31),
            ("timer_pool_size", self.timer_pool_size, u32::MAX as usize),
            ("tag_pool_size", self.tag_pool_size, u32::MAX as usize),
            ("report_ticks", self.report_ticks as usize, 3600),
            ("udp.batch", self.udp.batch, 1024),
            ("http.max_connections", self.http.max_connections, 1 << 20),
            (
                "http.max_connections_per_client",
                self.http.max_connections_per_client,
                1 << 20,
            ),
            (
                "http.max_concurrent_queries",
                self.http.max_concurrent_queries,
                1024,
            ),
            (
                "limits.max_rows_per_report",
                self.limits.max_rows_per_report,
                usize::MAX,
            ),
            ("limits.max_reports", self.limits.max_reports, 100_000),
            (
                "limits.max_dictionary_entries",
                self.limits.max_dictionary_entries,
                u32::MAX as usize - 1,
            ),
            (
                "limits.max_string_bytes",
                self.limits.max_string_bytes,
                65_535,
            ),
            (
                "limits.max_timers_per_request",
                self.limits.max_timers_per_request,
                u16::MAX as usize,
            ),
            (
                "limits.max_tags_per_timer",
                self.limits.max_tags_per_timer,
                1024,
            ),
            (
                "limits.max_tags_per_request",
                self.limits.max_tags_per_request,
                4096,
            ),
            (
                "limits.max_query_limit",
                self.limits.max_query_limit,
                10_000_000,
            ),
            (
                "limits.max_regex_bytes",
                self.limits.max_regex_bytes,
                64 << 20,
            ),
            (
                "limits.max_body_bytes",
                self.limits.max_body_bytes,
                64 << 20,
            ),
            (
                "limits.max_metric_series",
                self.limits.max_metric_series,
                100_000_000,
            ),
        ] {
            if v == 0 || v > max {
                return Err(invalid(key, format!("{v} is out of range 1..={max}")));
            }
        }
        // Fewer series than one row needs would export nothing at all.
        let row = MIN_METRIC_SERIES;
        if self.limits.max_metric_series < row {
            return Err(invalid(
                "limits.max_metric_series",
                format!(
                    "{} is below {row}, the series of one request report row: nothing could be exported",
                    self.limits.max_metric_series
                ),
            ));
        }
        if self.temp_pool_size.is_some() {
            return Err(invalid(
                "temp_pool_size",
                "was replaced by temp_pool_memory, a size such as \"256MiB\" (the queue is now \
                 bounded in bytes of everything it holds)",
            ));
        }
        self.request_log.validate()?;
        if self.ticklog.max_bytes.0 < TICKLOG_MIN_BYTES {
            return Err(invalid("ticklog.max_bytes", "must be at least 1MiB"));
        }
        if self.limits.max_dictionary_bytes.0 < (1 << 20) {
            return Err(invalid(
                "limits.max_dictionary_bytes",
                "must be at least 1MiB",
            ));
        }
        // At least a few raw batches (1 MiB + one datagram each, see `receiver`): a ring
        // smaller than one refused every raw batch, so everything received during a restart
        // was dropped.
        let m = self.temp_pool_memory.0;
        if !((8 << 20)..=(64u64 << 30)).contains(&m) {
            return Err(invalid(
                "temp_pool_memory",
                "must be between 8MiB and 64GiB",
            ));
        }
        // Under 64 KiB the kernel holds a handful of datagrams while a receiver is off the CPU
        // (at 0 it applies its minimum, ~2 KiB: one datagram); no Pinba server wants that. Over
        // 1 GiB is more than Linux grants (it caps the asked size at INT_MAX / 2, as it doubles
        // it), and 2 GiB reached setsockopt as a negative int.
        if !((64 << 10)..=(1 << 30)).contains(&self.udp.recv_buffer.0) {
            return Err(invalid("udp.recv_buffer", "must be between 64KiB and 1GiB"));
        }
        if self.udp.listen.is_empty() {
            return Err(invalid("udp.listen", "needs at least one address"));
        }
        check_udp_listen(&self.udp.listen, &|i| format!("udp.listen[{i}]"))?;
        for (i, a) in self.udp.allow.iter().enumerate() {
            parse_net(a).map_err(|e| invalid(&format!("udp.allow[{i}]"), e))?;
        }
        check_http_listen(&self.http.listen, "http.listen")?;
        self.mysql.validate()?;
        self.history.validate()?;
        let idle = self.metrics.series_idle.0;
        if idle < Duration::from_secs(1) || idle > MAX_HISTORY {
            return Err(invalid(
                "metrics.series_idle",
                "must be between 1s and 30 days",
            ));
        }
        if !(1..=1_000_000).contains(&self.metrics.max_report_rows) {
            return Err(invalid(
                "metrics.max_report_rows",
                "must be between 1 and 1000000",
            ));
        }
        for (key, d) in [
            ("http.header_timeout", self.http.header_timeout.0),
            ("http.idle_timeout", self.http.idle_timeout.0),
            ("http.answer_timeout", self.http.answer_timeout.0),
        ] {
            if d < Duration::from_millis(100) || d > Duration::from_secs(3600) {
                return Err(invalid(key, "must be between 100ms and 1h"));
            }
        }
        if !self.http.token.is_empty() && self.http.token_file.is_some() {
            return Err(invalid(
                "http.token_file",
                "give either http.token or http.token_file, not both",
            ));
        }
        if let Some(why) = token_fault(&self.http.token) {
            return Err(invalid("http.token", why));
        }
        if self.http.health_connections > 1024 {
            return Err(invalid(
                "http.health_connections",
                "must be between 0 (none kept) and 1024",
            ));
        }
        // A switch that asks for the token with none set would protect nothing: refused, so
        // that no one believes reads are guarded when they are not.
        for (key, on) in [
            ("http.token_reads", self.http.token_reads == Some(true)),
            ("http.healthz_needs_token", self.http.healthz_needs_token),
            ("http.metrics_needs_token", self.http.metrics_needs_token),
            (
                "http.dashboard_needs_token",
                self.http.dashboard_needs_token,
            ),
        ] {
            if on && !self.http.has_token() {
                return Err(invalid(
                    key,
                    "needs http.token or http.token_file (without a token everything stays open)",
                ));
            }
        }
        if self.state_dir_group.contains('\0')
            || self.state_dir_group.trim() != self.state_dir_group
        {
            return Err(invalid(
                "state_dir_group",
                "must be a group name or number, without spaces or NUL",
            ));
        }
        if self.report.len() > self.limits.max_reports {
            return Err(invalid(
                "report",
                format!(
                    "{} reports configured, above limits.max_reports",
                    self.report.len()
                ),
            ));
        }
        if let MaxMemory::Size(size) = self.limits.max_memory {
            let reserved = self.reserved_memory();
            let least = reserved.saturating_add(LEAST_DYNAMIC_MEMORY);
            if size.0 < least {
                let mib = |b: u64| b.div_ceil(1 << 20);
                return Err(invalid(
                    "limits.max_memory",
                    format!(
                        "{} MiB is below what is reserved from the start ({} MiB: the raw pool \
                         (request_pool_size, timer_pool_size, tag_pool_size) {} MiB, \
                         temp_pool_memory {} MiB, the stream's buffers \
                         (limits.max_stream_clients × limits.stream_buffer) {} MiB, the merge \
                         threads' queue (merge.queue_requests) {} MiB and {} MiB for pinbad itself) plus {} MiB for the \
                         dictionary and the reports: raise it, or lower those",
                        mib(size.0),
                        mib(reserved),
                        mib(self.pool_memory()),
                        mib(self.temp_pool_memory.0),
                        mib(self.stream_memory()),
                        mib(self.workers_memory()),
                        mib(FIXED_OVERHEAD),
                        mib(LEAST_DYNAMIC_MEMORY),
                    ),
                ));
            }
        }
        if self.limits.max_stream_clients > 10_000 {
            return Err(invalid(
                "limits.max_stream_clients",
                "must be between 0 (no stream) and 10000",
            ));
        }
        if !((64 << 10)..=(1 << 30)).contains(&self.limits.stream_buffer.0) {
            return Err(invalid(
                "limits.stream_buffer",
                "must be between 64KiB and 1GiB",
            ));
        }
        self.rewrite_rules()?;
        let mut sink_names = std::collections::HashSet::new();
        let mut sink_paths = std::collections::HashMap::new();
        for (i, s) in self.sink.iter().enumerate() {
            s.validate(i)?;
            if !sink_names.insert(s.name.clone()) {
                return Err(invalid(
                    &format!("sink[{i}].name"),
                    format!("duplicate sink name `{}`", s.name),
                ));
            }
            // Two file sinks on one file interleave their lines and rotate it under each other.
            if let SinkKind::File(f) = &s.kind {
                if let Some(other) = sink_paths.insert(same_file_key(&f.path), i) {
                    return Err(invalid(
                        &format!("sink[{i}].path"),
                        format!("`{}` is sink[{other}]'s file too", f.path.display()),
                    ));
                }
            }
        }
        let mut names = std::collections::HashSet::new();
        for (i, r) in self.report.iter().enumerate() {
            r.validate_new()
                .map_err(|e| invalid(&format!("report[{i}]"), e.to_string()))?;
            // One row of it must fit, or the report exports nothing at all.
            if let (true, Some(bounds)) = (r.prometheus, &r.prometheus_buckets) {
                let timer = r.kind() == crate::report::Kind::Timer;
                let row = metric_row_series(timer, bounds.len());
                if row > self.limits.max_metric_series {
                    return Err(invalid(
                        &format!("report[{i}].prometheus_buckets"),
                        format!(
                            "{} buckets make {row} series a row, above limits.max_metric_series                              ({}): nothing could be exported",
                            bounds.len(),
                            self.limits.max_metric_series
                        ),
                    ));
                }
            }
            if !names.insert(r.name.clone()) {
                return Err(invalid(
                    &format!("report[{i}].name"),
                    format!("duplicate report name `{}`", r.name),
                ));
            }
        }
        Ok(())
    }

    /// The `[[rewrite]]` rules compiled; an error names the rule's key (`rewrite[i].regex`).
    pub fn rewrite_rules(&self) -> Result<crate::rewrite::Rules, ConfigError> {
        crate::rewrite::Rules::compile(
            &self.rewrite,
            self.limits.max_regex_bytes,
            self.limits.max_string_bytes,
        )
        .map_err(|e| invalid(&format!("rewrite[{}].{}", e.index, e.key), e.message))
    }

    /// The API token: `http.token`, or the trimmed content of `http.token_file`; `None` when
    /// neither is set.
    pub fn token(&self) -> Result<Option<String>, ConfigError> {
        let token = match &self.http.token_file {
            Some(path) => std::fs::read_to_string(path)
                .map_err(|e| {
                    invalid(
                        "http.token_file",
                        format!("cannot read {}: {e}", path.display()),
                    )
                })?
                .trim()
                .to_string(),
            None => self.http.token.clone(),
        };
        if self.http.token_file.is_some() && token.is_empty() {
            return Err(invalid("http.token_file", "the file is empty"));
        }
        if let Some(why) = token_fault(&token) {
            return Err(invalid("http.token_file", format!("the token {why}")));
        }
        Ok((!token.is_empty()).then_some(token))
    }

    pub fn udp_addrs(&self) -> Vec<SocketAddr> {
        self.udp
            .listen
            .iter()
            .filter_map(|a| a.parse().ok())
            .collect()
    }

    pub fn http_addr(&self) -> SocketAddr {
        self.http
            .listen
            .parse()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 30080)))
    }

    /// `udp.allow` parsed (validated already).
    pub fn allow_nets(&self) -> Vec<ipnet::IpNet> {
        self.udp
            .allow
            .iter()
            .filter_map(|a| parse_net(a).ok())
            .collect()
    }

    pub fn decode_policy(&self) -> DecodePolicy {
        DecodePolicy {
            lenient_required: self.decode.lenient_required,
            max_string_bytes: self.limits.max_string_bytes,
            max_timers_per_request: self.limits.max_timers_per_request,
            max_tags_per_timer: self.limits.max_tags_per_timer,
            max_tags_per_request: self.limits.max_tags_per_request,
        }
    }

    /// The effective configuration as TOML (what `check-config` prints).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_else(|e| format!("# cannot render config: {e}\n"))
    }

    /// Memory counted against `limits.max_memory` from the start, whatever arrives: the raw pool
    /// (allocated at start-up), the temp ring's bound, the stream clients' buffers, the merge
    /// workers' queues and [`FIXED_OVERHEAD`].
    pub fn reserved_memory(&self) -> u64 {
        self.pool_memory()
            + self.temp_pool_memory.0
            + self.stream_memory()
            + self.workers_memory()
            + FIXED_OVERHEAD
    }

    /// The raw pool's rings (see `pool`): allocated once, at start-up.
    pub fn pool_memory(&self) -> u64 {
        use std::mem::size_of;
        (self.request_pool_size.max(1) * size_of::<crate::record::Record>()
            + self.timer_pool_size.max(1) * size_of::<crate::record::Timer>()
            + self.tag_pool_size.max(1) * size_of::<crate::record::TagPair>()) as u64
    }

    fn stream_memory(&self) -> u64 {
        self.limits.max_stream_clients as u64 * self.limits.stream_buffer.0
    }

    /// The report workers' queue (one: every worker reads the same rounds), and the round each
    /// follower shard prepares before its turn.
    fn workers_memory(&self) -> u64 {
        u64::from(self.merge.threads() > 1)
            * self.merge_queue_requests() as u64
            * QUEUED_REQUEST_BYTES
            + self.merge_shards().saturating_sub(1) as u64 * SHARD_ROUND_BYTES
    }

    /// [`Config::to_toml`] with the secrets (`http.token`, sinks' `password`) replaced by
    /// [`REDACTED`]: what `pinbad check-config` prints, which ends up in terminals and CI logs.
    /// `http.token_reads` is shown as it applies (unset, it follows the token).
    pub fn to_toml_redacted(&self) -> String {
        let mut c = self.clone();
        // What applies, said: unset, it follows the token.
        c.http.token_reads = Some(c.http.reads_need_token());
        if !c.http.token.is_empty() {
            c.http.token = REDACTED.into();
        }
        if !c.mysql.password.is_empty() {
            c.mysql.password = REDACTED.into();
        }
        for sink in &mut c.sink {
            if let SinkKind::Clickhouse(ch) = &mut sink.kind {
                if !ch.password.is_empty() {
                    ch.password = REDACTED.into();
                }
            }
        }
        c.to_toml()
    }
}

/// A report window (`stats_history`, or `--stats-history`, the `key` named when it is refused).
fn check_stats_history(h: HumanDuration, key: &str) -> Result<(), ConfigError> {
    if h.0 < Duration::from_millis(100) || h.0 > MAX_HISTORY {
        return Err(invalid(key, "must be between 100ms and 30 days"));
    }
    Ok(())
}

/// UDP addresses to bind, all of which must parse and no two of which may clash. `key(i)` names
/// entry `i` in an error: `udp.listen[i]`, or `--udp` when the flags replaced the list.
fn check_udp_listen(list: &[String], key: &dyn Fn(usize) -> String) -> Result<(), ConfigError> {
    let mut listen: Vec<SocketAddr> = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let addr = a.parse::<SocketAddr>().map_err(|e| {
            invalid(
                &key(i),
                format!("`{a}` is not an address like 0.0.0.0:30002 ({e})"),
            )
        })?;
        // Two that cannot both be bound: the second bind failed at start-up, saying another
        // pinbad might run there. Port 0 (any free port) never clashes.
        let clash = listen.iter().position(|b| {
            addr.port() != 0
                && b.port() == addr.port()
                && b.is_ipv4() == addr.is_ipv4()
                && (b.ip() == addr.ip() || b.ip().is_unspecified() || addr.ip().is_unspecified())
        });
        if let Some(j) = clash {
            return Err(invalid(
                &key(i),
                format!("`{a}` overlaps {} (`{}`)", key(j), listen[j]),
            ));
        }
        listen.push(addr);
    }
    Ok(())
}

/// The API's address (`http.listen`, or `--http`, the `key` named when it is refused).
fn check_http_listen(addr: &str, key: &str) -> Result<(), ConfigError> {
    addr.parse::<SocketAddr>().map_err(|e| {
        invalid(
            key,
            format!("`{addr}` is not an address like 127.0.0.1:30080 ({e})"),
        )
    })?;
    Ok(())
}

/// What [`Config::to_toml_redacted`] shows instead of a secret.
pub const REDACTED: &str = "(set, not shown)";

/// A CIDR network, or a single address (as /32 or /128).
/// A network or an address of `udp.allow`. IPv4-mapped IPv6 networks (`::ffff:10.0.0.0/104`) are
/// turned into the IPv4 networks they mean, since the receiver compares IPv4 senders (also those
/// arriving on an IPv6 socket as mapped addresses) as IPv4.
fn parse_net(s: &str) -> Result<ipnet::IpNet, String> {
    let net = match s.parse::<ipnet::IpNet>() {
        Ok(net) => net,
        Err(_) => s
            .parse::<std::net::IpAddr>()
            .map(ipnet::IpNet::from)
            .map_err(|_| format!("`{s}` is not a network like 10.0.0.0/8 or an address"))?,
    };
    Ok(match net {
        ipnet::IpNet::V6(v6) if v6.prefix_len() >= 96 => match v6.addr().to_ipv4_mapped() {
            Some(v4) => ipnet::Ipv4Net::new(v4, v6.prefix_len() - 96)
                .map(ipnet::IpNet::V4)
                .unwrap_or(net),
            None => net,
        },
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> String {
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/config/pinbad.toml")).unwrap()
    }

    #[test]
    fn mapped_ipv6_allow_entries_match_ipv4_senders() {
        let net = parse_net("::ffff:127.0.0.1").unwrap();
        assert!(net.contains(&"127.0.0.1".parse::<std::net::IpAddr>().unwrap()));
        let net = parse_net("::ffff:10.0.0.0/104").unwrap();
        assert_eq!(net.to_string(), "10.0.0.0/8");
        assert!(parse_net("::1")
            .unwrap()
            .contains(&"::1".parse::<std::net::IpAddr>().unwrap()));
    }

    /// `limits.max_memory`: "auto" or a size; a size below the reserved part plus
    /// [`LEAST_DYNAMIC_MEMORY`] stops the start naming the key and its parts; "auto" resolves to
    /// half the host, never below the reserved part plus [`MIN_DYNAMIC_MEMORY`].
    #[test]
    fn max_memory_is_auto_or_a_size_above_the_reserved_part() {
        assert_eq!(
            Config::parse("").unwrap().limits.max_memory,
            MaxMemory::Auto
        );
        let c = Config::parse("[limits]\nmax_memory = \"auto\"").unwrap();
        assert_eq!(c.limits.max_memory, MaxMemory::Auto);
        assert!(c.to_toml().contains("max_memory = \"auto\""));
        let small = "request_pool_size = 20000\ntimer_pool_size = 20000\ntag_pool_size = 20000\n\
                     temp_pool_memory = \"8MiB\"\n[merge]\nthreads = 1\n[limits]\n\
                     max_stream_clients = 2\nstream_buffer = \"1MiB\"\n";
        let c = Config::parse(&format!("{small}max_memory = \"128MiB\"")).unwrap();
        assert_eq!(c.limits.max_memory, MaxMemory::Size(ByteSize(128 << 20)));
        let reserved = c.reserved_memory();
        assert!(
            reserved > FIXED_OVERHEAD && reserved < 80 << 20,
            "{reserved}"
        );
        let err = Config::parse(&format!("{small}max_memory = \"96MiB\""))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("limits.max_memory") && err.contains("temp_pool_memory"),
            "{err}"
        );
        for bad in ["\"lots\"", "-1", "\"\""] {
            let err = Config::parse(&format!("[limits]\nmax_memory = {bad}"))
                .unwrap_err()
                .to_string();
            assert!(err.contains("max_memory"), "{bad}: {err}");
        }
        let auto = MaxMemory::Auto;
        assert_eq!(auto.resolve(100 << 20, Some(8 << 30)), 4 << 30);
        assert_eq!(
            auto.resolve(1 << 30, Some(1 << 30)),
            (1 << 30) + MIN_DYNAMIC_MEMORY
        );
        assert_eq!(auto.resolve(0, None), 4 << 30);
    }

    /// Automatic readers and merge threads: the cores, at most 4, up to 8 cores; then half the
    /// cores, at most 8 (a 16-core host: 8 readers, 8 merge threads, 2 shards).
    #[test]
    fn automatic_threads_follow_the_cores() {
        let got: Vec<usize> = [1, 2, 4, 8, 9, 10, 12, 16, 64]
            .map(threads_for_cores)
            .into();
        assert_eq!(got, [1, 2, 4, 4, 4, 5, 6, 8, 8]);
        assert_eq!(MergeConfig::default().shards(threads_for_cores(16)), 2);
    }

    /// Automatic `merge.nice`: 5 up to 8 cores (the pipeline's threads can take every core), 0
    /// past (half the cores are left to the queries); a set value as it is, 0 included.
    #[test]
    fn automatic_nice_follows_the_cores() {
        let got: Vec<i32> = [1, 2, 8, 9, 16, 64].map(nice_for_cores).into();
        assert_eq!(got, [5, 5, 5, 0, 0, 0]);
        let c = Config::parse("[merge]\nnice = 0").unwrap();
        assert_eq!((c.merge.nice, c.merge.nice()), (Some(0), 0));
        let c = Config::parse("[merge]\nnice = 7").unwrap();
        assert_eq!(c.merge.nice(), 7);
        assert!(c.to_toml().contains("nice = 7"));
        let c = Config::parse("").unwrap();
        assert_eq!(c.merge.nice, None);
        assert!(!c.to_toml().contains("nice"), "unset stays unset");
    }

    /// Automatic `merge.queue_requests`: 16k requests × (readers / 2)², from 16k to 256k; a set
    /// value as it is.
    #[test]
    fn automatic_queue_follows_the_readers() {
        let merge = MergeConfig::default();
        let got: Vec<usize> = [1, 2, 3, 4, 6, 8, 12, 64]
            .map(|r| merge.queue_requests(r))
            .into();
        let k = 1024;
        assert_eq!(
            got,
            [
                16 * k,
                16 * k,
                16 * k,
                64 * k,
                144 * k,
                256 * k,
                256 * k,
                256 * k
            ]
        );
        let set = MergeConfig {
            queue_requests: 4096,
            ..MergeConfig::default()
        };
        assert_eq!(set.queue_requests(8), 4096);
    }

    /// `merge.shards` 0: one shard per four readers, at least one.
    #[test]
    fn automatic_shards_follow_the_readers() {
        let merge = MergeConfig::default();
        let shards: Vec<usize> = [1, 2, 4, 5, 8, 12].map(|r| merge.shards(r)).into();
        assert_eq!(shards, [1, 1, 1, 2, 2, 3]);
        let set = MergeConfig {
            shards: 3,
            ..MergeConfig::default()
        };
        assert_eq!(set.shards(1), 3);
    }

    #[test]
    fn empty_file_gives_defaults() {
        let c = Config::parse("").unwrap();
        let d = Config::default();
        assert_eq!(c.to_toml(), d.to_toml());
        assert_eq!(c.stats_history.0, Duration::from_secs(900));
        assert_eq!(c.stats_gathering_period.0, Duration::from_millis(10));
        assert_eq!(c.request_pool_size, 1_000_000);
        assert_eq!(c.udp.recv_buffer.0, 32 << 20);
        assert_eq!(c.udp_addrs().len(), 2);
        assert_eq!(c.http_addr().to_string(), "127.0.0.1:30080");
    }

    /// The shipped example documents every key with its default value: parsing it gives exactly
    /// the defaults, and every default key appears in it.
    #[test]
    fn shipped_config_documents_every_key_with_its_default() {
        let text = shipped();
        let c = Config::parse(&text).unwrap();
        let mut shipped_defaults = c.clone();
        shipped_defaults.report.clear();
        assert_eq!(shipped_defaults.to_toml(), Config::default().to_toml());
        let defaults: toml::Value = toml::from_str(&Config::default().to_toml()).unwrap();
        let file: toml::Value = toml::from_str(&text).unwrap();
        for (k, v) in defaults.as_table().unwrap() {
            if k == "sink" {
                assert!(
                    text.contains("# [[sink]]"),
                    "config/pinbad.toml shows [[sink]] examples"
                );
                continue;
            }
            if k == "rewrite" {
                assert!(
                    text.contains("# [[rewrite]]"),
                    "config/pinbad.toml shows a [[rewrite]] example"
                );
                continue;
            }
            if k == "report" {
                assert!(
                    text.contains("[[report]]"),
                    "config/pinbad.toml shows a [[report]] example"
                );
                continue;
            }
            if k == "state_dir" {
                // Its default depends on the environment: the file shows it commented out.
                assert!(
                    text.contains("# state_dir = "),
                    "config/pinbad.toml documents state_dir"
                );
                continue;
            }
            let Some(fv) = file.get(k) else {
                panic!("config/pinbad.toml lacks `{k}`")
            };
            if let Some(t) = v.as_table() {
                for sub in t.keys() {
                    assert!(
                        fv.get(sub).is_some(),
                        "config/pinbad.toml lacks `{k}.{sub}`"
                    );
                }
            }
        }
    }

    /// The commented `[[rewrite]]` example of config/pinbad.toml is a valid rule.
    #[test]
    fn shipped_rewrite_example_is_valid() {
        let text = shipped();
        let example: String = text
            .lines()
            .skip_while(|l| *l != "# [[rewrite]]")
            .take_while(|l| l.starts_with('#'))
            .map(|l| format!("{}\n", &l[1..]))
            .collect();
        let c = Config::parse(&example).unwrap();
        assert_eq!(c.rewrite.len(), 1, "{example}");
        assert_eq!(c.rewrite[0].field, "script_name");
        let rules = c.rewrite_rules().unwrap();
        assert_eq!(rules.hits().next().map(|h| h.0), Some("user-ids"));
    }

    /// What cannot work together is refused naming the key: UDP addresses that cannot both be
    /// bound, two file sinks on one file, a sink path naming a directory, a temp ring smaller
    /// than a few raw batches.
    #[test]
    fn settings_that_cannot_work_together_name_their_key() {
        let refused = |text: &str, key: &str| {
            let e = Config::parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        };
        refused(
            "[udp]\nlisten = [\"127.0.0.1:30002\", \"127.0.0.1:30002\"]",
            "udp.listen[1]",
        );
        refused(
            "[udp]\nlisten = [\"0.0.0.0:30002\", \"127.0.0.1:30002\"]",
            "udp.listen[1]",
        );
        for ok in [
            "[udp]\nlisten = [\"0.0.0.0:30002\", \"[::]:30002\"]",
            "[udp]\nlisten = [\"127.0.0.1:0\", \"127.0.0.1:0\"]",
            "[udp]\nlisten = [\"127.0.0.1:30002\", \"127.0.0.2:30002\"]",
        ] {
            Config::parse(ok).unwrap();
        }
        let sink = |name: &str, path: &str| {
            format!("[[sink]]\nname = \"{name}\"\nkind = \"file\"\npath = \"{path}\"\n")
        };
        refused(
            &(sink("a", "/tmp/x.ndjson") + &sink("b", "/tmp/x.ndjson")),
            "sink[1].path",
        );
        // One file however written: with `./`, doubled slashes, through `..` or `.`.
        for (a, b) in [
            ("x.ndjson", "./x.ndjson"),
            ("logs/x.ndjson", "logs//x.ndjson"),
            ("/tmp/x.ndjson", "/tmp/./x.ndjson"),
            ("/tmp/x.ndjson", "/tmp/../tmp/x.ndjson"),
        ] {
            refused(&(sink("a", a) + &sink("b", b)), "sink[1].path");
        }
        Config::parse(&(sink("a", "/tmp/x.ndjson") + &sink("b", "/tmp/y.ndjson"))).unwrap();
        refused(&sink("a", "/tmp/logs/"), "path");
        refused("temp_pool_memory = \"4MiB\"", "temp_pool_memory");
        Config::parse("temp_pool_memory = \"8MiB\"").unwrap();
        for bad in ["0", "65535", "\"3GiB\"", "\"2GiB\"", "1073741825"] {
            refused(&format!("[udp]\nrecv_buffer = {bad}"), "udp.recv_buffer");
        }
        Config::parse("[udp]\nrecv_buffer = \"64KiB\"").unwrap();
        Config::parse("[udp]\nrecv_buffer = \"1GiB\"").unwrap();
    }

    /// A remote ClickHouse: `https://` is taken; `ca_file` must be a readable PEM file of
    /// certificates and only with https; `ttl` is at least an hour; `check-config` prints the
    /// new keys and never the password.
    #[test]
    fn a_clickhouse_sinks_tls_and_ttl_keys_are_checked() {
        let sink = |rest: &str| format!("[[sink]]\nname = \"ch\"\nkind = \"clickhouse\"\n{rest}");
        let dir = tempfile::tempdir().unwrap();
        let not_pem = dir.path().join("ca.txt");
        std::fs::write(&not_pem, "not a certificate\n").unwrap();
        let missing = dir.path().join("none.pem");
        for (rest, key, says) in [
            (
                format!("url = \"https://ch.example:8443\"\nca_file = {not_pem:?}\n"),
                "ca_file",
                "holds no PEM certificate",
            ),
            (
                format!("url = \"https://ch.example:8443\"\nca_file = {missing:?}\n"),
                "ca_file",
                "none.pem",
            ),
            (
                format!("url = \"http://ch.example:8123\"\nca_file = {missing:?}\n"),
                "ca_file",
                "https",
            ),
            (
                "url = \"https://ch.example:8443\"\nttl = \"10m\"\n".to_string(),
                "ttl",
                "1h",
            ),
            (
                "url = \"ftp://ch.example\"\n".to_string(),
                "url",
                "https://",
            ),
        ] {
            let e = Config::parse(&sink(&rest)).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(says), "{rest}: {e}");
        }
        let c = Config::parse(&sink(
            "url = \"https://ch.example:8443\"\nuser = \"u\"\npassword = \"s3cret-pw\"\nttl = \"30d\"\n",
        ))
        .unwrap();
        let printed = c.to_toml_redacted();
        assert!(!printed.contains("s3cret-pw"), "{printed}");
        assert!(printed.contains("ttl = \"30days\""), "{printed}");
        assert!(printed.contains("ca_file = \"\""), "{printed}");
    }

    /// A sink kind's own key that is wrong is named (serde's message alone named only the value).
    #[test]
    fn a_sink_kinds_bad_key_is_named() {
        let sink =
            |kind: &str, rest: &str| format!("[[sink]]\nname = \"s\"\nkind = \"{kind}\"\n{rest}");
        for (text, named) in [
            (sink("clickhouse", "url = 5\n"), "`url`: invalid type"),
            (
                sink("file", "path = \"/tmp/x\"\nmax_bytes = \"lots\"\n"),
                "`max_bytes`: `lots` is not a size",
            ),
            (sink("file", "path = \"/tmp/x\"\nbogus = 1\n"), "`bogus`"),
            (sink("kafka", ""), "`kind` is \"kafka\""),
            (
                "[[sink]]\nname = \"s\"\npath = \"/tmp/x\"\n".to_string(),
                "missing `kind`",
            ),
            // A table value is written as a `[key]` section, a list of them as `[[key]]`: the
            // key is the section's, not the next line's (it was "`[extra]\na`").
            (
                sink("file", "path = \"/tmp/x\"\nextra = { a = 1 }\n"),
                "`extra`: unknown field `extra`",
            ),
            (
                sink("file", "path = \"/tmp/x\"\n[[sink.extra]]\na = 1\n"),
                "`extra`: unknown field `extra`",
            ),
            (
                sink("file", "[sink.extra]\na = 1\n"),
                "`extra`: unknown field `extra`",
            ),
            (
                sink("clickhouse", "url = \"http://h\"\nretry = { a = 1 }\n"),
                "`retry`: unknown field `retry`",
            ),
            (
                sink("file", "path = \"/tmp/x\"\nmax_bytes = { a = 1 }\n"),
                "`max_bytes`: ",
            ),
            (
                sink("file", "path = \"/tmp/x\"\nkeep = [{ a = 1 }, { b = 2 }]\n"),
                "`keep`: invalid type",
            ),
            // A quoted key holding `=` is named whole (it was "`a`"), before or after others.
            (
                sink("file", "path = \"/tmp/x\"\n\"a=b\" = 1\n"),
                "`a=b`: unknown field `a=b`",
            ),
            (
                sink("file", "\"a=b\" = 1\ntimers = \"yes\"\n"),
                "`a=b`: unknown field `a=b`",
            ),
            (
                sink("file", "\"x = y\" = { a = 1 }\npath = \"/tmp/x\"\n"),
                "`x = y`: unknown field `x = y`",
            ),
            // The key after a section is still its own.
            (
                sink("file", "extra = { a = 1 }\ntimers = \"yes\"\n"),
                "`timers`: invalid type",
            ),
        ] {
            let e = Config::parse(&text).unwrap_err().to_string();
            assert!(e.contains("sink `s`") && e.contains(named), "{text}: {e}");
        }
        Config::parse(&sink("file", "path = \"/tmp/x\"\nmax_bytes = \"8MiB\"\n")).unwrap();
    }

    /// Sizes print exactly as the daemon uses them (`check-config`), in the largest unit that
    /// divides them, else in bytes, and read back the same.
    #[test]
    fn sizes_print_exactly() {
        for (bytes, shown) in [
            (1_500_000, "1500000"),
            (8 << 20, "\"8MiB\""),
            (3 << 30, "\"3GiB\""),
            (1536 << 10, "\"1536KiB\""),
            (1000, "1000"),
            (0, "0"),
            // Beyond a TOML integer: a string of digits (it was "cannot render config").
            (i64::MAX as u64, "9223372036854775807"),
            (i64::MAX as u64 + 2, "\"9223372036854775809\""),
            (u64::MAX, "\"18446744073709551615\""),
        ] {
            let c = Config {
                temp_pool_memory: ByteSize(bytes),
                ..Config::default()
            };
            let text = toml::to_string(&c).unwrap();
            assert!(
                text.contains(&format!("temp_pool_memory = {shown}\n")),
                "{bytes}: {text}"
            );
            let back: Config = toml::from_str(&text).unwrap();
            assert_eq!(back.temp_pool_memory, ByteSize(bytes));
        }
        // What check-config prints for an accepted size it renders whole, and reads back.
        for size in ["\"9223372036854775809\"", "\"20EiB\""] {
            let c = Config::parse(&format!("[limits]\nmax_dictionary_bytes = {size}")).unwrap();
            let text = c.to_toml();
            assert!(!text.contains("cannot render"), "{size}: {text}");
            let back = Config::parse(&text).unwrap();
            assert_eq!(
                back.limits.max_dictionary_bytes,
                c.limits.max_dictionary_bytes
            );
        }
    }

    /// The `[[report]]` examples of docs/reports.md are valid configuration.
    #[test]
    fn documented_report_examples_parse() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reports.md"))
                .unwrap();
        let start = readme
            .find("```toml\n# config file: one [[report]]")
            .expect("docs/reports.md has the example");
        let block = &readme[start + 7..];
        let block = &block[..block.find("```").unwrap()];
        let c = Config::parse(block).unwrap();
        let names: Vec<&str> = c.report.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "timers_by_group",
                "slow_dutch_pages",
                "tag2_report:group,server"
            ]
        );
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key() {
        let e = Config::parse("stats_histroy = \"5m\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("stats_histroy"), "{e}");
        let e = Config::parse("[udp]\nreaderz = 2").unwrap_err().to_string();
        assert!(e.contains("readerz"), "{e}");
    }

    #[test]
    fn invalid_values_name_the_key() {
        for (text, key) in [
            ("stats_history = \"0s\"", "stats_history"),
            ("[ticklog]\nmax_bytes = 1000", "ticklog.max_bytes"),
            ("stats_history = \"soon\"", "stats_history"),
            ("request_pool_size = 0", "request_pool_size"),
            ("[udp]\nlisten = [\"nowhere\"]", "udp.listen[0]"),
            ("[udp]\nallow = [\"10.0.0.0/99\"]", "udp.allow[0]"),
            ("[udp]\nrecv_buffer = \"lots\"", "recv_buffer"),
            ("[merge]\nshards = 65", "merge.shards"),
            ("[merge]\nqueue_requests = 100", "merge.queue_requests"),
            ("[merge]\nshards = -1", "shards"),
            ("[http]\nlisten = \"localhost\"", "http.listen"),
            ("[limits]\nmax_string_bytes = 0", "limits.max_string_bytes"),
            (
                "[limits]\nmax_metric_series = 0",
                "limits.max_metric_series",
            ),
            (
                "[limits]\nmax_metric_series = 48",
                "limits.max_metric_series",
            ),
            (
                "[limits]\nmax_metric_series = 61\n[[report]]\nname = \"r\"\nkeys = [\"script_name\"]\n\
                 prometheus = true\nprometheus_buckets = [0.001, 0.002, 0.003, 0.004, 0.005, 0.006, \
                 0.007, 0.008, 0.009, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.2, \
                 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30, 40, 50, 60, \
                 70, 80, 90, 100, 200, 300, 400, 500, 600, 700, 800]",
                "report[0].prometheus_buckets",
            ),
            (
                "[[report]]\nname = \"r\"\nkeys = [\"script_name\"]\nprometheus_buckets = [0.1]",
                "prometheus_buckets",
            ),
            (
                "[[report]]\nname = \"r\"\nkeys = [\"script_name\"]\nprometheus = true\n\
                 prometheus_buckets = [0.1, 0.1]",
                "prometheus_buckets",
            ),
            (
                "[[report]]\nname = \"r\"\nkeys = [\"script_name\"]\nprometheus = true\n\
                 prometheus_buckets = [0, 0.1]",
                "prometheus_buckets",
            ),
            (
                "[[rewrite]]\nfield = \"script_name\"\nregex = \"(\"\nreplacement = \"x\"",
                "rewrite[0].regex",
            ),
            (
                "[[rewrite]]\nfield = \"script_name\"\nregex = \"a\"\nreplacement = \"x\"\n\
                 [[rewrite]]\nfield = \"path\"\nregex = \"a\"\ndrop = true",
                "rewrite[1].field",
            ),
            ("[metrics]\nseries_idle = \"0s\"", "metrics.series_idle"),
            ("[metrics]\nmax_report_rows = 0", "metrics.max_report_rows"),
            ("[history]\nfine_step = \"1500ms\"", "history.fine_step"),
            ("[history]\nfine_step = \"2h\"", "history.fine_step"),
            ("[history]\nfine_retention = \"10s\"", "history.fine_retention"),
            (
                "[history]\nfine_step = \"1h\"\nfine_retention = \"30m\"",
                "history.fine_retention",
            ),
            ("[history]\nfine_rows = 0", "history.fine_rows"),
            ("[metrics]\nidle = \"1h\"", "idle"),
            ("[merge]\nnice = 20", "merge.nice"),
            ("[merge]\nnice = -1", "merge.nice"),
            // A header carries visible ASCII only: this token could never match.
            ("[http]\ntoken = \"pässwörd\"", "http.token"),
            ("[http]\ntoken = \"two words\"", "http.token"),
            ("[http]\ntoken_reads = true", "http.token_reads"),
            (
                "[http]\nmetrics_needs_token = true",
                "http.metrics_needs_token",
            ),
            (
                "[http]\nhealthz_needs_token = true",
                "http.healthz_needs_token",
            ),
            (
                "[http]\ndashboard_needs_token = true",
                "http.dashboard_needs_token",
            ),
            (
                "[http]\nhealth_connections = 1025",
                "http.health_connections",
            ),
            (
                "[http]\nmax_connections_per_client = 0",
                "http.max_connections_per_client",
            ),
            ("state_dir_group = \"a b \"", "state_dir_group"),
            (
                "[[report]]\nname = \"a\"\n[[report]]\nname = \"a\"",
                "report[1].name",
            ),
            (
                "[mysql]\npinba2_default_history_time = \"1500ms\"",
                "mysql.pinba2_default_history_time",
            ),
        ] {
            let e = Config::parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "error for {text:?} should name {key}: {e}");
        }
        // A report of a built-in's name takes its place (pinba2's tables of those names).
        let c =
            Config::parse("[[report]]\nname = \"report_by_schema\"\nhistory = \"60s\"").unwrap();
        let defs = crate::report::static_defs(c.builtin_reports, &c.report);
        let named: Vec<_> = defs
            .iter()
            .filter(|d| d.name == "report_by_schema")
            .collect();
        assert_eq!(named.len(), 1);
        assert!(named[0].keys.is_empty() && named[0].history.is_some());
        assert_eq!(defs.len(), crate::report::builtin_defs().len());
    }

    /// Unset, `token_reads` follows the token; check-config prints what applies, and what it
    /// prints parses back to the same.
    #[test]
    fn token_reads_follow_the_token_unless_set() {
        let c = Config::parse("").unwrap();
        assert!(!c.http.reads_need_token());
        let c = Config::parse("[http]\ntoken = \"t\"").unwrap();
        assert!(c.http.reads_need_token());
        let printed = c.to_toml_redacted();
        assert!(printed.contains("token_reads = true"), "{printed}");
        let c = Config::parse("[http]\ntoken = \"t\"\ntoken_reads = false").unwrap();
        assert!(!c.http.reads_need_token());
        let c = Config::parse("[http]\ntoken_reads = false").unwrap();
        let again = Config::parse(&c.to_toml_redacted()).unwrap();
        assert!(!again.http.reads_need_token());
    }

    #[test]
    fn a_token_file_must_hold_a_token_a_header_can_carry() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        let config = |content: &str| {
            std::fs::write(&file, content).unwrap();
            let mut c = Config::default();
            c.http.token_file = Some(file.clone());
            c.token()
        };
        assert_eq!(
            config("s3cret-Token_1\n").unwrap().as_deref(),
            Some("s3cret-Token_1")
        );
        for bad in ["pässwörd\n", "two words", "\n"] {
            let e = config(bad).unwrap_err().to_string();
            assert!(e.contains("http.token_file"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn state_dir_is_never_relative_to_the_working_directory() {
        assert!(default_state_dir().is_absolute());
        let dir = std::env::temp_dir().join("pinbad-config-test-rel");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.toml");
        std::fs::write(&file, "state_dir = \"st\"\n[http]\ntoken_file = \"tok\"\n").unwrap();
        let c = Config::load(&file).unwrap();
        assert_eq!(c.state_dir, std::path::absolute(&dir).unwrap().join("st"));
        // The token file too (it was read from the working directory).
        let tok = c.http.token_file.as_ref().unwrap();
        assert_eq!(tok, &std::path::absolute(&dir).unwrap().join("tok"));
    }

    #[test]
    fn overrides_replace_values() {
        let o = Overrides {
            udp: vec!["127.0.0.1:0".into()],
            http: Some("127.0.0.1:0".into()),
            mysql: None,
            stats_history: Some("2s".parse().unwrap()),
            state_dir: Some("rel/state".into()),
        };
        let c = Config::default().apply(&o).unwrap();
        assert_eq!(c.udp.listen, vec!["127.0.0.1:0".to_string()]);
        assert!(c.state_dir.is_absolute() && c.state_dir.ends_with("rel/state"));
        assert_eq!(c.stats_history.0, Duration::from_secs(2));
    }

    /// A bad override is named by its flag, not by the key it replaced (`--udp nope` was refused
    /// as `udp.listen[0]`, which no file given said).
    #[test]
    fn bad_overrides_name_their_flag() {
        let refused = |o: Overrides, flag: &str| {
            let e = Config::default().apply(&o).unwrap_err().to_string();
            assert!(e.contains(&format!("`{flag}`")), "{o:?}: {e}");
            assert!(!e.contains("listen") && !e.contains("stats_history"), "{e}");
        };
        let udp = |list: &[&str]| Overrides {
            udp: list.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        };
        refused(udp(&["nope"]), "--udp");
        refused(udp(&["127.0.0.1:0", "nope"]), "--udp");
        refused(udp(&["127.0.0.1:30002", "0.0.0.0:30002"]), "--udp");
        refused(
            Overrides {
                http: Some("nope".into()),
                ..Default::default()
            },
            "--http",
        );
        refused(
            Overrides {
                stats_history: Some("50ms".parse().unwrap()),
                ..Default::default()
            },
            "--stats-history",
        );
        // The file's own bad values are still named by their keys.
        let e = Config::parse("[udp]\nlisten = [\"127.0.0.1:1\", \"127.0.0.1:1\"]")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`udp.listen[1]`") && e.contains("overlaps udp.listen[0]"),
            "{e}"
        );
    }

    #[test]
    fn sizes_and_allow_lists_parse() {
        let c = Config::parse("[udp]\nrecv_buffer = \"512KiB\"\nallow = [\"10.0.0.0/8\", \"::1\"]")
            .unwrap();
        assert_eq!(c.udp.recv_buffer.0, 512 << 10);
        let nets = c.allow_nets();
        assert!(nets[0].contains(&"10.1.2.3".parse::<std::net::IpAddr>().unwrap()));
        assert!(nets[1].contains(&"::1".parse::<std::net::IpAddr>().unwrap()));
        assert_eq!(
            Config::parse("[udp]\nrecv_buffer = 100000")
                .unwrap()
                .udp
                .recv_buffer
                .0,
            100_000
        );
    }
}
