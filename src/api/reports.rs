//! Report endpoints: `/api/v1/info`, `/api/v1/reports` (list, create) and
//! `/api/v1/reports/{name}` (query, drop).
//!
//! In: HTTP requests. Out: JSON or CSV tables built by [`Report::query`] under read locks (a
//! query's streamed and counted in the memory budget while it is sent: `super::answer`), and
//! report creation/drop with their persistence in `{state_dir}/reports.json`. Queries run in
//! place on the HTTP worker (`super::in_place`: bounded, and the worker's other tasks move to
//! another thread meanwhile); creation and drop, which fill from the pool and fsync, run on tokio's
//! blocking pool, so that neither stalls the HTTP workers. Lock order: pool → dictionary → a
//! report, as everywhere.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::answer::Format;
use super::ApiState;
use super::{blocking, in_place, query_pairs, ApiError, AppState, Client, PathParam};
use crate::config::Limits;
use crate::report::{self, Query, ReportCell, ReportDef, ReportError, Table};
use crate::state::ReportChangeError;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(info))
        .routes(routes!(list, create))
        .routes(routes!(show, drop_report))
}

/// A query problem: 400, the detail names the parameter or column.
fn bad(e: ReportError) -> ApiError {
    ApiError {
        status: StatusCode::BAD_REQUEST,
        error: "bad_parameter",
        detail: e.0,
    }
}

/// A definition (the body of a creation) refused: a 400 naming the field, or, when it is right
/// but the dictionary has no room for a name or value it needs, a 507 (Insufficient Storage)
/// `dictionary_full` naming the limits: not the client's fault, and not one a retry in a second
/// mends (a 503 says that, with `Retry-After`): strings leave the dictionary only once unused for
/// longer than the longest window.
fn refused(e: ReportError) -> ApiError {
    match e.1 {
        report::Refusal::Invalid => ApiError::bad_request(e.0),
        report::Refusal::Full => ApiError {
            status: StatusCode::INSUFFICIENT_STORAGE,
            error: "dictionary_full",
            detail: e.0,
        },
    }
}

fn no_such_report(name: &str) -> ApiError {
    ApiError::not_found(format!("no report named `{name}`"))
}

/// The table, with the span the window covers now and since when it is complete.
fn run_query(state: &ApiState, cell: &ReportCell, q: &Query) -> Result<Table, ApiError> {
    state.core.query_report(cell, q).map_err(bad)
}

/// A run-time change refused, as the API answers it.
fn change_refused(e: ReportChangeError) -> ApiError {
    match e {
        ReportChangeError::Exists(_) | ReportChangeError::TooMany(_) => {
            ApiError::conflict(e.to_string())
        }
        ReportChangeError::Refused(e) => refused(e),
        // A conflict with the server's state (like `limits.max_reports`), named apart so that a
        // client can tell it: mended when memory frees, not by a retry in a second.
        ReportChangeError::NoMemory { .. } => ApiError {
            status: StatusCode::CONFLICT,
            error: "memory_full",
            detail: e.to_string(),
        },
        ReportChangeError::NotFound(name) => no_such_report(&name),
        ReportChangeError::NotSaved(e) => ApiError::internal(e),
    }
}

// ---- GET /api/v1/info -----------------------------------------------------------------------

/// The `info` report as any report query shows it: its single row (none while the pool is
/// empty), the totals and the time interval.
#[utoipa::path(
    get,
    path = "/api/v1/info",
    tag = "reports",
    responses(
        (status = 200, description = "The `info` report: totals over the window", body = super::openapi::ReportTable),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, description = "The `info` report was dropped", body = super::openapi::ErrorBody),
        (status = 503, response = super::openapi::Busy),
    )
)]
async fn info(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    refuse_parameters(raw.as_deref(), "/api/v1/reports/info")?;
    let table = in_place(&state, || {
        let cell = state
            .core
            .reports()
            .get("info")
            .ok_or_else(|| no_such_report("info"))?;
        run_query(
            &state,
            &cell,
            &Query {
                last_tick: true,
                ..Query::default()
            },
        )
    })?;
    Ok(Json(table).into_response())
}

// ---- GET /api/v1/reports --------------------------------------------------------------------

/// One report as the list (and creation) shows it.
fn list_entry(state: &ApiState, cell: &ReportCell) -> Value {
    let r = cell.report.read();
    let w = r.window();
    let filled = cell.is_filled();
    let spec = crate::history::Spec::of_report(&r)
        .ok()
        .flatten()
        .filter(|_| state.history.enabled());
    json!({
        "name": cell.name(),
        "kind": r.kind(),
        "keys": r.keys(),
        "filters": r.def().filters,
        "percentiles": r.def().percentiles,
        "history": w.history_ms as f64 / 1000.0,
        "tick": w.tick_ms as f64 / 1000.0,
        "complete_from": filled.then(|| state.core.unix_secs(r.complete_from_ms())),
        "rows": r.rows(),
        "rows_lost": r.rows_lost(),
        "builtin": cell.builtin(),
        // The report whose table this one shares (null: its own; see "shared tables").
        "shares_table_with": cell.shares_table_with(),
        "prometheus": r.def().prometheus,
        // Whose definitions of rates and timer percentiles it follows (null: pinbad's).
        "compat": r.def().compat,
        // The bucket bounds its histograms export (defaults applied; null: not exported).
        "prometheus_buckets": r.def().prometheus.then(|| crate::metrics::buckets_of(r.def())),
        // The history it keeps, resolved (defaults applied; null: none).
        "history_retention": spec.map(|s| s.retention_ms as f64 / 1000.0),
        "history_step": spec.map(|s| s.step_ms as f64 / 1000.0),
        "history_rows": spec.map(|s| s.rows),
    })
}

#[utoipa::path(
    get,
    path = "/api/v1/reports",
    operation_id = "list_reports",
    tag = "reports",
    responses(
        (status = 200, description = "Every report", body = super::openapi::ReportList),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
    )
)]
async fn list(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    refuse_parameters(raw.as_deref(), "/api/v1/reports/NAME")?;
    let reports: Vec<Value> = state
        .core
        .reports()
        .snapshot()
        .iter()
        .map(|c| list_entry(&state, c))
        .collect();
    // The largest `limit` a query of them takes: a client (the dashboard) that needs a particular
    // limit asks for at most it, as a larger one is a 400.
    Ok(Json(json!({
        "reports": reports,
        "max_query_limit": state.core.config().limits.max_query_limit,
    })))
}

/// [`super::refuse_parameters`], pointing at the endpoint that takes a report query's.
fn refuse_parameters(raw: Option<&str>, instead: &str) -> Result<(), ApiError> {
    super::refuse_parameters(raw, &format!(" (a report query's are taken by {instead})"))
}

// ---- GET /api/v1/reports/{name} -------------------------------------------------------------

/// The parameters of a report query: `sort, limit, offset, filter…, match…, percentiles, format`.
/// Anything else is a 400 naming it.
fn build_query(params: &[(String, String)], limits: &Limits) -> Result<(Query, Format), ApiError> {
    let mut q = Query {
        max_limit: limits.max_query_limit,
        max_regex_bytes: limits.max_regex_bytes,
        last_tick: true,
        ..Query::default()
    };
    let mut format = Format::Json;
    super::refuse_repeats(params, &["filter", "match"])?;
    for (name, value) in params {
        let number = |what: &str| {
            value.parse::<usize>().map_err(|_| {
                ApiError::bad_parameter(what, format!("`{value}` is not a non-negative integer"))
            })
        };
        match name.as_str() {
            "sort" => q.sort = (!value.is_empty()).then(|| value.clone()),
            "limit" => {
                let limit = number("limit")?;
                if limit > limits.max_query_limit {
                    return Err(ApiError::bad_parameter(
                        "limit",
                        format!("{limit} is above the maximum {} (limits.max_query_limit)", limits.max_query_limit),
                    ));
                }
                q.limit = Some(limit);
            }
            "offset" => q.offset = number("offset")?,
            "filter" => q.filters.push(value.clone()),
            "match" => q.matches.push(value.clone()),
            "percentiles" => {
                let ps = value
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(|p| p.parse::<f64>().map_err(|_| ApiError::bad_parameter("percentiles", format!("`{p}` is not a number"))))
                    .collect::<Result<Vec<f64>, _>>()?;
                report::validate_percentiles(&ps).map_err(|e| ApiError::bad_parameter("percentiles", e))?;
                q.percentiles = Some(ps);
            }
            "format" => {
                format = match value.as_str() {
                    "json" => Format::Json,
                    "csv" => Format::Csv,
                    _ => return Err(ApiError::bad_parameter("format", format!("`{value}`: expected json or csv"))),
                }
            }
            _ => {
                return Err(ApiError::bad_parameter(
                    name,
                    "unknown parameter (expected sort, limit, offset, filter, match, percentiles, format)",
                ))
            }
        }
    }
    Ok((q, format))
}

#[utoipa::path(
    get,
    path = "/api/v1/reports/{name}",
    tag = "reports",
    params(
        ("name" = String, Path, description = "The report's name"),
        ("sort" = Option<String>, Query, description = "A column, `-` first for descending (default -req_time_total, or -timer_value for timer reports)"),
        ("limit" = Option<usize>, Query, description = "Rows to answer (default 100, at most limits.max_query_limit)"),
        ("offset" = Option<usize>, Query, description = "Rows to skip"),
        ("filter" = Option<Vec<String>>, Query, description = "`COLUMN:VALUE`, exact; repeatable (all must hold)"),
        ("match" = Option<Vec<String>>, Query, description = "`COLUMN:REGEX`; repeatable (all must hold)"),
        ("percentiles" = Option<String>, Query, description = "Comma-separated percentiles to show, e.g. `50,99.9`"),
        ("format" = Option<String>, Query, description = "`json` (default) or `csv`"),
    ),
    responses(
        (status = 200, description = "The report's rows", content(
            (super::openapi::ReportTable = "application/json"),
            (String = "text/csv"),
        )),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, response = super::openapi::NotFound),
        (status = 503, response = super::openapi::Busy),
    )
)]
async fn show(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = query_pairs(raw.as_deref())?;
    let (q, format) = build_query(&params, &state.core.config().limits)?;
    let table = in_place(&state, || {
        let cell = state
            .core
            .reports()
            .get(&name)
            .ok_or_else(|| no_such_report(&name))?;
        run_query(&state, &cell, &q)
    })?;
    // Streamed, and counted in the budget until sent (see `answer`).
    let content_type = match format {
        Format::Json => "application/json",
        Format::Csv => "text/csv; charset=utf-8",
    };
    let body = super::answer::stream(table, format, state.core.budget())?;
    Ok(([(header::CONTENT_TYPE, content_type)], body).into_response())
}

// ---- POST /api/v1/reports -------------------------------------------------------------------

#[utoipa::path(
    post,
    path = "/api/v1/reports",
    tag = "reports",
    request_body = super::openapi::ReportDefinition,
    responses(
        (status = 201, description = "Created, and filled from the raw pool", body = super::openapi::ReportEntry),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 409, description = "`conflict`: the name is taken, or limits.max_reports is reached; `memory_full`: the memory budget is nearly used (limits.max_memory)", body = super::openapi::ErrorBody),
        (status = 408, description = "The body did not all come within http.header_timeout", body = super::openapi::ErrorBody),
        (status = 413, description = "The body is above limits.max_body_bytes", body = super::openapi::ErrorBody),
        (status = 500, response = super::openapi::StateNotSaved),
        (status = 503, response = super::openapi::Busy),
        (status = 507, description = "`dictionary_full`: no room in the dictionary for a name or value of the definition (limits.max_dictionary_entries, limits.max_dictionary_bytes)", body = super::openapi::ErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    client: Client,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Result<Response, ApiError> {
    super::refuse_parameters(raw.as_deref(), " (the definition is the body)")?;
    let bytes = super::read_body(body, state.core.config()).await?;
    let mut def = parse_definition(&bytes)?;
    with_run_time_history(&mut def);
    def.validate_new().map_err(refused)?;
    let entry = blocking(&state.clone(), move || create_filled(&state, def)).await?;
    tracing::info!(
        report = %entry["name"].as_str().unwrap_or(""),
        rows = entry["rows"].as_u64().unwrap_or(0),
        %client,
        "Report created"
    );
    Ok((StatusCode::CREATED, Json(entry)).into_response())
}

/// A definition made at run time without `history_retention` keeps history for
/// [`RUN_TIME_HISTORY_RETENTION`](crate::report::RUN_TIME_HISTORY_RETENTION) (or its
/// `history_step`, when longer): a report made to look into something is charted like the
/// built-ins, and its rows' "chart" links draw. `"0s"` keeps none, as asked.
fn with_run_time_history(def: &mut ReportDef) {
    if def.history_retention.is_none() {
        let step = def.history_step.map(|s| s.0).unwrap_or_default();
        def.history_retention = Some(crate::units::HumanDuration(
            crate::report::RUN_TIME_HISTORY_RETENTION.max(step),
        ));
    }
}

/// A POST body as a report definition, or a 400 that says what is wrong in plain words (not in
/// the terms of the Rust types behind it).
fn parse_definition(bytes: &[u8]) -> Result<ReportDef, ApiError> {
    super::json_object(bytes, "{\"name\": \"by_host\", \"keys\": [\"hostname\"]}")?;
    // From the bytes, not the value: parsed into a value, a field given twice kept its last
    // occurrence before the definition could refuse it.
    serde_json::from_slice(bytes).map_err(|e| {
        let why = e
            .to_string()
            .replace("struct ReportDef", "a report definition")
            .replace("a sequence", "a list")
            .replace("a map", "an object");
        ApiError::bad_request(format!("report definition: {why}"))
    })
}

/// How long a creation waits for the merger to fill the new report from the pool.
const FILL_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Creates the report (see [`Core::create_report`](crate::state::Core::create_report)) and
/// answers it as the list shows it.
fn create_filled(state: &ApiState, def: ReportDef) -> Result<Value, ApiError> {
    let cell = state
        .core
        .create_report(def, FILL_WAIT)
        .map_err(|e| match e {
            ReportChangeError::NotSaved(e) => {
                ApiError::internal(format!("report not created: {e}"))
            }
            e => change_refused(e),
        })?;
    Ok(list_entry(state, &cell))
}

// ---- DELETE /api/v1/reports/{name} ----------------------------------------------------------

#[utoipa::path(
    delete,
    path = "/api/v1/reports/{name}",
    tag = "reports",
    params(("name" = String, Path, description = "The report's name (built-ins too)")),
    responses(
        (status = 204, description = "Dropped"),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, response = super::openapi::NotFound),
        (status = 500, response = super::openapi::StateNotSaved),
        (status = 503, response = super::openapi::Busy),
    )
)]
async fn drop_report(
    State(state): State<AppState>,
    client: Client,
    PathParam(name): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    // Before anything is dropped: `?dry_run=1` must not drop the report it meant to spare.
    super::refuse_parameters(raw.as_deref(), "")?;
    let dropped = name.clone();
    blocking(&state.clone(), move || {
        state.core.drop_report(&name).map_err(|e| match e {
            ReportChangeError::NotSaved(e) => {
                ApiError::internal(format!("report not dropped: {e}"))
            }
            e => change_refused(e),
        })?;
        // Its history goes with it (the writer deletes it).
        state.history.forget(&name);
        Ok(())
    })
    .await?;
    tracing::info!(report = %dropped, %client, "Report dropped");
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn build_query_reads_every_parameter() {
        let limits = Limits::default();
        let (q, f) = build_query(
            &pairs(&[
                ("sort", "-p99"),
                ("limit", "10"),
                ("offset", "20"),
                ("filter", "status:200"),
                ("filter", "country:nl"),
                ("match", "script_name:^/api"),
                ("percentiles", "50, 99.9"),
                ("format", "csv"),
            ]),
            &limits,
        )
        .unwrap();
        assert_eq!(f, Format::Csv);
        assert_eq!(q.sort.as_deref(), Some("-p99"));
        assert_eq!((q.limit, q.offset), (Some(10), 20));
        assert_eq!(q.filters, vec!["status:200", "country:nl"]);
        assert_eq!(q.matches, vec!["script_name:^/api"]);
        assert_eq!(q.percentiles, Some(vec![50.0, 99.9]));
        assert_eq!(q.max_limit, limits.max_query_limit);
        let (q, f) = build_query(&[], &limits).unwrap();
        assert_eq!(
            (q.sort, q.limit, q.percentiles, f),
            (None, None, None, Format::Json)
        );
    }

    #[test]
    fn build_query_errors_name_the_parameter() {
        let limits = Limits {
            max_query_limit: 50,
            ..Limits::default()
        };
        for (params, needle) in [
            (vec![("colour", "red")], "`colour`"),
            (vec![("limit", "lots")], "`limit`"),
            (vec![("limit", "51")], "`limit`"),
            (vec![("offset", "-1")], "`offset`"),
            (vec![("percentiles", "50,abc")], "`percentiles`"),
            (vec![("percentiles", "50,101")], "`percentiles`"),
            (vec![("format", "xml")], "`format`"),
        ] {
            let e = build_query(&pairs(&params), &limits).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST);
            assert!(e.detail.contains(needle), "{params:?}: {}", e.detail);
        }
    }
}
