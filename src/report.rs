//! Reports: definitions, the incremental aggregation engine, and queries over it.
//!
//! In: [`RequestView`]s from the merger ([`Report::add`] when a request enters the pool,
//! [`Report::subtract`] when it expires or is overwritten, always oldest first), and from report
//! creation (filling a new report from the pool). Out: [`Table`]s for the API ([`Report::query`]).
//! The merger thread runs add/subtract under the report's write lock; the API queries under its
//! read lock. Pure: no I/O, no clock (the time interval is an argument), and add/subtract never
//! touch the dictionary (rows are keyed by ids that the pooled records keep alive), so the merger
//! can update reports without holding the dictionary lock. Only the persistence helpers at the end
//! ([`load_state`], [`save_state`], [`initial_defs`]) do file I/O, for the API and the app.
//!
//! A report (see REPORTS.md) is a set of rows keyed by the ids of its keys, each row holding
//! integer sums (nanoseconds, bytes, counts) and a sparse histogram, plus the same for the whole
//! report (totals). Because every sum is an integer and subtract applies exactly what add applied
//! (the same f32 → ns conversion), a report always equals one built from scratch over the requests
//! still in the pool, however many billions of updates it has seen.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use rustc_hash::FxHashMap;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};

use crate::config::Config;
use crate::dictionary::{Dictionary, LOST};
use crate::histogram::{bucket_of, Histogram};
use crate::record::{Record, RequestView, TagPair, Timer, NO_SCHEMA};

/// Most keys a report may have.
pub const MAX_KEYS: usize = 15;
/// Longest report name, in bytes.
pub const MAX_NAME_BYTES: usize = 128;
/// Most percentiles a report (or a query) may show.
pub const MAX_PERCENTILES: usize = 32;
/// Percentiles shown when a definition names none.
pub const DEFAULT_PERCENTILES: [f64; 3] = [90.0, 95.0, 99.0];
/// RowMap a query returns when it does not say.
pub const DEFAULT_QUERY_LIMIT: usize = 100;
/// The state file, in `state_dir`, holding run-time report changes.
pub const STATE_FILE: &str = "reports.json";

/// Why a definition, a query or the state file was refused. Display is the reason, naming the
/// field, key, filter or column that is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ReportError(pub String);

fn err(reason: impl Into<String>) -> ReportError {
    ReportError(reason.into())
}

// ---------------------------------------------------------------------------------------------
// Definitions
// ---------------------------------------------------------------------------------------------

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
    /// A REPORTS.md tag report family, expanded with `tags` into the keys:
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
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub filters: BTreeMap<String, FilterValue>,
}

fn default_percentiles() -> Vec<f64> {
    DEFAULT_PERCENTILES.to_vec()
}

/// What a report counts: see REPORTS.md.
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
enum KeySpec {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
    Status,
    Tag(String),
    TimerTag(String),
}

impl KeySpec {
    fn parse(s: &str) -> Result<KeySpec, ReportError> {
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
    fn short_name(&self) -> &str {
        match self {
            KeySpec::Hostname => "hostname",
            KeySpec::ServerName => "server_name",
            KeySpec::ScriptName => "script_name",
            KeySpec::Schema => "schema",
            KeySpec::Status => "status",
            KeySpec::Tag(n) | KeySpec::TimerTag(n) => n,
        }
    }

    fn is_tag(&self) -> bool {
        matches!(self, KeySpec::Tag(_) | KeySpec::TimerTag(_))
    }
}

fn tag_name<'a>(whole: &str, name: &'a str) -> Result<&'a str, ReportError> {
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
enum FieldName {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
}

impl FieldName {
    fn of(self, r: &Record) -> u32 {
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
enum FilterSpec {
    MinTime(f64),
    MaxTime(f64),
    Field(FieldName, String),
    Status(u32),
    Tag(String, String),
    TimerTag(String, String),
}

fn parse_filter(key: &str, value: &FilterValue) -> Result<FilterSpec, ReportError> {
    let text = || {
        value
            .as_text()
            .map(Cow::into_owned)
            .ok_or_else(|| err(format!("filter `{key}`: expected a string, got {value:?}")))
    };
    Ok(match key {
        "min_time" | "max_time" => {
            let v = value
                .as_f64()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    err(format!(
                        "filter `{key}`: expected seconds ≥ 0, got {value:?}"
                    ))
                })?;
            if key == "min_time" {
                FilterSpec::MinTime(v)
            } else {
                FilterSpec::MaxTime(v)
            }
        }
        "status" => {
            let v = match value {
                FilterValue::Int(i) => u32::try_from(*i).ok(),
                FilterValue::Text(s) => s.parse::<u32>().ok(),
                FilterValue::Float(_) => None,
            };
            FilterSpec::Status(v.ok_or_else(|| {
                err(format!(
                    "filter `status`: expected an integer 0..=4294967295, got {value:?}"
                ))
            })?)
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
    format!("p{p}")
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
        validate_percentiles(&self.percentiles)
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

fn validate_name(name: &str) -> Result<(), ReportError> {
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
    Ok(())
}

/// `info` and the 18 `report_by_*` reports of REPORTS.md, with pinba_engine's names.
pub fn builtin_defs() -> Vec<ReportDef> {
    const BUILTINS: [(&str, &[&str]); 19] = [
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
    ];
    BUILTINS
        .iter()
        .map(|(name, keys)| ReportDef::new(name, keys))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The engine
// ---------------------------------------------------------------------------------------------

/// A key with its tag name interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
    Status,
    Tag(u32),
    TimerTag(u32),
}

/// Filters with every string interned (pinned) to its id.
#[derive(Clone, Debug, Default)]
struct Filters {
    min_time: Option<f32>,
    max_time: Option<f32>,
    fields: Vec<(FieldName, u32)>,
    status: Option<u32>,
    tags: Vec<TagPair>,
    timer_tags: Vec<TagPair>,
}

impl Filters {
    /// The request-level filters; in a request report also "some timer passes the timer filters".
    #[inline]
    fn pass_request(&self, v: &RequestView<'_>, timer_kind: bool) -> bool {
        let r = v.record;
        if self.min_time.is_some_and(|m| r.request_time < m)
            || self.max_time.is_some_and(|m| r.request_time > m)
        {
            return false;
        }
        if self.status.is_some_and(|s| r.status != s) {
            return false;
        }
        if !self.fields.iter().all(|&(f, id)| f.of(r) == id) {
            return false;
        }
        let tags = v.tags();
        if !self
            .tags
            .iter()
            .all(|t| first_tag(tags, t.name) == Some(t.value))
        {
            return false;
        }
        timer_kind
            || self.timer_tags.is_empty()
            || v.timers_with_tags().any(|(_, tags)| self.pass_timer(tags))
    }

    #[inline]
    fn pass_timer(&self, tags: &[TagPair]) -> bool {
        self.timer_tags
            .iter()
            .all(|t| first_tag(tags, t.name) == Some(t.value))
    }
}

/// The value of the first tag named `name` (duplicate names: the first wins).
#[inline]
fn first_tag(tags: &[TagPair], name: u32) -> Option<u32> {
    tags.iter().find(|t| t.name == name).map(|t| t.value)
}

/// Seconds as received (f32) → integer nanoseconds, rounded half away from zero. add and subtract
/// both use this, so sums are exact. Negative and NaN become 0 (the decoder already refuses them).
///
/// Exactly `(x * 1e9).round() as u64`, without `f64::round`: unless the target has SSE4.1 that is
/// a libm call, and it was ~10 % of the merge. `x - trunc(x)` is exact in f64 (for x ≥ 1 by
/// Sterbenz's lemma, for x < 1 trivially), so comparing it with 0.5 rounds exactly like `round`;
/// the `as` casts saturate (negative, NaN → 0; huge → `u64::MAX`) like `round() as u64` does.
#[inline]
fn ns(seconds: f32) -> u64 {
    let x = seconds as f64 * 1e9;
    let t = x as u64;
    t.saturating_add((x - t as f64 >= 0.5) as u64)
}

/// Integer sums of one row (or of the totals). Request reports use `req_count`, `time_ns`
/// (request_time), `ru_*`, `traffic_bytes` and `memory_footprint_bytes`; timer reports use
/// `req_count`, `hit_count`, `time_ns` (timer value) and `ru_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sums {
    req_count: u64,
    hit_count: u64,
    time_ns: u64,
    ru_utime_ns: u64,
    ru_stime_ns: u64,
    traffic_bytes: u64,
    memory_footprint_bytes: u64,
}

/// What one request (request report) or one timer (timer report) adds to a row.
#[derive(Clone, Copy, Debug)]
struct Contribution {
    sums: Sums,
    /// Histogram bucket of the sample(s).
    bucket: u16,
    samples: u64,
}

impl Contribution {
    #[inline]
    fn of_request(r: &Record) -> Contribution {
        let time_ns = ns(r.request_time);
        Contribution {
            sums: Sums {
                req_count: 1,
                hit_count: 0,
                time_ns,
                ru_utime_ns: ns(r.ru_utime),
                ru_stime_ns: ns(r.ru_stime),
                traffic_bytes: r.document_size as u64,
                memory_footprint_bytes: r.memory_footprint as u64,
            },
            bucket: bucket_of(time_ns),
            samples: 1,
        }
    }

    /// `req_count` is 0: timer reports count requests once per row, separately.
    #[inline]
    fn of_timer(t: &Timer) -> Contribution {
        let time_ns = ns(t.value);
        let hits = t.hit_count as u64;
        let per_hit = (time_ns + hits / 2).checked_div(hits).unwrap_or(0);
        Contribution {
            sums: Sums {
                req_count: 0,
                hit_count: hits,
                time_ns,
                ru_utime_ns: ns(t.ru_utime),
                ru_stime_ns: ns(t.ru_stime),
                traffic_bytes: 0,
                memory_footprint_bytes: 0,
            },
            bucket: bucket_of(per_hit),
            samples: hits,
        }
    }
}

/// One row: sums and histogram. `mark` is the update number that last touched it (timer reports:
/// a request counts once per row).
#[derive(Clone, Debug, Default)]
struct Row {
    sums: Sums,
    hist: Histogram,
    mark: u64,
}

impl Row {
    #[inline]
    fn add(&mut self, c: &Contribution) {
        let s = &mut self.sums;
        s.req_count += c.sums.req_count;
        s.hit_count += c.sums.hit_count;
        s.time_ns += c.sums.time_ns;
        s.ru_utime_ns += c.sums.ru_utime_ns;
        s.ru_stime_ns += c.sums.ru_stime_ns;
        s.traffic_bytes += c.sums.traffic_bytes;
        s.memory_footprint_bytes += c.sums.memory_footprint_bytes;
        self.hist.add_bucket(c.bucket, c.samples);
    }

    #[inline]
    fn subtract(&mut self, c: &Contribution) {
        let s = &mut self.sums;
        s.req_count -= c.sums.req_count;
        s.hit_count -= c.sums.hit_count;
        s.time_ns -= c.sums.time_ns;
        s.ru_utime_ns -= c.sums.ru_utime_ns;
        s.ru_stime_ns -= c.sums.ru_stime_ns;
        s.traffic_bytes -= c.sums.traffic_bytes;
        s.memory_footprint_bytes -= c.sums.memory_footprint_bytes;
        self.hist.subtract_bucket(c.bucket, c.samples);
    }
}

/// Row keys of up to this many ids (most reports: 1 to 4 keys) are stored inline in the map slot
/// as a fixed array, hashed as two words and compared as two words: no length prefix, no `memcmp`
/// call and no pointer chase per lookup. Longer keys go to a second map keyed by boxed slices.
const SMALL_KEY: usize = 4;

/// An inline row key: the ids in key order, unused positions 0 (a report's keys all have the same
/// length, so the padding never makes two keys equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SmallKey([u32; SMALL_KEY]);

impl std::hash::Hash for SmallKey {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let k = self.0;
        state.write_u64(k[0] as u64 | (k[1] as u64) << 32);
        state.write_u64(k[2] as u64 | (k[3] as u64) << 32);
    }
}

/// The key of the request (or timer) being applied: the ids of its key values, in key order,
/// then zeros.
#[derive(Clone, Copy, Debug)]
struct KeyBuf {
    ids: [u32; MAX_KEYS],
    len: usize,
}

impl KeyBuf {
    #[inline]
    fn small(&self) -> SmallKey {
        let i = &self.ids;
        SmallKey([i[0], i[1], i[2], i[3]])
    }

    #[inline]
    fn slice(&self) -> &[u32] {
        &self.ids[..self.len]
    }
}

/// The rows of a report, by key. See [`SMALL_KEY`].
#[derive(Debug)]
enum RowMap {
    Small(FxHashMap<SmallKey, Row>),
    Large(FxHashMap<Box<[u32]>, Row>),
}

impl RowMap {
    fn new(keys: usize) -> RowMap {
        if keys <= SMALL_KEY {
            RowMap::Small(FxHashMap::default())
        } else {
            RowMap::Large(FxHashMap::default())
        }
    }

    #[inline]
    fn len(&self) -> usize {
        match self {
            RowMap::Small(m) => m.len(),
            RowMap::Large(m) => m.len(),
        }
    }

    fn capacity(&self) -> usize {
        match self {
            RowMap::Small(m) => m.capacity(),
            RowMap::Large(m) => m.capacity(),
        }
    }

    /// Bytes of one map slot, without the key ids a large key holds on the heap.
    fn slot_bytes(&self) -> usize {
        std::mem::size_of::<Row>()
            + match self {
                RowMap::Small(_) => std::mem::size_of::<SmallKey>(),
                RowMap::Large(_) => std::mem::size_of::<Box<[u32]>>(),
            }
    }

    #[inline]
    fn get_mut(&mut self, key: &KeyBuf) -> Option<&mut Row> {
        match self {
            RowMap::Small(m) => m.get_mut(&key.small()),
            RowMap::Large(m) => m.get_mut(key.slice()),
        }
    }

    #[inline]
    fn insert(&mut self, key: &KeyBuf, row: Row) {
        match self {
            RowMap::Small(m) => {
                m.insert(key.small(), row);
            }
            RowMap::Large(m) => {
                m.insert(key.slice().into(), row);
            }
        }
    }

    #[inline]
    fn remove(&mut self, key: &KeyBuf) -> Option<Row> {
        match self {
            RowMap::Small(m) => m.remove(&key.small()),
            RowMap::Large(m) => m.remove(key.slice()),
        }
    }

    fn values(&self) -> impl Iterator<Item = &Row> + '_ {
        self.iter(0).map(|(_, r)| r)
    }

    /// Every row with its key ids (`keys` of them).
    fn iter(&self, keys: usize) -> impl Iterator<Item = (&[u32], &Row)> + '_ {
        let (small, large) = match self {
            RowMap::Small(m) => (Some(m.iter()), None),
            RowMap::Large(m) => (None, Some(m.iter())),
        };
        small
            .into_iter()
            .flatten()
            .map(move |(k, r)| (&k.0[..keys], r))
            .chain(large.into_iter().flatten().map(|(k, r)| (&k[..], r)))
    }
}

/// Requests prepared once for every report.
///
/// Each request's contribution (and each of its timers') is computed here once, instead of once
/// per report: the ns conversions and bucket numbers were a large share of the merge with 23
/// reports. The request is copied (record, timers, tag block), so that it stays readable after
/// the pool reused its slots: the merger collects every request leaving the pool during a round
/// (expired or overwritten) in one batch and the new ones in another, then updates each report in
/// turn with whole batches, which keeps one report's rows in cache for the whole round.
#[derive(Debug, Default)]
pub struct PreparedBatch {
    reqs: Vec<PreparedReq>,
    timers: Vec<Timer>,
    timer_contribs: Vec<Contribution>,
    tags: Vec<TagPair>,
}

#[derive(Debug)]
struct PreparedReq {
    id: u64,
    record: Record,
    contrib: Contribution,
    /// Start of its timers in `timers` and `timer_contribs`, and their number.
    timer_start: u32,
    timer_count: u32,
    /// Its tag block in `tags`.
    tag_start: u32,
    tag_len: u32,
}

/// One request of a [`PreparedBatch`].
struct Prepared<'a> {
    view: RequestView<'a>,
    contrib: &'a Contribution,
    /// One per timer of `view.timers`.
    timers: &'a [Contribution],
}

impl PreparedBatch {
    /// Adds a copy of `v` with its contributions.
    pub fn push(&mut self, v: &RequestView<'_>) {
        let timer_start = self.timers.len() as u32;
        let tag_start = self.tags.len() as u32;
        self.timers.extend_from_slice(v.timers);
        self.timer_contribs
            .extend(v.timers.iter().map(Contribution::of_timer));
        self.tags.extend_from_slice(v.tag_block);
        self.reqs.push(PreparedReq {
            id: v.id,
            record: *v.record,
            contrib: Contribution::of_request(v.record),
            timer_start,
            timer_count: v.timers.len() as u32,
            tag_start,
            tag_len: v.tag_block.len() as u32,
        });
    }

    pub fn clear(&mut self) {
        self.reqs.clear();
        self.timers.clear();
        self.timer_contribs.clear();
        self.tags.clear();
    }

    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    #[inline]
    fn iter(&self) -> impl Iterator<Item = Prepared<'_>> + '_ {
        self.reqs.iter().map(move |p| {
            let timers = p.timer_start as usize..(p.timer_start + p.timer_count) as usize;
            let tags = p.tag_start as usize..(p.tag_start + p.tag_len) as usize;
            Prepared {
                view: RequestView {
                    id: p.id,
                    record: &p.record,
                    tag_block: &self.tags[tags],
                    timers: &self.timers[timers.clone()],
                },
                contrib: &p.contrib,
                timers: &self.timer_contribs[timers],
            }
        })
    }
}

/// A live report: rows keyed by id arrays, updated by add/subtract.
///
/// # Row limit and exactness
/// A contribution that would need a new row when `max_rows` rows exist is **lost**: it is not
/// counted in any row (it still counts in the totals) and `rows_lost` is incremented. To keep
/// every row exact afterwards, the report then **freezes row creation** until the request that
/// lost it has been subtracted: it remembers the id of the newest request that lost a
/// contribution, and since requests leave oldest first, the freeze ends once a request with an id
/// ≥ that one has been subtracted. While frozen, existing rows keep being updated. On subtract, a
/// missing row therefore always means that contribution was lost (a row exists from the first
/// contribution that made it until its `req_count` returns to 0, and no row can appear between a
/// request's lost contribution and that request's subtraction), and it is skipped.
#[derive(Debug)]
pub struct Report {
    def: ReportDef,
    kind: Kind,
    /// The keys as strings, preset expanded (`tag:country`).
    key_names: Vec<String>,
    /// Column names of the keys (`country`, or `tag:country` when it would repeat).
    key_columns: Vec<String>,
    keys: Vec<Key>,
    /// Positions of timer tag keys in the key array, with their tag name ids.
    timer_keys: Vec<(usize, u32)>,
    filters: Filters,
    /// Dictionary ids this report pinned (tag names, filter values), released by `release`.
    pins: Vec<u32>,
    rows: RowMap,
    totals: Row,
    max_rows: usize,
    rows_lost: u64,
    /// Row creation is frozen until a request with id ≥ this has been subtracted.
    frozen_until: Option<u64>,
    /// Counts updates, for `Row::mark`.
    update_number: u64,
    /// Whether any filter is set (most reports have none: skips the filter checks).
    filtered: bool,
    /// Keys of rows emptied during one subtract (timer reports), removed at its end.
    scratch_emptied: Vec<KeyBuf>,
    /// The one request of [`Report::add`] and [`Report::subtract`].
    scratch_batch: PreparedBatch,
}

impl Report {
    /// Validates `def` and interns (pins) its tag names and filter values in `dict`;
    /// [`Report::release`] unpins them when the report is dropped. The report starts empty: the
    /// caller fills it from the pool.
    pub fn new(
        def: ReportDef,
        dict: &mut Dictionary,
        max_rows: usize,
    ) -> Result<Report, ReportError> {
        def.validate()?;
        let key_names = def.resolved_keys()?;
        let specs = key_names
            .iter()
            .map(|k| KeySpec::parse(k))
            .collect::<Result<Vec<_>, _>>()?;
        let filter_specs = def
            .filters
            .iter()
            .map(|(k, v)| parse_filter(k, v))
            .collect::<Result<Vec<_>, _>>()?;

        let mut pins = Vec::new();
        let mut pin = |s: &str, pins: &mut Vec<u32>| -> Result<u32, ReportError> {
            let id = dict.intern(s.as_bytes());
            if id == LOST {
                return Err(err(format!("dictionary full: cannot intern `{s}`")));
            }
            pins.push(id);
            Ok(id)
        };
        let mut build = |pins: &mut Vec<u32>| -> Result<(Vec<Key>, Filters), ReportError> {
            let mut keys = Vec::with_capacity(specs.len());
            for spec in &specs {
                keys.push(match spec {
                    KeySpec::Hostname => Key::Hostname,
                    KeySpec::ServerName => Key::ServerName,
                    KeySpec::ScriptName => Key::ScriptName,
                    KeySpec::Schema => Key::Schema,
                    KeySpec::Status => Key::Status,
                    KeySpec::Tag(n) => Key::Tag(pin(n, pins)?),
                    KeySpec::TimerTag(n) => Key::TimerTag(pin(n, pins)?),
                });
            }
            let mut f = Filters::default();
            for spec in &filter_specs {
                match spec {
                    FilterSpec::MinTime(v) => f.min_time = Some(*v as f32),
                    FilterSpec::MaxTime(v) => f.max_time = Some(*v as f32),
                    FilterSpec::Status(s) => f.status = Some(*s),
                    FilterSpec::Field(field, value) => {
                        let id = pin(value, pins)?;
                        f.fields.push((*field, id));
                    }
                    FilterSpec::Tag(n, value) => {
                        let name = pin(n, pins)?;
                        let value = pin(value, pins)?;
                        f.tags.push(TagPair { name, value });
                    }
                    FilterSpec::TimerTag(n, value) => {
                        let name = pin(n, pins)?;
                        let value = pin(value, pins)?;
                        f.timer_tags.push(TagPair { name, value });
                    }
                }
            }
            Ok((keys, f))
        };
        let (keys, filters) = match build(&mut pins) {
            Ok(x) => x,
            Err(e) => {
                for id in pins {
                    dict.release(id);
                }
                return Err(e);
            }
        };

        let kind = def.kind();
        let timer_keys = keys
            .iter()
            .enumerate()
            .filter_map(|(i, k)| match *k {
                Key::TimerTag(name) => Some((i, name)),
                _ => None,
            })
            .collect();
        let key_columns = key_column_names(&specs, kind);
        let filtered = !filter_specs.is_empty();
        let n = keys.len();
        Ok(Report {
            def,
            kind,
            key_names,
            key_columns,
            keys,
            timer_keys,
            filters,
            pins,
            rows: RowMap::new(n),
            totals: Row::default(),
            max_rows,
            rows_lost: 0,
            frozen_until: None,
            update_number: 0,
            filtered,
            scratch_emptied: Vec::new(),
            scratch_batch: PreparedBatch::default(),
        })
    }

    /// Unpins the dictionary ids pinned by [`Report::new`]. Call once before dropping the report
    /// (a second call does nothing).
    pub fn release(&mut self, dict: &mut Dictionary) {
        for id in self.pins.drain(..) {
            dict.release(id);
        }
    }

    pub fn def(&self) -> &ReportDef {
        &self.def
    }
    pub fn kind(&self) -> Kind {
        self.kind
    }
    /// The keys, preset expanded (`tag:country`).
    pub fn keys(&self) -> &[String] {
        &self.key_names
    }
    /// Column names of the keys (`country`).
    pub fn key_columns(&self) -> &[String] {
        &self.key_columns
    }
    pub fn rows(&self) -> usize {
        self.rows.len()
    }
    /// Contributions lost because the report had `max_rows` rows, since creation.
    pub fn rows_lost(&self) -> u64 {
        self.rows_lost
    }
    pub fn max_rows(&self) -> usize {
        self.max_rows
    }
    /// Requests counted in the totals (after filters).
    pub fn total_requests(&self) -> u64 {
        self.totals.sums.req_count
    }
    /// Approximate heap bytes held by rows and histograms.
    pub fn memory_bytes(&self) -> usize {
        let heap_key = match self.rows {
            RowMap::Small(_) => 0,
            RowMap::Large(_) => 4 * self.keys.len(),
        };
        let per_row = self.rows.slot_bytes() + heap_key + 8;
        self.rows.capacity() * per_row
            + self
                .rows
                .values()
                .map(|r| r.hist.heap_bytes())
                .sum::<usize>()
    }

    /// Counts a request that entered the pool. Never touches the dictionary.
    pub fn add(&mut self, req: &RequestView<'_>) {
        let mut b = std::mem::take(&mut self.scratch_batch);
        b.clear();
        b.push(req);
        self.add_batch(&b);
        self.scratch_batch = b;
    }

    /// Un-counts a request leaving the pool: one previously added, oldest first.
    pub fn subtract(&mut self, req: &RequestView<'_>) {
        let mut b = std::mem::take(&mut self.scratch_batch);
        b.clear();
        b.push(req);
        self.subtract_batch(&b);
        self.scratch_batch = b;
    }

    /// [`Report::add`] for every request of the batch, in order.
    pub fn add_batch(&mut self, batch: &PreparedBatch) {
        for p in batch.iter() {
            self.update::<true>(&p);
        }
    }

    /// [`Report::subtract`] for every request of the batch, in order (oldest first).
    pub fn subtract_batch(&mut self, batch: &PreparedBatch) {
        for p in batch.iter() {
            self.update::<false>(&p);
            if self.frozen_until.is_some_and(|f| p.view.id >= f) {
                self.frozen_until = None;
            }
        }
    }

    #[inline]
    fn update<const ADD: bool>(&mut self, p: &Prepared<'_>) {
        let v = &p.view;
        let timer_kind = self.kind == Kind::Timer;
        if self.filtered && !self.filters.pass_request(v, timer_kind) {
            return;
        }
        let r = v.record;
        let mut key = KeyBuf {
            ids: [0; MAX_KEYS],
            len: self.keys.len(),
        };
        for (slot, k) in key.ids.iter_mut().zip(&self.keys) {
            *slot = match *k {
                Key::Hostname => r.hostname,
                Key::ServerName => r.server_name,
                Key::ScriptName => r.script_name,
                Key::Schema => r.schema,
                Key::Status => r.status,
                Key::Tag(name) => match first_tag(v.tags(), name) {
                    Some(value) => value,
                    None => return,
                },
                Key::TimerTag(_) => 0, // set per timer
            };
        }
        if timer_kind {
            return self.update_timers::<ADD>(p, key);
        }
        let c = p.contrib;
        if ADD {
            self.totals.add(c);
            if let Some(row) = self.rows.get_mut(&key) {
                row.add(c);
            } else if self.frozen_until.is_none() && self.rows.len() < self.max_rows {
                let mut row = Row::default();
                row.add(c);
                self.rows.insert(&key, row);
            } else {
                self.lose(v.id);
            }
        } else {
            self.totals.subtract(c);
            if let Some(row) = self.rows.get_mut(&key) {
                row.subtract(c);
                if row.sums.req_count == 0 {
                    debug_assert_eq!(row.sums, Sums::default());
                    self.rows.remove(&key);
                }
            }
        }
    }

    fn lose(&mut self, id: u64) {
        self.rows_lost += 1;
        self.frozen_until = Some(self.frozen_until.map_or(id, |f| f.max(id)));
    }

    #[inline]
    fn update_timers<const ADD: bool>(&mut self, p: &Prepared<'_>, mut key: KeyBuf) {
        self.update_number += 1;
        let mark = self.update_number;
        let mut any = false;
        let v = &p.view;
        let timer_filters = !self.filters.timer_tags.is_empty();
        'timers: for ((_, tags), c) in v.timers_with_tags().zip(p.timers) {
            if timer_filters && !self.filters.pass_timer(tags) {
                continue;
            }
            for &(pos, name) in &self.timer_keys {
                match first_tag(tags, name) {
                    Some(value) => key.ids[pos] = value,
                    None => continue 'timers,
                }
            }
            any = true;
            if ADD {
                self.totals.add(c);
                if let Some(row) = self.rows.get_mut(&key) {
                    if row.mark != mark {
                        row.mark = mark;
                        row.sums.req_count += 1;
                    }
                    row.add(c);
                } else if self.frozen_until.is_none() && self.rows.len() < self.max_rows {
                    let mut row = Row {
                        mark,
                        ..Row::default()
                    };
                    row.sums.req_count = 1;
                    row.add(c);
                    self.rows.insert(&key, row);
                } else {
                    self.lose(v.id);
                }
            } else {
                self.totals.subtract(c);
                if let Some(row) = self.rows.get_mut(&key) {
                    if row.mark != mark {
                        row.mark = mark;
                        row.sums.req_count -= 1;
                        if row.sums.req_count == 0 {
                            self.scratch_emptied.push(key);
                        }
                    }
                    row.subtract(c);
                }
            }
        }
        if any {
            if ADD {
                self.totals.sums.req_count += 1;
            } else {
                self.totals.sums.req_count -= 1;
            }
        }
        if !ADD && !self.scratch_emptied.is_empty() {
            for key in self.scratch_emptied.drain(..) {
                let _row = self.rows.remove(&key);
                debug_assert!(_row.is_some_and(|r| r.sums == Sums::default() && r.hist.is_empty()));
            }
        }
    }
}

/// Column names of the keys: the short name (`script_name`, `country` for `tag:country`), or the
/// full key when a tag's short name would repeat another column's name.
fn key_column_names(specs: &[KeySpec], kind: Kind) -> Vec<String> {
    let metrics = metric_columns(kind);
    specs
        .iter()
        .map(|spec| {
            let short = spec.short_name();
            let clash = spec.is_tag()
                && (specs.iter().filter(|s| s.short_name() == short).count() > 1
                    || metrics.iter().any(|m| m.name == short)
                    || median_column(kind) == short
                    || parse_percentile_column(short).is_some());
            match spec {
                KeySpec::Tag(n) if clash => format!("tag:{n}"),
                KeySpec::TimerTag(n) if clash => format!("timer_tag:{n}"),
                _ => short.to_string(),
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Columns and queries
// ---------------------------------------------------------------------------------------------

/// Which sum a metric column reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    ReqCount,
    HitCount,
    TimeNs,
    RuUtimeNs,
    RuStimeNs,
    TrafficBytes,
    MemoryFootprintBytes,
}

impl Field {
    fn of(self, s: &Sums) -> u64 {
        match self {
            Field::ReqCount => s.req_count,
            Field::HitCount => s.hit_count,
            Field::TimeNs => s.time_ns,
            Field::RuUtimeNs => s.ru_utime_ns,
            Field::RuStimeNs => s.ru_stime_ns,
            Field::TrafficBytes => s.traffic_bytes,
            Field::MemoryFootprintBytes => s.memory_footprint_bytes,
        }
    }
    fn is_ns(self) -> bool {
        matches!(self, Field::TimeNs | Field::RuUtimeNs | Field::RuStimeNs)
    }
    /// The value in its column unit: seconds for times, plain counts and bytes otherwise.
    fn scaled(self, raw: u64) -> f64 {
        if self.is_ns() {
            raw as f64 / 1e9
        } else {
            raw as f64
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How {
    Total,
    PerSec,
    Percent,
}

#[derive(Clone, Copy, Debug)]
struct MetricColumn {
    name: &'static str,
    field: Field,
    how: How,
}

const fn m(name: &'static str, field: Field, how: How) -> MetricColumn {
    MetricColumn { name, field, how }
}

const REQUEST_METRICS: &[MetricColumn] = &[
    m("req_count", Field::ReqCount, How::Total),
    m("req_per_sec", Field::ReqCount, How::PerSec),
    m("req_percent", Field::ReqCount, How::Percent),
    m("req_time_total", Field::TimeNs, How::Total),
    m("req_time_per_sec", Field::TimeNs, How::PerSec),
    m("req_time_percent", Field::TimeNs, How::Percent),
    m("ru_utime_total", Field::RuUtimeNs, How::Total),
    m("ru_utime_per_sec", Field::RuUtimeNs, How::PerSec),
    m("ru_utime_percent", Field::RuUtimeNs, How::Percent),
    m("ru_stime_total", Field::RuStimeNs, How::Total),
    m("ru_stime_per_sec", Field::RuStimeNs, How::PerSec),
    m("ru_stime_percent", Field::RuStimeNs, How::Percent),
    m("traffic_total", Field::TrafficBytes, How::Total),
    m("traffic_per_sec", Field::TrafficBytes, How::PerSec),
    m("traffic_percent", Field::TrafficBytes, How::Percent),
    m(
        "memory_footprint_total",
        Field::MemoryFootprintBytes,
        How::Total,
    ),
    m(
        "memory_footprint_per_sec",
        Field::MemoryFootprintBytes,
        How::PerSec,
    ),
    m(
        "memory_footprint_percent",
        Field::MemoryFootprintBytes,
        How::Percent,
    ),
];

const TIMER_METRICS: &[MetricColumn] = &[
    m("req_count", Field::ReqCount, How::Total),
    m("req_per_sec", Field::ReqCount, How::PerSec),
    m("req_percent", Field::ReqCount, How::Percent),
    m("hit_count", Field::HitCount, How::Total),
    m("hit_per_sec", Field::HitCount, How::PerSec),
    m("hit_percent", Field::HitCount, How::Percent),
    m("timer_value", Field::TimeNs, How::Total),
    m("timer_value_per_sec", Field::TimeNs, How::PerSec),
    m("timer_value_percent", Field::TimeNs, How::Percent),
    m("ru_utime_value", Field::RuUtimeNs, How::Total),
    m("ru_stime_value", Field::RuStimeNs, How::Total),
];

fn metric_columns(kind: Kind) -> &'static [MetricColumn] {
    match kind {
        Kind::Timer => TIMER_METRICS,
        _ => REQUEST_METRICS,
    }
}

fn median_column(kind: Kind) -> &'static str {
    match kind {
        Kind::Timer => "timer_median",
        _ => "req_time_median",
    }
}

/// `p99.9` → 99.9.
fn parse_percentile_column(name: &str) -> Option<f64> {
    let p: f64 = name.strip_prefix('p')?.parse().ok()?;
    (0.0..=100.0).contains(&p).then_some(p)
}

/// One value in a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// An absent schema, or a percentile of an empty histogram.
    Null,
    Int(u64),
    Float(f64),
    Text(String),
}

impl Cell {
    /// As CSV shows it (and as `match=` sees it).
    fn render(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Cell::Null => {}
            Cell::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Cell::Float(f) => {
                let _ = write!(out, "{f}");
            }
            Cell::Text(s) => out.push_str(s),
        }
    }
}

impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Null => s.serialize_none(),
            Cell::Int(i) => s.serialize_u64(*i),
            Cell::Float(f) => s.serialize_f64(*f),
            Cell::Text(t) => s.serialize_str(t),
        }
    }
}

/// A column a query can name: shown, sorted by or filtered on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Column {
    Key(usize),
    Metric(MetricColumn),
    Percentile(f64),
}

impl PartialEq for MetricColumn {
    fn eq(&self, other: &MetricColumn) -> bool {
        self.name == other.name
    }
}

/// What `GET /api/v1/reports/{name}` asks for. `Default` is "top 100 by the default sort, the
/// definition's percentiles, the default limits".
#[derive(Clone, Debug)]
pub struct Query {
    /// A column name, `-` first for descending. Default: `-req_time_total` (request and info
    /// reports) or `-timer_value` (timer reports).
    pub sort: Option<String>,
    /// Rows to return (default [`DEFAULT_QUERY_LIMIT`], at most `max_limit`).
    pub limit: Option<usize>,
    /// Rows to skip after sorting.
    pub offset: usize,
    /// `COLUMN:VALUE` exact filters: key columns compare the shown string (an absent schema is
    /// ""), numeric columns the number.
    pub filters: Vec<String>,
    /// `COLUMN:REGEX` filters on the shown string.
    pub matches: Vec<String>,
    /// Percentile columns to show instead of the definition's.
    pub percentiles: Option<Vec<f64>>,
    /// Largest `limit` allowed (`limits.max_query_limit`).
    pub max_limit: usize,
    /// Largest compiled regex (`limits.max_regex_bytes`).
    pub max_regex_bytes: usize,
}

impl Default for Query {
    fn default() -> Query {
        Query {
            sort: None,
            limit: None,
            offset: 0,
            filters: Vec::new(),
            matches: Vec::new(),
            percentiles: None,
            max_limit: 100_000,
            max_regex_bytes: 1 << 20,
        }
    }
}

/// A query's answer. Serialises to the API's JSON shape: `{"report", "kind", "keys",
/// "time_interval", "rows_total", "totals": {…}, "rows": [{…}]}`; [`Table::to_csv`] gives CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub report: String,
    pub kind: Kind,
    /// The report's keys (`tag:country`).
    pub keys: Vec<String>,
    pub time_interval: f64,
    /// Rows left after `filter`/`match`, before offset and limit.
    pub rows_total: usize,
    /// Every column: the key columns first (`key_columns` of them), then metrics and percentiles.
    pub columns: Vec<String>,
    pub key_columns: usize,
    /// One cell per metric/percentile column (`columns[key_columns..]`).
    pub totals: Vec<Cell>,
    /// One cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// Header line of column names, then one line per row; RFC 4180 quoting, CRLF line ends.
    pub fn to_csv(&self) -> String {
        let mut out =
            String::with_capacity(64 * (self.rows.len() + 1) * self.columns.len().max(1) / 4);
        let mut cell = String::new();
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            csv_field(&mut out, c);
        }
        out.push_str("\r\n");
        for row in &self.rows {
            for (i, c) in row.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                cell.clear();
                c.render(&mut cell);
                csv_field(&mut out, &cell);
            }
            out.push_str("\r\n");
        }
        out
    }

    /// The totals as a JSON object (also what `/api/v1/info` shows).
    pub fn totals_json(&self) -> serde_json::Map<String, serde_json::Value> {
        self.columns[self.key_columns..]
            .iter()
            .zip(&self.totals)
            .map(|(c, v)| {
                (
                    c.clone(),
                    serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                )
            })
            .collect()
    }
}

fn csv_field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Serialises `names[i] → cells[i]` as one JSON object, in column order.
struct Object<'a> {
    names: &'a [String],
    cells: &'a [Cell],
}

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.cells.len()))?;
        for (n, c) in self.names.iter().zip(self.cells) {
            map.serialize_entry(n, c)?;
        }
        map.end()
    }
}

struct Rows<'a>(&'a Table);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.rows.len()))?;
        for row in &self.0.rows {
            seq.serialize_element(&Object {
                names: &self.0.columns,
                cells: row,
            })?;
        }
        seq.end()
    }
}

impl Serialize for Table {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(7))?;
        map.serialize_entry("report", &self.report)?;
        map.serialize_entry("kind", &self.kind)?;
        map.serialize_entry("keys", &self.keys)?;
        map.serialize_entry("time_interval", &self.time_interval)?;
        map.serialize_entry("rows_total", &self.rows_total)?;
        map.serialize_entry(
            "totals",
            &Object {
                names: &self.columns[self.key_columns..],
                cells: &self.totals,
            },
        )?;
        map.serialize_entry("rows", &Rows(self))?;
        map.end()
    }
}

/// A `filter=` or `match=` resolved against the columns.
enum RowTest {
    /// Key column equals this shown string.
    KeyEq(usize, String),
    /// Numeric column equals this number.
    NumEq(Column, f64),
    /// The shown string matches.
    Matches(Column, regex::Regex),
}

/// A row while a query runs.
type Item<'a> = (&'a [u32], &'a Row);

/// Counts the items and keeps the first `want` of them in `cmp` order (a total order), sorted.
///
/// Items are buffered up to twice `want`; when the buffer fills, a partial selection keeps the
/// best `want`, and the worst of those becomes a threshold that rejects most later items with one
/// comparison. So a top-100 of 100k rows costs about one comparison per row and a few small
/// selections, in O(want) memory.
fn top_of<T: Clone>(
    items: impl Iterator<Item = T>,
    want: usize,
    cmp: impl Fn(&T, &T) -> Ordering,
) -> (usize, Vec<T>) {
    if want == 0 {
        return (items.count(), Vec::new());
    }
    let cap = want.saturating_mul(2).max(64);
    let mut buf: Vec<T> = Vec::with_capacity(cap.min(1 << 16));
    let mut threshold: Option<T> = None;
    let mut n = 0;
    for item in items {
        n += 1;
        if threshold
            .as_ref()
            .is_some_and(|t| cmp(&item, t) != Ordering::Less)
        {
            continue;
        }
        buf.push(item);
        if buf.len() >= cap {
            buf.select_nth_unstable_by(want - 1, &cmp);
            buf.truncate(want);
            threshold = Some(buf[want - 1].clone());
        }
    }
    if want < buf.len() {
        buf.select_nth_unstable_by(want - 1, &cmp);
        buf.truncate(want);
    }
    buf.sort_unstable_by(cmp);
    (n, buf)
}

impl Report {
    /// Columns shown with these percentiles: keys, metrics, median, `p<N>`.
    fn shown_columns(&self, percentiles: &[f64]) -> (Vec<String>, Vec<Column>) {
        let mut names = self.key_columns.clone();
        let mut cols: Vec<Column> = (0..self.keys.len()).map(Column::Key).collect();
        for mc in metric_columns(self.kind) {
            names.push(mc.name.to_string());
            cols.push(Column::Metric(*mc));
        }
        names.push(median_column(self.kind).to_string());
        cols.push(Column::Percentile(50.0));
        for &p in percentiles {
            names.push(percentile_column(p));
            cols.push(Column::Percentile(p));
        }
        (names, cols)
    }

    /// Resolves a column name: a key column (its shown name or its key, `tag:country`), a metric,
    /// the median, or any `p<N>`.
    fn column(&self, name: &str) -> Option<Column> {
        if let Some(i) = self.key_columns.iter().position(|c| c == name) {
            return Some(Column::Key(i));
        }
        if let Some(i) = self.key_names.iter().position(|c| c == name) {
            return Some(Column::Key(i));
        }
        if let Some(mc) = metric_columns(self.kind).iter().find(|mc| mc.name == name) {
            return Some(Column::Metric(*mc));
        }
        if name == median_column(self.kind) {
            return Some(Column::Percentile(50.0));
        }
        parse_percentile_column(name).map(Column::Percentile)
    }

    /// Splits `COLUMN:VALUE` at the column: the longest key column name followed by `:`
    /// (tag names may contain `:`), else the first `:`.
    fn split_column<'q>(&self, what: &str, s: &'q str) -> Result<(Column, &'q str), ReportError> {
        let mut best: Option<(usize, usize)> = None;
        for (i, name) in self.key_columns.iter().chain(&self.key_names).enumerate() {
            if s.len() > name.len()
                && s.starts_with(name.as_str())
                && s.as_bytes()[name.len()] == b':'
                && best.is_none_or(|(_, len)| name.len() > len)
            {
                best = Some((i % self.keys.len().max(1), name.len()));
            }
        }
        if let Some((i, len)) = best {
            return Ok((Column::Key(i), &s[len + 1..]));
        }
        let Some((name, value)) = s.split_once(':') else {
            return Err(err(format!("{what} `{s}`: expected COLUMN:VALUE")));
        };
        match self.column(name) {
            Some(c) => Ok((c, value)),
            None => Err(err(format!("{what} `{s}`: unknown column `{name}`"))),
        }
    }

    fn key_text<'d>(&self, i: usize, id: u32, dict: &'d Dictionary) -> Cow<'d, str> {
        match self.keys[i] {
            Key::Status => Cow::Owned(id.to_string()),
            Key::Schema if id == NO_SCHEMA => Cow::Borrowed(""),
            _ => dict.text(id),
        }
    }

    fn key_cell(&self, i: usize, id: u32, dict: &Dictionary) -> Cell {
        match self.keys[i] {
            Key::Status => Cell::Int(id as u64),
            Key::Schema if id == NO_SCHEMA => Cell::Null,
            _ => Cell::Text(dict.text(id).into_owned()),
        }
    }

    fn metric_cell(&self, mc: &MetricColumn, sums: &Sums, interval: f64) -> Cell {
        let raw = mc.field.of(sums);
        match mc.how {
            How::Total if mc.field.is_ns() => Cell::Float(mc.field.scaled(raw)),
            How::Total => Cell::Int(raw),
            How::PerSec => Cell::Float(mc.field.scaled(raw) / interval),
            How::Percent => {
                let total = mc.field.of(&self.totals.sums);
                Cell::Float(if total == 0 {
                    0.0
                } else {
                    100.0 * raw as f64 / total as f64
                })
            }
        }
    }

    /// A numeric column's value as f64 (`None` for a percentile of an empty histogram).
    fn number(&self, col: Column, row: &Row, interval: f64) -> Option<f64> {
        match col {
            Column::Metric(mc) => Some(match self.metric_cell(&mc, &row.sums, interval) {
                Cell::Int(i) => i as f64,
                Cell::Float(f) => f,
                _ => 0.0,
            }),
            Column::Percentile(p) => row.hist.percentile_ns(p).map(|ns| ns / 1e9),
            Column::Key(_) => None,
        }
    }

    fn cell(&self, col: Column, item: Item<'_>, dict: &Dictionary, interval: f64) -> Cell {
        match col {
            Column::Key(i) => self.key_cell(i, item.0[i], dict),
            Column::Metric(mc) => self.metric_cell(&mc, &item.1.sums, interval),
            Column::Percentile(p) => item
                .1
                .hist
                .percentile_ns(p)
                .map_or(Cell::Null, |ns| Cell::Float(ns / 1e9)),
        }
    }

    fn passes(
        &self,
        test: &RowTest,
        item: Item<'_>,
        dict: &Dictionary,
        interval: f64,
        buf: &mut String,
    ) -> bool {
        match test {
            RowTest::KeyEq(i, want) => self.key_text(*i, item.0[*i], dict) == want.as_str(),
            RowTest::NumEq(col, want) => self.number(*col, item.1, interval) == Some(*want),
            RowTest::Matches(Column::Key(i), re) => {
                re.is_match(&self.key_text(*i, item.0[*i], dict))
            }
            RowTest::Matches(col, re) => {
                buf.clear();
                self.cell(*col, item, dict, interval).render(buf);
                re.is_match(buf)
            }
        }
    }

    /// Runs a query. Pure: reads the rows and renders ids with `dict`. `time_interval` is the
    /// seconds the pool covers (`*_per_sec` divide by it). Errors name the bad parameter or column.
    ///
    /// Cost: filters touch every row; the sort computes one key per remaining row and selects the
    /// top `offset + limit` with `select_nth_unstable`; key strings and percentiles are computed
    /// only for returned rows unless the sort or a filter needs them.
    pub fn query(
        &self,
        q: &Query,
        dict: &Dictionary,
        time_interval: f64,
    ) -> Result<Table, ReportError> {
        let interval = if time_interval.is_finite() && time_interval > 0.0 {
            time_interval
        } else {
            1.0
        };
        let percentiles = q.percentiles.as_deref().unwrap_or(&self.def.percentiles);
        validate_percentiles(percentiles)?;
        let limit = q.limit.unwrap_or(DEFAULT_QUERY_LIMIT.min(q.max_limit));
        if limit > q.max_limit {
            return Err(err(format!(
                "limit {limit} is above the maximum {}",
                q.max_limit
            )));
        }
        let (sort_col, descending) = {
            let default = match self.kind {
                Kind::Timer => "-timer_value",
                _ => "-req_time_total",
            };
            let s = q.sort.as_deref().unwrap_or(default);
            let (name, desc) = match s.strip_prefix('-') {
                Some(n) => (n, true),
                None => (s.strip_prefix('+').unwrap_or(s), false),
            };
            let col = self
                .column(name)
                .ok_or_else(|| err(format!("sort: unknown column `{name}`")))?;
            (col, desc)
        };
        let mut tests = Vec::with_capacity(q.filters.len() + q.matches.len());
        for f in &q.filters {
            let (col, value) = self.split_column("filter", f)?;
            tests.push(match col {
                Column::Key(i) => RowTest::KeyEq(i, value.to_string()),
                _ => RowTest::NumEq(
                    col,
                    value
                        .parse::<f64>()
                        .map_err(|_| err(format!("filter `{f}`: `{value}` is not a number")))?,
                ),
            });
        }
        for mt in &q.matches {
            let (col, pattern) = self.split_column("match", mt)?;
            let re = regex::RegexBuilder::new(pattern)
                .size_limit(q.max_regex_bytes)
                .build()
                .map_err(|e| err(format!("match `{mt}`: {e}")))?;
            tests.push(RowTest::Matches(col, re));
        }

        // Filter, then sort and cut. Ties are broken by the key ids, so the order is total and
        // pages are stable.
        let mut buf = String::new();
        let passing = self.rows.iter(self.keys.len()).filter(|&item| {
            tests
                .iter()
                .all(|t| self.passes(t, item, dict, interval, &mut buf))
        });
        let want = q.offset.saturating_add(limit);
        let (rows_total, top): (usize, Vec<Item<'_>>) = match sort_col {
            Column::Key(i) if self.keys[i] != Key::Status => {
                let keyed = passing.map(|item| (self.key_text(i, item.0[i], dict), item));
                let (n, top) = top_of(keyed, want, |a, b| {
                    let o = a.0.cmp(&b.0);
                    if descending { o.reverse() } else { o }.then_with(|| a.1 .0.cmp(b.1 .0))
                });
                (n, top.into_iter().map(|(_, item)| item).collect())
            }
            col => {
                let keyed = passing.map(|item| {
                    let v = match col {
                        Column::Key(i) => item.0[i] as f64,
                        // A percentile of an empty histogram sorts below every value.
                        col => self
                            .number(col, item.1, interval)
                            .unwrap_or(f64::NEG_INFINITY),
                    };
                    (v, item)
                });
                let (n, top) = top_of(keyed, want, |a, b| {
                    let o = a.0.total_cmp(&b.0);
                    if descending { o.reverse() } else { o }.then_with(|| a.1 .0.cmp(b.1 .0))
                });
                (n, top.into_iter().map(|(_, item)| item).collect())
            }
        };

        // Render.
        let (columns, cols) = self.shown_columns(percentiles);
        let rows = top
            .iter()
            .skip(q.offset)
            .map(|&item| {
                cols.iter()
                    .map(|&c| self.cell(c, item, dict, interval))
                    .collect()
            })
            .collect();
        let totals_item: Item<'_> = (&[], &self.totals);
        let totals = cols[self.keys.len()..]
            .iter()
            .map(|&c| self.cell(c, totals_item, dict, interval))
            .collect();
        Ok(Table {
            report: self.def.name.clone(),
            kind: self.kind,
            keys: self.key_names.clone(),
            time_interval: interval,
            rows_total,
            columns,
            key_columns: self.keys.len(),
            totals,
            rows,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The set of live reports
// ---------------------------------------------------------------------------------------------

/// One live report with its lock and update statistics.
#[derive(Debug)]
pub struct ReportCell {
    /// Written by the merger (add/subtract each round) and by report creation (fill); read by the
    /// API for queries and status. parking_lot: small, fair (a steady stream of queries cannot
    /// starve the merger), no poisoning.
    pub report: RwLock<Report>,
    name: String,
    builtin: bool,
    /// Merger time spent updating this report, and the requests it updated, since creation. Only
    /// the merger writes them (hence plain load/store), status reads them.
    update_ns: AtomicU64,
    update_requests: AtomicU64,
}

impl ReportCell {
    fn new(report: Report) -> ReportCell {
        let name = report.def.name.clone();
        let builtin = builtin_defs().iter().any(|d| d == &report.def);
        ReportCell {
            report: RwLock::new(report),
            name,
            builtin,
            update_ns: AtomicU64::new(0),
            update_requests: AtomicU64::new(0),
        }
    }

    /// The merger's account of one round: `ns` spent on `requests` added or subtracted views.
    pub fn record_update(&self, ns: u64, requests: u64) {
        self.update_ns
            .store(self.update_ns.load(Relaxed).wrapping_add(ns), Relaxed);
        self.update_requests.store(
            self.update_requests.load(Relaxed).wrapping_add(requests),
            Relaxed,
        );
    }

    /// Mean merger time per request update since creation (0 before the first).
    pub fn update_ns_per_request(&self) -> f64 {
        let n = self.update_requests.load(Relaxed);
        if n == 0 {
            0.0
        } else {
            self.update_ns.load(Relaxed) as f64 / n as f64
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether this is one of [`builtin_defs`] unchanged.
    pub fn builtin(&self) -> bool {
        self.builtin
    }
}

/// The live reports, in creation order. The merger takes a [`snapshot`](ReportSet::snapshot)
/// every round; the API inserts and removes. The list lock is held only to copy or edit the list
/// of `Arc`s, never while a report is locked.
#[derive(Default)]
pub struct ReportSet {
    list: RwLock<Vec<Arc<ReportCell>>>,
    /// Serialises read-modify-write of the state file (API create/delete).
    persist: Mutex<()>,
}

impl ReportSet {
    /// The current reports (the merger iterates this every round).
    pub fn snapshot(&self) -> Vec<Arc<ReportCell>> {
        self.list.read().clone()
    }

    /// Adds a report; a duplicate name is an error (the report is then dropped without
    /// `release`: use [`ReportSet::try_insert`] where the dictionary is at hand).
    pub fn insert(&self, report: Report) -> Result<(), ReportError> {
        self.try_insert(report).map(|_| ()).map_err(|(e, _)| e)
    }

    /// Adds a report, or gives it back with the error when the name is taken.
    #[allow(clippy::result_large_err)]
    pub fn try_insert(
        &self,
        report: Report,
    ) -> Result<Arc<ReportCell>, (ReportError, Box<Report>)> {
        let mut list = self.list.write();
        if list.iter().any(|c| c.name == report.def.name) {
            let e = err(format!("report `{}` already exists", report.def.name));
            return Err((e, Box::new(report)));
        }
        let cell = Arc::new(ReportCell::new(report));
        list.push(cell.clone());
        Ok(cell)
    }

    pub fn get(&self, name: &str) -> Option<Arc<ReportCell>> {
        self.list.read().iter().find(|c| c.name == name).cloned()
    }

    /// Takes a report out of the set; the caller releases its pins.
    pub fn remove(&self, name: &str) -> Option<Arc<ReportCell>> {
        let mut list = self.list.write();
        let i = list.iter().position(|c| c.name == name)?;
        Some(list.remove(i))
    }

    pub fn len(&self) -> usize {
        self.list.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.read().is_empty()
    }

    /// Records a run-time change in `{dir}/reports.json`: loads it, applies `change`, writes it
    /// back atomically. Changes are serialised by a lock of the set.
    pub fn persist_change(
        &self,
        dir: &Path,
        change: impl FnOnce(&mut StateFile),
    ) -> Result<(), ReportError> {
        let _guard = self.persist.lock();
        let mut state = load_state(dir)?.unwrap_or_default();
        change(&mut state);
        save_state(dir, &state)
    }
}

// ---------------------------------------------------------------------------------------------
// Persistence of run-time changes
// ---------------------------------------------------------------------------------------------

/// `{state_dir}/reports.json`: the report changes made at run time, replayed at start-up by
/// [`initial_defs`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    #[serde(default = "state_version")]
    pub version: u32,
    /// Reports created at run time (`POST`), in creation order. They win over a static (built-in
    /// or configured) report of the same name.
    #[serde(default)]
    pub created: Vec<ReportDef>,
    /// Static reports (built-in or configured) deleted at run time.
    #[serde(default)]
    pub deleted: Vec<String>,
}

fn state_version() -> u32 {
    1
}

impl Default for StateFile {
    fn default() -> StateFile {
        StateFile {
            version: state_version(),
            created: Vec::new(),
            deleted: Vec::new(),
        }
    }
}

impl StateFile {
    /// A report was created at run time.
    pub fn record_create(&mut self, def: &ReportDef) {
        self.created.retain(|d| d.name != def.name);
        self.created.push(def.clone());
    }

    /// A report was deleted at run time; `is_static` says whether the name is one of
    /// [`static_defs`] (which must then stay deleted across restarts).
    pub fn record_delete(&mut self, name: &str, is_static: bool) {
        self.created.retain(|d| d.name != name);
        if is_static && !self.deleted.iter().any(|n| n == name) {
            self.deleted.push(name.to_string());
        }
    }
}

fn state_path(dir: &Path) -> PathBuf {
    dir.join(STATE_FILE)
}

/// Reads `{dir}/reports.json`: `None` when it does not exist, an error naming the file when it
/// cannot be read or parsed (or a definition in it is invalid).
pub fn load_state(dir: &Path) -> Result<Option<StateFile>, ReportError> {
    let path = state_path(dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(format!("{}: {e}", path.display()))),
    };
    let state: StateFile =
        serde_json::from_str(&text).map_err(|e| err(format!("{}: {e}", path.display())))?;
    for (i, d) in state.created.iter().enumerate() {
        d.validate().map_err(|e| {
            err(format!(
                "{}: created[{i}] `{}`: {e}",
                path.display(),
                d.name
            ))
        })?;
    }
    Ok(Some(state))
}

/// Writes `{dir}/reports.json` atomically (temp file, fsync, rename), creating `dir`.
pub fn save_state(dir: &Path, state: &StateFile) -> Result<(), ReportError> {
    use std::io::Write;
    let path = state_path(dir);
    let io = |e: std::io::Error| err(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let tmp = dir.join(format!("{STATE_FILE}.tmp"));
    let text = serde_json::to_string_pretty(state).map_err(|e| err(e.to_string()))?;
    {
        let mut f = std::fs::File::create(&tmp).map_err(io)?;
        f.write_all(text.as_bytes()).map_err(io)?;
        f.write_all(b"\n").map_err(io)?;
        f.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, &path).map_err(io)
}

/// The reports the configuration defines: the built-ins (if `builtin_reports`), then
/// `[[report]]` tables.
pub fn static_defs(config: &Config) -> Vec<ReportDef> {
    let mut defs = if config.builtin_reports {
        builtin_defs()
    } else {
        Vec::new()
    };
    defs.extend(config.report.iter().cloned());
    defs
}

/// Replays run-time changes over static definitions: drops every name in `deleted`, then adds
/// each `created` definition, replacing a static one of the same name in place.
pub fn apply_state(mut defs: Vec<ReportDef>, state: &StateFile) -> Vec<ReportDef> {
    defs.retain(|d| !state.deleted.contains(&d.name));
    for c in &state.created {
        match defs.iter_mut().find(|d| d.name == c.name) {
            Some(d) => *d = c.clone(),
            None => defs.push(c.clone()),
        }
    }
    defs
}

/// The definitions to create at start-up, in order:
/// 1. the built-ins (`info` + 18 `report_by_*`) if `config.builtin_reports`, then `config.report`;
/// 2. then the run-time changes of `{state_dir}/reports.json`, if it exists: reports deleted at
///    run time (built-ins and configured ones too) are dropped, reports created at run time are
///    added (replacing a static report of the same name).
///
/// So a report created or deleted through the API stays so across restarts, while edits to the
/// config file take effect for every report the API has not touched. An unreadable or invalid
/// state file is an error (start-up should fail rather than silently lose reports).
pub fn initial_defs(config: &Config) -> Result<Vec<ReportDef>, ReportError> {
    let defs = static_defs(config);
    Ok(match load_state(&config.state_dir)? {
        Some(state) => apply_state(defs, &state),
        None => defs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::{Pool, Removal};
    use crate::record::Timer;
    use proptest::prelude::*;

    /// value (s), hit_count, tags
    type TestTimer = (f32, u32, Vec<(&'static str, &'static str)>);

    /// A request as a test writes it, with strings not yet interned.
    #[derive(Clone, Debug)]
    struct Req {
        host: &'static str,
        server: &'static str,
        script: &'static str,
        schema: Option<&'static str>,
        status: u32,
        time: f32,
        ru_utime: f32,
        ru_stime: f32,
        doc: u32,
        mem: u32,
        tags: Vec<(&'static str, &'static str)>,
        timers: Vec<TestTimer>,
    }

    impl Default for Req {
        fn default() -> Req {
            Req {
                host: "h0",
                server: "s0",
                script: "/a",
                schema: None,
                status: 200,
                time: 0.1,
                ru_utime: 0.01,
                ru_stime: 0.002,
                doc: 1000,
                mem: 2_000_000,
                tags: vec![],
                timers: vec![],
            }
        }
    }

    fn req(script: &'static str, time: f32) -> Req {
        Req {
            script,
            time,
            ..Req::default()
        }
    }

    /// A pool, a dictionary and reports fed the way the merger feeds them.
    struct World {
        pool: Pool,
        dict: Dictionary,
        reports: Vec<Report>,
    }

    fn release_record(dict: &mut Dictionary, v: &RequestView<'_>) {
        let r = v.record;
        for id in [r.hostname, r.server_name, r.script_name] {
            dict.release(id);
        }
        if r.schema != NO_SCHEMA {
            dict.release(r.schema);
        }
        for t in v.tag_block {
            dict.release(t.name);
            dict.release(t.value);
        }
    }

    impl World {
        fn new(defs: Vec<ReportDef>, max_rows: usize) -> World {
            World::with_pool(defs, max_rows, Pool::new(10_000, 100_000, 100_000))
        }

        fn with_pool(defs: Vec<ReportDef>, max_rows: usize, pool: Pool) -> World {
            let mut dict = Dictionary::new(1_000_000);
            let reports = defs
                .into_iter()
                .map(|d| Report::new(d, &mut dict, max_rows).unwrap())
                .collect();
            World {
                pool,
                dict,
                reports,
            }
        }

        fn insert(&mut self, r: &Req) -> u64 {
            let d = &mut self.dict;
            let mut block: Vec<TagPair> = r
                .tags
                .iter()
                .map(|(n, v)| TagPair {
                    name: d.intern(n.as_bytes()),
                    value: d.intern(v.as_bytes()),
                })
                .collect();
            let mut timers = Vec::new();
            for (value, hits, tags) in &r.timers {
                timers.push(Timer {
                    value: *value,
                    ru_utime: value / 10.0,
                    ru_stime: value / 20.0,
                    hit_count: *hits,
                    tag_count: tags.len() as u16,
                });
                block.extend(tags.iter().map(|(n, v)| TagPair {
                    name: d.intern(n.as_bytes()),
                    value: d.intern(v.as_bytes()),
                }));
            }
            let record = Record {
                hostname: d.intern(r.host.as_bytes()),
                server_name: d.intern(r.server.as_bytes()),
                script_name: d.intern(r.script.as_bytes()),
                schema: r.schema.map_or(NO_SCHEMA, |s| d.intern(s.as_bytes())),
                status: r.status,
                request_time: r.time,
                ru_utime: r.ru_utime,
                ru_stime: r.ru_stime,
                document_size: r.doc,
                memory_footprint: r.mem,
                request_count: 1,
                tag_count: r.tags.len() as u16,
                ..Record::default()
            };
            let (reports, dict) = (&mut self.reports, &mut self.dict);
            let (id, _) = self.pool.insert(record, &timers, &block, &mut |v, _| {
                for rep in reports.iter_mut() {
                    rep.subtract(&v);
                }
                release_record(dict, &v);
            });
            let v = self.pool.get(id).unwrap();
            for rep in self.reports.iter_mut() {
                rep.add(&v);
            }
            id
        }

        fn remove_oldest(&mut self, n: usize) {
            let (reports, dict) = (&mut self.reports, &mut self.dict);
            self.pool.remove_oldest(n, Removal::Expired, &mut |v, _| {
                for rep in reports.iter_mut() {
                    rep.subtract(&v);
                }
                release_record(dict, &v);
            });
        }

        /// Report `i` built from scratch over the pool, without a row limit.
        fn scratch(&mut self, i: usize) -> Report {
            let mut r =
                Report::new(self.reports[i].def.clone(), &mut self.dict, usize::MAX).unwrap();
            for v in self.pool.iter_oldest_first() {
                r.add(&v);
            }
            r
        }

        fn query(&self, i: usize, q: &Query, interval: f64) -> Result<Table, ReportError> {
            self.reports[i].query(q, &self.dict, interval)
        }

        fn id(&self, s: &str) -> u32 {
            self.dict.lookup(s.as_bytes()).unwrap()
        }
    }

    type RowState = (Sums, Vec<(u16, u64)>);

    fn rows_of(r: &Report) -> BTreeMap<Vec<u32>, RowState> {
        r.rows
            .iter(r.keys.len())
            .map(|(k, row)| (k.to_vec(), (row.sums, row.hist.iter().collect())))
            .collect()
    }

    fn totals_of(r: &Report) -> RowState {
        (r.totals.sums, r.totals.hist.iter().collect())
    }

    fn def(name: &str, keys: &[&str]) -> ReportDef {
        ReportDef::new(name, keys)
    }

    fn with_filters(mut d: ReportDef, filters: &[(&str, FilterValue)]) -> ReportDef {
        d.filters = filters
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        d
    }

    fn column<'t>(t: &'t Table, row: usize, name: &str) -> &'t Cell {
        let i = t
            .columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name}"));
        &t.rows[row][i]
    }

    fn total<'t>(t: &'t Table, name: &str) -> &'t Cell {
        let i = t.columns[t.key_columns..]
            .iter()
            .position(|c| c == name)
            .unwrap();
        &t.totals[i]
    }

    fn text(c: &Cell) -> &str {
        match c {
            Cell::Text(s) => s,
            other => panic!("not text: {other:?}"),
        }
    }

    fn float(c: &Cell) -> f64 {
        match c {
            Cell::Float(f) => *f,
            Cell::Int(i) => *i as f64,
            other => panic!("not a number: {other:?}"),
        }
    }

    fn q() -> Query {
        Query::default()
    }

    // ---- definitions -------------------------------------------------------------------------

    /// `ns` rounds exactly like `f64::round`, which it replaces for speed.
    #[test]
    fn ns_rounds_like_f64_round() {
        let reference = |s: f32| (s as f64 * 1e9).round() as u64;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let special = [
            0.0f32,
            -0.0,
            -1.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN_POSITIVE,
            5e-10,
            1.5e-9,
            2.5e-9,
            0.1,
            1e10,
            2e10,
        ];
        for s in special.into_iter().chain((0..200_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            f32::from_bits(x as u32)
        })) {
            assert_eq!(ns(s), reference(s), "{s:e}");
        }
    }

    #[test]
    fn builtins_are_info_and_18_reports() {
        let defs = builtin_defs();
        assert_eq!(defs.len(), 19);
        assert_eq!(defs[0].name, "info");
        assert_eq!(defs[0].kind(), Kind::Info);
        for d in &defs {
            d.validate().unwrap();
        }
        assert!(defs
            .iter()
            .all(|d| d.name == "info" || d.name.starts_with("report_by_")));
        let by = defs
            .iter()
            .find(|d| d.name == "report_by_hostname_status_and_schema")
            .unwrap();
        assert_eq!(by.keys, vec!["hostname", "status", "schema"]);
    }

    #[test]
    fn validation_names_what_is_wrong() {
        let cases: Vec<(ReportDef, &str)> = vec![
            (def("", &[]), "name"),
            (def("bad name", &[]), "' '"),
            (def(&"x".repeat(129), &[]), "128"),
            (def("r", &["colour"]), "colour"),
            (def("r", &["tag:"]), "empty tag name"),
            (def("r", &["script_name", "script_name"]), "twice"),
            (
                def(
                    "r",
                    &[
                        "tag:a", "tag:b", "tag:c", "tag:d", "tag:e", "tag:f", "tag:g", "tag:h",
                        "tag:i", "tag:j", "tag:k", "tag:l", "tag:m", "tag:n", "tag:o", "tag:p",
                    ],
                ),
                "15",
            ),
            (
                with_filters(def("r", &[]), &[("colour", "red".into())]),
                "colour",
            ),
            (
                with_filters(def("r", &[]), &[("min_time", "soon".into())]),
                "min_time",
            ),
            (
                with_filters(
                    def("r", &[]),
                    &[("min_time", 2.0.into()), ("max_time", 1.into())],
                ),
                "min_time",
            ),
            (
                with_filters(def("r", &[]), &[("status", (-1).into())]),
                "status",
            ),
            (
                with_filters(def("r", &[]), &[("script_name", 1.5.into())]),
                "script_name",
            ),
            (
                ReportDef {
                    percentiles: vec![101.0],
                    ..def("r", &[])
                },
                "101",
            ),
            (
                ReportDef {
                    percentiles: vec![50.0, 50.0],
                    ..def("r", &[])
                },
                "twice",
            ),
            (
                ReportDef {
                    percentiles: vec![f64::NAN],
                    ..def("r", &[])
                },
                "NaN",
            ),
            (
                ReportDef {
                    preset: Some("nope".into()),
                    tags: vec!["a".into()],
                    ..def("r", &[])
                },
                "nope",
            ),
            (
                ReportDef {
                    preset: Some("tag_info".into()),
                    ..def("r", &[])
                },
                "tags",
            ),
            (
                ReportDef {
                    tags: vec!["a".into()],
                    ..def("r", &[])
                },
                "preset",
            ),
        ];
        for (d, needle) in cases {
            let e = d.validate().unwrap_err().to_string();
            assert!(e.contains(needle), "{d:?}: `{e}` lacks `{needle}`");
        }
        def("ok:name.with,all-chars_1", &["tag:a:b"])
            .validate()
            .unwrap();
    }

    #[test]
    fn presets_expand_to_the_families() {
        let p = |preset: &str| ReportDef {
            preset: Some(preset.into()),
            tags: vec!["group".into(), "server".into()],
            ..def("r", &[])
        };
        assert_eq!(
            p("timer_tag_info").resolved_keys().unwrap(),
            vec!["timer_tag:group", "timer_tag:server"]
        );
        assert_eq!(
            p("tag_report").resolved_keys().unwrap(),
            vec!["script_name", "timer_tag:group", "timer_tag:server"]
        );
        assert_eq!(
            p("timer_tag_report2").resolved_keys().unwrap(),
            vec![
                "script_name",
                "hostname",
                "server_name",
                "timer_tag:group",
                "timer_tag:server"
            ]
        );
        assert_eq!(
            p("rtag_info").resolved_keys().unwrap(),
            vec!["tag:group", "tag:server"]
        );
        assert_eq!(
            p("request_tag_report").resolved_keys().unwrap(),
            vec!["hostname", "tag:group", "tag:server"]
        );
        assert_eq!(p("timer_tag_report").kind(), Kind::Timer);
        assert_eq!(p("request_tag_report").kind(), Kind::Request);
        let mut dict = Dictionary::new(100);
        let r = Report::new(p("timer_tag_report"), &mut dict, 10).unwrap();
        assert_eq!(
            r.keys(),
            &["script_name", "timer_tag:group", "timer_tag:server"]
        );
        assert_eq!(r.kind(), Kind::Timer);
    }

    #[test]
    fn definitions_parse_from_toml_and_json() {
        let text = r#"
            name = "slow"
            keys = ["script_name", "tag:country"]
            percentiles = [50, 99.9]
            [filters]
            min_time = 0.1
            max_time = 2
            status = 200
            "tag:country" = "nl"
            "timer_tag:group" = "db"
        "#;
        let d: ReportDef = toml::from_str(text).unwrap();
        d.validate().unwrap();
        assert_eq!(d.percentiles, vec![50.0, 99.9]);
        assert_eq!(d.filters["min_time"], FilterValue::Float(0.1));
        assert_eq!(d.filters["max_time"], FilterValue::Int(2));
        assert_eq!(d.filters["tag:country"], FilterValue::Text("nl".into()));
        // Round trips through TOML (the config prints itself) and JSON (the state file).
        let back: ReportDef = toml::from_str(&toml::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d);
        let back: ReportDef = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d);
        let j: ReportDef = serde_json::from_str(
            r#"{"name": "x", "filters": {"status": 404, "script_name": "/x.php"}}"#,
        )
        .unwrap();
        assert_eq!(j.percentiles, DEFAULT_PERCENTILES.to_vec());
        assert!(j.keys.is_empty());
        let e = serde_json::from_str::<ReportDef>(r#"{"name": "x", "kyes": []}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("kyes"), "{e}");
    }

    #[test]
    fn new_pins_names_and_values_and_release_unpins() {
        let mut dict = Dictionary::new(100);
        let d = with_filters(
            def("r", &["tag:country"]),
            &[
                ("script_name", "/x".into()),
                ("timer_tag:group", "db".into()),
            ],
        );
        let mut r = Report::new(d, &mut dict, 10).unwrap();
        assert_eq!(dict.len(), 4);
        r.release(&mut dict);
        r.release(&mut dict);
        assert_eq!(dict.len(), 0);
        // A full dictionary is an error, and pins taken so far are given back.
        let mut small = Dictionary::new(1);
        let e = Report::new(def("r", &["tag:a", "tag:b"]), &mut small, 10).unwrap_err();
        assert!(e.to_string().contains("dictionary full"), "{e}");
        assert_eq!(small.len(), 0);
    }

    // ---- the engine ---------------------------------------------------------------------------

    #[test]
    fn request_report_counts_and_sums() {
        let mut w = World::new(vec![def("r", &["script_name"]), def("info", &[])], 100);
        w.insert(&req("/a", 0.5));
        w.insert(&req("/a", 0.25));
        w.insert(&Req {
            doc: 10,
            mem: 20,
            ..req("/b", 1.0)
        });
        let a = w.id("/a");
        let rows = rows_of(&w.reports[0]);
        let (sums, hist) = &rows[&vec![a]];
        assert_eq!(sums.req_count, 2);
        assert_eq!(sums.time_ns, 750_000_000);
        assert_eq!(sums.traffic_bytes, 2000);
        assert_eq!(sums.memory_footprint_bytes, 4_000_000);
        assert_eq!(hist.iter().map(|b| b.1).sum::<u64>(), 2);
        assert_eq!(w.reports[0].total_requests(), 3);
        assert_eq!(w.reports[1].rows(), 1);
        assert_eq!(totals_of(&w.reports[1]), totals_of(&w.reports[0]));
        w.remove_oldest(3);
        assert_eq!(w.reports[0].rows(), 0);
        assert_eq!(w.reports[1].rows(), 0);
        assert_eq!(totals_of(&w.reports[0]), (Sums::default(), vec![]));
    }

    #[test]
    fn status_and_schema_keys() {
        let mut w = World::new(vec![def("r", &["status", "schema"])], 100);
        w.insert(&Req {
            status: 404,
            ..Req::default()
        });
        w.insert(&Req {
            status: 200,
            schema: Some("https"),
            ..Req::default()
        });
        let https = w.id("https");
        let rows = rows_of(&w.reports[0]);
        assert!(rows.contains_key(&vec![404, NO_SCHEMA]));
        assert!(rows.contains_key(&vec![200, https]));
        let t = w
            .query(
                0,
                &Query {
                    sort: Some("status".into()),
                    ..q()
                },
                1.0,
            )
            .unwrap();
        assert_eq!(t.columns[..2], ["status".to_string(), "schema".to_string()]);
        assert_eq!(t.rows[0][..2], [Cell::Int(200), Cell::Text("https".into())]);
        assert_eq!(t.rows[1][..2], [Cell::Int(404), Cell::Null]);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["rows"][1]["schema"], serde_json::Value::Null);
        assert!(t.to_csv().contains("\r\n404,,"), "{}", t.to_csv());
    }

    #[test]
    fn missing_request_tag_contributes_nothing() {
        let mut w = World::new(vec![def("r", &["tag:country"])], 100);
        w.insert(&Req {
            tags: vec![("app", "x")],
            ..Req::default()
        });
        assert_eq!(w.reports[0].rows(), 0);
        assert_eq!(w.reports[0].total_requests(), 0);
        w.insert(&Req {
            tags: vec![("country", "nl"), ("country", "de")],
            ..Req::default()
        });
        let nl = w.id("nl");
        assert_eq!(
            rows_of(&w.reports[0]).keys().collect::<Vec<_>>(),
            vec![&vec![nl]],
            "first tag wins"
        );
        w.remove_oldest(2);
        assert_eq!(w.reports[0].rows(), 0);
    }

    #[test]
    fn timer_report_counts_a_request_once_per_row() {
        let mut w = World::new(vec![def("r", &["timer_tag:group"])], 100);
        w.insert(&Req {
            timers: vec![
                (0.1, 2, vec![("group", "db")]),
                (0.3, 1, vec![("group", "db"), ("server", "m1")]),
                (0.05, 5, vec![("group", "cache")]),
                (0.5, 1, vec![("server", "m1")]), // no group: ignored
            ],
            ..Req::default()
        });
        w.insert(&Req {
            timers: vec![(0.2, 1, vec![("group", "db")])],
            ..Req::default()
        });
        let (db, cache) = (w.id("db"), w.id("cache"));
        let rows = rows_of(&w.reports[0]);
        let (s, hist) = &rows[&vec![db]];
        assert_eq!(
            (s.req_count, s.hit_count, s.time_ns),
            (2, 4, ns(0.1) + ns(0.3) + ns(0.2))
        );
        assert_eq!(
            hist.iter().map(|b| b.1).sum::<u64>(),
            4,
            "hit_count samples"
        );
        assert_eq!(
            (
                rows[&vec![cache]].0.req_count,
                rows[&vec![cache]].0.hit_count
            ),
            (1, 5)
        );
        assert_eq!(w.reports[0].totals.sums.req_count, 2);
        assert_eq!(w.reports[0].totals.sums.hit_count, 9);
        // Samples are value / hit_count: 5 samples of 10 ms.
        let t = w
            .query(
                0,
                &Query {
                    filters: vec!["group:cache".into()],
                    ..q()
                },
                1.0,
            )
            .unwrap();
        assert!((float(column(&t, 0, "timer_median")) - 0.01).abs() < 0.0001);
        w.remove_oldest(1);
        let rows = rows_of(&w.reports[0]);
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[&vec![db]].0.req_count, rows[&vec![db]].0.hit_count),
            (1, 1)
        );
        w.remove_oldest(1);
        assert_eq!(w.reports[0].rows(), 0);
        assert_eq!(totals_of(&w.reports[0]), (Sums::default(), vec![]));
    }

    #[test]
    fn duplicate_timer_tag_names_first_wins() {
        let mut w = World::new(vec![def("r", &["timer_tag:group"])], 100);
        w.insert(&Req {
            timers: vec![(0.1, 1, vec![("group", "db"), ("group", "cache")])],
            ..Req::default()
        });
        let db = w.id("db");
        assert_eq!(
            rows_of(&w.reports[0]).keys().cloned().collect::<Vec<_>>(),
            vec![vec![db]]
        );
    }

    #[test]
    fn mixed_keys_need_every_tag() {
        let mut w = World::new(
            vec![def(
                "r",
                &[
                    "script_name",
                    "tag:app",
                    "timer_tag:group",
                    "timer_tag:server",
                ],
            )],
            100,
        );
        w.insert(&Req {
            tags: vec![("app", "x")],
            timers: vec![
                (
                    0.1,
                    1,
                    vec![("group", "db"), ("server", "m1"), ("extra", "1")],
                ),
                (0.1, 1, vec![("group", "db")]),
            ],
            ..Req::default()
        });
        w.insert(&Req {
            timers: vec![(0.1, 1, vec![("group", "db"), ("server", "m1")])],
            ..Req::default()
        });
        let key = vec![w.id("/a"), w.id("x"), w.id("db"), w.id("m1")];
        let rows = rows_of(&w.reports[0]);
        assert_eq!(rows.keys().collect::<Vec<_>>(), vec![&key]);
        assert_eq!((rows[&key].0.req_count, rows[&key].0.hit_count), (1, 1));
    }

    #[test]
    fn filters_of_each_kind() {
        let f = |filters: &[(&str, FilterValue)]| with_filters(def("r", &[]), filters);
        let defs = vec![
            f(&[("min_time", 0.1.into())]),
            f(&[("max_time", 0.1.into())]),
            f(&[("hostname", "h1".into())]),
            f(&[("server_name", "s1".into())]),
            f(&[("script_name", "/b".into())]),
            f(&[("schema", "https".into())]),
            f(&[("status", 404.into())]),
            f(&[("tag:country", "nl".into())]),
            f(&[("timer_tag:group", "db".into())]),
            with_filters(
                def("t", &["timer_tag:group"]),
                &[("timer_tag:server", "m1".into())],
            ),
            f(&[("status", 404.into()), ("script_name", "/b".into())]),
        ];
        let mut w = World::new(defs, 100);
        let base = Req::default();
        let reqs = [
            Req {
                time: 0.1,
                ..base.clone()
            }, // min_time and max_time are inclusive
            Req {
                time: 0.05,
                host: "h1",
                ..base.clone()
            },
            Req {
                time: 0.3,
                server: "s1",
                schema: Some("https"),
                ..base.clone()
            },
            Req {
                script: "/b",
                status: 404,
                tags: vec![("country", "nl")],
                ..base.clone()
            },
            Req {
                script: "/b",
                tags: vec![("country", "de")],
                ..base.clone()
            },
            Req {
                timers: vec![
                    (0.1, 1, vec![("group", "db"), ("server", "m2")]),
                    (0.2, 3, vec![("group", "cache"), ("server", "m1")]),
                ],
                ..base.clone()
            },
        ];
        for r in &reqs {
            w.insert(r);
        }
        let counts: Vec<u64> = w.reports.iter().map(|r| r.total_requests()).collect();
        assert_eq!(counts, vec![5, 5, 1, 1, 2, 1, 1, 1, 1, 1, 1]);
        // The timer report counts only the timer carrying server=m1.
        let t = &w.reports[9];
        assert_eq!(t.totals.sums.hit_count, 3);
        assert_eq!(
            rows_of(t).keys().cloned().collect::<Vec<_>>(),
            vec![vec![w.id("cache")]]
        );
        w.remove_oldest(usize::MAX);
        assert!(w
            .reports
            .iter()
            .all(|r| r.rows() == 0 && r.totals.sums == Sums::default()));
    }

    #[test]
    fn max_rows_loses_and_freezes_until_the_losing_request_leaves() {
        let mut w = World::new(vec![def("r", &["script_name"])], 2);
        w.insert(&req("/a", 0.1)); // 0
        w.insert(&req("/b", 0.1)); // 1
        w.insert(&req("/c", 0.1)); // 2: lost, frozen until 2 leaves
        assert_eq!((w.reports[0].rows(), w.reports[0].rows_lost()), (2, 1));
        w.insert(&req("/a", 0.2)); // 3: existing row still counts
        w.remove_oldest(2); // 0 and 1: /b's row goes, room for one
        assert_eq!(w.reports[0].rows(), 1);
        w.insert(&req("/d", 0.1)); // 4: frozen, lost
        assert_eq!((w.reports[0].rows(), w.reports[0].rows_lost()), (1, 2));
        w.remove_oldest(1); // 2 (/c, lost: skipped); still frozen because of 4
        w.insert(&req("/c", 0.1)); // 5: lost
        assert_eq!(w.reports[0].rows_lost(), 3);
        let scratch = w.scratch(0);
        assert_eq!(
            totals_of(&w.reports[0]),
            totals_of(&scratch),
            "totals count lost contributions"
        );
        for (k, v) in rows_of(&w.reports[0]) {
            assert_eq!(rows_of(&scratch)[&k], v, "every kept row is exact");
        }
        w.remove_oldest(3); // 3, 4, 5: freeze ends
        assert_eq!(w.reports[0].rows(), 0);
        w.insert(&req("/e", 0.1));
        assert_eq!(w.reports[0].rows(), 1);
        assert_eq!(w.reports[0].rows_lost(), 3);
        assert_eq!(rows_of(&w.reports[0]), rows_of(&w.scratch(0)));
    }

    // ---- columns and queries -----------------------------------------------------------------

    #[test]
    fn column_names_and_repeats() {
        let mut dict = Dictionary::new(100);
        let cols = |keys: &[&str], dict: &mut Dictionary| {
            Report::new(def("r", keys), dict, 1)
                .unwrap()
                .key_columns()
                .to_vec()
        };
        assert_eq!(
            cols(&["tag:country", "timer_tag:group"], &mut dict),
            vec!["country", "group"]
        );
        assert_eq!(
            cols(&["status", "tag:status"], &mut dict),
            vec!["status", "tag:status"]
        );
        assert_eq!(
            cols(&["tag:group", "timer_tag:group"], &mut dict),
            vec!["tag:group", "timer_tag:group"]
        );
        assert_eq!(
            cols(&["tag:req_count", "tag:p99"], &mut dict),
            vec!["tag:req_count", "tag:p99"]
        );
        assert_eq!(
            cols(&["timer_tag:hit_count"], &mut dict),
            vec!["timer_tag:hit_count"]
        );
        let mut w = World::new(
            vec![def("r", &["script_name"]), def("t", &["timer_tag:g"])],
            10,
        );
        w.insert(&Req {
            timers: vec![(0.1, 1, vec![("g", "x")])],
            ..Req::default()
        });
        let t = w
            .query(
                0,
                &Query {
                    percentiles: Some(vec![50.0, 99.9]),
                    ..q()
                },
                1.0,
            )
            .unwrap();
        assert_eq!(
            t.columns,
            "script_name req_count req_per_sec req_percent req_time_total req_time_per_sec req_time_percent \
             ru_utime_total ru_utime_per_sec ru_utime_percent ru_stime_total ru_stime_per_sec ru_stime_percent \
             traffic_total traffic_per_sec traffic_percent memory_footprint_total memory_footprint_per_sec \
             memory_footprint_percent req_time_median p50 p99.9"
                .split_whitespace()
                .collect::<Vec<_>>()
        );
        let t = w.query(1, &q(), 1.0).unwrap();
        assert_eq!(
            t.columns,
            "g req_count req_per_sec req_percent hit_count hit_per_sec hit_percent timer_value timer_value_per_sec \
             timer_value_percent ru_utime_value ru_stime_value timer_median p90 p95 p99"
                .split_whitespace()
                .collect::<Vec<_>>()
        );
        assert_eq!(t.keys, vec!["timer_tag:g"]);
    }

    #[test]
    fn percent_and_per_sec_math() {
        let mut w = World::new(vec![def("r", &["script_name"])], 10);
        w.insert(&Req {
            doc: 100,
            ..req("/a", 1.0)
        });
        w.insert(&Req {
            doc: 100,
            ..req("/a", 1.0)
        });
        w.insert(&Req {
            doc: 200,
            ..req("/b", 2.0)
        });
        let t = w
            .query(
                0,
                &Query {
                    sort: Some("script_name".into()),
                    ..q()
                },
                2.0,
            )
            .unwrap();
        assert_eq!(text(column(&t, 0, "script_name")), "/a");
        assert_eq!(column(&t, 0, "req_count"), &Cell::Int(2));
        assert_eq!(float(column(&t, 0, "req_per_sec")), 1.0);
        assert!((float(column(&t, 0, "req_percent")) - 200.0 / 3.0).abs() < 1e-9);
        assert_eq!(float(column(&t, 0, "req_time_total")), 2.0);
        assert_eq!(float(column(&t, 0, "req_time_per_sec")), 1.0);
        assert_eq!(float(column(&t, 0, "req_time_percent")), 50.0);
        assert_eq!(column(&t, 0, "traffic_total"), &Cell::Int(200));
        assert_eq!(float(column(&t, 0, "traffic_percent")), 50.0);
        assert_eq!(float(column(&t, 1, "traffic_per_sec")), 100.0);
        assert!((float(column(&t, 0, "ru_utime_total")) - 0.02).abs() < 1e-9);
        assert_eq!(total(&t, "req_count"), &Cell::Int(3));
        assert_eq!(float(total(&t, "req_percent")), 100.0);
        assert_eq!(float(total(&t, "req_time_per_sec")), 2.0);
        assert!((float(column(&t, 1, "req_time_median")) - 2.0).abs() < 0.02);
        assert!((float(column(&t, 0, "p99")) - 1.0).abs() < 0.01);
        assert_eq!(t.time_interval, 2.0);
        // An empty report: zero totals, no NaN.
        w.remove_oldest(3);
        let t = w.query(0, &q(), 2.0).unwrap();
        assert_eq!((t.rows_total, t.rows.len()), (0, 0));
        assert_eq!(float(total(&t, "req_percent")), 0.0);
        assert_eq!(total(&t, "p99"), &Cell::Null);
    }

    fn scripts_world() -> World {
        let mut w = World::new(vec![def("r", &["script_name", "tag:country"])], 100);
        let scripts = ["/a", "/b", "/c", "/api/x", "/api/y"];
        for (i, s) in scripts.iter().enumerate() {
            for _ in 0..=i {
                w.insert(&Req {
                    tags: vec![("country", if i % 2 == 0 { "nl" } else { "de" })],
                    ..req(s, 0.1 * (i + 1) as f32)
                });
            }
        }
        w
    }

    fn script_column(t: &Table) -> Vec<&str> {
        t.rows.iter().map(|r| text(&r[0])).collect()
    }

    #[test]
    fn query_sorts_limits_and_pages() {
        let w = scripts_world();
        let t = w.query(0, &q(), 1.0).unwrap();
        assert_eq!(
            script_column(&t),
            vec!["/api/y", "/api/x", "/c", "/b", "/a"],
            "default -req_time_total"
        );
        assert_eq!(t.rows_total, 5);
        let t = w
            .query(
                0,
                &Query {
                    sort: Some("req_count".into()),
                    limit: Some(2),
                    ..q()
                },
                1.0,
            )
            .unwrap();
        assert_eq!(script_column(&t), vec!["/a", "/b"]);
        assert_eq!(t.rows_total, 5);
        let t = w
            .query(
                0,
                &Query {
                    sort: Some("-script_name".into()),
                    limit: Some(2),
                    offset: 1,
                    ..q()
                },
                1.0,
            )
            .unwrap();
        assert_eq!(script_column(&t), vec!["/b", "/api/y"]);
        let t = w
            .query(
                0,
                &Query {
                    sort: Some("country".into()),
                    ..q()
                },
                1.0,
            )
            .unwrap();
        assert_eq!(
            script_column(&t)[..2],
            ["/b", "/api/x"],
            "ties broken by key ids"
        );
        let t = w
            .query(
                0,
                &Query {
                    sort: Some("-p99".into()),
                    limit: Some(1),
                    ..q()
                },
                1.0,
            )
            .unwrap();
        assert_eq!(script_column(&t), vec!["/api/y"]);
        let t = w.query(0, &Query { offset: 10, ..q() }, 1.0).unwrap();
        assert!(t.rows.is_empty());
        let t = w
            .query(
                0,
                &Query {
                    limit: Some(0),
                    ..q()
                },
                1.0,
            )
            .unwrap();
        assert!(t.rows.is_empty());
        assert_eq!(total(&t, "req_count"), &Cell::Int(15));
    }

    #[test]
    fn query_filters_and_matches() {
        let w = scripts_world();
        let run = |filters: &[&str], matches: &[&str]| {
            let q = Query {
                sort: Some("script_name".into()),
                filters: filters.iter().map(|s| s.to_string()).collect(),
                matches: matches.iter().map(|s| s.to_string()).collect(),
                ..q()
            };
            let t = w.query(0, &q, 1.0).unwrap();
            assert_eq!(t.rows_total, t.rows.len());
            script_column(&t)
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(&["script_name:/b"], &[]), vec!["/b"]);
        assert_eq!(run(&["country:nl"], &[]), vec!["/a", "/api/y", "/c"]);
        assert_eq!(
            run(&["tag:country:de"], &[]),
            vec!["/api/x", "/b"],
            "the key's own name works too"
        );
        assert_eq!(run(&["req_count:4"], &[]), vec!["/api/x"]);
        assert_eq!(run(&[], &["script_name:^/api"]), vec!["/api/x", "/api/y"]);
        assert_eq!(run(&["country:nl"], &["script_name:^/api"]), vec!["/api/y"]);
        assert_eq!(run(&[], &["req_count:^[12]$"]), vec!["/a", "/b"]);
        assert_eq!(run(&["script_name:/nope"], &[]), Vec::<String>::new());
    }

    #[test]
    fn query_errors_name_the_column() {
        let w = scripts_world();
        let e = |q: Query| w.query(0, &q, 1.0).unwrap_err().to_string();
        assert!(e(Query {
            sort: Some("-bogus".into()),
            ..q()
        })
        .contains("`bogus`"));
        assert!(e(Query {
            filters: vec!["bogus:1".into()],
            ..q()
        })
        .contains("`bogus`"));
        assert!(e(Query {
            filters: vec!["req_count:many".into()],
            ..q()
        })
        .contains("many"));
        assert!(e(Query {
            filters: vec!["nocolon".into()],
            ..q()
        })
        .contains("COLUMN:VALUE"));
        assert!(e(Query {
            matches: vec!["script_name:(".into()],
            ..q()
        })
        .contains("match"));
        assert!(e(Query {
            matches: vec!["script_name:a{1000}{1000}".into()],
            max_regex_bytes: 1000,
            ..q()
        })
        .contains("match"));
        assert!(e(Query {
            limit: Some(11),
            max_limit: 10,
            ..q()
        })
        .contains("limit"));
        assert!(e(Query {
            percentiles: Some(vec![200.0]),
            ..q()
        })
        .contains("200"));
    }

    #[test]
    fn query_renders_json_and_csv() {
        let mut w = World::new(vec![def("r", &["script_name"])], 10);
        w.insert(&req("/a,\"b\"", 0.5));
        w.insert(&req("/plain", 0.25));
        let t = w
            .query(
                0,
                &Query {
                    percentiles: Some(vec![50.0]),
                    ..q()
                },
                1.0,
            )
            .unwrap();
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["report"], "r");
        assert_eq!(json["kind"], "request");
        assert_eq!(json["keys"], serde_json::json!(["script_name"]));
        assert_eq!(json["rows_total"], 2);
        assert_eq!(json["totals"]["req_count"], 2);
        assert!(json["totals"].get("script_name").is_none());
        assert_eq!(json["rows"][0]["script_name"], "/a,\"b\"");
        assert_eq!(json["rows"][0]["traffic_total"], 1000);
        // Columns keep their order in the JSON text.
        let text = serde_json::to_string(&t).unwrap();
        assert!(text.find("\"req_count\"").unwrap() < text.find("\"p50\"").unwrap());
        let csv = t.to_csv();
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert!(lines[0].starts_with("script_name,req_count,req_per_sec,"));
        assert!(lines[0].ends_with(",req_time_median,p50"));
        assert!(lines[1].starts_with("\"/a,\"\"b\"\"\",1,"), "{}", lines[1]);
        assert!(lines[2].starts_with("/plain,1,"));
        assert_eq!(lines.len(), 4);
        assert_eq!(t.totals_json()["req_count"], 2);
    }

    #[test]
    fn top_of_keeps_the_best_in_order() {
        let data: Vec<u32> = (0..5000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) % 10_007)
            .collect();
        let mut sorted = data.clone();
        sorted.sort_unstable();
        for want in [0, 1, 7, 100, 4999, 5000, 9000] {
            let (n, top) = top_of(data.iter().copied(), want, |a, b| a.cmp(b));
            assert_eq!(n, 5000);
            assert_eq!(top, sorted[..want.min(5000)], "want {want}");
        }
        let (_, top) = top_of(data.iter().copied(), 3, |a, b| b.cmp(a));
        assert_eq!(top, vec![sorted[4999], sorted[4998], sorted[4997]]);
    }

    // ---- the set and persistence --------------------------------------------------------------

    #[test]
    fn report_set_inserts_gets_and_removes() {
        let mut dict = Dictionary::new(100);
        let set = ReportSet::default();
        set.insert(Report::new(builtin_defs().remove(0), &mut dict, 10).unwrap())
            .unwrap();
        set.insert(Report::new(def("x", &["tag:a"]), &mut dict, 10).unwrap())
            .unwrap();
        let (e, mut back) = set
            .try_insert(Report::new(def("x", &[]), &mut dict, 10).unwrap())
            .unwrap_err();
        assert!(e.to_string().contains("already exists"));
        back.release(&mut dict);
        assert_eq!(
            set.snapshot()
                .iter()
                .map(|c| c.name().to_string())
                .collect::<Vec<_>>(),
            vec!["info", "x"]
        );
        assert!(set.get("info").unwrap().builtin());
        assert!(!set.get("x").unwrap().builtin());
        let cell = set.get("x").unwrap();
        cell.record_update(1000, 10);
        cell.record_update(500, 5);
        assert_eq!(cell.update_ns_per_request(), 100.0);
        let gone = set.remove("x").unwrap();
        gone.report.write().release(&mut dict);
        assert_eq!(dict.len(), 0);
        assert!(set.get("x").is_none() && set.remove("x").is_none());
        assert_eq!(set.len(), 1);
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("pinbad-report-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn state_file_round_trips_and_replays() {
        let dir = temp_dir("state");
        assert_eq!(load_state(&dir).unwrap(), None);
        let mut config = Config {
            state_dir: dir.clone(),
            ..Config::default()
        };
        config.report.push(def("configured", &["hostname"]));
        assert_eq!(initial_defs(&config).unwrap().len(), 20);

        let set = ReportSet::default();
        let created = with_filters(
            def("by_country", &["tag:country"]),
            &[("status", 200.into())],
        );
        set.persist_change(&dir, |s| s.record_create(&created))
            .unwrap();
        set.persist_change(&dir, |s| s.record_delete("report_by_status", true))
            .unwrap();
        set.persist_change(&dir, |s| s.record_delete("info", true))
            .unwrap();
        // Re-creating a deleted built-in with other keys: the new one replaces it.
        let info2 = def("info", &["hostname"]);
        set.persist_change(&dir, |s| s.record_create(&info2))
            .unwrap();
        let state = load_state(&dir).unwrap().unwrap();
        assert_eq!(state.created, vec![created.clone(), info2.clone()]);
        assert_eq!(state.deleted, vec!["report_by_status", "info"]);

        let defs = initial_defs(&config).unwrap();
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        assert!(!names.contains(&"report_by_status"));
        assert!(names.contains(&"configured"));
        assert_eq!(&names[names.len() - 2..], ["by_country", "info"]);
        assert_eq!(defs.iter().find(|d| d.name == "info").unwrap(), &info2);

        // Deleting a run-time report forgets it; built-ins can be turned off entirely.
        set.persist_change(&dir, |s| s.record_delete("by_country", false))
            .unwrap();
        config.builtin_reports = false;
        let names: Vec<String> = initial_defs(&config)
            .unwrap()
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(names, vec!["configured", "info"]);

        std::fs::write(dir.join(STATE_FILE), "{not json").unwrap();
        let e = initial_defs(&config).unwrap_err().to_string();
        assert!(e.contains(STATE_FILE), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    // ---- properties ---------------------------------------------------------------------------

    fn one_of<T: Clone + std::fmt::Debug + 'static>(xs: &'static [T]) -> impl Strategy<Value = T> {
        proptest::sample::select(xs)
    }

    fn arb_tags(
        names: &'static [&'static str],
        values: &'static [&'static str],
    ) -> impl Strategy<Value = Vec<(&'static str, &'static str)>> {
        proptest::collection::vec((one_of(names), one_of(values)), 0..3)
    }

    fn arb_req() -> impl Strategy<Value = Req> {
        let time = prop_oneof![
            one_of(&[0.0f32, 0.000_5, 0.001, 0.05, 0.2, 1.5]),
            0.0f32..3.0
        ];
        let timer = (
            prop_oneof![one_of(&[0.0f32, 0.01, 0.1]), 0.0f32..1.0],
            0u32..4,
            arb_tags(&["group", "server"], &["db", "cache", "m1"]),
        );
        (
            (
                one_of(&["h0", "h1"]),
                one_of(&["s0", "s1"]),
                one_of(&["/a", "/b", "/c"]),
            ),
            (
                one_of(&[None, Some("http"), Some("https")]),
                one_of(&[200u32, 404, 500]),
                time,
            ),
            (
                0u32..5000,
                arb_tags(&["country", "app"], &["nl", "de", "x"]),
            ),
            proptest::collection::vec(timer, 0..4),
        )
            .prop_map(
                |((host, server, script), (schema, status, time), (doc, tags), timers)| Req {
                    host,
                    server,
                    script,
                    schema,
                    status,
                    time,
                    ru_utime: time / 3.0,
                    ru_stime: time / 7.0,
                    doc,
                    mem: doc * 3,
                    tags,
                    timers,
                },
            )
    }

    fn property_defs() -> Vec<ReportDef> {
        vec![
            def("info", &[]),
            def("script", &["script_name"]),
            def("host_status_schema", &["hostname", "status", "schema"]),
            def("country", &["tag:country"]),
            def("group", &["timer_tag:group"]),
            def(
                "mixed",
                &[
                    "script_name",
                    "timer_tag:group",
                    "tag:app",
                    "timer_tag:server",
                ],
            ),
            with_filters(
                def("group_on_m1", &["timer_tag:group"]),
                &[("timer_tag:server", "m1".into())],
            ),
            with_filters(
                def("filtered", &["script_name", "server_name"]),
                &[
                    ("min_time", 0.01.into()),
                    ("status", 200.into()),
                    ("timer_tag:group", "db".into()),
                ],
            ),
            with_filters(
                def("nl", &["status"]),
                &[("tag:country", "nl".into()), ("max_time", 1.into())],
            ),
        ]
    }

    /// Inserting requests and removing them oldest first, in any interleaving and with pool
    /// overwrites, leaves every report equal to one built from scratch over the pool; with a row
    /// limit, every kept row is still exact.
    fn check_incremental(
        ops: &[(Req, usize)],
        caps: (usize, usize, usize),
        max_rows: usize,
    ) -> Result<(), TestCaseError> {
        let mut w = World::with_pool(property_defs(), max_rows, Pool::new(caps.0, caps.1, caps.2));
        for (r, remove) in ops {
            w.insert(r);
            w.remove_oldest(*remove);
            for i in 0..w.reports.len() {
                let scratch = w.scratch(i);
                let (inc, full) = (rows_of(&w.reports[i]), rows_of(&scratch));
                prop_assert_eq!(
                    totals_of(&w.reports[i]),
                    totals_of(&scratch),
                    "totals of {}",
                    w.reports[i].def.name
                );
                prop_assert!(inc.len() <= max_rows);
                if max_rows == usize::MAX {
                    prop_assert_eq!(&inc, &full, "rows of {}", w.reports[i].def.name);
                } else {
                    for (k, v) in &inc {
                        prop_assert_eq!(
                            Some(v),
                            full.get(k),
                            "row {:?} of {}",
                            k,
                            w.reports[i].def.name
                        );
                    }
                }
            }
        }
        w.remove_oldest(usize::MAX);
        for r in &w.reports {
            prop_assert_eq!(r.rows(), 0);
            prop_assert_eq!(totals_of(r), (Sums::default(), vec![]));
        }
        prop_assert_eq!(w.dict.len(), property_pins(&w));
        Ok(())
    }

    /// Dictionary entries still alive once the pool is empty: only the reports' pins.
    fn property_pins(w: &World) -> usize {
        let mut ids: Vec<u32> = w
            .reports
            .iter()
            .flat_map(|r| r.pins.iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn incremental_equals_from_scratch(
            ops in proptest::collection::vec((arb_req(), prop_oneof![3 => Just(0usize), 1 => 1usize..3]), 1..40),
            caps in (3usize..30, 4usize..40, 8usize..80),
        ) {
            check_incremental(&ops, caps, usize::MAX)?;
        }

        #[test]
        fn row_limit_keeps_rows_exact(
            ops in proptest::collection::vec((arb_req(), prop_oneof![3 => Just(0usize), 1 => 1usize..3]), 1..40),
            caps in (3usize..30, 4usize..40, 8usize..80),
            max_rows in 1usize..4,
        ) {
            check_incremental(&ops, caps, max_rows)?;
        }
    }
}
