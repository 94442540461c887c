//! The `information_schema` tables pinbad has, each column declared as MariaDB declares it (its
//! type, its length, whether it may be NULL): the engine creates its tables from these
//! ([`create_tables`]) and the typing declares their columns by them ([`table`]), so a GUI client
//! sizes its grid and reads `null_ok` as it does against MySQL. A column MySQL 8 has and MariaDB
//! does not (`STATISTICS.IS_VISIBLE`, `COLLATIONS.PAD_ATTRIBUTE`) is declared as MySQL 8 declares
//! it. What the tables hold is the engine's (`engine`): the catalog's tables and columns, the
//! character sets and collations pinbad evaluates, and nothing of what pinbad has none of
//! (routines, views, triggers, indexes, …).

/// A column's MySQL type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A `VARCHAR` of this many characters.
    Varchar(u32),
    /// A `LONGTEXT`, as long as MariaDB declares it (in bytes).
    LongText(u32),
    /// An `INT` of this length.
    Long(u32),
    /// An `INT UNSIGNED` of this length.
    ULong(u32),
    /// A `BIGINT` of this length.
    LongLong(u32),
    /// A `BIGINT UNSIGNED` of this length.
    ULongLong(u32),
    /// A `DATETIME` with this many digits of a second's fraction.
    DateTime(u8),
    /// A `DOUBLE` of this length and decimals, and whether it is flagged UNSIGNED.
    Double(u32, u8, bool),
}

impl Type {
    /// The type SQLite's table is declared with: names compare and sort as MariaDB's
    /// `information_schema` has them (utf8mb3_general_ci, pinbad's `collation::NAME`: by upper
    /// case, `memory_footprint` before `mem_peak_usage`); `engine` reads
    /// `DATETIME`, `LONGTEXT` and `INT32` as the MySQL types SQLite does not have.
    fn sqlite(self) -> &'static str {
        match self {
            Type::Varchar(_) => "TEXT COLLATE MYSQL",
            Type::LongText(_) => "LONGTEXT",
            Type::Long(_) | Type::ULong(_) => "INT32",
            Type::LongLong(_) | Type::ULongLong(_) => "INTEGER",
            Type::DateTime(_) => "DATETIME",
            Type::Double(..) => "REAL",
        }
    }
}

/// A column of an `information_schema` table.
#[derive(Debug, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub ty: Type,
    pub nullable: bool,
}

pub const NULL: bool = true;
pub const NOT_NULL: bool = false;

pub const fn col(name: &'static str, ty: Type, nullable: bool) -> Column {
    Column { name, ty, nullable }
}

use Type::*;

/// The columns of the tables of the server's variables and status (`GLOBAL_STATUS`, …).
const SERVER_VARIABLES: &[Column] = &[
    col("VARIABLE_NAME", Varchar(64), NOT_NULL),
    col("VARIABLE_VALUE", Varchar(4096), NOT_NULL),
];

/// The tables, their columns in order, as MariaDB 10.11 declares them.
const TABLES: &[(&str, &[Column])] = &[
    (
        "ROUTINES",
        &[
            col("SPECIFIC_NAME", Varchar(64), NOT_NULL),
            col("ROUTINE_CATALOG", Varchar(512), NOT_NULL),
            col("ROUTINE_SCHEMA", Varchar(64), NOT_NULL),
            col("ROUTINE_NAME", Varchar(64), NOT_NULL),
            col("ROUTINE_TYPE", Varchar(13), NOT_NULL),
            col("DATA_TYPE", Varchar(64), NOT_NULL),
            col("CHARACTER_MAXIMUM_LENGTH", Long(21), NULL),
            col("CHARACTER_OCTET_LENGTH", Long(21), NULL),
            col("NUMERIC_PRECISION", Long(21), NULL),
            col("NUMERIC_SCALE", Long(21), NULL),
            col("DATETIME_PRECISION", ULongLong(21), NULL),
            col("CHARACTER_SET_NAME", Varchar(64), NULL),
            col("COLLATION_NAME", Varchar(64), NULL),
            col("DTD_IDENTIFIER", LongText(786420), NULL),
            col("ROUTINE_BODY", Varchar(8), NOT_NULL),
            col("ROUTINE_DEFINITION", LongText(786420), NULL),
            col("EXTERNAL_NAME", Varchar(64), NULL),
            col("EXTERNAL_LANGUAGE", Varchar(64), NULL),
            col("PARAMETER_STYLE", Varchar(8), NOT_NULL),
            col("IS_DETERMINISTIC", Varchar(3), NOT_NULL),
            col("SQL_DATA_ACCESS", Varchar(64), NOT_NULL),
            col("SQL_PATH", Varchar(64), NULL),
            col("SECURITY_TYPE", Varchar(7), NOT_NULL),
            col("CREATED", DateTime(0), NOT_NULL),
            col("LAST_ALTERED", DateTime(0), NOT_NULL),
            col("SQL_MODE", Varchar(8192), NOT_NULL),
            col("ROUTINE_COMMENT", LongText(786420), NOT_NULL),
            col("DEFINER", Varchar(384), NOT_NULL),
            col("CHARACTER_SET_CLIENT", Varchar(32), NOT_NULL),
            col("COLLATION_CONNECTION", Varchar(64), NOT_NULL),
            col("DATABASE_COLLATION", Varchar(64), NOT_NULL),
        ],
    ),
    (
        "PARAMETERS",
        &[
            col("SPECIFIC_CATALOG", Varchar(512), NOT_NULL),
            col("SPECIFIC_SCHEMA", Varchar(64), NOT_NULL),
            col("SPECIFIC_NAME", Varchar(64), NOT_NULL),
            col("ORDINAL_POSITION", Long(21), NOT_NULL),
            col("PARAMETER_MODE", Varchar(5), NULL),
            col("PARAMETER_NAME", Varchar(64), NULL),
            col("DATA_TYPE", Varchar(64), NOT_NULL),
            col("CHARACTER_MAXIMUM_LENGTH", Long(21), NULL),
            col("CHARACTER_OCTET_LENGTH", Long(21), NULL),
            col("NUMERIC_PRECISION", Long(21), NULL),
            col("NUMERIC_SCALE", Long(21), NULL),
            col("DATETIME_PRECISION", ULongLong(21), NULL),
            col("CHARACTER_SET_NAME", Varchar(64), NULL),
            col("COLLATION_NAME", Varchar(64), NULL),
            col("DTD_IDENTIFIER", LongText(786420), NOT_NULL),
            col("ROUTINE_TYPE", Varchar(9), NOT_NULL),
        ],
    ),
    (
        "VIEWS",
        &[
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("VIEW_DEFINITION", LongText(786420), NOT_NULL),
            col("CHECK_OPTION", Varchar(8), NOT_NULL),
            col("IS_UPDATABLE", Varchar(3), NOT_NULL),
            col("DEFINER", Varchar(384), NOT_NULL),
            col("SECURITY_TYPE", Varchar(7), NOT_NULL),
            col("CHARACTER_SET_CLIENT", Varchar(32), NOT_NULL),
            col("COLLATION_CONNECTION", Varchar(64), NOT_NULL),
            col("ALGORITHM", Varchar(10), NOT_NULL),
        ],
    ),
    (
        "TRIGGERS",
        &[
            col("TRIGGER_CATALOG", Varchar(512), NOT_NULL),
            col("TRIGGER_SCHEMA", Varchar(64), NOT_NULL),
            col("TRIGGER_NAME", Varchar(64), NOT_NULL),
            col("EVENT_MANIPULATION", Varchar(6), NOT_NULL),
            col("EVENT_OBJECT_CATALOG", Varchar(512), NOT_NULL),
            col("EVENT_OBJECT_SCHEMA", Varchar(64), NOT_NULL),
            col("EVENT_OBJECT_TABLE", Varchar(64), NOT_NULL),
            col("ACTION_ORDER", LongLong(4), NOT_NULL),
            col("ACTION_CONDITION", LongText(786420), NULL),
            col("ACTION_STATEMENT", LongText(786420), NULL),
            col("ACTION_ORIENTATION", Varchar(9), NOT_NULL),
            col("ACTION_TIMING", Varchar(6), NOT_NULL),
            col("ACTION_REFERENCE_OLD_TABLE", Varchar(64), NULL),
            col("ACTION_REFERENCE_NEW_TABLE", Varchar(64), NULL),
            col("ACTION_REFERENCE_OLD_ROW", Varchar(3), NOT_NULL),
            col("ACTION_REFERENCE_NEW_ROW", Varchar(3), NOT_NULL),
            col("CREATED", DateTime(2), NULL),
            col("SQL_MODE", Varchar(8192), NOT_NULL),
            col("DEFINER", Varchar(384), NULL),
            col("CHARACTER_SET_CLIENT", Varchar(32), NOT_NULL),
            col("COLLATION_CONNECTION", Varchar(64), NOT_NULL),
            col("DATABASE_COLLATION", Varchar(64), NOT_NULL),
        ],
    ),
    (
        "STATISTICS",
        &[
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("NON_UNIQUE", LongLong(1), NOT_NULL),
            col("INDEX_SCHEMA", Varchar(64), NOT_NULL),
            col("INDEX_NAME", Varchar(64), NOT_NULL),
            col("SEQ_IN_INDEX", ULong(2), NOT_NULL),
            col("COLUMN_NAME", Varchar(64), NOT_NULL),
            col("COLLATION", Varchar(1), NULL),
            col("CARDINALITY", LongLong(21), NULL),
            col("SUB_PART", LongLong(3), NULL),
            col("PACKED", Varchar(10), NULL),
            col("NULLABLE", Varchar(3), NOT_NULL),
            col("INDEX_TYPE", Varchar(16), NOT_NULL),
            col("COMMENT", Varchar(16), NULL),
            col("INDEX_COMMENT", Varchar(1024), NOT_NULL),
            col("IS_VISIBLE", Varchar(3), NOT_NULL),
            col("EXPRESSION", LongText(786420), NULL),
        ],
    ),
    (
        "KEY_COLUMN_USAGE",
        &[
            col("CONSTRAINT_CATALOG", Varchar(512), NOT_NULL),
            col("CONSTRAINT_SCHEMA", Varchar(64), NOT_NULL),
            col("CONSTRAINT_NAME", Varchar(64), NOT_NULL),
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("COLUMN_NAME", Varchar(64), NOT_NULL),
            col("ORDINAL_POSITION", LongLong(10), NOT_NULL),
            col("POSITION_IN_UNIQUE_CONSTRAINT", LongLong(10), NULL),
            col("REFERENCED_TABLE_SCHEMA", Varchar(64), NULL),
            col("REFERENCED_TABLE_NAME", Varchar(64), NULL),
            col("REFERENCED_COLUMN_NAME", Varchar(64), NULL),
        ],
    ),
    (
        "REFERENTIAL_CONSTRAINTS",
        &[
            col("CONSTRAINT_CATALOG", Varchar(512), NOT_NULL),
            col("CONSTRAINT_SCHEMA", Varchar(64), NOT_NULL),
            col("CONSTRAINT_NAME", Varchar(64), NOT_NULL),
            col("UNIQUE_CONSTRAINT_CATALOG", Varchar(512), NOT_NULL),
            col("UNIQUE_CONSTRAINT_SCHEMA", Varchar(64), NOT_NULL),
            col("UNIQUE_CONSTRAINT_NAME", Varchar(64), NULL),
            col("MATCH_OPTION", Varchar(64), NOT_NULL),
            col("UPDATE_RULE", Varchar(64), NOT_NULL),
            col("DELETE_RULE", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("REFERENCED_TABLE_NAME", Varchar(64), NULL),
        ],
    ),
    (
        "TABLE_CONSTRAINTS",
        &[
            col("CONSTRAINT_CATALOG", Varchar(512), NOT_NULL),
            col("CONSTRAINT_SCHEMA", Varchar(64), NOT_NULL),
            col("CONSTRAINT_NAME", Varchar(64), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("CONSTRAINT_TYPE", Varchar(64), NOT_NULL),
            col("ENFORCED", Varchar(3), NOT_NULL),
        ],
    ),
    (
        "CHECK_CONSTRAINTS",
        &[
            col("CONSTRAINT_CATALOG", Varchar(512), NOT_NULL),
            col("CONSTRAINT_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("CONSTRAINT_NAME", Varchar(64), NOT_NULL),
            col("LEVEL", Varchar(6), NOT_NULL),
            col("CHECK_CLAUSE", LongText(786384), NOT_NULL),
        ],
    ),
    (
        "EVENTS",
        &[
            col("EVENT_CATALOG", Varchar(64), NOT_NULL),
            col("EVENT_SCHEMA", Varchar(64), NOT_NULL),
            col("EVENT_NAME", Varchar(64), NOT_NULL),
            col("DEFINER", Varchar(384), NOT_NULL),
            col("TIME_ZONE", Varchar(64), NOT_NULL),
            col("EVENT_BODY", Varchar(8), NOT_NULL),
            col("EVENT_DEFINITION", LongText(786420), NOT_NULL),
            col("EVENT_TYPE", Varchar(9), NOT_NULL),
            col("EXECUTE_AT", DateTime(0), NULL),
            col("INTERVAL_VALUE", Varchar(256), NULL),
            col("INTERVAL_FIELD", Varchar(18), NULL),
            col("SQL_MODE", Varchar(8192), NOT_NULL),
            col("STARTS", DateTime(0), NULL),
            col("ENDS", DateTime(0), NULL),
            col("STATUS", Varchar(18), NOT_NULL),
            col("ON_COMPLETION", Varchar(12), NOT_NULL),
            col("CREATED", DateTime(0), NOT_NULL),
            col("LAST_ALTERED", DateTime(0), NOT_NULL),
            col("LAST_EXECUTED", DateTime(0), NULL),
            col("EVENT_COMMENT", Varchar(64), NOT_NULL),
            col("ORIGINATOR", LongLong(10), NOT_NULL),
            col("CHARACTER_SET_CLIENT", Varchar(32), NOT_NULL),
            col("COLLATION_CONNECTION", Varchar(64), NOT_NULL),
            col("DATABASE_COLLATION", Varchar(64), NOT_NULL),
        ],
    ),
    ("GLOBAL_STATUS", SERVER_VARIABLES),
    ("SESSION_STATUS", SERVER_VARIABLES),
    ("GLOBAL_VARIABLES", SERVER_VARIABLES),
    ("SESSION_VARIABLES", SERVER_VARIABLES),
    (
        "PARTITIONS",
        &[
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("PARTITION_NAME", Varchar(64), NULL),
            col("SUBPARTITION_NAME", Varchar(64), NULL),
            col("PARTITION_ORDINAL_POSITION", ULongLong(21), NULL),
            col("SUBPARTITION_ORDINAL_POSITION", ULongLong(21), NULL),
            col("PARTITION_METHOD", Varchar(18), NULL),
            col("SUBPARTITION_METHOD", Varchar(12), NULL),
            col("PARTITION_EXPRESSION", LongText(786420), NULL),
            col("SUBPARTITION_EXPRESSION", LongText(786420), NULL),
            col("PARTITION_DESCRIPTION", LongText(786420), NULL),
            col("TABLE_ROWS", ULongLong(21), NOT_NULL),
            col("AVG_ROW_LENGTH", ULongLong(21), NOT_NULL),
            col("DATA_LENGTH", ULongLong(21), NOT_NULL),
            col("MAX_DATA_LENGTH", ULongLong(21), NULL),
            col("INDEX_LENGTH", ULongLong(21), NOT_NULL),
            col("DATA_FREE", ULongLong(21), NOT_NULL),
            col("CREATE_TIME", DateTime(0), NULL),
            col("UPDATE_TIME", DateTime(0), NULL),
            col("CHECK_TIME", DateTime(0), NULL),
            col("CHECKSUM", ULongLong(21), NULL),
            col("PARTITION_COMMENT", Varchar(80), NOT_NULL),
            col("NODEGROUP", Varchar(12), NOT_NULL),
            col("TABLESPACE_NAME", Varchar(64), NULL),
        ],
    ),
    (
        "USER_PRIVILEGES",
        &[
            col("GRANTEE", Varchar(385), NOT_NULL),
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("PRIVILEGE_TYPE", Varchar(64), NOT_NULL),
            col("IS_GRANTABLE", Varchar(3), NOT_NULL),
        ],
    ),
    (
        "SCHEMA_PRIVILEGES",
        &[
            col("GRANTEE", Varchar(385), NOT_NULL),
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("PRIVILEGE_TYPE", Varchar(64), NOT_NULL),
            col("IS_GRANTABLE", Varchar(3), NOT_NULL),
        ],
    ),
    (
        "TABLE_PRIVILEGES",
        &[
            col("GRANTEE", Varchar(385), NOT_NULL),
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("PRIVILEGE_TYPE", Varchar(64), NOT_NULL),
            col("IS_GRANTABLE", Varchar(3), NOT_NULL),
        ],
    ),
    (
        "COLUMN_PRIVILEGES",
        &[
            col("GRANTEE", Varchar(385), NOT_NULL),
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("COLUMN_NAME", Varchar(64), NOT_NULL),
            col("PRIVILEGE_TYPE", Varchar(64), NOT_NULL),
            col("IS_GRANTABLE", Varchar(3), NOT_NULL),
        ],
    ),
    (
        "PLUGINS",
        &[
            col("PLUGIN_NAME", Varchar(64), NOT_NULL),
            col("PLUGIN_VERSION", Varchar(20), NOT_NULL),
            col("PLUGIN_STATUS", Varchar(16), NOT_NULL),
            col("PLUGIN_TYPE", Varchar(80), NOT_NULL),
            col("PLUGIN_TYPE_VERSION", Varchar(20), NOT_NULL),
            col("PLUGIN_LIBRARY", Varchar(64), NULL),
            col("PLUGIN_LIBRARY_VERSION", Varchar(20), NULL),
            col("PLUGIN_AUTHOR", Varchar(64), NULL),
            col("PLUGIN_DESCRIPTION", LongText(786420), NULL),
            col("PLUGIN_LICENSE", Varchar(80), NOT_NULL),
            col("LOAD_OPTION", Varchar(64), NOT_NULL),
        ],
    ),
    (
        "FILES",
        &[
            col("FILE_ID", LongLong(4), NOT_NULL),
            col("FILE_NAME", Varchar(512), NULL),
            col("FILE_TYPE", Varchar(20), NOT_NULL),
            col("TABLESPACE_NAME", Varchar(64), NULL),
            col("TABLE_CATALOG", Varchar(64), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NULL),
            col("TABLE_NAME", Varchar(64), NULL),
            col("ENGINE", Varchar(64), NOT_NULL),
            col("STATUS", Varchar(20), NOT_NULL),
        ],
    ),
    (
        "CHARACTER_SETS",
        &[
            col("CHARACTER_SET_NAME", Varchar(32), NOT_NULL),
            col("DEFAULT_COLLATE_NAME", Varchar(64), NOT_NULL),
            col("DESCRIPTION", Varchar(60), NOT_NULL),
            col("MAXLEN", LongLong(3), NOT_NULL),
        ],
    ),
    (
        "COLLATIONS",
        &[
            col("COLLATION_NAME", Varchar(64), NOT_NULL),
            col("CHARACTER_SET_NAME", Varchar(32), NULL),
            col("ID", LongLong(11), NULL),
            col("IS_DEFAULT", Varchar(3), NULL),
            col("IS_COMPILED", Varchar(3), NOT_NULL),
            col("SORTLEN", LongLong(3), NOT_NULL),
            col("PAD_ATTRIBUTE", Varchar(9), NOT_NULL),
        ],
    ),
    (
        "SCHEMATA",
        &[
            col("CATALOG_NAME", Varchar(512), NOT_NULL),
            col("SCHEMA_NAME", Varchar(64), NOT_NULL),
            col("DEFAULT_CHARACTER_SET_NAME", Varchar(32), NOT_NULL),
            col("DEFAULT_COLLATION_NAME", Varchar(64), NOT_NULL),
            col("SQL_PATH", Varchar(512), NULL),
            col("SCHEMA_COMMENT", Varchar(1024), NOT_NULL),
        ],
    ),
    (
        "TABLES",
        &[
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("TABLE_TYPE", Varchar(64), NOT_NULL),
            col("ENGINE", Varchar(64), NULL),
            col("VERSION", ULongLong(21), NULL),
            col("ROW_FORMAT", Varchar(10), NULL),
            col("TABLE_ROWS", ULongLong(21), NULL),
            col("AVG_ROW_LENGTH", ULongLong(21), NULL),
            col("DATA_LENGTH", ULongLong(21), NULL),
            col("MAX_DATA_LENGTH", ULongLong(21), NULL),
            col("INDEX_LENGTH", ULongLong(21), NULL),
            col("DATA_FREE", ULongLong(21), NULL),
            col("AUTO_INCREMENT", ULongLong(21), NULL),
            col("CREATE_TIME", DateTime(0), NULL),
            col("UPDATE_TIME", DateTime(0), NULL),
            col("CHECK_TIME", DateTime(0), NULL),
            col("TABLE_COLLATION", Varchar(64), NULL),
            col("CHECKSUM", ULongLong(21), NULL),
            col("CREATE_OPTIONS", Varchar(2048), NULL),
            col("TABLE_COMMENT", Varchar(2048), NOT_NULL),
            col("MAX_INDEX_LENGTH", ULongLong(21), NULL),
            col("TEMPORARY", Varchar(1), NULL),
        ],
    ),
    (
        "COLUMNS",
        &[
            col("TABLE_CATALOG", Varchar(512), NOT_NULL),
            col("TABLE_SCHEMA", Varchar(64), NOT_NULL),
            col("TABLE_NAME", Varchar(64), NOT_NULL),
            col("COLUMN_NAME", Varchar(64), NOT_NULL),
            col("ORDINAL_POSITION", ULongLong(21), NOT_NULL),
            col("COLUMN_DEFAULT", LongText(786384), NULL),
            col("IS_NULLABLE", Varchar(3), NOT_NULL),
            col("DATA_TYPE", Varchar(64), NOT_NULL),
            col("CHARACTER_MAXIMUM_LENGTH", ULongLong(21), NULL),
            col("CHARACTER_OCTET_LENGTH", ULongLong(21), NULL),
            col("NUMERIC_PRECISION", ULongLong(21), NULL),
            col("NUMERIC_SCALE", ULongLong(21), NULL),
            col("DATETIME_PRECISION", ULongLong(21), NULL),
            col("CHARACTER_SET_NAME", Varchar(32), NULL),
            col("COLLATION_NAME", Varchar(64), NULL),
            col("COLUMN_TYPE", LongText(786420), NOT_NULL),
            col("COLUMN_KEY", Varchar(3), NOT_NULL),
            col("EXTRA", Varchar(80), NOT_NULL),
            col("PRIVILEGES", Varchar(80), NOT_NULL),
            col("COLUMN_COMMENT", Varchar(1024), NOT_NULL),
            col("IS_GENERATED", Varchar(6), NOT_NULL),
            col("GENERATION_EXPRESSION", LongText(786384), NULL),
        ],
    ),
    (
        "ENGINES",
        &[
            col("ENGINE", Varchar(64), NOT_NULL),
            col("SUPPORT", Varchar(8), NOT_NULL),
            col("COMMENT", Varchar(160), NOT_NULL),
            col("TRANSACTIONS", Varchar(3), NULL),
            col("XA", Varchar(3), NULL),
            col("SAVEPOINTS", Varchar(3), NULL),
        ],
    ),
    (
        "COLLATION_CHARACTER_SET_APPLICABILITY",
        &[
            col("COLLATION_NAME", Varchar(64), NOT_NULL),
            col("CHARACTER_SET_NAME", Varchar(32), NOT_NULL),
        ],
    ),
];

/// `SHOW INDEX`'s columns, as MariaDB declares them (pinbad's tables have no index: no rows).
pub const SHOW_INDEX: &[Column] = &[
    col("Table", Varchar(64), NOT_NULL),
    col("Non_unique", LongLong(1), NOT_NULL),
    col("Key_name", Varchar(64), NOT_NULL),
    col("Seq_in_index", ULong(2), NOT_NULL),
    col("Column_name", Varchar(64), NOT_NULL),
    col("Collation", Varchar(1), NULL),
    col("Cardinality", LongLong(21), NULL),
    col("Sub_part", LongLong(3), NULL),
    col("Packed", Varchar(10), NULL),
    col("Null", Varchar(3), NOT_NULL),
    col("Index_type", Varchar(16), NOT_NULL),
    col("Comment", Varchar(16), NULL),
    col("Index_comment", Varchar(1024), NOT_NULL),
    col("Ignored", Varchar(3), NOT_NULL),
];

/// `SHOW TRIGGERS`'s columns, as MariaDB declares them.
pub const SHOW_TRIGGERS: &[Column] = &[
    col("Trigger", Varchar(64), NOT_NULL),
    col("Event", Varchar(6), NOT_NULL),
    col("Table", Varchar(64), NOT_NULL),
    col("Statement", LongText(786420), NULL),
    col("Timing", Varchar(6), NOT_NULL),
    col("Created", DateTime(2), NULL),
    col("sql_mode", Varchar(8192), NOT_NULL),
    col("Definer", Varchar(384), NULL),
    col("character_set_client", Varchar(32), NOT_NULL),
    col("collation_connection", Varchar(64), NOT_NULL),
    col("Database Collation", Varchar(64), NOT_NULL),
];

/// `SHOW PROCEDURE STATUS` and `SHOW FUNCTION STATUS`'s columns, as MariaDB declares them.
pub const SHOW_ROUTINES: &[Column] = &[
    col("Db", Varchar(64), NOT_NULL),
    col("Name", Varchar(64), NOT_NULL),
    col("Type", Varchar(13), NOT_NULL),
    col("Definer", Varchar(384), NOT_NULL),
    col("Modified", DateTime(0), NOT_NULL),
    col("Created", DateTime(0), NOT_NULL),
    col("Security_type", Varchar(7), NOT_NULL),
    col("Comment", LongText(786420), NOT_NULL),
    col("character_set_client", Varchar(32), NOT_NULL),
    col("collation_connection", Varchar(64), NOT_NULL),
    col("Database Collation", Varchar(64), NOT_NULL),
];

/// `SHOW EVENTS`'s columns, as MariaDB declares them.
pub const SHOW_EVENTS: &[Column] = &[
    col("Db", Varchar(64), NOT_NULL),
    col("Name", Varchar(64), NOT_NULL),
    col("Definer", Varchar(384), NOT_NULL),
    col("Time zone", Varchar(64), NOT_NULL),
    col("Type", Varchar(9), NOT_NULL),
    col("Execute at", DateTime(0), NULL),
    col("Interval value", Varchar(256), NULL),
    col("Interval field", Varchar(18), NULL),
    col("Starts", DateTime(0), NULL),
    col("Ends", DateTime(0), NULL),
    col("Status", Varchar(18), NOT_NULL),
    col("Originator", LongLong(10), NOT_NULL),
    col("character_set_client", Varchar(32), NOT_NULL),
    col("collation_connection", Varchar(64), NOT_NULL),
    col("Database Collation", Varchar(64), NOT_NULL),
];

/// `SHOW PLUGINS`'s columns, as MariaDB declares them.
pub const SHOW_PLUGINS: &[Column] = &[
    col("Name", Varchar(64), NOT_NULL),
    col("Status", Varchar(16), NOT_NULL),
    col("Type", Varchar(80), NOT_NULL),
    col("Library", Varchar(64), NULL),
    col("License", Varchar(80), NOT_NULL),
];

/// `SHOW MASTER STATUS`'s columns, as MariaDB declares them (computed strings, never NULL).
pub const SHOW_MASTER_STATUS: &[Column] = &[
    col("File", Varchar(512), NOT_NULL),
    col("Position", ULongLong(20), NOT_NULL),
    col("Binlog_Do_DB", Varchar(255), NOT_NULL),
    col("Binlog_Ignore_DB", Varchar(255), NOT_NULL),
];

/// `SHOW SLAVE STATUS`'s (`SHOW REPLICA STATUS`'s) columns, as MariaDB declares them.
pub const SHOW_SLAVE_STATUS: &[Column] = &[
    col("Slave_IO_State", Varchar(30), NOT_NULL),
    col("Master_Host", Varchar(766), NOT_NULL),
    col("Master_User", Varchar(385), NOT_NULL),
    col("Master_Port", ULong(7), NOT_NULL),
    col("Connect_Retry", ULong(10), NOT_NULL),
    col("Master_Log_File", Varchar(512), NOT_NULL),
    col("Read_Master_Log_Pos", ULongLong(10), NOT_NULL),
    col("Relay_Log_File", Varchar(512), NOT_NULL),
    col("Relay_Log_Pos", ULongLong(10), NOT_NULL),
    col("Relay_Master_Log_File", Varchar(512), NOT_NULL),
    col("Slave_IO_Running", Varchar(3), NOT_NULL),
    col("Slave_SQL_Running", Varchar(3), NOT_NULL),
    col("Replicate_Do_DB", Varchar(20), NOT_NULL),
    col("Replicate_Ignore_DB", Varchar(20), NOT_NULL),
    col("Replicate_Do_Table", Varchar(20), NOT_NULL),
    col("Replicate_Ignore_Table", Varchar(23), NOT_NULL),
    col("Replicate_Wild_Do_Table", Varchar(24), NOT_NULL),
    col("Replicate_Wild_Ignore_Table", Varchar(28), NOT_NULL),
    col("Last_Errno", ULong(4), NOT_NULL),
    col("Last_Error", Varchar(20), NOT_NULL),
    col("Skip_Counter", ULong(10), NOT_NULL),
    col("Exec_Master_Log_Pos", ULongLong(10), NOT_NULL),
    col("Relay_Log_Space", ULongLong(10), NOT_NULL),
    col("Until_Condition", Varchar(6), NOT_NULL),
    col("Until_Log_File", Varchar(512), NOT_NULL),
    col("Until_Log_Pos", ULongLong(10), NOT_NULL),
    col("Master_SSL_Allowed", Varchar(7), NOT_NULL),
    col("Master_SSL_CA_File", Varchar(512), NOT_NULL),
    col("Master_SSL_CA_Path", Varchar(512), NOT_NULL),
    col("Master_SSL_Cert", Varchar(512), NOT_NULL),
    col("Master_SSL_Cipher", Varchar(512), NOT_NULL),
    col("Master_SSL_Key", Varchar(512), NOT_NULL),
    col("Seconds_Behind_Master", ULongLong(10), NOT_NULL),
    col("Master_SSL_Verify_Server_Cert", Varchar(3), NOT_NULL),
    col("Last_IO_Errno", ULong(4), NOT_NULL),
    col("Last_IO_Error", Varchar(20), NOT_NULL),
    col("Last_SQL_Errno", ULong(4), NOT_NULL),
    col("Last_SQL_Error", Varchar(20), NOT_NULL),
    col("Replicate_Ignore_Server_Ids", Varchar(512), NOT_NULL),
    col("Master_Server_Id", ULong(8), NOT_NULL),
    col("Master_SSL_Crl", Varchar(512), NOT_NULL),
    col("Master_SSL_Crlpath", Varchar(512), NOT_NULL),
    col("Using_Gtid", Varchar(11), NOT_NULL),
    col("Gtid_IO_Pos", Varchar(30), NOT_NULL),
    col("Replicate_Do_Domain_Ids", Varchar(512), NOT_NULL),
    col("Replicate_Ignore_Domain_Ids", Varchar(512), NOT_NULL),
    col("Parallel_Mode", Varchar(12), NOT_NULL),
    col("SQL_Delay", ULong(10), NOT_NULL),
    col("SQL_Remaining_Delay", ULong(8), NOT_NULL),
    col("Slave_SQL_Running_State", Varchar(20), NOT_NULL),
    col("Slave_DDL_Groups", ULongLong(20), NOT_NULL),
    col("Slave_Non_Transactional_Groups", ULongLong(20), NOT_NULL),
    col("Slave_Transactional_Groups", ULongLong(20), NOT_NULL),
    col("Replicate_Rewrite_DB", Varchar(23), NOT_NULL),
];

/// The columns `SHOW ALL SLAVES STATUS` has before `SHOW SLAVE STATUS`'s.
pub const SHOW_ALL_SLAVES_STATUS_FIRST: &[Column] = &[
    col("Connection_name", Varchar(192), NOT_NULL),
    col("Slave_SQL_State", Varchar(30), NOT_NULL),
];

/// The columns `SHOW ALL SLAVES STATUS` has after `SHOW SLAVE STATUS`'s.
pub const SHOW_ALL_SLAVES_STATUS_LAST: &[Column] = &[
    col("Retried_transactions", ULong(10), NOT_NULL),
    col("Max_relay_log_size", ULongLong(10), NOT_NULL),
    col("Executed_log_entries", ULong(10), NOT_NULL),
    col("Slave_received_heartbeats", ULong(10), NOT_NULL),
    col("Slave_heartbeat_period", Double(10, 3, false), NOT_NULL),
    col("Gtid_Slave_Pos", Varchar(0), NOT_NULL),
];

/// `SHOW OPEN TABLES`' columns, as MariaDB declares them.
pub const SHOW_OPEN_TABLES: &[Column] = &[
    col("Database", Varchar(64), NOT_NULL),
    col("Table", Varchar(64), NOT_NULL),
    col("In_use", LongLong(1), NOT_NULL),
    col("Name_locked", LongLong(4), NOT_NULL),
];

/// `SHOW PROFILES`'s columns, as MariaDB declares them.
pub const SHOW_PROFILES: &[Column] = &[
    col("Query_ID", ULong(10), NOT_NULL),
    col("Duration", Double(8, 0, true), NOT_NULL),
    col("Query", Varchar(40), NOT_NULL),
];

/// The columns of the `information_schema` table `name` (as MySQL names them, in any case).
pub fn table(name: &str) -> Option<&'static [Column]> {
    TABLES
        .iter()
        .find(|(t, _)| t.eq_ignore_ascii_case(name))
        .map(|(_, columns)| *columns)
}

/// The statements that create the tables, empty, in the attached schema `information_schema`.
pub fn create_tables() -> String {
    let mut sql = String::new();
    for (table, columns) in TABLES {
        let columns: Vec<String> = columns
            .iter()
            .map(|c| format!("{} {}", c.name, c.ty.sqlite()))
            .collect();
        sql.push_str(&format!(
            "CREATE TABLE information_schema.{table} ({});\n",
            columns.join(", ")
        ));
    }
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_names_each_column_once() {
        for (table, columns) in TABLES {
            let mut names: Vec<&str> = columns.iter().map(|c| c.name).collect();
            names.sort_unstable();
            let before = names.len();
            names.dedup();
            assert_eq!(names.len(), before, "{table} names a column twice");
        }
        assert!(table("tables").is_some_and(|c| c[2].name == "TABLE_NAME"));
        assert!(table("no_such_table").is_none());
    }
}
