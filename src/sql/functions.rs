//! MySQL's functions, added to a session's SQLite connection: what pinba_engine's users and their
//! tools (Pinboard, Grafana's MySQL data source) call and SQLite lacks or spells otherwise
//! (`statement` renames `IF`, `LEFT`, `RIGHT`, … to the names registered here).
//!
//! The date and time functions are `dates`'s; they work in UTC, and the session's
//! `@@time_zone` is applied around them by `translate` (its offset added to what they answer,
//! taken from what they read).

use std::sync::Arc;

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Result};

use super::collation::{self, Collation};
use super::decimal::{Decimal, Held};
use super::variables::Variables;

/// What `sysvar` and the session functions answer.
pub struct Session {
    /// `@@version` and `VERSION()`.
    pub version: String,
    pub user: String,
    pub connection_id: u32,
    /// `@@max_allowed_packet`: `mysql.max_allowed_packet`, in bytes.
    pub max_allowed_packet: i64,
    /// `@@wait_timeout`: `mysql.wait_timeout`, in whole seconds (rounded up).
    pub wait_timeout: i64,
    /// `@@port`: the port of pinbad's MySQL listener (0 where it has none).
    pub port: i64,
    /// `@@max_connections`: `mysql.max_connections`.
    pub max_connections: i64,
    /// What the session's `SET`s changed, and its user variables (`variables`).
    pub vars: Arc<parking_lot::Mutex<Variables>>,
    /// The server's named locks (`GET_LOCK`), which this session may take.
    pub locks: Arc<super::locks::Locks>,
}

impl Session {
    /// The variables `config` sets, with the rest of the session as given.
    pub fn new(
        version: String,
        user: String,
        connection_id: u32,
        config: &crate::config::MysqlConfig,
        vars: Arc<parking_lot::Mutex<Variables>>,
    ) -> Session {
        let wait = config.wait_timeout.0;
        Session {
            version,
            user,
            connection_id,
            max_allowed_packet: config.max_allowed_packet.0 as i64,
            wait_timeout: (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)) as i64,
            port: config
                .listen
                .rsplit_once(':')
                .and_then(|(_, p)| p.parse::<u16>().ok())
                .map_or(0, i64::from),
            max_connections: config.max_connections as i64,
            vars,
            locks: Default::default(),
        }
    }
}

/// The functions of this engine that are not MySQL's: SQLite's own (`typeof`, `printf`,
/// `json_group_array`, full-text search's), and the translation's helpers (`mysql_…`,
/// `uservar`). A statement that calls one gets MySQL's error for a function it does not
/// know, as a name MySQL has no function of (not an answer by SQLite's rules): `1305`
/// ("FUNCTION pinba.typeof does not exist"), or `1064` where MySQL reads the name as a
/// keyword (`DATETIME(…)`, `JSON(…)`). A test checks that every other function registered
/// here is one MySQL has.
const NOT_MYSQL: &[&str] = &[
    "bm25",
    "changes",
    "fts3_tokenizer",
    "fts5",
    "fts5_get_locale",
    "fts5_insttoken",
    "fts5_locale",
    "fts5_source_id",
    "glob",
    "highlight",
    "iif",
    "json_array_length",
    "json_error_position",
    "json_group_array",
    "json_group_object",
    "json_patch",
    "jsonb",
    "jsonb_array",
    "jsonb_extract",
    "jsonb_group_array",
    "jsonb_group_object",
    "jsonb_insert",
    "jsonb_object",
    "jsonb_patch",
    "jsonb_remove",
    "jsonb_replace",
    "jsonb_set",
    "julianday",
    "last_insert_rowid",
    "likelihood",
    "likely",
    "load_extension",
    "matchinfo",
    "offsets",
    "printf",
    "random",
    "randomblob",
    "rtreecheck",
    "rtreedepth",
    "rtreenode",
    "setuservar",
    "snippet",
    "strftime",
    "string_agg",
    "subtype",
    "sysvar",
    "total",
    "total_changes",
    "typeof",
    "unistr",
    "unistr_quote",
    "unixepoch",
    "unlikely",
    "uservar",
    "zeroblob",
];

/// Names of this engine's functions that MySQL reads as keywords, never as a call.
const MYSQL_KEYWORDS: &[&str] = &[
    "datetime", "json", "unicode", "optimize", "like", "match", "regexp",
];

/// MySQL's JSON functions that SQLite has by the same name and answers otherwise (its text
/// without MySQL's spaces, `json_type`'s in lower case, a DECIMAL's scale and a DOUBLE's
/// digits lost, `TRUE` as 1): refused as functions pinbad lacks, never answered by SQLite's
/// rules. `JSON_EXTRACT`, `JSON_UNQUOTE` and `JSON_VALID` are translated.
const SQLITE_S_JSON: &[&str] = &[
    "json_array",
    "json_insert",
    "json_object",
    "json_pretty",
    "json_quote",
    "json_remove",
    "json_replace",
    "json_set",
    "json_type",
];

/// MySQL's error for a call of `name` where it is one of this engine's functions MySQL does
/// not have ([`NOT_MYSQL`]) or answers otherwise ([`SQLITE_S_JSON`]): its code and words;
/// `None` for any other name.
pub fn not_mysql(name: &str) -> Option<(u16, String)> {
    let lower = name.to_ascii_lowercase();
    if SQLITE_S_JSON.contains(&lower.as_str()) {
        return Some((1105, format!("FUNCTION {name} is not supported by pinbad")));
    }
    if MYSQL_KEYWORDS.contains(&lower.as_str()) {
        return Some((
            1064,
            format!("You have an error in your SQL syntax: {name} is a keyword, not a function"),
        ));
    }
    let helper = lower.starts_with("mysql_") || lower.starts_with("sqlite_");
    (helper || NOT_MYSQL.contains(&lower.as_str()))
        .then(|| (1305, format!("FUNCTION pinba.{name} does not exist")))
}

/// `like(p, x[, e])` where the pattern or the text is a binary string: matched byte by byte
/// (`_` one byte, case counted), as MySQL's binary collation matches; `None` where both are
/// text.
fn like_bytes(ctx: &Context, arity: usize) -> Result<Option<i64>> {
    let blob = |v: ValueRef| matches!(v, ValueRef::Blob(_));
    if !blob(ctx.get_raw(0)) && !blob(ctx.get_raw(1)) {
        return Ok(None);
    }
    let bytes = |v: ValueRef| match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => t.to_vec(),
        v => text(v).into_bytes(),
    };
    let chars = |v: ValueRef| collation::latin1_chars(&bytes(v));
    let escape = match arity {
        3 => bytes(ctx.get_raw(2)).first().map(|&b| char::from(b)),
        _ => Some('\\'),
    };
    let pattern = collation::exact(&chars(ctx.get_raw(0)), escape);
    Ok(Some(
        collation::like_exact(&chars(ctx.get_raw(1)), &pattern) as i64,
    ))
}

/// 2^63, the first double past BIGINT's largest.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// Registers every function on `conn`.
pub fn register(conn: &Connection, session: Arc<Session>) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let volatile = FunctionFlags::SQLITE_UTF8;
    // (SQLite's own `BINARY` is MySQL's `binary`.)
    for by in [Collation::General, Collation::Bin, Collation::Unicode] {
        conn.create_collation(by.sqlite(), move |a: &str, b: &str| by.compare(a, b))?;
    }
    conn.create_scalar_function("mysql_left", 2, pure, |ctx| {
        Ok(substr(ctx, |s, n| s.chars().take(n).collect()))
    })?;
    conn.create_scalar_function("mysql_right", 2, pure, |ctx| {
        Ok(substr(ctx, |s, n| {
            let len = s.chars().count();
            s.chars().skip(len.saturating_sub(n)).collect()
        }))
    })?;
    conn.create_scalar_function("mysql_isnull", 1, pure, |ctx| {
        Ok(matches!(ctx.get_raw(0), ValueRef::Null) as i64)
    })?;
    let vars = Arc::clone(&session.vars);
    conn.create_scalar_function("mysql_mod", 2, pure, move |ctx| {
        Ok(match (ctx.get_raw(0), ctx.get_raw(1)) {
            (ValueRef::Integer(a), ValueRef::Integer(b)) if b != 0 => Value::Integer(a % b),
            (a, b) => match (number(a), number(b)) {
                (Some(a), Some(b)) if b != 0.0 => Value::Real(a % b),
                (Some(_), Some(_)) => divided_by_zero(&vars).unwrap_or(Value::Null),
                _ => Value::Null,
            },
        })
    })?;
    // `a / b`'s divisor (`translate` writes `a / mysql_divisor(b)`): NULL where it is zero, as
    // SQLite's quotient is then, counted for MySQL's warning 1365. Volatile: MySQL counts a
    // division per row it divides, where SQLite would compute a constant divisor once.
    let vars = Arc::clone(&session.vars);
    conn.create_scalar_function("mysql_divisor", 1, volatile, move |ctx| {
        let v = ctx.get_raw(0);
        Ok(match number(v) {
            Some(0.0) => divided_by_zero(&vars).unwrap_or(Value::Null),
            _ => Value::from(v),
        })
    })?;
    // MySQL's CONCAT is NULL when any argument is (SQLite's skips NULLs).
    // Each argument is at most @@max_allowed_packet long, their concatenation too: refused as
    // it passes it, not once made (127 arguments of 16 MiB are 2 GiB).
    let max_len = usize::try_from(session.max_allowed_packet).unwrap_or(usize::MAX);
    // A binary string's bytes are joined as they are: where they are no UTF-8, the result is
    // the binary string MySQL's is (`LENGTH(CONCAT(CHAR(200), ''))` is 1).
    conn.create_scalar_function("concat", -1, pure, move |ctx| {
        let mut out = Vec::new();
        for i in 0..ctx.len() {
            match ctx.get_raw(i) {
                ValueRef::Null => return Ok(Value::Null),
                ValueRef::Blob(b) => out.extend_from_slice(b),
                v => out.extend_from_slice(text(v).as_bytes()),
            }
            too_long(out.len(), max_len)?;
        }
        Ok(match String::from_utf8(out) {
            Ok(t) => Value::Text(t),
            Err(e) => Value::Blob(e.into_bytes()),
        })
    })?;
    conn.create_scalar_function("concat_ws", -1, pure, move |ctx| {
        if ctx.is_empty() || matches!(ctx.get_raw(0), ValueRef::Null) {
            return Ok(None);
        }
        let sep = text(ctx.get_raw(0));
        let mut out = String::new();
        let mut first = true;
        for i in 1..ctx.len() {
            let v = ctx.get_raw(i);
            if matches!(v, ValueRef::Null) {
                continue;
            }
            if !first {
                out.push_str(&sep);
            }
            first = false;
            out.push_str(&text(v));
            too_long(out.len(), max_len)?;
        }
        Ok(Some(out))
    })?;
    // `GREATEST`/`LEAST` (and each function below that compares strings) once per collation,
    // named by `Collation::function` (`translate`'s `function_by_collation`).
    for ((name, pick), by) in [
        ("least", std::cmp::Ordering::Less),
        ("greatest", std::cmp::Ordering::Greater),
    ]
    .into_iter()
    .flat_map(|f| Collation::ALL.map(|c| (f, c)))
    {
        let name = by.function(name);
        conn.create_scalar_function(name.as_str(), -1, pure, move |ctx| {
            let mut best: Option<Value> = None;
            for i in 0..ctx.len() {
                let v = ctx.get_raw(i);
                if matches!(v, ValueRef::Null) {
                    return Ok(Value::Null);
                }
                let v = owned(v);
                best = Some(match best {
                    Some(b) if compare(&v, &b, by) != pick => b,
                    _ => v,
                });
            }
            Ok(best.unwrap_or(Value::Null))
        })?;
    }
    // `x LIKE p [ESCAPE e]` is `like(p, x[, e])`: MySQL's, under its collation (`collation`),
    // with `\` the escape unless another is given; byte by byte where either is a binary
    // string (`x LIKE BINARY p`). The pattern is made once per statement.
    conn.create_scalar_function("like", 2, pure, |ctx| {
        if (0..2).any(|i| matches!(ctx.get_raw(i), ValueRef::Null)) {
            return Ok(None);
        }
        if let Some(bytes) = like_bytes(ctx, 2)? {
            return Ok(Some(bytes));
        }
        let pattern = ctx.get_or_create_aux(0, |v| {
            Ok::<_, rusqlite::Error>(collation::like_pattern(&text(v), Some('\\')))
        })?;
        let matched = match ctx.get_raw(1) {
            ValueRef::Text(t) => match std::str::from_utf8(t) {
                Ok(t) => collation::like(t, &pattern),
                Err(_) => collation::like(&String::from_utf8_lossy(t), &pattern),
            },
            v => collation::like(&text(v), &pattern),
        };
        Ok(Some(matched as i64))
    })?;
    conn.create_scalar_function("like", 3, pure, |ctx| {
        if (0..3).any(|i| matches!(ctx.get_raw(i), ValueRef::Null)) {
            return Ok(None);
        }
        if let Some(bytes) = like_bytes(ctx, 3)? {
            return Ok(Some(bytes));
        }
        let escape = text(ctx.get_raw(2)).chars().next();
        let pattern = collation::like_pattern(&text(ctx.get_raw(0)), escape);
        Ok(Some(collation::like(&text(ctx.get_raw(1)), &pattern) as i64))
    })?;
    // `x LIKE p` under `utf8mb4_bin` (the translation's, where the operands' collations agree
    // on it): character by character, case and accents counted; under `utf8mb4_unicode_ci`,
    // character by character by weights.
    for (arity, by) in [2, 3]
        .into_iter()
        .flat_map(|a| [Collation::Bin, Collation::Unicode].map(|c| (a, c)))
    {
        let name = by.function("like");
        conn.create_scalar_function(name.as_str(), arity, pure, move |ctx| {
            if (0..arity).any(|i| matches!(ctx.get_raw(i as usize), ValueRef::Null)) {
                return Ok(None);
            }
            if let Some(bytes) = like_bytes(ctx, arity as usize)? {
                return Ok(Some(bytes));
            }
            let escape = match arity {
                3 => text(ctx.get_raw(2)).chars().next(),
                _ => Some('\\'),
            };
            let pattern = by.like_pattern(&text(ctx.get_raw(0)), escape);
            Ok(Some(by.like(&text(ctx.get_raw(1)), &pattern) as i64))
        })?;
    }
    conn.create_scalar_function("regexp", 2, pure, |ctx| {
        let pattern = match ctx.get_raw(0) {
            ValueRef::Null => return Ok(None),
            v => text(v),
        };
        let subject = match ctx.get_raw(1) {
            ValueRef::Null => return Ok(None),
            v => text(v),
        };
        // Against a binary string (`BINARY x REGEXP p`), case counts.
        if [0, 1]
            .iter()
            .any(|&i| matches!(ctx.get_raw(i), ValueRef::Blob(_)))
        {
            let re = regex::RegexBuilder::new(&pattern)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| rusqlite::Error::UserFunctionError(Box::new(e)))?;
            return Ok(Some(re.is_match(&subject) as i64));
        }
        // Compiled once per statement and pattern; MySQL's REGEXP is case-insensitive.
        let re = ctx.get_or_create_aux(0, |_| {
            regex::RegexBuilder::new(&pattern)
                .case_insensitive(true)
                .size_limit(1 << 20)
                .build()
        })?;
        Ok(Some(re.is_match(&subject) as i64))
    })?;
    conn.create_scalar_function("substring_index", 3, pure, |ctx| {
        // NULL in, NULL out, as for MySQL's string functions.
        if (0..3).any(|k| matches!(ctx.get_raw(k), ValueRef::Null)) {
            return Ok(None);
        }
        let (s, delim) = (text(ctx.get_raw(0)), text(ctx.get_raw(1)));
        let count = number(ctx.get_raw(2)).unwrap_or(0.0) as i64;
        if delim.is_empty() || count == 0 {
            return Ok(Some(String::new()));
        }
        let parts: Vec<&str> = s.split(delim.as_str()).collect();
        let n = count.unsigned_abs() as usize;
        Ok(Some(if n >= parts.len() {
            s.clone()
        } else if count > 0 {
            parts[..n].join(&delim)
        } else {
            parts[parts.len() - n..].join(&delim)
        }))
    })?;
    for (name, f) in [
        ("floor", f64::floor as fn(f64) -> f64),
        ("ceil", f64::ceil),
        ("ceiling", f64::ceil),
    ] {
        let up = name != "floor";
        // An integer where one holds it; a DOUBLE past a BIGINT stays one (`FLOOR(1e19)`).
        let whole = move |x: f64| {
            let r = f(x);
            if r.abs() < 9.2e18 {
                Value::Integer(r as i64)
            } else {
                Value::Real(r)
            }
        };
        conn.create_scalar_function(name, 1, pure, move |ctx| {
            Ok(match ctx.get_raw(0) {
                ValueRef::Integer(i) => Value::Integer(i),
                // A DECIMAL held as the text of its digits (past a double's): exactly.
                ValueRef::Text(t) => match std::str::from_utf8(t).ok().and_then(Decimal::parse) {
                    Some(d) => held(&d.floor_or_ceil(up)),
                    None => number(ctx.get_raw(0)).map_or(Value::Null, whole),
                },
                v => number(v).map_or(Value::Null, whole),
            })
        })?;
    }
    let s = Arc::clone(&session);
    conn.create_scalar_function("sysvar", 1, volatile, move |ctx| {
        Ok(system_variable(&text(ctx.get_raw(0)), &s))
    })?;
    let s = Arc::clone(&session);
    conn.create_scalar_function("version", 0, volatile, move |_| Ok(s.version.clone()))?;
    conn.create_scalar_function("database", 0, pure, |_| Ok("pinba"))?;
    for name in ["user", "current_user", "session_user", "system_user"] {
        let s = Arc::clone(&session);
        conn.create_scalar_function(name, 0, volatile, move |_| {
            Ok(format!("{}@localhost", s.user))
        })?;
    }
    let s = Arc::clone(&session);
    conn.create_scalar_function("connection_id", 0, volatile, move |_| {
        Ok(s.connection_id as i64)
    })?;
    conn.create_scalar_function("last_insert_id", 0, volatile, |_| Ok(0i64))?;
    let s = Arc::clone(&session);
    conn.create_scalar_function("found_rows", 0, volatile, move |_| {
        Ok(i64::try_from(s.vars.lock().found_rows).unwrap_or(i64::MAX))
    })?;
    let s = Arc::clone(&session);
    conn.create_scalar_function("row_count", 0, volatile, move |_| {
        Ok(s.vars.lock().row_count)
    })?;
    // `@name`, as `translate` writes it: NULL where the session set none.
    let s = Arc::clone(&session);
    conn.create_scalar_function(USER_VARIABLE, 1, volatile, move |ctx| {
        let name = text(ctx.get_raw(0)).to_lowercase();
        Ok(s.vars
            .lock()
            .user
            .get(&name)
            .cloned()
            .unwrap_or(Value::Null))
    })?;
    // `@name := value`: the value, kept.
    let s = Arc::clone(&session);
    conn.create_scalar_function(SET_USER_VARIABLE, 2, volatile, move |ctx| {
        let value: Value = ctx.get_raw(1).into();
        s.vars
            .lock()
            .set_user(&text(ctx.get_raw(0)), value.clone())
            .map_err(|(_, why)| rusqlite::Error::UserFunctionError(why.into()))?;
        Ok(value)
    })?;
    // A number that grows with each call: the order rows reach an aggregate in, by which
    // `GROUP_CONCAT(… ORDER BY …)` breaks ties as MySQL does (`translate`).
    let arrivals = std::sync::atomic::AtomicI64::new(0);
    conn.create_scalar_function(ARRIVAL, 0, volatile, move |_| {
        Ok(arrivals.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    })?;
    super::dates::register(conn, Arc::clone(&session))?;
    numeric(conn, &session)?;
    strings(conn, session.max_allowed_packet)?;
    super::scalars::register(conn)?;
    super::aggregates::register(conn, session.max_allowed_packet, Arc::clone(&session.vars))
}

/// The function that counts the rows reaching an aggregate (see `register`).
pub const ARRIVAL: &str = "mysql_arrival";

/// The function a user variable `@name` is read with (`uservar('name')`).
pub const USER_VARIABLE: &str = "uservar";
/// The function `@name := value` is evaluated with (`setuservar('name', value)`).
pub const SET_USER_VARIABLE: &str = "setuservar";

/// The system variables a client may ask for (`SELECT @@x`, `SHOW VARIABLES`), and their values.
pub fn variables(session: &Session) -> Vec<(&'static str, Value)> {
    let mut set = session.vars.lock().shown();
    let defaults = fixed_variables(session);
    let extra: Vec<_> = defaults
        .into_iter()
        .filter(|(n, _)| !set.iter().any(|(s, _)| s == n))
        .collect();
    set.extend(extra);
    set
}

/// The system variables no `SET` changes, and the defaults of those `variables::Variables`
/// does not hold.
fn fixed_variables(session: &Session) -> Vec<(&'static str, Value)> {
    let text = |s: &str| Value::Text(s.to_string());
    vec![
        ("version", text(&session.version)),
        ("version_comment", text("pinbad (Pinba server)")),
        ("version_compile_os", text("Linux")),
        ("version_compile_machine", text(std::env::consts::ARCH)),
        ("character_set_client", text("utf8mb4")),
        ("character_set_connection", text("utf8mb4")),
        ("character_set_results", text("utf8mb4")),
        ("character_set_server", text("utf8mb4")),
        ("character_set_database", text("utf8mb4")),
        // MariaDB's defaults of variables clients read and pinbad only accepts.
        ("character_set_filesystem", text("binary")),
        ("character_set_system", text("utf8mb3")),
        ("sql_auto_is_null", Value::Integer(0)),
        ("sql_safe_updates", Value::Integer(0)),
        ("foreign_key_checks", Value::Integer(1)),
        ("unique_checks", Value::Integer(1)),
        ("sql_notes", Value::Integer(1)),
        ("sql_warnings", Value::Integer(0)),
        ("sql_big_selects", Value::Integer(1)),
        ("sql_quote_show_create", Value::Integer(1)),
        ("sql_buffer_result", Value::Integer(0)),
        ("sql_log_off", Value::Integer(0)),
        ("collation_connection", text("utf8mb4_general_ci")),
        ("collation_server", text("utf8mb4_general_ci")),
        ("collation_database", text("utf8mb4_general_ci")),
        ("system_time_zone", text("UTC")),
        ("autocommit", Value::Integer(1)),
        ("auto_increment_increment", Value::Integer(1)),
        (
            "max_allowed_packet",
            Value::Integer(session.max_allowed_packet),
        ),
        ("net_write_timeout", Value::Integer(60)),
        ("wait_timeout", Value::Integer(session.wait_timeout)),
        ("interactive_timeout", Value::Integer(session.wait_timeout)),
        ("lower_case_table_names", Value::Integer(0)),
        ("transaction_isolation", text("READ-COMMITTED")),
        ("tx_isolation", text("READ-COMMITTED")),
        ("transaction_read_only", Value::Integer(1)),
        ("tx_read_only", Value::Integer(1)),
        ("read_only", Value::Integer(1)),
        ("license", text("MIT")),
        ("protocol_version", Value::Integer(10)),
        ("init_connect", text("")),
        ("performance_schema", Value::Integer(0)),
        ("have_ssl", text("DISABLED")),
        ("query_cache_type", text("OFF")),
        ("query_cache_size", Value::Integer(0)),
        ("default_storage_engine", text("PINBA")),
        ("storage_engine", text("PINBA")),
        ("hostname", text(hostname())),
        ("port", Value::Integer(session.port)),
        // What clients and dashboards read of the server's policies: pinbad's own where it
        // has one, else MariaDB 10.11's defaults (the typing is `variables::SYSTEM`'s).
        ("max_connections", Value::Integer(session.max_connections)),
        ("net_read_timeout", Value::Integer(30)),
        ("net_buffer_length", Value::Integer(16384)),
        // A session's statement counts and ids: pinbad's statements write nothing.
        ("identity", Value::Integer(0)),
        ("last_insert_id", Value::Integer(0)),
        ("insert_id", Value::Integer(0)),
        ("in_transaction", Value::Integer(0)),
        ("long_query_time", Value::Real(10.0)),
        ("max_statement_time", Value::Real(0.0)),
        ("max_execution_time", Value::Integer(0)),
        ("max_user_connections", Value::Integer(0)),
        ("lower_case_file_system", Value::Integer(0)),
        ("explicit_defaults_for_timestamp", Value::Integer(1)),
        ("profiling", Value::Integer(0)),
        ("big_tables", Value::Integer(0)),
        ("low_priority_updates", Value::Integer(0)),
        ("session_track_schema", Value::Integer(1)),
        ("session_track_state_change", Value::Integer(0)),
        ("sql_log_bin", Value::Integer(1)),
        ("log_bin", Value::Integer(0)),
        ("general_log", Value::Integer(0)),
        ("slow_query_log", Value::Integer(0)),
        ("skip_networking", Value::Integer(0)),
        ("skip_name_resolve", Value::Integer(0)),
        ("auto_increment_offset", Value::Integer(1)),
        ("optimizer_search_depth", Value::Integer(62)),
        ("innodb_lock_wait_timeout", Value::Integer(50)),
        ("lock_wait_timeout", Value::Integer(86400)),
        ("max_heap_table_size", Value::Integer(16 << 20)),
        ("tmp_table_size", Value::Integer(16 << 20)),
        ("sort_buffer_size", Value::Integer(2 << 20)),
        ("join_buffer_size", Value::Integer(256 << 10)),
        ("read_buffer_size", Value::Integer(128 << 10)),
        // 2^64 - 1, an unsigned BIGINT's bits.
        ("max_join_size", Value::Integer(-1)),
        ("max_sort_length", Value::Integer(1024)),
        ("completion_type", text("NO_CHAIN")),
        ("lc_messages", text("en_US")),
        ("updatable_views_with_limit", text("YES")),
        ("session_track_system_variables", text(SESSION_TRACKED)),
        ("session_track_transaction_info", text("OFF")),
        ("default_tmp_storage_engine", Value::Null),
        ("optimizer_switch", text("")),
        ("event_scheduler", text("OFF")),
        ("have_query_cache", text("NO")),
        // pinbad keeps no files: no data or base directory, no socket.
        ("datadir", text("")),
        ("basedir", text("")),
        ("socket", text("")),
    ]
}

/// MariaDB 10.11's default `session_track_system_variables`.
const SESSION_TRACKED: &str = "autocommit,character_set_client,character_set_connection,\
                               character_set_results,time_zone";

/// `@@hostname`: the machine's name, as the kernel had it when first asked (`localhost` where
/// it cannot be read). Read once: every statement's translation lists the variables.
fn hostname() -> &'static str {
    static HOSTNAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOSTNAME.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".into())
    })
}

/// A division by zero: counted for the statement's warnings (1365 "Division by 0"), and its
/// NULL.
fn divided_by_zero<T>(vars: &parking_lot::Mutex<Variables>) -> Option<T> {
    vars.lock().divided_by_zero += 1;
    None
}

/// `@@name`: its value (as the session's `SET`s left it), NULL when pinbad has none.
fn system_variable(name: &str, session: &Session) -> Value {
    variables(session)
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map_or(Value::Null, |(_, v)| v)
}

/// How `GREATEST` and `LEAST` order two values, strings by collation `by`.
fn compare(a: &Value, b: &Value, by: Collation) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Text(x), Value::Text(y)) => by.compare(x, y),
        _ => {
            // Integers exactly (a BIGINT UNSIGNED past 2^63 is held as its digits), as MySQL
            // compares them as DECIMALs: 2^63 and 2^63 - 1 are one double.
            let whole = |v: &Value| match v {
                Value::Integer(i) => Some(i128::from(*i)),
                Value::Text(t) => t.trim().parse::<i128>().ok(),
                _ => None,
            };
            if let (Some(x), Some(y)) = (whole(a), whole(b)) {
                return x.cmp(&y);
            }
            let (x, y) = (value_number(a), value_number(b));
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    }
}

fn value_number(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        Value::Text(t) => t.trim().parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// A value as a number, as MySQL reads one (text's leading number; NULL stays NULL).
pub(super) fn number(v: ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(r) => Some(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(leading_number(&String::from_utf8_lossy(t))),
    }
}

/// A string's value as a number, as MySQL reads it: after leading spaces, the longest prefix
/// that is a number (`' 5x'` is 5, `'1e'` 1, `'.5'` 0.5, `'1.2.3'` 1.2); 0 where there is none;
/// past a DOUBLE's range, the largest DOUBLE of its sign (MySQL's `my_strtod`: `'1e999'`).
pub(super) fn leading_number(s: &str) -> f64 {
    let b = s.trim_start().as_bytes();
    let mut end = 0;
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    if matches!(b.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    let int = digits(end);
    end += int;
    let mut any = int > 0;
    if b.get(end) == Some(&b'.') {
        let frac = digits(end + 1);
        if frac > 0 || any {
            end += 1 + frac;
            any = true;
        }
    }
    if !any {
        return 0.0;
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exp = digits(end + 1 + sign);
        if exp > 0 {
            end += 1 + sign + exp;
        }
    }
    std::str::from_utf8(&b[..end])
        .ok()
        .and_then(|n| n.parse::<f64>().ok())
        .map_or(0.0, |v| match v.is_infinite() {
            true => f64::MAX.copysign(v),
            false => v,
        })
}

/// A value SQLite holds, owned: a text that is not UTF-8 (the bytes of a binary string SQLite
/// made text: `CAST(CHAR(255) AS CHAR)`) with `?` for each byte that is no character, as
/// MySQL converts a binary string to utf8mb4 (rusqlite's own conversion panics on it).
pub(super) fn owned(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Text(t) if std::str::from_utf8(t).is_err() => {
            let mut out = String::with_capacity(t.len());
            for chunk in t.utf8_chunks() {
                out.push_str(chunk.valid());
                out.extend(std::iter::repeat_n('?', chunk.invalid().len()));
            }
            Value::Text(out)
        }
        v => Value::from(v),
    }
}

/// A value as text, as MySQL shows it.
pub(super) fn text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => double_text(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
    }
}

fn substr(ctx: &Context<'_>, f: impl Fn(&str, usize) -> String) -> Option<String> {
    if matches!(ctx.get_raw(0), ValueRef::Null) || matches!(ctx.get_raw(1), ValueRef::Null) {
        return None;
    }
    let n = number(ctx.get_raw(1)).unwrap_or(0.0).round().max(0.0) as usize;
    Some(f(&text(ctx.get_raw(0)), n))
}

/// `x` rounded half away from zero to `d` decimals (negative: tens, hundreds, …), as MySQL
/// rounds exact values; the product is first cut to 15 significant digits so that a decimal
/// written as 2.345 rounds as 2.345 (not as the 2.34499… a double holds).
pub(super) fn round_half_away(x: f64, d: i64, cut: fn(f64) -> f64) -> f64 {
    let d = d.clamp(-30, 30) as i32;
    let f = 10f64.powi(d.abs());
    let y = if d >= 0 { x * f } else { x / f };
    // Past 2^52 a double has no fraction left to round: `x` is as rounded as it can be
    // (`ROUND(1e0/3, 20)` keeps every digit, where going through the product would cut them).
    if y.abs() >= 4_503_599_627_370_496.0 {
        return x;
    }
    let y: f64 = format!("{y:.14e}").parse().unwrap_or(y);
    let r = cut(y);
    if d >= 0 {
        r / f
    } else {
        r * f
    }
}

/// `x` rounded to `d` decimals as MySQL rounds a DOUBLE: half to even, on the product as the
/// double holds it (0.25e0 to one decimal is 0.2, 2.5e0 to none 2); a product too large to hold
/// is `x` itself.
pub(super) fn round_double(x: f64, d: i64) -> f64 {
    let f = power_of_ten(d.unsigned_abs());
    if d < 0 {
        if f.is_infinite() {
            return 0.0;
        }
        return (x / f).round_ties_even() * f;
    }
    let y = x * f;
    if y.is_infinite() {
        return x;
    }
    y.round_ties_even() / f
}

/// 10^`n` as the double nearest to it, as MySQL's table of them (`log_10`) holds it: `powi`
/// multiplies its way there and drifts from 10^17 on (`ROUND(1e0/3, 20)` would lose a digit).
fn power_of_ten(n: u64) -> f64 {
    static POWERS: std::sync::LazyLock<Vec<f64>> = std::sync::LazyLock::new(|| {
        (0..=308)
            .map(|n| format!("1e{n}").parse().unwrap_or(f64::INFINITY))
            .collect()
    });
    POWERS.get(n as usize).copied().unwrap_or(f64::INFINITY)
}

/// `d` as a DECIMAL(`precision`, `scale`): rounded half away from zero to `scale`, then
/// clipped to the largest value of `precision` digits (MySQL's 99999999.99 for DECIMAL(10, 2),
/// with a warning).
fn decimal_cast(d: &Decimal, precision: u32, scale: u32) -> Decimal {
    let rounded = d.round(scale as i32);
    if rounded.precision_at(scale) <= precision as usize {
        return rounded;
    }
    let largest = Decimal::largest(precision, scale);
    if rounded.is_negative() {
        largest.neg()
    } else {
        largest
    }
}

/// A value read as a DECIMAL, exactly: an integer as it is, a double by its shortest digits
/// (how a DECIMAL is held: `decimal::Decimal::held`), text by its digits where it is plain
/// digits, else by the number it starts with.
pub(super) fn decimal_of(v: ValueRef<'_>) -> Option<Decimal> {
    decimal_with(v, Decimal::from_f64)
}

/// A value read as a DECIMAL where MySQL converts a double to one (`double2my_decimal`:
/// [`Decimal::from_double`]), and a string's number likewise.
fn decimal_read(v: ValueRef<'_>) -> Option<Decimal> {
    decimal_with(v, Decimal::from_double)
}

/// A value as a DECIMAL, a double (or a string that is not a plain decimal, read as a
/// number) converted by `double`.
fn decimal_with(v: ValueRef<'_>, double: fn(f64) -> Option<Decimal>) -> Option<Decimal> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(Decimal::from_i64(i)),
        ValueRef::Real(x) => double(x),
        ValueRef::Text(t) | ValueRef::Blob(t) => std::str::from_utf8(t)
            .ok()
            .and_then(Decimal::parse)
            .or_else(|| number(v).and_then(double)),
    }
}

/// A double's shortest digits, or text that is plain digits, as a DECIMAL; `None` for anything
/// else (a string read as a number by its leading digits).
fn exact_digits(v: ValueRef<'_>) -> Option<Decimal> {
    match v {
        ValueRef::Real(x) if x.abs() < 1e60 => Decimal::from_f64(x),
        ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(Decimal::parse),
        _ => None,
    }
}

/// A DECIMAL as SQLite holds it ([`Decimal::held`]).
pub(super) fn held(d: &Decimal) -> Value {
    match d.held() {
        Held::Integer(i) => Value::Integer(i),
        Held::Real(x) => Value::Real(x),
        Held::Text(t) => Value::Text(t),
    }
}

/// Registers the exact DECIMAL operations `translate::decimals` writes: `+ - * / %` and unary
/// minus on exact operands (`mysql_decimal_op`), `DIV` of operands not both integers
/// (`mysql_decimal_int_div`), and the key comparisons and sorting read a DECIMAL by.
fn decimals(conn: &Connection, session: &Session) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    // `mysql_decimal_op(op, a, b, scale_a, scale_b, increment)`: the scales are the operands'
    // types' (a quotient's digits depend on them), the increment `div_precision_increment`.
    let vars = Arc::clone(&session.vars);
    conn.create_scalar_function("mysql_decimal_op", 6, pure, move |ctx| {
        let (Some(a), Some(b)) = (decimal_of(ctx.get_raw(1)), decimal_of(ctx.get_raw(2))) else {
            return Ok(None);
        };
        let int = |k: usize| ctx.get_raw(k).as_i64().unwrap_or(0).clamp(0, 30) as u32;
        let r = match text(ctx.get_raw(0)).as_str() {
            "+" => Some(a.add(&b)),
            "-" => Some(a.sub(&b)),
            "*" => Some(a.mul(&b)),
            "/" => a.div(&b, (int(3), int(4)), int(5)),
            _ => a.rem(&b),
        };
        Ok(r.map_or_else(|| divided_by_zero(&vars), |r| Some(held(&r))))
    })?;
    conn.create_scalar_function("mysql_decimal_neg", 1, pure, |ctx| {
        Ok(decimal_of(ctx.get_raw(0)).map(|d| held(&d.neg())))
    })?;
    conn.create_scalar_function("mysql_decimal_abs", 1, pure, |ctx| {
        Ok(decimal_of(ctx.get_raw(0)).map(|d| held(&d.abs())))
    })?;
    // `a DIV b` where either is no integer: the exact quotient cut toward zero, as MySQL
    // divides decimals there (`18446744073709551615 DIV 1e3` is 18446744073709551); error
    // 1690 past a BIGINT (`unsigned`: a BIGINT UNSIGNED, its bits).
    let vars = Arc::clone(&session.vars);
    conn.create_scalar_function("mysql_decimal_int_div", 3, pure, move |ctx| {
        let unsigned = ctx.get_raw(2).as_i64().unwrap_or(0) != 0;
        let (x, y) = (ctx.get_raw(0), ctx.get_raw(1));
        let (Some(a), Some(b)) = (decimal_read(x), decimal_read(y)) else {
            return Ok(None);
        };
        match a.int_div(&b) {
            None => Ok(divided_by_zero(&vars)),
            Some(q) => Decimal::to_bits(&q, unsigned)
                .map(Some)
                .ok_or_else(|| out_of_range(unsigned)),
        }
    })?;
    // `mysql_decimal_key(x, scale)`: `x` rounded to its type's scale, as a key.
    conn.create_scalar_function("mysql_decimal_key", 2, pure, |ctx| {
        let scale = ctx.get_raw(1).as_i64().unwrap_or(30).clamp(0, 30) as i32;
        Ok(decimal_of(ctx.get_raw(0)).map(|d| d.round(scale).key()))
    })?;
    // `mysql_decimal_unkey(key)`: the value a `mysql_decimal_key` was made of, as SQLite holds a
    // DECIMAL (`MIN`/`MAX` of DECIMALs: the least or greatest key, back).
    conn.create_scalar_function("mysql_decimal_unkey", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Blob(k) => Decimal::from_key(k).map(|d| held(&d)),
            _ => None,
        })
    })?;
    Ok(())
}

/// A DOUBLE of fixed decimals (`ROUND(x, 2)`, `PI()`: a column declared with fewer than 31) as
/// MySQL writes it (`my_fcvt`): its shortest digits that read back as it, padded with zeros to
/// `decimals` after the point (`1.50`; `ROUND(1e0/3, 20)` is `0.33333333333333330000`, not the
/// binary value's own digits), or, where those run past `decimals`, its value rounded to them
/// (`3.141593`); without a sign on zero (`-ROUND(0e0, 2)` is `0.00`), with one on a negative
/// value whose digits there are all zero (`-9223372036854775808 % ROUND(0.1e0, 1)`, a small
/// negative remainder, is `-0.0`), as `my_fcvt` takes the sign from the value, not the digits;
/// an infinity or a NaN as `0`, as `my_fcvt` writes it.
pub(super) fn fixed_double_text(x: f64, decimals: u8) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    let decimals = usize::from(decimals);
    let shortest = format!("{}", x.abs());
    let fraction = shortest.split_once('.').map_or(0, |(_, f)| f.len());
    let digits = if fraction <= decimals {
        let mut padded = shortest;
        if fraction == 0 && decimals > 0 {
            padded.push('.');
        }
        padded.extend(std::iter::repeat_n('0', decimals - fraction));
        padded
    } else {
        format!("{:.*}", decimals, x.abs())
    };
    if x < 0.0 {
        format!("-{digits}")
    } else {
        digits
    }
}

/// A DOUBLE of fixed decimals as MariaDB stores it in a column of `length` characters and
/// `decimals` digits after the point (the temporary table a materialized derived table is read
/// from: `Field_real::truncate_double`): its fraction rounded to them (half to even), and a value
/// past the column's width (`10^(length-decimals) - 10^-decimals`) held at that bound, as
/// MariaDB stores `ROUND(1e18, 2)` in its DOUBLE(19,2) as 1e17. NaN is stored as 0.
pub(super) fn double_field(x: f64, length: u32, decimals: u8) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    let scale = 10f64.powi(i32::from(decimals));
    let width = 10f64.powi(length.saturating_sub(u32::from(decimals)).min(400) as i32);
    let bound = width - 1.0 / scale;
    let x = if x.is_finite() {
        x.floor() + ((x - x.floor()) * scale).round_ties_even() / scale
    } else {
        x
    };
    x.clamp(-bound, bound)
}

/// A DOUBLE's text as MySQL writes it (a result, a DOUBLE read as a string): the shortest digits
/// that read back as the same double, positional where the point falls at most 14 zeros before
/// the first digit and, for a whole number, within its first 15 digits (`100000000000000`,
/// `1234567890123456.8`, `0.000000000000001`), else as `1e15`, `1.5e-16`; zero as `0`, and so
/// an infinity or a NaN.
pub(super) fn double_text(x: f64) -> String {
    // (An infinity or a NaN, which only a sum of doubles past the largest leaves, is `0`:
    // `my_gcvt` writes it so.)
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    gcvt_layout(&format!("{:e}", x.abs()), x < 0.0)
}

/// A FLOAT's text as MariaDB writes it (a FLOAT column, `MAX` of one, `CAST(… AS FLOAT)`, one
/// read as a string): the value as a 32-bit float, to `FLT_DIG` (6) significant digits, the
/// last rounded half to even (`1234565` is `1234560`), trailing zeros dropped (`1.424` for
/// 1.4240000247955322, `1.53931` for 1.5393096), laid out as a DOUBLE is ([`double_text`]:
/// `123457000`, `1e15`, `0.0000123457`). MySQL 8 writes a FLOAT's shortest digits instead;
/// the differential test holds pinbad to MariaDB 10.11.
pub(super) fn float_text(x: f64) -> String {
    let x = x as f32;
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    // Six significant digits (Rust rounds the exact binary value, ties to even, as dtoa).
    let sci = format!("{:.5e}", f64::from(x.abs()));
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
    gcvt_layout(&format!("{mantissa}e{exp}"), x < 0.0)
}

/// A number's digits (`sci`, as Rust's `{:e}` writes them: `1.2345e-7`) laid out as `my_gcvt`
/// lays them out: positional where the point falls at most 14 zeros before the first digit
/// and, for a whole number, within its first 15 digits; else with an exponent.
fn gcvt_layout(sci: &str, negative: bool) -> String {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits = mantissa.replace('.', "");
    let len = digits.len() as i32;
    // Where the point falls, counted from the first digit.
    let point = exp + 1;
    let sign = if negative { "-" } else { "" };
    let positional = if point >= len {
        point <= 15
    } else {
        point >= -14
    };
    if !positional {
        return format!("{sign}{mantissa}e{exp}");
    }
    if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
    } else if point < len {
        let (int, frac) = digits.split_at(point as usize);
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}{digits}{}", "0".repeat((point - len) as usize))
    }
}

/// A DECIMAL's text, as MySQL writes it: `v` rounded half away from zero to `scale` digits
/// after the point, all of them written (`3.5000`); `None` for NULL (see `typing`).
pub(super) fn decimal_text(v: ValueRef<'_>, scale: u8) -> Option<String> {
    let d = scale as usize;
    match v {
        ValueRef::Integer(i) if d == 0 => Some(i.to_string()),
        ValueRef::Integer(i) => Some(format!("{i}.{:0<d$}", "")),
        ValueRef::Text(t) if exact_decimal(t, d).is_some() => exact_decimal(t, d),
        // A DECIMAL held as a double: its shortest digits, exactly (`2.675` is 2.68).
        ValueRef::Real(x) if x.is_finite() && x.abs() < 1e60 => {
            Decimal::from_f64(x).map(|x| x.text(u32::from(scale)))
        }
        v => {
            let x = round_half_away(number(v)?, scale as i64, f64::round);
            // No negative zero: a DECIMAL has none.
            let x = if x == 0.0 { 0.0 } else { x };
            Some(format!("{x:.d$}"))
        }
    }
}

/// A decimal's text (`-12.345`) rounded half away from zero to `scale` digits, digit by digit:
/// exact where a double would keep only 15 of them. None for text that is no such number.
fn exact_decimal(text: &[u8], scale: usize) -> Option<String> {
    let s = std::str::from_utf8(text).ok()?.trim();
    let (negative, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits_only = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || int.len() > 65 || !digits_only(int) || !digits_only(frac) {
        return None;
    }
    let mut digits: Vec<u8> = int
        .bytes()
        .chain(frac.bytes().chain(std::iter::repeat(b'0')).take(scale))
        .collect();
    if frac.as_bytes().get(scale).is_some_and(|&b| b >= b'5') {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let split = digits.len() - scale;
    let whole = std::str::from_utf8(&digits[..split])
        .ok()?
        .trim_start_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    let fraction = std::str::from_utf8(&digits[split..]).ok()?;
    // No negative zero: a DECIMAL has none.
    let sign = if negative && digits.iter().any(|&b| b != b'0') {
        "-"
    } else {
        ""
    };
    Some(if scale == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    })
}

/// Integer `i` rounded (or cut, `away` false) to `d` < 0 decimals.
fn round_integer(i: i64, d: i64, away: bool) -> Value {
    if d >= 0 {
        return Value::Integer(i);
    }
    // Past 19 digits, no BIGINT rounds to anything but 0.
    if d < -19 {
        return Value::Integer(0);
    }
    let (i, f) = (i128::from(i), 10i128.pow((-d) as u32));
    let (q, r) = (i / f, i % f);
    let q = if away && r.abs() * 2 >= f {
        q + i.signum()
    } else {
        q
    };
    // Past a BIGINT, the DECIMAL MySQL makes it (`ROUND(9223372036854775807, -1)`), as a
    // DECIMAL too wide for a BIGINT is held: its digits.
    let exact = q * f;
    i64::try_from(exact).map_or_else(|_| Value::Text(exact.to_string()), Value::Integer)
}

fn rounded(ctx: &Context<'_>, away: bool) -> Value {
    let d = if ctx.len() > 1 {
        match number(ctx.get_raw(1)) {
            Some(d) => d as i64,
            None => return Value::Null,
        }
    } else {
        0
    };
    match ctx.get_raw(0) {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => round_integer(i, d, away),
        // A DECIMAL, by its exact digits (a double's shortest: one rounded as a DOUBLE was
        // rounded to even already, `mysql_round_double`, and stays as it is).
        v @ (ValueRef::Real(_) | ValueRef::Text(_)) if exact_digits(v).is_some() => {
            let d = d.clamp(-65, 30) as i32;
            exact_digits(v).map_or(Value::Null, |x| {
                match (held(&if away { x.round(d) } else { x.truncate(d) }), v) {
                    // A double stays one (SQLite's `round` answers doubles).
                    (Value::Integer(i), ValueRef::Real(_)) => Value::Real(i as f64),
                    (r, _) => r,
                }
            })
        }
        v => {
            let x = number(v).unwrap_or(0.0);
            let cut = if away { f64::round } else { f64::trunc };
            Value::Real(round_half_away(x, d, cut))
        }
    }
}

/// A value as MySQL's `CAST(x AS SIGNED)`: an exact or approximate number rounded half away
/// from zero, text read up to its first non-digit.
fn signed(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(r) => Some(round_half_away(r, 0, f64::round) as i64),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = String::from_utf8_lossy(t);
            let s = s.trim_start();
            let sign = usize::from(s.starts_with(['-', '+']));
            let len = sign + s[sign..].bytes().take_while(u8::is_ascii_digit).count();
            Some(s[..len].parse().unwrap_or(0))
        }
    }
}

/// `CAST(v AS UNSIGNED)`, its 64 bits as SQLite holds them (`typing::Ty::UInt`): an integer
/// keeps its bits (`CAST(-1 AS UNSIGNED)` is 2^64-1); a number is rounded half away from zero
/// (a DOUBLE was rounded to even already: `translate::coerce`), 0 below 0 and 2^64-1 past it,
/// as MariaDB clips one; a string's leading integer, wrapped where negative (`'-1'` is 2^64-1)
/// and clipped past 2^64-1.
fn unsigned_cast(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(r) if r < 0.0 => Some(0),
        ValueRef::Real(_) => bits(v),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(leading_integer(t)),
    }
}

/// A string's leading integer as 64 bits, as MySQL reads one as an integer (`'2.5'` is 2,
/// `'1e2'` 1): a negative one wrapped (`'-1'` is 2^64-1), clipped to 2^64-1 and -2^63.
pub(super) fn leading_integer(t: &[u8]) -> i64 {
    let s = String::from_utf8_lossy(t);
    let s = s.trim_start();
    let sign = usize::from(s.starts_with(['-', '+']));
    let len = sign + s[sign..].bytes().take_while(u8::is_ascii_digit).count();
    let n = match s[..len].parse::<i128>() {
        Ok(n) => n,
        // More digits than an i128 holds.
        Err(_) if len > sign + 1 && s.starts_with('-') => i128::from(i64::MIN),
        Err(_) if len > sign + 1 => i128::from(u64::MAX),
        Err(_) => 0,
    };
    if n > i128::from(u64::MAX) {
        -1
    } else if n < i128::from(i64::MIN) {
        i64::MIN
    } else {
        n as u64 as i64
    }
}

/// A value as the 64 bits a bit operation reads (`|`, `&`, `^`, `~`, `<<`, `>>`, `BIT_OR`, …):
/// an integer its own; a number or a string's leading number rounded half away from zero,
/// 2^64-1 past it and -2^63 below it (MariaDB's `~2.5e0` is `~3`, `1e30 | 0` 2^64-1).
pub(super) fn bits(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        v => number(v).map(|r| {
            let r = r.abs().round().copysign(r);
            if r >= 18_446_744_073_709_551_615.0 {
                -1
            } else if r >= 9_223_372_036_854_775_808.0 {
                r as u64 as i64
            } else {
                r as i64
            }
        }),
    }
}

/// An integer operand as `i128`, read as unsigned where `unsigned`.
fn wide(v: ValueRef<'_>, unsigned: bool) -> Option<i128> {
    let i = bits(v)?;
    Some(if unsigned {
        i128::from(i as u64)
    } else {
        i128::from(i)
    })
}

/// MySQL's error 1690 for a DOUBLE result out of its range (`check_float_overflow`), `said`
/// the expression as the message names it (`engine` answers it as the error).
pub(super) fn double_out_of_range(said: &str) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(format!("DOUBLE value is out of range in '{said}'").into())
}

/// `x` where it is a finite DOUBLE, else error 1690 naming `said()`.
pub(super) fn finite(x: f64, said: impl FnOnce() -> String) -> rusqlite::Result<f64> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(double_out_of_range(&said()))
    }
}

/// The words a function's error starts with where it is MySQL's error `code` (`engine` answers
/// it as that error).
pub(super) const MYSQL_ERROR: &str = "MySQL error ";

/// MySQL's error `code` with its `words`, raised by a function as the rows are read.
pub(super) fn mysql_error(code: u16, words: &str) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(format!("{MYSQL_ERROR}{code}: {words}").into())
}

/// MySQL's error 1690 for an integer result out of its type's range.
fn out_of_range(unsigned: bool) -> rusqlite::Error {
    rusqlite::Error::UserFunctionError(
        if unsigned {
            "BIGINT UNSIGNED value is out of range"
        } else {
            "BIGINT value is out of range"
        }
        .into(),
    )
}

/// `a op b` (`+`, `-`, `*`) of two signed BIGINTs as MySQL computes it: exact, error 1690
/// where it leaves 64 bits (SQLite's would be a double). Operands that are not both integers
/// (a NULL, a double) are computed as SQLite computes them. MariaDB's `Item_func_minus` finds
/// an overflow where a positive minuend meets a negative subtrahend: `0 - -9223372036854775808`
/// is not one, and wraps to -9223372036854775808.
fn signed_arith(op: &str, a: ValueRef<'_>, b: ValueRef<'_>) -> rusqlite::Result<Value> {
    match (a, b) {
        (ValueRef::Integer(x), ValueRef::Integer(y)) => {
            let exact = match op {
                "+" => x.checked_add(y),
                "-" if x == 0 => Some(y.wrapping_neg()),
                "-" => x.checked_sub(y),
                _ => x.checked_mul(y),
            };
            exact.map(Value::Integer).ok_or_else(|| out_of_range(false))
        }
        (ValueRef::Null, _) | (_, ValueRef::Null) => Ok(Value::Null),
        (a, b) => {
            let (Some(x), Some(y)) = (number(a), number(b)) else {
                return Ok(Value::Null);
            };
            Ok(Value::Real(match op {
                "+" => x + y,
                "-" => x - y,
                _ => x * y,
            }))
        }
    }
}

/// Integer arithmetic where an operand is a BIGINT UNSIGNED, as MySQL does it: exact, on each
/// operand as its signedness says (`signs`: 1 the left is unsigned, 2 the right), the result
/// unsigned where an operand is (`%`: where the dividend is) and error 1690 where it is out of
/// that type's range (`CAST(1 AS UNSIGNED) - 2`, `~0 + 1`); `DIV` and `%` by 0 are NULL.
pub(super) fn integer_arith(
    op: &str,
    a: ValueRef<'_>,
    b: ValueRef<'_>,
    signs: i64,
) -> rusqlite::Result<Option<i64>> {
    let (Some(x), Some(y)) = (wide(a, signs & 1 != 0), wide(b, signs & 2 != 0)) else {
        return Ok(None);
    };
    let unsigned = match op {
        "%" => signs & 1 != 0,
        _ => signs != 0,
    };
    let exact = match op {
        "+" => x.checked_add(y),
        "-" => x.checked_sub(y),
        "*" => x.checked_mul(y),
        "%" | "DIV" if y == 0 => return Ok(None),
        "%" => Some(x % y),
        _ => Some(x / y),
    };
    let (low, high) = if unsigned {
        (0, i128::from(u64::MAX))
    } else {
        (i128::from(i64::MIN), i128::from(i64::MAX))
    };
    match exact {
        Some(r) if (low..=high).contains(&r) => Ok(Some(r as u64 as i64)),
        _ => Err(out_of_range(unsigned)),
    }
}

/// An integer's exact value as a key that orders as it (16 bytes, big-endian, from -2^63),
/// for comparisons of integers where one is unsigned: SQLite's would read 2^64-1 as -1.
fn integer_key(v: ValueRef<'_>, unsigned: bool) -> Option<Vec<u8>> {
    let n = wide(v, unsigned)?;
    Some(((n - i128::from(i64::MIN)) as u128).to_be_bytes().to_vec())
}

/// Registers what reads BIGINT UNSIGNED values, held as their 64 bits (`typing::Ty::UInt`),
/// as MySQL does (`translate::unsigned` calls them).
fn unsigned(conn: &Connection) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    // The value where anything but the bit operations reads it: an integer below 2^63, past it
    // its digits (what a client is sent, and any number function reads).
    conn.create_scalar_function("mysql_unsigned_value", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Integer(i) if i < 0 => Value::Text((i as u64).to_string()),
            v => owned(v),
        })
    })?;
    conn.create_scalar_function("mysql_bits", 1, pure, |ctx| Ok(bits(ctx.get_raw(0))))?;
    conn.create_scalar_function("mysql_integer_arith", 4, pure, |ctx| {
        let op = text(ctx.get_raw(0));
        let signs = ctx.get_raw(3).as_i64().unwrap_or(0);
        integer_arith(&op, ctx.get_raw(1), ctx.get_raw(2), signs)
    })?;
    // `mysql_signed_arith(op, a, b)`: `a + b`, `a - b` or `a * b` of two BIGINTs, error 1690
    // past 64 bits, as MySQL's (SQLite's turns into a double there); what is not two integers
    // as SQLite computes it.
    conn.create_scalar_function("mysql_signed_arith", 3, pure, |ctx| {
        signed_arith(&text(ctx.get_raw(0)), ctx.get_raw(1), ctx.get_raw(2))
    })?;
    conn.create_scalar_function("mysql_integer_key", 2, pure, |ctx| {
        let unsigned = ctx.get_raw(1).as_i64().unwrap_or(0) != 0;
        Ok(integer_key(ctx.get_raw(0), unsigned))
    })?;
    // `x << n`, `x >> n` on 64 unsigned bits (SQLite's `>>` keeps the sign, and shifts the other
    // way by a negative count): 0 from 64 bits on, a negative count being one past 2^63.
    conn.create_scalar_function("mysql_shift", 3, pure, |ctx| {
        let (Some(x), Some(n)) = (bits(ctx.get_raw(0)), bits(ctx.get_raw(1))) else {
            return Ok(None);
        };
        let (x, n) = (x as u64, n as u64);
        let left = ctx.get_raw(2).as_i64().unwrap_or(0) != 0;
        Ok(Some(match n {
            64.. => 0,
            n if left => (x << n) as i64,
            n => (x >> n) as i64,
        }))
    })?;
    // The top bit flipped: unsigned order as SQLite's signed one (`MIN`, `MAX`), and back.
    conn.create_scalar_function("mysql_unsigned_flip", 1, pure, |ctx| {
        Ok(bits(ctx.get_raw(0)).map(|i| i ^ i64::MIN))
    })?;
    Ok(())
}

/// `x` with thousands separators and `d` decimals (`FORMAT`).
fn format_number(x: f64, d: i64) -> String {
    let d = d.clamp(0, 30) as usize;
    let x = round_half_away(x, d as i64, f64::round);
    if x.is_finite() && x.abs() >= 1e17 {
        // Past 17 digits a double's digits are its shortest ones, then zeros, as MySQL
        // writes them (`FORMAT(1.7976931348623157e308, 0)` is `179,769,313,486,231,570,000,…`).
        let e = format!("{x:e}");
        let (mantissa, exponent) = e.split_once('e').unwrap_or((&e, "0"));
        let exponent: usize = exponent.parse().unwrap_or(0);
        let (sign, mantissa) = match mantissa.strip_prefix('-') {
            Some(m) => ("-", m),
            None => ("", mantissa),
        };
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        let mut s = format!("{sign}{digits:0<width$}", width = exponent + 1);
        if d > 0 {
            s.push('.');
            s.extend(std::iter::repeat_n('0', d));
        }
        return grouped(&s);
    }
    let s = format!("{:.*}", d, x);
    grouped(&s)
}

/// How a locale writes a number: its thousands separator, its decimal point, and whether it
/// groups as India does (the last three digits, then by two). The locales whose writing is not
/// en_US's, as MariaDB 10.11 answers `FORMAT(1234567.5, 2, locale)` (its `MY_LOCALE` table,
/// bg_BG's NUL separator included); any other name writes as en_US, as MariaDB writes a name
/// it does not know.
fn number_style(locale: &str) -> (&'static str, char, bool) {
    const STYLES: &[(&str, char, bool, &[&str])] = &[
        ("", '.', false, &["ar_SA", "sr_RS"]),
        (
            ".",
            ',',
            false,
            &[
                "be_BY", "da_DK", "de_BE", "de_DE", "de_LU", "es_AR", "es_ES", "fo_FO", "hu_HU",
                "id_ID", "is_IS", "lt_LT", "mn_MN", "nb_NO", "no_NO", "ro_RO", "ru_UA", "sq_AL",
                "tr_TR", "uk_UA", "vi_VN",
            ],
        ),
        ("\0", ',', false, &["bg_BG"]),
        (
            "",
            ',',
            false,
            &[
                "ca_ES", "de_AT", "el_GR", "eu_ES", "fr_BE", "fr_CA", "fr_CH", "fr_FR", "fr_LU",
                "gl_ES", "hr_HR", "it_IT", "nl_BE", "nl_NL", "pl_PL", "pt_BR", "pt_PT", "sl_SI",
            ],
        ),
        (
            " ",
            ',',
            false,
            &[
                "cs_CZ", "et_EE", "fi_FI", "lv_LV", "mk_MK", "ru_RU", "sk_SK", "sv_FI", "sv_SE",
            ],
        ),
        ("'", '.', false, &["de_CH"]),
        ("'", ',', false, &["it_CH"]),
        (",", '.', true, &["en_IN", "ta_IN", "te_IN"]),
    ];
    STYLES
        .iter()
        .find(|(.., names)| names.iter().any(|n| n.eq_ignore_ascii_case(locale.trim())))
        .map_or((",", '.', false), |&(sep, point, india, _)| {
            (sep, point, india)
        })
}

/// `en` (a number as [`grouped`] writes it, en_US's way) as `locale` writes it.
fn localized(en: &str, locale: &str) -> String {
    let (sep, point, india) = number_style(locale);
    let (whole, fraction) = en.split_once('.').map_or((en, None), |(w, f)| (w, Some(f)));
    let (sign, whole) = whole.strip_prefix('-').map_or(("", whole), |w| ("-", w));
    let digits: Vec<char> = whole.chars().filter(char::is_ascii_digit).collect();
    // Group sizes from the right: three, then three (or two, India's way).
    let mut groups: Vec<String> = Vec::new();
    let mut end = digits.len();
    while end > 0 {
        let size = if india && !groups.is_empty() { 2 } else { 3 };
        let start = end.saturating_sub(size);
        groups.push(digits[start..end].iter().collect());
        end = start;
    }
    groups.reverse();
    let mut out = format!("{sign}{}", groups.join(sep));
    if let Some(f) = fraction {
        out.push(point);
        out.push_str(f);
    }
    out
}

/// A number's text (`-1234.50`) with thousands separators (`-1,234.50`); no negative zero.
fn grouped(s: &str) -> String {
    let negative = s.starts_with('-');
    let s = s.trim_start_matches('-');
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if negative && out.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        out.insert(0, '-');
    }
    out
}

/// Registers MySQL's numeric functions (where SQLite's differ or are missing) and operators
/// (`statement` rewrites `DIV`, `%`, `XOR` and `^` to these).
fn numeric(conn: &Connection, session: &Session) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    for n in [1, 2] {
        conn.create_scalar_function("round", n, pure, |ctx| Ok(rounded(ctx, true)))?;
    }
    conn.create_scalar_function("truncate", 2, pure, |ctx| Ok(rounded(ctx, false)))?;
    // A DOUBLE rounded as MySQL rounds one (`my_double_round`): `x·10^d` to the nearest
    // integer, half to even; `translate` calls it where `ROUND`, `FORMAT` or a cast to an
    // integer takes a double. What `round` gives then is already round.
    conn.create_scalar_function("mysql_round_double", 2, pure, |ctx| {
        let (Some(x), Some(d)) = (number(ctx.get_raw(0)), number(ctx.get_raw(1))) else {
            return Ok(None);
        };
        Ok(Some(round_double(x, d as i64)))
    })?;
    conn.create_scalar_function("mysql_signed", 1, pure, |ctx| Ok(signed(ctx.get_raw(0))))?;
    // `NTILE(n)`'s `n` as MySQL reads it (`val_int`); MariaDB's error where it is not positive.
    conn.create_scalar_function("mysql_ntile", 1, pure, |ctx| match signed(ctx.get_raw(0)) {
        Some(n) if n > 0 => Ok(n),
        _ => Err(mysql_error(
            4024,
            "Argument of NTILE must be greater than 0",
        )),
    })?;
    conn.create_scalar_function("mysql_unsigned", 1, pure, |ctx| {
        Ok(unsigned_cast(ctx.get_raw(0)))
    })?;
    unsigned(conn)?;
    // `CAST(x AS DECIMAL(precision, scale))`: rounded to its scale, and the largest value of
    // its digits where it has too few (MySQL's 99999999.99 for DECIMAL(10, 2), with a warning).
    conn.create_scalar_function("mysql_decimal", 3, pure, |ctx| {
        let scale = number(ctx.get_raw(1)).unwrap_or(0.0).clamp(0.0, 30.0) as u32;
        let precision = number(ctx.get_raw(2)).unwrap_or(10.0).clamp(1.0, 65.0) as u32;
        let v = ctx.get_raw(0);
        // Past a DECIMAL's 65 digits (a DOUBLE of 1e300), the largest of its sign, as MySQL's
        // `double2my_decimal` makes it before the cast cuts it.
        Ok(decimal_read(v).map(|d| held(&decimal_cast(&d, precision, scale))))
    })?;
    decimals(conn, session)?;
    // A DOUBLE's shortest digits that read back as it (Rust's `Display`, never an exponent):
    // the decimal MySQL makes of a double (`double2decimal`) before a cast to DECIMAL rounds it.
    conn.create_scalar_function("mysql_double_digits", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Real(x) if x.is_finite() => Some(Value::Text(format!("{x}"))),
            ValueRef::Null => None,
            v => Some(owned(v)),
        })
    })?;
    // A DOUBLE read as a string (a merged result that is a string: `typing::merge`).
    conn.create_scalar_function("mysql_double_text", 1, pure, |ctx| {
        Ok(number(ctx.get_raw(0)).map(double_text))
    })?;
    // A FLOAT read as a string (`CONCAT(req_time)`): its six significant digits.
    conn.create_scalar_function("mysql_float_text", 1, pure, |ctx| {
        Ok(number(ctx.get_raw(0)).map(float_text))
    })?;
    // A value made a FLOAT (`CAST(x AS FLOAT)`): rounded to 32 bits.
    conn.create_scalar_function("mysql_float", 1, pure, |ctx| {
        Ok(number(ctx.get_raw(0)).map(|x| f64::from(x as f32)))
    })?;
    // A DOUBLE of fixed decimals read as a string (`CONCAT(ROUND(x, 2))`), with them.
    conn.create_scalar_function("mysql_fixed_double_text", 2, pure, |ctx| {
        let decimals = number(ctx.get_raw(1)).unwrap_or(0.0).clamp(0.0, 30.0) as u8;
        Ok(number(ctx.get_raw(0)).map(|x| fixed_double_text(x, decimals)))
    })?;
    // A DOUBLE's `+ - * /` whose result may leave its range (`translate::ranged_double`).
    conn.create_scalar_function("mysql_double_checked", 2, pure, |ctx| {
        match ctx.get_raw(0) {
            ValueRef::Real(x) if !x.is_finite() => Err(double_out_of_range(&text(ctx.get_raw(1)))),
            v => Ok(number(v)),
        }
    })?;
    // A DOUBLE of fixed decimals stored in a temporary table's column (`double_field`).
    conn.create_scalar_function("mysql_double_field", 3, pure, |ctx| {
        let length = number(ctx.get_raw(1)).unwrap_or(0.0).clamp(0.0, 400.0) as u32;
        let decimals = number(ctx.get_raw(2)).unwrap_or(0.0).clamp(0.0, 30.0) as u8;
        Ok(number(ctx.get_raw(0)).map(|x| double_field(x, length, decimals)))
    })?;
    conn.create_scalar_function("mysql_decimal_text", 2, pure, |ctx| {
        let scale = number(ctx.get_raw(1)).unwrap_or(0.0).clamp(0.0, 30.0) as u8;
        Ok(decimal_text(ctx.get_raw(0), scale))
    })?;
    // A comparison's string operand beside a number (`typing::comparison`): its number, as a
    // double; a number stays as it is.
    conn.create_scalar_function("mysql_double", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Integer(i) => Some(Value::Integer(i)),
            v => number(v).map(Value::Real),
        })
    })?;
    // A comparison's string operand beside a binary string: its bytes, compared without a
    // collation.
    conn.create_scalar_function("mysql_bytes", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            ValueRef::Text(t) | ValueRef::Blob(t) => Some(Value::Blob(t.to_vec())),
            v => Some(Value::Blob(text(v).into_bytes())),
        })
    })?;
    // `a DIV b`: NULL by zero; error 1690 where the quotient leaves a BIGINT, as MySQL's
    // `Item_func_int_div` raises it (`-9223372036854775808 DIV -1`, `1e300 DIV 1`).
    let vars = Arc::clone(&session.vars);
    conn.create_scalar_function("mysql_div", 2, pure, move |ctx| {
        match (ctx.get_raw(0), ctx.get_raw(1)) {
            (ValueRef::Integer(_), ValueRef::Integer(0)) => Ok(divided_by_zero(&vars)),
            (ValueRef::Integer(a), ValueRef::Integer(b)) => a
                .checked_div(b)
                .map(Some)
                .ok_or_else(|| out_of_range(false)),
            (a, b) => match (number(a), number(b)) {
                (Some(a), Some(b)) if b != 0.0 => {
                    let q = (a / b).trunc();
                    // A BIGINT's range, -2^63 to 2^63 (both exact as doubles).
                    let bigint = i64::MIN as f64..-(i64::MIN as f64);
                    if bigint.contains(&q) {
                        Ok(Some(q as i64))
                    } else {
                        Err(out_of_range(false))
                    }
                }
                (Some(_), Some(_)) => Ok(divided_by_zero(&vars)),
                _ => Ok(None),
            },
        }
    })?;
    conn.create_scalar_function("mysql_xor", 2, pure, |ctx| {
        Ok(match (number(ctx.get_raw(0)), number(ctx.get_raw(1))) {
            (Some(a), Some(b)) => Some(((a != 0.0) != (b != 0.0)) as i64),
            _ => None,
        })
    })?;
    conn.create_scalar_function("mysql_bitxor", 2, pure, |ctx| {
        Ok(match (bits(ctx.get_raw(0)), bits(ctx.get_raw(1))) {
            (Some(a), Some(b)) => Some(a ^ b),
            _ => None,
        })
    })?;
    type Math = fn(f64) -> Option<f64>;
    // Outside a function's domain, NULL (MySQL's, with a warning).
    let math: [(&str, Math); 11] = [
        ("sqrt", |x| (x >= 0.0).then(|| x.sqrt())),
        ("ln", |x| (x > 0.0).then(|| x.ln())),
        ("log", |x| (x > 0.0).then(|| x.ln())),
        // MariaDB's `log(x) / M_LN2`, which differs from `log2` in the last digit.
        ("log2", |x| {
            (x > 0.0).then(|| x.ln() / std::f64::consts::LN_2)
        }),
        ("log10", |x| (x > 0.0).then(|| x.log10())),
        ("sin", |x| Some(x.sin())),
        ("cos", |x| Some(x.cos())),
        ("tan", |x| Some(x.tan())),
        ("asin", |x| (-1.0..=1.0).contains(&x).then(|| x.asin())),
        ("acos", |x| (-1.0..=1.0).contains(&x).then(|| x.acos())),
        ("atan", |x| Some(x.atan())),
    ];
    for (name, f) in math {
        conn.create_scalar_function(name, 1, pure, move |ctx| {
            Ok(number(ctx.get_raw(0)).and_then(f))
        })?;
    }
    // `ATAN(y, x)` is `ATAN2(y, x)`: the angle of the point (x, y).
    for name in ["atan", "atan2"] {
        conn.create_scalar_function(name, 2, pure, |ctx| {
            Ok(match (number(ctx.get_raw(0)), number(ctx.get_raw(1))) {
                (Some(y), Some(x)) => Some(y.atan2(x)),
                _ => None,
            })
        })?;
    }
    conn.create_scalar_function("log", 2, pure, |ctx| {
        Ok(match (number(ctx.get_raw(0)), number(ctx.get_raw(1))) {
            (Some(b), Some(x)) if b > 0.0 && b != 1.0 && x > 0.0 => Some(x.ln() / b.ln()),
            _ => None,
        })
    })?;
    // Past a DOUBLE's range (or no real number: `POW(-8, 0.5)`), MySQL's error 1690.
    conn.create_scalar_function("exp", 1, pure, |ctx| {
        Ok(match number(ctx.get_raw(0)) {
            Some(x) => Some(finite(x.exp(), || {
                format!("exp({})", text(ctx.get_raw(0)))
            })?),
            None => None,
        })
    })?;
    for name in ["pow", "power"] {
        conn.create_scalar_function(name, 2, pure, |ctx| {
            Ok(match (number(ctx.get_raw(0)), number(ctx.get_raw(1))) {
                (Some(a), Some(b)) => Some(finite(a.powf(b), || {
                    format!("pow({},{})", text(ctx.get_raw(0)), text(ctx.get_raw(1)))
                })?),
                _ => None,
            })
        })?;
    }
    conn.create_scalar_function("pi", 0, pure, |_| Ok(std::f64::consts::PI))?;
    // An exact value (an integer, a DECIMAL's digits) by its digits, a double past what they
    // hold as the double; as en_US writes it, or as the locale named third does.
    let formatted = |ctx: &Context| -> Option<String> {
        let d = number(ctx.get_raw(1));
        match (decimal_of(ctx.get_raw(0)), d) {
            (Some(x), Some(d)) => Some(grouped(&x.text(d.clamp(0.0, 30.0) as u32))),
            (None, Some(d)) => number(ctx.get_raw(0)).map(|x| format_number(x, d as i64)),
            _ => None,
        }
    };
    conn.create_scalar_function("format", 2, pure, move |ctx| Ok(formatted(ctx)))?;
    conn.create_scalar_function("format", 3, pure, move |ctx| {
        Ok(match ctx.get_raw(2) {
            ValueRef::Null => formatted(ctx),
            locale => formatted(ctx).map(|en| localized(&en, &text(locale))),
        })
    })?;
    conn.create_scalar_function("hex", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            ValueRef::Integer(i) => Some(format!("{:X}", i as u64)),
            // As MariaDB's `Item_func_hex` writes it: at or below -2^63 and at or past 2^64
            // every bit set, else rounded half away from zero, a negative one's 64 bits.
            ValueRef::Real(r) => Some(format!(
                "{:X}",
                if r.is_nan() || r <= -TWO_63 || r >= 2.0 * TWO_63 {
                    u64::MAX
                } else {
                    let v = round_half_away(r, 0, f64::round);
                    if v >= 0.0 {
                        v as u64
                    } else {
                        v as i64 as u64
                    }
                }
            )),
            ValueRef::Text(t) | ValueRef::Blob(t) => {
                Some(t.iter().map(|b| format!("{b:02X}")).collect())
            }
        })
    })?;
    // A binary string, as in MySQL; an odd count of digits read with a leading 0 (`UNHEX('4')`
    // is 0x04).
    conn.create_scalar_function("unhex", 1, pure, |ctx| {
        if matches!(ctx.get_raw(0), ValueRef::Null) {
            return Ok(Value::Null);
        }
        let mut s = text(ctx.get_raw(0));
        if !s.len().is_multiple_of(2) {
            s.insert(0, '0');
        }
        let bytes: Option<Vec<u8>> = (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
            .collect();
        Ok(bytes.map_or(Value::Null, Value::Blob))
    })?;
    Ok(())
}

/// An error once a value being made is longer than `max` (`@@max_allowed_packet`).
fn too_long(len: usize, max: usize) -> Result<()> {
    if len > max {
        return Err(rusqlite::Error::UserFunctionError(
            "a value grew longer than @@max_allowed_packet (mysql.max_allowed_packet)".into(),
        ));
    }
    Ok(())
}

/// A value's length in bytes as a string: a binary string's own bytes (`LENGTH(CHAR(200, 1))` is
/// 2; its text would hold a replacement character for the byte no UTF-8 reads), else its text's.
fn octets(v: ValueRef<'_>) -> usize {
    match v {
        ValueRef::Blob(b) => b.len(),
        v => text(v).len(),
    }
}

/// Registers MySQL's string functions where SQLite's differ or are missing. Those that make
/// long strings (`REPEAT`, `LPAD`, `RPAD`, `SPACE`) refuse, before making it, one longer than
/// `max_len` (`@@max_allowed_packet`, SQLite's own length limit).
fn strings(conn: &Connection, max_len: i64) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let max = usize::try_from(max_len).unwrap_or(usize::MAX);
    let too_long = move |len: usize| too_long(len, max);
    let null_if =
        |ctx: &Context<'_>| (0..ctx.len()).any(|i| matches!(ctx.get_raw(i), ValueRef::Null));
    conn.create_scalar_function("length", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => Some(octets(v) as i64),
        })
    })?;
    conn.create_scalar_function("bit_length", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => Some(octets(v) as i64 * 8),
        })
    })?;
    // `CONVERT(x USING utf8mb4)`: a binary string's bytes read as UTF-8 (`CHAR_LENGTH` of it
    // counts characters again), a replacement character for a byte none reads (MariaDB writes
    // `?` and warns); any other value as it is.
    conn.create_scalar_function("mysql_to_text", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Blob(b) => Value::Text(String::from_utf8_lossy(b).into_owned()),
            v => owned(v),
        })
    })?;
    // A binary string's characters are its bytes (`CHAR_LENGTH(UNHEX('C3A9'))` is 2).
    conn.create_scalar_function("char_length", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            ValueRef::Blob(b) => Some(b.len() as i64),
            v => Some(text(v).chars().count() as i64),
        })
    })?;
    conn.create_scalar_function("upper", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => Some(collation::upper(&text(v))),
        })
    })?;
    conn.create_scalar_function("lower", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => Some(collation::lower(&text(v))),
        })
    })?;
    conn.create_scalar_function("repeat", 2, pure, move |ctx| {
        if null_if(ctx) {
            return Ok(None);
        }
        let (s, n) = (
            text(ctx.get_raw(0)),
            number(ctx.get_raw(1)).unwrap_or(0.0).max(0.0),
        );
        too_long((s.len() as f64 * n).min(i64::MAX as f64) as usize)?;
        Ok(Some(s.repeat(n as usize)))
    })?;
    conn.create_scalar_function("space", 1, pure, move |ctx| {
        let Some(n) = number(ctx.get_raw(0)) else {
            return Ok(None);
        };
        let n = n.max(0.0).min(i64::MAX as f64) as usize;
        too_long(n)?;
        Ok(Some(" ".repeat(n)))
    })?;
    for (name, left) in [("lpad", true), ("rpad", false)] {
        conn.create_scalar_function(name, 3, pure, move |ctx| {
            if null_if(ctx) {
                return Ok(None);
            }
            let s = text(ctx.get_raw(0));
            let n = number(ctx.get_raw(1)).unwrap_or(0.0);
            let pad = text(ctx.get_raw(2));
            if n < 0.0 {
                return Ok(None);
            }
            let n = n.min(i64::MAX as f64) as usize;
            too_long(n.saturating_mul(4))?;
            let len = s.chars().count();
            if len >= n {
                return Ok(Some(s.chars().take(n).collect()));
            }
            if pad.is_empty() {
                return Ok(None);
            }
            let fill: String = pad.chars().cycle().take(n - len).collect();
            Ok(Some(if left { fill + &s } else { s + &fill }))
        })?;
    }
    conn.create_scalar_function("reverse", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => Some(text(v).chars().rev().collect::<String>()),
        })
    })?;
    for by in Collation::ALL {
        let name = by.function("find_in_set");
        conn.create_scalar_function(name.as_str(), 2, pure, move |ctx| {
            if null_if(ctx) {
                return Ok(None);
            }
            // By the collation, trailing spaces too (MariaDB's `strnncoll`, no PAD SPACE:
            // `FIND_IN_SET('a ', 'a,b')` is 0).
            let (s, list) = (text(ctx.get_raw(0)), text(ctx.get_raw(1)));
            if list.is_empty() {
                return Ok(Some(0));
            }
            Ok(Some(
                list.split(',')
                    .position(|x| by.compare_unpadded(x, &s).is_eq())
                    .map_or(0, |i| i as i64 + 1),
            ))
        })?;
    }
    // LOCATE(needle, haystack[, from]) and INSTR(haystack, needle): one search, arguments in
    // their order.
    for ((name, args, needle, haystack), by) in
        [("locate", 3, 0, 1), ("locate", 2, 0, 1), ("instr", 2, 1, 0)]
            .into_iter()
            .flat_map(|f| Collation::ALL.map(|c| (f, c)))
    {
        let name = by.function(name);
        conn.create_scalar_function(name.as_str(), args, pure, move |ctx| {
            if null_if(ctx) {
                return Ok(None);
            }
            let from = if args == 3 {
                number(ctx.get_raw(2)).unwrap_or(0.0).max(0.0) as usize
            } else {
                1
            };
            let hay = text(ctx.get_raw(haystack));
            // A start given past the last character finds nothing, not even '' (MariaDB's
            // `LOCATE('', 'ab', 3)` is 0; without a start, `LOCATE('', '')` is 1).
            if args == 3 && from > hay.chars().count() {
                return Ok(Some(0));
            }
            Ok(Some(by.locate(&text(ctx.get_raw(needle)), &hay, from)))
        })?;
    }
    for by in Collation::ALL {
        let name = by.function("strcmp");
        conn.create_scalar_function(name.as_str(), 2, pure, move |ctx| {
            if null_if(ctx) {
                return Ok(None);
            }
            let (a, b) = (text(ctx.get_raw(0)), text(ctx.get_raw(1)));
            Ok(Some(by.compare(&a, &b) as i64))
        })?;
    }
    conn.create_scalar_function("ascii", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => Some(text(v).bytes().next().map_or(0, i64::from)),
        })
    })?;
    conn.create_scalar_function("elt", -1, pure, |ctx| {
        let Some(n) = ctx.len().checked_sub(1).and(number(ctx.get_raw(0))) else {
            return Ok(Value::Null);
        };
        let n = n as i64;
        if n < 1 || n as usize >= ctx.len() {
            return Ok(Value::Null);
        }
        Ok(owned(ctx.get_raw(n as usize)))
    })?;
    for by in Collation::ALL {
        let name = by.function("field");
        conn.create_scalar_function(name.as_str(), -1, pure, move |ctx| {
            if ctx.is_empty() || matches!(ctx.get_raw(0), ValueRef::Null) {
                return Ok(0i64);
            }
            let s = by.key(&text(ctx.get_raw(0)));
            Ok((1..ctx.len())
                .find(|&i| {
                    !matches!(ctx.get_raw(i), ValueRef::Null) && by.key(&text(ctx.get_raw(i))) == s
                })
                .map_or(0, |i| i as i64))
        })?;
    }
    // SUBSTRING(s, pos[, len]) by MySQL's positions: 1 is the first character, a negative
    // one counts from the end, 0 (or one before the start) gives '', as does a length below 1.
    for args in [2, 3] {
        conn.create_scalar_function("mysql_substr", args, pure, move |ctx| {
            if null_if(ctx) {
                return Ok(None);
            }
            let s: Vec<char> = text(ctx.get_raw(0)).chars().collect();
            let pos = number(ctx.get_raw(1)).unwrap_or(0.0).round() as i64;
            let len = if args == 3 {
                number(ctx.get_raw(2)).unwrap_or(0.0).round() as i64
            } else {
                i64::MAX
            };
            let n = s.len() as i64;
            let start = match pos {
                p if p > 0 && p <= n => p - 1,
                p if p < 0 && -p <= n => n + p,
                _ => return Ok(Some(String::new())),
            };
            if len < 1 {
                return Ok(Some(String::new()));
            }
            let end = start.saturating_add(len).min(n);
            Ok(Some(s[start as usize..end as usize].iter().collect()))
        })?;
    }
    conn.create_scalar_function("mysql_insert", 4, pure, move |ctx| {
        if null_if(ctx) {
            return Ok(None);
        }
        let s: Vec<char> = text(ctx.get_raw(0)).chars().collect();
        let pos = number(ctx.get_raw(1)).unwrap_or(0.0) as i64;
        let len = number(ctx.get_raw(2)).unwrap_or(0.0) as i64;
        let new = text(ctx.get_raw(3));
        if pos < 1 || pos as usize > s.len() {
            return Ok(Some(s.into_iter().collect()));
        }
        let start = pos as usize - 1;
        let end = if len < 0 {
            s.len()
        } else {
            (start + len as usize).min(s.len())
        };
        let mut out: String = s[..start].iter().collect();
        out.push_str(&new);
        out.extend(&s[end..]);
        Ok(Some(out))
    })?;
    conn.create_scalar_function("quote", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => "NULL".to_string(),
            v => {
                let mut out = String::from("'");
                for c in text(v).chars() {
                    match c {
                        '\\' | '\'' => {
                            out.push('\\');
                            out.push(c);
                        }
                        '\0' => out.push_str("\\0"),
                        '\u{1a}' => out.push_str("\\Z"),
                        c => out.push(c),
                    }
                }
                out.push('\'');
                out
            }
        })
    })?;
    // `COUNT(DISTINCT a, b)` counts distinct `mysql_tuple(a, b)`: NULL when any is (MySQL skips
    // those rows), text folded as the default collation compares it.
    conn.create_scalar_function("mysql_tuple", -1, pure, |ctx| {
        let mut key = String::new();
        for i in 0..ctx.len() {
            match ctx.get_raw(i) {
                ValueRef::Null => return Ok(None),
                ValueRef::Integer(v) => key.push_str(&format!("i{v}")),
                ValueRef::Real(v) => key.push_str(&format!("r{v}")),
                v => key.push_str(&format!("t{}", collation::key(&text(v)))),
            }
            key.push('\u{1f}');
        }
        Ok(Some(key))
    })?;
    conn.create_scalar_function("md5", 1, pure, |ctx| {
        Ok(digest_hex::<md5::Md5>(ctx.get_raw(0)))
    })?;
    for name in ["sha1", "sha"] {
        conn.create_scalar_function(name, 1, pure, |ctx| {
            Ok(digest_hex::<sha1::Sha1>(ctx.get_raw(0)))
        })?;
    }
    conn.create_scalar_function("sha2", 2, pure, |ctx| {
        let v = ctx.get_raw(0);
        // MySQL: 224, 256 (or 0), 384 or 512 bits; any other length (or NULL) gives NULL.
        let bits = number(ctx.get_raw(1)).filter(|n| n.fract() == 0.0);
        Ok(match bits.map(|n| n as i64) {
            Some(224) => digest_hex::<sha2::Sha224>(v),
            Some(0 | 256) => digest_hex::<sha2::Sha256>(v),
            Some(384) => digest_hex::<sha2::Sha384>(v),
            Some(512) => digest_hex::<sha2::Sha512>(v),
            _ => None,
        })
    })?;
    conn.create_scalar_function("mysql_trim", 3, pure, move |ctx| {
        if null_if(ctx) {
            return Ok(None);
        }
        let (spec, rem, mut s) = (
            text(ctx.get_raw(0)).to_ascii_uppercase(),
            text(ctx.get_raw(1)),
            text(ctx.get_raw(2)),
        );
        if rem.is_empty() {
            return Ok(Some(s));
        }
        if spec != "TRAILING" {
            while let Some(rest) = s.strip_prefix(rem.as_str()) {
                s = rest.to_string();
            }
        }
        if spec != "LEADING" {
            while let Some(rest) = s.strip_suffix(rem.as_str()) {
                s = rest.to_string();
            }
        }
        Ok(Some(s))
    })?;
    /// MariaDB's regular expressions: case-insensitive (the collation), compiled once per
    /// statement and pattern.
    fn pattern(ctx: &Context<'_>, i: usize) -> Result<std::sync::Arc<regex::Regex>> {
        let p = text(ctx.get_raw(i));
        ctx.get_or_create_aux(i as std::os::raw::c_int, |_| {
            regex::RegexBuilder::new(&p)
                .case_insensitive(true)
                .size_limit(1 << 20)
                .build()
        })
    }
    conn.create_scalar_function("regexp_replace", 3, pure, move |ctx| {
        if null_if(ctx) {
            return Ok(None);
        }
        let re = pattern(ctx, 1)?;
        // MariaDB writes groups `\1`, and `\x` is `x`. Expanded here, each piece refused as the
        // answer passes @@max_allowed_packet: a replacement of groups can make each match far
        // longer than the string (the regex crate's `replace_all` made it whole first).
        enum Piece {
            Text(String),
            Group(usize),
        }
        let rep = text(ctx.get_raw(2));
        let mut pieces: Vec<Piece> = Vec::new();
        let mut chars = rep.chars().peekable();
        while let Some(c) = chars.next() {
            let c = match c {
                '\\' if chars.peek().is_some_and(char::is_ascii_digit) => {
                    let group = chars.next().and_then(|d| d.to_digit(10)).unwrap_or(0);
                    pieces.push(Piece::Group(group as usize));
                    continue;
                }
                '\\' if chars.peek().is_some() => chars.next().unwrap_or(c),
                c => c,
            };
            match pieces.last_mut() {
                Some(Piece::Text(t)) => t.push(c),
                _ => pieces.push(Piece::Text(c.to_string())),
            }
        }
        let s = text(ctx.get_raw(0));
        let mut out = String::new();
        let mut last = 0;
        for caps in re.captures_iter(&s) {
            let Some(whole) = caps.get(0) else { continue };
            // MariaDB replaces the matches up to the first empty one, and stops there
            // (`REGEXP_REPLACE('abbc', 'b*', '-')` is 'abbc', `('bbc', 'b*', '-')` '-c').
            if whole.is_empty() {
                break;
            }
            out.push_str(&s[last..whole.start()]);
            for piece in &pieces {
                let add = match piece {
                    Piece::Text(t) => t.as_str(),
                    Piece::Group(g) => caps.get(*g).map_or("", |m| m.as_str()),
                };
                too_long(out.len() + add.len())?;
                out.push_str(add);
            }
            last = whole.end();
        }
        out.push_str(&s[last..]);
        too_long(out.len())?;
        Ok(Some(out))
    })?;
    conn.create_scalar_function("regexp_substr", 2, pure, move |ctx| {
        if null_if(ctx) {
            return Ok(None);
        }
        let re = pattern(ctx, 1)?;
        let s = text(ctx.get_raw(0));
        Ok(Some(
            re.find(&s)
                .map_or(String::new(), |m| m.as_str().to_string()),
        ))
    })?;
    conn.create_scalar_function("regexp_instr", 2, pure, move |ctx| {
        if null_if(ctx) {
            return Ok(None);
        }
        let re = pattern(ctx, 1)?;
        let s = text(ctx.get_raw(0));
        Ok(Some(
            re.find(&s)
                .map_or(0, |m| s[..m.start()].chars().count() as i64 + 1),
        ))
    })?;
    Ok(())
}

/// The digest `D` of a value as MySQL's MD5(), SHA1() and SHA2() give it: lowercase hex digits of
/// its bytes (a number's as its text), NULL for NULL.
fn digest_hex<D: sha2::Digest>(v: ValueRef) -> Option<String> {
    let hash = match v {
        ValueRef::Null => return None,
        ValueRef::Blob(b) => D::digest(b),
        v => D::digest(text(v).as_bytes()),
    };
    Some(hash.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DECIMAL cast reads its operand's exact digits (a string's as written, a double's
    /// shortest), rounds them half away from zero and clips to its precision.
    #[test]
    fn numbers_are_written_as_the_locale_writes_them() {
        assert_eq!(localized("1,234,567.50", "de_DE"), "1.234.567,50");
        assert_eq!(localized("1,234,567.50", "en_IN"), "12,34,567.50");
        assert_eq!(localized("1,234,567.50", "fr_fr"), "1234567,50");
        assert_eq!(localized("-1,234.5", "ru_RU"), "-1 234,5");
        assert_eq!(localized("1,234", "bg_BG"), "1\u{0}234");
        assert_eq!(localized("123", "de_DE"), "123");
        assert_eq!(localized("1,234.5", "xx_YY"), "1,234.5");
        assert_eq!(localized("1,234.5", "en_US"), "1,234.5");
    }

    #[test]
    fn decimal_casts_round_exact_digits() {
        let c = conn();
        let cast = |v: &str, p: u32, s: u32| {
            let v = one(&c, &format!("SELECT mysql_decimal({v}, {s}, {p})"));
            decimal_text(ValueRef::from(&v), s as u8)
        };
        assert_eq!(
            cast("'-0.5049999999999999'", 10, 2).as_deref(),
            Some("-0.50")
        );
        assert_eq!(cast("'1.005'", 10, 2).as_deref(), Some("1.01"));
        assert_eq!(cast("' 9.995'", 10, 2).as_deref(), Some("10.00"));
        assert_eq!(cast("'-99.5'", 10, 0).as_deref(), Some("-100"));
        assert_eq!(cast("'1e3'", 10, 0).as_deref(), Some("1000"));
        assert_eq!(cast("'abc'", 10, 0).as_deref(), Some("0"));
        assert_eq!(
            cast("'12345678901234567890.123456789'", 30, 9).as_deref(),
            Some("12345678901234567890.123456789")
        );
    }

    /// MariaDB 10.11's `ROUND`/`TRUNCATE` of a BIGINT to tens or more: exact, a DECIMAL past
    /// 64 bits.
    #[test]
    fn bigints_round_exactly() {
        let max = i64::MAX;
        let text = |s: &str| Value::Text(s.into());
        assert_eq!(round_integer(max, -1, true), text("9223372036854775810"));
        assert_eq!(round_integer(-max, -1, true), text("-9223372036854775810"));
        assert_eq!(
            round_integer(max, -1, false),
            Value::Integer(9223372036854775800)
        );
        assert_eq!(
            round_integer(max, -2, true),
            Value::Integer(9223372036854775800)
        );
        assert_eq!(round_integer(max, -19, true), text("10000000000000000000"));
        assert_eq!(round_integer(max, -20, true), Value::Integer(0));
        assert_eq!(round_integer(15, -1, true), Value::Integer(20));
        assert_eq!(round_integer(-15, -1, true), Value::Integer(-20));
        assert_eq!(round_integer(15, 2, true), Value::Integer(15));
    }

    /// MariaDB 10.11's answers: a BIGINT result past 64 bits is 1690, but for a zero minuend.
    #[test]
    fn signed_bigints_overflow_where_mariadb_finds_it() {
        let arith = |op: &str, a: i64, b: i64| {
            signed_arith(op, ValueRef::Integer(a), ValueRef::Integer(b)).ok()
        };
        assert_eq!(arith("-", 0, i64::MIN), Some(Value::Integer(i64::MIN)));
        assert_eq!(arith("-", 0, -5), Some(Value::Integer(5)));
        assert_eq!(arith("-", 1, i64::MIN), None);
        assert_eq!(arith("-", i64::MAX, -1), None);
        assert_eq!(arith("+", i64::MAX, 1), None);
        assert_eq!(arith("*", -1, i64::MIN), None);
        assert_eq!(arith("-", i64::MIN, 0), Some(Value::Integer(i64::MIN)));
    }

    /// A DOUBLE past its range is error 1690 where MySQL's `check_float_overflow` raises it;
    /// `FLOOR` of one past a BIGINT stays a DOUBLE; `FORMAT` past 17 digits writes the
    /// shortest digits, then zeros.
    #[test]
    fn doubles_out_of_range_are_errors_and_wide_ones_keep_their_digits() {
        let c = conn();
        for q in [
            "pow(0, -2)",
            "pow(-8, 0.5)",
            "exp(1000)",
            "degrees(1.7976931348623157e308)",
        ] {
            let e = c
                .query_row(&format!("SELECT {q}"), [], |r| r.get::<_, Option<f64>>(0))
                .unwrap_err();
            assert!(
                e.to_string().contains("DOUBLE value is out of range"),
                "{q}: {e}"
            );
        }
        let e = c
            .query_row(
                "SELECT mysql_double_checked(1e308 * 10, '1e308 * 10')",
                [],
                |r| r.get::<_, f64>(0),
            )
            .unwrap_err();
        assert!(e.to_string().contains("in '1e308 * 10'"), "{e}");
        assert_eq!(
            one(&c, "SELECT mysql_double_checked(2e0 * 3, 'x')"),
            Value::Real(6.0)
        );
        assert_eq!(one(&c, "SELECT floor(1e19)"), Value::Real(1e19));
        assert_eq!(one(&c, "SELECT floor(2.5e0)"), Value::Integer(2));
        assert!(format_number(1.797_693_134_862_315_7e308, 1)
            .starts_with("179,769,313,486,231,570,000,"));
        assert!(format_number(1.797_693_134_862_315_7e308, 1).ends_with(",000.0"));
        assert_eq!(
            format_number(-1.5e30, 2),
            "-1,500,000,000,000,000,000,000,000,000,000.00"
        );
        assert_eq!(format_number(1234.5, 1), "1,234.5");
    }

    #[test]
    fn decimal_text_rounds_the_digits_it_is_given() {
        let text = |t: &str, d: u8| decimal_text(ValueRef::Text(t.as_bytes()), d);
        assert_eq!(
            text("1795824000.1234567", 6).as_deref(),
            Some("1795824000.123457")
        );
        assert_eq!(text("1795824000.25", 1).as_deref(), Some("1795824000.3"));
        assert_eq!(text("-0.04", 1).as_deref(), Some("0.0"));
        assert_eq!(text("-9.95", 1).as_deref(), Some("-10.0"));
        assert_eq!(text("12", 2).as_deref(), Some("12.00"));
        assert_eq!(text("99.5", 0).as_deref(), Some("100"));
        assert_eq!(text("1e3", 1).as_deref(), Some("1000.0"));
    }

    fn conn() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        register(
            &c,
            Arc::new(Session::new(
                "8.0.0-pinbad".into(),
                "u".into(),
                7,
                &crate::config::MysqlConfig::default(),
                Default::default(),
            )),
        )
        .unwrap();
        c
    }

    /// Every function this engine has is MySQL's (by name: its arguments are the
    /// translation's business), or refused as MySQL refuses a function it has not: no
    /// statement reaches SQLite's own functions or the translation's helpers.
    #[test]
    fn every_function_is_mysql_s_or_refused() {
        const MYSQL: &str = "abs addtime ascii avg bin bit_and bit_count bit_length bit_or \
            bit_xor ceil ceiling char char_length coalesce concat concat_ws connection_id conv \
            convert_tz cot count crc32 curdate current_date current_time current_timestamp \
            current_user curtime database date date_format datediff day dayname dayofmonth \
            dayofweek dayofyear degrees elt exp export_set field find_in_set floor format \
            found_rows from_base64 from_days from_unixtime greatest group_concat hex hour ifnull \
            inet_aton inet_ntoa instr is_ipv4 is_ipv6 json_array json_extract json_insert \
            json_object json_pretty json_quote json_remove json_replace json_set json_type \
            json_unquote json_valid last_day last_insert_id last_value least length ln locate log \
            log10 log2 lower lpad ltrim make_set makedate maketime max md5 microsecond min minute \
            month monthname now nullif oct octet_length ord period_add period_diff pi pow power \
            quarter quote radians rand regexp_instr regexp_replace regexp_substr repeat replace \
            reverse round row_count rpad rtrim sec_to_time second session_user sha sha1 sha2 sign \
            soundex space sqrt std stddev stddev_pop stddev_samp str_to_date strcmp substr \
            substring substring_index subtime sum sysdate system_user time time_format \
            time_to_sec timediff to_base64 to_days to_seconds truncate unhex unix_timestamp upper \
            user utc_date utc_time utc_timestamp uuid var_pop var_samp variance version week \
            weekday weekofyear year yearweek sin cos tan asin acos atan atan2 adddate subdate date_add date_sub get_format if \
            timestampadd timestampdiff trim cume_dist dense_rank first_value lag lead nth_value \
            ntile percent_rank rank row_number get_lock release_lock is_free_lock is_used_lock \
            release_all_locks -> ->>";
        let mysql: std::collections::HashSet<&str> = MYSQL.split_whitespace().collect();
        let c = conn();
        let mut names = c
            .prepare("SELECT DISTINCT name FROM pragma_function_list")
            .unwrap();
        let names: Vec<String> = names
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|n| n.unwrap())
            .collect();
        assert!(names.len() > 200, "{names:?}");
        for name in names {
            let refused = not_mysql(&name).map(|(code, _)| code);
            assert!(
                match refused {
                    None | Some(1105) => mysql.contains(name.as_str()),
                    Some(_) => !mysql.contains(name.as_str()),
                },
                "{name}: MySQL's (or refused as not supported), or refused as no function"
            );
        }
        assert_eq!(not_mysql("TypeOf").unwrap().0, 1305);
        assert_eq!(not_mysql("mysql_decimal").unwrap().0, 1305);
        assert_eq!(not_mysql("DateTime").unwrap().0, 1064);
        assert_eq!(not_mysql("date_format"), None);
        assert_eq!(not_mysql("JSON_OBJECT").unwrap().0, 1105);
    }

    fn one(c: &Connection, sql: &str) -> Value {
        c.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    /// Every system variable `variables::SYSTEM` types has a value here (NULL only where
    /// MariaDB's is), each of its kind; and every value here is typed there.
    #[test]
    fn system_variables_are_typed_and_valued() {
        use super::super::variables::{Kind, SYSTEM};
        let session = Session::new(
            "8.0.0-pinbad".into(),
            "u".into(),
            7,
            &crate::config::MysqlConfig::default(),
            Default::default(),
        );
        let values = variables(&session);
        for v in SYSTEM {
            let value = values.iter().find(|(n, _)| *n == v.name).map(|(_, x)| x);
            let fits = match (v.kind, value) {
                (_, None) => false,
                (Kind::Text, Some(Value::Text(_))) => true,
                (Kind::Text, Some(Value::Null)) => v.name == "default_tmp_storage_engine",
                (Kind::Boolean, Some(Value::Integer(0 | 1))) => true,
                (Kind::Signed | Kind::Unsigned, Some(Value::Integer(_))) => true,
                (Kind::Double, Some(Value::Real(_))) => true,
                _ => false,
            };
            assert!(fits, "{} ({:?}): {value:?}", v.name, v.kind);
        }
        for (name, _) in &values {
            assert!(
                SYSTEM.iter().any(|v| v.name == *name),
                "{name} is not typed"
            );
        }
    }

    #[test]
    fn dates_round_trip_in_utc() {
        let c = conn();
        assert_eq!(
            one(&c, "SELECT from_unixtime(1700000000)"),
            Value::Text("2023-11-14 22:13:20".into())
        );
        assert_eq!(
            one(&c, "SELECT unix_timestamp('2023-11-14 22:13:20')"),
            Value::Integer(1_700_000_000)
        );
        assert_eq!(
            one(&c, "SELECT unix_timestamp('2000-02-29')"),
            Value::Integer(951_782_400)
        );
        assert_eq!(one(&c, "SELECT unix_timestamp('nope')"), Value::Null);
        // A fraction's digits, exactly, as written (a DECIMAL's text).
        assert_eq!(
            one(&c, "SELECT unix_timestamp('2023-11-14 22:13:20.1234567')"),
            Value::Text("1700000000.123456".into())
        );
        assert_eq!(
            one(&c, "SELECT time_to_sec('-00:00:01.50')"),
            Value::Text("-1.50".into())
        );
        assert_eq!(
            one(&c, "SELECT date_format(20231114221320, '%Y/%c/%e %T %a')"),
            Value::Text("2023/11/14 22:13:20 Tue".into())
        );
        assert_eq!(
            one(&c, "SELECT from_unixtime(1.5)"),
            Value::Text("1970-01-01 00:00:01.5".into())
        );
    }

    #[test]
    fn doubles_print_as_mysql_prints_them() {
        // Each as MariaDB 10.11 writes it (`CONCAT(x)`).
        for (x, text) in [
            (1.0, "1"),
            (1e14, "100000000000000"),
            (1e15, "1e15"),
            (123456789012345.0, "123456789012345"),
            (1.234567890123456e15, "1.234567890123456e15"),
            (1.2345678901234567e15, "1234567890123456.8"),
            (1.2345678901234567e16, "1.2345678901234568e16"),
            (1e20, "1e20"),
            (1e-15, "0.000000000000001"),
            (1.5e-15, "0.0000000000000015"),
            (1e-16, "1e-16"),
            (1.2345678901234567e-15, "0.0000000000000012345678901234568"),
            (2.5e-308, "2.5e-308"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-0.0, "0"),
            (-1e15, "-1e15"),
            (-0.1, "-0.1"),
        ] {
            assert_eq!(double_text(x), text, "{x}");
        }
        // A FLOAT, each as MariaDB 10.11 writes a FLOAT column that holds it (ties to even,
        // the 32-bit value's digits, the layout of a DOUBLE's).
        for (x, text) in [
            (1.4240000247955322, "1.424"),
            (0.05, "0.05"),
            (1.5393096208572388, "1.53931"),
            (1234565.0, "1234560"),
            (1234575.0, "1234580"),
            (123456.5, "123456"),
            (999999.5, "1000000"),
            (12345650.0, "12345600"),
            (123456789012.0, "123457000000"),
            (1e14, "100000000000000"),
            (1e15, "1e15"),
            (999999500000000.0, "1e15"),
            (1e-14, "0.00000000000001"),
            (1e-15, "0.000000000000001"),
            (1e-16, "1e-16"),
            (3.4e38, "3.4e38"),
            (1.17549435e-38, "1.17549e-38"),
            (1.4e-45, "1.4013e-45"),
            (-0.0, "0"),
            (-1.8491129189229888e-26, "-1.84911e-26"),
            (211958.205, "211958"),
            (0.750433596, "0.750434"),
            (-2.6069672642847763e-08, "-0.0000000260697"),
        ] {
            assert_eq!(float_text(x), text, "{x}");
        }
        // Of fixed decimals, each as MariaDB 10.11 writes the column (`ROUND(x, d)`'s value).
        let third = 1.0 / 3.0;
        for (x, decimals, text) in [
            (1.5, 2, "1.50"),
            (std::f64::consts::PI, 6, "3.141593"),
            (2.0 * std::f64::consts::PI, 6, "6.283185"),
            (-0.0, 2, "0.00"),
            // `-9223372036854775808 % ROUND(0.1e0, 1)`.
            (-2.842170943040401e-14, 1, "-0.0"),
            (-2.0, 0, "-2"),
            (0.1, 20, "0.10000000000000000000"),
            (third, 20, "0.33333333333333330000"),
            (123456789.12345679, 12, "123456789.123456790000"),
            (1e22, 2, "10000000000000000000000.00"),
            (1.5e-10, 15, "0.000000000150000"),
            (18783479.810743675, 14, "18783479.81074367500000"),
            (5e-324, 30, "0.000000000000000000000000000000"),
        ] {
            assert_eq!(fixed_double_text(x, decimals), text, "{x} {decimals}");
        }
        assert_eq!(fixed_double_text(1e300, 1).len(), 303);
        // Stored in a temporary table's DOUBLE(length, decimals), as MariaDB 10.11 reads it
        // back from a materialized derived table (`SELECT t.* FROM (… LIMIT 1) t`).
        for (x, length, decimals, stored) in [
            (1e18, 19, 2, 99999999999999999.99),
            (-1e18, 18, 1, -99999999999999999.9),
            (1.5e15, 18, 1, 1.5e15),
            (0.125, 21, 2, 0.12),
            (0.135, 21, 2, 0.14),
            (f64::INFINITY, 17, 0, 99999999999999999.0),
            (f64::NAN, 17, 0, 0.0),
        ] {
            assert_eq!(
                double_field(x, length, decimals),
                stored,
                "{x} {length} {decimals}"
            );
        }
        assert_eq!(round_double(-2.5, 0), -2.0);
        assert_eq!(round_double(0.25, 1), 0.2);
        assert_eq!(round_double(25.0, -1), 20.0);
        assert_eq!(round_double(1e300, 20), 1e300);
        // Exact powers of ten (MariaDB: `ROUND(1e0/3, 20)` is 0.3333333333333333,
        // `ROUND(0.1e0, 25)` 0.1).
        assert_eq!(round_double(1.0 / 3.0, 20), 0.3333333333333333);
        assert_eq!(round_double(0.1, 25), 0.1);
        assert_eq!(round_double(1.0, 400), 1.0);
        assert_eq!(round_double(1.0, -400), 0.0);
        assert_eq!(
            round_half_away(1.0 / 3.0, 20, f64::round),
            0.3333333333333333
        );
        assert_eq!(round_half_away(0.1, 25, f64::trunc), 0.1);
        assert_eq!(round_half_away(2.345, 2, f64::round), 2.35);
    }

    #[test]
    fn numbers_round_and_print_as_mysql_does() {
        // A DECIMAL cast clips to its digits, after rounding.
        let cast =
            |x: &str, p: u32, s: u32| decimal_cast(&Decimal::parse(x).unwrap(), p, s).text(s);
        assert_eq!(cast("2147483647", 10, 2), "99999999.99");
        assert_eq!(cast("-2147483647", 10, 2), "-99999999.99");
        assert_eq!(cast("99999999.995", 10, 2), "99999999.99");
        assert_eq!(cast("20240305010203", 10, 0), "9999999999");
        assert_eq!(cast("1.005", 3, 2), "1.01");
        assert_eq!(cast("5", 2, 2), "0.99");
        let c = conn();
        assert_eq!(one(&c, "SELECT round(2.5)"), Value::Real(3.0));
        assert_eq!(one(&c, "SELECT round(2.345, 2)"), Value::Real(2.35));
        assert_eq!(one(&c, "SELECT round(1255, -2)"), Value::Integer(1300));
        assert_eq!(one(&c, "SELECT truncate(-2.789, 2)"), Value::Real(-2.78));
        assert_eq!(one(&c, "SELECT mysql_signed(2.5)"), Value::Integer(3));
        assert_eq!(one(&c, "SELECT mysql_signed('12abc')"), Value::Integer(12));
        assert_eq!(one(&c, "SELECT hex(255)"), Value::Text("FF".into()));
        assert_eq!(
            one(&c, "SELECT format(1234567.891, 2)"),
            Value::Text("1,234,567.89".into())
        );
        assert_eq!(one(&c, "SELECT length('héllo')"), Value::Integer(6));
        assert_eq!(
            one(&c, "SELECT lpad('7', 3, '0')"),
            Value::Text("007".into())
        );
        assert_eq!(
            one(&c, "SELECT md5('abc')"),
            Value::Text("900150983cd24fb0d6963f7d28e17f72".into())
        );
        // FIPS 180-2's test vectors; a number hashes as its text, NULL and odd lengths give NULL.
        let text = |hex: &str| Value::Text(hex.into());
        for (sql, want) in [
            (
                "SELECT sha1('abc')",
                text("a9993e364706816aba3e25717850c26c9cd0d89d"),
            ),
            ("SELECT sha('abc') = sha1('abc')", Value::Integer(1)),
            (
                "SELECT sha2('abc', 256)",
                text("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ),
            (
                "SELECT sha2('abc', 224)",
                text("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
            ),
            (
                "SELECT length(sha2('abc', 384)) + length(sha2('abc', 512))",
                Value::Integer(96 + 128),
            ),
            (
                "SELECT sha2('abc', 0) = sha2('abc', 256)",
                Value::Integer(1),
            ),
            ("SELECT sha1(5) = sha1('5')", Value::Integer(1)),
            ("SELECT sha2('abc', 100)", Value::Null),
            ("SELECT sha1(NULL)", Value::Null),
            ("SELECT md5(NULL)", Value::Null),
        ] {
            assert_eq!(one(&c, sql), want, "{sql}");
        }
        assert_eq!(one(&c, "SELECT find_in_set('B', 'a,b')"), Value::Integer(2));
        // By the collation's weights with their trailing spaces (MariaDB's `strnncoll`).
        assert_eq!(
            one(&c, "SELECT find_in_set('a ', 'a,b')"),
            Value::Integer(0)
        );
        assert_eq!(one(&c, "SELECT find_in_set('', ' ')"), Value::Integer(0));
        assert_eq!(one(&c, "SELECT find_in_set('', 'a,,b')"), Value::Integer(2));
        // A binary string's length is its bytes', its characters its bytes; joined with text,
        // bytes no UTF-8 reads stay a binary string.
        for (sql, want) in [
            ("SELECT length(x'C801')", 2),
            ("SELECT bit_length(x'C801')", 16),
            ("SELECT char_length(x'C3A9')", 2),
            ("SELECT char_length('é')", 1),
            ("SELECT char_length(mysql_to_text(x'C3A9'))", 1),
            ("SELECT length(concat(x'C8', 'a'))", 2),
            ("SELECT length(concat('é', x'41'))", 3),
        ] {
            assert_eq!(one(&c, sql), Value::Integer(want), "{sql}");
        }
        assert_eq!(
            one(&c, "SELECT concat(x'C8', 'a')"),
            Value::Blob(vec![0xC8, b'a'])
        );
        assert_eq!(
            one(&c, "SELECT concat(x'41', 'é')"),
            Value::Text("Aé".into())
        );
        assert_eq!(
            one(&c, "SELECT regexp_replace('a1b22', '([0-9]+)', '<\\1>')"),
            Value::Text("a<1>b<22>".into())
        );
        // Refused before it is made: longer than @@max_allowed_packet.
        assert!(c
            .query_row("SELECT repeat('x', 1e12)", [], |r| r.get::<_, Value>(0))
            .is_err());
        assert_eq!(
            one(&c, "SELECT mysql_group_concat(1, '|', x ORDER BY x) FROM (SELECT 'b' x UNION ALL SELECT 'a' UNION ALL SELECT 'A')"),
            Value::Text("A|b".into())
        );
        // Equal by the order, the last met first (MySQL's tree of them).
        assert_eq!(
            one(&c, "SELECT mysql_group_concat(0, ',', x ORDER BY substr(x, 1, 1) COLLATE MYSQL, mysql_arrival() DESC) FROM (SELECT 'a1' x UNION ALL SELECT 'A2' UNION ALL SELECT 'b' UNION ALL SELECT 'a3')"),
            Value::Text("a3,A2,a1,b".into())
        );
        assert_eq!(
            one(
                &c,
                "SELECT stddev_samp(x) FROM (SELECT 1 x UNION ALL SELECT 3)"
            ),
            Value::Real(2f64.sqrt())
        );
    }

    #[test]
    fn mysql_semantics_where_sqlite_differs() {
        let c = conn();
        assert_eq!(one(&c, "SELECT concat('a', NULL)"), Value::Null);
        assert_eq!(
            one(&c, "SELECT concat('a', 1, 2.5)"),
            Value::Text("a12.5".into())
        );
        assert_eq!(
            one(&c, "SELECT concat_ws('-', 'a', NULL, 'b')"),
            Value::Text("a-b".into())
        );
        assert_eq!(
            one(&c, "SELECT mysql_left('héllo', 2)"),
            Value::Text("hé".into())
        );
        assert_eq!(
            one(&c, "SELECT mysql_right('hello', 3)"),
            Value::Text("llo".into())
        );
        assert_eq!(one(&c, "SELECT greatest(1, 3.5, 2)"), Value::Real(3.5));
        assert_eq!(one(&c, "SELECT least(3, NULL)"), Value::Null);
        assert_eq!(one(&c, "SELECT 'ABC' REGEXP '^a'"), Value::Integer(1));
        assert_eq!(
            one(&c, "SELECT substring_index('a.b.c', '.', -2)"),
            Value::Text("b.c".into())
        );
        assert_eq!(one(&c, "SELECT floor(2.7)"), Value::Integer(2));
        assert_eq!(
            one(&c, "SELECT sysvar('version_comment')"),
            Value::Text("pinbad (Pinba server)".into())
        );
        assert_eq!(one(&c, "SELECT sysvar('nope')"), Value::Null);
        assert_eq!(one(&c, "SELECT database()"), Value::Text("pinba".into()));
        assert_eq!(one(&c, "SELECT mysql_mod(7, 3)"), Value::Integer(1));
    }

    /// BIGINT UNSIGNED values are their 64 bits in SQLite; what reads them reads them as MySQL
    /// does (values checked against MariaDB 10.11).
    #[test]
    fn unsigned_values_are_read_as_mysql_reads_them() {
        let c = conn();
        let err = |sql: &str| {
            c.query_row(sql, [], |r| r.get::<_, Value>(0))
                .unwrap_err()
                .to_string()
        };
        // `CAST(-1 AS UNSIGNED) + 0`, `~0 + 0`: exact, unsigned.
        assert_eq!(
            one(&c, "SELECT mysql_integer_arith('+', -1, 0, 1)"),
            Value::Integer(-1)
        );
        // `(~0) DIV 3`: 6148914691236517205.
        assert_eq!(
            one(&c, "SELECT mysql_integer_arith('DIV', -1, 3, 1)"),
            Value::Integer(6_148_914_691_236_517_205)
        );
        // `CAST(5 AS UNSIGNED) % -3` is 2, `-5 % CAST(3 AS UNSIGNED)` -2.
        assert_eq!(
            one(&c, "SELECT mysql_integer_arith('%', 5, -3, 1)"),
            Value::Integer(2)
        );
        assert_eq!(
            one(&c, "SELECT mysql_integer_arith('%', -5, 3, 2)"),
            Value::Integer(-2)
        );
        assert_eq!(
            one(&c, "SELECT mysql_integer_arith('DIV', 7, 0, 1)"),
            Value::Null
        );
        // `-1 DIV CAST(2 AS UNSIGNED)` is 0; `-7 DIV …` -3, no unsigned value: error 1690.
        assert_eq!(
            one(&c, "SELECT mysql_integer_arith('DIV', -1, 2, 2)"),
            Value::Integer(0)
        );
        for sql in [
            "SELECT mysql_integer_arith('DIV', -7, 2, 2)",
            "SELECT mysql_integer_arith('+', -1, 1, 1)",
            "SELECT mysql_integer_arith('-', 1, 2, 1)",
            "SELECT mysql_integer_arith('*', -1, 7, 1)",
        ] {
            assert!(
                err(sql).contains("BIGINT UNSIGNED value is out of range"),
                "{sql}"
            );
        }
        // The bit operators' operands: rounded half away from zero, clipped.
        assert_eq!(one(&c, "SELECT mysql_bits(2.5)"), Value::Integer(3));
        assert_eq!(one(&c, "SELECT mysql_bits('-2.5')"), Value::Integer(-3));
        assert_eq!(one(&c, "SELECT mysql_bits('1e2')"), Value::Integer(100));
        assert_eq!(one(&c, "SELECT mysql_bits(1e30)"), Value::Integer(-1));
        assert_eq!(
            one(&c, "SELECT mysql_bits(-1e30)"),
            Value::Integer(i64::MIN)
        );
        // `(~0) >> 1` is logical; a count from 64 on, or negative, leaves 0.
        assert_eq!(
            one(&c, "SELECT mysql_shift(-1, 1, 0)"),
            Value::Integer(i64::MAX)
        );
        assert_eq!(one(&c, "SELECT mysql_shift(5, -1, 0)"), Value::Integer(0));
        assert_eq!(
            one(&c, "SELECT mysql_shift(5, 63, 1)"),
            Value::Integer(i64::MIN)
        );
        // Casts: a string's leading integer, wrapped or clipped.
        assert_eq!(one(&c, "SELECT mysql_unsigned('-1')"), Value::Integer(-1));
        assert_eq!(one(&c, "SELECT mysql_unsigned('2.5')"), Value::Integer(2));
        assert_eq!(
            one(&c, "SELECT mysql_unsigned('99999999999999999999')"),
            Value::Integer(-1)
        );
        assert_eq!(one(&c, "SELECT mysql_unsigned(-1.5)"), Value::Integer(0));
        assert_eq!(one(&c, "SELECT mysql_unsigned(1e30)"), Value::Integer(-1));
        // Read as a value: past 2^63, its digits.
        assert_eq!(
            one(&c, "SELECT mysql_unsigned_value(-1)"),
            Value::Text("18446744073709551615".into())
        );
        assert_eq!(one(&c, "SELECT mysql_unsigned_value(7)"), Value::Integer(7));
        // Compared by exact value: 2^64-1 (bits -1) is above 1, and is not the signed -1.
        assert_eq!(
            one(
                &c,
                "SELECT mysql_integer_key(-1, 1) > mysql_integer_key(1, 0)"
            ),
            Value::Integer(1)
        );
        assert_eq!(
            one(
                &c,
                "SELECT mysql_integer_key(-1, 1) = mysql_integer_key(-1, 0)"
            ),
            Value::Integer(0)
        );
        // MAX in unsigned order.
        assert_eq!(
            one(
                &c,
                "SELECT mysql_unsigned_flip(max(mysql_unsigned_flip(x))) \
                 FROM (SELECT -1 AS x UNION ALL SELECT 5)"
            ),
            Value::Integer(-1)
        );
    }
}
