//! How MySQL declares a result column to a client: its column definition's type code, display
//! length, decimals and flags, computed from each expression's MySQL type ([`Ty`]) and its
//! operands' declarations, by MariaDB's rules.
//!
//! Clients read these, not only the values: JDBC maps a LONG column to `Integer` and a LONGLONG
//! one to `Long`, PyMySQL a NULL-typed column to `None`, a VAR_STRING of charset 63 to `bytes`;
//! GUI clients size their grids by the length; `null_ok` comes from the NOT_NULL flag. The rules
//! (MariaDB's `Item::max_length`, `decimal_precision`, `type_handler_long_or_longlong`):
//!
//! - An integer is a LONG where its length is at most 9 characters, else a LONGLONG; a
//!   literal's length is its digits, `+`/`-` one more than the longer operand's precision plus
//!   a sign, `*` the sum of the precisions plus a sign, `DIV` the dividend's integer digits. A
//!   table's `int(11)` is a LONG of 11, its `bigint(20)` a LONGLONG of 20, whatever the
//!   length; rounding an integer keeps its operand's declaration; a few functions are always
//!   LONG (`LENGTH`, `LOCATE`, `YEAR`, … of a fixed length) or always LONGLONG (`COUNT`, bit
//!   operations, `UNIX_TIMESTAMP`).
//! - A DECIMAL's length is its precision, plus its point where it has decimals, plus a sign;
//!   precision and scale follow the arithmetic (`/` adds `div_precision_increment` to both).
//!   `SUM` adds 22 digits, `AVG` the increment.
//! - A DOUBLE computed is 23 characters and 31 decimals (MariaDB's "not fixed"), rounded to
//!   `d` decimals 17 + `d`; a FLOAT column 12.
//! - A string is its characters times 4 (utf8mb4) bytes long, of charset 45
//!   (`utf8mb4_general_ci`), or 63 (binary) for a binary string; DATE 10, DATETIME 19 and
//!   TIME 10 characters, plus the point and digits of their fraction.
//! - Numbers and temporals are sent with the BINARY flag and charset 63, an unsigned one with
//!   UNSIGNED, and anything that cannot be NULL with NOT_NULL.
//!
//! What is not followed here (a report column of another type, a function not listed) gets a
//! declaration from its type alone, the length it may reach.

use super::typing::Ty;
use sqlparser::ast::{BinaryOperator, Expr, UnaryOperator, Value};

/// The MySQL column types a result is declared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    Null,
    Long,
    LongLong,
    NewDecimal,
    Float,
    Double,
    VarString,
    /// A fixed `CHAR` (a string moved by an interval: `DATE_ADD('2024-01-01', …)`).
    String,
    Blob,
    MediumBlob,
    LongBlob,
    Date,
    DateTime,
    Time,
    /// Typed by MySQL from a constant's value (`UNIX_TIMESTAMP('…')` is a DECIMAL with the
    /// digits of the string's fraction): declared by the values SQLite gives.
    ByValue,
}

/// A result column's definition, as far as it is computed here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub code: Code,
    /// The most characters (a string's: bytes, 4 a character) a value takes.
    pub length: u32,
    /// Digits after the point: a DECIMAL's scale, a temporal's fraction, 31 for a DOUBLE whose
    /// digits are not fixed, 39 for most strings.
    pub decimals: u8,
    pub unsigned: bool,
    /// A binary string (charset 63), not text.
    pub binary: bool,
    pub nullable: bool,
    /// Sent from a table's column (a base table's, or the temporary table a grouped or
    /// DISTINCT select's rows go through), not computed: MariaDB then sends the column's own
    /// flags (a number without BINARY, a BLOB with BLOB), not an expression's.
    pub field: bool,
    /// Text of a binary collation (`utf8mb4_bin`, `JSON_UNQUOTE`'s): flagged BINARY, as
    /// MariaDB flags a column that compares by its bytes, though still sent as text.
    pub bin_collation: bool,
    /// Digits of a number, without sign or point (MariaDB's `decimal_precision`).
    precision: u32,
    /// A part of a date or a time, never negative (MariaDB's `Type_handler_long_ge0`: `HOUR`,
    /// `YEAR`, `TO_DAYS`, …): all of its length is digits, and a table's field of it (a
    /// temporary table's, a `UNION`'s, a `MIN`'s) takes one character more, for a sign.
    ge0: bool,
}

/// The decimals MariaDB declares where a number's digits are not fixed (a DOUBLE computed).
const NOT_FIXED: u8 = 31;
/// The decimals MariaDB declares of most strings.
const STRING_DECIMALS: u8 = 39;
/// Bytes of a character (utf8mb4).
const CHAR_BYTES: u32 = 4;

impl Meta {
    fn int(length: u32, nullable: bool) -> Meta {
        Meta {
            code: long_or_longlong(length),
            length,
            decimals: 0,
            unsigned: false,
            binary: false,
            nullable,
            field: false,
            bin_collation: false,
            ge0: false,
            precision: length.saturating_sub(1).max(1),
        }
    }

    /// An integer always declared LONG (or always LONGLONG), whatever its length.
    fn fixed(code: Code, length: u32, nullable: bool) -> Meta {
        Meta {
            code,
            ..Meta::int(length, nullable)
        }
    }

    /// A part of a date or a time ([`Meta::ge0`]): its digits are all of its length.
    fn never_negative(self) -> Meta {
        Meta {
            ge0: true,
            precision: self.length,
            ..self
        }
    }

    /// One read as a signed integer: held in a table's field (a temporary table's, a
    /// `UNION`'s, a `MIN`'s), rounded, its absolute value, cast as `SIGNED`. A part of a date
    /// or a time takes a character more there, for the sign.
    fn with_a_sign(self) -> Meta {
        if !self.ge0 {
            return self;
        }
        Meta {
            ge0: false,
            length: self.length + 1,
            ..self
        }
    }

    fn unsigned(self) -> Meta {
        Meta {
            unsigned: true,
            precision: self.length,
            ..self
        }
    }

    /// A DECIMAL of `precision` digits, `scale` after the point.
    fn decimal(precision: u32, scale: u32, nullable: bool) -> Meta {
        let precision = precision.clamp(1, 65);
        Meta {
            code: Code::NewDecimal,
            length: precision + u32::from(scale > 0) + 1,
            decimals: scale.min(38) as u8,
            unsigned: false,
            binary: false,
            nullable,
            field: false,
            bin_collation: false,
            ge0: false,
            precision,
        }
    }

    pub(super) fn double(length: u32, decimals: u8, nullable: bool) -> Meta {
        Meta {
            code: Code::Double,
            length,
            decimals,
            unsigned: false,
            binary: false,
            nullable,
            field: false,
            bin_collation: false,
            ge0: false,
            precision: length,
        }
    }

    /// A string of `chars` characters.
    fn text(chars: u32, nullable: bool) -> Meta {
        let bytes = chars.saturating_mul(CHAR_BYTES);
        Meta {
            // MariaDB's by length: a MEDIUM_BLOB past 64 KiB (`CONCAT` of a `GROUP_CONCAT`), a
            // LONG_BLOB from 16 Mi characters.
            code: string_code(chars >= 1 << 24, bytes),
            length: bytes,
            decimals: STRING_DECIMALS,
            unsigned: false,
            binary: false,
            nullable,
            field: false,
            bin_collation: false,
            ge0: false,
            precision: 0,
        }
    }

    fn temporal(code: Code, fraction: u8, nullable: bool) -> Meta {
        let base = match code {
            Code::DateTime => 19,
            _ => 10,
        };
        Meta {
            code,
            length: base
                + if fraction > 0 {
                    1 + u32::from(fraction)
                } else {
                    0
                },
            decimals: fraction,
            unsigned: false,
            binary: false,
            nullable,
            field: false,
            bin_collation: false,
            ge0: false,
            precision: 0,
        }
    }

    /// A DATETIME or TIME of `fraction` digits (1 to 6) read as a number where its fraction
    /// counts (arithmetic, `ABS`, `MOD`): a DECIMAL of its digits and the fraction's
    /// (`TIMESTAMP '2024-03-05 12:34:07.25' + 0` is 20240305123407.25, MariaDB's `val_decimal`).
    pub(super) fn temporal_decimal(t: Ty, fraction: u8, nullable: bool) -> Meta {
        let digits = if t == Ty::Time { 7 } else { 14 };
        Meta::decimal(digits + u32::from(fraction), u32::from(fraction), nullable)
    }

    /// A DATE rounded (`ROUND`, `TRUNCATE`, `FLOOR`, `CEIL`): its eight digits, a LONG of 8
    /// (MariaDB's `fix_arg_int` of the DATE's `decimal_precision`), one more where rounding to
    /// tens may carry; UNSIGNED, as a DATE's number is.
    pub(super) fn rounded_date(nullable: bool) -> Meta {
        Meta {
            code: Code::Long,
            ..Meta::int(8, nullable)
        }
        .unsigned()
    }

    /// A temporal of type `t` read as a number: `YYYYMMDD`, `YYYYMMDDhhmmss`, `hhhmmss`; its
    /// digits (MariaDB's `decimal_precision`) are those and its `fraction`'s.
    pub(super) fn temporal_number(t: Ty, fraction: u8, nullable: bool) -> Meta {
        let (digits, length) = match t {
            Ty::Date => (8, 10),
            Ty::DateTime => (14, 19),
            _ => (7, 10),
        };
        Meta {
            code: long_or_longlong(digits + 1),
            precision: digits + u32::from(fraction),
            ..Meta::int(length, nullable)
        }
    }

    /// A column as a temporary table (a grouped or DISTINCT select's) holds it: one `computed`
    /// longer than 512 characters is a BLOB; `min_max`: the item is a `MIN`/`MAX`;
    /// `by_groups`: the select has a GROUP BY. `held`: the item is sent from the table's
    /// column (a column, an aggregate, an expression of neither constant nor holding an
    /// aggregate: MariaDB's `change_to_use_tmp_fields`), declared as that column (a string's
    /// decimals 0, a number not BINARY); another keeps its expression's declaration.
    pub(super) fn through_temporary_table(
        self,
        computed: bool,
        min_max: bool,
        by_groups: bool,
        held: bool,
    ) -> Meta {
        let m = self.through_temporary_types(computed, min_max, by_groups);
        if !held {
            return Meta {
                decimals: self.decimals,
                ..m
            }
            .keep_string_decimals(self);
        }
        // A computed BLOB longer than a TEXT (`GROUP_CONCAT`'s) is held in a MEDIUMTEXT field,
        // of 16777215 characters.
        let length = if computed && m.code == Code::Blob && m.chars() > 65535 {
            16_777_215 * CHAR_BYTES
        } else {
            m.length
        };
        Meta {
            field: true,
            decimals: if m.is_string() { 0 } else { m.decimals },
            length,
            ..m
        }
        .with_a_sign()
    }

    /// A CHAR a grouped or DISTINCT select computes, as its temporary table stores it: a
    /// VARCHAR (MariaDB's `Item::make_string_field`; `DATE_ADD` of a string grouped), unless
    /// it is empty. A derived table keeps it a CHAR ([`Meta::materialized`]).
    pub(super) fn stored_char(self) -> Meta {
        if self.code == Code::String && self.length > 0 {
            Meta {
                code: Code::VarString,
                ..self
            }
        } else {
            self
        }
    }

    /// A column of a derived table or common table expression MariaDB materializes (see
    /// `typing::materialized`): every column is a field of its temporary table, a constant as
    /// much as a computed value (NULL and `''` a CHAR(0), a number without BINARY, a string
    /// with no decimals); a column already read from a table stays as it is.
    pub(super) fn materialized(self) -> Meta {
        if self.field {
            return self;
        }
        Meta {
            nullable: self.nullable,
            ..self.through_temporary_table(true, true, true, true)
        }
    }

    /// A UNION's column of `self`'s type, beside another select's `other`: NULL where either
    /// is, a string as long as the longer.
    pub(super) fn united(self, other: Meta) -> Meta {
        let (this, other) = (self.with_a_sign(), other.with_a_sign());
        let strings = this.is_text() && other.is_text();
        // A CHAR beside a VARCHAR is a VARCHAR (`DATE_ADD(s, …) UNION SELECT 'x'`).
        let code = if strings && this.code == Code::String && other.code == Code::VarString {
            Code::VarString
        } else {
            this.code
        };
        Meta {
            code,
            // Strings united are of no fixed decimals (MariaDB's `Item_type_holder`).
            decimals: if strings {
                STRING_DECIMALS
            } else {
                this.decimals
            },
            nullable: this.nullable || other.nullable,
            length: if strings {
                this.length.max(other.length)
            } else {
                this.length
            },
            ..this
        }
    }

    /// The declaration `self` sent from a table's column where `table` (a UNION's temporary
    /// table: a string's field has no decimals), else as it is.
    pub(super) fn sent_from_a_table(self, table: bool) -> Meta {
        Meta {
            field: self.field || table,
            decimals: if table && self.is_string() {
                0
            } else {
                self.decimals
            },
            ..self
        }
    }

    /// A type a temporary table changes keeps `before`'s decimals only where it is still a
    /// string as `before` was.
    fn keep_string_decimals(self, before: Meta) -> Meta {
        if self.code == before.code {
            self
        } else {
            Meta {
                decimals: 0,
                ..self
            }
        }
    }

    fn through_temporary_types(self, computed: bool, min_max: bool, by_groups: bool) -> Meta {
        // NULL computed is a binary CHAR(0) there, and so is a `MIN`/`MAX` of an empty string
        // (a binary one, `MIN(NULL)`'s, only where the rows are grouped); a function's empty
        // string stays a VARCHAR(0).
        let empty = self.code == Code::VarString && self.length == 0;
        if computed
            && (self.code == Code::Null || (min_max && empty && (!self.binary || by_groups)))
        {
            return Meta {
                code: Code::String,
                binary: self.binary || self.code == Code::Null,
                decimals: 0,
                ..Meta::text(0, true)
            };
        }
        if !matches!(
            self.code,
            Code::VarString | Code::MediumBlob | Code::LongBlob
        ) {
            return self;
        }
        if computed && self.chars() > 512 {
            let length = if self.code == Code::LongBlob {
                u32::MAX
            } else {
                65535 * CHAR_BYTES
            };
            return Meta {
                code: Code::Blob,
                length,
                decimals: 0,
                ..self
            };
        }
        Meta {
            decimals: 0,
            ..self
        }
    }

    /// A column of an outer join's side that may have no row: NULL-able.
    pub(super) fn nullable_as_joined(self) -> Meta {
        self.nullable(true)
    }

    /// A scalar subquery's declaration: its column's, which may be NULL (no row).
    pub(super) fn subquery(self) -> Meta {
        self.nullable(true)
    }

    fn null() -> Meta {
        Meta {
            code: Code::Null,
            length: 0,
            decimals: 0,
            unsigned: false,
            binary: false,
            nullable: true,
            field: false,
            bin_collation: false,
            ge0: false,
            precision: 0,
        }
    }

    fn nullable(self, nullable: bool) -> Meta {
        Meta { nullable, ..self }
    }

    /// A string's characters (a number's as it is written).
    /// The bytes MariaDB holds a string of at most (its `max_length`, which functions of it
    /// read). `Protocol` sends a BLOB's length in characters of one byte, converted to the
    /// client's 4: a BLOB or LONG_BLOB of characters here is the length sent, 4× that
    /// (`REGEXP_REPLACE`'s 16 MiB are sent as 64 MiB, `UNHEX` of it is 8 MiB; a
    /// `GROUP_CONCAT`'s 4 MiB as 16 MiB); a MEDIUM_BLOB here is MariaDB's own (the lengths
    /// sent are left: docs/testing.md's `string_function_types`).
    fn max_length(&self) -> u32 {
        match self.code {
            Code::Blob | Code::LongBlob if !self.binary => self.length / CHAR_BYTES,
            _ => self.length,
        }
    }

    fn chars(&self) -> u32 {
        match self.code {
            Code::VarString | Code::String | Code::Blob | Code::MediumBlob | Code::LongBlob => {
                self.length / CHAR_BYTES
            }
            _ => self.length,
        }
    }

    /// MariaDB's `decimal_precision`: a number's digits; a temporal's as a number
    /// (`YYYYMMDD`, `YYYYMMDDhhmmss`, `hhhmmss`, and its fraction); otherwise its characters.
    fn decimal_precision(&self) -> u32 {
        match self.code {
            Code::Long | Code::LongLong | Code::NewDecimal => self.precision,
            Code::Date => 8,
            Code::DateTime => 14 + u32::from(self.decimals),
            Code::Time => 7 + u32::from(self.decimals),
            Code::Null => 1,
            _ => self.chars().clamp(1, 65),
        }
    }

    /// Digits before the point of a DECIMAL or an integer.
    fn int_part(&self) -> u32 {
        self.precision.saturating_sub(self.scale())
    }

    /// MariaDB's `decimal_int_part` of any type: its [`decimal_precision`](Self::decimal_precision)
    /// less its fixed decimals (a DOUBLE's or a string's characters, `-1e300` six).
    fn decimal_int_part(&self) -> u32 {
        let fixed = if self.decimals >= NOT_FIXED {
            0
        } else {
            u32::from(self.decimals)
        };
        self.decimal_precision().saturating_sub(fixed)
    }

    fn scale(&self) -> u32 {
        match self.code {
            Code::NewDecimal => u32::from(self.decimals),
            _ => 0,
        }
    }

    /// Whether the column is flagged BINARY: MariaDB's expression is where its charset is
    /// binary (a number, a temporal, bytes); a table's column where it is bytes or a temporal
    /// (`Field_str` of the binary charset, `Field_temporal`), never where it is a number
    /// (`Field_num`).
    pub fn binary_flag(&self) -> bool {
        let number = matches!(
            self.code,
            Code::Long | Code::LongLong | Code::NewDecimal | Code::Float | Code::Double
        );
        self.bin_collation || !(self.is_text() || (self.field && number))
    }

    /// Whether the column is flagged BLOB: a table's BLOB column (`Field_blob`); an expression
    /// of a BLOB type is not.
    pub fn blob_flag(&self) -> bool {
        self.field && matches!(self.code, Code::Blob | Code::MediumBlob | Code::LongBlob)
    }

    /// Whether the column's values are text (not numbers, temporals or bytes): charset 45.
    pub fn is_text(&self) -> bool {
        self.is_string() && !self.binary
    }

    /// Whether the column is a string, text or binary.
    pub(super) fn is_string(&self) -> bool {
        matches!(
            self.code,
            Code::VarString | Code::String | Code::Blob | Code::MediumBlob | Code::LongBlob
        )
    }

    /// The declaration of a value of type `t` where nothing more is known of it: the longest
    /// such a value may be.
    pub fn of_type(t: Ty) -> Meta {
        match t {
            Ty::Null => Meta::null(),
            Ty::Int => Meta::int(21, true),
            Ty::UInt => Meta::fixed(Code::LongLong, 20, true).unsigned(),
            Ty::Dec(s) => Meta::decimal(65, u32::from(s), true),
            Ty::Double => Meta::double(23, NOT_FIXED, true),
            Ty::Text | Ty::Other => Meta::text(256, true),
            Ty::Binary => Meta {
                binary: true,
                decimals: 0,
                ..Meta::text(256, true)
            },
            Ty::Date => Meta::temporal(Code::Date, 0, true),
            Ty::DateTime => Meta::temporal(Code::DateTime, 0, true),
            Ty::Time => Meta::temporal(Code::Time, 0, true),
        }
    }

    /// The type a user variable assigned a value of this declaration keeps (MariaDB's user
    /// variables are typed by the expression assigned, NULL or not): an integer's, a
    /// DOUBLE's, a DECIMAL's of its scale, a string's (a temporal is held as a string); none
    /// for a NULL's (the variable keeps the type it had).
    pub fn user_type(&self) -> Option<Ty> {
        Some(match self.code {
            Code::Long | Code::LongLong => Ty::Int,
            Code::Double | Code::Float => Ty::Double,
            Code::NewDecimal => Ty::Dec(self.decimals.min(30)),
            Code::Null | Code::ByValue => return None,
            _ if self.binary => Ty::Binary,
            _ => Ty::Text,
        })
    }

    /// A `SHOW`'s column of strings as MariaDB declares it: `chars` characters, never NULL,
    /// of a table (`SHOW VARIABLES`' 64 and 4096: no decimals) or computed (`SHOW WARNINGS`'
    /// `Level` and `Message`: 39).
    pub fn show_text(chars: u32, table: bool) -> Meta {
        Meta {
            decimals: if table { 0 } else { STRING_DECIMALS },
            field: table,
            ..Meta::text(chars, false)
        }
    }

    /// A `SHOW`'s computed integer of `length`, never NULL (flagged BINARY, as MariaDB's
    /// items are): `SHOW PROCESSLIST`'s `Id` and `Time`.
    pub fn show_integer(code: Code, length: u32) -> Meta {
        Meta::fixed(code, length, false)
    }

    /// The same, that may be NULL.
    pub fn or_null(self) -> Meta {
        Meta {
            nullable: true,
            ..self
        }
    }

    /// `SHOW WARNINGS`' `Code`: a LONG of 4, UNSIGNED, never NULL, computed (flagged BINARY).
    pub fn warning_code() -> Meta {
        Meta::fixed(Code::Long, 4, false).unsigned()
    }

    /// A table column declared as `declared` (`int(11)`, `bigint(20)`, `float`,
    /// `varchar(64)`), which may hold NULL.
    pub fn column(declared: &str) -> Meta {
        Meta {
            field: true,
            ..Meta::column_type(declared)
        }
    }

    /// An `information_schema` column's, as MariaDB declares it.
    pub fn of_information_schema(ty: super::information_schema::Type, nullable: bool) -> Meta {
        use super::information_schema::Type;
        let m = match ty {
            Type::Varchar(chars) => Meta {
                decimals: 0,
                ..Meta::text(chars, nullable)
            },
            Type::LongText(bytes) => Meta {
                code: Code::Blob,
                length: bytes,
                decimals: 0,
                ..Meta::text(0, nullable)
            },
            Type::Long(n) => Meta::fixed(Code::Long, n, nullable),
            Type::ULong(n) => Meta::fixed(Code::Long, n, nullable).unsigned(),
            Type::LongLong(n) => Meta::fixed(Code::LongLong, n, nullable),
            Type::ULongLong(n) => Meta::fixed(Code::LongLong, n, nullable).unsigned(),
            Type::DateTime(fraction) => Meta::temporal(Code::DateTime, fraction, nullable),
            Type::Double(length, decimals, unsigned) => Meta {
                unsigned,
                ..Meta::double(length, decimals, nullable)
            },
        };
        Meta { field: true, ..m }
    }

    /// A `SHOW`'s computed column of type `ty`, as MariaDB declares it (`SHOW SLAVE STATUS`'s:
    /// a string's decimals 39, a number flagged BINARY).
    pub fn of_show(ty: super::information_schema::Type, nullable: bool) -> Meta {
        use super::information_schema::Type;
        match ty {
            Type::Varchar(chars) => Meta {
                nullable,
                ..Meta::show_text(chars, false)
            },
            _ => Meta {
                field: false,
                ..Meta::of_information_schema(ty, nullable)
            },
        }
    }

    fn column_type(declared: &str) -> Meta {
        let size = declared
            .split_once('(')
            .and_then(|(_, n)| n.trim_end_matches(')').parse::<u32>().ok());
        if declared.starts_with("bigint") {
            Meta::fixed(Code::LongLong, size.unwrap_or(20), true)
        } else if declared.starts_with("int") {
            Meta::fixed(Code::Long, size.unwrap_or(11), true)
        } else if declared.starts_with("float") {
            Meta {
                code: Code::Float,
                ..Meta::double(12, NOT_FIXED, true)
            }
        } else if declared.starts_with("double") {
            Meta::double(22, NOT_FIXED, true)
        } else {
            // A table's string column declares no decimals (a computed string 39).
            Meta {
                decimals: 0,
                ..Meta::text(size.unwrap_or(255), true)
            }
        }
    }
}

/// MariaDB's `type_handler_long_or_longlong`: an integer of up to 9 characters fits a LONG.
fn long_or_longlong(length: u32) -> Code {
    if length <= 9 {
        Code::Long
    } else {
        Code::LongLong
    }
}

/// Integer functions always declared LONG, with their length (MariaDB's `Item_long_func`s),
/// whether they may be NULL of arguments that are not (a date function: an invalid date is NULL),
/// and whether they are a part of a date or a time, never negative (MariaDB's
/// `Item_long_ge0_func`s, [`Meta::ge0`]; not `DAYOFWEEK`, `WEEKDAY`, `YEARWEEK`, `DATEDIFF`).
const LONG_FUNCTIONS: &[(&str, u32, bool, bool)] = &[
    ("LENGTH", 10, false, false),
    ("OCTET_LENGTH", 10, false, false),
    ("CHAR_LENGTH", 10, false, false),
    ("CHARACTER_LENGTH", 10, false, false),
    ("LOCATE", 11, false, false),
    ("INSTR", 11, false, false),
    ("POSITION", 11, false, false),
    ("ASCII", 3, false, false),
    ("ORD", 7, false, false),
    ("FIELD", 3, false, false),
    ("FIND_IN_SET", 3, false, false),
    ("STRCMP", 2, false, false),
    ("BIT_COUNT", 2, false, false),
    ("SIGN", 2, false, false),
    ("YEAR", 4, true, true),
    ("MONTH", 2, true, true),
    ("DAY", 2, true, true),
    ("DAYOFMONTH", 2, true, true),
    ("HOUR", 2, true, true),
    ("MINUTE", 2, true, true),
    ("SECOND", 2, true, true),
    ("MICROSECOND", 6, true, true),
    ("DAYOFWEEK", 1, true, false),
    ("WEEKDAY", 1, true, false),
    ("DAYOFYEAR", 3, true, true),
    ("WEEK", 2, true, true),
    ("WEEKOFYEAR", 2, true, true),
    ("QUARTER", 1, true, true),
    ("TO_DAYS", 6, true, true),
    ("DATEDIFF", 8, true, false),
    ("YEARWEEK", 6, true, false),
    ("PERIOD_ADD", 6, false, false),
    ("PERIOD_DIFF", 6, false, false),
];

/// The declaration of `e`, of type `ty`, from its operands' ([`super::typing::children`]) in
/// `kids`; `column`: the declaration of the column `e` names, where it is one.
pub(super) fn node(e: &Expr, ty: Ty, kids: &[Meta], column: Option<Meta>) -> Meta {
    // A BIGINT UNSIGNED is declared as the integer it is, UNSIGNED: the flag by which its 64
    // bits, a negative `i64` in SQLite past 2^63, are sent as what they are.
    if ty == Ty::UInt {
        let m = node(e, Ty::Int, kids, column);
        return match m.code {
            Code::Long | Code::LongLong => Meta {
                unsigned: true,
                ..m
            },
            _ => Meta::of_type(Ty::UInt),
        };
    }
    let derived = derive(e, ty, kids, column);
    // The rules above follow MariaDB where they know the expression; what they say must still
    // be of the type the typing found, which decides the values sent.
    let m = match derived {
        Some(m) if m.code == Code::ByValue || agrees(ty, &m) => m,
        _ => Meta::of_type(ty),
    };
    // Only a column is a table's column: an expression over one (`MAX(x)`) is computed.
    Meta {
        field: m.field && matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_)),
        ..m
    }
}

/// Whether a declaration `m` is one of type `t`.
fn agrees(t: Ty, m: &Meta) -> bool {
    match t {
        Ty::Null => m.code == Code::Null,
        Ty::Int => {
            matches!(m.code, Code::Long | Code::LongLong)
                || (m.code == Code::NewDecimal && m.decimals == 0)
        }
        Ty::UInt => matches!(m.code, Code::Long | Code::LongLong) && m.unsigned,
        Ty::Dec(s) => m.code == Code::NewDecimal && m.decimals == s,
        Ty::Double => matches!(m.code, Code::Double | Code::Float),
        // (`MIN(NULL)` is an empty binary string.)
        Ty::Text => m.is_text() || m.code == Code::String || (m.binary && m.length == 0),
        Ty::Binary => m.binary,
        Ty::Date => m.code == Code::Date,
        Ty::DateTime => m.code == Code::DateTime,
        Ty::Time => m.code == Code::Time,
        Ty::Other => false,
    }
}

fn any_nullable(kids: &[Meta]) -> bool {
    kids.iter().any(|k| k.nullable)
}

fn derive(e: &Expr, ty: Ty, kids: &[Meta], column: Option<Meta>) -> Option<Meta> {
    let kid = |k: usize| kids.get(k).copied();
    let nullable = any_nullable(kids);
    Some(match e {
        Expr::Identifier(i) if super::typing::is_user_variable(i) => user_variable(ty),
        Expr::Identifier(_) | Expr::CompoundIdentifier(_)
            if super::typing::system_variable(e).is_some() =>
        {
            system_variable(super::typing::system_variable(e)?)?
        }
        Expr::BinaryOp {
            op: BinaryOperator::Assignment,
            ..
        } => kid(1)?,
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => column?,
        Expr::Value(v) => match &v.value {
            Value::Null => Meta::null(),
            Value::Number(n, _) => number(n),
            // MariaDB's `Item_bool`: a LONG of 5 characters, and as many digits.
            Value::Boolean(_) => Meta {
                precision: 5,
                ..Meta::int(5, false)
            },
            Value::SingleQuotedString(s)
            | Value::DoubleQuotedString(s)
            | Value::NationalStringLiteral(s) => Meta::text(s.chars().count() as u32, false),
            _ if ty == Ty::Int => byte_string_number(literal_bytes(e)?),
            _ if ty == Ty::Binary => byte_string_literal(e)?,
            _ => return None,
        },
        // A charset introducer's string (`_utf8mb4'x'`): its own (`_binary`'s, binary).
        Expr::Prefixed { prefix, value } if prefix.value.starts_with('_') => {
            let Expr::Value(v) = value.as_ref() else {
                return None;
            };
            let (Value::SingleQuotedString(s) | Value::DoubleQuotedString(s)) = &v.value else {
                return None;
            };
            // A binary string is as long as its bytes.
            let binary = ty == Ty::Binary;
            Meta {
                binary,
                length: if binary {
                    s.len() as u32
                } else {
                    s.chars().count() as u32 * CHAR_BYTES
                },
                ..Meta::text(s.chars().count() as u32, false)
            }
        }
        // `TIME '10:00:00.12'`: the fraction's digits as written.
        Expr::TypedString(ts) => {
            let fsp = match &ts.value.value {
                Value::SingleQuotedString(t) | Value::DoubleQuotedString(t) => {
                    let seconds = t.rsplit(':').next().unwrap_or(t);
                    seconds.split_once('.').map_or(0, |(_, f)| {
                        f.bytes().take_while(u8::is_ascii_digit).count().min(6) as u8
                    })
                }
                _ => 0,
            };
            match ty {
                Ty::Date => Meta::temporal(Code::Date, 0, false),
                Ty::DateTime => Meta::temporal(Code::DateTime, fsp, false),
                Ty::Time => Meta::temporal(Code::Time, fsp, false),
                _ => return None,
            }
        }
        Expr::Nested(_) => kid(0)?,
        // `x COLLATE c`: `x`'s characters as a string (a number's as written), flagged BINARY
        // under a binary collation, NULL whatever `x` (MariaDB's `Item_func_set_collation`).
        Expr::Collate { collation, .. } => {
            let k = kid(0)?;
            let name = collation.to_string().to_ascii_lowercase();
            let bin = name.trim_matches(['`', '\'', '"']).ends_with("_bin")
                || name.eq_ignore_ascii_case(super::collation::BIN);
            Meta {
                bin_collation: bin,
                ..Meta::text(k.chars(), true)
            }
        }
        Expr::UnaryOp { op, .. } => {
            if let Some(m) = folded(e) {
                return Some(m);
            }
            let k = kid(0)?;
            match op {
                UnaryOperator::Minus => match ty {
                    // A constant read as a negative LONGLONG (a negative value, or an unsigned
                    // one past 2^63) negated is a DECIMAL, which holds the result (MariaDB's
                    // `Item_func_neg::fix_length_and_dec_int`).
                    Ty::Int
                        if negated_constant(e).is_some_and(|v| !(0..1 << 63).contains(&v))
                            && k.code != Code::NewDecimal =>
                    {
                        Meta::decimal(k.length, 0, k.nullable)
                    }
                    Ty::Int => Meta {
                        precision: k.precision,
                        ..Meta::int(k.length + 1, k.nullable)
                    },
                    Ty::Dec(_) => Meta::decimal(k.precision, k.scale(), k.nullable),
                    // A sign more, within a DOUBLE's 53 characters (MariaDB's
                    // `Item_func_neg::fix_length_and_dec_double`); a string's decimals not fixed
                    // (`-''`, `-hostname`).
                    Ty::Double => Meta::double(
                        (k.length + 1).min(53),
                        if k.is_string() {
                            NOT_FIXED
                        } else {
                            k.decimals.min(NOT_FIXED)
                        },
                        k.nullable,
                    ),
                    _ => return None,
                },
                UnaryOperator::Plus => k,
                UnaryOperator::Not => Meta::int(1, k.nullable),
                UnaryOperator::BitwiseNot => Meta::fixed(Code::LongLong, 21, k.nullable).unsigned(),
                _ => return None,
            }
        }
        Expr::BinaryOp { left, right, .. } if ty == Ty::Text && is_moved_string(e) => {
            match (left.as_ref(), right.as_ref()) {
                (Expr::Interval(_), s) => moved_string(kid(1)?, s, left),
                (s, i) => moved_string(kid(0)?, s, i),
            }
        }
        Expr::BinaryOp { left, right, .. }
            if matches!(ty, Ty::DateTime | Ty::Time)
                && (matches!(left.as_ref(), Expr::Interval(_))
                    || matches!(right.as_ref(), Expr::Interval(_))) =>
        {
            let (moved, Expr::Interval(i)) = (match (left.as_ref(), right.as_ref()) {
                (Expr::Interval(_), _) => (kid(1)?, left.as_ref()),
                _ => (kid(0)?, right.as_ref()),
            }) else {
                return None;
            };
            moved_temporal(ty, moved, i)
        }
        Expr::BinaryOp { op, .. } => binary(op, ty, kid(0)?, kid(1)?)?,
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsNotTrue(_)
        | Expr::IsFalse(_)
        | Expr::IsNotFalse(_)
        | Expr::IsUnknown(_)
        | Expr::IsNotUnknown(_)
        | Expr::Exists { .. } => Meta::int(1, false),
        Expr::In { .. } | Expr::Between { .. } | Expr::Like { .. } | Expr::RLike { .. } => {
            Meta::int(1, nullable)
        }
        // NULL only where the compared value may be (MariaDB's `Item_allany_subselect`): one
        // that reads a column, or NULL.
        Expr::AnyOp { left, .. } | Expr::AllOp { left, .. } => Meta::int(
            1,
            reads_a_column(left)
                || matches!(left.as_ref(), Expr::Value(v) if v.value == Value::Null),
        ),
        // Its operands are not typed apart: NULL unless both are literals that are not NULL
        // (a column may be NULL, a string function is in a strict `sql_mode`).
        Expr::Position { expr, r#in } => Meta::fixed(
            Code::Long,
            11,
            !(is_value_literal(expr) && is_value_literal(r#in)),
        ),
        Expr::Convert {
            data_type: Some(t), ..
        } => cast(ty, t, kid(0)?, super::typing::children(e).first().copied())?,
        Expr::Ceil { .. } | Expr::Floor { .. } => rounded_int(ty, handled(e, kid(0)?))?,
        Expr::Cast { data_type, .. } => cast(
            ty,
            data_type,
            kid(0)?,
            super::typing::children(e).first().copied(),
        )?,
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let results: Vec<Meta> = super::typing::case_results(
                operand.is_some(),
                conditions.len(),
                else_result.is_some(),
            )
            .filter_map(kid)
            .collect();
            // Without an ELSE, NULL where no WHEN holds; and, as MariaDB declares it, where
            // any operand may be (a condition's or the compared value's too: `CASE WHEN
            // status > 1 THEN 1 ELSE 0 END`, whose `Item_func` takes its arguments' NULLs).
            let m = merged(ty, &results, any_nullable(&results))?;
            m.nullable(m.nullable || else_result.is_none() || any_nullable(kids))
        }
        Expr::Extract { field, .. } => {
            // A day's part holds a TIME's many days (7 digits) unless it is read from a
            // temporal, whose day has 2 (MariaDB's `daylen`).
            let temporal = matches!(kid(0)?.code, Code::Date | Code::DateTime | Code::Time);
            let length = extract_length(field, if temporal { 2 } else { 7 })?;
            // Its type by its digits, without the sign a part of the time of day carries
            // (`DAY_HOUR`, 10 characters, is a LONG).
            use sqlparser::ast::DateTimeField as F;
            let signed = matches!(field, F::Custom(u)
                if !u.value.eq_ignore_ascii_case("YEAR_MONTH"))
                || matches!(field, F::Day);
            let date_part = match field {
                F::Year | F::Quarter | F::Month | F::Week(_) => true,
                F::Custom(u) => u.value.eq_ignore_ascii_case("YEAR_MONTH"),
                _ => false,
            };
            let m = Meta {
                code: long_or_longlong(length - u32::from(signed)),
                ..Meta::int(length, true)
            };
            if date_part {
                m.never_negative()
            } else {
                m
            }
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            function(&name, ty, kids, e)?
        }
        // `SUBSTRING(s, p, n)` and `SUBSTRING(s FROM p FOR n)`: the function's.
        Expr::Substring { .. } => function("SUBSTRING", ty, kids, e)?,
        _ => return None,
    })
}

/// A number literal under minus signs (`-5`, `-(-5)`), which MariaDB's parser folds into one
/// literal: declared as that literal.
fn folded(e: &Expr) -> Option<Meta> {
    fn walk(e: &Expr, signs: u32) -> Option<(u32, &str)> {
        match e {
            Expr::Nested(x) => walk(x, signs),
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => walk(expr, signs + 1),
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => Some((signs, n.as_str())),
                _ => None,
            },
            _ => None,
        }
    }
    let (signs, n) = walk(e, 0)?;
    let m = number(n);
    // Negated, a zero is written as it was (MariaDB's `Item_int::neg` and `Item_float::neg`
    // add a character for a sign only to a value that becomes negative).
    let negative = signs % 2 == 1 && n.parse::<f64>().is_ok_and(|v| v != 0.0);
    let integer = n.parse::<u128>().ok();
    Some(match m.code {
        // Past a LONGLONG's least value once negated, a DECIMAL from then on, whatever the
        // signs after (`-18446744073709551615`); 2^63 negated is the least LONGLONG, negated
        // again a DECIMAL (MariaDB's `Item_uint::neg`, `Item_int::neg`).
        Code::LongLong
            if integer
                .is_some_and(|v| (v > 1 << 63 && signs >= 1) || (v == 1 << 63 && signs >= 2)) =>
        {
            Meta::decimal(m.precision, 0, false)
        }
        Code::Long | Code::LongLong if negative => Meta {
            code: long_or_longlong(m.length + 1),
            length: m.length + 1,
            ..m
        },
        Code::Double if negative => Meta {
            length: m.length + 1,
            ..m
        },
        _ => m,
    })
}

/// A number literal: `12` LONG of 2, `1.50` DECIMAL(3,2), `1e0` DOUBLE as long as written.
fn number(n: &str) -> Meta {
    if n.contains(['e', 'E']) {
        return Meta::double(n.len() as u32, NOT_FIXED, false);
    }
    match n.split_once('.') {
        Some((int, frac)) => {
            let written = int.len() as u32;
            let frac = frac.len() as u32;
            // As long as written, with a sign and the point: `0.5` 4, `.5` 3 (MariaDB's
            // `Item_decimal`, whose integer digits are those written: `0.5` has 2 digits, its
            // `decimal_precision`, so `FLOOR(0.5)` is 3 long).
            Meta {
                length: written + frac + 1 + u32::from(frac > 0),
                ..Meta::decimal((written + frac).max(1), frac, false)
            }
        }
        None => {
            let digits = n.trim_start_matches('0').len().max(1) as u32;
            if digits > 20 || (digits == 20 && n > "18446744073709551615") {
                return Meta::decimal(digits, 0, false);
            }
            Meta {
                precision: digits,
                ..Meta::int(digits, false)
            }
        }
    }
}

fn binary(op: &BinaryOperator, ty: Ty, l: Meta, r: Meta) -> Option<Meta> {
    use BinaryOperator as B;
    let nullable = l.nullable || r.nullable;
    // Of `precision` digits, and a sign unless unsigned: MariaDB's result is unsigned where an
    // operand is (`%`: where the dividend is).
    let int = |precision: u32, unsigned: bool, nullable: bool| Meta {
        precision,
        unsigned,
        ..Meta::int(precision + u32::from(!unsigned), nullable)
    };
    let unsigned = l.unsigned || r.unsigned;
    Some(match (op, ty) {
        (B::Plus | B::Minus, Ty::Int) => {
            int(l.int_part().max(r.int_part()) + 1, unsigned, nullable)
        }
        (B::Plus | B::Minus, Ty::Dec(s)) => {
            let s = u32::from(s);
            Meta::decimal(l.int_part().max(r.int_part()) + 1 + s, s, nullable)
        }
        (B::Multiply, Ty::Int) => int(l.precision + r.precision, unsigned, nullable),
        (B::Multiply, Ty::Dec(s)) => {
            Meta::decimal(l.precision + r.precision, u32::from(s), nullable)
        }
        (B::Divide, Ty::Dec(s)) => {
            let s = u32::from(s);
            let increment = s.saturating_sub(l.scale());
            Meta::decimal(l.precision + increment + r.scale(), s, true)
        }
        (B::Modulo, Ty::Int) => int(l.int_part().max(r.int_part()), l.unsigned, true),
        (B::Modulo, Ty::Dec(s)) => {
            let s = u32::from(s);
            Meta::decimal(l.int_part().max(r.int_part()) + s, s, true)
        }
        // The dividend's integer digits, at most MariaDB's 21 (`MY_INT64_NUM_DECIMAL_DIGITS`),
        // as characters: a signed one's digits are one fewer (`my_decimal_length_to_precision`,
        // what a product of it reads: `timestamp DIV 60 * 60` is 12 long).
        (B::MyIntegerDivide, Ty::Int) => {
            let length = l.decimal_int_part().clamp(1, 21);
            Meta {
                precision: length.saturating_sub(u32::from(!unsigned)).max(1),
                unsigned,
                ..Meta::int(length, true)
            }
        }
        (B::Plus | B::Minus | B::Multiply, Ty::Double) => real(&[l, r], nullable),
        // MariaDB's `Item_func_div`: the dividend's decimals and the increment's more.
        (B::Divide, Ty::Double) => match real_decimals(&[l, r]) {
            Some(d) => {
                let d = (d + super::typing::div_increment()).min(u32::from(NOT_FIXED));
                let length = if d >= u32::from(NOT_FIXED) {
                    23
                } else {
                    (l.length.saturating_sub(u32::from(l.decimals)) + d).min(17 + d)
                };
                Meta::double(length, d as u8, true)
            }
            None => Meta::double(23, NOT_FIXED, true),
        },
        (B::Modulo, Ty::Double) => real(&[l, r], true),
        (
            B::BitwiseOr
            | B::BitwiseAnd
            | B::BitwiseXor
            | B::PGBitwiseShiftLeft
            | B::PGBitwiseShiftRight,
            Ty::Int,
        ) => Meta::fixed(Code::LongLong, 21, nullable).unsigned(),
        // `||` under `PIPES_AS_CONCAT`: `CONCAT`.
        (B::StringConcat, Ty::Text) => Meta::text(l.chars() + r.chars(), string_nullable(&[l, r])),
        // `<=>` is never NULL; `||` typed an integer is `OR`.
        (B::Spaceship, Ty::Int) => Meta::int(1, false),
        (op, Ty::Int) if truth_operator(op) || *op == B::StringConcat => Meta::int(1, nullable),
        _ => return None,
    })
}

/// A DATETIME or TIME (`ty`) moved by an interval `i` from one declared `moved`: as many
/// fraction digits as the most of the value's and the interval's (MariaDB's `interval_dec`: 6
/// for a unit of microseconds, the amount's decimals for `SECOND`, at most 6), so `TIME
/// '12:34:56' + INTERVAL 1.5 SECOND` is `12:34:57.5`, a TIME(1). Always nullable (a result
/// past its range is NULL).
fn moved_temporal(ty: Ty, moved: Meta, i: &sqlparser::ast::Interval) -> Meta {
    let by_interval = interval_digits(i);
    // A DATE moved into a DATETIME has no fraction of its own.
    let own = if moved.code == Code::Date {
        0
    } else {
        moved.decimals.min(6)
    };
    let code = if ty == Ty::Time {
        Code::Time
    } else {
        Code::DateTime
    };
    Meta::temporal(code, own.max(by_interval), true)
}

/// The fraction digits an interval moves a temporal by (MariaDB's `interval_dec`): 6 for one
/// of microseconds, a `SECOND` amount's decimals, else none.
fn interval_digits(i: &sqlparser::ast::Interval) -> u8 {
    let unit = i
        .leading_field
        .as_ref()
        .map(|u| u.to_string().to_ascii_uppercase())
        .unwrap_or_default();
    let last = i
        .last_field
        .as_ref()
        .map(|u| u.to_string().to_ascii_uppercase());
    match (unit.as_str(), last.as_deref()) {
        ("MICROSECOND", None) | (_, Some("MICROSECOND")) => 6,
        ("SECOND", None) => amount_decimals(&i.value).min(6),
        _ => 0,
    }
}

/// The decimals an interval's amount has, as MariaDB declares it: a number literal's as
/// written, a DOUBLE's or a string's not fixed (39); another expression's taken as none.
fn amount_decimals(e: &Expr) -> u8 {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => number(n).decimals,
            Value::SingleQuotedString(_) | Value::DoubleQuotedString(_) => STRING_DECIMALS,
            _ => 0,
        },
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) => amount_decimals(expr),
        _ => 0,
    }
}

/// The decimals a DOUBLE computed from `kids` has (MariaDB's `count_real_length`): the most
/// of theirs, None where one's are not fixed (a DOUBLE's, a string's).
fn real_decimals(kids: &[Meta]) -> Option<u32> {
    // A string's digits are never fixed (MariaDB's string field has `NOT_FIXED_DEC` decimals,
    // though a table's column is sent with 0).
    kids.iter().try_fold(0, |d, k| {
        (k.decimals < NOT_FIXED && !k.is_string()).then(|| d.max(u32::from(k.decimals)))
    })
}

/// A DOUBLE computed from `kids` (arithmetic, `COALESCE`, …): 17 characters and their most
/// decimals, or 23 and "not fixed" (MariaDB's `float_length`).
fn real(kids: &[Meta], nullable: bool) -> Meta {
    match real_decimals(kids) {
        Some(d) => Meta::double(17 + d, d as u8, nullable),
        None => Meta::double(23, NOT_FIXED, nullable),
    }
}

/// A DOUBLE of `IF`/`IFNULL`/`COALESCE`/`CASE` over `results` (MariaDB's
/// `count_real_length`): where every result's decimals are fixed, the longest integer part and
/// the most decimals; else the longest result, its decimals not fixed (`IFNULL(1, 1e0)` 3,
/// `COALESCE(CRC32(x), 1e0)` 10).
fn hybrid_real(results: &[Meta], nullable: bool) -> Meta {
    let longest = results.iter().map(|k| k.length).max().unwrap_or(0);
    match real_decimals(results) {
        Some(d) => {
            let int = results
                .iter()
                .map(|k| k.length.saturating_sub(u32::from(k.decimals)))
                .max()
                .unwrap_or(0);
            Meta::double(int + d, d as u8, nullable)
        }
        None => Meta::double(longest, NOT_FIXED, nullable),
    }
}

/// `FLOOR`/`CEIL` (and `ROUND`/`TRUNCATE` to no decimals) of `k`: an integer keeps its
/// declaration; a DECIMAL's integer digits and one more, plus a sign; a DOUBLE 17.
fn rounded_int(ty: Ty, k: Meta) -> Option<Meta> {
    Some(match (ty, k.code) {
        (Ty::Int, Code::Long | Code::LongLong) => k,
        // Too long for a LONGLONG: a DECIMAL of no decimals.
        (Ty::Int, Code::NewDecimal) if k.length - u32::from(k.decimals) >= 20 => {
            Meta::decimal(k.int_part() + 1, 0, k.nullable)
        }
        // A digit more only where a fraction may carry into it (MariaDB's
        // `Item_func_int_val::fix_length_and_dec_int_or_decimal`: `FLOOR` of a DECIMAL(5,0)
        // keeps its 5).
        (Ty::Int, Code::NewDecimal) => {
            let digits = (k.int_part() + u32::from(k.decimals > 0)).max(1);
            Meta {
                code: long_or_longlong(digits),
                precision: digits,
                ..Meta::int(digits + 1, k.nullable)
            }
        }
        (Ty::Double, _) => Meta::double(17, 0, k.nullable),
        _ => return None,
    })
}

/// `CAST(arg AS …)` of `arg` declared `k`.
fn cast(ty: Ty, to: &sqlparser::ast::DataType, k: Meta, arg: Option<&Expr>) -> Option<Meta> {
    use sqlparser::ast::DataType as D;
    let unsigned = matches!(to, D::Unsigned | D::UnsignedInteger);
    Some(match ty {
        Ty::Int if unsigned => {
            // An integer that is never negative keeps its length (MariaDB's
            // `Item_func_unsigned`: where its argument's `val_int_min` is not below 0, an
            // unsigned one, a literal, a date's or time's part); NULL and a string of at most a
            // character one digit (`CAST('5' AS UNSIGNED)` is a LONG, of `'nl'` a LONGLONG);
            // anything else may need all 20 digits (`CAST(1 - 2 AS UNSIGNED)`).
            let literal = arg.is_some_and(|a| {
                matches!(unnested(a), Expr::Value(v)
                    if matches!(v.value, Value::Number(..) | Value::Boolean(_)))
            });
            let never_negative = k.unsigned
                || (literal
                    && matches!(k.code, Code::Long | Code::LongLong)
                    && k.precision == k.length)
                || k.ge0;
            let length = if never_negative {
                k.length
            } else if k.code == Code::Null || (k.is_text() && k.chars() <= 1) {
                1
            } else {
                20
            };
            // An unsigned one of up to 10 digits fits a LONG (`CAST(2147483647 AS UNSIGNED)`).
            Meta {
                code: if length <= 10 {
                    Code::Long
                } else {
                    Code::LongLong
                },
                ..Meta::int(length, k.nullable)
            }
            .unsigned()
        }
        Ty::Int => {
            let length = match k.code {
                Code::Double | Code::Float => 20,
                _ => k.with_a_sign().chars().clamp(2, 21),
            };
            // Its digits are its operand's (`CAST(1e0 AS SIGNED) + 0` is a LONG of 5).
            Meta {
                precision: k.decimal_precision(),
                ..Meta::int(length, k.nullable)
            }
        }
        Ty::Dec(s) => {
            let precision = match to {
                D::Decimal(i) | D::Numeric(i) | D::Dec(i) => match i {
                    sqlparser::ast::ExactNumberInfo::PrecisionAndScale(p, _)
                    | sqlparser::ast::ExactNumberInfo::Precision(p) => *p as u32,
                    sqlparser::ast::ExactNumberInfo::None => 10,
                },
                _ => return None,
            };
            Meta::decimal(precision, u32::from(s), k.nullable)
        }
        // MariaDB's `Item_double_typecast` and `Item_float_typecast` may be NULL whatever
        // their operand (a string that is no number warns); a FLOAT is a FLOAT of 12.
        Ty::Double if matches!(to, D::Float(_) | D::Real) => Meta {
            code: Code::Float,
            ..Meta::double(12, NOT_FIXED, true)
        },
        Ty::Double => Meta::double(22, NOT_FIXED, true),
        Ty::Text | Ty::Binary => {
            let chars = match to {
                D::Char(Some(n)) | D::Varchar(Some(n)) => match n {
                    sqlparser::ast::CharacterLength::IntegerLength { length, .. } => *length as u32,
                    _ => return None,
                },
                D::Binary(Some(n)) => *n as u32,
                _ => match k.code {
                    // A part of a date or a time has no sign to write.
                    Code::Long | Code::LongLong if k.ge0 => k.length,
                    Code::Long | Code::LongLong => k.length.max(k.precision + 1),
                    _ => k.chars(),
                },
            };
            Meta {
                decimals: 0,
                binary: ty == Ty::Binary,
                ..Meta::text(chars, string_nullable(&[k]))
            }
        }
        Ty::Date => Meta::temporal(Code::Date, 0, true),
        Ty::DateTime | Ty::Time => {
            // `DATETIME(3)`, `TIME(6)`: the fraction's digits, at most 6.
            let fsp = match to {
                D::Datetime(Some(n)) | D::Timestamp(Some(n), _) | D::Time(Some(n), _) => {
                    (*n).min(6) as u8
                }
                _ => 0,
            };
            let code = if ty == Ty::Time {
                Code::Time
            } else {
                Code::DateTime
            };
            Meta::temporal(code, fsp, true)
        }
        _ => return None,
    })
}

/// The decimals of a DOUBLE computed from operands declared `kids` (MariaDB's
/// `count_real_length`): the most of theirs (an integer's 0, a DECIMAL's scale, `ROUND(x, 2)`'s
/// 2), `add` more (`/` and `AVG` add `div_precision_increment`), not fixed (31) where one's are
/// not (a DOUBLE column, `1e0`, a string). A DOUBLE of fixed decimals is written with them.
fn double_decimals(kids: &[Meta], add: u32) -> u8 {
    match real_decimals(kids) {
        Some(d) => (d + add).min(u32::from(NOT_FIXED)) as u8,
        None => NOT_FIXED,
    }
}

/// Whether the results declared `metas` that are not NULL are FLOATs, one at least.
fn all_float(metas: &[Meta]) -> bool {
    let mut values = metas.iter().filter(|m| m.code != Code::Null).peekable();
    values.peek().is_some() && values.all(|m| m.code == Code::Float)
}

/// A FLOAT held by a temporary value of its own (`MIN`/`MAX`, `GREATEST`/`LEAST` of FLOATs,
/// a window's `LAG`, `FIRST_VALUE`, …): MariaDB declares it `float_length` of its decimals,
/// 23 where they are not fixed, still a FLOAT.
fn held_float(k: Meta) -> Meta {
    Meta {
        length: if k.decimals < NOT_FIXED {
            17 + u32::from(k.decimals)
        } else {
            23
        },
        ..k
    }
}

/// `IF`/`IFNULL`/`COALESCE`/`CASE`/`GREATEST`/`LEAST` over results declared `kids`, NULL as
/// `nullable` says: integers as LONGLONG where one is, as long as the longest precision and a
/// sign; DECIMALs as the longest integer part and the largest scale; DOUBLEs with the most
/// decimals; strings as the longest.
fn merged(ty: Ty, results: &[Meta], nullable: bool) -> Option<Meta> {
    let values: Vec<&Meta> = results.iter().filter(|m| m.code != Code::Null).collect();
    Some(match ty {
        Ty::Null => Meta::null(),
        // A DECIMAL of no decimals among them (`ROUND(1.5)`, typed an integer for its values)
        // makes the result a DECIMAL, as MariaDB merges them.
        Ty::Int if values.iter().any(|m| m.code == Code::NewDecimal) => {
            let int = values.iter().map(|m| m.int_part()).max()?;
            Meta::decimal(int, 0, nullable)
        }
        // Unsigned integers merged (a BIGINT UNSIGNED is declared as an integer, then flagged:
        // `node`): as long as the longest, no sign; a LONG where that is 10 digits or fewer
        // (`IF(c, CRC32(x), NULL)`), as MariaDB's hybrid functions set it.
        Ty::Int if !values.is_empty() && values.iter().all(|m| m.unsigned) => {
            let length = values.iter().map(|m| m.length).max()?;
            Meta {
                code: if length <= 10 {
                    Code::Long
                } else {
                    Code::LongLong
                },
                ..Meta::int(length, nullable)
            }
            .unsigned()
        }
        Ty::Int => {
            let precision = values.iter().map(|m| m.int_part()).max()?;
            let longlong = values.iter().any(|m| m.code == Code::LongLong);
            Meta {
                code: if longlong { Code::LongLong } else { Code::Long },
                precision,
                ..Meta::int(precision + 1, nullable)
            }
        }
        Ty::Dec(s) => {
            let int = values.iter().map(|m| m.int_part()).max()?;
            Meta::decimal(int + u32::from(s), u32::from(s), nullable)
        }
        // FLOATs only (NULLs aside) stay a FLOAT (`COALESCE(req_time)`, `IF(c, x, y)`, a
        // `UNION` of two): MariaDB's type aggregation keeps it; beside any other number, a
        // DOUBLE.
        Ty::Double if all_float(results) => Meta {
            code: Code::Float,
            ..hybrid_real(results, nullable)
        },
        Ty::Double => hybrid_real(results, nullable),
        // A CHAR beside anything but a VARCHAR stays a CHAR; of NULLs only, a CHAR(0).
        Ty::Text => Meta {
            code: if values.iter().any(|m| m.code == Code::String)
                && !values.iter().any(|m| m.code == Code::VarString)
                || values.is_empty()
            {
                Code::String
            } else {
                Code::VarString
            },
            ..Meta::text(
                values.iter().map(|m| m.chars()).max().unwrap_or(0),
                nullable,
            )
        },
        Ty::Date | Ty::DateTime | Ty::Time => {
            let code = values
                .iter()
                .map(|m| m.code)
                .max_by_key(|c| *c == Code::DateTime)?;
            Meta::temporal(code, 0, nullable)
        }
        _ => return None,
    })
}

/// `EXTRACT(unit FROM …)`'s length by its unit (MariaDB's `Item_extract`).
fn extract_length(field: &sqlparser::ast::DateTimeField, day: u32) -> Option<u32> {
    use sqlparser::ast::DateTimeField as F;
    Some(match field {
        // A date's parts, never negative (MariaDB's `set_date_length`).
        F::Year => 4,
        F::Quarter => 1,
        F::Month | F::Week(_) => 2,
        // A day and a time's parts carry a sign (MariaDB's `set_day_length`,
        // `set_time_length`).
        F::Day => day + 1,
        F::Hour | F::Minute | F::Second => 3,
        F::Microsecond => 7,
        // A compound unit's digits, and a sign where it holds a part of the time of day
        // (MariaDB's `Item_extract::fix_length_and_dec`).
        F::Custom(unit) => match unit.value.to_ascii_uppercase().as_str() {
            "YEAR_MONTH" => 6,
            "DAY_HOUR" => day + 2 + 1,
            "DAY_MINUTE" => day + 4 + 1,
            "DAY_SECOND" => day + 6 + 1,
            "DAY_MICROSECOND" => day + 12 + 1,
            "HOUR_MINUTE" => 5,
            "HOUR_SECOND" => 7,
            "HOUR_MICROSECOND" => 13,
            "MINUTE_SECOND" => 5,
            "MINUTE_MICROSECOND" => 11,
            "SECOND_MICROSECOND" => 9,
            _ => return None,
        },
        _ => return None,
    })
}

/// Whether `e` moves a value by an interval (`DATE_ADD(s, INTERVAL …)`, `s + INTERVAL …`,
/// `TIMESTAMPADD`): a string so moved is [`moved_string`].
pub fn is_moved_string(e: &Expr) -> bool {
    match e {
        Expr::BinaryOp { left, right, .. } => {
            matches!(left.as_ref(), Expr::Interval(_))
                || matches!(right.as_ref(), Expr::Interval(_))
        }
        Expr::Function(f) => matches!(
            f.name.to_string().to_ascii_uppercase().as_str(),
            "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" | "TIMESTAMPADD"
        ),
        _ => false,
    }
}

/// Whether the time `arg` (declared `k`) that `ADDTIME(d, t)` or `TIMESTAMP(d, t)` adds may
/// hold any fraction: a string the rows give (`ADDTIME(d, DATE_FORMAT(…))`, whose
/// `DATE_FORMAT` alone is read with none), declared with 6 digits.
pub fn adds_a_row_string(k: &Meta, arg: &Expr) -> bool {
    k.is_string() && reads_a_column(arg)
}

/// A string `s` (declared `k`) moved by the interval `i` (`DATE_ADD('2024-01-01', INTERVAL 1
/// DAY)`): a `CHAR` as long as a DATETIME with the more fraction digits of the two, `s`'s as
/// MariaDB reads it ([`datetime_precision`]: a column's 6, `DATE_FORMAT`'s none) and the
/// interval's; a DATETIME's without them where the values decide.
fn moved_string(k: Meta, s: &Expr, i: &Expr) -> Meta {
    let by_interval = match i {
        Expr::Interval(i) => interval_digits(i),
        _ => 0,
    };
    let digits = datetime_precision(&k, s, false).map_or(0, |d| d.min(6) as u8);
    let digits = digits.max(by_interval);
    Meta {
        code: Code::String,
        decimals: digits,
        ..Meta::text(19 + u32::from(digits) + u32::from(digits > 0), true)
    }
}

/// `UNIX_TIMESTAMP(x)` and `TIME_TO_SEC(x)`: whole seconds, a LONGLONG, where `x` has no
/// fraction, else a DECIMAL with the digits of its fraction ([`datetime_precision`]). Where
/// the values decide, `Code::ByValue`.
fn seconds(k: Meta, arg: &Expr, time: bool) -> Meta {
    let Some(digits) = datetime_precision(&k, arg, time) else {
        return Meta {
            code: Code::ByValue,
            ..if k.code == Code::ByValue {
                k
            } else {
                Meta::of_type(Ty::Other)
            }
        };
    };
    if digits == 0 {
        Meta::fixed(Code::LongLong, 17, true)
    } else {
        Meta::decimal(16 + digits, digits, true)
    }
}

/// The fraction digits MariaDB reads `arg` (declared `k`) with as a DATETIME, or as a TIME where
/// `time` (its `datetime_precision`/`time_precision`): a temporal's own, a DECIMAL's or a
/// DOUBLE's up to 6 (a DOUBLE of no fixed decimals 6), 6 for a string read only when the query
/// runs; a string literal's as it is
/// written, 6 where it is no such value. Another constant string is read by MariaDB before the
/// query runs: `None`, its values decide.
pub(super) fn datetime_precision(k: &Meta, arg: &Expr, time: bool) -> Option<u32> {
    const MOST: u32 = 6;
    Some(match k.code {
        Code::Null | Code::Long | Code::LongLong | Code::Date => 0,
        // A DOUBLE's its decimals' where they are fixed (`TRUNCATE(x, 3)`'s 3), else 6.
        Code::DateTime | Code::Time | Code::NewDecimal | Code::Double | Code::Float => {
            u32::from(k.decimals).min(MOST)
        }
        Code::VarString | Code::String | Code::Blob | Code::MediumBlob | Code::LongBlob => {
            match literal_text(arg) {
                Some(s) => {
                    let v = rusqlite::types::ValueRef::Text(s.as_bytes());
                    let read = if time {
                        super::dates::time_of(v)
                    } else {
                        super::dates::datetime_of(v)
                    };
                    read.map_or(MOST, |t| u32::from(t.fsp).min(MOST))
                }
                // A column's, 6; a function's its own decimals' (MariaDB's
                // `Item_datetime_precision` of a string: `DATE_FORMAT`'s 0).
                None if matches!(arg, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) => MOST,
                None if reads_a_column(arg) => u32::from(k.decimals).min(MOST),
                None => return None,
            }
        }
        Code::ByValue => return None,
    })
}

/// `GREATEST`/`LEAST` compared as DATETIMEs or TIMEs (`typing::temporal_greatest`), over `args`
/// declared `kids`: the fraction digits its values show, the most any operand is read with
/// ([`datetime_precision`]; where the values decide, its declared digits), and those its length
/// counts, the most any operand declares (a string's and a DOUBLE's 6). MariaDB's
/// `Item_func_min_max`: `GREATEST('2020-01-01', TIMESTAMP '2038-01-19 03:14:07')` is a DATETIME
/// of 0 digits and length 26, `GREATEST('', TIMESTAMP …)` one of 6 (`…07.000000`).
pub(super) fn greatest_temporal_digits(args: &[&Expr], kids: &[Meta], time: bool) -> (u8, u8) {
    // (A string's are `NOT_FIXED_DEC`'s, whatever its definition shows.)
    let declared = |k: &Meta| {
        if k.is_text() {
            6
        } else {
            u32::from(k.decimals).min(6)
        }
    };
    let shown = args
        .iter()
        .zip(kids)
        .map(|(a, k)| datetime_precision(k, a, time).unwrap_or_else(|| declared(k)))
        .max()
        .unwrap_or(0);
    let length = kids.iter().map(declared).max().unwrap_or(0);
    (shown as u8, length as u8)
}

/// The type of `UNIX_TIMESTAMP(x)` or `TIME_TO_SEC(x)` from `x`'s declaration (see
/// [`seconds`]): an integer, or a DECIMAL with the digits of `x`'s fraction. None for another
/// expression, or where the values decide.
pub(super) fn seconds_type(e: &Expr, kids: &[Meta]) -> Option<Ty> {
    let Expr::Function(f) = e else { return None };
    let name = f.name.to_string().to_ascii_uppercase();
    if !matches!(name.as_str(), "UNIX_TIMESTAMP" | "TIME_TO_SEC") {
        return None;
    }
    let [k] = kids else { return None };
    let m = seconds(
        *k,
        super::typing::children(e).first()?,
        name == "TIME_TO_SEC",
    );
    match m.code {
        Code::LongLong => Some(Ty::Int),
        Code::NewDecimal => Some(Ty::Dec(m.decimals)),
        _ => None,
    }
}

/// A system variable, as MariaDB declares `@@x` by the variable's type: a boolean a BIGINT of
/// one digit, a number a BIGINT of 21 (UNSIGNED where the variable is), a DOUBLE of 21 and 6
/// decimals, a string a VARCHAR as long as its value is now; each may be NULL.
fn system_variable(v: super::variables::System) -> Option<Meta> {
    use super::variables::Kind;
    Some(match v.kind {
        Kind::Boolean => Meta::fixed(Code::LongLong, 1, true),
        Kind::Signed => Meta::fixed(Code::LongLong, 21, true),
        Kind::Unsigned => Meta::fixed(Code::LongLong, 21, true).unsigned(),
        Kind::Double => Meta::double(21, 6, true),
        Kind::Text => Meta::text(super::typing::system_text_chars(v.name)?, true),
    })
}

/// A user variable of type `ty` (its value's as the statement starts), as MariaDB declares
/// one: a LONGLONG or a DOUBLE, a LONGTEXT's LONG_BLOB for a string, a binary one for NULL.
fn user_variable(ty: Ty) -> Meta {
    const LONGTEXT_CHARS: u32 = (1 << 24) - 1;
    match ty {
        Ty::Int => Meta::fixed(Code::LongLong, 20, true),
        Ty::Double => Meta::double(23, NOT_FIXED, true),
        Ty::Text => Meta {
            code: Code::LongBlob,
            ..Meta::text(LONGTEXT_CHARS, true)
        },
        _ => Meta {
            code: Code::LongBlob,
            length: LONGTEXT_CHARS + 1,
            binary: true,
            ..Meta::text(LONGTEXT_CHARS, true)
        },
    }
}

/// A bit-value or hexadecimal literal (`b'101'`, `0x41`, `x'41'`) as a binary string: a
/// VARBINARY as long as its bytes.
pub(super) fn byte_string_literal(e: &Expr) -> Option<Meta> {
    Some(Meta {
        code: Code::VarString,
        length: literal_bytes(e)?,
        decimals: 0,
        // (MariaDB flags a hexadecimal or bit-value literal UNSIGNED, as its number is.)
        unsigned: true,
        binary: true,
        nullable: false,
        field: false,
        bin_collation: false,
        ge0: false,
        precision: 0,
    })
}

/// `e`'s first operand, declared `k`, as a function over it reads it: a `MIN`/`MAX` of a
/// computed integer is sent as a LONGLONG, but is of its length's type (MariaDB's handler:
/// `ROUND(MIN(1))` is a LONG).
fn handled(e: &Expr, k: Meta) -> Meta {
    let Some(inner) = super::typing::children(e).first().copied() else {
        return k;
    };
    if !is_min_max(inner) || k.code != Code::LongLong {
        return k;
    }
    // Of a function always a LONG (`MAX(CHAR_LENGTH(x))`), a LONG.
    let of_long = match super::typing::children(inner).first().copied() {
        Some(Expr::Function(g)) => {
            let g = g.name.to_string().to_ascii_uppercase();
            LONG_FUNCTIONS.iter().any(|(n, ..)| *n == g)
        }
        _ => false,
    };
    Meta {
        code: if of_long {
            Code::Long
        } else {
            long_or_longlong(k.length)
        },
        ..k
    }
}

/// Whether `e` is a `MIN` or `MAX` call.
pub(super) fn is_min_max(e: &Expr) -> bool {
    matches!(e, Expr::Function(f)
        if ["MIN", "MAX"].iter().any(|n| f.name.to_string().eq_ignore_ascii_case(n)))
}

/// The operators whose result is a truth (1, 0 or NULL), a LONG of 1.
fn truth_operator(op: &BinaryOperator) -> bool {
    use BinaryOperator as B;
    super::typing::is_comparison(op) || matches!(op, B::And | B::Or | B::Xor | B::Regexp)
}

/// `e` without the parentheses around it.
fn unnested(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(x) => unnested(x),
        e => e,
    }
}

/// Whether `e` is a literal (a number, a string, a temporal) that is not NULL.
fn is_value_literal(e: &Expr) -> bool {
    match e {
        Expr::Nested(x) | Expr::UnaryOp { expr: x, .. } => is_value_literal(x),
        Expr::Value(v) => !matches!(v.value, Value::Null),
        Expr::TypedString(_) => true,
        _ => false,
    }
}

/// Whether `e` is a truth: `TRUE`/`FALSE`, a comparison, a logical operator or a predicate
/// (MariaDB's `Item_bool_func`s, whose type is a LONG wherever it is held).
fn is_truth(e: &Expr) -> bool {
    match e {
        Expr::Nested(x) => is_truth(x),
        Expr::Value(v) => matches!(v.value, Value::Boolean(_)),
        Expr::BinaryOp { op, .. } => truth_operator(op),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            ..
        } => true,
        // MariaDB's boolean functions.
        Expr::Function(f) => {
            matches!(
                f.name.to_string().to_ascii_uppercase().as_str(),
                "IS_IPV4" | "IS_IPV6"
            ) || super::typing::is_predicate(e)
        }
        _ => super::typing::is_predicate(e),
    }
}

/// The bytes a bit-value or hexadecimal literal spells.
fn literal_bytes(e: &Expr) -> Option<u32> {
    let Expr::Value(v) = e else { return None };
    let bytes = match &v.value {
        Value::SingleQuotedByteStringLiteral(bits) if bits.len() <= 64 => bits.len().div_ceil(8),
        Value::HexStringLiteral(digits) => digits.len().div_ceil(2),
        _ => return None,
    };
    Some(bytes as u32)
}

/// A bit-value or hexadecimal literal of `bytes` read as a number (`0x41 + 0`), as MariaDB's
/// hybrid declares it: as long as its bytes, of the digits of its largest value, unsigned.
fn byte_string_number(bytes: u32) -> Meta {
    let digits = (f64::from(bytes * 8) * std::f64::consts::LOG10_2).ceil() as u32;
    Meta {
        precision: digits.max(1),
        unsigned: true,
        ..Meta::int(bytes, false)
    }
}

/// A string's type code by its length: a LONG_BLOB where `long`, a MEDIUM_BLOB past 64 KiB, a
/// VARCHAR up to it.
fn string_code(long: bool, bytes: u32) -> Code {
    if long {
        Code::LongBlob
    } else if bytes > 65535 {
        Code::MediumBlob
    } else {
        Code::VarString
    }
}

/// A string literal's text (collated or not).
fn literal_text(e: &Expr) -> Option<&str> {
    match e {
        Expr::Nested(x) | Expr::Collate { expr: x, .. } => literal_text(x),
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// Whether an expression reads a column (or a variable): its value is known only as the
/// query runs.
pub(super) fn reads_a_column(e: &Expr) -> bool {
    sqlparser::ast::visit_expressions(e, |x| {
        if matches!(
            x,
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Subquery(_)
        ) {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// The value of the operand of a negation, where it is [`constant`].
fn negated_constant(e: &Expr) -> Option<i128> {
    match e {
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => constant(expr),
        _ => None,
    }
}

/// The value of a constant integer expression (MariaDB's `val_int` of it, a BIGINT UNSIGNED's
/// as its value): literals and truths, whole DATE and DATETIME literals, `-`, `~`, `+ - * DIV
/// %`, and the functions that keep an integer's value (`ABS`, `ROUND`/`TRUNCATE` to no fewer
/// digits, `FLOOR`, `CEIL`, a cast to an integer, `GREATEST`, `LEAST`, `IFNULL`, `COALESCE`,
/// `NULLIF`), `STRCMP` of literals. `None` where it is not one of these, or NULL.
fn constant(e: &Expr) -> Option<i128> {
    const U64: i128 = 1 << 64;
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            Value::Boolean(b) => Some(i128::from(*b)),
            _ => None,
        },
        Expr::Nested(x) => constant(x),
        // A whole DATE or DATETIME literal as its number (`YYYYMMDD[hhmmss]`).
        Expr::TypedString(ts) => {
            use sqlparser::ast::DataType as D;
            let (Value::SingleQuotedString(t) | Value::DoubleQuotedString(t)) = &ts.value.value
            else {
                return None;
            };
            let digits: String = t.chars().filter(char::is_ascii_digit).collect();
            let whole = !t.contains('.') && !t.starts_with('-');
            match ts.data_type {
                D::Date | D::Timestamp(..) | D::Datetime(_) if whole => digits.parse().ok(),
                _ => None,
            }
        }
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => constant(expr).map(|v| -v),
        Expr::UnaryOp {
            op: UnaryOperator::BitwiseNot,
            expr,
        } => constant(expr).map(|v| i128::from(!(v.rem_euclid(U64) as u64))),
        Expr::BinaryOp { left, op, right } => {
            let (l, r) = (constant(left)?, constant(right)?);
            match op {
                BinaryOperator::Plus => l.checked_add(r),
                BinaryOperator::Minus => l.checked_sub(r),
                BinaryOperator::Multiply => l.checked_mul(r),
                BinaryOperator::MyIntegerDivide => l.checked_div(r),
                BinaryOperator::Modulo => l.checked_rem(r),
                _ => None,
            }
        }
        Expr::Cast {
            expr, data_type, ..
        } => {
            let v = constant(expr)?;
            match super::typing::cast_type(data_type) {
                Ty::Int => Some(i128::from(v.rem_euclid(U64) as u64 as i64)),
                Ty::UInt => Some(v.rem_euclid(U64)),
                _ => None,
            }
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            let args = super::typing::children(e);
            let null = |a: &Expr| matches!(a, Expr::Value(v) if v.value == Value::Null);
            match (name.as_str(), args.as_slice()) {
                // The first argument that is not NULL; `NULLIF(a, NULL)` is `a`.
                ("IFNULL" | "COALESCE", _) => {
                    return args.iter().find(|a| !null(a)).and_then(|a| constant(a));
                }
                ("NULLIF", [a, b]) if null(b) => return constant(a),
                ("NULLIF", [a, b]) => {
                    let (a, b) = (constant(a)?, constant(b)?);
                    return (a != b).then_some(a);
                }
                // Of two literals, by the default collation's order (case aside).
                ("STRCMP", [a, b]) => {
                    let text = |e: &Expr| literal_text(e).map(str::to_lowercase);
                    return Some(match text(a)?.cmp(&text(b)?) {
                        std::cmp::Ordering::Less => -1,
                        std::cmp::Ordering::Equal => 0,
                        std::cmp::Ordering::Greater => 1,
                    });
                }
                _ => {}
            }
            let values: Option<Vec<i128>> = args.iter().map(|a| constant(a)).collect();
            let values = values?;
            match (name.as_str(), values.as_slice()) {
                ("ABS", [v]) => Some(v.abs()),
                ("ROUND" | "TRUNCATE", [v, d]) if *d >= 0 => Some(*v),
                ("ROUND" | "FLOOR" | "CEIL" | "CEILING", [v]) => Some(*v),
                ("GREATEST", [_, ..]) => values.iter().copied().max(),
                ("LEAST", [_, ..]) => values.iter().copied().min(),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether argument `k` of `e` is the NULL literal.
fn is_null_arg(e: &Expr, k: usize) -> bool {
    super::typing::children(e).get(k).is_some_and(
        |a| matches!(a, Expr::Value(v) if matches!(v.value, sqlparser::ast::Value::Null)),
    )
}

fn int_arg(e: &Expr, k: usize) -> Option<i64> {
    super::typing::children(e)
        .get(k)
        .and_then(|x| super::typing::literal_int(x))
}

/// The characters `FORMAT(x, d)` may write (MariaDB's `Item_func_format`): `x`'s integer
/// digits as its type may hold them (a FLOAT's 39, a DOUBLE's or a string's 309, an INT's 10,
/// a BIGINT's 19, a DECIMAL's own) and one more where rounding to `d` decimals may carry
/// into them, a separator every three, a point, a sign, and `d` (38 where it is no constant).
fn format_chars(x: Meta, places: Option<i64>) -> Option<u32> {
    const MAX_DECIMALS: u32 = 38;
    let mut int = match x.code {
        Code::Float => 39,
        Code::Double | Code::Null => 309,
        Code::Long => 10,
        Code::LongLong if x.unsigned => 20,
        Code::LongLong => 19,
        Code::NewDecimal => x.int_part(),
        _ if x.is_text() => 309,
        _ => return None,
    };
    let decimals = u32::from(x.decimals);
    let (places, carries) = match places {
        Some(d) => {
            let d = d.clamp(0, i64::from(MAX_DECIMALS)) as u32;
            (d, d < decimals)
        }
        None => (MAX_DECIMALS, decimals > 0),
    };
    if carries || int == 0 {
        int += 1;
    }
    Some(int + int / 3 + u32::from(places > 0) + 1 + places)
}

/// A string function's result, `chars` long, NULL where an argument is, and in a strict
/// `sql_mode` always ([`string_nullable`]).
fn text_of(chars: u32, kids: &[Meta]) -> Meta {
    Meta::text(chars, string_nullable(kids))
}

/// Whether a string function's result (MariaDB's `Item_str_func`) may be NULL: where an
/// argument may, and always in a strict `sql_mode` (MariaDB's default), where a result past
/// `max_allowed_packet` or not well formed is NULL.
fn string_nullable(kids: &[Meta]) -> bool {
    super::typing::strict_mode() || any_nullable(kids)
}

fn function(name: &str, ty: Ty, kids: &[Meta], e: &Expr) -> Option<Meta> {
    let kid = |k: usize| kids.get(k).copied();
    let nullable = any_nullable(kids);
    if ty == Ty::Text && is_moved_string(e) {
        let args = super::typing::children(e);
        // `TIMESTAMPADD(unit, n, s)` moves its last argument.
        let (s, k, i) = if name == "TIMESTAMPADD" {
            (*args.last()?, kids.len().checked_sub(1)?, None)
        } else {
            (*args.first()?, 0, args.get(1).copied())
        };
        return Some(moved_string(kid(k)?, s, i.unwrap_or(s)));
    }
    if matches!(ty, Ty::DateTime | Ty::Time)
        && matches!(name, "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE")
    {
        if let [_, Expr::Interval(i)] = super::typing::children(e).as_slice() {
            return Some(moved_temporal(ty, kid(0)?, i));
        }
    }
    if ty == Ty::Text && matches!(name, "ADDTIME" | "SUBTIME") {
        return Some(Meta {
            code: Code::String,
            ..Meta::text(26, true)
        });
    }
    // A count given as a literal (NULL: none, the result is NULL).
    let count = |k: usize| match kid(k) {
        Some(m) if m.code == Code::Null => Some(0),
        _ => int_arg(e, k).map(|n| n.clamp(0, 1 << 24) as u32),
    };
    // MariaDB's `Item_func_field` is never NULL: a NULL it looks for is at 0.
    if name == "FIELD" {
        return Some(Meta::fixed(Code::Long, 3, false));
    }
    if let Some((_, length, of_a_date, part)) = LONG_FUNCTIONS.iter().find(|(n, ..)| *n == name) {
        let m = Meta::fixed(Code::Long, *length, *of_a_date || nullable);
        return Some(if *part { m.never_negative() } else { m });
    }
    Some(match name {
        "COUNT" => Meta::fixed(Code::LongLong, 21, false),
        "ISNULL" => Meta::int(1, false),
        "BIT_OR" | "BIT_AND" | "BIT_XOR" => Meta::fixed(Code::LongLong, 21, false).unsigned(),
        "CRC32" => Meta::fixed(Code::Long, 10, nullable).unsigned(),
        "CONNECTION_ID" => Meta::fixed(Code::Long, 10, false).unsigned(),
        "BIT_LENGTH" => Meta::fixed(Code::LongLong, 11, nullable),
        "TO_SECONDS" => Meta::fixed(Code::LongLong, 12, true),
        "TIMESTAMPDIFF" => Meta::fixed(Code::LongLong, 21, true),
        "UNIX_TIMESTAMP" | "TIME_TO_SEC" if kids.len() == 1 => seconds(
            kids[0],
            super::typing::children(e).first()?,
            name == "TIME_TO_SEC",
        ),
        "UNIX_TIMESTAMP" if ty == Ty::Int => Meta::fixed(Code::LongLong, 17, true),
        "SUM" => match ty {
            Ty::Dec(s) => Meta::decimal(kid(0)?.precision + 22, u32::from(s), true),
            // MariaDB's `Item_sum_sum`: its argument's decimals, `float_length` of them.
            Ty::Double => real(&[kid(0)?], true),
            _ => return None,
        },
        "AVG" => match ty {
            Ty::Dec(s) => {
                let k = kid(0)?;
                let s = u32::from(s);
                Meta::decimal(k.precision + s.saturating_sub(k.scale()), s, true)
            }
            // MariaDB's `Item_sum_avg`: its argument's length and decimals, each
            // `div_precision_increment` more, within `float_length` of those decimals.
            Ty::Double => {
                let k = kid(0)?;
                let decimals = double_decimals(&[k], super::typing::div_increment());
                let most = if decimals < NOT_FIXED {
                    17 + u32::from(decimals)
                } else {
                    23
                };
                let length = (k.length + super::typing::div_increment()).min(most);
                Meta::double(length, decimals, true)
            }
            _ => return None,
        },
        "STD" | "STDDEV" | "STDDEV_POP" | "STDDEV_SAMP" | "VARIANCE" | "VAR_POP" | "VAR_SAMP" => {
            // MariaDB's `Item_sum_variance`: a DOUBLE's or a string's decimals and 4 more; an
            // exact number's and `div_precision_increment` more, at most 30, and as long as
            // twice its digits and the increment, a point and a sign
            // (`my_decimal_precision_to_length_no_truncation`).
            let k = kid(0)?;
            let increment = super::typing::div_increment();
            match k.code {
                Code::Long | Code::LongLong | Code::NewDecimal => {
                    let decimals = (u32::from(k.decimals) + increment).min(30);
                    let digits = k.precision * 2 + increment;
                    Meta::double(digits + u32::from(decimals > 0) + 1, decimals as u8, true)
                }
                // Otherwise `float_length` of its operand's decimals (`Item_sum_num`'s, 23
                // where they are not fixed), 4 more decimals.
                _ => {
                    let length = match real_decimals(&[k]) {
                        Some(d) if d < u32::from(NOT_FIXED) => 17 + d,
                        _ => 23,
                    };
                    Meta::double(length, double_decimals(&[k], 4), true)
                }
            }
        }
        "MIN" | "MAX" => {
            let k = kid(0)?;
            // A column or a truth (`TRUE`, a comparison) keeps its type.
            let column = match super::typing::children(e).first() {
                Some(Expr::Identifier(_) | Expr::CompoundIdentifier(_)) => true,
                Some(x) => is_truth(x),
                None => false,
            };
            match k.code {
                // Of NULL, an empty binary string (which a temporary table keeps as it is).
                Code::Null => Meta {
                    binary: true,
                    decimals: 0,
                    ..Meta::text(0, true)
                },
                // An integer computed is held as a LONGLONG; a column keeps its type.
                Code::Long if !column => Meta {
                    code: Code::LongLong,
                    ..k.with_a_sign()
                },
                // Of the argument's decimals (`DATE_FORMAT`'s none, a moved string's digits;
                // a column's not fixed, whose own definition shows none).
                Code::String | Code::VarString => Meta {
                    code: Code::VarString,
                    decimals: if column { STRING_DECIMALS } else { k.decimals },
                    ..k
                },
                // A DOUBLE computed (MariaDB's `Item_sum_min_max` of a real: its
                // `fix_length_and_dec_double`): `float_length` of its decimals, `MIN(1e0)` 23.
                Code::Double if !column => real(&[k], true),
                Code::Float => held_float(k),
                _ => k,
            }
            .nullable(true)
        }
        "ABS" => match (ty, kid(0)?.code) {
            (Ty::Int, _) => Meta::int(kid(0)?.with_a_sign().length, kid(0)?.nullable),
            // A whole temporal read as its number (`ABS(TIMESTAMP …)`): a DECIMAL as long as
            // the temporal's text, as MariaDB declares it (so `FLOOR` of it is an integer).
            (Ty::Dec(0), Code::Long | Code::LongLong) => {
                Meta::decimal(kid(0)?.length.saturating_sub(1), 0, kid(0)?.nullable)
            }
            // A DOUBLE's `fix_length_and_dec_double`: `float_length` of its decimals (`ABS(1e0)`
            // 23, `ABS(NULL)` 17 of none).
            // A string is read as a DOUBLE of no fixed decimals (`ABS('')`).
            // A FLOAT's absolute value is a DOUBLE, as MariaDB computes it (`ABS(req_time)`).
            (Ty::Double, _) => real(&[kid(0)?], kid(0)?.nullable),
            _ => kid(0)?,
        },
        "FLOOR" | "CEIL" | "CEILING" => rounded_int(ty, handled(e, kid(0)?))?,
        "ROUND" | "TRUNCATE" => {
            // NULL where its places may be too (`ROUND(1, NULL)`).
            let k = handled(e, kid(0)?).with_a_sign();
            let k = k.nullable(k.nullable || kid(1).is_some_and(|p| p.nullable));
            // `None`: no places given; `Some(None)`: places not a literal.
            let places = (kids.len() > 1).then(|| int_arg(e, 1));
            let round = name == "ROUND";
            match (ty, k.code) {
                // An integer rounded to tens may gain a digit: a LONGLONG's is a DECIMAL
                // then (MariaDB's `fix_arg_int`); otherwise declared by its length.
                (Ty::Int, Code::Long | Code::LongLong) => match places {
                    Some(Some(d)) if d < 0 && round && k.code == Code::LongLong => {
                        Meta::decimal(k.length, 0, k.nullable)
                    }
                    Some(Some(d)) if d < 0 && round => Meta {
                        code: long_or_longlong(k.length + 1),
                        length: k.length + 1,
                        ..k
                    },
                    _ => k,
                },
                // A digit more only where rounding drops decimals (MariaDB's
                // `fix_length_and_dec_decimal`: `ROUND(1.5, 10)` keeps 1 integer digit).
                (Ty::Dec(s), _) => {
                    let s = u32::from(s);
                    let carry = round && k.scale() > s;
                    Meta::decimal(k.int_part() + u32::from(carry) + s, s, k.nullable)
                }
                // A DECIMAL rounded to no decimals stays a DECIMAL.
                (Ty::Int, Code::NewDecimal) => {
                    let carry = round && k.scale() > 0;
                    Meta::decimal(k.int_part() + u32::from(carry), 0, k.nullable)
                }
                (Ty::Double, _) => match places {
                    Some(Some(d)) if d > 0 => {
                        let d = d.min(30) as u8;
                        Meta::double(17 + u32::from(d), d, k.nullable)
                    }
                    // To no decimals, or to tens (`ROUND(x, -1)`): 0 decimals.
                    None | Some(Some(_)) => Meta::double(17, 0, k.nullable),
                    Some(None) => Meta::double(23, NOT_FIXED, k.nullable),
                },
                // A DATETIME or TIME rounded to `n` fraction digits (at most 6) keeps its type
                // with them (MariaDB's `Item_func_round::fix_arg_temporal`).
                (Ty::DateTime | Ty::Time, Code::DateTime | Code::Time) => {
                    let fraction = match places {
                        Some(Some(d)) => d.clamp(0, 6) as u8,
                        // NULL digits: none; digits known only as it runs: all six.
                        Some(None) if is_null_arg(e, 1) => 0,
                        Some(None) => 6,
                        None => 0,
                    };
                    // A DATETIME rounded may be NULL whatever its operand (MariaDB's
                    // `fix_arg_datetime`); truncated, or a TIME, as its operand.
                    let nullable = k.nullable || (round && k.code == Code::DateTime);
                    Meta::temporal(k.code, fraction, nullable)
                }
                _ => return None,
            }
        }
        // NULL where any operand may be, its condition's too (as `CASE`).
        "IF" => merged(ty, kids.get(1..)?, any_nullable(kids))?,
        // NULL only where every argument may be (MariaDB's `Item_func_coalesce`).
        "IFNULL" | "COALESCE" => merged(ty, kids, kids.iter().all(|k| k.nullable))?,
        // A DATE or DATETIME among numbers or strings (`typing::temporal_greatest`): of the
        // temporals' fraction digits, NULL where a conversion fails.
        "GREATEST" | "LEAST"
            if (matches!(ty, Ty::Date | Ty::DateTime)
                && kids
                    .iter()
                    .any(|k| !matches!(k.code, Code::Date | Code::DateTime | Code::Null)))
                || (ty == Ty::Time
                    && kids
                        .iter()
                        .any(|k| !matches!(k.code, Code::Time | Code::Null))) =>
        {
            let args = super::typing::children(e);
            let (shown, length) = greatest_temporal_digits(&args, kids, ty == Ty::Time);
            match ty {
                Ty::Date => Meta::temporal(Code::Date, 0, true),
                _ => Meta {
                    decimals: shown,
                    ..Meta::temporal(
                        if ty == Ty::Time {
                            Code::Time
                        } else {
                            Code::DateTime
                        },
                        length,
                        true,
                    )
                },
            }
        }
        // DOUBLEs compared: `float_length` of their decimals (MariaDB's
        // `Item_func_min_max`, not the hybrid functions' `count_real_length`).
        "GREATEST" | "LEAST" if ty == Ty::Double && all_float(kids) => Meta {
            code: Code::Float,
            ..real(kids, nullable)
        },
        "GREATEST" | "LEAST" if ty == Ty::Double => real(kids, nullable),
        "GREATEST" | "LEAST" => merged(ty, kids, nullable)?,
        // An expression: a text column's decimals as an expression's (39, a field's own
        // `NOT_FIXED_DEC`).
        "NULLIF" => {
            let k = kid(0)?;
            Meta {
                decimals: if k.is_text() {
                    STRING_DECIMALS
                } else {
                    k.decimals
                },
                ..k
            }
            .nullable(true)
        }
        // A window's value of a row: declared as its argument.
        "LAG" | "LEAD" | "FIRST_VALUE" | "LAST_VALUE" | "NTH_VALUE" => match kid(0)? {
            k if k.code == Code::Float => held_float(k).nullable(true),
            // A part of a date or a time is held as a LONGLONG field (`LAG(HOUR(d))`).
            k if k.ge0 => Meta {
                code: Code::LongLong,
                ..k.with_a_sign()
            }
            .nullable(true),
            k => k.nullable(true),
        },
        "PI" => Meta::double(8, 6, false),
        // MariaDB's `Item_sum_percentile_cont`: 10 decimals, as long as a DOUBLE of the
        // fraction's (`float_length`); `Item_sum_percentile_disc`: the value's own type.
        "PERCENTILE_CONT" => Meta {
            decimals: 10,
            ..real(&[kid(0)?], true)
        },
        // (A string's decimals not fixed.)
        "PERCENTILE_DISC" => match kid(1)? {
            k if k.is_string() => Meta {
                decimals: STRING_DECIMALS,
                ..k
            },
            k => k,
        }
        .nullable(true),
        // MariaDB's `Item_sum_percent_rank` and `Item_sum_cume_dist`.
        "PERCENT_RANK" | "CUME_DIST" => Meta::double(17, 10, true),
        // A row's number, rank or bucket is never NULL (MariaDB's `Item_sum_row_number`, …).
        "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "NTILE" => Meta::int(21, false),
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE"
        | "UTC_TIMESTAMP" => Meta::temporal(Code::DateTime, fraction_arg(e), false),
        // `ADDTIME(d, t)` (and `TIMESTAMP(d, t)`, which the translation makes one): MariaDB's
        // `Item_func_add_time` declares the larger of its operands' fractions (`d`'s
        // `datetime_precision`, `t`'s `time_precision`), each as `UNIX_TIMESTAMP` and
        // `TIME_TO_SEC` read them.
        "ADDTIME" | "SUBTIME" if matches!(ty, Ty::DateTime | Ty::Time) && kids.len() == 2 => {
            let mut digits = 0;
            for (k, arg) in super::typing::children(e).into_iter().enumerate() {
                if k == 1 && adds_a_row_string(&kid(k)?, arg) {
                    digits = 6;
                    continue;
                }
                let m = seconds(kid(k)?, arg, k == 1 || ty == Ty::Time);
                if m.code == Code::ByValue {
                    return None;
                }
                digits = digits.max(m.decimals);
            }
            let code = if ty == Ty::Time {
                Code::Time
            } else {
                Code::DateTime
            };
            Meta::temporal(code, digits, true)
        }
        "CURDATE" | "CURRENT_DATE" | "UTC_DATE" => Meta::temporal(Code::Date, 0, false),
        "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => {
            Meta::temporal(Code::Time, fraction_arg(e), false)
        }
        "CONCAT" => Meta::text(kids.iter().map(Meta::chars).sum(), string_nullable(kids)),
        "CONCAT_WS" => {
            let sep = kid(0)?.chars();
            let parts = kids.get(1..)?;
            let chars = parts.iter().map(Meta::chars).sum::<u32>()
                + sep * (parts.len() as u32).saturating_sub(1);
            Meta::text(chars, string_nullable(kids))
        }
        // As long as the string they read (MariaDB's `args[0]->max_length`).
        "UPPER" | "LOWER" | "UCASE" | "LCASE" | "REVERSE" | "TRIM" | "LTRIM" | "RTRIM"
        | "REGEXP_SUBSTR" => text_of(kid(0)?.chars(), kids),
        // MariaDB's `Item_func_from_unixtime`: the fraction digits its argument declares, at
        // most 6; a DOUBLE's or a string's not fixed (MariaDB's `NOT_FIXED_DEC`, 39), as long
        // as six would make it.
        "FROM_UNIXTIME" if kids.len() == 1 && ty == Ty::DateTime => {
            let digits = kid(0)?.decimals;
            if digits >= NOT_FIXED {
                Meta {
                    decimals: STRING_DECIMALS,
                    ..Meta::temporal(Code::DateTime, 6, true)
                }
            } else {
                Meta::temporal(Code::DateTime, digits.min(6), true)
            }
        }
        // `FROM_UNIXTIME(t, format)` is `DATE_FORMAT(FROM_UNIXTIME(t), format)`.
        "DATE_FORMAT" | "TIME_FORMAT" | "FROM_UNIXTIME" if kids.len() == 2 => Meta {
            decimals: 0,
            ..Meta::text(
                match string_arg(e, 1) {
                    Some(format) => format_length(format),
                    // MariaDB's: the format's bytes, 10 characters each.
                    None => kid(1)?.length.saturating_mul(10),
                },
                true,
            )
        },
        "MOD" => binary(&BinaryOperator::Modulo, ty, kid(0)?, kid(1)?)?,
        "SUBSTRING" | "SUBSTR" | "MID" => {
            let s = kid(0)?;
            let chars = match (int_arg(e, 1), count(2)) {
                (_, Some(n)) => n.min(s.chars()),
                // MariaDB takes the start's characters from the string's bytes.
                (Some(p), None) if p > 0 => (s.length.saturating_sub(p as u32 - 1)).min(s.length),
                (Some(p), None) if p < 0 => (p.unsigned_abs() as u32).min(s.length),
                (Some(_), None) => 0,
                (None, _) => s.chars(),
            };
            text_of(chars, kids)
        }
        "SUBSTRING_INDEX" => text_of(kid(0)?.chars(), kids),
        "LEFT" | "RIGHT" => {
            let chars = kid(0)?.chars();
            text_of(count(1).map_or(chars, |n| n.min(chars)), kids)
        }
        "LPAD" | "RPAD" => text_of(count(1)?, kids),
        // MariaDB's `Item_func_convert_tz`: a DATETIME of the fraction digits its argument is
        // read with.
        "CONVERT_TZ" => {
            let digits = match (kid(0), super::typing::children(e).first()) {
                (Some(k), Some(arg)) => datetime_precision(&k, arg, false).unwrap_or(0),
                _ => 0,
            };
            Meta::temporal(Code::DateTime, digits as u8, true)
        }
        // MariaDB's `Item_func_sec_to_time`: the fraction digits its argument declares, at
        // most 6 (a DOUBLE's or a string's, not fixed, 6).
        "SEC_TO_TIME" => {
            let digits = kid(0).map_or(0, |k| {
                if k.decimals >= NOT_FIXED {
                    6
                } else {
                    k.decimals.min(6)
                }
            });
            Meta::temporal(Code::Time, digits, true)
        }
        "REPEAT" => match count(1) {
            Some(n) => text_of(kid(0)?.chars().saturating_mul(n), kids),
            None => Meta::text(1 << 24, true),
        },
        "SPACE" => match count(0) {
            Some(n) => text_of(n, kids),
            None => Meta::text(1 << 24, true),
        },
        "REPLACE" => {
            let grow = kid(2)?.chars().saturating_sub(1);
            text_of(kid(0)?.chars().saturating_mul(grow + 1), kids)
        }
        "INSERT" => text_of(kid(0)?.chars() + kid(3)?.chars(), kids),
        "QUOTE" => text_of(kid(0)?.chars() * 2 + 2, kids),
        "FORMAT" => text_of(format_chars(kid(0)?, int_arg(e, 1))?, kids),
        "ELT" => text_of(kids.get(1..)?.iter().map(Meta::chars).max()?, kids).nullable(true),
        "HEX" => Meta {
            decimals: 0,
            ..text_of(
                // A string's bytes (a binary one's too: `HEX(UNHEX(x))`), two digits each.
                if kid(0)?.is_text() || (kid(0)?.binary && kid(0)?.code == Code::VarString) {
                    kid(0)?.length * 2
                } else {
                    16
                },
                kids,
            )
        },
        "INET_NTOA" => Meta {
            decimals: 0,
            ..Meta::text(31, true)
        },
        "VERSION" => Meta::text(26, false),
        "DATABASE" | "SCHEMA" => Meta::text(64, true),
        "USER" | "CURRENT_USER" | "SESSION_USER" | "SYSTEM_USER" => Meta::text(384, true),
        "MD5" => Meta::text(32, true),
        "SHA1" | "SHA" => Meta::text(40, true),
        // The digest's hex digits by its length where that is a constant (0 is 256), else
        // SHA-512's 128 (MariaDB's `Item_func_sha2`, which then declares no decimals).
        "SHA2" => match int_arg(e, 1) {
            Some(224) => Meta::text(56, true),
            Some(0 | 256) => Meta::text(64, true),
            Some(384) => Meta::text(96, true),
            Some(512) => Meta::text(128, true),
            // A length SHA-2 has not: NULL, declared a binary string.
            Some(_) => Meta {
                binary: true,
                ..Meta::text(128, true)
            },
            None => Meta {
                decimals: 0,
                ..Meta::text(128, true)
            },
        },
        "DAYNAME" | "MONTHNAME" => Meta {
            decimals: 0,
            ..Meta::text(9, true)
        },
        // As long as `group_concat_max_len`: a VARCHAR up to 512 characters, else a BLOB.
        "GROUP_CONCAT" => match super::typing::group_concat_max_len() {
            n if n <= 512 => Meta {
                decimals: 0,
                ..Meta::text(n as u32, true)
            },
            _ => Meta {
                code: Code::Blob,
                length: 1 << 24,
                decimals: 0,
                ..Meta::text(0, true)
            },
        },
        "REGEXP_REPLACE" => Meta::text(1 << 24, true),
        _ => return scalar(name, kids),
    })
}

/// The declarations of `scalars`'s functions (and `ROW_COUNT`, `CHARSET`, …), MariaDB's: each
/// checked against a MariaDB on NULL and non-NULL arguments.
fn scalar(name: &str, kids: &[Meta]) -> Option<Meta> {
    let kid = |k: usize| kids.get(k).copied();
    let nullable = any_nullable(kids);
    // A binary string (charset 63) of `length` bytes: a MEDIUM_BLOB past 64 KiB, a LONG_BLOB
    // from 16 MiB.
    let bytes = |length: u32, decimals: u8| Meta {
        binary: true,
        length,
        decimals,
        code: string_code(length >= 1 << 24, length),
        ..Meta::text(0, true)
    };
    Some(match name {
        "RAND" | "DEGREES" | "RADIANS" => Meta::double(23, NOT_FIXED, nullable),
        "COT" => Meta::double(23, NOT_FIXED, true),
        "UUID" => Meta {
            code: Code::String,
            ..Meta::text(36, true)
        },
        // MariaDB's `Item_func_conv`: 64 digits and a sign.
        "CONV" | "BIN" | "OCT" => Meta::text(65, true),
        "INET_ATON" => Meta::fixed(Code::LongLong, 21, true),
        "IS_IPV4" | "IS_IPV6" | "SLEEP" => Meta::int(1, nullable),
        "JSON_VALID" => Meta::int(1, true),
        "GET_LOCK" | "RELEASE_LOCK" | "IS_FREE_LOCK" => Meta::int(1, true),
        "IS_USED_LOCK" => Meta::fixed(Code::Long, 10, true),
        "RELEASE_ALL_LOCKS" => Meta::fixed(Code::Long, 11, false).unsigned(),
        "COERCIBILITY" => Meta::fixed(Code::Long, 10, false),
        // The session's counts, never NULL (`LAST_INSERT_ID` UNSIGNED: its type is `UInt`).
        "ROW_COUNT" | "FOUND_ROWS" | "LAST_INSERT_ID" => Meta::fixed(Code::LongLong, 21, false),
        // MariaDB's `Item_func_interval`: never NULL.
        "INTERVAL" => Meta::int(2, false),
        "CHARSET" | "COLLATION" => Meta::text(64, true),
        "GET_FORMAT" => Meta {
            decimals: 0,
            ..Meta::text(17, true)
        },
        // `my_base64_needed_encoded_length` of the argument's bytes: 4 characters for each 3
        // bytes, a line break after every 76.
        "TO_BASE64" => {
            let n = kid(0)?.length;
            let encoded = n.div_ceil(3) * 4;
            Meta::text(encoded + encoded.saturating_sub(1) / 76, true)
        }
        "FROM_BASE64" => bytes((kid(0)?.max_length() * 3).div_ceil(4), STRING_DECIMALS),
        "UNHEX" => bytes(kid(0)?.max_length().div_ceil(2), 0),
        // A byte or more for each argument: 4 each.
        "CHAR" => bytes(4 * kids.len() as u32, STRING_DECIMALS),
        "MAKE_SET" => {
            let strings = kids.get(1..)?;
            let chars = strings.iter().map(Meta::chars).sum::<u32>()
                + (strings.len() as u32).saturating_sub(1);
            Meta::text(chars, true)
        }
        // 64 bits, each the longer of `on` and `off`, between them 63 separators (`,`).
        "EXPORT_SET" => {
            let bit = kid(1)?.chars().max(kid(2)?.chars());
            let sep = kid(3).map_or(1, |m| m.chars());
            Meta::text(64 * bit + 63 * sep, true)
        }
        // Of the `utf8mb4_bin` collation (MariaDB's `Item_func_json_unquote`): flagged BINARY.
        "JSON_UNQUOTE" => Meta {
            bin_collation: true,
            ..Meta::text(kid(0)?.chars(), true)
        },
        "JSON_EXTRACT" => {
            let paths = kids.len().saturating_sub(1) as u32;
            Meta::text(kid(0)?.chars() * 2 * paths.max(1), true)
        }
        _ => return None,
    })
}

/// A function's `k`th argument where it is a string literal.
fn string_arg(e: &Expr, k: usize) -> Option<&str> {
    match e {
        Expr::Function(f) => match &f.args {
            sqlparser::ast::FunctionArguments::List(l) => match l.args.get(k)? {
                sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(x)) => {
                    literal_text(x)
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The characters `DATE_FORMAT` may write for `format` (MariaDB's
/// `Item_func_date_format::format_length`): each specifier's most, a name 64 (32 abbreviated),
/// an hour 7 (a TIME's may pass 23), every other byte 1.
fn format_length(format: &str) -> u32 {
    let mut bytes = format.bytes();
    let mut size = 0u32;
    while let Some(b) = bytes.next() {
        if b != b'%' {
            size += 1;
            continue;
        }
        size += match bytes.next() {
            None => 1,
            Some(b'M' | b'W') => 64,
            Some(b'D' | b'Y' | b'x' | b'X') => 4,
            Some(b'a' | b'b') => 32,
            Some(b'j') => 3,
            Some(
                b'U' | b'u' | b'V' | b'v' | b'y' | b'm' | b'd' | b'h' | b'I' | b'i' | b'l' | b'p'
                | b'S' | b's' | b'c' | b'e',
            ) => 2,
            Some(b'k' | b'H') => 7,
            Some(b'r') => 11,
            Some(b'T') => 8,
            Some(b'f') => 6,
            Some(_) => 1,
        };
    }
    size
}

/// The fraction digits a function is asked for (`NOW(3)`), 0 where none.
fn fraction_arg(e: &Expr) -> u8 {
    int_arg(e, 0).map_or(0, |d| d.clamp(0, 6) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporals_read_with_their_fraction_are_decimals() {
        let m = Meta::temporal_decimal(Ty::DateTime, 2, false);
        assert_eq!(
            (m.code, m.precision, m.decimals, m.length),
            (Code::NewDecimal, 16, 2, 18)
        );
        let m = Meta::temporal_decimal(Ty::Time, 1, false);
        assert_eq!((m.precision, m.decimals), (8, 1));
        let m = Meta::rounded_date(false);
        assert_eq!((m.code, m.length), (Code::Long, 8));
    }

    #[test]
    fn integers_are_long_up_to_nine_characters() {
        assert_eq!(number("123456789").code, Code::Long);
        assert_eq!(number("1234567890").code, Code::LongLong);
        assert_eq!(number("007").length, 1);
        assert_eq!(number("1.50"), Meta::decimal(3, 2, false));
        assert_eq!(number("1.50").length, 5);
        assert_eq!(number("1e0").code, Code::Double);
        assert_eq!(number("123456789012345678901").code, Code::NewDecimal);
    }

    #[test]
    fn table_columns_keep_their_declared_types() {
        let int = Meta::column("int(11)");
        assert_eq!((int.code, int.length, int.precision), (Code::Long, 11, 10));
        assert_eq!(Meta::column("bigint(20)").code, Code::LongLong);
        assert_eq!(Meta::column("varchar(32)").length, 128);
        assert_eq!(Meta::column("float").code, Code::Float);
    }

    #[test]
    fn table_columns_of_numbers_are_not_flagged_binary() {
        // MariaDB's `Field_num` has no BINARY flag; an expression of a number has.
        assert!(!Meta::column("int(11)").binary_flag());
        assert!(!Meta::column("float").binary_flag());
        assert!(number("12").binary_flag());
        assert!(!Meta::column("varchar(32)").binary_flag());
        let count = Meta::fixed(Code::LongLong, 21, false);
        let held = count.through_temporary_table(true, false, true, true);
        assert!(!held.binary_flag() && !held.nullable);
        assert!(count
            .through_temporary_table(true, false, true, false)
            .binary_flag());
    }

    #[test]
    fn a_temporary_tables_blob_is_flagged_blob() {
        let long = Meta::text(600, true);
        assert!(long
            .through_temporary_table(true, false, true, true)
            .blob_flag());
        assert!(!long
            .through_temporary_table(true, false, true, false)
            .blob_flag());
        assert!(!long.blob_flag());
    }

    #[test]
    fn strings_held_in_a_temporary_table_declare_no_decimals() {
        let s = Meta::text(5, false);
        assert_eq!(
            s.through_temporary_table(true, false, true, true).decimals,
            0
        );
        // A literal, or an expression over aggregates, is computed again: its own.
        assert_eq!(
            s.through_temporary_table(false, false, true, false)
                .decimals,
            STRING_DECIMALS
        );
    }

    #[test]
    fn doubles_computed_from_fixed_decimals_keep_them() {
        // `2 + NULL`: 17 characters, no decimals; `1.50 + NULL` 2; a DOUBLE's "not fixed".
        assert_eq!(
            real(&[number("2"), Meta::null()], true),
            Meta::double(17, 0, true)
        );
        assert_eq!(real(&[number("1.50"), Meta::null()], true).decimals, 2);
        assert_eq!(
            real(&[number("1.50"), number("1e0")], true).decimals,
            NOT_FIXED
        );
        // A string's decimals are not fixed either.
        assert_eq!(real(&[Meta::text(1, false)], true).length, 23);
    }

    #[test]
    fn date_format_is_as_long_as_its_format_can_write() {
        assert_eq!(format_length("%Y"), 4);
        assert_eq!(format_length("%Y-%m-%d"), 10);
        assert_eq!(format_length("%H"), 7);
        assert_eq!(format_length("%W %M"), 129);
        assert_eq!(format_length("%r %T %f %%"), 11 + 1 + 8 + 1 + 6 + 1 + 1);
        assert_eq!(format_length("%"), 1);
    }
}
