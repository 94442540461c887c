//! A session's variables: the system variables a `SET` changes (`time_zone`, `sql_mode`,
//! `div_precision_increment`, …) and the user variables (`@a`), with MySQL's rules for which
//! values each takes and MySQL's errors for the rest.
//!
//! Each system variable either acts (the translation reads it through [`Context`], the
//! functions through [`Variables`]) or is one that clients set at connect and that changes
//! nothing here (accepted and shown as set); any other is MySQL's error 1193, and a value pinbad
//! cannot honour (a named time zone, a `sql_mode` flag that changes how text is read) is
//! MySQL's error for it, never a setting silently ignored. Pure: the session applies a `SET`
//! with [`Variables::set`] and hands each statement's translation a [`Context`].

use std::collections::{BTreeMap, HashMap};

use super::collation::Collation;
use opensrv_mysql::ErrorKind;
use rusqlite::types::Value;

/// User variables a session may hold (MySQL has no bound; pinbad's sessions are bounded).
pub const MAX_USER_VARIABLES: usize = 1024;

/// MariaDB's default `sql_mode`, which pinbad's answers follow.
const DEFAULT_SQL_MODE: &str =
    "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION";

/// `sql_mode` flags pinbad takes, in MySQL's order (their bits'): `PIPES_AS_CONCAT`,
/// `ANSI_QUOTES`, `NO_BACKSLASH_ESCAPES` and `ONLY_FULL_GROUP_BY` act; the others change
/// nothing pinbad answers (they concern writes, DDL or dates stored).
const MODES_ACCEPTED: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// `sql_mode` flags that change how a statement is read or what it answers in ways pinbad's
/// translation does not follow: refused, naming the flag.
const MODES_REFUSED: &[&str] = &[
    "HIGH_NOT_PRECEDENCE",
    "EMPTY_STRING_IS_NULL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "POSTGRESQL",
    "MAXDB",
    "MYSQL323",
    "MYSQL40",
];

/// System variables clients set at connect that change nothing pinbad answers: accepted, and
/// shown as set (`SELECT @@wait_timeout` after `SET wait_timeout = 60` is 60); the booleans
/// of this kind are [`ACCEPTED_BOOLEANS`].
const ACCEPTED: &[&str] = &[
    "net_write_timeout",
    "net_read_timeout",
    "net_buffer_length",
    "wait_timeout",
    "interactive_timeout",
    "max_execution_time",
    "max_statement_time",
    "long_query_time",
    "transaction_isolation",
    "tx_isolation",
    "session_track_system_variables",
    "session_track_transaction_info",
    "character_set_server",
    "character_set_database",
    "collation_server",
    "collation_database",
    "character_set_filesystem",
    "explicit_defaults_for_timestamp",
    "default_storage_engine",
    "storage_engine",
    "default_tmp_storage_engine",
    "optimizer_switch",
    "optimizer_search_depth",
    "profiling",
    "query_cache_type",
    "big_tables",
    "innodb_lock_wait_timeout",
    "lock_wait_timeout",
    "max_heap_table_size",
    "tmp_table_size",
    "sort_buffer_size",
    "join_buffer_size",
    "read_buffer_size",
    "max_join_size",
    "max_sort_length",
    "auto_increment_increment",
    "auto_increment_offset",
    "completion_type",
    "low_priority_updates",
    "lc_messages",
    "updatable_views_with_limit",
    "names",
];

/// The booleans clients set at connect: `SET autocommit = 0` is accepted, `@@autocommit` is
/// then 0, and `SHOW VARIABLES` writes `ON` or `OFF` (what phpMyAdmin and Connector/J read).
const ACCEPTED_BOOLEANS: &[&str] = &[
    "autocommit",
    "foreign_key_checks",
    "unique_checks",
    "sql_auto_is_null",
    "sql_safe_updates",
    "sql_quote_show_create",
    "sql_notes",
    "sql_warnings",
    "sql_big_selects",
    "sql_buffer_result",
    "sql_log_off",
    "transaction_read_only",
    "tx_read_only",
    "session_track_schema",
    "session_track_state_change",
];

/// What a system variable's value is, as MariaDB types `SELECT @@x` (`Item_func_get_system_var`
/// by the variable's own type, not by its value): the result's column definition follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `ON`/`OFF`: a BIGINT of one digit (0 or 1).
    Boolean,
    /// A signed BIGINT (21 characters).
    Signed,
    /// An unsigned BIGINT (21 characters, UNSIGNED); 2^64 - 1 is held as SQLite's -1.
    Unsigned,
    /// A DOUBLE of 6 decimals (`long_query_time`), shown by `SHOW VARIABLES` with them.
    Double,
    /// A string: a VARCHAR as long as its value (4 bytes a character), NULL where unset.
    Text,
}

/// Where a system variable lives: `@@global.x` of a session-only one, `@@session.x` of a
/// global-only one, is MariaDB's error 1238.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Both,
    Session,
    Global,
}

/// A system variable pinbad answers `SELECT @@x` for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct System {
    pub name: &'static str,
    pub kind: Kind,
    pub scope: Scope,
}

const fn var(name: &'static str, kind: Kind, scope: Scope) -> System {
    System { name, kind, scope }
}

/// Every system variable pinbad knows, each with MariaDB 10.11's type and scope (its values:
/// `functions::variables`); any other `@@x` is MariaDB's error 1193. Those only MySQL 8 has
/// (`transaction_isolation`, `transaction_read_only`, `max_execution_time`) are here too:
/// pinbad says it is a MySQL 8, and MySQL's connectors read them.
pub const SYSTEM: &[System] = {
    use Kind::*;
    use Scope::*;
    &[
        var("autocommit", Boolean, Both),
        var("auto_increment_increment", Unsigned, Both),
        var("auto_increment_offset", Unsigned, Both),
        var("basedir", Text, Global),
        var("big_tables", Boolean, Both),
        var("character_set_client", Text, Both),
        var("character_set_connection", Text, Both),
        var("character_set_database", Text, Both),
        var("character_set_filesystem", Text, Both),
        var("character_set_results", Text, Both),
        var("character_set_server", Text, Both),
        var("character_set_system", Text, Global),
        var("collation_connection", Text, Both),
        var("collation_database", Text, Both),
        var("collation_server", Text, Both),
        var("completion_type", Text, Both),
        var("datadir", Text, Global),
        var("default_storage_engine", Text, Both),
        var("default_tmp_storage_engine", Text, Both),
        var("default_week_format", Unsigned, Both),
        var("div_precision_increment", Unsigned, Both),
        var("error_count", Unsigned, Session),
        var("event_scheduler", Text, Global),
        var("explicit_defaults_for_timestamp", Boolean, Both),
        var("foreign_key_checks", Boolean, Both),
        var("general_log", Boolean, Global),
        var("group_concat_max_len", Unsigned, Both),
        var("have_query_cache", Text, Global),
        var("have_ssl", Text, Global),
        var("hostname", Text, Global),
        var("identity", Unsigned, Session),
        var("init_connect", Text, Global),
        var("innodb_lock_wait_timeout", Unsigned, Both),
        var("insert_id", Unsigned, Session),
        var("interactive_timeout", Unsigned, Both),
        var("in_transaction", Unsigned, Session),
        var("join_buffer_size", Unsigned, Both),
        var("last_insert_id", Unsigned, Session),
        var("lc_messages", Text, Both),
        var("lc_time_names", Text, Both),
        var("license", Text, Global),
        var("lock_wait_timeout", Unsigned, Both),
        var("log_bin", Boolean, Global),
        var("long_query_time", Double, Both),
        var("lower_case_file_system", Boolean, Global),
        var("lower_case_table_names", Unsigned, Global),
        var("low_priority_updates", Boolean, Both),
        var("max_allowed_packet", Unsigned, Both),
        var("max_connections", Unsigned, Global),
        var("max_execution_time", Unsigned, Both),
        var("max_heap_table_size", Unsigned, Both),
        var("max_join_size", Unsigned, Both),
        var("max_sort_length", Unsigned, Both),
        var("max_statement_time", Double, Both),
        var("max_user_connections", Signed, Both),
        var("net_buffer_length", Unsigned, Both),
        var("net_read_timeout", Unsigned, Both),
        var("net_write_timeout", Unsigned, Both),
        var("optimizer_search_depth", Unsigned, Both),
        var("optimizer_switch", Text, Both),
        var("performance_schema", Boolean, Global),
        var("port", Unsigned, Global),
        var("profiling", Boolean, Both),
        var("protocol_version", Unsigned, Global),
        var("query_cache_size", Unsigned, Global),
        var("query_cache_type", Text, Both),
        var("read_buffer_size", Unsigned, Both),
        var("read_only", Boolean, Global),
        var("session_track_schema", Boolean, Both),
        var("session_track_state_change", Boolean, Both),
        var("session_track_system_variables", Text, Both),
        var("session_track_transaction_info", Text, Both),
        var("skip_name_resolve", Boolean, Global),
        var("skip_networking", Boolean, Global),
        var("slow_query_log", Boolean, Global),
        var("socket", Text, Global),
        var("sort_buffer_size", Unsigned, Both),
        var("sql_auto_is_null", Boolean, Both),
        var("sql_big_selects", Boolean, Both),
        var("sql_buffer_result", Boolean, Both),
        var("sql_log_bin", Boolean, Both),
        var("sql_log_off", Boolean, Both),
        var("sql_mode", Text, Both),
        var("sql_notes", Boolean, Both),
        var("sql_quote_show_create", Boolean, Both),
        var("sql_safe_updates", Boolean, Both),
        var("sql_select_limit", Unsigned, Both),
        var("sql_warnings", Boolean, Both),
        var("storage_engine", Text, Both),
        var("system_time_zone", Text, Global),
        var("time_zone", Text, Both),
        var("tmp_table_size", Unsigned, Both),
        var("transaction_isolation", Text, Both),
        var("transaction_read_only", Boolean, Both),
        var("tx_isolation", Text, Both),
        var("tx_read_only", Boolean, Both),
        var("unique_checks", Boolean, Both),
        var("updatable_views_with_limit", Text, Both),
        var("version", Text, Global),
        var("version_comment", Text, Global),
        var("version_compile_machine", Text, Global),
        var("version_compile_os", Text, Global),
        var("wait_timeout", Unsigned, Both),
        var("warning_count", Unsigned, Session),
    ]
};

/// The system variable `name` (any case), where pinbad knows it.
pub fn system(name: &str) -> Option<System> {
    SYSTEM
        .iter()
        .find(|v| v.name.eq_ignore_ascii_case(name))
        .copied()
}

/// `@@name`, `@@session.name`, `@@global.name` (`written` as the statement has it, without
/// `@@`) checked against [`SYSTEM`]: the variable, or MariaDB's error for it (1193 unknown,
/// 1238 a scope it does not have).
pub fn read_system(written: &str) -> Result<System, (ErrorKind, String)> {
    let lower = written.to_ascii_lowercase();
    let (scope, name) = [
        ("session.", Scope::Session),
        ("local.", Scope::Session),
        ("global.", Scope::Global),
    ]
    .iter()
    .find_map(|(p, s)| lower.strip_prefix(p).map(|n| (Some(*s), n)))
    .unwrap_or((None, lower.as_str()));
    let Some(v) = system(name) else {
        return Err((
            ErrorKind::ER_UNKNOWN_SYSTEM_VARIABLE,
            format!("Unknown system variable '{name}'"),
        ));
    };
    match (scope, v.scope) {
        (Some(Scope::Session), Scope::Global) => Err((
            ErrorKind::ER_INCORRECT_GLOBAL_LOCAL_VAR,
            format!("Variable '{name}' is a GLOBAL variable"),
        )),
        (Some(Scope::Global), Scope::Session) => Err((
            ErrorKind::ER_INCORRECT_GLOBAL_LOCAL_VAR,
            format!("Variable '{name}' is a SESSION variable"),
        )),
        _ => Ok(v),
    }
}

/// The accepted variable `name` (lower case) names, as [`ACCEPTED`] or [`ACCEPTED_BOOLEANS`]
/// writes it.
fn accepted(name: &str) -> Option<&'static str> {
    ACCEPTED
        .iter()
        .chain(ACCEPTED_BOOLEANS)
        .find(|a| **a == name)
        .copied()
}

/// The system variables pinbad shows that no session sets (MySQL's error 1238).
const READ_ONLY: &[&str] = &[
    "version",
    "version_comment",
    "version_compile_os",
    "version_compile_machine",
    "system_time_zone",
    "lower_case_table_names",
    "license",
    "protocol_version",
    "hostname",
    "port",
    "have_ssl",
    "read_only",
    "max_allowed_packet",
    "query_cache_size",
    "performance_schema",
    "init_connect",
];

/// What a `SET` assigns (evaluated by the session).
#[derive(Clone, Debug, PartialEq)]
pub enum Assigned {
    /// `DEFAULT`: the variable's default.
    Default,
    /// A value (a word such as `ON` or `utf8mb4` as its text).
    Value(Value),
}

/// The session's variables.
#[derive(Clone, Debug)]
pub struct Variables {
    /// `@@time_zone` as set, and its offset east of UTC in seconds.
    pub time_zone: String,
    pub offset: i64,
    /// `@@sql_mode`, its flags upper-cased and comma-separated, as MySQL shows it.
    pub sql_mode: String,
    pub div_precision_increment: u8,
    pub group_concat_max_len: u64,
    /// `@@sql_select_limit` (2^64 - 1: none).
    pub sql_select_limit: u64,
    /// `@@character_set_client` (`_connection`, `_results`: `SET NAMES` sets the three).
    pub character_set: String,
    /// `SET character_set_results = NULL` (clients send it: results as stored, which are
    /// UTF-8 here as they are sent anyway): `@@character_set_results` is NULL until set again.
    pub results_unconverted: bool,
    /// The id of the collation `SET NAMES … COLLATE` named (MariaDB's `character_set_results`
    /// is that collation, not its character set's default): every text column of a result
    /// is sent with it (utf8mb4_unicode_ci's 224 after Laravel's `SET NAMES`).
    pub results_collation: u16,
    pub collation_connection: String,
    pub default_week_format: u8,
    pub lc_time_names: String,
    /// The accepted variables a `SET` gave a value (see [`ACCEPTED`]).
    pub accepted: BTreeMap<&'static str, Value>,
    /// User variables by name (lower-cased: MySQL's are case-insensitive).
    pub user: HashMap<String, Value>,
    /// The types of the user variables that hold NULL and have one, or a DECIMAL: MariaDB types
    /// a variable by what was assigned (`SELECT MAX(1) INTO @v` of no row is a BIGINT NULL;
    /// `SET @d = 2.5` a DECIMAL, which `ROUND(@d)` rounds to 3 as exact values round), and a
    /// NULL assigned without a type leaves the one it had.
    pub null_types: HashMap<String, super::typing::Ty>,
    /// `FOUND_ROWS()`: the last query's rows (without its `LIMIT` under `SQL_CALC_FOUND_ROWS`).
    pub found_rows: u64,
    /// `ROW_COUNT()`: the last statement's, as MySQL's: -1 after a result set (and before any
    /// statement), 0 after one that changed no row (pinbad's tables take no writes).
    pub row_count: i64,
    /// Rows `GROUP_CONCAT` cut at `group_concat_max_len` in the statement running (warning
    /// 1260 each).
    pub cut_by_group_concat: u64,
    /// Divisions by zero (`/`, `DIV`, `MOD`, `%`) in the statement running: MySQL's warning
    /// 1365 each.
    pub divided_by_zero: u64,
    /// `@@warning_count` and `@@error_count`: what the session's diagnostics hold now (its
    /// `SHOW WARNINGS` list, of which it keeps at most `max_error_count`).
    pub warning_count: u64,
    pub error_count: u64,
    /// The statements the session sent, the one running included: its `Questions` status.
    pub questions: u64,
    /// Warnings the running statement's functions raised (`raise`): code, words, and how
    /// many times; at most `MAX_RAISED` kinds.
    raised: Vec<(u16, String, u64)>,
}

impl Default for Variables {
    fn default() -> Variables {
        Variables {
            time_zone: "SYSTEM".into(),
            offset: 0,
            sql_mode: DEFAULT_SQL_MODE.into(),
            div_precision_increment: 4,
            group_concat_max_len: 1 << 20,
            sql_select_limit: u64::MAX,
            character_set: "utf8mb4".into(),
            results_unconverted: false,
            results_collation: UTF8MB4_GENERAL_CI,
            collation_connection: "utf8mb4_general_ci".into(),
            default_week_format: 0,
            lc_time_names: "en_US".into(),
            accepted: BTreeMap::new(),
            user: HashMap::new(),
            null_types: HashMap::new(),
            found_rows: 0,
            row_count: -1,
            cut_by_group_concat: 0,
            divided_by_zero: 0,
            warning_count: 0,
            error_count: 0,
            questions: 0,
            raised: Vec::new(),
        }
    }
}

/// The kinds of warning a statement's functions raise that a session keeps (MySQL's
/// `max_error_count`).
const MAX_RAISED: usize = 64;

/// What a statement's translation reads of the session's variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    /// `sql_mode`'s `PIPES_AS_CONCAT`: `||` concatenates.
    pub pipes_as_concat: bool,
    /// A strict `sql_mode` (`STRICT_TRANS_TABLES` or `STRICT_ALL_TABLES`): string functions
    /// are declared as results that may be NULL.
    pub strict: bool,
    /// `sql_mode`'s `ONLY_FULL_GROUP_BY`: a grouped SELECT names no column outside its groups
    /// and aggregates (errors 1055, 1140).
    pub only_full_group_by: bool,
    /// `div_precision_increment`: what `/` and `AVG` add to a scale.
    pub div_increment: u8,
    /// `sql_select_limit`, where it is not 2^64 - 1: the rows of a statement's SELECT without
    /// its own `LIMIT`.
    pub select_limit: Option<u64>,
    /// The connection's collation: string literals compare by it.
    pub literals: Collation,
    /// The connection's character set is utf8mb3 (`SET NAMES utf8`): `CHARSET('a')` is it.
    pub literals_mb3: bool,
    /// `default_week_format`: `WEEK(d)`'s mode.
    pub week_format: u8,
    /// `group_concat_max_len`: how long a `GROUP_CONCAT` is declared.
    pub group_concat_max_len: u64,
    /// The report tables' columns, by table name: their types type the query's expressions.
    pub tables: TableColumns,
    /// The user variables' types, by lower-cased name, as their values are now (MySQL types
    /// `@a` by the value it holds when the statement starts).
    pub user_types: BTreeMap<String, super::typing::Ty>,
    /// The characters of the string system variables' values, by name (a NULL's 0): MariaDB
    /// declares `@@x` as long as its value. Empty where `character_set_results` is NULL:
    /// MariaDB's results are then unconverted, and declared otherwise.
    pub system_texts: BTreeMap<&'static str, u32>,
}

/// A table's columns and their types, as the session's catalog has them, or `None` where it
/// has no such table. A report table's layout comes from its report's definition, which the
/// translation (pure text to text) cannot see: the session gives it this lookup.
type Lookup = dyn Fn(&str) -> Option<Vec<(String, super::layout::SqlType)>> + Send + Sync;

/// The lookup of report tables' columns a translation types them by ([`Context::tables`]);
/// none by default (a report table's columns are then untyped).
#[derive(Clone, Default)]
pub struct TableColumns(Option<std::sync::Arc<Lookup>>);

impl TableColumns {
    pub fn new(
        lookup: impl Fn(&str) -> Option<Vec<(String, super::layout::SqlType)>> + Send + Sync + 'static,
    ) -> TableColumns {
        TableColumns(Some(std::sync::Arc::new(lookup)))
    }

    /// Table `name`'s columns, where the lookup knows it.
    pub fn of(&self, name: &str) -> Option<Vec<(String, super::layout::SqlType)>> {
        self.0.as_ref().and_then(|f| f(name))
    }
}

impl std::fmt::Debug for TableColumns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "TableColumns(lookup)"
        } else {
            "TableColumns(none)"
        })
    }
}

impl PartialEq for TableColumns {
    fn eq(&self, other: &TableColumns) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Default for Context {
    fn default() -> Context {
        Variables::default().context()
    }
}

/// The collations pinbad evaluates, by MySQL's name: a `_bin` one compares by code point,
/// `binary` by byte, a `_unicode_ci` one by UCA 4.0.0, a `_general_ci` one by its weights.
pub fn collation(name: &str) -> Option<Collation> {
    let n = name.to_ascii_lowercase();
    match n.as_str() {
        "utf8mb4_general_ci" | "utf8_general_ci" | "utf8mb3_general_ci" => Some(Collation::General),
        "utf8mb4_bin" | "utf8_bin" | "utf8mb3_bin" | "ascii_bin" | "latin1_bin" => {
            Some(Collation::Bin)
        }
        "utf8mb4_unicode_ci" | "utf8_unicode_ci" | "utf8mb3_unicode_ci" => Some(Collation::Unicode),
        "binary" => Some(Collation::Binary),
        _ => None,
    }
}

/// The id of utf8mb4_general_ci, the results' collation unless `SET NAMES` names another.
pub(super) const UTF8MB4_GENERAL_CI: u16 = 45;
/// The id of utf8mb3_general_ci (`SET NAMES utf8`).
const UTF8MB3_GENERAL_CI: u16 = 33;

/// The character set of a collation [`collation`] knows, by its name (`utf8_…` is
/// utf8mb3's).
pub(super) fn charset_of(collation: &str) -> &str {
    match collation.split('_').next().unwrap_or(collation) {
        "utf8" => "utf8mb3",
        cs => cs,
    }
}

/// The id MySQL gives a collation [`collation`] knows, by its name.
fn collation_id(name: &str) -> u16 {
    let n = name.to_ascii_lowercase();
    let mb3 = n.starts_with("utf8mb3_") || n.starts_with("utf8_");
    match (collation(&n), mb3) {
        (Some(Collation::Bin), _) if n == "ascii_bin" => 65,
        (Some(Collation::Bin), _) if n == "latin1_bin" => 47,
        (Some(Collation::Bin), true) => 83,
        (Some(Collation::Bin), false) => 46,
        (Some(Collation::Unicode), true) => 192,
        (Some(Collation::Unicode), false) => 224,
        (Some(Collation::Binary), _) => 63,
        (_, true) => UTF8MB3_GENERAL_CI,
        _ => UTF8MB4_GENERAL_CI,
    }
}

/// MySQL's error for a collation pinbad does not evaluate: one MariaDB 10.11 has (a UTF-8
/// one, by its name) is not supported (1235), naming it; any other name is unknown (1273), as
/// MariaDB answers MySQL 8's `utf8mb4_0900_ai_ci`.
pub fn unknown_collation(name: &str) -> (ErrorKind, String) {
    /// MariaDB 10.11's UTF-8 collations, after their character set's name.
    const MARIADBS: &[&str] = &[
        "general_ci",
        "bin",
        "unicode_ci",
        "icelandic_ci",
        "latvian_ci",
        "romanian_ci",
        "slovenian_ci",
        "polish_ci",
        "estonian_ci",
        "spanish_ci",
        "swedish_ci",
        "turkish_ci",
        "czech_ci",
        "danish_ci",
        "lithuanian_ci",
        "slovak_ci",
        "spanish2_ci",
        "roman_ci",
        "persian_ci",
        "esperanto_ci",
        "hungarian_ci",
        "sinhala_ci",
        "german2_ci",
        "croatian_mysql561_ci",
        "unicode_520_ci",
        "vietnamese_ci",
        "croatian_ci",
        "myanmar_ci",
        "thai_520_w2",
        "general_nopad_ci",
        "nopad_bin",
        "unicode_nopad_ci",
        "unicode_520_nopad_ci",
        "general_mysql500_ci",
    ];
    let lower = name.to_ascii_lowercase();
    let known = ["utf8mb4_", "utf8mb3_", "utf8_"].iter().any(|p| {
        lower
            .strip_prefix(p)
            .is_some_and(|rest| MARIADBS.contains(&rest))
    });
    if known {
        return not_supported(format!(
            "collation '{name}' is not supported by pinbad: it compares by utf8mb4_general_ci, \
             utf8mb4_bin, utf8mb4_unicode_ci and binary"
        ));
    }
    (
        ErrorKind::ER_UNKNOWN_COLLATION,
        format!("Unknown collation: '{name}'"),
    )
}

/// A time zone's offset east of UTC in seconds: `+HH:MM`/`-HH:MM` within MySQL's range
/// (-12:59 to +13:00, MariaDB's), `SYSTEM` (pinbad's is UTC) and UTC's names; `None` for any
/// other (pinbad has no zone database).
pub fn time_zone(tz: &str) -> Option<i64> {
    let t = tz.trim();
    if ["SYSTEM", "UTC", "GMT", "Etc/UTC", "Universal", "Zulu"]
        .iter()
        .any(|n| n.eq_ignore_ascii_case(t))
    {
        return Some(0);
    }
    let (sign, rest) = match t.as_bytes().first()? {
        b'+' => (1, &t[1..]),
        b'-' => (-1, &t[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    if h.is_empty() || h.len() > 2 || m.len() != 2 {
        return None;
    }
    let h: i64 = h.parse().ok()?;
    let m: i64 = m.parse().ok()?;
    let minutes = sign * (h * 60 + m);
    (m < 60 && (-(12 * 60 + 59)..=13 * 60).contains(&minutes)).then_some(minutes * 60)
}

/// A value as a `SET` of a string variable reads it.
fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::Text(t) => Some(t.clone()),
        Value::Integer(i) => Some(i.to_string()),
        Value::Real(f) => Some(f.to_string()),
        Value::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::Null => None,
    }
}

/// A value as a `SET` of an integer variable reads it: MySQL's error 1232 for a string or a
/// fraction.
fn as_integer(name: &str, v: &Value) -> Result<i64, (ErrorKind, String)> {
    match v {
        Value::Integer(i) => Ok(*i),
        _ => Err(wrong_type(name)),
    }
}

fn wrong_type(name: &str) -> (ErrorKind, String) {
    (
        ErrorKind::ER_WRONG_TYPE_FOR_VAR,
        format!("Incorrect argument type to variable '{name}'"),
    )
}

fn wrong_value(name: &str, v: &str) -> (ErrorKind, String) {
    (
        ErrorKind::ER_WRONG_VALUE_FOR_VAR,
        format!("Variable '{name}' can't be set to the value of '{v}'"),
    )
}

fn not_supported(what: String) -> (ErrorKind, String) {
    (ErrorKind::ER_NOT_SUPPORTED_YET, what)
}

impl Variables {
    /// A function of the running statement raised warning `code` (`words`): counted once
    /// more where it raised the same before, else kept, up to `MAX_RAISED` kinds.
    pub fn raise(&mut self, code: u16, words: String) {
        if let Some(r) = self.raised.iter_mut().find(|r| r.0 == code && r.1 == words) {
            r.2 += 1;
        } else if self.raised.len() < MAX_RAISED {
            self.raised.push((code, words, 1));
        } else if let Some(last) = self.raised.last_mut() {
            last.2 += 1;
        }
    }

    /// The warnings the statement's functions raised, taken.
    pub fn take_raised(&mut self) -> Vec<(u16, String, u64)> {
        std::mem::take(&mut self.raised)
    }

    /// What the translation reads.
    pub fn context(&self) -> Context {
        Context {
            pipes_as_concat: self.mode("PIPES_AS_CONCAT"),
            strict: self.mode("STRICT_TRANS_TABLES") || self.mode("STRICT_ALL_TABLES"),
            only_full_group_by: self.mode("ONLY_FULL_GROUP_BY"),
            div_increment: self.div_precision_increment,
            select_limit: (self.sql_select_limit != u64::MAX).then_some(self.sql_select_limit),
            literals: collation(&self.collation_connection).unwrap_or(Collation::General),
            literals_mb3: charset_of(&self.collation_connection) == "utf8mb3",
            week_format: self.default_week_format,
            group_concat_max_len: self.group_concat_max_len,
            tables: TableColumns::default(),
            user_types: self
                .user
                .iter()
                .map(|(name, v)| (name.clone(), self.user_type(name, v)))
                .collect(),
            system_texts: BTreeMap::new(),
        }
    }

    /// Whether `sql_mode` has `flag`.
    /// How `sql_mode` has statements read: `ANSI_QUOTES`, `NO_BACKSLASH_ESCAPES` (see
    /// `dialect::in_default_mode`).
    pub fn reading(&self) -> (bool, bool) {
        (self.mode("ANSI_QUOTES"), self.mode("NO_BACKSLASH_ESCAPES"))
    }

    fn mode(&self, flag: &str) -> bool {
        self.sql_mode.split(',').any(|f| f == flag)
    }

    /// The system variables as they are now, by name: what a `SET` changed (pinbad's defaults
    /// for the rest are `functions::variables`').
    pub fn shown(&self) -> Vec<(&'static str, Value)> {
        let text = |s: &str| Value::Text(s.to_string());
        let mut out = vec![
            ("time_zone", text(&self.time_zone)),
            ("sql_mode", text(&self.sql_mode)),
            (
                "warning_count",
                Value::Integer(i64::try_from(self.warning_count).unwrap_or(i64::MAX)),
            ),
            (
                "error_count",
                Value::Integer(i64::try_from(self.error_count).unwrap_or(i64::MAX)),
            ),
            (
                "div_precision_increment",
                Value::Integer(self.div_precision_increment.into()),
            ),
            (
                "group_concat_max_len",
                Value::Integer(self.group_concat_max_len as i64),
            ),
            (
                "sql_select_limit",
                // An unsigned BIGINT's 64 bits (2^64 - 1 is SQLite's -1), as `Kind::Unsigned`.
                Value::Integer(self.sql_select_limit as i64),
            ),
            ("character_set_client", text(&self.character_set)),
            (
                "character_set_connection",
                text(charset_of(&self.collation_connection)),
            ),
            (
                "character_set_results",
                if self.results_unconverted {
                    Value::Null
                } else {
                    text(&self.character_set)
                },
            ),
            ("collation_connection", text(&self.collation_connection)),
            (
                "default_week_format",
                Value::Integer(self.default_week_format.into()),
            ),
            ("lc_time_names", text(&self.lc_time_names)),
        ];
        out.extend(self.accepted.iter().map(|(n, v)| (*n, v.clone())));
        out
    }

    /// `SET [SESSION] name = value`: the variable takes it, or MySQL's error says why not.
    pub fn set(
        &mut self,
        name: &str,
        global: bool,
        value: Assigned,
    ) -> Result<(), (ErrorKind, String)> {
        let lower = name.to_ascii_lowercase();
        let default = Variables::default();
        let value = match value {
            Assigned::Default => None,
            Assigned::Value(v) => Some(v),
        };
        let known = accepted(&lower).is_some()
            || default.shown().iter().any(|(n, _)| *n == lower)
            || [
                "character_set_client",
                "character_set_connection",
                "character_set_results",
            ]
            .contains(&lower.as_str());
        if !known {
            return Err(match READ_ONLY.contains(&lower.as_str()) {
                true if lower == "max_allowed_packet" => (
                    ErrorKind::ER_VARIABLE_IS_READONLY,
                    format!(
                        "SESSION variable '{lower}' is read-only. Use SET GLOBAL to assign the \
                         value (pinbad's is mysql.max_allowed_packet)"
                    ),
                ),
                true => (
                    ErrorKind::ER_INCORRECT_GLOBAL_LOCAL_VAR,
                    format!("Variable '{lower}' is a read only variable"),
                ),
                false => (
                    ErrorKind::ER_UNKNOWN_SYSTEM_VARIABLE,
                    format!("Unknown system variable '{lower}'"),
                ),
            });
        }
        if global {
            return Err((
                ErrorKind::ER_SPECIFIC_ACCESS_DENIED_ERROR,
                format!(
                    "Access denied; you need (at least one of) the SUPER privilege(s) for this \
                     operation (SET GLOBAL {lower}: pinbad's settings are its configuration's)"
                ),
            ));
        }
        match lower.as_str() {
            "time_zone" => {
                let Some(v) = value else {
                    self.time_zone = default.time_zone;
                    self.offset = 0;
                    return Ok(());
                };
                let tz = as_text(&v).ok_or_else(|| wrong_value(&lower, "NULL"))?;
                let offset = time_zone(&tz).ok_or_else(|| {
                    (
                        ErrorKind::ER_UNKNOWN_TIME_ZONE,
                        format!(
                            "Unknown or incorrect time zone: '{tz}' (pinbad has no time zone \
                             database: '+05:00', 'SYSTEM' and 'UTC' are taken)"
                        ),
                    )
                })?;
                self.time_zone = tz;
                self.offset = offset;
            }
            "sql_mode" => {
                let Some(v) = value else {
                    self.sql_mode = default.sql_mode;
                    return Ok(());
                };
                self.sql_mode = sql_mode(&v)?;
            }
            "div_precision_increment" => {
                self.div_precision_increment = match value {
                    None => default.div_precision_increment,
                    Some(v) => as_integer(&lower, &v)?.clamp(0, 30) as u8,
                }
            }
            "group_concat_max_len" => {
                self.group_concat_max_len = match value {
                    None => default.group_concat_max_len,
                    Some(v) => as_integer(&lower, &v)?.clamp(4, u32::MAX.into()) as u64,
                }
            }
            "sql_select_limit" => {
                self.sql_select_limit = match value {
                    None => default.sql_select_limit,
                    Some(Value::Text(t)) if t.trim() == u64::MAX.to_string() => u64::MAX,
                    Some(v) => as_integer(&lower, &v)?.max(0) as u64,
                }
            }
            "default_week_format" => {
                self.default_week_format = match value {
                    None => 0,
                    Some(v) => as_integer(&lower, &v)?.clamp(0, 7) as u8,
                }
            }
            "lc_time_names" => {
                let v = match value {
                    None => default.lc_time_names,
                    Some(v) => as_text(&v).ok_or_else(|| wrong_value(&lower, "NULL"))?,
                };
                if !v.eq_ignore_ascii_case("en_US") {
                    return Err(if is_locale(&v) {
                        not_supported(format!(
                            "lc_time_names '{v}' is not supported by pinbad: month and day \
                             names are en_US's"
                        ))
                    } else {
                        (
                            ErrorKind::ER_UNKNOWN_LOCALE,
                            format!("Unknown locale: '{v}'"),
                        )
                    });
                }
                self.lc_time_names = "en_US".into();
            }
            "collation_connection" => {
                let v = match value {
                    None => default.collation_connection,
                    Some(v) => as_text(&v).ok_or_else(|| wrong_value(&lower, "NULL"))?,
                };
                self.set_collation(&v)?;
            }
            "character_set_client" | "character_set_connection" | "character_set_results" => {
                // What pinbad reads and writes is UTF-8 whatever is set; `NULL` (results as
                // stored) is that too.
                match value.as_ref().and_then(as_text) {
                    Some(cs) if !charset_is_utf8(&cs) => return Err(charset_refused(&cs)),
                    _ => {}
                }
                if lower == "character_set_results" {
                    self.results_unconverted = matches!(value, Some(Value::Null));
                }
            }
            _ => {
                let name = accepted(&lower).unwrap_or("names");
                match value {
                    None => {
                        self.accepted.remove(name);
                    }
                    Some(v) => {
                        let v = match &v {
                            Value::Text(t) if t.eq_ignore_ascii_case("ON") => Value::Integer(1),
                            Value::Text(t) if t.eq_ignore_ascii_case("OFF") => Value::Integer(0),
                            _ => v,
                        };
                        self.accepted.insert(name, v);
                    }
                }
            }
        }
        Ok(())
    }

    /// `SET NAMES charset [COLLATE collation]`: the client's, the connection's and the
    /// results' character set (`utf8`: MariaDB's utf8mb3, so results are sent as it).
    pub fn set_names(
        &mut self,
        charset: &str,
        collation: Option<&str>,
    ) -> Result<(), (ErrorKind, String)> {
        let mb3 = self.set_client_charset(charset)?;
        match collation {
            Some(c) => {
                self.set_collation(c)?;
                self.results_collation = collation_id(c);
            }
            None => {
                self.collation_connection = if mb3 {
                    "utf8mb3_general_ci"
                } else {
                    "utf8mb4_general_ci"
                }
                .into();
                self.results_collation = collation_id(&self.collation_connection);
            }
        }
        Ok(())
    }

    /// `SET CHARACTER SET charset`: the client's and the results' character set; the
    /// connection's is the database's again (utf8mb4_general_ci), as MySQL has it.
    pub fn set_character_set(&mut self, charset: &str) -> Result<(), (ErrorKind, String)> {
        let mb3 = self.set_client_charset(charset)?;
        self.collation_connection = "utf8mb4_general_ci".into();
        self.results_collation = if mb3 {
            UTF8MB3_GENERAL_CI
        } else {
            UTF8MB4_GENERAL_CI
        };
        Ok(())
    }

    /// The client's and the results' character set, `charset` (a UTF-8 one: refused
    /// otherwise); whether it is utf8mb3.
    fn set_client_charset(&mut self, charset: &str) -> Result<bool, (ErrorKind, String)> {
        if !charset_is_utf8(charset) && !charset.eq_ignore_ascii_case("DEFAULT") {
            return Err(charset_refused(charset));
        }
        let mb3 = ["utf8", "utf8mb3"].contains(&charset.to_ascii_lowercase().as_str());
        self.results_unconverted = false;
        self.character_set = if mb3 { "utf8mb3" } else { "utf8mb4" }.into();
        Ok(mb3)
    }

    /// The results are sent in utf8mb3 (`SET NAMES utf8`): text columns are declared 3 bytes
    /// a character.
    pub fn results_mb3(&self) -> bool {
        self.character_set == "utf8mb3" && !self.results_unconverted
    }

    fn set_collation(&mut self, name: &str) -> Result<(), (ErrorKind, String)> {
        if collation(name).is_none() {
            return Err(unknown_collation(name));
        }
        self.collation_connection = name.to_ascii_lowercase();
        Ok(())
    }

    /// User variable `name` (lower-cased), holding `v`: typed by its value (a number assigned
    /// from a DECIMAL a DECIMAL), or where it is NULL by the type it was given
    /// ([`Variables::null_types`]), else a binary string's, as a variable never set.
    fn user_type(&self, name: &str, v: &Value) -> super::typing::Ty {
        use super::typing::Ty;
        let declared = self.null_types.get(name).copied();
        match v {
            Value::Integer(_) | Value::Real(_) if matches!(declared, Some(Ty::Dec(_))) => {
                declared.unwrap_or(Ty::Double)
            }
            Value::Integer(_) => Ty::Int,
            Value::Real(_) => Ty::Double,
            Value::Text(_) => Ty::Text,
            Value::Null => self.null_types.get(name).copied().unwrap_or(Ty::Binary),
            Value::Blob(_) => Ty::Binary,
        }
    }

    /// `SET @name = value` of an expression of type `declared` (where it is known): a NULL
    /// keeps that type, or the variable's own where there is none.
    pub fn set_user_declared(
        &mut self,
        name: &str,
        value: Value,
        declared: Option<super::typing::Ty>,
    ) -> Result<(), (ErrorKind, String)> {
        let lower = name.to_lowercase();
        let ty = match (&value, declared) {
            (Value::Null, Some(ty)) => Some(ty),
            (Value::Integer(_) | Value::Real(_), Some(ty @ super::typing::Ty::Dec(_))) => Some(ty),
            (Value::Null, None) => self.user.get(&lower).map(|old| self.user_type(&lower, old)),
            _ => None,
        };
        self.insert_user(name, value)?;
        match ty {
            Some(ty) => self.null_types.insert(lower, ty),
            None => self.null_types.remove(&lower),
        };
        Ok(())
    }

    /// `@name := value`, of an expression whose type is not known here: a NULL leaves the
    /// variable's type as it was.
    pub fn set_user(&mut self, name: &str, value: Value) -> Result<(), (ErrorKind, String)> {
        self.set_user_declared(name, value, None)
    }

    /// MySQL keeps any number of user variables; pinbad at most [`MAX_USER_VARIABLES`].
    fn insert_user(&mut self, name: &str, value: Value) -> Result<(), (ErrorKind, String)> {
        let name = name.to_lowercase();
        if self.user.len() >= MAX_USER_VARIABLES && !self.user.contains_key(&name) {
            return Err((
                ErrorKind::ER_OUT_OF_RESOURCES,
                format!(
                    "Out of memory: a session holds at most {MAX_USER_VARIABLES} user variables \
                     in pinbad"
                ),
            ));
        }
        self.user.insert(name, value);
        Ok(())
    }
}

/// A character set name that is UTF-8 (what pinbad reads and writes): `utf8mb4`, `utf8`,
/// `utf8mb3`, and `DEFAULT`.
fn charset_is_utf8(cs: &str) -> bool {
    ["utf8mb4", "utf8", "utf8mb3", "default", "binary"].contains(&cs.to_ascii_lowercase().as_str())
}

fn charset_refused(cs: &str) -> (ErrorKind, String) {
    if [
        "latin1", "ascii", "cp1251", "cp1252", "koi8r", "gbk", "big5", "sjis", "ucs2", "utf16",
        "utf32", "latin2", "greek", "hebrew", "euckr", "gb2312", "cp1250",
    ]
    .contains(&cs.to_ascii_lowercase().as_str())
    {
        not_supported(format!(
            "character set '{cs}' is not supported by pinbad: it reads and writes utf8mb4"
        ))
    } else {
        (
            ErrorKind::ER_UNKNOWN_CHARACTER_SET,
            format!("Unknown character set: '{cs}'"),
        )
    }
}

/// Whether `v` has a locale's shape (`fr_FR`), which MySQL knows but pinbad does not follow.
fn is_locale(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 5
        && b[2] == b'_'
        && b[..2].iter().all(u8::is_ascii_lowercase)
        && b[3..].iter().all(u8::is_ascii_uppercase)
}

/// A `sql_mode` value as MySQL keeps it: its flags (a number: their bits are not taken),
/// upper-cased, the combined modes with the flags they stand for, each once, in MySQL's order
/// of the names given; an unknown flag is MySQL's error 1231, one pinbad does not follow 1235.
fn sql_mode(v: &Value) -> Result<String, (ErrorKind, String)> {
    let text = match v {
        Value::Text(t) => t.clone(),
        Value::Integer(0) => String::new(),
        Value::Null => return Err(wrong_value("sql_mode", "NULL")),
        other => return Err(wrong_value("sql_mode", &as_text(other).unwrap_or_default())),
    };
    let mut flags: Vec<&str> = Vec::new();
    for flag in text.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        let up = flag.to_ascii_uppercase();
        if let Some(refused) = MODES_REFUSED.iter().find(|m| **m == up) {
            return Err(not_supported(format!(
                "sql_mode {refused} is not supported by pinbad: it reads statements as MySQL's \
                 default sql_mode does"
            )));
        }
        let Some(known) = MODES_ACCEPTED.iter().find(|m| **m == up) else {
            return Err(wrong_value("sql_mode", flag));
        };
        let expanded: &[&str] = match *known {
            "ANSI" => &[
                "REAL_AS_FLOAT",
                "PIPES_AS_CONCAT",
                "ANSI_QUOTES",
                "IGNORE_SPACE",
                "ANSI",
            ],
            "TRADITIONAL" => &[
                "STRICT_TRANS_TABLES",
                "STRICT_ALL_TABLES",
                "NO_ZERO_IN_DATE",
                "NO_ZERO_DATE",
                "ERROR_FOR_DIVISION_BY_ZERO",
                "TRADITIONAL",
                "NO_AUTO_CREATE_USER",
                "NO_ENGINE_SUBSTITUTION",
            ],
            _ => std::slice::from_ref(known),
        };
        for f in expanded {
            if !flags.contains(f) {
                flags.push(f);
            }
        }
    }
    // MySQL shows the flags in its own order (their bits'): `MODES_ACCEPTED`'s.
    flags.sort_by_key(|f| MODES_ACCEPTED.iter().position(|m| m == f));
    Ok(flags.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each acting variable takes MySQL's values and refuses others with MySQL's error.
    #[test]
    fn variables_take_mysqls_values_or_its_errors() {
        let mut v = Variables::default();
        let set = |v: &mut Variables, name: &str, value: Value| {
            v.set(name, false, Assigned::Value(value))
        };
        set(&mut v, "time_zone", Value::Text("+05:00".into())).unwrap();
        assert_eq!(v.offset, 18_000);
        set(&mut v, "TIME_ZONE", Value::Text("-3:30".into())).unwrap();
        assert_eq!(v.offset, -12_600);
        let e = set(&mut v, "time_zone", Value::Text("Europe/Moscow".into())).unwrap_err();
        assert_eq!(e.0, ErrorKind::ER_UNKNOWN_TIME_ZONE);
        assert!(set(&mut v, "time_zone", Value::Text("+14:00".into())).is_err());
        v.set("time_zone", false, Assigned::Default).unwrap();
        assert_eq!((v.time_zone.as_str(), v.offset), ("SYSTEM", 0));
        let e = set(&mut v, "no_such_thing", Value::Integer(1)).unwrap_err();
        assert_eq!(
            e,
            (
                ErrorKind::ER_UNKNOWN_SYSTEM_VARIABLE,
                "Unknown system variable 'no_such_thing'".into()
            )
        );
        set(
            &mut v,
            "sql_mode",
            Value::Text("pipes_as_concat,TRADITIONAL".into()),
        )
        .unwrap();
        assert!(v.context().pipes_as_concat);
        assert!(
            v.sql_mode
                .starts_with("PIPES_AS_CONCAT,STRICT_TRANS_TABLES"),
            "{}",
            v.sql_mode
        );
        set(
            &mut v,
            "sql_mode",
            Value::Text("ansi,no_backslash_escapes".into()),
        )
        .unwrap();
        assert_eq!(
            v.sql_mode,
            "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI,NO_BACKSLASH_ESCAPES"
        );
        assert_eq!(v.reading(), (true, true));
        assert_eq!(
            set(&mut v, "sql_mode", Value::Text("ORACLE".into()))
                .unwrap_err()
                .0,
            ErrorKind::ER_NOT_SUPPORTED_YET
        );
        assert_eq!(
            set(&mut v, "sql_mode", Value::Text("NO_SUCH_MODE".into()))
                .unwrap_err()
                .0,
            ErrorKind::ER_WRONG_VALUE_FOR_VAR
        );
        set(&mut v, "sql_mode", Value::Text(String::new())).unwrap();
        assert_eq!(v.sql_mode, "");
        set(&mut v, "div_precision_increment", Value::Integer(99)).unwrap();
        assert_eq!(v.context().div_increment, 30);
        assert_eq!(
            set(&mut v, "div_precision_increment", Value::Text("x".into()))
                .unwrap_err()
                .0,
            ErrorKind::ER_WRONG_TYPE_FOR_VAR
        );
        set(&mut v, "sql_select_limit", Value::Integer(3)).unwrap();
        assert_eq!(v.context().select_limit, Some(3));
        v.set("sql_select_limit", false, Assigned::Default).unwrap();
        assert_eq!(v.context().select_limit, None);
        assert_eq!(
            set(&mut v, "lc_time_names", Value::Text("fr_FR".into()))
                .unwrap_err()
                .0,
            ErrorKind::ER_NOT_SUPPORTED_YET
        );
        assert_eq!(
            set(&mut v, "lc_time_names", Value::Text("xx".into()))
                .unwrap_err()
                .0,
            ErrorKind::ER_UNKNOWN_LOCALE
        );
        v.set_names("utf8mb4", Some("utf8mb4_bin")).unwrap();
        assert_eq!(v.context().literals, Collation::Bin);
        v.set_names("utf8", None).unwrap();
        assert_eq!(
            (v.collation_connection.as_str(), v.results_collation),
            ("utf8mb3_general_ci", 33)
        );
        assert!(v.results_mb3() && v.context().literals_mb3);
        v.set_character_set("utf8").unwrap();
        assert_eq!(
            (v.collation_connection.as_str(), v.results_collation),
            ("utf8mb4_general_ci", 33)
        );
        assert!(v.results_mb3() && !v.context().literals_mb3);
        v.set_names("utf8mb4", Some("utf8mb4_unicode_ci")).unwrap();
        assert!(!v.results_mb3());
        assert_eq!(v.context().literals, Collation::Unicode);
        assert_eq!(v.results_collation, 224);
        assert_eq!(
            v.set_names("utf8mb4", Some("utf8mb4_unicode_520_ci"))
                .unwrap_err()
                .0,
            ErrorKind::ER_NOT_SUPPORTED_YET
        );
        for unknown in ["nope_ci", "utf8mb4_0900_ai_ci"] {
            assert_eq!(
                v.set_names("utf8mb4", Some(unknown)).unwrap_err().0,
                ErrorKind::ER_UNKNOWN_COLLATION
            );
        }
        set(&mut v, "autocommit", Value::Text("OFF".into())).unwrap();
        assert!(v.shown().contains(&("autocommit", Value::Integer(0))));
        assert_eq!(
            v.set(
                "sql_mode",
                true,
                Assigned::Value(Value::Text(String::new()))
            )
            .unwrap_err()
            .0,
            ErrorKind::ER_SPECIFIC_ACCESS_DENIED_ERROR
        );
    }

    /// `@@x` is read in the scopes MariaDB gives it; any other is its error.
    #[test]
    fn system_variables_are_read_in_their_scopes() {
        assert_eq!(read_system("AUTOCOMMIT").unwrap().kind, Kind::Boolean);
        assert_eq!(
            read_system("session.sql_select_limit").unwrap().kind,
            Kind::Unsigned
        );
        assert_eq!(
            read_system("global.long_query_time").unwrap().kind,
            Kind::Double
        );
        assert_eq!(read_system("local.time_zone").unwrap().kind, Kind::Text);
        assert_eq!(
            read_system("sql_require_primary_key").unwrap_err(),
            (
                ErrorKind::ER_UNKNOWN_SYSTEM_VARIABLE,
                "Unknown system variable 'sql_require_primary_key'".into()
            )
        );
        assert_eq!(
            read_system("global.warning_count").unwrap_err(),
            (
                ErrorKind::ER_INCORRECT_GLOBAL_LOCAL_VAR,
                "Variable 'warning_count' is a SESSION variable".into()
            )
        );
        assert_eq!(
            read_system("session.version").unwrap_err().1,
            "Variable 'version' is a GLOBAL variable"
        );
        // Each variable a `SET` takes is one `SELECT @@x` reads.
        for name in ACCEPTED.iter().chain(ACCEPTED_BOOLEANS) {
            assert!(*name == "names" || system(name).is_some(), "{name}");
        }
    }

    /// A user variable is typed by what was assigned: a NULL of a typed expression has its
    /// type, a NULL of none keeps the variable's.
    #[test]
    fn user_variables_keep_the_type_assigned() {
        use crate::sql::typing::Ty;
        let mut v = Variables::default();
        v.set_user_declared("a", Value::Null, Some(Ty::Int))
            .unwrap();
        v.set_user("b", Value::Real(1.5)).unwrap();
        v.set_user_declared("b", Value::Null, None).unwrap();
        v.set_user("c", Value::Null).unwrap();
        v.set_user_declared("d", Value::Null, Some(Ty::Int))
            .unwrap();
        v.set_user("d", Value::Text("x".into())).unwrap();
        let types = v.context().user_types;
        assert_eq!(types["a"], Ty::Int);
        assert_eq!(types["b"], Ty::Double);
        assert_eq!(types["c"], Ty::Binary);
        assert_eq!(types["d"], Ty::Text);
    }

    #[test]
    fn user_variables_are_bounded() {
        let mut v = Variables::default();
        for i in 0..MAX_USER_VARIABLES {
            v.set_user(&format!("v{i}"), Value::Integer(i as i64))
                .unwrap();
        }
        v.set_user("V0", Value::Null).unwrap();
        assert_eq!(v.user.get("v0"), Some(&Value::Null));
        assert!(v.set_user("one_more", Value::Null).is_err());
    }
}
