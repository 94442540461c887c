//! `GET /api/v1/sinks`, `GET /api/v1/sinks/{name}`: the sinks with their figures;
//! `PATCH /api/v1/sinks/{name}` with `{"enabled": BOOL}` and/or `{"sample": RATE}`: switches one
//! at run time (bearer token when configured), logged and saved in `{state_dir}/sinks.json`.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::Json;
use serde_json::{json, Value};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ApiError, AppState, PathParam};
use crate::sink::{SinkError, SinkState};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(one, switch))
}

/// Every configured sink with its state and figures.
#[utoipa::path(
    get,
    path = "/api/v1/sinks",
    operation_id = "list_sinks",
    tag = "sinks",
    responses(
        (status = 200, description = "`{\"sinks\": [{name, kind, enabled, sample, sent, failed, dropped, dropped_stale, current_queued, queue, …}]}`", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
    )
)]
async fn list(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    super::refuse_parameters(raw.as_deref(), "")?;
    Ok(Json(json!({ "sinks": state.sinks.status() })))
}

/// One sink's state and figures.
#[utoipa::path(
    get,
    path = "/api/v1/sinks/{name}",
    operation_id = "get_sink",
    tag = "sinks",
    params(("name" = String, Path, description = "The sink's `name` in its `[[sink]]` table")),
    responses(
        (status = 200, description = "`{name, kind, enabled, sample, sent, failed, dropped, dropped_stale, current_queued, queue, …}`", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, response = super::openapi::NotFound),
    )
)]
async fn one(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    super::refuse_parameters(raw.as_deref(), "")?;
    state
        .sinks
        .get(&name)
        .map(|s| Json(s.status()))
        .ok_or_else(|| ApiError::not_found(format!("no sink named `{name}`")))
}

/// Switches a sink on or off, or changes its sampling rate, at run time (logged, and kept in
/// `{state_dir}/sinks.json` across restarts).
#[utoipa::path(
    patch,
    path = "/api/v1/sinks/{name}",
    operation_id = "change_sink",
    tag = "sinks",
    params(("name" = String, Path, description = "The sink's `name` in its `[[sink]]` table")),
    request_body = super::openapi::SinkChange,
    responses(
        (status = 200, description = "The sink's state after the change (as GET)", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, response = super::openapi::NotFound),
        (status = 408, description = "The body did not all come within http.header_timeout", body = super::openapi::ErrorBody),
        (status = 413, description = "The body is above limits.max_body_bytes", body = super::openapi::ErrorBody),
    )
)]
async fn switch(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    super::refuse_parameters(raw.as_deref(), " (the change is the body)")?;
    let body = super::read_body(body, state.core.config()).await?;
    let change = parse_change(&body)?;
    let st = state.clone();
    // A small file write (sinks.json, fsynced): on the blocking pool.
    let status = super::blocking(&state, move || {
        st.sinks.set(&name, &change).map_err(|e| match e {
            SinkError::NotFound(_) => ApiError::not_found(e.to_string()),
            SinkError::Invalid(_) => ApiError::bad_request(e.to_string()),
            SinkError::Io(_) => ApiError::internal(e.to_string()),
        })
    })
    .await?;
    Ok(Json(status))
}

/// A PATCH body as a sink change, or a 400 that says what is wrong in plain words (an object
/// only: see [`super::json_object`]).
fn parse_change(bytes: &[u8]) -> Result<SinkState, ApiError> {
    const EXPECTED: &str = "{\"enabled\": true|false, \"sample\": 0..1}";
    super::json_object(bytes, EXPECTED)?;
    // From the bytes, not the value: parsed into a value, a field given twice kept its last
    // occurrence before serde could refuse it.
    let change: SinkState = serde_json::from_slice(bytes).map_err(|e| {
        let why = e.to_string().replace("struct SinkState", "a sink change");
        ApiError::bad_request(format!("expected {EXPECTED}: {why}"))
    })?;
    if change.enabled.is_none() && change.sample.is_none() {
        return Err(ApiError::bad_request(
            "nothing to change: give `enabled` and/or `sample`",
        ));
    }
    Ok(change)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_a_json_object_and_errors_say_so_plainly() {
        let ok = parse_change(br#"{"enabled": true, "sample": 0.5}"#).unwrap();
        assert_eq!((ok.enabled, ok.sample), (Some(true), Some(0.5)));
        for body in [
            "[true, 0.5]",
            "[]",
            "[false]",
            "true",
            "0.5",
            "null",
            "\"on\"",
        ] {
            let e = parse_change(body.as_bytes()).unwrap_err();
            assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST, "{body}");
            assert!(e.detail.contains("must be a JSON object"), "{body}: {e}");
        }
        for (body, needle) in [
            ("{", "not valid JSON"),
            (r#"{"colour": 1}"#, "unknown field `colour`"),
            (r#"{"enabled": "yes"}"#, "a boolean"),
            (
                r#"{"enabled": true, "enabled": false}"#,
                "duplicate field `enabled`",
            ),
            ("{}", "nothing to change"),
        ] {
            let e = parse_change(body.as_bytes()).unwrap_err();
            assert!(e.detail.contains(needle), "{body}: {e}");
            assert!(!e.detail.contains("SinkState"), "{body}: {e}");
        }
    }
}
