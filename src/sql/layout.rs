//! The columns of a report's SQL table: their names, the MySQL type shown, and what each holds.
//!
//! In: a report's definition, its kind and its shown key column names (as `report::Report`
//! gives them). Out: [`SqlColumn`]s in table order, each with a [`Source`]: a key, a column of
//! the report's HTTP answer (`report::Report::query`'s `Table`) times a scale, pinba_engine's
//! `index_value` ([`index_value`]), the window's length, or nothing. Pure: no I/O, no locks; the
//! SQL front end calls it to describe a table and to fill its rows.
//!
//! pinba_engine and pinba2 fill a report table's columns by position, whatever their names, so:
//! - A report defined by `CREATE TABLE … ENGINE=PINBA COMMENT='…'` (`ReportDef::sql_table`) has
//!   the statement's column names in its order, each holding what pinba_engine (or pinba2, for a
//!   `v2/…` comment) puts at that position for the comment's table type; the comment's
//!   percentiles follow the fixed columns, one column each as listed, and pinba2's raw histogram
//!   column after them is empty here. Columns past those are empty (`NULL`), as both servers
//!   leave them; a statement with fewer columns shows only those.
//! - Other reports have pinba_engine's layouts, with pinba_engine's units: `info` and every
//!   other info report have the `info` table of pinba_engine's `default_tables.sql`; a request
//!   report has `report1`'s, the report's key columns standing where `report1` has
//!   `script_name` (for the 18 built-in `report_by_*` this is exactly their table in
//!   `default_tables.sql`); a timer report has the shape of `tagN_info` and `tagN_report` (the key
//!   columns first, in the report's order), with the report's own key column names. Each then
//!   ends with a `p<N>` column per percentile of the definition.
//!
//! Units are the server's: times in seconds for both; pinba_engine's sizes (`traffic_*`,
//! `kbytes_total`, `memory_footprint*`) in kilobytes (pinbad's bytes / 1024), pinba2's in bytes.
//! The `*_percent` columns are shares of the window's totals, as in both.
//!
//! Where pinbad differs: pinba_engine's `ru_stime_total` column of request reports holds the
//! mean per request (its code divides by `req_count`), here the total, as its name says and its
//! `info` table shows; pinba2's timer reports' `ru_utime_per_sec`, `ru_utime_percent`,
//! `ru_stime_per_sec`, `ru_stime_percent` and its packet report's `timer_count` have no HTTP
//! column in pinbad and stay empty.

use crate::config::import::{comment_table, TableKind, ENGINE_REPORTS};
use crate::report::{percentile_column, Kind, ReportDef};

/// The MySQL type a column shows (`DESCRIBE`, `information_schema.COLUMNS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlType {
    /// `int(11)`: counts, a status, `time_interval`.
    Int,
    /// `bigint(20)`: pinba2's byte and packet counts.
    BigInt,
    /// `float`: times, rates, shares, sizes in kilobytes, percentiles.
    Float,
    /// `varchar`: key values, `index_value`.
    Text,
}

impl SqlType {
    /// The type as `SHOW COLUMNS` writes it.
    pub fn mysql(self) -> &'static str {
        match self {
            SqlType::Int => "int(11)",
            SqlType::BigInt => "bigint(20)",
            SqlType::Float => "float",
            SqlType::Text => "varchar(255)",
        }
    }
}

/// What a column holds, for each row of the report's HTTP answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The report's key `i` (in its key order): text, a status as its number.
    Key(usize),
    /// The HTTP answer's column `name` (`req_count`, `traffic_total`, `timer_value`, `p90`, …)
    /// times `scale` (1/1024 for pinba_engine's kilobytes).
    Column { name: String, scale: f64 },
    /// pinba_engine's `index_value`: the row's keys as its report map indexed them (see
    /// [`index_value`]).
    IndexValue,
    /// The seconds the window covers (the answer's `time_interval`): `info`'s column.
    TimeInterval,
    /// A column pinbad has no value for: `NULL`.
    Null,
}

/// One column of a report's SQL table.
#[derive(Clone, Debug, PartialEq)]
pub struct SqlColumn {
    pub name: String,
    pub ty: SqlType,
    pub source: Source,
}

/// pinba_engine's sizes are kilobytes; pinbad's HTTP columns bytes.
const PER_KB: f64 = 1.0 / 1024.0;

/// A fixed column of a server's table: its name there, its type, and the HTTP column it reads
/// (`None`: pinbad has none) with the scale.
type Fixed = (&'static str, SqlType, Option<&'static str>, f64);

use SqlType::{BigInt, Float, Int, Text};

/// pinba_engine's request reports (`report1` … `report18`) before their key columns; in its
/// `rtag*` reports, after them.
const ENGINE_REQUEST_HEAD: &[Fixed] = &[
    ("req_count", Int, Some("req_count"), 1.0),
    ("req_per_sec", Float, Some("req_per_sec"), 1.0),
    ("req_time_total", Float, Some("req_time_total"), 1.0),
    ("req_time_percent", Float, Some("req_time_percent"), 1.0),
    ("req_time_per_sec", Float, Some("req_time_per_sec"), 1.0),
    ("ru_utime_total", Float, Some("ru_utime_total"), 1.0),
    ("ru_utime_percent", Float, Some("ru_utime_percent"), 1.0),
    ("ru_utime_per_sec", Float, Some("ru_utime_per_sec"), 1.0),
    ("ru_stime_total", Float, Some("ru_stime_total"), 1.0),
    ("ru_stime_percent", Float, Some("ru_stime_percent"), 1.0),
    ("ru_stime_per_sec", Float, Some("ru_stime_per_sec"), 1.0),
    ("traffic_total", Float, Some("traffic_total"), PER_KB),
    ("traffic_percent", Float, Some("traffic_percent"), 1.0),
    ("traffic_per_sec", Float, Some("traffic_per_sec"), PER_KB),
];

/// pinba_engine's request reports after their key columns, up to `index_value` (which
/// [`engine_tail`] adds).
const ENGINE_REQUEST_TAIL: &[Fixed] = &[
    (
        "memory_footprint_total",
        Float,
        Some("memory_footprint_total"),
        PER_KB,
    ),
    (
        "memory_footprint_percent",
        Float,
        Some("memory_footprint_percent"),
        1.0,
    ),
    ("req_time_median", Float, Some("req_time_median"), 1.0),
];

/// pinba_engine's timer tag reports after their tag columns, up to `timer_value`; the
/// `*_report2` types have `hostname` and `server_name` next.
const ENGINE_TIMER_HEAD: &[Fixed] = &[
    ("req_count", Int, Some("req_count"), 1.0),
    ("req_per_sec", Float, Some("req_per_sec"), 1.0),
    ("hit_count", Int, Some("hit_count"), 1.0),
    ("hit_per_sec", Float, Some("hit_per_sec"), 1.0),
    ("timer_value", Float, Some("timer_value"), 1.0),
];

/// pinba_engine's timer tag reports from `timer_median`, up to `index_value`.
const ENGINE_TIMER_TAIL: &[Fixed] = &[
    ("timer_median", Float, Some("timer_median"), 1.0),
    ("ru_utime_value", Float, Some("ru_utime_value"), 1.0),
    ("ru_stime_value", Float, Some("ru_stime_value"), 1.0),
];

/// pinba_engine's `info` before `time_interval`.
const ENGINE_INFO_HEAD: &[Fixed] = &[
    ("req_count", Int, Some("req_count"), 1.0),
    ("time_total", Float, Some("req_time_total"), 1.0),
    ("ru_utime_total", Float, Some("ru_utime_total"), 1.0),
    ("ru_stime_total", Float, Some("ru_stime_total"), 1.0),
];

/// pinba_engine's `info` after `time_interval`.
const ENGINE_INFO_TAIL: &[Fixed] = &[
    ("kbytes_total", Float, Some("traffic_total"), PER_KB),
    (
        "memory_footprint",
        Float,
        Some("memory_footprint_total"),
        PER_KB,
    ),
    ("req_time_median", Float, Some("req_time_median"), 1.0),
];

/// pinba2's request reports after their keys (its `scripts/default_reports.sql` names).
const PINBA2_REQUEST: &[Fixed] = &[
    ("req_count", Int, Some("req_count"), 1.0),
    ("req_per_sec", Float, Some("req_per_sec"), 1.0),
    ("req_percent", Float, Some("req_percent"), 1.0),
    ("req_time_total", Float, Some("req_time_total"), 1.0),
    ("req_time_per_sec", Float, Some("req_time_per_sec"), 1.0),
    ("req_time_percent", Float, Some("req_time_percent"), 1.0),
    ("ru_utime_total", Float, Some("ru_utime_total"), 1.0),
    ("ru_utime_per_sec", Float, Some("ru_utime_per_sec"), 1.0),
    ("ru_utime_percent", Float, Some("ru_utime_percent"), 1.0),
    ("ru_stime_total", Float, Some("ru_stime_total"), 1.0),
    ("ru_stime_per_sec", Float, Some("ru_stime_per_sec"), 1.0),
    ("ru_stime_percent", Float, Some("ru_stime_percent"), 1.0),
    ("traffic_total", BigInt, Some("traffic_total"), 1.0),
    ("traffic_per_sec", Float, Some("traffic_per_sec"), 1.0),
    ("traffic_percent", Float, Some("traffic_percent"), 1.0),
    (
        "memory_footprint",
        BigInt,
        Some("memory_footprint_total"),
        1.0,
    ),
    (
        "memory_per_sec",
        Float,
        Some("memory_footprint_per_sec"),
        1.0,
    ),
    (
        "memory_percent",
        Float,
        Some("memory_footprint_percent"),
        1.0,
    ),
];

/// pinba2's timer reports after their keys.
const PINBA2_TIMER: &[Fixed] = &[
    ("req_count", Int, Some("req_count"), 1.0),
    ("req_per_sec", Float, Some("req_per_sec"), 1.0),
    ("req_percent", Float, Some("req_percent"), 1.0),
    ("hit_count", Int, Some("hit_count"), 1.0),
    ("hit_per_sec", Float, Some("hit_per_sec"), 1.0),
    ("hit_percent", Float, Some("hit_percent"), 1.0),
    ("time_total", Float, Some("timer_value"), 1.0),
    ("time_per_sec", Float, Some("timer_value_per_sec"), 1.0),
    ("time_percent", Float, Some("timer_value_percent"), 1.0),
    ("ru_utime_total", Float, Some("ru_utime_value"), 1.0),
    ("ru_utime_per_sec", Float, None, 1.0),
    ("ru_utime_percent", Float, None, 1.0),
    ("ru_stime_total", Float, Some("ru_stime_value"), 1.0),
    ("ru_stime_per_sec", Float, None, 1.0),
    ("ru_stime_percent", Float, None, 1.0),
];

/// pinba2's packet (`info`) reports (its `scripts/default_tables/info.sql` names; its
/// `traffic_kb` holds bytes).
const PINBA2_PACKET: &[Fixed] = &[
    ("req_count", BigInt, Some("req_count"), 1.0),
    ("timer_count", BigInt, None, 1.0),
    ("time_total", Float, Some("req_time_total"), 1.0),
    ("ru_utime_total", Float, Some("ru_utime_total"), 1.0),
    ("ru_stime_total", Float, Some("ru_stime_total"), 1.0),
    ("traffic_kb", BigInt, Some("traffic_total"), 1.0),
    ("memory_usage", BigInt, Some("memory_footprint_total"), 1.0),
];

fn fixed(cols: &[Fixed]) -> impl Iterator<Item = SqlColumn> + '_ {
    cols.iter().map(|&(name, ty, column, scale)| SqlColumn {
        name: name.to_string(),
        ty,
        source: match column {
            Some(c) => Source::Column {
                name: c.to_string(),
                scale,
            },
            None => Source::Null,
        },
    })
}

fn null(name: &str, ty: SqlType) -> SqlColumn {
    SqlColumn {
        name: name.to_string(),
        ty,
        source: Source::Null,
    }
}

fn index_column() -> SqlColumn {
    SqlColumn {
        name: "index_value".to_string(),
        ty: Text,
        source: Source::IndexValue,
    }
}

fn percentile_columns(ps: &[f64]) -> impl Iterator<Item = SqlColumn> + '_ {
    ps.iter().map(|&p| {
        let name = percentile_column(p);
        SqlColumn {
            name: name.clone(),
            ty: Float,
            source: Source::Column { name, scale: 1.0 },
        }
    })
}

/// The report's keys, for naming and typing its key columns.
struct Keys<'a> {
    /// The definition's keys (`tag:country`), presets expanded.
    specs: Vec<String>,
    /// Their shown column names (`country`).
    shown: &'a [String],
}

impl Keys<'_> {
    fn of<'a>(def: &ReportDef, shown: &'a [String]) -> Keys<'a> {
        Keys {
            specs: def.resolved_keys().unwrap_or_default(),
            shown,
        }
    }

    fn len(&self) -> usize {
        self.specs.len()
    }

    /// Key `i`'s column; a key the report lacks (a comment naming more than the definition
    /// holds) is empty.
    fn column(&self, i: usize) -> SqlColumn {
        let Some(spec) = self.specs.get(i) else {
            return null("", Text);
        };
        SqlColumn {
            name: self.shown.get(i).unwrap_or(spec).clone(),
            ty: if spec == "status" { Int } else { Text },
            source: Source::Key(i),
        }
    }

    fn columns(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = SqlColumn> + '_ {
        range.map(|i| self.column(i))
    }
}

/// The columns of `def`'s SQL table; `kind` and `key_columns` as `report::Report` gives them.
/// See the module's doc for which layout a report gets.
pub fn layout(def: &ReportDef, kind: Kind, key_columns: &[String]) -> Vec<SqlColumn> {
    let keys = Keys::of(def, key_columns);
    let Some(table) = &def.sql_table else {
        return own_layout(def, kind, &keys);
    };
    let slots = match comment_table(&table.comment) {
        Some(ct) => server_layout(ct.kind, &ct.percentiles, &keys),
        None => own_layout(def, kind, &keys),
    };
    table
        .columns
        .iter()
        .enumerate()
        .map(|(i, name)| match slots.get(i) {
            Some(slot) => SqlColumn {
                name: name.clone(),
                ..slot.clone()
            },
            None => null(name, Text),
        })
        .collect()
}

/// The layout of a report pinbad defined (not by SQL): pinba_engine's for its kind.
fn own_layout(def: &ReportDef, kind: Kind, keys: &Keys) -> Vec<SqlColumn> {
    let n = keys.len();
    let mut cols: Vec<SqlColumn> = match kind {
        Kind::Info => engine_info().collect(),
        Kind::Request => fixed(ENGINE_REQUEST_HEAD)
            .chain(keys.columns(0..n))
            .chain(engine_tail(ENGINE_REQUEST_TAIL))
            .collect(),
        Kind::Timer => keys
            .columns(0..n)
            .chain(fixed(ENGINE_TIMER_HEAD))
            .chain(engine_tail(ENGINE_TIMER_TAIL))
            .collect(),
    };
    cols.extend(percentile_columns(&def.percentiles));
    // A tag named like a fixed column (`index_value`) shows its whole key instead, so no two
    // columns share a name.
    for i in 0..cols.len() {
        if let Source::Key(k) = cols[i].source {
            let name = &cols[i].name;
            if cols
                .iter()
                .enumerate()
                .any(|(j, c)| j != i && &c.name == name)
            {
                cols[i].name = keys.specs[k].clone();
            }
        }
    }
    cols
}

fn engine_info() -> impl Iterator<Item = SqlColumn> {
    fixed(ENGINE_INFO_HEAD)
        .chain(std::iter::once(SqlColumn {
            name: "time_interval".to_string(),
            ty: Int,
            source: Source::TimeInterval,
        }))
        .chain(fixed(ENGINE_INFO_TAIL))
}

fn engine_tail(cols: &'static [Fixed]) -> impl Iterator<Item = SqlColumn> {
    fixed(cols).chain(std::iter::once(index_column()))
}

/// What pinba_engine or pinba2 puts in each column of a table of this kind, up to the columns it
/// leaves empty.
fn server_layout(kind: TableKind, percentiles: &[f64], keys: &Keys) -> Vec<SqlColumn> {
    let n = keys.len();
    let mut cols: Vec<SqlColumn> = match kind {
        TableKind::EngineInfo => engine_info().collect(),
        TableKind::EngineReport(_) => fixed(ENGINE_REQUEST_HEAD)
            .chain(keys.columns(0..n))
            .chain(engine_tail(ENGINE_REQUEST_TAIL))
            .collect(),
        // hostname first in rtag*_report, as in the report's keys.
        TableKind::EngineTag(t) if t.starts_with("rtag") => keys
            .columns(0..n)
            .chain(fixed(ENGINE_REQUEST_HEAD))
            .chain(engine_tail(ENGINE_REQUEST_TAIL))
            .collect(),
        // script_name, the tags, …, timer_value, hostname, server_name, timer_median, …; the
        // report's keys are script_name, hostname, server_name, the tags.
        TableKind::EngineTag(t) if t.ends_with("_report2") => keys
            .columns(0..1)
            .chain(keys.columns(3..n.max(3)))
            .chain(fixed(ENGINE_TIMER_HEAD))
            .chain(keys.columns(1..3))
            .chain(engine_tail(ENGINE_TIMER_TAIL))
            .collect(),
        TableKind::EngineTag(_) => keys
            .columns(0..n)
            .chain(fixed(ENGINE_TIMER_HEAD))
            .chain(engine_tail(ENGINE_TIMER_TAIL))
            .collect(),
        TableKind::Pinba2Request => keys.columns(0..n).chain(fixed(PINBA2_REQUEST)).collect(),
        TableKind::Pinba2Timer => keys.columns(0..n).chain(fixed(PINBA2_TIMER)).collect(),
        TableKind::Pinba2Packet => fixed(PINBA2_PACKET).collect(),
    };
    cols.extend(percentile_columns(percentiles));
    if matches!(
        kind,
        TableKind::Pinba2Request | TableKind::Pinba2Timer | TableKind::Pinba2Packet
    ) {
        // pinba2's raw histogram ("hv=…;values=[…]"), which pinbad does not render.
        cols.push(null("histogram", Text));
    }
    cols
}

/// The percentiles a query for `def`'s SQL table asks for (`report::Query::percentiles`), each
/// once: its comment's for a table defined by SQL (a built-in's table may list others than the
/// built-in's), else the definition's.
pub fn query_percentiles(def: &ReportDef) -> Vec<f64> {
    let listed = def
        .sql_table
        .as_ref()
        .and_then(|t| comment_table(&t.comment))
        .map(|ct| ct.percentiles)
        .unwrap_or_else(|| def.percentiles.clone());
    let mut out: Vec<f64> = Vec::with_capacity(listed.len());
    for p in listed {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// pinba_engine's `index_value` for a row of `def`'s table whose key values are `keys` (in
/// the report's key order, as the HTTP answer shows them: a status as its number, an absent
/// schema as ""). pinba_engine shows there the key its report map was indexed by:
/// - `report1` … `report18` (and pinbad's `report_by_*`, whatever their other keys): the key
///   values in its own order with its own separators, e.g. `report4` `server/script`,
///   `report7` `host:server/script`, `report10` `200example.com` (none), `report18`
///   `200:schema/host`;
/// - `tag_info`, `tag2_*`, `tag_report*`: the values joined by `|` (`script|host|server|tag` for
///   `tag_report2`); the `N` types end each value with `|` (`group|server|`);
/// - `rtag*_report`: the tag values only, without the hostname.
///
/// Reports pinba_engine could not define get the `|` join of their key values: a timer report
/// ends each value with `|` (the `tagN_*` form), another report joins them with `|`.
pub fn index_value(def: &ReportDef, keys: &[&str]) -> String {
    let specs = def.resolved_keys().unwrap_or_default();
    let comment = def
        .sql_table
        .as_ref()
        .and_then(|t| comment_table(&t.comment));
    let engine_report = match comment.as_ref().map(|ct| ct.kind) {
        Some(TableKind::EngineReport(n)) => Some(n),
        Some(_) => None,
        None => ENGINE_REPORTS
            .iter()
            .position(|ks| specs.len() == ks.len() && specs.iter().zip(*ks).all(|(a, b)| a == b))
            .map(|i| i + 1),
    };
    if let Some(n) = engine_report {
        let value = |name: &str| {
            specs
                .iter()
                .position(|s| s == name)
                .and_then(|i| keys.get(i))
                .copied()
                .unwrap_or("")
        };
        return engine_report_index(n)
            .iter()
            .map(|(sep, name)| format!("{sep}{}", value(name)))
            .collect();
    }
    let (skip, each) = match comment.map(|ct| ct.kind) {
        Some(TableKind::EngineTag(t)) => (
            usize::from(t.starts_with("rtag") && t.contains("_report")),
            t.contains('N'),
        ),
        _ => (0, def.kind() == Kind::Timer),
    };
    let values = keys.get(skip..).unwrap_or_default();
    if each {
        values.iter().map(|v| format!("{v}|")).collect()
    } else {
        values.join("|")
    }
}

/// How pinba_engine's `reportN` indexes its rows: each key field with the separator before it.
fn engine_report_index(n: usize) -> &'static [(&'static str, &'static str)] {
    const H: &str = "hostname";
    const V: &str = "server_name";
    const S: &str = "script_name";
    const T: &str = "status";
    const C: &str = "schema";
    match n {
        1 => &[("", S)],
        2 => &[("", V)],
        3 => &[("", H)],
        4 => &[("", V), ("/", S)],
        5 => &[("", H), ("/", S)],
        6 => &[("", H), ("/", V)],
        7 => &[("", H), (":", V), ("/", S)],
        8 => &[("", T)],
        9 => &[("", T), (":", S)],
        10 => &[("", T), ("", V)],
        11 => &[("", T), ("", H)],
        12 => &[("", T), ("", H), ("/", S)],
        13 => &[("", C)],
        14 => &[("", C), (":", S)],
        15 => &[("", C), (":", V)],
        16 => &[("", C), (":", H)],
        17 => &[("", C), ("/", H), ("/", S)],
        _ => &[("", T), (":", C), ("/", H)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::import::{import, Outcome};
    use crate::report::builtin_defs;

    /// A report defined by SQL as the DDL path defines it: the converter's definition (or the
    /// built-in's, for a table a built-in covers) with the table attached.
    fn ddl(columns: &[&str], comment: &str) -> ReportDef {
        let cols: Vec<String> = columns.iter().map(|c| format!("`{c}` float")).collect();
        let sql = format!(
            "CREATE TABLE `t` ({}, KEY `k` (`{}`)) ENGINE=PINBA COMMENT='{}';",
            cols.join(", "),
            columns[0],
            comment.replace('\'', "''")
        );
        let imp = import(&sql);
        let c = &imp.tables[0];
        let mut def = match &c.outcome {
            Outcome::Report(d) => d.clone(),
            Outcome::Builtin(name) => builtin_defs()
                .into_iter()
                .find(|b| &b.name == name)
                .unwrap(),
            Outcome::NotConverted(why) => panic!("{comment}: {why}"),
        };
        def.sql_table = c.sql_table.clone();
        assert_eq!(def.sql_table.as_ref().unwrap().columns, columns);
        def
    }

    /// A table of `n` columns `c0` … named by SQL.
    fn ddl_n(n: usize, comment: &str) -> ReportDef {
        let names: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        ddl(&names, comment)
    }

    /// The key column names `report::Report` shows when no tag clashes: the short ones.
    fn shown(def: &ReportDef) -> Vec<String> {
        def.resolved_keys()
            .unwrap()
            .iter()
            .map(|k| {
                k.strip_prefix("timer_tag:")
                    .or(k.strip_prefix("tag:"))
                    .unwrap_or(k)
                    .to_string()
            })
            .collect()
    }

    fn of(def: &ReportDef) -> Vec<SqlColumn> {
        layout(def, def.kind(), &shown(def))
    }

    /// The sources, short: `k0` (key 0), `req_count`, `traffic_total/1024`, `index`
    /// (index_value), `interval` (time_interval), `-` (NULL).
    fn sources(cols: &[SqlColumn]) -> String {
        let one = |c: &SqlColumn| match &c.source {
            Source::Key(i) => format!("k{i}"),
            Source::Column { name, scale } if *scale == 1.0 => name.clone(),
            Source::Column { name, scale } if *scale == PER_KB => format!("{name}/1024"),
            Source::Column { name, scale } => format!("{name}*{scale}"),
            Source::IndexValue => "index".into(),
            Source::TimeInterval => "interval".into(),
            Source::Null => "-".into(),
        };
        cols.iter().map(one).collect::<Vec<_>>().join(" ")
    }

    /// The types, a letter each: `i`nt, `b`igint, `f`loat, `t`ext.
    fn types(cols: &[SqlColumn]) -> String {
        cols.iter()
            .map(|c| match c.ty {
                SqlType::Int => 'i',
                SqlType::BigInt => 'b',
                SqlType::Float => 'f',
                SqlType::Text => 't',
            })
            .collect()
    }

    fn names(cols: &[SqlColumn]) -> Vec<&str> {
        cols.iter().map(|c| c.name.as_str()).collect()
    }

    /// pinba_engine's request report column names before the keys (report1 … report18, from its
    /// default_tables.sql), and after.
    const REPORT_HEAD: &[&str] = &[
        "req_count",
        "req_per_sec",
        "req_time_total",
        "req_time_percent",
        "req_time_per_sec",
        "ru_utime_total",
        "ru_utime_percent",
        "ru_utime_per_sec",
        "ru_stime_total",
        "ru_stime_percent",
        "ru_stime_per_sec",
        "traffic_total",
        "traffic_percent",
        "traffic_per_sec",
    ];
    const REPORT_TAIL: &[&str] = &[
        "memory_footprint_total",
        "memory_footprint_percent",
        "req_time_median",
        "index_value",
    ];

    /// pinba_engine's request report columns before the keys (report1 … report18), and after.
    const HEAD: &str = "req_count req_per_sec req_time_total req_time_percent req_time_per_sec \
                        ru_utime_total ru_utime_percent ru_utime_per_sec ru_stime_total \
                        ru_stime_percent ru_stime_per_sec traffic_total/1024 traffic_percent \
                        traffic_per_sec/1024";
    const HEAD_TYPES: &str = "ifffffffffffff";
    const TAIL: &str = "memory_footprint_total/1024 memory_footprint_percent req_time_median index";
    const TAIL_TYPES: &str = "ffft";
    /// pinba_engine's timer tag report columns after the tags (up to timer_value), and from
    /// timer_median.
    const THEAD: &str = "req_count req_per_sec hit_count hit_per_sec timer_value";
    const THEAD_TYPES: &str = "ififf";
    const TTAIL: &str = "timer_median ru_utime_value ru_stime_value index";
    const TTAIL_TYPES: &str = "ffft";

    /// The 18 built-in `report_by_*` and `info` are pinba_engine's default tables (facts from its
    /// default_tables.sql: names in order), with the definition's percentiles after them.
    #[test]
    fn builtins_have_pinba_engine_default_tables() {
        let builtins = builtin_defs();
        let by_script = &builtins[1];
        let cols = of(by_script);
        let want: Vec<&str> = REPORT_HEAD
            .iter()
            .chain(&["script_name"])
            .chain(REPORT_TAIL)
            .chain(&["p90", "p95", "p99"])
            .copied()
            .collect();
        assert_eq!(names(&cols), want);
        assert_eq!(sources(&cols), format!("{HEAD} k0 {TAIL} p90 p95 p99"));
        assert_eq!(types(&cols), format!("{HEAD_TYPES}t{TAIL_TYPES}fff"));
        assert_eq!(cols[0].ty.mysql(), "int(11)");

        // Every report_by_*: its key columns where report1 has script_name, a status an int.
        for def in &builtins[1..] {
            let cols = of(def);
            let keys = def.keys.len();
            let key_sources: Vec<String> = (0..keys).map(|i| format!("k{i}")).collect();
            assert_eq!(
                sources(&cols),
                format!("{HEAD} {} {TAIL} p90 p95 p99", key_sources.join(" ")),
                "{}",
                def.name
            );
            assert_eq!(names(&cols)[14..14 + keys], def.keys[..], "{}", def.name);
            for (i, k) in def.keys.iter().enumerate() {
                let want = if k == "status" {
                    SqlType::Int
                } else {
                    SqlType::Text
                };
                assert_eq!(cols[14 + i].ty, want, "{} {k}", def.name);
            }
        }

        let info = of(&builtins[0]);
        assert_eq!(
            names(&info),
            [
                "req_count",
                "time_total",
                "ru_utime_total",
                "ru_stime_total",
                "time_interval",
                "kbytes_total",
                "memory_footprint",
                "req_time_median",
                "p90",
                "p95",
                "p99"
            ]
        );
        assert_eq!(
            sources(&info),
            "req_count req_time_total ru_utime_total ru_stime_total interval \
             traffic_total/1024 memory_footprint_total/1024 req_time_median p90 p95 p99"
        );
        assert_eq!(types(&info), "ifffiffffff");
    }

    /// Reports pinbad defined otherwise: a request report has report1's layout with its own
    /// key columns, a timer report tagN_info's shape with its own names, both with the
    /// definition's percentiles; a tag named like a fixed column shows its whole key.
    #[test]
    fn other_reports_take_pinba_engine_shapes_with_their_own_keys() {
        let mut def = ReportDef::new("by_country", &["script_name", "tag:country"]);
        def.percentiles = vec![50.0, 99.9];
        let cols = of(&def);
        assert_eq!(sources(&cols), format!("{HEAD} k0 k1 {TAIL} p50 p99.9"));
        assert_eq!(names(&cols)[14..16], ["script_name", "country"]);
        assert_eq!(names(&cols)[20..], ["p50", "p99.9"]);

        let def = ReportDef::new("groups", &["timer_tag:group", "server_name"]);
        let cols = of(&def);
        assert_eq!(sources(&cols), format!("k0 k1 {THEAD} {TTAIL} p90 p95 p99"));
        assert_eq!(types(&cols), format!("tt{THEAD_TYPES}{TTAIL_TYPES}fff"));
        assert_eq!(names(&cols)[..2], ["group", "server_name"]);
        assert_eq!(names(&cols)[7], "timer_median");

        let def = ReportDef::new("odd", &["tag:index_value"]);
        let cols = of(&def);
        assert_eq!(cols[14].name, "tag:index_value");
        assert_eq!(cols[18].name, "index_value");

        let def = ReportDef::new("everything", &[]);
        assert_eq!(names(&of(&def))[4], "time_interval");
    }

    /// pinba_engine's `reportN` and `info` tables made by SQL (Pinboard's migrations make
    /// `report2:::90,95,99`, `report3:::…`, `report6:::…` tables with p90, p95, p99 columns):
    /// the statement's names, pinba_engine's values at each position.
    #[test]
    fn pinba_engine_report_and_info_tables_by_sql() {
        let pinboard: Vec<&str> = REPORT_HEAD
            .iter()
            .chain(&["hostname", "server_name"])
            .chain(REPORT_TAIL)
            .chain(&["p90", "p95", "p99"])
            .copied()
            .collect();
        let def = ddl(&pinboard, "report6:::90,95,99");
        assert_eq!(def.name, "report_by_hostname_and_server");
        let cols = of(&def);
        assert_eq!(names(&cols), pinboard);
        assert_eq!(sources(&cols), format!("{HEAD} k0 k1 {TAIL} p90 p95 p99"));
        assert_eq!(types(&cols), format!("{HEAD_TYPES}tt{TAIL_TYPES}fff"));
        assert_eq!(query_percentiles(&def), [90.0, 95.0, 99.0]);

        // report12: hostname, script_name, status; conditions make a report of its own.
        let def = ddl_n(23, "report12::min_time=0.5:75");
        let cols = of(&def);
        assert_eq!(sources(&cols), format!("{HEAD} k0 k1 k2 {TAIL} p75 -"));
        assert_eq!(cols[16].ty, SqlType::Int, "status");
        assert_eq!(cols[22].ty, SqlType::Text);
        assert_eq!(names(&cols)[22], "c22");

        let def = ddl_n(10, "info:::50,99");
        let cols = of(&def);
        assert_eq!(
            sources(&cols),
            "req_count req_time_total ru_utime_total ru_stime_total interval \
             traffic_total/1024 memory_footprint_total/1024 req_time_median p50 p99"
        );
        assert_eq!(types(&cols), "ifffifffff");
        // Without percentiles in the comment, pinba_engine fills no percentile column.
        let def = ddl_n(19, "report1");
        assert_eq!(sources(&of(&def)), format!("{HEAD} k0 {TAIL}"));
        let def = ddl_n(20, "report1");
        assert_eq!(sources(&of(&def)), format!("{HEAD} k0 {TAIL} -"));
    }

    /// Every pinba_engine timer tag report type: its tag columns, its metrics, and where
    /// `*_report2` puts hostname and server_name (after timer_value).
    #[test]
    fn pinba_engine_timer_tag_tables_by_sql() {
        for (comment, n, want) in [
            ("tag_info:group::90", 11, format!("k0 {THEAD} {TTAIL} p90")),
            (
                "tag2_info:group,server",
                11,
                format!("k0 k1 {THEAD} {TTAIL}"),
            ),
            (
                "tagN_info:a,b,c::50",
                13,
                format!("k0 k1 k2 {THEAD} {TTAIL} p50"),
            ),
            ("tag_report:group", 11, format!("k0 k1 {THEAD} {TTAIL}")),
            (
                "tag2_report:group,op::95",
                13,
                format!("k0 k1 k2 {THEAD} {TTAIL} p95"),
            ),
            (
                "tagN_report:a,b,c",
                13,
                format!("k0 k1 k2 k3 {THEAD} {TTAIL}"),
            ),
            (
                "tag_report2:group",
                13,
                format!("k0 k3 {THEAD} k1 k2 {TTAIL}"),
            ),
            (
                "tag2_report2:group,op::90,99",
                16,
                format!("k0 k3 k4 {THEAD} k1 k2 {TTAIL} p90 p99"),
            ),
            (
                "tagN_report2:a,b,c",
                15,
                format!("k0 k3 k4 k5 {THEAD} k1 k2 {TTAIL}"),
            ),
        ] {
            let def = ddl_n(n, comment);
            assert_eq!(def.kind(), Kind::Timer, "{comment}");
            let cols = of(&def);
            assert_eq!(sources(&cols), want, "{comment}");
            assert_eq!(cols.len(), n);
            assert!(names(&cols)
                .iter()
                .enumerate()
                .all(|(i, c)| *c == format!("c{i}")));
        }
        let cols = of(&ddl_n(13, "tag_report2:group"));
        assert_eq!(
            types(&cols),
            format!("tt{THEAD_TYPES}tt{TTAIL_TYPES}"),
            "keys are text"
        );
    }

    /// Pinboard's tables (its migrations, as text: `tagN_info:group,__server_name::90,95,99`
    /// with tag1_value, tag2_value): `__server_name` keys by the request's server_name, in its
    /// position.
    #[test]
    fn pinboard_tag_tables_by_sql() {
        let columns = [
            "tag1_value",
            "tag2_value",
            "tag3_value",
            "req_count",
            "req_per_sec",
            "hit_count",
            "hit_per_sec",
            "timer_value",
            "timer_median",
            "ru_utime_value",
            "ru_stime_value",
            "index_value",
            "p90",
            "p95",
            "p99",
        ];
        let def = ddl(
            &columns,
            "tagN_info:group,__server_name,__hostname::90,95,99",
        );
        assert_eq!(def.keys, ["timer_tag:group", "server_name", "hostname"]);
        let cols = of(&def);
        assert_eq!(names(&cols), columns);
        assert_eq!(
            sources(&cols),
            format!("k0 k1 k2 {THEAD} {TTAIL} p90 p95 p99")
        );
        assert_eq!(
            index_value(&def, &["db::select", "www.example.com", "web1"]),
            "db::select|www.example.com|web1|"
        );
    }

    /// pinba_engine's request tag reports: the tags (after hostname in `rtag*_report`) first,
    /// then report1's metrics.
    #[test]
    fn pinba_engine_request_tag_tables_by_sql() {
        for (comment, n, want) in [
            ("rtag_info:country", 19, format!("k0 {HEAD} {TAIL}")),
            ("rtag2_info:country,app", 20, format!("k0 k1 {HEAD} {TAIL}")),
            (
                "rtagN_info:a,b,c::99",
                22,
                format!("k0 k1 k2 {HEAD} {TAIL} p99"),
            ),
            ("rtag_report:country", 20, format!("k0 k1 {HEAD} {TAIL}")),
            (
                "rtag2_report:country,app",
                21,
                format!("k0 k1 k2 {HEAD} {TAIL}"),
            ),
            (
                "rtagN_report:a,b,c",
                22,
                format!("k0 k1 k2 k3 {HEAD} {TAIL}"),
            ),
        ] {
            let def = ddl_n(n, comment);
            assert_eq!(def.kind(), Kind::Request, "{comment}");
            assert_eq!(sources(&of(&def)), want, "{comment}");
        }
        let cols = of(&ddl_n(20, "rtag_report:country"));
        assert_eq!(types(&cols), format!("tt{HEAD_TYPES}{TAIL_TYPES}"));
    }

    /// pinba2's tables (facts from its scripts/default_reports.sql and default_tables/info.sql,
    /// and handler.cpp's field order): keys first, 18 request, 15 timer or 7 packet fields in
    /// bytes and seconds, the listed percentiles (repeats kept), its raw histogram (empty here).
    #[test]
    fn pinba2_tables_by_sql() {
        let by_host = [
            "host",
            "req_count",
            "req_per_sec",
            "req_percent",
            "req_time_total",
            "req_time_per_sec",
            "req_time_percent",
            "ru_utime_total",
            "ru_utime_per_sec",
            "ru_utime_percent",
            "ru_stime_total",
            "ru_stime_per_sec",
            "ru_stime_percent",
            "traffic_total",
            "traffic_per_sec",
            "traffic_percent",
            "memory_footprint",
            "memory_per_sec",
            "memory_percent",
        ];
        let def = ddl(
            &by_host,
            "v2/request/default_history_time/~host/no_percentiles/no_filters",
        );
        // pinba2's table itself, not the built-in of its keys (pinba2's window and columns).
        assert_eq!(def.name, "t");
        let cols = of(&def);
        assert_eq!(names(&cols), by_host);
        assert_eq!(
            sources(&cols),
            "k0 req_count req_per_sec req_percent req_time_total req_time_per_sec \
             req_time_percent ru_utime_total ru_utime_per_sec ru_utime_percent ru_stime_total \
             ru_stime_per_sec ru_stime_percent traffic_total traffic_per_sec traffic_percent \
             memory_footprint_total memory_footprint_per_sec memory_footprint_percent"
        );
        assert_eq!(types(&cols), "tifffffffffffbffbff");
        assert_eq!(query_percentiles(&def), Vec::<f64>::new());

        let def = ddl_n(
            22,
            "v2/timer/60/@group,~script/hv=0:1000:1000,p50,p50,p95/no_filters",
        );
        assert_eq!(def.percentiles, [50.0, 95.0]);
        let cols = of(&def);
        assert_eq!(
            sources(&cols),
            "k0 k1 req_count req_per_sec req_percent hit_count hit_per_sec hit_percent \
             timer_value timer_value_per_sec timer_value_percent ru_utime_value - - \
             ru_stime_value - - p50 p50 p95 - -"
        );
        assert_eq!(types(&cols), "ttiffifffffffffffffftt");
        assert_eq!(query_percentiles(&def), [50.0, 95.0]);

        let info = [
            "req_count",
            "timer_count",
            "time_total",
            "ru_utime_total",
            "ru_stime_total",
            "traffic_kb",
            "memory_usage",
        ];
        let def = ddl(
            &info,
            "v2/packet/default_history_time/no_keys/no_percentiles/no_filters",
        );
        assert_eq!(def.name, "t");
        let cols = of(&def);
        assert_eq!(
            sources(&cols),
            "req_count - req_time_total ru_utime_total ru_stime_total traffic_total \
             memory_footprint_total"
        );
        assert_eq!(types(&cols), "bbfffbb");

        // convert_mysqldump.php's tables predate pinba2's *_percent columns (11 data columns
        // after the keys): pinba2 fills them by position all the same, and so does pinbad.
        let def = ddl(
            &[
                "script_name",
                "req_count",
                "req_per_sec",
                "req_time_total",
                "req_time_per_sec",
            ],
            "v2/request/default_history_time/~script/hv=0:60000:32768,p50/no_filters",
        );
        let cols = of(&def);
        assert_eq!(cols[3].name, "req_time_total");
        assert_eq!(
            cols[3].source,
            Source::Column {
                name: "req_percent".into(),
                scale: 1.0
            }
        );
    }

    /// A statement with fewer columns than the type fills shows those; with more, the rest are
    /// empty.
    #[test]
    fn fewer_or_more_columns_than_the_type_fills() {
        let cols = of(&ddl_n(3, "report1"));
        assert_eq!(sources(&cols), "req_count req_per_sec req_time_total");
        assert_eq!(names(&cols), ["c0", "c1", "c2"]);
        let cols = of(&ddl_n(1, "tag_info:group"));
        assert_eq!(sources(&cols), "k0");
        let cols = of(&ddl_n(14, "tag_info:group::90,99"));
        assert_eq!(sources(&cols), format!("k0 {THEAD} {TTAIL} p90 p99 - -"));
        assert_eq!(&types(&cols)[10..], "fftt");
        let cols = of(&ddl_n(
            4,
            "v2/packet/60/no_keys/hv=0:100:100,p99/no_filters",
        ));
        assert_eq!(sources(&cols), "req_count - req_time_total ru_utime_total");
    }

    #[test]
    fn index_value_is_pinba_engine_s_report_index() {
        let b = |name: &str| builtin_defs().into_iter().find(|d| d.name == name).unwrap();
        for (report, keys, want) in [
            ("report_by_script_name", &["/a.php"][..], "/a.php"),
            (
                "report_by_server_and_script",
                &["ex.com", "/a"],
                "ex.com//a",
            ),
            (
                "report_by_hostname_and_server",
                &["h", "ex.com"],
                "h/ex.com",
            ),
            (
                "report_by_hostname_server_and_script",
                &["h", "ex.com", "/a"],
                "h:ex.com//a",
            ),
            ("report_by_status", &["404"], "404"),
            ("report_by_script_and_status", &["/a", "200"], "200:/a"),
            (
                "report_by_server_and_status",
                &["ex.com", "200"],
                "200ex.com",
            ),
            (
                "report_by_hostname_script_and_status",
                &["h", "/a", "200"],
                "200h//a",
            ),
            ("report_by_script_and_schema", &["/a", "https"], "https:/a"),
            (
                "report_by_hostname_script_and_schema",
                &["h", "/a", "https"],
                "https/h//a",
            ),
            (
                "report_by_hostname_status_and_schema",
                &["h", "200", "https"],
                "200:https/h",
            ),
        ] {
            assert_eq!(index_value(&b(report), keys), want, "{report}");
        }
        for (comment, n, keys, want) in [
            ("tag_info:group", 10, &["db"][..], "db"),
            ("tag2_info:group,op", 11, &["db", "select"], "db|select"),
            (
                "tag_report2:group",
                13,
                &["/a", "h", "s", "db"],
                "/a|h|s|db",
            ),
            (
                "tagN_report2:group,op",
                14,
                &["/a", "h", "s", "db", "select"],
                "/a|h|s|db|select|",
            ),
            ("tagN_report:group", 11, &["/a", "db"], "/a|db|"),
            ("rtag_report:country", 20, &["h", "nl"], "nl"),
            ("rtagN_report:a,b", 21, &["h", "nl", "x"], "nl|x|"),
            ("rtag2_info:a,b", 20, &["nl", "x"], "nl|x"),
            ("report4::min_time=1", 20, &["ex.com", "/a"], "ex.com//a"),
        ] {
            assert_eq!(index_value(&ddl_n(n, comment), keys), want, "{comment}");
        }
        let timers = ReportDef::new("t", &["timer_tag:group", "server_name"]);
        assert_eq!(index_value(&timers, &["db", "ex.com"]), "db|ex.com|");
        let requests = ReportDef::new("r", &["script_name", "tag:country"]);
        assert_eq!(index_value(&requests, &["/a", "nl"]), "/a|nl");
    }
}
