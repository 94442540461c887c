//! `GET /api/v1/openapi.json`: the OpenAPI 3.1 document of the API, derived from the code.
//!
//! Every handler carries a `#[utoipa::path(...)]` annotation (method, path, parameters,
//! responses) and is registered with `.routes(routes!(handler))` on a `utoipa_axum`
//! `OpenApiRouter`, which adds the route to the axum router and its description to the document in
//! the same call. `api::router` merges the modules' routers, splits them into the axum router and
//! this document, and serves the document as JSON (built once, shared through an `Extension`).
//! A test compares every route of the real router (method and path) with the document.
//!
//! The response and body schemas below describe the JSON the handlers build (they build
//! `serde_json` values, so these types exist for the document only); tests check them against
//! real answers and against [`ReportDef`](crate::report::ReportDef).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::response::IntoResponse;
use axum::Extension;
use utoipa::{OpenApi, ToResponse, ToSchema};

/// The document's fixed part: title, version, tags and the shared schemas. The paths come from
/// the routers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "pinbad",
        description = "A Pinba server: live reports and raw requests over HTTP/JSON. Errors are \
                       `{\"error\", \"detail\"}` with a 4xx/5xx status. With a token set \
                       (`http.token`), every request but /healthz, /metrics and the dashboard's \
                       files needs `Authorization: Bearer TOKEN` (reads too unless \
                       `http.token_reads = false`)."
    ),
    tags(
        (name = "status", description = "Liveness and self-instrumentation"),
        (name = "reports", description = "Live aggregated reports"),
        (name = "raw", description = "Raw requests kept in the pool"),
        (name = "marks", description = "Named moments (a deploy, a config change), drawn on charts"),
        (name = "meta", description = "This document"),
    ),
    components(
        schemas(ErrorBody),
        responses(BadRequest, Unauthorized, NotFound, Busy, StateNotSaved)
    )
)]
pub struct ApiDoc;

/// The document as served: built once by `api::router`.
#[derive(Clone)]
pub struct Document(pub Arc<String>);

impl Document {
    pub fn new(doc: &utoipa::openapi::OpenApi) -> Document {
        Document(Arc::new(doc.to_pretty_json().unwrap_or_else(|e| {
            format!("{{\"error\": \"internal\", \"detail\": \"cannot render the document: {e}\"}}")
        })))
    }
}

/// The OpenAPI document of this API.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "meta",
    responses(
        (status = 200, description = "The OpenAPI 3.1 document (JSON)", content_type = "application/json", body = Object),
        (status = 400, response = BadRequest),
    )
)]
pub async fn openapi_json(
    Extension(doc): Extension<Document>,
    axum::extract::RawQuery(raw): axum::extract::RawQuery,
) -> Result<axum::response::Response, super::ApiError> {
    super::refuse_parameters(raw.as_deref(), "")?;
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        doc.0.as_str().to_owned(),
    )
        .into_response())
}

/// Every 4xx/5xx answer.
#[derive(ToSchema)]
pub struct ErrorBody {
    /// Short kind: `bad_parameter`, `bad_path`, `bad_request`, `not_found`, `conflict`,
    /// `unauthorized`, `payload_too_large`, `body_timeout`, `busy`, `dictionary_full`,
    /// `method_not_allowed`, `internal`.
    pub error: String,
    /// What was wrong, naming the parameter, field or value.
    pub detail: String,
}

/// A bad parameter or body: the detail names it.
#[derive(ToResponse)]
pub struct BadRequest(pub ErrorBody);

/// The bearer token is missing or wrong (`http.token`; for reads unless `http.token_reads = false`).
#[derive(ToResponse)]
pub struct Unauthorized(pub ErrorBody);

/// No such report (or other named thing).
#[derive(ToResponse)]
pub struct NotFound(pub ErrorBody);

/// `http.max_concurrent_queries` heavy queries are running: retry (`Retry-After: 1`).
#[derive(ToResponse)]
pub struct Busy(pub ErrorBody);

/// The state file cannot be written: nothing changed.
#[derive(ToResponse)]
pub struct StateNotSaved(pub ErrorBody);

/// `GET /healthz`.
#[derive(ToSchema)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
}

/// A filter value: a number (`min_time`, `max_time`, `status`) or a string.
#[derive(ToSchema)]
#[schema(as = FilterValue)]
#[allow(dead_code)]
pub enum FilterValueDoc {
    Number(f64),
    Text(String),
}

/// A report definition: the body of `POST /api/v1/reports`, as in a `[[report]]` config table.
#[derive(ToSchema)]
pub struct ReportDefinition {
    /// `[A-Za-z0-9_:.,-]`, 1 to 128 bytes, unique.
    pub name: String,
    /// Ordered dimensions (at most 15): `hostname`, `server_name`, `script_name`, `schema`,
    /// `status`, `tag:NAME` (request tag), `timer_tag:NAME` (timer tag); none for an info report.
    #[schema(default = json!([]))]
    pub keys: Vec<String>,
    /// Percentiles shown by default, each in [0, 100].
    #[schema(default = json!([90, 95, 99]))]
    pub percentiles: Vec<f64>,
    /// Instead of `keys`: `timer_tag_info`, `timer_tag_report`, `timer_tag_report2`,
    /// `request_tag_info` or `request_tag_report`, with `tags`.
    pub preset: Option<String>,
    /// Tag names for `preset`.
    pub tags: Vec<String>,
    /// All must hold: `min_time`, `max_time` (seconds, inclusive), `hostname`, `server_name`,
    /// `script_name`, `schema`, `status`, `tag:NAME`, `timer_tag:NAME`.
    pub filters: BTreeMap<String, FilterValueDoc>,
    /// The report's own window, e.g. `"1m"` (1 s to 30 days); `stats_history` when absent.
    pub history: Option<String>,
    /// Export its rows on `GET /metrics` as monotonic counters (default false).
    pub prometheus: Option<bool>,
    /// With `prometheus`: the upper bounds (seconds, increasing, above 0, at most 128) of its
    /// histograms' buckets, `+Inf` added; `[]`: `+Inf` alone. Default: ten a decade from 0.1 ms
    /// to 10 s.
    pub prometheus_buckets: Option<Vec<f64>>,
    /// How long its history is kept, e.g. `"30d"` (1 min to 3650 days); `"0s"`: no history
    /// (see `GET /api/v1/reports/{name}/history`). Absent: 1 day (`1d`, or `history_step` when
    /// that is longer), so that every report created here can be charted; a `[[report]]` table
    /// without it keeps none.
    pub history_retention: Option<String>,
    /// The history's step, e.g. `"1m"` (default): whole seconds, a multiple of the report's tick.
    pub history_step: Option<String>,
    /// Rows kept per step (default 100): the top by `req_time_total` (`timer_value`), the rest
    /// summed into one "(other)" row.
    pub history_rows: Option<usize>,
    /// `pinba_engine` or `pinba2`: compute timer percentiles and `*_per_sec` as that server did
    /// (SQL `CREATE TABLE` sets it from the comment); absent: pinbad's.
    pub compat: Option<String>,
}

/// A report as listed (and as `POST /api/v1/reports` answers).
#[derive(ToSchema)]
pub struct ReportEntry {
    pub name: String,
    /// `info`, `request` or `timer`.
    pub kind: String,
    pub keys: Vec<String>,
    pub filters: BTreeMap<String, FilterValueDoc>,
    pub percentiles: Vec<f64>,
    /// The window, in seconds.
    pub history: f64,
    /// The window's tick, in seconds.
    pub tick: f64,
    /// Unix seconds from which the report holds every request; null until it is filled.
    pub complete_from: Option<f64>,
    pub rows: u64,
    /// Contributions lost to `limits.max_rows_per_report`.
    pub rows_lost: u64,
    pub builtin: bool,
    /// The report whose table this one shares (start-up reports equal but for their names);
    /// null: a table of its own.
    pub shares_table_with: Option<String>,
    /// Whether its rows are exported on `GET /metrics`.
    pub prometheus: bool,
    /// The upper bounds (seconds) of its histograms' buckets on `GET /metrics`, besides `+Inf`
    /// (defaults applied); null when it is not exported.
    pub prometheus_buckets: Option<Vec<f64>>,
    /// How long its history is kept, in seconds (defaults applied); null: it keeps none.
    pub history_retention: Option<f64>,
    /// The history's step, in seconds; null: no history.
    pub history_step: Option<f64>,
    /// Rows kept per step; null: no history.
    pub history_rows: Option<u64>,
    /// `pinba_engine` or `pinba2`: whose definitions of timer percentiles and `*_per_sec` it
    /// follows; null: pinbad's.
    pub compat: Option<String>,
}

/// `GET /api/v1/reports/{name}/history`.
#[derive(ToSchema)]
pub struct HistoryAnswer {
    pub report: String,
    /// `info`, `request` or `timer`.
    pub kind: String,
    pub key_columns: Vec<String>,
    /// The range asked, unix seconds.
    pub from: i64,
    pub to: i64,
    /// The step of the points, in seconds (a multiple of `stored_step`).
    pub step: u64,
    /// The step of the stored steps read, in seconds: the report's own (`history_step`), or its
    /// fine steps' (`history.fine_step`) over a range they cover.
    pub stored_step: u64,
    /// The value columns of every point, after `t`.
    pub columns: Vec<String>,
    /// Stored rows left out because they cannot be read back (a damaged or hand-edited store;
    /// also counted in `/api/v1/status` `history.damaged_rows_read`). Normally 0.
    pub damaged_rows: u64,
    pub series: Vec<HistorySeries>,
}

/// One series of a history answer.
#[derive(ToSchema)]
pub struct HistorySeries {
    /// The key values (`[]` with `group=total`; all `"(other)"` for the other row).
    pub key: Vec<String>,
    /// Whether this is the "(other)" row: the rows a step did not keep (`history_rows`, or
    /// `history.fine_rows` in a fine step), summed.
    pub other: bool,
    /// `[t, v1, v2, ...]`, sorted by `t` (the step's start, unix seconds); a step without data
    /// is absent; a percentile of an empty step is null.
    pub points: Vec<Vec<Option<f64>>>,
}

/// `GET /api/v1/compare`.
#[derive(ToSchema)]
pub struct CompareAnswer {
    pub report: String,
    /// `info`, `request` or `timer`.
    pub kind: String,
    /// The rows' key columns: the report's, `status` left out (it gives the error ratios).
    pub key_columns: Vec<String>,
    /// `status` when error ratios are counted (the report has that key); null: no error ratios.
    pub errors_from: Option<String>,
    /// The p-value below which a change is significant.
    pub alpha: f64,
    /// What rows are ranked by (`any`, or a figure).
    pub by: String,
    /// Range A (before), as read.
    pub a: CompareSide,
    /// Range B (after), as read.
    pub b: CompareSide,
    /// Rows compared (both ranges' rows) before `limit`.
    pub rows_compared: u64,
    /// Of them, those with a significant change.
    pub significant_rows: u64,
    /// Stored rows left out because they cannot be read back. Normally 0.
    pub damaged_rows: u64,
    /// The report's totals compared (`key` `[]`).
    pub total: CompareRow,
    /// The rows ranked: significant first, by `score`, then by requests.
    pub rows: Vec<CompareRow>,
}

/// A range of a comparison as read: whole stored steps.
#[derive(ToSchema)]
pub struct CompareSide {
    /// Unix seconds: the start of the step holding the range's start.
    pub from: i64,
    /// Unix seconds: the start of the step holding the range's end (exclusive).
    pub to: i64,
    /// Seconds of it that have passed: what its rates divide by.
    pub seconds: i64,
    /// The step of the stored steps read, seconds: the report's fine steps where they cover the
    /// range (`history.fine_step`), else its own (`history_step`).
    pub step: i64,
}

/// A compared row.
#[derive(ToSchema)]
pub struct CompareRow {
    pub key: Vec<String>,
    /// Whether this is the "(other)" row (rows not among either range's top 500 by time, or
    /// left out of their steps).
    pub other: bool,
    /// Whether a change it is ranked by is significant.
    pub significant: bool,
    /// The largest `effect` among its significant changes (or `by`'s); 0 when none.
    pub score: f64,
    pub a: CompareFigures,
    pub b: CompareFigures,
    /// One per figure: `rate`, `p50`, `p95`, `p99`, `error_ratio`, `cpu_per_request`,
    /// `memory_per_request`.
    pub changes: Vec<CompareChange>,
}

/// A row's figures over one range.
#[derive(ToSchema)]
pub struct CompareFigures {
    pub requests: u64,
    /// Requests a second (over the part of the range passed).
    pub rate: Option<f64>,
    /// Seconds.
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    /// Requests with a status of 500 or more (null without a `status` key).
    pub errors: Option<u64>,
    pub error_ratio: Option<f64>,
    /// `ru_utime + ru_stime` per request, seconds.
    pub cpu_per_request: Option<f64>,
    /// `memory_peak` per request, bytes.
    pub memory_per_request: Option<f64>,
}

/// One figure's change from range A to range B.
#[derive(ToSchema)]
pub struct CompareChange {
    pub metric: String,
    /// B − A.
    pub change: Option<f64>,
    /// B / A (null when A is 0).
    pub ratio: Option<f64>,
    /// The two-sided p-value of its test (rates: exact Poisson; error ratios: two proportions;
    /// percentiles: Mood's quantile test on the histograms); null when untested (CPU and memory,
    /// fewer than 10 requests a side).
    pub p_value: Option<f64>,
    /// `p_value < alpha`; null when untested.
    pub significant: Option<bool>,
    /// `|ln(B/A)|`, at most 10 (a change from or to 0).
    pub effect: f64,
}

/// `GET /api/v1/reports`.
#[derive(ToSchema)]
pub struct ReportList {
    pub reports: Vec<ReportEntry>,
    /// The largest `limit` a report query, a history query or a raw query takes
    /// (`limits.max_query_limit`): a larger one is a 400.
    pub max_query_limit: usize,
}

/// A report's rows (`GET /api/v1/reports/{name}`, `GET /api/v1/info`). Columns: see
/// docs/reports.md, "Columns"; times in seconds, sizes in bytes.
#[derive(ToSchema)]
pub struct ReportTable {
    pub report: String,
    pub kind: String,
    /// Key column names.
    pub keys: Vec<String>,
    /// Seconds the window covers now.
    pub time_interval: f64,
    pub history: f64,
    pub tick: f64,
    /// Unix seconds where the window covered by `time_interval` starts.
    pub complete_from: Option<f64>,
    /// Rows matching `filter`/`match`, before `limit`.
    pub rows_total: u64,
    /// The report's totals (`req_count`, `req_time_total`, ..., `memory_peak_total`,
    /// `memory_peak_max`).
    #[schema(value_type = Object)]
    pub totals: BTreeMap<String, f64>,
    /// One object per row: key columns first, then the value columns and `p<N>` percentiles.
    #[schema(value_type = Vec<Object>)]
    pub rows: Vec<BTreeMap<String, String>>,
}

/// One timer of a raw request.
#[derive(ToSchema)]
pub struct RawTimer {
    /// Seconds.
    pub value: f64,
    pub hit_count: u64,
    pub ru_utime: f64,
    pub ru_stime: f64,
    pub tags: BTreeMap<String, String>,
}

/// One raw request.
#[derive(ToSchema)]
pub struct RawRequest {
    pub id: u64,
    /// Unix seconds.
    pub timestamp: f64,
    pub hostname: String,
    pub server_name: String,
    pub script_name: String,
    pub request_count: u64,
    /// Bytes.
    pub document_size: u64,
    /// Bytes.
    pub memory_peak: u64,
    /// Bytes.
    pub memory_footprint: u64,
    /// Seconds.
    pub request_time: f64,
    pub ru_utime: f64,
    pub ru_stime: f64,
    pub status: u64,
    pub schema: Option<String>,
    /// Request tags.
    pub tags: BTreeMap<String, String>,
    pub timer_count: u64,
    /// With `timers=true` only.
    pub timers: Option<Vec<RawTimer>>,
}

/// `GET /api/v1/requests`.
#[derive(ToSchema)]
pub struct RequestList {
    pub requests: Vec<RawRequest>,
    /// The `cursor` of the next page (older requests), when this page is full and older
    /// requests are left; else null.
    pub next_cursor: Option<u64>,
}

/// The body of `PATCH /api/v1/instruments` (either flag may be left out).
#[derive(ToSchema)]
pub struct InstrumentsChange {
    /// A stage (`receive`, `decode`, `intern`, `pool`, `sweep`, `evict`, `query`), `report:NAME`,
    /// `report:*` or `*`.
    pub name: String,
    pub enabled: Option<bool>,
    pub timed: Option<bool>,
}

/// The body of `PATCH /api/v1/sinks/{name}` (either field may be left out, not both).
#[derive(ToSchema)]
pub struct SinkChange {
    /// Whether the sink receives requests.
    pub enabled: Option<bool>,
    /// The share of requests it receives, in (0, 1] (chosen by a hash of the request id).
    pub sample: Option<f64>,
}

/// The body of `POST /api/v1/marks`.
#[derive(ToSchema)]
pub struct MarkBody {
    /// What happened (`deploy v1.4.2`), 1 to 256 bytes.
    pub text: String,
    /// When: unix seconds (a number or a string), RFC 3339, `now` or relative (`-5m`); now
    /// when left out.
    pub time: Option<String>,
    /// The server it concerns, if one.
    pub server_name: Option<String>,
    /// The script it concerns, if one.
    pub script_name: Option<String>,
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashMap};
    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::{Method, Request, StatusCode};
    use serde_json::Value;
    use tower::ServiceExt;

    use crate::config::Config;
    use crate::ring::Ring;
    use crate::state::Core;

    fn state(dir: &std::path::Path) -> crate::api::AppState {
        let config = Config {
            state_dir: dir.to_path_buf(),
            request_pool_size: 1000,
            timer_pool_size: 1000,
            tag_pool_size: 1000,
            ..Config::default()
        };
        crate::api::ApiState::of(
            Core::new(config, Arc::new(Ring::new(1 << 20)), vec![], 0).unwrap(),
        )
    }

    async fn call(router: &axum::Router, method: Method, uri: &str) -> axum::response::Response {
        let req = Request::builder()
            .method(method)
            .uri(uri)
            .body(Body::empty())
            .unwrap();
        router.clone().oneshot(req).await.unwrap()
    }

    /// The paths of the real router. axum keeps no public list of them, but its `Debug` shows
    /// the path router's `paths`; the test checks it finds the ones it must, so a change of that
    /// format fails loudly instead of passing on an empty list.
    fn router_paths(router: &axum::Router) -> BTreeSet<String> {
        let debug = format!("{router:?}");
        let start = debug
            .find("path_router:")
            .expect("axum's Router Debug shows path_router");
        let end = debug.find("fallback_router:").unwrap_or(debug.len());
        let part = &debug[start..end];
        let paths = part
            .find("paths:")
            .expect("the path router's Debug shows its paths");
        part[paths..]
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|p| p.starts_with('/') && !p.contains("__private__"))
            .map(str::to_string)
            .collect()
    }

    /// Every method and path the real router answers is an operation of the document, and every
    /// operation of the document is answered: a route added without its `#[utoipa::path]` (a
    /// plain `.route(...)`, or a router merged without `routes!`) fails here.
    #[tokio::test]
    async fn every_route_of_the_router_is_in_the_document_and_back() {
        let dir = tempfile::tempdir().unwrap();
        let router = crate::api::router(state(dir.path()));
        let paths = router_paths(&router);
        for must in [
            "/healthz",
            "/api/v1/openapi.json",
            "/api/v1/reports/{name}",
            "/api/v1/compare",
        ] {
            assert!(
                paths.contains(must),
                "{must} not found in the router's paths {paths:?}"
            );
        }

        let resp = call(&router, Method::GET, "/api/v1/openapi.json").await;
        assert_eq!(resp.status(), StatusCode::OK);
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20)
            .await
            .unwrap();
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let documented: BTreeSet<(String, String)> = doc["paths"]
            .as_object()
            .unwrap()
            .iter()
            .flat_map(|(path, ops)| {
                ops.as_object()
                    .unwrap()
                    .keys()
                    .map(move |m| (m.to_uppercase(), path.clone()))
            })
            .collect();

        // What the router answers on each path: the Allow header of a 405 to a method no
        // route uses.
        let mut routed = BTreeSet::new();
        for path in &paths {
            let uri: String = path
                .split('/')
                .map(|seg| if seg.starts_with('{') { "x" } else { seg })
                .collect::<Vec<_>>()
                .join("/");
            let resp = call(&router, Method::TRACE, &uri).await;
            assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED, "{path}");
            let allow = resp.headers()["allow"].to_str().unwrap().to_string();
            for method in allow.split(',').map(str::trim).filter(|m| *m != "HEAD") {
                routed.insert((method.to_string(), path.clone()));
            }
        }
        let undocumented: Vec<_> = routed.difference(&documented).collect();
        assert!(
            undocumented.is_empty(),
            "routes missing from /api/v1/openapi.json (annotate the handler with \
             #[utoipa::path] and register it with .routes(routes!(handler))): {undocumented:?}"
        );
        let unrouted: Vec<_> = documented.difference(&routed).collect();
        assert!(
            unrouted.is_empty(),
            "documented but not routed: {unrouted:?}"
        );
        assert!(routed.len() >= 11, "{routed:?}");
    }

    /// Every operation has a unique id, a tag, and a description of each response; every path
    /// parameter of a path is described.
    #[test]
    fn every_operation_is_described() {
        let (_, doc) = crate::api::documented_routes().split_for_parts();
        let doc: Value = serde_json::to_value(&doc).unwrap();
        let mut ids = HashMap::new();
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for (method, op) in ops.as_object().unwrap() {
                let id = op["operationId"].as_str().unwrap().to_string();
                if let Some(other) = ids.insert(id.clone(), format!("{method} {path}")) {
                    panic!("operationId {id} of {method} {path} is also {other}'s");
                }
                assert!(
                    op["tags"].as_array().is_some_and(|t| !t.is_empty()),
                    "{method} {path}"
                );
                let responses = op["responses"].as_object().unwrap();
                assert!(!responses.is_empty(), "{method} {path}");
                for (code, r) in responses {
                    let r = match r["$ref"].as_str() {
                        Some(at) => {
                            let name = at.rsplit('/').next().unwrap();
                            &doc["components"]["responses"][name]
                        }
                        None => r,
                    };
                    assert!(
                        r["description"].as_str().is_some_and(|d| !d.is_empty()),
                        "{method} {path} {code}"
                    );
                }
                for segment in path.split('/').filter(|s| s.starts_with('{')) {
                    let name = segment.trim_matches(|c| c == '{' || c == '}');
                    let params = op["parameters"].as_array().cloned().unwrap_or_default();
                    assert!(
                        params
                            .iter()
                            .any(|p| p["name"] == name && p["in"] == "path"),
                        "{method} {path}: path parameter {name} not described"
                    );
                }
            }
        }
    }

    /// The documented report definition has exactly the fields a `ReportDef` has.
    #[test]
    fn report_definition_schema_matches_report_def() {
        use utoipa::PartialSchema;
        let schema = serde_json::to_value(super::ReportDefinition::schema()).unwrap();
        let documented: BTreeSet<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut def = crate::report::ReportDef::new("x", &[]);
        def.preset = Some("timer_tag_info".into());
        def.tags = vec!["group".into()];
        def.filters.insert("min_time".into(), 1.0.into());
        def.history = Some("1m".parse().unwrap());
        def.prometheus = true;
        def.prometheus_buckets = Some(vec![0.01, 0.1]);
        def.history_retention = Some("30d".parse().unwrap());
        def.history_step = Some("1m".parse().unwrap());
        def.history_rows = Some(10);
        def.compat = Some(crate::report::Compat::PinbaEngine);
        let json = serde_json::to_value(&def).unwrap();
        let real: BTreeSet<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(documented, real);
    }
}
