//! pinbad's own figures on `/metrics`, from the same sources as `/api/v1/status`, followed by the
//! report series.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Unit;

use crate::counters::Reject;
use crate::report::ReportCell;
use crate::shared::Shared;

/// pinbad's own figures, from the same sources as `/api/v1/status` (the `Counters` atomics, the
/// reports' published figures), and the report series.
pub(super) struct StatusCollector(pub(super) Arc<Shared>);

impl std::fmt::Debug for StatusCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StatusCollector")
    }
}

fn counter(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    v: u64,
) -> Result<(), std::fmt::Error> {
    let m = enc.encode_descriptor(name, help, unit.as_ref(), MetricType::Counter)?;
    ConstCounter::new(v).encode(m)
}

fn gauge(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    v: f64,
) -> Result<(), std::fmt::Error> {
    let m = enc.encode_descriptor(name, help, unit.as_ref(), MetricType::Gauge)?;
    ConstGauge::new(v).encode(m)
}

impl Collector for StatusCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let shared = &self.0;
        let c = &shared.counters;
        let g = &c.gauges;
        let load = |a: &std::sync::atomic::AtomicU64| a.load(Relaxed);
        gauge(
            &mut enc,
            "pinbad_uptime",
            "Time since the daemon started.",
            Some(Unit::Seconds),
            shared.clock.uptime().as_secs_f64(),
        )?;
        let counters: [(&str, &str, &std::sync::atomic::AtomicU64); 20] = [
            (
                "pinbad_packets_received",
                "Datagrams read from the UDP sockets.",
                &c.packets_received,
            ),
            (
                "pinbad_bytes_received",
                "Bytes of the datagrams read.",
                &c.bytes_received,
            ),
            (
                "pinbad_packets_decoded",
                "Datagrams that parsed as a Pinba message.",
                &c.packets_decoded,
            ),
            (
                "pinbad_requests_accepted",
                "Requests accepted by the decoder.",
                &c.requests_accepted,
            ),
            (
                "pinbad_timers_skipped",
                "Timers with hit_count 0, skipped.",
                &c.timers_skipped,
            ),
            (
                "pinbad_timers_dropped",
                "Timers beyond limits.max_timers_per_request.",
                &c.timers_dropped,
            ),
            (
                "pinbad_timer_tags_dropped",
                "Timer tags beyond limits.max_tags_per_timer.",
                &c.timer_tags_dropped,
            ),
            (
                "pinbad_request_tags_dropped",
                "Request tags beyond limits.max_tags_per_request.",
                &c.request_tags_dropped,
            ),
            (
                "pinbad_strings_truncated",
                "Strings cut to limits.max_string_bytes.",
                &c.strings_truncated,
            ),
            (
                "pinbad_nested_ignored",
                "Nested requests below the first level, ignored.",
                &c.nested_ignored,
            ),
            (
                "pinbad_v1_decoded",
                "Datagrams decoded through the v1 header.",
                &c.v1_decoded,
            ),
            (
                "pinbad_v1_fallback",
                "Datagrams that looked like v1 but decoded as v0.",
                &c.v1_fallback,
            ),
            (
                "pinbad_requests_merged",
                "Requests stored in the pool and applied to every report.",
                &c.requests_merged,
            ),
            (
                "pinbad_temp_pool_dropped",
                "Requests dropped because the temp ring was full.",
                &c.temp_pool_dropped,
            ),
            (
                "pinbad_http_connections_refused",
                "HTTP connections closed at once (http.max_connections).",
                &c.http_connections_refused,
            ),
            (
                "pinbad_http_queries_refused",
                "Heavy API requests answered 503 (http.max_concurrent_queries).",
                &c.http_queries_refused,
            ),
            (
                "pinbad_http_unauthorized",
                "API requests refused with 401.",
                &c.http_unauthorized,
            ),
            (
                "pinbad_pool_overwritten",
                "Requests evicted from the pool before they expired.",
                &c.pool_overwritten,
            ),
            (
                "pinbad_pool_expired",
                "Requests that left the pool by age.",
                &c.pool_expired,
            ),
            (
                "pinbad_timers_lost",
                "Timers cut because one request had more than the timer pool holds.",
                &c.timers_lost,
            ),
        ];
        for (name, help, v) in counters {
            counter(&mut enc, name, help, None, load(v))?;
        }
        {
            let mut m = enc.encode_descriptor(
                "pinbad_requests_rejected",
                "Requests (or whole datagrams) rejected, by reason.",
                None,
                MetricType::Counter,
            )?;
            for r in Reject::ALL {
                let labels = [("reason", r.name())];
                ConstCounter::new(c.rejected(r)).encode(m.encode_family(&labels)?)?;
            }
        }
        counter(
            &mut enc,
            "pinbad_dictionary_lost",
            "Strings not interned because the dictionary was full.",
            None,
            load(&g.dictionary_lost),
        )?;
        let ports: Vec<u16> = shared.udp_addrs.iter().map(|a| a.port()).collect();
        counter(
            &mut enc,
            "pinbad_kernel_drops",
            "Datagrams the kernel dropped on pinbad's sockets (full receive buffer).",
            None,
            crate::receiver::kernel_drops(&ports),
        )?;
        let metric_counters: [(&str, &str, &std::sync::atomic::AtomicU64); 3] = [
            ("pinbad_metric_series_lost", "Report series not created because limits.max_metric_series were in use, counted each time a request needed them.", &c.metric_series_lost),
            ("pinbad_metric_rounds_dropped", "Merge rounds the metrics thread could not take (its queue was full or it fell behind).", &c.metric_rounds_dropped),
            ("pinbad_metric_requests_dropped", "Requests of those rounds: not counted in the report series.", &c.metric_requests_dropped),
        ];
        for (name, help, v) in metric_counters {
            counter(&mut enc, name, help, None, load(v))?;
        }
        let oldest = load(&g.pool_oldest_ms);
        let pool_covers = if oldest == u64::MAX {
            0.0
        } else {
            shared.clock.now_ms().wrapping_sub(oldest as u32) as f64 / 1000.0
        };
        let gauges: [(&str, &str, Option<Unit>, f64); 18] = [
            (
                "pinbad_temp_pool_batches",
                "Batches waiting in the temp ring.",
                None,
                shared.ring.len() as f64,
            ),
            (
                "pinbad_temp_pool",
                "Memory the batches in the temp ring hold.",
                Some(Unit::Bytes),
                shared.ring.bytes() as f64,
            ),
            (
                "pinbad_temp_pool_memory",
                "Memory the temp ring may hold (temp_pool_memory).",
                Some(Unit::Bytes),
                shared.ring.max_bytes() as f64,
            ),
            (
                "pinbad_dictionary_size",
                "Strings in the dictionary.",
                None,
                load(&g.dictionary_size) as f64,
            ),
            (
                "pinbad_dictionary",
                "Memory the dictionary holds.",
                Some(Unit::Bytes),
                load(&g.dictionary_bytes) as f64,
            ),
            (
                "pinbad_merge_last",
                "Duration of the last merge round.",
                Some(Unit::Seconds),
                load(&c.merge_last_us) as f64 / 1e6,
            ),
            (
                "pinbad_merge_max",
                "Duration of the longest merge round.",
                Some(Unit::Seconds),
                load(&c.merge_max_us) as f64 / 1e6,
            ),
            (
                "pinbad_receive_buffer",
                "Receive buffer the kernel granted the UDP socket.",
                Some(Unit::Bytes),
                shared.receive_buffer_bytes as f64,
            ),
            (
                "pinbad_pool_capacity",
                "Requests the raw pool holds.",
                None,
                load(&g.pool_capacity) as f64,
            ),
            (
                "pinbad_pool_used",
                "Requests in the raw pool.",
                None,
                load(&g.pool_used) as f64,
            ),
            (
                "pinbad_timer_pool_capacity",
                "Timers the raw pool holds.",
                None,
                load(&g.timer_pool_capacity) as f64,
            ),
            (
                "pinbad_timer_pool_used",
                "Timers in the raw pool.",
                None,
                load(&g.timer_pool_used) as f64,
            ),
            (
                "pinbad_tag_pool_capacity",
                "Tag pairs the raw pool holds.",
                None,
                load(&g.tag_pool_capacity) as f64,
            ),
            (
                "pinbad_tag_pool_used",
                "Tag pairs in the raw pool.",
                None,
                load(&g.tag_pool_used) as f64,
            ),
            (
                "pinbad_pool_memory",
                "Memory of the raw pool.",
                Some(Unit::Bytes),
                load(&g.pool_memory_bytes) as f64,
            ),
            (
                "pinbad_pool_covers",
                "Age of the oldest request in the raw pool (what /api/v1/requests covers).",
                Some(Unit::Seconds),
                pool_covers,
            ),
            (
                "pinbad_metric_series",
                "Report series exported on /metrics (limits.max_metric_series).",
                None,
                load(&c.metric_series) as f64,
            ),
            (
                "pinbad_metric_series_limit",
                "limits.max_metric_series.",
                None,
                shared.config.limits.max_metric_series as f64,
            ),
        ];
        for (name, help, unit, v) in gauges {
            gauge(&mut enc, name, help, unit, v)?;
        }
        let cells = shared.reports.snapshot();
        type PerReport = fn(&ReportCell) -> f64;
        let per_report: [(&str, &str, MetricType, PerReport); 4] = [
            (
                "pinbad_report_rows",
                "Rows in the report's window.",
                MetricType::Gauge,
                |c| c.published_rows() as f64,
            ),
            (
                "pinbad_report_rows_lost",
                "Contributions lost because the report had limits.max_rows_per_report rows.",
                MetricType::Counter,
                |c| c.published_rows_lost() as f64,
            ),
            (
                "pinbad_report_update_seconds_per_request",
                "Mean time the report's update took per request, since its creation.",
                MetricType::Gauge,
                |c| c.update_ns_per_request() / 1e9,
            ),
            (
                "pinbad_report_thread",
                "The merge thread that updates the report.",
                MetricType::Gauge,
                |c| c.worker() as f64,
            ),
        ];
        for (name, help, kind, value) in per_report {
            let mut m = enc.encode_descriptor(name, help, None, kind)?;
            for cell in &cells {
                let labels = [("report", cell.name())];
                let family = m.encode_family(&labels)?;
                match kind {
                    MetricType::Counter => ConstCounter::new(value(cell) as u64).encode(family)?,
                    _ => ConstGauge::new(value(cell)).encode(family)?,
                }
            }
        }
        // What start-up restored from the snapshot (fixed for the life of the process).
        let snap = &shared.snapshot;
        for (name, help, unit, v) in [
            (
                "pinbad_snapshot_restored_requests",
                "Raw requests restored from the snapshot at start.",
                None,
                snap.restored_requests as f64,
            ),
            (
                "pinbad_snapshot_pending_datagrams",
                "Datagrams the previous run received while it stopped, merged by this run.",
                None,
                snap.pending_datagrams as f64,
            ),
            (
                "pinbad_snapshot_restored_reports",
                "Reports whose window was restored from the snapshot at start.",
                None,
                snap.restored_reports as f64,
            ),
            (
                "pinbad_snapshot",
                "Size of the snapshot read at start.",
                Some(Unit::Bytes),
                snap.bytes as f64,
            ),
            (
                "pinbad_snapshot_restore",
                "Time the restore took at start.",
                Some(Unit::Seconds),
                snap.restore_ms / 1000.0,
            ),
            (
                "pinbad_snapshot_write",
                "Time the previous run took to write the restored snapshot.",
                Some(Unit::Seconds),
                snap.write_ms.unwrap_or(0.0) / 1000.0,
            ),
            (
                "pinbad_snapshot_saved_at",
                "When the restored snapshot was written (Unix time).",
                Some(Unit::Seconds),
                snap.saved_at.unwrap_or(0.0),
            ),
            (
                "pinbad_snapshot_down",
                "Time between the restored snapshot's write and the restore.",
                Some(Unit::Seconds),
                snap.down_seconds.unwrap_or(0.0),
            ),
        ] {
            gauge(&mut enc, name, help, unit, v)?;
        }
        // The live stream and the sinks, from the same figures /api/v1/status shows.
        let stream = shared
            .stream
            .status(shared.config.limits.max_stream_clients);
        let num = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
        gauge(
            &mut enc,
            "pinbad_stream_current_clients",
            "Clients of GET /api/v1/stream now.",
            None,
            num(&stream, "current_clients"),
        )?;
        gauge(
            &mut enc,
            "pinbad_stream_max_clients",
            "limits.max_stream_clients.",
            None,
            num(&stream, "max_clients"),
        )?;
        counter(
            &mut enc,
            "pinbad_stream_sent",
            "Lines sent to stream clients.",
            None,
            num(&stream, "sent") as u64,
        )?;
        counter(
            &mut enc,
            "pinbad_stream_dropped",
            "Lines stream clients lost because they read too slowly.",
            None,
            num(&stream, "dropped") as u64,
        )?;
        let sinks = shared.sinks.status();
        let sinks = sinks.as_array().map(Vec::as_slice).unwrap_or(&[]);
        let per_sink: [(&str, &str, MetricType, &str); 5] = [
            (
                "pinbad_sink_sent",
                "Requests the sink delivered.",
                MetricType::Counter,
                "sent",
            ),
            (
                "pinbad_sink_failed",
                "Deliveries that failed (retried or dropped).",
                MetricType::Counter,
                "failed",
            ),
            (
                "pinbad_sink_dropped",
                "Requests the sink dropped (queue or retry buffer full, or waited stats_history).",
                MetricType::Counter,
                "dropped",
            ),
            (
                "pinbad_sink_dropped_stale",
                "Of the dropped, requests that waited stats_history in the queue (a stalled write).",
                MetricType::Counter,
                "dropped_stale",
            ),
            (
                "pinbad_sink_queued",
                "Requests waiting in the sink's queue and retry buffer.",
                MetricType::Gauge,
                "current_queued",
            ),
        ];
        for (name, help, kind, field) in per_sink {
            let mut m = enc.encode_descriptor(name, help, None, kind)?;
            for sink in sinks {
                let labels = [("sink", sink["name"].as_str().unwrap_or(""))];
                let family = m.encode_family(&labels)?;
                match kind {
                    MetricType::Counter => {
                        ConstCounter::new(num(sink, field) as u64).encode(family)?
                    }
                    _ => ConstGauge::new(num(sink, field)).encode(family)?,
                }
            }
        }
        // History, from the figures /api/v1/status shows under `history`.
        let history = shared.history.status();
        let history_gauges: [(&str, &str, Option<Unit>, &str); 4] = [
            (
                "pinbad_history",
                "Disk the history store takes (file, WAL, index).",
                Some(Unit::Bytes),
                "bytes",
            ),
            (
                "pinbad_history_rows",
                "Rows stored in the history store.",
                None,
                "rows",
            ),
            (
                "pinbad_history_oldest",
                "Unix time of the oldest step stored (0: none).",
                Some(Unit::Seconds),
                "oldest",
            ),
            (
                "pinbad_history_available",
                "1 when the history store is open and written.",
                None,
                "available",
            ),
        ];
        for (name, help, unit, field) in history_gauges {
            let v = match &history[field] {
                serde_json::Value::Bool(b) => *b as u8 as f64,
                v => v.as_f64().unwrap_or(0.0),
            };
            gauge(&mut enc, name, help, unit, v)?;
        }
        let history_counters: [(&str, &str, &str); 5] = [
            ("pinbad_history_written_steps", "Report steps written to the history store.", "written_steps"),
            ("pinbad_history_write_errors", "Failed writes to the history store (steps lost).", "write_errors"),
            ("pinbad_history_dropped_ticks", "Closed report ticks not written to history (queue full, or too old to name their keys).", "dropped_ticks"),
            ("pinbad_history_open_errors", "Times the history store could not be opened (pinbad then runs without history).", "open_errors"),
            ("pinbad_history_damaged_rows_read", "Stored history rows that queries could not read back and left out (a damaged or hand-edited store).", "damaged_rows_read"),
        ];
        for (name, help, field) in history_counters {
            counter(
                &mut enc,
                name,
                help,
                None,
                history[field].as_u64().unwrap_or(0),
            )?;
        }
        shared.metrics.state.lock().encode(&mut enc)
    }
}
