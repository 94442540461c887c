//! `GET /api/v1/status` (self-instrumentation) and `GET /healthz` (liveness).

use std::sync::atomic::Ordering::Relaxed;

use axum::extract::{RawQuery, State};
use axum::Json;
use serde_json::{json, Map, Value};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ApiError, AppState};
use crate::counters::Reject;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(status))
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

/// Every counter of ARCHITECTURE.md, cumulative since start unless named `current_`.
#[utoipa::path(
    get,
    path = "/api/v1/status",
    tag = "status",
    responses(
        (status = 200, description = "Self-instrumentation: packets, accepted and rejected requests by reason, pool, dictionary, kernel drops, merge times, per-report rows (see README \"Status counters\"); takes no lock", body = Object),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
    )
)]
async fn status(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    super::refuse_parameters(raw.as_deref(), "")?;
    let c = &state.counters;
    let mut by_reason = Map::new();
    for r in Reject::ALL {
        by_reason.insert(r.name().into(), json!(c.rejected(r)));
    }
    // Lock-free: every figure below is an atomic (see counters::Gauges); nothing here waits on
    // the pool, the dictionary or a report.
    let g = &c.gauges;
    let load = |a: &std::sync::atomic::AtomicU64| a.load(Relaxed);
    let oldest = load(&g.pool_oldest_ms);
    let pool_covers_seconds = if oldest == u64::MAX {
        0.0
    } else {
        state.clock.now_ms().wrapping_sub(oldest as u32) as f64 / 1000.0
    };
    let pool = json!({
        "pool_capacity": load(&g.pool_capacity),
        "current_pool_used": load(&g.pool_used),
        "timer_pool_capacity": load(&g.timer_pool_capacity),
        "current_timer_pool_used": load(&g.timer_pool_used),
        "tag_pool_capacity": load(&g.tag_pool_capacity),
        "current_tag_pool_used": load(&g.tag_pool_used),
        "pool_memory_bytes": load(&g.pool_memory_bytes),
        "pool_covers_seconds": pool_covers_seconds,
    });
    let ring_batches = state.ring.len();
    let (dictionary_size, dictionary_bytes, dictionary_lost) = (
        load(&g.dictionary_size),
        load(&g.dictionary_bytes),
        load(&g.dictionary_lost),
    );
    let reports: Vec<Value> = state
        .reports
        .snapshot()
        .iter()
        .map(|cell| {
            json!({
                "name": cell.name(),
                "rows": cell.published_rows(),
                "rows_lost": cell.published_rows_lost(),
                "update_ns_per_request": cell.update_ns_per_request(),
                "thread": cell.worker(),
            })
        })
        .collect();
    let ports: Vec<u16> = state.udp_addrs.iter().map(|a| a.port()).collect();
    let mut out = json!({
        "uptime_seconds": state.clock.uptime().as_secs_f64(),
        "packets_received": c.packets_received.load(Relaxed),
        "bytes_received": c.bytes_received.load(Relaxed),
        "packets_decoded": c.packets_decoded.load(Relaxed),
        "requests_accepted": c.requests_accepted.load(Relaxed),
        "requests_rejected": c.rejected_total(),
        "rejected_by_reason": by_reason,
        "timers_skipped": c.timers_skipped.load(Relaxed),
        "timers_dropped": c.timers_dropped.load(Relaxed),
        "timer_tags_dropped": c.timer_tags_dropped.load(Relaxed),
        "request_tags_dropped": c.request_tags_dropped.load(Relaxed),
        "strings_truncated": c.strings_truncated.load(Relaxed),
        "nested_ignored": c.nested_ignored.load(Relaxed),
        "v1_decoded": c.v1_decoded.load(Relaxed),
        "v1_fallback": c.v1_fallback.load(Relaxed),
        "requests_merged": c.requests_merged.load(Relaxed),
        "temp_pool_dropped": c.temp_pool_dropped.load(Relaxed),
        "http": {
            "connections_refused": c.http_connections_refused.load(Relaxed),
            "queries_refused": c.http_queries_refused.load(Relaxed),
            "unauthorized": c.http_unauthorized.load(Relaxed),
        },
        "current_temp_pool_batches": ring_batches,
        "current_temp_pool_bytes": state.ring.bytes(),
        "temp_pool_memory": state.ring.max_bytes(),
        "pool_overwritten": c.pool_overwritten.load(Relaxed),
        "pool_expired": c.pool_expired.load(Relaxed),
        "timers_lost": c.timers_lost.load(Relaxed),
        "dictionary_size": dictionary_size,
        "dictionary_bytes": dictionary_bytes,
        "dictionary_lost": dictionary_lost,
        "kernel_drops": crate::receiver::kernel_drops(&ports),
        "reports": reports,
        "metrics": {
            "series": c.metric_series.load(Relaxed),
            "series_lost": c.metric_series_lost.load(Relaxed),
            "rounds_dropped": c.metric_rounds_dropped.load(Relaxed),
            "requests_dropped": c.metric_requests_dropped.load(Relaxed),
        },
        "merge": {
            "last_ms": c.merge_last_us.load(Relaxed) as f64 / 1000.0,
            "max_ms": c.merge_max_us.load(Relaxed) as f64 / 1000.0,
        },
        "receive_buffer_bytes": state.receive_buffer_bytes,
        "udp_listen": state.udp_addrs.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
        "stream": state.stream.status(state.config.limits.max_stream_clients),
        "sinks": state.sinks.status(),
        "history": state.history.status(),
        "snapshot": state.snapshot,
    });
    if let (Some(o), Value::Object(p)) = (out.as_object_mut(), pool) {
        o.extend(p);
    }
    Ok(Json(out))
}
