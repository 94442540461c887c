//! The history store: `{state_dir}/history.sqlite`, one SQLite file in WAL mode.
//!
//! Tables (operators can read them with the `sqlite3` shell), in 16 KiB pages:
//! - `reports`: one line per report with history: its name, the fingerprint of its definition
//!   (kind, keys, filters, step: history written under another definition is dropped at start),
//!   its step and retention, and the end of the last tick written (a tick handed over again, e.g.
//!   restored from a snapshot, is not counted twice);
//! - `steps`: one line per stored row of a step: `t` (the step's start, unix seconds), `row` (0: a
//!   row, 1: the "(other)" row, 2: the report's totals), `key` (the key values as a JSON array;
//!   "" for the other row and the totals), the integer sums, `hist` (see
//!   `step::encode_hist`), then `memory_peak_bytes` (a sum) and `memory_peak_max` (the largest
//!   memory_peak of the row's requests in the step).
//!
//! Written only by the "pinbad-history" thread (one connection); the API reads through its own
//! read-only connections, which WAL lets run beside the writer.
//!
//! The file's `PRAGMA user_version` is [`SCHEMA_VERSION`]; a file of another version (another
//! pinbad's) is refused at open, as is one whose tables lack what a statement of this one needs,
//! so that nothing fails only at the first write.
//!
//! A damaged file (no SQLite header, SQLite says it is corrupt, `quick_check` fails) or an
//! empty one (a store pinbad wrote is never 0 bytes: its first write, switching to WAL, writes
//! the header) is set aside at start ([`open_setting_aside`]) and a new store made in its
//! place, as the snapshot and the JSON state files are: history written from then on is worth
//! more than a store that stays off until someone moves the file. A file of another version, a
//! read-only one or a full disk are left as they are (the store is then off): nothing is wrong
//! with what they hold.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::step::{decode_hist, encode_hist, Part, Step, Stored};
use crate::durable::SetAside;
use crate::report::{Sum96, Sums, MAX_HISTORY_RETENTION};

/// The store's file in `state_dir`.
pub const FILE: &str = "history.sqlite";

/// `row` values of the `steps` table.
pub const ROW: i64 = 0;
pub const OTHER_ROW: i64 = 1;
pub const TOTALS_ROW: i64 = 2;

/// The schema's version, kept in the file's `PRAGMA user_version`: raised whenever the tables or
/// what their values mean change, so that a file of another version is refused at open rather
/// than misread. 1: the fingerprint holds the step. 2: `steps` has `memory_peak_bytes` and
/// `memory_peak_max`. A file of version 0 with tables is this schema before it was versioned
/// (fingerprints without the step), and one of version 1 lacks the memory_peak columns: both are
/// taken and upgraded (the steps written before hold 0 for memory_peak).
pub const SCHEMA_VERSION: i64 = 2;

/// The columns version 2 added to `steps`, as `ALTER TABLE … ADD COLUMN` takes them.
const PEAK_COLUMNS: [&str; 2] = [
    "memory_peak_bytes INTEGER NOT NULL DEFAULT 0",
    "memory_peak_max INTEGER NOT NULL DEFAULT 0",
];

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS reports (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    kind TEXT NOT NULL,
    key_columns TEXT NOT NULL,
    step_ms INTEGER NOT NULL,
    retention_ms INTEGER NOT NULL,
    written_until_ms INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS steps (
    report INTEGER NOT NULL,
    t INTEGER NOT NULL,
    row INTEGER NOT NULL,
    key TEXT NOT NULL,
    req_count INTEGER NOT NULL,
    hit_count INTEGER NOT NULL,
    time_ns INTEGER NOT NULL,
    ru_utime_ns INTEGER NOT NULL,
    ru_stime_ns INTEGER NOT NULL,
    traffic_bytes INTEGER NOT NULL,
    memory_footprint_bytes INTEGER NOT NULL,
    hist BLOB NOT NULL,
    memory_peak_bytes INTEGER NOT NULL DEFAULT 0,
    memory_peak_max INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS steps_by_time ON steps (report, t, row, key);
";

/// Pages of 16 KiB: a stored row (mostly its histogram, 1 to 4 KB) then fits its page; with 4 KiB
/// pages such rows spill into overflow pages, and the file grows to several times the data.
const PAGE_BYTES: u32 = 16384;

/// [`PART_COLUMNS`] as a literal, for the statements built with `concat!`.
macro_rules! part_columns {
    () => {
        "req_count, hit_count, time_ns, ru_utime_ns, ru_stime_ns, traffic_bytes, \
         memory_footprint_bytes, hist, memory_peak_bytes, memory_peak_max"
    };
}
/// The columns of `steps` after `key`, in order, as `read_part` reads them.
pub const PART_COLUMNS: &str = part_columns!();

// Every statement of the writer, named so that `Store::open` prepares the very same ones.
const FIND_REPORT: &str = "SELECT id, fingerprint FROM reports WHERE name = ?1";
const DELETE_STEPS_OF: &str = "DELETE FROM steps WHERE report = ?1";
const UPSERT_REPORT: &str = "INSERT INTO reports (name, fingerprint, kind, key_columns, step_ms, \
     retention_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (name) DO UPDATE SET \
     written_until_ms = CASE WHEN fingerprint = excluded.fingerprint \
     THEN written_until_ms ELSE 0 END, fingerprint = excluded.fingerprint, \
     kind = excluded.kind, key_columns = excluded.key_columns, \
     step_ms = excluded.step_ms, retention_ms = excluded.retention_ms";
const REGISTERED: &str = "SELECT id, written_until_ms FROM reports WHERE name = ?1";
const SELECT_STEP: &str = concat!(
    "SELECT row, key, ",
    part_columns!(),
    " FROM steps WHERE report = ?1 AND t = ?2"
);
const DELETE_STEP: &str = "DELETE FROM steps WHERE report = ?1 AND t = ?2";
const INSERT_ROW: &str = "INSERT INTO steps (report, t, row, key, req_count, hit_count, time_ns, \
     ru_utime_ns, ru_stime_ns, traffic_bytes, memory_footprint_bytes, hist, memory_peak_bytes, \
     memory_peak_max) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
const WRITTEN_UNTIL: &str =
    "UPDATE reports SET written_until_ms = max(written_until_ms, ?2) WHERE id = ?1";
const SET_WRITTEN_UNTIL: &str = "UPDATE reports SET written_until_ms = ?2 WHERE id = ?1";
const REPORT_NAME: &str = "SELECT name FROM reports WHERE id = ?1";
const DELETE_STEPS_NAMED: &str =
    "DELETE FROM steps WHERE report IN (SELECT id FROM reports WHERE name = ?1)";
const DELETE_REPORT: &str = "DELETE FROM reports WHERE name = ?1";
const RETENTIONS: &str = "SELECT id, retention_ms FROM reports";
const PRUNE_STEPS: &str = "DELETE FROM steps WHERE report = ?1 AND t < ?2";
const COUNT_ROWS: &str = "SELECT count(*) FROM steps";
const OLDEST: &str =
    "SELECT min((SELECT min(t) FROM steps WHERE report = reports.id)) FROM reports";
const FIND_STORED_REPORT: &str = "SELECT id, step_ms, fingerprint FROM reports WHERE name = ?1";
const NEXT_REPORT_OF_STEPS: &str = "SELECT min(report) FROM steps WHERE report > ?1";
const REPORT_EXISTS: &str = "SELECT count(*) FROM reports WHERE id = ?1";

/// Why the store failed: SQLite's error, a damaged histogram blob, or a file this version does
/// not take (another schema version, tables without a column, read-only).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{0}")]
    Damaged(String),
    /// A stored row that cannot be read back, with its key (`(other)`, `(totals)` for those).
    #[error("row {key}: {why}")]
    DamagedRow { key: String, why: String },
    #[error("{0}")]
    Refused(String),
}

/// What [`Store::write`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Change in stored rows.
    pub delta: i64,
    /// Stored steps found damaged when merged into, replaced by the new step alone (logged).
    pub damaged: u64,
}

/// `v` as SQLite's integer: values above `i64::MAX` stop there (stored counts saturate, never
/// wrap to negative, which the read path would take for 0). No count gets there: one per request.
fn sql_int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A time or byte sum (96-bit, see [`Sums`]) as SQLite stores it: an integer, exact, while it
/// fits one (`i64::MAX` ns: 292 years of request time in one row of one step); a float past
/// that (15 significant digits), as SQLite's own integer arithmetic would turn it. A step's row
/// of a long `history_step` on a busy site can pass the bound (a 30-day step of a totals row at
/// 3,600 request-seconds a second); saturating there would store a wrong figure.
fn sql_sum(v: u128) -> rusqlite::types::Value {
    match i64::try_from(v) {
        Ok(i) => rusqlite::types::Value::Integer(i),
        Err(_) => rusqlite::types::Value::Real(v as f64),
    }
}

/// A sum [`sql_sum`] stored: an integer, or a float past `i64::MAX`; a negative integer is 0 (no
/// sum is stored negative). Anything else is not a sum: the row is damaged.
fn read_sum(row: &rusqlite::Row<'_>, at: usize) -> Result<Sum96, rusqlite::Error> {
    use rusqlite::types::ValueRef;
    match row.get_ref(at)? {
        ValueRef::Integer(i) => Ok(Sum96::from(i.max(0) as u64)),
        ValueRef::Real(f) if f >= 0.0 && f.is_finite() => Ok(Sum96::saturating_from(f as u128)),
        v => Err(rusqlite::Error::InvalidColumnType(
            at,
            "a sum".to_string(),
            v.data_type(),
        )),
    }
}

/// What the writer registers a report with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportInfo {
    pub name: String,
    pub fingerprint: String,
    pub kind: String,
    pub key_columns: Vec<String>,
    pub step_ms: u64,
    pub retention_ms: u64,
}

/// A report as the store knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registered {
    pub id: i64,
    /// End (unix ms) of the last tick written.
    pub written_until_ms: u64,
    /// Whether steps written under another definition were dropped now.
    pub dropped_rows: u64,
}

/// A report's line in `reports`, for readers.
#[derive(Clone, Debug)]
pub struct StoredReport {
    pub id: i64,
    pub step_ms: u64,
    pub fingerprint: String,
}

/// The writer's connection.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating) the store in WAL mode and checks it is usable: a corrupt, read-only or
    /// unwritable file, one of another schema version, or one whose tables lack a column is an
    /// error here, not at the first write. (The caller names the file in what it reports.)
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err(StoreError::Refused(
                "the file is read-only: pinbad must be able to write it (check its owner and \
                 permissions)"
                    .into(),
            ));
        }
        // Only a new file takes it (before WAL is set and before its first table).
        conn.pragma_update(None, "page_size", PAGE_BYTES)?;
        // WAL: readers (the API) never block the writer; NORMAL sync: a power loss can lose the
        // last transactions, never corrupt the file.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let ok: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
        if ok != "ok" {
            return Err(StoreError::Damaged(format!("quick_check: {ok}")));
        }
        let tx = conn.transaction()?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let tables: i64 = tx.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN \
             ('reports', 'steps')",
            [],
            |r| r.get(0),
        )?;
        let legacy = version == 0 && tables > 0;
        if !(0..=SCHEMA_VERSION).contains(&version) {
            return Err(StoreError::Refused(format!(
                "schema version {version}, where this pinbad reads version {SCHEMA_VERSION} (the \
                 file was written by another version of pinbad): run that version, or move the \
                 file away to start a new history"
            )));
        }
        tx.execute_batch(SCHEMA)?;
        if tables > 0 && version < 2 {
            let has_peak: i64 = tx.query_row(
                "SELECT count(*) FROM pragma_table_info('steps') WHERE name = 'memory_peak_max'",
                [],
                |r| r.get(0),
            )?;
            if has_peak == 0 {
                for column in PEAK_COLUMNS {
                    tx.execute_batch(&format!("ALTER TABLE steps ADD COLUMN {column}"))?;
                }
                tracing::info!(path = %path.display(), from = version, to = SCHEMA_VERSION, "History store: schema upgraded (memory_peak columns added)");
            }
        }
        check_statements(&tx)?;
        if legacy {
            // Version 0: the fingerprint is the JSON object of kind, keys and filters; version 1
            // adds the step as its last member (what `history::fingerprint` writes), so that a
            // report's history survives the upgrade when its step did not change.
            tx.execute(
                "UPDATE reports SET fingerprint = substr(fingerprint, 1, length(fingerprint) - 1) \
                 || ',\"step_ms\":' || step_ms || '}' WHERE fingerprint LIKE '{%}'",
                [],
            )?;
            tracing::info!(path = %path.display(), from = 0, to = SCHEMA_VERSION, "History store: schema upgraded");
        }
        // Written even when unchanged: a write at open, so that a file pinbad cannot write
        // (its directory read-only, the disk full) fails here rather than at the first step.
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        let orphans = delete_orphans(&tx)?;
        tx.commit()?;
        if orphans > 0 {
            tracing::warn!(path = %path.display(), rows = orphans, "History store: steps of no report (its line in `reports` gone) deleted, so that a new report reusing the id does not take them");
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// [`Store::open`], a damaged or empty file set aside first (see the module docs): the
    /// store, or why it could not be opened even so, and the file set aside (for the status).
    pub fn open_or_set_aside(path: &Path) -> (Result<Store, StoreError>, Option<SetAside>) {
        open_setting_aside(path, Store::open, |e| match e {
            StoreError::Sqlite(e) => sqlite_damage(e),
            // At open, only `quick_check` says this.
            StoreError::Damaged(why) => Some(why.clone()),
            _ => None,
        })
    }

    /// A read-only connection for a reader (the API).
    pub fn open_reader(path: &Path) -> Result<Connection, StoreError> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(conn)
    }

    /// Registers a report (or finds it). When its definition changed since its steps were
    /// written (another fingerprint), those steps are dropped: they would not mean the same.
    pub fn register(&mut self, r: &ReportInfo) -> Result<Registered, StoreError> {
        let tx = self.conn.transaction()?;
        let found: Option<(i64, String)> = tx
            .query_row(FIND_REPORT, [&r.name], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let dropped_rows = match &found {
            Some((id, fp)) if *fp != r.fingerprint => tx.execute(DELETE_STEPS_OF, [id])? as u64,
            _ => 0,
        };
        tx.execute(
            UPSERT_REPORT,
            params![
                r.name,
                r.fingerprint,
                r.kind,
                serde_json::to_string(&r.key_columns).unwrap_or_default(),
                sql_int(r.step_ms),
                sql_int(r.retention_ms)
            ],
        )?;
        let (id, until): (i64, i64) =
            tx.query_row(REGISTERED, [&r.name], |row| Ok((row.get(0)?, row.get(1)?)))?;
        tx.commit()?;
        Ok(Registered {
            id,
            written_until_ms: until.max(0) as u64,
            dropped_rows,
        })
    }

    /// Sets where a report's written ticks end (the writer's clock went back: see
    /// `Writer::track`).
    pub fn set_written_until(&mut self, id: i64, until_ms: u64) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(SET_WRITTEN_UNTIL)?
            .execute(params![id, sql_int(until_ms)])?;
        Ok(())
    }

    /// Writes steps in one transaction: `(report id, step start in unix seconds, the step, rows
    /// to keep)`. A step already stored (written again after a restart, or completed by a late
    /// tick) is merged: its stored rows are read back and added, the top chosen again over the
    /// sum. A stored step that cannot be read back (damaged) is replaced by the new step alone,
    /// logged and counted in what this returns, so that one damaged step never costs the rest
    /// of the batch (every report's steps of the pass, already out of the writer's memory).
    pub fn write(&mut self, steps: Vec<(i64, i64, Step, usize)>) -> Result<Written, StoreError> {
        let tx = self.conn.transaction()?;
        let mut written = Written::default();
        {
            let mut select = tx.prepare_cached(SELECT_STEP)?;
            let mut delete = tx.prepare_cached(DELETE_STEP)?;
            let mut insert = tx.prepare_cached(INSERT_ROW)?;
            let mut until = tx.prepare_cached(WRITTEN_UNTIL)?;
            let mut blob = Vec::new();
            for (report, t, mut step, keep) in steps {
                let ticks_end_ms = step.ticks_end_ms;
                let existing = match read_stored(&mut select, report, t) {
                    Ok(Some(existing)) => Some(existing),
                    Ok(None) => None,
                    Err(StoreError::DamagedRow { key, why }) => {
                        let name: String = tx
                            .query_row(REPORT_NAME, [report], |r| r.get(0))
                            .unwrap_or_else(|_| format!("#{report}"));
                        tracing::warn!(report = %name, t, row = %key, error = %why, "History store: a stored step is damaged: replaced by the new step alone (what it held is lost)");
                        written.damaged += 1;
                        Some(Stored::default())
                    }
                    Err(e) => return Err(e),
                };
                if let Some(existing) = existing {
                    written.delta -= delete.execute(params![report, t])? as i64;
                    step.add_stored(existing);
                }
                let stored = step.finish(keep);
                let mut put = |row: i64, key: &str, p: &Part| -> Result<(), StoreError> {
                    blob.clear();
                    encode_hist(&p.hist, &mut blob);
                    let s = &p.sums;
                    insert.execute(params![
                        report,
                        t,
                        row,
                        key,
                        sql_int(s.req_count),
                        sql_int(s.hit_count),
                        sql_sum(s.time_ns.get()),
                        sql_sum(s.ru_utime_ns.get()),
                        sql_sum(s.ru_stime_ns.get()),
                        sql_sum(s.traffic_bytes.get()),
                        sql_sum(s.memory_footprint_bytes.get()),
                        &blob,
                        sql_sum(s.memory_peak_bytes.get()),
                        i64::from(s.memory_peak_max),
                    ])?;
                    Ok(())
                };
                for (key, p) in &stored.rows {
                    put(ROW, &serde_json::to_string(key).unwrap_or_default(), p)?;
                }
                if let Some(o) = &stored.other {
                    put(OTHER_ROW, "", o)?;
                }
                put(TOTALS_ROW, "", &stored.totals)?;
                written.delta += (stored.rows.len() + 1 + stored.other.is_some() as usize) as i64;
                until.execute(params![report, sql_int(ticks_end_ms)])?;
            }
        }
        tx.commit()?;
        Ok(written)
    }

    /// Deletes a report's history (dropped through the API); returns the rows deleted.
    pub fn delete_report(&mut self, name: &str) -> Result<u64, StoreError> {
        let tx = self.conn.transaction()?;
        let n = tx.execute(DELETE_STEPS_NAMED, [name])?;
        tx.execute(DELETE_REPORT, [name])?;
        tx.commit()?;
        Ok(n as u64)
    }

    /// Deletes the steps older than each report's retention at `now_ms`; returns the rows
    /// deleted. One indexed range delete per report. The retention is read from the file: one
    /// outside what a definition may set (1 minute to `MAX_HISTORY_RETENTION`: a damaged or
    /// hand-edited line) is taken as the nearest bound, never as a negative that would put the
    /// cut in the future and delete everything.
    pub fn prune(&mut self, now_ms: u64) -> Result<u64, StoreError> {
        let tx = self.conn.transaction()?;
        let reports: Vec<(i64, i64)> = {
            let mut q = tx.prepare(RETENTIONS)?;
            let rows = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let now_ms = sql_int(now_ms);
        let mut n = 0;
        for (id, retention_ms) in reports {
            let retention_ms = retention_ms.clamp(60_000, MAX_HISTORY_RETENTION.as_millis() as i64);
            let before_s = now_ms.saturating_sub(retention_ms) / 1000;
            n += tx.execute(PRUNE_STEPS, params![id, before_s])? as u64;
        }
        tx.commit()?;
        Ok(n)
    }

    /// Stored rows (one count at start; the writer keeps it up to date from there).
    pub fn count_rows(&self) -> Result<u64, StoreError> {
        let n: i64 = self.conn.query_row(COUNT_ROWS, [], |r| r.get(0))?;
        Ok(n as u64)
    }

    /// The oldest step stored (unix seconds): one index probe per report.
    pub fn oldest(&self) -> Result<Option<i64>, StoreError> {
        Ok(self.conn.query_row(OLDEST, [], |r| r.get(0))?)
    }

    /// Bytes the store takes on disk (the file, its WAL and shared-memory index).
    pub fn bytes(&self) -> u64 {
        bytes_of(&self.path)
    }
}

/// Opens the SQLite store at `path` with `open`; when the file is empty, or `open` fails with
/// what `damage` says is damage (its reason), sets the file aside (with its `-wal` and `-shm`,
/// see [`set_aside_store`]) and opens a new store in its place. Both stores use it
/// (`reqlog::store` too).
pub fn open_setting_aside<S, E>(
    path: &Path,
    open: impl Fn(&Path) -> Result<S, E>,
    damage: impl Fn(&E) -> Option<String>,
) -> (Result<S, E>, Option<SetAside>) {
    let why = if let Some(why) = bad_header(path) {
        why
    } else {
        match open(path) {
            Err(e) => match damage(&e) {
                Some(why) => why,
                None => return (Err(e), None),
            },
            opened => return (opened, None),
        }
    };
    let aside = set_aside_store(path, &why);
    (open(path), Some(aside))
}

/// What every SQLite database file starts with.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Why the regular file `path` is no SQLite database, told by its first bytes (none, or not
/// [`SQLITE_MAGIC`]), if it is not. Told before SQLite opens it: SQLite would delete the `-wal`
/// beside a file it cannot read as it closes it, and that may hold what is left of the store.
fn bad_header(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.len() == 0 {
        return Some("empty (0 bytes): a store pinbad wrote never is".to_string());
    }
    let mut head = [0u8; 16];
    let mut file = std::fs::File::open(path).ok()?;
    let read = file.read(&mut head).ok()?;
    (read < head.len() || &head != SQLITE_MAGIC)
        .then(|| "not an SQLite database (its first bytes are not SQLite's header)".to_string())
}

/// Sets the damaged store `path` aside as `NAME.damaged` ([`crate::durable::set_aside`]) and
/// its `-wal` and `-shm` as `NAME.damaged-wal` and `NAME.damaged-shm`, where `sqlite3
/// NAME.damaged` finds them: left in place, SQLite would replay the old WAL into the new store.
fn set_aside_store(path: &Path, why: &str) -> SetAside {
    let aside = crate::durable::set_aside(path, why, "a new, empty store is made in its place");
    if let Some(moved) = &aside.moved_to {
        for suffix in ["-wal", "-shm"] {
            let mut from = path.as_os_str().to_owned();
            from.push(suffix);
            let mut to = moved.as_os_str().to_owned();
            to.push(suffix);
            match std::fs::rename(&from, &to) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    // None beside it; an older one of the same name goes too (it belongs to
                    // the file set aside before).
                    let _ = std::fs::remove_file(&to);
                }
                Err(e) => {
                    let _ = std::fs::remove_file(&from);
                    tracing::warn!(
                        path = ?from,
                        error = %e,
                        "Cannot move a damaged store's companion file aside: removed"
                    );
                }
            }
        }
    }
    aside
}

/// Why SQLite's error says the file is damaged (not a database, or corrupt), if it does.
pub fn sqlite_damage(e: &rusqlite::Error) -> Option<String> {
    match e {
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(
                f.code,
                rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
            ) =>
        {
            Some(e.to_string())
        }
        _ => None,
    }
}

/// Bytes of a store's files on disk.
pub fn bytes_of(path: &Path) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            std::fs::metadata(p).map_or(0, |m| m.len())
        })
        .sum()
}

/// A report's line in `reports`, if it has one.
pub fn find_report(conn: &Connection, name: &str) -> Result<Option<StoredReport>, StoreError> {
    Ok(conn
        .query_row(FIND_STORED_REPORT, [name], |r| {
            Ok(StoredReport {
                id: r.get(0)?,
                step_ms: r.get::<_, i64>(1)?.max(1) as u64,
                fingerprint: r.get(2)?,
            })
        })
        .optional()?)
}

/// Reads `PART_COLUMNS` from `row` starting at column `at`; the histogram only when `hist`.
pub fn read_part(row: &rusqlite::Row<'_>, at: usize, hist: bool) -> Result<Part, StoreError> {
    let n =
        |i: usize| -> Result<u64, rusqlite::Error> { Ok(row.get::<_, i64>(at + i)?.max(0) as u64) };
    let sums = Sums {
        req_count: n(0)?,
        hit_count: n(1)?,
        time_ns: read_sum(row, at + 2)?,
        ru_utime_ns: read_sum(row, at + 3)?,
        ru_stime_ns: read_sum(row, at + 4)?,
        traffic_bytes: read_sum(row, at + 5)?,
        memory_footprint_bytes: read_sum(row, at + 6)?,
        memory_peak_bytes: read_sum(row, at + 8)?,
        memory_peak_max: u32::try_from(n(9)?).unwrap_or(u32::MAX),
    };
    let hist = if hist {
        let blob = row
            .get_ref(at + 7)?
            .as_blob()
            .map_err(rusqlite::Error::from)?;
        decode_hist(blob).map_err(StoreError::Damaged)?
    } else {
        Default::default()
    };
    Ok(Part { sums, hist })
}

/// A step as stored, if it is. A row that cannot be read back is a [`StoreError::DamagedRow`]
/// naming its key.
fn read_stored(
    select: &mut rusqlite::CachedStatement<'_>,
    report: i64,
    t: i64,
) -> Result<Option<Stored>, StoreError> {
    let mut rows = select.query(params![report, t])?;
    let mut out: Option<Stored> = None;
    while let Some(row) = rows.next()? {
        let s = out.get_or_insert_with(Stored::default);
        let unreadable = |e: rusqlite::Error| {
            if is_type_error(&e) {
                StoreError::DamagedRow {
                    key: "(unreadable)".into(),
                    why: e.to_string(),
                }
            } else {
                e.into()
            }
        };
        let kind: i64 = row.get(0).map_err(unreadable)?;
        let key: String = match kind {
            ROW => row.get(1).map_err(unreadable)?,
            OTHER_ROW => "(other)".into(),
            _ => "(totals)".into(),
        };
        let damaged = |why: String| StoreError::DamagedRow {
            key: key.clone(),
            why,
        };
        let part = read_part(row, 2, true).map_err(|e| e.damaged_row_why().map_or(e, &damaged))?;
        match kind {
            ROW => {
                let values: Vec<String> = serde_json::from_str(&key)
                    .map_err(|e| damaged(format!("key is not a JSON array of strings: {e}")))?;
                s.rows.push((values.into_boxed_slice(), part));
            }
            OTHER_ROW => s.other = Some(part),
            _ => s.totals = part,
        }
    }
    Ok(out)
}

impl StoreError {
    /// Why a row could not be read back, when that is what this error says (a histogram blob
    /// that does not decode, a value of the wrong type), not a failure of the store itself.
    pub fn damaged_row_why(&self) -> Option<String> {
        match self {
            StoreError::Damaged(why) => Some(why.clone()),
            StoreError::Sqlite(e) if is_type_error(e) => Some(e.to_string()),
            _ => None,
        }
    }
}

/// Whether SQLite's error is a value of the wrong type (a damaged or hand-edited row), not a
/// failure of the store itself.
fn is_type_error(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::IntegralValueOutOfRange(..)
    )
}

/// Prepares every statement the writer and the readers use: a table or column missing (a file
/// of an older pinbad, or hand-edited) fails here, at open, naming what is missing.
fn check_statements(conn: &Connection) -> Result<(), StoreError> {
    let writer = [
        FIND_REPORT,
        DELETE_STEPS_OF,
        UPSERT_REPORT,
        REGISTERED,
        SELECT_STEP,
        DELETE_STEP,
        INSERT_ROW,
        WRITTEN_UNTIL,
        SET_WRITTEN_UNTIL,
        REPORT_NAME,
        DELETE_STEPS_NAMED,
        DELETE_REPORT,
        RETENTIONS,
        PRUNE_STEPS,
        COUNT_ROWS,
        OLDEST,
        FIND_STORED_REPORT,
        NEXT_REPORT_OF_STEPS,
        REPORT_EXISTS,
    ];
    let readers = super::query::statements();
    for sql in writer.into_iter().chain(readers.iter().map(String::as_str)) {
        conn.prepare(sql).map_err(|e| {
            StoreError::Refused(format!(
                "its tables are not those this pinbad writes ({e}): written by another version \
                 of pinbad? Move the file away to start a new history"
            ))
        })?;
    }
    Ok(())
}

/// Deletes the steps whose report has no line in `reports` (deleted by hand, or its table
/// dropped and created again): a new report would take the id (an `INTEGER PRIMARY KEY` reuses
/// the highest freed one) and with it steps that are not its own. One index probe per report
/// id in `steps`. Returns the rows deleted.
fn delete_orphans(conn: &Connection) -> Result<u64, StoreError> {
    let mut next = conn.prepare(NEXT_REPORT_OF_STEPS)?;
    let mut exists = conn.prepare(REPORT_EXISTS)?;
    let mut delete = conn.prepare(DELETE_STEPS_OF)?;
    let (mut after, mut n) = (i64::MIN, 0u64);
    while let Some(id) = next.query_row([after], |r| r.get::<_, Option<i64>>(0))? {
        if exists.query_row([id], |r| r.get::<_, i64>(0))? == 0 {
            n += delete.execute([id])? as u64;
        }
        after = id;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::Histogram;

    fn info(name: &str, fingerprint: &str) -> ReportInfo {
        ReportInfo {
            name: name.into(),
            fingerprint: fingerprint.into(),
            kind: "request".into(),
            key_columns: vec!["script_name".into()],
            step_ms: 60_000,
            retention_ms: 3_600_000,
        }
    }

    fn step(rows: &[(&str, u64)]) -> Step {
        let mut s = Step::default();
        for &(k, n) in rows {
            let sums = Sums {
                req_count: n,
                time_ns: (n * 1_000_000).into(),
                ..Sums::default()
            };
            let mut h = Histogram::new();
            h.add(1_000_000, n);
            s.add_row(vec![k.to_string()].into_boxed_slice(), &sums, &h);
            s.add_totals(&sums, &h);
        }
        s.ticks_end_ms = 1_000;
        s
    }

    fn totals(conn: &Connection, report: i64, t: i64) -> (u64, u64) {
        conn.query_row(
            "SELECT req_count, (SELECT count(*) FROM steps WHERE report = ?1 AND t = ?2) \
             FROM steps WHERE report = ?1 AND t = ?2 AND row = 2",
            params![report, t],
            |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
        )
        .unwrap()
    }

    /// A step written twice is merged (sums add, one set of rows), never duplicated; the top is
    /// chosen again over the sum.
    #[test]
    fn rewritten_step_is_merged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut store = Store::open(&path).unwrap();
        let id = store.register(&info("r", "a")).unwrap().id;
        assert_eq!(
            store
                .write(vec![(id, 60, step(&[("/a", 1), ("/b", 2)]), 1)])
                .unwrap(),
            Written {
                delta: 3,
                damaged: 0
            }
        );
        assert_eq!(
            store
                .write(vec![(id, 60, step(&[("/a", 5)]), 1)])
                .unwrap()
                .delta,
            0
        );
        let conn = Store::open_reader(&path).unwrap();
        assert_eq!(
            totals(&conn, id, 60),
            (8, 3),
            "totals 1+2+5, rows: /a, other, totals"
        );
        let top: String = conn
            .query_row("SELECT key FROM steps WHERE row = 0", [], |r| r.get(0))
            .unwrap();
        assert_eq!(top, r#"["/a"]"#);
        let other: i64 = conn
            .query_row("SELECT req_count FROM steps WHERE row = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(other, 1 + 2, "/a's first request, then /b");
        assert_eq!(store.count_rows().unwrap(), 3);
        let reg = store.register(&info("r", "a")).unwrap();
        assert_eq!(reg.written_until_ms, 1_000);
    }

    /// Steps older than the retention go; a changed definition drops the report's steps; a
    /// dropped report's history goes.
    #[test]
    fn prune_fingerprint_and_delete() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join(FILE)).unwrap();
        let a = store.register(&info("a", "x")).unwrap().id;
        let b = store.register(&info("b", "x")).unwrap().id;
        for t in [0i64, 3600, 7200] {
            store
                .write(vec![
                    (a, t, step(&[("/a", 1)]), 10),
                    (b, t, step(&[("/b", 1)]), 10),
                ])
                .unwrap();
        }
        assert_eq!(store.oldest().unwrap(), Some(0));
        // Retention 1 h at 7200 s + 1 ms: the steps at 0 go, those at 3600 stay.
        assert_eq!(store.prune(7_200_001).unwrap(), 4);
        assert_eq!(store.oldest().unwrap(), Some(3600));
        assert_eq!(store.count_rows().unwrap(), 8);
        let reg = store.register(&info("a", "changed")).unwrap();
        assert_eq!((reg.id, reg.dropped_rows, reg.written_until_ms), (a, 4, 0));
        assert_eq!(store.delete_report("b").unwrap(), 4);
        assert_eq!(store.count_rows().unwrap(), 0);
        assert_eq!(store.oldest().unwrap(), None);
        assert!(store.bytes() > 0);
    }

    #[test]
    fn a_damaged_file_is_an_error_not_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        std::fs::write(&path, vec![0x5a; 8192]).unwrap();
        assert!(Store::open(&path).is_err());
    }

    /// A damaged or empty file is set aside with its WAL, and a new store made in its place;
    /// a store that opens, or one refused for another reason (another version), is left as it is.
    #[test]
    fn a_damaged_or_empty_store_is_set_aside_and_a_new_one_made() {
        // A store whose header is right and whose pages are not: SQLite finds it corrupt.
        let corrupt = {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(FILE);
            let mut store = Store::open(&path).unwrap();
            store.register(&info("a", "fa")).unwrap();
            drop(store);
            let mut bytes = std::fs::read(&path).unwrap();
            assert!(bytes.len() >= 2 * PAGE_BYTES as usize);
            bytes[100..2 * PAGE_BYTES as usize].fill(0x5a);
            bytes
        };
        for (content, why) in [
            (vec![0x5a; 8192], "not an SQLite database"),
            (vec![], "empty"),
            (b"SQLite".to_vec(), "not an SQLite database"),
            (corrupt, "malformed"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(FILE);
            std::fs::write(&path, &content).unwrap();
            std::fs::write(dir.path().join("history.sqlite-wal"), b"old wal").unwrap();
            let (store, aside) = Store::open_or_set_aside(&path);
            let mut store = store.unwrap();
            let aside = aside.expect("set aside");
            assert!(aside.reason.contains(why), "{}", aside.reason);
            let moved = dir.path().join("history.sqlite.damaged");
            assert_eq!(aside.moved_to.as_deref(), Some(moved.as_path()));
            assert_eq!(std::fs::read(&moved).unwrap(), content);
            // Kept beside the file set aside when its header told (SQLite, once it has
            // opened a file, deletes a WAL it cannot use as it closes it); never left to the
            // new store.
            if why != "malformed" {
                assert_eq!(
                    std::fs::read(dir.path().join("history.sqlite.damaged-wal")).unwrap(),
                    b"old wal"
                );
            }
            assert_ne!(
                std::fs::read(dir.path().join("history.sqlite-wal")).unwrap_or_default(),
                b"old wal"
            );
            store.register(&info("a", "fa")).unwrap();
            assert!(std::fs::metadata(&path).unwrap().len() > 0);
            drop(store);
            // Opened again: nothing to set aside.
            let (store, aside) = Store::open_or_set_aside(&path);
            assert!(store.is_ok() && aside.is_none());
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        drop(Store::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", 99)
            .unwrap();
        let (store, aside) = Store::open_or_set_aside(&path);
        assert!(store.is_err() && aside.is_none() && path.exists());
    }

    /// A store in a new file (in the directory returned) with reports "a" and "b" registered:
    /// its path, the store and the two ids.
    fn two_reports() -> (tempfile::TempDir, PathBuf, Store, i64, i64) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut store = Store::open(&path).unwrap();
        let a = store.register(&info("a", "x")).unwrap().id;
        let b = store.register(&info("b", "x")).unwrap().id;
        (dir, path, store, a, b)
    }

    /// A read-write connection beside the store's, as an operator's `sqlite3` shell.
    fn by_hand(path: &Path) -> Connection {
        Connection::open(path).unwrap()
    }

    /// A stored step that cannot be read back is replaced by the new step alone (counted), and
    /// the rest of the batch, another report's step, is written with it.
    #[test]
    fn a_damaged_stored_step_is_replaced_and_the_batch_written() {
        let (_dir, path, mut store, a, b) = two_reports();
        store
            .write(vec![(a, 60, step(&[("/a", 7), ("/b", 1)]), 10)])
            .unwrap();
        let n = by_hand(&path)
            .execute(
                "UPDATE steps SET hist = x'09' WHERE report = ?1 AND row = 0 AND key = '[\"/b\"]'",
                [a],
            )
            .unwrap();
        assert_eq!(n, 1);
        let written = store
            .write(vec![
                (a, 60, step(&[("/a", 2)]), 10),
                (b, 120, step(&[("/c", 4)]), 10),
            ])
            .unwrap();
        assert_eq!(
            written,
            Written {
                delta: 2 - 3 + 2,
                damaged: 1
            }
        );
        let conn = Store::open_reader(&path).unwrap();
        assert_eq!(totals(&conn, b, 120), (4, 2), "the other report's step");
        assert_eq!(
            totals(&conn, a, 60),
            (2, 2),
            "the new step alone: /a, totals"
        );
        assert_eq!(store.count_rows().unwrap(), 4);
    }

    /// A file of another schema version, or whose tables lack a column, is refused at open
    /// (saying which), not at the first write.
    #[test]
    fn another_version_or_a_missing_column_is_refused_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        drop(Store::open(&path).unwrap());
        let version = |path: &Path| -> i64 {
            by_hand(path)
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(version(&path), SCHEMA_VERSION);
        by_hand(&path)
            .pragma_update(None, "user_version", 7)
            .unwrap();
        let e = Store::open(&path).err().expect("version 7 refused");
        assert!(matches!(e, StoreError::Refused(_)), "{e}");
        let why = e.to_string();
        assert!(
            why.contains("version 7") && why.contains("version 2"),
            "{why}"
        );

        // An older file (version 0) whose `steps` lacks a column.
        let path = dir.path().join("old.sqlite");
        by_hand(&path)
            .execute_batch(
                "CREATE TABLE steps (report INTEGER NOT NULL, t INTEGER NOT NULL, \
                 row INTEGER NOT NULL, key TEXT NOT NULL, req_count INTEGER NOT NULL, \
                 hit_count INTEGER NOT NULL, time_ns INTEGER NOT NULL, \
                 ru_utime_ns INTEGER NOT NULL, ru_stime_ns INTEGER NOT NULL, \
                 traffic_bytes INTEGER NOT NULL, hist BLOB NOT NULL)",
            )
            .unwrap();
        let e = Store::open(&path).err().expect("a missing column refused");
        let why = e.to_string();
        assert!(why.contains("memory_footprint_bytes"), "{why}");
        assert_eq!(version(&path), 0, "nothing changed in a refused file");
    }

    /// A file of before the schema was versioned (0, with tables) is taken: its fingerprints get
    /// the step, its version is set.
    #[test]
    fn an_unversioned_file_is_upgraded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut store = Store::open(&path).unwrap();
        let id = store
            .register(&info("r", r#"{"kind":"request"}"#))
            .unwrap()
            .id;
        store.write(vec![(id, 60, step(&[("/a", 1)]), 10)]).unwrap();
        drop(store);
        by_hand(&path)
            .pragma_update(None, "user_version", 0)
            .unwrap();
        let store = Store::open(&path).unwrap();
        let conn = Store::open_reader(&path).unwrap();
        let found = find_report(&conn, "r").unwrap().unwrap();
        assert_eq!(found.fingerprint, r#"{"kind":"request","step_ms":60000}"#);
        assert_eq!(store.count_rows().unwrap(), 2, "its steps kept");
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }

    /// A file of schema version 1 (no memory_peak columns) is taken: the columns are added, its
    /// steps kept (memory_peak 0), and new steps keep their memory_peak sum and largest.
    #[test]
    fn a_version_1_file_gets_the_memory_peak_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut store = Store::open(&path).unwrap();
        let id = store.register(&info("r", "x")).unwrap().id;
        store.write(vec![(id, 60, step(&[("/a", 1)]), 10)]).unwrap();
        drop(store);
        by_hand(&path)
            .execute_batch(
                "ALTER TABLE steps DROP COLUMN memory_peak_max; \
                 ALTER TABLE steps DROP COLUMN memory_peak_bytes; PRAGMA user_version = 1;",
            )
            .unwrap();
        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.count_rows().unwrap(), 2, "its steps kept");
        let mut peak = step(&[("/a", 2)]);
        let sums = Sums {
            req_count: 2,
            memory_peak_bytes: Sum96::from(5 << 20),
            memory_peak_max: 3 << 20,
            ..Sums::default()
        };
        peak.add_row(
            vec!["/b".to_string()].into_boxed_slice(),
            &sums,
            &Histogram::new(),
        );
        store.write(vec![(id, 120, peak, 10)]).unwrap();
        let conn = Store::open_reader(&path).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let read = |t: i64, key: &str| -> Sums {
            conn.query_row(
                &format!("SELECT {PART_COLUMNS} FROM steps WHERE t = ?1 AND key = ?2"),
                params![t, key],
                |row| Ok(read_part(row, 0, false).unwrap().sums),
            )
            .unwrap()
        };
        let old = read(60, r#"["/a"]"#);
        assert_eq!((old.memory_peak_bytes.get(), old.memory_peak_max), (0, 0));
        let new = read(120, r#"["/b"]"#);
        assert_eq!(
            (new.memory_peak_bytes.get(), new.memory_peak_max),
            (5 << 20, 3 << 20)
        );
    }

    /// Steps whose report's line is gone are deleted at open: a new report taking the id would
    /// otherwise show them as its own.
    #[test]
    fn steps_of_no_report_are_deleted_at_open() {
        let (_dir, path, mut store, a, b) = two_reports();
        store
            .write(vec![
                (a, 60, step(&[("/a", 1)]), 10),
                (b, 60, step(&[("/b", 1)]), 10),
            ])
            .unwrap();
        drop(store);
        by_hand(&path)
            .execute("DELETE FROM reports WHERE id = ?1", [b])
            .unwrap();
        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.count_rows().unwrap(), 2, "a's steps only");
        let c = store.register(&info("c", "x")).unwrap().id;
        assert_eq!(c, b, "the id is reused");
        let conn = Store::open_reader(&path).unwrap();
        let of_c: i64 = conn
            .query_row("SELECT count(*) FROM steps WHERE report = ?1", [c], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(of_c, 0);
    }

    /// A retention read from the file outside what a definition may set is taken as the nearest
    /// bound: a negative one no longer deletes every step, a huge one nothing, and neither
    /// overflows.
    #[test]
    fn prune_clamps_the_stored_retention() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let mut store = Store::open(&path).unwrap();
        let a = store.register(&info("a", "x")).unwrap().id;
        let b = store.register(&info("b", "x")).unwrap().id;
        for t in [0i64, 7_170] {
            store
                .write(vec![
                    (a, t, step(&[("/a", 1)]), 10),
                    (b, t, step(&[("/b", 1)]), 10),
                ])
                .unwrap();
        }
        let set = |id: i64, retention: i64| {
            by_hand(&path)
                .execute(
                    "UPDATE reports SET retention_ms = ?2 WHERE id = ?1",
                    [id, retention],
                )
                .unwrap();
        };
        set(a, -5);
        set(b, i64::MIN);
        // At 7200 s: the step of 30 s ago stays (a minute's retention at least), the old ones go.
        assert_eq!(store.prune(7_200_000).unwrap(), 4);
        assert_eq!(store.count_rows().unwrap(), 4);
        set(a, i64::MAX);
        set(b, i64::MAX);
        assert_eq!(store.prune(7_200_000).unwrap(), 0);
        assert_eq!(
            store.prune(u64::MAX).unwrap(),
            4,
            "ten years at most, and no overflow at the end of time"
        );
    }
}
