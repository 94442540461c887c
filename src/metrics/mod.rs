//! Prometheus export (`GET /metrics`): pinbad's own status counters, and monotonic series of the
//! reports defined with `prometheus = true`.
//!
//! In: every merge round, from the merger through the tap (see `tap`): [`MetricsTap::offer`]
//! keeps the round's `Arc` in a bounded queue of [`QUEUE_ROUNDS`] rounds, or drops it when the
//! queue is full and counts its requests (`metric_requests_dropped`). The thread
//! "pinbad-metrics" folds each request into counters per row of each exported report
//! ([`SeriesSet`]), using the report's own filters and key extraction ([`RowSelector`](crate::report::RowSelector)). The
//! counters count requests once, when they are merged, since the series was created: they never
//! decrease, whatever the report's window does. Out: the text exposition ([`render`]), built
//! with the `prometheus-client` crate under the metrics state's own lock, in O(series).
//!
//! Never blocks the merger (offer is a `try_send`), never takes the pool's or a report's write
//! lock. It takes the dictionary's write lock briefly, and only when series are created or
//! removed, to pin the strings of their labels: a label's id must keep naming the same string for
//! as long as the series exists, however long it stays idle.
//!
//! Bounds: at most `metrics.max_report_rows` rows of one report have series of their own, the
//! rest count in `(other)` rows, ranked every [`RANK_EVERY_MS`] (see `series`); at most
//! `limits.max_metric_series` Prometheus series in all
//! ([`crate::config::metric_row_series`] per row: [`REQUEST_ROW_SERIES`] for a request report with
//! the default buckets, [`TIMER_ROW_SERIES`] for a timer report); a row beyond it counts in its
//! `(other)` row, and where that one cannot be created either `metric_series_lost` counts the
//! series it lacked, each time a request needed them. A row not updated for
//! `metrics.series_idle` loses its series.
//!
//! Files: `series` (the pure core: rows, counters, bounds, idle removal, the report series'
//! encoding), `status` (pinbad's own figures as metrics); this file: the config, the tap, the
//! thread and the scrape.

mod series;
mod status;

pub use series::{
    buckets_of, label_names, ExportedReport, SeriesSet, DEFAULT_BUCKETS_SECONDS, OTHER_TEXT,
    RANK_EVERY_MS, REQUEST_ROW_SERIES, TIMER_ROW_SERIES,
};

use std::fmt::Write as _;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use prometheus_client::registry::Registry;

use crate::report::ReportCell;
use crate::shutdown::Shutdown;
use crate::state::Core;
use crate::tap::{Round, Tap};

/// Rounds the tap may hold for the metrics thread (2.5 s of rounds at the default 10 ms period).
pub const QUEUE_ROUNDS: usize = 256;

// ---------------------------------------------------------------------------------------------
// The tap, the thread, the scrape
// ---------------------------------------------------------------------------------------------

/// The metrics state the threads share (built by `app`, given to the metrics thread and the API).
pub struct Metrics {
    /// Written by the metrics thread (each round), read by scrapes. Its own lock: neither side
    /// ever waits on the merger, and the merger never waits on it.
    pub state: Mutex<SeriesSet>,
}

impl Metrics {
    pub fn new(config: &crate::config::Config) -> Metrics {
        Metrics {
            state: Mutex::new(
                SeriesSet::new(
                    config.limits.max_metric_series,
                    config.metrics.series_idle.0,
                )
                .with_max_rows(config.metrics.max_report_rows),
            ),
        }
    }
}

/// The tap the merger feeds: a bounded queue to the metrics thread.
pub struct MetricsTap {
    /// The metrics thread holds the receiving end; full means it is behind: the round is
    /// dropped and counted, never waited for.
    tx: SyncSender<Arc<Round>>,
    counters: Arc<crate::counters::Counters>,
}

impl Tap for MetricsTap {
    fn name(&self) -> &str {
        "metrics"
    }

    fn offer(&self, round: &Arc<Round>) {
        // Every round, even with no report exported: the thread sees a report created with
        // `prometheus = true` when it takes the next round, so that report counts the requests
        // merged from then on (a flag set by the thread would lose those of its next wake-up).
        if round.batch().is_empty() {
            return;
        }
        if let Err(TrySendError::Full(r)) = self.tx.try_send(Arc::clone(round)) {
            let c = &self.counters;
            c.metric_rounds_dropped.fetch_add(1, Relaxed);
            c.metric_requests_dropped
                .fetch_add(r.batch().len() as u64, Relaxed);
        }
    }
}

/// Registers the tap and starts the "pinbad-metrics" thread; it stops once `shutdown` is
/// triggered.
pub fn start(
    shared: Arc<Core>,
    metrics: Arc<Metrics>,
    shutdown: Shutdown,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE_ROUNDS);
    let tap: Arc<dyn Tap> = Arc::new(MetricsTap {
        tx,
        counters: Arc::clone(shared.counters()),
    });
    shared.taps().add(Arc::clone(&tap));
    std::thread::Builder::new()
        .name("pinbad-metrics".into())
        .spawn(move || {
            run(&shared, &metrics, &rx, &shutdown);
            shared.taps().remove(&tap);
        })
}

/// How often the thread wakes without rounds: to see report changes and remove idle series.
const WAKE_EVERY: Duration = Duration::from_millis(250);

/// The metrics thread's loop.
fn run(shared: &Core, metrics: &Metrics, rx: &Receiver<Arc<Round>>, shutdown: &Shutdown) {
    let mut known: Vec<Arc<ReportCell>> = Vec::new();
    let mut last_idle_check = 0;
    // A round's ids name the same strings for more than stats_history + 1 s after it was merged
    // (the dictionary frees only strings unused for longer than the longest window plus 2 s, to
    // the second, see `Merger::sweep`): an older round is dropped and counted rather than
    // labelled with strings that may have changed. (Rows that exist have their strings pinned.)
    let max_lag_ms = shared.config().stats_history.0.as_millis() as u64 + 500;
    while !shutdown.is_triggered() {
        let round = match rx.recv_timeout(WAKE_EVERY) {
            Ok(r) => Some(r),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        sync_reports(shared, metrics, &mut known);
        let mut state = metrics.state.lock();
        let now_ms = shared.clock().now_ms64();
        if let Some(round) = round {
            if now_ms.saturating_sub(round.now_ms()) > max_lag_ms {
                let c = &shared.counters();
                c.metric_rounds_dropped.fetch_add(1, Relaxed);
                c.metric_requests_dropped
                    .fetch_add(round.batch().len() as u64, Relaxed);
            } else if state.exports_any() {
                state.fold(round.now_ms(), round.batch().views());
                if state.needs_labels() {
                    state.label_new_rows(&mut shared.dictionary().write());
                }
            }
        }
        if now_ms >= last_idle_check + 1000 {
            last_idle_check = now_ms;
            if state.has_idle(now_ms) {
                state.remove_idle(now_ms, &mut shared.dictionary().write());
            }
        }
        if state.exports_any() && state.needs_rank(now_ms) {
            state.rank(now_ms, &mut shared.dictionary().write());
        }
        shared
            .counters()
            .metric_series
            .store(state.series() as u64, Relaxed);
        let c = shared.counters();
        c.metric_series_lost.store(state.lost(), Relaxed);
        c.metric_rows_folded
            .store(state.rows_folded() as u64, Relaxed);
        c.metric_requests_folded
            .store(state.requests_folded(), Relaxed);
    }
}

/// Brings the exported reports in line with the live ones when the report set changed. `known`
/// holds the cells seen last: holding them keeps their addresses (the reports' identities here)
/// from being reused by a report created after one was dropped.
fn sync_reports(shared: &Core, metrics: &Metrics, known: &mut Vec<Arc<ReportCell>>) {
    let cells = shared.reports().snapshot();
    let same = cells.len() == known.len()
        && cells
            .iter()
            .zip(known.iter())
            .all(|(a, b)| Arc::ptr_eq(a, b));
    if same {
        return;
    }
    *known = cells.clone();
    let mut exported = Vec::new();
    for cell in &cells {
        let report = cell.report.read();
        if report.def().prometheus {
            exported.push(ExportedReport {
                id: Arc::as_ptr(cell) as usize,
                name: cell.name().to_string(),
                selector: report.row_selector(),
                key_columns: report.key_columns().to_vec(),
                buckets: buckets_of(report.def()),
            });
        }
    }
    let mut state = metrics.state.lock();
    let ids: Vec<usize> = exported.iter().map(|e| e.id).collect();
    if state.report_ids() != ids {
        state.set_reports(exported, &mut shared.dictionary().write());
    }
}

/// The exposition for `GET /metrics`: Prometheus text format 0.0.4 (see [`to_prometheus_text`]),
/// with the status counters first and the report series after. Takes the metrics state's lock
/// for the report series, nothing else.
pub fn render(sources: crate::status::Sources, metrics: &Arc<Metrics>) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(status::StatusCollector {
        sources,
        metrics: Arc::clone(metrics),
    }));
    let mut out = String::new();
    // Writing to a String cannot fail; an error would come from a collector, and both return
    // only the writer's errors.
    let _ = prometheus_client::encoding::text::encode_registry(&mut out, &registry);
    to_prometheus_text(&out)
}

/// The content type of [`render`]'s text.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// prometheus-client writes OpenMetrics text; Prometheus reads it, but the Prometheus text format
/// 0.0.4 is what every scraper and `promtool check metrics` read, and OpenMetrics would forbid
/// the names the report series need (a counter `pinba_request_time_seconds_total` beside a
/// histogram `pinba_request_time_seconds` share a family name there). The two differ only in
/// metadata lines: 0.0.4 names a counter's HELP and TYPE with its `_total` and has no `# UNIT`
/// (nor `# EOF`, which `encode_registry` does not write). Samples are kept as encoded.
pub fn to_prometheus_text(openmetrics: &str) -> String {
    let mut out = String::with_capacity(openmetrics.len() + 4096);
    let mut lines = openmetrics.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("# UNIT ") || line == "# EOF" {
            continue;
        }
        if let Some(help) = line.strip_prefix("# HELP ") {
            let counter = lines
                .peek()
                .and_then(|t| t.strip_prefix("# TYPE "))
                .and_then(|t| t.strip_suffix(" counter"));
            if let Some(name) = counter {
                let text = help.strip_prefix(name).unwrap_or(help);
                let _ = writeln!(out, "# HELP {name}_total{text}");
                let _ = writeln!(out, "# TYPE {name}_total counter");
                lines.next();
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prometheus_text_names_counters_with_total_and_drops_units() {
        let om = "# HELP a_seconds Time.\n# TYPE a_seconds counter\n# UNIT a_seconds seconds\n\
                  a_seconds_total 1.5\n# HELP g Gauge.\n# TYPE g gauge\ng 2\n# EOF\n";
        assert_eq!(
            to_prometheus_text(om),
            "# HELP a_seconds_total Time.\n# TYPE a_seconds_total counter\na_seconds_total 1.5\n\
             # HELP g Gauge.\n# TYPE g gauge\ng 2\n"
        );
    }
}
