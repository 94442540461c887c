//! `GET /api/v1/fleet/reports/{name}`: a report for the whole fleet over any time range, read
//! from the report ticks a ClickHouse sink writes (`reports` of a `[[sink]]`, see
//! `sink::clickhouse::fleet_sql`), in the shape of `/api/v1/reports/{name}`.
//!
//! In: HTTP requests. Out: the report's rows summed over the ticks starting in `[from, to)` of
//! every instance (or one, `instance=`), percentiles from the merged buckets as pinbad computes
//! them (`Histogram::percentiles_ns`). Rates are over the span the ticks cover (the first one's
//! start to the last one's end), not the range asked: an hour asked of six minutes of ticks
//! divides by six minutes, and `complete_from` says where the data starts. The query runs on tokio's blocking pool under a query
//! slot (`super::blocking`): ClickHouse answers over HTTP.

use axum::extract::{RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::ApiState;
use super::{blocking, query_pairs, ApiError, AppState, PathParam};
use crate::config::ClickHouseConfig;
use crate::histogram::Histogram;
use crate::report::{Cell, Kind, SumColumn, Sums, Table};
use crate::sink::clickhouse::{fleet_sql, query_lines_timed, query_timed, ROW, TOTALS};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(fleet_report))
}

/// Rows answered at most unless `limit` says otherwise.
const DEFAULT_LIMIT: usize = 100;

#[utoipa::path(
    get,
    path = "/api/v1/fleet/reports/{name}",
    tag = "reports",
    params(
        ("name" = String, Path, description = "The report's name"),
        ("from" = Option<String>, Query, description = "Unix seconds, RFC 3339, `now` or relative such as `-15m` (default `-1h`): ticks starting at or after it"),
        ("to" = Option<String>, Query, description = "As `from` (default `now`): ticks starting before it"),
        ("instance" = Option<String>, Query, description = "Only this pinbad instance's ticks (default: every instance)"),
        ("limit" = Option<usize>, Query, description = "Rows, the most request time first (default 100; at most limits.max_query_limit)"),
        ("percentiles" = Option<String>, Query, description = "Comma-separated percentiles to show, e.g. `50,99.9` (default: the report's own, or 95,99)"),
    ),
    responses(
        (status = 200, description = "The report over the range for the fleet, in the shape of `/api/v1/reports/{name}`: sums, rates over the span the ticks cover (`time_interval`; `complete_from` its start when the range starts before the first tick), shares of the totals and percentiles", body = super::openapi::ReportTable),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, description = "No ClickHouse sink writes the report's ticks (with `reports = \"*\"`: no such report here and no ticks of it in ClickHouse)", body = super::openapi::ErrorBody),
        (status = 502, description = "ClickHouse did not answer, or refused the query", body = super::openapi::ErrorBody),
        (status = 503, description = "Too many queries run, or the memory budget has no room for the answer (`memory_full`)", body = super::openapi::ErrorBody),
    )
)]
async fn fleet_report(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = query_pairs(raw.as_deref())?;
    let (table, held) = blocking(&state.clone(), move || answer(&state, &name, &params)).await?;
    // Rendered a chunk at a time as the client reads, counted in the budget until sent (see
    // `super::answer`), as a local report's answer is.
    let body = held.stream_table(table, super::answer::Format::Json);
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// The query's parameters.
struct Params {
    from_s: i64,
    to_s: i64,
    instance: Option<String>,
    limit: usize,
    percentiles: Option<Vec<f64>>,
}

fn parse(params: &[(String, String)], now_s: i64, max_limit: usize) -> Result<Params, ApiError> {
    let mut p = Params {
        from_s: now_s - 3600,
        to_s: now_s,
        instance: None,
        limit: DEFAULT_LIMIT.min(max_limit),
        percentiles: None,
    };
    let mut seen: Vec<&str> = Vec::new();
    for (key, value) in params {
        if seen.contains(&key.as_str()) {
            return Err(ApiError::bad_parameter(key, "given twice"));
        }
        seen.push(key);
        let time = |v: &str| {
            crate::history::query::parse_time(key, v, now_s)
                .map_err(|e| ApiError::bad_parameter(&e.param, e.why))
        };
        match key.as_str() {
            "from" => p.from_s = time(value)?,
            "to" => p.to_s = time(value)?,
            "instance" => p.instance = Some(value.clone()),
            "limit" => {
                p.limit = value
                    .parse()
                    .ok()
                    .filter(|n| *n <= max_limit)
                    .ok_or_else(|| {
                        ApiError::bad_parameter(
                            "limit",
                            format!("`{value}` is not an integer in 0..={max_limit}"),
                        )
                    })?
            }
            "percentiles" => {
                let ps = value
                    .split(',')
                    .map(str::trim)
                    .filter(|q| !q.is_empty())
                    .map(|q| {
                        q.parse::<f64>().map_err(|_| {
                            ApiError::bad_parameter("percentiles", format!("`{q}` is not a number"))
                        })
                    })
                    .collect::<Result<Vec<f64>, _>>()?;
                crate::report::validate_percentiles(&ps)
                    .map_err(|e| ApiError::bad_parameter("percentiles", e))?;
                p.percentiles = Some(ps);
            }
            _ => {
                return Err(ApiError::bad_parameter(
                    key,
                    "unknown parameter (expected from, to, instance, limit, percentiles)",
                ))
            }
        }
    }
    if p.from_s >= p.to_s {
        return Err(ApiError::bad_parameter(
            "from",
            format!(
                "`from` ({}) is not before `to` ({}): the range holds no time",
                p.from_s, p.to_s
            ),
        ));
    }
    Ok(p)
}

/// ClickHouse's error as the fleet's endpoints answer it.
pub(super) fn unavailable(e: String) -> ApiError {
    ApiError {
        status: StatusCode::BAD_GATEWAY,
        error: "clickhouse_unavailable",
        detail: format!("ClickHouse: {e}"),
    }
}

/// Reads `sql`'s answer (`FORMAT JSONEachRow`) a line at a time, each parsed and handed to `row`
/// before the next is read, never held whole (see `query_lines_timed`); ClickHouse stops it
/// after the sink's `timeout`. A line that is not JSON is left out; a 502 when ClickHouse fails.
/// Why a line at a time: an answer of 100,000 rows with their histograms, read and parsed whole,
/// took gigabytes outside the memory budget.
pub(super) fn each_row(
    config: &ClickHouseConfig,
    sql: &str,
    mut row: impl FnMut(Value),
) -> Result<(), ApiError> {
    query_lines_timed(config, sql, |line| {
        if let Ok(v) = serde_json::from_str::<Value>(line) {
            row(v);
        }
        Ok(())
    })
    .map_err(unavailable)
}

/// The number a counting query (`SELECT count() ...`) answers; 0 when it is not one.
pub(super) fn count(config: &ClickHouseConfig, sql: &str) -> Result<u64, ApiError> {
    Ok(query_timed(config, sql)
        .map_err(unavailable)?
        .trim()
        .parse()
        .unwrap_or(0))
}

/// Counts an answer read from ClickHouse in the memory budget before its rows are read: `bound`,
/// what it will hold (from a count ClickHouse answers first), and what reading a line holds
/// ([`READING_BYTES`]); a 503 `memory_full` when the budget has no room for it. Sent in chunks
/// from then on, counted at what is left of it (`super::answer::Held`).
pub(super) fn hold_reading(state: &ApiState, bound: u64) -> Result<super::answer::Held, ApiError> {
    super::answer::hold(bound.saturating_add(READING_BYTES), state.core.budget())
}

/// A string as a ClickHouse string literal.
pub(super) fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// A JSON number ClickHouse wrote (64-bit integers are quoted in JSONEachRow).
pub(super) fn number(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or(0)
}

/// A fleet row's sums and merged histogram.
pub(super) fn sums_and_hist(row: &Value) -> (Sums, Histogram) {
    let sums = Sums {
        req_count: number(&row["req_count"]),
        hit_count: number(&row["hit_count"]),
        time_ns: number(&row["time_ns"]).into(),
        ru_utime_ns: number(&row["ru_utime_ns"]).into(),
        ru_stime_ns: number(&row["ru_stime_ns"]).into(),
        traffic_bytes: number(&row["traffic_bytes"]).into(),
        memory_footprint_bytes: number(&row["memory_footprint_bytes"]).into(),
        memory_peak_bytes: number(&row["memory_peak_bytes"]).into(),
        memory_peak_max: u32::try_from(number(&row["memory_peak_max"])).unwrap_or(u32::MAX),
    };
    let mut hist = Histogram::new();
    let ids = row["hist_ids"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let counts = row["hist_counts"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for (id, count) in ids.iter().zip(counts) {
        let id = number(id);
        if id < crate::histogram::BUCKETS as u64 {
            hist.add_bucket(id as u16, number(count));
        }
    }
    (sums, hist)
}

/// Cells a row of the answer has beside its keys, at most: every sum and its share, the median
/// and the percentiles.
fn most_cells(percentiles: usize) -> usize {
    2 * [Kind::Request, Kind::Timer]
        .iter()
        .map(|&k| SumColumn::names(k).len())
        .max()
        .unwrap_or(0)
        + 1
        + percentiles
}

/// What reading ClickHouse's answer holds beside the table: the line being read, parsed (a
/// row's merged histogram: up to two arrays of `histogram::BUCKETS` numbers), and the totals'
/// row, kept for every row's shares.
const READING_BYTES: u64 = 2 << 20;

/// Bytes a key of a row is counted at before it is read (a key's text and its cell).
const KEY_BYTES: u64 = 128;

/// The fleet's answer, and the memory it holds in the budget: counted before ClickHouse's rows
/// are read at what the table will hold (the rows the count query finds, at most `limit`, each
/// at its most cells), a 503 `memory_full` when the budget has no room for it; the rows read a
/// line at a time, each turned into the table's row as it comes (an answer of 100,000 rows
/// with their histograms, parsed whole, took gigabytes).
fn answer(
    state: &ApiState,
    name: &str,
    params: &[(String, String)],
) -> Result<(Table, super::answer::Held), ApiError> {
    let Some(config) = state.sinks.ticks_of(name) else {
        return Err(ApiError::not_found(format!(
            "no ClickHouse sink writes the ticks of report `{name}` (list it in `reports` of a \
             [[sink]] of kind \"clickhouse\")"
        )));
    };
    let clock = state.core.clock();
    let now_s = crate::history::query::now_s(clock.unix_ms64(clock.now_ms64()));
    let p = parse(params, now_s, state.core.config().limits.max_query_limit)?;
    // What the report is here (its kind, keys, percentiles), if this pinbad has it.
    let tick_ms = state
        .core
        .reports()
        .get(name)
        .map_or(0, |cell| cell.window().tick_ms);
    let local = state.core.reports().get(name).map(|cell| {
        let r = cell.report.read();
        (
            r.kind(),
            r.keys().to_vec(),
            r.key_columns().to_vec(),
            r.def().percentiles.clone(),
        )
    });
    let mut filter = format!(
        "report = {} AND time >= {} AND time < {}",
        literal(name),
        p.from_s.max(0),
        p.to_s.max(0)
    );
    if let Some(i) = &p.instance {
        filter.push_str(&format!(" AND instance = {}", literal(i)));
    }
    let sql = format!(
        "SELECT * FROM ({}) ORDER BY row_type DESC, time_ns DESC LIMIT {} FORMAT JSONEachRow",
        fleet_sql(&config.database, &config.ticks_table, &filter, &[]),
        p.limit.saturating_add(2)
    );
    let count_sql = format!(
        "SELECT uniqExact(keys) FROM {}.{} FINAL WHERE {filter} AND row_type = {ROW}",
        config.database, config.ticks_table
    );
    let rows_total = usize::try_from(count(config, &count_sql)?).unwrap_or(usize::MAX);
    let held = {
        let rows = rows_total.min(p.limit) as u64 + 1;
        let (keys, percentiles) = match &local {
            Some((_, _, keys, ps)) => (keys.len(), ps.len()),
            None => (crate::report::MAX_KEYS, 0),
        };
        let percentiles = p.percentiles.as_ref().map_or(percentiles, Vec::len);
        let cells = most_cells(percentiles.max(2)) + keys;
        let row = (cells * std::mem::size_of::<Cell>() + 64) as u64 + keys as u64 * KEY_BYTES;
        hold_reading(state, rows.saturating_mul(row))?
    };
    // Each line is turned into the table's row as it is read. The rows come totals first
    // (`row_type DESC`), whose span and sums every row's rates and shares are taken from.
    let mut reading: Option<Reading> = None;
    let mut names: Option<Vec<String>> = None;
    let (mut read, mut totals, mut table_rows) = (0usize, None, Vec::new());
    each_row(config, &sql, |row| {
        read += 1;
        // What the report is: here, or as its first row says.
        let r = reading.get_or_insert_with(|| {
            let kind = serde_json::from_value::<Kind>(row["kind"].clone()).ok();
            Reading::new(local.as_ref(), kind, &p)
        });
        match number(&row["row_type"]) as u8 {
            TOTALS if totals.is_none() => {
                r.span(&row, p.from_s);
                totals = Some(r.cells(&row));
            }
            ROW => {
                let names = names.get_or_insert_with(|| {
                    serde_json::from_value(row["key_names"].clone()).unwrap_or_default()
                });
                if table_rows.len() == p.limit {
                    return;
                }
                let keys = local.as_ref().map_or(names.len(), |l| l.2.len());
                let texts: Vec<String> =
                    serde_json::from_value(row["keys"].clone()).unwrap_or_default();
                let mut cells: Vec<Cell> = texts.into_iter().map(Cell::Text).collect();
                cells.resize(keys, Cell::Null);
                cells.extend(r.cells(&row));
                table_rows.push(cells);
            }
            _ => {}
        }
    })?;
    if local.is_none() && read == 0 {
        // `reports = "*"` names every report: one that is neither here nor in ClickHouse is
        // none that a sink writes.
        let any = format!(
            "SELECT count() FROM {}.{} WHERE report = {}",
            config.database,
            config.ticks_table,
            literal(name)
        );
        if count(config, &any)? == 0 {
            return Err(ApiError::not_found(format!(
                "no report `{name}`: this pinbad has none and ClickHouse holds no ticks of it"
            )));
        }
    }
    let mut r = reading.unwrap_or_else(|| Reading::new(local.as_ref(), None, &p));

    let totals = totals.unwrap_or_else(|| r.cells(&Value::Null));
    let (keys, key_columns) = match local {
        Some((_, keys, key_columns, _)) => (keys, key_columns),
        None => {
            let names = names.unwrap_or_default();
            (names.clone(), names)
        }
    };
    let mut columns = key_columns.clone();
    columns.append(&mut r.columns);
    let table = Table {
        report: name.to_string(),
        kind: r.kind,
        keys,
        time_interval: r.seconds,
        history: (p.to_s - p.from_s) as f64,
        tick: tick_ms as f64 / 1000.0,
        complete_from: r.complete_from,
        rows_total,
        columns,
        key_columns: key_columns.len(),
        totals,
        rows: table_rows,
    };
    Ok((table, held))
}

/// A report as this pinbad has it: its kind, keys, key columns and percentiles.
type Local = (Kind, Vec<String>, Vec<String>, Vec<f64>);

/// What turns a row of ClickHouse's answer into the table's cells: the report's kind, its
/// columns beside the keys, and the span of the ticks (the totals row's), for the rates.
struct Reading {
    kind: Kind,
    sums: Vec<SumColumn>,
    /// The columns after the keys: each sum (and after each rate its share of the totals, as
    /// `*_percent` follows `*_per_sec` in the live report), the median, the percentiles.
    columns: Vec<String>,
    /// 50 (the median) and the percentiles asked.
    ps: Vec<f64>,
    values: Vec<Option<f64>>,
    /// Seconds the ticks span (0 without ticks).
    seconds: f64,
    /// What rates divide by: the span, or infinity without ticks (rates of 0, not 0/0).
    per: f64,
    complete_from: Option<f64>,
    totals_sums: Option<Sums>,
}

impl Reading {
    /// Of the report as it is here (`local`: its kind, keys, key columns, percentiles), or as
    /// ClickHouse's rows say (`found`: their kind) with 95 and 99 (unless `p` asks others).
    fn new(local: Option<&Local>, found: Option<Kind>, p: &Params) -> Reading {
        let (kind, percentiles) = match local {
            Some((kind, _, _, ps)) => (*kind, ps.clone()),
            None => (found.unwrap_or(Kind::Request), vec![95.0, 99.0]),
        };
        let sums: Vec<SumColumn> = SumColumn::names(kind)
            .into_iter()
            .filter_map(|n| SumColumn::named(kind, n))
            .collect();
        let mut columns = Vec::new();
        for c in &sums {
            columns.push(c.name().to_string());
            columns.extend(percent_of(c));
        }
        columns.push(
            if kind == Kind::Timer {
                "timer_median"
            } else {
                "req_time_median"
            }
            .to_string(),
        );
        let mut ps = vec![50.0];
        for &q in p.percentiles.as_ref().unwrap_or(&percentiles) {
            columns.push(crate::report::percentile_column(q));
            ps.push(q);
        }
        Reading {
            kind,
            sums,
            columns,
            ps,
            values: Vec::new(),
            seconds: 0.0,
            per: f64::INFINITY,
            complete_from: None,
            totals_sums: None,
        }
    }

    /// Takes the span of the ticks and the sums from `totals`, the totals row of a range
    /// from `from_s`.
    fn span(&mut self, totals: &Value, from_s: i64) {
        let (first_ms, end_ms) = (
            number(&totals["first_tick_ms"]),
            number(&totals["last_tick_end_ms"]),
        );
        self.seconds = end_ms.saturating_sub(first_ms) as f64 / 1000.0;
        // Set when the range starts before the second of the first tick (ranges are whole
        // seconds).
        self.complete_from =
            ((from_s.max(0) as u64) < first_ms / 1000).then(|| first_ms as f64 / 1000.0);
        if self.seconds > 0.0 {
            self.per = self.seconds;
        }
        self.totals_sums = Some(sums_and_hist(totals).0);
    }

    /// The cells of `row` after its keys.
    fn cells(&mut self, row: &Value) -> Vec<Cell> {
        let (s, h) = sums_and_hist(row);
        let mut out: Vec<Cell> = Vec::new();
        for c in &self.sums {
            let v = c.value(&s, self.per);
            if percent_of(c).is_some() {
                let all = self.totals_sums.as_ref().map(|t| c.value(t, self.per));
                out.push(v.clone());
                out.push(Cell::Float(match (v, all) {
                    (Cell::Float(x), Some(Cell::Float(t))) if t > 0.0 => 100.0 * x / t,
                    _ => 0.0,
                }));
            } else {
                out.push(v);
            }
        }
        h.percentiles_ns(&self.ps, &mut self.values);
        out.extend(
            self.values
                .iter()
                .map(|v| v.map_or(Cell::Null, |ns| Cell::Float(ns / 1e9))),
        );
        out
    }
}

/// A rate's share column (`req_per_sec` → `req_percent`), if it is a rate.
fn percent_of(c: &SumColumn) -> Option<String> {
    c.name()
        .strip_suffix("_per_sec")
        .map(|n| format!("{n}_percent"))
}
