//! Reading history: `GET /api/v1/reports/{name}/history`'s parameters, and its series read from
//! the store and aggregated to the asked step (sums add; percentiles from the merged histograms
//! of the step, never averaged).
//!
//! Runs on the API's blocking pool with a read-only connection of its own.

use std::collections::HashMap;

use rusqlite::{params_from_iter, Connection};
use serde::Serialize;

use super::step::{Part, OTHER};
use super::store::{read_part, StoreError, OTHER_ROW, PART_COLUMNS, ROW, TOTALS_ROW};
use crate::report::{csv_field, percentile_of_column, Cell, Kind, SumColumn};

/// Points a series has at most when the step is not given (the stored step is made coarser).
pub const DEFAULT_POINTS: u64 = 1000;
/// Points a series may have at most (a finer `step` over a longer range is a 400).
pub const MAX_POINTS: u64 = 100_000;
/// Series answered with `group=rows` unless `limit` says.
pub const DEFAULT_LIMIT: usize = 10;
/// Columns an answer may have at most: every sum column and a report's most percentiles, with
/// room to spare.
pub const MAX_COLUMNS: usize = 64;
/// Values (series × points × columns) one answer may hold at most. `limit`, the points and the
/// columns are each bounded, but not their product, which let one query read a large part of
/// the store and build an answer of gigabytes. A million values is some 10-20 MB of JSON and
/// the points' sums (and histograms) for at most a million series points in memory, while what
/// a chart or a person reads is far below it: the dashboard asks for at most 101 series of
/// 1000 points of one column (about 100,000 values), the defaults for 11 × 1000 × 5.
pub const MAX_VALUES: u64 = 1_000_000;

/// A bad parameter: its name and why.
#[derive(Debug, PartialEq)]
pub struct ParamError {
    pub param: String,
    pub why: String,
}

fn bad(param: &str, why: impl Into<String>) -> ParamError {
    ParamError {
        param: param.to_string(),
        why: why.into(),
    }
}

/// A column of the answer.
#[derive(Clone, Copy, Debug)]
enum Column {
    Sum(SumColumn),
    Percentile(f64),
}

/// What the report looks like, for parsing a query of it.
#[derive(Clone, Debug)]
pub struct Shape {
    pub name: String,
    pub kind: Kind,
    /// Column names of the keys (`script_name`, `country`).
    pub key_columns: Vec<String>,
    /// The keys as defined (`tag:country`): a filter may name a key either way.
    pub key_names: Vec<String>,
    /// The step the report stores, in seconds.
    pub stored_step_s: u64,
}

/// A parsed history query.
#[derive(Debug)]
pub struct HistoryQuery {
    pub from_s: i64,
    pub to_s: i64,
    pub step_s: u64,
    /// (key column index, value).
    filters: Vec<(usize, String)>,
    column_names: Vec<String>,
    columns: Vec<Column>,
    total: bool,
    limit: usize,
    pub csv: bool,
    /// Series the answer holds at most (the top `limit` and "(other)", or the totals' one).
    most_series: u64,
    /// Points a series holds at most (`from` to `to` by `step`, and the step holding `from`).
    most_points: u64,
}

/// Parses the query's parameters (see the API contract); `now_s` for relative times.
pub fn parse(
    params: &[(String, String)],
    shape: &Shape,
    now_s: i64,
    max_limit: usize,
) -> Result<HistoryQuery, ParamError> {
    let mut seen: Vec<&str> = Vec::new();
    let (mut from, mut to, mut step, mut columns, mut group, mut limit, mut format) =
        (None, None, None, None, None, None, None);
    let mut filters = Vec::new();
    for (name, value) in params {
        let name = name.as_str();
        if name != "filter" {
            if seen.contains(&name) {
                return Err(bad(name, "given twice (only `filter` may repeat)"));
            }
            seen.push(name);
        }
        match name {
            "from" => from = Some(parse_time("from", value, now_s)?),
            "to" => to = Some(parse_time("to", value, now_s)?),
            "step" => step = Some(value.clone()),
            "filter" => filters.push(parse_filter(value, shape)?),
            "columns" => columns = Some(value.clone()),
            "group" => {
                group = Some(match value.as_str() {
                    "rows" => false,
                    "total" => true,
                    _ => return Err(bad("group", format!("`{value}`: expected rows or total"))),
                })
            }
            "limit" => limit = Some(parse_limit(value, max_limit)?),
            "format" => format = Some(parse_csv(value)?),
            _ => {
                return Err(bad(
                    name,
                    "unknown parameter (expected from, to, step, filter, columns, group, limit, format)",
                ))
            }
        }
    }
    let from_s = from.unwrap_or(now_s - 3600);
    let to_s = to.unwrap_or(now_s);
    if from_s >= to_s {
        return Err(bad(
            "from",
            format!("`from` ({from_s}) is not before `to` ({to_s}): the range holds no time"),
        ));
    }
    let stored = shape.stored_step_s.max(1);
    let span = (to_s - from_s) as u64;
    let step_s = match step {
        Some(s) => {
            let d = humantime::parse_duration(&s)
                .map_err(|e| bad("step", format!("`{s}` is not a duration like \"5m\" ({e})")))?;
            let ms = d.as_millis();
            if ms == 0 || ms % 1000 != 0 || !((ms / 1000) as u64).is_multiple_of(stored) {
                return Err(bad(
                    "step",
                    format!("`{s}` is not a multiple of the stored step ({stored}s)"),
                ));
            }
            let step_s = u64::try_from(ms / 1000)
                .ok()
                .filter(|s| i64::try_from(*s).is_ok())
                .ok_or_else(|| bad("step", format!("`{s}` is too long")))?;
            // A step longer than the range (and than the stored step, which a range shorter
            // than it cannot go below) asks for one point whose start lies before `from`, as far
            // back as the step is long: `99999999999d` answered a point at 1970. Refused, not
            // clamped: a step is the unit of every rate and sum of the answer, so another one
            // than asked for would be misread, and the fix (a shorter step, or none for the
            // default) is the client's to choose.
            if step_s > span.max(stored) {
                return Err(bad(
                    "step",
                    format!(
                        "`{s}` is longer than `from` to `to` ({span}s): a step may be at most \
                         the range, or the stored step ({stored}s) over a shorter one"
                    ),
                ));
            }
            if span / step_s > MAX_POINTS {
                return Err(bad(
                    "step",
                    format!("`{s}` makes more than {MAX_POINTS} points from `from` to `to`"),
                ));
            }
            step_s
        }
        None => stored * span.div_ceil(stored * DEFAULT_POINTS).max(1),
    };
    let column_list = columns.unwrap_or_else(|| match shape.kind {
        Kind::Timer => "req_count,hit_count,timer_value,p50,p95,p99".into(),
        _ => "req_count,req_per_sec,p50,p95,p99".into(),
    });
    let mut column_names: Vec<String> = Vec::new();
    let mut cols = Vec::new();
    for c in column_list
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        // Each column is a cell of every point of every series: repeats would only multiply
        // the answer, and the count is bounded so that one query cannot build a huge one.
        if column_names.iter().any(|n| n == c) {
            return Err(bad("columns", format!("`{c}` is named twice")));
        }
        if column_names.len() == MAX_COLUMNS {
            return Err(bad("columns", format!("more than {MAX_COLUMNS} columns")));
        }
        let col = match (
            SumColumn::named(shape.kind, c),
            percentile_of_column(shape.kind, c),
        ) {
            (Some(s), _) => Column::Sum(s),
            (None, Some(p)) => Column::Percentile(p),
            (None, None) => {
                return Err(bad(
                    "columns",
                    format!(
                        "unknown column `{c}` (expected {}, p<N> or {})",
                        SumColumn::names(shape.kind).join(", "),
                        if shape.kind == Kind::Timer {
                            "timer_median"
                        } else {
                            "req_time_median"
                        }
                    ),
                ))
            }
        };
        column_names.push(c.to_string());
        cols.push(col);
    }
    if cols.is_empty() {
        return Err(bad("columns", "names no column"));
    }
    let total = group.unwrap_or(false);
    if total && !filters.is_empty() {
        return Err(bad(
            "filter",
            "a filter selects rows, and `group=total` reads the report's totals, which no filter can narrow: use `group=rows`",
        ));
    }
    // The default within `max_limit` too, as a report query's (`limit` is bounded by it).
    let limit = limit.unwrap_or(DEFAULT_LIMIT.min(max_limit));
    // The top `limit` rows and the "(other)" row, or the one series of the totals.
    let one_series = total || shape.key_columns.is_empty();
    let series = if one_series {
        1
    } else {
        (limit as u64).saturating_add(1)
    };
    let points = span.div_ceil(step_s);
    let values = series
        .saturating_mul(points)
        .saturating_mul(cols.len() as u64);
    if values > MAX_VALUES {
        let series_text = if one_series {
            "1 series".to_string()
        } else {
            format!("{series} series (`limit` {limit} and the \"(other)\" row)")
        };
        return Err(bad(
            if one_series { "step" } else { "limit" },
            format!(
                "the answer would hold {series_text} × {points} points (`from` to `to` by `step` \
                 {step_s}s) × {} `columns` = {values} values, above the {MAX_VALUES} one answer \
                 may hold: ask for fewer series, a coarser `step`, a shorter range or fewer \
                 `columns`",
                cols.len()
            ),
        ));
    }
    Ok(HistoryQuery {
        from_s,
        to_s,
        step_s,
        filters,
        column_names,
        columns: cols,
        total,
        limit,
        csv: format.unwrap_or(false),
        most_series: series,
        most_points: points.saturating_add(1),
    })
}

impl HistoryQuery {
    /// The filters: (key column index, value), all of which must hold.
    pub fn filters(&self) -> &[(usize, String)] {
        &self.filters
    }

    /// Whether it reads the report's totals (`group=total`) rather than its rows.
    pub fn total(&self) -> bool {
        self.total
    }

    /// Series with `group=rows`, besides the "(other)" row.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether a column is a percentile, so the steps' histograms must be read.
    pub fn reads_histograms(&self) -> bool {
        self.columns
            .iter()
            .any(|c| matches!(c, Column::Percentile(_)))
    }
}

/// `format`: whether it asks for CSV (`csv`) rather than JSON (`json`), else a 400 naming it.
pub fn parse_csv(value: &str) -> Result<bool, ParamError> {
    match value {
        "json" => Ok(false),
        "csv" => Ok(true),
        _ => Err(bad("format", format!("`{value}`: expected json or csv"))),
    }
}

/// `limit`: a whole number up to `max_limit` (`limits.max_query_limit`), else a 400 naming it.
pub fn parse_limit(value: &str, max_limit: usize) -> Result<usize, ParamError> {
    let n: usize = value
        .parse()
        .map_err(|_| bad("limit", format!("`{value}` is not a non-negative integer")))?;
    if n > max_limit {
        return Err(bad(
            "limit",
            format!("{n} is above the maximum {max_limit} (limits.max_query_limit)"),
        ));
    }
    Ok(n)
}

/// `from`/`to` ([`crate::units::parse_time_ms`]) in whole seconds, rounded down.
pub fn parse_time(param: &str, v: &str, now_s: i64) -> Result<i64, ParamError> {
    crate::units::parse_time_ms(v, now_s.saturating_mul(1000))
        .map(|ms| ms.div_euclid(1000))
        .map_err(|why| bad(param, why))
}

/// `COLUMN:VALUE` on a key column: the longest key column name (or key, `tag:country`)
/// followed by `:` (tag names may hold `:`).
fn parse_filter(f: &str, shape: &Shape) -> Result<(usize, String), ParamError> {
    let n = shape.key_columns.len();
    let mut best: Option<(usize, usize)> = None;
    for (i, name) in shape.key_columns.iter().chain(&shape.key_names).enumerate() {
        if f.len() > name.len()
            && f.starts_with(name.as_str())
            && f.as_bytes()[name.len()] == b':'
            && best.is_none_or(|(_, len)| name.len() > len)
        {
            best = Some((i % n.max(1), name.len()));
        }
    }
    match best {
        Some((i, len)) => Ok((i, f[len + 1..].to_string())),
        None => Err(bad(
            "filter",
            format!(
                "`{f}`: expected KEY_COLUMN:VALUE with a key column of the report ({})",
                shape.key_columns.join(", ")
            ),
        )),
    }
}

/// One series of the answer, read in time order: its points rendered so far, and the one being
/// added up (its step's start and its part). Why in time order: a point is rendered (its
/// percentiles taken) as soon as the rows of its step are all read, so a series holds one
/// histogram at a time, not one per point (a histogram may take 32 KiB, and a series 100,000
/// points). Built so by this store's queries and by the fleet's (`api::fleet_history`, from the
/// report ticks in ClickHouse, in time order too): one rendering for both, so that the
/// dashboard draws a fleet's answer with the code that draws this pinbad's.
#[derive(Debug)]
pub struct Series {
    key: Vec<String>,
    other: bool,
    points: Vec<Vec<Cell>>,
    open: Option<(i64, Part)>,
}

/// What a query found: its series, and how many stored rows it left out as damaged.
pub struct Answer {
    pub series: Vec<SeriesOut>,
    /// Stored rows that could not be read back (a value of the wrong type, a histogram blob that
    /// does not decode, a key that is not a JSON array of strings: a damaged or hand-edited
    /// file). Each is left out of the answer instead of failing it: one such row made every
    /// query over its time a 500, for the whole retention.
    pub damaged_rows: u64,
}

/// A stored row's part, or `None` (counted in `damaged`) when the row cannot be read back; an
/// error only when the store itself fails.
pub(super) fn part_or_skip(
    row: &rusqlite::Row<'_>,
    at: usize,
    hist: bool,
    damaged: &mut u64,
) -> Result<Option<Part>, StoreError> {
    match read_part(row, at, hist) {
        Ok(part) => Ok(Some(part)),
        Err(e) if e.damaged_row_why().is_some() => {
            *damaged += 1;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Runs `q` over the store for the report `report_id` of `shape`.
pub fn run(
    conn: &Connection,
    report_id: i64,
    shape: &Shape,
    q: &HistoryQuery,
) -> Result<Answer, StoreError> {
    let mut damaged = 0u64;
    let series = run_counting(conn, report_id, shape, q, &mut damaged)?;
    Ok(Answer {
        series,
        damaged_rows: damaged,
    })
}

/// [`run`]'s work, counting the stored rows it leaves out as damaged in `damaged`.
fn run_counting(
    conn: &Connection,
    report_id: i64,
    shape: &Shape,
    q: &HistoryQuery,
    damaged: &mut u64,
) -> Result<Vec<SeriesOut>, StoreError> {
    let hist = q.columns.iter().any(|c| matches!(c, Column::Percentile(_)));
    let stored = shape.stored_step_s.max(1) as i64;
    // Steps overlapping [from, to).
    let (lo, hi) = (q.from_s - stored + 1, q.to_s);
    let bucket = |t: i64| t.div_euclid(q.step_s as i64) * q.step_s as i64;
    let mut series: Vec<Series> = Vec::new();
    if q.total || shape.key_columns.is_empty() {
        let mut s = Series::new(Vec::new(), false);
        let mut stmt = conn.prepare_cached(&totals_sql())?;
        let mut rows = stmt.query(rusqlite::params![report_id, lo, hi])?;
        while let Some(row) = rows.next()? {
            let t: i64 = row.get(0)?;
            let Some(part) = part_or_skip(row, 1, hist, damaged)? else {
                continue;
            };
            s.add(bucket(t), &part, q);
        }
        s.close(q);
        if !s.points.is_empty() {
            series.push(s);
        }
        return Ok(series.into_iter().map(Series::done).collect());
    }
    // The top `limit` keys over the range, by time, among the rows passing the filters.
    let mut cond = String::new();
    let mut args: Vec<rusqlite::types::Value> = vec![report_id.into(), lo.into(), hi.into()];
    for (i, v) in &q.filters {
        args.push(v.clone().into());
        cond.push_str(&format!(
            " AND json_extract(key, '$[{i}]') = ?{}",
            args.len()
        ));
    }
    args.push((q.limit as i64).into());
    let mut top = conn.prepare(&top_sql(&cond, args.len()))?;
    // A top key that is not text, or not a JSON array of strings, is damaged: left out, counted
    // once (its rows are then keys of no series in the scan below).
    let keys: Vec<Option<String>> = top
        .query_map(params_from_iter(args.iter()), |r| Ok(r.get(0).ok()))?
        .collect::<Result<_, _>>()?;
    let mut index: HashMap<String, usize> = HashMap::new();
    for k in keys {
        let parsed = k
            .as_deref()
            .and_then(|k| serde_json::from_str::<Vec<String>>(k).ok());
        let (Some(k), Some(key)) = (k, parsed) else {
            *damaged += 1;
            continue;
        };
        index.insert(k, series.len());
        series.push(Series::new(key, false));
    }
    // The other row stands for keys that may match any filter: it is shown when every filter
    // asks for "(other)" (so, with no filter, always).
    let with_other = q.filters.iter().all(|(_, v)| v == OTHER);
    let other_at = series.len();
    if with_other {
        series.push(Series::new(
            vec![OTHER.to_string(); shape.key_columns.len()],
            true,
        ));
    }
    if index.is_empty() && !with_other {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(&rows_sql())?;
    let mut rows = stmt.query(rusqlite::params![report_id, lo, hi])?;
    while let Some(row) = rows.next()? {
        let t: i64 = row.get(0)?;
        let kind: i64 = row.get(1)?;
        let at = if kind == OTHER_ROW {
            if !with_other {
                continue;
            }
            other_at
        } else {
            // Not text: never a top key (counted there, when it was one).
            let Ok(key) = row.get_ref(2)?.as_str() else {
                continue;
            };
            match index.get(key) {
                Some(&i) => i,
                None => continue,
            }
        };
        let Some(part) = part_or_skip(row, 3, hist, damaged)? else {
            continue;
        };
        series[at].add(bucket(t), &part, q);
    }
    for s in &mut series {
        s.close(q);
    }
    if with_other && series[other_at].points.is_empty() {
        series.pop();
    }
    Ok(series.into_iter().map(Series::done).collect())
}

/// The totals' steps of a report over `[?2, ?3)`.
pub(super) fn totals_sql() -> String {
    format!(
        "SELECT t, {PART_COLUMNS} FROM steps WHERE report = ?1 AND row = {TOTALS_ROW} \
         AND t >= ?2 AND t < ?3 ORDER BY t"
    )
}

/// The top keys over `[?2, ?3)` under the conditions `cond`, `?{limit_at}` of them. By
/// `total(time_ns)`: a float sum, which never overflows (SQLite's `sum` of integers raises an
/// error past `i64::MAX`, and the stored sums go up to it); only the order is used.
pub(super) fn top_sql(cond: &str, limit_at: usize) -> String {
    format!(
        "SELECT key FROM steps WHERE report = ?1 AND row = {ROW} AND t >= ?2 AND t < ?3{cond} \
         GROUP BY key ORDER BY total(time_ns) DESC, key LIMIT ?{limit_at}"
    )
}

/// The rows and other rows of a report over `[?2, ?3)`, in time order (the index's: no sort),
/// which [`run`] renders each point in as soon as its step is read.
pub(super) fn rows_sql() -> String {
    format!(
        "SELECT t, row, key, {PART_COLUMNS} FROM steps WHERE report = ?1 AND row IN ({ROW}, \
         {OTHER_ROW}) AND t >= ?2 AND t < ?3 ORDER BY t"
    )
}

/// How many stored rows a query of the totals (`totals`: [`TOTALS_ROW`]) or of the rows
/// ([`ROW`] and [`OTHER_ROW`]) over `[?2, ?3)` reads: the index alone is read.
pub(super) fn count_sql(totals: bool) -> String {
    let rows = if totals {
        format!("= {TOTALS_ROW}")
    } else {
        format!("IN ({ROW}, {OTHER_ROW})")
    };
    format!("SELECT count(*) FROM steps WHERE report = ?1 AND row {rows} AND t >= ?2 AND t < ?3")
}

/// Bytes a rendered point holds: its cells and the block they are in, and its place in its
/// series' list.
fn point_bytes(cells: usize) -> u64 {
    (cells * std::mem::size_of::<Cell>() + BLOCK_OVERHEAD + std::mem::size_of::<Vec<Cell>>()) as u64
}

/// What the allocator adds to each block (glibc: a size word, and 16-byte rounding).
const BLOCK_OVERHEAD: usize = 16;

/// What a series holds beside its points, at most: its key, its list, the step being added up
/// (and that step's histogram, when percentiles are asked: [`HIST_BYTES`]).
const SERIES_BYTES: u64 = 4 << 10;
/// A step's histogram at its largest ([`crate::histogram::MAX_HEAP_BYTES`]): what a series
/// adding one up is counted at before it is read.
pub(super) const HIST_BYTES: u64 = crate::histogram::MAX_HEAP_BYTES as u64;

/// What reading `q` will hold at most, known before it is read (for the memory budget): its
/// points (at most the stored rows it reads, counted in the index, and at most its series ×
/// points) rendered, and each series' step being added up. Why before: the answer is built
/// whole (its `damaged_rows` comes before its series, and its top keys are known only once
/// the range is read), so it is counted at this bound before a row is read, then at what it
/// holds ([`series_bytes`]) once read.
pub fn estimate(
    conn: &Connection,
    report_id: i64,
    shape: &Shape,
    q: &HistoryQuery,
) -> Result<u64, StoreError> {
    let stored = shape.stored_step_s.max(1) as i64;
    let totals = q.total || shape.key_columns.is_empty();
    let rows: i64 = conn.prepare_cached(&count_sql(totals))?.query_row(
        rusqlite::params![report_id, q.from_s - stored + 1, q.to_s],
        |r| r.get(0),
    )?;
    Ok(bound(rows.max(0) as u64, q))
}

/// What answering `q` from `rows` steps of series (stored rows, or the fleet's steps summed in
/// ClickHouse, each a point at most) holds at most: see [`estimate`].
pub fn bound(rows: u64, q: &HistoryQuery) -> u64 {
    let points = rows.min(q.most_series.saturating_mul(q.most_points));
    let series = q.most_series.min(rows);
    let each = SERIES_BYTES + if q.reads_histograms() { HIST_BYTES } else { 0 };
    points
        .saturating_mul(point_bytes(q.columns.len() + 1))
        .saturating_add(series.saturating_mul(each))
}

/// Heap bytes `series` hold: their points' cells and lists, and their keys.
pub fn series_bytes(series: &[SeriesOut]) -> u64 {
    series
        .iter()
        .map(|s| {
            let points = s.points.capacity() * std::mem::size_of::<Vec<Cell>>();
            let cells: u64 = s.points.iter().map(|p| point_bytes(p.capacity())).sum();
            let keys: usize = s.key.iter().map(|k| k.capacity() + BLOCK_OVERHEAD).sum();
            cells + (points + keys + BLOCK_OVERHEAD) as u64
        })
        .sum()
}

/// The oldest step of a report's line (unix seconds), if any: one index probe.
const OLDEST_STEP: &str = "SELECT min(t) FROM steps WHERE report = ?1";

/// The oldest step stored under a report's line `report_id` (unix seconds), if any.
pub fn oldest_step(conn: &Connection, report_id: i64) -> Result<Option<i64>, StoreError> {
    Ok(conn.query_row(OLDEST_STEP, [report_id], |r| r.get(0))?)
}

/// Whether a query from `from_s` reads a report's fine steps rather than its own: the range
/// starts within the fine steps' retention (`fine_retention_s` before `now_s`), and the fine
/// steps cover it as far back as the report's own do: the oldest fine step (`fine_oldest`, unix
/// seconds) is before `from_s`, or the report's own oldest step (`coarse_oldest`, of
/// `coarse_step_s`) is not wholly before it (both began together). After an upgrade that added
/// fine steps to a report with older history, the older range reads the report's own.
pub fn reads_fine(
    from_s: i64,
    now_s: i64,
    fine_retention_s: i64,
    (fine_oldest, coarse_oldest): (Option<i64>, Option<i64>),
    coarse_step_s: i64,
) -> bool {
    if from_s < now_s - fine_retention_s {
        return false;
    }
    match (fine_oldest, coarse_oldest) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(fine), Some(coarse)) => fine <= from_s || fine < coarse + coarse_step_s,
    }
}

/// Every statement a query prepares (a filter's condition as one of them), for the store to
/// check at open.
pub fn statements() -> Vec<String> {
    vec![
        totals_sql(),
        top_sql(" AND json_extract(key, '$[0]') = ?4", 5),
        top_sql("", 4),
        rows_sql(),
        count_sql(true),
        count_sql(false),
        OLDEST_STEP.to_string(),
    ]
}

/// A series with its points rendered: `[t, v1, v2, ...]`.
#[derive(Clone, Debug, Serialize)]
pub struct SeriesOut {
    pub key: Vec<String>,
    pub other: bool,
    pub points: Vec<Vec<Cell>>,
}

impl Series {
    pub fn new(key: Vec<String>, other: bool) -> Series {
        Series {
            key,
            other,
            points: Vec::new(),
            open: None,
        }
    }

    /// Adds a stored row's `part` to the point of the step starting at `t`: rows come in time
    /// order ([`rows_sql`], [`totals_sql`]), so a later step renders the one added up so far.
    pub fn add(&mut self, t: i64, part: &Part, q: &HistoryQuery) {
        match &mut self.open {
            Some((at, p)) if *at == t => p.add_part(part),
            _ => {
                debug_assert!(
                    self.open.as_ref().is_none_or(|(at, _)| *at < t),
                    "time order"
                );
                self.close(q);
                let mut p = Part::default();
                p.add_part(part);
                self.open = Some((t, p));
            }
        }
    }

    /// Renders the point being added up, if any: `[t, v1, v2, ...]`.
    fn close(&mut self, q: &HistoryQuery) {
        let Some((t, p)) = self.open.take() else {
            return;
        };
        let seconds = q.step_s as f64;
        let mut point = Vec::with_capacity(q.columns.len() + 1);
        point.push(Cell::Int(t.max(0) as u128));
        for c in &q.columns {
            point.push(match c {
                Column::Sum(s) => s.value(&p.sums, seconds),
                Column::Percentile(pc) => p
                    .hist
                    .percentile_ns(*pc)
                    .map_or(Cell::Null, |ns| Cell::Float(ns / 1e9)),
            });
        }
        self.points.push(point);
    }

    /// Whether no step was added.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty() && self.open.is_none()
    }

    /// The series with its last point rendered.
    pub fn finish(mut self, q: &HistoryQuery) -> SeriesOut {
        self.close(q);
        self.done()
    }

    fn done(self) -> SeriesOut {
        debug_assert!(self.open.is_none());
        SeriesOut {
            key: self.key,
            other: self.other,
            points: self.points,
        }
    }
}

/// The JSON answer (see the API contract), written straight from the cells: a sum past
/// `u64::MAX` (a month's byte total) is printed whole, where a `serde_json::Value`, which holds
/// no such integer, failed (the handler panicked).
#[cfg(test)]
pub fn to_json(shape: &Shape, q: &HistoryQuery, series: &[SeriesOut], damaged_rows: u64) -> String {
    whole(Rendering::of(
        shape,
        q,
        series.to_vec(),
        damaged_rows,
        false,
    ))
}

/// The CSV answer: header `t,<key columns>,<columns>`, a line per point, series after series.
#[cfg(test)]
pub fn to_csv(shape: &Shape, q: &HistoryQuery, series: &[SeriesOut]) -> String {
    whole(Rendering::of(shape, q, series.to_vec(), 0, true))
}

/// A rendering's chunks at once.
#[cfg(test)]
fn whole(mut r: Rendering) -> String {
    let mut out = Vec::new();
    while let Some(chunk) = r.next_chunk(usize::MAX) {
        out.extend_from_slice(&chunk);
    }
    String::from_utf8(out).expect("JSON and CSV are UTF-8")
}

/// The JSON answer's fields (see the API contract), its series last.
#[derive(Serialize)]
struct JsonAnswer<'a> {
    report: &'a str,
    kind: &'a Kind,
    key_columns: &'a [String],
    from: i64,
    to: i64,
    step: u64,
    stored_step: u64,
    columns: &'a [String],
    damaged_rows: u64,
    series: &'a [SeriesOut],
}

impl<'a> JsonAnswer<'a> {
    fn of(
        shape: &'a Shape,
        q: &'a HistoryQuery,
        series: &'a [SeriesOut],
        damaged_rows: u64,
    ) -> JsonAnswer<'a> {
        JsonAnswer {
            report: &shape.name,
            kind: &shape.kind,
            key_columns: &shape.key_columns,
            from: q.from_s,
            to: q.to_s,
            step: q.step_s,
            stored_step: shape.stored_step_s,
            columns: &q.column_names,
            damaged_rows,
            series,
        }
    }
}

/// What a [`Chunked`] answer is rendered from, a piece at a time (a history answer's series and
/// their points, a comparison's rows): each call writes the next piece (JSON or CSV) to `out`,
/// frees what it was rendered from and says how many heap bytes that was; `None` once none is
/// left (the JSON answer's list is then closed).
pub trait Pieces: Send + 'static {
    fn next_piece(&mut self, out: &mut Vec<u8>, csv: bool) -> Option<u64>;
}

/// An answer being rendered a chunk at a time (JSON or CSV as the query asks): its head (JSON:
/// every field up to the list its pieces fill, which comes last; CSV: the header line), then
/// its pieces, each freed once rendered. Why: an answer may hold a million values, some 20 MB
/// of text beside the points it is rendered from; rendered a chunk at a time as its client
/// takes it, it holds what it is rendered from and a chunk, and less as it goes
/// ([`Chunked::held`]).
pub struct Chunked<P> {
    csv: bool,
    /// The answer up to its list (JSON) or its header line (CSV), until the first chunk.
    head: Option<Vec<u8>>,
    pieces: P,
    /// Heap bytes of what is not rendered yet.
    held: u64,
    done: bool,
}

impl<P: Pieces> Chunked<P> {
    /// `pieces` after `head`, holding `held` bytes, as CSV (`csv`) or JSON.
    pub(super) fn of_pieces(csv: bool, head: Vec<u8>, pieces: P, held: u64) -> Chunked<P> {
        Chunked {
            csv,
            head: Some(head),
            pieces,
            held,
            done: false,
        }
    }

    /// Heap bytes of what is left to render.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Whether the last chunk has been rendered.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Whether the answer is CSV (else JSON).
    pub fn csv(&self) -> bool {
        self.csv
    }

    /// The next chunk: `bytes` at least (a piece more at most) unless it is the last; `None`
    /// once all is rendered.
    pub fn next_chunk(&mut self, bytes: usize) -> Option<Vec<u8>> {
        if self.done {
            return None;
        }
        let mut out = self.head.take().unwrap_or_default();
        while out.len() < bytes {
            match self.pieces.next_piece(&mut out, self.csv) {
                Some(freed) => self.held = self.held.saturating_sub(freed),
                None => {
                    if !self.csv {
                        out.extend_from_slice(b"]}");
                    }
                    self.done = true;
                    self.held = 0;
                    break;
                }
            }
        }
        Some(out)
    }
}

/// A history answer being rendered (see [`Chunked`]).
pub type Rendering = Chunked<SeriesPieces>;

/// What is left of a history answer's series: a piece is a series' beginning, a point, or a
/// series' end.
pub struct SeriesPieces {
    series: std::vec::IntoIter<SeriesOut>,
    /// The series being rendered: its key, what is left of its points, and how many are
    /// rendered.
    current: Option<(Vec<String>, std::vec::IntoIter<Vec<Cell>>, usize)>,
    /// Key columns (a CSV line has a field for each, empty where a series has no key).
    key_columns: usize,
    /// Series begun so far.
    begun: usize,
    /// Scratch for a CSV line and a cell.
    line: String,
    cell: String,
}

impl Rendering {
    /// The answer to `q` of `series` (JSON with `damaged_rows`, or CSV).
    pub fn new(
        shape: &Shape,
        q: &HistoryQuery,
        series: Vec<SeriesOut>,
        damaged_rows: u64,
    ) -> Rendering {
        Rendering::of(shape, q, series, damaged_rows, q.csv)
    }

    /// [`Rendering::new`] as CSV (`csv`) or JSON.
    fn of(
        shape: &Shape,
        q: &HistoryQuery,
        series: Vec<SeriesOut>,
        damaged_rows: u64,
        csv: bool,
    ) -> Rendering {
        let mut head = Vec::with_capacity(1024);
        if csv {
            let mut line = String::new();
            let header = std::iter::once("t")
                .chain(shape.key_columns.iter().map(String::as_str))
                .chain(q.column_names.iter().map(String::as_str));
            for (i, h) in header.enumerate() {
                if i > 0 {
                    line.push(',');
                }
                csv_field(&mut line, h);
            }
            line.push_str("\r\n");
            head.extend_from_slice(line.as_bytes());
        } else {
            serde_json::to_writer(&mut head, &JsonAnswer::of(shape, q, &[], damaged_rows))
                .expect("strings and numbers always serialize");
            // The series' list is filled by the chunks: it is the last field.
            debug_assert!(head.ends_with(b"[]}"));
            head.truncate(head.len() - 2);
        }
        let held = series_bytes(&series);
        let pieces = SeriesPieces {
            series: series.into_iter(),
            current: None,
            key_columns: shape.key_columns.len(),
            begun: 0,
            line: String::new(),
            cell: String::new(),
        };
        Chunked::of_pieces(csv, head, pieces, held)
    }
}

impl Pieces for SeriesPieces {
    fn next_piece(&mut self, out: &mut Vec<u8>, csv: bool) -> Option<u64> {
        let Some((key, points, shown)) = &mut self.current else {
            let s = self.series.next()?;
            let freed =
                (s.points.capacity() * std::mem::size_of::<Vec<Cell>>() + BLOCK_OVERHEAD) as u64;
            if !csv {
                if self.begun > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"key\":");
                serde_json::to_writer(&mut *out, &s.key).expect("strings serialize");
                out.extend_from_slice(if s.other {
                    b",\"other\":true,\"points\":["
                } else {
                    b",\"other\":false,\"points\":["
                });
            }
            self.begun += 1;
            self.current = Some((s.key, s.points.into_iter(), 0));
            return Some(freed);
        };
        let Some(p) = points.next() else {
            if !csv {
                out.extend_from_slice(b"]}");
            }
            self.current = None;
            return Some(0);
        };
        if csv {
            let (line, cell) = (&mut self.line, &mut self.cell);
            line.clear();
            cell.clear();
            p[0].render(cell);
            line.push_str(cell);
            for k in 0..self.key_columns {
                line.push(',');
                csv_field(line, key.get(k).map_or("", String::as_str));
            }
            for v in &p[1..] {
                line.push(',');
                cell.clear();
                v.render(cell);
                csv_field(line, cell);
            }
            line.push_str("\r\n");
            out.extend_from_slice(line.as_bytes());
        } else {
            if *shown > 0 {
                out.push(b',');
            }
            serde_json::to_writer(&mut *out, &p).expect("cells serialize");
        }
        *shown += 1;
        Some(point_bytes(p.capacity()))
    }
}

/// `unix_ms` (now, on the daemon's clock: the one its steps are stamped with) in unix seconds,
/// rounded up. `to` (default now) is exclusive: truncated, it left out a step that started in
/// the current second, whose requests were already written (a query in the first second of a
/// minute missed that minute's step). Not the wall clock: after a step of the system clock since
/// start (NTP at boot, a paused VM), the newest steps fell outside a default query.
pub fn now_s(unix_ms: u64) -> i64 {
    seconds_up(std::time::Duration::from_millis(unix_ms))
}

/// `d` in whole seconds, rounded up.
fn seconds_up(d: std::time::Duration) -> i64 {
    d.as_secs() as i64 + i64::from(d.subsec_nanos() > 0)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Fine steps answer a range within their retention that they cover; a longer range, or
    /// one reaching before them into the report's own older steps, reads the report's own.
    #[test]
    fn the_fine_steps_answer_the_ranges_they_cover() {
        let (now, day, coarse) = (1_000_000, 86_400, 900);
        // Within the retention, both resolutions started together (a new install).
        assert!(reads_fine(
            now - 3600,
            now,
            day,
            (Some(now - 600), Some(now - 700)),
            coarse
        ));
        // Nothing fine yet: the report's own (empty too, or older).
        assert!(!reads_fine(
            now - 3600,
            now,
            day,
            (None, Some(now - 700)),
            coarse
        ));
        assert!(!reads_fine(now - 3600, now, day, (None, None), coarse));
        assert!(reads_fine(
            now - 3600,
            now,
            day,
            (Some(now - 60), None),
            coarse
        ));
        // Beyond the retention.
        assert!(!reads_fine(
            now - day - 1,
            now,
            day,
            (Some(now - day), Some(now - 2 * day)),
            coarse
        ));
        // Fine steps added to a report with a week of its own: only the range they cover.
        let week = (Some(now - 3600), Some(now - 7 * day));
        assert!(!reads_fine(now - 7200, now, day, week, coarse));
        assert!(reads_fine(now - 1800, now, day, week, coarse));
    }

    #[test]
    fn now_covers_the_current_second() {
        use std::time::Duration;
        assert_eq!(seconds_up(Duration::from_secs(60)), 60);
        assert_eq!(seconds_up(Duration::from_millis(60_001)), 61);
        assert_eq!(seconds_up(Duration::from_nanos(60_000_000_001)), 61);
    }
    use crate::histogram::Histogram;
    use crate::history::step::Step;
    use crate::history::store::{ReportInfo, Store, FILE};
    use crate::report::{Sum96, Sums};
    use proptest::prelude::*;

    fn shape(stored: u64) -> Shape {
        Shape {
            name: "r".into(),
            kind: Kind::Request,
            key_columns: vec!["script_name".into(), "country".into()],
            key_names: vec!["script_name".into(), "tag:country".into()],
            stored_step_s: stored,
        }
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parse_reads_every_parameter() {
        let q = parse(
            &pairs(&[
                ("from", "-2h"),
                ("to", "2026-01-01T02:00:00Z"),
                ("step", "5m"),
                ("filter", "script_name:/a"),
                ("filter", "tag:country:nl"),
                (
                    "columns",
                    "req_count,p99.9,req_time_median,ru_utime_per_sec",
                ),
                ("group", "rows"),
                ("limit", "3"),
                ("format", "csv"),
            ]),
            &shape(60),
            1_767_232_800,
            100,
        )
        .unwrap();
        assert_eq!(
            (q.from_s, q.to_s, q.step_s),
            (1_767_225_600, 1_767_232_800, 300)
        );
        assert_eq!(
            q.filters,
            vec![(0, "/a".to_string()), (1, "nl".to_string())]
        );
        assert_eq!(q.column_names.len(), 4);
        assert!(!q.total && q.csv);
        assert_eq!(q.limit, 3);
        // Defaults: the last hour, the stored step (3600 / 60 ≤ 1000 points).
        let q = parse(&[], &shape(60), 10_000, 100).unwrap();
        assert_eq!((q.from_s, q.to_s, q.step_s), (6_400, 10_000, 60));
        assert_eq!(
            q.column_names,
            ["req_count", "req_per_sec", "p50", "p95", "p99"]
        );
        // A step as long as the range is one point; over a range shorter than the stored step,
        // the stored step (the default too).
        let q = parse(&pairs(&[("step", "1h")]), &shape(60), 10_000, 100).unwrap();
        assert_eq!(q.step_s, 3600);
        for step in [&[("step", "1m")][..], &[]] {
            let params = [&[("from", "-30s")][..], step].concat();
            let q = parse(&pairs(&params), &shape(60), 10_000, 100).unwrap();
            assert_eq!((q.from_s, q.step_s), (9_970, 60), "{params:?}");
        }
        // The default `limit`, within `limits.max_query_limit`.
        assert_eq!(
            parse(&[], &shape(60), 10_000, 100).unwrap().limit,
            DEFAULT_LIMIT
        );
        assert_eq!(parse(&[], &shape(60), 10_000, 3).unwrap().limit, 3);
        // 30 days at 1 minute: made coarser, a multiple of the stored step, ≤ 1000 points.
        let q = parse(&pairs(&[("from", "-30d")]), &shape(60), 10_000_000, 100).unwrap();
        assert_eq!(q.step_s % 60, 0);
        assert!((q.to_s - q.from_s) as u64 / q.step_s <= DEFAULT_POINTS);
    }

    #[test]
    fn parse_errors_name_the_parameter() {
        let many_columns = (1..=MAX_COLUMNS + 1)
            .map(|i| format!("p{i}"))
            .collect::<Vec<_>>()
            .join(",");
        for (params, param) in [
            (vec![("colour", "red")], "colour"),
            (vec![("from", "yesterday")], "from"),
            (vec![("from", "now"), ("to", "-1h")], "from"),
            (vec![("step", "90s")], "step"),
            (vec![("step", "1.5s")], "step"),
            (vec![("step", "1m"), ("from", "-3650d")], "step"),
            (vec![("filter", "status:200")], "filter"),
            (vec![("columns", "req_percent")], "columns"),
            (vec![("columns", "nope")], "columns"),
            (vec![("group", "hosts")], "group"),
            (vec![("limit", "101")], "limit"),
            (vec![("format", "xml")], "format"),
            (vec![("step", "1m"), ("step", "2m")], "step"),
            (vec![("columns", "p99,req_count,p99")], "columns"),
            (vec![("columns", &many_columns)], "columns"),
            (
                vec![("group", "total"), ("filter", "script_name:/a")],
                "filter",
            ),
            (vec![("from", "-9223372036854775808s")], "from"),
            (vec![("from", "-10000000000000000000s")], "from"),
            (vec![("to", "-40y")], "to"),
            (vec![("step", "9600000000000000000s")], "step"),
            // Longer than the range (the default hour): one point starting before `from`.
            (vec![("step", "99999999999d")], "step"),
            (vec![("step", "2h")], "step"),
            (vec![("from", "-30s"), ("step", "2m")], "step"),
            // Before 1970, however written.
            (vec![("from", "1969-12-31T00:00:00Z")], "from"),
            (vec![("from", "-1")], "from"),
            (vec![("to", "1e11")], "to"),
            // Each bounded, but too many values together: 101 series × 1440 points × 7 columns.
            (
                vec![
                    ("from", "-1d"),
                    ("step", "1m"),
                    ("limit", "100"),
                    ("columns", "req_count,p50,p75,p90,p95,p99,p99.9"),
                ],
                "limit",
            ),
            // One series (the totals), 100,000 points of 11 columns.
            (
                vec![
                    ("from", "-6000000s"),
                    ("step", "1m"),
                    ("group", "total"),
                    ("columns", "req_count,p1,p2,p3,p4,p5,p6,p7,p8,p9,p10"),
                ],
                "step",
            ),
        ] {
            let e = parse(&pairs(&params), &shape(60), 1_000_000_000, 100).unwrap_err();
            assert_eq!(e.param, param, "{params:?}: {e:?}");
        }
    }

    /// The product of series, points and columns is bounded; the error names what to change,
    /// and just within the bound is taken.
    #[test]
    fn too_many_values_is_refused_naming_the_parameters() {
        let ask = |limit: &str, span_s: u64| {
            parse(
                &pairs(&[
                    ("from", &(1_000_000 - span_s).to_string()),
                    ("to", "1000000"),
                    ("step", "1m"),
                    ("limit", limit),
                    ("columns", "req_count,p99"),
                ]),
                &shape(60),
                1_000_000,
                100_000,
            )
        };
        // 1000 series × 500 points × 2 columns: exactly the bound.
        assert!(ask("999", 500 * 60).is_ok());
        let e = ask("1000", 500 * 60).unwrap_err();
        assert_eq!(e.param, "limit");
        for named in [
            "`limit`",
            "`from`",
            "`to`",
            "`step`",
            "`columns`",
            "1001000",
        ] {
            assert!(e.why.contains(named), "{named}: {}", e.why);
        }
    }

    /// Counts past `i64::MAX` are stored saturated, never wrapped to negative (read back as 0);
    /// time and byte sums past it are stored as floats, not cut. Steps holding them still order
    /// the rows (SQLite's `sum` would fail with "integer overflow") and add up on read: counts
    /// stopping at `u64::MAX`, times summed whole (96 bits) past it.
    #[test]
    fn sums_past_i64_are_kept_and_still_answer() {
        let (_dir, path, mut store, id) = new_store(60);
        // 2^70 ns: 37,400 years of request time in one row of one step, a float exactly.
        let big_ns = 1u128 << 70;
        let huge = || {
            let mut step = Step::default();
            let mut h = Histogram::new();
            h.add(2_000_000, 1);
            for (key, n, time_ns) in [("/big", u64::MAX, big_ns), ("/small", 5, 5)] {
                let sums = Sums {
                    req_count: n,
                    time_ns: Sum96::saturating_from(time_ns),
                    traffic_bytes: Sum96::saturating_from(time_ns),
                    ..Sums::default()
                };
                let key = vec![key.to_string(), "nl".to_string()].into_boxed_slice();
                step.add_row(key, &sums, &h);
                step.add_totals(&sums, &h);
            }
            step
        };
        store
            .write(vec![(id, 0, huge(), 10), (id, 60, huge(), 10)])
            .unwrap();
        // Written again: merged with what is stored (i64::MAX read back) on the write path.
        store.write(vec![(id, 120, huge(), 10)]).unwrap();
        store.write(vec![(id, 120, huge(), 10)]).unwrap();
        let conn = Store::open_reader(&path).unwrap();
        let stored: Vec<(i64, f64)> = conn
            .prepare(
                "SELECT req_count, time_ns FROM steps WHERE row = 0 AND key LIKE '%big%' \
                 ORDER BY t",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let big = big_ns as f64;
        assert_eq!(
            stored,
            [(i64::MAX, big), (i64::MAX, big), (i64::MAX, 2.0 * big)],
            "counts saturated, not wrapped to negative; times kept (step 120 written twice)"
        );
        let sh = shape(60);
        let ask = |params: &[(&str, &str)]| {
            let mut all = pairs(&[
                ("from", "0"),
                ("to", "180"),
                ("columns", "req_count,req_time_total"),
            ]);
            all.extend(pairs(params));
            let q = parse(&all, &sh, 1000, 100).unwrap();
            run(&conn, id, &sh, &q).unwrap().series
        };
        // A total past u64::MAX in the JSON answer: printed whole (a `serde_json::Value` could
        // not hold it: the handler panicked).
        let q = parse(
            &pairs(&[
                ("from", "0"),
                ("to", "180"),
                ("step", "3m"),
                ("columns", "traffic_total"),
            ]),
            &sh,
            1000,
            100,
        )
        .unwrap();
        let answer = run(&conn, id, &sh, &q).unwrap();
        let text = to_json(&sh, &q, &answer.series, 0);
        let whole = (4 * big_ns).to_string();
        assert!(text.contains(&format!("[0,{whole}]")), "{text}");
        let max = Cell::Int(i64::MAX as u128);
        let rows = ask(&[]);
        assert_eq!(rows[0].key, ["/big", "nl"]);
        assert_eq!(rows[1].key, ["/small", "nl"]);
        let firsts: Vec<&Cell> = rows[0].points.iter().map(|p| &p[1]).collect();
        assert_eq!(firsts, [&max, &max, &max]);
        assert_eq!(rows[1].points[2][1], Cell::Int(10), "/small, written twice");
        let seconds = |p: &[Cell]| num(&p[2]);
        assert_eq!(seconds(&rows[0].points[0]), big / 1e9);
        assert_eq!(seconds(&rows[0].points[2]), 2.0 * big / 1e9);
        assert_eq!(seconds(&rows[1].points[2]), 10e-9, "/small");
        // Three steps in one point: counts past u64::MAX stopped there, times summed whole.
        let rows = ask(&[("step", "3m")]);
        assert_eq!(rows[0].points[0][1], Cell::Int(u64::MAX as u128));
        assert_eq!(seconds(&rows[0].points[0]), 4.0 * big / 1e9);
        let totals = ask(&[("step", "3m"), ("group", "total")]);
        assert_eq!(totals[0].points[0][1], Cell::Int(u64::MAX as u128));
        assert_eq!(seconds(&totals[0].points[0]), (4.0 * big + 20.0) / 1e9);
        let totals = ask(&[("group", "total")]);
        assert_eq!(totals[0].points[0][1], max);
    }

    /// Issue 83: an answer rendered a chunk at a time is the answer serde renders whole, in
    /// chunks of about the size asked; what it holds goes down to 0; what is counted before the
    /// read (`estimate`) is at least what the read holds.
    #[test]
    fn an_answer_rendered_in_chunks_is_the_whole_answer_and_its_bound_holds() {
        let steps: Vec<(i64, &str, Vec<u64>)> = (0..600)
            .flat_map(|i| {
                [
                    (i * 60, "/a,\"b\"", vec![1_000_000, 2_000_000]),
                    (i * 60, "/c", vec![5_000_000]),
                ]
            })
            .collect();
        let (_dir, conn, id) = store_with(60, &steps);
        let sh = shape(60);
        for (group, format) in [("rows", "json"), ("rows", "csv"), ("total", "json")] {
            let q = parse(
                &pairs(&[
                    ("from", "0"),
                    ("to", "36000"),
                    ("step", "1m"),
                    ("group", group),
                    ("format", format),
                ]),
                &sh,
                100_000,
                100,
            )
            .unwrap();
            let bound = estimate(&conn, id, &sh, &q).unwrap();
            let answer = run(&conn, id, &sh, &q).unwrap();
            let held = series_bytes(&answer.series);
            assert!(held > 0 && bound >= held, "{group}: {bound} < {held}");
            // Whole, as serde renders it (JSON), or line by line (CSV).
            let expected = if q.csv {
                let mut out = format!("t,script_name,country,{}\r\n", q.column_names.join(","));
                for s in &answer.series {
                    for p in &s.points {
                        let mut cells: Vec<String> = p
                            .iter()
                            .map(|c| {
                                let (mut text, mut field) = (String::new(), String::new());
                                c.render(&mut text);
                                csv_field(&mut field, &text);
                                field
                            })
                            .collect();
                        let keys = s.key.iter().map(|k| {
                            let mut f = String::new();
                            csv_field(&mut f, k);
                            f
                        });
                        cells.splice(1..1, keys);
                        out.push_str(&cells.join(","));
                        out.push_str("\r\n");
                    }
                }
                out
            } else {
                serde_json::to_string(&JsonAnswer::of(&sh, &q, &answer.series, 2)).unwrap()
            };
            let mut r = Rendering::new(&sh, &q, answer.series, 2);
            assert_eq!(r.held(), held);
            let (mut all, mut chunks) = (Vec::new(), 0);
            while let Some(c) = r.next_chunk(4096) {
                assert!(c.len() < 4096 + 512, "{}", c.len());
                all.extend_from_slice(&c);
                chunks += 1;
            }
            assert!(r.done() && r.held() == 0);
            assert!(chunks > 5, "{group} {format}: {chunks} chunks");
            assert_eq!(
                String::from_utf8(all).unwrap(),
                expected,
                "{group} {format}"
            );
        }
        // A range holding nothing reads nothing and holds nothing.
        let q = parse(
            &pairs(&[("from", "90000"), ("to", "99000")]),
            &sh,
            100_000,
            100,
        )
        .unwrap();
        assert_eq!(estimate(&conn, id, &sh, &q).unwrap(), 0);
    }

    /// A store in a new file (in the directory returned) with report "r" (keys `script_name`,
    /// `country`) registered at stored step `stored_s`: its path, the store and the report's id.
    fn new_store(stored_s: u64) -> (tempfile::TempDir, std::path::PathBuf, Store, i64) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut store = Store::open(&path).unwrap();
        let id = store
            .register(&ReportInfo {
                name: "r".into(),
                fingerprint: "f".into(),
                kind: "request".into(),
                key_columns: vec!["script_name".into(), "country".into()],
                step_ms: stored_s * 1000,
                retention_ms: 1 << 40,
            })
            .unwrap()
            .id;
        (dir, path, store, id)
    }

    /// A store with `steps` of stored step `stored_s`: each (t, key, values in ns).
    fn store_with(
        stored_s: u64,
        steps: &[(i64, &str, Vec<u64>)],
    ) -> (tempfile::TempDir, Connection, i64) {
        store_keeping(stored_s, steps, 2)
    }

    /// [`store_with`], each step keeping `keep` rows (the rest in its "(other)" row).
    pub(in crate::history) fn store_keeping(
        stored_s: u64,
        steps: &[(i64, &str, Vec<u64>)],
        keep: usize,
    ) -> (tempfile::TempDir, Connection, i64) {
        let (dir, path, mut store, id) = new_store(stored_s);
        let mut by_t: BTreeMap<i64, Step> = BTreeMap::new();
        for (t, key, values) in steps {
            let mut h = Histogram::new();
            for &v in values {
                h.add(v, 1);
            }
            let sums = Sums {
                req_count: values.len() as u64,
                time_ns: values.iter().sum::<u64>().into(),
                ..Sums::default()
            };
            let step = by_t.entry(*t).or_default();
            step.add_row(
                vec![key.to_string(), "nl".to_string()].into_boxed_slice(),
                &sums,
                &h,
            );
            step.add_totals(&sums, &h);
        }
        store
            .write(by_t.into_iter().map(|(t, s)| (id, t, s, keep)).collect())
            .unwrap();
        (dir, Store::open_reader(&path).unwrap(), id)
    }

    fn num(c: &Cell) -> f64 {
        match c {
            Cell::Int(i) => *i as f64,
            Cell::Float(f) => *f,
            _ => f64::NAN,
        }
    }

    #[test]
    fn rows_other_filters_and_coarser_steps() {
        let (_dir, conn, id) = store_with(
            60,
            &[
                (0, "/a", vec![1_000_000; 3]),
                (0, "/b", vec![2_000_000; 2]),
                (0, "/c", vec![9_000_000]),
                (60, "/a", vec![1_000_000]),
                (120, "/b", vec![4_000_000]),
            ],
        );
        let sh = shape(60);
        let ask = |params: &[(&str, &str)]| {
            let mut all = pairs(&[("from", "0"), ("to", "180")]);
            all.extend(pairs(params));
            let q = parse(&all, &sh, 1000, 100).unwrap();
            let out = run(&conn, id, &sh, &q).unwrap().series;
            (q, out)
        };
        let (_, out) = ask(&[("columns", "req_count,req_per_sec")]);
        // Kept per step: 2 rows; at t=0 /a (3 ms) went to other. Top over the range by time:
        // /c (9 ms), /b (8 ms), then the other row.
        let keys: Vec<(&str, bool)> = out.iter().map(|s| (s.key[0].as_str(), s.other)).collect();
        assert_eq!(
            keys,
            [("/c", false), ("/b", false), ("/a", false), (OTHER, true)]
        );
        let b = &out[1];
        assert_eq!(b.points.len(), 2);
        assert_eq!(num(&b.points[0][1]), 2.0);
        assert_eq!(num(&b.points[0][2]), 2.0 / 60.0);
        // One 180 s step: everything sums; totals = every request.
        let (_, out) = ask(&[
            ("step", "3m"),
            ("group", "total"),
            ("columns", "req_count,p50"),
        ]);
        assert_eq!(out.len(), 1);
        assert!(out[0].key.is_empty());
        assert_eq!(out[0].points.len(), 1);
        assert_eq!(num(&out[0].points[0][1]), 8.0);
        // Filters: exact match on a key column; the other row only when asked for.
        let (q, out) = ask(&[("filter", "script_name:/b")]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].key, ["/b", "nl"]);
        let csv = to_csv(&sh, &q, &out);
        assert!(csv.starts_with("t,script_name,country,req_count,req_per_sec,p50,p95,p99\r\n"));
        assert_eq!(csv.lines().count(), 3);
    }

    /// A stored row that cannot be read back (a histogram blob that does not decode, a sum of
    /// the wrong type, a key that is not a JSON array) is left out of the answer and counted;
    /// the rest of the answer stands. Each made every query over its time fail (a 500).
    #[test]
    fn damaged_rows_are_left_out_and_counted() {
        let (dir, conn, id) = store_with(
            60,
            &[
                (0, "/a", vec![1_000_000; 3]),
                (0, "/b", vec![2_000_000; 2]),
                (60, "/a", vec![1_000_000]),
                (60, "/b", vec![4_000_000]),
            ],
        );
        let sh = shape(60);
        let ask = |params: &[(&str, &str)]| {
            let mut all = pairs(&[("from", "0"), ("to", "120"), ("columns", "req_count,p50")]);
            all.extend(pairs(params));
            let q = parse(&all, &sh, 1000, 100).unwrap();
            run(&conn, id, &sh, &q).unwrap()
        };
        let whole = ask(&[]);
        assert_eq!((whole.series.len(), whole.damaged_rows), (2, 0));
        let writer = Connection::open(dir.path().join(super::super::store::FILE)).unwrap();
        let damage = |sql: &str| {
            assert_eq!(
                writer.execute(sql, rusqlite::params![id]).unwrap(),
                1,
                "{sql}"
            );
        };
        damage(&format!(
            "UPDATE steps SET hist = x'09' WHERE report = ?1 AND row = {ROW} AND t = 0 \
             AND key = '[\"/a\",\"nl\"]'"
        ));
        damage(&format!(
            "UPDATE steps SET req_count = 'many' WHERE report = ?1 AND row = {ROW} AND t = 60 \
             AND key = '[\"/b\",\"nl\"]'"
        ));
        damage(&format!(
            "UPDATE steps SET hist = x'09' WHERE report = ?1 AND row = {TOTALS_ROW} AND t = 60"
        ));
        let out = ask(&[]);
        assert_eq!(out.damaged_rows, 2);
        let by_key = |k: &str| {
            let s = out.series.iter().find(|s| s.key[0] == k).unwrap();
            s.points.iter().map(|p| p[0].clone()).collect::<Vec<_>>()
        };
        assert_eq!(
            by_key("/a"),
            [Cell::Int(60)],
            "/a's damaged step at 0 left out"
        );
        assert_eq!(
            by_key("/b"),
            [Cell::Int(0)],
            "/b's damaged step at 60 left out"
        );
        let totals = ask(&[("group", "total")]);
        assert_eq!(totals.damaged_rows, 1);
        assert_eq!(totals.series[0].points.len(), 1, "the step at 60 left out");
        // A key that is not a JSON array of strings: counted once, as a top key, no series.
        damage(&format!(
            "UPDATE steps SET key = 'not json' WHERE report = ?1 AND row = {ROW} AND t = 60 \
             AND key = '[\"/a\",\"nl\"]'"
        ));
        let out = ask(&[]);
        assert_eq!(out.damaged_rows, 3);
        let json = to_json(
            &sh,
            &parse(&pairs(&[("from", "0"), ("to", "120")]), &sh, 1000, 100).unwrap(),
            &out.series,
            out.damaged_rows,
        );
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(json["damaged_rows"], 3);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Aggregated on read to a coarser step, a series equals what the raw samples give:
        /// counts exactly, percentiles within 1 % (from the merged histograms).
        #[test]
        fn coarser_step_equals_the_raw_samples(
            samples in proptest::collection::vec((0i64..12, 0usize..3, 1_000u64..5_000_000_000), 1..400),
            factor in 1u64..7,
        ) {
            let keys = ["/a", "/b", "/c"];
            let steps: Vec<(i64, &str, Vec<u64>)> = samples
                .iter()
                .map(|&(t, k, v)| (t * 10, keys[k], vec![v]))
                .collect();
            let (_dir, conn, id) = store_with(10, &steps);
            let sh = shape(10);
            let step = 10 * factor;
            let q = parse(
                &pairs(&[("from", "0"), ("to", "120"), ("step", &format!("{step}s")), ("group", "total"),
                    ("columns", "req_count,req_time_total,p50,p95,p99")]),
                &sh, 1000, 100,
            ).unwrap();
            let out = run(&conn, id, &sh, &q).unwrap().series;
            let mut raw: BTreeMap<i64, Vec<u64>> = BTreeMap::new();
            for &(t, _, v) in &samples {
                raw.entry(t * 10 / step as i64 * step as i64).or_default().push(v);
            }
            prop_assert_eq!(out[0].points.len(), raw.len());
            for (p, (t, values)) in out[0].points.iter().zip(raw.iter_mut()) {
                values.sort_unstable();
                prop_assert_eq!(num(&p[0]) as i64, *t);
                prop_assert_eq!(num(&p[1]) as usize, values.len());
                let total: u64 = values.iter().sum();
                prop_assert!((num(&p[2]) - total as f64 / 1e9).abs() < 1e-6);
                for (i, pc) in [50.0, 95.0, 99.0].iter().enumerate() {
                    let r = crate::histogram::rank(*pc, values.len() as u64) as usize;
                    let exact = values[r - 1] as f64 / 1e9;
                    let got = num(&p[3 + i]);
                    prop_assert!((got - exact).abs() <= exact * 0.01, "p{} {} vs {}", pc, got, exact);
                }
            }
        }
    }
}
