//! `GET /api/v1/compare`: which rows of a report changed most between two ranges of its history
//! (see `history::compare`), as JSON or CSV.
//!
//! Runs on the blocking pool under a query slot, with a read-only connection of its own, as the
//! history query does; the two sides' rows are counted in the memory budget while the answer is
//! built, and the answer while it is sent.

use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::history::{resolve, store_error};
use super::{blocking, query_pairs, ApiError, ApiState, AppState};
use crate::history::compare::{self, Shape};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(compare_ranges))
}

#[utoipa::path(
    get,
    path = "/api/v1/compare",
    tag = "reports",
    params(
        ("report" = String, Query, description = "The report to compare (one keeping history)"),
        ("a_from" = Option<String>, Query, description = "Range A (before): unix seconds, RFC 3339, `now` or relative such as `-2h`; with `a_to`, `b_from`, `b_to`"),
        ("a_to" = Option<String>, Query, description = "As `a_from`"),
        ("b_from" = Option<String>, Query, description = "Range B (after), as `a_from`; with `vs`, B's start (default `b_to` − `span`)"),
        ("b_to" = Option<String>, Query, description = "As `b_from`; with `vs`, B's end (default `now`)"),
        ("vs" = Option<String>, Query, description = "A duration (`1h`, `1d`, `7d`): range A is range B that long before"),
        ("at" = Option<String>, Query, description = "A moment (a deploy's, a mark's), as `a_from`: A is the `span` before it, B the `span` from it"),
        ("span" = Option<String>, Query, description = "How long each range is with `vs` or `at` (default `1h`)"),
        ("by" = Option<String>, Query, description = "What rows are ranked by: `any` (default: the largest significant change of any figure), `rate`, `p50`, `p95`, `p99`, `error_ratio`, `cpu_per_request`, `memory_per_request`"),
        ("alpha" = Option<f64>, Query, description = "A change is significant when its test's p-value is below this (default 0.001; above 0, at most 0.5)"),
        ("limit" = Option<usize>, Query, description = "Rows answered (default 20, at most limits.max_query_limit)"),
        ("format" = Option<String>, Query, description = "`json` (default) or `csv`"),
    ),
    responses(
        (status = 200, description = "The rows ranked: significant changes first, largest first; each side's figures and each figure's change, ratio, p-value and whether it is significant", content(
            (super::openapi::CompareAnswer = "application/json"),
            (String = "text/csv"),
        )),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, description = "No such report, or it keeps no history", body = super::openapi::ErrorBody),
        (status = 503, description = "The history store is unavailable, too many queries run, or the memory budget is full", body = super::openapi::ErrorBody),
    )
)]
async fn compare_ranges(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = query_pairs(raw.as_deref())?;
    let budget = std::sync::Arc::clone(state.core.budget());
    let (text, csv) = blocking(&state.clone(), move || answer(&state, &params)).await?;
    let body = super::answer::stream_text(text.into_bytes(), &budget)?;
    Ok(if csv {
        ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json")], body).into_response()
    })
}

/// The answer's body, and whether it is CSV.
fn answer(state: &ApiState, params: &[(String, String)]) -> Result<(String, bool), ApiError> {
    let name = params
        .iter()
        .find(|(k, _)| k == "report")
        .map(|(_, v)| v.clone())
        .ok_or_else(|| ApiError::bad_parameter("report", "missing: the report to compare"))?;
    let r = resolve(state, &name)?;
    let max_limit = state.core.config().limits.max_query_limit;
    let q = compare::parse(params, r.now_s, max_limit)
        .map_err(|e| ApiError::bad_parameter(&e.param, e.why))?;
    let shape = Shape {
        name: name.clone(),
        kind: r.shape.kind,
        key_columns: r.shape.key_columns.clone(),
    };
    let explicit = !params.iter().any(|(k, _)| k == "vs" || k == "at");
    // Each side from the fine steps where they cover it, else from the report's own.
    let mut sides = Vec::with_capacity(2);
    for (side, range) in [("a", q.a), ("b", q.b)] {
        let (stored, step_s) = if r.reads_fine(range.from)? {
            let (_, f) = r.fine.as_ref().expect("reads_fine only with fine steps");
            (Some(f.clone()), (f.step_ms / 1000).max(1) as i64)
        } else {
            (r.stored.clone(), r.shape.stored_step_s.max(1) as i64)
        };
        let (aligned, seconds) = compare::align(range, step_s, r.now_s);
        if aligned.from >= aligned.to {
            let param = if explicit {
                format!("{side}_to")
            } else {
                "span".to_string()
            };
            return Err(ApiError::bad_parameter(
                &param,
                format!(
                    "range {} holds no whole step of the history read ({step_s}s): a range is \
                     taken from the step holding its start to the one before the step holding \
                     its end",
                    side.to_uppercase()
                ),
            ));
        }
        sides.push((stored, (aligned, seconds, step_s)));
    }
    let budget = state.core.budget();
    let mut read = Vec::with_capacity(2);
    let mut held = Vec::with_capacity(2);
    for (stored, at) in sides {
        let side = match stored {
            Some(s) => compare::read_side(&r.conn, s.id, &shape, at).map_err(store_error)?,
            None => compare::Side {
                range: at.0,
                seconds: at.1,
                step: at.2,
                ..compare::Side::default()
            },
        };
        // Counted while the answer is built: a 503 when it does not fit.
        held.push(super::answer::hold(side.bytes() as u64, budget)?);
        read.push(side);
    }
    let (b, a) = (
        read.pop().expect("two sides"),
        read.pop().expect("two sides"),
    );
    let damaged = a.damaged_rows + b.damaged_rows;
    if damaged > 0 {
        state.history.count_damaged_rows_read(damaged);
        tracing::warn!(report = %name, rows = damaged, "Comparison: stored rows that cannot be read back (a damaged or hand-edited store) were left out of the answer");
    }
    let answer = compare::compare(&shape, &q, &a, &b);
    Ok(if q.csv {
        (compare::to_csv(&answer), true)
    } else {
        (
            serde_json::to_string(&answer).expect("strings, numbers and options always serialize"),
            false,
        )
    })
}
