//! `GET /api/v1/stream`: the HTTP half of the live stream (see `crate::stream`): the query's
//! filters, the format the client accepts, the response.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{parse_param, ApiError, AppState};
use crate::ndjson::RequestFilter;
use crate::stream::{Full, StreamContext};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(stream))
}

/// `GET /api/v1/stream`: NDJSON (or SSE with `Accept: text/event-stream`) of every request merged
/// from now on that passes the filters.
#[utoipa::path(
    get,
    path = "/api/v1/stream",
    operation_id = "stream_requests",
    tag = "raw",
    params(
        ("filter" = Option<Vec<String>>, Query, description = "`COLUMN:VALUE`, as for reports; repeatable (all must hold). COLUMN: hostname, server_name, script_name, schema, status (as `status` below), or a request tag's name (`country:nl`)"),
        ("hostname" = Option<String>, Query, description = "Exact hostname"),
        ("server_name" = Option<String>, Query, description = "Exact server name"),
        ("script_name" = Option<String>, Query, description = "Exact script name"),
        ("schema" = Option<String>, Query, description = "Exact schema"),
        ("status" = Option<String>, Query, description = "A status (`404`), a class (`1xx` to `5xx`) or a bound (`>=500`, `>399`, `<=299`, `<400`)"),
        ("min_time" = Option<String>, Query, description = "request_time at least this: seconds (`0.1`) or a duration (`100ms`, `2s`)"),
        ("max_time" = Option<String>, Query, description = "request_time at most this: seconds or a duration"),
        ("min_size" = Option<String>, Query, description = "document_size at least this: bytes or a size (`2MiB`, `512KiB`, `1MB`)"),
        ("max_size" = Option<String>, Query, description = "document_size at most this: bytes or a size"),
        ("min_memory" = Option<String>, Query, description = "memory_peak at least this: bytes or a size (`64MiB`)"),
        ("max_memory" = Option<String>, Query, description = "memory_peak at most this: bytes or a size"),
        ("tag.NAME" = Option<String>, Query, description = "Request tag NAME has this value, for any NAME"),
        ("timer_tag.NAME" = Option<String>, Query, description = "The request has a timer whose tag NAME has this value"),
        ("timers" = Option<bool>, Query, description = "Include each request's timers (default false)"),
        ("sample" = Option<f64>, Query, description = "Share of the requests to send, in (0, 1] (default 1)"),
    ),
    responses(
        (status = 200, description = "One JSON object per request as it is merged (the shape of /api/v1/requests), and `{\"dropped\": N}` lines where this client fell behind; SSE events with `Accept: text/event-stream`", content_type = "application/x-ndjson", body = String),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 503, description = "`limits.max_stream_clients` clients are connected", body = super::openapi::ErrorBody),
    )
)]
async fn stream(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let mut sample = 1.0f64;
    let filter = RequestFilter::parse(
        raw.as_deref(),
        None,
        &mut |k, v| {
            if k != "sample" {
                return Ok(false);
            }
            let x: f64 = parse_param("sample", v)?;
            if !(x > 0.0 && x <= 1.0) {
                return Err(ApiError::bad_parameter(
                    "sample",
                    format!("`{v}` must be a rate in (0, 1]"),
                ));
            }
            sample = x;
            Ok(true)
        },
        ", sample",
    )?;
    let sse = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"));
    let ctx = StreamContext {
        core: std::sync::Arc::clone(&state.core),
        subscribers: std::sync::Arc::clone(&state.stream),
        shutdown: state.shutdown.clone(),
    };
    // The query as the status and the log show it: no secret in it (see `super::redact_query`).
    let shown = super::redact_query(raw.as_deref().unwrap_or(""), state.token.as_deref());
    let body = crate::stream::subscribe(ctx, shown, sse, filter, sample).map_err(
        |Full { max_clients }| ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            error: "too_many_stream_clients",
            detail: format!(
                "{max_clients} stream clients are connected (limits.max_stream_clients)"
            ),
        },
    )?;
    let content_type = if sse {
        "text/event-stream"
    } else {
        "application/x-ndjson"
    };
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response())
}
