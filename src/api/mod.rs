//! HTTP/JSON API (axum), served on the tokio runtime's threads ("pinbad-http").
//!
//! In: HTTP requests. Out: JSON (or CSV) built under read locks of the pool, dictionary and reports.
//! Lock order everywhere: pool → dictionary → one report; never the other way round (the merger
//! follows it too, and never holds the dictionary with another lock, so this cannot deadlock).
//! Never blocks on the network while holding a lock: a response is built from copies, or (raw
//! scans) streamed in chunks, each built under a short lock and sent after it is released.
//! Heavy handlers run under a concurrency bound (`http.max_concurrent_queries`, a 503 beyond it);
//! `/healthz` and `/api/v1/status` take no lock at all. With a token configured, `authorize`
//! guards every request but `/healthz`, `/metrics` and the dashboard's files (each a switch), and
//! reads unless `http.token_reads = false`; no token reaches a log line ([`redact`]).

use std::sync::Arc;

use std::sync::atomic::Ordering::Relaxed;

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use subtle::ConstantTimeEq;
use tokio::sync::OwnedSemaphorePermit;

use crate::state::Core;

mod answer;
mod compare;
mod dashboard;
mod fleet;
mod fleet_history;
mod history;
mod instruments;
mod marks;
pub mod openapi;
mod reports;
pub mod request_logs;
pub mod requests;
pub mod server;
mod sinks;
mod status;
mod stream;

/// What every handler gets: the pipeline's core and the services the API serves, handed over by
/// `app` (see [`ApiState`]).
pub type AppState = Arc<ApiState>;

/// The API's view of the daemon: the pipeline's core (pool, reports, dictionary, counters,
/// clock) and the services beside it that only the front ends read or switch.
pub struct ApiState {
    pub core: Arc<Core>,
    /// Report history (`/api/v1/reports/{name}/history`, status).
    pub history: Arc<crate::history::History>,
    /// The tick log (status).
    pub ticklog: Arc<crate::ticklog::TickLog>,
    /// The request logs (`/api/v1/request_logs/{kind}`, status).
    pub request_log: Arc<crate::reqlog::RequestLog>,
    /// The report series of `GET /metrics`.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// The `[[sink]]`s with their run-time switches (`/api/v1/sinks`, status).
    pub sinks: Arc<crate::sink::Sinks>,
    /// Clients of `/api/v1/stream`.
    pub stream: Arc<crate::stream::Subscribers>,
    /// What start-up restored from the snapshot, or why not (status).
    pub restored: Arc<crate::snapshot::Restored>,
    /// The app's shutdown signal (stream clients end on it).
    pub shutdown: crate::shutdown::Shutdown,
    /// Slots for heavy API requests (`http.max_concurrent_queries`): taken by the handlers that
    /// scan or lock ([`blocking`]); none left means a 503, never a queue that grows.
    pub query_slots: Arc<tokio::sync::Semaphore>,
    /// `/metrics`'s own slot: a scrape renders on the blocking pool as a query does, but never
    /// waits for the data endpoints' slots, so Prometheus sees the daemon while they are all
    /// taken (one scrape at a time; a second at once is a 503).
    pub scrape_slot: Arc<tokio::sync::Semaphore>,
    /// The bearer token (`http.token` or the content of `http.token_file`), if any.
    pub token: Option<String>,
}

/// The whole API as a plain function, testable with `oneshot` and without a socket.
///
/// Every route is registered with its OpenAPI description (see [`openapi`]): a module's
/// `routes()` returns a `utoipa_axum` `OpenApiRouter`, each handler annotated with
/// `#[utoipa::path]` and added with `.routes(routes!(handler))`.
pub fn router(state: AppState) -> Router {
    let (routes, doc) = documented_routes().split_for_parts();
    routes
        .layer(axum::Extension(openapi::Document::new(&doc)))
        .fallback(|| async { ApiError::not_found("no such endpoint") })
        .method_not_allowed_fallback(|method: Method| async move {
            ApiError {
                status: StatusCode::METHOD_NOT_ALLOWED,
                error: "method_not_allowed",
                detail: format!("{method} is not allowed on this endpoint (see the Allow header)"),
            }
        })
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            authorize,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            log_client_errors,
        ))
        .with_state(state)
}

/// The address of the client that sent a request, when the server knows it (`api::server` puts
/// it in every request; a router driven without a socket, as in tests, has none).
#[derive(Clone, Copy, Debug)]
pub struct Client(pub Option<std::net::SocketAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;
    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Client, Self::Rejection> {
        Ok(Client(client_of(&parts.extensions)))
    }
}

fn client_of(extensions: &axum::http::Extensions) -> Option<std::net::SocketAddr> {
    extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0)
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(addr) => write!(f, "{addr}"),
            None => f.write_str("unknown"),
        }
    }
}

/// What an [`ApiError`] response carries for [`log_client_errors`]: its kind and detail.
#[derive(Clone, Debug)]
struct ErrorNote {
    error: &'static str,
    detail: String,
}

/// Logs every 4xx answer at debug level (`RUST_LOG=debug`), with the request, the client and the
/// error's detail: a client's mistake is its business, not a warning, but someone debugging a
/// client can see why it was refused. The one place such answers are logged. The URI and the
/// detail are logged through [`redact`]: no token reaches the log.
async fn log_client_errors(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let uri = req.uri().clone();
    let client = Client(client_of(req.extensions()));
    let resp = next.run(req).await;
    let status = resp.status();
    if status.is_client_error() {
        let token = state.token.as_deref();
        let note = resp.extensions().get::<ErrorNote>();
        let uri = match uri.query() {
            Some(q) => format!("{}?{}", uri.path(), redact_query(q, token)),
            None => uri.path().to_string(),
        };
        tracing::debug!(
            %method,
            uri = %redact(&uri, token),
            %client,
            status = status.as_u16(),
            error = note.map_or("", |n| n.error),
            detail = %redact(note.map_or("", |n| n.detail.as_str()), token),
            "Client error"
        );
    }
    resp
}

/// What replaces a secret in a log line.
const REDACTED: &str = "(redacted)";

/// `text` with every occurrence of the API token replaced by [`REDACTED`]: what a log line may
/// hold of a request (a path, an error's detail quoting a value).
pub fn redact(text: &str, token: Option<&str>) -> String {
    match token {
        Some(t) if !t.is_empty() && text.contains(t) => text.replace(t, REDACTED),
        _ => text.to_string(),
    }
}

/// A raw query string as a log line may show it: the value of every parameter whose name says
/// it holds a secret (`token`, `access_token`, `auth`, `password`, `secret`, `api_key`, ...)
/// and of every one holding the API token (decoded) replaced by [`REDACTED`]; the rest as sent.
/// Without such a parameter, `raw` itself.
pub fn redact_query(raw: &str, token: Option<&str>) -> String {
    let secret_name = |name: &str| {
        let n = name.to_ascii_lowercase();
        ["token", "auth", "pass", "secret", "bearer"]
            .iter()
            .any(|s| n.contains(s))
            || n.ends_with("key")
    };
    let holds_token = |value: &str| token.is_some_and(|t| !t.is_empty() && value.contains(t));
    let secret = |k: &str, v: &str| secret_name(k) || holds_token(v) || holds_token(k);
    if !form_urlencoded::parse(raw.as_bytes()).any(|(k, v)| secret(&k, &v)) {
        return raw.to_string();
    }
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(raw.as_bytes()) {
        if secret(&k, &v) {
            let k = if holds_token(&k) { REDACTED.into() } else { k };
            out.append_pair(&k, REDACTED);
        } else {
            out.append_pair(&k, &v);
        }
    }
    out.finish()
}

/// Every route of the API with its description, and the document's fixed part.
pub fn documented_routes() -> utoipa_axum::router::OpenApiRouter<AppState> {
    use utoipa::OpenApi;
    utoipa_axum::router::OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .merge(status::routes())
        .merge(requests::routes())
        .merge(reports::routes())
        .merge(history::routes())
        .merge(compare::routes())
        .merge(request_logs::routes())
        .merge(fleet::routes())
        .merge(fleet_history::routes())
        .merge(instruments::routes())
        .merge(sinks::routes())
        .merge(marks::routes())
        .merge(stream::routes())
        .routes(utoipa_axum::routes!(metrics))
        .routes(utoipa_axum::routes!(openapi::openapi_json))
        // Not the API but served beside it: `/` and `/dashboard/{asset}` (unknown paths, /api
        // ones included, still reach the JSON 404 fallback).
        .merge(dashboard::routes())
}

/// `GET /metrics`: the Prometheus exposition (see the `metrics` module), built on the blocking
/// pool under a query slot: it takes the metrics state's lock and costs O(series).
/// Query parameters are ignored, not refused (see [`refuse_parameters`]): a scrape config may add
/// some (`params:` in Prometheus), and the exposition is the same whatever they are.
#[utoipa::path(
    get,
    path = "/metrics",
    operation_id = "metrics",
    tag = "status",
    responses(
        (status = 200, description = "Prometheus text exposition: pinbad's own counters and gauges (`pinbad_*`), and the monotonic series of reports with `prometheus = true` (`pinba_*`)", content_type = "text/plain; version=0.0.4", body = String),
        (status = 401, response = openapi::Unauthorized),
        (status = 503, response = openapi::Busy),
    )
)]
async fn metrics(State(state): State<AppState>) -> Result<Response, ApiError> {
    let (sources, metrics) = (state.sources(), Arc::clone(&state.metrics));
    let slot = slot_of(&state, &state.scrape_slot);
    let text = blocking_under(slot, move || Ok(crate::metrics::render(sources, &metrics))).await?;
    Ok(([(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], text).into_response())
}

/// With a token set (`http.token` or `http.token_file`), every request needs
/// `Authorization: Bearer TOKEN` ([`needs_token`] says which do not); otherwise 401. The scheme
/// is case-insensitive (`bearer` too, as RFC 9110 says of every scheme). The token is compared in
/// constant time, so its bytes cannot be guessed from response times.
async fn authorize(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(token) = state.token.as_deref() else {
        return next.run(req).await;
    };
    if !needs_token(&state.core.config().http, req.method(), req.uri().path()) {
        return next.run(req).await;
    }
    let given = bearer(req.headers());
    let ok = given.is_some_and(|g| bool::from(g.as_bytes().ct_eq(token.as_bytes())));
    if ok {
        return next.run(req).await;
    }
    state
        .core
        .counters()
        .http_unauthorized
        .fetch_add(1, Relaxed);
    let detail = if given.is_some() {
        "the bearer token is wrong"
    } else {
        "this request needs `Authorization: Bearer TOKEN` (http.token)"
    };
    let mut resp = ApiError {
        status: StatusCode::UNAUTHORIZED,
        error: "unauthorized",
        detail: detail.into(),
    }
    .into_response();
    resp.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer realm=\"pinbad\""),
    );
    resp
}

/// Whether a request needs the token, when one is set: every change does; reads do unless
/// `http.token_reads = false`; `/healthz` (any method), and reads of `/metrics` and of the
/// dashboard's files (`/`, `/dashboard/*`: no data in them) do only when their switch says so
/// (`http.healthz_needs_token`, `http.metrics_needs_token`, `http.dashboard_needs_token`).
fn needs_token(http: &crate::config::HttpConfig, method: &Method, path: &str) -> bool {
    let read = matches!(*method, Method::GET | Method::HEAD);
    match path {
        "/healthz" => http.healthz_needs_token,
        "/metrics" if read => http.metrics_needs_token,
        p if read && crate::dashboard::is_public(p) => http.dashboard_needs_token,
        _ => !read || http.reads_need_token(),
    }
}

/// The credentials of an `Authorization: Bearer TOKEN` header: the scheme in any case, then
/// spaces, then the token (surrounding spaces trimmed). `None` without such a header.
fn bearer(headers: &axum::http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, credentials) = value.trim_start().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credentials.trim())
}

/// The one error type of the API: becomes `{"error": ..., "detail": ...}` with a 4xx/5xx status.
#[derive(Debug, thiserror::Error)]
#[error("{error}: {detail}")]
pub struct ApiError {
    pub status: StatusCode,
    /// Short machine-readable kind, e.g. `bad_parameter`, `not_found`.
    pub error: &'static str,
    /// What was wrong, naming the parameter or value.
    pub detail: String,
}

impl ApiError {
    pub fn bad_request(detail: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            error: "bad_request",
            detail: detail.into(),
        }
    }
    /// A bad query parameter: the detail names it.
    pub fn bad_parameter(name: &str, why: impl std::fmt::Display) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            error: "bad_parameter",
            detail: format!("parameter `{name}`: {why}"),
        }
    }
    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            error: "not_found",
            detail: detail.into(),
        }
    }
    pub fn conflict(detail: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::CONFLICT,
            error: "conflict",
            detail: detail.into(),
        }
    }
    /// `http.max_concurrent_queries` heavy requests are running: try again in a second.
    pub fn busy() -> ApiError {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            error: "busy",
            detail: "too many queries are running (http.max_concurrent_queries); retry shortly"
                .into(),
        }
    }
    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            error: "internal",
            detail: detail.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.error, "detail": self.detail });
        let mut resp = (self.status, axum::Json(body)).into_response();
        resp.extensions_mut().insert(ErrorNote {
            error: self.error,
            detail: self.detail,
        });
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        resp
    }
}

impl ApiState {
    /// The API over `core` with its services as a start without a snapshot builds them (the
    /// API's unit tests; `app::start` builds them itself, to start their threads).
    #[cfg(test)]
    pub(crate) fn of(core: Core) -> AppState {
        let config = core.config();
        Arc::new(ApiState {
            history: Arc::new(crate::history::History::new(config)),
            ticklog: Arc::new(crate::ticklog::TickLog::new(config)),
            request_log: Arc::new(crate::reqlog::RequestLog::new(config)),
            metrics: Arc::new(crate::metrics::Metrics::new(config)),
            sinks: Arc::new(
                crate::sink::Sinks::new(
                    &config.sink,
                    &config.state_dir,
                    crate::durable::OnDamage::SetAside,
                )
                .unwrap(),
            ),
            stream: Default::default(),
            restored: Default::default(),
            shutdown: Default::default(),
            query_slots: Arc::new(tokio::sync::Semaphore::new(
                config.http.max_concurrent_queries,
            )),
            scrape_slot: Arc::new(tokio::sync::Semaphore::new(1)),
            token: config.token().unwrap(),
            core: Arc::new(core),
        })
    }

    /// What the status figures are read from (see `crate::status`).
    pub fn sources(&self) -> crate::status::Sources {
        crate::status::Sources {
            core: Arc::clone(&self.core),
            history: Arc::clone(&self.history),
            ticklog: Arc::clone(&self.ticklog),
            request_log: Arc::clone(&self.request_log),
            sinks: Arc::clone(&self.sinks),
            stream: Arc::clone(&self.stream),
            restored: Arc::clone(&self.restored),
        }
    }
}

/// A slot among the `http.max_concurrent_queries` heavy requests, or a 503 (counted) when all
/// are taken. Held until the response is produced (a streamed scan holds one only while it
/// produces a chunk, not while its client reads).
pub fn query_slot(state: &ApiState) -> Result<OwnedSemaphorePermit, ApiError> {
    slot_of(state, &state.query_slots)
}

/// A permit of `slots`, or a 503 counted in `http_queries_refused`.
fn slot_of(
    state: &ApiState,
    slots: &Arc<tokio::sync::Semaphore>,
) -> Result<OwnedSemaphorePermit, ApiError> {
    std::sync::Arc::clone(slots)
        .try_acquire_owned()
        .map_err(|_| {
            state
                .core
                .counters()
                .http_queries_refused
                .fetch_add(1, Relaxed);
            ApiError::busy()
        })
}

/// Runs blocking work (locks, scans, fills, file I/O) on tokio's blocking pool, holding a query
/// slot, so that a long scan or a lock held by the merger never stalls the two HTTP workers (and
/// `/healthz` with them), and so that no more than `http.max_concurrent_queries` run at once.
/// The slot is taken at the call, before the returned future is first polled.
pub fn blocking<T: Send + 'static>(
    state: &ApiState,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> impl std::future::Future<Output = Result<T, ApiError>> {
    blocking_under(query_slot(state), f)
}

/// [`blocking`] under `slot`, taken by the caller (so an `async fn`: the slot is already taken
/// or refused when it is called, whenever its future is first polled).
async fn blocking_under<T: Send + 'static>(
    slot: Result<OwnedSemaphorePermit, ApiError>,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let slot = slot?;
    tokio::task::spawn_blocking(move || {
        let out = f();
        drop(slot);
        crate::memory::after_query();
        out
    })
    .await
    .map_err(|e| ApiError::internal(format!("worker failed: {e}")))?
}

/// Runs a report query (a read lock and a pass over the report's rows: bounded, ~0.3–3 ms) on
/// the HTTP worker itself, holding a query slot. `block_in_place` first hands the worker's other
/// tasks to another thread, so `/healthz` and the other connections never wait behind it; what it
/// saves over [`blocking`] is two thread hand-offs per query (to the blocking pool and back),
/// each a wake-up that waits for a core when the machine is busy. Runs `f` directly on a
/// single-threaded runtime (tests), where `block_in_place` is not allowed.
pub fn in_place<T>(
    state: &ApiState,
    f: impl FnOnce() -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    let _slot = query_slot(state)?;
    match tokio::runtime::Handle::current().runtime_flavor() {
        tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// Most parameters one query string may hold: more than any query needs (a report query with a
/// handful of filters and matches), and a bound on what one request makes the server do before
/// it answers (each `match` compiles a regex, each history `filter` is a clause of its SQL).
pub const MAX_QUERY_PARAMS: usize = 64;

/// The `name=value` pairs of a raw query string, percent-decoded, in order (keys may repeat); a
/// 400 beyond [`MAX_QUERY_PARAMS`].
pub fn query_pairs(raw: Option<&str>) -> Result<Vec<(String, String)>, ApiError> {
    let mut pairs = Vec::new();
    for (k, v) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if pairs.len() == MAX_QUERY_PARAMS {
            return Err(ApiError::bad_request(format!(
                "more than {MAX_QUERY_PARAMS} query parameters"
            )));
        }
        pairs.push((k.into_owned(), v.into_owned()));
    }
    Ok(pairs)
}

/// A request body that must be a JSON object, as its fields (`example` shows one in the 400):
/// "not valid JSON", or "must be a JSON object such as ...". Checked before the body is read as
/// its type, because serde reads a struct from a sequence too (`[true, 0.5]` was taken as a sink
/// change) and names the Rust type when refusing one (`[]`: "expected struct SinkState with 2
/// elements"). The reports', sinks' and instruments' bodies all go through here.
pub fn json_object(
    bytes: &[u8],
    example: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, ApiError> {
    match serde_json::from_slice(bytes) {
        Ok(serde_json::Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(ApiError::bad_request(format!(
            "the body must be a JSON object such as {example}"
        ))),
        Err(e) => Err(ApiError::bad_request(format!(
            "the body is not valid JSON: {e}"
        ))),
    }
}

/// A 400 naming the first parameter of a request to an endpoint of the JSON API that takes none
/// (`/api/v1/info?format=csv` answered JSON, silently ignoring it, so a client never learnt that
/// what it asked for was not done); `hint` is added to the detail (say, where such parameters
/// are taken). Not used by `/metrics`, `/healthz` and the dashboard's files: Prometheus scrape
/// configs, load balancers' probes and browsers add parameters of their own (`?format=`,
/// cache busters), and those endpoints answer the same whatever they are.
pub fn refuse_parameters(raw: Option<&str>, hint: &str) -> Result<(), ApiError> {
    match query_pairs(raw)?.first() {
        Some((name, _)) => Err(ApiError::bad_parameter(
            name,
            format!("this endpoint takes no parameters{hint}"),
        )),
        None => Ok(()),
    }
}

/// A 400 naming the first parameter of `pairs` given more than once, unless it is one of the
/// `repeatable` ones: a repeat would be either last-wins or ANDed (matching nothing for a field),
/// both surprising. Quadratic, over at most [`MAX_QUERY_PARAMS`].
pub fn refuse_repeats(pairs: &[(String, String)], repeatable: &[&str]) -> Result<(), ApiError> {
    for (i, (k, _)) in pairs.iter().enumerate() {
        if !repeatable.contains(&k.as_str()) && pairs[..i].iter().any(|(p, _)| p == k) {
            let but = match repeatable {
                [] => String::new(),
                r => format!(", but `{}`", r.join("`, `")),
            };
            return Err(ApiError::bad_parameter(
                k,
                format!("given more than once (each parameter takes one value{but})"),
            ));
        }
    }
    Ok(())
}

/// A request's body, at most `limits.max_body_bytes`: a 413 above it, a 400 when the body could
/// not be read (the client broke it off), each saying so; a 408 when it has not all come within
/// `http.header_timeout` of the handler asking for it. The connection's idle timeout is reset by
/// every byte, so without this deadline a client sending a byte now and then held a connection
/// (of `http.max_connections`) as long as it liked.
pub async fn read_body(
    body: axum::body::Body,
    config: &crate::config::Config,
) -> Result<axum::body::Bytes, ApiError> {
    let (limit, deadline) = (config.limits.max_body_bytes, config.http.header_timeout.0);
    let read = tokio::time::timeout(deadline, axum::body::to_bytes(body, limit));
    let Ok(read) = read.await else {
        return Err(ApiError {
            status: StatusCode::REQUEST_TIMEOUT,
            error: "body_timeout",
            detail: format!("the body did not all come within {deadline:?} (http.header_timeout)"),
        });
    };
    read.map_err(|e| {
        let e = e.into_inner();
        if e.downcast_ref::<http_body_util::LengthLimitError>()
            .is_some()
        {
            ApiError {
                status: StatusCode::PAYLOAD_TOO_LARGE,
                error: "payload_too_large",
                detail: format!("the body is above {limit} bytes (limits.max_body_bytes)"),
            }
        } else {
            ApiError::bad_request(format!("the body could not be read: {e}"))
        }
    })
}

/// A path parameter (axum's `Path`), or a JSON error naming what is wrong with it: axum's own
/// rejection is plain text (e.g. for a name whose bytes are not UTF-8).
pub struct PathParam<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned + Send> axum::extract::FromRequestParts<S>
    for PathParam<T>
{
    type Rejection = ApiError;
    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<PathParam<T>, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(PathParam(v)),
            Err(e) => Err(ApiError {
                status: e.status(),
                error: "bad_path",
                detail: e.body_text(),
            }),
        }
    }
}

/// Parses a query parameter value, or a 400 naming the parameter.
pub fn parse_param<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, ApiError>
where
    T::Err: std::fmt::Display,
{
    value
        .parse()
        .map_err(|e| ApiError::bad_parameter(name, format!("`{value}` is invalid ({e})")))
}

/// An f32 as the shortest decimal that reads back as the same f32 (`0.1`, not `0.10000000149`).
pub fn f32_json(x: f32) -> serde_json::Value {
    let v: f64 = x.to_string().parse().unwrap_or(x as f64);
    serde_json::Number::from_f64(v)
        .map(serde_json::Value::Number)
        .unwrap_or(serde_json::Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_pairs_decode_and_keep_repeats() {
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let parsed = |raw| query_pairs(raw).expect("within the bound");
        assert_eq!(
            parsed(Some(
                "filter=script_name%3A%2Fx.php&filter=country:nl&match=script_name:%5E/api+v2"
            )),
            pairs(&[
                ("filter", "script_name:/x.php"),
                ("filter", "country:nl"),
                ("match", "script_name:^/api v2")
            ])
        );
        assert_eq!(parsed(None), vec![]);
        assert_eq!(
            parsed(Some("a&&b=&c=1=2")),
            pairs(&[("a", ""), ("b", ""), ("c", "1=2")])
        );
        assert_eq!(parsed(Some("x=%C3%A9%41")), pairs(&[("x", "éA")]));
    }

    #[test]
    fn repeats_are_refused_but_for_the_repeatable() {
        let pairs = |raw| query_pairs(Some(raw)).unwrap();
        assert!(refuse_repeats(&pairs("filter=a:1&filter=b:2&limit=3"), &["filter"]).is_ok());
        let e = refuse_repeats(&pairs("filter=a:1&limit=3&limit=4"), &["filter"]).unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert!(
            e.detail.contains("`limit`") && e.detail.contains("but `filter`"),
            "{e}"
        );
        let e = refuse_repeats(&pairs("filter=a:1&filter=b:2"), &[]).unwrap_err();
        assert!(e.detail.contains("`filter`"), "{e}");
    }

    #[test]
    fn query_pairs_beyond_the_bound_are_a_400() {
        let raw = |n: usize| vec!["match=a:b"; n].join("&");
        assert_eq!(
            query_pairs(Some(&raw(MAX_QUERY_PARAMS)))
                .map(|p| p.len())
                .ok(),
            Some(MAX_QUERY_PARAMS)
        );
        let e = query_pairs(Some(&raw(MAX_QUERY_PARAMS + 1))).unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert!(e.detail.contains("more than 64 query parameters"), "{e}");
    }

    #[test]
    fn parameters_of_an_endpoint_that_takes_none_are_refused_naming_the_first() {
        assert!(refuse_parameters(None, "").is_ok());
        assert!(refuse_parameters(Some(""), "").is_ok());
        let e = refuse_parameters(Some("pretty=1&x=2"), " (see X)").unwrap_err();
        assert_eq!(
            (e.status, e.error),
            (StatusCode::BAD_REQUEST, "bad_parameter")
        );
        assert_eq!(
            e.detail,
            "parameter `pretty`: this endpoint takes no parameters (see X)"
        );
        // A bare name is a parameter too (`?debug`).
        assert!(refuse_parameters(Some("debug"), "").is_err());
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        let with = |v: &str| {
            let mut h = axum::http::HeaderMap::new();
            h.insert(header::AUTHORIZATION, v.parse().unwrap());
            bearer(&h).map(str::to_string)
        };
        for v in ["Bearer s3", "bearer s3", "BEARER  s3 ", " bEaReR s3"] {
            assert_eq!(with(v).as_deref(), Some("s3"), "{v:?}");
        }
        assert_eq!(with("Basic czM="), None);
        assert_eq!(with("Bearers3"), None);
        assert_eq!(bearer(&axum::http::HeaderMap::new()), None);
    }

    /// With a token, reads need it by default; `/healthz`, `/metrics` and the dashboard's files
    /// stay open, each unless its switch asks for it; changes always need it.
    #[test]
    fn which_requests_need_the_token() {
        let mut http = crate::config::HttpConfig {
            token: "t".into(),
            ..Default::default()
        };
        let needs = |h: &crate::config::HttpConfig, m: Method, p: &str| needs_token(h, &m, p);
        assert!(needs(&http, Method::GET, "/api/v1/requests"));
        assert!(needs(&http, Method::GET, "/api/v1/status"));
        assert!(needs(&http, Method::POST, "/api/v1/reports"));
        for open in ["/healthz", "/metrics", "/", "/dashboard/app.js"] {
            assert!(!needs(&http, Method::GET, open), "{open}");
        }
        assert!(needs(&http, Method::POST, "/"), "a change on an open path");
        http.token_reads = Some(false);
        assert!(!needs(&http, Method::GET, "/api/v1/requests"));
        assert!(needs(&http, Method::DELETE, "/api/v1/reports/x"));
        http.healthz_needs_token = true;
        http.metrics_needs_token = true;
        http.dashboard_needs_token = true;
        for closed in ["/healthz", "/metrics", "/", "/dashboard/app.js"] {
            assert!(needs(&http, Method::GET, closed), "{closed}");
        }
    }

    /// Issue 83: `/metrics` answers while every query slot is taken (the data endpoints' 503).
    #[tokio::test]
    async fn metrics_answer_while_every_query_slot_is_taken() {
        use tower::ServiceExt;
        let dir = tempfile::tempdir().unwrap();
        let config = crate::config::Config {
            state_dir: dir.path().to_path_buf(),
            request_pool_size: 1000,
            timer_pool_size: 1000,
            tag_pool_size: 1000,
            ..crate::config::Config::default()
        };
        let core =
            crate::state::Core::new(config, Arc::new(crate::ring::Ring::new(1 << 20)), vec![], 0)
                .unwrap();
        let state = ApiState::of(core);
        let all = state.query_slots.available_permits() as u32;
        let _taken = Arc::clone(&state.query_slots)
            .try_acquire_many_owned(all)
            .unwrap();
        let router = router(Arc::clone(&state));
        let get = |uri: &str| {
            axum::http::Request::builder()
                .uri(uri)
                .body(axum::body::Body::empty())
                .unwrap()
        };
        let busy = router
            .clone()
            .oneshot(get("/api/v1/requests"))
            .await
            .unwrap();
        assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
        let scrape = router.clone().oneshot(get("/metrics")).await.unwrap();
        assert_eq!(scrape.status(), StatusCode::OK);
        // The scrape's slot came back.
        assert_eq!(state.scrape_slot.available_permits(), 1);
    }

    #[test]
    fn log_lines_hold_no_token() {
        let t = Some("s3cret-Tok");
        assert_eq!(
            redact_query("token=s3cret-Tok&limit=5", t),
            "token=%28redacted%29&limit=5"
        );
        // A secret's name hides its value whatever it is; the token is hidden wherever it is.
        let q = redact_query(
            "access_token=abc&API_KEY=k&password=p&filter=host:s3cret-Tok",
            t,
        );
        assert!(
            !q.contains("abc") && !q.contains("=k") && !q.contains("=p"),
            "{q}"
        );
        assert!(!q.contains("s3cret"), "{q}");
        assert!(q.contains("filter="), "{q}");
        assert_eq!(
            redact_query("s3cret-Tok=1&sort=-req_count", t),
            "%28redacted%29=%28redacted%29&sort=-req_count"
        );
        assert_eq!(
            redact("/api/v1/reports/s3cret-Tok", t),
            "/api/v1/reports/(redacted)"
        );
        assert_eq!(
            redact("`s3cret-Tok` is invalid", None),
            "`s3cret-Tok` is invalid"
        );
        // Nothing secret: the query as sent.
        assert_eq!(redact_query("filter=a+b:%2Fx", t), "filter=a+b:%2Fx");
    }

    #[test]
    fn f32_json_is_the_shortest_round_trip() {
        assert_eq!(f32_json(0.1).to_string(), "0.1");
        assert_eq!(f32_json(f32::NAN), serde_json::Value::Null);
    }
}
