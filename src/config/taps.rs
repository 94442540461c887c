//! The switches of the taps and the state kept across restarts: `[history]`, `[metrics]`,
//! `[snapshot]`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::units::HumanDuration;

/// `[history]`: the global switch.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HistoryConfig {
    /// Whether reports with `history_retention` keep history (false: no store is opened, and no
    /// report keeps its closed ticks).
    pub enabled: bool,
}

impl Default for HistoryConfig {
    fn default() -> HistoryConfig {
        HistoryConfig { enabled: true }
    }
}

/// `[metrics]` in the config file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// A report row's series not updated for this long are removed (its counters start again
    /// from 0 if the row comes back, which `rate()` reads as a counter reset).
    pub series_idle: HumanDuration,
}

impl Default for MetricsConfig {
    fn default() -> MetricsConfig {
        MetricsConfig {
            series_idle: HumanDuration(Duration::from_secs(3600)),
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
