//! A report's history settings (`history_retention`, `history_step`, `history_rows`) resolved
//! against its window: what the history writer keeps of it, checked when the report is created.

use std::time::Duration;

use crate::report::{builtin_defs, Report, ReportDef, ReportError, Window};

/// `history_step` when a report with `history_retention` does not set it.
pub const DEFAULT_HISTORY_STEP: Duration = Duration::from_secs(60);
/// `history_rows` when a report with `history_retention` does not set it.
pub const DEFAULT_HISTORY_ROWS: usize = 100;
/// A report's history settings, resolved against its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistorySpec {
    pub retention_ms: u64,
    pub step_ms: u64,
    pub rows: usize,
}

impl HistorySpec {
    /// The history a report keeps (`None`: none). The step must be a multiple of the report's
    /// tick, so that every step holds the same number of ticks. A step the definition does not
    /// set (the default, or a built-in's) that is not (an unusual `stats_history` /
    /// `report_ticks`) is made the nearest multiple that is whole seconds, or the report keeps
    /// no history (with a warning): refusing it would refuse a report, or a saved run-time one
    /// (and so the start), for a value nobody set, after a change of the window alone. A step
    /// the definition sets is its author's: refused.
    pub fn of(def: &ReportDef, window: Window) -> Result<Option<HistorySpec>, ReportError> {
        let retention = def.history_retention.map(|d| d.0).unwrap_or_default();
        if retention.is_zero() {
            return Ok(None);
        }
        let mut step_ms = def
            .history_step
            .map_or(DEFAULT_HISTORY_STEP, |d| d.0)
            .as_millis() as u64;
        let tick = window.tick_ms.max(1);
        if !step_ms.is_multiple_of(tick) {
            let adjusted = (step_ms.div_ceil(tick)..step_ms.div_ceil(tick) + 1000)
                .map(|k| k * tick)
                .find(|ms| ms % 1000 == 0);
            let unset = def.history_step.is_none() || builtin_defs().contains(def);
            match adjusted {
                Some(ms) if unset => {
                    tracing::info!(report = %def.name, step_ms = ms, tick_ms = tick, "Default history step made a multiple of the tick");
                    step_ms = ms;
                }
                None if unset => {
                    tracing::warn!(report = %def.name, tick_ms = tick, "No whole-second history step is a multiple of this tick: the report keeps no history");
                    return Ok(None);
                }
                _ => {
                    return Err(ReportError::invalid(format!(
                        "history_step: {} is not a multiple of the report's tick ({} ms: its \
                         window / report_ticks); choose one that is",
                        humantime::format_duration(Duration::from_millis(step_ms)),
                        tick
                    )))
                }
            }
        }
        Ok(Some(HistorySpec {
            retention_ms: retention.as_millis() as u64,
            step_ms,
            rows: def.history_rows.unwrap_or(DEFAULT_HISTORY_ROWS),
        }))
    }

    /// The history `report` keeps.
    pub fn of_report(report: &Report) -> Result<Option<HistorySpec>, ReportError> {
        HistorySpec::of(report.def(), report.window())
    }
}
