//! `GET /api/v1/fleet/reports/{name}/history`: a report's time series for the whole fleet, read
//! from the report ticks a ClickHouse sink writes (one row per report row per tick per
//! instance, see docs/fleets.md), in the shape of `/api/v1/reports/{name}/history` so that the
//! dashboard draws it with the same code.
//!
//! In: HTTP requests. Out: per step (`intDiv(tick_start_ms, step)`: a tick counts in the step
//! its start falls in) the sums of every instance's ticks (or one's, `instance=`), and
//! percentiles from their merged buckets (`sumMap` of `hist_ids`/`hist_counts`: exact, so a
//! percentile is the one pinbad computes over the same requests). The parameters are parsed
//! by `history::query::parse`, against the report as this pinbad has it (or as its ticks in
//! ClickHouse name it), with the ticks' length as the stored step. Bounded as the history
//! endpoint is (its points, series and values per answer, checked before ClickHouse is asked),
//! and counted in the memory budget as the history endpoint's answer is: at its bound before a
//! row is read (`history::query::bound` of the steps ClickHouse counts first), a 503
//! `memory_full` when the budget has no room for it; the rows read a line at a time, each added
//! to its series' point as it comes (one histogram a series at a time: the rows come in time
//! order); the answer rendered a chunk at a time as its client reads it. ClickHouse is told to
//! stop after the sink's `timeout` (`max_execution_time`). Runs on tokio's blocking pool under
//! a query slot (`super::blocking`).
//!
//! Apart from `super::fleet` (the fleet's report over a range) so that each can change alone;
//! they share its reading (`each_row`, `hold_reading`, `sums_and_hist`).

use std::collections::HashMap;

use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::answer::Held;
use super::fleet::{count, each_row, hold_reading, literal, number, sums_and_hist};
use super::ApiState;
use super::{blocking, query_pairs, ApiError, AppState, PathParam};
use crate::config::ClickHouseConfig;
use crate::history::query::{self, HistoryQuery, Series, SeriesOut, Shape};
use crate::history::step::{Part, OTHER};
use crate::report::Kind;
use crate::sink::clickhouse::{OTHER as OTHER_ROW, ROW, TOTALS};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(fleet_history))
}

#[utoipa::path(
    get,
    path = "/api/v1/fleet/reports/{name}/history",
    tag = "reports",
    params(
        ("name" = String, Path, description = "The report's name"),
        ("from" = Option<String>, Query, description = "Unix seconds, RFC 3339, `now` or relative such as `-15m` (default `-1h`): ticks starting at or after it"),
        ("to" = Option<String>, Query, description = "As `from` (default `now`): ticks starting before it"),
        ("step" = Option<String>, Query, description = "A duration, a multiple of the ticks' length (`stored_step`), at most `from` to `to` (default: the ticks' length, made coarser to give at most 1000 points)"),
        ("instance" = Option<String>, Query, description = "Only this pinbad instance's ticks (default: every instance)"),
        ("filter" = Option<Vec<String>>, Query, description = "`KEY_COLUMN:VALUE`, exact; repeatable (all must hold)"),
        ("columns" = Option<String>, Query, description = "As the history endpoint's: sums and rates, `req_time_median`/`timer_median`, `p<N>` (default `req_count,req_per_sec,p50,p95,p99`, timer reports `req_count,hit_count,timer_value,p50,p95,p99`)"),
        ("group" = Option<String>, Query, description = "`rows` (default: a series per row key, top `limit` by time over the range, and the \"(other)\" row) or `total` (one series, the report's totals)"),
        ("limit" = Option<usize>, Query, description = "Series with `group=rows` (default 10, or limits.max_query_limit when lower; at most limits.max_query_limit)"),
        ("format" = Option<String>, Query, description = "`json` (default) or `csv`"),
    ),
    responses(
        (status = 200, description = "The fleet's series, in the shape of `/api/v1/reports/{name}/history`: a point `[t, v1, v2, ...]` per step with ticks (`t`: the step's start, unix seconds), each the sum over every instance's ticks starting in it, percentiles from their merged histograms; `stored_step` is the ticks' length", content(
            (super::openapi::HistoryAnswer = "application/json"),
            (String = "text/csv"),
        )),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, description = "No ClickHouse sink writes the report's ticks (with `reports = \"*\"`: no such report here and no ticks of it in ClickHouse)", body = super::openapi::ErrorBody),
        (status = 502, description = "ClickHouse did not answer in the sink's `timeout`, or refused the query", body = super::openapi::ErrorBody),
        (status = 503, description = "Too many queries run, or the memory budget has no room for the answer (`memory_full`)", body = super::openapi::ErrorBody),
    )
)]
async fn fleet_history(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = query_pairs(raw.as_deref())?;
    let (rendering, held) =
        blocking(&state.clone(), move || answer(&state, &name, &params)).await?;
    let csv = rendering.csv();
    // Rendered a chunk at a time as the client reads, counted in the budget until sent (see
    // `super::answer`), as the history endpoint's answer is.
    let body = held.stream(rendering);
    Ok(if csv {
        ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json")], body).into_response()
    })
}

/// The report's shape: as this pinbad has it (kind, keys, its tick as the stored step), else
/// as its ticks in ClickHouse name it (one row's kind, key names and tick length); a 404 when
/// neither knows it.
fn shape_of(state: &ApiState, config: &ClickHouseConfig, name: &str) -> Result<Shape, ApiError> {
    if let Some(cell) = state.core.reports().get(name) {
        let tick_ms = cell.window().tick_ms;
        let r = cell.report.read();
        return Ok(Shape {
            name: name.to_string(),
            kind: r.kind(),
            key_columns: r.key_columns().to_vec(),
            key_names: r.keys().to_vec(),
            stored_step_s: tick_ms.div_ceil(1000).max(1),
        });
    }
    let sql = format!(
        "SELECT kind, key_names, tick_ms FROM {}.{} WHERE report = {} ORDER BY row_type LIMIT 1 \
         FORMAT JSONEachRow",
        config.database,
        config.ticks_table,
        literal(name)
    );
    let mut first = None;
    each_row(config, &sql, |row| {
        first.get_or_insert(row);
    })?;
    let row = first.ok_or_else(|| {
        ApiError::not_found(format!(
            "no report `{name}`: this pinbad has none and ClickHouse holds no ticks of it"
        ))
    })?;
    let names: Vec<String> = serde_json::from_value(row["key_names"].clone()).unwrap_or_default();
    Ok(Shape {
        name: name.to_string(),
        kind: serde_json::from_value(row["kind"].clone()).unwrap_or(Kind::Request),
        key_columns: names.clone(),
        key_names: names,
        stored_step_s: number(&row["tick_ms"]).div_ceil(1000).max(1),
    })
}

/// The answer, to be rendered as its client reads, and the memory it holds in the budget.
fn answer(
    state: &ApiState,
    name: &str,
    params: &[(String, String)],
) -> Result<(query::Rendering, Held), ApiError> {
    let Some(config) = state.sinks.ticks_of(name) else {
        return Err(ApiError::not_found(format!(
            "no ClickHouse sink writes the ticks of report `{name}` (list it in `reports` of a \
             [[sink]] of kind \"clickhouse\")"
        )));
    };
    // `instance` is the fleet's own parameter; the rest are the history endpoint's.
    let mut instance = None;
    let mut rest = Vec::with_capacity(params.len());
    for (k, v) in params {
        if k == "instance" {
            if instance.replace(v.clone()).is_some() {
                return Err(ApiError::bad_parameter("instance", "given twice"));
            }
        } else {
            rest.push((k.clone(), v.clone()));
        }
    }
    let shape = shape_of(state, config, name)?;
    let clock = state.core.clock();
    let now_s = query::now_s(clock.unix_ms64(clock.now_ms64()));
    let max_limit = state.core.config().limits.max_query_limit;
    let q = query::parse(&rest, &shape, now_s, max_limit).map_err(|e| {
        let why = if e.why.contains("unknown parameter") {
            "unknown parameter (expected from, to, step, instance, filter, columns, group, limit, \
             format)"
                .to_string()
        } else {
            e.why
        };
        ApiError::bad_parameter(&e.param, why)
    })?;
    let (series, held) = series(state, config, &shape, &q, instance.as_deref())?;
    Ok((query::Rendering::new(&shape, &q, series, 0), held))
}

/// The ticks' sums (and merged buckets, when `hist`) of the rows matching `cond`, per step and
/// row: `t` the step's start (unix seconds), `row_type`, `keys`.
fn steps_sql(config: &ClickHouseConfig, q: &HistoryQuery, cond: &str, hist: bool) -> String {
    let step_ms = q.step_s.saturating_mul(1000);
    let (merged, outer) = if hist {
        (
            ", sumMap(hist_ids, hist_counts) AS hist",
            ", hist.1 AS hist_ids, hist.2 AS hist_counts",
        )
    } else {
        ("", "")
    };
    format!(
        "SELECT *{outer} FROM (\
         SELECT intDiv(tick_start_ms, {step_ms}) * {step_s} AS t, row_type, keys, \
         sum(req_count) AS req_count, sum(hit_count) AS hit_count, sum(time_ns) AS time_ns, \
         sum(ru_utime_ns) AS ru_utime_ns, sum(ru_stime_ns) AS ru_stime_ns, \
         sum(traffic_bytes) AS traffic_bytes, \
         sum(memory_footprint_bytes) AS memory_footprint_bytes, \
         sum(memory_peak_bytes) AS memory_peak_bytes, max(memory_peak_max) AS memory_peak_max\
         {merged} FROM {}.{} FINAL WHERE {cond} GROUP BY t, row_type, keys) ORDER BY t \
         FORMAT JSONEachRow",
        config.database,
        config.ticks_table,
        step_s = q.step_s,
    )
}

/// The fleet's series for `q`: the totals' one (`group=total`, or a report without keys), or
/// the top `limit` rows by time over the range (matching the filters; picked by ClickHouse)
/// and the "(other)" row, as the history endpoint answers them; and the memory they hold, counted before ClickHouse's
/// rows are read at their bound: [`query::bound`] of the steps the rows read sum into (counted
/// by ClickHouse first, the filters left out: at least as many).
fn series(
    state: &ApiState,
    config: &ClickHouseConfig,
    shape: &Shape,
    q: &HistoryQuery,
    instance: Option<&str>,
) -> Result<(Vec<SeriesOut>, Held), ApiError> {
    // Ticks starting in [from, to) (`time` is a tick's start in whole seconds; partitions are
    // by it).
    let mut range = format!(
        "report = {} AND time >= {} AND time < {}",
        literal(&shape.name),
        q.from_s.max(0),
        q.to_s.max(0)
    );
    if let Some(i) = instance {
        range.push_str(&format!(" AND instance = {}", literal(i)));
    }
    let hist = q.reads_histograms();
    let totals = q.total() || shape.key_columns.is_empty();
    // Counted first: the steps of the rows read (a point each at most). No FINAL: `uniqExact`
    // counts a row's versions not yet merged once.
    let counted = format!(
        "SELECT uniqExact(intDiv(tick_start_ms, {}), row_type, keys) FROM {}.{} WHERE {range} \
         AND row_type IN ({})",
        q.step_s.saturating_mul(1000),
        config.database,
        config.ticks_table,
        if totals {
            TOTALS.to_string()
        } else {
            format!("{ROW}, {OTHER_ROW}")
        }
    );
    let held = hold_reading(state, query::bound(count(config, &counted)?, q))?;
    // Each row added to its series' point as it is read (in time order: `steps_sql`).
    let add = |s: &mut Series, row: &Value| {
        let t = i64::try_from(number(&row["t"])).unwrap_or(i64::MAX);
        let (sums, hist) = sums_and_hist(row);
        let mut part = Part::default();
        part.add(&sums, &hist);
        s.add(t, &part, q);
    };
    if totals {
        let mut s = Series::new(Vec::new(), false);
        let sql = steps_sql(config, q, &format!("{range} AND row_type = {TOTALS}"), hist);
        each_row(config, &sql, |row| add(&mut s, &row))?;
        let series = if s.is_empty() {
            Vec::new()
        } else {
            vec![s.finish(q)]
        };
        return Ok((series, held));
    }
    // The top `limit` keys over the range by time, among the rows passing the filters (the
    // history endpoint's order: time, then the key), picked by ClickHouse itself in a subquery
    // of the query that reads their steps: the query's text does not grow with the keys. (They
    // were listed in it: 5,000 keys of 1 KB made a query past ClickHouse's `max_query_size`,
    // 256 KiB by default, which it refused: a 502.)
    let mut filters = String::new();
    for (i, v) in q.filters() {
        filters.push_str(&format!(" AND keys[{}] = {}", i + 1, literal(v)));
    }
    let mut wanted = Vec::new();
    if q.limit() > 0 {
        wanted.push(format!(
            "row_type = {ROW} AND keys IN (SELECT keys FROM {}.{} FINAL WHERE {range} AND \
             row_type = {ROW}{filters} GROUP BY keys ORDER BY sum(time_ns) DESC, keys LIMIT {})",
            config.database,
            config.ticks_table,
            q.limit()
        ));
    }
    // The other row stands for keys that may match any filter: shown when every filter asks
    // for "(other)" (so, with no filter, always), as the history endpoint shows it.
    let with_other = q.filters().iter().all(|(_, v)| v == OTHER);
    if with_other {
        wanted.push(format!("row_type = {OTHER_ROW}"));
    }
    if wanted.is_empty() {
        return Ok((Vec::new(), held));
    }
    let sql = steps_sql(
        config,
        q,
        &format!("{range} AND ({})", wanted.join(" OR ")),
        hist,
    );
    // A series per key as its first row comes (at most `limit`: the subquery's), with the sum
    // of its `time_ns` over the range to order them by as the subquery did (wrapping as
    // ClickHouse's `sum` of `UInt64` does).
    let mut index: HashMap<Vec<String>, usize> = HashMap::new();
    let mut series: Vec<(u64, Series)> = Vec::new();
    let mut other = Series::new(vec![OTHER.to_string(); shape.key_columns.len()], true);
    each_row(config, &sql, |row| {
        if number(&row["row_type"]) == u64::from(OTHER_ROW) {
            add(&mut other, &row);
            return;
        }
        let key: Vec<String> = serde_json::from_value(row["keys"].clone()).unwrap_or_default();
        let at = match index.get(&key) {
            Some(&i) => i,
            None if series.len() < q.limit() => {
                index.insert(key.clone(), series.len());
                series.push((0, Series::new(key, false)));
                series.len() - 1
            }
            None => return,
        };
        let (time_ns, s) = &mut series[at];
        *time_ns = time_ns.wrapping_add(number(&row["time_ns"]));
        add(s, &row);
    })?;
    let mut out: Vec<(u64, SeriesOut)> = series
        .into_iter()
        .map(|(time_ns, s)| (time_ns, s.finish(q)))
        .collect();
    out.sort_by(|(ta, a), (tb, b)| tb.cmp(ta).then_with(|| a.key.cmp(&b.key)));
    let mut out: Vec<SeriesOut> = out.into_iter().map(|(_, s)| s).collect();
    if with_other && !other.is_empty() {
        out.push(other.finish(q));
    }
    Ok((out, held))
}
