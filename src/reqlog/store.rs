//! The request logs' store: `{state_dir}/request_log.sqlite`, one SQLite file in WAL mode (as
//! the history store, `history::store`).
//!
//! Tables (operators can read them with the `sqlite3` shell):
//! - `entries`: one line per request a log keeps: `kind` (0 slow, 1 memory, 2 cpu, 3 errors),
//!   `t` (the step's start, unix seconds), `grp` (the group: the request's server, host or script,
//!   as `request_log.group_by` said when it was written), its server, host, script and status
//!   (what the API filters on), `value` (what the log ranks by: request_time, memory_peak or CPU
//!   seconds; request_time for errors), `time_ms` (when it was merged, unix ms), its request id,
//!   and `request`: the request as `/api/v1/requests?timers=true` shows it (JSON);
//! - `error_counts`: per step, group and status, every error request seen (kept or not).
//!
//! Written only by the "pinbad-reqlog" thread; the API reads through its own read-only
//! connections, which WAL lets run beside the writer. The file's `PRAGMA user_version` is
//! [`SCHEMA_VERSION`]; a file of another version is refused at open. A damaged or empty file is
//! set aside at start and a new store made in its place ([`Store::open_or_set_aside`]).

use std::path::{Path, PathBuf};

use rusqlite::types::Value as SqlValue;
use rusqlite::{params, params_from_iter, Connection};

use super::select::Kind;

/// The store's file in `state_dir`.
pub const FILE: &str = "request_log.sqlite";

/// What a reader's page cache may hold (SQLite's default is 2 MiB).
pub const READER_CACHE_BYTES: u64 = 256 << 10;

/// The schema's version, kept in the file's `PRAGMA user_version`.
pub const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    kind INTEGER NOT NULL,
    t INTEGER NOT NULL,
    grp TEXT NOT NULL,
    server_name TEXT NOT NULL,
    hostname TEXT NOT NULL,
    script_name TEXT NOT NULL,
    status INTEGER NOT NULL,
    value REAL NOT NULL,
    time_ms INTEGER NOT NULL,
    request_id INTEGER NOT NULL,
    request TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_time ON entries (kind, time_ms);
CREATE INDEX IF NOT EXISTS entries_by_value ON entries (kind, value);
CREATE INDEX IF NOT EXISTS entries_by_step ON entries (kind, grp, t, status);
CREATE INDEX IF NOT EXISTS entries_by_server ON entries (kind, server_name, time_ms);
CREATE INDEX IF NOT EXISTS entries_t ON entries (t);
CREATE TABLE IF NOT EXISTS error_counts (
    t INTEGER NOT NULL,
    grp TEXT NOT NULL,
    status INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (t, grp, status)
);
";

const INSERT: &str = "INSERT INTO entries (kind, t, grp, server_name, hostname, script_name, \
     status, value, time_ms, request_id, request) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
/// Keeps the `?4` largest values of a top log's group and step (the earlier of equals).
const TRIM_TOP: &str = "DELETE FROM entries WHERE kind = ?1 AND grp = ?2 AND t = ?3 AND id NOT IN \
     (SELECT id FROM entries WHERE kind = ?1 AND grp = ?2 AND t = ?3 ORDER BY value DESC, id \
     LIMIT ?4)";
/// Keeps the first `?4` errors of a group, step and status.
const TRIM_ERRORS: &str = "DELETE FROM entries WHERE kind = 3 AND grp = ?1 AND t = ?2 AND \
     status = ?3 AND id NOT IN (SELECT id FROM entries WHERE kind = 3 AND grp = ?1 AND t = ?2 \
     AND status = ?3 ORDER BY time_ms, id LIMIT ?4)";
const COUNT_ERRORS: &str =
    "INSERT INTO error_counts (t, grp, status, count) VALUES (?1, ?2, ?3, ?4) \
     ON CONFLICT (t, grp, status) DO UPDATE SET count = count + excluded.count";
const PRUNE: &str = "DELETE FROM entries WHERE t < ?1";
const PRUNE_COUNTS: &str = "DELETE FROM error_counts WHERE t < ?1";
const OLDEST: &str = "SELECT min(t) FROM entries";
/// A step's entries and the bytes of their requests, largest first (the oldest first among
/// equals: a step's latest entries are the ones its reader looks at).
const STEP_SIZES: &str =
    "SELECT id, octet_length(request) FROM entries WHERE t = ?1 ORDER BY 2 DESC, id";
const STEP_BYTES: &str = "SELECT coalesce(sum(octet_length(request)), 0) FROM entries WHERE t = ?1";
const DELETE_ENTRY: &str = "DELETE FROM entries WHERE id = ?1";
const COUNT_ROWS: &str = "SELECT count(*) FROM entries";

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{0}")]
    Refused(String),
    /// `quick_check` found the file damaged (at open).
    #[error("{0}")]
    Damaged(String),
}

/// One request a log keeps, as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub kind: Kind,
    /// The step's start, unix seconds.
    pub t: i64,
    pub group: String,
    pub server_name: String,
    pub hostname: String,
    pub script_name: String,
    pub status: u32,
    pub value: f64,
    pub time_ms: u64,
    pub request_id: u64,
    /// The request as JSON (with its tags and timers).
    pub request: std::sync::Arc<str>,
}

/// What one [`Store::write`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Entries inserted.
    pub inserted: u64,
    /// Entries deleted again: pushed out of a top (or past `max_errors`) by what came later.
    pub replaced: u64,
}

/// Entries deleted, and the bytes of their requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shed {
    pub entries: u64,
    pub bytes: u64,
}

impl Shed {
    fn add(&mut self, entries: u64, bytes: u64) {
        self.entries += entries;
        self.bytes += bytes;
    }
}

/// What [`Store::bound`] keeps the files within: 85 % of `max_bytes`, which leaves room for
/// what one write adds before the next bound (the writer writes at most a fortieth of
/// `max_bytes` at once) and for the WAL between truncations, so that the files on disk stay
/// within `max_bytes`.
pub fn target(max_bytes: u64) -> u64 {
    max_bytes / 100 * 85
}

/// The writer's connection.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// The `journal_size_limit` set (0: SQLite's default, none).
    wal_limit: u64,
}

/// `v` as SQLite's integer (saturating: nothing stored here gets there).
fn sql_int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Store {
    /// Opens (creating) the store in WAL mode and checks it is usable: a corrupt or read-only
    /// file, or one of another schema version, is an error here, not at the first write.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err(StoreError::Refused(
                "the file is read-only: pinbad must be able to write it".into(),
            ));
        }
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let ok: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
        if ok != "ok" {
            return Err(StoreError::Damaged(format!("quick_check: {ok}")));
        }
        let tx = conn.transaction()?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let tables: i64 = tx.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )?;
        if version != SCHEMA_VERSION && !(version == 0 && tables == 0) {
            return Err(StoreError::Refused(format!(
                "schema version {version}, where this pinbad reads version {SCHEMA_VERSION} (the \
                 file was written by another version of pinbad): move the file away to start \
                 new request logs"
            )));
        }
        tx.execute_batch(SCHEMA)?;
        for sql in [
            INSERT,
            TRIM_TOP,
            TRIM_ERRORS,
            COUNT_ERRORS,
            PRUNE,
            PRUNE_COUNTS,
            OLDEST,
            COUNT_ROWS,
            STEP_SIZES,
            STEP_BYTES,
            DELETE_ENTRY,
        ] {
            tx.prepare(sql).map_err(|e| {
                StoreError::Refused(format!(
                    "its tables are not those this pinbad writes ({e}): move the file away"
                ))
            })?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        tx.commit()?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            wal_limit: 0,
        })
    }

    /// [`Store::open`], a damaged or empty file set aside first and a new store made in its
    /// place, as the history store does (`history::store::open_setting_aside`, which says why).
    pub fn open_or_set_aside(
        path: &Path,
    ) -> (Result<Store, StoreError>, Option<crate::durable::SetAside>) {
        crate::history::store::open_setting_aside(path, Store::open, |e| match e {
            StoreError::Sqlite(e) => crate::history::store::sqlite_damage(e),
            StoreError::Damaged(why) => Some(why.clone()),
            StoreError::Refused(_) => None,
        })
    }

    /// A read-only connection for a reader (the API), as the history store's readers have, its
    /// page cache held to [`READER_CACHE_BYTES`]: a reader goes through large requests page by
    /// page, and what it holds is counted in the memory budget at that.
    pub fn open_reader(path: &Path) -> Result<Connection, StoreError> {
        let conn = crate::history::store::Store::open_reader(path)
            .map_err(|e| StoreError::Refused(e.to_string()))?;
        conn.pragma_update(None, "cache_size", -((READER_CACHE_BYTES >> 10) as i64))?;
        Ok(conn)
    }

    /// Writes `entries` and the error counts `(step start in unix seconds, group, status,
    /// count)` in one transaction, then keeps in each group and step it touched only the top
    /// `top` of each top log and the first `max_errors` of each error status: what is stored is
    /// the top of everything written for the step, across restarts too.
    pub fn write(
        &mut self,
        entries: &[Entry],
        counts: &[(i64, Box<str>, u32, u64)],
        top: usize,
        max_errors: usize,
    ) -> Result<Written, StoreError> {
        let tx = self.conn.transaction()?;
        let mut written = Written::default();
        {
            let mut insert = tx.prepare_cached(INSERT)?;
            let mut touched = std::collections::HashSet::new();
            for e in entries {
                insert.execute(params![
                    e.kind.code(),
                    e.t,
                    e.group,
                    e.server_name,
                    e.hostname,
                    e.script_name,
                    e.status,
                    e.value,
                    sql_int(e.time_ms),
                    sql_int(e.request_id),
                    &*e.request,
                ])?;
                written.inserted += 1;
                let status = if e.kind == Kind::Errors { e.status } else { 0 };
                touched.insert((e.kind, e.group.as_str(), e.t, status));
            }
            let mut trim_top = tx.prepare_cached(TRIM_TOP)?;
            let mut trim_errors = tx.prepare_cached(TRIM_ERRORS)?;
            for (kind, group, t, status) in touched {
                written.replaced += if kind == Kind::Errors {
                    trim_errors.execute(params![group, t, status, sql_int(max_errors as u64)])?
                } else {
                    trim_top.execute(params![kind.code(), group, t, sql_int(top as u64)])?
                } as u64;
            }
            let mut count = tx.prepare_cached(COUNT_ERRORS)?;
            for (t, group, status, n) in counts {
                count.execute(params![t, &**group, status, sql_int(*n)])?;
            }
        }
        tx.commit()?;
        Ok(written)
    }

    /// Deletes the steps that began before `before_s` (unix seconds). Returns the entries deleted.
    pub fn prune(&mut self, before_s: i64) -> Result<u64, StoreError> {
        let tx = self.conn.transaction()?;
        let n = tx.execute(PRUNE, [before_s])? as u64;
        tx.execute(PRUNE_COUNTS, [before_s])?;
        tx.commit()?;
        Ok(n)
    }

    /// Keeps the store's files within `max_bytes`: while the pages in use and the WAL take more
    /// than [`target`] of it, deletes the oldest step's largest entries (a step's flood goes
    /// before its ordinary entries, and the newest steps last). The database file keeps its
    /// freed pages for what comes next, so it stays near the pages in use; the WAL is truncated
    /// once it takes a twentieth of the bound. Returns what was deleted.
    pub fn bound(&mut self, max_bytes: u64) -> Result<Shed, StoreError> {
        let target = target(max_bytes);
        let mut deleted = Shed::default();
        loop {
            self.truncate_wal(max_bytes / 20)?;
            // The WAL counts up to what truncating it keeps it under: past that, a reader keeps
            // it from being reset, and deleting entries (which writes to it) would not help.
            let wal = self.wal_bytes().min(max_bytes / 20);
            let over = (self.used_bytes()? + wal).saturating_sub(target);
            if over == 0 {
                break;
            }
            let Some(oldest) = self.oldest()? else {
                break;
            };
            let step = self.step_bytes(oldest)?;
            // An entry's JSON is about half of what it takes with its indexes: deleting `over`
            // bytes of JSON frees at least `over` pages' worth, and the loop checks again.
            let d = self.shed(oldest, step.saturating_sub(over))?;
            if d.entries == 0 {
                deleted.add(self.prune(oldest + 1)?, 0);
            }
            deleted.add(d.entries, d.bytes);
        }
        Ok(deleted)
    }

    /// Deletes the largest entries of step `t` (unix seconds) until its requests take at most
    /// `keep` bytes (the most recent first among equals stays). Returns what was deleted.
    pub fn shed(&mut self, t: i64, keep: u64) -> Result<Shed, StoreError> {
        let tx = self.conn.transaction()?;
        let mut shed = Shed::default();
        {
            let mut sizes = tx.prepare_cached(STEP_SIZES)?;
            let rows: Vec<(i64, u64)> = sizes
                .query_map([t], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64)))?
                .collect::<Result<_, _>>()?;
            let mut total: u64 = rows.iter().map(|r| r.1).sum();
            let mut delete = tx.prepare_cached(DELETE_ENTRY)?;
            for (id, bytes) in rows {
                if total <= keep {
                    break;
                }
                delete.execute([id])?;
                total -= bytes;
                shed.add(1, bytes);
            }
        }
        tx.commit()?;
        Ok(shed)
    }

    /// Bytes the requests of step `t` take (their JSON).
    pub fn step_bytes(&self, t: i64) -> Result<u64, StoreError> {
        let n: i64 = self.conn.query_row(STEP_BYTES, [t], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }

    /// Checkpoints and truncates the WAL when it takes more than `limit` bytes (readers in the
    /// middle of a read may keep it from being reset: then the next call tries again), and has
    /// SQLite truncate it to `limit` at each later reset.
    fn truncate_wal(&mut self, limit: u64) -> Result<(), StoreError> {
        if self.wal_limit != limit {
            self.conn
                .pragma_update(None, "journal_size_limit", sql_int(limit))?;
            self.wal_limit = limit;
        }
        if self.wal_bytes() > limit {
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(())
    }

    fn wal_bytes(&self) -> u64 {
        let mut wal = self.path.as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(wal).map_or(0, |m| m.len())
    }

    /// Bytes of the pages in use.
    fn used_bytes(&self) -> Result<u64, StoreError> {
        let pragma = |name: &str| -> Result<i64, StoreError> {
            Ok(self
                .conn
                .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))?)
        };
        let used = pragma("page_count")? - pragma("freelist_count")?;
        Ok((used.max(0) as u64) * pragma("page_size")?.max(0) as u64)
    }

    /// The oldest step stored (unix seconds), if any.
    pub fn oldest(&self) -> Result<Option<i64>, StoreError> {
        Ok(self.conn.query_row(OLDEST, [], |r| r.get(0))?)
    }

    pub fn count_rows(&self) -> Result<u64, StoreError> {
        let n: i64 = self.conn.query_row(COUNT_ROWS, [], |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }

    /// Bytes of the store's files on disk.
    pub fn bytes(&self) -> u64 {
        crate::history::store::bytes_of(&self.path)
    }
}

/// The order of an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// Newest first (by merge time).
    Time,
    /// Largest value first (request_time, memory_peak, CPU seconds).
    Value,
}

/// What a reader asks of one log.
#[derive(Clone, Debug)]
pub struct Query {
    pub kind: Kind,
    pub server_name: Option<String>,
    pub hostname: Option<String>,
    pub script_name: Option<String>,
    /// Inclusive status bounds.
    pub status: Option<(u32, u32)>,
    /// Merged at or after / at or before (unix seconds, inclusive).
    pub from_s: Option<i64>,
    pub to_s: Option<i64>,
    pub sort: Sort,
    pub limit: usize,
    /// Where the page before ended: its last entry's sort value and id.
    pub cursor: Option<(f64, i64)>,
}

impl Query {
    /// Every entry of log `kind`, newest first, `limit` a page.
    pub fn new(kind: Kind, limit: usize) -> Query {
        Query {
            kind,
            server_name: None,
            hostname: None,
            script_name: None,
            status: None,
            from_s: None,
            to_s: None,
            sort: Sort::Time,
            limit,
            cursor: None,
        }
    }

    /// The filters on a request's names: column and value.
    fn names(&self) -> [(&'static str, &Option<String>); 3] {
        [
            ("server_name", &self.server_name),
            ("hostname", &self.hostname),
            ("script_name", &self.script_name),
        ]
    }
}

/// One entry of an answer.
#[derive(Clone, Debug)]
pub struct Found {
    pub id: i64,
    pub t: i64,
    pub group: String,
    pub value: f64,
    pub time_ms: i64,
    pub request: String,
}

impl Found {
    /// Where the page's order puts it: the `cursor` of the entries after it.
    pub fn position(&self, sort: Sort) -> (f64, i64) {
        let v = match sort {
            Sort::Time => self.time_ms as f64,
            Sort::Value => self.value,
        };
        (v, self.id)
    }
}

/// A page of an answer.
#[cfg(test)]
#[derive(Clone, Debug)]
pub struct Page {
    /// Every entry the filters match (all pages).
    pub total: u64,
    pub entries: Vec<Found>,
    /// The cursor of the next page, when this one is full and more match.
    pub next_cursor: Option<(f64, i64)>,
    /// For the error log: every error request seen per status in the range (kept or not), when
    /// the filters allow telling (no status bound beyond the statuses, and a group filter only
    /// on what the logs group by).
    pub error_counts: Option<Vec<(u32, u64)>>,
}

/// What an answer says beside its entries, and the size of its largest, found without reading
/// a request: what its memory is counted at before a request is read (see [`read`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    /// Every entry the filters match (all pages).
    pub total: u64,
    /// As [`Page::error_counts`].
    pub error_counts: Option<Vec<(u32, u64)>>,
    /// Bytes of the page's largest request (0 when the page is empty).
    pub largest: u64,
}

/// The first entries of a part of a page, at most `room` bytes of requests (one at least).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    /// Entries given.
    pub taken: usize,
    /// Whether no entry of the page is left after them.
    pub end: bool,
    /// Whether they stopped before an entry that would have taken them past `room`.
    pub full: bool,
}

/// Adds `q`'s status bounds, if any, to a `WHERE` clause.
fn status_bounds(q: &Query, sql: &mut String, args: &mut Vec<SqlValue>) {
    if let Some((lo, hi)) = q.status {
        sql.push_str(" AND status BETWEEN ? AND ?");
        args.push(SqlValue::Integer(lo.into()));
        args.push(SqlValue::Integer(hi.into()));
    }
}

/// The filters' `WHERE` clause and its parameters (without the cursor).
fn filters(q: &Query) -> (String, Vec<SqlValue>) {
    let mut sql = String::from("kind = ?");
    let mut args = vec![SqlValue::Integer(q.kind.code())];
    for (column, v) in q.names() {
        if let Some(v) = v {
            sql.push_str(&format!(" AND {column} = ?"));
            args.push(SqlValue::Text(v.clone()));
        }
    }
    status_bounds(q, &mut sql, &mut args);
    if let Some(from) = q.from_s {
        sql.push_str(" AND time_ms >= ?");
        args.push(SqlValue::Integer(from.saturating_mul(1000)));
    }
    if let Some(to) = q.to_s {
        sql.push_str(" AND time_ms < ?");
        args.push(SqlValue::Integer(to.saturating_add(1).saturating_mul(1000)));
    }
    (sql, args)
}

/// `SELECT {columns}` of the entries `q` matches after `after` (an entry's
/// [`Found::position`]), in the page's order, `LIMIT` its last parameter.
fn in_order(q: &Query, columns: &str, after: Option<(f64, i64)>) -> (String, Vec<SqlValue>) {
    let (mut sql, mut args) = filters(q);
    let order = match q.sort {
        Sort::Time => "time_ms",
        Sort::Value => "value",
    };
    if let Some((v, id)) = after {
        sql.push_str(&format!(" AND ({order} < ? OR ({order} = ? AND id < ?))"));
        let v = match q.sort {
            Sort::Time => SqlValue::Integer(v as i64),
            Sort::Value => SqlValue::Real(v),
        };
        args.extend([v.clone(), v, SqlValue::Integer(id)]);
    }
    let sql =
        format!("SELECT {columns} FROM entries WHERE {sql} ORDER BY {order} DESC, id DESC LIMIT ?");
    (sql, args)
}

/// `q`'s [`Head`]: its total, its error counts and its page's largest request. `group_by` is the
/// column the logs group by (for the error counts). Reads no request: SQLite tells a value's
/// length from its record's header.
pub fn head(conn: &Connection, q: &Query, group_by: &str) -> Result<Head, StoreError> {
    let (where_sql, args) = filters(q);
    let total: i64 = conn.query_row(
        &format!("SELECT count(*) FROM entries WHERE {where_sql}"),
        params_from_iter(args.iter()),
        |r| r.get(0),
    )?;
    let (page, mut args) = in_order(q, "octet_length(request) AS n", q.cursor);
    args.push(SqlValue::Integer(sql_int(q.limit as u64)));
    let largest: i64 = conn.query_row(
        &format!("SELECT coalesce(max(n), 0) FROM ({page})"),
        params_from_iter(args.iter()),
        |r| r.get(0),
    )?;
    let error_counts = if q.kind == Kind::Errors {
        error_counts(conn, q, group_by)?
    } else {
        None
    };
    Ok(Head {
        total: total.max(0) as u64,
        error_counts,
        largest: largest.max(0) as u64,
    })
}

/// A stored request being read: its bytes are copied from the store's pages straight to where
/// they go (SQLite's incremental I/O), never held whole by SQLite.
pub struct Request<'a> {
    blob: rusqlite::blob::Blob<'a>,
}

impl Request<'_> {
    /// Its bytes.
    pub fn len(&self) -> usize {
        self.blob.len()
    }

    /// Whether it is empty (never: a request is a JSON object).
    pub fn is_empty(&self) -> bool {
        self.blob.len() == 0
    }

    /// Appends it to `out` (UTF-8 JSON, as written); `out` is left as it was when it fails.
    pub fn append_to(&mut self, out: &mut Vec<u8>) -> Result<(), StoreError> {
        let at = out.len();
        out.resize(at + self.len(), 0);
        let read = self.blob.read_at_exact(&mut out[at..], 0);
        let text = read.map_err(StoreError::from).and_then(|()| {
            std::str::from_utf8(&out[at..])
                .map(drop)
                .map_err(|e| StoreError::Refused(format!("a stored request is not UTF-8: {e}")))
        });
        if text.is_err() {
            out.truncate(at);
        }
        text
    }
}

/// Entries of `q`'s page after `after` (an entry's [`Found::position`]; `None`: the page's
/// first), at most `most` of them and of their requests at most `room` bytes (one at least),
/// given in order to `each` with their request to read ([`Request::append_to`]). Why a part at a
/// time: a page of large entries (a request log's entry may take 16 MiB) is more than an answer
/// may hold at once, so its reader takes one part a chunk, each read under one snapshot (in a
/// read transaction of its own: the writer and its checkpoints are never held up between
/// parts), each request's size looked at before it is read, and read straight into the answer.
pub fn read(
    conn: &mut Connection,
    q: &Query,
    after: Option<(f64, i64)>,
    most: usize,
    room: u64,
    mut each: impl FnMut(Found, &mut Request<'_>) -> Result<(), StoreError>,
) -> Result<Read, StoreError> {
    /// Entries listed at once (their figures, without their requests).
    const LISTED: usize = 64;
    let asked = most.min(LISTED);
    let tx = conn.transaction()?;
    let (sql, mut args) = in_order(
        q,
        "id, t, grp, value, time_ms, octet_length(request)",
        after,
    );
    args.push(SqlValue::Integer(sql_int(asked as u64)));
    let listed = {
        let mut stmt = tx.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
            Ok((
                Found {
                    id: r.get(0)?,
                    t: r.get(1)?,
                    group: r.get(2)?,
                    value: r.get(3)?,
                    time_ms: r.get(4)?,
                    request: String::new(),
                },
                r.get::<_, i64>(5)?.max(0) as u64,
            ))
        })?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    let (mut taken, mut bytes, mut full) = (0, 0u64, false);
    for (found, size) in listed.iter() {
        if taken > 0 && bytes.saturating_add(*size) > room {
            full = true;
            break;
        }
        bytes = bytes.saturating_add(*size);
        // Under the snapshot the list was made in: it is there.
        let blob = tx.blob_open(rusqlite::MAIN_DB, "entries", "request", found.id, true)?;
        each(found.clone(), &mut Request { blob })?;
        taken += 1;
    }
    Ok(Read {
        taken,
        end: taken == listed.len() && listed.len() < asked,
        full,
    })
}

/// Runs `q`: the page, and the number of all matches, read whole (the API reads a page a part at
/// a time: [`head`], then [`read`]). `group_by` is the column the logs group by.
#[cfg(test)]
pub fn run(conn: &mut Connection, q: &Query, group_by: &str) -> Result<Page, StoreError> {
    let head = head(conn, q, group_by)?;
    let mut entries: Vec<Found> = Vec::new();
    loop {
        let after = entries.last().map(|e| e.position(q.sort)).or(q.cursor);
        let most = q.limit - entries.len();
        let read = read(conn, q, after, most, 1, |mut found, request| {
            let mut bytes = Vec::new();
            request.append_to(&mut bytes)?;
            found.request = String::from_utf8(bytes).expect("checked");
            entries.push(found);
            Ok(())
        })?;
        if read.end || entries.len() == q.limit {
            break;
        }
    }
    let next_cursor = match entries.last() {
        Some(last) if entries.len() == q.limit => Some(last.position(q.sort)),
        _ => None,
    };
    Ok(Page {
        total: head.total,
        entries,
        next_cursor,
        error_counts: head.error_counts,
    })
}

/// Every error request seen per status over the steps `q`'s range touches, when its filters
/// allow telling: only a filter on the column the logs group by (its value is the group).
fn error_counts(
    conn: &Connection,
    q: &Query,
    group_by: &str,
) -> Result<Option<Vec<(u32, u64)>>, StoreError> {
    let mut sql = String::from("SELECT status, sum(count) FROM error_counts WHERE 1");
    let mut args = Vec::new();
    for (column, v) in q.names() {
        if let Some(v) = v {
            if column != group_by {
                return Ok(None);
            }
            sql.push_str(" AND grp = ?");
            args.push(SqlValue::Text(v.clone()));
        }
    }
    status_bounds(q, &mut sql, &mut args);
    if let Some(from) = q.from_s {
        sql.push_str(" AND t >= ?");
        args.push(SqlValue::Integer(from));
    }
    if let Some(to) = q.to_s {
        sql.push_str(" AND t <= ?");
        args.push(SqlValue::Integer(to));
    }
    sql.push_str(" GROUP BY status ORDER BY status");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(args.iter()), |r| {
            Ok((
                r.get::<_, i64>(0)? as u32,
                r.get::<_, i64>(1)?.max(0) as u64,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: Kind, t: i64, group: &str, value: f64, id: u64) -> Entry {
        Entry {
            kind,
            t,
            group: group.into(),
            server_name: group.into(),
            hostname: "h".into(),
            script_name: "/s".into(),
            status: if kind == Kind::Errors { 500 } else { 200 },
            value,
            time_ms: (t as u64) * 1000 + id,
            request_id: id,
            request: format!("{{\"id\":{id}}}").into(),
        }
    }

    fn query(kind: Kind) -> Query {
        Query::new(kind, 100)
    }

    /// Written twice (a restart in the middle of a step), a step keeps the top of both writes;
    /// the errors, the first ones; pages and totals agree; pruning and the byte bound delete
    /// whole steps, the oldest first.
    #[test]
    fn a_step_keeps_the_top_of_everything_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut store = Store::open(&path).unwrap();
        let first: Vec<Entry> = [1.0, 5.0, 3.0]
            .iter()
            .enumerate()
            .map(|(i, &v)| entry(Kind::Slow, 60, "a", v, i as u64))
            .collect();
        store.write(&first, &[], 2, 2).unwrap();
        let second = vec![
            entry(Kind::Slow, 60, "a", 4.0, 10),
            entry(Kind::Slow, 60, "b", 0.5, 11),
            entry(Kind::Errors, 60, "a", 0.1, 12),
            entry(Kind::Errors, 60, "a", 0.1, 13),
            entry(Kind::Errors, 60, "a", 0.1, 14),
        ];
        let w = store
            .write(&second, &[(60, "a".into(), 500, 7)], 2, 2)
            .unwrap();
        assert_eq!(
            (w.inserted, w.replaced),
            (5, 1 + 1),
            "3.0 out; error 14 out"
        );
        let mut conn = Store::open_reader(&path).unwrap();
        let mut q = query(Kind::Slow);
        q.sort = Sort::Value;
        let page = run(&mut conn, &q, "server_name").unwrap();
        let values: Vec<f64> = page.entries.iter().map(|e| e.value).collect();
        assert_eq!(values, [5.0, 4.0, 0.5]);
        assert_eq!(page.total, 3);
        let page = run(&mut conn, &query(Kind::Errors), "server_name").unwrap();
        let ids: Vec<&str> = page.entries.iter().map(|e| e.request.as_str()).collect();
        assert_eq!(ids, ["{\"id\":13}", "{\"id\":12}"]);
        assert_eq!(page.error_counts, Some(vec![(500, 7)]));
        // Paging by value: one at a time, all of them, in order.
        q.limit = 1;
        let mut seen = Vec::new();
        loop {
            let p = run(&mut conn, &q, "server_name").unwrap();
            assert_eq!(p.total, 3);
            seen.extend(p.entries.iter().map(|e| e.value));
            match p.next_cursor {
                Some(c) => q.cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, [5.0, 4.0, 0.5]);
        let mut q = query(Kind::Slow);
        q.server_name = Some("b".into());
        assert_eq!(run(&mut conn, &q, "server_name").unwrap().total, 1);

        store
            .write(&[entry(Kind::Slow, 120, "a", 9.0, 20)], &[], 2, 2)
            .unwrap();
        assert_eq!(store.prune(61).unwrap(), 5, "the step at 60 s");
        assert_eq!(store.oldest().unwrap(), Some(120));
        assert_eq!(store.count_rows().unwrap(), 1);
        assert_eq!(
            store.bound(1).unwrap().entries,
            1,
            "over any bound: every step goes"
        );
        assert_eq!(store.oldest().unwrap(), None);
    }

    /// A step's flood is shed largest first, its ordinary entries kept; over the byte bound the
    /// oldest step's largest entries go first, and the files (WAL included) end within it.
    #[test]
    fn the_largest_entries_go_first_and_the_files_stay_within_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut store = Store::open(&path).unwrap();
        let big = |t: i64, id: u64| Entry {
            request: format!("{{\"id\":{id},\"pad\":\"{}\"}}", "x".repeat(20_000)).into(),
            ..entry(Kind::Slow, t, &format!("flood{id}"), 5.0, id)
        };
        let small: Vec<Entry> = (0..20)
            .map(|i| entry(Kind::Slow, 60, &format!("g{i}"), 2.0, i))
            .collect();
        store.write(&small, &[], 10, 10).unwrap();
        let flood: Vec<Entry> = (100..130).map(|i| big(60, i)).collect();
        store.write(&flood, &[], 10, 10).unwrap();
        let before = store.step_bytes(60).unwrap();
        assert!(before > 600_000, "{before}");
        let shed = store.shed(60, 100_000).unwrap();
        assert!(shed.entries >= 25 && shed.bytes >= 500_000, "{shed:?}");
        assert!(store.step_bytes(60).unwrap() <= 100_000);
        let mut conn = Store::open_reader(&path).unwrap();
        let left = run(&mut conn, &query(Kind::Slow), "server_name").unwrap();
        assert_eq!(
            left.entries
                .iter()
                .filter(|e| e.request.len() < 100)
                .count(),
            20,
            "every small entry kept"
        );
        // Steps of floods, 60 s apart: the bound keeps the newest, the oldest step's
        // largest entries going first.
        for step in 2..40 {
            for i in 0..10 {
                let id = step as u64 * 100 + i;
                store.write(&[big(60 * step, id)], &[], 10, 10).unwrap();
                store.bound(1 << 20).unwrap();
                assert!(store.bytes() <= 1 << 20, "{} bytes on disk", store.bytes());
            }
        }
        assert_eq!(store.oldest().unwrap().map(|t| t > 60), Some(true));
        let newest = run(&mut conn, &query(Kind::Slow), "server_name").unwrap();
        assert_eq!(newest.entries[0].t, 60 * 39);
    }

    /// A damaged or empty file is set aside and a new store made; another version is not.
    #[test]
    fn a_damaged_or_empty_store_is_set_aside_and_a_new_one_made() {
        for (content, why) in [
            (vec![0x5a; 8192], "not an SQLite database"),
            (vec![], "empty"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(FILE);
            std::fs::write(&path, &content).unwrap();
            let (store, aside) = Store::open_or_set_aside(&path);
            assert!(store.is_ok());
            let aside = aside.expect("set aside");
            assert!(aside.reason.contains(why), "{}", aside.reason);
            assert_eq!(
                std::fs::read(dir.path().join("request_log.sqlite.damaged")).unwrap(),
                content
            );
        }
    }

    /// A store of another version is refused, saying which, and left in place (nothing is wrong
    /// with what it holds).
    #[test]
    fn another_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        drop(Store::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", 9)
            .unwrap();
        let e = Store::open(&path).err().expect("refused").to_string();
        assert!(e.contains("version 9"), "{e}");
        let (store, aside) = Store::open_or_set_aside(&path);
        assert!(store.is_err() && aside.is_none() && path.exists());
    }
}
