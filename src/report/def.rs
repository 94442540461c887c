//! Report definitions: keys, filters, presets, percentiles, validation, and the built-ins.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::record::Record;

use super::columns::key_column_names;
use super::error::err;
use super::*;

/// A filter value: a number (`min_time`, `max_time`, `status`) or a string (everything else).
/// In TOML and JSON it is written as a plain number or string.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum FilterValue {
    Int(i64),
    Float(f64),
    Text(String),
}

impl From<&str> for FilterValue {
    fn from(s: &str) -> FilterValue {
        FilterValue::Text(s.to_string())
    }
}
impl From<String> for FilterValue {
    fn from(s: String) -> FilterValue {
        FilterValue::Text(s)
    }
}
impl From<i64> for FilterValue {
    fn from(v: i64) -> FilterValue {
        FilterValue::Int(v)
    }
}
impl From<f64> for FilterValue {
    fn from(v: f64) -> FilterValue {
        FilterValue::Float(v)
    }
}

/// How a filter value reads in an error message: as it was written, not as a Rust value.
impl std::fmt::Display for FilterValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilterValue::Int(i) => write!(f, "{i}"),
            FilterValue::Float(x) => write!(f, "{x}"),
            FilterValue::Text(s) => write!(f, "{s:?}"),
        }
    }
}

impl FilterValue {
    fn as_f64(&self) -> Option<f64> {
        match *self {
            FilterValue::Int(i) => Some(i as f64),
            FilterValue::Float(f) => Some(f),
            FilterValue::Text(_) => None,
        }
    }
    /// A string filter's value; integers are accepted as their decimal form (`"tag:code" = 200`).
    fn as_text(&self) -> Option<Cow<'_, str>> {
        match self {
            FilterValue::Text(s) => Some(Cow::Borrowed(s)),
            FilterValue::Int(i) => Some(Cow::Owned(i.to_string())),
            FilterValue::Float(_) => None,
        }
    }
}

/// A report definition, as written in `[[report]]` tables of the config, in `POST
/// /api/v1/reports` bodies and in the state file.
///
/// ```toml
/// [[report]]
/// name = "slow_api_by_country"
/// keys = ["script_name", "tag:country"]
/// percentiles = [50, 99, 99.9]
/// [report.filters]
/// min_time = 0.1            # seconds, inclusive
/// max_time = 2              # seconds, inclusive
/// status = 200
/// server_name = "api.example.com"
/// "tag:country" = "nl"      # request tag
/// "timer_tag:group" = "db"  # timer tag
///
/// [[report]]                # a preset: expands to keys script_name, timer_tag:group, timer_tag:server
/// name = "timers_by_group_and_server"
/// preset = "timer_tag_report"
/// tags = ["group", "server"]
/// ```
/// The same as JSON: `{"name": "slow_api_by_country", "keys": ["script_name", "tag:country"],
/// "filters": {"min_time": 0.1, "tag:country": "nl"}, "percentiles": [50, 99]}`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReportDef {
    /// `[A-Za-z0-9_:.,-]`, 1 to 128 bytes, unique.
    pub name: String,
    /// Ordered dimensions: `hostname`, `server_name`, `script_name`, `schema`, `status`,
    /// `tag:NAME`, `timer_tag:NAME`; at most 15; none for an info report. Empty with a `preset`.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Percentiles shown by default, each in `[0, 100]`.
    #[serde(default = "default_percentiles")]
    pub percentiles: Vec<f64>,
    /// A docs/REPORTS.md tag report family, expanded with `tags` into the keys:
    /// `timer_tag_info` (pinba_engine `tagN_info`), `timer_tag_report` (`tagN_report`),
    /// `timer_tag_report2` (`tagN_report2`), `request_tag_info` (`rtagN_info`),
    /// `request_tag_report` (`rtagN_report`); the pinba_engine spellings without N are accepted too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// Tag names for `preset`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// All must hold for a request (or, for `timer_tag:` filters in a timer report, a timer) to
    /// contribute. Keys: `min_time`, `max_time` (seconds, inclusive), `hostname`, `server_name`,
    /// `script_name`, `schema`, `status`, `tag:NAME`, `timer_tag:NAME`.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "unique_filters"
    )]
    pub filters: BTreeMap<String, FilterValue>,
    /// The report's own window (pinba2 allows one per report), e.g. `"1m"`; `stats_history`
    /// when not set. Between 1 s and 30 days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::units::HumanDuration>,
    /// Export the report's rows on `GET /metrics` as monotonic counters since start (see the
    /// `metrics` module); off by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prometheus: bool,
    /// The upper bounds (seconds) of the exported histogram's buckets, `+Inf` added: at most
    /// [`MAX_PROMETHEUS_BUCKETS`], each above 0 and below the one after it; `[]` exports no
    /// buckets but `+Inf` (the counters alone, for a report alerted on by counts). Absent: the
    /// default of `metrics` (fine enough for `histogram_quantile` to land near the report's own
    /// percentiles). Only with `prometheus = true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prometheus_buckets: Option<Vec<f64>>,
    /// How long the report's steps are kept in the history store (`{state_dir}/history.sqlite`,
    /// see `history`), e.g. `"30d"`; absent or `"0s"`: the report keeps no history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_retention: Option<crate::units::HumanDuration>,
    /// The history's resolution, e.g. `"1m"` (default): whole seconds, a multiple of the report's
    /// tick. Steps are aligned on unix time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_step: Option<crate::units::HumanDuration>,
    /// Rows kept per step (default 100): the top ones by `req_time_total` (`timer_value` in a
    /// timer report); the rest are summed into one "(other)" row, so totals stay exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_rows: Option<usize>,
    /// The SQL table that defined the report (`CREATE TABLE … ENGINE=PINBA` over the MySQL
    /// protocol), whose column names the SQL front end keeps; absent for reports defined
    /// otherwise, which SQL shows with pinba_engine's column names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql_table: Option<SqlTable>,
    /// Whose definitions of timer percentiles and `*_per_sec` the report follows ([`Compat`]);
    /// absent: pinbad's. The SQL front end's `CREATE TABLE` sets it from the comment's syntax.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Compat>,
}

/// Another server's definitions of a timer report's percentiles and of every `*_per_sec`, for
/// tables made with its DDL (docs/REPORTS.md, "Definitions"), so that its users' numbers keep
/// their meaning. pinbad's own (no `compat`): a timer adds `hit_count` samples of
/// `value / hit_count`, and rates divide by the time the window covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Compat {
    /// pinba_engine's: a timer adds `hit_count` samples of its whole value, and rates divide by
    /// the span of the requests the window holds (its newest less its oldest, in whole Unix
    /// seconds, at least 1; 1 while the report has fewer than 2 rows, `info` fewer than 2
    /// requests).
    #[serde(rename = "pinba_engine")]
    PinbaEngine,
    /// pinba2's: timer samples as pinbad's, and rates divide by the whole window.
    #[serde(rename = "pinba2")]
    Pinba2,
}

/// A `CREATE TABLE … ENGINE=PINBA COMMENT='…'` as it defined a report: pinba_engine and pinba2
/// fill a table's columns by position, whatever their names, so the names are the statement's
/// and what each holds follows from the comment's table type.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlTable {
    /// The table's `COMMENT` (pinba_engine's `TYPE:PARAMS:CONDITIONS:PERCENTILES` or pinba2's
    /// `v2/…`).
    pub comment: String,
    /// The columns' names, in order.
    pub columns: Vec<String>,
}

/// Most keys a report may have.
pub const MAX_KEYS: usize = 15;
/// Most filters a report may have: every request (or timer) is held to each of them, so that a
/// definition's cost is bounded as its keys' is.
pub const MAX_FILTERS: usize = 32;
/// Longest report name, in bytes.
pub const MAX_NAME_BYTES: usize = 128;
/// The SQL front end's raw tables (pinba_engine's names for the raw pool's requests, timers,
/// timer tags and tag names), which `sql` creates from this list. A report's SQL table of one of
/// these names would be hidden behind the raw table, so a new report may not take one
/// ([`ReportDef::validate_new`]), compared without case as the SQL front end matches names.
pub const SQL_RAW_TABLES: [&str; 4] = ["request", "timer", "timertag", "tag"];
/// The SQL front end's own tables (pinba_engine's `status`, pinba2's `stats` and `active`, of
/// pinbad's own figures, and pinbad's `marks`): like the raw tables, each would hide a report's
/// table of its name, so a new report may not take one.
pub const SQL_STATUS_TABLES: [&str; 4] = ["status", "stats", "active", "marks"];
/// Most percentiles a report (or a query) may show.
pub const MAX_PERCENTILES: usize = 32;
/// Percentiles shown when a definition names none.
pub const DEFAULT_PERCENTILES: [f64; 3] = [90.0, 95.0, 99.0];
/// The longest window (`stats_history`, a report's `history`): pool timestamps are u32
/// milliseconds (49 days) and wrap safely below it.
pub const MAX_HISTORY: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);
/// The longest `history_retention`: ten years.
pub const MAX_HISTORY_RETENTION: std::time::Duration =
    std::time::Duration::from_secs(3650 * 24 * 3600);
/// Most `history_rows`.
pub const MAX_HISTORY_ROWS: usize = 100_000;
/// Most `prometheus_buckets` of a report (each bucket is a Prometheus series of every row).
pub const MAX_PROMETHEUS_BUCKETS: usize = 128;

pub(super) fn default_percentiles() -> Vec<f64> {
    DEFAULT_PERCENTILES.to_vec()
}

/// What a report counts: see docs/REPORTS.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// No keys: one row, the whole pool.
    Info,
    /// No timer tag key: one row update per request.
    Request,
    /// At least one timer tag key: one row update per matching timer.
    Timer,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Info => "info",
            Kind::Request => "request",
            Kind::Timer => "timer",
        }
    }
}

/// One key of a definition, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum KeySpec {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
    Status,
    Tag(String),
    TimerTag(String),
}

impl KeySpec {
    pub(super) fn parse(s: &str) -> Result<KeySpec, ReportError> {
        Ok(match s {
            "hostname" => KeySpec::Hostname,
            "server_name" => KeySpec::ServerName,
            "script_name" => KeySpec::ScriptName,
            "schema" => KeySpec::Schema,
            "status" => KeySpec::Status,
            _ => {
                if let Some(name) = s.strip_prefix("tag:") {
                    KeySpec::Tag(tag_name(s, name)?.to_string())
                } else if let Some(name) = s.strip_prefix("timer_tag:") {
                    KeySpec::TimerTag(tag_name(s, name)?.to_string())
                } else {
                    return Err(err(format!(
                        "unknown key `{s}`: expected hostname, server_name, script_name, schema, status, tag:NAME or timer_tag:NAME"
                    )));
                }
            }
        })
    }

    /// The column name without prefix.
    pub(super) fn short_name(&self) -> &str {
        match self {
            KeySpec::Hostname => "hostname",
            KeySpec::ServerName => "server_name",
            KeySpec::ScriptName => "script_name",
            KeySpec::Schema => "schema",
            KeySpec::Status => "status",
            KeySpec::Tag(n) | KeySpec::TimerTag(n) => n,
        }
    }

    pub(super) fn is_tag(&self) -> bool {
        matches!(self, KeySpec::Tag(_) | KeySpec::TimerTag(_))
    }
}

pub(super) fn tag_name<'a>(whole: &str, name: &'a str) -> Result<&'a str, ReportError> {
    if name.is_empty() {
        return Err(err(format!("`{whole}`: empty tag name")));
    }
    if name.len() > 1024 || name.chars().any(char::is_control) {
        return Err(err(format!(
            "`{whole}`: tag names are 1 to 1024 bytes without control characters"
        )));
    }
    Ok(name)
}

/// A string request field that a filter (or key) can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FieldName {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
}

impl FieldName {
    pub(super) fn of(self, r: &Record) -> u32 {
        match self {
            FieldName::Hostname => r.hostname,
            FieldName::ServerName => r.server_name,
            FieldName::ScriptName => r.script_name,
            FieldName::Schema => r.schema,
        }
    }
}

/// One filter of a definition, parsed (strings not yet interned).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum FilterSpec {
    MinTime(f64),
    MaxTime(f64),
    Field(FieldName, String),
    /// Inclusive bounds: a status, a class (`5xx`) or a bound (`>=500`).
    Status(u32, u32),
    Tag(String, String),
    TimerTag(String, String),
}

pub(super) fn parse_filter(key: &str, value: &FilterValue) -> Result<FilterSpec, ReportError> {
    let text = || {
        value
            .as_text()
            .map(Cow::into_owned)
            .ok_or_else(|| err(format!("filter `{key}`: expected a string, got {value}")))
    };
    Ok(match key {
        "min_time" | "max_time" => {
            // Compared with the f32 the wire carries: a value that is not finite as an f32
            // (1e39 becomes infinity) would silently match everything or nothing.
            let v = value
                .as_f64()
                .filter(|v| *v >= 0.0 && (*v as f32).is_finite())
                .ok_or_else(|| {
                    err(format!(
                        "filter `{key}`: expected a number of seconds from 0 to 3.4e38, got {value}"
                    ))
                })?;
            if key == "min_time" {
                FilterSpec::MinTime(v)
            } else {
                FilterSpec::MaxTime(v)
            }
        }
        "status" => {
            let (lo, hi) = match value {
                FilterValue::Int(i) => u32::try_from(*i)
                    .map(|s| (s, s))
                    .map_err(|_| format!("`{i}`: expected a status from 0 to 4294967295")),
                FilterValue::Text(s) => crate::units::parse_status(s),
                FilterValue::Float(_) => Err(format!("{value}: expected a whole status")),
            }
            .map_err(|why| err(format!("filter `status`: {why}")))?;
            FilterSpec::Status(lo, hi)
        }
        "hostname" => FilterSpec::Field(FieldName::Hostname, text()?),
        "server_name" => FilterSpec::Field(FieldName::ServerName, text()?),
        "script_name" => FilterSpec::Field(FieldName::ScriptName, text()?),
        "schema" => FilterSpec::Field(FieldName::Schema, text()?),
        _ => {
            if let Some(name) = key.strip_prefix("tag:") {
                FilterSpec::Tag(tag_name(key, name)?.to_string(), text()?)
            } else if let Some(name) = key.strip_prefix("timer_tag:") {
                FilterSpec::TimerTag(tag_name(key, name)?.to_string(), text()?)
            } else {
                return Err(err(format!(
                    "unknown filter `{key}`: expected min_time, max_time, hostname, server_name, script_name, schema, status, tag:NAME or timer_tag:NAME"
                )));
            }
        }
    })
}

/// Checks a list of percentiles (definition or query): each in `[0, 100]`, no repeats.
pub fn validate_percentiles(ps: &[f64]) -> Result<(), ReportError> {
    if ps.len() > MAX_PERCENTILES {
        return Err(err(format!(
            "percentiles: at most {MAX_PERCENTILES}, got {}",
            ps.len()
        )));
    }
    for (i, &p) in ps.iter().enumerate() {
        if !(0.0..=100.0).contains(&p) {
            return Err(err(format!("percentiles: {p} is not between 0 and 100")));
        }
        if ps[..i].contains(&p) {
            return Err(err(format!("percentiles: {p} is listed twice")));
        }
    }
    Ok(())
}

/// The column name of a percentile: `p50`, `p99.9` (no trailing zeros).
pub fn percentile_column(p: f64) -> String {
    // `+ 0.0` turns -0 into 0: `percentiles=-0` shows `p0`, not `p-0`.
    format!("p{}", p + 0.0)
}

impl ReportDef {
    /// A definition with these keys, no filters and the default percentiles.
    pub fn new(name: &str, keys: &[&str]) -> ReportDef {
        ReportDef {
            name: name.to_string(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
            percentiles: default_percentiles(),
            preset: None,
            tags: Vec::new(),
            filters: BTreeMap::new(),
            history: None,
            prometheus: false,
            prometheus_buckets: None,
            history_retention: None,
            history_step: None,
            history_rows: None,
            sql_table: None,
            compat: None,
        }
    }

    /// Checks everything [`Report::new`] needs; the error names what is wrong.
    pub fn validate(&self) -> Result<(), ReportError> {
        validate_name(&self.name)?;
        let keys = self.resolved_keys()?;
        let mut specs = Vec::with_capacity(keys.len());
        for k in &keys {
            let spec = KeySpec::parse(k)?;
            if specs.contains(&spec) {
                return Err(err(format!("key `{k}` is listed twice")));
            }
            specs.push(spec);
        }
        // Tag names may hold anything, `:` too: `tag:timer_tag:x` beside `timer_tag:x` and
        // `tag:x` named two columns `timer_tag:x`, and a JSON row kept one of their values.
        let columns = key_column_names(&specs, self.kind());
        for (i, c) in columns.iter().enumerate() {
            if let Some(j) = columns[..i].iter().position(|o| o == c) {
                return Err(err(format!(
                    "keys `{}` and `{}` would both be shown as column `{c}`: rename a tag or \
                     drop one of the keys",
                    keys[j], keys[i]
                )));
            }
        }
        if self.filters.len() > MAX_FILTERS {
            return Err(err(format!(
                "at most {MAX_FILTERS} filters, got {}",
                self.filters.len()
            )));
        }
        let mut min = None;
        let mut max = None;
        for (key, value) in &self.filters {
            match parse_filter(key, value)? {
                FilterSpec::MinTime(v) => min = Some(v),
                FilterSpec::MaxTime(v) => max = Some(v),
                _ => {}
            }
        }
        if let (Some(min), Some(max)) = (min, max) {
            if min > max {
                return Err(err(format!(
                    "filters: min_time {min} is above max_time {max}"
                )));
            }
        }
        if let Some(h) = self.history {
            if h.0 < std::time::Duration::from_secs(1) || h.0 > MAX_HISTORY {
                return Err(err(format!(
                    "history: {} is not between 1s and 30days",
                    humantime::format_duration(h.0)
                )));
            }
        }
        self.validate_history()?;
        self.validate_prometheus_buckets()?;
        validate_percentiles(&self.percentiles)
    }

    /// Checks a definition that makes a new report (`POST /api/v1/reports`, a `[[report]]`
    /// table, `pinbad import-sql`): [`ReportDef::validate`], and a name none of
    /// [`SQL_RAW_TABLES`] has, nor [`SQL_STATUS_TABLES`]. Reports that exist already (`reports.json`, the snapshot) are
    /// checked by `validate` alone: one an earlier version let be made is kept (over SQL the raw
    /// table is shown in its place) rather than its whole file set aside.
    pub fn validate_new(&self) -> Result<(), ReportError> {
        self.validate()?;
        if let Some(status) = SQL_STATUS_TABLES
            .iter()
            .find(|t| t.eq_ignore_ascii_case(&self.name))
        {
            return Err(err(format!(
                "report name `{}`: `{status}` is one of the SQL front end's own tables \
                 (pinba_engine's `status`, pinba2's `stats` and `active`, pinbad's `marks`), \
                 which would hide this report's table; choose another name",
                self.name
            )));
        }
        if let Some(raw) = SQL_RAW_TABLES
            .iter()
            .find(|t| t.eq_ignore_ascii_case(&self.name))
        {
            return Err(err(format!(
                "report name `{}`: `{raw}` is a raw table of the SQL front end (one of {}), which \
                 would hide this report's table; choose another name",
                self.name,
                SQL_RAW_TABLES.join(", ")
            )));
        }
        Ok(())
    }

    /// `prometheus_buckets`: with `prometheus = true`, at most [`MAX_PROMETHEUS_BUCKETS`], each
    /// a number of seconds above 0 (and at most 1000 s, the longest time a report tells apart),
    /// strictly increasing.
    fn validate_prometheus_buckets(&self) -> Result<(), ReportError> {
        let Some(bounds) = &self.prometheus_buckets else {
            return Ok(());
        };
        if !self.prometheus {
            return Err(err(
                "prometheus_buckets needs prometheus = true: without it the report exports nothing",
            ));
        }
        if bounds.len() > MAX_PROMETHEUS_BUCKETS {
            return Err(err(format!(
                "prometheus_buckets: at most {MAX_PROMETHEUS_BUCKETS}, got {}",
                bounds.len()
            )));
        }
        for (i, &b) in bounds.iter().enumerate() {
            if !(b > 0.0 && b <= 1000.0) {
                return Err(err(format!(
                    "prometheus_buckets: {b} is not a number of seconds above 0 and at most 1000"
                )));
            }
            if i > 0 && b <= bounds[i - 1] {
                return Err(err(format!(
                    "prometheus_buckets: {b} is not above {} (bounds go up)",
                    bounds[i - 1]
                )));
            }
        }
        Ok(())
    }

    /// The history settings on their own (those that need the window, such as the step being a
    /// multiple of the tick, are checked by `history::Spec::of`).
    fn validate_history(&self) -> Result<(), ReportError> {
        let retention = self.history_retention.map(|d| d.0).unwrap_or_default();
        if retention.is_zero() {
            if self.history_step.is_some() || self.history_rows.is_some() {
                return Err(err(
                    "history_step and history_rows need history_retention (e.g. \"30d\"): \
                     without it the report keeps no history",
                ));
            }
            return Ok(());
        }
        if retention < std::time::Duration::from_secs(60) || retention > MAX_HISTORY_RETENTION {
            return Err(err(format!(
                "history_retention: {} is not between 1m and 3650days (or 0s: no history)",
                humantime::format_duration(retention)
            )));
        }
        if let Some(step) = self.history_step {
            let ms = step.0.as_millis();
            if ms % 1000 != 0 || !(1..=30 * 24 * 3600).contains(&(ms / 1000)) {
                return Err(err(format!(
                    "history_step: {} is not whole seconds between 1s and 30days",
                    humantime::format_duration(step.0)
                )));
            }
            if step.0 > retention {
                return Err(err(format!(
                    "history_step: {} is longer than history_retention {}",
                    humantime::format_duration(step.0),
                    humantime::format_duration(retention)
                )));
            }
        }
        if let Some(rows) = self.history_rows {
            if !(1..=MAX_HISTORY_ROWS).contains(&rows) {
                return Err(err(format!(
                    "history_rows: {rows} is not between 1 and {MAX_HISTORY_ROWS}"
                )));
            }
        }
        Ok(())
    }

    /// The keys, with a `preset` expanded.
    pub fn resolved_keys(&self) -> Result<Vec<String>, ReportError> {
        let Some(preset) = &self.preset else {
            if !self.tags.is_empty() {
                return Err(err("`tags` is only used with a `preset`"));
            }
            if self.keys.len() > MAX_KEYS {
                return Err(err(format!(
                    "at most {MAX_KEYS} keys, got {}",
                    self.keys.len()
                )));
            }
            return Ok(self.keys.clone());
        };
        if !self.keys.is_empty() {
            return Err(err(format!(
                "preset `{preset}` sets the keys: give `tags`, not `keys`"
            )));
        }
        if self.tags.is_empty() {
            return Err(err(format!(
                "preset `{preset}` needs at least one tag in `tags`"
            )));
        }
        let (fixed, prefix): (&[&str], &str) = match preset.as_str() {
            "timer_tag_info" | "tag_info" => (&[], "timer_tag:"),
            "timer_tag_report" | "tag_report" => (&["script_name"], "timer_tag:"),
            "timer_tag_report2" | "tag_report2" => (&["script_name", "hostname", "server_name"], "timer_tag:"),
            "request_tag_info" | "rtag_info" => (&[], "tag:"),
            "request_tag_report" | "rtag_report" => (&["hostname"], "tag:"),
            _ => {
                return Err(err(format!(
                    "unknown preset `{preset}`: expected timer_tag_info, timer_tag_report, timer_tag_report2, request_tag_info or request_tag_report"
                )))
            }
        };
        let keys: Vec<String> = fixed
            .iter()
            .map(|s| s.to_string())
            .chain(self.tags.iter().map(|t| format!("{prefix}{t}")))
            .collect();
        if keys.len() > MAX_KEYS {
            return Err(err(format!(
                "preset `{preset}`: at most {MAX_KEYS} keys, got {}",
                keys.len()
            )));
        }
        Ok(keys)
    }

    /// The kind the keys make (`Info` if the keys are invalid and empty-ish: validate first).
    pub fn kind(&self) -> Kind {
        let keys = self.resolved_keys().unwrap_or_default();
        if keys.is_empty() {
            Kind::Info
        } else if keys.iter().any(|k| k.starts_with("timer_tag:")) {
            Kind::Timer
        } else {
            Kind::Request
        }
    }
}

/// `filters` with each key once: a JSON object naming one twice (`{"status": 200, "status":
/// 500}`) is refused instead of keeping the last silently (TOML refuses it by itself).
fn unique_filters<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, FilterValue>, D::Error> {
    struct Unique;
    impl<'de> serde::de::Visitor<'de> for Unique {
        type Value = BTreeMap<String, FilterValue>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object of filters")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((k, v)) = map.next_entry::<String, FilterValue>()? {
                if out.contains_key(&k) {
                    return Err(serde::de::Error::custom(format!(
                        "filter `{k}` is given twice"
                    )));
                }
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Unique)
}

pub(super) fn validate_name(name: &str) -> Result<(), ReportError> {
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return Err(err(format!(
            "report name must be 1 to {MAX_NAME_BYTES} bytes, got {}",
            name.len()
        )));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "_:.,-".contains(*c)))
    {
        return Err(err(format!(
            "report name `{name}`: character {c:?} is not allowed (use A-Z a-z 0-9 _ : . , -)"
        )));
    }
    // `/api/v1/reports/..` is `/api/v1/` to every client that normalises paths (curl,
    // browsers): such a report could be neither queried nor dropped.
    if name.chars().all(|c| c == '.') {
        return Err(err(format!(
            "report name `{name}`: dots alone cannot be a URL path segment"
        )));
    }
    Ok(())
}

/// `info` and the 20 `report_by_*` reports of docs/REPORTS.md: pinba_engine's 18, with its names,
/// and two of pinbad's own (by server, script and status; by host, server and status).
pub fn builtin_defs() -> Vec<ReportDef> {
    const BUILTINS: [(&str, &[&str]); 21] = [
        ("info", &[]),
        ("report_by_script_name", &["script_name"]),
        ("report_by_server_name", &["server_name"]),
        ("report_by_hostname", &["hostname"]),
        (
            "report_by_server_and_script",
            &["server_name", "script_name"],
        ),
        (
            "report_by_hostname_and_script",
            &["hostname", "script_name"],
        ),
        (
            "report_by_hostname_and_server",
            &["hostname", "server_name"],
        ),
        (
            "report_by_hostname_server_and_script",
            &["hostname", "server_name", "script_name"],
        ),
        ("report_by_status", &["status"]),
        ("report_by_script_and_status", &["script_name", "status"]),
        ("report_by_server_and_status", &["server_name", "status"]),
        ("report_by_hostname_and_status", &["hostname", "status"]),
        (
            "report_by_hostname_script_and_status",
            &["hostname", "script_name", "status"],
        ),
        ("report_by_schema", &["schema"]),
        ("report_by_script_and_schema", &["script_name", "schema"]),
        ("report_by_server_and_schema", &["server_name", "schema"]),
        ("report_by_hostname_and_schema", &["hostname", "schema"]),
        (
            "report_by_hostname_script_and_schema",
            &["hostname", "script_name", "schema"],
        ),
        (
            "report_by_hostname_status_and_schema",
            &["hostname", "status", "schema"],
        ),
        // Not pinba_engine's: the status mix of a server's scripts and hosts, which the
        // dashboard's server and script pages show (the reports above mix servers).
        (
            "report_by_server_script_and_status",
            &["server_name", "script_name", "status"],
        ),
        (
            "report_by_hostname_server_and_status",
            &["hostname", "server_name", "status"],
        ),
    ];
    BUILTINS
        .iter()
        .map(|(name, keys)| {
            let mut def = ReportDef::new(name, keys);
            let (retention, step, rows) = if keys.is_empty() {
                INFO_HISTORY
            } else {
                BUILTIN_HISTORY
            };
            def.history_retention = Some(crate::units::HumanDuration(retention));
            def.history_step = Some(crate::units::HumanDuration(step));
            def.history_rows = rows;
            def
        })
        .collect()
}

/// The history `info` keeps by default: 30 days at 1 minute (one totals row per step).
pub const INFO_HISTORY: (std::time::Duration, std::time::Duration, Option<usize>) = (
    std::time::Duration::from_secs(30 * 24 * 3600),
    std::time::Duration::from_secs(60),
    None,
);
/// The history a report created at run time (`POST /api/v1/reports`, the dashboard's form)
/// keeps when its definition names no `history_retention`: a day, so that its rows can be
/// charted from the first step on (the 1-minute default step: at most (100 + 2) × 1,440 rows,
/// ~150–450 MB for a report with 100 busy rows in every minute, a few MB for a quiet one).
/// Longer needs asking for; `"0s"` keeps none.
pub const RUN_TIME_HISTORY_RETENTION: std::time::Duration =
    std::time::Duration::from_secs(24 * 3600);
/// The history each `report_by_*` built-in keeps by default (docs/history.md has the disk it
/// costs): 7 days at 15 minutes (Pinboard's resolution; the fine steps of `[history]` cover the
/// last day finer), the top 500 rows of each step (every script of a typical site) and the
/// "(other)" row. A row's histogram is most of its size on disk, so rows are what the disk pays
/// for.
pub const BUILTIN_HISTORY: (std::time::Duration, std::time::Duration, Option<usize>) = (
    std::time::Duration::from_secs(7 * 24 * 3600),
    std::time::Duration::from_secs(900),
    Some(500),
);
