//! `GET /api/v1/requests`: the raw pool, newest first, filtered, with tags and (optionally) timers.
//!
//! Filters on strings are resolved to dictionary ids once, so the scan compares integers; a string
//! the dictionary does not hold matches nothing, and the scan is skipped.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{f32_json, parse_param, query_pairs, query_slot, ApiError, AppState};
use crate::dictionary::Dictionary;
use crate::record::{RequestView, TagPair, NO_SCHEMA};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(requests))
}

/// A field of the record compared for equality.
#[derive(Clone, Copy)]
enum Field {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
}

/// The parsed query. String values stay strings until the dictionary is locked.
#[derive(Default)]
struct RawFilter {
    limit: Option<usize>,
    fields: Vec<(Field, String)>,
    status: Option<u32>,
    min_time: Option<f32>,
    max_time: Option<f32>,
    tags: Vec<(String, String)>,
    timer_tags: Vec<(String, String)>,
    timers: bool,
}

fn parse(raw: Option<&str>, max_limit: usize) -> Result<RawFilter, ApiError> {
    let mut f = RawFilter::default();
    let mut seen: Vec<String> = Vec::new();
    for (k, v) in query_pairs(raw) {
        // Every parameter has one value: a repeat would be either last-wins or ANDed (matching
        // nothing for a field), both surprising, so it is refused.
        if seen.contains(&k) {
            return Err(ApiError::bad_parameter(
                &k,
                "given more than once (each parameter takes one value)",
            ));
        }
        seen.push(k.clone());
        match k.as_str() {
            "limit" => {
                let n: usize = parse_param("limit", &v)?;
                if n > max_limit {
                    return Err(ApiError::bad_parameter(
                        "limit",
                        format!("{n} is above the maximum {max_limit}"),
                    ));
                }
                f.limit = Some(n);
            }
            "hostname" => f.fields.push((Field::Hostname, v)),
            "server_name" => f.fields.push((Field::ServerName, v)),
            "script_name" => f.fields.push((Field::ScriptName, v)),
            "schema" => f.fields.push((Field::Schema, v)),
            "status" => f.status = Some(parse_param("status", &v)?),
            "min_time" => f.min_time = Some(parse_seconds("min_time", &v)?),
            "max_time" => f.max_time = Some(parse_seconds("max_time", &v)?),
            "timers" => f.timers = parse_param("timers", &v)?,
            _ => {
                if let Some(name) = k.strip_prefix("tag.").filter(|n| !n.is_empty()) {
                    f.tags.push((name.to_string(), v));
                } else if let Some(name) = k.strip_prefix("timer_tag.").filter(|n| !n.is_empty()) {
                    f.timer_tags.push((name.to_string(), v));
                } else {
                    return Err(ApiError::bad_parameter(
                        &k,
                        "unknown parameter (expected limit, hostname, server_name, script_name, schema, status, \
                         min_time, max_time, tag.NAME, timer_tag.NAME, timers)",
                    ));
                }
            }
        }
    }
    Ok(f)
}

fn parse_seconds(name: &str, v: &str) -> Result<f32, ApiError> {
    let x: f32 = parse_param(name, v)?;
    if !x.is_finite() || x < 0.0 {
        return Err(ApiError::bad_parameter(
            name,
            format!("`{v}` must be a number of seconds ≥ 0"),
        ));
    }
    Ok(x)
}

/// The filter with strings resolved to ids; `None` when some string is unknown (nothing matches).
struct Filter {
    fields: Vec<(Field, u32)>,
    status: Option<u32>,
    min_time: Option<f32>,
    max_time: Option<f32>,
    tags: Vec<TagPair>,
    timer_tags: Vec<TagPair>,
}

fn resolve(f: &RawFilter, dict: &Dictionary) -> Option<Filter> {
    let id = |s: &str| dict.lookup(s.as_bytes());
    let pair = |(n, v): &(String, String)| {
        Some(TagPair {
            name: id(n)?,
            value: id(v)?,
        })
    };
    Some(Filter {
        fields: f
            .fields
            .iter()
            .map(|(field, v)| Some((*field, id(v)?)))
            .collect::<Option<_>>()?,
        status: f.status,
        min_time: f.min_time,
        max_time: f.max_time,
        tags: f.tags.iter().map(pair).collect::<Option<_>>()?,
        timer_tags: f.timer_tags.iter().map(pair).collect::<Option<_>>()?,
    })
}

impl Filter {
    fn matches(&self, v: &RequestView<'_>) -> bool {
        let r = v.record;
        self.fields.iter().all(|&(field, id)| {
            id == match field {
                Field::Hostname => r.hostname,
                Field::ServerName => r.server_name,
                Field::ScriptName => r.script_name,
                Field::Schema => r.schema,
            }
        }) && self.status.is_none_or(|s| s == r.status)
            && self.min_time.is_none_or(|t| r.request_time >= t)
            && self.max_time.is_none_or(|t| r.request_time <= t)
            && self.tags.iter().all(|want| v.tags().contains(want))
            && self
                .timer_tags
                .iter()
                .all(|want| v.timers_with_tags().any(|(_, tags)| tags.contains(want)))
    }
}

/// Tags as a JSON object; with duplicate names the first wins (as in the reports).
fn tags_json(tags: &[TagPair], dict: &Dictionary) -> Value {
    let mut m = Map::new();
    for t in tags {
        m.entry(dict.text(t.name).into_owned())
            .or_insert_with(|| Value::String(dict.text(t.value).into_owned()));
    }
    Value::Object(m)
}

fn request_json(v: &RequestView<'_>, dict: &Dictionary, state: &AppState, timers: bool) -> Value {
    let r = v.record;
    let mut out = json!({
        "id": v.id,
        "timestamp": state.clock.unix_ms(r.time_ms) as f64 / 1000.0,
        "hostname": dict.text(r.hostname),
        "server_name": dict.text(r.server_name),
        "script_name": dict.text(r.script_name),
        "request_count": r.request_count,
        "document_size": r.document_size,
        "memory_peak": r.memory_peak,
        "memory_footprint": r.memory_footprint,
        "request_time": f32_json(r.request_time),
        "ru_utime": f32_json(r.ru_utime),
        "ru_stime": f32_json(r.ru_stime),
        "status": r.status,
        "schema": if r.schema == NO_SCHEMA { Value::Null } else { Value::String(dict.text(r.schema).into_owned()) },
        "tags": tags_json(v.tags(), dict),
        "timer_count": v.timers.len(),
    });
    if timers {
        let list: Vec<Value> = v
            .timers_with_tags()
            .map(|(t, tags)| {
                json!({
                    "value": f32_json(t.value),
                    "hit_count": t.hit_count,
                    "ru_utime": f32_json(t.ru_utime),
                    "ru_stime": f32_json(t.ru_stime),
                    "tags": tags_json(tags, dict),
                })
            })
            .collect();
        out["timers"] = Value::Array(list);
    }
    out
}

/// Most work one chunk of a scan does under the pool's read lock: the merger waits at most this
/// long for its write lock because of a query (a round's own work is bounded likewise).
const CHUNK_TIME: Duration = Duration::from_millis(2);
/// Most bytes of JSON one chunk produces; with [`CHUNK_QUEUE`] it bounds what a scan holds.
const CHUNK_BYTES: usize = 256 << 10;
/// Chunks produced and not yet sent (a client that reads slowly slows the scan, never grows it).
const CHUNK_QUEUE: usize = 4;

/// `{"requests": [...]}`, newest first, streamed: the scan runs on the blocking pool in chunks,
/// each under a short read lock of the pool and dictionary, rendered straight to JSON bytes and
/// handed to the response through a bounded channel. So a 100,000-request answer never exists as
/// a whole in memory, and the merger is never held up by it for more than [`CHUNK_TIME`].
#[utoipa::path(
    get,
    path = "/api/v1/requests",
    tag = "raw",
    params(
        ("limit" = Option<usize>, Query, description = "Requests to answer, newest first (default 100, at most limits.max_query_limit)"),
        ("hostname" = Option<String>, Query, description = "Exact hostname"),
        ("server_name" = Option<String>, Query, description = "Exact server name"),
        ("script_name" = Option<String>, Query, description = "Exact script name"),
        ("schema" = Option<String>, Query, description = "Exact schema"),
        ("status" = Option<u32>, Query, description = "Exact status"),
        ("min_time" = Option<f64>, Query, description = "request_time at least this many seconds"),
        ("max_time" = Option<f64>, Query, description = "request_time at most this many seconds"),
        ("tag.NAME" = Option<String>, Query, description = "Request tag NAME has this value, for any NAME (`tag.country=nl`); one per tag"),
        ("timer_tag.NAME" = Option<String>, Query, description = "The request has a timer whose tag NAME has this value (`timer_tag.group=db`)"),
        ("timers" = Option<bool>, Query, description = "Include each request's timers (default false)"),
    ),
    responses(
        (status = 200, description = "Raw requests, newest first (streamed)", body = super::openapi::RequestList),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 503, response = super::openapi::Busy),
    )
)]
async fn requests(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let raw = parse(raw.as_deref(), state.config.limits.max_query_limit)?;
    let slot = query_slot(&state)?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(CHUNK_QUEUE);
    tokio::task::spawn_blocking(move || {
        scan(&state, &raw, |chunk| tx.blocking_send(chunk).is_ok());
        drop(slot);
    });
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|chunk| (Ok::<_, std::convert::Infallible>(chunk), rx))
    });
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        Body::from_stream(body),
    )
        .into_response())
}

/// Runs the scan, handing each chunk of JSON to `send` (which says whether the client is still
/// there). Walks ids from the newest down; ids evicted between chunks are simply gone, ids added
/// meanwhile are newer than the scan and not shown.
fn scan(state: &AppState, raw: &RawFilter, mut send: impl FnMut(Vec<u8>) -> bool) {
    let limit = raw.limit.unwrap_or(100);
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(b"{\"requests\":[");
    let mut shown = 0usize;
    let mut cursor = state.pool.read().next_id();
    while shown < limit {
        let started = Instant::now();
        let pool = state.pool.read();
        let dict = state.dictionary.read();
        // Strings are resolved again for every chunk: an id is only stable while a pooled request
        // holds it, and one that is gone cannot match a request still in the pool.
        let Some(filter) = resolve(raw, &dict) else {
            break;
        };
        let oldest = pool.oldest_id();
        let mut scanned = 0u32;
        while cursor > oldest && shown < limit && out.len() < CHUNK_BYTES {
            cursor -= 1;
            scanned += 1;
            if let Some(v) = pool.get(cursor) {
                if filter.matches(&v) {
                    if shown > 0 {
                        out.push(b',');
                    }
                    let _ = serde_json::to_writer(
                        &mut out,
                        &request_json(&v, &dict, state, raw.timers),
                    );
                    shown += 1;
                }
            }
            if scanned.is_multiple_of(256) && started.elapsed() >= CHUNK_TIME {
                break;
            }
        }
        drop(dict);
        drop(pool);
        if cursor <= oldest {
            break;
        }
        if out.len() >= CHUNK_BYTES
            && !send(std::mem::replace(&mut out, Vec::with_capacity(CHUNK_BYTES)))
        {
            return;
        }
    }
    out.extend_from_slice(b"]}");
    send(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_bad_parameters_are_named() {
        let e = parse(Some("limit=abc"), 10).err().unwrap();
        assert!(e.detail.contains("limit"), "{}", e.detail);
        let e = parse(Some("limit=11"), 10).err().unwrap();
        assert!(e.detail.contains("maximum"), "{}", e.detail);
        let e = parse(Some("colour=red"), 10).err().unwrap();
        assert!(e.detail.contains("colour"), "{}", e.detail);
        let e = parse(Some("min_time=-1"), 10).err().unwrap();
        assert!(e.detail.contains("min_time"), "{}", e.detail);
        let e = parse(Some("tag.=x"), 10).err().unwrap();
        assert!(e.detail.contains("tag."), "{}", e.detail);
        let f = parse(
            Some("tag.country=nl&tag.lang=en&timers=true&script_name=%2Fa.php"),
            10,
        )
        .ok()
        .unwrap();
        assert_eq!(f.tags.len(), 2);
        assert!(f.timers);
        assert_eq!(f.fields[0].1, "/a.php");
    }

    #[test]
    fn unknown_strings_match_nothing() {
        let mut dict = Dictionary::new(10);
        dict.intern(b"nl");
        dict.intern(b"country");
        let f = parse(Some("tag.country=nl"), 10).ok().unwrap();
        assert!(resolve(&f, &dict).is_some());
        let f = parse(Some("tag.country=de"), 10).ok().unwrap();
        assert!(resolve(&f, &dict).is_none());
    }
}
