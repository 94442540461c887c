//! The pinba tables as SQLite virtual tables (module `pinba`): one per report, its rows as the
//! report answers a query now ([`crate::state::Core::query_report`], in the columns `layout`
//! gives it), and the raw tables `request`, `timer`, `timertag`, `tag` over the raw pool, as
//! pinba_engine shows them.
//!
//! Runs on the thread that steps the statement (the blocking pool, under a query slot). A report
//! table's rows are taken whole when a scan starts (at most `limits.max_query_limit` of them, the
//! busiest first); a raw table is read in chunks of [`CHUNK`] requests, each under one short read
//! lock of the pool and the dictionary, as `/api/v1/requests` does, so a scan of the whole pool
//! never holds a lock for long nor more than a chunk in memory, whatever SQLite does with the
//! rows. Equality on `id` (`request.id`, `timer.request_id`, `timertag.timer_id`, `tag.id`) is
//! answered without a scan, so pinba_engine's joins cost what their matches cost. A GROUP BY or
//! ORDER BY of `request` on its name columns is read in that order (`order`), so that SQLite does
//! not sort the pool. Every chunk checks the statement's deadline (`mysql.max_query_time`).

use std::collections::BTreeSet;
use std::ffi::c_int;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::vtab::{
    read_only_module, Context, CreateVTab, Filters, IndexConstraintOp, IndexInfo, VTab,
    VTabConnection, VTabCursor, VTabKind,
};
use rusqlite::{ffi, Connection, Error, Result};

use super::layout::{layout, Source, SqlColumn, SqlType};
use super::order::{order_of, parse_order, scan_order};
use super::status::StatusTable;
use crate::record::{RequestView, NO_SCHEMA};
use crate::report::{Cell, Kind, Query, SQL_RAW_TABLES};
use crate::sqlite_heap;
use crate::state::Core;

/// Requests read per hold of the pool's and the dictionary's read locks, at most.
pub const CHUNK: u64 = 1024;

/// The longest a chunk holds the locks: as `/api/v1/requests`'s scan, the merger waits at most
/// about this long for the pool because of a statement.
pub const CHUNK_TIME: std::time::Duration = std::time::Duration::from_millis(2);

/// The error text a statement past its deadline fails with (the engine tells it apart).
pub const DEADLINE_PASSED: &str = "max_query_time passed";

/// What a session's virtual tables read (SQLite's client data of the module).
pub struct Tables {
    pub core: Arc<Core>,
    /// When the running statement must stop (`mysql.max_query_time`), set by the engine.
    pub deadline: Mutex<Option<Instant>>,
}

impl Tables {
    pub fn check_deadline(&self) -> Result<()> {
        match *self.deadline.lock() {
            Some(d) if Instant::now() >= d => Err(Error::ModuleError(DEADLINE_PASSED.into())),
            _ => Ok(()),
        }
    }
}

/// The raw tables, as pinba_engine names them, in the order of [`SQL_RAW_TABLES`] (the report
/// layer's list, so that no report is made with one of these names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Raw {
    Request,
    Timer,
    TimerTag,
    Tag,
}

impl Raw {
    pub const ALL: [Raw; 4] = [Raw::Request, Raw::Timer, Raw::TimerTag, Raw::Tag];

    pub fn name(self) -> &'static str {
        SQL_RAW_TABLES[self as usize]
    }

    pub fn of(name: &str) -> Option<Raw> {
        Raw::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(name))
    }

    /// The columns, with their MySQL types (pinba_engine's `default_tables.sql`; sizes in KB, as
    /// pinba_engine shows them, times in seconds; `timer` adds `ru_utime` and `ru_stime`).
    pub fn columns(self) -> &'static [(&'static str, SqlType, &'static str)] {
        use SqlType::*;
        match self {
            Raw::Request => &[
                ("id", BigInt, "bigint(20)"),
                ("hostname", Text, "varchar(32)"),
                ("req_count", Int, "int(11)"),
                ("server_name", Text, "varchar(64)"),
                ("script_name", Text, "varchar(128)"),
                ("doc_size", Float, "float"),
                ("mem_peak_usage", Float, "float"),
                ("req_time", Float, "float"),
                ("ru_utime", Float, "float"),
                ("ru_stime", Float, "float"),
                ("timers_cnt", Int, "int(11)"),
                ("status", Int, "int(11)"),
                ("memory_footprint", Float, "float"),
                ("schema", Text, "varchar(16)"),
                ("tags_cnt", Int, "int(11)"),
                ("tags", Text, "varchar(1024)"),
                ("timestamp", Int, "int(11)"),
            ],
            Raw::Timer => &[
                ("id", BigInt, "bigint(20)"),
                ("request_id", BigInt, "bigint(20)"),
                ("hit_count", Int, "int(11)"),
                ("value", Float, "float"),
                ("ru_utime", Float, "float"),
                ("ru_stime", Float, "float"),
            ],
            Raw::TimerTag => &[
                ("timer_id", BigInt, "bigint(20)"),
                ("tag_id", Int, "int(11)"),
                ("value", Text, "varchar(64)"),
            ],
            Raw::Tag => &[("id", Int, "int(11)"), ("name", Text, "varchar(255)")],
        }
    }

    /// The column equality on which answers without a scan (`id`, `request_id`, `timer_id`).
    fn key_column(self) -> c_int {
        match self {
            Raw::Request | Raw::Tag => 0,
            Raw::Timer => 1,
            Raw::TimerTag => 0,
        }
    }
}

/// How a timer's id is made from its request's id and its place in the request, so that it fits
/// a signed 32-bit column (pinba_engine's and Pinboard's `int(11)`) while the timer is in the
/// pool, and finds its request again without a scan (`timertag.timer_id = timer.id`).
///
/// The pool holds consecutive request ids, fewer than its capacity: the id modulo the capacity
/// rounded up to a power of two (`request_bits`) names one request in it, and the bits left of
/// 31 (`index_bits`: 11 with the default pool of 1,000,000, for at most 1,000 timers per
/// request) the place. A place that does not fit them (a limit raised past them) gets
/// 2^31 + request id × 65,536 + place: unique still, and told apart by its size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimerIds {
    request_bits: u32,
    index_bits: u32,
}

/// Where the ids of places that do not fit begin.
const WIDE: u64 = 1 << 31;

impl TimerIds {
    /// The ids of a pool of `capacity` requests.
    pub fn new(capacity: usize) -> TimerIds {
        let request_bits = (capacity.max(1) as u64)
            .next_power_of_two()
            .trailing_zeros()
            .min(31);
        TimerIds {
            request_bits,
            index_bits: 31 - request_bits,
        }
    }

    /// The id of the timer at `index` in request `request`.
    pub fn id(self, request: u64, index: usize) -> u64 {
        if (index as u64) >> self.index_bits == 0 {
            ((request & ((1 << self.request_bits) - 1)) << self.index_bits) | index as u64
        } else {
            WIDE + ((request << 16) | index as u64)
        }
    }

    /// The request and place of timer `id`, given the pool's oldest request id (a request not in
    /// the pool for an id that names no timer).
    pub fn find(self, id: u64, oldest: u64) -> (u64, u32) {
        if id >= WIDE {
            let id = id - WIDE;
            return (id >> 16, (id & 0xffff) as u32);
        }
        let mask = (1u64 << self.request_bits) - 1;
        let low = id >> self.index_bits;
        let request = oldest + (low.wrapping_sub(oldest) & mask);
        (request, (id & ((1 << self.index_bits) - 1)) as u32)
    }
}

/// SQLite's declared type of a column: what the result set's MySQL type is read from, and text
/// compared as MySQL's default collation does (`collation`: case and accents ignored, PAD
/// SPACE).
pub fn declared(ty: SqlType) -> &'static str {
    match ty {
        SqlType::Int | SqlType::BigInt => "INTEGER",
        SqlType::Float => "REAL",
        SqlType::Text => "TEXT COLLATE MYSQL",
    }
}

/// What one virtual table is.
enum Shape {
    Report {
        name: String,
        columns: Vec<SqlColumn>,
        percentiles: Vec<f64>,
    },
    Raw(Raw),
    /// A status table: pinba_engine's `status`, pinba2's `stats` or `active`.
    Status(StatusTable),
}

/// Whether `name` is one of the tables SQL always has (the raw tables and the status tables),
/// which a report of that name cannot replace; compared without case, as SQL matches names.
pub fn is_fixed_table(name: &str) -> bool {
    Raw::of(name).is_some() || StatusTable::of(name).is_some()
}

/// One virtual table of a session.
#[repr(C)]
pub struct PinbaTab {
    /// SQLite's part; must be first.
    base: ffi::sqlite3_vtab,
    tables: Arc<Tables>,
    shape: Shape,
}

/// Registers the module on `conn`.
pub fn register(conn: &Connection, tables: Arc<Tables>) -> Result<()> {
    conn.create_module(c"pinba", read_only_module::<PinbaTab>(), Some(tables))
}

/// The `CREATE TABLE` SQLite reads a virtual table's columns from.
fn schema(columns: impl Iterator<Item = (String, SqlType)>) -> String {
    let cols: Vec<String> = columns
        .map(|(name, ty)| format!("{} {}", super::statement::quote_ident(&name), declared(ty)))
        .collect();
    format!("CREATE TABLE x({})", cols.join(", "))
}

/// A report's SQL columns now (its layout), and the percentiles they show.
pub fn report_columns(core: &Core, name: &str) -> Option<(Vec<SqlColumn>, Vec<f64>)> {
    let cell = core.reports().get(name)?;
    let report = cell.report.read();
    let columns = layout(report.def(), report.kind(), report.key_columns());
    let mut percentiles = super::layout::query_percentiles(report.def());
    for c in &columns {
        if let Source::Column { name, .. } = &c.source {
            if let Some(p) = crate::report::percentile_of_column(report.kind(), name) {
                if !percentiles.contains(&p) {
                    percentiles.push(p);
                }
            }
        }
    }
    Some((columns, percentiles))
}

impl PinbaTab {
    /// How many columns the table has.
    fn width(&self) -> usize {
        match &self.shape {
            Shape::Report { columns, .. } => columns.len(),
            Shape::Raw(raw) => raw.columns().len(),
            Shape::Status(t) => t.columns().len(),
        }
    }
}

/// A cell of a row read. A dictionary text is held once per scan ([`Rows::text`]), not once a
/// row: a scan of the pool copies each script name once, not once per request.
#[derive(Clone, Copy)]
enum Out {
    Null,
    Int(i64),
    Real(f64),
    /// `Rows::texts[i]`: a dictionary text.
    Text(u32),
    /// `Rows::owned[i]`: a text of this chunk's rows only (a request's tags, a report's cells).
    Owned(u32),
}

/// Dictionary texts a scan keeps, in bytes, at most: past it they are let go at the next chunk
/// and read again as met.
const TEXTS_KEPT: usize = 4 << 20;

/// Rows read and not yet stepped past, `width` cells each, with the texts they show.
struct Rows {
    width: usize,
    cells: Vec<Out>,
    owned: Vec<String>,
    /// Dictionary texts met by this scan, and where each id's is.
    texts: Vec<String>,
    text_at: rustc_hash::FxHashMap<u32, u32>,
    text_bytes: usize,
}

impl Rows {
    fn new(width: usize) -> Rows {
        Rows {
            width: width.max(1),
            cells: Vec::new(),
            owned: Vec::new(),
            texts: Vec::new(),
            text_at: Default::default(),
            text_bytes: 0,
        }
    }

    /// Forgets the rows and the texts: a new scan begins. (Within one scan a kept text stays
    /// right: an id a pooled request names is not given to another string while it is pooled,
    /// and a scan reads only requests pooled when it began.)
    fn reset(&mut self) {
        self.cells.clear();
        self.owned.clear();
        self.texts.clear();
        self.text_at.clear();
        self.text_bytes = 0;
    }

    /// Forgets the rows (and, past [`TEXTS_KEPT`], the texts kept).
    fn clear(&mut self) {
        self.cells.clear();
        self.owned.clear();
        if self.text_bytes > TEXTS_KEPT {
            self.texts.clear();
            self.text_at.clear();
            self.text_bytes = 0;
        }
    }

    fn len(&self) -> usize {
        self.cells.len() / self.width
    }

    fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Dictionary id `id`'s text, read from `dict` the first time this scan meets it.
    fn text(&mut self, dict: &crate::dictionary::Dictionary, id: u32) -> Out {
        let next = self.texts.len() as u32;
        let at = *self.text_at.entry(id).or_insert_with(|| {
            let text = dict.text(id).into_owned();
            self.text_bytes += text.len() + 32;
            self.texts.push(text);
            next
        });
        Out::Text(at)
    }

    fn owned(&mut self, text: String) -> Out {
        self.owned.push(text);
        Out::Owned((self.owned.len() - 1) as u32)
    }

    /// A row of values (a report's, `tag`'s): `width` of them (NULL for any missing).
    fn push_values(&mut self, mut row: Vec<Value>) {
        row.resize(self.width, Value::Null);
        for v in row {
            let out = match v {
                Value::Null | Value::Blob(_) => Out::Null,
                Value::Integer(n) => Out::Int(n),
                Value::Real(f) => Out::Real(f),
                Value::Text(t) => self.owned(t),
            };
            self.cells.push(out);
        }
    }

    fn get(&self, row: usize, column: usize) -> ValueRef<'_> {
        if column >= self.width {
            return ValueRef::Null;
        }
        match self.cells.get(row * self.width + column) {
            None | Some(Out::Null) => ValueRef::Null,
            Some(Out::Int(n)) => ValueRef::Integer(*n),
            Some(Out::Real(f)) => ValueRef::Real(*f),
            Some(Out::Text(i)) => ValueRef::Text(self.texts[*i as usize].as_bytes()),
            Some(Out::Owned(i)) => ValueRef::Text(self.owned[*i as usize].as_bytes()),
        }
    }

    fn int(&self, row: usize, column: usize) -> Option<i64> {
        match self.get(row, column) {
            ValueRef::Integer(n) => Some(n),
            _ => None,
        }
    }
}

unsafe impl<'vtab> VTab<'vtab> for PinbaTab {
    type Aux = Arc<Tables>;
    type Cursor = PinbaCursor<'vtab>;

    fn connect(
        _db: &mut VTabConnection,
        aux: Option<&Arc<Tables>>,
        args: &[&[u8]],
    ) -> Result<(String, PinbaTab)> {
        // rusqlite declares the table after this returns, and allocates an error if that fails.
        sqlite_heap::yield_refusals();
        callback(|| connect(aux, args))
    }

    fn best_index(&self, info: &mut IndexInfo) -> Result<()> {
        callback(|| self.choose_index(info))
    }

    fn open(&'vtab mut self) -> Result<PinbaCursor<'vtab>> {
        let _counted = sqlite_heap::counted();
        Ok(PinbaCursor {
            base: ffi::sqlite3_vtab_cursor::default(),
            tab: self,
            rows: Rows::new(self.width()),
            at: 0,
            rowid: 0,
            scan: Scan::Done,
        })
    }
}

/// Runs a callback of the module (see `sqlite_heap`): what SQLite allocates meanwhile (the
/// values handed to it, the index string) is SQL's but never refused, and when the callback
/// fails neither is what rusqlite then allocates for its error, which it may not be refused.
fn callback<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let _counted = sqlite_heap::counted();
    let r = f();
    if r.is_err() {
        sqlite_heap::yield_refusals();
    }
    r
}

/// A table of the module, made from its `CREATE VIRTUAL TABLE`'s arguments.
fn connect(aux: Option<&Arc<Tables>>, args: &[&[u8]]) -> Result<(String, PinbaTab)> {
    let tables = aux
        .cloned()
        .ok_or_else(|| Error::ModuleError("the pinba module has no tables".into()))?;
    let name = args
        .get(2)
        .map(|a| rusqlite::vtab::dequote(&String::from_utf8_lossy(a)).to_string())
        .unwrap_or_default();
    let what = args
        .get(3)
        .map(|a| rusqlite::vtab::dequote(&String::from_utf8_lossy(a)).to_string())
        .unwrap_or_default();
    let (sql, shape) = if what == "raw" {
        let raw =
            Raw::of(&name).ok_or_else(|| Error::ModuleError(format!("no raw table `{name}`")))?;
        let sql = schema(raw.columns().iter().map(|(n, t, _)| (n.to_string(), *t)));
        (sql, Shape::Raw(raw))
    } else if what == "status" {
        let table = StatusTable::of(&name)
            .ok_or_else(|| Error::ModuleError(format!("no status table `{name}`")))?;
        let sql = schema(table.columns().iter().map(|(n, t, _)| (n.to_string(), *t)));
        (sql, Shape::Status(table))
    } else {
        let (columns, percentiles) = report_columns(&tables.core, &name)
            .ok_or_else(|| Error::ModuleError(format!("no report named `{name}`")))?;
        let sql = schema(columns.iter().map(|c| (c.name.clone(), c.ty)));
        (
            sql,
            Shape::Report {
                name,
                columns,
                percentiles,
            },
        )
    };
    Ok((
        sql,
        PinbaTab {
            base: ffi::sqlite3_vtab::default(),
            tables,
            shape,
        },
    ))
}

impl PinbaTab {
    fn choose_index(&self, info: &mut IndexInfo) -> Result<()> {
        let key = match &self.shape {
            Shape::Raw(raw) => Some(raw.key_column()),
            Shape::Report { .. } | Shape::Status(_) => None,
        };
        let mut by_key = None;
        if let Some(key) = key {
            for (i, c) in info.constraints().enumerate() {
                if c.is_usable()
                    && c.column() == key
                    && c.operator() == IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_EQ
                {
                    by_key = Some(i);
                    break;
                }
            }
        }
        // The columns the statement reads: a raw row is built with those only (a request's tags
        // are formatted, its strings copied, only when asked for).
        let used = info.col_used().to_string();
        // A scan of `request` in the order of its GROUP BY or ORDER BY (see [`order_of`]) spares
        // SQLite its sort of the whole pool.
        let order = match &self.shape {
            Shape::Raw(Raw::Request) if by_key.is_none() => scan_order(info),
            _ => None,
        };
        match &order {
            Some(order) => info.set_idx_str(&format!("{used};{order}")),
            None => info.set_idx_str(&used),
        }
        match by_key {
            Some(i) => {
                let mut usage = info.constraint_usage(i);
                usage.set_argv_index(1);
                usage.set_omit(true);
                info.set_idx_num(1);
                info.set_estimated_cost(10.0);
                info.set_estimated_rows(10);
            }
            None => {
                info.set_idx_num(if order.is_some() { 2 } else { 0 });
                info.set_order_by_consumed(order.is_some());
                info.set_estimated_cost(1_000_000.0);
                info.set_estimated_rows(100_000);
            }
        }
        Ok(())
    }
}

impl CreateVTab<'_> for PinbaTab {
    const KIND: VTabKind = VTabKind::Default;
}

/// What a cursor still has to read.
enum Scan {
    Done,
    /// Requests `next..end` of the pool, in chunks; `timer` narrows to one timer (`timertag`);
    /// `used` is the mask of the columns the statement reads (bit 63: any from the 64th on).
    Requests {
        next: u64,
        end: u64,
        timer: Option<u32>,
        used: u64,
    },
    /// The requests `base + order[at..]`, in that order (the statement's GROUP BY or ORDER BY:
    /// [`order_of`]), in chunks.
    Ordered {
        base: u64,
        order: Vec<u32>,
        at: usize,
        used: u64,
    },
}

/// A scan of one virtual table.
#[repr(C)]
pub struct PinbaCursor<'vtab> {
    /// SQLite's part; must be first.
    base: ffi::sqlite3_vtab_cursor,
    tab: &'vtab PinbaTab,
    /// The rows read and not yet stepped past.
    rows: Rows,
    at: usize,
    rowid: i64,
    scan: Scan,
}

impl PinbaCursor<'_> {
    /// Reads chunks until one gives rows or the scan ends.
    fn fill(&mut self) -> Result<()> {
        self.rows.clear();
        self.at = 0;
        let Shape::Raw(raw) = self.tab.shape else {
            return Ok(());
        };
        while self.rows.is_empty() {
            match &mut self.scan {
                Scan::Done => return Ok(()),
                Scan::Requests {
                    next,
                    end,
                    timer,
                    used,
                } => {
                    if *next >= *end {
                        self.scan = Scan::Done;
                        return Ok(());
                    }
                    self.tab.tables.check_deadline()?;
                    let ids = *next..(*end).min(*next + CHUNK);
                    *next += read_chunk(&self.tab.tables, raw, ids, *timer, *used, &mut self.rows);
                }
                Scan::Ordered {
                    base,
                    order,
                    at,
                    used,
                } => {
                    if *at >= order.len() {
                        self.scan = Scan::Done;
                        return Ok(());
                    }
                    self.tab.tables.check_deadline()?;
                    let chunk = &order[*at..order.len().min(*at + CHUNK as usize)];
                    let ids = chunk.iter().map(|&o| *base + o as u64);
                    *at += read_chunk(&self.tab.tables, raw, ids, None, *used, &mut self.rows)
                        as usize;
                }
            }
        }
        Ok(())
    }
}

/// Reads the rows of the requests `ids` (those still pooled) into `out`, under one hold of the
/// pool's and the dictionary's read locks; returns how many of `ids` it read. A chunk that runs
/// long (a busy machine) ends early: the merger waits for the pool's write lock at most
/// [`CHUNK_TIME`] because of a scan.
fn read_chunk(
    tables: &Tables,
    raw: Raw,
    ids: impl Iterator<Item = u64>,
    timer: Option<u32>,
    used: u64,
    out: &mut Rows,
) -> u64 {
    let core = &tables.core;
    let started = Instant::now();
    let pool = core.pool().read();
    let dict = core.dictionary().read();
    let now = core.clock().now_ms64();
    let timer_ids = TimerIds::new(pool.capacity());
    let mut read = 0;
    for id in ids {
        match raw {
            Raw::Request => {
                if let Some(r) = pool.record(id) {
                    request_row(id, r, &pool, &dict, core.clock(), now, used, out);
                }
            }
            _ => {
                if let Some(v) = pool.get(id) {
                    timer_rows(raw, &v, &dict, timer_ids, timer, used, out);
                }
            }
        }
        read += 1;
        if read % 64 == 0 && started.elapsed() >= CHUNK_TIME {
            break;
        }
    }
    read
}

/// Whether column `i` is in `used` (bit 63: any from the 64th on).
fn wanted(used: u64, i: u32) -> bool {
    used & (1u64 << i.min(63)) != 0
}

/// Request `id`'s row of `request`, with the columns in `used` (the texts of the others NULL).
/// Its tags are looked at only when `tags` is read.
#[allow(clippy::too_many_arguments)]
fn request_row(
    id: u64,
    r: &crate::record::Record,
    pool: &crate::pool::Pool,
    dict: &crate::dictionary::Dictionary,
    clock: &crate::state::Clock,
    now: u64,
    used: u64,
    out: &mut Rows,
) {
    let text = |out: &mut Rows, i: u32, id: u32| {
        if wanted(used, i) {
            out.text(dict, id)
        } else {
            Out::Null
        }
    };
    let kb = |bytes: u32| Out::Real(bytes as f64 / 1024.0);
    let tags = if wanted(used, 15) {
        let tags: Vec<String> = pool
            .get(id)
            .map(|v| v.tags())
            .unwrap_or_default()
            .iter()
            .map(|t| format!("{}={}", dict.text(t.name), dict.text(t.value)))
            .collect();
        out.owned(tags.join(","))
    } else {
        Out::Null
    };
    let row = [
        Out::Int(id as i64),
        text(out, 1, r.hostname),
        Out::Int(r.request_count as i64),
        text(out, 3, r.server_name),
        text(out, 4, r.script_name),
        kb(r.document_size),
        kb(r.memory_peak),
        Out::Real(r.request_time as f64),
        Out::Real(r.ru_utime as f64),
        Out::Real(r.ru_stime as f64),
        Out::Int(r.timer_count as i64),
        Out::Int(r.status as i64),
        kb(r.memory_footprint),
        if r.schema == NO_SCHEMA {
            Out::Null
        } else {
            text(out, 13, r.schema)
        },
        Out::Int(r.tag_count as i64),
        tags,
        Out::Int((clock.unix_ms_at(r.time_ms, now) / 1000) as i64),
    ];
    out.cells.extend_from_slice(&row);
}

/// The rows one pooled request gives in `timer` or `timertag` (all its timers, or timer
/// `only`), with the columns in `used` (the texts of the others NULL), its timers named by `ids`.
fn timer_rows(
    raw: Raw,
    v: &RequestView<'_>,
    dict: &crate::dictionary::Dictionary,
    ids: TimerIds,
    only: Option<u32>,
    used: u64,
    out: &mut Rows,
) {
    match raw {
        Raw::Timer => {
            for (i, t) in v.timers.iter().enumerate() {
                out.cells.extend_from_slice(&[
                    Out::Int(ids.id(v.id, i) as i64),
                    Out::Int(v.id as i64),
                    Out::Int(t.hit_count as i64),
                    Out::Real(t.value as f64),
                    Out::Real(t.ru_utime as f64),
                    Out::Real(t.ru_stime as f64),
                ]);
            }
        }
        Raw::TimerTag => {
            for (i, (_, tags)) in v.timers_with_tags().enumerate() {
                if only.is_some_and(|o| o as usize != i) {
                    continue;
                }
                for tag in tags {
                    let value = if wanted(used, 2) {
                        out.text(dict, tag.value)
                    } else {
                        Out::Null
                    };
                    out.cells.extend_from_slice(&[
                        Out::Int(ids.id(v.id, i) as i64),
                        Out::Int(tag.name as i64),
                        value,
                    ]);
                }
            }
        }
        Raw::Request | Raw::Tag => {}
    }
}

/// A report's rows now, in its SQL columns.
fn report_rows(
    core: &Core,
    name: &str,
    columns: &[SqlColumn],
    percentiles: &[f64],
) -> Result<Vec<Vec<Value>>> {
    let Some(cell) = core.reports().get(name) else {
        return Ok(Vec::new());
    };
    let def = cell.report.read().def().clone();
    let max = core.config().limits.max_query_limit;
    let q = Query {
        limit: Some(max),
        max_limit: max,
        percentiles: Some(percentiles.to_vec()),
        ..Query::default()
    };
    let table = core
        .query_report(&cell, &q)
        .map_err(|e| Error::ModuleError(e.to_string()))?;
    let info = cell.report.read().kind() == Kind::Info;
    // `info` is its totals, one row whatever the traffic (as pinba_engine's).
    let rows: Vec<Vec<Cell>> = if info {
        vec![table.totals.clone()]
    } else {
        table.rows.clone()
    };
    let offset = if info { table.key_columns } else { 0 };
    let at = |name: &str| {
        table
            .columns
            .iter()
            .position(|c| c == name)
            .and_then(|i| i.checked_sub(offset))
    };
    let sources: Vec<(Option<usize>, &Source, SqlType)> = columns
        .iter()
        .map(|c| match &c.source {
            Source::Column { name, .. } => (at(name), &c.source, c.ty),
            s => (None, s, c.ty),
        })
        .collect();
    // A FLOAT column holds a 32-bit float, as pinba_engine's row does: what is computed
    // from it (`SUM`, `x * 1000`, `p90 - req_time_median`) is computed from that, as MySQL
    // computes it.
    let real = |ty: SqlType, x: f64| match ty {
        SqlType::Float => Value::Real(f64::from(x as f32)),
        _ => Value::Real(x),
    };
    Ok(rows
        .iter()
        .map(|row| {
            sources
                .iter()
                .map(|(i, source, ty)| match source {
                    Source::Key(k) => row.get(*k).map_or(Value::Null, cell_value),
                    Source::Column { scale, .. } => match i.and_then(|i| row.get(i)) {
                        Some(Cell::Int(n)) if *scale == 1.0 && *ty != SqlType::Float => {
                            Value::Integer(*n as i64)
                        }
                        Some(Cell::Int(n)) => real(*ty, *n as f64 * scale),
                        Some(Cell::Float(f)) => real(*ty, f * scale),
                        Some(c) => cell_value(c),
                        None => Value::Null,
                    },
                    Source::IndexValue => {
                        let keys: Vec<String> = row[..table.key_columns.min(row.len())]
                            .iter()
                            .map(cell_text)
                            .collect();
                        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                        Value::Text(super::layout::index_value(&def, &keys))
                    }
                    Source::TimeInterval => Value::Integer(table.time_interval.round() as i64),
                    Source::Null => Value::Null,
                })
                .collect()
        })
        .collect())
}

fn cell_value(c: &Cell) -> Value {
    match c {
        Cell::Null => Value::Null,
        Cell::Int(n) => Value::Integer(*n as i64),
        Cell::Float(f) => Value::Real(*f),
        Cell::Text(t) => Value::Text(t.clone()),
    }
}

fn cell_text(c: &Cell) -> String {
    let mut s = String::new();
    c.render(&mut s);
    s
}

/// The timer tag names the pool's timers carry, by id (the `tag` table), read in chunks.
fn tag_names(tables: &Tables) -> Result<Vec<Vec<Value>>> {
    let core = &tables.core;
    let (mut next, end) = {
        let pool = core.pool().read();
        (pool.oldest_id(), pool.next_id())
    };
    let mut ids = BTreeSet::new();
    while next < end {
        tables.check_deadline()?;
        let stop = end.min(next + CHUNK);
        let pool = core.pool().read();
        for id in next..stop {
            if let Some(v) = pool.get(id) {
                for (_, tags) in v.timers_with_tags() {
                    ids.extend(tags.iter().map(|t| t.name));
                }
            }
        }
        next = stop;
    }
    let dict = core.dictionary().read();
    Ok(ids
        .into_iter()
        .map(|id| {
            vec![
                Value::Integer(id as i64),
                Value::Text(dict.text(id).into_owned()),
            ]
        })
        .collect())
}

/// splitmix64's finalizer: distinct inputs, as good as distinct outputs.
fn mix(mut x: u64) -> i64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (x ^ (x >> 31)) as i64
}

unsafe impl VTabCursor for PinbaCursor<'_> {
    fn filter(&mut self, idx_num: c_int, idx_str: Option<&str>, args: &Filters<'_>) -> Result<()> {
        callback(|| self.start(idx_num, idx_str, args))
    }

    fn next(&mut self) -> Result<()> {
        callback(|| {
            self.at += 1;
            self.rowid += 1;
            if self.at >= self.rows.len() {
                self.fill()?;
            }
            Ok(())
        })
    }

    fn eof(&self) -> bool {
        self.at >= self.rows.len()
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> Result<()> {
        callback(|| {
            let value = self
                .rows
                .get(self.at, usize::try_from(i).unwrap_or(usize::MAX));
            ctx.set_result(&ToSqlOutput::Borrowed(value))
        })
    }

    /// The same row has the same rowid in every scan of a statement (SQLite's RIGHT and FULL
    /// JOIN remember the rows a lookup matched by rowid, then scan for the others): a raw
    /// row's id (a `timertag` row's timer and tag, mixed); a report's place in the report.
    fn rowid(&self) -> Result<i64> {
        let int = |i: usize| self.rows.int(self.at, i);
        Ok(match &self.tab.shape {
            Shape::Raw(Raw::TimerTag) => match (int(0), int(1)) {
                (Some(timer), Some(tag)) => mix(timer as u64 ^ mix(tag as u64) as u64),
                _ => self.rowid,
            },
            Shape::Raw(_) => int(0).unwrap_or(self.rowid),
            Shape::Report { .. } | Shape::Status(_) => self.rowid,
        })
    }
}

impl PinbaCursor<'_> {
    /// A scan begins (`filter`).
    fn start(&mut self, idx_num: c_int, idx_str: Option<&str>, args: &Filters<'_>) -> Result<()> {
        let (used, order) = match idx_str.and_then(|s| s.split_once(';')) {
            Some((used, order)) => (Some(used), parse_order(order)),
            None => (idx_str, None),
        };
        let used = used.and_then(|s| s.parse().ok()).unwrap_or(u64::MAX);
        self.rows.reset();
        self.at = 0;
        self.rowid = 0;
        self.scan = Scan::Done;
        self.tab.tables.check_deadline()?;
        let key: Option<i64> = if idx_num == 1 {
            key_of(args.get::<Value>(0)?)
        } else {
            None
        };
        match &self.tab.shape {
            Shape::Report {
                name,
                columns,
                percentiles,
            } => {
                for row in report_rows(&self.tab.tables.core, name, columns, percentiles)? {
                    self.rows.push_values(row);
                }
            }
            Shape::Status(table) => {
                for row in table.rows(&self.tab.tables.core) {
                    self.rows.push_values(row);
                }
            }
            Shape::Raw(Raw::Tag) => {
                match key {
                    // Only a timer tag's name is a `tag` row: the dictionary holds every
                    // string (host names too) under ids of the same kind.
                    Some(id) => {
                        for row in tag_names(&self.tab.tables)? {
                            if matches!(row.first(), Some(Value::Integer(i)) if *i == id) {
                                self.rows.push_values(row);
                            }
                        }
                    }
                    None if idx_num == 1 => {}
                    None => {
                        for row in tag_names(&self.tab.tables)? {
                            self.rows.push_values(row);
                        }
                    }
                }
            }
            Shape::Raw(raw) => {
                let (oldest, end, ids) = {
                    let pool = self.tab.tables.core.pool().read();
                    (
                        pool.oldest_id(),
                        pool.next_id(),
                        TimerIds::new(pool.capacity()),
                    )
                };
                self.scan = match (idx_num, key) {
                    (2, _) => match &order {
                        Some(terms) => Scan::Ordered {
                            base: oldest,
                            order: order_of(&self.tab.tables, oldest, end, terms)?,
                            at: 0,
                            used,
                        },
                        None => {
                            return Err(Error::ModuleError(format!("no scan order in {idx_str:?}")))
                        }
                    },
                    (0, _) => Scan::Requests {
                        next: oldest,
                        end,
                        timer: None,
                        used,
                    },
                    (_, Some(k)) if k >= 0 => {
                        let k = k as u64;
                        let (request, timer) = if *raw == Raw::TimerTag {
                            let (request, place) = ids.find(k, oldest);
                            (request, Some(place))
                        } else {
                            (k, None)
                        };
                        Scan::Requests {
                            next: request,
                            end: request.saturating_add(1),
                            timer,
                            used,
                        }
                    }
                    _ => Scan::Done,
                };
                self.fill()?;
            }
        }
        Ok(())
    }
}

/// The row key a lookup by `id = v` (or `timer_id = v`) names, where `v` is what SQLite hands
/// the scan: an integer; a double (`id = '7abc'` compares as doubles, MySQL's rule for a number
/// against a string, so SQLite passes 7.0) naming the integer it equals; a text read as SQLite's
/// integer affinity reads it. `None` where no integer key equals it (`7.5`, NULL, `'abc'`): the
/// lookup omits the constraint, so it must find no row rather than scan.
fn key_of(v: Value) -> Option<i64> {
    let exact = |d: f64| {
        // i64::MAX as a double is 2^63, which no i64 equals.
        (d.fract() == 0.0 && d >= i64::MIN as f64 && d < i64::MAX as f64).then_some(d as i64)
    };
    match v {
        Value::Integer(i) => Some(i),
        Value::Real(d) => exact(d),
        Value::Text(t) => match t.trim().parse::<i64>() {
            Ok(i) => Some(i),
            Err(_) => t.trim().parse::<f64>().ok().and_then(exact),
        },
        Value::Null | Value::Blob(_) => None,
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;

    #[test]
    fn a_lookup_key_is_the_integer_its_value_equals_or_none() {
        assert_eq!(key_of(Value::Integer(7)), Some(7));
        assert_eq!(key_of(Value::Real(7.0)), Some(7));
        assert_eq!(key_of(Value::Real(-3.0)), Some(-3));
        assert_eq!(key_of(Value::Real(7.5)), None);
        assert_eq!(key_of(Value::Real(9.3e18)), None);
        assert_eq!(key_of(Value::Real(f64::NAN)), None);
        assert_eq!(key_of(Value::Text("12".into())), Some(12));
        assert_eq!(key_of(Value::Text("12.0".into())), Some(12));
        assert_eq!(key_of(Value::Text("abc".into())), None);
        assert_eq!(key_of(Value::Null), None);
    }
}

#[cfg(test)]
mod timer_id_tests {
    use super::*;

    #[test]
    fn timer_ids_fit_31_bits_and_find_their_request_in_a_full_pool() {
        // The default pool: 1,000,000 requests, up to 1,000 timers each (2,048 places fit).
        let ids = TimerIds::new(1_000_000);
        for oldest in [
            0u64,
            1,
            999_999,
            1 << 20,
            5_000_000_007,
            u32::MAX as u64 * 3,
        ] {
            let newest = oldest + 999_999;
            let mut seen = std::collections::HashSet::new();
            for request in [oldest, oldest + 1, oldest + 524_287, newest - 1, newest] {
                for place in [0usize, 1, 999, 2047] {
                    let id = ids.id(request, place);
                    assert!(id < 1 << 31, "{request} {place}: {id}");
                    assert!(seen.insert(id), "{request} {place}: {id} twice");
                    assert_eq!(ids.find(id, oldest), (request, place as u32));
                }
            }
        }
        // A place past what fits (a limit raised past it) is unique still, above 2^31.
        let id = ids.id(7, 2048);
        assert!(id >= 1 << 31);
        assert_eq!(ids.find(id, 3), (7, 2048));
        assert_ne!(ids.id(7, 2048), ids.id(7 + (1 << 20), 0));
        // A pool of 2^31 requests leaves no bits for places: all but the first go wide.
        let huge = TimerIds::new(1 << 31);
        assert!(huge.id(12, 0) < 1 << 31);
        assert_eq!(huge.find(huge.id(12, 0), 10), (12, 0));
        assert_eq!(huge.find(huge.id(12, 5), 10), (12, 5));
    }
}
