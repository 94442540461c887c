//! `GET /api/v1/instruments`: every stage's count and time, with the clock they are measured
//! with; `PATCH /api/v1/instruments`: switch instruments on or off, timed or not, at run time.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::Json;
use serde_json::{json, Value};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ApiError, AppState};
use crate::instruments::{selects, Instrument};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, patch))
}

/// Every instrument: the fixed stages, then one per report.
fn each(state: &AppState, mut f: impl FnMut(&Instrument)) {
    for i in state.core.counters().instruments.stages() {
        f(i);
    }
    for cell in state.core.reports().snapshot() {
        f(&cell.instrument);
    }
}

fn listing(state: &AppState) -> Value {
    let mut list = Vec::new();
    each(state, |i| list.push(i.to_json()));
    json!({
        "timer": state.core.counters().instruments.timer,
        "instruments": list,
    })
}

/// Every stage's and report's count and time, and the clock they are measured with.
#[utoipa::path(
    get,
    path = "/api/v1/instruments",
    operation_id = "list_instruments",
    tag = "status",
    responses(
        (status = 200, description = "`{\"timer\": {clock, cost, resolution}, \"instruments\": [{name, count, timed_count, total_ns, mean_ns, enabled, timed}]}`; `query` also has `call_ns` (p50, p90, p99, p99.9 of its calls' times)", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
    )
)]
async fn list(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    super::refuse_parameters(raw.as_deref(), "")?;
    Ok(Json(listing(&state)))
}

/// Body: `{"name": "decode" | "report:*" | "*", "enabled": bool, "timed": bool}` (either flag may
/// be left out). Answers the listing after the change; 404 when the name selects nothing.
#[utoipa::path(
    patch,
    path = "/api/v1/instruments",
    operation_id = "change_instruments",
    tag = "status",
    request_body = super::openapi::InstrumentsChange,
    responses(
        (status = 200, description = "The listing after the change (as GET)", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, description = "The name selects no instrument", body = super::openapi::ErrorBody),
        (status = 408, description = "The body did not all come within http.header_timeout", body = super::openapi::ErrorBody),
        (status = 413, description = "The body is above limits.max_body_bytes", body = super::openapi::ErrorBody),
    )
)]
async fn patch(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    // Before anything changes: a parameter meant as a condition must not be ignored.
    super::refuse_parameters(raw.as_deref(), "")?;
    let bytes = super::read_body(body, state.core.config()).await?;
    let obj = &super::json_object(&bytes, "{\"name\": \"decode\", \"timed\": false}")?;
    if let Some(k) = obj
        .keys()
        .find(|k| !["name", "enabled", "timed"].contains(&k.as_str()))
    {
        return Err(ApiError::bad_request(format!(
            "unknown field `{k}`: expected name, enabled, timed"
        )));
    }
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("`name` (a string) is required"))?;
    let flag = |k: &str| -> Result<Option<bool>, ApiError> {
        match obj.get(k) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(ApiError::bad_request(format!(
                "`{k}` must be true or false, got {other}"
            ))),
        }
    };
    let (enabled, timed) = (flag("enabled")?, flag("timed")?);
    if enabled.is_none() && timed.is_none() {
        return Err(ApiError::bad_request(
            "nothing to change: give `enabled` and/or `timed`",
        ));
    }
    let mut matched = 0;
    each(&state, |i| {
        if selects(name, i.name()) {
            i.set(enabled, timed);
            matched += 1;
        }
    });
    if matched == 0 {
        return Err(ApiError::not_found(format!("no instrument named `{name}`")));
    }
    // Each flag as its value, and only when given (not `Some(true)`, `None`).
    tracing::info!(instrument = %name, enabled, timed, matched, "Instruments changed");
    Ok(Json(listing(&state)))
}
