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
use crate::histogram::Histogram;
use crate::report::{Cell, Kind, SumColumn, Sums, Table};
use crate::sink::clickhouse::{fleet_sql, query, ROW, TOTALS};

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
    )
)]
async fn fleet_report(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = query_pairs(raw.as_deref())?;
    let budget = std::sync::Arc::clone(state.core.budget());
    let text = blocking(&state.clone(), move || answer(&state, &name, &params)).await?;
    // Sent in chunks, counted in the budget until sent (see `super::answer`), as a local
    // report's answer is.
    let body = super::answer::stream_text(text.into_bytes(), &budget)?;
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

fn answer(state: &ApiState, name: &str, params: &[(String, String)]) -> Result<String, ApiError> {
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
    let unavailable = |e: String| ApiError {
        status: StatusCode::BAD_GATEWAY,
        error: "clickhouse_unavailable",
        detail: format!("ClickHouse: {e}"),
    };
    let text = query(config, &sql).map_err(unavailable)?;
    let rows_total: usize = query(config, &count_sql)
        .map_err(unavailable)?
        .trim()
        .parse()
        .unwrap_or(0);
    let rows: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if local.is_none() && rows.is_empty() {
        // `reports = "*"` names every report: one that is neither here nor in ClickHouse is
        // none that a sink writes.
        let any = format!(
            "SELECT count() FROM {}.{} WHERE report = {}",
            config.database,
            config.ticks_table,
            literal(name)
        );
        let ticks: u64 = query(config, &any)
            .map_err(unavailable)?
            .trim()
            .parse()
            .unwrap_or(0);
        if ticks == 0 {
            return Err(ApiError::not_found(format!(
                "no report `{name}`: this pinbad has none and ClickHouse holds no ticks of it"
            )));
        }
    }
    let found_kind = rows
        .first()
        .and_then(|r| serde_json::from_value::<Kind>(r["kind"].clone()).ok());
    let (kind, keys, key_columns, percentiles) = match local {
        Some(l) => l,
        None => {
            let names: Vec<String> = rows
                .iter()
                .find(|r| number(&r["row_type"]) == ROW as u64)
                .and_then(|r| serde_json::from_value(r["key_names"].clone()).ok())
                .unwrap_or_default();
            (
                found_kind.unwrap_or(Kind::Request),
                names.clone(),
                names,
                vec![95.0, 99.0],
            )
        }
    };
    let sums: Vec<SumColumn> = SumColumn::names(kind)
        .into_iter()
        .filter_map(|n| SumColumn::named(kind, n))
        .collect();
    let median = if kind == Kind::Timer {
        "timer_median"
    } else {
        "req_time_median"
    };
    // The live report's columns: after each rate its share of the totals (`req_per_sec`,
    // `req_percent`), as `*_percent` follows `*_per_sec` there.
    let percent_of = |c: &SumColumn| {
        c.name()
            .strip_suffix("_per_sec")
            .map(|n| format!("{n}_percent"))
    };
    let mut columns = key_columns.clone();
    for c in &sums {
        columns.push(c.name().to_string());
        columns.extend(percent_of(c));
    }
    columns.push(median.to_string());
    let percentiles = p.percentiles.clone().unwrap_or(percentiles);
    let mut ps = vec![50.0];
    for &q in &percentiles {
        columns.push(crate::report::percentile_column(q));
        ps.push(q);
    }
    // The span of the ticks (the totals row's: every tick of the range), for the rates.
    let totals_row = rows
        .iter()
        .find(|r| number(&r["row_type"]) == TOTALS as u64);
    let (first_ms, end_ms) = totals_row.map_or((0, 0), |r| {
        (number(&r["first_tick_ms"]), number(&r["last_tick_end_ms"]))
    });
    let seconds = end_ms.saturating_sub(first_ms) as f64 / 1000.0;
    // Set when the range starts before the second of the first tick (ranges are whole seconds).
    let complete_from = (totals_row.is_some() && (p.from_s.max(0) as u64) < first_ms / 1000)
        .then(|| first_ms as f64 / 1000.0);
    // No ticks: rates of 0, not 0/0.
    let per = if seconds > 0.0 {
        seconds
    } else {
        f64::INFINITY
    };
    let totals_sums = totals_row.map(|r| sums_and_hist(r).0);
    let mut values = Vec::new();
    let mut cells = |row: &Value| -> Vec<Cell> {
        let (s, h) = sums_and_hist(row);
        let mut out: Vec<Cell> = Vec::new();
        for c in &sums {
            let v = c.value(&s, per);
            if percent_of(c).is_some() {
                let all = totals_sums.as_ref().map(|t| c.value(t, per));
                out.push(v.clone());
                out.push(Cell::Float(match (v, all) {
                    (Cell::Float(x), Some(Cell::Float(t))) if t > 0.0 => 100.0 * x / t,
                    _ => 0.0,
                }));
            } else {
                out.push(v);
            }
        }
        h.percentiles_ns(&ps, &mut values);
        out.extend(
            values
                .iter()
                .map(|v| v.map_or(Cell::Null, |ns| Cell::Float(ns / 1e9))),
        );
        out
    };
    let mut totals = None;
    let mut table_rows = Vec::new();
    for row in &rows {
        match number(&row["row_type"]) as u8 {
            TOTALS => totals = Some(cells(row)),
            ROW if table_rows.len() < p.limit => {
                let texts: Vec<String> =
                    serde_json::from_value(row["keys"].clone()).unwrap_or_default();
                let mut r: Vec<Cell> = texts.into_iter().map(Cell::Text).collect();
                r.resize(key_columns.len(), Cell::Null);
                r.extend(cells(row));
                table_rows.push(r);
            }
            _ => {}
        }
    }
    let totals = totals.unwrap_or_else(|| cells(&Value::Null));
    let table = Table {
        report: name.to_string(),
        kind,
        keys,
        time_interval: seconds,
        history: (p.to_s - p.from_s) as f64,
        tick: tick_ms as f64 / 1000.0,
        complete_from,
        rows_total,
        columns,
        key_columns: key_columns.len(),
        totals,
        rows: table_rows,
    };
    serde_json::to_string(&table).map_err(|e| ApiError::internal(e.to_string()))
}
