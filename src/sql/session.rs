//! One client's session: the MySQL protocol's commands (through `opensrv_mysql`) answered from
//! the session's [`Engine`]. Session chatter (`SET`, `USE`, `SHOW`, `DESCRIBE`, `@@variables`)
//! is answered as MySQL would; `CREATE TABLE … ENGINE=PINBA` and `DROP TABLE` create and drop
//! reports, as the HTTP API does; a write to the tables is refused; a query runs in SQLite.
//!
//! Runs as a task on the HTTP runtime's threads; a statement runs on the blocking pool under one
//! of the `mysql.max_concurrent_queries` slots (waiting for one in the bounded queue, within its
//! `max_query_time`), its rows streamed to the client in chunks through a bounded channel (a
//! client that reads slowly slows the statement, never grows its memory; one that stops reading
//! ends its session at the statement's deadline, which frees the slot). A bad statement, one
//! longer than `max_allowed_packet` and one that is not UTF-8 are answered with an error packet
//! and the session stays usable.

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use opensrv_mysql::{
    AsyncMysqlShim, Column, ColumnFlags, ColumnType, ErrorKind, InitWriter, OkResponse,
    ParamParser, QueryResultWriter, StatementMetaWriter, StatusFlags,
};
use rusqlite::types::Value;
use tokio::io::AsyncWrite;

use super::coldef::{Code, Meta};
use super::ddl::{self, Warning};
use super::engine::{Engine, Event, OutType, SqlError};
use super::prepared::{self, Prepared, MAX_PREPARED_PER_SESSION};
use super::statement::{self, quote, quote_ident, Set, SetValue, Show, Statement};
use super::temporal_wire::Temporal;
use super::typing::Declared;
use super::variables::UTF8MB4_GENERAL_CI;
use super::variables::{Assigned, Variables};
use super::wire::{Notice, Wire};
use super::{NoSlot, SqlContext};

/// What a statement's answer is, before it is written.
enum Answer {
    Ok(String),
    Error(ErrorKind, String),
    /// Rows from the engine (a query, or a `SHOW` rewritten as one), and each result column's
    /// DECIMAL scale where MySQL's answer is a DECIMAL (`typing`; empty where none is known).
    Query(String, Vec<Option<Meta>>),
}

/// One client's session.
pub struct Session {
    ctx: Arc<SqlContext>,
    id: u32,
    /// Its engine, made at its first query; out while a statement runs on the blocking pool.
    /// (A mutex only to make the session `Sync`, as the protocol's shim must be: one command
    /// runs at a time.)
    engine: std::sync::Mutex<Option<Engine>>,
    /// The user name the client gave.
    user: std::sync::Mutex<String>,
    /// The handshake's salt: one per session (the protocol shim asks for it more than once).
    salt: [u8; 20],
    /// The client's address: failed logins are delayed and logged by it.
    peer: SocketAddr,
    /// The connection's bytes: told of the login, asked what became of a command.
    wire: Arc<Wire>,
    /// Its prepared statements by id (at most [`MAX_PREPARED_PER_SESSION`]), and the next id.
    prepared: std::collections::HashMap<u32, Prepared>,
    next_statement: u32,
    /// Whether the statement being answered is an `EXECUTE`: its rows go in the binary
    /// protocol, each value as its column's type (see [`binary_value`]).
    binary: bool,
    /// Reports whose `DROP TABLE` waits for the next statement (see `ddl`): carried out before
    /// it, unless it is a `CREATE TABLE` of the same name, or when the session ends.
    pending_drops: Vec<String>,
    /// What the last statement left for `SHOW WARNINGS`, at most [`MAX_ERROR_COUNT`] (their
    /// count, all of them, is `@@warning_count`: `Variables::warning_count`).
    warnings: Vec<Warning>,
    /// The warnings the statement running has added (its first cleared the last statement's):
    /// what its OK or EOF packet says.
    statement_warnings: u64,
    /// The query answered now asks for `SQL_CALC_FOUND_ROWS` past its `LIMIT`: the query that
    /// counts its rows without it, run after its rows (see `translate::found_rows_query`).
    found_rows_query: Option<String>,
    /// Its variables: what its `SET`s changed, its user variables (shared with its engine's
    /// functions).
    vars: Arc<parking_lot::Mutex<Variables>>,
}

/// A session as `SHOW PROCESSLIST` shows it.
#[derive(Clone, Debug)]
pub struct Process {
    pub user: String,
    pub host: String,
    /// The statement running (`Query`), none between two (`Sleep`).
    pub info: Option<String>,
    /// Since when it runs that statement, or sleeps.
    pub since: Instant,
}

/// The most of a statement's text a session's entry keeps (`SHOW FULL PROCESSLIST`): bounded,
/// as every session's entry is held.
const MAX_PROCESS_INFO: usize = 16_384;

/// The most of a statement's text `SHOW PROCESSLIST` shows (MySQL's, without `FULL`).
const PROCESS_INFO_CHARS: usize = 100;

impl Session {
    pub fn new(ctx: Arc<SqlContext>, id: u32, peer: SocketAddr, wire: Arc<Wire>) -> Session {
        Session {
            ctx,
            id,
            engine: Default::default(),
            user: Default::default(),
            salt: super::salt(),
            peer,
            wire,
            prepared: Default::default(),
            next_statement: 1,
            binary: false,
            pending_drops: Vec::new(),
            found_rows_query: None,
            warnings: Vec::new(),
            statement_warnings: 0,
            vars: Default::default(),
        }
    }

    /// Notes in the server's list (`SHOW PROCESSLIST`) what the session runs now (`None`:
    /// nothing, it sleeps).
    fn note_process(&self, info: Option<&str>) {
        let user = self.user.lock().map(|u| u.clone()).unwrap_or_default();
        self.ctx.processes.lock().insert(
            self.id,
            Process {
                user,
                host: self.peer.to_string(),
                info: info.map(|s| s.chars().take(MAX_PROCESS_INFO).collect()),
                since: Instant::now(),
            },
        );
    }

    /// The session's variables (`@@max_allowed_packet`, `@@wait_timeout`, …).
    fn variables(&self) -> super::functions::Session {
        super::functions::Session {
            locks: Arc::clone(&self.ctx.locks),
            ..super::functions::Session::new(
                super::VERSION.to_string(),
                self.user.lock().map(|u| u.clone()).unwrap_or_default(),
                self.id,
                &self.ctx.config,
                Arc::clone(&self.vars),
            )
        }
    }

    fn put_engine(&self, engine: Engine) {
        if let Ok(mut e) = self.engine.lock() {
            *e = Some(engine);
        }
    }

    fn counters(&self) -> &crate::counters::SqlCounters {
        &self.ctx.core.counters().sql
    }

    /// What the translation of this session's statements reads: its variables, and its report
    /// tables' columns (looked up by name as a statement names them).
    fn context(&self) -> super::variables::Context {
        let (mut context, converted) = {
            let vars = self.vars.lock();
            (vars.context(), !vars.results_unconverted)
        };
        if converted {
            context.system_texts = super::functions::variables(&self.variables())
                .into_iter()
                .filter_map(|(name, v)| match v {
                    Value::Text(t) => Some((name, t.chars().count() as u32)),
                    Value::Null => Some((name, 0)),
                    _ => None,
                })
                .collect();
        }
        let core = Arc::clone(&self.ctx.core);
        context.tables = super::variables::TableColumns::new(move |name| {
            if super::vtab::is_fixed_table(name) {
                return None;
            }
            let (columns, _) = super::vtab::report_columns(&core, name)?;
            Some(columns.into_iter().map(|c| (c.name, c.ty)).collect())
        });
        context
    }

    /// The session's engine, made on first use, brought in line with the live reports.
    fn take_engine(&mut self) -> Result<Engine, SqlError> {
        let taken = self.engine.lock().ok().and_then(|mut e| e.take());
        let mut engine = match taken {
            Some(e) => e,
            None => Engine::new(
                Arc::clone(&self.ctx.core),
                Arc::new(self.variables()),
                self.ctx.config.max_query_time.0,
                Arc::clone(&self.ctx.memory),
            )?,
        };
        engine.sync()?;
        Ok(engine)
    }

    /// What `sql` asks, answered without the engine where it can be.
    fn answer(&mut self, sql: &str) -> Answer {
        self.found_rows_query = None;
        let context = self.context();
        let (statement, decimals) = match statement::classify_in(sql, &context) {
            Ok(s) => s,
            Err(e) => return Answer::Error(ErrorKind::ER_PARSE_ERROR, e.0),
        };
        match statement {
            Statement::Empty => Answer::Error(ErrorKind::ER_EMPTY_QUERY, "Query was empty".into()),
            Statement::Ignored => Answer::Ok(String::new()),
            // Carried out by `statement`.
            Statement::Do(_) => Answer::Ok(String::new()),
            // Carried out by `statement` (here: a prepared `SET`'s metadata, no rows).
            Statement::Set(_) => Answer::Ok(String::new()),
            Statement::Use(db) => use_database(&db),
            Statement::Write(verb) => Answer::Error(
                ErrorKind::ER_OPTION_PREVENTS_STATEMENT,
                format!(
                    "{verb}: the pinba tables are read-only (pinbad fills them from the Pinba \
                     traffic it receives); only CREATE TABLE … ENGINE=PINBA and DROP TABLE \
                     change them"
                ),
            ),
            Statement::Unsupported(why) => Answer::Error(ErrorKind::ER_NOT_SUPPORTED_YET, why),
            Statement::OutOfMemory(why) => Answer::Error(ErrorKind::ER_OUT_OF_RESOURCES, why),
            Statement::Refused(code, why) => Answer::Error(ErrorKind::from(code), why),
            Statement::Query(q) => {
                self.found_rows_query = super::translate::found_rows_query(
                    &super::dialect::executable_comments(sql),
                    &context,
                );
                Answer::Query(q, decimals)
            }
            Statement::Describe { table } => self.show(&Show::Columns {
                full: false,
                table,
                like: None,
            }),
            Statement::Show(Show::Warnings { errors, limit }) => self.show_warnings(errors, limit),
            Statement::Show(s) => self.show(&s),
            // Answered on the blocking pool (they wait for the merger): see `ddl`.
            Statement::CreateTable(_) | Statement::DropTables { .. } => {
                Answer::Error(ErrorKind::ER_UNKNOWN_ERROR, String::new())
            }
        }
    }
}

/// `@@max_error_count`: the warnings a session keeps for `SHOW WARNINGS` (MySQL's default);
/// `@@warning_count` counts them all.
const MAX_ERROR_COUNT: usize = 64;

impl Session {
    /// A statement begins (a query, a prepare, an execute, or one refused before it is read):
    /// its warnings are counted from none, the last statement's kept until its first
    /// ([`Session::warn`]).
    fn statement_begins(&mut self) {
        self.statement_warnings = 0;
    }

    /// Adds `n` times `w` to the statement's warnings: its first clears the last statement's,
    /// as MySQL's first warning of a statement does.
    fn warn(&mut self, w: Warning, n: u64) {
        if n == 0 {
            return;
        }
        if self.statement_warnings == 0 {
            self.clear_warnings();
        }
        self.statement_warnings = self.statement_warnings.saturating_add(n);
        let room = MAX_ERROR_COUNT.saturating_sub(self.warnings.len());
        let kept = usize::try_from(n).unwrap_or(usize::MAX).min(room);
        self.warnings.extend(std::iter::repeat_n(w, kept));
        let mut vars = self.vars.lock();
        vars.warning_count = vars.warning_count.saturating_add(n);
    }

    /// What the statement's evaluation counted, as its warnings: GROUP_CONCAT's cuts (1260)
    /// and divisions by zero (1365).
    fn computed_warnings(&mut self) {
        let (cut, divided_by_zero, raised) = {
            let mut vars = self.vars.lock();
            (
                std::mem::take(&mut vars.cut_by_group_concat),
                std::mem::take(&mut vars.divided_by_zero),
                vars.take_raised(),
            )
        };
        for (code, message, n) in raised {
            self.warn(
                Warning {
                    level: "Warning",
                    code,
                    message,
                },
                n,
            );
        }
        if cut > 0 {
            self.warn(
                Warning {
                    level: "Warning",
                    code: 1260,
                    message: format!("{cut} row(s) were cut by GROUP_CONCAT()"),
                },
                1,
            );
        }
        self.warn(
            Warning {
                level: "Warning",
                code: 1365,
                message: "Division by 0".into(),
            },
            divided_by_zero,
        );
    }

    /// A statement failed with `kind`: counted, and kept for `SHOW WARNINGS` and `SHOW ERRORS`
    /// as MySQL keeps it (`@@error_count` 1).
    fn failed(&mut self, kind: ErrorKind, msg: &str) {
        self.counters().errors.fetch_add(1, Relaxed);
        self.warn(
            Warning {
                level: "Error",
                code: kind as u16,
                message: msg.to_string(),
            },
            1,
        );
        self.vars.lock().error_count += 1;
    }

    /// The warning count an OK or EOF packet carries: the statement's own.
    fn warning_count(&self) -> u16 {
        u16::try_from(self.statement_warnings).unwrap_or(u16::MAX)
    }

    fn clear_warnings(&mut self) {
        self.warnings.clear();
        let mut vars = self.vars.lock();
        vars.warning_count = 0;
        vars.error_count = 0;
    }

    /// `SHOW WARNINGS` (`errors`: `SHOW ERRORS`, the errors alone).
    fn show_warnings(&self, errors: bool, limit: Option<(u64, u64)>) -> Answer {
        let (skip, take) = limit.unwrap_or((0, u64::MAX));
        let bound = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let rows: Vec<String> = self
            .warnings
            .iter()
            .filter(|w| !errors || w.level == "Error")
            .skip(bound(skip))
            .take(bound(take))
            .map(|w| format!("({}, {}, {})", quote(w.level), w.code, quote(&w.message)))
            .collect();
        let query = if rows.is_empty() {
            "SELECT NULL AS `Level`, NULL AS `Code`, NULL AS `Message` LIMIT 0".to_string()
        } else {
            format!(
                "SELECT column1 AS `Level`, column2 AS `Code`, column3 AS `Message` FROM \
                 (VALUES {})",
                rows.join(", ")
            )
        };
        Answer::Query(query, warning_columns())
    }

    /// A `SHOW`, against the session's catalog as it is now.
    fn show(&mut self, s: &Show) -> Answer {
        match self.take_engine() {
            Ok(engine) => {
                let answer = show(s, &engine, &self.variables(), &self.ctx);
                self.put_engine(engine);
                answer
            }
            Err(e) => {
                let (kind, msg) = engine_error(&e);
                Answer::Error(kind, msg)
            }
        }
    }
}

fn use_database(db: &str) -> Answer {
    if db.eq_ignore_ascii_case("pinba") || db.eq_ignore_ascii_case("information_schema") {
        Answer::Ok(String::new())
    } else {
        Answer::Error(
            ErrorKind::ER_BAD_DB_ERROR,
            format!("Unknown database '{db}' (pinbad's database is `pinba`)"),
        )
    }
}

/// A `SHOW DATABASES` or `SHOW TABLES` column's name, as MariaDB names it under a `LIKE`:
/// `Database (p%)`, `Tables_in_pinba (req%)`.
fn liked(name: &str, like: &Option<String>) -> String {
    match like {
        Some(p) => format!("{name} ({p})"),
        None => name.to_string(),
    }
}

/// A `SHOW` as a query over `information_schema` (or literal rows).
fn show(
    s: &Show,
    engine: &Engine,
    session: &super::functions::Session,
    ctx: &SqlContext,
) -> Answer {
    let exists = |table: &str| engine.table(table).is_some();
    let no_table = |table: &str| {
        Answer::Error(
            ErrorKind::ER_NO_SUCH_TABLE,
            format!("Table 'pinba.{table}' doesn't exist"),
        )
    };
    let query = match s {
        Show::Databases { like } => format!(
            "SELECT SCHEMA_NAME AS {} FROM information_schema.SCHEMATA WHERE 1{} ORDER BY 1",
            quote_ident(&liked("Database", like)),
            like_clause("SCHEMA_NAME", like)
        ),
        Show::Tables {
            full,
            like,
            database,
        } => {
            let db = database.as_deref().unwrap_or("pinba");
            if !db.eq_ignore_ascii_case("pinba") {
                return Answer::Error(
                    ErrorKind::ER_BAD_DB_ERROR,
                    format!("Unknown database '{db}'"),
                );
            }
            format!(
                "SELECT TABLE_NAME AS {}{} FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = 'pinba'{} ORDER BY 1",
                quote_ident(&liked("Tables_in_pinba", like)),
                if *full {
                    ", TABLE_TYPE AS `Table_type`"
                } else {
                    ""
                },
                like_clause("TABLE_NAME", like)
            )
        }
        Show::Columns { full, table, like } => {
            if !exists(table) {
                return no_table(table);
            }
            let (collation, tail) = if *full {
                (
                    " COLLATION_NAME AS `Collation`,",
                    ", PRIVILEGES AS `Privileges`, COLUMN_COMMENT AS `Comment`",
                )
            } else {
                ("", "")
            };
            format!(
                "SELECT COLUMN_NAME AS `Field`, COLUMN_TYPE AS `Type`,{collation} IS_NULLABLE AS \
                 `Null`, COLUMN_KEY AS `Key`, NULLIF(COLUMN_DEFAULT, 'NULL') AS `Default`, EXTRA AS \
                 `Extra`{tail} \
                 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = \
                 {}{} ORDER BY ORDINAL_POSITION",
                quote(table),
                like_clause("COLUMN_NAME", like)
            )
        }
        Show::CreateTable { table } => {
            let Some(t) = engine.table(table) else {
                return no_table(table);
            };
            let columns: Vec<String> = t
                .columns
                .iter()
                .map(|(name, ty)| format!("  {} {ty} DEFAULT NULL", quote_ident(name)))
                .collect();
            let text = format!(
                "CREATE TABLE {} (\n{}\n) ENGINE=PINBA DEFAULT CHARSET=utf8mb4 COMMENT={}",
                quote_ident(&t.name),
                columns.join(",\n"),
                quote(&t.comment)
            );
            let query = format!(
                "SELECT {} AS `Table`, {} AS `Create Table`",
                quote(&t.name),
                quote(&text)
            );
            return Answer::Query(query, create_columns());
        }
        Show::CreateDatabase { database } => {
            let query = format!(
                "SELECT {} AS `Database`, {} AS `Create Database`",
                quote(database),
                quote(&format!(
                    "CREATE DATABASE {} /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE \
                     utf8mb4_general_ci */",
                    quote_ident(database)
                ))
            );
            return Answer::Query(query, create_columns());
        }
        Show::TableStatus { like } => format!(
            "SELECT TABLE_NAME AS `Name`, ENGINE AS `Engine`, VERSION AS `Version`, ROW_FORMAT AS \
             `Row_format`, TABLE_ROWS AS `Rows`, AVG_ROW_LENGTH AS `Avg_row_length`, DATA_LENGTH \
             AS `Data_length`, MAX_DATA_LENGTH AS `Max_data_length`, INDEX_LENGTH AS \
             `Index_length`, DATA_FREE AS `Data_free`, AUTO_INCREMENT AS `Auto_increment`, \
             CREATE_TIME AS `Create_time`, UPDATE_TIME AS `Update_time`, CHECK_TIME AS \
             `Check_time`, TABLE_COLLATION AS `Collation`, CHECKSUM AS `Checksum`, \
             CREATE_OPTIONS AS `Create_options`, TABLE_COMMENT AS `Comment`, MAX_INDEX_LENGTH \
             AS `Max_index_length`, TEMPORARY AS `Temporary` FROM \
             information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba'{} ORDER BY 1",
            like_clause("TABLE_NAME", like)
        ),
        Show::Variables { like, global } => {
            let rows = variable_rows(session, ctx, *global);
            let query = format!(
                "SELECT column1 AS `Variable_name`, column2 AS `Value` FROM (VALUES {}) WHERE 1{} \
                 ORDER BY 1",
                values(&rows),
                values_like("column1", like)
            );
            return Answer::Query(query, variable_columns());
        }
        Show::Status { like, global } => {
            let rows = status_rows(session, ctx, *global);
            let query = format!(
                "SELECT column1 AS `Variable_name`, column2 AS `Value` FROM (VALUES {}) WHERE 1{} \
                 ORDER BY 1",
                values(&rows),
                values_like("column1", like)
            );
            return Answer::Query(query, variable_columns());
        }
        Show::OpenTables { like } => format!(
            "SELECT TABLE_SCHEMA AS `Database`, TABLE_NAME AS `Table`, 0 AS `In_use`, 0 AS \
             `Name_locked` FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba'{} ORDER \
             BY 2",
            like_clause("TABLE_NAME", like)
        ),
        Show::Engines => "SELECT ENGINE AS `Engine`, SUPPORT AS `Support`, COMMENT AS `Comment`, \
                          TRANSACTIONS AS `Transactions`, XA AS `XA`, SAVEPOINTS AS `Savepoints` \
                          FROM information_schema.ENGINES"
            .to_string(),
        Show::Count { errors } => format!(
            "SELECT @@session.{}",
            if *errors {
                "error_count"
            } else {
                "warning_count"
            }
        ),
        // The session's (see `Session::show_warnings`).
        Show::Warnings { .. } => {
            return Answer::Query(
                "SELECT NULL AS `Level`, NULL AS `Code`, NULL AS `Message` LIMIT 0".into(),
                warning_columns(),
            )
        }
        Show::CharacterSets { like } => format!(
            "SELECT CHARACTER_SET_NAME AS `Charset`, DESCRIPTION AS `Description`, \
             DEFAULT_COLLATE_NAME AS `Default collation`, MAXLEN AS `Maxlen` FROM \
             information_schema.CHARACTER_SETS WHERE 1{} ORDER BY 1",
            like_clause("CHARACTER_SET_NAME", like)
        ),
        Show::Collations { like } => format!(
            "SELECT COLLATION_NAME AS `Collation`, CHARACTER_SET_NAME AS `Charset`, ID AS `Id`, \
             IS_DEFAULT AS `Default`, IS_COMPILED AS `Compiled`, SORTLEN AS `Sortlen` FROM \
             information_schema.COLLATIONS WHERE 1{} \
             ORDER BY 1",
            like_clause("COLLATION_NAME", like)
        ),
        Show::Processlist { full } => {
            let now = Instant::now();
            let rows: Vec<String> = ctx
                .processes
                .lock()
                .iter()
                .map(|(id, p)| {
                    let info = p.info.as_deref().map(|i| match full {
                        true => i.to_string(),
                        false => i.chars().take(PROCESS_INFO_CHARS).collect(),
                    });
                    format!(
                        "({id}, {}, {}, 'pinba', {}, {}, '', {})",
                        quote(&p.user),
                        quote(&p.host),
                        quote(if info.is_some() { "Query" } else { "Sleep" }),
                        now.saturating_duration_since(p.since).as_secs(),
                        info.as_deref().map_or("NULL".into(), quote)
                    )
                })
                .collect();
            let query = format!(
                "SELECT column1 AS `Id`, column2 AS `User`, column3 AS `Host`, column4 AS `db`, \
                 column5 AS `Command`, column6 AS `Time`, column7 AS `State`, column8 AS `Info` \
                 FROM (VALUES {}) ORDER BY 1",
                rows.join(", ")
            );
            return Answer::Query(query, process_columns(*full));
        }
        Show::Where(inner, condition) => {
            let Answer::Query(inner, metas) = show(inner, engine, session, ctx) else {
                return show(inner, engine, session, ctx);
            };
            // The condition as the translation reads it in a query of its own.
            let probe = format!("SELECT 1 FROM _pinbad_show WHERE {condition}");
            let context = session.vars.lock().context();
            let translated = match super::translate::query_in(&probe, &context) {
                Ok((text, _)) => text,
                Err(super::translate::Refusal::Syntax(why)) => {
                    return Answer::Error(ErrorKind::ER_PARSE_ERROR, why)
                }
                Err(
                    super::translate::Refusal::Unsupported(why)
                    | super::translate::Refusal::Memory(why),
                ) => return Answer::Error(ErrorKind::ER_NOT_SUPPORTED_YET, why),
                Err(super::translate::Refusal::Error(code, why)) => {
                    return Answer::Error(ErrorKind::from(code), why)
                }
            };
            let Some((_, condition)) = translated.split_once(" WHERE ") else {
                return Answer::Error(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    format!("SHOW … WHERE {condition}: not supported"),
                );
            };
            // The same columns, declared as the `SHOW`'s.
            return Answer::Query(
                format!("SELECT * FROM ({inner}) AS _pinbad_show WHERE {condition}"),
                metas,
            );
        }
        Show::Empty { columns, computed } => {
            let (cols, metas): (Vec<String>, Vec<Option<Meta>>) = columns
                .iter()
                .flat_map(|part| part.iter())
                .map(|c| {
                    let meta = match computed {
                        true => Meta::of_show(c.ty, c.nullable),
                        false => Meta::of_information_schema(c.ty, c.nullable),
                    };
                    (format!("NULL AS {}", quote_ident(c.name)), Some(meta))
                })
                .unzip();
            return Answer::Query(format!("SELECT {} LIMIT 0", cols.join(", ")), metas);
        }
    };
    over_information_schema(&query, s)
}

/// `(name, value), …`: rows of `VALUES`.
fn values(rows: &[(&str, String)]) -> String {
    let rows: Vec<String> = rows
        .iter()
        .map(|(name, v)| format!("({}, {})", quote(name), quote(v)))
        .collect();
    rows.join(", ")
}

/// The system variables as `SHOW VARIABLES` writes them, by name: the session's, or with
/// `global` the server's (what a session starts with).
fn variable_rows(
    session: &super::functions::Session,
    ctx: &SqlContext,
    global: bool,
) -> Vec<(&'static str, String)> {
    use super::variables::Kind;
    let server;
    let session = if global {
        server = super::functions::Session::new(
            session.version.clone(),
            session.user.clone(),
            session.connection_id,
            &ctx.config,
            Default::default(),
        );
        &server
    } else {
        session
    };
    super::functions::variables(session)
        .into_iter()
        .map(|(name, v)| {
            let kind = super::variables::system(name).map(|s| s.kind);
            let v = match v {
                Value::Integer(i) if kind == Some(Kind::Boolean) => {
                    (if i == 0 { "OFF" } else { "ON" }).to_string()
                }
                Value::Integer(i) if kind == Some(Kind::Unsigned) => (i as u64).to_string(),
                Value::Integer(i) => i.to_string(),
                // MariaDB writes a DOUBLE variable with 6 decimals (`10.000000`).
                Value::Real(f) => format!("{f:.6}"),
                Value::Text(t) => t,
                _ => String::new(),
            };
            (name, v)
        })
        .collect()
}

/// MariaDB's status variables pinbad has figures for: the server's, or with `global` false
/// the session's where MariaDB keeps one of its own (`Questions`). `Ssl_cipher` is empty (no
/// TLS), which clients read to say whether the connection is encrypted.
fn status_rows(
    session: &super::functions::Session,
    ctx: &SqlContext,
    global: bool,
) -> Vec<(&'static str, String)> {
    let c = &ctx.core.counters().sql;
    let n = |a: &std::sync::atomic::AtomicU64| a.load(Relaxed);
    let uptime = ctx.core.clock().uptime().as_secs();
    let running = ctx
        .processes
        .lock()
        .values()
        .filter(|p| p.info.is_some())
        .count() as u64;
    let questions = match global {
        true => n(&c.statements),
        false => session.vars.lock().questions,
    };
    let refused = n(&c.sessions_refused) + n(&c.hosts_blocked);
    [
        (
            "Aborted_connects",
            n(&c.auth_failed) + n(&c.auth_unchecked) + refused,
        ),
        ("Connections", n(&c.sessions) + refused),
        ("Max_used_connections", n(&c.peak_sessions)),
        ("Queries", n(&c.statements)),
        ("Questions", questions),
        ("Threads_connected", n(&c.current_sessions)),
        ("Threads_running", running),
        ("Uptime", uptime),
        ("Uptime_since_flush_status", uptime),
    ]
    .into_iter()
    .map(|(name, v)| (name, v.to_string()))
    .chain([("Ssl_cipher", String::new())])
    .collect()
}

/// `information_schema`'s tables of the server's variables and figures, by name: their rows
/// as MariaDB writes them (names upper-cased), for a statement that reads them (`statement`,
/// translated; `session` made only then). Empty for any other.
pub(super) fn server_tables(
    statement: &str,
    session: impl FnOnce() -> super::functions::Session,
    ctx: &SqlContext,
) -> Vec<(&'static str, Vec<(String, String)>)> {
    const TABLES: [&str; 4] = [
        "GLOBAL_STATUS",
        "SESSION_STATUS",
        "GLOBAL_VARIABLES",
        "SESSION_VARIABLES",
    ];
    let named = |t: &str| {
        statement
            .as_bytes()
            .windows(t.len())
            .any(|w| w.eq_ignore_ascii_case(t.as_bytes()))
    };
    let read: Vec<&'static str> = TABLES.into_iter().filter(|t| named(t)).collect();
    if read.is_empty() {
        return Vec::new();
    }
    let session = session();
    let session = &session;
    read.into_iter()
        .map(|t| {
            let global = t.starts_with("GLOBAL");
            let rows = match t.ends_with("STATUS") {
                true => status_rows(session, ctx, global),
                false => variable_rows(session, ctx, global),
            };
            let rows = rows
                .into_iter()
                .map(|(name, v)| (name.to_ascii_uppercase(), v))
                .collect();
            (t, rows)
        })
        .collect()
}

/// A `SHOW`'s query over `information_schema`, translated as a client's `SELECT` is: its
/// columns declared as the tables' columns they are (`TABLE_NAME` a VARCHAR(64), never NULL),
/// as MariaDB declares them. Read in the default session (MariaDB's `information_schema`
/// compares by its own collation, whatever the connection's).
fn over_information_schema(query: &str, s: &Show) -> Answer {
    let (text, mut metas) =
        match super::translate::query_in(query, &super::variables::Context::default()) {
            Ok(t) => t,
            Err(_) => {
                return Answer::Error(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    "pinbad could not read its own information_schema".into(),
                )
            }
        };
    match s {
        // MariaDB's table names there may take the `#mysql50#` prefix: 73 characters.
        Show::Tables { .. } => {
            if let Some(first) = metas.first_mut() {
                *first = Some(Meta::of_information_schema(
                    super::information_schema::Type::Varchar(73),
                    false,
                ));
            }
        }
        Show::OpenTables { .. } => {
            metas = super::information_schema::SHOW_OPEN_TABLES
                .iter()
                .map(|c| Some(Meta::of_information_schema(c.ty, c.nullable)))
                .collect();
        }
        // `Default` is `COLUMN_DEFAULT`'s, which `NULLIF` (its `'NULL'` as NULL) computes.
        Show::Columns { full, .. } => {
            if let Some(m) = metas.get_mut(if *full { 5 } else { 4 }) {
                *m = super::information_schema::table("COLUMNS")
                    .and_then(|t| t.iter().find(|c| c.name == "COLUMN_DEFAULT"))
                    .map(|c| Meta::of_information_schema(c.ty, c.nullable));
            }
        }
        _ => {}
    }
    Answer::Query(text, metas)
}

/// `SHOW CREATE TABLE`'s and `SHOW CREATE DATABASE`'s columns as MariaDB declares them: the
/// name and the statement, computed strings of 64 and 1024 characters, never NULL.
fn create_columns() -> Vec<Option<Meta>> {
    vec![
        Some(Meta::show_text(64, false)),
        Some(Meta::show_text(1024, false)),
    ]
}

/// `SHOW [FULL] PROCESSLIST`'s columns as MariaDB declares them (computed: `Id` a BIGINT of
/// 11, `Time` an INT of 7; `Info` 100 characters, or all of a statement's with `FULL`).
fn process_columns(full: bool) -> Vec<Option<Meta>> {
    let text = |chars, nullable| {
        let m = Meta::show_text(chars, false);
        Some(if nullable { m.or_null() } else { m })
    };
    vec![
        Some(Meta::show_integer(Code::LongLong, 11)),
        text(128, false),
        text(64, false),
        text(64, true),
        text(16, false),
        Some(Meta::show_integer(Code::Long, 7)),
        text(30, true),
        text(if full { 50_331_648 } else { 100 }, true),
    ]
}

/// `LIKE` as MySQL's `SHOW … LIKE` reads it, for a query over `information_schema` (which the
/// translation reads: a backslash escapes there).
fn like_clause(column: &str, like: &Option<String>) -> String {
    match like {
        Some(p) => format!(" AND {column} LIKE {}", prepared::string(p)),
        None => String::new(),
    }
}

/// `LIKE` as MySQL's `SHOW … LIKE` reads it, for a query SQLite reads as written (over
/// `VALUES`): a backslash escapes, as in MySQL.
fn values_like(column: &str, like: &Option<String>) -> String {
    match like {
        Some(p) => format!(" AND {column} LIKE {} ESCAPE '\\'", quote(p)),
        None => String::new(),
    }
}

/// `SHOW WARNINGS`' columns as MariaDB declares them: `Level`, `Code`, `Message`.
fn warning_columns() -> Vec<Option<Meta>> {
    vec![
        Some(Meta::show_text(7, false)),
        Some(Meta::warning_code()),
        Some(Meta::show_text(512, false)),
    ]
}

/// `SHOW VARIABLES`' and `SHOW STATUS`' columns as MariaDB declares them: `Variable_name`,
/// `Value`.
fn variable_columns() -> Vec<Option<Meta>> {
    vec![
        Some(Meta::show_text(64, true)),
        Some(Meta::show_text(4096, true)),
    ]
}

/// An OK's status: `SERVER_MORE_RESULTS_EXISTS` where statements of the same query follow.
fn more_flag(more: bool) -> StatusFlags {
    if more {
        StatusFlags::SERVER_MORE_RESULTS_EXISTS
    } else {
        StatusFlags::empty()
    }
}

/// The collation id of numbers, temporals and binary strings.
const BINARY_CHARSET: u16 = 63;

/// The column a result column the typing declares is sent as.
fn declared_column(name: String, m: &Meta) -> Column {
    let coltype = match m.code {
        Code::Null => ColumnType::MYSQL_TYPE_NULL,
        Code::Long => ColumnType::MYSQL_TYPE_LONG,
        Code::LongLong => ColumnType::MYSQL_TYPE_LONGLONG,
        Code::NewDecimal => ColumnType::MYSQL_TYPE_NEWDECIMAL,
        Code::Float => ColumnType::MYSQL_TYPE_FLOAT,
        Code::Double => ColumnType::MYSQL_TYPE_DOUBLE,
        Code::VarString | Code::ByValue => ColumnType::MYSQL_TYPE_VAR_STRING,
        Code::String => ColumnType::MYSQL_TYPE_STRING,
        Code::Blob => ColumnType::MYSQL_TYPE_BLOB,
        Code::MediumBlob => ColumnType::MYSQL_TYPE_MEDIUM_BLOB,
        Code::LongBlob => ColumnType::MYSQL_TYPE_LONG_BLOB,
        Code::Date => ColumnType::MYSQL_TYPE_DATE,
        Code::DateTime => ColumnType::MYSQL_TYPE_DATETIME,
        Code::Time => ColumnType::MYSQL_TYPE_TIME,
    };
    let mut colflags = ColumnFlags::empty();
    if m.binary_flag() {
        colflags |= ColumnFlags::BINARY_FLAG;
    }
    if m.blob_flag() {
        colflags |= ColumnFlags::BLOB_FLAG;
    }
    if m.unsigned {
        colflags |= ColumnFlags::UNSIGNED_FLAG;
    }
    if !m.nullable {
        colflags |= ColumnFlags::NOT_NULL_FLAG;
    }
    Column {
        table: String::new(),
        column: name,
        coltype,
        colflags,
        length: m.length,
        decimals: m.decimals,
        charset: if m.is_text() {
            UTF8MB4_GENERAL_CI
        } else {
            BINARY_CHARSET
        },
    }
}

/// `c` as sent where the results' collation (`SET NAMES … COLLATE`) is `text`: a text column
/// with its id, and where that is utf8mb3's (`mb3`) as long as its characters take there (3
/// bytes each, not 4), as MySQL converts a column's length to the results' character set.
fn in_results_collation(mut c: Column, text: u16, mb3: bool) -> Column {
    if c.charset == UTF8MB4_GENERAL_CI {
        c.charset = text;
        if mb3 {
            c.length = c.length / 4 * 3;
        }
    }
    c
}

/// A column whose type only its values tell (a `SHOW`'s, one the typing does not follow).
fn value_column(name: String, ty: OutType) -> Column {
    let (coltype, length, decimals, charset) = match ty {
        OutType::Integer => (ColumnType::MYSQL_TYPE_LONGLONG, 21, 0, BINARY_CHARSET),
        OutType::Double => (ColumnType::MYSQL_TYPE_DOUBLE, 23, 31, BINARY_CHARSET),
        OutType::Text => (
            ColumnType::MYSQL_TYPE_VAR_STRING,
            1024,
            39,
            UTF8MB4_GENERAL_CI,
        ),
        OutType::Blob => (ColumnType::MYSQL_TYPE_BLOB, 65535, 0, BINARY_CHARSET),
        OutType::Int32 => (ColumnType::MYSQL_TYPE_LONG, 11, 0, BINARY_CHARSET),
        OutType::LongText => (ColumnType::MYSQL_TYPE_BLOB, u32::MAX, 0, UTF8MB4_GENERAL_CI),
        OutType::DateTime => (ColumnType::MYSQL_TYPE_DATETIME, 19, 0, BINARY_CHARSET),
    };
    Column {
        table: String::new(),
        column: name,
        coltype,
        colflags: ColumnFlags::empty(),
        length,
        decimals,
        charset,
    }
}

impl Session {
    /// The names of the columns `sql` answers with (none for a statement without rows), found
    /// without running it: what a prepared statement's metadata lists.
    fn columns_of(&mut self, sql: &str) -> Result<Vec<String>, (ErrorKind, String)> {
        let query = match statement::classify(sql) {
            Ok(Statement::CreateTable(_) | Statement::DropTables { .. }) => return Ok(Vec::new()),
            _ => match self.answer(sql) {
                Answer::Ok(_) => return Ok(Vec::new()),
                Answer::Error(kind, msg) => return Err((kind, msg)),
                Answer::Query(q, _) => q,
            },
        };
        let mut engine = self.take_engine().map_err(|e| engine_error(&e))?;
        let names = engine.column_names(&query);
        self.put_engine(engine);
        names.map_err(|e| statement_error(&e, sql))
    }
}

/// A double as the integer it rounds to, for an integer column (`1.8446744073709552e19` is
/// `18446744073709551616`); a NaN or an infinity as 0.
fn integer_text(f: f64) -> String {
    if f.is_finite() {
        format!("{}", f.round_ties_even() as i128)
    } else {
        "0".into()
    }
}

/// A value as the binary protocol encodes it for its column: each value in its column's type
/// (SQLite's values are typed per row: an integer in a column of reals, a number in a text
/// column), an integer in the width and sign its column declares.
enum Binary {
    Null,
    I64(i64),
    U64(u64),
    I32(i32),
    U32(u32),
    F64(f64),
    F32(f32),
    Text(String),
    Bytes(Vec<u8>),
}

/// `v` as a value of column `c`, for the binary protocol. A value a number column cannot hold
/// as it is is read as MySQL reads one (a string's leading number; an integer out of a LONG's
/// range clamped to it, as MySQL stores one in an INT).
fn binary_value(v: &Value, c: &Column) -> Binary {
    let unsigned = c.colflags.contains(ColumnFlags::UNSIGNED_FLAG);
    let number = |v: &Value| -> Option<f64> {
        match v {
            Value::Integer(i) => Some(*i as f64),
            Value::Real(f) => Some(*f),
            Value::Text(t) => Some(super::functions::leading_number(t)),
            _ => None,
        }
    };
    let integer = |v: &Value| -> Option<i128> {
        match v {
            Value::Integer(i) => Some(i128::from(*i)),
            Value::Text(t) => t
                .trim()
                .parse::<i128>()
                .ok()
                .or_else(|| Some(super::functions::leading_number(t) as i128)),
            other => number(other).map(|f| f as i128),
        }
    };
    match (c.coltype, v) {
        (_, Value::Null) => Binary::Null,
        (ColumnType::MYSQL_TYPE_LONGLONG, v) if unsigned => {
            // A negative integer here is an unsigned one past 2^63 as SQLite holds it.
            integer(v).map_or(Binary::Null, |i| Binary::U64(i as u64))
        }
        (ColumnType::MYSQL_TYPE_LONGLONG, v) => integer(v).map_or(Binary::Null, |i| {
            Binary::I64(i.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
        }),
        (ColumnType::MYSQL_TYPE_LONG, v) if unsigned => integer(v).map_or(Binary::Null, |i| {
            Binary::U32(i.clamp(0, i128::from(u32::MAX)) as u32)
        }),
        (ColumnType::MYSQL_TYPE_LONG, v) => integer(v).map_or(Binary::Null, |i| {
            Binary::I32(i.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32)
        }),
        (ColumnType::MYSQL_TYPE_DOUBLE, v) => number(v).map_or(Binary::Null, Binary::F64),
        (ColumnType::MYSQL_TYPE_FLOAT, v) => {
            number(v).map_or(Binary::Null, |f| Binary::F32(f as f32))
        }
        // A NULL-typed column holds only NULLs.
        (ColumnType::MYSQL_TYPE_NULL, _) => Binary::Null,
        (ColumnType::MYSQL_TYPE_BLOB, Value::Text(t)) => Binary::Bytes(t.clone().into_bytes()),
        (_, Value::Integer(i)) => Binary::Text(i.to_string()),
        (_, Value::Real(f)) => Binary::Text(super::functions::double_text(*f)),
        (_, Value::Text(t)) => Binary::Text(t.clone()),
        (_, Value::Blob(b)) => Binary::Bytes(b.clone()),
    }
}

/// The MySQL error of an engine's failure.
fn engine_error(e: &SqlError) -> (ErrorKind, String) {
    statement_error(e, "")
}

/// The MySQL error of an engine's failure to answer `statement` (its MySQL text): an unknown
/// column is named in the clause MySQL names it in.
fn statement_error(e: &SqlError, statement: &str) -> (ErrorKind, String) {
    match e {
        SqlError::NoSuchTable(t) => (
            ErrorKind::ER_NO_SUCH_TABLE,
            format!("Table 'pinba.{t}' doesn't exist"),
        ),
        SqlError::NoSuchColumn(c) => (
            ErrorKind::ER_BAD_FIELD_ERROR,
            format!(
                "Unknown column '{c}' in '{}'",
                super::translate::unknown_column_clause(statement, c)
            ),
        ),
        SqlError::Killed(limit) => (
            ErrorKind::ER_QUERY_INTERRUPTED,
            format!(
                "Query execution was interrupted: it ran longer than mysql.max_query_time ({})",
                humantime::format_duration(*limit)
            ),
        ),
        SqlError::ClientGone => (ErrorKind::ER_UNKNOWN_ERROR, "client gone".into()),
        SqlError::OutOfMemory(cap) => (
            ErrorKind::ER_OUT_OF_RESOURCES,
            format!(
                "Out of memory: SQL statements may hold {} MiB together now (mysql.max_memory, \
                 within what limits.max_memory leaves), and this one needed more",
                cap >> 20
            ),
        ),
        SqlError::RowTooLarge(bytes, max) => (
            ErrorKind::ER_NET_PACKET_TOO_LARGE,
            format!(
                "Got a packet bigger than 'max_allowed_packet' bytes: a result row of {bytes} \
                 bytes, longer than mysql.max_allowed_packet ({max})"
            ),
        ),
        SqlError::Refused(code, s) => (ErrorKind::from(*code), s.clone()),
        SqlError::Other(s) => (ErrorKind::ER_UNKNOWN_ERROR, s.clone()),
    }
}

impl Session {
    /// Writes `answer` to `statement` (its MySQL text, which an error names a place in),
    /// running its query on the blocking pool under a query slot. With `more`
    /// (statements of the same query follow), a success is marked `SERVER_MORE_RESULTS_EXISTS`
    /// and the writer comes back for the next answer; `columns` holds the answer's columns as
    /// long as the writer needs them. `None`: the query's answer is complete (the last
    /// statement's, or an error, after which MySQL runs no more of them).
    async fn write<'r, W: AsyncWrite + Send + Unpin>(
        &mut self,
        answer: Answer,
        statement: &str,
        results: QueryResultWriter<'r, W>,
        more: bool,
        columns: &'r mut Vec<Column>,
    ) -> std::io::Result<Option<QueryResultWriter<'r, W>>> {
        let (sql, mut decimals) = match answer {
            Answer::Ok(info) => {
                self.vars.lock().row_count = 0;
                // The statement's warnings (`SHOW WARNINGS` lists them), as MySQL counts them.
                let ok = OkResponse {
                    info,
                    status_flags: more_flag(more),
                    warnings: self.warning_count(),
                    ..Default::default()
                };
                return if more {
                    results.complete_one(ok).await.map(Some)
                } else {
                    results.completed(ok).await.map(|()| None)
                };
            }
            Answer::Error(kind, msg) => {
                self.failed(kind, &msg);
                return results.error(kind, &msg.into_bytes()).await.map(|()| None);
            }
            Answer::Query(sql, decimals) => (sql, decimals),
        };
        let count_query = self.found_rows_query.take();
        let server_tables = server_tables(&sql, || self.variables(), &self.ctx);
        let max_query_time = self.ctx.config.max_query_time.0;
        let deadline = Instant::now() + max_query_time;
        let slot = match self.ctx.slot(deadline).await {
            Ok(slot) => slot,
            Err(NoSlot::QueueFull) => {
                self.counters().busy.fetch_add(1, Relaxed);
                let (kind, msg) = (
                    ErrorKind::ER_TOO_MANY_USER_CONNECTIONS,
                    "pinbad is busy: every mysql.max_concurrent_queries slot is taken and \
                     mysql.max_queued_queries statements wait for one; retry in a moment",
                );
                self.failed(kind, msg);
                return results.error(kind, msg.as_bytes()).await.map(|()| None);
            }
            Err(NoSlot::TimedOut) => {
                self.counters().killed.fetch_add(1, Relaxed);
                let (kind, msg) = engine_error(&SqlError::Killed(max_query_time));
                let msg = format!("{msg}, waiting for a query slot");
                self.failed(kind, &msg);
                return results.error(kind, msg.as_bytes()).await.map(|()| None);
            }
        };
        let engine = match self.take_engine() {
            Ok(e) => e,
            Err(e) => {
                let (kind, msg) = engine_error(&e);
                self.failed(kind, &msg);
                return results.error(kind, &msg.into_bytes()).await.map(|()| None);
            }
        };
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Event>(2);
        let job = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            let mut engine = engine;
            let result = engine
                .fill_server_tables(&server_tables)
                .and_then(|()| engine.run(&sql, deadline, &mut |e| tx.blocking_send(e).is_ok()));
            // `SQL_CALC_FOUND_ROWS`: the rows without the LIMIT, counted once the rows are out.
            let counted = match (&result, count_query) {
                (Ok(_), Some(q)) => engine.value(&q, deadline).ok().and_then(|v| match v {
                    Value::Integer(n) => u64::try_from(n).ok(),
                    _ => None,
                }),
                _ => None,
            };
            (engine, result, counted)
        });
        // Every statement's first event is its columns; one that fails before sends none.
        if let Some(Event::Columns(c)) = rx.recv().await {
            // The typing counts the select list's items; a result of other columns (a `SHOW`,
            // a rewrite's) keeps its types.
            if decimals.len() != c.len() {
                decimals.clear();
            }
            let (text, mb3) = {
                let vars = self.vars.lock();
                (vars.results_collation, vars.results_mb3())
            };
            *columns = c
                .iter()
                .enumerate()
                .map(|(i, c)| match decimals.get(i) {
                    Some(Some(m)) => declared_column(c.name.clone(), m),
                    _ => value_column(c.name.clone(), c.ty),
                })
                .map(|c| in_results_collation(c, text, mb3))
                .collect();
        }
        let columns: &'r [Column] = columns;
        // A write still blocked at the deadline (a client that stopped reading) ends the
        // session: the statement's channel closes, so it stops and frees its slot.
        let stopped_reading = || {
            std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client stopped reading its rows (mysql.max_query_time)",
            )
        };
        let deadline_at = tokio::time::Instant::from_std(deadline);
        let mut writer = None;
        let mut rows_sent = 0u64;
        let mut results = Some(results);
        let mut failed_write = None;
        if !columns.is_empty() {
            if let Some(start) = results.take().map(|r| r.start(columns)) {
                match tokio::time::timeout_at(deadline_at, start).await {
                    Ok(Ok(w)) => writer = Some(w),
                    Ok(Err(e)) => failed_write = Some(e),
                    Err(_) => failed_write = Some(stopped_reading()),
                }
            }
            while let Some(event) = rx.recv().await {
                let (Event::Rows(mut rows), Some(w)) = (event, writer.as_mut()) else {
                    continue;
                };
                // The chunk stays charged to SQL's memory until it is written.
                for row in std::mem::take(&mut rows.rows) {
                    for (i, v) in row.iter().enumerate() {
                        let converted;
                        // A column only its declared type tells (`information_schema`'s
                        // DATETIMEs) is sent as that type too.
                        let declared = match decimals.get(i) {
                            Some(Some(m)) => Some(m.declared()),
                            _ => columns
                                .get(i)
                                .filter(|c| c.coltype == ColumnType::MYSQL_TYPE_DATETIME)
                                .map(|_| Some(Declared::DateTime)),
                        };
                        let v = match (declared, columns.get(i)) {
                            // In the binary protocol a temporal goes in MySQL's binary
                            // form, NULL where it has none; the text protocol sends its text
                            // as any other value.
                            (
                                Some(Some(
                                    kind @ (Declared::Date | Declared::DateTime | Declared::Time),
                                )),
                                _,
                            ) if self.binary => {
                                let t = match v {
                                    Value::Text(text) => Temporal::new(text, kind),
                                    _ => None,
                                };
                                let r = match t {
                                    Some(t) => w.write_col(t),
                                    None => w.write_col(None::<i64>),
                                };
                                if let Err(e) = r {
                                    failed_write = Some(e);
                                }
                                continue;
                            }
                            // A DECIMAL's text, with its scale (`3.5000`), in either protocol.
                            (Some(Some(Declared::Decimal(scale))), _) => {
                                // (A value that is no number, were one to come, as it is.)
                                converted = super::functions::decimal_text(v.into(), scale)
                                    .map_or_else(|| v.clone(), Value::Text);
                                &converted
                            }
                            // A DOUBLE of fixed decimals with them (`1.50`), a FLOAT with its
                            // six significant digits (`1.424`), in text.
                            (Some(Some(d @ (Declared::Double(_) | Declared::Float))), _)
                                if !self.binary =>
                            {
                                let text = |x: f64| match d {
                                    Declared::Double(decimals) => {
                                        super::functions::fixed_double_text(x, decimals)
                                    }
                                    _ => super::functions::float_text(x),
                                };
                                converted = match v {
                                    Value::Real(f) => Value::Text(text(*f)),
                                    Value::Integer(i) => Value::Text(text(*i as f64)),
                                    _ => v.clone(),
                                };
                                &converted
                            }
                            (_, Some(c)) if self.binary => {
                                let r = match binary_value(v, c) {
                                    Binary::Null => w.write_col(None::<i64>),
                                    Binary::I64(i) => w.write_col(i),
                                    Binary::U64(i) => w.write_col(i),
                                    Binary::I32(i) => w.write_col(i),
                                    Binary::U32(i) => w.write_col(i),
                                    Binary::F64(f) => w.write_col(f),
                                    Binary::F32(f) => w.write_col(f),
                                    Binary::Text(t) => w.write_col(t.as_str()),
                                    Binary::Bytes(b) => w.write_col(b.as_slice()),
                                };
                                if let Err(e) = r {
                                    failed_write = Some(e);
                                }
                                continue;
                            }
                            _ => v,
                        };
                        let unsigned = columns
                            .get(i)
                            .is_some_and(|c| c.colflags.contains(ColumnFlags::UNSIGNED_FLAG));
                        let integer = columns.get(i).is_some_and(|c| {
                            matches!(
                                c.coltype,
                                ColumnType::MYSQL_TYPE_LONG | ColumnType::MYSQL_TYPE_LONGLONG
                            )
                        });
                        let r = match v {
                            Value::Null => w.write_col(None::<i64>),
                            // An unsigned integer past 2^63 is a negative one in SQLite.
                            Value::Integer(i) if unsigned => w.write_col(*i as u64),
                            Value::Integer(i) => w.write_col(*i),
                            // An integer column's value computed as a double (past 64 bits)
                            // is written as the integer it is, never `1.8e19` a client's
                            // integer conversion refuses.
                            Value::Real(f) if integer => w.write_col(integer_text(*f).as_str()),
                            // As MySQL writes a DOUBLE (`1e20`, not twenty digits).
                            Value::Real(f) if !self.binary => {
                                w.write_col(super::functions::double_text(*f).as_str())
                            }
                            Value::Real(f) => w.write_col(*f),
                            // Text in an integer column (a value with a fraction where the
                            // typing found none) as the integer it reads as: MySQL sends no
                            // other in one.
                            Value::Text(t) if integer && t.trim().parse::<i128>().is_err() => {
                                let n = super::functions::leading_number(t);
                                w.write_col(integer_text(n.round()).as_str())
                            }
                            Value::Text(t) => w.write_col(t.as_str()),
                            Value::Blob(b) => w.write_col(b.as_slice()),
                        };
                        if let Err(e) = r {
                            failed_write = Some(e);
                        }
                    }
                    match tokio::time::timeout_at(deadline_at, w.end_row()).await {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => {
                            failed_write = Some(e);
                            break;
                        }
                        Err(_) => {
                            failed_write = Some(stopped_reading());
                            break;
                        }
                    }
                    rows_sent += 1;
                }
                if failed_write.is_some() {
                    // The client is gone: the statement stops at its next chunk.
                    break;
                }
            }
        }
        drop(rx);
        let (engine, result, counted) = job
            .await
            .map_err(|e| std::io::Error::other(format!("SQL statement panicked: {e}")))?;
        self.put_engine(engine);
        self.counters().rows_sent.fetch_add(rows_sent, Relaxed);
        {
            // `FOUND_ROWS()`: this result's rows; GROUP_CONCAT's cuts: warnings (1260).
            let mut vars = self.vars.lock();
            vars.found_rows = counted.unwrap_or(rows_sent);
            vars.row_count = -1;
            drop(vars);
            self.computed_warnings();
        }
        if let Some(e) = failed_write {
            if e.kind() == std::io::ErrorKind::TimedOut {
                self.counters().killed.fetch_add(1, Relaxed);
                tracing::debug!(client = %self.peer, "SQL session closed: its client stopped reading");
            }
            return Err(e);
        }
        let warnings = self.warning_count();
        match (result, writer, results) {
            (Ok(_), Some(mut w), _) if more => {
                w.set_warnings(warnings);
                w.finish_one().await.map(Some)
            }
            (Ok(_), Some(mut w), _) => {
                w.set_warnings(warnings);
                w.finish().await.map(|()| None)
            }
            (Ok(_), None, Some(r)) if more => r
                .complete_one(OkResponse {
                    status_flags: more_flag(true),
                    warnings,
                    ..Default::default()
                })
                .await
                .map(Some),
            (Ok(_), None, Some(r)) => r
                .completed(OkResponse {
                    warnings,
                    ..Default::default()
                })
                .await
                .map(|()| None),
            (Err(e), w, r) => {
                match e {
                    SqlError::Killed(_) => self.counters().killed.fetch_add(1, Relaxed),
                    SqlError::OutOfMemory(_) => self.counters().out_of_memory.fetch_add(1, Relaxed),
                    _ => 0,
                };
                let (kind, msg) = statement_error(&e, statement);
                self.failed(kind, &msg);
                match (w, r) {
                    (Some(w), _) => w.finish_error(kind, &msg.into_bytes()).await?,
                    (None, Some(r)) => r.error(kind, &msg.into_bytes()).await?,
                    (None, None) => {}
                }
                Ok(None)
            }
            (Ok(_), None, None) => Ok(None),
        }
    }
}

#[async_trait]
impl<W: AsyncWrite + Send + Unpin> AsyncMysqlShim<W> for Session {
    type Error = std::io::Error;

    fn version(&self) -> String {
        super::VERSION.to_string()
    }

    fn connect_id(&self) -> u32 {
        self.id
    }

    fn salt(&self) -> [u8; 20] {
        self.salt
    }

    async fn authenticate(
        &self,
        _auth_plugin: &str,
        username: &[u8],
        salt: &[u8],
        auth_data: &[u8],
    ) -> bool {
        let user = String::from_utf8_lossy(username).into_owned();
        let login = self.ctx.login(self.peer.ip(), &user, salt, auth_data);
        let ok = login.is_ok();
        if let Err(failed) = login {
            self.counters().auth_failed.fetch_add(1, Relaxed);
            // Each failure from an address answers later than the one before (guessing slows
            // to a crawl), and is logged once a minute per address at most (never the
            // password, which is not here anyway). Within the handshake's bound, so that the
            // client reads why.
            let delay = failed.delay.min(self.ctx.config.handshake_timeout.0 / 2);
            if let Some(since) = failed.log {
                tracing::warn!(
                    client = %self.peer,
                    user = %user,
                    failures = failed.failures,
                    since_last_line = since,
                    delay_ms = delay.as_millis() as u64,
                    "SQL login refused: wrong user or password (one line a minute per address at most)"
                );
            }
            self.wire.deny(format!(
                "Access denied for user '{}'@'{}' (using password: {})",
                user.replace('\'', "''"),
                self.peer.ip(),
                if auth_data.is_empty() { "NO" } else { "YES" }
            ));
            // `failed` is held until the answer: a login refused unchecked counts as waiting.
            tokio::time::sleep(delay).await;
        } else {
            if let Ok(mut u) = self.user.lock() {
                *u = user;
            }
            self.wire.set_authenticated();
            // The character set the client logged in with, as `SET NAMES` takes it: a utf8mb3
            // collation's (the `mysql` client's) makes literals and results utf8mb3, as in
            // MariaDB; any other is the default, utf8mb4.
            if let Some((charset, collation)) = login_names(self.wire.login_collation()) {
                let _ = self.vars.lock().set_names(charset, Some(collation));
            }
            self.note_process(None);
        }
        ok
    }

    async fn on_prepare<'a>(
        &'a mut self,
        query: &'a str,
        info: StatementMetaWriter<'a, W>,
    ) -> std::io::Result<()> {
        let (ansi_quotes, no_backslash_escapes) = self.vars.lock().reading();
        let query = &*super::dialect::in_default_mode(query, ansi_quotes, no_backslash_escapes);
        let keep = match statement::classify(query) {
            Ok(Statement::CreateTable(text)) => ddl::created_name(&text),
            _ => None,
        };
        self.carry_out_drops(keep.as_deref()).await;
        self.statement_begins();
        if self.prepared.len() >= MAX_PREPARED_PER_SESSION {
            let kind = ErrorKind::ER_MAX_PREPARED_STMT_COUNT_REACHED;
            let msg = format!(
                "Can't create more than max_prepared_stmt_count statements (current value: \
                 {MAX_PREPARED_PER_SESSION}): close the ones no longer used"
            );
            self.failed(kind, &msg);
            return info.error(kind, msg.as_bytes()).await;
        }
        let statement = Prepared::new(query);
        let columns = match self.columns_of(&statement.probe()) {
            Ok(names) => names
                .into_iter()
                .map(|name| value_column(name, OutType::Text))
                .collect::<Vec<_>>(),
            Err((kind, msg)) => {
                self.failed(kind, &msg);
                return info.error(kind, msg.as_bytes()).await;
            }
        };
        let params: Vec<Column> = (0..statement.placeholders.len())
            .map(|_| value_column("?".into(), OutType::Text))
            .collect();
        let id = self.next_statement;
        self.next_statement = self.next_statement.wrapping_add(1).max(1);
        self.wire.prepared(id, params.len() as u16);
        self.prepared.insert(id, statement);
        info.reply(id, &params, &columns).await
    }

    async fn on_execute<'a>(
        &'a mut self,
        id: u32,
        params: ParamParser<'a>,
        results: QueryResultWriter<'a, W>,
    ) -> std::io::Result<()> {
        self.statement_begins();
        let Some(statement) = self.prepared.get(&id) else {
            let kind = ErrorKind::ER_UNKNOWN_STMT_HANDLER;
            let msg =
                format!("Unknown prepared statement handler ({id}) given to mysqld_stmt_execute");
            self.failed(kind, &msg);
            return results.error(kind, msg.as_bytes()).await;
        };
        let mut literals = Vec::with_capacity(statement.placeholders.len());
        for p in params {
            match prepared::literal(p) {
                Some(l) => literals.push(l),
                None => {
                    let kind = ErrorKind::ER_INVALID_CHARACTER_STRING;
                    let msg = format!(
                        "Invalid utf8mb4 character string in parameter {}: pinbad reads \
                         parameters as UTF-8",
                        literals.len() + 1
                    );
                    self.failed(kind, &msg);
                    return results.error(kind, msg.as_bytes()).await;
                }
            }
        }
        let sql = statement.bind(&literals);
        self.wire.begin_statement();
        self.note_process(Some(&sql));
        self.binary = true;
        let answered = self.query(&sql, results).await;
        self.binary = false;
        self.note_process(None);
        self.wire.end_statement();
        answered
    }

    async fn on_close<'a>(&'a mut self, stmt: u32)
    where
        W: 'async_trait,
    {
        self.prepared.remove(&stmt);
        self.wire.closed(stmt);
    }

    async fn on_init<'a>(
        &'a mut self,
        database: &'a str,
        writer: InitWriter<'a, W>,
    ) -> std::io::Result<()> {
        match use_database(database) {
            Answer::Error(kind, msg) => {
                self.statement_begins();
                self.failed(kind, &msg);
                writer.error(kind, &msg.into_bytes()).await
            }
            _ => writer.ok().await,
        }
    }

    async fn on_query<'a>(
        &'a mut self,
        sql: &'a str,
        results: QueryResultWriter<'a, W>,
    ) -> std::io::Result<()> {
        self.wire.begin_statement();
        self.note_process(Some(sql));
        let (ansi_quotes, no_backslash_escapes) = self.vars.lock().reading();
        let sql = super::dialect::in_default_mode(sql, ansi_quotes, no_backslash_escapes);
        let answered = self.query(&sql, results).await;
        self.note_process(None);
        self.wire.end_statement();
        answered
    }
}

impl Session {
    /// A query, answered (see [`AsyncMysqlShim::on_query`]): with `CLIENT_MULTI_STATEMENTS`
    /// on, each of its statements in turn, as MySQL does (each result but the last marked
    /// `SERVER_MORE_RESULTS_EXISTS`; an error ends the answer, the statements after it not run).
    /// An `EXECUTE` is one statement.
    async fn query<W: AsyncWrite + Send + Unpin>(
        &mut self,
        sql: &str,
        results: QueryResultWriter<'_, W>,
    ) -> std::io::Result<()> {
        let notice = self.wire.take_notice();
        if let Some(Notice::SetOption(option @ (0 | 1))) = notice {
            // MYSQL_OPTION_MULTI_STATEMENTS_ON (0) or _OFF (1). MySQL answers an EOF packet
            // (an OK marked as one reads as one whatever the client's capabilities, its counts
            // being 0).
            self.wire.set_multi_statements(option == 0);
            return results
                .completed(OkResponse {
                    header: 0xfe,
                    ..Default::default()
                })
                .await;
        }
        if let Some(notice) = notice {
            self.counters().statements.fetch_add(1, Relaxed);
            self.vars.lock().questions += 1;
            let (kind, msg) = match notice {
                Notice::SetOption(option) => (
                    ErrorKind::ER_UNKNOWN_COM_ERROR,
                    format!("Unknown COM_SET_OPTION option {option}"),
                ),
                Notice::UnknownStatement(id) => (
                    ErrorKind::ER_UNKNOWN_STMT_HANDLER,
                    format!(
                        "Unknown prepared statement handler ({id}) given to mysqld_stmt_execute"
                    ),
                ),
                Notice::TooLarge { bytes } => (
                    ErrorKind::ER_NET_PACKET_TOO_LARGE,
                    format!(
                        "Got a packet bigger than 'max_allowed_packet' bytes ({bytes} bytes, \
                         mysql.max_allowed_packet is {}); it was skipped",
                        self.ctx.config.max_allowed_packet.0
                    ),
                ),
                Notice::BadExecute(what) => (
                    ErrorKind::ER_MALFORMED_PACKET,
                    format!("Malformed communication packet: {what}"),
                ),
                Notice::NotUtf8 { at } => (
                    ErrorKind::ER_INVALID_CHARACTER_STRING,
                    format!(
                        "Invalid utf8mb4 character string at byte {at} of the statement: \
                         pinbad reads statements as UTF-8 (set the client's character set \
                         to utf8mb4)"
                    ),
                ),
            };
            self.statement_begins();
            self.failed(kind, &msg);
            return results.error(kind, msg.as_bytes()).await;
        }
        let statements = if self.wire.multi_statements() && !self.binary {
            statement::split(sql)
        } else {
            vec![sql]
        };
        // Each answer's columns, held as long as the writer (which borrows them) lives.
        let mut columns: Vec<Vec<Column>> = statements.iter().map(|_| Vec::new()).collect();
        let mut results = results;
        let last = statements.len() - 1;
        for (i, (sql, columns)) in statements.iter().zip(columns.iter_mut()).enumerate() {
            self.counters().statements.fetch_add(1, Relaxed);
            self.vars.lock().questions += 1;
            let answer = self.statement(sql).await;
            match self.write(answer, sql, results, i < last, columns).await? {
                Some(next) => results = next,
                None => return Ok(()),
            }
        }
        Ok(())
    }

    /// One statement's answer (DDL run on the blocking pool), the session's pending drops
    /// carried out first but the one a `CREATE TABLE` of its name resolves (see `ddl`).
    async fn statement(&mut self, sql: &str) -> Answer {
        let classified = statement::classify(sql);
        let keep = match &classified {
            Ok(Statement::CreateTable(text)) => ddl::created_name(text),
            _ => None,
        };
        self.carry_out_drops(keep.as_deref()).await;
        // As MySQL's, `SHOW WARNINGS` reads the last statement's warnings, which a statement
        // that reads a table clears, and so does any statement's first warning.
        self.statement_begins();
        {
            let mut vars = self.vars.lock();
            vars.divided_by_zero = 0;
            vars.cut_by_group_concat = 0;
            vars.take_raised();
        }
        let diagnostics = matches!(
            classified,
            Ok(Statement::Show(Show::Warnings { .. } | Show::Count { .. }))
        );
        if !diagnostics && !statement::reads_no_table(sql) {
            self.clear_warnings();
        }
        // `SELECT … INTO @a`: its query (which the classification refuses with the INTO).
        if let Some((query, names)) = super::translate::select_into(sql) {
            return self.select_into(&query, &names).await;
        }
        match classified {
            Ok(s @ (Statement::CreateTable(_) | Statement::DropTables { .. })) => {
                let ctx = Arc::clone(&self.ctx);
                let mut pending = std::mem::take(&mut self.pending_drops);
                let done = tokio::task::spawn_blocking(move || {
                    let done = ddl::run(&ctx, s, &mut pending);
                    (done, pending)
                })
                .await;
                match done {
                    Ok((done, pending)) => {
                        self.pending_drops = pending;
                        for w in done.warnings {
                            self.warn(w, 1);
                        }
                        match done.result {
                            Ok(info) => Answer::Ok(info),
                            Err((kind, msg)) => Answer::Error(kind, msg),
                        }
                    }
                    Err(e) => Answer::Error(ErrorKind::ER_UNKNOWN_ERROR, format!("failed: {e}")),
                }
            }
            Ok(Statement::Set(assignments)) => self.set(assignments).await,
            Ok(Statement::Do(expressions)) => match self.evaluate(&expressions).await {
                Ok(_) => Answer::Ok(String::new()),
                Err((kind, why)) => Answer::Error(kind, why),
            },
            _ => self.answer(sql),
        }
    }

    /// A `SET`'s assignments, in order (each value evaluated as `SELECT value` would be, then
    /// assigned): the first that fails answers its error, those before it having taken effect,
    /// as in MySQL.
    async fn set(&mut self, assignments: Vec<Set>) -> Answer {
        for assignment in assignments {
            let mut declared = None;
            let (value, user) = match &assignment {
                Set::Names {
                    charset,
                    collation,
                    names,
                } => {
                    let mut vars = self.vars.lock();
                    let set = if *names {
                        vars.set_names(charset, collation.as_deref())
                    } else {
                        vars.set_character_set(charset)
                    };
                    match set {
                        Ok(()) => continue,
                        Err((kind, why)) => return Answer::Error(kind, why),
                    }
                }
                Set::System { value, .. } => (value, false),
                Set::User { value, .. } => (value, true),
            };
            let assigned = match value {
                SetValue::Default if user => {
                    return Answer::Error(
                        ErrorKind::ER_PARSE_ERROR,
                        "You have an error in your SQL syntax: a user variable has no DEFAULT"
                            .into(),
                    )
                }
                SetValue::Default => Assigned::Default,
                SetValue::Word(w) => Assigned::Value(Value::Text(w.clone())),
                SetValue::Expr(e) => match self.evaluate(e).await {
                    Ok((v, ty)) => {
                        declared = ty;
                        Assigned::Value(v)
                    }
                    Err((kind, why)) => return Answer::Error(kind, why),
                },
            };
            let mut vars = self.vars.lock();
            let done = match (&assignment, assigned) {
                (Set::User { name, .. }, Assigned::Value(v)) => {
                    vars.set_user_declared(name, v, declared)
                }
                (Set::System { name, global, .. }, a) => vars.set(name, *global, a),
                _ => Ok(()),
            };
            if let Err((kind, why)) = done {
                return Answer::Error(kind, why);
            }
        }
        Answer::Ok(String::new())
    }

    /// `SELECT … INTO @a, @b`: the query's one row assigned to the variables, as MySQL's: a
    /// select list of another length is error 1222, more than one row 1172, none leaves them
    /// as they were.
    async fn select_into(&mut self, sql: &str, names: &[String]) -> Answer {
        let (query, metas) = match self.answer(sql) {
            Answer::Query(q, metas) => (q, metas),
            other => return other,
        };
        self.found_rows_query = None;
        let engine = match self.take_engine() {
            Ok(e) => e,
            Err(e) => {
                let (kind, why) = engine_error(&e);
                return Answer::Error(kind, why);
            }
        };
        let deadline = Instant::now() + self.ctx.config.max_query_time.0;
        let done = tokio::task::spawn_blocking(move || {
            let mut engine = engine;
            let (mut columns, mut first, mut rows) = (0usize, None, 0u64);
            let result = engine.run(&query, deadline, &mut |e| {
                match e {
                    Event::Columns(c) => columns = c.len(),
                    Event::Rows(mut r) => {
                        for row in std::mem::take(&mut r.rows) {
                            rows += 1;
                            if first.is_none() {
                                first = Some(row);
                            }
                        }
                    }
                }
                true
            });
            (engine, result.map(|_| (columns, first, rows)))
        })
        .await;
        let (engine, result) = match done {
            Ok(d) => d,
            Err(e) => return Answer::Error(ErrorKind::ER_UNKNOWN_ERROR, format!("failed: {e}")),
        };
        self.put_engine(engine);
        self.computed_warnings();
        let (columns, first, rows) = match result {
            Ok(r) => r,
            Err(e) => {
                let (kind, why) = statement_error(&e, sql);
                return Answer::Error(kind, why);
            }
        };
        if columns != names.len() {
            return Answer::Error(
                ErrorKind::ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
                "The used SELECT statements have a different number of columns".into(),
            );
        }
        if rows > 1 {
            return Answer::Error(
                ErrorKind::ER_TOO_MANY_ROWS,
                "Result consisted of more than one row".into(),
            );
        }
        let mut vars = self.vars.lock();
        vars.found_rows = rows;
        for (k, (name, value)) in names.iter().zip(first.unwrap_or_default()).enumerate() {
            let declared = metas.get(k).copied().flatten().and_then(|m| m.user_type());
            if let Err((kind, why)) = vars.set_user_declared(name, value, declared) {
                return Answer::Error(kind, why);
            }
        }
        Answer::Ok(String::new())
    }

    /// `SELECT expr`'s value, run on the blocking pool within `mysql.max_query_time`.
    /// With the value, the type MariaDB gives a user variable assigned it where it is NULL
    /// (its expression's, [`Meta::user_type`]).
    async fn evaluate(
        &mut self,
        expr: &str,
    ) -> Result<(Value, Option<super::typing::Ty>), (ErrorKind, String)> {
        let statement = format!("SELECT {expr}");
        let (query, declared) = match self.answer(&statement) {
            Answer::Query(q, metas) => (q, metas.first().copied().flatten()),
            Answer::Error(kind, why) => return Err((kind, why)),
            Answer::Ok(_) => return Ok((Value::Null, None)),
        };
        let declared = declared.and_then(|m| m.user_type());
        let engine = self.take_engine().map_err(|e| engine_error(&e))?;
        let deadline = Instant::now() + self.ctx.config.max_query_time.0;
        let (engine, value) = tokio::task::spawn_blocking(move || {
            let mut engine = engine;
            let value = engine.value(&query, deadline);
            (engine, value)
        })
        .await
        .map_err(|e| (ErrorKind::ER_UNKNOWN_ERROR, format!("SET failed: {e}")))?;
        self.put_engine(engine);
        self.computed_warnings();
        value
            .map(|v| (v, declared))
            .map_err(|e| statement_error(&e, &statement))
    }

    /// Carries out the pending drops, all but `keep`'s.
    async fn carry_out_drops(&mut self, keep: Option<&str>) {
        if self.pending_drops.iter().all(|p| Some(p.as_str()) == keep) {
            return;
        }
        let (kept, names): (Vec<String>, Vec<String>) = std::mem::take(&mut self.pending_drops)
            .into_iter()
            .partition(|p| Some(p.as_str()) == keep);
        self.pending_drops = kept;
        let ctx = Arc::clone(&self.ctx);
        let _ = tokio::task::spawn_blocking(move || ddl::carry_out(&ctx, names)).await;
    }
}

impl Drop for Session {
    /// A drop still pending when the session ends is carried out.
    fn drop(&mut self) {
        self.ctx.processes.lock().remove(&self.id);
        let names = std::mem::take(&mut self.pending_drops);
        if names.is_empty() {
            return;
        }
        let ctx = Arc::clone(&self.ctx);
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn_blocking(move || ddl::carry_out(&ctx, names));
            }
            Err(_) => ddl::carry_out(&ctx, names),
        }
    }
}

/// The `SET NAMES` a login packet's collation id stands for, where it is a utf8mb3 one
/// (`utf8mb3_general_ci`, `_bin`, `_unicode_ci`).
fn login_names(id: u8) -> Option<(&'static str, &'static str)> {
    Some(match id {
        33 => ("utf8mb3", "utf8mb3_general_ci"),
        83 => ("utf8mb3", "utf8mb3_bin"),
        192 => ("utf8mb3", "utf8mb3_unicode_ci"),
        _ => return None,
    })
}
