//! `GET /api/v1/requests`: the raw pool, newest first, filtered, with tags and (optionally) timers.
//!
//! Filters on strings are resolved to dictionary ids once, so the scan compares integers; a string
//! the dictionary does not hold matches nothing, and the scan is skipped.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use tokio::sync::OwnedSemaphorePermit;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{parse_param, query_pairs, query_slot, ApiError, AppState};
use crate::ndjson::{write_request, Field, RequestFilter};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(requests))
}

/// The parameters [`RequestFilter::parse`] knows, for the error naming an unknown one.
const FILTER_PARAMS: &str = "hostname, server_name, script_name, schema, status, min_time, \
                             max_time, tag.NAME, timer_tag.NAME, timers";

impl RequestFilter {
    /// Parses a query string. `max_limit`: whether `limit` is allowed, and its maximum. `extra`
    /// takes the parameters the filter does not know (returning whether it knew them), and
    /// `extra_names` lists them for the error naming an unknown parameter.
    pub fn parse(
        raw: Option<&str>,
        max_limit: Option<usize>,
        extra: &mut dyn FnMut(&str, &str) -> Result<bool, ApiError>,
        extra_names: &str,
    ) -> Result<RequestFilter, ApiError> {
        let mut f = RequestFilter::default();
        let pairs = query_pairs(raw)?;
        super::refuse_repeats(&pairs, &[])?;
        for (k, v) in pairs {
            match k.as_str() {
                "limit" if max_limit.is_some() => {
                    let max_limit = max_limit.unwrap_or(0);
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
                    } else if let Some(name) =
                        k.strip_prefix("timer_tag.").filter(|n| !n.is_empty())
                    {
                        f.timer_tags.push((name.to_string(), v));
                    } else if !extra(&k, &v)? {
                        let limit = if max_limit.is_some() { "limit, " } else { "" };
                        return Err(ApiError::bad_parameter(
                            &k,
                            format!(
                                "unknown parameter (expected {limit}{FILTER_PARAMS}{extra_names})"
                            ),
                        ));
                    }
                }
            }
        }
        Ok(f)
    }
}

fn parse(raw: Option<&str>, max_limit: usize) -> Result<RequestFilter, ApiError> {
    RequestFilter::parse(raw, Some(max_limit), &mut |_, _| Ok(false), "")
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
///
/// A query slot is held only while a chunk is produced, and taken again for the next one only
/// once the channel has room for it: a client that reads slowly (or not at all, until
/// `http.idle_timeout` closes it) holds its connection and at most [`CHUNK_QUEUE`] chunks, never
/// a slot, so it cannot make report queries and scrapes answer 503 (it held one for as long as
/// it kept reading a byte now and then).
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
    let raw = parse(raw.as_deref(), state.core.config().limits.max_query_limit)?;
    // The first chunk's slot, taken now: when none is free the answer is a 503, not a stream.
    let slot = query_slot(&state)?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(CHUNK_QUEUE);
    tokio::spawn(stream_scan(state, Scan::new(raw), slot, tx));
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

/// Produces `scan`'s chunks into `tx`, each on the blocking pool under a query slot (`first` for
/// the first one), until the answer is complete or the client is gone.
async fn stream_scan(
    state: AppState,
    mut scan: Scan,
    first: OwnedSemaphorePermit,
    tx: tokio::sync::mpsc::Sender<Vec<u8>>,
) {
    let mut first = Some(first);
    loop {
        // Room for the chunk first, then a slot: no slot waits on the client.
        let Ok(room) = tx.reserve().await else { return };
        let slot = match first.take() {
            Some(slot) => slot,
            None => match Arc::clone(&state.query_slots).acquire_owned().await {
                Ok(slot) => slot,
                Err(_) => return,
            },
        };
        let st = Arc::clone(&state);
        let produced = tokio::task::spawn_blocking(move || {
            let chunk = scan.next_chunk(&st);
            drop(slot);
            (scan, chunk)
        })
        .await;
        let Ok((next, chunk)) = produced else { return };
        room.send(chunk);
        if next.done {
            return;
        }
        scan = next;
    }
}

/// A scan of the pool, newest first, producing the answer chunk by chunk. Walks ids from the
/// newest down; ids evicted between chunks are simply gone, ids added meanwhile are newer than
/// the scan and not shown.
struct Scan {
    filter: RequestFilter,
    /// The id below which the walk goes on (`None` before the first chunk).
    cursor: Option<u64>,
    shown: usize,
    /// Whether the last chunk (the one closing the JSON) has been produced.
    done: bool,
}

impl Scan {
    fn new(filter: RequestFilter) -> Scan {
        Scan {
            filter,
            cursor: None,
            shown: 0,
            done: false,
        }
    }

    /// The answer's next chunk: at least [`CHUNK_BYTES`] of JSON, unless it is the last one
    /// (then `done` is set). Holds the pool's and the dictionary's read locks for at most
    /// [`CHUNK_TIME`] at a time.
    fn next_chunk(&mut self, state: &AppState) -> Vec<u8> {
        // The default, 100, never above the configured maximum (an explicit `limit` is checked
        // against it when parsed).
        let limit = self.filter.limit.unwrap_or(
            crate::report::DEFAULT_QUERY_LIMIT.min(state.core.config().limits.max_query_limit),
        );
        // A small answer (the default 100 requests) takes a few KB: sized for that first.
        let first = self.cursor.is_none();
        let mut out = Vec::with_capacity(if first { 4096 } else { CHUNK_BYTES + 4096 });
        let mut cursor = match self.cursor {
            Some(c) => c,
            None => {
                out.extend_from_slice(b"{\"requests\":[");
                state.core.pool().read().next_id()
            }
        };
        while self.shown < limit {
            let started = Instant::now();
            let pool = state.core.pool().read();
            let dict = state.core.dictionary().read();
            // Strings are resolved again for every chunk: an id is only stable while a pooled
            // request holds it, and one that is gone cannot match a request still in the pool.
            let Some(filter) = self.filter.resolve(&dict) else {
                break;
            };
            let oldest = pool.oldest_id();
            let mut scanned = 0u32;
            while cursor > oldest && self.shown < limit && out.len() < CHUNK_BYTES {
                cursor -= 1;
                scanned += 1;
                if let Some(v) = pool.get(cursor) {
                    if filter.matches(&v) {
                        if self.shown > 0 {
                            out.push(b',');
                        }
                        let unix_ms = state.core.clock().unix_ms(v.record.time_ms);
                        write_request(&mut out, &v, &dict, unix_ms, self.filter.timers);
                        self.shown += 1;
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
            if out.len() >= CHUNK_BYTES {
                self.cursor = Some(cursor);
                return out;
            }
        }
        out.extend_from_slice(b"]}");
        self.done = true;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dictionary::Dictionary;
    use crate::record::{Record, RequestView, TagPair, Timer, NO_SCHEMA};

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
        assert!(f.resolve(&dict).is_some());
        let f = parse(Some("tag.country=de"), 10).ok().unwrap();
        assert!(f.resolve(&dict).is_none());
    }

    #[test]
    fn requests_render_as_json_with_first_tag_winning() {
        let mut dict = Dictionary::new(100);
        let id = |d: &mut Dictionary, s: &str| d.intern(s.as_bytes());
        let (host, script, country, nl, de, q) = (
            id(&mut dict, "web1"),
            id(&mut dict, "/a \"b\".php"),
            id(&mut dict, "country"),
            id(&mut dict, "nl"),
            id(&mut dict, "de"),
            id(&mut dict, "group"),
        );
        let record = Record {
            hostname: host,
            server_name: host,
            script_name: script,
            schema: NO_SCHEMA,
            request_count: 1,
            status: 200,
            request_time: 0.1,
            ru_utime: f32::NAN,
            tag_count: 2,
            timer_count: 1,
            ..Default::default()
        };
        let timers = [Timer {
            value: 0.25,
            hit_count: 3,
            tag_count: 1,
            ..Default::default()
        }];
        let block = [
            TagPair {
                name: country,
                value: nl,
            },
            TagPair {
                name: country,
                value: de,
            },
            TagPair { name: q, value: nl },
        ];
        let view = RequestView {
            id: 9,
            record: &record,
            tag_block: &block,
            timers: &timers,
        };
        let mut out = Vec::new();
        write_request(&mut out, &view, &dict, 1_700_000_000_123, true);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 9);
        assert_eq!(v["timestamp"], 1_700_000_000.123);
        assert_eq!(v["script_name"], "/a \"b\".php");
        assert_eq!(v["request_time"].to_string(), "0.1");
        assert!(v["ru_utime"].is_null() && v["schema"].is_null());
        assert_eq!(v["tags"], serde_json::json!({"country": "nl"}));
        assert_eq!(v["timer_count"], 1);
        assert_eq!(
            v["timers"],
            serde_json::json!([{"value": 0.25, "hit_count": 3, "ru_utime": 0.0, "ru_stime": 0.0, "tags": {"group": "nl"}}])
        );
        out.clear();
        write_request(&mut out, &view, &dict, 0, false);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert!(v.get("timers").is_none());
    }
}
