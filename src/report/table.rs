//! A query's answer: a [`Table`] of [`Cell`]s, rendered as the API's JSON or as CSV.
//!
//! In: the rows and totals a query rendered (`query`). Out: JSON (through `Serialize`, every
//! integer whole) and CSV ([`Table::to_csv`]), written by the API's threads. Holds no ids: every
//! key is already text.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::def::Kind;

/// One value in a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// An absent schema, or a percentile of an empty histogram.
    Null,
    /// Counts, bytes and statuses: 128 bits wide, as a sum of bytes may pass 64 (see
    /// [`Sums`](super::Sums)).
    Int(u128),
    Float(f64),
    Text(String),
}

impl Cell {
    /// As CSV shows it (and as `match=` sees it).
    pub fn render(&self, out: &mut String) {
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
            Cell::Int(i) => s.serialize_u128(*i),
            Cell::Float(f) => s.serialize_f64(*f),
            Cell::Text(t) => s.serialize_str(t),
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
    /// The report's window and tick, in seconds.
    pub history: f64,
    pub tick: f64,
    /// Unix time (seconds) from which the report holds every request of its window; set by the
    /// caller, who knows the clock.
    pub complete_from: Option<f64>,
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
            csv_row(&mut out, row, &mut cell);
        }
        out
    }

    /// The totals as a JSON object, for tests that compare them (the API writes a table through
    /// its `Serialize`, which prints every integer whole; a `serde_json::Value` holds none past
    /// `u64::MAX`).
    #[cfg(test)]
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

/// One row as a CSV line (CRLF-ended) appended to `out`; `cell` is scratch for each rendering.
pub fn csv_row(out: &mut String, row: &[Cell], cell: &mut String) {
    for (i, c) in row.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        cell.clear();
        c.render(cell);
        csv_field(out, cell);
    }
    out.push_str("\r\n");
}

pub fn csv_field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Serialises `names[i] → cells[i]` as one JSON object, in column order.
pub(super) struct Object<'a> {
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

pub(super) struct Rows<'a>(&'a Table);

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
        let mut map = s.serialize_map(Some(10))?;
        map.serialize_entry("report", &self.report)?;
        map.serialize_entry("kind", &self.kind)?;
        map.serialize_entry("keys", &self.keys)?;
        map.serialize_entry("time_interval", &self.time_interval)?;
        map.serialize_entry("history", &self.history)?;
        map.serialize_entry("tick", &self.tick)?;
        map.serialize_entry("complete_from", &self.complete_from)?;
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
