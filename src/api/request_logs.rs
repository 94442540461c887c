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
    // What the answer will say beside its entries, and its largest entry: what its chunks are
    // counted at before one is read.
    let (st, asked) = (state.clone(), q.clone());
    let head = blocking(&state, move || {
        let log = &st.request_log;
        let conn = Store::open_reader(&log.path).map_err(failed)?;
        store::head(&conn, &asked, log.group_by.as_str()).map_err(failed)
    })
    .await?;
    let log = &state.request_log;
    let sampling = sampling(log.sampling(kind), &head);
    let page = LogPage::new(
        kind,
        log.group_by.as_str(),
        log.path.clone(),
        q,
        head,
        sampling,
    );
    // The first chunk's slot, taken now: when none is free the answer is a 503, not a stream.
    let slot = super::query_slot(&state)?;
    let bound = page.chunk_bound();
    let answer = super::answer::ChunkedAnswer::admit(
        bound,
        (CHUNK_QUEUE as u64 + 2) * bound,
        state.core.budget(),
    )?;
    let body = super::answer::send_chunks(state, page, Some(slot), answer, CHUNK_QUEUE);
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

fn failed(e: store::StoreError) -> ApiError {
    ApiError::internal(format!("request log store: {e}"))
}

/// Bytes of entries one chunk takes (an entry more when one alone is larger).
const CHUNK_BYTES: usize = 256 << 10;
/// Chunks made and not yet sent: with the one being made and what the HTTP server holds, what an
/// answer whose client does not read holds.
const CHUNK_QUEUE: usize = 2;
/// An entry's JSON around its request (its step and group), and the figures of the entries
/// listed at once before their requests are read.
const ENTRY_SLACK: u64 = 64 << 10;
/// What a reader's SQLite holds beside its page cache: its schema, statements and lookaside.
const READER_BYTES: u64 = 256 << 10;

/// A request log's page being sent a chunk at a time (see [`super::answer::send_chunks`]): the
/// page's entries read from the store a part at a time, each part under a connection and a read
/// transaction of its own made for the chunk ([`store::read`]). Why: a log's entry may take up to
/// 16 MiB (`request_log.max_entry_bytes`), so a page rendered whole could be larger than the
/// memory budget, and a client that does not read would hold it (4 parallel `limit=100` asks of
/// 2 MB entries took 2.6 GB under a 512 MiB budget); here a chunk is counted before it is read
/// and a client that does not read holds its queue of chunks, and no connection or snapshot of
/// the store (which would keep the writer's checkpoints from taking the WAL back).
struct LogPage {
    path: std::path::PathBuf,
    q: Query,
    /// The answer up to its entries' list, until the first chunk takes it.
    start: Option<Vec<u8>>,
    error_counts: Option<Vec<(u32, u64)>>,
    /// How the log samples, and what it kept (see [`sampling`]).
    sampling: serde_json::Value,
    /// Bytes of the page's largest request.
    largest: u64,
    /// The last entry sent (its `cursor`), or the page's `cursor`.
    after: Option<(f64, i64)>,
    shown: usize,
    done: bool,
}

impl LogPage {
    fn new(
        kind: Kind,
        group_by: &str,
        path: std::path::PathBuf,
        q: Query,
        head: store::Head,
        sampling: serde_json::Value,
    ) -> LogPage {
        use crate::ndjson::put;
        let mut start = Vec::with_capacity(256);
        start.extend_from_slice(b"{\"kind\":");
        put(&mut start, kind.name());
        start.extend_from_slice(b",\"group_by\":");
        put(&mut start, group_by);
        start.extend_from_slice(b",\"total\":");
        put(&mut start, &head.total);
        start.extend_from_slice(b",\"entries\":[");
        LogPage {
            path,
            after: q.cursor,
            q,
            start: Some(start),
            error_counts: head.error_counts,
            sampling,
            largest: head.largest,
            shown: 0,
            done: false,
        }
    }

    /// What a chunk is counted at before it is made: its buffer, which may grow once past
    /// [`CHUNK_BYTES`] by an entry (the old block and the new at once; requests are read into it
    /// from the store's pages, never whole elsewhere), the reading connection's page cache and
    /// the rest of it, and the answer's end.
    fn chunk_bound(&self) -> u64 {
        2 * (CHUNK_BYTES as u64 + ENTRY_SLACK)
            + self.largest
            + store::READER_CACHE_BYTES
            + READER_BYTES
            + self
                .error_counts
                .as_ref()
                .map_or(0, |c| 64 * c.len() as u64)
    }

    /// The next chunk: the answer's start (first), its entries up to [`CHUNK_BYTES`] (one at
    /// least), its end (last).
    fn chunk(&mut self) -> Result<Vec<u8>, store::StoreError> {
        use crate::ndjson::put;
        let mut out = self.start.take().unwrap_or_default();
        out.reserve(CHUNK_BYTES);
        let mut conn = Store::open_reader(&self.path)?;
        while !self.done {
            let room = CHUNK_BYTES.saturating_sub(out.len()).max(1) as u64;
            let mut shown = self.shown;
            let mut last = self.after;
            let read = store::read(
                &mut conn,
                &self.q,
                self.after,
                self.q.limit - self.shown,
                room,
                |e, request| {
                    let needed = request.len() + 6 * e.group.len() + 64;
                    if out.capacity() - out.len() < needed {
                        out.reserve_exact(needed);
                    }
                    if shown > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(b"{\"step\":");
                    put(&mut out, &e.t);
                    out.extend_from_slice(b",\"group\":");
                    put(&mut out, &e.group);
                    out.extend_from_slice(b",\"request\":");
                    request.append_to(&mut out)?;
                    out.push(b'}');
                    shown += 1;
                    last = Some(e.position(self.q.sort));
                    Ok(())
                },
            )?;
            (self.shown, self.after) = (shown, last);
            if read.end || self.shown == self.q.limit {
                self.end(&mut out);
            } else if read.full || out.len() >= CHUNK_BYTES {
                break;
            }
        }
        Ok(out)
    }

    /// The answer's end: the next page's cursor (when this one is full), the error counts and the
    /// sampling.
    fn end(&mut self, out: &mut Vec<u8>) {
        use crate::ndjson::put;
        out.extend_from_slice(b"],\"next_cursor\":");
        match self.after.filter(|_| self.shown == self.q.limit) {
            Some((value, id)) => put(out, &format!("{value}_{id}")),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"error_counts\":");
        match &self.error_counts {
            Some(counts) => {
                let list: Vec<serde_json::Value> = counts
                    .iter()
                    .map(|(status, count)| serde_json::json!({"status": status, "count": count}))
                    .collect();
                put(out, &list);
            }
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"sampling\":");
        put(out, &self.sampling);
        out.push(b'}');
        self.done = true;
    }
}

impl super::answer::Chunks for LogPage {
    fn next_chunk(&mut self, _: &AppState) -> Result<Vec<u8>, String> {
        self.chunk().map_err(|e| format!("request log store: {e}"))
    }

    fn done(&self) -> bool {
        self.done
    }
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

/// The log's rule ([`crate::reqlog::RequestLog::sampling`]) with what this answer kept of what
/// the log saw.
fn sampling(mut rule: serde_json::Value, head: &store::Head) -> serde_json::Value {
    rule["kept"] = head.total.into();
    rule["seen"] = head
        .error_counts
        .as_ref()
        .map(|counts| counts.iter().map(|(_, n)| *n).sum::<u64>())
        .into();
    rule
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reqlog::store::Entry;

    /// The page rendered whole, as the answer was before it was sent a chunk at a time.
    fn whole(kind: Kind, group_by: &str, page: &store::Page, sampling: &str) -> Vec<u8> {
        let json = |v: serde_json::Value| v.to_string();
        let entries: Vec<String> = page
            .entries
            .iter()
            .map(|e| {
                format!(
                    "{{\"step\":{},\"group\":{},\"request\":{}}}",
                    e.t,
                    json(e.group.as_str().into()),
                    e.request
                )
            })
            .collect();
        let cursor = page.next_cursor.map_or("null".to_string(), |(v, id)| {
            json(format!("{v}_{id}").into())
        });
        let counts = page.error_counts.as_ref().map_or("null".to_string(), |c| {
            let list: Vec<String> = c
                .iter()
                .map(|(status, count)| format!("{{\"count\":{count},\"status\":{status}}}"))
                .collect();
            format!("[{}]", list.join(","))
        });
        format!(
            "{{\"kind\":{},\"group_by\":{},\"total\":{},\"entries\":[{}],\"next_cursor\":{cursor},\
             \"error_counts\":{counts},\"sampling\":{sampling}}}",
            json(kind.name().into()),
            json(group_by.into()),
            page.total,
            entries.join(",")
        )
        .into_bytes()
    }

    /// Pages of small and large entries (a 600 KiB one among them) sent a chunk at a time are,
    /// byte for byte, the pages rendered whole, whatever the sort, limit and cursor; each chunk
    /// but the last is past [`CHUNK_BYTES`] by one entry at most, within what it is counted at.
    #[test]
    fn a_page_sent_in_chunks_is_the_page_rendered_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(store::FILE);
        let mut writer = Store::open(&path).unwrap();
        let entries: Vec<Entry> = (0..40u64)
            .map(|i| {
                let size = match i % 7 {
                    3 => 600 << 10,
                    5 => 100 << 10,
                    _ => 100,
                };
                let kind = if i % 2 == 0 { Kind::Slow } else { Kind::Errors };
                Entry {
                    kind,
                    t: 60,
                    group: format!("g\"{}", i % 3),
                    server_name: format!("g\"{}", i % 3),
                    hostname: "h".into(),
                    script_name: "/s".into(),
                    status: 500 + (i % 2) as u32,
                    value: (i % 5) as f64 * 0.5,
                    time_ms: 60_000 + i / 2,
                    request_id: i,
                    request: format!("{{\"id\":{i},\"pad\":\"{}\"}}", "x".repeat(size)).into(),
                }
            })
            .collect();
        writer
            .write(&entries, &[(60, "g\"1".into(), 500, 9)], 100, 100)
            .unwrap();
        let mut conn = Store::open_reader(&path).unwrap();
        let rule = serde_json::json!({"rule": "the top 10", "kept": 3, "seen": null});
        for kind in [Kind::Slow, Kind::Errors] {
            for sort in [Sort::Time, Sort::Value] {
                for limit in [1, 3, 7, 100] {
                    let mut q = Query::new(kind, limit);
                    q.sort = sort;
                    loop {
                        let page = store::run(&mut conn, &q, "server_name").unwrap();
                        let head = store::head(&conn, &q, "server_name").unwrap();
                        let mut sent = LogPage::new(
                            kind,
                            "server_name",
                            path.clone(),
                            q.clone(),
                            head,
                            rule.clone(),
                        );
                        let bound = sent.chunk_bound();
                        let mut all = Vec::new();
                        while !sent.done {
                            let chunk = sent.chunk().unwrap();
                            assert!((chunk.capacity() as u64) < bound, "{}", chunk.capacity());
                            if !sent.done {
                                assert!(chunk.len() < CHUNK_BYTES + (601 << 10));
                            }
                            all.extend_from_slice(&chunk);
                        }
                        let want = whole(kind, "server_name", &page, &rule.to_string());
                        assert!(all == want, "{kind:?} {sort:?} {limit} {:?}", q.cursor);
                        match page.next_cursor {
                            Some(c) => q.cursor = Some(c),
                            None => break,
                        }
                    }
                }
            }
        }
    }

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
