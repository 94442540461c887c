//! The status tables operators poll: pinba_engine's `status`, pinba2's `stats` and `active`,
//! with their servers' own columns, filled from pinbad's figures (the same atomics
//! `GET /api/v1/status` reads), so that monitoring scripts written for either keep working.
//!
//! In: the daemon's [`Core`]. Out: each table's columns (as its peer's `CREATE TABLE` declares
//! them) and its rows now; `vtab` serves them, `engine` lists them. A column with no equal in
//! pinbad (a stage pinbad does not have, as pinba2's repacker, or a count it does not keep) is 0,
//! as pinba_engine showed 0 for the counts it no longer kept: docs/sql.md says which.

use rusqlite::types::Value;

use super::layout::SqlType;
use crate::report::Kind;
use crate::state::Core;

use SqlType::{BigInt, Float, Int, Text};

/// One of the status tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusTable {
    /// pinba_engine's `status`: one row.
    Status,
    /// pinba2's `stats`: one row.
    Stats,
    /// pinba2's `active`: a row per report.
    Active,
    /// pinbad's `marks` (see `crate::marks`): a row per mark, what a Grafana MySQL data
    /// source's annotation query reads (`WHERE $__unixEpochFilter(time)`).
    Marks,
}

/// A column: its name, its type, and the type its peer's DDL declares (`SHOW COLUMNS`).
pub type Column = (&'static str, SqlType, &'static str);

/// pinba_engine's `status` columns (its `default_tables.sql`).
const STATUS: [Column; 7] = [
    ("current_temp_pool_size", Int, "int(11)"),
    ("current_timer_pool_size", Int, "int(11)"),
    ("lost_tmp_records", Int, "int(11)"),
    ("invalid_packets", Int, "int(11)"),
    ("invalid_request_data", Int, "int(11)"),
    ("build_string", Text, "varchar(256)"),
    ("dictionary_size", Int, "int(11)"),
];

const U64: &str = "bigint(20) unsigned";

/// pinba2's `stats` columns (its `scripts/default_tables/stats.sql`).
const STATS: [Column; 37] = [
    ("uptime", Float, "double"),
    ("ru_utime", Float, "double"),
    ("ru_stime", Float, "double"),
    ("udp_poll_total", BigInt, U64),
    ("udp_recv_total", BigInt, U64),
    ("udp_recv_eagain", BigInt, U64),
    ("udp_recv_bytes", BigInt, U64),
    ("udp_recv_packets", BigInt, U64),
    ("udp_packet_decode_err", BigInt, U64),
    ("udp_batch_send_total", BigInt, U64),
    ("udp_batch_send_err", BigInt, U64),
    ("udp_packet_send_total", BigInt, U64),
    ("udp_packet_send_err", BigInt, U64),
    ("udp_ru_utime", Float, "double"),
    ("udp_ru_stime", Float, "double"),
    ("repacker_poll_total", BigInt, U64),
    ("repacker_recv_total", BigInt, U64),
    ("repacker_recv_eagain", BigInt, U64),
    ("repacker_recv_packets", BigInt, U64),
    ("repacker_packet_validate_err", BigInt, U64),
    ("repacker_batch_send_total", BigInt, U64),
    ("repacker_batch_send_by_timer", BigInt, U64),
    ("repacker_batch_send_by_size", BigInt, U64),
    ("repacker_ru_utime", Float, "double"),
    ("repacker_ru_stime", Float, "double"),
    ("coordinator_batches_received", BigInt, U64),
    ("coordinator_batch_send_total", BigInt, U64),
    ("coordinator_batch_send_err", BigInt, U64),
    ("coordinator_control_requests", BigInt, U64),
    ("coordinator_ru_utime", Float, "double"),
    ("coordinator_ru_stime", Float, "double"),
    ("dictionary_size", BigInt, U64),
    ("dictionary_mem_hash", BigInt, U64),
    ("dictionary_mem_list", BigInt, U64),
    ("dictionary_mem_strings", BigInt, U64),
    ("version_info", Text, "text"),
    ("build_string", Text, "text"),
];

/// pinba2's `active` columns (its `scripts/default_tables/active.sql`).
const ACTIVE: [Column; 29] = [
    ("id", Int, "int(10) unsigned"),
    ("table_name", Text, "varchar(128)"),
    ("internal_name", Text, "varchar(128)"),
    ("kind", Text, "varchar(64)"),
    ("uptime", Float, "double unsigned"),
    ("time_window_sec", Int, "int(10) unsigned"),
    ("tick_count", Int, "int(10)"),
    ("approx_row_count", Int, "int(10) unsigned"),
    ("approx_mem_used", BigInt, U64),
    ("batches_sent", BigInt, U64),
    ("batches_received", BigInt, U64),
    ("packets_received", BigInt, U64),
    ("packets_lost", BigInt, U64),
    ("packets_aggregated", BigInt, U64),
    ("packets_dropped_by_bloom", BigInt, U64),
    ("packets_dropped_by_filters", BigInt, U64),
    ("packets_dropped_by_rfield", BigInt, U64),
    ("packets_dropped_by_rtag", BigInt, U64),
    ("packets_dropped_by_timertag", BigInt, U64),
    ("timers_scanned", BigInt, U64),
    ("timers_aggregated", BigInt, U64),
    ("timers_skipped_by_bloom", BigInt, U64),
    ("timers_skipped_by_filters", BigInt, U64),
    ("timers_skipped_by_tags", BigInt, U64),
    ("ru_utime", Float, "double"),
    ("ru_stime", Float, "double"),
    ("last_tick_time", Float, "double"),
    ("last_tick_prepare_duration", Float, "double"),
    ("last_snapshot_merge_duration", Float, "double"),
];

/// `marks`' columns: `time` in whole unix seconds (what Grafana's `$__unixEpochFilter` compares
/// and its annotations read as epoch seconds), `time_ms` with the milliseconds.
const MARKS: [Column; 6] = [
    ("id", BigInt, U64),
    ("time", BigInt, "bigint(20)"),
    ("time_ms", BigInt, "bigint(20)"),
    ("text", Text, "varchar(256)"),
    ("server_name", Text, "varchar(256)"),
    ("script_name", Text, "varchar(256)"),
];

impl StatusTable {
    pub const ALL: [StatusTable; 4] = [
        StatusTable::Status,
        StatusTable::Stats,
        StatusTable::Active,
        StatusTable::Marks,
    ];

    /// The table's name over SQL.
    pub fn name(self) -> &'static str {
        match self {
            StatusTable::Status => crate::report::SQL_STATUS_TABLES[0],
            StatusTable::Stats => crate::report::SQL_STATUS_TABLES[1],
            StatusTable::Active => crate::report::SQL_STATUS_TABLES[2],
            StatusTable::Marks => crate::report::SQL_STATUS_TABLES[3],
        }
    }

    /// The COMMENT its peer's DDL gives it (`SHOW CREATE TABLE`, `information_schema`), and
    /// which a `CREATE TABLE` of it is answered as the table that exists.
    pub fn comment(self) -> &'static str {
        match self {
            StatusTable::Status => "status",
            StatusTable::Stats => "v2/stats",
            StatusTable::Active => "v2/active",
            StatusTable::Marks => "marks",
        }
    }

    /// The status table named `name`, compared without case as SQL matches names.
    pub fn of(name: &str) -> Option<StatusTable> {
        StatusTable::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }

    pub fn columns(self) -> &'static [Column] {
        match self {
            StatusTable::Status => &STATUS,
            StatusTable::Stats => &STATS,
            StatusTable::Active => &ACTIVE,
            StatusTable::Marks => &MARKS,
        }
    }

    /// How many rows it has now.
    pub fn row_count(self, core: &Core) -> u64 {
        match self {
            StatusTable::Status | StatusTable::Stats => 1,
            StatusTable::Active => core.reports().snapshot().len() as u64,
            StatusTable::Marks => core.marks().len() as u64,
        }
    }

    /// Its rows now. Atomics only, as `GET /api/v1/status`, but for `active`'s short read of
    /// each report's definition.
    pub fn rows(self, core: &Core) -> Vec<Vec<Value>> {
        match self {
            StatusTable::Status => vec![status_row(core)],
            StatusTable::Stats => vec![stats_row(core)],
            StatusTable::Active => active_rows(core),
            StatusTable::Marks => marks_rows(core),
        }
    }
}

/// `marks`: every mark, by time (at most `marks::MAX_MARKS`; SQLite filters them).
fn marks_rows(core: &Core) -> Vec<Vec<Value>> {
    let text = |t: &Option<String>| t.clone().map_or(Value::Null, Value::Text);
    core.marks()
        .list(i64::MIN, i64::MAX)
        .into_iter()
        .map(|m| {
            vec![
                int(m.id),
                Value::Integer(m.time_ms.div_euclid(1000)),
                Value::Integer(m.time_ms),
                Value::Text(m.text),
                text(&m.server_name),
                text(&m.script_name),
            ]
        })
        .collect()
}

fn int(v: u64) -> Value {
    Value::Integer(i64::try_from(v).unwrap_or(i64::MAX))
}

fn build_string() -> Value {
    Value::Text(format!("pinbad {}", env!("CARGO_PKG_VERSION")))
}

/// The datagrams that could not be read whole, and the requests refused for their content
/// (every other reason but `source_not_allowed`, which is a policy, not bad data).
fn invalid(core: &Core) -> (u64, u64) {
    use crate::counters::Reject;
    let c = core.counters();
    let unreadable = c.rejected(Reject::Malformed) + c.rejected(Reject::Truncated);
    let refused = c.rejected_total() - unreadable - c.rejected(Reject::SourceNotAllowed);
    (unreadable, refused)
}

/// `status`: the batches in the temp ring, the timers the raw pool holds, the requests dropped
/// before the pool, the datagrams that could not be read whole, the requests refused for their
/// content, pinbad's version and the dictionary's strings.
fn status_row(core: &Core) -> Vec<Value> {
    use std::sync::atomic::Ordering::Relaxed;
    let c = core.counters();
    let (unreadable, refused) = invalid(core);
    vec![
        int(core.ring().len() as u64),
        int(c.gauges.timer_pool_used.load(Relaxed)),
        int(c.temp_pool_dropped.load(Relaxed)),
        int(unreadable),
        int(refused),
        build_string(),
        int(c.gauges.dictionary_size.load(Relaxed)),
    ]
}

/// `stats`, pinba2's stages mapped onto pinbad's: its UDP readers are pinbad's receive threads
/// (which decode too: pinba2's repacker has no thread of its own here), its coordinator
/// pinbad's merge threads.
fn stats_row(core: &Core) -> Vec<Value> {
    use std::sync::atomic::Ordering::Relaxed;
    let c = core.counters();
    let (unreadable, refused) = invalid(core);
    let (utime, stime) = process_cpu();
    let (udp_u, udp_s) = threads_cpu(&["pinbad-recv-"]);
    let (merge_u, merge_s) = threads_cpu(&["pinbad-merge", "pinbad-shard-"]);
    let packets = c.packets_received.load(Relaxed);
    let dropped = c.temp_pool_dropped.load(Relaxed);
    let zero = || int(0);
    vec![
        Value::Real(core.clock().uptime().as_secs_f64()),
        Value::Real(utime),
        Value::Real(stime),
        zero(),                                 // udp_poll_total
        int(packets),                           // udp_recv_total
        zero(),                                 // udp_recv_eagain
        int(c.bytes_received.load(Relaxed)),    // udp_recv_bytes
        int(packets),                           // udp_recv_packets
        int(unreadable),                        // udp_packet_decode_err
        zero(),                                 // udp_batch_send_total
        zero(),                                 // udp_batch_send_err
        int(c.requests_accepted.load(Relaxed)), // udp_packet_send_total
        int(dropped),                           // udp_packet_send_err
        Value::Real(udp_u),
        Value::Real(udp_s),
        zero(),                               // repacker_poll_total
        zero(),                               // repacker_recv_total
        zero(),                               // repacker_recv_eagain
        int(c.packets_decoded.load(Relaxed)), // repacker_recv_packets
        int(refused),                         // repacker_packet_validate_err
        zero(),                               // repacker_batch_send_total
        zero(),                               // repacker_batch_send_by_timer
        zero(),                               // repacker_batch_send_by_size
        Value::Real(0.0),                     // repacker_ru_utime
        Value::Real(0.0),                     // repacker_ru_stime
        zero(),                               // coordinator_batches_received
        zero(),                               // coordinator_batch_send_total
        zero(),                               // coordinator_batch_send_err
        zero(),                               // coordinator_control_requests
        Value::Real(merge_u),
        Value::Real(merge_s),
        int(c.gauges.dictionary_size.load(Relaxed)), // dictionary_size
        zero(),                                      // dictionary_mem_hash
        zero(),                                      // dictionary_mem_list
        int(c.gauges.dictionary_bytes.load(Relaxed)), // dictionary_mem_strings
        build_string(),                              // version_info
        build_string(),
    ]
}

/// pinba2's name of a report's kind.
fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Info => "report_by_packet_data",
        Kind::Request => "report_by_request_data",
        Kind::Timer => "report_by_timer_data",
    }
}

/// `active`: a row per report, in creation order.
fn active_rows(core: &Core) -> Vec<Vec<Value>> {
    use std::sync::atomic::Ordering::Relaxed;
    let uptime = core.clock().uptime().as_secs_f64();
    let merged = core.counters().requests_merged.load(Relaxed);
    core.reports()
        .snapshot()
        .iter()
        .enumerate()
        .map(|(i, cell)| {
            let kind = cell.report.read().kind();
            let window = cell.window();
            let last_tick_ms = cell.next_tick_ms().saturating_sub(window.tick_ms);
            let last_tick = if last_tick_ms == 0 {
                0.0
            } else {
                core.clock().unix_ms64(last_tick_ms) as f64 / 1000.0
            };
            // pinba2's names are MySQL's paths of the table, `./pinba/NAME`.
            let path = format!("./pinba/{}", cell.name());
            let mut row = vec![
                int(i as u64 + 1),
                Value::Text(path.clone()),
                Value::Text(path),
                Value::Text(kind_name(kind).to_string()),
                Value::Real(uptime),
                int(window.history_ms / 1000),
                int(window.ticks),
                int(cell.published_rows()),
                int(cell.published_memory_bytes()),
            ];
            // batches_sent, batches_received: pinbad hands reports no batches.
            row.extend([int(0), int(0)]);
            // packets_received: every report reads every request merged.
            row.push(int(merged));
            // packets_lost … timers_skipped_by_tags: counts pinbad does not keep per report.
            row.extend((12..24).map(|_| int(0)));
            row.extend([
                Value::Real(0.0), // ru_utime
                Value::Real(0.0), // ru_stime
                Value::Real(last_tick),
                Value::Real(0.0), // last_tick_prepare_duration
                Value::Real(0.0), // last_snapshot_merge_duration
            ]);
            row
        })
        .collect()
}

/// The process's user and system CPU time (seconds), as getrusage gives them.
fn process_cpu() -> (f64, f64) {
    // SAFETY: getrusage writes the struct it is given, nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return (0.0, 0.0);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(usage.ru_utime), secs(usage.ru_stime))
}

/// The user and system CPU time (seconds) of the threads whose names begin with one of
/// `prefixes` (pinbad names its threads), from `/proc/self/task/*/stat`; 0 where it cannot be
/// read.
fn threads_cpu(prefixes: &[&str]) -> (f64, f64) {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as f64 } else { 100.0 };
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return (0.0, 0.0);
    };
    let (mut user, mut system) = (0u64, 0u64);
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state …`: the name may hold spaces and parentheses, so the fields are
        // read after its last `)`; utime and stime are the 14th and 15th fields.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = &stat[open + 1..close];
        if !prefixes.iter().any(|p| comm.starts_with(p)) {
            continue;
        }
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let field = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        user += field(11);
        system += field(12);
    }
    (user as f64 / hz, system as f64 / hz)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns are the peers' own, in their order: pinba2's `scripts/default_tables/*.sql`
    /// and pinba_engine's `default_tables.sql` (tests/fixtures/sql).
    #[test]
    fn columns_are_the_peers_own() {
        use crate::config::import::parse_tables;
        for (file, table) in [
            (
                include_str!("../../tests/fixtures/sql/pinba2_default_tables/stats.sql"),
                StatusTable::Stats,
            ),
            (
                include_str!("../../tests/fixtures/sql/pinba2_default_tables/active.sql"),
                StatusTable::Active,
            ),
            (
                include_str!("../../tests/fixtures/sql/pinba_engine_default_tables.sql"),
                StatusTable::Status,
            ),
        ] {
            let t = parse_tables(file)
                .into_iter()
                .find(|t| t.name == table.name())
                .expect("the table");
            let ours: Vec<&str> = table.columns().iter().map(|c| c.0).collect();
            assert_eq!(t.columns, ours, "{table:?}");
            assert_eq!(t.comment.as_deref(), Some(table.comment()), "{table:?}");
        }
    }

    /// This thread's own time is found by its name; a name no thread has finds none.
    #[test]
    fn thread_cpu_is_read_by_name() {
        let (u, s) = std::thread::Builder::new()
            .name("pinbad-test-cpu".into())
            .spawn(|| {
                // Spins until the kernel has counted a tick of this thread's time (or 10 s).
                let start = std::time::Instant::now();
                let mut x = 0u64;
                loop {
                    for _ in 0..100_000 {
                        x = x.wrapping_mul(31).wrapping_add(1);
                        std::hint::black_box(x);
                    }
                    let (u, s) = threads_cpu(&["pinbad-test-cpu"]);
                    if u + s > 0.0 || start.elapsed() > std::time::Duration::from_secs(10) {
                        return (u, s);
                    }
                }
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(u + s > 0.0, "{u} {s}");
        assert_eq!(threads_cpu(&["no-such-thread-name"]), (0.0, 0.0));
    }
}
