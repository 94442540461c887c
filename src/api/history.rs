//! `GET /api/v1/reports/{name}/history`: a report's time series from the history store (see
//! `history::query`), as JSON or CSV.
//!
//! Runs on the blocking pool under a query slot, with a read-only connection of its own (the
//! writer is never waited for: SQLite's WAL lets readers run beside it).

use axum::extract::{RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::ApiState;
use super::{blocking, query_pairs, ApiError, AppState, PathParam};
use crate::history::query::{self, Shape};
use crate::history::store::{self, Store};
use crate::history::{fine_name, fine_spec, fingerprint, Spec};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(history))
}

#[utoipa::path(
    get,
    path = "/api/v1/reports/{name}/history",
    tag = "reports",
    params(
        ("name" = String, Path, description = "The report's name"),
        ("from" = Option<String>, Query, description = "Unix seconds, RFC 3339, `now` or relative such as `-15m` (default `-1h`)"),
        ("to" = Option<String>, Query, description = "As `from` (default `now`)"),
        ("step" = Option<String>, Query, description = "A duration, a multiple of the stored step, at most `from` to `to` (or the stored step over a shorter range) (default: the stored step, made coarser to give at most 1000 points)"),
        ("filter" = Option<Vec<String>>, Query, description = "`KEY_COLUMN:VALUE`, exact; repeatable (all must hold)"),
        ("columns" = Option<String>, Query, description = "Comma-separated: sums and rates of the report query (`req_count`, `req_per_sec`, `req_time_total`, ..., `memory_peak_total`, `memory_peak_per_sec`, `memory_peak_max` (the largest of the steps), no `*_percent`), `req_time_median`/`timer_median`, `p<N>` (default `req_count,req_per_sec,p50,p95,p99`, timer reports `req_count,hit_count,timer_value,p50,p95,p99`)"),
        ("group" = Option<String>, Query, description = "`rows` (default: a series per row key, top `limit` by time, and the \"(other)\" row) or `total` (one series, the report's totals)"),
        ("limit" = Option<usize>, Query, description = "Series with `group=rows` (default 10, or limits.max_query_limit when lower; at most limits.max_query_limit)"),
        ("format" = Option<String>, Query, description = "`json` (default) or `csv`"),
    ),
    responses(
        (status = 200, description = "The report's series: a point `[t, v1, v2, ...]` per step with data (`t`: the step's start, unix seconds), read from the report's fine steps (`stored_step` says which) when the range starts within `history.fine_retention` and they cover it; the `\"(other)\"` row's series has `other: true`", content(
            (super::openapi::HistoryAnswer = "application/json"),
            (String = "text/csv"),
        )),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, description = "No such report, or it keeps no history", body = super::openapi::ErrorBody),
        (status = 503, description = "The history store is unavailable, too many queries run, or the memory budget has no room for the answer (`memory_full`)", body = super::openapi::ErrorBody),
    )
)]
async fn history(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = query_pairs(raw.as_deref())?;
    let (rendering, held) =
        blocking(&state.clone(), move || answer(&state, &name, &params)).await?;
    let csv = rendering.csv();
    // Rendered a chunk at a time as the client reads, counted in the budget until sent (see
    // `super::answer`).
    let body = held.stream(rendering);
    Ok(if csv {
        ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json")], body).into_response()
    })
}

/// A report's history as the store holds it, for a query of it: its own steps and its fine
/// steps (each `None` when none are stored under its definition), and what a query parses
/// against.
pub(super) struct Resolved {
    pub conn: rusqlite::Connection,
    /// The report's shape, with its own stored step.
    pub shape: Shape,
    pub stored: Option<store::StoredReport>,
    /// The fine steps' spec, and their line in the store.
    pub fine: Option<(Spec, store::StoredReport)>,
    pub now_s: i64,
}

/// The store's error as the API answers it.
pub(super) fn store_error(e: store::StoreError) -> ApiError {
    ApiError::internal(format!("history store: {e}"))
}

/// Finds report `name` and its history in the store: a 404 when there is no such report or it
/// keeps no history, a 503 when the store is unavailable.
pub(super) fn resolve(state: &ApiState, name: &str) -> Result<Resolved, ApiError> {
    let cell = state
        .core
        .reports()
        .get(name)
        .ok_or_else(|| ApiError::not_found(format!("no report named `{name}`")))?;
    let (spec, fine, shape, fp) = {
        let r = cell.report.read();
        let spec = Spec::of_report(&r).ok().flatten();
        let fine = spec.and_then(|s| fine_spec(&s, r.window(), &state.core.config().history));
        let shape = Shape {
            name: name.to_string(),
            kind: r.kind(),
            key_columns: r.key_columns().to_vec(),
            key_names: r.keys().to_vec(),
            stored_step_s: spec.map_or(60, |s| s.step_ms / 1000),
        };
        let fp = spec.map(|s| fingerprint(&r, s.step_ms));
        let fine = fine.map(|f| (f, fingerprint(&r, f.step_ms)));
        (spec, fine, shape, fp)
    };
    if spec.is_none() || !state.history.enabled() {
        return Err(ApiError::not_found(format!(
            "report `{name}` keeps no history (set history_retention in its definition{})",
            if state.history.enabled() {
                ""
            } else {
                "; history is switched off: history.enabled = false"
            }
        )));
    }
    if let Some(why) = state.history.unavailable() {
        return Err(ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            error: "history_unavailable",
            detail: format!("the history store is unavailable: {why}"),
        });
    }
    let conn = Store::open_reader(&state.history.path).map_err(store_error)?;
    let mut shape = shape;
    let stored = store::find_report(&conn, name)
        .map_err(store_error)?
        .filter(|r| Some(&r.fingerprint) == fp.as_ref());
    if let Some(r) = &stored {
        shape.stored_step_s = (r.step_ms / 1000).max(1);
    }
    // The fine steps, when the report keeps them and they are stored under its definition.
    let fine = match fine {
        Some((spec, fp)) => store::find_report(&conn, &fine_name(name))
            .map_err(store_error)?
            .filter(|r| r.fingerprint == fp)
            .map(|r| (spec, r)),
        None => None,
    };
    let now_s = query::now_s(state.core.clock().unix_ms64(state.core.clock().now_ms64()));
    Ok(Resolved {
        conn,
        shape,
        stored,
        fine,
        now_s,
    })
}

impl Resolved {
    /// The shape of the fine steps' reading.
    pub fn fine_shape(&self) -> Option<Shape> {
        self.fine.as_ref().map(|(_, f)| Shape {
            stored_step_s: (f.step_ms / 1000).max(1),
            ..self.shape.clone()
        })
    }

    /// Whether a range from `from_s` reads the fine steps (see `query::reads_fine`).
    pub fn reads_fine(&self, from_s: i64) -> Result<bool, ApiError> {
        let Some((spec, f)) = &self.fine else {
            return Ok(false);
        };
        let oldest = |id| query::oldest_step(&self.conn, id).map_err(store_error);
        let coarse_oldest = match &self.stored {
            Some(r) => oldest(r.id)?,
            None => None,
        };
        let retention_s = (spec.retention_ms / 1000) as i64;
        Ok(query::reads_fine(
            from_s,
            self.now_s,
            retention_s,
            (oldest(f.id)?, coarse_oldest),
            self.shape.stored_step_s as i64,
        ))
    }
}

/// The answer, to be rendered as its client reads, and the memory it holds in the budget: counted
/// at its bound ([`query::estimate`]) before a row is read, a 503 `memory_full` when the budget
/// has no room for it (see `super::answer::hold`).
fn answer(
    state: &ApiState,
    name: &str,
    params: &[(String, String)],
) -> Result<(query::Rendering, super::answer::Held), ApiError> {
    let r = resolve(state, name)?;
    let max_limit = state.core.config().limits.max_query_limit;
    let parse = |shape: &Shape| {
        query::parse(params, shape, r.now_s, max_limit)
            .map_err(|e| ApiError::bad_parameter(&e.param, e.why))
    };
    // The fine steps when the range allows (see `query::reads_fine`), else the report's own.
    // A range the fine steps do not take (a `step` they do not divide cannot happen: they
    // divide the report's) is parsed again below against the report's own.
    let fine = match r.fine_shape() {
        Some(fine_shape) => match parse(&fine_shape) {
            Ok(fq) if r.reads_fine(fq.from_s)? => Some((fine_shape, fq)),
            _ => None,
        },
        None => None,
    };
    let (shape, stored, q) = match fine {
        Some((shape, q)) => (shape, r.fine.as_ref().map(|(_, f)| f.clone()), q),
        None => (r.shape.clone(), r.stored.clone(), parse(&r.shape)?),
    };
    let budget = state.core.budget();
    let (answer, held) = match &stored {
        Some(s) => {
            let bound = query::estimate(&r.conn, s.id, &shape, &q).map_err(store_error)?;
            let held = super::answer::hold(bound, budget)?;
            (
                query::run(&r.conn, s.id, &shape, &q).map_err(store_error)?,
                held,
            )
        }
        None => (
            query::Answer {
                series: Vec::new(),
                damaged_rows: 0,
            },
            super::answer::hold(0, budget)?,
        ),
    };
    if answer.damaged_rows > 0 {
        state.history.count_damaged_rows_read(answer.damaged_rows);
        tracing::warn!(report = %name, rows = answer.damaged_rows, "History query: stored rows that cannot be read back (a damaged or hand-edited store) were left out of the answer");
    }
    let rendering = query::Rendering::new(&shape, &q, answer.series, answer.damaged_rows);
    Ok((rendering, held))
}
