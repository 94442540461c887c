//! The ClickHouse sink (`kind = "clickhouse"`): batched `INSERT … FORMAT JSONEachRow` over
//! ClickHouse's HTTP interface into a requests table and a timers table ([`requests_ddl`],
//! [`timers_ddl`]; the README documents them), created at start when `create_tables = true`.
//!
//! Runs on the sink's thread. Requests are encoded into the open batch; a batch is sealed when it
//! holds `batch_rows` requests or is `batch_time` old, into two inserts (requests, then their
//! timers) queued for sending. A failed insert (server down, refused, timed out) stays at the
//! head of that queue and is retried with exponential backoff (100 ms doubling up to 5 s) while
//! new batches queue behind it; beyond `max_buffered_rows` requests, the oldest inserts are
//! dropped and counted. When the server answers again, the queue empties in order. Only
//! ClickHouse 18.16 features are used (MergeTree with a partition key, `Nested` tags,
//! `DateTime`), so old Debian packages work as well as current servers.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Output, SinkStats};
use crate::api::requests::{put, put_f32, write_timer_fields};
use crate::config::HumanDuration;
use crate::dictionary::Dictionary;
use crate::record::{RequestView, TagPair, NO_SCHEMA};

/// `[[sink]]` keys of `kind = "clickhouse"`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClickHouseConfig {
    /// The HTTP interface, e.g. `http://127.0.0.1:8123` (no TLS).
    pub url: String,
    pub database: String,
    pub user: String,
    pub password: String,
    pub requests_table: String,
    pub timers_table: String,
    /// Create the database and both tables (if missing) before the first insert.
    pub create_tables: bool,
    /// A batch is sent when it holds this many requests...
    pub batch_rows: usize,
    /// ...or is this old.
    pub batch_time: HumanDuration,
    /// Requests kept for retry while the server is away; beyond it the oldest are dropped.
    pub max_buffered_rows: usize,
    /// Time an insert may take before it counts as failed.
    pub timeout: HumanDuration,
    /// Written in every row's `instance` column, to tell pinbad instances apart in one cluster.
    /// Empty: the machine's host name.
    pub instance: String,
}

impl Default for ClickHouseConfig {
    fn default() -> ClickHouseConfig {
        ClickHouseConfig {
            url: String::new(),
            database: "default".into(),
            user: "default".into(),
            password: String::new(),
            requests_table: "pinba_requests".into(),
            timers_table: "pinba_timers".into(),
            create_tables: false,
            batch_rows: 10_000,
            batch_time: HumanDuration(Duration::from_secs(1)),
            max_buffered_rows: 1_000_000,
            timeout: HumanDuration(Duration::from_secs(10)),
            instance: String::new(),
        }
    }
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

impl ClickHouseConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let rest = self.url.strip_prefix("http://").unwrap_or("");
        if rest.is_empty() || rest.contains(['?', '#', ' ']) {
            return Err((
                "url",
                format!(
                    "`{}` is not a plain http:// URL like http://127.0.0.1:8123",
                    self.url
                ),
            ));
        }
        for (key, v) in [
            ("database", &self.database),
            ("requests_table", &self.requests_table),
            ("timers_table", &self.timers_table),
        ] {
            if !is_identifier(v) {
                return Err((key, format!("`{v}` must be letters, digits and `_`")));
            }
        }
        if self.batch_rows == 0 || self.batch_rows > 1_000_000 {
            return Err(("batch_rows", "must be in 1..=1000000".into()));
        }
        if self.batch_time.0 < Duration::from_millis(10)
            || self.batch_time.0 > Duration::from_secs(3600)
        {
            return Err(("batch_time", "must be between 10ms and 1h".into()));
        }
        if self.max_buffered_rows < self.batch_rows || self.max_buffered_rows > 100_000_000 {
            return Err((
                "max_buffered_rows",
                "must be at least batch_rows and at most 100000000".into(),
            ));
        }
        if self.timeout.0 < Duration::from_millis(100) || self.timeout.0 > Duration::from_secs(600)
        {
            return Err(("timeout", "must be between 100ms and 10m".into()));
        }
        Ok(())
    }
}

/// `CREATE TABLE` of the requests table: one row per request.
pub fn requests_ddl(database: &str, table: &str) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS {database}.{table} (\
         time DateTime, timestamp Float64, instance String, id UInt64, \
         hostname String, server_name String, script_name String, schema String, \
         status UInt32, request_count UInt32, document_size UInt32, memory_peak UInt32, \
         memory_footprint UInt32, request_time Float32, ru_utime Float32, ru_stime Float32, \
         timer_count UInt32, tags Nested(name String, value String)\
         ) ENGINE = MergeTree() PARTITION BY toYYYYMMDD(time) ORDER BY (script_name, time)"
    )
}

/// `CREATE TABLE` of the timers table: one row per timer, with its request's keys.
pub fn timers_ddl(database: &str, table: &str) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS {database}.{table} (\
         time DateTime, instance String, request_id UInt64, \
         hostname String, server_name String, script_name String, \
         value Float32, hit_count UInt32, ru_utime Float32, ru_stime Float32, \
         tags Nested(name String, value String)\
         ) ENGINE = MergeTree() PARTITION BY toYYYYMMDD(time) ORDER BY (script_name, time)"
    )
}

/// One `INSERT` ready to send (or to retry).
struct Insert {
    timers: bool,
    body: Vec<u8>,
    rows: u64,
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

pub struct ClickHouseOutput {
    config: ClickHouseConfig,
    sink: String,
    instance: String,
    agent: ureq::Agent,
    authorization: Option<String>,
    batch: Batch,
    /// Sealed inserts, oldest first; the head is retried until it succeeds.
    queue: VecDeque<Insert>,
    /// Requests in `queue`.
    queued_requests: u64,
    /// No attempt before this (backoff after a failure).
    next_attempt: Instant,
    backoff: Duration,
    /// Whether the tables are known to exist (or need not be created).
    ready: bool,
    /// Whether the last attempt failed (to log the outage once and the recovery once).
    failing: bool,
}

const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

impl ClickHouseOutput {
    pub fn new(config: ClickHouseConfig, sink: &str) -> ClickHouseOutput {
        let instance = if config.instance.is_empty() {
            host_name()
        } else {
            config.instance.clone()
        };
        let agent = ureq::AgentBuilder::new().timeout(config.timeout.0).build();
        let authorization = (!config.password.is_empty() || config.user != "default").then(|| {
            format!(
                "Basic {}",
                base64(format!("{}:{}", config.user, config.password).as_bytes())
            )
        });
        ClickHouseOutput {
            ready: !config.create_tables,
            config,
            sink: sink.to_string(),
            instance,
            agent,
            authorization,
            batch: Batch::default(),
            queue: VecDeque::new(),
            queued_requests: 0,
            next_attempt: Instant::now(),
            backoff: BACKOFF_MIN,
            failing: false,
        }
    }

    /// Runs one statement; the error says what the server answered.
    fn execute(&self, query: &str, body: &[u8]) -> Result<(), String> {
        let url = format!(
            "{}/?query={}",
            self.config.url.trim_end_matches('/'),
            form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
        );
        let mut req = self.agent.post(&url);
        if let Some(a) = &self.authorization {
            req = req.set("Authorization", a);
        }
        match req.send_bytes(body) {
            Ok(_) => Ok(()),
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
            b"",
        )?;
        self.execute(&requests_ddl(&c.database, &c.requests_table), b"")?;
        self.execute(&timers_ddl(&c.database, &c.timers_table), b"")
    }

    fn seal(&mut self) {
        let b = std::mem::take(&mut self.batch);
        if b.request_rows == 0 {
            return;
        }
        self.queued_requests += b.request_rows;
        self.queue.push_back(Insert {
            timers: false,
            body: b.requests,
            rows: b.request_rows,
        });
        if b.timer_rows > 0 {
            self.queue.push_back(Insert {
                timers: true,
                body: b.timers,
                rows: b.timer_rows,
            });
        }
    }

    /// Drops the oldest inserts while more than `max_buffered_rows` requests wait.
    fn bound(&mut self, stats: &SinkStats) {
        while self.queued_requests > self.config.max_buffered_rows as u64 {
            let Some(old) = self.queue.pop_front() else {
                break;
            };
            self.drop_insert(&old, stats);
            // Its timers go with it.
            if !old.timers && self.queue.front().is_some_and(|i| i.timers) {
                if let Some(t) = self.queue.pop_front() {
                    self.drop_insert(&t, stats);
                }
            }
        }
    }

    /// Counts an insert taken off the queue unsent as dropped.
    fn drop_insert(&mut self, insert: &Insert, stats: &SinkStats) {
        if insert.timers {
            stats.timers_dropped.fetch_add(insert.rows, Relaxed);
        } else {
            self.queued_requests -= insert.rows;
            stats.dropped.fetch_add(insert.rows, Relaxed);
        }
    }

    /// Sends queued inserts in order until one fails (then backs off) or none is left.
    fn send(&mut self, stats: &SinkStats) {
        while !self.queue.is_empty() {
            let creating = !self.ready;
            let result = if creating {
                self.create_tables()
            } else {
                let head = &self.queue[0];
                let table = if head.timers {
                    &self.config.timers_table
                } else {
                    &self.config.requests_table
                };
                let query = format!(
                    "INSERT INTO {}.{table} FORMAT JSONEachRow",
                    self.config.database
                );
                self.execute(&query, &head.body)
            };
            match result {
                Ok(()) => {
                    if self.failing {
                        tracing::info!(sink = %self.sink, "ClickHouse answers again; sending what was kept");
                        self.failing = false;
                    }
                    self.backoff = BACKOFF_MIN;
                    if creating {
                        self.ready = true;
                        continue;
                    }
                    let Some(done) = self.queue.pop_front() else {
                        break;
                    };
                    if done.timers {
                        stats.timers_sent.fetch_add(done.rows, Relaxed);
                    } else {
                        self.queued_requests -= done.rows;
                        stats.sent.fetch_add(done.rows, Relaxed);
                    }
                }
                Err(e) => {
                    stats.failed.fetch_add(1, Relaxed);
                    if !self.failing {
                        tracing::warn!(sink = %self.sink, error = %e, "ClickHouse insert failed; keeping rows and retrying with backoff");
                        self.failing = true;
                    }
                    self.next_attempt = Instant::now() + self.backoff;
                    self.backoff = (self.backoff * 2).min(BACKOFF_MAX);
                    return;
                }
            }
        }
    }
}

/// Appends tags as the two parallel arrays of a `Nested(name, value)` column.
fn put_tags(out: &mut Vec<u8>, tags: &[TagPair], dict: &Dictionary) {
    out.extend_from_slice(b"\"tags.name\":[");
    for (i, t) in tags.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        put(out, &*dict.text(t.name));
    }
    out.extend_from_slice(b"],\"tags.value\":[");
    for (i, t) in tags.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        put(out, &*dict.text(t.value));
    }
    out.push(b']');
}

impl Output for ClickHouseOutput {
    fn encode(&mut self, v: &RequestView<'_>, unix_ms: u64, dict: &Dictionary) {
        let r = v.record;
        let b = &mut self.batch;
        b.started.get_or_insert_with(Instant::now);
        let secs = unix_ms / 1000;
        // The keys every row of the request shares.
        let mut keys = Vec::with_capacity(128);
        keys.extend_from_slice(b"\"instance\":");
        put(&mut keys, &self.instance);
        keys.extend_from_slice(b",\"hostname\":");
        put(&mut keys, &*dict.text(r.hostname));
        keys.extend_from_slice(b",\"server_name\":");
        put(&mut keys, &*dict.text(r.server_name));
        keys.extend_from_slice(b",\"script_name\":");
        put(&mut keys, &*dict.text(r.script_name));

        let out = &mut b.requests;
        out.extend_from_slice(b"{\"time\":");
        put(out, &secs);
        out.extend_from_slice(b",\"timestamp\":");
        put(out, &(unix_ms as f64 / 1000.0));
        out.push(b',');
        out.extend_from_slice(&keys);
        out.extend_from_slice(b",\"id\":");
        put(out, &v.id);
        out.extend_from_slice(b",\"schema\":");
        if r.schema == NO_SCHEMA {
            out.extend_from_slice(b"\"\"");
        } else {
            put(out, &*dict.text(r.schema));
        }
        for (key, n) in [
            (&b",\"status\":"[..], r.status),
            (b",\"request_count\":", r.request_count),
            (b",\"document_size\":", r.document_size),
            (b",\"memory_peak\":", r.memory_peak),
            (b",\"memory_footprint\":", r.memory_footprint),
            (b",\"timer_count\":", v.timers.len() as u32),
        ] {
            out.extend_from_slice(key);
            put(out, &n);
        }
        out.extend_from_slice(b",\"request_time\":");
        put_f32(out, r.request_time);
        out.extend_from_slice(b",\"ru_utime\":");
        put_f32(out, r.ru_utime);
        out.extend_from_slice(b",\"ru_stime\":");
        put_f32(out, r.ru_stime);
        out.push(b',');
        put_tags(out, v.tags(), dict);
        out.extend_from_slice(b"}\n");
        b.request_rows += 1;

        for (t, tags) in v.timers_with_tags() {
            let out = &mut b.timers;
            out.extend_from_slice(b"{\"time\":");
            put(out, &secs);
            out.push(b',');
            out.extend_from_slice(&keys);
            out.extend_from_slice(b",\"request_id\":");
            put(out, &v.id);
            out.push(b',');
            write_timer_fields(out, t);
            out.push(b',');
            put_tags(out, tags, dict);
            out.extend_from_slice(b"}\n");
            b.timer_rows += 1;
        }
    }

    fn work(&mut self, stats: &SinkStats, now: Instant) {
        let b = &self.batch;
        let due = b.request_rows >= self.config.batch_rows as u64
            || b.started
                .is_some_and(|t| now.duration_since(t) >= self.config.batch_time.0);
        if due {
            self.seal();
            self.bound(stats);
        }
        if !self.queue.is_empty() && now >= self.next_attempt {
            self.send(stats);
        }
    }

    fn pending(&self) -> u64 {
        self.queued_requests + self.batch.request_rows
    }

    /// Seals the open batch and tries to send everything for at most `timeout`; what is left
    /// (the server is away) is counted as dropped.
    fn close(&mut self, stats: &SinkStats) {
        self.seal();
        self.bound(stats);
        let deadline = Instant::now() + self.config.timeout.0;
        while !self.queue.is_empty() && Instant::now() < deadline {
            let wait = self.next_attempt.saturating_duration_since(Instant::now());
            std::thread::sleep(wait.min(deadline.saturating_duration_since(Instant::now())));
            self.send(stats);
        }
        if self.queued_requests > 0 {
            tracing::warn!(sink = %self.sink, requests = self.queued_requests, "ClickHouse did not take everything before shutdown; counted as dropped");
        }
        for left in std::mem::take(&mut self.queue) {
            self.drop_insert(&left, stats);
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
    use crate::record::{Record, Timer};

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

    #[test]
    fn rows_are_json_each_row_with_nested_tags_and_failed_inserts_stay_queued() {
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
            ..Default::default()
        };
        let mut out = ClickHouseOutput::new(config, "t");
        out.encode(&view, 1_700_000_000_500, &dict);
        let rows: Vec<serde_json::Value> = out
            .batch
            .requests
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["time"], 1_700_000_000);
        assert_eq!(rows[0]["schema"], "");
        assert_eq!(rows[0]["tags.name"], serde_json::json!([]));
        let timer_rows: Vec<serde_json::Value> = out
            .batch
            .timers
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(timer_rows.len(), 2);
        assert_eq!(timer_rows[0]["tags.name"], serde_json::json!(["group"]));
        assert_eq!(timer_rows[0]["tags.value"], serde_json::json!(["db"]));
        assert_eq!(timer_rows[1]["request_id"], 5);
        let stats = SinkStats::default();
        for _ in 0..7 {
            out.encode(&view, 1_700_000_000_500, &dict);
            out.next_attempt = Instant::now();
            out.work(&stats, Instant::now());
        }
        // 8 requests in batches of 2; at most 4 kept for retry, the oldest 4 dropped.
        assert_eq!(stats.sent.load(Relaxed), 0);
        assert!(stats.failed.load(Relaxed) >= 1);
        assert_eq!(stats.dropped.load(Relaxed), 4);
        assert_eq!(out.pending(), 4);
    }
}
