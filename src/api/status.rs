//! `GET /api/v1/status` (self-instrumentation) and `GET /healthz` (liveness).

use axum::extract::{RawQuery, State};
use axum::Json;
use serde_json::{json, Value};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ApiError, AppState};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(status))
        .routes(routes!(status_figures))
        .routes(routes!(healthz))
}

/// Liveness: answers at once, takes no lock, never needs the token. Query parameters are ignored,
/// not refused (see `super::refuse_parameters`): a load balancer's or orchestrator's probe may
/// add some, and liveness is the same whatever they are.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "status",
    responses((status = 200, description = "The daemon is running", body = super::openapi::Health))
)]
async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// The figures the dashboard's health table shows: each one's place in `/api/v1/status`, its
/// label, unit and whether it counts a loss (declared once, in `crate::status`).
#[utoipa::path(
    get,
    path = "/api/v1/status/figures",
    tag = "status",
    responses(
        (status = 200, description = "`{\"figures\": [{path, label, unit, scale, kind, loss, alarm, help}]}`: the health table's rows, in order; `alarm` (or null): `{flag, why}`, the status path of a 0/1 flag that marks the row while set, and what it judges; `path` is where the value sits in /api/v1/status (`a.b` nested, `a.*` each key, `a[].b` each element by its name), `scale` turns it into `unit`", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
    )
)]
async fn status_figures(RawQuery(raw): RawQuery) -> Result<Json<Value>, ApiError> {
    super::refuse_parameters(raw.as_deref(), "")?;
    Ok(Json(
        json!({ "figures": crate::status::dashboard_figures() }),
    ))
}

/// Every figure of `crate::status` (docs/ARCHITECTURE.md, "Bounds and counters"), cumulative since
/// start unless named `current_`.
#[utoipa::path(
    get,
    path = "/api/v1/status",
    tag = "status",
    responses(
        (status = 200, description = "Self-instrumentation: packets, accepted and rejected requests by reason, pool, dictionary, kernel drops, merge times, per-report rows (see docs/troubleshooting.md, \"Status counters\"); takes no lock", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
    )
)]
async fn status(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    super::refuse_parameters(raw.as_deref(), "")?;
    // Lock-free: every figure is an atomic or a summary its owner keeps (see `crate::status`);
    // nothing here waits on the pool, the dictionary or a report.
    let out = crate::status::json(&state.sources());
    Ok(Json(out))
}
