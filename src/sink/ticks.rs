//! Report ticks for a sink (`reports = [...]` of a ClickHouse sink): the closed ticks of the
//! reports it names, from the merge threads to the sink's thread.
//!
//! ```text
//!  merge threads ──► Sink::hand_over (tap::TickTap) ──► TickInbox (ArrayQueue, bounded:
//!  (each report's closed ticks, Arc-shared, no copy)     full → dropped, counted `ticks_dropped`)
//!                                                            │
//!                  thread "pinbad-sink-NAME" (every 100 ms) ▼
//!     each row encoded by the output (`Output::tick_row`: ClickHouse's, the one output that
//!     takes ticks) straight into its insert, key ids named under the dictionary's read lock
//!     (a chunk of rows at a time); sealed and sent in order with the requests
//! ```
//!
//! Nothing is done per request: a tick is aggregated once by its report, and this writes its
//! rows once. A tick that waited longer than its report's window is not written (its key ids may
//! name other strings by then: the dictionary frees an id once unused for a window): dropped,
//! counted.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crossbeam_queue::ArrayQueue;

use super::clickhouse::{TickHead, TickRow, OTHER, ROW, TOTALS};
use super::{Output, SinkStats};
use crate::config::TickReports;
use crate::report::{ClosedTick, ReportCell};
use crate::state::Core;

/// Ticks waiting for the sink's thread at most (all its reports together); beyond, ticks are
/// dropped and counted. The thread takes them ten times a second: reached only if it is stuck.
const INBOX_TICKS: usize = 4096;
/// Rows encoded (their keys named) under one hold of the dictionary's read lock: a hold of
/// tens of microseconds, which the merge threads' interning of new strings waits for.
const RESOLVE_CHUNK: usize = 256;

/// The closed ticks handed to a sink, waiting for its thread.
pub struct TickInbox {
    reports: TickReports,
    queue: ArrayQueue<(Arc<ReportCell>, Arc<ClosedTick>)>,
}

impl TickInbox {
    pub fn new(reports: TickReports) -> TickInbox {
        TickInbox {
            reports,
            queue: ArrayQueue::new(INBOX_TICKS),
        }
    }

    /// Takes a report's closed ticks (merge threads; never blocks): those of a report the sink
    /// does not write are ignored; what does not fit is dropped and counted.
    pub fn offer(
        &self,
        cell: &Arc<ReportCell>,
        ticks: Vec<Arc<ClosedTick>>,
        dropped: u64,
        stats: &SinkStats,
    ) {
        if !self.reports.includes(cell.name()) {
            return;
        }
        if dropped > 0 {
            stats.ticks_dropped.fetch_add(dropped, Relaxed);
        }
        for tick in ticks {
            if self.queue.push((Arc::clone(cell), tick)).is_err() {
                stats.ticks_dropped.fetch_add(1, Relaxed);
            }
        }
    }

    /// Encodes every waiting tick into `out` (the sink's thread).
    pub fn drain(&self, out: &mut dyn Output, shared: &Core, stats: &SinkStats) {
        while let Some((cell, tick)) = self.queue.pop() {
            encode(&cell, &tick, out, shared, stats);
        }
    }
}

/// One tick into `out`: its rows with their keys named, "(other)", the totals.
fn encode(
    cell: &ReportCell,
    tick: &ClosedTick,
    out: &mut dyn Output,
    shared: &Core,
    stats: &SinkStats,
) {
    let w = cell.window();
    let clock = shared.clock();
    let end_ms = w.tick_start(tick.index() + 1);
    let (kind, key_names, texts) = {
        let r = cell.report.read();
        (r.kind().as_str(), r.key_columns().to_vec(), r.key_texts())
    };
    out.tick_start(&TickHead {
        start_ms: clock.unix_ms64(w.tick_start(tick.index())),
        tick_ms: w.tick_ms,
        report: cell.name(),
        kind,
        key_names: &key_names,
    });
    // Rows are encoded straight into the insert, their keys named in chunks, each under one
    // hold of the read lock and checked young enough under it (a sweep, which could free the
    // ids, needs the write lock).
    let mut rows = tick.rows().peekable();
    while rows.peek().is_some() {
        let dict = shared.dictionary().read();
        if clock.now_ms64() >= end_ms.saturating_add(w.history_ms) {
            drop(dict);
            out.tick_end(false);
            stats.ticks_dropped.fetch_add(1, Relaxed);
            return;
        }
        for (ids, sums, hist) in rows.by_ref().take(RESOLVE_CHUNK) {
            out.tick_row(&TickRow {
                row_type: ROW,
                keys: Some((ids, &texts, &dict)),
                sums: &sums,
                hist,
            });
        }
    }
    if let Some((sums, hist)) = tick.other() {
        out.tick_row(&TickRow {
            row_type: OTHER,
            keys: None,
            sums,
            hist: hist.into(),
        });
    }
    let (sums, hist) = tick.totals();
    out.tick_row(&TickRow {
        row_type: TOTALS,
        keys: None,
        sums,
        hist: hist.into(),
    });
    out.tick_end(true);
}
