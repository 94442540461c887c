//! `POST /api/v1/marks` (a deploy, a config change: `{"text", "time"?, "server_name"?,
//! "script_name"?}`), `GET /api/v1/marks?from=&to=` and `DELETE /api/v1/marks/{id}`: the marks
//! of [`crate::marks`], kept in `{state_dir}/marks.json`. Changes need the token like every
//! write (`authorize`); each is written and synced before it is answered.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ApiError, AppState, Client, PathParam};
use crate::marks::{Mark, MarksError, NewMark};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, add))
        .routes(routes!(delete))
}

/// A mark as the API shows it: `time` in unix seconds (as history's points), fractions kept.
pub fn mark_json(m: &Mark) -> Value {
    json!({
        "id": m.id,
        "time": m.time_ms as f64 / 1000.0,
        "text": m.text,
        "server_name": m.server_name,
        "script_name": m.script_name,
        "created": m.created_ms as f64 / 1000.0,
    })
}

/// The marks in a range of time, by time.
#[utoipa::path(
    get,
    path = "/api/v1/marks",
    operation_id = "list_marks",
    tag = "marks",
    params(
        ("from" = Option<String>, Query, description = "Unix seconds, RFC 3339, `now` or relative such as `-24h` (default: the earliest)"),
        ("to" = Option<String>, Query, description = "As `from` (default: the latest, future marks included)"),
    ),
    responses(
        (status = 200, description = "`{\"marks\": [{id, time, text, server_name, script_name, created}]}`, by time (`time`, `created`: unix seconds)", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
    )
)]
async fn list(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let pairs = super::query_pairs(raw.as_deref())?;
    super::refuse_repeats(&pairs, &[])?;
    let now_ms = crate::state::unix_now_ms() as i64;
    let (mut from_ms, mut to_ms) = (i64::MIN, i64::MAX);
    for (k, v) in &pairs {
        let t = || {
            crate::units::parse_time_ms(v, now_ms).map_err(|why| ApiError::bad_parameter(k, why))
        };
        match k.as_str() {
            "from" => from_ms = t()?,
            "to" => to_ms = t()?,
            _ => {
                return Err(ApiError::bad_parameter(
                    k,
                    "unknown parameter (this endpoint takes `from` and `to`)",
                ))
            }
        }
    }
    if from_ms > to_ms {
        return Err(ApiError::bad_parameter(
            "from",
            "is after `to`: the range would hold nothing",
        ));
    }
    let marks: Vec<Value> = state
        .core
        .marks()
        .list(from_ms, to_ms)
        .iter()
        .map(mark_json)
        .collect();
    Ok(Json(json!({ "marks": marks })))
}

/// Adds a mark (a deploy, a config change), kept in `{state_dir}/marks.json`.
#[utoipa::path(
    post,
    path = "/api/v1/marks",
    operation_id = "add_mark",
    tag = "marks",
    request_body = super::openapi::MarkBody,
    responses(
        (status = 201, description = "Added: `{id, time, text, server_name, script_name, created}`", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 408, description = "The body did not all come within http.header_timeout", body = super::openapi::ErrorBody),
        (status = 413, description = "The body is above limits.max_body_bytes", body = super::openapi::ErrorBody),
        (status = 500, response = super::openapi::StateNotSaved),
        (status = 503, response = super::openapi::Busy),
    )
)]
async fn add(
    State(state): State<AppState>,
    client: Client,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Result<Response, ApiError> {
    super::refuse_parameters(raw.as_deref(), " (the mark is the body)")?;
    let bytes = super::read_body(body, state.core.config()).await?;
    let now_ms = crate::state::unix_now_ms() as i64;
    let new = parse_mark(&bytes, now_ms)?;
    let st = state.clone();
    // A small file written and synced: on the blocking pool.
    let mark = super::blocking(&state, move || {
        st.core.marks().add(new, now_ms).map_err(refused)
    })
    .await?;
    tracing::debug!(id = mark.id, %client, "Mark added through the API");
    Ok((StatusCode::CREATED, Json(mark_json(&mark))).into_response())
}

/// Deletes a mark.
#[utoipa::path(
    delete,
    path = "/api/v1/marks/{id}",
    operation_id = "delete_mark",
    tag = "marks",
    params(("id" = u64, Path, description = "The mark's `id`")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, response = super::openapi::NotFound),
        (status = 500, response = super::openapi::StateNotSaved),
        (status = 503, response = super::openapi::Busy),
    )
)]
async fn delete(
    State(state): State<AppState>,
    PathParam(id): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    super::refuse_parameters(raw.as_deref(), "")?;
    let id: u64 = id.parse().map_err(|_| ApiError {
        status: StatusCode::BAD_REQUEST,
        error: "bad_path",
        detail: format!("`{id}` is not a mark's id (a whole number)"),
    })?;
    let st = state.clone();
    super::blocking(&state, move || st.core.marks().delete(id).map_err(refused)).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn refused(e: MarksError) -> ApiError {
    match e {
        MarksError::Invalid(_) => ApiError::bad_request(e.to_string()),
        MarksError::NotFound(_) => ApiError::not_found(e.to_string()),
        MarksError::Io(_) => ApiError::internal(e.to_string()),
    }
}

/// The body of a POST, as it may be written.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Posted {
    text: String,
    #[serde(default)]
    time: Option<Value>,
    #[serde(default)]
    server_name: Option<String>,
    #[serde(default)]
    script_name: Option<String>,
}

/// A POST body as a mark, or a 400 that says what is wrong in plain words: `text` is needed;
/// `time` is unix seconds (a number or a string), RFC 3339, `now` or relative (`-5m`), now when
/// left out.
fn parse_mark(bytes: &[u8], now_ms: i64) -> Result<NewMark, ApiError> {
    const EXPECTED: &str = "{\"text\": \"deploy v1.4.2\", \"time\": 1764100000}";
    super::json_object(bytes, EXPECTED)?;
    // From the bytes, not the value: a field given twice is refused, not last-wins.
    let b: Posted = serde_json::from_slice(bytes).map_err(|e| {
        let why = e.to_string().replace("struct Posted", "a mark");
        ApiError::bad_request(format!("expected {EXPECTED}: {why}"))
    })?;
    let time_ms = match &b.time {
        None | Some(Value::Null) => Ok(now_ms),
        Some(Value::Number(n)) => crate::units::parse_time_ms(&n.to_string(), now_ms),
        Some(Value::String(s)) => crate::units::parse_time_ms(s, now_ms),
        Some(other) => Err(format!(
            "`{other}` is not a time (unix seconds, RFC 3339, `now` or `-5m`)"
        )),
    }
    .map_err(|why| ApiError::bad_request(format!("`time`: {why}")))?;
    let new = NewMark {
        time_ms,
        text: b.text,
        server_name: b.server_name,
        script_name: b.script_name,
    };
    new.check().map_err(ApiError::bad_request)?;
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_read_and_refused_plainly() {
        let now = 1_764_100_000_000;
        let m = parse_mark(br#"{"text": "deploy"}"#, now).unwrap();
        assert_eq!((m.time_ms, m.text.as_str()), (now, "deploy"));
        let m = parse_mark(
            br#"{"text": "x", "time": 1764000000.5, "server_name": "shop"}"#,
            now,
        )
        .unwrap();
        assert_eq!(
            (m.time_ms, m.server_name.as_deref()),
            (1_764_000_000_500, Some("shop"))
        );
        let m = parse_mark(br#"{"text": "x", "time": "-5m"}"#, now).unwrap();
        assert_eq!(m.time_ms, now - 300_000);
        let m = parse_mark(br#"{"text": "x", "time": "2026-11-25T21:00:00Z"}"#, now).unwrap();
        assert_eq!(m.time_ms, 1_795_640_400_000);
        for (body, needle) in [
            ("[]", "must be a JSON object"),
            ("{", "not valid JSON"),
            ("{}", "missing field `text`"),
            (r#"{"text": "x", "colour": 1}"#, "unknown field `colour`"),
            (r#"{"text": "x", "text": "y"}"#, "duplicate field `text`"),
            (r#"{"text": 5}"#, "invalid type"),
            (r#"{"text": "x", "time": true}"#, "is not a time"),
            (r#"{"text": "x", "time": "soon"}"#, "`time`"),
            (r#"{"text": "x", "time": -5}"#, "`time`"),
            (r#"{"text": ""}"#, "`text` is empty"),
        ] {
            let e = parse_mark(body.as_bytes(), now).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST, "{body}");
            assert!(e.detail.contains(needle), "{body}: {e}");
            assert!(!e.detail.contains("Posted"), "{body}: {e}");
        }
    }
}
