//! The ClickHouse sink (`kind = "clickhouse"`): batched `INSERT … FORMAT RowBinary` over
//! ClickHouse's HTTP interface into a requests table and a timers table ([`requests_ddl`],
//! [`timers_ddl`]; docs/stream-and-sinks.md documents them), created at start when `create_tables = true`.
//!
//! RowBinary, with the columns named in the `INSERT`, rather than JSON: numbers go as their
//! little-endian bytes and strings as a length and their bytes (exactly the bytes the client
//! sent), with no formatting or escaping. The sink encodes a row per request and one per timer
//! (~9 for a PHP request), so this is its hot path: `benches/taps.rs` measured 2.33 ms per round
//! of 1,024 requests as JSONEachRow and 0.93 ms as RowBinary.
//!
//! The sink's thread encodes requests into the open batch; a batch is sealed when it holds
//! `batch_rows` requests or is `batch_time` old, into two inserts (requests, then their timers)
//! queued for the sender thread ("pinbad-sink-tx"), which sends them in order, so that encoding
//! never waits on the server. A failed insert (server down, refused, timed out) stays at the
//! head of that queue and is retried with exponential backoff (100 ms doubling up to 5 s) while
//! new batches queue behind it; beyond `max_buffered_rows` requests, the oldest inserts are
//! dropped and counted. When the server answers again, the queue empties in order. Only
//! ClickHouse 18.16 features are used (MergeTree with a partition key, `Nested` tags,
//! `DateTime`), so old Debian packages work as well as current servers.
//!
//! Report ticks (`reports`, see `sink::ticks`) go into inserts of their own, of whole ticks,
//! sealed at `batch_rows` rows (between two ticks) or `batch_time`: each row encoded straight
//! into the insert, its key values named once per tick (`NameCache`), the insert written in
//! 1 MB chunks that the sender hands back once sent, so that a tick of 100k rows reuses memory
//! rather than faulting fresh pages in (BENCHMARKS.md, "Fleets", has what a row costs).

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::{Output, SinkStats};
pub use crate::config::ClickHouseConfig;
use crate::dictionary::Dictionary;
use crate::histogram::HistView;
use crate::record::{RequestView, TagPair, NO_SCHEMA};
use crate::report::{KeyTexts, KeyValue, Sums};

/// The `TTL` clause of a table with a `time` column: rows older than `ttl` are deleted by the
/// server (ClickHouse 19.6 and later); none for zero.
fn ttl_clause(ttl: Duration) -> String {
    if ttl.is_zero() {
        String::new()
    } else {
        format!(" TTL time + INTERVAL {} SECOND", ttl.as_secs())
    }
}

/// `CREATE TABLE` of the requests table: one row per request (`ttl`: see [`ttl_clause`]).
pub fn requests_ddl(database: &str, table: &str, ttl: Duration) -> String {
    let ttl = ttl_clause(ttl);
    format!(
        "CREATE TABLE IF NOT EXISTS {database}.{table} (\
         time DateTime, timestamp Float64, instance String, id UInt64, \
         hostname String, server_name String, script_name String, schema String, \
         status UInt32, request_count UInt32, document_size UInt32, memory_peak UInt32, \
         memory_footprint UInt32, request_time Float32, ru_utime Float32, ru_stime Float32, \
         timer_count UInt32, tags Nested(name String, value String)\
         ) ENGINE = MergeTree() PARTITION BY toYYYYMMDD(time) ORDER BY (script_name, time){ttl}"
    )
}

/// `CREATE TABLE` of the timers table: one row per timer, with its request's keys.
pub fn timers_ddl(database: &str, table: &str, ttl: Duration) -> String {
    let ttl = ttl_clause(ttl);
    format!(
        "CREATE TABLE IF NOT EXISTS {database}.{table} (\
         time DateTime, instance String, request_id UInt64, \
         hostname String, server_name String, script_name String, \
         value Float32, hit_count UInt32, ru_utime Float32, ru_stime Float32, \
         tags Nested(name String, value String)\
         ) ENGINE = MergeTree() PARTITION BY toYYYYMMDD(time) ORDER BY (script_name, time){ttl}"
    )
}

/// `CREATE TABLE` of the report ticks table: one row per report row of each closed tick (see
/// [`ClickHouseOutput::tick_row`] and docs/fleets.md, "Report ticks"). Written once per tick:
/// the `ReplacingMergeTree`'s sorting key is the tick and row's identity, so an insert sent
/// again after a lost reply leaves one copy once parts merge, and a query with `FINAL` (as the
/// fleet view's) reads one copy before. (ClickHouse 18.16 has no insert deduplication for a
/// table that is not replicated.)
pub fn ticks_ddl(database: &str, table: &str, ttl: Duration) -> String {
    let ttl = ttl_clause(ttl);
    format!(
        "CREATE TABLE IF NOT EXISTS {database}.{table} (\
         time DateTime, tick_start_ms UInt64, tick_ms UInt32, instance String, report String, \
         kind String, row_type UInt8, key_names Array(String), keys Array(String), \
         req_count UInt64, hit_count UInt64, time_ns UInt64, ru_utime_ns UInt64, \
         ru_stime_ns UInt64, traffic_bytes UInt64, memory_footprint_bytes UInt64, \
         memory_peak_bytes UInt64, memory_peak_max UInt32, hist_ids Array(UInt16), hist_counts Array(UInt64)\
         ) ENGINE = ReplacingMergeTree() PARTITION BY toYYYYMMDD(time) \
         ORDER BY (report, instance, tick_start_ms, row_type, keys){ttl}"
    )
}

/// A row's `row_type` in the ticks table: a row of the report.
pub const ROW: u8 = 0;
/// The tick's "(other)" row: contributions that got no row of their own (keys empty).
pub const OTHER: u8 = 1;
/// The report's totals over the tick (keys empty): what the rows and "(other)" sum to, but for
/// a timer report's `req_count`, which counts each request once however many rows it hit.
pub const TOTALS: u8 = 2;

/// The percentiles the fleet view ([`fleet_view_ddl`]) shows.
pub const FLEET_VIEW_PERCENTILES: [f64; 3] = [50.0, 95.0, 99.0];

/// The SQL of a percentile of the merged buckets `ids`/`counts` (an `Array(UInt16)` and an
/// `Array(UInt64)`, ids ascending: `sumMap(hist_ids, hist_counts)`), in seconds, as pinbad
/// computes it (`histogram::Histogram::percentile_ns`): the nearest rank, the bucket holding it
/// found on the cumulative counts, and the value interpolated inside the bucket's bounds. Its
/// helper columns are named `_…{tag}`; `NULL` when the buckets are empty.
pub fn percentile_sql(ids: &str, counts: &str, p: f64, tag: &str) -> String {
    let b = format!("_b{tag}");
    let e = format!("_e{tag}");
    let l = format!("_l{tag}");
    format!(
        "arraySum({counts}) AS _n{tag}, arrayCumSum({counts}) AS _cum{tag}, \
         {p} / 100 * _n{tag} AS _x{tag}, \
         greatest(1, toUInt64(ceil(_x{tag} - greatest(_x{tag} * 1e-12, 1e-9)))) AS _r{tag}, \
         arrayFirstIndex(c -> c >= _r{tag}, _cum{tag}) AS _i{tag}, \
         {ids}[_i{tag}] AS {b}, {counts}[_i{tag}] AS _c{tag}, \
         _r{tag} - (_cum{tag}[_i{tag}] - _c{tag}) AS _k{tag}, \
         9 + intDiv({b} - 1, 128) AS {e}, \
         pow(2, {e}) + (({b} - 1) % 128) * pow(2, {e} - 7) AS {l}, \
         if(_n{tag} = 0, NULL, multiIf({b} = 0, 0, {b} >= {overflow}, {max}, \
         greatest({l}, {min}) + (least({l} + pow(2, {e} - 7), {max}) - greatest({l}, {min})) \
         * (_k{tag} - 0.5) / _c{tag}) / 1e9)",
        overflow = crate::histogram::OVERFLOW_BUCKET,
        // Floats (`1e3`, `1e12`): 18.16 has no common type of UInt64 and Float64 for `least`.
        min = format!("{:e}", crate::histogram::MIN_NS as f64),
        max = format!("{:e}", crate::histogram::MAX_NS as f64),
    )
}

/// The fleet query over the ticks in `table` (deduplicated with `FINAL`) that `filter` (SQL:
/// `report = '…' AND time >= …`, or `1`) selects: one row per report, row type and key across
/// every instance, with the sums exact and the merged buckets (`hist_ids`, `hist_counts`), and
/// `percentiles` (`p50` …, in seconds) computed from them as pinbad does.
pub fn fleet_sql(database: &str, table: &str, filter: &str, percentiles: &[f64]) -> String {
    let mut helpers = String::new();
    let mut names = String::new();
    for (i, p) in percentiles.iter().enumerate() {
        let name = format!("`p{p}`");
        helpers.push_str(&format!(
            ", {} AS {name}",
            percentile_sql("hist_ids", "hist_counts", *p, &i.to_string())
        ));
        names.push_str(&format!(", {name}"));
    }
    format!(
        "SELECT report, kind, row_type, key_names, keys, ticks, first_tick_ms, last_tick_end_ms, \
         req_count, hit_count, time_ns, ru_utime_ns, ru_stime_ns, traffic_bytes, \
         memory_footprint_bytes, memory_peak_bytes, memory_peak_max, hist_ids, hist_counts{names} FROM (\
         SELECT *, hist.1 AS hist_ids, hist.2 AS hist_counts{helpers} FROM (\
         SELECT report, any(kind) AS kind, row_type, any(key_names) AS key_names, keys, \
         count() AS ticks, min(tick_start_ms) AS first_tick_ms, \
         max(tick_start_ms + tick_ms) AS last_tick_end_ms, \
         sum(req_count) AS req_count, sum(hit_count) AS hit_count, sum(time_ns) AS time_ns, \
         sum(ru_utime_ns) AS ru_utime_ns, sum(ru_stime_ns) AS ru_stime_ns, \
         sum(traffic_bytes) AS traffic_bytes, \
         sum(memory_footprint_bytes) AS memory_footprint_bytes, \
         sum(memory_peak_bytes) AS memory_peak_bytes, max(memory_peak_max) AS memory_peak_max, \
         sumMap(hist_ids, hist_counts) AS hist \
         FROM {database}.{table} FINAL WHERE {filter} GROUP BY report, row_type, keys))"
    )
}

/// `CREATE VIEW` of the fleet view `{table}_fleet`: [`fleet_sql`] over every tick the table
/// holds (ClickHouse 18.16 has no parametrized views: a time range is a `WHERE` on the table, as
/// in docs/fleets.md's query).
pub fn fleet_view_ddl(database: &str, table: &str) -> String {
    format!(
        "CREATE VIEW IF NOT EXISTS {database}.{table}_fleet AS {}",
        fleet_sql(database, table, "1", &FLEET_VIEW_PERCENTILES)
    )
}

/// The ticks table's columns in the order [`ClickHouseOutput::tick_row`] writes them.
const TICK_COLUMNS: &str = "time, tick_start_ms, tick_ms, instance, report, kind, row_type, \
     key_names, keys, req_count, hit_count, time_ns, ru_utime_ns, ru_stime_ns, traffic_bytes, \
     memory_footprint_bytes, memory_peak_bytes, memory_peak_max, hist_ids, hist_counts";

/// The requests table's columns in the order [`ClickHouseOutput::encode`] writes them.
const REQUEST_COLUMNS: &str = "time, timestamp, instance, id, hostname, server_name, \
     script_name, schema, status, request_count, document_size, memory_peak, memory_footprint, \
     request_time, ru_utime, ru_stime, timer_count, tags.name, tags.value";
/// The timers table's columns in the order [`ClickHouseOutput::encode`] writes them.
const TIMER_COLUMNS: &str = "time, instance, request_id, hostname, server_name, script_name, \
     value, hit_count, ru_utime, ru_stime, tags.name, tags.value";

/// Which table an insert goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    Requests,
    Timers,
    Ticks,
}

/// One `INSERT` ready to send (or to retry).
struct Insert {
    into: Dest,
    /// Its RowBinary, in pieces sent one after the other (a tick insert's chunks, see
    /// `TickBatch`).
    body: Vec<Vec<u8>>,
    rows: u64,
    /// Report ticks whose rows it holds (whole ticks: `Dest::Ticks` only).
    ticks: u64,
}

/// Encoded requests and timers, sent together.
#[derive(Default)]
struct Batch {
    requests: Vec<u8>,
    request_rows: u64,
    timers: Vec<u8>,
    timer_rows: u64,
    started: Option<Instant>,
}

/// Encoded report ticks (whole ticks), sent as one insert: rows are written into `body`, which
/// joins `full` once it holds [`CHUNK_BYTES`], its successor taken from the sender's spare
/// chunks. So a tick of 100k rows (25 MB) is written into chunks that were written and sent
/// before, rather than into fresh memory (faulted in page by page) moved each time it doubles.
#[derive(Default)]
struct TickBatch {
    full: Vec<Vec<u8>>,
    body: Vec<u8>,
    rows: u64,
    ticks: u64,
    started: Option<Instant>,
    /// Where the tick being encoded starts: `full`'s and `body`'s lengths and `rows` before it.
    tick_from: (usize, usize, u64),
}

/// Bytes of a tick insert's chunk (see `TickBatch`); a row that does not fit goes whole into
/// the chunk it starts in, which then grows.
const CHUNK_BYTES: usize = 1 << 20;
/// A new chunk's room: [`CHUNK_BYTES`] and a row of a few hundred buckets past it.
const CHUNK_CAPACITY: usize = CHUNK_BYTES + (16 << 10);

/// Reads pieces of a body one after the other (see `Insert::body`).
struct Pieces<'a> {
    rest: &'a [Vec<u8>],
    at: usize,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some((piece, next)) = self.rest.split_first() {
            let left = &piece[self.at.min(piece.len())..];
            if !left.is_empty() {
                let n = left.len().min(buf.len());
                buf[..n].copy_from_slice(&left[..n]);
                self.at += n;
                return Ok(n);
            }
            (self.rest, self.at) = (next, 0);
        }
        Ok(0)
    }
}

/// A closed tick as [`ClickHouseOutput::tick_row`] writes it: what its rows share.
pub struct TickHead<'a> {
    /// Unix milliseconds.
    pub start_ms: u64,
    pub tick_ms: u64,
    pub report: &'a str,
    pub kind: &'a str,
    pub key_names: &'a [String],
}

/// The sealed inserts between the sink's thread (which seals batches into it and bounds it) and
/// its sender thread ("pinbad-sink-tx"), which sends them in order. So encoding goes on while an
/// insert waits on the server, and only a server slower than the traffic for long fills it.
#[derive(Default)]
struct Outbox {
    state: Mutex<OutboxState>,
    /// Signalled when inserts arrive or closing starts.
    wake: Condvar,
}

#[derive(Default)]
struct OutboxState {
    /// Oldest first; the head is retried until it succeeds.
    queue: VecDeque<Insert>,
    /// Requests in `queue` and in the insert being sent.
    queued_requests: u64,
    /// Timer rows of the insert being sent, if it is a timers' one.
    in_flight_timers: u64,
    /// Tick rows in `queue` (bounded by `max_buffered_rows` apart from the requests).
    queued_tick_rows: u64,
    /// Ticks of the insert being sent, if it is a ticks' one.
    in_flight_ticks: u64,
    /// Chunks of sent tick inserts, emptied, for the next ones (at most [`SPARE_CHUNKS`]; see
    /// `TickBatch`).
    spare: Vec<Vec<u8>>,
    /// Set by `close`: send what is left until this instant, then count the rest as dropped.
    closing: Option<Instant>,
    /// Set by `close` when the sender had not ended by the stop's deadline (an insert waiting on
    /// a server that does not answer): everything it held is counted as dropped, and the sender,
    /// should its insert ever return, counts nothing more.
    abandoned: bool,
}

/// Chunks kept for reuse at most (see `OutboxState::spare`): 32 MB, more than an insert of
/// `batch_rows` tick rows and the largest tick of the benchmarks' widest report.
const SPARE_CHUNKS: usize = 32;

impl OutboxState {
    /// Keeps a sent tick insert's chunks, emptied, for the next ones (as many as room).
    fn recycle(&mut self, body: Vec<Vec<u8>>) {
        for mut chunk in body {
            if self.spare.len() >= SPARE_CHUNKS {
                break;
            }
            if chunk.capacity() >= CHUNK_BYTES && chunk.capacity() <= 2 * CHUNK_CAPACITY {
                chunk.clear();
                self.spare.push(chunk);
            }
        }
    }

    /// Past the closing deadline: counts everything still queued as dropped (with one warning)
    /// and says so; the sender then stops.
    fn give_up_if_late(&mut self, stats: &SinkStats, sink: &str) -> bool {
        if self
            .closing
            .is_none_or(|deadline| Instant::now() < deadline)
        {
            return false;
        }
        if self.queued_requests > 0 {
            tracing::warn!(sink = %sink, requests = self.queued_requests, "ClickHouse did not take everything before shutdown; counted as dropped");
        }
        let left: Vec<Insert> = self.queue.drain(..).collect();
        for i in &left {
            self.drop_insert(i, stats);
        }
        true
    }

    /// The sender is left behind at the stop's deadline (see `abandoned`): the queue and the
    /// insert being sent are counted as dropped.
    fn abandon(&mut self, stats: &SinkStats, sink: &str) {
        let requests = self.queued_requests;
        let left: Vec<Insert> = self.queue.drain(..).collect();
        for i in &left {
            self.drop_insert(i, stats);
        }
        // What is left of `queued_requests` is the insert being sent.
        stats.dropped.fetch_add(self.queued_requests, Relaxed);
        stats
            .timers_dropped
            .fetch_add(self.in_flight_timers, Relaxed);
        stats.ticks_dropped.fetch_add(self.in_flight_ticks, Relaxed);
        (
            self.queued_requests,
            self.in_flight_timers,
            self.in_flight_ticks,
        ) = (0, 0, 0);
        self.abandoned = true;
        tracing::warn!(sink = %sink, requests, "ClickHouse did not answer by the stop's deadline; what the sink held is counted as dropped");
    }

    /// Counts an insert taken off the queue unsent as dropped.
    fn drop_insert(&mut self, insert: &Insert, stats: &SinkStats) {
        match insert.into {
            Dest::Timers => {
                stats.timers_dropped.fetch_add(insert.rows, Relaxed);
            }
            Dest::Requests => {
                self.queued_requests -= insert.rows;
                stats.dropped.fetch_add(insert.rows, Relaxed);
            }
            Dest::Ticks => {
                self.queued_tick_rows -= insert.rows;
                stats.ticks_dropped.fetch_add(insert.ticks, Relaxed);
            }
        }
    }
}

/// The sink's thread's side: encodes requests into batches and seals them into the outbox.
pub struct ClickHouseOutput {
    config: ClickHouseConfig,
    /// The sink's name (logs).
    sink_name: String,
    instance: String,
    stats: Arc<SinkStats>,
    batch: Batch,
    ticks: TickBatch,
    /// Scratch: the RowBinary of the columns a request's rows share (see `encode`), or a tick's
    /// (see `tick_start`).
    keys: Vec<u8>,
    /// The tick being encoded's `key_names` (see `tick_start`).
    key_names: Vec<u8>,
    /// The tick being encoded's key values (see `tick_row`).
    names: NameCache,
    outbox: Arc<Outbox>,
    sender: Option<std::thread::JoinHandle<()>>,
}

/// The TLS config of an `https://` url with a `ca_file`: its certificates are the only roots
/// (without `ca_file`, ureq verifies against the built-in web PKI roots).
fn tls_config(config: &ClickHouseConfig) -> std::io::Result<Arc<rustls::ClientConfig>> {
    let invalid = |e: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, e);
    let mut roots = rustls::RootCertStore::empty();
    for cert in config.ca_certificates().map_err(invalid)? {
        roots
            .add(cert)
            .map_err(|e| invalid(format!("ca_file {}: {e}", config.ca_file)))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(tls))
}

/// The HTTP agent for `config`'s server (its timeout, no redirects, its CA with `ca_file`) and
/// the `Authorization` header's value, if a user or password is set.
fn agent_of(config: &ClickHouseConfig) -> std::io::Result<(ureq::Agent, Option<String>)> {
    let authorization = (!config.password.is_empty() || config.user != "default").then(|| {
        format!(
            "Basic {}",
            base64(format!("{}:{}", config.user, config.password).as_bytes())
        )
    });
    let mut agent = ureq::AgentBuilder::new()
        .timeout(config.timeout.0)
        .redirects(0);
    if !config.ca_file.is_empty() {
        agent = agent.tls_config(tls_config(config)?);
    }
    Ok((agent.build(), authorization))
}

/// The most of a query's answer [`query`] reads.
const QUERY_ANSWER_BYTES: u64 = 64 << 20;

/// Runs a read query (`sql`, its `FORMAT` included) on `config`'s server and gives its answer
/// (at most 64 MiB read: a longer answer is an error). Blocking: the caller runs it on a
/// blocking thread.
pub fn query(config: &ClickHouseConfig, sql: &str) -> Result<String, String> {
    query_at(config, sql, "")
}

/// [`query`], which ClickHouse itself stops after the sink's `timeout` (its
/// `max_execution_time`, whole seconds rounded up): a query that outlives the HTTP timeout is
/// abandoned by pinbad but went on running on the server, which a client asking again and again
/// (a chart's refresh) piled up there.
pub fn query_timed(config: &ClickHouseConfig, sql: &str) -> Result<String, String> {
    query_at(config, sql, &timed(config))
}

/// [`query_lines`], stopped by ClickHouse itself after the sink's `timeout` (as
/// [`query_timed`]).
pub fn query_lines_timed(
    config: &ClickHouseConfig,
    sql: &str,
    line: impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    query_lines_at(config, sql, &timed(config), line)
}

/// The URL's settings that have ClickHouse stop a query after the sink's `timeout`.
fn timed(config: &ClickHouseConfig) -> String {
    let seconds = config.timeout.0.as_secs() + u64::from(config.timeout.0.subsec_nanos() > 0);
    format!("?max_execution_time={}", seconds.max(1))
}

/// [`query`] with `settings` (`?name=value&...`, or empty) on the URL.
fn query_at(config: &ClickHouseConfig, sql: &str, settings: &str) -> Result<String, String> {
    let mut text = String::new();
    query_lines_at(config, sql, settings, |line| {
        text.push_str(line);
        Ok(())
    })?;
    Ok(text)
}

/// [`query`], its answer handed to `line` a line at a time (each with its `\n`, but the last
/// when it has none) as it is read, never held whole: the fleet API reads a report's rows so,
/// each turned into the answer's row before the next is read. At most 64 MiB read: past it,
/// an error (after the lines before it).
pub fn query_lines(
    config: &ClickHouseConfig,
    sql: &str,
    line: impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    query_lines_at(config, sql, "", line)
}

/// [`query_lines`] with `settings` on the URL (as [`query_at`]).
fn query_lines_at(
    config: &ClickHouseConfig,
    sql: &str,
    settings: &str,
    mut line: impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    use std::io::BufRead;
    let (agent, authorization) = agent_of(config).map_err(|e| e.to_string())?;
    let mut req = agent.post(&format!("{}/{settings}", config.url.trim_end_matches('/')));
    if let Some(a) = &authorization {
        req = req.set("Authorization", a);
    }
    match req.send_string(sql) {
        Ok(r) => {
            let code = r.status();
            let exception = r.header("X-ClickHouse-Exception-Code").map(str::to_string);
            let mut reader = std::io::BufReader::new(std::io::Read::take(
                r.into_reader(),
                QUERY_ANSWER_BYTES + 1,
            ));
            if !(200..300).contains(&code) || exception.is_some() {
                let mut text = Vec::new();
                std::io::Read::read_to_end(&mut reader, &mut text).map_err(|e| e.to_string())?;
                return judge(code, exception.as_deref(), &text);
            }
            let (mut buf, mut read) = (String::new(), 0u64);
            loop {
                buf.clear();
                let n = reader.read_line(&mut buf).map_err(|e| e.to_string())?;
                read += n as u64;
                if read > QUERY_ANSWER_BYTES {
                    return Err("the answer is longer than 64 MiB".into());
                }
                if n == 0 {
                    return Ok(());
                }
                line(&buf)?;
            }
        }
        Err(ureq::Error::Status(code, r)) => {
            let text = r.into_string().unwrap_or_default();
            let text: String = text.chars().take(300).collect();
            Err(format!("HTTP {code}: {}", text.trim()))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The sender thread's side: the HTTP connection, retries and backoff.
struct Sender {
    config: ClickHouseConfig,
    sink: String,
    agent: ureq::Agent,
    authorization: Option<String>,
    /// Whether the tables are known to exist (or need not be created).
    ready: bool,
    /// Whether the last attempt failed (to log the outage once and the recovery once).
    failing: bool,
    backoff: Duration,
}

/// How long after the stop's deadline `close` waits for the sender to have counted what it
/// gave up (it does at the deadline, unless an insert holds it).
const CLOSE_GRACE: Duration = Duration::from_millis(50);

const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

impl ClickHouseOutput {
    /// Starts the sender thread.
    pub fn new(
        config: ClickHouseConfig,
        sink: &str,
        stats: Arc<SinkStats>,
    ) -> std::io::Result<ClickHouseOutput> {
        let instance = if config.instance.is_empty() {
            host_name()
        } else {
            config.instance.clone()
        };
        let (agent, authorization) = agent_of(&config)?;
        let mut sender = Sender {
            agent,
            authorization,
            ready: !config.create_tables,
            config: config.clone(),
            sink: sink.to_string(),
            failing: false,
            backoff: BACKOFF_MIN,
        };
        let outbox = Arc::new(Outbox::default());
        let (ob, st) = (Arc::clone(&outbox), Arc::clone(&stats));
        let thread = std::thread::Builder::new()
            .name("pinbad-sink-tx".into())
            .spawn(move || sender.run(&ob, &st))?;
        Ok(ClickHouseOutput {
            config,
            sink_name: sink.to_string(),
            instance,
            stats,
            batch: Batch::default(),
            ticks: TickBatch::default(),
            keys: Vec::with_capacity(128),
            key_names: Vec::new(),
            names: NameCache::new(),
            outbox,
            sender: Some(thread),
        })
    }

    /// Seals the open batch into the outbox (requests, then their timers), dropping the oldest
    /// inserts while more than `max_buffered_rows` requests wait.
    fn seal(&mut self) {
        let b = std::mem::take(&mut self.batch);
        if b.request_rows == 0 {
            return;
        }
        let mut st = self.outbox.state.lock();
        st.queued_requests += b.request_rows;
        st.queue.push_back(Insert {
            into: Dest::Requests,
            body: vec![b.requests],
            rows: b.request_rows,
            ticks: 0,
        });
        if b.timer_rows > 0 {
            st.queue.push_back(Insert {
                into: Dest::Timers,
                body: vec![b.timers],
                rows: b.timer_rows,
                ticks: 0,
            });
        }
        while st.queued_requests > self.config.max_buffered_rows as u64 {
            let Some(old) = st.queue.pop_front() else {
                break;
            };
            st.drop_insert(&old, &self.stats);
            // Its timers go with it.
            if old.into == Dest::Requests
                && st.queue.front().is_some_and(|i| i.into == Dest::Timers)
            {
                if let Some(t) = st.queue.pop_front() {
                    st.drop_insert(&t, &self.stats);
                }
            }
        }
        drop(st);
        self.outbox.wake.notify_one();
    }

    /// Seals the open ticks into the outbox as one insert, dropping the oldest tick inserts
    /// (counted as dropped ticks) while more than `max_buffered_rows` tick rows wait.
    fn seal_ticks(&mut self) {
        let mut t = std::mem::take(&mut self.ticks);
        if t.ticks == 0 {
            return;
        }
        t.full.push(t.body);
        let mut st = self.outbox.state.lock();
        st.queued_tick_rows += t.rows;
        st.queue.push_back(Insert {
            into: Dest::Ticks,
            body: t.full,
            rows: t.rows,
            ticks: t.ticks,
        });
        while st.queued_tick_rows > self.config.max_buffered_rows as u64 {
            let Some(at) = st.queue.iter().position(|i| i.into == Dest::Ticks) else {
                break;
            };
            if let Some(old) = st.queue.remove(at) {
                st.drop_insert(&old, &self.stats);
            }
        }
        drop(st);
        self.outbox.wake.notify_one();
    }

    /// Starts a closed tick's rows ([`ClickHouseOutput::tick_row`] each, then
    /// [`ClickHouseOutput::tick_end`]): what they share, written once per tick.
    pub fn tick_start(&mut self, head: &TickHead<'_>) {
        let t = &mut self.ticks;
        t.started.get_or_insert_with(Instant::now);
        t.tick_from = (t.full.len(), t.body.len(), t.rows);
        // What every row of the tick shares, up to `row_type`.
        let shared = &mut self.keys;
        shared.clear();
        let secs = (head.start_ms / 1000).min(u32::MAX as u64) as u32;
        shared.extend_from_slice(&secs.to_le_bytes());
        shared.extend_from_slice(&head.start_ms.to_le_bytes());
        shared.extend_from_slice(&(head.tick_ms.min(u32::MAX as u64) as u32).to_le_bytes());
        put_bytes(shared, self.instance.as_bytes());
        put_bytes(shared, head.report.as_bytes());
        put_bytes(shared, head.kind.as_bytes());
        // Ids may name other strings in another tick (see `sink::ticks`).
        self.names.clear();
        // A report row's `key_names`.
        let names = &mut self.key_names;
        names.clear();
        put_len(names, head.key_names.len());
        for n in head.key_names {
            put_bytes(names, n.as_bytes());
        }
    }

    /// One row of the tick begun by [`ClickHouseOutput::tick_start`], in RowBinary, columns in
    /// the order of `TICK_COLUMNS`: a report row with its key values named as the report query
    /// shows them, or the tick's "(other)" or totals row (no keys).
    pub fn tick_row(&mut self, row: &TickRow<'_>) {
        let t = &mut self.ticks;
        if t.body.len() >= CHUNK_BYTES || t.body.capacity() == 0 {
            let next = match self.outbox.state.lock().spare.pop() {
                Some(spare) => spare,
                None => Vec::with_capacity(CHUNK_CAPACITY),
            };
            let full = std::mem::replace(&mut t.body, next);
            if !full.is_empty() {
                t.full.push(full);
            }
        }
        let out = &mut t.body;
        out.extend_from_slice(&self.keys);
        out.push(row.row_type);
        match &row.keys {
            Some((ids, texts, dict)) => {
                out.extend_from_slice(&self.key_names);
                put_len(out, ids.len());
                let names = &mut self.names;
                texts.each(ids, |value| match value {
                    KeyValue::Interned(id) => out.extend_from_slice(names.get(id, dict)),
                    KeyValue::Text(text) => put_bytes(out, text.as_bytes()),
                });
            }
            None => out.extend_from_slice(&[0, 0]),
        }
        let s = row.sums;
        let wide = |v: crate::report::Sum96| u64::try_from(v.get()).unwrap_or(u64::MAX);
        for n in [
            s.req_count,
            s.hit_count,
            wide(s.time_ns),
            wide(s.ru_utime_ns),
            wide(s.ru_stime_ns),
            wide(s.traffic_bytes),
            wide(s.memory_footprint_bytes),
            wide(s.memory_peak_bytes),
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&s.memory_peak_max.to_le_bytes());
        let buckets = row.hist.buckets_used();
        out.reserve(2 * 10 + buckets * 10);
        put_len(out, buckets);
        for (id, _) in row.hist.iter() {
            out.extend_from_slice(&id.to_le_bytes());
        }
        put_len(out, buckets);
        for (_, c) in row.hist.iter() {
            out.extend_from_slice(&c.to_le_bytes());
        }
        self.ticks.rows += 1;
    }

    /// Ends the tick begun: counted in the open insert, or (`keep` false: it is not written,
    /// see `sink::ticks`) its rows taken back out.
    pub fn tick_end(&mut self, keep: bool) {
        let t = &mut self.ticks;
        if keep {
            t.ticks += 1;
            // Sealed here too, not only in `work`: many ticks can close at once, and an insert
            // stays near `batch_rows` rows (and its body one the sender gave back).
            if t.rows >= self.config.batch_rows as u64 {
                self.seal_ticks();
            }
        } else {
            let (full, len, rows) = t.tick_from;
            if t.full.len() > full {
                t.body = t.full.swap_remove(full);
                t.full.truncate(full);
            }
            t.body.truncate(len);
            t.rows = rows;
        }
    }
}

/// Slots of a [`NameCache`].
const NAME_SLOTS: usize = 4096;
/// The most string bytes a [`NameCache`] holds; past it, it starts over.
const NAME_BYTES: usize = 1 << 20;

/// The key values of the tick being encoded, by dictionary id, as RowBinary strings: a tick's
/// rows share few distinct strings (hosts, servers, scripts), so each is read from the
/// dictionary (its entry and then its bytes: two cache misses on a large dictionary) and checked
/// as UTF-8 once per tick rather than once per row. Direct-mapped (a slot per `id % NAME_SLOTS`,
/// a colliding id takes the slot over) and bounded. Emptied at each tick's start: an id names
/// the same string only while the tick is in its window.
struct NameCache {
    /// `(id, start, end)` of each cached string in `strings`; `start == u32::MAX`: empty.
    slots: Box<[(u32, u32, u32)]>,
    strings: Vec<u8>,
}

impl NameCache {
    fn new() -> NameCache {
        NameCache {
            slots: vec![(0, u32::MAX, 0); NAME_SLOTS].into_boxed_slice(),
            strings: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.slots.fill((0, u32::MAX, 0));
        self.strings.clear();
    }

    /// The RowBinary string of `id`'s text (see [`Dictionary::text`]).
    fn get(&mut self, id: u32, dict: &Dictionary) -> &[u8] {
        let slot = id as usize % NAME_SLOTS;
        let (cached, start, end) = self.slots[slot];
        if cached != id || start == u32::MAX {
            if self.strings.len() >= NAME_BYTES {
                self.clear();
            }
            let start = self.strings.len();
            put_bytes(&mut self.strings, dict.text(id).as_bytes());
            self.slots[slot] = (id, start as u32, self.strings.len() as u32);
            return &self.strings[start..];
        }
        &self.strings[start as usize..end as usize]
    }
}

/// One row of a closed tick for [`ClickHouseOutput::tick_row`].
pub struct TickRow<'a> {
    /// [`ROW`], [`OTHER`] or [`TOTALS`].
    pub row_type: u8,
    /// A report row's key ids and how they read (under the dictionary's read lock); `None` for
    /// "(other)" and the totals.
    pub keys: Option<(&'a [u32], &'a KeyTexts, &'a Dictionary)>,
    pub sums: &'a Sums,
    pub hist: HistView<'a>,
}

/// How much of a successful answer is read: an INSERT or a DDL statement answers nothing, and
/// an error ClickHouse could only put in the body starts with its code.
const ANSWER_READ_BYTES: u64 = 64 << 10;

/// Whether ClickHouse's answer (below 400: ureq's errors are the rest) says the statement ran.
/// Only a 2xx does: redirects are not followed (a 3xx to a POST would be re-sent as a GET
/// without the body, and a proxy's login page would answer it 200). And a 2xx with an exception
/// is an error: ClickHouse sends its status before the end of a query when it sends progress
/// headers (`send_progress_in_http_headers` in the user's profile), and an insert that then fails
/// can only say so in the body (`Code: …. DB::Exception: …`) and, from 22.x, in the
/// `X-ClickHouse-Exception-Code` header.
fn judge(code: u16, exception: Option<&str>, body: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(body);
    let text: String = text.trim().chars().take(300).collect();
    if !(200..300).contains(&code) {
        return Err(format!(
            "HTTP {code}, not followed (the url must be ClickHouse's own): {text}"
        ));
    }
    if exception.is_some() || text.starts_with("Code:") || text.contains("DB::Exception") {
        let code_text = exception.map_or(String::new(), |e| format!(" (exception code {e})"));
        return Err(format!("HTTP {code} with an error{code_text}: {text}"));
    }
    Ok(())
}

impl Sender {
    /// Runs one statement; the error says what the server answered.
    fn execute(&self, query: &str, body: &[Vec<u8>]) -> Result<(), String> {
        let url = format!(
            "{}/?query={}",
            self.config.url.trim_end_matches('/'),
            form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
        );
        let mut req = self.agent.post(&url);
        if let Some(a) = &self.authorization {
            req = req.set("Authorization", a);
        }
        let sent = match body {
            [] => req.send_bytes(&[]),
            [one] => req.send_bytes(one),
            _ => {
                let len: usize = body.iter().map(Vec::len).sum();
                req.set("Content-Length", &len.to_string())
                    .send(Pieces { rest: body, at: 0 })
            }
        };
        match sent {
            Ok(r) => {
                let code = r.status();
                let exception = r.header("X-ClickHouse-Exception-Code").map(str::to_string);
                let mut text = Vec::new();
                // Read (bounded) also so that the connection goes back to the agent's pool.
                let _ = std::io::Read::read_to_end(
                    &mut std::io::Read::take(r.into_reader(), ANSWER_READ_BYTES),
                    &mut text,
                );
                judge(code, exception.as_deref(), &text)
            }
            Err(ureq::Error::Status(code, r)) => {
                let text = r.into_string().unwrap_or_default();
                let text: String = text.chars().take(300).collect();
                Err(format!("HTTP {code}: {}", text.trim()))
            }
            Err(e) => Err(e.to_string()),
        }
    }

    fn create_tables(&self) -> Result<(), String> {
        let c = &self.config;
        self.execute(
            &format!("CREATE DATABASE IF NOT EXISTS {}", c.database),
            &[],
        )?;
        self.execute(&requests_ddl(&c.database, &c.requests_table, c.ttl.0), &[])?;
        self.execute(&timers_ddl(&c.database, &c.timers_table, c.ttl.0), &[])?;
        if !c.reports.is_empty() {
            self.execute(&ticks_ddl(&c.database, &c.ticks_table, c.ttl.0), &[])?;
            self.execute(&fleet_view_ddl(&c.database, &c.ticks_table), &[])?;
        }
        Ok(())
    }

    fn insert(&mut self, insert: &Insert) -> Result<(), String> {
        if !self.ready {
            self.create_tables()?;
            self.ready = true;
        }
        let c = &self.config;
        let (table, columns) = match insert.into {
            Dest::Requests => (&c.requests_table, REQUEST_COLUMNS),
            Dest::Timers => (&c.timers_table, TIMER_COLUMNS),
            Dest::Ticks => (&c.ticks_table, TICK_COLUMNS),
        };
        let query = format!(
            "INSERT INTO {}.{table} ({columns}) FORMAT RowBinary",
            self.config.database
        );
        self.execute(&query, &insert.body)
    }

    /// Sends the outbox's inserts in order, each until it succeeds (with backoff), until closing
    /// and empty, or closing and past the closing deadline (the rest counted as dropped).
    fn run(&mut self, outbox: &Outbox, stats: &SinkStats) {
        loop {
            let insert = {
                let mut st = outbox.state.lock();
                loop {
                    // The deadline holds for a slow server too, not only a failing one.
                    if st.give_up_if_late(stats, &self.sink) {
                        return;
                    }
                    if let Some(i) = st.queue.pop_front() {
                        st.in_flight_timers = if i.into == Dest::Timers { i.rows } else { 0 };
                        if i.into == Dest::Ticks {
                            // Out of the bound's count while in flight, as requests are not.
                            st.queued_tick_rows -= i.rows;
                            st.in_flight_ticks = i.ticks;
                        }
                        break i;
                    }
                    if st.closing.is_some() {
                        return;
                    }
                    outbox.wake.wait_for(&mut st, super::TICK);
                }
            };
            let sent = self.insert(&insert);
            let mut st = outbox.state.lock();
            st.in_flight_timers = 0;
            st.in_flight_ticks = 0;
            if st.abandoned {
                // Counted as dropped by `close` already.
                return;
            }
            match sent {
                Ok(()) => {
                    if self.failing {
                        tracing::info!(sink = %self.sink, "ClickHouse answers again; sending what was kept");
                        self.failing = false;
                    }
                    self.backoff = BACKOFF_MIN;
                    match insert.into {
                        Dest::Timers => {
                            stats.timers_sent.fetch_add(insert.rows, Relaxed);
                        }
                        Dest::Requests => {
                            st.queued_requests -= insert.rows;
                            stats.sent.fetch_add(insert.rows, Relaxed);
                        }
                        Dest::Ticks => {
                            stats.ticks_sent.fetch_add(insert.ticks, Relaxed);
                            stats.tick_rows_sent.fetch_add(insert.rows, Relaxed);
                            st.recycle(insert.body);
                        }
                    }
                }
                Err(e) => {
                    stats.failed.fetch_add(1, Relaxed);
                    if !self.failing {
                        tracing::warn!(sink = %self.sink, error = %e, "ClickHouse insert failed; keeping rows and retrying with backoff");
                        self.failing = true;
                    }
                    if insert.into == Dest::Ticks {
                        st.queued_tick_rows += insert.rows;
                    }
                    st.queue.push_front(insert);
                    if st.give_up_if_late(stats, &self.sink) {
                        return;
                    }
                    // Backoff; closing wakes it early (then one more try before the deadline).
                    outbox.wake.wait_for(&mut st, self.backoff);
                    self.backoff = (self.backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
    }
}

/// RowBinary: a `String` (or an array's length) is preceded by its length as an unsigned LEB128
/// varint.
pub(super) fn put_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// RowBinary `String`: its length, then its bytes.
pub(super) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_len(out, b.len());
    out.extend_from_slice(b);
}

/// Appends tags as the two parallel arrays of a `Nested(name, value)` column (`tags.name`, then
/// `tags.value`, each an `Array(String)`).
fn put_tags(out: &mut Vec<u8>, tags: &[TagPair], dict: &Dictionary) {
    put_len(out, tags.len());
    for t in tags {
        put_bytes(out, dict.get(t.name));
    }
    put_len(out, tags.len());
    for t in tags {
        put_bytes(out, dict.get(t.value));
    }
}

impl Output for ClickHouseOutput {
    /// One row per request and one per timer, in RowBinary, columns in the order of
    /// `REQUEST_COLUMNS` and `TIMER_COLUMNS`.
    fn encode(&mut self, v: &RequestView<'_>, unix_ms: u64, dict: &Dictionary) {
        let r = v.record;
        let b = &mut self.batch;
        b.started.get_or_insert_with(Instant::now);
        // `DateTime` is a `UInt32` of seconds.
        let secs = (unix_ms / 1000).min(u32::MAX as u64) as u32;
        // The keys every row of the request shares, after `time` (and the request's own
        // `timestamp`): instance, the id, hostname, server_name, script_name.
        let keys = &mut self.keys;
        keys.clear();
        put_bytes(keys, self.instance.as_bytes());
        keys.extend_from_slice(&v.id.to_le_bytes());
        put_bytes(keys, dict.get(r.hostname));
        put_bytes(keys, dict.get(r.server_name));
        put_bytes(keys, dict.get(r.script_name));

        let out = &mut b.requests;
        out.extend_from_slice(&secs.to_le_bytes());
        out.extend_from_slice(&(unix_ms as f64 / 1000.0).to_le_bytes());
        out.extend_from_slice(keys);
        put_bytes(
            out,
            if r.schema == NO_SCHEMA {
                b""
            } else {
                dict.get(r.schema)
            },
        );
        for n in [
            r.status,
            r.request_count,
            r.document_size,
            r.memory_peak,
            r.memory_footprint,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for x in [r.request_time, r.ru_utime, r.ru_stime] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&(v.timers.len() as u32).to_le_bytes());
        put_tags(out, v.tags(), dict);
        b.request_rows += 1;

        for (t, tags) in v.timers_with_tags() {
            let out = &mut b.timers;
            out.extend_from_slice(&secs.to_le_bytes());
            out.extend_from_slice(keys);
            out.extend_from_slice(&t.value.to_le_bytes());
            out.extend_from_slice(&t.hit_count.to_le_bytes());
            out.extend_from_slice(&t.ru_utime.to_le_bytes());
            out.extend_from_slice(&t.ru_stime.to_le_bytes());
            put_tags(out, tags, dict);
            b.timer_rows += 1;
        }
    }

    fn work(&mut self, _stats: &SinkStats, now: Instant) {
        let b = &self.batch;
        let due = b.request_rows >= self.config.batch_rows as u64
            || b.started
                .is_some_and(|t| now.duration_since(t) >= self.config.batch_time.0);
        if due {
            self.seal();
        }
        let t = &self.ticks;
        let due = t.rows >= self.config.batch_rows as u64
            || t.started
                .is_some_and(|t| now.duration_since(t) >= self.config.batch_time.0);
        if due {
            self.seal_ticks();
        }
    }

    fn pending(&self) -> u64 {
        self.outbox.state.lock().queued_requests + self.batch.request_rows
    }

    fn memory_bytes(&self) -> u64 {
        let chunks = |body: &[Vec<u8>]| body.iter().map(Vec::capacity).sum::<usize>();
        let outbox = {
            let st = self.outbox.state.lock();
            st.queue.iter().map(|i| chunks(&i.body)).sum::<usize>() + chunks(&st.spare)
        };
        let own = self.batch.requests.capacity()
            + self.batch.timers.capacity()
            + chunks(&self.ticks.full)
            + self.ticks.body.capacity();
        (outbox + own) as u64
    }

    fn tick_start(&mut self, head: &TickHead<'_>) {
        ClickHouseOutput::tick_start(self, head);
    }

    fn tick_row(&mut self, row: &TickRow<'_>) {
        ClickHouseOutput::tick_row(self, row);
    }

    fn tick_end(&mut self, keep: bool) {
        ClickHouseOutput::tick_end(self, keep);
    }

    /// Seals the open batch and lets the sender try to deliver everything until `deadline`,
    /// retries and an insert in flight included; what is left then (the server is away, or
    /// does not answer) is counted as dropped. An insert still waiting on the server then is
    /// left behind: its thread ends with the process.
    fn close(&mut self, stats: &SinkStats, deadline: Instant) {
        self.seal();
        self.seal_ticks();
        self.outbox.state.lock().closing = Some(deadline);
        self.outbox.wake.notify_one();
        if let Some(t) = self.sender.take() {
            if !crate::shutdown::join_until(t, deadline + CLOSE_GRACE) {
                self.outbox.state.lock().abandon(stats, &self.sink_name);
            }
        }
    }
}

impl Drop for ClickHouseOutput {
    /// Stops the sender thread (after `close`, it has already ended): nothing is sent any more.
    fn drop(&mut self) {
        if let Some(t) = self.sender.take() {
            self.outbox.state.lock().closing = Some(Instant::now());
            self.outbox.wake.notify_one();
            let _ = t.join();
        }
    }
}

/// The machine's host name (the default `instance`).
fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "pinbad".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Standard base64 (for the Basic authorization header; not worth a crate).
fn base64(input: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HumanDuration;
    use crate::record::{Record, Timer};

    /// A ClickHouse on an international domain name: its host is sent in its ASCII form
    /// (`url`'s IDNA back end is pinned in Cargo.toml; the non-ASCII name must still work).
    #[test]
    fn a_non_ascii_host_name_is_sent_in_its_ascii_form() {
        let url = ureq::post("http://clickhouse.bücher.example:8123/?database=pinba")
            .request_url()
            .unwrap();
        assert_eq!(url.host(), "clickhouse.xn--bcher-kva.example");
        assert_eq!(url.port(), Some(8123));
    }

    #[test]
    fn only_a_2xx_without_an_exception_is_a_success() {
        assert_eq!(judge(200, None, b""), Ok(()));
        assert_eq!(judge(204, None, b"\n"), Ok(()));
        // A redirect, not followed: its target would get a GET without the rows.
        let e = judge(307, None, b"").unwrap_err();
        assert!(e.starts_with("HTTP 307, not followed"), "{e}");
        // Progress headers sent the 200 before an insert failed: the body says so.
        let body = b"Code: 252. DB::Exception: Too many parts (300). (TOO_MANY_PARTS)\n";
        let e = judge(200, None, body).unwrap_err();
        assert!(e.contains("with an error: Code: 252."), "{e}");
        let e = judge(200, Some("241"), b"").unwrap_err();
        assert!(e.contains("exception code 241"), "{e}");
        let e = judge(
            200,
            None,
            b"...\nCode: 27. DB::Exception: Cannot parse input",
        )
        .unwrap_err();
        assert!(e.contains("DB::Exception"), "{e}");
    }

    #[test]
    fn urls_are_checked_at_start_up_and_hold_no_credentials() {
        let check = |url: &str| {
            ClickHouseConfig {
                url: url.into(),
                ..Default::default()
            }
            .validate()
        };
        for good in [
            "http://127.0.0.1:8123",
            "http://localhost:8123/",
            "http://[::1]:8123",
            "http://clickhouse.example.com",
        ] {
            assert!(check(good).is_ok(), "{good}");
        }
        let e = check("http://user:secret@127.0.0.1:8123").unwrap_err();
        assert_eq!(e.0, "url");
        assert!(
            e.1.contains("credentials") && !e.1.contains("secret"),
            "{e:?}"
        );
        for bad in [
            "http://[::1",
            "http://[nope]:8123",
            "http://h:port",
            "http://h:99999",
            "http://h:+80",
            "http://:8123",
            "ftp://127.0.0.1:8123",
            "https://h:8123/?x=1",
        ] {
            assert_eq!(check(bad).map_err(|e| e.0), Err("url"), "{bad}");
        }
    }

    #[test]
    fn base64_matches_the_rfc_examples() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("user:pass", "dXNlcjpwYXNz"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    /// Reads RowBinary values back, as ClickHouse does.
    struct Reader<'a>(&'a [u8]);

    impl<'a> Reader<'a> {
        fn take(&mut self, n: usize) -> &'a [u8] {
            let (head, rest) = self.0.split_at(n);
            self.0 = rest;
            head
        }
        fn u32(&mut self) -> u32 {
            u32::from_le_bytes(self.take(4).try_into().unwrap())
        }
        fn u64(&mut self) -> u64 {
            u64::from_le_bytes(self.take(8).try_into().unwrap())
        }
        fn f32(&mut self) -> f32 {
            f32::from_le_bytes(self.take(4).try_into().unwrap())
        }
        fn f64(&mut self) -> f64 {
            f64::from_le_bytes(self.take(8).try_into().unwrap())
        }
        fn len(&mut self) -> usize {
            let (mut n, mut shift) = (0usize, 0);
            loop {
                let b = self.take(1)[0];
                n |= ((b & 0x7f) as usize) << shift;
                if b < 0x80 {
                    return n;
                }
                shift += 7;
            }
        }
        fn string(&mut self) -> &'a [u8] {
            let n = self.len();
            self.take(n)
        }
        fn strings(&mut self) -> Vec<&'a [u8]> {
            let n = self.len();
            (0..n).map(|_| self.string()).collect()
        }
    }

    /// A tick's rows as `TICK_COLUMNS` says: what they share, the row type, key names and
    /// values, the seven sums, and the buckets as ids and counts; whole ticks counted.
    #[test]
    fn tick_rows_are_row_binary_with_their_buckets() {
        let config = ClickHouseConfig {
            url: "http://127.0.0.1:9".into(),
            instance: "i1".into(),
            timeout: HumanDuration(Duration::from_millis(300)),
            ..Default::default()
        };
        let stats = Arc::new(SinkStats::default());
        let mut out = ClickHouseOutput::new(config, "t", Arc::clone(&stats)).unwrap();
        let mut hist = crate::histogram::Histogram::new();
        hist.add(5_000_000, 3);
        hist.add(20_000_000, 1);
        let sums = crate::report::Sums {
            req_count: 4,
            hit_count: 0,
            time_ns: 35_000_000u64.into(),
            memory_peak_bytes: 8_000_000u64.into(),
            memory_peak_max: 3_000_000,
            ..Default::default()
        };
        let mut dict = Dictionary::new(100);
        let report = crate::report::Report::new(
            crate::report::ReportDef::new("r", &["script_name", "status"]),
            &mut dict,
            100,
        )
        .unwrap();
        let (names, texts) = (report.key_columns().to_vec(), report.key_texts());
        let script = dict.intern(b"/a.php");
        let head = TickHead {
            start_ms: 1_700_000_000_250,
            tick_ms: 15_000,
            report: "r",
            kind: "request",
            key_names: &names,
        };
        let row = |row_type, keys| TickRow {
            row_type,
            keys,
            sums: &sums,
            hist: (&hist).into(),
        };
        let ids = [script, 404];
        // A tick not kept leaves nothing behind.
        out.tick_start(&head);
        out.tick_row(&row(ROW, Some((&ids[..], &texts, &dict))));
        out.tick_end(false);
        assert_eq!((out.ticks.ticks, out.ticks.rows), (0, 0));
        assert!(out.ticks.body.is_empty());
        out.tick_start(&head);
        out.tick_row(&row(ROW, Some((&ids[..], &texts, &dict))));
        out.tick_row(&row(TOTALS, None));
        out.tick_end(true);
        assert_eq!((out.ticks.ticks, out.ticks.rows), (1, 2));
        let mut r = Reader(&out.ticks.body);
        for (row_type, names, keys) in [(ROW, 2, 2), (TOTALS, 0, 0)] {
            assert_eq!(r.u32(), 1_700_000_000, "time");
            assert_eq!(r.u64(), 1_700_000_000_250, "tick_start_ms");
            assert_eq!(r.u32(), 15_000, "tick_ms");
            assert_eq!(
                (r.string(), r.string(), r.string()),
                (&b"i1"[..], &b"r"[..], &b"request"[..])
            );
            assert_eq!(r.take(1)[0], row_type);
            assert_eq!(r.strings().len(), names, "key_names");
            let k = r.strings();
            assert_eq!(k.len(), keys);
            if keys == 2 {
                assert_eq!(k, [&b"/a.php"[..], b"404"]);
            }
            let s: Vec<u64> = (0..8).map(|_| r.u64()).collect();
            assert_eq!(s, [4, 0, 35_000_000, 0, 0, 0, 0, 8_000_000]);
            assert_eq!(r.u32(), 3_000_000, "memory_peak_max");
            let n = r.len();
            let ids: Vec<u16> = (0..n)
                .map(|_| u16::from_le_bytes(r.take(2).try_into().unwrap()))
                .collect();
            assert_eq!(r.len(), n);
            let counts: Vec<u64> = (0..n).map(|_| r.u64()).collect();
            let want: Vec<(u16, u64)> = hist.iter().collect();
            assert_eq!(ids.into_iter().zip(counts).collect::<Vec<_>>(), want);
        }
        assert!(r.0.is_empty());
        // Sealed by age; sent nowhere: counted as dropped at the close.
        out.work(&stats, Instant::now() + Duration::from_secs(2));
        out.close(&stats, Instant::now() + Duration::from_millis(200));
        assert_eq!(stats.ticks_dropped.load(Relaxed), 1);
        assert_eq!(stats.ticks_sent.load(Relaxed), 0);
    }

    /// A long tick goes into chunks, each of whole rows, read back one after the other as one
    /// body; a tick not kept takes its rows back out of every chunk it wrote.
    #[test]
    fn tick_rows_fill_chunks_of_whole_rows() {
        let config = ClickHouseConfig {
            url: "http://127.0.0.1:9".into(),
            instance: "i1".into(),
            batch_rows: 1_000_000,
            ..Default::default()
        };
        let stats = Arc::new(SinkStats::default());
        let mut out = ClickHouseOutput::new(config, "t", Arc::clone(&stats)).unwrap();
        let mut hist = crate::histogram::Histogram::new();
        hist.add(5_000_000, 3);
        let sums = crate::report::Sums::default();
        let head = TickHead {
            start_ms: 1_700_000_000_250,
            tick_ms: 15_000,
            report: "r",
            kind: "request",
            key_names: &[],
        };
        let row = TickRow {
            row_type: TOTALS,
            keys: None,
            sums: &sums,
            hist: (&hist).into(),
        };
        let tick = |out: &mut ClickHouseOutput, keep: bool| {
            out.tick_start(&head);
            for _ in 0..20_000 {
                out.tick_row(&row);
            }
            out.tick_end(keep);
        };
        tick(&mut out, true);
        let (full, body) = (out.ticks.full.len(), out.ticks.body.len());
        // A second tick, not kept: as if it never came.
        tick(&mut out, false);
        assert_eq!((out.ticks.full.len(), out.ticks.body.len()), (full, body));
        assert_eq!((out.ticks.rows, out.ticks.ticks), (20_000, 1));
        let mut chunks = out.ticks.full.clone();
        chunks.push(out.ticks.body.clone());
        assert!(chunks.len() >= 2, "{} chunks", chunks.len());
        let total: usize = chunks.iter().map(Vec::len).sum();
        let per_row = total / 20_000;
        assert_eq!(total, per_row * 20_000);
        for c in &chunks {
            assert_eq!(c.len() % per_row, 0, "a chunk of whole rows");
        }
        let mut read = Vec::new();
        let mut pieces = Pieces {
            rest: &chunks,
            at: 0,
        };
        let mut buf = [0u8; 7];
        loop {
            let n = std::io::Read::read(&mut pieces, &mut buf).unwrap();
            if n == 0 {
                break;
            }
            read.extend_from_slice(&buf[..n]);
        }
        assert_eq!(read, chunks.concat());
        out.close(&stats, Instant::now() + Duration::from_millis(100));
    }

    /// A tick's key values are named once, and right when ids collide on a slot or the cache
    /// starts over.
    #[test]
    fn the_name_cache_gives_each_id_its_string() {
        let mut dict = Dictionary::new(10_000);
        let ids: Vec<u32> = (0..5000)
            .map(|i| dict.intern(format!("/s{i}.php").as_bytes()))
            .collect();
        let want = |id: u32| {
            let mut v = Vec::new();
            put_bytes(&mut v, dict.text(id).as_bytes());
            v
        };
        let mut cache = NameCache::new();
        for round in 0..3 {
            for &id in ids.iter().rev() {
                assert_eq!(cache.get(id, &dict), want(id), "round {round}, id {id}");
            }
        }
        // Full: a string not cached starts it over.
        let other = ids[4096 + 7];
        assert_eq!(other as usize % NAME_SLOTS, ids[7] as usize % NAME_SLOTS);
        cache.strings.resize(NAME_BYTES, 0);
        assert_eq!(cache.get(other, &dict), want(other));
        assert_eq!(cache.strings.len(), want(other).len());
        assert_eq!(cache.get(ids[7], &dict), want(ids[7]));
    }

    /// The fleet SQL names every percentile column and reads the table `FINAL`.
    #[test]
    fn fleet_sql_reads_final_with_percentile_columns() {
        let sql = fleet_sql("db", "t", "1", &[50.0, 99.9]);
        assert!(sql.contains("FROM db.t FINAL WHERE 1"), "{sql}");
        assert!(
            sql.contains("AS `p50`") && sql.contains("AS `p99.9`"),
            "{sql}"
        );
        assert!(
            sql.contains("1e12") && !sql.contains("1000000000000"),
            "{sql}"
        );
    }

    /// Lengths past 127 take more than one byte (LEB128), as ClickHouse reads them.
    #[test]
    fn row_binary_lengths_are_leb128() {
        for (n, want) in [
            (0usize, &[0u8][..]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (300, &[0xac, 0x02]),
            (16_384, &[0x80, 0x80, 0x01]),
        ] {
            let mut out = Vec::new();
            put_len(&mut out, n);
            assert_eq!(out, want, "{n}");
            assert_eq!(Reader(&out).len(), n);
        }
        let long = vec![b'x'; 1000];
        let mut out = Vec::new();
        put_bytes(&mut out, &long);
        assert_eq!(Reader(&out).string(), &long[..]);
    }

    #[test]
    fn rows_are_row_binary_with_nested_tags_and_failed_inserts_stay_queued() {
        let mut dict = Dictionary::new(100);
        let host = dict.intern(b"web1");
        let script = dict.intern(b"/a.php");
        let (g, db) = (dict.intern(b"group"), dict.intern(b"db"));
        let record = Record {
            hostname: host,
            server_name: host,
            script_name: script,
            schema: NO_SCHEMA,
            status: 200,
            request_time: 0.5,
            timer_count: 2,
            ..Default::default()
        };
        let timers = [
            Timer {
                value: 0.1,
                hit_count: 2,
                tag_count: 1,
                ..Default::default()
            },
            Timer {
                value: 0.2,
                hit_count: 1,
                tag_count: 0,
                ..Default::default()
            },
        ];
        let block = [TagPair { name: g, value: db }];
        let view = RequestView {
            id: 5,
            record: &record,
            tag_block: &block,
            timers: &timers,
        };
        // Nothing listens on port 9 of loopback: every insert fails at once.
        let config = ClickHouseConfig {
            url: "http://127.0.0.1:9".into(),
            batch_rows: 2,
            max_buffered_rows: 4,
            instance: "test".into(),
            timeout: HumanDuration(Duration::from_millis(300)),
            ..Default::default()
        };
        let stats = Arc::new(SinkStats::default());
        let mut out = ClickHouseOutput::new(config, "t", Arc::clone(&stats)).unwrap();
        out.encode(&view, 1_700_000_000_500, &dict);
        // The request row, column by column (REQUEST_COLUMNS).
        let mut r = Reader(&out.batch.requests);
        assert_eq!(r.u32(), 1_700_000_000, "time");
        assert_eq!(r.f64(), 1_700_000_000.5, "timestamp");
        assert_eq!(r.string(), b"test", "instance");
        assert_eq!(r.u64(), 5, "id");
        assert_eq!(
            (r.string(), r.string(), r.string(), r.string()),
            (&b"web1"[..], &b"web1"[..], &b"/a.php"[..], &b""[..]),
            "hostname, server_name, script_name, schema"
        );
        assert_eq!(
            [r.u32(), r.u32(), r.u32(), r.u32(), r.u32()],
            [200, 0, 0, 0, 0],
            "status and sizes"
        );
        assert_eq!([r.f32(), r.f32(), r.f32()], [0.5, 0.0, 0.0], "times");
        assert_eq!(r.u32(), 2, "timer_count");
        assert_eq!(r.strings(), Vec::<&[u8]>::new(), "tags.name");
        assert_eq!(r.strings(), Vec::<&[u8]>::new(), "tags.value");
        assert!(r.0.is_empty(), "one row, nothing after it");
        assert_eq!(out.batch.request_rows, 1);
        // The timer rows (TIMER_COLUMNS).
        let mut t = Reader(&out.batch.timers);
        for (value, hits, tag) in [(0.1f32, 2, Some(("group", "db"))), (0.2, 1, None)] {
            assert_eq!(t.u32(), 1_700_000_000, "time");
            assert_eq!(t.string(), b"test", "instance");
            assert_eq!(t.u64(), 5, "request_id");
            assert_eq!(
                (t.string(), t.string(), t.string()),
                (&b"web1"[..], &b"web1"[..], &b"/a.php"[..])
            );
            assert_eq!(t.f32(), value, "value");
            assert_eq!(t.u32(), hits, "hit_count");
            assert_eq!([t.f32(), t.f32()], [0.0, 0.0], "ru_utime, ru_stime");
            let (names, values) = (t.strings(), t.strings());
            match tag {
                Some((n, v)) => {
                    assert_eq!((names, values), (vec![n.as_bytes()], vec![v.as_bytes()]))
                }
                None => assert!(names.is_empty() && values.is_empty()),
            }
        }
        assert!(t.0.is_empty(), "two rows, nothing after them");
        assert_eq!(out.batch.timer_rows, 2);
        for _ in 0..7 {
            out.encode(&view, 1_700_000_000_500, &dict);
            out.work(&stats, Instant::now());
        }
        // 8 requests in batches of 2; at most 4 kept for retry (with the one being sent), the
        // oldest 4 dropped.
        assert_eq!(stats.dropped.load(Relaxed), 4);
        assert_eq!(out.pending(), 4);
        // What is kept for the retry is memory the budget is told of: the queued inserts' bytes
        // (at least a row's ~60 bytes each) and the batch being filled.
        assert!(out.memory_bytes() >= 3 * 60, "{}", out.memory_bytes());
        let deadline = Instant::now() + Duration::from_secs(10);
        while stats.failed.load(Relaxed) == 0 {
            assert!(Instant::now() < deadline, "no failed attempt");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(stats.sent.load(Relaxed), 0);
        // Closing gives up at the stop's deadline and counts the rest.
        out.close(&stats, Instant::now() + Duration::from_millis(300));
        assert_eq!(stats.dropped.load(Relaxed), 8);
        assert_eq!(out.pending(), 0);
    }
}
