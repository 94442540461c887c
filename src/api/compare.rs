//! `GET /api/v1/compare`: which rows of a report changed most between two ranges of its history
//! (see `history::compare`), as JSON or CSV.
//!
//! Runs on the blocking pool under a query slot, with a read-only connection of its own, as the
//! history query does. Counted in the memory budget as a history answer is: both sides at their
//! bound (`compare::estimate`, from the index alone) before a row is read, a 503 `memory_full`
//! when the budget has no room for them; then at what they hold once read; then the answer,
//! rendered a chunk at a time as its client reads it, at what is left of it.

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
    let (rendering, held) = blocking(&state.clone(), move || answer(&state, &params)).await?;
    let csv = rendering.csv();
    let body = held.stream(rendering);
    Ok(if csv {
        ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json")], body).into_response()
    })
}

/// The answer, to be rendered as its client reads, and the memory it holds in the budget.
fn answer(
    state: &ApiState,
    params: &[(String, String)],
) -> Result<(compare::Rendering, super::answer::Held), ApiError> {
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
    // Both sides counted at their bound before a row of either is read.
    let mut bound = 0u64;
    let max_string = state.core.config().limits.max_string_bytes;
    for (stored, at) in &sides {
        if let Some(s) = stored {
            let e =
                compare::estimate(&r.conn, s.id, &shape, at.0, max_string).map_err(store_error)?;
            bound = bound.saturating_add(e);
        }
    }
    let held = super::answer::hold(bound, state.core.budget())?;
    let mut read = Vec::with_capacity(2);
    for (stored, at) in sides {
        read.push(match stored {
            Some(s) => compare::read_side(&r.conn, s.id, &shape, at).map_err(store_error)?,
            None => compare::Side {
                range: at.0,
                seconds: at.1,
                step: at.2,
                ..compare::Side::default()
            },
        });
    }
    held.measured(read.iter().map(|s| s.bytes() as u64).sum());
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
    Ok((compare::Rendering::new(answer, q.csv), held))
}
