//! Columns: what a report shows besides its keys (its metric columns, the median and `p<N>`
//! percentiles) and what each reads from a row's [`Sums`]; what the key columns are called, and
//! how their ids read as text.
//!
//! In: a report's kind and keys. Out: column names and values, for queries (`query`), the
//! history (its API's [`SumColumn`]s, its writer's [`KeyTexts`]) and definitions (a key column's
//! name must not clash with a metric column's). Pure: constant tables and functions of them.

use std::borrow::Cow;

use crate::dictionary::Dictionary;
use crate::record::NO_SCHEMA;

use super::def::{KeySpec, Kind};
use super::keys::Key;
use super::live::Report;
use super::sums::Sums;
use super::table::Cell;

/// Which sum a metric column reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Field {
    ReqCount,
    HitCount,
    TimeNs,
    RuUtimeNs,
    RuStimeNs,
    TrafficBytes,
    MemoryFootprintBytes,
    MemoryPeakBytes,
    /// Not a sum: the largest `memory_peak` (see [`Sums`]); only ever a [`How::Total`] column.
    MemoryPeakMax,
}

impl Field {
    pub(super) fn of(self, s: &Sums) -> u128 {
        match self {
            Field::ReqCount => s.req_count as u128,
            Field::HitCount => s.hit_count as u128,
            Field::TimeNs => s.time_ns.get(),
            Field::RuUtimeNs => s.ru_utime_ns.get(),
            Field::RuStimeNs => s.ru_stime_ns.get(),
            Field::TrafficBytes => s.traffic_bytes.get(),
            Field::MemoryFootprintBytes => s.memory_footprint_bytes.get(),
            Field::MemoryPeakBytes => s.memory_peak_bytes.get(),
            Field::MemoryPeakMax => s.memory_peak_max as u128,
        }
    }
    pub(super) fn is_ns(self) -> bool {
        matches!(self, Field::TimeNs | Field::RuUtimeNs | Field::RuStimeNs)
    }
    /// The value in its column unit: seconds for times, plain counts and bytes otherwise.
    pub(super) fn scaled(self, raw: u128) -> f64 {
        if self.is_ns() {
            raw as f64 / 1e9
        } else {
            raw as f64
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum How {
    Total,
    PerSec,
    Percent,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct MetricColumn {
    pub(super) name: &'static str,
    pub(super) field: Field,
    pub(super) how: How,
}

pub(super) const fn m(name: &'static str, field: Field, how: How) -> MetricColumn {
    MetricColumn { name, field, how }
}

pub(super) const REQUEST_METRICS: &[MetricColumn] = &[
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
    m("memory_peak_total", Field::MemoryPeakBytes, How::Total),
    m("memory_peak_per_sec", Field::MemoryPeakBytes, How::PerSec),
    m("memory_peak_percent", Field::MemoryPeakBytes, How::Percent),
    m("memory_peak_max", Field::MemoryPeakMax, How::Total),
];

pub(super) const TIMER_METRICS: &[MetricColumn] = &[
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

pub(super) fn metric_columns(kind: Kind) -> &'static [MetricColumn] {
    match kind {
        Kind::Timer => TIMER_METRICS,
        _ => REQUEST_METRICS,
    }
}

pub(super) fn median_column(kind: Kind) -> &'static str {
    match kind {
        Kind::Timer => "timer_median",
        _ => "req_time_median",
    }
}

/// `p99.9` → 99.9.
pub(super) fn parse_percentile_column(name: &str) -> Option<f64> {
    let p: f64 = name.strip_prefix('p')?.parse().ok()?;
    (0.0..=100.0).contains(&p).then_some(p)
}

/// A column a query can name: shown, sorted by or filtered on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Column {
    Key(usize),
    Metric(MetricColumn),
    Percentile(f64),
}

impl PartialEq for MetricColumn {
    fn eq(&self, other: &MetricColumn) -> bool {
        self.name == other.name
    }
}

/// Column names of the keys: the short name (`script_name`, `country` for `tag:country`), or the
/// full key when a tag's short name would repeat another column's name.
pub(super) fn key_column_names(specs: &[KeySpec], kind: Kind) -> Vec<String> {
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

/// A key id as its column shows it, as a string: a status as its number, an absent schema as "".
pub(super) fn key_text_of(key: Key, id: u32, dict: &Dictionary) -> Cow<'_, str> {
    match key {
        Key::Status => Cow::Owned(id.to_string()),
        Key::Schema if id == NO_SCHEMA => Cow::Borrowed(""),
        _ => dict.text(id),
    }
}

/// A report's keys, to render row key ids as text without the report (see
/// [`Report::key_texts`]).
#[derive(Clone, Debug)]
pub struct KeyTexts(Vec<Key>);

impl KeyTexts {
    /// The key values of a row, as the report query shows them (status as its number, an absent
    /// schema as "").
    pub fn render(&self, ids: &[u32], dict: &Dictionary) -> Box<[String]> {
        self.0
            .iter()
            .zip(ids)
            .map(|(k, &id)| key_text_of(*k, id, dict).into_owned())
            .collect()
    }

    /// Calls `f` with each key value of a row, as [`KeyValue`]s, without allocating: the tick
    /// writer of a sink, row after row, which names each dictionary id once per tick.
    pub fn each(&self, ids: &[u32], mut f: impl FnMut(KeyValue<'_>)) {
        for (k, &id) in self.0.iter().zip(ids) {
            match k {
                Key::Status => f(KeyValue::Text(decimal(id, &mut [0; 10]))),
                Key::Schema if id == NO_SCHEMA => f(KeyValue::Text("")),
                _ => f(KeyValue::Interned(id)),
            }
        }
    }
}

/// A row's key value as [`KeyTexts::each`] gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyValue<'a> {
    /// A dictionary string, by id: it reads as [`Dictionary::text`] gives it.
    Interned(u32),
    /// Text of its own: a status's number, an absent schema's "".
    Text(&'a str),
}

/// `n` in decimal, written at the end of `buf`.
fn decimal(mut n: u32, buf: &mut [u8; 10]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[at..]).unwrap_or_default()
}

impl Report {
    /// How this report's key ids read as text, for readers that hold no lock on it (the history
    /// writer).
    pub fn key_texts(&self) -> KeyTexts {
        KeyTexts(self.keys.clone())
    }
}

/// A column of a report's sums that means something over any span: totals and rates, not
/// shares of the window (`*_percent`). What the history API shows besides percentiles.
#[derive(Clone, Copy, Debug)]
pub struct SumColumn(MetricColumn);

impl SumColumn {
    /// The column named `name` in a report of `kind`, if it is one.
    pub fn named(kind: Kind, name: &str) -> Option<SumColumn> {
        metric_columns(kind)
            .iter()
            .find(|mc| mc.name == name && mc.how != How::Percent)
            .map(|mc| SumColumn(*mc))
    }

    /// Every such column of a report of `kind` (for error messages).
    pub fn names(kind: Kind) -> Vec<&'static str> {
        metric_columns(kind)
            .iter()
            .filter(|mc| mc.how != How::Percent)
            .map(|mc| mc.name)
            .collect()
    }

    pub fn name(&self) -> &'static str {
        self.0.name
    }

    /// The value over `seconds` of data: a total (seconds for times) or a rate per second.
    pub fn value(&self, sums: &Sums, seconds: f64) -> Cell {
        let raw = self.0.field.of(sums);
        match self.0.how {
            How::Total if self.0.field.is_ns() => Cell::Float(self.0.field.scaled(raw)),
            How::Total => Cell::Int(raw),
            How::PerSec | How::Percent => Cell::Float(self.0.field.scaled(raw) / seconds),
        }
    }
}

/// The percentile a column names in a report of `kind`: `p<N>` or the median column.
pub fn percentile_of_column(kind: Kind, name: &str) -> Option<f64> {
    if name == median_column(kind) {
        return Some(50.0);
    }
    parse_percentile_column(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimal_writes_every_u32() {
        for n in [0, 7, 10, 404, 1_000_000, u32::MAX] {
            assert_eq!(super::decimal(n, &mut [0; 10]), n.to_string());
        }
    }
}
