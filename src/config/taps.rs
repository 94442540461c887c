//! The switches of the taps and the state kept across restarts: `[history]`, `[metrics]`,
//! `[snapshot]`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::units::HumanDuration;

/// `[history]`: the global switch, and the fine resolution every report with history keeps
/// besides its own steps (see `history`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HistoryConfig {
    /// Whether reports with `history_retention` keep history (false: no store is opened, and no
    /// report keeps its closed ticks).
    pub enabled: bool,
    /// The fine steps' length (0s: none). A report whose `history_step` is a longer multiple of
    /// it, and whose tick divides it, also keeps steps of this length.
    pub fine_step: HumanDuration,
    /// How long fine steps are kept (at most the report's `history_retention`).
    pub fine_retention: HumanDuration,
    /// Rows kept per fine step (the report's `history_rows` when that is fewer); the rest sum
    /// into "(other)".
    pub fine_rows: usize,
}

impl Default for HistoryConfig {
    fn default() -> HistoryConfig {
        HistoryConfig {
            enabled: true,
            fine_step: HumanDuration(Duration::from_secs(60)),
            fine_retention: HumanDuration(Duration::from_secs(24 * 3600)),
            fine_rows: 20,
        }
    }
}

impl HistoryConfig {
    /// `fine_step` 0s or whole seconds from 1s to 1h, `fine_retention` from 1m to 30 days and
    /// not shorter than `fine_step`, `fine_rows` from 1 to `MAX_HISTORY_ROWS`.
    pub fn validate(&self) -> Result<(), super::ConfigError> {
        let step = self.fine_step.0;
        if !step.is_zero()
            && (step < Duration::from_secs(1)
                || step > Duration::from_secs(3600)
                || step.subsec_nanos() != 0)
        {
            return Err(super::invalid(
                "history.fine_step",
                "must be 0s (no fine steps) or whole seconds from 1s to 1h",
            ));
        }
        let retention = self.fine_retention.0;
        if retention < Duration::from_secs(60)
            || retention > Duration::from_secs(30 * 24 * 3600)
            || retention < step
        {
            return Err(super::invalid(
                "history.fine_retention",
                "must be between 1m and 30 days, and not shorter than history.fine_step",
            ));
        }
        if !(1..=crate::report::MAX_HISTORY_ROWS).contains(&self.fine_rows) {
            return Err(super::invalid(
                "history.fine_rows",
                format!("must be between 1 and {}", crate::report::MAX_HISTORY_ROWS),
            ));
        }
        Ok(())
    }
}

/// The default `metrics.max_report_rows`: 200 rows of default buckets are ~12,000 series, a
/// scrape of ~1.5 MB per report.
pub const DEFAULT_MAX_REPORT_ROWS: usize = 200;

/// `[metrics]` in the config file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// A report row's series not updated for this long are removed (its counters start again
    /// from 0 if the row comes back, which `rate()` reads as a counter reset).
    pub series_idle: HumanDuration,
    /// Rows of one exported report that get series of their own; the rest count in an
    /// `(other)` row per status (see `metrics`), so a report with many keys cannot take the
    /// whole `limits.max_metric_series` budget from the others.
    pub max_report_rows: usize,
}

impl Default for MetricsConfig {
    fn default() -> MetricsConfig {
        MetricsConfig {
            series_idle: HumanDuration(Duration::from_secs(3600)),
            max_report_rows: DEFAULT_MAX_REPORT_ROWS,
        }
    }
}

/// `[snapshot]` in the config file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SnapshotConfig {
    /// Write the pool and the reports' windows to `state_dir` at shutdown, restore them at start.
    pub enabled: bool,
}

impl Default for SnapshotConfig {
    fn default() -> SnapshotConfig {
        SnapshotConfig { enabled: true }
    }
}

/// `[ticklog]` in the config file: every closed report tick appended to a log in `state_dir`, so
/// that a crash loses only the reports' open ticks (see `ticklog`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TickLogConfig {
    /// Whether closed ticks are logged (and the log replayed at a start the snapshot did not
    /// restore).
    pub enabled: bool,
    /// The most the log's files may take on disk; a tick that would go beyond is dropped
    /// (counted).
    pub max_bytes: crate::units::ByteSize,
}

/// The smallest `ticklog.max_bytes`.
pub const TICKLOG_MIN_BYTES: u64 = 1 << 20;

impl Default for TickLogConfig {
    fn default() -> TickLogConfig {
        TickLogConfig {
            enabled: true,
            max_bytes: crate::units::ByteSize(4 << 30),
        }
    }
}
