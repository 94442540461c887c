//! `[request_log]`: the request logs (see `reqlog`): per step and per group (server, host or
//! script), the slowest requests, those with the highest memory peak, those with the highest CPU
//! time, and the error requests, kept for `retention` in `{state_dir}/request_log.sqlite`;
//! thresholds global and per server (`[request_log.servers."NAME"]`, as Pinboard's
//! `APP_LOGGING_*` maps).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{invalid, ConfigError};
use crate::units::{ByteSize, HumanDuration};

/// The request field the logs keep their top requests per (one top-N per value and step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LogGroup {
    ServerName,
    Hostname,
    ScriptName,
}

impl LogGroup {
    pub fn as_str(self) -> &'static str {
        match self {
            LogGroup::ServerName => "server_name",
            LogGroup::Hostname => "hostname",
            LogGroup::ScriptName => "script_name",
        }
    }
}

/// `[request_log]` in the config file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RequestLogConfig {
    /// Whether the logs are kept (false: no store is opened, no tap is registered).
    pub enabled: bool,
    /// How long a step's entries are kept.
    pub retention: HumanDuration,
    /// The step: each step keeps its own top requests per group (whole seconds).
    pub step: HumanDuration,
    /// What a top is kept per: `server_name`, `hostname` or `script_name`.
    pub group_by: LogGroup,
    /// Requests kept per group and step in each of the slow, memory and CPU logs.
    pub top: usize,
    /// Error requests kept per group, status and step (the first ones); all are counted.
    pub max_errors: usize,
    /// The slow log takes requests at least this long. 100 ms by default: the log keeps the
    /// slowest `top` of each group and step anyway, so this is only a floor that keeps requests
    /// too fast to matter out; at 1 s (pinba_engine's habit) the log of an app whose requests
    /// take under 300 ms stayed empty (issue 82), at 100 ms such an app's slow tail fills it.
    pub min_time: HumanDuration,
    /// The memory log takes requests whose memory_peak is at least this.
    pub min_memory: ByteSize,
    /// The CPU log takes requests whose ru_utime + ru_stime is at least this.
    pub min_cpu: HumanDuration,
    /// The error log takes requests whose status is at least this.
    pub error_status: u32,
    /// Groups a step keeps at most; requests of further groups are counted as dropped.
    pub max_groups: usize,
    /// Disk the store may take, every file of it (database, WAL, shared memory); beyond it the
    /// oldest steps' largest entries are deleted (counted). One step holds at most a share of
    /// it (see `reqlog`'s doc).
    pub max_bytes: ByteSize,
    /// What one entry's request may take rendered (JSON with its tags and timers): timers, then
    /// request tags, beyond it are left out (counted); `timer_count` still says how many it had.
    pub max_entry_bytes: ByteSize,
    /// Timers one entry keeps at most (the first ones); the rest are left out (counted).
    pub max_entry_timers: usize,
    /// Thresholds of one server (by server_name), over the global ones.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub servers: BTreeMap<String, ServerThresholds>,
}

/// `[request_log.servers."NAME"]`: a server's own thresholds; a key left out keeps the global one.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerThresholds {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_time: Option<HumanDuration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_memory: Option<ByteSize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_cpu: Option<HumanDuration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_status: Option<u32>,
}

/// The smallest `request_log.max_bytes`.
pub const REQUEST_LOG_MIN_BYTES: u64 = 1 << 20;
/// The bounds of `request_log.max_entry_bytes`: room for a request's figures and names (each
/// at most `limits.max_string_bytes`), and at most what a datagram can carry rendered with a
/// few timers.
pub const REQUEST_LOG_ENTRY_BYTES: std::ops::RangeInclusive<u64> = (4 << 10)..=(16 << 20);
/// The largest `request_log.max_entry_timers`.
pub const REQUEST_LOG_MAX_ENTRY_TIMERS: usize = 100_000;
/// The largest `request_log.top` and `request_log.max_errors`.
pub const REQUEST_LOG_MAX_TOP: usize = 10_000;
/// The longest `request_log.retention` (as reports' `history_retention`).
const MAX_RETENTION: Duration = Duration::from_secs(10 * 366 * 86_400);

impl Default for RequestLogConfig {
    fn default() -> RequestLogConfig {
        RequestLogConfig {
            enabled: true,
            retention: HumanDuration(Duration::from_secs(30 * 86_400)),
            step: HumanDuration(Duration::from_secs(60)),
            group_by: LogGroup::ServerName,
            top: 10,
            max_errors: 10,
            min_time: HumanDuration(Duration::from_millis(100)),
            min_memory: ByteSize(32 << 20),
            min_cpu: HumanDuration(Duration::from_secs(1)),
            error_status: 500,
            max_groups: 1000,
            max_bytes: ByteSize(1 << 30),
            max_entry_bytes: ByteSize(256 << 10),
            max_entry_timers: 1000,
            servers: BTreeMap::new(),
        }
    }
}

/// The thresholds a request is held to: the global ones, or its server's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Seconds.
    pub min_time: f32,
    pub min_memory: u64,
    /// Seconds of ru_utime + ru_stime.
    pub min_cpu: f32,
    pub error_status: u32,
}

impl RequestLogConfig {
    /// Checks every value; the error names the key (`request_log.servers."x".min_time`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let step = self.step.0;
        if step < Duration::from_secs(1)
            || step.subsec_nanos() != 0
            || step > Duration::from_secs(86_400)
        {
            return Err(invalid(
                "request_log.step",
                "must be whole seconds, from 1s to 1d",
            ));
        }
        let retention = self.retention.0;
        if retention < step || retention > MAX_RETENTION {
            return Err(invalid(
                "request_log.retention",
                "must be at least request_log.step and at most 10 years",
            ));
        }
        for (key, v) in [("top", self.top), ("max_errors", self.max_errors)] {
            if !(1..=REQUEST_LOG_MAX_TOP).contains(&v) {
                return Err(invalid(
                    &format!("request_log.{key}"),
                    format!("{v} is out of range 1..={REQUEST_LOG_MAX_TOP}"),
                ));
            }
        }
        if !(1..=1_000_000).contains(&self.max_groups) {
            return Err(invalid(
                "request_log.max_groups",
                format!("{} is out of range 1..=1000000", self.max_groups),
            ));
        }
        if self.max_bytes.0 < REQUEST_LOG_MIN_BYTES {
            return Err(invalid("request_log.max_bytes", "must be at least 1MiB"));
        }
        if !REQUEST_LOG_ENTRY_BYTES.contains(&self.max_entry_bytes.0) {
            return Err(invalid(
                "request_log.max_entry_bytes",
                "must be from 4KiB to 16MiB",
            ));
        }
        if self.max_entry_timers > REQUEST_LOG_MAX_ENTRY_TIMERS {
            return Err(invalid(
                "request_log.max_entry_timers",
                format!(
                    "{} is out of range 0..={REQUEST_LOG_MAX_ENTRY_TIMERS}",
                    self.max_entry_timers
                ),
            ));
        }
        check_thresholds("request_log", &self.global())?;
        for (name, t) in &self.servers {
            let key = format!("request_log.servers.{name:?}");
            if name.is_empty() {
                return Err(invalid(&key, "a server name cannot be empty"));
            }
            check_thresholds(&key, &self.merged(t))?;
        }
        Ok(())
    }

    /// The global thresholds.
    pub fn global(&self) -> Thresholds {
        Thresholds {
            min_time: self.min_time.0.as_secs_f32(),
            min_memory: self.min_memory.0,
            min_cpu: self.min_cpu.0.as_secs_f32(),
            error_status: self.error_status,
        }
    }

    /// A server's thresholds: its own where it sets them, the global ones elsewhere.
    pub fn merged(&self, t: &ServerThresholds) -> Thresholds {
        let g = self.global();
        Thresholds {
            min_time: t.min_time.map_or(g.min_time, |d| d.0.as_secs_f32()),
            min_memory: t.min_memory.map_or(g.min_memory, |b| b.0),
            min_cpu: t.min_cpu.map_or(g.min_cpu, |d| d.0.as_secs_f32()),
            error_status: t.error_status.unwrap_or(g.error_status),
        }
    }
}

/// A status bound no request reaches is refused rather than silently keeping nothing.
fn check_thresholds(key: &str, t: &Thresholds) -> Result<(), ConfigError> {
    if !(100..=999).contains(&t.error_status) {
        return Err(invalid(
            &format!("{key}.error_status"),
            format!("{} is not an HTTP status (100..=999)", t.error_status),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn bad_values_name_their_key() {
        for (text, key) in [
            ("[request_log]\nstep = \"1500ms\"", "request_log.step"),
            (
                "[request_log]\nretention = \"10s\"",
                "request_log.retention",
            ),
            ("[request_log]\ntop = 0", "request_log.top"),
            (
                "[request_log]\nmax_errors = 100000",
                "request_log.max_errors",
            ),
            ("[request_log]\nmax_bytes = 1000", "request_log.max_bytes"),
            (
                "[request_log]\nmax_entry_bytes = \"1KiB\"",
                "request_log.max_entry_bytes",
            ),
            (
                "[request_log]\nmax_entry_timers = 1000000",
                "request_log.max_entry_timers",
            ),
            (
                "[request_log]\nerror_status = 5000",
                "request_log.error_status",
            ),
            ("[request_log]\ngroup_by = \"country\"", "group_by"),
            (
                "[request_log.servers.\"a.example\"]\nerror_status = 42",
                "request_log.servers.\"a.example\".error_status",
            ),
            (
                "[request_log.servers.\"a.example\"]\nmin_tme = \"1s\"",
                "min_tme",
            ),
        ] {
            let e = Config::parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }

    #[test]
    fn a_server_overrides_what_it_sets() {
        let c = Config::parse(
            "[request_log]\nmin_time = \"1s\"\nerror_status = 500\n\
             [request_log.servers.\"api\"]\nmin_time = \"200ms\"\n",
        )
        .unwrap();
        let r = &c.request_log;
        let api = r.merged(&r.servers["api"]);
        assert_eq!((api.min_time, api.error_status), (0.2, 500));
        assert_eq!(r.global().min_time, 1.0);
        assert!(
            c.to_toml().contains("[request_log.servers.api]"),
            "{}",
            c.to_toml()
        );
    }
}
