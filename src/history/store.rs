//! The history store: `{state_dir}/history.sqlite`, one SQLite file in WAL mode.
//!
//! Tables (operators can read them with the `sqlite3` shell), in 16 KiB pages:
//! - `reports`: one line per report with history: its name, the fingerprint of its definition
//!   (kind, keys, filters: history written under another definition is dropped at start), its
//!   step and retention, and the end of the last tick written (a tick handed over again, e.g.
//!   restored from a snapshot, is not counted twice);
//! - `steps`: one line per stored row of a step: `t` (the step's start, unix seconds), `row` (0: a
//!   row, 1: the "(other)" row, 2: the report's totals), `key` (the key values as a JSON array;
//!   "" for the other row and the totals), the integer sums, and `hist` (see
//!   `step::encode_hist`).
//!
//! Written only by the "pinbad-history" thread (one connection); the API reads through its own
//! read-only connections, which WAL lets run beside the writer.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::step::{decode_hist, encode_hist, Part, Step, Stored};
use crate::report::Sums;

/// The store's file in `state_dir`.
pub const FILE: &str = "history.sqlite";

/// `row` values of the `steps` table.
pub const ROW: i64 = 0;
pub const OTHER_ROW: i64 = 1;
pub const TOTALS_ROW: i64 = 2;

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
    hist BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS steps_by_time ON steps (report, t, row, key);
";

/// Pages of 16 KiB: a stored row (mostly its histogram, 1 to 4 KB) then fits its page; with 4 KiB
/// pages such rows spilled into overflow pages and the file was 2.5 times the data.
const PAGE_BYTES: u32 = 16384;

/// The columns of `steps` after `key`, in order, as `read_part` reads them.
pub const PART_COLUMNS: &str = "req_count, hit_count, time_ns, ru_utime_ns, ru_stime_ns, \
                                traffic_bytes, memory_footprint_bytes, hist";

/// Why the store failed: SQLite's error, or a damaged histogram blob.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{0}")]
    Damaged(String),
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
    /// Opens (creating) the store in WAL mode and checks it is usable: a corrupt or unwritable
    /// file is an error here, not at the first write.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Only a new file takes it (before WAL is set and before its first table).
        conn.pragma_update(None, "page_size", PAGE_BYTES)?;
        // WAL: readers (the API) never block the writer; NORMAL sync: a power loss can lose the
        // last transactions, never corrupt the file.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(SCHEMA)?;
        let ok: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
        if ok != "ok" {
            return Err(StoreError::Damaged(format!("quick_check: {ok}")));
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
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
            .query_row(
                "SELECT id, fingerprint FROM reports WHERE name = ?1",
                [&r.name],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        let dropped_rows = match &found {
            Some((id, fp)) if *fp != r.fingerprint => {
                tx.execute("DELETE FROM steps WHERE report = ?1", [id])? as u64
            }
            _ => 0,
        };
        tx.execute(
            "INSERT INTO reports (name, fingerprint, kind, key_columns, step_ms, retention_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (name) DO UPDATE SET \
             written_until_ms = CASE WHEN fingerprint = excluded.fingerprint \
             THEN written_until_ms ELSE 0 END, fingerprint = excluded.fingerprint, \
             kind = excluded.kind, key_columns = excluded.key_columns, \
             step_ms = excluded.step_ms, retention_ms = excluded.retention_ms",
            params![
                r.name,
                r.fingerprint,
                r.kind,
                serde_json::to_string(&r.key_columns).unwrap_or_default(),
                r.step_ms as i64,
                r.retention_ms as i64
            ],
        )?;
        let (id, until): (i64, i64) = tx.query_row(
            "SELECT id, written_until_ms FROM reports WHERE name = ?1",
            [&r.name],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        tx.commit()?;
        Ok(Registered {
            id,
            written_until_ms: until.max(0) as u64,
            dropped_rows,
        })
    }

    /// Writes steps in one transaction: `(report id, step start in unix seconds, the step, rows
    /// to keep)`. A step already stored (written again after a restart, or completed by a late
    /// tick) is merged: its stored rows are read back and added, the top chosen again over the
    /// sum. Returns the change in stored rows.
    pub fn write(&mut self, steps: Vec<(i64, i64, Step, usize)>) -> Result<i64, StoreError> {
        let tx = self.conn.transaction()?;
        let mut delta = 0i64;
        {
            let mut select = tx.prepare_cached(&format!(
                "SELECT row, key, {PART_COLUMNS} FROM steps WHERE report = ?1 AND t = ?2"
            ))?;
            let mut delete = tx.prepare_cached("DELETE FROM steps WHERE report = ?1 AND t = ?2")?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO steps (report, t, row, key, req_count, hit_count, time_ns, \
                 ru_utime_ns, ru_stime_ns, traffic_bytes, memory_footprint_bytes, hist) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            let mut until = tx.prepare_cached(
                "UPDATE reports SET written_until_ms = max(written_until_ms, ?2) WHERE id = ?1",
            )?;
            let mut blob = Vec::new();
            for (report, t, mut step, keep) in steps {
                let ticks_end_ms = step.ticks_end_ms;
                let existing = read_stored(&mut select, report, t)?;
                if let Some(existing) = existing {
                    delta -= delete.execute(params![report, t])? as i64;
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
                        s.req_count as i64,
                        s.hit_count as i64,
                        s.time_ns as i64,
                        s.ru_utime_ns as i64,
                        s.ru_stime_ns as i64,
                        s.traffic_bytes as i64,
                        s.memory_footprint_bytes as i64,
                        &blob
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
                delta += (stored.rows.len() + 1 + stored.other.is_some() as usize) as i64;
                until.execute(params![report, ticks_end_ms as i64])?;
            }
        }
        tx.commit()?;
        Ok(delta)
    }

    /// Deletes a report's history (dropped through the API); returns the rows deleted.
    pub fn delete_report(&mut self, name: &str) -> Result<u64, StoreError> {
        let tx = self.conn.transaction()?;
        let n = tx.execute(
            "DELETE FROM steps WHERE report IN (SELECT id FROM reports WHERE name = ?1)",
            [name],
        )?;
        tx.execute("DELETE FROM reports WHERE name = ?1", [name])?;
        tx.commit()?;
        Ok(n as u64)
    }

    /// Deletes the steps older than each report's retention at `now_ms`; returns the rows
    /// deleted. One indexed range delete per report.
    pub fn prune(&mut self, now_ms: u64) -> Result<u64, StoreError> {
        let tx = self.conn.transaction()?;
        let reports: Vec<(i64, i64)> = {
            let mut q = tx.prepare("SELECT id, retention_ms FROM reports")?;
            let rows = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let mut n = 0;
        for (id, retention_ms) in reports {
            let before_s = (now_ms as i64 - retention_ms) / 1000;
            n += tx.execute(
                "DELETE FROM steps WHERE report = ?1 AND t < ?2",
                params![id, before_s],
            )? as u64;
        }
        tx.commit()?;
        Ok(n)
    }

    /// Stored rows (one count at start; the writer keeps it up to date from there).
    pub fn count_rows(&self) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM steps", [], |r| r.get(0))?;
        Ok(n as u64)
    }

    /// The oldest step stored (unix seconds): one index probe per report.
    pub fn oldest(&self) -> Result<Option<i64>, StoreError> {
        Ok(self.conn.query_row(
            "SELECT min((SELECT min(t) FROM steps WHERE report = reports.id)) FROM reports",
            [],
            |r| r.get(0),
        )?)
    }

    /// Bytes the store takes on disk (the file, its WAL and shared-memory index).
    pub fn bytes(&self) -> u64 {
        bytes_of(&self.path)
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
        .query_row(
            "SELECT id, step_ms, fingerprint FROM reports WHERE name = ?1",
            [name],
            |r| {
                Ok(StoredReport {
                    id: r.get(0)?,
                    step_ms: r.get::<_, i64>(1)?.max(1) as u64,
                    fingerprint: r.get(2)?,
                })
            },
        )
        .optional()?)
}

/// Reads `PART_COLUMNS` from `row` starting at column `at`; the histogram only when `hist`.
pub fn read_part(row: &rusqlite::Row<'_>, at: usize, hist: bool) -> Result<Part, StoreError> {
    let n =
        |i: usize| -> Result<u64, rusqlite::Error> { Ok(row.get::<_, i64>(at + i)?.max(0) as u64) };
    let sums = Sums {
        req_count: n(0)?,
        hit_count: n(1)?,
        time_ns: n(2)?,
        ru_utime_ns: n(3)?,
        ru_stime_ns: n(4)?,
        traffic_bytes: n(5)?,
        memory_footprint_bytes: n(6)?,
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

/// A step as stored, if it is.
fn read_stored(
    select: &mut rusqlite::CachedStatement<'_>,
    report: i64,
    t: i64,
) -> Result<Option<Stored>, StoreError> {
    let mut rows = select.query(params![report, t])?;
    let mut out: Option<Stored> = None;
    while let Some(row) = rows.next()? {
        let s = out.get_or_insert_with(Stored::default);
        let kind: i64 = row.get(0)?;
        let part = read_part(row, 2, true)?;
        match kind {
            ROW => {
                let key: String = row.get(1)?;
                let key: Vec<String> = serde_json::from_str(&key)
                    .map_err(|e| StoreError::Damaged(format!("row key {key:?}: {e}")))?;
                s.rows.push((key.into_boxed_slice(), part));
            }
            OTHER_ROW => s.other = Some(part),
            _ => s.totals = part,
        }
    }
    Ok(out)
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
                time_ns: n * 1_000_000,
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
            3
        );
        assert_eq!(
            store.write(vec![(id, 60, step(&[("/a", 5)]), 1)]).unwrap(),
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
}
