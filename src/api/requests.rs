//! `GET /api/v1/requests`: the raw pool, newest first, filtered, with tags and (optionally) timers.
//!
//! Filters on strings are resolved to dictionary ids once, so the scan compares integers; a string
//! the dictionary does not hold matches nothing, and the scan is skipped.

use std::time::{Duration, Instant};

use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{parse_param, query_pairs, query_slot, ApiError, AppState};
use crate::ndjson::{Field, RequestFilter};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(requests))
}

/// The parameters [`RequestFilter::parse`] knows, for the error naming an unknown one.
const FILTER_PARAMS: &str = "filter, hostname, server_name, script_name, schema, status, \
                             min_time, max_time, min_size, max_size, min_memory, max_memory, \
                             tag.NAME, timer_tag.NAME, timers";

impl RequestFilter {
    /// Parses a query string. `max_limit`: whether `limit` is allowed, and its maximum. `extra`
    /// takes the parameters the filter does not know (returning whether it knew them), and
    /// `extra_names` lists them for the error naming an unknown parameter.
    ///
    /// One filter syntax with the reports: `filter=COLUMN:VALUE` (repeatable; `hostname`,
    /// `server_name`, `script_name`, `schema`, `status`, or a request tag's name), beside the
    /// older `script_name=…`, `tag.NAME=…`.
    pub fn parse(
        raw: Option<&str>,
        max_limit: Option<usize>,
        extra: &mut dyn FnMut(&str, &str) -> Result<bool, ApiError>,
        extra_names: &str,
    ) -> Result<RequestFilter, ApiError> {
        let mut f = RequestFilter::default();
        let pairs = query_pairs(raw)?;
        super::refuse_repeats(&pairs, &["filter"])?;
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
                "filter" => {
                    let Some((column, value)) = v.split_once(':').filter(|(c, _)| !c.is_empty())
                    else {
                        return Err(ApiError::bad_parameter(
                            "filter",
                            format!("`{v}`: expected COLUMN:VALUE (`script_name:/a.php`, `status:5xx`, `country:nl`)"),
                        ));
                    };
                    f.set(column, value.to_string(), "filter")?;
                }
                "hostname" | "server_name" | "script_name" | "schema" | "status" => {
                    f.set(&k, v, &k)?
                }
                "min_time" => f.min_time = Some(parse_seconds("min_time", &v)?),
                "max_time" => f.max_time = Some(parse_seconds("max_time", &v)?),
                "min_size" => f.min_size = Some(parse_bytes("min_size", &v)?),
                "max_size" => f.max_size = Some(parse_bytes("max_size", &v)?),
                "min_memory" => f.min_memory = Some(parse_bytes("min_memory", &v)?),
                "max_memory" => f.max_memory = Some(parse_bytes("max_memory", &v)?),
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

    /// Column `column` must be `value`: a request field, the status (a class or bound), or else
    /// the request tag of that name. `param` names the parameter in an error.
    fn set(&mut self, column: &str, value: String, param: &str) -> Result<(), ApiError> {
        match column {
            "hostname" => self.fields.push((Field::Hostname, value)),
            "server_name" => self.fields.push((Field::ServerName, value)),
            "script_name" => self.fields.push((Field::ScriptName, value)),
            "schema" => self.fields.push((Field::Schema, value)),
            "status" => self.status = Some(parse_status(param, &value)?),
            tag => self.tags.push((tag.to_string(), value)),
        }
        Ok(())
    }
}

#[cfg(test)]
fn parse(raw: Option<&str>, max_limit: usize) -> Result<RequestFilter, ApiError> {
    Ok(parse_query(raw, max_limit, 0)?.filter)
}

/// What `/api/v1/requests` is asked: the filter, and where in the pool to look.
struct RequestQuery {
    filter: RequestFilter,
    /// Merged at or after / at or before these times (unix ms).
    from_ms: Option<u64>,
    to_ms: Option<u64>,
    /// Only requests with ids below this (the `next_cursor` of the page before).
    cursor: Option<u64>,
    /// `format=csv`: a header row, then one row per request.
    csv: bool,
    /// `sort=FIELD` (ascending) or `sort=-FIELD` (descending).
    sort: Option<(SortField, bool)>,
}

/// The numeric fields a raw answer can be sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SortField {
    Id,
    Timestamp,
    Status,
    RequestCount,
    DocumentSize,
    MemoryPeak,
    MemoryFootprint,
    RequestTime,
    RuUtime,
    RuStime,
    TimerCount,
}

const SORT_FIELDS: &[(&str, SortField)] = &[
    ("id", SortField::Id),
    ("timestamp", SortField::Timestamp),
    ("status", SortField::Status),
    ("request_count", SortField::RequestCount),
    ("document_size", SortField::DocumentSize),
    ("memory_peak", SortField::MemoryPeak),
    ("memory_footprint", SortField::MemoryFootprint),
    ("request_time", SortField::RequestTime),
    ("ru_utime", SortField::RuUtime),
    ("ru_stime", SortField::RuStime),
    ("timer_count", SortField::TimerCount),
];

impl SortField {
    fn value(self, v: &crate::record::RequestView<'_>, unix_ms: u64) -> f64 {
        let r = v.record;
        match self {
            SortField::Id => v.id as f64,
            SortField::Timestamp => unix_ms as f64,
            SortField::Status => r.status.into(),
            SortField::RequestCount => r.request_count.into(),
            SortField::DocumentSize => r.document_size.into(),
            SortField::MemoryPeak => r.memory_peak.into(),
            SortField::MemoryFootprint => r.memory_footprint.into(),
            SortField::RequestTime => r.request_time.into(),
            SortField::RuUtime => r.ru_utime.into(),
            SortField::RuStime => r.ru_stime.into(),
            SortField::TimerCount => r.timer_count.into(),
        }
    }
}

/// `sort=FIELD` or `sort=-FIELD`: the field and whether descending.
fn parse_sort(v: &str) -> Result<(SortField, bool), ApiError> {
    let (name, desc) = match v.strip_prefix('-') {
        Some(n) => (n, true),
        None => (v.strip_prefix('+').unwrap_or(v), false),
    };
    SORT_FIELDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, f)| (f, desc))
        .ok_or_else(|| {
            let names: Vec<&str> = SORT_FIELDS.iter().map(|(n, _)| *n).collect();
            ApiError::bad_parameter(
                "sort",
                format!(
                    "`{v}`: expected FIELD or -FIELD, FIELD one of {}",
                    names.join(", ")
                ),
            )
        })
}

/// A request ranked for a sorted answer: a higher rank comes first (the value, negated for an
/// ascending sort; the newer first among equals).
#[derive(Clone, Copy, Debug)]
struct Ranked {
    rank: f64,
    id: u64,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank
            .total_cmp(&other.rank)
            .then(self.id.cmp(&other.id))
    }
}

fn parse_query(raw: Option<&str>, max_limit: usize, now_ms: u64) -> Result<RequestQuery, ApiError> {
    let (mut from_ms, mut to_ms, mut cursor, mut csv, mut sort) = (None, None, None, false, None);
    let filter = RequestFilter::parse(
        raw,
        Some(max_limit),
        &mut |k, v| {
            match k {
                "from" => from_ms = Some(parse_time("from", v, now_ms)?),
                "to" => to_ms = Some(parse_time("to", v, now_ms)?),
                "cursor" => cursor = Some(parse_param("cursor", v)?),
                "sort" => sort = Some(parse_sort(v)?),
                "format" => {
                    csv = match v {
                        "json" => false,
                        "csv" => true,
                        _ => {
                            return Err(ApiError::bad_parameter(
                                "format",
                                format!("`{v}`: expected json or csv"),
                            ))
                        }
                    }
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
        ", from, to, cursor, sort, format",
    )?;
    if let (Some(from), Some(to)) = (from_ms, to_ms) {
        if from > to {
            return Err(ApiError::bad_parameter(
                "from",
                format!("`from` ({from} ms) is after `to` ({to} ms): the range holds no time"),
            ));
        }
    }
    if sort.is_some() && cursor.is_some() {
        return Err(ApiError::bad_parameter(
            "cursor",
            "a sorted answer is one page (`limit` of them): leave cursor out with sort",
        ));
    }
    if csv && filter.timers {
        return Err(ApiError::bad_parameter(
            "timers",
            "a CSV row has no timers: leave timers out with format=csv",
        ));
    }
    Ok(RequestQuery {
        filter,
        from_ms,
        to_ms,
        cursor,
        csv,
        sort,
    })
}

/// A time as unix milliseconds ([`crate::units::parse_time_ms`]; `now_ms` for relative times).
fn parse_time(name: &str, v: &str, now_ms: u64) -> Result<u64, ApiError> {
    crate::units::parse_time_ms(v, i64::try_from(now_ms).unwrap_or(i64::MAX))
        .map(|ms| ms as u64)
        .map_err(|why| ApiError::bad_parameter(name, why))
}

/// A status parameter ([`crate::units::parse_status`]), as inclusive bounds.
pub(super) fn parse_status(name: &str, v: &str) -> Result<(u32, u32), ApiError> {
    crate::units::parse_status(v).map_err(|why| ApiError::bad_parameter(name, why))
}

/// Seconds: a plain number (`0.1`) or a duration with its unit (`100ms`, `2s`, `1m`).
fn parse_seconds(name: &str, v: &str) -> Result<f32, ApiError> {
    let x = match v.parse::<f32>() {
        Ok(x) => x,
        Err(_) => match v.parse::<crate::units::HumanDuration>() {
            Ok(d) => d.0.as_secs_f32(),
            Err(_) => f32::NAN,
        },
    };
    if !x.is_finite() || x < 0.0 {
        return Err(ApiError::bad_parameter(
            name,
            format!("`{v}` must be a number of seconds ≥ 0 or a duration (`100ms`, `2s`)"),
        ));
    }
    Ok(x)
}

/// Bytes: a plain number or a size with its unit (`512KiB`, `2MiB`, `1MB`).
fn parse_bytes(name: &str, v: &str) -> Result<u64, ApiError> {
    v.parse::<u64>()
        .ok()
        .or_else(|| v.parse::<bytesize::ByteSize>().ok().map(|b| b.as_u64()))
        .ok_or_else(|| {
            ApiError::bad_parameter(
                name,
                format!("`{v}` must be a number of bytes or a size (`2MiB`, `512KiB`)"),
            )
        })
}

/// Most work one chunk of a scan does under the pool's read lock: the merger waits at most this
/// long for its write lock because of a query (a round's own work is bounded likewise).
const CHUNK_TIME: Duration = Duration::from_millis(2);
/// Most bytes of JSON one chunk produces; with [`CHUNK_QUEUE`] it bounds what a scan holds.
const CHUNK_BYTES: usize = 256 << 10;
/// What one chunk is counted at before it is built: a chunk ends at the first request or timer
/// that takes it past [`CHUNK_BYTES`] (a request's timers go on in the next chunk), and with the
/// default limits one timer renders to 200 KiB at most (16 tags of two 1 KiB strings, every byte
/// escaped); its buffer's growth included.
const CHUNK_BOUND: usize = 2 * CHUNK_BYTES;
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
        ("tag.NAME" = Option<String>, Query, description = "Request tag NAME has this value, for any NAME (`tag.country=nl`); one per tag"),
        ("timer_tag.NAME" = Option<String>, Query, description = "The request has a timer whose tag NAME has this value (`timer_tag.group=db`)"),
        ("timers" = Option<bool>, Query, description = "Include each request's timers (default false)"),
        ("from" = Option<String>, Query, description = "Merged at or after this time: unix seconds (`1764100000.5`), RFC 3339 (`2026-11-25T21:00:00Z`), `now` or relative such as `-10m`; the raw pool holds `stats_history`; after `to` is a 400"),
        ("to" = Option<String>, Query, description = "Merged at or before this time (as `from`)"),
        ("cursor" = Option<u64>, Query, description = "The `next_cursor` of the page before (in CSV: its last row's id): requests older than that page's last"),
        ("sort" = Option<String>, Query, description = "`FIELD` (ascending) or `-FIELD` (descending), FIELD one of id, timestamp, status, request_count, document_size, memory_peak, memory_footprint, request_time, ru_utime, ru_stime, timer_count: the first `limit` matches of the whole range in that order (newer first among equals); one page, no cursor"),
        ("format" = Option<String>, Query, description = "`json` (default) or `csv`: a header row (id, timestamp, hostname, server_name, script_name, schema, status, request_count, document_size, memory_peak, memory_footprint, request_time, ru_utime, ru_stime, timer_count, tags as `name=value` joined by `;`), then a row per request; not with timers=true"),
    ),
    responses(
        (status = 200, description = "Raw requests, newest first (streamed), and `next_cursor`: the `cursor` of the next page when this one is full and older requests are left, else null", content(
            (super::openapi::RequestList = "application/json"),
            (String = "text/csv"),
        )),
        (status = 400, response = super::openapi::BadRequest),
        (status = 401, response = super::openapi::Unauthorized),
        (status = 503, response = super::openapi::Busy),
    )
)]
async fn requests(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let clock = state.core.clock();
    let now_ms = clock.unix_ms64(clock.now_ms64());
    let query = parse_query(
        raw.as_deref(),
        state.core.config().limits.max_query_limit,
        now_ms,
    )?;
    // The first chunk's slot, taken now: when none is free the answer is a 503, not a stream.
    let slot = query_slot(&state)?;
    // Counted in the memory budget: the chunk about to be built, and the chunks built until
    // written (the queue's and hyper's).
    let answer = super::answer::ChunkedAnswer::admit(
        CHUNK_BOUND as u64,
        ((CHUNK_QUEUE + 2) * CHUNK_BYTES) as u64,
        state.core.budget(),
    )?;
    let content_type = if query.csv {
        "text/csv; charset=utf-8"
    } else {
        "application/json"
    };
    let body = super::answer::send_chunks(state, Scan::new(query), Some(slot), answer, CHUNK_QUEUE);
    Ok(([(header::CONTENT_TYPE, content_type)], body).into_response())
}

impl super::answer::Chunks for Scan {
    fn next_chunk(&mut self, state: &AppState) -> Result<Vec<u8>, String> {
        Ok(Scan::next_chunk(self, state))
    }

    fn done(&self) -> bool {
        self.done
    }
}

/// A scan of the pool, newest first, producing the answer chunk by chunk. Walks ids from the
/// newest down; ids evicted between chunks are simply gone, ids added meanwhile are newer than
/// the scan and not shown.
struct Scan {
    filter: RequestFilter,
    from_ms: u64,
    to_ms: u64,
    /// Where the walk starts: below this id (`None`: the newest).
    start: Option<u64>,
    csv: bool,
    sort: Option<(SortField, bool)>,
    /// A sorted answer's best `limit` so far (the worst on top), while the pool is walked.
    ranked: std::collections::BinaryHeap<std::cmp::Reverse<Ranked>>,
    /// A sorted answer's ids in order once the walk is done, and how many are rendered.
    sorted: Option<(Vec<u64>, usize)>,
    /// The id below which the walk goes on (`None` before the first chunk).
    cursor: Option<u64>,
    /// A request whose timers did not all fit in the chunk before: its id and its next timer.
    partial: Option<(u64, usize)>,
    shown: usize,
    /// Whether the last chunk (the one closing the JSON) has been produced.
    done: bool,
}

impl Scan {
    fn new(q: RequestQuery) -> Scan {
        Scan {
            filter: q.filter,
            from_ms: q.from_ms.unwrap_or(0),
            to_ms: q.to_ms.unwrap_or(u64::MAX),
            start: q.cursor,
            csv: q.csv,
            sort: q.sort,
            ranked: Default::default(),
            sorted: None,
            cursor: None,
            partial: None,
            shown: 0,
            done: false,
        }
    }

    /// The answer's next chunk: at least [`CHUNK_BYTES`] of JSON, unless it is the last one
    /// (then `done` is set). Holds the pool's and the dictionary's read locks for at most
    /// [`CHUNK_TIME`] at a time.
    fn next_chunk(&mut self, state: &AppState) -> Vec<u8> {
        let mut out = Vec::new();
        if self.partial.is_some() {
            out.reserve(CHUNK_BYTES + 4096);
            let pool = state.core.pool().read();
            let dict = state.core.dictionary().read();
            self.resume(&mut out, &pool, &dict, state);
            if self.partial.is_some() {
                return out;
            }
        }
        if self.sorted.is_some() {
            out.reserve(CHUNK_BYTES + 4096);
            return self.render_sorted(state, out);
        }
        // The default, 100, never above the configured maximum (an explicit `limit` is checked
        // against it when parsed).
        let limit = self.filter.limit.unwrap_or(
            crate::report::DEFAULT_QUERY_LIMIT.min(state.core.config().limits.max_query_limit),
        );
        // A small answer (the default 100 requests) takes a few KB: sized for that first.
        let first = self.cursor.is_none();
        out.reserve(if first { 4096 } else { CHUNK_BYTES + 4096 });
        let mut cursor = match self.cursor {
            Some(c) => c,
            None => {
                out.extend_from_slice(if self.csv {
                    CSV_HEADER
                } else {
                    b"{\"requests\":["
                });
                let newest = state.core.pool().read().next_id();
                self.start.map_or(newest, |c| c.min(newest))
            }
        };
        // Requests are pooled in the order merged: below `from`, nothing older can match.
        let mut before_from = false;
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
                    let unix_ms = state.core.clock().unix_ms(v.record.time_ms);
                    if unix_ms < self.from_ms {
                        before_from = true;
                        break;
                    }
                    if unix_ms <= self.to_ms && filter.matches(&v) {
                        if let Some((field, desc)) = self.sort {
                            let value = field.value(&v, unix_ms);
                            let rank = if desc { value } else { -value };
                            self.ranked
                                .push(std::cmp::Reverse(Ranked { rank, id: cursor }));
                            if self.ranked.len() > limit {
                                self.ranked.pop();
                            }
                        } else {
                            self.write(&mut out, &v, &dict, unix_ms, None);
                            self.shown += 1;
                        }
                    }
                }
                if scanned.is_multiple_of(256) && started.elapsed() >= CHUNK_TIME {
                    break;
                }
            }
            drop(dict);
            drop(pool);
            if self.partial.is_some() {
                self.cursor = Some(cursor);
                return out;
            }
            if cursor <= oldest || before_from {
                break;
            }
            if out.len() >= CHUNK_BYTES {
                self.cursor = Some(cursor);
                return out;
            }
        }
        if self.sort.is_some() {
            // The walk is done: the best `limit` in order, best first.
            let ids = std::mem::take(&mut self.ranked)
                .into_sorted_vec()
                .into_iter()
                .map(|std::cmp::Reverse(r)| r.id)
                .collect();
            self.sorted = Some((ids, 0));
            return self.render_sorted(state, out);
        }
        // A full page with older requests left to look at: where the next page starts.
        let more =
            self.shown >= limit && !before_from && cursor > state.core.pool().read().oldest_id();
        if self.csv {
            // The next page's cursor is the last row's id.
            self.done = true;
            return out;
        }
        out.extend_from_slice(b"],\"next_cursor\":");
        if more {
            crate::ndjson::put(&mut out, &cursor);
        } else {
            out.extend_from_slice(b"null");
        }
        out.push(b'}');
        self.done = true;
        out
    }
}

impl Scan {
    /// Writes request `v` (merged at `unix_ms`) as a CSV row, or as JSON from its start
    /// (`from` is `None`) or its `from`th timer on, until the chunk is full: a request whose
    /// timers do not all fit is left open ([`Scan::partial`]) for the next chunk.
    fn write(
        &mut self,
        out: &mut Vec<u8>,
        v: &crate::record::RequestView<'_>,
        dict: &crate::dictionary::Dictionary,
        unix_ms: u64,
        from: Option<usize>,
    ) {
        if self.csv {
            write_csv_row(out, v, dict, unix_ms);
            return;
        }
        if from.is_none() && self.shown > 0 {
            out.push(b',');
        }
        let (timers, end) = (self.filter.timers, CHUNK_BYTES);
        self.partial = crate::ndjson::write_request_part(out, v, dict, unix_ms, timers, from, end)
            .map(|at| (v.id, at));
    }

    /// Goes on with the request left open by the chunk before: its next timers, or the end of
    /// its list when it has left the pool meanwhile (`timer_count` says how many it had).
    fn resume(
        &mut self,
        out: &mut Vec<u8>,
        pool: &crate::pool::Pool,
        dict: &crate::dictionary::Dictionary,
        state: &AppState,
    ) {
        let Some((id, at)) = self.partial.take() else {
            return;
        };
        match pool.get(id) {
            Some(v) => {
                let unix_ms = state.core.clock().unix_ms(v.record.time_ms);
                self.write(out, &v, dict, unix_ms, Some(at));
            }
            None => crate::ndjson::close_request_part(out),
        }
    }

    /// Renders a sorted answer's next requests into `out` (a request evicted since the walk is
    /// left out), closing the answer after the last.
    fn render_sorted(&mut self, state: &AppState, mut out: Vec<u8>) -> Vec<u8> {
        let Some((ids, mut at)) = self.sorted.take() else {
            return out;
        };
        while at < ids.len() && out.len() < CHUNK_BYTES {
            let started = Instant::now();
            let pool = state.core.pool().read();
            let dict = state.core.dictionary().read();
            while at < ids.len() && out.len() < CHUNK_BYTES {
                let id = ids[at];
                at += 1;
                if let Some(v) = pool.get(id) {
                    let unix_ms = state.core.clock().unix_ms(v.record.time_ms);
                    self.write(&mut out, &v, &dict, unix_ms, None);
                    self.shown += 1;
                }
                if at.is_multiple_of(256) && started.elapsed() >= CHUNK_TIME {
                    break;
                }
            }
        }
        if at < ids.len() || self.partial.is_some() {
            self.sorted = Some((ids, at));
            return out;
        }
        if !self.csv {
            out.extend_from_slice(b"],\"next_cursor\":null}");
        }
        self.done = true;
        out
    }
}

/// The CSV answer's header row: a raw request's fields, its tags last (`name=value` pairs
/// joined by `;`).
const CSV_HEADER: &[u8] = b"id,timestamp,hostname,server_name,script_name,schema,status,\
request_count,document_size,memory_peak,memory_footprint,request_time,ru_utime,ru_stime,\
timer_count,tags\r\n";

/// One raw request as a CSV row (the columns of [`CSV_HEADER`]).
fn write_csv_row(
    out: &mut Vec<u8>,
    v: &crate::record::RequestView<'_>,
    dict: &crate::dictionary::Dictionary,
    unix_ms: u64,
) {
    let r = v.record;
    let mut row = String::with_capacity(160);
    let text = |id: u32| dict.text(id);
    let schema = if r.schema == crate::record::NO_SCHEMA {
        std::borrow::Cow::Borrowed("")
    } else {
        text(r.schema)
    };
    let mut tags = String::new();
    for (i, t) in v.tags().iter().enumerate() {
        if v.tags()[..i].iter().any(|p| p.name == t.name) {
            continue;
        }
        if !tags.is_empty() {
            tags.push(';');
        }
        tags.push_str(&text(t.name));
        tags.push('=');
        tags.push_str(&text(t.value));
    }
    let fields: [std::borrow::Cow<'_, str>; 16] = [
        v.id.to_string().into(),
        (unix_ms as f64 / 1000.0).to_string().into(),
        text(r.hostname),
        text(r.server_name),
        text(r.script_name),
        schema,
        r.status.to_string().into(),
        r.request_count.to_string().into(),
        r.document_size.to_string().into(),
        r.memory_peak.to_string().into(),
        r.memory_footprint.to_string().into(),
        r.request_time.to_string().into(),
        r.ru_utime.to_string().into(),
        r.ru_stime.to_string().into(),
        r.timer_count.to_string().into(),
        tags.into(),
    ];
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            row.push(',');
        }
        crate::report::csv_field(&mut row, f);
    }
    row.push_str("\r\n");
    out.extend_from_slice(row.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dictionary::Dictionary;
    use crate::ndjson::write_request;
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
    fn status_classes_units_times_and_the_report_filter_syntax() {
        for (v, want) in [
            ("404", (404, 404)),
            ("5xx", (500, 599)),
            (">=500", (500, u32::MAX)),
            (">399", (400, u32::MAX)),
            ("<400", (0, 399)),
            ("<=299", (0, 299)),
        ] {
            assert_eq!(parse_status("status", v).ok(), Some(want), "{v}");
        }
        for v in [
            "5x", "xx", "<0", "abc", ">=", "50xx", "6xx", "0xx", "9XX", "+xx",
        ] {
            let e = parse_status("status", v).err();
            assert!(
                e.as_ref()
                    .is_some_and(|e| e.detail.contains("status") && e.detail.contains(v)),
                "{v}"
            );
        }
        for (v, want) in [
            ("0", (0, 0)),
            ("1xx", (100, 199)),
            ("5XX", (500, 599)),
            ("600", (600, 600)),
        ] {
            assert_eq!(parse_status("status", v).ok(), Some(want), "{v}");
        }
        assert_eq!(parse_seconds("min_time", "0.25").ok(), Some(0.25));
        assert_eq!(parse_seconds("min_time", "100ms").ok(), Some(0.1));
        assert_eq!(parse_seconds("min_time", "2s").ok(), Some(2.0));
        let e = parse_seconds("min_time", "fast").err().unwrap();
        assert!(e.detail.contains("min_time"), "{}", e.detail);
        assert_eq!(parse_bytes("min_size", "2MiB").ok(), Some(2 << 20));
        assert_eq!(parse_bytes("min_size", "1000").ok(), Some(1000));
        assert_eq!(parse_bytes("min_size", "1KB").ok(), Some(1000));
        assert!(parse_bytes("min_size", "big").is_err());
        assert_eq!(
            parse_time("from", "1764100000.5", 0).ok(),
            Some(1_764_100_000_500)
        );
        assert_eq!(
            parse_time("from", "2026-11-25T21:00:00Z", 0).ok(),
            Some(1_795_640_400_000)
        );
        assert_eq!(parse_time("from", "-10m", 3_600_000).ok(), Some(3_000_000));
        assert_eq!(parse_time("to", "now", 3_600_000).ok(), Some(3_600_000));
        assert!(parse_time("from", "yesterday", 0).is_err());
        assert!(parse_time("from", "-1h", 60_000).is_err());
        let e = parse_query(Some("from=20&to=10"), 10, 0).err().unwrap();
        assert!(e.detail.contains("after `to`"), "{}", e.detail);
        let f = parse(
            Some("filter=script_name:/a.php&filter=status:5xx&filter=country:nl&min_time=100ms"),
            10,
        )
        .ok()
        .unwrap();
        assert_eq!(f.fields[0].1, "/a.php");
        assert_eq!(f.status, Some((500, 599)));
        assert_eq!(f.tags, [("country".to_string(), "nl".to_string())]);
        assert_eq!(f.min_time, Some(0.1));
        let e = parse(Some("filter=nocolon"), 10).err().unwrap();
        assert!(e.detail.contains("filter"), "{}", e.detail);
        let e = parse(Some("status=2x"), 10).err().unwrap();
        assert!(e.detail.contains("status"), "{}", e.detail);
        let q = parse_query(Some("cursor=12&from=10&to=20"), 10, 0)
            .ok()
            .unwrap();
        assert_eq!(
            (q.cursor, q.from_ms, q.to_ms),
            (Some(12), Some(10_000), Some(20_000))
        );
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
