//! pinbad's own figures, each declared once ([`FIGURES`]: where it sits in `/api/v1/status`, its
//! Prometheus name, help, kind and unit, its label in the dashboard's health table, and how it is
//! read) and rendered from that one table three ways: the JSON of `GET /api/v1/status`
//! ([`json`]), the `pinbad_*` series of `GET /metrics` ([`encode_prometheus`]) and the
//! dashboard's health table (which reads [`dashboard_figures`] through the API).
//!
//! Figures are read from atomics and from the summaries their owners keep (the sinks, history,
//! the stream, what the snapshot restored): nothing here takes the pool's, the dictionary's or a
//! report's lock, so a status read never waits on the merger.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use serde_json::{json, Map, Value};

use crate::counters::{Counters, Reject};
use crate::history::History;
use crate::sink::Sinks;
use crate::snapshot::Restored;
use crate::state::Core;
use crate::stream::Subscribers;

/// What the figures are read from: the pipeline's core and the services beside it.
#[derive(Clone)]
pub struct Sources {
    pub core: Arc<Core>,
    pub history: Arc<History>,
    pub ticklog: Arc<crate::ticklog::TickLog>,
    pub request_log: Arc<crate::reqlog::RequestLog>,
    pub sinks: Arc<Sinks>,
    pub stream: Arc<Subscribers>,
    pub restored: Arc<Restored>,
}

/// A figure's Prometheus type: a counter only grows (since start), a gauge is a current reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
}

/// The unit of a figure's Prometheus value (its name gets the unit's suffix) and of its value in
/// the dashboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Count,
    Seconds,
    Bytes,
    /// Unix time, seconds.
    Timestamp,
}

impl Unit {
    fn name(self) -> &'static str {
        match self {
            Unit::Count => "count",
            Unit::Seconds => "seconds",
            Unit::Bytes => "bytes",
            Unit::Timestamp => "timestamp",
        }
    }

    fn prometheus(self) -> Option<prometheus_client::registry::Unit> {
        use prometheus_client::registry::Unit as P;
        match self {
            Unit::Seconds | Unit::Timestamp => Some(P::Seconds),
            Unit::Bytes => Some(P::Bytes),
            Unit::Count => None,
        }
    }
}

/// One figure.
pub struct Figure {
    /// Where it sits in `/api/v1/status`: a key, `a.b` inside an object, `a.*` for every key of
    /// an object (labelled by the key), `a[].b` for every element of an array (labelled by the
    /// element's `name`).
    pub path: &'static str,
    /// Its Prometheus name without the unit's suffix (`None`: JSON only).
    pub prometheus: Option<&'static str>,
    /// The Prometheus label a labelled path's keys or names go in.
    pub label: Option<&'static str>,
    pub help: &'static str,
    pub kind: Kind,
    pub unit: Unit,
    /// The JSON value times this is the Prometheus value (a JSON figure in milliseconds is
    /// exported in seconds: 0.001).
    pub scale: f64,
    /// Its label in the dashboard's health table, if it shows there.
    pub dashboard: Option<&'static str>,
    /// Whether a value above 0 means something was lost (the dashboard marks it).
    pub loss: bool,
    /// The status path of a flag (0 or 1) that marks this figure's row in the dashboard while
    /// set, and why: a figure that is not a loss but can be too high (the memory budget's count
    /// against its limit) says on the page what judges it, so that nobody reads the colour as
    /// coming from another row (the resident memory).
    pub alarm: Option<(&'static str, &'static str)>,
    /// How it is read; `None` when its place is part of a section its owner renders
    /// ([`SECTIONS`]).
    pub read: Option<fn(&Sources) -> Value>,
    /// Whether `/api/v1/status` shows it (a setting exported beside the figure it bounds, such
    /// as `limits.max_metric_series`, is on `/metrics` only: the status shows the configuration
    /// nowhere else).
    pub in_status: bool,
}

impl Figure {
    const fn new(path: &'static str, kind: Kind, help: &'static str) -> Figure {
        Figure {
            path,
            prometheus: None,
            label: None,
            help,
            kind,
            unit: Unit::Count,
            scale: 1.0,
            dashboard: None,
            loss: false,
            alarm: None,
            read: None,
            in_status: true,
        }
    }

    const fn metrics_only(self) -> Figure {
        Figure {
            in_status: false,
            ..self
        }
    }

    const fn prometheus(self, name: &'static str) -> Figure {
        Figure {
            prometheus: Some(name),
            ..self
        }
    }

    const fn label(self, label: &'static str) -> Figure {
        Figure {
            label: Some(label),
            ..self
        }
    }

    const fn unit(self, unit: Unit, scale: f64) -> Figure {
        Figure {
            unit,
            scale,
            ..self
        }
    }

    const fn dashboard(self, label: &'static str) -> Figure {
        Figure {
            dashboard: Some(label),
            ..self
        }
    }

    const fn loss(self) -> Figure {
        Figure { loss: true, ..self }
    }

    const fn alarm(self, flag: &'static str, why: &'static str) -> Figure {
        Figure {
            alarm: Some((flag, why)),
            ..self
        }
    }

    const fn read(self, read: fn(&Sources) -> Value) -> Figure {
        Figure {
            read: Some(read),
            ..self
        }
    }
}

const fn counter(path: &'static str, help: &'static str) -> Figure {
    Figure::new(path, Kind::Counter, help)
}

const fn gauge(path: &'static str, help: &'static str) -> Figure {
    Figure::new(path, Kind::Gauge, help)
}

fn load(a: &AtomicU64) -> Value {
    json!(a.load(Relaxed))
}

fn counters(s: &Sources) -> &Counters {
    s.core.counters()
}

/// How long the raw pool covers: the age of its oldest request (0 when empty).
fn pool_covers_seconds(s: &Sources) -> f64 {
    let oldest = counters(s).gauges.pool_oldest_ms.load(Relaxed);
    if oldest == u64::MAX {
        0.0
    } else {
        s.core.clock().now_ms().wrapping_sub(oldest as u32) as f64 / 1000.0
    }
}

/// The process's resident memory (bytes): `/proc/self/statm`'s second field, in pages. 0 where
/// it cannot be read.
fn resident_bytes() -> u64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * u64::try_from(page).unwrap_or(4096)
}

/// A section's path in the status and what renders it.
pub type Section = (&'static str, fn(&Sources) -> Value);

/// Parts of `/api/v1/status` that their owners render whole (more than the figures read from
/// them): the figures inside them name their place with a path into them.
pub const SECTIONS: &[Section] = &[
    ("rejected_by_reason", |s| {
        let c = counters(s);
        Value::Object(
            Reject::ALL
                .iter()
                .map(|&r| (r.name().to_string(), json!(c.rejected(r))))
                .collect(),
        )
    }),
    ("reports", |s| {
        let cells = s.core.reports().snapshot();
        Value::Array(
            cells
                .iter()
                .map(|cell| {
                    json!({
                        "name": cell.name(),
                        "rows": cell.published_rows(),
                        "rows_lost": cell.published_rows_lost(),
                        "rows_evicted": cell.published_rows_evicted(),
                        "memory_bytes": cell.published_memory_bytes(),
                        "update_ns_per_request": cell.update_ns_per_request(),
                        "thread": cell.worker(),
                        "parts_on": cell.parts_on(),
                        "shares_table_with": cell.shares_table_with(),
                    })
                })
                .collect(),
        )
    }),
    ("rewrite", |s| {
        Value::Array(
            s.core
                .rewrite()
                .hits()
                .map(|(name, field, regex, hits)| {
                    json!({"name": name, "field": field, "regex": regex, "hits": hits})
                })
                .collect(),
        )
    }),
    ("udp_listen", |s| {
        json!(s
            .core
            .udp_addrs()
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>())
    }),
    ("stream", |s| {
        s.stream.status(s.core.config().limits.max_stream_clients)
    }),
    ("sinks", |s| s.sinks.status()),
    ("history", |s| s.history.status()),
    ("ticklog", |s| s.ticklog.status()),
    ("request_log", |s| s.request_log.status()),
    ("snapshot", |s| json!(*s.restored)),
    ("marks", |s| s.core.marks().status()),
    ("state_files", |s| json!({ "set_aside": set_aside(s) })),
];

/// The state files start-up found damaged and set aside, in the order it read them.
fn set_aside(s: &Sources) -> Vec<&crate::durable::SetAside> {
    s.core
        .set_aside()
        .iter()
        .chain(s.sinks.set_aside())
        .chain(s.core.ids().set_aside())
        .chain(s.core.marks().set_aside())
        .chain(s.history.set_aside())
        .chain(s.request_log.set_aside())
        .collect()
}

/// Why the budget's rows are marked: what is judged is the budget's count against its limit,
/// never the resident memory (usually far below the count: the reserved part is counted in full
/// from the start, filled or not).
const TIGHT_WHY: &str = "marked while the budget is tight: what it counts (reserved + grown) reached 15/16 of its limit; new report rows, strings and reports are refused until it falls below 7/8";

/// Every figure, in the order `/metrics` lists them.
pub static FIGURES: &[Figure] = &[
    gauge("uptime_seconds", "Time since the daemon started.")
        .prometheus("pinbad_uptime")
        .unit(Unit::Seconds, 1.0)
        .dashboard("uptime")
        .read(|s| json!(s.core.clock().uptime().as_secs_f64())),
    counter("packets_received", "Datagrams read from the UDP sockets.")
        .prometheus("pinbad_packets_received")
        .dashboard("packets received")
        .read(|s| load(&counters(s).packets_received)),
    counter("bytes_received", "Bytes of the datagrams read.")
        .prometheus("pinbad_bytes_received")
        .read(|s| load(&counters(s).bytes_received)),
    counter("packets_decoded", "Datagrams that parsed as a Pinba message.")
        .prometheus("pinbad_packets_decoded")
        .read(|s| load(&counters(s).packets_decoded)),
    counter("requests_accepted", "Requests accepted by the decoder.")
        .prometheus("pinbad_requests_accepted")
        .dashboard("requests accepted")
        .read(|s| load(&counters(s).requests_accepted)),
    counter(
        "requests_rejected",
        "Requests (or whole datagrams) rejected, all reasons.",
    )
    .dashboard("requests rejected")
    .loss()
    .read(|s| json!(counters(s).rejected_total())),
    counter(
        "rejected_by_reason.*",
        "Requests (or whole datagrams) rejected, by reason.",
    )
    .prometheus("pinbad_requests_rejected")
    .label("reason")
    .dashboard("rejected")
    .loss(),
    counter("timers_skipped", "Timers with hit_count 0, skipped.")
        .prometheus("pinbad_timers_skipped")
        .read(|s| load(&counters(s).timers_skipped)),
    counter(
        "timers_dropped",
        "Timers beyond limits.max_timers_per_request.",
    )
    .prometheus("pinbad_timers_dropped")
    .read(|s| load(&counters(s).timers_dropped)),
    counter(
        "timer_tags_dropped",
        "Timer tags beyond limits.max_tags_per_timer.",
    )
    .prometheus("pinbad_timer_tags_dropped")
    .read(|s| load(&counters(s).timer_tags_dropped)),
    counter(
        "request_tags_dropped",
        "Request tags beyond limits.max_tags_per_request.",
    )
    .prometheus("pinbad_request_tags_dropped")
    .read(|s| load(&counters(s).request_tags_dropped)),
    counter("strings_truncated", "Strings cut to limits.max_string_bytes.")
        .prometheus("pinbad_strings_truncated")
        .read(|s| load(&counters(s).strings_truncated)),
    counter(
        "nested_ignored",
        "Nested requests below the first level, ignored.",
    )
    .prometheus("pinbad_nested_ignored")
    .read(|s| load(&counters(s).nested_ignored)),
    counter("v1_decoded", "Datagrams decoded through the v1 header.")
        .prometheus("pinbad_v1_decoded")
        .read(|s| load(&counters(s).v1_decoded)),
    counter(
        "v1_fallback",
        "Datagrams that looked like v1 but decoded as v0.",
    )
    .prometheus("pinbad_v1_fallback")
    .read(|s| load(&counters(s).v1_fallback)),
    counter(
        "rewrite[].hits",
        "Requests in which the [[rewrite]] rule matched (rewrote or dropped).",
    )
    .prometheus("pinbad_rewrite_hits")
    .label("rule"),
    counter(
        "rewrite_dropped",
        "Requests not merged because a [[rewrite]] rule with drop = true matched.",
    )
    .prometheus("pinbad_rewrite_dropped")
    .dashboard("dropped: rewrite rules (drop = true)")
    .read(|s| json!(s.core.rewrite().dropped())),
    counter(
        "requests_merged",
        "Requests stored in the pool and applied to every report.",
    )
    .prometheus("pinbad_requests_merged")
    .read(|s| load(&counters(s).requests_merged)),
    counter(
        "temp_pool_dropped",
        "Requests dropped because the temp ring was full.",
    )
    .prometheus("pinbad_temp_pool_dropped")
    .dashboard("dropped: merger behind (temp_pool_dropped)")
    .loss()
    .read(|s| load(&counters(s).temp_pool_dropped)),
    counter(
        "http.connections_refused",
        "HTTP connections closed at once: http.max_connections open and busy, and no health connection free.",
    )
    .prometheus("pinbad_http_connections_refused")
    .read(|s| load(&counters(s).http_connections_refused)),
    counter(
        "http.connections_refused_per_client",
        "HTTP connections closed at once: their client held http.max_connections_per_client, all busy.",
    )
    .prometheus("pinbad_http_connections_refused_per_client")
    .read(|s| load(&counters(s).http_connections_refused_per_client)),
    counter(
        "http.connections_evicted",
        "HTTP connections closed to make room for a new one: the longest waiting for a request when a cap was reached.",
    )
    .prometheus("pinbad_http_connections_evicted")
    .read(|s| load(&counters(s).http_connections_evicted)),
    counter(
        "http.queries_refused",
        "Heavy API requests answered 503 (http.max_concurrent_queries).",
    )
    .prometheus("pinbad_http_queries_refused")
    .read(|s| load(&counters(s).http_queries_refused)),
    counter("http.unauthorized", "API requests refused with 401.")
        .prometheus("pinbad_http_unauthorized")
        .read(|s| load(&counters(s).http_unauthorized)),
    counter(
        "pool_overwritten",
        "Requests evicted from the pool before they expired.",
    )
    .prometheus("pinbad_pool_overwritten")
    .read(|s| load(&counters(s).pool_overwritten)),
    counter("pool_expired", "Requests that left the pool by age.")
        .prometheus("pinbad_pool_expired")
        .read(|s| load(&counters(s).pool_expired)),
    counter(
        "timers_lost",
        "Timers cut because one request had more than the timer pool holds.",
    )
    .prometheus("pinbad_timers_lost")
    .dashboard("timers lost")
    .loss()
    .read(|s| load(&counters(s).timers_lost)),
    counter(
        "dictionary_lost",
        "Strings not interned because the dictionary was full.",
    )
    .prometheus("pinbad_dictionary_lost")
    .dashboard("dropped: dictionary full")
    .loss()
    .read(|s| load(&counters(s).gauges.dictionary_lost)),
    counter(
        "kernel_drops",
        "Datagrams the kernel dropped on pinbad's sockets (full receive buffer).",
    )
    .prometheus("pinbad_kernel_drops")
    .dashboard("dropped: kernel (kernel_drops)")
    .loss()
    .read(|s| {
        let ports: Vec<u16> = s.core.udp_addrs().iter().map(|a| a.port()).collect();
        json!(crate::receiver::kernel_drops(&ports))
    }),
    counter(
        "metrics.series_lost",
        "Report series not created because limits.max_metric_series were in use, counted each time a request needed them.",
    )
    .prometheus("pinbad_metric_series_lost")
    .read(|s| load(&counters(s).metric_series_lost)),
    gauge(
        "metrics.rows_folded",
        "Report rows counted in (other) series over the last 10 s, for want of metrics.max_report_rows (or limits.max_metric_series).",
    )
    .prometheus("pinbad_metric_rows_folded")
    .read(|s| load(&counters(s).metric_rows_folded)),
    counter(
        "metrics.requests_folded",
        "Requests (timer rows of a request, in a timer report) counted in (other) series.",
    )
    .prometheus("pinbad_metric_requests_folded")
    .read(|s| load(&counters(s).metric_requests_folded)),
    counter(
        "metrics.rounds_dropped",
        "Merge rounds the metrics thread could not take (its queue was full or it fell behind).",
    )
    .prometheus("pinbad_metric_rounds_dropped")
    .dashboard("dropped: metrics rounds")
    .loss()
    .read(|s| load(&counters(s).metric_rounds_dropped)),
    counter(
        "metrics.requests_dropped",
        "Requests of those rounds: not counted in the report series.",
    )
    .prometheus("pinbad_metric_requests_dropped")
    .read(|s| load(&counters(s).metric_requests_dropped)),
    gauge(
        "state_files.damaged",
        "Damaged state files (reports.json, sinks.json, ids.json, history.sqlite, \
         request_log.sqlite) set aside at start as NAME.damaged.",
    )
    .prometheus("pinbad_state_files_damaged")
    .dashboard("damaged state files set aside")
    .loss()
    .read(|s| json!(set_aside(s).len())),
    gauge(
        "state_files.ids.unsaved",
        "Whether the request ids handed out are reserved in memory only: ids.json could not be \
         written (a full disk); it is written again every second.",
    )
    .prometheus("pinbad_state_files_ids_unsaved")
    .dashboard("ids.json not written")
    .loss()
    .read(|s| json!(s.core.ids().unsaved())),
    counter(
        "state_files.ids.write_failures",
        "Writes of ids.json (the request ids reserved ahead) that failed.",
    )
    .prometheus("pinbad_state_files_ids_write_failures")
    .read(|s| load(&s.core.ids().failures)),
    gauge("marks.count", "Marks kept (deploys, config changes: POST /api/v1/marks).")
        .prometheus("pinbad_marks")
        .read(|s| s.core.marks().status()["count"].clone()),
    gauge("marks.max", "The most marks kept: past it the oldest is dropped.")
        .prometheus("pinbad_marks_max")
        .read(|s| s.core.marks().status()["max"].clone()),
    counter("marks.dropped", "Marks dropped, the oldest first, to keep at most marks.max.")
        .prometheus("pinbad_marks_dropped")
        .read(|s| s.core.marks().status()["dropped"].clone()),
    counter(
        "marks.write_failures",
        "Writes of marks.json that failed (the change they carried was refused with a 500).",
    )
    .prometheus("pinbad_marks_write_failures")
    .read(|s| s.core.marks().status()["write_failures"].clone()),
    gauge("current_temp_pool_batches", "Batches waiting in the temp ring.")
        .prometheus("pinbad_temp_pool_batches")
        .read(|s| json!(s.core.ring().len())),
    gauge(
        "current_temp_pool_bytes",
        "Memory the batches in the temp ring hold.",
    )
    .prometheus("pinbad_temp_pool")
    .unit(Unit::Bytes, 1.0)
    .read(|s| json!(s.core.ring().bytes())),
    gauge(
        "temp_pool_memory",
        "Memory the temp ring may hold (temp_pool_memory).",
    )
    .prometheus("pinbad_temp_pool_memory")
    .unit(Unit::Bytes, 1.0)
    .read(|s| json!(s.core.ring().max_bytes())),
    gauge("dictionary_size", "Strings in the dictionary.")
        .prometheus("pinbad_dictionary_size")
        .read(|s| load(&counters(s).gauges.dictionary_size)),
    gauge("dictionary_bytes", "Memory the dictionary holds.")
        .prometheus("pinbad_dictionary")
        .unit(Unit::Bytes, 1.0)
        .read(|s| load(&counters(s).gauges.dictionary_bytes)),
    gauge(
        "memory.resident_bytes",
        "The process's resident memory (RSS), as the kernel counts it.",
    )
    .prometheus("pinbad_memory_resident")
    .unit(Unit::Bytes, 1.0)
    .dashboard("resident memory (RSS)")
    .read(|_| json!(resident_bytes())),
    gauge(
        "memory.limit_bytes",
        "The memory budget (limits.max_memory, \"auto\" resolved).",
    )
    .prometheus("pinbad_memory_limit")
    .unit(Unit::Bytes, 1.0)
    .dashboard("budget limit (limits.max_memory)")
    .read(|s| json!(s.core.budget().limit())),
    gauge(
        "memory.used_bytes",
        "Memory accounted against the budget: the reserved part, the dictionary, the reports and their stages, the history writer, the tick log and the sinks.",
    )
    .prometheus("pinbad_memory_used")
    .unit(Unit::Bytes, 1.0)
    .dashboard("budget: counted (reserved + grown)")
    .alarm("memory.tight", TIGHT_WHY)
    .read(|s| json!(s.core.budget().used())),
    gauge(
        "memory.reserved_bytes",
        "Of it, what is counted from the start: the raw pool, temp_pool_memory, the stream's buffers, the merge queues, pinbad itself.",
    )
    .prometheus("pinbad_memory_reserved")
    .unit(Unit::Bytes, 1.0)
    .dashboard("budget: reserved (counted in full from start)")
    .read(|s| json!(s.core.reserved_memory())),
    gauge(
        "memory.outliving_bytes",
        "Of it, closed ticks their reports let go of that the history writer or the tick log still holds.",
    )
    .prometheus("pinbad_memory_outliving")
    .unit(Unit::Bytes, 1.0)
    .read(|s| json!(s.core.budget().outliving_bytes())),
    gauge(
        "memory.peak_bytes",
        "The most memory accounted at any merge round since start.",
    )
    .prometheus("pinbad_memory_peak")
    .unit(Unit::Bytes, 1.0)
    .read(|s| json!(s.core.budget().peak())),
    gauge(
        "memory.tight",
        "1 while the memory budget is nearly used: new report rows, reports and strings are refused.",
    )
    .prometheus("pinbad_memory_tight")
    .dashboard("budget tight (counted ≥ 15/16 of limit)")
    .alarm("memory.tight", TIGHT_WHY)
    .read(|s| json!(u8::from(s.core.budget().tight()))),
    counter(
        "memory.tight_episodes",
        "Times the memory budget became nearly used (each logged once).",
    )
    .prometheus("pinbad_memory_tight_episodes")
    .read(|s| json!(s.core.budget().episodes())),
    counter(
        "memory.rows_refused",
        "Report contributions that got no row of their own for want of memory (in the report's \"(other)\" row, and its rows_lost).",
    )
    .prometheus("pinbad_memory_rows_refused")
    .dashboard("report rows refused: memory budget")
    .loss()
    .read(|s| json!(s.core.budget().rows_refused())),
    counter(
        "memory.names_refused",
        "New strings not kept for want of memory (shown as \"<dictionary full>\").",
    )
    .prometheus("pinbad_memory_names_refused")
    .dashboard("strings refused: memory budget")
    .loss()
    .read(|s| json!(s.core.budget().names_refused())),
    counter(
        "memory.names_evicted",
        "Strings freed early because the memory budget was tight: no report row or pin held them and they were unused for a few seconds (raw requests naming them show \"<dictionary full>\").",
    )
    .prometheus("pinbad_memory_names_evicted")
    .read(|s| json!(s.core.budget().names_evicted())),
    counter(
        "memory.reports_refused",
        "Report creations refused for want of memory (409 memory_full).",
    )
    .prometheus("pinbad_memory_reports_refused")
    .read(|s| json!(s.core.budget().reports_refused())),
    gauge("merge.last_ms", "Duration of the last merge round.")
        .prometheus("pinbad_merge_last")
        .unit(Unit::Seconds, 0.001)
        .dashboard("merge time, last round (ms)")
        .read(|s| json!(counters(s).merge_last_us.load(Relaxed) as f64 / 1000.0)),
    gauge("merge.max_ms", "Duration of the longest merge round.")
        .prometheus("pinbad_merge_max")
        .unit(Unit::Seconds, 0.001)
        .dashboard("merge time, longest round (ms)")
        .read(|s| json!(counters(s).merge_max_us.load(Relaxed) as f64 / 1000.0)),
    counter(
        "merge.waited_ms",
        "Time the merge shards waited for a merge thread's queue to have room (the merge threads behind).",
    )
    .prometheus("pinbad_merge_waited")
    .unit(Unit::Seconds, 0.001)
    .read(|s| json!(counters(s).merge_waited_us.load(Relaxed) / 1000)),
    counter(
        "merge.turn_waited_ms",
        "Time the merge shards waited for their turn to hand a round on, behind another shard's hand-off (0 with one shard).",
    )
    .prometheus("pinbad_merge_turn_waited")
    .unit(Unit::Seconds, 0.001)
    .read(|s| json!(counters(s).merge_turn_waited_us.load(Relaxed) / 1000)),
    gauge(
        "receive_buffer_bytes",
        "Receive buffer the kernel granted the UDP socket.",
    )
    .prometheus("pinbad_receive_buffer")
    .unit(Unit::Bytes, 1.0)
    .read(|s| json!(s.core.receive_buffer_bytes())),
    gauge("pool_capacity", "Requests the raw pool holds.")
        .prometheus("pinbad_pool_capacity")
        .dashboard("raw pool capacity")
        .read(|s| load(&counters(s).gauges.pool_capacity)),
    gauge("current_pool_used", "Requests in the raw pool.")
        .prometheus("pinbad_pool_used")
        .dashboard("raw pool used")
        .read(|s| load(&counters(s).gauges.pool_used)),
    gauge("timer_pool_capacity", "Timers the raw pool holds.")
        .prometheus("pinbad_timer_pool_capacity")
        .read(|s| load(&counters(s).gauges.timer_pool_capacity)),
    gauge("current_timer_pool_used", "Timers in the raw pool.")
        .prometheus("pinbad_timer_pool_used")
        .read(|s| load(&counters(s).gauges.timer_pool_used)),
    gauge("tag_pool_capacity", "Tag pairs the raw pool holds.")
        .prometheus("pinbad_tag_pool_capacity")
        .read(|s| load(&counters(s).gauges.tag_pool_capacity)),
    gauge("current_tag_pool_used", "Tag pairs in the raw pool.")
        .prometheus("pinbad_tag_pool_used")
        .read(|s| load(&counters(s).gauges.tag_pool_used)),
    gauge("pool_memory_bytes", "Memory of the raw pool.")
        .prometheus("pinbad_pool_memory")
        .unit(Unit::Bytes, 1.0)
        .read(|s| load(&counters(s).gauges.pool_memory_bytes)),
    gauge(
        "pool_covers_seconds",
        "Age of the oldest request in the raw pool (what /api/v1/requests covers).",
    )
    .prometheus("pinbad_pool_covers")
    .unit(Unit::Seconds, 1.0)
    .dashboard("raw pool covers")
    .read(|s| json!(pool_covers_seconds(s))),
    gauge(
        "metrics.series",
        "Report series exported on /metrics (limits.max_metric_series).",
    )
    .prometheus("pinbad_metric_series")
    .read(|s| load(&counters(s).metric_series)),
    gauge("metrics.series_limit", "limits.max_metric_series.")
        .prometheus("pinbad_metric_series_limit")
        .metrics_only()
        .read(|s| json!(s.core.config().limits.max_metric_series)),
    gauge("reports[].rows", "Rows in the report's window.")
        .prometheus("pinbad_report_rows")
        .label("report"),
    counter(
        "reports[].rows_lost",
        "Contributions that got no row of their own (limits.max_rows_per_report rows, or the memory budget nearly used): counted in the report's \"(other)\" row.",
    )
    .prometheus("pinbad_report_rows_lost")
    .label("report")
    .dashboard("report rows lost")
    .loss(),
    counter(
        "reports[].rows_evicted",
        "Rows folded into the report's \"(other)\" row at a tick's close to keep room for new keys.",
    )
    .prometheus("pinbad_report_rows_evicted")
    .label("report"),
    gauge(
        "reports[].memory_bytes",
        "Memory the report holds (rows × ticks, histograms, buffers), as the memory budget counts it.",
    )
    .prometheus("pinbad_report_memory")
    .label("report")
    .unit(Unit::Bytes, 1.0),
    gauge(
        "reports[].update_ns_per_request",
        "Mean time the report's update took per request, since its creation.",
    )
    .prometheus("pinbad_report_update_seconds_per_request")
    .label("report")
    .unit(Unit::Count, 1e-9),
    gauge("reports[].thread", "The merge thread that updates the report.")
        .prometheus("pinbad_report_thread")
        .label("report"),
    counter("mysql.sessions", "SQL sessions opened (the MySQL protocol).")
        .prometheus("pinbad_mysql_sessions")
        .read(|s| load(&counters(s).sql.sessions)),
    gauge("mysql.current_sessions", "SQL sessions open now.")
        .prometheus("pinbad_mysql_current_sessions")
        .read(|s| load(&counters(s).sql.current_sessions)),
    gauge(
        "mysql.peak_sessions",
        "The most SQL sessions open at once since pinbad started (MySQL's Max_used_connections).",
    )
    .prometheus("pinbad_mysql_peak_sessions")
    .read(|s| load(&counters(s).sql.peak_sessions)),
    counter(
        "mysql.sessions_refused",
        "SQL connections refused because mysql.max_connections sessions were open.",
    )
    .prometheus("pinbad_mysql_sessions_refused")
    .dashboard("SQL connections refused (mysql.max_connections)")
    .loss()
    .read(|s| load(&counters(s).sql.sessions_refused)),
    counter(
        "mysql.hosts_blocked",
        "SQL connections refused before their handshake (1129): 8 logins of their address refused unchecked were waiting for their answer.",
    )
    .prometheus("pinbad_mysql_hosts_blocked")
    .dashboard("SQL connections refused (password guessing)")
    .read(|s| load(&counters(s).sql.hosts_blocked)),
    counter(
        "mysql.auth_unchecked",
        "SQL logins refused without their password checked: another login of their address was being checked, or the answer to its last failure was not out yet.",
    )
    .prometheus("pinbad_mysql_auth_unchecked")
    .read(|s| load(&counters(s).sql.auth_unchecked)),
    counter(
        "mysql.auth_failed",
        "SQL connections refused for a wrong user or password.",
    )
    .prometheus("pinbad_mysql_auth_failed")
    .read(|s| load(&counters(s).sql.auth_failed)),
    counter("mysql.statements", "SQL statements received.")
        .prometheus("pinbad_mysql_statements")
        .read(|s| load(&counters(s).sql.statements)),
    counter(
        "mysql.errors",
        "SQL statements answered with an error (the killed and busy ones included).",
    )
    .prometheus("pinbad_mysql_errors")
    .read(|s| load(&counters(s).sql.errors)),
    counter(
        "mysql.killed",
        "SQL statements stopped at mysql.max_query_time.",
    )
    .prometheus("pinbad_mysql_killed")
    .dashboard("SQL statements killed (mysql.max_query_time)")
    .loss()
    .read(|s| load(&counters(s).sql.killed)),
    counter(
        "mysql.busy",
        "SQL statements refused because every mysql.max_concurrent_queries slot was taken and mysql.max_queued_queries waited.",
    )
    .prometheus("pinbad_mysql_busy")
    .read(|s| load(&counters(s).sql.busy)),
    gauge(
        "mysql.queued",
        "SQL statements waiting for a query slot now (at most mysql.max_queued_queries).",
    )
    .prometheus("pinbad_mysql_queued")
    .read(|s| load(&counters(s).sql.queued)),
    counter("mysql.rows_sent", "Rows SQL statements sent.")
        .prometheus("pinbad_mysql_rows_sent")
        .read(|s| load(&counters(s).sql.rows_sent)),
    gauge(
        "mysql.memory_bytes",
        "Memory SQL holds: the sessions' SQLite (sorts, groupings, temporary tables, values) and rows not yet sent; counted in memory.used_bytes.",
    )
    .prometheus("pinbad_mysql_memory")
    .unit(Unit::Bytes, 1.0)
    .read(|_| json!(crate::sqlite_heap::HEAP.held())),
    gauge(
        "mysql.memory_cap_bytes",
        "What SQL may hold now: mysql.max_memory, or less when limits.max_memory has less left.",
    )
    .prometheus("pinbad_mysql_memory_cap")
    .unit(Unit::Bytes, 1.0)
    .read(|_| json!(crate::sqlite_heap::HEAP.cap())),
    gauge("mysql.memory_peak_bytes", "The most memory SQL has held since start.")
        .prometheus("pinbad_mysql_memory_peak")
        .unit(Unit::Bytes, 1.0)
        .read(|_| json!(crate::sqlite_heap::HEAP.peak())),
    counter(
        "mysql.out_of_memory",
        "SQL statements stopped with error 1041 because SQL's memory reached its cap (mysql.max_memory).",
    )
    .prometheus("pinbad_mysql_out_of_memory")
    .dashboard("SQL statements out of memory (mysql.max_memory)")
    .loss()
    .read(|s| load(&counters(s).sql.out_of_memory)),
    gauge(
        "snapshot.restored_requests",
        "Raw requests restored from the snapshot at start.",
    )
    .prometheus("pinbad_snapshot_restored_requests"),
    gauge(
        "snapshot.pending_datagrams",
        "Datagrams the previous run received while it stopped, merged by this run.",
    )
    .prometheus("pinbad_snapshot_pending_datagrams"),
    gauge(
        "snapshot.restored_reports",
        "Reports whose window was restored from the snapshot at start.",
    )
    .prometheus("pinbad_snapshot_restored_reports"),
    gauge(
        "snapshot.restored_stages",
        "Report families whose stages (requests not yet folded into their members) the snapshot restored as they were.",
    )
    .prometheus("pinbad_snapshot_restored_stages"),
    gauge(
        "snapshot.folded_stages",
        "Report families the configuration changed, whose saved stages the restore folded into their members.",
    )
    .prometheus("pinbad_snapshot_folded_stages"),
    gauge("snapshot.bytes", "Size of the snapshot read at start.")
        .prometheus("pinbad_snapshot")
        .unit(Unit::Bytes, 1.0),
    gauge("snapshot.restore_ms", "Time the restore took at start.")
        .prometheus("pinbad_snapshot_restore")
        .unit(Unit::Seconds, 0.001),
    gauge(
        "snapshot.write_ms",
        "Time the previous run took to write the restored snapshot.",
    )
    .prometheus("pinbad_snapshot_write")
    .unit(Unit::Seconds, 0.001),
    gauge(
        "snapshot.saved_at",
        "When the restored snapshot was written (Unix time).",
    )
    .prometheus("pinbad_snapshot_saved_at")
    .unit(Unit::Timestamp, 1.0),
    gauge(
        "snapshot.down_seconds",
        "Time between the restored snapshot's write and the restore.",
    )
    .prometheus("pinbad_snapshot_down")
    .unit(Unit::Seconds, 1.0),
    gauge(
        "stream.current_clients",
        "Clients of GET /api/v1/stream now.",
    )
    .prometheus("pinbad_stream_current_clients"),
    gauge("stream.max_clients", "limits.max_stream_clients.")
        .prometheus("pinbad_stream_max_clients"),
    counter("stream.sent", "Lines sent to stream clients.").prometheus("pinbad_stream_sent"),
    counter(
        "stream.dropped",
        "Lines stream clients lost because they read too slowly.",
    )
    .prometheus("pinbad_stream_dropped")
    .dashboard("dropped: stream clients")
    .loss(),
    counter("sinks[].sent", "Requests the sink delivered.")
        .prometheus("pinbad_sink_sent")
        .label("sink"),
    counter(
        "sinks[].failed",
        "Deliveries that failed (retried or dropped).",
    )
    .prometheus("pinbad_sink_failed")
    .label("sink"),
    counter(
        "sinks[].dropped",
        "Requests the sink dropped (queue or retry buffer full, or waited stats_history).",
    )
    .prometheus("pinbad_sink_dropped")
    .label("sink")
    .dashboard("dropped: sink")
    .loss(),
    counter(
        "sinks[].dropped_stale",
        "Of the dropped, requests that waited stats_history in the queue (a stalled write).",
    )
    .prometheus("pinbad_sink_dropped_stale")
    .label("sink"),
    gauge(
        "sinks[].current_queued",
        "Requests waiting in the sink's queue and retry buffer.",
    )
    .prometheus("pinbad_sink_queued")
    .label("sink"),
    counter(
        "sinks[].ticks_sent",
        "Report ticks the sink delivered (a ClickHouse sink's reports).",
    )
    .prometheus("pinbad_sink_ticks_sent")
    .label("sink"),
    counter(
        "sinks[].tick_rows_sent",
        "Report tick rows the sink delivered (a row per report row and tick).",
    )
    .prometheus("pinbad_sink_tick_rows_sent")
    .label("sink"),
    counter(
        "sinks[].ticks_dropped",
        "Report ticks the sink dropped (tick queue or retry buffer full, stop's deadline, older than the window).",
    )
    .prometheus("pinbad_sink_ticks_dropped")
    .label("sink")
    .dashboard("dropped: sink ticks")
    .loss(),
    gauge(
        "history.bytes",
        "Disk the history store takes (file, WAL, index).",
    )
    .prometheus("pinbad_history")
    .unit(Unit::Bytes, 1.0)
    .dashboard("history on disk"),
    gauge("history.rows", "Rows stored in the history store.")
        .prometheus("pinbad_history_rows")
        .dashboard("history rows"),
    gauge(
        "history.oldest",
        "Unix time of the oldest step stored (0: none).",
    )
    .prometheus("pinbad_history_oldest")
    .unit(Unit::Timestamp, 1.0),
    gauge(
        "history.available",
        "1 when the history store is open and written.",
    )
    .prometheus("pinbad_history_available"),
    counter(
        "history.written_steps",
        "Report steps written to the history store.",
    )
    .prometheus("pinbad_history_written_steps"),
    counter(
        "history.write_errors",
        "Failed writes to the history store (steps lost).",
    )
    .prometheus("pinbad_history_write_errors")
    .dashboard("history write errors")
    .loss(),
    counter(
        "history.dropped_ticks",
        "Closed report ticks not written to history (queue full, too old to name their keys, or closed while the store would not open).",
    )
    .prometheus("pinbad_history_dropped_ticks")
    .dashboard("history dropped ticks")
    .loss(),
    counter(
        "history.dropped_steps",
        "Report steps summed but not written to history: the stop's deadline came first (logged).",
    )
    .prometheus("pinbad_history_dropped_steps")
    .dashboard("history steps dropped at stop")
    .loss(),
    gauge(
        "history.memory_bytes",
        "Memory the history writer holds (open steps, key names), counted in the memory budget.",
    )
    .prometheus("pinbad_history_memory")
    .unit(Unit::Bytes, 1.0),
    counter(
        "history.rows_refused",
        "Tick rows summed into their step's \"(other)\" row because the memory budget was tight.",
    )
    .prometheus("pinbad_history_rows_refused")
    .dashboard("history rows refused: memory budget"),
    gauge(
        "history.pending_ticks",
        "Closed report ticks handed to the history writer and not yet summed into their steps: how far it is behind.",
    )
    .prometheus("pinbad_history_pending_ticks"),
    counter(
        "history.open_errors",
        "Times the history store could not be opened at start (pinbad runs without history until the store opens: history.reopened).",
    )
    .prometheus("pinbad_history_open_errors"),
    counter(
        "history.reopened",
        "Times the history store, which would not open at start, was opened again (history came back by itself).",
    )
    .prometheus("pinbad_history_reopened"),
    counter(
        "history.damaged_rows_read",
        "Stored history rows that queries could not read back and left out (a damaged or hand-edited store).",
    )
    .prometheus("pinbad_history_damaged_rows_read"),
    gauge(
        "request_log.bytes",
        "Disk the request log store takes (file, WAL, index).",
    )
    .prometheus("pinbad_request_log")
    .unit(Unit::Bytes, 1.0)
    .dashboard("request logs on disk"),
    gauge(
        "request_log.rows",
        "Requests the request logs keep (slow, memory, CPU and error entries).",
    )
    .prometheus("pinbad_request_log_rows")
    .dashboard("request log entries"),
    gauge(
        "request_log.oldest",
        "Unix time of the oldest step the request logs keep (0: none).",
    )
    .prometheus("pinbad_request_log_oldest")
    .unit(Unit::Timestamp, 1.0),
    gauge(
        "request_log.available",
        "1 when the request log store is open and written.",
    )
    .prometheus("pinbad_request_log_available"),
    counter(
        "request_log.written",
        "Entries written to the request logs.",
    )
    .prometheus("pinbad_request_log_written"),
    counter(
        "request_log.replaced",
        "Entries written and deleted again: pushed out of their step's top by larger ones.",
    )
    .prometheus("pinbad_request_log_replaced"),
    counter(
        "request_log.pruned",
        "Entries deleted past request_log.retention.",
    )
    .prometheus("pinbad_request_log_pruned"),
    counter(
        "request_log.evicted",
        "Entries deleted before their retention to stay within request_log.max_bytes.",
    )
    .prometheus("pinbad_request_log_evicted")
    .dashboard("request log entries evicted (max_bytes)")
    .loss(),
    counter(
        "request_log.dropped",
        "Requests the request logs could not consider or keep (queue full, max_groups, a failed write, the stop's deadline).",
    )
    .prometheus("pinbad_request_log_dropped")
    .dashboard("request log dropped")
    .loss(),
    counter(
        "request_log.write_errors",
        "Failed writes to the request log store.",
    )
    .prometheus("pinbad_request_log_write_errors")
    .dashboard("request log write errors")
    .loss(),
    counter(
        "request_log.reopened",
        "Times the request log store, which would not open, was opened again (the logs came back by themselves).",
    )
    .prometheus("pinbad_request_log_reopened"),
    counter(
        "request_log.cut",
        "Entries whose request was stored cut to request_log.max_entry_bytes / max_entry_timers (timers, then request tags, left out).",
    )
    .prometheus("pinbad_request_log_cut")
    .dashboard("request log entries cut (max_entry_bytes)")
    .loss(),
    counter(
        "request_log.cut_timers",
        "Timers left out of stored requests (request_log.max_entry_bytes / max_entry_timers).",
    )
    .prometheus("pinbad_request_log_cut_timers"),
    counter(
        "request_log.cut_tags",
        "Request tags left out of stored requests (request_log.max_entry_bytes).",
    )
    .prometheus("pinbad_request_log_cut_tags"),
    counter(
        "request_log.shed",
        "Entries deleted because their step took more than its share of request_log.max_bytes (the step's largest first).",
    )
    .prometheus("pinbad_request_log_shed"),
    counter(
        "request_log.shed_bytes",
        "Bytes of requests deleted because their step took more than its share of request_log.max_bytes: a flood of stored bytes.",
    )
    .prometheus("pinbad_request_log_shed")
    .unit(Unit::Bytes, 1.0)
    .dashboard("request log bytes shed (flood)")
    .loss(),
    gauge(
        "ticklog.bytes",
        "Disk the tick log takes (its segments).",
    )
    .prometheus("pinbad_ticklog")
    .unit(Unit::Bytes, 1.0)
    .dashboard("tick log on disk"),
    gauge("ticklog.segments", "Segment files of the tick log.")
        .prometheus("pinbad_ticklog_segments"),
    gauge(
        "ticklog.available",
        "1 when the tick log is written.",
    )
    .prometheus("pinbad_ticklog_available"),
    counter(
        "ticklog.written_ticks",
        "Closed report ticks written to the tick log (and synced).",
    )
    .prometheus("pinbad_ticklog_written_ticks"),
    counter(
        "ticklog.written_bytes",
        "Bytes of the tick log's records written (ticks, their strings and reports).",
    )
    .prometheus("pinbad_ticklog_written")
    .unit(Unit::Bytes, 1.0),
    counter(
        "ticklog.dropped_ticks",
        "Closed report ticks not written to the tick log (queue full, ticklog.max_bytes reached, a failed write, closed while its directory could not be written, or the stop's deadline).",
    )
    .prometheus("pinbad_ticklog_dropped_ticks")
    .dashboard("tick log dropped ticks")
    .loss(),
    counter(
        "ticklog.write_errors",
        "Failed writes to the tick log.",
    )
    .prometheus("pinbad_ticklog_write_errors")
    .dashboard("tick log write errors")
    .loss(),
    counter(
        "ticklog.reopened",
        "Times the tick log, whose directory could not be written at start, was opened again (it came back by itself).",
    )
    .prometheus("pinbad_ticklog_reopened"),
    gauge(
        "ticklog.memory_bytes",
        "Memory the tick log's writer holds (ids, scratch), counted in the memory budget.",
    )
    .prometheus("pinbad_ticklog_memory")
    .unit(Unit::Bytes, 1.0),
    gauge(
        "ticklog.current_queued",
        "Closed ticks waiting for the tick log's writer.",
    )
    .prometheus("pinbad_ticklog_current_queued"),
    gauge(
        "ticklog.restored.ticks",
        "Closed ticks the start took from the tick log (after a crash).",
    )
    .prometheus("pinbad_ticklog_restored_ticks"),
];

/// `GET /api/v1/status`: every section, and every figure read here at its place.
pub fn json(sources: &Sources) -> Value {
    let mut out = Map::new();
    for (key, render) in SECTIONS {
        out.insert((*key).to_string(), render(sources));
    }
    for f in FIGURES.iter().filter(|f| f.in_status) {
        if let Some(read) = f.read {
            put(&mut out, f.path, read(sources));
        }
    }
    Value::Object(out)
}

/// Puts `v` at `path` (`a.b`: inside object `a`) in `out`.
fn put(out: &mut Map<String, Value>, path: &str, v: Value) {
    match path.split_once('.') {
        Some((head, rest)) => {
            let inner = out
                .entry(head.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = inner {
                put(m, rest, v);
            }
        }
        None => {
            out.insert(path.to_string(), v);
        }
    }
}

/// A figure's values in `status` (what [`json`] rendered): one unlabelled value, or one per key
/// or array element with its label value.
pub fn values(status: &Value, path: &str) -> Vec<(Option<String>, f64)> {
    let number = |v: &Value| match v {
        Value::Bool(b) => *b as u8 as f64,
        v => v.as_f64().unwrap_or(0.0),
    };
    if let Some((array, field)) = path.split_once("[].") {
        let items = status[array].as_array().map(Vec::as_slice).unwrap_or(&[]);
        return items
            .iter()
            .map(|item| {
                let name = item["name"].as_str().unwrap_or("").to_string();
                (Some(name), number(&item[field]))
            })
            .collect();
    }
    if let Some(object) = path.strip_suffix(".*") {
        let Some(m) = status[object].as_object() else {
            return Vec::new();
        };
        return m
            .iter()
            .map(|(k, v)| (Some(k.clone()), number(v)))
            .collect();
    }
    let v = path.split('.').fold(status, |v, key| &v[key]);
    vec![(None, number(v))]
}

/// The `pinbad_*` series of `GET /metrics`: every figure with a Prometheus name, read from
/// [`json`]'s rendering.
pub fn encode_prometheus(
    sources: &Sources,
    enc: &mut DescriptorEncoder,
) -> Result<(), std::fmt::Error> {
    let status = json(sources);
    for f in FIGURES {
        let Some(name) = f.prometheus else {
            continue;
        };
        let kind = match f.kind {
            Kind::Counter => MetricType::Counter,
            Kind::Gauge => MetricType::Gauge,
        };
        let unit = f.unit.prometheus();
        let mut m = enc.encode_descriptor(name, f.help, unit.as_ref(), kind)?;
        let encode = |e: prometheus_client::encoding::MetricEncoder, v: f64| match f.kind {
            Kind::Counter => ConstCounter::new(v as u64).encode(e),
            Kind::Gauge => ConstGauge::new(v).encode(e),
        };
        match f.label {
            None if !f.in_status => {
                let mut own = Map::new();
                if let Some(read) = f.read {
                    put(&mut own, f.path, read(sources));
                }
                let v = values(&Value::Object(own), f.path)
                    .first()
                    .map_or(0.0, |(_, v)| *v);
                encode(m, v * f.scale)?;
            }
            None => {
                let v = values(&status, f.path).first().map_or(0.0, |(_, v)| *v);
                encode(m, v * f.scale)?;
            }
            Some(label) => {
                for (value, v) in values(&status, f.path) {
                    let value = value.unwrap_or_default();
                    encode(m.encode_family(&[(label, value.as_str())])?, v * f.scale)?;
                }
            }
        }
    }
    Ok(())
}

/// The figures the dashboard's health table shows, in order, for `GET /api/v1/status/figures`:
/// where each sits in the status, its label, its unit, and whether it counts a loss.
pub fn dashboard_figures() -> Value {
    Value::Array(
        FIGURES
            .iter()
            .filter_map(|f| {
                Some(json!({
                    "path": f.path,
                    "label": f.dashboard?,
                    "unit": f.unit.name(),
                    "scale": f.scale,
                    "kind": match f.kind { Kind::Counter => "counter", Kind::Gauge => "gauge" },
                    "loss": f.loss,
                    "alarm": f.alarm.map(|(flag, why)| json!({"flag": flag, "why": why})),
                    "help": f.help,
                }))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every alarm names a flag the status has (a figure of its own, read as 0 or 1), so that a
    /// marked row is never judged by a path that reads 0 forever.
    #[test]
    fn alarms_name_a_flag_of_the_status() {
        let flags: Vec<&str> = FIGURES
            .iter()
            .filter(|f| f.in_status && f.read.is_some())
            .map(|f| f.path)
            .collect();
        let alarmed: Vec<&Figure> = FIGURES.iter().filter(|f| f.alarm.is_some()).collect();
        assert!(alarmed.iter().any(|f| f.path == "memory.used_bytes"));
        for f in alarmed {
            let (flag, why) = f.alarm.unwrap();
            assert!(flags.contains(&flag), "{}: {flag}", f.path);
            assert!(f.dashboard.is_some() && !why.is_empty(), "{}", f.path);
        }
        // The memory rows say what they are: no row reads as "memory used".
        let labels: Vec<&str> = FIGURES.iter().filter_map(|f| f.dashboard).collect();
        assert!(labels.contains(&"resident memory (RSS)"), "{labels:?}");
        assert!(
            !labels.iter().any(|l| l.contains("memory used")),
            "{labels:?}"
        );
    }
}
