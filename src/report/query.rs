//! Queries: a report's rows filtered, sorted and cut, rendered as a [`Table`].
//!
//! In: a [`Query`] from the API and a report under its read lock, with the dictionary to render
//! key ids as text. Out: a [`Table`], or a [`ReportError`] naming the bad parameter or column.
//! Runs on the API's thread; never changes the report (its histogram log is read, not applied:
//! see `hist_log`).

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::dictionary::Dictionary;
use crate::histogram::Histogram;
use crate::record::NO_SCHEMA;

use super::columns::{
    key_text_of, median_column, metric_columns, parse_percentile_column, Column, How, MetricColumn,
};
use super::def::{percentile_column, validate_percentiles, Kind};
use super::error::{err, ReportError};
use super::hist_log::PendingHists;
use super::keys::Key;
use super::live::Report;
use super::sums::Sums;
use super::table::{Cell, Table};
use super::view::{is_other, RowRef, View};

/// What the key columns of the "(other)" row show (see [`Report`]).
pub const OTHER_TEXT: &str = "(other)";

/// Rows a query returns when it does not say.
pub const DEFAULT_QUERY_LIMIT: usize = 100;

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
    /// Whether to show [`LAST_TICK_RATE_COLUMN`] beside `req_per_sec`: the API's answers do, so
    /// that a burst shows within a tick beside the window's average; SQL's tables keep the
    /// columns of their layouts.
    pub last_tick: bool,
}

/// The requests per second of the last closed tick alone (the tick before the open one), shown
/// beside `req_per_sec`, the window's average: during a burst the average moves by a tick's
/// share of the window, this by the burst itself. Named so that nobody takes one for the other.
pub const LAST_TICK_RATE_COLUMN: &str = "req_per_sec_last_tick";

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
            last_tick: false,
        }
    }
}

/// A `filter=` or `match=` resolved against the columns.
pub(super) enum RowTest {
    /// Key column equals this shown string.
    KeyEq(usize, String),
    /// Numeric column equals this number.
    NumEq(Column, f64),
    /// The shown string matches.
    Matches(Column, regex::Regex),
}

/// A row while a query runs.
type Item<'a> = (&'a [u32], RowRef<'a>);

/// Counts the items and keeps the first `want` of them in `cmp` order (a total order), sorted.
///
/// Items are buffered up to twice `want`; when the buffer fills, a partial selection keeps the
/// best `want`, and the worst of those becomes a threshold that rejects most later items with one
/// comparison. So a top-100 of 100k rows costs about one comparison per row and a few small
/// selections, in O(want) memory.
pub(super) fn top_of<T: Clone>(
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

    /// The shown string of key `i` of a row's `key` ("(other)" in the "(other)" row).
    fn key_text<'d>(&self, i: usize, key: &[u32], dict: &'d Dictionary) -> Cow<'d, str> {
        if is_other(key) {
            return Cow::Borrowed(OTHER_TEXT);
        }
        key_text_of(self.keys[i], key[i], dict)
    }

    fn key_cell(&self, i: usize, key: &[u32], dict: &Dictionary) -> Cell {
        if is_other(key) {
            return Cell::Text(OTHER_TEXT.to_string());
        }
        let id = key[i];
        match self.keys[i] {
            Key::Status => Cell::Int(id as u128),
            Key::Schema if id == NO_SCHEMA => Cell::Null,
            _ => Cell::Text(dict.text(id).into_owned()),
        }
    }
}

impl View<'_> {
    fn metric_cell(&self, mc: &MetricColumn, sums: &Sums, interval: f64) -> Cell {
        let raw = mc.field.of(sums);
        match mc.how {
            How::Total if mc.field.is_ns() => Cell::Float(mc.field.scaled(raw)),
            How::Total => Cell::Int(raw),
            How::PerSec => Cell::Float(mc.field.scaled(raw) / interval),
            How::Percent => {
                let total = mc.field.of(&self.totals().sums);
                Cell::Float(if total == 0 {
                    0.0
                } else {
                    100.0 * raw as f64 / total as f64
                })
            }
        }
    }

    /// A numeric column's value as f64 (`None` for a percentile of an empty histogram).
    fn number(&self, col: Column, row: &RowRef<'_>, interval: f64) -> Option<f64> {
        match col {
            Column::Metric(mc) => Some(match self.metric_cell(&mc, &row.sums, interval) {
                Cell::Int(i) => i as f64,
                Cell::Float(f) => f,
                _ => 0.0,
            }),
            Column::Percentile(p) => row.percentile_ns(p).map(|ns| ns / 1e9),
            Column::Key(_) => None,
        }
    }

    fn cell(&self, col: Column, item: Item<'_>, dict: &Dictionary, interval: f64) -> Cell {
        match col {
            Column::Key(i) => self.key_cell(i, item.0, dict),
            Column::Metric(mc) => self.metric_cell(&mc, &item.1.sums, interval),
            Column::Percentile(p) => item
                .1
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
            RowTest::KeyEq(i, want) => self.key_text(*i, item.0, dict) == want.as_str(),
            RowTest::NumEq(col, want) => self.number(*col, &item.1, interval) == Some(*want),
            RowTest::Matches(Column::Key(i), re) => re.is_match(&self.key_text(*i, item.0, dict)),
            RowTest::Matches(col, re) => {
                buf.clear();
                self.cell(*col, item, dict, interval).render(buf);
                re.is_match(buf)
            }
        }
    }

    /// Runs a query. Pure: reads the rows and renders ids with `dict`. `time_interval` is the
    /// seconds the window covers ([`Report::time_interval`]; `*_per_sec` divide by it). Errors
    /// name the bad parameter or column.
    ///
    /// Cost: filters touch every row; the sort computes one key per remaining row and selects the
    /// top `offset + limit` with `select_nth_unstable`; key strings and percentiles are computed
    /// only for returned rows unless the sort or a filter needs them.
    fn query(
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
                // A status key is a number: `status:abc` can match nothing and is a mistake, and
                // `status:0200` means 200 (compared as text, it would match nothing).
                Column::Key(i) if self.keys[i] == Key::Status => match value.parse::<u32>() {
                    Ok(n) => RowTest::KeyEq(i, n.to_string()),
                    Err(_) => {
                        return Err(err(format!(
                            "filter `{f}`: status `{value}` is not an integer 0..=4294967295"
                        )))
                    }
                },
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
        let want = q.offset.saturating_add(limit);
        if let (true, Column::Metric(mc)) = (tests.is_empty(), sort_col) {
            // Sorted by a sum and nothing to filter (the common query): every metric column is
            // its sum scaled by a positive constant (a unit, the interval, the total), so rows
            // sort by the raw sum; only the rows kept are summed in full.
            let field = mc.field;
            let keyed = self
                .parts_by(move |s| field.of(s))
                .chain(self.other_parts(move |s| field.of(s)));
            let (rows_total, top) = top_of(keyed, want, |a, b| {
                let o = a.0.cmp(&b.0);
                if descending { o.reverse() } else { o }.then_with(|| a.1.cmp(b.1))
            });
            let top = top
                .into_iter()
                .map(|(_, k, [a, o])| (k, RowRef::of(a, o)))
                .collect();
            return Ok(self.table(q, dict, interval, percentiles, rows_total, top));
        }
        // Percentiles of every row (to sort or filter by) need every row's logged samples;
        // otherwise only the shown rows' are read, after the cut (in `table`).
        let every_percentile = matches!(sort_col, Column::Percentile(_))
            || tests.iter().any(|t| {
                matches!(
                    t,
                    RowTest::NumEq(Column::Percentile(_), _)
                        | RowTest::Matches(Column::Percentile(_), _)
                )
            });
        let all_pending = if every_percentile {
            self.pending_hists(None)
        } else {
            PendingHists::NONE
        };
        let mut buf = String::new();
        let passing = self
            .items()
            .chain(self.other_item())
            .map(|(k, r)| (k, r.with_pending(&all_pending)))
            .filter(|&item| {
                tests
                    .iter()
                    .all(|t| self.passes(t, item, dict, interval, &mut buf))
            });
        let (rows_total, top): (usize, Vec<Item<'_>>) = match sort_col {
            Column::Key(i) if self.keys[i] != Key::Status => {
                let keyed = passing.map(|item| (self.key_text(i, item.0, dict), item));
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
                            .number(col, &item.1, interval)
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
        Ok(self.table(q, dict, interval, percentiles, rows_total, top))
    }

    /// [`LAST_TICK_RATE_COLUMN`] of the rows `keys` name ("(other)" included) and of the totals:
    /// each one's requests in the last closed tick over the tick's seconds; 0 where that tick
    /// counted none of them, or was not closed (no requests came in it).
    fn last_tick_rates<'k>(&self, keys: impl Iterator<Item = &'k [u32]>) -> (Vec<f64>, f64) {
        let seconds = (self.window.tick_ms as f64 / 1000.0).max(1e-3);
        let last = self
            .closed
            .back()
            .filter(|t| t.index() + 1 == self.open_index);
        let Some(tick) = last else {
            return (keys.map(|_| 0.0).collect(), 0.0);
        };
        let counts: std::collections::HashMap<&[u32], u64> = tick
            .rows()
            .map(|(k, sums, _)| (k, sums.req_count))
            .collect();
        let other = tick.other().map_or(0, |(s, _)| s.req_count);
        let rates = keys
            .map(|k| {
                let n = if is_other(k) {
                    other
                } else {
                    counts.get(k).copied().unwrap_or(0)
                };
                n as f64 / seconds
            })
            .collect();
        (rates, tick.totals().0.req_count as f64 / seconds)
    }

    /// The answer: the `top` rows from `q.offset` on, rendered, and the totals. Shown rows not
    /// given their samples still in the histogram log yet (to sort or filter by percentiles)
    /// get them here, read from the log without applying it.
    fn table(
        &self,
        q: &Query,
        dict: &Dictionary,
        interval: f64,
        percentiles: &[f64],
        rows_total: usize,
        top: Vec<Item<'_>>,
    ) -> Table {
        let shown: Vec<(u32, &Histogram)> = top
            .iter()
            .skip(q.offset)
            .filter(|(_, r)| r.pending.is_none())
            .filter_map(|(_, r)| Some((r.open_slot, r.open?)))
            .collect();
        let pending = self.pending_hists(Some(&shown));
        let top: Vec<Item<'_>> = top
            .into_iter()
            .map(|(k, r)| match r.pending {
                None => (k, r.with_pending(&pending)),
                Some(_) => (k, r),
            })
            .collect();
        // A row's percentile columns come from one walk over its histograms.
        let (columns, cols) = self.shown_columns(percentiles);
        let ps: Vec<f64> = cols
            .iter()
            .filter_map(|c| match c {
                Column::Percentile(p) => Some(*p),
                _ => None,
            })
            .collect();
        let mut values = Vec::with_capacity(ps.len());
        let mut render = |item: Item<'_>, cols: &[Column]| -> Vec<Cell> {
            item.1.percentiles_ns(&ps, &mut values);
            let mut next = values.iter();
            cols.iter()
                .map(|&c| match c {
                    Column::Percentile(_) => next
                        .next()
                        .copied()
                        .flatten()
                        .map_or(Cell::Null, |ns| Cell::Float(ns / 1e9)),
                    c => self.cell(c, item, dict, interval),
                })
                .collect()
        };
        let mut rows: Vec<Vec<Cell>> = top
            .iter()
            .skip(q.offset)
            .map(|&item| render(item, &cols))
            .collect();
        let mut totals = render((&[], self.totals()), &cols[self.keys.len()..]);
        let mut columns = columns;
        if let (true, Some(at)) = (q.last_tick, columns.iter().position(|c| c == "req_per_sec")) {
            let (per_row, total) = self.last_tick_rates(top.iter().skip(q.offset).map(|i| i.0));
            columns.insert(at + 1, LAST_TICK_RATE_COLUMN.to_string());
            for (row, rate) in rows.iter_mut().zip(per_row) {
                row.insert(at + 1, Cell::Float(rate));
            }
            totals.insert(at + 1 - self.keys.len(), Cell::Float(total));
        }
        Table {
            report: self.def.name.clone(),
            kind: self.kind,
            keys: self.key_names.clone(),
            time_interval: interval,
            history: self.window.history_ms as f64 / 1000.0,
            tick: self.window.tick_ms as f64 / 1000.0,
            complete_from: None,
            rows_total,
            columns,
            key_columns: self.keys.len(),
            totals,
            rows,
        }
    }
}

impl Report {
    /// Runs a query over the report (see `View::query`). A family member's query detaches it
    /// from its stage first (`Family::detach_for_query`), so the report holds everything.
    pub fn query(
        &self,
        q: &Query,
        dict: &Dictionary,
        time_interval: f64,
    ) -> Result<Table, ReportError> {
        View { report: self }.query(q, dict, time_interval)
    }
}
