//! `GET /api/v1/request_logs/{kind}`: the request logs (see `reqlog`): the slowest requests, those
//! with the highest memory peak or CPU time, and the error requests, kept per step and group,
//! filtered by server, host, script, status and time, paged, with the number of all matches.
//!
//! Runs on the blocking pool under a query slot, with a read-only connection of its own (the
//! writer is never waited for: SQLite's WAL lets readers run beside it).

use axum::extract::{RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::requests::parse_status;
use super::{blocking, parse_param, query_pairs, refuse_repeats, ApiError, AppState, PathParam};
use crate::reqlog::select::Kind;
use crate::reqlog::store::{self, Query, Sort, Store};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(request_logs))
}

/// Entries answered when `limit` is not given.
const DEFAULT_LIMIT: usize = 100;

/// `GET /api/v1/request_logs/{kind}`.
#[derive(ToSchema)]
pub struct RequestLogAnswer {
    /// `slow`, `memory`, `cpu` or `errors`.
    pub kind: String,
    /// What the logs keep their tops per: `server_name`, `hostname` or `script_name`.
    pub group_by: String,
    /// Every entry the filters match, over all pages.
    pub total: u64,
    /// This page: newest first (`sort=time`), or largest first (`sort=value`).
    pub entries: Vec<RequestLogEntry>,
    /// The `cursor` of the next page, when this one is full and more match; else null.
    pub next_cursor: Option<String>,
    /// For `errors`: every error request seen per status in the steps that start in the range,
    /// kept or not (null for the other logs, and when a filter other than the grouped column
    /// makes it unknowable).
    pub error_counts: Option<Vec<ErrorCount>>,
    /// How the log picks what it keeps: a log keeps a sample, and says how.
    pub sampling: Sampling,
}

/// How a request log picks what it keeps, and for `errors` what it kept of what it saw.
#[derive(ToSchema)]
pub struct Sampling {
    /// The rule in words, with the settings that make it.
    pub rule: String,
    /// Entries one group and step keep at most (`request_log.top`; `request_log.max_errors`
    /// per status for `errors`).
    pub per_step: u64,
    /// The step, seconds.
    pub step: u64,
    /// What a request must reach to be taken: `min_time` or `min_cpu` (seconds), `min_memory`
    /// (bytes), `error_status`; the global one (servers listed below have their own).
    pub threshold: f64,
    /// Servers with thresholds of their own (`[request_log.servers."NAME"]`).
    pub servers_with_own_thresholds: Vec<String>,
    /// Entries kept that the filters match (`total`).
    pub kept: u64,
    /// For `errors`: the error requests seen in the range, kept or not (the sum of
    /// `error_counts`); null for the other logs (what they do not keep is not counted) and
    /// where `error_counts` is null.
    pub seen: Option<u64>,
}

/// One request a log keeps.
#[derive(ToSchema)]
pub struct RequestLogEntry {
    /// The step's start, unix seconds.
    pub step: i64,
    /// Its group: its server, host or script (as `group_by` says).
    pub group: String,
    /// The request, with its tags and timers.
    pub request: super::openapi::RawRequest,
}

/// Error requests of one status.
#[derive(ToSchema)]
pub struct ErrorCount {
    pub status: u32,
    pub count: u64,
}

#[utoipa::path(
    get,
    path = "/api/v1/request_logs/{kind}",
    tag = "raw",
    params(
        ("kind" = String, Path, description = "`slow` (the slowest requests of each group and step), `memory` (the highest memory_peak), `cpu` (the highest ru_utime + ru_stime) or `errors` (status ≥ request_log.error_status: the first of each status)"),
        ("server_name" = Option<String>, Query, description = "Exact server name"),
        ("hostname" = Option<String>, Query, description = "Exact hostname"),
        ("script_name" = Option<String>, Query, description = "Exact script name"),
        ("status" = Option<String>, Query, description = "A status (`404`), a class (`1xx` to `5xx`) or a bound (`>=500`, `<400`)"),
        ("from" = Option<String>, Query, description = "Merged at or after: unix seconds, RFC 3339, `now` or relative such as `-1h`"),
        ("to" = Option<String>, Query, description = "Merged at or before (as `from`)"),
        ("sort" = Option<String>, Query, description = "`time` (default: newest first) or `value` (largest first: request_time, memory_peak or CPU seconds; request_time for errors)"),
        ("limit" = Option<usize>, Query, description = "Entries to answer (default 100, at most limits.max_query_limit)"),
        ("cursor" = Option<String>, Query, description = "The `next_cursor` of the page before (with the same filters and sort)"),
    ),
    responses(
        (status = 200, description = "The page, and the number of all matches", body = RequestLogAnswer),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 404, description = "No such log", body = super::openapi::ErrorBody),
        (status = 503, description = "The request logs are off or unavailable, or too many queries run", body = super::openapi::ErrorBody),
    )
)]
async fn request_logs(
    State(state): State<AppState>,
    PathParam(kind): PathParam<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let Some(kind) = Kind::from_name(&kind) else {
        return Err(ApiError::not_found(format!(
            "no request log `{kind}` (slow, memory, cpu or errors)"
        )));
    };
    let clock = state.core.clock();
    let now_s = crate::history::query::now_s(clock.unix_ms64(clock.now_ms64()));
    let q = parse(
        kind,
        raw.as_deref(),
        now_s,
        state.core.config().limits.max_query_limit,
    )?;
    if let Some(why) = state.request_log.unavailable() {
        return Err(ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            error: "request_log_unavailable",
            detail: format!("the request logs are unavailable: {why}"),
        });
    }
    let st = state.clone();
    let body = blocking(&state, move || {
        let log = &st.request_log;
        let failed = |e: store::StoreError| ApiError::internal(format!("request log store: {e}"));
        let conn = Store::open_reader(&log.path).map_err(failed)?;
        let page = store::run(&conn, &q, log.group_by.as_str()).map_err(failed)?;
        let sampling = sampling(log.sampling(kind), &page);
        Ok(render(kind, log.group_by.as_str(), &page, &sampling))
    })
    .await?;
    // Sent in chunks, counted in the budget until sent (see `super::answer`).
    let body = super::answer::stream_text(body.into_bytes(), state.core.budget())?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// The query string as a [`Query`] of log `kind`.
fn parse(kind: Kind, raw: Option<&str>, now_s: i64, max_limit: usize) -> Result<Query, ApiError> {
    let pairs = query_pairs(raw)?;
    refuse_repeats(&pairs, &[])?;
    let mut q = Query::new(kind, DEFAULT_LIMIT.min(max_limit));
    let time = |name: &str, v: &str| {
        crate::history::query::parse_time(name, v, now_s)
            .map_err(|e| ApiError::bad_parameter(&e.param, e.why))
    };
    for (k, v) in pairs {
        match k.as_str() {
            "server_name" => q.server_name = Some(v),
            "hostname" => q.hostname = Some(v),
            "script_name" => q.script_name = Some(v),
            "status" => q.status = Some(parse_status("status", &v)?),
            "from" => q.from_s = Some(time("from", &v)?),
            "to" => q.to_s = Some(time("to", &v)?),
            "sort" => {
                q.sort = match v.as_str() {
                    "time" => Sort::Time,
                    "value" => Sort::Value,
                    _ => {
                        return Err(ApiError::bad_parameter(
                            "sort",
                            format!("`{v}`: expected time or value"),
                        ))
                    }
                }
            }
            "limit" => {
                let n: usize = parse_param("limit", &v)?;
                if n == 0 || n > max_limit {
                    return Err(ApiError::bad_parameter(
                        "limit",
                        format!("{n} is out of range 1..={max_limit}"),
                    ));
                }
                q.limit = n;
            }
            "cursor" => q.cursor = Some(parse_cursor(&v)?),
            _ => {
                return Err(ApiError::bad_parameter(
                    &k,
                    "unknown parameter (expected server_name, hostname, script_name, status, \
                     from, to, sort, limit, cursor)",
                ))
            }
        }
    }
    if let (Some(from), Some(to)) = (q.from_s, q.to_s) {
        if from > to {
            return Err(ApiError::bad_parameter(
                "from",
                format!("`from` ({from}) is after `to` ({to}): the range holds no time"),
            ));
        }
    }
    Ok(q)
}

/// `VALUE_ID`, as [`render`] writes `next_cursor`.
fn parse_cursor(v: &str) -> Result<(f64, i64), ApiError> {
    v.split_once('_')
        .and_then(|(value, id)| Some((value.parse::<f64>().ok()?, id.parse::<i64>().ok()?)))
        .filter(|(value, _)| value.is_finite())
        .ok_or_else(|| {
            ApiError::bad_parameter(
                "cursor",
                format!("`{v}` is not a next_cursor of this endpoint"),
            )
        })
}

/// The answer's JSON: the stored requests are JSON already, and are written as they are.
/// The log's rule ([`crate::reqlog::RequestLog::sampling`]) with what this answer kept of what
/// the log saw.
fn sampling(mut rule: serde_json::Value, page: &store::Page) -> serde_json::Value {
    rule["kept"] = page.total.into();
    rule["seen"] = page
        .error_counts
        .as_ref()
        .map(|counts| counts.iter().map(|(_, n)| *n).sum::<u64>())
        .into();
    rule
}

fn render(kind: Kind, group_by: &str, page: &store::Page, sampling: &serde_json::Value) -> String {
    use crate::ndjson::put;
    let mut out = Vec::with_capacity(
        256 + page
            .entries
            .iter()
            .map(|e| e.request.len() + 64)
            .sum::<usize>(),
    );
    out.extend_from_slice(b"{\"kind\":");
    put(&mut out, kind.name());
    out.extend_from_slice(b",\"group_by\":");
    put(&mut out, group_by);
    out.extend_from_slice(b",\"total\":");
    put(&mut out, &page.total);
    out.extend_from_slice(b",\"entries\":[");
    for (i, e) in page.entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"step\":");
        put(&mut out, &e.t);
        out.extend_from_slice(b",\"group\":");
        put(&mut out, &e.group);
        out.extend_from_slice(b",\"request\":");
        out.extend_from_slice(e.request.as_bytes());
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"next_cursor\":");
    match page.next_cursor {
        Some((value, id)) => put(&mut out, &format!("{value}_{id}")),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error_counts\":");
    match &page.error_counts {
        Some(counts) => {
            let list: Vec<serde_json::Value> = counts
                .iter()
                .map(|(status, count)| serde_json::json!({"status": status, "count": count}))
                .collect();
            put(&mut out, &list);
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"sampling\":");
    put(&mut out, sampling);
    out.push(b'}');
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_parse_or_name_themselves() {
        let q = parse(
            Kind::Errors,
            Some("server_name=a&status=5xx&from=-1h&to=now&sort=value&limit=5&cursor=1.5_7"),
            10_000,
            1000,
        )
        .unwrap();
        assert_eq!(q.status, Some((500, 599)));
        assert_eq!((q.from_s, q.to_s), (Some(10_000 - 3600), Some(10_000)));
        assert_eq!(
            (q.sort, q.limit, q.cursor),
            (Sort::Value, 5, Some((1.5, 7)))
        );
        assert_eq!(q.server_name.as_deref(), Some("a"));
        for (raw, param) in [
            ("status=5x", "status"),
            ("limit=0", "limit"),
            ("limit=2000", "limit"),
            ("cursor=x", "cursor"),
            ("sort=up", "sort"),
            ("from=yesterday", "from"),
            ("server=a", "server"),
            ("status=500&status=502", "status"),
            ("from=-1m&to=-1h", "from"),
        ] {
            let e = parse(Kind::Slow, Some(raw), 10_000, 1000).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST, "{raw}");
            assert!(
                e.detail.contains(&format!("`{param}`")),
                "{raw}: {}",
                e.detail
            );
        }
    }
}
